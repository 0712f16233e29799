/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the command-buffer walker (uapi/uapi_cmdbuf.h): well-formed
 * buffers, payloads shorter or longer than the struct, unknown types, and
 * the malformed buffers it must stop at without reading past the end.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "uapi/uapi_cmdbuf.h"

static size_t
put(uint8_t *buf, size_t pos, uint16_t type, const void *payload, uint16_t size)
{
   struct drm_asahi_cmd_header h = { type, size, 0, 0 };
   memcpy(buf + pos, &h, sizeof(h));
   if (size)
      memcpy(buf + pos + sizeof(h), payload, size);
   return pos + sizeof(h) + size;
}

static void
test_empty(void **state)
{
   (void)state;
   struct uapi_cmd_iter it;
   struct uapi_cmd c;
   uapi_cmd_iter_init(&it, NULL, 0);
   assert_false(uapi_cmd_next(&it, &c));
   assert_int_equal(it.status, UAPI_CMDBUF_END);
   assert_false(uapi_cmd_iter_failed(&it));
   assert_int_equal(it.count, 0);
   assert_string_equal(uapi_cmdbuf_status_str(it.status), "");
}

static void
test_walk(void **state)
{
   (void)state;
   uint8_t buf[1024];
   struct drm_asahi_attachment a[2] = { { .pointer = 0x1000, .size = 64 },
                                        { .pointer = 0x2000, .size = 128, .flags = 0 } };
   struct drm_asahi_cmd_compute cc = { .cdm_ctrl_stream_base = 0xc0de, .ts = { { 5, 0 }, { 5, 8 } } };
   struct drm_asahi_cmd_render r = { .vdm_ctrl_stream_base = 0xabc, .ts_frag = { { 0, 0 }, { 6, 24 } } };
   uint8_t odd[3] = { 1, 2, 3 };
   size_t n = put(buf, 0, DRM_ASAHI_SET_COMPUTE_ATTACHMENTS, a, sizeof(a));
   n = put(buf, n, DRM_ASAHI_CMD_COMPUTE, &cc, sizeof(cc));
   n = put(buf, n, 77, odd, sizeof(odd));
   n = put(buf, n, DRM_ASAHI_CMD_RENDER, &r, sizeof(r));

   struct uapi_cmd_iter it;
   struct uapi_cmd c;
   uapi_cmd_iter_init(&it, buf, n);

   assert_true(uapi_cmd_next(&it, &c));
   assert_int_equal(c.index, 0);
   assert_int_equal(c.offset, 0);
   assert_true(c.known);
   assert_false(uapi_cmd_is_hw(&c));
   assert_int_equal(uapi_cmd_attachment_count(&c), 2);
   assert_int_equal(uapi_cmd_attachment(&c, 1).pointer, 0x2000);
   assert_int_equal(uapi_cmd_attachment(&c, 1).size, 128);
   assert_int_equal(uapi_cmd_attachment(&c, 2).pointer, 0);   /* out of range: zero */

   assert_true(uapi_cmd_next(&it, &c));
   assert_int_equal(c.index, 1);
   assert_int_equal(c.offset, sizeof(struct drm_asahi_cmd_header) + sizeof(a));
   assert_true(uapi_cmd_is_hw(&c));
   assert_int_equal(c.u.compute.cdm_ctrl_stream_base, 0xc0de);
   assert_int_equal(c.u.compute.ts.end.offset, 8);
   assert_int_equal(uapi_cmd_attachment_count(&c), 0);

   /* an unknown type is yielded, flagged and stepped over by its size */
   assert_true(uapi_cmd_next(&it, &c));
   assert_int_equal(c.h.cmd_type, 77);
   assert_false(c.known);
   assert_int_equal(c.h.size, 3);
   assert_memory_equal(c.payload, odd, 3);
   assert_string_equal(uapi_cmd_type_name(c.h.cmd_type), "unknown");

   assert_true(uapi_cmd_next(&it, &c));
   assert_int_equal(c.h.cmd_type, DRM_ASAHI_CMD_RENDER);
   assert_int_equal(c.u.render.vdm_ctrl_stream_base, 0xabc);
   assert_int_equal(c.u.render.ts_frag.end.handle, 6);

   assert_false(uapi_cmd_next(&it, &c));
   assert_int_equal(it.status, UAPI_CMDBUF_END);
   assert_int_equal(it.count, 4);
   assert_int_equal(it.unknown, 1);
   assert_int_equal(it.pos, n);
   /* done stays done */
   assert_false(uapi_cmd_next(&it, &c));
   assert_int_equal(it.status, UAPI_CMDBUF_END);

   assert_string_equal(uapi_cmd_type_name(DRM_ASAHI_CMD_COMPUTE), "compute");
   assert_string_equal(uapi_cmd_type_name(DRM_ASAHI_SET_FRAGMENT_ATTACHMENTS),
                       "set_fragment_attachments");
}

static void
test_payload_sizes(void **state)
{
   (void)state;
   uint8_t buf[1024];
   struct uapi_cmd_iter it;
   struct uapi_cmd c;

   /* shorter than the struct (older userspace): zero-extended */
   struct drm_asahi_cmd_compute cc;
   memset(&cc, 0xff, sizeof(cc));
   size_t n = put(buf, 0, DRM_ASAHI_CMD_COMPUTE, &cc, offsetof(struct drm_asahi_cmd_compute, ts));
   uapi_cmd_iter_init(&it, buf, n);
   assert_true(uapi_cmd_next(&it, &c));
   assert_int_equal(c.u.compute.cdm_ctrl_stream_base, UINT64_MAX);
   assert_int_equal(c.u.compute.ts.start.handle, 0);
   assert_int_equal(c.u.compute.ts.end.offset, 0);
   assert_false(uapi_cmd_next(&it, &c));
   assert_int_equal(it.status, UAPI_CMDBUF_END);

   /* longer: the struct is the first bytes, the payload keeps them all */
   uint8_t big[sizeof(struct drm_asahi_cmd_render) + 16];
   memset(big, 0x5a, sizeof(big));
   n = put(buf, 0, DRM_ASAHI_CMD_RENDER, big, sizeof(big));
   uapi_cmd_iter_init(&it, buf, n);
   assert_true(uapi_cmd_next(&it, &c));
   assert_int_equal(c.h.size, sizeof(big));
   assert_int_equal(c.u.render.width_px, 0x5a5a);
   assert_memory_equal(c.payload, big, sizeof(big));

   /* an attachment list with a partial entry counts whole ones */
   n = put(buf, 0, DRM_ASAHI_SET_VERTEX_ATTACHMENTS, big, sizeof(struct drm_asahi_attachment) + 5);
   uapi_cmd_iter_init(&it, buf, n);
   assert_true(uapi_cmd_next(&it, &c));
   assert_int_equal(uapi_cmd_attachment_count(&c), 1);

   /* a zero-size payload */
   n = put(buf, 0, DRM_ASAHI_CMD_RENDER, NULL, 0);
   uapi_cmd_iter_init(&it, buf, n);
   assert_true(uapi_cmd_next(&it, &c));
   assert_int_equal(c.u.render.vdm_ctrl_stream_base, 0);
   assert_false(uapi_cmd_next(&it, &c));
   assert_int_equal(it.status, UAPI_CMDBUF_END);
}

static void
test_malformed(void **state)
{
   (void)state;
   uint8_t buf[1024];
   struct uapi_cmd_iter it;
   struct uapi_cmd c;
   struct drm_asahi_cmd_compute cc = { .flags = 0 };
   size_t one = put(buf, 0, DRM_ASAHI_CMD_COMPUTE, &cc, sizeof(cc));

   /* fewer bytes than a header, alone */
   uapi_cmd_iter_init(&it, buf, 5);
   assert_false(uapi_cmd_next(&it, &c));
   assert_int_equal(it.status, UAPI_CMDBUF_HEADER_PAST_END);
   assert_true(uapi_cmd_iter_failed(&it));
   assert_int_equal(it.pos, 0);
   assert_string_equal(uapi_cmdbuf_status_str(it.status),
                       "command header runs past the command buffer");

   /* ... after a whole command: the command, then the damage */
   size_t n = one + 3;
   memset(buf + one, 0, 3);
   uapi_cmd_iter_init(&it, buf, n);
   assert_true(uapi_cmd_next(&it, &c));
   assert_false(uapi_cmd_next(&it, &c));
   assert_int_equal(it.status, UAPI_CMDBUF_HEADER_PAST_END);
   assert_int_equal(it.pos, one);
   assert_int_equal(it.count, 1);

   /* a payload cut short: the header is still reported */
   n = put(buf, one, DRM_ASAHI_CMD_RENDER, buf, 40);
   uapi_cmd_iter_init(&it, buf, n - 1);
   assert_true(uapi_cmd_next(&it, &c));
   assert_false(uapi_cmd_next(&it, &c));
   assert_int_equal(it.status, UAPI_CMDBUF_SHORT_PAYLOAD);
   assert_true(uapi_cmd_iter_failed(&it));
   assert_int_equal(c.index, 1);
   assert_int_equal(c.offset, one);
   assert_int_equal(c.h.cmd_type, DRM_ASAHI_CMD_RENDER);
   assert_int_equal(c.h.size, 40);
   assert_null(c.payload);
   assert_int_equal(uapi_cmd_attachment_count(&c), 0);
   assert_string_equal(uapi_cmdbuf_status_str(it.status), "payload runs past the command buffer");
   /* stopped stays stopped */
   assert_false(uapi_cmd_next(&it, &c));
   assert_int_equal(it.status, UAPI_CMDBUF_SHORT_PAYLOAD);

   /* the largest size a header can claim, over a buffer of one header */
   struct drm_asahi_cmd_header h = { DRM_ASAHI_SET_VERTEX_ATTACHMENTS, UINT16_MAX, 0, 0 };
   uint8_t *exact = malloc(sizeof(h));   /* exactly sized: ASan sees any over-read */
   assert_non_null(exact);
   memcpy(exact, &h, sizeof(h));
   uapi_cmd_iter_init(&it, exact, sizeof(h));
   assert_false(uapi_cmd_next(&it, &c));
   assert_int_equal(it.status, UAPI_CMDBUF_SHORT_PAYLOAD);
   free(exact);
}

int
main(void)
{
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_empty),
      cmocka_unit_test(test_walk),
      cmocka_unit_test(test_payload_sizes),
      cmocka_unit_test(test_malformed),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the shader index (uapi/uapi_shaders.h): the programs a
 * SUBMIT names through its streams and its uAPI structs.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cmdstream/agx_pack.h"
#include "uapi/uapi_shaders.h"

/* Shader indexing of a command buffer: the uAPI-named programs (bg, eot,
 * helpers) next to the streams, each VA once per submission, sizes by
 * decoding, and the cache. */
#define SH_BASE 0x1000000ull

static size_t
sh_read(void *ctx, uint64_t va, void *dst, size_t size)
{
   const uint8_t *img = ctx;
   if (va < SH_BASE || va >= SH_BASE + 0x400)
      return 0;
   size_t off = (size_t)(va - SH_BASE), n = 0x400 - off < size ? 0x400 - off : size;
   memcpy(dst, img + off, n);
   return n;
}

static void
test_shaders(void **state)
{
   (void)state;
   static uint8_t img[0x400];
   memset(img, 0, sizeof(img));
   /* code: a lone stop at 0x100; at 0x180 a 4-byte wait then stop */
   img[0x100] = 0x88;
   const uint8_t wait_stop[] = { 0x38, 0x00, 0x88, 0x00 };
   memcpy(img + 0x180, wait_stop, sizeof(wait_stop));
   /* the bg pipeline at 0x80 names the code at 0x180 */
   agx_pack(img + 0x80, USC_SHADER, c) { c.code = 0x180; }
   agx_pack(img + 0x80 + AGX_USC_SHADER_LENGTH, USC_NO_PRESHADER, c) { (void)c; }
   /* both streams only terminate */
   agx_pack(img + 0x200, VDM_STREAM_TERMINATE, t) { (void)t; }
   agx_pack(img + 0x300, CDM_STREAM_TERMINATE, t) { (void)t; }

   uint8_t buf[2 * sizeof(struct drm_asahi_cmd_header) + sizeof(struct drm_asahi_cmd_render) +
               sizeof(struct drm_asahi_cmd_compute)];
   size_t pos = 0;
   struct drm_asahi_cmd_header h = { .cmd_type = DRM_ASAHI_CMD_RENDER,
                                     .size = sizeof(struct drm_asahi_cmd_render) };
   struct drm_asahi_cmd_render r = { .vdm_ctrl_stream_base = SH_BASE + 0x200 };
   r.bg.usc = 0x80 | 1;               /* tag bit */
   r.vertex_helper.binary = 0x100 | 1;
   memcpy(buf + pos, &h, sizeof(h)), pos += sizeof(h);
   memcpy(buf + pos, &r, sizeof(r)), pos += sizeof(r);
   h = (struct drm_asahi_cmd_header){ .cmd_type = DRM_ASAHI_CMD_COMPUTE,
                                      .size = sizeof(struct drm_asahi_cmd_compute) };
   struct drm_asahi_cmd_compute c = { .cdm_ctrl_stream_base = SH_BASE + 0x300 };
   c.helper.binary = 0x100;           /* same helper: listed once */
   memcpy(buf + pos, &h, sizeof(h)), pos += sizeof(h);
   memcpy(buf + pos, &c, sizeof(c)), pos += sizeof(c);

   struct uapi_shader_cache cache = { 0 };
   struct uapi_shader_list l = { 0 };
   assert_int_equal(uapi_cmdbuf_shaders(buf, pos, SH_BASE, sh_read, img, &cache, &l), 0);
   assert_int_equal(l.count, 2);
   assert_int_equal(l.v[0].stage, TSR_STAGE_BG);
   assert_int_equal(l.v[0].va, SH_BASE + 0x180);
   assert_int_equal(l.v[0].size, 4);
   struct tsr_hash want = tsr_hash_bytes(wait_stop, 4);
   assert_memory_equal(l.v[0].hash.b, want.b, 16);
   assert_int_equal(l.v[1].stage, TSR_STAGE_HELPER);
   assert_int_equal(l.v[1].va, SH_BASE + 0x100);
   assert_int_equal(l.v[1].size, 2);
   assert_int_equal(l.v[1].cmd, 0);
   assert_int_equal(cache.misses, 2);
   assert_string_equal(uapi_shader_stage_name(TSR_STAGE_PARTIAL_BG), "partial-bg");

   /* Again: from the cache. Then the code changes: measured again. */
   l.count = 0;
   assert_int_equal(uapi_cmdbuf_shaders(buf, pos, SH_BASE, sh_read, img, &cache, &l), 0);
   assert_int_equal(cache.hits, 2);
   img[0x180] = 0x88; /* now a lone stop: 2 bytes */
   l.count = 0;
   assert_int_equal(uapi_cmdbuf_shaders(buf, pos, SH_BASE, sh_read, img, &cache, &l), 0);
   assert_int_equal(l.v[0].size, 2);
   assert_int_equal(cache.misses, 3);

   /* Unmapped code: listed with size 0 and a reason, counted as an error. */
   r.bg.usc = 0;
   r.vertex_helper.binary = 0x800;
   memcpy(buf + sizeof(h), &r, sizeof(r));
   l.count = 0;
   assert_int_equal(uapi_cmdbuf_shaders(buf, pos, SH_BASE, sh_read, img, &cache, &l), 1);
   assert_int_equal(l.v[0].size, 0);
   assert_string_equal(l.v[0].why, "code is unmapped");

   /* A malformed command buffer. */
   l.count = 0;
   assert_int_equal(uapi_cmdbuf_shaders(buf, pos - 1, SH_BASE, sh_read, img, NULL, &l), -EINVAL);
   uapi_shader_list_free(&l);
   uapi_shader_cache_free(&cache);
}

int
main(void)
{
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_shaders),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}

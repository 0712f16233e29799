/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the capture layer's process-independent parts: options
 * from the environment, ranges and signals, trace naming, the VM mapping
 * list (bind/replace/split as the kernel does) and command-buffer
 * timestamp scanning.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "capture/capture.h"
#include "cmdstream/agx_pack.h"

/* ------------------------------------------------------------- options */

static const char *const *fake_env;

static const char *
fake_getenv(const char *name)
{
   for (const char *const *e = fake_env; e && *e; e += 2)
      if (strcmp(e[0], name) == 0)
         return e[1];
   return NULL;
}

static int
parse(const char *const *env, struct cap_options *o, char *err)
{
   fake_env = env;
   return cap_options_parse(o, fake_getenv, err, 256);
}

static void
test_options(void **state)
{
   (void)state;
   struct cap_options o;
   char err[256];
   const char *const none[] = { NULL };
   assert_int_equal(parse(none, &o, err), -EINVAL);
   assert_string_equal(err, "TESSERA_CAPTURE_FILE is not set");

   const char *const minimal[] = { "TESSERA_CAPTURE_FILE", "/tmp/x.tsr", NULL };
   assert_int_equal(parse(minimal, &o, err), 0);
   assert_string_equal(o.path, "/tmp/x.tsr");
   assert_int_equal(o.trigger_signal, SIGUSR1);
   assert_false(o.have_frames);
   assert_false(o.have_submits);
   assert_false(o.start_off);
   assert_int_equal(o.mem, CAP_MEM_WP);
   assert_int_equal(o.flush_ms, 1000);
   assert_int_equal(o.root_pid, 0);

   const char *const full[] = {
      "TESSERA_CAPTURE_FILE", "a.tsr", "TESSERA_CAPTURE_FRAMES", "3-5",
      "TESSERA_CAPTURE_SUBMITS", "10-", "TESSERA_CAPTURE_SIGNAL", "SIGUSR2",
      "TESSERA_CAPTURE_TRIGGER_FILE", "/tmp/go", "TESSERA_CAPTURE_START", "off",
      "TESSERA_CAPTURE_FRAME_EVERY", "25", "TESSERA_CAPTURE_MEM", "hash",
      "TESSERA_CAPTURE_ROOT_PID", "1234", "TESSERA_CAPTURE_QUIET", "1", NULL,
   };
   assert_int_equal(parse(full, &o, err), 0);
   assert_true(o.have_frames);
   assert_int_equal(o.frames.first, 3);
   assert_int_equal(o.frames.last, 5);
   assert_true(o.have_submits);
   assert_int_equal(o.submits.first, 10);
   assert_true(o.submits.last == UINT64_MAX);
   assert_int_equal(o.trigger_signal, SIGUSR2);
   assert_string_equal(o.trigger_file, "/tmp/go");
   assert_true(o.start_off);
   assert_int_equal(o.frame_every, 25);
   assert_int_equal(o.mem, CAP_MEM_HASH);
   assert_int_equal(o.root_pid, 1234);
   assert_true(o.quiet);

   const char *const bad_frames[] = { "TESSERA_CAPTURE_FILE", "a", "TESSERA_CAPTURE_FRAMES",
                                      "5-3", NULL };
   assert_int_equal(parse(bad_frames, &o, err), -EINVAL);
   assert_string_equal(err, "bad frame range: '5-3'");
   const char *const bad_mem[] = { "TESSERA_CAPTURE_FILE", "a", "TESSERA_CAPTURE_MEM",
                                   "fast", NULL };
   assert_int_equal(parse(bad_mem, &o, err), -EINVAL);
   const char *const bad_sig[] = { "TESSERA_CAPTURE_FILE", "a", "TESSERA_CAPTURE_SIGNAL",
                                   "KILL", NULL };
   assert_int_equal(parse(bad_sig, &o, err), -EINVAL);
   const char *const bad_pid[] = { "TESSERA_CAPTURE_FILE", "a", "TESSERA_CAPTURE_ROOT_PID",
                                   "12x", NULL };
   assert_int_equal(parse(bad_pid, &o, err), -EINVAL);
   const char *const no_sig[] = { "TESSERA_CAPTURE_FILE", "a", "TESSERA_CAPTURE_SIGNAL",
                                  "none", NULL };
   assert_int_equal(parse(no_sig, &o, err), 0);
   assert_int_equal(o.trigger_signal, 0);
}

static void
test_ranges(void **state)
{
   (void)state;
   struct cap_range r;
   assert_int_equal(cap_range_parse("2-7", &r), 0);
   assert_int_equal(r.first, 2);
   assert_int_equal(r.last, 7);
   assert_true(cap_range_has(&r, 2) && cap_range_has(&r, 7));
   assert_false(cap_range_has(&r, 1) || cap_range_has(&r, 8));
   assert_int_equal(cap_range_parse("4", &r), 0);
   assert_true(r.first == 4 && r.last == 4);
   assert_int_equal(cap_range_parse("-9", &r), 0);
   assert_true(r.first == 0 && r.last == 9);
   assert_int_equal(cap_range_parse("0-", &r), 0);
   assert_true(r.first == 0 && r.last == UINT64_MAX);
   const char *bad[] = { "", "-", "a-3", "3-b", "3--4", "3-4x", " 3", "7-2",
                         "99999999999999999999999" };
   for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
      assert_int_equal(cap_range_parse(bad[i], &r), -EINVAL);

   assert_int_equal(cap_signal_parse("USR1"), SIGUSR1);
   assert_int_equal(cap_signal_parse("sigusr2"), SIGUSR2);
   assert_int_equal(cap_signal_parse("12"), 12);
   assert_int_equal(cap_signal_parse("none"), 0);
   assert_int_equal(cap_signal_parse("9"), -1);
   assert_int_equal(cap_signal_parse("11"), -1);
   assert_int_equal(cap_signal_parse("BOGUS"), -1);
}

static void
test_naming(void **state)
{
   (void)state;
   char p[64];
   assert_true(cap_trace_path("out/run.tsr", 42, true, p, sizeof(p)));
   assert_string_equal(p, "out/run.tsr");
   assert_true(cap_trace_path("out/run.tsr", 42, false, p, sizeof(p)));
   assert_string_equal(p, "out/run.42.tsr");
   assert_true(cap_trace_path("trace", 7, false, p, sizeof(p)));
   assert_string_equal(p, "trace.7.tsr");
   assert_false(cap_trace_path("a-very-long-name-that-does-not-fit.tsr", 123456, false, p, 20));
}

/* ------------------------------------------------------------ VM maps */

static struct drm_asahi_gem_bind_op
op(uint32_t flags, uint32_t handle, uint64_t offset, uint64_t range, uint64_t addr)
{
   return (struct drm_asahi_gem_bind_op){ flags, handle, offset, range, addr };
}

static void
expect_map(const struct cap_vm_map *m, unsigned n, const struct cap_mapping *want)
{
   assert_int_equal(m->count, n);
   for (unsigned i = 0; i < n; i++) {
      assert_int_equal(m->m[i].addr, want[i].addr);
      assert_int_equal(m->m[i].range, want[i].range);
      assert_int_equal(m->m[i].handle, want[i].handle);
      assert_int_equal(m->m[i].offset, want[i].offset);
      assert_int_equal(m->m[i].flags, want[i].flags);
   }
}

#define RW (DRM_ASAHI_BIND_READ | DRM_ASAHI_BIND_WRITE)
#define K 0x4000ull

static void
test_vm_map(void **state)
{
   (void)state;
   struct cap_vm_map m = { 0 };
   struct drm_asahi_gem_bind_op o = op(RW, 1, 0, 8 * K, 0x100000);
   assert_int_equal(cap_vm_map_apply(&m, &o), 0);
   o = op(DRM_ASAHI_BIND_READ, 2, 0, 2 * K, 0x200000);
   assert_int_equal(cap_vm_map_apply(&m, &o), 0);
   expect_map(&m, 2, (struct cap_mapping[]){ { 0x100000, 8 * K, 1, RW, 0 },
                                             { 0x200000, 2 * K, 2, DRM_ASAHI_BIND_READ, 0 } });
   /* unbinding the middle splits object 1's mapping; the tail keeps its offset */
   o = op(DRM_ASAHI_BIND_UNBIND, 0, 0, 2 * K, 0x100000 + 3 * K);
   assert_int_equal(cap_vm_map_apply(&m, &o), 0);
   expect_map(&m, 3, (struct cap_mapping[]){ { 0x100000, 3 * K, 1, RW, 0 },
                                             { 0x100000 + 5 * K, 3 * K, 1, RW, 5 * K },
                                             { 0x200000, 2 * K, 2, DRM_ASAHI_BIND_READ, 0 } });
   /* binding across both pieces replaces the overlapped parts */
   o = op(RW, 3, K, 4 * K, 0x100000 + 2 * K);
   assert_int_equal(cap_vm_map_apply(&m, &o), 0);
   expect_map(&m, 4, (struct cap_mapping[]){ { 0x100000, 2 * K, 1, RW, 0 },
                                             { 0x100000 + 2 * K, 4 * K, 3, RW, K },
                                             { 0x100000 + 6 * K, 2 * K, 1, RW, 6 * K },
                                             { 0x200000, 2 * K, 2, DRM_ASAHI_BIND_READ, 0 } });
   /* a single-page mapping's tail keeps the repeated page */
   o = op(RW | DRM_ASAHI_BIND_SINGLE_PAGE, 4, 3 * K, 4 * K, 0x300000);
   assert_int_equal(cap_vm_map_apply(&m, &o), 0);
   o = op(DRM_ASAHI_BIND_UNBIND, 0, 0, K, 0x300000 + K);
   assert_int_equal(cap_vm_map_apply(&m, &o), 0);
   assert_int_equal(m.count, 6);
   assert_int_equal(m.m[5].addr, 0x300000 + 2 * K);
   assert_int_equal(m.m[5].offset, 3 * K);
   /* closing object 1 drops both of its pieces */
   cap_vm_map_drop_handle(&m, 1);
   assert_int_equal(m.count, 4);
   for (size_t i = 0; i < m.count; i++)
      assert_int_not_equal(m.m[i].handle, 1);
   /* unbinding everything */
   o = op(DRM_ASAHI_BIND_UNBIND, 0, 0, 0x400000, 0);
   assert_int_equal(cap_vm_map_apply(&m, &o), 0);
   assert_int_equal(m.count, 0);
   cap_vm_map_free(&m);
   assert_null(m.m);
}

/* ------------------------------------------------------------ cmdbufs */

static size_t
put(uint8_t *buf, size_t pos, uint16_t type, const void *payload, uint16_t size)
{
   struct drm_asahi_cmd_header h = { type, size, 0, 0 };
   memcpy(buf + pos, &h, sizeof(h));
   memcpy(buf + pos + sizeof(h), payload, size);
   return pos + sizeof(h) + size;
}

static void
test_cmdbuf(void **state)
{
   (void)state;
   uint8_t buf[2048];
   struct drm_asahi_cmd_compute c = { .ts = { { 5, 0 }, { 5, 8 } } };
   struct drm_asahi_cmd_render r = { .ts_vtx = { { 6, 16 }, { 0, 0 } },
                                     .ts_frag = { { 0, 0 }, { 6, 24 } } };
   struct drm_asahi_attachment a[2] = { 0 };
   size_t n = put(buf, 0, DRM_ASAHI_SET_COMPUTE_ATTACHMENTS, a, sizeof(a));
   n = put(buf, n, DRM_ASAHI_CMD_COMPUTE, &c, sizeof(c));
   n = put(buf, n, DRM_ASAHI_CMD_RENDER, &r, sizeof(r));
   struct cap_ts_ref ts[8];
   unsigned cmds = 0;
   assert_int_equal(cap_cmdbuf_timestamps(buf, n, ts, 8, &cmds), 4);
   assert_int_equal(cmds, 2);
   assert_true(ts[0].object_handle == 5 && ts[0].offset == 0);
   assert_true(ts[1].object_handle == 5 && ts[1].offset == 8);
   assert_true(ts[2].object_handle == 6 && ts[2].offset == 16);
   assert_true(ts[3].object_handle == 6 && ts[3].offset == 24);
   /* more than fit: counted, not written past max */
   memset(ts, 0xee, sizeof(ts));
   assert_int_equal(cap_cmdbuf_timestamps(buf, n, ts, 1, NULL), 4);
   assert_int_equal(ts[1].object_handle, 0xeeeeeeee);
   /* a short (older) compute payload is zero extended: no timestamps */
   size_t m = put(buf, 0, DRM_ASAHI_CMD_COMPUTE, &c, offsetof(struct drm_asahi_cmd_compute, ts));
   assert_int_equal(cap_cmdbuf_timestamps(buf, m, ts, 8, &cmds), 0);
   assert_int_equal(cmds, 1);
   /* truncated header or payload */
   assert_int_equal(cap_cmdbuf_timestamps(buf, 5, ts, 8, NULL), -EINVAL);
   assert_int_equal(cap_cmdbuf_timestamps(buf, m - 1, ts, 8, NULL), -EINVAL);
   assert_int_equal(cap_cmdbuf_timestamps(buf, 0, ts, 8, &cmds), 0);
   assert_int_equal(cmds, 0);
}

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

   struct cap_shader_cache cache = { 0 };
   struct cap_shader_list l = { 0 };
   assert_int_equal(cap_cmdbuf_shaders(buf, pos, SH_BASE, sh_read, img, &cache, &l), 0);
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
   assert_string_equal(cap_stage_name(TSR_STAGE_PARTIAL_BG), "partial-bg");

   /* Again: from the cache. Then the code changes: measured again. */
   l.count = 0;
   assert_int_equal(cap_cmdbuf_shaders(buf, pos, SH_BASE, sh_read, img, &cache, &l), 0);
   assert_int_equal(cache.hits, 2);
   img[0x180] = 0x88; /* now a lone stop: 2 bytes */
   l.count = 0;
   assert_int_equal(cap_cmdbuf_shaders(buf, pos, SH_BASE, sh_read, img, &cache, &l), 0);
   assert_int_equal(l.v[0].size, 2);
   assert_int_equal(cache.misses, 3);

   /* Unmapped code: listed with size 0 and a reason, counted as an error. */
   r.bg.usc = 0;
   r.vertex_helper.binary = 0x800;
   memcpy(buf + sizeof(h), &r, sizeof(r));
   l.count = 0;
   assert_int_equal(cap_cmdbuf_shaders(buf, pos, SH_BASE, sh_read, img, &cache, &l), 1);
   assert_int_equal(l.v[0].size, 0);
   assert_string_equal(l.v[0].why, "code is unmapped");

   /* A malformed command buffer. */
   l.count = 0;
   assert_int_equal(cap_cmdbuf_shaders(buf, pos - 1, SH_BASE, sh_read, img, NULL, &l), -EINVAL);
   cap_shader_list_free(&l);
   cap_shader_cache_free(&cache);
}

int
main(void)
{
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_options),
      cmocka_unit_test(test_ranges),
      cmocka_unit_test(test_naming),
      cmocka_unit_test(test_vm_map),
      cmocka_unit_test(test_cmdbuf),
      cmocka_unit_test(test_shaders),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}

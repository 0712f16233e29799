/* SPDX-License-Identifier: MIT */
/*
 * replay: render-target discovery and conversion on hand-built memory, and
 * whole replays of traces the live program (tests/lib/rs_scene.c) records on
 * the in-process model: pixels, determinism, validation, device checks,
 * frame ranges, loops with timing, shader overrides, bad traces.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cmdstream/agx_pack.h"
#include "drm-uapi/asahi_drm.h"
#include "hw/tex/hw_tex_layout.h"
#include "replay/replay.h"
#include "replay/replay_image.h"
#include "tests/lib/rs_scene.h"

/* ---- flat memory for the image tests ------------------------------------ */

#define FLAT_BASE 0x200000000ull
#define FLAT_SIZE (1u << 20)

struct flat {
   uint8_t *mem;
};

static bool
flat_read(void *ctx, uint64_t va, void *dst, size_t size)
{
   struct flat *f = ctx;
   if (va < FLAT_BASE || va - FLAT_BASE > FLAT_SIZE || size > FLAT_SIZE - (va - FLAT_BASE))
      return false;
   memcpy(dst, f->mem + (va - FLAT_BASE), size);
   return true;
}

/* An end-of-tile word list at USC offset 0x1000 whose texture table at
 * 0x2000 holds `n` descriptors. */
static void
eot_with_table(struct flat *f, const uint8_t (*desc)[24], unsigned n,
               struct drm_asahi_cmd_render *cmd)
{
   uint8_t *w = f->mem + 0x1000;
   agx_pack(w, USC_TEXTURE, t) { t.start = 0; t.count = n; t.buffer = FLAT_BASE + 0x2000; }
   agx_pack(w + 8, USC_SHADER, s) { s.code = 0x3000; }
   agx_pack(w + 14, USC_REGISTERS, r) { r.register_count = 8; }
   agx_pack(w + 18, USC_NO_PRESHADER, np) { (void)np; }
   memcpy(f->mem + 0x2000, desc, 24 * (size_t)n);
   memset(cmd, 0, sizeof(*cmd));
   cmd->eot.usc = 0x1000 | 0x5;   /* tag bits are ignored */
   cmd->width_px = 40;
   cmd->height_px = 24;
   cmd->samples = 1;
}

static void
test_twiddled_target(void **state)
{
   (void)state;
   struct flat f = { calloc(1, FLAT_SIZE) };
   const uint32_t W = 40, H = 24;
   struct hw_tex_layout l;
   assert_true(hw_tex_layout_twiddled(&l, 4, W, H, 1, 1, false));
   uint8_t *lin = malloc(W * H * 4);
   for (uint32_t i = 0; i < W * H * 4; i++)
      lin[i] = (uint8_t)(i * 7 + (i >> 8));
   const uint64_t img = FLAT_BASE + 0x10000;
   assert_true(hw_tex_twiddle(&l, 0, 0, f.mem + 0x10000, lin, W * 4));

   uint8_t d[2][24];
   agx_pack(d[0], PBE, p) {
      p.layout = AGX_LAYOUT_TWIDDLED; p.channels = AGX_CHANNELS_R8G8B8A8;
      p.type = AGX_TEXTURE_TYPE_UNORM; p.srgb = true;
      p.swizzle_r = AGX_CHANNEL_R; p.swizzle_g = AGX_CHANNEL_G;
      p.swizzle_b = AGX_CHANNEL_B; p.swizzle_a = AGX_CHANNEL_A;
      p.width = W; p.height = H; p.buffer = img;
   }
   memcpy(d[1], d[0], 24);   /* the same target twice counts once */
   struct drm_asahi_cmd_render cmd;
   eot_with_table(&f, (const uint8_t (*)[24])d, 2, &cmd);

   struct replay_target t[4];
   char err[256];
   assert_int_equal(replay_find_targets(&cmd, FLAT_BASE, flat_read, &f, t, 4, err, sizeof(err)), 1);
   assert_int_equal(t[0].kind, REPLAY_TARGET_COLOR);
   assert_int_equal(t[0].image.base, img);
   uint8_t *px;
   uint32_t w, h;
   assert_true(replay_target_read_rgba8(&t[0], 0, flat_read, &f, &px, &w, &h, err, sizeof(err)));
   assert_int_equal(w, W);
   assert_int_equal(h, H);
   /* sRGB bytes are kept as stored: the picture is the linear image. */
   assert_memory_equal(px, lin, W * H * 4);

   char path[] = "/tmp/test_replay_XXXXXX.png";
   int fd = mkstemps(path, 4);
   assert_true(fd >= 0);
   close(fd);
   assert_true(replay_png_write(path, px, w, h, err, sizeof(err)));
   uint8_t *back;
   uint32_t bw, bh;
   assert_true(replay_png_read(path, &back, &bw, &bh, err, sizeof(err)));
   assert_int_equal(bw, W);
   assert_int_equal(bh, H);
   assert_memory_equal(back, lin, W * H * 4);
   unlink(path);
   free(back);
   free(px);
   free(lin);
   free(f.mem);
}

/* A BGRA surface: an RGBA8 PBE whose swizzle stores source B, G, R, A in
 * memory channels 0..3. The picture undoes it (the components the shader
 * wrote, as glReadPixels returns them); a swizzle that is not a permutation
 * (a channel written twice) shows memory as stored. */
static void
test_swizzled_target(void **state)
{
   (void)state;
   struct flat f = { calloc(1, FLAT_SIZE) };
   const uint32_t W = 40, H = 24;
   uint8_t *mem = f.mem + 0x10000;
   for (uint32_t i = 0; i < W * H; i++) {
      mem[i * 4 + 0] = (uint8_t)(i * 3);       /* B */
      mem[i * 4 + 1] = (uint8_t)(i * 5 + 1);   /* G */
      mem[i * 4 + 2] = (uint8_t)(i * 7 + 2);   /* R */
      mem[i * 4 + 3] = (uint8_t)(255 - i);     /* A */
   }
   for (unsigned twice = 0; twice < 2; twice++) {
      uint8_t d[1][24];
      agx_pack(d[0], PBE, p) {
         p.layout = AGX_LAYOUT_LINEAR; p.channels = AGX_CHANNELS_R8G8B8A8;
         p.type = AGX_TEXTURE_TYPE_UNORM;
         p.swizzle_r = AGX_CHANNEL_B; p.swizzle_g = AGX_CHANNEL_G;
         p.swizzle_b = twice ? AGX_CHANNEL_B : AGX_CHANNEL_R; p.swizzle_a = AGX_CHANNEL_A;
         p.width = W; p.height = H; p.buffer = FLAT_BASE + 0x10000; p.stride = W * 4 - 4;   /* a linear PBE stores stride - 4 */
      }
      struct drm_asahi_cmd_render cmd;
      eot_with_table(&f, (const uint8_t (*)[24])d, 1, &cmd);
      struct replay_target t[2];
      char err[256];
      assert_int_equal(replay_find_targets(&cmd, FLAT_BASE, flat_read, &f, t, 2, err, sizeof(err)), 1);
      uint8_t *px;
      uint32_t w, h;
      assert_true(replay_target_read_rgba8(&t[0], 0, flat_read, &f, &px, &w, &h, err, sizeof(err)));
      for (uint32_t i = 0; i < W * H; i++) {
         const uint8_t *m = mem + i * 4, *o = px + i * 4;
         if (twice) {
            assert_memory_equal(o, m, 4);
         } else {
            assert_int_equal(o[0], m[2]);
            assert_int_equal(o[1], m[1]);
            assert_int_equal(o[2], m[0]);
            assert_int_equal(o[3], m[3]);
         }
      }
      free(px);
   }
   free(f.mem);
}

static void
test_float_and_depth_targets(void **state)
{
   (void)state;
   struct flat f = { calloc(1, FLAT_SIZE) };
   /* R32 float, linear, 40x24: values -1, 0.5, 2 clamp to 0, 128, 255. */
   float *rf = (float *)(void *)(f.mem + 0x10000);
   for (unsigned i = 0; i < 40 * 24; i++)
      rf[i] = i % 3 == 0 ? -1.0f : i % 3 == 1 ? 0.5f : 2.0f;
   uint8_t d[1][24];
   agx_pack(d[0], PBE, p) {
      p.layout = AGX_LAYOUT_LINEAR; p.channels = AGX_CHANNELS_R32;
      p.type = AGX_TEXTURE_TYPE_FLOAT; p.width = 40; p.height = 24;
      p.buffer = FLAT_BASE + 0x10000; p.stride = 40 * 4 - 4;
   }
   struct drm_asahi_cmd_render cmd;
   eot_with_table(&f, (const uint8_t (*)[24])d, 1, &cmd);
   /* Depth 32F stored by ZLS: a twiddled 40x24 image (64x64 tile,
    * Morton order inside: x bit i -> bit 2i, y bit i -> bit 2i+1). */
   float *z = (float *)(void *)(f.mem + 0x40000);
   for (unsigned y = 0; y < 24; y++)
      for (unsigned x = 0; x < 40; x++) {
         unsigned m = 0;
         for (unsigned b = 0; b < 6; b++)
            m |= ((x >> b) & 1) << (2 * b) | ((y >> b) & 1) << (2 * b + 1);
         z[m] = (float)x / 39.0f;
      }
   cmd.depth.base = FLAT_BASE + 0x40000;
   cmd.isp_zls_pixels = (40 - 1) | ((24 - 1) << 15);
   agx_pack(&cmd.zls_ctrl, ZLS_CONTROL, zl) { zl.z_store_enable = true; zl.z_format = AGX_ZLS_FORMAT_32F; }

   struct replay_target t[4];
   char err[256];
   assert_int_equal(replay_find_targets(&cmd, FLAT_BASE, flat_read, &f, t, 4, err, sizeof(err)), 2);
   uint8_t *px;
   uint32_t w, h;
   assert_true(replay_target_read_rgba8(&t[0], 0, flat_read, &f, &px, &w, &h, err, sizeof(err)));
   const uint8_t want[3] = { 0, 128, 255 };
   for (unsigned i = 0; i < 6; i++) {
      assert_int_equal(px[i * 4], want[i % 3]);
      assert_int_equal(px[i * 4 + 1], 0);     /* missing G, B read 0 */
      assert_int_equal(px[i * 4 + 3], 255);   /* missing alpha reads 1 */
   }
   free(px);
   assert_int_equal(t[1].kind, REPLAY_TARGET_DEPTH);
   assert_true(replay_target_read_rgba8(&t[1], 0, flat_read, &f, &px, &w, &h, err, sizeof(err)));
   assert_int_equal(px[0], 0);
   assert_int_equal(px[39 * 4], 255);
   assert_int_equal(px[39 * 4 + 1], 255);
   free(px);

   /* An unmapped target is an error with a message, not a crash. */
   cmd.depth.base = FLAT_BASE + FLAT_SIZE - 64;
   assert_int_equal(replay_find_targets(&cmd, FLAT_BASE, flat_read, &f, t, 4, err, sizeof(err)), 2);
   assert_false(replay_target_read_rgba8(&t[1], 0, flat_read, &f, &px, &w, &h, err, sizeof(err)));
   assert_non_null(strstr(err, "not mapped"));
   /* So is an unreadable word list. */
   cmd.eot.usc = 0x7fff0000;
   assert_int_equal(replay_find_targets(&cmd, FLAT_BASE, flat_read, &f, t, 4, err, sizeof(err)), -1);
   assert_non_null(strstr(err, "unmapped"));
   free(f.mem);
}

/* ---- whole replays ------------------------------------------------------- */

struct fixture {
   char dir[64];
   char trace[128];
   struct rs_result live;
};

static struct replay_backend *
model(void)
{
   char err[256];
   struct replay_backend *b = replay_backend_model(true, err, sizeof(err));
   if (!b)
      fail_msg("model backend: %s", err);
   return b;
}

static void
record(struct fixture *fx, const char *name, const struct rs_options *base)
{
   snprintf(fx->trace, sizeof(fx->trace), "%s/%s.tsr", fx->dir, name);
   struct rs_options o = *base;
   o.trace_path = fx->trace;
   struct replay_backend *b = model();
   char err[256];
   if (rs_run(b, &o, &fx->live, err, sizeof(err)))
      fail_msg("live program: %s", err);
   b->destroy(b);
}

static int
setup_dir(void **state)
{
   struct fixture *fx = calloc(1, sizeof(*fx));
   strcpy(fx->dir, "/tmp/test_replay_XXXXXX");
   if (!mkdtemp(fx->dir))
      return -1;
   *state = fx;
   return 0;
}

static int
teardown_dir(void **state)
{
   struct fixture *fx = *state;
   char cmd[128];
   snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fx->dir);
   if (system(cmd) != 0)
      return -1;
   free(fx);
   return 0;
}

/* Runs a replay on a fresh model; the log goes to `log` (may be NULL). */
static enum replay_status
replay(const char *trace, struct replay_options *o, struct replay_stats *st, char *log,
       size_t log_size)
{
   FILE *f = log ? fmemopen(log, log_size, "w") : NULL;
   if (log)
      memset(log, 0, log_size);
   o->log = f ? f : stderr;
   struct replay_backend *b = model();
   enum replay_status s = replay_run(trace, b, o, st);
   b->destroy(b);
   if (f)
      fclose(f);
   return s;
}

static uint8_t *
png(const char *dir, const char *name, uint32_t *w, uint32_t *h)
{
   char path[256], err[256];
   snprintf(path, sizeof(path), "%s/%s", dir, name);
   uint8_t *px;
   if (!replay_png_read(path, &px, w, h, err, sizeof(err)))
      fail_msg("%s", err);
   return px;
}

static void
test_replay_images(void **state)
{
   struct fixture *fx = *state;
   record(fx, "two", &(struct rs_options){ .frames = 2, .draw_triangle = true });
   /* The live program's own picture: clear colour outside, triangle inside. */
   uint8_t clear[4];
   rs_clear_color(1, clear);
   assert_memory_equal(fx->live.rt, clear, 4);
   assert_memory_equal(fx->live.rt + (40 * RS_W + 32) * 4, rs_triangle_rgba, 4);
   assert_int_equal(fx->live.out[5], 5 + 1000);

   char dir1[128], dir2[128];
   snprintf(dir1, sizeof(dir1), "%s/img1", fx->dir);
   snprintf(dir2, sizeof(dir2), "%s/img2", fx->dir);
   struct replay_options o;
   struct replay_stats s1, s2;
   replay_options_init(&o);
   o.dump_dir = dir1;
   assert_int_equal(replay(fx->trace, &o, &s1, NULL, 0), REPLAY_OK);
   assert_int_equal(s1.submits, 4);
   assert_int_equal(s1.frames, 2);
   assert_int_equal(s1.images, 2);
   assert_true(s1.gpu_ns > 0);
   uint32_t w, h;
   uint8_t *f1 = png(dir1, "f0001_s00003_color0.png", &w, &h);
   assert_int_equal(w, RS_W);
   assert_int_equal(h, RS_H);
   assert_memory_equal(f1, fx->live.rt, sizeof(fx->live.rt));
   uint8_t *f0 = png(dir1, "f0000_s00001_color0.png", &w, &h);
   uint8_t clear0[4];
   rs_clear_color(0, clear0);
   assert_memory_equal(f0, clear0, 4);
   assert_memory_equal(f0 + (40 * RS_W + 32) * 4, rs_triangle_rgba, 4);

   /* Twice: identical pictures and identical GPU times. */
   o.dump_dir = dir2;
   assert_int_equal(replay(fx->trace, &o, &s2, NULL, 0), REPLAY_OK);
   uint8_t *g1 = png(dir2, "f0001_s00003_color0.png", &w, &h);
   assert_memory_equal(g1, f1, sizeof(fx->live.rt));
   assert_int_equal(s1.gpu_ns, s2.gpu_ns);
   free(f0);
   free(f1);
   free(g1);

   /* Per submission: the compute submissions write no picture. */
   char dir3[128];
   snprintf(dir3, sizeof(dir3), "%s/img3", fx->dir);
   o.dump_dir = dir3;
   o.per_submit = true;
   o.first_frame = 1;   /* from the recorded state at frame 1 */
   assert_int_equal(replay(fx->trace, &o, &s2, NULL, 0), REPLAY_OK);
   assert_int_equal(s2.submits, 2);
   assert_int_equal(s2.images, 1);
   g1 = png(dir3, "f0001_s00003_color0.png", &w, &h);
   assert_memory_equal(g1, fx->live.rt, sizeof(fx->live.rt));
   free(g1);
   char missing[256];
   snprintf(missing, sizeof(missing), "%s/f0000_s00001_color0.png", dir3);
   assert_int_not_equal(access(missing, F_OK), 0);
}

static void
test_validate(void **state)
{
   struct fixture *fx = *state;
   char log[4096];
   struct replay_options o;
   struct replay_stats st;
   record(fx, "good", &(struct rs_options){ .frames = 1, .draw_triangle = true });
   replay_options_init(&o);
   o.validate = true;
   assert_int_equal(replay(fx->trace, &o, &st, log, sizeof(log)), REPLAY_OK);
   assert_true(st.validated_ok);

   record(fx, "corrupt", &(struct rs_options){ .frames = 1, .draw_triangle = true,
                                               .corrupt_output = true });
   replay_options_init(&o);
   o.validate = true;
   assert_int_equal(replay(fx->trace, &o, &st, log, sizeof(log)), REPLAY_DIFFERENT);
   assert_false(st.validated_ok);
   /* The first difference: submission 0 (the compute), the object, the
    * offset of out[5]. */
   char want[128];
   snprintf(want, sizeof(want), "submission 0: GEM object 1 offset 0x%llx",
            (unsigned long long)(fx->live.out_va - 0x100000000ull + 20));
   if (!strstr(log, want))
      fail_msg("log '%s' lacks '%s'", log, want);

   /* A shader override that changes results is caught the same way. */
   record(fx, "ovr", &(struct rs_options){ .frames = 1, .draw_triangle = false });
   uint8_t code[512];
   size_t n = rs_assemble(rs_compute_alt_src, code, sizeof(code));
   assert_true(n > 0);
   replay_options_init(&o);
   o.validate = true;
   o.num_overrides = 1;
   o.overrides[0] = (struct replay_override){ fx->live.compute_shader_va, code, n };
   assert_int_equal(replay(fx->trace, &o, &st, log, sizeof(log)), REPLAY_DIFFERENT);
   if (!strstr(log, "replay wrote 0x07, the capture recorded 0x00"))
      fail_msg("log: %s", log);
}

/* --validate compares a page with the trace's first recording of it after
 * the submission that wrote it, unless another submission wrote the page
 * first. late_records: compute (0) and render (1) both write the page that
 * holds out[] and the target's first row, and the trace records memory only
 * after the render. */
static void
test_validate_first_later_record(void **state)
{
   struct fixture *fx = *state;
   char log[4096];
   struct replay_options o;
   struct replay_stats st;
   record(fx, "late", &(struct rs_options){ .frames = 1, .late_records = true });
   replay_options_init(&o);
   o.validate = true;
   assert_int_equal(replay(fx->trace, &o, &st, log, sizeof(log)), REPLAY_OK);
   assert_true(st.validated_ok);
   assert_true(st.pages_validated > 0);
   assert_true(st.pages_unverifiable > 0);

   /* A wrong out[5] in that recording: submission 0's page was rewritten by
    * submission 1 before it was recorded, and submission 1 left out[5]
    * alone, so nothing can be checked (and nothing is reported). */
   record(fx, "late_out", &(struct rs_options){ .frames = 1, .late_records = true,
                                                .corrupt_output = true });
   uint64_t unverifiable = st.pages_unverifiable;
   replay_options_init(&o);
   o.validate = true;
   assert_int_equal(replay(fx->trace, &o, &st, log, sizeof(log)), REPLAY_OK);
   assert_int_equal(st.pages_unverifiable, unverifiable);

   /* A wrong target byte in the same recording is submission 1's. */
   record(fx, "late_rt", &(struct rs_options){ .frames = 1, .late_records = true,
                                               .corrupt_target = true });
   replay_options_init(&o);
   o.validate = true;
   assert_int_equal(replay(fx->trace, &o, &st, log, sizeof(log)), REPLAY_DIFFERENT);
   char want[128];
   snprintf(want, sizeof(want), "submission 1: GEM object 1 offset 0x%llx",
            (unsigned long long)(fx->live.rt_va - 0x100000000ull));
   if (!strstr(log, want))
      fail_msg("log '%s' lacks '%s'", log, want);
}

static void
test_device_params(void **state)
{
   struct fixture *fx = *state;
   char log[4096];
   struct replay_options o;
   struct replay_stats st;
   record(fx, "m2", &(struct rs_options){ .frames = 1, .chip_id = 0x8112 });
   replay_options_init(&o);
   assert_int_equal(replay(fx->trace, &o, &st, log, sizeof(log)), REPLAY_ERROR);
   assert_non_null(strstr(log, "incompatible device"));
   assert_non_null(strstr(log, "--force"));
   assert_int_equal(st.submits, 0);
   o.force = true;
   assert_int_equal(replay(fx->trace, &o, &st, log, sizeof(log)), REPLAY_OK);
   assert_non_null(strstr(log, "warning"));
   assert_int_equal(st.submits, 2);
}

static void
test_loop_timing(void **state)
{
   struct fixture *fx = *state;
   record(fx, "loop", &(struct rs_options){ .frames = 2, .draw_triangle = true });
   char json[128];
   snprintf(json, sizeof(json), "%s/timing.json", fx->dir);
   struct replay_options o;
   struct replay_stats st;
   replay_options_init(&o);
   o.loops = 3;
   o.timing_path = json;
   assert_int_equal(replay(fx->trace, &o, &st, NULL, 0), REPLAY_OK);
   assert_int_equal(st.submits, 16);   /* warm-up + 3 passes of 4 */
   FILE *f = fopen(json, "r");
   assert_non_null(f);
   char buf[8192] = { 0 };
   size_t n = fread(buf, 1, sizeof(buf) - 1, f);
   fclose(f);
   assert_true(n > 0);
   assert_non_null(strstr(buf, "\"schema\": \"tessera-timing/1\""));
   assert_non_null(strstr(buf, "\"warmup\": 1"));
   assert_non_null(strstr(buf, "\"run\": 2,"));
   assert_null(strstr(buf, "\"run\": 3,"));
   /* The model's GPU time is deterministic: the three runs agree. */
   unsigned long long v[3];
   const char *p = buf;
   for (unsigned r = 0; r < 3; r++) {
      p = strstr(p, "{\"index\": 1, \"seq\": 3, \"gpu_ns\": ");
      assert_non_null(p);
      assert_int_equal(sscanf(p, "{\"index\": 1, \"seq\": 3, \"gpu_ns\": %llu", &v[r]), 1);
      p++;
   }
   unsigned long long a = v[0], b = v[1], c = v[2];
   assert_true(a > 0);
   assert_true(a == b && b == c);
}

static void
test_bad_traces(void **state)
{
   struct fixture *fx = *state;
   char log[4096], path[128];
   struct replay_options o;
   struct replay_stats st;
   replay_options_init(&o);
   snprintf(path, sizeof(path), "%s/missing.tsr", fx->dir);
   assert_int_equal(replay(path, &o, &st, log, sizeof(log)), REPLAY_ERROR);
   assert_non_null(strstr(log, "tessera replay: "));
   assert_non_null(strstr(log, "missing.tsr"));
   snprintf(path, sizeof(path), "%s/garbage.tsr", fx->dir);
   FILE *f = fopen(path, "w");
   for (unsigned i = 0; i < 1000; i++)
      fputc((int)(i * 37 % 251), f);
   fclose(f);
   assert_int_equal(replay(path, &o, &st, log, sizeof(log)), REPLAY_ERROR);
   assert_true(strlen(log) > 16);
}

int
main(void)
{
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_twiddled_target),
      cmocka_unit_test(test_swizzled_target),
      cmocka_unit_test(test_float_and_depth_targets),
      cmocka_unit_test_setup_teardown(test_replay_images, setup_dir, teardown_dir),
      cmocka_unit_test_setup_teardown(test_validate, setup_dir, teardown_dir),
      cmocka_unit_test_setup_teardown(test_validate_first_later_record, setup_dir,
                                      teardown_dir),
      cmocka_unit_test_setup_teardown(test_device_params, setup_dir, teardown_dir),
      cmocka_unit_test_setup_teardown(test_loop_timing, setup_dir, teardown_dir),
      cmocka_unit_test_setup_teardown(test_bad_traces, setup_dir, teardown_dir),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}

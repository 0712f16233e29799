/* SPDX-License-Identifier: MIT */
/*
 * Rendering features against oracles: hidden-surface removal (an image
 * rendered with HSR must equal the same scene shaded in submission
 * order, with fewer fragments shaded), and the ISP / rasteriser features
 * (clip planes, depth bias, occlusion queries, scissor, indirect draws,
 * 2x MSAA, 16x16 and 32x16 tiles, large points, two-sided stencil,
 * depth clamp, shader depth output, bin-relative coefficient
 * registers, iter at a sample index in a register), each checked against values
 * computed here.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hw/hw_profile.h"
#include "hw/render/hw_render_priv.h"
#include "hw/tex/hw_tex_layout.h"
#include "tessera/host_cpu.h"
#include "test_hw_render_scene.h"

/* ---------------------------------------------------------- helpers */

/* Two triangles covering [x0,x1] x [y0,y1] (NDC) at depth z; corner
 * colours differ so interpolation is exercised. */
static void
quad(struct vtx v[6], float x0, float y0, float x1, float y1, float z,
     const float c[4])
{
   struct vtx a = { x0, y0, z, 1, c[0], c[1], c[2], c[3] };
   struct vtx b = { x1, y0, z, 1, c[1], c[2], c[0], c[3] };
   struct vtx cc = { x1, y1, z, 1, c[2], c[0], c[1], c[3] };
   struct vtx d = { x0, y1, z, 1, c[0], c[0], c[2], c[3] };
   /* alpha 0 marks an alpha-test layer: ramp it to 1 across the quad
    * so that the test discards part of it */
   if (c[3] == 0) {
      b.a = 1;
      cc.a = 1;
   }
   v[0] = a; v[1] = b; v[2] = cc;
   v[3] = a; v[4] = cc; v[5] = d;
}

static void
draw_quad(struct scene *s, const struct draw_state *ds, float x0, float y0,
          float x1, float y1, float z, const float c[4])
{
   struct vtx v[6];
   quad(v, x0, y0, x1, y1, z, c);
   emit_state(s, ds, vs_src, v, sizeof(v));
   emit_draw(s, AGX_PRIMITIVE_TRIANGLES, NULL, 0, 6, 1, false);
}

static unsigned
count_diff(const uint32_t *a, const uint32_t *b, unsigned n)
{
   unsigned bad = 0;
   for (unsigned i = 0; i < n; i++) {
      if (a[i] != b[i]) {
         if (!bad)
            print_message("pixel %u: %08x vs %08x\n", i, a[i], b[i]);
         bad++;
      }
   }
   return bad;
}

/* ------------------------------------------------ hidden-surface removal */

/* Discards (alpha-test) where the interpolated alpha is below 0.5. */
static const char *const fs_alpha_test_src =
   "iter r4_r5_r6_r7, cf0, center, 0b0, 0, 0, 0, 0, 0\n"
   "fcmpsel lt, r8, r7, 0.5, 0, 255\n"
   "sample_mask 255, r8l\n"
   "st_tile r4_r5_r6_r7, u8norm, 0, xyzw, 0, 255, 0\n"
   "stop\n";

struct layer {
   float x0, y0, x1, y1, z;
   float c[4];
   enum agx_pass_type pass;
   enum agx_zs_func zf;
   bool zw;
};

/*
 * Renders the layers; with `in_order` every primitive is marked
 * translucent (shaded in submission order, no deferral).  Returns the
 * image (caller frees) and the fragment count.
 */
static uint32_t *
render_layers(const struct layer *L, unsigned n, unsigned w, unsigned h,
              unsigned samples, bool in_order, uint64_t *frags, uint64_t *ticks)
{
   struct scene s;
   scene_init(&s, w, h, samples, 0xff202020u, 2, 1 << 20);
   s.want_depth = true;
   for (unsigned i = 0; i < n; i++) {
      struct draw_state ds = default_state;
      ds.pass = in_order ? AGX_PASS_TYPE_TRANSLUCENT : L[i].pass;
      ds.fs = L[i].pass == AGX_PASS_TYPE_TRANSLUCENT ? fs_blend_src
            : L[i].pass == AGX_PASS_TYPE_PUNCH_THROUGH ? fs_alpha_test_src : fs_src;
      ds.zfunc = L[i].zf;
      ds.zwrite = L[i].zw;
      draw_quad(&s, &ds, L[i].x0, L[i].y0, L[i].x1, L[i].y1, L[i].z, L[i].c);
   }
   assert_true(run(&s));
   size_t bytes = (size_t)w * h * 4 * samples;
   uint32_t *img = malloc(bytes);
   memcpy(img, s.rt, bytes);
   *frags = s.stats.fragments;
   if (ticks)
      *ticks = s.ts_f[1] - s.ts_f[0];
   scene_teardown(&s);
   return img;
}

/* Four full-screen opaque layers: HSR shades every pixel exactly once. */
static void
test_hsr_opaque_overdraw(void **state)
{
   (void)state;
   const struct layer L[4] = {
      { -1, -1, 1, 1, 0.8f, { 1, 0, 0, 1 }, AGX_PASS_TYPE_OPAQUE, AGX_ZS_FUNC_LEQUAL, true },
      { -1, -1, 1, 1, 0.6f, { 0, 1, 0, 1 }, AGX_PASS_TYPE_OPAQUE, AGX_ZS_FUNC_LEQUAL, true },
      { -1, -1, 1, 1, 0.9f, { 0, 0, 1, 1 }, AGX_PASS_TYPE_OPAQUE, AGX_ZS_FUNC_LEQUAL, true },
      { -1, -1, 1, 1, 0.4f, { 1, 1, 0, 1 }, AGX_PASS_TYPE_OPAQUE, AGX_ZS_FUNC_LEQUAL, true },
   };
   uint64_t f_hsr, f_io, t_hsr, t_io;
   uint32_t *a = render_layers(L, 4, 96, 64, 1, false, &f_hsr, &t_hsr);
   uint32_t *b = render_layers(L, 4, 96, 64, 1, true, &f_io, &t_io);
   assert_int_equal(count_diff(a, b, 96 * 64), 0);
   print_message("opaque overdraw: %llu fragments shaded with HSR, %llu in order; "
                 "fragment ticks %llu vs %llu\n", (unsigned long long)f_hsr,
                 (unsigned long long)f_io, (unsigned long long)t_hsr,
                 (unsigned long long)t_io);
   assert_int_equal(f_hsr, 96 * 64);
   /* In order: layers 0, 1 and 3 pass LEQUAL everywhere, layer 2 never. */
   assert_int_equal(f_io, 3 * 96 * 64);
   assert_true(t_hsr < t_io);
   /* The nearest layer's colour at a corner pixel: exact flat values. */
   assert_int_equal(a[0] >> 24, 0xff);
   free(a);
   free(b);
}

/* Mixes of opaque, translucent and punch-through, depth test on and off,
 * single- and multisampled: HSR equals in-order shading exactly. */
static void
test_hsr_mixed_equals_in_order(void **state)
{
   (void)state;
   const enum agx_pass_type O = AGX_PASS_TYPE_OPAQUE, T = AGX_PASS_TYPE_TRANSLUCENT,
                            P = AGX_PASS_TYPE_PUNCH_THROUGH;
   const enum agx_zs_func LE = AGX_ZS_FUNC_LEQUAL, AL = AGX_ZS_FUNC_ALWAYS,
                          GR = AGX_ZS_FUNC_GREATER;
   const struct layer L[] = {
      { -1.0f, -1.0f, 0.7f, 0.8f, 0.50f, { 1, 0, 0, 1 }, O, LE, true },
      { -0.6f, -0.9f, 1.0f, 1.0f, 0.30f, { 0, 1, 0, 1 }, O, LE, true },
      { -0.8f, -0.3f, 0.9f, 0.4f, 0.40f, { 0, 0, 1, 0.5f }, T, LE, false },
      { -0.9f, -0.8f, 0.2f, 0.9f, 0.20f, { 1, 1, 0, 1 }, O, LE, true },
      { -0.3f, -1.0f, 0.6f, 0.7f, 0.10f, { 0, 1, 1, 0.0f }, P, LE, true },
      { -1.0f, 0.1f, 1.0f, 0.6f, 0.90f, { 1, 0, 1, 1 }, O, AL, false },
      { 0.1f, -0.7f, 0.8f, 0.2f, 0.95f, { 0.5f, 0.5f, 0.5f, 1 }, O, GR, true },
      { -0.5f, -0.5f, 0.5f, 0.5f, 0.05f, { 1, 0.5f, 0, 0.25f }, T, AL, false },
      { -1.0f, -1.0f, 1.0f, 1.0f, 0.60f, { 0.2f, 0.4f, 0.6f, 1 }, O, LE, true },
      { -0.7f, -0.2f, 0.3f, 0.9f, 0.00f, { 0.9f, 0.1f, 0.3f, 1 }, O, AL, true },
   };
   unsigned n = sizeof(L) / sizeof(L[0]);
   /* The alpha-test layer alone really discards part of its quad. */
   uint64_t f1;
   uint32_t *p = render_layers(&L[4], 1, 80, 72, 1, false, &f1, NULL);
   unsigned kept = 0;
   for (unsigned i = 0; i < 80 * 72; i++)
      kept += p[i] != 0xff202020u;
   free(p);
   print_message("alpha test: %u of %llu shaded pixels kept\n", kept, (unsigned long long)f1);
   assert_true(kept > 100 && kept + 100 < f1);
   for (unsigned samples = 1; samples <= 4; samples++) {
      if (samples == 3)
         continue;
      uint64_t f_hsr, f_io;
      uint32_t *a = render_layers(L, n, 80, 72, samples, false, &f_hsr, NULL);
      uint32_t *b = render_layers(L, n, 80, 72, samples, true, &f_io, NULL);
      assert_int_equal(count_diff(a, b, 80 * 72 * samples), 0);
      print_message("mixed scene, %u sample(s): %llu fragments with HSR, %llu in order\n",
                    samples, (unsigned long long)f_hsr, (unsigned long long)f_io);
      assert_true(f_hsr < f_io);
      free(a);
      free(b);
   }
}


/*
 * resolve() reuses the list walk's decode of a deferred primitive only
 * while its bytes in the TVB are those decoded (load_prim_dec); when
 * they changed in between it decodes them again. Memory the model reads
 * is the GPU's to write: here deferred triangle A's fragment shader
 * stores over vertex 0's window X of deferred triangle B (same tile, A
 * shaded first in resolve), which moves B's colour planes (its coverage
 * was decided by the list walk). The fast path must give the image of
 * the general path (hwr_fast_paths off: nothing kept, every load a
 * fresh decode); one using the stale decode would colour B as before the
 * store. (A single tile and thread: A's stores and B's loads in order.)
 */
/* B's vertex 0 red (about 0.314): bits found nowhere else in the TVB */
enum { RB_MARK = 0x3ea0c49cu };

static void
resolve_bytes_scene(struct scene *s, bool fast, uint64_t target, uint32_t value)
{
   hwr_fast_paths = fast;
   scene_init(s, 32, 32, 1, 0xff000000u, 1, BIG_TVB);
   /* A: fs_src, then value stored at target (u0_u1) */
   char fs[512];
   snprintf(fs, sizeof(fs),
            "iter r4_r5_r6_r7, cf0, center, 0b0, 0, 0, 0, 0, 0\n"
            "st_tile r4_r5_r6_r7, u8norm, 0, xyzw, 0, 255, 0\n"
            "mov_imm r8, %u, 0b0\n"
            "mov_imm r10, 0, 0b0\n"
            "device_store 0, i32, x, r8, u0_u1, r10, unsigned, 0\n"
            "wait 0\n"
            "stop\n", value);
   struct draw_state da = default_state;
   if (target) {
      da.fs = fs;
      da.fs_uni = &target;
      da.fs_uni_bytes = sizeof(target);
   }
   float mark;
   uint32_t mbits = RB_MARK;
   memcpy(&mark, &mbits, 4);
   struct vtx a[3] = {
      { -0.9f, -0.9f, 0.5f, 1, 1, 0, 0, 1 },
      { -0.1f, -0.9f, 0.5f, 1, 0, 1, 0, 1 },
      { -0.9f, 0.9f, 0.5f, 1, 0, 0, 1, 1 },
   };
   struct vtx b[3] = {
      { 0.0f, -0.9f, 0.5f, 1, mark, 1, 0, 1 },
      { 0.9f, -0.9f, 0.5f, 1, 0, 0, 1, 1 },
      { 0.9f, 0.9f, 0.5f, 1, 1, 0, 0, 1 },
   };
   emit_state(s, &da, vs_src, a, sizeof(a));
   emit_draw(s, AGX_PRIMITIVE_TRIANGLES, NULL, 0, 3, 1, false);
   emit_state(s, &default_state, vs_src, b, sizeof(b));
   emit_draw(s, AGX_PRIMITIVE_TRIANGLES, NULL, 0, 3, 1, false);
   bool ok = run(s);
   hwr_fast_paths = true;
   assert_true(ok);
}

/*
 * Helper lanes write no memory. A 32x1 target (a layer of a 1D array,
 * as Mesa's PBO download of one renders it) has the row below it in
 * every 2x2 quad: those lanes run as helpers for derivatives, and the
 * hardware predicates their stores away (Mesa's asahi compiler counts on
 * it for plain stores: agx_nir_lower_frag_sidefx.c). The model let them
 * store: each layer's helpers wrote the next layer's row of the PBO with
 * their own layer's texels, and when that tile ran first on another host
 * thread the read-back came out stale (piglit getteximage-targets
 * 1D_ARRAY, 5-56 % of runs with >= 2 threads). Both store paths: a
 * device_store into a buffer and an image_write into a 32x2 image, at
 * the lane's (x, y); row 1 (the helpers' row) must keep its sentinel,
 * and is_active_thread (sr63) reads 1 in the covered lanes.
 */
static void
test_helper_lanes_store_nothing(void **state)
{
   (void)state;
   enum { W = 32, MARK = 0x4d410000u };
   struct scene s;
   scene_init(&s, W, 1, 1, 0xff000000u, 1, BIG_TVB);
   uint64_t buf_va = alloc(&s, 2 * W * 4, 128);
   uint32_t *buf = host(&s, buf_va);
   memset(buf, 0, 2 * W * 4);
   uint64_t img_va = alloc(&s, 2 * W * 4, 128);
   uint32_t *img = host(&s, img_va);
   memset(img, 0x5a, 2 * W * 4);
   uint8_t d[AGX_PBE_LENGTH];
   agx_pack(d, PBE, pb) {
      pb.dimension = AGX_TEXTURE_DIMENSION_2D; pb.layout = AGX_LAYOUT_LINEAR;
      pb.channels = AGX_CHANNELS_R8G8B8A8; pb.type = AGX_TEXTURE_TYPE_UNORM;
      pb.swizzle_r = AGX_CHANNEL_R; pb.swizzle_g = AGX_CHANNEL_G;
      pb.swizzle_b = AGX_CHANNEL_B; pb.swizzle_a = AGX_CHANNEL_A;
      pb.width = W; pb.height = 2; pb.buffer = img_va; pb.stride = W * 4 - 4;
   }
   uint64_t pbe = scene_put(&s, d, sizeof(d), 16);
   char fs[768];
   snprintf(fs, sizeof(fs),
            "get_sr r2, sr80\n"
            "get_sr r3, sr81\n"
            "get_sr r10, sr63\n"
            /* x + 32 y (the shift goes up to 4) */
            "iadd r8, r2, r3, lsl 4\n"
            "iadd r8, r8, r3, lsl 4\n"
            "mov_imm r9, %u, 0b0\n"
            "iadd r9, r9, r10\n"
            "device_store 0, i32, x, r9, u0_u1, r8, unsigned, 0\n"
            "mov_imm r4, 0x3f800000, 0b0\n"
            "mov r5, r4\nmov r6, r4\nmov r7, r4\n"
            "image_write r4_r5_r6_r7, r2_r3, 0, None, ts0, tex_2d, rte, 0, 0, 0, 0\n"
            "wait 0\n"
            "stop\n", MARK);
   struct draw_state ds = default_state;
   ds.fs = fs;
   ds.fs_uni = &buf_va;
   ds.fs_uni_bytes = sizeof(buf_va);
   ds.fs_tex = pbe;
   /* one triangle over the whole target */
   struct vtx v[3] = {
      { -1.0f, -1.0f, 0.5f, 1, 1, 1, 1, 1 },
      { 3.0f, -1.0f, 0.5f, 1, 1, 1, 1, 1 },
      { -1.0f, 3.0f, 0.5f, 1, 1, 1, 1, 1 },
   };
   emit_state(&s, &ds, vs_src, v, sizeof(v));
   emit_draw(&s, AGX_PRIMITIVE_TRIANGLES, NULL, 0, 3, 1, false);
   assert_true(run(&s));
   unsigned row0_wrong = 0, row1_written = 0, img0_wrong = 0, img1_written = 0;
   for (unsigned x = 0; x < W; x++) {
      row0_wrong += buf[x] != MARK + 1;
      row1_written += buf[W + x] != 0;
      img0_wrong += img[x] != 0xffffffffu;
      img1_written += img[W + x] != 0x5a5a5a5au;
   }
   assert_int_equal(row0_wrong, 0);
   assert_int_equal(img0_wrong, 0);
   assert_int_equal(row1_written, 0);
   assert_int_equal(img1_written, 0);
   scene_teardown(&s);
}

static void
test_hsr_resolve_bytes_changed(void **state)
{
   (void)state;
   /* Where B's vertex 0 lies in the TVB: its record (X Y Z 1/W), then
    * its varyings (1/W again, then the colour, red first). */
   struct scene probe;
   resolve_bytes_scene(&probe, true, 0, 0);
   const uint8_t *tvb = probe.tvb;
   size_t at = 0;
   for (size_t i = 20; i + 4 <= (size_t)TVB_PAGES * HW_PAGE_SIZE && !at; i += 4) {
      uint32_t w;
      memcpy(&w, tvb + i, 4);
      if (w == RB_MARK && !memcmp(tvb + i - 4, tvb + i - 8, 4))
         at = i - 20;
   }
   assert_true(at != 0);
   float x;
   memcpy(&x, tvb + at, 4);
   assert_true(x > 14.0f && x < 18.0f);     /* NDC 0 of 32 pixels */
   float nx = x - 6.0f;
   uint32_t nbits;
   memcpy(&nbits, &nx, 4);
   uint64_t target = TVB_VA + at;

   struct scene fast, gen;
   resolve_bytes_scene(&fast, true, target, nbits);
   resolve_bytes_scene(&gen, false, target, nbits);
   /* both deferred, both shaded; the store landed */
   assert_int_equal(gen.stats.primitives, 2);
   assert_memory_equal(fast.tvb + at, &nbits, 4);
   assert_memory_equal(gen.tvb + at, &nbits, 4);
   assert_int_equal(count_diff(fast.rt, gen.rt, 32 * 32), 0);
   assert_memory_equal(&fast.stats, &gen.stats, sizeof(gen.stats));
   assert_int_equal(fast.ts_f[1] - fast.ts_f[0], gen.ts_f[1] - gen.ts_f[0]);
   /* the store shows: B's colours moved (a stale decode would not) */
   unsigned moved = 0;
   for (unsigned i = 0; i < 32 * 32; i++)
      moved += gen.rt[i] != probe.rt[i];
   assert_true(moved > 0);
   scene_teardown(&probe);
   scene_teardown(&fast);
   scene_teardown(&gen);
}

/* --------------------------------------------------- feature scenes */

#define RED 0xff0000ffu
#define GREEN 0xff00ff00u
#define BLUE 0xffff0000u
#define BLACK 0xff000000u

static const float c_red[4] = { 1, 0, 0, 1 }, c_green[4] = { 0, 1, 0, 1 },
                   c_blue[4] = { 0, 0, 1, 1 };

/* Flat-coloured state: the pixel value is exactly the colour. */
static struct draw_state
flat(void)
{
   struct draw_state ds = default_state;
   ds.shade = AGX_SHADE_MODEL_FLAT_VERTEX_0;
   return ds;
}

static void
solid_quad(struct scene *s, const struct draw_state *ds, float x0, float y0,
           float x1, float y1, float z, const float c[4])
{
   struct vtx v[6];
   quad(v, x0, y0, x1, y1, z, c);
   /* quad() permutes corner colours: make every vertex colour c. */
   for (unsigned i = 0; i < 6; i++) {
      v[i].r = c[0]; v[i].g = c[1]; v[i].b = c[2]; v[i].a = c[3];
   }
   emit_state(s, ds, vs_src, v, sizeof(v));
   emit_draw(s, AGX_PRIMITIVE_TRIANGLES, NULL, 0, 6, 1, false);
}

static uint64_t
zls_word(bool zstore, bool sstore, enum agx_zls_format zf)
{
   uint64_t w = 0;
   agx_pack(&w, ZLS_CONTROL, z) {
      z.z_store_enable = zstore; z.s_store_enable = sstore; z.z_format = zf;
   }
   return w;
}

static void
test_occlusion_query(void **state)
{
   (void)state;
   for (unsigned samples = 1; samples <= 4; samples *= 4) {
      struct scene s;
      scene_init(&s, 64, 64, samples, BLACK, 2, 1 << 20);
      s.want_depth = true;
      s.oclqry_va = alloc(&s, 64, 64);
      memset(host(&s, s.oclqry_va), 0, 64);
      struct draw_state ds = flat();
      ds.zfunc = AGX_ZS_FUNC_LESS;
      ds.zwrite = true;
      ds.vis = AGX_VISIBILITY_MODE_COUNTING;
      ds.oq_idx = 0;
      solid_quad(&s, &ds, -0.5f, -0.5f, 0.5f, 0.5f, 0.3f, c_red);     /* 32x32 */
      ds.oq_idx = 1;
      solid_quad(&s, &ds, 0.0f, 0.0f, 1.0f, 1.0f, 0.6f, c_green);     /* 32x32, 16x16 hidden */
      ds.vis = AGX_VISIBILITY_MODE_BOOLEAN;
      ds.oq_idx = 2;
      solid_quad(&s, &ds, -0.25f, -0.25f, 0.25f, 0.25f, 0.9f, c_blue); /* hidden */
      ds.oq_idx = 3;
      solid_quad(&s, &ds, -0.25f, -0.25f, 0.25f, 0.25f, 0.1f, c_blue); /* visible */
      assert_true(run(&s));
      uint64_t q[4];
      memcpy(q, host(&s, s.oclqry_va), sizeof(q));
      assert_int_equal(q[0], 1024 * samples);
      assert_int_equal(q[1], (1024 - 256) * samples);
      assert_int_equal(q[2], 0);
      assert_int_equal(q[3], 1);
      scene_teardown(&s);
   }
}

static void
test_scissor_region_clip(void **state)
{
   (void)state;
   struct scene s;
   const unsigned W = 128, H = 96;
   scene_init(&s, W, H, 1, BLACK, 2, 1 << 20);
   uint8_t sc[2][AGX_SCISSOR_LENGTH];
   agx_pack(sc[0], SCISSOR, c) { c.max_x = W; c.max_y = H; c.max_z = 1; }
   agx_pack(sc[1], SCISSOR, c) {
      c.min_x = 10; c.max_x = 75; c.min_y = 5; c.max_y = 50; c.max_z = 1;
   }
   s.scissor_va = scene_put(&s, sc, sizeof(sc), 64);
   struct draw_state ds = flat();
   ds.region_clip = true;            /* tiles x [1,3), y [1,2) */
   ds.rc[0] = 1; ds.rc[1] = 3; ds.rc[2] = 1; ds.rc[3] = 2;
   solid_quad(&s, &ds, -1, -1, 1, 1, 0.5f, c_green);
   ds = flat();
   ds.scissor = true;
   ds.scissor_idx = 1;
   solid_quad(&s, &ds, -1, -1, 1, 1, 0.5f, c_red);
   assert_true(run(&s));
   unsigned bad = 0;
   for (unsigned y = 0; y < H; y++) {
      for (unsigned x = 0; x < W; x++) {
         uint32_t want = BLACK;
         if (x >= 32 && x < 96 && y >= 32 && y < 64)
            want = GREEN;
         if (x >= 10 && x < 75 && y >= 5 && y < 50)
            want = RED;
         if (s.rt[y * W + x] != want && bad++ < 5)
            print_message("(%u,%u): %08x want %08x\n", x, y, s.rt[y * W + x], want);
      }
   }
   if (bad)
      for (unsigned y = 0; y < H; y += 4) {
         char line[200];
         for (unsigned x = 0; x < W; x++)
            line[x] = s.rt[y * W + x] == RED ? 'R' : s.rt[y * W + x] == GREEN ? 'G' : '.';
         line[W] = 0;
         print_message("%s\n", line);
      }
   assert_int_equal(bad, 0);
   scene_teardown(&s);
}

/* Z16: the depth a tile starts with (ISP BG Obj Depth) is a unorm16 value,
 * not float bits. 0x8000 (0.50001): a quad at 0.25 passes LESS, one at 0.75
 * fails, and the stored buffer keeps 0x8000 (no depth writes). Read as float
 * bits it would be ~4.6e-41 and both quads would fail (vkcube's D16 depth
 * on Mesa's asahi Vulkan driver drew nothing). */
static void
test_z16_bg_depth(void **state)
{
   (void)state;
   const unsigned W = 64, H = 32;
   struct scene s;
   scene_init(&s, W, H, 1, BLACK, 2, 1 << 20);
   s.want_depth = true;
   s.zls = zls_word(true, false, AGX_ZLS_FORMAT_16);
   s.bg_depth_set = true;
   s.bg_depth = 0x8000;
   struct draw_state ds = flat();
   ds.zfunc = AGX_ZS_FUNC_LESS;
   solid_quad(&s, &ds, -1, -1, 0, 1, 0.25f, c_red);     /* left half: passes */
   solid_quad(&s, &ds, 0, -1, 1, 1, 0.75f, c_green);    /* right half: fails */
   assert_true(run(&s));
   const uint16_t *zh = host(&s, s.zbuf_va);
   unsigned bad = 0;
   for (unsigned y = 0; y < H; y++) {
      for (unsigned x = 0; x < W; x++) {
         uint32_t want = x < W / 2 ? RED : BLACK;
         uint16_t z = zh[scene_zs_texel(&s, x, y, 2)];
         if ((s.rt[y * W + x] != want || z != 0x8000) && bad++ < 5)
            print_message("(%u,%u): %08x want %08x, depth 0x%04x want 0x8000\n", x, y,
                          s.rt[y * W + x], want, z);
      }
   }
   assert_int_equal(bad, 0);
   scene_teardown(&s);
}

static const float dz_ramp[2] = { 0.2f, 0.6f };   /* z at NDC x = -1, +1 */

/* A full-screen pair of triangles whose depth ramps along x. */
static void
ramp_quad(struct scene *s, const struct draw_state *ds)
{
   struct vtx v[6];
   quad(v, -1, -1, 1, 1, 0, c_red);
   for (unsigned i = 0; i < 6; i++) {
      v[i].z = v[i].x < 0 ? dz_ramp[0] : dz_ramp[1];
      v[i].r = 1; v[i].g = 0; v[i].b = 0; v[i].a = 1;
   }
   emit_state(s, ds, vs_src, v, sizeof(v));
   emit_draw(s, AGX_PRIMITIVE_TRIANGLES, NULL, 0, 6, 1, false);
}

static void
test_depth_bias(void **state)
{
   (void)state;
   const unsigned W = 64, H = 32;
   /* bias, slope scale, clamp per entry */
   const float B[4][3] = {
      { 0.125f, 0, 0 }, { 0, 2.0f, 0 }, { 0.001f, 2.0f, 0.01f }, { 3.0f, 0, 0 },
   };
   for (unsigned k = 0; k < 4; k++) {
      struct scene s;
      scene_init(&s, W, H, 1, BLACK, 2, 1 << 20);
      s.want_depth = true;
      bool z16 = k == 3;
      s.zls = zls_word(true, false, z16 ? AGX_ZLS_FORMAT_16 : AGX_ZLS_FORMAT_32F);
      if (z16)
         s.flags = 1u << 18;          /* DBIAS_IS_INT */
      uint8_t db[AGX_DEPTH_BIAS_LENGTH * 2];
      memset(db, 0, sizeof(db));
      agx_pack(db + AGX_DEPTH_BIAS_LENGTH, DEPTH_BIAS, d) {
         d.bias = B[k][0]; d.slope_scale = B[k][1]; d.clamp = B[k][2];
      }
      s.dbias_va = scene_put(&s, db, sizeof(db), 64);
      struct draw_state ds = flat();
      ds.zwrite = true;
      ds.dbias = true;
      ds.dbias_idx = 1;
      if (k == 0 || k == 3)
         solid_quad(&s, &ds, -1, -1, 1, 1, 0.25f, c_red);
      else
         ramp_quad(&s, &ds);
      assert_true(run(&s));
      const float *zf = host(&s, s.zbuf_va);
      const uint16_t *zh = host(&s, s.zbuf_va);
      for (unsigned y = 0; y < H; y++) {
         for (unsigned x = 0; x < W; x++) {
            size_t i = scene_zs_texel(&s, x, y, k == 3 ? 2 : 4);
            if (k == 0) {
               assert_true(zf[i] == 0.375f);           /* exact in float */
            } else if (k == 3) {
               /* 0.25 * 65535 + 3 LSB = 16386.75 -> 16387 */
               assert_int_equal(zh[i], 16387);
            } else {
               double slope = (dz_ramp[1] - dz_ramp[0]) / W;    /* per pixel in x */
               double bias = B[k][0] + B[k][1] * slope;
               if (B[k][2] > 0 && bias > B[k][2])
                  bias = B[k][2];
               double want = dz_ramp[0] + slope * (x + 0.5) + bias;
               /* float plane evaluation vs double: a few ulp */
               if (fabs(zf[i] - want) > 2e-6)
                  fail_msg("entry %u pixel (%u,%u): depth %.9g want %.9g", k, x, y,
                           zf[i], want);
            }
         }
      }
      scene_teardown(&s);
   }
}

/* ZLS stores of tiles cut by the image edge (72x40 with 32x32 utiles:
 * 8-pixel and 24-pixel columns and rows) and of whole ones, Z32F and
 * stencil, 1 and 4 samples: every pixel's texel holds every sample's
 * value, and the twiddled layout's padding texels outside the image are
 * never written (zls_buffer finds the edge tiles' texels from the utile's
 * Morton order, the whole tiles' through one mapped page). */
static void
test_zls_edge_tiles(void **state)
{
   (void)state;
   const unsigned W = 72, H = 40;
   for (unsigned samples = 1; samples <= 4; samples *= 4) {
      struct scene s;
      scene_init(&s, W, H, samples, BLACK, 2, 1 << 20);
      s.want_depth = true;
      s.want_stencil = true;
      s.zls = zls_word(true, true, AGX_ZLS_FORMAT_32F);
      struct draw_state ds = flat();
      ds.zwrite = true;
      ds.stencil = true;
      ds.scmp = AGX_ZS_FUNC_ALWAYS;
      ds.spass = AGX_STENCIL_OP_REPLACE;
      ds.sref = 5;
      /* the left part of the image only: the rest keeps the clear (1.0, 0) */
      solid_quad(&s, &ds, -1, -1, 0.25f, 1, 0.25f, c_red);
      assert_true(run(&s));
      struct hw_tex_layout zl, sl;
      assert_true(hw_tex_layout_twiddled(&zl, 4 * samples, W, H, 1, 1, false));
      assert_true(hw_tex_layout_twiddled(&sl, samples, W, H, 1, 1, false));
      const float *zf = host(&s, s.zbuf_va);
      const uint8_t *st = host(&s, s.sbuf_va);
      size_t nz = zl.size / (4 * samples), ns = sl.size / samples;
      bool *seen = calloc(nz, 1), *seen_s = calloc(ns, 1);
      assert_true(seen && seen_s);
      for (unsigned y = 0; y < H; y++)
         for (unsigned x = 0; x < W; x++) {
            size_t zi = hw_tex_offset(&zl, x, y, 0, 0) / 4;
            size_t si = hw_tex_offset(&sl, x, y, 0, 0);
            bool in = x < W * 5 / 8;
            seen[zi / samples] = true;
            seen_s[si / samples] = true;
            for (unsigned k = 0; k < samples; k++) {
               if (zf[zi + k] != (in ? 0.25f : 1.0f) || st[si + k] != (in ? 5 : 0))
                  fail_msg("%ux: pixel (%u,%u) sample %u: depth %g stencil %u", samples, x, y,
                           k, zf[zi + k], st[si + k]);
            }
         }
      /* padding: texels no pixel maps to stay as allocated (zero) */
      for (size_t t = 0; t < nz; t++)
         for (unsigned k = 0; !seen[t] && k < samples; k++)
            if (zf[t * samples + k] != 0.0f)
               fail_msg("%ux: depth padding texel %zu written", samples, t);
      for (size_t t = 0; t < ns; t++)
         for (unsigned k = 0; !seen_s[t] && k < samples; k++)
            if (st[t * samples + k] != 0)
               fail_msg("%ux: stencil padding texel %zu written", samples, t);
      free(seen);
      free(seen_s);
      scene_teardown(&s);
   }
}

static void
test_two_sided_stencil(void **state)
{
   (void)state;
   const unsigned W = 64, H = 32;
   struct scene s;
   scene_init(&s, W, H, 1, BLACK, 2, 1 << 20);
   s.want_stencil = true;
   s.zls = zls_word(false, true, AGX_ZLS_FORMAT_32F);
   struct draw_state ds = flat();
   ds.stencil = true;
   ds.two_sided = true;
   ds.scmp = AGX_ZS_FUNC_ALWAYS;
   ds.spass = AGX_STENCIL_OP_INCR_SAT;
   ds.sref = 5;
   ds.back = (struct stencil_face){ AGX_ZS_FUNC_ALWAYS, AGX_STENCIL_OP_REPLACE,
                                    AGX_STENCIL_OP_KEEP, AGX_STENCIL_OP_KEEP, 7 };
   /* quad() winds counter-clockwise on screen: back-facing.  The left
    * half is drawn reversed (front-facing), the right half as is. */
   struct vtx v[12];
   quad(v, -1, -1, 0, 1, 0.5f, c_red);
   for (unsigned t = 0; t < 2; t++) {
      struct vtx tmp = v[3 * t + 1];
      v[3 * t + 1] = v[3 * t + 2];
      v[3 * t + 2] = tmp;
   }
   quad(v + 6, 0, -1, 1, 1, 0.5f, c_green);
   emit_state(&s, &ds, vs_src, v, sizeof(v));
   emit_draw(&s, AGX_PRIMITIVE_TRIANGLES, NULL, 0, 12, 1, false);
   /* Back-facing, upper half only: EQUAL 7 -> INCR_WRAP, else ZERO;
    * the front state (NEVER) must not be used. */
   ds.scmp = AGX_ZS_FUNC_NEVER;
   ds.spass = AGX_STENCIL_OP_INVERT;
   ds.ssfail = AGX_STENCIL_OP_INVERT;
   ds.back = (struct stencil_face){ AGX_ZS_FUNC_EQUAL, AGX_STENCIL_OP_INCR_WRAP,
                                    AGX_STENCIL_OP_KEEP, AGX_STENCIL_OP_ZERO, 7 };
   solid_quad(&s, &ds, -1, 0, 1, 1, 0.5f, c_blue);
   assert_true(run(&s));
   const uint8_t *st = host(&s, s.sbuf_va);
   for (unsigned y = 0; y < H; y++) {
      for (unsigned x = 0; x < W; x++) {
         uint8_t want = x < W / 2 ? 1 : 7;     /* front INCR_SAT from 0, back REPLACE 7 */
         if (y < H / 2)
            want = want == 7 ? 8 : 0;
         size_t i = scene_zs_texel(&s, x, y, 1);
         if (st[i] != want)
            fail_msg("stencil (%u,%u) = %u, want %u", x, y, st[i], want);
      }
   }
   scene_teardown(&s);
}

static void
test_depth_clamp(void **state)
{
   (void)state;
   const unsigned W = 64, H = 32;
   struct scene s;
   scene_init(&s, W, H, 1, BLACK, 2, 1 << 20);
   s.want_depth = true;
   s.zls = zls_word(true, false, AGX_ZLS_FORMAT_32F);
   struct draw_state ds = flat();
   ds.zfunc = AGX_ZS_FUNC_LEQUAL;
   ds.zwrite = true;
   /* Beyond the far plane, depth clip on: clipped away entirely. */
   solid_quad(&s, &ds, -1, -1, 1, 1, 1.5f, c_blue);
   /* Same with clamping instead of clipping: z = 1 passes LEQUAL 1. */
   ds.no_depth_clip = true;
   ds.depth_clamp = true;
   solid_quad(&s, &ds, -1, -1, 0, 1, 1.5f, c_red);
   /* In front of the near plane, clamped to 0. */
   solid_quad(&s, &ds, 0, -1, 1, 1, -0.5f, c_green);
   assert_true(run(&s));
   const float *z = host(&s, s.zbuf_va);
   for (unsigned y = 0; y < H; y++) {
      for (unsigned x = 0; x < W; x++) {
         assert_int_equal(s.rt[y * W + x], x < W / 2 ? RED : GREEN);
         assert_true(z[scene_zs_texel(&s, x, y, 4)] == (x < W / 2 ? 1.0f : 0.0f));
      }
   }
   assert_true(s.stats.clipped + s.stats.culled >= 2);
   scene_teardown(&s);
}

/* Draw from an indirect buffer: non-indexed and indexed. */
static void
test_indirect_draw(void **state)
{
   (void)state;
   const unsigned W = 64, H = 64;
   uint32_t *img[2];
   for (unsigned pass = 0; pass < 2; pass++) {
      struct scene s;
      scene_init(&s, W, H, 1, BLACK, 2, 1 << 20);
      struct vtx v[12];
      quad(v, -0.9f, -0.9f, -0.1f, -0.1f, 0.5f, c_red);
      quad(v + 6, 0.1f, 0.1f, 0.9f, 0.9f, 0.5f, c_green);
      struct draw_state ds = default_state;
      emit_state(&s, &ds, vs_src, v, sizeof(v));
      if (pass == 0) {
         /* Reference: the same draws made directly. */
         emit_draw(&s, AGX_PRIMITIVE_TRIANGLES, NULL, 0, 3, 1, false);
         uint16_t idx[6] = { 6, 7, 8, 9, 10, 11 };
         emit_draw(&s, AGX_PRIMITIVE_TRIANGLES, idx, AGX_INDEX_SIZE_U16, 6, 1, false);
      } else {
         /* count 3, instances 1, first vertex 0 */
         uint32_t a[4] = { 3, 1, 0, 0 };
         /* indexed: count 6, instances 1, first index 2, base vertex 4 */
         uint32_t b[5] = { 6, 1, 2, 4, 0 };
         uint16_t idx[8] = { 0, 0, 2, 3, 4, 5, 6, 7 };
         uint64_t ia = scene_put(&s, a, sizeof(a), 16);
         uint64_t ib = scene_put(&s, b, sizeof(b), 16);
         uint64_t ix = scene_put(&s, idx, sizeof(idx), 16);
         uint8_t blk[16];
         agx_pack(blk, INDEX_LIST, il) {
            il.primitive = AGX_PRIMITIVE_TRIANGLES;
            il.indirect_buffer_present = true;
         }
         agx_pack(blk + 4, INDEX_LIST_INDIRECT_BUFFER, p) {
            p.address_hi = (uint32_t)(ia >> 32); p.address_lo = (uint32_t)ia;
         }
         vdm_emit(&s, blk, 12);
         agx_pack(blk, INDEX_LIST, il) {
            il.primitive = AGX_PRIMITIVE_TRIANGLES; il.index_size = AGX_INDEX_SIZE_U16;
            il.index_buffer_present = true; il.indirect_buffer_present = true;
            il.index_buffer_hi = (uint32_t)(ix >> 32);
         }
         uint32_t lo = (uint32_t)ix;
         memcpy(blk + 4, &lo, 4);
         agx_pack(blk + 8, INDEX_LIST_INDIRECT_BUFFER, p) {
            p.address_hi = (uint32_t)(ib >> 32); p.address_lo = (uint32_t)ib;
         }
         vdm_emit(&s, blk, 16);
      }
      assert_true(run(&s));
      assert_int_equal(s.stats.primitives, 3);
      img[pass] = malloc(W * H * 4);
      memcpy(img[pass], s.rt, W * H * 4);
      scene_teardown(&s);
   }
   assert_int_equal(count_diff(img[0], img[1], W * H), 0);
   unsigned lit = 0;
   for (unsigned i = 0; i < W * H; i++)
      lit += img[0][i] != BLACK;
   assert_true(lit > 1000);
   free(img[0]);
   free(img[1]);
}

/* Points sized by the vertex shader (Output Select.Point Size, slot 4). */
static void
test_large_points(void **state)
{
   (void)state;
   const unsigned W = 64, H = 64;
   struct scene s;
   scene_init(&s, W, H, 1, BLACK, 2, 1 << 20);
   /* window centre (x, y) and size */
   const float P[3][3] = { { 20.5f, 20.5f, 5 }, { 40, 40, 4 }, { 10.25f, 50.75f, 7.5f } };
   struct vtx16 v[3];
   memset(v, 0, sizeof(v));
   for (unsigned i = 0; i < 3; i++) {
      v[i].v = (struct vtx){ P[i][0] / (W / 2.0f) - 1, 1 - P[i][1] / (H / 2.0f), 0.5f, 1,
                             0, 1, 0, 1 };
      v[i].e = P[i][2];
   }
   struct draw_state ds = flat();
   ds.extra_slots = 1;
   ds.point_size = true;
   emit_state(&s, &ds, vs_extra_src, v, sizeof(v));
   emit_draw(&s, AGX_PRIMITIVE_POINTS, NULL, 0, 3, 1, false);
   assert_true(run(&s));
   unsigned lit = 0;
   for (unsigned y = 0; y < H; y++) {
      for (unsigned x = 0; x < W; x++) {
         bool in = false;
         for (unsigned i = 0; i < 3; i++) {
            /* square of the size around the centre, on the 1/256 grid,
             * half-open: [c - s/2, c + s/2) */
            double h = P[i][2] / 2.0, cx = x + 0.5, cy = y + 0.5;
            in |= cx >= P[i][0] - h && cx < P[i][0] + h && cy >= P[i][1] - h &&
                  cy < P[i][1] + h;
         }
         lit += in;
         if (s.rt[y * W + x] != (in ? GREEN : BLACK))
            fail_msg("(%u,%u): %08x, point coverage %d", x, y, s.rt[y * W + x], in);
      }
   }
   assert_int_equal(lit, 25 + 16 + 8 * 7);
   scene_teardown(&s);
}

/* A user clip distance (slot 4) cuts a full-screen quad at NDC x = -0.2. */
static void
test_clip_plane(void **state)
{
   (void)state;
   const unsigned W = 64, H = 32;
   struct scene s;
   scene_init(&s, W, H, 1, BLACK, 2, 1 << 20);
   struct vtx q[6];
   quad(q, -1, -1, 1, 1, 0.5f, c_red);
   struct vtx16 v[6];
   memset(v, 0, sizeof(v));
   for (unsigned i = 0; i < 6; i++) {
      v[i].v = q[i];
      v[i].v.r = 1; v[i].v.g = 0; v[i].v.b = 0; v[i].v.a = 1;
      v[i].e = q[i].x + 0.2f;
   }
   struct draw_state ds = flat();
   ds.extra_slots = 1;
   ds.clip_planes = 1;
   emit_state(&s, &ds, vs_extra_src, v, sizeof(v));
   emit_draw(&s, AGX_PRIMITIVE_TRIANGLES, NULL, 0, 6, 1, false);
   assert_true(run(&s));
   /* boundary at window x = 0.8 * 32 = 25.6: centres from 26.5 are in */
   for (unsigned y = 0; y < H; y++)
      for (unsigned x = 0; x < W; x++)
         if (s.rt[y * W + x] != (x >= 26 ? RED : BLACK))
            fail_msg("(%u,%u): %08x", x, y, s.rt[y * W + x]);
   assert_true(s.stats.clipped >= 1);
   scene_teardown(&s);
}

/* Own 2x MSAA oracle: a flat triangle, coverage per sample at
 * (0.75, 0.75) and (0.25, 0.25) with the top-left rule. */
static void
test_msaa_2x(void **state)
{
   (void)state;
   const unsigned W = 48, H = 40;
   struct scene s;
   scene_init(&s, W, H, 2, BLACK, 2, 1 << 20);
   struct vtx v[3] = {
      { -0.83f, -0.71f, 0.5f, 1, 1, 0, 0, 1 }, { 0.77f, -0.52f, 0.5f, 1, 1, 0, 0, 1 },
      { -0.13f, 0.88f, 0.5f, 1, 1, 0, 0, 1 },
   };
   struct draw_state ds = flat();
   emit_state(&s, &ds, vs_src, v, sizeof(v));
   emit_draw(&s, AGX_PRIMITIVE_TRIANGLES, NULL, 0, 3, 1, false);
   assert_true(run(&s));
   int64_t X[3], Y[3];
   for (unsigned i = 0; i < 3; i++) {
      float xw = W / 2.0f + W / 2.0f * v[i].x, yw = H / 2.0f - H / 2.0f * v[i].y;
      X[i] = llrintf(xw * 256.0f);
      Y[i] = llrintf(yw * 256.0f);
   }
   int64_t area = (X[1] - X[0]) * (Y[2] - Y[0]) - (X[2] - X[0]) * (Y[1] - Y[0]);
   const int pos[2][2] = { { 192, 192 }, { 64, 64 } };
   unsigned partial = 0;
   for (unsigned y = 0; y < H; y++) {
      for (unsigned x = 0; x < W; x++) {
         unsigned cov = 0;
         for (unsigned k = 0; k < 2; k++) {
            int64_t px = x * 256 + pos[k][0], py = y * 256 + pos[k][1];
            bool in = true;
            for (unsigned e = 0; e < 3; e++) {
               unsigned a = e, b = (e + 1) % 3;
               if (area < 0) { a = (3 - e) % 3; b = (a + 2) % 3; }
               int64_t dx = X[b] - X[a], dy = Y[b] - Y[a];
               int64_t E = dx * (py - Y[a]) - dy * (px - X[a]);
               if (E < 0 || (E == 0 && !(dy < 0 || (dy == 0 && dx > 0))))
                  in = false;
            }
            cov |= in << k;
            uint32_t got = s.rt[(y * W + x) * 2 + k];
            if (got != (in ? RED : BLACK))
               fail_msg("(%u,%u) sample %u: %08x, covered %d", x, y, k, got, in);
         }
         partial += cov == 1 || cov == 2;
      }
   }
   assert_true(partial > 20);   /* the edges really split pixels */
   scene_teardown(&s);
}

/* Layered rendering (gl_Layer): a primitive goes to the layer its
 * provoking vertex's layer word names (Output Select Render Target), the
 * tiler bins it for that layer only, and the fragment pass runs every
 * tile once per layer with sr2 = the layer, so the end-of-tile program
 * stores each layer's tilebuffer into its array layer. The model used to
 * render one layer: everything landed in layer 0 and layers 1.. kept their
 * old contents. Layer 2 gets no primitive: background only. */
static void
test_layered(void **state)
{
   (void)state;
   const unsigned W = 40, H = 36, L = 3;
   struct scene s;
   scene_init(&s, W, H, 1, BLACK, 2, 1 << 20);
   scene_layered(&s, L);
   /* layer 0: red left half, layer 1: green top half (a quad each) */
   const float rect[2][4] = { { -1, -1, 0, 1 }, { -1, 0, 1, 1 } };
   const float col[2][4] = { { 1, 0, 0, 1 }, { 0, 1, 0, 1 } };
   struct vtx16 v[12];
   memset(v, 0, sizeof(v));
   for (unsigned q = 0; q < 2; q++) {
      struct vtx t[6];
      quad(t, rect[q][0], rect[q][1], rect[q][2], rect[q][3], 0.5f, col[q]);
      for (unsigned i = 0; i < 6; i++) {
         uint32_t layer = q;
         v[q * 6 + i].v = t[i];
         memcpy(&v[q * 6 + i].e, &layer, 4);
      }
   }
   struct draw_state ds = flat();
   ds.extra_slots = 1;
   ds.layer = true;
   emit_state(&s, &ds, vs_extra_src, v, sizeof(v));
   emit_draw(&s, AGX_PRIMITIVE_TRIANGLES, NULL, 0, 12, 1, false);
   assert_true(run(&s));
   for (unsigned l = 0; l < L; l++) {
      const uint32_t *img = (const uint32_t *)((const uint8_t *)s.rt_array + l * s.layer_stride);
      for (unsigned y = 0; y < H; y++)
         for (unsigned x = 0; x < W; x++) {
            uint32_t want = l == 0 ? (x < W / 2 ? RED : BLACK)
                          : l == 1 ? (y < H / 2 ? GREEN : BLACK) : BLACK;
            if (img[y * W + x] != want)
               fail_msg("layer %u (%u,%u): %08x, want %08x", l, x, y, img[y * W + x], want);
         }
   }
   scene_teardown(&s);
}

/* 16x16 and 32x16 tilebuffer tiles give the 32x32 image, with MSAA and a
 * mixed HSR scene; the tile count follows the tile size. */
static void
test_tile_sizes(void **state)
{
   (void)state;
   const unsigned W = 80, H = 72;
   const unsigned sizes[3][2] = { { 32, 32 }, { 16, 16 }, { 32, 16 } };
   for (unsigned samples = 1; samples <= 2; samples++) {
      uint32_t *ref = NULL;
      for (unsigned k = 0; k < 3; k++) {
         struct scene s;
         scene_init(&s, W, H, samples, 0xff202020u, 2, 1 << 20);
         s.utile_w = sizes[k][0];
         s.utile_h = sizes[k][1];
         s.want_depth = true;
         struct draw_state ds = default_state;
         ds.zfunc = AGX_ZS_FUNC_LEQUAL;
         ds.zwrite = true;
         draw_quad(&s, &ds, -0.9f, -0.8f, 0.7f, 0.6f, 0.5f, c_red);
         draw_quad(&s, &ds, -0.3f, -0.95f, 0.95f, 0.3f, 0.3f, c_green);
         ds.fs = fs_blend_src;
         ds.pass = AGX_PASS_TYPE_TRANSLUCENT;
         const float half[4] = { 0, 0, 1, 0.5f };
         draw_quad(&s, &ds, -0.6f, -0.2f, 0.4f, 0.9f, 0.1f, half);
         assert_true(run(&s));
         unsigned tx = (W + sizes[k][0] - 1) / sizes[k][0], ty = (H + sizes[k][1] - 1) / sizes[k][1];
         assert_int_equal(s.stats.tiles, tx * ty);
         size_t n = (size_t)W * H * samples;
         if (!ref) {
            ref = malloc(n * 4);
            memcpy(ref, s.rt, n * 4);
         } else {
            assert_int_equal(count_diff(s.rt, ref, (unsigned)n), 0);
         }
         scene_teardown(&s);
      }
      free(ref);
   }
}

/* ------------------------------------------- launch-invariant background */

/* A background program that computes the same in every launch (the clear
 * after a `mov_imm`) runs on one whole 16x2 group per tile and is copied
 * to the others; the same clear after a `get_sr` of the position (the
 * same instruction class and cycles, but position-dependent in general)
 * runs on every group. Both must give the same image, modelled time and
 * statistics, on sizes that leave edge groups (52x37, tile edges inside
 * groups), 1 and 4 samples, 16x16 and 32x32 tiles, with a draw on top. */
static void
test_bg_invariant_copy(void **state)
{
   (void)state;
   const unsigned W = 52, H = 37;
   for (unsigned samples = 1; samples <= 4; samples *= 4) {
      for (unsigned tile = 16; tile <= 32; tile *= 2) {
         uint32_t *img[2];
         uint64_t ticks[2];
         struct hw_render_stats st[2];
         size_t n = (size_t)W * H * samples;
         for (unsigned v = 0; v < 2; v++) {
            struct scene s;
            scene_init(&s, W, H, samples, 0xff3080c0u, 2, 1 << 20);
            s.utile_w = s.utile_h = tile;
            s.bg_usc = scene_bg_program(&s, v ? "get_sr r10, sr80\n" : "mov_imm r10, 0, 0b0\n");
            struct draw_state ds = default_state;
            draw_quad(&s, &ds, -0.5f, -0.7f, 0.3f, 0.4f, 0.5f, c_red);
            assert_true(run(&s));
            img[v] = malloc(n * 4);
            memcpy(img[v], s.rt, n * 4);
            ticks[v] = s.ts_f[1] - s.ts_f[0];
            st[v] = s.stats;
            scene_teardown(&s);
         }
         /* the clear colour where the quad is not */
         assert_int_equal(img[0][0], 0xff3080c0u);
         assert_int_equal(img[0][n - 1], 0xff3080c0u);
         assert_int_equal(count_diff(img[0], img[1], (unsigned)n), 0);
         assert_true(ticks[0] == ticks[1]);
         assert_memory_equal(&st[0], &st[1], sizeof(st[0]));
         free(img[0]);
         free(img[1]);
      }
   }
}

/* ------------------------------------------------------- reload fast path */

/* Mesa asahi's reload background program (agx_bg_eot.c, as a capture of
 * glmark2 on the asahi driver shows it): 16-bit positions moved into the
 * 32-bit coordinate pair, texture_load, st_tile of the texel. FMT is the
 * st_tile format. */
#define RELOAD_MESA(fmt)                                                   \
   "get_sr r0l, sr80\nget_sr r0h, sr81\nmov r3, r0h\nmov r2, r0l\n"       \
   "texture_load 0, 0b1100, 0b0, none, xyzw, 0b00, r0_r1_r2_r3, None, ts0, ss0, tex_2d, r2_r3, auto_lod, 0\n" \
   "wait 0\nst_tile r0_r1_r2_r3, " fmt ", 0, xyzw, 0, 255, 0\nstop\n"

static const char *const reload_progs[] = {
   RELOAD_MESA("u8norm"),
   RELOAD_MESA("srgba8"),
   RELOAD_MESA("rgb10a2"),
   /* 32-bit positions straight into the pair, a 3-sample mask */
   "get_sr r2, sr80\nget_sr r3, sr81\n"
   "texture_load 0, 0b0000, 0b0, none, xyzw, 0b00, r4_r5_r6_r7, None, ts0, ss0, tex_2d, r2_r3, auto_lod, 0\n"
   "wait 0\nst_tile r4_r5_r6_r7, u8norm, 0, xyzw, 0, 5, 0\nstop\n",
   /* Mesa's reload of an R8 target (one component), and two components
    * at an offset */
   "get_sr r0l, sr80\nget_sr r0h, sr81\nmov r3, r0h\nmov r2, r0l\n"
   "texture_load 0, 0b1100, 0b0, none, x, 0b00, r0, None, ts0, ss0, tex_2d, r2_r3, auto_lod, 0\n"
   "wait 0\nst_tile r0, u8norm, 0, x, 0, 255, 0\nstop\n",
   "get_sr r2, sr80\nget_sr r3, sr81\n"
   "texture_load 0, 0b0000, 0b0, none, yz, 0b00, r5_r6, None, ts0, ss0, tex_2d, r2_r3, auto_lod, 0\n"
   "wait 0\nst_tile r5_r6, u8norm, 1, yz, 0, 255, 0\nstop\n",
   /* not a reload (x and y swapped: a transposed copy), general path
    * (RELOAD_NEAR_MISS) */
   "get_sr r0l, sr81\nget_sr r0h, sr80\nmov r3, r0h\nmov r2, r0l\n"
   "texture_load 0, 0b1100, 0b0, none, xyzw, 0b00, r0_r1_r2_r3, None, ts0, ss0, tex_2d, r2_r3, auto_lod, 0\n"
   "wait 0\nst_tile r0_r1_r2_r3, u8norm, 0, xyzw, 0, 255, 0\nstop\n",
};

#define RELOAD_NEAR_MISS 6

/* Re-describes the texture the reload reads: the colour target itself,
 * or (`own`) a random image of its own -- what a twiddled view of the
 * linear target or the transposed near miss would read of the target
 * are pixels of other tiles, which their end-of-tile programs write
 * meanwhile. */
/* The descriptor at `at` (the scene's own, s->rt_tex, or another);
 * bgra: swizzled as Mesa views a B8G8R8A8 window's target (R and B
 * exchanged). Returns the image's address. */
static uint64_t
reload_texture(struct scene *s, uint64_t at, bool srgb, bool bgra, enum agx_layout layout,
               bool own, uint32_t seed)
{
   uint64_t va = s->rt_va;
   if (own) {
      size_t bytes = (size_t)64 * 64 * 4 * s->samples;
      va = alloc(s, bytes, 16384);
      uint8_t *p = host(s, va);
      for (size_t i = 0; i < bytes; i++) {
         seed = seed * 1103515245u + 12345u;
         p[i] = (uint8_t)(seed >> 16);
      }
   }
   enum agx_texture_dimension dim = s->samples > 1 ? AGX_TEXTURE_DIMENSION_2D_MS
                                                   : AGX_TEXTURE_DIMENSION_2D;
   enum agx_sample_count sc = s->samples == 4 ? AGX_SAMPLE_COUNT_4 : AGX_SAMPLE_COUNT_2;
   agx_pack(host(s, at), TEXTURE, tx) {
      tx.dimension = dim; tx.samples = sc; tx.layout = layout;
      tx.channels = AGX_CHANNELS_R8G8B8A8; tx.type = AGX_TEXTURE_TYPE_UNORM;
      tx.srgb = srgb;
      if (bgra) {
         tx.swizzle_r = AGX_CHANNEL_B;
         tx.swizzle_b = AGX_CHANNEL_R;
      }
      tx.width = s->w; tx.height = s->h; tx.address = va;
      tx.stride = s->w * 4 * s->samples - 16;
   }
   return va;
}

/* How render_reload runs the bulk reload: not at all (the reference),
 * lane by lane (hw_tex_load_lanes), or through the byte map. */
enum reload_mode { RELOAD_REF, RELOAD_LANES, RELOAD_MAP };

/* mixed: the first pass (a LOAD) reads the target through a second
 * descriptor, the other sRGB-ness and swizzle, than the partial renders:
 * the same program with two views, one after the other on the same
 * threads (bg_reload_match's cache must tell them apart). */
static void
render_reload(unsigned prog, unsigned samples, unsigned tile, bool srgb, bool bgra, bool mixed,
              enum agx_layout layout, enum reload_mode mode, uint32_t *img, uint64_t *ticks,
              struct hw_render_stats *st)
{
   const unsigned W = 52, H = 37;
   struct scene s;
   /* a small TVB: the triangles overflow it, so partial renders reload */
   scene_init(&s, W, H, samples, 0xff3080c0u, 2, 16 * 1024);
   s.utile_w = s.utile_h = tile;
   /* the first pass reloads too (a LOAD of the target): every byte value */
   uint32_t seed = 777 + prog;
   uint8_t *rt = (uint8_t *)s.rt;
   for (size_t i = 0; i < (size_t)W * H * samples * 4; i++) {
      seed = seed * 1103515245u + 12345u;
      rt[i] = (uint8_t)(seed >> 16);
   }
   uint64_t va = reload_texture(&s, s.rt_tex, srgb, bgra, layout,
                                layout == AGX_LAYOUT_TWIDDLED || prog == RELOAD_NEAR_MISS, seed);
   s.bg_usc = s.pbg_usc = scene_reload_program(&s, reload_progs[prog]);
   if (mixed) {
      uint64_t at = alloc(&s, AGX_TEXTURE_LENGTH, 64), rt_va = s.rt_va, rt_tex = s.rt_tex;
      /* the same image (reload_texture reads s.rt_va unless `own`) */
      s.rt_va = va;
      reload_texture(&s, at, !srgb, !bgra, layout, false, 0);
      s.rt_va = rt_va;
      s.rt_tex = at;
      s.bg_usc = scene_reload_program(&s, reload_progs[prog]);
      s.rt_tex = rt_tex;
   }
   many_triangles(&s, 1000);
   hw_render_bg_reload_fast = mode != RELOAD_REF;
   hw_render_bg_reload_map = mode == RELOAD_MAP;
   bool ok = run(&s);
   hw_render_bg_reload_fast = true;
   hw_render_bg_reload_map = true;
   assert_true(ok);
   memcpy(img, s.rt, (size_t)W * H * samples * 4);
   *ticks = s.ts_f[1] - s.ts_f[0];
   *st = s.stats;
   scene_teardown(&s);
}

/*
 * Reload background programs (bg_reload_match) take a bulk path for the
 * whole groups of a tile after the first: the same tilebuffer bytes (the
 * end-of-tile program stores them raw) and the same modelled time and
 * statistics as the general path (hw_render_frag_reference) on every
 * group, for Mesa's program and a 32-bit-position variant, u8norm /
 * srgba8 / rgb10a2 tilebuffers, RGBA8 unorm and sRGB views (linear and
 * twiddled, RGBA and BGRA swizzles), 1 and 4 samples, 16x16 and 32x32
 * tiles, a 52x37 target (edge groups), with partial renders, and a first
 * pass reading through another view than the partial renders. Both bulk
 * paths: lane by lane, and the byte map's rows (hw_tex_reload_row) where
 * the view and format have one. A near miss (x and y swapped) must stay
 * on the general path.
 */
static void
test_bg_reload_fast_exact(void **state)
{
   (void)state;
   enum { N = 52 * 37 * 4 };
   static uint32_t fast[N], ref[N];
   const unsigned nprog = sizeof(reload_progs) / sizeof(reload_progs[0]);
   for (unsigned prog = 0; prog < nprog; prog++) {
      for (unsigned v = 0; v < 8; v++) {
         unsigned samples = v & 1 ? 4 : 1, tile = v & 2 ? 16 : 32;
         bool srgb = (prog + v) % 2, bgra = v & 4, mixed = (prog + v) % 4 == 3;
         enum agx_layout layout = (prog + v) % 3 == 2 ? AGX_LAYOUT_TWIDDLED : AGX_LAYOUT_LINEAR;
         uint64_t tf, tr;
         struct hw_render_stats sf, sr;
         unsigned n = 52 * 37 * samples;
         render_reload(prog, samples, tile, srgb, bgra, mixed, layout, RELOAD_REF, ref, &tr, &sr);
         for (enum reload_mode mode = RELOAD_LANES; mode <= RELOAD_MAP; mode++) {
            render_reload(prog, samples, tile, srgb, bgra, mixed, layout, mode, fast, &tf, &sf);
            if (count_diff(fast, ref, n))
               fail_msg("prog %u v %u mode %u: %u pixels differ", prog, v, mode,
                        count_diff(fast, ref, n));
            assert_true(tf == tr);
            assert_int_equal(sf.fragment_cycles, sr.fragment_cycles);
            assert_memory_equal(&sf, &sr, sizeof(sf));
         }
         assert_true(sf.partial_renders >= 2);
         unsigned distinct = 0;
         for (unsigned i = 1; i < n; i++)
            distinct += fast[i] != fast[i - 1];
         /* the reloaded bytes survive (one component into all 4
          * samples varies least) */
         if (distinct <= n / 64)
            fail_msg("prog %u v %u: %u distinct", prog, v, distinct);
      }
   }
}

/* A reload whose texture runs off the end of mapped memory after its
 * first two rows: the tile's first whole group loads, the next row of
 * groups faults -- in the bulk path too, which must hand the group back
 * to the USC so that the fragment job fails as on the general path
 * (not a tile of zeros). */
static void
test_bg_reload_fault(void **state)
{
   (void)state;
   for (unsigned v = 0; v < 2; v++) {
      struct scene s;
      scene_init(&s, 32, 32, 1, 0xff3080c0u, 2, 64 * 1024);
      uint64_t end = USC_BASE + (uint64_t)MEM_PAGES * HW_PAGE_SIZE;
      agx_pack(host(&s, s.rt_tex), TEXTURE, tx) {
         tx.dimension = AGX_TEXTURE_DIMENSION_2D; tx.layout = AGX_LAYOUT_LINEAR;
         tx.channels = AGX_CHANNELS_R8G8B8A8; tx.type = AGX_TEXTURE_TYPE_UNORM;
         tx.width = 32; tx.height = 32; tx.address = end - 2 * 32 * 4;
         tx.stride = 32 * 4 - 16;
      }
      s.bg_usc = scene_reload_program(&s, reload_progs[0]);
      hw_render_bg_reload_fast = v == 0;
      bool ok = run(&s);
      hw_render_bg_reload_fast = true;
      assert_false(ok);
      assert_int_equal(s.failed_job, 0x201);   /* the fragment job */
      scene_teardown(&s);
   }
}

/* ------------------------------------------------------------ zs_emit */

/* The shader replaces the depth with a constant (r6, the halves r6l_r6h;
 * r12, the register numbered like those halves, holds a decoy 0.9) and
 * then stores its colour. */
#define FS_ZS_EMIT(bits)                                                  \
   "iter r8_r9_r10_r11, cf0, center, 0b0, 0, 0, 0, 0, 0\n"                \
   "mov_imm r12, 1063675494, 0b0\n"                                       \
   "mov_imm r6, " bits ", 0b0\n"                                          \
   "zs_emit 255, r6l_r6h, 0\n"                                            \
   "st_tile r8_r9_r10_r11, u8norm, 0, xyzw, 0, 255, 0\n"                  \
   "stop\n"

/* Depth written by the shader is what the ISP tests and stores: a green
 * quad at z = 0.25, then over its left half a shader-depth quad whose
 * interpolated z would decide the opposite of its emitted one. */
static void
test_zs_emit_depth(void **state)
{
   (void)state;
   const unsigned W = 32, H = 32;
   struct {
      const char *fs;
      float interp, emitted;
      bool visible;
   } cases[] = {
      /* interpolated 0.75 fails LESS against 0.25, emitted 0.125 passes */
      { FS_ZS_EMIT("1040187392"), 0.75f, 0.125f, true },
      /* interpolated 0.1 passes, emitted 0.5 fails */
      { FS_ZS_EMIT("1056964608"), 0.1f, 0.5f, false },
   };
   for (unsigned k = 0; k < 2; k++) {
      struct scene s;
      scene_init(&s, W, H, 1, BLACK, 2, 1 << 20);
      s.want_depth = true;
      s.zls = zls_word(true, false, AGX_ZLS_FORMAT_32F);
      struct draw_state ds = flat();
      ds.zfunc = AGX_ZS_FUNC_LESS;
      ds.zwrite = true;
      solid_quad(&s, &ds, -1, -1, 1, 1, 0.25f, c_green);
      ds.pass = AGX_PASS_TYPE_PUNCH_THROUGH;
      ds.fs = cases[k].fs;
      solid_quad(&s, &ds, -1, -1, 0, 1, cases[k].interp, c_red);
      assert_true(run(&s));
      const float *zf = host(&s, s.zbuf_va);
      for (unsigned y = 0; y < H; y++) {
         for (unsigned x = 0; x < W; x++) {
            bool left = x < W / 2, red = left && cases[k].visible;
            float want_z = red ? cases[k].emitted : 0.25f;
            size_t zi = scene_zs_texel(&s, x, y, 4);
            if (zf[zi] != want_z)
               fail_msg("case %u pixel (%u,%u): depth %.9g want %.9g", k, x, y,
                        zf[zi], want_z);
            if (s.rt[y * W + x] != (red ? RED : GREEN))
               fail_msg("case %u pixel (%u,%u): colour %08x", k, x, y, s.rt[y * W + x]);
         }
      }
      scene_teardown(&s);
   }
}

/* Stencil written by the shader (zs_emit's s bit) is the lanes' stencil
 * reference, tested and applied at the zs_emit (ARB_shader_stencil_export:
 * u_blitter's depth+stencil copy, piglit fbo-depthstencil copypixels on
 * Mesa's asahi driver). The stencil is half T alone, half T + 2 after a
 * depth. */
#define FS_ZS_EMIT_S                                                      \
   "iter r8_r9_r10_r11, cf0, center, 0b0, 0, 0, 0, 0, 0\n"                \
   "mov_imm r6l, 51\n"                                                    \
   "zs_emit 255, r6l, 2\n"                                                \
   "st_tile r8_r9_r10_r11, u8norm, 0, xyzw, 0, 255, 0\n"                  \
   "stop\n"
#define FS_ZS_EMIT_ZS                                                     \
   "iter r8_r9_r10_r11, cf0, center, 0b0, 0, 0, 0, 0, 0\n"                \
   "mov_imm r6, 1048576000, 0b0\n"                                        \
   "mov_imm r7l, 68\n"                                                    \
   "zs_emit 255, r6l_r6h_r7l, 3\n"                                        \
   "st_tile r8_r9_r10_r11, u8norm, 0, xyzw, 0, 255, 0\n"                  \
   "stop\n"

static void
test_zs_emit_stencil(void **state)
{
   (void)state;
   const unsigned W = 32, H = 32;
   struct scene s;
   scene_init(&s, W, H, 1, BLACK, 2, 1 << 20);
   s.want_depth = true;
   s.want_stencil = true;
   s.zls = zls_word(true, true, AGX_ZLS_FORMAT_32F);
   /* Everywhere: stencil 0x44, depth 0.5, green. */
   struct draw_state ds = flat();
   ds.zfunc = AGX_ZS_FUNC_LESS;
   ds.zwrite = true;
   ds.stencil = true;
   ds.scmp = AGX_ZS_FUNC_ALWAYS;
   ds.spass = AGX_STENCIL_OP_REPLACE;
   ds.sref = 0x44;
   solid_quad(&s, &ds, -1, -1, 1, 1, 0.5f, c_green);
   /* Left: the shader's 0x33 replaces the state's reference 5. */
   ds.pass = AGX_PASS_TYPE_PUNCH_THROUGH;
   ds.sref = 5;
   ds.fs = FS_ZS_EMIT_S;
   solid_quad(&s, &ds, -1, -1, 0, 1, 0.25f, c_red);
   /* Right: EQUAL passes only with the shader's 0x44 (INCR_SAT: 0x45),
    * and the emitted depth 0.25 passes LESS where the interpolated 0.75
    * would not. */
   ds.scmp = AGX_ZS_FUNC_EQUAL;
   ds.spass = AGX_STENCIL_OP_INCR_SAT;
   ds.fs = FS_ZS_EMIT_ZS;
   solid_quad(&s, &ds, 0, -1, 1, 1, 0.75f, c_blue);
   assert_true(run(&s));
   const float *zf = host(&s, s.zbuf_va);
   const uint8_t *sf = host(&s, s.sbuf_va);
   for (unsigned y = 0; y < H; y++) {
      for (unsigned x = 0; x < W; x++) {
         bool left = x < W / 2;
         uint8_t want_s = left ? 0x33 : 0x45;
         float want_z = 0.25f;
         uint32_t want_c = left ? RED : BLUE;
         uint8_t got_s = sf[scene_zs_texel(&s, x, y, 1)];
         float got_z = zf[scene_zs_texel(&s, x, y, 4)];
         if (got_s != want_s || got_z != want_z || s.rt[y * W + x] != want_c)
            fail_msg("pixel (%u,%u): stencil 0x%02x depth %.9g colour %08x, want 0x%02x %.9g %08x",
                     x, y, got_s, got_z, s.rt[y * W + x], want_s, want_z, want_c);
      }
   }
   scene_teardown(&s);
}

/* ------------------------------------------------ flat shading, provoking */

#define WHITE 0xffffffffu

static const float c_white[4] = { 1, 1, 1, 1 };

static void
set_vtx(struct vtx *v, float x, float y, float z, const float c[4])
{
   *v = (struct vtx){ x, y, z, 1, c[0], c[1], c[2], c[3] };
}

/* The whole target as two triangles, corners (-1, -1), (1, -1), (1, 1),
 * (-1, 1) coloured c0..c3: full groups, every lane live and covered. */
static void
target_quad(struct vtx v[6], const float c0[4], const float c1[4], const float c2[4],
            const float c3[4])
{
   set_vtx(&v[0], -1, -1, 0.5f, c0);
   set_vtx(&v[1], 1, -1, 0.5f, c1);
   set_vtx(&v[2], 1, 1, 0.5f, c2);
   v[3] = v[0];
   v[4] = v[2];
   set_vtx(&v[5], -1, 1, 0.5f, c3);
}

/* Every lit pixel of the target is `want`, and there are some. */
static void
assert_only(const struct scene *s, uint32_t want, const char *what)
{
   unsigned lit = 0;
   for (unsigned i = 0; i < s->w * s->h; i++) {
      if (s->rt[i] == BLACK)
         continue;
      lit++;
      if (s->rt[i] != want)
         fail_msg("%s: pixel (%u,%u) is %08x, want %08x", what, i % s->w,
                  i / s->w, s->rt[i], want);
   }
   if (!lit)
      fail_msg("%s: nothing drawn", what);
}

/*
 * A clipped triangle keeps its provoking vertex's flat varyings on every
 * piece the clipper makes: the colour (slots 4-7) is flat by Varying
 * Counts 32, and one vertex is behind the near plane (z < 0), so the
 * clipped polygon's vertices are new ones. With the provoking vertex
 * clipped away (vertex 2, last) and kept (vertex 0, first) the whole
 * visible part is that vertex's colour, not an interpolated one.
 */
static void
test_flat_clipped(void **state)
{
   (void)state;
   static const struct {
      enum agx_provoking_vertex pv;
      enum agx_shade_model sm;
      uint32_t want;
   } cases[] = {
      { AGX_PROVOKING_VERTEX_2, AGX_SHADE_MODEL_FLAT_VERTEX_2, BLUE },
      { AGX_PROVOKING_VERTEX_0, AGX_SHADE_MODEL_FLAT_VERTEX_0, RED },
   };
   for (unsigned k = 0; k < 2; k++) {
      struct scene s;
      scene_init(&s, 64, 64, 1, BLACK, 2, 1 << 20);
      struct vtx v[3];
      set_vtx(&v[0], -1, -1, 0.5f, c_red);
      set_vtx(&v[1], 1, -1, 0.5f, c_green);
      set_vtx(&v[2], 0, 1, -0.5f, c_blue);   /* behind the near plane */
      struct draw_state ds = default_state;
      ds.shade = cases[k].sm;
      ds.flat_vertex = cases[k].pv;
      ds.flat_slots = 4;
      emit_state(&s, &ds, vs_src, v, sizeof(v));
      emit_draw(&s, AGX_PRIMITIVE_TRIANGLES, NULL, 0, 3, 1, false);
      assert_true(run(&s));
      assert_true(s.stats.clipped >= 1);
      assert_only(&s, cases[k].want, k ? "first vertex" : "last vertex");
      scene_teardown(&s);
   }
}

/*
 * GL's provoking vertex of strips and fans (the triangle of strip
 * vertices i, i+1, i+2: i first, i+2 last; of fan vertices 0, i, i+1:
 * i first, i+1 last) reaches the position the flat shade model reads:
 * the PPP's Flat Shading Vertex orders each triangle (odd strip triangles
 * (i, i+2, i+1) for vertex 0, (i+1, i, i+2) for vertex 2, as Mesa's
 * libagx software assembly mirrors it; fans (i, i+1, 0) and (0, i, i+1)).
 * A 2-triangle strip and fan over the target: lower-left and upper-right
 * halves.
 */
static void
test_strip_fan_provoking(void **state)
{
   (void)state;
   const unsigned W = 64, H = 64;
   static const struct {
      enum agx_primitive prim;
      enum agx_provoking_vertex pv;
      enum agx_shade_model sm;
      uint32_t lower_left, upper_right;
   } cases[] = {
      /* strip v0..v3: triangles (0,1,2) and (1,2,3) */
      { AGX_PRIMITIVE_TRIANGLE_STRIP, AGX_PROVOKING_VERTEX_0,
        AGX_SHADE_MODEL_FLAT_VERTEX_0, RED, GREEN },
      { AGX_PRIMITIVE_TRIANGLE_STRIP, AGX_PROVOKING_VERTEX_2,
        AGX_SHADE_MODEL_FLAT_VERTEX_2, BLUE, WHITE },
      /* fan around v0: triangles (0,1,2) and (0,2,3) */
      { AGX_PRIMITIVE_TRIANGLE_FAN, AGX_PROVOKING_VERTEX_0,
        AGX_SHADE_MODEL_FLAT_VERTEX_0, GREEN, BLUE },
      { AGX_PRIMITIVE_TRIANGLE_FAN, AGX_PROVOKING_VERTEX_2,
        AGX_SHADE_MODEL_FLAT_VERTEX_2, BLUE, WHITE },
   };
   for (unsigned k = 0; k < 4; k++) {
      struct scene s;
      scene_init(&s, W, H, 1, BLACK, 2, 1 << 20);
      struct vtx v[4];
      if (cases[k].prim == AGX_PRIMITIVE_TRIANGLE_STRIP) {
         set_vtx(&v[0], -1, -1, 0.5f, c_red);
         set_vtx(&v[1], -1, 1, 0.5f, c_green);
         set_vtx(&v[2], 1, -1, 0.5f, c_blue);
         set_vtx(&v[3], 1, 1, 0.5f, c_white);
      } else {
         set_vtx(&v[0], -1, 1, 0.5f, c_red);
         set_vtx(&v[1], -1, -1, 0.5f, c_green);
         set_vtx(&v[2], 1, -1, 0.5f, c_blue);
         set_vtx(&v[3], 1, 1, 0.5f, c_white);
      }
      struct draw_state ds = default_state;
      ds.shade = cases[k].sm;
      ds.flat_vertex = cases[k].pv;
      emit_state(&s, &ds, vs_src, v, sizeof(v));
      emit_draw(&s, cases[k].prim, NULL, 0, 4, 1, false);
      assert_true(run(&s));
      /* NDC (-0.5, -0.5) and (0.5, 0.5); window y points down */
      uint32_t ll = s.rt[48 * W + 16], ur = s.rt[16 * W + 48];
      if (ll != cases[k].lower_left || ur != cases[k].upper_right)
         fail_msg("case %u: lower left %08x (want %08x), upper right %08x "
                  "(want %08x)", k, ll, cases[k].lower_left, ur,
                  cases[k].upper_right);
      scene_teardown(&s);
   }
}

/* A line's flat colour when the last vertex provokes: Mesa's asahi driver
 * programs Flat Vertex 2 for every primitive type, a line's vertex 2 is
 * its last (vertex 1), not vertex 0. */
static void
test_flat_line_last(void **state)
{
   (void)state;
   struct scene s;
   scene_init(&s, 64, 64, 1, BLACK, 2, 1 << 20);
   struct vtx v[2];
   set_vtx(&v[0], -0.75f, 1.0f / 64, 0.5f, c_red);
   set_vtx(&v[1], 0.75f, 1.0f / 64, 0.5f, c_green);
   struct draw_state ds = default_state;
   ds.shade = AGX_SHADE_MODEL_FLAT_VERTEX_2;
   ds.flat_vertex = AGX_PROVOKING_VERTEX_2;
   ds.line_width = 15;   /* 1 pixel */
   emit_state(&s, &ds, vs_src, v, sizeof(v));
   emit_draw(&s, AGX_PRIMITIVE_LINES, NULL, 0, 2, 1, false);
   assert_true(run(&s));
   assert_only(&s, GREEN, "line");
   scene_teardown(&s);
}

/* ------------------------------------------------------- polygon mode */

/* Window position (pixel units, y down, 64x64 target) to the NDC the
 * scene's viewport maps onto it. */
static void
set_win(struct vtx *v, float x, float y, const float c[4])
{
   set_vtx(v, x / 32.0f - 1.0f, 1.0f - y / 32.0f, 0.5f, c);
}

/* A front-facing triangle (left) and a back-facing one (right), vertices
 * at pixel centres; the interior pixel of each, away from its edges. */
static void
facing_pair(struct vtx v[6], const float *const c[6])
{
   set_win(&v[0], 4.5f, 4.5f, c[0]);
   set_win(&v[1], 28.5f, 28.5f, c[1]);
   set_win(&v[2], 4.5f, 28.5f, c[2]);
   set_win(&v[3], 36.5f, 4.5f, c[3]);
   set_win(&v[4], 36.5f, 28.5f, c[4]);
   set_win(&v[5], 60.5f, 28.5f, c[5]);
}
#define FRONT_INSIDE (20 * 64 + 10)
#define BACK_INSIDE (20 * 64 + 42)

/*
 * Fragment Face Polygon Mode: a triangle whose facing's word says Line
 * is drawn as its three edges, with the line rule of line primitives;
 * Point as its three vertices, with the point rule; culling still goes
 * by the triangle's facing. Oracle: the same edges drawn as LINES and the
 * same vertices as POINTS give the same image, pixel for pixel, and the
 * interiors stay empty. With flat shading every edge is the triangle's
 * provoking vertex's colour (not each line's own last vertex's).
 */
static void
test_polygon_mode(void **state)
{
   (void)state;
   const unsigned W = 64, H = 64;
   const float *const white6[6] = { c_white, c_white, c_white, c_white, c_white, c_white };
   struct vtx v[6];
   facing_pair(v, white6);

   /* The facings the pair has: filled with back faces culled, only the
    * left one is drawn. */
   struct scene s;
   scene_init(&s, W, H, 1, BLACK, 2, 1 << 20);
   struct draw_state ds = flat();
   ds.line_width = 15;   /* 1 pixel */
   ds.cull_back = true;
   emit_state(&s, &ds, vs_src, v, sizeof(v));
   emit_draw(&s, AGX_PRIMITIVE_TRIANGLES, NULL, 0, 6, 1, false);
   assert_true(run(&s));
   assert_int_equal(s.rt[FRONT_INSIDE], WHITE);
   assert_int_equal(s.rt[BACK_INSIDE], BLACK);
   scene_teardown(&s);

   /* Front Line, back Point. */
   scene_init(&s, W, H, 1, BLACK, 2, 1 << 20);
   ds.cull_back = false;
   ds.poly_front = AGX_POLYGON_MODE_LINE;
   ds.poly_back = AGX_POLYGON_MODE_POINT;
   emit_state(&s, &ds, vs_src, v, sizeof(v));
   emit_draw(&s, AGX_PRIMITIVE_TRIANGLES, NULL, 0, 6, 1, false);
   assert_true(run(&s));
   assert_int_equal(s.rt[FRONT_INSIDE], BLACK);
   assert_int_equal(s.rt[BACK_INSIDE], BLACK);
   uint32_t *img = malloc(W * H * 4);
   memcpy(img, s.rt, W * H * 4);
   scene_teardown(&s);

   /* The oracle: the front triangle's edges as lines, the back one's
    * vertices as points. */
   scene_init(&s, W, H, 1, BLACK, 2, 1 << 20);
   struct draw_state ref = flat();
   ref.line_width = 15;
   struct vtx e[6] = { v[0], v[1], v[1], v[2], v[2], v[0] };
   emit_state(&s, &ref, vs_src, e, sizeof(e));
   emit_draw(&s, AGX_PRIMITIVE_LINES, NULL, 0, 6, 1, false);
   emit_state(&s, &ref, vs_src, v + 3, 3 * sizeof(v[0]));
   emit_draw(&s, AGX_PRIMITIVE_POINTS, NULL, 0, 3, 1, false);
   assert_true(run(&s));
   unsigned lit = 0;
   for (unsigned i = 0; i < W * H; i++)
      lit += s.rt[i] != BLACK;
   assert_true(lit > 3 * 20);
   assert_int_equal(count_diff(img, s.rt, W * H), 0);
   free(img);
   scene_teardown(&s);

   /* Culling by the triangle's facing: back faces culled, front Point:
    * only the front triangle's three vertices. */
   scene_init(&s, W, H, 1, BLACK, 2, 1 << 20);
   ds.cull_back = true;
   ds.poly_front = AGX_POLYGON_MODE_POINT;
   ds.poly_back = AGX_POLYGON_MODE_LINE;
   emit_state(&s, &ds, vs_src, v, sizeof(v));
   emit_draw(&s, AGX_PRIMITIVE_TRIANGLES, NULL, 0, 6, 1, false);
   assert_true(run(&s));
   lit = 0;
   for (unsigned i = 0; i < W * H; i++)
      lit += s.rt[i] != BLACK;
   assert_int_equal(lit, 3);
   assert_int_equal(s.rt[4 * W + 4], WHITE);
   assert_int_equal(s.rt[28 * W + 28], WHITE);
   assert_int_equal(s.rt[28 * W + 4], WHITE);
   scene_teardown(&s);

   /* Flat colours (slots 4-7 flat): every edge is the provoking vertex's
    * colour, first or last. */
   static const struct {
      enum agx_provoking_vertex pv;
      enum agx_shade_model sm;
      uint32_t want;
   } cases[] = {
      { AGX_PROVOKING_VERTEX_0, AGX_SHADE_MODEL_FLAT_VERTEX_0, RED },
      { AGX_PROVOKING_VERTEX_2, AGX_SHADE_MODEL_FLAT_VERTEX_2, BLUE },
   };
   const float *const rgb[6] = { c_red, c_green, c_blue, c_red, c_green, c_blue };
   facing_pair(v, rgb);
   for (unsigned k = 0; k < 2; k++) {
      scene_init(&s, W, H, 1, BLACK, 2, 1 << 20);
      struct draw_state fs = default_state;
      fs.line_width = 15;
      fs.shade = cases[k].sm;
      fs.flat_vertex = cases[k].pv;
      fs.flat_slots = 4;
      fs.poly_front = fs.poly_back = AGX_POLYGON_MODE_LINE;
      emit_state(&s, &fs, vs_src, v, sizeof(v));
      emit_draw(&s, AGX_PRIMITIVE_TRIANGLES, NULL, 0, 6, 1, false);
      assert_true(run(&s));
      assert_only(&s, cases[k].want, k ? "last vertex" : "first vertex");
      assert_int_equal(s.rt[FRONT_INSIDE], BLACK);
      scene_teardown(&s);
   }

   /* Mode 3, which no public format names, fails the vertex job. */
   scene_init(&s, W, H, 1, BLACK, 1, 1 << 20);
   ds = flat();
   ds.poly_back = (enum agx_polygon_mode)3;
   emit_state(&s, &ds, vs_src, v, sizeof(v));
   emit_draw(&s, AGX_PRIMITIVE_TRIANGLES, NULL, 0, 6, 1, false);
   assert_false(run(&s));
   assert_int_equal(s.failed_job, 0x101);
   scene_teardown(&s);
}

/* ------------------------------------------------- coefficient registers */

/* ldcf of the red and green planes (cf0, cf1); stores their C terms and
 * A * 64, B * 64 as the colour. */
static const char *const fs_ldcf_src =
   "ldcf r4_r5_r6, cf0\n"
   "ldcf r8_r9_r10, cf1\n"
   "fadd32 r12, r6, 0.0\n"
   "fadd32 r13, r10, 0.0\n"
   "mov_imm r14, 1115684864, 0b0\n"   /* 64.0 */
   "fmul32 r14, r4, r14\n"
   "mov_imm r15, 1115684864, 0b0\n"
   "fmul32 r15, r9, r15\n"
   "st_tile r12_r13_r14_r15, u8norm, 0, xyzw, 0, 255, 0\n"
   "stop\n";

/*
 * A coefficient register's C is the plane's value at the corner of the
 * pixel's 32x32 bin, not at the window origin: Mesa's asahi compiler
 * lowers interpolateAtOffset/AtSample to ldcf and evaluates the plane at
 * `pixel_coord % 32 + 0.5 + offset` (agx_nir_lower_interpolation.c). The
 * model used to hand out window-origin planes, so those varyings were
 * wrong from the second bin on (piglit arb_gpu_shader5-interpolateAtOffset
 * failed at (32, 0)). Red ramps 0..1 over x, green over y of a 128x96
 * target: every pixel's C is its bin corner's ramp value, A and B the
 * gradients 1/128 and 1/96 (stored x64: 0.5 and 2/3) -- with 32x32,
 * 16x16 and 32x16 tilebuffer tiles (the bin stays 32x32).
 */
static void
test_ldcf_bin_relative(void **state)
{
   (void)state;
   const unsigned W = 128, H = 96;
   const unsigned sizes[3][2] = { { 32, 32 }, { 16, 16 }, { 32, 16 } };
   for (unsigned k = 0; k < 3; k++) {
      struct scene s;
      scene_init(&s, W, H, 1, BLACK, 2, 1 << 20);
      s.utile_w = sizes[k][0];
      s.utile_h = sizes[k][1];
      /* red = window x / W, green = window y / H (window y points down) */
      struct vtx v[6];
      const float c00[4] = { 0, 1, 0, 1 }, c10[4] = { 1, 1, 0, 1 };
      const float c11[4] = { 1, 0, 0, 1 }, c01[4] = { 0, 0, 0, 1 };
      target_quad(v, c00, c10, c11, c01);
      struct draw_state ds = default_state;
      ds.fs = fs_ldcf_src;
      emit_state(&s, &ds, vs_src, v, sizeof(v));
      emit_draw(&s, AGX_PRIMITIVE_TRIANGLES, NULL, 0, 6, 1, false);
      assert_true(run(&s));
      for (unsigned y = 0; y < H; y++) {
         for (unsigned x = 0; x < W; x++) {
            uint32_t got = s.rt[y * W + x];
            int want[4] = {
               (int)lrintf((float)(x & ~31u) / W * 255),
               (int)lrintf((float)(y & ~31u) / H * 255),
               (int)lrintf(64.0f / W * 255),
               (int)lrintf(64.0f / H * 255),
            };
            for (unsigned c = 0; c < 4; c++) {
               int g = (int)(got >> (8 * c) & 0xff);
               if (abs(g - want[c]) > 1)
                  fail_msg("tile %ux%u (%u,%u): %08x, channel %u want %d", sizes[k][0],
                           sizes[k][1], x, y, got, c, want[c]);
            }
         }
      }
      scene_teardown(&s);
   }
}

/*
 * interpolateAtSample as Mesa's asahi compiler emits it: the sample index
 * in a 16-bit register (interpolation "sample" form 3), made from
 * samples_log2 (sr14) by a bcsel even for a constant index. In a 2x pass
 * sr14 is 1, and iter at the sample in r0l evaluates at sample 1, (0.25,
 * 0.25) of the pixel; an immediate 1 and 0 pick samples 1 and 0 (0.75).
 * The model used to read sr14 as 0 and take the register's number for
 * the index (piglit arb_gpu_shader5-interpolateAtSample-different gave
 * sample 0's value for every sample).
 */
static void
test_iter_sample_register(void **state)
{
   (void)state;
   const unsigned W = 8, H = 8;
   static const struct {
      const char *fs;
      float at;
   } cases[] = {
      { "get_sr r0, sr14\n"
        "iter r4_r5_r6_r7, cf0, r0l, sample, 0b0, 0, 0, 0, 0, 0\n"
        "st_tile r4_r5_r6_r7, u8norm, 0, xyzw, 0, 255, 0\nstop\n", 0.25f },
      { "iter r4_r5_r6_r7, cf0, 1, sample, 0b0, 0, 0, 0, 0, 0\n"
        "st_tile r4_r5_r6_r7, u8norm, 0, xyzw, 0, 255, 0\nstop\n", 0.25f },
      { "iter r4_r5_r6_r7, cf0, 0, sample, 0b0, 0, 0, 0, 0, 0\n"
        "st_tile r4_r5_r6_r7, u8norm, 0, xyzw, 0, 255, 0\nstop\n", 0.75f },
   };
   for (unsigned k = 0; k < 3; k++) {
      struct scene s;
      scene_init(&s, W, H, 2, BLACK, 2, 1 << 20);
      /* red = window x / W, green = window y / H */
      struct vtx v[6];
      const float c00[4] = { 0, 1, 0, 1 }, c10[4] = { 1, 1, 0, 1 };
      const float c11[4] = { 1, 0, 0, 1 }, c01[4] = { 0, 0, 0, 1 };
      target_quad(v, c00, c10, c11, c01);
      struct draw_state ds = default_state;
      ds.fs = cases[k].fs;
      emit_state(&s, &ds, vs_src, v, sizeof(v));
      emit_draw(&s, AGX_PRIMITIVE_TRIANGLES, NULL, 0, 6, 1, false);
      assert_true(run(&s));
      for (unsigned i = 0; i < W * H * 2; i++) {
         unsigned x = i / 2 % W, y = i / 2 / W;
         int want[2] = { (int)lrintf((x + cases[k].at) / W * 255),
                         (int)lrintf((y + cases[k].at) / H * 255) };
         for (unsigned c = 0; c < 2; c++) {
            int g = (int)(s.rt[i] >> (8 * c) & 0xff);
            if (abs(g - want[c]) > 1)
               fail_msg("case %u (%u,%u) sample %u: %08x, channel %u want %d", k, x, y,
                        i % 2, s.rt[i], c, want[c]);
         }
      }
      scene_teardown(&s);
   }
}

/*
 * The fragment hooks' batched fast paths (iter/iterproj over all lanes,
 * ld_tile gathered per component through hw_tex_tile_load_comps) against
 * their per-lane references (hw_render_frag_reference): overlapping
 * triangles at odd positions (partial quads: helper and inactive lanes,
 * partial tiles of a 40x20 target), 1, 2 and 4 samples, each shader
 * dumping raw register bits into the pixel (i32 / i16 stores) so that any
 * difference in a bit shows: iter f32 and f16 (centre and sample 1),
 * iterproj f32 and f16 (Mesa asahi's mediump varyings; also inside a
 * divergent if, so the lanes it must leave alone show), ld_tile u8norm
 * into 16- and 32-bit registers, ld_tile i8, ldcf into 32- and 16-bit
 * registers (A and C terms),
 * and the u8norm blend. Images and modelled cycles must be identical.
 */
static const char *const fast_ref_fs[] = {
   "iter r4_r5_r6_r7, cf0, center, 0b0, 0, 0, 0, 0, 0\n"
   "st_tile r5, i32, 0, x, 0, 255, 0\nstop\n",
   "iter r8l_r8h_r9l_r9h, cf0, 1, sample, 0b0, 0, 0, 0, 0, 0\n"
   "st_tile r8l_r8h, i16, 0, xy, 0, 255, 0\nstop\n",
   "iter r8l_r8h_r9l_r9h, cf0, center, 0b0, 0, 0, 0, 0, 0\n"
   "st_tile r9l_r9h, i16, 0, xy, 0, 255, 0\nstop\n",
   "iterproj r4_r5, cf1, cf3, center, 0b0, 0, 0, 0, 0, 0\n"
   "st_tile r5, i32, 0, x, 0, 255, 0\nstop\n",
   "iterproj r8l_r8h_r9l_r9h, cf0, cf3, center, 0b0, 0, 0, 0, 0, 0\n"
   "st_tile r8h_r9l, i16, 0, xy, 0, 255, 0\nstop\n",
   /* inside a divergent if (odd lanes): the even lanes keep r8/r9 */
   "get_sr r2, sr52\nand r5, r2, 1\n"
   "mov_imm r8, 12345, 0b0\nmov_imm r9, 54321, 0b0\n"
   "if_icmp r0l, ueq, r5, 1, 1\n"
   "iterproj r8l_r8h_r9l_r9h, cf0, cf3, center, 0b0, 0, 0, 0, 0, 0\n"
   "pop_exec r0l, 1\n"
   "st_tile r8h_r9l, i16, 0, xy, 0, 255, 0\nstop\n",
   /* several iterproj in one launch (op_iter's cached centres and W
    * plane): the same J, another J, and iter in between */
   "iterproj r4_r5, cf1, cf3, center, 0b0, 0, 0, 0, 0, 0\n"
   "iterproj r6, cf2, cf0, center, 0b0, 0, 0, 0, 0, 0\n"
   "iter r7, cf1, center, 0b0, 0, 0, 0, 0, 0\n"
   "iterproj r8, cf0, cf3, center, 0b0, 0, 0, 0, 0, 0\n"
   "xor r5, r5, r6\nxor r5, r5, r7\nxor r5, r5, r8\n"
   "st_tile r5, i32, 0, x, 0, 255, 0\nstop\n",
   "get_sr r2, sr52\nand r6, r2, 1\nmov_imm r5, 4321, 0b0\n"
   "if_icmp r0l, ueq, r6, 0, 1\n"
   "iterproj r4_r5, cf1, cf3, center, 0b0, 0, 0, 0, 0, 0\n"
   "pop_exec r0l, 1\n"
   "st_tile r5, i32, 0, x, 0, 255, 0\nstop\n",
   "wait_pix 1, 0\n"
   "ld_tile r12l_r12h_r13l_r13h, u8norm, 0, xyzw, 0, 255, 0\n"
   "st_tile r12h_r13l, i16, 0, xy, 0, 255, 0\nsignal_pix 1, 0\nstop\n",
   "wait_pix 1, 0\n"
   "ld_tile r12_r13_r14_r15, u8norm, 0, xyzw, 0, 255, 0\n"
   "st_tile r14, i32, 0, x, 0, 255, 0\nsignal_pix 1, 0\nstop\n",
   "wait_pix 1, 0\n"
   "ld_tile r12l_r12h_r13l_r13h, i8, 0, xyzw, 0, 255, 0\n"
   "st_tile r13l_r13h, i16, 0, xy, 0, 255, 0\nsignal_pix 1, 0\nstop\n",
   "iter r8l_r8h_r9l_r9h, cf0, center, 0b0, 0, 0, 0, 0, 0\n"
   "st_tile r8l_r8h_r9l_r9h, u8norm, 0, xyzw, 0, 255, 0\nstop\n",
   "ldcf r4_r5_r6, cf1\n"
   "st_tile r6, i32, 0, x, 0, 255, 0\nstop\n",
   "ldcf r4_r5_r6, cf0\n"
   "st_tile r4, i32, 0, x, 0, 255, 0\nstop\n",
   "ldcf r8l_r8h_r9l, cf1\n"
   "st_tile r8h_r9l, i16, 0, xy, 0, 255, 0\nstop\n",
};

/* Triangles v[0..nv) shaded by fs, translucent: every draw shaded, in
 * order. */
static void
draw_in_order(struct scene *s, const char *fs, const struct vtx *v, unsigned nv)
{
   struct draw_state ds = default_state;
   ds.pass = AGX_PASS_TYPE_TRANSLUCENT;
   ds.fs = fs;
   emit_state(s, &ds, vs_src, v, sizeof(v[0]) * nv);
   emit_draw(s, AGX_PRIMITIVE_TRIANGLES, NULL, 0, nv, 1, false);
}

/* Runs s through the fragment hooks' fast paths, or with reference their
 * per-lane references (hw_render_frag_reference), takes its colours into
 * img and its fragment cycles, and tears it down. */
static void
run_frag_scene(struct scene *s, bool reference, uint32_t *img, uint64_t *cycles)
{
   hw_render_frag_reference = reference;
   bool ok = run(s);
   hw_render_frag_reference = false;
   assert_true(ok);
   memcpy(img, s->rt, (size_t)s->w * s->h * s->samples * 4);
   *cycles = s->stats.fragment_cycles;
   scene_teardown(s);
}

static void
render_fast_ref(unsigned samples, bool reference, uint32_t *img, uint64_t *cycles)
{
   const unsigned W = 40, H = 20;
   struct scene s;
   scene_init(&s, W, H, samples, BLACK, 2, 1 << 20);
   const unsigned nfs = sizeof(fast_ref_fs) / sizeof(fast_ref_fs[0]);
   /* first every shader over the whole target (full groups: every lane
    * live and covered), then over random triangles */
   for (unsigned d = 0; d <= nfs; d++) {
      const float c0[4] = { 0.2f, 0.9f, 0.4f, 0.6f }, c1[4] = { 0.7f, 0.1f, 0.8f, 1.0f };
      struct vtx v[6];
      target_quad(v, c0, c1, c0, c1);
      draw_in_order(&s, d == nfs ? fs_blend_src : fast_ref_fs[(d + 7) % nfs], v, 6);
   }
   uint32_t seed = 12345;
   for (unsigned d = 0; d < 3 * nfs; d++) {
      struct vtx v[3];
      for (unsigned i = 0; i < 3; i++) {
         float c[4];
         for (unsigned k = 0; k < 4; k++) {
            seed = seed * 1103515245u + 12345u;
            c[k] = (float)(seed >> 8 & 0xffff) / 65535.0f;
         }
         c[3] = 0.5f + c[3] * 0.5f;   /* iterproj divides by alpha */
         seed = seed * 1103515245u + 12345u;
         float x = (float)(seed >> 8 & 0xffff) / 32768.0f - 1.0f;
         seed = seed * 1103515245u + 12345u;
         float y = (float)(seed >> 8 & 0xffff) / 32768.0f - 1.0f;
         set_vtx(&v[i], x * 1.3f, y * 1.3f, 0.5f, c);
      }
      draw_in_order(&s, d % 3 == 2 ? fs_blend_src : fast_ref_fs[d % nfs], v, 3);
   }
   run_frag_scene(&s, reference, img, cycles);
}

/*
 * Whole 8-bit pixels moved by full groups (op_tile's path through
 * hw_tex_tile_store_px8 / load_px8): each shader runs alone over a target
 * first filled with interpolated colours (so that loads read varied bytes
 * and nothing later overwrites what the shader stored), over the whole
 * target (full groups, and the partial ones at its right edge) and then
 * over random triangles. Stores: u8norm from 32-bit registers, srgba8
 * from 16- and 32-bit ones; loads: srgba8 into 16- and 32-bit registers
 * (dumped as raw bits, every component); and accesses the path must leave
 * to the gathered one (sample 0 not selected, two components).
 */
static const char *const px8_fs[] = {
   "iter r4_r5_r6_r7, cf0, center, 0b0, 0, 0, 0, 0, 0\n"
   "st_tile r4_r5_r6_r7, u8norm, 0, xyzw, 0, 255, 0\nstop\n",
   "iter r8l_r8h_r9l_r9h, cf0, center, 0b0, 0, 0, 0, 0, 0\n"
   "st_tile r8l_r8h_r9l_r9h, u8norm, 0, xyzw, 0, 255, 0\nstop\n",
   "iter r8l_r8h_r9l_r9h, cf0, center, 0b0, 0, 0, 0, 0, 0\n"
   "st_tile r8l_r8h_r9l_r9h, srgba8, 0, xyzw, 0, 255, 0\nstop\n",
   "iter r4_r5_r6_r7, cf0, center, 0b0, 0, 0, 0, 0, 0\n"
   "st_tile r4_r5_r6_r7, srgba8, 0, xyzw, 0, 255, 0\nstop\n",
   "wait_pix 1, 0\n"
   "ld_tile r12l_r12h_r13l_r13h, srgba8, 0, xyzw, 0, 255, 0\n"
   "xor r12, r12, r13\n"
   "st_tile r12, i32, 0, x, 0, 255, 0\nsignal_pix 1, 0\nstop\n",
   "wait_pix 1, 0\n"
   "ld_tile r12_r13_r14_r15, srgba8, 0, xyzw, 0, 255, 0\n"
   "xor r12, r12, r13\nxor r12, r12, r14\nxor r12, r12, r15\n"
   "st_tile r12, i32, 0, x, 0, 255, 0\nsignal_pix 1, 0\nstop\n",
   "wait_pix 1, 0\n"
   "ld_tile r12_r13_r14_r15, u8norm, 0, xyzw, 0, 255, 0\n"
   "xor r12, r12, r13\nxor r12, r12, r14\nxor r12, r12, r15\n"
   "st_tile r12, i32, 0, x, 0, 255, 0\nsignal_pix 1, 0\nstop\n",
   "iter r4_r5_r6_r7, cf0, center, 0b0, 0, 0, 0, 0, 0\n"
   "st_tile r4_r5_r6_r7, u8norm, 0, xyzw, 0, 2, 0\nstop\n",
   "iter r4_r5_r6_r7, cf0, center, 0b0, 0, 0, 0, 0, 0\n"
   "st_tile r4_r5, u8norm, 0, yz, 0, 255, 0\nstop\n",
   /* Some lanes off (the _lanes forms): a store and loads run by the odd
    * lanes only (a divergent if), and loads whose sample mask (S, a
    * register) selects sample 0 in odd lanes only: the other lanes keep
    * their registers' earlier values, which the final store writes. */
   "iter r4_r5_r6_r7, cf0, center, 0b0, 0, 0, 0, 0, 0\n"
   "get_sr r2, sr52\nand r9, r2, 1\n"
   "if_icmp r0l, ueq, r9, 1, 1\n"
   "st_tile r4_r5_r6_r7, u8norm, 0, xyzw, 0, 255, 0\n"
   "pop_exec r0l, 1\nstop\n",
   "get_sr r2, sr52\nand r9, r2, 1\n"
   "mov_imm r12, 12345, 0b0\nmov_imm r13, 54321, 0b0\n"
   "mov_imm r14, 777, 0b0\nmov_imm r15, 99, 0b0\n"
   "wait_pix 1, 0\n"
   "if_icmp r0l, ueq, r9, 1, 1\n"
   "ld_tile r12_r13_r14_r15, u8norm, 0, xyzw, 0, 255, 0\n"
   "pop_exec r0l, 1\n"
   "xor r12, r12, r13\nxor r12, r12, r14\nxor r12, r12, r15\n"
   "st_tile r12, i32, 0, x, 0, 255, 0\nsignal_pix 1, 0\nstop\n",
   "get_sr r2, sr52\nand r9, r2, 1\n"
   "mov_imm r12, 12345, 0b0\nmov_imm r13, 54321, 0b0\n"
   "mov_imm r14, 777, 0b0\nmov_imm r15, 99, 0b0\n"
   "wait_pix 1, 0\n"
   "ld_tile r12_r13_r14_r15, srgba8, 0, xyzw, 0, r9l, 0\n"
   "xor r12, r12, r13\nxor r12, r12, r14\nxor r12, r12, r15\n"
   "st_tile r12, i32, 0, x, 0, 255, 0\nsignal_pix 1, 0\nstop\n",
   "get_sr r2, sr52\nand r9, r2, 1\n"
   "mov_imm r12, 12345, 0b0\nmov_imm r13, 54321, 0b0\n"
   "wait_pix 1, 0\n"
   "ld_tile r12l_r12h_r13l_r13h, u8norm, 0, xyzw, 0, r9l, 0\n"
   "xor r12, r12, r13\n"
   "st_tile r12, i32, 0, x, 0, 255, 0\nsignal_pix 1, 0\nstop\n",
};

static void
render_px8(const char *fs, unsigned samples, bool reference, uint32_t *img,
           uint64_t *cycles)
{
   const unsigned W = 40, H = 20;
   struct scene s;
   scene_init(&s, W, H, samples, BLACK, 2, 1 << 20);
   uint32_t seed = 777;
   for (unsigned d = 0; d < 8; d++) {
      struct vtx v[6];
      unsigned nv = d < 2 ? 6 : 3;
      float c[4][4];
      for (unsigned i = 0; i < 4; i++) {
         for (unsigned k = 0; k < 4; k++) {
            seed = seed * 1103515245u + 12345u;
            c[i][k] = (float)(seed >> 8 & 0xffff) / 65535.0f;
         }
         seed = seed * 1103515245u + 12345u;
         float x = (float)(seed >> 8 & 0xffff) / 32768.0f - 1.0f;
         seed = seed * 1103515245u + 12345u;
         float y = (float)(seed >> 8 & 0xffff) / 32768.0f - 1.0f;
         if (i < 3)
            set_vtx(&v[i], x * 1.3f, y * 1.3f, 0.5f, c[i]);
      }
      if (d < 2)   /* the whole target, the corners randomly coloured */
         target_quad(v, c[0], c[1], c[2], c[3]);
      draw_in_order(&s, d == 0 ? fs_src : fs, v, nv);
   }
   run_frag_scene(&s, reference, img, cycles);
}

static void
test_frag_fast_paths_exact(void **state)
{
   (void)state;
   enum { N = 40 * 20 * 4 };
   static uint32_t fast[N], ref[N];
   for (unsigned samples = 1; samples <= 4; samples *= 2) {
      uint64_t cf, cr;
      render_fast_ref(samples, false, fast, &cf);
      render_fast_ref(samples, true, ref, &cr);
      unsigned n = 40 * 20 * samples, distinct = 0;
      assert_int_equal(count_diff(fast, ref, n), 0);
      assert_int_equal(cf, cr);
      for (unsigned i = 1; i < n; i++)
         distinct += fast[i] != fast[i - 1];
      assert_true(distinct > n / 4);   /* the draws wrote varied bits */
      for (unsigned i = 0; i < sizeof(px8_fs) / sizeof(px8_fs[0]); i++) {
         render_px8(px8_fs[i], samples, false, fast, &cf);
         render_px8(px8_fs[i], samples, true, ref, &cr);
         if (count_diff(fast, ref, n))
            fail_msg("px8 shader %u, %u samples: %u pixels differ", i, samples,
                     count_diff(fast, ref, n));
         assert_int_equal(cf, cr);
         distinct = 0;
         for (unsigned p = 1; p < n; p++)
            distinct += fast[p] != fast[p - 1];
         assert_true(distinct > n / 4);
      }
   }
}

/* A fragment shader with scratch (Mesa: stack_adjust by the scratch size
 * + 40 bytes, then stack_store/stack_load at byte offsets) gets a stack
 * of that size per thread: the colour goes through it unchanged. */
static const char *const fs_stack_src =
   "stack_adjust 12\n"
   "iter r4_r5_r6_r7, cf0, center, 0b0, 0, 0, 0, 0, 0\n"
   "stack_store i32, 0, 0, xyzw, 0, r4_r5_r6_r7, 16, 0\n"
   "mov_imm r4, 0, 0b0\n"
   "mov_imm r5, 0, 0b0\n"
   "stack_load r8_r9_r10_r11, i32, 0, 0, xyzw, 0, 16, 0\n"
   "wait 0\n"
   "st_tile r8_r9_r10_r11, u8norm, 0, xyzw, 0, 255, 0\n"
   "stop\n";

static void
test_fragment_stack(void **state)
{
   (void)state;
   struct scene s;
   scene_init(&s, 64, 64, 1, BLACK, 2, 1 << 20);
   struct draw_state ds = flat();
   ds.fs = fs_stack_src;
   solid_quad(&s, &ds, -1, -1, 1, 1, 0.5f, c_green);
   assert_true(run(&s));
   for (unsigned i = 0; i < 64 * 64; i++)
      if (s.rt[i] != GREEN)
         fail_msg("pixel %u: %08x", i, s.rt[i]);
   scene_teardown(&s);
}

/* ------------------------------------------------- ISP triangle fast path */

/* What a render leaves behind, for comparing two runs (a fast path and
 * its reference) bit for bit. */
struct render_result {
   uint32_t *img;                 /* npx colour words */
   uint32_t *z;                   /* nz depth words */
   uint8_t *s;                    /* ns stencil bytes (NULL: none) */
   size_t npx, nz, ns;
   struct hw_render_stats stats;
   uint64_t ticks;                /* the fragment side's modelled time */
   uint64_t total[HW_PROF_NUM];   /* profile counters summed over passes (or 0) */
};

/* Takes s's colours (npx words), statistics and fragment time into out,
 * allocating nz depth words and ns stencil bytes for the caller to fill. */
static void
render_result_take(struct render_result *out, struct scene *s, size_t npx, size_t nz,
                   size_t ns)
{
   out->npx = npx;
   out->nz = nz;
   out->ns = ns;
   out->img = malloc(npx * 4);
   out->z = malloc(nz * 4);
   out->s = ns ? malloc(ns) : NULL;
   assert_true(out->img && out->z && (out->s || !ns));
   memcpy(out->img, s->rt, npx * 4);
   out->stats = s->stats;
   out->ticks = s->ts_f[1] - s->ts_f[0];
}

/* a and b left the same colours, depth and stencil bits, statistics,
 * modelled time and profile counters. */
static void
render_results_equal(const struct render_result *a, const struct render_result *b,
                     const char *what)
{
   assert_int_equal(a->npx, b->npx);
   assert_int_equal(a->nz, b->nz);
   assert_int_equal(a->ns, b->ns);
   if (count_diff(a->img, b->img, (unsigned)a->npx))
      fail_msg("%s: colours differ", what);
   for (size_t i = 0; i < a->nz; i++)
      if (a->z[i] != b->z[i])
         fail_msg("%s: depth %zu: %08x vs %08x", what, i, a->z[i], b->z[i]);
   if (a->ns)
      assert_memory_equal(a->s, b->s, a->ns);
   assert_memory_equal(&a->stats, &b->stats, sizeof(a->stats));
   assert_int_equal(a->ticks, b->ticks);
   for (unsigned k = 0; k < HW_PROF_NUM; k++)
      if (a->total[k] != b->total[k])
         fail_msg("%s: counter %s: %llu vs %llu", what, hw_prof_counter_name(k),
                  (unsigned long long)a->total[k], (unsigned long long)b->total[k]);
}

static void
render_result_free(struct render_result *r)
{
   free(r->img);
   free(r->z);
   free(r->s);
}

/* A scene rendered with parameter p through a fast path, or its
 * reference. */
typedef void render_fn(unsigned p, bool reference, struct render_result *out);

/* Renders both ways and requires identical results (what: the label of
 * a failure); both are left in fast and ref for the caller's checks of
 * what the scene exercised, and to free. */
static void
render_fast_and_reference(render_fn *render, unsigned p, const char *what,
                          struct render_result *fast, struct render_result *ref)
{
   render(p, false, fast);
   render(p, true, ref);
   render_results_equal(fast, ref, what);
}

/* The random scenes' generator: the next value in [0, 1). */
static float
rnd_unit(uint32_t *seed)
{
   *seed = *seed * 1103515245u + 12345u;
   return (float)(*seed >> 8 & 0xffff) / 65536.0f;
}

/* A random triangle: centred anywhere in the target, corners within size
 * of the centre, each at depth z0 + [0, 1) * zspan with a random colour
 * and alpha a. */
static void
rnd_triangle(uint32_t *seed, float size, float z0, float zspan, float a, struct vtx v[3])
{
   float cx = rnd_unit(seed) * 2 - 1;
   float cy = rnd_unit(seed) * 2 - 1;
   for (unsigned k = 0; k < 3; k++) {
      float x = cx + (rnd_unit(seed) - 0.5f) * size;
      float y = cy + (rnd_unit(seed) - 0.5f) * size;
      float z = rnd_unit(seed) * zspan + z0;
      float r = rnd_unit(seed), g = rnd_unit(seed), b = rnd_unit(seed);
      v[k] = (struct vtx){ x, y, z, 1, r, g, b, a };
   }
}

static void
isp_prof_sum(void *user, const struct hw_prof_pass *pass)
{
   uint64_t *total = user;
   for (unsigned k = 0; k < HW_PROF_NUM; k++)
      total[k] += pass->total[k];
}

/*
 * Random triangles, large and small, with slanted depth planes reaching
 * outside [0, 1] (no depth clip: the ISP clamps), every depth function,
 * depth writes on and off, depth bias, deferred opaque, blended, a
 * shader that writes depth (late test), and triangles drawn again at
 * the depths they left (equal compares): rendered through the ISP's
 * triangle fast path, or with hwr_isp_general through the general loop.
 */
static void
isp_render(unsigned samples, bool general, struct render_result *out)
{
   const unsigned W = 96, H = 64;
   hwr_isp_general = general;
   struct scene s;
   scene_init(&s, W, H, samples, 0xff202020u, 2, 1 << 20);
   memset(out, 0, sizeof(*out));
   hw_render_set_profiler(s.r, isp_prof_sum, out->total);
   s.want_depth = true;
   s.zls = zls_word(true, false, AGX_ZLS_FORMAT_32F);
   uint8_t db[AGX_DEPTH_BIAS_LENGTH * 2];
   memset(db, 0, sizeof(db));
   agx_pack(db + AGX_DEPTH_BIAS_LENGTH, DEPTH_BIAS, d) {
      d.bias = 0.01f; d.slope_scale = 1.5f; d.clamp = 0;
   }
   s.dbias_va = scene_put(&s, db, sizeof(db), 64);
   uint32_t seed = 777;
   for (unsigned d = 0; d < 40; d++) {
      struct draw_state ds = default_state;
      ds.zfunc = (enum agx_zs_func)(d % 8);
      ds.zwrite = d % 16 < 8 || d % 8 == 7;
      ds.no_depth_clip = true;
      ds.dbias = d % 5 == 0;
      ds.dbias_idx = 1;
      if (d % 3 == 0) {
         ds.pass = AGX_PASS_TYPE_TRANSLUCENT;
         ds.fs = fs_blend_src;
      } else if (d == 31) {
         ds.pass = AGX_PASS_TYPE_PUNCH_THROUGH;
         ds.fs = FS_ZS_EMIT("1056964608");        /* depth 0.5 */
      } else {
         ds.fs = fs_src;
      }
      static struct vtx v[12 * 3];
      /* every fourth draw repeats the triangles before it: the same
       * depths, so that the functions' equal cases decide */
      for (unsigned i = 0; i < 12 && d % 4 != 2; i++)
         rnd_triangle(&seed, i % 4 == 0 ? 1.5f : i % 4 == 1 ? 0.4f : 0.08f, -0.3f, 1.6f,
                      0.75f, &v[3 * i]);
      emit_state(&s, &ds, vs_src, v, sizeof(v));
      emit_draw(&s, AGX_PRIMITIVE_TRIANGLES, NULL, 0, 12 * 3, 1, false);
   }
   assert_true(run(&s));
   hwr_isp_general = false;
   size_t n = (size_t)W * H * samples;
   render_result_take(out, &s, n, n, 0);
   const uint32_t *zb = host(&s, s.zbuf_va);
   for (unsigned y = 0; y < H; y++)
      for (unsigned x = 0; x < W; x++)
         for (unsigned k = 0; k < samples; k++)
            out->z[((size_t)y * W + x) * samples + k] = zb[scene_zs_texel(&s, x, y, 4) + k];
   scene_teardown(&s);
}

/* The fast path leaves exactly what the general loop does: colours,
 * depth bits, statistics, modelled time and every profile counter. */
static void
test_isp_fast_path(void **state)
{
   (void)state;
   for (unsigned samples = 1; samples <= 4; samples *= 4) {
      struct render_result fast, gen;
      char what[32];
      snprintf(what, sizeof(what), "%ux", samples);
      render_fast_and_reference(isp_render, samples, what, &fast, &gen);
      size_t n = (size_t)96 * 64 * samples;
      /* the scene exercises what it should: tests failing and passing,
       * deferred samples, clamped depth at both ends */
      assert_true(gen.total[HW_PROF_SAMPLES_ZS_FAIL] > 0);
      assert_true(gen.total[HW_PROF_SAMPLES_PASSED] > 0);
      assert_true(gen.total[HW_PROF_SAMPLES_HSR_HIDDEN] > 0);
      bool z0 = false, z1 = false;
      for (size_t i = 0; i < n; i++) {
         z0 |= gen.z[i] == 0;
         z1 |= gen.z[i] == 0x3f800000u;
      }
      assert_true(z0 && z1);
      render_result_free(&fast);
      render_result_free(&gen);
   }
}

/*
 * The loops with an AVX2 copy (op_iter, isp_group_tri: HWR_AVX2_COPIES)
 * give the bits of their baseline copy, which hosts without AVX2 run:
 * the fragment hooks' scene (every iter/iterproj form, raw bits dumped)
 * and the ISP's (every depth function, bias, clamping, deferred and
 * late tests) rendered with each copy must be identical. Without AVX2
 * on the host both runs take the baseline copy (said, not skipped: the
 * baseline is then what runs).
 */
/* The features the model reads from glibc (tessera/host_cpu.h, no CPUID
 * constructor) are the compiler's answer, which this test links; the
 * render path's switch was set from them at load. */
static void
test_host_cpu_features(void **state)
{
   (void)state;
#if defined(__x86_64__) && defined(__GNUC__)
   __builtin_cpu_init();
   assert_int_equal(tessera_host_avx2(), __builtin_cpu_supports("avx2") != 0);
   assert_int_equal(tessera_host_fma(), __builtin_cpu_supports("fma") != 0);
   assert_int_equal(hwr_host_avx2, tessera_host_avx2());
#else
   print_message("not x86-64: no AVX2/FMA paths\n");
#endif
}

static void
test_host_avx2_copies(void **state)
{
   (void)state;
   const bool avx2 = hwr_host_avx2;
   if (!avx2)
      print_message("host without AVX2: the baseline copies only\n");
   enum { N = 40 * 20 * 4 };
   static uint32_t a[N], b[N];
   for (unsigned samples = 1; samples <= 4; samples *= 2) {
      uint64_t ca, cb;
      render_fast_ref(samples, false, a, &ca);
      hwr_host_avx2 = false;
      render_fast_ref(samples, false, b, &cb);
      hwr_host_avx2 = avx2;
      unsigned n = 40 * 20 * samples, distinct = 0;
      if (count_diff(a, b, n))
         fail_msg("op_iter, %u samples: %u pixels differ", samples, count_diff(a, b, n));
      assert_int_equal(ca, cb);
      for (unsigned i = 1; i < n; i++)
         distinct += a[i] != a[i - 1];
      assert_true(distinct > n / 4);
   }
   for (unsigned samples = 1; samples <= 4; samples *= 4) {
      struct render_result x, y;
      isp_render(samples, false, &x);
      hwr_host_avx2 = false;
      isp_render(samples, false, &y);
      hwr_host_avx2 = avx2;
      char what[32];
      snprintf(what, sizeof(what), "isp_group_tri, %ux", samples);
      render_results_equal(&x, &y, what);
      render_result_free(&x);
      render_result_free(&y);
   }
}

#define ZLS_EDGE 0x100

/*
 * Depth and stencil stores and loads by 4x4 Morton blocks
 * (zls_permute_blocks) against the per-pair permutation (the reference,
 * hw_render_frag_reference): a scene whose TVB overflows, so that partial
 * renders store Z32F depth and S8 stencil and reload them, with depth
 * tests and stencil increments over many small triangles, for 32x32 and
 * 16x16 tiles. Both must leave the same colours, depth and stencil bytes,
 * statistics and time.
 */
static void
zls_blocks_render(unsigned arg, bool reference, struct render_result *out)
{
   /* arg: the tile size, + ZLS_EDGE for a target that ends inside a
    * tile on both axes (edge utiles: zls_buffer's cut-utile path) */
   const unsigned tile = arg & 0xff;
   const bool edge = arg & ZLS_EDGE;
   const unsigned W = edge ? 88 : 96, H = edge ? 52 : 64;
   hw_render_frag_reference = reference;
   struct scene s;
   scene_init(&s, W, H, 1, 0xff102030u, 2, 96 * 1024);
   s.utile_w = s.utile_h = tile;
   s.want_depth = s.want_stencil = true;
   s.zls = zls_word(true, true, AGX_ZLS_FORMAT_32F);
   uint32_t seed = 4242;
   for (unsigned d = 0; d < 24; d++) {
      struct draw_state ds = default_state;
      ds.zfunc = d % 3 ? AGX_ZS_FUNC_LESS : AGX_ZS_FUNC_GEQUAL;
      ds.zwrite = true;
      ds.stencil = true;
      ds.scmp = AGX_ZS_FUNC_ALWAYS;
      ds.spass = AGX_STENCIL_OP_INCR_WRAP;
      ds.szfail = AGX_STENCIL_OP_INVERT;
      ds.fs = fs_src;
      struct vtx v[40 * 3];
      for (unsigned i = 0; i < 40; i++)
         rnd_triangle(&seed, i % 5 == 0 ? 1.2f : 0.15f, 0, 1, 1, &v[3 * i]);
      emit_state(&s, &ds, vs_src, v, sizeof(v));
      emit_draw(&s, AGX_PRIMITIVE_TRIANGLES, NULL, 0, 40 * 3, 1, false);
   }
   bool ok = run(&s);
   hw_render_frag_reference = false;
   assert_true(ok);
   struct hw_tex_layout zl, sl;
   assert_true(hw_tex_layout_twiddled(&zl, 4, W, H, 1, 1, false));
   assert_true(hw_tex_layout_twiddled(&sl, 1, W, H, 1, 1, false));
   memset(out, 0, sizeof(*out));
   render_result_take(out, &s, (size_t)W * H, zl.size / 4, sl.size);
   memcpy(out->z, host(&s, s.zbuf_va), zl.size);
   memcpy(out->s, host(&s, s.sbuf_va), sl.size);
   scene_teardown(&s);
}

static void
test_zls_blocks_exact(void **state)
{
   (void)state;
   for (unsigned k = 0; k < 4; k++) {
      const unsigned tile = k & 1 ? 32 : 16, edge = k & 2 ? ZLS_EDGE : 0;
      struct render_result fast, ref;
      char what[48];
      snprintf(what, sizeof(what), "%ux%u tiles%s", tile, tile, edge ? ", edge utiles" : "");
      render_fast_and_reference(zls_blocks_render, tile | edge, what, &fast, &ref);
      print_message("%s: %llu partial renders\n", what,
                    (unsigned long long)ref.stats.partial_renders);
      assert_true(ref.stats.partial_renders > 0);
      /* the scene exercises the stencil: some increments, some inverts */
      unsigned inc = 0, big = 0;
      for (size_t i = 0; i < ref.ns; i++) {
         inc += ref.s[i] > 0 && ref.s[i] < 16;
         big += ref.s[i] > 128;
      }
      assert_true(inc > 0 && big > 0);
      render_result_free(&fast);
      render_result_free(&ref);
   }
}

int
main(void)
{
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_hsr_opaque_overdraw),
      cmocka_unit_test(test_hsr_mixed_equals_in_order),
      cmocka_unit_test(test_hsr_resolve_bytes_changed),
      cmocka_unit_test(test_helper_lanes_store_nothing),
      cmocka_unit_test(test_occlusion_query),
      cmocka_unit_test(test_scissor_region_clip),
      cmocka_unit_test(test_depth_bias),
      cmocka_unit_test(test_z16_bg_depth),
      cmocka_unit_test(test_two_sided_stencil),
      cmocka_unit_test(test_zls_edge_tiles),
      cmocka_unit_test(test_isp_fast_path),
      cmocka_unit_test(test_host_cpu_features),
      cmocka_unit_test(test_host_avx2_copies),
      cmocka_unit_test(test_depth_clamp),
      cmocka_unit_test(test_indirect_draw),
      cmocka_unit_test(test_large_points),
      cmocka_unit_test(test_clip_plane),
      cmocka_unit_test(test_msaa_2x),
      cmocka_unit_test(test_layered),
      cmocka_unit_test(test_tile_sizes),
      cmocka_unit_test(test_bg_invariant_copy),
      cmocka_unit_test(test_bg_reload_fast_exact),
      cmocka_unit_test(test_bg_reload_fault),
      cmocka_unit_test(test_zs_emit_depth),
      cmocka_unit_test(test_zs_emit_stencil),
      cmocka_unit_test(test_flat_clipped),
      cmocka_unit_test(test_polygon_mode),
      cmocka_unit_test(test_strip_fan_provoking),
      cmocka_unit_test(test_flat_line_last),
      cmocka_unit_test(test_fragment_stack),
      cmocka_unit_test(test_ldcf_bin_relative),
      cmocka_unit_test(test_iter_sample_register),
      cmocka_unit_test(test_frag_fast_paths_exact),
      cmocka_unit_test(test_zls_blocks_exact),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}

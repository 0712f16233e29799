/* SPDX-License-Identifier: MIT */
/*
 * The rendering model driven through the firmware interface: streams,
 * PPP records, USC words and shaders are written into model memory, a
 * Run Vertex and a Run Fragment job (waiting on the vertex stamp) are
 * submitted, and the render target is compared with a reference
 * rasteriser written here (same 1/256-pixel snapping, pixel-centre
 * sampling and top-left rule, but barycentric colour arithmetic in
 * double instead of plane equations, hence a 1 LSB tolerance where
 * colours are interpolated).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/resource.h>

#include <cmocka.h>

#include "hw/render/hw_render_priv.h"
#include "hw/tex/hw_tex.h"
#include "test_hw_render_scene.h"

/* ------------------------------------------------------------ oracle */


struct ref {
   unsigned w, h;
   uint32_t *img;
   float *z;
};

static int64_t
snap256(double v)
{
   return (int64_t)llrintf((float)(roundf((float)v * 256.0f) / 256.0f) * 256.0f);
}

static uint8_t
unorm8(double v)
{
   v = v < 0 ? 0 : v > 1 ? 1 : v;
   return (uint8_t)lrint(v * 255.0);
}

/* Reference: window transform like the PPP viewport, top-left rule. */
static void
ref_tri(struct ref *r, const struct vtx *v0, const struct vtx *v1,
        const struct vtx *v2, enum agx_zs_func zf, bool zwrite, bool flat,
        bool blend)
{
   const struct vtx *v[3] = { v0, v1, v2 };
   int64_t X[3], Y[3];
   double Z[3];
   for (unsigned i = 0; i < 3; i++) {
      float xw = r->w / 2.0f + (r->w / 2.0f) * (v[i]->x / v[i]->w);
      float yw = r->h / 2.0f + -(r->h / 2.0f) * (v[i]->y / v[i]->w);
      X[i] = snap256(xw);
      Y[i] = snap256(yw);
      Z[i] = v[i]->z / v[i]->w;
   }
   int64_t area = (X[1] - X[0]) * (Y[2] - Y[0]) - (X[2] - X[0]) * (Y[1] - Y[0]);
   if (area == 0)
      return;
   for (unsigned py = 0; py < r->h; py++) {
      for (unsigned px = 0; px < r->w; px++) {
         int64_t sx = (int64_t)px * 256 + 128, sy = (int64_t)py * 256 + 128;
         double bary[3];
         bool in = true;
         for (unsigned e = 0; e < 3 && in; e++) {
            unsigned a = (e + 1) % 3, b = (e + 2) % 3;   /* edge opposite e */
            if (area < 0) { unsigned tmp = a; a = b; b = tmp; }
            int64_t dx = X[b] - X[a], dy = Y[b] - Y[a];
            int64_t E = dx * (sy - Y[a]) - dy * (sx - X[a]);
            bool tl = dy < 0 || (dy == 0 && dx > 0);
            if (E < 0 || (E == 0 && !tl))
               in = false;
            bary[e] = (double)E / (double)(area < 0 ? -area : area);
         }
         if (!in)
            continue;
         double z = bary[0] * Z[0] + bary[1] * Z[1] + bary[2] * Z[2];
         float zf32 = fminf(fmaxf((float)z, 0.0f), 1.0f);
         float *zb = &r->z[py * r->w + px];
         bool pass;
         switch (zf) {
         case AGX_ZS_FUNC_LESS: pass = zf32 < *zb; break;
         case AGX_ZS_FUNC_LEQUAL: pass = zf32 <= *zb; break;
         case AGX_ZS_FUNC_GREATER: pass = zf32 > *zb; break;
         default: pass = true; break;
         }
         if (!pass)
            continue;
         if (zwrite)
            *zb = zf32;
         double c[4];
         for (unsigned k = 0; k < 4; k++) {
            const float *a0 = &v[0]->r, *a1 = &v[1]->r, *a2 = &v[2]->r;
            c[k] = flat ? a0[k] : bary[0] * a0[k] + bary[1] * a1[k] + bary[2] * a2[k];
         }
         uint32_t *d = &r->img[py * r->w + px];
         if (blend) {
            double al = c[3];
            for (unsigned k = 0; k < 4; k++) {
               double dst = (*d >> (8 * k) & 0xff) / 255.0;
               c[k] = c[k] * al + dst * (1.0 - al);
            }
         }
         *d = (uint32_t)unorm8(c[0]) | (uint32_t)unorm8(c[1]) << 8 |
              (uint32_t)unorm8(c[2]) << 16 | (uint32_t)unorm8(c[3]) << 24;
      }
   }
}

static void
ref_init(struct ref *r, unsigned w, unsigned h, uint32_t clear)
{
   r->w = w;
   r->h = h;
   r->img = malloc((size_t)w * h * 4);
   r->z = malloc((size_t)w * h * 4);
   for (unsigned i = 0; i < w * h; i++) {
      r->img[i] = clear;
      r->z[i] = 1.0f;
   }
}

static void
ref_free(struct ref *r)
{
   free(r->img);
   free(r->z);
}

/* Compares per channel within tol; prints the first mismatch. */
static void
compare(const uint32_t *got, const uint32_t *want, unsigned w, unsigned h,
        unsigned tol)
{
   unsigned bad = 0;
   for (unsigned i = 0; i < w * h; i++) {
      for (unsigned k = 0; k < 4; k++) {
         int a = got[i] >> (8 * k) & 0xff, b = want[i] >> (8 * k) & 0xff;
         if (abs(a - b) > (int)tol) {
            if (!bad)
               print_message("pixel (%u,%u): got %08x want %08x\n", i % w, i / w,
                             got[i], want[i]);
            bad++;
            break;
         }
      }
   }
   assert_int_equal(bad, 0);
}

/* ------------------------------------------------------------ tests */


static void
test_clear_only(void **state)
{
   (void)state;
   struct scene s;
   scene_init(&s, 80, 48, 1, 0xff336699u, 2, 64 * 1024);
   assert_true(run(&s));
   for (unsigned i = 0; i < 80 * 48; i++)
      assert_int_equal(s.rt[i], 0xff336699u);
   assert_int_equal(s.stats.tiles, 3 * 2);
   assert_int_equal(s.stats.primitives, 0);
   assert_true(s.ts_v[1] > s.ts_v[0]);
   assert_true(s.ts_f[0] >= s.ts_v[1]);
   assert_true(s.ts_f[1] > s.ts_f[0]);
   scene_teardown(&s);
}

static void
test_triangle_interpolated(void **state)
{
   (void)state;
   struct scene s;
   scene_init(&s, 64, 64, 1, 0xff000000u, 2, 64 * 1024);
   struct vtx v[3] = {
      { -0.8f, -0.7f, 0.5f, 1, 1, 0, 0, 1 },
      { 0.9f, -0.6f, 0.5f, 1, 0, 1, 0, 1 },
      { -0.1f, 0.85f, 0.5f, 1, 0, 0, 1, 1 },
   };
   emit_state(&s, &default_state, vs_src, v, sizeof(v));
   emit_draw(&s, AGX_PRIMITIVE_TRIANGLES, NULL, 0, 3, 1, false);
   assert_true(run(&s));
   struct ref r;
   ref_init(&r, 64, 64, 0xff000000u);
   ref_tri(&r, &v[0], &v[1], &v[2], AGX_ZS_FUNC_ALWAYS, false, false, false);
   compare(s.rt, r.img, 64, 64, 1);
   /* Some pixels are inside, some are clear colour. */
   unsigned lit = 0;
   for (unsigned i = 0; i < 64 * 64; i++)
      lit += s.rt[i] != 0xff000000u;
   assert_true(lit > 1000 && lit < 3000);
   assert_int_equal(s.stats.primitives, 1);
   ref_free(&r);
   scene_teardown(&s);
}

static void
test_depth_overlap(void **state)
{
   (void)state;
   struct scene s;
   scene_init(&s, 64, 64, 1, 0xff000000u, 2, 64 * 1024);
   s.want_depth = true;
   /* Near red drawn first, then far green: green only where red is not. */
   struct vtx v[6] = {
      { -0.9f, -0.9f, 0.25f, 1, 1, 0, 0, 1 }, { 0.6f, -0.9f, 0.25f, 1, 1, 0, 0, 1 },
      { -0.9f, 0.6f, 0.25f, 1, 1, 0, 0, 1 },
      { -0.5f, -0.5f, 0.75f, 1, 0, 1, 0, 1 }, { 0.95f, -0.4f, 0.75f, 1, 0, 1, 0, 1 },
      { -0.3f, 0.95f, 0.75f, 1, 0, 1, 0, 1 },
   };
   struct draw_state ds = default_state;
   ds.zfunc = AGX_ZS_FUNC_LESS;
   ds.zwrite = true;
   ds.shade = AGX_SHADE_MODEL_FLAT_VERTEX_0;
   emit_state(&s, &ds, vs_src, v, sizeof(v));
   emit_draw(&s, AGX_PRIMITIVE_TRIANGLES, NULL, 0, 6, 1, false);
   assert_true(run(&s));
   struct ref r;
   ref_init(&r, 64, 64, 0xff000000u);
   ref_tri(&r, &v[0], &v[1], &v[2], AGX_ZS_FUNC_LESS, true, true, false);
   ref_tri(&r, &v[3], &v[4], &v[5], AGX_ZS_FUNC_LESS, true, true, false);
   compare(s.rt, r.img, 64, 64, 0);
   ref_free(&r);
   scene_teardown(&s);
}

static void
test_blend_in_shader(void **state)
{
   (void)state;
   struct scene s;
   scene_init(&s, 64, 32, 1, 0xff0000ffu, 2, 64 * 1024);
   struct vtx v[3] = {
      { -1.0f, -1.0f, 0.5f, 1, 0, 1, 0, 0.25f }, { 1.0f, -1.0f, 0.5f, 1, 0, 1, 0, 0.25f },
      { -1.0f, 1.0f, 0.5f, 1, 0, 1, 0, 0.25f },
   };
   struct draw_state ds = default_state;
   ds.fs = fs_blend_src;
   ds.pass = AGX_PASS_TYPE_TRANSLUCENT;
   emit_state(&s, &ds, vs_src, v, sizeof(v));
   emit_draw(&s, AGX_PRIMITIVE_TRIANGLES, NULL, 0, 3, 1, false);
   assert_true(run(&s));
   struct ref r;
   ref_init(&r, 64, 32, 0xff0000ffu);
   ref_tri(&r, &v[0], &v[1], &v[2], AGX_ZS_FUNC_ALWAYS, false, false, true);
   compare(s.rt, r.img, 64, 32, 1);
   ref_free(&r);
   scene_teardown(&s);
}

static void
test_strip_restart_and_instances(void **state)
{
   (void)state;
   struct scene s;
   scene_init(&s, 64, 64, 1, 0xff000000u, 2, 64 * 1024);
   struct vtx v[8] = {
      { -0.9f, -0.9f, 0.5f, 1, 1, 1, 0, 1 }, { -0.9f, -0.5f, 0.5f, 1, 1, 1, 0, 1 },
      { -0.6f, -0.9f, 0.5f, 1, 1, 1, 0, 1 }, { -0.6f, -0.5f, 0.5f, 1, 1, 1, 0, 1 },
      { 0.1f, 0.1f, 0.5f, 1, 0, 1, 1, 1 }, { 0.1f, 0.6f, 0.5f, 1, 0, 1, 1, 1 },
      { 0.4f, 0.1f, 0.5f, 1, 0, 1, 1, 1 }, { 0.4f, 0.6f, 0.5f, 1, 0, 1, 1, 1 },
   };
   uint16_t idx[9] = { 0, 1, 2, 3, 0xffff, 4, 5, 6, 7 };
   struct draw_state ds = default_state;
   ds.shade = AGX_SHADE_MODEL_FLAT_VERTEX_0;
   emit_state(&s, &ds, vs_inst_src, v, sizeof(v));
   emit_draw(&s, AGX_PRIMITIVE_TRIANGLE_STRIP, idx, AGX_INDEX_SIZE_U16, 9, 2, true);
   assert_true(run(&s));
   struct ref r;
   ref_init(&r, 64, 64, 0xff000000u);
   for (unsigned inst = 0; inst < 2; inst++) {
      struct vtx u[8];
      memcpy(u, v, sizeof(u));
      for (unsigned i = 0; i < 8; i++)
         u[i].x += 0.5f * inst;
      for (unsigned base = 0; base < 8; base += 4)
         for (unsigned i = 0; i < 2; i++) {
            unsigned a = base + i + (i & 1), b = base + i + 1 - (i & 1), c = base + i + 2;
            ref_tri(&r, &u[a], &u[b], &u[c], AGX_ZS_FUNC_ALWAYS, false, true, false);
         }
   }
   compare(s.rt, r.img, 64, 64, 0);
   assert_int_equal(s.stats.primitives, 8);
   /* 8 vertices per instance: the restart index is not a vertex and is
    * never shaded (its fetch may lie outside every buffer). */
   assert_int_equal(s.stats.vertices, 16);
   ref_free(&r);
   scene_teardown(&s);
}

static void
test_stencil_mask(void **state)
{
   (void)state;
   struct scene s;
   scene_init(&s, 64, 64, 1, 0xff000000u, 2, 64 * 1024);
   /* Pass 1 writes stencil 1 in a triangle (colour transparent-black over
    * black: invisible); pass 2 draws a full-screen quad where stencil == 1. */
   struct vtx v[9] = {
      { -0.7f, -0.7f, 0.5f, 1, 0, 0, 0, 1 }, { 0.7f, -0.7f, 0.5f, 1, 0, 0, 0, 1 },
      { 0.0f, 0.8f, 0.5f, 1, 0, 0, 0, 1 },
      { -1, -1, 0.5f, 1, 1, 1, 1, 1 }, { 1, -1, 0.5f, 1, 1, 1, 1, 1 }, { -1, 1, 0.5f, 1, 1, 1, 1, 1 },
      { 1, -1, 0.5f, 1, 1, 1, 1, 1 }, { 1, 1, 0.5f, 1, 1, 1, 1, 1 }, { -1, 1, 0.5f, 1, 1, 1, 1, 1 },
   };
   struct draw_state ds = default_state;
   ds.stencil = true;
   ds.scmp = AGX_ZS_FUNC_ALWAYS;
   ds.spass = AGX_STENCIL_OP_REPLACE;
   ds.sref = 1;
   ds.shade = AGX_SHADE_MODEL_FLAT_VERTEX_0;
   emit_state(&s, &ds, vs_src, v, sizeof(v));
   emit_draw(&s, AGX_PRIMITIVE_TRIANGLES, NULL, 0, 3, 1, false);
   ds.scmp = AGX_ZS_FUNC_EQUAL;
   ds.spass = AGX_STENCIL_OP_KEEP;
   emit_state(&s, &ds, vs_src, v, sizeof(v));
   emit_draw(&s, AGX_PRIMITIVE_TRIANGLES, NULL, 0, 9, 1, false);
   assert_true(run(&s));
   struct ref r;
   ref_init(&r, 64, 64, 0xff000000u);
   /* The quad lands exactly on the stencilled pixels: white there. */
   struct ref m;
   ref_init(&m, 64, 64, 0);
   struct vtx w[3];
   memcpy(w, v, sizeof(w));
   for (unsigned i = 0; i < 3; i++) { w[i].r = w[i].g = w[i].b = w[i].a = 1; }
   ref_tri(&m, &w[0], &w[1], &w[2], AGX_ZS_FUNC_ALWAYS, false, true, false);
   for (unsigned i = 0; i < 64 * 64; i++)
      r.img[i] = m.img[i] ? 0xffffffffu : 0xff000000u;
   compare(s.rt, r.img, 64, 64, 0);
   ref_free(&m);
   ref_free(&r);
   scene_teardown(&s);
}

/* 4x MSAA into a 4-sample image: every sample is white exactly when the
 * triangle covers its position (the oracle's own edge functions on the
 * 1/256 grid, standard 4x positions, top-left rule). */
static void
msaa_edge_check(const struct vtx v[3], unsigned min_partial)
{
   static const int sp[4][2] = { { 96, 32 }, { 224, 96 }, { 32, 160 }, { 160, 224 } };
   struct scene s;
   scene_init(&s, 64, 64, 4, 0xff000000u, 2, 64 * 1024);
   struct draw_state ds = default_state;
   ds.shade = AGX_SHADE_MODEL_FLAT_VERTEX_0;
   emit_state(&s, &ds, vs_src, v, 3 * sizeof(v[0]));
   emit_draw(&s, AGX_PRIMITIVE_TRIANGLES, NULL, 0, 3, 1, false);
   assert_true(run(&s));
   int64_t X[3], Y[3];
   for (unsigned i = 0; i < 3; i++) {
      X[i] = snap256(32.0f + 32.0f * v[i].x);
      Y[i] = snap256(32.0f - 32.0f * v[i].y);
   }
   int64_t area = (X[1] - X[0]) * (Y[2] - Y[0]) - (X[2] - X[0]) * (Y[1] - Y[0]);
   unsigned partial = 0;
   uint32_t *want = malloc(64 * 64 * 4 * 4);
   for (unsigned py = 0; py < 64; py++) {
      for (unsigned px = 0; px < 64; px++) {
         unsigned k = 0;
         for (unsigned smp = 0; smp < 4; smp++) {
            int64_t sx = (int64_t)px * 256 + sp[smp][0], sy = (int64_t)py * 256 + sp[smp][1];
            bool in = true;
            for (unsigned e = 0; e < 3 && in; e++) {
               unsigned a = (e + 1) % 3, b = (e + 2) % 3;
               if (area < 0) { unsigned tmp = a; a = b; b = tmp; }
               int64_t dx = X[b] - X[a], dy = Y[b] - Y[a];
               int64_t E = dx * (sy - Y[a]) - dy * (sx - X[a]);
               if (E < 0 || (E == 0 && !(dy < 0 || (dy == 0 && dx > 0))))
                  in = false;
            }
            k += in;
            want[(py * 64 + px) * 4 + smp] = in ? 0xffffffffu : 0xff000000u;
         }
         partial += k > 0 && k < 4;
      }
   }
   assert_true(partial > min_partial);
   compare(s.rt, want, 64 * 4, 64, 0);
   free(want);
   scene_teardown(&s);
}

static void
test_msaa_edge(void **state)
{
   (void)state;
   const struct vtx v[3] = {
      { -0.9f, -0.8f, 0.5f, 1, 1, 1, 1, 1 }, { 0.85f, -0.3f, 0.5f, 1, 1, 1, 1, 1 },
      { -0.2f, 0.9f, 0.5f, 1, 1, 1, 1, 1 },
   };
   msaa_edge_check(v, 20);
   /* A sliver along the diagonal: most 16x2 groups of its rectangle lie
    * outside an edge, which the rasteriser rejects per group. */
   const struct vtx sliver[3] = {
      { -0.95f, -0.9f, 0.5f, 1, 1, 1, 1, 1 }, { 0.9f, 0.95f, 0.5f, 1, 1, 1, 1, 1 },
      { 0.88f, 0.9f, 0.5f, 1, 1, 1, 1, 1 },
   };
   msaa_edge_check(sliver, 20);
}

static void
test_tvb_overflow(void **state)
{
   (void)state;
   const unsigned n = 20000, W = 128, H = 128;
   struct scene big, small;
   scene_init(&big, W, H, 1, 0xff101010u, 2, BIG_TVB);
   many_triangles(&big, n);
   assert_true(run(&big));
   assert_int_equal(big.stats.partial_renders, 0);
   assert_int_equal(big.grow_events, 0);
   assert_int_equal(big.stats.primitives, n);

   scene_init(&small, W, H, 1, 0xff101010u, 2, 256 * 1024);
   many_triangles(&small, n);
   assert_true(run(&small));
   print_message("partial renders: %llu\n", (unsigned long long)small.stats.partial_renders);
   assert_true(small.stats.partial_renders >= 3);
   assert_int_equal(small.grow_events, 1);
   compare(small.rt, big.rt, W, H, 0);
   scene_teardown(&small);
   scene_teardown(&big);
}

/*
 * hwr_snap256's fast path against llroundf (its general path and the
 * reference): halves of both signs at every magnitude up to 2^23, the
 * values next to them, the 2^23 boundary, random bit patterns, zeros,
 * infinities and NaN.
 */
static void
check_snap(float x)
{
   int64_t want = (int64_t)llroundf(x * 256.0f);
   int64_t got = hwr_snap256(x);
   if (got != want)
      fail_msg("hwr_snap256(%a) = %lld, llroundf says %lld", (double)x,
               (long long)got, (long long)want);
}

static void
test_snap256_fast(void **state)
{
   (void)state;
   for (int e = -12; e <= 24; e++) {
      for (int m = 0; m < 64; m++) {
         float h = ldexpf(1.0f, e) * (float)m + 0.5f;     /* k + 1/2 */
         for (int sg = -1; sg <= 1; sg += 2) {
            float y = sg * h;
            float xs[3] = { y, nextafterf(y, INFINITY), nextafterf(y, -INFINITY) };
            for (unsigned i = 0; i < 3; i++)
               check_snap(xs[i] / 256.0f);
         }
      }
   }
   const float big = 8388608.0f / 256.0f;   /* |x * 256| = 2^23 */
   float edge[] = { big, -big, nextafterf(big, 0), -nextafterf(big, 0),
                    nextafterf(big, INFINITY), 0.0f, -0.0f, 1e-45f, -1e-45f,
                    0.5f / 256.0f, -0.5f / 256.0f, 1e30f, -1e30f };
   for (unsigned i = 0; i < sizeof(edge) / sizeof(edge[0]); i++)
      check_snap(edge[i]);
   uint32_t seed = 1;
   for (unsigned i = 0; i < 2000000; i++) {
      seed = seed * 1664525u + 1013904223u;
      float x;
      uint32_t b = seed;
      if (i & 1)   /* window-sized values, where the fast path runs */
         x = (float)(int32_t)(seed >> 6) / 65536.0f;
      else
         memcpy(&x, &b, 4);
      if (isnan(x) || fabsf(x * 256.0f) >= 9.2e18f)
         continue;   /* llroundf's result is unspecified there */
      check_snap(x);
   }
}

/*
 * The render core's fast paths (hwr_fast_paths: emit_prim's trivial
 * accept of the fixed clip planes, load_prim's one read per primitive)
 * against the general paths: the same scene of triangles inside, across
 * and outside the guard band, behind the eye and past the depth planes
 * must give the same image, vertex and fragment cycles and statistics.
 */
static void
clip_mix(struct scene *s, unsigned n)
{
   struct vtx *v = malloc(n * 3 * sizeof(*v));
   uint32_t seed = 777;
   for (unsigned i = 0; i < 3 * n; i++) {
      float r[5];
      for (unsigned k = 0; k < 5; k++) {
         seed = seed * 1103515245u + 12345u;
         r[k] = (float)(seed >> 8 & 0xffff) / 65536.0f;
      }
      /* mostly small triangles on screen, some huge or behind the eye */
      float w = i % 11 == 0 ? r[3] * 2.0f - 0.3f : 0.5f + r[3];
      float span = i % 5 == 0 ? 160.0f : 2.4f;
      struct vtx a = { (r[0] * 2 - 1) * span * w, (r[1] * 2 - 1) * span * w,
                       (r[2] * 1.6f - 0.3f) * w, w, r[4], 1 - r[4], r[2], 1 };
      if (i % 3 && i % 5)   /* the other corners near the first */
         a.x = v[i - i % 3].x + (r[0] - 0.5f) * 0.3f, a.y = v[i - i % 3].y + (r[1] - 0.5f) * 0.3f;
      v[i] = a;
   }
   struct draw_state ds = default_state;
   ds.zfunc = AGX_ZS_FUNC_LEQUAL;
   emit_state(s, &ds, vs_src, v, n * 3 * sizeof(*v));
   emit_draw(s, AGX_PRIMITIVE_TRIANGLES, NULL, 0, n * 3, 1, false);
   free(v);
}

static void
test_fast_paths_match_general(void **state)
{
   (void)state;
   struct scene a, b;
   scene_init(&a, 96, 96, 1, 0xff202020u, 2, 1 << 20);
   clip_mix(&a, 1500);
   assert_true(hwr_fast_paths);
   assert_true(run(&a));
   hwr_fast_paths = false;
   scene_init(&b, 96, 96, 1, 0xff202020u, 2, 1 << 20);
   clip_mix(&b, 1500);
   bool ok = run(&b);
   hwr_fast_paths = true;
   assert_true(ok);
   print_message("primitives %llu clipped %llu culled %llu\n",
                 (unsigned long long)a.stats.primitives,
                 (unsigned long long)a.stats.clipped, (unsigned long long)a.stats.culled);
   assert_true(a.stats.clipped > 50);
   assert_true(a.stats.primitives > 500);
   assert_memory_equal(&a.stats, &b.stats, sizeof(a.stats));
   compare(a.rt, b.rt, 96, 96, 0);
   assert_int_equal(a.ts_v[1] - a.ts_v[0], b.ts_v[1] - b.ts_v[0]);
   assert_int_equal(a.ts_f[1] - a.ts_f[0], b.ts_f[1] - b.ts_f[0]);
   scene_teardown(&b);
   scene_teardown(&a);
}

/*
 * Pipeline loads with a preshader (hwr_pipeline_load, once per tile and
 * state change): the fast paths (each USC word read once; the preshader
 * run through the tile's USC view, its TLB warm across tiles, states and
 * jobs) against the general path (fresh view per load). The preshader
 * copies four words from the memory u0_u1 points at into u8-u11, which
 * the fragment shader writes out; between two jobs of the same stream
 * (same pipelines, same addresses) that memory changes: the second
 * image must show the new colour, and both jobs must match the general
 * path's images, cycles and statistics.
 */
static const char *const pre_colour_src =
   "mov_imm r7, 0, 0b0\n"
   "device_load 0, i32, xyzw, r8_r9_r10_r11, u0_u1, r7, unsigned\n"
   "wait 0\n"
   "uniform_store 0, i32, x, 0, r8, 16\n"
   "uniform_store 0, i32, x, 0, r9, 18\n"
   "uniform_store 0, i32, x, 0, r10, 20\n"
   "uniform_store 0, i32, x, 0, r11, 22\n"
   "stop\n";
static const char *const fs_uni_colour_src =
   "iadd r4, u8, 0\niadd r5, u9, 0\niadd r6, u10, 0\niadd r7, u11, 0\n"
   "st_tile r4_r5_r6_r7, u8norm, 0, xyzw, 0, 255, 0\n"
   "stop\n";

struct pre_run {
   uint32_t img[2][96 * 96];
   uint64_t cycles[2];
   struct hw_render_stats stats[2];
};

static void
preshader_jobs(struct pre_run *out)
{
   struct scene s;
   scene_init(&s, 96, 96, 1, 0xff202020u, 2, 1 << 20);
   static const float red[4] = { 1, 0, 0, 1 }, blue[4] = { 0, 0, 1, 1 },
                      green[4] = { 0, 1, 0, 1 };
   uint64_t col[2] = { scene_put(&s, red, 16, 16), scene_put(&s, blue, 16, 16) };
   struct vtx quad[6] = {
      { -1, 1, 0.5f, 1, 0, 0, 0, 1 }, { 1, 1, 0.5f, 1, 0, 0, 0, 1 },
      { -1, -1, 0.5f, 1, 0, 0, 0, 1 },
      { 1, 1, 0.5f, 1, 0, 0, 0, 1 }, { 1, -1, 0.5f, 1, 0, 0, 0, 1 },
      { -1, -1, 0.5f, 1, 0, 0, 0, 1 },
   };
   struct vtx tri[3] = {
      { -0.2f, 0.9f, 0.5f, 1, 0, 0, 0, 1 }, { 0.9f, -0.9f, 0.5f, 1, 0, 0, 0, 1 },
      { -0.9f, -0.5f, 0.5f, 1, 0, 0, 0, 1 },
   };
   struct vtx small[3] = {
      { -0.9f, 0.9f, 0.5f, 1, 0, 0, 0, 1 }, { 0.3f, 0.8f, 0.5f, 1, 0, 0, 0, 1 },
      { 0.1f, -0.2f, 0.5f, 1, 0, 0, 0, 1 },
   };
   struct draw_state ds = default_state;
   ds.fs = fs_uni_colour_src;
   ds.fs_pre = pre_colour_src;
   /* state A (red memory), B (blue memory), A's colour again in a new
    * pipeline: three states, each loaded in every tile it touches */
   ds.fs_uni = &col[0];
   ds.fs_uni_bytes = 8;
   emit_state(&s, &ds, vs_src, quad, sizeof(quad));
   emit_draw(&s, AGX_PRIMITIVE_TRIANGLES, NULL, 0, 6, 1, false);
   ds.fs_uni = &col[1];
   emit_state(&s, &ds, vs_src, tri, sizeof(tri));
   emit_draw(&s, AGX_PRIMITIVE_TRIANGLES, NULL, 0, 3, 1, false);
   ds.fs_uni = &col[0];
   emit_state(&s, &ds, vs_src, small, sizeof(small));
   emit_draw(&s, AGX_PRIMITIVE_TRIANGLES, NULL, 0, 3, 1, false);
   unsigned stream_len = s.vdm_len;
   for (unsigned k = 0; k < 2; k++) {
      if (k == 1) {
         /* The same stream again (run() appended its terminate word);
          * the memory behind state A's preshader is now green. */
         s.vdm_len = stream_len;
         memcpy(host(&s, col[0]), green, sizeof(green));
      }
      memset(&s.stats, 0, sizeof(s.stats));
      assert_true(run(&s));
      memcpy(out->img[k], s.rt, sizeof(out->img[k]));
      out->cycles[k] = s.ts_f[1] - s.ts_f[0];
      out->stats[k] = s.stats;
   }
   scene_teardown(&s);
}

static void
test_preshader_pipeline_fast_path(void **state)
{
   (void)state;
   static struct pre_run a, b, c;
   assert_true(hwr_fast_paths && hwr_pre_memo);
   uint64_t hits = atomic_load(&hwr_pre_memo_hits);
   preshader_jobs(&a);
   /* The preshader memo (hw_render.c) served loads (a state's later
    * tiles, A's colour again in state C); in the second job the result
    * kept for A read red where memory now holds green, so A ran again
    * (the image below). */
   assert_true(atomic_load(&hwr_pre_memo_hits) > hits);
   hwr_pre_memo = false;
   preshader_jobs(&c);
   hwr_pre_memo = true;
   hwr_fast_paths = false;
   preshader_jobs(&b);
   hwr_fast_paths = true;
   /* (0, 95): only the quad (state A); (48, 60): the blue triangle */
   assert_int_equal(a.img[0][95 * 96 + 0], 0xff0000ffu);
   assert_int_equal(a.img[1][95 * 96 + 0], 0xff00ff00u);
   assert_int_equal(a.img[0][60 * 96 + 48], 0xffff0000u);
   assert_int_equal(a.img[1][60 * 96 + 48], 0xffff0000u);
   for (unsigned k = 0; k < 2; k++) {
      compare(a.img[k], b.img[k], 96, 96, 0);
      compare(a.img[k], c.img[k], 96, 96, 0);
      assert_int_equal(a.cycles[k], b.cycles[k]);
      assert_int_equal(a.cycles[k], c.cycles[k]);
      assert_memory_equal(&a.stats[k], &b.stats[k], sizeof(a.stats[k]));
      assert_memory_equal(&a.stats[k], &c.stats[k], sizeof(a.stats[k]));
   }
}

/*
 * End-of-tile stores of a linear render target: rows whose page the TLB
 * holds are converted straight into it (hw_tex_write_fast_paths), the
 * others staged and copied through hw_mmu_write; the same scene with the
 * staged copy everywhere must leave the same render target and time.
 */
static void
test_eot_rows_fast_path(void **state)
{
   (void)state;
   struct scene a, b;
   scene_init(&a, 200, 120, 1, 0xff203040u, 2, 1 << 20);
   many_triangles(&a, 400);
   assert_true(hw_tex_write_fast_paths);
   assert_true(run(&a));
   hw_tex_write_fast_paths = false;
   scene_init(&b, 200, 120, 1, 0xff203040u, 2, 1 << 20);
   many_triangles(&b, 400);
   bool ok = run(&b);
   hw_tex_write_fast_paths = true;
   assert_true(ok);
   compare(a.rt, b.rt, 200, 120, 0);
   assert_memory_equal(&a.stats, &b.stats, sizeof(a.stats));
   assert_int_equal(a.ts_f[1] - a.ts_f[0], b.ts_f[1] - b.ts_f[0]);
   scene_teardown(&b);
   scene_teardown(&a);
}

static void
test_threads_deterministic(void **state)
{
   (void)state;
   struct scene a, b;
   scene_init(&a, 96, 96, 1, 0xff202020u, 1, 256 * 1024);
   many_triangles(&a, 3000);
   assert_true(run(&a));
   scene_init(&b, 96, 96, 1, 0xff202020u, 4, 256 * 1024);
   many_triangles(&b, 3000);
   assert_true(run(&b));
   assert_true(a.stats.partial_renders > 0);
   compare(a.rt, b.rt, 96, 96, 0);
   assert_int_equal(a.ts_v[1] - a.ts_v[0], b.ts_v[1] - b.ts_v[0]);
   assert_int_equal(a.ts_f[1] - a.ts_f[0], b.ts_f[1] - b.ts_f[0]);
   assert_int_equal(a.ts_f[1], b.ts_f[1]);
   scene_teardown(&b);
   scene_teardown(&a);
}

/* The tile pool (hwr_pool_run): the caller runs items beside threads - 1
 * workers, woken only as many as there are items for.  Every item runs
 * exactly once, with a worker id below the thread count that no two
 * threads use in one dispatch (per-worker state such as the profile's
 * accumulators relies on it), and the caller takes items itself. */
struct pool_probe {
   unsigned threads;
   atomic_uint runs[1000];
   atomic_uintptr_t owner[8];   /* the thread (its pool_token) using the id */
   atomic_uint by_caller, bad_id, shared_id;
   pthread_t caller;
};

static _Thread_local char pool_token;

static void
pool_probe_item(void *ctx, unsigned worker, unsigned item)
{
   struct pool_probe *p = ctx;
   if (worker >= p->threads || worker >= 8) {
      atomic_fetch_add(&p->bad_id, 1);
      return;
   }
   uintptr_t self = (uintptr_t)&pool_token, prev = 0;
   if (!atomic_compare_exchange_strong(&p->owner[worker], &prev, self) && prev != self)
      atomic_fetch_add(&p->shared_id, 1);
   if (pthread_equal(pthread_self(), p->caller))
      atomic_fetch_add(&p->by_caller, 1);
   atomic_fetch_add(&p->runs[item], 1);
   /* a few microseconds, so that woken workers find items left */
   for (volatile unsigned k = 0; k < 2000; k++)
      ;
}

static void
test_pool_items_once(void **state)
{
   (void)state;
   static const unsigned counts[] = { 0, 1, 2, 3, 7, 64, 1000 };
   static struct pool_probe p;
   for (unsigned threads = 1; threads <= 5; threads++) {
      struct scene s;
      scene_init(&s, 16, 16, 1, 0xff000000u, threads, 64 * 1024);
      unsigned caller_items = 0;
      for (unsigned rep = 0; rep < 4; rep++) {
         for (unsigned c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
            unsigned n = counts[c];
            memset(&p, 0, sizeof(p));
            p.threads = threads;
            p.caller = pthread_self();
            hwr_pool_run(s.r, n, pool_probe_item, &p);
            for (unsigned i = 0; i < n; i++)
               if (atomic_load(&p.runs[i]) != 1)
                  fail_msg("%u threads, %u items: item %u ran %u times", threads, n,
                           i, atomic_load(&p.runs[i]));
            assert_int_equal(atomic_load(&p.bad_id), 0);
            if (atomic_load(&p.shared_id))
               fail_msg("%u threads, %u items: two threads used one worker id",
                        threads, n);
            caller_items += atomic_load(&p.by_caller);
         }
      }
      assert_true(caller_items > 0);
      scene_teardown(&s);
   }
}

/*
 * Runs the scene's job and returns the page faults the process took
 * meanwhile (minor faults: fresh anonymous pages being touched).
 */
static long
run_counting_faults(struct scene *s)
{
   struct rusage a, b;
   getrusage(RUSAGE_SELF, &a);
   assert_true(run(s));
   getrusage(RUSAGE_SELF, &b);
   return b.ru_minflt - a.ru_minflt;
}

/*
 * Issue 17: a draw's vertex outputs (then rows of 255 slots, 1 KiB a
 * vertex; now test_vertex_rows_compact) come from memory the renderer
 * keeps. Allocated per draw, every draw of
 * a replay faulted its pages in afresh (glibc maps anything above 32 MiB
 * anew): 98 % of a glmark2 replay's page faults. Eight draws of 40000
 * vertices now fault about one draw's worth.
 */
static void
test_vertex_scratch_kept(void **state)
{
   (void)state;
   const unsigned n = 40000, draws = 8;
   struct scene s;
   scene_init(&s, 64, 64, 1, 0xff000000u, 1, 64 * 1024);
   /* All outside the clip volume: the vertex side's work only. */
   struct vtx *v = calloc(n, sizeof(*v));
   assert_non_null(v);
   for (unsigned i = 0; i < n; i++)
      v[i] = (struct vtx){ 4.0f + (float)(i % 3), 4.0f, 0.5f, 1, 1, 1, 1, 1 };
   emit_state(&s, &default_state, vs_src, v, n * sizeof(*v));
   for (unsigned d = 0; d < draws; d++)
      emit_draw(&s, AGX_PRIMITIVE_TRIANGLES, NULL, 0, n, 1, false);
   long faults = run_counting_faults(&s);
   long per_draw = (long)n * 255 * 4 / 4096;
   /* stderr: the count varies from run to run (tests/gl/usc_native.sh
    * compares the tests' stdout between modes). */
   fprintf(stderr, "%u draws of %u vertices: %ld page faults (one draw's outputs: %ld pages)\n",
           draws, n, faults, per_draw);
   assert_int_equal(s.stats.vertices, (uint64_t)n * draws);
   assert_true(faults < 3 * per_draw);
   free(v);
   scene_teardown(&s);
}

/*
 * Issue 17: a draw's output rows are as wide as its output count (8
 * slots here), not the 255 slots the hardware allows: rows of 255 put a
 * vertex in a quarter of a page, so the first draw of 40000 vertices
 * faulted ~10,000 pages in where compact rows take ~400.
 */
static void
test_vertex_rows_compact(void **state)
{
   (void)state;
   const unsigned n = 40000;
   struct scene s;
   scene_init(&s, 64, 64, 1, 0xff000000u, 1, 64 * 1024);
   struct vtx *v = calloc(n, sizeof(*v));
   assert_non_null(v);
   for (unsigned i = 0; i < n; i++)
      v[i] = (struct vtx){ 4.0f + (float)(i % 3), 4.0f, 0.5f, 1, 1, 1, 1, 1 };
   emit_state(&s, &default_state, vs_src, v, n * sizeof(*v));
   emit_draw(&s, AGX_PRIMITIVE_TRIANGLES, NULL, 0, n, 1, false);
   long faults = run_counting_faults(&s);
   long wide = (long)n * 255 * 4 / 4096;
   fprintf(stderr, "one draw of %u vertices: %ld page faults (rows of 255 slots: %ld pages)\n",
           n, faults, wide);
   assert_int_equal(s.stats.vertices, n);
   assert_true(faults < wide / 4);
   free(v);
   scene_teardown(&s);
}

/*
 * Issue 17: a draw's vertex workgroups run on the render core's pool
 * only when the shader cannot write memory. This one counts its vertices
 * with a device atomic and stores the count it got at its vertex ID: in
 * order (instance after instance, workgroup after workgroup, SIMD groups
 * and lanes in order) vertex i of the last of 4 instances gets 3 N + i,
 * at any thread count. Six workgroups of 1024 on 4 threads (run on the
 * pool without the check, two runs in five went wrong).
 */
static void
test_vertex_atomics_in_order(void **state)
{
   (void)state;
   enum { N = 6000, INST = 4, COUNTER = 8 * N, REC = COUNTER + 1 };
   const char *vs =
      "iadd r7, 0, r5, lsl 3\n"
      "device_load 0, i32, xyzw, r8_r9_r10_r11, u0_u1, r7, unsigned\n"
      "iadd r7, r7, 4\n"
      "device_load 0, i32, xyzw, r12_r13_r14_r15, u0_u1, r7, unsigned\n"
      "wait 0\n"
      "mov_imm r22, 1, 0b0\n"
      "mov_imm r23, 48000, 0b0\n"
      "atomic add, 0, r21, u0_u1, r23, unsigned, r22, 1, 0, 1, 4, 2\n"
      "iadd r24, r5, r23\n"
      "iadd r24, r24, 1\n"
      "device_store 0, i32, x, r21, u0_u1, r24, unsigned, 0\n"
      "st_var 0, r8, 0\nst_var 0, r9, 1\nst_var 0, r10, 2\nst_var 0, r11, 3\n"
      "st_var 0, r12, 4\nst_var 0, r13, 5\nst_var 0, r14, 6\nst_var_final 0, r15, 7\n"
      "stop\n";
   uint32_t *buf = calloc(REC + N, sizeof(uint32_t));
   assert_non_null(buf);
   struct vtx *v = (struct vtx *)buf;
   for (unsigned i = 0; i < N; i++)
      v[i] = (struct vtx){ 4.0f + (float)(i % 3), 4.0f, 0.5f, 1, 1, 1, 1, 1 };
   for (unsigned i = 0; i < N; i++)
      buf[REC + i] = 0xdeadbeef;
   struct scene s;
   scene_init(&s, 64, 64, 1, 0xff000000u, 4, 64 * 1024);
   emit_state(&s, &default_state, vs, buf, (REC + N) * sizeof(uint32_t));
   emit_draw(&s, AGX_PRIMITIVE_TRIANGLES, NULL, 0, N, INST, false);
   assert_true(run(&s));
   const uint32_t *got = host(&s, s.last_vb);
   assert_int_equal(got[COUNTER], INST * N);
   unsigned wrong = 0;
   for (unsigned i = 0; i < N; i++)
      wrong += got[REC + i] != (INST - 1) * N + i;
   assert_int_equal(wrong, 0);
   free(buf);
   scene_teardown(&s);
}

/*
 * Small draws shaded ahead on the pool (hw_render_vtx.c, vs_ahead_scan)
 * against shading each draw where the stream reaches it (hwr_vs_ahead
 * off), at 1 and 4 threads: many draws of a few triangles, some indexed
 * strips with restarts, a TVB small enough for partial renders (which
 * void what was shaded ahead), and in the middle a draw whose vertex
 * shader stores into the vertex buffer of the draw after it (that
 * shader is never shaded ahead, and the next draw must see its stores).
 * Images, TVB, written memory, vertex and fragment cycles and statistics
 * must be identical.  Each draw's vertex pipeline (own VDM State block)
 * is loaded once: by the look-ahead, handed over to the in-order walk
 * (vs_ahead_pipeline), unless a partial render since voided it.
 */
enum { AHEAD_DRAWS = 30, AHEAD_WRITER = 13, AHEAD_GAP = 65536, AHEAD_COUNTER = 32768 };
static uint64_t ahead_writer_vb;

static void
ahead_scene(struct scene *s, unsigned threads, uint32_t tvb_size)
{
   /* The writer: vs_src, and vertex i's x stored over the x of vertex i
    * of the next draw's buffer (AHEAD_GAP bytes after its own), and a
    * counter (AHEAD_COUNTER bytes after it) incremented: run twice, or
    * before the draws ahead of it, it would show. */
   char w_src[1024];
   snprintf(w_src, sizeof(w_src),
            "iadd r7, 0, r5, lsl 3\n"
            "device_load 0, i32, xyzw, r8_r9_r10_r11, u0_u1, r7, unsigned\n"
            "mov_imm r25, %u, 0b0\n"
            "iadd r24, r7, r25\n"
            "iadd r7, r7, 4\n"
            "device_load 0, i32, xyzw, r12_r13_r14_r15, u0_u1, r7, unsigned\n"
            "wait 0\n"
            "device_store 0, i32, x, r8, u0_u1, r24, unsigned, 0\n"
            "mov_imm r22, 1, 0b0\n"
            "mov_imm r23, %u, 0b0\n"
            "atomic add, 0, r21, u0_u1, r23, unsigned, r22, 1, 0, 1, 4, 2\n"
            "st_var 0, r8, 0\nst_var 0, r9, 1\nst_var 0, r10, 2\nst_var 0, r11, 3\n"
            "st_var 0, r12, 4\nst_var 0, r13, 5\nst_var 0, r14, 6\nst_var_final 0, r15, 7\n"
            "stop\n", AHEAD_GAP / 4, AHEAD_COUNTER / 4);
   scene_init(s, 96, 96, 1, 0xff202020u, threads, tvb_size);
   uint32_t seed = 4242;
   uint64_t writer_vb = 0;
   for (unsigned d = 0; d < AHEAD_DRAWS; d++) {
      unsigned ntri = 4 + d % 9;
      struct vtx v[3 * 12];
      memset(v, 0, sizeof(v));
      for (unsigned i = 0; i < ntri; i++) {
         seed = seed * 1103515245u + 12345u;
         float cx = (float)(seed >> 8 & 0xffff) / 65536.0f * 1.8f - 0.9f;
         seed = seed * 1103515245u + 12345u;
         float cy = (float)(seed >> 8 & 0xffff) / 65536.0f * 1.8f - 0.9f;
         float col = (float)((d + i) % 5) / 4.0f;
         struct vtx a = { cx, cy, 0.5f, 1, col, 1 - col, (float)(d % 3) / 2.0f, 1 };
         v[3 * i] = a;
         v[3 * i + 1] = a;
         v[3 * i + 1].x += 0.12f;
         v[3 * i + 2] = a;
         v[3 * i + 2].y += 0.12f;
      }
      if (d == AHEAD_WRITER) {
         emit_state(s, &default_state, w_src, v, sizeof(v));
         writer_vb = ahead_writer_vb = s->last_vb;
         emit_draw(s, AGX_PRIMITIVE_TRIANGLES, NULL, 0, 3 * ntri, 1, false);
         /* the next draw's vertex buffer where the writer stores */
         /* (zeroed: the pages may hold an earlier test's data) */
         uint64_t gap = writer_vb - USC_BASE + AHEAD_GAP;
         assert_true(s->used <= writer_vb - USC_BASE + AHEAD_COUNTER);
         memset(s->mem + s->used, 0, gap - s->used);
         s->used = gap;
         continue;
      }
      emit_state(s, &default_state, vs_src, v, sizeof(v));
      if (d == AHEAD_WRITER + 1)
         assert_int_equal(s->last_vb, writer_vb + AHEAD_GAP);
      if (d % 4 == 1) {
         /* a strip over the first vertices, restarts in between */
         uint16_t idx[3 * 12];
         unsigned n = 0;
         for (unsigned i = 0; i < 3 * ntri && n < 3 * 12; i++)
            idx[n++] = i % 7 == 6 ? 0xffff : (uint16_t)i;
         emit_draw(s, AGX_PRIMITIVE_TRIANGLE_STRIP, idx, AGX_INDEX_SIZE_U16, n, 1, true);
      } else {
         emit_draw(s, AGX_PRIMITIVE_TRIANGLES, NULL, 0, 3 * ntri, 1, false);
      }
   }
   assert_true(run(s));
}

static void
test_vertex_shaded_ahead(void **state)
{
   (void)state;
   struct scene ref, s[2];
   assert_true(hwr_vs_ahead);
   hwr_vs_ahead = false;
   uint64_t used0 = atomic_load(&hwr_vs_ahead_used);
   uint64_t loads0 = atomic_load(&hwr_vs_pipeline_loads);
   ahead_scene(&ref, 1, 12 * 1024);
   hwr_vs_ahead = true;
   assert_int_equal(atomic_load(&hwr_vs_ahead_used), used0);
   /* in order: one load per draw (each has its own VDM State block) */
   assert_int_equal(atomic_load(&hwr_vs_pipeline_loads) - loads0, AHEAD_DRAWS);
   print_message("draws %llu primitives %llu partial renders %llu\n",
                 (unsigned long long)ref.stats.draws,
                 (unsigned long long)ref.stats.primitives,
                 (unsigned long long)ref.stats.partial_renders);
   assert_true(ref.stats.partial_renders > 0);
   const unsigned threads[2] = { 1, 4 };
   for (unsigned k = 0; k < 2; k++) {
      uint64_t u0 = atomic_load(&hwr_vs_ahead_used);
      uint64_t l0 = atomic_load(&hwr_vs_pipeline_loads);
      ahead_scene(&s[k], threads[k], 12 * 1024);
      /* most draws took rows shaded ahead */
      assert_true(atomic_load(&hwr_vs_ahead_used) - u0 > AHEAD_DRAWS / 2);
      /* the partial renders voided pipelines the look-ahead had loaded:
       * the in-order walk loaded those again */
      assert_true(atomic_load(&hwr_vs_pipeline_loads) - l0 > AHEAD_DRAWS);
      assert_memory_equal(&s[k].stats, &ref.stats, sizeof(ref.stats));
      compare(s[k].rt, ref.rt, 96, 96, 0);
      assert_memory_equal(s[k].tvb, ref.tvb, TVB_PAGES * HW_PAGE_SIZE);
      assert_memory_equal(s[k].mem, ref.mem, ref.used);
      assert_int_equal(s[k].ts_v[1] - s[k].ts_v[0], ref.ts_v[1] - ref.ts_v[0]);
      assert_int_equal(s[k].ts_f[1] - s[k].ts_f[0], ref.ts_f[1] - ref.ts_f[0]);
   }
   /* The writer stored its vertices' x over the next draw's (which the
    * comparison above shows was shaded after the stores). */
   const struct vtx *wv = host(&ref, ahead_writer_vb);
   const struct vtx *nv = host(&ref, ahead_writer_vb + AHEAD_GAP);
   assert_true(wv[0].x == nv[0].x && wv[5].x == nv[5].x);
   const uint32_t *counter = host(&ref, ahead_writer_vb + AHEAD_COUNTER);
   assert_int_equal(*counter, 3 * (4 + AHEAD_WRITER % 9));
   for (unsigned k = 0; k < 2; k++)
      scene_teardown(&s[k]);
   scene_teardown(&ref);

   /* Without partial renders every pipeline the look-ahead loaded is
    * handed over: each draw's loaded once, as in order. */
   struct scene big[2];
   for (unsigned k = 0; k < 2; k++) {
      hwr_vs_ahead = k == 1;
      uint64_t u0 = atomic_load(&hwr_vs_ahead_used);
      uint64_t l0 = atomic_load(&hwr_vs_pipeline_loads);
      ahead_scene(&big[k], 4, BIG_TVB);
      assert_int_equal(big[k].stats.partial_renders, 0);
      assert_int_equal(atomic_load(&hwr_vs_pipeline_loads) - l0, AHEAD_DRAWS);
      if (k == 1)
         assert_true(atomic_load(&hwr_vs_ahead_used) - u0 > AHEAD_DRAWS / 2);
   }
   hwr_vs_ahead = true;
   assert_memory_equal(&big[1].stats, &big[0].stats, sizeof(big[0].stats));
   compare(big[1].rt, big[0].rt, 96, 96, 0);
   assert_memory_equal(big[1].mem, big[0].mem, big[0].used);
   assert_int_equal(big[1].ts_v[1] - big[1].ts_v[0], big[0].ts_v[1] - big[0].ts_v[0]);
   assert_int_equal(big[1].ts_f[1] - big[1].ts_f[0], big[0].ts_f[1] - big[0].ts_f[0]);
   for (unsigned k = 0; k < 2; k++)
      scene_teardown(&big[k]);
}

/*
 * A pipeline the look-ahead loaded is not handed over across a partial
 * render (vs_ahead_pipeline): the fragment pass may write what the load
 * read. Every draw's vertex pipeline reads its uniforms (the vertex
 * buffer's address) from one buffer U, which holds vb1 (triangles on
 * screen) until a fragment shader stores vb2 there (triangles wholly
 * off screen, culled). Only partial renders run fragment shaders, so
 * the draws before the first use vb1, the rest vb2; a draw given a
 * pipeline loaded before the partial render would bin vb1's triangles.
 */
static void
ahead_partial_scene(struct scene *s)
{
   enum { NTRI = 12, DRAWS = 24 };
   scene_init(s, 64, 64, 1, 0xff000000u, 1, 12 * 1024);
   struct vtx v1[3 * NTRI], v2[3 * NTRI];
   uint32_t seed = 99;
   for (unsigned i = 0; i < 3 * NTRI; i++) {
      seed = seed * 1103515245u + 12345u;
      float x = (float)(seed >> 8 & 0xffff) / 65536.0f * 1.6f - 0.8f;
      seed = seed * 1103515245u + 12345u;
      float y = (float)(seed >> 8 & 0xffff) / 65536.0f * 1.6f - 0.8f;
      struct vtx a = { x, y, 0.5f, 1, 1, (float)(i % 3) / 2.0f, 0, 1 };
      v1[i] = a;
      v2[i] = a;
      v2[i].x += 4.0f;
   }
   uint64_t vb1 = scene_put(s, v1, sizeof(v1), 16);
   uint64_t vb2 = scene_put(s, v2, sizeof(v2), 16);
   uint64_t ub = scene_put(s, &vb1, sizeof(vb1), 16);
   /* fs_src, then vb2's address stored over U (u0_u1) */
   char fs[512];
   snprintf(fs, sizeof(fs),
            "iter r4_r5_r6_r7, cf0, center, 0b0, 0, 0, 0, 0, 0\n"
            "st_tile r4_r5_r6_r7, u8norm, 0, xyzw, 0, 255, 0\n"
            "mov_imm r8, %u, 0b0\n"
            "mov_imm r9, %u, 0b0\n"
            "mov_imm r10, 0, 0b0\n"
            "device_store 0, i32, xy, r8_r9, u0_u1, r10, unsigned, 0\n"
            "wait 0\n"
            "stop\n", (unsigned)vb2, (unsigned)(vb2 >> 32));
   struct draw_state ds = default_state;
   ds.fs = fs;
   ds.fs_uni = &ub;
   ds.fs_uni_bytes = sizeof(ub);
   ds.vs_ub = ub;
   for (unsigned d = 0; d < DRAWS; d++) {
      emit_state(s, &ds, vs_src, v1, sizeof(v1));
      emit_draw(s, AGX_PRIMITIVE_TRIANGLES, NULL, 0, 3 * NTRI, 1, false);
   }
   assert_true(run(s));
}

static void
test_vertex_ahead_pipeline_partial(void **state)
{
   (void)state;
   struct scene ref, s;
   hwr_vs_ahead = false;
   ahead_partial_scene(&ref);
   hwr_vs_ahead = true;
   uint64_t u0 = atomic_load(&hwr_vs_ahead_used);
   ahead_partial_scene(&s);
   print_message("draws %llu primitives %llu culled %llu partial renders %llu\n",
                 (unsigned long long)ref.stats.draws,
                 (unsigned long long)ref.stats.primitives,
                 (unsigned long long)ref.stats.culled,
                 (unsigned long long)ref.stats.partial_renders);
   /* the scene does what it should: vb1 binned, a partial render, vb2
    * culled after it; draws shaded ahead */
   assert_true(ref.stats.partial_renders > 0);
   assert_true(ref.stats.primitives > 0 && ref.stats.culled > 0);
   assert_true(atomic_load(&hwr_vs_ahead_used) - u0 > 0);
   assert_memory_equal(&s.stats, &ref.stats, sizeof(ref.stats));
   compare(s.rt, ref.rt, 64, 64, 0);
   assert_memory_equal(s.tvb, ref.tvb, TVB_PAGES * HW_PAGE_SIZE);
   assert_int_equal(s.ts_v[1] - s.ts_v[0], ref.ts_v[1] - ref.ts_v[0]);
   assert_int_equal(s.ts_f[1] - s.ts_f[0], ref.ts_f[1] - ref.ts_f[0]);
   scene_teardown(&s);
   scene_teardown(&ref);
}

/* ------------------------------------------------------------ textures */

/* 16x16 RGBA8 texel of level l: every level and texel distinct. */
static uint32_t
texel(unsigned l, unsigned x, unsigned y)
{
   return (16u * x + 3u * l) | (16u * y) << 8 | (40u * l + 20u) << 16 | 0xffu << 24;
}

/* Morton index: bit i of x -> bit 2i, bit i of y -> bit 2i+1. */
static unsigned
morton(unsigned x, unsigned y)
{
   unsigned m = 0;
   for (unsigned b = 0; b < 8; b++)
      m |= (x >> b & 1) << (2 * b) | (y >> b & 1) << (2 * b + 1);
   return m;
}

/*
 * A twiddled 16x16 texture with `levels` levels.  At 4 bytes per texel a
 * twiddled tile is 64x64, so every level is a power-of-two tail: one
 * square Morton block per level, each level 128-byte aligned.
 */
static uint64_t
make_texture(struct scene *s, unsigned levels, bool linear, enum agx_mip_filter mip,
             enum agx_wrap wrap, uint64_t *smp)
{
   uint32_t img[512];
   memset(img, 0, sizeof(img));
   unsigned off = 0;
   for (unsigned l = 0; l < levels; l++) {
      unsigned n = 16 >> l;
      for (unsigned y = 0; y < n; y++)
         for (unsigned x = 0; x < n; x++)
            img[off / 4 + morton(x, y)] = texel(l, x, y);
      off = (off + n * n * 4 + 127) & ~127u;
   }
   uint64_t va = scene_put(s, img, off, 128);
   uint8_t d[AGX_TEXTURE_LENGTH];
   agx_pack(d, TEXTURE, tx) {
      tx.dimension = AGX_TEXTURE_DIMENSION_2D; tx.layout = AGX_LAYOUT_TWIDDLED;
      tx.channels = AGX_CHANNELS_R8G8B8A8; tx.type = AGX_TEXTURE_TYPE_UNORM;
      tx.swizzle_r = AGX_CHANNEL_R;
      tx.width = 16; tx.height = 16; tx.address = va;
      tx.first_level = 0; tx.last_level = levels - 1; tx.unk_mipmapped = levels > 1;
   }
   uint64_t desc = scene_put(s, d, sizeof(d), 16);
   uint8_t sd[AGX_SAMPLER_LENGTH];
   agx_pack(sd, SAMPLER, sm) {
      sm.magnify = sm.minify = linear ? AGX_FILTER_LINEAR : AGX_FILTER_NEAREST;
      sm.mip_filter = mip;
      sm.wrap_s = sm.wrap_t = sm.wrap_r = wrap;
   }
   *smp = scene_put(s, sd, sizeof(sd), 16);
   return desc;
}

static const char *const fs_tex_src =
   "iter r4_r5_r6_r7, cf0, center, 0b0, 0, 0, 0, 0, 0\n"
   "texture_sample 0, 0b0000, 0b0, none, xyzw, 0b00, r8_r9_r10_r11, None, ts0, ss0, tex_2d, r4_r5, auto_lod, 0\n"
   "wait 0\n"
   "st_tile r8_r9_r10_r11, u8norm, 0, xyzw, 0, 255, 0\n"
   "stop\n";

/* Full-screen quad (two triangles) with (u, v) = scale * (0..1) in the
 * first two colour slots, v growing downwards. */
static void
textured_quad(struct scene *s, uint64_t tex, uint64_t smp, float scale)
{
   struct vtx v[6] = {
      { -1, 1, 0.5f, 1, 0, 0, 0, 1 }, { 1, 1, 0.5f, 1, scale, 0, 0, 1 },
      { -1, -1, 0.5f, 1, 0, scale, 0, 1 },
      { 1, 1, 0.5f, 1, scale, 0, 0, 1 }, { 1, -1, 0.5f, 1, scale, scale, 0, 1 },
      { -1, -1, 0.5f, 1, 0, scale, 0, 1 },
   };
   struct draw_state ds = default_state;
   ds.fs = fs_tex_src;
   ds.fs_tex = tex;
   ds.fs_smp = smp;
   emit_state(s, &ds, vs_src, v, sizeof(v));
   emit_draw(s, AGX_PRIMITIVE_TRIANGLES, NULL, 0, 6, 1, false);
}

/* Magnification x4, nearest: pixel (x, y) shows texel (x / 4, y / 4)
 * (texel coordinates (x + 0.5) / 4 never fall on a texel edge). */
static void
test_texture_nearest(void **state)
{
   (void)state;
   struct scene s;
   scene_init(&s, 64, 64, 1, 0xff000000u, 2, 64 * 1024);
   uint64_t smp, tex = make_texture(&s, 1, false, AGX_MIP_FILTER_NONE,
                                    AGX_WRAP_CLAMP_TO_EDGE, &smp);
   textured_quad(&s, tex, smp, 1.0f);
   assert_true(run(&s));
   uint32_t want[64 * 64];
   for (unsigned y = 0; y < 64; y++)
      for (unsigned x = 0; x < 64; x++)
         want[y * 64 + x] = texel(0, x / 4, y / 4);
   compare(s.rt, want, 64, 64, 0);
   scene_teardown(&s);
}

/* The same draw with the texture bindless, as Mesa's asahi Vulkan driver
 * samples every image: no USC Texture word, the descriptor's address in a
 * uniform pair (u0_u1) plus a byte offset register (Tt bit 1), the sampler
 * index in a register. Before, the model refused any texture instruction
 * of a pipeline without Texture words ("the pipeline binds no texture
 * state"): vkcube's fragment shader failed. */
static const char *const fs_tex_bindless_src =
   "iter r4_r5_r6_r7, cf0, center, 0b0, 0, 0, 0, 0, 0\n"
   "mov_imm r2, 0, 0b0\n"
   "mov_imm r3l, 0\n"
   "texture_sample 0, 0b1100, 0b0, none, xyzw, 0b00, r8_r9_r10_r11, u0_u1, r2, r3l, tex_2d, r4_r5, auto_lod, 0\n"
   "wait 0\n"
   "st_tile r8_r9_r10_r11, u8norm, 0, xyzw, 0, 255, 0\n"
   "stop\n";

static void
test_texture_bindless(void **state)
{
   (void)state;
   struct scene s;
   scene_init(&s, 64, 64, 1, 0xff000000u, 2, 64 * 1024);
   uint64_t smp, tex = make_texture(&s, 1, false, AGX_MIP_FILTER_NONE,
                                    AGX_WRAP_CLAMP_TO_EDGE, &smp);
   struct vtx v[6] = {
      { -1, 1, 0.5f, 1, 0, 0, 0, 1 }, { 1, 1, 0.5f, 1, 1, 0, 0, 1 },
      { -1, -1, 0.5f, 1, 0, 1, 0, 1 },
      { 1, 1, 0.5f, 1, 1, 0, 0, 1 }, { 1, -1, 0.5f, 1, 1, 1, 0, 1 },
      { -1, -1, 0.5f, 1, 0, 1, 0, 1 },
   };
   struct draw_state ds = default_state;
   ds.fs = fs_tex_bindless_src;
   ds.fs_smp = smp;
   ds.fs_uni = &tex;
   ds.fs_uni_bytes = sizeof(tex);
   emit_state(&s, &ds, vs_src, v, sizeof(v));
   emit_draw(&s, AGX_PRIMITIVE_TRIANGLES, NULL, 0, 6, 1, false);
   assert_true(run(&s));
   uint32_t want[64 * 64];
   for (unsigned y = 0; y < 64; y++)
      for (unsigned x = 0; x < 64; x++)
         want[y * 64 + x] = texel(0, x / 4, y / 4);
   compare(s.rt, want, 64, 64, 0);
   scene_teardown(&s);
}

/* Magnification x4, bilinear, clamp to edge.  The oracle filters in
 * double; the model in float: 1 LSB. */
static void
test_texture_linear(void **state)
{
   (void)state;
   struct scene s;
   scene_init(&s, 64, 64, 1, 0xff000000u, 2, 64 * 1024);
   uint64_t smp, tex = make_texture(&s, 1, true, AGX_MIP_FILTER_NONE,
                                    AGX_WRAP_CLAMP_TO_EDGE, &smp);
   textured_quad(&s, tex, smp, 1.0f);
   assert_true(run(&s));
   uint32_t want[64 * 64];
   for (unsigned y = 0; y < 64; y++) {
      for (unsigned x = 0; x < 64; x++) {
         double u = (x + 0.5) / 4.0 - 0.5, v = (y + 0.5) / 4.0 - 0.5;
         int i0 = (int)floor(u), j0 = (int)floor(v);
         double fu = u - i0, fv = v - j0;
         uint32_t px = 0;
         for (unsigned c = 0; c < 4; c++) {
            double acc = 0;
            for (int dj = 0; dj < 2; dj++)
               for (int di = 0; di < 2; di++) {
                  int i = i0 + di, j = j0 + dj;
                  i = i < 0 ? 0 : i > 15 ? 15 : i;
                  j = j < 0 ? 0 : j > 15 ? 15 : j;
                  double wgt = (di ? fu : 1 - fu) * (dj ? fv : 1 - fv);
                  acc += wgt * (texel(0, (unsigned)i, (unsigned)j) >> (8 * c) & 0xff);
               }
            px |= (uint32_t)unorm8(acc / 255.0) << (8 * c);
         }
         want[y * 64 + x] = px;
      }
   }
   compare(s.rt, want, 64, 64, 1);
   scene_teardown(&s);
}

/* Minification: (u, v) span 8 repeats over 64 pixels, 2 level-0 texels
 * per pixel, so lambda = 1 and nearest mip filtering picks level 1 (8x8):
 * pixel (x, y) shows level-1 texel (x % 8, y % 8).  The derivatives come
 * from 2x2 quads, including quads split by the quad's diagonal. */
static void
test_texture_mipmap(void **state)
{
   (void)state;
   struct scene s;
   scene_init(&s, 64, 64, 1, 0xff000000u, 2, 64 * 1024);
   uint64_t smp, tex = make_texture(&s, 5, false, AGX_MIP_FILTER_NEAREST,
                                    AGX_WRAP_REPEAT, &smp);
   textured_quad(&s, tex, smp, 8.0f);
   assert_true(run(&s));
   uint32_t want[64 * 64];
   for (unsigned y = 0; y < 64; y++)
      for (unsigned x = 0; x < 64; x++)
         want[y * 64 + x] = texel(1, x % 8, y % 8);
   compare(s.rt, want, 64, 64, 0);
   scene_teardown(&s);
}

/* ------------------------------------------------------- points, lines */

/* Window position -> clip position for a 64x64 viewport. */
static struct vtx
wv(double x, double y, float z)
{
   struct vtx v = { (float)((x - 32) / 32), (float)((32 - y) / 32), z, 1, 1, 1, 1, 1 };
   return v;
}

/* Oracle of a line of width W: GL's non-antialiased wide line, the
 * parallelogram the hardware draws. For an x-major segment (|dx| >= |dy|)
 * a pixel is lit when its centre's x lies strictly between the ends' and
 * its y strictly within W/2 of the segment at that x; y-major likewise
 * with the axes swapped (the scenes keep every centre off those
 * boundaries). */
static void
ref_wide_line(uint32_t *img, double x0, double y0, double x1, double y1, double width)
{
   bool xmajor = fabs(x1 - x0) >= fabs(y1 - y0);
   double a0 = xmajor ? x0 : y0, a1 = xmajor ? x1 : y1;   /* major axis */
   double b0 = xmajor ? y0 : x0, b1 = xmajor ? y1 : x1;   /* minor axis */
   for (unsigned py = 0; py < 64; py++)
      for (unsigned px = 0; px < 64; px++) {
         double ca = (xmajor ? px : py) + 0.5, cb = (xmajor ? py : px) + 0.5;
         if (!((ca > a0 && ca < a1) || (ca > a1 && ca < a0)))
            continue;
         double on = b0 + (b1 - b0) * (ca - a0) / (a1 - a0);
         if (fabs(cb - on) < width / 2)
            img[py * 64 + px] = 0xffffffffu;
      }
}

static void
ref_line(uint32_t *img, double x0, double y0, double x1, double y1)
{
   ref_wide_line(img, x0, y0, x1, y1, 1);
}

static void
test_points_lines(void **state)
{
   (void)state;
   struct scene s;
   scene_init(&s, 64, 64, 1, 0xff000000u, 2, 64 * 1024);
   struct draw_state ds = default_state;
   ds.shade = AGX_SHADE_MODEL_FLAT_VERTEX_0;
   ds.line_width = 15;   /* 1 pixel */
   uint32_t want[64 * 64];
   for (unsigned i = 0; i < 64 * 64; i++)
      want[i] = 0xff000000u;

   /* Points of size 1 at pixel centres; one outside the volume (z < 0). */
   struct vtx pts[4] = { wv(10.5, 50.5, 0.5f), wv(11.5, 50.5, 0.5f), wv(63.5, 0.5, 0.5f),
                         wv(20.5, 50.5, -0.5f) };
   emit_state(&s, &ds, vs_src, pts, sizeof(pts));
   emit_draw(&s, AGX_PRIMITIVE_POINTS, NULL, 0, 4, 1, false);
   want[50 * 64 + 10] = want[50 * 64 + 11] = want[0 * 64 + 63] = 0xffffffffu;

   /* Lines: one cut by the near plane (z from 0.75 to -0.25: z = 0 at
    * x = 46.25), one at 45 degrees. */
   struct vtx ln[4] = { wv(4.25, 20.25, 0.75f), wv(60.25, 20.25, -0.25f),
                        wv(20.2, 24.2, 0.5f), wv(40.2, 44.2, 0.5f) };
   emit_state(&s, &ds, vs_src, ln, sizeof(ln));
   emit_draw(&s, AGX_PRIMITIVE_LINES, NULL, 0, 4, 1, false);
   ref_line(want, 4.25, 20.25, 46.25, 20.25);
   ref_line(want, 20.2, 24.2, 40.2, 44.2);

   /* Strip: two segments; loop: a closed rectangle. */
   struct vtx st[3] = { wv(4.25, 4.25, 0.5f), wv(40.25, 4.25, 0.5f), wv(40.25, 14.25, 0.5f) };
   emit_state(&s, &ds, vs_src, st, sizeof(st));
   emit_draw(&s, AGX_PRIMITIVE_LINE_STRIP, NULL, 0, 3, 1, false);
   ref_line(want, 4.25, 4.25, 40.25, 4.25);
   ref_line(want, 40.25, 4.25, 40.25, 14.25);
   struct vtx lp[4] = { wv(8.25, 56.25, 0.5f), wv(30.25, 56.25, 0.5f),
                        wv(30.25, 60.25, 0.5f), wv(8.25, 60.25, 0.5f) };
   emit_state(&s, &ds, vs_src, lp, sizeof(lp));
   emit_draw(&s, AGX_PRIMITIVE_LINE_LOOP, NULL, 0, 4, 1, false);
   for (unsigned i = 0; i < 4; i++) {
      const struct vtx *a = &lp[i], *b = &lp[(i + 1) % 4];
      ref_line(want, 32 + 32.0 * a->x, 32 - 32.0 * a->y, 32 + 32.0 * b->x, 32 - 32.0 * b->y);
   }
   assert_true(run(&s));
   compare(s.rt, want, 64, 64, 0);
   /* 3 points + 2 lines + 2 strip segments + 4 loop segments. */
   assert_int_equal(s.stats.primitives, 11);
   scene_teardown(&s);
}

/*
 * Wide lines drawn by a shader with Mesa's discard lowering (a
 * `sample_mask` keeping every sample before the tilebuffer store): the
 * pixels of the line's width and no more. sample_mask only kills samples;
 * it must not turn the helper lanes of the quads along the edges into
 * covered ones (minetest-seed7's 2-pixel selection box came out 4 pixels
 * thick on Mesa's asahi driver, and alpha-tested plants grew a fringe).
 * Width 16 is the largest the 4.4 field holds (raw 255). A sloped line
 * is GL's parallelogram, not a rectangle.
 */
static void
test_wide_lines(void **state)
{
   (void)state;
   static const char *const fs_keep_src =
      "iter r4_r5_r6_r7, cf0, center, 0b0, 0, 0, 0, 0, 0\n"
      "sample_mask 255, 255\n"
      "st_tile r4_r5_r6_r7, u8norm, 0, xyzw, 0, 255, 0\n"
      "stop\n";
   struct scene s;
   scene_init(&s, 64, 64, 1, 0xff000000u, 2, 64 * 1024);
   struct draw_state ds = default_state;
   ds.shade = AGX_SHADE_MODEL_FLAT_VERTEX_0;
   ds.fs = fs_keep_src;
   uint32_t want[64 * 64];
   for (unsigned i = 0; i < 64 * 64; i++)
      want[i] = 0xff000000u;

   /* Width 2 (raw 31): rows 19-20 and columns 41-42, each pair
    * straddling two quads. */
   ds.line_width = 31;
   struct vtx ln[4] = { wv(4.25, 20.25, 0.5f), wv(60.25, 20.25, 0.5f),
                        wv(41.6, 30.25, 0.5f), wv(41.6, 60.25, 0.5f) };
   emit_state(&s, &ds, vs_src, ln, sizeof(ln));
   emit_draw(&s, AGX_PRIMITIVE_LINES, NULL, 0, 4, 1, false);
   ref_wide_line(want, 4.25, 20.25, 60.25, 20.25, 2);
   ref_wide_line(want, 41.6, 30.25, 41.6, 60.25, 2);

   /* Width 16 (raw 255): rows 40-55. */
   ds.line_width = 255;
   struct vtx wide[2] = { wv(2.25, 48, 0.5f), wv(20.25, 48, 0.5f) };
   emit_state(&s, &ds, vs_src, wide, sizeof(wide));
   emit_draw(&s, AGX_PRIMITIVE_LINES, NULL, 0, 2, 1, false);
   ref_wide_line(want, 2.25, 48, 20.25, 48, 16);

   /* Width 3 (raw 47) at slope 1/3: 3 pixels per column, ends vertical
    * (a rectangle would light 100 pixels, 12 of them different). */
   ds.line_width = 47;
   struct vtx slope[2] = { wv(2.3, 5.2, 0.5f), wv(32.3, 15.2, 0.5f) };
   emit_state(&s, &ds, vs_src, slope, sizeof(slope));
   emit_draw(&s, AGX_PRIMITIVE_LINES, NULL, 0, 2, 1, false);
   ref_wide_line(want, 2.3, 5.2, 32.3, 15.2, 3);

   assert_true(run(&s));
   compare(s.rt, want, 64, 64, 0);
   scene_teardown(&s);
}

/* ------------------------------------------------------ render + compute */

/* A compute job copies the vertices into the (zeroed) vertex buffer the
 * render job reads; the vertex job's firmware Barrier waits for the
 * compute job's stamp.  Without the ordering the buffer would be zeros
 * (a degenerate triangle, nothing drawn). */
static void
test_render_after_compute(void **state)
{
   (void)state;
   static const char *const cs =
      "get_sr r1, sr80\n"
      "iadd r2, 0, r1, lsl 2\n"
      "device_load 0, i32, xyzw, r4_r5_r6_r7, u0_u1, r2, unsigned\n"
      "wait 0\n"
      "device_store 0, i32, xyzw, r4_r5_r6_r7, u2_u3, r2, unsigned, 0\n"
      "stop\n";
   struct scene s;
   scene_init(&s, 64, 64, 1, 0xff000000u, 2, 64 * 1024);
   struct vtx v[3] = {
      { -0.8f, -0.7f, 0.5f, 1, 1, 0, 0, 1 },
      { 0.9f, -0.6f, 0.5f, 1, 0, 1, 0, 1 },
      { -0.1f, 0.85f, 0.5f, 1, 0, 0, 1, 1 },
   };
   struct vtx zero[3];
   memset(zero, 0, sizeof(zero));
   struct draw_state ds = default_state;
   emit_state(&s, &ds, vs_src, zero, sizeof(zero));
   emit_draw(&s, AGX_PRIMITIVE_TRIANGLES, NULL, 0, 3, 1, false);
   uint64_t src = scene_put(&s, v, sizeof(v), 16), dst = s.last_vb;
   assert_true(dst != 0);
   uint64_t uni[2] = { src, dst };
   scene_compute(&s, cs, uni, sizeof(uni), 6, 6);
   assert_true(run(&s));
   assert_memory_equal(s.mem + (dst - USC_BASE), v, sizeof(v));
   struct ref r;
   ref_init(&r, 64, 64, 0xff000000u);
   ref_tri(&r, &v[0], &v[1], &v[2], AGX_ZS_FUNC_ALWAYS, false, false, false);
   compare(s.rt, r.img, 64, 64, 1);
   assert_int_equal(s.stats.primitives, 1);
   ref_free(&r);
   scene_teardown(&s);
}

static void
test_bad_stream(void **state)
{
   (void)state;
   struct scene s;
   scene_init(&s, 32, 32, 1, 0, 1, 64 * 1024);
   uint32_t junk[2] = { 0xa0000000u, 0 };   /* block type 5: tessellate */
   vdm_emit(&s, junk, 8);
   assert_false(run(&s));
   assert_int_equal(s.failed_job, 0x101);   /* the vertex job fails first */
   scene_teardown(&s);
}

int
main(void)
{
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_clear_only),
      cmocka_unit_test(test_triangle_interpolated),
      cmocka_unit_test(test_depth_overlap),
      cmocka_unit_test(test_blend_in_shader),
      cmocka_unit_test(test_strip_restart_and_instances),
      cmocka_unit_test(test_stencil_mask),
      cmocka_unit_test(test_msaa_edge),
      cmocka_unit_test(test_tvb_overflow),
      cmocka_unit_test(test_threads_deterministic),
      cmocka_unit_test(test_pool_items_once),
      cmocka_unit_test(test_eot_rows_fast_path),
      cmocka_unit_test(test_snap256_fast),
      cmocka_unit_test(test_fast_paths_match_general),
      cmocka_unit_test(test_preshader_pipeline_fast_path),
      cmocka_unit_test(test_vertex_scratch_kept),
      cmocka_unit_test(test_vertex_rows_compact),
      cmocka_unit_test(test_vertex_atomics_in_order),
      cmocka_unit_test(test_vertex_shaded_ahead),
      cmocka_unit_test(test_vertex_ahead_pipeline_partial),
      cmocka_unit_test(test_texture_nearest),
      cmocka_unit_test(test_texture_bindless),
      cmocka_unit_test(test_texture_linear),
      cmocka_unit_test(test_texture_mipmap),
      cmocka_unit_test(test_points_lines),
      cmocka_unit_test(test_wide_lines),
      cmocka_unit_test(test_render_after_compute),
      cmocka_unit_test(test_bad_stream),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}

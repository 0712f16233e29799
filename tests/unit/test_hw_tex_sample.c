/* SPDX-License-Identifier: MIT */
/*
 * hwtex sampling, loads and image writes on flat test memory.  Textures
 * are described with real packed descriptors (agx_pack) and decoded by
 * the library; expected values come from the straightforward float
 * oracles below (GL-style wrap and filter formulas written independently
 * of the implementation).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cmdstream/agx_pack.h"
#include "hw/tex/hw_tex.h"
#include "tests/unit/test_hw_tex_mem.h"

#define IMG_VA   (TEX_GPU_BASE + 0x100000)
#define IMG2_VA  (TEX_GPU_BASE + 0x300000)
#define DESC_VA  (TEX_GPU_BASE + 0x1000)

static struct hw_mmu tex_mmu, pbe_mmu;

static int
setup(void **state)
{
   (void)state;
   memset(tex_test_mem, 0, sizeof(tex_test_mem));
   hw_mmu_init(&tex_mmu, NULL, 1, HW_UNIT_TEX);
   hw_mmu_init(&pbe_mmu, NULL, 1, HW_UNIT_PBE);
   return 0;
}

static struct hw_tex_view
decode_view(const struct agx_texture *t)
{
   struct agx_texture_packed p;
   struct agx_pack_error pe;
   if (!agx_texture_pack_checked(&p, t, &pe))
      fail_msg("pack: %s", pe.msg);
   struct hw_tex_view v;
   char err[160];
   if (!hw_tex_view_decode(&v, p.opaque, err, sizeof(err)))
      fail_msg("decode: %s", err);
   return v;
}

static struct hw_tex_sampler
decode_sampler(const struct agx_sampler *s, const uint32_t *border)
{
   struct agx_sampler_packed p;
   agx_sampler_pack(&p, s);
   uint8_t b[16];
   if (border)
      memcpy(b, border, 16);
   struct hw_tex_sampler out;
   char err[160];
   if (!hw_tex_sampler_decode(&out, p.opaque, border ? b : NULL, err, sizeof(err)))
      fail_msg("sampler: %s", err);
   return out;
}

/* A w x h image at IMG_VA laid out as `layout`, one level. */
static struct agx_texture
tex_at_img(unsigned layout, unsigned ch, unsigned type, uint32_t w, uint32_t h)
{
   struct agx_texture t = { AGX_TEXTURE_HEADER };
   t.layout = (enum agx_layout)layout;
   t.channels = (enum agx_channels)ch;
   t.type = (enum agx_texture_type)type;
   t.width = w;
   t.height = h;
   t.address = IMG_VA;
   return t;
}

static struct agx_texture
tex_linear(unsigned ch, unsigned type, uint32_t w, uint32_t h, uint32_t stride)
{
   struct agx_texture t = tex_at_img(AGX_LAYOUT_LINEAR, ch, type, w, h);
   t.stride = stride - 16;
   return t;
}

/* A twiddled w x h image at IMG_VA with levels first..last (mipmapped
 * when last > 0), a 2D array of `layers` when more than one. */
static struct agx_texture
tex_twiddled(unsigned ch, unsigned type, uint32_t w, uint32_t h, unsigned first,
             unsigned last, unsigned layers)
{
   struct agx_texture t = tex_at_img(AGX_LAYOUT_TWIDDLED, ch, type, w, h);
   t.unk_mipmapped = last > 0;
   t.first_level = first;
   t.last_level = last;
   if (layers > 1) {
      t.dimension = AGX_TEXTURE_DIMENSION_2D_ARRAY;
      t.depth = layers;
   }
   return t;
}

/* *fa, a fault a fast path took (and cleared from tex_mmu), is the first
 * fault of hw_tex_load of texel (x, y) of v through the general path. */
static void
assert_general_load_faults_at(const struct hw_fault *fa, const struct hw_tex_view *v,
                              int32_t x, int32_t y)
{
   union hw_texel b;
   memset(&tex_mmu.fault, 0, sizeof(tex_mmu.fault));
   hw_tex_sample_fast_paths = false;
   assert_int_equal(hw_tex_load(&tex_mmu, v, x, y, 0, 0, 0, &b), HW_TEX_FAULT);
   hw_tex_sample_fast_paths = true;
   assert_true(fa->valid && tex_mmu.fault.valid);
   assert_int_equal(fa->addr, tex_mmu.fault.addr);
   memset(&tex_mmu.fault, 0, sizeof(tex_mmu.fault));
}

static struct agx_sampler
sampler(unsigned filter, unsigned mip, unsigned wrap)
{
   struct agx_sampler s = { AGX_SAMPLER_HEADER };
   s.magnify = s.minify = (enum agx_filter)filter;
   s.mip_filter = (enum agx_mip_filter)mip;
   s.wrap_s = s.wrap_t = s.wrap_r = (enum agx_wrap)wrap;
   return s;
}

static void
put_f32(uint64_t va, float f)
{
   memcpy(tex_host(va), &f, 4);
}

static const struct hw_tex_sample_req plain = { HW_TEX_OP_SAMPLE, 0, false };

static union hw_texel
sample2d(const struct hw_tex_view *v, const struct hw_tex_sampler *s, float x, float y)
{
   struct hw_tex_coord c = { .s = x, .t = y };
   struct hw_tex_lod lod = { .mode = HW_TEX_LOD_EXPLICIT, .lod = 0, .min_lod = -INFINITY };
   union hw_texel out;
   assert_int_equal(hw_tex_sample(&tex_mmu, v, s, &plain, &c, &lod, &out), HW_TEX_OK);
   return out;
}

/* ---- oracles ------------------------------------------------------------ */

/* Wrap an integer texel index, GL style; -1 = border. */
static int
ref_wrap(int i, int n, unsigned mode)
{
   switch (mode) {
   case AGX_WRAP_REPEAT:
      return ((i % n) + n) % n;
   case AGX_WRAP_MIRRORED_REPEAT: {
      int p = ((i % (2 * n)) + 2 * n) % (2 * n);
      return p < n ? p : 2 * n - 1 - p;
   }
   case AGX_WRAP_CLAMP_TO_BORDER:
      return i < 0 || i >= n ? -1 : i;
   default:
      return i < 0 ? 0 : (i >= n ? n - 1 : i);
   }
}

/* 4x4 R32F texture value at (x, y) */
static float
grid(int x, int y)
{
   return (float)(x + 10 * y);
}

static float
ref_bilinear(float s, float t, unsigned mode, float border)
{
   /* The texture unit's weights have 8 fraction bits, u - 1/2 rounded to
    * nearest 1/256 (hw_tex_sample.c, HW_TEX_WEIGHT_BITS). */
   double fu = floor((s * 4 - 0.5f) * 256.0 + 0.5), fv = floor((t * 4 - 0.5f) * 256.0 + 0.5);
   int i0 = (int)floor(fu / 256), j0 = (int)floor(fv / 256);
   float a = (float)(fu / 256 - i0), b = (float)(fv / 256 - j0);
   float sum = 0;
   for (int dj = 0; dj < 2; dj++)
      for (int di = 0; di < 2; di++) {
         int i = ref_wrap(i0 + di, 4, mode), j = ref_wrap(j0 + dj, 4, mode);
         float val = (i < 0 || j < 0) ? border : grid(i, j);
         sum += (di ? a : 1 - a) * (dj ? b : 1 - b) * val;
      }
   return sum;
}

static void
fill_grid(void)
{
   for (int y = 0; y < 4; y++)
      for (int x = 0; x < 4; x++)
         put_f32(IMG_VA + (uint64_t)y * 32 + (uint64_t)x * 4, grid(x, y));
}

/* ---- tests -------------------------------------------------------------- */

static const unsigned wraps[] = {
   AGX_WRAP_CLAMP_TO_EDGE, AGX_WRAP_REPEAT, AGX_WRAP_MIRRORED_REPEAT, AGX_WRAP_CLAMP_TO_BORDER,
};
static const float coords[] = { 0.0f, 0.1f, 0.3f, 0.5f, 0.9f, 1.0f, 1.2f, -0.2f, -0.9f, 2.6f, -1.4f };

static void
test_nearest_wrap(void **state)
{
   (void)state;
   fill_grid();
   struct agx_texture t = tex_linear(AGX_CHANNELS_R32, AGX_TEXTURE_TYPE_FLOAT, 4, 4, 32);
   struct hw_tex_view v = decode_view(&t);
   for (unsigned w = 0; w < 4; w++) {
      struct agx_sampler sd = sampler(AGX_FILTER_NEAREST, AGX_MIP_FILTER_NONE, wraps[w]);
      struct hw_tex_sampler s = decode_sampler(&sd, NULL);
      for (unsigned i = 0; i < sizeof(coords) / sizeof(coords[0]); i++)
         for (unsigned j = 0; j < sizeof(coords) / sizeof(coords[0]); j += 3) {
            union hw_texel o = sample2d(&v, &s, coords[i], coords[j]);
            int x = ref_wrap((int)floorf(coords[i] * 4), 4, wraps[w]);
            int y = ref_wrap((int)floorf(coords[j] * 4), 4, wraps[w]);
            float want = (x < 0 || y < 0) ? 0.0f : grid(x, y);
            if (o.f[0] != want)
               fail_msg("wrap %u at (%g, %g): %g, want %g", wraps[w], coords[i], coords[j],
                        o.f[0], want);
            /* R32F: G, B = 0 and A = 1 (border: transparent black) */
            assert_true(o.f[3] == ((x < 0 || y < 0) ? 0.0f : 1.0f));
         }
   }
}

/*
 * Nearest filtering's index arithmetic at the edges of its range (the
 * direct nearest path and the integer floor, issue 17): coordinates past
 * +-1e9 texels, infinities and NaN clamp to +-1e9 texels (NaN: +1e9)
 * before the wrap, and repeat wraps power-of-two (4) and other (3) sizes
 * alike, negative indices included.
 */
static void
test_nearest_extremes(void **state)
{
   (void)state;
   fill_grid();
   static const float far[] = {
      -0.3f, -1.26f, -7.9f, 1e6f, -1e6f, 2.4e8f, -2.4e8f, 2.6e8f, -2.6e8f, 1e20f, -1e20f,
      INFINITY, -INFINITY, NAN, -0.0f,
   };
   for (unsigned width = 3; width <= 4; width++) {
      struct agx_texture t = tex_linear(AGX_CHANNELS_R32, AGX_TEXTURE_TYPE_FLOAT, width, 4, 32);
      struct hw_tex_view v = decode_view(&t);
      for (unsigned w = 0; w < 4; w++) {
         struct agx_sampler sd = sampler(AGX_FILTER_NEAREST, AGX_MIP_FILTER_NONE, wraps[w]);
         struct hw_tex_sampler s = decode_sampler(&sd, NULL);
         for (unsigned i = 0; i < sizeof(far) / sizeof(far[0]); i++) {
            float u = far[i] * (float)width;
            double f = isnan(u) ? 1e9 : fmin(fmax(floor((double)u), -1e9), 1e9);
            /* ref_wrap in 64 bits: i % n of +-1e9 */
            long long n = width, k = (long long)f, x;
            if (wraps[w] == AGX_WRAP_REPEAT)
               x = ((k % n) + n) % n;
            else if (wraps[w] == AGX_WRAP_MIRRORED_REPEAT) {
               long long r = ((k % (2 * n)) + 2 * n) % (2 * n);
               x = r < n ? r : 2 * n - 1 - r;
            } else if (wraps[w] == AGX_WRAP_CLAMP_TO_BORDER)
               x = k < 0 || k >= n ? -1 : k;
            else
               x = k < 0 ? 0 : k >= n ? n - 1 : k;
            union hw_texel o = sample2d(&v, &s, far[i], 0.3f);
            float want = x < 0 ? 0.0f : grid((int)x, 1);
            if (o.f[0] != want)
               fail_msg("width %u wrap %u at s=%g: %g, want %g", width, wraps[w], far[i],
                        o.f[0], want);
         }
      }
   }
}

/*
 * A sampler without mipmaps that minifies linearly and magnifies nearest
 * (or the reverse) still needs lambda to pick the filter; one whose two
 * filters match does not compute it (issue 17) and reads the same.
 */
static void
test_mixed_filters_no_mip(void **state)
{
   (void)state;
   fill_grid();
   struct agx_texture t = tex_linear(AGX_CHANNELS_R32, AGX_TEXTURE_TYPE_FLOAT, 4, 4, 32);
   struct hw_tex_view v = decode_view(&t);
   float s0 = 0.3f, t0 = 0.45f;
   float nearest = grid(1, 1), linear = ref_bilinear(s0, t0, AGX_WRAP_REPEAT, 0.0f);
   for (unsigned mag = 0; mag < 2; mag++)
      for (unsigned min = 0; min < 2; min++) {
         struct agx_sampler sd = sampler(AGX_FILTER_NEAREST, AGX_MIP_FILTER_NONE, AGX_WRAP_REPEAT);
         sd.magnify = mag ? AGX_FILTER_LINEAR : AGX_FILTER_NEAREST;
         sd.minify = min ? AGX_FILTER_LINEAR : AGX_FILTER_NEAREST;
         struct hw_tex_sampler s = decode_sampler(&sd, NULL);
         for (int lodi = -1; lodi <= 1; lodi += 2) {
            struct hw_tex_coord c = { .s = s0, .t = t0 };
            struct hw_tex_lod lod = { .mode = HW_TEX_LOD_EXPLICIT, .lod = (float)lodi,
                                      .min_lod = -INFINITY };
            union hw_texel out;
            assert_int_equal(hw_tex_sample(&tex_mmu, &v, &s, &plain, &c, &lod, &out), HW_TEX_OK);
            bool lin = lodi > 0 ? min : mag;
            float want = lin ? linear : nearest;
            if (fabsf(out.f[0] - want) > 1e-4f)
               fail_msg("mag %u min %u lod %d: %g, want %g", mag, min, lodi, out.f[0], want);
         }
      }
}

static void
test_bilinear(void **state)
{
   (void)state;
   fill_grid();
   struct agx_texture t = tex_linear(AGX_CHANNELS_R32, AGX_TEXTURE_TYPE_FLOAT, 4, 4, 32);
   struct hw_tex_view v = decode_view(&t);
   for (unsigned w = 0; w < 4; w++) {
      struct agx_sampler sd = sampler(AGX_FILTER_LINEAR, AGX_MIP_FILTER_NONE, wraps[w]);
      struct hw_tex_sampler s = decode_sampler(&sd, NULL);
      for (unsigned i = 0; i < sizeof(coords) / sizeof(coords[0]); i++)
         for (unsigned j = 0; j < sizeof(coords) / sizeof(coords[0]); j += 2) {
            union hw_texel o = sample2d(&v, &s, coords[i], coords[j]);
            float want = ref_bilinear(coords[i], coords[j], wraps[w], 0.0f);
            if (fabsf(o.f[0] - want) > 1e-4f)
               fail_msg("wrap %u at (%g, %g): %g, want %g", wraps[w], coords[i], coords[j],
                        o.f[0], want);
         }
   }
   /* exact centre of the four top-left texels */
   struct agx_sampler sd = sampler(AGX_FILTER_LINEAR, AGX_MIP_FILTER_NONE, AGX_WRAP_CLAMP_TO_EDGE);
   struct hw_tex_sampler s = decode_sampler(&sd, NULL);
   assert_true(sample2d(&v, &s, 0.25f, 0.25f).f[0] == 5.5f);
   /* pixel coordinates: the same point in texels */
   sd.pixel_coordinates = true;
   s = decode_sampler(&sd, NULL);
   assert_true(sample2d(&v, &s, 1.0f, 1.0f).f[0] == 5.5f);
   assert_true(sample2d(&v, &s, 2.5f, 0.5f).f[0] == 2.0f);
   /* 8-bit weights (pixel coordinates still): 0.3 of the way from texel
    * (0, 0) to texel (1, 0), texel (1, 0) weighs 77/256, not 0.3 */
   float g0 = grid(0, 0), g1 = grid(1, 0);
   float got = sample2d(&v, &s, 0.8f, 0.5f).f[0];
   if (fabsf(got - (g0 + (g1 - g0) * (77.0f / 256))) > 1e-6f)
      fail_msg("u = 0.3 past texel 0: %.7g, want %.7g", got, g0 + (g1 - g0) * (77.0f / 256));
}

/* Custom borders in other formats: sRGB (12-bit linear), fp16, fp32,
 * snorm, integers, and a format without alpha. */
static void
test_custom_border_formats(void **state)
{
   (void)state;
   static const struct {
      unsigned channels, type;
      bool srgb;
      uint32_t words[4];
      float want[4];
   } cases[] = {
      { AGX_CHANNELS_R8G8B8A8, AGX_TEXTURE_TYPE_UNORM, true, { 819, 2048, 4095, 128 },
        { 819 / 4095.0f, 2048 / 4095.0f, 1.0f, 128 / 255.0f } },
      { AGX_CHANNELS_R16G16B16A16, AGX_TEXTURE_TYPE_FLOAT, false,
        { 0x3c00, 0xb800, 0x4400, 0x3800 }, { 1.0f, -0.5f, 4.0f, 0.5f } },
      { AGX_CHANNELS_R32, AGX_TEXTURE_TYPE_FLOAT, false, { 0x40490fdb, 7, 7, 7 },
        { 3.14159274f, 0, 0, 1 } },
      { AGX_CHANNELS_R8G8B8A8, AGX_TEXTURE_TYPE_SNORM, false, { 127, 0x81, 0, 64 },
        { 1.0f, -1.0f, 0.0f, 64 / 127.0f } },
   };
   for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
      struct agx_texture t = tex_linear(cases[i].channels, cases[i].type, 2, 2, 64);
      t.srgb = cases[i].srgb;
      struct hw_tex_view v = decode_view(&t);
      struct agx_sampler sd = sampler(AGX_FILTER_NEAREST, AGX_MIP_FILTER_NONE,
                                      AGX_WRAP_CLAMP_TO_BORDER);
      sd.border_colour = AGX_BORDER_COLOUR_CUSTOM;
      struct hw_tex_sampler s = decode_sampler(&sd, cases[i].words);
      union hw_texel o = sample2d(&v, &s, -0.5f, 0.5f);
      for (unsigned c = 0; c < 4; c++)
         if (fabsf(o.f[c] - cases[i].want[c]) > 1e-6f)
            fail_msg("case %u component %u: %g, want %g", i, c, o.f[c], cases[i].want[c]);
   }
   /* integers as they are */
   struct agx_texture ti = tex_linear(AGX_CHANNELS_R8G8B8A8, AGX_TEXTURE_TYPE_UINT, 2, 2, 16);
   struct hw_tex_view vi = decode_view(&ti);
   struct agx_sampler sd = sampler(AGX_FILTER_NEAREST, AGX_MIP_FILTER_NONE,
                                   AGX_WRAP_CLAMP_TO_BORDER);
   sd.border_colour = AGX_BORDER_COLOUR_CUSTOM;
   const uint32_t iw[4] = { 7, 200, 0, 1 };
   struct hw_tex_sampler s = decode_sampler(&sd, iw);
   union hw_texel o = sample2d(&vi, &s, -0.5f, 0.5f);
   assert_true(o.u[0] == 7 && o.u[1] == 200 && o.u[2] == 0 && o.u[3] == 1);
}

/* GL_CLAMP (Clamp GL): s is clamped to [0, 1] first; nearest then clamps
 * the texel index to [0, n - 1] (GL compatibility spec, table 8.20), so
 * it never reads the border; linear blends the edge texel with the border.
 * Regression: nearest read the border at s >= 1 (piglit texwrap, issue 13). */
static void
test_clamp_gl(void **state)
{
   (void)state;
   uint8_t *p = tex_host(IMG_VA);
   for (unsigned i = 0; i < 4 * 4; i++)
      p[i] = (uint8_t)(0x40 + i);                    /* 2x2 RGBA8 */
   struct agx_texture t = tex_linear(AGX_CHANNELS_R8G8B8A8, AGX_TEXTURE_TYPE_UNORM, 2, 2, 16);
   struct hw_tex_view v = decode_view(&t);
   struct agx_sampler sd = sampler(AGX_FILTER_NEAREST, AGX_MIP_FILTER_NONE, AGX_WRAP_CLAMP_GL);
   sd.border_colour = AGX_BORDER_COLOUR_OPAQUE_WHITE;
   struct hw_tex_sampler s = decode_sampler(&sd, NULL);
   /* texel (1, 0) = 0x44.., texel (0, 0) = 0x40.. */
   union hw_texel o = sample2d(&v, &s, 3.0f, 0.25f);
   assert_true(fabsf(o.f[0] - 0x44 / 255.0f) < 1e-7f);
   o = sample2d(&v, &s, 1.0f, 0.25f);
   assert_true(fabsf(o.f[0] - 0x44 / 255.0f) < 1e-7f);
   o = sample2d(&v, &s, -2.0f, 0.25f);
   assert_true(fabsf(o.f[0] - 0x40 / 255.0f) < 1e-7f);
   /* linear at s >= 1: half texel (1, 0), half border (white) */
   sd.magnify = sd.minify = AGX_FILTER_LINEAR;
   s = decode_sampler(&sd, NULL);
   o = sample2d(&v, &s, 3.0f, 0.25f);
   assert_true(fabsf(o.f[0] - (0x44 / 255.0f + 1.0f) / 2) < 2e-3f);
   assert_true(fabsf(o.f[3] - (0x47 / 255.0f + 1.0f) / 2) < 2e-3f);
   /* Nearest with a texel offset: the index clamps after the offset
    * (table 8.20 on u + offset), as piglit's texwrap expects: from s = 3
    * (u = 6) an offset of -3 still reads the edge texel (1, 0), and from
    * s = -1 (u = -2) +2 still reads (0, 0). Regression: the coordinate
    * was clamped to [0, n] first, giving (0, 0) and (1, 0) (piglit
    * texwrap formats offset, GL_CLAMP). */
   sd.magnify = sd.minify = AGX_FILTER_NEAREST;
   s = decode_sampler(&sd, NULL);
   struct hw_tex_lod lod = { .mode = HW_TEX_LOD_EXPLICIT, .lod = 0, .min_lod = -INFINITY };
   struct hw_tex_coord c = { .s = 3.0f, .t = 0.25f, .offset = { -3, 0, 0 } };
   assert_int_equal(hw_tex_sample(&tex_mmu, &v, &s, &plain, &c, &lod, &o), HW_TEX_OK);
   assert_true(fabsf(o.f[0] - 0x44 / 255.0f) < 1e-7f);
   c.s = -1.0f;
   c.offset[0] = 2;
   assert_int_equal(hw_tex_sample(&tex_mmu, &v, &s, &plain, &c, &lod, &o), HW_TEX_OK);
   assert_true(fabsf(o.f[0] - 0x40 / 255.0f) < 1e-7f);
}

static void
test_border_colours(void **state)
{
   (void)state;
   uint8_t *p = tex_host(IMG_VA);
   for (unsigned i = 0; i < 4 * 4; i++)
      p[i] = (uint8_t)(0x40 + i);                    /* 2x2 RGBA8 */
   struct agx_texture t = tex_linear(AGX_CHANNELS_R8G8B8A8, AGX_TEXTURE_TYPE_UNORM, 2, 2, 16);
   struct hw_tex_view v = decode_view(&t);
   static const float want[4][4] = {
      { 0, 0, 0, 0 }, { 0, 0, 0, 1 }, { 1, 1, 1, 1 },
      { 64 / 255.0f, 128 / 255.0f, 191 / 255.0f, 1.0f },
   };
   /* a custom colour is encoded in the texture's format: unorm8 words.
    * Regression: the words were taken as float bits (these denormals),
    * so GL's custom borders came out transparent black. */
   uint32_t custom[4] = { 64, 128, 191, 255 };
   for (unsigned b = 0; b < 4; b++) {
      struct agx_sampler sd = sampler(AGX_FILTER_NEAREST, AGX_MIP_FILTER_NONE,
                                      AGX_WRAP_CLAMP_TO_BORDER);
      sd.border_colour = (enum agx_border_colour)b;
      struct hw_tex_sampler s = decode_sampler(&sd, b == 3 ? custom : NULL);
      union hw_texel o = sample2d(&v, &s, -0.1f, 0.5f);
      for (unsigned c = 0; c < 4; c++)
         assert_true(o.f[c] == want[b][c]);
      o = sample2d(&v, &s, 0.25f, 1.5f);
      assert_true(o.f[0] == want[b][0]);
      /* inside: texel (0, 0) */
      o = sample2d(&v, &s, 0.25f, 0.25f);
      assert_true(fabsf(o.f[0] - 0x40 / 255.0f) < 1e-7f);
      /* linear at the left edge: half border, half texel */
      sd.magnify = sd.minify = AGX_FILTER_LINEAR;
      s = decode_sampler(&sd, b == 3 ? custom : NULL);
      o = sample2d(&v, &s, 0.0f, 0.25f);
      float half = 0.5f * want[b][1] + 0.5f * (0x41 / 255.0f);
      assert_true(fabsf(o.f[1] - half) < 1e-6f);
   }
   /* integer textures: opaque white is integer 1 */
   struct agx_texture ti = tex_linear(AGX_CHANNELS_R8G8B8A8, AGX_TEXTURE_TYPE_UINT, 2, 2, 16);
   struct hw_tex_view vi = decode_view(&ti);
   struct agx_sampler sd = sampler(AGX_FILTER_LINEAR, AGX_MIP_FILTER_NONE, AGX_WRAP_CLAMP_TO_BORDER);
   sd.border_colour = AGX_BORDER_COLOUR_OPAQUE_WHITE;
   struct hw_tex_sampler s = decode_sampler(&sd, NULL);
   union hw_texel o = sample2d(&vi, &s, 2.0f, 0.5f);
   assert_int_equal(o.u[0], 1);
   assert_int_equal(o.u[3], 1);
   o = sample2d(&vi, &s, 0.75f, 0.25f);                 /* nearest: texel (1,0) */
   assert_int_equal(o.u[0], 0x44);
}

/* 16x16 R32F twiddled, 5 levels, level L filled with the value L. */
static struct hw_tex_view
mip_texture(unsigned first, unsigned last)
{
   struct agx_texture t = { AGX_TEXTURE_HEADER };
   t.layout = AGX_LAYOUT_TWIDDLED;
   t.channels = AGX_CHANNELS_R32;
   t.type = AGX_TEXTURE_TYPE_FLOAT;
   t.width = t.height = 16;
   t.address = IMG_VA;
   t.unk_mipmapped = true;
   t.first_level = first;
   t.last_level = last;
   struct hw_tex_view v = decode_view(&t);
   assert_int_equal(v.layout.levels, 5);
   for (unsigned l = 0; l < 5; l++)
      for (uint32_t y = 0; y < v.layout.level[l].height; y++)
         for (uint32_t x = 0; x < v.layout.level[l].width; x++)
            put_f32(IMG_VA + hw_tex_offset(&v.layout, x, y, 0, l), (float)l);
   return v;
}

static float
sample_lod(const struct hw_tex_view *v, const struct hw_tex_sampler *s, const struct hw_tex_lod *lod)
{
   struct hw_tex_coord c = { .s = 0.3f, .t = 0.6f };
   union hw_texel out;
   assert_int_equal(hw_tex_sample(&tex_mmu, v, s, &plain, &c, lod, &out), HW_TEX_OK);
   return out.f[0];
}

static struct hw_tex_lod
auto_lod(float dsdx, float dtdy, float bias)
{
   struct hw_tex_lod l = { .mode = HW_TEX_LOD_AUTO, .bias = bias, .min_lod = -INFINITY };
   l.ddx[0] = dsdx;
   l.ddy[1] = dtdy;
   return l;
}

static void
test_mip_selection(void **state)
{
   (void)state;
   struct hw_tex_view v = mip_texture(0, 4);
   struct agx_sampler sd = sampler(AGX_FILTER_LINEAR, AGX_MIP_FILTER_NEAREST, AGX_WRAP_REPEAT);
   struct hw_tex_sampler s = decode_sampler(&sd, NULL);
   /* one texel per pixel -> lambda 0 -> level 0; 4 texels -> level 2 */
   struct hw_tex_lod l = auto_lod(1.0f / 16, 1.0f / 16, 0);
   assert_true(sample_lod(&v, &s, &l) == 0.0f);
   l = auto_lod(4.0f / 16, 1.0f / 16, 0);
   assert_true(sample_lod(&v, &s, &l) == 2.0f);
   /* rho is the longer of the x and y footprints */
   l = auto_lod(1.0f / 16, 8.0f / 16, 0);
   assert_true(sample_lod(&v, &s, &l) == 3.0f);
   /* lambda 1.4 rounds to level 1, 1.6 to level 2 */
   l = auto_lod(powf(2, 1.4f) / 16, 0, 0);
   assert_true(sample_lod(&v, &s, &l) == 1.0f);
   l = auto_lod(powf(2, 1.6f) / 16, 0, 0);
   assert_true(sample_lod(&v, &s, &l) == 2.0f);
   /* bias */
   l = auto_lod(2.0f / 16, 0, 1.0f);
   assert_true(sample_lod(&v, &s, &l) == 2.0f);
   /* past the last level */
   l = auto_lod(1024.0f / 16, 0, 0);
   assert_true(sample_lod(&v, &s, &l) == 4.0f);

   /* trilinear: lambda 1.25 blends levels 1 and 2 */
   sd.mip_filter = AGX_MIP_FILTER_LINEAR;
   s = decode_sampler(&sd, NULL);
   l = auto_lod(powf(2, 1.25f) / 16, 0, 0);
   assert_true(fabsf(sample_lod(&v, &s, &l) - 1.25f) < 1e-5f);
   /* the blend factor has 8 fraction bits: lambda 1.3 weighs level 2 by
    * 77/256 */
   l = auto_lod(powf(2, 1.3f) / 16, 0, 0);
   assert_true(fabsf(sample_lod(&v, &s, &l) - (1.0f + 77.0f / 256)) < 1e-6f);
   /* explicit LOD and its clamps */
   struct hw_tex_lod e = { .mode = HW_TEX_LOD_EXPLICIT, .lod = 2.5f, .min_lod = -INFINITY };
   assert_true(fabsf(sample_lod(&v, &s, &e) - 2.5f) < 1e-6f);
   sd.max_lod = 1.5f;
   s = decode_sampler(&sd, NULL);
   assert_true(fabsf(sample_lod(&v, &s, &e) - 1.5f) < 1e-6f);
   sd.max_lod = 15.0f;
   sd.min_lod = 3.0f;
   s = decode_sampler(&sd, NULL);
   l = auto_lod(1.0f / 16, 0, 0);
   assert_true(fabsf(sample_lod(&v, &s, &l) - 3.0f) < 1e-6f);
   /* the instruction's minimum (lod_grad_min) */
   sd.min_lod = 0;
   s = decode_sampler(&sd, NULL);
   l.min_lod = 2.25f;
   assert_true(fabsf(sample_lod(&v, &s, &l) - 2.25f) < 1e-6f);
   /* mip filter none: always the first level */
   sd.mip_filter = AGX_MIP_FILTER_NONE;
   s = decode_sampler(&sd, NULL);
   l = auto_lod(8.0f / 16, 0, 0);
   assert_true(sample_lod(&v, &s, &l) == 0.0f);

   /* a view starting at level 1: LOD 0 is level 1 and sizes are level 1's */
   struct hw_tex_view v1 = mip_texture(1, 3);
   sd = sampler(AGX_FILTER_NEAREST, AGX_MIP_FILTER_NEAREST, AGX_WRAP_REPEAT);
   s = decode_sampler(&sd, NULL);
   l = auto_lod(1.0f / 8, 0, 0);
   assert_true(sample_lod(&v1, &s, &l) == 1.0f);
   l = auto_lod(2.0f / 8, 0, 0);
   assert_true(sample_lod(&v1, &s, &l) == 2.0f);
   l = auto_lod(64.0f / 8, 0, 0);
   assert_true(sample_lod(&v1, &s, &l) == 3.0f);

   /* query_lod returns (clamped, unclamped) */
   struct hw_tex_sample_req q = { HW_TEX_OP_QUERY_LOD, 0, false };
   struct hw_tex_coord c = { 0 };
   union hw_texel out;
   sd.max_lod = 2.0f;
   s = decode_sampler(&sd, NULL);
   l = auto_lod(32.0f / 8, 0, 0);
   assert_int_equal(hw_tex_sample(&tex_mmu, &v1, &s, &q, &c, &l, &out), HW_TEX_OK);
   assert_true(out.f[0] == 2.0f && out.f[1] == 5.0f);
}

static void
test_shadow(void **state)
{
   (void)state;
   static const float d[4] = { 0.2f, 0.4f, 0.6f, 0.8f };
   for (unsigned i = 0; i < 4; i++)
      put_f32(IMG_VA + (i / 2) * 16 + (i % 2) * 4, d[i]);
   struct agx_texture t = tex_linear(AGX_CHANNELS_R32, AGX_TEXTURE_TYPE_FLOAT, 2, 2, 16);
   struct hw_tex_view v = decode_view(&t);
   struct agx_sampler sd = sampler(AGX_FILTER_NEAREST, AGX_MIP_FILTER_NONE, AGX_WRAP_CLAMP_TO_EDGE);
   sd.compare_enable = true;
   struct hw_tex_sample_req req = { HW_TEX_OP_SAMPLE, 0, true };
   struct hw_tex_lod lod = { .mode = HW_TEX_LOD_EXPLICIT, .min_lod = -INFINITY };
   static const struct { unsigned func; float ref; float want[4]; } cases[] = {
      { AGX_COMPARE_FUNC_LEQUAL, 0.5f, { 0, 0, 1, 1 } },
      { AGX_COMPARE_FUNC_GEQUAL, 0.4f, { 1, 1, 0, 0 } },
      { AGX_COMPARE_FUNC_LESS, 0.4f, { 0, 0, 1, 1 } },
      { AGX_COMPARE_FUNC_GREATER, 0.4f, { 1, 0, 0, 0 } },
      { AGX_COMPARE_FUNC_EQUAL, 0.6f, { 0, 0, 1, 0 } },
      { AGX_COMPARE_FUNC_NOT_EQUAL, 0.6f, { 1, 1, 0, 1 } },
      { AGX_COMPARE_FUNC_ALWAYS, 0.6f, { 1, 1, 1, 1 } },
      { AGX_COMPARE_FUNC_NEVER, 0.6f, { 0, 0, 0, 0 } },
   };
   for (unsigned k = 0; k < 8; k++) {
      sd.compare_func = (enum agx_compare_func)cases[k].func;
      sd.magnify = sd.minify = AGX_FILTER_NEAREST;
      struct hw_tex_sampler s = decode_sampler(&sd, NULL);
      float sum = 0;
      for (unsigned i = 0; i < 4; i++) {
         struct hw_tex_coord c = { .s = 0.25f + 0.5f * (i % 2), .t = 0.25f + 0.5f * (i / 2),
                                   .ref = cases[k].ref };
         union hw_texel o;
         assert_int_equal(hw_tex_sample(&tex_mmu, &v, &s, &req, &c, &lod, &o), HW_TEX_OK);
         assert_true(o.f[0] == cases[k].want[i]);
         assert_true(o.f[3] == cases[k].want[i]);
         sum += cases[k].want[i];
      }
      /* linear: compare each texel, then filter (percentage closer) */
      sd.magnify = sd.minify = AGX_FILTER_LINEAR;
      s = decode_sampler(&sd, NULL);
      struct hw_tex_coord c = { .s = 0.5f, .t = 0.5f, .ref = cases[k].ref };
      union hw_texel o;
      assert_int_equal(hw_tex_sample(&tex_mmu, &v, &s, &req, &c, &lod, &o), HW_TEX_OK);
      assert_true(fabsf(o.f[0] - sum / 4) < 1e-6f);
   }
}

/* The descriptor's swizzle applies to compare results: Mesa's asahi driver
 * puts GL's DEPTH_TEXTURE_MODE only there (a broadcast of R composed with
 * the view swizzle), so piglit's glsl-fs-shadow2DRect and fs-shadow2d-red
 * read alpha 1 (luminance) and (c, 0, 0, 1) (red) on the hardware. */
static void
test_shadow_swizzle(void **state)
{
   (void)state;
   static const uint16_t z16[2] = { 0x4000, 0xc000 };   /* unorm 0.25, 0.75 */
   memcpy(tex_host(IMG_VA), &z16[0], 2);                /* texel (0, 0) */
   memcpy(tex_host(IMG_VA + 16), &z16[1], 2);           /* texel (0, 1) */
   struct agx_sampler sd = sampler(AGX_FILTER_NEAREST, AGX_MIP_FILTER_NONE, AGX_WRAP_CLAMP_TO_EDGE);
   sd.compare_enable = true;
   sd.compare_func = AGX_COMPARE_FUNC_LEQUAL;   /* 1 where ref <= texel */
   struct hw_tex_sampler s = decode_sampler(&sd, NULL);
   struct hw_tex_sample_req req = { HW_TEX_OP_SAMPLE, 0, true };
   struct hw_tex_lod lod = { .mode = HW_TEX_LOD_EXPLICIT, .min_lod = -INFINITY };
   enum { R = AGX_CHANNEL_R, Z = AGX_CHANNEL_0, O = AGX_CHANNEL_1 };
   static const struct { uint8_t sw[4]; float lo[4], hi[4]; } cases[] = {
      { { R, R, R, O }, { 0, 0, 0, 1 }, { 1, 1, 1, 1 } },   /* luminance */
      { { R, R, R, R }, { 0, 0, 0, 0 }, { 1, 1, 1, 1 } },   /* intensity */
      { { Z, Z, Z, R }, { 0, 0, 0, 0 }, { 0, 0, 0, 1 } },   /* alpha */
      { { R, Z, Z, O }, { 0, 0, 0, 1 }, { 1, 0, 0, 1 } },   /* red */
   };
   for (unsigned k = 0; k < 4; k++) {
      struct agx_texture t = tex_linear(AGX_CHANNELS_R16, AGX_TEXTURE_TYPE_UNORM, 1, 2, 16);
      t.swizzle_r = (enum agx_channel)cases[k].sw[0];
      t.swizzle_g = (enum agx_channel)cases[k].sw[1];
      t.swizzle_b = (enum agx_channel)cases[k].sw[2];
      t.swizzle_a = (enum agx_channel)cases[k].sw[3];
      struct hw_tex_view v = decode_view(&t);
      for (unsigned row = 0; row < 2; row++) {
         struct hw_tex_coord c = { .s = 0.5f, .t = 0.25f + 0.5f * row, .ref = 0.5f };
         union hw_texel o;
         assert_int_equal(hw_tex_sample(&tex_mmu, &v, &s, &req, &c, &lod, &o), HW_TEX_OK);
         const float *want = row ? cases[k].hi : cases[k].lo;
         for (unsigned i = 0; i < 4; i++)
            assert_true(o.f[i] == want[i]);
      }
   }
}

static void
test_gather(void **state)
{
   (void)state;
   /* 2x2 RG8 uint: texel (x, y) = (10x + y, 100 + 10x + y) */
   uint8_t *p = tex_host(IMG_VA);
   for (unsigned y = 0; y < 2; y++)
      for (unsigned x = 0; x < 2; x++) {
         p[y * 16 + x * 2] = (uint8_t)(10 * x + y);
         p[y * 16 + x * 2 + 1] = (uint8_t)(100 + 10 * x + y);
      }
   struct agx_texture t = tex_linear(AGX_CHANNELS_R8G8, AGX_TEXTURE_TYPE_UINT, 2, 2, 16);
   struct hw_tex_view v = decode_view(&t);
   struct agx_sampler sd = sampler(AGX_FILTER_NEAREST, AGX_MIP_FILTER_NONE, AGX_WRAP_REPEAT);
   struct hw_tex_sampler s = decode_sampler(&sd, NULL);
   struct hw_tex_lod lod = { .mode = HW_TEX_LOD_AUTO, .min_lod = -INFINITY };
   struct hw_tex_coord c = { .s = 0.5f, .t = 0.5f };
   union hw_texel o;
   for (unsigned comp = 0; comp < 4; comp++) {
      struct hw_tex_sample_req req = { HW_TEX_OP_GATHER, comp, false };
      assert_int_equal(hw_tex_sample(&tex_mmu, &v, &s, &req, &c, &lod, &o), HW_TEX_OK);
      /* (i0,j1), (i1,j1), (i1,j0), (i0,j0) */
      uint32_t base = comp == 0 ? 0 : comp == 1 ? 100 : 0;
      if (comp == 3) {
         for (unsigned k = 0; k < 4; k++)
            assert_int_equal(o.u[k], 1);               /* missing alpha = 1 */
      } else if (comp == 2) {
         for (unsigned k = 0; k < 4; k++)
            assert_int_equal(o.u[k], 0);
      } else {
         assert_int_equal(o.u[0], base + 1);
         assert_int_equal(o.u[1], base + 11);
         assert_int_equal(o.u[2], base + 10);
         assert_int_equal(o.u[3], base + 0);
      }
   }
   /* at the corner with repeat, the footprint wraps: i0 = -1 -> 1 */
   c.s = 0.0f;
   c.t = 0.0f;
   struct hw_tex_sample_req req = { HW_TEX_OP_GATHER, 0, false };
   assert_int_equal(hw_tex_sample(&tex_mmu, &v, &s, &req, &c, &lod, &o), HW_TEX_OK);
   assert_int_equal(o.u[0], 10);   /* (1, 0) */
   assert_int_equal(o.u[1], 0);    /* (0, 0) */
   assert_int_equal(o.u[2], 1);    /* (0, 1) */
   assert_int_equal(o.u[3], 11);   /* (1, 1) */
}

static void
test_texture_load(void **state)
{
   (void)state;
   struct hw_tex_view v = mip_texture(0, 4);
   union hw_texel o;
   assert_int_equal(hw_tex_load(&tex_mmu, &v, 3, 5, 0, 1, 0, &o), HW_TEX_OK);
   assert_true(o.f[0] == 1.0f && o.f[3] == 1.0f);
   put_f32(IMG_VA + hw_tex_offset(&v.layout, 7, 2, 0, 1), 42.0f);
   assert_int_equal(hw_tex_load(&tex_mmu, &v, 7, 2, 0, 1, 0, &o), HW_TEX_OK);
   assert_true(o.f[0] == 42.0f);
   /* out of range: zeros, not a fault */
   assert_int_equal(hw_tex_load(&tex_mmu, &v, 8, 0, 0, 1, 0, &o), HW_TEX_OK);
   assert_true(o.u[0] == 0 && o.u[3] == 0);
   assert_int_equal(hw_tex_load(&tex_mmu, &v, -1, 0, 0, 0, 0, &o), HW_TEX_OK);
   assert_true(o.u[3] == 0);
   assert_int_equal(hw_tex_load(&tex_mmu, &v, 0, 0, 0, 5, 0, &o), HW_TEX_OK);
   assert_true(o.u[3] == 0);
   assert_int_equal(hw_tex_load(&tex_mmu, &v, 0, 0, 1, 0, 0, &o), HW_TEX_OK);
   assert_true(o.u[3] == 0);

   /* multisampled 2x2, 4 samples of R8 uint: samples consecutive */
   struct agx_texture t = { AGX_TEXTURE_HEADER };
   t.dimension = AGX_TEXTURE_DIMENSION_2D_MS;
   t.layout = AGX_LAYOUT_TWIDDLED;
   t.channels = AGX_CHANNELS_R8;
   t.type = AGX_TEXTURE_TYPE_UINT;
   t.width = t.height = 2;
   t.samples = AGX_SAMPLE_COUNT_4;
   t.address = IMG2_VA;
   struct hw_tex_view ms = decode_view(&t);
   assert_int_equal(ms.samples, 4);
   assert_int_equal(ms.layout.block_bytes, 4);
   uint64_t at = IMG2_VA + hw_tex_offset(&ms.layout, 1, 1, 0, 0);
   for (unsigned s = 0; s < 4; s++)
      tex_host(at)[s] = (uint8_t)(0x10 + s);
   for (unsigned s = 0; s < 4; s++) {
      assert_int_equal(hw_tex_load(&tex_mmu, &ms, 1, 1, 0, 0, s, &o), HW_TEX_OK);
      assert_int_equal(o.u[0], 0x10 + s);
   }
   assert_int_equal(hw_tex_load(&tex_mmu, &ms, 1, 1, 0, 0, 4, &o), HW_TEX_OK);
   assert_int_equal(o.u[3], 0);
   /* sampling a multisampled texture is refused */
   struct agx_sampler sd = sampler(AGX_FILTER_NEAREST, AGX_MIP_FILTER_NONE, AGX_WRAP_REPEAT);
   struct hw_tex_sampler smp = decode_sampler(&sd, NULL);
   struct hw_tex_coord c = { 0 };
   struct hw_tex_lod lod = { .mode = HW_TEX_LOD_EXPLICIT, .min_lod = -INFINITY };
   assert_int_equal(hw_tex_sample(&tex_mmu, &ms, &smp, &plain, &c, &lod, &o), HW_TEX_BAD_ARGS);
}

static void
test_swizzle_srgb_array(void **state)
{
   (void)state;
   uint8_t px[4] = { 0x80, 0x40, 0x20, 0xff };
   memcpy(tex_host(IMG_VA), px, 4);
   struct agx_texture t = tex_linear(AGX_CHANNELS_R8G8B8A8, AGX_TEXTURE_TYPE_UNORM, 1, 1, 16);
   t.swizzle_r = AGX_CHANNEL_A;
   t.swizzle_g = AGX_CHANNEL_1;
   t.swizzle_b = AGX_CHANNEL_0;
   t.swizzle_a = AGX_CHANNEL_R;
   struct hw_tex_view v = decode_view(&t);
   struct agx_sampler sd = sampler(AGX_FILTER_NEAREST, AGX_MIP_FILTER_NONE, AGX_WRAP_REPEAT);
   struct hw_tex_sampler s = decode_sampler(&sd, NULL);
   union hw_texel o = sample2d(&v, &s, 0.5f, 0.5f);
   assert_true(o.f[0] == 1.0f && o.f[1] == 1.0f && o.f[2] == 0.0f);
   assert_true(fabsf(o.f[3] - 128 / 255.0f) < 1e-7f);
   t.swizzle_r = AGX_CHANNEL_R;
   t.swizzle_g = AGX_CHANNEL_G;
   t.swizzle_b = AGX_CHANNEL_B;
   t.swizzle_a = AGX_CHANNEL_A;
   t.srgb = true;
   v = decode_view(&t);
   o = sample2d(&v, &s, 0.5f, 0.5f);
   double c = 0x80 / 255.0;
   assert_true(fabs(o.f[0] - pow((c + 0.055) / 1.055, 2.4)) < 1e-6);
   assert_true(o.f[3] == 1.0f);

   /* 2D array (twiddled, 3 layers): the layer selects the slice */
   struct agx_texture a = { AGX_TEXTURE_HEADER };
   a.dimension = AGX_TEXTURE_DIMENSION_2D_ARRAY;
   a.layout = AGX_LAYOUT_TWIDDLED;
   a.channels = AGX_CHANNELS_R32;
   a.type = AGX_TEXTURE_TYPE_FLOAT;
   a.width = a.height = 4;
   a.depth = 3;
   a.address = IMG2_VA;
   struct hw_tex_view av = decode_view(&a);
   assert_int_equal(av.layers, 3);
   for (unsigned l = 0; l < 3; l++)
      put_f32(IMG2_VA + hw_tex_offset(&av.layout, 1, 2, l, 0), 7.0f + l);
   for (unsigned l = 0; l < 4; l++) {
      struct hw_tex_coord cc = { .s = 0.375f, .t = 0.625f, .layer = l };
      struct hw_tex_lod lod = { .mode = HW_TEX_LOD_EXPLICIT, .min_lod = -INFINITY };
      assert_int_equal(hw_tex_sample(&tex_mmu, &av, &s, &plain, &cc, &lod, &o), HW_TEX_OK);
      assert_true(o.f[0] == 7.0f + (l < 3 ? l : 2));   /* layer clamps */
   }
}

static void
test_cube(void **state)
{
   (void)state;
   struct agx_texture t = { AGX_TEXTURE_HEADER };
   t.dimension = AGX_TEXTURE_DIMENSION_CUBE;
   t.layout = AGX_LAYOUT_TWIDDLED;
   t.channels = AGX_CHANNELS_R32;
   t.type = AGX_TEXTURE_TYPE_FLOAT;
   t.width = t.height = 2;
   t.depth = 1;
   t.address = IMG_VA;
   struct hw_tex_view v = decode_view(&t);
   assert_int_equal(v.layers, 6);
   for (unsigned f = 0; f < 6; f++)
      for (unsigned y = 0; y < 2; y++)
         for (unsigned x = 0; x < 2; x++)
            put_f32(IMG_VA + hw_tex_offset(&v.layout, x, y, f, 0), (float)(10 * f + 2 * y + x));
   struct agx_sampler sd = sampler(AGX_FILTER_NEAREST, AGX_MIP_FILTER_NONE, AGX_WRAP_REPEAT);
   struct hw_tex_sampler s = decode_sampler(&sd, NULL);
   /* direction, face, and the (s, t) quadrant by the GL table */
   static const struct { float d[3]; float want; } cases[] = {
      { { 1, 0.5f, 0.5f }, 0 + 0 },     /* +X: sc = -z < 0, tc = -y < 0 -> (0,0) */
      { { -1, -0.5f, 0.5f }, 10 + 2 + 1 }, /* -X: sc = +z, tc = -y > 0 -> (1,1) */
      { { 0.5f, 1, 0.5f }, 20 + 2 + 1 }, /* +Y: sc = x, tc = z -> (1,1) */
      { { 0.5f, -1, 0.5f }, 30 + 0 + 1 }, /* -Y: sc = x, tc = -z -> (1,0) */
      { { -0.5f, 0.5f, 1 }, 40 + 0 + 0 }, /* +Z: sc = x, tc = -y -> (0,0) */
      { { -0.5f, 0.5f, -1 }, 50 + 0 + 1 }, /* -Z: sc = -x, tc = -y -> (1,0) */
   };
   for (unsigned k = 0; k < 6; k++) {
      struct hw_tex_coord c = { .s = cases[k].d[0], .t = cases[k].d[1], .r = cases[k].d[2] };
      struct hw_tex_lod lod = { .mode = HW_TEX_LOD_EXPLICIT, .min_lod = -INFINITY };
      union hw_texel o;
      assert_int_equal(hw_tex_sample(&tex_mmu, &v, &s, &plain, &c, &lod, &o), HW_TEX_OK);
      if (o.f[0] != cases[k].want)
         fail_msg("case %u: %g, want %g", k, o.f[0], cases[k].want);
   }
}

/* Linear filtering across a cube face edge (Seamful Cube Maps clear, as
 * Mesa programs GL's TEXTURE_CUBE_MAP_SEAMLESS): the texel past the left
 * edge of +Z is the right-edge texel of -X in the same row (GL's face
 * table: -X has sc = +z, tc = -y; +Z has sc = x, tc = -y). With the bit
 * set the face clamps. The model used to clamp always. */
static void
test_cube_seamless(void **state)
{
   (void)state;
   struct agx_texture t = { AGX_TEXTURE_HEADER };
   t.dimension = AGX_TEXTURE_DIMENSION_CUBE;
   t.layout = AGX_LAYOUT_TWIDDLED;
   t.channels = AGX_CHANNELS_R32;
   t.type = AGX_TEXTURE_TYPE_FLOAT;
   t.width = t.height = 2;
   t.depth = 1;
   t.address = IMG_VA;
   struct hw_tex_view v = decode_view(&t);
   for (unsigned f = 0; f < 6; f++)
      for (unsigned y = 0; y < 2; y++)
         for (unsigned x = 0; x < 2; x++)
            put_f32(IMG_VA + hw_tex_offset(&v.layout, x, y, f, 0), (float)(10 * f + 2 * y + x));
   struct agx_sampler sd = sampler(AGX_FILTER_LINEAR, AGX_MIP_FILTER_NONE, AGX_WRAP_REPEAT);
   /* +Z at s = 0.125 (u = -0.25: texels -1 and 0, weights 0.25 / 0.75),
    * t = 0.25 (row 0 exactly): direction (-0.75, 0.5, 1). */
   struct hw_tex_coord c = { .s = -0.75f, .t = 0.5f, .r = 1 };
   struct hw_tex_lod lod = { .mode = HW_TEX_LOD_EXPLICIT, .min_lod = -INFINITY };
   const float want[2] = { 0.25f * 11 + 0.75f * 40, 40 };   /* seamless, seamful */
   for (unsigned seamful = 0; seamful < 2; seamful++) {
      sd.seamful_cube_maps = seamful;
      struct hw_tex_sampler s = decode_sampler(&sd, NULL);
      union hw_texel o;
      assert_int_equal(hw_tex_sample(&tex_mmu, &v, &s, &plain, &c, &lod, &o), HW_TEX_OK);
      if (fabsf(o.f[0] - want[seamful]) > 1e-5f)
         fail_msg("seamful %u: %g, want %g", seamful, o.f[0], want[seamful]);
   }
}

static struct hw_tex_image
decode_image(const struct agx_pbe *p)
{
   struct agx_pbe_packed pk;
   struct agx_pack_error pe;
   if (!agx_pbe_pack_checked(&pk, p, &pe))
      fail_msg("pack: %s", pe.msg);
   struct hw_tex_image im;
   char err[160];
   if (!hw_tex_image_decode(&im, pk.opaque, err, sizeof(err)))
      fail_msg("decode: %s", err);
   return im;
}

static void
test_image_store(void **state)
{
   (void)state;
   struct agx_pbe p = { AGX_PBE_HEADER };
   p.layout = AGX_LAYOUT_LINEAR;
   p.channels = AGX_CHANNELS_R8G8B8A8;
   p.type = AGX_TEXTURE_TYPE_UNORM;
   p.swizzle_r = AGX_CHANNEL_R;
   p.swizzle_g = AGX_CHANNEL_G;
   p.swizzle_b = AGX_CHANNEL_B;
   p.swizzle_a = AGX_CHANNEL_A;
   p.width = 4;
   p.height = 3;
   p.buffer = IMG_VA;
   p.stride = 64 - 4;
   struct hw_tex_image im = decode_image(&p);
   union hw_texel v = { .f = { 1.0f, 0.5f, 0.0f, 0.2f } };
   assert_int_equal(hw_tex_image_store(&pbe_mmu, &im, 2, 1, 0, 0, 0, &v, false), HW_TEX_OK);
   static const uint8_t want[4] = { 255, 128, 0, 51 };
   assert_memory_equal(tex_host(IMG_VA + 64 + 8), want, 4);
   assert_int_equal(hw_tex_image_store(&pbe_mmu, &im, 2, 1, 0, 0, 0, &v, true), HW_TEX_OK);
   assert_int_equal(tex_host(IMG_VA + 64 + 8)[1], 127);
   /* BGRA through the swizzle: memory byte 0 takes source component B */
   p.swizzle_r = AGX_CHANNEL_B;
   p.swizzle_b = AGX_CHANNEL_R;
   im = decode_image(&p);
   assert_int_equal(hw_tex_image_store(&pbe_mmu, &im, 0, 0, 0, 0, 0, &v, false), HW_TEX_OK);
   static const uint8_t bgra[4] = { 0, 128, 255, 51 };
   assert_memory_equal(tex_host(IMG_VA), bgra, 4);
   /* out of range: dropped */
   uint8_t before[256];
   memcpy(before, tex_host(IMG_VA), sizeof(before));
   assert_int_equal(hw_tex_image_store(&pbe_mmu, &im, 4, 0, 0, 0, 0, &v, false), HW_TEX_OK);
   assert_int_equal(hw_tex_image_store(&pbe_mmu, &im, 0, -1, 0, 0, 0, &v, false), HW_TEX_OK);
   assert_int_equal(hw_tex_image_store(&pbe_mmu, &im, 0, 0, 1, 0, 0, &v, false), HW_TEX_OK);
   assert_memory_equal(before, tex_host(IMG_VA), sizeof(before));

   /* twiddled R32 uint, level 1 of a mipmapped 8x8 array of 2 layers */
   struct agx_pbe q = { AGX_PBE_HEADER };
   q.dimension = AGX_TEXTURE_DIMENSION_2D_ARRAY;
   q.layout = AGX_LAYOUT_TWIDDLED;
   q.channels = AGX_CHANNELS_R32;
   q.type = AGX_TEXTURE_TYPE_UINT;
   q.width = q.height = 8;
   q.levels = 4;
   q.layers = 2;
   q.level = 1;
   q.buffer = IMG2_VA;
   q.page_aligned_layers = true;
   im = decode_image(&q);
   union hw_texel iv = { .u = { 0xdeadbeef, 1, 2, 3 } };
   assert_int_equal(hw_tex_image_store(&pbe_mmu, &im, 3, 2, 1, 0, 0, &iv, false), HW_TEX_OK);
   uint32_t got;
   memcpy(&got, tex_host(IMG2_VA + hw_tex_offset(&im.layout, 3, 2, 1, 1)), 4);
   assert_int_equal(got, 0xdeadbeef);
   assert_int_equal(hw_tex_offset(&im.layout, 3, 2, 1, 1), 16384 + 256 + 4 * 13);
}

static void
test_block_store(void **state)
{
   (void)state;
   /* A 4x4 tile, two render targets per pixel (8 bytes): the second is
    * RGBA u8norm at offset 4.  Image: twiddled 6x6 RGBA8, tile at (4, 4)
    * is only 2x2 inside the image. */
   uint8_t tile[4 * 4 * 8];
   for (unsigned i = 0; i < sizeof(tile); i++)
      tile[i] = (uint8_t)(i * 7 + 3);
   struct hw_tex_tile tt = {
      .mem = tile, .size = sizeof(tile), .width = 4, .height = 4, .samples = 1,
      .row_stride = 32, .pixel_stride = 8, .sample_stride = 0, .x0 = 4, .y0 = 4,
   };
   struct agx_pbe p = { AGX_PBE_HEADER };
   p.layout = AGX_LAYOUT_TWIDDLED;
   p.channels = AGX_CHANNELS_R8G8B8A8;
   p.type = AGX_TEXTURE_TYPE_UNORM;
   p.swizzle_r = AGX_CHANNEL_R;
   p.swizzle_g = AGX_CHANNEL_G;
   p.swizzle_b = AGX_CHANNEL_B;
   p.swizzle_a = AGX_CHANNEL_A;
   p.width = p.height = 6;
   p.buffer = IMG_VA;
   struct hw_tex_image im = decode_image(&p);
   memset(tex_host(IMG_VA), 0xee, 16384);
   char err[160];
   assert_int_equal(hw_tex_block_store(&pbe_mmu, &im, &tt, HW_TEX_MEM_U8NORM, 4, 0, false,
                                       err, sizeof(err)), HW_TEX_OK);
   for (unsigned y = 0; y < 6; y++)
      for (unsigned x = 0; x < 6; x++) {
         const uint8_t *got = tex_host(IMG_VA + hw_tex_offset(&im.layout, x, y, 0, 0));
         if (x >= 4 && y >= 4) {
            const uint8_t *src = tile + (y - 4) * 32 + (x - 4) * 8 + 4;
            assert_memory_equal(got, src, 4);
         } else {
            static const uint8_t untouched[4] = { 0xee, 0xee, 0xee, 0xee };
            assert_memory_equal(got, untouched, 4);
         }
      }
   /* An srgba8 tilebuffer holds sRGB-encoded bytes; Mesa's end-of-tile
    * program stores it through a linear RGBA8 PBE ("already in sRGB
    * space, do not convert"): the bytes arrive unchanged, and so they do
    * through an sRGB PBE (decode then encode). The model used to decode
    * them into the linear image. */
   for (unsigned srgb = 0; srgb < 2; srgb++) {
      struct agx_pbe ps = p;
      ps.srgb = srgb;
      struct hw_tex_image ims = decode_image(&ps);
      memset(tex_host(IMG_VA), 0xee, 16384);
      assert_int_equal(hw_tex_block_store(&pbe_mmu, &ims, &tt, HW_TEX_MEM_SRGBA8, 4, 0, false,
                                          err, sizeof(err)), HW_TEX_OK);
      for (unsigned y = 4; y < 6; y++)
         for (unsigned x = 4; x < 6; x++)
            assert_memory_equal(tex_host(IMG_VA + hw_tex_offset(&ims.layout, x, y, 0, 0)),
                                tile + (y - 4) * 32 + (x - 4) * 8 + 4, 4);
   }
   /* f16 tilebuffer data into an RGBA16F image through a linear PBE */
   uint16_t h[4 * 4 * 4];
   for (unsigned i = 0; i < 64; i++)
      h[i] = hw_tex_float_to_half((float)i * 0.5f, false);
   struct hw_tex_tile th = {
      .mem = (const uint8_t *)h, .size = sizeof(h), .width = 4, .height = 4, .samples = 1,
      .row_stride = 32, .pixel_stride = 8,
   };
   struct agx_pbe q = p;
   q.layout = AGX_LAYOUT_LINEAR;
   q.channels = AGX_CHANNELS_R16G16B16A16;
   q.type = AGX_TEXTURE_TYPE_FLOAT;
   q.width = q.height = 4;
   q.stride = 32 - 4;
   q.buffer = IMG2_VA;
   im = decode_image(&q);
   assert_int_equal(hw_tex_block_store(&pbe_mmu, &im, &th, HW_TEX_MEM_F16, 0, 0, false,
                                       err, sizeof(err)), HW_TEX_OK);
   assert_memory_equal(tex_host(IMG2_VA), h, sizeof(h));
   /* a tilebuffer read past the tile is an error, not a crash */
   th.size = sizeof(h) - 2;
   assert_int_equal(hw_tex_block_store(&pbe_mmu, &im, &th, HW_TEX_MEM_F16, 0, 0, false,
                                       err, sizeof(err)), HW_TEX_BAD_ARGS);
   assert_non_null(strstr(err, "past"));
   assert_int_equal(hw_tex_block_store(&pbe_mmu, &im, &tt, 9, 0, 0, false, err, sizeof(err)),
                    HW_TEX_BAD_ARGS);
}

/* Stores one tile into a twiddled 128x128 RGBA8 image (BGRA swizzle) at
 * `va` and checks every texel of the image: the tile's bytes swizzled
 * inside it, the 0xee fill outside. */
static void
block_store_check_fmt(uint64_t va, uint32_t x0, uint32_t y0, uint32_t w, uint32_t h, bool linear,
                      bool swap, bool srgb, unsigned pstride)
{
   static uint8_t tile[32 * 32 * 8];
   for (unsigned i = 0; i < sizeof(tile); i++)
      tile[i] = (uint8_t)(i * 13 + x0 + 3 * y0 + w);
   struct hw_tex_tile tt = {
      .mem = tile, .size = (size_t)w * h * pstride, .width = w, .height = h, .samples = 1,
      .row_stride = w * pstride, .pixel_stride = pstride, .x0 = x0, .y0 = y0,
   };
   struct agx_pbe p = { AGX_PBE_HEADER };
   p.layout = linear ? AGX_LAYOUT_LINEAR : AGX_LAYOUT_TWIDDLED;
   if (linear)
      p.stride = 128 * 4 - 4;
   p.channels = AGX_CHANNELS_R8G8B8A8;
   p.type = AGX_TEXTURE_TYPE_UNORM;
   p.srgb = srgb;
   p.swizzle_r = swap ? AGX_CHANNEL_B : AGX_CHANNEL_R;
   p.swizzle_g = AGX_CHANNEL_G;
   p.swizzle_b = swap ? AGX_CHANNEL_R : AGX_CHANNEL_B;
   p.swizzle_a = AGX_CHANNEL_A;
   p.width = p.height = 128;
   p.buffer = va;
   struct hw_tex_image im = decode_image(&p);
   memset(tex_host(va), 0xee, 65536);
   char err[160];
   assert_int_equal(hw_tex_block_store(&pbe_mmu, &im, &tt, HW_TEX_MEM_U8NORM, 0, 0, false,
                                       err, sizeof(err)), HW_TEX_OK);
   for (uint32_t y = 0; y < 128; y++)
      for (uint32_t x = 0; x < 128; x++) {
         const uint8_t *got = tex_host(va + hw_tex_offset(&im.layout, x, y, 0, 0));
         uint8_t want[4] = { 0xee, 0xee, 0xee, 0xee };
         if (x >= x0 && x < x0 + w && y >= y0 && y < y0 + h) {
            const uint8_t *src = tile + ((y - y0) * w + (x - x0)) * pstride;
            want[0] = src[swap ? 2 : 0];
            want[1] = src[1];
            want[2] = src[swap ? 0 : 2];
            want[3] = src[3];
            if (srgb) {
               /* u8norm to an sRGB image: R, G, B encoded, alpha as is */
               for (unsigned c = 0; c < 3; c++) {
                  double l = want[c] / 255.0;
                  double e = l <= 0.0031308 ? l * 12.92 : 1.055 * pow(l, 1 / 2.4) - 0.055;
                  want[c] = (uint8_t)lround(e * 255.0);
               }
            }
         }
         if (srgb) {
            for (unsigned c = 0; c < 4; c++)
               assert_true(abs((int)got[c] - (int)want[c]) <= 1);
         } else {
            assert_memory_equal(got, want, 4);
         }
      }
}

static void
block_store_check(uint64_t va, uint32_t x0, uint32_t y0, uint32_t w, uint32_t h, bool linear)
{
   block_store_check_fmt(va, x0, y0, w, h, linear, true, false, 4);
}

/* The end-of-tile store writes an aligned power-of-two tile of a twiddled
 * image as one Morton range and a linear image's tile row by row
 * (hw_tex_write.c); other tiles take the per-texel path. Every shape gives
 * the per-texel definition's bytes. */
static void
test_block_store_morton(void **state)
{
   (void)state;
   for (unsigned lin = 0; lin < 2; lin++) {
      block_store_check(IMG_VA, 32, 64, 32, 32, lin);   /* square: one range */
      block_store_check(IMG_VA, 48, 8, 16, 8, lin);     /* w = 2h: one range */
      block_store_check(IMG_VA, 8, 16, 8, 16, lin);     /* w = h/2: not contiguous */
      block_store_check(IMG_VA, 112, 112, 32, 32, lin); /* past the image edge */
      block_store_check(IMG_VA, 40, 0, 16, 16, lin);    /* unaligned origin */
      /* image at +0x3800: the 32x32 range at (0, 0) spans two pages */
      block_store_check(IMG_VA + 0x3800, 0, 0, 32, 32, lin);
      block_store_check(IMG_VA + 0x3800, 32, 32, 32, 32, lin);
   }
   /* a tile wholly right of a linear image writes nothing */
   block_store_check(IMG_VA, 128, 0, 32, 32, true);
}

/* The conversion tables are built once per (formats, swizzle, rounding)
 * and kept: an identity conversion (RGBA8 tilebuffer to an RGBA8 unorm
 * image, identity swizzle) copies rows and texels as they are, and a
 * swizzled or sRGB store of the same formats, taken in between, must
 * find its own table, not that one. Also a tilebuffer of two render
 * targets (8-byte pixels), where rows are not contiguous. */
static void
test_block_store_tables(void **state)
{
   (void)state;
   for (unsigned round = 0; round < 2; round++)
      for (unsigned lin = 0; lin < 2; lin++) {
         block_store_check_fmt(IMG_VA, 32, 64, 32, 32, lin, false, false, 4);
         block_store_check_fmt(IMG_VA, 32, 64, 32, 32, lin, true, false, 4);
         block_store_check_fmt(IMG_VA, 32, 64, 32, 32, lin, false, true, 4);
         block_store_check_fmt(IMG_VA, 112, 112, 32, 32, lin, false, false, 4);
         block_store_check_fmt(IMG_VA + 0x3800, 0, 0, 32, 32, lin, false, false, 4);
         block_store_check_fmt(IMG_VA, 32, 64, 32, 32, lin, false, false, 8);
         block_store_check_fmt(IMG_VA, 40, 0, 16, 16, lin, false, false, 8);
         /* rows cut to 7 texels by the image's edge: the row
          * conversion's tail (lut_convert_row), swapped and not */
         block_store_check_fmt(IMG_VA, 121, 64, 32, 32, lin, true, false, 4);
         block_store_check_fmt(IMG_VA, 121, 64, 32, 32, lin, false, false, 4);
      }
}

static void
test_faults(void **state)
{
   (void)state;
   struct agx_texture t = tex_linear(AGX_CHANNELS_R32, AGX_TEXTURE_TYPE_FLOAT, 4, 4, 32);
   t.address = 0x10000000;                            /* unmapped */
   struct hw_tex_view v = decode_view(&t);
   struct agx_sampler sd = sampler(AGX_FILTER_LINEAR, AGX_MIP_FILTER_NONE, AGX_WRAP_REPEAT);
   struct hw_tex_sampler s = decode_sampler(&sd, NULL);
   struct hw_tex_coord c = { .s = 0.5f, .t = 0.5f };
   struct hw_tex_lod lod = { .mode = HW_TEX_LOD_EXPLICIT, .min_lod = -INFINITY };
   union hw_texel o;
   assert_int_equal(hw_tex_sample(&tex_mmu, &v, &s, &plain, &c, &lod, &o), HW_TEX_FAULT);
   assert_true(tex_mmu.fault.valid);
   assert_int_equal(tex_mmu.fault.unit, HW_UNIT_TEX);
   assert_true(tex_mmu.fault.read);
   assert_true(tex_mmu.fault.addr >= 0x10000000 && tex_mmu.fault.addr < 0x10000000 + 128);

   struct agx_pbe p = { AGX_PBE_HEADER };
   p.layout = AGX_LAYOUT_LINEAR;
   p.channels = AGX_CHANNELS_R32;
   p.type = AGX_TEXTURE_TYPE_FLOAT;
   p.width = p.height = 4;
   p.stride = 16 - 4;
   p.buffer = 0x20000000;
   struct hw_tex_image im = decode_image(&p);
   union hw_texel val = { .f = { 1, 2, 3, 4 } };
   assert_int_equal(hw_tex_image_store(&pbe_mmu, &im, 1, 1, 0, 0, 0, &val, false), HW_TEX_FAULT);
   assert_int_equal(pbe_mmu.fault.unit, HW_UNIT_PBE);
   assert_false(pbe_mmu.fault.read);
   assert_true(pbe_mmu.fault.addr == 0x20000000 + 16 + 4);
}

static void
test_bad_descriptors(void **state)
{
   (void)state;
   char err[160];
   struct hw_tex_view v;
   struct agx_texture t = tex_linear(AGX_CHANNELS_R32, AGX_TEXTURE_TYPE_FLOAT, 4, 4, 32);
   struct agx_texture_packed p;
   /* A compressed (lossless) image has the twiddled body
    * (HW_TEX_COMPRESSION): the same layout as a twiddled one. */
   struct hw_tex_view vt;
   t.layout = AGX_LAYOUT_TWIDDLED;
   agx_texture_pack(&p, &t);
   assert_true(hw_tex_view_decode(&vt, p.opaque, err, sizeof(err)));
   t.layout = AGX_LAYOUT_COMPRESSED;
   agx_texture_pack(&p, &t);
   assert_true(hw_tex_view_decode(&v, p.opaque, err, sizeof(err)));
   assert_true(v.layout.twiddled);
   assert_memory_equal(&v.layout, &vt.layout, sizeof(v.layout));
   t = tex_linear(AGX_CHANNELS_R32, AGX_TEXTURE_TYPE_FLOAT, 4, 4, 32);
   t.swizzle_r = 7;   /* no such channel */
   agx_texture_pack(&p, &t);
   assert_false(hw_tex_view_decode(&v, p.opaque, err, sizeof(err)));
   assert_non_null(strstr(err, "swizzle"));
   t = tex_linear(AGX_CHANNELS_BC1, AGX_TEXTURE_TYPE_UNORM, 4, 4, 32);
   agx_texture_pack(&p, &t);
   assert_false(hw_tex_view_decode(&v, p.opaque, err, sizeof(err)));
   assert_non_null(strstr(err, "BC1"));
   t = tex_linear(AGX_CHANNELS_R32, AGX_TEXTURE_TYPE_FLOAT, 64, 4, 32);   /* stride short */
   agx_texture_pack(&p, &t);
   assert_false(hw_tex_view_decode(&v, p.opaque, err, sizeof(err)));
   t = tex_linear(AGX_CHANNELS_R32, AGX_TEXTURE_TYPE_FLOAT, 4, 4, 32);
   t.layout = AGX_LAYOUT_TWIDDLED;
   t.stride = 0;
   t.last_level = 5;                                  /* 4x4 has 3 levels */
   agx_texture_pack(&p, &t);
   assert_false(hw_tex_view_decode(&v, p.opaque, err, sizeof(err)));
   assert_non_null(strstr(err, "levels"));
   /* null texture reads zeros */
   t.null = true;
   t.last_level = 0;
   agx_texture_pack(&p, &t);
   assert_true(hw_tex_view_decode(&v, p.opaque, err, sizeof(err)));
   union hw_texel o;
   assert_int_equal(hw_tex_load(&tex_mmu, &v, 0, 0, 0, 0, 0, &o), HW_TEX_OK);
   assert_true(o.u[0] == 0 && o.u[3] == 0);

   struct agx_sampler sd = sampler(AGX_FILTER_LINEAR, AGX_MIP_FILTER_NONE, AGX_WRAP_CLAMP_TO_BORDER);
   sd.border_colour = AGX_BORDER_COLOUR_CUSTOM;
   struct agx_sampler_packed sp;
   agx_sampler_pack(&sp, &sd);
   struct hw_tex_sampler s;
   assert_false(hw_tex_sampler_decode(&s, sp.opaque, NULL, err, sizeof(err)));
   assert_non_null(strstr(err, "Border"));
   sp.opaque[3] |= 0xe0;                              /* wrap S = 7 */
   uint8_t b[16] = { 0 };
   assert_false(hw_tex_sampler_decode(&s, sp.opaque, b, err, sizeof(err)));

   struct agx_pbe pb = { AGX_PBE_HEADER };
   pb.layout = AGX_LAYOUT_NULL;
   struct agx_pbe_packed pp;
   agx_pbe_pack(&pp, &pb);
   struct hw_tex_image im;
   assert_false(hw_tex_image_decode(&im, pp.opaque, err, sizeof(err)));
}

/* ---- fast paths against the general path --------------------------------- */

static uint32_t fp_rng = 12345;

static uint32_t
fp_rand(void)
{
   fp_rng = fp_rng * 1664525u + 1013904223u;
   return fp_rng >> 8;
}

/* Random bytes over the first MiB at IMG_VA (the images the fast path
 * comparisons read). */
static void
fill_random_images(void)
{
   for (size_t i = 0; i < (1u << 20); i++)
      tex_test_mem[0x100000 + i] = (uint8_t)fp_rand();
}

/* A coordinate in [-1.5, 2.5) with a fine fraction: inside, across the
 * edges and past them, so every wrap mode and border case is reached. */
static float
fp_coord(void)
{
   return (float)(fp_rand() % 4096) / 1024.0f - 1.5f;
}

/*
 * The 8-bit unorm fast paths (filter_level's nearest and bilinear,
 * hw_tex_load's, in hw_tex_sample.c) against the general path, which clearing
 * hw_tex_sample_fast_paths forces: the same bits out, the same status and
 * the same recorded fault, for twiddled (mipmapped, arrays, odd sizes) and
 * linear images, 1, 2 and 4 components, sRGB, every wrap mode, nearest /
 * linear / mixed filters, all mip filters and texel offsets.
 */
static void
test_fast_paths_match_general(void **state)
{
   (void)state;
   static const unsigned chans[] = { AGX_CHANNELS_R8G8B8A8, AGX_CHANNELS_R8,
                                     AGX_CHANNELS_R8G8 };
   static const unsigned all_wraps[] = {
      AGX_WRAP_REPEAT, AGX_WRAP_CLAMP_TO_EDGE, AGX_WRAP_MIRRORED_REPEAT,
      AGX_WRAP_CLAMP_TO_BORDER, AGX_WRAP_CLAMP_GL, AGX_WRAP_MIRRORED_CLAMP_TO_EDGE,
   };
   fill_random_images();
   unsigned cases = 0;
   for (unsigned img = 0; img < 5; img++) {
      for (unsigned ch = 0; ch < 3; ch++) {
         bool srgb = img == 1 && chans[ch] == AGX_CHANNELS_R8G8B8A8;
         struct agx_texture t;
         if (img == 3)
            t = tex_linear(chans[ch], AGX_TEXTURE_TYPE_UNORM, 13, 9, 64);
         else
            t = tex_twiddled(chans[ch], AGX_TEXTURE_TYPE_UNORM, img == 2 ? 37 : 64,
                             img == 2 ? 23 : 40, img == 4 ? 1 : 0, 4, img == 2 ? 3 : 1);
         t.srgb = srgb;
         t.swizzle_r = AGX_CHANNEL_B;    /* BGRA through the swizzle */
         t.swizzle_b = AGX_CHANNEL_R;
         struct hw_tex_view v = decode_view(&t);
         /* texture_load's fast path, in and out of range */
         for (unsigned k = 0; k < 512; k++) {
            int32_t x = (int32_t)(fp_rand() % 80) - 4, y = (int32_t)(fp_rand() % 50) - 4;
            int32_t z = (int32_t)(fp_rand() % 4);
            uint32_t level = fp_rand() % 6;
            union hw_texel a, b;
            hw_tex_sample_fast_paths = true;
            assert_int_equal(hw_tex_load(&tex_mmu, &v, x, y, z, level, 0, &a), HW_TEX_OK);
            hw_tex_sample_fast_paths = false;
            assert_int_equal(hw_tex_load(&tex_mmu, &v, x, y, z, level, 0, &b), HW_TEX_OK);
            hw_tex_sample_fast_paths = true;
            if (memcmp(&a, &b, sizeof(a)) != 0)
               fail_msg("load img %u ch %u (%d, %d, %d) level %u differs", img, ch, x, y, z,
                        level);
            cases++;
         }
         for (unsigned w = 0; w < 6; w++) {
            for (unsigned f = 0; f < 4; f++) {
               for (unsigned mip = 0; mip < 3; mip++) {
                  struct agx_sampler sd = sampler(f & 1 ? AGX_FILTER_LINEAR : AGX_FILTER_NEAREST,
                                                  mip, all_wraps[w]);
                  if (f >= 2)   /* mixed: the other filter when magnifying */
                     sd.magnify = f & 1 ? AGX_FILTER_NEAREST : AGX_FILTER_LINEAR;
                  sd.wrap_t = (enum agx_wrap)all_wraps[(w + 1) % 6];
                  sd.border_colour = AGX_BORDER_COLOUR_OPAQUE_WHITE;
                  struct hw_tex_sampler s = decode_sampler(&sd, NULL);
                  for (unsigned k = 0; k < 64; k++) {
                     struct hw_tex_coord c = { .s = fp_coord(), .t = fp_coord(),
                                               .layer = fp_rand() % 4 };
                     if (k & 1) {
                        c.offset[0] = (int8_t)(fp_rand() % 16) - 8;
                        c.offset[1] = (int8_t)(fp_rand() % 16) - 8;
                     }
                     struct hw_tex_lod lod = { .mode = HW_TEX_LOD_EXPLICIT,
                                               .lod = (float)(fp_rand() % 64) / 8.0f - 2.0f,
                                               .min_lod = -INFINITY };
                     union hw_texel a, b;
                     hw_tex_sample_fast_paths = true;
                     enum hw_tex_status sa = hw_tex_sample(&tex_mmu, &v, &s, &plain, &c, &lod, &a);
                     hw_tex_sample_fast_paths = false;
                     enum hw_tex_status sb = hw_tex_sample(&tex_mmu, &v, &s, &plain, &c, &lod, &b);
                     hw_tex_sample_fast_paths = true;
                     assert_int_equal(sa, HW_TEX_OK);
                     assert_int_equal(sb, HW_TEX_OK);
                     if (memcmp(&a, &b, sizeof(a)) != 0)
                        fail_msg("img %u ch %u wrap %u filter %u mip %u (%g, %g): "
                                 "%08x %08x %08x %08x vs %08x %08x %08x %08x",
                                 img, ch, w, f, mip, (double)c.s, (double)c.t, a.u[0], a.u[1],
                                 a.u[2], a.u[3], b.u[0], b.u[1], b.u[2], b.u[3]);
                     cases++;
                  }
               }
            }
         }
      }
   }
   assert_true(cases > 10000);

   /* A hard fault part-way through a bilinear footprint: the same status
    * and the same first fault (the fast path's memory calls are the
    * general path's, in order).  The texture's first row is mapped, the
    * rest of it past the end of test memory. */
   struct agx_texture t = tex_linear(AGX_CHANNELS_R8G8B8A8, AGX_TEXTURE_TYPE_UNORM, 4, 4, 4096);
   t.address = TEX_GPU_BASE + TEX_GPU_SIZE - 4096;
   struct hw_tex_view v = decode_view(&t);
   struct agx_sampler sd = sampler(AGX_FILTER_LINEAR, AGX_MIP_FILTER_NONE, AGX_WRAP_REPEAT);
   struct hw_tex_sampler s = decode_sampler(&sd, NULL);
   struct hw_tex_coord c = { .s = 0.4f, .t = 0.2f };
   struct hw_tex_lod lod = { .mode = HW_TEX_LOD_EXPLICIT, .min_lod = -INFINITY };
   union hw_texel o;
   struct hw_fault fa, fb;
   memset(&tex_mmu.fault, 0, sizeof(tex_mmu.fault));
   assert_int_equal(hw_tex_sample(&tex_mmu, &v, &s, &plain, &c, &lod, &o), HW_TEX_FAULT);
   fa = tex_mmu.fault;
   memset(&tex_mmu.fault, 0, sizeof(tex_mmu.fault));
   hw_tex_sample_fast_paths = false;
   assert_int_equal(hw_tex_sample(&tex_mmu, &v, &s, &plain, &c, &lod, &o), HW_TEX_FAULT);
   hw_tex_sample_fast_paths = true;
   fb = tex_mmu.fault;
   assert_true(fa.valid && fb.valid);
   if (fa.addr != fb.addr || fa.addr < TEX_GPU_BASE + TEX_GPU_SIZE)
      fail_msg("fault at 0x%llx vs 0x%llx", (unsigned long long)fa.addr,
               (unsigned long long)fb.addr);
}

/*
 * hw_tex_load_lanes (a SIMD group's texture_load, its level set up once)
 * against hw_tex_load lane by lane with the fast paths off: the same bits
 * for every lane of the mask (in range, out of range, bad levels and
 * layers), no other lane written, and on a fault part-way through, the
 * same first fault with exactly the lanes before it loaded.
 */
static void
test_load_lanes_match_general(void **state)
{
   (void)state;
   fill_random_images();
   static const unsigned chans[] = { AGX_CHANNELS_R8G8B8A8, AGX_CHANNELS_R8,
                                     AGX_CHANNELS_R8G8, AGX_CHANNELS_R32 };
   unsigned cases = 0;
   for (unsigned img = 0; img < 4; img++) {
      for (unsigned ch = 0; ch < 4; ch++) {
         struct agx_texture t;
         unsigned type = chans[ch] == AGX_CHANNELS_R32 ? AGX_TEXTURE_TYPE_FLOAT
                                                       : AGX_TEXTURE_TYPE_UNORM;
         if (img == 3)
            t = tex_linear(chans[ch], type, 13, 9, 64);
         else
            t = tex_twiddled(chans[ch], type, img == 2 ? 37 : 64, img == 2 ? 23 : 40,
                             img == 1 ? 1 : 0, 4, img == 2 ? 3 : 1);
         t.srgb = img == 1 && chans[ch] == AGX_CHANNELS_R8G8B8A8;
         t.swizzle_r = AGX_CHANNEL_B;
         t.swizzle_b = AGX_CHANNEL_R;
         struct hw_tex_view v = decode_view(&t);
         for (unsigned k = 0; k < 64; k++) {
            int32_t x[32], y[32];
            /* a 16x2 group of adjacent pixels somewhere around the image,
             * or scattered coordinates */
            int32_t gx = (int32_t)(fp_rand() % 80) - 8, gy = (int32_t)(fp_rand() % 50) - 4;
            for (unsigned l = 0; l < 32; l++) {
               x[l] = k & 1 ? (int32_t)(fp_rand() % 80) - 4 : gx + (int32_t)(l % 16);
               y[l] = k & 1 ? (int32_t)(fp_rand() % 50) - 4 : gy + (int32_t)(l / 16);
            }
            uint32_t mask = k & 2 ? fp_rand() | fp_rand() << 24 : 0xffffffffu;
            int32_t z = k & 4 ? (int32_t)(fp_rand() % 5) - 1 : 0;
            uint32_t level = k & 8 ? fp_rand() % 6 : 0;
            union hw_texel a[32], b[32];
            memset(a, 0xa5, sizeof(a));
            memset(b, 0xa5, sizeof(b));
            uint32_t loaded;
            assert_int_equal(hw_tex_load_lanes(&tex_mmu, &v, x, y, z, level, mask, a, &loaded),
                             HW_TEX_OK);
            assert_int_equal(loaded, mask);
            hw_tex_sample_fast_paths = false;
            for (unsigned l = 0; l < 32; l++)
               if (mask >> l & 1)
                  assert_int_equal(hw_tex_load(&tex_mmu, &v, x[l], y[l], z, level, 0, &b[l]),
                                   HW_TEX_OK);
            hw_tex_sample_fast_paths = true;
            if (memcmp(a, b, sizeof(a)) != 0)
               fail_msg("img %u ch %u k %u: lanes differ", img, ch, k);
            cases++;
         }
      }
   }
   assert_int_equal(cases, 4 * 4 * 64);

   /* A row running off the end of mapped memory: lanes 0-3 in the last
    * mapped row, lane 4 on (the fault), lanes after it not loaded. */
   struct agx_texture t = tex_linear(AGX_CHANNELS_R8G8B8A8, AGX_TEXTURE_TYPE_UNORM, 16, 4, 4096);
   t.address = TEX_GPU_BASE + TEX_GPU_SIZE - 4096;
   struct hw_tex_view v = decode_view(&t);
   int32_t x[32], y[32];
   for (unsigned l = 0; l < 32; l++) {
      x[l] = (int32_t)(l % 4);
      y[l] = l < 4 ? 0 : 1;
   }
   union hw_texel a[32], b;
   uint32_t loaded;
   memset(&tex_mmu.fault, 0, sizeof(tex_mmu.fault));
   assert_int_equal(hw_tex_load_lanes(&tex_mmu, &v, x, y, 0, 0, ~0u, a, &loaded), HW_TEX_FAULT);
   assert_int_equal(loaded, 0xfu);
   struct hw_fault fa = tex_mmu.fault;
   memset(&tex_mmu.fault, 0, sizeof(tex_mmu.fault));
   hw_tex_sample_fast_paths = false;
   for (unsigned l = 0; l < 4; l++) {
      assert_int_equal(hw_tex_load(&tex_mmu, &v, x[l], y[l], 0, 0, 0, &b), HW_TEX_OK);
      assert_memory_equal(&a[l], &b, sizeof(b));
   }
   hw_tex_sample_fast_paths = true;
   assert_general_load_faults_at(&fa, &v, x[4], y[4]);
}

/*
 * hw_tex_reload_row (a reload's texels as a byte map) against the general
 * path it tabulates: hw_tex_load with the fast paths off, each component
 * of the mask stored with hw_tex_tile_store_comp.  Rows in and around
 * linear and twiddled RGBA8 / sRGB / R8 / RG8 images, swizzles that
 * permute, repeat and select constants (BGRA: the byte permutation;
 * identity: the copy; sRGB: the tables), every one-byte tile format
 * (i8, u8norm, s8norm, srgba8), partial masks, strides of 4 and 12;
 * bytes outside the mask are left alone.  Views and formats without a
 * map are refused, and a row running off mapped memory faults as
 * hw_tex_load does; prefetching such a row records nothing.
 */
static void
test_reload_row_match_general(void **state)
{
   (void)state;
   fill_random_images();
   static const unsigned chans[] = { AGX_CHANNELS_R8G8B8A8, AGX_CHANNELS_R8,
                                     AGX_CHANNELS_R8G8 };
   static const uint8_t swz[][4] = {
      { AGX_CHANNEL_R, AGX_CHANNEL_G, AGX_CHANNEL_B, AGX_CHANNEL_A },
      { AGX_CHANNEL_B, AGX_CHANNEL_G, AGX_CHANNEL_R, AGX_CHANNEL_A },
      { AGX_CHANNEL_A, AGX_CHANNEL_0, AGX_CHANNEL_1, AGX_CHANNEL_R },
      { AGX_CHANNEL_G, AGX_CHANNEL_G, AGX_CHANNEL_R, AGX_CHANNEL_1 },
   };
   static const unsigned fmts[] = { 0, 4, 5, 10 };
   unsigned cases = 0, copies = 0, perms = 0, tables = 0;
   for (unsigned img = 0; img < 3; img++) {
      for (unsigned ch = 0; ch < 3; ch++) {
         for (unsigned sw = 0; sw < 4; sw++) {
            struct agx_texture t;
            if (img == 0)
               t = tex_linear(chans[ch], AGX_TEXTURE_TYPE_UNORM, 37, 23, 256);
            else
               t = tex_twiddled(chans[ch], AGX_TEXTURE_TYPE_UNORM, img == 2 ? 37 : 64,
                                img == 2 ? 23 : 40, 0, img == 1 ? 3 : 0, 1);
            t.srgb = img == 1 && chans[ch] == AGX_CHANNELS_R8G8B8A8;
            t.swizzle_r = (enum agx_channel)swz[sw][0];
            t.swizzle_g = (enum agx_channel)swz[sw][1];
            t.swizzle_b = (enum agx_channel)swz[sw][2];
            t.swizzle_a = (enum agx_channel)swz[sw][3];
            struct hw_tex_view v = decode_view(&t);
            for (unsigned fi = 0; fi < 4; fi++) {
               unsigned F = fmts[fi];
               bool packed = hw_tex_tile_fmt_packed(F);
               for (unsigned k = 0; k < 16; k++) {
                  uint32_t mask = k < 4 ? 0xfu : 1u + fp_rand() % 15u;
                  static struct hw_tex_reload_map m;
                  assert_true(hw_tex_reload_map_init(&m, &v, F, mask));
                  copies += m.copy;
                  perms += m.perm && !m.copy;
                  tables += !m.perm;
                  size_t stride = k & 1 ? 12 : 4;
                  int32_t x = (int32_t)(fp_rand() % 80) - 20, y = (int32_t)(fp_rand() % 50) - 6;
                  unsigned n = k & 2 ? 1 + fp_rand() % 40 : 16;
                  uint8_t got[64 * 12], want[64 * 12];
                  memset(got, 0x5a, sizeof(got));
                  memset(want, 0x5a, sizeof(want));
                  assert_int_equal(hw_tex_reload_row(&tex_mmu, &m, x, y, n, got, stride),
                                   HW_TEX_OK);
                  hw_tex_sample_fast_paths = false;
                  for (unsigned i = 0; i < n; i++) {
                     union hw_texel tx;
                     assert_int_equal(hw_tex_load(&tex_mmu, &v, x + (int32_t)i, y, 0, 0, 0, &tx),
                                      HW_TEX_OK);
                     for (unsigned c = 0; c < 4; c++) {
                        if (!(mask >> c & 1))
                           continue;
                        uint8_t w[4] = { 0, 0, 0, 0 };
                        hw_tex_tile_store_comp(F, c, w, tx.u[c], false);
                        want[i * stride + c] = w[packed ? c : 0];
                     }
                  }
                  hw_tex_sample_fast_paths = true;
                  if (memcmp(got, want, sizeof(got)) != 0)
                     fail_msg("img %u ch %u sw %u F %u k %u: bytes differ", img, ch, sw, F, k);
                  cases++;
               }
            }
         }
      }
   }
   assert_int_equal(cases, 3 * 3 * 4 * 4 * 16);
   assert_true(copies && perms && tables);

   /* no map: a float view, a 16-bit unorm view, rgb10a2 tiles */
   static struct hw_tex_reload_map m;
   struct agx_texture t = tex_linear(AGX_CHANNELS_R32, AGX_TEXTURE_TYPE_FLOAT, 16, 4, 64);
   struct hw_tex_view v = decode_view(&t);
   assert_false(hw_tex_reload_map_init(&m, &v, 4, 0xf));
   t = tex_linear(AGX_CHANNELS_R16G16B16A16, AGX_TEXTURE_TYPE_UNORM, 16, 4, 128);
   v = decode_view(&t);
   assert_false(hw_tex_reload_map_init(&m, &v, 4, 0xf));
   t = tex_linear(AGX_CHANNELS_R8G8B8A8, AGX_TEXTURE_TYPE_UNORM, 16, 4, 64);
   v = decode_view(&t);
   assert_false(hw_tex_reload_map_init(&m, &v, 8, 0xf));
   hw_tex_sample_fast_paths = false;
   assert_false(hw_tex_reload_map_init(&m, &v, 4, 0xf));
   hw_tex_sample_fast_paths = true;

   /* A row running off the end of mapped memory: the second row of a
    * 16-texel-wide image whose first row is the last mapped one. */
   t = tex_linear(AGX_CHANNELS_R8G8B8A8, AGX_TEXTURE_TYPE_UNORM, 16, 4, 64);
   t.address = TEX_GPU_BASE + TEX_GPU_SIZE - 64;
   v = decode_view(&t);
   assert_true(hw_tex_reload_map_init(&m, &v, 4, 0xf));
   uint8_t row[16 * 4];
   memset(&tex_mmu.fault, 0, sizeof(tex_mmu.fault));
   hw_tex_reload_prefetch(&tex_mmu, &m, 0, 0, 16, 4);
   assert_false(tex_mmu.fault.valid);
   assert_int_equal(hw_tex_reload_row(&tex_mmu, &m, 0, 0, 16, row, 4), HW_TEX_OK);
   assert_false(tex_mmu.fault.valid);
   assert_int_equal(hw_tex_reload_row(&tex_mmu, &m, 0, 1, 16, row, 4), HW_TEX_FAULT);
   struct hw_fault fa = tex_mmu.fault;
   assert_general_load_faults_at(&fa, &v, 0, 1);
}

/* The decoders' per-thread caches (hw_tex_desc.c) return what decoding
 * gives: a descriptor differing in any field decodes afresh, a bad one
 * still fails with its message after a good one, and a repeat of an
 * earlier one decodes as it did. */
static void
test_decode_cache(void **state)
{
   (void)state;
   char err[160];
   struct hw_tex_view a, b, c;
   struct agx_texture t = { AGX_TEXTURE_HEADER };
   t.layout = AGX_LAYOUT_TWIDDLED;
   t.channels = AGX_CHANNELS_R8G8B8A8;
   t.type = AGX_TEXTURE_TYPE_UNORM;
   t.width = 64;
   t.height = 40;
   t.address = IMG_VA;
   a = decode_view(&t);
   t.address = IMG2_VA;
   b = decode_view(&t);
   assert_true(a.base == IMG_VA && b.base == IMG2_VA);
   t.width = 65;
   b = decode_view(&t);
   assert_int_equal(b.layout.width, 65);
   t.width = 64;
   t.address = IMG_VA;
   c = decode_view(&t);
   assert_true(c.base == a.base && c.layout.width == 64);
   assert_memory_equal(&c.layout, &a.layout, sizeof(a.layout));
   assert_memory_equal(&c.fmt, &a.fmt, sizeof(a.fmt));
   struct agx_texture_packed p;
   t.swizzle_r = 7;
   agx_texture_pack(&p, &t);
   for (int k = 0; k < 2; k++) {
      err[0] = 0;
      assert_false(hw_tex_view_decode(&c, p.opaque, err, sizeof(err)));
      assert_non_null(strstr(err, "swizzle"));
   }

   struct agx_sampler sd = sampler(AGX_FILTER_LINEAR, AGX_MIP_FILTER_NONE, AGX_WRAP_REPEAT);
   struct hw_tex_sampler s1 = decode_sampler(&sd, NULL);
   sd.wrap_s = AGX_WRAP_CLAMP_TO_EDGE;
   struct hw_tex_sampler s2 = decode_sampler(&sd, NULL);
   assert_int_equal(s1.wrap[0], AGX_WRAP_REPEAT);
   assert_int_equal(s2.wrap[0], AGX_WRAP_CLAMP_TO_EDGE);
   /* the same sampler with two custom borders */
   sd.border_colour = AGX_BORDER_COLOUR_CUSTOM;
   uint32_t b1[4] = { 1, 2, 3, 4 }, b2[4] = { 5, 6, 7, 8 };
   s1 = decode_sampler(&sd, b1);
   s2 = decode_sampler(&sd, b2);
   assert_int_equal(s1.border_raw[0], 1);
   assert_int_equal(s2.border_raw[0], 5);
   struct agx_sampler_packed sp;
   agx_sampler_pack(&sp, &sd);
   assert_false(hw_tex_sampler_decode(&s1, sp.opaque, NULL, err, sizeof(err)));
   assert_non_null(strstr(err, "border"));
}

int
main(void)
{
   const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(test_nearest_wrap, setup),
      cmocka_unit_test_setup(test_bilinear, setup),
      cmocka_unit_test_setup(test_border_colours, setup),
      cmocka_unit_test_setup(test_clamp_gl, setup),
      cmocka_unit_test_setup(test_custom_border_formats, setup),
      cmocka_unit_test_setup(test_mip_selection, setup),
      cmocka_unit_test_setup(test_shadow, setup),
      cmocka_unit_test_setup(test_shadow_swizzle, setup),
      cmocka_unit_test_setup(test_gather, setup),
      cmocka_unit_test_setup(test_texture_load, setup),
      cmocka_unit_test_setup(test_swizzle_srgb_array, setup),
      cmocka_unit_test_setup(test_cube, setup),
      cmocka_unit_test_setup(test_cube_seamless, setup),
      cmocka_unit_test_setup(test_image_store, setup),
      cmocka_unit_test_setup(test_block_store, setup),
      cmocka_unit_test_setup(test_block_store_morton, setup),
      cmocka_unit_test_setup(test_block_store_tables, setup),
      cmocka_unit_test_setup(test_faults, setup),
      cmocka_unit_test_setup(test_nearest_extremes, setup),
      cmocka_unit_test_setup(test_mixed_filters_no_mip, setup),
      cmocka_unit_test_setup(test_bad_descriptors, setup),
      cmocka_unit_test_setup(test_fast_paths_match_general, setup),
      cmocka_unit_test_setup(test_load_lanes_match_general, setup),
      cmocka_unit_test_setup(test_reload_row_match_general, setup),
      cmocka_unit_test_setup(test_decode_cache, setup),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: MIT */
/*
 * hwtex formats: every supported (channels, type) at edge values, the
 * small-float encodings at their corners (denormals, max, inf, NaN), the
 * sRGB curve and the tilebuffer memory formats.  Expected values are
 * computed here from the definitions (double precision) or written out.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cmdstream/agx_pack.h"
#include "hw/tex/hw_tex.h"
#include "hw/tex/hw_tex_format.h"
#include "tessera/float_bits.h"
#include "tessera/half.h"

static struct hw_tex_format
fmt(unsigned ch, unsigned type, bool srgb)
{
   struct hw_tex_format f;
   char err[128];
   if (!hw_tex_format_get(ch, type, srgb, &f, err, sizeof(err)))
      fail_msg("format rejected: %s", err);
   return f;
}

static union hw_texel
texel_f(float r, float g, float b, float a)
{
   union hw_texel t = { .f = { r, g, b, a } };
   return t;
}

static void
test_unorm_snorm_scalars(void **state)
{
   (void)state;
   assert_true(hw_tex_unorm_to_float(255, 8) == 1.0f);
   assert_true(hw_tex_unorm_to_float(0, 8) == 0.0f);
   assert_true(hw_tex_unorm_to_float(65535, 16) == 1.0f);
   assert_int_equal(hw_tex_float_to_unorm(0.5f, 8, false), 128);   /* 127.5 -> even */
   assert_int_equal(hw_tex_float_to_unorm(0.5f, 8, true), 127);
   assert_int_equal(hw_tex_float_to_unorm(NAN, 8, false), 0);
   assert_int_equal(hw_tex_float_to_unorm(-1.0f, 8, false), 0);
   assert_int_equal(hw_tex_float_to_unorm(2.0f, 8, false), 255);
   assert_int_equal(hw_tex_float_to_unorm(INFINITY, 16, false), 65535);
   assert_true(hw_tex_snorm_to_float(0x80, 8) == -1.0f);            /* -128 clamps */
   assert_true(hw_tex_snorm_to_float(0x81, 8) == -1.0f);
   assert_true(hw_tex_snorm_to_float(0x7f, 8) == 1.0f);
   assert_true(hw_tex_snorm_to_float(0x8000, 16) == -1.0f);
   assert_int_equal(hw_tex_float_to_snorm(-1.0f, 8, false), 0x81);
   assert_int_equal(hw_tex_float_to_snorm(1.0f, 8, false), 0x7f);
   assert_int_equal(hw_tex_float_to_snorm(-5.0f, 16, false), 0x8001);
   assert_int_equal(hw_tex_float_to_snorm(NAN, 8, false), 0);
   for (unsigned v = 0; v < 256; v++) {
      float f = hw_tex_unorm_to_float(v, 8);
      assert_true(fabs(f - v / 255.0) < 1e-7);
      assert_int_equal(hw_tex_float_to_unorm(f, 8, false), v);
   }
}

static void
test_half(void **state)
{
   (void)state;
   assert_int_equal(hw_tex_float_to_half(1.0f, false), 0x3c00);
   assert_int_equal(hw_tex_float_to_half(-2.0f, false), 0xc000);
   assert_int_equal(hw_tex_float_to_half(65504.0f, false), 0x7bff);
   assert_int_equal(hw_tex_float_to_half(65520.0f, false), 0x7c00);  /* rounds to inf */
   assert_int_equal(hw_tex_float_to_half(65520.0f, true), 0x7bff);
   assert_int_equal(hw_tex_float_to_half(INFINITY, false), 0x7c00);
   assert_int_equal(hw_tex_float_to_half(-INFINITY, false), 0xfc00);
   assert_int_equal(hw_tex_float_to_half(NAN, false), 0x7e00);
   assert_int_equal(hw_tex_float_to_half(ldexpf(1, -24), false), 0x0001);  /* denormal */
   assert_int_equal(hw_tex_float_to_half(ldexpf(1, -26), false), 0x0000);  /* below half */
   assert_int_equal(hw_tex_float_to_half(ldexpf(3, -26), false), 0x0001);
   assert_int_equal(hw_tex_float_to_half(-0.0f, false), 0x8000);
   /* 1 + 2^-11 is a tie: rounds to even (1.0); 1 + 3*2^-11 goes up */
   assert_int_equal(hw_tex_float_to_half(1.0f + ldexpf(1, -11), false), 0x3c00);
   assert_int_equal(hw_tex_float_to_half(1.0f + 3 * ldexpf(1, -11), false), 0x3c02);
   assert_true(hw_tex_half_to_float(0x0001) == ldexpf(1, -24));
   assert_true(hw_tex_half_to_float(0x03ff) == ldexpf(1023, -24));
   assert_true(isinf(hw_tex_half_to_float(0x7c00)));
   assert_true(isnan(hw_tex_half_to_float(0x7e00)));
   assert_true(hw_tex_half_to_float(0xc000) == -2.0f);
   /* every finite half survives a round trip */
   for (uint32_t h = 0; h < 0x10000; h++) {
      if ((h & 0x7c00) == 0x7c00)
         continue;
      assert_int_equal(hw_tex_float_to_half(hw_tex_half_to_float((uint16_t)h), false), h);
   }
}

/* ---- tessera_f64_to_f16 against the two algorithms it replaced ------- */

/* The texture unit's former float -> half: frexp/ldexp through double. */
static uint16_t
ref_tex_half(float f, bool rtz)
{
   if (isnan(f))
      return 0x7e00;
   uint16_t sign = signbit(f) ? 0x8000 : 0;
   if (isinf(f))
      return sign | 0x7c00;
   double a = fabs((double)f);
   if (a == 0)
      return sign;
   int ex;
   frexp(a, &ex);
   int e = ex - 1;
   if (e < -14) {
      double q = ldexp(a, 24);
      return sign | (uint16_t)(rtz ? trunc(q) : nearbyint(q));
   }
   double r = ldexp(a, 10 - e);
   r = rtz ? trunc(r) : nearbyint(r);
   if (r >= 2048.0) {
      r /= 2;
      e++;
   }
   if (e + 15 >= 31)
      return sign | (rtz ? 0x7bff : 0x7c00);
   return sign | (uint16_t)((uint32_t)(e + 15) << 10 | ((uint32_t)r - 1024));
}

/* The USC's former double -> half: the result's lsb found with clz. */
static uint16_t
ref_usc_half(double d, bool rtz)
{
   uint64_t u;
   memcpy(&u, &d, 8);
   uint16_t sign = (uint16_t)((u >> 48) & 0x8000);
   int e = (int)((u >> 52) & 0x7ff);
   uint64_t m = u & ((1ull << 52) - 1);
   if (e == 0x7ff)
      return m ? 0x7e00 : (uint16_t)(sign | 0x7c00);
   if (e == 0 && m == 0)
      return sign;
   uint64_t mant = e ? (m | (1ull << 52)) : m;
   int exp = (e ? e : 1) - 1075;
   int top = 63 - __builtin_clzll(mant) + exp;
   int lsb = top - 10;
   if (lsb < -24)
      lsb = -24;
   int drop = lsb - exp;
   uint64_t q;
   bool round_up = false;
   if (drop <= 0) {
      q = mant << -drop;
   } else if (drop > 63) {
      q = 0;
   } else {
      q = mant >> drop;
      uint64_t rem = mant & ((1ull << drop) - 1);
      uint64_t half = 1ull << (drop - 1);
      if (!rtz)
         round_up = rem > half || (rem == half && (q & 1));
   }
   if (round_up)
      q++;
   if (q >= (1ull << 11)) {
      q >>= 1;
      lsb++;
   }
   if (q == 0)
      return sign;
   int he = lsb + 10 + 15;
   if (q < (1ull << 10))
      return (uint16_t)(sign | q);
   if (he >= 31)
      return rtz ? (uint16_t)(sign | 0x7bff) : (uint16_t)(sign | 0x7c00);
   return (uint16_t)(sign | (he << 10) | (q & 0x3ff));
}

static void
half_check_double(double d)
{
   for (int rtz = 0; rtz < 2; rtz++) {
      uint16_t want = ref_usc_half(d, rtz), got = tessera_f64_to_f16(d, rtz);
      if (want != got)
         fail_msg("double %a rtz %d: %#x, want %#x", d, rtz, got, want);
   }
}

static void
half_check_float(uint32_t bits)
{
   float f;
   memcpy(&f, &bits, 4);
   half_check_double((double)f);
   if (tessera_f32_to_f16(f) != tessera_f64_to_f16((double)f, false))
      fail_msg("float %#x: tessera_f32_to_f16 %#x, want %#x", bits,
               tessera_f32_to_f16(f), tessera_f64_to_f16((double)f, false));
   for (int rtz = 0; rtz < 2; rtz++) {
      uint16_t want = ref_tex_half(f, rtz), got = hw_tex_float_to_half(f, rtz);
      if (want != got)
         fail_msg("float %#x rtz %d: %#x, want %#x", bits, rtz, got, want);
   }
}

/* The inline conversion (tessera/half.h) gives the replaced algorithms'
 * half for every 61st float of the half range and its edges (exponents
 * 100..145: denormal cut-off to overflow), every 251st float, doubles
 * around every rounding boundary (each half value and each midpoint
 * between neighbours, +-1 and +-2 ulps) and 10^6 random doubles: the
 * model's images do not move (tests/gl/model_golden.sh). Built with
 * -DHALF_STRIDE_ALL=1 it checks all 2^32 floats (about a minute). */
#ifndef HALF_STRIDE_RANGE
#define HALF_STRIDE_RANGE 61
#endif
#ifndef HALF_STRIDE_ALL
#define HALF_STRIDE_ALL 251
#endif
static void
test_half_exact(void **state)
{
   (void)state;
   for (uint32_t s = 0; s < 2; s++)
      for (uint32_t e = 100; e <= 145; e++)
         for (uint32_t m = 0; m < (1u << 23); m += HALF_STRIDE_RANGE)
            half_check_float(s << 31 | e << 23 | m);
   for (uint64_t b = 0; b <= 0xffffffffull; b += HALF_STRIDE_ALL)
      half_check_float((uint32_t)b);
   half_check_float(0x7f800000u);
   half_check_float(0xff800000u);
   half_check_float(0x7fc00000u);
   half_check_float(0x00000001u);
   for (uint32_t h = 0; h < 0x7c00; h++) {
      double v = hw_tex_half_to_float((uint16_t)h);
      double w = hw_tex_half_to_float((uint16_t)(h + 1));
      double mid = h + 1 < 0x7c00 ? (v + w) / 2 : 65520.0;
      double pts[2] = { v, mid };
      /* the float form (tessera_f32_to_f16) at the same points: a
       * midpoint of two halves is a float (12 significant bits) */
      for (unsigned k = 0; k < 2; k++) {
         float fp = (float)pts[k];
         uint32_t fb;
         memcpy(&fb, &fp, 4);
         for (uint32_t i = fb > 2 ? fb - 2 : 0; i <= fb + 2; i++) {
            half_check_float(i);
            half_check_float(i | 0x80000000u);
         }
      }
      for (unsigned k = 0; k < 2; k++) {
         double x = pts[k], lo = x, hi = x;
         for (int i = 0; i < 3; i++) {
            half_check_double(lo);
            half_check_double(-lo);
            half_check_double(hi);
            half_check_double(-hi);
            lo = nextafter(lo, 0);
            hi = nextafter(hi, INFINITY);
         }
      }
   }
   uint64_t x = 0x9e3779b97f4a7c15ull;
   for (unsigned i = 0; i < 1000000; i++) {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      double d;
      /* exponents around the half range mostly, sometimes anywhere */
      uint64_t u = (i & 7) ? (x & 0x800fffffffffffffull) | (uint64_t)(990 + (x >> 20) % 60) << 52
                           : x;
      memcpy(&d, &u, 8);
      half_check_double(d);
   }
}

static void
test_small_floats(void **state)
{
   (void)state;
   /* 11-bit: 5e6m.  1.0 = exponent 15 */
   assert_int_equal(hw_tex_float_to_ufloat(1.0f, 6, false), 15u << 6);
   assert_int_equal(hw_tex_float_to_ufloat(65024.0f, 6, false), 0x7bf);
   assert_int_equal(hw_tex_float_to_ufloat(1e9f, 6, false), 0x7bf);          /* clamps */
   assert_int_equal(hw_tex_float_to_ufloat(INFINITY, 6, false), 0x7c0);
   assert_int_equal(hw_tex_float_to_ufloat(-3.0f, 6, false), 0);
   assert_int_equal(hw_tex_float_to_ufloat(-INFINITY, 6, false), 0);
   uint32_t nan11 = hw_tex_float_to_ufloat(NAN, 6, false);
   assert_int_equal(nan11 >> 6, 31);
   assert_true((nan11 & 63) != 0);
   assert_true(isnan(hw_tex_ufloat_to_float(nan11, 6)));
   assert_int_equal(hw_tex_float_to_ufloat(ldexpf(1, -20), 6, false), 1);     /* denormal */
   assert_true(hw_tex_ufloat_to_float(1, 6) == ldexpf(1, -20));
   assert_true(hw_tex_ufloat_to_float(0x7bf, 6) == 65024.0f);
   /* 10-bit: 5e5m */
   assert_int_equal(hw_tex_float_to_ufloat(1.0f, 5, false), 15u << 5);
   assert_int_equal(hw_tex_float_to_ufloat(64512.0f, 5, false), 0x3df);
   assert_true(hw_tex_ufloat_to_float(1, 5) == ldexpf(1, -19));
   /* rtz: 1 + 1.5 ulp rounds to 1 + 2 ulp (RNE) or 1 + 1 ulp (RTZ) */
   float x = 1.0f + 1.5f / 64;
   assert_int_equal(hw_tex_float_to_ufloat(x, 6, false), (15u << 6) | 2);
   assert_int_equal(hw_tex_float_to_ufloat(x, 6, true), (15u << 6) | 1);
   /* every 11- and 10-bit finite value round trips */
   for (uint32_t v = 0; v < (31u << 6); v++)
      assert_int_equal(hw_tex_float_to_ufloat(hw_tex_ufloat_to_float(v, 6), 6, false), v);
   for (uint32_t v = 0; v < (31u << 5); v++)
      assert_int_equal(hw_tex_float_to_ufloat(hw_tex_ufloat_to_float(v, 5), 5, false), v);
}

static void
test_rgb9e5(void **state)
{
   (void)state;
   float one[3] = { 1.0f, 0, 0 };
   assert_int_equal(hw_tex_float_to_rgb9e5(one, false), (16u << 27) | 0x100);
   float out[3];
   hw_tex_rgb9e5_to_float((16u << 27) | 0x100, out);
   assert_true(out[0] == 1.0f && out[1] == 0 && out[2] == 0);
   float big[3] = { 65408.0f, 1e10f, NAN };
   assert_int_equal(hw_tex_float_to_rgb9e5(big, false), (31u << 27) | 0x1ff | (0x1ffu << 9));
   float tiny[3] = { ldexpf(1, -24), 0, -1.0f };      /* smallest nonzero */
   assert_int_equal(hw_tex_float_to_rgb9e5(tiny, false), 1);
   hw_tex_rgb9e5_to_float(1, out);
   assert_true(out[0] == ldexpf(1, -24));
   /* shared exponent: the smaller component loses precision */
   float mix[3] = { 2.0f, 0.25f, 0.001f };
   uint32_t v = hw_tex_float_to_rgb9e5(mix, false);
   hw_tex_rgb9e5_to_float(v, out);
   assert_true(out[0] == 2.0f && out[1] == 0.25f);
   /* 0.001 with exponent 2^(17-24): quantum 2^-7 * ... = 2^-8 -> 0 */
   assert_true(fabs(out[2] - 0.001) <= ldexp(1, -8));
   /* rounding up into the next exponent: 511.5/512 * 2 */
   float edge[3] = { 1.999f, 0, 0 };
   hw_tex_rgb9e5_to_float(hw_tex_float_to_rgb9e5(edge, false), out);
   assert_true(out[0] == 2.0f);
   hw_tex_rgb9e5_to_float(hw_tex_float_to_rgb9e5(edge, true), out);
   assert_true(out[0] == 511.0f / 256.0f);
}

static void
test_srgb(void **state)
{
   (void)state;
   struct hw_tex_format f = fmt(AGX_CHANNELS_R8G8B8A8, AGX_TEXTURE_TYPE_UNORM, true);
   for (unsigned v = 0; v < 256; v++) {
      uint8_t px[4] = { (uint8_t)v, (uint8_t)v, (uint8_t)v, (uint8_t)v };
      union hw_texel t;
      hw_tex_unpack(&f, px, &t);
      double c = v / 255.0;
      double lin = c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
      assert_true(fabs(t.f[0] - lin) < 2e-6);
      assert_true(fabs(t.f[3] - c) < 1e-7);           /* alpha stays linear */
      uint8_t back[4];
      hw_tex_pack(&f, &t, false, back);
      assert_memory_equal(back, px, 4);
   }
   assert_true(hw_tex_linear_to_srgb(0) == 0 && hw_tex_linear_to_srgb(1) == 1);
   /* linear 0.5 -> 0.7354 -> 187.5.. -> 188 */
   union hw_texel h = texel_f(0.5f, 0.0f, 1.0f, 0.5f);
   uint8_t px[4];
   hw_tex_pack(&f, &h, false, px);
   assert_int_equal(px[0], 188);
   assert_int_equal(px[1], 0);
   assert_int_equal(px[2], 255);
   assert_int_equal(px[3], 128);
}

/* Every supported format: 0 / 1 / -1 / max / NaN through pack+unpack. */
static void
test_all_formats_edges(void **state)
{
   (void)state;
   static const unsigned chans[] = {
      AGX_CHANNELS_R8, AGX_CHANNELS_R8G8, AGX_CHANNELS_R8G8B8A8, AGX_CHANNELS_R16,
      AGX_CHANNELS_R16G16, AGX_CHANNELS_R16G16B16A16, AGX_CHANNELS_R32, AGX_CHANNELS_R32G32,
      AGX_CHANNELS_R32G32B32A32, AGX_CHANNELS_R5G6B5, AGX_CHANNELS_R4G4B4A4,
      AGX_CHANNELS_R5G5B5A1, AGX_CHANNELS_A1R5G5B5, AGX_CHANNELS_R10G10B10A2,
      AGX_CHANNELS_R11G11B10, AGX_CHANNELS_R9G9B9E5,
   };
   unsigned supported = 0;
   for (unsigned ci = 0; ci < sizeof(chans) / sizeof(chans[0]); ci++) {
      for (unsigned type = 0; type <= AGX_TEXTURE_TYPE_FLOAT; type++) {
         struct hw_tex_format f;
         if (!hw_tex_format_get(chans[ci], type, false, &f, NULL, 0))
            continue;
         supported++;
         uint8_t buf[16];
         union hw_texel in, out;
         if (f.cls == HW_TEX_CLASS_FLOAT) {
            float vals[] = { 0.0f, 1.0f, -1.0f, NAN };
            for (unsigned k = 0; k < 4; k++) {
               in = texel_f(vals[k], vals[k], vals[k], vals[k]);
               memset(buf, 0xa5, sizeof(buf));
               hw_tex_pack(&f, &in, false, buf);
               hw_tex_unpack(&f, buf, &out);
               for (unsigned c = 0; c < 4; c++) {
                  float want;
                  if (c >= f.comps) {
                     want = c == 3 ? 1.0f : 0.0f;
                  } else if (type == AGX_TEXTURE_TYPE_UNORM) {
                     want = vals[k] > 0 ? vals[k] : 0.0f;
                  } else if (type == AGX_TEXTURE_TYPE_SNORM) {
                     want = isnan(vals[k]) ? 0.0f : vals[k];
                  } else if (f.packing == HW_TEX_PACK_ARRAY) {
                     want = vals[k];                 /* f16 / f32 exact */
                  } else if (f.packing == HW_TEX_PACK_RGB9E5) {
                     want = vals[k] > 0 ? vals[k] : 0.0f;
                  } else {                           /* float11/10 */
                     want = (vals[k] > 0 || isnan(vals[k])) ? vals[k] : 0.0f;
                  }
                  if (isnan(want))
                     assert_true(isnan(out.f[c]));
                  else if (out.f[c] != want)
                     fail_msg("channels 0x%x type %u comp %u: %g -> %g, want %g",
                              chans[ci], type, c, vals[k], out.f[c], want);
               }
            }
         } else {
            unsigned bits = f.bits[0];
            uint32_t max = bits >= 32 ? 0xffffffffu : (1u << bits) - 1;
            uint32_t vals[] = { 0, 1, max, 0xffffffffu };
            for (unsigned k = 0; k < 4; k++) {
               in.u[0] = in.u[1] = in.u[2] = in.u[3] = vals[k];
               hw_tex_pack(&f, &in, false, buf);
               hw_tex_unpack(&f, buf, &out);
               for (unsigned c = 0; c < f.comps; c++) {
                  uint32_t m = f.bits[c] >= 32 ? 0xffffffffu : (1u << f.bits[c]) - 1;
                  uint32_t want = vals[k] & m;          /* integers truncate */
                  if (f.cls == HW_TEX_CLASS_SINT && f.bits[c] < 32 && (want >> (f.bits[c] - 1)))
                     want |= ~m;                        /* sign extends */
                  assert_int_equal(out.u[c], want);
               }
               if (f.comps < 4)
                  assert_int_equal(out.u[3], 1);
            }
         }
      }
   }
   /* 3 x 4 for 8/16-bit arrays, 3 x 3 for 32-bit, 4 packed unorm,
    * RGB10A2 x 3, two float packings */
   assert_int_equal(supported, 3 * 4 + 3 * 5 + 3 * 3 + 4 + 3 + 2);
}

static void
test_packed_layouts(void **state)
{
   (void)state;
   union hw_texel t;
   struct hw_tex_format f565 = fmt(AGX_CHANNELS_R5G6B5, AGX_TEXTURE_TYPE_UNORM, false);
   uint8_t px[4] = { 0x1f, 0x00 };                      /* R = 31 */
   hw_tex_unpack(&f565, px, &t);
   assert_true(t.f[0] == 1.0f && t.f[1] == 0 && t.f[2] == 0 && t.f[3] == 1.0f);
   px[0] = 0x00;
   px[1] = 0xf8;                                        /* B = bits 11-15 */
   hw_tex_unpack(&f565, px, &t);
   assert_true(t.f[0] == 0 && t.f[2] == 1.0f);
   t = texel_f(0, 1.0f, 0, 0);
   hw_tex_pack(&f565, &t, false, px);
   assert_int_equal(px[0] | px[1] << 8, 0x07e0);

   struct hw_tex_format f1555 = fmt(AGX_CHANNELS_A1R5G5B5, AGX_TEXTURE_TYPE_UNORM, false);
   t = texel_f(0, 0, 0, 1.0f);
   hw_tex_pack(&f1555, &t, false, px);
   assert_int_equal(px[0] | px[1] << 8, 0x0001);
   struct hw_tex_format f5551 = fmt(AGX_CHANNELS_R5G5B5A1, AGX_TEXTURE_TYPE_UNORM, false);
   hw_tex_pack(&f5551, &t, false, px);
   assert_int_equal(px[0] | px[1] << 8, 0x8000);
   struct hw_tex_format f4444 = fmt(AGX_CHANNELS_R4G4B4A4, AGX_TEXTURE_TYPE_UNORM, false);
   t = texel_f(1.0f, 0, 2.0f / 3.0f, 1.0f / 15.0f);
   hw_tex_pack(&f4444, &t, false, px);
   assert_int_equal(px[0] | px[1] << 8, 0x1a0f);

   struct hw_tex_format f1010 = fmt(AGX_CHANNELS_R10G10B10A2, AGX_TEXTURE_TYPE_UNORM, false);
   uint8_t w[4] = { 0, 0, 0, 0xc0 };
   hw_tex_unpack(&f1010, w, &t);
   assert_true(t.f[3] == 1.0f && t.f[0] == 0);
   struct hw_tex_format f1010u = fmt(AGX_CHANNELS_R10G10B10A2, AGX_TEXTURE_TYPE_UINT, false);
   uint8_t w2[4] = { 0xff, 0x03, 0x00, 0x80 };          /* R = 1023, A = 2 */
   hw_tex_unpack(&f1010u, w2, &t);
   assert_int_equal(t.u[0], 1023);
   assert_int_equal(t.u[1], 0);
   assert_int_equal(t.u[3], 2);

   struct hw_tex_format f111110 = fmt(AGX_CHANNELS_R11G11B10, AGX_TEXTURE_TYPE_FLOAT, false);
   t = texel_f(1.0f, 2.0f, 0.5f, 0);
   hw_tex_pack(&f111110, &t, false, w);
   uint32_t word = (uint32_t)w[0] | (uint32_t)w[1] << 8 | (uint32_t)w[2] << 16 | (uint32_t)w[3] << 24;
   assert_int_equal(word, (15u << 6) | (16u << 6) << 11 | (14u << 5) << 22);

   /* half-float RGBA16 and the depth/stencil aliases */
   struct hw_tex_format fh = fmt(AGX_CHANNELS_R16G16B16A16, AGX_TEXTURE_TYPE_FLOAT, false);
   uint8_t h8[8] = { 0x00, 0x3c, 0x01, 0x00, 0x00, 0x7c, 0x00, 0xc0 };
   hw_tex_unpack(&fh, h8, &t);
   assert_true(t.f[0] == 1.0f && t.f[1] == ldexpf(1, -24) && isinf(t.f[2]) && t.f[3] == -2.0f);
   struct hw_tex_format z16 = fmt(AGX_CHANNELS_R16, AGX_TEXTURE_TYPE_UNORM, false);
   uint8_t z[2] = { 0xff, 0xff };
   hw_tex_unpack(&z16, z, &t);
   assert_true(t.f[0] == 1.0f);
   struct hw_tex_format s8 = fmt(AGX_CHANNELS_R8, AGX_TEXTURE_TYPE_UINT, false);
   uint8_t s = 0x80;
   hw_tex_unpack(&s8, &s, &t);
   assert_int_equal(t.u[0], 128);
   struct hw_tex_format sn = fmt(AGX_CHANNELS_R8G8, AGX_TEXTURE_TYPE_SINT, false);
   uint8_t sv[2] = { 0xff, 0x7f };
   hw_tex_unpack(&sn, sv, &t);
   assert_int_equal(t.i[0], -1);
   assert_int_equal(t.i[1], 127);
}

static void
test_rejects(void **state)
{
   (void)state;
   struct hw_tex_format f;
   char err[128];
   assert_false(hw_tex_format_get(AGX_CHANNELS_R32, AGX_TEXTURE_TYPE_UNORM, false, &f, err, sizeof(err)));
   assert_non_null(strstr(err, "invalid for channels R32"));
   /* Block formats the model does not decode, and invalid Type/sRGB. */
   assert_false(hw_tex_format_get(AGX_CHANNELS_BC7, AGX_TEXTURE_TYPE_UNORM, false, &f, err, sizeof(err)));
   assert_non_null(strstr(err, "BC7"));
   assert_false(hw_tex_format_get(AGX_CHANNELS_ASTC_4X4, AGX_TEXTURE_TYPE_FLOAT, false, &f, err, sizeof(err)));
   assert_non_null(strstr(err, "invalid for channels ASTC 4x4"));
   assert_false(hw_tex_format_get(AGX_CHANNELS_BC1, AGX_TEXTURE_TYPE_UINT, false, &f, err, sizeof(err)));
   assert_non_null(strstr(err, "invalid for channels BC1"));
   assert_false(hw_tex_format_get(AGX_CHANNELS_EAC_R11, AGX_TEXTURE_TYPE_UNORM, true, &f, err, sizeof(err)));
   assert_non_null(strstr(err, "sRGB"));
   assert_false(hw_tex_format_get(AGX_CHANNELS_R16, AGX_TEXTURE_TYPE_UNORM, true, &f, err, sizeof(err)));
   assert_false(hw_tex_format_get(AGX_CHANNELS_R8, 7, false, &f, err, sizeof(err)));
   assert_false(hw_tex_format_get(0x7f, AGX_TEXTURE_TYPE_UNORM, false, &f, err, sizeof(err)));
}

static void
test_memory_formats(void **state)
{
   (void)state;
   assert_int_equal(hw_tex_memfmt_bytes(HW_TEX_MEM_I8, 4), 4);
   assert_int_equal(hw_tex_memfmt_bytes(HW_TEX_MEM_F16, 3), 6);
   assert_int_equal(hw_tex_memfmt_bytes(HW_TEX_MEM_I32, 2), 8);
   assert_int_equal(hw_tex_memfmt_bytes(HW_TEX_MEM_RGB10A2, 4), 4);
   assert_int_equal(hw_tex_memfmt_bytes(HW_TEX_MEM_RG11B10F, 3), 4);
   assert_int_equal(hw_tex_memfmt_bytes(9, 4), 0);
   union hw_texel t;
   uint8_t b[16];
   uint8_t u8[4] = { 0, 255, 51, 128 };
   assert_true(hw_tex_memfmt_unpack(HW_TEX_MEM_U8NORM, 4, u8, &t));
   assert_true(t.f[0] == 0 && t.f[1] == 1.0f && t.f[2] == 0.2f);
   assert_true(hw_tex_memfmt_pack(HW_TEX_MEM_U8NORM, 4, &t, b));
   assert_memory_equal(b, u8, 4);
   uint8_t f16[4] = { 0x00, 0x3c, 0x00, 0xb8 };         /* 1.0, -0.5 */
   assert_true(hw_tex_memfmt_unpack(HW_TEX_MEM_F16, 2, f16, &t));
   assert_true(t.f[0] == 1.0f && t.f[1] == -0.5f && t.f[2] == 0 && t.f[3] == 1.0f);
   uint8_t i32[4] = { 0x78, 0x56, 0x34, 0x12 };
   assert_true(hw_tex_memfmt_unpack(HW_TEX_MEM_I32, 1, i32, &t));
   assert_int_equal(t.u[0], 0x12345678);
   assert_int_equal(t.u[3], 1);
   t = texel_f(1.0f, 1.0f, 1.0f, 0);
   assert_true(hw_tex_memfmt_pack(HW_TEX_MEM_RGB9E5_RTZ, 3, &t, b));
   uint32_t w = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
   assert_int_equal(w, (16u << 27) | 0x100 | 0x100 << 9 | 0x100u << 18);
   assert_false(hw_tex_memfmt_unpack(11, 4, u8, &t));
   assert_false(hw_tex_memfmt_pack(HW_TEX_MEM_I8, 0, &t, b));
}

static void
block_texel(unsigned channels, unsigned type, bool srgb, const uint8_t *blk, unsigned x,
            unsigned y, union hw_texel *t)
{
   struct hw_tex_format f;
   char err[128];
   if (!hw_tex_format_get(channels, type, srgb, &f, err, sizeof(err)))
      fail_msg("%s", err);
   assert_int_equal(f.packing, HW_TEX_PACK_BLOCK);
   assert_true(f.block_w >= 4 && f.block_h >= 4);
   hw_tex_unpack_block(&f, blk, x, y, t);
}

#define assert_rgba8(t, r, g, b, a)                                           \
   do {                                                                       \
      assert_float_equal((t).f[0], (r) / 255.0f, 1e-6);                       \
      assert_float_equal((t).f[1], (g) / 255.0f, 1e-6);                       \
      assert_float_equal((t).f[2], (b) / 255.0f, 1e-6);                       \
      assert_float_equal((t).f[3], (a) / 255.0f, 1e-6);                       \
   } while (0)

/* ETC2 blocks worked out from the Khronos Data Format Specification. */
static void
test_etc2(void **state)
{
   (void)state;
   union hw_texel t;
   /* Individual mode, no flip: subblock 1 base R 8 (-> 0x88), table 0;
    * subblock 2 base R 15 (-> 0xff), table 7.  Texel (1, 2) is pixel 6:
    * MSB set (bit 22 of the low word) -> index 2 = -a. */
   const uint8_t ind[8] = { 0x8f, 0x00, 0x00, 0x1c, 0x00, 0x40, 0x00, 0x00 };
   block_texel(AGX_CHANNELS_ETC2_RGB8, AGX_TEXTURE_TYPE_UNORM, false, ind, 0, 0, &t);
   assert_rgba8(t, 0x88 + 2, 2, 2, 255);
   block_texel(AGX_CHANNELS_ETC2_RGB8, AGX_TEXTURE_TYPE_UNORM, false, ind, 3, 0, &t);
   assert_rgba8(t, 255, 47, 47, 255);
   block_texel(AGX_CHANNELS_ETC2_RGB8, AGX_TEXTURE_TYPE_UNORM, false, ind, 1, 2, &t);
   assert_rgba8(t, 0x88 - 2, 0, 0, 255);
   /* Differential mode, flip: R 16 + 3 = 19 (5-bit 132 / 156), tables 1/2;
    * texel (0, 3) is in the lower subblock (flip), index 0 = +9. */
   const uint8_t dif[8] = { 16 << 3 | 3, 0, 0, 1 << 5 | 2 << 2 | 3, 0, 0, 0, 0 };
   block_texel(AGX_CHANNELS_ETC2_RGB8, AGX_TEXTURE_TYPE_UNORM, false, dif, 3, 1, &t);
   assert_rgba8(t, 132 + 5, 5, 5, 255);
   block_texel(AGX_CHANNELS_ETC2_RGB8, AGX_TEXTURE_TYPE_UNORM, false, dif, 0, 3, &t);
   assert_rgba8(t, 156 + 9, 9, 9, 255);
   /* T mode (R 31 + 3 overflows): C1 = (15, 0, 0) -> 255, C2 = (8, 0, 0)
    * -> 136, distance index 2 = 11.  Pixel 0 index 0 = C1; pixel 1 (texel
    * (0, 1)) LSB -> index 1 = C2 + d; pixel 4 (texel (1, 0)) MSB + LSB ->
    * index 3 = C2 - d. */
   const uint8_t tm[8] = { 0xfb, 0x00, 0x80, 0x06, 0x00, 0x10, 0x00, 0x12 };
   block_texel(AGX_CHANNELS_ETC2_RGB8, AGX_TEXTURE_TYPE_UNORM, false, tm, 0, 0, &t);
   assert_rgba8(t, 255, 0, 0, 255);
   block_texel(AGX_CHANNELS_ETC2_RGB8, AGX_TEXTURE_TYPE_UNORM, false, tm, 0, 1, &t);
   assert_rgba8(t, 147, 11, 11, 255);
   block_texel(AGX_CHANNELS_ETC2_RGB8, AGX_TEXTURE_TYPE_UNORM, false, tm, 1, 0, &t);
   assert_rgba8(t, 125, 0, 0, 255);
   /* Punch-through, opaque bit clear: index 2 is transparent black, index
    * 0 has no modifier. */
   const uint8_t pt[8] = { 16 << 3, 0, 0, 0, 0, 0x40, 0, 0 };
   block_texel(AGX_CHANNELS_ETC2_RGB8A1, AGX_TEXTURE_TYPE_UNORM, false, pt, 1, 2, &t);
   assert_rgba8(t, 0, 0, 0, 0);
   block_texel(AGX_CHANNELS_ETC2_RGB8A1, AGX_TEXTURE_TYPE_UNORM, false, pt, 0, 0, &t);
   assert_rgba8(t, 132, 0, 0, 255);
   /* sRGB applies to the decoded colour. */
   block_texel(AGX_CHANNELS_ETC2_RGB8A1, AGX_TEXTURE_TYPE_UNORM, true, pt, 0, 0, &t);
   assert_float_equal(t.f[0], hw_tex_srgb_to_linear(132 / 255.0f), 1e-6);
   /* RGBA8: EAC alpha block (base 200, multiplier 2, table 0; index 0 =
    * -3 -> 194) then the colour block. */
   uint8_t rgba[16] = { 200, 0x20, 0, 0, 0, 0, 0, 0 };
   memcpy(rgba + 8, ind, 8);
   block_texel(AGX_CHANNELS_ETC2_RGBA8, AGX_TEXTURE_TYPE_UNORM, false, rgba, 0, 0, &t);
   assert_rgba8(t, 0x88 + 2, 2, 2, 194);
}

static void
test_eac(void **state)
{
   (void)state;
   union hw_texel t;
   /* Base 128, multiplier 1, table 0.  Pixel 0 index 0 (-3):
    * 128 * 8 + 4 - 24 = 1004; pixel 1 (texel (0, 1)) index 4 (+2) = 1044. */
   const uint8_t r11[8] = { 128, 0x10, 0x10, 0x00, 0, 0, 0, 0 };
   block_texel(AGX_CHANNELS_EAC_R11, AGX_TEXTURE_TYPE_UNORM, false, r11, 0, 0, &t);
   assert_float_equal(t.f[0], 1004 / 2047.0f, 1e-6);
   assert_float_equal(t.f[1], 0.0f, 0);
   assert_float_equal(t.f[3], 1.0f, 0);
   block_texel(AGX_CHANNELS_EAC_R11, AGX_TEXTURE_TYPE_UNORM, false, r11, 0, 1, &t);
   assert_float_equal(t.f[0], 1044 / 2047.0f, 1e-6);
   /* Signed: base -16, multiplier 0 (modifier unscaled): -128 - 3. */
   const uint8_t s11[8] = { 0xf0, 0x00, 0, 0, 0, 0, 0, 0 };
   block_texel(AGX_CHANNELS_EAC_R11, AGX_TEXTURE_TYPE_SNORM, false, s11, 2, 2, &t);
   assert_float_equal(t.f[0], -131 / 1023.0f, 1e-6);
   /* RG11: the second block is green. */
   uint8_t rg[16];
   memcpy(rg, r11, 8);
   memcpy(rg + 8, r11, 8);
   rg[8] = 0;
   block_texel(AGX_CHANNELS_EAC_RG11, AGX_TEXTURE_TYPE_UNORM, false, rg, 0, 0, &t);
   assert_float_equal(t.f[0], 1004 / 2047.0f, 1e-6);
   assert_float_equal(t.f[1], 0.0f, 0);   /* 4 - 24 clamps to 0 */
}

static void
test_s3tc(void **state)
{
   (void)state;
   union hw_texel t;
   /* BC1, c0 = red > c1 = blue: 4 colours.  Texel 1 index 2 = 2/3 red. */
   const uint8_t bc1[8] = { 0x00, 0xf8, 0x1f, 0x00, 0x08, 0, 0, 0xc0 };
   block_texel(AGX_CHANNELS_BC1, AGX_TEXTURE_TYPE_UNORM, false, bc1, 0, 0, &t);
   assert_rgba8(t, 255, 0, 0, 255);
   block_texel(AGX_CHANNELS_BC1, AGX_TEXTURE_TYPE_UNORM, false, bc1, 1, 0, &t);
   assert_rgba8(t, 170, 0, 85, 255);
   /* c0 <= c1: 3 colours, index 3 (texel (3, 3)) is transparent black. */
   const uint8_t bc1b[8] = { 0x1f, 0x00, 0x00, 0xf8, 0, 0, 0, 0xc0 };
   block_texel(AGX_CHANNELS_BC1, AGX_TEXTURE_TYPE_UNORM, false, bc1b, 3, 3, &t);
   assert_rgba8(t, 0, 0, 0, 0);
   /* BC2: explicit 4-bit alpha (texel 1 = 0xa -> 170), colour 4-colour
    * mode even with c0 <= c1 (texel 15 index 3 = (b + 2r + 1) / 3). */
   uint8_t bc2[16] = { 0xa0 };
   memcpy(bc2 + 8, bc1b, 8);
   block_texel(AGX_CHANNELS_BC2, AGX_TEXTURE_TYPE_UNORM, false, bc2, 1, 0, &t);
   assert_rgba8(t, 0, 0, 255, 170);
   block_texel(AGX_CHANNELS_BC2, AGX_TEXTURE_TYPE_UNORM, false, bc2, 3, 3, &t);
   assert_rgba8(t, 170, 0, 85, 0);
   /* BC4: 255 > 0 -> 8 values, texel 1 index 2 = 6/7; BC4 snorm 6-value
    * mode index 7 = +1; BC3 alpha is a BC4 block. */
   const uint8_t bc4[8] = { 255, 0, 0x10, 0, 0, 0, 0, 0 };
   block_texel(AGX_CHANNELS_BC4, AGX_TEXTURE_TYPE_UNORM, false, bc4, 1, 0, &t);
   assert_float_equal(t.f[0], 6.0f / 7.0f, 1e-6);
   assert_float_equal(t.f[3], 1.0f, 0);
   const uint8_t bc4s[8] = { 0x80, 0x10, 0x07, 0, 0, 0, 0, 0 };
   block_texel(AGX_CHANNELS_BC4, AGX_TEXTURE_TYPE_SNORM, false, bc4s, 0, 0, &t);
   assert_float_equal(t.f[0], 1.0f, 0);
   uint8_t bc3[16];
   memcpy(bc3, bc4, 8);
   memcpy(bc3 + 8, bc1, 8);
   block_texel(AGX_CHANNELS_BC3, AGX_TEXTURE_TYPE_UNORM, false, bc3, 1, 0, &t);
   assert_float_equal(t.f[3], 6.0f / 7.0f, 1e-6);
   assert_float_equal(t.f[0], 170 / 255.0f, 1e-6);
   uint8_t bc5[16];
   memcpy(bc5, bc4, 8);
   memcpy(bc5 + 8, bc4, 8);
   bc5[8] = 0;   /* second block: 0 <= 255, 6 values, index 2 = 4/5 * 0 + 1/5 */
   bc5[9] = 255;
   block_texel(AGX_CHANNELS_BC5, AGX_TEXTURE_TYPE_UNORM, false, bc5, 1, 0, &t);
   assert_float_equal(t.f[1], 1.0f / 5.0f, 1e-6);
}

/* ASTC: footprints from the Channels value; a void-extent block (one
 * colour, 16-bit unorm components) and a reserved block mode (error
 * colour, opaque magenta). */
static void
test_astc(void **state)
{
   (void)state;
   struct hw_tex_format f;
   char err[128];
   assert_true(hw_tex_format_get(AGX_CHANNELS_ASTC_10X6, AGX_TEXTURE_TYPE_UNORM, true, &f, err, sizeof(err)));
   assert_int_equal(f.block_w, 10);
   assert_int_equal(f.block_h, 6);
   assert_int_equal(f.bytes, 16);
   union hw_texel t;
   const uint8_t ve[16] = { 0xfc, 0xfd, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                            0xff, 0xff, 0x00, 0x00, 0x00, 0x80, 0xff, 0xff };
   block_texel(AGX_CHANNELS_ASTC_4X4, AGX_TEXTURE_TYPE_UNORM, false, ve, 2, 3, &t);
   assert_float_equal(t.f[0], 1.0f, 0);
   assert_float_equal(t.f[1], 0.0f, 0);
   assert_float_equal(t.f[2], 32768 / 65535.0f, 1e-6);
   assert_float_equal(t.f[3], 1.0f, 0);
   /* sRGB: the top 8 bits, then the curve on R, G, B. */
   block_texel(AGX_CHANNELS_ASTC_4X4, AGX_TEXTURE_TYPE_UNORM, true, ve, 0, 0, &t);
   assert_float_equal(t.f[2], hw_tex_srgb_to_linear(128 / 255.0f), 1e-6);
   const uint8_t reserved[16] = { 0 };
   block_texel(AGX_CHANNELS_ASTC_8X8, AGX_TEXTURE_TYPE_UNORM, false, reserved, 7, 7, &t);
   assert_float_equal(t.f[0], 1.0f, 0);
   assert_float_equal(t.f[1], 0.0f, 0);
   assert_float_equal(t.f[2], 1.0f, 0);
}

/* hw_tex_tile_store_comps (st_tile's per-component batch) writes what
 * hw_tex_tile_store_comp writes value by value: every tile format and
 * component, 16-bit registers over all 65536 values, 32-bit ones over
 * floats in and out of range, NaNs and integers. */
static void
test_tile_store_batch(void **state)
{
   (void)state;
   enum { N = 4096 };
   static uint32_t regs[N];
   static size_t off[N];
   static uint8_t want[N * 4], got[N * 4];
   for (unsigned f = 0; f <= 15; f++) {
      unsigned bytes;
      if (!hw_tex_tile_fmt_bytes(f, &bytes))
         continue;
      bool packed = hw_tex_tile_fmt_packed(f);
      for (unsigned comp = 0; comp < 4; comp++) {
         for (unsigned r16 = 0; r16 < 2; r16++) {
            for (uint32_t base = 0; base < (r16 ? 65536u : 2u * N); base += N) {
               for (unsigned i = 0; i < N; i++) {
                  uint32_t v = base + i;
                  if (!r16) {   /* floats from -3 to 3 in pairs, then raw patterns */
                     float fv = ((float)(v & ~1u) - N) / (N / 3.0f);
                     memcpy(&v, &fv, 4);
                     if (base)
                        v = (base + i) * 2654435761u;
                  }
                  regs[i] = r16 ? v & 0xffff : v;
                  off[i] = (size_t)((i * 7) % N) * 4;   /* scattered, distinct */
               }
               for (unsigned i = 0; i < N * 4; i++)
                  want[i] = got[i] = (uint8_t)(i * 31);
               for (unsigned i = 0; i < N; i++)
                  hw_tex_tile_store_comp(f, comp, want + off[i] + (packed ? 0 : comp * bytes) % 4,
                                         regs[i], r16);
               hw_tex_tile_store_comps(f, comp, got + (packed ? 0 : comp * bytes) % 4, off,
                                       regs, N, r16);
               assert_memory_equal(want, got, sizeof(got));
            }
         }
      }
   }
}

/* hw_tex_tile_store_px8 writes the words hw_tex_tile_store_comp writes
 * component by component, for u8norm and srgba8 from 32- and 16-bit
 * registers, and so does hw_tex_tile_store_comps for u8norm. The 32-bit
 * u8norm values: every byte's exact value b / 255, the rounding midpoints (b + 0.5) / 255 with the floats just below and
 * above them, out-of-range values, -0, infinities, NaNs and denormals,
 * then a stride over all 2^32 patterns; the pixel counts leave every
 * remainder mod 4 (the vector loop's tail), and each component reads a
 * different value so a swapped lane or byte shows.  Run with the vector
 * loops and with hw_tex_tile_u8norm_scalar (the scalar reference). */
static void
px8_check(unsigned f, bool r16, const uint32_t *vals, unsigned nv)
{
   enum { N = 1031 };
   static uint32_t rows[4][N];
   static uint32_t off[N];
   static uint8_t want[N * 4], got[N * 4];
   for (unsigned i = 0; i < N; i++)
      off[i] = (uint32_t)((i * 7) % N) * 4;   /* scattered, distinct */
   for (unsigned start = 0; start < nv; start += N) {
      /* 16-bit registers: components 1 and 3 in the high half, the
       * other half holding another value (it must be ignored) */
      const unsigned sh[4] = { 0, r16 ? 16 : 0, 0, r16 ? 16 : 0 };
      for (unsigned i = 0; i < N; i++)
         for (unsigned k = 0; k < 4; k++)
            rows[k][i] = vals[(start + i + k * 257) % nv] << sh[k] |
                         (r16 ? (i * 40503u & 0xffff) << (16 - sh[k]) : 0);
      for (unsigned n = N - 3; n <= N; n++) {
         for (unsigned i = 0; i < N * 4; i++)
            want[i] = got[i] = (uint8_t)(i * 31);
         for (unsigned i = 0; i < n; i++)
            for (unsigned k = 0; k < 4; k++)
               hw_tex_tile_store_comp(f, k, want + off[i] + (f == 10 ? 0 : k),
                                      r16 ? rows[k][i] >> sh[k] & 0xffff : rows[k][i], r16);
         uint32_t *const row[4] = { rows[0], rows[1], rows[2], rows[3] };
         assert_true(hw_tex_tile_store_px8(f, got, off, row, sh, n, r16));
         assert_memory_equal(want, got, sizeof(got));
         if (f != 4 || r16)
            continue;
         /* and hw_tex_tile_store_comps, component by component */
         for (unsigned i = 0; i < N * 4; i++)
            got[i] = (uint8_t)(i * 31);
         static size_t offz[N];
         for (unsigned i = 0; i < N; i++)
            offz[i] = off[i];
         for (unsigned k = 0; k < 4; k++)
            hw_tex_tile_store_comps(4, k, got + k, offz, rows[k], n, r16);
         assert_memory_equal(want, got, sizeof(got));
      }
   }
}

static void
test_tile_store_px8(void **state)
{
   (void)state;
   enum { NV = 256 * 6 + 64 };
   static uint32_t vals[NV];
   unsigned nv = 0;
   for (unsigned b = 0; b < 256; b++) {
      float e = (float)b / 255.0f, m = ((float)b + 0.5f) / 255.0f;
      vals[nv++] = tessera_fui(e);
      vals[nv++] = tessera_fui(nextafterf(e, 2.0f));
      vals[nv++] = tessera_fui(nextafterf(e, -2.0f));
      vals[nv++] = tessera_fui(m);
      vals[nv++] = tessera_fui(nextafterf(m, 2.0f));
      vals[nv++] = tessera_fui(nextafterf(m, -2.0f));
   }
   const float special[] = { 0.0f, -0.0f, 1.0f, -1.0f, 1.0000001f, 2.0f, 255.0f, 1e30f,
                             -1e30f, INFINITY, -INFINITY, 1e-45f, -1e-45f, 1e-38f,
                             0.5f / 255.0f, 254.5f / 255.0f };
   for (unsigned i = 0; i < sizeof(special) / sizeof(special[0]); i++)
      vals[nv++] = tessera_fui(special[i]);
   const uint32_t bits[] = { 0x7fc00000u, 0xffc00000u, 0x7f800001u, 0xff800001u,
                             0x7fbfffffu, 0x00000001u, 0x807fffffu, 0x3f7fffffu };
   for (unsigned i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
      vals[nv++] = bits[i];
   assert_true(nv <= NV);
   for (unsigned scalar = 0; scalar < 2; scalar++) {
      hw_tex_tile_u8norm_scalar = scalar;
      px8_check(4, false, vals, nv);
      /* a stride over every bit pattern (about 2^22 of them) */
      static uint32_t sweep[1u << 16];
      for (uint32_t base = 0; base < 64; base++) {
         for (uint32_t i = 0; i < (1u << 16); i++)
            sweep[i] = (i << 16 | base * 1021u) ^ (base << 8);
         px8_check(4, false, sweep, 1u << 16);
      }
      px8_check(10, false, vals, nv);
      uint32_t h[1024];
      for (unsigned base = 0; base < 65536; base += 1024) {
         for (unsigned i = 0; i < 1024; i++)
            h[i] = base + i;
         px8_check(4, true, h, 1024);
         px8_check(10, true, h, 1024);
      }
   }
   hw_tex_tile_u8norm_scalar = false;
   /* and exact bytes: 0.5 / 255 rounds to even (0), 1.5 / 255 to 2,
    * NaN to 0, out of range to the ends */
   uint32_t r0 = tessera_fui(0.5f / 255.0f), r1 = tessera_fui(1.5f / 255.0f),
            r2 = 0x7fc00000u, r3 = tessera_fui(7.0f);
   uint32_t rr[4][4] = { { r0, r0, r0, r0 }, { r1, r1, r1, r1 }, { r2, r2, r2, r2 },
                         { r3, r3, r3, r3 } };
   uint32_t *const row[4] = { rr[0], rr[1], rr[2], rr[3] };
   const unsigned sh[4] = { 0, 0, 0, 0 };
   const uint32_t o[4] = { 0, 4, 8, 12 };
   uint8_t px[16];
   assert_true(hw_tex_tile_store_px8(4, px, o, row, sh, 4, false));
   for (unsigned i = 0; i < 4; i++) {
      assert_int_equal(px[4 * i + 0], 0);
      assert_int_equal(px[4 * i + 1], 2);
      assert_int_equal(px[4 * i + 2], 0);
      assert_int_equal(px[4 * i + 3], 255);
   }
}

/* hw_tex_tile_load_comps (ld_tile's per-component gather) returns what
 * hw_tex_tile_load_comp returns value by value: every tile format,
 * component and register size, over sample words whose every byte takes
 * each of the 256 values (the 8-bit formats' tables: u8norm, srgba8
 * colour and alpha) and pseudo-random words (the wider formats). */
static void
test_tile_load_batch(void **state)
{
   (void)state;
   enum { N = 4096 };
   static uint8_t mem[N * 4 + 4];
   static size_t off[N];
   static uint32_t got[N];
   for (unsigned i = 0; i < N; i++) {
      /* words 0-255: every byte i; then scattered patterns */
      uint32_t w = i < 256 ? i * 0x01010101u : i * 2654435761u ^ (i >> 3);
      memcpy(&mem[i * 4], &w, 4);
      off[i] = (size_t)((i * 7) % N) * 4;   /* scattered */
   }
   for (unsigned f = 0; f <= 15; f++) {
      unsigned bytes;
      if (!hw_tex_tile_fmt_bytes(f, &bytes))
         continue;
      bool packed = hw_tex_tile_fmt_packed(f);
      for (unsigned comp = 0; comp < 4; comp++) {
         for (unsigned r16 = 0; r16 < 2; r16++) {
            const uint8_t *base = mem + (packed ? 0 : comp * bytes) % 4;
            memset(got, 0xa5, sizeof(got));
            hw_tex_tile_load_comps(f, comp, base, off, got, N, r16);
            for (unsigned i = 0; i < N; i++)
               assert_int_equal(got[i], hw_tex_tile_load_comp(f, comp, base + off[i], r16));
         }
      }
   }
   /* and exact values: u8norm 0x80 = 128 / 255, as f32 and f16 */
   size_t o = 0;
   uint8_t px[4] = { 0x80, 0xff, 0, 0 };
   uint32_t v;
   hw_tex_tile_load_comps(4, 0, px, &o, &v, 1, false);
   assert_int_equal(v, tessera_fui(128.0f / 255.0f));
   hw_tex_tile_load_comps(4, 0, px + 1, &o, &v, 1, true);
   assert_int_equal(v, 0x3c00);
   hw_tex_tile_load_comps(10, 3, px, &o, &v, 1, false);   /* srgba8 alpha: linear */
   assert_int_equal(v, tessera_fui(0.0f));
   hw_tex_tile_load_comps(10, 1, px, &o, &v, 1, false);   /* srgba8 G: 0xff -> 1 */
   assert_int_equal(v, tessera_fui(1.0f));
}

/* st_tile / ld_tile with rg11b10f (12; 14 rounds towards zero), the
 * tilebuffer format Mesa's agx_tilebuffer gives R11G11B10_FLOAT render
 * targets: one 32-bit word per sample, R in bits 0-10, G in 11-21 (5-bit
 * exponent, 6-bit mantissa), B in 22-31 (5-bit mantissa), as the texture
 * unit reads R11G11B10 texels; alpha is not stored and loads as 1. (The
 * model had no such tile format: every job using one stopped with an
 * error.) */
static void
test_tile_rg11b10f(void **state)
{
   (void)state;
   unsigned bytes;
   assert_true(hw_tex_tile_fmt_bytes(12, &bytes));
   assert_int_equal(bytes, 1);
   assert_true(hw_tex_tile_fmt_packed(12));
   assert_true(hw_tex_tile_fmt_packed(14));
   assert_false(hw_tex_tile_fmt_bytes(13, &bytes));   /* rgb9e5: not modelled */
   const float in[3] = { 1.0f, 0.5f, 2.0f };
   uint8_t w[4] = { 0xaa, 0xaa, 0xaa, 0xaa };
   for (unsigned c = 0; c < 3; c++)
      hw_tex_tile_store_comp(12, c, w, tessera_fui(in[c]), false);
   hw_tex_tile_store_comp(12, 3, w, tessera_fui(0.25f), false);   /* ignored */
   uint32_t word;
   memcpy(&word, w, 4);
   /* 1.0 = exponent 15, 0.5 = 14, 2.0 = 16; mantissas 0 */
   assert_int_equal(word, (15u << 6) | (14u << 6) << 11 | (16u << 5) << 22);
   /* the texture unit's R11G11B10 reads the same colour */
   struct hw_tex_format f;
   assert_true(hw_tex_format_get(AGX_CHANNELS_R11G11B10, AGX_TEXTURE_TYPE_FLOAT, false, &f,
                                 NULL, 0));
   union hw_texel t;
   hw_tex_unpack(&f, w, &t);
   for (unsigned c = 0; c < 3; c++) {
      assert_float_equal(t.f[c], in[c], 0);
      assert_float_equal(tessera_uif(hw_tex_tile_load_comp(12, c, w, false)), in[c], 0);
   }
   assert_float_equal(tessera_uif(hw_tex_tile_load_comp(12, 3, w, false)), 1.0f, 0);
   /* 16-bit registers: halves in and out */
   hw_tex_tile_store_comp(12, 1, w, 0x3c00 /* 1.0 */, true);
   assert_int_equal(hw_tex_tile_load_comp(12, 1, w, true), 0x3c00);
   /* negative values clamp to 0; 14 truncates where 12 rounds up */
   hw_tex_tile_store_comp(12, 0, w, tessera_fui(-4.0f), false);
   assert_float_equal(tessera_uif(hw_tex_tile_load_comp(12, 0, w, false)), 0.0f, 0);
   float justbelow2 = 2.0f - 1.0f / 256.0f;   /* rounds to 2.0 with 6 mantissa bits */
   hw_tex_tile_store_comp(12, 0, w, tessera_fui(justbelow2), false);
   assert_float_equal(tessera_uif(hw_tex_tile_load_comp(12, 0, w, false)), 2.0f, 0);
   hw_tex_tile_store_comp(14, 0, w, tessera_fui(justbelow2), false);
   assert_float_equal(tessera_uif(hw_tex_tile_load_comp(14, 0, w, false)), 2.0f - 1.0f / 64.0f, 0);
}

/* decode_small builds its powers of two from bits instead of calling
 * ldexp: every fp16, fp11 and fp10 input must decode to exactly the bits
 * the ldexp definition gives (NaNs to the same canonical NaN). */
static float
ref_small(uint32_t v, unsigned mant_bits, bool sign)
{
   uint32_t e = v >> mant_bits, m = v & ((1u << mant_bits) - 1);
   double d;
   if (e == 0)
      d = ldexp((double)m, -14 - (int)mant_bits);
   else if (e == 31)
      d = m ? NAN : INFINITY;
   else
      d = ldexp((double)(m | (1u << mant_bits)), (int)e - 15 - (int)mant_bits);
   return (float)(sign ? -d : d);
}

static uint32_t
fbits(float f)
{
   uint32_t u;
   memcpy(&u, &f, sizeof(u));
   return u;
}

static void
test_small_float_decode_exact(void **state)
{
   (void)state;
   for (uint32_t h = 0; h < 0x10000; h++)
      assert_int_equal(fbits(hw_tex_half_to_float((uint16_t)h)),
                       fbits(ref_small(h & 0x7fff, 10, h & 0x8000)));
   for (uint32_t v = 0; v < 0x800; v++)
      assert_int_equal(fbits(hw_tex_ufloat_to_float(v, 6)), fbits(ref_small(v, 6, false)));
   for (uint32_t v = 0; v < 0x400; v++)
      assert_int_equal(fbits(hw_tex_ufloat_to_float(v, 5)), fbits(ref_small(v, 5, false)));
}

int
main(void)
{
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_unorm_snorm_scalars),
      cmocka_unit_test(test_half),
      cmocka_unit_test(test_half_exact),
      cmocka_unit_test(test_small_floats),
      cmocka_unit_test(test_rgb9e5),
      cmocka_unit_test(test_srgb),
      cmocka_unit_test(test_all_formats_edges),
      cmocka_unit_test(test_packed_layouts),
      cmocka_unit_test(test_rejects),
      cmocka_unit_test(test_memory_formats),
      cmocka_unit_test(test_etc2),
      cmocka_unit_test(test_eac),
      cmocka_unit_test(test_s3tc),
      cmocka_unit_test(test_astc),
      cmocka_unit_test(test_tile_store_batch),
      cmocka_unit_test(test_tile_store_px8),
      cmocka_unit_test(test_tile_load_batch),
      cmocka_unit_test(test_tile_rg11b10f),
      cmocka_unit_test(test_small_float_decode_exact),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}

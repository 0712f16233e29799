/* SPDX-License-Identifier: MIT */
/*
 * Floating-point helpers of the USC model: exact half conversions (no
 * dependence on the host having _Float16), the fp32 flush-to-zero rules,
 * saturation, the SFU functions and the packed memory formats.
 *
 * The host runs with its default environment (round to nearest even, no
 * FTZ/DAZ); every other rounding is done here in integer arithmetic.
 */
#include <math.h>
#include <string.h>

#include "hw/usc/hw_usc_internal.h"
#include "tessera/float_bits.h"
#include "tessera/half.h"

static uint64_t
dbits(double d)
{
   uint64_t u;
   memcpy(&u, &d, 8);
   return u;
}

static double
dfrom(uint64_t u)
{
   double d;
   memcpy(&d, &u, 8);
   return d;
}

/* fp32 denormals read and write as zero of the same sign. */
uint32_t
usc_ftz32(uint32_t bits)
{
   return (bits & 0x7f800000u) ? bits : (bits & 0x80000000u);
}

float
hw_usc_f16_to_f32(uint16_t h)
{
   uint32_t sign = (uint32_t)(h & 0x8000) << 16;
   uint32_t e = (h >> 10) & 0x1f, m = h & 0x3ff;
   if (e == 0x1f)
      return tessera_uif(sign | 0x7f800000u | (m << 13));
   if (e == 0) {
      /* denormal: m * 2^-24, exact in float */
      float f = (float)m * 0x1p-24f;
      return sign ? -f : f;
   }
   return tessera_uif(sign | ((e + 112) << 23) | (m << 13));
}

/* double -> half with one rounding: tessera/half.h (inline there, since
 * every half result of every lane goes through it). */
uint16_t
hw_usc_f64_to_f16(double d, bool rtz)
{
   return tessera_f64_to_f16(d, rtz);
}

uint16_t
hw_usc_f32_to_f16(float f)
{
   return hw_usc_f64_to_f16((double)f, false);
}

static double
saturate(double v)
{
   /* applegpu's saturate: negative (including -0) and NaN -> +0 */
   if (isnan(v) || signbit(v))
      return 0.0;
   return v > 1.0 ? 1.0 : v;
}

/* Result of a 32-bit float op: round to f32, flush, canonical NaN, sat. */
uint32_t
usc_store_f32(double v, bool sat)
{
   if (isnan(v))
      return sat ? 0 : 0x7fc00000u;
   uint32_t b = usc_ftz32(tessera_fui((float)v));
   if (sat)
      b = tessera_fui((float)saturate((double)tessera_uif(b)));
   return b;
}


/*
 * Fused multiply-add of three halves with a single rounding to half:
 * a*b is exact in double (22 significant bits); the sum is formed with
 * TwoSum and rounded to odd, so the final rounding to half is exact.
 */
double
usc_fma16(double a, double b, double c)
{
   double p = a * b;
   double s = p + c;
   if (!isfinite(s) || !isfinite(p) || !isfinite(c))
      return s;
   double bb = s - p;
   double err = (p - (s - bb)) + (c - bb);
   if (err == 0.0)
      return s;
   /* truncate toward zero, then force the lowest bit (round to odd) */
   uint64_t u = dbits(s);
   if ((err > 0) != (s > 0))
      u -= 1;           /* |exact| < |s|: step one ulp toward zero */
   u |= 1;
   return dfrom(u);
}

/* Half-open quadrant reduction for sin_pt_1: the input is an angle in
 * quarter turns, [0, 4). */
static double
sin_reduce(double x)
{
   if (x < 1.0)
      return x;
   if (x < 3.0)
      return 2.0 - x;
   return x - 4.0;
}

double
usc_funary(enum usc_funary op, double x)
{
   switch (op) {
   case FU_FLOOR: return floor(x);
   case FU_CEIL: return ceil(x);
   case FU_TRUNC: return trunc(x);
   case FU_RINT: return nearbyint(x);
   case FU_RCP: return 1.0 / x;
   case FU_RSQRT: return 1.0 / sqrt(x);
   case FU_RSQRT_SPECIAL:
      /* x * rsqrt_special(x) == sqrt(x) also at 0 and +inf */
      if (x == 0.0)
         return 0.0;
      if (isinf(x) && x > 0)
         return INFINITY;
      return 1.0 / sqrt(x);
   case FU_SIN_PT_1: return sin_reduce(x);
   case FU_SIN_PT_2:
      /* sin(y * tau/4) / y, so that sin_pt_2(y) * y = sin */
      if (x == 0.0)
         return M_PI / 2.0;
      return sin(x * (M_PI / 2.0)) / x;
   case FU_LOG2: return log2(x);
   case FU_EXP2: return exp2(x);
   default: return x;
   }
}

/* ---- packed formats --------------------------------------------------- */

static float
unpack_small_float(uint32_t v, unsigned mbits)
{
   uint32_t e = (v >> mbits) & 0x1f, m = v & ((1u << mbits) - 1);
   if (e == 0x1f)
      return m ? NAN : INFINITY;
   if (e == 0)
      return ldexpf((float)m, -14 - (int)mbits);
   return ldexpf((float)(m | (1u << mbits)), (int)e - 15 - (int)mbits);
}

float usc_unpack_float11(uint32_t v) { return unpack_small_float(v, 6); }
float usc_unpack_float10(uint32_t v) { return unpack_small_float(v, 5); }

/* Unsigned small float (5-bit exponent, bias 15) from f32: negative -> 0,
 * NaN -> a NaN, overflow -> inf (or the largest finite value for rtz). */
static uint32_t
pack_small_float(float f, unsigned mbits, bool rtz)
{
   if (isnan(f))
      return (0x1fu << mbits) | 1;
   if (f <= 0.0f)
      return 0;
   int ex;
   frexp((double)f, &ex);
   int lsb = ex - 1 - (int)mbits;            /* weight of the last kept bit */
   if (lsb < -14 - (int)mbits)
      lsb = -14 - (int)mbits;                /* denormals: fixed lsb */
   double scaled = ldexp((double)f, -lsb);   /* exact in double */
   double q = rtz ? floor(scaled) : nearbyint(scaled);
   if (q >= ldexp(1.0, 40))
      q = ldexp(1.0, 40);
   uint64_t qi = (uint64_t)q;
   if (qi >= (2ull << mbits)) {
      qi >>= 1;
      lsb++;
   }
   int e = lsb + (int)mbits + 15;
   if (qi < (1ull << mbits))
      return (uint32_t)qi;
   if (e >= 31)
      return rtz ? ((30u << mbits) | ((1u << mbits) - 1)) : (0x1fu << mbits);
   return ((uint32_t)e << mbits) | ((uint32_t)qi & ((1u << mbits) - 1));
}

uint32_t usc_pack_float11(float f, bool rtz) { return pack_small_float(f, 6, rtz); }
uint32_t usc_pack_float10(float f, bool rtz) { return pack_small_float(f, 5, rtz); }

float
usc_srgb_to_linear(unsigned v)
{
   double c = v / 255.0;
   double l = c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
   return (float)l;
}

unsigned
usc_linear_to_srgb(float f)
{
   double l = isnan(f) ? 0.0 : f < 0 ? 0.0 : f > 1 ? 1.0 : f;
   double c = l <= 0.0031308 ? l * 12.92 : 1.055 * pow(l, 1.0 / 2.4) - 0.055;
   return (unsigned)nearbyint(c * 255.0);
}

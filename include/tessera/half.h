/* SPDX-License-Identifier: MIT */
/*
 * double -> IEEE half with one rounding (to nearest even, or toward zero),
 * in integer arithmetic on the double's encoding: no dependence on the
 * host's _Float16 or its rounding mode. Inline because the GPU model
 * converts every half result of every lane (the USC's f16 ALU results,
 * the texture unit's half destinations): an out-of-line call with libm's
 * frexp/ldexp was 5-12 % of a replay's CPU on Mesa asahi's traces.
 *
 * Contract: NaN -> 0x7e00 (sign dropped); +-inf -> sign | 0x7c00; values
 * past the largest half -> inf when rounding to nearest, 0x7bff (the
 * largest finite) toward zero; zeros keep their sign; values below the
 * smallest denormal round (to 0 or to 2^-24). Every float (so every
 * value a float converts to) gives the same half as the reference
 * algorithm kept in tests/unit/test_half.c.
 */
#ifndef TESSERA_HALF_H
#define TESSERA_HALF_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

static inline uint16_t
tessera_f64_to_f16(double d, bool rtz)
{
   uint64_t u;
   memcpy(&u, &d, 8);
   uint16_t sign = (uint16_t)((u >> 48) & 0x8000);
   unsigned e = (unsigned)(u >> 52) & 0x7ff;
   uint64_t m = u & ((1ull << 52) - 1);
   /* The usual case, a half normal (2^-14 <= |d| < 2^16): the exponent
    * rebiased (1023 -> 15) above the top 10 mantissa bits; rounding up
    * may carry into the exponent, which is the next binade's encoding
    * (and 0x7c00, infinity, past 65504: what nearest-even gives). */
   if (e - 1009u < 30u) {
      uint32_t q = (e - 1008u) << 10 | (uint32_t)(m >> 42);
      uint64_t rem = m & ((1ull << 42) - 1);
      /* nearest-even without a branch on the dropped bits (which a
       * mispredicted branch paid for per lane): rem + lsb > half is
       * rem > half, or rem == half with q odd */
      if (!rtz)
         q += (uint32_t)(rem + (q & 1) > (1ull << 41));
      return (uint16_t)(sign | q);
   }
   if (e == 0x7ff)
      return m ? 0x7e00 : (uint16_t)(sign | 0x7c00);
   if (e >= 1039)                         /* |d| >= 2^16 */
      return (uint16_t)(sign | (rtz ? 0x7bff : 0x7c00));
   /* Half denormal or zero: |d| = mant * 2^(e - 1075) (double denormals
    * e = 0 included), in units of 2^-24 = mant >> (1051 - e). */
   if (e < 1051 - 53)                     /* |d| < 2^-26: rounds to zero */
      return sign;
   uint64_t mant = m | 1ull << 52;
   unsigned drop = 1051 - e;              /* 43 (e = 1008) .. 53 (e = 998) */
   uint32_t q = (uint32_t)(mant >> drop);
   uint64_t rem = mant & ((1ull << drop) - 1), half = 1ull << (drop - 1);
   if (!rtz && (rem > half || (rem == half && (q & 1))))
      q++;                                /* 0x400: the smallest normal */
   return (uint16_t)(sign | q);
}

/*
 * float -> half, to nearest even: tessera_f64_to_f16((double)f,
 * false) for every float (a float converts to double exactly, so one
 * rounding either way). Without branches, so that a loop over a SIMD
 * group's 32 lanes vectorises (the fragment stage's fp16 varyings: the
 * scalar form with an exec-mask walk per lane was a few % of Mesa
 * asahi's fp16-varying replays). Half normals round in integer
 * arithmetic as above; half denormals by adding 0.5f, whose ulp is
 * 2^-24, the half denormal unit, so the host's float add (round to
 * nearest even, the default mode the model relies on everywhere) leaves
 * the rounded denormal in the low mantissa bits (0x400 when it rounds up
 * to the smallest normal). Checked against tessera_f64_to_f16 in
 * tests/unit/test_hw_tex_format.c.
 */
static inline uint16_t
tessera_f32_to_f16(float f)
{
   uint32_t x;
   memcpy(&x, &f, 4);
   const uint32_t a = x & 0x7fffffffu, sign = x >> 16 & 0x8000u;
   /* normal: rebias the exponent (127 -> 15) above the top 10 bits */
   uint32_t qn = (a - (112u << 23)) >> 13;
   qn += (uint32_t)((a & 0x1fffu) + (qn & 1) > 0x1000u);
   /* denormal: |f| + 0.5 rounded to the 2^-24 ulp of [0.5, 1) */
   float d = __builtin_fabsf(f) + 0.5f;
   uint32_t qd;
   memcpy(&qd, &d, 4);
   qd -= 0x3f000000u;
   /* the cases chosen by masks, not ?: (which GCC turns into branches
    * that stop the loop vectorising) */
   const uint32_t normal = 0u - (uint32_t)(a >= 0x38800000u);   /* |f| >= 2^-14 */
   const uint32_t big = 0u - (uint32_t)(a >= 0x47800000u);      /* >= 2^16, inf */
   const uint32_t nan = 0u - (uint32_t)(a > 0x7f800000u);
   uint32_t q = (qn & normal) | (qd & ~normal);
   q = ((0x7c00u & big) | (q & ~big)) | sign;
   return (uint16_t)((0x7e00u & nan) | (q & ~nan));
}

#endif

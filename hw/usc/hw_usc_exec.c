/* SPDX-License-Identifier: MIT */
/*
 * The USC interpreter core: one switch per instruction, then a loop over
 * the 32 lanes.  Semantics follow applegpu's pseudocode (docs.html and the
 * exec methods of applegpu.py); modelling choices are listed in docs/usc.md.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tessera/bits.h"
#include "hw/usc/hw_usc_internal.h"
#include "tessera/float_bits.h"
#include "tessera/host_cpu.h"

int usc_find_record(const struct hw_usc_shader *s, int64_t off);

/* ---- operand access ---------------------------------------------------- */

static unsigned
src_bits(const struct usc_src *src)
{
   switch (src->kind) {
   case SRC_R32: case SRC_U32: return 32;
   case SRC_R64: case SRC_U64: return 64;
   default: return 16;   /* immediates are 16-bit values (applegpu) */
   }
}

static inline uint64_t
raw_lane(const struct hw_usc_simd *s, const struct usc_src *src, unsigned l)
{
   switch (src->kind) {
   case SRC_IMM: case SRC_FIMM: return src->imm;
   case SRC_R16: return usc_rd16(s, src->idx, l);
   case SRC_R32: return s->r[src->idx & 127][l];
   case SRC_R64:
      return s->r[src->idx & 127][l] | (uint64_t)s->r[(src->idx + 1) & 127][l] << 32;
   case SRC_U16: return usc_uni16(s, src->idx);
   case SRC_U32: return s->u[src->idx & 255];
   case SRC_U64: return s->u[src->idx & 255] | (uint64_t)s->u[(src->idx + 1) & 255] << 32;
   default: return 0;
   }
}

static inline int64_t
sext(uint64_t v, unsigned bits)
{
   if (bits >= 64)
      return (int64_t)v;
   uint64_t m = 1ull << (bits - 1);
   v &= (m << 1) - 1;
   return (int64_t)((v ^ m) - m);
}

/* Sources that are the same in every lane: uniforms and immediates. */
static inline bool
src_uniform(const struct usc_src *src)
{
   return src->kind != SRC_R16 && src->kind != SRC_R32 && src->kind != SRC_R64;
}

/*
 * The lane loops below pick the operand form once, outside the loop: a
 * register source is a plain array walk, a uniform or immediate one is
 * read once and broadcast.  (The per-lane switch in raw_lane() was the
 * interpreter's hottest path.)
 */
static void
rd_raw(const struct hw_usc_simd *s, const struct usc_src *src, uint64_t out[USC_W])
{
   switch (src->kind) {
   case SRC_R32: {
      const uint32_t *r = s->r[src->idx & 127];
      for (unsigned l = 0; l < USC_W; l++)
         out[l] = r[l];
      return;
   }
   case SRC_R16: {
      const uint32_t *r = s->r[(src->idx >> 1) & 127];
      const unsigned sh = (src->idx & 1) * 16;
      for (unsigned l = 0; l < USC_W; l++)
         out[l] = (r[l] >> sh) & 0xffff;
      return;
   }
   case SRC_R64:
      for (unsigned l = 0; l < USC_W; l++)
         out[l] = raw_lane(s, src, l);
      return;
   default: {
      const uint64_t v = raw_lane(s, src, 0);
      for (unsigned l = 0; l < USC_W; l++)
         out[l] = v;
      return;
   }
   }
}

/* Integer source: zero-extended, or sign-extended with .sx. */
static void
rd_int(const struct hw_usc_simd *s, const struct usc_src *src, int64_t out[USC_W])
{
   unsigned bits = src_bits(src);
   bool sx = (src->flags & SRCF_SX) && src->kind != SRC_IMM;
   uint64_t raw[USC_W];
   rd_raw(s, src, raw);
   if (sx) {
      for (unsigned l = 0; l < USC_W; l++)
         out[l] = sext(raw[l], bits);
   } else {
      for (unsigned l = 0; l < USC_W; l++)
         out[l] = (int64_t)raw[l];
   }
}

/* fp32 source bits -> value, denormals flushed.  Only a zero exponent
 * needs usc_ftz32; everything else is used as is (a cheap inline test,
 * since this runs for every lane of every float op). */
static inline float
lane_f32(uint32_t bits)
{
   if (!(bits & 0x7f800000u))
      bits = usc_ftz32(bits);
   return tessera_uif(bits);
}

static inline float
src_float_of(const struct usc_src *src, uint64_t v)
{
   if (src->kind == SRC_FIMM)
      return tessera_uif((uint32_t)v);
   if (src_bits(src) == 16)
      return hw_usc_f16_to_f32((uint16_t)v);
   return lane_f32((uint32_t)v);
}

/* Float source: fp32 flushed, fp16 exact, minifloat, then abs / neg. */
static void
rd_float(const struct hw_usc_simd *s, const struct usc_src *src, float out[USC_W])
{
   if (src->kind == SRC_R32) {
      /* lane_f32() as a mask (a zero exponent keeps only the sign), so
       * the loop has no branch or call */
      const uint32_t *r = s->r[src->idx & 127];
      for (unsigned l = 0; l < USC_W; l++) {
         uint32_t b = r[l];
         out[l] = tessera_uif(b & ((b & 0x7f800000u) ? 0xffffffffu : 0x80000000u));
      }
   } else if (src_uniform(src)) {
      const float f = src_float_of(src, raw_lane(s, src, 0));
      for (unsigned l = 0; l < USC_W; l++)
         out[l] = f;
   } else {
      for (unsigned l = 0; l < USC_W; l++)
         out[l] = src_float_of(src, raw_lane(s, src, l));
   }
   if (src->flags & SRCF_ABS) {
      for (unsigned l = 0; l < USC_W; l++)
         out[l] = fabsf(out[l]);
   }
   if (src->flags & SRCF_NEG) {
      for (unsigned l = 0; l < USC_W; l++)
         out[l] = -out[l];
   }
}

static inline void
wr_lane(struct hw_usc_simd *s, const struct usc_dst *d, unsigned l, uint64_t v)
{
   switch (d->size) {
   case 16: usc_wr16(s, d->idx, l, (uint32_t)v); break;
   case 32: s->r[d->idx & 127][l] = (uint32_t)v; break;
   case 64:
      s->r[d->idx & 127][l] = (uint32_t)v;
      s->r[(d->idx + 1) & 127][l] = (uint32_t)(v >> 32);
      break;
   default: break;
   }
}

/* Lane l's bit of an exec mask, as a table so that the masked loops
 * below compare instead of shifting by the lane (SSE2 has no per-lane
 * variable shift), which lets the compiler vectorise them. */
static const uint32_t lane_bit[USC_W] = {
   1u << 0, 1u << 1, 1u << 2, 1u << 3, 1u << 4, 1u << 5, 1u << 6, 1u << 7,
   1u << 8, 1u << 9, 1u << 10, 1u << 11, 1u << 12, 1u << 13, 1u << 14, 1u << 15,
   1u << 16, 1u << 17, 1u << 18, 1u << 19, 1u << 20, 1u << 21, 1u << 22, 1u << 23,
   1u << 24, 1u << 25, 1u << 26, 1u << 27, 1u << 28, 1u << 29, 1u << 30, 1u << 31,
};

/*
 * Writes v[l] to the destination of every lane in ex: wr_lane() for each
 * active lane, with the size switch hoisted out of the lane loop and the
 * mask applied by selection (a full mask, the common case, is a plain
 * copy).  The values of inactive lanes are ignored.
 */
static void
wr_lanes(struct hw_usc_simd *s, const struct usc_dst *d, uint32_t ex, const uint64_t v[USC_W])
{
   switch (d->size) {
   case 32: {
      uint32_t *p = s->r[d->idx & 127];
      if (ex == 0xffffffffu) {
         for (unsigned l = 0; l < USC_W; l++)
            p[l] = (uint32_t)v[l];
      } else {
         for (unsigned l = 0; l < USC_W; l++) {
            uint32_t m = (ex & lane_bit[l]) ? 0xffffffffu : 0;
            p[l] = (p[l] & ~m) | ((uint32_t)v[l] & m);
         }
      }
      return;
   }
   case 16: {
      uint32_t *p = s->r[(d->idx >> 1) & 127];
      const unsigned sh = (d->idx & 1) * 16;
      for (unsigned l = 0; l < USC_W; l++) {
         uint32_t m = (ex & lane_bit[l]) ? 0xffffu << sh : 0;
         p[l] = (p[l] & ~m) | (((uint32_t)v[l] << sh) & m);
      }
      return;
   }
   case 64:
      for (unsigned l = 0; l < USC_W; l++)
         if (ex & lane_bit[l])
            wr_lane(s, d, l, v[l]);
      return;
   default:
      return;
   }
}

/*
 * r = fma(a, b, c) over the lanes.  fmaf is exactly rounded, so the
 * host's FMA instruction (when it has one) gives the bits libm's fmaf
 * gives -- glibc itself picks it by ifunc -- without a call per lane.
 */
#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("fma"))) static void
fma_lanes_hw(const float *a, const float *b, const float *c, float *r)
{
   for (unsigned l = 0; l < USC_W; l++)
      r[l] = __builtin_fmaf(a[l], b[l], c[l]);
}
#endif

static void
fma_lanes(const float *a, const float *b, const float *c, float *r)
{
#if defined(__x86_64__) && defined(__GNUC__)
   /* worker threads may race to fill it in: same value, atomically */
   static int has_fma = -1;
   int h = __atomic_load_n(&has_fma, __ATOMIC_RELAXED);
   if (h < 0) {
      h = tessera_host_fma() ? 1 : 0;
      __atomic_store_n(&has_fma, h, __ATOMIC_RELAXED);
   }
   if (h) {
      fma_lanes_hw(a, b, c, r);
      return;
   }
#endif
   for (unsigned l = 0; l < USC_W; l++)
      r[l] = fmaf(a[l], b[l], c[l]);
}

/* Float destination of a 32-bit op (value already rounded to f32). */
static inline void
wr_f32res(struct hw_usc_simd *s, const struct usc_dst *d, unsigned l, float r, bool sat)
{
   uint32_t b = usc_store_f32((double)r, sat);
   if (d->size == 16)
      usc_wr16(s, d->idx, l, usc_store_f16((double)tessera_uif(b), false));
   else
      wr_lane(s, d, l, b);
}

/* Float destination from an exact / double value (one rounding). */
static inline void
wr_fres(struct hw_usc_simd *s, const struct usc_dst *d, unsigned l, double r, bool sat)
{
   if (d->size == 16)
      usc_wr16(s, d->idx, l, usc_store_f16(r, sat));
   else
      wr_lane(s, d, l, usc_store_f32(r, sat));
}

/* ---- comparisons ------------------------------------------------------- */

static inline bool
icmp(unsigned cc, int64_t a, int64_t b)
{
   bool r;
   switch (cc & 3) {
   case 0: r = a == b; break;
   case 1: r = a < b; break;
   default: r = a > b; break;
   }
   return (cc & 8) ? !r : r;
}

static inline bool
fcmp(unsigned cc, float a, float b)
{
   bool r;
   switch (cc & 7) {
   case 0: r = a == b; break;
   case 1: r = a < b; break;
   case 2: r = a > b; break;
   case 3: r = !isnan(a) && (isnan(b) || a < b); break;   /* NaN loses */
   case 5: r = a >= b; break;
   case 6: r = a <= b; break;
   case 7: r = !isnan(a) && (isnan(b) || a > b); break;
   default: r = false; break;
   }
   return (cc & 8) ? !r : r;
}

/* Per-lane condition of an if/else/while or cmpsel. */
static void
eval_cond(const struct hw_usc_simd *s, const struct usc_inst *in, bool fl,
          bool out[USC_W])
{
   if (fl) {
      float a[USC_W], b[USC_W];
      rd_float(s, &in->s[0], a);
      rd_float(s, &in->s[1], b);
      for (unsigned l = 0; l < USC_W; l++)
         out[l] = fcmp(in->cc, a[l], b[l]);
   } else {
      int64_t a[USC_W], b[USC_W];
      /* the condition's sign bit decides the extension (applegpu) */
      struct usc_src sa = in->s[0], sb = in->s[1];
      sa.flags &= (uint8_t)~SRCF_SX;
      sb.flags &= (uint8_t)~SRCF_SX;
      if (in->cc & 4) {
         if (sa.kind != SRC_IMM) sa.flags |= SRCF_SX;
         if (sb.kind != SRC_IMM) sb.flags |= SRCF_SX;
      }
      rd_int(s, &sa, a);
      rd_int(s, &sb, b);
      for (unsigned l = 0; l < USC_W; l++)
         out[l] = icmp(in->cc, a[l], b[l]);
   }
}

/* ---- integer helpers ------------------------------------------------------ */

typedef __int128 i128;
typedef unsigned __int128 u128;

static inline int64_t
saturate_int(i128 v, unsigned bits, bool is_signed)
{
   i128 lo = is_signed ? -((i128)1 << (bits - 1)) : 0;
   i128 hi = is_signed ? ((i128)1 << (bits - 1)) - 1 : ((i128)1 << bits) - 1;
   return (int64_t)(v < lo ? lo : v > hi ? hi : v);
}

static void
exec_iadd(struct hw_usc_simd *s, const struct usc_inst *in, uint32_t ex)
{
   int64_t a[USC_W], b[USC_W], c[USC_W];
   bool mad = in->op == U_IMADD;
   rd_int(s, &in->s[0], a);
   rd_int(s, &in->s[1], b);
   const struct usc_src *addend = mad ? &in->s[2] : &in->s[1];
   if (mad)
      rd_int(s, &in->s[2], c);
   unsigned dbits = in->d.size;
   bool sat = in->sat && in->shift == 0 && dbits <= 32 && src_bits(addend) <= 32 &&
              (mad || src_bits(&in->s[0]) <= 32);
   bool sgn = (in->s[0].flags & SRCF_SX) || (in->s[1].flags & SRCF_SX) ||
              (mad && (in->s[2].flags & SRCF_SX));
   uint64_t v[USC_W];
   if (!sat && !mad) {
      /* the common add: modulo 2^64 is all the destination keeps */
      const unsigned sh_ = in->shift;
      for (unsigned l = 0; l < USC_W; l++) {
         uint64_t add = in->neg ? 0 - (uint64_t)b[l] : (uint64_t)b[l];
         add = sh_ < 5 ? add << sh_ : 0;
         v[l] = (uint64_t)a[l] + add;
      }
      wr_lanes(s, &in->d, ex, v);
      return;
   }
   for (unsigned l = 0; l < USC_W; l++) {
      if (!(ex >> l & 1))
         continue;
      i128 add = mad ? (i128)c[l] : (i128)b[l];
      if (in->neg)
         add = -add;
      add = in->shift < 5 ? add * ((i128)1 << in->shift) : 0;
      i128 base = mad ? (i128)a[l] * (i128)b[l] : (i128)a[l];
      i128 r = base + add;
      v[l] = sat ? (uint64_t)saturate_int(r, dbits, sgn) : (uint64_t)r;
   }
   wr_lanes(s, &in->d, ex, v);
}

static inline uint32_t
bitfield(enum usc_op op, uint32_t a, uint32_t b, unsigned sh, unsigned m)
{
   u128 mask = m ? (((u128)1 << m) - 1) : 0xffffffffu;
   u128 A = a, B = b;
   switch (op) {
   case U_BFI: return (uint32_t)((A & ~(mask << sh)) | ((B & mask) << sh));
   case U_BFEIL: return (uint32_t)((A & ~mask) | ((B >> sh) & mask));
   case U_EXTR: return (uint32_t)((((B << 32) | A) >> sh) & mask);
   case U_SHLHI: {
      u128 sm = mask << (sh > 32 ? sh - 32 : 0);
      return (uint32_t)((((B << sh) >> 32) & sm) | (A & ~sm));
   }
   default: {   /* U_SHRHI */
      u128 sm = (mask << 32) >> (sh < 32 ? sh : 32);
      return (uint32_t)((((B << 32) >> sh) & sm) | (A & ~sm));
   }
   }
}

/* ---- conversions ---------------------------------------------------------- */

static uint64_t
convert_lane(const struct usc_inst *in, uint64_t raw, unsigned sbits)
{
   unsigned mode = in->cc;
   bool rtz = in->mode == 0;
   if (mode == 0 || mode == 1 || mode == 6 || mode == 7 || mode == 10 || mode == 11) {
      double v;
      switch (mode) {
      case 0: v = (double)(raw & 0xff); break;
      case 1: v = (double)sext(raw, 8); break;
      case 6: v = (double)(raw & 0xffff); break;
      case 7: v = (double)sext(raw, 16); break;
      case 10: v = (double)(uint32_t)raw; break;
      default: v = (double)(int32_t)(uint32_t)raw; break;
      }
      if (in->d.size == 16)
         return hw_usc_f64_to_f16(v, rtz);
      float f = (float)v;
      if (rtz && fabs((double)f) > fabs(v))
         f = nextafterf(f, 0.0f);
      return tessera_fui(f);
   }
   /* float -> integer, saturating; NaN -> 0 */
   double f = sbits == 16 ? (double)hw_usc_f16_to_f32((uint16_t)raw)
                          : (double)tessera_uif(usc_ftz32((uint32_t)raw));
   if (isnan(f))
      return 0;
   f = rtz ? trunc(f) : nearbyint(f);
   double lo, hi;
   switch (mode) {
   case 4: lo = 0; hi = 65535; break;
   case 5: lo = -32768; hi = 32767; break;
   case 8: lo = 0; hi = 4294967295.0; break;
   default: lo = -2147483648.0; hi = 2147483647.0; break;
   }
   f = f < lo ? lo : f > hi ? hi : f;
   return (uint64_t)(int64_t)f;
}

/* ---- shuffles and reductions ----------------------------------------- */

static void
exec_shuffle(struct hw_usc_simd *s, const struct usc_inst *in, uint32_t ex)
{
   uint64_t A[USC_W], B[USC_W], D[USC_W];
   rd_raw(s, &in->s[0], A);
   rd_raw(s, &in->s[1], B);
   unsigned k = in->sub;
   if (k <= SH_SIMD_XOR) {
      /* applegpu: per quad, the low two bits of B are OR-ed over all four
       * lanes (inactive ones too) and select within the quad. */
      uint64_t qv[8][4];
      for (unsigned q = 0; q < 8; q++) {
         unsigned bits = 0;
         for (unsigned i = 0; i < 4; i++)
            bits |= (unsigned)B[q * 4 + i] & 3;
         for (unsigned i = 0; i < 4; i++) {
            unsigned src;
            switch (k) {
            case SH_SIMD: src = bits; break;
            case SH_SIMD_DOWN: src = (i + bits) & 3; break;
            case SH_SIMD_XOR: src = (i ^ bits) & 3; break;
            default: src = (i - bits) & 3; break;   /* up, rotate up */
            }
            qv[q][i] = A[q * 4 + src];
         }
      }
      for (unsigned t = 0; t < USC_W; t++) {
         uint64_t b = B[t];
         switch (k) {
         case SH_SIMD: D[t] = b < 32 ? qv[b >> 2][0] : A[t]; break;
         case SH_SIMD_DOWN: D[t] = b + t < 32 ? qv[(b + t) >> 2][t & 3] : A[t]; break;
         case SH_SIMD_UP: D[t] = (int64_t)t - (int64_t)b >= 0 ? qv[(t - b) >> 2][t & 3] : A[t]; break;
         case SH_SIMD_ROTATE_UP: D[t] = qv[((t - b) & 31) >> 2][t & 3]; break;
         default: D[t] = (t ^ b) < 32 ? qv[((t ^ b) & 31) >> 2][t & 3] : A[t]; break;
         }
      }
   } else {
      for (unsigned t = 0; t < USC_W; t++) {
         unsigned q = t & ~3u, i = t & 3, b = (unsigned)(B[t] & 3);
         int j;
         switch (k) {
         case SH_QUAD: j = (int)b; break;
         case SH_QUAD_XOR: j = (int)(i ^ b); break;
         case SH_QUAD_DOWN: j = (int)(i + b) < 4 ? (int)(i + b) : (int)i; break;
         case SH_QUAD_UP: j = (int)i - (int)b >= 0 ? (int)i - (int)b : (int)i; break;
         default: j = (int)((i - b) & 3); break;
         }
         D[t] = A[q + (unsigned)j];
      }
   }
   wr_lanes(s, &in->d, ex, D);
}

static double
fround(double v, unsigned bits)
{
   if (bits == 16)
      return hw_usc_f16_to_f32(usc_store_f16(v, false));
   return tessera_uif(usc_store_f32(v, false));
}

static void
exec_reduce(struct hw_usc_simd *s, const struct usc_inst *in, uint32_t ex)
{
   unsigned bits = src_bits(&in->s[0]);
   if (in->s[0].kind == SRC_IMM || in->s[0].kind == SRC_FIMM)
      bits = in->d.size == 32 ? 32 : 16;
   uint64_t A[USC_W];
   rd_raw(s, &in->s[0], A);
   unsigned op = in->sub;
   bool fl = op == RD_FADD || op == RD_FMUL || op == RD_FMIN || op == RD_FMAX;
   unsigned gsize = (in->mode & RD_QUAD) ? 4 : 32;
   bool prefix = in->mode & RD_PREFIX;
   uint64_t mask = bits >= 64 ? ~0ull : ((1ull << bits) - 1);

   for (unsigned g = 0; g < USC_W; g += gsize) {
      bool have = false;
      uint64_t iacc = 0;
      double facc = 0;
      uint64_t out[32];
      for (unsigned l = g; l < g + gsize; l++) {
         if (!(ex >> l & 1))
            continue;
         /* exclusive prefix: the value before this lane; identity first */
         if (!have) {
            switch (op) {
            case RD_AND: out[l - g] = mask; break;
            case RD_FMUL: out[l - g] = bits == 16 ? 0x3c00 : 0x3f800000u; break;
            case RD_UMIN: out[l - g] = mask; break;
            case RD_SMIN: out[l - g] = mask >> 1; break;
            case RD_SMAX: out[l - g] = (mask >> 1) + 1; break;
            case RD_FMIN: out[l - g] = bits == 16 ? 0x7c00 : 0x7f800000u; break;
            case RD_FMAX: out[l - g] = bits == 16 ? 0xfc00 : 0xff800000u; break;
            default: out[l - g] = 0; break;
            }
         } else if (fl) {
            out[l - g] = bits == 16 ? usc_store_f16(facc, false) : usc_store_f32(facc, false);
         } else {
            out[l - g] = iacc & mask;
         }
         uint64_t v = A[l] & mask;
         if (fl) {
            double f = bits == 16 ? (double)hw_usc_f16_to_f32((uint16_t)v)
                                  : (double)tessera_uif(usc_ftz32((uint32_t)v));
            if (!have)
               facc = f;
            else {
               switch (op) {
               case RD_FADD: facc = fround(facc + f, bits); break;
               case RD_FMUL: facc = fround(facc * f, bits); break;
               case RD_FMIN: facc = (isnan(f) || facc <= f) && !isnan(facc) ? facc : f; break;
               default: facc = (isnan(f) || facc >= f) && !isnan(facc) ? facc : f; break;
               }
            }
         } else if (!have) {
            iacc = v;
         } else {
            switch (op) {
            case RD_AND: iacc &= v; break;
            case RD_OR: iacc |= v; break;
            case RD_XOR: iacc ^= v; break;
            case RD_IADD: iacc = (iacc + v) & mask; break;
            case RD_UMIN: iacc = v < iacc ? v : iacc; break;
            case RD_UMAX: iacc = v > iacc ? v : iacc; break;
            case RD_SMIN: iacc = sext(v, bits) < sext(iacc, bits) ? v : iacc; break;
            default: iacc = sext(v, bits) > sext(iacc, bits) ? v : iacc; break;
            }
         }
         have = true;
      }
      if (!have)
         continue;
      uint64_t total = fl ? (bits == 16 ? usc_store_f16(facc, false) : usc_store_f32(facc, false))
                          : iacc;
      for (unsigned l = g; l < g + gsize; l++)
         if (ex >> l & 1)
            wr_lane(s, &in->d, l, prefix ? out[l - g] : total);
   }
}

/* ---- control flow ------------------------------------------------------ */

static void
update_exec(struct hw_usc_simd *s)
{
   uint32_t e = 0;
   for (unsigned l = 0; l < USC_W; l++)
      e |= (uint32_t)(usc_rd16(s, 0, l) == 0) << l;
   s->exec = e & s->present;
}

static void
exec_cf(struct hw_usc_simd *s, const struct usc_inst *in)
{
   bool cond[USC_W];
   if (in->op != U_POP_EXEC)
      eval_cond(s, in, in->sub & 1, cond);
   unsigned n = in->n;
   for (unsigned l = 0; l < USC_W; l++) {
      if (!(s->present >> l & 1))
         continue;
      unsigned v = usc_rd16(s, 0, l);
      switch (in->op) {
      case U_POP_EXEC: v = v > n ? v - n : 0; break;
      case U_IF:
         if (v != 0) v += n;
         else if (!cond[l]) v = 1;
         break;
      case U_ELSE:
         if (v == 0) v = n;
         else if (v == 1) v = cond[l] ? 0 : 1;
         break;
      default:   /* U_WHILE */
         if (v < n) v = cond[l] ? 0 : n;
         break;
      }
      usc_wr16(s, 0, l, v);
   }
   update_exec(s);
}

/* ---- cycle model ---------------------------------------------------------- */

static const uint8_t class_cycles[] = {
   [C_ALU] = 1, [C_IMUL] = 4, [C_SFU] = 4, [C_MEM] = 2, [C_CF] = 1, [C_SHUFFLE] = 2,
};

static enum hw_usc_status
fail(struct hw_usc_simd *s, struct hw_usc_result *res, enum hw_usc_status st,
     const char *msg)
{
   if (res) {
      const struct hw_usc_shader *sh = s->launch->shader;
      res->status = st;
      res->simd = s->index;
      res->pc = sh->va + (s->pc < sh->count ? sh->inst[s->pc].pc : sh->bytes);
      snprintf(res->message, sizeof(res->message), "%s", msg);
   }
   return st;
}

static enum hw_usc_status
jump_to_address(struct hw_usc_simd *s, uint64_t addr, struct hw_usc_result *res)
{
   const struct hw_usc_shader *sh = s->launch->shader;
   int r = addr >= sh->va ? usc_find_record(sh, (int64_t)(addr - sh->va)) : -1;
   if (r < 0) {
      char m[96];
      snprintf(m, sizeof(m), "return/call to 0x%llx, not an instruction of the shader",
               (unsigned long long)addr);
      return fail(s, res, HW_USC_BAD_CODE, m);
   }
   s->pc = (unsigned)r;
   return HW_USC_OK;
}

static unsigned
first_lane(uint32_t m)
{
   return m ? (unsigned)__builtin_ctz(m) : 0;
}

static enum hw_usc_status
run_simd(struct hw_usc_simd *s, uint64_t *budget, struct hw_usc_result *res)
{
   const struct hw_usc_shader *sh = s->launch->shader;
   const struct usc_inst *code = sh->inst;
   struct hw_usc_stats *st = s->stats;
   enum hw_usc_status rc;
   s->at_barrier = false;
   const struct usc_native *nat = usc_native_get ? usc_native_get(sh) : NULL;

   for (;;) {
      if (s->pc >= sh->count)
         return fail(s, res, HW_USC_BAD_CODE, "execution ran past the end of the shader");
      const struct usc_native_run *nr = nat ? nat->at[s->pc] : NULL;
      if (nr && (!budget || *budget >= nr->n)) {
         /* A native run charges what interpreting its records would.  The
          * stop flag is polled before an instruction whose count is a
          * multiple of 256: if the run holds one and the flag is up, the
          * records are interpreted so that the stop lands where it would. */
         const uint64_t i0 = s->instructions;
         if (!s->launch->stop_flag || ((i0 & 255) != 0 && (i0 + nr->n - 1) >> 8 == i0 >> 8) ||
             !*s->launch->stop_flag) {
            if (budget)
               *budget -= nr->n;
            s->instructions += nr->n;
            s->cycles += nr->cycles;
            st->alu += nr->alu;
            st->imul += nr->imul;
            nr->fn(&s->r[0][0], s->u, s->exec, s);
            s->pc = nr->end;
            continue;
         }
      }
      const struct usc_inst *in = &code[s->pc];
      if (budget) {
         if (*budget == 0)
            return fail(s, res, HW_USC_BUDGET, "instruction budget exhausted");
         (*budget)--;
      }
      if (s->launch->stop_flag && (s->instructions & 255) == 0 && *s->launch->stop_flag)
         return fail(s, res, HW_USC_STOPPED, "stopped by the firmware");
      s->instructions++;
      s->cycles += class_cycles[in->cls];
      switch (in->cls) {
      case C_ALU: st->alu++; break;
      case C_IMUL: st->imul++; break;
      case C_SFU: st->sfu++; break;
      case C_MEM: st->mem++; break;
      default: st->cf++; break;
      }
      uint32_t ex = s->exec;
      unsigned next = s->pc + 1;

      switch ((enum usc_op)in->op) {
      case U_MOV_IMM: {
         uint64_t v[USC_W];
         for (unsigned l = 0; l < USC_W; l++)
            v[l] = in->s[0].imm;
         wr_lanes(s, &in->d, ex, v);
         break;
      }
      case U_GET_SR: {
         uint32_t v[USC_W];
         uint64_t w[USC_W];
         usc_read_sr(s, in->s[0].imm, v);
         for (unsigned l = 0; l < USC_W; l++)
            w[l] = v[l];
         wr_lanes(s, &in->d, ex, w);
         break;
      }
      case U_IADD:
      case U_IMADD:
         exec_iadd(s, in, ex);
         break;
      case U_CONVERT: {
         uint64_t a[USC_W];
         rd_raw(s, &in->s[0], a);
         unsigned sb = src_bits(&in->s[0]);
         for (unsigned l = 0; l < USC_W; l++)
            if (ex >> l & 1)
               a[l] = convert_lane(in, a[l], sb);
         wr_lanes(s, &in->d, ex, a);
         break;
      }
      case U_BFI: case U_BFEIL: case U_EXTR: case U_SHLHI: case U_SHRHI: {
         uint64_t a[USC_W], b[USC_W], c[USC_W];
         rd_raw(s, &in->s[0], a);
         rd_raw(s, &in->s[1], b);
         rd_raw(s, &in->s[2], c);
         for (unsigned l = 0; l < USC_W; l++)
            if (ex >> l & 1)
               a[l] = bitfield((enum usc_op)in->op, (uint32_t)a[l], (uint32_t)b[l],
                               (unsigned)(c[l] & 0x7f), in->mask);
         wr_lanes(s, &in->d, ex, a);
         break;
      }
      case U_ASR: case U_ASRH: {
         uint64_t a[USC_W], b[USC_W];
         rd_raw(s, &in->s[0], a);
         rd_raw(s, &in->s[1], b);
         unsigned ab = src_bits(&in->s[0]);
         for (unsigned l = 0; l < USC_W; l++) {
            if (!(ex >> l & 1))
               continue;
            unsigned sh_ = (unsigned)(b[l] & 0x7f);
            i128 v = (i128)sext(a[l], ab > 32 ? 32 : ab);
            if (in->op == U_ASRH)
               v *= (i128)1 << 32;
            v >>= sh_ > 100 ? 100 : sh_;
            a[l] = (uint64_t)v;
         }
         wr_lanes(s, &in->d, ex, a);
         break;
      }
      case U_BITOP: {
         uint64_t a[USC_W], b[USC_W];
         rd_raw(s, &in->s[0], a);
         rd_raw(s, &in->s[1], b);
         unsigned tt = in->cc;
         /* applegpu: 0011/1100 behave as a move of A (Mesa's mov, the
          * most frequent instruction); otherwise each truth-table bit
          * selects one minterm, as a mask so the loop has no branch */
         if (tt != 0x3 && tt != 0xc) {
            const uint64_t m1 = (tt & 1) ? ~0ull : 0, m2 = (tt & 2) ? ~0ull : 0,
                           m4 = (tt & 4) ? ~0ull : 0, m8 = (tt & 8) ? ~0ull : 0;
            for (unsigned l = 0; l < USC_W; l++)
               a[l] = (m1 & ~a[l] & ~b[l]) | (m2 & a[l] & ~b[l]) |
                      (m4 & ~a[l] & b[l]) | (m8 & a[l] & b[l]);
         }
         wr_lanes(s, &in->d, ex, a);
         break;
      }
      case U_BITREV: case U_POPCOUNT: case U_FFS: case U_INTL: {
         uint64_t a[USC_W], b[USC_W];
         rd_raw(s, &in->s[0], a);
         if (in->op == U_INTL)
            rd_raw(s, &in->s[1], b);
         for (unsigned l = 0; l < USC_W; l++) {
            if (!(ex >> l & 1))
               continue;
            uint32_t v = (uint32_t)a[l], r = 0;
            if (in->op == U_BITREV) {
               for (unsigned i = 0; i < 32; i++)
                  r |= ((v >> i) & 1) << (31 - i);
            } else if (in->op == U_POPCOUNT) {
               r = tessera_popcount32(v);
            } else if (in->op == U_FFS) {
               r = v ? 31u - (uint32_t)__builtin_clz(v) : 0xffffffffu;
            } else {
               for (unsigned i = 0; i < 16; i++)
                  r |= ((v >> i) & 1) << (2 * i) | (((uint32_t)b[l] >> i) & 1) << (2 * i + 1);
            }
            a[l] = r;
         }
         wr_lanes(s, &in->d, ex, a);
         break;
      }
      case U_FADD32: case U_FMUL32: case U_FMADD32: {
         float a[USC_W], b[USC_W], c[USC_W];
         rd_float(s, &in->s[0], a);
         rd_float(s, &in->s[1], b);
         if (in->op == U_FMADD32)
            rd_float(s, &in->s[2], c);
         /* every lane is computed (no side effects), then the active
          * ones are stored */
         float r[USC_W];
         if (in->op == U_FADD32) {
            for (unsigned l = 0; l < USC_W; l++)
               r[l] = a[l] + b[l];
         } else if (in->op == U_FMUL32) {
            for (unsigned l = 0; l < USC_W; l++)
               r[l] = a[l] * b[l];
         } else {
            fma_lanes(a, b, c, r);
         }
         if (in->d.size == 32 && !in->sat) {
            /* usc_store_f32(r, false) without branches or calls: NaN
             * -> canonical, zero exponent -> signed zero, anything else
             * (r is already a float) as it is */
            uint32_t *d = s->r[in->d.idx & 127];
            for (unsigned l = 0; l < USC_W; l++) {
               const uint32_t b = tessera_fui(r[l]), e = b & 0x7f800000u;
               uint32_t v = e == 0 ? b & 0x80000000u : b;
               v = (e == 0x7f800000u && (b & 0x007fffffu)) ? 0x7fc00000u : v;
               const uint32_t m = (ex & lane_bit[l]) ? 0xffffffffu : 0;
               d[l] = (d[l] & ~m) | (v & m);
            }
         } else {
            for (unsigned l = 0; l < USC_W; l++)
               if (ex >> l & 1)
                  wr_f32res(s, &in->d, l, r[l], in->sat);
         }
         break;
      }
      case U_FADD16: case U_FMUL16: case U_FMADD16: {
         float a[USC_W], b[USC_W], c[USC_W];
         rd_float(s, &in->s[0], a);
         rd_float(s, &in->s[1], b);
         if (in->op == U_FMADD16)
            rd_float(s, &in->s[2], c);
         for (unsigned l = 0; l < USC_W; l++) {
            if (!(ex >> l & 1))
               continue;
            /* sums and products of halves are exact in double */
            double r = in->op == U_FADD16 ? (double)a[l] + (double)b[l] :
                       in->op == U_FMUL16 ? (double)a[l] * (double)b[l] :
                       usc_fma16(a[l], b[l], c[l]);
            wr_fres(s, &in->d, l, r, in->sat);
         }
         break;
      }
      case U_FUNARY: {
         float a[USC_W];
         rd_float(s, &in->s[0], a);
         if (in->sub == FU_DFDX || in->sub == FU_DFDY) {
            unsigned bit = in->sub == FU_DFDX ? 1 : 2;   /* quad: x = bit 0, y = bit 1 */
            for (unsigned l = 0; l < USC_W; l++)
               if (ex >> l & 1) {
                  float d = a[l | bit] - a[l & ~bit];
                  wr_f32res(s, &in->d, l, d, in->sat);
               }
            break;
         }
         for (unsigned l = 0; l < USC_W; l++)
            if (ex >> l & 1)
               wr_fres(s, &in->d, l, usc_funary((enum usc_funary)in->sub, a[l]), in->sat);
         break;
      }
      case U_ICMPSEL: case U_FCMPSEL: {
         bool cond[USC_W];
         uint64_t x[USC_W], y[USC_W];
         eval_cond(s, in, in->op == U_FCMPSEL, cond);
         rd_raw(s, &in->s[2], x);
         rd_raw(s, &in->s[3], y);
         for (unsigned l = 0; l < USC_W; l++)
            x[l] = cond[l] ? x[l] : y[l];
         wr_lanes(s, &in->d, ex, x);
         break;
      }
      case U_BALLOT: {
         /* Bit l: lane l is active and its compare holds. The quad form
          * gives each lane its own quad's four bits (bits 0-3; Mesa only
          * compares the result with 0). */
         bool cond[USC_W];
         uint32_t m = 0;
         eval_cond(s, in, in->sub, cond);
         for (unsigned l = 0; l < USC_W; l++)
            if ((ex >> l & 1) && cond[l])
               m |= 1u << l;
         for (unsigned l = 0; l < USC_W; l++)
            if (ex >> l & 1)
               wr_lane(s, &in->d, l, in->mode & RD_QUAD ? m >> (l & ~3u) & 0xf : m);
         break;
      }
      case U_SHUFFLE:
         exec_shuffle(s, in, ex);
         break;
      case U_REDUCE:
         exec_reduce(s, in, ex);
         break;
      case U_POP_EXEC: case U_IF: case U_ELSE: case U_WHILE:
         exec_cf(s, in);
         break;
      case U_JMP_ANY:
         if (ex)
            next = (unsigned)in->target;
         break;
      case U_JMP_NONE:
         if (!ex)
            next = (unsigned)in->target;
         break;
      case U_CALL: {
         uint32_t link = (uint32_t)(sh->va + in->pc + 6);
         for (unsigned l = 0; l < USC_W; l++)
            if (ex >> l & 1)
               s->r[1][l] = link;
         next = (unsigned)in->target;
         break;
      }
      case U_CALL_REG: case U_RET: {
         /* the address comes from the first active lane (uniform in
          * practice); the upper half of the VA is the shader's own */
         uint64_t addr = (sh->va & ~0xffffffffull) | s->r[in->s[0].idx & 127][first_lane(ex)];
         if (in->op == U_CALL_REG) {
            uint32_t link = (uint32_t)(sh->va + in->pc + 2);
            for (unsigned l = 0; l < USC_W; l++)
               if (ex >> l & 1)
                  s->r[1][l] = link;
         }
         if ((rc = jump_to_address(s, addr, res)) != HW_USC_OK)
            return rc;
         next = s->pc;
         break;
      }
      case U_STOP:
         usc_flush_pending(s, -1);
         s->done = true;
         s->pc = next;
         return HW_USC_OK;
      case U_TRAP:
         return fail(s, res, HW_USC_TRAP, "trap instruction");
      case U_BARRIER:
         st->barriers++;
         s->at_barrier = true;
         s->pc = next;
         return HW_USC_OK;
      case U_MEMORY_BARRIER:
      case U_STACK_ADJUST:
         break;
      case U_WAIT:
         /* the group stalls for the load latency if a load is in flight */
         if (s->outstanding & (1u << in->slot))
            s->cycles += USC_LOAD_LATENCY;
         s->outstanding &= ~(1u << in->slot);
         usc_flush_pending(s, in->slot);
         break;
      case U_HOOK: {
         const struct agx_instr *ai = &sh->hook_instrs[in->hook];
         if (!s->launch->stage_hook) {
            char m[96], mn[32];
            agx_isa_mnemonic(ai, mn, sizeof(mn));
            snprintf(m, sizeof(m), "%s is unsupported in this stage (no hook)", mn);
            return fail(s, res, HW_USC_UNSUPPORTED, m);
         }
         rc = s->launch->stage_hook(s->launch->hook_user, s, ai, ex);
         if (rc != HW_USC_OK) {
            /* Hooks record faults in the group's MMU view (their contract);
             * callers report res->fault, so carry it over. */
            if (rc == HW_USC_FAULT && res && s->mmu->fault.valid) {
               char m[96];
               snprintf(m, sizeof(m), "stage hook fault at 0x%llx",
                        (unsigned long long)s->mmu->fault.addr);
               res->fault = s->mmu->fault;
               return fail(s, res, rc, m);
            }
            if (s->hook_message[0]) {
               char m[128];
               snprintf(m, sizeof(m), "stage hook failed: %s", s->hook_message);
               return fail(s, res, rc, m);
            }
            return fail(s, res, rc, "stage hook failed");
         }
         break;
      }
      default:
         rc = usc_exec_mem(s, in, res);
         if (rc != HW_USC_OK) {
            if (res && res->message[0] == 0)
               fail(s, res, rc, "memory access failed");
            else if (res) {
               res->simd = s->index;
               res->pc = sh->va + in->pc;
            }
            return rc;
         }
         break;
      }
      s->pc = next;
   }
}

enum hw_usc_status
usc_run_simd(struct hw_usc_simd *s, uint64_t *budget, struct hw_usc_result *res)
{
   const uint64_t i0 = s->instructions;
   enum hw_usc_status rc = run_simd(s, budget, res);
   /* the instructions this shader ran, for the native path's "hot" test */
   if (usc_native_note)
      usc_native_note(s->launch->shader, s->instructions - i0);
   return rc;
}

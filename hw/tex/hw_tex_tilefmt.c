/* SPDX-License-Identifier: MIT */
/*
 * Tilebuffer and imageblock memory formats: the bytes ld_tile / st_tile
 * move between a register and one sample of a pixel (contract in
 * hw_tex.h, "Tile formats"). The fragment tilebuffer and the compute
 * imageblock (threadgroup memory) store pixels the same way, so both
 * stages use this codec.
 */
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "hw/tex/hw_tex.h"
#include "hw/usc/hw_usc.h"
#include "tessera/float_bits.h"

/* The vector u8norm store needs SSE2 and floats evaluated as floats
 * (rint_small's add/subtract form). */
#if defined(__SSE2__) && defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD == 0
#define TILEFMT_SSE2 1
#include <emmintrin.h>
#endif

bool
hw_tex_tile_fmt_bytes(unsigned f, unsigned *bytes)
{
   switch (f) {
   case 0: case 4: case 5: *bytes = 1; return true;       /* i8 u8norm s8norm */
   case 1: case 3: case 6: case 7: *bytes = 2; return true;
   case 2: *bytes = 4; return true;
   case 8: case 10: case 12: case 14:                     /* packed 32-bit */
      *bytes = 1;
      return true;
   default: return false;
   }
}

bool
hw_tex_tile_fmt_packed(unsigned f)
{
   return f == 8 || f == 10 || f == 12 || f == 14;
}

/*
 * rg11b10f (and its round-towards-zero twin, 14): R in bits 0-10 and G in
 * 11-21 (unsigned floats with a 5-bit exponent and a 6-bit mantissa), B in
 * 22-31 (5-bit mantissa), as PIPE_FORMAT_R11G11B10_FLOAT lays it out;
 * Mesa's agx_tilebuffer gives R11G11B10_FLOAT render targets this format.
 * Alpha is not stored (it reads 1). Components are independent bit
 * fields, so each is stored on its own.
 */
static const unsigned rg11b10f_shift[3] = { 0, 11, 22 };
static const unsigned rg11b10f_mant[3] = { 6, 6, 5 };

/*
 * lrintf() for |v| < 2^22 (every normalised value the tilebuffer stores
 * is in [-65535, 65535]), inline: adding and removing 1.5 * 2^23 rounds to
 * an integer in the current rounding mode, as lrintf does.
 */
static inline long
rint_small(float v)
{
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD == 0
   /* Not folded: without -ffast-math the compiler keeps both roundings. */
   return (long)((v + 12582912.0f) - 12582912.0f);
#else
   return lrintf(v);
#endif
}

static float
srgb_enc(float c)
{
   return c <= 0.0031308f ? c * 12.92f : 1.055f * powf(c, 1.0f / 2.4f) - 0.055f;
}

static float
srgb_dec(float c)
{
   return c <= 0.04045f ? c / 12.92f : powf((c + 0.055f) / 1.055f, 2.4f);
}

void
hw_tex_tile_store_comp(unsigned f, unsigned comp, uint8_t *dst, uint32_t reg, bool r16)
{
   float fv = r16 ? hw_usc_f16_to_f32((uint16_t)reg) : tessera_uif(reg);
   switch (f) {
   case 0: dst[0] = (uint8_t)reg; break;
   case 1: { uint16_t v = (uint16_t)reg; memcpy(dst, &v, 2); break; }
   case 2: memcpy(dst, &reg, 4); break;
   case 3: { uint16_t v = r16 ? (uint16_t)reg : hw_usc_f32_to_f16(tessera_uif(reg)); memcpy(dst, &v, 2); break; }
   case 4: dst[0] = (uint8_t)rint_small(hw_tex_clampf(fv, 0, 1) * 255.0f); break;
   case 5: dst[0] = (uint8_t)(int8_t)rint_small(hw_tex_clampf(fv, -1, 1) * 127.0f); break;
   case 6: { uint16_t v = (uint16_t)rint_small(hw_tex_clampf(fv, 0, 1) * 65535.0f); memcpy(dst, &v, 2); break; }
   case 7: { int16_t v = (int16_t)rint_small(hw_tex_clampf(fv, -1, 1) * 32767.0f); memcpy(dst, &v, 2); break; }
   case 10: dst[comp] = (uint8_t)rint_small((comp < 3 ? srgb_enc(hw_tex_clampf(fv, 0, 1)) : hw_tex_clampf(fv, 0, 1)) * 255.0f); break;
   case 12: case 14: {
      if (comp > 2)
         break;
      uint32_t w, m = (1u << (rg11b10f_mant[comp] + 5)) - 1;
      memcpy(&w, dst, 4);
      uint32_t v = hw_tex_float_to_ufloat(fv, rg11b10f_mant[comp], f == 14);
      w = (w & ~(m << rg11b10f_shift[comp])) | (v & m) << rg11b10f_shift[comp];
      memcpy(dst, &w, 4);
      break;
   }
   case 8: {
      uint32_t w;
      memcpy(&w, dst - 0, 4);
      unsigned bits = comp < 3 ? 10 : 2, sh = comp * 10;
      uint32_t m = (1u << bits) - 1;
      uint32_t v = (uint32_t)rint_small(hw_tex_clampf(fv, 0, 1) * (float)m);
      w = (w & ~(m << sh)) | v << sh;
      memcpy(dst, &w, 4);
      break;
   }
   default: break;
   }
}

/*
 * u8norm from a 16-bit (half) register: a pure function of 16 bits, so a
 * table built once with hw_tex_tile_store_comp itself gives the same
 * bytes (nothing in the model changes the rounding mode).
 */
static uint8_t unorm8_from_f16[65536];
static pthread_once_t unorm8_once = PTHREAD_ONCE_INIT;

static void
unorm8_init(void)
{
   for (uint32_t h = 0; h < 65536; h++)
      hw_tex_tile_store_comp(4, 0, &unorm8_from_f16[h], h, true);
}

bool hw_tex_tile_u8norm_scalar;

#ifdef TILEFMT_SSE2
/* unorm8_from_f32 on four registers, with the same float operations:
 * hw_tex_clampf's `lo > v ? lo : v` is MAXPS(lo, v) and `r > hi ? hi : r`
 * MINPS(hi, r) operand for operand (both give the second operand when
 * the compare is false: NaN passes through, -0 stays -0, as in C), its
 * NaN test a CMPORDPS mask; then * 255 and rint_small's add and
 * subtract of 1.5 * 2^23 in the same (MXCSR) rounding mode, and the
 * truncating conversion of what is by then an integer in [0, 255]. */
static inline __m128i
unorm8x4_from_f32(__m128i reg)
{
   const __m128 v = _mm_castsi128_ps(reg);
   __m128 r = _mm_max_ps(_mm_setzero_ps(), v);
   r = _mm_min_ps(_mm_set1_ps(1.0f), r);
   r = _mm_and_ps(r, _mm_cmpord_ps(v, v));
   r = _mm_mul_ps(r, _mm_set1_ps(255.0f));
   r = _mm_sub_ps(_mm_add_ps(r, _mm_set1_ps(12582912.0f)), _mm_set1_ps(12582912.0f));
   return _mm_cvttps_epi32(r);
}

/*
 * unorm8_from_f16's bytes of four halves (bits 0-15 of each lane; the
 * rest ignored): each half becomes a float that converts to the same
 * byte, then unorm8x4_from_f32. A positive normal half is that float
 * exactly (exponent rebiased, mantissa shifted); a negative one keeps
 * its sign, so clamps to 0; zero and denormals give floats below
 * 2^-14, whose byte is 0 as theirs is (2^-14 * 255 < 0.5); infinity
 * gives 65536, which clamps to 1 as infinity does; NaN gives 0 (the
 * float path's NaN byte). test_tile_store_px8 compares all 65536
 * halves with the table.
 */
static inline __m128i
unorm8x4_from_f16(__m128i h)
{
   const __m128i a = _mm_and_si128(h, _mm_set1_epi32(0x7fff));
   __m128i f = _mm_add_epi32(_mm_slli_epi32(a, 13), _mm_set1_epi32(112 << 23));
   f = _mm_or_si128(f, _mm_slli_epi32(_mm_and_si128(h, _mm_set1_epi32(0x8000)), 16));
   f = _mm_andnot_si128(_mm_cmpgt_epi32(a, _mm_set1_epi32(0x7c00)), f);
   return unorm8x4_from_f32(f);
}
#endif

void
hw_tex_tile_store_comps(unsigned f, unsigned comp, uint8_t *base, const size_t *off,
                        const uint32_t *reg, unsigned n, bool r16)
{
   /* The format is dispatched once per call, not per value; the common
    * formats convert inline, the rest through the per-value codec. */
   switch (f) {
   case 0:
      for (unsigned i = 0; i < n; i++)
         base[off[i]] = (uint8_t)reg[i];
      return;
   case 2:
      for (unsigned i = 0; i < n; i++)
         memcpy(base + off[i], &reg[i], 4);
      return;
   case 4:
      if (r16) {
         pthread_once(&unorm8_once, unorm8_init);
         for (unsigned i = 0; i < n; i++)
            base[off[i]] = unorm8_from_f16[reg[i] & 0xffff];
      } else {
         unsigned i0 = 0;
#ifdef TILEFMT_SSE2
         /* Four values at a time (unorm8x4_from_f32: the scalar
          * conversion's operations); the loop below is the reference
          * and takes the tail. */
         if (!hw_tex_tile_u8norm_scalar)
            for (; i0 + 4 <= n; i0 += 4) {
               /* the four bytes (0..255, so the saturating packs are
                * exact) in one general register, not through memory */
               __m128i b = unorm8x4_from_f32(_mm_loadu_si128((const __m128i *)(reg + i0)));
               b = _mm_packus_epi16(_mm_packs_epi32(b, b), b);
               uint32_t b4 = (uint32_t)_mm_cvtsi128_si32(b);
               base[off[i0 + 0]] = (uint8_t)b4;
               base[off[i0 + 1]] = (uint8_t)(b4 >> 8);
               base[off[i0 + 2]] = (uint8_t)(b4 >> 16);
               base[off[i0 + 3]] = (uint8_t)(b4 >> 24);
            }
#endif
         /* lanes mostly store one colour (clears, flat shading) */
         uint32_t last = 0;
         uint8_t b = 0;
         for (unsigned i = i0; i < n; i++) {
            if (i == i0 || reg[i] != last) {
               last = reg[i];
               b = (uint8_t)rint_small(hw_tex_clampf(tessera_uif(last), 0, 1) * 255.0f);
            }
            base[off[i]] = b;
         }
      }
      return;
   default:
      for (unsigned i = 0; i < n; i++)
         hw_tex_tile_store_comp(f, comp, base + off[i], reg[i], r16);
      return;
   }
}

uint32_t
hw_tex_tile_load_comp(unsigned f, unsigned comp, const uint8_t *src, bool r16)
{
   float fv;
   switch (f) {
   case 0: return src[0];
   case 1: { uint16_t v; memcpy(&v, src, 2); return v; }
   case 2: { uint32_t v; memcpy(&v, src, 4); return v; }
   case 3: { uint16_t v; memcpy(&v, src, 2); return r16 ? v : tessera_fui(hw_usc_f16_to_f32(v)); }
   case 4: fv = src[0] / 255.0f; break;
   case 5: fv = fmaxf((int8_t)src[0] / 127.0f, -1.0f); break;
   case 6: { uint16_t v; memcpy(&v, src, 2); fv = v / 65535.0f; break; }
   case 7: { int16_t v; memcpy(&v, src, 2); fv = fmaxf(v / 32767.0f, -1.0f); break; }
   case 10: fv = src[comp] / 255.0f; if (comp < 3) fv = srgb_dec(fv); break;
   case 12: case 14: {
      uint32_t w;
      memcpy(&w, src, 4);
      fv = comp > 2 ? 1.0f
                    : hw_tex_ufloat_to_float(w >> rg11b10f_shift[comp] &
                                                ((1u << (rg11b10f_mant[comp] + 5)) - 1),
                                             rg11b10f_mant[comp]);
      break;
   }
   case 8: {
      uint32_t w;
      memcpy(&w, src, 4);
      unsigned bits = comp < 3 ? 10 : 2;
      fv = (float)(w >> (comp * 10) & ((1u << bits) - 1)) / (float)((1u << bits) - 1);
      break;
   }
   default: return 0;
   }
   return r16 ? hw_usc_f32_to_f16(fv) : tessera_fui(fv);
}

/*
 * The 8-bit loads (u8norm, srgba8) are pure functions of one byte, so
 * tables built once with hw_tex_tile_load_comp itself give the same
 * registers: [format: 0 u8norm (and srgba8 alpha), 1 srgba8 colour]
 * [r16][byte]. They spare a group's loads a division per value, and the
 * sRGB decode a powf.
 */
static uint32_t load8[2][2][256];
static pthread_once_t load8_once = PTHREAD_ONCE_INIT;

static void
load8_init(void)
{
   for (unsigned r16 = 0; r16 < 2; r16++) {
      for (unsigned b = 0; b < 256; b++) {
         uint8_t px[4] = { (uint8_t)b, (uint8_t)b, (uint8_t)b, (uint8_t)b };
         load8[0][r16][b] = hw_tex_tile_load_comp(4, 0, px, r16);
         load8[1][r16][b] = hw_tex_tile_load_comp(10, 0, px, r16);
      }
   }
}

void
hw_tex_tile_load_comps(unsigned f, unsigned comp, const uint8_t *base, const size_t *off,
                       uint32_t *reg, unsigned n, bool r16)
{
   switch (f) {
   case 0:
      for (unsigned i = 0; i < n; i++)
         reg[i] = base[off[i]];
      return;
   case 1:
   case 3:
      if (f == 3 && !r16)
         break;   /* f16 into a 32-bit register: the per-value codec */
      for (unsigned i = 0; i < n; i++) {
         uint16_t v;
         memcpy(&v, base + off[i], 2);
         reg[i] = v;
      }
      return;
   case 2:
      for (unsigned i = 0; i < n; i++)
         memcpy(&reg[i], base + off[i], 4);
      return;
   case 4:
   case 10: {
      pthread_once(&load8_once, load8_init);
      /* srgba8 keeps the pixel in one word: component comp is byte comp,
       * and its alpha is plain u8norm */
      const uint32_t *t = load8[f == 10 && comp < 3][r16];
      unsigned at = f == 10 ? comp : 0;
      for (unsigned i = 0; i < n; i++)
         reg[i] = t[base[off[i] + at]];
      return;
   }
   default:
      break;
   }
   for (unsigned i = 0; i < n; i++)
      reg[i] = hw_tex_tile_load_comp(f, comp, base + off[i], r16);
}

/* srgba8's colour bytes from a 16-bit register, as unorm8_from_f16 (its
 * alpha is plain u8norm): saves a powf per value. */
static uint8_t srgb8_from_f16[65536];
static pthread_once_t srgb8_once = PTHREAD_ONCE_INIT;

static void
srgb8_init(void)
{
   for (uint32_t h = 0; h < 65536; h++) {
      uint8_t px[4] = { 0 };
      hw_tex_tile_store_comp(10, 0, px, h, true);
      srgb8_from_f16[h] = px[0];
   }
}

/* hw_tex_tile_store_comp's u8norm byte of a 32-bit register */
static inline uint32_t
unorm8_from_f32(uint32_t reg)
{
   return (uint8_t)rint_small(hw_tex_clampf(tessera_uif(reg), 0, 1) * 255.0f);
}

bool
hw_tex_tile_store_px8(unsigned f, uint8_t *base, const uint32_t *off,
                      uint32_t *const row[4], const unsigned sh[4], unsigned n, bool r16)
{
   if (f != 4 && f != 10)
      return false;
   if (r16) {
      pthread_once(&unorm8_once, unorm8_init);
      const uint8_t *colour = unorm8_from_f16;
      if (f == 10) {
         pthread_once(&srgb8_once, srgb8_init);
         colour = srgb8_from_f16;
      }
      unsigned i = 0;
#ifdef TILEFMT_SSE2
      /* u8norm: four pixels at a time (unorm8x4_from_f16); srgba8's
       * colour keeps its table */
      if (f == 4 && !hw_tex_tile_u8norm_scalar)
         for (; i + 4 <= n; i += 4) {
            __m128i w = _mm_setzero_si128();
            for (unsigned k = 0; k < 4; k++) {
               __m128i h = _mm_srl_epi32(_mm_loadu_si128((const __m128i *)(row[k] + i)),
                                         _mm_cvtsi32_si128((int)sh[k]));
               w = _mm_or_si128(w, _mm_slli_epi32(unorm8x4_from_f16(h), (int)(8 * k)));
            }
            uint32_t px[4];
            _mm_storeu_si128((__m128i *)px, w);
            for (unsigned j = 0; j < 4; j++)
               memcpy(base + off[i + j], &px[j], 4);
         }
#endif
      for (; i < n; i++) {
         uint32_t w = (uint32_t)colour[(row[0][i] >> sh[0]) & 0xffff] |
                      (uint32_t)colour[(row[1][i] >> sh[1]) & 0xffff] << 8 |
                      (uint32_t)colour[(row[2][i] >> sh[2]) & 0xffff] << 16 |
                      (uint32_t)unorm8_from_f16[(row[3][i] >> sh[3]) & 0xffff] << 24;
         memcpy(base + off[i], &w, 4);
      }
      return true;
   }
   if (f == 10) {
      /* the sRGB encode per value (powf): the per-value codec */
      for (unsigned i = 0; i < n; i++)
         for (unsigned k = 0; k < 4; k++)
            hw_tex_tile_store_comp(10, k, base + off[i], row[k][i], false);
      return true;
   }
   /* u8norm from 32-bit floats: hw_tex_tile_store_comp's conversion,
    * the components unrolled (constant shifts, four independent
    * conversions per pixel) */
   unsigned i = 0;
#ifdef TILEFMT_SSE2
   /* Four pixels at a time, each step the scalar one's on four floats
    * (the scalar loop after it stays the reference for the tail;
    * test_tile_store_px8 compares them over every byte's value, the
    * rounding midpoints and their neighbours). The scalar conversion
    * compiled to one float per component; this was most of a
    * u8norm-heavy replay's tile-store time. */
   if (!hw_tex_tile_u8norm_scalar)
      for (; i + 4 <= n; i += 4) {
         __m128i w = _mm_setzero_si128();
         for (unsigned k = 0; k < 4; k++) {
            __m128i b = unorm8x4_from_f32(_mm_loadu_si128((const __m128i *)(row[k] + i)));
            w = _mm_or_si128(w, _mm_slli_epi32(b, (int)(8 * k)));
         }
         uint32_t px[4];
         _mm_storeu_si128((__m128i *)px, w);
         for (unsigned j = 0; j < 4; j++)
            memcpy(base + off[i + j], &px[j], 4);
      }
#endif
   for (; i < n; i++) {
      uint32_t w = unorm8_from_f32(row[0][i]) | unorm8_from_f32(row[1][i]) << 8 |
                   unorm8_from_f32(row[2][i]) << 16 | unorm8_from_f32(row[3][i]) << 24;
      memcpy(base + off[i], &w, 4);
   }
   return true;
}

bool
hw_tex_tile_store_px8_lanes(unsigned f, uint8_t *base, const uint32_t *off,
                            uint32_t *const row[4], const unsigned sh[4], uint32_t lanes,
                            bool r16)
{
   if (f != 4 && f != 10)
      return false;
   /* Quad by quad (four pixels: one vector step of the whole-row
    * conversion), each converted as hw_tex_tile_store_px8 converts it
    * (that function itself, into local words, but for u8norm from
    * 32-bit floats), so the bytes are its own; only the selected
    * pixels' words then reach the tilebuffer. */
   static const uint32_t loc[4] = { 0, 4, 8, 12 };
   for (unsigned q = 0; q < 8; q++) {
      const uint32_t m = lanes >> (4 * q) & 0xfu;
      if (!m)
         continue;
#ifdef TILEFMT_SSE2
      if (f == 4 && !r16 && !hw_tex_tile_u8norm_scalar) {
         /* u8norm from 32-bit floats (most stores): the vector step of
          * hw_tex_tile_store_px8, in line */
         __m128i w = _mm_setzero_si128();
         for (unsigned k = 0; k < 4; k++) {
            __m128i b = unorm8x4_from_f32(_mm_loadu_si128((const __m128i *)(row[k] + 4 * q)));
            w = _mm_or_si128(w, _mm_slli_epi32(b, (int)(8 * k)));
         }
         uint32_t px[4];
         _mm_storeu_si128((__m128i *)px, w);
         for (unsigned j = 0; j < 4; j++)
            if (m >> j & 1)
               memcpy(base + off[4 * q + j], &px[j], 4);
         continue;
      }
#endif
      uint32_t *const rq[4] = { row[0] + 4 * q, row[1] + 4 * q, row[2] + 4 * q,
                                row[3] + 4 * q };
      if (m == 0xfu) {
         hw_tex_tile_store_px8(f, base, off + 4 * q, rq, sh, 4, r16);
         continue;
      }
      uint8_t px[16];
      hw_tex_tile_store_px8(f, px, loc, rq, sh, 4, r16);
      for (unsigned j = 0; j < 4; j++)
         if (m >> j & 1)
            memcpy(base + off[4 * q + j], px + 4 * j, 4);
   }
   return true;
}

/* The decode table of each component of a u8norm (4) or srgba8 (10)
 * tile format: srgba8's colour decodes through the sRGB table, its alpha
 * (and every u8norm component) through the plain one. */
static void
load8_tables(unsigned f, bool r16, const uint32_t *t[4])
{
   pthread_once(&load8_once, load8_init);
   for (unsigned k = 0; k < 4; k++)
      t[k] = load8[f == 10 && k < 3][r16];
}

bool
hw_tex_tile_load_px8_lanes(unsigned f, const uint8_t *base, const uint32_t *off,
                           uint32_t *const row[4], const unsigned sh[4], uint32_t lanes,
                           bool r16)
{
   if (f != 4 && f != 10)
      return false;
   const uint32_t *t[4];
   load8_tables(f, r16, t);
   /* hw_tex_tile_load_px8's values and row writes, one selected pixel
    * at a time (its rows are written in component order, as there: two
    * components may share a register's word) */
   for (uint32_t m = lanes; m; m &= m - 1) {
      const unsigned i = (unsigned)__builtin_ctz(m);
      uint32_t w;
      memcpy(&w, base + off[i], 4);
      const uint32_t v[4] = { t[0][w & 0xff], t[1][w >> 8 & 0xff], t[2][w >> 16 & 0xff],
                              t[3][w >> 24] };
      for (unsigned k = 0; k < 4; k++) {
         if (r16) {
            const uint32_t hm = 0xffffu << sh[k];
            row[k][i] = (row[k][i] & ~hm) | v[k] << sh[k];
         } else {
            row[k][i] = v[k];
         }
      }
   }
   return true;
}

bool
hw_tex_tile_load_px8(unsigned f, const uint8_t *base, const uint32_t *off,
                     uint32_t *const row[4], const unsigned sh[4], unsigned n, bool r16)
{
   if (f != 4 && f != 10)
      return false;
   const uint32_t *t[4];
   load8_tables(f, r16, t);
   /* the values first, then the rows written one after the other in
    * component order (two components may share a register's word) */
   uint32_t v[4][32];
   for (unsigned i0 = 0; i0 < n; i0 += 32) {
      unsigned m = n - i0 < 32 ? n - i0 : 32;
      for (unsigned i = 0; i < m; i++) {
         uint32_t w;
         memcpy(&w, base + off[i0 + i], 4);
         v[0][i] = t[0][w & 0xff];
         v[1][i] = t[1][w >> 8 & 0xff];
         v[2][i] = t[2][w >> 16 & 0xff];
         v[3][i] = t[3][w >> 24];
      }
      for (unsigned k = 0; k < 4; k++) {
         uint32_t *rw = row[k] + i0;
         if (r16) {
            /* the shift in a local (the stores to rw could alias sh[]
             * for all the compiler knows) and a whole group's count a
             * constant: both keep the loop vectorised */
            const unsigned shk = sh[k];
            const uint32_t hm = 0xffffu << shk;
            if (m == 32) {
               for (unsigned i = 0; i < 32; i++)
                  rw[i] = (rw[i] & ~hm) | v[k][i] << shk;
            } else {
               for (unsigned i = 0; i < m; i++)
                  rw[i] = (rw[i] & ~hm) | v[k][i] << shk;
            }
         } else {
            memcpy(rw, v[k], m * 4);
         }
      }
   }
   return true;
}

/* SPDX-License-Identifier: MIT */
/*
 * Texel encodings.  Floating-point conversions go through double so every
 * rounding step is explicit (one rounding, to nearest even unless rtz).
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "cmdstream/agx_pack.h"
#include "hw/tex/hw_tex_compressed.h"
#include "hw/tex/hw_tex_format.h"
#include "tessera/float_bits.h"
#include "tessera/half.h"

/* ---- scalar helpers ---------------------------------------------------- */

static double
round_mode(double v, bool rtz)
{
   return rtz ? trunc(v) : nearbyint(v);
}

/*
 * Encodes |a| (finite, >= 0) as an unsigned float with a 5-bit exponent
 * (bias 15) and mant_bits of mantissa.  overflow_inf selects IEEE half
 * behaviour (round-to-nearest overflows to infinity) over clamping.
 */
static uint32_t
encode_small(double a, unsigned mant_bits, bool rtz, bool overflow_inf)
{
   uint32_t one = 1u << mant_bits;
   uint32_t max_finite = (30u << mant_bits) | (one - 1);
   if (a == 0)
      return 0;
   int ex;
   frexp(a, &ex);
   int e = ex - 1;                 /* a in [2^e, 2^(e+1)) */
   if (e < -14) {
      /* Denormal: the rounding may carry into the smallest normal, which
       * the plain integer encoding represents correctly. */
      return (uint32_t)round_mode(ldexp(a, 14 + (int)mant_bits), rtz);
   }
   double r = round_mode(ldexp(a, (int)mant_bits - e), rtz);
   if (r >= 2.0 * one) {
      r /= 2;
      e++;
   }
   int biased = e + 15;
   if (biased >= 31)
      return (overflow_inf && !rtz) ? (31u << mant_bits) : max_finite;
   return ((uint32_t)biased << mant_bits) | ((uint32_t)r - one);
}

/* 2^k as a double, for k in the normal range (-1022..1023): built from
 * its bits, so the exact scalings below need no libm call. */
static inline double
pow2d(int k)
{
   uint64_t b = (uint64_t)(k + 1023) << 52;
   double d;
   memcpy(&d, &b, sizeof(d));
   return d;
}

/* The value of v as an unsigned small float.  m * 2^k with |k| <= 24 and
 * m < 2^11 is exact in double, so multiplying by pow2d(k) gives exactly
 * ldexp(m, k), the definition (test_hw_tex_format checks every input
 * against it): this decodes fp16 lod biases and coordinates of every
 * lane, where libm's scalbn was a visible share of the time. */
static double
decode_small(uint32_t v, unsigned mant_bits)
{
   uint32_t e = v >> mant_bits, m = v & ((1u << mant_bits) - 1);
   if (e == 0)
      return (double)m * pow2d(-14 - (int)mant_bits);
   if (e == 31)
      return m ? NAN : INFINITY;
   return (double)(m | (1u << mant_bits)) * pow2d((int)e - 15 - (int)mant_bits);
}

/* decode_small's value (test_small_float_decode_exact), built from bits:
 * every half is a float exactly (denormals as m * 2^-24, a normal float),
 * and NaNs become the quiet NaN the double path gives, sign kept.  Every
 * lane's fp16 lod bias and coordinates come through here. */
float
hw_tex_half_to_float(uint16_t h)
{
   uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
   uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
   uint32_t bits;
   if (e == 0) {
      float d = (float)m * 0x1p-24f;
      memcpy(&bits, &d, sizeof(bits));
      bits |= sign;
   } else if (e == 31) {
      bits = sign | (m ? 0x7fc00000u : 0x7f800000u);
   } else {
      bits = sign | (e + 112) << 23 | m << 13;
   }
   float f;
   memcpy(&f, &bits, sizeof(f));
   return f;
}

/* IEEE half (NaN -> 0x7e00, overflow -> inf or, toward zero, 65504):
 * encode_small's value for every float, in integer arithmetic (the
 * texture unit's half destinations convert every lane; test_half_exact). */
uint16_t
hw_tex_float_to_half(float f, bool rtz)
{
   return tessera_f64_to_f16((double)f, rtz);
}

float
hw_tex_ufloat_to_float(uint32_t v, unsigned mant_bits)
{
   return (float)decode_small(v & ((32u << mant_bits) - 1), mant_bits);
}

uint32_t
hw_tex_float_to_ufloat(float f, unsigned mant_bits, bool rtz)
{
   if (isnan(f))
      return (31u << mant_bits) | (1u << (mant_bits - 1));
   if (f <= 0)
      return 0;
   if (isinf(f))
      return 31u << mant_bits;
   return encode_small((double)f, mant_bits, rtz, false);
}

float
hw_tex_unorm_to_float(uint32_t v, unsigned bits)
{
   uint32_t max = bits >= 32 ? 0xffffffffu : (1u << bits) - 1;
   return (float)((double)(v & max) / (double)max);
}

float
hw_tex_snorm_to_float(uint32_t v, unsigned bits)
{
   int32_t s = (int32_t)(v << (32 - bits)) >> (32 - bits);
   double max = (double)((1u << (bits - 1)) - 1);
   double f = s / max;
   return (float)(f < -1.0 ? -1.0 : f);
}

uint32_t
hw_tex_float_to_unorm(float f, unsigned bits, bool rtz)
{
   uint32_t max = (1u << bits) - 1;
   if (!(f > 0))                  /* also NaN */
      return 0;
   if (f >= 1)
      return max;
   return (uint32_t)round_mode((double)f * max, rtz);
}

uint32_t
hw_tex_float_to_snorm(float f, unsigned bits, bool rtz)
{
   int32_t max = (int32_t)((1u << (bits - 1)) - 1);
   double d = isnan(f) ? 0.0 : (double)f;
   if (d > 1)
      d = 1;
   if (d < -1)
      d = -1;
   int32_t r = (int32_t)round_mode(d * max, rtz);
   return (uint32_t)r & ((1u << bits) - 1);
}

float
hw_tex_srgb_to_linear(float c)
{
   if (c <= 0.04045f)
      return c / 12.92f;
   return powf((c + 0.055f) / 1.055f, 2.4f);
}

float
hw_tex_linear_to_srgb(float c)
{
   if (!(c > 0))
      return 0;
   if (c >= 1)
      return 1;
   if (c < 0.0031308f)
      return c * 12.92f;
   return 1.055f * powf(c, 1.0f / 2.4f) - 0.055f;
}

void
hw_tex_rgb9e5_to_float(uint32_t v, float rgb[3])
{
   int e = (int)(v >> 27);
   for (unsigned i = 0; i < 3; i++)
      rgb[i] = (float)ldexp((double)((v >> (9 * i)) & 0x1ff), e - 15 - 9);
}

uint32_t
hw_tex_float_to_rgb9e5(const float rgb[3], bool rtz)
{
   /* Shared exponent encoding: the largest component picks the exponent,
    * every component is then quantized to 9 bits with it. */
   const double max_val = ldexp(511.0, 16 - 9);   /* 65408 */
   double c[3], m = 0;
   for (unsigned i = 0; i < 3; i++) {
      double d = isnan(rgb[i]) ? 0.0 : (double)rgb[i];
      c[i] = d < 0 ? 0 : (d > max_val ? max_val : d);
      if (c[i] > m)
         m = c[i];
   }
   int exp = -16;
   if (m > 0) {
      int ex;
      frexp(m, &ex);
      exp = ex - 1 < -16 ? -16 : ex - 1;
   }
   int shared = exp + 1 + 15;                      /* biased, 0..31 */
   double top = round_mode(ldexp(m, 24 - shared), rtz);
   if (top >= 512)
      shared++;
   uint32_t out = (uint32_t)shared << 27;
   for (unsigned i = 0; i < 3; i++) {
      double q = round_mode(ldexp(c[i], 24 - shared), rtz);
      if (q > 511)
         q = 511;
      out |= (uint32_t)q << (9 * i);
   }
   return out;
}

/* ---- format table ------------------------------------------------------ */

struct chan_info {
   uint8_t channels, bytes, comps, packing;
   uint8_t bits[4], shift[4];
   uint8_t types;        /* bit per enum agx_texture_type allowed */
};

#define T_UN (1u << AGX_TEXTURE_TYPE_UNORM)
#define T_SN (1u << AGX_TEXTURE_TYPE_SNORM)
#define T_UI (1u << AGX_TEXTURE_TYPE_UINT)
#define T_SI (1u << AGX_TEXTURE_TYPE_SINT)
#define T_FL (1u << AGX_TEXTURE_TYPE_FLOAT)

static const struct chan_info chan_table[] = {
   { AGX_CHANNELS_R8, 1, 1, HW_TEX_PACK_ARRAY, { 8 }, { 0 }, T_UN | T_SN | T_UI | T_SI },
   { AGX_CHANNELS_R8G8, 2, 2, HW_TEX_PACK_ARRAY, { 8, 8 }, { 0 }, T_UN | T_SN | T_UI | T_SI },
   { AGX_CHANNELS_R8G8B8A8, 4, 4, HW_TEX_PACK_ARRAY, { 8, 8, 8, 8 }, { 0 }, T_UN | T_SN | T_UI | T_SI },
   { AGX_CHANNELS_R16, 2, 1, HW_TEX_PACK_ARRAY, { 16 }, { 0 }, T_UN | T_SN | T_UI | T_SI | T_FL },
   { AGX_CHANNELS_R16G16, 4, 2, HW_TEX_PACK_ARRAY, { 16, 16 }, { 0 }, T_UN | T_SN | T_UI | T_SI | T_FL },
   { AGX_CHANNELS_R16G16B16A16, 8, 4, HW_TEX_PACK_ARRAY, { 16, 16, 16, 16 }, { 0 }, T_UN | T_SN | T_UI | T_SI | T_FL },
   { AGX_CHANNELS_R32, 4, 1, HW_TEX_PACK_ARRAY, { 32 }, { 0 }, T_UI | T_SI | T_FL },
   { AGX_CHANNELS_R32G32, 8, 2, HW_TEX_PACK_ARRAY, { 32, 32 }, { 0 }, T_UI | T_SI | T_FL },
   { AGX_CHANNELS_R32G32B32A32, 16, 4, HW_TEX_PACK_ARRAY, { 32, 32, 32, 32 }, { 0 }, T_UI | T_SI | T_FL },
   { AGX_CHANNELS_R5G6B5, 2, 3, HW_TEX_PACK_BITS, { 5, 6, 5 }, { 0, 5, 11 }, T_UN },
   { AGX_CHANNELS_R4G4B4A4, 2, 4, HW_TEX_PACK_BITS, { 4, 4, 4, 4 }, { 0, 4, 8, 12 }, T_UN },
   { AGX_CHANNELS_R5G5B5A1, 2, 4, HW_TEX_PACK_BITS, { 5, 5, 5, 1 }, { 0, 5, 10, 15 }, T_UN },
   { AGX_CHANNELS_A1R5G5B5, 2, 4, HW_TEX_PACK_BITS, { 5, 5, 5, 1 }, { 1, 6, 11, 0 }, T_UN },
   { AGX_CHANNELS_R10G10B10A2, 4, 4, HW_TEX_PACK_BITS, { 10, 10, 10, 2 }, { 0, 10, 20, 30 }, T_UN | T_UI | T_SI },
   { AGX_CHANNELS_R11G11B10, 4, 3, HW_TEX_PACK_R11G11B10F, { 11, 11, 10 }, { 0, 11, 22 }, T_FL },
   { AGX_CHANNELS_R9G9B9E5, 4, 3, HW_TEX_PACK_RGB9E5, { 9, 9, 9 }, { 0, 9, 18 }, T_FL },
};

/* Block-compressed Channels values the model decodes, with the Type and
 * sRGB combinations Mesa's asahi driver programs (ail formats.c: the colour
 * formats are Unorm with or without sRGB, the one- and two-channel ones
 * Unorm or Snorm). */
/* `bits` is the width of a custom border colour's components for the
 * format (Mesa's agx_border.c: 8 for the colour formats, 11 for EAC, 14
 * for RGTC; sRGB colour components are 12 as for uncompressed sRGB). */
static const struct block_info {
   uint8_t channels, kind, comps, types, bits;
   bool srgb_ok, alpha;
} block_table[] = {
   { AGX_CHANNELS_ETC2_RGB8, HW_TEX_BLOCK_ETC2_RGB8, 3, T_UN, 8, true, false },
   { AGX_CHANNELS_ETC2_RGB8A1, HW_TEX_BLOCK_ETC2_RGB8A1, 4, T_UN, 8, true, true },
   { AGX_CHANNELS_ETC2_RGBA8, HW_TEX_BLOCK_ETC2_RGBA8, 4, T_UN, 8, true, true },
   { AGX_CHANNELS_EAC_R11, HW_TEX_BLOCK_EAC_R11, 1, T_UN | T_SN, 11, false, false },
   { AGX_CHANNELS_EAC_RG11, HW_TEX_BLOCK_EAC_RG11, 2, T_UN | T_SN, 11, false, false },
   { AGX_CHANNELS_BC1, HW_TEX_BLOCK_BC1, 4, T_UN, 8, true, true },
   { AGX_CHANNELS_BC2, HW_TEX_BLOCK_BC2, 4, T_UN, 8, true, true },
   { AGX_CHANNELS_BC3, HW_TEX_BLOCK_BC3, 4, T_UN, 8, true, true },
   { AGX_CHANNELS_BC4, HW_TEX_BLOCK_BC4, 1, T_UN | T_SN, 14, false, false },
   { AGX_CHANNELS_BC5, HW_TEX_BLOCK_BC5, 2, T_UN | T_SN, 14, false, false },
   /* ASTC: Unorm is the LDR profile (sRGB or not); Float would be HDR,
    * which the model does not decode. */
   { AGX_CHANNELS_ASTC_4X4, HW_TEX_BLOCK_ASTC, 4, T_UN, 8, true, true },
   { AGX_CHANNELS_ASTC_5X4, HW_TEX_BLOCK_ASTC, 4, T_UN, 8, true, true },
   { AGX_CHANNELS_ASTC_5X5, HW_TEX_BLOCK_ASTC, 4, T_UN, 8, true, true },
   { AGX_CHANNELS_ASTC_6X5, HW_TEX_BLOCK_ASTC, 4, T_UN, 8, true, true },
   { AGX_CHANNELS_ASTC_6X6, HW_TEX_BLOCK_ASTC, 4, T_UN, 8, true, true },
   { AGX_CHANNELS_ASTC_8X5, HW_TEX_BLOCK_ASTC, 4, T_UN, 8, true, true },
   { AGX_CHANNELS_ASTC_8X6, HW_TEX_BLOCK_ASTC, 4, T_UN, 8, true, true },
   { AGX_CHANNELS_ASTC_8X8, HW_TEX_BLOCK_ASTC, 4, T_UN, 8, true, true },
   { AGX_CHANNELS_ASTC_10X5, HW_TEX_BLOCK_ASTC, 4, T_UN, 8, true, true },
   { AGX_CHANNELS_ASTC_10X6, HW_TEX_BLOCK_ASTC, 4, T_UN, 8, true, true },
   { AGX_CHANNELS_ASTC_10X8, HW_TEX_BLOCK_ASTC, 4, T_UN, 8, true, true },
   { AGX_CHANNELS_ASTC_10X10, HW_TEX_BLOCK_ASTC, 4, T_UN, 8, true, true },
   { AGX_CHANNELS_ASTC_12X10, HW_TEX_BLOCK_ASTC, 4, T_UN, 8, true, true },
   { AGX_CHANNELS_ASTC_12X12, HW_TEX_BLOCK_ASTC, 4, T_UN, 8, true, true },
};

/* ASTC block footprints, in Channels order from ASTC 4x4 (0x60). */
static const uint8_t astc_dims[14][2] = {
   { 4, 4 }, { 5, 4 }, { 5, 5 }, { 6, 5 }, { 6, 6 }, { 8, 5 }, { 8, 6 },
   { 8, 8 }, { 10, 5 }, { 10, 6 }, { 10, 8 }, { 10, 10 }, { 12, 10 }, { 12, 12 },
};

static bool
block_format_get(const struct block_info *bi, unsigned type, bool srgb,
                 struct hw_tex_format *out, char *err, size_t err_size)
{
   const char *cn = agx_channels_as_str((enum agx_channels)bi->channels);
   const char *tn = agx_texture_type_as_str((enum agx_texture_type)type);
   if (type > 7 || !(bi->types & (1u << type))) {
      if (err)
         snprintf(err, err_size, "texture type %s (%u) invalid for channels %s",
                  tn ? tn : "?", type, cn ? cn : "?");
      return false;
   }
   if (srgb && !bi->srgb_ok) {
      if (err)
         snprintf(err, err_size, "sRGB invalid for channels %s", cn ? cn : "?");
      return false;
   }
   struct hw_tex_format f;
   memset(&f, 0, sizeof(f));
   f.channels = bi->channels;
   f.type = (uint8_t)type;
   f.bytes = (uint8_t)hw_tex_block_bytes((enum hw_tex_block_kind)bi->kind);
   f.comps = bi->comps;
   f.packing = HW_TEX_PACK_BLOCK;
   f.cls = HW_TEX_CLASS_FLOAT;
   f.srgb = srgb;
   f.has_alpha = bi->alpha;
   memset(f.bits, bi->bits, sizeof(f.bits));
   f.block_w = f.block_h = 4;
   if (bi->kind == HW_TEX_BLOCK_ASTC) {
      f.block_w = astc_dims[bi->channels - AGX_CHANNELS_ASTC_4X4][0];
      f.block_h = astc_dims[bi->channels - AGX_CHANNELS_ASTC_4X4][1];
   }
   f.block_kind = bi->kind;
   *out = f;
   return true;
}

bool
hw_tex_format_get(unsigned channels, unsigned type, bool srgb,
                  struct hw_tex_format *out, char *err, size_t err_size)
{
   for (size_t i = 0; i < sizeof(block_table) / sizeof(block_table[0]); i++)
      if (block_table[i].channels == channels)
         return block_format_get(&block_table[i], type, srgb, out, err, err_size);
   const struct chan_info *ci = NULL;
   for (size_t i = 0; i < sizeof(chan_table) / sizeof(chan_table[0]); i++)
      if (chan_table[i].channels == channels)
         ci = &chan_table[i];
   const char *cn = agx_channels_as_str((enum agx_channels)channels);
   const char *tn = agx_texture_type_as_str((enum agx_texture_type)type);
   if (!ci) {
      if (err)
         snprintf(err, err_size, "texture channels %s (0x%x) not supported",
                  cn ? cn : "?", channels);
      return false;
   }
   if (type > 7 || !(ci->types & (1u << type))) {
      if (err)
         snprintf(err, err_size, "texture type %s (%u) invalid for channels %s",
                  tn ? tn : "?", type, cn ? cn : "?");
      return false;
   }
   if (srgb && !(type == AGX_TEXTURE_TYPE_UNORM && ci->packing == HW_TEX_PACK_ARRAY &&
                 ci->bits[0] == 8)) {
      if (err)
         snprintf(err, err_size, "sRGB needs 8-bit unorm channels, not %s %s",
                  cn ? cn : "?", tn ? tn : "?");
      return false;
   }
   struct hw_tex_format f;
   memset(&f, 0, sizeof(f));
   f.channels = (uint8_t)channels;
   f.type = (uint8_t)type;
   f.bytes = ci->bytes;
   f.comps = ci->comps;
   f.packing = ci->packing;
   f.cls = type == AGX_TEXTURE_TYPE_UINT ? HW_TEX_CLASS_UINT
         : type == AGX_TEXTURE_TYPE_SINT ? HW_TEX_CLASS_SINT
         : HW_TEX_CLASS_FLOAT;
   f.srgb = srgb;
   memcpy(f.bits, ci->bits, 4);
   memcpy(f.shift, ci->shift, 4);
   f.has_alpha = ci->comps == 4;
   f.block_w = f.block_h = 1;
   *out = f;
   return true;
}

uint32_t
hw_tex_one(const struct hw_tex_format *fmt)
{
   return fmt->cls == HW_TEX_CLASS_FLOAT ? 0x3f800000u : 1u;
}

/* 8-bit unorm and sRGB texels are the common case of every sampled and
 * blitted texel: their decodes are tables filled by the functions
 * themselves, so the values are the same bits. */
static float unorm8_table[256], srgb8_table[256];
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static void
table_init(void)
{
   for (unsigned i = 0; i < 256; i++) {
      unorm8_table[i] = hw_tex_unorm_to_float(i, 8);
      srgb8_table[i] = hw_tex_srgb_to_linear(unorm8_table[i]);
   }
}

void
hw_tex_unorm8_tables(const float **unorm, const float **srgb)
{
   pthread_once(&table_once, table_init);
   *unorm = unorm8_table;
   *srgb = srgb8_table;
}

static uint32_t
decode_comp(const struct hw_tex_format *fmt, unsigned c, uint32_t raw)
{
   unsigned bits = fmt->bits[c];
   switch (fmt->type) {
   case AGX_TEXTURE_TYPE_UNORM: {
      if (bits == 8) {
         pthread_once(&table_once, table_init);
         return tessera_fui(fmt->srgb && c < 3 ? srgb8_table[raw & 0xff] : unorm8_table[raw & 0xff]);
      }
      float f = hw_tex_unorm_to_float(raw, bits);
      if (fmt->srgb && c < 3)
         f = hw_tex_srgb_to_linear(f);
      return tessera_fui(f);
   }
   case AGX_TEXTURE_TYPE_SNORM:
      return tessera_fui(hw_tex_snorm_to_float(raw, bits));
   case AGX_TEXTURE_TYPE_UINT:
      return raw;
   case AGX_TEXTURE_TYPE_SINT:
      return bits >= 32 ? raw : (uint32_t)((int32_t)(raw << (32 - bits)) >> (32 - bits));
   default: /* float */
      return bits == 16 ? tessera_fui(hw_tex_half_to_float((uint16_t)raw)) : raw;
   }
}

static uint32_t
encode_comp(const struct hw_tex_format *fmt, unsigned c, uint32_t v, bool rtz)
{
   unsigned bits = fmt->bits[c];
   uint32_t mask = bits >= 32 ? 0xffffffffu : (1u << bits) - 1;
   switch (fmt->type) {
   case AGX_TEXTURE_TYPE_UNORM: {
      float f = tessera_uif(v);
      if (fmt->srgb && c < 3)
         f = hw_tex_linear_to_srgb(f);
      return hw_tex_float_to_unorm(f, bits, rtz);
   }
   case AGX_TEXTURE_TYPE_SNORM:
      return hw_tex_float_to_snorm(tessera_uif(v), bits, rtz);
   case AGX_TEXTURE_TYPE_UINT:
   case AGX_TEXTURE_TYPE_SINT:
      return v & mask;
   default:
      return bits == 16 ? hw_tex_float_to_half(tessera_uif(v), rtz) : v;
   }
}

static uint32_t
load_le(const uint8_t *p, unsigned n)
{
   uint32_t v = 0;
   for (unsigned i = 0; i < n; i++)
      v |= (uint32_t)p[i] << (8 * i);
   return v;
}

static void
store_le(uint8_t *p, unsigned n, uint32_t v)
{
   for (unsigned i = 0; i < n; i++)
      p[i] = (uint8_t)(v >> (8 * i));
}

void
hw_tex_unpack_block(const struct hw_tex_format *fmt, const uint8_t *src, unsigned x,
                    unsigned y, union hw_texel *out)
{
   enum hw_tex_block_kind kind = (enum hw_tex_block_kind)fmt->block_kind;
   bool snorm = fmt->type == AGX_TEXTURE_TYPE_SNORM;
   if (kind == HW_TEX_BLOCK_ASTC)
      hw_tex_astc_texel(src, fmt->block_w, fmt->block_h, x, y, fmt->srgb, out->f);
   else if (kind >= HW_TEX_BLOCK_BC1)
      hw_tex_s3tc_texel(kind, snorm, src, x, y, out->f);
   else
      hw_tex_etc_texel(kind, snorm, src, x, y, out->f);
   if (fmt->srgb)
      for (unsigned c = 0; c < 3; c++)
         out->f[c] = hw_tex_srgb_to_linear(out->f[c]);
}

void
hw_tex_unpack(const struct hw_tex_format *fmt, const uint8_t *src,
              union hw_texel *out)
{
   out->u[0] = out->u[1] = out->u[2] = 0;
   out->u[3] = hw_tex_one(fmt);
   if (fmt->packing == HW_TEX_PACK_ARRAY && fmt->bits[0] == 8 &&
       fmt->type == AGX_TEXTURE_TYPE_UNORM) {
      /* 8-bit unorm (RGBA8 and friends, most sampled textures):
       * decode_comp's table lookups with the tables' once-check done
       * once per texel instead of once per component. */
      pthread_once(&table_once, table_init);
      for (unsigned c = 0; c < fmt->comps; c++)
         out->f[c] = fmt->srgb && c < 3 ? srgb8_table[src[c]] : unorm8_table[src[c]];
      return;
   }
   switch (fmt->packing) {
   case HW_TEX_PACK_ARRAY: {
      unsigned n = fmt->bits[0] / 8;
      for (unsigned c = 0; c < fmt->comps; c++)
         out->u[c] = decode_comp(fmt, c, load_le(src + c * n, n));
      break;
   }
   case HW_TEX_PACK_BITS: {
      uint32_t w = load_le(src, fmt->bytes);
      for (unsigned c = 0; c < fmt->comps; c++)
         out->u[c] = decode_comp(fmt, c, (w >> fmt->shift[c]) & ((1u << fmt->bits[c]) - 1));
      break;
   }
   case HW_TEX_PACK_R11G11B10F: {
      uint32_t w = load_le(src, 4);
      out->f[0] = hw_tex_ufloat_to_float(w & 0x7ff, 6);
      out->f[1] = hw_tex_ufloat_to_float((w >> 11) & 0x7ff, 6);
      out->f[2] = hw_tex_ufloat_to_float(w >> 22, 5);
      break;
   }
   default: /* RGB9E5 */
      hw_tex_rgb9e5_to_float(load_le(src, 4), out->f);
      break;
   }
}

void
hw_tex_pack(const struct hw_tex_format *fmt, const union hw_texel *in,
            bool rtz, uint8_t *dst)
{
   switch (fmt->packing) {
   case HW_TEX_PACK_ARRAY: {
      unsigned n = fmt->bits[0] / 8;
      for (unsigned c = 0; c < fmt->comps; c++)
         store_le(dst + c * n, n, encode_comp(fmt, c, in->u[c], rtz));
      break;
   }
   case HW_TEX_PACK_BITS: {
      uint32_t w = 0;
      for (unsigned c = 0; c < fmt->comps; c++)
         w |= encode_comp(fmt, c, in->u[c], rtz) << fmt->shift[c];
      store_le(dst, fmt->bytes, w);
      break;
   }
   case HW_TEX_PACK_R11G11B10F: {
      uint32_t w = hw_tex_float_to_ufloat(in->f[0], 6, rtz) |
                   hw_tex_float_to_ufloat(in->f[1], 6, rtz) << 11 |
                   hw_tex_float_to_ufloat(in->f[2], 5, rtz) << 22;
      store_le(dst, 4, w);
      break;
   }
   default:
      store_le(dst, 4, hw_tex_float_to_rgb9e5(in->f, rtz));
      break;
   }
}

/* ---- tilebuffer memory formats ------------------------------------------ */

unsigned
hw_tex_memfmt_bytes(unsigned fmt, unsigned comps)
{
   switch (fmt) {
   case HW_TEX_MEM_I8: case HW_TEX_MEM_U8NORM: case HW_TEX_MEM_S8NORM:
      return comps;
   case HW_TEX_MEM_I16: case HW_TEX_MEM_F16: case HW_TEX_MEM_U16NORM:
   case HW_TEX_MEM_S16NORM:
      return 2 * comps;
   case HW_TEX_MEM_I32:
      return 4 * comps;
   case HW_TEX_MEM_RGB10A2: case HW_TEX_MEM_SRGBA8: case HW_TEX_MEM_RG11B10F:
   case HW_TEX_MEM_RGB9E5: case HW_TEX_MEM_RG11B10F_RTZ: case HW_TEX_MEM_RGB9E5_RTZ:
      return fmt == HW_TEX_MEM_SRGBA8 ? comps : 4;
   default:
      return 0;
   }
}

/* The memory formats that are plain images reuse the texture path. */
static bool
memfmt_as_format(unsigned fmt, unsigned comps, struct hw_tex_format *f)
{
   static const uint8_t chans[3][4] = {
      { AGX_CHANNELS_R8, AGX_CHANNELS_R8G8, AGX_CHANNELS_R8G8B8A8, AGX_CHANNELS_R8G8B8A8 },
      { AGX_CHANNELS_R16, AGX_CHANNELS_R16G16, AGX_CHANNELS_R16G16B16A16, AGX_CHANNELS_R16G16B16A16 },
      { AGX_CHANNELS_R32, AGX_CHANNELS_R32G32, AGX_CHANNELS_R32G32B32A32, AGX_CHANNELS_R32G32B32A32 },
   };
   if (comps < 1 || comps > 4)
      return false;
   unsigned size, type;
   bool srgb = false;
   switch (fmt) {
   case HW_TEX_MEM_I8: size = 0; type = AGX_TEXTURE_TYPE_UINT; break;
   case HW_TEX_MEM_I16: size = 1; type = AGX_TEXTURE_TYPE_UINT; break;
   case HW_TEX_MEM_I32: size = 2; type = AGX_TEXTURE_TYPE_UINT; break;
   case HW_TEX_MEM_F16: size = 1; type = AGX_TEXTURE_TYPE_FLOAT; break;
   case HW_TEX_MEM_U8NORM: size = 0; type = AGX_TEXTURE_TYPE_UNORM; break;
   case HW_TEX_MEM_S8NORM: size = 0; type = AGX_TEXTURE_TYPE_SNORM; break;
   case HW_TEX_MEM_U16NORM: size = 1; type = AGX_TEXTURE_TYPE_UNORM; break;
   case HW_TEX_MEM_S16NORM: size = 1; type = AGX_TEXTURE_TYPE_SNORM; break;
   case HW_TEX_MEM_SRGBA8: size = 0; type = AGX_TEXTURE_TYPE_UNORM; srgb = true; break;
   case HW_TEX_MEM_RGB10A2:
      return hw_tex_format_get(AGX_CHANNELS_R10G10B10A2, AGX_TEXTURE_TYPE_UNORM, false, f, NULL, 0);
   case HW_TEX_MEM_RG11B10F: case HW_TEX_MEM_RG11B10F_RTZ:
      return hw_tex_format_get(AGX_CHANNELS_R11G11B10, AGX_TEXTURE_TYPE_FLOAT, false, f, NULL, 0);
   case HW_TEX_MEM_RGB9E5: case HW_TEX_MEM_RGB9E5_RTZ:
      return hw_tex_format_get(AGX_CHANNELS_R9G9B9E5, AGX_TEXTURE_TYPE_FLOAT, false, f, NULL, 0);
   default:
      return false;
   }
   if (!hw_tex_format_get(chans[size][comps - 1], type, srgb, f, NULL, 0))
      return false;
   /* three components are three, not an RGBA8 with a fourth */
   f->comps = (uint8_t)comps;
   f->bytes = (uint8_t)(comps * (f->bits[0] / 8));
   f->has_alpha = comps == 4;
   return true;
}

bool
hw_tex_memfmt_format(unsigned fmt, unsigned comps, struct hw_tex_format *f)
{
   return memfmt_as_format(fmt, comps, f);
}

void
hw_tex_memfmt_unpack_with(const struct hw_tex_format *f, unsigned comps,
                          const uint8_t *src, union hw_texel *out)
{
   hw_tex_unpack(f, src, out);
   if (f->cls != HW_TEX_CLASS_FLOAT && comps < 4)
      out->u[3] = 1;
}

bool
hw_tex_memfmt_unpack(unsigned fmt, unsigned comps, const uint8_t *src,
                     union hw_texel *out)
{
   struct hw_tex_format f;
   if (!memfmt_as_format(fmt, comps, &f))
      return false;
   hw_tex_memfmt_unpack_with(&f, comps, src, out);
   return true;
}

bool
hw_tex_memfmt_pack(unsigned fmt, unsigned comps, const union hw_texel *in,
                   uint8_t *dst)
{
   struct hw_tex_format f;
   if (!memfmt_as_format(fmt, comps, &f))
      return false;
   bool rtz = fmt == HW_TEX_MEM_RG11B10F_RTZ || fmt == HW_TEX_MEM_RGB9E5_RTZ;
   hw_tex_pack(&f, in, rtz, dst);
   return true;
}

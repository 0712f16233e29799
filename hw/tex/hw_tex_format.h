/* SPDX-License-Identifier: MIT */
/*
 * hwtex formats: texel encodings of AGX images and of tilebuffer
 * ("memory format") data, to and from 4-component texels.
 *
 * CONTRACT
 *
 * A format is the descriptor's (Channels, Type) pair plus its sRGB bit.
 * hw_tex_format_get() accepts the uncompressed combinations the hardware
 * samples (R8 .. R32G32B32A32, the 16-bit packed 565/4444/5551/1555,
 * RGB10A2, R11G11B10F and RGB9E5) and the block-compressed ones as Mesa's
 * asahi driver programs them (ail formats.c): ETC2 RGB8 / RGB8A1 / RGBA8
 * (unorm, sRGB), EAC R11 / RG11 (unorm, snorm), BC1 / BC2 / BC3 (unorm,
 * sRGB), BC4 / BC5 (unorm, snorm), ASTC 4x4 .. 12x12 (unorm = LDR
 * profile, sRGB); it rejects the rest with a message naming the Channels
 * or Type field (ASTC HDR, BC6H, BC7, PVRTC and the 4:2:2 formats are not
 * modelled).  Block-compressed formats (packing
 * HW_TEX_PACK_BLOCK) are read a block at a time: `bytes` is the block's
 * size, block_w x block_h its texels, and hw_tex_unpack_block() decodes
 * one texel (hw_tex_compressed.h); they cannot be written (no PBE).  Depth 16 is R16 unorm,
 * depth 32F is R32 float, stencil 8 is R8 uint: those need nothing
 * special.
 *
 * A texel is four 32-bit words.  Unorm/snorm/float formats ("float
 * class") hold IEEE floats, uint/sint formats hold integers.  Components
 * a format lacks read as 0, except alpha, which reads as 1 (1.0f or 1).
 *
 * Bit layout of a texel in memory: components in R, G, B, A order from the
 * least significant bit up, little endian (R5G6B5: R = bits 0-4, G = 5-10,
 * B = 11-15; A1R5G5B5: A = bit 0, then R, G, B; R11G11B10: R = bits 0-10;
 * R9G9B9E5: R, G, B mantissas from bit 0, exponent in bits 27-31).
 *
 * Conversions (encode = "pack", decode = "unpack"):
 *  - unorm n: v / (2^n - 1); encode clamps to [0, 1] (NaN -> 0) and rounds
 *    to nearest even, or toward zero with rtz.
 *  - snorm n: max(v / (2^(n-1) - 1), -1); encode clamps to [-1, 1].
 *  - uint/sint: encode keeps the low n bits (no saturation: the hardware
 *    leaves integer clamping to the shader).
 *  - float16: IEEE half with denormals, RNE (or RTZ); NaN stays NaN.
 *  - float11/float10 (no sign): negatives and -inf -> 0, NaN stays NaN,
 *    finite values beyond the largest (65024 / 64512) clamp to it, +inf
 *    stays inf; denormals kept.
 *  - RGB9E5: shared exponent, components clamped to [0, 65408] (NaN -> 0).
 *  - sRGB (unorm8 R, G, B only): the standard piecewise curve, evaluated in
 *    single precision; alpha stays linear.
 *
 * Nothing allocates; every function is deterministic.
 */
#ifndef HW_TEX_FORMAT_H
#define HW_TEX_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

union hw_texel {
   float f[4];
   uint32_t u[4];
   int32_t i[4];
};

enum hw_tex_class {
   HW_TEX_CLASS_FLOAT,   /* unorm, snorm, float: texel holds floats */
   HW_TEX_CLASS_UINT,
   HW_TEX_CLASS_SINT,
};

enum hw_tex_packing {
   HW_TEX_PACK_ARRAY,    /* comps x bits[0] (8, 16 or 32), byte aligned */
   HW_TEX_PACK_BITS,     /* bitfields at shift[] of bits[] */
   HW_TEX_PACK_R11G11B10F,
   HW_TEX_PACK_RGB9E5,
   HW_TEX_PACK_BLOCK,    /* block-compressed: hw_tex_unpack_block() */
};

struct hw_tex_format {
   uint8_t channels;     /* enum agx_channels */
   uint8_t type;         /* enum agx_texture_type */
   uint8_t bytes;        /* per texel (one sample), or per block */
   uint8_t comps;        /* stored components, 1..4 */
   uint8_t packing;      /* enum hw_tex_packing */
   uint8_t cls;          /* enum hw_tex_class */
   bool srgb;
   uint8_t bits[4];      /* per component, in R, G, B, A order */
   uint8_t shift[4];     /* HW_TEX_PACK_BITS: bit position of R, G, B, A */
   bool has_alpha;       /* the format stores alpha (else alpha reads 1) */
   uint8_t block_w, block_h; /* texels per element: 1x1, or the block footprint */
   uint8_t block_kind;   /* HW_TEX_PACK_BLOCK: enum hw_tex_block_kind */
};

/* false + message in err for unsupported combinations. */
bool hw_tex_format_get(unsigned channels, unsigned type, bool srgb,
                       struct hw_tex_format *out, char *err, size_t err_size);

/* Decodes one texel at src (fmt->bytes bytes). */
void hw_tex_unpack(const struct hw_tex_format *fmt, const uint8_t *src,
                   union hw_texel *out);
/* Decodes texel (x, y), 0 <= x < block_w, 0 <= y < block_h, of the block
 * at src (fmt->bytes bytes) of a HW_TEX_PACK_BLOCK format; sRGB applies to
 * R, G, B as for uncompressed formats. */
void hw_tex_unpack_block(const struct hw_tex_format *fmt, const uint8_t *src,
                         unsigned x, unsigned y, union hw_texel *out);
/* Encodes one texel into dst (fmt->bytes bytes); not for block formats. */
void hw_tex_pack(const struct hw_tex_format *fmt, const union hw_texel *in,
                 bool rtz, uint8_t *dst);

/* The tables hw_tex_unpack decodes 8-bit unorm components with:
 * unorm[v] = hw_tex_unorm_to_float(v, 8), srgb[v] its sRGB-to-linear
 * value, for v in 0..255 (callers decoding many texels look them up
 * once; the values are those of the scalar functions, bit for bit). */
void hw_tex_unorm8_tables(const float **unorm, const float **srgb);

/* 1.0 / 1 in the format's class (for swizzle ONE, alpha, borders). */
uint32_t hw_tex_one(const struct hw_tex_format *fmt);

/* ---- scalar conversions (exported for tests and other units) ---------- */

float hw_tex_srgb_to_linear(float c);
float hw_tex_linear_to_srgb(float c);
float hw_tex_unorm_to_float(uint32_t v, unsigned bits);
float hw_tex_snorm_to_float(uint32_t v, unsigned bits);   /* v: low bits */
uint32_t hw_tex_float_to_unorm(float f, unsigned bits, bool rtz);
uint32_t hw_tex_float_to_snorm(float f, unsigned bits, bool rtz); /* low bits */
/* Unsigned small floats: 5-bit exponent, mant_bits of mantissa (6 or 5). */
float hw_tex_ufloat_to_float(uint32_t v, unsigned mant_bits);
uint32_t hw_tex_float_to_ufloat(float f, unsigned mant_bits, bool rtz);
void hw_tex_rgb9e5_to_float(uint32_t v, float rgb[3]);
uint32_t hw_tex_float_to_rgb9e5(const float rgb[3], bool rtz);
float hw_tex_half_to_float(uint16_t h);
uint16_t hw_tex_float_to_half(float f, bool rtz);

/* ---- tilebuffer memory formats (image_write_block, ld/st_tile) -------- */

/* Values are the ISA's memory_format encoding. */
enum hw_tex_memfmt {
   HW_TEX_MEM_I8 = 0,
   HW_TEX_MEM_I16 = 1,
   HW_TEX_MEM_I32 = 2,
   HW_TEX_MEM_F16 = 3,
   HW_TEX_MEM_U8NORM = 4,
   HW_TEX_MEM_S8NORM = 5,
   HW_TEX_MEM_U16NORM = 6,
   HW_TEX_MEM_S16NORM = 7,
   HW_TEX_MEM_RGB10A2 = 8,
   HW_TEX_MEM_SRGBA8 = 10,
   HW_TEX_MEM_RG11B10F = 12,
   HW_TEX_MEM_RGB9E5 = 13,
   HW_TEX_MEM_RG11B10F_RTZ = 14,
   HW_TEX_MEM_RGB9E5_RTZ = 15,
};

/*
 * Bytes one pixel of `comps` components occupies in memory format fmt
 * (packed formats are 4 bytes whatever comps is); 0 for an unknown fmt.
 */
unsigned hw_tex_memfmt_bytes(unsigned fmt, unsigned comps);
/* The texture format a memory format reads as (false: unknown), and the
 * unpack with it: hw_tex_memfmt_unpack() in two steps, so a caller
 * converting many texels looks the format up once. */
bool hw_tex_memfmt_format(unsigned fmt, unsigned comps, struct hw_tex_format *f);
void hw_tex_memfmt_unpack_with(const struct hw_tex_format *f, unsigned comps,
                               const uint8_t *src, union hw_texel *out);
/*
 * i8/i16/i32 carry raw integers (i32 also carries f32 bits: the float
 * class of a 32-bit image), zero-extended; the others decode to floats.
 * Components beyond comps read as 0 (alpha 1).  False for unknown fmt.
 */
bool hw_tex_memfmt_unpack(unsigned fmt, unsigned comps, const uint8_t *src,
                          union hw_texel *out);
bool hw_tex_memfmt_pack(unsigned fmt, unsigned comps, const union hw_texel *in,
                        uint8_t *dst);

#endif

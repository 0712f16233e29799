/* SPDX-License-Identifier: MIT */
/*
 * hwtex block-compressed texel decoders: one texel of one block, per
 * the Khronos Data Format Specification 1.3 (chapters "ETC2 compressed
 * texture image formats" and "S3TC compressed texture image formats" /
 * "RGTC compressed texture image formats").  One file per family:
 * hw_tex_etc.c (ETC2 RGB8, RGB8A1, RGBA8, EAC R11, RG11), hw_tex_s3tc.c
 * (BC1, BC2, BC3, BC4, BC5), hw_tex_astc.c (ASTC LDR, 2D blocks 4x4 to
 * 12x12).
 *
 * CONTRACT
 *
 * blk points at one whole block (8 bytes; 16 for ETC2 RGBA8, EAC RG11,
 * BC2, BC3, BC5 and ASTC); x, y in 0..3 pick the texel (ASTC: below the
 * footprint).  out receives R, G, B, A as
 * floats: unorm in [0, 1], snorm in [-1, 1]; components the format lacks
 * read 0 (alpha 1).  sRGB is the caller's (these decode the stored
 * values; the colour formats' 8-bit endpoints are exact multiples of
 * 1/255, so the caller's sRGB curve sees the same values a texel read of
 * an uncompressed sRGB format would).
 *
 * Precision (a modelling choice where the specification leaves the
 * implementation freedom): BC1-3 colour interpolation rounds the 8-bit
 * expanded endpoints to 8 bits ((2a + b + 1) / 3, (a + b + 1) / 2); BC4/5
 * and the BC3 alpha interpolate in float; EAC 11-bit values are mapped
 * v / 2047 (unsigned) and v / 1023 (signed).
 *
 * Pure functions: no allocation, no global state.
 */
#ifndef HW_TEX_COMPRESSED_H
#define HW_TEX_COMPRESSED_H

#include <stdbool.h>
#include <stdint.h>

enum hw_tex_block_kind {
   HW_TEX_BLOCK_ETC2_RGB8,
   HW_TEX_BLOCK_ETC2_RGB8A1,   /* punch-through alpha */
   HW_TEX_BLOCK_ETC2_RGBA8,    /* EAC alpha block, then ETC2 RGB */
   HW_TEX_BLOCK_EAC_R11,
   HW_TEX_BLOCK_EAC_RG11,
   HW_TEX_BLOCK_BC1,           /* 3-colour mode: index 3 is transparent black */
   HW_TEX_BLOCK_BC2,
   HW_TEX_BLOCK_BC3,
   HW_TEX_BLOCK_BC4,
   HW_TEX_BLOCK_BC5,
   HW_TEX_BLOCK_ASTC,          /* 16 bytes, block size from the Channels */
};

/* Bytes of one block of the kind. */
unsigned hw_tex_block_bytes(enum hw_tex_block_kind kind);

/* ETC2/EAC kinds; snorm applies to EAC R11/RG11 only. */
void hw_tex_etc_texel(enum hw_tex_block_kind kind, bool snorm, const uint8_t *blk,
                      unsigned x, unsigned y, float out[4]);
/* BC1..BC5; snorm applies to BC4/BC5 only. */
void hw_tex_s3tc_texel(enum hw_tex_block_kind kind, bool snorm, const uint8_t *blk,
                       unsigned x, unsigned y, float out[4]);

/*
 * ASTC LDR (profile "LDR", decode mode per the specification: 16-bit
 * interpolation, out = C / 65535; with srgb, endpoints expanded with 0x80
 * and out = (C >> 8) / 255 on all four components, the caller applying
 * the sRGB curve to R, G, B).  bw x bh is the block footprint, x < bw,
 * y < bh.  Reserved encodings, HDR endpoint modes and HDR void-extent
 * blocks give the error colour (1, 0, 1, 1).
 */
void hw_tex_astc_texel(const uint8_t *blk, unsigned bw, unsigned bh, unsigned x,
                       unsigned y, bool srgb, float out[4]);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * hwtex layout: where a texel of an AGX image lives in memory.
 *
 * CONTRACT
 *
 * Two layouts exist (the descriptor's Layout field):
 *
 *  - Linear: rows of `row_stride` bytes, one level, layers `layer_stride`
 *    apart.
 *  - Twiddled ("GPU tiled"): each level is cut into tiles of one 16 KiB
 *    GPU page, tiles in row-major order, texels inside a tile in Morton
 *    order (x bits on even, y bits on odd positions).  Tile sizes, mip
 *    level placement (full tiles, then the power-of-two tail), 128-byte
 *    level alignment and layer strides are the hardware rules stated and
 *    computed once in cmdstream/agx_image_layout.h; this model and the
 *    Gallium driver both use that code.
 *
 * Multisampled images are laid out as if each texel were `samples` texels
 * wide (block = bytes per texel x samples, samples consecutive).
 *
 * Everything here is pure arithmetic: no allocation, no memory access
 * except the whole-image twiddle helpers, which touch only the buffers
 * given.  Offsets are relative to the image base address.
 */
#ifndef HW_TEX_LAYOUT_H
#define HW_TEX_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HW_TEX_MAX_LEVELS 16
#define HW_TEX_MAX_DIM    16384
#define HW_TEX_PAGE       16384u
#define HW_TEX_CACHELINE  128u

struct hw_tex_level {
   uint64_t offset;        /* bytes from the start of a layer */
   uint32_t width, height; /* texels */
   uint16_t tile_w, tile_h;/* twiddled: tile size in elements (powers of two) */
   uint32_t tiles_per_row; /* twiddled */
};

struct hw_tex_layout {
   bool twiddled;
   uint32_t block_bytes;   /* bytes per element: texel with its samples, or block */
   uint32_t block_w, block_h; /* texels per element: 1x1, or 4x4 (compressed) */
   uint32_t width, height; /* level 0, texels */
   uint32_t layers;        /* array elements x faces, or 3D slices */
   uint32_t levels;        /* levels allocated */
   uint32_t row_stride;    /* linear only */
   uint64_t layer_stride;
   uint64_t size;          /* bytes of the whole image */
   struct hw_tex_level level[HW_TEX_MAX_LEVELS];
};

/* Spreads the low 16 bits of v to the even bit positions (bit i to 2i):
 * the usual shift-and-mask ladder, a handful of operations instead of a
 * loop over 16 bits (twiddled offsets are computed per texel). */
static inline uint32_t
hw_tex_spread16(uint32_t v)
{
   v &= 0xffffu;
   v = (v | (v << 8)) & 0x00ff00ffu;
   v = (v | (v << 4)) & 0x0f0f0f0fu;
   v = (v | (v << 2)) & 0x33333333u;
   v = (v | (v << 1)) & 0x55555555u;
   return v;
}

/* Morton index of (x, y) inside a tile: x bit i -> bit 2i, y bit i -> 2i+1
 * (bits 0-15 of x and y; higher bits are ignored):
 * hw_tex_spread16(x) | hw_tex_spread16(y) << 1. */
uint32_t hw_tex_morton(uint32_t x, uint32_t y);

/*
 * Fills *l for a twiddled image.  levels is clamped to the full chain.
 * False (and *l untouched) for zero/oversized dimensions or bad blocks.
 */
bool hw_tex_layout_twiddled(struct hw_tex_layout *l, unsigned block_bytes,
                            uint32_t width, uint32_t height, uint32_t layers,
                            unsigned levels, bool page_aligned_layers);

/*
 * The same for a block-compressed format: elements are block_w x block_h
 * texel blocks of block_bytes (cmdstream/agx_image_layout.h rule 7);
 * width and height stay in texels.
 */
bool hw_tex_layout_twiddled_blocks(struct hw_tex_layout *l, unsigned block_bytes,
                                   unsigned block_w, unsigned block_h,
                                   uint32_t width, uint32_t height, uint32_t layers,
                                   unsigned levels, bool page_aligned_layers);

/* Fills *l for a linear image (one level). row_stride must hold a row. */
bool hw_tex_layout_linear(struct hw_tex_layout *l, unsigned block_bytes,
                          uint32_t width, uint32_t height, uint32_t layers,
                          uint32_t row_stride, uint64_t layer_stride);

/* Byte offset of element (x, y) of `layer` at `level`: the texel, or for a
 * block-compressed image the block (x, y) in block units; the caller keeps
 * the arguments in range (x < level width in elements, ...). */
uint64_t hw_tex_offset(const struct hw_tex_layout *l, uint32_t x, uint32_t y,
                       uint32_t layer, unsigned level);

/* Bytes one level of one layer spans (up to the next level's start). */
uint64_t hw_tex_level_size(const struct hw_tex_layout *l, unsigned level);

/*
 * Whole-level copies between a linear host image (rows `pitch` bytes
 * apart, level width x height texels of block_bytes) and the image memory
 * `image` (hw_tex_layout.size bytes, described by l).  Work for both
 * layouts.  False for a level/layer out of range or a pitch too small.
 */
bool hw_tex_twiddle(const struct hw_tex_layout *l, unsigned level,
                    unsigned layer, uint8_t *image, const uint8_t *linear,
                    size_t pitch);
bool hw_tex_detwiddle(const struct hw_tex_layout *l, unsigned level,
                      unsigned layer, const uint8_t *image, uint8_t *linear,
                      size_t pitch);

#endif

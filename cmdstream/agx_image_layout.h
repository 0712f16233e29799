/* SPDX-License-Identifier: MIT */
/*
 * Twiddled image layout: where each mip level and layer of a GPU-tiled
 * ("twiddled", descriptor Layout = 2) AGX image lives.  This is a hardware
 * fact: the texture unit and the PBE compute the same offsets from the
 * descriptor alone, so whoever allocates an image (the Gallium driver) and
 * whoever reads it (the GPU model, hw/tex) must agree bit for bit.  It is
 * declared once, here, and used by both (docs/texture.md, "Layouts").
 *
 * (The file is not called agx_layout.h: the generated agx_pack.h already
 * owns `enum agx_layout` and the AGX_LAYOUT_* values, and C struct and enum
 * tags share one namespace.)
 *
 * CONTRACT
 *
 * Input (struct agx_image_layout_params):
 *   block_bytes  bytes per texel, samples included: 1, 2, 4, 8, 16, 32, 64
 *   width/height level-0 size in texels, 1..16384 (1D images: height 1)
 *   depth        AGX_IMAGE_2D: array layers (1 for a plain 2D image);
 *                AGX_IMAGE_CUBE: faces, 6 x cubes;
 *                AGX_IMAGE_3D: slices; 1..16384
 *   levels       mip levels allocated, 1..agx_image_full_levels(w, h)
 *   page_aligned_layers  the descriptor's "page aligned layers" bit
 *
 * Output (struct agx_image_layout), all byte values relative to the image
 * base address:
 *   level[l].offset         start of level l inside a layer
 *   level[l].size           bytes level l occupies (before the next level's
 *                           128-byte alignment)
 *   level[l].width/height   texels, max(size >> l, 1)
 *   level[l].depth          layers addressable at level l: 3D images
 *                           max(depth >> l, 1), otherwise depth
 *   level[l].tile_w/tile_h  tile size in elements (texels, or blocks for
 *                           block-compressed formats; powers of two)
 *   level[l].tiles_per_row  tiles in one row of the level
 *   level[k].offset, k >= levels: end of the chain (one past the last level)
 *   layer_stride            bytes from one layer (face, slice) to the next
 *   size                    bytes of the whole image, layer_stride x depth
 *
 * HARDWARE RULES
 *
 *  1. A tile is one 16 KiB GPU page: 128x128 texels of 1 byte, 128x64 of 2,
 *     64x64 of 4, 64x32 of 8, 32x32 of 16, 32x16 of 32, 16x16 of 64 (wider
 *     than tall when the page holds an odd power of two of texels).  Tiles
 *     are stored row by row; inside a tile, texels are in Morton order
 *     (bit i of x -> bit 2i, bit i of y -> bit 2i+1 of the texel index).
 *  2. While a level is at least one whole tile in both directions it uses
 *     full tiles.  Its allocation is not just its own tile grid: it is the
 *     level-0 tile grid (ceil(w / tw) x ceil(h / th)) with its tile count
 *     shifted right by 2l, plus one padding column of (rows >> l) tiles when
 *     the grid width is not a multiple of 2^l, one padding row of
 *     (columns >> l) tiles when the grid height is not, and one corner tile
 *     when both.
 *  3. From the first level that is smaller than one tile in either
 *     direction on (the "power-of-two tail"; possibly level 0), a level is
 *     allocated as the next powers of two of the tail's first level size,
 *     halved per level (never below 1), and tiled with a square tile whose
 *     side is the next power of two of the level's shorter side.
 *  4. Every level starts on a 128-byte (cache line) boundary.
 *  5. A layer (array element, cube face, 3D slice) holds the whole chain;
 *     the layer stride is the chain size, rounded up to a page when the
 *     descriptor sets "page aligned layers".  Cube face = layer % 6.  3D
 *     slices are layers too, each with its own chain.
 *  6. A mipmapped descriptor (Unk Mipmapped, last level > 0, PBE levels >
 *     1) makes the hardware assume the full chain: such images must be
 *     laid out with levels = agx_image_full_levels(w, h).  That choice is
 *     the caller's (it reads the descriptor); this library takes `levels`.
 *  7. Block-compressed formats (Mesa's ail, layout.c) lay out blocks as
 *     the elements of rules 1-5, with the level sizes in blocks
 *     (ceil(texels / block)), and three differences: the power-of-two tail
 *     starts at the first level whose block count (of the minified
 *     block-rounded level-0 size) is below a tile; the tail's allocation is
 *     the next power of two of the level-0 block count, halved per level
 *     from there (round, then minify); its square tile side is the next
 *     power of two of the shorter side of that allocation.  And a full-tile
 *     level whose grid got a padding column addresses its rows as one block
 *     wider (ail's stride_el + 1), which changes tiles_per_row when the
 *     level's block width is a multiple of the tile width.
 *
 * Pure arithmetic: no allocation, no global state, safe in any thread.
 */
#ifndef AGX_IMAGE_LAYOUT_H
#define AGX_IMAGE_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define AGX_IMAGE_MAX_LEVELS 16      /* a 16384-texel side has 15 levels */
#define AGX_IMAGE_MAX_DIM    16384
#define AGX_IMAGE_PAGE       16384u  /* GPU page = one tile */
#define AGX_IMAGE_CACHELINE  128u    /* level alignment */

enum agx_image_kind {
   AGX_IMAGE_2D,     /* 1D, 2D and their arrays: depth = layers */
   AGX_IMAGE_CUBE,   /* cubes and cube arrays: depth = 6 x cubes */
   AGX_IMAGE_3D,     /* depth = slices, minified per level */
};

struct agx_image_layout_params {
   unsigned block_bytes;
   /* Block-compressed formats: texels per block (4x4 for ETC2/EAC, BCn);
    * 0 or 1 for uncompressed formats.  block_bytes is then the bytes of one
    * block, and the layout's elements are blocks (rule 7). */
   unsigned block_w, block_h;
   uint32_t width, height, depth;
   unsigned levels;
   enum agx_image_kind kind;
   bool page_aligned_layers;
};

struct agx_image_level {
   uint64_t offset;
   uint64_t size;
   uint32_t width, height, depth;
   uint32_t tile_w, tile_h;     /* in elements (texels, or blocks) */
   uint32_t tiles_per_row;
};

struct agx_image_layout {
   unsigned block_bytes;
   unsigned block_w, block_h;   /* 1 for uncompressed formats */
   uint32_t width, height, depth;
   unsigned levels;
   uint64_t layer_stride;
   uint64_t size;
   struct agx_image_level level[AGX_IMAGE_MAX_LEVELS];
};

/* Tile (page) size in texels for a texel size; false unless block_bytes is
 * a power of two from 1 to 64 (rule 1). */
bool agx_image_tile_size(unsigned block_bytes, unsigned *tile_w, unsigned *tile_h);

/* Levels of a full mip chain of a w x h image: floor(log2(max(w, h))) + 1. */
unsigned agx_image_full_levels(uint32_t width, uint32_t height);

/*
 * Fills *out with the twiddled layout of the image p describes.  Returns
 * false, with *out untouched and a one-line reason in err (when err is
 * non-NULL, err_size bytes), for an unsupported texel size, a dimension
 * out of 1..16384, a cube depth that is not a multiple of 6, or levels
 * outside 1..agx_image_full_levels().
 */
bool agx_image_layout_twiddled(struct agx_image_layout *out,
                               const struct agx_image_layout_params *p,
                               char *err, size_t err_size);

#endif

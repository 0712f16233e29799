/* SPDX-License-Identifier: MIT */
/*
 * Image layouts: twiddled (page-sized Morton tiles) and linear.  See the
 * contract in hw_tex_layout.h.  Twiddled level placement comes from
 * cmdstream/agx_image_layout.c, the same code the Gallium driver allocates
 * with, so images written by a driver read back the same here.
 */
#include <string.h>

#include "cmdstream/agx_image_layout.h"
#include "hw/tex/hw_tex_layout.h"

_Static_assert(HW_TEX_MAX_LEVELS == AGX_IMAGE_MAX_LEVELS, "level arrays differ");

uint32_t
hw_tex_morton(uint32_t x, uint32_t y)
{
   return hw_tex_spread16(x) | hw_tex_spread16(y) << 1;
}

static bool
dims_ok(uint32_t w, uint32_t h, uint32_t layers)
{
   return w >= 1 && h >= 1 && layers >= 1 && w <= HW_TEX_MAX_DIM &&
          h <= HW_TEX_MAX_DIM && layers <= HW_TEX_MAX_DIM;
}

bool
hw_tex_layout_twiddled(struct hw_tex_layout *out, unsigned block_bytes,
                       uint32_t width, uint32_t height, uint32_t layers,
                       unsigned levels, bool page_aligned_layers)
{
   return hw_tex_layout_twiddled_blocks(out, block_bytes, 1, 1, width, height, layers,
                                        levels, page_aligned_layers);
}

bool
hw_tex_layout_twiddled_blocks(struct hw_tex_layout *out, unsigned block_bytes,
                              unsigned block_w, unsigned block_h, uint32_t width,
                              uint32_t height, uint32_t layers, unsigned levels,
                              bool page_aligned_layers)
{
   /* The placement is the hardware's, declared once in
    * cmdstream/agx_image_layout.h (the driver allocates with the same
    * code).  Descriptors may name more levels than the chain has: clamp. */
   unsigned full = agx_image_full_levels(width, height);
   if (levels < 1)
      levels = 1;
   if (levels > full)
      levels = full;
   struct agx_image_layout_params p = {
      .block_bytes = block_bytes,
      .block_w = block_w,
      .block_h = block_h,
      .width = width,
      .height = height,
      .depth = layers,
      .levels = levels,
      .kind = AGX_IMAGE_2D,   /* cube faces / 3D slices arrive as layers */
      .page_aligned_layers = page_aligned_layers,
   };
   struct agx_image_layout a;
   if (!agx_image_layout_twiddled(&a, &p, NULL, 0))
      return false;

   struct hw_tex_layout n;
   memset(&n, 0, sizeof(n));
   n.twiddled = true;
   n.block_bytes = block_bytes;
   n.block_w = a.block_w;
   n.block_h = a.block_h;
   n.width = width;
   n.height = height;
   n.layers = layers;
   n.levels = a.levels;
   for (unsigned l = 0; l < HW_TEX_MAX_LEVELS; l++) {
      struct hw_tex_level *lv = &n.level[l];
      lv->offset = a.level[l].offset;
      if (l >= a.levels)
         continue;
      lv->width = a.level[l].width;
      lv->height = a.level[l].height;
      lv->tile_w = (uint16_t)a.level[l].tile_w;
      lv->tile_h = (uint16_t)a.level[l].tile_h;
      lv->tiles_per_row = a.level[l].tiles_per_row;
   }
   n.layer_stride = a.layer_stride;
   n.size = a.size;
   *out = n;
   return true;
}

bool
hw_tex_layout_linear(struct hw_tex_layout *l, unsigned block_bytes,
                     uint32_t width, uint32_t height, uint32_t layers,
                     uint32_t row_stride, uint64_t layer_stride)
{
   if (!dims_ok(width, height, layers) || block_bytes < 1 || block_bytes > 64 ||
       (uint64_t)row_stride < (uint64_t)width * block_bytes)
      return false;
   uint64_t level_bytes = (uint64_t)row_stride * (height - 1) + (uint64_t)width * block_bytes;
   if (layers > 1 && layer_stride < level_bytes)
      return false;
   struct hw_tex_layout n;
   memset(&n, 0, sizeof(n));
   n.block_bytes = block_bytes;
   n.block_w = n.block_h = 1;
   n.width = width;
   n.height = height;
   n.layers = layers;
   n.levels = 1;
   n.row_stride = row_stride;
   n.layer_stride = layers > 1 ? layer_stride : level_bytes;
   n.level[0].width = width;
   n.level[0].height = height;
   for (unsigned k = 1; k < HW_TEX_MAX_LEVELS; k++)
      n.level[k].offset = level_bytes;
   n.size = n.layer_stride * (layers - 1) + level_bytes;
   *l = n;
   return true;
}

uint64_t
hw_tex_offset(const struct hw_tex_layout *l, uint32_t x, uint32_t y,
              uint32_t layer, unsigned level)
{
   const struct hw_tex_level *lv = &l->level[level];
   uint64_t base = (uint64_t)layer * l->layer_stride + lv->offset;
   if (!l->twiddled)
      return base + (uint64_t)y * l->row_stride + (uint64_t)x * l->block_bytes;
   unsigned tw = lv->tile_w, th = lv->tile_h;
   /* Tiles are powers of two (the Morton mask below needs it): shifts,
    * not divisions, on this per-texel path. */
   uint32_t tx, ty;
   if (((tw & (tw - 1)) | (th & (th - 1))) == 0 && tw && th) {
      tx = x >> __builtin_ctz(tw);
      ty = y >> __builtin_ctz(th);
   } else {
      tx = x / tw;
      ty = y / th;
   }
   uint64_t tile = (uint64_t)ty * lv->tiles_per_row + tx;
   uint64_t in_tile = hw_tex_morton(x & (tw - 1), y & (th - 1));
   return base + (tile * tw * th + in_tile) * l->block_bytes;
}

uint64_t
hw_tex_level_size(const struct hw_tex_layout *l, unsigned level)
{
   if (level >= l->levels)
      return 0;
   uint64_t end = level + 1 < HW_TEX_MAX_LEVELS ? l->level[level + 1].offset
                                                : l->layer_stride;
   return end - l->level[level].offset;
}

static bool
copy_level(const struct hw_tex_layout *l, unsigned level, unsigned layer,
           uint8_t *image, const uint8_t *src_image, uint8_t *linear,
           const uint8_t *src_linear, size_t pitch)
{
   /* Whole-texel copies only: block-compressed levels are not (de)twiddled. */
   if (level >= l->levels || layer >= l->layers || l->block_w > 1 || l->block_h > 1)
      return false;
   const struct hw_tex_level *lv = &l->level[level];
   size_t bpb = l->block_bytes;
   if (pitch < (size_t)lv->width * bpb)
      return false;
   for (uint32_t y = 0; y < lv->height; y++) {
      for (uint32_t x = 0; x < lv->width; x++) {
         uint64_t o = hw_tex_offset(l, x, y, layer, level);
         size_t lo = (size_t)y * pitch + (size_t)x * bpb;
         if (image)
            memcpy(image + o, src_linear + lo, bpb);
         else
            memcpy(linear + lo, src_image + o, bpb);
      }
   }
   return true;
}

bool
hw_tex_twiddle(const struct hw_tex_layout *l, unsigned level, unsigned layer,
               uint8_t *image, const uint8_t *linear, size_t pitch)
{
   return copy_level(l, level, layer, image, NULL, NULL, linear, pitch);
}

bool
hw_tex_detwiddle(const struct hw_tex_layout *l, unsigned level, unsigned layer,
                 const uint8_t *image, uint8_t *linear, size_t pitch)
{
   return copy_level(l, level, layer, NULL, image, linear, NULL, pitch);
}

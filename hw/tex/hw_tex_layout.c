/*
 * Image layouts: twiddled (page-sized Morton tiles) and linear.  See the
 * contract in hw_tex_layout.h; the allocation rules mirror what the
 * hardware expects so that images written by a real driver read back the
 * same here.
 */
#include <string.h>

#include "hw/tex/hw_tex_layout.h"

static uint32_t
minify(uint32_t v, unsigned l)
{
   v >>= l;
   return v ? v : 1;
}

static uint32_t
next_pow2(uint32_t v)
{
   uint32_t p = 1;
   while (p < v)
      p <<= 1;
   return p;
}

static uint64_t
align_up(uint64_t v, uint64_t a)
{
   return (v + a - 1) & ~(a - 1);
}

bool
hw_tex_tile_size(unsigned block_bytes, unsigned *tile_w, unsigned *tile_h)
{
   /* width x height x block = one 16 KiB page; wider than tall when the
    * page holds an odd power of two of texels. */
   unsigned w, h;
   switch (block_bytes) {
   case 1:  w = 128; h = 128; break;
   case 2:  w = 128; h = 64;  break;
   case 4:  w = 64;  h = 64;  break;
   case 8:  w = 64;  h = 32;  break;
   case 16: w = 32;  h = 32;  break;
   case 32: w = 32;  h = 16;  break;
   case 64: w = 16;  h = 16;  break;
   default: return false;
   }
   *tile_w = w;
   *tile_h = h;
   return true;
}

uint32_t
hw_tex_morton(uint32_t x, uint32_t y)
{
   uint32_t r = 0;
   for (unsigned i = 0; i < 16; i++) {
      r |= ((x >> i) & 1u) << (2 * i);
      r |= ((y >> i) & 1u) << (2 * i + 1);
   }
   return r;
}

unsigned
hw_tex_full_levels(uint32_t w, uint32_t h)
{
   uint32_t m = w > h ? w : h;
   unsigned n = 1;
   while (m > 1) {
      m >>= 1;
      n++;
   }
   return n;
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
   unsigned tw, th;
   if (!dims_ok(width, height, layers) || !hw_tex_tile_size(block_bytes, &tw, &th))
      return false;
   unsigned full = hw_tex_full_levels(width, height);
   if (levels < 1)
      levels = 1;
   if (levels > full)
      levels = full;

   struct hw_tex_layout n;
   memset(&n, 0, sizeof(n));
   n.twiddled = true;
   n.block_bytes = block_bytes;
   n.width = width;
   n.height = height;
   n.layers = layers;
   n.levels = levels;

   /* Levels that still hold at least one whole tile in each direction use
    * full-page tiles; the rest form the power-of-two tail. */
   unsigned pot_level = 0;
   while (minify(width, pot_level) >= tw && minify(height, pot_level) >= th)
      pot_level++;

   uint32_t stx = (width + tw - 1) / tw, sty = (height + th - 1) / th;
   uint64_t off = 0;
   unsigned l;
   for (l = 0; l < levels && l < pot_level; l++) {
      /* The big levels are allocated as the level-0 tile grid shrunk by
       * 2^l per axis, plus a padding column/row when the grid did not
       * divide evenly (the hardware's allocation, not just the bound). */
      uint64_t tiles = ((uint64_t)stx * sty) >> (2 * l);
      bool pad_x = (stx & ((1u << l) - 1)) != 0;
      bool pad_y = (sty & ((1u << l) - 1)) != 0;
      if (pad_x)
         tiles += sty >> l;
      if (pad_y)
         tiles += stx >> l;
      if (pad_x && pad_y)
         tiles += 1;
      struct hw_tex_level *lv = &n.level[l];
      lv->offset = off;
      lv->width = minify(width, l);
      lv->height = minify(height, l);
      lv->tile_w = (uint16_t)tw;
      lv->tile_h = (uint16_t)th;
      lv->tiles_per_row = (lv->width + tw - 1) / tw;
      off = align_up(off + tiles * tw * th * block_bytes, HW_TEX_CACHELINE);
   }
   uint32_t potw = next_pow2(minify(width, pot_level));
   uint32_t poth = next_pow2(minify(height, pot_level));
   uint32_t shorter = width < height ? width : height;
   for (; l < levels; l++) {
      struct hw_tex_level *lv = &n.level[l];
      uint32_t tile = next_pow2(minify(shorter, l));
      lv->offset = off;
      lv->width = minify(width, l);
      lv->height = minify(height, l);
      lv->tile_w = (uint16_t)tile;
      lv->tile_h = (uint16_t)tile;
      lv->tiles_per_row = (lv->width + tile - 1) / tile;
      off = align_up(off + (uint64_t)potw * poth * block_bytes, HW_TEX_CACHELINE);
      potw = potw > 1 ? potw >> 1 : 1;
      poth = poth > 1 ? poth >> 1 : 1;
   }
   for (unsigned k = levels; k < HW_TEX_MAX_LEVELS; k++)
      n.level[k].offset = off;
   n.layer_stride = page_aligned_layers ? align_up(off, HW_TEX_PAGE) : off;
   n.size = n.layer_stride * layers;
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
   uint64_t tile = (uint64_t)(y / th) * lv->tiles_per_row + x / tw;
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
   if (level >= l->levels || layer >= l->layers)
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

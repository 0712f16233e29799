/*
 * Image writes through PBE descriptors: single texels (image_write) and
 * whole tilebuffer tiles (image_write_block, the end-of-tile store).
 */
#include <stdio.h>
#include <string.h>

#include "cmdstream/agx_pack.h"
#include "hw/tex/hw_tex.h"

/* The PBE swizzle routes source components to memory channels. */
static void
pbe_swizzle(const struct hw_tex_image *im, const union hw_texel *in, union hw_texel *out)
{
   for (unsigned c = 0; c < 4; c++)
      out->u[c] = in->u[im->swizzle[c] & 3];
}

static enum hw_tex_status
store_texel(struct hw_mmu *mmu, const struct hw_tex_image *im, uint32_t x, uint32_t y,
            uint32_t layer, unsigned level, uint32_t sample, const union hw_texel *v,
            bool rtz)
{
   union hw_texel sw;
   uint8_t buf[16];
   pbe_swizzle(im, v, &sw);
   hw_tex_pack(&im->fmt, &sw, rtz, buf);
   uint64_t off = hw_tex_offset(&im->layout, x, y, layer, level) +
                  (uint64_t)sample * im->fmt.bytes;
   if (!hw_mmu_write(mmu, im->base + off, buf, im->fmt.bytes))
      return HW_TEX_FAULT;
   return HW_TEX_OK;
}

enum hw_tex_status
hw_tex_image_store(struct hw_mmu *mmu, const struct hw_tex_image *im, int32_t x, int32_t y,
                   uint32_t layer, uint32_t level_add, uint32_t sample,
                   const union hw_texel *value, bool rtz)
{
   uint32_t level = im->level + level_add;
   if (level_add > 15 || level >= im->layout.levels || sample >= im->samples)
      return HW_TEX_OK;
   const struct hw_tex_level *lv = &im->layout.level[level];
   if (x < 0 || y < 0 || (uint32_t)x >= lv->width || (uint32_t)y >= lv->height ||
       layer >= im->layout.layers)
      return HW_TEX_OK;
   return store_texel(mmu, im, (uint32_t)x, (uint32_t)y, layer, level, sample, value, rtz);
}

enum hw_tex_status
hw_tex_block_store(struct hw_mmu *mmu, const struct hw_tex_image *im,
                   const struct hw_tex_tile *tile, unsigned memfmt, uint32_t offset,
                   uint32_t level_add, bool rtz, char *err, size_t err_size)
{
   unsigned bytes = hw_tex_memfmt_bytes(memfmt, im->fmt.comps);
   if (!bytes) {
      if (err)
         snprintf(err, err_size, "image_write_block: memory format %u unknown", memfmt);
      return HW_TEX_BAD_ARGS;
   }
   uint32_t level = im->level + level_add;
   if (level_add > 15 || level >= im->layout.levels) {
      if (err)
         snprintf(err, err_size, "image_write_block: level %u outside the image", level);
      return HW_TEX_BAD_ARGS;
   }
   const struct hw_tex_level *lv = &im->layout.level[level];
   if (tile->layer >= im->layout.layers)
      return HW_TEX_OK;
   /* Without a resolve, sample s of the tile lands in sample s of the
    * image; a single-sampled image takes sample 0. */
   uint32_t samples = tile->samples < im->samples ? tile->samples : im->samples;
   if (samples == 0)
      samples = 1;
   for (uint32_t ty = 0; ty < tile->height; ty++) {
      uint32_t y = tile->y0 + ty;
      if (y >= lv->height)
         break;
      for (uint32_t tx = 0; tx < tile->width; tx++) {
         uint32_t x = tile->x0 + tx;
         if (x >= lv->width)
            break;
         for (uint32_t s = 0; s < samples; s++) {
            uint64_t at = (uint64_t)ty * tile->row_stride + (uint64_t)tx * tile->pixel_stride +
                          (uint64_t)s * tile->sample_stride + offset;
            if (at + bytes > tile->size) {
               if (err)
                  snprintf(err, err_size,
                           "image_write_block: tilebuffer read at %llu+%u past %zu bytes",
                           (unsigned long long)at, bytes, tile->size);
               return HW_TEX_BAD_ARGS;
            }
            union hw_texel t;
            hw_tex_memfmt_unpack(memfmt, im->fmt.comps, tile->mem + at, &t);
            enum hw_tex_status st = store_texel(mmu, im, x, y, tile->layer, level, s, &t, rtz);
            if (st != HW_TEX_OK)
               return st;
         }
      }
   }
   return HW_TEX_OK;
}

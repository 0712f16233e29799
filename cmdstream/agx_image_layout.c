/* SPDX-License-Identifier: MIT */
/*
 * Twiddled image layout (contract and hardware rules in agx_image_layout.h;
 * the rules are the ones Mesa's ail library documents, the code is ours).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cmdstream/agx_image_layout.h"

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

static bool
fail(char *err, size_t err_size, const char *fmt, ...)
{
   if (err && err_size) {
      va_list ap;
      va_start(ap, fmt);
      vsnprintf(err, err_size, fmt, ap);
      va_end(ap);
   }
   return false;
}

bool
agx_image_tile_size(unsigned block_bytes, unsigned *tile_w, unsigned *tile_h)
{
   if (block_bytes < 1 || block_bytes > 64 || (block_bytes & (block_bytes - 1)))
      return false;
   /* texels per page = 16384 / bytes = 2^k; h = 2^floor(k/2), w = 2^ceil(k/2) */
   unsigned texels = AGX_IMAGE_PAGE / block_bytes;
   unsigned k = 0;
   while ((1u << k) < texels)
      k++;
   *tile_w = 1u << ((k + 1) / 2);
   *tile_h = 1u << (k / 2);
   return true;
}

unsigned
agx_image_full_levels(uint32_t width, uint32_t height)
{
   uint32_t m = width > height ? width : height;
   unsigned n = 1;
   while (m > 1) {
      m >>= 1;
      n++;
   }
   return n;
}

static bool
dim_ok(uint32_t v)
{
   return v >= 1 && v <= AGX_IMAGE_MAX_DIM;
}

bool
agx_image_layout_twiddled(struct agx_image_layout *out,
                          const struct agx_image_layout_params *p, char *err,
                          size_t err_size)
{
   unsigned tw, th;
   if (!agx_image_tile_size(p->block_bytes, &tw, &th))
      return fail(err, err_size, "%u-byte texels have no twiddled layout", p->block_bytes);
   if (!dim_ok(p->width) || !dim_ok(p->height) || !dim_ok(p->depth))
      return fail(err, err_size, "image %ux%ux%u outside 1..%u", p->width, p->height,
                  p->depth, AGX_IMAGE_MAX_DIM);
   if (p->kind == AGX_IMAGE_CUBE && p->depth % 6)
      return fail(err, err_size, "cube image with %u faces (not a multiple of 6)", p->depth);
   unsigned full = agx_image_full_levels(p->width, p->height);
   if (p->levels < 1 || p->levels > full)
      return fail(err, err_size, "%u levels for a %ux%u image (1..%u)", p->levels,
                  p->width, p->height, full);

   unsigned bw = p->block_w > 1 ? p->block_w : 1, bh = p->block_h > 1 ? p->block_h : 1;
   bool compressed = bw > 1 || bh > 1;
   if (bw > 16 || bh > 16)
      return fail(err, err_size, "%ux%u blocks not supported", bw, bh);

   struct agx_image_layout n;
   memset(&n, 0, sizeof(n));
   n.block_bytes = p->block_bytes;
   n.block_w = bw;
   n.block_h = bh;
   n.width = p->width;
   n.height = p->height;
   n.depth = p->depth;
   n.levels = p->levels;

   /* Sizes in elements (texels, or blocks: rule 7). */
   uint32_t w_el = (p->width + bw - 1) / bw, h_el = (p->height + bh - 1) / bh;

   /* Rule 2 holds below pot_level, rule 3 from it on.  Like ail, the test
    * minifies the block-rounded texel size and counts its blocks (for
    * uncompressed formats that is just the minified size). */
   unsigned pot_level = 0;
   for (;;) {
      uint32_t pw = minify(w_el * bw, pot_level), ph = minify(h_el * bh, pot_level);
      if ((pw + bw - 1) / bw < tw || (ph + bh - 1) / bh < th)
         break;
      pot_level++;
   }

   uint64_t stx = (w_el + tw - 1) / tw, sty = (h_el + th - 1) / th;
   uint32_t potw, poth;
   if (compressed) {
      /* Round, then minify (rule 7). */
      potw = minify(next_pow2(w_el), pot_level);
      poth = minify(next_pow2(h_el), pot_level);
   } else {
      potw = next_pow2(minify(w_el, pot_level));
      poth = next_pow2(minify(h_el, pot_level));
   }
   uint32_t shorter = w_el < h_el ? w_el : h_el;
   uint64_t off = 0;
   for (unsigned l = 0; l < p->levels; l++) {
      struct agx_image_level *lv = &n.level[l];
      lv->offset = off;
      lv->width = minify(p->width, l);
      lv->height = minify(p->height, l);
      lv->depth = p->kind == AGX_IMAGE_3D ? minify(p->depth, l) : p->depth;
      /* Row length in elements the level is addressed with. */
      uint32_t stride_el = (lv->width + bw - 1) / bw;
      if (l < pot_level) {
         /* The level-0 grid shrunk by 2^l per axis, padded (rule 2). */
         uint64_t tiles = (stx * sty) >> (2 * l);
         bool pad_x = (stx & ((1u << l) - 1)) != 0;
         bool pad_y = (sty & ((1u << l) - 1)) != 0;
         if (pad_x)
            tiles += sty >> l;
         if (pad_y)
            tiles += stx >> l;
         if (pad_x && pad_y)
            tiles += 1;
         lv->tile_w = tw;
         lv->tile_h = th;
         lv->size = tiles * tw * th * p->block_bytes;
         if (compressed && pad_x)
            stride_el++;   /* rule 7 */
      } else {
         /* Power-of-two tail: halving allocation, square tiles (rule 3). */
         uint32_t tile = compressed ? next_pow2(potw < poth ? potw : poth)
                                    : next_pow2(minify(shorter, l));
         lv->tile_w = tile;
         lv->tile_h = tile;
         lv->size = (uint64_t)potw * poth * p->block_bytes;
         potw = potw > 1 ? potw >> 1 : 1;
         poth = poth > 1 ? poth >> 1 : 1;
      }
      lv->tiles_per_row = (stride_el + lv->tile_w - 1) / lv->tile_w;
      off = align_up(off + lv->size, AGX_IMAGE_CACHELINE);   /* rule 4 */
   }
   for (unsigned k = p->levels; k < AGX_IMAGE_MAX_LEVELS; k++)
      n.level[k].offset = off;
   n.layer_stride = p->page_aligned_layers ? align_up(off, AGX_IMAGE_PAGE) : off;   /* rule 5 */
   n.size = n.layer_stride * p->depth;
   *out = n;
   return true;
}

/* SPDX-License-Identifier: MIT */
/*
 * Blits, copies and surface clears on the CPU: both resources are mapped
 * through the transfer functions (which wait for the GPU and untwiddle)
 * and converted with util_format pack/unpack. Correct for every format
 * util_format can pack, slow for big surfaces (TESSERA_DEBUG=perf says
 * when it happens).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/u_inlines.h"
#include "util/u_math.h"
#include "util/u_surface.h"
#include "util/format/u_format.h"

#include "tessera_context.h"

struct span {
   int x0;        /* first texel */
   int size;      /* texels (positive) */
   bool flip;
};

static struct span
make_span(int x, int w)
{
   struct span s = { x, w, false };
   if (w < 0) {
      s.x0 = x + w;
      s.size = -w;
      s.flip = true;
   }
   return s;
}

/* Source texel coordinate (fractional, texel centres at .5) for dst i. */
static float
src_coord(const struct span *src, int dst_size, int i)
{
   float u = ((float)i + 0.5f) * (float)src->size / (float)dst_size;
   return src->flip ? (float)src->size - u : u;
}

static int
clampi(int v, int lo, int hi)
{
   return v < lo ? lo : v > hi ? hi : v;
}

/* One destination layer from source layer src_layer, blended with
 * src_layer1 by fz when fz > 0 (linear filtering across 3D slices). */
static void
blit_layer(struct pipe_context *pctx, const struct pipe_blit_info *info, int dst_layer,
           int src_layer, int src_layer1, float fz)
{
   const struct pipe_box *db = &info->dst.box, *sb = &info->src.box;
   struct span sx = make_span(sb->x, sb->width), sy = make_span(sb->y, sb->height);
   enum pipe_format sf = info->src.format, df = info->dst.format;
   struct pipe_transfer *st = NULL, *dt = NULL, *st1 = NULL;
   if (!sx.size || !sy.size || !db->width || !db->height)
      return;

   const uint8_t *src = pipe_texture_map(pctx, info->src.resource, info->src.level, src_layer,
                                         PIPE_MAP_READ, sx.x0, sy.x0, sx.size, sy.size, &st);
   if (!src) {
      fprintf(stderr, "tessera: blit: cannot map the source\n");
      return;
   }
   uint8_t *dst = pipe_texture_map(pctx, info->dst.resource, info->dst.level, dst_layer,
                                   PIPE_MAP_READ | PIPE_MAP_WRITE, db->x, db->y, db->width,
                                   db->height, &dt);
   if (!dst) {
      fprintf(stderr, "tessera: blit: cannot map the destination\n");
      pipe_texture_unmap(pctx, st);
      return;
   }

   const struct util_format_description *sd = util_format_description(sf);
   const struct util_format_description *dd = util_format_description(df);
   unsigned sbpp = util_format_get_blocksize(sf), dbpp = util_format_get_blocksize(df);
   bool zs = dd->colorspace == UTIL_FORMAT_COLORSPACE_ZS;
   const uint8_t *src1 = NULL;
   if (fz > 0 && src_layer1 != src_layer && !zs && !util_format_is_pure_integer(sf)) {
      src1 = pipe_texture_map(pctx, info->src.resource, info->src.level, src_layer1,
                              PIPE_MAP_READ, sx.x0, sy.x0, sx.size, sy.size, &st1);
      if (!src1)
         fprintf(stderr, "tessera: blit: cannot map source layer %d\n", src_layer1);
   }
   bool linear = info->filter == PIPE_TEX_FILTER_LINEAR && !zs &&
                 (sx.size != db->width || sy.size != db->height);
   float *row = malloc(sizeof(float) * 4 * (size_t)sx.size * 2);
   float *out = malloc(sizeof(float) * 4 * (size_t)db->width);
   float *old = malloc(sizeof(float) * 4 * (size_t)db->width);
   float *z = malloc(sizeof(float) * (size_t)MAX2(sx.size, db->width) * 2);
   uint8_t *s8 = malloc((size_t)MAX2(sx.size, db->width) * 2);
   float *row1 = src1 ? malloc(sizeof(float) * 4 * (size_t)sx.size * 2) : NULL;
   if (!row || !out || !old || !z || !s8 || (src1 && !row1))
      goto done;

   for (int y = 0; y < db->height; y++) {
      int dy = db->y + y;
      if (info->scissor_enable &&
          (dy < (int)info->scissor.miny || dy >= (int)info->scissor.maxy))
         continue;
      uint8_t *drow = dst + (size_t)y * dt->stride;
      float v = src_coord(&sy, db->height, y);

      if (zs) {
         int yy = clampi((int)floorf(v), 0, sy.size - 1);
         const uint8_t *srow = src + (size_t)yy * st->stride;
         for (int x = 0; x < db->width; x++) {
            int dx = db->x + x;
            if (info->scissor_enable &&
                (dx < (int)info->scissor.minx || dx >= (int)info->scissor.maxx))
               continue;
            int xx = clampi((int)floorf(src_coord(&sx, db->width, x)), 0, sx.size - 1);
            if ((info->mask & PIPE_MASK_Z) && util_format_has_depth(sd) &&
                util_format_has_depth(dd)) {
               float zv;
               util_format_unpack_z_float(sf, &zv, srow + (size_t)xx * sbpp, 1);
               util_format_pack_z_float(df, drow + (size_t)x * dbpp, &zv, 1);
            }
            if ((info->mask & PIPE_MASK_S) && util_format_has_stencil(sd) &&
                util_format_has_stencil(dd)) {
               uint8_t sv;
               util_format_unpack_s_8uint(sf, &sv, srow + (size_t)xx * sbpp, 1);
               util_format_pack_s_8uint(df, drow + (size_t)x * dbpp, &sv, 1);
            }
         }
         continue;
      }

      /* Colour: unpack the one or two source rows needed. */
      int y0, y1;
      float fy = 0;
      if (linear) {
         float t = v - 0.5f;
         y0 = (int)floorf(t);
         fy = t - (float)y0;
         y1 = clampi(y0 + 1, 0, sy.size - 1);
         y0 = clampi(y0, 0, sy.size - 1);
      } else {
         y0 = y1 = clampi((int)floorf(v), 0, sy.size - 1);
      }
      util_format_unpack_rgba(sf, row, src + (size_t)y0 * st->stride, sx.size);
      if (linear)
         util_format_unpack_rgba(sf, row + 4 * sx.size, src + (size_t)y1 * st->stride,
                                 sx.size);
      if (src1) {
         util_format_unpack_rgba(sf, row1, src1 + (size_t)y0 * st1->stride, sx.size);
         if (linear)
            util_format_unpack_rgba(sf, row1 + 4 * sx.size, src1 + (size_t)y1 * st1->stride,
                                    sx.size);
         for (int i = 0; i < 4 * sx.size * (linear ? 2 : 1); i++)
            row[i] = row[i] * (1 - fz) + row1[i] * fz;
      }
      if ((info->mask & PIPE_MASK_RGBA) != PIPE_MASK_RGBA || info->scissor_enable)
         util_format_unpack_rgba(df, old, drow, db->width);
      bool integer = util_format_is_pure_integer(sf);
      for (int x = 0; x < db->width; x++) {
         float u = src_coord(&sx, db->width, x);
         float *o = out + 4 * x;
         if (linear && !integer) {
            float t = u - 0.5f;
            int x0 = (int)floorf(t);
            float fx = t - (float)x0;
            int x1 = clampi(x0 + 1, 0, sx.size - 1);
            x0 = clampi(x0, 0, sx.size - 1);
            const float *r0 = row, *r1 = row + 4 * sx.size;
            for (unsigned c = 0; c < 4; c++) {
               float a = r0[4 * x0 + c] * (1 - fx) + r0[4 * x1 + c] * fx;
               float b = r1[4 * x0 + c] * (1 - fx) + r1[4 * x1 + c] * fx;
               o[c] = a * (1 - fy) + b * fy;
            }
         } else {
            int xx = clampi((int)floorf(u), 0, sx.size - 1);
            memcpy(o, row + 4 * xx, 16);
         }
         int dx = db->x + x;
         bool outside = info->scissor_enable &&
                        (dx < (int)info->scissor.minx || dx >= (int)info->scissor.maxx);
         for (unsigned c = 0; c < 4; c++)
            if (outside || !(info->mask & (PIPE_MASK_R << c)))
               o[c] = old[4 * x + c];
      }
      util_format_pack_rgba(df, drow, out, db->width);
   }
done:
   free(row1);
   if (st1)
      pipe_texture_unmap(pctx, st1);
   free(row);
   free(out);
   free(old);
   free(z);
   free(s8);
   pipe_texture_unmap(pctx, dt);
   pipe_texture_unmap(pctx, st);
}

static void
tessera_blit(struct pipe_context *pctx, const struct pipe_blit_info *info)
{
   struct tessera_context *ctx = tessera_context(pctx);
   if (info->render_condition_enable)
      tessera_perf(ctx, "blit render condition ignored\n");
   if (util_try_blit_via_copy_region(pctx, info, false))
      return;

   const struct util_format_description *sd = util_format_description(info->src.format);
   const struct util_format_description *dd = util_format_description(info->dst.format);
   if (sd->layout != UTIL_FORMAT_LAYOUT_PLAIN || dd->layout != UTIL_FORMAT_LAYOUT_PLAIN ||
       info->src.resource->target == PIPE_BUFFER ||
       info->dst.resource->target == PIPE_BUFFER) {
      fprintf(stderr, "tessera: blit %s -> %s is not supported\n",
              util_format_short_name(info->src.format),
              util_format_short_name(info->dst.format));
      return;
   }
   if (info->src.resource->nr_samples > 1 || info->dst.resource->nr_samples > 1)
      tessera_perf(ctx, "multisampled blit done on sample 0 only\n");
   tessera_perf(ctx, "CPU blit %dx%d %s -> %dx%d %s\n", info->src.box.width,
                info->src.box.height, util_format_short_name(info->src.format),
                info->dst.box.width, info->dst.box.height,
                util_format_short_name(info->dst.format));

   /* Layers: nearest, except that a linear blit between 3D images filters
    * across slices too (glGenerateMipmap of a 3D texture). */
   struct span sz = make_span(info->src.box.z, info->src.box.depth);
   bool linear_z = info->filter == PIPE_TEX_FILTER_LINEAR &&
                   info->src.resource->target == PIPE_TEXTURE_3D &&
                   info->dst.resource->target == PIPE_TEXTURE_3D &&
                   sz.size != info->dst.box.depth;
   int last = MAX2(sz.size, 1) - 1;
   for (int z = 0; z < info->dst.box.depth; z++) {
      float w = src_coord(&sz, info->dst.box.depth, z);
      if (linear_z) {
         float t = w - 0.5f;
         int z0 = (int)floorf(t);
         float fz = t - (float)z0;
         blit_layer(pctx, info, info->dst.box.z + z, sz.x0 + clampi(z0, 0, last),
                    sz.x0 + clampi(z0 + 1, 0, last), fz);
      } else {
         int s = sz.x0 + clampi((int)floorf(w), 0, last);
         blit_layer(pctx, info, info->dst.box.z + z, s, s, 0.0f);
      }
   }
}

static void
tessera_resource_copy_region(struct pipe_context *pctx, struct pipe_resource *dst,
                             unsigned dst_level, unsigned dstx, unsigned dsty,
                             unsigned dstz, struct pipe_resource *src, unsigned src_level,
                             const struct pipe_box *src_box)
{
   tessera_perf(tessera_context(pctx), "CPU resource copy %dx%dx%d\n", src_box->width,
                src_box->height, src_box->depth);
   util_resource_copy_region(pctx, dst, dst_level, dstx, dsty, dstz, src, src_level,
                             src_box);
}

static void
tessera_clear_render_target(struct pipe_context *pctx, struct pipe_surface *dst,
                            const union pipe_color_union *color, unsigned dstx,
                            unsigned dsty, unsigned width, unsigned height,
                            bool render_condition_enabled)
{
   tessera_perf(tessera_context(pctx), "CPU clear_render_target %ux%u\n", width, height);
   util_clear_render_target(pctx, dst, color, dstx, dsty, width, height);
}

static void
tessera_clear_depth_stencil(struct pipe_context *pctx, struct pipe_surface *dst,
                            unsigned clear_flags, double depth, unsigned stencil,
                            unsigned dstx, unsigned dsty, unsigned width, unsigned height,
                            bool render_condition_enabled)
{
   tessera_perf(tessera_context(pctx), "CPU clear_depth_stencil %ux%u\n", width, height);
   util_clear_depth_stencil(pctx, dst, clear_flags, depth, stencil, dstx, dsty, width,
                            height);
}

static void
tessera_flush_resource(struct pipe_context *pctx, struct pipe_resource *prsc)
{
   /* Before presentation or export. Shared BOs are waited for: the kernel
    * has no implicit sync, so another process could read them early.
    * Private ones only need their pass submitted. */
   struct tessera_context *ctx = tessera_context(pctx);
   struct tessera_resource *r = tessera_resource(prsc);
   if (r->bo && (r->bo->flags & TESSERA_BO_SHARED))
      tessera_flush_writer(ctx, r, "flush_resource (shared)");
   else if (r->writer && r->writer->state == TESSERA_BATCH_ACTIVE && r->writer->ctx == ctx)
      tessera_batch_flush(r->writer, "flush_resource");
}

void
tessera_init_blit_functions(struct pipe_context *pctx)
{
   pctx->blit = tessera_blit;
   pctx->resource_copy_region = tessera_resource_copy_region;
   pctx->clear_render_target = tessera_clear_render_target;
   pctx->clear_depth_stencil = tessera_clear_depth_stencil;
   pctx->flush_resource = tessera_flush_resource;
}

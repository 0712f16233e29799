/* SPDX-License-Identifier: MIT */
/*
 * Render targets of a render command, read back and converted to RGBA8.
 * The descriptor decoding and de-twiddling are hw/tex's (the model's own
 * texture unit), so a picture shows exactly what the model would sample.
 */
#include "replay/replay_image.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmdstream/agx_pack.h"
#include "drm-uapi/asahi_drm.h"
#include "hw/tex/hw_tex_layout.h"

/* A USC word list is short; Mesa's longest has a few dozen words. */
#define MAX_USC_WORDS 64
/* Refuse absurd pictures rather than allocate gigabytes from a bad trace. */
#define MAX_PIXELS (16384ull * 16384ull)

static void
set_err(char *err, size_t size, const char *fmt, ...)
{
   if (!err || !size)
      return;
   va_list ap;
   va_start(ap, fmt);
   vsnprintf(err, size, fmt, ap);
   va_end(ap);
}

static bool
same_target(const struct replay_target *a, const struct hw_tex_image *b)
{
   return a->kind == REPLAY_TARGET_COLOR && a->image.base == b->base &&
          a->image.level == b->level;
}

static void
add_colour_targets(uint64_t table, unsigned count, replay_read_fn read, void *ctx,
                   struct replay_target *out, unsigned max, unsigned *n)
{
   for (unsigned i = 0; i < count && *n < max; i++) {
      uint8_t desc[HW_TEX_DESC_BYTES];
      if (!read(ctx, table + (uint64_t)i * HW_TEX_DESC_BYTES, desc, sizeof(desc)))
         return;
      struct hw_tex_image im;
      char ignored[128];
      /* Entries that are not writable 2D images (null slots, textures the
       * program also binds) are not targets. */
      if (!hw_tex_image_decode(&im, desc, ignored, sizeof(ignored)) || !im.base)
         continue;
      if (im.dim != AGX_TEXTURE_DIMENSION_2D && im.dim != AGX_TEXTURE_DIMENSION_2D_ARRAY &&
          im.dim != AGX_TEXTURE_DIMENSION_2D_MS && im.dim != AGX_TEXTURE_DIMENSION_2D_ARRAY_MS)
         continue;
      bool dup = false;
      for (unsigned k = 0; k < *n; k++)
         dup |= same_target(&out[k], &im);
      if (dup)
         continue;
      unsigned colour = 0;
      for (unsigned k = 0; k < *n; k++)
         colour += out[k].kind == REPLAY_TARGET_COLOR;
      memset(&out[*n], 0, sizeof(out[*n]));
      out[*n].kind = REPLAY_TARGET_COLOR;
      out[*n].index = colour;
      out[*n].image = im;
      (*n)++;
   }
}

int
replay_find_targets(const struct drm_asahi_cmd_render *cmd, uint64_t usc_base,
                    replay_read_fn read, void *ctx, struct replay_target *out,
                    unsigned max, char *err, size_t err_size)
{
   unsigned n = 0;
   if (cmd->eot.usc) {
      /* The low bits of the offset are a tag the hardware ignores. */
      uint64_t va = usc_base + (cmd->eot.usc & ~63u);
      for (unsigned w = 0; w < MAX_USC_WORDS; w++) {
         uint8_t word[8] = { 0 };
         if (!read(ctx, va, word, 2)) {
            set_err(err, err_size, "end-of-tile USC word list at 0x%llx is unmapped",
                    (unsigned long long)va);
            return -1;
         }
         unsigned size = agx_usc_control_length(word[0]);
         if (!size)
            break;
         if (size > 2 && !read(ctx, va + 2, word + 2, size - 2)) {
            set_err(err, err_size, "end-of-tile USC word at 0x%llx is truncated",
                    (unsigned long long)va);
            return -1;
         }
         if (word[0] == AGX_USC_CONTROL_TEXTURE) {
            struct agx_usc_texture t;
            (void)agx_usc_texture_unpack(word, &t);
            add_colour_targets(t.buffer, t.count, read, ctx, out, max, &n);
         }
         va += size;
         if (word[0] == AGX_USC_CONTROL_PRESHADER || word[0] == AGX_USC_CONTROL_NO_PRESHADER)
            break;
      }
   }

   struct agx_zls_control zls;
   (void)agx_zls_control_unpack(&cmd->zls_ctrl, &zls);
   uint32_t w = cmd->width_px, h = cmd->height_px;
   uint32_t samples = cmd->samples ? cmd->samples : 1;
   /* The ZLS images are twiddled, sized by isp_zls_pixels (as the GPU
    * reads them: hw/render's zls). The dump shows the pass's area of it. */
   uint32_t zw = (cmd->isp_zls_pixels & 0x7fff) + 1;
   uint32_t zh = ((cmd->isp_zls_pixels >> 15) & 0x7fff) + 1;
   w = w < zw ? w : zw;
   h = h < zh ? h : zh;
   if (zls.z_store_enable && cmd->depth.base && n < max) {
      bool z16 = zls.z_format == AGX_ZLS_FORMAT_16;
      memset(&out[n], 0, sizeof(out[n]));
      out[n].kind = REPLAY_TARGET_DEPTH;
      out[n].base = cmd->depth.base;
      out[n].width = w;
      out[n].height = h;
      out[n].samples = samples;
      out[n].depth_unorm16 = z16;
      if (hw_tex_layout_twiddled(&out[n].zs_layout, (z16 ? 2 : 4) * samples, zw, zh, 1, 1,
                                 false))
         n++;
   }
   if (zls.s_store_enable && cmd->stencil.base && n < max) {
      memset(&out[n], 0, sizeof(out[n]));
      out[n].kind = REPLAY_TARGET_STENCIL;
      out[n].base = cmd->stencil.base;
      out[n].width = w;
      out[n].height = h;
      out[n].samples = samples;
      if (hw_tex_layout_twiddled(&out[n].zs_layout, samples, zw, zh, 1, 1, false))
         n++;
   }
   return (int)n;
}

void
replay_target_size(const struct replay_target *t, uint32_t *w, uint32_t *h)
{
   if (t->kind == REPLAY_TARGET_COLOR) {
      const struct hw_tex_level *l = &t->image.layout.level[t->image.level];
      *w = l->width;
      *h = l->height;
   } else {
      *w = t->width;
      *h = t->height;
   }
}

uint32_t
replay_target_layers(const struct replay_target *t)
{
   return t->kind == REPLAY_TARGET_COLOR ? t->image.layout.layers : 1;
}

void
replay_target_range(const struct replay_target *t, uint64_t *base, uint64_t *size)
{
   if (t->kind == REPLAY_TARGET_COLOR) {
      *base = t->image.base;
      *size = t->image.layout.size;
   } else {
      *base = t->base;
      *size = t->zs_layout.size;
   }
}

const char *
replay_target_kind_name(enum replay_target_kind kind)
{
   static const char *const kinds[] = { "color", "depth", "stencil" };
   return (unsigned)kind < 3 ? kinds[kind] : "target";
}

bool
replay_target_first_seen(struct replay_target_seen *seen, const struct replay_target *t)
{
   uint64_t base = t->kind == REPLAY_TARGET_COLOR ? t->image.base : t->base;
   unsigned level = t->kind == REPLAY_TARGET_COLOR ? t->image.level : 0;
   for (unsigned s = 0; s < seen->n; s++)
      if (seen->key[s].base == base && seen->key[s].kind == (unsigned)t->kind &&
          seen->key[s].level == level)
         return false;
   if (seen->n < REPLAY_MAX_SEEN) {
      seen->key[seen->n].base = base;
      seen->key[seen->n].kind = t->kind;
      seen->key[seen->n].level = level;
      seen->n++;
   }
   return true;
}

static uint8_t
unit_to_u8(float f)
{
   if (!(f > 0.0f))
      return 0;   /* also NaN */
   if (f >= 1.0f)
      return 255;
   return (uint8_t)lrintf(f * 255.0f);
}

static uint8_t
int_to_u8(const struct hw_tex_format *fmt, uint32_t v)
{
   if (fmt->cls == HW_TEX_CLASS_SINT && (int32_t)v < 0)
      return 0;
   return v > 255 ? 255 : (uint8_t)v;
}

/* One texel's four channels as 8-bit values (before any resolve). */
static void
texel_to_u8(const struct hw_tex_format *fmt, const uint8_t *src, float out[4])
{
   union hw_texel t;
   hw_tex_unpack(fmt, src, &t);
   for (unsigned c = 0; c < 4; c++) {
      if (fmt->cls == HW_TEX_CLASS_FLOAT)
         out[c] = unit_to_u8(t.f[c]);
      else
         out[c] = int_to_u8(fmt, t.u[c]);
   }
}

static bool
read_colour(const struct replay_target *t, uint32_t layer, replay_read_fn read, void *ctx,
            uint8_t *rgba, char *err, size_t err_size)
{
   const struct hw_tex_image *im = &t->image;
   const struct hw_tex_layout *l = &im->layout;
   uint64_t level_off = (uint64_t)layer * l->layer_stride + l->level[im->level].offset;
   uint64_t span = hw_tex_level_size(l, im->level);
   if (!l->twiddled)
      span = (uint64_t)l->row_stride * (l->height - 1) + (uint64_t)l->width * l->block_bytes;
   /* hw_tex_detwiddle addresses the whole image; give it a buffer of the
    * image's size holding just this level of this layer. */
   if (l->size > (1ull << 32)) {
      set_err(err, err_size, "render target at 0x%llx claims %llu bytes",
              (unsigned long long)im->base, (unsigned long long)l->size);
      return false;
   }
   uint8_t *image = calloc(1, l->size);
   uint32_t w = l->level[im->level].width, h = l->level[im->level].height;
   size_t pitch = (size_t)w * l->block_bytes;
   uint8_t *linear = malloc(pitch * h);
   bool ok = image && linear;
   if (!ok)
      set_err(err, err_size, "out of memory for a %ux%u image", w, h);
   if (ok && !read(ctx, im->base + level_off, image + level_off, span)) {
      set_err(err, err_size, "render target at 0x%llx (%llu bytes) is not mapped",
              (unsigned long long)(im->base + level_off), (unsigned long long)span);
      ok = false;
   }
   if (ok && !hw_tex_detwiddle(l, im->level, layer, image, linear, pitch)) {
      set_err(err, err_size, "render target at 0x%llx: cannot de-tile level %u",
              (unsigned long long)im->base, im->level);
      ok = false;
   }
   if (ok) {
      /* The PBE routes source component swizzle[c] to memory channel c
       * (BGRA surfaces are RGBA formats with R and B swapped). When that is
       * a permutation, undo it: the picture shows the components the
       * shaders wrote, as glReadPixels of the same surface does. */
      unsigned dst[4] = { 0, 1, 2, 3 };
      unsigned seen = 0;
      for (unsigned c = 0; c < 4; c++)
         seen |= im->swizzle[c] <= 3 ? 1u << im->swizzle[c] : 0;
      if (seen == 0xf) {
         for (unsigned c = 0; c < 4; c++)
            dst[c] = im->swizzle[c];
      }
      /* Show the stored sRGB bytes, not linearised values. */
      struct hw_tex_format fmt = im->fmt;
      fmt.srgb = false;
      for (uint32_t y = 0; y < h; y++) {
         for (uint32_t x = 0; x < w; x++) {
            float sum[4] = { 0 };
            const uint8_t *src = linear + y * pitch + (size_t)x * l->block_bytes;
            for (unsigned s = 0; s < im->samples; s++) {
               float v[4];
               texel_to_u8(&fmt, src + s * fmt.bytes, v);
               for (unsigned c = 0; c < 4; c++)
                  sum[c] += v[c];
            }
            for (unsigned c = 0; c < 4; c++)
               rgba[((size_t)y * w + x) * 4 + dst[c]] = (uint8_t)lrintf(sum[c] / im->samples);
         }
      }
   }
   free(image);
   free(linear);
   return ok;
}

static bool
read_zs(const struct replay_target *t, replay_read_fn read, void *ctx, uint8_t *rgba,
        char *err, size_t err_size)
{
   unsigned vb = t->kind == REPLAY_TARGET_STENCIL ? 1 : t->depth_unorm16 ? 2 : 4;
   const struct hw_tex_layout *l = &t->zs_layout;
   uint8_t *image = malloc(l->size);
   if (!image) {
      set_err(err, err_size, "out of memory");
      return false;
   }
   if (!read(ctx, t->base, image, l->size)) {
      set_err(err, err_size, "%s buffer at 0x%llx (%llu bytes) is not mapped",
              t->kind == REPLAY_TARGET_STENCIL ? "stencil" : "depth",
              (unsigned long long)t->base, (unsigned long long)l->size);
      free(image);
      return false;
   }
   for (uint32_t y = 0; y < t->height; y++) {
      for (uint32_t x = 0; x < t->width; x++) {
         const uint8_t *px = image + hw_tex_offset(l, x, y, 0, 0);
         float sum = 0;
         for (unsigned s = 0; s < t->samples; s++) {
            const uint8_t *p = px + (size_t)s * vb;
            if (vb == 1) {
               sum += p[0];
            } else if (vb == 2) {
               uint16_t v;
               memcpy(&v, p, 2);
               sum += unit_to_u8(v / 65535.0f);
            } else {
               float f;
               memcpy(&f, p, 4);
               sum += unit_to_u8(f);
            }
         }
         uint8_t g = (uint8_t)lrintf(sum / t->samples);
         uint8_t *o = rgba + ((size_t)y * t->width + x) * 4;
         o[0] = o[1] = o[2] = g;
         o[3] = 255;
      }
   }
   free(image);
   return true;
}

bool
replay_target_read_rgba8(const struct replay_target *t, uint32_t layer,
                         replay_read_fn read, void *ctx, uint8_t **rgba,
                         uint32_t *w, uint32_t *h, char *err, size_t err_size)
{
   *rgba = NULL;
   replay_target_size(t, w, h);
   if (!*w || !*h || (uint64_t)*w * *h > MAX_PIXELS || layer >= replay_target_layers(t)) {
      set_err(err, err_size, "render target of %ux%u pixels, layer %u: out of range",
              *w, *h, layer);
      return false;
   }
   uint8_t *px = malloc((size_t)*w * *h * 4);
   if (!px) {
      set_err(err, err_size, "out of memory for a %ux%u image", *w, *h);
      return false;
   }
   bool ok = t->kind == REPLAY_TARGET_COLOR
                ? read_colour(t, layer, read, ctx, px, err, err_size)
                : read_zs(t, read, ctx, px, err, err_size);
   if (!ok) {
      free(px);
      return false;
   }
   *rgba = px;
   return true;
}

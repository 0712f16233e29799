/* SPDX-License-Identifier: MIT */
/*
 * Background and end-of-tile programs.
 *
 * The tilebuffer is plain local memory: a pass starts every tile with a
 * background program that clears each render target to a uniform colour
 * or loads it from memory (texture_load at the pixel's position through
 * tessera_pack_rt_texture), and ends it with an end-of-tile program that
 * stores each render target (image_write_block through tessera_pack_pbe).
 * The partial variants run around partial renders (TVB overflow): partial
 * end-of-tile stores everything, partial background reloads everything,
 * so a frame that overflows is identical to one that does not (the
 * tilebuffer formats hold exactly what the render target formats hold).
 *
 * Programs are written as assembly, assembled with agx_isa_assemble and
 * cached per context by their text (which encodes formats, offsets and
 * clear/load choices); the USC word lists, uniforms and descriptors are
 * per batch.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util/hash_table.h"
#include "util/ralloc.h"
#include "util/u_math.h"
#include "util/format/u_format.h"

#include "cmdstream/agx_pack.h"
#include "cmdstream/isa/agx_isa.h"
#include "tessera_context.h"

static const char *
tib_memfmt(enum tc_tib_format f)
{
   switch (f) {
   case TC_TIB_U8NORM: return "u8norm";
   case TC_TIB_F16: return "f16";
   case TC_TIB_I32: return "i32";
   default: return NULL;
   }
}

/* USC offset of the code for `text`, assembled once per context. */
static uint32_t
program_code(struct tessera_context *ctx, const char *text)
{
   struct hash_entry *he = _mesa_hash_table_search(ctx->bgeot_cache, text);
   if (he)
      return (uint32_t)(uintptr_t)he->data;

   uint8_t code[4096];
   size_t len = 0;
   char err[256];
   if (!agx_isa_assemble(text, strlen(text), code, sizeof(code), &len, err, sizeof(err))) {
      fprintf(stderr, "tessera: internal error assembling a tile program: %s\n%s", err, text);
      return 0;
   }
   /* The USC prefetches past the end: pad so the tail is mapped. */
   memset(code + len, 0, MIN2(sizeof(code) - len, 64));
   uint64_t va = tessera_pool_upload(&ctx->program_pool, code, len + 64 <= sizeof(code) ?
                                     len + 64 : len, 64);
   if (!va)
      return 0;
   uint32_t off = tessera_usc_offset(ctx->screen, va);
   _mesa_hash_table_insert(ctx->bgeot_cache, ralloc_strdup(ctx->bgeot_cache, text),
                           (void *)(uintptr_t)off);
   return off;
}

/* A USC word list for a tile program: uniforms, textures, the tilebuffer
 * layout, code, registers. Returns its USC offset (64-byte aligned) or 0. */
static uint32_t
tile_pipeline(struct tessera_batch *b, uint32_t code, const uint32_t *uni,
              unsigned uni_words, uint64_t tex, unsigned ntex)
{
   struct tessera_context *ctx = b->ctx;
   uint8_t w[128];
   unsigned n = 0;
   if (!code)
      return 0;
   for (unsigned start = 0; start < uni_words; start += 32) {
      unsigned cnt = MIN2(32, uni_words - start);
      uint64_t va = tessera_pool_upload(&b->pool, uni + start, cnt * 4, 16);
      if (!va)
         return 0;
      agx_pack(w + n, USC_UNIFORM, u) {
         u.start_halfs = start * 2;
         u.size_halfs = cnt * 2;
         u.buffer = va;
      }
      n += AGX_USC_UNIFORM_LENGTH;
   }
   if (ntex) {
      agx_pack(w + n, USC_TEXTURE, t) {
         t.start = 0;
         t.count = ntex;
         t.buffer = tex;
      }
      n += AGX_USC_TEXTURE_LENGTH;
   }
   agx_pack(w + n, USC_SHARED, sh) {
      sh.uses_shared_memory = true;
      sh.layout = b->tib.tile_w == 16 ? AGX_SHARED_LAYOUT_16X16
                  : b->tib.tile_h == 16 ? AGX_SHARED_LAYOUT_32X16
                                        : AGX_SHARED_LAYOUT_32X32;
      sh.sample_count = b->tib.samples;
      sh.sample_stride_in_8_bytes = DIV_ROUND_UP(b->tib.sample_size, 8);
      sh.bytes_per_threadgroup = b->tib.sample_size * b->tib.samples * b->tib.tile_w *
                                 b->tib.tile_h;
   }
   n += AGX_USC_SHARED_LENGTH;
   agx_pack(w + n, USC_SHADER, sh) { sh.code = code; }
   n += AGX_USC_SHADER_LENGTH;
   agx_pack(w + n, USC_REGISTERS, rg) { rg.register_count = 16; }
   n += AGX_USC_REGISTERS_LENGTH;
   agx_pack(w + n, USC_NO_PRESHADER, np) { (void)np; }
   n += AGX_USC_NO_PRESHADER_LENGTH;
   uint64_t va = tessera_pool_upload(&b->low_pool, w, n, 64);
   return va ? tessera_usc_offset(ctx->screen, va) : 0;
}

static void
append(char *buf, size_t cap, size_t *len, const char *fmt, ...)
{
   va_list ap;
   va_start(ap, fmt);
   int n = vsnprintf(buf + *len, cap - *len, fmt, ap);
   va_end(ap);
   if (n > 0)
      *len = MIN2(*len + (size_t)n, cap - 1);
}

enum rt_action { RT_NONE, RT_CLEAR, RT_LOAD };

/* Background: clear or load each render target. */
static uint32_t
build_bg(struct tessera_batch *b, const enum rt_action *act)
{
   const struct pipe_framebuffer_state *fb = &b->fb;
   char text[4096];
   size_t len = 0;
   uint32_t uni[4 * PIPE_MAX_COLOR_BUFS];
   unsigned nuni = 0;
   uint8_t desc[PIPE_MAX_COLOR_BUFS][TESSERA_DESC_SIZE];
   unsigned ntex = 0;
   bool any = false, coords = false;

   memset(desc, 0, sizeof(desc));
   for (unsigned i = 0; i < fb->nr_cbufs; i++) {
      const char *mf = tib_memfmt(b->tib.format[i]);
      if (!mf || act[i] == RT_NONE)
         continue;
      struct pipe_surface *surf = fb->cbufs[i];
      any = true;
      if (act[i] == RT_CLEAR) {
         memcpy(&uni[nuni], b->clear_color[i].ui, 16);
         append(text, sizeof(text), &len,
                "mov r4, u%u\nmov r5, u%u\nmov r6, u%u\nmov r7, u%u\n",
                nuni, nuni + 1, nuni + 2, nuni + 3);
         nuni += 4;
      } else {
         if (!coords) {
            append(text, sizeof(text), &len, "get_sr r2, sr80\nget_sr r3, sr81\n");
            coords = true;
         }
         tessera_pack_rt_texture(tessera_resource(surf->texture), surf->format,
                                 surf->u.tex.level, surf->u.tex.first_layer, desc[i]);
         append(text, sizeof(text), &len,
                "texture_load 0, 0b0000, 0b0, none, xyzw, 0b00, r4_r5_r6_r7, None, "
                "ts%u, ss0, tex_2d, r2_r3, auto_lod, 0\nwait 0\n", i);
         ntex = i + 1;
      }
      append(text, sizeof(text), &len, "st_tile r4_r5_r6_r7, %s, 0, xyzw, %u, 255, 0\n",
             mf, b->tib.offset[i]);
   }
   if (!any)
      return 0;
   append(text, sizeof(text), &len, "stop\n");

   uint64_t tex = 0;
   if (ntex && !(tex = tessera_pool_upload(&b->pool, desc, ntex * TESSERA_DESC_SIZE, 64)))
      return 0;
   return tile_pipeline(b, program_code(b->ctx, text), uni, nuni, tex, ntex);
}

/* End of tile: store each render target. */
static uint32_t
build_eot(struct tessera_batch *b)
{
   const struct pipe_framebuffer_state *fb = &b->fb;
   char text[4096];
   size_t len = 0;
   uint8_t desc[PIPE_MAX_COLOR_BUFS][TESSERA_DESC_SIZE];
   unsigned ntex = 0;

   memset(desc, 0, sizeof(desc));
   append(text, sizeof(text), &len, "get_sr r2, sr80\nget_sr r3, sr81\n");
   for (unsigned i = 0; i < fb->nr_cbufs; i++) {
      const char *mf = tib_memfmt(b->tib.format[i]);
      if (!mf)
         continue;
      struct pipe_surface *surf = fb->cbufs[i];
      tessera_pack_pbe(tessera_resource(surf->texture), surf->format, surf->u.tex.level,
                       surf->u.tex.first_layer, desc[i]);
      append(text, sizeof(text), &len,
             "mov_imm r8l, %u\nimage_write_block r8l, r2_r3, 0, ts%u, tex_2d, rte, %s, 0, 0, 0\n",
             b->tib.offset[i], i, mf);
      ntex = i + 1;
   }
   if (!ntex)
      return 0;
   append(text, sizeof(text), &len, "stop\n");
   uint64_t tex = tessera_pool_upload(&b->pool, desc, ntex * TESSERA_DESC_SIZE, 64);
   if (!tex)
      return 0;
   return tile_pipeline(b, program_code(b->ctx, text), NULL, 0, tex, ntex);
}

bool
tessera_build_bgeot(struct tessera_batch *b, struct tessera_bgeot *out)
{
   enum rt_action act[PIPE_MAX_COLOR_BUFS], load[PIPE_MAX_COLOR_BUFS];
   bool have_rt = false;
   memset(out, 0, sizeof(*out));
   for (unsigned i = 0; i < b->fb.nr_cbufs; i++) {
      act[i] = load[i] = RT_NONE;
      if (!b->fb.cbufs[i] || b->tib.format[i] == TC_TIB_NONE)
         continue;
      have_rt = true;
      load[i] = RT_LOAD;
      if (b->clear & (PIPE_CLEAR_COLOR0 << i))
         act[i] = RT_CLEAR;
      else if (tessera_resource(b->fb.cbufs[i]->texture)->valid)
         act[i] = RT_LOAD;
   }
   if (!have_rt)
      return true;   /* depth/stencil only: the ZLS unit does it all */

   out->eot = build_eot(b);
   out->partial_eot = out->eot;
   out->partial_bg = build_bg(b, load);
   /* Nothing to clear or load: the tiles start as zeros (undefined in GL). */
   bool any = false;
   for (unsigned i = 0; i < b->fb.nr_cbufs; i++)
      any |= act[i] != RT_NONE;
   out->bg = any ? build_bg(b, act) : 0;
   if (!out->eot || !out->partial_bg || (any && !out->bg)) {
      fprintf(stderr, "tessera: cannot build the tile programs of a render pass\n");
      return false;
   }
   return true;
}

void
tessera_bgeot_fini(struct tessera_context *ctx)
{
   _mesa_hash_table_destroy(ctx->bgeot_cache, NULL);
   ctx->bgeot_cache = NULL;
}

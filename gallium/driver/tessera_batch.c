/* SPDX-License-Identifier: MIT */
/*
 * Batches: one render pass each, recorded into pools of GEM memory and
 * submitted as one drm_asahi_cmd_render. Also the hazard tracking the
 * resource code calls before CPU accesses.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <xf86drm.h>

#include "util/u_framebuffer.h"
#include "util/u_inlines.h"
#include "util/u_math.h"
#include "util/ralloc.h"
#include "util/format/u_format.h"

#include "cmdstream/agx_pack.h"
#include "cmdstream/agx_decode.h"
#include "tessera_context.h"

#define POOL_BO_SIZE (256 * 1024)
#define VDM_CHUNK    (64 * 1024)

/* ---------------------------------------------------------------- pools */

void
tessera_pool_init(struct tessera_pool *pool, struct tessera_screen *s, unsigned flags,
                  const char *label)
{
   memset(pool, 0, sizeof(*pool));
   pool->screen = s;
   pool->flags = flags;
   pool->label = label;
   util_dynarray_init(&pool->bos, NULL);
}

void
tessera_pool_fini(struct tessera_pool *pool)
{
   util_dynarray_foreach(&pool->bos, struct tessera_bo *, bo)
      tessera_bo_unreference(*bo);
   util_dynarray_fini(&pool->bos);
}

void
tessera_pool_reset(struct tessera_pool *pool)
{
   /* Keep the standard-sized BOs for reuse, drop oversized ones. */
   unsigned n = 0;
   util_dynarray_foreach(&pool->bos, struct tessera_bo *, bo) {
      if ((*bo)->size == POOL_BO_SIZE)
         *util_dynarray_element(&pool->bos, struct tessera_bo *, n++) = *bo;
      else
         tessera_bo_unreference(*bo);
   }
   pool->bos.size = n * sizeof(struct tessera_bo *);
   pool->current = 0;
   pool->offset = 0;
}

void *
tessera_pool_alloc(struct tessera_pool *pool, size_t size, unsigned align, uint64_t *va)
{
   unsigned count = util_dynarray_num_elements(&pool->bos, struct tessera_bo *);
   while (pool->current < count) {
      struct tessera_bo *bo = *util_dynarray_element(&pool->bos, struct tessera_bo *,
                                                    pool->current);
      uint64_t off = align64(pool->offset, align);
      if (off + size <= bo->size) {
         uint8_t *map = tessera_bo_map(bo);
         if (!map)
            return NULL;
         pool->offset = off + size;
         *va = bo->va + off;
         return map + off;
      }
      pool->current++;
      pool->offset = 0;
   }
   uint64_t bo_size = size > POOL_BO_SIZE ? align64(size, 4096) : POOL_BO_SIZE;
   struct tessera_bo *bo = tessera_bo_create(pool->screen, bo_size, pool->flags, pool->label);
   if (!bo)
      return NULL;
   uint8_t *map = tessera_bo_map(bo);
   if (!map) {
      tessera_bo_unreference(bo);
      return NULL;
   }
   util_dynarray_append(&pool->bos, struct tessera_bo *, bo);
   pool->current = count;
   /* USC offset 0 means "no program": never hand out the heap's base. */
   uint64_t start = bo->va == pool->screen->usc_base ? align64(64, align) : 0;
   if (start + size > bo->size)
      start = 0;
   pool->offset = start + size;
   *va = bo->va + start;
   return map + start;
}

uint64_t
tessera_pool_upload(struct tessera_pool *pool, const void *data, size_t size, unsigned align)
{
   uint64_t va = 0;
   void *map = tessera_pool_alloc(pool, size ? size : 4, align, &va);
   if (!map)
      return 0;
   if (size)
      memcpy(map, data, size);
   return va;
}

/* --------------------------------------------------------- tilebuffer */

void
tessera_tib_layout(const struct pipe_framebuffer_state *fb, struct tessera_tib *tib)
{
   memset(tib, 0, sizeof(*tib));
   unsigned off = 0;
   for (unsigned i = 0; i < fb->nr_cbufs; i++) {
      if (!fb->cbufs[i])
         continue;
      enum tc_tib_format f = tc_tib_format_for(fb->cbufs[i]->format);
      unsigned size = tc_tib_format_size(f);
      if (f == TC_TIB_NONE || !size)
         continue;
      /* Natural alignment of the widest channel keeps loads simple. */
      unsigned al = size >= 16 ? 4 : size >= 8 ? 4 : size >= 4 ? 4 : size;
      off = align(off, al);
      tib->format[i] = f;
      tib->offset[i] = off;
      off += size;
   }
   tib->sample_size = MAX2(align(off, 4), 4);
   tib->samples = MAX2(fb->samples, 1);
   unsigned px = tib->sample_size * tib->samples;
   /* The largest tile whose tilebuffer fits the 32 KiB of local memory. */
   if (px * 32 * 32 <= 32767) {
      tib->tile_w = 32; tib->tile_h = 32;
   } else if (px * 32 * 16 <= 32767) {
      tib->tile_w = 32; tib->tile_h = 16;
   } else {
      tib->tile_w = 16; tib->tile_h = 16;
   }
}

/* ------------------------------------------------------------ batches */

static void
batch_track(struct tessera_batch *batch, struct tessera_resource *r)
{
   uint32_t bit = 1u << batch->slot;
   if ((r->reader_mask & bit) || r->writer == batch)
      return;
   struct pipe_resource *ref = NULL;
   pipe_resource_reference(&ref, &r->base);
   util_dynarray_append(&batch->resources, struct pipe_resource *, ref);
}

void
tessera_batch_reads(struct tessera_batch *batch, struct pipe_resource *prsc)
{
   if (!prsc)
      return;
   struct tessera_resource *r = tessera_resource(prsc);
   batch_track(batch, r);
   r->reader_mask |= 1u << batch->slot;
   if (r->separate_stencil)
      tessera_batch_reads(batch, &r->separate_stencil->base);
}

void
tessera_batch_writes(struct tessera_batch *batch, struct pipe_resource *prsc)
{
   if (!prsc)
      return;
   struct tessera_resource *r = tessera_resource(prsc);
   /* Created GPU-read-only (no render-target / depth bind: see
    * bo_flags_for) but rendered to after all: bind it writable first. A
    * failed rebind makes the GPU write fault, reported with the batch. */
   tessera_bo_make_writable(r->bo);
   batch_track(batch, r);
   r->reader_mask |= 1u << batch->slot;
   r->writer = batch;
   if (r->separate_stencil)
      tessera_batch_writes(batch, &r->separate_stencil->base);
}

/* Drops the batch's resources and memory; the GPU is done with it. */
static void
batch_retire(struct tessera_batch *batch)
{
   uint32_t bit = 1u << batch->slot;
   util_dynarray_foreach(&batch->resources, struct pipe_resource *, p) {
      struct tessera_resource *r = tessera_resource(*p);
      if (r->writer == batch)
         r->writer = NULL;
      r->reader_mask &= ~bit;
      pipe_resource_reference(p, NULL);
   }
   util_dynarray_clear(&batch->resources);
   tessera_query_batch_retired(batch);
   util_unreference_framebuffer_state(&batch->fb);
   tessera_pool_reset(&batch->pool);
   tessera_pool_reset(&batch->low_pool);
   tessera_pool_reset(&batch->gpu_pool);
   batch->state = TESSERA_BATCH_FREE;
   if (batch->ctx->batch == batch)
      batch->ctx->batch = NULL;
}

void
tessera_batch_wait(struct tessera_batch *batch)
{
   if (batch->state == TESSERA_BATCH_ACTIVE)
      tessera_batch_flush(batch, "wait");
   if (batch->state != TESSERA_BATCH_SUBMITTED)
      return;
   struct tessera_screen *s = batch->ctx->screen;
   int ret = drmSyncobjWait(s->fd, &batch->syncobj, 1, INT64_MAX, 0, NULL);
   if (ret)
      fprintf(stderr, "tessera: waiting for batch %" PRIu64 ": %s\n", batch->seqno,
              strerror(errno));
   batch_retire(batch);
}

/* Retires submitted batches that are done, without waiting. */
static void
batches_poll(struct tessera_context *ctx)
{
   for (unsigned i = 0; i < TESSERA_MAX_BATCHES; i++) {
      struct tessera_batch *b = ctx->batches[i];
      if (b && b->state == TESSERA_BATCH_SUBMITTED &&
          drmSyncobjWait(ctx->screen->fd, &b->syncobj, 1, 0, 0, NULL) == 0)
         batch_retire(b);
   }
}

static struct tessera_batch *
batch_slot(struct tessera_context *ctx)
{
   batches_poll(ctx);
   for (unsigned i = 0; i < TESSERA_MAX_BATCHES; i++) {
      struct tessera_batch *b = ctx->batches[i];
      if (!b) {
         b = rzalloc(NULL, struct tessera_batch);
         if (!b)
            return NULL;
         b->ctx = ctx;
         b->slot = i;
         if (drmSyncobjCreate(ctx->screen->fd, 0, &b->syncobj)) {
            fprintf(stderr, "tessera: SYNCOBJ_CREATE: %s\n", strerror(errno));
            ralloc_free(b);
            return NULL;
         }
         /* The GPU only reads what the CPU encodes (control streams,
          * PPP state, uniforms, descriptors, USC words, scissor and
          * depth-bias tables); what it writes (occlusion counters) has a
          * pool of its own. Timestamps are in the query BO, the TVB is
          * the kernel's. */
         tessera_pool_init(&b->pool, ctx->screen, TESSERA_BO_GPU_READONLY, "batch");
         tessera_pool_init(&b->low_pool, ctx->screen,
                           TESSERA_BO_LOW_VA | TESSERA_BO_GPU_READONLY, "batch usc");
         tessera_pool_init(&b->gpu_pool, ctx->screen, 0, "batch results");
         util_dynarray_init(&b->scissor, b);
         util_dynarray_init(&b->depth_bias, b);
         util_dynarray_init(&b->resources, b);
         util_dynarray_init(&b->occlusion, b);
         util_dynarray_init(&b->timers, b);
         ctx->batches[i] = b;
         return b;
      }
      if (b->state == TESSERA_BATCH_FREE)
         return b;
   }
   /* All in flight: wait for the oldest. */
   struct tessera_batch *oldest = NULL;
   for (unsigned i = 0; i < TESSERA_MAX_BATCHES; i++) {
      struct tessera_batch *b = ctx->batches[i];
      if (b->state == TESSERA_BATCH_SUBMITTED && (!oldest || b->seqno < oldest->seqno))
         oldest = b;
   }
   if (!oldest)
      return NULL;
   tessera_perf(ctx, "all %u batch slots in flight: waiting for the oldest\n",
                TESSERA_MAX_BATCHES);
   tessera_batch_wait(oldest);
   return oldest;
}

static bool
batch_vdm_chunk(struct tessera_batch *batch)
{
   uint64_t va;
   uint8_t *map = tessera_pool_alloc(&batch->pool, VDM_CHUNK, 64, &va);
   if (!map)
      return false;
   if (batch->vdm_map) {
      agx_pack(batch->vdm_map + batch->vdm_len, VDM_STREAM_LINK, l) {
         l.target_hi = (uint32_t)(va >> 32);
         l.target_lo = (uint32_t)va;
      }
   } else {
      batch->vdm_head = va;
   }
   batch->vdm_map = map;
   batch->vdm_va = va;
   batch->vdm_len = 0;
   /* Room for a link or terminate is always kept at the end. */
   batch->vdm_cap = VDM_CHUNK - AGX_VDM_STREAM_LINK_LENGTH;
   return true;
}

void *
tessera_batch_vdm_reserve(struct tessera_batch *batch, unsigned size)
{
   assert(size <= VDM_CHUNK / 2);
   if (batch->vdm_len + size > batch->vdm_cap && !batch_vdm_chunk(batch))
      return NULL;
   return batch->vdm_map + batch->vdm_len;
}

void
tessera_batch_vdm_advance(struct tessera_batch *batch, unsigned size)
{
   batch->vdm_len += size;
}

struct tessera_batch *
tessera_get_batch(struct tessera_context *ctx)
{
   const struct pipe_framebuffer_state *fb = &ctx->state->fb;
   if (ctx->batch) {
      if (util_framebuffer_state_equal(&ctx->batch->fb, fb))
         return ctx->batch;
      tessera_batch_flush(ctx->batch, "framebuffer change");
   }
   if (!fb->width || !fb->height)
      return NULL;

   struct tessera_batch *b = batch_slot(ctx);
   if (!b) {
      fprintf(stderr, "tessera: no batch slot available\n");
      return NULL;
   }
   b->state = TESSERA_BATCH_ACTIVE;
   b->seqno = ++ctx->seqno;
   util_copy_framebuffer_state(&b->fb, fb);
   tessera_tib_layout(fb, &b->tib);
   b->width = fb->width;
   b->height = fb->height;
   b->vdm_map = NULL;
   b->vdm_len = b->vdm_cap = 0;
   b->vdm_head = 0;
   util_dynarray_clear(&b->scissor);
   util_dynarray_clear(&b->depth_bias);
   util_dynarray_clear(&b->occlusion);
   b->oq_counters = NULL;
   util_dynarray_clear(&b->timers);
   b->timestamped = false;
   b->clear = 0;
   b->draws = 0;
   b->vertices = 0;
   b->clear_depth = 1.0;
   b->clear_stencil = 0;
   ctx->batch = b;
   if (!batch_vdm_chunk(b)) {
      fprintf(stderr, "tessera: out of memory for a control stream\n");
      batch_retire(b);
      return NULL;
   }
   /* Every attachment is stored by the end-of-tile program / ZLS. */
   for (unsigned i = 0; i < fb->nr_cbufs; i++)
      if (fb->cbufs[i])
         tessera_batch_writes(b, fb->cbufs[i]->texture);
   if (fb->zsbuf)
      tessera_batch_writes(b, fb->zsbuf->texture);
   return b;
}

/* ---------------------------------------------------------- submission */

struct trace_ctx {
   struct tessera_batch *batch;
};

static bool
bo_read(struct tessera_bo *bo, uint64_t va, void *dst, size_t size, size_t *got)
{
   if (va < bo->va || va >= bo->va + bo->size)
      return false;
   uint8_t *map = tessera_bo_map(bo);
   if (!map)
      return false;
   size_t n = MIN2(size, bo->va + bo->size - va);
   memcpy(dst, map + (va - bo->va), n);
   *got = n;
   return true;
}

static size_t
trace_read(void *data, uint64_t va, void *dst, size_t size)
{
   struct trace_ctx *t = data;
   struct tessera_batch *b = t->batch;
   struct tessera_context *ctx = b->ctx;
   size_t got = 0;
   struct util_dynarray *lists[] = { &b->pool.bos, &b->low_pool.bos, &b->gpu_pool.bos,
                                     &ctx->program_pool.bos, &ctx->shader_bos };
   for (unsigned l = 0; l < ARRAY_SIZE(lists); l++)
      util_dynarray_foreach(lists[l], struct tessera_bo *, bo)
         if (bo_read(*bo, va, dst, size, &got))
            return got;
   util_dynarray_foreach(&b->resources, struct pipe_resource *, p)
      if (bo_read(tessera_resource(*p)->bo, va, dst, size, &got))
         return got;
   return 0;
}

static void
batch_trace(struct tessera_batch *b, const struct drm_asahi_cmd_render *cmd)
{
   struct trace_ctx t = { b };
   struct agx_decode_options o = {
      .read = trace_read, .read_ctx = &t, .usc_base = b->ctx->screen->usc_base,
   };
   fprintf(stderr, "tessera trace: render %" PRIu64 ": %ux%u, tile %ux%u, %u samples, "
           "%u bytes/sample, %u draws, clear 0x%x, zls 0x%" PRIx64 "\n",
           b->seqno, cmd->width_px, cmd->height_px, cmd->utile_width_px,
           cmd->utile_height_px, cmd->samples, cmd->sample_size_B, b->draws, b->clear,
           (uint64_t)cmd->zls_ctrl);
   const struct { const char *name; uint32_t usc; } progs[] = {
      { "bg", cmd->bg.usc }, { "eot", cmd->eot.usc },
      { "partial bg", cmd->partial_bg.usc }, { "partial eot", cmd->partial_eot.usc },
   };
   for (unsigned i = 0; i < ARRAY_SIZE(progs); i++) {
      fprintf(stderr, "-- %s program:\n", progs[i].name);
      agx_decode_pipeline(stderr, &o, progs[i].usc, NULL);
   }
   fprintf(stderr, "-- VDM stream:\n");
   agx_decode_stream(stderr, &o, AGX_DECODE_VDM, cmd->vdm_ctrl_stream_base, NULL);
}

static bool
batch_submit(struct tessera_batch *b)
{
   struct tessera_context *ctx = b->ctx;
   struct tessera_screen *s = ctx->screen;
   struct drm_asahi_cmd_render cmd;
   memset(&cmd, 0, sizeof(cmd));

   /* End the stream (room is always reserved). */
   agx_pack(b->vdm_map + b->vdm_len, VDM_STREAM_TERMINATE, t) { (void)t; }

   struct tessera_bgeot prog;
   if (!tessera_build_bgeot(b, &prog))
      return false;

   /* Empty tiles still run bg/eot (clears). Depth-bias constants are GL
    * units: steps of the depth format (DBIAS_IS_INT). */
   cmd.flags = DRM_ASAHI_RENDER_PROCESS_EMPTY_TILES | DRM_ASAHI_RENDER_DBIAS_IS_INT;
   cmd.vdm_ctrl_stream_base = b->vdm_head;
   if (b->scissor.size)
      cmd.isp_scissor_base = tessera_pool_upload(&b->pool, b->scissor.data, b->scissor.size, 64);
   if (b->depth_bias.size)
      cmd.isp_dbias_base = tessera_pool_upload(&b->pool, b->depth_bias.data,
                                               b->depth_bias.size, 64);
   unsigned noq = util_dynarray_num_elements(&b->occlusion, struct tessera_query *);
   if (noq) {
      uint64_t va;
      uint64_t *counters = tessera_pool_alloc(&b->gpu_pool, noq * 8, 64, &va);
      if (!counters)
         return false;
      memset(counters, 0, noq * 8);
      b->oq_counters = counters;
      cmd.isp_oclqry_base = va;
   }
   cmd.width_px = b->width;
   cmd.height_px = b->height;
   cmd.layers = 1;
   cmd.utile_width_px = b->tib.tile_w;
   cmd.utile_height_px = b->tib.tile_h;
   cmd.samples = b->tib.samples;
   cmd.sample_size_B = b->tib.sample_size;
   cmd.isp_merge_upper_x = fui(tanf(M_PI / 3) * b->width);
   cmd.isp_merge_upper_y = fui(tanf(M_PI / 3) * b->height);
   cmd.bg.usc = prog.bg;
   cmd.eot.usc = prog.eot;
   cmd.partial_bg.usc = prog.partial_bg;
   cmd.partial_eot.usc = prog.partial_eot;
   tessera_query_batch_submit(b, &cmd);

   /* Depth and stencil through the ZLS unit: load what is valid and not
    * cleared, store whatever is bound. */
   struct pipe_surface *zs = b->fb.zsbuf;
   cmd.isp_bgobjdepth = fui((float)b->clear_depth);
   cmd.isp_bgobjvals = b->clear_stencil & 0xff;
   if (zs) {
      struct tessera_resource *r = tessera_resource(zs->texture);
      unsigned level = zs->u.tex.level, layer = zs->u.tex.first_layer;
      const struct util_format_description *d = util_format_description(zs->format);
      bool has_z = util_format_has_depth(d);
      bool has_s = util_format_has_stencil(d);
      struct tessera_resource *sr = r->separate_stencil;
      if (!has_z && has_s && !sr)
         sr = r;   /* a stencil-only resource */
      bool z16 = r->internal_format == PIPE_FORMAT_Z16_UNORM;
      uint64_t zls = 0;
      struct agx_zls_control zc;
      memset(&zc, 0, sizeof(zc));
      if (has_z) {
         cmd.depth.base = tessera_resource_va(r, level, layer);
         cmd.depth.stride = r->layer_stride;
         zc.z_format = z16 ? AGX_ZLS_FORMAT_16 : AGX_ZLS_FORMAT_32F;
         zc.z_store_enable = true;
         zc.z_load_enable = !(b->clear & PIPE_CLEAR_DEPTH) && r->valid;
         /* The clear value is in the ZLS format: a unorm16 value for Z16,
          * as Mesa's asahi drivers program the hardware (docs/rendering.md). */
         if (z16) {
            double c = b->clear_depth < 0 ? 0 : b->clear_depth > 1 ? 1 : b->clear_depth;
            cmd.isp_bgobjdepth = (uint32_t)(c * 65535.0 + 0.5);
         }
      }
      if (has_s && sr) {
         cmd.stencil.base = tessera_resource_va(sr, level, layer);
         cmd.stencil.stride = sr->layer_stride;
         zc.s_store_enable = true;
         zc.s_load_enable = !(b->clear & PIPE_CLEAR_STENCIL) && sr->valid;
      }
      agx_zls_control_pack(&zls, &zc);
      cmd.zls_ctrl = zls;
      /* The ZLS images' size (both planes share it): the ZLS unit
       * addresses the twiddled images from it. A level of a mip chain is
       * laid out as a single-level image of its own size (the chain's
       * tile sizes follow each level's size, cmdstream/agx_image_layout.c),
       * at the level's offset. */
      cmd.isp_zls_pixels = ((u_minify(zs->texture->width0, level) - 1) & 0x7fff) |
                           (((u_minify(zs->texture->height0, level) - 1) & 0x7fff) << 15);
   }

   /* Attachments: the memory the pass writes (a hint to the firmware). */
   struct drm_asahi_attachment att[PIPE_MAX_COLOR_BUFS + 2];
   unsigned natt = 0;
   for (unsigned i = 0; i < b->fb.nr_cbufs; i++) {
      if (!b->fb.cbufs[i])
         continue;
      struct tessera_resource *r = tessera_resource(b->fb.cbufs[i]->texture);
      att[natt++] = (struct drm_asahi_attachment){ .pointer = r->bo->va, .size = r->bo->size };
   }
   if (cmd.depth.base) {
      struct tessera_resource *r = tessera_resource(zs->texture);
      att[natt++] = (struct drm_asahi_attachment){ .pointer = r->bo->va, .size = r->bo->size };
   }
   if (cmd.stencil.base) {
      struct tessera_resource *r = tessera_resource(zs->texture);
      if (r->separate_stencil)
         r = r->separate_stencil;
      att[natt++] = (struct drm_asahi_attachment){ .pointer = r->bo->va, .size = r->bo->size };
   }
   if (natt > s->params.max_attachments)
      natt = 0;

   uint8_t buf[2 * sizeof(struct drm_asahi_cmd_header) + sizeof(att) + sizeof(cmd)];
   unsigned len = 0;
   if (natt) {
      struct drm_asahi_cmd_header h = {
         .cmd_type = DRM_ASAHI_SET_FRAGMENT_ATTACHMENTS,
         .size = natt * sizeof(att[0]),
         .vdm_barrier = DRM_ASAHI_BARRIER_NONE, .cdm_barrier = DRM_ASAHI_BARRIER_NONE,
      };
      memcpy(buf, &h, sizeof(h));
      memcpy(buf + sizeof(h), att, natt * sizeof(att[0]));
      len = sizeof(h) + natt * sizeof(att[0]);
   }
   struct drm_asahi_cmd_header h = {
      .cmd_type = DRM_ASAHI_CMD_RENDER, .size = sizeof(cmd),
      .vdm_barrier = 0, .cdm_barrier = 0,
   };
   memcpy(buf + len, &h, sizeof(h));
   memcpy(buf + len + sizeof(h), &cmd, sizeof(cmd));
   len += sizeof(h) + sizeof(cmd);

   if (s->debug & TESSERA_DBG_TRACE)
      batch_trace(b, &cmd);

   /* Signal the batch's syncobj and the context's "last submission". */
   struct drm_asahi_sync out[2] = {
      { .sync_type = DRM_ASAHI_SYNC_SYNCOBJ, .handle = b->syncobj },
      { .sync_type = DRM_ASAHI_SYNC_SYNCOBJ, .handle = ctx->syncobj },
   };
   struct drm_asahi_submit sub = {
      .syncs = (uintptr_t)out, .cmdbuf = (uintptr_t)buf, .queue_id = ctx->queue_id,
      .out_sync_count = 2, .cmdbuf_size = len,
   };
   if (drmIoctl(s->fd, DRM_IOCTL_ASAHI_SUBMIT, &sub)) {
      fprintf(stderr, "tessera: SUBMIT of render %" PRIu64 " failed: %s\n", b->seqno,
              strerror(errno));
      return false;
   }
   ctx->submitted++;
   return true;
}

void
tessera_batch_flush(struct tessera_batch *b, const char *reason)
{
   if (b->state != TESSERA_BATCH_ACTIVE)
      return;
   struct tessera_context *ctx = b->ctx;
   if (ctx->screen->debug & TESSERA_DBG_FLUSH)
      fprintf(stderr, "tessera flush: render %" PRIu64 " (%ux%u, %u draws, clear 0x%x): %s\n",
              b->seqno, b->width, b->height, b->draws, b->clear, reason);
   if (ctx->batch == b)
      ctx->batch = NULL;

   if (!b->draws && !b->clear) {
      /* Nothing to render: the attachments keep their contents. */
      batch_retire(b);
      return;
   }
   bool ok = batch_submit(b);
   if (!ok) {
      batch_retire(b);
      return;
   }
   /* The attachments now hold defined contents. */
   for (unsigned i = 0; i < b->fb.nr_cbufs; i++)
      if (b->fb.cbufs[i])
         tessera_resource(b->fb.cbufs[i]->texture)->valid = true;
   if (b->fb.zsbuf) {
      struct tessera_resource *r = tessera_resource(b->fb.zsbuf->texture);
      r->valid = true;
      if (r->separate_stencil)
         r->separate_stencil->valid = true;
   }
   b->state = TESSERA_BATCH_SUBMITTED;
   if (ctx->screen->debug & (TESSERA_DBG_SYNC | TESSERA_DBG_TRACE))
      tessera_batch_wait(b);
}

void
tessera_flush_all(struct tessera_context *ctx, const char *reason)
{
   if (ctx->batch)
      tessera_batch_flush(ctx->batch, reason);
}

void
tessera_batches_fini(struct tessera_context *ctx)
{
   tessera_flush_all(ctx, "context destroyed");
   for (unsigned i = 0; i < TESSERA_MAX_BATCHES; i++) {
      struct tessera_batch *b = ctx->batches[i];
      if (!b)
         continue;
      tessera_batch_wait(b);
      tessera_pool_fini(&b->pool);
      tessera_pool_fini(&b->low_pool);
      tessera_pool_fini(&b->gpu_pool);
      drmSyncobjDestroy(ctx->screen->fd, b->syncobj);
      ralloc_free(b);
      ctx->batches[i] = NULL;
   }
   tessera_query_fini(ctx);
}

/* --------------------------------------------------------------- hazards */

void
tessera_flush_writer(struct tessera_context *ctx, struct tessera_resource *r,
                     const char *reason)
{
   struct tessera_resource *rs[2] = { r, r->separate_stencil };
   for (unsigned k = 0; k < 2; k++) {
      if (!rs[k] || !rs[k]->writer)
         continue;
      struct tessera_batch *b = rs[k]->writer;
      if (b->state == TESSERA_BATCH_ACTIVE) {
         if (b->ctx != ctx)
            continue;   /* another context's pass: its own flush orders it */
         tessera_batch_flush(b, reason);
      }
      if (b->state == TESSERA_BATCH_SUBMITTED) {
         tessera_perf(ctx, "waiting for render %" PRIu64 ": %s\n", b->seqno, reason);
         tessera_batch_wait(b);
      }
   }
}

void
tessera_flush_readers_and_writer(struct tessera_context *ctx, struct tessera_resource *r,
                                 const char *reason)
{
   tessera_flush_writer(ctx, r, reason);
   struct tessera_resource *rs[2] = { r, r->separate_stencil };
   for (unsigned k = 0; k < 2; k++) {
      if (!rs[k])
         continue;
      u_foreach_bit(slot, rs[k]->reader_mask) {
         struct tessera_batch *b = ctx->batches[slot];
         if (!b || b->state == TESSERA_BATCH_FREE)
            continue;
         if (b->state == TESSERA_BATCH_ACTIVE)
            tessera_batch_flush(b, reason);
         if (b->state == TESSERA_BATCH_SUBMITTED) {
            tessera_perf(ctx, "waiting for render %" PRIu64 ": %s\n", b->seqno, reason);
            tessera_batch_wait(b);
         }
      }
   }
}

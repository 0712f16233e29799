/* SPDX-License-Identifier: MIT */
/*
 * Context creation and destruction, the queue, flushes and fences.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <xf86drm.h>

#include "indices/u_primconvert.h"
#include "util/u_blitter.h"
#include "util/hash_table.h"
#include "util/ralloc.h"
#include "util/u_inlines.h"
#include "util/u_memory.h"
#include "util/u_upload_mgr.h"

#include "tessera_context.h"
#include "tessera_fence.h"

static void
tessera_flush(struct pipe_context *pctx, struct pipe_fence_handle **fence, unsigned flags)
{
   struct tessera_context *ctx = tessera_context(pctx);
   tessera_flush_all(ctx, (flags & PIPE_FLUSH_END_OF_FRAME) ? "end of frame" : "flush");
   if (fence)
      *fence = tessera_fence_create(ctx->screen, ctx->syncobj);
}

static void
tessera_texture_barrier(struct pipe_context *pctx, unsigned flags)
{
   tessera_flush_all(tessera_context(pctx), "texture barrier");
}

static void
tessera_memory_barrier(struct pipe_context *pctx, unsigned flags)
{
   /* Only render passes exist; the queue orders them. Buffers the CPU
    * maps are waited for at map time. */
   (void)pctx;
   (void)flags;
}

static void
tessera_set_debug_callback(struct pipe_context *pctx, const struct util_debug_callback *cb)
{
   (void)pctx;
   (void)cb;
}

static void
tessera_context_destroy(struct pipe_context *pctx)
{
   struct tessera_context *ctx = tessera_context(pctx);
   struct tessera_screen *s = ctx->screen;

   tessera_batches_fini(ctx);
   if (ctx->primconvert)
      util_primconvert_destroy(ctx->primconvert);
   if (ctx->blitter)
      util_blitter_destroy(ctx->blitter);
   if (pctx->stream_uploader)
      u_upload_destroy(pctx->stream_uploader);
   if (pctx->const_uploader && pctx->const_uploader != pctx->stream_uploader)
      u_upload_destroy(pctx->const_uploader);
   tessera_cleanup_state(ctx);
   if (ctx->bgeot_cache)
      tessera_bgeot_fini(ctx);
   tessera_pool_fini(&ctx->program_pool);
   util_dynarray_foreach(&ctx->shader_bos, struct tessera_bo *, bo)
      tessera_bo_unreference(*bo);
   util_dynarray_fini(&ctx->shader_bos);
   if (ctx->queue_id) {
      struct drm_asahi_queue_destroy qd = { .queue_id = ctx->queue_id };
      drmIoctl(s->fd, DRM_IOCTL_ASAHI_QUEUE_DESTROY, &qd);
   }
   if (ctx->syncobj)
      drmSyncobjDestroy(s->fd, ctx->syncobj);
   ralloc_free(ctx);
}

struct pipe_context *
tessera_context_create(struct pipe_screen *pscreen, void *priv, unsigned flags)
{
   struct tessera_screen *s = tessera_screen(pscreen);
   struct tessera_context *ctx = rzalloc(NULL, struct tessera_context);
   if (!ctx)
      return NULL;
   struct pipe_context *pctx = &ctx->base;
   ctx->screen = s;
   pctx->screen = pscreen;
   pctx->priv = priv;
   util_dynarray_init(&ctx->shader_bos, NULL);
   /* bg/eot code and its USC words: fetched, never written, by the GPU. */
   tessera_pool_init(&ctx->program_pool, s, TESSERA_BO_LOW_VA | TESSERA_BO_GPU_READONLY,
                     "tile programs");

   /* The queue: its usc_exec_base is the USC heap, so every 32-bit USC
    * offset the driver writes is relative to screen->usc_base. */
   struct drm_asahi_queue_create qc = {
      .vm_id = s->vm_id,
      .priority = DRM_ASAHI_PRIORITY_MEDIUM,
      .usc_exec_base = s->usc_base,
   };
   if (drmIoctl(s->fd, DRM_IOCTL_ASAHI_QUEUE_CREATE, &qc)) {
      fprintf(stderr, "tessera: QUEUE_CREATE failed: %s\n", strerror(errno));
      ralloc_free(ctx);
      return NULL;
   }
   ctx->queue_id = qc.queue_id;
   if (drmSyncobjCreate(s->fd, 0, &ctx->syncobj)) {
      fprintf(stderr, "tessera: SYNCOBJ_CREATE failed: %s\n", strerror(errno));
      ctx->syncobj = 0;
      tessera_context_destroy(pctx);
      return NULL;
   }

   ctx->bgeot_cache = _mesa_hash_table_create(NULL, _mesa_hash_string,
                                              _mesa_key_string_equal);
   ctx->state = rzalloc(ctx, struct tessera_context_state);
   if (!ctx->bgeot_cache || !ctx->state) {
      tessera_context_destroy(pctx);
      return NULL;
   }
   ctx->state->sample_mask = ~0u;
   ctx->queries_active = true;

   pctx->destroy = tessera_context_destroy;
   pctx->flush = tessera_flush;
   pctx->texture_barrier = tessera_texture_barrier;
   pctx->memory_barrier = tessera_memory_barrier;
   pctx->set_debug_callback = tessera_set_debug_callback;

   tessera_init_context_resource_functions(pctx);
   tessera_init_state_functions(pctx);
   tessera_init_shader_functions(pctx);
   tessera_init_draw_functions(pctx);
   tessera_init_blit_functions(pctx);
   tessera_init_query_functions(pctx);

   pctx->stream_uploader = u_upload_create_default(pctx);
   if (!pctx->stream_uploader) {
      tessera_context_destroy(pctx);
      return NULL;
   }
   pctx->const_uploader = u_upload_create(pctx, 128 * 1024, PIPE_BIND_CONSTANT_BUFFER,
                                          PIPE_USAGE_STREAM, 0);
   if (!pctx->const_uploader) {
      tessera_context_destroy(pctx);
      return NULL;
   }
   return pctx;
}

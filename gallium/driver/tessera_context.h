/*
 * The tessera context: bound state, shaders and batches.
 *
 * A batch is one render pass (one framebuffer): a VDM control stream, the
 * PPP records, USC words and uniforms it points at, the BOs it uses, and
 * the clear/load/store decisions for its attachments. It becomes one
 * drm_asahi_cmd_render on flush: on framebuffer change, on a CPU access to
 * a resource it writes (tessera_flush_writer), on pipe->flush, and when a
 * later batch samples what it renders.
 */
#ifndef TESSERA_CONTEXT_H
#define TESSERA_CONTEXT_H

#include "pipe/p_context.h"
#include "pipe/p_state.h"
#include "util/u_upload_mgr.h"
#include "tessera_screen.h"
#include "tessera_resource.h"

#define TESSERA_MAX_BATCHES 8

struct tessera_batch;

struct tessera_context {
   struct pipe_context base;
   struct tessera_screen *screen;
   uint32_t queue_id;
   uint32_t syncobj;                  /* out-sync of the last submission */
   uint64_t submitted;                /* submissions so far */
   /* State, batches, shader variants: see tessera_state.c, tessera_batch.c. */
   struct tessera_context_state *state;
   struct tessera_batch *batches[TESSERA_MAX_BATCHES];
   struct tessera_batch *batch;       /* current, or NULL */
};

static inline struct tessera_context *
tessera_context(struct pipe_context *p)
{
   return (struct tessera_context *)p;
}

struct pipe_context *tessera_context_create(struct pipe_screen *screen, void *priv,
                                            unsigned flags);

/* Fences (tessera_fence.c): a syncobj signalled by a submission. */
void tessera_init_screen_fence_functions(struct pipe_screen *screen);

/* Submit everything pending and optionally wait. */
void tessera_flush_all(struct tessera_context *ctx, const char *reason);

#endif

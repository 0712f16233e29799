/* SPDX-License-Identifier: MIT */
/*
 * Queries. Occlusion queries count in the ISP: every draw while one is
 * active points its PPP record at a 64-bit counter of its batch's
 * occlusion array (ISP Oclqry Base; Visibility Mode counting or boolean),
 * and a batch adds its counters to the queries when it retires. A query
 * spanning several passes sums them. GPU_FINISHED is a flush.
 *
 * Timer queries use the GPU's own timestamps. Every render pass asks the
 * firmware for two of them (uAPI ts_vtx.start: before its vertex job
 * starts; ts_frag.end: after its fragment job went idle), written in
 * command_timestamp_frequency_hz ticks into one per-context object bound
 * with GEM_BIND_OBJECT(USAGE_TIMESTAMPS), two 64-bit slots per batch slot.
 * A TIME_ELAPSED query flushes the pass being recorded at begin and at end,
 * so exactly the passes submitted in between belong to it; it sums their
 * (end - start) when they retire. Gaps between passes (other queues' work)
 * are not counted. A TIMESTAMP query is the end of the newest pass this
 * context submitted before it, or GET_TIME's GPU time when there was none.
 * Results exist only once those passes' syncobjs signalled.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <xf86drm.h>

#include "util/u_inlines.h"
#include "util/u_memory.h"

#include "tessera_context.h"

struct tessera_query {
   unsigned type;
   uint64_t result;                   /* occlusion; GET_TIME ns (TIMESTAMP) */
   uint64_t ticks;                    /* timer queries: GPU ticks */
   bool from_ticks;                   /* TIMESTAMP: result is ticks */
   struct tessera_query *next_timer;  /* ctx->active_timers list */
};

static bool
is_timer(unsigned type)
{
   return type == PIPE_QUERY_TIME_ELAPSED || type == PIPE_QUERY_TIMESTAMP;
}

static bool
is_occlusion(unsigned type)
{
   return type == PIPE_QUERY_OCCLUSION_COUNTER || type == PIPE_QUERY_OCCLUSION_PREDICATE ||
          type == PIPE_QUERY_OCCLUSION_PREDICATE_CONSERVATIVE;
}

static uint64_t
gpu_time_ns(struct tessera_context *ctx)
{
   struct drm_asahi_get_time t = { 0 };
   if (drmIoctl(ctx->screen->fd, DRM_IOCTL_ASAHI_GET_TIME, &t)) {
      fprintf(stderr, "tessera: GET_TIME failed: %s\n", strerror(errno));
      return 0;
   }
   return t.gpu_timestamp;
}

/* GPU ticks to ns, exactly as GET_TIME rounds (down), without overflow. */
static uint64_t
ticks_to_ns(const struct tessera_screen *s, uint64_t ticks)
{
   uint64_t f = s->params.command_timestamp_frequency_hz;
   if (!f)
      return 0;
   return ticks / f * 1000000000ull + ticks % f * 1000000000ull / f;
}

static void
unlink_timer(struct tessera_context *ctx, struct tessera_query *q)
{
   for (struct tessera_query **p = &ctx->active_timers; *p; p = &(*p)->next_timer) {
      if (*p == q) {
         *p = q->next_timer;
         break;
      }
   }
   q->next_timer = NULL;
}

static struct pipe_query *
tessera_create_query(struct pipe_context *pctx, unsigned type, unsigned index)
{
   switch (type) {
   case PIPE_QUERY_OCCLUSION_COUNTER:
   case PIPE_QUERY_OCCLUSION_PREDICATE:
   case PIPE_QUERY_OCCLUSION_PREDICATE_CONSERVATIVE:
   case PIPE_QUERY_GPU_FINISHED:
   case PIPE_QUERY_TIMESTAMP:
   case PIPE_QUERY_TIME_ELAPSED:
      break;
   default:
      fprintf(stderr, "tessera: query type %u is not supported\n", type);
      return NULL;
   }
   struct tessera_query *q = CALLOC_STRUCT(tessera_query);
   if (q)
      q->type = type;
   return (struct pipe_query *)q;
}

/* Batches whose counters or timestamps feed q. */
static bool
batch_counts(struct tessera_batch *b, struct tessera_query *q)
{
   if (!b || b->state == TESSERA_BATCH_FREE)
      return false;
   util_dynarray_foreach(&b->occlusion, struct tessera_query *, e)
      if (*e == q)
         return true;
   util_dynarray_foreach(&b->timers, struct tessera_query *, e)
      if (*e == q)
         return true;
   return false;
}

/* Submits the pass being recorded if it holds any work. */
static void
flush_current(struct tessera_context *ctx, const char *reason)
{
   if (ctx->batch && (ctx->batch->draws || ctx->batch->clear))
      tessera_batch_flush(ctx->batch, reason);
}

static void
tessera_destroy_query(struct pipe_context *pctx, struct pipe_query *pq)
{
   struct tessera_context *ctx = tessera_context(pctx);
   struct tessera_query *q = (struct tessera_query *)pq;
   if (ctx->occlusion_query == q)
      ctx->occlusion_query = NULL;
   unlink_timer(ctx, q);
   /* Retiring batches write into the query: let them finish first. */
   for (unsigned i = 0; i < TESSERA_MAX_BATCHES; i++)
      if (batch_counts(ctx->batches[i], q))
         tessera_batch_wait(ctx->batches[i]);
   FREE(q);
}

/* Forgets what a previous use of q collected: the batches still counting
 * into it retire first, so none adds to the new run. */
static void
query_reset(struct tessera_context *ctx, struct tessera_query *q)
{
   for (unsigned i = 0; i < TESSERA_MAX_BATCHES; i++)
      if (batch_counts(ctx->batches[i], q))
         tessera_batch_wait(ctx->batches[i]);
   q->result = 0;
   q->ticks = 0;
   q->from_ticks = false;
}

static bool
tessera_begin_query(struct pipe_context *pctx, struct pipe_query *pq)
{
   struct tessera_context *ctx = tessera_context(pctx);
   struct tessera_query *q = (struct tessera_query *)pq;
   /* A restarted query must not collect a previous run's passes. */
   query_reset(ctx, q);
   if (is_occlusion(q->type)) {
      ctx->occlusion_query = q;
   } else if (q->type == PIPE_QUERY_TIME_ELAPSED) {
      /* Work recorded before the query stays out of it. */
      flush_current(ctx, "TIME_ELAPSED query begins");
      unlink_timer(ctx, q);
      q->next_timer = ctx->active_timers;
      ctx->active_timers = q;
   }
   return true;
}

static bool
tessera_end_query(struct pipe_context *pctx, struct pipe_query *pq)
{
   struct tessera_context *ctx = tessera_context(pctx);
   struct tessera_query *q = (struct tessera_query *)pq;
   switch (q->type) {
   case PIPE_QUERY_GPU_FINISHED:
      tessera_flush_all(ctx, "GPU_FINISHED query");
      break;
   case PIPE_QUERY_TIMESTAMP: {
      /* A query counter has no begin: drop what a previous use collected. */
      query_reset(ctx, q);
      /* The time all previous work is done: the end of the newest pass. */
      flush_current(ctx, "TIMESTAMP query");
      struct tessera_batch *last = NULL;
      for (unsigned i = 0; i < TESSERA_MAX_BATCHES; i++) {
         struct tessera_batch *b = ctx->batches[i];
         if (b && b->state == TESSERA_BATCH_SUBMITTED && b->timestamped &&
             b->seqno == ctx->last_submit_seqno)
            last = b;
      }
      if (last) {
         util_dynarray_append(&last->timers, struct tessera_query *, q);
      } else if (ctx->last_end_ticks) {
         q->ticks = ctx->last_end_ticks;
         q->from_ticks = true;
      } else {
         /* Nothing of ours ran (or no timestamps): the GPU clock now. */
         q->result = gpu_time_ns(ctx);
      }
      break;
   }
   case PIPE_QUERY_TIME_ELAPSED:
      /* The work recorded inside the interval. */
      flush_current(ctx, "TIME_ELAPSED query ends");
      unlink_timer(ctx, q);
      break;
   default:
      if (ctx->occlusion_query == q)
         ctx->occlusion_query = NULL;
      break;
   }
   return true;
}

static bool
tessera_get_query_result(struct pipe_context *pctx, struct pipe_query *pq, bool wait,
                         union pipe_query_result *vresult)
{
   struct tessera_context *ctx = tessera_context(pctx);
   struct tessera_query *q = (struct tessera_query *)pq;

   if (q->type == PIPE_QUERY_GPU_FINISHED) {
      bool done = true;
      for (unsigned i = 0; i < TESSERA_MAX_BATCHES; i++) {
         struct tessera_batch *b = ctx->batches[i];
         if (!b || b->state != TESSERA_BATCH_SUBMITTED)
            continue;
         if (wait)
            tessera_batch_wait(b);
         else if (drmSyncobjWait(ctx->screen->fd, &b->syncobj, 1, 0, 0, NULL))
            done = false;
      }
      vresult->b = done;
      return true;
   }

   if (is_occlusion(q->type) || is_timer(q->type)) {
      for (unsigned i = 0; i < TESSERA_MAX_BATCHES; i++) {
         struct tessera_batch *b = ctx->batches[i];
         if (!batch_counts(b, q))
            continue;
         if (b->state == TESSERA_BATCH_ACTIVE)
            tessera_batch_flush(b, "query result");
         if (b->state != TESSERA_BATCH_SUBMITTED)
            continue;
         if (wait || drmSyncobjWait(ctx->screen->fd, &b->syncobj, 1, 0, 0, NULL) == 0)
            tessera_batch_wait(b);
         else
            return false;
      }
   }

   switch (q->type) {
   case PIPE_QUERY_OCCLUSION_PREDICATE:
   case PIPE_QUERY_OCCLUSION_PREDICATE_CONSERVATIVE:
      vresult->b = q->result != 0;
      break;
   case PIPE_QUERY_TIME_ELAPSED:
      vresult->u64 = ticks_to_ns(ctx->screen, q->ticks);
      break;
   case PIPE_QUERY_TIMESTAMP:
      vresult->u64 = q->from_ticks ? ticks_to_ns(ctx->screen, q->ticks) : q->result;
      break;
   default:
      vresult->u64 = q->result;
      break;
   }
   return true;
}

static void
tessera_set_active_query_state(struct pipe_context *pctx, bool enable)
{
   tessera_context(pctx)->queries_active = enable;
}

unsigned
tessera_query_batch_index(struct tessera_batch *batch, struct tessera_query *q)
{
   unsigned i = 0;
   util_dynarray_foreach(&batch->occlusion, struct tessera_query *, e) {
      if (*e == q)
         return i;
      i++;
   }
   util_dynarray_append(&batch->occlusion, struct tessera_query *, q);
   return i;
}

bool
tessera_query_counts_boolean(const struct tessera_query *q)
{
   return q->type != PIPE_QUERY_OCCLUSION_COUNTER;
}

void
tessera_query_batch_retired(struct tessera_batch *batch)
{
   unsigned i = 0;
   util_dynarray_foreach(&batch->occlusion, struct tessera_query *, e) {
      if (batch->oq_counters)
         (*e)->result += batch->oq_counters[i];
      i++;
   }
   util_dynarray_clear(&batch->occlusion);
   batch->oq_counters = NULL;

   struct tessera_context *ctx = batch->ctx;
   if (batch->timestamped) {
      const volatile uint64_t *ts = (uint64_t *)tessera_bo_map(ctx->ts_bo) + 2 * batch->slot;
      uint64_t start = ts[0], end = ts[1];
      /* The slot still holding what it held at submission means the
       * firmware did not write it (the GPU clock moves on, so a new pass
       * never ends at the tick an earlier one did); a batch that was not
       * submitted has none. */
      bool written = start != batch->ts_before[0] || end != batch->ts_before[1];
      bool valid = batch->state == TESSERA_BATCH_SUBMITTED && written && end >= start;
      if (!valid && batch->state == TESSERA_BATCH_SUBMITTED)
         fprintf(stderr, "tessera: render %" PRIu64 " has no GPU timestamps (%" PRIu64
                 ", %" PRIu64 ")\n", batch->seqno, start, end);
      if (valid) {
         util_dynarray_foreach(&batch->timers, struct tessera_query *, e) {
            if ((*e)->type == PIPE_QUERY_TIME_ELAPSED) {
               (*e)->ticks += end - start;
            } else {
               (*e)->ticks = end;
               (*e)->from_ticks = true;
            }
         }
         if (batch->seqno == ctx->last_submit_seqno)
            ctx->last_end_ticks = end;
      }
   }
   util_dynarray_clear(&batch->timers);
   batch->timestamped = false;
}

/* The context's timestamp object: created on first use; false (said
 * once) when the kernel does not give one. */
static bool
timestamps_init(struct tessera_context *ctx)
{
   if (ctx->ts_bo)
      return true;
   if (ctx->ts_failed)
      return false;
   struct tessera_screen *s = ctx->screen;
   ctx->ts_failed = true;
   if (!s->params.command_timestamp_frequency_hz) {
      fprintf(stderr, "tessera: the kernel reports no timestamp frequency\n");
      return false;
   }
   /* Only the firmware writes it (through the GEM_BIND_OBJECT below) and
    * only the CPU reads it, so the VM binding is read-only: a capture
    * layer then knows no shader writes it, and since the CPU never writes
    * it either (tessera_query_batch_submit), its CPU mapping takes no
    * write fault per submission under a write-protecting capture
    * (docs/capture.md). */
   struct tessera_bo *bo = tessera_bo_create(s, TESSERA_MAX_BATCHES * 16,
                                             TESSERA_BO_GPU_READONLY, "timestamps");
   if (!bo || !tessera_bo_map(bo)) {
      fprintf(stderr, "tessera: out of memory for the timestamp object\n");
      tessera_bo_unreference(bo);
      return false;
   }
   struct drm_asahi_gem_bind_object o = {
      .op = DRM_ASAHI_BIND_OBJECT_OP_BIND,
      .flags = DRM_ASAHI_BIND_OBJECT_USAGE_TIMESTAMPS,
      .handle = bo->handle,
      .offset = 0,
      .range = bo->size,
   };
   if (drmIoctl(s->fd, DRM_IOCTL_ASAHI_GEM_BIND_OBJECT, &o)) {
      fprintf(stderr, "tessera: GEM_BIND_OBJECT (timestamps) failed: %s\n",
              strerror(errno));
      tessera_bo_unreference(bo);
      return false;
   }
   ctx->ts_bo = bo;
   ctx->ts_object = o.object_handle;
   ctx->ts_failed = false;
   return true;
}

void
tessera_query_batch_submit(struct tessera_batch *batch, struct drm_asahi_cmd_render *cmd)
{
   struct tessera_context *ctx = batch->ctx;
   /* Two firmware ops per pass: cheap enough to stamp every pass, which
    * also gives TIMESTAMP queries the end of the newest one. */
   if (!timestamps_init(ctx))
      return;
   /* The slot is free (its last pass retired), so it holds that pass's
    * values until the firmware writes this one's. Remembered rather than
    * reset to a marker: the object stays CPU-read-only (timestamps_init). */
   const volatile uint64_t *ts = (uint64_t *)tessera_bo_map(ctx->ts_bo) + 2 * batch->slot;
   batch->ts_before[0] = ts[0];
   batch->ts_before[1] = ts[1];
   cmd->ts_vtx.start = (struct drm_asahi_timestamp){ ctx->ts_object, batch->slot * 16 };
   cmd->ts_frag.end = (struct drm_asahi_timestamp){ ctx->ts_object, batch->slot * 16 + 8 };
   batch->timestamped = true;
   ctx->last_submit_seqno = batch->seqno;
   for (struct tessera_query *q = ctx->active_timers; q; q = q->next_timer)
      util_dynarray_append(&batch->timers, struct tessera_query *, q);
}

void
tessera_query_fini(struct tessera_context *ctx)
{
   if (!ctx->ts_bo)
      return;
   struct drm_asahi_gem_bind_object o = {
      .op = DRM_ASAHI_BIND_OBJECT_OP_UNBIND,
      .object_handle = ctx->ts_object,
   };
   if (drmIoctl(ctx->screen->fd, DRM_IOCTL_ASAHI_GEM_BIND_OBJECT, &o))
      fprintf(stderr, "tessera: GEM_BIND_OBJECT unbind (timestamps) failed: %s\n",
              strerror(errno));
   tessera_bo_unreference(ctx->ts_bo);
   ctx->ts_bo = NULL;
}

void
tessera_init_query_functions(struct pipe_context *pctx)
{
   pctx->create_query = tessera_create_query;
   pctx->destroy_query = tessera_destroy_query;
   pctx->begin_query = tessera_begin_query;
   pctx->end_query = tessera_end_query;
   pctx->get_query_result = tessera_get_query_result;
   pctx->set_active_query_state = tessera_set_active_query_state;
}

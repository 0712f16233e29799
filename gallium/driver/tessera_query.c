/*
 * Queries. Occlusion queries count in the ISP: every draw while one is
 * active points its PPP record at a 64-bit counter of its batch's
 * occlusion array (ISP Oclqry Base; Visibility Mode counting or boolean),
 * and a batch adds its counters to the queries when it retires. A query
 * spanning several passes sums them. GPU_FINISHED is a flush; timestamps
 * come from DRM_ASAHI_GET_TIME at the points the CPU sees (an
 * approximation: there is no per-command timestamp plumbing yet).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <xf86drm.h>

#include "util/u_inlines.h"
#include "util/u_memory.h"

#include "tessera_context.h"

struct tessera_query {
   unsigned type;
   uint64_t result;
   uint64_t start_ns;
};

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

/* Batches whose counters feed q. */
static bool
batch_counts(struct tessera_batch *b, struct tessera_query *q)
{
   if (!b || b->state == TESSERA_BATCH_FREE)
      return false;
   util_dynarray_foreach(&b->occlusion, struct tessera_query *, e)
      if (*e == q)
         return true;
   return false;
}

static void
tessera_destroy_query(struct pipe_context *pctx, struct pipe_query *pq)
{
   struct tessera_context *ctx = tessera_context(pctx);
   struct tessera_query *q = (struct tessera_query *)pq;
   if (ctx->occlusion_query == q)
      ctx->occlusion_query = NULL;
   /* Retiring batches write into the query: let them finish first. */
   for (unsigned i = 0; i < TESSERA_MAX_BATCHES; i++)
      if (batch_counts(ctx->batches[i], q))
         tessera_batch_wait(ctx->batches[i]);
   FREE(q);
}

static bool
tessera_begin_query(struct pipe_context *pctx, struct pipe_query *pq)
{
   struct tessera_context *ctx = tessera_context(pctx);
   struct tessera_query *q = (struct tessera_query *)pq;
   /* A restarted query must not collect a previous run's passes. */
   for (unsigned i = 0; i < TESSERA_MAX_BATCHES; i++)
      if (batch_counts(ctx->batches[i], q))
         tessera_batch_wait(ctx->batches[i]);
   q->result = 0;
   if (is_occlusion(q->type))
      ctx->occlusion_query = q;
   else if (q->type == PIPE_QUERY_TIME_ELAPSED)
      q->start_ns = gpu_time_ns(ctx);
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
   case PIPE_QUERY_TIMESTAMP:
      q->result = gpu_time_ns(ctx);
      break;
   case PIPE_QUERY_TIME_ELAPSED:
      /* Everything recorded so far runs inside the interval. */
      tessera_flush_all(ctx, "TIME_ELAPSED query");
      for (unsigned i = 0; i < TESSERA_MAX_BATCHES; i++)
         if (ctx->batches[i] && ctx->batches[i]->state == TESSERA_BATCH_SUBMITTED)
            tessera_batch_wait(ctx->batches[i]);
      q->result = gpu_time_ns(ctx) - q->start_ns;
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

   if (is_occlusion(q->type)) {
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

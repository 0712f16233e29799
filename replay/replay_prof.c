/* SPDX-License-Identifier: MIT */
/*
 * The replay's profile collector: the model's per-pass records arrive on
 * the firmware thread while a submission runs; they are copied into a
 * queue and handed to the caller's sink once the submission is complete
 * (the replay waits for every submission, so each record belongs to the
 * submission just waited for).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "replay/replay_engine.h"

struct replay_prof_queue {
   pthread_mutex_t lock;
   struct hw_prof_pass *v;
   unsigned n, cap;
   bool oom;
   struct replay_backend *b;
};

static void
collect(void *user, const struct hw_prof_pass *pass)
{
   struct replay_prof_queue *q = user;
   pthread_mutex_lock(&q->lock);
   if (q->n == q->cap) {
      unsigned c = q->cap ? 2 * q->cap : 8;
      struct hw_prof_pass *v = realloc(q->v, c * sizeof(*v));
      if (!v) {
         q->oom = true;
         pthread_mutex_unlock(&q->lock);
         return;
      }
      q->v = v;
      q->cap = c;
   }
   struct hw_prof_pass copy = *pass;
   struct hw_prof_entry *ents = NULL;
   if (pass->n) {
      ents = malloc(pass->n * sizeof(*ents));
      if (!ents) {
         q->oom = true;
         pthread_mutex_unlock(&q->lock);
         return;
      }
      memcpy(ents, pass->entries, pass->n * sizeof(*ents));
   }
   copy.entries = ents;
   q->v[q->n++] = copy;
   pthread_mutex_unlock(&q->lock);
}

void
replay_prof_start(struct replay_engine *e)
{
   if (!e->b->set_profiler) {
      replay_fail(e, "profiling needs the GPU model (the %s backend has no "
                  "per-draw counters)", e->b->name);
      return;
   }
   struct replay_prof_queue *q = calloc(1, sizeof(*q));
   if (!q) {
      replay_fail(e, "out of memory");
      return;
   }
   pthread_mutex_init(&q->lock, NULL);
   q->b = e->b;
   e->prof = q;
   e->b->set_profiler(e->b, collect, q);
}

static void
drain(struct replay_prof_queue *q)
{
   for (unsigned i = 0; i < q->n; i++)
      free((void *)q->v[i].entries);
   q->n = 0;
}

void
replay_prof_deliver(struct replay_engine *e, uint32_t frame, uint32_t seq, uint64_t gpu_ns)
{
   struct replay_prof_queue *q = e->prof;
   pthread_mutex_lock(&q->lock);
   bool oom = q->oom;
   q->oom = false;
   pthread_mutex_unlock(&q->lock);
   if (oom) {
      replay_fail(e, "submission %u: out of memory for its profile", seq);
   } else {
      /* The submission is complete: the firmware adds nothing more. */
      e->o->profile->submission(e->o->profile->user, frame, seq, gpu_ns, q->v, q->n);
   }
   pthread_mutex_lock(&q->lock);
   drain(q);
   pthread_mutex_unlock(&q->lock);
}

void
replay_prof_discard(struct replay_engine *e)
{
   struct replay_prof_queue *q = e->prof;
   pthread_mutex_lock(&q->lock);
   drain(q);
   q->oom = false;
   pthread_mutex_unlock(&q->lock);
}

void
replay_prof_stop(struct replay_engine *e)
{
   struct replay_prof_queue *q = e->prof;
   if (!q)
      return;
   q->b->set_profiler(q->b, NULL, NULL);
   drain(q);
   free(q->v);
   pthread_mutex_destroy(&q->lock);
   free(q);
   e->prof = NULL;
}

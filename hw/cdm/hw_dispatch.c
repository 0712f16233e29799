/* SPDX-License-Identifier: MIT */
/*
 * Worker pool (see hw_dispatch.h).  Work is claimed item by item from one
 * atomic counter: workgroups differ wildly in cost (divergent loops), so
 * static partitioning would leave threads idle.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "hw/cdm/hw_dispatch.h"

struct hw_dispatch {
   unsigned nthreads;
   pthread_t *threads;
   pthread_mutex_t run_lock;    /* one run at a time */
   pthread_mutex_t lock;
   pthread_cond_t wake;         /* workers: a new run or shutdown */
   pthread_cond_t done;         /* caller: the last worker left the run */

   /* Current run, written under lock before generation is bumped. */
   uint64_t generation;
   bool shutdown;
   hw_dispatch_fn fn;
   void *ctx;
   volatile int *stop;
   uint64_t count;
   _Atomic uint64_t next;
   unsigned busy;               /* workers still in the run */
};

struct worker_arg {
   struct hw_dispatch *d;
   unsigned index;
};

static bool
stopped(volatile int *stop)
{
   return stop && __atomic_load_n((int *)stop, __ATOMIC_RELAXED);
}

static void *
worker_main(void *p)
{
   struct worker_arg *a = p;
   struct hw_dispatch *d = a->d;
   unsigned index = a->index;
   free(a);

   uint64_t seen = 0;
   pthread_mutex_lock(&d->lock);
   for (;;) {
      while (!d->shutdown && d->generation == seen)
         pthread_cond_wait(&d->wake, &d->lock);
      if (d->shutdown)
         break;
      seen = d->generation;
      hw_dispatch_fn fn = d->fn;
      void *ctx = d->ctx;
      volatile int *stop = d->stop;
      uint64_t count = d->count;
      pthread_mutex_unlock(&d->lock);

      for (;;) {
         if (stopped(stop))
            break;
         uint64_t i = atomic_fetch_add_explicit(&d->next, 1, memory_order_relaxed);
         if (i >= count)
            break;
         fn(ctx, index, i);
      }

      pthread_mutex_lock(&d->lock);
      if (--d->busy == 0)
         pthread_cond_signal(&d->done);
   }
   pthread_mutex_unlock(&d->lock);
   return NULL;
}

unsigned
hw_dispatch_default_threads(void)
{
   const char *env = getenv("TESSERA_HW_THREADS");
   if (env && *env) {
      char *end;
      long v = strtol(env, &end, 10);
      if (*end == '\0' && v > 0)
         return v > HW_DISPATCH_MAX_THREADS ? HW_DISPATCH_MAX_THREADS : (unsigned)v;
   }
   long n = sysconf(_SC_NPROCESSORS_ONLN);
   if (n < 1)
      n = 1;
   return n > HW_DISPATCH_MAX_THREADS ? HW_DISPATCH_MAX_THREADS : (unsigned)n;
}

struct hw_dispatch *
hw_dispatch_create(unsigned threads)
{
   if (threads == 0)
      threads = hw_dispatch_default_threads();
   if (threads > HW_DISPATCH_MAX_THREADS)
      threads = HW_DISPATCH_MAX_THREADS;
   struct hw_dispatch *d = calloc(1, sizeof(*d));
   if (!d)
      return NULL;
   d->threads = calloc(threads, sizeof(*d->threads));
   if (!d->threads) {
      free(d);
      return NULL;
   }
   pthread_mutex_init(&d->run_lock, NULL);
   pthread_mutex_init(&d->lock, NULL);
   pthread_cond_init(&d->wake, NULL);
   pthread_cond_init(&d->done, NULL);
   atomic_init(&d->next, 0);
   for (unsigned i = 0; i < threads; i++) {
      struct worker_arg *a = malloc(sizeof(*a));
      if (a) {
         a->d = d;
         a->index = i;
      }
      if (!a || pthread_create(&d->threads[i], NULL, worker_main, a) != 0) {
         free(a);
         d->nthreads = i;
         hw_dispatch_destroy(d);
         return NULL;
      }
      d->nthreads = i + 1;
   }
   return d;
}

void
hw_dispatch_destroy(struct hw_dispatch *d)
{
   if (!d)
      return;
   pthread_mutex_lock(&d->lock);
   d->shutdown = true;
   pthread_cond_broadcast(&d->wake);
   pthread_mutex_unlock(&d->lock);
   for (unsigned i = 0; i < d->nthreads; i++)
      pthread_join(d->threads[i], NULL);
   pthread_cond_destroy(&d->done);
   pthread_cond_destroy(&d->wake);
   pthread_mutex_destroy(&d->lock);
   pthread_mutex_destroy(&d->run_lock);
   free(d->threads);
   free(d);
}

unsigned
hw_dispatch_threads(const struct hw_dispatch *d)
{
   return d->nthreads;
}

void
hw_dispatch_run(struct hw_dispatch *d, uint64_t count, hw_dispatch_fn fn,
                hw_dispatch_poll_fn poll, void *ctx, volatile int *stop)
{
   if (count == 0)
      return;
   pthread_mutex_lock(&d->run_lock);
   pthread_mutex_lock(&d->lock);
   d->fn = fn;
   d->ctx = ctx;
   d->stop = stop;
   d->count = count;
   atomic_store(&d->next, 0);
   d->busy = d->nthreads;
   d->generation++;
   pthread_cond_broadcast(&d->wake);
   while (d->busy) {
      if (!poll) {
         pthread_cond_wait(&d->done, &d->lock);
         continue;
      }
      struct timespec ts;
      clock_gettime(CLOCK_REALTIME, &ts);
      ts.tv_nsec += HW_DISPATCH_POLL_MS * 1000000L;
      if (ts.tv_nsec >= 1000000000L) {
         ts.tv_sec++;
         ts.tv_nsec -= 1000000000L;
      }
      int rc = pthread_cond_timedwait(&d->done, &d->lock, &ts);
      if (rc == ETIMEDOUT && d->busy) {
         pthread_mutex_unlock(&d->lock);
         poll(ctx);
         pthread_mutex_lock(&d->lock);
      }
   }
   pthread_mutex_unlock(&d->lock);
   pthread_mutex_unlock(&d->run_lock);
}

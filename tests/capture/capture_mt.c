/* SPDX-License-Identifier: MIT */
/*
 * Several threads submitting at once, each on its own queue of one VM,
 * with its own buffers. Prints one checksum per thread (in thread order)
 * and the total number of submissions.
 *
 *   capture_mt [-t THREADS] [-n SUBMITS_PER_THREAD]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <xf86drm.h>

#include "tests/lib/tu_dev.h"

#define MAX_THREADS 8

static struct tu_dev d;
static pthread_mutex_t alloc_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned per_thread = 50;

struct worker {
   pthread_t t;
   unsigned index;
   struct tu_saxpy s;
   uint32_t queue, out;
   int status;
};

static void *
run(void *arg)
{
   struct worker *w = arg;
   for (unsigned i = 0; i < per_thread; i++) {
      float a = 1.0f + (float)w->index * 0.5f + (float)(i % 3) * 0.25f;
      if (tu_saxpy_submit(&d, &w->s, w->queue, a, w->out, 2 + w->index) ||
          tu_wait(&d, w->out)) {
         w->status = 1;
         return NULL;
      }
   }
   return NULL;
}

int
main(int argc, char **argv)
{
   unsigned threads = 4;
   int c;
   while ((c = getopt(argc, argv, "t:n:")) != -1) {
      if (c == 't')
         threads = (unsigned)atoi(optarg);
      else if (c == 'n')
         per_thread = (unsigned)atoi(optarg);
      else
         return 2;
   }
   if (!threads || threads > MAX_THREADS)
      return 2;
   tu_open(&d, argv, 4u << 20);
   struct worker w[MAX_THREADS] = { 0 };
   for (unsigned i = 0; i < threads; i++) {
      w[i].index = i;
      pthread_mutex_lock(&alloc_lock);
      tu_saxpy_init(&d, &w[i].s, 1024);
      pthread_mutex_unlock(&alloc_lock);
      w[i].queue = tu_queue(&d);
      if (drmSyncobjCreate(d.fd, 0, &w[i].out))
         return 3;
   }
   for (unsigned i = 0; i < threads; i++)
      pthread_create(&w[i].t, NULL, run, &w[i]);
   int status = 0;
   for (unsigned i = 0; i < threads; i++) {
      pthread_join(w[i].t, NULL);
      status |= w[i].status;
   }
   for (unsigned i = 0; i < threads; i++)
      printf("capture_mt: thread %u checksum %016llx\n", i,
             (unsigned long long)tu_checksum(w[i].s.yc, 4096));
   printf("capture_mt: %u submissions\n", threads * per_thread);
   tu_close(&d);
   return status;
}

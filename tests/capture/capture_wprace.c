/* SPDX-License-Identifier: MIT */
/*
 * A thread writing mapped GPU memory while another submits, for the wp
 * strategy's fault handler racing with collects (cap_wp.c, "Ordering";
 * capture_wp_race.sh). A replay sees memory as the capture recorded it, so
 * `tessera replay --validate` (with --gpu-memory full) finds a submission's
 * result different when a write that preceded it was not recorded.
 *
 *  -m lost (default): the writer thread stores an increasing value into the
 *     first float of every host page of a saxpy input x in turn while the
 *     main thread submits another saxpy (whose memory the writer never
 *     touches) again and again, so every submission's collect races with
 *     the writer's write faults. Then the writer stops and one last
 *     submission computes y = 1 * x + 0 from the final x: a write never
 *     recorded makes it differ.
 *  -m late: the writer stores into the first float of each page the value
 *     already there (it changes nothing, but faults on a protected page),
 *     the main thread writes the second float of each page, submits
 *     y = 1 * x + y and ends a frame, again and again: a write of the main
 *     thread landing on a page the writer's fault made writable must be
 *     recorded before the submission that follows it.
 *
 * Prints whether the last y is what the CPU expects; the number of sweeps
 * goes to stderr.
 *
 *   capture_wprace [-m lost|late] [-n SUBMITS] [-p PAGES]
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <xf86drm.h>

#include "tests/lib/tu_dev.h"

#define FLOATS_PER_PAGE 1024u   /* 4 KiB host pages; a larger page only spaces the writes */

static struct tu_dev d;
static struct tu_saxpy target;
static unsigned pages = 64;
static bool late;
static atomic_bool stop;
static unsigned long sweeps;

static void *
writer(void *arg)
{
   (void)arg;
   volatile float *x = target.xc;
   for (unsigned v = 1; !atomic_load(&stop); v++, sweeps++)
      for (unsigned k = 0; k < pages; k++)   /* exact as floats below 2^24 */
         x[k * FLOATS_PER_PAGE] = late ? x[k * FLOATS_PER_PAGE] : (float)(v & 0xffffffu);
   return NULL;
}

int
main(int argc, char **argv)
{
   unsigned submits = 200;
   int c;
   while ((c = getopt(argc, argv, "m:n:p:")) != -1) {
      if (c == 'm' && (strcmp(optarg, "late") == 0 || strcmp(optarg, "lost") == 0))
         late = strcmp(optarg, "late") == 0;
      else if (c == 'n')
         submits = (unsigned)atoi(optarg);
      else if (c == 'p')
         pages = (unsigned)atoi(optarg);
      else
         return 2;
   }
   if (!submits || submits >= (1u << 24) || !pages || pages > 512)
      return 2;
   tu_open(&d, argv, 4u << 20);
   struct tu_saxpy other;
   tu_saxpy_init(&d, &target, pages * FLOATS_PER_PAGE);
   tu_saxpy_init(&d, &other, 256);
   uint32_t out;
   if (drmSyncobjCreate(d.fd, 0, &out))
      return 3;
   memset(target.yc, 0, 4ull * target.n);
   pthread_t t;
   if (pthread_create(&t, NULL, writer, NULL))
      return 3;
   for (unsigned i = 1; i <= submits; i++) {
      if (late) {
         for (unsigned k = 0; k < pages; k++)
            target.xc[k * FLOATS_PER_PAGE + 1] = (float)i;
         if (tu_saxpy_submit(&d, &target, d.queue, 1.0f, out, 0) || tu_wait(&d, out))
            return 3;
         tu_frame("wprace");
      } else if (tu_saxpy_submit(&d, &other, d.queue, 0.5f, out, 0) || tu_wait(&d, out)) {
         return 3;
      }
   }
   atomic_store(&stop, true);
   pthread_join(t, NULL);
   bool ok;
   if (late) {
      /* y[1] of each page summed 1..submits */
      float want = (float)((double)submits * (submits + 1) / 2);
      ok = true;
      for (unsigned k = 0; k < pages; k++)
         ok = ok && target.yc[k * FLOATS_PER_PAGE + 1] == want;
   } else {
      memset(target.yc, 0, 4ull * target.n);
      if (tu_saxpy_submit(&d, &target, d.queue, 1.0f, out, 1) || tu_wait(&d, out))
         return 3;
      tu_frame("wprace");
      ok = memcmp(target.xc, target.yc, 4ull * target.n) == 0;
   }
   fprintf(stderr, "capture_wprace: %lu sweeps of %u pages\n", sweeps, pages);
   printf("capture_wprace: y %s\n", ok ? "as expected" : "wrong");
   tu_close(&d);
   return ok ? 0 : 1;
}

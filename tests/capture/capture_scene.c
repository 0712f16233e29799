/* SPDX-License-Identifier: MIT */
/*
 * Submission-heavy scene program for capture tests and the overhead
 * benchmark: per "frame", the CPU rewrites a uniform and submits a saxpy
 * compute command (optionally also an empty render pass), waiting for
 * each. Prints a checksum of the results, which must not depend on
 * whether the program runs under tessera capture.
 *
 *   capture_scene [-n SUBMITS] [-e SUBMITS_PER_FRAME] [-s FLOATS] [-r] [-p MS] [-l KB]
 *
 * -r adds a render pass per frame; -p MS pauses after each frame (trigger
 * tests); -l KB sets RLIMIT_FSIZE once the device is open (the shim's
 * model memory is itself a file), for the disk-full tests.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <unistd.h>

#include <xf86drm.h>

#include "tests/lib/tu_dev.h"

int
main(int argc, char **argv)
{
   unsigned submits = 200, per_frame = 10, n = 4096, pause_ms = 0, limit_kb = 0;
   bool render = false;
   int c;
   while ((c = getopt(argc, argv, "n:e:s:rp:l:")) != -1) {
      switch (c) {
      case 'n': submits = (unsigned)atoi(optarg); break;
      case 'e': per_frame = (unsigned)atoi(optarg); break;
      case 's': n = (unsigned)atoi(optarg); break;
      case 'r': render = true; break;
      case 'p': pause_ms = (unsigned)atoi(optarg); break;
      case 'l': limit_kb = (unsigned)atoi(optarg); break;
      default:
         fprintf(stderr, "usage: capture_scene [-n N] [-e N] [-s N] [-r] [-p MS]\n");
         return 2;
      }
   }
   if (!per_frame || !n || n > (1u << 22))
      return 2;
   struct tu_dev d;
   tu_open(&d, argv, 8ull * n + (1u << 20));
   if (limit_kb) {
      /* set by the program, so that only its own files (the trace) meet it */
      struct rlimit rl = { (rlim_t)limit_kb << 10, (rlim_t)limit_kb << 10 };
      if (setrlimit(RLIMIT_FSIZE, &rl))
         return 3;
   }
   struct tu_saxpy s;
   tu_saxpy_init(&d, &s, n);
   uint32_t out;
   if (drmSyncobjCreate(d.fd, 0, &out))
      return 3;
   /* the CPU's answer, to check the GPU's */
   float *ref = malloc(4ull * n);
   if (!ref)
      return 3;
   memcpy(ref, s.yc, 4ull * n);
   unsigned done = 0, renders = 0;
   for (unsigned i = 0; i < submits; i++) {
      float a = 0.5f + (float)(i % 7) * 0.125f;
      if (tu_saxpy_submit(&d, &s, d.queue, a, out, 0) || tu_wait(&d, out)) {
         fprintf(stderr, "capture_scene: submission %u failed\n", i);
         return 1;
      }
      for (unsigned k = 0; k < n; k++)
         ref[k] = fmaf(a, s.xc[k], ref[k]);
      done++;
      if ((i + 1) % per_frame == 0) {
         if (render) {
            if (tu_render_submit(&d, d.queue, out, 1) || tu_wait(&d, out)) {
               fprintf(stderr, "capture_scene: render failed\n");
               return 1;
            }
            renders++;
         }
         tu_frame("scene frame");
         if (pause_ms) {
            struct timespec ts = { pause_ms / 1000, (long)(pause_ms % 1000) * 1000000 };
            nanosleep(&ts, NULL);
         }
      }
   }
   if (memcmp(ref, s.yc, 4ull * n) != 0) {
      fprintf(stderr, "capture_scene: GPU results differ from the CPU's\n");
      return 1;
   }
   free(ref);
   printf("capture_scene: %u computes %u renders checksum %016llx\n", done, renders,
          (unsigned long long)tu_checksum(s.yc, 4ull * n));
   drmSyncobjDestroy(d.fd, out);
   tu_close(&d);
   return 0;
}

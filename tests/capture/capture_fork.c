/* SPDX-License-Identifier: MIT */
/*
 * A process tree using the GPU: the parent submits, forks CHILDREN
 * children that each open the render node themselves and submit, waits
 * for them, and submits again. Output lines are printed by the parent in
 * a fixed order (children report through their exit status and a pipe).
 *
 *   capture_fork [-c CHILDREN] [-n SUBMITS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <xf86drm.h>

#include "tests/lib/tu_dev.h"

static uint64_t
work(char **argv, unsigned n, float base)
{
   struct tu_dev d;
   tu_open(&d, argv, 1u << 20);
   struct tu_saxpy s;
   tu_saxpy_init(&d, &s, 2048);
   uint32_t out;
   if (drmSyncobjCreate(d.fd, 0, &out))
      exit(3);
   for (unsigned i = 0; i < n; i++)
      if (tu_saxpy_submit(&d, &s, d.queue, base + (float)i * 0.25f, out, 0) || tu_wait(&d, out))
         exit(1);
   uint64_t sum = tu_checksum(s.yc, 4 * 2048);
   tu_close(&d);
   return sum;
}

int
main(int argc, char **argv)
{
   unsigned children = 2, n = 10;
   int c;
   while ((c = getopt(argc, argv, "c:n:")) != -1) {
      if (c == 'c')
         children = (unsigned)atoi(optarg);
      else if (c == 'n')
         n = (unsigned)atoi(optarg);
      else
         return 2;
   }
   uint64_t first = work(argv, n, 1.0f);
   for (unsigned i = 0; i < children; i++) {
      int p[2];
      if (pipe(p))
         return 3;
      fflush(stdout);
      pid_t pid = fork();
      if (pid < 0)
         return 3;
      if (pid == 0) {
         close(p[0]);
         uint64_t sum = work(argv, n, 2.0f + (float)i);
         ssize_t wr = write(p[1], &sum, sizeof(sum));
         _exit(wr == sizeof(sum) ? 0 : 1);
      }
      close(p[1]);
      uint64_t sum = 0;
      ssize_t rd = read(p[0], &sum, sizeof(sum));
      close(p[0]);
      int st;
      waitpid(pid, &st, 0);
      if (rd != sizeof(sum) || !WIFEXITED(st) || WEXITSTATUS(st)) {
         fprintf(stderr, "capture_fork: child %u failed\n", i);
         return 1;
      }
      printf("capture_fork: child %u checksum %016llx\n", i, (unsigned long long)sum);
   }
   uint64_t last = work(argv, n, 1.5f);
   printf("capture_fork: parent checksums %016llx %016llx\n", (unsigned long long)first,
          (unsigned long long)last);
   return 0;
}

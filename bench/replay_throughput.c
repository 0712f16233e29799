/* SPDX-License-Identifier: MIT */
/*
 * replay_throughput [FRAMES]: replay speed against the live program on the
 * same backend (the in-process model), in one run. The live program runs
 * FRAMES frames (recording a trace once, untimed, then timed without
 * recording); the replay replays the trace. Reports frames per second of
 * both and replay/live (goal >= 1.0: replaying costs no more than the
 * program did).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "replay/replay.h"
#include "tests/lib/rs_scene.h"

static double
now(void)
{
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int
main(int argc, char **argv)
{
   unsigned frames = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 0) : 20;
   if (!frames)
      frames = 20;
   char dir[] = "/tmp/replay_bench_XXXXXX";
   if (!mkdtemp(dir))
      return 2;
   char trace[64];
   snprintf(trace, sizeof(trace), "%s/bench.tsr", dir);
   char err[256];
   struct rs_result *res = malloc(sizeof(*res));
   struct replay_backend *b = replay_backend_model(true, err, sizeof(err));
   if (!b || !res) {
      fprintf(stderr, "replay_throughput: %s\n", b ? "out of memory" : err);
      return 2;
   }
   struct rs_options o = { .frames = frames, .draw_triangle = true, .trace_path = trace };
   if (rs_run(b, &o, res, err, sizeof(err))) {
      fprintf(stderr, "replay_throughput: %s\n", err);
      return 2;
   }
   o.trace_path = NULL;
   double t0 = now();
   int rc = rs_run(b, &o, res, err, sizeof(err));
   double live = now() - t0;

   struct replay_options ro;
   replay_options_init(&ro);
   struct replay_stats st;
   t0 = now();
   enum replay_status s = replay_run(trace, b, &ro, &st);
   double rep = now() - t0;
   b->destroy(b);
   free(res);
   unlink(trace);
   rmdir(dir);
   if (rc || s != REPLAY_OK) {
      fprintf(stderr, "replay_throughput: %s\n", rc ? err : "replay failed");
      return 2;
   }
   printf("frames            %u (compute + render each)\n", frames);
   printf("live program      %.1f frames/s\n", frames / live);
   printf("replay            %.1f frames/s\n", frames / rep);
   printf("replay/live       %.2fx (goal >= 1.0)\n", live / rep);
   return 0;
}

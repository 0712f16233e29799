/* SPDX-License-Identifier: MIT */
/*
 * replay_mktrace OUT.tsr [FRAMES] [--corrupt] [--chip 0xNNNN]: runs the
 * replay tests' live program on the in-process model and records its
 * trace (for tests/integration/replay_*.sh); prints the GPU addresses of
 * its compute shader, compute output and render target.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/lib/rs_scene.h"

int
main(int argc, char **argv)
{
   struct rs_options o = { .frames = 2, .draw_triangle = true };
   if (argc < 2) {
      fprintf(stderr, "usage: replay_mktrace OUT.tsr [FRAMES] [--corrupt] [--chip 0xNNNN]\n");
      return 2;
   }
   o.trace_path = argv[1];
   for (int i = 2; i < argc; i++) {
      if (!strcmp(argv[i], "--corrupt"))
         o.corrupt_output = true;
      else if (!strcmp(argv[i], "--chip") && i + 1 < argc)
         o.chip_id = (uint32_t)strtoul(argv[++i], NULL, 0);
      else
         o.frames = (unsigned)strtoul(argv[i], NULL, 0);
   }
   char err[256];
   struct replay_backend *b = replay_backend_model(true, err, sizeof(err));
   if (!b) {
      fprintf(stderr, "replay_mktrace: %s\n", err);
      return 2;
   }
   struct rs_result *res = malloc(sizeof(*res));
   int rc = res ? rs_run(b, &o, res, err, sizeof(err)) : -1;
   b->destroy(b);
   if (rc) {
      free(res);
      fprintf(stderr, "replay_mktrace: %s\n", err);
      return 1;
   }
   /* Where things are, for scripts that override or inspect them. */
   printf("compute_shader_va=0x%llx\nout_va=0x%llx\nrt_va=0x%llx\n",
          (unsigned long long)res->compute_shader_va, (unsigned long long)res->out_va,
          (unsigned long long)res->rt_va);
   free(res);
   return 0;
}

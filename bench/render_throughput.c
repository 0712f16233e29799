/* SPDX-License-Identifier: MIT */
/*
 * render_throughput: host-side speed of the rendering model.
 *
 * Two scenes go through the firmware exactly as the unit tests submit
 * them: a fill-heavy one (a few full-screen translucent layers, every
 * pixel shaded several times) and a geometry-heavy one (many small
 * triangles).  Each runs with one host thread and with all of them;
 * pixels/s, triangles/s and the speed-up are printed.  The modelled GPU
 * time must not change with the thread count; the program checks it.
 *
 *   render_throughput [--size N] [--tris N]
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/unit/test_hw_render_scene.h"

static double
now(void)
{
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

struct result {
   double seconds;
   uint64_t gpu_ticks, fragments, primitives;
};

static struct result
fill_scene(unsigned size, unsigned threads, unsigned layers)
{
   struct scene s;
   scene_init(&s, size, size, 1, 0xff000000u, threads, 1u << 20);
   struct vtx quad[6] = {
      { -1, -1, 0.5f, 1, 1, 0, 0, 0.5f }, { 1, -1, 0.5f, 1, 0, 1, 0, 0.5f },
      { -1, 1, 0.5f, 1, 0, 0, 1, 0.5f }, { 1, -1, 0.5f, 1, 0, 1, 0, 0.5f },
      { 1, 1, 0.5f, 1, 1, 1, 0, 0.5f }, { -1, 1, 0.5f, 1, 0, 0, 1, 0.5f },
   };
   struct draw_state ds = default_state;
   ds.fs = fs_blend_src;
   ds.pass = AGX_PASS_TYPE_TRANSLUCENT;
   emit_state(&s, &ds, vs_src, quad, sizeof(quad));
   emit_draw(&s, AGX_PRIMITIVE_TRIANGLES, NULL, 0, 6, layers, false);
   double t0 = now();
   bool ok = run(&s);
   struct result r = { now() - t0, s.ts_f[1] - s.ts_v[0], s.stats.fragments,
                       s.stats.primitives };
   if (!ok) {
      fprintf(stderr, "render_throughput: fill scene failed\n");
      exit(1);
   }
   scene_teardown(&s);
   return r;
}

static struct result
geometry_scene(unsigned size, unsigned threads, unsigned tris)
{
   struct scene s;
   scene_init(&s, size, size, 1, 0xff000000u, threads, 4u << 20);
   many_triangles(&s, tris);
   double t0 = now();
   bool ok = run(&s);
   struct result r = { now() - t0, s.ts_f[1] - s.ts_v[0], s.stats.fragments,
                       s.stats.primitives };
   if (!ok) {
      fprintf(stderr, "render_throughput: geometry scene failed\n");
      exit(1);
   }
   scene_teardown(&s);
   return r;
}

int
main(int argc, char **argv)
{
   unsigned size = 256, tris = 20000;
   for (int i = 1; i < argc; i++) {
      if (!strcmp(argv[i], "--size") && i + 1 < argc)
         size = (unsigned)atoi(argv[++i]);
      else if (!strcmp(argv[i], "--tris") && i + 1 < argc)
         tris = (unsigned)atoi(argv[++i]);
      else {
         fprintf(stderr, "usage: render_throughput [--size N] [--tris N]\n");
         return 2;
      }
   }
   if (size < 32 || size > 2048 || tris < 1 || tris > 200000) {
      fprintf(stderr, "render_throughput: size 32..2048, tris 1..200000\n");
      return 2;
   }
   long cpus = sysconf(_SC_NPROCESSORS_ONLN);
   unsigned all = cpus > 0 ? (unsigned)cpus : 1;
   struct result f1 = fill_scene(size, 1, 4), fn = fill_scene(size, all, 4);
   struct result g1 = geometry_scene(size, 1, tris), gn = geometry_scene(size, all, tris);
   printf("fill-heavy     %ux%u x4 layers: 1 thread %.3f Mpixel/s, %u threads "
          "%.3f Mpixel/s, ratio %.2f\n", size, size, f1.fragments / f1.seconds / 1e6,
          all, fn.fragments / fn.seconds / 1e6, f1.seconds / fn.seconds);
   printf("geometry-heavy %u triangles:   1 thread %.3f Mtri/s,   %u threads "
          "%.3f Mtri/s,   ratio %.2f\n", tris, g1.primitives / g1.seconds / 1e6,
          all, gn.primitives / gn.seconds / 1e6, g1.seconds / gn.seconds);
   printf("modelled GPU time: fill %llu ticks, geometry %llu ticks (24 MHz)\n",
          (unsigned long long)f1.gpu_ticks, (unsigned long long)g1.gpu_ticks);
   if (f1.gpu_ticks != fn.gpu_ticks || g1.gpu_ticks != gn.gpu_ticks) {
      fprintf(stderr, "render_throughput: GPU time depends on the thread count\n");
      return 1;
   }
   return 0;
}

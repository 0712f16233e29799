/* SPDX-License-Identifier: MIT */
/*
 * Timing samples of looped replays and their JSON file (docs/replay.md).
 * Samples of one pass keep the trace's order (each frame's submissions,
 * then the frame), and every pass must have the first one's shape.
 */
#include "replay/replay_priv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

uint64_t
replay_now_ns(void)
{
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void
replay_timing_add(struct replay_timing *t, const struct replay_sample *s)
{
   if (t->count == t->cap) {
      unsigned cap = t->cap ? t->cap * 2 : 256;
      struct replay_sample *n = realloc(t->s, cap * sizeof(*n));
      if (!n)
         return;   /* timing is best effort; the replay goes on */
      t->s = n;
      t->cap = cap;
   }
   t->s[t->count++] = *s;
}

bool
replay_timing_end_pass(struct replay_timing *t)
{
   unsigned in_pass = t->count - t->passes * t->per_pass;
   if (t->passes == 0)
      t->per_pass = in_pass;
   else if (in_pass != t->per_pass)
      return false;
   t->passes++;
   return true;
}

static void
json_string(FILE *f, const char *s)
{
   fputc('"', f);
   for (; *s; s++) {
      unsigned char c = (unsigned char)*s;
      if (c == '"' || c == '\\')
         fprintf(f, "\\%c", c);
      else if (c < 0x20)
         fprintf(f, "\\u%04x", c);
      else
         fputc(c, f);
   }
   fputc('"', f);
}

bool
replay_timing_write(const struct replay_timing *t, const char *path, const char *trace,
                    const char *backend, unsigned warmup, char *err, size_t err_size)
{
   FILE *f = fopen(path, "w");
   if (!f) {
      snprintf(err, err_size, "%s: %s", path, strerror(errno));
      return false;
   }
   /* Schema "tessera-timing/1" (docs/compare.md): one run per measured
    * pass, the warm-up left out. */
   fprintf(f, "{\n \"schema\": \"tessera-timing/1\",\n \"meta\": {\n  \"tool\": \"tessera replay\",\n");
   fprintf(f, "  \"trace\": ");
   json_string(f, trace);
   fprintf(f, ",\n  \"device\": ");
   json_string(f, backend);
   fprintf(f, ",\n  \"loops\": %u,\n  \"warmup\": %u\n },\n \"runs\": [", t->passes, warmup);
   for (unsigned p = 0; p < t->passes; p++) {
      const struct replay_sample *run = &t->s[p * t->per_pass];
      fprintf(f, "%s\n  {\n   \"run\": %u,\n   \"frames\": [", p ? "," : "", p);
      bool first_frame = true;
      unsigned sub_start = 0;
      for (unsigned i = 0; i < t->per_pass; i++) {
         const struct replay_sample *fr = &run[i];
         if (fr->seq != UINT32_MAX)
            continue;
         fprintf(f, "%s\n    {\"frame\": %u, \"gpu_ns\": %llu, \"cpu_ns\": %llu, \"submissions\": [",
                 first_frame ? "" : ",", fr->frame, (unsigned long long)fr->gpu_ns,
                 (unsigned long long)fr->cpu_ns);
         first_frame = false;
         for (unsigned k = sub_start; k < i; k++) {
            const struct replay_sample *q = &run[k];
            fprintf(f, "%s\n      {\"index\": %u, \"seq\": %u, \"gpu_ns\": %llu, \"cpu_ns\": %llu}",
                    k == sub_start ? "" : ",", k - sub_start, q->seq,
                    (unsigned long long)q->gpu_ns, (unsigned long long)q->cpu_ns);
         }
         fprintf(f, "]}");
         sub_start = i + 1;
      }
      fprintf(f, "\n   ]\n  }");
   }
   fprintf(f, "\n ]\n}\n");
   if (fclose(f) != 0) {
      snprintf(err, err_size, "%s: %s", path, strerror(errno));
      return false;
   }
   return true;
}

void
replay_timing_free(struct replay_timing *t)
{
   free(t->s);
   memset(t, 0, sizeof(*t));
}

void
replay_progress_update(struct replay_progress *p, uint64_t done, uint32_t frame)
{
   if (!p->enabled)
      return;
   uint64_t now = replay_now_ns();
   /* Ten redraws a second are plenty and keep the terminal cheap. */
   if (now - p->last_draw_ns < 100000000ull && done < p->total)
      return;
   p->last_draw_ns = now;
   unsigned pct = p->total ? (unsigned)(done * 100 / p->total) : 0;
   if (pct > 100)
      pct = 100;
   char bar[31];
   for (unsigned i = 0; i < 30; i++)
      bar[i] = i < pct * 30 / 100 ? '#' : '.';
   bar[30] = 0;
   fprintf(stderr, "\rreplay [%s] %3u%%  frame %u  submission %llu/%llu", bar, pct, frame,
           (unsigned long long)done, (unsigned long long)p->total);
   fflush(stderr);
}

void
replay_progress_end(struct replay_progress *p)
{
   if (p->enabled && p->last_draw_ns)
      fputc('\n', stderr);
}

/* SPDX-License-Identifier: MIT */
/*
 * replay_profile: collects the model's per-pass records of a replay into
 * frames (replay/replay_profile.h).
 */
#include "replay/replay_profile.h"

#include <stdlib.h>
#include <string.h>

static struct replay_profile_frame *
frame_for(struct replay_profile *p, uint32_t frame)
{
   if (p->nframes && p->frames[p->nframes - 1].frame == frame)
      return &p->frames[p->nframes - 1];
   struct replay_profile_frame *v = realloc(p->frames, (p->nframes + 1) * sizeof(*v));
   if (!v)
      return NULL;
   p->frames = v;
   struct replay_profile_frame *f = &v[p->nframes++];
   memset(f, 0, sizeof(*f));
   f->frame = frame;
   return f;
}

static void
on_submission(void *user, uint32_t frame, uint32_t seq, uint64_t gpu_ns,
              const struct hw_prof_pass *passes, unsigned n)
{
   struct replay_profile *p = user;
   struct replay_profile_frame *f = frame_for(p, frame);
   if (!f) {
      p->oom = true;
      return;
   }
   f->submissions++;
   f->gpu_ns += gpu_ns;
   struct replay_profile_pass *v = realloc(f->passes, (f->npasses + n + 1) * sizeof(*v));
   if (!v) {
      p->oom = true;
      return;
   }
   f->passes = v;
   for (unsigned i = 0; i < n; i++) {
      struct replay_profile_pass *d = &f->passes[f->npasses];
      d->seq = seq;
      d->cmd = 0;
      /* a submission's passes are in this frame's tail: count the earlier
       * ones of the same kind (the command they match, in order) */
      for (unsigned k = f->npasses; k-- > 0 && f->passes[k].seq == seq;)
         d->cmd += f->passes[k].p.kind == passes[i].kind;
      memset(&d->measured, 0, sizeof(d->measured));
      d->p = passes[i];
      struct hw_prof_entry *e = NULL;
      if (passes[i].n) {
         e = malloc(passes[i].n * sizeof(*e));
         if (!e) {
            p->oom = true;
            return;
         }
         memcpy(e, passes[i].entries, passes[i].n * sizeof(*e));
      }
      d->p.entries = e;
      for (unsigned k = 0; k < HW_PROF_NUM; k++)
         f->total[k] += passes[i].total[k];
      f->npasses++;
   }
}

enum replay_status
replay_profile_run(const char *trace, struct replay_backend *b,
                   const struct replay_options *o, struct replay_profile *out)
{
   memset(out, 0, sizeof(*out));
   out->trace = trace;
   struct replay_profile_sink sink = { on_submission, out };
   struct replay_options ro = *o;
   ro.profile = &sink;
   ro.loops = 0;
   ro.timing_path = NULL;
   ro.dump_dir = NULL;
   struct replay_stats st;
   enum replay_status s = replay_run(trace, b, &ro, &st);
   if (out->oom) {
      fprintf(o->log ? o->log : stderr, "tessera profile: out of memory\n");
      return REPLAY_ERROR;
   }
   char err[512];
   if (s != REPLAY_ERROR && !replay_profile_read_measured(trace, out, err, sizeof(err))) {
      fprintf(o->log ? o->log : stderr, "tessera profile: %s\n", err);
      return REPLAY_ERROR;
   }
   return s;
}

void
replay_profile_free(struct replay_profile *p)
{
   for (unsigned i = 0; i < p->nframes; i++) {
      for (unsigned k = 0; k < p->frames[i].npasses; k++)
         free((void *)p->frames[i].passes[k].p.entries);
      free(p->frames[i].passes);
   }
   free(p->frames);
   memset(p, 0, sizeof(*p));
}

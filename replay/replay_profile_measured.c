/* SPDX-License-Identifier: MIT */
/*
 * The measured side of a profile (replay/replay_profile.h): what the
 * capture's GPU timestamped for each profiled pass. A SUBMIT's render and
 * compute commands name where the firmware writes their timestamps (a
 * timestamp object from GEM_BIND_OBJECT and an offset); the capture read
 * those slots back when the submission completed and recorded them, by GEM
 * handle and byte offset, in its COMPLETION. So the trace alone says what
 * the capturing machine measured: a real one's firmware, or the model's
 * when the program ran under `tessera run` (the model's timestamps are its
 * modelled cycles, so they repeat exactly).
 */
#include <stdlib.h>
#include <string.h>

#include "replay/replay_profile.h"
#include "trace/trace.h"
#include "uapi/uapi_cmdbuf.h"

/* The model's kernel names itself in DRM_IOCTL_VERSION's desc
 * (kernel/asahi_drv.c ASAHI_DRV_DESC); no other kernel does. */
#define MODEL_DRIVER_DESC "tessera GPU model"

struct tsobj {
   uint32_t file, object_handle, handle;
   uint64_t offset;
};

/* A timestamp slot a command asked for: GEM handle and byte offset. */
struct slot {
   bool set;
   uint32_t handle;
   uint64_t offset;
};

struct cmd {
   enum hw_prof_kind kind;
   unsigned ordinal;          /* among the submission's commands of its kind */
   struct slot s[4];          /* render: vtx start, end, frag start, end; compute: start, end */
};

struct pending {
   uint32_t seq;
   unsigned n;
   struct cmd *cmds;
};

struct scan {
   struct tsobj *objs;
   unsigned nobjs, capobjs;
   struct pending *pend;
   unsigned npend, cappend;
   struct replay_profile_pass **passes;   /* sorted by (seq, kind, cmd) */
   size_t npasses;
};

const char *
replay_profile_source_name(enum replay_profile_source s)
{
   switch (s) {
   case REPLAY_SOURCE_MODEL: return "model";
   case REPLAY_SOURCE_HARDWARE: return "hardware";
   default: return "unknown";
   }
}

static int
pass_cmp(const void *a, const void *b)
{
   const struct replay_profile_pass *x = *(struct replay_profile_pass *const *)a;
   const struct replay_profile_pass *y = *(struct replay_profile_pass *const *)b;
   if (x->seq != y->seq)
      return x->seq < y->seq ? -1 : 1;
   if (x->p.kind != y->p.kind)
      return x->p.kind < y->p.kind ? -1 : 1;
   return x->cmd < y->cmd ? -1 : x->cmd > y->cmd;
}

/* The first pass of submission seq in sc->passes, or sc->npasses. */
static size_t
first_pass(const struct scan *sc, uint32_t seq)
{
   size_t lo = 0, hi = sc->npasses;
   while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if (sc->passes[mid]->seq < seq)
         lo = mid + 1;
      else
         hi = mid;
   }
   return lo;
}

static bool
slot_of(const struct scan *sc, uint32_t file, const struct drm_asahi_timestamp *t,
        struct slot *out)
{
   memset(out, 0, sizeof(*out));
   if (!t->handle)
      return false;
   for (unsigned i = sc->nobjs; i-- > 0;)
      if (sc->objs[i].file == file && sc->objs[i].object_handle == t->handle) {
         *out = (struct slot){ true, sc->objs[i].handle, sc->objs[i].offset + t->offset };
         return true;
      }
   return false;
}

static bool
on_bind_object(struct scan *sc, uint32_t file, const struct tsr_bind_object *b)
{
   for (unsigned i = 0; i < sc->nobjs; i++)
      if (sc->objs[i].file == file && sc->objs[i].object_handle == b->object_handle) {
         sc->objs[i] = sc->objs[--sc->nobjs];
         break;
      }
   if (b->op != DRM_ASAHI_BIND_OBJECT_OP_BIND)
      return true;
   if (sc->nobjs == sc->capobjs) {
      unsigned c = sc->capobjs ? 2 * sc->capobjs : 8;
      struct tsobj *v = realloc(sc->objs, c * sizeof(*v));
      if (!v)
         return false;
      sc->objs = v;
      sc->capobjs = c;
   }
   sc->objs[sc->nobjs++] = (struct tsobj){ file, b->object_handle, b->handle, b->offset };
   return true;
}

static bool
on_submit(struct scan *sc, const struct tsr_record *rec)
{
   const struct tsr_submit *s = &rec->u.submit;
   size_t k = first_pass(sc, rec->seq);
   if (s->result || k == sc->npasses || sc->passes[k]->seq != rec->seq)
      return true;   /* refused, or not profiled */
   struct pending p = { rec->seq, 0, NULL };
   struct uapi_cmd_iter it;
   struct uapi_cmd c;
   unsigned ord[2] = { 0, 0 };
   uapi_cmd_iter_init(&it, s->cmdbuf, s->cmdbuf_size);
   while (uapi_cmd_next(&it, &c)) {
      if (!uapi_cmd_is_hw(&c))
         continue;
      struct cmd *v = realloc(p.cmds, (p.n + 1) * sizeof(*v));
      if (!v) {
         free(p.cmds);
         return false;
      }
      p.cmds = v;
      struct cmd *d = &p.cmds[p.n++];
      memset(d, 0, sizeof(*d));
      if (c.h.cmd_type == DRM_ASAHI_CMD_RENDER) {
         d->kind = HW_PROF_RENDER;
         slot_of(sc, rec->file, &c.u.render.ts_vtx.start, &d->s[0]);
         slot_of(sc, rec->file, &c.u.render.ts_vtx.end, &d->s[1]);
         slot_of(sc, rec->file, &c.u.render.ts_frag.start, &d->s[2]);
         slot_of(sc, rec->file, &c.u.render.ts_frag.end, &d->s[3]);
      } else {
         d->kind = HW_PROF_COMPUTE;
         slot_of(sc, rec->file, &c.u.compute.ts.start, &d->s[0]);
         slot_of(sc, rec->file, &c.u.compute.ts.end, &d->s[1]);
      }
      d->ordinal = ord[d->kind]++;
   }
   if (sc->npend == sc->cappend) {
      unsigned n = sc->cappend ? 2 * sc->cappend : 8;
      struct pending *v = realloc(sc->pend, n * sizeof(*v));
      if (!v) {
         free(p.cmds);
         return false;
      }
      sc->pend = v;
      sc->cappend = n;
   }
   sc->pend[sc->npend++] = p;
   return true;
}

/* The value the completion recorded for a slot; false when the slot was
 * not asked for, not read back, or never written (the drivers pre-fill 0
 * or all ones). zero_ok: 0 is a real stamp (the model's clock starts at 0
 * with the device, so its first pass starts at 0; a real GPU's clock has
 * long left 0 when a program runs). */
static bool
value_of(const struct tsr_completion *c, const struct slot *s, bool zero_ok, uint64_t *v)
{
   if (!s->set)
      return false;
   for (uint32_t i = 0; i < c->num_timestamps; i++)
      if (c->timestamps[i].object_handle == s->handle && c->timestamps[i].offset == s->offset) {
         *v = c->timestamps[i].value;
         return (*v || zero_ok) && *v != UINT64_MAX;
      }
   return false;
}

static uint64_t
ticks_ns(uint64_t ticks, uint64_t hz)
{
   return (uint64_t)((unsigned __int128)ticks * 1000000000ull / hz);
}

static void
measure(const struct cmd *d, const struct tsr_completion *c, uint64_t hz, bool model,
        struct replay_profile_measured *m)
{
   static const char *const render_spans[2][2] = {
      { "vertex start to vertex end", "vertex start to fragment end" },
      { "fragment start to vertex end", "fragment start to fragment end" },
   };
   uint64_t v[4];
   bool ok[4];
   unsigned n = d->kind == HW_PROF_RENDER ? 4 : 2;
   for (unsigned i = 0; i < n; i++)
      ok[i] = value_of(c, &d->s[i], model && i % 2 == 0, &v[i]);
   memset(m, 0, sizeof(*m));
   if (d->kind == HW_PROF_COMPUTE) {
      if (ok[0] && ok[1] && v[1] >= v[0]) {
         m->pass = true;
         m->ns = ticks_ns(v[1] - v[0], hz);
         m->span = "start to end";
      }
      return;
   }
   if (ok[0] && ok[1] && v[1] >= v[0]) {
      m->vertex = true;
      m->vertex_ns = ticks_ns(v[1] - v[0], hz);
   }
   if (ok[2] && ok[3] && v[3] >= v[2]) {
      m->fragment = true;
      m->fragment_ns = ticks_ns(v[3] - v[2], hz);
   }
   /* the pass: its first recorded start to its last recorded end */
   int s = ok[0] && (!ok[2] || v[0] <= v[2]) ? 0 : ok[2] ? 2 : -1;
   int e = ok[3] && (!ok[1] || v[3] >= v[1]) ? 3 : ok[1] ? 1 : -1;
   if (s >= 0 && e >= 0 && v[e] >= v[s]) {
      m->pass = true;
      m->ns = ticks_ns(v[e] - v[s], hz);
      m->span = render_spans[s == 2][e == 3];
   }
}

static void
on_completion(struct scan *sc, const struct tsr_completion *c, uint64_t hz, bool model)
{
   for (unsigned i = 0; i < sc->npend; i++) {
      struct pending *p = &sc->pend[i];
      if (p->seq != c->seq)
         continue;
      if (c->status == 0) {
         for (size_t k = first_pass(sc, p->seq); k < sc->npasses && sc->passes[k]->seq == p->seq;
              k++) {
            struct replay_profile_pass *ps = sc->passes[k];
            for (unsigned j = 0; j < p->n; j++)
               if (p->cmds[j].kind == ps->p.kind && p->cmds[j].ordinal == ps->cmd)
                  measure(&p->cmds[j], c, hz, model, &ps->measured);
         }
      }
      free(p->cmds);
      *p = sc->pend[--sc->npend];
      return;
   }
}

bool
replay_profile_read_measured(const char *trace, struct replay_profile *p, char *err,
                             size_t errlen)
{
   p->source = REPLAY_SOURCE_UNKNOWN;
   p->timestamp_hz = 24000000ull;
   struct scan sc = { 0 };
   for (unsigned f = 0; f < p->nframes; f++)
      sc.npasses += p->frames[f].npasses;
   sc.passes = malloc((sc.npasses ? sc.npasses : 1) * sizeof(*sc.passes));
   if (!sc.passes) {
      snprintf(err, errlen, "out of memory");
      return false;
   }
   size_t m = 0;
   for (unsigned f = 0; f < p->nframes; f++)
      for (unsigned k = 0; k < p->frames[f].npasses; k++)
         sc.passes[m++] = &p->frames[f].passes[k];
   qsort(sc.passes, sc.npasses, sizeof(*sc.passes), pass_cmp);

   struct tsr_reader *r;
   bool ok = true;
   if (tsr_reader_open(&r, trace, err, errlen) < 0) {
      free(sc.passes);
      return false;
   }
   struct tsr_record rec;
   int n;
   while (ok && (n = tsr_reader_next(r, &rec)) > 0) {
      switch (rec.type) {
      case TSR_REC_DRIVER:
         if (rec.u.driver.desc && strstr(rec.u.driver.desc, MODEL_DRIVER_DESC))
            p->source = REPLAY_SOURCE_MODEL;
         else if (p->source == REPLAY_SOURCE_UNKNOWN)
            p->source = REPLAY_SOURCE_HARDWARE;
         break;
      case TSR_REC_DEVICE_PARAMS:
         if (rec.u.params.p->command_timestamp_frequency_hz)
            p->timestamp_hz = rec.u.params.p->command_timestamp_frequency_hz;
         break;
      case TSR_REC_BIND_OBJECT:
         ok = on_bind_object(&sc, rec.file, &rec.u.bind_object);
         break;
      case TSR_REC_SUBMIT:
         ok = on_submit(&sc, &rec);
         break;
      case TSR_REC_COMPLETION:
         on_completion(&sc, &rec.u.completion, p->timestamp_hz,
                       p->source == REPLAY_SOURCE_MODEL);
         break;
      default:
         break;
      }
      if (!ok)
         snprintf(err, errlen, "out of memory");
   }
   if (ok && n < 0) {
      snprintf(err, errlen, "%s: %s", trace, tsr_reader_error(r));
      ok = false;
   }
   tsr_reader_close(r);
   for (unsigned i = 0; i < sc.npend; i++)
      free(sc.pend[i].cmds);   /* never completed in the trace: not recorded */
   free(sc.pend);
   free(sc.objs);
   free(sc.passes);
   return ok;
}

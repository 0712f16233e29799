/* SPDX-License-Identifier: MIT */
/*
 * hwrender profiling: per-draw records of a render pass, carried from the
 * vertex job to the fragment job, and the exact sharing-out of fragment
 * time over draws (hw/hw_profile.h, docs/profiling.md).
 */
#include <stdlib.h>
#include <string.h>

#include "hw/render/hw_render_priv.h"

/* Vertex jobs whose fragment job never came are dropped past this many. */
#define HWR_PROF_MAX_PENDING 64

void
hw_render_set_profiler(struct hw_render *r, hw_prof_fn fn, void *user)
{
   pthread_mutex_lock(&r->prof_lock);
   r->prof_fn = fn;
   r->prof_user = user;
   pthread_mutex_unlock(&r->prof_lock);
}

void
hwr_prof_free(struct hwr_prof *p)
{
   if (!p)
      return;
   free(p->draws);
   free(p->draw_end);
   free(p->acc);
   free(p);
}

struct hwr_prof *
hwr_prof_job_begin(struct hw_render *r, const struct hw_exec_job *ej)
{
   pthread_mutex_lock(&r->prof_lock);
   bool on = r->prof_fn != NULL;
   struct hwr_prof *p = NULL;
   if (on && ej->tag != AGX_FW_COMMAND_RUN_VERTEX) {
      /* The vertex job of the same payload (same VM, same payload VA). */
      for (struct hwr_prof **pp = &r->prof_pending; *pp; pp = &(*pp)->next) {
         if ((*pp)->vm_slot == ej->vm_slot && (*pp)->payload == ej->payload) {
            p = *pp;
            *pp = p->next;
            p->next = NULL;
            break;
         }
      }
   }
   pthread_mutex_unlock(&r->prof_lock);
   if (!on || p)
      return p;
   p = calloc(1, sizeof(*p));
   if (p) {
      p->vm_slot = ej->vm_slot;
      p->payload = ej->payload;
      if (ej->tag == AGX_FW_COMMAND_RUN_VERTEX)
         p->vertex_job_id = ej->job_id;
   }
   return p;
}

struct hw_prof_entry *
hwr_prof_draw_begin(struct hwr_prof *p, uint64_t addr)
{
   if (p->ndraws == p->cap) {
      unsigned c = p->cap ? 2 * p->cap : 64;
      struct hw_prof_entry *d = realloc(p->draws, c * sizeof(*d));
      if (!d)
         return NULL;
      p->draws = d;
      uint32_t *e = realloc(p->draw_end, c * sizeof(*e));
      if (!e)
         return NULL;
      p->draw_end = e;
      p->cap = c;
   }
   struct hw_prof_entry *d = &p->draws[p->ndraws];
   memset(d, 0, sizeof(*d));
   d->addr = addr;
   /* Open: every primitive from here on is this draw's until it ends. */
   p->draw_end[p->ndraws++] = UINT32_MAX;
   return d;
}

void
hwr_prof_draw_end(struct hwr_prof *p, uint32_t last_prim_id)
{
   if (p->ndraws)
      p->draw_end[p->ndraws - 1] = last_prim_id;
}

void
hwr_prof_vertex_end(struct hw_render *r, struct hwr_prof *p, uint64_t cycles, bool ok)
{
   if (!p)
      return;
   if (!ok) {
      hwr_prof_free(p);
      return;
   }
   uint64_t drawn = p->partial_span, partials = 0;
   for (unsigned i = 0; i < p->ndraws; i++) {
      drawn += p->draws[i].c[HW_PROF_VERTEX_CYCLES];
      partials += p->draws[i].c[HW_PROF_PARTIAL_RENDERS];
   }
   p->overhead.c[HW_PROF_VERTEX_CYCLES] += cycles > drawn ? cycles - drawn : 0;
   /* those not triggered inside a draw (so the pass total is p->partials) */
   p->overhead.c[HW_PROF_PARTIAL_RENDERS] += p->partials > partials ? p->partials - partials : 0;
   pthread_mutex_lock(&r->prof_lock);
   unsigned n = 0;
   struct hwr_prof **pp = &r->prof_pending;
   while (*pp) {
      /* A payload rendered again replaces its stale record. */
      if (++n >= HWR_PROF_MAX_PENDING ||
          ((*pp)->vm_slot == p->vm_slot && (*pp)->payload == p->payload)) {
         struct hwr_prof *old = *pp;
         *pp = old->next;
         hwr_prof_free(old);
         continue;
      }
      pp = &(*pp)->next;
   }
   *pp = p;
   pthread_mutex_unlock(&r->prof_lock);
}

void
hwr_prof_fragment_end(struct hw_render *r, struct hwr_prof *p,
                      const struct hw_exec_job *ej, uint64_t cycles)
{
   (void)cycles;   /* the fragment passes shared their spans out already */
   if (!p)
      return;
   const struct agx_fw_render_payload *pl = ej->render;
   /* Each of the two jobs is started and finalised by the firmware. */
   p->overhead.c[HW_PROF_VERTEX_CYCLES] += HW_FW_START_CYCLES + HW_FW_FINALIZE_CYCLES;
   p->overhead.c[HW_PROF_FRAGMENT_CYCLES] += HW_FW_START_CYCLES + HW_FW_FINALIZE_CYCLES;
   for (unsigned i = 0; i <= p->ndraws; i++) {
      struct hw_prof_entry *e = i < p->ndraws ? &p->draws[i] : &p->overhead;
      e->c[HW_PROF_CYCLES] = e->c[HW_PROF_VERTEX_CYCLES] + e->c[HW_PROF_FRAGMENT_CYCLES];
   }
   struct hw_prof_pass pass = {
      .kind = HW_PROF_RENDER,
      .vm_slot = ej->vm_slot,
      .job_ids = { p->vertex_job_id, ej->job_id },
      .width = pl ? pl->width : 0, .height = pl ? pl->height : 0,
      .samples = pl ? pl->samples : 0,
      .partial_renders = p->partials,
      .overhead = p->overhead,
      .n = p->ndraws,
      .entries = p->draws,
   };
   hw_prof_sum(&pass);
   pthread_mutex_lock(&r->prof_lock);
   hw_prof_fn fn = r->prof_fn;
   void *user = r->prof_user;
   pthread_mutex_unlock(&r->prof_lock);
   if (fn)
      fn(user, &pass);
   hwr_prof_free(p);
}

bool
hwr_prof_frag_begin(struct hwr_prof *p, unsigned nworkers)
{
   free(p->acc);
   p->nworkers = nworkers ? nworkers : 1;
   p->acc = calloc((size_t)p->nworkers * (p->ndraws + 1), sizeof(*p->acc));
   return p->acc != NULL;
}

struct hw_prof_entry *
hwr_prof_frag_overhead(struct hwr_prof *p, unsigned worker)
{
   return &p->acc[(size_t)worker * (p->ndraws + 1) + p->ndraws];
}

struct hw_prof_entry *
hwr_prof_frag_entry(struct hwr_prof *p, unsigned worker, uint32_t prim_id)
{
   /* The first draw whose last primitive ID is >= prim_id. */
   unsigned lo = 0, hi = p->ndraws;
   while (lo < hi) {
      unsigned mid = (lo + hi) / 2;
      if (p->draw_end[mid] < prim_id)
         lo = mid + 1;
      else
         hi = mid;
   }
   return &p->acc[(size_t)worker * (p->ndraws + 1) + lo];
}

void
hwr_prof_frag_end(struct hwr_prof *p, uint64_t span)
{
   if (!p->acc) {
      p->overhead.c[HW_PROF_FRAGMENT_CYCLES] += span;   /* not counted: still exact */
      return;
   }
   unsigned n = p->ndraws + 1;
   uint64_t *w = calloc(n, sizeof(*w)), *share = calloc(n, sizeof(*share));
   for (unsigned k = 0; k < n; k++) {
      struct hw_prof_entry *dst = k < p->ndraws ? &p->draws[k] : &p->overhead;
      for (unsigned wk = 0; wk < p->nworkers; wk++) {
         const struct hw_prof_entry *a = &p->acc[(size_t)wk * n + k];
         for (unsigned c = 0; c < HW_PROF_NUM; c++)
            if (c != HW_PROF_FRAGMENT_CYCLES)
               dst->c[c] += a->c[c];
         /* kept-smallest tables merge to the same result in any order */
         for (unsigned x = 0; x < HW_PROF_TEX_FORMATS && a->tex[x].key; x++)
            hw_prof_tex_add(dst, a->tex[x].key, a->tex[x].n);
         if (w)
            w[k] += a->c[HW_PROF_FRAGMENT_CYCLES];
         if (!dst->fs)
            dst->fs = a->fs;
      }
   }
   if (w && share) {
      hw_prof_apportion(span, w, n, share);
      for (unsigned k = 0; k < n; k++)
         (k < p->ndraws ? &p->draws[k] : &p->overhead)->c[HW_PROF_FRAGMENT_CYCLES] += share[k];
   } else {
      p->overhead.c[HW_PROF_FRAGMENT_CYCLES] += span;   /* still exact */
   }
   free(w);
   free(share);
   free(p->acc);
   p->acc = NULL;
}

/* SPDX-License-Identifier: MIT */
/*
 * hwcdm profiling: one entry per launch of a compute job, with the job's
 * time shared out exactly (hw/hw_profile.h, docs/profiling.md). A
 * launch's own serial cycles (launch, preload, preshader) are its own; a
 * barrier segment's time (its busiest core) goes to the segment's
 * launches in proportion to the core cycles each put on the cores.
 */
#include <stdlib.h>
#include <string.h>

#include "hw/cdm/cdm_priv.h"

void
hw_cdm_set_profiler(struct hw_cdm *c, hw_prof_fn fn, void *user)
{
   pthread_mutex_lock(&c->stats_lock);
   c->prof_fn = fn;
   c->prof_user = user;
   pthread_mutex_unlock(&c->stats_lock);
}

void
cdm_prof_job_begin(struct cdm_job *j)
{
   pthread_mutex_lock(&j->cdm->stats_lock);
   bool on = j->cdm->prof_fn != NULL;
   pthread_mutex_unlock(&j->cdm->stats_lock);
   j->prof = on ? calloc(1, sizeof(*j->prof)) : NULL;
}

void
cdm_prof_launch_begin(struct cdm_job *j, uint64_t va)
{
   struct cdm_prof *p = j->prof;
   if (!p)
      return;
   if (p->n == p->cap) {
      unsigned c = p->cap ? 2 * p->cap : 16;
      struct hw_prof_entry *e = realloc(p->e, c * sizeof(*e));
      uint64_t *w = e ? realloc(p->weight, c * sizeof(*w)) : NULL;
      if (e)
         p->e = e;
      if (w)
         p->weight = w;
      if (!e || !w) {
         /* Out of memory: stop profiling this job (no record). */
         free(p->e);
         free(p->weight);
         free(p);
         j->prof = NULL;
         return;
      }
      p->cap = c;
   }
   struct hw_prof_entry *e = &p->e[p->n];
   memset(e, 0, sizeof(*e));
   e->addr = va;
   p->weight[p->n] = 0;
   p->n++;
   p->launch_cycles0 = j->cycles;
   p->instructions0 = j->stats.usc.instructions;
}

void
cdm_prof_launch_end(struct cdm_job *j, const struct cdm_launch *L, uint64_t core_cycles)
{
   struct cdm_prof *p = j->prof;
   if (!p || !p->n)
      return;
   struct hw_prof_entry *e = &p->e[p->n - 1];
   e->vs = L->shader;
   e->c[HW_PROF_CYCLES] += j->cycles - p->launch_cycles0;
   e->c[HW_PROF_THREADGROUPS] += L->nwg;
   e->c[HW_PROF_INVOCATIONS] += (uint64_t)L->grid[0] * L->grid[1] * L->grid[2];
   e->c[HW_PROF_CS_INSTRUCTIONS] += j->stats.usc.instructions - p->instructions0;
   p->weight[p->n - 1] += core_cycles;
}

void
cdm_prof_segment_end(struct cdm_job *j, uint64_t longest)
{
   struct cdm_prof *p = j->prof;
   if (!p)
      return;
   unsigned k = p->seg_first, n = p->n - p->seg_first;
   if (n) {
      uint64_t *share = calloc(n, sizeof(*share));
      if (share) {
         hw_prof_apportion(longest, p->weight + k, n, share);
         for (unsigned i = 0; i < n; i++)
            p->e[k + i].c[HW_PROF_CYCLES] += share[i];
         free(share);
      }
      /* (without memory the time stays in the job's overhead: exact) */
   }
   p->seg_first = p->n;
}

void
cdm_prof_job_end(struct cdm_job *j)
{
   struct cdm_prof *p = j->prof;
   if (!p)
      return;
   struct hw_prof_pass pass = {
      .kind = HW_PROF_COMPUTE,
      .vm_slot = j->job->vm_slot,
      .job_ids = { j->job->job_id, 0 },
      .n = p->n,
      .entries = p->e,
   };
   uint64_t given = 0;
   for (unsigned i = 0; i < p->n; i++)
      given += p->e[i].c[HW_PROF_CYCLES];
   /* Control blocks, barriers, and the firmware's start and finalize. */
   pass.overhead.c[HW_PROF_CYCLES] = (j->cycles > given ? j->cycles - given : 0) +
                                     HW_FW_START_CYCLES + HW_FW_FINALIZE_CYCLES;
   hw_prof_sum(&pass);
   pthread_mutex_lock(&j->cdm->stats_lock);
   hw_prof_fn fn = j->cdm->prof_fn;
   void *user = j->cdm->prof_user;
   pthread_mutex_unlock(&j->cdm->stats_lock);
   if (fn)
      fn(user, &pass);
   free(p->e);
   free(p->weight);
   free(p);
   j->prof = NULL;
}

/* SPDX-License-Identifier: MIT */
/*
 * The compute executor: lifetime, job setup and the result/timing glue.
 * The stream walk is cdm_stream.c, launches are cdm_launch.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw/cdm/cdm_priv.h"

static void
free_workers(struct hw_cdm *c)
{
   if (!c->workers)
      return;
   for (unsigned i = 0; i < c->nworkers; i++) {
      free(c->workers[i].tg_mem);
      free(c->workers[i].stack);
   }
   free(c->workers);
   c->workers = NULL;
}

struct hw_cdm *
hw_cdm_create(struct hw_device *dev, const struct hw_cdm_config *cfg)
{
   if (!dev)
      return NULL;
   struct hw_cdm *c = calloc(1, sizeof(*c));
   if (!c)
      return NULL;
   c->dev = dev;
   if (cfg)
      c->cfg = *cfg;
   pthread_mutex_init(&c->stats_lock, NULL);
   c->pool = hw_dispatch_create(c->cfg.threads);
   c->cache = hw_usc_cache_create();
   if (!c->pool || !c->cache)
      goto fail;
   c->nworkers = hw_dispatch_threads(c->pool);
   c->workers = aligned_alloc(64, c->nworkers * sizeof(*c->workers));
   if (!c->workers)
      goto fail;
   memset(c->workers, 0, c->nworkers * sizeof(*c->workers));
   for (unsigned i = 0; i < c->nworkers; i++) {
      struct cdm_worker *w = &c->workers[i];
      w->tg_mem = malloc(HW_CDM_MAX_THREADGROUP_MEM);
      w->stack = malloc((size_t)HW_USC_SIMD_WIDTH * HW_USC_MAX_SIMDS *
                        HW_CDM_STACK_BYTES_PER_THREAD);
      if (!w->tg_mem || !w->stack)
         goto fail;
   }
   hw_device_set_executor(dev, AGX_FW_PIPE_COMPUTE, hw_cdm_execute, c);
   return c;

fail:
   free_workers(c);
   hw_usc_cache_destroy(c->cache);
   hw_dispatch_destroy(c->pool);
   pthread_mutex_destroy(&c->stats_lock);
   free(c);
   return NULL;
}

void
hw_cdm_destroy(struct hw_cdm *c)
{
   if (!c)
      return;
   /* The firmware copies the executor pointer before calling it, so only
    * a stopped firmware guarantees no call is still on its way. */
   hw_fw_shutdown(c->dev);
   hw_device_set_executor(c->dev, AGX_FW_PIPE_COMPUTE, NULL, NULL);
   hw_dispatch_destroy(c->pool);
   free_workers(c);
   hw_usc_cache_destroy(c->cache);
   pthread_mutex_destroy(&c->stats_lock);
   free(c);
}

unsigned
hw_cdm_threads(const struct hw_cdm *c)
{
   return c->nworkers;
}

void
hw_cdm_last_stats(struct hw_cdm *c, struct hw_cdm_stats *out)
{
   pthread_mutex_lock(&c->stats_lock);
   *out = c->last;
   pthread_mutex_unlock(&c->stats_lock);
}

/* ---- results ---------------------------------------------------------- */

bool
cdm_error(struct cdm_job *j, const char *fmt, ...)
{
   j->res->status = HW_EXEC_ERROR;
   va_list ap;
   va_start(ap, fmt);
   vsnprintf(j->res->message, sizeof(j->res->message), fmt, ap);
   va_end(ap);
   return false;
}

bool
cdm_fault(struct cdm_job *j, const struct hw_fault *f)
{
   j->res->status = HW_EXEC_FAULT;
   j->res->fault = *f;
   return false;
}

bool
cdm_usc_failure(struct cdm_job *j, const struct hw_usc_result *r,
                const char *what, uint64_t va)
{
   switch (r->status) {
   case HW_USC_FAULT:
      return cdm_fault(j, &r->fault);
   case HW_USC_BUDGET:
      /* Out of instructions means out of cycles: report the budget
       * itself so the firmware's clock stays deterministic. */
      j->res->status = HW_EXEC_TIMEOUT;
      j->cycles = j->job->cycle_budget;
      return false;
   case HW_USC_STOPPED:
      j->res->status = HW_EXEC_TIMEOUT;
      return false;
   default:
      return cdm_error(j, "%s at 0x%llx: %s at pc 0x%llx: %s", what,
                       (unsigned long long)va, hw_usc_status_name(r->status),
                       (unsigned long long)r->pc, r->message);
   }
}

/* ---- timing ------------------------------------------------------------ */

/*
 * A barrier segment is a run of launches with no CDM barrier between
 * them: on hardware their workgroups overlap on the cores.  Each modelled
 * core is busy for its workgroups' issue cycles spread over its four
 * schedulers, and no shorter than its longest SIMD group; the segment
 * lasts as long as its busiest core.  Sums and maxima commute, so the
 * host thread that ran a workgroup never matters.
 */
void
cdm_end_segment(struct cdm_job *j)
{
   uint64_t longest = 0;
   for (unsigned c = 0; c < HW_CDM_CORES; c++) {
      uint64_t t = j->seg_core_cycles[c];
      if (j->seg_core_crit[c] > t)
         t = j->seg_core_crit[c];
      if (t > longest)
         longest = t;
      j->stats.core_cycles[c] += t;
      j->seg_core_cycles[c] = j->seg_core_crit[c] = 0;
   }
   j->cycles += longest;
   j->seg_workgroups = 0;
   cdm_prof_segment_end(j, longest);
}

static uint64_t
segment_so_far(const struct cdm_job *j)
{
   uint64_t longest = 0;
   for (unsigned c = 0; c < HW_CDM_CORES; c++) {
      if (j->seg_core_cycles[c] > longest)
         longest = j->seg_core_cycles[c];
      if (j->seg_core_crit[c] > longest)
         longest = j->seg_core_crit[c];
   }
   return longest;
}

bool
cdm_should_stop(struct cdm_job *j)
{
   if (hw_exec_should_stop(j->job)) {
      j->res->status = HW_EXEC_TIMEOUT;
      return true;
   }
   if (j->cycles + segment_so_far(j) > j->job->cycle_budget) {
      j->res->status = HW_EXEC_TIMEOUT;
      j->cycles = j->job->cycle_budget;
      return true;
   }
   return false;
}

/* ---- the executor -------------------------------------------------------- */

void
hw_cdm_execute(void *data, const struct hw_exec_job *job,
               struct hw_exec_result *res)
{
   struct hw_cdm *c = data;
   memset(res, 0, sizeof(*res));
   if (!job->compute) {
      res->status = HW_EXEC_ERROR;
      snprintf(res->message, sizeof(res->message),
               "compute executor given a job without a compute payload");
      return;
   }
   struct cdm_job *j = calloc(1, sizeof(*j));
   if (!j) {
      res->status = HW_EXEC_ERROR;
      snprintf(res->message, sizeof(res->message), "out of memory");
      return;
   }
   j->cdm = c;
   j->job = job;
   j->res = res;
   pthread_mutex_init(&j->err_lock, NULL);
   hw_mmu_init(&j->cdm_mmu, job->dev, job->vm_slot, HW_UNIT_CDM);
   hw_mmu_begin_job(&j->cdm_mmu);
   hw_mmu_init(&j->usc_mmu, job->dev, job->vm_slot, HW_UNIT_USC);
   hw_mmu_begin_job(&j->usc_mmu);
   for (unsigned i = 0; i < c->nworkers; i++) {
      hw_mmu_init(&c->workers[i].mmu, job->dev, job->vm_slot, HW_UNIT_USC);
      hw_mmu_begin_job(&c->workers[i].mmu);
   }

   cdm_prof_job_begin(j);
   res->status = HW_EXEC_OK;
   if (cdm_run_stream(j))
      res->status = HW_EXEC_OK;
   cdm_end_segment(j);
   res->cycles = j->cycles;
   j->stats.cycles = j->cycles;
   cdm_prof_job_end(j);

   pthread_mutex_lock(&c->stats_lock);
   c->last = j->stats;
   pthread_mutex_unlock(&c->stats_lock);
   pthread_mutex_destroy(&j->err_lock);
   free(j);
}

/* SPDX-License-Identifier: MIT */
/*
 * hwcdm internals shared by cdm.c (executor, jobs, timing), cdm_stream.c
 * (control stream walker) and cdm_launch.c (pipeline words, dispatch).
 */
#ifndef HW_CDM_PRIV_H
#define HW_CDM_PRIV_H

#include <pthread.h>
#include <stdarg.h>

#include "cmdstream/agx_pack.h"
#include "hw/cdm/cdm.h"
#include "hw/cdm/hw_dispatch.h"
#include "hw/tex/hw_tex.h"

/* Per host worker: its own USC view and scratch, and what it measured
 * during the current launch (merged by the firmware thread afterwards, so
 * workers never share a cache line on the hot path). */
struct cdm_worker {
   struct hw_mmu mmu;
   uint8_t *tg_mem;                      /* HW_CDM_MAX_THREADGROUP_MEM */
   uint8_t *stack;                       /* 1024 threads' stacks */
   uint64_t core_cycles[HW_CDM_CORES];
   uint64_t core_crit[HW_CDM_CORES];
   uint64_t workgroups;
   struct hw_usc_stats usc;
} __attribute__((aligned(64)));

struct hw_cdm {
   struct hw_device *dev;
   struct hw_cdm_config cfg;
   struct hw_dispatch *pool;
   unsigned nworkers;
   struct cdm_worker *workers;
   struct hw_usc_cache *cache;          /* replaced on a USC cache invalidate */
   pthread_mutex_t stats_lock;
   struct hw_cdm_stats last;
   hw_prof_fn prof_fn;                  /* under stats_lock */
   void *prof_user;
};

/* A compute job's profile (cdm_prof.c): one entry per launch; the
 * launches of the open barrier segment start at seg_first, and weight[]
 * holds each one's core cycles in it. */
struct cdm_prof {
   struct hw_prof_entry *e;
   uint64_t *weight;
   unsigned n, cap, seg_first;
   uint64_t launch_cycles0, instructions0;  /* at the open launch's start */
};

/* One launch, as decoded from its block and pipeline. */
/* Texture / Sampler words a launch keeps. */
#define CDM_MAX_SLOT_WORDS 16

struct cdm_launch {
   uint64_t va;                          /* of the Launch block */
   uint32_t grid[3];                     /* threads */
   uint32_t local[3];                    /* threads per threadgroup */
   uint64_t groups[3];                   /* workgroups per dimension */
   uint64_t nwg;
   uint32_t uniform_halves;              /* Launch Word 0 */
   uint32_t preshader_halves;
   uint64_t pipeline;                    /* VA of the USC words */
   uint64_t shader, preshader;           /* code VAs; preshader 0 = none */
   bool have_registers;
   uint32_t register_halves;
   uint32_t tg_bytes;
   /* The imageblock the USC Shared word lays over threadgroup memory
    * (width 0: none): pixels of `samples` samples, sample_stride bytes
    * each, row by row (cdm_imageblock.c). */
   struct cdm_imageblock {
      uint32_t width, height, samples, sample_stride;
   } ib;
   uint64_t texture_table, sampler_table;
   unsigned sampler_stride;   /* from the launch's Sampler States count */
   unsigned texture_count, sampler_count;
   /* The Texture / Sampler words, in order (hw_tex_ctx's slot lookup). */
   struct hw_tex_slots tex_slots[CDM_MAX_SLOT_WORDS], smp_slots[CDM_MAX_SLOT_WORDS];
   unsigned ntex_slots, nsmp_slots;
   struct hw_tex_ctx tex;                /* the stage hook's tables */
   uint32_t uniforms[HW_USC_NUM_UNIFORMS];
   uint64_t preload_bytes;
};

/* One job, on the firmware thread. */
struct cdm_job {
   struct hw_cdm *cdm;
   const struct hw_exec_job *job;
   struct hw_mmu cdm_mmu;                /* HW_UNIT_CDM: stream, words, indirect */
   struct hw_mmu usc_mmu;                /* HW_UNIT_USC: code, uniform preload */
   volatile int stop;
   bool watchdog;                        /* stop came from the watchdog */

   /* the launch being dispatched (read only while workers run) */
   struct cdm_launch *cur;
   struct hw_usc_launch usc;
   uint64_t wg_base;                     /* workgroups before it in the segment */

   /* failure of a workgroup: the lowest index wins */
   pthread_mutex_t err_lock;
   bool failed;
   uint64_t err_wg;
   struct hw_usc_result err;

   /* timing of the current barrier segment, and of the job */
   uint64_t seg_core_cycles[HW_CDM_CORES];
   uint64_t seg_core_crit[HW_CDM_CORES];
   uint64_t seg_workgroups;
   uint64_t cycles;
   struct hw_cdm_stats stats;
   struct hw_exec_result *res;
   struct cdm_prof *prof;                /* NULL: not profiling */
};

/* cdm_imageblock.c: the compute stage hook (user = struct cdm_launch *):
 * texture instructions go to the texture unit, ld_tile/st_tile and
 * image_write_block work on the workgroup's imageblock. */
enum hw_usc_status cdm_stage_hook(void *user, struct hw_usc_simd *simd,
                                  const struct agx_instr *instr, uint32_t exec_mask);

/* Fills res as HW_EXEC_ERROR with a formatted message; returns false. */
bool cdm_error(struct cdm_job *j, const char *fmt, ...)
   __attribute__((format(printf, 2, 3)));
/* res = HW_EXEC_FAULT from the view's record; returns false. */
bool cdm_fault(struct cdm_job *j, const struct hw_fault *f);
/* Maps a failed USC run to the job result; returns false. */
bool cdm_usc_failure(struct cdm_job *j, const struct hw_usc_result *r,
                     const char *what, uint64_t va);
/* Closes the current barrier segment: its time joins the job's. */
void cdm_end_segment(struct cdm_job *j);
/* True when the job must stop (watchdog, shutdown, cycle budget); sets res. */
bool cdm_should_stop(struct cdm_job *j);

/* cdm_prof.c: profiling. A launch starts (its entry) and ends (its own
 * serial cycles, counters and its core cycles in the segment); a segment
 * ends (its time shared over its launches); the job ends (the rest is
 * overhead, the record goes to the callback). All no-ops without prof. */
void cdm_prof_job_begin(struct cdm_job *j);
void cdm_prof_launch_begin(struct cdm_job *j, uint64_t va);
void cdm_prof_launch_end(struct cdm_job *j, const struct cdm_launch *L, uint64_t core_cycles);
void cdm_prof_segment_end(struct cdm_job *j, uint64_t longest);
void cdm_prof_job_end(struct cdm_job *j);

/* cdm_stream.c: walks the control stream from the payload's base. */
bool cdm_run_stream(struct cdm_job *j);

/* cdm_launch.c: decodes the launch at va (block bytes in p, `len` valid)
 * and runs it.  *size receives the block's length. */
bool cdm_launch(struct cdm_job *j, uint64_t va, size_t *size);

#endif

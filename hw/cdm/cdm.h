/* SPDX-License-Identifier: MIT */
/*
 * hwcdm: the compute data master of the GPU model — the executor that runs
 * a Run Compute job's CDM control stream on the USC interpreter.
 *
 * CONTRACT
 * - hw_cdm_create() starts a pool of host worker threads (cfg.threads; 0 =
 *   the online CPUs or $TESSERA_HW_THREADS) and registers the compute
 *   executor with the device's firmware (hw_device_set_executor).  Create
 *   it right after the device; from then on Run Compute jobs run.
 * - hw_cdm_destroy() shuts the firmware down first (hw_fw_shutdown: the
 *   firmware may be about to call the executor), unregisters it and joins
 *   the workers.  Call it before hw_device_destroy(); the device must still
 *   exist.
 * - The stream is read through an hw_mmu with unit HW_UNIT_CDM (control
 *   blocks, USC words, indirect buffers); shader code, uniform preloads and
 *   the shaders' own accesses go through HW_UNIT_USC views.  Every block and
 *   USC word is decoded with the generated agx_*_unpack (cmdstream/
 *   agx_cmdbuf.xml); anything that does not unpack is a Job Error.
 * - Results do not depend on the worker count: workgroups of one launch may
 *   run in any order on any thread, launches run one after the other, and
 *   the modelled time is computed from per-workgroup cycle counts with
 *   commutative sums and maxima only (docs/compute.md, "Timing").
 * - A fault in any workgroup stops the launch (the others stop at their
 *   next 256 instructions) and the job reports the fault with the lowest
 *   workgroup index among those that faulted.  The wall-clock watchdog and
 *   the cycle budget end runaway shaders with HW_EXEC_TIMEOUT.
 * - Nothing aborts on bad input: malformed streams are HW_EXEC_ERROR with a
 *   message naming the block's address.
 */
#ifndef HW_CDM_H
#define HW_CDM_H

#include <stdbool.h>
#include <stdint.h>

#include "hw/hw_device.h"
#include "hw/hw_fw.h"
#include "hw/hw_profile.h"
#include "hw/usc/hw_usc.h"

/* ---- the timing model (core cycles at HW_CORE_CLOCK_HZ) -------------- */

/* M1: 8 cores of 4 schedulers, each issuing one SIMD32 instruction per
 * cycle (facts/notes-perf.md). Workgroup i of a barrier-free run of
 * launches goes to modelled core (i mod 8). */
#define HW_CDM_CORES 8
#define HW_CDM_SCHEDULERS 4
#define HW_CDM_BLOCK_CYCLES 8         /* fetching/decoding one control block */
#define HW_CDM_LAUNCH_CYCLES 256      /* pipeline words, dispatch start */
#define HW_CDM_WORKGROUP_CYCLES 16    /* allocating a workgroup on its core */
#define HW_CDM_BARRIER_CYCLES 128     /* draining every core */
#define HW_CDM_PRELOAD_BYTES_PER_CYCLE 64

/* ---- limits ---------------------------------------------------------- */

#define HW_CDM_MAX_BLOCKS (1u << 20)  /* control blocks per job */
#define HW_CDM_MAX_CALL_DEPTH 16
#define HW_CDM_MAX_USC_WORDS 32       /* per pipeline, the end word included */
#define HW_CDM_STACK_BYTES_PER_THREAD 256
#define HW_CDM_MAX_THREADGROUP_MEM (64u * 1024)

struct hw_cdm;

struct hw_cdm_config {
   unsigned threads;             /* host workers; 0 = default (see above) */
   uint32_t usc_flags;           /* HW_USC_* for every launch */
   uint64_t instruction_budget;  /* per workgroup; 0 = from the job's cycle budget */
};

/* What the last job did (for tests, benchmarks and tracing). */
struct hw_cdm_stats {
   uint64_t blocks, launches, workgroups, preshaders, barriers;
   uint64_t cache_invalidations;
   uint64_t cycles;              /* what the executor reported */
   uint64_t core_cycles[HW_CDM_CORES];  /* summed over barrier segments */
   struct hw_usc_stats usc;      /* every workgroup and preshader */
};

struct hw_cdm *hw_cdm_create(struct hw_device *dev,
                             const struct hw_cdm_config *cfg);
void hw_cdm_destroy(struct hw_cdm *cdm);
unsigned hw_cdm_threads(const struct hw_cdm *cdm);
void hw_cdm_last_stats(struct hw_cdm *cdm, struct hw_cdm_stats *out);
/* Per-job profiles (hw/hw_profile.h): fn gets one record per compute job,
 * one entry per launch; NULL stops profiling. Set it while no compute job
 * runs. */
void hw_cdm_set_profiler(struct hw_cdm *cdm, hw_prof_fn fn, void *user);

/* The executor itself (what the firmware calls; also usable directly by
 * tools that build a struct hw_exec_job without the rings). */
void hw_cdm_execute(void *cdm, const struct hw_exec_job *job,
                    struct hw_exec_result *res);

#endif

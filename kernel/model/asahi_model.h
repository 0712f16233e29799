/* SPDX-License-Identifier: MIT */
/*
 * asahi_model: the whole GPU model behind the asahi driver, built and torn
 * down in the one order that is safe. Used by the render-node shim and by
 * in-process tests and tools.
 *
 * CONTRACT
 * - asahi_model_create() creates, in order: the hw device (memory, UAT,
 *   firmware), the compute executor (hw_cdm), the render executors
 *   (hw_render: vertex + fragment pipes, texture unit inside) and then the
 *   driver (asahi_create), so the firmware never sees a job for a pipe
 *   without an executor. On failure everything created so far is undone
 *   and `err` says what failed.
 * - asahi_model_destroy() undoes it in reverse, with one twist: the
 *   firmware thread is stopped (inside hw_cdm_destroy) before the render
 *   executors are unregistered, because the firmware may be inside one.
 *   Every file of the driver must be closed first. It always returns:
 *   pending jobs are failed by the driver, the firmware is shut down, the
 *   executors' worker threads are joined.
 * - Host worker threads: cfg->threads, else $TESSERA_HW_THREADS, else the
 *   online CPUs capped at ASAHI_MODEL_DEFAULT_THREADS; used for both the
 *   compute and the tile workers. Results never depend on it.
 */
#ifndef ASAHI_MODEL_H
#define ASAHI_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hw/hw_profile.h"
#include "kernel/asahi.h"

#define ASAHI_MODEL_DEFAULT_THREADS 4
#define ASAHI_MODEL_MAX_THREADS 64

struct hw_device;
struct hw_cdm;
struct hw_render;

struct asahi_model_config {
   uint64_t mem_size;        /* model memory in bytes; 0: 4 GiB (sparse) */
   bool soft_faults;
   unsigned threads;         /* 0: environment / default (see above) */
   struct asahi_config drv;  /* the driver's own knobs */
};

struct asahi_model {
   struct hw_device *hw;
   struct hw_cdm *cdm;
   struct hw_render *render;
   struct asahi_dev *dev;
   unsigned threads;
};

/* What the model and the driver did since creation (tests, tools). */
struct asahi_model_stats {
   struct asahi_stats drv;
   uint64_t draws, primitives, tiles, fragments;
   uint64_t partial_renders, grow_events;   /* as the tiler counted them */
};

struct asahi_model *asahi_model_create(const struct asahi_model_config *cfg,
                                       char *err, size_t err_size);
void asahi_model_destroy(struct asahi_model *m);
void asahi_model_get_stats(struct asahi_model *m, struct asahi_model_stats *out);

/* Per-pass profiles from both executors (hw/hw_profile.h: render passes
 * and compute jobs, on the firmware thread); NULL stops. Set it while the
 * GPU is idle. */
void asahi_model_set_profiler(struct asahi_model *m, hw_prof_fn fn, void *user);

/* The worker count asahi_model_create() would pick for cfg_threads. */
unsigned asahi_model_threads(unsigned cfg_threads);

#endif

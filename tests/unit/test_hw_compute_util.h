/* SPDX-License-Identifier: MIT */
/*
 * Compute tests' "kernel driver" and "userspace": on top of test_hw_util
 * (rings, boot, jobs) it maps a user heap in a VM, assembles kernels from
 * tests/data/compute/, writes USC pipelines and CDM streams into GPU
 * memory with the generated pack functions, and runs Run Compute jobs
 * through the firmware.
 */
#ifndef TEST_HW_COMPUTE_UTIL_H
#define TEST_HW_COMPUTE_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hw/cdm/cdm.h"
#include "test_hw_util.h"

#define TC_HEAP_PAGES 64
#define TC_MAX_VMS 4

struct tc_vm {
   unsigned slot;
   uint8_t *heap;            /* host view of the user heap */
   uint64_t used;
   struct t_queue q;
   uint64_t stamp_va;
   uint32_t stamp_value;
   uint64_t ts;              /* the last job's two timestamps */
};

struct tc {
   struct t_fw t;
   struct hw_cdm *cdm;
   struct tc_vm vm[TC_MAX_VMS];   /* vm[i] uses VM slot i + 1, event slot i */
};

/* Device (config may be NULL), firmware and a CDM with `threads` workers. */
void tc_setup(struct tc *c, unsigned threads, const struct hw_device_config *cfg);
void tc_teardown(struct tc *c);

/* Zeroed user-heap memory in vm (64-byte aligned). */
uint64_t tc_alloc(struct tc *c, unsigned vm, size_t size, void **host);
void *tc_host(struct tc *c, unsigned vm, uint64_t va);

/* Assembles tests/data/compute/<name>.s into the heap; returns its VA. */
uint64_t tc_kernel(struct tc *c, unsigned vm, const char *name);

struct tc_uniform {
   unsigned start_halfs, size_halfs;
   uint64_t buffer;
   bool high;
};

struct tc_pipeline {
   uint64_t shader;          /* VAs */
   uint64_t preshader;       /* 0: No Preshader */
   unsigned register_halves; /* 0: no Registers word */
   uint32_t tg_bytes;        /* 0: Shared word without shared memory */
   /* an imageblock over that memory (0: Vertex Compute layout, none) */
   enum agx_shared_layout ib_layout;
   unsigned ib_sample_stride_8;  /* bytes per sample / 8 */
   unsigned nuniforms;
   struct tc_uniform uniforms[4];
   /* Texture / Sampler words when the count is non-zero: descriptors
    * for state slots start .. start + count - 1 at the table VA */
   uint64_t textures, samplers;
   unsigned texture_start, ntextures, sampler_start, nsamplers;
};

/* Writes the USC words; returns the offset from the USC base (= heap). */
uint32_t tc_pipeline(struct tc *c, unsigned vm, const struct tc_pipeline *p);

/* Uniform buffer with 32-bit values u[0..n) (a preload source). */
uint64_t tc_uniform_buffer(struct tc *c, unsigned vm, const uint32_t *u, unsigned n);

/* A CDM stream being written into the heap. */
struct tc_stream {
   uint8_t *host;
   uint64_t va;
   size_t len, cap;
};

void tc_stream_init(struct tc *c, unsigned vm, struct tc_stream *s, size_t cap);
void tc_launch(struct tc_stream *s, uint32_t pipeline, const uint32_t grid[3],
               const uint32_t local[3]);
/* mode: AGX_CDM_MODE_INDIRECT_GLOBAL (local used) or _INDIRECT_LOCAL */
void tc_launch_indirect(struct tc_stream *s, uint32_t pipeline, unsigned mode,
                        uint64_t buffer, const uint32_t local[3]);
void tc_barrier(struct tc_stream *s, bool usc_inval, bool returns);
void tc_link(struct tc_stream *s, uint64_t target, bool call);
void tc_terminate(struct tc_stream *s);
uint64_t tc_stream_va(const struct tc_stream *s);   /* current position */

/* What a job produced. */
struct tc_result {
   bool error;                     /* an error event came before the Flag */
   enum agx_fw_event type;         /* of that event */
   uint8_t msg[HW_FW_EVENT_MSG_SIZE];
   uint64_t t0, t1;                /* timestamps around Start */
   uint64_t cycles;                /* device cycles the job advanced */
};

/* Builds the job (stream at stream_va), submits it and waits for its Flag. */
uint64_t tc_job(struct tc *c, unsigned vm, uint64_t stream_va);
void tc_wait(struct tc *c, unsigned vm, struct tc_result *r);
void tc_run(struct tc *c, unsigned vm, uint64_t stream_va, struct tc_result *r);

/* One launch of `pipeline` + terminate, run. */
void tc_run1(struct tc *c, unsigned vm, uint32_t pipeline, const uint32_t grid[3],
             const uint32_t local[3], struct tc_result *r);

/* Fault event fields. */
void tc_fault(const struct tc_result *r, struct agx_fw_event_fault *f,
              struct agx_fault_info *info);

#endif

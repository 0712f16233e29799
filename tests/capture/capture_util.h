/* SPDX-License-Identifier: MIT */
/*
 * Small uAPI "driver" for the capture test programs: a render node (real
 * or the shim), one VM with a heap object, saxpy compute jobs and empty
 * render passes, built with the generated pack functions. Programs print
 * a checksum of their results so runs with and without capture compare.
 */
#ifndef CAPTURE_UTIL_H
#define CAPTURE_UTIL_H

#include <stdbool.h>
#include <stdint.h>

#include "drm-uapi/asahi_drm.h"

#define CU_PAGE 16384u

struct cu_dev {
   int fd;
   struct drm_asahi_params_global params;
   uint32_t vm, queue;
   uint32_t heap_bo;
   uint8_t *heap;       /* CPU view of the heap */
   uint64_t heap_va, heap_size, used;
   uint32_t ts_bo, ts_obj;
   uint64_t *ts;        /* CPU view of the timestamp object */
};

/* Opens the first asahi render node (re-executing with the shim next to
 * the binary if there is none, as the uAPI tests do). Exits on failure. */
void cu_open(struct cu_dev *d, char **argv, uint64_t heap_size);
void cu_close(struct cu_dev *d);
/* A second queue on the same VM. */
uint32_t cu_queue(struct cu_dev *d);
/* Heap allocation (64-byte aligned); returns the GPU VA. */
uint64_t cu_alloc(struct cu_dev *d, uint64_t size, void **cpu);

/* saxpy over n floats: y = a*x + y, the pipeline and stream live in the
 * heap; the kernel's uniforms (x, y, a) in a buffer the CPU rewrites. */
struct cu_saxpy {
   uint64_t x, y, uniforms, stream;
   float *xc, *yc;
   uint32_t *uc;
   uint32_t n;
   uint64_t stream_end;
};
void cu_saxpy_init(struct cu_dev *d, struct cu_saxpy *s, uint32_t n);
/* Sets `a` and submits one compute command (timestamps in slot ts_slot,
 * 16 bytes each) signalling syncobj `out`. 0 or -errno. */
int cu_saxpy_submit(struct cu_dev *d, struct cu_saxpy *s, uint32_t queue, float a,
                    uint32_t out, unsigned ts_slot);
/* An empty render pass (clear only) with timestamps. */
int cu_render_submit(struct cu_dev *d, uint32_t queue, uint32_t out, unsigned ts_slot);
int cu_wait(struct cu_dev *d, uint32_t syncobj);
uint64_t cu_checksum(const void *p, size_t n);
/* Ends a frame for tessera capture when it is loaded. */
void cu_frame(const char *label);

#endif

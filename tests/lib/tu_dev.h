/* SPDX-License-Identifier: MIT */
/*
 * tu_dev: a small uAPI "driver" for the capture test programs and the demo
 * workload (tests/lib, library testuapi): a render node (real or the
 * shim), one VM with a heap object, saxpy compute jobs and empty render
 * passes, built with the generated pack functions. Programs print a
 * checksum of their results so runs with and without capture compare.
 * Failures of the device exit the program (status 3; 77 with no node).
 */
#ifndef TU_DEV_H
#define TU_DEV_H

#include <stdbool.h>
#include <stdint.h>

#include "drm-uapi/asahi_drm.h"

#define TU_PAGE 16384u

struct tu_dev {
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
void tu_open(struct tu_dev *d, char **argv, uint64_t heap_size);
void tu_close(struct tu_dev *d);
/* A second queue on the same VM. */
uint32_t tu_queue(struct tu_dev *d);
/* Heap allocation (64-byte aligned); returns the GPU VA. */
uint64_t tu_alloc(struct tu_dev *d, uint64_t size, void **cpu);

/* saxpy over n floats: y = a*x + y, the pipeline and stream live in the
 * heap; the kernel's uniforms (x, y, a) in a buffer the CPU rewrites. */
struct tu_saxpy {
   uint64_t x, y, uniforms, stream;
   float *xc, *yc;
   uint32_t *uc;
   uint32_t n;
   uint64_t stream_end;
};
void tu_saxpy_init(struct tu_dev *d, struct tu_saxpy *s, uint32_t n);
/* Sets `a` and submits one compute command (timestamps in slot ts_slot,
 * 16 bytes each) signalling syncobj `out`. 0 or -errno. */
int tu_saxpy_submit(struct tu_dev *d, struct tu_saxpy *s, uint32_t queue, float a,
                    uint32_t out, unsigned ts_slot);
/* An empty render pass (clear only) with timestamps. */
int tu_render_submit(struct tu_dev *d, uint32_t queue, uint32_t out, unsigned ts_slot);
int tu_wait(struct tu_dev *d, uint32_t syncobj);
uint64_t tu_checksum(const void *p, size_t n);
/* Ends a frame for tessera capture when it is loaded. */
void tu_frame(const char *label);

#endif

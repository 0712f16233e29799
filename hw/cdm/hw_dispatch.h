/* SPDX-License-Identifier: MIT */
/*
 * hw_dispatch: the GPU model's pool of host worker threads.
 *
 * CONTRACT
 * - hw_dispatch_create(n) starts n worker threads (n = 0: the number of
 *   online CPUs, or $TESSERA_HW_THREADS when set).  They sleep until a run.
 * - hw_dispatch_run() hands items 0..count-1 to the workers (each item to
 *   exactly one worker, taken from a shared atomic counter, so the split
 *   between threads is not deterministic) and returns when every item is
 *   finished.  The caller must make the result independent of that split;
 *   `worker` (0..n-1) lets fn use per-worker scratch without locks.
 * - While the run is in progress the calling thread calls poll(ctx) every
 *   few milliseconds (a watchdog); it may raise *stop.  Once *stop is
 *   non-zero the workers take no further items.
 * - One run at a time per pool (runs from several threads serialise).
 * - hw_dispatch_destroy() joins the threads; no run may be in progress.
 */
#ifndef HW_DISPATCH_H
#define HW_DISPATCH_H

#include <stdint.h>

#define HW_DISPATCH_MAX_THREADS 256
#define HW_DISPATCH_POLL_MS 2

struct hw_dispatch;

typedef void (*hw_dispatch_fn)(void *ctx, unsigned worker, uint64_t item);
typedef void (*hw_dispatch_poll_fn)(void *ctx);

/* NULL when threads cannot be started. */
struct hw_dispatch *hw_dispatch_create(unsigned threads);
void hw_dispatch_destroy(struct hw_dispatch *d);
unsigned hw_dispatch_threads(const struct hw_dispatch *d);

/* The thread count hw_dispatch_create(0) picks. */
unsigned hw_dispatch_default_threads(void);

void hw_dispatch_run(struct hw_dispatch *d, uint64_t count, hw_dispatch_fn fn,
                     hw_dispatch_poll_fn poll, void *ctx, volatile int *stop);

#endif

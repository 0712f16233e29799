/* SPDX-License-Identifier: MIT */
/*
 * replay backends: where a replay's ioctls go.
 *
 * CONTRACT
 * - A backend is one open of an Asahi render node: ioctl() behaves like
 *   the kernel's (0 or -errno), map() gives a CPU view of a whole GEM
 *   object shared with the GPU (no copies: writes are what the GPU reads).
 * - "model": tessera's GPU model and kernel driver in this process (no
 *   device needed; the executors for compute and rendering are installed).
 * - "node": a render node path (/dev/dri/renderD128: a real Asahi machine,
 *   or the shim through LD_PRELOAD). Refused unless its driver is "asahi".
 * - Backends never abort: creation failures return NULL with a message.
 */
#ifndef REPLAY_BACKEND_H
#define REPLAY_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hw/hw_profile.h"

struct replay_backend {
   const char *name;
   int (*ioctl)(struct replay_backend *b, unsigned long cmd, void *arg);
   /* CPU mapping of GEM object `handle` of `size` bytes; NULL on failure. */
   void *(*map)(struct replay_backend *b, uint32_t handle, uint64_t size);
   void (*unmap)(struct replay_backend *b, void *ptr, uint64_t size);
   /* Error status of the fence a syncobj holds (0, -errno); NULL if the
    * backend cannot tell. */
   int (*fence_error)(struct replay_backend *b, uint32_t syncobj);
   void (*destroy)(struct replay_backend *b);
   /* Per-pass profile records from the GPU model (hw/hw_profile.h), on
    * the firmware thread; fn NULL stops. NULL for backends without a model
    * (a render node: its firmware timestamps are per command only). */
   void (*set_profiler)(struct replay_backend *b, hw_prof_fn fn, void *user);
};

/* The in-process model. quiet: no driver fault lines on stderr. */
struct replay_backend *replay_backend_model(bool quiet, char *err, size_t err_size);
/* A render node. */
struct replay_backend *replay_backend_node(const char *path, char *err, size_t err_size);

static inline int
replay_ioctl(struct replay_backend *b, unsigned long cmd, void *arg)
{
   return b->ioctl(b, cmd, arg);
}

#endif

/* SPDX-License-Identifier: MIT */
/*
 * Gallium fences: a DRM syncobj holding the fence of one submission.
 *
 * The context's flush creates one from its out-syncobj; the fence gets
 * its own syncobj (a copy of the current point, SYNCOBJ_TRANSFER), so
 * later submissions replacing the context's syncobj do not move it.
 */
#ifndef TESSERA_FENCE_H
#define TESSERA_FENCE_H

#include <stdint.h>
#include "pipe/p_state.h"

struct tessera_screen;

struct pipe_fence_handle {
   struct pipe_reference reference;
   struct tessera_screen *screen;
   uint32_t syncobj;                 /* owned; 0: already signalled */
};

/* A fence for what `syncobj` currently holds (0, or a syncobj nothing was
 * submitted to yet: a signalled fence). NULL only on allocation failure. */
struct pipe_fence_handle *tessera_fence_create(struct tessera_screen *screen,
                                               uint32_t syncobj);

/* Waits up to timeout_ns (PIPE_TIMEOUT_INFINITE: forever); true when signalled. */
bool tessera_fence_wait(struct pipe_fence_handle *fence, uint64_t timeout_ns);

void tessera_init_screen_fence_functions(struct pipe_screen *screen);

#endif

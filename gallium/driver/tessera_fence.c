/* SPDX-License-Identifier: MIT */
/*
 * Fences (see tessera_fence.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <xf86drm.h>

#include "util/os_time.h"
#include "util/u_inlines.h"
#include "util/u_memory.h"

#include "tessera_fence.h"
#include "tessera_screen.h"

struct pipe_fence_handle *
tessera_fence_create(struct tessera_screen *screen, uint32_t syncobj)
{
   struct pipe_fence_handle *f = CALLOC_STRUCT(pipe_fence_handle);
   if (!f)
      return NULL;
   pipe_reference_init(&f->reference, 1);
   f->screen = screen;
   if (!syncobj)
      return f;

   uint32_t copy;
   if (drmSyncobjCreate(screen->fd, 0, &copy)) {
      fprintf(stderr, "tessera: fence syncobj creation failed: %s\n", strerror(errno));
      FREE(f);
      return NULL;
   }
   /* Copy the fence the context's syncobj holds now. EINVAL means nothing
    * was ever submitted to it: nothing to wait for. */
   if (drmSyncobjTransfer(screen->fd, copy, 0, syncobj, 0, 0)) {
      if (errno != EINVAL)
         fprintf(stderr, "tessera: fence copy failed: %s\n", strerror(errno));
      drmSyncobjDestroy(screen->fd, copy);
      return f;
   }
   f->syncobj = copy;
   return f;
}

static void
tessera_fence_destroy(struct pipe_fence_handle *f)
{
   if (f->syncobj)
      drmSyncobjDestroy(f->screen->fd, f->syncobj);
   FREE(f);
}

static void
tessera_fence_reference(struct pipe_screen *pscreen, struct pipe_fence_handle **ptr,
                        struct pipe_fence_handle *f)
{
   struct pipe_fence_handle *old = *ptr;
   if (pipe_reference(old ? &old->reference : NULL, f ? &f->reference : NULL))
      tessera_fence_destroy(old);
   *ptr = f;
}

bool
tessera_fence_wait(struct pipe_fence_handle *f, uint64_t timeout_ns)
{
   if (!f || !f->syncobj)
      return true;
   int64_t abs = timeout_ns == PIPE_TIMEOUT_INFINITE
                    ? INT64_MAX
                    : os_time_get_absolute_timeout(timeout_ns);
   uint32_t h = f->syncobj;
   int ret = drmSyncobjWait(f->screen->fd, &h, 1, abs,
                            DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, NULL);
   if (ret && errno != ETIME)
      fprintf(stderr, "tessera: fence wait failed: %s\n", strerror(errno));
   return ret == 0;
}

static bool
tessera_fence_finish(struct pipe_screen *pscreen, struct pipe_context *ctx,
                     struct pipe_fence_handle *f, uint64_t timeout)
{
   /* Fences are only created at flush time, after submission: there is
    * nothing deferred to flush here. */
   return tessera_fence_wait(f, timeout);
}

void
tessera_init_screen_fence_functions(struct pipe_screen *screen)
{
   screen->fence_reference = tessera_fence_reference;
   screen->fence_finish = tessera_fence_finish;
}

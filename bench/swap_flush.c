/* SPDX-License-Identifier: MIT */
/*
 * bench-swap-flush.so: an LD_PRELOAD object for bench/gl_capture_overhead
 * that does to a live program exactly one thing the capture layer does:
 * glFlush() before every eglSwapBuffers (capture/cap_layer.c,
 * flush_before_swap), and nothing else. The interposition itself is the
 * layer's (capture/cap_interpose.h), so the two cannot drift apart.
 *
 * CONTRACT
 * - eglSwapBuffers, called directly or through a pointer that dlsym()
 *   returned for a library handle (waffle, hence eglretrace, looks it up
 *   that way), first calls the context's glFlush (from the same library's
 *   eglGetProcAddress), then the real eglSwapBuffers.
 * - Every other dlsym() lookup reaches the real dlsym unchanged (a tail
 *   call, so RTLD_NEXT still resolves relative to the original caller).
 *
 * Why: a window surface's swap flushes the context; a pbuffer's or a
 * surfaceless context's (eglretrace --headless) does not, and the tessera
 * driver then merges several frames into one render pass (a clear after
 * draws stays in the pass: gallium/driver/tessera_draw.c). The layer's
 * flush makes every frame a pass of its own, so against an unflushed live
 * run the capture also pays for the passes the merge saved, a cost that a
 * program drawing to a window never sees. The bench measures against both
 * baselines and says which is which.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>

#include "capture/cap_interpose.h"

#define EXPORT __attribute__((visibility("default")))

typedef unsigned (*swap_fn)(void *, void *);

static _Atomic(cap_ip_dlsym_fn) real_dlsym;
static void *_Atomic handle_swap;
static _Atomic(cap_ip_gpa_fn) handle_gpa;

CAP_NO_SANITIZE static cap_ip_dlsym_fn
find_real_dlsym(void)
{
   cap_ip_dlsym_fn fn = cap_ip_find_real_dlsym();
   real_dlsym = fn;
   return fn;
}

EXPORT unsigned
eglSwapBuffers(void *dpy, void *surface)
{
   static _Atomic(swap_fn) next;
   if (!real_dlsym && !find_real_dlsym())
      return 0;
   swap_fn fn = next;
   if (!fn) {
      fn = (swap_fn)real_dlsym(RTLD_NEXT, "eglSwapBuffers");
      if (!fn)
         fn = (swap_fn)atomic_load(&handle_swap);
      next = fn;
   }
   cap_ip_flush_before_swap(&handle_gpa, real_dlsym);
   return fn ? fn(dpy, surface) : 0;
}

#if defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("optimize-sibling-calls")))
#endif
CAP_NO_SANITIZE EXPORT void *
dlsym(void *handle, const char *name)
{
   if (!real_dlsym && !find_real_dlsym())
      return NULL;
   if (handle != RTLD_NEXT && handle != RTLD_DEFAULT && strcmp(name, "eglSwapBuffers") == 0)
      return cap_ip_swap_lookup(real_dlsym, handle, name, (void *)eglSwapBuffers, &handle_swap,
                                &handle_gpa);
   return real_dlsym(handle, name);
}

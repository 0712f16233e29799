/* SPDX-License-Identifier: MIT */
/*
 * bench-swap-flush.so: an LD_PRELOAD object for bench/gl_capture_overhead
 * that does to a live program exactly one thing the capture layer does:
 * glFlush() before every eglSwapBuffers (capture/cap_layer.c,
 * flush_before_swap), and nothing else.
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

#define EXPORT __attribute__((visibility("default")))
/* ASan's runtime looks its interceptors up with dlsym(RTLD_NEXT, ...) while
 * it initialises, before its shadow memory exists: in a sanitizer build the
 * pass-through path must not be instrumented (as in capture/cap_layer.c). */
#if defined(__GNUC__)
#define SF_NO_SANITIZE __attribute__((no_sanitize("address", "undefined")))
#else
#define SF_NO_SANITIZE
#endif

typedef unsigned (*swap_fn)(void *, void *);
typedef void (*flush_fn)(void);
typedef flush_fn (*gpa_fn)(const char *);
typedef void *(*dlsym_fn)(void *, const char *);

static _Atomic(dlsym_fn) real_dlsym;
static _Atomic(swap_fn) handle_swap;
static _Atomic(gpa_fn) handle_gpa;

SF_NO_SANITIZE static dlsym_fn
find_real_dlsym(void)
{
   /* dlsym moved into libc in glibc 2.34 */
   static const char *const versions[] = { "GLIBC_2.34", "GLIBC_2.2.5", "GLIBC_2.17" };
   dlsym_fn fn = NULL;
   for (unsigned i = 0; !fn && i < sizeof(versions) / sizeof(versions[0]); i++)
      fn = (dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", versions[i]);
   real_dlsym = fn;
   return fn;
}

EXPORT unsigned
eglSwapBuffers(void *dpy, void *surface)
{
   static _Atomic(swap_fn) next;
   static _Atomic(flush_fn) flush;
   if (!real_dlsym && !find_real_dlsym())
      return 0;
   swap_fn fn = next;
   if (!fn) {
      fn = (swap_fn)real_dlsym(RTLD_NEXT, "eglSwapBuffers");
      if (!fn)
         fn = handle_swap;
      next = fn;
   }
   flush_fn f = flush;
   if (!f) {
      gpa_fn gpa = handle_gpa;
      if (!gpa)
         gpa = (gpa_fn)real_dlsym(RTLD_NEXT, "eglGetProcAddress");
      f = gpa ? gpa("glFlush") : NULL;
      flush = f;
   }
   if (f)
      f();
   return fn ? fn(dpy, surface) : 0;
}

#if defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("optimize-sibling-calls")))
#endif
SF_NO_SANITIZE EXPORT void *
dlsym(void *handle, const char *name)
{
   if (!real_dlsym && !find_real_dlsym())
      return NULL;
   if (handle != RTLD_NEXT && handle != RTLD_DEFAULT &&
       strcmp(name, "eglSwapBuffers") == 0) {
      void *fn = real_dlsym(handle, name);
      if (fn && fn != (void *)eglSwapBuffers) {
         handle_gpa = (gpa_fn)real_dlsym(handle, "eglGetProcAddress");
         handle_swap = (swap_fn)fn;
         return (void *)eglSwapBuffers;
      }
      return fn;
   }
   return real_dlsym(handle, name);
}

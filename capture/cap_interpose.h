/* SPDX-License-Identifier: MIT */
/*
 * The eglSwapBuffers/dlsym interposition that the capture layer
 * (capture/cap_layer.c) and the benchmark's flush-only preload
 * (bench/swap_flush.c, bench/gl_capture_overhead's live+flush baseline)
 * share, so that the baseline does exactly what the layer does before a
 * swap and nothing else.
 *
 * CONTRACT
 * - Header only (static functions): each preloaded object gets its own
 *   copy, so RTLD_NEXT in them resolves relative to that object.
 * - cap_ip_find_real_dlsym(): glibc's dlsym, found with dlvsym (which is
 *   not interposed; dlsym moved into libc in glibc 2.34), or NULL. Safe
 *   before the sanitizers' shadow memory exists (not instrumented).
 * - cap_ip_swap_lookup(): for an interposed dlsym() on a library handle
 *   (not RTLD_NEXT/RTLD_DEFAULT) that asks for eglSwapBuffers: looks the
 *   name up in the handle with `real`; a function other than `ours` is
 *   remembered in *swap (and the handle's eglGetProcAddress in *gpa) and
 *   `ours` is returned instead; else what the lookup found.
 * - cap_ip_flush_before_swap(): calls the program's glFlush, found once
 *   with *gpa (the eglGetProcAddress of the library the program's
 *   eglSwapBuffers came from) or else `lookup(RTLD_NEXT,
 *   "eglGetProcAddress")`; does nothing if there is none.
 *
 * Why the flush (docs/capture.md, "Frames"): eglSwapBuffers flushes the
 * context only for window surfaces; on a pbuffer or a surfaceless context
 * (eglretrace --headless) a frame's work would reach the kernel with the
 * next frame's first flush, after the frame marker. Why dlsym: a program
 * that dlopen()s libEGL and looks eglSwapBuffers up on that handle
 * (waffle, hence apitrace's eglretrace) never sees LD_PRELOAD's symbol.
 */
#ifndef CAP_INTERPOSE_H
#define CAP_INTERPOSE_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/* ASan's runtime looks its interceptors up with dlsym(RTLD_NEXT, ...) while
 * it initialises, before its shadow memory exists: in a sanitizer build
 * the pass-through path must not be instrumented (a shadow check of the
 * cached pointer or of the version table faults there). */
#if defined(__GNUC__)
#define CAP_NO_SANITIZE __attribute__((no_sanitize("address", "undefined")))
#else
#define CAP_NO_SANITIZE
#endif

typedef void *(*cap_ip_dlsym_fn)(void *, const char *);
typedef void *(*cap_ip_gpa_fn)(const char *);
typedef void (*cap_ip_flush_fn)(void);

CAP_NO_SANITIZE static inline cap_ip_dlsym_fn
cap_ip_find_real_dlsym(void)
{
   static const char *const versions[] = { "GLIBC_2.34", "GLIBC_2.2.5", "GLIBC_2.17" };
   cap_ip_dlsym_fn fn = NULL;
   for (unsigned i = 0; !fn && i < sizeof(versions) / sizeof(versions[0]); i++)
      fn = (cap_ip_dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", versions[i]);
   return fn;
}

static inline void *
cap_ip_swap_lookup(cap_ip_dlsym_fn real, void *handle, const char *name, void *ours,
                   void *_Atomic *swap, _Atomic(cap_ip_gpa_fn) *gpa)
{
   void *fn = real(handle, name);
   /* A handle whose scope is global (dlopen(NULL)) finds `ours` itself. */
   if (!fn || fn == ours)
      return fn;
   atomic_store(gpa, (cap_ip_gpa_fn)real(handle, "eglGetProcAddress"));
   atomic_store(swap, fn);
   return ours;
}

static inline void
cap_ip_flush_before_swap(_Atomic(cap_ip_gpa_fn) *gpa, cap_ip_dlsym_fn lookup)
{
   static _Atomic(cap_ip_flush_fn) flush;
   static atomic_bool looked;
   cap_ip_flush_fn fn = atomic_load(&flush);
   if (!fn && !atomic_load(&looked)) {
      cap_ip_gpa_fn g = atomic_load(gpa);
      if (!g && lookup)
         g = (cap_ip_gpa_fn)lookup(RTLD_NEXT, "eglGetProcAddress");
      /* EGL 1.5 / libglvnd answer core GL functions too */
      fn = g ? (cap_ip_flush_fn)g("glFlush") : NULL;
      atomic_store(&flush, fn);
      atomic_store(&looked, true);
   }
   if (fn)
      fn();
}

#endif

/* SPDX-License-Identifier: MIT */
/*
 * The tessera screen: one Asahi render node, one GPU VM, and the GEM
 * buffer objects allocated in it.
 *
 * VA layout (userspace chooses it in the upstream uAPI): inside
 * [params.vm_start, params.vm_end) minus the kernel range handed to
 * VM_CREATE at the top,
 *   - the USC heap: 4 GiB, 4 GiB-aligned; shaders, USC words, bg/eot
 *     programs (TESSERA_BO_LOW_VA). Its base is the queue's usc_exec_base,
 *     so pipeline words hold 32-bit offsets from it;
 *   - the main heap after it: everything else.
 * Every allocation is followed by a guard page (over-reads fault instead
 * of landing in a neighbour).
 *
 * Thread-safety: BO allocation and the heaps are protected by bo_lock;
 * a BO's refcount is atomic.
 */
#ifndef TESSERA_SCREEN_H
#define TESSERA_SCREEN_H

#include <stdbool.h>
#include <stdint.h>

#include "pipe/p_screen.h"
#include "pipe/p_state.h"
#include "util/hash_table.h"
#include "util/simple_mtx.h"
#include "util/u_atomic.h"
#include "util/vma.h"
#include "drm-uapi/asahi_drm.h"

struct sw_winsys;

/* TESSERA_DEBUG=flag,flag (Mesa style, util/u_debug). */
enum tessera_debug {
   TESSERA_DBG_SHADERS = 1 << 0,   /* print NIR and disassembly of every variant */
   TESSERA_DBG_SYNC    = 1 << 1,   /* wait for every submission */
   TESSERA_DBG_TRACE   = 1 << 2,   /* decode every submitted command stream to stderr */
   TESSERA_DBG_FLUSH   = 1 << 3,   /* print why each batch was flushed */
   TESSERA_DBG_PERF    = 1 << 4,   /* print slow paths taken (CPU blits, waits) */
   TESSERA_DBG_NOTWIDDLE = 1 << 5, /* allocate every texture linear */
};

enum tessera_bo_flags {
   TESSERA_BO_LOW_VA  = 1 << 0,    /* in the USC heap (code and USC words) */
   TESSERA_BO_SHARED  = 1 << 1,    /* exported / imported: not VM-private */
   /* Bound DRM_ASAHI_BIND_READ only: the GPU never writes it (code, command
    * pools, buffers, sampled-only textures). Least privilege: a GPU write
    * faults instead of corrupting silently, and tools that must re-read
    * what the GPU may have written (the capture layer, at every frame)
    * can skip it. Ignored with TESSERA_BO_SHARED (another process may
    * render to it). tessera_bo_make_writable() drops it. */
   TESSERA_BO_GPU_READONLY = 1 << 2,
};

struct tessera_bo {
   struct tessera_screen *screen;
   uint32_t handle;                /* GEM handle */
   uint64_t size;                  /* bytes, page aligned */
   uint64_t va;                    /* GPU address */
   void *map;                      /* CPU mapping (always mapped, lazily) */
   unsigned flags;
   const char *label;
   int32_t refcnt;
};

struct tessera_screen {
   struct pipe_screen base;
   int fd;                         /* owned (dup'd or opened) */
   struct sw_winsys *winsys;       /* sw path: presentation target, else NULL */
   struct drm_asahi_params_global params;
   uint32_t vm_id;
   uint64_t usc_base;              /* USC heap base = queue usc_exec_base */
   unsigned debug;                 /* enum tessera_debug */
   char name[64];                  /* "tessera (Apple M1 G13G A0, model)" */
   uint64_t kernel_start, kernel_end; /* VA range handed to VM_CREATE */

   simple_mtx_t bo_lock;
   struct util_vma_heap main_heap;
   struct util_vma_heap usc_heap;

   /* Shared BOs by GEM handle: importing a dma-buf the file already has
    * (our own export, or the same buffer twice) returns the same handle,
    * which must stay one BO (one GEM_CLOSE). Protected by shared_lock,
    * which also covers the last unreference of a shared BO. */
   simple_mtx_t shared_lock;
   struct hash_table_u64 *shared_bos;
};

static inline struct tessera_screen *
tessera_screen(struct pipe_screen *p)
{
   return (struct tessera_screen *)p;
}

/* A new zero-filled BO bound into the screen's VM; NULL on failure (the
 * reason printed once). */
struct tessera_bo *tessera_bo_create(struct tessera_screen *s, uint64_t size,
                                     unsigned flags, const char *label);
void *tessera_bo_map(struct tessera_bo *bo);

/* Rebinds a TESSERA_BO_GPU_READONLY BO read-write at the same address (for
 * a resource the GPU is about to write though it was not created for
 * that); no-op otherwise. False if the rebind failed (reason printed). */
bool tessera_bo_make_writable(struct tessera_bo *bo);

/* Imports a dma-buf (a shared BO bound into our VM); min_size is what the
 * caller's image needs when the dma-buf does not report its size. */
struct tessera_bo *tessera_bo_import(struct tessera_screen *s, int dmabuf_fd,
                                     uint64_t min_size, const char *label);
/* A new reference to our shared BO with that GEM handle (a KMS handle we
 * handed out), or NULL: foreign handles are not ours to close. */
struct tessera_bo *tessera_bo_lookup_shared(struct tessera_screen *s, uint32_t handle,
                                            uint64_t min_size);
/* A new PRIME fd for a TESSERA_BO_SHARED BO, or -1 (reason printed). */
int tessera_bo_export(struct tessera_bo *bo);

static inline void
tessera_bo_reference(struct tessera_bo *bo)
{
   p_atomic_inc(&bo->refcnt);
}

/* Drops a reference; the last one unbinds, frees the VA and closes. */
void tessera_bo_unreference(struct tessera_bo *bo);

/* Offset of a LOW_VA address from usc_base (the 32-bit USC offsets). */
static inline uint32_t
tessera_usc_offset(const struct tessera_screen *s, uint64_t va)
{
   return (uint32_t)(va - s->usc_base);
}

#endif

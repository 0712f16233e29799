/* SPDX-License-Identifier: MIT */
/*
 * GEM buffer objects in the screen's VM.
 *
 * Every BO is created by GEM_CREATE (VM-private unless it may be shared:
 * private objects can only be bound in our VM and never exported), gets a
 * VA from one of the screen's heaps followed by one unmapped guard page,
 * and is bound there with VM_BIND. The CPU mapping (GEM_MMAP_OFFSET +
 * mmap of the DRM fd) is made on first use and kept until the BO dies.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <xf86drm.h>

#include "util/u_math.h"
#include "util/u_memory.h"

#include "tessera_screen.h"

#define TESSERA_PAGE 16384ull

static int
tessera_ioctl(int fd, unsigned long req, void *arg)
{
   return drmIoctl(fd, req, arg) ? -errno : 0;
}

static uint64_t
va_alloc(struct tessera_screen *s, uint64_t size, unsigned flags)
{
   struct util_vma_heap *heap = (flags & TESSERA_BO_LOW_VA) ? &s->usc_heap : &s->main_heap;
   simple_mtx_lock(&s->bo_lock);
   /* One guard page after the object: over-reads fault instead of
    * reading a neighbour. */
   uint64_t va = util_vma_heap_alloc(heap, size + TESSERA_PAGE, TESSERA_PAGE);
   simple_mtx_unlock(&s->bo_lock);
   return va;
}

static void
va_free(struct tessera_screen *s, uint64_t va, uint64_t size, unsigned flags)
{
   struct util_vma_heap *heap = (flags & TESSERA_BO_LOW_VA) ? &s->usc_heap : &s->main_heap;
   simple_mtx_lock(&s->bo_lock);
   util_vma_heap_free(heap, va, size + TESSERA_PAGE);
   simple_mtx_unlock(&s->bo_lock);
}

/* Least privilege: GPU-read-only BOs are bound without WRITE, so a stray
 * GPU write faults (the model's MMU checks the PTE's write permission). */
static uint32_t
bind_flags(unsigned bo_flags)
{
   return (bo_flags & TESSERA_BO_GPU_READONLY) ? DRM_ASAHI_BIND_READ
                                               : DRM_ASAHI_BIND_READ | DRM_ASAHI_BIND_WRITE;
}

static int
vm_bind(struct tessera_screen *s, uint32_t handle, uint64_t va, uint64_t size,
        uint32_t op_flags)
{
   struct drm_asahi_gem_bind_op op = {
      .flags = op_flags,
      .handle = (op_flags & DRM_ASAHI_BIND_UNBIND) ? 0 : handle,
      .offset = 0,
      .range = size,
      .addr = va,
   };
   struct drm_asahi_vm_bind bind = {
      .vm_id = s->vm_id,
      .num_binds = 1,
      .stride = sizeof(op),
      .userptr = (uintptr_t)&op,
   };
   return tessera_ioctl(s->fd, DRM_IOCTL_ASAHI_VM_BIND, &bind);
}

/* Wraps a GEM handle we own: VA, binding. Closes the handle on failure. */
static struct tessera_bo *
bo_wrap(struct tessera_screen *s, uint32_t handle, uint64_t size, unsigned flags,
        const char *label)
{
   struct tessera_bo *bo = CALLOC_STRUCT(tessera_bo);
   uint64_t va = bo ? va_alloc(s, size, flags) : 0;
   /* Another process may render to a shared BO: always read-write. */
   if (flags & TESSERA_BO_SHARED)
      flags &= ~TESSERA_BO_GPU_READONLY;
   int ret = va ? vm_bind(s, handle, va, size, bind_flags(flags)) : -ENOMEM;
   if (ret) {
      fprintf(stderr, "tessera: cannot place BO '%s' (%llu bytes) in the VM: %s\n",
              label, (unsigned long long)size, strerror(-ret));
      if (va)
         va_free(s, va, size, flags);
      FREE(bo);
      struct drm_gem_close close_args = {.handle = handle};
      drmIoctl(s->fd, DRM_IOCTL_GEM_CLOSE, &close_args);
      return NULL;
   }
   bo->screen = s;
   bo->handle = handle;
   bo->size = size;
   bo->va = va;
   bo->flags = flags;
   bo->label = label;
   bo->refcnt = 1;
   return bo;
}

struct tessera_bo *
tessera_bo_create(struct tessera_screen *s, uint64_t size, unsigned flags, const char *label)
{
   if (size == 0)
      size = 1;
   size = align64(size, TESSERA_PAGE);

   struct drm_asahi_gem_create create = {
      .size = size,
      /* Write-back CPU mappings: the model shares cache-coherent memory
       * with the CPU, and write-combined reads (transfers, readback)
       * would be slow on real hardware too. */
      .flags = DRM_ASAHI_GEM_WRITEBACK,
   };
   if (!(flags & TESSERA_BO_SHARED)) {
      create.flags |= DRM_ASAHI_GEM_VM_PRIVATE;
      create.vm_id = s->vm_id;
   }
   int ret = tessera_ioctl(s->fd, DRM_IOCTL_ASAHI_GEM_CREATE, &create);
   if (ret) {
      fprintf(stderr, "tessera: GEM_CREATE of %llu bytes for '%s' failed: %s\n",
              (unsigned long long)size, label, strerror(-ret));
      return NULL;
   }
   struct tessera_bo *bo = bo_wrap(s, create.handle, size, flags, label);
   if (bo && (flags & TESSERA_BO_SHARED)) {
      simple_mtx_lock(&s->shared_lock);
      _mesa_hash_table_u64_insert(s->shared_bos, bo->handle, bo);
      simple_mtx_unlock(&s->shared_lock);
   }
   return bo;
}

struct tessera_bo *
tessera_bo_import(struct tessera_screen *s, int dmabuf_fd, uint64_t min_size,
                  const char *label)
{
   uint32_t handle;
   simple_mtx_lock(&s->shared_lock);
   if (drmPrimeFDToHandle(s->fd, dmabuf_fd, &handle)) {
      fprintf(stderr, "tessera: cannot import dma-buf fd %d: %s\n", dmabuf_fd,
              strerror(errno));
      simple_mtx_unlock(&s->shared_lock);
      return NULL;
   }
   /* Already ours (imported before, or exported by us): same BO. */
   struct tessera_bo *bo = _mesa_hash_table_u64_search(s->shared_bos, handle);
   if (bo) {
      if (bo->size < min_size) {
         fprintf(stderr, "tessera: imported dma-buf holds %llu bytes, the image needs %llu\n",
                 (unsigned long long)bo->size, (unsigned long long)min_size);
         bo = NULL;
      } else {
         tessera_bo_reference(bo);
      }
      simple_mtx_unlock(&s->shared_lock);
      return bo;
   }
   /* The dma-buf's size when the exporter reports it; else what the
    * importer says the image needs. */
   off_t end = lseek(dmabuf_fd, 0, SEEK_END);
   uint64_t size = end > 0 ? (uint64_t)end : min_size;
   if (size < min_size) {
      fprintf(stderr, "tessera: imported dma-buf holds %llu bytes, the image needs %llu\n",
              (unsigned long long)size, (unsigned long long)min_size);
      struct drm_gem_close close_args = {.handle = handle};
      drmIoctl(s->fd, DRM_IOCTL_GEM_CLOSE, &close_args);
      simple_mtx_unlock(&s->shared_lock);
      return NULL;
   }
   bo = bo_wrap(s, handle, align64(size, TESSERA_PAGE), TESSERA_BO_SHARED, label);
   if (bo)
      _mesa_hash_table_u64_insert(s->shared_bos, handle, bo);
   simple_mtx_unlock(&s->shared_lock);
   return bo;
}

struct tessera_bo *
tessera_bo_lookup_shared(struct tessera_screen *s, uint32_t handle, uint64_t min_size)
{
   simple_mtx_lock(&s->shared_lock);
   struct tessera_bo *bo = _mesa_hash_table_u64_search(s->shared_bos, handle);
   if (bo && bo->size >= min_size)
      tessera_bo_reference(bo);
   else
      bo = NULL;
   simple_mtx_unlock(&s->shared_lock);
   if (!bo)
      fprintf(stderr, "tessera: GEM handle %u is not a shared BO of this screen "
              "(foreign KMS handles are not imported: use a dma-buf fd)\n", handle);
   return bo;
}

int
tessera_bo_export(struct tessera_bo *bo)
{
   if (!(bo->flags & TESSERA_BO_SHARED)) {
      fprintf(stderr, "tessera: BO '%s' is VM-private and cannot be exported\n", bo->label);
      return -1;
   }
   int fd = -1;
   if (drmPrimeHandleToFD(bo->screen->fd, bo->handle, DRM_CLOEXEC | DRM_RDWR, &fd)) {
      fprintf(stderr, "tessera: PRIME export of '%s' failed: %s\n", bo->label,
              strerror(errno));
      return -1;
   }
   return fd;
}

void *
tessera_bo_map(struct tessera_bo *bo)
{
   void *map = p_atomic_read(&bo->map);
   if (map)
      return map;

   struct tessera_screen *s = bo->screen;
   struct drm_asahi_gem_mmap_offset mo = {.handle = bo->handle};
   int ret = tessera_ioctl(s->fd, DRM_IOCTL_ASAHI_GEM_MMAP_OFFSET, &mo);
   if (ret) {
      fprintf(stderr, "tessera: GEM_MMAP_OFFSET of '%s' failed: %s\n", bo->label,
              strerror(-ret));
      return NULL;
   }
   map = mmap(NULL, bo->size, PROT_READ | PROT_WRITE, MAP_SHARED, s->fd, mo.offset);
   if (map == MAP_FAILED) {
      fprintf(stderr, "tessera: mmap of '%s' failed: %s\n", bo->label, strerror(errno));
      return NULL;
   }
   /* Two threads may race to map: keep the first mapping. */
   void *prev = p_atomic_cmpxchg(&bo->map, NULL, map);
   if (prev) {
      munmap(map, bo->size);
      return prev;
   }
   return map;
}

bool
tessera_bo_make_writable(struct tessera_bo *bo)
{
   if (!(p_atomic_read(&bo->flags) & TESSERA_BO_GPU_READONLY))
      return true;
   struct tessera_screen *s = bo->screen;
   /* Binding over the mapping replaces it (same pages, same VA) and the
    * kernel invalidates the TLB; work in flight only reads the BO. */
   simple_mtx_lock(&s->bo_lock);
   int ret = 0;
   if (bo->flags & TESSERA_BO_GPU_READONLY) {
      ret = vm_bind(s, bo->handle, bo->va, bo->size,
                    bind_flags(bo->flags & ~TESSERA_BO_GPU_READONLY));
      if (!ret)
         p_atomic_set(&bo->flags, bo->flags & ~TESSERA_BO_GPU_READONLY);
   }
   simple_mtx_unlock(&s->bo_lock);
   if (ret)
      fprintf(stderr, "tessera: rebinding '%s' writable failed: %s\n", bo->label,
              strerror(-ret));
   return !ret;
}

void
tessera_bo_unreference(struct tessera_bo *bo)
{
   if (!bo)
      return;
   struct tessera_screen *s = bo->screen;
   if (bo->flags & TESSERA_BO_SHARED) {
      /* An import may look the BO up and reference it concurrently. */
      simple_mtx_lock(&s->shared_lock);
      bool last = p_atomic_dec_return(&bo->refcnt) == 0;
      if (last)
         _mesa_hash_table_u64_remove(s->shared_bos, bo->handle);
      simple_mtx_unlock(&s->shared_lock);
      if (!last)
         return;
   } else if (p_atomic_dec_return(&bo->refcnt) != 0) {
      return;
   }

   if (bo->map)
      munmap(bo->map, bo->size);
   int ret = vm_bind(s, 0, bo->va, bo->size, DRM_ASAHI_BIND_UNBIND);
   if (ret)
      fprintf(stderr, "tessera: unbinding '%s' failed: %s\n", bo->label, strerror(-ret));
   else
      va_free(s, bo->va, bo->size, bo->flags);
   /* A failed unbind leaks the VA range rather than reusing live PTEs. */
   struct drm_gem_close close_args = {.handle = bo->handle};
   drmIoctl(s->fd, DRM_IOCTL_GEM_CLOSE, &close_args);
   FREE(bo);
}

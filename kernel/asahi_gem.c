/* SPDX-License-Identifier: MIT */
/*
 * GEM objects: physically contiguous runs of the model's memory, so a CPU
 * mapping is one mmap of the memory fd and the GPU sees the very same
 * pages. PRIME exports and timestamp objects (GEM_BIND_OBJECT) live here
 * too.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <drm.h>

#include "kernel/asahi_priv.h"

/* The mmap offset of an object is its place in the memory fd: unique,
 * page aligned, and what the shim passes to mmap() on that fd. */
static uint64_t
bo_mmap_offset(const struct asahi_bo *bo)
{
   return bo->pa - HW_PHYS_BASE;
}

static struct asahi_bo *
bo_create(struct asahi_dev *dev, uint64_t size, uint32_t flags, struct asahi_vm *vm)
{
   struct asahi_bo *bo = os_zalloc(sizeof(*bo));
   if (!bo)
      return NULL;
   bo->pa = hw_phys_alloc(dev->hw, size / ASAHI_PAGE);
   if (!bo->pa) {
      os_free(bo);
      return NULL;
   }
   bo->refcnt = 1;
   bo->size = size;
   bo->flags = flags;
   bo->vm_serial = vm ? vm->serial : 0;
   bo->export_fd = -1;
   bo->next = dev->bos;
   if (dev->bos)
      dev->bos->prev = bo;
   dev->bos = bo;
   return bo;
}

void
asahi_bo_put(struct asahi_dev *dev, struct asahi_bo *bo)
{
   if (--bo->refcnt)
      return;
   if (bo->prev)
      bo->prev->next = bo->next;
   else
      dev->bos = bo->next;
   if (bo->next)
      bo->next->prev = bo->prev;
   if (bo->export_fd >= 0)
      close(bo->export_fd);
   asahi_fence_put(bo->resv_write);
   asahi_fence_put(bo->resv_read);
   hw_phys_free(dev->hw, bo->pa, bo->size / ASAHI_PAGE);
   os_free(bo);
}

struct asahi_bo *
asahi_bo_lookup(struct asahi_file *f, uint32_t handle)
{
   return asahi_idr_find(&f->gems, handle);
}

int
asahi_ioctl_gem_create(struct asahi_file *f, void *data)
{
   struct drm_asahi_gem_create *a = data;
   if (a->flags & ~(uint32_t)(DRM_ASAHI_GEM_WRITEBACK | DRM_ASAHI_GEM_VM_PRIVATE))
      return -EINVAL;
   if (a->pad || !a->size || a->size > ASAHI_MAX_GEM_SIZE)
      return -EINVAL;
   if (!(a->flags & DRM_ASAHI_GEM_VM_PRIVATE) && a->vm_id)
      return -EINVAL;
   uint64_t size = (a->size + ASAHI_PAGE_MASK) & ~ASAHI_PAGE_MASK;
   struct asahi_dev *dev = f->dev;
   os_mutex_lock(&dev->lock);
   struct asahi_vm *vm = NULL;
   int ret = 0;
   if (a->flags & DRM_ASAHI_GEM_VM_PRIVATE) {
      vm = asahi_idr_find(&f->vms, a->vm_id);
      if (!vm) {
         ret = -ENOENT;
         goto out;
      }
   }
   struct asahi_bo *bo = bo_create(dev, size, a->flags, vm);
   if (!bo) {
      ret = -ENOMEM;
      goto out;
   }
   uint32_t h;
   ret = asahi_idr_alloc(&f->gems, bo, &h);
   if (ret) {
      asahi_bo_put(dev, bo);
      goto out;
   }
   a->handle = h;
out:
   os_mutex_unlock(&dev->lock);
   return ret;
}

int
asahi_ioctl_gem_mmap_offset(struct asahi_file *f, void *data)
{
   struct drm_asahi_gem_mmap_offset *a = data;
   if (a->flags)
      return -EINVAL;
   os_mutex_lock(&f->dev->lock);
   struct asahi_bo *bo = asahi_bo_lookup(f, a->handle);
   if (bo)
      a->offset = bo_mmap_offset(bo);
   os_mutex_unlock(&f->dev->lock);
   return bo ? 0 : -ENOENT;
}

int
asahi_mmap_resolve(struct asahi_file *f, uint64_t offset, uint64_t size,
                   uint64_t *arena_offset)
{
   if (!f || !size || !asahi_aligned(offset))
      return -EINVAL;
   struct asahi_dev *dev = f->dev;
   int ret = -EACCES;
   os_mutex_lock(&dev->lock);
   /* As drm_gem_mmap(): the offset must name an object this file holds a
    * handle to, and the mapping must stay inside it. */
   uint32_t id = 0;
   struct asahi_bo *bo;
   while ((bo = asahi_idr_next(&f->gems, &id))) {
      uint64_t start = bo_mmap_offset(bo);
      if (offset >= start && offset < start + bo->size) {
         ret = size <= bo->size - (offset - start) ? 0 : -EINVAL;
         *arena_offset = offset;
         break;
      }
   }
   os_mutex_unlock(&dev->lock);
   return ret;
}

int
asahi_ioctl_gem_close(struct asahi_file *f, void *data)
{
   struct drm_gem_close *a = data;
   if (a->pad)
      return -EINVAL;
   os_mutex_lock(&f->dev->lock);
   struct asahi_bo *bo = asahi_idr_remove(&f->gems, a->handle);
   if (bo)
      asahi_bo_put(f->dev, bo);
   os_mutex_unlock(&f->dev->lock);
   return bo ? 0 : -EINVAL;
}

void
asahi_file_release_gems(struct asahi_file *f)
{
   uint32_t id = 0;
   struct asahi_bo *bo;
   while ((bo = asahi_idr_next(&f->gems, &id)))
      asahi_bo_put(f->dev, bo);
}

/* ----------------------------------------------------------------- PRIME */

/*
 * A dma-buf is a file of its own in the kernel. Here, an exported object
 * gets one memfd that identifies it (by inode); each export hands out a
 * dup of it, and FD_TO_HANDLE recognises any fd with that inode.
 */
static int
export_fd_for(int *fdp, ino_t *ino, const char *name)
{
   if (*fdp < 0) {
      int fd = memfd_create(name, MFD_CLOEXEC);
      if (fd < 0)
         return -ENOMEM;
      struct stat st;
      if (fstat(fd, &st)) {
         close(fd);
         return -ENOMEM;
      }
      *fdp = fd;
      *ino = st.st_ino;
   }
   return 0;
}

int
asahi_export_fd(int *fdp, ino_t *ino, const char *name, uint32_t flags)
{
   int r = export_fd_for(fdp, ino, name);
   if (r)
      return r;
   int fd = fcntl(*fdp, (flags & O_CLOEXEC) ? F_DUPFD_CLOEXEC : F_DUPFD, 3);
   return fd < 0 ? -EMFILE : fd;
}

int
asahi_fd_ino(int fd, ino_t *ino)
{
   struct stat st;
   if (fd < 0 || fstat(fd, &st))
      return -EBADF;
   *ino = st.st_ino;
   return 0;
}

int
asahi_ioctl_prime_handle_to_fd(struct asahi_file *f, void *data)
{
   struct drm_prime_handle *a = data;
   if (a->flags & ~(uint32_t)(DRM_CLOEXEC | DRM_RDWR))
      return -EINVAL;
   int ret;
   os_mutex_lock(&f->dev->lock);
   struct asahi_bo *bo = asahi_bo_lookup(f, a->handle);
   if (!bo)
      ret = -ENOENT;
   else if (bo->flags & DRM_ASAHI_GEM_VM_PRIVATE)
      ret = -EINVAL;     /* private objects never leave their VM */
   else
      ret = asahi_export_fd(&bo->export_fd, &bo->export_ino, "asahi-dmabuf",
                            (a->flags & DRM_CLOEXEC) ? O_CLOEXEC : 0);
   os_mutex_unlock(&f->dev->lock);
   if (ret < 0)
      return ret;
   a->fd = ret;
   return 0;
}

int
asahi_ioctl_prime_fd_to_handle(struct asahi_file *f, void *data)
{
   struct drm_prime_handle *a = data;
   ino_t ino;
   if (a->flags)
      return -EINVAL;
   int ret = asahi_fd_ino(a->fd, &ino);
   if (ret)
      return ret;
   struct asahi_dev *dev = f->dev;
   os_mutex_lock(&dev->lock);
   struct asahi_bo *bo;
   for (bo = dev->bos; bo; bo = bo->next)
      if (bo->export_fd >= 0 && bo->export_ino == ino)
         break;
   if (!bo) {
      ret = -EINVAL;   /* not one of our dma-bufs */
      goto out;
   }
   /* Importing an object the file already has returns the same handle. */
   uint32_t id = 0;
   struct asahi_bo *it;
   while ((it = asahi_idr_next(&f->gems, &id))) {
      if (it == bo) {
         a->handle = id;
         goto out;
      }
   }
   uint32_t h;
   ret = asahi_idr_alloc(&f->gems, bo, &h);
   if (!ret) {
      bo->refcnt++;
      a->handle = h;
   }
out:
   os_mutex_unlock(&dev->lock);
   return ret;
}

/* ------------------------------------------------------ timestamp objects */

void
asahi_bind_obj_free(struct asahi_dev *dev, struct asahi_bind_obj *o)
{
   hw_uat_unmap(dev->hw, dev->kttb, o->kva, o->range);
   asahi_fw_tlbi(dev, 0xff);
   asahi_bo_put(dev, o->bo);
   os_free(o);
}

int
asahi_ioctl_gem_bind_object(struct asahi_file *f, void *data)
{
   struct drm_asahi_gem_bind_object *a = data;
   struct asahi_dev *dev = f->dev;
   if (a->pad || a->vm_id)
      return -EINVAL;
   int ret = 0;
   os_mutex_lock(&dev->lock);
   if (a->op == DRM_ASAHI_BIND_OBJECT_OP_BIND) {
      if (a->flags != DRM_ASAHI_BIND_OBJECT_USAGE_TIMESTAMPS ||
          !asahi_aligned(a->offset) || !asahi_aligned(a->range) || !a->range) {
         ret = -EINVAL;
         goto out;
      }
      struct asahi_bo *bo = asahi_bo_lookup(f, a->handle);
      if (!bo) {
         ret = -ENOENT;
         goto out;
      }
      if (a->offset > bo->size || a->range > bo->size - a->offset) {
         ret = -EINVAL;
         goto out;
      }
      if (a->range > ASAHI_KOBJ_END - dev->kobj_next) {
         ret = -ENOSPC;
         goto out;
      }
      struct asahi_bind_obj *o = os_zalloc(sizeof(*o));
      if (!o) {
         ret = -ENOMEM;
         goto out;
      }
      /* The firmware writes timestamps through the kernel half, so the
       * range is mapped there. VAs are never reused: a stale timestamp
       * op can then only fault, never scribble on another object. */
      o->kva = dev->kobj_next;
      o->bo = bo;
      o->offset = a->offset;
      o->range = a->range;
      ret = hw_uat_map(dev->hw, dev->kttb, o->kva, bo->pa + a->offset, a->range,
                       HW_UAT_READ | HW_UAT_WRITE);
      uint32_t id;
      if (!ret)
         ret = asahi_idr_alloc(&f->objects, o, &id);
      if (ret) {
         hw_uat_unmap(dev->hw, dev->kttb, o->kva, a->range);
         os_free(o);
         goto out;
      }
      dev->kobj_next += a->range;
      bo->refcnt++;
      a->object_handle = id;
   } else if (a->op == DRM_ASAHI_BIND_OBJECT_OP_UNBIND) {
      if (a->flags || a->handle || a->offset || a->range) {
         ret = -EINVAL;
         goto out;
      }
      struct asahi_bind_obj *o = asahi_idr_remove(&f->objects, a->object_handle);
      if (!o) {
         ret = -ENOENT;
         goto out;
      }
      asahi_bind_obj_free(dev, o);
   } else {
      ret = -EINVAL;
   }
out:
   os_mutex_unlock(&dev->lock);
   return ret;
}

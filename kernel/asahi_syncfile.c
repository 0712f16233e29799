/* SPDX-License-Identifier: MIT */
/*
 * Sync files and the dma-buf fence ioctls.
 *
 * In Linux a sync file is an anonymous file wrapping a dma_fence: poll()
 * reports POLLIN once the fence has signalled, SYNC_IOC_MERGE makes one
 * that waits for two, and DRM turns syncobj payloads into sync files and
 * back. A dma-buf carries a reservation object that DMA_BUF_IOCTL_
 * {EXPORT,IMPORT}_SYNC_FILE read and extend; the upstream asahi uAPI has
 * no implicit sync, so that reservation holds only what userspace put in.
 *
 * Here a sync file is one end of an AF_UNIX socket pair: the program gets
 * that end, the kernel keeps the other and sends one byte when the fence
 * signals, so the program's poll()/select()/epoll see exactly the
 * sync-file semantics without any interposition. The program's end is
 * recognised by its inode (unique while it is open). Once the program has
 * closed every copy of its end, the kernel's end sees POLLHUP, and the
 * sync file is reaped at the next lookup, before its inode can be reused.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <drm.h>
#include <linux/dma-buf.h>
#include <linux/sync_file.h>

#include "kernel/asahi_priv.h"

struct asahi_sync_file {
   struct asahi_fence *fence;
   int kfd;               /* the kernel's end */
   ino_t ino;             /* the program's end */
   bool notified;
   struct asahi_sync_file *next;
};

static void
sync_file_free(struct asahi_sync_file *sf)
{
   close(sf->kfd);
   asahi_fence_put(sf->fence);
   os_free(sf);
}

static void
sync_file_notify(struct asahi_sync_file *sf)
{
   if (sf->notified || !sf->fence->signaled)
      return;
   /* MSG_NOSIGNAL: the program may have closed its end already. */
   char one = 1;
   if (send(sf->kfd, &one, 1, MSG_NOSIGNAL | MSG_DONTWAIT) == 1 || errno == EPIPE)
      sf->notified = true;
}

/* Drops the sync files whose program end is closed everywhere. */
static void
sync_files_reap(struct asahi_dev *dev)
{
   struct asahi_sync_file **pp = &dev->sync_files;
   while (*pp) {
      struct asahi_sync_file *sf = *pp;
      struct pollfd p = { .fd = sf->kfd, .events = 0 };
      if (poll(&p, 1, 0) == 1 && (p.revents & (POLLHUP | POLLERR | POLLNVAL))) {
         *pp = sf->next;
         sync_file_free(sf);
      } else {
         pp = &sf->next;
      }
   }
}

int
asahi_sync_file_export(struct asahi_dev *dev, struct asahi_fence *f)
{
   sync_files_reap(dev);
   struct asahi_sync_file *sf = os_zalloc(sizeof(*sf));
   if (!sf)
      return -ENOMEM;
   int sv[2];
   if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
      os_free(sf);
      return errno == EMFILE || errno == ENFILE ? -EMFILE : -ENOMEM;
   }
   struct stat st;
   if (fstat(sv[1], &st)) {
      close(sv[0]);
      close(sv[1]);
      os_free(sf);
      return -ENOMEM;
   }
   /* Shutting the program's write side makes its end a pure waiter: a
    * write to it fails instead of queueing bytes the kernel never reads. */
   shutdown(sv[1], SHUT_WR);
   sf->kfd = sv[0];
   sf->ino = st.st_ino;
   sf->fence = asahi_fence_get(f);
   sf->next = dev->sync_files;
   dev->sync_files = sf;
   sync_file_notify(sf);
   return sv[1];
}

static struct asahi_sync_file *
sync_file_find(struct asahi_dev *dev, ino_t ino)
{
   sync_files_reap(dev);
   for (struct asahi_sync_file *sf = dev->sync_files; sf; sf = sf->next)
      if (sf->ino == ino)
         return sf;
   return NULL;
}

struct asahi_fence *
asahi_sync_file_fence(struct asahi_dev *dev, int fd)
{
   ino_t ino;
   struct asahi_sync_file *sf = asahi_fd_ino(fd, &ino) ? NULL : sync_file_find(dev, ino);
   return sf ? asahi_fence_get(sf->fence) : NULL;
}

void
asahi_sync_files_notify(struct asahi_dev *dev)
{
   for (struct asahi_sync_file *sf = dev->sync_files; sf; sf = sf->next)
      sync_file_notify(sf);
}

void
asahi_sync_files_fini(struct asahi_dev *dev)
{
   while (dev->sync_files) {
      struct asahi_sync_file *sf = dev->sync_files;
      dev->sync_files = sf->next;
      sync_file_free(sf);
   }
}

/* A new sync file that signals once all of fences[0..n) have: its fd. */
static int
export_merged(struct asahi_dev *dev, struct asahi_fence *const *fences, unsigned n)
{
   struct asahi_fence *m = asahi_fence_merge(dev, fences, n);
   if (!m)
      return -ENOMEM;
   int fd = asahi_sync_file_export(dev, m);
   asahi_fence_put(m);
   return fd;
}

/* Copies an ioctl's result (which carries the new fd) back; the fd is not
 * the program's until that worked. */
static int
copy_out_with_fd(void *arg, const void *data, size_t size, int fd)
{
   if (os_copy_to_user((uintptr_t)arg, data, size)) {
      close(fd);
      return -EFAULT;
   }
   return 0;
}

/* ------------------------------------------------------- sync-file ioctls */

static int
fence_status(const struct asahi_fence *f)
{
   return !f->signaled ? 0 : f->error ? f->error : 1;
}

static int
sync_ioc_merge(struct asahi_dev *dev, struct asahi_sync_file *sf, void *arg)
{
   struct sync_merge_data m;
   if (os_copy_from_user(&m, (uintptr_t)arg, sizeof(m)))
      return -EFAULT;
   if (m.flags || m.pad)
      return -EINVAL;
   struct asahi_fence *other = asahi_sync_file_fence(dev, m.fd2);
   if (!other)
      return -ENOENT;   /* sync_file_fdget fails: as the kernel's merge */
   struct asahi_fence *both[2] = { sf->fence, other };
   int fd = export_merged(dev, both, 2);
   asahi_fence_put(other);
   if (fd < 0)
      return fd;
   m.fence = fd;
   return copy_out_with_fd(arg, &m, sizeof(m), fd);
}

static int
sync_ioc_file_info(struct asahi_sync_file *sf, void *arg)
{
   struct sync_file_info info;
   if (os_copy_from_user(&info, (uintptr_t)arg, sizeof(info)))
      return -EFAULT;
   if (info.flags || info.pad)
      return -EINVAL;
   const struct asahi_fence *f = sf->fence;
   unsigned n = f->ndeps ? f->ndeps : 1;
   if (info.num_fences) {
      if (info.num_fences < n)
         return -EINVAL;
      for (unsigned i = 0; i < n; i++) {
         const struct asahi_fence *d = f->ndeps ? f->deps[i] : f;
         struct sync_fence_info fi;
         memset(&fi, 0, sizeof(fi));
         strcpy(fi.obj_name, "asahi");
         strcpy(fi.driver_name, "asahi");
         fi.status = fence_status(d);
         if (os_copy_to_user(info.sync_fence_info + i * sizeof(fi), &fi, sizeof(fi)))
            return -EFAULT;
      }
   }
   memset(info.name, 0, sizeof(info.name));
   strcpy(info.name, "asahi");
   info.status = fence_status(f);
   info.num_fences = n;
   return os_copy_to_user((uintptr_t)arg, &info, sizeof(info)) ? -EFAULT : 0;
}

/* ------------------------------------------------------- dma-buf ioctls */

static int
dma_buf_export_sync_file(struct asahi_dev *dev, struct asahi_bo *bo, void *arg)
{
   struct dma_buf_export_sync_file e;
   if (os_copy_from_user(&e, (uintptr_t)arg, sizeof(e)))
      return -EFAULT;
   if (!e.flags || (e.flags & ~(uint32_t)DMA_BUF_SYNC_RW))
      return -EINVAL;
   /* A reader waits for the writers; a writer for everyone. */
   struct asahi_fence *f[2] = { bo->resv_write,
                                (e.flags & DMA_BUF_SYNC_WRITE) ? bo->resv_read : NULL };
   int fd = export_merged(dev, f, 2);
   if (fd < 0)
      return fd;
   e.fd = fd;
   return copy_out_with_fd(arg, &e, sizeof(e), fd);
}

static int
resv_add(struct asahi_dev *dev, struct asahi_fence **slot, struct asahi_fence *f)
{
   struct asahi_fence *both[2] = { *slot, f };
   struct asahi_fence *m = asahi_fence_merge(dev, both, 2);
   if (!m)
      return -ENOMEM;
   asahi_fence_put(*slot);
   *slot = m;
   return 0;
}

static int
dma_buf_import_sync_file(struct asahi_dev *dev, struct asahi_bo *bo, void *arg)
{
   struct dma_buf_import_sync_file im;
   if (os_copy_from_user(&im, (uintptr_t)arg, sizeof(im)))
      return -EFAULT;
   if (!im.flags || (im.flags & ~(uint32_t)DMA_BUF_SYNC_RW))
      return -EINVAL;
   struct asahi_fence *f = asahi_sync_file_fence(dev, im.fd);
   if (!f)
      return -EINVAL;
   /* DMA_RESV_USAGE_WRITE when the flags name a write, else READ. */
   int ret = resv_add(dev, (im.flags & DMA_BUF_SYNC_WRITE) ? &bo->resv_write
                                                           : &bo->resv_read, f);
   asahi_fence_put(f);
   return ret;
}

static int
dma_buf_sync(void *arg)
{
   struct dma_buf_sync s;
   if (os_copy_from_user(&s, (uintptr_t)arg, sizeof(s)))
      return -EFAULT;
   const uint64_t known = DMA_BUF_SYNC_RW | DMA_BUF_SYNC_END;
   if ((s.flags & ~known) || !(s.flags & DMA_BUF_SYNC_RW))
      return -EINVAL;
   /* CPU and GPU share coherent memory in the model: nothing to flush. */
   return 0;
}

int
asahi_fd_ioctl(struct asahi_dev *dev, int fd, unsigned long cmd, void *arg, bool *ours)
{
   *ours = false;
   ino_t ino;
   if (!dev || asahi_fd_ino(fd, &ino))
      return -ENOTTY;
   os_mutex_lock(&dev->lock);
   int ret = -ENOTTY;
   struct asahi_sync_file *sf = sync_file_find(dev, ino);
   struct asahi_bo *bo = NULL;
   if (!sf)
      for (bo = dev->bos; bo; bo = bo->next)
         if (bo->export_fd >= 0 && bo->export_ino == ino)
            break;
   if (sf && cmd == SYNC_IOC_MERGE)
      ret = sync_ioc_merge(dev, sf, arg);
   else if (sf && cmd == SYNC_IOC_FILE_INFO)
      ret = sync_ioc_file_info(sf, arg);
   else if (sf)
      ret = -ENOTTY;
   else if (bo && cmd == DMA_BUF_IOCTL_EXPORT_SYNC_FILE)
      ret = dma_buf_export_sync_file(dev, bo, arg);
   else if (bo && cmd == DMA_BUF_IOCTL_IMPORT_SYNC_FILE)
      ret = dma_buf_import_sync_file(dev, bo, arg);
   else if (bo && cmd == DMA_BUF_IOCTL_SYNC)
      ret = dma_buf_sync(arg);
   else if (bo)
      ret = -ENOTTY;
   *ours = sf || bo;
   os_mutex_unlock(&dev->lock);
   return ret;
}

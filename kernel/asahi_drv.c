/* SPDX-License-Identifier: MIT */
/*
 * Device lifetime, files and the ioctl dispatcher with the DRM core
 * ioctls a render node answers.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <drm.h>

#include "kernel/asahi_priv.h"

#define ASAHI_DRV_NAME "asahi"
#define ASAHI_DRV_DESC "Apple AGX (tessera GPU model)"
#define ASAHI_DRV_DATE "20250101"
#define ASAHI_DRV_MAJOR 1
#define ASAHI_DRV_MINOR 0
#define ASAHI_DRV_UNIQUE "platform:agx"

static void *
asahi_event_thread(void *arg)
{
   struct asahi_dev *dev = arg;
   struct pollfd p[2] = {
      { .fd = hw_device_irq_fd(dev->hw), .events = POLLIN },
      { .fd = dev->stop_fd, .events = POLLIN },
   };
   uint32_t g = dev->cfg.irq_guard_ms ? dev->cfg.irq_guard_ms : 100;
   int guard_ms = g > INT_MAX ? INT_MAX : (int)g;
   for (;;) {
      /* The timeout only guards against a lost wakeup. */
      int n = poll(p, 2, guard_ms);
      if (n > 0 && (p[1].revents & POLLIN))
         break;
      /* The interrupt is cleared under the lock: an ioctl waiting for
       * device control holds it and waits for the interrupt itself
       * (asahi_fw_wait_irq), so this thread must not consume it. */
      os_mutex_lock(&dev->lock);
      if (n > 0 && (p[0].revents & POLLIN)) {
         uint64_t v;
         if (read(p[0].fd, &v, sizeof(v)) < 0) {
            /* non-blocking eventfd: nothing pending */
         }
      }
      asahi_fw_drain_events(dev);
      os_mutex_unlock(&dev->lock);
   }
   return NULL;
}

struct asahi_dev *
asahi_create(struct hw_device *hw, const struct asahi_config *cfg)
{
   if (!hw)
      return NULL;
   struct asahi_dev *dev = os_zalloc(sizeof(*dev));
   if (!dev)
      return NULL;
   dev->hw = hw;
   if (cfg)
      dev->cfg = *cfg;
   if (!dev->cfg.tvb_max_bytes)
      dev->cfg.tvb_max_bytes = ASAHI_TVB_DEFAULT_MAX;
   dev->cfg.tvb_max_bytes = (dev->cfg.tvb_max_bytes + ASAHI_PAGE_MASK) & ~(uint32_t)ASAHI_PAGE_MASK;
   /* The tiler needs at least a page of heap to make progress at all;
    * the initial size is what a queue gets before any Grow TVB. */
   if (!dev->cfg.tvb_initial_bytes)
      dev->cfg.tvb_initial_bytes = ASAHI_TVB_INITIAL;
   dev->cfg.tvb_initial_bytes = (dev->cfg.tvb_initial_bytes + ASAHI_PAGE_MASK) &
                                ~(uint32_t)ASAHI_PAGE_MASK;
   if (dev->cfg.tvb_max_bytes < dev->cfg.tvb_initial_bytes)
      dev->cfg.tvb_max_bytes = dev->cfg.tvb_initial_bytes;
   os_mutex_init(&dev->lock);
   os_cond_init(&dev->fence_cv);
   dev->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
   dev->next_job_id = 1;
   dev->kobj_next = ASAHI_KOBJ_VA;
   if (dev->stop_fd < 0 || asahi_fw_init(dev) != 0) {
      if (dev->stop_fd >= 0)
         close(dev->stop_fd);
      asahi_fw_fini(dev);
      os_cond_fini(&dev->fence_cv);
      os_mutex_fini(&dev->lock);
      os_free(dev);
      return NULL;
   }
   if (os_thread_start(&dev->event_thread, asahi_event_thread, dev) ||
       os_thread_start(&dev->sched_thread, asahi_sched_thread, dev)) {
      asahi_destroy(dev);
      return NULL;
   }
   return dev;
}

void
asahi_destroy(struct asahi_dev *dev)
{
   if (!dev)
      return;
   os_mutex_lock(&dev->lock);
   dev->stopping = true;
   os_cond_broadcast(&dev->fence_cv);
   os_mutex_unlock(&dev->lock);
   uint64_t one = 1;
   if (write(dev->stop_fd, &one, sizeof(one)) < 0) {
      /* cannot fail for an eventfd below its maximum */
   }
   os_thread_join(&dev->event_thread);
   os_thread_join(&dev->sched_thread);
   /* The firmware abandons what it still holds without events: fail it
    * ourselves so no waiter hangs. */
   hw_fw_shutdown(dev->hw);
   os_mutex_lock(&dev->lock);
   asahi_fail_all_pending(dev);
   while (dev->queues)
      asahi_queue_reap(dev, dev->queues);
   asahi_sync_files_fini(dev);
   asahi_fence_fini_merged(dev);
   os_mutex_unlock(&dev->lock);
   asahi_fw_fini(dev);
   close(dev->stop_fd);
   os_cond_fini(&dev->fence_cv);
   os_mutex_fini(&dev->lock);
   os_free(dev);
}

struct hw_device *
asahi_hw(struct asahi_dev *dev)
{
   return dev->hw;
}

struct asahi_file *
asahi_open(struct asahi_dev *dev)
{
   struct asahi_file *f = os_zalloc(sizeof(*f));
   if (f)
      f->dev = dev;
   return f;
}

void
asahi_close(struct asahi_file *f)
{
   if (!f)
      return;
   struct asahi_dev *dev = f->dev;
   os_mutex_lock(&dev->lock);
   uint32_t id = 0;
   struct asahi_queue *q;
   while ((q = asahi_idr_next(&f->queues, &id)))
      asahi_queue_release(dev, q);
   id = 0;
   struct asahi_bind_obj *o;
   while ((o = asahi_idr_next(&f->objects, &id)))
      asahi_bind_obj_free(dev, o);
   asahi_file_release_gems(f);
   asahi_file_release_syncobjs(f);
   id = 0;
   struct asahi_vm *vm;
   while ((vm = asahi_idr_next(&f->vms, &id)))
      asahi_vm_put(dev, vm);
   os_mutex_unlock(&dev->lock);
   asahi_idr_fini(&f->queues);
   asahi_idr_fini(&f->objects);
   asahi_idr_fini(&f->gems);
   asahi_idr_fini(&f->syncobjs);
   asahi_idr_fini(&f->vms);
   os_free(f);
}

void
asahi_set_job_hook(struct asahi_dev *dev, asahi_job_hook_fn fn, void *user)
{
   os_mutex_lock(&dev->lock);
   dev->hook = fn;
   dev->hook_user = user;
   os_mutex_unlock(&dev->lock);
}

void
asahi_get_stats(struct asahi_dev *dev, struct asahi_stats *out)
{
   os_mutex_lock(&dev->lock);
   *out = dev->stats;
   os_mutex_unlock(&dev->lock);
}

/* ------------------------------------------------------------ DRM core */

static int
copy_string(uint64_t uptr, __kernel_size_t *ulen, const char *s)
{
   size_t len = strlen(s);
   size_t n = *ulen < len ? *ulen : len;
   int ret = 0;
   if (n && uptr)
      ret = os_copy_to_user(uptr, s, n);
   *ulen = len;
   return ret;
}

static int
ioctl_version(struct asahi_file *f, void *data)
{
   (void)f;
   struct drm_version *v = data;
   v->version_major = ASAHI_DRV_MAJOR;
   v->version_minor = ASAHI_DRV_MINOR;
   v->version_patchlevel = 0;
   int r = copy_string((uintptr_t)v->name, &v->name_len, ASAHI_DRV_NAME);
   if (!r)
      r = copy_string((uintptr_t)v->date, &v->date_len, ASAHI_DRV_DATE);
   if (!r)
      r = copy_string((uintptr_t)v->desc, &v->desc_len, ASAHI_DRV_DESC);
   return r;
}

static int
ioctl_get_unique(struct asahi_file *f, void *data)
{
   (void)f;
   struct drm_unique *u = data;
   return copy_string((uintptr_t)u->unique, &u->unique_len, ASAHI_DRV_UNIQUE);
}

static int
ioctl_get_cap(struct asahi_file *f, void *data)
{
   (void)f;
   struct drm_get_cap *c = data;
   switch (c->capability) {
   case DRM_CAP_SYNCOBJ:
   case DRM_CAP_SYNCOBJ_TIMELINE:
   case DRM_CAP_TIMESTAMP_MONOTONIC:
      c->value = 1;
      return 0;
   case DRM_CAP_PRIME:
      c->value = DRM_PRIME_CAP_IMPORT | DRM_PRIME_CAP_EXPORT;
      return 0;
   case DRM_CAP_DUMB_BUFFER:
      c->value = 0;
      return 0;
   default:
      return -EINVAL;
   }
}

static int
ioctl_set_client_cap(struct asahi_file *f, void *data)
{
   (void)f;
   struct drm_set_client_cap *c = data;
   /* Render nodes accept none of the KMS client caps. */
   (void)c;
   return -EINVAL;
}

typedef int (*asahi_ioctl_fn)(struct asahi_file *f, void *data);

struct ioctl_desc {
   unsigned long cmd;
   asahi_ioctl_fn fn;
};

#define CORE(name, fn) [_IOC_NR(DRM_IOCTL_##name)] = { DRM_IOCTL_##name, fn }
#define DRV(name, fn) \
   [_IOC_NR(DRM_IOCTL_ASAHI_##name)] = { DRM_IOCTL_ASAHI_##name, fn }

static const struct ioctl_desc ioctls[0x100] = {
   CORE(VERSION, ioctl_version),
   CORE(GET_UNIQUE, ioctl_get_unique),
   CORE(GET_CAP, ioctl_get_cap),
   CORE(SET_CLIENT_CAP, ioctl_set_client_cap),
   CORE(GEM_CLOSE, asahi_ioctl_gem_close),
   CORE(PRIME_HANDLE_TO_FD, asahi_ioctl_prime_handle_to_fd),
   CORE(PRIME_FD_TO_HANDLE, asahi_ioctl_prime_fd_to_handle),
   CORE(SYNCOBJ_CREATE, asahi_ioctl_syncobj_create),
   CORE(SYNCOBJ_DESTROY, asahi_ioctl_syncobj_destroy),
   CORE(SYNCOBJ_HANDLE_TO_FD, asahi_ioctl_syncobj_handle_to_fd),
   CORE(SYNCOBJ_FD_TO_HANDLE, asahi_ioctl_syncobj_fd_to_handle),
   CORE(SYNCOBJ_WAIT, asahi_ioctl_syncobj_wait),
   CORE(SYNCOBJ_RESET, asahi_ioctl_syncobj_reset),
   CORE(SYNCOBJ_SIGNAL, asahi_ioctl_syncobj_signal),
   CORE(SYNCOBJ_TIMELINE_WAIT, asahi_ioctl_syncobj_timeline_wait),
   CORE(SYNCOBJ_QUERY, asahi_ioctl_syncobj_query),
   CORE(SYNCOBJ_TRANSFER, asahi_ioctl_syncobj_transfer),
   CORE(SYNCOBJ_TIMELINE_SIGNAL, asahi_ioctl_syncobj_timeline_signal),
   DRV(GET_PARAMS, asahi_ioctl_get_params),
   DRV(GET_TIME, asahi_ioctl_get_time),
   DRV(VM_CREATE, asahi_ioctl_vm_create),
   DRV(VM_DESTROY, asahi_ioctl_vm_destroy),
   DRV(VM_BIND, asahi_ioctl_vm_bind),
   DRV(GEM_CREATE, asahi_ioctl_gem_create),
   DRV(GEM_MMAP_OFFSET, asahi_ioctl_gem_mmap_offset),
   DRV(GEM_BIND_OBJECT, asahi_ioctl_gem_bind_object),
   DRV(QUEUE_CREATE, asahi_ioctl_queue_create),
   DRV(QUEUE_DESTROY, asahi_ioctl_queue_destroy),
   DRV(SUBMIT, asahi_ioctl_submit),
};

/*
 * As drm_ioctl(): the size encoded in cmd may differ from the kernel's
 * struct (older or newer userspace). Copy in what the caller has, zero the
 * rest, and copy back only what the caller asked for.
 */
int
asahi_ioctl(struct asahi_file *f, unsigned long cmd, void *arg)
{
   if (!f)
      return -EBADF;
   if (_IOC_TYPE(cmd) != DRM_IOCTL_BASE)
      return -ENOTTY;
   unsigned nr = _IOC_NR(cmd);
   const struct ioctl_desc *d = &ioctls[nr];
   if (!d->fn)
      return -EINVAL;
   uint8_t kdata[256];
   size_t ksize = _IOC_SIZE(d->cmd);
   size_t usize = _IOC_SIZE(cmd);
   if (ksize > sizeof(kdata))
      return -EINVAL;
   size_t in = (_IOC_DIR(cmd) & _IOC_WRITE) ? (usize < ksize ? usize : ksize) : 0;
   size_t out = (_IOC_DIR(cmd) & _IOC_READ) ? (usize < ksize ? usize : ksize) : 0;
   memset(kdata, 0, sizeof(kdata));
   if (in && os_copy_from_user(kdata, (uintptr_t)arg, in))
      return -EFAULT;
   int ret = d->fn(f, kdata);
   if (out && os_copy_to_user((uintptr_t)arg, kdata, out))
      ret = -EFAULT;
   return ret;
}

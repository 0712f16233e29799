/* SPDX-License-Identifier: MIT */
/*
 * The two replay backends. The model backend is the stack the render-node
 * shim uses (asahi_model: device, executors, driver) minus the fd
 * emulation: its ioctls are direct calls.
 */
#include "replay/replay_backend.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "drm-uapi/asahi_drm.h"
#include "hw/hw_device.h"
#include "kernel/asahi.h"
#include "kernel/model/asahi_model.h"

static void
set_err(char *err, size_t size, const char *fmt, ...)
{
   va_list ap;
   va_start(ap, fmt);
   vsnprintf(err, size, fmt, ap);
   va_end(ap);
}

/* ---- the in-process model ---------------------------------------------- */

struct model_backend {
   struct replay_backend base;
   struct asahi_model *model;
   struct asahi_file *file;
};

static int
model_ioctl(struct replay_backend *b, unsigned long cmd, void *arg)
{
   struct model_backend *m = (struct model_backend *)b;
   return asahi_ioctl(m->file, cmd, arg);
}

static void *
model_map(struct replay_backend *b, uint32_t handle, uint64_t size)
{
   struct model_backend *m = (struct model_backend *)b;
   struct drm_asahi_gem_mmap_offset mo = { .handle = handle };
   uint64_t off;
   if (asahi_ioctl(m->file, DRM_IOCTL_ASAHI_GEM_MMAP_OFFSET, &mo) ||
       asahi_mmap_resolve(m->file, mo.offset, size, &off))
      return NULL;
   /* GEM objects are physically contiguous: the arena view is the object. */
   return hw_device_mem_host(m->model->hw) + off;
}

static void
model_unmap(struct replay_backend *b, void *ptr, uint64_t size)
{
   (void)b, (void)ptr, (void)size;
}

static int
model_fence_error(struct replay_backend *b, uint32_t syncobj)
{
   struct model_backend *m = (struct model_backend *)b;
   return asahi_debug_syncobj_error(m->file, syncobj, 0);
}

static void
model_set_profiler(struct replay_backend *b, hw_prof_fn fn, void *user)
{
   struct model_backend *m = (struct model_backend *)b;
   asahi_model_set_profiler(m->model, fn, user);
}

static void
model_destroy(struct replay_backend *b)
{
   struct model_backend *m = (struct model_backend *)b;
   if (m->file)
      asahi_close(m->file);
   if (m->model)
      asahi_model_destroy(m->model);
   free(m);
}

struct replay_backend *
replay_backend_model(bool quiet, char *err, size_t err_size)
{
   struct model_backend *m = calloc(1, sizeof(*m));
   if (!m) {
      set_err(err, err_size, "out of memory");
      return NULL;
   }
   m->base = (struct replay_backend){ "model", model_ioctl, model_map, model_unmap,
                                      model_fence_error, model_destroy,
                                      model_set_profiler };
   struct asahi_model_config mc = { .drv = { .quiet = quiet } };
   char why[256] = "";
   m->model = asahi_model_create(&mc, why, sizeof(why));
   if (!m->model) {
      set_err(err, err_size, "cannot create the GPU model: %s", why);
      model_destroy(&m->base);
      return NULL;
   }
   m->file = asahi_open(m->model->dev);
   if (!m->file) {
      set_err(err, err_size, "cannot open the model's driver");
      model_destroy(&m->base);
      return NULL;
   }
   return &m->base;
}

/* ---- a render node ------------------------------------------------------ */

struct node_backend {
   struct replay_backend base;
   int fd;
};

static int
node_ioctl(struct replay_backend *b, unsigned long cmd, void *arg)
{
   struct node_backend *n = (struct node_backend *)b;
   int r;
   do
      r = ioctl(n->fd, cmd, arg);
   while (r == -1 && (errno == EINTR || errno == EAGAIN));
   return r == -1 ? -errno : 0;
}

static void *
node_map(struct replay_backend *b, uint32_t handle, uint64_t size)
{
   struct node_backend *n = (struct node_backend *)b;
   struct drm_asahi_gem_mmap_offset mo = { .handle = handle };
   if (node_ioctl(b, DRM_IOCTL_ASAHI_GEM_MMAP_OFFSET, &mo))
      return NULL;
   void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, n->fd, (off_t)mo.offset);
   return p == MAP_FAILED ? NULL : p;
}

static void
node_unmap(struct replay_backend *b, void *ptr, uint64_t size)
{
   (void)b;
   munmap(ptr, size);
}

static void
node_destroy(struct replay_backend *b)
{
   struct node_backend *n = (struct node_backend *)b;
   if (n->fd >= 0)
      close(n->fd);
   free(n);
}

struct replay_backend *
replay_backend_node(const char *path, char *err, size_t err_size)
{
   struct node_backend *n = calloc(1, sizeof(*n));
   if (!n) {
      set_err(err, err_size, "out of memory");
      return NULL;
   }
   n->base = (struct replay_backend){ "node", node_ioctl, node_map, node_unmap, NULL,
                                      node_destroy, NULL };
   n->fd = open(path, O_RDWR | O_CLOEXEC);
   if (n->fd < 0) {
      set_err(err, err_size, "%s: %s", path, strerror(errno));
      goto fail;
   }
   char name[32] = { 0 };
   struct drm_version v = { .name = name, .name_len = sizeof(name) - 1 };
   if (node_ioctl(&n->base, DRM_IOCTL_VERSION, &v)) {
      set_err(err, err_size, "%s: not a DRM device", path);
      goto fail;
   }
   if (strcmp(name, "asahi") != 0) {
      set_err(err, err_size, "%s: driver is \"%s\", not asahi", path, name);
      goto fail;
   }
   return &n->base;
fail:
   node_destroy(&n->base);
   return NULL;
}

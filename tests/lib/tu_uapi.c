/* SPDX-License-Identifier: MIT */
/*
 * See tu_uapi.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <xf86drm.h>

#include "tests/lib/tu_uapi.h"

int
tu_open_node(char *path, size_t len)
{
   drmDevicePtr devs[16];
   int n = drmGetDevices2(0, devs, 16), fd = -1;
   for (int i = 0; i < n && fd < 0; i++) {
      if (!(devs[i]->available_nodes & (1 << DRM_NODE_RENDER)))
         continue;
      int f = open(devs[i]->nodes[DRM_NODE_RENDER], O_RDWR | O_CLOEXEC);
      if (f < 0)
         continue;
      drmVersionPtr v = drmGetVersion(f);
      if (v && strcmp(v->name, "asahi") == 0) {
         fd = f;
         if (path)
            snprintf(path, len, "%s", devs[i]->nodes[DRM_NODE_RENDER]);
      } else {
         close(f);
      }
      drmFreeVersion(v);
   }
   if (n > 0)
      drmFreeDevices(devs, n);
   return fd;
}

static int
asan_cb(struct dl_phdr_info *info, size_t size, void *data)
{
   (void)size;
   if (info->dlpi_name && strstr(info->dlpi_name, "libasan"))
      snprintf(data, PATH_MAX, "%s", info->dlpi_name);
   return 0;
}

void
tu_reexec_with_shim(char **argv, const char *guard_env)
{
   if (getenv(guard_env))
      return;
   char self[PATH_MAX], shim[PATH_MAX + 64], asan[PATH_MAX] = "";
   ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
   if (n <= 0)
      return;
   self[n] = 0;
   /* <top>/build/<variant>/<dir>/<name> -> <top>/build */
   for (int i = 0; i < 3; i++) {
      char *s = strrchr(self, '/');
      if (!s)
         return;
      *s = 0;
   }
   snprintf(shim, sizeof(shim), "%s/release/lib/tessera-shim.so", self);
   if (access(shim, R_OK))
      return;
   dl_iterate_phdr(asan_cb, asan);
   char pre[2 * PATH_MAX + 80];
   snprintf(pre, sizeof(pre), "%s%s%s", asan, asan[0] ? " " : "", shim);
   setenv("LD_PRELOAD", pre, 1);
   setenv(guard_env, "1", 1);
   execv("/proc/self/exe", argv);
}

int
tu_ioctl(int fd, unsigned long cmd, void *arg)
{
   return drmIoctl(fd, cmd, arg) ? -errno : 0;
}

int
tu_gem_create(int fd, uint64_t size, uint32_t flags, uint32_t vm, uint32_t *handle)
{
   struct drm_asahi_gem_create g = { .size = size, .flags = flags, .vm_id = vm };
   int r = tu_ioctl(fd, DRM_IOCTL_ASAHI_GEM_CREATE, &g);
   *handle = r ? 0 : g.handle;
   return r;
}

void *
tu_gem_map(int fd, uint32_t handle, uint64_t size)
{
   struct drm_asahi_gem_mmap_offset o = { .handle = handle };
   int r = tu_ioctl(fd, DRM_IOCTL_ASAHI_GEM_MMAP_OFFSET, &o);
   if (r) {
      errno = -r;
      return MAP_FAILED;
   }
   return mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)o.offset);
}

int
tu_vm_bind(int fd, uint32_t vm, uint32_t handle, uint64_t addr, uint64_t range, uint32_t flags)
{
   struct drm_asahi_gem_bind_op op = { .flags = flags, .handle = handle, .range = range,
                                       .addr = addr };
   struct drm_asahi_vm_bind b = {
      .vm_id = vm, .num_binds = 1, .stride = sizeof(op), .userptr = (uintptr_t)&op,
   };
   return tu_ioctl(fd, DRM_IOCTL_ASAHI_VM_BIND, &b);
}

int
tu_submit1(int fd, uint32_t queue, uint16_t type, const void *cmd, uint16_t size, uint32_t out)
{
   uint8_t buf[1024];
   struct drm_asahi_cmd_header h = { type, size, 0, 0 };
   if (sizeof(h) + size > sizeof(buf))
      return -E2BIG;
   memcpy(buf, &h, sizeof(h));
   memcpy(buf + sizeof(h), cmd, size);
   struct drm_asahi_sync s = { .sync_type = DRM_ASAHI_SYNC_SYNCOBJ, .handle = out };
   struct drm_asahi_submit sub = {
      .syncs = (uintptr_t)&s, .cmdbuf = (uintptr_t)buf, .queue_id = queue,
      .out_sync_count = out ? 1 : 0, .cmdbuf_size = (uint32_t)(sizeof(h) + size),
   };
   return tu_ioctl(fd, DRM_IOCTL_ASAHI_SUBMIT, &sub);
}

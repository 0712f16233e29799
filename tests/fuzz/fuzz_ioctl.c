/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the asahi driver's ioctl surface, in process: the
 * input is a program of operations on one DRM file. Raw operations send
 * arbitrary ioctl numbers, sizes and argument bytes; structured ones build
 * valid calls (VM, GEM, bind, queue, submit, syncobj) and then corrupt
 * fields with input bytes, so validation deep inside the handlers is
 * reached. One device lives for the whole run; every input gets a fresh
 * file, closed at the end, which must release everything it made.
 */
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <linux/dma-buf.h>
#include <linux/sync_file.h>

#include <drm.h>

#include "drm-uapi/asahi_drm.h"
#include "hw/hw_device.h"
#include "kernel/asahi.h"

#define PAGE 16384ull

static struct hw_device *hw;
static struct asahi_dev *dev;

struct input {
   const uint8_t *p;
   size_t n;
};

static uint8_t
u8(struct input *in)
{
   if (!in->n)
      return 0;
   in->n--;
   return *in->p++;
}

static uint32_t
u32(struct input *in)
{
   uint32_t v = 0;
   for (int i = 0; i < 4; i++)
      v = v << 8 | u8(in);
   return v;
}

static uint64_t
u64(struct input *in)
{
   return (uint64_t)u32(in) << 32 | u32(in);
}

static void
bytes(struct input *in, void *dst, size_t n)
{
   size_t k = n < in->n ? n : in->n;
   memcpy(dst, in->p, k);
   memset((uint8_t *)dst + k, 0, n - k);
   in->p += k;
   in->n -= k;
}

/* A small handle (mostly valid ones) or anything. */
static uint32_t
handle(struct input *in)
{
   uint8_t b = u8(in);
   return b < 0xf0 ? (b & 7) : u32(in);
}

static void
op_raw(struct asahi_file *f, struct input *in)
{
   uint8_t buf[512];
   unsigned nr = u8(in), dir = u8(in) & 3, size = u8(in);
   bytes(in, buf, sizeof(buf));
   /* Argument structs carry user pointers in 64-bit fields. The driver
    * copies through the kernel, which only catches *unmapped* addresses:
    * a random value that happens to hit our own heap would be written to
    * legitimately. Make every pointer-like word non-canonical (EFAULT). */
   for (size_t i = 0; i + 8 <= sizeof(buf); i += 8) {
      uint64_t v;
      memcpy(&v, buf + i, 8);
      if (v >= 0x10000 && v < (1ull << 48)) {
         v |= 1ull << 63;
         memcpy(buf + i, &v, 8);
      }
   }
   int r = asahi_ioctl(f, _IOC(dir, DRM_IOCTL_BASE, nr, size), buf);
   /* fds handed out are ours to close */
   if (r == 0 && nr == _IOC_NR(DRM_IOCTL_PRIME_HANDLE_TO_FD) && (dir & _IOC_READ))
      close(((struct drm_prime_handle *)buf)->fd);
   if (r == 0 && nr == _IOC_NR(DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD) && (dir & _IOC_READ))
      close(((struct drm_syncobj_handle *)buf)->fd);
}

static void
op_vm_create(struct asahi_file *f, struct input *in)
{
   struct drm_asahi_vm_create v = {
      .kernel_start = 0x7000000000ull, .kernel_end = 0x7000000000ull + (256ull << 20),
   };
   if (u8(in) & 1)
      v.kernel_start ^= (uint64_t)u8(in) << (u8(in) & 63);
   asahi_ioctl(f, DRM_IOCTL_ASAHI_VM_CREATE, &v);
}

static void
op_gem(struct asahi_file *f, struct input *in)
{
   struct drm_asahi_gem_create g = { .size = (u8(in) + 1) * PAGE / 2, .flags = u8(in) & 3 };
   if (g.flags & DRM_ASAHI_GEM_VM_PRIVATE)
      g.vm_id = handle(in);
   asahi_ioctl(f, DRM_IOCTL_ASAHI_GEM_CREATE, &g);
   struct drm_asahi_gem_mmap_offset o = { .handle = handle(in) };
   if (asahi_ioctl(f, DRM_IOCTL_ASAHI_GEM_MMAP_OFFSET, &o) == 0) {
      uint64_t off;
      asahi_mmap_resolve(f, o.offset, (u8(in) + 1) * 4096ull, &off);
   }
}

static void
op_bind(struct asahi_file *f, struct input *in)
{
   struct drm_asahi_gem_bind_op ops[4];
   unsigned n = (u8(in) & 3) + 1;
   for (unsigned i = 0; i < n; i++) {
      ops[i] = (struct drm_asahi_gem_bind_op){
         .flags = u8(in) & 0x1f, .handle = handle(in),
         .offset = (u8(in) & 3) * PAGE, .range = ((u8(in) & 7) + 1) * PAGE,
         .addr = 0x100000000ull + (u8(in) & 15) * PAGE,
      };
      if (u8(in) == 0xaa)
         bytes(in, &ops[i], sizeof(ops[i]));
   }
   struct drm_asahi_vm_bind b = {
      .vm_id = handle(in), .num_binds = n, .stride = sizeof(ops[0]),
      .userptr = (uintptr_t)ops,
   };
   if (u8(in) == 0x55)
      b.num_binds = u32(in);
   asahi_ioctl(f, DRM_IOCTL_ASAHI_VM_BIND, &b);
}

static void
op_queue(struct asahi_file *f, struct input *in)
{
   struct drm_asahi_queue_create q = {
      .vm_id = handle(in), .priority = u8(in) & 3, .usc_exec_base = u8(in) ? 0 : u64(in),
   };
   asahi_ioctl(f, DRM_IOCTL_ASAHI_QUEUE_CREATE, &q);
   if (u8(in) == 0x33) {
      struct drm_asahi_queue_destroy d = { .queue_id = handle(in) };
      asahi_ioctl(f, DRM_IOCTL_ASAHI_QUEUE_DESTROY, &d);
   }
}

static void
op_bind_object(struct asahi_file *f, struct input *in)
{
   struct drm_asahi_gem_bind_object o = {
      .op = u8(in) & 1, .flags = u8(in) & 1, .handle = handle(in),
      .range = PAGE, .object_handle = handle(in),
   };
   asahi_ioctl(f, DRM_IOCTL_ASAHI_GEM_BIND_OBJECT, &o);
}

static void
op_submit(struct asahi_file *f, struct input *in)
{
   uint8_t cmdbuf[2048];
   uint32_t size = 0;
   unsigned ncmd = (u8(in) & 3) + 1;
   for (unsigned i = 0; i < ncmd; i++) {
      uint8_t kind = u8(in) % 3;
      struct drm_asahi_cmd_header h = {
         .cmd_type = kind == 2 ? DRM_ASAHI_SET_VERTEX_ATTACHMENTS + (u8(in) % 3) : kind,
         .vdm_barrier = u8(in) & 1 ? DRM_ASAHI_BARRIER_NONE : u8(in) & 3,
         .cdm_barrier = u8(in) & 1 ? DRM_ASAHI_BARRIER_NONE : u8(in) & 3,
      };
      union {
         struct drm_asahi_cmd_render r;
         struct drm_asahi_cmd_compute c;
         struct drm_asahi_attachment a[2];
      } u;
      memset(&u, 0, sizeof(u));
      if (kind == 0) {
         u.r.width_px = u.r.height_px = 64;
         u.r.layers = 1;
         u.r.samples = 1;
         u.r.utile_width_px = u.r.utile_height_px = 32;
         u.r.ts_vtx.start.handle = handle(in);
         h.size = sizeof(u.r);
      } else if (kind == 1) {
         u.c.cdm_ctrl_stream_base = 0x100000000ull;
         u.c.ts.end.handle = handle(in);
         h.size = sizeof(u.c);
      } else {
         h.size = sizeof(u.a);
      }
      /* corrupt a few payload bytes, sometimes the size */
      for (unsigned k = u8(in) & 7; k; k--)
         ((uint8_t *)&u)[u8(in) % sizeof(u)] = u8(in);
      if (u8(in) == 0x77)
         h.size = (uint16_t)u32(in);
      if (size + sizeof(h) + sizeof(u) > sizeof(cmdbuf))
         break;
      memcpy(cmdbuf + size, &h, sizeof(h));
      memcpy(cmdbuf + size + sizeof(h), &u, sizeof(u));
      size += sizeof(h) + (h.size <= sizeof(u) ? h.size : sizeof(u));
   }
   struct drm_asahi_sync syncs[4];
   unsigned nin = u8(in) & 1, nout = u8(in) & 3;
   for (unsigned i = 0; i < nin + nout; i++)
      syncs[i] = (struct drm_asahi_sync){
         .sync_type = u8(in) & 1, .handle = handle(in), .timeline_value = u8(in) & 3,
      };
   struct drm_asahi_submit s = {
      .syncs = (uintptr_t)syncs, .cmdbuf = (uintptr_t)cmdbuf, .queue_id = handle(in),
      .in_sync_count = nin, .out_sync_count = nout, .cmdbuf_size = size,
   };
   if (u8(in) == 0x99)
      s.cmdbuf_size = u32(in);
   asahi_ioctl(f, DRM_IOCTL_ASAHI_SUBMIT, &s);
}

static void
op_syncobj(struct asahi_file *f, struct input *in)
{
   uint32_t hs[2] = { handle(in), handle(in) };
   uint64_t pts[2] = { u8(in) & 7, u8(in) & 7 };
   uint32_t count = (u8(in) & 1) + 1;
   switch (u8(in) % 9) {
   case 0: {
      struct drm_syncobj_create c = { .flags = u8(in) & 3 };
      asahi_ioctl(f, DRM_IOCTL_SYNCOBJ_CREATE, &c);
      break;
   }
   case 1: {
      struct drm_syncobj_wait w = {
         .handles = (uintptr_t)hs, .count_handles = count, .flags = u8(in) & 7,
         .timeout_nsec = 0,
      };
      asahi_ioctl(f, DRM_IOCTL_SYNCOBJ_WAIT, &w);
      break;
   }
   case 2: {
      struct drm_syncobj_timeline_wait w = {
         .handles = (uintptr_t)hs, .points = (uintptr_t)pts, .count_handles = count,
         .flags = u8(in) & 7,
      };
      asahi_ioctl(f, DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT, &w);
      break;
   }
   case 3:
   case 4: {
      struct drm_syncobj_array a = { .handles = (uintptr_t)hs, .count_handles = count };
      asahi_ioctl(f, u8(in) & 1 ? DRM_IOCTL_SYNCOBJ_SIGNAL : DRM_IOCTL_SYNCOBJ_RESET, &a);
      break;
   }
   case 5: {
      struct drm_syncobj_timeline_array a = {
         .handles = (uintptr_t)hs, .points = (uintptr_t)pts, .count_handles = count,
         .flags = u8(in) & 1,
      };
      asahi_ioctl(f, u8(in) & 1 ? DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL : DRM_IOCTL_SYNCOBJ_QUERY, &a);
      break;
   }
   case 6: {
      struct drm_syncobj_transfer t = {
         .src_handle = hs[0], .dst_handle = hs[1], .src_point = pts[0], .dst_point = pts[1],
         .flags = u8(in) & 3,
      };
      asahi_ioctl(f, DRM_IOCTL_SYNCOBJ_TRANSFER, &t);
      break;
   }
   case 7: {
      /* flags bit 0: a sync file, traded back by import, merge, info and
       * into a dma-buf's reservation */
      struct drm_syncobj_handle h = { .handle = hs[0], .flags = u8(in) & 3 };
      uint8_t mode = u8(in);
      int sync_fd = -1;
      if (asahi_ioctl(f, DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, &h) == 0) {
         struct drm_syncobj_handle back = { .fd = h.fd, .handle = hs[1], .flags = h.flags };
         asahi_ioctl(f, DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE, &back);
         sync_fd = h.fd;
      }
      bool ours;
      if (sync_fd >= 0 && (h.flags & 1)) {
         struct sync_merge_data m = { .fd2 = mode & 1 ? sync_fd : 0, .flags = mode & 2 };
         if (asahi_fd_ioctl(dev, sync_fd, SYNC_IOC_MERGE, &m, &ours) == 0)
            close(m.fence);
         struct sync_fence_info fi[2];
         struct sync_file_info info = { .num_fences = (mode >> 2) & 3,
                                        .sync_fence_info = (uintptr_t)fi };
         asahi_fd_ioctl(dev, sync_fd, SYNC_IOC_FILE_INFO, &info, &ours);
      }
      struct drm_prime_handle p = { .handle = hs[1], .flags = DRM_CLOEXEC };
      if (asahi_ioctl(f, DRM_IOCTL_PRIME_HANDLE_TO_FD, &p) == 0) {
         struct drm_prime_handle back = { .fd = p.fd };
         asahi_ioctl(f, DRM_IOCTL_PRIME_FD_TO_HANDLE, &back);
         struct dma_buf_import_sync_file im = { .flags = (mode >> 4) & 3, .fd = sync_fd };
         asahi_fd_ioctl(dev, p.fd, DMA_BUF_IOCTL_IMPORT_SYNC_FILE, &im, &ours);
         struct dma_buf_export_sync_file ex = { .flags = (mode >> 6) & 3, .fd = -1 };
         if (asahi_fd_ioctl(dev, p.fd, DMA_BUF_IOCTL_EXPORT_SYNC_FILE, &ex, &ours) == 0)
            close(ex.fd);
         close(p.fd);
      }
      if (sync_fd >= 0)
         close(sync_fd);
      break;
   }
   default: {
      struct drm_syncobj_destroy d = { .handle = hs[0] };
      asahi_ioctl(f, DRM_IOCTL_SYNCOBJ_DESTROY, &d);
      struct drm_gem_close c = { .handle = hs[1] };
      asahi_ioctl(f, DRM_IOCTL_GEM_CLOSE, &c);
      break;
   }
   }
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
   if (!dev) {
      struct hw_device_config cfg = { .mem_size = 256ull << 20, .job_timeout_ms = 100 };
      hw = hw_device_create(&cfg);
      struct asahi_config acfg = { .quiet = true };
      dev = hw ? asahi_create(hw, &acfg) : NULL;
      if (!dev)
         return 0;
   }
   struct asahi_file *f = asahi_open(dev);
   struct input in = { data, size };
   for (unsigned steps = 0; in.n && steps < 64; steps++) {
      switch (u8(&in) % 9) {
      case 0: op_raw(f, &in); break;
      case 1: op_vm_create(f, &in); break;
      case 2: op_gem(f, &in); break;
      case 3: op_bind(f, &in); break;
      case 4: op_queue(f, &in); break;
      case 5: op_bind_object(f, &in); break;
      case 6: op_submit(f, &in); break;
      default: op_syncobj(f, &in); break;
      }
   }
   asahi_close(f);
   return 0;
}

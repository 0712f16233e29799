/* SPDX-License-Identifier: MIT */
/*
 * See capture_util.h.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <xf86drm.h>

#include "capture_util.h"
#include "cmdstream/agx_pack.h"
#include "cmdstream/isa/agx_isa.h"
#include "tessera/float_bits.h"

void tessera_capture_frame(const char *label) __attribute__((weak));

static const char saxpy_src[] =
   "get_sr r1, sr80 (thread_position_in_grid.x)\n"
   "device_load 0, i32, x, r2, u0_u1, r1, unsigned\n"
   "device_load 0, i32, x, r3, u2_u3, r1, unsigned\n"
   "wait 0\n"
   "fmadd32 r4, u4, r2, r3\n"
   "device_store 0, i32, x, r4, u2_u3, r1, unsigned, 0\n"
   "stop\n";

static void
die(const char *what, int err)
{
   fprintf(stderr, "capture test program: %s: %s\n", what, strerror(err));
   exit(3);
}

static int
ioc(struct cu_dev *d, unsigned long cmd, void *arg)
{
   return drmIoctl(d->fd, cmd, arg) ? -errno : 0;
}

static int
asan_cb(struct dl_phdr_info *info, size_t size, void *data)
{
   (void)size;
   if (info->dlpi_name && strstr(info->dlpi_name, "libasan"))
      snprintf(data, PATH_MAX, "%s", info->dlpi_name);
   return 0;
}

/* <top>/build/<variant>/bin/<name> -> <top>/build/release/lib/tessera-shim.so */
static void
reexec_with_shim(char **argv)
{
   if (getenv("CAPTURE_TEST_REEXEC"))
      return;
   char self[PATH_MAX], shim[PATH_MAX + 64], asan[PATH_MAX] = "";
   ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
   if (n <= 0)
      return;
   self[n] = 0;
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
   setenv("CAPTURE_TEST_REEXEC", "1", 1);
   execv("/proc/self/exe", argv);
}

static int
find_node(void)
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
      if (v && strcmp(v->name, "asahi") == 0)
         fd = f;
      else
         close(f);
      drmFreeVersion(v);
   }
   if (n > 0)
      drmFreeDevices(devs, n);
   return fd;
}

uint32_t
cu_queue(struct cu_dev *d)
{
   struct drm_asahi_queue_create q = { .vm_id = d->vm, .priority = DRM_ASAHI_PRIORITY_MEDIUM,
                                       .usc_exec_base = d->heap_va };
   int r = ioc(d, DRM_IOCTL_ASAHI_QUEUE_CREATE, &q);
   if (r)
      die("QUEUE_CREATE", -r);
   return q.queue_id;
}

static uint32_t
gem(struct cu_dev *d, uint64_t size, void **cpu)
{
   struct drm_asahi_gem_create g = { .size = size, .flags = DRM_ASAHI_GEM_WRITEBACK };
   int r = ioc(d, DRM_IOCTL_ASAHI_GEM_CREATE, &g);
   if (r)
      die("GEM_CREATE", -r);
   struct drm_asahi_gem_mmap_offset o = { .handle = g.handle };
   if ((r = ioc(d, DRM_IOCTL_ASAHI_GEM_MMAP_OFFSET, &o)))
      die("GEM_MMAP_OFFSET", -r);
   *cpu = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, d->fd, (off_t)o.offset);
   if (*cpu == MAP_FAILED)
      die("mmap", errno);
   return g.handle;
}

void
cu_open(struct cu_dev *d, char **argv, uint64_t heap_size)
{
   memset(d, 0, sizeof(*d));
   d->fd = find_node();
   if (d->fd < 0) {
      reexec_with_shim(argv);
      fprintf(stderr, "no asahi render node (and no tessera shim)\n");
      exit(77);
   }
   struct drm_asahi_get_params g = { .pointer = (uintptr_t)&d->params,
                                     .size = sizeof(d->params) };
   int r = ioc(d, DRM_IOCTL_ASAHI_GET_PARAMS, &g);
   if (r)
      die("GET_PARAMS", -r);
   /* room for the per-queue TVB heaps of several queues */
   uint64_t krange = d->params.vm_kernel_min_size < (1ull << 30) ? (1ull << 30)
                                                                 : d->params.vm_kernel_min_size;
   struct drm_asahi_vm_create v = {
      .kernel_start = d->params.vm_end - krange,
      .kernel_end = d->params.vm_end,
   };
   if ((r = ioc(d, DRM_IOCTL_ASAHI_VM_CREATE, &v)))
      die("VM_CREATE", -r);
   d->vm = v.vm_id;
   d->heap_size = (heap_size + CU_PAGE - 1) / CU_PAGE * CU_PAGE;
   d->heap_bo = gem(d, d->heap_size, (void **)&d->heap);
   d->heap_va = d->params.vm_start + 0x100000000ull;
   struct drm_asahi_gem_bind_op op = {
      .flags = DRM_ASAHI_BIND_READ | DRM_ASAHI_BIND_WRITE, .handle = d->heap_bo,
      .range = d->heap_size, .addr = d->heap_va,
   };
   struct drm_asahi_vm_bind b = { .vm_id = d->vm, .num_binds = 1, .stride = sizeof(op),
                                  .userptr = (uintptr_t)&op };
   if ((r = ioc(d, DRM_IOCTL_ASAHI_VM_BIND, &b)))
      die("VM_BIND", -r);
   d->queue = cu_queue(d);
   d->ts_bo = gem(d, CU_PAGE, (void **)&d->ts);
   struct drm_asahi_gem_bind_object o = {
      .op = DRM_ASAHI_BIND_OBJECT_OP_BIND, .flags = DRM_ASAHI_BIND_OBJECT_USAGE_TIMESTAMPS,
      .handle = d->ts_bo, .range = CU_PAGE,
   };
   if ((r = ioc(d, DRM_IOCTL_ASAHI_GEM_BIND_OBJECT, &o)))
      die("GEM_BIND_OBJECT", -r);
   d->ts_obj = o.object_handle;
}

void
cu_close(struct cu_dev *d)
{
   munmap(d->heap, d->heap_size);
   munmap(d->ts, CU_PAGE);
   close(d->fd);
}

uint64_t
cu_alloc(struct cu_dev *d, uint64_t size, void **cpu)
{
   uint64_t off = (d->used + 63) & ~63ull;
   if (off + size > d->heap_size) {
      fprintf(stderr, "capture test program: heap full\n");
      exit(3);
   }
   d->used = off + size;
   *cpu = d->heap + off;
   return d->heap_va + off;
}

void
cu_saxpy_init(struct cu_dev *d, struct cu_saxpy *s, uint32_t n)
{
   memset(s, 0, sizeof(*s));
   s->n = n;
   s->x = cu_alloc(d, 4ull * n, (void **)&s->xc);
   s->y = cu_alloc(d, 4ull * n, (void **)&s->yc);
   for (uint32_t i = 0; i < n; i++) {
      s->xc[i] = (float)(i % 97) * 0.25f - 3.0f;
      s->yc[i] = 1.0f / (float)(i + 1);
   }
   s->uniforms = cu_alloc(d, 32, (void **)&s->uc);
   s->uc[0] = (uint32_t)s->x;
   s->uc[1] = (uint32_t)(s->x >> 32);
   s->uc[2] = (uint32_t)s->y;
   s->uc[3] = (uint32_t)(s->y >> 32);
   s->uc[4] = tessera_fui(1.0f);
   uint8_t code[512];
   size_t len;
   char err[256];
   if (!agx_isa_assemble(saxpy_src, sizeof(saxpy_src) - 1, code, sizeof(code), &len, err,
                         sizeof(err))) {
      fprintf(stderr, "capture test program: assembler: %s\n", err);
      exit(3);
   }
   void *cp;
   uint64_t shader = cu_alloc(d, len + 16, &cp);
   memcpy(cp, code, len);
   uint8_t *w;
   uint64_t pipe = cu_alloc(d, 128, (void **)&w);
   agx_pack(w, USC_UNIFORM, x) {
      x.start_halfs = 0;
      x.size_halfs = 10;
      x.buffer = s->uniforms;
   }
   w += AGX_USC_UNIFORM_LENGTH;
   agx_pack(w, USC_SHARED, x) {
      x.uses_shared_memory = false;
      x.layout = AGX_SHARED_LAYOUT_VERTEX_COMPUTE;
      x.bytes_per_threadgroup = 256;
   }
   w += AGX_USC_SHARED_LENGTH;
   agx_pack(w, USC_SHADER, x) { x.code = (uint32_t)(shader - d->heap_va); }
   w += AGX_USC_SHADER_LENGTH;
   agx_pack(w, USC_NO_PRESHADER, x) { (void)x; }
   uint8_t *st;
   s->stream = cu_alloc(d, 64, (void **)&st);
   uint8_t *p = st;
   agx_pack(p, CDM_LAUNCH_WORD_0, x) {
      x.uniform_register_count = 512;
      x.texture_state_register_count = 0;
      x.preshader_register_count = 256;
      x.mode = AGX_CDM_MODE_DIRECT;
   }
   p += 4;
   agx_pack(p, CDM_LAUNCH_WORD_1, x) { x.pipeline = (uint32_t)(pipe - d->heap_va); }
   p += 4;
   agx_pack(p, CDM_GLOBAL_SIZE, g) {
      g.x = n;
      g.y = 1;
      g.z = 1;
   }
   p += AGX_CDM_GLOBAL_SIZE_LENGTH;
   agx_pack(p, CDM_LOCAL_SIZE, l) {
      l.x = 64;
      l.y = 1;
      l.z = 1;
   }
   p += AGX_CDM_LOCAL_SIZE_LENGTH;
   agx_pack(p, CDM_STREAM_TERMINATE, t) { (void)t; }
   p += AGX_CDM_STREAM_TERMINATE_LENGTH;
   s->stream_end = s->stream + (uint64_t)(p - st);
}

static int
submit1(struct cu_dev *d, uint32_t q, uint16_t type, const void *cmd, uint16_t size,
        uint32_t out)
{
   uint8_t buf[1024];
   struct drm_asahi_cmd_header h = { type, size, 0, 0 };
   memcpy(buf, &h, sizeof(h));
   memcpy(buf + sizeof(h), cmd, size);
   struct drm_asahi_sync s = { .sync_type = DRM_ASAHI_SYNC_SYNCOBJ, .handle = out };
   struct drm_asahi_submit sub = {
      .syncs = (uintptr_t)&s, .cmdbuf = (uintptr_t)buf, .queue_id = q,
      .out_sync_count = out ? 1 : 0, .cmdbuf_size = (uint32_t)(sizeof(h) + size),
   };
   return ioc(d, DRM_IOCTL_ASAHI_SUBMIT, &sub);
}

int
cu_saxpy_submit(struct cu_dev *d, struct cu_saxpy *s, uint32_t queue, float a, uint32_t out,
                unsigned ts_slot)
{
   s->uc[4] = tessera_fui(a);
   struct drm_asahi_cmd_compute c = {
      .cdm_ctrl_stream_base = s->stream, .cdm_ctrl_stream_end = s->stream_end,
      .ts = { .start = { d->ts_obj, ts_slot * 16 }, .end = { d->ts_obj, ts_slot * 16 + 8 } },
   };
   return submit1(d, queue, DRM_ASAHI_CMD_COMPUTE, &c, sizeof(c), out);
}

int
cu_render_submit(struct cu_dev *d, uint32_t queue, uint32_t out, unsigned ts_slot)
{
   /* a pass whose VDM stream only terminates: the clear/EOT path */
   uint8_t *vdm;
   static uint64_t vdm_va;
   if (!vdm_va) {
      vdm_va = cu_alloc(d, 64, (void **)&vdm);
      agx_pack(vdm, VDM_STREAM_TERMINATE, t) { (void)t; }
   }
   struct drm_asahi_cmd_render r = {
      .vdm_ctrl_stream_base = vdm_va,
      .width_px = 64, .height_px = 64, .layers = 1, .samples = 1,
      .utile_width_px = 32, .utile_height_px = 32, .sample_size_B = 4,
      .ts_vtx = { { d->ts_obj, ts_slot * 16 }, { 0, 0 } },
      .ts_frag = { { 0, 0 }, { d->ts_obj, ts_slot * 16 + 8 } },
   };
   return submit1(d, queue, DRM_ASAHI_CMD_RENDER, &r, sizeof(r), out);
}

int
cu_wait(struct cu_dev *d, uint32_t syncobj)
{
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   int64_t deadline = (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec + 30000000000ll;
   return drmSyncobjWait(d->fd, &syncobj, 1, deadline, 0, NULL);
}

uint64_t
cu_checksum(const void *p, size_t n)
{
   /* FNV-1a: stable, and independent of the code under test */
   uint64_t h = 0xcbf29ce484222325ull;
   const uint8_t *b = p;
   for (size_t i = 0; i < n; i++)
      h = (h ^ b[i]) * 0x100000001b3ull;
   return h;
}

void
cu_frame(const char *label)
{
   if (tessera_capture_frame)
      tessera_capture_frame(label);
}

/* SPDX-License-Identifier: MIT */
/*
 * See capture_util.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <xf86drm.h>

#include "cmdstream/agx_pack.h"
#include "tessera/float_bits.h"
#include "tests/lib/tu_dev.h"
#include "tests/lib/tu_uapi.h"
#include "tests/lib/tu_usc.h"

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
ioc(struct tu_dev *d, unsigned long cmd, void *arg)
{
   return tu_ioctl(d->fd, cmd, arg);
}

uint32_t
tu_queue(struct tu_dev *d)
{
   struct drm_asahi_queue_create q = { .vm_id = d->vm, .priority = DRM_ASAHI_PRIORITY_MEDIUM,
                                       .usc_exec_base = d->heap_va };
   int r = ioc(d, DRM_IOCTL_ASAHI_QUEUE_CREATE, &q);
   if (r)
      die("QUEUE_CREATE", -r);
   return q.queue_id;
}

static uint32_t
gem(struct tu_dev *d, uint64_t size, void **cpu)
{
   uint32_t h;
   int r = tu_gem_create(d->fd, size, DRM_ASAHI_GEM_WRITEBACK, 0, &h);
   if (r)
      die("GEM_CREATE", -r);
   *cpu = tu_gem_map(d->fd, h, size);
   if (*cpu == MAP_FAILED)
      die("GEM_MMAP_OFFSET/mmap", errno);
   return h;
}

void
tu_open(struct tu_dev *d, char **argv, uint64_t heap_size)
{
   memset(d, 0, sizeof(*d));
   d->fd = tu_open_node(NULL, 0);
   if (d->fd < 0) {
      tu_reexec_with_shim(argv, "CAPTURE_TEST_REEXEC");
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
   d->heap_size = (heap_size + TU_PAGE - 1) / TU_PAGE * TU_PAGE;
   d->heap_bo = gem(d, d->heap_size, (void **)&d->heap);
   d->heap_va = d->params.vm_start + 0x100000000ull;
   if ((r = tu_vm_bind(d->fd, d->vm, d->heap_bo, d->heap_va, d->heap_size,
                       DRM_ASAHI_BIND_READ | DRM_ASAHI_BIND_WRITE)))
      die("VM_BIND", -r);
   d->queue = tu_queue(d);
   d->ts_bo = gem(d, TU_PAGE, (void **)&d->ts);
   struct drm_asahi_gem_bind_object o = {
      .op = DRM_ASAHI_BIND_OBJECT_OP_BIND, .flags = DRM_ASAHI_BIND_OBJECT_USAGE_TIMESTAMPS,
      .handle = d->ts_bo, .range = TU_PAGE,
   };
   if ((r = ioc(d, DRM_IOCTL_ASAHI_GEM_BIND_OBJECT, &o)))
      die("GEM_BIND_OBJECT", -r);
   d->ts_obj = o.object_handle;
}

void
tu_close(struct tu_dev *d)
{
   munmap(d->heap, d->heap_size);
   munmap(d->ts, TU_PAGE);
   close(d->fd);
}

uint64_t
tu_alloc(struct tu_dev *d, uint64_t size, void **cpu)
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
tu_saxpy_init(struct tu_dev *d, struct tu_saxpy *s, uint32_t n)
{
   memset(s, 0, sizeof(*s));
   s->n = n;
   s->x = tu_alloc(d, 4ull * n, (void **)&s->xc);
   s->y = tu_alloc(d, 4ull * n, (void **)&s->yc);
   for (uint32_t i = 0; i < n; i++) {
      s->xc[i] = (float)(i % 97) * 0.25f - 3.0f;
      s->yc[i] = 1.0f / (float)(i + 1);
   }
   s->uniforms = tu_alloc(d, 32, (void **)&s->uc);
   s->uc[0] = (uint32_t)s->x;
   s->uc[1] = (uint32_t)(s->x >> 32);
   s->uc[2] = (uint32_t)s->y;
   s->uc[3] = (uint32_t)(s->y >> 32);
   s->uc[4] = tessera_fui(1.0f);
   uint8_t code[512];
   char err[256];
   size_t len = tu_usc_assemble(saxpy_src, code, sizeof(code), err, sizeof(err));
   if (!len) {
      fprintf(stderr, "capture test program: assembler: %s\n", err);
      exit(3);
   }
   void *cp;
   uint64_t shader = tu_alloc(d, len + 16, &cp);
   memcpy(cp, code, len);
   uint8_t *w;
   uint64_t pipe = tu_alloc(d, 128, (void **)&w);
   struct tu_usc_pipeline pl = {
      .code = (uint32_t)(shader - d->heap_va), .uniforms = s->uniforms, .uniform_bytes = 20,
      .shared = TU_USC_SHARED_VERTEX_COMPUTE,
   };
   tu_usc_words(w, &pl);
   uint8_t *st;
   s->stream = tu_alloc(d, 64, (void **)&st);
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

int
tu_saxpy_submit(struct tu_dev *d, struct tu_saxpy *s, uint32_t queue, float a, uint32_t out,
                unsigned ts_slot)
{
   s->uc[4] = tessera_fui(a);
   struct drm_asahi_cmd_compute c = {
      .cdm_ctrl_stream_base = s->stream, .cdm_ctrl_stream_end = s->stream_end,
      .ts = { .start = { d->ts_obj, ts_slot * 16 }, .end = { d->ts_obj, ts_slot * 16 + 8 } },
   };
   return tu_submit1(d->fd, queue, DRM_ASAHI_CMD_COMPUTE, &c, sizeof(c), out);
}

int
tu_render_submit(struct tu_dev *d, uint32_t queue, uint32_t out, unsigned ts_slot)
{
   /* a pass whose VDM stream only terminates: the clear/EOT path */
   uint8_t *vdm;
   static uint64_t vdm_va;
   if (!vdm_va) {
      vdm_va = tu_alloc(d, 64, (void **)&vdm);
      agx_pack(vdm, VDM_STREAM_TERMINATE, t) { (void)t; }
   }
   struct drm_asahi_cmd_render r = {
      .vdm_ctrl_stream_base = vdm_va,
      .width_px = 64, .height_px = 64, .layers = 1, .samples = 1,
      .utile_width_px = 32, .utile_height_px = 32, .sample_size_B = 4,
      .ts_vtx = { { d->ts_obj, ts_slot * 16 }, { 0, 0 } },
      .ts_frag = { { 0, 0 }, { d->ts_obj, ts_slot * 16 + 8 } },
   };
   return tu_submit1(d->fd, queue, DRM_ASAHI_CMD_RENDER, &r, sizeof(r), out);
}

int
tu_wait(struct tu_dev *d, uint32_t syncobj)
{
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   int64_t deadline = (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec + 30000000000ll;
   return drmSyncobjWait(d->fd, &syncobj, 1, deadline, 0, NULL);
}

uint64_t
tu_checksum(const void *p, size_t n)
{
   /* FNV-1a: stable, and independent of the code under test */
   uint64_t h = 0xcbf29ce484222325ull;
   const uint8_t *b = p;
   for (size_t i = 0; i < n; i++)
      h = (h ^ b[i]) * 0x100000001b3ull;
   return h;
}

void
tu_frame(const char *label)
{
   if (tessera_capture_frame)
      tessera_capture_frame(label);
}

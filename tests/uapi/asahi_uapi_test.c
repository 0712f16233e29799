/* SPDX-License-Identifier: MIT */
/*
 * uAPI tests for an asahi render node, through libdrm, as userspace sees
 * it: against tessera's shim (LD_PRELOAD=tessera-shim.so) or a real Asahi
 * GPU. Without either, the program re-executes itself with the shim it
 * finds next to it (build/release/lib/tessera-shim.so), or skips.
 *
 * Exact identity values are only checked on the model (TESSERA_UAPI_MODEL
 * is set when the shim is in use); everything else must hold on hardware
 * too.
 */
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <xf86drm.h>
#include <linux/dma-buf.h>
#include <linux/sync_file.h>

#include "cmdstream/agx_fw_pack.h"
#include "cmdstream/agx_pack.h"
#include "cmdstream/isa/agx_isa.h"
#include "drm-uapi/asahi_drm.h"
#include "kernel/model/asahi_model.h"
#include "tessera/float_bits.h"
#include "tests/lib/tu_draw.h"
#include "tests/lib/tu_uapi.h"
#include "tests/lib/tu_usc.h"

#define PAGE 16384ull

static int fd = -1;
static char node_path[256];
static bool model;
static struct drm_asahi_params_global params;

static int
ioc(unsigned long cmd, void *arg)
{
   return tu_ioctl(fd, cmd, arg);
}

static uint32_t
vm_create(void)
{
   struct drm_asahi_vm_create v = {
      .kernel_start = params.vm_end - params.vm_kernel_min_size,
      .kernel_end = params.vm_end,
   };
   assert_int_equal(ioc(DRM_IOCTL_ASAHI_VM_CREATE, &v), 0);
   return v.vm_id;
}

static uint32_t
gem_create(uint64_t size, uint32_t flags, uint32_t vm)
{
   uint32_t h;
   assert_int_equal(tu_gem_create(fd, size, flags, vm, &h), 0);
   return h;
}

static void *
gem_map(uint32_t h, uint64_t size)
{
   void *p = tu_gem_map(fd, h, size);
   assert_true(p != MAP_FAILED);
   return p;
}

static int
bind(uint32_t vm, uint32_t h, uint64_t addr, uint64_t range, uint32_t flags)
{
   return tu_vm_bind(fd, vm, h, addr, range, flags);
}

static uint32_t
ts_object(uint32_t *bo, uint64_t **cpu)
{
   *bo = gem_create(PAGE, 0, 0);
   *cpu = gem_map(*bo, PAGE);
   memset(*cpu, 0xff, 64);
   struct drm_asahi_gem_bind_object o = {
      .op = DRM_ASAHI_BIND_OBJECT_OP_BIND, .flags = DRM_ASAHI_BIND_OBJECT_USAGE_TIMESTAMPS,
      .handle = *bo, .range = PAGE,
   };
   assert_int_equal(ioc(DRM_IOCTL_ASAHI_GEM_BIND_OBJECT, &o), 0);
   return o.object_handle;
}

static int
submit1(uint32_t q, uint16_t type, const void *cmd, uint16_t size, uint32_t out)
{
   return tu_submit1(fd, q, type, cmd, size, out);
}

static int64_t
abs_ms(unsigned ms)
{
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec + (int64_t)ms * 1000000ll;
}

/* ---------------------------------------------------------------- tests */

static void
test_device(void **state)
{
   (void)state;
   drmVersionPtr v = drmGetVersion(fd);
   assert_non_null(v);
   assert_string_equal(v->name, "asahi");
   drmFreeVersion(v);
   drmDevicePtr d;
   assert_int_equal(drmGetDevice2(fd, 0, &d), 0);
   assert_int_equal(d->bustype, DRM_BUS_PLATFORM);
   assert_true(d->available_nodes & (1 << DRM_NODE_RENDER));
   assert_non_null(d->deviceinfo.platform->compatible[0]);
   assert_memory_equal(d->deviceinfo.platform->compatible[0], "apple,", 6);
   if (model)
      assert_string_equal(d->deviceinfo.platform->compatible[0], "apple,gpu-g13g");
   drmFreeDevice(&d);
   uint64_t cap = 0;
   assert_int_equal(drmGetCap(fd, DRM_CAP_SYNCOBJ_TIMELINE, &cap), 0);
   assert_int_equal(cap, 1);
   assert_int_equal(drmGetCap(fd, DRM_CAP_PRIME, &cap), 0);
   assert_true(cap & DRM_PRIME_CAP_EXPORT);

   /* A descriptor duplicated with fcntl (and dup) is the same device:
    * Mesa's loader dups the node it opened with F_DUPFD_CLOEXEC. */
   int fds[3] = { fcntl(fd, F_DUPFD_CLOEXEC, 100), fcntl(fd, F_DUPFD, 0), dup(fd) };
   for (unsigned i = 0; i < 3; i++) {
      assert_true(fds[i] >= 0);
      if (i == 0)
         assert_true(fds[0] >= 100 && (fcntl(fds[0], F_GETFD) & FD_CLOEXEC));
      v = drmGetVersion(fds[i]);
      assert_non_null(v);
      assert_string_equal(v->name, "asahi");
      drmFreeVersion(v);
      struct drm_asahi_params_global p2;
      struct drm_asahi_get_params g = { .pointer = (uintptr_t)&p2, .size = sizeof(p2) };
      assert_int_equal(drmIoctl(fds[i], DRM_IOCTL_ASAHI_GET_PARAMS, &g), 0);
      assert_int_equal(p2.chip_id, params.chip_id);
      close(fds[i]);
   }
}

static void
test_params(void **state)
{
   (void)state;
   assert_true(params.gpu_generation >= 13);
   assert_true(params.vm_end > params.vm_start);
   assert_true(params.command_timestamp_frequency_hz > 0);
   assert_true(params.max_commands_per_submission >= 1);
   if (model) {
      assert_int_equal(params.gpu_generation, 13);
      assert_int_equal(params.gpu_variant, 'G');
      assert_int_equal(params.chip_id, 0x8103);
      assert_int_equal(params.core_masks[0], 0xff);
      assert_int_equal(params.command_timestamp_frequency_hz, 24000000);
   }
   struct drm_asahi_get_params g = { .param_group = 7, .pointer = (uintptr_t)&params, .size = sizeof(params) };
   assert_int_equal(ioc(DRM_IOCTL_ASAHI_GET_PARAMS, &g), -EINVAL);
   g.param_group = 0;
   g.pointer = 8;
   assert_int_equal(ioc(DRM_IOCTL_ASAHI_GET_PARAMS, &g), -EFAULT);
   struct drm_asahi_get_time t = { 0 };
   assert_int_equal(ioc(DRM_IOCTL_ASAHI_GET_TIME, &t), 0);
   t.flags = 4;
   assert_int_equal(ioc(DRM_IOCTL_ASAHI_GET_TIME, &t), -EINVAL);
}

static void
test_gem_vm(void **state)
{
   (void)state;
   uint32_t vm = vm_create();
   uint32_t h = gem_create(2 * PAGE, DRM_ASAHI_GEM_WRITEBACK, 0);
   uint32_t *p = gem_map(h, 2 * PAGE);
   p[0] = 0x1234;
   const uint64_t va = params.vm_start + 0x100000000ull;
   assert_int_equal(bind(vm, h, va, 2 * PAGE, DRM_ASAHI_BIND_READ | DRM_ASAHI_BIND_WRITE), 0);
   assert_int_equal(bind(vm, h, va, 3 * PAGE, DRM_ASAHI_BIND_READ), -EINVAL);
   assert_int_equal(bind(vm, h, va + 1, PAGE, DRM_ASAHI_BIND_READ), -EINVAL);
   assert_int_equal(bind(vm, 9999, va, PAGE, DRM_ASAHI_BIND_READ), -ENOENT);
   assert_int_equal(bind(vm + 100, h, va, PAGE, DRM_ASAHI_BIND_READ), -ENOENT);
   assert_int_equal(bind(vm, h, params.vm_end - params.vm_kernel_min_size, PAGE,
                         DRM_ASAHI_BIND_READ), -EINVAL);
   assert_int_equal(bind(vm, 0, va, 2 * PAGE, DRM_ASAHI_BIND_UNBIND), 0);
   /* mmap of an offset that is not an object fails */
   void *bad = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, 0x7ff0000000ll);
   assert_true(bad == MAP_FAILED);
   /* PRIME round trip into the same file returns the same handle */
   int dmabuf = -1;
   assert_int_equal(drmPrimeHandleToFD(fd, h, DRM_CLOEXEC, &dmabuf), 0);
   uint32_t h2 = 0;
   assert_int_equal(drmPrimeFDToHandle(fd, dmabuf, &h2), 0);
   assert_int_equal(h2, h);
   close(dmabuf);
   uint32_t priv = gem_create(PAGE, DRM_ASAHI_GEM_VM_PRIVATE, vm);
   assert_int_equal(drmPrimeHandleToFD(fd, priv, DRM_CLOEXEC, &dmabuf), -1);
   assert_int_equal(errno, EINVAL);
   struct drm_asahi_gem_create g = { .size = PAGE, .flags = 1u << 7 };
   assert_int_equal(ioc(DRM_IOCTL_ASAHI_GEM_CREATE, &g), -EINVAL);
   munmap(p, 2 * PAGE);
   assert_int_equal(drmCloseBufferHandle(fd, h), 0);
   assert_int_equal(drmCloseBufferHandle(fd, h), -1);
   assert_int_equal(errno, EINVAL);
   struct drm_asahi_vm_destroy d = { .vm_id = vm };
   assert_int_equal(ioc(DRM_IOCTL_ASAHI_VM_DESTROY, &d), 0);
   assert_int_equal(ioc(DRM_IOCTL_ASAHI_VM_DESTROY, &d), -ENOENT);
}

static void
test_syncobj(void **state)
{
   (void)state;
   uint32_t a, b;
   assert_int_equal(drmSyncobjCreate(fd, 0, &a), 0);
   assert_int_equal(drmSyncobjCreate(fd, DRM_SYNCOBJ_CREATE_SIGNALED, &b), 0);
   assert_int_equal(drmSyncobjWait(fd, &b, 1, abs_ms(0), 0, NULL), 0);
   assert_int_equal(drmSyncobjWait(fd, &a, 1, abs_ms(10), DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, NULL), -ETIME);
   assert_int_equal(drmSyncobjWait(fd, &a, 1, abs_ms(10), 0, NULL), -EINVAL);
   assert_int_equal(drmSyncobjSignal(fd, &a, 1), 0);
   uint32_t both[2] = { a, b }, first = 9;
   assert_int_equal(drmSyncobjWait(fd, both, 2, abs_ms(0), DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, &first), 0);
   assert_int_equal(drmSyncobjReset(fd, &a, 1), 0);
   assert_int_equal(drmSyncobjWait(fd, both, 2, abs_ms(0), DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, &first), 0);
   assert_int_equal(first, 1);
   /* timelines */
   uint32_t t;
   assert_int_equal(drmSyncobjCreate(fd, 0, &t), 0);
   uint64_t pt = 3, q = 0;
   assert_int_equal(drmSyncobjTimelineSignal(fd, &t, &pt, 1), 0);
   assert_int_equal(drmSyncobjQuery(fd, &t, &q, 1), 0);
   assert_int_equal(q, 3);
   pt = 2;
   assert_int_equal(drmSyncobjTimelineWait(fd, &t, &pt, 1, abs_ms(0), 0, NULL), 0);
   pt = 4;
   assert_int_equal(drmSyncobjTimelineWait(fd, &t, &pt, 1, abs_ms(10),
                                           DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, NULL), -ETIME);
   assert_int_equal(drmSyncobjTransfer(fd, a, 0, t, 3, 0), 0);
   assert_int_equal(drmSyncobjWait(fd, &a, 1, abs_ms(0), 0, NULL), 0);
   int sfd = -1;
   assert_int_equal(drmSyncobjHandleToFD(fd, t, &sfd), 0);
   uint32_t t2 = 0;
   assert_int_equal(drmSyncobjFDToHandle(fd, sfd, &t2), 0);
   q = 0;
   assert_int_equal(drmSyncobjQuery(fd, &t2, &q, 1), 0);
   assert_int_equal(q, 3);
   close(sfd);
   uint32_t bogus = 0xdead;
   /* these libdrm wrappers return -1 and set errno */
   assert_int_equal(drmSyncobjSignal(fd, &bogus, 1), -1);
   assert_int_equal(errno, ENOENT);
   assert_int_equal(drmSyncobjDestroy(fd, bogus), -1);
   assert_int_equal(errno, EINVAL);
   assert_int_equal(drmSyncobjDestroy(fd, t), 0);
}

/* ------------------------------------------------------- GPU memory */

/*
 * Userspace's shader heap, laid out as Mesa lays it out: one 4 GiB-aligned
 * window whose base is the queue's usc_exec_base, so every USC word can
 * name code and word lists by a 32-bit offset from it. Data buffers and
 * control streams live in the same BO for brevity.
 */
#define USC_BASE 0x1000000000ull   /* 64 GiB, 4 GiB aligned */
#define ARENA_SIZE (4ull << 20)

struct arena {
   uint32_t vm, bo;
   uint8_t *cpu;
   uint64_t va, used;
};

static void
arena_init(struct arena *a, uint32_t vm, uint64_t va)
{
   a->vm = vm;
   a->va = va;
   a->bo = gem_create(ARENA_SIZE, DRM_ASAHI_GEM_WRITEBACK, 0);
   a->cpu = gem_map(a->bo, ARENA_SIZE);
   assert_int_equal(bind(vm, a->bo, va, ARENA_SIZE, DRM_ASAHI_BIND_READ | DRM_ASAHI_BIND_WRITE), 0);
   a->used = 0x100;   /* USC offset 0 means "no program" */
}

static void
arena_fini(struct arena *a)
{
   munmap(a->cpu, ARENA_SIZE);
   assert_int_equal(drmCloseBufferHandle(fd, a->bo), 0);
}

static uint64_t
a_alloc(struct arena *a, uint64_t size, uint64_t align)
{
   a->used = (a->used + align - 1) & ~(align - 1);
   uint64_t va = a->va + a->used;
   a->used += size;
   assert_true(a->used <= ARENA_SIZE);
   return va;
}

static void *
a_host(struct arena *a, uint64_t va)
{
   return a->cpu + (va - a->va);
}

static uint64_t
a_put(struct arena *a, const void *data, uint64_t size, uint64_t align)
{
   uint64_t va = a_alloc(a, size, align);
   memcpy(a_host(a, va), data, size);
   return va;
}

static uint64_t
a_shader(struct arena *a, const char *src)
{
   uint8_t code[4096];
   char err[160];
   size_t len = tu_usc_assemble(src, code, sizeof(code), err, sizeof(err));
   if (!len)
      fail_msg("assembly failed: %s", err);
   return a_put(a, code, len, 128);
}

static uint32_t
usc_off(uint64_t va)
{
   return (uint32_t)(va - USC_BASE);
}

static uint32_t
queue_create_usc(uint32_t vm)
{
   struct drm_asahi_queue_create q = {
      .vm_id = vm, .priority = DRM_ASAHI_PRIORITY_MEDIUM, .usc_exec_base = USC_BASE,
   };
   assert_int_equal(ioc(DRM_IOCTL_ASAHI_QUEUE_CREATE, &q), 0);
   return q.queue_id;
}

static void
queue_destroy(uint32_t q)
{
   struct drm_asahi_queue_destroy d = { .queue_id = q };
   assert_int_equal(ioc(DRM_IOCTL_ASAHI_QUEUE_DESTROY, &d), 0);
}

/* The shim's diagnostics (absent on hardware). */
typedef int (*stats_fn)(struct asahi_model_stats *);
typedef int (*hook_fn)(asahi_job_hook_fn, void *);

static bool
model_stats(struct asahi_model_stats *st)
{
   stats_fn f = (stats_fn)dlsym(RTLD_DEFAULT, "tessera_shim_get_stats");
   return f && f(st) == 0;
}

static int
wait1(uint32_t s)
{
   return drmSyncobjWait(fd, &s, 1, abs_ms(60000), 0, NULL);
}

/* ------------------------------------------------------------ compute */

/* y[i] = a * x[i] + y[i], thread_position_in_grid.x = i */
static const char *const saxpy_src =
   "get_sr r1, sr80\n"
   "device_load 0, i32, x, r2, u0_u1, r1, unsigned\n"
   "device_load 0, i32, x, r3, u2_u3, r1, unsigned\n"
   "wait 0\n"
   "fmadd32 r4, u4, r2, r3\n"
   "device_store 0, i32, x, r4, u2_u3, r1, unsigned, 0\n"
   "stop\n";

struct saxpy {
   unsigned n;
   float a;
   uint64_t x, y, stream, stream_end;
   float *ycpu;
   float ref[1024];
};

/* Buffers, pipeline (uniforms, shared, shader, registers, no preshader)
 * and a CDM stream: launch (direct, n threads in groups of 64) +
 * terminate. x_override replaces the x pointer (to make it fault). */
static void
saxpy_build(struct arena *a, struct saxpy *k, unsigned n, float alpha, uint64_t x_override)
{
   memset(k, 0, sizeof(*k));
   k->n = n;
   k->a = alpha;
   float *x, *y;
   k->x = a_alloc(a, 4 * n, 64);
   k->y = a_alloc(a, 4 * n, 64);
   x = a_host(a, k->x);
   y = a_host(a, k->y);
   for (unsigned i = 0; i < n; i++) {
      x[i] = (float)i * 0.25f - 3.0f;
      y[i] = 100.0f / (float)(i + 1);
      k->ref[i] = fmaf(alpha, x[i], y[i]);
   }
   k->ycpu = y;
   uint64_t xv = x_override ? x_override : k->x;
   uint32_t u[5] = { (uint32_t)xv, (uint32_t)(xv >> 32), (uint32_t)k->y,
                     (uint32_t)(k->y >> 32), tessera_fui(alpha) };
   uint64_t ub = a_put(a, u, sizeof(u), 16);
   uint64_t code = a_shader(a, saxpy_src);

   struct tu_usc_pipeline pl = {
      .code = usc_off(code), .uniforms = ub, .uniform_bytes = 20,
      .shared = TU_USC_SHARED_VERTEX_COMPUTE, .registers = 16,
   };
   uint8_t w[TU_USC_WORDS_MAX];
   unsigned o = tu_usc_words(w, &pl);
   uint32_t pipe = usc_off(a_put(a, w, o, 64));

   uint8_t c[128];
   o = 0;
   agx_pack(c + o, CDM_LAUNCH_WORD_0, l) {
      l.uniform_register_count = 512;
      l.preshader_register_count = 256;
      l.mode = AGX_CDM_MODE_DIRECT;
   }
   o += 4;
   agx_pack(c + o, CDM_LAUNCH_WORD_1, l) { l.pipeline = pipe; }
   o += 4;
   agx_pack(c + o, CDM_GLOBAL_SIZE, g) { g.x = n; g.y = 1; g.z = 1; }
   o += AGX_CDM_GLOBAL_SIZE_LENGTH;
   agx_pack(c + o, CDM_LOCAL_SIZE, l) { l.x = 64; l.y = 1; l.z = 1; }
   o += AGX_CDM_LOCAL_SIZE_LENGTH;
   agx_pack(c + o, CDM_STREAM_TERMINATE, t) { (void)t; }
   o += AGX_CDM_STREAM_TERMINATE_LENGTH;
   k->stream = a_put(a, c, o, 64);
   k->stream_end = k->stream + o;
}

static void
saxpy_check(const struct saxpy *k)
{
   for (unsigned i = 0; i < k->n; i++)
      if (tessera_fui(k->ycpu[i]) != tessera_fui(k->ref[i]))
         fail_msg("y[%u] = %a, expected %a", i, (double)k->ycpu[i], (double)k->ref[i]);
}

static struct drm_asahi_cmd_compute
compute_cmd(const struct saxpy *k)
{
   struct drm_asahi_cmd_compute c = {
      .cdm_ctrl_stream_base = k->stream, .cdm_ctrl_stream_end = k->stream_end,
   };
   return c;
}

/* saxpy through GEM mmap, VM_BIND, SUBMIT and a syncobj; then the GPU
 * timestamps of two jobs are ordered; then bad submissions. */
static void
test_compute(void **state)
{
   (void)state;
   uint32_t vm = vm_create(), q = queue_create_usc(vm);
   struct arena a;
   arena_init(&a, vm, USC_BASE);
   struct saxpy k;
   saxpy_build(&a, &k, 1000, 1.75f, 0);
   uint32_t tsbo;
   uint64_t *ts;
   uint32_t tso = ts_object(&tsbo, &ts);
   struct drm_asahi_cmd_compute c = compute_cmd(&k);
   c.ts = (struct drm_asahi_timestamps){ .start = { tso, 0 }, .end = { tso, 8 } };
   uint32_t out;
   assert_int_equal(drmSyncobjCreate(fd, 0, &out), 0);
   assert_int_equal(submit1(q, DRM_ASAHI_CMD_COMPUTE, &c, sizeof(c), out), 0);
   assert_int_equal(wait1(out), 0);
   saxpy_check(&k);
   assert_true(ts[0] != ~0ull && ts[1] != ~0ull);
   assert_true(ts[1] > ts[0]);

   /* again, in place: y = a x + (a x + y0) */
   for (unsigned i = 0; i < k.n; i++)
      k.ref[i] = fmaf(k.a, (float)i * 0.25f - 3.0f, k.ref[i]);
   c.ts = (struct drm_asahi_timestamps){ .start = { tso, 16 }, .end = { tso, 24 } };
   assert_int_equal(submit1(q, DRM_ASAHI_CMD_COMPUTE, &c, sizeof(c), out), 0);
   assert_int_equal(wait1(out), 0);
   saxpy_check(&k);
   assert_true(ts[3] > ts[2] && ts[2] >= ts[1]);
   struct drm_asahi_get_time t = { 0 };
   assert_int_equal(ioc(DRM_IOCTL_ASAHI_GET_TIME, &t), 0);
   if (model)   /* both in ns on the model's one clock */
      assert_true(t.gpu_timestamp >= ts[3]);

   /* bad submissions */
   c.flags = 1;
   assert_int_equal(submit1(q, DRM_ASAHI_CMD_COMPUTE, &c, sizeof(c), out), -EINVAL);
   c.flags = 0;
   assert_int_equal(submit1(q + 100, DRM_ASAHI_CMD_COMPUTE, &c, sizeof(c), out), -ENOENT);
   assert_int_equal(submit1(q, 99, &c, sizeof(c), out), -EINVAL);
   assert_int_equal(submit1(q, DRM_ASAHI_CMD_COMPUTE, &c, sizeof(c), 0xbad), -ENOENT);
   queue_destroy(q);
   arena_fini(&a);
   munmap(ts, PAGE);
}

/* Sync files: a syncobj's fence as a pollable fd and back (Mesa's asahi
 * driver trades fences this way with itself and the window system), the
 * sync-file ioctls, and a dma-buf's reservation (DMA_BUF_IOCTL_{EXPORT,
 * IMPORT}_SYNC_FILE; the upstream uAPI has no implicit sync, so it holds
 * what userspace imported). */
static bool
sync_file_ready(int sfd)
{
   struct pollfd p = { .fd = sfd, .events = POLLIN };
   return poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
}

static void
test_sync_file(void **state)
{
   (void)state;
   uint32_t empty, done;
   int sfd = -1;
   assert_int_equal(drmSyncobjCreate(fd, 0, &empty), 0);
   /* nothing to export yet: EINVAL, as drm_syncobj_export_sync_file */
   assert_true(drmSyncobjExportSyncFile(fd, empty, &sfd) != 0);
   assert_int_equal(errno, EINVAL);

   /* a fence from the GPU: export, poll, import elsewhere, wait */
   uint32_t vm = vm_create(), q = queue_create_usc(vm);
   struct arena a;
   arena_init(&a, vm, USC_BASE);
   struct saxpy k;
   saxpy_build(&a, &k, 1000, 0.5f, 0);
   struct drm_asahi_cmd_compute c = compute_cmd(&k);
   assert_int_equal(drmSyncobjCreate(fd, 0, &done), 0);
   assert_int_equal(submit1(q, DRM_ASAHI_CMD_COMPUTE, &c, sizeof(c), done), 0);
   assert_int_equal(drmSyncobjExportSyncFile(fd, done, &sfd), 0);
   assert_true(sfd >= 0);
   struct pollfd p = { .fd = sfd, .events = POLLIN };
   assert_int_equal(poll(&p, 1, 5000), 1);   /* signals when the job ends */
   saxpy_check(&k);
   assert_int_equal(drmSyncobjImportSyncFile(fd, empty, sfd), 0);
   assert_int_equal(drmSyncobjWait(fd, &empty, 1, abs_ms(0), 0, NULL), 0);

   /* SYNC_IOC_FILE_INFO and SYNC_IOC_MERGE */
   struct sync_file_info info = { 0 };
   assert_int_equal(ioctl(sfd, SYNC_IOC_FILE_INFO, &info), 0);
   assert_int_equal(info.status, 1);
   assert_int_equal(info.num_fences, 1);
   int other = -1;
   uint32_t sig;
   assert_int_equal(drmSyncobjCreate(fd, DRM_SYNCOBJ_CREATE_SIGNALED, &sig), 0);
   assert_int_equal(drmSyncobjExportSyncFile(fd, sig, &other), 0);
   struct sync_merge_data m = { .name = "test", .fd2 = other };
   assert_int_equal(ioctl(sfd, SYNC_IOC_MERGE, &m), 0);
   assert_true(m.fence >= 0 && m.fence != sfd && m.fence != other);
   assert_true(sync_file_ready(m.fence));
   close(m.fence);
   /* bad arguments: an fd that is no sync file, flags */
   int pipefd[2];
   assert_int_equal(pipe(pipefd), 0);
   m = (struct sync_merge_data){ .fd2 = pipefd[0] };
   assert_int_equal(ioctl(sfd, SYNC_IOC_MERGE, &m), -1);
   assert_int_equal(errno, ENOENT);
   m = (struct sync_merge_data){ .fd2 = other, .flags = 1 };
   assert_int_equal(ioctl(sfd, SYNC_IOC_MERGE, &m), -1);
   assert_int_equal(errno, EINVAL);
   assert_true(drmSyncobjImportSyncFile(fd, empty, pipefd[0]) != 0);
   assert_int_equal(errno, EINVAL);
   close(pipefd[0]);
   close(pipefd[1]);

   /* a dma-buf's reservation */
   uint32_t shared = gem_create(PAGE, DRM_ASAHI_GEM_WRITEBACK, 0);
   int dmabuf = -1;
   assert_int_equal(drmPrimeHandleToFD(fd, shared, DRM_CLOEXEC, &dmabuf), 0);
   struct dma_buf_export_sync_file ex = { .flags = DMA_BUF_SYNC_READ, .fd = -1 };
   assert_int_equal(ioctl(dmabuf, DMA_BUF_IOCTL_EXPORT_SYNC_FILE, &ex), 0);
   assert_true(sync_file_ready(ex.fd));       /* nothing pending */
   close(ex.fd);
   struct dma_buf_import_sync_file im = { .flags = DMA_BUF_SYNC_WRITE, .fd = sfd };
   assert_int_equal(ioctl(dmabuf, DMA_BUF_IOCTL_IMPORT_SYNC_FILE, &im), 0);
   ex = (struct dma_buf_export_sync_file){ .flags = DMA_BUF_SYNC_RW, .fd = -1 };
   assert_int_equal(ioctl(dmabuf, DMA_BUF_IOCTL_EXPORT_SYNC_FILE, &ex), 0);
   assert_true(sync_file_ready(ex.fd));
   close(ex.fd);
   ex = (struct dma_buf_export_sync_file){ .flags = 0, .fd = -1 };
   assert_int_equal(ioctl(dmabuf, DMA_BUF_IOCTL_EXPORT_SYNC_FILE, &ex), -1);
   assert_int_equal(errno, EINVAL);
   close(dmabuf);
   struct drm_gem_close gc = { .handle = shared };
   assert_int_equal(ioc(DRM_IOCTL_GEM_CLOSE, &gc), 0);

   close(other);
   close(sfd);
   assert_int_equal(drmSyncobjDestroy(fd, sig), 0);
   assert_int_equal(drmSyncobjDestroy(fd, done), 0);
   assert_int_equal(drmSyncobjDestroy(fd, empty), 0);
   queue_destroy(q);
   arena_fini(&a);
}

/* ------------------------------------------------------------- render */

struct vtx { float x, y, z, w, r, g, b, a; };

/* after a partial render: reload the tile from the render target */
static const char *const bg_load_src =
   "get_sr r2, sr80\nget_sr r3, sr81\n"
   "texture_load 0, 0b0000, 0b0, none, xyzw, 0b00, r4_r5_r6_r7, None, ts0, ss0, tex_2d, r2_r3, auto_lod, 0\n"
   "wait 0\n"
   "st_tile r4_r5_r6_r7, u8norm, 0, xyzw, 0, 255, 0\n"
   "stop\n";

struct rscene {
   struct arena a;
   unsigned w, h;
   uint64_t rt;
   uint32_t *rtcpu;
   uint32_t bg, eot, pbg, peot;
   uint8_t vdm[256];
   unsigned vdm_len;
};

static uint32_t
usc_pipeline(struct arena *a, uint64_t code, const void *uni, unsigned uni_bytes,
             uint64_t tex, bool fragment)
{
   struct tu_usc_pipeline p = {
      .code = usc_off(code),
      .uniforms = uni_bytes ? a_put(a, uni, uni_bytes, 16) : 0, .uniform_bytes = uni_bytes,
      .textures = tex,
      /* vertex shaders here need no Shared word */
      .shared = fragment ? TU_USC_SHARED_TILE_32X32 : TU_USC_SHARED_NONE,
      .registers = 32,
   };
   uint8_t w[TU_USC_WORDS_MAX];
   unsigned n = tu_usc_words(w, &p);
   return usc_off(a_put(a, w, n, 64));
}

static void
vdm_emit(struct rscene *s, const void *p, unsigned len)
{
   assert_true(s->vdm_len + len <= sizeof(s->vdm));
   memcpy(s->vdm + s->vdm_len, p, len);
   s->vdm_len += len;
}

/* Render target, PBE/texture descriptors, bg (clear), eot and the partial
 * variants (reload / store). `clear` is RGBA8 as a little-endian word. */
static void
rscene_init(struct rscene *s, uint32_t vm, unsigned w, unsigned h, uint32_t clear)
{
   memset(s, 0, sizeof(*s));
   arena_init(&s->a, vm, USC_BASE);
   s->w = w;
   s->h = h;
   s->rt = a_alloc(&s->a, (uint64_t)w * h * 4, 128);
   s->rtcpu = a_host(&s->a, s->rt);
   memset(s->rtcpu, 0x5a, (size_t)w * h * 4);   /* all must be overwritten */
   uint8_t d[AGX_PBE_LENGTH];
   agx_pack(d, PBE, p) {
      p.dimension = AGX_TEXTURE_DIMENSION_2D; p.layout = AGX_LAYOUT_LINEAR;
      p.channels = AGX_CHANNELS_R8G8B8A8; p.type = AGX_TEXTURE_TYPE_UNORM;
      p.swizzle_r = AGX_CHANNEL_R; p.swizzle_g = AGX_CHANNEL_G;
      p.swizzle_b = AGX_CHANNEL_B; p.swizzle_a = AGX_CHANNEL_A;
      p.width = w; p.height = h; p.buffer = s->rt; p.stride = w * 4 - 4;
   }
   uint64_t pbe = a_put(&s->a, d, sizeof(d), 16);
   agx_pack(d, TEXTURE, tx) {
      tx.dimension = AGX_TEXTURE_DIMENSION_2D; tx.layout = AGX_LAYOUT_LINEAR;
      tx.channels = AGX_CHANNELS_R8G8B8A8; tx.type = AGX_TEXTURE_TYPE_UNORM;
      tx.width = w; tx.height = h; tx.address = s->rt; tx.stride = w * 4 - 16;
   }
   uint64_t tex = a_put(&s->a, d, sizeof(d), 16);
   float cc[4];
   for (unsigned c = 0; c < 4; c++)
      cc[c] = (float)(clear >> (8 * c) & 0xff) / 255.0f;
   s->bg = usc_pipeline(&s->a, a_shader(&s->a, tu_draw_bg_clear_src), cc, sizeof(cc), 0, true);
   s->pbg = usc_pipeline(&s->a, a_shader(&s->a, bg_load_src), NULL, 0, tex, true);
   s->eot = usc_pipeline(&s->a, a_shader(&s->a, tu_draw_eot_src), NULL, 0, pbe, false);
   s->peot = s->eot;
}

/* Vertex state (8 outputs) + a PPP record for flat-shaded, opaque,
 * uncull'd triangles + one non-indexed draw + terminate. */
static void
rscene_draw(struct rscene *s, const struct vtx *v, unsigned nverts)
{
   struct arena *a = &s->a;
   uint64_t vb = a_put(a, v, nverts * sizeof(*v), 16);
   struct tu_draw d = { .width = s->w, .height = s->h, .depth_func = AGX_ZS_FUNC_ALWAYS,
                        .vertex_count = nverts };
   d.vs_pipeline = usc_pipeline(a, a_shader(a, tu_draw_vs_src), &vb, 8, 0, false);
   d.fs_pipeline = usc_pipeline(a, a_shader(a, tu_draw_fs_src), NULL, 0, 0, true);
   uint8_t cb[TU_DRAW_CF_BYTES];
   d.cf_bindings = usc_off(a_put(a, cb, tu_draw_cf(cb, true), 4));
   uint8_t p[TU_DRAW_PPP_BYTES];
   unsigned n = tu_draw_ppp(p, &d);
   uint64_t pp = a_put(a, p, n, 16);
   uint8_t w[TU_DRAW_VDM_BYTES];
   vdm_emit(s, w, tu_draw_vdm(w, &d, pp, n));
   vdm_emit(s, w, tu_draw_vdm_end(w));
}

static struct drm_asahi_cmd_render
rscene_cmd(struct rscene *s)
{
   struct drm_asahi_cmd_render r =
      tu_render_cmd(s->w, s->h, a_put(&s->a, s->vdm, s->vdm_len, 64), s->bg, s->eot);
   r.partial_bg = (struct drm_asahi_bg_eot){ s->pbg, 0 };
   r.partial_eot = (struct drm_asahi_bg_eot){ s->peot, 0 };
   return r;
}

/* Screen-space pixel (x, y) to a clip-space vertex (w = 1). */
static struct vtx
vert(unsigned w, unsigned h, float x, float y, uint32_t rgba)
{
   struct vtx v = { 2.0f * x / (float)w - 1.0f, 1.0f - 2.0f * y / (float)h, 0.5f, 1.0f,
                    (float)(rgba & 0xff) / 255.0f, (float)(rgba >> 8 & 0xff) / 255.0f,
                    (float)(rgba >> 16 & 0xff) / 255.0f, (float)(rgba >> 24) / 255.0f };
   return v;
}

/*
 * A right triangle (x0,y0) (x0+3s,y0) (x0,y0+6s) in pixels: its legs lie
 * on pixel edges and its hypotenuse 2x + y = 2x0 + y0 + 6s never passes
 * through a pixel centre, so which pixels it covers has one answer: the
 * pixel (i, j) is inside iff i >= x0, j >= y0, 2i + j + 1.5 < 2x0 + y0 + 6s.
 */
static void
tri(unsigned w, unsigned h, unsigned x0, unsigned y0, unsigned sc, uint32_t rgba, struct vtx *out)
{
   out[0] = vert(w, h, (float)x0, (float)y0, rgba);
   out[1] = vert(w, h, (float)(x0 + 3 * sc), (float)y0, rgba);
   out[2] = vert(w, h, (float)x0, (float)(y0 + 6 * sc), rgba);
}

static bool
tri_covers(unsigned x0, unsigned y0, unsigned sc, unsigned i, unsigned j)
{
   return i >= x0 && j >= y0 && 2.0 * i + j + 1.5 < 2.0 * x0 + y0 + 6.0 * sc;
}

static void
check_pixels(const struct rscene *s, const uint32_t *expect)
{
   unsigned bad = 0;
   for (unsigned j = 0; j < s->h; j++) {
      for (unsigned i = 0; i < s->w; i++) {
         uint32_t got = s->rtcpu[j * s->w + i], want = expect[j * s->w + i];
         if (got != want && bad++ < 5)
            print_message("pixel (%u,%u) = %08x, expected %08x\n", i, j, got, want);
      }
   }
   assert_int_equal(bad, 0);
}

#define CLEAR 0xff604020u
#define RED 0xff0000ffu

/* Clear + one flat red triangle into a linear RGBA8 target, with both
 * passes' timestamps. */
static void
test_render(void **state)
{
   (void)state;
   uint32_t vm = vm_create(), q = queue_create_usc(vm);
   struct rscene s;
   rscene_init(&s, vm, 64, 64, CLEAR);
   struct vtx v[3];
   tri(64, 64, 8, 8, 8, RED, v);
   rscene_draw(&s, v, 3);
   uint32_t tsbo;
   uint64_t *ts;
   uint32_t tso = ts_object(&tsbo, &ts);
   struct drm_asahi_cmd_render r = rscene_cmd(&s);
   r.ts_vtx.start = (struct drm_asahi_timestamp){ tso, 0 };
   r.ts_vtx.end = (struct drm_asahi_timestamp){ tso, 8 };
   r.ts_frag.start = (struct drm_asahi_timestamp){ tso, 16 };
   r.ts_frag.end = (struct drm_asahi_timestamp){ tso, 24 };
   uint32_t out;
   assert_int_equal(drmSyncobjCreate(fd, 0, &out), 0);
   assert_int_equal(submit1(q, DRM_ASAHI_CMD_RENDER, &r, sizeof(r), out), 0);
   assert_int_equal(wait1(out), 0);
   static uint32_t expect[64 * 64];
   unsigned inside = 0;
   for (unsigned j = 0; j < 64; j++)
      for (unsigned i = 0; i < 64; i++) {
         bool in = tri_covers(8, 8, 8, i, j);
         expect[j * 64 + i] = in ? RED : CLEAR;
         inside += in;
      }
   assert_true(inside > 500);
   check_pixels(&s, expect);
   assert_true(ts[0] != ~0ull && ts[3] != ~0ull);
   assert_true(ts[1] > ts[0] && ts[3] > ts[2] && ts[2] >= ts[1]);

   /* the same pass again: timestamps move on */
   r.ts_vtx.start.offset = 32;
   r.ts_vtx.end.offset = 40;
   r.ts_frag.start.offset = 48;
   r.ts_frag.end.offset = 56;
   memset(s.rtcpu, 0x5a, 64 * 64 * 4);
   assert_int_equal(submit1(q, DRM_ASAHI_CMD_RENDER, &r, sizeof(r), out), 0);
   assert_int_equal(wait1(out), 0);
   check_pixels(&s, expect);
   for (unsigned i = 1; i < 8; i++)
      assert_true(ts[i] >= ts[i - 1]);
   assert_true(ts[4] >= ts[3] && ts[7] > ts[4]);

   r.samples = 3;
   assert_int_equal(submit1(q, DRM_ASAHI_CMD_RENDER, &r, sizeof(r), out), -EINVAL);
   r.samples = 1;
   r.ts_frag.end.offset = PAGE;
   assert_int_equal(submit1(q, DRM_ASAHI_CMD_RENDER, &r, sizeof(r), out), -EINVAL);
   queue_destroy(q);
   arena_fini(&s.a);
   munmap(ts, PAGE);
}

/* ------------------------------------------------------ the job hook */

#define MAX_HOOKED 16

struct hooked {
   struct asahi_job_info info;
   uint8_t header[256], script[256], payload[512];
};

static struct {
   unsigned n;
   struct hooked jobs[MAX_HOOKED];
} hooked;

/* Runs under the driver lock: copy and return. */
static void
hook(void *user, const struct asahi_job_info *job)
{
   (void)user;
   if (hooked.n >= MAX_HOOKED)
      return;
   struct hooked *h = &hooked.jobs[hooked.n++];
   h->info = *job;
   memcpy(h->header, job->header, AGX_FW_JOB_HEADER_LENGTH);
   if (job->script)
      memcpy(h->script, job->script, job->script_size < 256 ? job->script_size : 256);
   if (job->payload)
      memcpy(h->payload, job->payload, job->payload_size < 512 ? job->payload_size : 512);
}

static bool
set_hook(asahi_job_hook_fn fn)
{
   hook_fn f = (hook_fn)dlsym(RTLD_DEFAULT, "tessera_shim_set_job_hook");
   if (fn)
      hooked.n = 0;
   return f && f(fn, NULL) == 0;
}

/* The render pass's vertex job among the hooked ones (NULL if none). */
static struct hooked *
hooked_job(enum agx_fw_command tag, unsigned nth)
{
   for (unsigned i = 0; i < hooked.n; i++) {
      struct agx_fw_job_header h;
      if (agx_fw_job_header_unpack(hooked.jobs[i].header, &h) && h.tag == tag && nth-- == 0)
         return &hooked.jobs[i];
   }
   return NULL;
}

/* ------------------------------------------------------- TVB growth */

#define TVB_W 256
#define TVB_H 256
#define TVB_TRIS 700
#define TVB_INITIAL_KB 64

/*
 * Many small triangles, one per 8x8 cell, with a small initial TVB heap
 * (TESSERA_SHIM_TVB_KB, set in main): the first pass overflows it, the
 * tiler renders partially (partial eot stores, partial bg reloads), posts
 * Grow TVB and the driver doubles the heap; the image is exact anyway.
 * The second pass fits: no partial render, no new Grow TVB.
 */
static void
test_tvb_growth(void **state)
{
   (void)state;
   uint32_t vm = vm_create(), q = queue_create_usc(vm);
   struct rscene s;
   rscene_init(&s, vm, TVB_W, TVB_H, CLEAR);
   static const uint32_t palette[5] = { RED, 0xff00ff00u, 0xffff0000u, 0xff00ffffu, 0x80808080u };
   struct vtx *v = calloc(3 * TVB_TRIS, sizeof(*v));
   uint32_t *expect = malloc(TVB_W * TVB_H * 4);
   assert_non_null(v);
   assert_non_null(expect);
   for (unsigned i = 0; i < TVB_W * TVB_H; i++)
      expect[i] = CLEAR;
   for (unsigned t = 0; t < TVB_TRIS; t++) {
      unsigned cx = (t % (TVB_W / 8)) * 8, cy = (t / (TVB_W / 8)) * 8;
      uint32_t col = palette[t % 5];
      tri(TVB_W, TVB_H, cx + 1, cy + 1, 1, col, v + 3 * t);
      for (unsigned j = cy; j < cy + 8; j++)
         for (unsigned i = cx; i < cx + 8; i++)
            if (tri_covers(cx + 1, cy + 1, 1, i, j))
               expect[j * TVB_W + i] = col;
   }
   rscene_draw(&s, v, 3 * TVB_TRIS);
   free(v);
   struct drm_asahi_cmd_render r = rscene_cmd(&s);
   bool hooked_ok = model && set_hook(hook);
   struct asahi_model_stats st0 = { 0 }, st1 = { 0 }, st2 = { 0 };
   bool stats = model && model_stats(&st0);
   uint32_t out;
   assert_int_equal(drmSyncobjCreate(fd, 0, &out), 0);
   assert_int_equal(submit1(q, DRM_ASAHI_CMD_RENDER, &r, sizeof(r), out), 0);
   assert_int_equal(wait1(out), 0);
   check_pixels(&s, expect);
   if (stats) {
      assert_true(model_stats(&st1));
      print_message("first pass: %" PRIu64 " partial renders, %" PRIu64 " grows\n",
                    st1.partial_renders - st0.partial_renders, st1.drv.tvb_grows - st0.drv.tvb_grows);
      assert_true(st1.partial_renders > st0.partial_renders);
      assert_int_equal(st1.grow_events - st0.grow_events, 1);
      assert_int_equal(st1.drv.tvb_grows - st0.drv.tvb_grows, 1);
   }

   memset(s.rtcpu, 0x5a, TVB_W * TVB_H * 4);
   assert_int_equal(submit1(q, DRM_ASAHI_CMD_RENDER, &r, sizeof(r), out), 0);
   assert_int_equal(wait1(out), 0);
   check_pixels(&s, expect);
   if (stats) {
      assert_true(model_stats(&st2));
      assert_int_equal(st2.partial_renders, st1.partial_renders);
      assert_int_equal(st2.drv.tvb_grows, st1.drv.tvb_grows);
      assert_int_equal(st2.grow_events, st1.grow_events);
   }
   if (hooked_ok) {
      set_hook(NULL);
      struct hooked *v1 = hooked_job(AGX_FW_COMMAND_RUN_VERTEX, 0);
      struct hooked *v2 = hooked_job(AGX_FW_COMMAND_RUN_VERTEX, 1);
      assert_non_null(v1);
      assert_non_null(v2);
      struct agx_fw_render_payload p1, p2;
      assert_true(agx_fw_render_payload_unpack(v1->payload, &p1));
      assert_true(agx_fw_render_payload_unpack(v2->payload, &p2));
      assert_int_equal(p1.tvb_heap_size, TVB_INITIAL_KB << 10);
      assert_int_equal(p2.tvb_heap_size, 2 * p1.tvb_heap_size);
      assert_int_equal(p1.tvb_heap, p2.tvb_heap);
      assert_int_equal(p2.frame, p1.frame + 1);
   }
   free(expect);
   queue_destroy(q);
   arena_fini(&s.a);
}

/* ----------------------------------------------------------- faults */

/*
 * VM 1's saxpy reads x from an unmapped address and faults; VM 2's saxpy,
 * submitted right after, computes correct memory; VM 1's queue then runs
 * a good job correctly.
 */
static void
test_fault_isolation(void **state)
{
   (void)state;
   uint32_t vm1 = vm_create(), vm2 = vm_create();
   uint32_t q1 = queue_create_usc(vm1), q2 = queue_create_usc(vm2);
   struct arena a1, a2;
   arena_init(&a1, vm1, USC_BASE);
   arena_init(&a2, vm2, USC_BASE);
   struct saxpy bad, good, again;
   const uint64_t unmapped = USC_BASE + 0x40000000ull;
   saxpy_build(&a1, &bad, 512, 2.0f, unmapped);
   saxpy_build(&a2, &good, 1000, -0.5f, 0);
   float y_before[512];
   memcpy(y_before, bad.ycpu, sizeof(y_before));
   struct asahi_model_stats st0 = { 0 }, st1 = { 0 };
   bool stats = model && model_stats(&st0);
   struct drm_asahi_cmd_compute c1 = compute_cmd(&bad), c2 = compute_cmd(&good);
   uint32_t s1, s2;
   assert_int_equal(drmSyncobjCreate(fd, 0, &s1), 0);
   assert_int_equal(drmSyncobjCreate(fd, 0, &s2), 0);
   if (!model)
      fprintf(stderr, "(an expected GPU fault follows)\n");
   assert_int_equal(submit1(q1, DRM_ASAHI_CMD_COMPUTE, &c1, sizeof(c1), s1), 0);
   assert_int_equal(submit1(q2, DRM_ASAHI_CMD_COMPUTE, &c2, sizeof(c2), s2), 0);
   uint32_t both[2] = { s1, s2 };
   assert_int_equal(drmSyncobjWait(fd, both, 2, abs_ms(60000), DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, NULL), 0);
   saxpy_check(&good);
   assert_memory_equal(bad.ycpu, y_before, sizeof(y_before));
   if (stats) {
      assert_true(model_stats(&st1));
      assert_int_equal(st1.drv.faults - st0.drv.faults, 1);
      assert_int_equal(st1.drv.jobs_failed - st0.drv.jobs_failed, 1);
      assert_int_equal(st1.drv.jobs_completed - st0.drv.jobs_completed, 1);
   }
   /* the faulting queue recovers */
   saxpy_build(&a1, &again, 256, 3.0f, 0);
   struct drm_asahi_cmd_compute c3 = compute_cmd(&again);
   assert_int_equal(submit1(q1, DRM_ASAHI_CMD_COMPUTE, &c3, sizeof(c3), s1), 0);
   assert_int_equal(wait1(s1), 0);
   saxpy_check(&again);
   queue_destroy(q1);
   queue_destroy(q2);
   arena_fini(&a1);
   arena_fini(&a2);
}

/* ----------------------------------------------------- hook decoding */

static void
check_script(const struct hooked *j, bool want_ts)
{
   /* [Barrier] [Timestamp] Start WaitForIdle [Timestamp] Finalize */
   unsigned off = 0, starts = 0, waits = 0, ts = 0;
   enum agx_fw_op last = AGX_FW_OP_BARRIER;
   while (off < j->info.script_size) {
      struct agx_fw_op_header oh;
      assert_true(agx_fw_op_header_unpack(j->script + off, &oh));
      last = oh.opcode;
      switch (oh.opcode) {
      case AGX_FW_OP_BARRIER: {
         struct agx_fw_op_barrier b;
         assert_true(agx_fw_op_barrier_unpack(j->script + off, &b));
         off += AGX_FW_OP_BARRIER_LENGTH;
         break;
      }
      case AGX_FW_OP_TIMESTAMP: {
         struct agx_fw_op_timestamp t;
         assert_true(agx_fw_op_timestamp_unpack(j->script + off, &t));
         assert_true(t.address != 0);
         ts++;
         off += AGX_FW_OP_TIMESTAMP_LENGTH;
         break;
      }
      case AGX_FW_OP_START: starts++; off += AGX_FW_OP_START_LENGTH; break;
      case AGX_FW_OP_WAIT_FOR_IDLE: waits++; off += AGX_FW_OP_WAIT_FOR_IDLE_LENGTH; break;
      case AGX_FW_OP_FINALIZE: off += AGX_FW_OP_FINALIZE_LENGTH; break;
      default: fail_msg("unexpected op %#x", oh.opcode);
      }
   }
   assert_int_equal(off, j->info.script_size);
   assert_int_equal(starts, 1);
   assert_int_equal(waits, 1);
   assert_int_equal(ts, want_ts ? 2 : 0);
   assert_int_equal(last, AGX_FW_OP_FINALIZE);
}

/* Every job the hook delivers decodes with the generated agx_fw
 * unpackers and carries what the uAPI command said. */
static void
test_job_hook(void **state)
{
   (void)state;
   if (!model)
      skip();
   uint32_t vm = vm_create(), q = queue_create_usc(vm);
   struct rscene s;
   rscene_init(&s, vm, 64, 64, CLEAR);
   struct vtx v[3];
   tri(64, 64, 8, 8, 4, RED, v);
   rscene_draw(&s, v, 3);
   struct drm_asahi_cmd_render r = rscene_cmd(&s);
   struct saxpy k;
   saxpy_build(&s.a, &k, 64, 1.0f, 0);
   struct drm_asahi_cmd_compute c = compute_cmd(&k);
   uint32_t tsbo;
   uint64_t *tsp;
   uint32_t tso = ts_object(&tsbo, &tsp);
   c.ts = (struct drm_asahi_timestamps){ .start = { tso, 0 }, .end = { tso, 8 } };
   assert_true(set_hook(hook));
   uint32_t out;
   assert_int_equal(drmSyncobjCreate(fd, 0, &out), 0);
   assert_int_equal(submit1(q, DRM_ASAHI_CMD_COMPUTE, &c, sizeof(c), out), 0);
   assert_int_equal(wait1(out), 0);
   assert_int_equal(submit1(q, DRM_ASAHI_CMD_RENDER, &r, sizeof(r), out), 0);
   assert_int_equal(wait1(out), 0);
   assert_true(set_hook(NULL));
   saxpy_check(&k);
   assert_int_equal(hooked.n, 4);   /* compute; vertex, barrier, fragment */

   struct agx_fw_job_header h;
   const struct hooked *cj = hooked_job(AGX_FW_COMMAND_RUN_COMPUTE, 0);
   assert_non_null(cj);
   assert_int_equal(cj->info.queue_id, q);
   assert_int_equal(cj->info.pipe, AGX_FW_PIPE_COMPUTE);
   assert_true(agx_fw_job_header_unpack(cj->header, &h));
   assert_int_equal(h.vm_slot, cj->info.vm_slot);
   assert_int_equal(h.payload, cj->info.payload_va);
   assert_int_equal(h.script_size, cj->info.script_size);
   assert_int_equal(cj->info.payload_size, AGX_FW_COMPUTE_PAYLOAD_LENGTH);
   struct agx_fw_compute_payload cp;
   assert_true(agx_fw_compute_payload_unpack(cj->payload, &cp));
   assert_int_equal(cp.cdm_stream_base, k.stream);
   assert_int_equal(cp.cdm_stream_end, k.stream_end);
   assert_int_equal(cp.usc_base, USC_BASE);
   check_script(cj, true);

   const struct hooked *vj = hooked_job(AGX_FW_COMMAND_RUN_VERTEX, 0);
   const struct hooked *bj = hooked_job(AGX_FW_COMMAND_BARRIER, 0);
   const struct hooked *fj = hooked_job(AGX_FW_COMMAND_RUN_FRAGMENT, 0);
   assert_non_null(vj);
   assert_non_null(bj);
   assert_non_null(fj);
   assert_int_equal(vj->info.pipe, AGX_FW_PIPE_VERTEX);
   assert_int_equal(bj->info.pipe, AGX_FW_PIPE_FRAGMENT);
   assert_int_equal(fj->info.pipe, AGX_FW_PIPE_FRAGMENT);
   assert_null(bj->info.script);
   struct agx_fw_job_header vh, fh;
   assert_true(agx_fw_job_header_unpack(vj->header, &vh));
   assert_true(agx_fw_job_header_unpack(fj->header, &fh));
   assert_int_equal(vh.payload, fh.payload);   /* one payload, two jobs */
   struct agx_fw_barrier_payload bp;
   assert_true(agx_fw_barrier_payload_unpack(bj->payload, &bp));
   assert_int_equal(bp.stamp, vh.stamp);
   assert_int_equal(bp.value, vh.stamp_value);
   struct agx_fw_render_payload rp;
   assert_true(agx_fw_render_payload_unpack(vj->payload, &rp));
   assert_memory_equal(vj->payload, fj->payload, AGX_FW_RENDER_PAYLOAD_LENGTH);
   assert_int_equal(rp.vdm_stream_base, r.vdm_ctrl_stream_base);
   assert_int_equal(rp.usc_base, USC_BASE);
   assert_int_equal(rp.width, 64);
   assert_int_equal(rp.height, 64);
   assert_int_equal(rp.bg_usc, s.bg);
   assert_int_equal(rp.eot_usc, s.eot);
   assert_int_equal(rp.partial_bg_usc, s.pbg);
   assert_true(rp.frame != 0);
   assert_true(rp.tvb_heap_size >= 4096);
   assert_true(rp.tvb_tilemap_size >= 16 * 2 * 2);
   check_script(vj, false);
   check_script(fj, false);
   queue_destroy(q);
   arena_fini(&s.a);
   munmap(tsp, PAGE);
}

static void
test_fork(void **state)
{
   (void)state;
   if (!model)
      skip();
   pid_t pid = fork();
   assert_true(pid >= 0);
   if (pid == 0) {
      /* the inherited fd fails cleanly; a new open gives a fresh device */
      drmVersionPtr v = drmGetVersion(fd);
      int ok = v == NULL && errno == EIO;
      int f2 = open(node_path, O_RDWR);
      drmVersionPtr v2 = f2 >= 0 ? drmGetVersion(f2) : NULL;
      ok = ok && v2 && strcmp(v2->name, "asahi") == 0;
      drmFreeVersion(v2);
      close(f2);
      _exit(ok ? 0 : 1);
   }
   int status = 0;
   assert_int_equal(waitpid(pid, &status, 0), pid);
   assert_true(WIFEXITED(status));
   assert_int_equal(WEXITSTATUS(status), 0);
   /* the parent's device is untouched */
   drmVersionPtr v = drmGetVersion(fd);
   assert_non_null(v);
   drmFreeVersion(v);
}

int
main(int argc, char **argv)
{
   (void)argc;
   char *path = node_path;
   /* A small initial TVB heap so that test_tvb_growth overflows it; read
    * by the shim when it creates the device (first open). */
   char kb[16];
   snprintf(kb, sizeof(kb), "%u", TVB_INITIAL_KB);
   setenv("TESSERA_SHIM_TVB_KB", kb, 0);
   int probe = tu_open_node(path, sizeof(node_path));
   if (probe < 0) {
      tu_reexec_with_shim(argv, "TESSERA_UAPI_REEXEC");
      printf("1..0 # SKIP no asahi render node (and no tessera shim)\n");
      return 0;
   }
   close(probe);
   model = dlsym(RTLD_DEFAULT, "tessera_shim_present") != NULL;
   fd = open(path, O_RDWR | O_CLOEXEC);
   if (fd < 0) {
      perror(path);
      return 1;
   }
   struct drm_asahi_get_params g = { .pointer = (uintptr_t)&params, .size = sizeof(params) };
   if (ioc(DRM_IOCTL_ASAHI_GET_PARAMS, &g)) {
      fprintf(stderr, "GET_PARAMS failed\n");
      return 1;
   }
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_device),
      cmocka_unit_test(test_params),
      cmocka_unit_test(test_gem_vm),
      cmocka_unit_test(test_syncobj),
      cmocka_unit_test(test_compute),
      cmocka_unit_test(test_sync_file),
      cmocka_unit_test(test_render),
      cmocka_unit_test(test_tvb_growth),
      cmocka_unit_test(test_fault_isolation),
      cmocka_unit_test(test_job_hook),
      cmocka_unit_test(test_fork),
   };
   int r = cmocka_run_group_tests(tests, NULL, NULL);
   close(fd);
   return r;
}

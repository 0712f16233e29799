/* SPDX-License-Identifier: MIT */
/*
 * The asahi driver in-process: every ioctl through asahi_ioctl() with the
 * same argument structs userspace passes, against a real GPU model. A tiny
 * compute executor (reads a word of the "CDM stream", writes it + 1 after
 * it) stands in for the CDM model so results land in memory we check.
 */
#include <errno.h>
#include <poll.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <drm.h>

#include "cmdstream/agx_fw_pack.h"
#include "drm-uapi/asahi_drm.h"
#include "hw/hw_device.h"
#include "hw/hw_fw.h"
#include "hw/hw_mmu.h"
#include "hw/hw_uat.h"
#include "kernel/asahi.h"

#define PAGE 16384ull
#define KSTART 0x7000000000ull
#define KEND (KSTART + (256ull << 20))

struct env {
   struct hw_device *hw;
   struct asahi_dev *dev;
   struct asahi_file *f;
   unsigned hooked;
   uint8_t last_header[AGX_FW_JOB_HEADER_LENGTH];
   unsigned last_pipe;
};

/* test_device_control_wait: the next job says it started, then takes
 * this long (wall clock), as a long render would. */
static atomic_uint slow_job_ms;
static atomic_bool slow_job_started;
/* test_device_control_keeps_events: the slow job first asks for a bigger
 * TVB, as the tiler does when the heap fills (VM slot 1, buffer slot 0:
 * the first queue of a fresh device). */
static atomic_bool slow_job_grows;
static atomic_bool slow_job_grow_posted;

static void
test_exec(void *data, const struct hw_exec_job *job, struct hw_exec_result *res)
{
   (void)data;
   unsigned slow = atomic_exchange(&slow_job_ms, 0);
   if (slow) {
      if (atomic_exchange(&slow_job_grows, false)) {
         uint8_t msg[HW_FW_EVENT_MSG_SIZE] = { 0 };
         agx_pack(msg, FW_EVENT_GROW_TVB, g) {
            g.vm_slot = job->vm_slot;
            g.buffer_slot = 0;
            g.counter = 1;
         }
         atomic_store(&slow_job_grow_posted, hw_exec_post_event(job, msg));
      }
      atomic_store(&slow_job_started, true);
      usleep(slow * 1000);
   }
   struct hw_mmu mmu;
   hw_mmu_init(&mmu, job->dev, job->vm_slot, HW_UNIT_CDM);
   hw_mmu_begin_job(&mmu);
   uint32_t v;
   if (!hw_mmu_read(&mmu, job->compute->cdm_stream_base, &v, 4)) {
      res->status = HW_EXEC_FAULT;
      res->fault = mmu.fault;
      return;
   }
   v += 1;
   if (!hw_mmu_write(&mmu, job->compute->cdm_stream_base + 4, &v, 4)) {
      res->status = HW_EXEC_FAULT;
      res->fault = mmu.fault;
      return;
   }
   res->status = HW_EXEC_OK;
   res->cycles = 1278;
}

static void
hook(void *user, const struct asahi_job_info *j)
{
   struct env *e = user;
   e->hooked++;
   e->last_pipe = j->pipe;
   memcpy(e->last_header, j->header, sizeof(e->last_header));
}

/* A device whose event thread guards against a lost interrupt after
 * irq_guard_ms (0: the kernel's default). */
static int
setup_guarded(void **state, unsigned irq_guard_ms)
{
   struct env *e = calloc(1, sizeof(*e));
   struct hw_device_config c = { .mem_size = 512ull << 20 };
   e->hw = hw_device_create(&c);
   assert_non_null(e->hw);
   hw_device_set_executor(e->hw, AGX_FW_PIPE_COMPUTE, test_exec, NULL);
   struct asahi_config ac = { .quiet = getenv("TEST_KERNEL_VERBOSE") == NULL,
                              .irq_guard_ms = irq_guard_ms };
   e->dev = asahi_create(e->hw, &ac);
   assert_non_null(e->dev);
   e->f = asahi_open(e->dev);
   assert_non_null(e->f);
   *state = e;
   return 0;
}

static int
setup(void **state)
{
   return setup_guarded(state, 0);
}

/* As setup, with the guard at a minute: a completion whose interrupt is
 * lost hangs instead of arriving 100 ms late. */
static int
setup_no_guard(void **state)
{
   return setup_guarded(state, 60000);
}

static int
teardown(void **state)
{
   struct env *e = *state;
   asahi_close(e->f);
   asahi_destroy(e->dev);
   hw_device_destroy(e->hw);
   free(e);
   return 0;
}

#define IOC(e, cmd, arg) asahi_ioctl((e)->f, (cmd), (arg))

static uint32_t
vm_create(struct env *e)
{
   struct drm_asahi_vm_create v = { .kernel_start = KSTART, .kernel_end = KEND };
   assert_int_equal(IOC(e, DRM_IOCTL_ASAHI_VM_CREATE, &v), 0);
   return v.vm_id;
}

static uint32_t
gem_create(struct env *e, uint64_t size)
{
   struct drm_asahi_gem_create g = { .size = size };
   assert_int_equal(IOC(e, DRM_IOCTL_ASAHI_GEM_CREATE, &g), 0);
   return g.handle;
}

static uint8_t *
gem_map(struct env *e, uint32_t h, uint64_t size)
{
   struct drm_asahi_gem_mmap_offset o = { .handle = h };
   assert_int_equal(IOC(e, DRM_IOCTL_ASAHI_GEM_MMAP_OFFSET, &o), 0);
   uint64_t off;
   assert_int_equal(asahi_mmap_resolve(e->f, o.offset, size, &off), 0);
   void *p = hw_device_mem_map(e->hw, off, size, NULL, PROT_READ | PROT_WRITE,
                               MAP_SHARED);
   assert_true(p != MAP_FAILED);
   return p;
}

static int
bind(struct env *e, uint32_t vm, uint32_t h, uint64_t addr, uint64_t range,
     uint64_t offset, uint32_t flags)
{
   struct drm_asahi_gem_bind_op op = {
      .flags = flags, .handle = h, .offset = offset, .range = range, .addr = addr,
   };
   struct drm_asahi_vm_bind b = {
      .vm_id = vm, .num_binds = 1, .stride = sizeof(op), .userptr = (uintptr_t)&op,
   };
   return IOC(e, DRM_IOCTL_ASAHI_VM_BIND, &b);
}

static uint32_t
queue_create(struct env *e, uint32_t vm)
{
   struct drm_asahi_queue_create q = { .vm_id = vm, .priority = DRM_ASAHI_PRIORITY_MEDIUM };
   assert_int_equal(IOC(e, DRM_IOCTL_ASAHI_QUEUE_CREATE, &q), 0);
   return q.queue_id;
}

static uint32_t
syncobj(struct env *e, uint32_t flags)
{
   struct drm_syncobj_create c = { .flags = flags };
   assert_int_equal(IOC(e, DRM_IOCTL_SYNCOBJ_CREATE, &c), 0);
   return c.handle;
}

static int64_t
deadline_ms(unsigned ms)
{
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec + (int64_t)ms * 1000000ll;
}

static int
wait_one(struct env *e, uint32_t h, unsigned ms)
{
   struct drm_syncobj_wait w = {
      .handles = (uintptr_t)&h, .count_handles = 1, .timeout_nsec = deadline_ms(ms),
   };
   return IOC(e, DRM_IOCTL_SYNCOBJ_WAIT, &w);
}

struct cmdbuf {
   uint8_t b[4096];
   uint32_t size;
};

static void
cb_add(struct cmdbuf *c, uint16_t type, const void *p, uint16_t size, uint16_t vdm,
       uint16_t cdm)
{
   struct drm_asahi_cmd_header h = { type, size, vdm, cdm };
   memcpy(c->b + c->size, &h, sizeof(h));
   memcpy(c->b + c->size + sizeof(h), p, size);
   c->size += sizeof(h) + size;
}

static int
submit(struct env *e, uint32_t q, struct cmdbuf *c, struct drm_asahi_sync *syncs,
       uint32_t nin, uint32_t nout)
{
   struct drm_asahi_submit s = {
      .syncs = (uintptr_t)syncs, .cmdbuf = (uintptr_t)c->b, .queue_id = q,
      .in_sync_count = nin, .out_sync_count = nout, .cmdbuf_size = c->size,
   };
   return IOC(e, DRM_IOCTL_ASAHI_SUBMIT, &s);
}

static struct drm_asahi_cmd_render
render_cmd(void)
{
   struct drm_asahi_cmd_render r = {
      .width_px = 64, .height_px = 64, .layers = 1, .samples = 1,
      .utile_width_px = 32, .utile_height_px = 32, .sample_size_B = 4,
   };
   return r;
}

/* ------------------------------------------------------------------ */

static void
test_core(void **state)
{
   struct env *e = *state;
   char name[16] = { 0 }, desc[64] = { 0 }, date[16] = { 0 };
   struct drm_version v = {
      .name_len = sizeof(name) - 1, .name = name, .desc_len = sizeof(desc) - 1,
      .desc = desc, .date_len = sizeof(date) - 1, .date = date,
   };
   assert_int_equal(IOC(e, DRM_IOCTL_VERSION, &v), 0);
   assert_string_equal(name, "asahi");
   assert_int_equal(v.name_len, 5);
   struct drm_get_cap c = { .capability = DRM_CAP_SYNCOBJ_TIMELINE };
   assert_int_equal(IOC(e, DRM_IOCTL_GET_CAP, &c), 0);
   assert_int_equal(c.value, 1);
   c.capability = DRM_CAP_PRIME;
   assert_int_equal(IOC(e, DRM_IOCTL_GET_CAP, &c), 0);
   assert_int_equal(c.value, DRM_PRIME_CAP_IMPORT | DRM_PRIME_CAP_EXPORT);
   c.capability = 0x9999;
   assert_int_equal(IOC(e, DRM_IOCTL_GET_CAP, &c), -EINVAL);
   assert_int_equal(IOC(e, DRM_IOWR(0x77, struct drm_get_cap), &c), -EINVAL);
   assert_int_equal(IOC(e, _IOWR('x', 1, int), &c), -ENOTTY);
   assert_int_equal(IOC(e, DRM_IOCTL_GET_CAP, (void *)16), -EFAULT);
}

static void
test_params(void **state)
{
   struct env *e = *state;
   struct drm_asahi_params_global p;
   memset(&p, 0xaa, sizeof(p));
   struct drm_asahi_get_params g = { .pointer = (uintptr_t)&p, .size = sizeof(p) };
   assert_int_equal(IOC(e, DRM_IOCTL_ASAHI_GET_PARAMS, &g), 0);
   assert_int_equal(p.gpu_generation, 13);
   assert_int_equal(p.gpu_variant, 'G');
   assert_int_equal(p.chip_id, 0x8103);
   assert_int_equal(p.num_clusters_total, 1);
   assert_int_equal(p.core_masks[0], 0xff);
   assert_int_equal(p.core_masks[1], 0);
   assert_int_equal(p.command_timestamp_frequency_hz, 24000000);
   assert_int_equal(p.vm_start, 0x4000);
   assert_int_equal(p.vm_end, 1ull << 39);
   assert_int_equal(p.features, 0);
   assert_true(p.vm_kernel_min_size <= KEND - KSTART);
   /* short struct: only the prefix is written */
   uint8_t small[8];
   memset(small, 0xcc, sizeof(small));
   g.pointer = (uintptr_t)small;
   g.size = 4;
   assert_int_equal(IOC(e, DRM_IOCTL_ASAHI_GET_PARAMS, &g), 0);
   assert_int_equal(small[0], 0);
   assert_int_equal(small[4], 0xcc);
   g.param_group = 1;
   assert_int_equal(IOC(e, DRM_IOCTL_ASAHI_GET_PARAMS, &g), -EINVAL);
   g.param_group = 0;
   g.pad = 1;
   assert_int_equal(IOC(e, DRM_IOCTL_ASAHI_GET_PARAMS, &g), -EINVAL);
   g.pad = 0;
   g.pointer = 8;
   g.size = sizeof(p);
   assert_int_equal(IOC(e, DRM_IOCTL_ASAHI_GET_PARAMS, &g), -EFAULT);
   struct drm_asahi_get_time t = { 0 };
   assert_int_equal(IOC(e, DRM_IOCTL_ASAHI_GET_TIME, &t), 0);
   t.flags = 1;
   assert_int_equal(IOC(e, DRM_IOCTL_ASAHI_GET_TIME, &t), -EINVAL);
}

static void
test_gem(void **state)
{
   struct env *e = *state;
   uint32_t h = gem_create(e, 100);
   uint8_t *p = gem_map(e, h, PAGE);
   memset(p, 0x5a, PAGE);
   struct drm_asahi_gem_mmap_offset o = { .handle = h };
   assert_int_equal(IOC(e, DRM_IOCTL_ASAHI_GEM_MMAP_OFFSET, &o), 0);
   uint64_t off;
   assert_int_equal(asahi_mmap_resolve(e->f, o.offset, 2 * PAGE, &off), -EINVAL);
   assert_int_equal(asahi_mmap_resolve(e->f, o.offset + 16 * PAGE * 1024, PAGE, &off), -EACCES);
   /* the GPU's memory is the CPU's */
   assert_int_equal(((uint8_t *)hw_device_mem_host(e->hw))[off + 7], 0x5a);
   munmap(p, PAGE);
   o.handle = 999;
   assert_int_equal(IOC(e, DRM_IOCTL_ASAHI_GEM_MMAP_OFFSET, &o), -ENOENT);
   o.handle = h;
   o.flags = 1;
   assert_int_equal(IOC(e, DRM_IOCTL_ASAHI_GEM_MMAP_OFFSET, &o), -EINVAL);
   struct drm_asahi_gem_create g = { .size = PAGE, .flags = 0x80 };
   assert_int_equal(IOC(e, DRM_IOCTL_ASAHI_GEM_CREATE, &g), -EINVAL);
   g.flags = 0;
   g.size = 0;
   assert_int_equal(IOC(e, DRM_IOCTL_ASAHI_GEM_CREATE, &g), -EINVAL);
   g.size = PAGE;
   g.flags = DRM_ASAHI_GEM_VM_PRIVATE;
   g.vm_id = 77;
   assert_int_equal(IOC(e, DRM_IOCTL_ASAHI_GEM_CREATE, &g), -ENOENT);
   g.size = 1ull << 40;
   g.flags = 0;
   g.vm_id = 0;
   assert_int_equal(IOC(e, DRM_IOCTL_ASAHI_GEM_CREATE, &g), -EINVAL);
   struct drm_gem_close c = { .handle = h };
   assert_int_equal(IOC(e, DRM_IOCTL_GEM_CLOSE, &c), 0);
   assert_int_equal(IOC(e, DRM_IOCTL_GEM_CLOSE, &c), -EINVAL);
}

static void
test_prime(void **state)
{
   struct env *e = *state;
   uint32_t h = gem_create(e, PAGE);
   struct drm_prime_handle ph = { .handle = h, .flags = DRM_CLOEXEC };
   assert_int_equal(IOC(e, DRM_IOCTL_PRIME_HANDLE_TO_FD, &ph), 0);
   assert_true(ph.fd >= 0);
   /* same file: same handle; another file: a new handle, same object */
   struct drm_prime_handle in = { .fd = ph.fd };
   assert_int_equal(IOC(e, DRM_IOCTL_PRIME_FD_TO_HANDLE, &in), 0);
   assert_int_equal(in.handle, h);
   struct asahi_file *f2 = asahi_open(e->dev);
   assert_int_equal(asahi_ioctl(f2, DRM_IOCTL_PRIME_FD_TO_HANDLE, &in), 0);
   struct drm_asahi_gem_mmap_offset o1 = { .handle = h }, o2 = { .handle = in.handle };
   assert_int_equal(IOC(e, DRM_IOCTL_ASAHI_GEM_MMAP_OFFSET, &o1), 0);
   assert_int_equal(asahi_ioctl(f2, DRM_IOCTL_ASAHI_GEM_MMAP_OFFSET, &o2), 0);
   assert_int_equal(o1.offset, o2.offset);
   asahi_close(f2);
   int other = open("/dev/null", O_RDONLY);
   in.fd = other;
   assert_int_equal(IOC(e, DRM_IOCTL_PRIME_FD_TO_HANDLE, &in), -EINVAL);
   close(other);
   in.fd = -1;
   assert_int_equal(IOC(e, DRM_IOCTL_PRIME_FD_TO_HANDLE, &in), -EBADF);
   ph.flags = 0x1234;
   assert_int_equal(IOC(e, DRM_IOCTL_PRIME_HANDLE_TO_FD, &ph), -EINVAL);
   close(ph.fd);
   /* VM-private objects cannot be exported */
   uint32_t vm = vm_create(e);
   struct drm_asahi_gem_create g = { .size = PAGE, .flags = DRM_ASAHI_GEM_VM_PRIVATE, .vm_id = vm };
   assert_int_equal(IOC(e, DRM_IOCTL_ASAHI_GEM_CREATE, &g), 0);
   struct drm_prime_handle pp = { .handle = g.handle };
   assert_int_equal(IOC(e, DRM_IOCTL_PRIME_HANDLE_TO_FD, &pp), -EINVAL);
}

static void
test_vm_bind(void **state)
{
   struct env *e = *state;
   uint32_t vm = vm_create(e);
   uint32_t h = gem_create(e, 4 * PAGE);
   const uint64_t va = 0x100000000ull;
   assert_int_equal(bind(e, vm, h, va, 4 * PAGE, 0, DRM_ASAHI_BIND_READ | DRM_ASAHI_BIND_WRITE), 0);
   struct hw_uat_walk w;
   /* VM 1 is the first user slot */
   hw_uat_walk(e->hw, 1, va + PAGE + 8, &w);
   assert_true(w.ok);
   assert_true(w.readable && w.writable);
   uint64_t pa1 = w.pa;
   hw_uat_walk(e->hw, 1, va + 8, &w);
   assert_int_equal(pa1 - w.pa, PAGE);
   /* read-only rebind of the second page replaces it */
   assert_int_equal(bind(e, vm, h, va + PAGE, PAGE, 0, DRM_ASAHI_BIND_READ), 0);
   hw_uat_walk(e->hw, 1, va + PAGE, &w);
   assert_true(w.ok && w.readable && !w.writable);
   assert_int_equal(w.pa + PAGE, pa1 - 8 + 0);
   /* single page over a range */
   assert_int_equal(bind(e, vm, h, va + 16 * PAGE, 3 * PAGE, PAGE,
                         DRM_ASAHI_BIND_READ | DRM_ASAHI_BIND_SINGLE_PAGE), 0);
   uint64_t pas[3];
   for (int i = 0; i < 3; i++) {
      hw_uat_walk(e->hw, 1, va + (16 + i) * PAGE, &w);
      assert_true(w.ok);
      pas[i] = w.pa;
   }
   assert_int_equal(pas[0], pas[2]);
   /* unbind a middle page (splits the mapping) */
   assert_int_equal(bind(e, vm, 0, va + 2 * PAGE, PAGE, 0, DRM_ASAHI_BIND_UNBIND), 0);
   hw_uat_walk(e->hw, 1, va + 2 * PAGE, &w);
   assert_false(w.ok);
   hw_uat_walk(e->hw, 1, va + 3 * PAGE, &w);
   assert_true(w.ok);

   /* errors */
   assert_int_equal(bind(e, vm, h, va + 1, PAGE, 0, DRM_ASAHI_BIND_READ), -EINVAL);
   assert_int_equal(bind(e, vm, h, va, 0, 0, DRM_ASAHI_BIND_READ), -EINVAL);
   assert_int_equal(bind(e, vm, h, va, 5 * PAGE, 0, DRM_ASAHI_BIND_READ), -EINVAL);
   assert_int_equal(bind(e, vm, h, va, PAGE, 4 * PAGE, DRM_ASAHI_BIND_READ), -EINVAL);
   assert_int_equal(bind(e, vm, h, va, PAGE, 0, 0), -EINVAL);
   assert_int_equal(bind(e, vm, h, va, PAGE, 0, 0x100 | DRM_ASAHI_BIND_READ), -EINVAL);
   assert_int_equal(bind(e, vm, 555, va, PAGE, 0, DRM_ASAHI_BIND_READ), -ENOENT);
   assert_int_equal(bind(e, 99, h, va, PAGE, 0, DRM_ASAHI_BIND_READ), -ENOENT);
   assert_int_equal(bind(e, vm, h, KSTART, PAGE, 0, DRM_ASAHI_BIND_READ), -EINVAL);
   assert_int_equal(bind(e, vm, h, KSTART - PAGE, 2 * PAGE, 0, DRM_ASAHI_BIND_READ), -EINVAL);
   assert_int_equal(bind(e, vm, h, 0, PAGE, 0, DRM_ASAHI_BIND_READ), -EINVAL);
   assert_int_equal(bind(e, vm, h, (1ull << 39) - PAGE, 2 * PAGE, 0, DRM_ASAHI_BIND_READ), -EINVAL);
   assert_int_equal(bind(e, vm, h, va, PAGE, 0, DRM_ASAHI_BIND_UNBIND | DRM_ASAHI_BIND_READ), -EINVAL);

   /* all or nothing: a bad second op leaves the first unapplied */
   struct drm_asahi_gem_bind_op ops[2] = {
      { .flags = DRM_ASAHI_BIND_READ, .handle = h, .range = PAGE, .addr = 0x200000000ull },
      { .flags = DRM_ASAHI_BIND_READ, .handle = 4242, .range = PAGE, .addr = 0x300000000ull },
   };
   struct drm_asahi_vm_bind b = {
      .vm_id = vm, .num_binds = 2, .stride = sizeof(ops[0]), .userptr = (uintptr_t)ops,
   };
   assert_int_equal(IOC(e, DRM_IOCTL_ASAHI_VM_BIND, &b), -ENOENT);
   hw_uat_walk(e->hw, 1, 0x200000000ull, &w);
   assert_false(w.ok);
   b.userptr = 64;
   assert_int_equal(IOC(e, DRM_IOCTL_ASAHI_VM_BIND, &b), -EFAULT);
   b.userptr = (uintptr_t)ops;
   b.stride = 8;
   assert_int_equal(IOC(e, DRM_IOCTL_ASAHI_VM_BIND, &b), -EINVAL);
   b.stride = sizeof(ops[0]);
   b.num_binds = 0;
   assert_int_equal(IOC(e, DRM_IOCTL_ASAHI_VM_BIND, &b), -EINVAL);

   /* closing the GEM handle keeps bound pages alive until unbind */
   struct drm_gem_close c = { .handle = h };
   assert_int_equal(IOC(e, DRM_IOCTL_GEM_CLOSE, &c), 0);
   hw_uat_walk(e->hw, 1, va, &w);
   assert_true(w.ok);

   /* VM create/destroy checks */
   struct drm_asahi_vm_create v = { .kernel_start = KSTART, .kernel_end = KSTART + PAGE };
   assert_int_equal(IOC(e, DRM_IOCTL_ASAHI_VM_CREATE, &v), -EINVAL);
   v.kernel_end = KEND;
   v.kernel_start = KSTART + 1;
   assert_int_equal(IOC(e, DRM_IOCTL_ASAHI_VM_CREATE, &v), -EINVAL);
   struct drm_asahi_vm_destroy d = { .vm_id = vm };
   assert_int_equal(IOC(e, DRM_IOCTL_ASAHI_VM_DESTROY, &d), 0);
   assert_int_equal(IOC(e, DRM_IOCTL_ASAHI_VM_DESTROY, &d), -ENOENT);
   hw_uat_walk(e->hw, 1, va, &w);
   assert_false(w.ok);
   /* slots run out: 15 user VMs */
   unsigned made = 0;
   for (int i = 0; i < 20; i++) {
      struct drm_asahi_vm_create vv = { .kernel_start = KSTART, .kernel_end = KEND };
      int r = IOC(e, DRM_IOCTL_ASAHI_VM_CREATE, &vv);
      if (r == 0)
         made++;
      else
         assert_int_equal(r, -ENOSPC);
   }
   assert_int_equal(made, 15);
}

/* A VM-private object bound in its VM, both closed by userspace: the
 * mapping held the object and the object held the VM, so neither was ever
 * freed (replay leaked its VM and objects at teardown). With only 16 VM
 * slots, leaking each VM exhausts them; the private check still holds. */
static void
test_vm_private_teardown(void **state)
{
   struct env *e = *state;
   const uint64_t va = 0x100000000ull;
   for (int i = 0; i < 3 * HW_UAT_NUM_CONTEXTS; i++) {
      uint32_t vm = vm_create(e);
      struct drm_asahi_gem_create g = { .size = PAGE, .flags = DRM_ASAHI_GEM_VM_PRIVATE,
                                        .vm_id = vm };
      assert_int_equal(IOC(e, DRM_IOCTL_ASAHI_GEM_CREATE, &g), 0);
      assert_int_equal(bind(e, vm, g.handle, va, PAGE, 0, DRM_ASAHI_BIND_READ), 0);
      struct drm_gem_close c = { .handle = g.handle };
      assert_int_equal(IOC(e, DRM_IOCTL_GEM_CLOSE, &c), 0);
      struct drm_asahi_vm_destroy d = { .vm_id = vm };
      assert_int_equal(IOC(e, DRM_IOCTL_ASAHI_VM_DESTROY, &d), 0);
   }
   /* An object private to a destroyed VM binds nowhere, not even in a new
    * VM that reuses its slot. */
   uint32_t vm = vm_create(e);
   struct drm_asahi_gem_create g = { .size = PAGE, .flags = DRM_ASAHI_GEM_VM_PRIVATE,
                                     .vm_id = vm };
   assert_int_equal(IOC(e, DRM_IOCTL_ASAHI_GEM_CREATE, &g), 0);
   struct drm_asahi_vm_destroy d = { .vm_id = vm };
   assert_int_equal(IOC(e, DRM_IOCTL_ASAHI_VM_DESTROY, &d), 0);
   uint32_t vm2 = vm_create(e);
   assert_int_equal(bind(e, vm2, g.handle, va, PAGE, 0, DRM_ASAHI_BIND_READ), -EINVAL);
   uint32_t vm3 = vm_create(e);
   struct drm_asahi_gem_create g3 = { .size = PAGE, .flags = DRM_ASAHI_GEM_VM_PRIVATE,
                                      .vm_id = vm3 };
   assert_int_equal(IOC(e, DRM_IOCTL_ASAHI_GEM_CREATE, &g3), 0);
   assert_int_equal(bind(e, vm2, g3.handle, va, PAGE, 0, DRM_ASAHI_BIND_READ), -EINVAL);
   assert_int_equal(bind(e, vm3, g3.handle, va, PAGE, 0, DRM_ASAHI_BIND_READ), 0);
}

static void
test_syncobj(void **state)
{
   struct env *e = *state;
   uint32_t a = syncobj(e, 0), s = syncobj(e, DRM_SYNCOBJ_CREATE_SIGNALED);
   assert_int_equal(wait_one(e, s, 0), 0);
   /* no fence yet: EINVAL without WAIT_FOR_SUBMIT, ETIME with it */
   assert_int_equal(wait_one(e, a, 10), -EINVAL);
   struct drm_syncobj_wait w = {
      .handles = (uintptr_t)&a, .count_handles = 1, .timeout_nsec = deadline_ms(20),
      .flags = DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT,
   };
   assert_int_equal(IOC(e, DRM_IOCTL_SYNCOBJ_WAIT, &w), -ETIME);
   struct drm_syncobj_array arr = { .handles = (uintptr_t)&a, .count_handles = 1 };
   assert_int_equal(IOC(e, DRM_IOCTL_SYNCOBJ_SIGNAL, &arr), 0);
   assert_int_equal(wait_one(e, a, 0), 0);
   /* WAIT_ANY reports which one */
   uint32_t both[2] = { syncobj(e, 0), s };
   struct drm_syncobj_wait any = {
      .handles = (uintptr_t)both, .count_handles = 2, .timeout_nsec = deadline_ms(0),
      .flags = DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT,
   };
   assert_int_equal(IOC(e, DRM_IOCTL_SYNCOBJ_WAIT, &any), 0);
   assert_int_equal(any.first_signaled, 1);
   any.flags |= DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL;
   assert_int_equal(IOC(e, DRM_IOCTL_SYNCOBJ_WAIT, &any), -ETIME);
   assert_int_equal(IOC(e, DRM_IOCTL_SYNCOBJ_RESET, &arr), 0);
   assert_int_equal(wait_one(e, a, 0), -EINVAL);
   arr.count_handles = 0;
   assert_int_equal(IOC(e, DRM_IOCTL_SYNCOBJ_RESET, &arr), -EINVAL);
   uint32_t bad = 999;
   struct drm_syncobj_array barr = { .handles = (uintptr_t)&bad, .count_handles = 1 };
   assert_int_equal(IOC(e, DRM_IOCTL_SYNCOBJ_SIGNAL, &barr), -ENOENT);
   barr.handles = 8;
   assert_int_equal(IOC(e, DRM_IOCTL_SYNCOBJ_SIGNAL, &barr), -EFAULT);

   /* timelines */
   uint32_t t = syncobj(e, 0);
   uint64_t pt = 5;
   struct drm_syncobj_timeline_array ta = {
      .handles = (uintptr_t)&t, .points = (uintptr_t)&pt, .count_handles = 1,
   };
   assert_int_equal(IOC(e, DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL, &ta), 0);
   uint64_t q = 0;
   ta.points = (uintptr_t)&q;
   assert_int_equal(IOC(e, DRM_IOCTL_SYNCOBJ_QUERY, &ta), 0);
   assert_int_equal(q, 5);
   uint64_t wp = 3;
   struct drm_syncobj_timeline_wait tw = {
      .handles = (uintptr_t)&t, .points = (uintptr_t)&wp, .count_handles = 1,
      .timeout_nsec = deadline_ms(0),
   };
   assert_int_equal(IOC(e, DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT, &tw), 0);
   wp = 6;
   assert_int_equal(IOC(e, DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT, &tw), -EINVAL);
   tw.flags = DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT;
   assert_int_equal(IOC(e, DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT, &tw), -ETIME);
   /* transfer point 5 to binary syncobj a */
   struct drm_syncobj_transfer tr = { .src_handle = t, .dst_handle = a, .src_point = 5 };
   assert_int_equal(IOC(e, DRM_IOCTL_SYNCOBJ_TRANSFER, &tr), 0);
   assert_int_equal(wait_one(e, a, 0), 0);
   tr.src_point = 9;
   assert_int_equal(IOC(e, DRM_IOCTL_SYNCOBJ_TRANSFER, &tr), -EINVAL);
   tr.dst_handle = 777;
   assert_int_equal(IOC(e, DRM_IOCTL_SYNCOBJ_TRANSFER, &tr), -ENOENT);

   /* fd round trip */
   struct drm_syncobj_handle hf = { .handle = t };
   assert_int_equal(IOC(e, DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, &hf), 0);
   struct drm_syncobj_handle fh = { .fd = hf.fd };
   assert_int_equal(IOC(e, DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE, &fh), 0);
   assert_true(fh.handle != t);
   q = 0;
   ta.handles = (uintptr_t)&fh.handle;
   assert_int_equal(IOC(e, DRM_IOCTL_SYNCOBJ_QUERY, &ta), 0);
   assert_int_equal(q, 5);
   close(hf.fd);
   /* a timeline whose points have all signalled exports a signalled
    * sync file (readable at once); unknown flags are refused */
   hf.flags = DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE;
   assert_int_equal(IOC(e, DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, &hf), 0);
   struct pollfd pf = { .fd = hf.fd, .events = POLLIN };
   assert_int_equal(poll(&pf, 1, 0), 1);
   close(hf.fd);
   hf.flags = 2;
   assert_int_equal(IOC(e, DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, &hf), -EINVAL);

   struct drm_syncobj_destroy d = { .handle = t };
   assert_int_equal(IOC(e, DRM_IOCTL_SYNCOBJ_DESTROY, &d), 0);
   assert_int_equal(IOC(e, DRM_IOCTL_SYNCOBJ_DESTROY, &d), -EINVAL);
   struct drm_syncobj_create c = { .flags = 2 };
   assert_int_equal(IOC(e, DRM_IOCTL_SYNCOBJ_CREATE, &c), -EINVAL);
}

/* A compute job end to end: the test executor reads through the VM's
 * page tables and writes its result where userspace sees it. */
static void
test_compute(void **state)
{
   struct env *e = *state;
   asahi_set_job_hook(e->dev, hook, e);
   uint32_t vm = vm_create(e);
   uint32_t h = gem_create(e, PAGE);
   uint32_t *cpu = (uint32_t *)gem_map(e, h, PAGE);
   const uint64_t va = 0x10000000ull;
   assert_int_equal(bind(e, vm, h, va, PAGE, 0, DRM_ASAHI_BIND_READ | DRM_ASAHI_BIND_WRITE), 0);
   cpu[0] = 41;
   uint32_t q = queue_create(e, vm);

   /* timestamps object */
   uint32_t tsb = gem_create(e, PAGE);
   uint64_t *ts = (uint64_t *)gem_map(e, tsb, PAGE);
   memset(ts, 0xff, 64);   /* the first job runs at GPU time 0 */
   struct drm_asahi_gem_bind_object bo = {
      .op = DRM_ASAHI_BIND_OBJECT_OP_BIND, .flags = DRM_ASAHI_BIND_OBJECT_USAGE_TIMESTAMPS,
      .handle = tsb, .range = PAGE,
   };
   assert_int_equal(IOC(e, DRM_IOCTL_ASAHI_GEM_BIND_OBJECT, &bo), 0);

   struct drm_asahi_cmd_compute c = {
      .cdm_ctrl_stream_base = va, .cdm_ctrl_stream_end = va + 64,
      .ts = { .start = { bo.object_handle, 0 }, .end = { bo.object_handle, 8 } },
   };
   struct cmdbuf cb = { .size = 0 };
   cb_add(&cb, DRM_ASAHI_CMD_COMPUTE, &c, sizeof(c), DRM_ASAHI_BARRIER_NONE, DRM_ASAHI_BARRIER_NONE);
   uint32_t out = syncobj(e, 0);
   struct drm_asahi_sync sy = { .sync_type = DRM_ASAHI_SYNC_SYNCOBJ, .handle = out };
   assert_int_equal(submit(e, q, &cb, &sy, 0, 1), 0);
   assert_int_equal(wait_one(e, out, 5000), 0);
   assert_int_equal(cpu[1], 42);
   assert_int_equal(asahi_debug_syncobj_error(e->f, out, 0), 0);
   assert_true(ts[0] != ~0ull);
   /* Start costs 1278 cycles, the job 1278: 2556 cycles = 48 ticks */
   assert_int_equal(ts[1] - ts[0], 48);
   assert_int_equal(e->hooked, 1);
   assert_int_equal(e->last_pipe, AGX_FW_PIPE_COMPUTE);
   struct agx_fw_job_header jh;
   assert_true(agx_fw_job_header_unpack(e->last_header, &jh));
   assert_int_equal(jh.tag, AGX_FW_COMMAND_RUN_COMPUTE);
   assert_int_equal(jh.vm_slot, 1);
   assert_int_equal(jh.stamp_value, 0x100);

   /* a chain through a timeline: the second job waits for point 1 */
   uint32_t tl = syncobj(e, 0);
   struct drm_asahi_sync tsy[2] = {
      { .sync_type = DRM_ASAHI_SYNC_TIMELINE_SYNCOBJ, .handle = tl, .timeline_value = 1 },
      { .sync_type = DRM_ASAHI_SYNC_TIMELINE_SYNCOBJ, .handle = tl, .timeline_value = 2 },
   };
   uint32_t gate = syncobj(e, 0);
   uint64_t one = 1;
   /* point 1 is a userspace signal that has not happened: submit it
    * as a "wait for submit"-style dependency by transferring later */
   struct drm_syncobj_timeline_array ta = {
      .handles = (uintptr_t)&gate, .points = (uintptr_t)&one, .count_handles = 1,
   };
   (void)ta;
   cpu[0] = 100;
   assert_int_equal(submit(e, q, &cb, &tsy[0], 0, 1), 0);   /* signals point 1 */
   assert_int_equal(submit(e, q, &cb, tsy, 1, 1), 0);        /* waits 1, signals 2 */
   uint64_t wp = 2;
   struct drm_syncobj_timeline_wait tw = {
      .handles = (uintptr_t)&tl, .points = (uintptr_t)&wp, .count_handles = 1,
      .timeout_nsec = deadline_ms(5000),
   };
   assert_int_equal(IOC(e, DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT, &tw), 0);
   assert_int_equal(cpu[1], 101);
   assert_int_equal(e->hooked, 3);

   /* an in-sync that userspace signals later holds the job back */
   uint32_t later = syncobj(e, 0);
   struct drm_syncobj_array arr = { .handles = (uintptr_t)&later, .count_handles = 1 };
   assert_int_equal(IOC(e, DRM_IOCTL_SYNCOBJ_SIGNAL, &arr), 0);
   assert_int_equal(IOC(e, DRM_IOCTL_SYNCOBJ_RESET, &arr), 0);
   struct drm_asahi_sync in_none = { .sync_type = DRM_ASAHI_SYNC_SYNCOBJ, .handle = later };
   assert_int_equal(submit(e, q, &cb, &in_none, 1, 0), -EINVAL);

   /* unbind and close while idle; the queue goes last */
   struct drm_asahi_gem_bind_object ub = {
      .op = DRM_ASAHI_BIND_OBJECT_OP_UNBIND, .object_handle = bo.object_handle,
   };
   assert_int_equal(IOC(e, DRM_IOCTL_ASAHI_GEM_BIND_OBJECT, &ub), 0);
   assert_int_equal(IOC(e, DRM_IOCTL_ASAHI_GEM_BIND_OBJECT, &ub), -ENOENT);
   struct drm_asahi_queue_destroy qd = { .queue_id = q };
   assert_int_equal(IOC(e, DRM_IOCTL_ASAHI_QUEUE_DESTROY, &qd), 0);
   assert_int_equal(IOC(e, DRM_IOCTL_ASAHI_QUEUE_DESTROY, &qd), -ENOENT);
   munmap(cpu, PAGE);
   munmap(ts, PAGE);
}

/*
 * Issue 17: a VM_BIND that replaces or removes mappings has its TLB
 * invalidate take effect between jobs, so the ioctl waits for the job in
 * flight. It sleeps until the firmware's interrupt instead of polling
 * every 20 us (thousands of wakeups during one long job, 3 % of a
 * replay's time). A bind into free address space invalidates nothing
 * (only mapped pages are cached) and does not wait at all: every buffer
 * allocation of a replay used to stall behind the GPU.
 */
static void
test_device_control_wait(void **state)
{
   struct env *e = *state;
   uint32_t vm = vm_create(e);
   uint32_t h = gem_create(e, PAGE), h2 = gem_create(e, PAGE), h3 = gem_create(e, PAGE);
   uint32_t *cpu = (uint32_t *)gem_map(e, h, PAGE);
   const uint64_t va = 0x10000000ull;
   assert_int_equal(bind(e, vm, h, va, PAGE, 0, DRM_ASAHI_BIND_READ | DRM_ASAHI_BIND_WRITE), 0);
   assert_int_equal(bind(e, vm, h2, va + PAGE, PAGE, 0, DRM_ASAHI_BIND_READ), 0);
   cpu[0] = 7;
   uint32_t q = queue_create(e, vm);
   struct drm_asahi_cmd_compute c = { .cdm_ctrl_stream_base = va, .cdm_ctrl_stream_end = va + 64 };
   struct cmdbuf cb = { .size = 0 };
   cb_add(&cb, DRM_ASAHI_CMD_COMPUTE, &c, sizeof(c), DRM_ASAHI_BARRIER_NONE, DRM_ASAHI_BARRIER_NONE);
   uint32_t out = syncobj(e, 0);
   struct drm_asahi_sync sy = { .sync_type = DRM_ASAHI_SYNC_SYNCOBJ, .handle = out };
   const unsigned job_ms = 300;
   atomic_store(&slow_job_started, false);
   atomic_store(&slow_job_ms, job_ms);
   assert_int_equal(submit(e, q, &cb, &sy, 0, 1), 0);
   for (int i = 0; i < 5000 && !atomic_load(&slow_job_started); i++)
      usleep(1000);
   assert_true(atomic_load(&slow_job_started));

   /* Into free address space: at once. */
   int64_t t0 = deadline_ms(0);
   assert_int_equal(bind(e, vm, h3, va + 2 * PAGE, PAGE, 0, DRM_ASAHI_BIND_READ), 0);
   int64_t fresh_ms = (deadline_ms(0) - t0) / 1000000;

   /* Over a mapping: waits for the job, asleep. */
   struct rusage a, b;
   getrusage(RUSAGE_THREAD, &a);
   t0 = deadline_ms(0);
   assert_int_equal(bind(e, vm, h3, va + PAGE, PAGE, 0, DRM_ASAHI_BIND_READ), 0);
   int64_t waited_ms = (deadline_ms(0) - t0) / 1000000;
   getrusage(RUSAGE_THREAD, &b);
   long wakeups = b.ru_nvcsw - a.ru_nvcsw;
   print_message("fresh bind %lld ms; replacing bind waited %lld ms with %ld voluntary "
                 "context switches\n", (long long)fresh_ms, (long long)waited_ms, wakeups);
   assert_true(fresh_ms < job_ms / 3);
   assert_true(waited_ms >= job_ms / 3);
   /* polling every 20 us gave thousands; the interrupt wait's 10 ms
    * guard at most a few dozen */
   assert_true(wakeups < 100);
   assert_int_equal(wait_one(e, out, 5000), 0);
   assert_int_equal(cpu[1], 8);
   struct drm_asahi_queue_destroy qd = { .queue_id = q };
   assert_int_equal(IOC(e, DRM_IOCTL_ASAHI_QUEUE_DESTROY, &qd), 0);
   munmap(cpu, PAGE);
}

/*
 * Issue 17: whoever clears the firmware's interrupt handles the events it
 * announced. A job asks for a bigger TVB, then runs for a while; the
 * event thread grows the heap and waits, holding the interrupt, for the
 * firmware to take the Grow TVB Ack, which it does right after the job
 * (the job's completion event comes just before). The device-control
 * wait used to return as soon as the ack was taken, leaving the
 * completion in the ring with the interrupt cleared: the event thread
 * slept until its guard timeout (100 ms; a minute here), and so did a
 * program waiting for the job (Mesa's asahi replaying glxgears grows its
 * TVB on its one big pass: 0.29 s instead of 0.15 s, one run in two).
 * Both events in before the waiter wakes is the common case; five
 * rounds make the race near certain.
 */
static void
test_device_control_keeps_events(void **state)
{
   struct env *e = *state;
   uint32_t vm = vm_create(e);
   uint32_t h = gem_create(e, PAGE);
   uint32_t *cpu = (uint32_t *)gem_map(e, h, PAGE);
   const uint64_t va = 0x10000000ull;
   assert_int_equal(bind(e, vm, h, va, PAGE, 0, DRM_ASAHI_BIND_READ | DRM_ASAHI_BIND_WRITE), 0);
   uint32_t q = queue_create(e, vm);
   struct drm_asahi_cmd_compute c = { .cdm_ctrl_stream_base = va, .cdm_ctrl_stream_end = va + 64 };
   struct cmdbuf cb = { .size = 0 };
   cb_add(&cb, DRM_ASAHI_CMD_COMPUTE, &c, sizeof(c), DRM_ASAHI_BARRIER_NONE, DRM_ASAHI_BARRIER_NONE);
   uint32_t out = syncobj(e, 0);
   struct drm_asahi_sync sy = { .sync_type = DRM_ASAHI_SYNC_SYNCOBJ, .handle = out };
   for (uint32_t round = 0; round < 5; round++) {
      cpu[0] = round;
      atomic_store(&slow_job_started, false);
      atomic_store(&slow_job_grows, true);
      atomic_store(&slow_job_grow_posted, false);
      atomic_store(&slow_job_ms, 50);
      assert_int_equal(submit(e, q, &cb, &sy, 0, 1), 0);
      int64_t t0 = deadline_ms(0);
      /* 50 ms of job; the rest is slack for a loaded machine */
      assert_int_equal(wait_one(e, out, 20000), 0);
      print_message("round %u: job done and seen after %lld ms\n", round,
                    (long long)((deadline_ms(0) - t0) / 1000000));
      assert_true(atomic_load(&slow_job_started));
      assert_true(atomic_load(&slow_job_grow_posted));
      assert_int_equal(cpu[1], round + 1);
   }
   struct asahi_stats st;
   asahi_get_stats(e->dev, &st);
   assert_int_equal(st.tvb_grows, 5);   /* 1 MiB doubled five times */
   struct drm_asahi_queue_destroy qd = { .queue_id = q };
   assert_int_equal(IOC(e, DRM_IOCTL_ASAHI_QUEUE_DESTROY, &qd), 0);
   munmap(cpu, PAGE);
}

static void
test_render(void **state)
{
   struct env *e = *state;
   uint32_t vm = vm_create(e);
   uint32_t q = queue_create(e, vm);
   uint32_t tsb = gem_create(e, PAGE);
   uint64_t *ts = (uint64_t *)gem_map(e, tsb, PAGE);
   memset(ts, 0xff, 64);   /* the first job runs at GPU time 0 */
   struct drm_asahi_gem_bind_object bo = {
      .op = DRM_ASAHI_BIND_OBJECT_OP_BIND, .flags = DRM_ASAHI_BIND_OBJECT_USAGE_TIMESTAMPS,
      .handle = tsb, .range = PAGE,
   };
   assert_int_equal(IOC(e, DRM_IOCTL_ASAHI_GEM_BIND_OBJECT, &bo), 0);
   struct drm_asahi_cmd_render r = render_cmd();
   r.ts_vtx.start = (struct drm_asahi_timestamp){ bo.object_handle, 0 };
   r.ts_vtx.end = (struct drm_asahi_timestamp){ bo.object_handle, 8 };
   r.ts_frag.start = (struct drm_asahi_timestamp){ bo.object_handle, 16 };
   r.ts_frag.end = (struct drm_asahi_timestamp){ bo.object_handle, 24 };
   struct cmdbuf cb = { .size = 0 };
   struct drm_asahi_attachment att = { .pointer = 0x1000, .size = 64 };
   cb_add(&cb, DRM_ASAHI_SET_FRAGMENT_ATTACHMENTS, &att, sizeof(att),
          DRM_ASAHI_BARRIER_NONE, DRM_ASAHI_BARRIER_NONE);
   cb_add(&cb, DRM_ASAHI_CMD_RENDER, &r, sizeof(r), 0, 0);
   uint32_t out = syncobj(e, 0);
   struct drm_asahi_sync sy = { .sync_type = DRM_ASAHI_SYNC_SYNCOBJ, .handle = out };
   e->hooked = 0;
   asahi_set_job_hook(e->dev, hook, e);
   assert_int_equal(submit(e, q, &cb, &sy, 0, 1), 0);
   assert_int_equal(wait_one(e, out, 5000), 0);
   assert_int_equal(e->hooked, 3);   /* vertex, barrier, fragment */
   assert_true(ts[0] != ~0ull && ts[1] > ts[0]);
   assert_true(ts[2] >= ts[1] && ts[3] > ts[2] && ts[3] != ~0ull);
   assert_int_equal(asahi_debug_syncobj_error(e->f, out, 0), 0);

   /* render then compute waiting for it (vdm_barrier = 1) */
   uint32_t h = gem_create(e, PAGE);
   uint32_t *cpu = (uint32_t *)gem_map(e, h, PAGE);
   assert_int_equal(bind(e, vm, h, 0x10000000ull, PAGE, 0, DRM_ASAHI_BIND_READ | DRM_ASAHI_BIND_WRITE), 0);
   struct drm_asahi_cmd_compute c = { .cdm_ctrl_stream_base = 0x10000000ull };
   struct cmdbuf cb2 = { .size = 0 };
   cb_add(&cb2, DRM_ASAHI_CMD_RENDER, &r, sizeof(r), 0, 0);
   cb_add(&cb2, DRM_ASAHI_CMD_COMPUTE, &c, sizeof(c), 1, DRM_ASAHI_BARRIER_NONE);
   cpu[0] = 7;
   assert_int_equal(submit(e, q, &cb2, &sy, 0, 1), 0);
   assert_int_equal(wait_one(e, out, 5000), 0);
   assert_int_equal(cpu[1], 8);
   /* the compute job's script starts with a Barrier op */
   struct agx_fw_job_header jh;
   agx_fw_job_header_unpack(e->last_header, &jh);
   assert_int_equal(jh.tag, AGX_FW_COMMAND_RUN_COMPUTE);
   struct drm_asahi_cmd_render bad = r;
   bad.samples = 3;
   struct cmdbuf cb3 = { .size = 0 };
   cb_add(&cb3, DRM_ASAHI_CMD_RENDER, &bad, sizeof(bad), 0, 0);
   assert_int_equal(submit(e, q, &cb3, NULL, 0, 0), -EINVAL);
   /* barrier naming a command that does not precede it */
   cb3.size = 0;
   cb_add(&cb3, DRM_ASAHI_CMD_COMPUTE, &c, sizeof(c), 1, DRM_ASAHI_BARRIER_NONE);
   assert_int_equal(submit(e, q, &cb3, NULL, 0, 0), -EINVAL);
   /* short (older) struct is zero-extended; longer is refused */
   cb3.size = 0;
   cb_add(&cb3, DRM_ASAHI_CMD_COMPUTE, &c, 16, 0, 0);
   assert_int_equal(submit(e, q, &cb3, NULL, 0, 0), 0);
   uint8_t big[sizeof(c) + 8] = { 0 };
   cb3.size = 0;
   cb_add(&cb3, DRM_ASAHI_CMD_COMPUTE, big, sizeof(big), 0, 0);
   assert_int_equal(submit(e, q, &cb3, NULL, 0, 0), -EINVAL);
   /* bad timestamp handle */
   struct drm_asahi_cmd_render rt = render_cmd();
   rt.ts_vtx.start.handle = 99;
   cb3.size = 0;
   cb_add(&cb3, DRM_ASAHI_CMD_RENDER, &rt, sizeof(rt), 0, 0);
   assert_int_equal(submit(e, q, &cb3, NULL, 0, 0), -ENOENT);
   /* attachments only: no hardware command */
   cb3.size = 0;
   cb_add(&cb3, DRM_ASAHI_SET_COMPUTE_ATTACHMENTS, &att, sizeof(att),
          DRM_ASAHI_BARRIER_NONE, DRM_ASAHI_BARRIER_NONE);
   assert_int_equal(submit(e, q, &cb3, NULL, 0, 0), -EINVAL);
   /* bad pointers, queue, flags, sync types */
   struct drm_asahi_submit s = { .cmdbuf = 16, .queue_id = q, .cmdbuf_size = 64 };
   assert_int_equal(IOC(e, DRM_IOCTL_ASAHI_SUBMIT, &s), -EFAULT);
   s.cmdbuf = (uintptr_t)cb2.b;
   s.cmdbuf_size = cb2.size;
   s.queue_id = 1234;
   assert_int_equal(IOC(e, DRM_IOCTL_ASAHI_SUBMIT, &s), -ENOENT);
   s.queue_id = q;
   s.flags = 1;
   assert_int_equal(IOC(e, DRM_IOCTL_ASAHI_SUBMIT, &s), -EINVAL);
   s.flags = 0;
   struct drm_asahi_sync bs = { .sync_type = 7, .handle = out };
   s.syncs = (uintptr_t)&bs;
   s.out_sync_count = 1;
   assert_int_equal(IOC(e, DRM_IOCTL_ASAHI_SUBMIT, &s), -EINVAL);
   bs.sync_type = DRM_ASAHI_SYNC_SYNCOBJ;
   bs.handle = 4444;
   assert_int_equal(IOC(e, DRM_IOCTL_ASAHI_SUBMIT, &s), -ENOENT);
   munmap(cpu, PAGE);
   munmap(ts, PAGE);
}

/* A fault in one VM fails that job (and what was queued behind it); a
 * job of another VM completes meanwhile, and the device stays usable. */
static void
test_fault(void **state)
{
   struct env *e = *state;
   uint32_t vm1 = vm_create(e), vm2 = vm_create(e);
   uint32_t q1 = queue_create(e, vm1), q2 = queue_create(e, vm2);
   uint32_t h = gem_create(e, PAGE);
   uint32_t *cpu = (uint32_t *)gem_map(e, h, PAGE);
   assert_int_equal(bind(e, vm2, h, 0x10000000ull, PAGE, 0, DRM_ASAHI_BIND_READ | DRM_ASAHI_BIND_WRITE), 0);
   cpu[0] = 1;
   struct drm_asahi_cmd_compute bad = { .cdm_ctrl_stream_base = 0x20000000ull };
   struct drm_asahi_cmd_compute good = { .cdm_ctrl_stream_base = 0x10000000ull };
   struct cmdbuf cb1 = { .size = 0 }, cb2 = { .size = 0 };
   cb_add(&cb1, DRM_ASAHI_CMD_COMPUTE, &bad, sizeof(bad), 0, 0);
   cb_add(&cb2, DRM_ASAHI_CMD_COMPUTE, &good, sizeof(good), 0, 0);
   uint32_t s1 = syncobj(e, 0), s2 = syncobj(e, 0);
   struct drm_asahi_sync y1 = { .handle = s1 }, y2 = { .handle = s2 };
   assert_int_equal(submit(e, q1, &cb1, &y1, 0, 1), 0);
   assert_int_equal(submit(e, q2, &cb2, &y2, 0, 1), 0);
   assert_int_equal(wait_one(e, s1, 5000), 0);
   assert_int_equal(wait_one(e, s2, 5000), 0);
   assert_int_equal(asahi_debug_syncobj_error(e->f, s1, 0), -EIO);
   assert_int_equal(asahi_debug_syncobj_error(e->f, s2, 0), 0);
   assert_int_equal(cpu[1], 2);
   struct asahi_stats st;
   asahi_get_stats(e->dev, &st);
   assert_int_equal(st.faults, 1);
   /* the faulting queue accepts and runs new work afterwards */
   assert_int_equal(bind(e, vm1, h, 0x20000000ull, PAGE, 0, DRM_ASAHI_BIND_READ | DRM_ASAHI_BIND_WRITE), 0);
   cpu[0] = 10;
   assert_int_equal(submit(e, q1, &cb1, &y1, 0, 1), 0);
   assert_int_equal(wait_one(e, s1, 5000), 0);
   assert_int_equal(asahi_debug_syncobj_error(e->f, s1, 0), 0);
   assert_int_equal(cpu[1], 11);
   munmap(cpu, PAGE);
}

static void
test_queue_tvb(void **state)
{
   struct env *e = *state;
   uint32_t vm = vm_create(e);
   struct drm_asahi_queue_create qc = { .vm_id = vm, .priority = 4 };
   assert_int_equal(IOC(e, DRM_IOCTL_ASAHI_QUEUE_CREATE, &qc), -EINVAL);
   qc.priority = 0;
   qc.flags = 1;
   assert_int_equal(IOC(e, DRM_IOCTL_ASAHI_QUEUE_CREATE, &qc), -EINVAL);
   qc.flags = 0;
   qc.vm_id = 50;
   assert_int_equal(IOC(e, DRM_IOCTL_ASAHI_QUEUE_CREATE, &qc), -ENOENT);
   qc.vm_id = vm;
   assert_int_equal(IOC(e, DRM_IOCTL_ASAHI_QUEUE_CREATE, &qc), 0);
   /* first queue: buffer slot 0, VM slot 1; heap 1 MiB doubling to 64 */
   assert_int_equal(asahi_debug_grow_tvb(e->dev, 1, 0), 2 << 20);
   assert_int_equal(asahi_debug_grow_tvb(e->dev, 1, 0), 4 << 20);
   for (int i = 0; i < 4; i++)
      asahi_debug_grow_tvb(e->dev, 1, 0);
   assert_int_equal(asahi_debug_grow_tvb(e->dev, 1, 0), -ENOSPC);
   assert_int_equal(asahi_debug_grow_tvb(e->dev, 1, 9), -ENOENT);
   struct asahi_stats st;
   asahi_get_stats(e->dev, &st);
   assert_int_equal(st.tvb_grows, 6);
   /* the heap is mapped in the VM's kernel range */
   struct hw_uat_walk w;
   hw_uat_walk(e->hw, 1, KSTART + (40ull << 20), &w);
   assert_true(w.ok && w.writable);
   struct drm_asahi_queue_destroy qd = { .queue_id = qc.queue_id };
   assert_int_equal(IOC(e, DRM_IOCTL_ASAHI_QUEUE_DESTROY, &qd), 0);
   hw_uat_walk(e->hw, 1, KSTART, &w);
   assert_false(w.ok);
}

/* Closing a file with work and objects outstanding frees everything. */
static void
test_close_busy(void **state)
{
   struct env *e = *state;
   uint64_t before = hw_phys_pages_free(e->hw);
   struct asahi_file *f = asahi_open(e->dev);
   struct drm_asahi_vm_create v = { .kernel_start = KSTART, .kernel_end = KEND };
   assert_int_equal(asahi_ioctl(f, DRM_IOCTL_ASAHI_VM_CREATE, &v), 0);
   struct drm_asahi_queue_create qc = { .vm_id = v.vm_id };
   assert_int_equal(asahi_ioctl(f, DRM_IOCTL_ASAHI_QUEUE_CREATE, &qc), 0);
   struct drm_asahi_gem_create g = { .size = 8 * PAGE };
   assert_int_equal(asahi_ioctl(f, DRM_IOCTL_ASAHI_GEM_CREATE, &g), 0);
   struct drm_asahi_cmd_render r = render_cmd();
   struct cmdbuf cb = { .size = 0 };
   for (int i = 0; i < 8; i++)
      cb_add(&cb, DRM_ASAHI_CMD_RENDER, &r, sizeof(r), 0, 0);
   struct drm_asahi_submit s = {
      .cmdbuf = (uintptr_t)cb.b, .queue_id = qc.queue_id, .cmdbuf_size = cb.size,
   };
   for (int i = 0; i < 10; i++)
      assert_int_equal(asahi_ioctl(f, DRM_IOCTL_ASAHI_SUBMIT, &s), 0);
   asahi_close(f);
   /* the queue (and its VM) go once the work is done */
   for (int i = 0; i < 500 && hw_phys_pages_free(e->hw) != before; i++)
      usleep(10000);
   assert_int_equal(hw_phys_pages_free(e->hw), before);
}

int
main(void)
{
   const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_core, setup, teardown),
      cmocka_unit_test_setup_teardown(test_params, setup, teardown),
      cmocka_unit_test_setup_teardown(test_gem, setup, teardown),
      cmocka_unit_test_setup_teardown(test_prime, setup, teardown),
      cmocka_unit_test_setup_teardown(test_vm_bind, setup, teardown),
      cmocka_unit_test_setup_teardown(test_vm_private_teardown, setup, teardown),
      cmocka_unit_test_setup_teardown(test_syncobj, setup, teardown),
      cmocka_unit_test_setup_teardown(test_compute, setup, teardown),
      cmocka_unit_test_setup_teardown(test_device_control_wait, setup, teardown),
      cmocka_unit_test_setup_teardown(test_device_control_keeps_events, setup_no_guard,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_render, setup, teardown),
      cmocka_unit_test_setup_teardown(test_fault, setup, teardown),
      cmocka_unit_test_setup_teardown(test_queue_tvb, setup, teardown),
      cmocka_unit_test_setup_teardown(test_close_busy, setup, teardown),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}

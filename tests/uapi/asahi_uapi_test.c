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
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <xf86drm.h>

#include "cmdstream/agx_pack.h"
#include "drm-uapi/asahi_drm.h"

#define PAGE 16384ull

static int fd = -1;
static char node_path[256];
static bool model;
static struct drm_asahi_params_global params;

static int
find_node(char *path, size_t len)
{
   drmDevicePtr devs[16];
   int n = drmGetDevices2(0, devs, 16);
   int found = -1;
   for (int i = 0; i < n && found < 0; i++) {
      if (!(devs[i]->available_nodes & (1 << DRM_NODE_RENDER)))
         continue;
      int f = open(devs[i]->nodes[DRM_NODE_RENDER], O_RDWR | O_CLOEXEC);
      if (f < 0)
         continue;
      drmVersionPtr v = drmGetVersion(f);
      if (v && strcmp(v->name, "asahi") == 0) {
         snprintf(path, len, "%s", devs[i]->nodes[DRM_NODE_RENDER]);
         found = i;
      }
      drmFreeVersion(v);
      close(f);
   }
   if (n > 0)
      drmFreeDevices(devs, n);
   return found;
}

static int
asan_cb(struct dl_phdr_info *info, size_t size, void *data)
{
   (void)size;
   if (info->dlpi_name && strstr(info->dlpi_name, "libasan"))
      snprintf(data, PATH_MAX, "%s", info->dlpi_name);
   return 0;
}

/* Re-runs this program with the shim preloaded (ASan's runtime first when
 * this is a sanitizer build, as ASan requires). */
static void
reexec_with_shim(char **argv)
{
   if (getenv("TESSERA_UAPI_REEXEC"))
      return;
   char self[PATH_MAX], shim[PATH_MAX + 64], asan[PATH_MAX] = "";
   ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
   if (n <= 0)
      return;
   self[n] = 0;
   /* <top>/build/<variant>/{tests,bin}/<name> -> <top>/build/release/lib */
   char *s = strrchr(self, '/');
   if (!s)
      return;
   *s = 0;
   s = strrchr(self, '/');
   if (!s)
      return;
   *s = 0;
   s = strrchr(self, '/');
   if (!s)
      return;
   *s = 0;
   snprintf(shim, sizeof(shim), "%s/release/lib/tessera-shim.so", self);
   if (access(shim, R_OK))
      return;
   dl_iterate_phdr(asan_cb, asan);
   char pre[2 * PATH_MAX + 80];
   snprintf(pre, sizeof(pre), "%s%s%s", asan, asan[0] ? " " : "", shim);
   setenv("LD_PRELOAD", pre, 1);
   setenv("TESSERA_UAPI_REEXEC", "1", 1);
   execv("/proc/self/exe", argv);
}

static int
ioc(unsigned long cmd, void *arg)
{
   return drmIoctl(fd, cmd, arg) ? -errno : 0;
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
   struct drm_asahi_gem_create g = { .size = size, .flags = flags, .vm_id = vm };
   assert_int_equal(ioc(DRM_IOCTL_ASAHI_GEM_CREATE, &g), 0);
   return g.handle;
}

static void *
gem_map(uint32_t h, uint64_t size)
{
   struct drm_asahi_gem_mmap_offset o = { .handle = h };
   assert_int_equal(ioc(DRM_IOCTL_ASAHI_GEM_MMAP_OFFSET, &o), 0);
   void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)o.offset);
   assert_true(p != MAP_FAILED);
   return p;
}

static int
bind(uint32_t vm, uint32_t h, uint64_t addr, uint64_t range, uint32_t flags)
{
   struct drm_asahi_gem_bind_op op = { .flags = flags, .handle = h, .range = range, .addr = addr };
   struct drm_asahi_vm_bind b = {
      .vm_id = vm, .num_binds = 1, .stride = sizeof(op), .userptr = (uintptr_t)&op,
   };
   return ioc(DRM_IOCTL_ASAHI_VM_BIND, &b);
}

static uint32_t
queue_create(uint32_t vm)
{
   struct drm_asahi_queue_create q = { .vm_id = vm, .priority = DRM_ASAHI_PRIORITY_MEDIUM };
   assert_int_equal(ioc(DRM_IOCTL_ASAHI_QUEUE_CREATE, &q), 0);
   return q.queue_id;
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
   uint8_t buf[1024];
   struct drm_asahi_cmd_header h = { type, size, 0, 0 };
   memcpy(buf, &h, sizeof(h));
   memcpy(buf + sizeof(h), cmd, size);
   struct drm_asahi_sync s = { .sync_type = DRM_ASAHI_SYNC_SYNCOBJ, .handle = out };
   struct drm_asahi_submit sub = {
      .syncs = (uintptr_t)&s, .cmdbuf = (uintptr_t)buf, .queue_id = q,
      .out_sync_count = out ? 1 : 0, .cmdbuf_size = (uint32_t)(sizeof(h) + size),
   };
   return ioc(DRM_IOCTL_ASAHI_SUBMIT, &sub);
}

static int64_t
abs_ms(unsigned ms)
{
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec + (int64_t)ms * 1000000ll;
}

static struct drm_asahi_cmd_render
render_cmd(void)
{
   struct drm_asahi_cmd_render r = {
      .width_px = 128, .height_px = 128, .layers = 1, .samples = 1,
      .utile_width_px = 32, .utile_height_px = 32, .sample_size_B = 4,
   };
   return r;
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

/* A compute command whose CDM stream only terminates. With the compute
 * model present it runs; before that the firmware rejects it (no
 * executor). Either way the out-sync signals. */
static void
test_compute(void **state)
{
   (void)state;
   uint32_t vm = vm_create(), q = queue_create(vm);
   uint32_t h = gem_create(PAGE, 0, 0);
   uint8_t *cpu = gem_map(h, PAGE);
   const uint64_t va = params.vm_start + 0x200000000ull;
   agx_pack(cpu, CDM_STREAM_TERMINATE, t) { (void)t; }
   assert_int_equal(bind(vm, h, va, PAGE, DRM_ASAHI_BIND_READ | DRM_ASAHI_BIND_WRITE), 0);
   uint32_t tsbo;
   uint64_t *ts;
   uint32_t tso = ts_object(&tsbo, &ts);
   struct drm_asahi_cmd_compute c = {
      .cdm_ctrl_stream_base = va, .cdm_ctrl_stream_end = va + AGX_CDM_STREAM_TERMINATE_LENGTH,
      .ts = { .start = { tso, 0 }, .end = { tso, 8 } },
   };
   uint32_t out;
   assert_int_equal(drmSyncobjCreate(fd, 0, &out), 0);
   assert_int_equal(submit1(q, DRM_ASAHI_CMD_COMPUTE, &c, sizeof(c), out), 0);
   assert_int_equal(drmSyncobjWait(fd, &out, 1, abs_ms(10000), 0, NULL), 0);
   assert_true(ts[0] != ~0ull);
   /* bad submissions */
   c.flags = 1;
   assert_int_equal(submit1(q, DRM_ASAHI_CMD_COMPUTE, &c, sizeof(c), out), -EINVAL);
   c.flags = 0;
   assert_int_equal(submit1(q + 100, DRM_ASAHI_CMD_COMPUTE, &c, sizeof(c), out), -ENOENT);
   assert_int_equal(submit1(q, 99, &c, sizeof(c), out), -EINVAL);
   assert_int_equal(submit1(q, DRM_ASAHI_CMD_COMPUTE, &c, sizeof(c), 0xbad), -ENOENT);
   struct drm_asahi_queue_destroy d = { .queue_id = q };
   assert_int_equal(ioc(DRM_IOCTL_ASAHI_QUEUE_DESTROY, &d), 0);
   munmap(cpu, PAGE);
   munmap(ts, PAGE);
}

static void
test_render(void **state)
{
   (void)state;
   uint32_t vm = vm_create(), q = queue_create(vm);
   uint32_t tsbo;
   uint64_t *ts;
   uint32_t tso = ts_object(&tsbo, &ts);
   struct drm_asahi_cmd_render r = render_cmd();
   r.ts_vtx.start = (struct drm_asahi_timestamp){ tso, 0 };
   r.ts_vtx.end = (struct drm_asahi_timestamp){ tso, 8 };
   r.ts_frag.start = (struct drm_asahi_timestamp){ tso, 16 };
   r.ts_frag.end = (struct drm_asahi_timestamp){ tso, 24 };
   uint32_t out;
   assert_int_equal(drmSyncobjCreate(fd, 0, &out), 0);
   assert_int_equal(submit1(q, DRM_ASAHI_CMD_RENDER, &r, sizeof(r), out), 0);
   assert_int_equal(drmSyncobjWait(fd, &out, 1, abs_ms(10000), 0, NULL), 0);
   assert_true(ts[0] != ~0ull && ts[3] != ~0ull);
   assert_true(ts[1] > ts[0] && ts[3] > ts[2] && ts[2] >= ts[1]);
   r.samples = 3;
   assert_int_equal(submit1(q, DRM_ASAHI_CMD_RENDER, &r, sizeof(r), out), -EINVAL);
   r.samples = 1;
   r.ts_frag.end.offset = PAGE;
   assert_int_equal(submit1(q, DRM_ASAHI_CMD_RENDER, &r, sizeof(r), out), -EINVAL);
   munmap(ts, PAGE);
}

/* A job that cannot run in one VM (its stream is unmapped: a CDM fault,
 * or a firmware error before the compute model exists) does not stop
 * another VM's render from completing; both out-syncs signal. */
static void
test_fault_isolation(void **state)
{
   (void)state;
   uint32_t vm1 = vm_create(), vm2 = vm_create();
   uint32_t q1 = queue_create(vm1), q2 = queue_create(vm2);
   struct drm_asahi_cmd_compute c = {
      .cdm_ctrl_stream_base = params.vm_start + 0x300000000ull,
      .cdm_ctrl_stream_end = params.vm_start + 0x300000000ull + 64,
   };
   uint32_t tsbo;
   uint64_t *ts;
   uint32_t tso = ts_object(&tsbo, &ts);
   struct drm_asahi_cmd_render r = render_cmd();
   r.ts_frag.end = (struct drm_asahi_timestamp){ tso, 0 };
   uint32_t s1, s2;
   assert_int_equal(drmSyncobjCreate(fd, 0, &s1), 0);
   assert_int_equal(drmSyncobjCreate(fd, 0, &s2), 0);
   assert_int_equal(submit1(q1, DRM_ASAHI_CMD_COMPUTE, &c, sizeof(c), s1), 0);
   assert_int_equal(submit1(q2, DRM_ASAHI_CMD_RENDER, &r, sizeof(r), s2), 0);
   uint32_t both[2] = { s1, s2 };
   assert_int_equal(drmSyncobjWait(fd, both, 2, abs_ms(10000), DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, NULL), 0);
   assert_true(ts[0] != ~0ull);
   /* and the device still works */
   assert_int_equal(submit1(q1, DRM_ASAHI_CMD_RENDER, &r, sizeof(r), s1), 0);
   assert_int_equal(drmSyncobjWait(fd, &s1, 1, abs_ms(10000), 0, NULL), 0);
   munmap(ts, PAGE);
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
   if (find_node(path, sizeof(node_path)) < 0) {
      reexec_with_shim(argv);
      printf("1..0 # SKIP no asahi render node (and no tessera shim)\n");
      return 0;
   }
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
      cmocka_unit_test(test_render),
      cmocka_unit_test(test_fault_isolation),
      cmocka_unit_test(test_fork),
   };
   int r = cmocka_run_group_tests(tests, NULL, NULL);
   close(fd);
   return r;
}

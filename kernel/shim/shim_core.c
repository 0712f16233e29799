/* SPDX-License-Identifier: MIT */
/*
 * The shim's core: the device, the fd table and the interposed fd calls
 * (open, close, dup, fcntl, ioctl, mmap). See shim.h.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include <linux/dma-buf.h>
#include <linux/sync_file.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tessera/preload_fd.h"
#include "hw/hw_device.h"
#include "kernel/asahi.h"
#include "kernel/model/asahi_model.h"
#include "kernel/shim/shim.h"

#define EXPORT __attribute__((visibility("default")))
#define SHIM_MAX_FDS 65536

struct shim_file {
   struct asahi_file *f;
   unsigned refs;        /* fds pointing at it */
   bool stale;           /* inherited across fork */
};

struct shim_real shim_real;
int shim_node = 128;
bool shim_debug;

static pthread_mutex_t shim_lock;
static pthread_once_t shim_once = PTHREAD_ONCE_INIT;
static struct shim_file *fds[SHIM_MAX_FDS];
static struct asahi_model *shim_model;
static struct hw_device *shim_hw;
static struct asahi_dev *shim_dev;
/* Devices left behind by fork(): unusable in the child, kept reachable. */
static struct asahi_model *forked_away[16];

void
shim_log(const char *fmt, ...)
{
   if (!shim_debug)
      return;
   va_list ap;
   va_start(ap, fmt);
   fputs("tessera-shim: ", stderr);
   vfprintf(stderr, fmt, ap);
   fputc('\n', stderr);
   va_end(ap);
}

static void
atfork_prepare(void)
{
   pthread_mutex_lock(&shim_lock);
}

static void
atfork_parent(void)
{
   pthread_mutex_unlock(&shim_lock);
}

static void
atfork_child(void)
{
   pthread_mutexattr_t a;
   pthread_mutexattr_init(&a);
   pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
   pthread_mutex_init(&shim_lock, &a);
   pthread_mutexattr_destroy(&a);
   /* The firmware and driver threads did not come along; the device's
    * locks may even be held by threads that no longer exist. Forget it. */
   if (shim_dev) {
      for (unsigned i = 0; i < 16; i++) {
         if (!forked_away[i]) {
            forked_away[i] = shim_model;
            break;
         }
      }
   }
   shim_model = NULL;
   shim_dev = NULL;
   shim_hw = NULL;
   for (unsigned i = 0; i < SHIM_MAX_FDS; i++)
      if (fds[i])
         fds[i]->stale = true;
}

static void
do_init(void)
{
#define REAL(name) shim_real.name = (__typeof__(shim_real.name))dlsym(RTLD_NEXT, #name)
   REAL(open);
   REAL(openat);
   REAL(close);
   REAL(dup);
   REAL(dup2);
   REAL(dup3);
   REAL(fcntl);
   REAL(ioctl);
   REAL(mmap);
   REAL(munmap);
   REAL(stat);
   REAL(lstat);
   REAL(fstat);
   REAL(fstatat);
   REAL(statx);
   REAL(access);
   REAL(faccessat);
   REAL(opendir);
   REAL(readdir);
   REAL(closedir);
   REAL(readlink);
   REAL(realpath);
   REAL(fopen);
#undef REAL
   const char *d = getenv("TESSERA_SHIM_DEBUG");
   shim_debug = d && *d && strcmp(d, "0") != 0;
   const char *n = getenv("TESSERA_SHIM_NODE");
   if (n && *n) {
      long v = strtol(n, NULL, 10);
      if (v >= 128 && v < 192)
         shim_node = (int)v;
   }
   pthread_mutexattr_t a;
   pthread_mutexattr_init(&a);
   /* recursive: the model mmaps its memory while we hold the lock */
   pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
   pthread_mutex_init(&shim_lock, &a);
   pthread_mutexattr_destroy(&a);
   pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
}

void
shim_init(void)
{
   pthread_once(&shim_once, do_init);
}

__attribute__((destructor)) static void
shim_fini(void)
{
   if (!shim_dev)
      return;
   pthread_mutex_lock(&shim_lock);
   for (unsigned i = 0; i < SHIM_MAX_FDS; i++) {
      if (fds[i]) {
         /* still open at exit: leave the device to the OS */
         pthread_mutex_unlock(&shim_lock);
         return;
      }
   }
   /* Every file is closed, so nothing can reach the device any more; the
    * model stops its firmware thread before joining the executors. */
   asahi_model_destroy(shim_model);
   shim_model = NULL;
   shim_dev = NULL;
   shim_hw = NULL;
   pthread_mutex_unlock(&shim_lock);
}

static int
ensure_device(void)
{
   if (shim_dev)
      return 0;
   struct asahi_model_config cfg = { 0 };
   const char *mem = getenv("TESSERA_SHIM_MEM_MB");
   if (mem && *mem)
      cfg.mem_size = (uint64_t)strtoull(mem, NULL, 10) << 20;
   const char *sf = getenv("TESSERA_SHIM_SOFT_FAULTS");
   cfg.soft_faults = sf && *sf == '1';
   const char *tvb = getenv("TESSERA_SHIM_TVB_KB");
   if (tvb && *tvb) {
      unsigned long long kb = strtoull(tvb, NULL, 10);
      if (kb > 0 && kb <= (1u << 20))
         cfg.drv.tvb_initial_bytes = (uint32_t)(kb << 10);
   }
   /* A test hook: a long guard turns a lost interrupt into a hang
    * (kernel/asahi.h, tests/gl/asahi_irq_guard.sh). */
   const char *guard = getenv("TESSERA_SHIM_IRQ_GUARD_MS");
   if (guard && *guard) {
      unsigned long long ms = strtoull(guard, NULL, 10);
      if (ms > 0 && ms <= 3600000)
         cfg.drv.irq_guard_ms = (uint32_t)ms;
   }
   char err[160];
   shim_model = asahi_model_create(&cfg, err, sizeof(err));
   if (!shim_model) {
      shim_log("%s", err);
      return -EIO;
   }
   shim_hw = shim_model->hw;
   shim_dev = shim_model->dev;
   shim_log("created the GPU model (%u host threads) and the asahi driver (renderD%d)",
            shim_model->threads, shim_node);
   return 0;
}

/*
 * Diagnostics for test programs that know they run on the shim (found
 * with dlsym): model statistics and the driver's job hook. Both return
 * -1 when no device exists yet (open the node first).
 */
EXPORT int
tessera_shim_get_stats(struct asahi_model_stats *out)
{
   shim_init();
   pthread_mutex_lock(&shim_lock);
   int ret = -1;
   if (shim_model) {
      asahi_model_get_stats(shim_model, out);
      ret = 0;
   }
   pthread_mutex_unlock(&shim_lock);
   return ret;
}

EXPORT int
tessera_shim_set_job_hook(asahi_job_hook_fn fn, void *user)
{
   shim_init();
   pthread_mutex_lock(&shim_lock);
   int ret = -1;
   if (shim_dev) {
      asahi_set_job_hook(shim_dev, fn, user);
      ret = 0;
   }
   pthread_mutex_unlock(&shim_lock);
   return ret;
}

bool
shim_is_shim_fd(int fd)
{
   if (fd < 0 || fd >= SHIM_MAX_FDS)
      return false;
   return __atomic_load_n(&fds[fd], __ATOMIC_ACQUIRE) != NULL;
}

int
shim_open_node(int flags)
{
   shim_init();
   pthread_mutex_lock(&shim_lock);
   int ret = ensure_device();
   struct shim_file *sf = NULL;
   int fd = -1;
   if (!ret) {
      sf = calloc(1, sizeof(*sf));
      if (sf)
         sf->f = asahi_open(shim_dev);
      if (!sf || !sf->f)
         ret = -ENOMEM;
   }
   if (!ret) {
      /* A real fd keeps numbering, select() and close() semantics. */
      fd = shim_real.open("/dev/null", O_RDWR | (flags & O_CLOEXEC));
      if (fd < 0)
         ret = -errno;
      else if (fd >= SHIM_MAX_FDS)
         ret = -EMFILE;
   }
   if (ret) {
      if (fd >= 0)
         shim_real.close(fd);
      if (sf && sf->f)
         asahi_close(sf->f);
      free(sf);
      pthread_mutex_unlock(&shim_lock);
      errno = -ret;
      return -1;
   }
   sf->refs = 1;
   __atomic_store_n(&fds[fd], sf, __ATOMIC_RELEASE);
   pthread_mutex_unlock(&shim_lock);
   shim_log("open renderD%d -> fd %d", shim_node, fd);
   return fd;
}

/* Drops fd from the table (caller holds the lock). */
static void
forget_fd(int fd)
{
   if (fd < 0 || fd >= SHIM_MAX_FDS || !fds[fd])
      return;
   struct shim_file *sf = fds[fd];
   __atomic_store_n(&fds[fd], NULL, __ATOMIC_RELEASE);
   if (--sf->refs == 0) {
      if (!sf->stale)
         asahi_close(sf->f);
      free(sf);
   }
}

/* newfd now refers to what oldfd does (preload_fd.h; lock held). */
static void
alias_fd(int oldfd, int newfd)
{
   if (newfd < 0 || newfd >= SHIM_MAX_FDS)
      return;
   forget_fd(newfd);   /* replaced by dup2/dup3, or closed behind our back */
   if (oldfd < 0 || oldfd >= SHIM_MAX_FDS)
      return;
   struct shim_file *sf = fds[oldfd];
   if (!sf)
      return;
   sf->refs++;
   __atomic_store_n(&fds[newfd], sf, __ATOMIC_RELEASE);
   shim_log("dup fd %d -> %d", oldfd, newfd);
}

/* ---------------------------------------------------------- interposers */

static const char *
node_path_for(int dirfd, const char *path)
{
   if (!path)
      return NULL;
   if (path[0] != '/' && dirfd != AT_FDCWD)
      return NULL;
   return path;
}

static int
open_common(int dirfd, const char *path, int flags, mode_t mode, bool at)
{
   shim_init();
   const char *p = node_path_for(dirfd, path);
   if (p && shim_is_node_path(p))
      return shim_open_node(flags);
   if (p) {
      int r = shim_fs_open(p, flags);
      if (r != -2)
         return r;
   }
   return at ? shim_real.openat(dirfd, path, flags, mode)
             : shim_real.open(path, flags, mode);
}

static mode_t
va_mode(int flags, va_list ap)
{
   return (flags & (O_CREAT | __O_TMPFILE)) ? (mode_t)va_arg(ap, int) : 0;
}

EXPORT int
open(const char *path, int flags, ...)
{
   va_list ap;
   va_start(ap, flags);
   mode_t m = va_mode(flags, ap);
   va_end(ap);
   return open_common(AT_FDCWD, path, flags, m, false);
}

EXPORT int
open64(const char *path, int flags, ...)
{
   va_list ap;
   va_start(ap, flags);
   mode_t m = va_mode(flags, ap);
   va_end(ap);
   return open_common(AT_FDCWD, path, flags | O_LARGEFILE, m, false);
}

EXPORT int
__open_2(const char *path, int flags)
{
   return open_common(AT_FDCWD, path, flags, 0, false);
}

EXPORT int
__open64_2(const char *path, int flags)
{
   return open_common(AT_FDCWD, path, flags | O_LARGEFILE, 0, false);
}

EXPORT int
openat(int dirfd, const char *path, int flags, ...)
{
   va_list ap;
   va_start(ap, flags);
   mode_t m = va_mode(flags, ap);
   va_end(ap);
   return open_common(dirfd, path, flags, m, true);
}

EXPORT int
openat64(int dirfd, const char *path, int flags, ...)
{
   va_list ap;
   va_start(ap, flags);
   mode_t m = va_mode(flags, ap);
   va_end(ap);
   return open_common(dirfd, path, flags | O_LARGEFILE, m, true);
}

EXPORT int
__openat_2(int dirfd, const char *path, int flags)
{
   return open_common(dirfd, path, flags, 0, true);
}

EXPORT int
__openat64_2(int dirfd, const char *path, int flags)
{
   return open_common(dirfd, path, flags | O_LARGEFILE, 0, true);
}

EXPORT int
close(int fd)
{
   shim_init();
   if (shim_is_shim_fd(fd)) {
      pthread_mutex_lock(&shim_lock);
      forget_fd(fd);
      pthread_mutex_unlock(&shim_lock);
      shim_log("close fd %d", fd);
   }
   return shim_real.close(fd);
}

static const struct preload_fd_layer shim_fd_layer = { &shim_lock, alias_fd };

EXPORT int
dup(int fd)
{
   shim_init();
   return preload_dup(&shim_fd_layer, shim_real.dup, fd);
}

EXPORT int
dup2(int fd, int fd2)
{
   shim_init();
   return preload_dup2(&shim_fd_layer, shim_real.dup2, fd, fd2);
}

EXPORT int
dup3(int fd, int fd2, int flags)
{
   shim_init();
   return preload_dup3(&shim_fd_layer, shim_real.dup3, fd, fd2, flags);
}

static int
fcntl_common(int fd, int cmd, va_list ap)
{
   shim_init();
   return preload_fcntl(&shim_fd_layer, shim_real.fcntl, fd, cmd, ap);
}

EXPORT int
fcntl(int fd, int cmd, ...)
{
   va_list ap;
   va_start(ap, cmd);
   int r = fcntl_common(fd, cmd, ap);
   va_end(ap);
   return r;
}

EXPORT int
fcntl64(int fd, int cmd, ...)
{
   va_list ap;
   va_start(ap, cmd);
   int r = fcntl_common(fd, cmd, ap);
   va_end(ap);
   return r;
}

EXPORT int
ioctl(int fd, unsigned long request, ...)
{
   va_list ap;
   va_start(ap, request);
   void *arg = va_arg(ap, void *);
   va_end(ap);
   shim_init();
   if (!shim_is_shim_fd(fd)) {
      /* Sync files and dma-bufs the driver handed out are plain fds of
       * this process; their ioctls belong to the driver all the same. */
      unsigned type = _IOC_TYPE(request);
      if (type == DMA_BUF_BASE || type == SYNC_IOC_MAGIC) {
         pthread_mutex_lock(&shim_lock);
         struct asahi_dev *dev = shim_dev;
         pthread_mutex_unlock(&shim_lock);
         bool ours = false;
         int r = dev ? asahi_fd_ioctl(dev, fd, request, arg, &ours) : 0;
         if (ours) {
            shim_log("ioctl fd %d '%c' nr 0x%02lx -> %d", fd, (int)type,
                     (unsigned long)_IOC_NR(request), r);
            if (r < 0) {
               errno = -r;
               return -1;
            }
            return r;
         }
      }
      return shim_real.ioctl(fd, request, arg);
   }
   pthread_mutex_lock(&shim_lock);
   struct shim_file *sf = fds[fd];
   if (!sf || sf->stale) {
      pthread_mutex_unlock(&shim_lock);
      errno = sf ? EIO : EBADF;
      return -1;
   }
   struct asahi_file *f = sf->f;
   pthread_mutex_unlock(&shim_lock);
   /* The driver locks for itself; dropping ours lets a thread block in a
    * syncobj wait while others submit. (Closing an fd while another
    * thread is inside an ioctl on it is the caller's bug, as ever.) */
   int r = asahi_ioctl(f, request, arg);
   shim_log("ioctl fd %d nr 0x%02lx -> %d", fd, (unsigned long)_IOC_NR(request), r);
   if (r < 0) {
      errno = -r;
      return -1;
   }
   return r;
}

static void *
mmap_common(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
   shim_init();
   if (!shim_is_shim_fd(fd))
      return shim_real.mmap(addr, len, prot, flags, fd, off);
   pthread_mutex_lock(&shim_lock);
   struct shim_file *sf = fds[fd];
   uint64_t moff = 0;
   int r = !sf ? -EBADF : sf->stale ? -EIO
           : asahi_mmap_resolve(sf->f, (uint64_t)off, len, &moff);
   struct hw_device *hw = shim_hw;
   pthread_mutex_unlock(&shim_lock);
   if (r) {
      errno = -r;
      return MAP_FAILED;
   }
   /* The object's pages are the model's memory: map the arena at the
    * object's place so CPU and GPU share them. (The device lives until
    * exit once created, so hw stays valid without the lock.) */
   return hw_device_mem_map(hw, moff, len, addr, prot, flags);
}

EXPORT void *
mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
   return mmap_common(addr, len, prot, flags, fd, off);
}

EXPORT void *
mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
   return mmap_common(addr, len, prot, flags, fd, off);
}

EXPORT int
munmap(void *addr, size_t len)
{
   shim_init();
   return shim_real.munmap(addr, len);
}

/* Lets programs (the uAPI tests) tell the model from real hardware. */
EXPORT const int tessera_shim_present = 1;

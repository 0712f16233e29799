/* SPDX-License-Identifier: MIT */
/*
 * OS services for the asahi driver (see os.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "kernel/os/os.h"

void
os_mutex_init(struct os_mutex *m)
{
   pthread_mutex_init(&m->m, NULL);
}

void
os_mutex_fini(struct os_mutex *m)
{
   pthread_mutex_destroy(&m->m);
}

void
os_mutex_lock(struct os_mutex *m)
{
   pthread_mutex_lock(&m->m);
}

void
os_mutex_unlock(struct os_mutex *m)
{
   pthread_mutex_unlock(&m->m);
}

void
os_cond_init(struct os_cond *c)
{
   pthread_condattr_t a;
   pthread_condattr_init(&a);
   /* DRM timeouts are absolute CLOCK_MONOTONIC times. */
   pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
   pthread_cond_init(&c->c, &a);
   pthread_condattr_destroy(&a);
}

void
os_cond_fini(struct os_cond *c)
{
   pthread_cond_destroy(&c->c);
}

void
os_cond_broadcast(struct os_cond *c)
{
   pthread_cond_broadcast(&c->c);
}

bool
os_cond_wait_until(struct os_cond *c, struct os_mutex *m, uint64_t deadline_ns)
{
   if (deadline_ns == UINT64_MAX) {
      pthread_cond_wait(&c->c, &m->m);
      return true;
   }
   /* Far-future deadlines would overflow time_t arithmetic nowhere, but
    * keep them sane anyway. */
   struct timespec ts = {
      .tv_sec = (time_t)(deadline_ns / 1000000000ull),
      .tv_nsec = (long)(deadline_ns % 1000000000ull),
   };
   return pthread_cond_timedwait(&c->c, &m->m, &ts) != ETIMEDOUT;
}

int
os_thread_start(struct os_thread *t, void *(*fn)(void *), void *arg)
{
   int r = pthread_create(&t->t, NULL, fn, arg);
   t->started = r == 0;
   return -r;
}

void
os_thread_join(struct os_thread *t)
{
   if (t->started)
      pthread_join(t->t, NULL);
   t->started = false;
}

void *
os_zalloc(size_t size)
{
   return calloc(1, size ? size : 1);
}

void *
os_zalloc_array(size_t n, size_t size)
{
   if (size && n > SIZE_MAX / size)
      return NULL;
   return calloc(n ? n : 1, size ? size : 1);
}

void *
os_realloc_array(void *p, size_t n, size_t size)
{
   if (size && n > SIZE_MAX / size)
      return NULL;
   size_t bytes = n * size;
   return realloc(p, bytes ? bytes : 1);
}

void
os_free(void *p)
{
   free(p);
}

uint64_t
os_now_ns(void)
{
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void
os_sleep_us(unsigned us)
{
   struct timespec ts = { .tv_sec = us / 1000000, .tv_nsec = (long)(us % 1000000) * 1000 };
   nanosleep(&ts, NULL);
}

/*
 * User copies. The driver runs in the caller's process, so "user memory"
 * is our own address space; the point is to survive bad pointers. The
 * kernel validates the remote side of process_vm_readv/writev for us. In
 * sandboxes that forbid them (seccomp, ptrace restrictions), a pipe does
 * the same: write() from a bad source or read() into a bad destination
 * fails with EFAULT.
 */
enum { VM_UNKNOWN, VM_OK, VM_NONE };
static int vm_calls = VM_UNKNOWN;

static int
pipe_copy(void *dst, const void *src, size_t size)
{
   int p[2];
   if (pipe2(p, O_CLOEXEC) < 0)
      return -ENOMEM;
   int ret = 0;
   while (size && !ret) {
      size_t n = size > 4096 ? 4096 : size;
      ssize_t w = write(p[1], src, n);
      if (w != (ssize_t)n) {
         ret = -EFAULT;
         break;
      }
      ssize_t r = read(p[0], dst, n);
      if (r != (ssize_t)n)
         ret = -EFAULT;
      src = (const uint8_t *)src + n;
      dst = (uint8_t *)dst + n;
      size -= n;
   }
   close(p[0]);
   close(p[1]);
   return ret;
}

static int
vm_copy(void *dst, const void *src, size_t size, bool to_user)
{
   if (!size)
      return 0;
   if ((uintptr_t)src + size < (uintptr_t)src ||
       (uintptr_t)dst + size < (uintptr_t)dst)
      return -EFAULT;
   int mode = __atomic_load_n(&vm_calls, __ATOMIC_RELAXED);
   if (mode != VM_NONE) {
      struct iovec local = { to_user ? (void *)src : dst, size };
      struct iovec remote = { to_user ? dst : (void *)src, size };
      ssize_t n = to_user ? process_vm_writev(getpid(), &local, 1, &remote, 1, 0)
                          : process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
      if (n == (ssize_t)size) {
         __atomic_store_n(&vm_calls, VM_OK, __ATOMIC_RELAXED);
         return 0;
      }
      if (n >= 0 || errno == EFAULT)
         return -EFAULT;
      if (errno != ENOSYS && errno != EPERM)
         return -EFAULT;
      __atomic_store_n(&vm_calls, VM_NONE, __ATOMIC_RELAXED);
   }
   return pipe_copy(dst, src, size);
}

int
os_copy_from_user(void *dst, uint64_t user_src, size_t size)
{
   return vm_copy(dst, (const void *)(uintptr_t)user_src, size, false);
}

int
os_copy_to_user(uint64_t user_dst, const void *src, size_t size)
{
   return vm_copy((void *)(uintptr_t)user_dst, src, size, true);
}

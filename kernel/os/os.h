/* SPDX-License-Identifier: MIT */
/*
 * The OS layer of the asahi driver: the few services a kernel gives a DRM
 * driver, implemented on top of a POSIX process so the driver code reads
 * like kernel code and never touches libc threading or user memory
 * directly.
 *
 * CONTRACT
 * - os_copy_from_user()/os_copy_to_user() return 0 or -EFAULT. A bad user
 *   pointer never crashes the driver: the copy goes through the kernel
 *   (process_vm_readv/writev on our own pid, or a pipe when those are
 *   unavailable), which reports EFAULT instead of delivering SIGSEGV.
 * - Locks are non-recursive mutexes; condition variables wait on
 *   CLOCK_MONOTONIC so DRM's absolute timeouts map onto them directly.
 * - os_zalloc() returns zeroed memory or NULL; os_free(NULL) is a no-op.
 */
#ifndef ASAHI_OS_H
#define ASAHI_OS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct os_mutex {
   pthread_mutex_t m;
};

struct os_cond {
   pthread_cond_t c;
};

struct os_thread {
   pthread_t t;
   bool started;
};

void os_mutex_init(struct os_mutex *m);
void os_mutex_fini(struct os_mutex *m);
void os_mutex_lock(struct os_mutex *m);
void os_mutex_unlock(struct os_mutex *m);

void os_cond_init(struct os_cond *c);
void os_cond_fini(struct os_cond *c);
void os_cond_broadcast(struct os_cond *c);
/* Waits until woken or CLOCK_MONOTONIC reaches deadline_ns (UINT64_MAX:
 * forever). Returns false on timeout. Spurious wakeups are possible. */
bool os_cond_wait_until(struct os_cond *c, struct os_mutex *m,
                        uint64_t deadline_ns);

int os_thread_start(struct os_thread *t, void *(*fn)(void *), void *arg);
void os_thread_join(struct os_thread *t);

void *os_zalloc(size_t size);
void *os_zalloc_array(size_t n, size_t size);   /* NULL on overflow */
void *os_realloc_array(void *p, size_t n, size_t size);
void os_free(void *p);

uint64_t os_now_ns(void);   /* CLOCK_MONOTONIC */
void os_sleep_us(unsigned us);

int os_copy_from_user(void *dst, uint64_t user_src, size_t size);
int os_copy_to_user(uint64_t user_dst, const void *src, size_t size);

#endif

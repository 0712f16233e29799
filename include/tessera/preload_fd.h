/* SPDX-License-Identifier: MIT */
/*
 * preload_fd: the descriptor-duplicating calls (dup, dup2, dup3, fcntl)
 * as tessera's LD_PRELOAD objects (the render-node shim, kernel/shim, and
 * the capture layer, capture/) interpose them. Both keep a table of the
 * descriptors they know; a duplicate must inherit what the layer knows of
 * the original, and a descriptor replaced by dup2/dup3 must lose what the
 * layer knew of it.
 *
 * CONTRACT
 * - A layer describes itself with a struct preload_fd_layer: its lock
 *   (guarding its descriptor table) and alias(oldfd, newfd), called with
 *   the lock held after every successful duplication; alias() must first
 *   forget newfd, then make it refer to what oldfd does (if anything).
 * - The real call is made with the program's arguments under the layer's
 *   lock (so a concurrent close cannot reuse newfd before it is recorded);
 *   its result and errno are returned unchanged.
 * - fcntl is variadic: the third argument's type depends on the command.
 *   The argument-less commands listed pass none; every other one takes an
 *   int or a pointer, passed on as one word (the ABI passes both in the
 *   same register).
 * Header-only (static inline): each preload object gets its own copy, so
 * neither exports a symbol the other could bind to.
 */
#ifndef TESSERA_PRELOAD_FD_H
#define TESSERA_PRELOAD_FD_H

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>

struct preload_fd_layer {
   pthread_mutex_t *lock;
   void (*alias)(int oldfd, int newfd);
};

typedef int (*preload_fcntl_fn)(int fd, int cmd, ...);

/* Records r (a new descriptor for fd, or an error) and drops the lock. */
static inline int
preload_fd_done(const struct preload_fd_layer *l, int fd, int r, int record)
{
   int saved = errno;
   if (r >= 0 && record)
      l->alias(fd, r);
   pthread_mutex_unlock(l->lock);
   errno = saved;
   return r;
}

static inline int
preload_dup(const struct preload_fd_layer *l, int (*real)(int), int fd)
{
   pthread_mutex_lock(l->lock);
   return preload_fd_done(l, fd, real(fd), 1);
}

/* dup2(fd, fd) changes nothing. */
static inline int
preload_dup2(const struct preload_fd_layer *l, int (*real)(int, int), int fd, int fd2)
{
   pthread_mutex_lock(l->lock);
   return preload_fd_done(l, fd, real(fd, fd2), fd != fd2);
}

static inline int
preload_dup3(const struct preload_fd_layer *l, int (*real)(int, int, int), int fd, int fd2,
             int flags)
{
   pthread_mutex_lock(l->lock);
   return preload_fd_done(l, fd, real(fd, fd2, flags), 1);
}

static inline int
preload_fcntl(const struct preload_fd_layer *l, preload_fcntl_fn real, int fd, int cmd,
              va_list ap)
{
   switch (cmd) {
   case F_DUPFD:
   case F_DUPFD_CLOEXEC: {
      int arg = va_arg(ap, int);
      pthread_mutex_lock(l->lock);
      return preload_fd_done(l, fd, real(fd, cmd, arg), 1);
   }
   case F_GETFD:
   case F_GETFL:
   case F_GETOWN:
   case F_GETSIG:
   case F_GETLEASE:
   case F_GETPIPE_SZ:
   case F_GET_SEALS:
      return real(fd, cmd);
   default:
      return real(fd, cmd, va_arg(ap, void *));
   }
}

#endif

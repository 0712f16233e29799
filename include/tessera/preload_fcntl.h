/* SPDX-License-Identifier: MIT */
/*
 * fcntl() interposition shared by tessera's LD_PRELOAD objects (the
 * render-node shim and the capture layer). Both track file descriptors,
 * so a descriptor duplicated with F_DUPFD / F_DUPFD_CLOEXEC must inherit
 * what they know of the original; every other command passes through.
 *
 * fcntl is variadic: the third argument's type depends on the command.
 * The commands listed take none; every other one takes an int or a
 * pointer, which is passed on as one word (the ABI passes both in the
 * same register). errno from the real call survives the bookkeeping.
 */
#ifndef TESSERA_PRELOAD_FCNTL_H
#define TESSERA_PRELOAD_FCNTL_H

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>

typedef int (*preload_fcntl_fn)(int fd, int cmd, ...);

/* Forwards fcntl(fd, cmd, <ap>) to `real`; for a successful duplication
 * calls on_dup(fd, newfd) with `lock` held (the layer's own lock, which
 * guards its descriptor table). */
static inline int
preload_fcntl_forward(preload_fcntl_fn real, int fd, int cmd, va_list ap,
                      pthread_mutex_t *lock, void (*on_dup)(int oldfd, int newfd))
{
   switch (cmd) {
   case F_DUPFD:
   case F_DUPFD_CLOEXEC: {
      int arg = va_arg(ap, int);
      pthread_mutex_lock(lock);
      int r = real(fd, cmd, arg);
      int saved = errno;
      if (r >= 0)
         on_dup(fd, r);
      pthread_mutex_unlock(lock);
      errno = saved;
      return r;
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

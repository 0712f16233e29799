/* SPDX-License-Identifier: MIT */
/*
 * tessera-shim: an LD_PRELOAD library that makes the GPU model and the
 * asahi driver appear as a platform DRM render node (/dev/dri/renderD128,
 * or renderD$TESSERA_SHIM_NODE) inside the process, in the spirit of
 * Mesa's drm-shim.
 *
 * CONTRACT
 * - The device (hw model + driver) is created on the first open of the
 *   node and lives until exit. Each open is one DRM file; dup'd fds share
 *   it, as dup'd fds of a real node share the struct file.
 * - ioctl() and mmap() on those fds go to the driver; everything else
 *   passes through to libc (dlsym(RTLD_NEXT)).
 * - The sysfs entries libdrm and Mesa's loader read are faked for that
 *   node only (uevent, subsystem link, device/drm directory ...).
 * - fork(): the child does not inherit the device (its threads are not
 *   there). Inherited node fds fail with EIO (close works); the next open
 *   creates a fresh device in the child.
 * - Thread safe: one recursive lock around the fd table and the device.
 */
#ifndef TESSERA_SHIM_H
#define TESSERA_SHIM_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/stat.h>

#define SHIM_DRM_MAJOR 226

extern int shim_node;            /* minor of the render node */
extern bool shim_debug;

void shim_init(void);
void shim_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* the real libc functions */
struct shim_real {
   int (*open)(const char *, int, ...);
   int (*openat)(int, const char *, int, ...);
   int (*close)(int);
   int (*dup)(int);
   int (*dup2)(int, int);
   int (*dup3)(int, int, int);
   int (*fcntl)(int, int, ...);
   int (*ioctl)(int, unsigned long, ...);
   void *(*mmap)(void *, size_t, int, int, int, off_t);
   int (*munmap)(void *, size_t);
   int (*stat)(const char *, struct stat *);
   int (*lstat)(const char *, struct stat *);
   int (*fstat)(int, struct stat *);
   int (*fstatat)(int, const char *, struct stat *, int);
   int (*statx)(int, const char *, int, unsigned, void *);
   int (*access)(const char *, int);
   int (*faccessat)(int, const char *, int, int);
   void *(*opendir)(const char *);
   void *(*readdir)(void *);
   int (*closedir)(void *);
   ssize_t (*readlink)(const char *, char *, size_t);
   char *(*realpath)(const char *, char *);
   FILE *(*fopen)(const char *, const char *);
};
extern struct shim_real shim_real;

/* shim_fs.c: is this one of our fake paths? */
bool shim_is_node_path(const char *path);
/* open() of a fake sysfs file: an fd with its contents, or -2 if the path
 * is not ours. */
int shim_fs_open(const char *path, int flags);
int shim_fake_stat(const char *path, struct stat *st, bool follow);
void shim_node_stat(struct stat *st);

/* shim_core.c */
int shim_open_node(int flags);
bool shim_is_shim_fd(int fd);

#endif

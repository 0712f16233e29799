/* SPDX-License-Identifier: MIT */
/*
 * The filesystem view of the fake render node: /dev/dri/renderD<N> and
 * the sysfs entries libdrm (drmGetDevices2, drmGetDevice2) and Mesa's
 * loader read to identify a platform DRM device. Only these paths are
 * intercepted; everything else goes to libc.
 *
 * The sysfs tree we present (DEV = /sys/devices/platform/soc/206400000.gpu):
 *   /sys/dev/char/226:N          -> DEV/drm/renderDN   (symlink)
 *   DEV/uevent                    DRIVER=asahi, OF_FULLNAME, OF_COMPATIBLE_*
 *   DEV/subsystem                -> /sys/bus/platform  (what sets the bus type)
 *   DEV/drm/renderDN/uevent       MAJOR, MINOR, DEVNAME
 *   DEV/drm/renderDN/device      -> DEV
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "kernel/shim/shim.h"

#define EXPORT __attribute__((visibility("default")))
#define DEVDIR "/sys/devices/platform/soc/206400000.gpu"

enum node_type { N_DIR, N_FILE, N_LINK, N_CHR };

struct fake {
   enum node_type type;
   char path[256];
   char data[256];       /* file contents, or link target */
   char real[128];       /* realpath of a link */
};

#define NFAKE 10

/* Entry points are declared nonnull, but a NULL from a buggy caller must
 * still reach libc (which reports EFAULT) rather than crash here. */
__attribute__((noinline)) static bool
given(const char *p)
{
   return p != NULL;
}
static struct fake fakes[NFAKE];
static char node_path[64], char_path[64], render_dir[128];
static pthread_once_t fs_once = PTHREAD_ONCE_INIT;

static void
fake_set(unsigned i, enum node_type t, const char *path, const char *data,
         const char *real)
{
   fakes[i].type = t;
   snprintf(fakes[i].path, sizeof(fakes[i].path), "%s", path);
   snprintf(fakes[i].data, sizeof(fakes[i].data), "%s", data ? data : "");
   snprintf(fakes[i].real, sizeof(fakes[i].real), "%s", real ? real : "");
}

static void
fs_init(void)
{
   shim_init();
   int n = shim_node;
   char buf[256];
   snprintf(node_path, sizeof(node_path), "/dev/dri/renderD%d", n);
   snprintf(char_path, sizeof(char_path), "/sys/dev/char/%d:%d", SHIM_DRM_MAJOR, n);
   snprintf(render_dir, sizeof(render_dir), DEVDIR "/drm/renderD%d", n);
   unsigned i = 0;
   fake_set(i++, N_CHR, node_path, NULL, NULL);
   fake_set(i++, N_DIR, DEVDIR, NULL, NULL);
   fake_set(i++, N_FILE, DEVDIR "/uevent",
            "DRIVER=asahi\nOF_NAME=gpu\nOF_FULLNAME=/soc/gpu@206400000\n"
            "OF_COMPATIBLE_0=apple,gpu-g13g\nOF_COMPATIBLE_N=1\n"
            "MODALIAS=of:NgpuT(null)Capple,gpu-g13g\n", NULL);
   fake_set(i++, N_LINK, DEVDIR "/subsystem", "../../../../bus/platform", "/sys/bus/platform");
   fake_set(i++, N_DIR, DEVDIR "/drm", NULL, NULL);
   fake_set(i++, N_DIR, render_dir, NULL, NULL);
   snprintf(buf, sizeof(buf), "MAJOR=%d\nMINOR=%d\nDEVNAME=dri/renderD%d\n",
            SHIM_DRM_MAJOR, n, n);
   snprintf(fakes[i].path, sizeof(fakes[i].path), "%s/uevent", render_dir);
   fakes[i].type = N_FILE;
   snprintf(fakes[i].data, sizeof(fakes[i].data), "%s", buf);
   i++;
   snprintf(fakes[i].path, sizeof(fakes[i].path), "%s/device", render_dir);
   fakes[i].type = N_LINK;
   snprintf(fakes[i].data, sizeof(fakes[i].data), "../../../206400000.gpu");
   snprintf(fakes[i].real, sizeof(fakes[i].real), DEVDIR);
   i++;
   snprintf(fakes[i].path, sizeof(fakes[i].path), "%s/subsystem", render_dir);
   fakes[i].type = N_LINK;
   snprintf(fakes[i].data, sizeof(fakes[i].data), "../../../../../../class/drm");
   snprintf(fakes[i].real, sizeof(fakes[i].real), "/sys/class/drm");
   i++;
   snprintf(fakes[i].path, sizeof(fakes[i].path), "%s", char_path);
   fakes[i].type = N_LINK;
   snprintf(fakes[i].data, sizeof(fakes[i].data), "../../devices/platform/soc/206400000.gpu/drm/renderD%d", n);
   snprintf(fakes[i].real, sizeof(fakes[i].real), "%s", render_dir);
}

/*
 * Maps path onto the canonical (DEVDIR-based) name, following our links
 * in the middle of the path, and finds its node. `follow` resolves a link
 * in the last component too.
 */
static const struct fake *
fake_find(const char *path, bool follow, char *canon, size_t canon_len)
{
   pthread_once(&fs_once, fs_init);
   if (!path || path[0] != '/')
      return NULL;
   char cur[PATH_MAX];
   snprintf(cur, sizeof(cur), "%s", path);
   /* strip a trailing slash */
   size_t l = strlen(cur);
   while (l > 1 && cur[l - 1] == '/')
      cur[--l] = 0;
   for (int hops = 0; hops < 8; hops++) {
      bool changed = false;
      for (unsigned i = 0; i < NFAKE; i++) {
         const struct fake *fk = &fakes[i];
         if (fk->type != N_LINK)
            continue;
         size_t pl = strlen(fk->path);
         /* a link in the middle of the path (or at its end when following) */
         if (strncmp(cur, fk->path, pl) == 0 && (cur[pl] == '/' || (follow && cur[pl] == 0)) &&
             fk->real[0] && strncmp(fk->real, "/sys/bus", 8) && strncmp(fk->real, "/sys/class", 10)) {
            char next[PATH_MAX];
            snprintf(next, sizeof(next), "%s%s", fk->real, cur + pl);
            snprintf(cur, sizeof(cur), "%s", next);
            changed = true;
            break;
         }
      }
      if (!changed)
         break;
   }
   if (canon)
      snprintf(canon, canon_len, "%s", cur);
   for (unsigned i = 0; i < NFAKE; i++)
      if (strcmp(cur, fakes[i].path) == 0)
         return &fakes[i];
   return NULL;
}

bool
shim_is_node_path(const char *path)
{
   pthread_once(&fs_once, fs_init);
   return path && strcmp(path, node_path) == 0;
}

void
shim_node_stat(struct stat *st)
{
   memset(st, 0, sizeof(*st));
   st->st_mode = S_IFCHR | 0666;
   st->st_rdev = makedev(SHIM_DRM_MAJOR, shim_node);
   st->st_dev = makedev(0, 5);
   st->st_ino = 0x7e55e7a0u + (unsigned)shim_node;
   st->st_nlink = 1;
   st->st_blksize = 4096;
}

static void
fake_fill(const struct fake *fk, struct stat *st)
{
   if (fk->type == N_CHR) {
      shim_node_stat(st);
      return;
   }
   memset(st, 0, sizeof(*st));
   st->st_dev = makedev(0, 21);
   st->st_ino = 0x5f5f0000u + (unsigned)(fk - fakes);
   st->st_nlink = fk->type == N_DIR ? 2 : 1;
   st->st_blksize = 4096;
   switch (fk->type) {
   case N_DIR:
      st->st_mode = S_IFDIR | 0755;
      break;
   case N_FILE:
      st->st_mode = S_IFREG | 0444;
      st->st_size = 4096;   /* sysfs reports a page */
      break;
   default:
      st->st_mode = S_IFLNK | 0777;
      st->st_size = (off_t)strlen(fk->data);
      break;
   }
}

/* 0 and *st filled, -1 with errno, or -2 when the path is not ours. */
int
shim_fake_stat(const char *path, struct stat *st, bool follow)
{
   const struct fake *fk = fake_find(path, follow, NULL, 0);
   if (fk) {
      fake_fill(fk, st);
      return 0;
   }
   /* /dev/dri itself, when the machine has no GPU */
   if (path && strcmp(path, "/dev/dri") == 0) {
      if (shim_real.stat(path, st) == 0)
         return 0;
      memset(st, 0, sizeof(*st));
      st->st_mode = S_IFDIR | 0755;
      st->st_nlink = 2;
      st->st_ino = 0x5f5f00ffu;
      return 0;
   }
   return -2;
}

int
shim_fs_open(const char *path, int flags)
{
   const struct fake *fk = fake_find(path, true, NULL, 0);
   if (!fk || fk->type == N_CHR)
      return -2;
   if (fk->type == N_DIR) {
      /* directory fds are not needed by anything we serve */
      errno = (flags & O_DIRECTORY) ? ENOTSUP : EISDIR;
      return -1;
   }
   if ((flags & O_ACCMODE) != O_RDONLY) {
      errno = EACCES;
      return -1;
   }
   int fd = memfd_create("tessera-shim-sysfs", (flags & O_CLOEXEC) ? MFD_CLOEXEC : 0);
   if (fd < 0)
      return -1;
   size_t len = strlen(fk->data);
   if (write(fd, fk->data, len) != (ssize_t)len || lseek(fd, 0, SEEK_SET) != 0) {
      shim_real.close(fd);
      errno = EIO;
      return -1;
   }
   return fd;
}

/* ---------------------------------------------------------------- stat */

EXPORT int
stat(const char *path, struct stat *st)
{
   shim_init();
   int r = shim_fake_stat(path, st, true);
   return r == -2 ? shim_real.stat(path, st) : r;
}

EXPORT int
stat64(const char *path, struct stat64 *st)
{
   return stat(path, (struct stat *)st);
}

EXPORT int
lstat(const char *path, struct stat *st)
{
   shim_init();
   int r = shim_fake_stat(path, st, false);
   return r == -2 ? shim_real.lstat(path, st) : r;
}

EXPORT int
lstat64(const char *path, struct stat64 *st)
{
   return lstat(path, (struct stat *)st);
}

EXPORT int
fstat(int fd, struct stat *st)
{
   shim_init();
   if (shim_is_shim_fd(fd)) {
      shim_node_stat(st);
      return 0;
   }
   return shim_real.fstat(fd, st);
}

EXPORT int
fstat64(int fd, struct stat64 *st)
{
   return fstat(fd, (struct stat *)st);
}

EXPORT int
fstatat(int dirfd, const char *path, struct stat *st, int flags)
{
   shim_init();
   if ((flags & AT_EMPTY_PATH) && given(path) && !*path && shim_is_shim_fd(dirfd)) {
      shim_node_stat(st);
      return 0;
   }
   if (given(path) && (path[0] == '/' || dirfd == AT_FDCWD)) {
      int r = shim_fake_stat(path, st, !(flags & AT_SYMLINK_NOFOLLOW));
      if (r != -2)
         return r;
   }
   return shim_real.fstatat(dirfd, path, st, flags);
}

EXPORT int
fstatat64(int dirfd, const char *path, struct stat64 *st, int flags)
{
   return fstatat(dirfd, path, (struct stat *)st, flags);
}

/* Pre-2.33 glibc entry points (x86_64: the kernel struct stat). */
EXPORT int
__xstat(int ver, const char *path, struct stat *st)
{
   (void)ver;
   return stat(path, st);
}

EXPORT int
__xstat64(int ver, const char *path, struct stat64 *st)
{
   (void)ver;
   return stat(path, (struct stat *)st);
}

EXPORT int
__lxstat(int ver, const char *path, struct stat *st)
{
   (void)ver;
   return lstat(path, st);
}

EXPORT int
__lxstat64(int ver, const char *path, struct stat64 *st)
{
   (void)ver;
   return lstat(path, (struct stat *)st);
}

EXPORT int
__fxstat(int ver, int fd, struct stat *st)
{
   (void)ver;
   return fstat(fd, st);
}

EXPORT int
__fxstat64(int ver, int fd, struct stat64 *st)
{
   (void)ver;
   return fstat(fd, (struct stat *)st);
}

EXPORT int
__fxstatat(int ver, int dirfd, const char *path, struct stat *st, int flags)
{
   (void)ver;
   return fstatat(dirfd, path, st, flags);
}

EXPORT int
__fxstatat64(int ver, int dirfd, const char *path, struct stat64 *st, int flags)
{
   (void)ver;
   return fstatat(dirfd, path, (struct stat *)st, flags);
}

EXPORT int
statx(int dirfd, const char *path, int flags, unsigned mask, struct statx *sx)
{
   shim_init();
   struct stat st;
   int r = -2;
   if ((flags & AT_EMPTY_PATH) && given(path) && !*path && shim_is_shim_fd(dirfd)) {
      shim_node_stat(&st);
      r = 0;
   } else if (given(path) && (path[0] == '/' || dirfd == AT_FDCWD)) {
      r = shim_fake_stat(path, &st, !(flags & AT_SYMLINK_NOFOLLOW));
   }
   if (r == -2)
      return shim_real.statx(dirfd, path, flags, mask, sx);
   if (r)
      return r;
   memset(sx, 0, sizeof(*sx));
   sx->stx_mask = STATX_BASIC_STATS;
   sx->stx_mode = (uint16_t)st.st_mode;
   sx->stx_nlink = (uint32_t)st.st_nlink;
   sx->stx_ino = st.st_ino;
   sx->stx_size = (uint64_t)st.st_size;
   sx->stx_blksize = (uint32_t)st.st_blksize;
   sx->stx_rdev_major = major(st.st_rdev);
   sx->stx_rdev_minor = minor(st.st_rdev);
   sx->stx_dev_major = major(st.st_dev);
   sx->stx_dev_minor = minor(st.st_dev);
   return 0;
}

EXPORT int
access(const char *path, int mode)
{
   shim_init();
   struct stat st;
   if (shim_fake_stat(path, &st, true) == 0)
      return ((mode & W_OK) && S_ISREG(st.st_mode)) ? (errno = EACCES, -1) : 0;
   return shim_real.access(path, mode);
}

EXPORT int
faccessat(int dirfd, const char *path, int mode, int flags)
{
   shim_init();
   if (given(path) && (path[0] == '/' || dirfd == AT_FDCWD)) {
      struct stat st;
      if (shim_fake_stat(path, &st, !(flags & AT_SYMLINK_NOFOLLOW)) == 0)
         return ((mode & W_OK) && S_ISREG(st.st_mode)) ? (errno = EACCES, -1) : 0;
   }
   return shim_real.faccessat(dirfd, path, mode, flags);
}

/* ------------------------------------------------------------- links */

EXPORT ssize_t
readlink(const char *path, char *buf, size_t size)
{
   shim_init();
   const struct fake *fk = fake_find(path, false, NULL, 0);
   if (!fk)
      return shim_real.readlink(path, buf, size);
   if (fk->type != N_LINK) {
      errno = EINVAL;
      return -1;
   }
   size_t n = strlen(fk->data);
   if (n > size)
      n = size;
   memcpy(buf, fk->data, n);
   return (ssize_t)n;
}

EXPORT char *
realpath(const char *path, char *resolved)
{
   shim_init();
   char canon[PATH_MAX];
   const struct fake *fk = fake_find(path, true, canon, sizeof(canon));
   if (!fk)
      return shim_real.realpath(path, resolved);
   const char *res = fk->type == N_LINK && fk->real[0] ? fk->real : canon;
   if (!resolved) {
      resolved = malloc(PATH_MAX);
      if (!resolved)
         return NULL;
   }
   snprintf(resolved, PATH_MAX, "%s", res);
   return resolved;
}

/* ------------------------------------------------------------- fopen */

static FILE *
fopen_common(const char *path, const char *mode)
{
   shim_init();
   if (path && strchr(mode, 'r') && !strchr(mode, '+')) {
      const struct fake *fk = fake_find(path, true, NULL, 0);
      if (fk && fk->type == N_FILE) {
         int fd = shim_fs_open(path, O_RDONLY | O_CLOEXEC);
         if (fd < 0)
            return NULL;
         FILE *f = fdopen(fd, mode);
         if (!f)
            shim_real.close(fd);
         return f;
      }
   }
   return shim_real.fopen(path, mode);
}

EXPORT FILE *
fopen(const char *path, const char *mode)
{
   return fopen_common(path, mode);
}

EXPORT FILE *
fopen64(const char *path, const char *mode)
{
   return fopen_common(path, mode);
}

/* --------------------------------------------------------- directories */

/*
 * Directory streams we hand out: either a real one (for /dev/dri when it
 * exists) to which we append our node, or a wholly fake one. They are
 * told apart by a registry of the pointers we returned.
 */
struct shim_dir {
   void *real;              /* real DIR*, or NULL */
   const char *names[4];
   unsigned count, pos;
   bool injected;
   struct dirent ent;
};

#define MAX_DIRS 64
static struct shim_dir *dirs[MAX_DIRS];
static pthread_mutex_t dirs_lock = PTHREAD_MUTEX_INITIALIZER;

static struct shim_dir *
dir_lookup(void *d)
{
   struct shim_dir *r = NULL;
   pthread_mutex_lock(&dirs_lock);
   for (unsigned i = 0; i < MAX_DIRS; i++)
      if (dirs[i] && (void *)dirs[i] == d)
         r = dirs[i];
   pthread_mutex_unlock(&dirs_lock);
   return r;
}

static void *
dir_register(struct shim_dir *sd)
{
   pthread_mutex_lock(&dirs_lock);
   for (unsigned i = 0; i < MAX_DIRS; i++) {
      if (!dirs[i]) {
         dirs[i] = sd;
         pthread_mutex_unlock(&dirs_lock);
         return sd;
      }
   }
   pthread_mutex_unlock(&dirs_lock);
   free(sd);
   errno = EMFILE;
   return NULL;
}

EXPORT DIR *
opendir(const char *path)
{
   shim_init();
   pthread_once(&fs_once, fs_init);
   char canon[PATH_MAX];
   const struct fake *fk = fake_find(path, true, canon, sizeof(canon));
   static char node_name[32];
   snprintf(node_name, sizeof(node_name), "renderD%d", shim_node);
   bool is_devdri = given(path) && (strcmp(path, "/dev/dri") == 0 || strcmp(path, "/dev/dri/") == 0);
   if (!is_devdri && !(fk && fk->type == N_DIR))
      return shim_real.opendir(path);
   struct shim_dir *sd = calloc(1, sizeof(*sd));
   if (!sd)
      return NULL;
   if (is_devdri) {
      sd->real = shim_real.opendir(path);   /* may be NULL: no /dev/dri */
      sd->names[sd->count++] = node_name;
   } else if (strcmp(fk->path, DEVDIR "/drm") == 0) {
      sd->names[sd->count++] = node_name;
   } else if (strcmp(fk->path, render_dir) == 0) {
      sd->names[sd->count++] = "uevent";
      sd->names[sd->count++] = "device";
      sd->names[sd->count++] = "subsystem";
   } else {
      sd->names[sd->count++] = "uevent";
      sd->names[sd->count++] = "subsystem";
      sd->names[sd->count++] = "drm";
   }
   return dir_register(sd);
}

static struct dirent *
readdir_common(void *d)
{
   shim_init();
   struct shim_dir *sd = dir_lookup(d);
   if (!sd)
      return shim_real.readdir(d);
   if (sd->real) {
      struct dirent *e = shim_real.readdir(sd->real);
      /* a real node of the same name hides ours */
      if (e) {
         for (unsigned i = 0; i < sd->count; i++)
            if (strcmp(e->d_name, sd->names[i]) == 0)
               sd->injected = true;
         return e;
      }
      if (sd->injected)
         return NULL;
   }
   if (sd->pos >= sd->count)
      return NULL;
   memset(&sd->ent, 0, sizeof(sd->ent));
   sd->ent.d_ino = 0x5f5f1000u + sd->pos;
   sd->ent.d_type = sd->real ? DT_CHR : DT_UNKNOWN;
   snprintf(sd->ent.d_name, sizeof(sd->ent.d_name), "%s", sd->names[sd->pos++]);
   return &sd->ent;
}

EXPORT struct dirent *
readdir(DIR *d)
{
   return readdir_common(d);
}

EXPORT struct dirent64 *
readdir64(DIR *d)
{
   /* identical layouts on 64-bit glibc */
   return (struct dirent64 *)readdir_common(d);
}

EXPORT int
closedir(DIR *d)
{
   shim_init();
   struct shim_dir *sd = dir_lookup(d);
   if (!sd)
      return shim_real.closedir(d);
   pthread_mutex_lock(&dirs_lock);
   for (unsigned i = 0; i < MAX_DIRS; i++)
      if (dirs[i] == sd)
         dirs[i] = NULL;
   pthread_mutex_unlock(&dirs_lock);
   int r = sd->real ? shim_real.closedir(sd->real) : 0;
   free(sd);
   return r;
}

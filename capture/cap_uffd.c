/* SPDX-License-Identifier: MIT */
/*
 * Asynchronous userfaultfd write-protection and PAGEMAP_SCAN
 * (cap_uffd.h).
 *
 * The build's kernel headers may predate the interface (Debian bookworm's
 * linux-libc-dev is 6.1; UFFD_FEATURE_WP_ASYNC and PAGEMAP_SCAN are 6.7),
 * so the bits used here are declared below, copied from the kernel's
 * include/uapi/linux/userfaultfd.h and include/uapi/linux/fs.h: they are
 * stable ABI. A kernel without them refuses them at run time (UFFDIO_API
 * with an unknown feature: EINVAL; an unknown ioctl: ENOTTY) and the
 * caller falls back to mprotect.
 */
#include "capture/cap_uffd.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef UFFD_USER_MODE_ONLY
#define UFFD_USER_MODE_ONLY 1   /* Linux 5.11 */
#endif
#ifndef UFFD_FEATURE_WP_HUGETLBFS_SHMEM
#define UFFD_FEATURE_WP_HUGETLBFS_SHMEM (1 << 12)   /* Linux 5.19 */
#endif
#ifndef UFFD_FEATURE_WP_UNPOPULATED
#define UFFD_FEATURE_WP_UNPOPULATED (1 << 13)   /* Linux 6.4 */
#endif
#ifndef UFFD_FEATURE_WP_ASYNC
#define UFFD_FEATURE_WP_ASYNC (1 << 15)   /* Linux 6.7 */
#endif

/* PAGEMAP_SCAN (Linux 6.7, include/uapi/linux/fs.h), under our own names
 * so newer headers do not clash */
struct cap_page_region {
   uint64_t start, end, categories;
};
struct cap_pm_scan_arg {
   uint64_t size, flags, start, end, walk_end, vec, vec_len, max_pages;
   uint64_t category_inverted, category_mask, category_anyof_mask, return_mask;
};
#define CAP_PAGE_IS_WPALLOWED (1u << 0)
#define CAP_PAGE_IS_WRITTEN (1u << 1)
#define CAP_PM_SCAN_WP_MATCHING (1u << 0)
#define CAP_PM_SCAN_CHECK_WPASYNC (1u << 1)
#define CAP_PAGEMAP_SCAN _IOWR('f', 16, struct cap_pm_scan_arg)

void
cap_uffd_close(struct cap_uffd *u)
{
   if (u->uffd >= 0)
      close(u->uffd);
   if (u->pagemap >= 0)
      close(u->pagemap);
   u->uffd = u->pagemap = -1;
}

int
cap_uffd_open(struct cap_uffd *u)
{
   u->uffd = u->pagemap = -1;
   /* user-mode faults only: what unprivileged processes may ask for when
    * vm.unprivileged_userfaultfd is 0 (the default); our faults are
    * the program's own writes */
   int fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK | UFFD_USER_MODE_ONLY);
   if (fd < 0)
      return -errno;
   u->uffd = fd;
   struct uffdio_api api = { .api = UFFD_API,
                             .features = UFFD_FEATURE_WP_ASYNC | UFFD_FEATURE_WP_UNPOPULATED |
                                         UFFD_FEATURE_WP_HUGETLBFS_SHMEM };
   int r = ioctl(fd, UFFDIO_API, &api);
   if (r != 0 || (api.features & UFFD_FEATURE_WP_ASYNC) == 0) {
      int e = r != 0 ? errno : EINVAL;
      cap_uffd_close(u);
      return -e;
   }
   u->pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
   if (u->pagemap < 0) {
      int e = errno;
      cap_uffd_close(u);
      return -e;
   }
   return 0;
}

/* Pages of [s, s + len) that PAGEMAP_SCAN sees as write-protectable by
 * async userfaultfd. With WP_ASYNC the kernel registers any memory type,
 * but its page walk skips VM_PFNMAP mappings (device memory, e.g. a DRM
 * driver inserting PFNs): such a mapping would be registered and yet
 * never report a write, so it must not count as tracked. */
static long
wp_allowed_pages(const struct cap_uffd *u, uint64_t s, size_t len)
{
   uint64_t e = s + len;
   long page = sysconf(_SC_PAGESIZE), pages = 0;
   struct cap_page_region regs[16];
   while (s < e) {
      struct cap_pm_scan_arg a = {
         .size = sizeof(a), .start = s, .end = e,
         .vec = (uintptr_t)regs, .vec_len = sizeof(regs) / sizeof(regs[0]),
         .category_mask = CAP_PAGE_IS_WPALLOWED, .return_mask = CAP_PAGE_IS_WPALLOWED,
      };
      long n = ioctl(u->pagemap, CAP_PAGEMAP_SCAN, &a);
      if (n < 0)
         return -errno;
      for (long i = 0; i < n; i++)
         pages += (long)((regs[i].end - regs[i].start) / (uint64_t)page);
      if (a.walk_end <= s)
         break;
      s = a.walk_end;
   }
   return pages;
}

int
cap_uffd_track(const struct cap_uffd *u, void *addr, size_t len)
{
   if (u->uffd < 0)
      return -EBADF;
   struct uffdio_register reg = { .range = { (uintptr_t)addr, len },
                                  .mode = UFFDIO_REGISTER_MODE_WP };
   if (ioctl(u->uffd, UFFDIO_REGISTER, &reg) != 0)
      return -errno;
   struct uffdio_writeprotect wp = { .range = { (uintptr_t)addr, len },
                                     .mode = UFFDIO_WRITEPROTECT_MODE_WP };
   int e = 0;
   if (ioctl(u->uffd, UFFDIO_WRITEPROTECT, &wp) != 0)
      e = errno;
   else if (wp_allowed_pages(u, (uintptr_t)addr, len) != (long)(len / (size_t)sysconf(_SC_PAGESIZE)))
      e = ENOTSUP;
   if (e) {
      /* also removes the protection */
      struct uffdio_range r = { (uintptr_t)addr, len };
      ioctl(u->uffd, UFFDIO_UNREGISTER, &r);
      return -e;
   }
   return 0;
}

long
cap_uffd_scan(const struct cap_uffd *u, void *addr, size_t len, bool strict,
              cap_uffd_written_fn fn, void *ctx)
{
   if (u->pagemap < 0)
      return -EBADF;
   long page = sysconf(_SC_PAGESIZE);
   uint64_t s = (uintptr_t)addr, e = s + len;
   long pages = 0;
   struct cap_page_region regs[64];
   while (s < e) {
      struct cap_pm_scan_arg a = {
         .size = sizeof(a),
         /* CHECK_WPASYNC: an untracked range is an error, not "unwritten" */
         .flags = CAP_PM_SCAN_WP_MATCHING | (strict ? CAP_PM_SCAN_CHECK_WPASYNC : 0),
         .start = s, .end = e,
         .vec = (uintptr_t)regs, .vec_len = sizeof(regs) / sizeof(regs[0]),
         .category_mask = CAP_PAGE_IS_WRITTEN, .return_mask = CAP_PAGE_IS_WRITTEN,
      };
      long n = ioctl(u->pagemap, CAP_PAGEMAP_SCAN, &a);
      if (n < 0) {
         if (errno == EINTR)
            continue;
         return -errno;
      }
      for (long i = 0; i < n; i++) {
         pages += (long)((regs[i].end - regs[i].start) / (uint64_t)page);
         if (fn)
            fn(ctx, (uintptr_t)regs[i].start, (uintptr_t)regs[i].end);
      }
      if (a.walk_end <= s)
         return -EIO;   /* no progress: should not happen */
      s = a.walk_end;
   }
   return pages;
}

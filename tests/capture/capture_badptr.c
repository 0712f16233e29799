/* SPDX-License-Identifier: MIT */
/*
 * Bad pointers in the ioctls the capture layer reads (capture_badptr.sh):
 * the layer copies a SUBMIT's argument, command buffer and syncs and a
 * VM_BIND's ops from the program's pointers before the kernel sees them,
 * and must answer a pointer the kernel would refuse (EFAULT) the way the
 * kernel does, never crash (capture/cap_crash.c, cap_copy_from_user: a
 * plain copy whose read fault the layer's handler turns into a failure).
 * Each pointer below is an unreadable page (PROT_NONE) or unmapped
 * memory; then a real submission must still work and be recorded.
 * Prints "capture_badptr: ok" and exits 0 when every call failed with
 * EFAULT (or, for the syncs, any error) and the last one succeeded.
 *
 *   capture_badptr
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <xf86drm.h>

#include "tests/lib/tu_dev.h"

static int failures;

static void
expect_fail(const char *what, int r, int want_errno)
{
   int e = errno;
   if (r != -1 || (want_errno && e != want_errno)) {
      fprintf(stderr, "capture_badptr: %s: returned %d, errno %d (%s)\n", what, r, e,
              strerror(e));
      failures++;
   }
}

int
main(int argc, char **argv)
{
   (void)argc;
   struct tu_dev d;
   tu_open(&d, argv, 1u << 20);
   long pg = sysconf(_SC_PAGESIZE);
   /* an unreadable page, and a page that was mapped and no longer is */
   uint8_t *none = mmap(NULL, (size_t)pg, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
   uint8_t *gone = mmap(NULL, (size_t)pg, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
   if (none == MAP_FAILED || gone == MAP_FAILED || munmap(gone, (size_t)pg))
      return 3;

   errno = 0;
   expect_fail("SUBMIT argument unreadable", ioctl(d.fd, DRM_IOCTL_ASAHI_SUBMIT, none), EFAULT);
   errno = 0;
   expect_fail("SUBMIT argument unmapped", ioctl(d.fd, DRM_IOCTL_ASAHI_SUBMIT, gone), EFAULT);

   /* the argument straddles the end of a readable page */
   uint8_t *two = mmap(NULL, 2 * (size_t)pg, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
   if (two == MAP_FAILED || mprotect(two + pg, (size_t)pg, PROT_NONE))
      return 3;
   errno = 0;
   expect_fail("SUBMIT argument straddling", ioctl(d.fd, DRM_IOCTL_ASAHI_SUBMIT, two + pg - 8),
               EFAULT);

   struct drm_asahi_submit s;
   memset(&s, 0, sizeof(s));
   s.queue_id = d.queue;
   s.cmdbuf = (uintptr_t)none;
   s.cmdbuf_size = 64;
   errno = 0;
   expect_fail("SUBMIT command buffer unreadable", ioctl(d.fd, DRM_IOCTL_ASAHI_SUBMIT, &s), EFAULT);
   s.cmdbuf = (uintptr_t)(two + pg - 32);   /* readable start, unreadable end */
   errno = 0;
   expect_fail("SUBMIT command buffer straddling", ioctl(d.fd, DRM_IOCTL_ASAHI_SUBMIT, &s), EFAULT);

   /* syncs unreadable (the command buffer is readable but not valid: any
    * error will do, as long as nobody crashes) */
   memset(two, 0, 64);
   s.cmdbuf = (uintptr_t)two;
   s.syncs = (uintptr_t)gone;
   s.out_sync_count = 1;
   errno = 0;
   expect_fail("SUBMIT syncs unmapped", ioctl(d.fd, DRM_IOCTL_ASAHI_SUBMIT, &s), 0);

   struct drm_asahi_vm_bind b;
   memset(&b, 0, sizeof(b));
   b.vm_id = d.vm;
   b.num_binds = 1;
   b.stride = sizeof(struct drm_asahi_gem_bind_op);
   b.userptr = (uintptr_t)none;
   errno = 0;
   expect_fail("VM_BIND ops unreadable", ioctl(d.fd, DRM_IOCTL_ASAHI_VM_BIND, &b), EFAULT);

   /* and the program goes on: a real submission, recorded */
   struct tu_saxpy sx;
   tu_saxpy_init(&d, &sx, 256);
   uint32_t out;
   if (drmSyncobjCreate(d.fd, 0, &out))
      return 3;
   if (tu_saxpy_submit(&d, &sx, d.queue, 2.0f, out, 0) || tu_wait(&d, out)) {
      fprintf(stderr, "capture_badptr: the real submission failed\n");
      failures++;
   }
   tu_frame("badptr");
   tu_close(&d);
   if (!failures)
      printf("capture_badptr: ok\n");
   return failures ? 1 : 0;
}

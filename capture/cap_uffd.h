/* SPDX-License-Identifier: MIT */
/*
 * Change tracking by asynchronous userfaultfd write-protection (the "wp"
 * memory strategy's preferred mechanism, docs/capture.md): a range of a
 * mapping is registered with an unprivileged userfaultfd
 * (UFFD_USER_MODE_ONLY, Linux >= 5.11) in UFFD_FEATURE_WP_ASYNC mode
 * (Linux >= 6.7) and write-protected; a write to a protected page is
 * resolved by the kernel itself (no signal, no system call of ours) and
 * leaves the page "written"; PAGEMAP_SCAN on /proc/self/pagemap with
 * PM_SCAN_WP_MATCHING returns the written pages of a range and protects
 * them again in the same call.
 *
 * Process-independent (unit tested, tests/unit/test_capture.c). Nothing
 * here is async-signal-safe but cap_uffd_close(). The descriptors are
 * per process: a forked child must close and open again (the inherited
 * userfaultfd and /proc/self/pagemap refer to the parent's memory).
 */
#ifndef CAP_UFFD_H
#define CAP_UFFD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cap_uffd {
   int uffd;      /* -1 when closed */
   int pagemap;   /* /proc/self/pagemap as of cap_uffd_open(); -1 when closed */
};

#define CAP_UFFD_CLOSED { -1, -1 }

/* Opens the userfaultfd (close-on-exec) and negotiates WP_ASYNC and
 * WP_UNPOPULATED, and opens /proc/self/pagemap. 0, or -errno with *u
 * closed: no userfaultfd (seccomp, CONFIG_USERFAULTFD=n: ENOSYS/EPERM),
 * a kernel without the features (EINVAL), no /proc (ENOENT). */
int cap_uffd_open(struct cap_uffd *u);
void cap_uffd_close(struct cap_uffd *u);

/* Registers [addr, addr + len) (page aligned, one or more whole
 * mappings) for write-protect tracking and protects every page, also the
 * ones not populated yet. 0, or -errno with the range left as it was:
 * EBUSY when another userfaultfd tracks part of it (the program's own),
 * EPERM when it cannot be made writable, ENOTSUP when the kernel accepts
 * it but PAGEMAP_SCAN would not see its writes (VM_PFNMAP device memory,
 * which a DRM driver may map its objects as). */
int cap_uffd_track(const struct cap_uffd *u, void *addr, size_t len);

/* Called for each run [start, end) of pages written since the last scan */
typedef void (*cap_uffd_written_fn)(void *ctx, uintptr_t start, uintptr_t end);

/* Finds the pages of [addr, addr + len) written since they were last
 * protected, protects them again (atomically with finding them: a write
 * after this call is found by the next one) and calls fn (may be NULL)
 * for each run, after protecting it. strict: every mapping of the range
 * must be tracked, else -EPERM (a mapping that lost its registration is
 * an error, not "nothing written"); not strict: untracked mappings in the
 * range are skipped (one call over the span of many tracked mappings).
 * The number of pages written, or -errno (then some runs may already have
 * been reported and protected). */
long cap_uffd_scan(const struct cap_uffd *u, void *addr, size_t len, bool strict,
                   cap_uffd_written_fn fn, void *ctx);

#endif

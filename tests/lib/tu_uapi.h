/* SPDX-License-Identifier: MIT */
/*
 * tu_uapi: the Asahi uAPI the way tessera's test programs, examples and
 * benchmarks drive it by hand -- finding the render node (or re-executing
 * on the shim), GEM objects, VM binds and one-command submissions. Part of
 * the test library (tests/lib, library testuapi); nothing here is shipped.
 *
 * CONTRACT
 * - Every call takes the node's fd and returns 0 or -errno (tu_gem_map:
 *   the mapping or MAP_FAILED with errno set); none exits or asserts, so
 *   cmocka tests and plain programs check results their own way.
 * - tu_reexec_with_shim() returns only when it cannot re-execute (no shim
 *   beside the binary, or already re-executed: `guard_env` is set).
 */
#ifndef TU_UAPI_H
#define TU_UAPI_H

#include <stddef.h>
#include <stdint.h>

#include "drm-uapi/asahi_drm.h"

/* Opens the first render node whose driver is "asahi" (O_RDWR |
 * O_CLOEXEC) and copies its path to path (if not NULL). -1 if none. */
int tu_open_node(char *path, size_t len);

/* Runs this program again with <top>/build/release/lib/tessera-shim.so
 * preloaded (ASan's runtime first in a sanitizer build, as ASan requires),
 * for a binary in <top>/build/<variant>/<dir>/. */
void tu_reexec_with_shim(char **argv, const char *guard_env);

int tu_ioctl(int fd, unsigned long cmd, void *arg);
int tu_gem_create(int fd, uint64_t size, uint32_t flags, uint32_t vm, uint32_t *handle);
void *tu_gem_map(int fd, uint32_t handle, uint64_t size);
/* One VM_BIND operation (flags: DRM_ASAHI_BIND_*). */
int tu_vm_bind(int fd, uint32_t vm, uint32_t handle, uint64_t addr, uint64_t range,
               uint32_t flags);
/* SUBMIT of one command (no barriers) signalling syncobj `out` (0: none). */
int tu_submit1(int fd, uint32_t queue, uint16_t type, const void *cmd, uint16_t size,
               uint32_t out);

#endif

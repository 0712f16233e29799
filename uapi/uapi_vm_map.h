/* SPDX-License-Identifier: MIT */
/*
 * uapi_vm_map: one GPU VM's mappings as VM_BIND leaves them, kept the way
 * the kernel keeps them (drm_gpuvm): binding over mapped VA replaces what
 * was there and unbinding may split a mapping in two. The capture layer,
 * the trace reader and replay each follow a program's VMs through it.
 *
 * CONTRACT
 * - The mappings are sorted by address and never overlap; m[0..count) may
 *   be read directly (the order is stable: callers write and snapshot in
 *   it).
 * - A mapping keeps the bind's flags, object and offset. A piece cut off
 *   the front of a mapping keeps its offset; a piece after a cut starts
 *   that much further into the object, unless the mapping is
 *   DRM_ASAHI_BIND_SINGLE_PAGE (one page repeated: every piece starts at
 *   the same offset).
 * - `handle` is the caller's name for the object (a GEM handle, or any
 *   32-bit id: the map never interprets it).
 * - A range whose (exclusive) end wraps, that is reaches 2^64, is -EINVAL
 *   and a failed allocation -ENOMEM; either leaves the map unchanged. A zero range changes nothing.
 *   Nothing else is checked (alignment, the VA window): what reaches the
 *   map is what a kernel accepted.
 * - No global state; a map is thread compatible.
 */
#ifndef TESSERA_UAPI_VM_MAP_H
#define TESSERA_UAPI_VM_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "drm-uapi/asahi_drm.h"

struct uapi_mapping {
   uint64_t addr, range;   /* GPU VA */
   uint32_t handle;        /* the object (the caller's id) */
   uint32_t flags;         /* drm_asahi_bind_flags (READ/WRITE/SINGLE_PAGE) */
   uint64_t offset;        /* byte offset into the object */
};

struct uapi_vm_map {
   struct uapi_mapping *m; /* sorted by addr, non-overlapping */
   size_t count, cap;
};

/* Maps [addr, addr + range) to `handle` at `offset`, replacing whatever
 * the range held. 0, -EINVAL or -ENOMEM. */
int uapi_vm_map_bind(struct uapi_vm_map *map, uint64_t addr, uint64_t range,
                     uint32_t handle, uint64_t offset, uint32_t flags);
/* Unmaps [addr, addr + range), splitting mappings at its edges. */
int uapi_vm_map_unbind(struct uapi_vm_map *map, uint64_t addr, uint64_t range);
/* One drm_asahi_gem_bind_op: an unbind with DRM_ASAHI_BIND_UNBIND, else a bind. */
int uapi_vm_map_apply(struct uapi_vm_map *map, const struct drm_asahi_gem_bind_op *op);

/* The mapping that holds va, or NULL. */
const struct uapi_mapping *uapi_vm_map_find(const struct uapi_vm_map *map, uint64_t va);

/* The GPU page: the unit binds are aligned to and the one page a
 * SINGLE_PAGE mapping repeats (16 KiB on every AGX this uAPI serves; not
 * the trace's 4 KiB TSR_PAGE_SIZE). */
#define UAPI_VM_PAGE_SIZE 16384ull

/* Byte offset into the mapping's object of va (which it must hold), and
 * how many bytes from there stay in the mapping and, for a single-page
 * mapping, in the repeated page. */
uint64_t uapi_mapping_offset(const struct uapi_mapping *m, uint64_t va, uint64_t *avail);

/* Drops every mapping of `handle` (GEM_CLOSE: the kernel unbinds it). */
void uapi_vm_map_drop_handle(struct uapi_vm_map *map, uint32_t handle);
/* Drops every mapping, keeping the storage (VM_CREATE, VM_DESTROY). */
void uapi_vm_map_clear(struct uapi_vm_map *map);
void uapi_vm_map_free(struct uapi_vm_map *map);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * The VM mapping list (uapi_vm_map.h): a sorted array. VMs hold tens of
 * mappings, so a bind's O(n) memmove costs less than a tree would, and
 * lookups are a binary search.
 */
#include "uapi/uapi_vm_map.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int
reserve(struct uapi_vm_map *map, size_t n)
{
   if (map->count + n <= map->cap)
      return 0;
   size_t cap = map->cap ? map->cap * 2 : 16;
   while (cap < map->count + n)
      cap *= 2;
   struct uapi_mapping *m = realloc(map->m, cap * sizeof(*m));
   if (!m)
      return -ENOMEM;
   map->m = m;
   map->cap = cap;
   return 0;
}

/* Index of the first mapping that ends after addr. */
static size_t
first_after(const struct uapi_vm_map *map, uint64_t addr)
{
   size_t lo = 0, hi = map->count;
   while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if (map->m[mid].addr + map->m[mid].range <= addr)
         lo = mid + 1;
      else
         hi = mid;
   }
   return lo;
}

/* Removes [a, e) and leaves room for `extra` mappings at the returned
 * index, where the range starts. Storage must already be reserved for
 * one split plus `extra`. */
static size_t
cut(struct uapi_vm_map *map, uint64_t a, uint64_t e, size_t extra)
{
   size_t i = first_after(map, a), j = i;
   struct uapi_mapping head = { 0 }, tail = { 0 };
   bool have_head = false, have_tail = false;
   for (; j < map->count && map->m[j].addr < e; j++) {
      const struct uapi_mapping *m = &map->m[j];
      uint64_t me = m->addr + m->range;
      if (m->addr < a) {
         head = *m;
         head.range = a - m->addr;
         have_head = true;
      }
      if (me > e) {
         tail = *m;
         tail.addr = e;
         tail.range = me - e;
         if (!(m->flags & DRM_ASAHI_BIND_SINGLE_PAGE))
            tail.offset = m->offset + (e - m->addr);
         have_tail = true;
      }
   }
   /* m[i..j) overlapped; they become head, `extra` free slots, tail. */
   size_t keep = (have_head ? 1 : 0) + extra + (have_tail ? 1 : 0);
   memmove(&map->m[i + keep], &map->m[j], (map->count - j) * sizeof(map->m[0]));
   map->count = map->count - (j - i) + keep;
   if (have_head)
      map->m[i++] = head;
   if (have_tail)
      map->m[i + extra] = tail;
   return i;
}

int
uapi_vm_map_bind(struct uapi_vm_map *map, uint64_t addr, uint64_t range,
                 uint32_t handle, uint64_t offset, uint32_t flags)
{
   if (addr + range < addr)
      return -EINVAL;
   if (!range)
      return 0;
   /* worst case: one mapping split in two plus the new one */
   if (reserve(map, 2))
      return -ENOMEM;
   size_t at = cut(map, addr, addr + range, 1);
   map->m[at] = (struct uapi_mapping){ .addr = addr, .range = range, .handle = handle,
                                       .flags = flags, .offset = offset };
   return 0;
}

int
uapi_vm_map_unbind(struct uapi_vm_map *map, uint64_t addr, uint64_t range)
{
   if (addr + range < addr)
      return -EINVAL;
   if (!range)
      return 0;
   if (reserve(map, 1))
      return -ENOMEM;
   cut(map, addr, addr + range, 0);
   return 0;
}

int
uapi_vm_map_apply(struct uapi_vm_map *map, const struct drm_asahi_gem_bind_op *op)
{
   if (op->flags & DRM_ASAHI_BIND_UNBIND)
      return uapi_vm_map_unbind(map, op->addr, op->range);
   return uapi_vm_map_bind(map, op->addr, op->range, op->handle, op->offset, op->flags);
}

const struct uapi_mapping *
uapi_vm_map_find(const struct uapi_vm_map *map, uint64_t va)
{
   size_t i = first_after(map, va);
   if (i < map->count && map->m[i].addr <= va)
      return &map->m[i];
   return NULL;
}

uint64_t
uapi_mapping_offset(const struct uapi_mapping *m, uint64_t va, uint64_t *avail)
{
   uint64_t in = va - m->addr;
   if (m->flags & DRM_ASAHI_BIND_SINGLE_PAGE) {   /* one page, repeated */
      uint64_t in_page = in & (UAPI_VM_PAGE_SIZE - 1);
      uint64_t left = m->range - in;
      *avail = UAPI_VM_PAGE_SIZE - in_page < left ? UAPI_VM_PAGE_SIZE - in_page : left;
      return m->offset + in_page;
   }
   *avail = m->range - in;
   return m->offset + in;
}

void
uapi_vm_map_drop_handle(struct uapi_vm_map *map, uint32_t handle)
{
   size_t out = 0;
   for (size_t i = 0; i < map->count; i++)
      if (map->m[i].handle != handle)
         map->m[out++] = map->m[i];
   map->count = out;
}

void
uapi_vm_map_clear(struct uapi_vm_map *map)
{
   map->count = 0;
}

void
uapi_vm_map_free(struct uapi_vm_map *map)
{
   free(map->m);
   memset(map, 0, sizeof(*map));
}

/* SPDX-License-Identifier: MIT */
/*
 * The capture layer's copy of each VM's mappings, kept the way the kernel
 * keeps them (drm_gpuvm): a bind replaces whatever it overlaps and an
 * unbind may split a mapping in two. The layer needs it to know which
 * objects a submission can read (and write) without asking the kernel.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "capture/capture.h"

static int
reserve(struct cap_vm_map *map, size_t n)
{
   if (map->count + n <= map->cap)
      return 0;
   size_t cap = map->cap ? map->cap * 2 : 16;
   while (cap < map->count + n)
      cap *= 2;
   struct cap_mapping *m = realloc(map->m, cap * sizeof(*m));
   if (!m)
      return -ENOMEM;
   map->m = m;
   map->cap = cap;
   return 0;
}

int
cap_vm_map_apply(struct cap_vm_map *map, const struct drm_asahi_gem_bind_op *op)
{
   const uint64_t a = op->addr, e = op->addr + op->range;
   /* worst case: one split into two plus the new mapping */
   if (reserve(map, 2))
      return -ENOMEM;
   size_t out = 0;
   struct cap_mapping tail = { 0 };
   bool have_tail = false;
   for (size_t i = 0; i < map->count; i++) {
      struct cap_mapping m = map->m[i];
      uint64_t me = m.addr + m.range;
      if (me <= a || m.addr >= e) {
         map->m[out++] = m;
         continue;
      }
      if (m.addr < a) {   /* keep the head */
         struct cap_mapping h = m;
         h.range = a - m.addr;
         map->m[out++] = h;
      }
      if (me > e) {       /* keep the tail (after the loop: order) */
         tail = m;
         tail.addr = e;
         tail.range = me - e;
         if (!(m.flags & DRM_ASAHI_BIND_SINGLE_PAGE))
            tail.offset = m.offset + (e - m.addr);
         have_tail = true;
      }
   }
   map->count = out;
   size_t pos = 0;
   while (pos < map->count && map->m[pos].addr < a)
      pos++;
   size_t ins = (have_tail ? 1 : 0) + (!(op->flags & DRM_ASAHI_BIND_UNBIND) ? 1 : 0);
   memmove(&map->m[pos + ins], &map->m[pos], (map->count - pos) * sizeof(map->m[0]));
   if (!(op->flags & DRM_ASAHI_BIND_UNBIND)) {
      map->m[pos++] = (struct cap_mapping){
         .addr = a, .range = op->range, .handle = op->handle,
         .flags = op->flags, .offset = op->offset,
      };
   }
   if (have_tail)
      map->m[pos] = tail;
   map->count += ins;
   return 0;
}

void
cap_vm_map_drop_handle(struct cap_vm_map *map, uint32_t handle)
{
   size_t out = 0;
   for (size_t i = 0; i < map->count; i++)
      if (map->m[i].handle != handle)
         map->m[out++] = map->m[i];
   map->count = out;
}

void
cap_vm_map_free(struct cap_vm_map *map)
{
   free(map->m);
   memset(map, 0, sizeof(*map));
}

/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target over uapi/: the input is walked as a SUBMIT command
 * buffer (every yielded command and attachment read, the walk must end at
 * the end or at reported damage), and replayed as VM_BIND ops on a VM map
 * checked after every op against a page-by-page model: sorted,
 * non-overlapping, and every page mapped to what the last bind over it
 * said, at the offset that bind implies. A mismatch aborts.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "uapi/uapi_cmdbuf.h"
#include "uapi/uapi_vm_map.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define PAGE UAPI_VM_PAGE_SIZE
#define PAGES 64

static void
walk(const uint8_t *data, size_t size)
{
   struct uapi_cmd_iter it;
   struct uapi_cmd c;
   uint64_t sink = 0;   /* reads every byte the walker hands out (ASan checks them) */
   uapi_cmd_iter_init(&it, data, size);
   while (uapi_cmd_next(&it, &c)) {
      sink += c.u.render.vdm_ctrl_stream_base + c.h.size;
      if (c.h.size)
         sink += c.payload[c.h.size - 1];
      for (uint32_t i = 0; i < uapi_cmd_attachment_count(&c); i++)
         sink += uapi_cmd_attachment(&c, i).size;
   }
   if (it.status == UAPI_CMDBUF_OK || (it.status == UAPI_CMDBUF_END && it.pos != size) ||
       it.pos > size || (sink == 1 && size == 0))
      abort();
}

struct page {
   uint32_t handle, flags;
   uint64_t offset;   /* of this page in the object */
   uint64_t first;    /* single page: the bind's offset */
   int mapped;
};

static void
check(const struct uapi_vm_map *m, const struct page *ref)
{
   for (size_t i = 0; i < m->count; i++) {
      if (!m->m[i].range)
         abort();
      if (i && m->m[i - 1].addr + m->m[i - 1].range > m->m[i].addr)
         abort();
   }
   for (unsigned p = 0; p < PAGES; p++) {
      const struct uapi_mapping *x = uapi_vm_map_find(m, p * PAGE + 7);
      if (!x != !ref[p].mapped)
         abort();
      if (!x)
         continue;
      uint64_t avail;
      uint64_t off = uapi_mapping_offset(x, p * PAGE + 7, &avail);
      uint64_t want = (ref[p].flags & DRM_ASAHI_BIND_SINGLE_PAGE) ? ref[p].first + 7
                                                                  : ref[p].offset + 7;
      if (x->handle != ref[p].handle || x->flags != ref[p].flags || off != want || !avail)
         abort();
   }
}

static void
bind_ops(const uint8_t *data, size_t size)
{
   struct uapi_vm_map m = { 0 };
   struct page ref[PAGES];
   memset(ref, 0, sizeof(ref));
   for (size_t pos = 0; pos + 4 <= size; pos += 4) {
      const uint8_t *o = data + pos;
      uint32_t flags = (o[0] & 1) ? DRM_ASAHI_BIND_UNBIND
                                  : DRM_ASAHI_BIND_READ | ((o[0] & 2) ? DRM_ASAHI_BIND_SINGLE_PAGE : 0);
      uint32_t handle = o[0] >> 4;
      uint64_t first = o[1] % PAGES, n = o[2] % 16, off = o[3];
      if (first + n > PAGES)
         n = PAGES - first;
      struct drm_asahi_gem_bind_op op = { .flags = flags, .handle = handle,
                                          .offset = off * PAGE, .range = n * PAGE,
                                          .addr = first * PAGE };
      if (uapi_vm_map_apply(&m, &op))
         abort();
      for (uint64_t p = first; p < first + n; p++)
         ref[p] = (flags & DRM_ASAHI_BIND_UNBIND)
                     ? (struct page){ 0 }
                     : (struct page){ handle, flags, (off + p - first) * PAGE, off * PAGE, 1 };
      check(&m, ref);
   }
   /* a wrapping range is refused without a change */
   struct drm_asahi_gem_bind_op wrap = { .flags = DRM_ASAHI_BIND_UNBIND, .addr = PAGE,
                                         .range = UINT64_MAX };
   if (uapi_vm_map_apply(&m, &wrap) == 0)
      abort();
   check(&m, ref);
   uapi_vm_map_drop_handle(&m, 3);
   for (unsigned p = 0; p < PAGES; p++)
      if (ref[p].mapped && ref[p].handle == 3)
         ref[p] = (struct page){ 0 };
   check(&m, ref);
   uapi_vm_map_free(&m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
   walk(data, size);
   bind_ops(data, size);
   return 0;
}

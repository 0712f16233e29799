/* SPDX-License-Identifier: MIT */
/*
 * Small id allocator for per-file handles: ids start at 1 (0 is never a
 * valid DRM handle) and are the lowest free slot, as idr_alloc() gives.
 */
#include <errno.h>

#include "kernel/asahi_priv.h"

/* Bounds the tables a hostile caller can make us grow. */
#define ASAHI_IDR_MAX (1u << 20)

int
asahi_idr_alloc(struct asahi_idr *idr, void *p, uint32_t *id)
{
   for (uint32_t i = 0; i < idr->cap; i++) {
      if (!idr->slots[i]) {
         idr->slots[i] = p;
         *id = i + 1;
         return 0;
      }
   }
   if (idr->cap >= ASAHI_IDR_MAX)
      return -ENOSPC;
   uint32_t ncap = idr->cap ? idr->cap * 2 : 16;
   void **n = os_realloc_array(idr->slots, ncap, sizeof(void *));
   if (!n)
      return -ENOMEM;
   for (uint32_t i = idr->cap; i < ncap; i++)
      n[i] = NULL;
   idr->slots = n;
   n[idr->cap] = p;
   *id = idr->cap + 1;
   idr->cap = ncap;
   return 0;
}

void *
asahi_idr_find(struct asahi_idr *idr, uint32_t id)
{
   if (id == 0 || id > idr->cap)
      return NULL;
   return idr->slots[id - 1];
}

void *
asahi_idr_remove(struct asahi_idr *idr, uint32_t id)
{
   void *p = asahi_idr_find(idr, id);
   if (p)
      idr->slots[id - 1] = NULL;
   return p;
}

void *
asahi_idr_next(struct asahi_idr *idr, uint32_t *id)
{
   while (*id < idr->cap) {
      void *p = idr->slots[(*id)++];
      if (p)
         return p;
   }
   return NULL;
}

void
asahi_idr_fini(struct asahi_idr *idr)
{
   os_free(idr->slots);
   idr->slots = NULL;
   idr->cap = 0;
}

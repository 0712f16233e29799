/* SPDX-License-Identifier: MIT */
/*
 * A GPU address space made of borrowed host buffers: the simplest read
 * callback for the decoder. Reads may span adjacent ranges, as a real
 * mapping of consecutive buffers would allow.
 */
#include <stdlib.h>
#include <string.h>

#include "cmdstream/agx_decode.h"

void
agx_decode_mem_init(struct agx_decode_mem *mem)
{
   memset(mem, 0, sizeof(*mem));
}

void
agx_decode_mem_finish(struct agx_decode_mem *mem)
{
   free(mem->ranges);
   memset(mem, 0, sizeof(*mem));
}

bool
agx_decode_mem_add(struct agx_decode_mem *mem, uint64_t va, const void *data,
                   size_t size)
{
   if (size == 0 || va + size < va)
      return false;
   for (unsigned i = 0; i < mem->count; i++) {
      const struct agx_decode_mem_range *r = &mem->ranges[i];
      if (va < r->va + r->size && r->va < va + size)
         return false;
   }
   if (mem->count == mem->capacity) {
      unsigned cap = mem->capacity ? mem->capacity * 2 : 8;
      void *n = realloc(mem->ranges, cap * sizeof(*mem->ranges));
      if (!n)
         return false;
      mem->ranges = n;
      mem->capacity = cap;
   }
   mem->ranges[mem->count++] = (struct agx_decode_mem_range){
      .va = va, .size = size, .data = data,
   };
   return true;
}

static const struct agx_decode_mem_range *
find(const struct agx_decode_mem *mem, uint64_t va)
{
   for (unsigned i = 0; i < mem->count; i++) {
      const struct agx_decode_mem_range *r = &mem->ranges[i];
      if (va >= r->va && va - r->va < r->size)
         return r;
   }
   return NULL;
}

size_t
agx_decode_mem_read(void *ctx, uint64_t gpu_va, void *dst, size_t size)
{
   const struct agx_decode_mem *mem = ctx;
   uint8_t *out = dst;
   size_t done = 0;

   while (done < size) {
      uint64_t va = gpu_va + done;
      if (va < gpu_va)
         break; /* wrapped around the address space */
      const struct agx_decode_mem_range *r = find(mem, va);
      if (!r)
         break;
      size_t off = (size_t)(va - r->va);
      size_t n = r->size - off;
      if (n > size - done)
         n = size - done;
      memcpy(out + done, r->data + off, n);
      done += n;
   }
   return done;
}

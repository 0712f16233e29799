/* SPDX-License-Identifier: MIT */
/*
 * The CDM control stream: Launch, Stream Link (jump or call), Barrier
 * (optionally a return) and Stream Terminate blocks, fetched through the
 * CDM's own MMU view.  The block type is never picked out of the bits by
 * hand: a block is whichever generated unpack accepts it (each type's
 * Block Type field is a constant the unpack checks).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "hw/cdm/cdm_priv.h"

/* Loop detection: (va, call context) pairs seen since the last launch. A
 * stream that comes back to the same block in the same context without
 * launching anything in between can never terminate. */
#define SEEN_CAP 1024

struct seen {
   uint64_t va[SEEN_CAP];
   uint64_t ret[SEEN_CAP];
   uint8_t depth[SEEN_CAP];
   bool used[SEEN_CAP];
   unsigned count;
};

static void
seen_reset(struct seen *s)
{
   if (s->count)
      memset(s->used, 0, sizeof(s->used));
   s->count = 0;
}

/* False if (va, depth, ret) was already there. When the table is full the
 * block budget is the only bound left. */
static bool
seen_add(struct seen *s, uint64_t va, unsigned depth, uint64_t ret)
{
   if (s->count >= SEEN_CAP / 2)
      return true;
   uint64_t h = (va ^ (ret * 0x9e3779b97f4a7c15ull) ^ depth) * 0xff51afd7ed558ccdull;
   for (unsigned i = (unsigned)(h >> 40) % SEEN_CAP;; i = (i + 1) % SEEN_CAP) {
      if (!s->used[i]) {
         s->used[i] = true;
         s->va[i] = va;
         s->ret[i] = ret;
         s->depth[i] = (uint8_t)depth;
         s->count++;
         return true;
      }
      if (s->va[i] == va && s->ret[i] == ret && s->depth[i] == depth)
         return false;
   }
}

static bool
fetch(struct cdm_job *j, uint64_t va, void *dst, size_t size)
{
   if (hw_mmu_read(&j->cdm_mmu, va, dst, size))
      return true;
   if (j->cdm_mmu.fault.valid)
      return cdm_fault(j, &j->cdm_mmu.fault);
   /* soft faults never apply to the CDM, but stay safe */
   return cdm_error(j, "CDM stream at 0x%" PRIx64 " is unreadable", va);
}

bool
cdm_run_stream(struct cdm_job *j)
{
   const struct agx_fw_compute_payload *p = j->job->compute;
   uint64_t va = p->cdm_stream_base;
   uint64_t stack[HW_CDM_MAX_CALL_DEPTH];
   unsigned depth = 0;
   struct seen *seen = calloc(1, sizeof(*seen));
   bool ok = false;

   if (!seen)
      return cdm_error(j, "out of memory");
   if (va == 0) {
      cdm_error(j, "CDM stream base is 0");
      goto out;
   }

   for (;;) {
      if (j->stats.blocks >= HW_CDM_MAX_BLOCKS) {
         cdm_error(j, "CDM stream exceeds %u blocks (at 0x%" PRIx64 ")",
                   HW_CDM_MAX_BLOCKS, va);
         goto out;
      }
      if ((j->stats.blocks & 63) == 0 && cdm_should_stop(j))
         goto out;
      if (!seen_add(seen, va, depth, depth ? stack[depth - 1] : 0)) {
         cdm_error(j, "CDM stream loops: block 0x%" PRIx64 " reached again "
                   "without a launch", va);
         goto out;
      }
      j->stats.blocks++;
      j->cycles += HW_CDM_BLOCK_CYCLES;

      uint8_t b[8];
      if (!fetch(j, va, b, 4))
         goto out;

      struct agx_cdm_launch_word_0 w0;
      struct agx_cdm_barrier bar;
      if (agx_cdm_launch_word_0_unpack(b, &w0)) {
         size_t size;
         if (!cdm_launch(j, va, &size))
            goto out;
         va += size;
         seen_reset(seen);
         continue;
      }
      if (agx_cdm_barrier_unpack(b, &bar)) {
         /* Launches already ran to completion one after the other, so
          * memory is ordered; the barrier ends the timing segment. */
         j->stats.barriers++;
         cdm_end_segment(j);
         j->cycles += HW_CDM_BARRIER_CYCLES;
         if (bar.usc_cache_inval) {
            /* No workgroup is in flight between launches: drop every
             * compiled shader, as the hardware drops its I-cache. */
            hw_usc_cache_destroy(j->cdm->cache);
            j->cdm->cache = hw_usc_cache_create();
            j->stats.cache_invalidations++;
            if (!j->cdm->cache) {
               cdm_error(j, "out of memory");
               goto out;
            }
         }
         if (bar.returns) {
            if (depth == 0) {
               cdm_error(j, "CDM return at 0x%" PRIx64 " with an empty call "
                         "stack", va);
               goto out;
            }
            va = stack[--depth];
         } else {
            va += AGX_CDM_BARRIER_LENGTH;
         }
         continue;
      }

      if (!fetch(j, va + 4, b + 4, 4))
         goto out;
      struct agx_cdm_stream_link link;
      struct agx_cdm_stream_terminate term;
      if (agx_cdm_stream_terminate_unpack(b, &term)) {
         /* Also inside a called stream: it ends the whole job. */
         ok = true;
         goto out;
      }
      if (agx_cdm_stream_link_unpack(b, &link)) {
         uint64_t target = ((uint64_t)link.target_hi << 32) | link.target_lo;
         if (link.with_return) {
            if (depth >= HW_CDM_MAX_CALL_DEPTH) {
               cdm_error(j, "CDM call at 0x%" PRIx64 " nests deeper than %u",
                         va, HW_CDM_MAX_CALL_DEPTH);
               goto out;
            }
            stack[depth++] = va + AGX_CDM_STREAM_LINK_LENGTH;
         }
         va = target;
         continue;
      }
      uint32_t w[2];
      memcpy(w, b, sizeof(w));
      cdm_error(j, "malformed CDM block at 0x%" PRIx64 " (%08x %08x): not a "
                "Launch, Stream Link, Stream Terminate or Barrier", va, w[0],
                w[1]);
      goto out;
   }

out:
   free(seen);
   return ok;
}

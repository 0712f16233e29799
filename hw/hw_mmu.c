/* SPDX-License-Identifier: MIT */
/*
 * One unit's view of GPU memory: a direct-mapped TLB over hw_uat_walk().
 *
 * Only successful translations are cached, so a fault is re-walked every
 * time (the kernel may have fixed the mapping). Hits do not look at the
 * TLB generation: like the hardware, a unit may use a stale entry until
 * its next miss or job boundary, which is why the kernel only unmaps
 * pages of idle VMs.
 */
#include <string.h>

#include "hw/hw_priv.h"
#include "hw/hw_uat.h"

void
hw_mmu_init(struct hw_mmu *mmu, struct hw_device *dev, unsigned vm_slot,
            enum hw_unit unit)
{
   memset(mmu, 0, sizeof(*mmu));
   mmu->dev = dev;
   mmu->vm_slot = (uint8_t)vm_slot;
   mmu->unit = (uint8_t)unit;
   mmu->soft_faults = hw_device_soft_faults(dev);
   mmu->tlb_gen = hw_device_tlb_generation(dev);
}

static void
tlb_sync(struct hw_mmu *mmu)
{
   uint32_t gen = hw_device_tlb_generation(mmu->dev);
   if (gen != mmu->tlb_gen) {
      memset(mmu->tlb, 0, sizeof(mmu->tlb));
      mmu->tlb_gen = gen;
   }
}

void
hw_mmu_begin_job(struct hw_mmu *mmu)
{
   tlb_sync(mmu);
   memset(&mmu->fault, 0, sizeof(mmu->fault));
}

static void
record_fault(struct hw_mmu *mmu, uint64_t va, bool write, unsigned reason,
             unsigned level)
{
   if (mmu->fault.valid)
      return;
   mmu->fault = (struct hw_fault){
      .valid = true,
      .read = !write,
      .reason = (uint8_t)reason,
      .unit = mmu->unit,
      .vm_slot = mmu->vm_slot,
      .level = (uint8_t)level,
      .addr = va,
   };
   hw_latch_fault(mmu->dev, &mmu->fault);
}

static void
log_access(struct hw_mmu_log *l, uint64_t va, size_t size, bool write)
{
   if (l->n < HW_MMU_LOG_MAX) {
      l->r[l->n].va = va;
      l->r[l->n].size = size;
   }
   l->n++;
   l->write |= write;
}

/* Host address of the byte at va, or NULL: *soft tells a soft fault (no
 * record) from a hard one (recorded). */
static uint8_t *
translate(struct hw_mmu *mmu, uint64_t va, bool write, bool *soft)
{
   *soft = false;
   uint64_t vpn = (va >> HW_PAGE_SHIFT) + 1;
   struct hw_tlb_entry *e = &mmu->tlb[vpn % HW_TLB_ENTRIES], one;
   if (e->vpn != vpn) {
      /* a recording view caches nothing: every access reaches its log */
      if (mmu->log)
         e = &one;
      tlb_sync(mmu);
      struct hw_uat_walk w;
      hw_uat_walk(mmu->dev, mmu->vm_slot, va, &w);
      if (!w.ok) {
         /* Soft faults cover shader accesses to unmapped memory only
          * (the uAPI's SOFT_FAULTS); permission faults stay hard. */
         if (w.reason == HW_FAULT_UNMAPPED && mmu->soft_faults &&
             mmu->unit == HW_UNIT_USC) {
            *soft = true;
            return NULL;
         }
         record_fault(mmu, va, write, w.reason, w.level);
         return NULL;
      }
      e->vpn = vpn;
      e->host = hw_phys_to_host(mmu->dev, w.pa & ~(HW_PAGE_SIZE - 1),
                                HW_PAGE_SIZE);
      e->readable = w.readable;
      e->writable = w.writable;
   }
   if (write && !e->writable) {
      record_fault(mmu, va, write, HW_FAULT_READ_ONLY, 3);
      return NULL;
   }
   if (!write && !e->readable) {
      record_fault(mmu, va, write, HW_FAULT_WRITE_ONLY, 3);
      return NULL;
   }
   return e->host + (va & (HW_PAGE_SIZE - 1));
}

const void *
hw_mmu_peek(struct hw_mmu *mmu, uint64_t va)
{
   uint64_t vpn = (va >> HW_PAGE_SHIFT) + 1;
   const struct hw_tlb_entry *e = &mmu->tlb[vpn % HW_TLB_ENTRIES];
   if (e->vpn == vpn)
      return e->readable ? e->host + (va & (HW_PAGE_SIZE - 1)) : NULL;
   struct hw_uat_walk w;
   hw_uat_walk(mmu->dev, mmu->vm_slot, va, &w);
   if (!w.ok || !w.readable)
      return NULL;
   uint8_t *h = hw_phys_to_host(mmu->dev, w.pa & ~(HW_PAGE_SIZE - 1), HW_PAGE_SIZE);
   return h ? h + (va & (HW_PAGE_SIZE - 1)) : NULL;
}

static uint8_t *
map_range(struct hw_mmu *mmu, uint64_t va, size_t size, bool write)
{
   bool soft;
   uint8_t *p = translate(mmu, va, write, &soft);
   if (!p || size <= 1)
      return p;
   uint64_t last = va + (size - 1);
   if (last < va) {
      record_fault(mmu, va, write, HW_FAULT_UNMAPPED, 0);
      return NULL;
   }
   /* A range over several pages is still one pointer when the pages are
    * physically consecutive (they are one host mapping). */
   for (uint64_t pg = (va | (HW_PAGE_SIZE - 1)) + 1;
        pg <= last && pg != 0; pg += HW_PAGE_SIZE) {
      uint8_t *q = translate(mmu, pg, write, &soft);
      if (!q || q != p + (pg - va))
         return NULL;
   }
   return p;
}

void *
hw_mmu_map(struct hw_mmu *mmu, uint64_t va, size_t size, bool write)
{
   if (mmu->log)
      log_access(mmu->log, va, size, write);
   uint8_t *p = map_range(mmu, va, size, write);
   if (!p && mmu->log)
      mmu->log->missed = true;
   return p;
}

bool
hw_mmu_read(struct hw_mmu *mmu, uint64_t va, void *dst, size_t size)
{
   uint8_t *d = dst;
   if (mmu->log)
      log_access(mmu->log, va, size, false);
   while (size) {
      size_t chunk = (size_t)(HW_PAGE_SIZE - (va & (HW_PAGE_SIZE - 1)));
      if (chunk > size)
         chunk = size;
      bool soft;
      uint8_t *p = translate(mmu, va, false, &soft);
      if (!p && mmu->log)
         mmu->log->missed = true;
      if (p)
         memcpy(d, p, chunk);
      else if (soft)
         memset(d, 0, chunk);
      else
         return false;
      d += chunk;
      va += chunk;
      size -= chunk;
   }
   return true;
}

bool
hw_mmu_write(struct hw_mmu *mmu, uint64_t va, const void *src, size_t size)
{
   const uint8_t *s = src;
   if (mmu->log)
      log_access(mmu->log, va, size, true);
   while (size) {
      size_t chunk = (size_t)(HW_PAGE_SIZE - (va & (HW_PAGE_SIZE - 1)));
      if (chunk > size)
         chunk = size;
      bool soft;
      uint8_t *p = translate(mmu, va, true, &soft);
      if (p)
         memcpy(p, s, chunk);
      else if (!soft)
         return false;
      s += chunk;
      va += chunk;
      size -= chunk;
   }
   return true;
}

/* SPDX-License-Identifier: MIT */
/*
 * GPU memory as the model's units see it: translation of GPU virtual
 * addresses through the UAT page tables the kernel wrote, with faults.
 *
 * CONTRACT written before the implementation (hw/ memory owner completes
 * it; the USC interpreter and the command processors are written against
 * these declarations, which must keep their meaning).
 *
 * A struct hw_mmu is one unit's view of one VM slot, owned by one thread
 * (no locking on the hot path): it caches recent translations in a small
 * TLB, which the firmware invalidates by bumping the device's TLB
 * generation (checked on every miss and at hw_mmu_begin_job()).
 *
 * Faults: the first fault a view takes is recorded in mmu->fault and
 * latched into the device's FAULT_INFO register (unit, reason, address,
 * read/write, VM slot), like the hardware, and the job stops. With soft
 * faults enabled (the uAPI's SOFT_FAULTS feature), reads by the USC
 * (HW_UNIT_USC) from unmapped pages return zeros and writes are dropped
 * without a fault; other units still fault.
 */
#ifndef HW_MMU_H
#define HW_MMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hw_device;

/* GPU pages are 16 KiB, as on every AGX. */
#define HW_PAGE_SHIFT 14
#define HW_PAGE_SIZE  (1ull << HW_PAGE_SHIFT)

/* Units that access memory (the fault record's "unit"). */
enum hw_unit {
   HW_UNIT_USC,  /* shader loads/stores/atomics (the real UL1C) */
   HW_UNIT_CDM,  /* compute control stream fetch */
   HW_UNIT_VDM,  /* vertex control stream fetch */
   HW_UNIT_PPP,  /* PPP state fetch */
   HW_UNIT_TE,   /* tiling engine / TVB writes */
   HW_UNIT_ISP,  /* ISP parameter fetch */
   HW_UNIT_ZLS,  /* depth/stencil load/store */
   HW_UNIT_TEX,  /* texture fetch (the real DCMP) */
   HW_UNIT_PBE,  /* image block stores (the real CMP) */
   HW_UNIT_FW,   /* the firmware's own accesses */
   HW_UNIT_COUNT
};

enum hw_fault_reason {
   HW_FAULT_UNMAPPED = 0,
   HW_FAULT_AF = 1,
   HW_FAULT_WRITE_ONLY = 2,
   HW_FAULT_READ_ONLY = 3,
   HW_FAULT_NO_ACCESS = 4,
};

struct hw_fault {
   bool valid;
   bool read;          /* the faulting access was a read */
   uint8_t reason;     /* enum hw_fault_reason */
   uint8_t unit;       /* enum hw_unit */
   uint8_t vm_slot;
   uint8_t level;      /* page-table level that was missing */
   uint64_t addr;      /* faulting GPU VA */
};

#define HW_TLB_ENTRIES 16

struct hw_tlb_entry {
   uint64_t vpn;       /* va >> HW_PAGE_SHIFT, plus one: 0 = empty */
   uint8_t *host;      /* host address of the page */
   bool writable;
   bool readable;
};

/*
 * The accesses of a view, recorded while hw_mmu.log points here (set it
 * on a fresh view, clear it before reading the record): hw_mmu_map,
 * hw_mmu_read and hw_mmu_write append their (va, size) in order, and the
 * view then caches no translation, so every access, hw_mmu_map_read's
 * included, reaches them. For memoising a computation by what it read
 * (hw/render's preshader memo): a record that overflowed, wrote, or
 * missed (a fault, soft or hard) cannot be replayed.
 */
#define HW_MMU_LOG_MAX 16
struct hw_mmu_log {
   unsigned n;                 /* accesses recorded; > HW_MMU_LOG_MAX: overflow */
   bool write;                 /* some access wrote (or mapped for writing) */
   bool missed;                /* some access did not translate */
   struct {
      uint64_t va;
      uint64_t size;
   } r[HW_MMU_LOG_MAX];
};

struct hw_mmu {
   struct hw_device *dev;
   uint8_t vm_slot;
   uint8_t unit;       /* enum hw_unit */
   bool soft_faults;   /* copied from the device at init */
   uint32_t tlb_gen;   /* device TLB generation the entries belong to */
   struct hw_tlb_entry tlb[HW_TLB_ENTRIES];
   struct hw_fault fault;  /* first fault taken, if any */
   struct hw_mmu_log *log; /* NULL (hw_mmu_init): no record */
};

void hw_mmu_init(struct hw_mmu *mmu, struct hw_device *dev, unsigned vm_slot,
                 enum hw_unit unit);

/* Drops stale TLB entries if the firmware invalidated since; clears fault. */
void hw_mmu_begin_job(struct hw_mmu *mmu);

/*
 * Host pointer to [va, va + size) when the range lies in one GPU page and
 * the access is allowed; NULL after recording a fault otherwise (or, for a
 * soft fault, NULL with mmu->fault.valid still false). Pointers stay valid
 * for the rest of the job: the kernel only unmaps pages of idle VMs.
 */
void *hw_mmu_map(struct hw_mmu *mmu, uint64_t va, size_t size, bool write);

/*
 * hw_mmu_map(mmu, va, size, false) for the common case, inline: a range
 * inside one page whose translation is in the TLB and readable returns
 * the pointer straight from the TLB entry (what hw_mmu_map's TLB hit
 * does); anything else (a miss, a range crossing a page, no read
 * permission) goes through hw_mmu_map, faults and all.  For per-texel
 * reads, where the call was a visible share of the time.
 */
static inline void *
hw_mmu_map_read(struct hw_mmu *mmu, uint64_t va, size_t size)
{
   uint64_t vpn = (va >> HW_PAGE_SHIFT) + 1;
   const struct hw_tlb_entry *e = &mmu->tlb[vpn % HW_TLB_ENTRIES];
   uint64_t off = va & (HW_PAGE_SIZE - 1);
   if (e->vpn == vpn && e->readable && size && size <= HW_PAGE_SIZE - off)
      return e->host + off;
   return hw_mmu_map(mmu, va, size, false);
}

/*
 * Host address of the byte at va when its page is mapped readable, else
 * NULL, without side effects: no fault is recorded or latched and the TLB
 * is neither filled nor synchronised (a miss walks the page tables).  For
 * hints that must not change what the unit does, such as prefetching
 * memory an access is about to read.
 */
const void *hw_mmu_peek(struct hw_mmu *mmu, uint64_t va);

/*
 * The host pointer for writing [va, va + size) when the range lies in one
 * page whose translation is in the TLB and writable, else NULL -- with no
 * side effect at all (no walk, no fault recorded): the caller then takes
 * its general path (hw_mmu_write and friends), which fills the TLB and
 * faults as always. What hw_mmu_map(mmu, va, size, true) returns on a TLB
 * hit.
 */
static inline void *
hw_mmu_map_write_hit(struct hw_mmu *mmu, uint64_t va, size_t size)
{
   uint64_t vpn = (va >> HW_PAGE_SHIFT) + 1;
   const struct hw_tlb_entry *e = &mmu->tlb[vpn % HW_TLB_ENTRIES];
   uint64_t off = va & (HW_PAGE_SIZE - 1);
   if (e->vpn == vpn && e->writable && size && size <= HW_PAGE_SIZE - off)
      return e->host + off;
   return NULL;
}

/* Copies across page boundaries. False when a (hard) fault stopped it. */
bool hw_mmu_read(struct hw_mmu *mmu, uint64_t va, void *dst, size_t size);
bool hw_mmu_write(struct hw_mmu *mmu, uint64_t va, const void *src,
                  size_t size);

#endif

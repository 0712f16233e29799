/* SPDX-License-Identifier: MIT */
/*
 * Test double of hw/hw_mmu.h for the USC unit tests: one flat host buffer
 * is "GPU memory" at TEST_GPU_BASE; everything else is unmapped, and one
 * page inside the buffer can be marked read-only.  The test binary links
 * this instead of libhw so the interpreter is tested on its own.
 */
#include <string.h>

#include "hw/hw_mmu.h"

#define TEST_GPU_BASE 0x100000000ull
#define TEST_GPU_SIZE (4u << 20)

uint8_t usc_test_mem[TEST_GPU_SIZE];
uint64_t usc_test_ro_page = 0;   /* GPU VA of a read-only page, 0 = none */
unsigned usc_test_maps;          /* hw_mmu_map calls (sanity) */

void
hw_mmu_init(struct hw_mmu *mmu, struct hw_device *dev, unsigned vm_slot,
            enum hw_unit unit)
{
   memset(mmu, 0, sizeof(*mmu));
   mmu->dev = dev;
   mmu->vm_slot = (uint8_t)vm_slot;
   mmu->unit = (uint8_t)unit;
}

void
hw_mmu_begin_job(struct hw_mmu *mmu)
{
   memset(&mmu->fault, 0, sizeof(mmu->fault));
}

static void
record(struct hw_mmu *mmu, uint64_t va, bool write, uint8_t reason)
{
   if (mmu->fault.valid)
      return;
   mmu->fault.valid = true;
   mmu->fault.read = !write;
   mmu->fault.reason = reason;
   mmu->fault.unit = mmu->unit;
   mmu->fault.vm_slot = mmu->vm_slot;
   mmu->fault.addr = va;
}

void *
hw_mmu_map(struct hw_mmu *mmu, uint64_t va, size_t size, bool write)
{
   usc_test_maps++;
   if ((va >> HW_PAGE_SHIFT) != ((va + size - 1) >> HW_PAGE_SHIFT))
      return NULL;
   if (va < TEST_GPU_BASE || va + size > TEST_GPU_BASE + TEST_GPU_SIZE) {
      if (!mmu->soft_faults)
         record(mmu, va, write, HW_FAULT_UNMAPPED);
      return NULL;
   }
   if (write && usc_test_ro_page &&
       (va >> HW_PAGE_SHIFT) == (usc_test_ro_page >> HW_PAGE_SHIFT)) {
      record(mmu, va, write, HW_FAULT_READ_ONLY);
      return NULL;
   }
   return usc_test_mem + (va - TEST_GPU_BASE);
}

bool
hw_mmu_read(struct hw_mmu *mmu, uint64_t va, void *dst, size_t size)
{
   uint8_t *d = dst;
   for (size_t i = 0; i < size; i++) {
      uint8_t *p = hw_mmu_map(mmu, va + i, 1, false);
      if (!p && mmu->fault.valid)
         return false;
      d[i] = p ? *p : 0;
   }
   return true;
}

bool
hw_mmu_write(struct hw_mmu *mmu, uint64_t va, const void *src, size_t size)
{
   const uint8_t *s = src;
   for (size_t i = 0; i < size; i++) {
      uint8_t *p = hw_mmu_map(mmu, va + i, 1, true);
      if (!p && mmu->fault.valid)
         return false;
      if (p)
         *p = s[i];
   }
   return true;
}

/* SPDX-License-Identifier: MIT */
/* Flat memory test double of hw/hw_mmu.h for the hwtex tests. */
#include <string.h>

#include "hw/hw_mmu.h"
#include "tests/unit/test_hw_tex_mem.h"

uint8_t tex_test_mem[TEX_GPU_SIZE];

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

void *
hw_mmu_map(struct hw_mmu *mmu, uint64_t va, size_t size, bool write)
{
   if (va < TEX_GPU_BASE || va + size > TEX_GPU_BASE + TEX_GPU_SIZE || va + size < va) {
      if (!(mmu->soft_faults && mmu->unit == HW_UNIT_USC) && !mmu->fault.valid) {
         mmu->fault.valid = true;
         mmu->fault.read = !write;
         mmu->fault.reason = HW_FAULT_UNMAPPED;
         mmu->fault.unit = mmu->unit;
         mmu->fault.vm_slot = mmu->vm_slot;
         mmu->fault.addr = va;
      }
      return NULL;
   }
   return tex_test_mem + (va - TEX_GPU_BASE);
}

const void *
hw_mmu_peek(struct hw_mmu *mmu, uint64_t va)
{
   (void)mmu;
   if (va < TEX_GPU_BASE || va >= TEX_GPU_BASE + TEX_GPU_SIZE)
      return NULL;
   return tex_test_mem + (va - TEX_GPU_BASE);
}

bool
hw_mmu_read(struct hw_mmu *mmu, uint64_t va, void *dst, size_t size)
{
   void *p = hw_mmu_map(mmu, va, size, false);
   if (!p) {
      if (mmu->fault.valid)
         return false;
      memset(dst, 0, size);
      return true;
   }
   memcpy(dst, p, size);
   return true;
}

bool
hw_mmu_write(struct hw_mmu *mmu, uint64_t va, const void *src, size_t size)
{
   void *p = hw_mmu_map(mmu, va, size, true);
   if (!p)
      return !mmu->fault.valid;
   memcpy(p, src, size);
   return true;
}

/* SPDX-License-Identifier: MIT */
/*
 * Flat "GPU memory" for the hwtex unit tests: a test double of hw/hw_mmu.h.
 * TEX_GPU_BASE .. + TEX_GPU_SIZE is mapped read/write; everything else
 * faults (hard faults only).  Faults record unit, address and direction.
 */
#ifndef TEST_HW_TEX_MEM_H
#define TEST_HW_TEX_MEM_H

#include <stdint.h>

#define TEX_GPU_BASE 0x200000000ull
#define TEX_GPU_SIZE (8u << 20)

extern uint8_t tex_test_mem[TEX_GPU_SIZE];

static inline uint8_t *
tex_host(uint64_t va)
{
   return tex_test_mem + (va - TEX_GPU_BASE);
}

#endif

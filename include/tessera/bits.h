/* SPDX-License-Identifier: MIT */
/*
 * Bit counting for the GPU model's per-instruction paths. The build
 * targets baseline x86-64 (no -mpopcnt), where __builtin_popcount is a
 * call into libgcc (__popcountdi2); this inline SWAR count is the same
 * function without the call.
 */
#ifndef TESSERA_BITS_H
#define TESSERA_BITS_H

#include <stdint.h>

/* The number of set bits of v. */
static inline unsigned
tessera_popcount32(uint32_t v)
{
   v = v - ((v >> 1) & 0x55555555u);
   v = (v & 0x33333333u) + ((v >> 2) & 0x33333333u);
   v = (v + (v >> 4)) & 0x0f0f0f0fu;
   return (v * 0x01010101u) >> 24;
}

#endif

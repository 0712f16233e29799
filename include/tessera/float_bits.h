/* SPDX-License-Identifier: MIT */
/*
 * Bit casts between a 32-bit float and its IEEE-754 encoding, for code
 * that moves floats through registers, descriptors and memory as words
 * (the GPU model, the formats, the tests). memcpy is the one cast C
 * defines for this; compilers turn it into a register move.
 *
 * Code built inside Mesa uses Mesa's fui()/uif() (util/u_math.h) instead:
 * the same casts, and these names do not collide with them.
 */
#ifndef TESSERA_FLOAT_BITS_H
#define TESSERA_FLOAT_BITS_H

#include <stdint.h>
#include <string.h>

_Static_assert(sizeof(float) == sizeof(uint32_t), "float is not 32 bits");

/* The encoding of f. */
static inline uint32_t
tessera_fui(float f)
{
   uint32_t u;
   memcpy(&u, &f, sizeof(u));
   return u;
}

/* The float encoded by u. */
static inline float
tessera_uif(uint32_t u)
{
   float f;
   memcpy(&f, &u, sizeof(f));
   return f;
}

#endif

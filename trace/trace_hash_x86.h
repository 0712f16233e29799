/* SPDX-License-Identifier: MIT */
/*
 * XXH3 compiled for AVX2 (trace/trace_hash_avx2.c, built with -mavx2 by
 * trace/module.mk). Only trace_common.c's dispatch calls these, and only
 * after the CPU (and the OS's saved state) has been found to support AVX2:
 * the whole translation unit may contain AVX2 instructions.
 */
#ifndef TSR_TRACE_HASH_X86_H
#define TSR_TRACE_HASH_X86_H

#include <stddef.h>
#include <stdint.h>

#if defined(__x86_64__)
#define TSR_HASH_HAVE_AVX2 1
/* XXH3-128 of data: out[0] = low 64 bits, out[1] = high 64 bits. */
void tsr_hash128_avx2(const void *data, size_t size, uint64_t out[2]);
uint64_t tsr_hash64_avx2(const void *data, size_t size);
#endif

#endif

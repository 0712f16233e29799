/* SPDX-License-Identifier: MIT */
/*
 * XXH3 with its AVX2 accumulate loop, for inputs past XXH3's 240-byte
 * short path (pages: the capture layer's hot-page reads, the writer's page
 * hashing). Built with -mavx2 (trace/module.mk); trace_common.c calls it
 * only when the host runs AVX2 (tessera_host_avx2). XXH3's vector variants compute
 * the same values (the format's content addresses), which test_trace
 * checks against the baseline build over many lengths.
 *
 * Two reasons over the baseline x86-64 build (SSE2): the AVX2 loop is ~2x
 * faster on a cached 4 KiB page (this machine: ~90 vs ~240 ns), and its
 * VEX encoding does not pay the legacy-SSE penalty when the upper halves of
 * the vector registers are dirty. Code in the host process (the program,
 * its GL driver, the GPU model) that leaves them dirty makes the SSE2 loop
 * ~6x slower (~1.5 us a page measured here after an AVX2 function without
 * vzeroupper), which is what the layer's XXH3 share showed.
 */
#if defined(__x86_64__)

#ifndef __AVX2__
#error "trace_hash_avx2.c must be compiled with -mavx2 (trace/module.mk)"
#endif
#ifdef __AVX512F__
#error "trace_hash_avx2.c is the AVX2 variant: no -mavx512f"
#endif

#include <immintrin.h>

/* Inlined, so every xxhash function here is static and compiled for AVX2:
 * none of it can be chosen by the linker in place of the baseline copies
 * (trace_common.c's). XXH_VECTOR is set explicitly, not left to detection. */
#define XXH_INLINE_ALL
#define XXH_VECTOR XXH_AVX2
#include <xxhash.h>

#include "trace/trace_hash_x86.h"

/* The compiler does not reliably end these with vzeroupper (gcc 12 emits
 * none for xxhash's AVX2 loop): leaving the upper halves dirty would make
 * every later legacy-SSE instruction in the process slow (see above), so
 * each entry clears them. */
void tsr_hash128_avx2(const void *data, size_t size, uint64_t out[2])
{
   XXH128_hash_t h = XXH3_128bits(data, size);
   out[0] = h.low64;
   out[1] = h.high64;
   _mm256_zeroupper();
}

uint64_t tsr_hash64_avx2(const void *data, size_t size)
{
   uint64_t h = XXH3_64bits(data, size);
   _mm256_zeroupper();
   return h;
}

#else
/* Other architectures: the baseline build only (an empty unit is not ISO C). */
typedef int tsr_hash_avx2_unused;
#endif

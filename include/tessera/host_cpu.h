/* SPDX-License-Identifier: MIT */
/*
 * Host CPU features for the GPU model's optional AVX2 / FMA paths.
 *
 * glibc (>= 2.33) publishes the features its dynamic loader already read
 * at start (<sys/platform/x86.h>); asking it costs a load. The compiler's
 * __builtin_cpu_supports instead links libgcc's __cpu_indicator_init, a
 * constructor that runs CPUID ~8 times in every process loading the model
 * (the tessera command, the render-node shim), whether or not it renders:
 * CPUID traps to the hypervisor in a VM, 61 us per process start on the
 * reference VM. Other C libraries (and non-x86 hosts) keep the builtin.
 */
#ifndef TESSERA_HOST_CPU_H
#define TESSERA_HOST_CPU_H

#include <stdbool.h>

#if defined(__x86_64__) && defined(__GNUC__)
#if defined(__has_include)
#if __has_include(<sys/platform/x86.h>)
#include <sys/platform/x86.h>
#define TESSERA_HOST_CPU_GLIBC 1
#endif
#endif

/* The host runs AVX2 code (CPU and OS, which saves the YMM state). */
static inline bool
tessera_host_avx2(void)
{
#ifdef TESSERA_HOST_CPU_GLIBC
   return CPU_FEATURE_ACTIVE(AVX2);
#else
   __builtin_cpu_init();
   return __builtin_cpu_supports("avx2");
#endif
}

/* The host runs FMA3 code. */
static inline bool
tessera_host_fma(void)
{
#ifdef TESSERA_HOST_CPU_GLIBC
   return CPU_FEATURE_ACTIVE(FMA);
#else
   __builtin_cpu_init();
   return __builtin_cpu_supports("fma");
#endif
}
#endif

#endif

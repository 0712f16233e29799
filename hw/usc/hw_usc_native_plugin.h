/* SPDX-License-Identifier: MIT */
/*
 * The USC native path as a plugin (docs/usc.md "Native path").
 *
 * hw_usc_native.c links LLVM (~394k relocations, ~22 ms CPU to load), so it
 * is not linked into the programs and the render-node shim: it is built
 * into build/VARIANT/lib/tessera-usc-native.so (with its own copies of
 * hw_usc_float.c and hw_usc_sr.c), which exports one symbol,
 * tessera_usc_native_ops.  libhwusc's loader (hw_usc_native_load.c)
 * defines the usc_native_* functions of hw_usc_internal.h and forwards
 * them to that table, dlopen-ing the plugin the first time a shader asks
 * for native code with TESSERA_USC_NATIVE not 0 (mode 1 with the
 * background compile: once the shaders have run USC_NATIVE_HOT
 * instructions, hw_usc_native_load.c's load_deferred).
 *
 * ABI: the plugin reads and writes struct hw_usc_shader, usc_inst,
 * hw_usc_simd, usc_native and usc_native_run as laid out by the host's
 * copy of hw_usc_internal.h.  The loader takes the table only when
 * `version` is USC_NATIVE_PLUGIN_VERSION and every size matches its own;
 * bump the version when a function's meaning or the table changes.
 */
#ifndef TESSERA_HW_USC_NATIVE_PLUGIN_H
#define TESSERA_HW_USC_NATIVE_PLUGIN_H

#include <stdbool.h>
#include <stdint.h>

#include "hw/usc/hw_usc_internal.h"

/* 3: set_async is always called at the load (the plugin no longer reads
 * TESSERA_USC_NATIVE_ASYNC) */
#define USC_NATIVE_PLUGIN_VERSION 3
/* The plugin's file name, next to the object holding the loader, or in
 * ../lib from it (bin/, tests/); $TESSERA_USC_NATIVE_LIB overrides. */
#define USC_NATIVE_PLUGIN_NAME "tessera-usc-native.so"
#define USC_NATIVE_PLUGIN_SYMBOL "tessera_usc_native_ops"

struct usc_native_plugin_ops {
   uint32_t version;          /* USC_NATIVE_PLUGIN_VERSION; checked first */
   uint32_t size_ops;         /* sizeof(struct usc_native_plugin_ops) */
   uint32_t size_shader;      /* sizeof(struct hw_usc_shader) */
   uint32_t size_inst;        /* sizeof(struct usc_inst) */
   uint32_t size_simd;        /* sizeof(struct hw_usc_simd) */
   uint32_t size_native;      /* sizeof(struct usc_native) */
   uint32_t size_run;         /* sizeof(struct usc_native_run) */
   uint32_t size_counts;      /* sizeof(struct usc_native_cache_counts) */
   /* the functions of the same names in hw_usc_internal.h */
   const struct usc_native *(*get)(const struct hw_usc_shader *sh);
   void (*release)(struct hw_usc_shader *sh);
   void (*note)(const struct hw_usc_shader *sh, uint64_t instructions);
   void (*set_mode)(int mode);
   bool (*translatable)(const struct usc_inst *in);
   void (*shutdown)(void);
   void (*set_cache_dir)(const char *dir);
   struct usc_native_cache_counts (*cache_get_counts)(void);
   /* called by the loader before it publishes the table, with its
    * resolved value (hw_usc_native_load.c async_get), then on changes */
   void (*set_async)(bool async);
   void (*wait_idle)(void);
};

#define USC_NATIVE_PLUGIN_OPS_INIT                                   \
   .version = USC_NATIVE_PLUGIN_VERSION,                             \
   .size_ops = sizeof(struct usc_native_plugin_ops),                 \
   .size_shader = sizeof(struct hw_usc_shader),                      \
   .size_inst = sizeof(struct usc_inst),                             \
   .size_simd = sizeof(struct hw_usc_simd),                          \
   .size_native = sizeof(struct usc_native),                         \
   .size_run = sizeof(struct usc_native_run),                        \
   .size_counts = sizeof(struct usc_native_cache_counts)

#endif

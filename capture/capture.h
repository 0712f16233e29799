/* SPDX-License-Identifier: MIT */
/*
 * capture: the pieces of tessera's LD_PRELOAD capture layer
 * (tessera-capture.so, capture/cap_layer.c) that do not touch the process:
 * option parsing, trace naming, the per-VM mapping list and command-buffer
 * scanning. The layer itself is described in docs/capture.md.
 *
 * CONTRACT
 * - cap_options_parse() reads the TESSERA_CAPTURE_* environment (or any
 *   getenv-like lookup, for tests). Bad values are errors with a message;
 *   the layer then records nothing and the program runs unchanged.
 * - Ranges are inclusive and 0-based, counted over the whole run of the
 *   process (not over the trace): submission N is the N-th SUBMIT ioctl the
 *   process made, frame N is what follows the N-th frame boundary.
 * - Trace names: the root process writes NAME.tsr, every other process that
 *   uses the render node writes NAME.<pid>.tsr (trace/trace.h, the same rule
 *   tsr_child_traces() lists).
 * - The mapping list follows the kernel's VM_BIND semantics (drm_gpuvm):
 *   binding over mapped VA replaces it, unbinding splits mappings.
 * - Shader indexing (cap_cmdbuf_shaders) finds every USC code range a
 *   SUBMIT can run: what its VDM/CDM streams reach (agx_decode's visitor)
 *   plus the programs the uAPI structs name directly (background, end of
 *   tile, their partial-render variants, helper programs). `tessera dump`
 *   and replay use the same function on a trace's memory.
 * - No function here allocates global state; all are thread compatible.
 */
#ifndef TESSERA_CAPTURE_H
#define TESSERA_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmdstream/agx_decode.h"
#include "drm-uapi/asahi_drm.h"
#include "trace/trace.h"

/* ---------------------------------------------------------------- options */

enum cap_mem_strategy {
   CAP_MEM_HASH = 0,    /* hash every bound object at every submission */
   CAP_MEM_WP = 1,      /* write-protect CPU mappings, re-read dirty pages
                         * (the default; GPU-written objects once a frame) */
};

struct cap_range {
   uint64_t first, last;   /* inclusive; last = UINT64_MAX: open */
};

struct cap_options {
   char path[4096];           /* TESSERA_CAPTURE_FILE */
   int root_pid;              /* TESSERA_CAPTURE_ROOT_PID; 0 unknown */
   bool have_frames, have_submits;
   struct cap_range frames;   /* TESSERA_CAPTURE_FRAMES=A-B */
   struct cap_range submits;  /* TESSERA_CAPTURE_SUBMITS=A-B */
   int trigger_signal;        /* TESSERA_CAPTURE_SIGNAL; 0 none (default SIGUSR1) */
   char trigger_file[4096];   /* TESSERA_CAPTURE_TRIGGER_FILE */
   bool start_off;            /* TESSERA_CAPTURE_START=off: wait for a trigger */
   uint64_t frame_every;      /* TESSERA_CAPTURE_FRAME_EVERY=N submissions; 0 off */
   enum cap_mem_strategy mem; /* TESSERA_CAPTURE_MEM=hash|wp (default wp) */
   uint64_t flush_ms;         /* TESSERA_CAPTURE_FLUSH_MS: bound on data lost at a crash */
   bool quiet;                /* TESSERA_CAPTURE_QUIET=1 */
};

typedef const char *(*cap_getenv_fn)(const char *name);

/* 0 or -EINVAL with a message in err. Missing FILE is an error. */
int cap_options_parse(struct cap_options *o, cap_getenv_fn get, char *err, size_t errlen);
/* "A-B", "A-", "A" (just A), "-B". 0 or -EINVAL. */
int cap_range_parse(const char *s, struct cap_range *r);
static inline bool
cap_range_has(const struct cap_range *r, uint64_t v)
{
   return v >= r->first && v <= r->last;
}
/* Signal number from "USR1", "SIGUSR2", "12" or "none" (0); -1 if unknown. */
int cap_signal_parse(const char *s);

/* The trace path of process `pid`: `base` itself for the root, otherwise
 * NAME.<pid>.tsr where NAME is base without a trailing ".tsr". Returns
 * false if it does not fit in len. */
bool cap_trace_path(const char *base, int pid, bool root, char *out, size_t len);

/* ----------------------------------------------------------- VM mappings */

struct cap_mapping {
   uint64_t addr, range;   /* GPU VA */
   uint32_t handle;        /* GEM handle */
   uint32_t flags;         /* drm_asahi_bind_flags (READ/WRITE/SINGLE_PAGE) */
   uint64_t offset;        /* byte offset into the object */
};

struct cap_vm_map {
   struct cap_mapping *m;  /* sorted by addr, non-overlapping */
   size_t count, cap;
};

/* Applies one bind op (bind or unbind). 0 or -ENOMEM (map unchanged). */
int cap_vm_map_apply(struct cap_vm_map *map, const struct drm_asahi_gem_bind_op *op);
/* Drops every mapping of `handle` (GEM_CLOSE: the kernel unbinds it). */
void cap_vm_map_drop_handle(struct cap_vm_map *map, uint32_t handle);
void cap_vm_map_free(struct cap_vm_map *map);

/* ------------------------------------------------------ command buffers */

/* A timestamp the firmware writes for a command. */
struct cap_ts_ref {
   uint32_t object_handle;   /* GEM_BIND_OBJECT handle */
   uint32_t offset;
};

/* Collects the non-zero timestamp references of a SUBMIT command buffer
 * into out[0..max) and returns how many there are (may exceed max), or
 * -EINVAL if the buffer is malformed. Also counts the hardware commands. */
int cap_cmdbuf_timestamps(const uint8_t *buf, size_t size, struct cap_ts_ref *out,
                          unsigned max, unsigned *hw_cmds);

/* ------------------------------------------------------ shader indexing */

/* One distinct shader of a submission. */
struct cap_shader {
   uint32_t stage;         /* enum tsr_shader_stage */
   uint32_t cmd;           /* first command (0-based) that uses it */
   uint64_t va;            /* GPU VA of the code */
   uint32_t size;          /* bytes; 0 when the end could not be found */
   struct tsr_hash hash;   /* xxh3-128 of the `size` code bytes */
   const char *why;        /* size 0: the reason (static string) */
};

/*
 * Remembers (va -> size, hash) across submissions so a shader already
 * measured costs one read and one hash of its bytes, not a decode: if those
 * bytes still hash the same, the decode would end at the same place.
 */
struct cap_shader_cache {
   struct cap_shader_cache_entry {
      uint64_t va;
      uint32_t size;
      struct tsr_hash hash;
   } *e;
   size_t count, cap;       /* cap: power of two (open addressing) */
   uint64_t hits, misses;
};
void cap_shader_cache_free(struct cap_shader_cache *c);

struct cap_shader_list {
   struct cap_shader *v;
   size_t count, cap;
};
void cap_shader_list_free(struct cap_shader_list *l);

/* Upper bounds: shader code read per shader, distinct shaders per call. */
#define CAP_SHADER_MAX_BYTES (64 * 1024)
#define CAP_SHADER_MAX_PER_SUBMIT 4096

/*
 * Appends to `out` the distinct shaders (by VA) of a SUBMIT command buffer,
 * reading GPU memory through read/read_ctx with the queue's usc_base. The
 * cache may be NULL. Returns the number of stream or shader errors met
 * (streams that did not decode, code whose end was not found), or -EINVAL
 * for a malformed command buffer (shaders found before the damage are kept)
 * or -ENOMEM.
 */
int cap_cmdbuf_shaders(const uint8_t *buf, size_t size, uint64_t usc_base,
                       agx_decode_read_fn read, void *read_ctx,
                       struct cap_shader_cache *cache, struct cap_shader_list *out);

/* Name of a tsr_shader_stage as tessera prints it ("vertex", "bg", ...). */
const char *cap_stage_name(uint32_t stage);

#endif

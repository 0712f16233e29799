/* SPDX-License-Identifier: MIT */
/*
 * uapi_shaders: the shader index of a SUBMIT, which USC code ranges its
 * commands can run, each with its size and content hash. The capture layer
 * records it (SHADER records); `tessera dump` and replay compute it again
 * over a trace's memory with the same function, so all three agree.
 *
 * CONTRACT
 * - uapi_cmdbuf_shaders() finds every USC code range a SUBMIT can run:
 *   what its VDM/CDM streams reach (agx_decode's visitor) plus the
 *   programs the uAPI structs name directly (background, end of tile,
 *   their partial-render variants, helper programs). Commands are walked
 *   with uapi_cmdbuf.h.
 * - Memory is read only through the caller's read function; a shader that
 *   cannot be read or whose end is not found is listed with size 0 and a
 *   reason. Any command buffer and any memory are safe.
 * - Stages are the trace format's (enum tsr_shader_stage), hashes its
 *   content hash (struct tsr_hash): this library sits above trace/ (while
 *   uapi_cmdbuf and uapi_vm_map sit below it).
 * - No global state; callers own the cache and the lists.
 */
#ifndef TESSERA_UAPI_SHADERS_H
#define TESSERA_UAPI_SHADERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmdstream/agx_decode.h"
#include "trace/trace.h"

/* One distinct shader of a submission. */
struct uapi_shader {
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
struct uapi_shader_cache {
   struct uapi_shader_cache_entry {
      uint64_t va;
      uint32_t size;
      struct tsr_hash hash;
   } *e;
   size_t count, cap;       /* cap: power of two (open addressing) */
   uint64_t hits, misses;
};
void uapi_shader_cache_free(struct uapi_shader_cache *c);

struct uapi_shader_list {
   struct uapi_shader *v;
   size_t count, cap;
};
void uapi_shader_list_free(struct uapi_shader_list *l);

/* Upper bounds: shader code read per shader, distinct shaders per call. */
#define UAPI_SHADER_MAX_BYTES (64 * 1024)
#define UAPI_SHADER_MAX_PER_SUBMIT 4096

/*
 * Appends to `out` the distinct shaders (by VA) of a SUBMIT command buffer,
 * reading GPU memory through read/read_ctx with the queue's usc_base. The
 * cache may be NULL. Returns the number of stream or shader errors met
 * (streams that did not decode, code whose end was not found), or -EINVAL
 * for a malformed command buffer (shaders found before the damage are kept)
 * or -ENOMEM.
 */
int uapi_cmdbuf_shaders(const uint8_t *buf, size_t size, uint64_t usc_base,
                        agx_decode_read_fn read, void *read_ctx,
                        struct uapi_shader_cache *cache, struct uapi_shader_list *out);

/* Name of a tsr_shader_stage as tessera prints it ("vertex", "bg", ...). */
const char *uapi_shader_stage_name(uint32_t stage);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * AGX control-stream decoder: turns GPU memory into stable, diffable text.
 *
 * Given a way to read GPU memory and the queue's USC base, it walks a VDM
 * (render) or CDM (compute) stream from an address: it follows stream links
 * and calls, decodes PPP state records, USC word lists ("pipelines") with
 * their texture/sampler tables and uniform data, coefficient bindings, and
 * disassembles shaders through agx_disasm_print().
 *
 * Promises, whatever the memory holds:
 *  - never crashes and never reads outside what the callback returns;
 *  - terminates: calls nest at most max_depth deep, each stream decodes at
 *    most max_blocks blocks, and a block revisited in the same call context
 *    (a link loop) stops the walk;
 *  - bounded output: at most max_output bytes of text, then a
 *    "[output truncated]" line;
 *  - anything it cannot decode is printed as hex with an "XXX:" line, and
 *    counted in the result.
 *
 * Address conventions (as on the hardware): pipeline, shader code and CF
 * binding addresses inside the streams are offsets from the USC base;
 * stream links, PPP records, texture/sampler tables and uniform buffers are
 * full GPU virtual addresses.
 */
#ifndef AGX_DECODE_H
#define AGX_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cmdstream/isa/agx_isa.h"

/* Copies up to `size` bytes at `gpu_va` into dst; returns how many bytes it
 * copied (fewer when the mapping ends, 0 when gpu_va is unmapped). */
typedef size_t (*agx_decode_read_fn)(void *ctx, uint64_t gpu_va, void *dst,
                                     size_t size);

struct agx_decode_options {
   agx_decode_read_fn read;
   void *read_ctx;
   /* Base of the 32-bit USC address space (the queue's usc_exec_base). */
   uint64_t usc_base;
   /* Limits; 0 selects the default in brackets. */
   unsigned max_depth;      /* nested stream calls [16] */
   unsigned max_blocks;     /* blocks per top-level stream [4096] */
   size_t max_shader_bytes; /* code read per shader [16 KiB] */
   size_t max_output;       /* bytes of text [16 MiB] */
   /* Print shader addresses without disassembling them. */
   bool no_disasm;
   /* Also hex-dump the raw bytes of every block. */
   bool raw;
   /* Disassembler to use; NULL means agx_disasm_print. (A hook lets tools
    * substitute shaders or annotate them, and tests pin the output.) */
   size_t (*disasm)(FILE *fp, const uint8_t *code, size_t size,
                    const struct agx_disasm_options *opts);
};

struct agx_decode_result {
   unsigned blocks;   /* stream blocks decoded */
   unsigned errors;   /* undecodable data, unmapped reads, loops, limits */
   unsigned warnings; /* unknown bits or unexpected constant fields */
   bool terminated;   /* the stream ended with a Stream Terminate */
   bool truncated;    /* max_output was reached */
};

enum agx_decode_stream_kind {
   AGX_DECODE_VDM,
   AGX_DECODE_CDM,
};

/* Decodes the stream at gpu_va into fp. Returns true if it ended with a
 * terminate and no errors. `res` may be NULL. */
bool agx_decode_stream(FILE *fp, const struct agx_decode_options *opts,
                       enum agx_decode_stream_kind kind, uint64_t gpu_va,
                       struct agx_decode_result *res);

/* Decoders for the pieces, usable on their own (e.g. by `tessera dump` for
 * the pipelines a render command names directly). */
bool agx_decode_pipeline(FILE *fp, const struct agx_decode_options *opts,
                         uint32_t usc_offset, struct agx_decode_result *res);
bool agx_decode_ppp_record(FILE *fp, const struct agx_decode_options *opts,
                           uint64_t gpu_va, size_t size_bytes,
                           struct agx_decode_result *res);

/*
 * Visitor API: the same walk as agx_decode_stream() (same limits, same loop
 * detection, same tolerance of bad memory) but instead of text it reports
 * every shader the stream reaches. Nothing is printed; undecodable data is
 * still counted in `res`. opts->disasm, no_disasm, raw and max_output are
 * ignored.
 *
 * The render command's background/end-of-tile programs and helper programs
 * are named by the uAPI structs, not by the streams: callers visit them with
 * agx_decode_visit_pipeline() / agx_decode_shader_size() themselves.
 */
enum agx_decode_stage {
   AGX_DECODE_STAGE_UNKNOWN = 0, /* a pipeline decoded on its own */
   AGX_DECODE_STAGE_VERTEX,
   AGX_DECODE_STAGE_FRAGMENT,
   AGX_DECODE_STAGE_COMPUTE,
   AGX_DECODE_STAGE_BG,
   AGX_DECODE_STAGE_EOT,
   AGX_DECODE_STAGE_PARTIAL_BG,
   AGX_DECODE_STAGE_PARTIAL_EOT,
   AGX_DECODE_STAGE_HELPER,
};

/* Lower-case name ("vertex", "partial-eot", ...); "?" out of range. */
const char *agx_decode_stage_name(enum agx_decode_stage stage);

struct agx_decode_shader_ref {
   enum agx_decode_stage stage; /* of the pipeline that names it */
   bool preshader;              /* named by a Preshader word */
   uint32_t pipeline;           /* USC offset of that pipeline */
   uint32_t code;               /* USC offset of the code */
   uint64_t va;                 /* usc_base + code */
};

/* A draw (VDM Index List block) or a dispatch (CDM Launch block) met by
 * the walk. `count_va` is the address of the word(s) that size the work, so
 * a tool can rewrite them (`tessera minimize` packs a count of 0 there): the
 * Index Count word (INDEX_LIST_COUNT) of a draw, the Global Size
 * (CDM_GLOBAL_SIZE) of a direct dispatch; 0 when the block has none (an
 * indirect draw or dispatch, or a draw without a count word). */
struct agx_decode_draw_ref {
   enum agx_decode_stream_kind kind; /* VDM: a draw; CDM: a dispatch */
   uint64_t va;                      /* the block */
   uint64_t count_va;                /* 0: not rewritable */
   uint32_t count[3];                /* draw: count[0]; dispatch: x, y, z */
};

struct agx_decode_visitor {
   /* Called once per Shader/Preshader word met, in stream order (the same
    * shader reached twice is reported twice). */
   void (*shader)(void *ctx, const struct agx_decode_shader_ref *ref);
   void *ctx;
   /* Called once per draw / dispatch block met, in stream order (may be
    * NULL). A block reached twice (a subroutine called twice) is reported
    * twice. */
   void (*draw)(void *ctx, const struct agx_decode_draw_ref *ref);
};

/* Walks the stream at gpu_va. Returns true if it ended with a terminate
 * and no errors. `res` may be NULL. */
bool agx_decode_visit_stream(const struct agx_decode_options *opts,
                             enum agx_decode_stream_kind kind, uint64_t gpu_va,
                             const struct agx_decode_visitor *v,
                             struct agx_decode_result *res);
/* Walks one pipeline (USC word list); shaders are reported with `stage`. */
bool agx_decode_visit_pipeline(const struct agx_decode_options *opts,
                               uint32_t usc_offset, enum agx_decode_stage stage,
                               const struct agx_decode_visitor *v,
                               struct agx_decode_result *res);

/*
 * Byte size of the shader code at gpu_va. A shader ends at the first
 * `stop` (or `ret`) that lies past every forward branch and call target
 * seen so far: code after an early stop can still be reached by a jump over
 * it, so the first stop is not the end. (The same rule the USC model uses
 * to load a program.)
 *
 * Reads at most `max_bytes` (0 selects 64 KiB). Returns 0 if the code is
 * unmapped, does not decode, or has no end within the limit; *why (may be
 * NULL) then points to a static reason.
 */
size_t agx_decode_shader_size(const struct agx_decode_options *opts,
                              uint64_t gpu_va, size_t max_bytes,
                              const char **why);

/*
 * A ready-made read callback over a table of host buffers, each mapped at a
 * GPU address (used by `tessera decode`, the tests and the fuzzer). Buffers
 * are borrowed, not copied, and must not overlap.
 */
struct agx_decode_mem_range {
   uint64_t va;
   size_t size;
   const uint8_t *data;
};

struct agx_decode_mem {
   struct agx_decode_mem_range *ranges;
   unsigned count, capacity;
};

void agx_decode_mem_init(struct agx_decode_mem *mem);
/* Returns false (and maps nothing) on overlap, wrap-around or no memory. */
bool agx_decode_mem_add(struct agx_decode_mem *mem, uint64_t va,
                        const void *data, size_t size);
size_t agx_decode_mem_read(void *mem, uint64_t gpu_va, void *dst, size_t size);
void agx_decode_mem_finish(struct agx_decode_mem *mem);

#endif

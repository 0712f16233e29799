/* SPDX-License-Identifier: MIT */
/*
 * hwusc: the USC (unified shader core) interpreter of the GPU model.
 *
 * CONTRACT
 *
 * Shaders: machine code in GPU memory is decoded once (agx_isa_decode) into
 * a compact internal form (struct hw_usc_shader: one record per instruction,
 * registers resolved to 16-bit units, branch targets resolved to record
 * indices) and kept in a thread-safe cache keyed by (code address, length,
 * content hash).  Compiled shaders are immutable and live as long as the
 * cache.  Undecodable code, code that runs off the end of what could be
 * read, branches to a non-instruction and register numbers past r127 give
 * HW_USC_BAD_CODE with a message, never a crash.
 *
 * Execution: one SIMD group = 32 lanes.  Per instruction the interpreter
 * dispatches once (switch) and then loops over the 32 lanes.  A workgroup
 * is N SIMD groups run on the calling thread, one after the other, switching
 * only at threadgroup_barrier (every unfinished group must reach it before
 * any continues), so results and cycle counts depend only on the inputs,
 * never on which host thread ran the workgroup.  Several host threads may
 * run different workgroups of one launch at once: they share the launch
 * descriptor and the cache (read only), each brings its own hw_mmu view,
 * threadgroup memory and stack.  Device atomics use __atomic builtins on the
 * host pages, so concurrent workgroups' atomics are coherent; the final
 * memory is then deterministic for commutative updates, the values returned
 * to lanes depend on workgroup interleaving as on real hardware.
 *
 * Floating point follows applegpu's documented semantics: fp32 inputs and
 * outputs flush denormals to zero (sign kept), fp16 keeps denormals, every
 * rounding is to nearest even (fp16 fused multiply-add rounds once), NaN
 * results are the canonical quiet NaN (0x7fc00000 / 0x7e00), .sat clamps to
 * [0, 1] with NaN -> +0.  See docs/usc.md for every modelling choice.
 *
 * Asynchronous loads: device_load reads memory when it issues.  By default
 * the registers are written at issue too; with HW_USC_STRICT_WAIT the write
 * is held back until the matching `wait` (or the end of the shader), so a
 * missing wait shows up as stale register contents, as on hardware.
 *
 * Timing: each instruction adds issue cycles by class to its SIMD group
 * (see hw_usc_cycles in docs/usc.md); memory ops add a latency plus bytes.
 * The counts are a function of the executed instruction stream only.
 */
#ifndef HW_USC_H
#define HW_USC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmdstream/isa/agx_isa.h"
#include "hw/hw_mmu.h"

#define HW_USC_SIMD_WIDTH     32
#define HW_USC_NUM_GPRS       128
#define HW_USC_NUM_UNIFORMS   256   /* 32-bit uniform registers */
#define HW_USC_MAX_SIMDS      32    /* 1024 threads per workgroup */
#define HW_USC_MAX_CODE_BYTES (1u << 20)

enum hw_usc_status {
   HW_USC_OK = 0,
   HW_USC_FAULT,          /* hard MMU fault: result.fault holds it */
   HW_USC_TRAP,           /* the shader executed `trap` */
   HW_USC_BAD_CODE,       /* undecodable / malformed shader, bad branch */
   HW_USC_BUDGET,         /* instruction budget exhausted (watchdog) */
   HW_USC_STOPPED,        /* the stop flag was raised */
   HW_USC_UNSUPPORTED,    /* stage-specific op without a hook */
   HW_USC_OUT_OF_BOUNDS,  /* threadgroup memory / stack access out of range */
   HW_USC_BAD_LAUNCH,     /* inconsistent launch descriptor */
};

const char *hw_usc_status_name(enum hw_usc_status s);

/* Why a run ended. pc is the GPU address of the offending instruction.
 * After a successful run: status HW_USC_OK, fault.valid false, pc and
 * simd 0, message "" (the bytes after its terminator are unspecified:
 * a launch runs per 16x2 group, and zeroing all of message each time
 * showed in the profile). */
struct hw_usc_result {
   enum hw_usc_status status;
   struct hw_fault fault;
   uint64_t pc;
   unsigned simd;             /* SIMD group that failed */
   char message[160];
};

struct hw_usc_stats {
   uint64_t instructions;     /* SIMD-group instructions executed */
   uint64_t cycles;           /* sum of the SIMD groups' modelled cycles */
   uint64_t max_simd_cycles;  /* the longest SIMD group (critical path) */
   uint64_t alu, sfu, imul, mem, cf;  /* instruction counts by class */
   uint64_t bytes_read, bytes_written;
   uint64_t barriers;
};

/* ---- shaders and the cache ----------------------------------------- */

struct hw_usc_shader;
struct hw_usc_cache;

/*
 * Decodes code[0..size) (GPU address va) into a shader.  Decoding starts at
 * code[0] and ends at the first `stop` past every forward branch target.
 * Returns NULL with a message in err on bad code.  Free with
 * hw_usc_shader_free() (shaders from a cache belong to the cache).
 */
struct hw_usc_shader *hw_usc_compile(const uint8_t *code, size_t size,
                                     uint64_t va, char *err, size_t err_size);
void hw_usc_shader_free(struct hw_usc_shader *s);
unsigned hw_usc_shader_length(const struct hw_usc_shader *s);   /* records */
size_t hw_usc_shader_bytes(const struct hw_usc_shader *s);
/* Highest GPR (32-bit register number) the shader names, +1. */
unsigned hw_usc_shader_gprs(const struct hw_usc_shader *s);
/* Whether the shader writes depth (a zs_emit with its z bit): the ISP
 * then tests depth with the emitted value instead of before shading. */
bool hw_usc_shader_writes_depth(const struct hw_usc_shader *s);
/* Whether the shader writes stencil (a zs_emit with its s bit): the value
 * is the stencil reference of the lane's samples (ARB_shader_stencil_export),
 * so the ISP runs the stencil test (and the depth test after it) at the
 * zs_emit instead of before shading. */
bool hw_usc_shader_writes_stencil(const struct hw_usc_shader *s);
/* The per-thread stack (bytes) the shader reserves with stack_adjust
 * (Mesa opens every shader that uses scratch with one): what a stage must
 * give each thread in hw_usc_workgroup.stack; 0 when it reserves none. */
uint32_t hw_usc_shader_stack_bytes(const struct hw_usc_shader *s);
/* Whether every launch of the shader computes the same, lane for lane,
 * from the same uniforms, initial registers (zeros plus what the start
 * hook writes) and stage-instruction results: straight-line ALU code on
 * registers, uniforms and immediates, without special registers
 * (positions, indices), memory, uniform or stack stores, control flow,
 * cross-lane or derivative ops; each stage (hook) instruction must be
 * accepted by hook_ok. The render core then runs a background program on
 * one 16x2 group of a tile and copies that group's tilebuffer result to
 * the tile's other whole groups (docs/rendering.md, Threading). */
bool hw_usc_shader_launch_invariant(const struct hw_usc_shader *s,
                                    bool (*hook_ok)(const struct agx_instr *in, void *user),
                                    void *user);

/* Whether a launch of the shader can change memory other than its
 * threadgroup memory and stack: device stores, atomics, uniform stores,
 * or a stage (hook) instruction hook_writes says writes (NULL: every hook
 * instruction counts). A launch of a shader without any computes the
 * same whatever order its workgroups run in (the vertex job spreads its
 * workgroups over the render core's pool only then). */
bool hw_usc_shader_writes_memory(const struct hw_usc_shader *s,
                                 bool (*hook_writes)(const struct agx_instr *in, void *user),
                                 void *user);

struct hw_usc_cache *hw_usc_cache_create(void);
void hw_usc_cache_destroy(struct hw_usc_cache *c);

/*
 * Reads the shader at `va` through `mmu` (up to HW_USC_MAX_CODE_BYTES),
 * hashes it and returns the cached compile or compiles it.  On failure
 * returns NULL and fills *res (FAULT or BAD_CODE).
 */
const struct hw_usc_shader *hw_usc_cache_get(struct hw_usc_cache *c,
                                             struct hw_mmu *mmu, uint64_t va,
                                             struct hw_usc_result *res);
/* Same from host bytes (tests, tools). */
const struct hw_usc_shader *hw_usc_cache_get_bytes(struct hw_usc_cache *c,
                                                   uint64_t va,
                                                   const uint8_t *code,
                                                   size_t size,
                                                   struct hw_usc_result *res);
unsigned hw_usc_cache_entries(struct hw_usc_cache *c);
/* The cached compile of the code at va if memory still holds exactly its
 * bytes, else NULL (no fault recorded): a cheap check before fetching
 * and compiling. */
const struct hw_usc_shader *hw_usc_cache_find(struct hw_usc_cache *c,
                                              struct hw_mmu *mmu, uint64_t va);

/* ---- launching ------------------------------------------------------ */

struct hw_usc_simd;

/*
 * Stage-specific instructions (iter, iterproj, ldcf, ld_tile, st_tile,
 * zs_emit, sample_mask, wait_pix, signal_pix, texture_sample,
 * texture_load, image_write, image_write_block, st_var, st_var_final) are
 * handed to this hook with the fully decoded instruction.  The hook reads
 * and writes lanes through hw_usc_simd_* below, only for lanes in
 * exec_mask, and returns a status (HW_USC_OK to continue).  Without a hook
 * these instructions stop the shader with HW_USC_UNSUPPORTED.
 */
typedef enum hw_usc_status (*hw_usc_stage_hook)(void *user,
                                                struct hw_usc_simd *simd,
                                                const struct agx_instr *instr,
                                                uint32_t exec_mask);

/* Special registers the built-in table does not know: fill out[32]. */
typedef void (*hw_usc_sr_hook)(void *user, unsigned simd_index, unsigned sr,
                               uint32_t out[HW_USC_SIMD_WIDTH]);

/*
 * Debug/test hook: called once per SIMD group when it has finished (stop),
 * before its registers are discarded.  The unit tests read results from
 * registers with it.
 */
typedef void (*hw_usc_finish_hook)(void *user, const struct hw_usc_simd *s);

/*
 * Called once per SIMD group before its first instruction, after the
 * registers are zeroed and positions set.  Fixed-function front ends use
 * it to preload registers as the hardware does (vertex/instance ID,
 * coverage), to place lanes (hw_usc_simd_set_position) and to start
 * lanes disabled (hw_usc_simd_disable_lanes).
 */
typedef void (*hw_usc_start_hook)(void *user, struct hw_usc_simd *s);

/* Flags */
#define HW_USC_STRICT_WAIT (1u << 0)

/* Shared by every workgroup of a dispatch; read only while running. */
struct hw_usc_launch {
   const struct hw_usc_shader *shader;
   const uint32_t *uniforms;     /* HW_USC_NUM_UNIFORMS initial values; NULL = 0 */
   unsigned gpr_count;           /* GPRs allocated per thread (1..128) */
   uint64_t texture_table;       /* texture state heap GPU address (for hooks) */
   uint64_t sampler_table;       /* sampler state heap GPU address (for hooks) */
   uint32_t threads_per_threadgroup[3];
   uint32_t grid_size[3];        /* threads in the grid (for hooks/SRs) */
   unsigned core_index, vm_slot;
   uint64_t instruction_budget;  /* per workgroup, 0 = unlimited */
   const volatile int *stop_flag;/* firmware watchdog: non-zero stops */
   uint32_t flags;               /* HW_USC_* */
   hw_usc_stage_hook stage_hook;
   hw_usc_sr_hook sr_hook;
   hw_usc_finish_hook finish_hook;
   hw_usc_start_hook start_hook;
   void *hook_user;
};

/* One workgroup's private resources. */
struct hw_usc_workgroup {
   uint32_t threadgroup_position[3];
   uint8_t *threadgroup_mem;     /* host memory, zero-filled by the caller */
   size_t threadgroup_mem_size;
   uint8_t *stack;               /* per-thread scratch for stack_load/store */
   uint32_t stack_bytes_per_thread;
   /* Threads in this workgroup when it is smaller than the launch's
    * threads_per_threadgroup (a partial workgroup at the grid's edge);
    * all zero = the launch's size.  Positions in the grid still step by
    * the launch's size (dispatch_threads_per_threadgroup). */
   uint32_t threads[3];
};

/*
 * Runs every SIMD group of one workgroup to completion.  mmu is the calling
 * thread's view (unit HW_UNIT_USC).  stats may be NULL; it is added to.
 */
enum hw_usc_status hw_usc_run_workgroup(const struct hw_usc_launch *launch,
                                        const struct hw_usc_workgroup *wg,
                                        struct hw_mmu *mmu,
                                        struct hw_usc_stats *stats,
                                        struct hw_usc_result *res);

/*
 * Runs a preshader (one SIMD group, lane 0 only).  uniforms[] holds the
 * initial values and receives what uniform_store writes; the main shader's
 * launch then points at it.
 */
enum hw_usc_status hw_usc_run_preshader(const struct hw_usc_launch *launch,
                                        uint32_t uniforms[HW_USC_NUM_UNIFORMS],
                                        struct hw_mmu *mmu,
                                        struct hw_usc_stats *stats,
                                        struct hw_usc_result *res);

/* The interpreter's speed-only fast paths (hw_usc_mem.c: one page
 * mapping per lane for a device load's components).  On by default; the
 * unit tests turn them off to run the same code through the general
 * paths and require identical registers, faults and statistics.  Set it
 * only while no shader runs. */
extern bool hw_usc_fast_paths;

/* ---- register access for hooks and tests ---------------------------- */

uint32_t hw_usc_simd_read32(const struct hw_usc_simd *s, unsigned reg, unsigned lane);
void hw_usc_simd_write32(struct hw_usc_simd *s, unsigned reg, unsigned lane, uint32_t v);
uint16_t hw_usc_simd_read16(const struct hw_usc_simd *s, unsigned half, unsigned lane);
void hw_usc_simd_write16(struct hw_usc_simd *s, unsigned half, unsigned lane, uint16_t v);
/* The 32 lanes of 32-bit register reg & 127 at once (lane l at [l]), for
 * hooks that walk every lane: same values as the per-lane accessors; the
 * pointer stays valid for the group's run.  A 16-bit half h is bits
 * (h & 1) * 16 of row h >> 1. */
uint32_t *hw_usc_simd_row32(struct hw_usc_simd *s, unsigned reg);
uint32_t hw_usc_simd_uniform32(const struct hw_usc_simd *s, unsigned u);
unsigned hw_usc_simd_index(const struct hw_usc_simd *s);
/* Start hooks only.  Sets a lane's thread_position_in_threadgroup (and so
 * its thread_position_in_grid); lanes need not be in linear order. */
void hw_usc_simd_set_position(struct hw_usc_simd *s, unsigned lane, uint32_t x,
                              uint32_t y, uint32_t z);
/* Start hooks only.  hw_usc_simd_set_position() for every lane at once:
 * lane l at (x[l], y[l], z). */
void hw_usc_simd_set_positions(struct hw_usc_simd *s, const uint32_t x[HW_USC_SIMD_WIDTH],
                               const uint32_t y[HW_USC_SIMD_WIDTH], uint32_t z);
/* Start hooks only.  Lanes in mask begin inactive, as if behind one
 * failed `if` (r0l = 1): they stay present and can be re-enabled by
 * the shader's control flow exactly like lanes a branch disabled. */
void hw_usc_simd_disable_lanes(struct hw_usc_simd *s, uint32_t mask);
/*
 * Lanes in mask run as helper invocations: a pixel shader's lanes with no
 * live coverage, kept running only so that their quad's derivatives
 * exist. The USC predicates their memory writes away (device stores;
 * image writes, through hw_usc_simd_helpers) and is_active_thread (sr63)
 * reads 0 in them, as on the hardware: Mesa's asahi compiler leaves plain
 * stores to it ("The hardware will predicate simple writes for us",
 * agx_nir_lower_frag_sidefx.c) and guards atomics with is_active_thread.
 * Everything else (registers, stack, loads) runs as in any lane. Zero
 * at the start of every group; stage hooks may change it at any time
 * (a discard turns covered lanes into helpers).
 */
void hw_usc_simd_set_helpers(struct hw_usc_simd *s, uint32_t mask);
uint32_t hw_usc_simd_helpers(const struct hw_usc_simd *s);
struct hw_mmu *hw_usc_simd_mmu(struct hw_usc_simd *s);
/* The group's workgroup (NULL for a preshader): stage hooks reach its
 * threadgroup memory through it (compute imageblocks). */
const struct hw_usc_workgroup *hw_usc_simd_workgroup(const struct hw_usc_simd *s);
/* A failing stage hook says why (the group's error message quotes it). */
void hw_usc_simd_hook_message(struct hw_usc_simd *s, const char *msg);

/* ---- numeric helpers (exported for tests and other units) ------------ */

float hw_usc_f16_to_f32(uint16_t h);
/* round to nearest even (rtz = false) or toward zero (rtz = true) */
uint16_t hw_usc_f64_to_f16(double d, bool rtz);
uint16_t hw_usc_f32_to_f16(float f);

/* ---- instruction operand/field lookup for stage hooks ----------------- */

/*
 * Hooks look operands and fields of their instructions up by XML name on
 * every execution; by name that is a string search per lookup.  A
 * hook module lists its names once and fills a table of indices per
 * opcode (from a pthread_once routine):
 *    static const char *const names[] = { "R", "C" };
 *    static int8_t idx[AGX_NUM_OPCODES][HW_ISA_NAMES_MAX];
 *    hw_isa_names_fill(idx, names, 2, false);
 * then hw_isa_operand(in, idx, k) / hw_isa_field(in, idx, k) return what
 * the by-name search (first match; NULL / 0 when absent) returns.
 */
#define HW_ISA_NAMES_MAX 16
void hw_isa_names_fill(int8_t (*idx)[HW_ISA_NAMES_MAX], const char *const *names,
                       unsigned n, bool fields);

static inline const struct agx_operand *
hw_isa_operand(const struct agx_instr *in, const int8_t (*idx)[HW_ISA_NAMES_MAX], unsigned k)
{
   if ((unsigned)in->op >= AGX_NUM_OPCODES)
      return NULL;
   int i = idx[in->op][k];
   return i >= 0 && i < in->num_operands ? &in->operands[i] : NULL;
}

static inline uint32_t
hw_isa_field(const struct agx_instr *in, const int8_t (*idx)[HW_ISA_NAMES_MAX], unsigned k)
{
   if ((unsigned)in->op >= AGX_NUM_OPCODES)
      return 0;
   int i = idx[in->op][k];
   return i >= 0 ? in->fields[i] : 0;
}

#endif

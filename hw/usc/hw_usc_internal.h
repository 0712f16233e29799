/* SPDX-License-Identifier: MIT */
/*
 * hwusc internals: the compiled instruction record and SIMD-group state.
 *
 * Register numbering in records: 16-bit operands use half indices (r3h =
 * 7), 32- and 64-bit operands use 32-bit register numbers (r2_r3 = 2), the
 * same for uniforms.  Only the translation in hw_usc_compile.c looks at
 * struct agx_instr; the interpreter sees these records.
 */
#ifndef HW_USC_INTERNAL_H
#define HW_USC_INTERNAL_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "hw/usc/hw_usc.h"
#include "tessera/half.h"

#define USC_W HW_USC_SIMD_WIDTH

enum usc_src_kind {
   SRC_NONE = 0,
   SRC_IMM,    /* integer immediate in imm (a 16-bit value) */
   SRC_FIMM,   /* minifloat immediate, imm = its f32 bits */
   SRC_R16, SRC_R32, SRC_R64,
   SRC_U16, SRC_U32, SRC_U64,
};

#define SRCF_ABS 1
#define SRCF_NEG 2
#define SRCF_SX  4

struct usc_src {
   uint8_t kind;
   uint8_t flags;
   uint16_t idx;
   uint32_t imm;
};

struct usc_dst {
   uint8_t size;     /* 0 (none), 16, 32, 64 */
   uint8_t count;    /* registers in a memory tuple */
   uint16_t idx;
};

enum usc_op {
   U_MOV_IMM, U_GET_SR, U_IADD, U_IMADD, U_CONVERT,
   U_BFI, U_BFEIL, U_EXTR, U_SHLHI, U_SHRHI, U_ASR, U_ASRH,
   U_BITOP, U_BITREV, U_POPCOUNT, U_FFS, U_INTL,
   U_FMADD32, U_FADD32, U_FMUL32, U_FMADD16, U_FADD16, U_FMUL16,
   U_FUNARY,                       /* sub = enum usc_funary */
   U_RET, U_CALL_REG, U_STOP, U_TRAP, U_JMP_ANY, U_JMP_NONE, U_CALL,
   U_POP_EXEC, U_IF, U_ELSE, U_WHILE, /* sub bit 0: float compare */
   U_ICMPSEL, U_FCMPSEL,
   U_SHUFFLE,                      /* sub = enum usc_shuffle */
   U_REDUCE,                       /* sub = enum usc_reduce, mode bit0 prefix, bit1 quad */
   U_BALLOT,                       /* sub 1: float compare; mode RD_QUAD: the quad's */
   U_WAIT, U_DEVICE_LOAD, U_DEVICE_STORE, U_TG_LOAD, U_TG_STORE,
   U_UNIFORM_STORE, U_STACK_LOAD, U_STACK_STORE, U_ATOMIC,
   U_BARRIER, U_MEMORY_BARRIER,
   U_STACK_ADJUST,                 /* no effect: each thread's stack slice starts at 0;
                                      compile records the size (stack_bytes) */
   U_HOOK,                         /* stage-specific, via the launch hook */
};

enum usc_funary {
   FU_FLOOR, FU_CEIL, FU_TRUNC, FU_RINT, FU_RCP, FU_RSQRT, FU_RSQRT_SPECIAL,
   FU_SIN_PT_1, FU_SIN_PT_2, FU_LOG2, FU_EXP2, FU_DFDX, FU_DFDY,
};

enum usc_shuffle {
   SH_SIMD, SH_SIMD_DOWN, SH_SIMD_UP, SH_SIMD_ROTATE_UP, SH_SIMD_XOR,
   SH_QUAD, SH_QUAD_DOWN, SH_QUAD_UP, SH_QUAD_ROTATE_UP, SH_QUAD_XOR,
};

enum usc_reduce {
   RD_AND, RD_OR, RD_XOR, RD_IADD, RD_FADD, RD_FMUL,
   RD_UMIN, RD_UMAX, RD_SMIN, RD_SMAX, RD_FMIN, RD_FMAX,
};
#define RD_PREFIX 1
#define RD_QUAD   2

/* Timing (docs/usc.md): device-load latency charged at the wait, memory
 * bandwidth in bytes per cycle. */
#define USC_LOAD_LATENCY 64
#define USC_BYTES_PER_CYCLE 64

/* Timing classes (docs/usc.md). */
enum usc_class { C_ALU, C_IMUL, C_SFU, C_MEM, C_CF, C_SHUFFLE };

struct usc_inst {
   uint8_t op;        /* enum usc_op */
   uint8_t sub;
   uint8_t cls;       /* enum usc_class */
   uint8_t len;       /* encoded bytes */
   uint8_t sat;
   uint8_t neg;       /* iadd/imadd N */
   uint8_t cc;        /* condition / truth table / atomic op / convert mode */
   uint8_t mode;      /* round mode, reduce flags, Ou (unsigned index) */
   uint8_t shift;
   uint8_t mask;      /* memory mask or bitfield width m */
   uint8_t fmt;       /* memory format */
   uint8_t n;         /* push/pop count */
   uint8_t slot;      /* scoreboard */
   uint16_t hook;     /* index into shader->hook_instrs */
   uint32_t pc;       /* byte offset in the shader */
   int32_t target;    /* branch target record */
   struct usc_dst d;
   struct usc_src s[4];
};

struct hw_usc_shader {
   uint64_t va;
   uint64_t hash;
   size_t bytes;
   unsigned count;
   unsigned max_gpr;          /* highest 32-bit GPR named + 1 */
   unsigned reg_bound;        /* GPRs the interpreter can touch (simd_init) */
   struct usc_inst *inst;
   struct agx_instr *hook_instrs;
   unsigned hook_count;
   bool writes_depth;         /* a zs_emit with its z bit (decided at compile) */
   bool writes_stencil;       /* a zs_emit with its s bit */
   bool stores_uniforms;      /* has a uniform_store (the launch copies them) */
   uint32_t stack_bytes;      /* per-thread stack its stack_adjust reserves */
   struct hw_usc_shader *next; /* cache chain */
   /* Cached shaders: their code bytes and the chain of the va index
    * (hw_usc_cache_find). */
   uint8_t *code;
   struct hw_usc_shader *next_va;
   /* Native code of its ALU runs (hw_usc_native.c), read without a lock
    * (atomic pointers, each set once): `native_share` is the entry of all
    * cached shaders with the same code bytes (wherever they sit), which
    * counts their work and holds the code compiled once for them all;
    * `native` caches its code here once compiled. */
   struct usc_native *native;
   struct usc_native_share *native_share;
   /* The instructions it ran while the loader held the plugin's load back
    * (hw_usc_native_load.c, load_deferred; atomic), handed to the plugin
    * at its first request after the load. */
   uint64_t native_unloaded_work;
};

/*
 * The native path (hw_usc_native.c, built with TESSERA_HAVE_LLVM): runs of
 * straight-line ALU records compiled to host code.  at[i] is the run
 * starting at record i (NULL: interpret record i); a run of n records
 * [i, end) charges what interpreting them would: n instructions, `cycles`,
 * and its records' ALU / IMUL class counts.
 */
struct hw_usc_simd;
typedef void (*usc_native_fn)(uint32_t *r, const uint32_t *u, uint32_t exec,
                              const struct hw_usc_simd *s);
struct usc_native_run {
   usc_native_fn fn;
   uint32_t n, end, cycles, alu, imul;
};
struct usc_native {
   struct usc_native_run **at;    /* [count] */
   struct usc_native_run *runs;
   unsigned nruns, nrecords;
   void *rt;                       /* the JIT's resource tracker of this code */
};
/*
 * Weak: a program that links libhwusc.a without the native object (Mesa's
 * compiler test, a build without LLVM) gets NULL here and interprets.
 * Programs of this tree pull it in with -u usc_native_get (Makefile).
 *   usc_native_get: the shader's native code, compiled once for all
 *     cached shaders with its code bytes (thread-safe): with
 *     TESSERA_USC_NATIVE=1 (default) once they are hot (USC_NATIVE_HOT
 *     SIMD-group instructions run between them, counted by
 *     usc_native_note at the end of usc_run_simd), with 2 at the first
 *     launch; NULL
 *     before that, with 0, when nothing is translatable, or when the JIT
 *     failed (reported once, then interpreted).
 *   usc_native_release: drops the shader's share (hw_usc_shader_free); the
 *     last shader of an entry frees its code.
 *   usc_native_set_mode: overrides TESSERA_USC_NATIVE for shaders not yet
 *     compiled (tests).  Like usc_native_set_cache_dir and
 *     usc_native_set_async, it never loads the plugin: the value is kept
 *     and applies when the plugin loads, if it is not loaded yet.
 *   usc_native_translatable: whether the native path takes this record.
 */
const struct usc_native *usc_native_get(const struct hw_usc_shader *sh)
   __attribute__((weak));
void usc_native_release(struct hw_usc_shader *sh) __attribute__((weak));
void usc_native_note(const struct hw_usc_shader *sh, uint64_t instructions)
   __attribute__((weak));
void usc_native_set_mode(int mode) __attribute__((weak));
bool usc_native_translatable(const struct usc_inst *in) __attribute__((weak));
/* The on-disk cache of compiled code (docs/usc.md, Native path):
 *   usc_native_set_cache_dir: overrides TESSERA_USC_NATIVE_CACHE (a
 *     directory; NULL or "" disables the cache) for later compiles (tests).
 *   usc_native_cache_get_counts: objects loaded from it, stored to it,
 *     files rejected (corrupt, truncated, foreign), stores that failed. */
struct usc_native_cache_counts {
   uint64_t hits, stored, rejected, unwritable;
};
void usc_native_set_cache_dir(const char *dir) __attribute__((weak));
/* Compiling off the critical path (TESSERA_USC_NATIVE=1): a hot shader is
 * compiled by a background thread while launches keep interpreting.
 *   usc_native_set_async: overrides TESSERA_USC_NATIVE_ASYNC (0: compile
 *     on the launching thread) (tests).
 *   usc_native_wait_idle: returns once no compile is queued or under way. */
void usc_native_set_async(bool async) __attribute__((weak));
void usc_native_wait_idle(void) __attribute__((weak));
struct usc_native_cache_counts usc_native_cache_get_counts(void) __attribute__((weak));
/* Disposes of the JIT when no shader holds native code (it is made again
 * on demand); for leak checkers at teardown. */
void usc_native_shutdown(void) __attribute__((weak));
/* Default of TESSERA_USC_NATIVE when unset. */
#define HW_USC_NATIVE_DEFAULT 1
#define USC_NATIVE_HOT 200000

/* Pending register writes of an async load under HW_USC_STRICT_WAIT. */
#define USC_MAX_PENDING 16
struct usc_pending {
   uint8_t slot, size, count;
   uint16_t idx;
   uint32_t lanes;
   uint32_t v[4][USC_W];
};

struct hw_usc_simd {
   uint32_t r[HW_USC_NUM_GPRS][USC_W];  /* [register][lane] for lane loops */
   unsigned zeroed;                 /* r[0..zeroed) are initialised (usc_touch) */
   const uint32_t *u;               /* the workgroup's uniform registers */
   uint32_t *uw;                    /* the same, writable: uniform_store
                                     * (NULL when the shader has none) */
   uint32_t exec;                   /* active lanes */
   uint32_t present;                /* lanes that exist */
   uint32_t helpers;                /* helper invocations (hw_usc_simd_set_helpers) */
   unsigned index;                  /* SIMD group in the workgroup */
   unsigned pc;                     /* record index */
   bool done, at_barrier;
   uint64_t cycles, instructions;
   unsigned outstanding;            /* scoreboard slots with loads in flight */
   unsigned npending;
   struct usc_pending pending[USC_MAX_PENDING];
   /* context */
   const struct hw_usc_launch *launch;
   const struct hw_usc_workgroup *wg;
   struct hw_mmu *mmu;
   struct hw_usc_stats *stats;
   uint32_t local_id[3][USC_W];         /* thread_position_in_threadgroup */
   uint32_t linear_id[USC_W];           /* thread_index_in_threadgroup */
   bool preshader;
   char hook_message[96];               /* why the last stage hook failed */
};

/* This workgroup's size: its own when partial, else the launch's. */
static inline const uint32_t *
usc_wg_threads(const struct hw_usc_launch *L, const struct hw_usc_workgroup *wg)
{
   if (wg && (wg->threads[0] | wg->threads[1] | wg->threads[2]))
      return wg->threads;
   return L->threads_per_threadgroup;
}

/* hw_usc_exec.c: the special register `sr` of every lane (get_sr); the
 * native path calls it for the registers it does not compute itself. */
void usc_read_sr(const struct hw_usc_simd *s, unsigned sr, uint32_t out[USC_W]);
/* hw_usc_exec.c: runs until stop / barrier / error / budget. */
enum hw_usc_status usc_run_simd(struct hw_usc_simd *s, uint64_t *budget,
                                struct hw_usc_result *res);

/* hw_usc_mem.c */
enum hw_usc_status usc_exec_mem(struct hw_usc_simd *s,
                                const struct usc_inst *in,
                                struct hw_usc_result *res);
void usc_flush_pending(struct hw_usc_simd *s, int slot);

/* hw_usc_float.c */
uint32_t usc_ftz32(uint32_t bits);
uint32_t usc_store_f32(double v, bool sat);        /* round, FTZ, NaN, sat */
/* Result of a 16-bit float op: one rounding to half, canonical NaN, sat
 * (applegpu's: negative, -0 and NaN -> +0). Inline: it runs per lane. */
static inline uint16_t
usc_store_f16(double v, bool sat)
{
   if (v != v)
      return sat ? 0 : 0x7e00;
   if (sat)
      v = signbit(v) ? 0.0 : v > 1.0 ? 1.0 : v;
   return tessera_f64_to_f16(v, false);
}
double usc_funary(enum usc_funary op, double x);
float usc_unpack_float11(uint32_t v);
float usc_unpack_float10(uint32_t v);
uint32_t usc_pack_float11(float f, bool rtz);
uint32_t usc_pack_float10(float f, bool rtz);
float usc_srgb_to_linear(unsigned v);
unsigned usc_linear_to_srgb(float f);
double usc_fma16(double a, double b, double c);

/*
 * A group starts with every register zero.  simd_init() zeroes only the
 * registers the shader's records can reach (shader->reg_bound); the
 * stage hooks reach registers only through the hw_usc_simd_read/write
 * accessors, which zero the rest on first touch.  Same values, without
 * clearing 16 KB per launch.
 */
static inline void
usc_touch(struct hw_usc_simd *s, unsigned reg32)
{
   reg32 &= 127;
   if (reg32 >= s->zeroed) {
      memset(s->r[s->zeroed], 0, (size_t)(reg32 + 1 - s->zeroed) * sizeof(s->r[0]));
      s->zeroed = reg32 + 1;
   }
}

static inline uint32_t
usc_rd16(const struct hw_usc_simd *s, unsigned half, unsigned lane)
{
   return (s->r[(half >> 1) & 127][lane] >> ((half & 1) * 16)) & 0xffff;
}

static inline void
usc_wr16(struct hw_usc_simd *s, unsigned half, unsigned lane, uint32_t v)
{
   uint32_t *p = &s->r[(half >> 1) & 127][lane];
   unsigned sh = (half & 1) * 16;
   *p = (*p & ~(0xffffu << sh)) | ((v & 0xffff) << sh);
}

static inline uint32_t
usc_uni16(const struct hw_usc_simd *s, unsigned half)
{
   return (s->u[(half >> 1) & 255] >> ((half & 1) * 16)) & 0xffff;
}

#endif

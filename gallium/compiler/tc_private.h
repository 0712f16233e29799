/* SPDX-License-Identifier: MIT */
/*
 * tessera compiler internals: the tc IR and the functions its passes share.
 *
 * Pipeline (tc_compile.c drives it; docs/driver.md "The compiler"):
 *   key lowering (tc_compile.c: blending / colour outputs; tc_nir.c: I/O)
 *   -> instruction selection into the IR (tc_isel_*.c, building helpers in
 *      tc_ir.c) -> register allocation (tc_ra.c) -> scoreboard waits
 *      (tc_waits.c) -> printing and assembling (tc_emit.c).
 *
 * The IR
 * ------
 * A program is a flat array of `struct inst` in execution order. Each
 * instruction is a *template*: the agxisa assembler text of one
 * instruction (docs/isa.md syntax) in which $0..$7 stand for its operands
 * (e.g. "fmadd32 $0, $1, $2, 0.25"). Nothing but the template knows the
 * opcode; after allocation the operands are printed into it and the text
 * goes through agx_isa_assemble, so every instruction is encoded (and
 * checked) by the ISA library. Branch targets are labels "L<n>" inside
 * templates ("jmp_exec_none pc+L3" / an I_LABEL "L3:"), resolved by the
 * assembler.
 *
 * Operand kinds (struct opnd.kind):
 *   O_REG   virtual register `v`, component `comp`, `count` consecutive
 *           components (count > 1: a register tuple "rN_rN+1_...");
 *   O_PHYS  fixed hardware register `v` (r5/r6 vertex/instance id);
 *   O_UNI   32-bit uniform register `v`;
 *   O_IMM   immediate `v` (raw 32 bits; F_FLOAT prints it as a float).
 * Flags: F_NEG/F_ABS float source modifiers (also carried on immediates
 * until legalised), F_HALF the 16-bit low half "rNl", F_DEF marks the
 * operands the instruction writes (only what liveness and the scoreboard
 * need), F_PAIR16 prints "rNl_rNh" (zs_emit's depth operand).
 *
 * Virtual registers are 32-bit per component and sized in components
 * (vreg.size). A scalar vreg may be an *alias* of one component of a
 * tuple (vreg.alias/alias_comp): a value computed only to feed a vector
 * operand is then allocated inside that vector instead of being copied;
 * tc_regalloc() rewrites aliases to the tuple before liveness.
 *
 * Instruction kinds: I_ALU (ordinary), I_ASYNC (device_load / texture
 * results arrive later: tc_insert_waits() puts a `wait` before their
 * first use), I_CF (changes the exec mask) and I_LABEL. I_CF and I_LABEL
 * end a straight-line run: the constant cache is dropped and pending
 * asynchronous results are waited for.
 *
 * Control flow: r0l is the per-lane nesting counter the hardware defines
 * (0 = active). if_*cmp/else_*cmp/while_*cmp/pop_exec update it (facts:
 * notes-isa.md; model: hw/usc exec_cf). Each `if` pushes one level, each
 * loop two: inside a loop body, a lane that executed `break` is parked at
 * 2 + (ifs it is nested in, counted from the loop), one that executed
 * `continue` at 1 + that depth; the pop_exec 1 of every enclosing `if`
 * brings them to 2 / 1 at the loop's end, where while_icmp n=2 re-enables
 * the continued lanes and the final pop_exec 2 the broken ones. Parking
 * uses else_icmp up to level 3 (a 2-bit push count), beyond that a write
 * of r0l (reaches only the active lanes) and pop_exec 0 (tc_isel_cf.c).
 *
 * Register conventions: r0 (r0l = nesting counter) and r1 (link register)
 * belong to the hardware; the vertex shader gets its vertex/instance id in
 * r5/r6, so allocation starts at r7 (VS) or r2 (FS). No spilling.
 */
#ifndef TC_PRIVATE_H
#define TC_PRIVATE_H

#include "compiler/nir/nir.h"
#include "util/bitset.h"
#include "util/ralloc.h"
#include "util/u_math.h"

#include "tc_compiler.h"

#define MAX_OPS 8

enum okind { O_NONE, O_REG, O_PHYS, O_UNI, O_IMM };

#define F_NEG    (1u << 0)
#define F_ABS    (1u << 1)
#define F_HALF   (1u << 2)   /* 16-bit view (low half) */
#define F_DEF    (1u << 3)   /* written by the instruction */
#define F_FLOAT  (1u << 4)   /* immediate printed as a float */
#define F_PAIR16 (1u << 5)   /* printed as the 16-bit pair rNl_rNh */

struct opnd {
   uint8_t kind, flags, count, comp;
   uint32_t v;
};

enum ikind { I_ALU, I_ASYNC, I_CF, I_LABEL };

struct inst {
   char *fmt;                 /* template, $k = op[k] */
   uint8_t kind, nop;
   struct opnd op[MAX_OPS];
};

struct vreg {
   uint8_t size;              /* components */
   int start, end;            /* live range (instruction indices), -1: unused */
   int phys;                  /* first hardware register after allocation */
   int alias;            /* >= 0: this scalar lives in component alias_comp of vreg alias */
   uint8_t alias_comp;
};

/* Instruction range of a loop body (values live across it stay allocated
 * for all of it). */
struct loop_range {
   int start, end;
};

/* Scalarised interpolated loads of one fragment input in the first block,
 * served by one iter over components lo..hi (tc_isel_fs.c). */
struct iter_group {
   unsigned loc, mode, lo, hi;
   nir_intrinsic_op bary;
   int vreg;
};

/* The per-compile context. */
struct tc {
   nir_shader *nir;
   const union tc_key *key;
   struct tc_shader_binary *out;
   void *mem;                 /* ralloc context */
   char *error;               /* first error; once set, passes stop */

   struct inst *insts;
   unsigned ninsts, cap_insts;
   struct vreg *vregs;
   unsigned nvregs, cap_vregs;
   struct loop_range *loops;  /* inner loops first */
   unsigned nloops, cap_loops;

   struct opnd *ssa;          /* 4 per SSA def */
   unsigned *regmap;          /* nir_register index -> vreg */
   unsigned nlabels;
   int if_depth;              /* ifs since the innermost loop */
   bool in_loop;
   unsigned max_uniform;      /* highest 32-bit uniform + 1 */

   /* vertex outputs / fragment outputs (values at the end) */
   struct opnd outv[VARYING_SLOT_MAX][4];
   bool outw[VARYING_SLOT_MAX][4];
   bool pixel_waited;
   BITSET_WORD *satfused;     /* SSA defs computed with .sat for their fsat */

   struct iter_group igroups[32];
   unsigned nigroups;

   /* constants already in a register in the current straight-line run */
   struct { uint32_t bits; unsigned vreg; } kcache[16];
   unsigned nkcache;
};

/* ------------------------------------------------------------ operands */

static inline struct opnd
R(unsigned vreg, unsigned comp)
{
   return (struct opnd){ .kind = O_REG, .count = 1, .comp = comp, .v = vreg };
}

/* The whole tuple vreg[0..count). */
static inline struct opnd
RV(unsigned vreg, unsigned count)
{
   return (struct opnd){ .kind = O_REG, .count = count, .comp = 0, .v = vreg };
}

static inline struct opnd
IMM(uint32_t v)
{
   return (struct opnd){ .kind = O_IMM, .count = 1, .v = v };
}

static inline struct opnd
UNI(unsigned u)
{
   return (struct opnd){ .kind = O_UNI, .count = 1, .v = u };
}

static inline struct opnd
PHYS(unsigned r)
{
   return (struct opnd){ .kind = O_PHYS, .count = 1, .v = r };
}

static inline struct opnd
DEF(struct opnd o)
{
   o.flags |= F_DEF;
   return o;
}

static inline struct opnd
HALF(struct opnd o)
{
   o.flags |= F_HALF;
   return o;
}

static inline struct opnd
use(struct opnd o)
{
   o.flags &= ~F_DEF;
   return o;
}

/* First hardware register of an allocated operand. */
static inline unsigned
tc_opnd_phys(const struct tc *c, const struct opnd *o)
{
   return o->kind == O_PHYS ? o->v : (unsigned)c->vregs[o->v].phys + o->comp;
}

/* ------------------------------------------------- IR building (tc_ir.c) */

void PRINTFLIKE(2, 3) tc_fail(struct tc *c, const char *fmt, ...);
unsigned tc_new_vreg(struct tc *c, unsigned size);

/* A new scalar temporary, as a definition. */
static inline struct opnd
tmp(struct tc *c)
{
   return R(tc_new_vreg(c, 1), 0);
}

struct inst *tc_emit_ops(struct tc *c, unsigned kind, const char *fmt,
                         const struct opnd *ops, unsigned n);
void PRINTFLIKE(3, 4) tc_emit_text(struct tc *c, unsigned kind, const char *fmt, ...);

#define EMIT(c, fmt, ...)                                                    \
   tc_emit_ops(c, I_ALU, fmt, (struct opnd[]){ __VA_ARGS__ },                \
               sizeof((struct opnd[]){ __VA_ARGS__ }) / sizeof(struct opnd))
#define EMITK(c, k, fmt, ...)                                                \
   tc_emit_ops(c, k, fmt, (struct opnd[]){ __VA_ARGS__ },                    \
               sizeof((struct opnd[]){ __VA_ARGS__ }) / sizeof(struct opnd))

static inline unsigned
tc_new_label(struct tc *c)
{
   return c->nlabels++;
}

void tc_place_label(struct tc *c, unsigned l);

/* Operand legality: each returns an operand the named source slot accepts,
 * moving the value to a register when it does not. */
struct opnd tc_mov_to_reg(struct tc *c, struct opnd v);
struct opnd tc_to_reg(struct tc *c, struct opnd v);
uint32_t tc_apply_fmods(uint32_t bits, unsigned flags);
struct opnd tc_fsrc_legal(struct tc *c, struct opnd v);
struct opnd tc_isrc_legal(struct tc *c, struct opnd v);
struct opnd tc_csrc_legal(struct tc *c, struct opnd v);
struct opnd tc_true_reg(struct tc *c);

/* NIR values: SSA components map to operands, NIR registers to vregs. */
struct opnd tc_get_src(struct tc *c, const nir_src *src, unsigned comp);
struct opnd tc_get_src_now(struct tc *c, const nir_src *src, unsigned comp);
void tc_set_ssa(struct tc *c, const nir_ssa_def *def, unsigned comp, struct opnd v);

struct opnd tc_vector_operand(struct tc *c, const struct opnd *vals, unsigned n);
unsigned tc_vec_dest(struct tc *c, nir_ssa_def *def, unsigned n);
const char *tc_mask_name(unsigned n);

/* --------------------------------------------- instruction selection */

/* tc_isel_alu.c */
struct tc_cmp {
   bool is_float;
   const char *cc;   /* icmpsel/fcmpsel condition */
   bool swap;        /* select Y when the condition holds */
};

bool tc_cmp_info(nir_op op, struct tc_cmp *k);
nir_alu_instr *tc_cmp_parent(const nir_src *s);
struct opnd tc_fsrc(struct tc *c, nir_alu_instr *alu, unsigned i);
struct opnd tc_isrc(struct tc *c, nir_alu_instr *alu, unsigned i);
void tc_emit_alu(struct tc *c, nir_alu_instr *alu);

/* tc_isel_io.c */
void tc_emit_intrinsic(struct tc *c, nir_intrinsic_instr *in);
void tc_emit_vs_epilogue(struct tc *c);

/* tc_isel_fs.c */
void tc_collect_iter_groups(struct tc *c, nir_function_impl *impl);
void tc_emit_fs_input(struct tc *c, nir_intrinsic_instr *in);
void tc_emit_frag_coord(struct tc *c, nir_ssa_def *def, unsigned first);
void tc_emit_front_face(struct tc *c, nir_ssa_def *def, bool as_float);
void tc_emit_point_coord(struct tc *c, nir_ssa_def *def, unsigned comp);
void tc_emit_discard(struct tc *c, nir_intrinsic_instr *in);
void tc_emit_load_output_fs(struct tc *c, nir_intrinsic_instr *in);
void tc_emit_fs_epilogue(struct tc *c);

/* tc_isel_tex.c */
void tc_emit_tex(struct tc *c, nir_tex_instr *tex);

/* tc_isel_cf.c */
void tc_emit_cf_list(struct tc *c, struct exec_list *list);

/* ------------------------------------------------------ after selection */

bool tc_regalloc(struct tc *c, unsigned first_gpr);   /* tc_ra.c */
void tc_insert_waits(struct tc *c);                    /* tc_waits.c */
char *tc_print_program(struct tc *c);                  /* tc_emit.c */
bool tc_assemble(struct tc *c, const char *text);      /* tc_emit.c */

/* ------------------------------------------------------------- tc_nir.c */

bool tc_vertex_format_info(enum pipe_format format, const char **mem_format,
                           unsigned *item_bytes, unsigned *comps);
void tc_lower_io(nir_shader *nir, const union tc_key *key);

#endif

/*
 * tessera compiler: instruction selection (NIR -> tc IR), register
 * allocation, scoreboard waits and encoding.
 *
 * The tc IR is a list of instructions, each an agxisa text template with
 * operands ($0..$7) that name virtual registers, uniforms, immediates or
 * fixed registers. Virtual registers are 32-bit and may be tuples (vector
 * results of loads, texture sources); a 16-bit operand uses the low half
 * of its register. After linear-scan allocation the templates are printed
 * and assembled with agx_isa_assemble (which also resolves the branch
 * labels), so every instruction goes through the ISA library's encoder.
 *
 * Control flow uses r0l as the per-lane nesting counter the hardware
 * defines (if/else/while_icmp, pop_exec): an `if` pushes one level, a
 * loop two (lanes that broke out park at level 2, lanes that continued
 * at level 1, relative to the loop).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "compiler/nir/nir.h"
#include "compiler/nir/nir_builder.h"
#include "compiler/nir/nir_lower_blend.h"
#include "util/format/u_format.h"
#include "util/ralloc.h"
#include "util/u_blend.h"
#include "util/u_math.h"
#include "util/bitset.h"

#include "cmdstream/isa/agx_isa.h"

#include "tc_compiler.h"
#include "tc_private.h"

#define MAX_OPS 8

enum okind { O_NONE, O_REG, O_PHYS, O_UNI, O_IMM };

#define F_NEG   (1u << 0)
#define F_ABS   (1u << 1)
#define F_HALF  (1u << 2)   /* 16-bit view (low half) */
#define F_DEF   (1u << 3)   /* written by the instruction */
#define F_FLOAT (1u << 4)   /* immediate printed as a minifloat */

struct opnd {
   uint8_t kind, flags, count, comp;
   uint32_t v;
};

enum ikind { I_ALU, I_ASYNC, I_CF, I_LABEL };

struct inst {
   char *fmt;
   uint8_t kind, nop;
   struct opnd op[MAX_OPS];
};

struct vreg {
   uint8_t size;
   int start, end;
   int phys;
   int alias;            /* >= 0: this scalar lives in component alias_comp of vreg alias */
   uint8_t alias_comp;
};

struct loop_range {
   int start, end;
};

struct iter_group {
   unsigned loc, mode, lo, hi;
   nir_intrinsic_op bary;
   int vreg;
};

struct tc {
   nir_shader *nir;
   const union tc_key *key;
   struct tc_shader_binary *out;
   void *mem;                 /* ralloc context */
   char *error;

   struct inst *insts;
   unsigned ninsts, cap_insts;
   struct vreg *vregs;
   unsigned nvregs, cap_vregs;
   struct loop_range *loops;
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

static void PRINTFLIKE(2, 3)
fail(struct tc *c, const char *fmt, ...)
{
   if (c->error)
      return;
   va_list ap;
   va_start(ap, fmt);
   c->error = ralloc_vasprintf(c->mem, fmt, ap);
   va_end(ap);
}

/* ------------------------------------------------------------ IR building */

static unsigned
new_vreg(struct tc *c, unsigned size)
{
   if (c->nvregs == c->cap_vregs) {
      c->cap_vregs = c->cap_vregs ? c->cap_vregs * 2 : 256;
      c->vregs = reralloc(c->mem, c->vregs, struct vreg, c->cap_vregs);
   }
   c->vregs[c->nvregs] = (struct vreg){ .size = size, .start = -1, .end = -1, .phys = -1,
                                        .alias = -1 };
   return c->nvregs++;
}

static struct opnd
R(unsigned vreg, unsigned comp)
{
   return (struct opnd){ .kind = O_REG, .count = 1, .comp = comp, .v = vreg };
}

static struct opnd
RV(unsigned vreg, unsigned count)
{
   return (struct opnd){ .kind = O_REG, .count = count, .comp = 0, .v = vreg };
}

static struct opnd
IMM(uint32_t v)
{
   return (struct opnd){ .kind = O_IMM, .count = 1, .v = v };
}

static struct opnd
UNI(unsigned u)
{
   return (struct opnd){ .kind = O_UNI, .count = 1, .v = u };
}

static struct opnd
PHYS(unsigned r)
{
   return (struct opnd){ .kind = O_PHYS, .count = 1, .v = r };
}

static struct opnd
DEF(struct opnd o)
{
   o.flags |= F_DEF;
   return o;
}

static struct opnd
HALF(struct opnd o)
{
   o.flags |= F_HALF;
   return o;
}

/* A new scalar temporary, as a definition. */
static struct opnd
tmp(struct tc *c)
{
   return R(new_vreg(c, 1), 0);
}

static struct opnd
use(struct opnd o)
{
   o.flags &= ~F_DEF;
   return o;
}

static struct inst *
emit_ops(struct tc *c, unsigned kind, const char *fmt, const struct opnd *ops,
         unsigned n)
{
   if (c->ninsts == c->cap_insts) {
      c->cap_insts = c->cap_insts ? c->cap_insts * 2 : 512;
      c->insts = reralloc(c->mem, c->insts, struct inst, c->cap_insts);
   }
   if (kind == I_CF || kind == I_LABEL)
      c->nkcache = 0;   /* a register written in one block may not be set in another */
   struct inst *I = &c->insts[c->ninsts++];
   memset(I, 0, sizeof(*I));
   I->fmt = ralloc_strdup(c->mem, fmt);
   I->kind = kind;
   I->nop = n;
   for (unsigned i = 0; i < n; i++)
      I->op[i] = ops[i];
   return I;
}

#define EMIT(c, fmt, ...)                                                    \
   emit_ops(c, I_ALU, fmt, (struct opnd[]){ __VA_ARGS__ },                   \
            sizeof((struct opnd[]){ __VA_ARGS__ }) / sizeof(struct opnd))
#define EMITK(c, k, fmt, ...)                                                \
   emit_ops(c, k, fmt, (struct opnd[]){ __VA_ARGS__ },                       \
            sizeof((struct opnd[]){ __VA_ARGS__ }) / sizeof(struct opnd))

static void
emit_text(struct tc *c, unsigned kind, const char *fmt, ...)
{
   char buf[256];
   va_list ap;
   va_start(ap, fmt);
   vsnprintf(buf, sizeof(buf), fmt, ap);
   va_end(ap);
   emit_ops(c, kind, buf, NULL, 0);
}

static unsigned
new_label(struct tc *c)
{
   return c->nlabels++;
}

static void
place_label(struct tc *c, unsigned l)
{
   emit_text(c, I_LABEL, "L%u:", l);
}

/* -------------------------------------------------------- operand legality */

static struct opnd
mov_to_reg(struct tc *c, struct opnd v)
{
   if (v.kind == O_IMM && !(v.flags & (F_NEG | F_ABS))) {
      for (unsigned i = 0; i < c->nkcache; i++)
         if (c->kcache[i].bits == v.v)
            return R(c->kcache[i].vreg, 0);
   }
   struct opnd d = tmp(c);
   if (v.kind == O_IMM) {
      char buf[64];
      snprintf(buf, sizeof(buf), "mov_imm $0, %u, 0b0", v.v);
      EMIT(c, buf, DEF(d));
      if (!(v.flags & (F_NEG | F_ABS))) {
         unsigned slot = c->nkcache < ARRAY_SIZE(c->kcache) ? c->nkcache++ : v.v % ARRAY_SIZE(c->kcache);
         c->kcache[slot].bits = v.v;
         c->kcache[slot].vreg = d.v;
      }
   } else if (v.flags & (F_NEG | F_ABS)) {
      EMIT(c, "fadd32 $0, $1, -0.0", DEF(d), v);
   } else {
      EMIT(c, "mov $0, $1", DEF(d), v);
   }
   return d;
}

/* A plain register (no modifiers, no uniform, no immediate). */
static struct opnd
to_reg(struct tc *c, struct opnd v)
{
   if (v.kind == O_REG && !(v.flags & (F_NEG | F_ABS | F_HALF)) && v.count == 1)
      return use(v);
   if (v.kind == O_PHYS && !(v.flags & (F_NEG | F_ABS | F_HALF)))
      return v;
   return mov_to_reg(c, v);
}

static uint32_t
apply_fmods(uint32_t bits, unsigned flags)
{
   if (flags & F_ABS)
      bits &= 0x7fffffffu;
   if (flags & F_NEG)
      bits ^= 0x80000000u;
   return bits;
}

/* Float ALU source: registers/uniforms with abs/neg, minifloat immediates. */
static struct opnd
fsrc_legal(struct tc *c, struct opnd v)
{
   if (v.kind == O_IMM) {
      uint32_t bits = apply_fmods(v.v, v.flags);
      float f = uif(bits);
      uint8_t raw;
      if (agx_minifloat_encode(f, &raw)) {
         struct opnd o = IMM(bits);
         o.flags = F_FLOAT;
         return o;
      }
      return mov_to_reg(c, IMM(bits));
   }
   return v;
}

/* Integer ALU source: registers, uniforms, 8-bit immediates. */
static struct opnd
isrc_legal(struct tc *c, struct opnd v)
{
   if (v.flags & (F_NEG | F_ABS))
      return mov_to_reg(c, v);
   if (v.kind == O_IMM && v.v > 255)
      return mov_to_reg(c, v);
   return v;
}

/* icmpsel/fcmpsel X/Y: registers, uniforms, 8-bit integer immediates. */
static struct opnd
csrc_legal(struct tc *c, struct opnd v)
{
   return isrc_legal(c, v);
}

/* ------------------------------------------------------------- NIR values */

static struct opnd
get_src(struct tc *c, const nir_src *src, unsigned comp)
{
   if (src->is_ssa) {
      if (src->ssa->bit_size != 32 && src->ssa->bit_size != 1) {
         fail(c, "%u-bit values are not supported", src->ssa->bit_size);
         return IMM(0);
      }
      struct opnd o = c->ssa[src->ssa->index * 4 + comp];
      if (o.kind == O_NONE) {
         fail(c, "internal: SSA value %u used before its definition", src->ssa->index);
         return IMM(0);
      }
      return o;
   }
   if (src->reg.indirect || src->reg.reg->num_array_elems) {
      fail(c, "indirect register access is not supported");
      return IMM(0);
   }
   return R(c->regmap[src->reg.reg->index], comp);
}

/* The value of a source as of now. NIR registers (phi webs) may be
 * written again later, so a value kept for later use is copied. */
static struct opnd
get_src_now(struct tc *c, const nir_src *src, unsigned comp)
{
   struct opnd v = get_src(c, src, comp);
   if (src->is_ssa)
      return v;
   struct opnd d = tmp(c);
   EMIT(c, "mov $0, $1", DEF(d), v);
   return d;
}

static void
set_ssa(struct tc *c, const nir_ssa_def *def, unsigned comp, struct opnd v)
{
   v.flags &= ~F_DEF;
   c->ssa[def->index * 4 + comp] = v;
}

/* The destination of a scalar ALU instruction, as a definition. */
static struct opnd
alu_dest(struct tc *c, nir_alu_instr *alu)
{
   nir_dest *d = &alu->dest.dest;
   if (d->is_ssa) {
      if (d->ssa.bit_size != 32 && d->ssa.bit_size != 1)
         fail(c, "%u-bit ALU results are not supported", d->ssa.bit_size);
      struct opnd o = tmp(c);
      set_ssa(c, &d->ssa, 0, o);
      return DEF(o);
   }
   if (d->reg.indirect || d->reg.reg->num_array_elems)
      fail(c, "indirect register access is not supported");
   unsigned comp = alu->dest.write_mask ? ffs(alu->dest.write_mask) - 1 : 0;
   return DEF(R(c->regmap[d->reg.reg->index], comp));
}

static struct opnd
alu_src_raw(struct tc *c, nir_alu_instr *alu, unsigned i)
{
   unsigned comp = alu->src[i].swizzle[0];
   if (!alu->dest.dest.is_ssa && alu->dest.write_mask)
      comp = alu->src[i].swizzle[ffs(alu->dest.write_mask) - 1];
   struct opnd o = get_src(c, &alu->src[i].src, comp);
   if (alu->src[i].negate)
      o.flags ^= F_NEG;
   if (alu->src[i].abs)
      o.flags |= F_ABS, o.flags &= ~F_NEG;
   return o;
}

static bool
foldable_float_use(nir_op op)
{
   switch (op) {
   case nir_op_fadd: case nir_op_fmul: case nir_op_ffma: case nir_op_fneg:
   case nir_op_fabs: case nir_op_fsat: case nir_op_ffloor: case nir_op_fceil:
   case nir_op_ftrunc: case nir_op_fround_even: case nir_op_frcp:
   case nir_op_frsq: case nir_op_fsqrt: case nir_op_fexp2: case nir_op_flog2:
   case nir_op_fsin: case nir_op_fcos: case nir_op_flt32: case nir_op_fge32:
   case nir_op_feq32: case nir_op_fneu32: case nir_op_fddx: case nir_op_fddy:
   case nir_op_fddx_fine: case nir_op_fddy_fine: case nir_op_fddx_coarse:
   case nir_op_fddy_coarse: case nir_op_fmin: case nir_op_fmax:
      return true;
   default:
      return false;
   }
}

/* Float source: chases fneg/fabs into source modifiers. */
static struct opnd
fsrc_raw(struct tc *c, nir_alu_instr *alu, unsigned i)
{
   nir_src *s = &alu->src[i].src;
   if (s->is_ssa && s->ssa->parent_instr->type == nir_instr_type_alu) {
      nir_alu_instr *p = nir_instr_as_alu(s->ssa->parent_instr);
      /* only through SSA: a register may have changed since */
      if ((p->op == nir_op_fneg || p->op == nir_op_fabs) && p->src[0].src.is_ssa &&
          !p->src[0].negate && !p->src[0].abs) {
         struct opnd o = fsrc_raw(c, p, 0);
         if (p->op == nir_op_fneg)
            o.flags ^= F_NEG;
         else
            o.flags = (o.flags | F_ABS) & ~F_NEG;
         return o;
      }
   }
   return alu_src_raw(c, alu, i);
}

static struct opnd
fsrc(struct tc *c, nir_alu_instr *alu, unsigned i)
{
   return fsrc_legal(c, fsrc_raw(c, alu, i));
}

static struct opnd
isrc(struct tc *c, nir_alu_instr *alu, unsigned i)
{
   return isrc_legal(c, alu_src_raw(c, alu, i));
}

static struct opnd
true_reg(struct tc *c)
{
   return mov_to_reg(c, IMM(0xffffffffu));
}

/* -------------------------------------------------------------- ALU ops */

struct cmp {
   bool is_float;
   const char *cc;   /* icmpsel/fcmpsel condition */
   bool swap;        /* select Y when the condition holds */
};

static bool
cmp_info(nir_op op, struct cmp *k)
{
   switch (op) {
   case nir_op_flt32: *k = (struct cmp){ true, "lt", false }; return true;
   case nir_op_fge32: *k = (struct cmp){ true, "gte", false }; return true;
   case nir_op_feq32: *k = (struct cmp){ true, "eq", false }; return true;
   case nir_op_fneu32: *k = (struct cmp){ true, "eq", true }; return true;
   case nir_op_ilt32: *k = (struct cmp){ false, "slt", false }; return true;
   case nir_op_ige32: *k = (struct cmp){ false, "slt", true }; return true;
   case nir_op_ult32: *k = (struct cmp){ false, "ult", false }; return true;
   case nir_op_uge32: *k = (struct cmp){ false, "ult", true }; return true;
   case nir_op_ieq32: *k = (struct cmp){ false, "ueq", false }; return true;
   case nir_op_ine32: *k = (struct cmp){ false, "ueq", true }; return true;
   default: return false;
   }
}

/* d = cond(alu) ? x : y */
static void
emit_cmpsel(struct tc *c, struct opnd d, nir_alu_instr *cmpi, struct opnd x,
            struct opnd y)
{
   struct cmp k;
   cmp_info(cmpi->op, &k);
   struct opnd a = k.is_float ? fsrc(c, cmpi, 0) : isrc(c, cmpi, 0);
   struct opnd b = k.is_float ? fsrc(c, cmpi, 1) : isrc(c, cmpi, 1);
   x = csrc_legal(c, x);
   y = csrc_legal(c, y);
   char buf[64];
   snprintf(buf, sizeof(buf), "%s %s, $0, $1, $2, $3, $4",
            k.is_float ? "fcmpsel" : "icmpsel", k.cc);
   if (k.swap)
      EMIT(c, buf, d, a, b, y, x);
   else
      EMIT(c, buf, d, a, b, x, y);
}

/* The comparison an SSA boolean comes straight from, if any. */
static nir_alu_instr *
cmp_parent(const nir_src *s)
{
   if (!s->is_ssa || s->ssa->parent_instr->type != nir_instr_type_alu)
      return NULL;
   nir_alu_instr *p = nir_instr_as_alu(s->ssa->parent_instr);
   struct cmp k;
   /* re-evaluated at the user: only from SSA sources, which cannot change */
   if (!cmp_info(p->op, &k) || !p->src[0].src.is_ssa || !p->src[1].src.is_ssa)
      return NULL;
   return p;
}

static bool
all_uses_fold(nir_alu_instr *alu)
{
   if (!alu->dest.dest.is_ssa || !alu->src[0].src.is_ssa || alu->src[0].negate ||
       alu->src[0].abs)
      return false;
   if (!list_is_empty(&alu->dest.dest.ssa.if_uses))
      return false;
   nir_foreach_use(u, &alu->dest.dest.ssa) {
      if (u->parent_instr->type != nir_instr_type_alu)
         return false;
      nir_alu_instr *p = nir_instr_as_alu(u->parent_instr);
      if (!foldable_float_use(p->op))
         return false;
      /* fmin/fmax select their sources (no modifiers on X/Y) */
      if (p->op == nir_op_fmin || p->op == nir_op_fmax)
         return false;
   }
   return true;
}

/* A comparison only used as bcsel conditions and if conditions, which
 * compare themselves (cmp_parent). */
static bool
cmp_uses_all_fused(nir_alu_instr *alu)
{
   struct cmp k;
   if (!cmp_info(alu->op, &k) || !alu->dest.dest.is_ssa || !alu->src[0].src.is_ssa ||
       !alu->src[1].src.is_ssa)
      return false;
   nir_foreach_use(u, &alu->dest.dest.ssa) {
      if (u->parent_instr->type != nir_instr_type_alu)
         return false;
      nir_alu_instr *p = nir_instr_as_alu(u->parent_instr);
      if (p->op != nir_op_b32csel || u != &p->src[0].src || p->src[0].swizzle[0] != 0)
         return false;
   }
   return true;
}

/* The only use of this result is an fsat (which then costs nothing). */
static bool
sat_fusable(nir_alu_instr *alu)
{
   if (!alu->dest.dest.is_ssa || !list_is_empty(&alu->dest.dest.ssa.if_uses) ||
       !list_is_singular(&alu->dest.dest.ssa.uses))
      return false;
   nir_src *u = list_first_entry(&alu->dest.dest.ssa.uses, nir_src, use_link);
   if (u->parent_instr->type != nir_instr_type_alu)
      return false;
   nir_alu_instr *p = nir_instr_as_alu(u->parent_instr);
   return p->op == nir_op_fsat && p->dest.dest.is_ssa && !p->src[0].negate && !p->src[0].abs;
}

static void
emit_sincos(struct tc *c, struct opnd d, struct opnd x, bool cosine)
{
   /* sin_pt_1 takes quarter turns in [0, 4) */
   struct opnd k = mov_to_reg(c, IMM(fui(0.15915494309189535f)));
   struct opnd turns = tmp(c);
   if (cosine)
      EMIT(c, "fmadd32 $0, $1, $2, 0.25", DEF(turns), x, k);
   else
      EMIT(c, "fmul32 $0, $1, $2", DEF(turns), x, k);
   struct opnd fl = tmp(c), fr = tmp(c), q = tmp(c), y = tmp(c), s2 = tmp(c);
   EMIT(c, "floor $0, $1", DEF(fl), turns);
   EMIT(c, "fadd32 $0, $1, $2", DEF(fr), turns, (struct opnd){ .kind = O_REG, .count = 1, .comp = fl.comp, .v = fl.v, .flags = F_NEG });
   EMIT(c, "fmul32 $0, $1, 4.0", DEF(q), fr);
   EMIT(c, "sin_pt_1 $0, $1", DEF(y), q);
   EMIT(c, "sin_pt_2 $0, $1", DEF(s2), y);
   EMIT(c, "fmul32 $0, $1, $2", d, y, s2);
}

static void
emit_alu(struct tc *c, nir_alu_instr *alu)
{
   /* Moves and vectors of SSA values are free: they only rename. */
   if (alu->dest.dest.is_ssa &&
       (alu->op == nir_op_mov || alu->op == nir_op_vec2 || alu->op == nir_op_vec3 ||
        alu->op == nir_op_vec4 || alu->op == nir_op_f2f32 || alu->op == nir_op_i2i32 ||
        alu->op == nir_op_u2u32)) {
      unsigned n = alu->dest.dest.ssa.num_components;
      for (unsigned i = 0; i < n; i++) {
         struct opnd v = alu->op == nir_op_mov || alu->op == nir_op_f2f32 ||
                         alu->op == nir_op_i2i32 || alu->op == nir_op_u2u32
                            ? get_src_now(c, &alu->src[0].src, alu->src[0].swizzle[i])
                            : get_src_now(c, &alu->src[i].src, alu->src[i].swizzle[0]);
         set_ssa(c, &alu->dest.dest.ssa, i, v);
      }
      return;
   }
   if (alu->dest.dest.is_ssa && alu->dest.dest.ssa.num_components != 1) {
      fail(c, "vector ALU op %s (scalarisation missed it)", nir_op_infos[alu->op].name);
      return;
   }
   if ((alu->op == nir_op_fneg || alu->op == nir_op_fabs) && all_uses_fold(alu))
      return;   /* folded into every user as a source modifier */
   if (cmp_uses_all_fused(alu))
      return;   /* every user re-evaluates it as its own condition */
   if (alu->op == nir_op_fsat && alu->dest.dest.is_ssa && alu->src[0].src.is_ssa &&
       BITSET_TEST(c->satfused, alu->src[0].src.ssa->index)) {
      set_ssa(c, &alu->dest.dest.ssa, 0, get_src(c, &alu->src[0].src, 0));
      return;
   }

   struct opnd d = alu_dest(c, alu);
   char buf[96];

   switch (alu->op) {
   case nir_op_mov: case nir_op_f2f32: case nir_op_i2i32: case nir_op_u2u32: {
      struct opnd s = alu_src_raw(c, alu, 0);
      if (s.kind == O_IMM) {
         snprintf(buf, sizeof(buf), "mov_imm $0, %u, 0b0", apply_fmods(s.v, s.flags));
         EMIT(c, buf, d);
      } else if (s.flags & (F_NEG | F_ABS)) {
         EMIT(c, "fadd32 $0, $1, -0.0", d, s);
      } else {
         EMIT(c, "mov $0, $1", d, s);
      }
      break;
   }
   case nir_op_fadd: case nir_op_fmul: case nir_op_ffma: {
      bool sat = sat_fusable(alu);
      if (sat)
         BITSET_SET(c->satfused, alu->dest.dest.ssa.index);
      if (alu->op == nir_op_fadd)
         EMIT(c, sat ? "fadd32.sat $0, $1, $2" : "fadd32 $0, $1, $2", d, fsrc(c, alu, 0), fsrc(c, alu, 1));
      else if (alu->op == nir_op_fmul)
         EMIT(c, sat ? "fmul32.sat $0, $1, $2" : "fmul32 $0, $1, $2", d, fsrc(c, alu, 0), fsrc(c, alu, 1));
      else
         EMIT(c, sat ? "fmadd32.sat $0, $1, $2, $3" : "fmadd32 $0, $1, $2, $3", d,
              fsrc(c, alu, 0), fsrc(c, alu, 1), fsrc(c, alu, 2));
      break;
   }
   case nir_op_fneg: case nir_op_fabs: {
      struct opnd s = fsrc_raw(c, alu, 0);
      if (alu->op == nir_op_fneg)
         s.flags ^= F_NEG;
      else
         s.flags = (s.flags | F_ABS) & ~F_NEG;
      EMIT(c, "fadd32 $0, $1, -0.0", d, fsrc_legal(c, s));
      break;
   }
   case nir_op_fsat: EMIT(c, "fadd32.sat $0, $1, 0.0", d, fsrc(c, alu, 0)); break;
   case nir_op_fsat_signed_mali: {
      /* clamp(a, -1, 1); NaN gives -1 (the select drops it) */
      struct opnd a = to_reg(c, fsrc_raw(c, alu, 0)), t = tmp(c);
      struct opnd m1 = mov_to_reg(c, IMM(fui(-1.0f))), p1 = mov_to_reg(c, IMM(fui(1.0f)));
      EMIT(c, "fcmpsel gtn, $0, $1, -1.0, $2, $3", DEF(t), a, a, m1);
      EMIT(c, "fcmpsel ltn, $0, $1, 1.0, $2, $3", d, t, t, p1);
      break;
   }
   case nir_op_ffloor: EMIT(c, "floor $0, $1", d, fsrc(c, alu, 0)); break;
   case nir_op_fceil: EMIT(c, "ceil $0, $1", d, fsrc(c, alu, 0)); break;
   case nir_op_ftrunc: EMIT(c, "trunc $0, $1", d, fsrc(c, alu, 0)); break;
   case nir_op_fround_even: EMIT(c, "rint $0, $1", d, fsrc(c, alu, 0)); break;
   case nir_op_frcp: EMIT(c, "rcp $0, $1", d, fsrc(c, alu, 0)); break;
   case nir_op_frsq: EMIT(c, "rsqrt $0, $1", d, fsrc(c, alu, 0)); break;
   case nir_op_fexp2: EMIT(c, "exp2 $0, $1", d, fsrc(c, alu, 0)); break;
   case nir_op_flog2: EMIT(c, "log2 $0, $1", d, fsrc(c, alu, 0)); break;
   case nir_op_fsqrt: {
      struct opnd a = fsrc(c, alu, 0), t = tmp(c);
      EMIT(c, "rsqrt_special $0, $1", DEF(t), a);
      EMIT(c, "fmul32 $0, $1, $2", d, a, t);
      break;
   }
   case nir_op_fsin: case nir_op_fcos:
      emit_sincos(c, d, fsrc(c, alu, 0), alu->op == nir_op_fcos);
      break;
   case nir_op_fddx: case nir_op_fddx_fine: case nir_op_fddx_coarse:
      EMIT(c, "dfdx $0, $1", d, fsrc(c, alu, 0));
      break;
   case nir_op_fddy: case nir_op_fddy_fine: case nir_op_fddy_coarse:
      EMIT(c, "dfdy $0, $1", d, fsrc(c, alu, 0));
      break;
   case nir_op_fmin: case nir_op_fmax: {
      struct opnd a = fsrc(c, alu, 0), b = fsrc(c, alu, 1);
      /* X/Y take no modifiers and no float immediates */
      struct opnd x = (a.flags & (F_NEG | F_ABS)) || (a.kind == O_IMM && a.v > 255) ? to_reg(c, a) : a;
      struct opnd y = (b.flags & (F_NEG | F_ABS)) || (b.kind == O_IMM && b.v > 255) ? to_reg(c, b) : b;
      if (x.kind == O_IMM)
         x.flags &= ~F_FLOAT;
      if (y.kind == O_IMM)
         y.flags &= ~F_FLOAT;
      EMIT(c, alu->op == nir_op_fmin ? "fcmpsel ltn, $0, $1, $2, $3, $4"
                                     : "fcmpsel gtn, $0, $1, $2, $3, $4",
           d, a, b, x, y);
      break;
   }
   case nir_op_flt32: case nir_op_fge32: case nir_op_feq32: case nir_op_fneu32:
   case nir_op_ilt32: case nir_op_ige32: case nir_op_ult32: case nir_op_uge32:
   case nir_op_ieq32: case nir_op_ine32:
      emit_cmpsel(c, d, alu, true_reg(c), IMM(0));
      break;
   case nir_op_b32csel: {
      struct opnd x = alu_src_raw(c, alu, 1), y = alu_src_raw(c, alu, 2);
      nir_alu_instr *cmpi = cmp_parent(&alu->src[0].src);
      if (cmpi && alu->src[0].swizzle[0] == 0) {
         emit_cmpsel(c, d, cmpi, x, y);
      } else {
         EMIT(c, "icmpsel ueq, $0, $1, 0, $2, $3", d, isrc(c, alu, 0),
              csrc_legal(c, y), csrc_legal(c, x));
      }
      break;
   }
   case nir_op_b2f32:
      EMIT(c, "icmpsel ueq, $0, $1, 0, 0, $2", d, isrc(c, alu, 0),
           mov_to_reg(c, IMM(fui(1.0f))));
      break;
   case nir_op_b2i32:
      EMIT(c, "and $0, $1, 1", d, isrc(c, alu, 0));
      break;
   case nir_op_i2b32:
      EMIT(c, "icmpsel ueq, $0, $1, 0, 0, $2", d, isrc(c, alu, 0), true_reg(c));
      break;
   case nir_op_f2b32:
      EMIT(c, "fcmpsel eq, $0, $1, 0.0, 0, $2", d, fsrc(c, alu, 0), true_reg(c));
      break;
   case nir_op_f2i32: EMIT(c, "convert f_to_s32, $0, $1, rtz", d, to_reg(c, fsrc_raw(c, alu, 0))); break;
   case nir_op_f2u32: EMIT(c, "convert f_to_u32, $0, $1, rtz", d, to_reg(c, fsrc_raw(c, alu, 0))); break;
   case nir_op_i2f32: EMIT(c, "convert s32_to_f, $0, $1, rte", d, isrc(c, alu, 0)); break;
   case nir_op_u2f32: EMIT(c, "convert u32_to_f, $0, $1, rte", d, isrc(c, alu, 0)); break;
   case nir_op_iadd: EMIT(c, "iadd $0, $1, $2", d, isrc(c, alu, 0), isrc(c, alu, 1)); break;
   case nir_op_isub: EMIT(c, "isub $0, $1, $2", d, isrc(c, alu, 0), isrc(c, alu, 1)); break;
   case nir_op_ineg: EMIT(c, "isub $0, 0, $1", d, isrc(c, alu, 0)); break;
   case nir_op_imul: EMIT(c, "imadd $0, $1, $2, 0", d, isrc(c, alu, 0), isrc(c, alu, 1)); break;
   case nir_op_iand: EMIT(c, "and $0, $1, $2", d, isrc(c, alu, 0), isrc(c, alu, 1)); break;
   case nir_op_ior: EMIT(c, "or $0, $1, $2", d, isrc(c, alu, 0), isrc(c, alu, 1)); break;
   case nir_op_ixor: EMIT(c, "xor $0, $1, $2", d, isrc(c, alu, 0), isrc(c, alu, 1)); break;
   case nir_op_inot: EMIT(c, "not $0, $1", d, isrc(c, alu, 0)); break;
   case nir_op_ishl: case nir_op_ushr: case nir_op_ishr: {
      struct opnd a = isrc(c, alu, 0), s = alu_src_raw(c, alu, 1);
      if (s.kind == O_IMM) {
         s = IMM(s.v & 31);
      } else {
         struct opnd t = tmp(c);
         EMIT(c, "and $0, $1, 31", DEF(t), isrc_legal(c, s));
         s = t;
      }
      if (alu->op == nir_op_ishl)
         EMIT(c, "bfi $0, 0, $1, $2", d, a, s);
      else if (alu->op == nir_op_ushr)
         EMIT(c, "bfeil $0, 0, $1, $2", d, a, s);
      else
         EMIT(c, "asr $0, $1, $2", d, a, s);
      break;
   }
   case nir_op_iabs: {
      struct opnd a = isrc(c, alu, 0), t = tmp(c);
      EMIT(c, "isub $0, 0, $1", DEF(t), a);
      EMIT(c, "icmpsel slt, $0, $1, 0, $2, $3", d, a, t, csrc_legal(c, a));
      break;
   }
   case nir_op_umul_high: case nir_op_imul_high: {
      /* 32 x 32 -> 64-bit product into a pair, keep the high word */
      unsigned p = new_vreg(c, 2);
      struct opnd a = to_reg(c, alu_src_raw(c, alu, 0)), b = to_reg(c, alu_src_raw(c, alu, 1));
      if (alu->op == nir_op_imul_high)
         EMIT(c, "imadd $0, $1.sx, $2.sx, 0", DEF(RV(p, 2)), a, b);
      else
         EMIT(c, "imadd $0, $1, $2, 0", DEF(RV(p, 2)), a, b);
      EMIT(c, "mov $0, $1", d, R(p, 1));
      break;
   }
   case nir_op_flrp: {
      /* a + t * (b - a) */
      struct opnd a = fsrc(c, alu, 0), b = fsrc(c, alu, 1), t = fsrc(c, alu, 2);
      struct opnd na = fsrc_raw(c, alu, 0), diff = tmp(c);
      na.flags ^= F_NEG;
      EMIT(c, "fadd32 $0, $1, $2", DEF(diff), b, fsrc_legal(c, na));
      EMIT(c, "fmadd32 $0, $1, $2, $3", d, t, diff, a);
      break;
   }
   case nir_op_imin: case nir_op_imax: case nir_op_umin: case nir_op_umax: {
      struct opnd a = isrc(c, alu, 0), b = isrc(c, alu, 1);
      const char *f = alu->op == nir_op_imin ? "icmpsel slt, $0, $1, $2, $3, $4"
                    : alu->op == nir_op_imax ? "icmpsel sgt, $0, $1, $2, $3, $4"
                    : alu->op == nir_op_umin ? "icmpsel ult, $0, $1, $2, $3, $4"
                                             : "icmpsel ugt, $0, $1, $2, $3, $4";
      EMIT(c, f, d, a, b, a, b);
      break;
   }
   default:
      fail(c, "unsupported ALU op %s", nir_op_infos[alu->op].name);
      break;
   }
}

/* A register tuple holding vals[0..n): the registers themselves when they
 * already are consecutive components of one vector, else copies. */
static struct opnd
vector_operand(struct tc *c, const struct opnd *vals, unsigned n)
{
   bool direct = vals[0].kind == O_REG && !(vals[0].flags & (F_NEG | F_ABS | F_HALF));
   for (unsigned i = 1; i < n && direct; i++)
      direct = vals[i].kind == O_REG && vals[i].v == vals[0].v &&
               vals[i].comp == vals[0].comp + i && !(vals[i].flags & (F_NEG | F_ABS | F_HALF));
   if (direct) {
      struct opnd o = vals[0];
      o.count = n;
      o.flags = 0;
      return o;
   }
   /* Scalars computed only for this tuple are allocated inside it (their
    * vreg becomes an alias of the component) instead of being copied. */
   unsigned v = new_vreg(c, n);
   for (unsigned i = 0; i < n; i++) {
      struct opnd s = vals[i];
      bool alias = s.kind == O_REG && !(s.flags & (F_NEG | F_ABS | F_HALF)) &&
                   c->vregs[s.v].size == 1 && c->vregs[s.v].alias < 0 && s.comp == 0;
      for (unsigned j = 0; j < i && alias; j++)
         alias = !(vals[j].kind == O_REG && vals[j].v == s.v);
      if (alias) {
         c->vregs[s.v].alias = (int)v;
         c->vregs[s.v].alias_comp = i;
         continue;
      }
      if (s.kind == O_IMM) {
         char buf[64];
         snprintf(buf, sizeof(buf), "mov_imm $0, %u, 0b0", apply_fmods(s.v, s.flags));
         EMIT(c, buf, DEF(R(v, i)));
      } else if (s.flags & (F_NEG | F_ABS)) {
         EMIT(c, "fadd32 $0, $1, -0.0", DEF(R(v, i)), s);
      } else {
         EMIT(c, "mov $0, $1", DEF(R(v, i)), s);
      }
   }
   return RV(v, n);
}

/* ---------------------------------------------------------- intrinsics */

static const char *
mask_name(unsigned n)
{
   static const char *names[] = { "", "x", "xy", "xyz", "xyzw" };
   return names[n];
}

/* New vector register of n components, results defined as SSA comps. */
static unsigned
vec_dest(struct tc *c, nir_ssa_def *def, unsigned n)
{
   unsigned v = new_vreg(c, n);
   for (unsigned i = 0; i < n && i < def->num_components; i++)
      set_ssa(c, def, i, R(v, i));
   return v;
}

static void
emit_load_ubo(struct tc *c, nir_intrinsic_instr *in)
{
   nir_ssa_def *def = &in->dest.ssa;
   if (!nir_src_is_const(in->src[0]) || nir_src_as_uint(in->src[0]) != 0) {
      fail(c, "only constant buffer 0 is supported");
      return;
   }
   unsigned n = def->num_components;
   if (def->bit_size != 32) {
      fail(c, "%u-bit uniform loads are not supported", def->bit_size);
      return;
   }
   bool vec4 = in->intrinsic == nir_intrinsic_load_ubo_vec4;
   unsigned comp0 = vec4 ? nir_intrinsic_component(in) + 4 * nir_intrinsic_base(in) : 0;
   if (nir_src_is_const(in->src[1])) {
      /* load_ubo: bytes; load_ubo_vec4: vec4 slots + a component */
      unsigned off = vec4 ? nir_src_as_uint(in->src[1]) * 16 + comp0 * 4
                          : nir_src_as_uint(in->src[1]);
      if (off % 4 == 0 && off / 4 + n <= TC_MAX_PUSH_WORDS) {
         for (unsigned i = 0; i < n; i++)
            set_ssa(c, def, i, UNI(TC_U_PUSH + off / 4 + i));
         return;
      }
      if (off % 4) {
         fail(c, "unaligned uniform load");
         return;
      }
      unsigned v = vec_dest(c, def, n);
      char buf[96];
      c->max_uniform = MAX2(c->max_uniform, TC_U_CBUF0_ADDR + 2);
      snprintf(buf, sizeof(buf), "device_load 0, i32, %s, $0, u0_u1, $1, unsigned",
               mask_name(n));
      EMITK(c, I_ASYNC, buf, DEF(RV(v, n)), to_reg(c, IMM(off / 4)));
      return;
   }
   struct opnd idx = tmp(c);
   if (vec4)
      EMIT(c, "imadd $0, $1, 4, $2", DEF(idx), to_reg(c, get_src(c, &in->src[1], 0)),
           isrc_legal(c, IMM(comp0)));
   else
      EMIT(c, "bfeil $0, 0, $1, 2", DEF(idx), to_reg(c, get_src(c, &in->src[1], 0)));
   unsigned v = vec_dest(c, def, n);
   char buf[96];
   c->max_uniform = MAX2(c->max_uniform, TC_U_CBUF0_ADDR + 2);
   snprintf(buf, sizeof(buf), "device_load 0, i32, %s, $0, u0_u1, $1, unsigned", mask_name(n));
   EMITK(c, I_ASYNC, buf, DEF(RV(v, n)), idx);
}

static void
emit_vs_load_input(struct tc *c, nir_intrinsic_instr *in)
{
   unsigned loc = nir_intrinsic_base(in) + (nir_src_is_const(in->src[0]) ? nir_src_as_uint(in->src[0]) : 0);
   unsigned comp = nir_intrinsic_component(in);
   nir_ssa_def *def = &in->dest.ssa;
   if (!nir_src_is_const(in->src[0])) {
      fail(c, "indirect vertex attribute access");
      return;
   }
   if (loc >= c->key->vs.nr_attribs) {
      fail(c, "vertex attribute %u is not in the key (%u attributes)", loc,
           c->key->vs.nr_attribs);
      return;
   }
   const struct tc_vertex_attrib *a = &c->key->vs.attribs[loc];
   const char *mf;
   unsigned item, nc;
   if (!tc_vertex_format_info(a->format, &mf, &item, &nc)) {
      fail(c, "vertex format %s is not fetched by the shader", util_format_name(a->format));
      return;
   }
   if (a->stride % item || a->src_offset % item || a->buffer >= TC_MAX_VBUFS) {
      fail(c, "vertex attribute %u: offset/stride not aligned to its format", loc);
      return;
   }
   /* element index = id * stride/item + offset/item */
   struct opnd id;
   if (a->divisor == 0) {
      id = PHYS(5);
   } else if (a->divisor == 1) {
      id = PHYS(6);
   } else {
      /* floor((iid + 0.5) / divisor), exact for realistic instance counts */
      struct opnd f = tmp(c), q = tmp(c), i2 = tmp(c);
      EMIT(c, "convert u32_to_f, $0, $1, rte", DEF(f), PHYS(6));
      EMIT(c, "fadd32 $0, $1, 0.5", DEF(q), f);
      struct opnd k = mov_to_reg(c, IMM(fui(1.0f / (float)a->divisor)));
      struct opnd q2 = tmp(c);
      EMIT(c, "fmul32 $0, $1, $2", DEF(q2), q, k);
      EMIT(c, "convert f_to_u32, $0, $1, rtz", DEF(i2), q2);
      id = i2;
   }
   struct opnd idx = tmp(c);
   EMIT(c, "imadd $0, $1, $2, $3", DEF(idx), id, isrc_legal(c, IMM(a->stride / item)),
        isrc_legal(c, IMM(a->src_offset / item)));
   unsigned v = new_vreg(c, nc);
   char buf[128];
   snprintf(buf, sizeof(buf), "device_load 0, %s, %s, $0, u%u_u%u, $1, unsigned", mf,
            mask_name(nc), TC_U_VBUF_BASE + 2 * a->buffer, TC_U_VBUF_BASE + 2 * a->buffer + 1);
   c->max_uniform = MAX2(c->max_uniform, TC_U_VBUF_BASE + 2 * a->buffer + 2);
   EMITK(c, I_ASYNC, buf, DEF(RV(v, nc)), idx);
   bool is_int = nir_alu_type_get_base_type(nir_intrinsic_dest_type(in)) != nir_type_float;
   for (unsigned i = 0; i < def->num_components; i++) {
      unsigned k = comp + i;
      if (k < nc)
         set_ssa(c, def, i, R(v, k));
      else
         set_ssa(c, def, i, IMM(k == 3 ? (is_int ? 1 : fui(1.0f)) : 0));
   }
}

/* Coefficient registers for a fragment input, allocated on first use. */
static unsigned
fs_cf(struct tc *c, enum tc_cf_source src, gl_varying_slot loc, enum tc_interp interp,
      unsigned comps)
{
   struct tc_fs_info *fi = &c->out->fs;
   for (unsigned i = 0; i < fi->nr_inputs; i++) {
      struct tc_fs_input *x = &fi->inputs[i];
      if (x->source == src && (src != TC_CF_VARYING || x->location == loc) && x->interp == interp)
         return x->cf_base;
   }
   if (fi->nr_inputs >= TC_MAX_FS_INPUTS || fi->nr_cf_regs + comps > 255) {
      fail(c, "too many fragment inputs");
      return 0;
   }
   struct tc_fs_input *x = &fi->inputs[fi->nr_inputs++];
   x->source = src;
   x->location = loc;
   x->components = comps;
   x->interp = interp;
   x->cf_base = fi->nr_cf_regs;
   fi->nr_cf_regs += comps;
   return x->cf_base;
}

/* Interpolates components first..first+n-1 of an input into a new tuple. */
static unsigned
emit_iter_n(struct tc *c, unsigned first, unsigned n, unsigned cf, bool persp, const char *where)
{
   unsigned v = new_vreg(c, n);
   char buf[128];
   if (persp) {
      unsigned w = fs_cf(c, TC_CF_POSITION_W, 0, TC_INTERP_PERSPECTIVE, 1);
      snprintf(buf, sizeof(buf), "iterproj $0, cf%u, cf%u, %s, 0b0, 0, 0, 0, 0, 0",
               cf + first, w, where);
   } else {
      snprintf(buf, sizeof(buf), "iter $0, cf%u, %s, 0b0, 0, 0, 0, 0, 0", cf + first, where);
   }
   EMIT(c, buf, DEF(RV(v, n)));
   return v;
}

/* Scalarised loads of one input in the first block (where every lane
 * runs) share one iter over the components they read together. */
static struct iter_group *
iter_group_for(struct tc *c, nir_intrinsic_instr *in, unsigned loc)
{
   if (in->intrinsic != nir_intrinsic_load_interpolated_input)
      return NULL;
   nir_intrinsic_instr *bary = nir_src_as_intrinsic(in->src[0]);
   if (!bary)
      return NULL;
   for (unsigned i = 0; i < c->nigroups; i++) {
      struct iter_group *g = &c->igroups[i];
      if (g->loc == loc && g->bary == bary->intrinsic &&
          g->mode == nir_intrinsic_interp_mode(bary))
         return g;
   }
   return NULL;
}

static void
collect_iter_groups(struct tc *c, nir_function_impl *impl)
{
   nir_foreach_instr(instr, nir_start_block(impl)) {
      if (instr->type != nir_instr_type_intrinsic)
         continue;
      nir_intrinsic_instr *in = nir_instr_as_intrinsic(instr);
      if (in->intrinsic != nir_intrinsic_load_interpolated_input ||
          !nir_src_is_const(in->src[1]) || nir_src_as_uint(in->src[1]) != 0)
         continue;
      nir_intrinsic_instr *bary = nir_src_as_intrinsic(in->src[0]);
      if (!bary || bary->instr.block != nir_start_block(impl))
         continue;
      unsigned loc = nir_intrinsic_io_semantics(in).location;
      unsigned lo = nir_intrinsic_component(in), hi = lo + in->dest.ssa.num_components - 1;
      struct iter_group *g = iter_group_for(c, in, loc);
      if (!g) {
         if (c->nigroups == ARRAY_SIZE(c->igroups))
            continue;
         g = &c->igroups[c->nigroups++];
         *g = (struct iter_group){ .loc = loc, .bary = bary->intrinsic,
                                   .mode = nir_intrinsic_interp_mode(bary),
                                   .lo = lo, .hi = hi, .vreg = -1 };
      }
      g->lo = MIN2(g->lo, lo);
      g->hi = MAX2(g->hi, hi);
   }
}

static void
emit_iter(struct tc *c, nir_intrinsic_instr *in, unsigned loc, unsigned first, unsigned cf,
          bool persp, const char *where)
{
   nir_ssa_def *def = &in->dest.ssa;
   struct iter_group *g = in->instr.block == nir_start_block(nir_shader_get_entrypoint(c->nir))
                             ? iter_group_for(c, in, loc) : NULL;
   if (g && first >= g->lo && first + def->num_components - 1 <= g->hi) {
      if (g->vreg < 0)
         g->vreg = (int)emit_iter_n(c, g->lo, g->hi - g->lo + 1, cf, persp, where);
      for (unsigned i = 0; i < def->num_components; i++)
         set_ssa(c, def, i, R((unsigned)g->vreg, first - g->lo + i));
      return;
   }
   unsigned v = emit_iter_n(c, first, def->num_components, cf, persp, where);
   for (unsigned i = 0; i < def->num_components; i++)
      set_ssa(c, def, i, R(v, i));
}

static bool
is_color_slot(unsigned loc)
{
   return loc == VARYING_SLOT_COL0 || loc == VARYING_SLOT_COL1 ||
          loc == VARYING_SLOT_BFC0 || loc == VARYING_SLOT_BFC1;
}

static void
emit_flat_input(struct tc *c, nir_ssa_def *def, unsigned cf)
{
   for (unsigned i = 0; i < def->num_components; i++) {
      unsigned v = new_vreg(c, 3);
      char buf[64];
      snprintf(buf, sizeof(buf), "ldcf $0, cf%u", cf + i);
      EMIT(c, buf, DEF(RV(v, 3)));
      set_ssa(c, def, i, R(v, 2));   /* A, B, C: the constant term */
   }
}

static bool
point_coord_slot(struct tc *c, unsigned loc)
{
   if (loc == VARYING_SLOT_PNTC)
      return true;
   return loc >= VARYING_SLOT_TEX0 && loc <= VARYING_SLOT_TEX7 &&
          (c->key->fs.sprite_coord_enable >> (loc - VARYING_SLOT_TEX0) & 1);
}

static void
emit_point_coord(struct tc *c, nir_ssa_def *def, unsigned comp)
{
   unsigned cf = fs_cf(c, TC_CF_POINT_COORD, 0, TC_INTERP_LINEAR, 2);
   unsigned v = new_vreg(c, 2);
   char buf[96];
   snprintf(buf, sizeof(buf), "iter $0, cf%u, center, 0b0, 0, 0, 0, 0, 0", cf);
   EMIT(c, buf, DEF(RV(v, 2)));
   struct opnd y = R(v, 1);
   if (!c->key->fs.sprite_coord_upper_left) {
      struct opnd t = tmp(c);
      struct opnd ny = y;
      ny.flags |= F_NEG;
      EMIT(c, "fadd32 $0, 1.0, $1", DEF(t), ny);
      y = t;
   }
   for (unsigned i = 0; i < def->num_components; i++) {
      unsigned k = comp + i;
      set_ssa(c, def, i, k == 0 ? R(v, 0) : k == 1 ? y : IMM(k == 3 ? fui(1.0f) : 0));
   }
}

static void emit_frag_coord_comps(struct tc *c, nir_ssa_def *def, unsigned first);
static void emit_front_face(struct tc *c, nir_ssa_def *def, bool as_float);

static void
emit_fs_input(struct tc *c, nir_intrinsic_instr *in)
{
   nir_io_semantics sem = nir_intrinsic_io_semantics(in);
   unsigned comp = nir_intrinsic_component(in);
   nir_ssa_def *def = &in->dest.ssa;
   unsigned loc = sem.location;
   nir_src *off = in->intrinsic == nir_intrinsic_load_input ? &in->src[0] : &in->src[1];
   if (!nir_src_is_const(*off)) {
      fail(c, "indirect fragment input access");
      return;
   }
   loc += nir_src_as_uint(*off);
   /* system values st/mesa passes as inputs when they are not sysvals */
   if (loc == VARYING_SLOT_POS) {
      emit_frag_coord_comps(c, def, comp);
      return;
   }
   if (loc == VARYING_SLOT_FACE) {
      emit_front_face(c, def, nir_alu_type_get_base_type(nir_intrinsic_dest_type(in)) == nir_type_float);
      return;
   }
   if (point_coord_slot(c, loc)) {
      emit_point_coord(c, def, comp);
      return;
   }
   if (in->intrinsic == nir_intrinsic_load_input) {
      unsigned cf = fs_cf(c, TC_CF_VARYING, loc, TC_INTERP_FLAT, 4);
      emit_flat_input(c, def, cf + comp);
      return;
   }
   nir_intrinsic_instr *bary = nir_src_as_intrinsic(in->src[0]);
   if (!bary) {
      fail(c, "fragment input without a barycentric intrinsic");
      return;
   }
   enum glsl_interp_mode mode = nir_intrinsic_interp_mode(bary);
   const char *where = "center";
   switch (bary->intrinsic) {
   case nir_intrinsic_load_barycentric_pixel:
   case nir_intrinsic_load_barycentric_sample:
      break;
   case nir_intrinsic_load_barycentric_centroid:
      where = "centroid";
      break;
   default:
      fail(c, "unsupported interpolation (%s)", nir_intrinsic_infos[bary->intrinsic].name);
      return;
   }
   if (mode == INTERP_MODE_FLAT ||
       (mode == INTERP_MODE_NONE && c->key->fs.flatshade && is_color_slot(loc))) {
      unsigned cf = fs_cf(c, TC_CF_VARYING, loc, TC_INTERP_FLAT, 4);
      emit_flat_input(c, def, cf + comp);
      return;
   }
   bool persp = mode != INTERP_MODE_NOPERSPECTIVE;
   unsigned cf = fs_cf(c, TC_CF_VARYING, loc, persp ? TC_INTERP_PERSPECTIVE : TC_INTERP_LINEAR, 4);
   emit_iter(c, in, loc, comp, cf, persp, where);
}

/* gl_FragCoord components first..first+n of def: pixel centre x/y from
 * the pixel position, z from the Fragcoord Z plane, w = 1/w_clip. */
static void
emit_frag_coord_comps(struct tc *c, nir_ssa_def *def, unsigned first)
{
   /* only what is read: z and w cost coefficient registers */
   nir_component_mask_t used = nir_ssa_def_components_read(def);
   for (unsigned i = 0; i < def->num_components; i++) {
      unsigned k = first + i;
      if (!(used >> i & 1) || k > 3) {
         set_ssa(c, def, i, IMM(0));
         continue;
      }
      char buf[96];
      if (k < 2) {
         struct opnd s = tmp(c), f = tmp(c), r = tmp(c);
         EMIT(c, k ? "get_sr $0, sr81" : "get_sr $0, sr80", DEF(s));
         EMIT(c, "convert u32_to_f, $0, $1, rte", DEF(f), s);
         EMIT(c, "fadd32 $0, $1, 0.5", DEF(r), f);
         set_ssa(c, def, i, r);
         continue;
      }
      unsigned cf = k == 2 ? fs_cf(c, TC_CF_FRAGCOORD_Z, 0, TC_INTERP_LINEAR, 1)
                           : fs_cf(c, TC_CF_POSITION_W, 0, TC_INTERP_PERSPECTIVE, 1);
      struct opnd v = tmp(c);
      snprintf(buf, sizeof(buf), "iter $0, cf%u, center, 0b0, 0, 0, 0, 0, 0", cf);
      EMIT(c, buf, DEF(v));
      set_ssa(c, def, i, v);
   }
}

static void
emit_frag_coord(struct tc *c, nir_intrinsic_instr *in)
{
   emit_frag_coord_comps(c, &in->dest.ssa, 0);
}

/* gl_FrontFacing: true (~0, or 1.0 for a float input) on front faces */
static void
emit_front_face(struct tc *c, nir_ssa_def *def, bool as_float)
{
   struct opnd s = tmp(c), d = tmp(c);
   EMIT(c, "get_sr $0, sr62", DEF(s));   /* backfacing */
   if (as_float)
      EMIT(c, "icmpsel ueq, $0, $1, 0, $2, $3", DEF(d), s, mov_to_reg(c, IMM(fui(1.0f))),
           mov_to_reg(c, IMM(fui(-1.0f))));
   else
      EMIT(c, "icmpsel ueq, $0, $1, 0, $2, 0", DEF(d), s, true_reg(c));
   for (unsigned i = 0; i < def->num_components; i++)
      set_ssa(c, def, i, d);
}

static void
emit_store_output(struct tc *c, nir_intrinsic_instr *in)
{
   nir_io_semantics sem = nir_intrinsic_io_semantics(in);
   unsigned comp = nir_intrinsic_component(in);
   unsigned mask = nir_intrinsic_write_mask(in);
   if (!nir_src_is_const(in->src[1])) {
      fail(c, "indirect output store");
      return;
   }
   unsigned loc = sem.location + nir_src_as_uint(in->src[1]);
   if (loc >= VARYING_SLOT_MAX) {
      fail(c, "output slot %u out of range", loc);
      return;
   }
   if (sem.dual_source_blend_index) {
      fail(c, "dual-source blending is not supported");
      return;
   }
   if (nir_src_bit_size(in->src[0]) != 32) {
      fail(c, "%u-bit outputs are not supported", nir_src_bit_size(in->src[0]));
      return;
   }
   u_foreach_bit(i, mask) {
      if (comp + i >= 4)
         continue;
      /* the value at this point of the shader */
      struct opnd v = get_src_now(c, &in->src[0], i);
      c->outv[loc][comp + i] = v;
      c->outw[loc][comp + i] = true;
   }
}

static void
emit_discard(struct tc *c, nir_intrinsic_instr *in)
{
   c->out->fs.discards = true;
   bool cond = in->intrinsic == nir_intrinsic_discard_if ||
               in->intrinsic == nir_intrinsic_demote_if ||
               in->intrinsic == nir_intrinsic_terminate_if;
   if (!cond) {
      emit_text(c, I_ALU, "sample_mask 255, 0");
      return;
   }
   /* lanes whose condition holds clear every sample */
   struct opnd m = tmp(c);
   EMIT(c, "icmpsel ueq, $0, $1, 0, 0, 255", DEF(HALF(m)),
        isrc_legal(c, get_src(c, &in->src[0], 0)));
   EMIT(c, "sample_mask $0, 0", HALF(m));
}

static const char *
tib_name(enum tc_tib_format f)
{
   switch (f) {
   case TC_TIB_U8NORM: return "u8norm";
   case TC_TIB_F16: return "f16";
   case TC_TIB_I32: return "i32";
   default: return NULL;
   }
}

static void
emit_load_output_fs(struct tc *c, nir_intrinsic_instr *in)
{
   nir_io_semantics sem = nir_intrinsic_io_semantics(in);
   unsigned comp = nir_intrinsic_component(in);
   unsigned loc = sem.location;
   int rt = loc == FRAG_RESULT_COLOR ? 0 : (int)loc - FRAG_RESULT_DATA0;
   if (rt < 0 || rt >= TC_MAX_RTS || rt >= (int)c->key->fs.nr_cbufs) {
      fail(c, "framebuffer fetch of output %u", loc);
      return;
   }
   const char *f = tib_name(tc_tib_format_for(c->key->fs.rt[rt].format));
   if (!f) {
      fail(c, "render target %d format %s has no tilebuffer format", rt,
           util_format_name(c->key->fs.rt[rt].format));
      return;
   }
   if (!c->pixel_waited) {
      emit_text(c, I_ALU, "wait_pix 1, 0");
      c->pixel_waited = true;
   }
   c->out->fs.reads_tilebuffer = true;
   unsigned v = new_vreg(c, 4);
   char buf[96];
   snprintf(buf, sizeof(buf), "ld_tile $0, %s, 0, xyzw, %u, 255, 0", f, c->key->fs.rt[rt].offset);
   EMIT(c, buf, DEF(RV(v, 4)));
   for (unsigned i = 0; i < in->dest.ssa.num_components; i++)
      set_ssa(c, &in->dest.ssa, i, R(v, comp + i < 4 ? comp + i : 3));
}

static void
emit_intrinsic(struct tc *c, nir_intrinsic_instr *in)
{
   gl_shader_stage st = c->nir->info.stage;
   switch (in->intrinsic) {
   case nir_intrinsic_load_ubo:
   case nir_intrinsic_load_ubo_vec4:
      emit_load_ubo(c, in);
      break;
   case nir_intrinsic_load_input:
      if (st == MESA_SHADER_VERTEX)
         emit_vs_load_input(c, in);
      else
         emit_fs_input(c, in);
      break;
   case nir_intrinsic_load_interpolated_input:
      emit_fs_input(c, in);
      break;
   case nir_intrinsic_load_barycentric_pixel:
   case nir_intrinsic_load_barycentric_centroid:
   case nir_intrinsic_load_barycentric_sample:
      break;   /* read by load_interpolated_input */
   case nir_intrinsic_load_vertex_id:
      set_ssa(c, &in->dest.ssa, 0, PHYS(5));
      break;
   case nir_intrinsic_load_instance_id:
      set_ssa(c, &in->dest.ssa, 0, PHYS(6));
      break;
   case nir_intrinsic_store_output:
      emit_store_output(c, in);
      break;
   case nir_intrinsic_load_output:
      if (st != MESA_SHADER_FRAGMENT) {
         fail(c, "reading vertex shader outputs is not supported");
         break;
      }
      emit_load_output_fs(c, in);
      break;
   case nir_intrinsic_load_frag_coord:
      emit_frag_coord(c, in);
      break;
   case nir_intrinsic_load_front_face:
      emit_front_face(c, &in->dest.ssa, false);
      break;
   case nir_intrinsic_load_point_coord:
      emit_point_coord(c, &in->dest.ssa, 0);
      break;
   case nir_intrinsic_discard:
   case nir_intrinsic_discard_if:
   case nir_intrinsic_demote:
   case nir_intrinsic_demote_if:
   case nir_intrinsic_terminate:
   case nir_intrinsic_terminate_if:
      emit_discard(c, in);
      break;
   case nir_intrinsic_load_blend_const_color_r_float:
   case nir_intrinsic_load_blend_const_color_g_float:
   case nir_intrinsic_load_blend_const_color_b_float:
   case nir_intrinsic_load_blend_const_color_a_float: {
      unsigned k = in->intrinsic == nir_intrinsic_load_blend_const_color_r_float ? 0
                 : in->intrinsic == nir_intrinsic_load_blend_const_color_g_float ? 1
                 : in->intrinsic == nir_intrinsic_load_blend_const_color_b_float ? 2 : 3;
      set_ssa(c, &in->dest.ssa, 0, UNI(TC_U_BLEND_CONST + k));
      break;
   }
   default:
      fail(c, "unsupported intrinsic %s", nir_intrinsic_infos[in->intrinsic].name);
      break;
   }
}

/* ------------------------------------------------------------- textures */

static void
emit_tex(struct tc *c, nir_tex_instr *tex)
{
   const char *type;
   unsigned ncoord;
   if (tex->is_array) {
      fail(c, "array textures are not supported");
      return;
   }
   switch (tex->sampler_dim) {
   case GLSL_SAMPLER_DIM_1D: type = "tex_1d"; ncoord = 1; break;
   case GLSL_SAMPLER_DIM_2D: case GLSL_SAMPLER_DIM_EXTERNAL: type = "tex_2d"; ncoord = 2; break;
   case GLSL_SAMPLER_DIM_3D: type = "tex_3d"; ncoord = 3; break;
   case GLSL_SAMPLER_DIM_CUBE: type = "tex_cube"; ncoord = 3; break;
   default:
      fail(c, "unsupported sampler dimension %d", tex->sampler_dim);
      return;
   }
   if (tex->op == nir_texop_txf && tex->sampler_dim == GLSL_SAMPLER_DIM_CUBE) {
      fail(c, "texelFetch on a cube map");
      return;
   }
   if (tex->op != nir_texop_tex && tex->op != nir_texop_txb && tex->op != nir_texop_txl &&
       tex->op != nir_texop_txf) {
      fail(c, "unsupported texture op %d", tex->op);
      return;
   }
   if (tex->op == nir_texop_tex && c->nir->info.stage != MESA_SHADER_FRAGMENT) {
      fail(c, "implicit-LOD texturing outside a fragment shader");
      return;
   }
   if (tex->texture_index > 127 || tex->sampler_index > 15) {
      fail(c, "texture/sampler index out of range");
      return;
   }
   int ci = nir_tex_instr_src_index(tex, nir_tex_src_coord);
   int bi = nir_tex_instr_src_index(tex, nir_tex_src_bias);
   int li = nir_tex_instr_src_index(tex, nir_tex_src_lod);
   int ri = nir_tex_instr_src_index(tex, nir_tex_src_comparator);
   for (unsigned i = 0; i < tex->num_srcs; i++) {
      nir_tex_src_type t = tex->src[i].src_type;
      if (t != nir_tex_src_coord && t != nir_tex_src_bias && t != nir_tex_src_lod &&
          t != nir_tex_src_comparator) {
         fail(c, "unsupported texture source %d", t);
         return;
      }
   }
   if (ci < 0) {
      fail(c, "texture instruction without coordinates");
      return;
   }
   struct opnd cvals[4];
   for (unsigned i = 0; i < ncoord; i++)
      cvals[i] = get_src(c, &tex->src[ci].src, i);
   struct opnd coords = vector_operand(c, cvals, ncoord);
   const char *lodmode = "auto_lod";
   struct opnd lod = IMM(0);
   bool has_lod = false;
   if (tex->op == nir_texop_txf) {
      /* integer level in a 16-bit register (0: none) */
      if (li >= 0) {
         struct opnd h = tmp(c);
         EMIT(c, "iadd $0, $1, 0", DEF(HALF(h)), isrc_legal(c, get_src(c, &tex->src[li].src, 0)));
         lod = HALF(h);
         has_lod = true;
         lodmode = "lod_min";
      }
   } else if (tex->op == nir_texop_txb || tex->op == nir_texop_txl) {
      int si = tex->op == nir_texop_txb ? bi : li;
      if (si < 0) {
         fail(c, "texture bias/lod without its source");
         return;
      }
      struct opnd v = get_src(c, &tex->src[si].src, 0);
      struct opnd h = tmp(c);
      /* fp16 LOD / bias in a 16-bit register */
      EMIT(c, "fadd32 $0, $1, -0.0", DEF(HALF(h)), fsrc_legal(c, v));
      lod = HALF(h);
      has_lod = true;
      lodmode = tex->op == nir_texop_txb ? "auto_lod_bias" : "lod_min";
   }
   struct opnd ref = IMM(0);
   bool compare = ri >= 0;
   if (compare)
      ref = to_reg(c, get_src(c, &tex->src[ri].src, 0));
   unsigned n = tex->dest.ssa.num_components;
   unsigned dv = vec_dest(c, &tex->dest.ssa, n);
   char buf[192];
   snprintf(buf, sizeof(buf),
            "%s %u, 0b0000, 0b0, none, %s, 0b00, $0, None, ts%u, ss%u, %s, $1, %s, %s%s",
            tex->op == nir_texop_txf ? "texture_load" : "texture_sample",
            compare ? 1 : 0, mask_name(n), tex->texture_index,
            tex->op == nir_texop_txf ? 0 : tex->sampler_index, type,
            lodmode, has_lod ? "$2" : "0", compare ? ", $3" : "");
   EMITK(c, I_ASYNC, buf, DEF(RV(dv, n)), coords, lod, ref);
   c->out->uses_textures = true;
}

/* ---------------------------------------------------------- control flow */

static void emit_cf_list(struct tc *c, struct exec_list *list);

static void
emit_if(struct tc *c, nir_if *nif)
{
   nir_alu_instr *cmpi = cmp_parent(&nif->condition);
   if (cmpi) {
      struct cmp k;
      cmp_info(cmpi->op, &k);
      struct opnd a = k.is_float ? fsrc(c, cmpi, 0) : isrc(c, cmpi, 0);
      struct opnd b = k.is_float ? fsrc(c, cmpi, 1) : isrc(c, cmpi, 1);
      char buf[64];
      /* if_*cmp keeps the lanes where the condition holds */
      const char *cc;
      switch (cmpi->op) {
      case nir_op_flt32: cc = "lt"; break;
      case nir_op_fge32: cc = "gte"; break;
      case nir_op_feq32: cc = "eq"; break;
      case nir_op_fneu32: cc = "neq"; break;
      case nir_op_ilt32: cc = "slt"; break;
      case nir_op_ige32: cc = "sgte"; break;
      case nir_op_ult32: cc = "ult"; break;
      case nir_op_uge32: cc = "ugte"; break;
      case nir_op_ieq32: cc = "ueq"; break;
      default: cc = "nueq"; break;
      }
      snprintf(buf, sizeof(buf), "%s r0l, %s, $0, $1, 1", k.is_float ? "if_fcmp" : "if_icmp", cc);
      emit_ops(c, I_CF, buf, (struct opnd[]){ a, b }, 2);
   } else {
      struct opnd v = isrc_legal(c, get_src(c, &nif->condition, 0));
      EMITK(c, I_CF, "if_icmp r0l, nueq, $0, 0, 1", v);
   }
   unsigned l_else = new_label(c), l_end = new_label(c);
   bool has_else = !nir_cf_list_is_empty_block(&nif->else_list);
   emit_text(c, I_CF, "jmp_exec_none pc+L%u", has_else ? l_else : l_end);
   c->if_depth++;
   emit_cf_list(c, &nif->then_list);
   if (has_else) {
      place_label(c, l_else);
      emit_text(c, I_CF, "else_icmp r0l, ueq, 0, 0, 1");
      emit_text(c, I_CF, "jmp_exec_none pc+L%u", l_end);
      emit_cf_list(c, &nif->else_list);
   }
   c->if_depth--;
   place_label(c, l_end);
   emit_text(c, I_CF, "pop_exec r0l, 1");
}

static void
emit_loop(struct tc *c, nir_loop *loop)
{
   int saved_depth = c->if_depth;
   bool saved_in = c->in_loop;
   unsigned l_top = new_label(c);
   emit_text(c, I_CF, "push_exec r0l, 2");
   int start = c->ninsts;
   place_label(c, l_top);
   c->if_depth = 0;
   c->in_loop = true;
   emit_cf_list(c, &loop->body);
   /* lanes that continued (level 1) run the next iteration */
   emit_text(c, I_CF, "while_icmp r0l, ueq, 0, 0, 2");
   emit_text(c, I_CF, "jmp_exec_any pc+L%u", l_top);
   int end = c->ninsts;
   emit_text(c, I_CF, "pop_exec r0l, 2");
   c->if_depth = saved_depth;
   c->in_loop = saved_in;
   if (c->nloops == c->cap_loops) {
      c->cap_loops = c->cap_loops ? c->cap_loops * 2 : 16;
      c->loops = reralloc(c->mem, c->loops, struct loop_range, c->cap_loops);
   }
   c->loops[c->nloops++] = (struct loop_range){ start, end };
}

static void
emit_jump(struct tc *c, nir_jump_instr *j)
{
   if (!c->in_loop) {
      fail(c, "jump outside a loop");
      return;
   }
   unsigned level;
   if (j->type == nir_jump_break)
      level = 2 + c->if_depth;
   else if (j->type == nir_jump_continue)
      level = 1 + c->if_depth;
   else {
      fail(c, "unsupported jump type %d", j->type);
      return;
   }
   if (level > 3) {
      fail(c, "break/continue nested %d ifs deep in a loop is not supported", c->if_depth);
      return;
   }
   /* park the active lanes at `level`; lanes at level 1 keep their state */
   emit_text(c, I_CF, "else_icmp r0l, ueq, 0, 1, %u", level);
}

static void
emit_block(struct tc *c, nir_block *block)
{
   nir_foreach_instr(instr, block) {
      if (c->error)
         return;
      switch (instr->type) {
      case nir_instr_type_alu:
         emit_alu(c, nir_instr_as_alu(instr));
         break;
      case nir_instr_type_intrinsic:
         emit_intrinsic(c, nir_instr_as_intrinsic(instr));
         break;
      case nir_instr_type_load_const: {
         nir_load_const_instr *lc = nir_instr_as_load_const(instr);
         if (lc->def.bit_size != 32 && lc->def.bit_size != 1) {
            fail(c, "%u-bit constants are not supported", lc->def.bit_size);
            return;
         }
         for (unsigned i = 0; i < lc->def.num_components; i++)
            set_ssa(c, &lc->def, i, IMM(lc->def.bit_size == 1 ? (lc->value[i].b ? ~0u : 0) : lc->value[i].u32));
         break;
      }
      case nir_instr_type_ssa_undef: {
         nir_ssa_undef_instr *u = nir_instr_as_ssa_undef(instr);
         for (unsigned i = 0; i < u->def.num_components; i++)
            set_ssa(c, &u->def, i, IMM(0));
         break;
      }
      case nir_instr_type_tex:
         emit_tex(c, nir_instr_as_tex(instr));
         break;
      case nir_instr_type_jump:
         emit_jump(c, nir_instr_as_jump(instr));
         break;
      case nir_instr_type_deref:
         fail(c, "unlowered variable access");
         break;
      default:
         fail(c, "unsupported instruction type %d", instr->type);
         break;
      }
   }
}

static void
emit_cf_list(struct tc *c, struct exec_list *list)
{
   foreach_list_typed(nir_cf_node, node, node, list) {
      if (c->error)
         return;
      switch (node->type) {
      case nir_cf_node_block:
         emit_block(c, nir_cf_node_as_block(node));
         break;
      case nir_cf_node_if:
         emit_if(c, nir_cf_node_as_if(node));
         break;
      case nir_cf_node_loop:
         emit_loop(c, nir_cf_node_as_loop(node));
         break;
      default:
         fail(c, "unsupported control flow node");
         break;
      }
   }
}

/* --------------------------------------------------------------- epilogues */

static void
emit_vs_epilogue(struct tc *c)
{
   struct tc_vs_info *vi = &c->out->vs;
   memset(vi->varying_slot, 0xff, sizeof(vi->varying_slot));
   struct { struct opnd v; unsigned slot; } st[4 * VARYING_SLOT_MAX];
   unsigned n = 0;
   /* position, with GL's z in [-w, w] moved to [0, w] */
   struct opnd pos[4];
   for (unsigned i = 0; i < 4; i++)
      pos[i] = c->outw[VARYING_SLOT_POS][i] ? c->outv[VARYING_SLOT_POS][i]
                                            : IMM(i == 3 ? fui(1.0f) : 0);
   if (!c->key->vs.clip_halfz) {
      struct opnd t = tmp(c), z = tmp(c);
      EMIT(c, "fmul32 $0, $1, 0.5", DEF(t), fsrc_legal(c, pos[3]));
      EMIT(c, "fmadd32 $0, $1, 0.5, $2", DEF(z), fsrc_legal(c, pos[2]), t);
      pos[2] = z;
   }
   for (unsigned i = 0; i < 4; i++)
      st[n].v = pos[i], st[n++].slot = i;
   unsigned slot = 4;
   vi->varying_slot[VARYING_SLOT_POS] = 0;
   if (c->outw[VARYING_SLOT_PSIZ][0]) {
      vi->writes_psiz = true;
      vi->varying_slot[VARYING_SLOT_PSIZ] = slot;
      st[n].v = c->outv[VARYING_SLOT_PSIZ][0], st[n++].slot = slot++;
   }
   for (unsigned loc = 0; loc < VARYING_SLOT_MAX; loc++) {
      if (loc == VARYING_SLOT_POS || loc == VARYING_SLOT_PSIZ)
         continue;
      bool any = false;
      for (unsigned i = 0; i < 4; i++)
         any |= c->outw[loc][i];
      if (!any)
         continue;
      if (loc == VARYING_SLOT_CLIP_DIST0 || loc == VARYING_SLOT_CLIP_DIST1 ||
          loc == VARYING_SLOT_CLIP_VERTEX) {
         fail(c, "user clip distances are not supported");
         return;
      }
      if (slot + 4 > 255) {
         fail(c, "too many varyings");
         return;
      }
      vi->varying_slot[loc] = slot;
      for (unsigned i = 0; i < 4; i++) {
         if (c->outw[loc][i])
            st[n].v = c->outv[loc][i], st[n++].slot = slot + i;
      }
      slot += 4;
   }
   vi->nr_slots = slot;
   for (unsigned i = 0; i < n; i++) {
      char buf[64];
      snprintf(buf, sizeof(buf), "%s 0, $0, %u", i + 1 == n ? "st_var_final" : "st_var", st[i].slot);
      EMIT(c, buf, to_reg(c, st[i].v));
   }
}

static void
emit_fs_epilogue(struct tc *c)
{
   const struct tc_fs_key *k = &c->key->fs;
   for (unsigned rt = 0; rt < k->nr_cbufs && rt < TC_MAX_RTS; rt++) {
      unsigned loc = FRAG_RESULT_DATA0 + rt;
      bool any = false;
      unsigned mask = 0;
      for (unsigned i = 0; i < 4; i++) {
         if (c->outw[loc][i])
            any = true, mask |= 1u << i;
      }
      if (!any && rt == 0 && k->nr_cbufs <= 1) {
         loc = FRAG_RESULT_COLOR;
         for (unsigned i = 0; i < 4; i++)
            if (c->outw[loc][i])
               any = true, mask |= 1u << i;
      }
      if (!any || k->rt[rt].format == PIPE_FORMAT_NONE)
         continue;
      const char *f = tib_name(tc_tib_format_for(k->rt[rt].format));
      if (!f) {
         fail(c, "render target %u format %s has no tilebuffer format", rt,
              util_format_name(k->rt[rt].format));
         return;
      }
      unsigned n = 0;
      struct opnd vals[4];
      for (unsigned i = 0; i < 4; i++)
         if (mask >> i & 1)
            vals[n++] = c->outv[loc][i];
      struct opnd vec = vector_operand(c, vals, n);
      static const char *masks[16] = { "", "x", "y", "xy", "z", "xz", "yz", "xyz",
                                       "w", "xw", "yw", "xyw", "zw", "xzw", "yzw", "xyzw" };
      char buf[96];
      snprintf(buf, sizeof(buf), "st_tile $0, %s, 0, %s, %u, 255, 0", f, masks[mask], k->rt[rt].offset);
      EMIT(c, buf, vec);
   }
   if (c->outw[FRAG_RESULT_DEPTH][0]) {
      c->out->fs.writes_depth = true;
      struct opnd z = to_reg(c, c->outv[FRAG_RESULT_DEPTH][0]);
      EMIT(c, "zs_emit 255, $0, 0", z);   /* printed as a 16-bit pair */
      c->insts[c->ninsts - 1].op[0].count = 0x80;   /* marker: print as rNl_rNh */
   }
   if (c->outw[FRAG_RESULT_STENCIL][0] || c->outw[FRAG_RESULT_SAMPLE_MASK][0]) {
      fail(c, "stencil / sample mask outputs are not supported");
      return;
   }
   if (c->pixel_waited)
      emit_text(c, I_ALU, "signal_pix 1, 0");
}

/* ----------------------------------------------------- register allocation */

static void
touch(struct tc *c, unsigned v, int pos)
{
   struct vreg *r = &c->vregs[v];
   if (r->start < 0 || pos < r->start)
      r->start = pos;
   if (pos > r->end)
      r->end = pos;
}

static bool
regalloc(struct tc *c, unsigned first_gpr)
{
   /* resolve scalars that live inside tuples */
   for (unsigned i = 0; i < c->ninsts; i++) {
      for (unsigned k = 0; k < c->insts[i].nop; k++) {
         struct opnd *o = &c->insts[i].op[k];
         while (o->kind == O_REG && c->vregs[o->v].alias >= 0) {
            o->comp += c->vregs[o->v].alias_comp;
            o->v = (unsigned)c->vregs[o->v].alias;
         }
      }
   }
   for (unsigned i = 0; i < c->ninsts; i++)
      for (unsigned k = 0; k < c->insts[i].nop; k++)
         if (c->insts[i].op[k].kind == O_REG)
            touch(c, c->insts[i].op[k].v, (int)i);
   /* Values live across a loop boundary stay allocated for the whole loop
    * (inner loops come first in the list). */
   for (unsigned l = 0; l < c->nloops; l++) {
      struct loop_range *L = &c->loops[l];
      for (unsigned v = 0; v < c->nvregs; v++) {
         struct vreg *r = &c->vregs[v];
         if (r->start < 0)
            continue;
         bool inside = r->start >= L->start && r->end <= L->end;
         bool disjoint = r->end < L->start || r->start > L->end;
         if (!inside && !disjoint) {
            r->start = MIN2(r->start, L->start);
            r->end = MAX2(r->end, L->end);
         }
      }
   }
   /* linear scan in order of start */
   unsigned *order = ralloc_array(c->mem, unsigned, c->nvregs + 1);
   unsigned n = 0;
   for (unsigned v = 0; v < c->nvregs; v++)
      if (c->vregs[v].start >= 0)
         order[n++] = v;
   /* counting sort by start position */
   unsigned *bucket = rzalloc_array(c->mem, unsigned, c->ninsts + 1);
   for (unsigned i = 0; i < n; i++)
      bucket[c->vregs[order[i]].start]++;
   unsigned acc = 0;
   for (unsigned i = 0; i <= c->ninsts; i++) {
      unsigned t = bucket[i];
      bucket[i] = acc;
      acc += t;
   }
   unsigned *sorted = ralloc_array(c->mem, unsigned, n + 1);
   for (unsigned i = 0; i < n; i++)
      sorted[bucket[c->vregs[order[i]].start]++] = order[i];

   int busy_until[128];
   for (unsigned r = 0; r < 128; r++)
      busy_until[r] = r < first_gpr ? INT32_MAX : -1;
   unsigned max_reg = first_gpr;
   for (unsigned i = 0; i < n; i++) {
      struct vreg *v = &c->vregs[sorted[i]];
      unsigned sz = v->size ? v->size : 1;
      int found = -1;
      for (unsigned r = first_gpr; r + sz <= 128 && found < 0; r++) {
         bool ok = true;
         for (unsigned k = 0; k < sz && ok; k++)
            ok = busy_until[r + k] < v->start;
         if (ok)
            found = (int)r;
      }
      if (found < 0) {
         fail(c, "out of registers (no spilling)");
         return false;
      }
      v->phys = found;
      for (unsigned k = 0; k < sz; k++)
         busy_until[found + k] = v->end;
      max_reg = MAX2(max_reg, (unsigned)found + sz);
   }
   c->out->nr_gprs = max_reg;
   return true;
}

/* ---------------------------------------------------------------- printing */

static unsigned
opnd_phys(struct tc *c, const struct opnd *o)
{
   return o->kind == O_PHYS ? o->v : (unsigned)c->vregs[o->v].phys + o->comp;
}

static void
print_opnd(struct tc *c, const struct opnd *o, char *buf, size_t size)
{
   size_t len = 0;
   switch (o->kind) {
   case O_REG: case O_PHYS: {
      unsigned r = opnd_phys(c, o);
      if (o->count == 0x80) {
         len = snprintf(buf, size, "r%ul_r%uh", r, r);
      } else if (o->flags & F_HALF) {
         len = snprintf(buf, size, "r%ul", r);
      } else {
         len = snprintf(buf, size, "r%u", r);
         for (unsigned k = 1; k < o->count; k++)
            len += snprintf(buf + len, size - len, "_r%u", r + k);
      }
      break;
   }
   case O_UNI:
      len = snprintf(buf, size, "u%u", o->v);
      c->max_uniform = MAX2(c->max_uniform, o->v + 1);
      break;
   case O_IMM:
      if (o->flags & F_FLOAT) {
         char t[32];
         snprintf(t, sizeof(t), "%.9g", uif(o->v));
         if (!strchr(t, '.'))
            strcat(t, ".0");
         snprintf(buf, size, "%s", t);
         return;
      }
      snprintf(buf, size, "%u", o->v);
      return;
   default:
      snprintf(buf, size, "?");
      return;
   }
   if (o->flags & F_ABS)
      len += snprintf(buf + len, size - len, ".abs");
   if (o->flags & F_NEG)
      len += snprintf(buf + len, size - len, ".neg");
}

static bool
overlaps_pending(struct tc *c, const struct opnd *o, const bool *pending)
{
   if (o->kind != O_REG && o->kind != O_PHYS)
      return false;
   unsigned r = opnd_phys(c, o);
   unsigned cnt = o->count == 0x80 ? 1 : o->count;
   for (unsigned k = 0; k < cnt; k++)
      if (r + k < 128 && pending[r + k])
         return true;
   return false;
}

static char *
print_program(struct tc *c)
{
   char *text = ralloc_strdup(c->mem, "");
   bool pending[128] = { 0 };
   bool any_pending = false;
   for (unsigned i = 0; i < c->ninsts; i++) {
      struct inst *I = &c->insts[i];
      /* wait for async results before their first use (or overwrite),
       * and at every control-flow point */
      if (any_pending) {
         bool need = I->kind == I_CF || I->kind == I_LABEL;
         for (unsigned k = 0; k < I->nop && !need; k++)
            need = overlaps_pending(c, &I->op[k], pending);
         if (need) {
            ralloc_strcat(&text, "wait 0\n");
            memset(pending, 0, sizeof(pending));
            any_pending = false;
         }
      }
      char line[512];
      size_t len = 0;
      for (const char *p = I->fmt; *p && len + 64 < sizeof(line); p++) {
         if (p[0] == '$' && p[1] >= '0' && p[1] <= '7') {
            unsigned k = p[1] - '0';
            char ob[96];
            print_opnd(c, &I->op[k], ob, sizeof(ob));
            len += snprintf(line + len, sizeof(line) - len, "%s", ob);
            p++;
         } else {
            line[len++] = *p;
         }
      }
      line[len] = 0;
      ralloc_asprintf_append(&text, "%s\n", line);
      if (I->kind == I_ASYNC) {
         for (unsigned k = 0; k < I->nop; k++) {
            if (!(I->op[k].flags & F_DEF))
               continue;
            unsigned r = opnd_phys(c, &I->op[k]);
            for (unsigned q = 0; q < I->op[k].count; q++)
               pending[r + q] = true;
            any_pending = true;
         }
      }
   }
   ralloc_strcat(&text, "stop\n");
   return text;
}

/* -------------------------------------------------------------- the driver */

static void
lower_fs_outputs(nir_shader *nir, const struct tc_fs_key *k)
{
   if (k->nr_cbufs > 1)
      NIR_PASS_V(nir, nir_lower_fragcolor, k->nr_cbufs);
   nir_lower_blend_options opts = {
      .logicop_enable = k->logicop_enable,
      .logicop_func = k->logicop_func,
      .scalar_blend_const = true,
   };
   bool any = false;
   for (unsigned rt = 0; rt < k->nr_cbufs && rt < TC_MAX_RTS; rt++) {
      const struct pipe_rt_blend_state *b = &k->blend[rt];
      opts.format[rt] = k->rt[rt].format;
      if (k->rt[rt].format == PIPE_FORMAT_NONE)
         continue;
      opts.rt[rt].colormask = b->colormask;
      if (b->blend_enable) {
         opts.rt[rt].rgb.func = b->rgb_func;
         opts.rt[rt].rgb.src_factor = util_blend_factor_to_shader(b->rgb_src_factor);
         opts.rt[rt].rgb.dst_factor = util_blend_factor_to_shader(b->rgb_dst_factor);
         opts.rt[rt].rgb.invert_src_factor = util_blend_factor_is_inverted(b->rgb_src_factor);
         opts.rt[rt].rgb.invert_dst_factor = util_blend_factor_is_inverted(b->rgb_dst_factor);
         opts.rt[rt].alpha.func = b->alpha_func;
         opts.rt[rt].alpha.src_factor = util_blend_factor_to_shader(b->alpha_src_factor);
         opts.rt[rt].alpha.dst_factor = util_blend_factor_to_shader(b->alpha_dst_factor);
         opts.rt[rt].alpha.invert_src_factor = util_blend_factor_is_inverted(b->alpha_src_factor);
         opts.rt[rt].alpha.invert_dst_factor = util_blend_factor_is_inverted(b->alpha_dst_factor);
      } else {
         opts.rt[rt].rgb.func = BLEND_FUNC_ADD;
         opts.rt[rt].rgb.src_factor = BLEND_FACTOR_ZERO;
         opts.rt[rt].rgb.invert_src_factor = true;
         opts.rt[rt].rgb.dst_factor = BLEND_FACTOR_ZERO;
         opts.rt[rt].alpha = opts.rt[rt].rgb;
      }
      any = true;
   }
   if (any)
      NIR_PASS_V(nir, nir_lower_blend, &opts);
}

bool
tc_compile(const nir_shader *src, const union tc_key *key,
           struct tc_shader_binary *out, char **error)
{
   memset(out, 0, sizeof(*out));
   *error = NULL;
   if (src->info.stage != MESA_SHADER_VERTEX && src->info.stage != MESA_SHADER_FRAGMENT) {
      *error = strdup("tessera: only vertex and fragment shaders are supported");
      return false;
   }
   void *mem = ralloc_context(NULL);
   nir_shader *nir = nir_shader_clone(mem, src);
   struct tc *c = rzalloc(mem, struct tc);
   c->nir = nir;
   c->key = key;
   c->out = out;
   c->mem = mem;
   out->stage = nir->info.stage == MESA_SHADER_VERTEX ? TC_STAGE_VERTEX : TC_STAGE_FRAGMENT;

   if (nir->info.stage == MESA_SHADER_FRAGMENT)
      lower_fs_outputs(nir, &key->fs);
   tc_lower_io(nir, key);

   nir_function_impl *impl = nir_shader_get_entrypoint(nir);
   if (!impl || exec_list_length(&nir->functions) != 1) {
      fail(c, "shaders must be a single inlined function");
   } else {
      c->ssa = rzalloc_array(mem, struct opnd, impl->ssa_alloc * 4 + 4);
      c->satfused = rzalloc_array(mem, BITSET_WORD, BITSET_WORDS(impl->ssa_alloc + 1));
      c->regmap = rzalloc_array(mem, unsigned, impl->reg_alloc + 1);
      nir_foreach_register(reg, &impl->registers) {
         if (reg->bit_size != 32 && reg->bit_size != 1)
            fail(c, "%u-bit registers are not supported", reg->bit_size);
         c->regmap[reg->index] = new_vreg(c, MAX2(reg->num_components, 1));
      }
      if (nir->info.stage == MESA_SHADER_FRAGMENT)
         collect_iter_groups(c, impl);
      emit_cf_list(c, &impl->body);
      if (!c->error) {
         if (nir->info.stage == MESA_SHADER_VERTEX)
            emit_vs_epilogue(c);
         else
            emit_fs_epilogue(c);
      }
   }
   /* r0l (exec nesting) and r1 are the hardware's; VS ids are in r5/r6 */
   if (!c->error)
      regalloc(c, nir->info.stage == MESA_SHADER_VERTEX ? 7 : 2);

   char *text = NULL;
   if (!c->error)
      text = print_program(c);
   if (!c->error) {
      size_t cap = strlen(text) * 2 + 64, len = 0;
      uint8_t *code = calloc(1, cap + 128);
      char err[256];
      if (!agx_isa_assemble(text, strlen(text), code, cap, &len, err, sizeof(err))) {
         fail(c, "internal: assembler rejected the generated code: %s\n%s", err, text);
         free(code);
      } else {
         out->code = code;
         out->size = len;
         out->nr_uniforms = c->max_uniform;
         if (getenv("TC_DEBUG_ASM"))
            fprintf(stderr, "%s", text);
      }
   }
   if (c->error) {
      *error = strdup(c->error);
      tc_shader_binary_finish(out);
      ralloc_free(mem);
      return false;
   }
   ralloc_free(mem);
   return true;
}

void
tc_shader_binary_finish(struct tc_shader_binary *bin)
{
   free(bin->code);
   bin->code = NULL;
   bin->size = 0;
}

void
tc_print_binary(FILE *fp, const struct tc_shader_binary *bin)
{
   struct agx_disasm_options o = { .pc = 0, .stop_at_end = true, .indent = "   " };
   fprintf(fp, "%s shader: %zu bytes, %u GPRs, %u uniforms\n",
           bin->stage == TC_STAGE_VERTEX ? "vertex" : "fragment", bin->size, bin->nr_gprs,
           bin->nr_uniforms);
   agx_disasm_print(fp, bin->code, bin->size, &o);
}

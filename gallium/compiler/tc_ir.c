/* SPDX-License-Identifier: MIT */
/*
 * tessera compiler: building the IR (tc_private.h) -- virtual registers,
 * instructions, labels, constants, operand legalisation and the mapping of
 * NIR values to operands. Shared by every instruction-selection file.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cmdstream/isa/agx_isa.h"

#include "tc_private.h"

void PRINTFLIKE(2, 3)
tc_fail(struct tc *c, const char *fmt, ...)
{
   if (c->error)
      return;
   va_list ap;
   va_start(ap, fmt);
   c->error = ralloc_vasprintf(c->mem, fmt, ap);
   va_end(ap);
}

unsigned
tc_new_vreg(struct tc *c, unsigned size)
{
   if (c->nvregs == c->cap_vregs) {
      c->cap_vregs = c->cap_vregs ? c->cap_vregs * 2 : 256;
      c->vregs = reralloc(c->mem, c->vregs, struct vreg, c->cap_vregs);
   }
   c->vregs[c->nvregs] = (struct vreg){ .size = size, .start = -1, .end = -1, .phys = -1,
                                        .alias = -1 };
   return c->nvregs++;
}

struct inst *
tc_emit_ops(struct tc *c, unsigned kind, const char *fmt, const struct opnd *ops,
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

void
tc_emit_text(struct tc *c, unsigned kind, const char *fmt, ...)
{
   char buf[256];
   va_list ap;
   va_start(ap, fmt);
   vsnprintf(buf, sizeof(buf), fmt, ap);
   va_end(ap);
   tc_emit_ops(c, kind, buf, NULL, 0);
}

void
tc_place_label(struct tc *c, unsigned l)
{
   tc_emit_text(c, I_LABEL, "L%u:", l);
}

/* -------------------------------------------------------- operand legality */

struct opnd
tc_mov_to_reg(struct tc *c, struct opnd v)
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
struct opnd
tc_to_reg(struct tc *c, struct opnd v)
{
   if (v.kind == O_REG && !(v.flags & (F_NEG | F_ABS | F_HALF)) && v.count == 1)
      return use(v);
   if (v.kind == O_PHYS && !(v.flags & (F_NEG | F_ABS | F_HALF)))
      return v;
   return tc_mov_to_reg(c, v);
}

uint32_t
tc_apply_fmods(uint32_t bits, unsigned flags)
{
   if (flags & F_ABS)
      bits &= 0x7fffffffu;
   if (flags & F_NEG)
      bits ^= 0x80000000u;
   return bits;
}

/* Float ALU source: registers/uniforms with abs/neg, minifloat immediates. */
struct opnd
tc_fsrc_legal(struct tc *c, struct opnd v)
{
   if (v.kind == O_IMM) {
      uint32_t bits = tc_apply_fmods(v.v, v.flags);
      float f = uif(bits);
      uint8_t raw;
      if (agx_minifloat_encode(f, &raw)) {
         struct opnd o = IMM(bits);
         o.flags = F_FLOAT;
         return o;
      }
      return tc_mov_to_reg(c, IMM(bits));
   }
   return v;
}

/* Integer ALU source: registers, uniforms, 8-bit immediates. */
struct opnd
tc_isrc_legal(struct tc *c, struct opnd v)
{
   if (v.flags & (F_NEG | F_ABS))
      return tc_mov_to_reg(c, v);
   if (v.kind == O_IMM && v.v > 255)
      return tc_mov_to_reg(c, v);
   return v;
}

/* icmpsel/fcmpsel X/Y: registers, uniforms, 8-bit integer immediates. */
struct opnd
tc_csrc_legal(struct tc *c, struct opnd v)
{
   return tc_isrc_legal(c, v);
}

/* ------------------------------------------------------------- NIR values */

struct opnd
tc_get_src(struct tc *c, const nir_src *src, unsigned comp)
{
   if (src->is_ssa) {
      if (src->ssa->bit_size != 32 && src->ssa->bit_size != 1) {
         tc_fail(c, "%u-bit values are not supported", src->ssa->bit_size);
         return IMM(0);
      }
      struct opnd o = c->ssa[src->ssa->index * 4 + comp];
      if (o.kind == O_NONE) {
         tc_fail(c, "internal: SSA value %u used before its definition", src->ssa->index);
         return IMM(0);
      }
      return o;
   }
   if (src->reg.indirect || src->reg.reg->num_array_elems) {
      tc_fail(c, "indirect register access is not supported");
      return IMM(0);
   }
   return R(c->regmap[src->reg.reg->index], comp);
}

/* The value of a source as of now. NIR registers (phi webs) may be
 * written again later, so a value kept for later use is copied. */
struct opnd
tc_get_src_now(struct tc *c, const nir_src *src, unsigned comp)
{
   struct opnd v = tc_get_src(c, src, comp);
   if (src->is_ssa)
      return v;
   struct opnd d = tmp(c);
   EMIT(c, "mov $0, $1", DEF(d), v);
   return d;
}

void
tc_set_ssa(struct tc *c, const nir_ssa_def *def, unsigned comp, struct opnd v)
{
   v.flags &= ~F_DEF;
   c->ssa[def->index * 4 + comp] = v;
}

struct opnd
tc_true_reg(struct tc *c)
{
   return tc_mov_to_reg(c, IMM(0xffffffffu));
}

/* A register tuple holding vals[0..n): the registers themselves when they
 * already are consecutive components of one vector, else copies. */
struct opnd
tc_vector_operand(struct tc *c, const struct opnd *vals, unsigned n)
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
   unsigned v = tc_new_vreg(c, n);
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
         snprintf(buf, sizeof(buf), "mov_imm $0, %u, 0b0", tc_apply_fmods(s.v, s.flags));
         EMIT(c, buf, DEF(R(v, i)));
      } else if (s.flags & (F_NEG | F_ABS)) {
         EMIT(c, "fadd32 $0, $1, -0.0", DEF(R(v, i)), s);
      } else {
         EMIT(c, "mov $0, $1", DEF(R(v, i)), s);
      }
   }
   return RV(v, n);
}

/* ---------------------------------------------------------- vector values */

/* Write mask / component list of an n-component memory or texture result. */
const char *
tc_mask_name(unsigned n)
{
   static const char *names[] = { "", "x", "xy", "xyz", "xyzw" };
   return names[n];
}

/* New vector register of n components, results defined as SSA comps. */
unsigned
tc_vec_dest(struct tc *c, nir_ssa_def *def, unsigned n)
{
   unsigned v = tc_new_vreg(c, n);
   for (unsigned i = 0; i < n && i < def->num_components; i++)
      tc_set_ssa(c, def, i, R(v, i));
   return v;
}

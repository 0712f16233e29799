/* SPDX-License-Identifier: MIT */
/*
 * tessera compiler: instruction selection for NIR ALU instructions
 * (scalar; vectors only as free renames). Source modifiers (fneg/fabs)
 * and saturation are folded where the hardware takes them; comparisons
 * used only as selects or branch conditions are evaluated at their user
 * (icmpsel/fcmpsel, if_*cmp), never materialised as booleans.
 */
#include <stdio.h>

#include "tc_private.h"

static struct opnd
alu_dest(struct tc *c, nir_alu_instr *alu)
{
   nir_dest *d = &alu->dest.dest;
   if (d->is_ssa) {
      if (d->ssa.bit_size != 32 && d->ssa.bit_size != 1)
         tc_fail(c, "%u-bit ALU results are not supported", d->ssa.bit_size);
      struct opnd o = tmp(c);
      tc_set_ssa(c, &d->ssa, 0, o);
      return DEF(o);
   }
   if (d->reg.indirect || d->reg.reg->num_array_elems)
      tc_fail(c, "indirect register access is not supported");
   unsigned comp = alu->dest.write_mask ? ffs(alu->dest.write_mask) - 1 : 0;
   return DEF(R(c->regmap[d->reg.reg->index], comp));
}

static struct opnd
alu_src_raw(struct tc *c, nir_alu_instr *alu, unsigned i)
{
   unsigned comp = alu->src[i].swizzle[0];
   if (!alu->dest.dest.is_ssa && alu->dest.write_mask)
      comp = alu->src[i].swizzle[ffs(alu->dest.write_mask) - 1];
   struct opnd o = tc_get_src(c, &alu->src[i].src, comp);
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

struct opnd
tc_fsrc(struct tc *c, nir_alu_instr *alu, unsigned i)
{
   return tc_fsrc_legal(c, fsrc_raw(c, alu, i));
}

struct opnd
tc_isrc(struct tc *c, nir_alu_instr *alu, unsigned i)
{
   return tc_isrc_legal(c, alu_src_raw(c, alu, i));
}

/* -------------------------------------------------------------- ALU ops */

bool
tc_cmp_info(nir_op op, struct tc_cmp *k)
{
   switch (op) {
   case nir_op_flt32: *k = (struct tc_cmp){ true, "lt", false }; return true;
   case nir_op_fge32: *k = (struct tc_cmp){ true, "gte", false }; return true;
   case nir_op_feq32: *k = (struct tc_cmp){ true, "eq", false }; return true;
   case nir_op_fneu32: *k = (struct tc_cmp){ true, "eq", true }; return true;
   case nir_op_ilt32: *k = (struct tc_cmp){ false, "slt", false }; return true;
   case nir_op_ige32: *k = (struct tc_cmp){ false, "slt", true }; return true;
   case nir_op_ult32: *k = (struct tc_cmp){ false, "ult", false }; return true;
   case nir_op_uge32: *k = (struct tc_cmp){ false, "ult", true }; return true;
   case nir_op_ieq32: *k = (struct tc_cmp){ false, "ueq", false }; return true;
   case nir_op_ine32: *k = (struct tc_cmp){ false, "ueq", true }; return true;
   default: return false;
   }
}

/* d = cond(alu) ? x : y */
static void
emit_cmpsel(struct tc *c, struct opnd d, nir_alu_instr *cmpi, struct opnd x,
            struct opnd y)
{
   struct tc_cmp k;
   tc_cmp_info(cmpi->op, &k);
   struct opnd a = k.is_float ? tc_fsrc(c, cmpi, 0) : tc_isrc(c, cmpi, 0);
   struct opnd b = k.is_float ? tc_fsrc(c, cmpi, 1) : tc_isrc(c, cmpi, 1);
   x = tc_csrc_legal(c, x);
   y = tc_csrc_legal(c, y);
   char buf[64];
   snprintf(buf, sizeof(buf), "%s %s, $0, $1, $2, $3, $4",
            k.is_float ? "fcmpsel" : "icmpsel", k.cc);
   if (k.swap)
      EMIT(c, buf, d, a, b, y, x);
   else
      EMIT(c, buf, d, a, b, x, y);
}

/* The comparison an SSA boolean comes straight from, if any. */
nir_alu_instr *
tc_cmp_parent(const nir_src *s)
{
   if (!s->is_ssa || s->ssa->parent_instr->type != nir_instr_type_alu)
      return NULL;
   nir_alu_instr *p = nir_instr_as_alu(s->ssa->parent_instr);
   struct tc_cmp k;
   /* re-evaluated at the user: only from SSA sources, which cannot change */
   if (!tc_cmp_info(p->op, &k) || !p->src[0].src.is_ssa || !p->src[1].src.is_ssa)
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
   struct tc_cmp k;
   if (!tc_cmp_info(alu->op, &k) || !alu->dest.dest.is_ssa || !alu->src[0].src.is_ssa ||
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
   struct opnd k = tc_mov_to_reg(c, IMM(fui(0.15915494309189535f)));
   struct opnd turns = tmp(c);
   if (cosine)
      EMIT(c, "fmadd32 $0, $1, $2, 0.25", DEF(turns), x, k);
   else
      EMIT(c, "fmul32 $0, $1, $2", DEF(turns), x, k);
   struct opnd fl = tmp(c), fr = tmp(c), q = tmp(c), y = tmp(c), s2 = tmp(c);
   EMIT(c, "floor $0, $1", DEF(fl), turns);
   struct opnd neg_fl = fl;
   neg_fl.flags |= F_NEG;
   EMIT(c, "fadd32 $0, $1, $2", DEF(fr), turns, neg_fl);
   EMIT(c, "fmul32 $0, $1, 4.0", DEF(q), fr);
   EMIT(c, "sin_pt_1 $0, $1", DEF(y), q);
   EMIT(c, "sin_pt_2 $0, $1", DEF(s2), y);
   EMIT(c, "fmul32 $0, $1, $2", d, y, s2);
}

void
tc_emit_alu(struct tc *c, nir_alu_instr *alu)
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
                            ? tc_get_src_now(c, &alu->src[0].src, alu->src[0].swizzle[i])
                            : tc_get_src_now(c, &alu->src[i].src, alu->src[i].swizzle[0]);
         tc_set_ssa(c, &alu->dest.dest.ssa, i, v);
      }
      return;
   }
   if (alu->dest.dest.is_ssa && alu->dest.dest.ssa.num_components != 1) {
      tc_fail(c, "vector ALU op %s (scalarisation missed it)", nir_op_infos[alu->op].name);
      return;
   }
   if ((alu->op == nir_op_fneg || alu->op == nir_op_fabs) && all_uses_fold(alu))
      return;   /* folded into every user as a source modifier */
   if (cmp_uses_all_fused(alu))
      return;   /* every user re-evaluates it as its own condition */
   if (alu->op == nir_op_fsat && alu->dest.dest.is_ssa && alu->src[0].src.is_ssa &&
       BITSET_TEST(c->satfused, alu->src[0].src.ssa->index)) {
      tc_set_ssa(c, &alu->dest.dest.ssa, 0, tc_get_src(c, &alu->src[0].src, 0));
      return;
   }

   struct opnd d = alu_dest(c, alu);
   char buf[96];

   switch (alu->op) {
   case nir_op_mov: case nir_op_f2f32: case nir_op_i2i32: case nir_op_u2u32: {
      struct opnd s = alu_src_raw(c, alu, 0);
      if (s.kind == O_IMM) {
         snprintf(buf, sizeof(buf), "mov_imm $0, %u, 0b0", tc_apply_fmods(s.v, s.flags));
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
         EMIT(c, sat ? "fadd32.sat $0, $1, $2" : "fadd32 $0, $1, $2", d, tc_fsrc(c, alu, 0), tc_fsrc(c, alu, 1));
      else if (alu->op == nir_op_fmul)
         EMIT(c, sat ? "fmul32.sat $0, $1, $2" : "fmul32 $0, $1, $2", d, tc_fsrc(c, alu, 0), tc_fsrc(c, alu, 1));
      else
         EMIT(c, sat ? "fmadd32.sat $0, $1, $2, $3" : "fmadd32 $0, $1, $2, $3", d,
              tc_fsrc(c, alu, 0), tc_fsrc(c, alu, 1), tc_fsrc(c, alu, 2));
      break;
   }
   case nir_op_fneg: case nir_op_fabs: {
      struct opnd s = fsrc_raw(c, alu, 0);
      if (alu->op == nir_op_fneg)
         s.flags ^= F_NEG;
      else
         s.flags = (s.flags | F_ABS) & ~F_NEG;
      EMIT(c, "fadd32 $0, $1, -0.0", d, tc_fsrc_legal(c, s));
      break;
   }
   case nir_op_fsat: EMIT(c, "fadd32.sat $0, $1, 0.0", d, tc_fsrc(c, alu, 0)); break;
   case nir_op_ffloor: EMIT(c, "floor $0, $1", d, tc_fsrc(c, alu, 0)); break;
   case nir_op_fceil: EMIT(c, "ceil $0, $1", d, tc_fsrc(c, alu, 0)); break;
   case nir_op_ftrunc: EMIT(c, "trunc $0, $1", d, tc_fsrc(c, alu, 0)); break;
   case nir_op_fround_even: EMIT(c, "rint $0, $1", d, tc_fsrc(c, alu, 0)); break;
   case nir_op_frcp: EMIT(c, "rcp $0, $1", d, tc_fsrc(c, alu, 0)); break;
   case nir_op_frsq: EMIT(c, "rsqrt $0, $1", d, tc_fsrc(c, alu, 0)); break;
   case nir_op_fexp2: EMIT(c, "exp2 $0, $1", d, tc_fsrc(c, alu, 0)); break;
   case nir_op_flog2: EMIT(c, "log2 $0, $1", d, tc_fsrc(c, alu, 0)); break;
   case nir_op_fsqrt: {
      struct opnd a = tc_fsrc(c, alu, 0), t = tmp(c);
      EMIT(c, "rsqrt_special $0, $1", DEF(t), a);
      EMIT(c, "fmul32 $0, $1, $2", d, a, t);
      break;
   }
   case nir_op_fsin: case nir_op_fcos:
      emit_sincos(c, d, tc_fsrc(c, alu, 0), alu->op == nir_op_fcos);
      break;
   case nir_op_fddx: case nir_op_fddx_fine: case nir_op_fddx_coarse:
      EMIT(c, "dfdx $0, $1", d, tc_fsrc(c, alu, 0));
      break;
   case nir_op_fddy: case nir_op_fddy_fine: case nir_op_fddy_coarse:
      EMIT(c, "dfdy $0, $1", d, tc_fsrc(c, alu, 0));
      break;
   case nir_op_fmin: case nir_op_fmax: {
      struct opnd a = tc_fsrc(c, alu, 0), b = tc_fsrc(c, alu, 1);
      /* X/Y take no modifiers and no float immediates */
      struct opnd x = (a.flags & (F_NEG | F_ABS)) || (a.kind == O_IMM && a.v > 255) ? tc_to_reg(c, a) : a;
      struct opnd y = (b.flags & (F_NEG | F_ABS)) || (b.kind == O_IMM && b.v > 255) ? tc_to_reg(c, b) : b;
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
      emit_cmpsel(c, d, alu, tc_true_reg(c), IMM(0));
      break;
   case nir_op_b32csel: {
      struct opnd x = alu_src_raw(c, alu, 1), y = alu_src_raw(c, alu, 2);
      nir_alu_instr *cmpi = tc_cmp_parent(&alu->src[0].src);
      if (cmpi && alu->src[0].swizzle[0] == 0) {
         emit_cmpsel(c, d, cmpi, x, y);
      } else {
         EMIT(c, "icmpsel ueq, $0, $1, 0, $2, $3", d, tc_isrc(c, alu, 0),
              tc_csrc_legal(c, y), tc_csrc_legal(c, x));
      }
      break;
   }
   case nir_op_b2f32:
      EMIT(c, "icmpsel ueq, $0, $1, 0, 0, $2", d, tc_isrc(c, alu, 0),
           tc_mov_to_reg(c, IMM(fui(1.0f))));
      break;
   case nir_op_b2i32:
      EMIT(c, "and $0, $1, 1", d, tc_isrc(c, alu, 0));
      break;
   case nir_op_i2b32:
      EMIT(c, "icmpsel ueq, $0, $1, 0, 0, $2", d, tc_isrc(c, alu, 0), tc_true_reg(c));
      break;
   case nir_op_f2b32:
      EMIT(c, "fcmpsel eq, $0, $1, 0.0, 0, $2", d, tc_fsrc(c, alu, 0), tc_true_reg(c));
      break;
   case nir_op_f2i32: EMIT(c, "convert f_to_s32, $0, $1, rtz", d, tc_to_reg(c, fsrc_raw(c, alu, 0))); break;
   case nir_op_f2u32: EMIT(c, "convert f_to_u32, $0, $1, rtz", d, tc_to_reg(c, fsrc_raw(c, alu, 0))); break;
   case nir_op_i2f32: EMIT(c, "convert s32_to_f, $0, $1, rte", d, tc_isrc(c, alu, 0)); break;
   case nir_op_u2f32: EMIT(c, "convert u32_to_f, $0, $1, rte", d, tc_isrc(c, alu, 0)); break;
   case nir_op_iadd: EMIT(c, "iadd $0, $1, $2", d, tc_isrc(c, alu, 0), tc_isrc(c, alu, 1)); break;
   case nir_op_isub: EMIT(c, "isub $0, $1, $2", d, tc_isrc(c, alu, 0), tc_isrc(c, alu, 1)); break;
   case nir_op_ineg: EMIT(c, "isub $0, 0, $1", d, tc_isrc(c, alu, 0)); break;
   case nir_op_imul: EMIT(c, "imadd $0, $1, $2, 0", d, tc_isrc(c, alu, 0), tc_isrc(c, alu, 1)); break;
   case nir_op_iand: EMIT(c, "and $0, $1, $2", d, tc_isrc(c, alu, 0), tc_isrc(c, alu, 1)); break;
   case nir_op_ior: EMIT(c, "or $0, $1, $2", d, tc_isrc(c, alu, 0), tc_isrc(c, alu, 1)); break;
   case nir_op_ixor: EMIT(c, "xor $0, $1, $2", d, tc_isrc(c, alu, 0), tc_isrc(c, alu, 1)); break;
   case nir_op_inot: EMIT(c, "not $0, $1", d, tc_isrc(c, alu, 0)); break;
   case nir_op_ishl: case nir_op_ushr: case nir_op_ishr: {
      struct opnd a = tc_isrc(c, alu, 0), s = alu_src_raw(c, alu, 1);
      if (s.kind == O_IMM) {
         s = IMM(s.v & 31);
      } else {
         struct opnd t = tmp(c);
         EMIT(c, "and $0, $1, 31", DEF(t), tc_isrc_legal(c, s));
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
      struct opnd a = tc_isrc(c, alu, 0), t = tmp(c);
      EMIT(c, "isub $0, 0, $1", DEF(t), a);
      EMIT(c, "icmpsel slt, $0, $1, 0, $2, $3", d, a, t, tc_csrc_legal(c, a));
      break;
   }
   case nir_op_umul_high: case nir_op_imul_high: {
      /* 32 x 32 -> 64-bit product into a pair, keep the high word */
      unsigned p = tc_new_vreg(c, 2);
      struct opnd a = tc_to_reg(c, alu_src_raw(c, alu, 0)), b = tc_to_reg(c, alu_src_raw(c, alu, 1));
      if (alu->op == nir_op_imul_high)
         EMIT(c, "imadd $0, $1.sx, $2.sx, 0", DEF(RV(p, 2)), a, b);
      else
         EMIT(c, "imadd $0, $1, $2, 0", DEF(RV(p, 2)), a, b);
      EMIT(c, "mov $0, $1", d, R(p, 1));
      break;
   }
   case nir_op_flrp: {
      /* a + t * (b - a) */
      struct opnd a = tc_fsrc(c, alu, 0), b = tc_fsrc(c, alu, 1), t = tc_fsrc(c, alu, 2);
      struct opnd na = fsrc_raw(c, alu, 0), diff = tmp(c);
      na.flags ^= F_NEG;
      EMIT(c, "fadd32 $0, $1, $2", DEF(diff), b, tc_fsrc_legal(c, na));
      EMIT(c, "fmadd32 $0, $1, $2, $3", d, t, diff, a);
      break;
   }
   case nir_op_imin: case nir_op_imax: case nir_op_umin: case nir_op_umax: {
      struct opnd a = tc_isrc(c, alu, 0), b = tc_isrc(c, alu, 1);
      const char *f = alu->op == nir_op_imin ? "icmpsel slt, $0, $1, $2, $3, $4"
                    : alu->op == nir_op_imax ? "icmpsel sgt, $0, $1, $2, $3, $4"
                    : alu->op == nir_op_umin ? "icmpsel ult, $0, $1, $2, $3, $4"
                                             : "icmpsel ugt, $0, $1, $2, $3, $4";
      EMIT(c, f, d, a, b, a, b);
      break;
   }
   default:
      tc_fail(c, "unsupported ALU op %s", nir_op_infos[alu->op].name);
      break;
   }
}

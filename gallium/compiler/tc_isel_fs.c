/* SPDX-License-Identifier: MIT */
/*
 * tessera compiler: fragment shader I/O -- coefficient registers and
 * interpolation (iter/iterproj/ldcf), gl_FragCoord, gl_FrontFacing, point
 * coordinates, discard, tilebuffer reads (framebuffer fetch for blending)
 * and the fragment epilogue (st_tile, depth output).
 */
#include <stdio.h>

#include "util/format/u_format.h"

#include "tc_private.h"

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
      tc_fail(c, "too many fragment inputs");
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
   unsigned v = tc_new_vreg(c, n);
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

void
tc_collect_iter_groups(struct tc *c, nir_function_impl *impl)
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
         tc_set_ssa(c, def, i, R((unsigned)g->vreg, first - g->lo + i));
      return;
   }
   unsigned v = emit_iter_n(c, first, def->num_components, cf, persp, where);
   for (unsigned i = 0; i < def->num_components; i++)
      tc_set_ssa(c, def, i, R(v, i));
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
      unsigned v = tc_new_vreg(c, 3);
      char buf[64];
      snprintf(buf, sizeof(buf), "ldcf $0, cf%u", cf + i);
      EMIT(c, buf, DEF(RV(v, 3)));
      tc_set_ssa(c, def, i, R(v, 2));   /* A, B, C: the constant term */
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

void
tc_emit_point_coord(struct tc *c, nir_ssa_def *def, unsigned comp)
{
   unsigned cf = fs_cf(c, TC_CF_POINT_COORD, 0, TC_INTERP_LINEAR, 2);
   unsigned v = tc_new_vreg(c, 2);
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
      tc_set_ssa(c, def, i, k == 0 ? R(v, 0) : k == 1 ? y : IMM(k == 3 ? fui(1.0f) : 0));
   }
}

void
tc_emit_fs_input(struct tc *c, nir_intrinsic_instr *in)
{
   nir_io_semantics sem = nir_intrinsic_io_semantics(in);
   unsigned comp = nir_intrinsic_component(in);
   nir_ssa_def *def = &in->dest.ssa;
   unsigned loc = sem.location;
   nir_src *off = in->intrinsic == nir_intrinsic_load_input ? &in->src[0] : &in->src[1];
   if (!nir_src_is_const(*off)) {
      tc_fail(c, "indirect fragment input access");
      return;
   }
   loc += nir_src_as_uint(*off);
   /* system values st/mesa passes as inputs when they are not sysvals */
   if (loc == VARYING_SLOT_POS) {
      tc_emit_frag_coord(c, def, comp);
      return;
   }
   if (loc == VARYING_SLOT_FACE) {
      tc_emit_front_face(c, def, nir_alu_type_get_base_type(nir_intrinsic_dest_type(in)) == nir_type_float);
      return;
   }
   if (point_coord_slot(c, loc)) {
      tc_emit_point_coord(c, def, comp);
      return;
   }
   if (in->intrinsic == nir_intrinsic_load_input) {
      unsigned cf = fs_cf(c, TC_CF_VARYING, loc, TC_INTERP_FLAT, 4);
      emit_flat_input(c, def, cf + comp);
      return;
   }
   nir_intrinsic_instr *bary = nir_src_as_intrinsic(in->src[0]);
   if (!bary) {
      tc_fail(c, "fragment input without a barycentric intrinsic");
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
      tc_fail(c, "unsupported interpolation (%s)", nir_intrinsic_infos[bary->intrinsic].name);
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
void
tc_emit_frag_coord(struct tc *c, nir_ssa_def *def, unsigned first)
{
   /* only what is read: z and w cost coefficient registers */
   nir_component_mask_t used = nir_ssa_def_components_read(def);
   for (unsigned i = 0; i < def->num_components; i++) {
      unsigned k = first + i;
      if (!(used >> i & 1) || k > 3) {
         tc_set_ssa(c, def, i, IMM(0));
         continue;
      }
      char buf[96];
      if (k < 2) {
         struct opnd s = tmp(c), f = tmp(c), r = tmp(c);
         EMIT(c, k ? "get_sr $0, sr81" : "get_sr $0, sr80", DEF(s));
         EMIT(c, "convert u32_to_f, $0, $1, rte", DEF(f), s);
         EMIT(c, "fadd32 $0, $1, 0.5", DEF(r), f);
         tc_set_ssa(c, def, i, r);
         continue;
      }
      unsigned cf = k == 2 ? fs_cf(c, TC_CF_FRAGCOORD_Z, 0, TC_INTERP_LINEAR, 1)
                           : fs_cf(c, TC_CF_POSITION_W, 0, TC_INTERP_PERSPECTIVE, 1);
      struct opnd v = tmp(c);
      snprintf(buf, sizeof(buf), "iter $0, cf%u, center, 0b0, 0, 0, 0, 0, 0", cf);
      EMIT(c, buf, DEF(v));
      tc_set_ssa(c, def, i, v);
   }
}

/* gl_FrontFacing: true (~0, or 1.0 for a float input) on front faces */
void
tc_emit_front_face(struct tc *c, nir_ssa_def *def, bool as_float)
{
   struct opnd s = tmp(c), d = tmp(c);
   EMIT(c, "get_sr $0, sr62", DEF(s));   /* backfacing */
   if (as_float)
      EMIT(c, "icmpsel ueq, $0, $1, 0, $2, $3", DEF(d), s, tc_mov_to_reg(c, IMM(fui(1.0f))),
           tc_mov_to_reg(c, IMM(fui(-1.0f))));
   else
      EMIT(c, "icmpsel ueq, $0, $1, 0, $2, 0", DEF(d), s, tc_true_reg(c));
   for (unsigned i = 0; i < def->num_components; i++)
      tc_set_ssa(c, def, i, d);
}

void
tc_emit_discard(struct tc *c, nir_intrinsic_instr *in)
{
   c->out->fs.discards = true;
   bool cond = in->intrinsic == nir_intrinsic_discard_if ||
               in->intrinsic == nir_intrinsic_demote_if ||
               in->intrinsic == nir_intrinsic_terminate_if;
   if (!cond) {
      tc_emit_text(c, I_ALU, "sample_mask 255, 0");
      return;
   }
   /* lanes whose condition holds clear every sample */
   struct opnd m = tmp(c);
   EMIT(c, "icmpsel ueq, $0, $1, 0, 0, 255", DEF(HALF(m)),
        tc_isrc_legal(c, tc_get_src(c, &in->src[0], 0)));
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

void
tc_emit_load_output_fs(struct tc *c, nir_intrinsic_instr *in)
{
   nir_io_semantics sem = nir_intrinsic_io_semantics(in);
   unsigned comp = nir_intrinsic_component(in);
   unsigned loc = sem.location;
   int rt = loc == FRAG_RESULT_COLOR ? 0 : (int)loc - FRAG_RESULT_DATA0;
   if (rt < 0 || rt >= TC_MAX_RTS || rt >= (int)c->key->fs.nr_cbufs) {
      tc_fail(c, "framebuffer fetch of output %u", loc);
      return;
   }
   const char *f = tib_name(tc_tib_format_for(c->key->fs.rt[rt].format));
   if (!f) {
      tc_fail(c, "render target %d format %s has no tilebuffer format", rt,
           util_format_name(c->key->fs.rt[rt].format));
      return;
   }
   if (!c->pixel_waited) {
      tc_emit_text(c, I_ALU, "wait_pix 1, 0");
      c->pixel_waited = true;
   }
   c->out->fs.reads_tilebuffer = true;
   unsigned v = tc_new_vreg(c, 4);
   char buf[96];
   snprintf(buf, sizeof(buf), "ld_tile $0, %s, 0, xyzw, %u, 255, 0", f, c->key->fs.rt[rt].offset);
   EMIT(c, buf, DEF(RV(v, 4)));
   for (unsigned i = 0; i < in->dest.ssa.num_components; i++)
      tc_set_ssa(c, &in->dest.ssa, i, R(v, comp + i < 4 ? comp + i : 3));
}

void
tc_emit_fs_epilogue(struct tc *c)
{
   const struct tc_fs_key *k = &c->key->fs;
   /* Depth first: the ISP tests the emitted depth at zs_emit and drops the
    * samples that fail from the coverage, so the colour stores after it
    * only write what survived. */
   if (c->outw[FRAG_RESULT_DEPTH][0]) {
      c->out->fs.writes_depth = true;
      struct opnd z = tc_to_reg(c, c->outv[FRAG_RESULT_DEPTH][0]);
      /* depth is written from a 32-bit register named as its 16-bit pair */
      z.flags |= F_PAIR16;
      EMIT(c, "zs_emit 255, $0, 0", z);
   }
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
         tc_fail(c, "render target %u format %s has no tilebuffer format", rt,
              util_format_name(k->rt[rt].format));
         return;
      }
      unsigned n = 0;
      struct opnd vals[4];
      for (unsigned i = 0; i < 4; i++)
         if (mask >> i & 1)
            vals[n++] = c->outv[loc][i];
      struct opnd vec = tc_vector_operand(c, vals, n);
      static const char *masks[16] = { "", "x", "y", "xy", "z", "xz", "yz", "xyz",
                                       "w", "xw", "yw", "xyw", "zw", "xzw", "yzw", "xyzw" };
      char buf[96];
      snprintf(buf, sizeof(buf), "st_tile $0, %s, 0, %s, %u, 255, 0", f, masks[mask], k->rt[rt].offset);
      EMIT(c, buf, vec);
   }
   if (c->outw[FRAG_RESULT_STENCIL][0] || c->outw[FRAG_RESULT_SAMPLE_MASK][0]) {
      tc_fail(c, "stencil / sample mask outputs are not supported");
      return;
   }
   if (c->pixel_waited)
      tc_emit_text(c, I_ALU, "signal_pix 1, 0");
}

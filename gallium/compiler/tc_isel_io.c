/* SPDX-License-Identifier: MIT */
/*
 * tessera compiler: intrinsics -- the dispatch for every intrinsic,
 * uniforms (push words and constant buffer 0), vertex fetch, output
 * stores and the vertex shader epilogue (varyings). Fragment inputs,
 * the tilebuffer and the fragment epilogue are in tc_isel_fs.c.
 */
#include <stdio.h>
#include <string.h>

#include "util/format/u_format.h"

#include "tc_private.h"

static void
emit_load_ubo(struct tc *c, nir_intrinsic_instr *in)
{
   nir_ssa_def *def = &in->dest.ssa;
   if (!nir_src_is_const(in->src[0]) || nir_src_as_uint(in->src[0]) != 0) {
      tc_fail(c, "only constant buffer 0 is supported");
      return;
   }
   unsigned n = def->num_components;
   if (def->bit_size != 32) {
      tc_fail(c, "%u-bit uniform loads are not supported", def->bit_size);
      return;
   }
   bool vec4 = in->intrinsic == nir_intrinsic_load_ubo_vec4;
   unsigned comp0 = vec4 ? nir_intrinsic_component(in) + 4 * nir_intrinsic_base(in) : 0;
   if (nir_src_is_const(in->src[1])) {
      /* load_ubo: bytes; load_ubo_vec4: vec4 slots + a component */
      unsigned off = vec4 ? nir_src_as_uint(in->src[1]) * 16 + comp0 * 4
                          : nir_src_as_uint(in->src[1]);
      unsigned push = c->nir->info.stage == MESA_SHADER_VERTEX && c->key->vs.ucp_enables
                      ? TC_MAX_PUSH_WORDS_UCP : TC_MAX_PUSH_WORDS;
      if (off % 4 == 0 && off / 4 + n <= push) {
         for (unsigned i = 0; i < n; i++)
            tc_set_ssa(c, def, i, UNI(TC_U_PUSH + off / 4 + i));
         return;
      }
      if (off % 4) {
         tc_fail(c, "unaligned uniform load");
         return;
      }
      unsigned v = tc_vec_dest(c, def, n);
      char buf[96];
      c->max_uniform = MAX2(c->max_uniform, TC_U_CBUF0_ADDR + 2);
      snprintf(buf, sizeof(buf), "device_load 0, i32, %s, $0, u0_u1, $1, unsigned",
               tc_mask_name(n));
      EMITK(c, I_ASYNC, buf, DEF(RV(v, n)), tc_to_reg(c, IMM(off / 4)));
      return;
   }
   struct opnd idx = tmp(c);
   if (vec4)
      EMIT(c, "imadd $0, $1, 4, $2", DEF(idx), tc_to_reg(c, tc_get_src(c, &in->src[1], 0)),
           tc_isrc_legal(c, IMM(comp0)));
   else
      EMIT(c, "bfeil $0, 0, $1, 2", DEF(idx), tc_to_reg(c, tc_get_src(c, &in->src[1], 0)));
   unsigned v = tc_vec_dest(c, def, n);
   char buf[96];
   c->max_uniform = MAX2(c->max_uniform, TC_U_CBUF0_ADDR + 2);
   snprintf(buf, sizeof(buf), "device_load 0, i32, %s, $0, u0_u1, $1, unsigned", tc_mask_name(n));
   EMITK(c, I_ASYNC, buf, DEF(RV(v, n)), idx);
}

static void
emit_vs_load_input(struct tc *c, nir_intrinsic_instr *in)
{
   unsigned loc = nir_intrinsic_base(in) + (nir_src_is_const(in->src[0]) ? nir_src_as_uint(in->src[0]) : 0);
   unsigned comp = nir_intrinsic_component(in);
   nir_ssa_def *def = &in->dest.ssa;
   if (!nir_src_is_const(in->src[0])) {
      tc_fail(c, "indirect vertex attribute access");
      return;
   }
   if (loc >= c->key->vs.nr_attribs) {
      tc_fail(c, "vertex attribute %u is not in the key (%u attributes)", loc,
           c->key->vs.nr_attribs);
      return;
   }
   const struct tc_vertex_attrib *a = &c->key->vs.attribs[loc];
   const char *mf;
   unsigned item, nc;
   if (!tc_vertex_format_info(a->format, &mf, &item, &nc)) {
      tc_fail(c, "vertex format %s is not fetched by the shader", util_format_name(a->format));
      return;
   }
   if (a->stride % item || a->src_offset % item || a->buffer >= TC_MAX_VBUFS) {
      tc_fail(c, "vertex attribute %u: offset/stride not aligned to its format", loc);
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
      struct opnd k = tc_mov_to_reg(c, IMM(fui(1.0f / (float)a->divisor)));
      struct opnd q2 = tmp(c);
      EMIT(c, "fmul32 $0, $1, $2", DEF(q2), q, k);
      EMIT(c, "convert f_to_u32, $0, $1, rtz", DEF(i2), q2);
      id = i2;
   }
   if (a->stride) {
      /* Clamp to the last element the buffer holds: the VDM shades every
       * index it reads, the primitive restart index (0xffff, 0xffffffff)
       * included, and fetching that vertex must not fault. */
      struct opnd cl = tmp(c), lim = UNI(TC_U_VATTR_LIMIT + loc);
      EMIT(c, "icmpsel ult, $0, $1, $2, $3, $4", DEF(cl), id, lim, id, lim);
      c->max_uniform = MAX2(c->max_uniform, TC_U_VATTR_LIMIT + loc + 1);
      id = cl;
   }
   struct opnd idx = tmp(c);
   EMIT(c, "imadd $0, $1, $2, $3", DEF(idx), id, tc_isrc_legal(c, IMM(a->stride / item)),
        tc_isrc_legal(c, IMM(a->src_offset / item)));
   unsigned v = tc_new_vreg(c, nc);
   char buf[128];
   snprintf(buf, sizeof(buf), "device_load 0, %s, %s, $0, u%u_u%u, $1, unsigned", mf,
            tc_mask_name(nc), TC_U_VBUF_BASE + 2 * a->buffer, TC_U_VBUF_BASE + 2 * a->buffer + 1);
   c->max_uniform = MAX2(c->max_uniform, TC_U_VBUF_BASE + 2 * a->buffer + 2);
   EMITK(c, I_ASYNC, buf, DEF(RV(v, nc)), idx);
   bool is_int = nir_alu_type_get_base_type(nir_intrinsic_dest_type(in)) != nir_type_float;
   for (unsigned i = 0; i < def->num_components; i++) {
      unsigned k = comp + i;
      if (k < nc)
         tc_set_ssa(c, def, i, R(v, tc_vertex_format_swizzle(a->format, k)));
      else
         tc_set_ssa(c, def, i, IMM(k == 3 ? (is_int ? 1 : fui(1.0f)) : 0));
   }
}

static void
emit_store_output(struct tc *c, nir_intrinsic_instr *in)
{
   nir_io_semantics sem = nir_intrinsic_io_semantics(in);
   unsigned comp = nir_intrinsic_component(in);
   unsigned mask = nir_intrinsic_write_mask(in);
   if (!nir_src_is_const(in->src[1])) {
      tc_fail(c, "indirect output store");
      return;
   }
   unsigned loc = sem.location + nir_src_as_uint(in->src[1]);
   if (loc >= VARYING_SLOT_MAX) {
      tc_fail(c, "output slot %u out of range", loc);
      return;
   }
   if (sem.dual_source_blend_index) {
      tc_fail(c, "dual-source blending is not supported");
      return;
   }
   if (nir_src_bit_size(in->src[0]) != 32) {
      tc_fail(c, "%u-bit outputs are not supported", nir_src_bit_size(in->src[0]));
      return;
   }
   u_foreach_bit(i, mask) {
      if (comp + i >= 4)
         continue;
      /* the value at this point of the shader */
      struct opnd v = tc_get_src_now(c, &in->src[0], i);
      c->outv[loc][comp + i] = v;
      c->outw[loc][comp + i] = true;
   }
}

void
tc_emit_intrinsic(struct tc *c, nir_intrinsic_instr *in)
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
         tc_emit_fs_input(c, in);
      break;
   case nir_intrinsic_load_interpolated_input:
      tc_emit_fs_input(c, in);
      break;
   case nir_intrinsic_load_barycentric_pixel:
   case nir_intrinsic_load_barycentric_centroid:
   case nir_intrinsic_load_barycentric_sample:
      break;   /* read by load_interpolated_input */
   case nir_intrinsic_load_vertex_id:
      tc_set_ssa(c, &in->dest.ssa, 0, PHYS(5));
      break;
   case nir_intrinsic_load_instance_id:
      tc_set_ssa(c, &in->dest.ssa, 0, PHYS(6));
      break;
   case nir_intrinsic_store_output:
      emit_store_output(c, in);
      break;
   case nir_intrinsic_load_output:
      if (st != MESA_SHADER_FRAGMENT) {
         tc_fail(c, "reading vertex shader outputs is not supported");
         break;
      }
      tc_emit_load_output_fs(c, in);
      break;
   case nir_intrinsic_load_frag_coord:
      tc_emit_frag_coord(c, &in->dest.ssa, 0);
      break;
   case nir_intrinsic_load_front_face:
      tc_emit_front_face(c, &in->dest.ssa, false);
      break;
   case nir_intrinsic_load_point_coord:
      tc_emit_point_coord(c, &in->dest.ssa, 0);
      break;
   case nir_intrinsic_discard:
   case nir_intrinsic_discard_if:
   case nir_intrinsic_demote:
   case nir_intrinsic_demote_if:
   case nir_intrinsic_terminate:
   case nir_intrinsic_terminate_if:
      tc_emit_discard(c, in);
      break;
   case nir_intrinsic_load_user_clip_plane: {
      unsigned ucp = nir_intrinsic_ucp_id(in);
      if (st != MESA_SHADER_VERTEX || ucp >= 8) {
         tc_fail(c, "user clip plane %u read outside the vertex shader's 8", ucp);
         break;
      }
      for (unsigned i = 0; i < in->dest.ssa.num_components; i++)
         tc_set_ssa(c, &in->dest.ssa, i, UNI(TC_U_UCP + 4 * ucp + i));
      break;
   }
   case nir_intrinsic_load_blend_const_color_r_float:
   case nir_intrinsic_load_blend_const_color_g_float:
   case nir_intrinsic_load_blend_const_color_b_float:
   case nir_intrinsic_load_blend_const_color_a_float: {
      unsigned k = in->intrinsic == nir_intrinsic_load_blend_const_color_r_float ? 0
                 : in->intrinsic == nir_intrinsic_load_blend_const_color_g_float ? 1
                 : in->intrinsic == nir_intrinsic_load_blend_const_color_b_float ? 2 : 3;
      tc_set_ssa(c, &in->dest.ssa, 0, UNI(TC_U_BLEND_CONST + k));
      break;
   }
   default:
      tc_fail(c, "unsupported intrinsic %s", nir_intrinsic_infos[in->intrinsic].name);
      break;
   }
}

/* The vertex shader ends by storing its outputs: position first (slots
 * 0-3), then each written varying as a vec4 slot group, the smooth ones,
 * then those the fragment shader reads flat, then noperspective ones
 * (tc_vs_key's masks), then the point size and the clip distances; the
 * slot map and the group sizes go to the driver in tc_vs_info. */
void
tc_emit_vs_epilogue(struct tc *c)
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
      EMIT(c, "fmul32 $0, $1, 0.5", DEF(t), tc_fsrc_legal(c, pos[3]));
      EMIT(c, "fmadd32 $0, $1, 0.5, $2", DEF(z), tc_fsrc_legal(c, pos[2]), t);
      pos[2] = z;
   }
   for (unsigned i = 0; i < 4; i++)
      st[n].v = pos[i], st[n++].slot = i;
   unsigned slot = 4;
   vi->varying_slot[VARYING_SLOT_POS] = 0;
   /* Three passes: smooth, flat, linear varyings (tc_vs_key.flat_mask). */
   for (unsigned group = 0; group < 3; group++) {
      unsigned first = slot;
      for (unsigned loc = 0; loc < VARYING_SLOT_MAX; loc++) {
         if (loc == VARYING_SLOT_POS || loc == VARYING_SLOT_PSIZ)
            continue;
         uint64_t bit = loc < 64 ? 1ull << loc : 0;
         unsigned g = (c->key->vs.flat_mask & bit) ? 1 : (c->key->vs.linear_mask & bit) ? 2 : 0;
         if (g != group)
            continue;
         bool any = false;
         for (unsigned i = 0; i < 4; i++)
            any |= c->outw[loc][i];
         if (!any)
            continue;
         /* Clip distances go after the point size (below). gl_ClipVertex
          * is only an input to nir_lower_clip_vs, which turns it into clip
          * distances when a plane is enabled; with none enabled it clips
          * nothing and is dropped. */
         if (loc == VARYING_SLOT_CLIP_DIST0 || loc == VARYING_SLOT_CLIP_DIST1 ||
             loc == VARYING_SLOT_CLIP_VERTEX)
            continue;
         if (slot + 4 > 255) {
            tc_fail(c, "too many varyings");
            return;
         }
         vi->varying_slot[loc] = slot;
         for (unsigned i = 0; i < 4; i++) {
            if (c->outw[loc][i])
               st[n].v = c->outv[loc][i], st[n++].slot = slot + i;
         }
         slot += 4;
      }
      *(group == 0 ? &vi->nr_smooth : group == 1 ? &vi->nr_flat : &vi->nr_linear) = slot - first;
   }
   /* The point size follows the user varyings (the hardware's UVS order). */
   if (c->outw[VARYING_SLOT_PSIZ][0]) {
      vi->writes_psiz = true;
      vi->varying_slot[VARYING_SLOT_PSIZ] = slot;
      st[n].v = c->outv[VARYING_SLOT_PSIZ][0], st[n++].slot = slot++;
   }
   /* Then the user clip distances, one slot each (the UVS order: no
    * layer/viewport slot is written before them), as many as
    * info.clip_distance_array_size says (nir_lower_clip_vs sets it to
    * the highest enabled plane; the driver enables that many Output
    * Select planes and the clipper cuts at each distance < 0). Without
    * it, every written CLIP_DIST component counts; unwritten components
    * below the count are 0 (on the plane: not clipped). */
   unsigned ncd = c->nir->info.clip_distance_array_size;
   if (!ncd) {
      for (unsigned k = 0; k < 8; k++)
         if (c->outw[VARYING_SLOT_CLIP_DIST0 + k / 4][k % 4])
            ncd = k + 1;
   }
   if (ncd > 8) {
      tc_fail(c, "more than 8 clip distances");
      return;
   }
   if (slot + ncd > 255) {
      tc_fail(c, "too many varyings");
      return;
   }
   vi->nr_clip_distances = ncd;
   for (unsigned k = 0; k < ncd; k++) {
      unsigned loc = VARYING_SLOT_CLIP_DIST0 + k / 4;
      st[n].v = c->outw[loc][k % 4] ? c->outv[loc][k % 4] : IMM(0);
      st[n++].slot = slot++;
   }
   vi->nr_slots = slot;
   for (unsigned i = 0; i < n; i++) {
      char buf[64];
      snprintf(buf, sizeof(buf), "%s 0, $0, %u", i + 1 == n ? "st_var_final" : "st_var", st[i].slot);
      EMIT(c, buf, tc_to_reg(c, st[i].v));
   }
}

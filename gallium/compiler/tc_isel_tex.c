/* SPDX-License-Identifier: MIT */
/*
 * tessera compiler: texture instructions (texture_sample / texture_load).
 */
#include <stdio.h>

#include "tc_private.h"

void
tc_emit_tex(struct tc *c, nir_tex_instr *tex)
{
   const char *type;
   unsigned ncoord;
   if (tex->is_array) {
      tc_fail(c, "array textures are not supported");
      return;
   }
   switch (tex->sampler_dim) {
   case GLSL_SAMPLER_DIM_1D: type = "tex_1d"; ncoord = 1; break;
   case GLSL_SAMPLER_DIM_2D: case GLSL_SAMPLER_DIM_EXTERNAL: type = "tex_2d"; ncoord = 2; break;
   /* Rectangle textures are 2D textures sampled with unnormalized
    * coordinates, which the sampler does itself (st/mesa sets
    * unnormalized_coords, the driver packs the Sampler's Pixel
    * Coordinates); texelFetch takes texel coordinates as for 2D. */
   case GLSL_SAMPLER_DIM_RECT:
      type = "tex_2d";
      ncoord = 2;
      break;
   case GLSL_SAMPLER_DIM_3D: type = "tex_3d"; ncoord = 3; break;
   case GLSL_SAMPLER_DIM_CUBE: type = "tex_cube"; ncoord = 3; break;
   default:
      tc_fail(c, "unsupported sampler dimension %d", tex->sampler_dim);
      return;
   }
   if (tex->op == nir_texop_txf && tex->sampler_dim == GLSL_SAMPLER_DIM_CUBE) {
      tc_fail(c, "texelFetch on a cube map");
      return;
   }
   if (tex->op != nir_texop_tex && tex->op != nir_texop_txb && tex->op != nir_texop_txl &&
       tex->op != nir_texop_txf) {
      tc_fail(c, "unsupported texture op %d", tex->op);
      return;
   }
   if (tex->op == nir_texop_tex && c->nir->info.stage != MESA_SHADER_FRAGMENT) {
      tc_fail(c, "implicit-LOD texturing outside a fragment shader");
      return;
   }
   if (tex->texture_index > 127 || tex->sampler_index > 15) {
      tc_fail(c, "texture/sampler index out of range");
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
         tc_fail(c, "unsupported texture source %d", t);
         return;
      }
   }
   if (ci < 0) {
      tc_fail(c, "texture instruction without coordinates");
      return;
   }
   struct opnd cvals[4];
   for (unsigned i = 0; i < ncoord; i++)
      cvals[i] = tc_get_src(c, &tex->src[ci].src, i);
   struct opnd coords = tc_vector_operand(c, cvals, ncoord);
   const char *lodmode = "auto_lod";
   struct opnd lod = IMM(0);
   bool has_lod = false;
   if (tex->op == nir_texop_txf) {
      /* integer level in a 16-bit register (0: none) */
      if (li >= 0) {
         struct opnd h = tmp(c);
         EMIT(c, "iadd $0, $1, 0", DEF(HALF(h)), tc_isrc_legal(c, tc_get_src(c, &tex->src[li].src, 0)));
         lod = HALF(h);
         has_lod = true;
         lodmode = "lod_min";
      }
   } else if (tex->op == nir_texop_txb || tex->op == nir_texop_txl) {
      int si = tex->op == nir_texop_txb ? bi : li;
      if (si < 0) {
         tc_fail(c, "texture bias/lod without its source");
         return;
      }
      struct opnd v = tc_get_src(c, &tex->src[si].src, 0);
      struct opnd h = tmp(c);
      /* fp16 LOD / bias in a 16-bit register */
      EMIT(c, "fadd32 $0, $1, -0.0", DEF(HALF(h)), tc_fsrc_legal(c, v));
      lod = HALF(h);
      has_lod = true;
      lodmode = tex->op == nir_texop_txb ? "auto_lod_bias" : "lod_min";
   }
   /* The sampler's LOD bias (no hardware field): added to an implicit LOD
    * as a bias (piglit tex-miplevel-selection GL2:texture(), issue 13). */
   if (c->nir->info.stage == MESA_SHADER_FRAGMENT &&
       (tex->op == nir_texop_tex || tex->op == nir_texop_txb) &&
       (c->key->fs.lod_bias_mask >> tex->sampler_index & 1)) {
      unsigned u = TC_U_LOD_BIAS + tex->sampler_index;
      c->max_uniform = MAX2(c->max_uniform, u + 1);
      struct opnd h = tmp(c);
      if (tex->op == nir_texop_txb)
         EMIT(c, "fadd32 $0, $1, $2", DEF(HALF(h)), tc_fsrc_legal(c, tc_get_src(c, &tex->src[bi].src, 0)),
              UNI(u));
      else
         EMIT(c, "fadd32 $0, $1, -0.0", DEF(HALF(h)), UNI(u));
      lod = HALF(h);
      has_lod = true;
      lodmode = "auto_lod_bias";
   }
   struct opnd ref = IMM(0);
   bool compare = ri >= 0;
   if (compare) {
      ref = tc_get_src(c, &tex->src[ri].src, 0);
      /* GL clamps the reference to [0, 1] for fixed-point depth; the
       * sampler does so for unorm textures, not for Z24 stored as Z32F
       * (piglit glsl-fs-shadow2D-clamp-z, issue 13). */
      uint16_t clamp_mask = c->nir->info.stage == MESA_SHADER_FRAGMENT
                               ? c->key->fs.shadow_clamp_mask
                               : c->key->vs.shadow_clamp_mask;
      if (tex->texture_index < 16 && (clamp_mask >> tex->texture_index & 1)) {
         struct opnd t = tmp(c);
         EMIT(c, "fadd32.sat $0, $1, 0.0", DEF(t), tc_fsrc_legal(c, ref));
         ref = t;
      } else {
         ref = tc_to_reg(c, ref);
      }
   }
   /* Compare results come back swizzled by the texture descriptor like any
    * texel (the view's swizzle, GL's DEPTH_TEXTURE_MODE, is composed into
    * it: tessera_format_texture_swizzle), as on the hardware. */
   unsigned n = tex->dest.ssa.num_components;
   unsigned dv = tc_vec_dest(c, &tex->dest.ssa, n);
   char buf[192];
   snprintf(buf, sizeof(buf),
            "%s %u, 0b0000, 0b0, none, %s, 0b00, $0, None, ts%u, ss%u, %s, $1, %s, %s%s",
            tex->op == nir_texop_txf ? "texture_load" : "texture_sample",
            compare ? 1 : 0, tc_mask_name(n), tex->texture_index,
            tex->op == nir_texop_txf ? 0 : tex->sampler_index, type,
            lodmode, has_lod ? "$2" : "0", compare ? ", $3" : "");
   EMITK(c, I_ASYNC, buf, DEF(RV(dv, n)), coords, lod, ref);
   c->out->uses_textures = true;
}

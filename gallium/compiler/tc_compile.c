/* SPDX-License-Identifier: MIT */
/*
 * tessera compiler: the entry point. tc_compile() lowers the key-dependent
 * parts of the shader (blending and colour outputs here, I/O in tc_nir.c)
 * on a clone of the NIR, then runs the passes in order: instruction
 * selection (tc_isel_*.c) -> register allocation (tc_ra.c) -> scoreboard
 * waits (tc_waits.c) -> printing and assembling (tc_emit.c). The IR and
 * the conventions are described in tc_private.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/nir/nir_builder.h"
#include "compiler/nir/nir_lower_blend.h"
#include "util/u_blend.h"

#include "cmdstream/isa/agx_isa.h"

#include "tc_private.h"

/* Blending, logic ops and colour masks become shader code reading the
 * tilebuffer (the hardware has no fixed-function blender). */
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
   /* The point size a shader writes is clamped to the range the driver
    * reports (GL: to ALIASED_POINT_SIZE_RANGE); the hardware rasterizes a
    * size below 1 as nothing, as the model does (piglit vs-point_size-zero;
    * Mesa's asahi clamps the same way). */
   if (nir->info.stage == MESA_SHADER_VERTEX)
      NIR_PASS_V(nir, nir_lower_point_size, 1.0f, 511.95f);
   /* User clip planes, as Mesa's drivers with PIPE_CAP_CLIP_PLANES lower
    * them: clip distances the hardware clips with (Output Select planes,
    * tc_emit_vs_epilogue), computed from gl_ClipVertex when the shader
    * writes it (then it is no output any more), else from the position.
    * st/mesa passes eye-space planes with a GLSL vertex shader and
    * clip-space ones with fixed function (st_atom_clip.c). */
   if (nir->info.stage == MESA_SHADER_VERTEX && key->vs.ucp_enables) {
      if (nir->info.outputs_written & (VARYING_BIT_CLIP_DIST0 | VARYING_BIT_CLIP_DIST1)) {
         NIR_PASS_V(nir, nir_lower_clip_disable, key->vs.ucp_enables);
      } else {
         NIR_PASS_V(nir, nir_lower_clip_vs, key->vs.ucp_enables, true, false, NULL);
         /* It reads the position output back (as st/mesa's lower_ucp
          * does, outputs through temporaries again) and leaves
          * gl_ClipVertex a global temporary. */
         NIR_PASS_V(nir, nir_lower_io_to_temporaries, nir_shader_get_entrypoint(nir),
                    true, false);
         NIR_PASS_V(nir, nir_lower_global_vars_to_local);
         NIR_PASS_V(nir, nir_split_var_copies);
         NIR_PASS_V(nir, nir_lower_var_copies);
         NIR_PASS_V(nir, nir_lower_vars_to_ssa);
      }
   }
   tc_lower_io(nir, key);

   nir_function_impl *impl = nir_shader_get_entrypoint(nir);
   if (!impl || exec_list_length(&nir->functions) != 1) {
      tc_fail(c, "shaders must be a single inlined function");
   } else {
      c->ssa = rzalloc_array(mem, struct opnd, impl->ssa_alloc * 4 + 4);
      c->satfused = rzalloc_array(mem, BITSET_WORD, BITSET_WORDS(impl->ssa_alloc + 1));
      c->regmap = rzalloc_array(mem, unsigned, impl->reg_alloc + 1);
      nir_foreach_register(reg, &impl->registers) {
         if (reg->bit_size != 32 && reg->bit_size != 1)
            tc_fail(c, "%u-bit registers are not supported", reg->bit_size);
         c->regmap[reg->index] = tc_new_vreg(c, MAX2(reg->num_components, 1));
      }
      if (nir->info.stage == MESA_SHADER_FRAGMENT)
         tc_collect_iter_groups(c, impl);
      tc_emit_cf_list(c, &impl->body);
      if (!c->error) {
         if (nir->info.stage == MESA_SHADER_VERTEX)
            tc_emit_vs_epilogue(c);
         else
            tc_emit_fs_epilogue(c);
      }
   }
   /* r0l (exec nesting) and r1 are the hardware's; VS ids are in r5/r6 */
   if (!c->error)
      tc_regalloc(c, nir->info.stage == MESA_SHADER_VERTEX ? 7 : 2);

   if (!c->error) {
      tc_insert_waits(c);
      tc_assemble(c, tc_print_program(c));
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

/* SPDX-License-Identifier: MIT */
/*
 * tessera compiler: NIR options and key-independent lowering.
 */
#include "compiler/nir/nir.h"
#include "compiler/nir/nir_builder.h"
#include "util/format/u_format.h"

#include "tc_compiler.h"
#include "tc_private.h"

static const nir_shader_compiler_options tc_options = {
   /* Only the SFU ops of G13 exist (rcp, rsqrt, log2, exp2, sin parts):
    * everything that needs a division or power is rewritten to them. */
   .lower_fdiv = true,
   .lower_fpow = true,
   .lower_flrp16 = true,
   .lower_flrp32 = true,
   .lower_flrp64 = true,
   .lower_fmod = true,
   .lower_ldexp = true,
   .lower_scmp = true,
   .lower_vector_cmp = true,
   .lower_fdph = true,
   .lower_fsign = true,
   .lower_isign = true,
   .lower_iabs = true,
   .lower_ffract = true,
   .lower_fisnormal = true,
   .fuse_ffma16 = true,
   .fuse_ffma32 = true,
   .has_isub = true,
   .lower_bitfield_extract_to_shifts = true,
   .lower_bitfield_insert_to_shifts = true,
   .lower_bitfield_reverse = true,
   .lower_bit_count = true,
   .lower_ifind_msb = true,
   .lower_find_lsb = true,
   .lower_uadd_carry = true,
   .lower_usub_borrow = true,
   .lower_mul_high = true,
   .lower_hadd = true,
   .lower_uadd_sat = true,
   .lower_usub_sat = true,
   .lower_iadd_sat = true,
   .lower_rotate = true,
   .lower_extract_byte = true,
   .lower_extract_word = true,
   .lower_insert_byte = true,
   .lower_insert_word = true,
   .lower_pack_half_2x16 = true,
   .lower_pack_unorm_2x16 = true,
   .lower_pack_snorm_2x16 = true,
   .lower_pack_unorm_4x8 = true,
   .lower_pack_snorm_4x8 = true,
   .lower_unpack_half_2x16 = true,
   .lower_unpack_unorm_2x16 = true,
   .lower_unpack_snorm_2x16 = true,
   .lower_unpack_unorm_4x8 = true,
   .lower_unpack_snorm_4x8 = true,
   .lower_pack_split = true,
   .lower_device_index_to_zero = true,
   .lower_to_scalar = true,
   .use_interpolated_input_intrinsics = true,
   .lower_uniforms_to_ubo = true,
   .lower_int64_options = ~0,
   .lower_doubles_options = ~0,
   .max_unroll_iterations = 32,
   .force_indirect_unrolling_sampler = true,
};

const nir_shader_compiler_options *
tc_nir_options(void)
{
   return &tc_options;
}

enum tc_tib_format
tc_tib_format_for(enum pipe_format format)
{
   const struct util_format_description *d = util_format_description(format);
   if (!d || format == PIPE_FORMAT_NONE || d->layout != UTIL_FORMAT_LAYOUT_PLAIN ||
       util_format_is_depth_or_stencil(format))
      return TC_TIB_NONE;
   if (util_format_is_pure_integer(format))
      return TC_TIB_I32;
   if (d->is_unorm) {
      for (unsigned c = 0; c < d->nr_channels; c++)
         if (d->channel[c].size > 8)
            return TC_TIB_F16;
      return TC_TIB_U8NORM;
   }
   for (unsigned c = 0; c < d->nr_channels; c++)
      if (d->channel[c].type == UTIL_FORMAT_TYPE_FLOAT && d->channel[c].size > 16)
         return TC_TIB_I32;
   return TC_TIB_F16;
}

unsigned
tc_tib_format_size(enum tc_tib_format f)
{
   switch (f) {
   case TC_TIB_U8NORM: return 4;
   case TC_TIB_F16: return 8;
   case TC_TIB_I32: return 16;
   default: return 0;
   }
}

bool
tc_vertex_format_supported(enum pipe_format format)
{
   return tc_vertex_format_info(format, NULL, NULL, NULL);
}

/* Memory format, element size and component count of a fetched vertex
 * format (device_load converts unorm/snorm to float itself). */
bool
tc_vertex_format_info(enum pipe_format format, const char **mem_format,
                      unsigned *item_bytes, unsigned *comps)
{
   const char *mf;
   unsigned item, n;
   switch (format) {
   case PIPE_FORMAT_R32_FLOAT: mf = "i32"; item = 4; n = 1; break;
   case PIPE_FORMAT_R32G32_FLOAT: mf = "i32"; item = 4; n = 2; break;
   case PIPE_FORMAT_R32G32B32_FLOAT: mf = "i32"; item = 4; n = 3; break;
   case PIPE_FORMAT_R32G32B32A32_FLOAT: mf = "i32"; item = 4; n = 4; break;
   case PIPE_FORMAT_R32_UINT: case PIPE_FORMAT_R32_SINT: mf = "i32"; item = 4; n = 1; break;
   case PIPE_FORMAT_R32G32_UINT: case PIPE_FORMAT_R32G32_SINT: mf = "i32"; item = 4; n = 2; break;
   case PIPE_FORMAT_R32G32B32_UINT: case PIPE_FORMAT_R32G32B32_SINT: mf = "i32"; item = 4; n = 3; break;
   case PIPE_FORMAT_R32G32B32A32_UINT: case PIPE_FORMAT_R32G32B32A32_SINT: mf = "i32"; item = 4; n = 4; break;
   case PIPE_FORMAT_R8G8B8A8_UNORM: mf = "u8norm"; item = 1; n = 4; break;
   /* GL_BGRA colour arrays (ARB_vertex_array_bgra, used by GL compat
    * programs such as Irrlicht/Minetest): fetched as R8G8B8A8, the shader
    * swaps R and B (tc_vertex_format_swizzle). */
   case PIPE_FORMAT_B8G8R8A8_UNORM: mf = "u8norm"; item = 1; n = 4; break;
   case PIPE_FORMAT_R8G8_UNORM: mf = "u8norm"; item = 1; n = 2; break;
   case PIPE_FORMAT_R8_UNORM: mf = "u8norm"; item = 1; n = 1; break;
   case PIPE_FORMAT_R8G8B8A8_SNORM: mf = "s8norm"; item = 1; n = 4; break;
   case PIPE_FORMAT_R8G8B8A8_UINT: mf = "i8"; item = 1; n = 4; break;
   case PIPE_FORMAT_R16G16_UNORM: mf = "u16norm"; item = 2; n = 2; break;
   case PIPE_FORMAT_R16G16B16A16_UNORM: mf = "u16norm"; item = 2; n = 4; break;
   case PIPE_FORMAT_R16G16_SNORM: mf = "s16norm"; item = 2; n = 2; break;
   case PIPE_FORMAT_R16G16B16A16_SNORM: mf = "s16norm"; item = 2; n = 4; break;
   /* f16 loads into 32-bit registers keep the raw half bits: u_vbuf
    * converts half-float attributes instead. */
   default: return false;
   }
   if (mem_format)
      *mem_format = mf;
   if (item_bytes)
      *item_bytes = item;
   if (comps)
      *comps = n;
   return true;
}

/* Which fetched component feeds component k of the attribute. */
unsigned
tc_vertex_format_swizzle(enum pipe_format format, unsigned k)
{
   if (format == PIPE_FORMAT_B8G8R8A8_UNORM && k < 3)
      return 2 - k;
   return k;
}

static int
type_size_vec4(const struct glsl_type *type, bool bindless)
{
   return glsl_count_attribute_slots(type, false);
}

static void
tc_optimize(nir_shader *nir)
{
   bool progress;
   unsigned iter = 0;
   do {
      progress = false;
      NIR_PASS(progress, nir, nir_lower_vars_to_ssa);
      NIR_PASS(progress, nir, nir_lower_alu_to_scalar, NULL, NULL);
      NIR_PASS(progress, nir, nir_lower_phis_to_scalar, true);
      NIR_PASS(progress, nir, nir_copy_prop);
      NIR_PASS(progress, nir, nir_opt_remove_phis);
      NIR_PASS(progress, nir, nir_opt_dce);
      NIR_PASS(progress, nir, nir_opt_dead_cf);
      NIR_PASS(progress, nir, nir_opt_cse);
      NIR_PASS(progress, nir, nir_opt_peephole_select, 8, true, true);
      NIR_PASS(progress, nir, nir_opt_algebraic);
      NIR_PASS(progress, nir, nir_opt_constant_folding);
      NIR_PASS(progress, nir, nir_opt_undef);
      NIR_PASS(progress, nir, nir_opt_loop_unroll);
   } while (progress && ++iter < 64);
}

void
tc_preprocess_nir(nir_shader *nir)
{
   /* one function, no returns (st/mesa normally did this already) */
   NIR_PASS_V(nir, nir_lower_returns);
   NIR_PASS_V(nir, nir_inline_functions);
   nir_remove_non_entrypoints(nir);
   if (nir->info.stage == MESA_SHADER_VERTEX ||
       nir->info.stage == MESA_SHADER_FRAGMENT)
      NIR_PASS_V(nir, nir_lower_io_to_temporaries,
                 nir_shader_get_entrypoint(nir), true, false);
   NIR_PASS_V(nir, nir_lower_global_vars_to_local);
   NIR_PASS_V(nir, nir_split_var_copies);
   NIR_PASS_V(nir, nir_lower_var_copies);
   NIR_PASS_V(nir, nir_lower_vars_to_ssa);
   NIR_PASS_V(nir, nir_lower_indirect_derefs,
              nir_var_function_temp | nir_var_shader_in | nir_var_shader_out,
              UINT32_MAX);
   NIR_PASS_V(nir, nir_lower_io_arrays_to_elements_no_indirects, false);
   NIR_PASS_V(nir, nir_split_var_copies);
   NIR_PASS_V(nir, nir_lower_var_copies);
   NIR_PASS_V(nir, nir_lower_vars_to_ssa);

   nir_lower_tex_options tex = {
      .lower_txp = ~0u,
      .lower_txd = true,
      .lower_txd_cube_map = true,
      .lower_invalid_implicit_lod = true,
   };
   NIR_PASS_V(nir, nir_lower_tex, &tex);
   NIR_PASS_V(nir, nir_lower_load_const_to_scalar);
   NIR_PASS_V(nir, nir_lower_int64);
   NIR_PASS_V(nir, nir_lower_idiv, &(nir_lower_idiv_options){ .allow_fp16 = false });
   tc_optimize(nir);
   NIR_PASS_V(nir, nir_remove_dead_variables, nir_var_function_temp, NULL);
   nir_sweep(nir);
}

/* Components a vertex format does not have read as (0, 0, 0, 1): make
 * them constants so that NIR folds them (x * 1.0, x * 0.0 + y). */
static bool
lower_vs_input_defaults(nir_builder *b, nir_instr *instr, void *data)
{
   const struct tc_vs_key *key = data;
   if (instr->type != nir_instr_type_intrinsic)
      return false;
   nir_intrinsic_instr *in = nir_instr_as_intrinsic(instr);
   if (in->intrinsic != nir_intrinsic_load_input || !nir_src_is_const(in->src[0]))
      return false;
   unsigned loc = nir_intrinsic_base(in) + nir_src_as_uint(in->src[0]);
   unsigned comp = nir_intrinsic_component(in), nc;
   if (loc >= key->nr_attribs ||
       !tc_vertex_format_info(key->attribs[loc].format, NULL, NULL, &nc) ||
       comp + in->dest.ssa.num_components <= nc || in->dest.ssa.bit_size != 32)
      return false;
   bool is_int = nir_alu_type_get_base_type(nir_intrinsic_dest_type(in)) != nir_type_float;
   b->cursor = nir_after_instr(instr);
   nir_ssa_def *ch[4];
   for (unsigned i = 0; i < in->dest.ssa.num_components; i++) {
      unsigned k = comp + i;
      if (k < nc)
         ch[i] = nir_channel(b, &in->dest.ssa, i);
      else if (k == 3)
         ch[i] = is_int ? nir_imm_int(b, 1) : nir_imm_float(b, 1.0f);
      else
         ch[i] = nir_imm_int(b, 0);
   }
   nir_ssa_def *v = nir_vec(b, ch, in->dest.ssa.num_components);
   nir_ssa_def_rewrite_uses_after(&in->dest.ssa, v, v->parent_instr);
   return true;
}

/* An indirect uniform load's byte offset clamped to its variable's range
 * (range_base/range, from the uniform's declaration). GLSL leaves an
 * out-of-bounds index undefined, not fatal, and st/mesa flattens
 * "i >= 4 ? b[i - 4] : a[i]" into a select that runs both loads with the
 * index of only one (piglit variable-indexing fs-input-array-*, issue 13).
 * A device_load's word offset is unsigned, so b[-4] reads about 4 GiB past
 * the buffer and faults when nothing is mapped there, which depends on the
 * process's allocations (without the clamp piglit
 * fs-input-array-vec2-index-rd faults, -vec4- passes; the compiler test
 * "indirect index outside its array" and tests/gl/gl_desktop uniform_index
 * fault either way). umin also catches the negative offsets, which are
 * huge unsigned. */
static bool
clamp_ubo_offset(nir_builder *b, nir_instr *instr, void *data)
{
   (void)data;
   if (instr->type != nir_instr_type_intrinsic)
      return false;
   nir_intrinsic_instr *in = nir_instr_as_intrinsic(instr);
   if (in->intrinsic != nir_intrinsic_load_ubo || nir_src_is_const(in->src[1]) ||
       in->dest.ssa.bit_size != 32 || in->src[1].ssa->bit_size != 32)
      return false;
   uint32_t base = nir_intrinsic_range_base(in), range = nir_intrinsic_range(in);
   unsigned bytes = 4 * in->dest.ssa.num_components;
   if (range == ~0u || range < bytes || base > UINT32_MAX - range)
      return false;
   b->cursor = nir_before_instr(instr);
   nir_ssa_def *c = nir_umin(b, in->src[1].ssa, nir_imm_int(b, base + range - bytes));
   nir_instr_rewrite_src_ssa(instr, &in->src[1], c);
   return true;
}

/* Lowering the variant needs: io to driver locations, then the scalar
 * out-of-SSA form the instruction selector reads. */
void
tc_lower_io(nir_shader *nir, const union tc_key *key)
{
   /* driver_location comes from st/mesa (vertex inputs: the vertex
    * element index the key's attribs[] use); slots are read from the io
    * semantics. */
   nir_variable_mode modes = nir_var_shader_in | nir_var_shader_out;
   NIR_PASS_V(nir, nir_lower_io, modes, type_size_vec4, 0);
   if (nir->info.stage == MESA_SHADER_VERTEX)
      NIR_PASS_V(nir, nir_shader_instructions_pass, lower_vs_input_defaults,
                 nir_metadata_block_index | nir_metadata_dominance, (void *)&key->vs);
   NIR_PASS_V(nir, nir_lower_tex, &(nir_lower_tex_options){ .lower_txp = ~0u });
   NIR_PASS_V(nir, nir_shader_instructions_pass, clamp_ubo_offset,
              nir_metadata_block_index | nir_metadata_dominance, NULL);
   tc_optimize(nir);
   /* fuse ffma and friends now that the general optimisations are done */
   bool progress;
   do {
      progress = false;
      NIR_PASS(progress, nir, nir_opt_algebraic_late);
      if (progress) {
         NIR_PASS_V(nir, nir_opt_constant_folding);
         NIR_PASS_V(nir, nir_copy_prop);
         NIR_PASS_V(nir, nir_opt_dce);
         NIR_PASS_V(nir, nir_opt_cse);
      }
   } while (progress);
   NIR_PASS_V(nir, nir_lower_bool_to_int32);
   NIR_PASS_V(nir, nir_opt_dce);
   NIR_PASS_V(nir, nir_lower_locals_to_regs);
   NIR_PASS_V(nir, nir_convert_from_ssa, true);
   NIR_PASS_V(nir, nir_opt_dce);
   nir_index_ssa_defs(nir_shader_get_entrypoint(nir));
}

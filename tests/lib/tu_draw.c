/* SPDX-License-Identifier: MIT */
/*
 * See tu_draw.h. The layouts follow what the hardware reads: the VDM
 * vertex state is padded to 8 bytes, and the PPP record holds every word
 * its header announces (the viewport control and fragment shader word 3
 * stay zero).
 */
#include <string.h>

#include "tessera/float_bits.h"
#include "tests/lib/tu_draw.h"

const char tu_draw_vs_src[] =
   "iadd r7, 0, r5, lsl 3\n"
   "device_load 0, i32, xyzw, r8_r9_r10_r11, u0_u1, r7, unsigned\n"
   "iadd r7, r7, 4\n"
   "device_load 0, i32, xyzw, r12_r13_r14_r15, u0_u1, r7, unsigned\n"
   "wait 0\n"
   "st_var 0, r8, 0\nst_var 0, r9, 1\nst_var 0, r10, 2\nst_var 0, r11, 3\n"
   "st_var 0, r12, 4\nst_var 0, r13, 5\nst_var 0, r14, 6\nst_var_final 0, r15, 7\n"
   "stop\n";

const char tu_draw_fs_src[] =
   "iter r4_r5_r6_r7, cf0, center, 0b0, 0, 0, 0, 0, 0\n"
   "st_tile r4_r5_r6_r7, u8norm, 0, xyzw, 0, 255, 0\n"
   "stop\n";

const char tu_draw_bg_clear_src[] =
   "mov r4, u0\nmov r5, u1\nmov r6, u2\nmov r7, u3\n"
   "st_tile r4_r5_r6_r7, u8norm, 0, xyzw, 0, 255, 0\n"
   "stop\n";

const char tu_draw_eot_src[] =
   "mov_imm r8l, 0\nget_sr r2, sr80\nget_sr r3, sr81\n"
   "image_write_block r8l, r2_r3, 0, ts0, tex_2d, rte, u8norm, 0, 0, 0\n"
   "stop\n";

unsigned
tu_draw_cf(uint8_t out[TU_DRAW_CF_BYTES], bool flat)
{
   agx_pack(out, CF_BINDING_HEADER, h) { h.slots = 4; h.coefficient_registers = 4; }
   agx_pack(out + AGX_CF_BINDING_HEADER_LENGTH, CF_BINDING, b) {
      b.components = 4;
      b.shade_model = flat ? AGX_SHADE_MODEL_FLAT_VERTEX_0 : AGX_SHADE_MODEL_LINEAR;
      b.source = AGX_CF_SOURCE_VARYING; b.base_slot = 1; b.base_coefficient_register = 0;
   }
   return TU_DRAW_CF_BYTES;
}

unsigned
tu_draw_ppp(uint8_t out[TU_DRAW_PPP_BYTES], const struct tu_draw *d)
{
   uint8_t *p = out;
   memset(out, 0, TU_DRAW_PPP_BYTES);
   agx_pack(p, PPP_HEADER, h) {
      h.fragment_control = true; h.front_face = true; h.front_stencil = true;
      h.back_face = true; h.back_stencil = true; h.viewport = true; h.viewport_count = 1;
      h.output_select = true; h.cull = true; h.fragment_shader = true;
   }
   p += AGX_PPP_HEADER_LENGTH;
   agx_pack(p, FRAGMENT_CONTROL, fc) {
      fc.pass_type = d->translucent ? AGX_PASS_TYPE_TRANSLUCENT : AGX_PASS_TYPE_OPAQUE;
   }
   p += AGX_FRAGMENT_CONTROL_LENGTH;
   for (unsigned f = 0; f < 2; f++) {
      agx_pack(p, FRAGMENT_FACE, ff) {
         ff.disable_depth_write = !d->depth_write; ff.depth_function = d->depth_func;
      }
      p += AGX_FRAGMENT_FACE_LENGTH;
      agx_pack(p, FRAGMENT_STENCIL, sf) {
         sf.write_mask = 0xff; sf.read_mask = 0xff; sf.compare = AGX_ZS_FUNC_ALWAYS;
      }
      p += AGX_FRAGMENT_STENCIL_LENGTH;
   }
   p += 4;   /* viewport control: zero */
   agx_pack(p, VIEWPORT, vp) {
      vp.translate_x = d->width / 2.0f; vp.scale_x = d->width / 2.0f;
      vp.translate_y = d->height / 2.0f; vp.scale_y = -(d->height / 2.0f);
      vp.translate_z = 0.0f; vp.scale_z = 1.0f;
   }
   p += AGX_VIEWPORT_LENGTH;
   agx_pack(p, OUTPUT_SELECT, os) { os.varyings = true; }
   p += AGX_OUTPUT_SELECT_LENGTH;
   agx_pack(p, CULL, c) { c.depth_clip = true; }
   p += AGX_CULL_LENGTH;
   agx_pack(p, FRAGMENT_SHADER_WORD_0, w0) { w0.cf_binding_count = 1; }
   agx_pack(p + 4, FRAGMENT_SHADER_WORD_1, w1) { w1.pipeline = d->fs_pipeline; }
   agx_pack(p + 8, FRAGMENT_SHADER_WORD_2, w2) { w2.cf_bindings = d->cf_bindings; }
   p += 16;   /* word 3: zero */
   _Static_assert(TU_DRAW_PPP_BYTES == 76, "PPP record layout");
   return (unsigned)(p - out);
}

unsigned
tu_draw_vdm(uint8_t out[TU_DRAW_VDM_BYTES], const struct tu_draw *d, uint64_t ppp_va,
            unsigned ppp_bytes)
{
   memset(out, 0, TU_DRAW_VDM_BYTES);
   agx_pack(out, VDM_STATE, st) {
      st.vertex_shader_word_0_present = true; st.vertex_shader_word_1_present = true;
      st.vertex_outputs_present = true; st.restart_index_present = true;
   }
   agx_pack(out + 4, VDM_STATE_RESTART_INDEX, ri) { ri.value = 0xffff; }
   agx_pack(out + 8, VDM_STATE_VERTEX_SHADER_WORD_0, w0) { w0.uniform_register_count = 64; }
   agx_pack(out + 12, VDM_STATE_VERTEX_SHADER_WORD_1, w1) { w1.pipeline = d->vs_pipeline; }
   agx_pack(out + 16, VDM_STATE_VERTEX_OUTPUTS, o) { o.output_count_1 = 8; }
   /* 20..23: padding to 8 bytes */
   agx_pack(out + 24, PPP_STATE, ps) {
      ps.pointer_hi = (uint32_t)(ppp_va >> 32); ps.pointer_lo = (uint32_t)ppp_va;
      ps.size_words = ppp_bytes / 4;
   }
   agx_pack(out + 32, INDEX_LIST, il) {
      il.primitive = AGX_PRIMITIVE_TRIANGLES; il.index_count_present = true;
      il.instance_count_present = true; il.start_present = true;
   }
   /* index count, instance count, start */
   const uint32_t words[3] = { d->vertex_count, 1, 0 };
   memcpy(out + 36, words, sizeof(words));
   return TU_DRAW_VDM_BYTES;
}

unsigned
tu_draw_vdm_end(uint8_t out[AGX_VDM_STREAM_TERMINATE_LENGTH])
{
   agx_pack(out, VDM_STREAM_TERMINATE, t) { (void)t; }
   return AGX_VDM_STREAM_TERMINATE_LENGTH;
}

struct drm_asahi_cmd_render
tu_render_cmd(unsigned width, unsigned height, uint64_t vdm_va, uint32_t bg, uint32_t eot)
{
   struct drm_asahi_cmd_render r = {
      .vdm_ctrl_stream_base = vdm_va,
      .width_px = (uint16_t)width, .height_px = (uint16_t)height, .layers = 1,
      .utile_width_px = 32, .utile_height_px = 32, .samples = 1, .sample_size_B = 4,
      .bg = { bg, 0 }, .eot = { eot, 0 }, .partial_bg = { bg, 0 }, .partial_eot = { eot, 0 },
      .isp_bgobjdepth = tessera_fui(1.0f),
   };
   return r;
}

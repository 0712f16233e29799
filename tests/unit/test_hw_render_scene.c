/* SPDX-License-Identifier: MIT */
/*
 * Scene builder shared by test_hw_render and bench/render_throughput
 * (see test_hw_render_scene.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cmdstream/isa/agx_isa.h"
#include "test_hw_render_scene.h"
#include "hw/tex/hw_tex_layout.h"

/* ------------------------------------------------------------ scene */



uint64_t
alloc(struct scene *s, uint64_t size, uint64_t align)
{
   s->used = (s->used + align - 1) & ~(align - 1);
   uint64_t va = USC_BASE + s->used;
   s->used += size;
   assert_true(s->used <= MEM_PAGES * HW_PAGE_SIZE);
   return va;
}

void *
host(struct scene *s, uint64_t va)
{
   return s->mem + (va - USC_BASE);
}

uint64_t
scene_put(struct scene *s, const void *data, uint64_t size, uint64_t align)
{
   uint64_t va = alloc(s, size, align);
   memcpy(host(s, va), data, size);
   return va;
}

static uint64_t
put(struct scene *s, const void *data, uint64_t size, uint64_t align)
{
   uint64_t va = alloc(s, size, align);
   memcpy(host(s, va), data, size);
   return va;
}

static uint64_t
shader(struct scene *s, const char *src)
{
   uint8_t code[4096];
   size_t len = 0;
   char err[160];
   if (!agx_isa_assemble(src, strlen(src), code, sizeof(code), &len, err, sizeof(err)))
      fail_msg("assembly failed: %s", err);
   return put(s, code, len, 128);
}

/* A USC word list: [uniforms] [texture] shader registers, then the
 * preshader at `pre` (0: no-preshader). */
/* The pipeline words of code with uni_bytes of uniforms at ub (u0 on). */
static uint32_t
pipeline_at(struct scene *s, uint64_t code, uint64_t ub, unsigned uni_bytes,
            uint64_t tex_desc, uint64_t smp_desc, bool fragment, uint64_t pre)
{
   uint8_t w[64];
   unsigned n = 0;
   if (uni_bytes) {
      agx_pack(w + n, USC_UNIFORM, u) { u.start_halfs = 0; u.size_halfs = uni_bytes / 2; u.buffer = ub; }
      n += 8;
   }
   if (tex_desc) {
      agx_pack(w + n, USC_TEXTURE, tx) { tx.start = 0; tx.count = 1; tx.buffer = tex_desc; }
      n += 8;
   }
   if (smp_desc) {
      agx_pack(w + n, USC_SAMPLER, sm) { sm.start = 0; sm.count = 1; sm.buffer = smp_desc; }
      n += 8;
   }
   if (fragment) {
      agx_pack(w + n, USC_SHARED, sh) {
         sh.uses_shared_memory = true;
         sh.layout = AGX_SHARED_LAYOUT_32X32;
         sh.sample_count = s->samples;
         sh.sample_stride_in_8_bytes = 1;
         sh.bytes_per_threadgroup = 4096 * s->samples;
      }
      n += 4;
   }
   agx_pack(w + n, USC_SHADER, sh) { sh.code = code - USC_BASE; }
   n += 6;
   agx_pack(w + n, USC_REGISTERS, rg) { rg.register_count = 32; }
   n += 4;
   if (pre) {
      agx_pack(w + n, USC_PRESHADER, ps) { ps.code = pre - USC_BASE; }
      n += AGX_USC_PRESHADER_LENGTH;
   } else {
      agx_pack(w + n, USC_NO_PRESHADER, np) { (void)np; }
      n += 2;
   }
   return (uint32_t)(put(s, w, n, 64) - USC_BASE);
}

static uint32_t
pipeline_smp(struct scene *s, uint64_t code, const void *uni, unsigned uni_bytes,
             uint64_t tex_desc, uint64_t smp_desc, bool fragment, uint64_t pre)
{
   uint64_t ub = uni_bytes ? put(s, uni, uni_bytes, 16) : 0;
   return pipeline_at(s, code, ub, uni_bytes, tex_desc, smp_desc, fragment, pre);
}

static uint32_t
pipeline(struct scene *s, uint64_t code, const void *uni, unsigned uni_bytes,
         uint64_t tex_desc, bool fragment)
{
   return pipeline_smp(s, code, uni, uni_bytes, tex_desc, 0, fragment, 0);
}

const char *const vs_src =
   /* 8 floats per vertex: clip position, colour; u0_u1 = buffer */
   "iadd r7, 0, r5, lsl 3\n"
   "device_load 0, i32, xyzw, r8_r9_r10_r11, u0_u1, r7, unsigned\n"
   "iadd r7, r7, 4\n"
   "device_load 0, i32, xyzw, r12_r13_r14_r15, u0_u1, r7, unsigned\n"
   "wait 0\n"
   "st_var 0, r8, 0\nst_var 0, r9, 1\nst_var 0, r10, 2\nst_var 0, r11, 3\n"
   "st_var 0, r12, 4\nst_var 0, r13, 5\nst_var 0, r14, 6\nst_var_final 0, r15, 7\n"
   "stop\n";

const char *const vs_extra_src =
   /* 16 floats per vertex: position, colour, one extra output after the
    * colour (slot 8: point size or clip distance, the UVS order) */
   "iadd r7, 0, r5, lsl 4\n"
   "device_load 0, i32, xyzw, r8_r9_r10_r11, u0_u1, r7, unsigned\n"
   "iadd r7, r7, 4\n"
   "device_load 0, i32, xyzw, r12_r13_r14_r15, u0_u1, r7, unsigned\n"
   "iadd r7, r7, 4\n"
   "device_load 0, i32, x, r16, u0_u1, r7, unsigned\n"
   "wait 0\n"
   "st_var 0, r8, 0\nst_var 0, r9, 1\nst_var 0, r10, 2\nst_var 0, r11, 3\n"
   "st_var 0, r12, 4\nst_var 0, r13, 5\nst_var 0, r14, 6\nst_var 0, r15, 7\n"
   "st_var_final 0, r16, 8\n"
   "stop\n";

/* Instanced: x += 0.5 * instance (r6). */
const char *const vs_inst_src =
   "iadd r7, 0, r5, lsl 3\n"
   "device_load 0, i32, xyzw, r8_r9_r10_r11, u0_u1, r7, unsigned\n"
   "iadd r7, r7, 4\n"
   "device_load 0, i32, xyzw, r12_r13_r14_r15, u0_u1, r7, unsigned\n"
   "wait 0\n"
   "convert u32_to_f, r16, r6, rte\n"
   "fmadd32 r8, r16, 0.5, r8\n"
   "st_var 0, r8, 0\nst_var 0, r9, 1\nst_var 0, r10, 2\nst_var 0, r11, 3\n"
   "st_var 0, r12, 4\nst_var 0, r13, 5\nst_var 0, r14, 6\nst_var_final 0, r15, 7\n"
   "stop\n";

const char *const fs_src =
   "iter r4_r5_r6_r7, cf0, center, 0b0, 0, 0, 0, 0, 0\n"
   "st_tile r4_r5_r6_r7, u8norm, 0, xyzw, 0, 255, 0\n"
   "stop\n";

/* Blending in the shader: out = src * a + dst * (1 - a). */
const char *const fs_blend_src =
   "iter r4_r5_r6_r7, cf0, center, 0b0, 0, 0, 0, 0, 0\n"
   "wait_pix 1, 0\n"
   "ld_tile r8_r9_r10_r11, u8norm, 0, xyzw, 0, 255, 0\n"
   "fadd32 r12, 1.0, r7.neg\n"
   "fmul32 r8, r8, r12\nfmul32 r9, r9, r12\nfmul32 r10, r10, r12\nfmul32 r11, r11, r12\n"
   "fmadd32 r4, r4, r7, r8\nfmadd32 r5, r5, r7, r9\nfmadd32 r6, r6, r7, r10\nfmadd32 r7, r7, r7, r11\n"
   "st_tile r4_r5_r6_r7, u8norm, 0, xyzw, 0, 255, 0\n"
   "signal_pix 1, 0\n"
   "stop\n";

static const char *const bg_clear_src =
   "mov r4, u0\nmov r5, u1\nmov r6, u2\nmov r7, u3\n"
   "st_tile r4_r5_r6_r7, u8norm, 0, xyzw, 0, 255, 0\n"
   "stop\n";

static const char *const bg_load_src =
   "get_sr r2, sr80\nget_sr r3, sr81\n"
   "texture_load 0, 0b0000, 0b0, none, xyzw, 0b00, r4_r5_r6_r7, None, ts0, ss0, tex_2d, r2_r3, auto_lod, 0\n"
   "wait 0\n"
   "st_tile r4_r5_r6_r7, u8norm, 0, xyzw, 0, 255, 0\n"
   "stop\n";

static const char *const eot_src =
   "mov_imm r8l, 0\nget_sr r2, sr80\nget_sr r3, sr81\n"
   "image_write_block r8l, r2_r3, 0, ts0, tex_2d, rte, u8norm, 0, 0, 0\n"
   "stop\n";

void
scene_init(struct scene *s, unsigned w, unsigned h, unsigned samples,
           uint32_t clear, unsigned threads, uint32_t tvb_size)
{
   memset(s, 0, sizeof(*s));
   struct hw_device_config cfg = { .mem_size = 512ull << 20 };
   t_setup_fw(&s->t, &cfg);
   struct hw_render_config rc = { .threads = threads };
   s->r = hw_render_create(s->t.dev, &rc);
   assert_non_null(s->r);
   s->mem = t_user_map(&s->t, SLOT, USC_BASE, MEM_PAGES, RW);
   s->tvb = t_user_map(&s->t, SLOT, TVB_VA, TVB_PAGES, RW);
   s->used = 0x100;   /* USC offset 0 means "no program" */
   s->w = w;
   s->h = h;
   s->samples = samples;
   s->tvb_size = tvb_size;
   /* Multisampled scenes render into a multisampled image (samples of a
    * pixel consecutive): image_write_block stores samples, it does not
    * resolve. */
   s->rt_va = alloc(s, (uint64_t)w * h * 4 * samples, 128);
   s->rt = host(s, s->rt_va);
   memset(s->rt, 0x5a, (size_t)w * h * 4 * samples);   /* must all be overwritten */
   enum agx_texture_dimension dim = samples > 1 ? AGX_TEXTURE_DIMENSION_2D_MS
                                                : AGX_TEXTURE_DIMENSION_2D;
   enum agx_sample_count sc = samples == 4 ? AGX_SAMPLE_COUNT_4 : AGX_SAMPLE_COUNT_2;

   uint8_t d[AGX_PBE_LENGTH];
   agx_pack(d, PBE, p) {
      p.dimension = dim; p.samples = sc; p.layout = AGX_LAYOUT_LINEAR;
      p.channels = AGX_CHANNELS_R8G8B8A8; p.type = AGX_TEXTURE_TYPE_UNORM;
      p.swizzle_r = AGX_CHANNEL_R; p.swizzle_g = AGX_CHANNEL_G;
      p.swizzle_b = AGX_CHANNEL_B; p.swizzle_a = AGX_CHANNEL_A;
      p.width = w; p.height = h; p.buffer = s->rt_va; p.stride = w * 4 * samples - 4;
   }
   uint64_t pbe = put(s, d, sizeof(d), 16);
   agx_pack(d, TEXTURE, tx) {
      tx.dimension = dim; tx.samples = sc; tx.layout = AGX_LAYOUT_LINEAR;
      tx.channels = AGX_CHANNELS_R8G8B8A8; tx.type = AGX_TEXTURE_TYPE_UNORM;
      tx.width = w; tx.height = h; tx.address = s->rt_va; tx.stride = w * 4 * samples - 16;
   }
   uint64_t tex = put(s, d, sizeof(d), 16);
   s->rt_tex = tex;

   float cc[4];
   for (unsigned c = 0; c < 4; c++)
      cc[c] = (float)(clear >> (8 * c) & 0xff) / 255.0f;
   s->clear = clear;
   s->bg_usc = pipeline(s, shader(s, bg_clear_src), cc, sizeof(cc), 0, true);
   s->pbg_usc = pipeline(s, shader(s, bg_load_src), NULL, 0, tex, true);
   s->eot_usc = pipeline(s, shader(s, eot_src), NULL, 0, pbe, false);
   s->peot_usc = s->eot_usc;
}

uint32_t
scene_reload_program(struct scene *s, const char *src)
{
   return pipeline(s, shader(s, src), NULL, 0, s->rt_tex, true);
}

/* Mesa's layered end-of-tile program (agx_bg_eot.c): the layer is
 * load_layer_id, threadgroup_position_in_grid.z (sr2), passed as the
 * block store's coordinate. */
static const char *const eot_layered_src =
   "mov_imm r8l, 0\nget_sr r4, sr2\n"
   "image_write_block r8l, r4, 0, ts0, tex_2d_array, rte, u8norm, 0, 0, 0\n"
   "stop\n";

void
scene_layered(struct scene *s, unsigned layers)
{
   assert_int_equal(s->samples, 1);
   s->layers = layers;
   s->layer_stride = ((uint64_t)s->w * s->h * 4 + 127) & ~127ull;
   uint64_t va = alloc(s, s->layer_stride * layers, 128);
   s->rt_array = host(s, va);
   memset(s->rt_array, 0x5a, s->layer_stride * layers);
   uint8_t d[AGX_PBE_LENGTH];
   agx_pack(d, PBE, p) {
      p.dimension = AGX_TEXTURE_DIMENSION_2D_ARRAY; p.layout = AGX_LAYOUT_LINEAR;
      p.channels = AGX_CHANNELS_R8G8B8A8; p.type = AGX_TEXTURE_TYPE_UNORM;
      p.swizzle_r = AGX_CHANNEL_R; p.swizzle_g = AGX_CHANNEL_G;
      p.swizzle_b = AGX_CHANNEL_B; p.swizzle_a = AGX_CHANNEL_A;
      p.width = s->w; p.height = s->h; p.buffer = va; p.stride = s->w * 4 - 4;
      p.extended = true; p.depth_linear = layers;
      p.layer_stride_linear = (uint32_t)(s->layer_stride - 128);   /* stored minus 128 */
   }
   uint64_t pbe = put(s, d, sizeof(d), 16);
   s->eot_usc = pipeline(s, shader(s, eot_layered_src), NULL, 0, pbe, false);
   s->peot_usc = s->eot_usc;
}

uint32_t
scene_bg_program(struct scene *s, const char *prefix)
{
   float cc[4];
   for (unsigned c = 0; c < 4; c++)
      cc[c] = (float)(s->clear >> (8 * c) & 0xff) / 255.0f;
   char src[512];
   snprintf(src, sizeof(src), "%s%s", prefix, bg_clear_src);
   return pipeline(s, shader(s, src), cc, sizeof(cc), 0, true);
}

void
scene_teardown(struct scene *s)
{
   if (s->cdm)
      hw_cdm_destroy(s->cdm);
   hw_render_destroy(s->r);
   t_teardown(&s->t);
}

/* ------------------------------------------------------------ streams */

void
scene_compute(struct scene *s, const char *src, const void *uni, unsigned uni_bytes,
              uint32_t grid, uint32_t local)
{
   if (!s->cdm) {
      struct hw_cdm_config cc = { .threads = 2 };
      s->cdm = hw_cdm_create(s->t.dev, &cc);
      assert_non_null(s->cdm);
   }
   uint8_t w[64];
   unsigned n = 0;
   uint64_t ub = put(s, uni, uni_bytes, 16);
   agx_pack(w + n, USC_UNIFORM, u) { u.start_halfs = 0; u.size_halfs = uni_bytes / 2; u.buffer = ub; }
   n += 8;
   agx_pack(w + n, USC_SHARED, sh) {
      sh.layout = AGX_SHARED_LAYOUT_VERTEX_COMPUTE; sh.bytes_per_threadgroup = 256;
   }
   n += 4;
   agx_pack(w + n, USC_SHADER, sh) { sh.code = shader(s, src) - USC_BASE; }
   n += 6;
   agx_pack(w + n, USC_REGISTERS, rg) { rg.register_count = 32; }
   n += 4;
   agx_pack(w + n, USC_NO_PRESHADER, np) { (void)np; }
   n += 2;
   uint32_t pipe = (uint32_t)(put(s, w, n, 64) - USC_BASE);
   uint8_t c[64];
   n = 0;
   agx_pack(c + n, CDM_LAUNCH_WORD_0, l) {
      l.uniform_register_count = 512; l.preshader_register_count = 256;
      l.mode = AGX_CDM_MODE_DIRECT;
   }
   agx_pack(c + n + 4, CDM_LAUNCH_WORD_1, l) { l.pipeline = pipe; }
   n += 8;
   agx_pack(c + n, CDM_GLOBAL_SIZE, g) { g.x = grid; g.y = 1; g.z = 1; }
   n += AGX_CDM_GLOBAL_SIZE_LENGTH;
   agx_pack(c + n, CDM_LOCAL_SIZE, l) { l.x = local; l.y = 1; l.z = 1; }
   n += AGX_CDM_LOCAL_SIZE_LENGTH;
   agx_pack(c + n, CDM_STREAM_TERMINATE, t) { (void)t; }
   n += AGX_CDM_STREAM_TERMINATE_LENGTH;
   s->cs_stream = put(s, c, n, 64);
}

void
vdm_emit(struct scene *s, const void *p, unsigned len)
{
   assert_true(s->vdm_len + len <= sizeof(s->vdm));
   memcpy(s->vdm + s->vdm_len, p, len);
   s->vdm_len += len;
}


/* VDM state (vertex pipeline, 8 outputs) + PPP record for `ds`. */
void
emit_state(struct scene *s, const struct draw_state *ds, const char *vs,
           const void *verts, unsigned vbytes)
{
   uint64_t vb = put(s, verts, vbytes, 16);
   s->last_vb = vb;
   uint32_t vs_pipe = ds->vs_ub ? pipeline_at(s, shader(s, vs), ds->vs_ub, 8, 0, 0, false, 0)
                                : pipeline(s, shader(s, vs), &vb, 8, 0, false);
   uint32_t fs_pipe = pipeline_smp(s, shader(s, ds->fs ? ds->fs : fs_src), ds->fs_uni,
                                   ds->fs_uni_bytes, ds->fs_tex, ds->fs_smp, true,
                                   ds->fs_pre ? shader(s, ds->fs_pre) : 0);
   uint8_t cb[AGX_CF_BINDING_HEADER_LENGTH + AGX_CF_BINDING_LENGTH];
   agx_pack(cb, CF_BINDING_HEADER, h) { h.slots = 4; h.coefficient_registers = 4; }
   agx_pack(cb + 4, CF_BINDING, b) {
      b.components = 4; b.shade_model = ds->shade; b.source = AGX_CF_SOURCE_VARYING;
      /* slot 0 is 1/W; the colour is the first user varying */
      b.base_slot = 1; b.base_coefficient_register = 0;
   }
   uint32_t cf = (uint32_t)(put(s, cb, sizeof(cb), 4) - USC_BASE);

   uint8_t v[32] = { 0 };
   agx_pack(v, VDM_STATE, st) {
      st.vertex_shader_word_0_present = true; st.vertex_shader_word_1_present = true;
      st.vertex_outputs_present = true; st.restart_index_present = true;
   }
   uint32_t restart = 0xffff;
   memcpy(v + 4, &restart, 4);
   agx_pack(v + 8, VDM_STATE_VERTEX_SHADER_WORD_0, w0) { w0.uniform_register_count = 64; }
   agx_pack(v + 12, VDM_STATE_VERTEX_SHADER_WORD_1, w1) { w1.pipeline = vs_pipe; }
   agx_pack(v + 16, VDM_STATE_VERTEX_OUTPUTS, o) { o.output_count_1 = 8 + ds->extra_slots; }
   vdm_emit(s, v, 24);

   /* Zeroed: the Viewport Control word is sent as zeros, never packed;
    * left as stack garbage it differed from one scene to the next (the
    * scenes' memory is compared byte for byte). */
   uint8_t p[256] = { 0 };
   unsigned n = 0;
   agx_pack(p, PPP_HEADER, h) {
      h.fragment_control = true; h.front_face = true; h.front_stencil = true;
      h.back_face = true; h.back_stencil = true; h.viewport = true; h.viewport_count = 1;
      h.output_select = true; h.cull = true; h.fragment_shader = true;
      h.varying_counts_32 = ds->flat_slots != 0;
      h.depth_bias_scissor = ds->scissor || ds->dbias;
      h.region_clip = true;
      h.occlusion_query = ds->vis != AGX_VISIBILITY_MODE_NONE;
   }
   n = 4;
   agx_pack(p + n, FRAGMENT_CONTROL, fc) {
      fc.stencil_test_enable = ds->stencil; fc.pass_type = ds->pass;
      fc.two_sided_stencil = ds->two_sided; fc.scissor_enable = ds->scissor;
      fc.depth_bias_enable = ds->dbias; fc.visibility_mode = ds->vis;
   }
   n += 4;
   for (unsigned f = 0; f < 2; f++) {
      bool back = f == 1 && ds->two_sided;
      agx_pack(p + n, FRAGMENT_FACE, ff) {
         ff.stencil_reference = back ? ds->back.ref : ds->sref;
         ff.disable_depth_write = !ds->zwrite;
         ff.depth_function = ds->zfunc; ff.line_width = ds->line_width;
         ff.polygon_mode = f ? ds->poly_back : ds->poly_front;
      }
      n += 4;
      agx_pack(p + n, FRAGMENT_STENCIL, sf) {
         sf.write_mask = 0xff; sf.read_mask = 0xff;
         sf.depth_pass = back ? ds->back.pass : ds->spass;
         sf.depth_fail = back ? ds->back.zfail : ds->szfail;
         sf.stencil_fail = back ? ds->back.sfail : ds->ssfail;
         sf.compare = back ? ds->back.cmp : ds->scmp;
      }
      n += 4;
   }
   if (ds->scissor || ds->dbias) {
      agx_pack(p + n, DEPTH_BIAS_SCISSOR, d) {
         d.scissor = ds->scissor_idx; d.depth_bias = ds->dbias_idx;
      }
      n += 4;
   }
   {
      /* Always sent: PPP state is sticky, a draw without a Region Clip
       * word would inherit the previous draw's. */
      agx_pack(p + n, REGION_CLIP, rc) {
         rc.enable = ds->region_clip;
         if (ds->region_clip) {
            rc.min_x = ds->rc[0]; rc.max_x = ds->rc[1];
            rc.min_y = ds->rc[2]; rc.max_y = ds->rc[3];
         }
      }
      n += AGX_REGION_CLIP_LENGTH;
   }
   n += 4;   /* viewport control */
   agx_pack(p + n, VIEWPORT, vp) {
      vp.translate_x = s->w / 2.0f; vp.scale_x = s->w / 2.0f;
      vp.translate_y = s->h / 2.0f; vp.scale_y = -(s->h / 2.0f);
      vp.translate_z = 0.0f; vp.scale_z = 1.0f;
   }
   n += 24;
   agx_pack(p + n, OUTPUT_SELECT, os) {
      os.varyings = true; os.point_size = ds->point_size;
      os.clip_distance_planes = ds->clip_planes;
      os.render_target = ds->layer;
   }
   n += 4;
   if (ds->flat_slots) {
      agx_pack(p + n, VARYING_COUNTS, vc) {
         vc.smooth = 4 - ds->flat_slots; vc.flat = ds->flat_slots;
      }
      n += 4;
   }
   agx_pack(p + n, CULL, c) {
      c.cull_back = ds->cull_back; c.depth_clip = !ds->no_depth_clip;
      c.depth_clamp = ds->depth_clamp;
      if (ds->flat_vertex)
         c.flat_shading_vertex = ds->flat_vertex;
   }
   n += 4;
   agx_pack(p + n, FRAGMENT_SHADER_WORD_0, w0) { w0.cf_binding_count = 1; }
   agx_pack(p + n + 4, FRAGMENT_SHADER_WORD_1, w1) { w1.pipeline = fs_pipe; }
   agx_pack(p + n + 8, FRAGMENT_SHADER_WORD_2, w2) { w2.cf_bindings = cf; }
   memset(p + n + 12, 0, 4);
   n += 16;
   if (ds->vis != AGX_VISIBILITY_MODE_NONE) {
      agx_pack(p + n, FRAGMENT_OCCLUSION_QUERY, q) { q.index = ds->oq_idx; }
      n += 4;
   }
   uint64_t pp = put(s, p, n, 16);
   agx_pack(v, PPP_STATE, ps) {
      ps.pointer_hi = (uint32_t)(pp >> 32); ps.pointer_lo = (uint32_t)pp; ps.size_words = n / 4;
   }
   vdm_emit(s, v, 8);
}

void
emit_draw(struct scene *s, enum agx_primitive prim, const void *idx,
          enum agx_index_size isz, unsigned count, unsigned instances,
          bool restart)
{
   uint8_t v[32];
   unsigned n = 4;
   uint64_t ib = 0;
   if (idx)
      ib = put(s, idx, (uint64_t)count << isz, 16);
   agx_pack(v, INDEX_LIST, il) {
      il.primitive = prim; il.restart_enable = restart; il.index_size = isz;
      il.index_buffer_present = idx != NULL; il.index_count_present = true;
      il.instance_count_present = true; il.start_present = true;
      il.index_buffer_hi = (uint32_t)(ib >> 32);
   }
   if (idx) {
      uint32_t lo = (uint32_t)ib;
      memcpy(v + n, &lo, 4);
      n += 4;
   }
   uint32_t words[3] = { count, instances, 0 };
   memcpy(v + n, words, 12);
   n += 12;
   vdm_emit(s, v, n);
}

size_t
scene_zs_texel(const struct scene *s, unsigned x, unsigned y, unsigned bytes)
{
   struct hw_tex_layout l;
   assert_true(hw_tex_layout_twiddled(&l, bytes * s->samples, s->w, s->h, 1, 1, false));
   return hw_tex_offset(&l, x, y, 0, 0) / bytes;
}

bool
run(struct scene *s)
{
   uint8_t term[8];
   agx_pack(term, VDM_STREAM_TERMINATE, t) { (void)t; }
   vdm_emit(s, term, 8);
   uint64_t stream = put(s, s->vdm, s->vdm_len, 64);
   struct t_fw *t = &s->t;

   uint64_t tilemap = TVB_VA + BIG_TVB;
   s->frame++;
   /* The ZLS images: twiddled, w x h, all samples of a pixel in a texel
    * (scene_zs_texel finds a pixel in them). */
   uint64_t zb = 0;
   if (s->want_depth) {
      struct hw_tex_layout l;
      assert_true(hw_tex_layout_twiddled(&l, 4 * s->samples, s->w, s->h, 1, 1, false));
      zb = alloc(s, l.size, 128);
      s->zbuf_va = zb;
   }
   uint64_t sb = 0;
   if (s->want_stencil) {
      struct hw_tex_layout l;
      assert_true(hw_tex_layout_twiddled(&l, s->samples, s->w, s->h, 1, 1, false));
      sb = alloc(s, l.size, 128);
      s->sbuf_va = sb;
   }

   uint64_t stamp_v, stamp_f, stamp_c = 0, ts;
   struct t_queue qc;
   bool done_c = true;
   if (s->cs_stream) {
      t_kalloc(t, 4, &stamp_c);
      uint64_t cts;
      t_kalloc(t, 16, &cts);
      struct t_job_opts co = {
         .tag = AGX_FW_COMMAND_RUN_COMPUTE, .vm_slot = SLOT, .event_slot = 5,
         .job_id = 0x300 + s->frame, .stamp = stamp_c, .stamp_value = 0x100,
         .ts_start = cts, .ts_end = cts + 8,
      };
      uint64_t cj = t_run_job(t, &co);
      struct agx_fw_job_header hdr;
      assert_true(agx_fw_job_header_unpack(t_kva_host(t, cj), &hdr));
      agx_pack(t_kva_host(t, hdr.payload), FW_COMPUTE_PAYLOAD, p) {
         p.cdm_stream_base = s->cs_stream;
         p.cdm_stream_end = s->cs_stream + 4096;
         p.usc_base = USC_BASE;
      }
      t_queue_init(t, &qc, AGX_FW_PIPE_COMPUTE, 0, 5);
      t_submit(t, &qc, cj);
      done_c = false;
   }
   t_kalloc(t, 4, &stamp_v);
   t_kalloc(t, 4, &stamp_f);
   uint64_t *tsp = t_kalloc(t, 32, &ts);
   struct t_job_opts vo = {
      .tag = AGX_FW_COMMAND_RUN_VERTEX, .vm_slot = SLOT, .event_slot = 3,
      .job_id = 0x100 + s->frame, .stamp = stamp_v, .stamp_value = 0x100,
      .ts_start = ts, .ts_end = ts + 8, .wait_stamp = stamp_c, .wait_value = 0x100,
   };
   struct t_job_opts fo = {
      .tag = AGX_FW_COMMAND_RUN_FRAGMENT, .vm_slot = SLOT, .event_slot = 4,
      .job_id = 0x200 + s->frame, .stamp = stamp_f, .stamp_value = 0x100,
      .ts_start = ts + 16, .ts_end = ts + 24, .wait_stamp = stamp_v, .wait_value = 0x100,
   };
   uint64_t jobs[2] = { t_run_job(t, &vo), t_run_job(t, &fo) };
   for (unsigned i = 0; i < 2; i++) {
      struct agx_fw_job_header hdr;
      assert_true(agx_fw_job_header_unpack(t_kva_host(t, jobs[i]), &hdr));
      agx_pack(t_kva_host(t, hdr.payload), FW_RENDER_PAYLOAD, p) {
         p.vdm_stream_base = stream;
         p.usc_base = USC_BASE;
         p.width = s->w; p.height = s->h; p.layers = s->layers ? s->layers : 1;
         p.utile_width = s->utile_w ? s->utile_w : 32;
         p.utile_height = s->utile_h ? s->utile_h : 32;
         p.isp_dbias_base = s->dbias_va;
         p.isp_scissor_base = s->scissor_va;
         p.samples = s->samples; p.sample_size = 4;
         p.bg_usc = s->bg_usc; p.eot_usc = s->eot_usc;
         p.partial_bg_usc = s->pbg_usc; p.partial_eot_usc = s->peot_usc;
         float one = 1.0f;
         memcpy(&p.isp_bg_obj_depth, &one, 4);
         agx_unpack((const uint8_t *)&s->zls, ZLS_CONTROL, zc);
         if (zc.z_format == AGX_ZLS_FORMAT_16)
            p.isp_bg_obj_depth = 0xffff;
         if (s->bg_depth_set)
            p.isp_bg_obj_depth = s->bg_depth;
         p.isp_bg_obj_vals = 0;
         p.depth_base = zb;
         p.stencil_base = sb;
         p.isp_zls_pixels = (s->w - 1) | ((s->h - 1) << 15);
         p.zls_control = s->zls;
         p.flags = s->flags;
         p.tvb_heap = TVB_VA; p.tvb_heap_size = s->tvb_size;
         p.tvb_tilemap = tilemap;
         p.tvb_tilemap_size = TILEMAP_BYTES;
         p.buffer_slot = 2;
         p.frame = s->frame;
         p.isp_oclqry_base = s->oclqry_va;
      }
   }
   struct t_queue qv, qf;
   t_queue_init(t, &qv, AGX_FW_PIPE_VERTEX, 0, 3);
   t_queue_init(t, &qf, AGX_FW_PIPE_FRAGMENT, 0, 4);
   t_submit(t, &qv, jobs[0]);
   t_submit(t, &qf, jobs[1]);
   bool done_v = false, done_f = false, failed = false;
   while (!(done_v && done_f && done_c) && !failed) {
      uint8_t msg[HW_FW_EVENT_MSG_SIZE];
      if (!t_next_event(t, msg, 60000))
         fail_msg("no event from the firmware");
      switch (t_event_type(msg)) {
      case AGX_FW_EVENT_FLAG: {
         agx_unpack(msg, FW_EVENT_FLAG, f);
         done_v |= f.firing_0 >> 3 & 1;
         done_f |= f.firing_0 >> 4 & 1;
         done_c |= f.firing_0 >> 5 & 1;
         break;
      }
      case AGX_FW_EVENT_GROW_TVB: {
         agx_unpack(msg, FW_EVENT_GROW_TVB, g);
         assert_int_equal(g.vm_slot, SLOT);
         assert_int_equal(g.buffer_slot, 2);
         s->grow_events++;
         break;
      }
      default: {
         agx_unpack(msg, FW_EVENT_JOB_ERROR, je);
         if (!s->failed_job)
            s->failed_job = je.job_id;
         /* Not the device's last error text: a job that fails later
          * (the fragment job of a broken vertex stream) may already have
          * replaced it, so printing it made the output vary from run to
          * run (tests/gl/usc_native.sh compares outputs). */
         print_message("event %u (job %#x)\n", t_event_type(msg), je.job_id);
         }
         failed = true;
         break;
      }
   }
   memcpy(s->ts_v, tsp, 16);
   memcpy(s->ts_f, tsp + 2, 16);
   hw_render_get_stats(s->r, &s->stats);
   return !failed;
}

const struct draw_state default_state = {
   .zfunc = AGX_ZS_FUNC_ALWAYS, .zwrite = false, .scmp = AGX_ZS_FUNC_ALWAYS,
   .pass = AGX_PASS_TYPE_OPAQUE, .shade = AGX_SHADE_MODEL_LINEAR,
};

/* Many small triangles: a small TVB forces partial renders. */
void
many_triangles(struct scene *s, unsigned n)
{
   struct vtx *v = malloc(n * 3 * sizeof(*v));
   uint32_t seed = 12345;
   for (unsigned i = 0; i < n; i++) {
      seed = seed * 1103515245u + 12345u;
      float cx = (float)(seed >> 8 & 0xffff) / 65536.0f * 1.9f - 0.95f;
      seed = seed * 1103515245u + 12345u;
      float cy = (float)(seed >> 8 & 0xffff) / 65536.0f * 1.9f - 0.95f;
      float col = (float)(i % 7) / 6.0f;
      struct vtx a = { cx, cy, 0.5f, 1, col, 1 - col, 0.5f, 1 };
      v[3 * i] = a;
      v[3 * i + 1] = a;
      v[3 * i + 1].x += 0.05f;
      v[3 * i + 2] = a;
      v[3 * i + 2].y += 0.05f;
   }
   struct draw_state ds = default_state;
   ds.shade = AGX_SHADE_MODEL_FLAT_VERTEX_0;
   emit_state(s, &ds, vs_src, v, n * 3 * sizeof(*v));
   emit_draw(s, AGX_PRIMITIVE_TRIANGLES, NULL, 0, n * 3, 1, false);
   free(v);
}


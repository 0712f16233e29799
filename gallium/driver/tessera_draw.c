/* SPDX-License-Identifier: MIT */
/*
 * Draws and clears: each draw_vbo appends to the batch's VDM stream a VDM
 * State block (vertex pipeline), a PPP State record (fragment state,
 * viewport, scissor, cull, fragment pipeline and CF bindings) and an
 * Index List. Clears are recorded in the batch and done by its background
 * program and the ZLS clear values (tessera_bgeot.c, tessera_batch.c);
 * a clear after draws is a screen-sized rectangle drawn into the pass
 * (clear_in_pass).
 */
#include <stdio.h>
#include <string.h>

#include "indices/u_primconvert.h"
#include "util/u_blitter.h"
#include "util/u_draw.h"
#include "util/u_helpers.h"
#include "util/u_inlines.h"
#include "util/u_math.h"
#include "util/u_prim.h"
#include "util/u_upload_mgr.h"
#include "util/format/u_format.h"

#include "cmdstream/agx_pack.h"
#include "tessera_context.h"

/* Uniform words of one pipeline, built on the CPU then uploaded. */
struct uniforms {
   uint32_t w[256];
   unsigned n;                /* registers to preload */
};

static enum agx_primitive
translate_prim(enum pipe_prim_type mode, bool *ok)
{
   *ok = true;
   switch (mode) {
   case PIPE_PRIM_POINTS: return AGX_PRIMITIVE_POINTS;
   case PIPE_PRIM_LINES: return AGX_PRIMITIVE_LINES;
   case PIPE_PRIM_LINE_STRIP: return AGX_PRIMITIVE_LINE_STRIP;
   case PIPE_PRIM_LINE_LOOP: return AGX_PRIMITIVE_LINE_LOOP;
   case PIPE_PRIM_TRIANGLES: return AGX_PRIMITIVE_TRIANGLES;
   case PIPE_PRIM_TRIANGLE_STRIP: return AGX_PRIMITIVE_TRIANGLE_STRIP;
   case PIPE_PRIM_TRIANGLE_FAN: return AGX_PRIMITIVE_TRIANGLE_FAN;
   default: *ok = false; return AGX_PRIMITIVE_TRIANGLES;
   }
}

static enum agx_zs_func
translate_func(unsigned f)
{
   /* PIPE_FUNC_* and the ISP's ZS Func share the GL order. */
   return (enum agx_zs_func)(f & 7);
}

static enum agx_stencil_op
translate_stencil_op(unsigned op)
{
   switch (op) {
   case PIPE_STENCIL_OP_KEEP: return AGX_STENCIL_OP_KEEP;
   case PIPE_STENCIL_OP_ZERO: return AGX_STENCIL_OP_ZERO;
   case PIPE_STENCIL_OP_REPLACE: return AGX_STENCIL_OP_REPLACE;
   case PIPE_STENCIL_OP_INCR: return AGX_STENCIL_OP_INCR_SAT;
   case PIPE_STENCIL_OP_DECR: return AGX_STENCIL_OP_DECR_SAT;
   case PIPE_STENCIL_OP_INCR_WRAP: return AGX_STENCIL_OP_INCR_WRAP;
   case PIPE_STENCIL_OP_DECR_WRAP: return AGX_STENCIL_OP_DECR_WRAP;
   default: return AGX_STENCIL_OP_INVERT;
   }
}

/* Extended tables (a Border record after each sampler) are needed as soon
 * as one bound sampler has a custom border colour. */
static enum agx_sampler_states
sampler_states(unsigned n, bool extended)
{
   if (n == 0) return AGX_SAMPLER_STATES_0;
   if (extended) return n <= 8 ? AGX_SAMPLER_STATES_8_EXTENDED : AGX_SAMPLER_STATES_16_EXTENDED;
   if (n <= 4) return AGX_SAMPLER_STATES_4_COMPACT;
   if (n <= 8) return AGX_SAMPLER_STATES_8_COMPACT;
   if (n <= 12) return AGX_SAMPLER_STATES_12_COMPACT;
   return AGX_SAMPLER_STATES_16_COMPACT;
}

/* The GPU address of constant buffer 0 of a stage (uploading user
 * buffers) and a CPU pointer to its words for the push range. */
static uint64_t
cbuf0(struct tessera_context *ctx, struct tessera_batch *batch, enum pipe_shader_type st,
      const uint32_t **cpu, unsigned *words)
{
   struct pipe_constant_buffer *cb = &ctx->state->cb[st];
   *cpu = NULL;
   *words = 0;
   if (!cb->buffer && !cb->user_buffer)
      return 0;
   unsigned size = cb->buffer_size;
   if (cb->user_buffer) {
      struct pipe_resource *res = NULL;
      unsigned offset = 0;
      u_upload_data(ctx->base.const_uploader, 0, size, 16, cb->user_buffer, &offset, &res);
      if (!res)
         return 0;
      tessera_batch_reads(batch, res);
      uint64_t va = tessera_resource(res)->bo->va + offset;
      pipe_resource_reference(&res, NULL);
      *cpu = cb->user_buffer;
      *words = size / 4;
      return va;
   }
   struct tessera_resource *r = tessera_resource(cb->buffer);
   tessera_batch_reads(batch, cb->buffer);
   uint8_t *map = tessera_bo_map(r->bo);
   if (map) {
      *cpu = (const uint32_t *)(map + cb->buffer_offset);
      *words = MIN2(size, cb->buffer->width0 - cb->buffer_offset) / 4;
   }
   return r->bo->va + cb->buffer_offset;
}

static void
uniforms_push(struct uniforms *u, const struct tc_shader_binary *bin, const uint32_t *cpu,
              unsigned words)
{
   u->n = MIN2(MAX2(u->n, bin->nr_uniforms), 256);
   for (unsigned k = 0; TC_U_PUSH + k < u->n; k++)
      u->w[TC_U_PUSH + k] = (cpu && k < words) ? cpu[k] : 0;
}

/* USC Uniform words for registers [0, u->n). */
static unsigned
emit_uniform_words(struct tessera_batch *batch, const struct uniforms *u, uint8_t *out)
{
   unsigned n = 0;
   if (!u->n)
      return 0;
   uint64_t va = tessera_pool_upload(&batch->pool, u->w, u->n * 4, 16);
   if (!va)
      return 0;
   for (unsigned r = 0; r < u->n; r += 32) {
      unsigned cnt = MIN2(32, u->n - r);
      /* Chunks of 32 never straddle register 128. */
      if (r < 128) {
         agx_pack(out + n, USC_UNIFORM, w) {
            w.start_halfs = r * 2;
            w.size_halfs = cnt * 2;
            w.buffer = va + r * 4;
         }
         n += AGX_USC_UNIFORM_LENGTH;
      } else {
         agx_pack(out + n, USC_UNIFORM_HIGH, w) {
            w.start_halfs = r * 2 - 256;
            w.size_halfs = cnt * 2;
            w.buffer = va + r * 4;
         }
         n += AGX_USC_UNIFORM_HIGH_LENGTH;
      }
   }
   return n;
}

/* Texture and sampler tables of a stage; *smp_states is the launch words'
 * sampler-state count (compact or extended). stipple_unit >= 0: the
 * polygon stipple texture and sampler go there (a stippling fragment
 * variant, tessera_shader.c). */
static unsigned
emit_texture_words(struct tessera_context *ctx, struct tessera_batch *batch,
                   enum pipe_shader_type st, uint8_t *out, unsigned *ntex,
                   enum agx_sampler_states *smp_states, int stipple_unit)
{
   struct tessera_context_state *s = ctx->state;
   unsigned n = 0;
   struct pipe_sampler_view *views[TESSERA_MAX_TEXTURES + 1];
   struct tessera_sampler_state *samplers[TESSERA_MAX_SAMPLERS + 1];
   *ntex = s->nr_views[st];
   unsigned nr_smp = s->nr_samplers[st];
   memcpy(views, s->views[st], *ntex * sizeof(views[0]));
   memcpy(samplers, s->samplers[st], nr_smp * sizeof(samplers[0]));
   if (stipple_unit >= 0 && ctx->stipple_view && ctx->stipple_sampler &&
       stipple_unit < TESSERA_MAX_TEXTURES && stipple_unit < TESSERA_MAX_SAMPLERS) {
      for (; *ntex <= (unsigned)stipple_unit; (*ntex)++)
         views[*ntex] = NULL;
      for (; nr_smp <= (unsigned)stipple_unit; nr_smp++)
         samplers[nr_smp] = NULL;
      views[stipple_unit] = ctx->stipple_view;
      samplers[stipple_unit] = ctx->stipple_sampler;
   }
   if (*ntex) {
      uint64_t va;
      uint8_t *d = tessera_pool_alloc(&batch->pool, *ntex * TESSERA_DESC_SIZE, 64, &va);
      if (!d)
         return 0;
      memset(d, 0, *ntex * TESSERA_DESC_SIZE);
      for (unsigned i = 0; i < *ntex; i++) {
         struct pipe_sampler_view *v = views[i];
         if (!v)
            continue;
         /* Packed now: the resource may have a new BO since the view was made. */
         tessera_pack_texture(tessera_resource(v->texture), v, d + i * TESSERA_DESC_SIZE);
         tessera_batch_reads(batch, v->texture);
      }
      agx_pack(out + n, USC_TEXTURE, t) {
         t.start = 0;
         t.count = *ntex;
         t.buffer = va;
      }
      n += AGX_USC_TEXTURE_LENGTH;
   }
   bool extended = false;
   for (unsigned i = 0; i < nr_smp; i++)
      if (samplers[i] && samplers[i]->custom_border)
         extended = true;
   *smp_states = sampler_states(nr_smp, extended);
   if (nr_smp) {
      /* Extended slots: the 8-byte sampler, then its 16-byte Border,
       * packed for the texture bound at the same index (sampler and view
       * only meet here). Other samplers' Borders are never read. */
      unsigned stride = extended ? AGX_SAMPLER_LENGTH + AGX_BORDER_LENGTH : AGX_SAMPLER_LENGTH;
      uint64_t va;
      uint8_t *d = tessera_pool_alloc(&batch->pool, nr_smp * stride, 64, &va);
      if (!d)
         return 0;
      memset(d, 0, nr_smp * stride);
      for (unsigned i = 0; i < nr_smp; i++) {
         const struct tessera_sampler_state *smp = samplers[i];
         if (!smp)
            continue;
         memcpy(d + i * stride, smp->desc, AGX_SAMPLER_LENGTH);
         struct pipe_sampler_view *v = i < *ntex ? views[i] : NULL;
         if (smp->custom_border && v) {
            uint32_t border[4];
            tessera_pack_border(tessera_resource(v->texture), v, &smp->base.border_color,
                                border);
            agx_pack(d + i * stride + AGX_SAMPLER_LENGTH, BORDER, b) {
               b.channel_0 = border[0];
               b.channel_1 = border[1];
               b.channel_2 = border[2];
               b.channel_3 = border[3];
            }
         }
      }
      agx_pack(out + n, USC_SAMPLER, t) {
         t.start = 0;
         t.count = nr_smp;
         t.buffer = va;
      }
      n += AGX_USC_SAMPLER_LENGTH;
   }
   return n;
}

static unsigned
emit_tail_words(struct tessera_batch *batch, const struct tessera_variant *v, bool fragment,
                uint8_t *out)
{
   unsigned n = 0;
   agx_pack(out + n, USC_SHARED, sh) {
      if (fragment) {
         sh.uses_shared_memory = true;
         sh.layout = batch->tib.tile_w == 16 ? AGX_SHARED_LAYOUT_16X16
                     : batch->tib.tile_h == 16 ? AGX_SHARED_LAYOUT_32X16
                                               : AGX_SHARED_LAYOUT_32X32;
         sh.sample_count = batch->tib.samples;
         sh.sample_stride_in_8_bytes = DIV_ROUND_UP(batch->tib.sample_size, 8);
         sh.bytes_per_threadgroup = batch->tib.sample_size * batch->tib.samples *
                                    batch->tib.tile_w * batch->tib.tile_h;
      } else {
         sh.layout = AGX_SHARED_LAYOUT_VERTEX_COMPUTE;
         sh.sample_count = 1;
         sh.bytes_per_threadgroup = 256;
      }
   }
   n += AGX_USC_SHARED_LENGTH;
   agx_pack(out + n, USC_SHADER, sh) {
      sh.code = v->code;
      sh.loads_varyings = fragment && v->bin.fs.nr_inputs;
   }
   n += AGX_USC_SHADER_LENGTH;
   unsigned gprs = CLAMP(v->bin.nr_gprs, 8, 256);
   agx_pack(out + n, USC_REGISTERS, rg) { rg.register_count = gprs; }
   n += AGX_USC_REGISTERS_LENGTH;
   agx_pack(out + n, USC_NO_PRESHADER, np) { (void)np; }
   n += AGX_USC_NO_PRESHADER_LENGTH;
   return n;
}

static uint32_t
upload_pipeline(struct tessera_batch *batch, const uint8_t *words, unsigned n)
{
   uint64_t va = tessera_pool_upload(&batch->low_pool, words, n, 64);
   return va ? tessera_usc_offset(batch->ctx->screen, va) : 0;
}

/* Views whose shadow reference the shader clamps (tc_fs_key.shadow_clamp_mask). */
static uint16_t
shadow_clamp_mask(const struct tessera_context_state *s, enum pipe_shader_type st)
{
   uint16_t mask = 0;
   for (unsigned i = 0; i < MIN2(s->nr_views[st], 16); i++)
      if (tessera_view_clamps_shadow_ref(s->views[st][i]))
         mask |= 1u << i;
   return mask;
}

static bool
vs_key(struct tessera_context *ctx, struct tc_vs_key *key)
{
   struct tessera_context_state *s = ctx->state;
   memset(key, 0, sizeof(*key));
   key->nr_attribs = MIN2(s->ve->count, TC_MAX_ATTRIBS);
   for (unsigned i = 0; i < key->nr_attribs; i++) {
      const struct pipe_vertex_element *ve = &s->ve->ve[i];
      if (ve->vertex_buffer_index >= TC_MAX_VBUFS)
         return false;
      key->attribs[i].format = ve->src_format;
      key->attribs[i].buffer = ve->vertex_buffer_index;
      key->attribs[i].src_offset = ve->src_offset;
      key->attribs[i].stride = s->vb[ve->vertex_buffer_index].stride;
      key->attribs[i].divisor = ve->instance_divisor;
   }
   key->clip_halfz = s->rast->clip_halfz;
   key->ucp_enables = s->rast->clip_plane_enable & 0xff;
   key->shadow_clamp_mask = shadow_clamp_mask(s, PIPE_SHADER_VERTEX) & s->vs->shadow_textures;
   return true;
}

static void
fs_key(struct tessera_context *ctx, struct tessera_batch *batch, enum pipe_prim_type mode,
       struct tc_fs_key *key)
{
   struct tessera_context_state *s = ctx->state;
   memset(key, 0, sizeof(*key));
   key->nr_cbufs = MIN2(batch->fb.nr_cbufs, TC_MAX_RTS);
   for (unsigned i = 0; i < key->nr_cbufs; i++) {
      struct pipe_surface *c = batch->fb.cbufs[i];
      if (!c || batch->tib.format[i] == TC_TIB_NONE) {
         key->rt[i].format = PIPE_FORMAT_NONE;
         continue;
      }
      key->rt[i].format = c->format;
      key->rt[i].offset = batch->tib.offset[i];
      key->blend[i] = s->blend->rt[s->blend->independent_blend_enable ? i : 0];
   }
   key->logicop_enable = s->blend->logicop_enable;
   key->logicop_func = s->blend->logicop_enable ? s->blend->logicop_func : 0;
   key->flatshade = s->rast->flatshade;
   for (unsigned i = 0; i < MIN2(s->nr_samplers[PIPE_SHADER_FRAGMENT], 16); i++) {
      const struct tessera_sampler_state *smp = s->samplers[PIPE_SHADER_FRAGMENT][i];
      if (smp && smp->base.lod_bias != 0.0f)
         key->lod_bias_mask |= 1u << i;
   }
   key->shadow_clamp_mask = shadow_clamp_mask(s, PIPE_SHADER_FRAGMENT) & s->fs->shadow_textures;
   /* Only filled polygons are stippled (GL 1.x 3.6.5); the pattern
    * texture exists once st/mesa set one. */
   key->poly_stipple = s->rast->poly_stipple_enable && ctx->stipple_view &&
                       u_reduced_prim(mode) == PIPE_PRIM_TRIANGLES &&
                       s->rast->fill_front == PIPE_POLYGON_MODE_FILL &&
                       s->rast->fill_back == PIPE_POLYGON_MODE_FILL;
   if (mode == PIPE_PRIM_POINTS) {
      key->sprite_coord_enable = s->rast->sprite_coord_enable;
      key->sprite_coord_upper_left = s->rast->sprite_coord_mode == PIPE_SPRITE_COORD_UPPER_LEFT;
   }
}

/* The CF bindings of the fragment shader's inputs, in the USC heap. */
static uint32_t
cf_bindings(struct tessera_context *ctx, struct tessera_batch *batch,
            const struct tessera_variant *vs, const struct tessera_variant *fs,
            enum pipe_prim_type mode)
{
   /* GL's provoking vertex is the last one unless flatshade_first: vertex
    * 2 of a triangle, 1 of a line, 0 of a point. */
   unsigned verts = u_reduced_prim(mode) == PIPE_PRIM_POINTS  ? 1
                    : u_reduced_prim(mode) == PIPE_PRIM_LINES ? 2 : 3;
   enum agx_shade_model last = verts == 1 ? AGX_SHADE_MODEL_FLAT_VERTEX_0
                               : verts == 2 ? AGX_SHADE_MODEL_FLAT_VERTEX_1
                                            : AGX_SHADE_MODEL_FLAT_VERTEX_2;
   const struct tc_fs_info *fi = &fs->bin.fs;
   uint8_t buf[AGX_CF_BINDING_HEADER_LENGTH + TC_MAX_FS_INPUTS * AGX_CF_BINDING_LENGTH];
   unsigned slots = 0;
   bool first = ctx->state->rast->flatshade_first;
   for (unsigned i = 0; i < fi->nr_inputs; i++) {
      const struct tc_fs_input *in = &fi->inputs[i];
      unsigned base_slot = 0, comps = CLAMP(in->components, 1, 4);
      enum agx_cf_source src = AGX_CF_SOURCE_VARYING;
      enum agx_shade_model sm;
      switch (in->interp) {
      case TC_INTERP_PERSPECTIVE: sm = AGX_SHADE_MODEL_PERSPECTIVE; break;
      case TC_INTERP_LINEAR: sm = AGX_SHADE_MODEL_LINEAR; break;
      default:
         sm = first ? AGX_SHADE_MODEL_FLAT_VERTEX_0 : last;
         break;
      }
      switch (in->source) {
      case TC_CF_VARYING: {
         /* The fragment side's slots (the hardware's linked layout): 0 is
          * the vertex's 1/W, then the user varyings in vertex output
          * order from slot 1 (the driver never asks for the Frag Coord Z
          * slot: Z comes from the Fragcoord Z source). */
         unsigned slot = in->location < VARYING_SLOT_MAX ? vs->bin.vs.varying_slot[in->location]
                                                         : 0xff;
         /* Not written by the vertex shader: undefined in GL; read 1/W
          * rather than outside the vertex. */
         base_slot = slot == 0xff || slot < 4 ? 0 : 1 + (slot - 4);
         break;
      }
      case TC_CF_POSITION_W:
         /* 1/W, interpolated linearly (it is linear in screen space) */
         base_slot = 0;
         comps = 1;
         sm = AGX_SHADE_MODEL_LINEAR;
         break;
      case TC_CF_FRAGCOORD_Z:
         src = AGX_CF_SOURCE_FRAGCOORD_Z;
         comps = 1;
         sm = AGX_SHADE_MODEL_LINEAR;
         break;
      case TC_CF_POINT_COORD:
         src = AGX_CF_SOURCE_POINT_COORD;
         comps = MIN2(comps, 2);
         sm = AGX_SHADE_MODEL_LINEAR;
         break;
      }
      agx_pack(buf + AGX_CF_BINDING_HEADER_LENGTH + i * AGX_CF_BINDING_LENGTH, CF_BINDING, b) {
         b.components = comps;
         b.shade_model = sm;
         b.source = src;
         b.base_slot = base_slot;
         b.base_coefficient_register = in->cf_base;
      }
      slots += comps;
   }
   agx_pack(buf, CF_BINDING_HEADER, h) {
      h.slots = MIN2(slots, 255);
      h.coefficient_registers = MIN2(fi->nr_cf_regs, 255);
   }
   uint64_t va = tessera_pool_upload(&batch->low_pool, buf,
                                     AGX_CF_BINDING_HEADER_LENGTH +
                                        fi->nr_inputs * AGX_CF_BINDING_LENGTH, 4);
   return va ? tessera_usc_offset(ctx->screen, va) : 0;
}

/* Appends a scissor entry; returns its index. The viewport's rectangle is
 * part of it: the hardware clips primitives against a guard band, not the
 * viewport, so a triangle reaching past a viewport smaller than the
 * framebuffer would be drawn outside it (piglit triangle-guardband-viewport,
 * issue 13; Mesa's asahi intersects the same way). */
static unsigned
push_scissor(struct tessera_context *ctx, struct tessera_batch *batch)
{
   struct tessera_context_state *s = ctx->state;
   unsigned minx = 0, miny = 0, maxx = batch->width, maxy = batch->height;
   const struct pipe_viewport_state *vp = &s->viewport;
   float vx0 = vp->translate[0] - fabsf(vp->scale[0]), vx1 = vp->translate[0] + fabsf(vp->scale[0]);
   float vy0 = vp->translate[1] - fabsf(vp->scale[1]), vy1 = vp->translate[1] + fabsf(vp->scale[1]);
   minx = (unsigned)CLAMP(floorf(vx0), 0.0f, (float)maxx);
   miny = (unsigned)CLAMP(floorf(vy0), 0.0f, (float)maxy);
   maxx = (unsigned)CLAMP(ceilf(vx1), (float)minx, (float)maxx);
   maxy = (unsigned)CLAMP(ceilf(vy1), (float)miny, (float)maxy);
   if (s->rast->scissor) {
      minx = MIN2(MAX2(s->scissor.minx, minx), maxx);
      miny = MIN2(MAX2(s->scissor.miny, miny), maxy);
      maxx = MIN2(s->scissor.maxx, maxx);
      maxy = MIN2(s->scissor.maxy, maxy);
   }
   unsigned idx = batch->scissor.size / AGX_SCISSOR_LENGTH;
   uint8_t *e = util_dynarray_grow_bytes(&batch->scissor, 1, AGX_SCISSOR_LENGTH);
   agx_pack(e, SCISSOR, sc) {
      sc.min_x = minx;
      sc.min_y = miny;
      sc.max_x = MAX2(maxx, minx);
      sc.max_y = MAX2(maxy, miny);
      sc.min_z = 0.0f;
      sc.max_z = 1.0f;
   }
   return idx;
}

static unsigned
push_depth_bias(struct tessera_context *ctx, struct tessera_batch *batch)
{
   const struct pipe_rasterizer_state *r = ctx->state->rast;
   unsigned idx = batch->depth_bias.size / AGX_DEPTH_BIAS_LENGTH;
   uint8_t *e = util_dynarray_grow_bytes(&batch->depth_bias, 1, AGX_DEPTH_BIAS_LENGTH);
   /* DBIAS_IS_INT (tessera_batch.c): units count steps of the depth
    * format, 2^-24 for 32F. GL's depth formats other than Z16 are 32F
    * here, where depths just below 1 are 2^-23 apart: one unit must be at
    * least that (GL's minimum resolvable difference; piglit
    * gl-1.4-polygon-offset), so it is two steps, as Mesa's asahi driver
    * programs it. Z16's step is its own resolution. */
   bool z16 = batch->fb.zsbuf && batch->fb.zsbuf->format == PIPE_FORMAT_Z16_UNORM;
   agx_pack(e, DEPTH_BIAS, db) {
      db.bias = z16 ? r->offset_units : r->offset_units * 2.0f;
      db.slope_scale = r->offset_scale;
      db.clamp = r->offset_clamp;
   }
   return idx;
}

static void
pack_face(struct tessera_context *ctx, struct tessera_batch *batch, unsigned face,
          uint8_t *out)
{
   struct tessera_context_state *s = ctx->state;
   const struct pipe_depth_stencil_alpha_state *zsa = s->zsa;
   const struct pipe_rasterizer_state *r = s->rast;
   bool has_z = batch->fb.zsbuf &&
                util_format_has_depth(util_format_description(batch->fb.zsbuf->format));
   unsigned fill = face ? r->fill_back : r->fill_front;
   agx_pack(out, FRAGMENT_FACE, f) {
      f.stencil_reference = s->stencil_ref.ref_value[face && zsa->stencil[1].enabled ? 1 : 0];
      f.line_width = (unsigned)CLAMP(r->line_width * 16.0f - 1.0f, 0.0f, 255.0f);
      f.polygon_mode = fill == PIPE_POLYGON_MODE_LINE ? AGX_POLYGON_MODE_LINE
                       : fill == PIPE_POLYGON_MODE_POINT ? AGX_POLYGON_MODE_POINT
                                                         : AGX_POLYGON_MODE_FILL;
      f.disable_depth_write = !(has_z && zsa->depth_enabled && zsa->depth_writemask);
      f.depth_function = (has_z && zsa->depth_enabled) ? translate_func(zsa->depth_func)
                                                       : AGX_ZS_FUNC_ALWAYS;
   }
}

static void
pack_stencil(struct tessera_context *ctx, unsigned face, bool enabled, uint8_t *out)
{
   const struct pipe_stencil_state *st = &ctx->state->zsa->stencil[face];
   agx_pack(out, FRAGMENT_STENCIL, f) {
      if (enabled && st->enabled) {
         f.write_mask = st->writemask;
         f.read_mask = st->valuemask;
         f.depth_pass = translate_stencil_op(st->zpass_op);
         f.depth_fail = translate_stencil_op(st->zfail_op);
         f.stencil_fail = translate_stencil_op(st->fail_op);
         f.compare = translate_func(st->func);
      } else {
         f.write_mask = 0;
         f.read_mask = 0xff;
         f.compare = AGX_ZS_FUNC_ALWAYS;
      }
   }
}

static bool
draw_one(struct tessera_context *ctx, const struct pipe_draw_info *info,
         const struct pipe_draw_start_count_bias *draw)
{
   struct tessera_context_state *s = ctx->state;
   bool prim_ok;
   enum agx_primitive prim = translate_prim(info->mode, &prim_ok);
   if (!prim_ok)
      return false;

   struct tessera_batch *batch = tessera_get_batch(ctx);
   if (!batch)
      return true;

   /* Sampling what this pass renders: end the pass first. */
   for (unsigned st = 0; st < PIPE_SHADER_FRAGMENT + 1; st++) {
      for (unsigned i = 0; i < s->nr_views[st]; i++) {
         struct pipe_sampler_view *v = s->views[st][i];
         if (v && tessera_resource(v->texture)->writer == batch) {
            tessera_batch_flush(batch, "sampling a render target of the pass");
            batch = tessera_get_batch(ctx);
            if (!batch)
               return true;
            break;
         }
      }
   }

   /* Keys are hashed and compared as raw bytes of the whole union. */
   union tc_key vkey, fkey;
   memset(&vkey, 0, sizeof(vkey));
   if (!vs_key(ctx, &vkey.vs)) {
      fprintf(stderr, "tessera: vertex buffer index out of range\n");
      return true;
   }
   memset(&fkey, 0, sizeof(fkey));
   fs_key(ctx, batch, info->mode, &fkey.fs);
   struct tessera_variant *fs = tessera_get_variant(ctx, s->fs, &fkey);
   if (!fs)
      return true;
   /* The vertex shader groups its varyings by how the fragment shader
    * interpolates them (the clipper's Varying Counts). */
   for (unsigned i = 0; i < fs->bin.fs.nr_inputs; i++) {
      const struct tc_fs_input *in = &fs->bin.fs.inputs[i];
      if (in->source != TC_CF_VARYING || in->location >= 64)
         continue;
      if (in->interp == TC_INTERP_FLAT)
         vkey.vs.flat_mask |= 1ull << in->location;
      else if (in->interp == TC_INTERP_LINEAR)
         vkey.vs.linear_mask |= 1ull << in->location;
   }
   vkey.vs.linear_mask &= ~vkey.vs.flat_mask;
   struct tessera_variant *vs = tessera_get_variant(ctx, s->vs, &vkey);
   if (!vs)
      return true;

   /* ---- vertex pipeline */
   uint8_t words[512];
   unsigned n = 0;
   struct uniforms *u = calloc(1, sizeof(*u));
   if (!u)
      return true;
   const uint32_t *cpu;
   unsigned nwords;
   uint64_t cb = cbuf0(ctx, batch, PIPE_SHADER_VERTEX, &cpu, &nwords);
   u->w[TC_U_CBUF0_ADDR] = (uint32_t)cb;
   u->w[TC_U_CBUF0_ADDR + 1] = (uint32_t)(cb >> 32);
   u->n = 2;
   u_foreach_bit(b, s->vb_mask) {
      if (b >= TC_MAX_VBUFS)
         break;
      struct pipe_vertex_buffer *vb = &s->vb[b];
      uint64_t va = 0;
      if (vb->is_user_buffer) {
         fprintf(stderr, "tessera: user vertex buffers are not supported\n");
      } else if (vb->buffer.resource) {
         va = tessera_resource(vb->buffer.resource)->bo->va + vb->buffer_offset;
         tessera_batch_reads(batch, vb->buffer.resource);
      }
      u->w[TC_U_VBUF_BASE + 2 * b] = (uint32_t)va;
      u->w[TC_U_VBUF_BASE + 2 * b + 1] = (uint32_t)(va >> 32);
      u->n = MAX2(u->n, TC_U_VBUF_BASE + 2 * b + 2);
   }
   for (unsigned i = 0; i < MIN2(s->ve->count, TC_MAX_ATTRIBS); i++) {
      /* Largest index whose element lies inside the buffer (tc_isel_io.c
       * clamps to it); no bound when the offset is outside the resource
       * (u_vbuf may offset a window backwards) or there is no stride. */
      const struct pipe_vertex_element *ve = &s->ve->ve[i];
      const struct pipe_vertex_buffer *vb = &s->vb[ve->vertex_buffer_index];
      uint32_t lim = UINT32_MAX;
      if (!vb->is_user_buffer && vb->buffer.resource && vb->stride &&
          vb->buffer_offset <= vb->buffer.resource->width0) {
         uint64_t avail = vb->buffer.resource->width0 - vb->buffer_offset;
         uint64_t need = (uint64_t)ve->src_offset + util_format_get_blocksize(ve->src_format);
         lim = avail >= need ? (uint32_t)((avail - need) / vb->stride) : 0;
      }
      u->w[TC_U_VATTR_LIMIT + i] = lim;
   }
   uniforms_push(u, &vs->bin, cpu, nwords);
   if (vkey.vs.ucp_enables) {
      /* After the (shortened) push range: TC_U_UCP in tc_compiler.h. */
      memcpy(&u->w[TC_U_UCP], s->clip.ucp, sizeof(s->clip.ucp));
      u->n = MAX2(u->n, TC_U_UCP + 4 * util_last_bit(vkey.vs.ucp_enables));
   }
   unsigned vs_uniforms = u->n;
   n += emit_uniform_words(batch, u, words + n);
   unsigned vs_ntex;
   enum agx_sampler_states vs_nsmp;
   n += emit_texture_words(ctx, batch, PIPE_SHADER_VERTEX, words + n, &vs_ntex, &vs_nsmp, -1);
   n += emit_tail_words(batch, vs, false, words + n);
   uint32_t vs_pipe = upload_pipeline(batch, words, n);

   /* ---- fragment pipeline */
   n = 0;
   memset(u, 0, sizeof(*u));
   cb = cbuf0(ctx, batch, PIPE_SHADER_FRAGMENT, &cpu, &nwords);
   u->w[TC_U_CBUF0_ADDR] = (uint32_t)cb;
   u->w[TC_U_CBUF0_ADDR + 1] = (uint32_t)(cb >> 32);
   memcpy(&u->w[TC_U_BLEND_CONST], s->blend_color.color, 16);
   u->n = TC_U_BLEND_CONST + 4;
   if (fs->key.fs.lod_bias_mask) {
      for (unsigned i = 0; i < MIN2(s->nr_samplers[PIPE_SHADER_FRAGMENT], 16); i++) {
         const struct tessera_sampler_state *smp = s->samplers[PIPE_SHADER_FRAGMENT][i];
         u->w[TC_U_LOD_BIAS + i] = fui(smp ? smp->base.lod_bias : 0.0f);
      }
      u->n = TC_U_LOD_BIAS + 16;
   }
   uniforms_push(u, &fs->bin, cpu, nwords);
   unsigned fs_uniforms = u->n;
   n += emit_uniform_words(batch, u, words + n);
   free(u);
   unsigned fs_ntex;
   enum agx_sampler_states fs_nsmp;
   n += emit_texture_words(ctx, batch, PIPE_SHADER_FRAGMENT, words + n, &fs_ntex, &fs_nsmp,
                           fs->key.fs.poly_stipple ? (int)s->fs->stipple_unit : -1);
   n += emit_tail_words(batch, fs, true, words + n);
   uint32_t fs_pipe = upload_pipeline(batch, words, n);
   uint32_t cf = cf_bindings(ctx, batch, vs, fs, info->mode);
   if (!vs_pipe || !fs_pipe || !cf) {
      fprintf(stderr, "tessera: out of memory recording a draw\n");
      return true;
   }

   /* ---- PPP record */
   const struct pipe_rasterizer_state *r = s->rast;
   const struct pipe_depth_stencil_alpha_state *zsa = s->zsa;
   const struct tc_fs_info *fi = &fs->bin.fs;
   bool has_s = batch->fb.zsbuf &&
                util_format_has_stencil(util_format_description(batch->fb.zsbuf->format));
   bool stencil = has_s && zsa->stencil[0].enabled;
   /* GL enables polygon offset per polygon mode (GL_POLYGON_OFFSET_FILL,
    * _LINE, _POINT) while the hardware has one enable: take the one of
    * the mode the front faces are drawn in, as Mesa's asahi driver does
    * (exact unless front and back modes differ with different enables).
    * Any enable set used to offset every draw, so an outline drawn with
    * GL_LINE while only GL_POLYGON_OFFSET_FILL was on moved with the
    * fill and lost the depth test (piglit polygon-mode-offset). Points
    * and lines are never offset. */
   bool bias = (u_reduced_prim(info->mode) == PIPE_PRIM_TRIANGLES || ctx->drawing_outline) &&
               util_get_offset(r, r->fill_front) &&
               (r->offset_units != 0.0f || r->offset_scale != 0.0f);
   struct tessera_query *oq = ctx->queries_active ? ctx->occlusion_query : NULL;
   uint8_t p[256];
   unsigned k = 0;
   agx_pack(p, PPP_HEADER, h) {
      h.occlusion_query = oq != NULL;
      h.fragment_control = true;
      h.front_face = true;
      h.front_stencil = true;
      h.back_face = true;
      h.back_stencil = true;
      h.depth_bias_scissor = true;
      h.viewport = true;
      h.viewport_count = 1;
      h.output_select = true;
      h.varying_counts_32 = true;
      h.cull = true;
      h.fragment_shader = true;
   }
   k = 4;
   agx_pack(p + k, FRAGMENT_CONTROL, fc) {
      fc.scissor_enable = true;
      fc.depth_bias_enable = bias;
      fc.stencil_test_enable = stencil;
      fc.two_sided_stencil = stencil && zsa->stencil[1].enabled;
      if (oq)
         fc.visibility_mode = tessera_query_counts_boolean(oq) ? AGX_VISIBILITY_MODE_BOOLEAN
                                                               : AGX_VISIBILITY_MODE_COUNTING;
      /* Opaque lets the ISP defer shading (hidden-surface removal); it is
       * a promise the shader neither discards, writes depth nor reads the
       * tilebuffer. */
      if (fi->reads_tilebuffer)
         fc.pass_type = AGX_PASS_TYPE_TRANSLUCENT;
      else if (fi->discards || fi->writes_depth || fi->writes_sample_mask)
         fc.pass_type = AGX_PASS_TYPE_PUNCH_THROUGH;
      else
         fc.pass_type = AGX_PASS_TYPE_OPAQUE;
   }
   k += 4;
   for (unsigned face = 0; face < 2; face++) {
      pack_face(ctx, batch, face, p + k);
      k += 4;
      pack_stencil(ctx, face && zsa->stencil[1].enabled ? 1 : 0, stencil, p + k);
      k += 4;
   }
   agx_pack(p + k, DEPTH_BIAS_SCISSOR, dbs) {
      dbs.scissor = push_scissor(ctx, batch);
      dbs.depth_bias = bias ? push_depth_bias(ctx, batch) : 0;
   }
   k += 4;
   memset(p + k, 0, 4);   /* Viewport Control */
   k += 4;
   const struct pipe_viewport_state *vp = &s->viewport;
   agx_pack(p + k, VIEWPORT, v) {
      v.translate_x = vp->translate[0];
      v.scale_x = vp->scale[0];
      v.translate_y = vp->translate[1];
      v.scale_y = vp->scale[1];
      /* The vertex shader hands over z in [0, w]: map [0, 1] to the
       * depth range. With clip_halfz the state is already in that form. */
      if (r->clip_halfz) {
         v.translate_z = vp->translate[2];
         v.scale_z = vp->scale[2];
      } else {
         v.translate_z = vp->translate[2] - vp->scale[2];
         v.scale_z = 2.0f * vp->scale[2];
      }
   }
   k += AGX_VIEWPORT_LENGTH;
   agx_pack(p + k, OUTPUT_SELECT, os) {
      os.varyings = vs->bin.vs.nr_slots > 4 + vs->bin.vs.writes_psiz +
                                          vs->bin.vs.nr_clip_distances;
      os.point_size = vs->bin.vs.writes_psiz;
      /* The last nr_clip_distances output slots: planes 0 .. n-1. */
      os.clip_distance_planes = BITFIELD_MASK(vs->bin.vs.nr_clip_distances);
   }
   k += 4;
   agx_pack(p + k, VARYING_COUNTS, vc) {
      vc.smooth = vs->bin.vs.nr_smooth;
      vc.flat = vs->bin.vs.nr_flat;
      vc.linear = vs->bin.vs.nr_linear;
   }
   k += 4;
   agx_pack(p + k, CULL, c) {
      c.cull_front = r->cull_face & PIPE_FACE_FRONT;
      c.cull_back = r->cull_face & PIPE_FACE_BACK;
      c.flat_shading_vertex = r->flatshade_first ? AGX_PROVOKING_VERTEX_0
                                                 : AGX_PROVOKING_VERTEX_2;
      c.depth_clip = r->depth_clip_near;
      c.depth_clamp = !r->depth_clip_near;
      c.front_face_ccw = r->front_ccw;
      c.rasterizer_discard = r->rasterizer_discard;
   }
   k += 4;
   agx_pack(p + k, FRAGMENT_SHADER_WORD_0, w0) {
      w0.uniform_register_count = MIN2(fs_uniforms * 2, 512);
      w0.texture_state_register_count = fs_ntex;
      w0.sampler_state_register_count = fs_nsmp;
      w0.cf_binding_count = fi->nr_inputs;
   }
   agx_pack(p + k + 4, FRAGMENT_SHADER_WORD_1, w1) { w1.pipeline = fs_pipe; }
   agx_pack(p + k + 8, FRAGMENT_SHADER_WORD_2, w2) { w2.cf_bindings = cf; }
   memset(p + k + 12, 0, 4);
   k += 16;
   if (oq) {
      agx_pack(p + k, FRAGMENT_OCCLUSION_QUERY, q) {
         q.index = tessera_query_batch_index(batch, oq);
      }
      k += AGX_FRAGMENT_OCCLUSION_QUERY_LENGTH;
   }
   uint64_t ppp = tessera_pool_upload(&batch->pool, p, k, 64);
   if (!ppp)
      return true;

   /* ---- index data */
   unsigned isz = info->index_size;
   uint64_t ibuf = 0;
   uint32_t ibuf_size = 0;
   if (isz) {
      if (info->has_user_indices) {
         ibuf_size = align(draw->count * isz, 4);
         uint64_t va;
         uint8_t *m = tessera_pool_alloc(&batch->pool, ibuf_size, 64, &va);
         if (!m)
            return true;
         memset(m + draw->count * isz, 0, ibuf_size - draw->count * isz);
         memcpy(m, (const uint8_t *)info->index.user + (size_t)draw->start * isz,
                (size_t)draw->count * isz);
         ibuf = va;
      } else {
         struct tessera_resource *ir = tessera_resource(info->index.resource);
         tessera_batch_reads(batch, info->index.resource);
         ibuf = ir->bo->va + (uint64_t)draw->start * isz;
         uint64_t avail = info->index.resource->width0 > draw->start * isz
                             ? info->index.resource->width0 - (uint64_t)draw->start * isz
                             : 0;
         /* The hardware bound is in whole words: round the end up (the BO
          * is page aligned, so the padding is still inside it) or an odd
          * number of u16 indices filling the buffer would be refused. */
         ibuf_size = (uint32_t)MIN2(align64(avail, 4), UINT32_MAX & ~3u);
         if ((uint64_t)draw->count * isz > avail) {
            fprintf(stderr, "tessera: %u indices overrun the index buffer\n", draw->count);
            return true;
         }
         if (ibuf & 3) {
            /* Unaligned index data: copy it. */
            uint8_t *src = tessera_bo_map(ir->bo);
            uint64_t va;
            uint32_t sz = align(draw->count * isz, 4);
            uint8_t *m = src ? tessera_pool_alloc(&batch->pool, sz, 64, &va) : NULL;
            if (!m)
               return true;
            memcpy(m, src + (ibuf - ir->bo->va), (size_t)draw->count * isz);
            ibuf = va;
            ibuf_size = sz;
         }
      }
   }

   /* ---- VDM: state, PPP, index list */
   uint8_t *v = tessera_batch_vdm_reserve(batch, 64);
   if (!v)
      return true;
   memset(v, 0, 64);
   unsigned vn = 0;
   agx_pack(v, VDM_STATE, st) {
      st.restart_index_present = true;
      st.vertex_shader_word_0_present = true;
      st.vertex_shader_word_1_present = true;
      st.vertex_outputs_present = true;
   }
   uint32_t restart = info->primitive_restart ? info->restart_index : 0xffffffff;
   memcpy(v + 4, &restart, 4);
   agx_pack(v + 8, VDM_STATE_VERTEX_SHADER_WORD_0, w0) {
      w0.uniform_register_count = MIN2(vs_uniforms * 2, 512);
      w0.texture_state_register_count = vs_ntex;
      w0.sampler_state_register_count = vs_nsmp;
   }
   agx_pack(v + 12, VDM_STATE_VERTEX_SHADER_WORD_1, w1) { w1.pipeline = vs_pipe; }
   agx_pack(v + 16, VDM_STATE_VERTEX_OUTPUTS, o) {
      /* Both counts hold the UVS size, as Mesa's asahi driver sets them
       * (the compiler keeps it below 256). */
      o.output_count_1 = MIN2(vs->bin.vs.nr_slots, 255);
      o.output_count_2 = o.output_count_1;
   }
   vn = 24;
   agx_pack(v + vn, PPP_STATE, ps) {
      ps.pointer_hi = (uint32_t)(ppp >> 32);
      ps.pointer_lo = (uint32_t)ppp;
      ps.size_words = k / 4;
   }
   vn += AGX_PPP_STATE_LENGTH;
   agx_pack(v + vn, INDEX_LIST, il) {
      il.primitive = prim;
      il.index_count_present = true;
      il.instance_count_present = true;
      il.start_present = true;
      if (isz) {
         il.index_buffer_hi = (uint32_t)(ibuf >> 32);
         il.index_buffer_present = true;
         il.index_buffer_size_present = true;
         il.index_size = isz == 1 ? AGX_INDEX_SIZE_U8
                         : isz == 2 ? AGX_INDEX_SIZE_U16 : AGX_INDEX_SIZE_U32;
         il.restart_enable = info->primitive_restart;
      }
   }
   vn += 4;
   if (isz) {
      uint32_t lo = (uint32_t)ibuf;
      memcpy(v + vn, &lo, 4);
      vn += 4;
   }
   uint32_t cnt = draw->count, inst = MAX2(info->instance_count, 1);
   uint32_t start = isz ? (uint32_t)draw->index_bias : draw->start;
   memcpy(v + vn, &cnt, 4);
   memcpy(v + vn + 4, &inst, 4);
   memcpy(v + vn + 8, &start, 4);
   vn += 12;
   if (isz) {
      agx_pack(v + vn, INDEX_LIST_BUFFER_SIZE, bs) { bs.size = ibuf_size; }
      vn += 4;
   }
   tessera_batch_vdm_advance(batch, vn);
   batch->draws++;
   batch->vertices += (uint64_t)cnt * inst;
   return true;
}

/* ------------------------------------------------ polygon outlines */

/* What draw_outline reads: the draw's elements and the edge flags. */
struct outline_src {
   const uint8_t *idx;        /* index data of the draw (NULL: not indexed) */
   unsigned isz;
   unsigned start;            /* first vertex of a non-indexed draw */
   int bias;                  /* base vertex of an indexed one */
   const uint8_t *ef;         /* edge flag attribute of vertex 0, or NULL */
   unsigned ef_stride;
   enum pipe_format ef_fmt;
   uint64_t ef_vertices;      /* vertices the attribute's buffer holds */
};

/* Element i of the draw: its index (unbiased) or vertex number. */
static uint32_t
outline_elem(const struct outline_src *o, unsigned i)
{
   if (!o->idx)
      return o->start + i;
   switch (o->isz) {
   case 1: return o->idx[i];
   case 2: { uint16_t v; memcpy(&v, o->idx + 2 * i, 2); return v; }
   default: { uint32_t v; memcpy(&v, o->idx + 4 * i, 4); return v; }
   }
}

/* The edge flag of the vertex an element names (true without flags, and
 * for a vertex outside the buffer, as an out-of-range fetch is not
 * defined). */
static bool
outline_flag(const struct outline_src *o, uint32_t elem)
{
   if (!o->ef)
      return true;
   uint64_t vtx = o->idx ? (uint64_t)((int64_t)elem + o->bias) : elem;
   if (vtx >= o->ef_vertices)
      return true;
   union { float f[4]; uint32_t u[4]; } px;
   util_format_unpack_rgba(o->ef_fmt, &px, o->ef + vtx * o->ef_stride, 1);
   return util_format_is_pure_integer(o->ef_fmt) ? px.u[0] != 0 : px.f[0] != 0.0f;
}

/*
 * Polygons whose outline the hardware cannot draw by itself. Its polygon
 * mode (Fragment Face) outlines or dots every triangle it rasterises, but
 * quads, quad strips and GL polygons reach it as triangles
 * (u_primconvert), whose inner edges GL does not draw, and it has no
 * edge flags (Mesa's asahi driver emulates them with a geometry shader,
 * which this driver does not have). So with the vertex shader passing
 * edge flags (st/mesa's passthrough, VARYING_SLOT_EDGE from the edge
 * flag attribute), or for those primitives, the outline is made here:
 * the boundary edges of every polygon, each starting at a vertex whose
 * edge flag is set (GL 2.1 2.6.2; quad strips have none), drawn as LINES,
 * or those vertices as POINTS, through the same vertex shader (an index
 * list over the draw's vertices). Lines and points have no facing, so
 * this is only done when facing does not matter (front and back modes
 * equal, no culling); otherwise the triangles go to the hardware (inner
 * edges drawn, edge flags ignored; TESSERA_DEBUG=perf says so). Returns
 * false when the draw is not one of these.
 */
static bool
draw_outline(struct tessera_context *ctx, const struct pipe_draw_info *info,
             const struct pipe_draw_start_count_bias *draw)
{
   struct tessera_context_state *s = ctx->state;
   const struct pipe_rasterizer_state *r = s->rast;
   if (r->fill_front == PIPE_POLYGON_MODE_FILL && r->fill_back == PIPE_POLYGON_MODE_FILL)
      return false;
   enum pipe_prim_type mode = info->mode;
   bool polys = mode == PIPE_PRIM_QUADS || mode == PIPE_PRIM_QUAD_STRIP ||
                mode == PIPE_PRIM_POLYGON;
   /* GL applies edge flags to separate triangles, quads and polygons. */
   const nir_variable *efv = NULL;
   if ((s->vs->nir->info.outputs_written & VARYING_BIT_EDGE) &&
       (mode == PIPE_PRIM_TRIANGLES || mode == PIPE_PRIM_QUADS || mode == PIPE_PRIM_POLYGON))
      efv = nir_find_variable_with_location(s->vs->nir, nir_var_shader_in,
                                            VERT_ATTRIB_EDGEFLAG);
   if (!polys && !efv)
      return false;
   if (r->fill_front != r->fill_back || r->cull_face != PIPE_FACE_NONE) {
      tessera_perf(ctx, "polygon mode with facing (different front/back modes or "
                   "culling): %s drawn as triangles, %s\n",
                   polys ? "inner edges" : "edges", efv ? "edge flags ignored" : "");
      return false;
   }

   struct outline_src o = { .isz = info->index_size, .start = draw->start,
                            .bias = draw->index_bias };
   if (info->index_size) {
      if (info->has_user_indices) {
         o.idx = (const uint8_t *)info->index.user + (size_t)draw->start * info->index_size;
      } else {
         struct tessera_resource *ir = tessera_resource(info->index.resource);
         const uint8_t *m = tessera_bo_map(ir->bo);
         if (!m || (uint64_t)(draw->start + draw->count) * info->index_size >
                      info->index.resource->width0) {
            fprintf(stderr, "tessera: polygon outline: index buffer unreadable or overrun\n");
            return true;
         }
         o.idx = m + (size_t)draw->start * info->index_size;
      }
   }
   if (efv && efv->data.driver_location < s->ve->count) {
      const struct pipe_vertex_element *ve = &s->ve->ve[efv->data.driver_location];
      const struct pipe_vertex_buffer *vb = &s->vb[ve->vertex_buffer_index];
      if (!vb->is_user_buffer && vb->buffer.resource) {
         const uint8_t *m = tessera_bo_map(tessera_resource(vb->buffer.resource)->bo);
         uint64_t off = (uint64_t)vb->buffer_offset + ve->src_offset;
         uint64_t end = vb->buffer.resource->width0, bs = util_format_get_blocksize(ve->src_format);
         if (m && off + bs <= end) {
            o.ef = m + off;
            o.ef_fmt = ve->src_format;
            o.ef_stride = vb->stride;
            /* a zero stride (a constant flag) repeats vertex 0 */
            o.ef_vertices = vb->stride ? (end - off - bs) / vb->stride + 1 : UINT64_MAX;
         }
      }
   }

   bool lines = r->fill_front == PIPE_POLYGON_MODE_LINE;
   /* Two indices per edge: an element starts at most one edge, except in
    * a quad strip, whose 2 elements a quad bring 4 edges. */
   size_t cap = (size_t)draw->count * (mode == PIPE_PRIM_QUAD_STRIP ? 4 : 2) + 8;
   uint32_t *out = malloc(cap * sizeof(uint32_t));
   if (!out) {
      fprintf(stderr, "tessera: out of memory for a polygon outline\n");
      return true;
   }
   unsigned n = 0;
   unsigned run = 0;
   while (run < draw->count) {
      /* one run between primitive restarts */
      unsigned end = run;
      while (end < draw->count &&
             !(o.idx && info->primitive_restart && outline_elem(&o, end) == info->restart_index))
         end++;
      unsigned len = end - run;
      unsigned step = mode == PIPE_PRIM_TRIANGLES ? 3 : mode == PIPE_PRIM_QUADS ? 4
                      : mode == PIPE_PRIM_QUAD_STRIP ? 2 : len;
      unsigned size = mode == PIPE_PRIM_TRIANGLES ? 3 : mode == PIPE_PRIM_POLYGON ? len : 4;
      for (unsigned p = 0; step && size >= 3 && p + size <= len; p += step) {
         unsigned pv[4];
         const unsigned *pe = NULL;
         if (mode == PIPE_PRIM_QUAD_STRIP) {
            /* quad i: vertices 2i, 2i+1, 2i+3, 2i+2 around its boundary */
            pv[0] = p; pv[1] = p + 1; pv[2] = p + 3; pv[3] = p + 2;
            pe = pv;
         }
         for (unsigned k = 0; k < size; k++) {
            uint32_t a = outline_elem(&o, run + (pe ? pe[k] : p + k));
            bool flag = mode == PIPE_PRIM_QUAD_STRIP || outline_flag(&o, a);
            if (!flag)
               continue;
            out[n++] = a;
            if (lines)
               out[n++] = outline_elem(&o, run + (pe ? pe[(k + 1) % size] : p + (k + 1) % size));
         }
      }
      run = end + 1;
   }
   if (n) {
      struct pipe_draw_info ni = *info;
      ni.mode = lines ? PIPE_PRIM_LINES : PIPE_PRIM_POINTS;
      ni.index_size = 4;
      ni.has_user_indices = true;
      ni.index.user = out;
      ni.primitive_restart = false;
      ni.index_bounds_valid = false;
      struct pipe_draw_start_count_bias nd = {
         .start = 0, .count = n, .index_bias = info->index_size ? draw->index_bias : 0,
      };
      ctx->drawing_outline = true;
      draw_one(ctx, &ni, &nd);
      ctx->drawing_outline = false;
   }
   free(out);
   return true;
}

static void
tessera_draw_vbo(struct pipe_context *pctx, const struct pipe_draw_info *info,
                 unsigned drawid_offset, const struct pipe_draw_indirect_info *indirect,
                 const struct pipe_draw_start_count_bias *draws, unsigned num_draws)
{
   struct tessera_context *ctx = tessera_context(pctx);
   struct tessera_context_state *s = ctx->state;

   if (indirect && indirect->buffer) {
      tessera_perf(ctx, "indirect draw read back on the CPU\n");
      util_draw_indirect(pctx, info, indirect);
      return;
   }
   if (num_draws > 1) {
      util_draw_multi(pctx, info, drawid_offset, indirect, draws, num_draws);
      return;
   }
   if (!num_draws || !draws[0].count || !info->instance_count)
      return;
   if (!s->vs || !s->fs || !s->rast || !s->blend || !s->zsa || !s->ve)
      return;
   if (s->rast->rasterizer_discard)
      return;   /* no stream output, no queries: nothing happens */
   if (info->start_instance)
      tessera_perf(ctx, "base instance %u ignored\n", info->start_instance);

   if (draw_outline(ctx, info, &draws[0]))
      return;
   if (!draw_one(ctx, info, &draws[0])) {
      /* Quads, polygons, adjacency: turn them into triangles/lines. */
      if (!ctx->primconvert) {
         struct primconvert_config cfg = {
            .primtypes_mask = BITFIELD_BIT(PIPE_PRIM_POINTS) | BITFIELD_BIT(PIPE_PRIM_LINES) |
                              BITFIELD_BIT(PIPE_PRIM_LINE_STRIP) |
                              BITFIELD_BIT(PIPE_PRIM_LINE_LOOP) |
                              BITFIELD_BIT(PIPE_PRIM_TRIANGLES) |
                              BITFIELD_BIT(PIPE_PRIM_TRIANGLE_STRIP) |
                              BITFIELD_BIT(PIPE_PRIM_TRIANGLE_FAN),
            .restart_primtypes_mask = 0xffff,
            .fixed_prim_restart = false,
         };
         ctx->primconvert = util_primconvert_create_config(pctx, &cfg);
         if (!ctx->primconvert)
            return;
      }
      util_primconvert_save_rasterizer_state(ctx->primconvert, s->rast);
      util_primconvert_draw_vbo(ctx->primconvert, info, drawid_offset, indirect, draws,
                                num_draws);
   }
}

/* Draws recorded in one pass before a clear after draws ends it anyway:
 * bounds the memory of a pass that a program never flushes (a benchmark
 * drawing to a pbuffer, which eglSwapBuffers does not flush). */
#define TESSERA_CLEAR_IN_PASS_MAX_DRAWS 4096
/* Vertices recorded in the pass above which a clear after draws ends it:
 * a pass that holds several frames of heavy geometry fills the tiler's
 * buffer and pays a partial render (a store and a load of every tile)
 * per fill, more than the pass it saves; glmark2's build scene (21,516
 * vertices a frame) took a partial render every 2.2 frames and 25% more
 * CPU in the model, es2gears (1,914) merges 9 frames a pass. */
#define TESSERA_CLEAR_IN_PASS_MAX_VERTICES 16384

/*
 * A full clear after draws, drawn into the current pass as a rectangle
 * covering the framebuffer (u_blitter: depth test ALWAYS, stencil
 * REPLACE, the colour from a constant), as Mesa's asahi driver does (its
 * slow clear), instead of ending the pass. Ending it made every frame of
 * a program that clears at the start of each frame and never flushes
 * (eglretrace -b on a pbuffer) a pass of its own: a full tile store of
 * colour, depth and stencil per frame, and a submission per frame that
 * the batch slots throttled on (issue 17). In the pass, the rectangle is
 * opaque geometry covering everything: the ISP's hidden-surface removal
 * drops the fragments it hides before they are shaded.
 *
 * Only where the rectangle writes exactly what the background program and
 * the ZLS clear values would: one layer, one sample, one colour buffer,
 * cleared, of a float or normalized format without sRGB, no Z16 depth
 * (its clear value is rounded by the ZLS unit, the rectangle's by the
 * ISP), and no occlusion query counting (a clear is not counted).
 * Returns false when the caller must end the pass instead.
 */
static bool
clear_in_pass(struct tessera_context *ctx, struct tessera_batch *batch, unsigned buffers,
              const union pipe_color_union *color, double depth, unsigned stencil)
{
   struct tessera_context_state *s = ctx->state;
   const struct pipe_framebuffer_state *fb = &s->fb;
   if (batch->draws >= TESSERA_CLEAR_IN_PASS_MAX_DRAWS ||
       batch->vertices >= TESSERA_CLEAR_IN_PASS_MAX_VERTICES || ctx->occlusion_query ||
       !s->vs || !s->fs || !s->rast || !s->blend || !s->zsa || !s->ve ||
       fb->samples > 1 || fb->layers > 1 || !fb->width || !fb->height)
      return false;
   /* The rectangle must write colour: as opaque geometry it takes over
    * the samples of the deferred fragments under it (hidden-surface
    * removal), so a depth- or stencil-only rectangle would drop their
    * colour (piglit depthrange-clear). */
   if (fb->nr_cbufs != 1 || !fb->cbufs[0] || !(buffers & PIPE_CLEAR_COLOR0))
      return false;
   union pipe_color_union c = *color;
   {
      struct pipe_surface *cs = fb->cbufs[0];
      enum pipe_format f = cs->format;
      if (util_format_is_pure_integer(f) || util_format_is_srgb(f) ||
          cs->texture->nr_samples > 1 || cs->u.tex.first_layer != cs->u.tex.last_layer)
         return false;
      /* Formats without alpha read back as 1 (as tessera_clear's). */
      if (!util_format_has_alpha(f))
         c.f[3] = 1.0f;
   }
   if (fb->zsbuf && (buffers & PIPE_CLEAR_DEPTHSTENCIL)) {
      struct pipe_surface *zs = fb->zsbuf;
      if (zs->format == PIPE_FORMAT_Z16_UNORM || zs->texture->nr_samples > 1 ||
          zs->u.tex.first_layer != zs->u.tex.last_layer)
         return false;
   }
   struct pipe_context *pctx = &ctx->base;
   if (!ctx->blitter) {
      ctx->blitter = util_blitter_create(pctx);
      if (!ctx->blitter)
         return false;
   }
   struct blitter_context *b = ctx->blitter;
   util_blitter_save_fragment_constant_buffer_slot(b, s->cb + PIPE_SHADER_FRAGMENT);
   util_blitter_save_vertex_buffer_slot(b, s->vb);
   util_blitter_save_vertex_elements(b, s->ve);
   util_blitter_save_vertex_shader(b, s->vs);
   util_blitter_save_rasterizer(b, s->rast);
   util_blitter_save_viewport(b, &s->viewport);
   util_blitter_save_fragment_shader(b, s->fs);
   util_blitter_save_blend(b, s->blend);
   util_blitter_save_depth_stencil_alpha(b, s->zsa);
   util_blitter_save_stencil_ref(b, &s->stencil_ref);
   util_blitter_save_sample_mask(b, s->sample_mask, 0);
   util_blitter_clear(b, fb->width, fb->height, 1, buffers, &c, CLAMP(depth, 0.0, 1.0),
                      stencil & 0xff, false);
   ctx->clears_in_pass++;
   tessera_perf(ctx, "clear after %u draws drawn into the pass\n", batch->draws);
   return true;
}

static void
tessera_clear(struct pipe_context *pctx, unsigned buffers,
              const struct pipe_scissor_state *scissor, const union pipe_color_union *color,
              double depth, unsigned stencil)
{
   struct tessera_context *ctx = tessera_context(pctx);
   const struct pipe_framebuffer_state *fb = &ctx->state->fb;

   if (scissor && (scissor->minx > 0 || scissor->miny > 0 || scissor->maxx < fb->width ||
                   scissor->maxy < fb->height)) {
      /* Partial clears (caps do not ask for them): per surface. */
      tessera_perf(ctx, "scissored clear through clear_render_target\n");
      unsigned w = scissor->maxx - scissor->minx, h = scissor->maxy - scissor->miny;
      for (unsigned i = 0; i < fb->nr_cbufs; i++)
         if ((buffers & (PIPE_CLEAR_COLOR0 << i)) && fb->cbufs[i])
            pctx->clear_render_target(pctx, fb->cbufs[i], color, scissor->minx,
                                      scissor->miny, w, h, false);
      if ((buffers & PIPE_CLEAR_DEPTHSTENCIL) && fb->zsbuf)
         pctx->clear_depth_stencil(pctx, fb->zsbuf, buffers & PIPE_CLEAR_DEPTHSTENCIL,
                                   depth, stencil, scissor->minx, scissor->miny, w, h,
                                   false);
      return;
   }

   struct tessera_batch *batch = tessera_get_batch(ctx);
   if (!batch)
      return;
   if (batch->draws) {
      if (clear_in_pass(ctx, batch, buffers, color, depth, stencil))
         return;
      /* The background program runs before every draw of the pass: a
       * clear after draws starts a new pass that loads the rest. */
      tessera_batch_flush(batch, "clear after draws");
      batch = tessera_get_batch(ctx);
      if (!batch)
         return;
   }
   for (unsigned i = 0; i < fb->nr_cbufs; i++) {
      if (!(buffers & (PIPE_CLEAR_COLOR0 << i)) || !fb->cbufs[i])
         continue;
      union pipe_color_union c = *color;
      const struct util_format_description *d = util_format_description(fb->cbufs[i]->format);
      /* Formats without alpha read back as 1. */
      if (!util_format_has_alpha(fb->cbufs[i]->format) &&
          d->colorspace != UTIL_FORMAT_COLORSPACE_ZS) {
         if (util_format_is_pure_integer(fb->cbufs[i]->format))
            c.ui[3] = 1;
         else
            c.f[3] = 1.0f;
      }
      batch->clear_color[i] = c;
      batch->clear |= PIPE_CLEAR_COLOR0 << i;
   }
   if (fb->zsbuf) {
      if (buffers & PIPE_CLEAR_DEPTH) {
         batch->clear_depth = CLAMP(depth, 0.0, 1.0);
         batch->clear |= PIPE_CLEAR_DEPTH;
      }
      if (buffers & PIPE_CLEAR_STENCIL) {
         batch->clear_stencil = stencil & 0xff;
         batch->clear |= PIPE_CLEAR_STENCIL;
      }
   }
}

void
tessera_init_draw_functions(struct pipe_context *pctx)
{
   pctx->draw_vbo = tessera_draw_vbo;
   pctx->clear = tessera_clear;
}

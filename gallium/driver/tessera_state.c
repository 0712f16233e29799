/* SPDX-License-Identifier: MIT */
/*
 * Constant state objects and the set_* entry points. Hardware words are
 * packed at draw time from these (tessera_draw.c), except sampler and
 * texture descriptors, which are packed once at creation.
 */
#include <stdio.h>
#include <string.h>

#include "util/u_framebuffer.h"
#include "util/u_helpers.h"
#include "util/u_inlines.h"
#include "util/u_memory.h"
#include "util/u_math.h"
#include "util/u_pstipple.h"

#include "cmdstream/agx_pack.h"
#include "tessera_context.h"

/* ------------------------------------------------ blend / rast / zsa */

static void *
tessera_create_blend_state(struct pipe_context *pctx, const struct pipe_blend_state *cso)
{
   struct pipe_blend_state *so = MALLOC_STRUCT(pipe_blend_state);
   if (so)
      *so = *cso;
   return so;
}

static void
tessera_bind_blend_state(struct pipe_context *pctx, void *cso)
{
   tessera_context(pctx)->state->blend = cso;
}

static void *
tessera_create_rasterizer_state(struct pipe_context *pctx,
                                const struct pipe_rasterizer_state *cso)
{
   struct pipe_rasterizer_state *so = MALLOC_STRUCT(pipe_rasterizer_state);
   if (so)
      *so = *cso;
   return so;
}

static void
tessera_bind_rasterizer_state(struct pipe_context *pctx, void *cso)
{
   tessera_context(pctx)->state->rast = cso;
}

static void *
tessera_create_zsa_state(struct pipe_context *pctx,
                         const struct pipe_depth_stencil_alpha_state *cso)
{
   struct pipe_depth_stencil_alpha_state *so = MALLOC_STRUCT(pipe_depth_stencil_alpha_state);
   if (so)
      *so = *cso;
   return so;
}

static void
tessera_bind_zsa_state(struct pipe_context *pctx, void *cso)
{
   tessera_context(pctx)->state->zsa = cso;
}

static void
tessera_delete_state(struct pipe_context *pctx, void *cso)
{
   FREE(cso);
}

/* ------------------------------------------------------------ samplers */

static enum agx_wrap
translate_wrap(unsigned w)
{
   switch (w) {
   case PIPE_TEX_WRAP_REPEAT: return AGX_WRAP_REPEAT;
   case PIPE_TEX_WRAP_CLAMP: return AGX_WRAP_CLAMP_GL;
   case PIPE_TEX_WRAP_CLAMP_TO_EDGE: return AGX_WRAP_CLAMP_TO_EDGE;
   case PIPE_TEX_WRAP_CLAMP_TO_BORDER: return AGX_WRAP_CLAMP_TO_BORDER;
   case PIPE_TEX_WRAP_MIRROR_REPEAT: return AGX_WRAP_MIRRORED_REPEAT;
   default: return AGX_WRAP_MIRRORED_CLAMP_TO_EDGE;   /* the MIRROR_CLAMP family */
   }
}

static enum agx_compare_func
translate_compare(unsigned f)
{
   switch (f) {
   case PIPE_FUNC_NEVER: return AGX_COMPARE_FUNC_NEVER;
   case PIPE_FUNC_LESS: return AGX_COMPARE_FUNC_LESS;
   case PIPE_FUNC_EQUAL: return AGX_COMPARE_FUNC_EQUAL;
   case PIPE_FUNC_LEQUAL: return AGX_COMPARE_FUNC_LEQUAL;
   case PIPE_FUNC_GREATER: return AGX_COMPARE_FUNC_GREATER;
   case PIPE_FUNC_NOTEQUAL: return AGX_COMPARE_FUNC_NOT_EQUAL;
   case PIPE_FUNC_GEQUAL: return AGX_COMPARE_FUNC_GEQUAL;
   default: return AGX_COMPARE_FUNC_ALWAYS;
   }
}

static bool
wrap_reads_border(unsigned w)
{
   return w == PIPE_TEX_WRAP_CLAMP_TO_BORDER || w == PIPE_TEX_WRAP_CLAMP;
}

/* The three fixed colours are compact; anything else is Custom, read from
 * the Border record after the sampler in an extended sampler table, which
 * tessera_draw.c packs per the bound texture's format at draw time. Only
 * samplers whose wrap modes can reach the border need it. */
static enum agx_border_colour
translate_border(const struct pipe_sampler_state *s)
{
   const union pipe_color_union *c = &s->border_color;
   bool rgb0 = c->ui[0] == 0 && c->ui[1] == 0 && c->ui[2] == 0;
   uint32_t one = s->border_color_is_integer ? 1 : fui(1.0f);
   bool rgb1 = c->ui[0] == one && c->ui[1] == one && c->ui[2] == one;
   if (rgb0 && c->ui[3] == 0)
      return AGX_BORDER_COLOUR_TRANSPARENT_BLACK;
   if (rgb0 && c->ui[3] == one)
      return AGX_BORDER_COLOUR_OPAQUE_BLACK;
   if (rgb1 && c->ui[3] == one)
      return AGX_BORDER_COLOUR_OPAQUE_WHITE;
   if (!wrap_reads_border(s->wrap_s) && !wrap_reads_border(s->wrap_t) &&
       !wrap_reads_border(s->wrap_r))
      return AGX_BORDER_COLOUR_TRANSPARENT_BLACK;
   return AGX_BORDER_COLOUR_CUSTOM;
}

static void *
tessera_create_sampler_state(struct pipe_context *pctx, const struct pipe_sampler_state *cso)
{
   struct tessera_sampler_state *so = CALLOC_STRUCT(tessera_sampler_state);
   if (!so)
      return NULL;
   so->base = *cso;
   enum agx_border_colour border = translate_border(cso);
   so->custom_border = border == AGX_BORDER_COLOUR_CUSTOM;
   (void)pctx;
   agx_pack(so->desc, SAMPLER, s) {
      s.min_lod = CLAMP(cso->min_lod, 0.0f, 15.984375f);
      s.max_lod = CLAMP(cso->max_lod, 0.0f, 15.984375f);
      s.max_anisotropy = 1;
      s.magnify = cso->mag_img_filter == PIPE_TEX_FILTER_LINEAR ? AGX_FILTER_LINEAR
                                                                 : AGX_FILTER_NEAREST;
      s.minify = cso->min_img_filter == PIPE_TEX_FILTER_LINEAR ? AGX_FILTER_LINEAR
                                                                : AGX_FILTER_NEAREST;
      s.mip_filter = cso->min_mip_filter == PIPE_TEX_MIPFILTER_LINEAR ? AGX_MIP_FILTER_LINEAR
                     : cso->min_mip_filter == PIPE_TEX_MIPFILTER_NEAREST
                        ? AGX_MIP_FILTER_NEAREST
                        : AGX_MIP_FILTER_NONE;
      s.wrap_s = translate_wrap(cso->wrap_s);
      s.wrap_t = translate_wrap(cso->wrap_t);
      s.wrap_r = translate_wrap(cso->wrap_r);
      s.pixel_coordinates = cso->unnormalized_coords;
      s.compare_enable = cso->compare_mode == PIPE_TEX_COMPARE_R_TO_TEXTURE;
      s.compare_func = translate_compare(cso->compare_func);
      s.border_colour = border;
      s.seamful_cube_maps = !cso->seamless_cube_map;
   }
   return so;
}

static void
tessera_bind_sampler_states(struct pipe_context *pctx, enum pipe_shader_type shader,
                            unsigned start, unsigned count, void **states)
{
   struct tessera_context_state *st = tessera_context(pctx)->state;
   for (unsigned i = 0; i < count && start + i < TESSERA_MAX_SAMPLERS; i++)
      st->samplers[shader][start + i] = states ? states[i] : NULL;
   unsigned n = 0;
   for (unsigned i = 0; i < TESSERA_MAX_SAMPLERS; i++)
      if (st->samplers[shader][i])
         n = i + 1;
   st->nr_samplers[shader] = n;
}

/* ------------------------------------------------------- sampler views */

static struct pipe_sampler_view *
tessera_create_sampler_view(struct pipe_context *pctx, struct pipe_resource *prsc,
                            const struct pipe_sampler_view *tmpl)
{
   struct tessera_sampler_view *so = CALLOC_STRUCT(tessera_sampler_view);
   if (!so)
      return NULL;
   so->base = *tmpl;
   so->base.texture = NULL;
   pipe_resource_reference(&so->base.texture, prsc);
   pipe_reference_init(&so->base.reference, 1);
   so->base.context = pctx;
   tessera_pack_texture(tessera_resource(prsc), &so->base, so->desc);
   return &so->base;
}

static void
tessera_sampler_view_destroy(struct pipe_context *pctx, struct pipe_sampler_view *view)
{
   pipe_resource_reference(&view->texture, NULL);
   FREE(view);
}

static void
tessera_set_sampler_views(struct pipe_context *pctx, enum pipe_shader_type shader,
                          unsigned start, unsigned count, unsigned unbind_trailing,
                          bool take_ownership, struct pipe_sampler_view **views)
{
   struct tessera_context *ctx = tessera_context(pctx);
   struct tessera_context_state *st = ctx->state;
   for (unsigned i = 0; i < count + unbind_trailing; i++) {
      unsigned slot = start + i;
      struct pipe_sampler_view *v = (i < count && views) ? views[i] : NULL;
      if (slot >= TESSERA_MAX_TEXTURES) {
         if (take_ownership && v)
            pipe_sampler_view_reference(&v, NULL);
         continue;
      }
      if (take_ownership) {
         pipe_sampler_view_reference(&st->views[shader][slot], NULL);
         st->views[shader][slot] = v;
      } else {
         pipe_sampler_view_reference(&st->views[shader][slot], v);
      }
   }
   unsigned n = 0;
   for (unsigned i = 0; i < TESSERA_MAX_TEXTURES; i++)
      if (st->views[shader][i])
         n = i + 1;
   st->nr_views[shader] = n;
}

/* ---------------------------------------------------- vertex elements */

static void *
tessera_create_vertex_elements(struct pipe_context *pctx, unsigned count,
                               const struct pipe_vertex_element *ve)
{
   struct tessera_vertex_elements *so = CALLOC_STRUCT(tessera_vertex_elements);
   if (!so)
      return NULL;
   so->count = MIN2(count, PIPE_MAX_ATTRIBS);
   memcpy(so->ve, ve, so->count * sizeof(*ve));
   return so;
}

static void
tessera_bind_vertex_elements(struct pipe_context *pctx, void *cso)
{
   tessera_context(pctx)->state->ve = cso;
}

static void
tessera_set_vertex_buffers(struct pipe_context *pctx, unsigned start, unsigned count,
                           unsigned unbind_trailing, bool take_ownership,
                           const struct pipe_vertex_buffer *buffers)
{
   struct tessera_context_state *st = tessera_context(pctx)->state;
   util_set_vertex_buffers_mask(st->vb, &st->vb_mask, buffers, start, count,
                                unbind_trailing, take_ownership);
}

/* ------------------------------------------------------------ constants */

static void
tessera_set_constant_buffer(struct pipe_context *pctx, enum pipe_shader_type shader,
                            uint index, bool take_ownership,
                            const struct pipe_constant_buffer *cb)
{
   struct tessera_context_state *st = tessera_context(pctx)->state;
   if (index != 0) {
      /* UBOs beyond 0 are lowered by st/mesa limits (caps say one). */
      if (cb && (cb->buffer || cb->user_buffer))
         fprintf(stderr, "tessera: constant buffer %u is not supported\n", index);
      if (cb && take_ownership) {
         struct pipe_resource *r = cb->buffer;
         pipe_resource_reference(&r, NULL);
      }
      return;
   }
   struct pipe_constant_buffer *dst = &st->cb[shader];
   if (take_ownership) {
      pipe_resource_reference(&dst->buffer, NULL);
      if (cb)
         *dst = *cb;
      else
         memset(dst, 0, sizeof(*dst));
   } else {
      util_copy_constant_buffer(dst, cb, false);
   }
}

/* ------------------------------------------------------------ the rest */

static void
tessera_set_framebuffer_state(struct pipe_context *pctx,
                              const struct pipe_framebuffer_state *fb)
{
   struct tessera_context *ctx = tessera_context(pctx);
   /* The current batch is flushed lazily, when the next draw or clear
    * needs a batch for another framebuffer (tessera_get_batch). */
   util_copy_framebuffer_state(&ctx->state->fb, fb);
}

static void
tessera_set_viewport_states(struct pipe_context *pctx, unsigned start, unsigned count,
                            const struct pipe_viewport_state *vp)
{
   if (start == 0 && count)
      tessera_context(pctx)->state->viewport = vp[0];
}

static void
tessera_set_scissor_states(struct pipe_context *pctx, unsigned start, unsigned count,
                           const struct pipe_scissor_state *sc)
{
   if (start == 0 && count)
      tessera_context(pctx)->state->scissor = sc[0];
}

static void
tessera_set_blend_color(struct pipe_context *pctx, const struct pipe_blend_color *c)
{
   tessera_context(pctx)->state->blend_color = *c;
}

static void
tessera_set_stencil_ref(struct pipe_context *pctx, const struct pipe_stencil_ref ref)
{
   tessera_context(pctx)->state->stencil_ref = ref;
}

static void
tessera_set_sample_mask(struct pipe_context *pctx, unsigned mask)
{
   tessera_context(pctx)->state->sample_mask = mask;
}

static void
tessera_set_min_samples(struct pipe_context *pctx, unsigned n)
{
   (void)pctx;
   (void)n;
}

/* The hardware has no polygon stipple: as Gallium's draw module does, the
 * pattern becomes an A8 texture (u_pstipple) that fragment variants with
 * tc_fs_key.poly_stipple sample at the window position and discard by
 * (tessera_shader.c). st/mesa already flips the pattern for y-inverted
 * window framebuffers. */
static void
tessera_set_polygon_stipple(struct pipe_context *pctx, const struct pipe_poly_stipple *s)
{
   struct tessera_context *ctx = tessera_context(pctx);
   if (!ctx->stipple_tex) {
      ctx->stipple_tex = util_pstipple_create_stipple_texture(pctx, s->stipple);
      if (!ctx->stipple_tex) {
         fprintf(stderr, "tessera: no memory for the polygon stipple texture\n");
         return;
      }
      ctx->stipple_view = util_pstipple_create_sampler_view(pctx, ctx->stipple_tex);
      ctx->stipple_sampler = util_pstipple_create_sampler(pctx);
   } else {
      util_pstipple_update_stipple_texture(pctx, ctx->stipple_tex, s->stipple);
   }
}

static void
tessera_set_clip_state(struct pipe_context *pctx, const struct pipe_clip_state *c)
{
   /* Read by the vertex shader from u(TC_U_UCP) (tessera_draw.c). */
   tessera_context(pctx)->state->clip = *c;
}

static void
tessera_set_shader_images(struct pipe_context *pctx, enum pipe_shader_type shader,
                          unsigned start, unsigned count, unsigned unbind,
                          const struct pipe_image_view *images)
{
   for (unsigned i = 0; images && i < count; i++)
      if (images[i].resource)
         fprintf(stderr, "tessera: shader images are not supported\n");
}

static void
tessera_set_shader_buffers(struct pipe_context *pctx, enum pipe_shader_type shader,
                           unsigned start, unsigned count,
                           const struct pipe_shader_buffer *buffers, unsigned writable)
{
   for (unsigned i = 0; buffers && i < count; i++)
      if (buffers[i].buffer)
         fprintf(stderr, "tessera: shader storage buffers are not supported\n");
}

void
tessera_cleanup_state(struct tessera_context *ctx)
{
   struct tessera_context_state *st = ctx->state;
   if (!st)
      return;
   util_unreference_framebuffer_state(&st->fb);
   for (unsigned i = 0; i < PIPE_MAX_ATTRIBS; i++)
      pipe_vertex_buffer_unreference(&st->vb[i]);
   for (unsigned s = 0; s < PIPE_SHADER_TYPES; s++) {
      pipe_resource_reference(&st->cb[s].buffer, NULL);
      for (unsigned i = 0; i < TESSERA_MAX_TEXTURES; i++)
         pipe_sampler_view_reference(&st->views[s][i], NULL);
   }
   pipe_sampler_view_reference(&ctx->stipple_view, NULL);
   pipe_resource_reference(&ctx->stipple_tex, NULL);
   if (ctx->stipple_sampler)
      ctx->base.delete_sampler_state(&ctx->base, ctx->stipple_sampler);
   ctx->stipple_sampler = NULL;
}

void
tessera_init_state_functions(struct pipe_context *pctx)
{
   pctx->create_blend_state = tessera_create_blend_state;
   pctx->bind_blend_state = tessera_bind_blend_state;
   pctx->delete_blend_state = tessera_delete_state;
   pctx->create_rasterizer_state = tessera_create_rasterizer_state;
   pctx->bind_rasterizer_state = tessera_bind_rasterizer_state;
   pctx->delete_rasterizer_state = tessera_delete_state;
   pctx->create_depth_stencil_alpha_state = tessera_create_zsa_state;
   pctx->bind_depth_stencil_alpha_state = tessera_bind_zsa_state;
   pctx->delete_depth_stencil_alpha_state = tessera_delete_state;
   pctx->create_sampler_state = tessera_create_sampler_state;
   pctx->bind_sampler_states = tessera_bind_sampler_states;
   pctx->delete_sampler_state = tessera_delete_state;
   pctx->create_sampler_view = tessera_create_sampler_view;
   pctx->sampler_view_destroy = tessera_sampler_view_destroy;
   pctx->set_sampler_views = tessera_set_sampler_views;
   pctx->create_vertex_elements_state = tessera_create_vertex_elements;
   pctx->bind_vertex_elements_state = tessera_bind_vertex_elements;
   pctx->delete_vertex_elements_state = tessera_delete_state;
   pctx->set_vertex_buffers = tessera_set_vertex_buffers;
   pctx->set_constant_buffer = tessera_set_constant_buffer;
   pctx->set_framebuffer_state = tessera_set_framebuffer_state;
   pctx->set_viewport_states = tessera_set_viewport_states;
   pctx->set_scissor_states = tessera_set_scissor_states;
   pctx->set_blend_color = tessera_set_blend_color;
   pctx->set_stencil_ref = tessera_set_stencil_ref;
   pctx->set_sample_mask = tessera_set_sample_mask;
   pctx->set_min_samples = tessera_set_min_samples;
   pctx->set_polygon_stipple = tessera_set_polygon_stipple;
   pctx->set_clip_state = tessera_set_clip_state;
   pctx->set_shader_images = tessera_set_shader_images;
   pctx->set_shader_buffers = tessera_set_shader_buffers;
}

/* SPDX-License-Identifier: MIT */
/*
 * Resources: layouts, creation, sharing, CPU transfers, surfaces and the
 * texture / PBE descriptors (contract in tessera_resource.h).
 *
 * Layouts (docs/texture.md):
 *   - linear: buffers, and single-level single-layer textures that are
 *     render targets, scanout/shared or explicitly linear;
 *     rows 64-byte aligned (the texture descriptor stores stride - 16 in
 *     16-byte units, the PBE stride - 4);
 *   - twiddled: everything else, placed by cmdstream/agx_image_layout.h
 *     (shared with the GPU model). A mipmapped image always allocates the
 *     full chain (the hardware computes level offsets for the whole
 *     chain); arrays, cube faces and 3D slices are whole chains, page
 *     aligned.
 * Depth/stencil: u_transfer_helper splits Z24S8 / Z32F_S8 into a depth
 * resource (Z24 stored as Z32F) and an S8 one, and converts on transfers.
 * Both are twiddled, single level and layer: the ZLS unit has no linear
 * layout, and it sizes the image from the render command's ISP ZLS Pixels.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <xf86drm.h>

#include "pipe/p_compiler.h"
#include "drm-uapi/drm_fourcc.h"
#include "frontend/winsys_handle.h"
#include "util/format/u_format.h"
#include "util/u_inlines.h"
#include "util/u_math.h"
#include "util/u_memory.h"
#include "util/u_surface.h"
#include "util/u_transfer.h"
#include "util/u_transfer_helper.h"

#include "cmdstream/agx_image_layout.h"
#include "tessera_context.h"
#include "tessera_resource.h"
#include "tessera_sw.h"

#define TESSERA_ROW_ALIGN  64u

/* ---- layout ------------------------------------------------------------ */

/* Twiddled placement is the hardware's rule, shared with the GPU model's
 * texture unit: cmdstream/agx_image_layout.h states and computes it. 3D
 * slices and cube faces are layers of full chains there too. */
static bool
layout_twiddled(struct tessera_resource *r, unsigned bytes, unsigned levels)
{
   const struct pipe_resource *t = &r->base;
   bool is_3d = t->target == PIPE_TEXTURE_3D;
   bool is_cube = t->target == PIPE_TEXTURE_CUBE || t->target == PIPE_TEXTURE_CUBE_ARRAY;
   struct agx_image_layout_params p = {
      .block_bytes = bytes,
      .width = t->width0,
      .height = t->height0,
      .depth = is_3d ? t->depth0 : t->array_size,
      .levels = levels,
      .kind = is_3d ? AGX_IMAGE_3D : is_cube ? AGX_IMAGE_CUBE : AGX_IMAGE_2D,
      /* Our choice, told to the hardware by the descriptors' bit. */
      .page_aligned_layers = (is_3d ? t->depth0 : t->array_size) > 1,
   };
   struct agx_image_layout l;
   char err[128];
   if (!agx_image_layout_twiddled(&l, &p, err, sizeof(err))) {
      fprintf(stderr, "tessera: %s image: %s\n",
              util_format_short_name(r->internal_format), err);
      return false;
   }
   for (unsigned i = 0; i < l.levels; i++) {
      r->level[i].offset = l.level[i].offset;
      r->level[i].tile_w = l.level[i].tile_w;
      r->level[i].tile_h = l.level[i].tile_h;
      r->level[i].tiles_per_row = l.level[i].tiles_per_row;
      r->level[i].stride = 0;
      r->level[i].size = MIN2(l.level[i].size, UINT32_MAX);   /* oversize: refused at creation */
   }
   r->layout = TESSERA_LAYOUT_TWIDDLED;
   r->page_aligned_layers = p.page_aligned_layers;
   r->layer_stride = l.layer_stride;
   r->size = l.size;
   return true;
}

static void
layout_linear(struct tessera_resource *r, unsigned bytes, unsigned w, unsigned h,
              unsigned stride)
{
   if (!stride)
      stride = align(w * bytes, TESSERA_ROW_ALIGN);
   r->layout = TESSERA_LAYOUT_LINEAR;
   r->level[0].offset = 0;
   r->level[0].stride = stride;
   r->size = (uint64_t)stride * h;
   r->level[0].size = MIN2(r->size, UINT32_MAX);   /* oversize: refused at creation */
   r->layer_stride = r->size;
   r->page_aligned_layers = false;
}

static bool
wants_linear(const struct tessera_screen *s, const struct pipe_resource *t)
{
   if (t->target == PIPE_BUFFER)
      return true;
   if (t->last_level > 0 || t->array_size > 1 || t->depth0 > 1 ||
       t->target == PIPE_TEXTURE_3D)
      return false;   /* 3D: the texture unit reads 3D images twiddled only */
   if (s->debug & TESSERA_DBG_NOTWIDDLE)
      return true;
   /* Render targets stay linear so the end-of-tile block store and the
    * readback paths are plain row copies. */
   return t->bind & (PIPE_BIND_RENDER_TARGET | PIPE_BIND_DISPLAY_TARGET |
                     PIPE_BIND_SCANOUT | PIPE_BIND_SHARED | PIPE_BIND_LINEAR);
}

/* Fills the layout of r (base template set); false with a message when the
 * texture unit cannot describe it. */
static bool
tessera_resource_layout(struct tessera_screen *s, struct tessera_resource *r,
                        unsigned stride)
{
   const struct pipe_resource *t = &r->base;
   if (t->target == PIPE_BUFFER) {
      r->layout = TESSERA_LAYOUT_LINEAR;
      r->level[0].stride = t->width0;
      r->level[0].size = t->width0;
      r->size = t->width0;
      return true;
   }
   /* 3D slices are stored as layers, each with its own mip chain (the
    * texture unit's layout, docs/texture.md): a slice of level l is layer z
    * of that level. */
   bool is_3d = t->target == PIPE_TEXTURE_3D;
   if (is_3d && (util_format_is_depth_or_stencil(r->internal_format) || t->depth0 > 2048)) {
      fprintf(stderr, "tessera: 3D %s image of depth %u is not supported\n",
              util_format_short_name(r->internal_format), t->depth0);
      return false;
   }
   if (t->nr_samples > 1) {
      fprintf(stderr, "tessera: multisampled resources are not supported\n");
      return false;
   }
   if (t->width0 > 16384 || t->height0 > 16384) {
      fprintf(stderr, "tessera: %ux%u exceeds the 16384x16384 image limit\n",
              t->width0, t->height0);
      return false;
   }
   unsigned bytes = util_format_get_blocksize(r->internal_format);
   if (!tessera_format_info(r->internal_format) ||
       util_format_get_blockwidth(r->internal_format) != 1) {
      fprintf(stderr, "tessera: format %s has no texture encoding\n",
              util_format_short_name(r->internal_format));
      return false;
   }
   /* Depth/stencil is always twiddled (the ZLS unit's layout); mipmapped
    * and layered images get the same chain as colour textures, and the
    * ZLS addresses one level of one layer as a single-level image of that
    * level's size (tessera_batch.c). */
   if (!util_format_is_depth_or_stencil(r->internal_format) && wants_linear(s, t)) {
      layout_linear(r, bytes, t->width0, t->height0, stride);
      return true;
   }
   /* A mipmapped image always gets the whole chain: the descriptors make
    * the hardware assume it. */
   unsigned levels = t->last_level > 0 ? agx_image_full_levels(t->width0, t->height0) : 1;
   if (t->last_level >= levels) {
      fprintf(stderr, "tessera: %u levels for a %ux%u image\n", t->last_level + 1,
              t->width0, t->height0);
      return false;
   }
   return layout_twiddled(r, bytes, levels);
}

/* ---- creation ------------------------------------------------------------ */

/* Binds the GPU may write through. */
#define GPU_WRITE_BINDS (PIPE_BIND_RENDER_TARGET | PIPE_BIND_DEPTH_STENCIL | \
                         PIPE_BIND_SHADER_IMAGE | PIPE_BIND_SHADER_BUFFER | \
                         PIPE_BIND_STREAM_OUTPUT | PIPE_BIND_COMPUTE_RESOURCE | \
                         PIPE_BIND_GLOBAL)

static unsigned
bo_flags_for(const struct pipe_resource *t)
{
   /* Anything another process or API may see must not be VM-private. */
   if (t->bind & (PIPE_BIND_SHARED | PIPE_BIND_SCANOUT | PIPE_BIND_DISPLAY_TARGET))
      return TESSERA_BO_SHARED;
   /* Least privilege: the GPU writes only what it renders to (PBE and ZLS
    * stores of framebuffer attachments) and the query results. There are
    * no SSBOs, images, stream output or texture buffers
    * (is_format_supported refuses those binds), and copies, blits,
    * clears and mipmap generation run on the CPU (tessera_blit.c): so
    * buffers (vertex, index, constant, the u_upload_mgr uploaders) and
    * textures without a render-target or depth bind are GPU-read-only.
    * A resource rendered to anyway is rebound writable when a batch
    * first writes it (tessera_batch_writes). */
   return (t->bind & GPU_WRITE_BINDS) ? 0 : TESSERA_BO_GPU_READONLY;
}

static const char *
label_for(const struct pipe_resource *t)
{
   if (t->target == PIPE_BUFFER)
      return "buffer";
   if (t->bind & (PIPE_BIND_DISPLAY_TARGET | PIPE_BIND_SCANOUT))
      return "display target";
   if (t->bind & PIPE_BIND_DEPTH_STENCIL)
      return "depth/stencil";
   if (t->bind & PIPE_BIND_RENDER_TARGET)
      return "render target";
   return "texture";
}

static struct pipe_resource *
tessera_resource_create_internal(struct pipe_screen *pscreen,
                                 const struct pipe_resource *templ)
{
   struct tessera_screen *s = tessera_screen(pscreen);
   struct tessera_resource *r = CALLOC_STRUCT(tessera_resource);
   if (!r)
      return NULL;
   r->base = *templ;
   r->base.screen = pscreen;
   pipe_reference_init(&r->base.reference, 1);
   r->internal_format = templ->format;

   if (!tessera_resource_layout(s, r, 0)) {
      FREE(r);
      return NULL;
   }
   if (r->size > (4ull << 30)) {
      /* GEM objects are at most 4 GiB. */
      fprintf(stderr, "tessera: a %ux%ux%u %s image needs %llu bytes (limit 4 GiB)\n",
              templ->width0, templ->height0, templ->array_size,
              util_format_short_name(templ->format), (unsigned long long)r->size);
      FREE(r);
      return NULL;
   }

   r->bo = tessera_bo_create(s, MAX2(r->size, 1), bo_flags_for(templ), label_for(templ));
   if (!r->bo) {
      FREE(r);
      return NULL;
   }

   if (s->winsys && (templ->bind & (PIPE_BIND_DISPLAY_TARGET | PIPE_BIND_SCANOUT))) {
      if (!tessera_sw_displaytarget_create(s, r)) {
         tessera_bo_unreference(r->bo);
         FREE(r);
         return NULL;
      }
   }
   return &r->base;
}

static void
tessera_resource_destroy_internal(struct pipe_screen *pscreen, struct pipe_resource *prsc)
{
   struct tessera_resource *r = tessera_resource(prsc);
   if (r->dt)
      tessera_sw_displaytarget_destroy(tessera_screen(pscreen), r);
   util_dynarray_foreach(&r->zombie_bos, struct tessera_bo *, bo)
      tessera_bo_unreference(*bo);
   util_dynarray_fini(&r->zombie_bos);
   tessera_bo_unreference(r->bo);
   FREE(r);
}

static struct pipe_resource *
tessera_resource_from_handle(struct pipe_screen *pscreen, const struct pipe_resource *templ,
                             struct winsys_handle *whandle, unsigned usage)
{
   struct tessera_screen *s = tessera_screen(pscreen);
   if (whandle->type != WINSYS_HANDLE_TYPE_FD && whandle->type != WINSYS_HANDLE_TYPE_KMS) {
      fprintf(stderr, "tessera: only dma-buf fds and KMS handles can be imported "
              "(handle type %u)\n", whandle->type);
      return NULL;
   }
   if (whandle->modifier != DRM_FORMAT_MOD_INVALID &&
       whandle->modifier != DRM_FORMAT_MOD_LINEAR) {
      fprintf(stderr, "tessera: imported modifier 0x%llx is not linear\n",
              (unsigned long long)whandle->modifier);
      return NULL;
   }
   struct tessera_resource *r = CALLOC_STRUCT(tessera_resource);
   if (!r)
      return NULL;
   r->base = *templ;
   r->base.screen = pscreen;
   r->base.bind |= PIPE_BIND_SHARED;
   pipe_reference_init(&r->base.reference, 1);
   r->internal_format = templ->format;
   if (templ->last_level > 0 || templ->array_size > 1 || !tessera_format_info(templ->format) ||
       (whandle->stride & 15) || (whandle->offset & 127)) {
      fprintf(stderr, "tessera: cannot import %s %ux%u (stride %u, offset %u)\n",
              util_format_short_name(templ->format), templ->width0, templ->height0,
              whandle->stride, whandle->offset);
      FREE(r);
      return NULL;
   }
   unsigned bytes = util_format_get_blocksize(templ->format);
   if (whandle->stride < templ->width0 * bytes) {
      fprintf(stderr, "tessera: imported stride %u too small\n", whandle->stride);
      FREE(r);
      return NULL;
   }
   layout_linear(r, bytes, templ->width0, templ->height0, whandle->stride);
   r->level[0].offset = whandle->offset;
   if (whandle->type == WINSYS_HANDLE_TYPE_KMS)
      r->bo = tessera_bo_lookup_shared(s, whandle->handle, whandle->offset + r->size);
   else
      r->bo = tessera_bo_import(s, whandle->handle, whandle->offset + r->size, "imported");
   if (!r->bo) {
      FREE(r);
      return NULL;
   }
   r->valid = true;
   return &r->base;
}

static bool
tessera_resource_get_handle(struct pipe_screen *pscreen, struct pipe_context *pctx,
                            struct pipe_resource *prsc, struct winsys_handle *whandle,
                            unsigned usage)
{
   struct tessera_resource *r = tessera_resource(prsc);
   if (r->layout != TESSERA_LAYOUT_LINEAR) {
      fprintf(stderr, "tessera: twiddled images cannot be shared\n");
      return false;
   }
   whandle->stride = r->level[0].stride;
   whandle->offset = r->level[0].offset;
   whandle->modifier = DRM_FORMAT_MOD_LINEAR;
   switch (whandle->type) {
   case WINSYS_HANDLE_TYPE_KMS:
      if (!(r->bo->flags & TESSERA_BO_SHARED))
         return false;
      whandle->handle = r->bo->handle;
      return true;
   case WINSYS_HANDLE_TYPE_FD: {
      int fd = tessera_bo_export(r->bo);
      if (fd < 0)
         return false;
      whandle->handle = fd;
      return true;
   }
   default:
      return false;
   }
}

static bool
tessera_resource_get_param(struct pipe_screen *pscreen, struct pipe_context *pctx,
                           struct pipe_resource *prsc, unsigned plane, unsigned layer,
                           unsigned level, enum pipe_resource_param param,
                           unsigned usage, uint64_t *value)
{
   struct tessera_resource *r = tessera_resource(prsc);
   struct winsys_handle wh;
   switch (param) {
   case PIPE_RESOURCE_PARAM_NPLANES:
      *value = 1;
      return true;
   case PIPE_RESOURCE_PARAM_STRIDE:
      *value = r->level[level].stride;
      return true;
   case PIPE_RESOURCE_PARAM_OFFSET:
      *value = r->level[level].offset + (uint64_t)layer * r->layer_stride;
      return true;
   case PIPE_RESOURCE_PARAM_LAYER_STRIDE:
      *value = r->layer_stride;
      return true;
   case PIPE_RESOURCE_PARAM_MODIFIER:
      *value = r->layout == TESSERA_LAYOUT_LINEAR ? DRM_FORMAT_MOD_LINEAR
                                                  : DRM_FORMAT_MOD_INVALID;
      return true;
   case PIPE_RESOURCE_PARAM_HANDLE_TYPE_KMS:
   case PIPE_RESOURCE_PARAM_HANDLE_TYPE_FD:
      memset(&wh, 0, sizeof(wh));
      wh.type = param == PIPE_RESOURCE_PARAM_HANDLE_TYPE_KMS ? WINSYS_HANDLE_TYPE_KMS
                                                             : WINSYS_HANDLE_TYPE_FD;
      if (!tessera_resource_get_handle(pscreen, pctx, prsc, &wh, usage))
         return false;
      *value = wh.handle;
      return true;
   default:
      return false;
   }
}

/* Only linear images are shared: the twiddled layout has no modifier in
 * this Mesa's drm_fourcc.h. */
static struct pipe_resource *
tessera_resource_create_with_modifiers(struct pipe_screen *pscreen,
                                       const struct pipe_resource *templ,
                                       const uint64_t *modifiers, int count)
{
   bool linear = false;
   for (int i = 0; i < count; i++)
      linear |= modifiers[i] == DRM_FORMAT_MOD_LINEAR || modifiers[i] == DRM_FORMAT_MOD_INVALID;
   if (!linear) {
      fprintf(stderr, "tessera: none of the %d requested modifiers is linear\n", count);
      return NULL;
   }
   struct pipe_resource t = *templ;
   t.bind |= PIPE_BIND_LINEAR | PIPE_BIND_SHARED;   /* modifiers: for sharing */
   if (t.last_level > 0 || t.array_size > 1) {
      fprintf(stderr, "tessera: linear images have one level and one layer\n");
      return NULL;
   }
   return pscreen->resource_create(pscreen, &t);
}

static bool
dmabuf_format_ok(struct pipe_screen *pscreen, enum pipe_format format)
{
   return tessera_format_info(format) && !util_format_is_depth_or_stencil(format);
}

static void
tessera_query_dmabuf_modifiers(struct pipe_screen *pscreen, enum pipe_format format,
                               int max, uint64_t *modifiers, unsigned int *external_only,
                               int *count)
{
   if (!dmabuf_format_ok(pscreen, format)) {
      *count = 0;
      return;
   }
   *count = 1;
   if (max >= 1) {
      modifiers[0] = DRM_FORMAT_MOD_LINEAR;
      if (external_only)
         external_only[0] = false;
   }
}

static bool
tessera_is_dmabuf_modifier_supported(struct pipe_screen *pscreen, uint64_t modifier,
                                     enum pipe_format format, bool *external_only)
{
   if (external_only)
      *external_only = false;
   return modifier == DRM_FORMAT_MOD_LINEAR && dmabuf_format_ok(pscreen, format);
}

/* ---- u_transfer_helper glue ---------------------------------------------- */

static enum pipe_format
tessera_get_internal_format(struct pipe_resource *prsc)
{
   return tessera_resource(prsc)->internal_format;
}

static void
tessera_set_stencil(struct pipe_resource *prsc, struct pipe_resource *stencil)
{
   tessera_resource(prsc)->separate_stencil = tessera_resource(stencil);
}

static struct pipe_resource *
tessera_get_stencil(struct pipe_resource *prsc)
{
   struct tessera_resource *s = tessera_resource(prsc)->separate_stencil;
   return s ? &s->base : NULL;
}

/* ---- transfers ------------------------------------------------------------ */

struct tessera_transfer {
   struct pipe_transfer base;
   void *staging;            /* twiddled images: linear copy of the box */
};

static void
sync_for_cpu(struct pipe_context *pctx, struct tessera_resource *r, unsigned usage)
{
   if ((usage & PIPE_MAP_UNSYNCHRONIZED) || !pctx)
      return;
   struct tessera_context *ctx = tessera_context(pctx);
   if (r->bo->flags & TESSERA_BO_SHARED) {
      /* Hazards are tracked per resource, and a shared BO may back other
       * resources (an import of our own export, the same dma-buf twice):
       * submit and wait for everything this context did. */
      tessera_flush_all(ctx, "CPU access to a shared buffer");
      if (ctx->submitted && ctx->syncobj) {
         uint32_t h = ctx->syncobj;
         drmSyncobjWait(ctx->screen->fd, &h, 1, INT64_MAX,
                        DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, NULL);
      }
   }
   if (usage & PIPE_MAP_WRITE)
      tessera_flush_readers_and_writer(ctx, r, "CPU write");
   else
      tessera_flush_writer(ctx, r, "CPU read");
}

/* A whole-buffer discard of a buffer batches still read or write: give
 * it a fresh BO instead of waiting (the classic orphaning fast path).
 * Buffer addresses are looked up at draw time, so later draws see the new
 * BO; the old one lives on until the resource is idle. Shared BOs keep
 * their identity. */
static void
discard_busy_buffer(struct pipe_context *pctx, struct tessera_resource *r, unsigned *usage)
{
   if (!(*usage & PIPE_MAP_DISCARD_WHOLE_RESOURCE) ||
       (*usage & (PIPE_MAP_UNSYNCHRONIZED | PIPE_MAP_PERSISTENT)) ||
       (r->bo->flags & TESSERA_BO_SHARED) || (!r->writer && !r->reader_mask))
      return;
   struct tessera_screen *s = tessera_screen(r->base.screen);
   struct tessera_bo *bo = tessera_bo_create(s, r->bo->size, r->bo->flags, r->bo->label);
   if (!bo)
      return;   /* fall back to waiting */
   util_dynarray_append(&r->zombie_bos, struct tessera_bo *, r->bo);
   r->bo = bo;
   *usage |= PIPE_MAP_UNSYNCHRONIZED;
   tessera_perf(tessera_context(pctx), "buffer orphaned (%u bytes) instead of waiting\n",
                r->base.width0);
}

/* Spreads the low 16 bits of v to the even bit positions. */
static uint32_t
spread_bits(uint32_t v)
{
   v &= 0xffff;
   v = (v | (v << 8)) & 0x00ff00ff;
   v = (v | (v << 4)) & 0x0f0f0f0f;
   v = (v | (v << 2)) & 0x33333333;
   v = (v | (v << 1)) & 0x55555555;
   return v;
}

static inline void
copy_texel(uint8_t *dst, const uint8_t *src, unsigned bytes)
{
   /* Constant sizes let the compiler inline the copies. */
   switch (bytes) {
   case 1: memcpy(dst, src, 1); break;
   case 2: memcpy(dst, src, 2); break;
   case 4: memcpy(dst, src, 4); break;
   case 8: memcpy(dst, src, 8); break;
   default: memcpy(dst, src, bytes); break;
   }
}

/* Copies a box between a twiddled image and a linear staging copy. A
 * texel's offset is the sum of an x part (tile column, even Morton bits)
 * and a y part (tile row, odd Morton bits), so the x parts are computed
 * once per box. */
static bool
copy_box(struct tessera_resource *r, unsigned level, const struct pipe_box *box,
         uint8_t *image, uint8_t *staging, unsigned stride, uint64_t layer_stride,
         bool to_image)
{
   unsigned bytes = util_format_get_blocksize(r->internal_format);
   unsigned tw = r->level[level].tile_w, th = r->level[level].tile_h;
   uint64_t tile_bytes = (uint64_t)tw * th * bytes;
   uint64_t *xoff = malloc(sizeof(uint64_t) * box->width);
   if (!xoff)
      return false;
   for (int x = 0; x < box->width; x++) {
      unsigned px = box->x + x;
      xoff[x] = (px / tw) * tile_bytes + (uint64_t)spread_bits(px & (tw - 1)) * bytes;
   }
   for (int z = 0; z < box->depth; z++) {
      uint8_t *img = image + r->level[level].offset + (uint64_t)(box->z + z) * r->layer_stride;
      uint8_t *lin = staging + z * layer_stride;
      for (int y = 0; y < box->height; y++) {
         unsigned py = box->y + y;
         uint8_t *row = img + (py / th) * r->level[level].tiles_per_row * tile_bytes +
                        ((uint64_t)spread_bits(py & (th - 1)) << 1) * bytes;
         uint8_t *l = lin + (size_t)y * stride;
         if (to_image) {
            for (int x = 0; x < box->width; x++)
               copy_texel(row + xoff[x], l + (size_t)x * bytes, bytes);
         } else {
            for (int x = 0; x < box->width; x++)
               copy_texel(l + (size_t)x * bytes, row + xoff[x], bytes);
         }
      }
   }
   free(xoff);
   return true;
}

static void *
tessera_transfer_map(struct pipe_context *pctx, struct pipe_resource *prsc, unsigned level,
                     unsigned usage, const struct pipe_box *box,
                     struct pipe_transfer **out)
{
   struct tessera_resource *r = tessera_resource(prsc);
   unsigned layers = prsc->target == PIPE_TEXTURE_3D ? u_minify(prsc->depth0, level)
                                                     : prsc->array_size;
   if (prsc->target != PIPE_BUFFER && (level > prsc->last_level || box->z < 0 ||
                                       (unsigned)(box->z + box->depth) > layers)) {
      fprintf(stderr, "tessera: map of level %u layers %d..%d out of range\n", level,
              box->z, box->z + box->depth - 1);
      return NULL;
   }
   if (prsc->target == PIPE_BUFFER && pctx)
      discard_busy_buffer(pctx, r, &usage);
   sync_for_cpu(pctx, r, usage);
   if (!(usage & PIPE_MAP_UNSYNCHRONIZED) && !r->writer && !r->reader_mask &&
       r->zombie_bos.size) {
      /* Idle: no batch can still use the replaced BOs. */
      util_dynarray_foreach(&r->zombie_bos, struct tessera_bo *, bo)
         tessera_bo_unreference(*bo);
      util_dynarray_clear(&r->zombie_bos);
   }

   uint8_t *map = tessera_bo_map(r->bo);
   if (!map)
      return NULL;

   struct tessera_transfer *t = CALLOC_STRUCT(tessera_transfer);
   if (!t)
      return NULL;
   pipe_resource_reference(&t->base.resource, prsc);
   t->base.level = level;
   t->base.usage = usage;
   t->base.box = *box;
   *out = &t->base;

   if (prsc->target == PIPE_BUFFER) {
      if (usage & PIPE_MAP_WRITE)
         r->valid = true;
      return map + box->x;
   }

   unsigned bytes = util_format_get_blocksize(r->internal_format);
   if (r->layout == TESSERA_LAYOUT_LINEAR) {
      t->base.stride = r->level[level].stride;
      t->base.layer_stride = r->layer_stride;
      return map + r->level[level].offset + (uint64_t)box->z * r->layer_stride +
             (uint64_t)box->y * t->base.stride + (uint64_t)box->x * bytes;
   }

   /* Twiddled: work on a linear copy of the box (which cannot be a
    * direct mapping). */
   if (usage & PIPE_MAP_DIRECTLY) {
      pipe_resource_reference(&t->base.resource, NULL);
      FREE(t);
      return NULL;
   }
   t->base.stride = box->width * bytes;
   t->base.layer_stride = (uint64_t)t->base.stride * box->height;
   t->staging = malloc(t->base.layer_stride * box->depth);
   if (!t->staging) {
      pipe_resource_reference(&t->base.resource, NULL);
      FREE(t);
      return NULL;
   }
   if (!(usage & (PIPE_MAP_DISCARD_RANGE | PIPE_MAP_DISCARD_WHOLE_RESOURCE)) ||
       (usage & PIPE_MAP_READ)) {
      struct tessera_screen *s = tessera_screen(prsc->screen);
      if ((s->debug & TESSERA_DBG_PERF) && (usage & PIPE_MAP_READ))
         fprintf(stderr, "tessera: perf: CPU de-twiddling %dx%d of a %s texture\n",
                 box->width, box->height, util_format_short_name(prsc->format));
      if (!copy_box(r, level, box, map, t->staging, t->base.stride, t->base.layer_stride,
                    false)) {
         free(t->staging);
         pipe_resource_reference(&t->base.resource, NULL);
         FREE(t);
         return NULL;
      }
   }
   return t->staging;
}

static void
tessera_transfer_unmap(struct pipe_context *pctx, struct pipe_transfer *ptrans)
{
   struct tessera_transfer *t = (struct tessera_transfer *)ptrans;
   struct tessera_resource *r = tessera_resource(ptrans->resource);
   if (ptrans->usage & PIPE_MAP_WRITE) {
      if (t->staging && !copy_box(r, ptrans->level, &ptrans->box, r->bo->map, t->staging,
                                  ptrans->stride, ptrans->layer_stride, true))
         fprintf(stderr, "tessera: out of memory writing back a texture upload\n");
      r->valid = true;
   }
   free(t->staging);
   pipe_resource_reference(&ptrans->resource, NULL);
   FREE(t);
}

static void
tessera_transfer_flush_region(struct pipe_context *pctx, struct pipe_transfer *ptrans,
                              const struct pipe_box *box)
{
   /* Mappings are coherent; twiddled copies are written back at unmap. */
}

static const struct u_transfer_vtbl transfer_vtbl = {
   .resource_create = tessera_resource_create_internal,
   .resource_destroy = tessera_resource_destroy_internal,
   .transfer_map = tessera_transfer_map,
   .transfer_unmap = tessera_transfer_unmap,
   .transfer_flush_region = tessera_transfer_flush_region,
   .get_internal_format = tessera_get_internal_format,
   .set_stencil = tessera_set_stencil,
   .get_stencil = tessera_get_stencil,
};

/* ---- surfaces -------------------------------------------------------------- */

static struct pipe_surface *
tessera_create_surface(struct pipe_context *pctx, struct pipe_resource *prsc,
                       const struct pipe_surface *tmpl)
{
   struct pipe_surface *surf = CALLOC_STRUCT(pipe_surface);
   if (!surf)
      return NULL;
   pipe_reference_init(&surf->reference, 1);
   pipe_resource_reference(&surf->texture, prsc);
   surf->context = pctx;
   surf->format = tmpl->format;
   surf->u = tmpl->u;
   if (prsc->target == PIPE_BUFFER) {
      surf->width = tmpl->u.buf.last_element - tmpl->u.buf.first_element + 1;
      surf->height = 1;
   } else {
      surf->width = u_minify(prsc->width0, tmpl->u.tex.level);
      surf->height = u_minify(prsc->height0, tmpl->u.tex.level);
   }
   surf->nr_samples = tmpl->nr_samples;
   return surf;
}

static void
tessera_surface_destroy(struct pipe_context *pctx, struct pipe_surface *surf)
{
   pipe_resource_reference(&surf->texture, NULL);
   FREE(surf);
}

/* ---- descriptors ------------------------------------------------------------ */

static enum agx_texture_dimension
dimension_for(enum pipe_texture_target target)
{
   switch (target) {
   case PIPE_TEXTURE_1D:       return AGX_TEXTURE_DIMENSION_1D;
   case PIPE_TEXTURE_1D_ARRAY: return AGX_TEXTURE_DIMENSION_1D_ARRAY;
   case PIPE_TEXTURE_2D_ARRAY: return AGX_TEXTURE_DIMENSION_2D_ARRAY;
   case PIPE_TEXTURE_CUBE:     return AGX_TEXTURE_DIMENSION_CUBE;
   case PIPE_TEXTURE_3D:       return AGX_TEXTURE_DIMENSION_3D;
   case PIPE_TEXTURE_CUBE_ARRAY: return AGX_TEXTURE_DIMENSION_CUBE_ARRAY;
   default:                    return AGX_TEXTURE_DIMENSION_2D;
   }
}

/* The format the descriptors use: the view format, except that views of
 * split depth/stencil resources read the stored depth format. */
static enum pipe_format
descriptor_format(const struct tessera_resource *r, enum pipe_format view)
{
   if (view == PIPE_FORMAT_NONE || util_format_is_depth_or_stencil(view))
      return r->internal_format;
   return view;
}

bool
tessera_view_clamps_shadow_ref(const struct pipe_sampler_view *view)
{
   if (!view || !view->texture)
      return false;
   const struct util_format_description *desc = util_format_description(view->format);
   if (!desc || !util_format_has_depth(desc))
      return false;
   const struct util_format_channel_description *z = &desc->channel[desc->swizzle[0]];
   if (z->type != UTIL_FORMAT_TYPE_UNSIGNED || !z->normalized)
      return false;   /* Z32F: GL does not clamp */
   const struct tessera_format_info *info =
      tessera_format_info(descriptor_format(tessera_resource(view->texture), view->format));
   /* The sampler clamps unorm textures itself (Z16); Z24 is stored and
    * sampled as Z32F, a float texture it does not clamp for. */
   return info && info->type != AGX_TEXTURE_TYPE_UNORM;
}

static void
pack_texture_common(const struct tessera_resource *r, enum pipe_format format,
                    enum pipe_texture_target target, const unsigned char *swz,
                    unsigned first_level, unsigned last_level, unsigned first_layer,
                    unsigned nr_layers, void *out)
{
   const struct tessera_format_info *info = tessera_format_info(format);
   if (!info) {
      /* Not reachable through is_format_supported; a null texture reads
       * zeros rather than garbage. */
      agx_pack(out, TEXTURE, cfg) {
         cfg.layout = AGX_LAYOUT_NULL;
         cfg.null = true;
      }
      return;
   }
   enum agx_channel s[4];
   tessera_format_texture_swizzle(format, swz, s);
   bool linear = r->layout == TESSERA_LAYOUT_LINEAR;
   agx_pack(out, TEXTURE, cfg) {
      cfg.dimension = dimension_for(target);
      cfg.layout = linear ? AGX_LAYOUT_LINEAR : AGX_LAYOUT_TWIDDLED;
      cfg.channels = info->channels;
      cfg.type = info->type;
      cfg.swizzle_r = s[0];
      cfg.swizzle_g = s[1];
      cfg.swizzle_b = s[2];
      cfg.swizzle_a = s[3];
      cfg.width = r->base.width0;
      cfg.height = (target == PIPE_TEXTURE_1D || target == PIPE_TEXTURE_1D_ARRAY)
                      ? 1 : r->base.height0;
      cfg.first_level = first_level;
      cfg.last_level = last_level;
      /* A 3D view covers every slice: its depth is the level-0 depth. */
      bool is_3d = target == PIPE_TEXTURE_3D;
      cfg.address = tessera_resource_va(r, 0, is_3d ? 0 : first_layer);
      cfg.srgb = util_format_is_srgb(format);
      if (linear) {
         /* Stored as stride - 16 (in 16-byte units by the pack helper). */
         cfg.stride = r->level[0].stride - 16;
      } else {
         cfg.unk_mipmapped = r->base.last_level > 0;
         bool cube = target == PIPE_TEXTURE_CUBE || target == PIPE_TEXTURE_CUBE_ARRAY;
         cfg.depth = is_3d ? r->base.depth0 : cube ? MAX2(nr_layers / 6, 1) : nr_layers;
         cfg.page_aligned_layers = r->page_aligned_layers;
      }
   }
}

void
tessera_pack_texture(const struct tessera_resource *r, const struct pipe_sampler_view *view,
                     void *out)
{
   unsigned char swz[4] = {view->swizzle_r, view->swizzle_g, view->swizzle_b,
                           view->swizzle_a};
   enum pipe_format format = descriptor_format(r, view->format);
   if (view->target == PIPE_BUFFER) {
      agx_pack(out, TEXTURE, cfg) {
         cfg.layout = AGX_LAYOUT_NULL;
         cfg.null = true;
      }
      return;
   }
   unsigned nr_layers = view->u.tex.last_layer - view->u.tex.first_layer + 1;
   pack_texture_common(r, format, view->target, swz, view->u.tex.first_level,
                       view->u.tex.last_level, view->u.tex.first_layer, nr_layers, out);
}

void
tessera_pack_border(const struct tessera_resource *r, const struct pipe_sampler_view *view,
                    const union pipe_color_union *colour, uint32_t out[4])
{
   if (view->target == PIPE_BUFFER) {
      memset(out, 0, 4 * sizeof(uint32_t));
      return;
   }
   tessera_format_pack_border(descriptor_format(r, view->format), colour, out);
}

void
tessera_pack_rt_texture(const struct tessera_resource *r, enum pipe_format format,
                        unsigned level, unsigned layer, void *out)
{
   /* One layer, one level: what the background program reloads. The
    * swizzle is the format's own, so components arrive as the shader's
    * R, G, B, A (as the PBE stores them). */
   pack_texture_common(r, descriptor_format(r, format), PIPE_TEXTURE_2D, NULL, level, level,
                       layer, 1, out);
}

void
tessera_pack_pbe(const struct tessera_resource *r, enum pipe_format format, unsigned level,
                 unsigned layer, void *out)
{
   format = descriptor_format(r, format);
   const struct tessera_format_info *info = tessera_format_info(format);
   if (!info) {
      agx_pack(out, PBE, cfg) {
         cfg.layout = AGX_LAYOUT_NULL;
      }
      return;
   }
   enum agx_channel s[4];
   tessera_format_pbe_swizzle(format, s);
   bool linear = r->layout == TESSERA_LAYOUT_LINEAR;
   agx_pack(out, PBE, cfg) {
      cfg.dimension = AGX_TEXTURE_DIMENSION_2D;
      cfg.layout = linear ? AGX_LAYOUT_LINEAR : AGX_LAYOUT_TWIDDLED;
      cfg.channels = info->channels;
      cfg.type = info->type;
      cfg.swizzle_r = s[0];
      cfg.swizzle_g = s[1];
      cfg.swizzle_b = s[2];
      cfg.swizzle_a = s[3];
      cfg.width = r->base.width0;
      cfg.height = r->base.height0;
      cfg.srgb = util_format_is_srgb(format);
      /* The layer's own chain: one layer, the level selected here. */
      cfg.buffer = tessera_resource_va(r, 0, layer);
      if (linear) {
         cfg.stride = r->level[0].stride - 4;   /* stored minus 4 */
      } else {
         cfg.level = level;
         cfg.levels = r->base.last_level + 1;
         cfg.unk_mipmapped = r->base.last_level > 0;
         cfg.layers = 1;
      }
   }
}

/* ---- init --------------------------------------------------------------------- */

void
tessera_init_screen_resource_functions(struct pipe_screen *pscreen)
{
   pscreen->resource_create = u_transfer_helper_resource_create;
   pscreen->resource_destroy = u_transfer_helper_resource_destroy;
   pscreen->resource_from_handle = tessera_resource_from_handle;
   pscreen->resource_get_handle = tessera_resource_get_handle;
   pscreen->resource_get_param = tessera_resource_get_param;
   pscreen->resource_create_with_modifiers = tessera_resource_create_with_modifiers;
   pscreen->query_dmabuf_modifiers = tessera_query_dmabuf_modifiers;
   pscreen->is_dmabuf_modifier_supported = tessera_is_dmabuf_modifier_supported;
   pscreen->flush_frontbuffer = tessera_flush_frontbuffer;
   pscreen->transfer_helper =
      u_transfer_helper_create(&transfer_vtbl, U_TRANSFER_HELPER_SEPARATE_Z32S8 |
                                                  U_TRANSFER_HELPER_SEPARATE_STENCIL |
                                                  U_TRANSFER_HELPER_Z24_IN_Z32F);
}

void
tessera_init_context_resource_functions(struct pipe_context *pctx)
{
   pctx->buffer_map = u_transfer_helper_transfer_map;
   pctx->buffer_unmap = u_transfer_helper_transfer_unmap;
   pctx->texture_map = u_transfer_helper_transfer_map;
   pctx->texture_unmap = u_transfer_helper_transfer_unmap;
   pctx->transfer_flush_region = u_transfer_helper_transfer_flush_region;
   pctx->buffer_subdata = u_default_buffer_subdata;
   pctx->texture_subdata = u_default_texture_subdata;
   pctx->create_surface = tessera_create_surface;
   pctx->surface_destroy = tessera_surface_destroy;
}

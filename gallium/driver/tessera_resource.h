/* SPDX-License-Identifier: MIT */
/*
 * Resources: buffers and textures as GEM BOs in the screen's VM.
 *
 * Layouts (docs/texture.md): buffers and render targets linear; sampled
 * 2D textures twiddled (Morton order in 16x16-texel tiles... see the
 * texture unit's definition in hw/tex) unless TESSERA_DEBUG=notwiddle,
 * PIPE_BIND_LINEAR, or they are also scanout/display targets. Mip levels
 * and array layers follow the texture unit's rules; level[l] gives the
 * byte offset and the (linear) row stride of each level.
 *
 * Depth/stencil: depth lives in a Z32F (or Z16 unorm) buffer in the ZLS
 * layout the render model reads; stencil in a separate S8 resource
 * (separate_stencil). Formats with depth 24 are stored as 32F; transfers
 * convert.
 */
#ifndef TESSERA_RESOURCE_H
#define TESSERA_RESOURCE_H

#include "pipe/p_context.h"
#include "pipe/p_state.h"
#include "util/u_dynarray.h"
#include "cmdstream/agx_pack.h"
#include "tessera_screen.h"

struct tessera_context;
struct sw_displaytarget;

enum tessera_layout {
   TESSERA_LAYOUT_LINEAR,
   TESSERA_LAYOUT_TWIDDLED,
};

struct tessera_resource {
   struct pipe_resource base;
   struct tessera_bo *bo;
   enum tessera_layout layout;
   enum pipe_format internal_format;  /* what the GPU sees (Z24 -> Z32F) */
   struct {
      uint64_t offset;                /* bytes from the BO start, layer 0 */
      uint32_t stride;                /* linear: bytes per row */
      uint32_t size;                  /* bytes of one layer of this level */
      uint16_t tile_w, tile_h;        /* twiddled: tile size in texels */
      uint32_t tiles_per_row;         /* twiddled */
   } level[PIPE_MAX_TEXTURE_LEVELS];
   uint64_t layer_stride;
   uint64_t size;                     /* bytes of the whole image */
   bool page_aligned_layers;          /* twiddled arrays/cubes: layer stride page aligned */
   struct tessera_resource *separate_stencil;
   struct sw_displaytarget *dt;       /* sw path scanout target, or NULL */
   uint32_t dt_stride;
   /* Batch tracking (tessera_batch.c): the batch writing this resource
    * (NULL: none in flight) and a bitmask of batch slots reading it. */
   struct tessera_batch *writer;
   uint32_t reader_mask;
   bool valid;                        /* has defined contents (clears can skip loads) */
   /* Buffers: BOs replaced by a PIPE_MAP_DISCARD_WHOLE_RESOURCE map while
    * batches still used them; freed once the resource is idle or dies. */
   struct util_dynarray zombie_bos;   /* struct tessera_bo * */
};

static inline struct tessera_resource *
tessera_resource(struct pipe_resource *p)
{
   return (struct tessera_resource *)p;
}

static inline uint64_t
tessera_resource_va(const struct tessera_resource *r, unsigned level, unsigned layer)
{
   return r->bo->va + r->level[level].offset + (uint64_t)layer * r->layer_stride;
}

/* Screen and context entry points (tessera_resource.c). */
void tessera_init_screen_resource_functions(struct pipe_screen *screen);
void tessera_init_context_resource_functions(struct pipe_context *pctx);

/* Descriptors for the texture unit and the pixel back end (24 bytes each,
 * the TEXTURE / PBE structures of agx_cmdbuf.xml). */
/* The Border record for a custom colour sampled through view (its
 * descriptor format, as tessera_pack_texture picks it). */
void tessera_pack_border(const struct tessera_resource *r,
                         const struct pipe_sampler_view *view,
                         const union pipe_color_union *colour, uint32_t out[4]);
void tessera_pack_texture(const struct tessera_resource *r,
                          const struct pipe_sampler_view *view, void *out);
void tessera_pack_pbe(const struct tessera_resource *r, enum pipe_format format,
                      unsigned level, unsigned layer, void *out);
/* The texture descriptor a background program loads a render target
 * through (same image as the PBE). */
void tessera_pack_rt_texture(const struct tessera_resource *r, enum pipe_format format,
                             unsigned level, unsigned layer, void *out);

/* Whether shadow compares through `view` must clamp the reference to
 * [0, 1] in the shader (tc_fs_key.shadow_clamp_mask): its format is a
 * fixed-point depth format (GL clamps the reference, GL 4.6 8.23.1) that
 * the texture descriptor presents as float (Z24 stored as Z32F), so the
 * sampler does not clamp it. False for NULL views and non-depth formats. */
bool tessera_view_clamps_shadow_ref(const struct pipe_sampler_view *view);

/* Format support (tessera_format.c). */
struct tessera_format_info {
   enum agx_channels channels;        /* memory layout, channels from bit/byte 0 */
   enum agx_texture_type type;
   bool valid;
};

/* The texture unit / PBE encoding of a format, NULL when it has none
 * (packed depth/stencil formats: see u_transfer_helper's split). */
const struct tessera_format_info *tessera_format_info(enum pipe_format f);
bool tessera_format_renderable(enum pipe_format f);   /* colour render target */
bool tessera_format_sampleable(enum pipe_format f);
bool tessera_format_depth_stencil(enum pipe_format f); /* ZS attachment */
/* Texture swizzle: the view's swizzle (NULL: identity) after the format's. */
void tessera_format_texture_swizzle(enum pipe_format f, const unsigned char view[4],
                                    enum agx_channel out[4]);
/* PBE swizzle: which shader component each memory channel receives. */
void tessera_format_pbe_swizzle(enum pipe_format f, enum agx_channel out[4]);
/* The Border record (agx_cmdbuf.xml) of a custom border colour sampled
 * from a texture of format f: one word per memory channel, encoded as f
 * stores it (docs/texture.md); all zero for formats without an encoding. */
void tessera_format_pack_border(enum pipe_format f, const union pipe_color_union *colour,
                                uint32_t out[4]);

/* Present a resource on the sw path: copy into its display target. */
void tessera_flush_frontbuffer(struct pipe_screen *screen, struct pipe_context *pctx,
                               struct pipe_resource *resource, unsigned level,
                               unsigned layer, void *context_private,
                               struct pipe_box *sub_box);

/* Hazards, implemented by the batch code (tessera_batch.c): before the CPU
 * reads a resource, flush and wait for the batch writing it; before it
 * writes, also for the batches reading it. */
void tessera_flush_writer(struct tessera_context *ctx, struct tessera_resource *r,
                          const char *reason);
void tessera_flush_readers_and_writer(struct tessera_context *ctx,
                                      struct tessera_resource *r, const char *reason);

#endif

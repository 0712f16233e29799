/* SPDX-License-Identifier: MIT */
/*
 * Descriptor decoding: texture, sampler (+ border) and PBE descriptors into
 * the structs the per-texel paths use.  Encodings of the size fields follow
 * the hardware as Mesa programs it: a linear texture's stride is stored
 * minus 16 bytes, a linear PBE's minus 4, linear layer strides minus 128;
 * a tiled texture's depth counts cubes (6 faces each) for cube views.
 */
#include <stdio.h>
#include <string.h>

#include "cmdstream/agx_image_layout.h"
#include "cmdstream/agx_pack.h"
#include "hw/tex/hw_tex.h"

#define ERR(...) do { if (err) snprintf(err, err_size, __VA_ARGS__); return false; } while (0)

static bool
is_ms(unsigned dim)
{
   return dim == AGX_TEXTURE_DIMENSION_2D_MS || dim == AGX_TEXTURE_DIMENSION_2D_ARRAY_MS;
}

static bool
is_cube(unsigned dim)
{
   return dim == AGX_TEXTURE_DIMENSION_CUBE || dim == AGX_TEXTURE_DIMENSION_CUBE_ARRAY;
}

/* Shared by textures and PBEs: builds the layout of the whole image. */
static bool
make_layout(struct hw_tex_layout *l, bool linear, unsigned block, uint32_t w,
            uint32_t h, uint32_t layers, unsigned levels, bool page_aligned,
            uint32_t stride, uint64_t layer_stride, char *err, size_t err_size)
{
   if (linear) {
      if (!hw_tex_layout_linear(l, block, w, h, layers, stride, layer_stride))
         ERR("linear image %ux%u x%u layers: stride %u / layer stride %llu too small",
             w, h, layers, stride, (unsigned long long)layer_stride);
      return true;
   }
   if (!hw_tex_layout_twiddled(l, block, w, h, layers, levels, page_aligned))
      ERR("twiddled image %ux%u x%u layers with %u-byte texels not supported",
          w, h, layers, block);
   return true;
}

/*
 * Decoded-descriptor caches.  Every texture instruction of every SIMD
 * group decodes its descriptors again (the instruction's one-entry cache
 * lives only for that execution), and building a twiddled layout
 * (agx_image_layout_twiddled) per group was a visible share of a
 * texture-heavy trace.  Decoding is a pure function of the 24 descriptor
 * bytes, so a small per-thread table keyed by those bytes returns the very
 * same struct; only successful decodes are kept, so errors and their
 * messages come from the decoder every time.
 */
#define DESC_CACHE_SLOTS 16

static unsigned
desc_slot(const uint8_t d[HW_TEX_DESC_BYTES])
{
   uint64_t w[3];
   memcpy(w, d, sizeof(w));
   uint64_t h = (w[0] ^ (w[1] * 0x9e3779b97f4a7c15ull) ^ (w[2] * 0xc2b2ae3d27d4eb4full));
   h ^= h >> 29;
   h *= 0xbf58476d1ce4e5b9ull;
   return (unsigned)(h >> 60) % DESC_CACHE_SLOTS;
}

_Static_assert(HW_TEX_DESC_BYTES == 24, "desc_slot hashes three words");

static _Thread_local struct {
   bool valid;
   uint8_t desc[HW_TEX_DESC_BYTES];
   struct hw_tex_view view;
} view_cache[DESC_CACHE_SLOTS];

static _Thread_local struct {
   bool valid;
   uint8_t desc[HW_TEX_DESC_BYTES];
   struct hw_tex_image image;
} image_cache[DESC_CACHE_SLOTS];

static bool view_decode(struct hw_tex_view *v, const uint8_t desc[HW_TEX_DESC_BYTES],
                        char *err, size_t err_size);
static bool image_decode(struct hw_tex_image *im, const uint8_t desc[HW_TEX_DESC_BYTES],
                         char *err, size_t err_size);

bool
hw_tex_view_decode(struct hw_tex_view *v, const uint8_t desc[HW_TEX_DESC_BYTES],
                   char *err, size_t err_size)
{
   unsigned i = desc_slot(desc);
   if (view_cache[i].valid && memcmp(view_cache[i].desc, desc, HW_TEX_DESC_BYTES) == 0) {
      *v = view_cache[i].view;
      return true;
   }
   if (!view_decode(v, desc, err, err_size))
      return false;
   memcpy(view_cache[i].desc, desc, HW_TEX_DESC_BYTES);
   view_cache[i].view = *v;
   view_cache[i].valid = true;
   return true;
}

bool
hw_tex_image_decode(struct hw_tex_image *im, const uint8_t desc[HW_TEX_DESC_BYTES],
                    char *err, size_t err_size)
{
   unsigned i = desc_slot(desc);
   if (image_cache[i].valid && memcmp(image_cache[i].desc, desc, HW_TEX_DESC_BYTES) == 0) {
      *im = image_cache[i].image;
      return true;
   }
   if (!image_decode(im, desc, err, err_size))
      return false;
   memcpy(image_cache[i].desc, desc, HW_TEX_DESC_BYTES);
   image_cache[i].image = *im;
   image_cache[i].valid = true;
   return true;
}

static bool
view_decode(struct hw_tex_view *v, const uint8_t desc[HW_TEX_DESC_BYTES],
            char *err, size_t err_size)
{
   struct agx_texture t;
   /* Unknown bits are ignored, as the hardware would. */
   (void)agx_texture_unpack(desc, &t);
   memset(v, 0, sizeof(*v));
   v->dim = (uint8_t)t.dimension;
   if (t.layout == AGX_LAYOUT_NULL || t.null) {
      v->null = true;
      return true;
   }
   /* Compressed (lossless): see HW_TEX_COMPRESSION in hw_tex.h. */
   if (t.dimension > AGX_TEXTURE_DIMENSION_2D_ARRAY_MS)
      ERR("texture dimension %u invalid", (unsigned)t.dimension);
   if (!hw_tex_format_get(t.channels, t.type, t.srgb, &v->fmt, err, err_size))
      return false;
   v->samples = is_ms(t.dimension) ? (t.samples ? 4 : 2) : 1;
   v->swizzle[0] = (uint8_t)t.swizzle_r;
   v->swizzle[1] = (uint8_t)t.swizzle_g;
   v->swizzle[2] = (uint8_t)t.swizzle_b;
   v->swizzle[3] = (uint8_t)t.swizzle_a;
   for (unsigned i = 0; i < 4; i++)
      if (v->swizzle[i] > AGX_CHANNEL_0)
         ERR("texture swizzle %u invalid", v->swizzle[i]);
   v->first_level = (uint8_t)t.first_level;
   v->last_level = (uint8_t)t.last_level;
   v->base = t.address;

   bool linear = t.layout == AGX_LAYOUT_LINEAR;
   uint32_t height = t.height;
   if (t.dimension == AGX_TEXTURE_DIMENSION_1D || t.dimension == AGX_TEXTURE_DIMENSION_1D_ARRAY)
      height = 1;
   uint32_t layers = 1;
   uint64_t layer_stride = 0;
   if (linear) {
      if (t.extended) {
         layers = t.depth_linear;
         layer_stride = t.layer_stride_linear + HW_TEX_CACHELINE;
      }
   } else {
      layers = t.depth * (is_cube(t.dimension) ? 6 : 1);
   }
   v->layers = layers;
   unsigned levels = 1;
   if (!linear && (t.unk_mipmapped || t.last_level > 0))
      levels = agx_image_full_levels(t.width, height);
   if (t.first_level > t.last_level || t.last_level >= levels)
      ERR("texture levels %u..%u outside the %u-level chain", t.first_level,
          t.last_level, levels);
   if (v->fmt.packing == HW_TEX_PACK_BLOCK) {
      /* Mesa lays block-compressed images out twiddled only (agx_pipe.c:
       * "Block compression not allowed with linear"; ail forbids lossless
       * compression and multisampling of them): anything else would be a
       * guess at the hardware. */
      if (t.layout != AGX_LAYOUT_TWIDDLED)
         ERR("texture Layout %s with block-compressed Channels %s not modelled",
             agx_layout_as_str((enum agx_layout)t.layout),
             agx_channels_as_str((enum agx_channels)t.channels));
      if (v->samples > 1)
         ERR("texture Dimension %u (multisampled) with block-compressed Channels",
             (unsigned)t.dimension);
      if (!hw_tex_layout_twiddled_blocks(&v->layout, v->fmt.bytes, v->fmt.block_w,
                                         v->fmt.block_h, t.width, height, layers, levels,
                                         t.page_aligned_layers))
         ERR("twiddled block-compressed image %ux%u x%u layers not supported", t.width,
             height, layers);
      return true;
   }
   return make_layout(&v->layout, linear, v->fmt.bytes * v->samples, t.width, height,
                      layers, levels, t.page_aligned_layers, t.stride + 16,
                      layer_stride, err, err_size);
}

/* Samplers likewise, keyed by their 8 bytes and the border record given
 * (or its absence). */
static _Thread_local struct {
   bool valid, has_border;
   uint8_t desc[HW_TEX_SAMPLER_BYTES];
   uint8_t border[HW_TEX_BORDER_BYTES];
   struct hw_tex_sampler sampler;
} sampler_cache[DESC_CACHE_SLOTS];

static bool sampler_decode(struct hw_tex_sampler *s, const uint8_t desc[HW_TEX_SAMPLER_BYTES],
                           const uint8_t *border, char *err, size_t err_size);

bool
hw_tex_sampler_decode(struct hw_tex_sampler *s, const uint8_t desc[HW_TEX_SAMPLER_BYTES],
                      const uint8_t *border, char *err, size_t err_size)
{
   uint64_t w;
   memcpy(&w, desc, sizeof(w));
   w *= 0x9e3779b97f4a7c15ull;
   unsigned i = (unsigned)(w >> 60) % DESC_CACHE_SLOTS;
   if (sampler_cache[i].valid && sampler_cache[i].has_border == (border != NULL) &&
       memcmp(sampler_cache[i].desc, desc, HW_TEX_SAMPLER_BYTES) == 0 &&
       (!border || memcmp(sampler_cache[i].border, border, HW_TEX_BORDER_BYTES) == 0)) {
      *s = sampler_cache[i].sampler;
      return true;
   }
   if (!sampler_decode(s, desc, border, err, err_size))
      return false;
   memcpy(sampler_cache[i].desc, desc, HW_TEX_SAMPLER_BYTES);
   sampler_cache[i].has_border = border != NULL;
   if (border)
      memcpy(sampler_cache[i].border, border, HW_TEX_BORDER_BYTES);
   sampler_cache[i].sampler = *s;
   sampler_cache[i].valid = true;
   return true;
}

static bool
sampler_decode(struct hw_tex_sampler *s, const uint8_t desc[HW_TEX_SAMPLER_BYTES],
               const uint8_t *border, char *err, size_t err_size)
{
   struct agx_sampler d;
   (void)agx_sampler_unpack(desc, &d);
   memset(s, 0, sizeof(*s));
   s->min_lod = d.min_lod;
   s->max_lod = d.max_lod;
   s->mag = (uint8_t)d.magnify;
   s->min = (uint8_t)d.minify;
   s->mip = (uint8_t)d.mip_filter;
   s->wrap[0] = (uint8_t)d.wrap_s;
   s->wrap[1] = (uint8_t)d.wrap_t;
   s->wrap[2] = (uint8_t)d.wrap_r;
   s->pixel_coords = d.pixel_coordinates;
   s->compare_enable = d.compare_enable;
   s->compare = (uint8_t)d.compare_func;
   s->border = (uint8_t)d.border_colour;
   s->seamful = d.seamful_cube_maps;
   if (s->mag > AGX_FILTER_BICUBIC || s->min > AGX_FILTER_BICUBIC ||
       s->mip > AGX_MIP_FILTER_LINEAR)
      ERR("sampler filter mag %u min %u mip %u invalid", s->mag, s->min, s->mip);
   for (unsigned i = 0; i < 3; i++)
      if (s->wrap[i] > AGX_WRAP_MIRRORED_CLAMP_TO_EDGE)
         ERR("sampler wrap mode %u invalid", s->wrap[i]);
   if (s->border == AGX_BORDER_COLOUR_CUSTOM) {
      if (!border)
         ERR("custom border colour without a Border record");
      struct agx_border b;
      (void)agx_border_unpack(border, &b);
      s->border_raw[0] = b.channel_0;
      s->border_raw[1] = b.channel_1;
      s->border_raw[2] = b.channel_2;
      s->border_raw[3] = b.channel_3;
   }
   return true;
}

static bool
image_decode(struct hw_tex_image *im, const uint8_t desc[HW_TEX_DESC_BYTES],
             char *err, size_t err_size)
{
   struct agx_pbe p;
   (void)agx_pbe_unpack(desc, &p);
   memset(im, 0, sizeof(*im));
   im->dim = (uint8_t)p.dimension;
   if (p.layout == AGX_LAYOUT_NULL)
      ERR("image write through a null PBE descriptor");
   /* Compressed (lossless): see HW_TEX_COMPRESSION in hw_tex.h. */
   if (!hw_tex_format_get(p.channels, p.type, p.srgb, &im->fmt, err, err_size))
      return false;
   if (im->fmt.packing == HW_TEX_PACK_BLOCK)
      ERR("PBE Channels %s: block-compressed formats are not renderable",
          agx_channels_as_str((enum agx_channels)p.channels));
   im->samples = is_ms(p.dimension) ? (p.samples ? 4 : 2) : 1;
   im->swizzle[0] = (uint8_t)p.swizzle_r;
   im->swizzle[1] = (uint8_t)p.swizzle_g;
   im->swizzle[2] = (uint8_t)p.swizzle_b;
   im->swizzle[3] = (uint8_t)p.swizzle_a;
   im->level = (uint8_t)p.level;
   im->base = p.buffer;
   bool linear = p.layout == AGX_LAYOUT_LINEAR;
   uint32_t height = p.height;
   if (p.dimension == AGX_TEXTURE_DIMENSION_1D || p.dimension == AGX_TEXTURE_DIMENSION_1D_ARRAY)
      height = 1;
   uint32_t layers = 1;
   uint64_t layer_stride = 0;
   unsigned levels = 1;
   if (linear) {
      if (p.extended) {
         layers = p.depth_linear;
         layer_stride = p.layer_stride_linear + HW_TEX_CACHELINE;
      }
   } else {
      layers = p.layers;
      if (p.unk_mipmapped || p.levels > 1)
         levels = agx_image_full_levels(p.width, height);
   }
   if (p.level >= levels)
      ERR("PBE level %u outside the %u-level chain", p.level, levels);
   return make_layout(&im->layout, linear, im->fmt.bytes * im->samples, p.width, height,
                      layers, levels, p.page_aligned_layers, p.stride + 4, layer_stride,
                      err, err_size);
}

unsigned
hw_tex_sampler_stride(unsigned sampler_states)
{
   return sampler_states == AGX_SAMPLER_STATES_8_EXTENDED ||
                sampler_states == AGX_SAMPLER_STATES_16_EXTENDED
             ? HW_TEX_SAMPLER_EXTENDED_BYTES
             : HW_TEX_SAMPLER_BYTES;
}

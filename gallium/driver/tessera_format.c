/* SPDX-License-Identifier: MIT */
/*
 * Pipe formats the texture unit and the pixel back end understand
 * (docs/texture.md "Formats": the Channels x Type pairs the hardware
 * decodes). Component order: the hardware packs R, G, B, A from bit 0 /
 * byte 0, which is exactly the order in which a Gallium format description
 * lists its channels, so a pipe format maps to (Channels, Type) of its
 * memory layout plus the description's swizzle: BGRA8 is R8G8B8A8 read with
 * a B, G, R, A swizzle, L8 is R8 read as R, R, R, 1, and so on.
 */
#include "util/format/format_utils.h"
#include "util/format/u_format.h"
#include "util/half_float.h"
#include "util/u_math.h"

#include "compiler/tc_compiler.h"
#include "tessera_resource.h"

#define F(pf, ch, ty) \
   [PIPE_FORMAT_##pf] = {AGX_CHANNELS_##ch, AGX_TEXTURE_TYPE_##ty, true}

static const struct tessera_format_info formats[PIPE_FORMAT_COUNT] = {
   F(R8G8B8A8_UNORM, R8G8B8A8, UNORM),
   F(R8G8B8A8_SNORM, R8G8B8A8, SNORM),
   F(R8G8B8A8_UINT, R8G8B8A8, UINT),
   F(R8G8B8A8_SINT, R8G8B8A8, SINT),
   F(R8G8B8A8_SRGB, R8G8B8A8, UNORM),
   F(B8G8R8A8_UNORM, R8G8B8A8, UNORM),
   F(B8G8R8A8_SRGB, R8G8B8A8, UNORM),
   F(R8G8B8X8_UNORM, R8G8B8A8, UNORM),
   F(B8G8R8X8_UNORM, R8G8B8A8, UNORM),
   F(A8B8G8R8_UNORM, R8G8B8A8, UNORM),
   F(X8B8G8R8_UNORM, R8G8B8A8, UNORM),
   F(A8R8G8B8_UNORM, R8G8B8A8, UNORM),
   F(X8R8G8B8_UNORM, R8G8B8A8, UNORM),

   F(R8_UNORM, R8, UNORM),
   F(R8_SNORM, R8, SNORM),
   F(R8_UINT, R8, UINT),
   F(R8_SINT, R8, SINT),
   F(A8_UNORM, R8, UNORM),
   F(L8_UNORM, R8, UNORM),
   F(I8_UNORM, R8, UNORM),
   F(S8_UINT, R8, UINT),

   F(R8G8_UNORM, R8G8, UNORM),
   F(R8G8_SNORM, R8G8, SNORM),
   F(R8G8_UINT, R8G8, UINT),
   F(R8G8_SINT, R8G8, SINT),
   F(L8A8_UNORM, R8G8, UNORM),

   F(R16_UNORM, R16, UNORM),
   F(R16_SNORM, R16, SNORM),
   F(R16_UINT, R16, UINT),
   F(R16_SINT, R16, SINT),
   F(R16_FLOAT, R16, FLOAT),
   F(Z16_UNORM, R16, UNORM),
   F(R16G16_UNORM, R16G16, UNORM),
   F(R16G16_SNORM, R16G16, SNORM),
   F(R16G16_UINT, R16G16, UINT),
   F(R16G16_SINT, R16G16, SINT),
   F(R16G16_FLOAT, R16G16, FLOAT),
   F(R16G16B16A16_UNORM, R16G16B16A16, UNORM),
   F(R16G16B16A16_SNORM, R16G16B16A16, SNORM),
   F(R16G16B16A16_UINT, R16G16B16A16, UINT),
   F(R16G16B16A16_SINT, R16G16B16A16, SINT),
   F(R16G16B16A16_FLOAT, R16G16B16A16, FLOAT),
   F(R16G16B16X16_FLOAT, R16G16B16A16, FLOAT),

   F(R32_UINT, R32, UINT),
   F(R32_SINT, R32, SINT),
   F(R32_FLOAT, R32, FLOAT),
   F(Z32_FLOAT, R32, FLOAT),
   F(R32G32_UINT, R32G32, UINT),
   F(R32G32_SINT, R32G32, SINT),
   F(R32G32_FLOAT, R32G32, FLOAT),
   F(R32G32B32A32_UINT, R32G32B32A32, UINT),
   F(R32G32B32A32_SINT, R32G32B32A32, SINT),
   F(R32G32B32A32_FLOAT, R32G32B32A32, FLOAT),
   F(R32G32B32X32_FLOAT, R32G32B32A32, FLOAT),

   F(R5G6B5_UNORM, R5G6B5, UNORM),
   F(B5G6R5_UNORM, R5G6B5, UNORM),
   F(R4G4B4A4_UNORM, R4G4B4A4, UNORM),
   F(B4G4R4A4_UNORM, R4G4B4A4, UNORM),
   F(A4B4G4R4_UNORM, R4G4B4A4, UNORM),
   F(R5G5B5A1_UNORM, R5G5B5A1, UNORM),
   F(B5G5R5A1_UNORM, R5G5B5A1, UNORM),
   F(B5G5R5X1_UNORM, R5G5B5A1, UNORM),

   F(R10G10B10A2_UNORM, R10G10B10A2, UNORM),
   F(R10G10B10A2_UINT, R10G10B10A2, UINT),
   F(B10G10R10A2_UNORM, R10G10B10A2, UNORM),
   F(R10G10B10X2_UNORM, R10G10B10A2, UNORM),
   F(R11G11B10_FLOAT, R11G11B10, FLOAT),
   F(R9G9B9E5_FLOAT, R9G9B9E5, FLOAT),
};

const struct tessera_format_info *
tessera_format_info(enum pipe_format f)
{
   if ((unsigned)f >= PIPE_FORMAT_COUNT || !formats[f].valid)
      return NULL;
   return &formats[f];
}

static enum agx_channel
to_agx_channel(unsigned s)
{
   switch (s) {
   case PIPE_SWIZZLE_X: return AGX_CHANNEL_R;
   case PIPE_SWIZZLE_Y: return AGX_CHANNEL_G;
   case PIPE_SWIZZLE_Z: return AGX_CHANNEL_B;
   case PIPE_SWIZZLE_W: return AGX_CHANNEL_A;
   case PIPE_SWIZZLE_0: return AGX_CHANNEL_0;
   default:             return AGX_CHANNEL_1;
   }
}

void
tessera_format_texture_swizzle(enum pipe_format f, const unsigned char view[4],
                               enum agx_channel out[4])
{
   const struct util_format_description *desc = util_format_description(f);
   static const unsigned char identity[4] = {PIPE_SWIZZLE_X, PIPE_SWIZZLE_Y,
                                             PIPE_SWIZZLE_Z, PIPE_SWIZZLE_W};
   unsigned char fmt_swz[4];
   memcpy(fmt_swz, desc->swizzle, 4);
   if (util_format_is_depth_or_stencil(f)) {
      /* Depth reads as (d, 0, 0, 1) (GL's DEPTH_TEXTURE_MODE is applied by
       * st through the view swizzle); stencil formats are R8 uint. */
      fmt_swz[0] = PIPE_SWIZZLE_X;
      fmt_swz[1] = fmt_swz[2] = PIPE_SWIZZLE_0;
      fmt_swz[3] = PIPE_SWIZZLE_1;
   }
   unsigned char composed[4];
   util_format_compose_swizzles(fmt_swz, view ? view : identity, composed);
   for (unsigned i = 0; i < 4; i++)
      out[i] = to_agx_channel(composed[i]);
}

void
tessera_format_pbe_swizzle(enum pipe_format f, enum agx_channel out[4])
{
   /* The PBE routes source component swizzle[c] to memory channel c: the
    * inverse of the description's (memory channel -> component) swizzle.
    * Channels nothing maps to (X padding) take alpha. */
   const struct util_format_description *desc = util_format_description(f);
   for (unsigned c = 0; c < 4; c++)
      out[c] = AGX_CHANNEL_A;
   for (int comp = 3; comp >= 0; comp--) {
      unsigned ch = desc->swizzle[comp];
      if (ch <= PIPE_SWIZZLE_W)
         out[ch] = (enum agx_channel)comp;
   }
   /* Luminance/intensity formats swizzle R into several components; the
    * loop above (components from A down to R) leaves channel 0 = R. */
}

bool
tessera_format_sampleable(enum pipe_format f)
{
   if (tessera_format_info(f))
      return true;
   /* Depth/stencil formats u_transfer_helper splits into Z32F + S8 (or
    * stores Z24 as Z32F): sampled through the depth part. */
   switch (f) {
   case PIPE_FORMAT_Z24X8_UNORM:
   case PIPE_FORMAT_Z24_UNORM_S8_UINT:
   case PIPE_FORMAT_Z32_FLOAT_S8X24_UINT:
      return true;
   default:
      return false;
   }
}

bool
tessera_format_renderable(enum pipe_format f)
{
   const struct tessera_format_info *info = tessera_format_info(f);
   if (!info || util_format_is_depth_or_stencil(f))
      return false;
   /* Shared-exponent colour is not colour-renderable in GL either. */
   if (info->channels == AGX_CHANNELS_R9G9B9E5)
      return false;
   /* A colour target needs a tilebuffer format the fragment shader stores
    * with and the end-of-tile block store converts from. */
   return tc_tib_format_for(f) != TC_TIB_NONE;
}

bool
tessera_format_depth_stencil(enum pipe_format f)
{
   switch (f) {
   case PIPE_FORMAT_Z16_UNORM:
   case PIPE_FORMAT_Z32_FLOAT:
   case PIPE_FORMAT_Z24X8_UNORM:
   case PIPE_FORMAT_Z24_UNORM_S8_UINT:
   case PIPE_FORMAT_Z32_FLOAT_S8X24_UINT:
   case PIPE_FORMAT_S8_UINT:
      return true;
   default:
      return false;
   }
}

/* One Border word: the colour component as memory channel c of the format
 * stores it (agx_pack_border): normalized at the channel's width (sRGB
 * colour channels as 12-bit unorm of the linear value), floats as fp32 for
 * 32-bit channels and fp16 otherwise, integers clamped to the channel's
 * range; padding (X) channels read 0. */
static uint32_t
pack_border_channel(const struct util_format_description *desc, unsigned c, uint32_t v)
{
   const struct util_format_channel_description *ch = &desc->channel[c];
   unsigned bits = ch->size;
   bool srgb = desc->colorspace == UTIL_FORMAT_COLORSPACE_SRGB && c < 3;
   switch (ch->type) {
   case UTIL_FORMAT_TYPE_UNSIGNED:
      if (ch->normalized)
         return _mesa_float_to_unorm(uif(v), srgb ? 12 : bits);
      return bits >= 32 ? v : MIN2(v, (1u << bits) - 1);
   case UTIL_FORMAT_TYPE_SIGNED:
      if (ch->normalized)
         return (uint32_t)_mesa_float_to_snorm(uif(v), bits) & ((1u << bits) - 1);
      if (bits >= 32)
         return v;
      return (uint32_t)CLAMP((int32_t)v, -(1 << (bits - 1)), (1 << (bits - 1)) - 1);
   case UTIL_FORMAT_TYPE_FLOAT:
      return bits == 32 ? v : _mesa_float_to_half(uif(v));
   default:
      return 0;
   }
}

void
tessera_format_pack_border(enum pipe_format f, const union pipe_color_union *colour,
                           uint32_t out[4])
{
   memset(out, 0, 4 * sizeof(uint32_t));
   if (!tessera_format_info(f))
      return;
   const struct util_format_description *desc = util_format_description(f);
   /* Memory channel c holds the colour component whose description
    * swizzle names c (the inverse swizzle, as for the PBE): B of BGRA8 in
    * channel 0, alpha of A8 in channel 0. Components A down to R, so
    * luminance formats keep R where several components share a channel. */
   int comp_of[4] = {-1, -1, -1, -1};
   for (int comp = 3; comp >= 0; comp--) {
      unsigned ch = desc->swizzle[comp];
      if (ch <= PIPE_SWIZZLE_W)
         comp_of[ch] = comp;
   }
   for (unsigned c = 0; c < desc->nr_channels && c < 4; c++)
      if (comp_of[c] >= 0)
         out[c] = pack_border_channel(desc, c, colour->ui[comp_of[c]]);
}

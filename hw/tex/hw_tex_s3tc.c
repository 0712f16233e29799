/* SPDX-License-Identifier: MIT */
/*
 * S3TC (BC1-3) and RGTC (BC4/5) texel decoding (Khronos Data Format
 * Specification 1.3, "S3TC" and "RGTC" chapters); contract and precision
 * choices in hw_tex_compressed.h.  Blocks are little endian; texel (x, y)
 * is index 4y + x (row-major, unlike ETC2).
 */
#include "hw/tex/hw_tex_compressed.h"

static uint32_t
le16(const uint8_t *p)
{
   return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

static uint32_t
le32(const uint8_t *p)
{
   return le16(p) | le16(p + 2) << 16;
}

static void
rgb565(uint32_t c, int rgb[3])
{
   int r = (c >> 11) & 31, g = (c >> 5) & 63, b = c & 31;
   rgb[0] = r << 3 | r >> 2;
   rgb[1] = g << 2 | g >> 4;
   rgb[2] = b << 3 | b >> 2;
}

/* The colour block of BC1-3 (8 bytes); four_colour forces the 4-colour
 * mode (BC2/BC3 ignore the endpoint order).  rgba in 0..255. */
static void
bc1_colour(const uint8_t *b, unsigned i, bool four_colour, int rgba[4])
{
   uint32_t c0 = le16(b), c1 = le16(b + 2);
   unsigned idx = (le32(b + 4) >> (2 * i)) & 3;
   int e0[3], e1[3];
   rgb565(c0, e0);
   rgb565(c1, e1);
   rgba[3] = 255;
   for (unsigned k = 0; k < 3; k++) {
      switch (idx) {
      case 0: rgba[k] = e0[k]; break;
      case 1: rgba[k] = e1[k]; break;
      case 2:
         rgba[k] = (four_colour || c0 > c1) ? (2 * e0[k] + e1[k] + 1) / 3
                                            : (e0[k] + e1[k] + 1) / 2;
         break;
      default:
         if (four_colour || c0 > c1) {
            rgba[k] = (e0[k] + 2 * e1[k] + 1) / 3;
         } else {
            rgba[k] = 0;   /* transparent black */
            rgba[3] = 0;
         }
         break;
      }
   }
}

/* One BC4 channel block (8 bytes): as a float, unorm or snorm. */
static float
bc4_channel(const uint8_t *b, unsigned i, bool snorm)
{
   uint64_t bits = 0;
   for (unsigned k = 0; k < 6; k++)
      bits |= (uint64_t)b[2 + k] << (8 * k);
   unsigned idx = (unsigned)(bits >> (3 * i)) & 7;
   float r0, r1, lo, hi;
   if (snorm) {
      int s0 = (int8_t)b[0], s1 = (int8_t)b[1];
      r0 = (float)(s0 == -128 ? -127 : s0) / 127.0f;
      r1 = (float)(s1 == -128 ? -127 : s1) / 127.0f;
      lo = -1.0f;
      hi = 1.0f;
   } else {
      r0 = (float)b[0] / 255.0f;
      r1 = (float)b[1] / 255.0f;
      lo = 0.0f;
      hi = 1.0f;
   }
   /* The 8-value mode is chosen on the stored bytes' order (as signed
    * values for snorm). */
   bool eight = snorm ? (int8_t)b[0] > (int8_t)b[1] : b[0] > b[1];
   if (idx == 0)
      return r0;
   if (idx == 1)
      return r1;
   if (eight)
      return ((float)(8 - idx) * r0 + (float)(idx - 1) * r1) / 7.0f;
   if (idx == 6)
      return lo;
   if (idx == 7)
      return hi;
   return ((float)(6 - idx) * r0 + (float)(idx - 1) * r1) / 5.0f;
}

void
hw_tex_s3tc_texel(enum hw_tex_block_kind kind, bool snorm, const uint8_t *blk, unsigned x,
                  unsigned y, float out[4])
{
   unsigned i = 4 * y + x;
   int c[4];
   out[0] = out[1] = out[2] = 0.0f;
   out[3] = 1.0f;
   switch (kind) {
   case HW_TEX_BLOCK_BC1:
      bc1_colour(blk, i, false, c);
      break;
   case HW_TEX_BLOCK_BC2:
      bc1_colour(blk + 8, i, true, c);
      c[3] = (int)((le32(blk + 4 * (i / 8)) >> (4 * (i % 8))) & 15) * 17;
      break;
   case HW_TEX_BLOCK_BC3:
      bc1_colour(blk + 8, i, true, c);
      for (unsigned k = 0; k < 3; k++)
         out[k] = (float)c[k] / 255.0f;
      out[3] = bc4_channel(blk, i, false);
      return;
   case HW_TEX_BLOCK_BC5:
      out[1] = bc4_channel(blk + 8, i, snorm);
      /* fallthrough */
   case HW_TEX_BLOCK_BC4:
      out[0] = bc4_channel(blk, i, snorm);
      return;
   default:
      return;
   }
   for (unsigned k = 0; k < 4; k++)
      out[k] = (float)c[k] / 255.0f;
}

/* SPDX-License-Identifier: MIT */
/*
 * ETC2 and EAC texel decoding (Khronos Data Format Specification 1.3,
 * "ETC2 compressed texture image formats"); contract in hw_tex_compressed.h.
 *
 * Blocks are big-endian 64-bit words.  Texel (x, y) is pixel index
 * i = 4x + y (column-major), whose index bits are bit i (LSB) and bit
 * 16 + i (MSB) of the low word for ETC2 colour, and bits 47-3i..45-3i of
 * the 48 index bits for EAC.
 */
#include "hw/tex/hw_tex_compressed.h"

static const int etc_modifier[8][2] = {
   { 2, 8 }, { 5, 17 }, { 9, 29 }, { 13, 42 },
   { 18, 60 }, { 24, 80 }, { 33, 106 }, { 47, 183 },
};

static const int etc_distance[8] = { 3, 6, 11, 16, 23, 32, 41, 64 };

static const int eac_modifier[16][8] = {
   { -3, -6, -9, -15, 2, 5, 8, 14 },  { -3, -7, -10, -13, 2, 6, 9, 12 },
   { -2, -5, -8, -13, 1, 4, 7, 12 },  { -2, -4, -6, -13, 1, 3, 5, 12 },
   { -3, -6, -8, -12, 2, 5, 7, 11 },  { -3, -7, -9, -11, 2, 6, 8, 10 },
   { -4, -7, -8, -11, 3, 6, 7, 10 },  { -3, -5, -8, -11, 2, 4, 7, 10 },
   { -2, -6, -8, -10, 1, 5, 7, 9 },   { -2, -5, -8, -10, 1, 4, 7, 9 },
   { -2, -4, -8, -10, 1, 3, 7, 9 },   { -2, -5, -7, -10, 1, 4, 6, 9 },
   { -3, -4, -7, -10, 2, 3, 6, 9 },   { -1, -2, -3, -10, 0, 1, 2, 9 },
   { -4, -6, -8, -9, 3, 5, 7, 8 },    { -3, -5, -7, -9, 2, 4, 6, 8 },
};

unsigned
hw_tex_block_bytes(enum hw_tex_block_kind kind)
{
   switch (kind) {
   case HW_TEX_BLOCK_ETC2_RGBA8:
   case HW_TEX_BLOCK_EAC_RG11:
   case HW_TEX_BLOCK_BC2:
   case HW_TEX_BLOCK_BC3:
   case HW_TEX_BLOCK_BC5:
   case HW_TEX_BLOCK_ASTC:
      return 16;
   default:
      return 8;
   }
}

static int
clamp255(int v)
{
   return v < 0 ? 0 : v > 255 ? 255 : v;
}

static int
ext4(int v)
{
   return v << 4 | v;
}

static int
ext5(int v)
{
   return v << 3 | v >> 2;
}

static int
sext3(int v)
{
   return v >= 4 ? v - 8 : v;
}

/* ETC2 RGB block (also the colour half of RGBA8, and RGB8A1 with
 * punchthrough set): rgba in 0..255. */
static void
etc2_rgb(const uint8_t *b, unsigned x, unsigned y, bool punchthrough, int rgba[4])
{
   unsigned i = 4 * x + y;
   uint32_t lo = (uint32_t)b[4] << 24 | (uint32_t)b[5] << 16 | (uint32_t)b[6] << 8 | b[7];
   unsigned idx = ((lo >> (16 + i)) & 1) << 1 | ((lo >> i) & 1);
   /* RGB8A1 reuses the diff bit as "opaque" and always uses the
    * differential encoding. */
   bool diff = punchthrough || (b[3] & 2);
   bool opaque = !punchthrough || (b[3] & 2);
   bool flip = b[3] & 1;
   rgba[3] = 255;

   if (diff) {
      int r = b[0] >> 3, g = b[1] >> 3, bl = b[2] >> 3;
      int r2 = r + sext3(b[0] & 7), g2 = g + sext3(b[1] & 7), b2 = bl + sext3(b[2] & 7);
      if (r2 < 0 || r2 > 31) {
         /* T mode */
         int c[2][3] = {
            { ext4(((b[0] >> 3) & 3) << 2 | (b[0] & 3)), ext4(b[1] >> 4), ext4(b[1] & 15) },
            { ext4(b[2] >> 4), ext4(b[2] & 15), ext4(b[3] >> 4) },
         };
         int d = etc_distance[((b[3] >> 2) & 3) << 1 | (b[3] & 1)];
         if (!opaque && idx == 2) {
            rgba[0] = rgba[1] = rgba[2] = rgba[3] = 0;
            return;
         }
         for (unsigned k = 0; k < 3; k++) {
            int v;
            switch (idx) {
            case 0: v = c[0][k]; break;
            case 1: v = c[1][k] + d; break;
            case 2: v = c[1][k]; break;
            default: v = c[1][k] - d; break;
            }
            rgba[k] = clamp255(v);
         }
         return;
      }
      if (g2 < 0 || g2 > 31) {
         /* H mode */
         int r1 = (b[0] >> 3) & 15;
         int g1 = (b[0] & 7) << 1 | ((b[1] >> 4) & 1);
         int b1 = (b[1] & 8) | (b[1] & 3) << 1 | b[2] >> 7;
         int rr2 = (b[2] >> 3) & 15;
         int gg2 = (b[2] & 7) << 1 | b[3] >> 7;
         int bb2 = (b[3] >> 3) & 15;
         int c[2][3] = { { ext4(r1), ext4(g1), ext4(b1) }, { ext4(rr2), ext4(gg2), ext4(bb2) } };
         int v1 = c[0][0] << 16 | c[0][1] << 8 | c[0][2];
         int v2 = c[1][0] << 16 | c[1][1] << 8 | c[1][2];
         int d = etc_distance[((b[3] >> 2) & 1) << 2 | (b[3] & 1) << 1 | (v1 >= v2)];
         if (!opaque && idx == 2) {
            rgba[0] = rgba[1] = rgba[2] = rgba[3] = 0;
            return;
         }
         const int *base = c[idx >> 1];
         for (unsigned k = 0; k < 3; k++)
            rgba[k] = clamp255(base[k] + ((idx & 1) ? -d : d));
         return;
      }
      if (b2 < 0 || b2 > 31) {
         /* Planar mode (always opaque) */
         int ro = (b[0] >> 1) & 63;
         int go = (b[0] & 1) << 6 | ((b[1] >> 1) & 63);
         int bo = (b[1] & 1) << 5 | ((b[2] >> 3) & 3) << 3 | (b[2] & 3) << 1 | b[3] >> 7;
         int rh = ((b[3] >> 2) & 31) << 1 | (b[3] & 1);
         int gh = b[4] >> 1;
         int bh = (b[4] & 1) << 5 | b[5] >> 3;
         int rv = (b[5] & 7) << 3 | b[6] >> 5;
         int gv = (b[6] & 31) << 2 | b[7] >> 6;
         int bv = b[7] & 63;
#define E6(v) ((v) << 2 | (v) >> 4)
#define E7(v) ((v) << 1 | (v) >> 6)
         int o[3] = { E6(ro), E7(go), E6(bo) };
         int h[3] = { E6(rh), E7(gh), E6(bh) };
         int vv[3] = { E6(rv), E7(gv), E6(bv) };
#undef E6
#undef E7
         for (unsigned k = 0; k < 3; k++)
            rgba[k] = clamp255(((int)x * (h[k] - o[k]) + (int)y * (vv[k] - o[k]) + 4 * o[k] + 2) >> 2);
         return;
      }
      /* Differential mode */
      bool second = flip ? y >= 2 : x >= 2;
      int base[3] = { ext5(second ? r2 : r), ext5(second ? g2 : g), ext5(second ? b2 : bl) };
      unsigned cw = second ? (b[3] >> 2) & 7 : b[3] >> 5;
      int mod;
      if (!opaque && idx == 2) {
         rgba[0] = rgba[1] = rgba[2] = rgba[3] = 0;
         return;
      }
      if (!opaque && idx == 0)
         mod = 0;
      else
         mod = (idx & 2 ? -1 : 1) * etc_modifier[cw][idx & 1];
      for (unsigned k = 0; k < 3; k++)
         rgba[k] = clamp255(base[k] + mod);
      return;
   }

   /* Individual mode */
   bool second = flip ? y >= 2 : x >= 2;
   int base[3];
   for (unsigned k = 0; k < 3; k++)
      base[k] = ext4(second ? b[k] & 15 : b[k] >> 4);
   unsigned cw = second ? (b[3] >> 2) & 7 : b[3] >> 5;
   int mod = (idx & 2 ? -1 : 1) * etc_modifier[cw][idx & 1];
   for (unsigned k = 0; k < 3; k++)
      rgba[k] = clamp255(base[k] + mod);
}

/* EAC index (0..7) and the block's header for texel (x, y). */
static unsigned
eac_index(const uint8_t *b, unsigned x, unsigned y)
{
   uint64_t bits = (uint64_t)b[2] << 40 | (uint64_t)b[3] << 32 | (uint64_t)b[4] << 24 |
                   (uint64_t)b[5] << 16 | (uint64_t)b[6] << 8 | b[7];
   unsigned i = 4 * x + y;
   return (unsigned)(bits >> (45 - 3 * i)) & 7;
}

/* ETC2 RGBA8 alpha: 8-bit. */
static int
eac_alpha8(const uint8_t *b, unsigned x, unsigned y)
{
   int mod = eac_modifier[b[1] & 15][eac_index(b, x, y)];
   return clamp255(b[0] + mod * (b[1] >> 4));
}

/* EAC R11 channel as a float. */
static float
eac_r11(const uint8_t *b, unsigned x, unsigned y, bool snorm)
{
   int mod = eac_modifier[b[1] & 15][eac_index(b, x, y)];
   int mult = b[1] >> 4;
   /* A zero multiplier means 1/8: the modifier is added unscaled. */
   int scaled = mult ? mod * mult * 8 : mod;
   if (snorm) {
      int base = (int8_t)b[0];
      if (base == -128)
         base = -127;
      int v = base * 8 + scaled;
      v = v < -1023 ? -1023 : v > 1023 ? 1023 : v;
      return (float)v / 1023.0f;
   }
   int v = b[0] * 8 + 4 + scaled;
   v = v < 0 ? 0 : v > 2047 ? 2047 : v;
   return (float)v / 2047.0f;
}

void
hw_tex_etc_texel(enum hw_tex_block_kind kind, bool snorm, const uint8_t *blk, unsigned x,
                 unsigned y, float out[4])
{
   int c[4];
   out[0] = out[1] = out[2] = 0.0f;
   out[3] = 1.0f;
   switch (kind) {
   case HW_TEX_BLOCK_ETC2_RGB8:
   case HW_TEX_BLOCK_ETC2_RGB8A1:
      etc2_rgb(blk, x, y, kind == HW_TEX_BLOCK_ETC2_RGB8A1, c);
      break;
   case HW_TEX_BLOCK_ETC2_RGBA8:
      etc2_rgb(blk + 8, x, y, false, c);
      c[3] = eac_alpha8(blk, x, y);
      break;
   case HW_TEX_BLOCK_EAC_RG11:
      out[1] = eac_r11(blk + 8, x, y, snorm);
      /* fallthrough */
   case HW_TEX_BLOCK_EAC_R11:
      out[0] = eac_r11(blk, x, y, snorm);
      return;
   default:
      return;
   }
   for (unsigned k = 0; k < 4; k++)
      out[k] = (float)c[k] / 255.0f;
}

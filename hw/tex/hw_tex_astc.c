/* SPDX-License-Identifier: MIT */
/*
 * ASTC LDR texel decoding (Khronos Data Format Specification 1.3, "ASTC
 * compressed texture image formats", LDR profile, 2D blocks); contract in
 * hw_tex_compressed.h.
 *
 * A 128-bit block, little endian: block mode (bits 0-10), partition count
 * (11-12), partition index and colour endpoint modes, colour endpoint
 * values in integer sequence encoding (ISE) from bit 17 or 29 upwards, the
 * weights in ISE from bit 127 downwards (bit-reversed).  Everything the
 * LDR profile makes an error (reserved block modes, too many weights or
 * values, HDR endpoint modes, HDR void-extent blocks) decodes as the error
 * colour, opaque magenta.
 */
#include <string.h>

#include "hw/tex/hw_tex_compressed.h"

/* n (<= 32) bits from bit position pos, LSB first; bits at or past
 * `limit` read 0 (an ISE sequence's missing trailing trit/quint bits). */
static uint32_t
getbits_lim(const uint8_t *b, unsigned pos, unsigned n, unsigned limit)
{
   uint32_t v = 0;
   for (unsigned i = 0; i < n; i++) {
      unsigned p = pos + i;
      if (p < limit)
         v |= (uint32_t)((b[p >> 3] >> (p & 7)) & 1) << i;
   }
   return v;
}

static uint32_t
getbits(const uint8_t *b, unsigned pos, unsigned n)
{
   return getbits_lim(b, pos, n, 128);
}

/* Quantisation levels as (trits, quints, bits). */
struct quant {
   uint8_t trits, quints, bits;
};

/* Weight ranges by R (2..7) and H. */
static const struct quant weight_quant[2][8] = {
   { { 0 }, { 0 }, { 0, 0, 1 }, { 1, 0, 0 }, { 0, 0, 2 }, { 0, 1, 0 }, { 1, 0, 1 }, { 0, 0, 3 } },
   { { 0 }, { 0 }, { 0, 1, 1 }, { 1, 0, 2 }, { 0, 0, 4 }, { 0, 1, 2 }, { 1, 0, 3 }, { 0, 0, 5 } },
};

/* Colour endpoint ranges from 6 levels up, ascending. */
static const struct quant colour_quant[] = {
   { 1, 0, 1 }, { 0, 0, 3 }, { 0, 1, 1 }, { 1, 0, 2 }, { 0, 0, 4 }, { 0, 1, 2 },
   { 1, 0, 3 }, { 0, 0, 5 }, { 0, 1, 3 }, { 1, 0, 4 }, { 0, 0, 6 }, { 0, 1, 4 },
   { 1, 0, 5 }, { 0, 0, 7 }, { 0, 1, 5 }, { 1, 0, 6 }, { 0, 0, 8 },
};

static unsigned
ise_bits(struct quant q, unsigned n)
{
   return n * q.bits + (q.trits ? (8 * n + 4) / 5 : 0) + (q.quints ? (7 * n + 2) / 3 : 0);
}

/* Decodes n ISE values of quantisation q starting at bit pos of b. */
static void
ise_decode(const uint8_t *b, unsigned pos, struct quant q, unsigned n, uint8_t *out)
{
   unsigned nb = q.bits;
   unsigned limit = pos + ise_bits(q, n);
   if (limit > 128)
      limit = 128;
#define getbits(b, pos, n) getbits_lim(b, pos, n, limit)
   for (unsigned i = 0; i < n;) {
      if (q.trits) {
         static const uint8_t tbits[5] = { 2, 2, 1, 2, 1 };
         uint32_t m[5], t = 0;
         unsigned tpos = 0;
         for (unsigned k = 0; k < 5; k++) {
            m[k] = getbits(b, pos, nb);
            pos += nb;
            t |= getbits(b, pos, tbits[k]) << tpos;
            pos += tbits[k];
            tpos += tbits[k];
         }
         unsigned c, t0, t1, t2, t3, t4;
         if (((t >> 2) & 7) == 7) {
            c = ((t >> 5) & 7) << 2 | (t & 3);
            t4 = t3 = 2;
         } else {
            c = t & 31;
            if (((t >> 5) & 3) == 3) {
               t4 = 2;
               t3 = (t >> 7) & 1;
            } else {
               t4 = (t >> 7) & 1;
               t3 = (t >> 5) & 3;
            }
         }
         if ((c & 3) == 3) {
            t2 = 2;
            t1 = (c >> 4) & 1;
            t0 = ((c >> 3) & 1) << 1 | (((c >> 2) & 1) & ~((c >> 3) & 1));
         } else if (((c >> 2) & 3) == 3) {
            t2 = 2;
            t1 = 2;
            t0 = c & 3;
         } else {
            t2 = (c >> 4) & 1;
            t1 = (c >> 2) & 3;
            t0 = ((c >> 1) & 1) << 1 | ((c & 1) & ~((c >> 1) & 1));
         }
         unsigned tv[5] = { t0, t1, t2, t3, t4 };
         for (unsigned k = 0; k < 5 && i < n; k++, i++)
            out[i] = (uint8_t)(tv[k] << nb | m[k]);
      } else if (q.quints) {
         static const uint8_t qbits[3] = { 3, 2, 2 };
         uint32_t m[3], qq = 0;
         unsigned qpos = 0;
         for (unsigned k = 0; k < 3; k++) {
            m[k] = getbits(b, pos, nb);
            pos += nb;
            qq |= getbits(b, pos, qbits[k]) << qpos;
            pos += qbits[k];
            qpos += qbits[k];
         }
         unsigned q0, q1, q2;
         if (((qq >> 1) & 3) == 3 && ((qq >> 5) & 3) == 0) {
            unsigned b0 = qq & 1, b3 = (qq >> 3) & 1, b4 = (qq >> 4) & 1;
            q2 = b0 << 2 | (b4 & ~b0 & 1) << 1 | (b3 & ~b0 & 1);
            q1 = q0 = 4;
         } else {
            unsigned c;
            if (((qq >> 1) & 3) == 3) {
               q2 = 4;
               c = ((qq >> 3) & 3) << 3 | ((~qq >> 5) & 3) << 1 | (qq & 1);
            } else {
               q2 = (qq >> 5) & 3;
               c = qq & 31;
            }
            if ((c & 7) == 5) {
               q1 = 4;
               q0 = (c >> 3) & 3;
            } else {
               q1 = (c >> 3) & 3;
               q0 = c & 7;
            }
         }
         unsigned qv[3] = { q0, q1, q2 };
         for (unsigned k = 0; k < 3 && i < n; k++, i++)
            out[i] = (uint8_t)(qv[k] << nb | m[k]);
      } else {
         out[i++] = (uint8_t)getbits(b, pos, nb);
         pos += nb;
      }
   }
#undef getbits
}

/* Replicates the low `bits` bits of v to `to` bits. */
static unsigned
replicate(unsigned v, unsigned bits, unsigned to)
{
   unsigned r = 0;
   int have = 0;
   while (have < (int)to) {
      r = (r << bits) | v;
      have += bits;
   }
   return r >> (have - to);
}

/* Colour endpoint value -> 0..255. */
static unsigned
unquant_colour(struct quant q, unsigned v)
{
   if (!q.trits && !q.quints)
      return replicate(v, q.bits, 8);
   unsigned m = v & ((1u << q.bits) - 1), d = v >> q.bits;
   unsigned a = (m & 1) ? 0x1ff : 0;
   unsigned b = 0, c = 0;
   unsigned bb = (m >> 1) & 1, cb = (m >> 2) & 1, db = (m >> 3) & 1, eb = (m >> 4) & 1,
            fb = (m >> 5) & 1;
   if (q.trits) {
      switch (q.bits) {
      case 1: c = 204; break;
      case 2: c = 93; b = bb << 8 | bb << 4 | bb << 2 | bb << 1; break;
      case 3: c = 44; b = cb << 8 | bb << 7 | cb << 3 | bb << 2 | cb << 1 | bb; break;
      case 4: c = 22; b = db << 8 | cb << 7 | bb << 6 | db << 2 | cb << 1 | bb; break;
      case 5: c = 11; b = eb << 8 | db << 7 | cb << 6 | bb << 5 | eb << 1 | db; break;
      default: c = 5; b = fb << 8 | eb << 7 | db << 6 | cb << 5 | bb << 4 | fb; break;
      }
   } else {
      switch (q.bits) {
      case 1: c = 113; break;
      case 2: c = 54; b = bb << 8 | bb << 3 | bb << 2; break;
      case 3: c = 26; b = cb << 8 | bb << 7 | cb << 2 | bb << 1 | cb; break;
      case 4: c = 13; b = db << 8 | cb << 7 | bb << 6 | db << 1 | cb; break;
      default: c = 6; b = eb << 8 | db << 7 | cb << 6 | bb << 5 | eb; break;
      }
   }
   unsigned t = (d * c + b) ^ a;
   return (a & 0x80) | (t >> 2);
}

/* Weight value -> 0..64. */
static unsigned
unquant_weight(struct quant q, unsigned v)
{
   unsigned w;
   if (!q.trits && !q.quints) {
      w = replicate(v, q.bits, 6);
   } else if (q.bits == 0) {
      static const uint8_t w3[3] = { 0, 32, 63 }, w5[5] = { 0, 16, 32, 47, 63 };
      w = q.quints ? w5[v < 5 ? v : 4] : w3[v < 3 ? v : 2];
   } else {
      unsigned m = v & ((1u << q.bits) - 1), d = v >> q.bits;
      unsigned a = (m & 1) ? 0x7f : 0;
      unsigned b = 0, c = 0;
      unsigned bb = (m >> 1) & 1, cb = (m >> 2) & 1;
      if (q.trits) {
         switch (q.bits) {
         case 1: c = 50; break;
         case 2: c = 23; b = bb << 6 | bb << 2 | bb; break;
         default: c = 11; b = cb << 6 | bb << 5 | cb << 1 | bb; break;
         }
      } else {
         switch (q.bits) {
         case 1: c = 28; break;
         default: c = 13; b = bb << 6 | bb << 1; break;
         }
      }
      unsigned t = (d * c + b) ^ a;
      w = (a & 0x20) | (t >> 2);
   }
   return w > 32 ? w + 1 : w;
}

static uint32_t
hash52(uint32_t p)
{
   p ^= p >> 15;
   p -= p << 17;
   p += p << 7;
   p += p << 4;
   p ^= p >> 5;
   p += p << 16;
   p ^= p >> 7;
   p ^= p >> 3;
   p ^= p << 6;
   p ^= p >> 17;
   return p;
}

static unsigned
select_partition(unsigned seed, unsigned x, unsigned y, unsigned count, bool small)
{
   if (small) {
      x <<= 1;
      y <<= 1;
   }
   seed += (count - 1) * 1024;
   uint32_t r = hash52(seed);
   uint32_t s[13];
   for (unsigned k = 0; k < 8; k++)
      s[k + 1] = (r >> (4 * k)) & 15;
   s[9] = (r >> 18) & 15;
   s[10] = (r >> 22) & 15;
   s[11] = (r >> 26) & 15;
   s[12] = ((r >> 30) | (r << 2)) & 15;
   for (unsigned k = 1; k <= 12; k++)
      s[k] *= s[k];
   unsigned sh1, sh2;
   if (seed & 1) {
      sh1 = (seed & 2) ? 4 : 5;
      sh2 = count == 3 ? 6 : 5;
   } else {
      sh1 = count == 3 ? 6 : 5;
      sh2 = (seed & 2) ? 4 : 5;
   }
   unsigned sh3 = (seed & 0x10) ? sh1 : sh2;
   for (unsigned k = 1; k <= 8; k++)
      s[k] >>= (k & 1) ? sh1 : sh2;
   for (unsigned k = 9; k <= 12; k++)
      s[k] >>= sh3;
   /* z = 0: 2D blocks */
   uint32_t a = (s[1] * x + s[2] * y + (r >> 14)) & 0x3f;
   uint32_t b = (s[3] * x + s[4] * y + (r >> 10)) & 0x3f;
   uint32_t c = (s[5] * x + s[6] * y + (r >> 6)) & 0x3f;
   uint32_t d = (s[7] * x + s[8] * y + (r >> 2)) & 0x3f;
   if (count < 4)
      d = 0;
   if (count < 3)
      c = 0;
   if (a >= b && a >= c && a >= d)
      return 0;
   if (b >= c && b >= d)
      return 1;
   if (c >= d)
      return 2;
   return 3;
}

static int
clamp8(int v)
{
   return v < 0 ? 0 : v > 255 ? 255 : v;
}

static void
bit_transfer_signed(int *a, int *b)
{
   *b >>= 1;
   *b |= *a & 0x80;
   *a >>= 1;
   *a &= 0x3f;
   if (*a & 0x20)
      *a -= 0x40;
}

static void
blue_contract(int e[4])
{
   e[0] = (e[0] + e[2]) >> 1;
   e[1] = (e[1] + e[2]) >> 1;
}

/* LDR endpoints of colour endpoint mode cem from values v; false for the
 * HDR modes (an error in the LDR profile). */
static bool
decode_endpoints(unsigned cem, const unsigned *vv, int e0[4], int e1[4])
{
   int v[8];
   for (unsigned k = 0; k < 8; k++)
      v[k] = (int)vv[k];
   switch (cem) {
   case 0:
      e0[0] = e0[1] = e0[2] = v[0];
      e1[0] = e1[1] = e1[2] = v[1];
      e0[3] = e1[3] = 255;
      return true;
   case 1: {
      int l0 = (v[0] >> 2) | (v[1] & 0xc0);
      int l1 = l0 + (v[1] & 0x3f);
      if (l1 > 255)
         l1 = 255;
      e0[0] = e0[1] = e0[2] = l0;
      e1[0] = e1[1] = e1[2] = l1;
      e0[3] = e1[3] = 255;
      return true;
   }
   case 4:
      e0[0] = e0[1] = e0[2] = v[0];
      e1[0] = e1[1] = e1[2] = v[1];
      e0[3] = v[2];
      e1[3] = v[3];
      return true;
   case 5:
      bit_transfer_signed(&v[1], &v[0]);
      bit_transfer_signed(&v[3], &v[2]);
      e0[0] = e0[1] = e0[2] = v[0];
      e0[3] = v[2];
      e1[0] = e1[1] = e1[2] = clamp8(v[0] + v[1]);
      e1[3] = clamp8(v[2] + v[3]);
      return true;
   case 6:
   case 10:
      for (unsigned k = 0; k < 3; k++) {
         e0[k] = (v[k] * v[3]) >> 8;
         e1[k] = v[k];
      }
      e0[3] = cem == 10 ? v[4] : 255;
      e1[3] = cem == 10 ? v[5] : 255;
      return true;
   case 8:
   case 12: {
      bool alpha = cem == 12;
      int a0 = alpha ? v[6] : 255, a1 = alpha ? v[7] : 255;
      if (v[1] + v[3] + v[5] >= v[0] + v[2] + v[4]) {
         int x0[4] = { v[0], v[2], v[4], a0 }, x1[4] = { v[1], v[3], v[5], a1 };
         memcpy(e0, x0, sizeof(x0));
         memcpy(e1, x1, sizeof(x1));
      } else {
         int x0[4] = { v[1], v[3], v[5], a1 }, x1[4] = { v[0], v[2], v[4], a0 };
         blue_contract(x0);
         blue_contract(x1);
         memcpy(e0, x0, sizeof(x0));
         memcpy(e1, x1, sizeof(x1));
      }
      return true;
   }
   case 9:
   case 13: {
      bool alpha = cem == 13;
      for (unsigned k = 0; k < (alpha ? 4u : 3u); k++)
         bit_transfer_signed(&v[2 * k + 1], &v[2 * k]);
      int a0 = alpha ? v[6] : 255, a1 = alpha ? v[6] + v[7] : 255;
      if (v[1] + v[3] + v[5] >= 0) {
         int x0[4] = { v[0], v[2], v[4], a0 };
         int x1[4] = { v[0] + v[1], v[2] + v[3], v[4] + v[5], a1 };
         memcpy(e0, x0, sizeof(x0));
         memcpy(e1, x1, sizeof(x1));
      } else {
         int x0[4] = { v[0] + v[1], v[2] + v[3], v[4] + v[5], a1 };
         int x1[4] = { v[0], v[2], v[4], a0 };
         blue_contract(x0);
         blue_contract(x1);
         memcpy(e0, x0, sizeof(x0));
         memcpy(e1, x1, sizeof(x1));
      }
      for (unsigned k = 0; k < 4; k++) {
         e0[k] = clamp8(e0[k]);
         e1[k] = clamp8(e1[k]);
      }
      return true;
   }
   default:
      return false;   /* HDR modes 2, 3, 7, 11, 14, 15 */
   }
}

static void
error_colour(float out[4])
{
   out[0] = 1.0f;
   out[1] = 0.0f;
   out[2] = 1.0f;
   out[3] = 1.0f;
}

/* Block mode: weight grid w x h, weight quantisation, dual plane; false
 * for reserved modes. */
static bool
block_mode(unsigned m, unsigned *gw, unsigned *gh, struct quant *q, bool *dual)
{
   unsigned r, a = (m >> 5) & 3, bb = (m >> 7) & 3;
   bool h = (m >> 9) & 1, d = (m >> 10) & 1;
   if (m & 3) {
      r = ((m >> 4) & 1) | (m & 3) << 1;
      switch ((m >> 2) & 3) {
      case 0: *gw = bb + 4; *gh = a + 2; break;
      case 1: *gw = bb + 8; *gh = a + 2; break;
      case 2: *gw = a + 2; *gh = bb + 8; break;
      default:
         if ((m >> 8) & 1) {
            *gw = (bb & 1) + 2;
            *gh = a + 2;
         } else {
            *gw = a + 2;
            *gh = (bb & 1) + 6;
         }
         break;
      }
   } else {
      if ((m & 15) == 0)
         return false;
      r = ((m >> 4) & 1) | ((m >> 2) & 3) << 1;
      switch ((m >> 7) & 3) {
      case 0: *gw = 12; *gh = a + 2; break;
      case 1: *gw = a + 2; *gh = 12; break;
      case 2:
         *gw = a + 6;
         *gh = ((m >> 9) & 3) + 6;
         h = d = false;
         break;
      default:
         if (a == 0) {
            *gw = 6;
            *gh = 10;
         } else if (a == 1) {
            *gw = 10;
            *gh = 6;
         } else {
            return false;
         }
         break;
      }
   }
   if (r < 2)
      return false;
   *q = weight_quant[h][r];
   *dual = d;
   return true;
}

void
hw_tex_astc_texel(const uint8_t *blk, unsigned bw, unsigned bh, unsigned x, unsigned y,
                  bool srgb, float out[4])
{
   unsigned mode = getbits(blk, 0, 11);
   if ((mode & 0x1ff) == 0x1fc) {
      /* Void extent: one colour, 16-bit unorm components. */
      if ((mode >> 9) & 1) {
         error_colour(out);   /* HDR void extent */
         return;
      }
      for (unsigned k = 0; k < 4; k++) {
         unsigned c = getbits(blk, 64 + 16 * k, 16);
         out[k] = srgb ? (float)(c >> 8) / 255.0f : (float)c / 65535.0f;
      }
      return;
   }
   unsigned gw, gh;
   struct quant wq;
   bool dual;
   if (!block_mode(mode, &gw, &gh, &wq, &dual) || gw > bw || gh > bh) {
      error_colour(out);
      return;
   }
   unsigned parts = getbits(blk, 11, 2) + 1;
   unsigned nweights = gw * gh * (dual ? 2 : 1);
   unsigned wbits = ise_bits(wq, nweights);
   if (nweights > 64 || wbits < 24 || wbits > 96 || (dual && parts == 4)) {
      error_colour(out);
      return;
   }

   /* Colour endpoint modes. */
   unsigned cem[4], extra = 0, colour_start;
   if (parts == 1) {
      cem[0] = getbits(blk, 13, 4);
      colour_start = 17;
   } else {
      colour_start = 29;
      unsigned sel = getbits(blk, 23, 2);
      if (sel == 0) {
         for (unsigned p = 0; p < parts; p++)
            cem[p] = getbits(blk, 25, 4);
      } else {
         extra = 3 * parts - 4;
         uint32_t more = getbits(blk, 25, 4) | getbits(blk, 128 - wbits - extra, extra) << 4;
         for (unsigned p = 0; p < parts; p++) {
            unsigned c = (more >> p) & 1, m = (more >> (parts + 2 * p)) & 3;
            cem[p] = (sel - 1 + c) << 2 | m;
         }
      }
   }
   unsigned below = 128 - wbits - extra - (dual ? 2 : 0);
   unsigned ccs = dual ? getbits(blk, below, 2) : 0;
   unsigned nvalues = 0;
   for (unsigned p = 0; p < parts; p++)
      nvalues += 2 * ((cem[p] >> 2) + 1);
   if (nvalues > 18 || below < colour_start) {
      error_colour(out);
      return;
   }
   unsigned avail = below - colour_start;
   int qi = (int)(sizeof(colour_quant) / sizeof(colour_quant[0])) - 1;
   while (qi >= 0 && ise_bits(colour_quant[qi], nvalues) > avail)
      qi--;
   if (qi < 0) {
      error_colour(out);
      return;
   }
   uint8_t raw[18];
   ise_decode(blk, colour_start, colour_quant[qi], nvalues, raw);

   /* This texel's partition and endpoints. */
   unsigned part = 0;
   if (parts > 1)
      part = select_partition(getbits(blk, 13, 10), x, y, parts, bw * bh < 31);
   unsigned vi = 0;
   for (unsigned p = 0; p < part; p++)
      vi += 2 * ((cem[p] >> 2) + 1);
   unsigned v[8] = { 0 };
   for (unsigned k = 0; k < 2 * ((cem[part] >> 2) + 1); k++)
      v[k] = unquant_colour(colour_quant[qi], raw[vi + k]);
   int e0[4], e1[4];
   if (!decode_endpoints(cem[part], v, e0, e1)) {
      error_colour(out);
      return;
   }

   /* Weights: ISE from the top of the block, bit-reversed. */
   uint8_t rev[16];
   for (unsigned k = 0; k < 16; k++) {
      uint8_t c = blk[15 - k], r = 0;
      for (unsigned i = 0; i < 8; i++)
         r |= (uint8_t)(((c >> i) & 1) << (7 - i));
      rev[k] = r;
   }
   uint8_t wraw[64];
   ise_decode(rev, 0, wq, nweights, wraw);
   unsigned planes = dual ? 2 : 1;

   /* Bilinear infill of the weight grid at this texel. */
   unsigned ds = (1024 + bw / 2) / (bw - 1), dt = (1024 + bh / 2) / (bh - 1);
   unsigned gs = (ds * x * (gw - 1) + 32) >> 6, gt = (dt * y * (gh - 1) + 32) >> 6;
   unsigned js = gs >> 4, fs = gs & 15, jt = gt >> 4, ft = gt & 15;
   unsigned w11 = (fs * ft + 8) >> 4, w10 = ft - w11, w01 = fs - w11;
   unsigned w00 = 16 - fs - ft + w11;
   unsigned wt[2];
   for (unsigned pl = 0; pl < planes; pl++) {
      unsigned idx[4] = { js + jt * gw, js + 1 + jt * gw, js + (jt + 1) * gw,
                          js + 1 + (jt + 1) * gw };
      unsigned p[4];
      for (unsigned k = 0; k < 4; k++) {
         unsigned i = idx[k] < gw * gh ? idx[k] : gw * gh - 1;
         p[k] = unquant_weight(wq, wraw[i * planes + pl]);
      }
      wt[pl] = (p[0] * w00 + p[1] * w01 + p[2] * w10 + p[3] * w11 + 8) >> 4;
   }

   for (unsigned k = 0; k < 4; k++) {
      unsigned w = (dual && k == ccs) ? wt[1] : wt[0];
      unsigned c0, c1;
      if (srgb) {
         c0 = (unsigned)e0[k] << 8 | 0x80;
         c1 = (unsigned)e1[k] << 8 | 0x80;
      } else {
         c0 = (unsigned)e0[k] << 8 | (unsigned)e0[k];
         c1 = (unsigned)e1[k] << 8 | (unsigned)e1[k];
      }
      unsigned c = (c0 * (64 - w) + c1 * w + 32) >> 6;
      out[k] = srgb ? (float)(c >> 8) / 255.0f : (float)c / 65535.0f;
   }
}

/* SPDX-License-Identifier: MIT */
/*
 * Image metrics. One pass over both images gathers the error statistics
 * and marks the 4x4 blocks that differ at all; SSIM is then computed only
 * for the windows that touch such a block (identical windows score exactly
 * 1). Comparing thus costs little next to decoding the PNGs
 * (bench/compare_speed), and most of all on nearly identical images, the
 * common case for a replay checked against its reference.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare/compare.h"

void
cmp_image_thresholds_default(struct cmp_image_thresholds *t)
{
   t->tolerance = 0;
   t->max_diff_pixels = 0;
   t->max_diff_fraction = -1;
   t->min_psnr = -1;
   t->min_ssim = -2;
   t->ignore_alpha = false;
}

/* Alpha as opaque, as if the file had none. */
static void
drop_alpha(struct cmp_image *img)
{
   uint16_t opaque = img->depth == 16 ? 65535 : 255;
   size_t n = (size_t)img->width * img->height;
   for (size_t i = 0; i < n; i++)
      img->px[4 * i + 3] = opaque;
   img->has_alpha = false;
}

/* Sums over one 4x4 block; five moments are all SSIM needs. Luminance is
 * kept as an integer (1000 Y in the common scale) so the sums are exact:
 * SSIM subtracts squared means from them, and rounding there would show
 * next to C2 on flat areas. 16-bit: Y < 2^26, 16 Y^2 < 2^56. */
struct block {
   uint64_t sx, sy, sxx, syy, sxy;
};

static double
ssim_term(double sx, double sy, double sxx, double syy, double sxy, double n)
{
   const double c1 = 0.01 * 0.01, c2 = 0.03 * 0.03;
   double mx = sx / n, my = sy / n;
   double vx = sxx / n - mx * mx, vy = syy / n - my * my;
   double cxy = sxy / n - mx * my;
   return ((2 * mx * my + c1) * (2 * cxy + c2)) /
          ((mx * mx + my * my + c1) * (vx + vy + c2));
}

/* 1000 x Rec. 601 luma, in the pixel's own scale. */
static inline uint32_t
luma1000(const uint16_t *p)
{
   return 299u * p[0] + 587u * p[1] + 114u * p[2];
}

/* Largest channel difference of one pixel; adds the squares to *sq.
 * Written out per channel (no loop, no branches) so the compiler can keep
 * it in vector registers. */
static inline uint32_t
pixel_diff(const uint16_t *pa, const uint16_t *pb, uint32_t ka, uint32_t kb,
           uint64_t *sq)
{
   int32_t d0 = (int32_t)(pa[0] * ka) - (int32_t)(pb[0] * kb);
   int32_t d1 = (int32_t)(pa[1] * ka) - (int32_t)(pb[1] * kb);
   int32_t d2 = (int32_t)(pa[2] * ka) - (int32_t)(pb[2] * kb);
   int32_t d3 = (int32_t)(pa[3] * ka) - (int32_t)(pb[3] * kb);
   uint32_t a0 = (uint32_t)(d0 < 0 ? -d0 : d0);
   uint32_t a1 = (uint32_t)(d1 < 0 ? -d1 : d1);
   uint32_t a2 = (uint32_t)(d2 < 0 ? -d2 : d2);
   uint32_t a3 = (uint32_t)(d3 < 0 ? -d3 : d3);
   *sq += (uint64_t)a0 * a0 + (uint64_t)a1 * a1 + (uint64_t)a2 * a2 +
          (uint64_t)a3 * a3;
   uint32_t m01 = a0 > a1 ? a0 : a1, m23 = a2 > a3 ? a2 : a3;
   return m01 > m23 ? m01 : m23;
}

static inline void
note_diff(uint32_t x, uint32_t y, uint64_t *n, uint32_t *x0, uint32_t *y0,
          uint32_t *x1, uint32_t *y1)
{
   (*n)++;
   *x0 = x < *x0 ? x : *x0;
   *x1 = x > *x1 ? x : *x1;
   *y0 = y < *y0 ? y : *y0;
   *y1 = y;
}

/* Luminance moments of the 4x4 block at (x, y), exact integers. */
static void
block_sums(const struct cmp_image *a, const struct cmp_image *b, uint32_t ka,
           uint32_t kb, uint32_t x, uint32_t y, struct block *out)
{
   struct block s = {0};
   for (uint32_t j = 0; j < 4; j++) {
      const uint16_t *pa = a->px + ((size_t)(y + j) * a->width + x) * 4;
      const uint16_t *pb = b->px + ((size_t)(y + j) * b->width + x) * 4;
      for (unsigned i = 0; i < 4; i++, pa += 4, pb += 4) {
         uint64_t lx = (uint64_t)luma1000(pa) * ka;
         uint64_t ly = (uint64_t)luma1000(pb) * kb;
         s.sx += lx;
         s.sy += ly;
         s.sxx += lx * lx;
         s.syy += ly * ly;
         s.sxy += lx * ly;
      }
   }
   *out = s;
}

/* Whole-image single window, for images too small for 8x8 windows. */
static double
ssim_small(const struct cmp_image *a, const struct cmp_image *b, double sa,
           double sb)
{
   double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
   size_t n = (size_t)a->width * a->height;
   for (size_t i = 0; i < n; i++) {
      double x = luma1000(a->px + 4 * i) * sa, y = luma1000(b->px + 4 * i) * sb;
      sx += x;
      sy += y;
      sxx += x * x;
      syy += y * y;
      sxy += x * y;
   }
   return ssim_term(sx, sy, sxx, syy, sxy, (double)n);
}

void
cmp_image_compare(const struct cmp_image *a, const struct cmp_image *b,
                  const struct cmp_image_thresholds *t,
                  struct cmp_image_result *r)
{
   memset(r, 0, sizeof(*r));
   uint32_t w = a->width, h = a->height;
   r->total_pixels = (uint64_t)w * h;
   if (w != b->width || h != b->height) {
      r->size_mismatch = true;
      snprintf(r->reason, sizeof(r->reason),
               "size mismatch: reference is %ux%u, actual is %ux%u", w, h,
               b->width, b->height);
      return;
   }

   /* Common scale: an 8-bit image against a 16-bit one is lifted by 257. */
   unsigned depth = a->depth == 16 || b->depth == 16 ? 16 : 8;
   uint32_t ka = depth == 16 && a->depth == 8 ? 257 : 1;
   uint32_t kb = depth == 16 && b->depth == 8 ? 257 : 1;
   unsigned nc = a->has_alpha || b->has_alpha ? 4 : 3;
   double maxv = depth == 16 ? 65535.0 : 255.0;
   r->depth = depth;
   r->channels = nc;

   uint32_t bw = w / 4, bh = h / 4;
   bool windows = w >= 8 && h >= 8;
   /* Per 4x4 block: does any pixel in it differ at all? */
   uint8_t *dirty = NULL;
   if (windows) {
      dirty = calloc((size_t)bw * bh, 1);
      if (!dirty) {
         snprintf(r->reason, sizeof(r->reason), "out of memory");
         return;
      }
   }

   uint64_t sq = 0, ndiff = 0;
   uint32_t maxd = 0;
   uint32_t x0 = UINT32_MAX, y0 = UINT32_MAX, x1 = 0, y1 = 0;
   uint32_t tol = t->tolerance;

   /* Pass 1, the differences. All four channels always: without alpha
    * both sides hold the opaque value, which differs by 0, so only the
    * MSE divisor depends on nc. */
   for (uint32_t y = 0; y < h; y++) {
      const uint16_t *pa = a->px + (size_t)y * w * 4;
      const uint16_t *pb = b->px + (size_t)y * w * 4;
      uint8_t *dr = windows && y / 4 < bh ? dirty + (size_t)(y / 4) * bw
                                          : NULL;
      uint32_t wb = dr ? bw * 4 : 0;
      uint64_t row_sq = 0;
      for (uint32_t x = 0; x < w; x++, pa += 4, pb += 4) {
         uint32_t pmax = pixel_diff(pa, pb, ka, kb, &row_sq);
         if (pmax > maxd)
            maxd = pmax;
         if (pmax > tol)
            note_diff(x, y, &ndiff, &x0, &y0, &x1, &y1);
         if (pmax && x < wb)
            dr[x / 4] = 1;
      }
      sq += row_sq;
   }

   r->max_diff = maxd;
   r->diff_pixels = ndiff;
   r->diff_fraction = r->total_pixels ? (double)ndiff / r->total_pixels : 0;
   if (ndiff) {
      r->has_bbox = true;
      r->bbox_x0 = x0;
      r->bbox_y0 = y0;
      r->bbox_x1 = x1;
      r->bbox_y1 = y1;
   }
   double nval = (double)r->total_pixels * nc;
   r->mse = nval > 0 ? (double)sq / nval : 0;
   r->psnr = r->mse > 0 ? 10.0 * log10(maxv * maxv / r->mse) : INFINITY;

   double scale = 1.0 / (1000.0 * maxv);
   if (windows) {
      /* Pass 2, SSIM. A window (2x2 blocks) whose pixels are all equal
       * scores exactly 1, so only windows touching a dirty block are
       * computed: replay images usually differ in a few places, and this
       * keeps comparing close to the cost of decoding. */
      double sum = 0;
      size_t nw = (size_t)(bw - 1) * (bh - 1), clean = nw;
      /* Block sums are computed once, on first use (bit 1 of dirty[]). */
      struct block *blocks = malloc((size_t)bw * bh * sizeof(*blocks));
      if (!blocks) {
         free(dirty);
         snprintf(r->reason, sizeof(r->reason), "out of memory");
         r->pass = false;
         return;
      }
      for (uint32_t by = 0; by + 1 < bh; by++) {
         for (uint32_t bx = 0; bx + 1 < bw; bx++) {
            size_t k0 = (size_t)by * bw + bx;
            size_t k[4] = {k0, k0 + 1, k0 + bw, k0 + bw + 1};
            if (!((dirty[k[0]] | dirty[k[1]] | dirty[k[2]] | dirty[k[3]]) & 1))
               continue;
            clean--;
            struct block s = {0};
            for (unsigned i = 0; i < 4; i++) {
               struct block *q = &blocks[k[i]];
               if (!(dirty[k[i]] & 2)) {
                  block_sums(a, b, ka, kb, (bx + (i & 1)) * 4,
                             (by + (i >> 1)) * 4, q);
                  dirty[k[i]] |= 2;
               }
               s.sx += q->sx;
               s.sy += q->sy;
               s.sxx += q->sxx;
               s.syy += q->syy;
               s.sxy += q->sxy;
            }
            sum += ssim_term(s.sx * scale, s.sy * scale,
                             s.sxx * scale * scale, s.syy * scale * scale,
                             s.sxy * scale * scale, 64.0);
         }
      }
      free(blocks);
      r->ssim = (sum + (double)clean) / (double)nw;
      free(dirty);
   } else if (r->total_pixels) {
      r->ssim = ssim_small(a, b, scale * ka, scale * kb);
   } else {
      r->ssim = 1.0;
   }
   if (sq == 0)
      r->ssim = 1.0;

   /* Thresholds, first failure wins the reason. */
   r->pass = true;
   if (t->max_diff_pixels >= 0 && ndiff > (uint64_t)t->max_diff_pixels) {
      r->pass = false;
      snprintf(r->reason, sizeof(r->reason),
               "%llu pixels differ by more than %u (allowed %lld)",
               (unsigned long long)ndiff, tol,
               (long long)t->max_diff_pixels);
   } else if (t->max_diff_fraction >= 0 &&
              r->diff_fraction > t->max_diff_fraction) {
      r->pass = false;
      snprintf(r->reason, sizeof(r->reason),
               "%.4f%% of pixels differ by more than %u (allowed %.4f%%)",
               100 * r->diff_fraction, tol, 100 * t->max_diff_fraction);
   } else if (t->min_psnr >= 0 && r->psnr < t->min_psnr) {
      r->pass = false;
      snprintf(r->reason, sizeof(r->reason),
               "PSNR %.2f dB below the minimum %.2f dB", r->psnr, t->min_psnr);
   } else if (t->min_ssim >= -1 && r->ssim < t->min_ssim) {
      r->pass = false;
      snprintf(r->reason, sizeof(r->reason),
               "SSIM %.5f below the minimum %.5f", r->ssim, t->min_ssim);
   }
}

uint8_t *
cmp_image_diff_picture(const struct cmp_image *a, const struct cmp_image *b,
                       unsigned tolerance)
{
   uint32_t w = a->width, h = a->height;
   if (w != b->width || h != b->height)
      return NULL;
   uint8_t *out = malloc((size_t)w * h * 3 + 1);
   if (!out)
      return NULL;
   unsigned depth = a->depth == 16 || b->depth == 16 ? 16 : 8;
   unsigned ka = depth == 16 && a->depth == 8 ? 257 : 1;
   unsigned kb = depth == 16 && b->depth == 8 ? 257 : 1;
   unsigned nc = a->has_alpha || b->has_alpha ? 4 : 3;
   float maxv = depth == 16 ? 65535.0f : 255.0f;
   size_t n = (size_t)w * h;
   for (size_t i = 0; i < n; i++) {
      const uint16_t *pa = a->px + 4 * i, *pb = b->px + 4 * i;
      unsigned pmax = 0;
      for (unsigned c = 0; c < nc; c++) {
         int d = (int)(pa[c] * ka) - (int)(pb[c] * kb);
         unsigned ad = (unsigned)(d < 0 ? -d : d);
         pmax = ad > pmax ? ad : pmax;
      }
      uint8_t *o = out + 3 * i;
      if (pmax > tolerance) {
         /* Red from 96 up: even a one-step difference stays visible. */
         float f = sqrtf((float)pmax / maxv);
         o[0] = (uint8_t)(96 + 159 * f);
         o[1] = 0;
         o[2] = (uint8_t)(40 * f);
      } else if (pmax > 0) {
         o[0] = 110;
         o[1] = 100;
         o[2] = 0;
      } else {
         /* Reference luminance at a quarter: context without distraction. */
         float y = (0.299f * pa[0] + 0.587f * pa[1] + 0.114f * pa[2]) /
                   (a->depth == 16 ? 65535.0f : 255.0f);
         uint8_t g = (uint8_t)(20 + 60 * y);
         o[0] = o[1] = o[2] = g;
      }
   }
   return out;
}

void
cmp_image_entry_run(struct cmp_image_entry *e,
                    const struct cmp_image_thresholds *t, bool want_pngs)
{
   struct cmp_image ia = {0}, ib = {0};
   e->error = false;
   e->error_msg[0] = 0;
   if (!e->path_a || !e->path_b) {
      e->error = true;
      snprintf(e->error_msg, sizeof(e->error_msg),
               "'%s' is missing from the %s", e->name,
               e->path_a ? "actual images" : "reference images");
      return;
   }
   if (!cmp_png_load(e->path_a, &ia, want_pngs ? &e->png_a : NULL,
                     &e->png_a_size, e->error_msg) ||
       !cmp_png_load(e->path_b, &ib, want_pngs ? &e->png_b : NULL,
                     &e->png_b_size, e->error_msg)) {
      e->error = true;
      goto out;
   }
   if (t->ignore_alpha) {
      drop_alpha(&ia);
      drop_alpha(&ib);
   }
   e->wa = ia.width;
   e->ha = ia.height;
   e->wb = ib.width;
   e->hb = ib.height;
   cmp_image_compare(&ia, &ib, t, &e->res);
   if (want_pngs && !e->res.size_mismatch) {
      uint8_t *rgb = cmp_image_diff_picture(&ia, &ib, t->tolerance);
      char why[CMP_ERR_LEN];
      if (!rgb || !cmp_png_encode_rgb8(rgb, ia.width, ia.height, &e->png_diff,
                                       &e->png_diff_size, why)) {
         e->png_diff = NULL;
         e->png_diff_size = 0;
      }
      free(rgb);
   }
out:
   cmp_image_free(&ia);
   cmp_image_free(&ib);
}

void
cmp_image_entry_free(struct cmp_image_entry *e)
{
   free(e->png_a);
   free(e->png_b);
   free(e->png_diff);
   e->png_a = e->png_b = e->png_diff = NULL;
}

int
cmp_images_status(const struct cmp_image_entry *e, size_t n)
{
   int st = 0;
   for (size_t i = 0; i < n; i++) {
      if (e[i].error)
         return 2;
      if (e[i].res.size_mismatch || !e[i].res.pass)
         st = 1;
   }
   return st;
}

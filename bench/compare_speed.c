/* SPDX-License-Identifier: MIT */
/*
 * compare_speed: the cost of `tessera compare images` next to the cost of
 * just decoding the two PNGs, on a 1920x1080 RGBA render-like pair encoded
 * with libpng's default settings. The goal is compare <= 1.2x decode: the
 * metrics (including SSIM) must stay cheap next to inflating the files.
 * The diff picture (only made for --html / --diff-dir) is timed apart.
 */
#include <math.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "compare/compare.h"

#define W 1920
#define H 1080

static double
now(void)
{
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return ts.tv_sec + ts.tv_nsec * 1e-9;
}

struct buf {
   uint8_t *d;
   size_t n, cap;
};

static void
put(png_structp png, png_bytep data, size_t len)
{
   struct buf *b = png_get_io_ptr(png);
   if (b->n + len > b->cap) {
      b->cap = (b->n + len) * 2;
      b->d = realloc(b->d, b->cap);
      if (!b->d)
         abort();
   }
   memcpy(b->d + b->n, data, len);
   b->n += len;
}

static void
flush(png_structp png)
{
   (void)png;
}

/* A smooth gradient, shapes and some texture-like noise: compresses like
 * a real render target rather than like a flat clear colour. */
static struct buf
make_png(unsigned variant)
{
   uint8_t *rgba = malloc((size_t)W * H * 4);
   uint32_t s = 1;
   for (uint32_t y = 0; y < H; y++)
      for (uint32_t x = 0; x < W; x++) {
         uint8_t *p = rgba + 4 * ((size_t)y * W + x);
         s = s * 1103515245u + 12345u;
         unsigned n = (s >> 16) & 7;
         double d = hypot((double)x - W / 2, (double)y - H / 2);
         p[0] = (uint8_t)(x * 255 / W + n);
         p[1] = (uint8_t)(d < 300 ? 220 : y * 200 / H);
         p[2] = (uint8_t)(((x / 32 + y / 32) & 1) ? 180 : 60 + n);
         p[3] = 255;
         if (variant && x > 900 && x < 1000 && y > 500 && y < 540)
            p[0] ^= 0x10;
      }
   struct buf b = {0};
   png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL,
                                             NULL, NULL);
   png_infop info = png_create_info_struct(png);
   png_set_write_fn(png, &b, put, flush);
   png_set_IHDR(png, info, W, H, 8, PNG_COLOR_TYPE_RGBA, PNG_INTERLACE_NONE,
                PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
   png_write_info(png, info);
   for (uint32_t y = 0; y < H; y++)
      png_write_row(png, rgba + (size_t)y * W * 4);
   png_write_end(png, NULL);
   png_destroy_write_struct(&png, &info);
   free(rgba);
   return b;
}

int
main(int argc, char **argv)
{
   int iters = argc > 1 ? atoi(argv[1]) : 10;
   if (iters < 1)
      iters = 1;
   struct buf a = make_png(0), b = make_png(1);
   char err[CMP_ERR_LEN];
   struct cmp_image_thresholds t;
   cmp_image_thresholds_default(&t);
   struct cmp_image_result r;
   double best_dec = INFINITY, best_cmp = INFINITY, best_diff = INFINITY;

   /* Best of N for each part, measured apart: on a shared machine the
    * minimum is the stable statistic, and a sum of minima is steadier
    * than the minimum of a sum. */
   for (int i = 0; i < iters; i++) {
      struct cmp_image ia, ib;
      double t0 = now();
      if (!cmp_png_decode(a.d, a.n, &ia, err) ||
          !cmp_png_decode(b.d, b.n, &ib, err)) {
         fprintf(stderr, "compare_speed: %s\n", err);
         return 1;
      }
      double t1 = now();
      cmp_image_compare(&ia, &ib, &t, &r);
      double t2 = now();
      uint8_t *rgb = cmp_image_diff_picture(&ia, &ib, 0), *png;
      size_t size;
      if (!rgb || !cmp_png_encode_rgb8(rgb, W, H, &png, &size, err))
         return 1;
      double t3 = now();
      free(rgb);
      free(png);
      cmp_image_free(&ia);
      cmp_image_free(&ib);
      best_dec = fmin(best_dec, t1 - t0);
      best_cmp = fmin(best_cmp, t2 - t1);
      best_diff = fmin(best_diff, t3 - t2);
   }
   if (r.diff_pixels != 99 * 39) {
      fprintf(stderr, "compare_speed: wrong result (%llu pixels differ)\n",
              (unsigned long long)r.diff_pixels);
      return 1;
   }
   printf("image pair %dx%d RGBA8, PNGs of %zu and %zu bytes, best of %d\n",
          W, H, a.n, b.n, iters);
   printf("  decode (both)        %8.2f ms\n", best_dec * 1e3);
   printf("  metrics              %8.2f ms   (PSNR %.2f dB, SSIM %.5f)\n",
          best_cmp * 1e3, r.psnr, r.ssim);
   printf("  diff picture + PNG   %8.2f ms   (only with --html/--diff-dir)\n",
          best_diff * 1e3);
   double ratio = (best_dec + best_cmp) / best_dec;
   printf("ratio (decode + metrics) / decode: %.3f (goal <= 1.20) %s\n", ratio,
          ratio <= 1.2 ? "ok" : "OVER GOAL");
   free(a.d);
   free(b.d);
   return 0;
}

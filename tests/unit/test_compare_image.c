/* SPDX-License-Identifier: MIT */
/*
 * compare: image metrics against values computed here independently
 * (closed forms and a direct, unoptimised SSIM), PNG decoding of every
 * supported layout, and the error paths (missing, corrupt, size mismatch).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <jansson.h>
#include <math.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compare/compare.h"

static char tmpdir[] = "/tmp/test_compare_XXXXXX";

/* ------------------------------------------------------------ helpers */

static struct cmp_image
make(uint32_t w, uint32_t h, unsigned depth)
{
   struct cmp_image im = {w, h, depth, false, false, NULL};
   im.px = calloc((size_t)w * h * 4, sizeof(uint16_t));
   assert_non_null(im.px);
   for (size_t i = 0; i < (size_t)w * h; i++)
      im.px[4 * i + 3] = depth == 16 ? 0xffff : 0xff;
   return im;
}

static uint32_t lcg = 12345;
static unsigned
rnd(unsigned n)
{
   lcg = lcg * 1664525u + 1013904223u;
   return (lcg >> 8) % n;
}

static struct cmp_image
make_random(uint32_t w, uint32_t h)
{
   struct cmp_image im = make(w, h, 8);
   for (size_t i = 0; i < (size_t)w * h; i++)
      for (unsigned c = 0; c < 3; c++)
         im.px[4 * i + c] = (uint16_t)rnd(256);
   return im;
}

static struct cmp_image
copy(const struct cmp_image *a)
{
   struct cmp_image b = *a;
   size_t n = (size_t)a->width * a->height * 4 * sizeof(uint16_t);
   b.px = malloc(n);
   assert_non_null(b.px);
   memcpy(b.px, a->px, n);
   return b;
}

static struct cmp_image_thresholds
strict(void)
{
   struct cmp_image_thresholds t;
   cmp_image_thresholds_default(&t);
   return t;
}

/* Straight from the definition: every 8x8 window at stride 4, doubles. */
static double
naive_ssim(const struct cmp_image *a, const struct cmp_image *b)
{
   double sum = 0;
   int nw = 0;
   for (uint32_t y0 = 0; y0 + 8 <= a->height; y0 += 4) {
      for (uint32_t x0 = 0; x0 + 8 <= a->width; x0 += 4) {
         double mx = 0, my = 0, vx = 0, vy = 0, cxy = 0;
         double X[64], Y[64];
         for (int k = 0; k < 64; k++) {
            const uint16_t *p = a->px + 4 * ((y0 + k / 8) * a->width + x0 + k % 8);
            const uint16_t *q = b->px + 4 * ((y0 + k / 8) * b->width + x0 + k % 8);
            X[k] = (0.299 * p[0] + 0.587 * p[1] + 0.114 * p[2]) / 255.0;
            Y[k] = (0.299 * q[0] + 0.587 * q[1] + 0.114 * q[2]) / 255.0;
            mx += X[k] / 64;
            my += Y[k] / 64;
         }
         for (int k = 0; k < 64; k++) {
            vx += (X[k] - mx) * (X[k] - mx) / 64;
            vy += (Y[k] - my) * (Y[k] - my) / 64;
            cxy += (X[k] - mx) * (Y[k] - my) / 64;
         }
         double c1 = 1e-4, c2 = 9e-4;
         sum += (2 * mx * my + c1) * (2 * cxy + c2) /
                ((mx * mx + my * my + c1) * (vx + vy + c2));
         nw++;
      }
   }
   return sum / nw;
}

/* A PNG written with libpng's own writer, any layout. */
static int interlace = PNG_INTERLACE_NONE;

static void
write_png(const char *path, uint32_t w, uint32_t h, int depth, int color,
          const uint8_t *data, size_t rowbytes, const png_color *pal,
          int npal)
{
   FILE *fp = fopen(path, "wb");
   assert_non_null(fp);
   png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL,
                                             NULL, NULL);
   png_infop info = png_create_info_struct(png);
   png_init_io(png, fp);
   png_set_IHDR(png, info, w, h, depth, color, interlace,
                PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
   if (pal)
      png_set_PLTE(png, info, pal, npal);
   png_write_info(png, info);
   int passes = png_set_interlace_handling(png);
   for (int pass = 0; pass < passes; pass++)
      for (uint32_t y = 0; y < h; y++)
         png_write_row(png, data + y * rowbytes);
   png_write_end(png, NULL);
   png_destroy_write_struct(&png, &info);
   fclose(fp);
}

static char *
tpath(const char *name)
{
   static char buf[8][256];
   static int k;
   char *p = buf[k++ % 8];
   snprintf(p, 256, "%s/%s", tmpdir, name);
   return p;
}

/* ------------------------------------------------------------ metrics */

static void
test_identical(void **state)
{
   (void)state;
   struct cmp_image a = make_random(37, 29), b = copy(&a);
   struct cmp_image_thresholds t = strict();
   struct cmp_image_result r;
   cmp_image_compare(&a, &b, &t, &r);
   assert_false(r.size_mismatch);
   assert_int_equal(r.max_diff, 0);
   assert_int_equal(r.diff_pixels, 0);
   assert_false(r.has_bbox);
   assert_true(isinf(r.psnr) && r.psnr > 0);
   assert_true(r.ssim == 1.0);
   assert_true(r.pass);
   assert_string_equal(r.reason, "");
   cmp_image_free(&a);
   cmp_image_free(&b);
}

static void
test_constant_offset(void **state)
{
   (void)state;
   const unsigned k = 5;
   struct cmp_image a = make_random(40, 24), b = copy(&a);
   for (size_t i = 0; i < 40 * 24; i++)
      for (unsigned c = 0; c < 3; c++) {
         if (a.px[4 * i + c] > 250)
            a.px[4 * i + c] = 250;
         b.px[4 * i + c] = a.px[4 * i + c] + k;
      }
   struct cmp_image_thresholds t = strict();
   struct cmp_image_result r;
   cmp_image_compare(&a, &b, &t, &r);
   /* Every compared value is off by k: MSE = k^2. */
   assert_true(fabs(r.mse - (double)(k * k)) < 1e-9);
   assert_true(fabs(r.psnr - 10 * log10(255.0 * 255.0 / (k * k))) < 1e-9);
   assert_int_equal(r.max_diff, k);
   assert_int_equal(r.diff_pixels, 40 * 24);
   assert_true(r.diff_fraction == 1.0);
   assert_int_equal(r.bbox_x0, 0);
   assert_int_equal(r.bbox_y0, 0);
   assert_int_equal(r.bbox_x1, 39);
   assert_int_equal(r.bbox_y1, 23);
   assert_false(r.pass);
   assert_non_null(strstr(r.reason, "960 pixels differ by more than 0"));
   assert_true(fabs(r.ssim - naive_ssim(&a, &b)) < 1e-5);

   /* Within tolerance: nothing counts, PSNR is unchanged. */
   t.tolerance = k;
   cmp_image_compare(&a, &b, &t, &r);
   assert_int_equal(r.diff_pixels, 0);
   assert_true(r.pass);
   t.tolerance = k - 1;
   cmp_image_compare(&a, &b, &t, &r);
   assert_int_equal(r.diff_pixels, 40 * 24);
   cmp_image_free(&a);
   cmp_image_free(&b);
}

static void
test_known_pixels_bbox(void **state)
{
   (void)state;
   struct cmp_image a = make(32, 32, 8), b = make(32, 32, 8);
   b.px[4 * (4 * 32 + 3) + 0] = 200;   /* (3,4) red +200 */
   b.px[4 * (7 * 32 + 10) + 1] = 30;   /* (10,7) green +30 */
   b.px[4 * (12 * 32 + 5) + 2] = 2;    /* (5,12) blue +2 */
   struct cmp_image_thresholds t = strict();
   struct cmp_image_result r;
   cmp_image_compare(&a, &b, &t, &r);
   assert_int_equal(r.diff_pixels, 3);
   assert_int_equal(r.max_diff, 200);
   assert_true(r.has_bbox);
   assert_int_equal(r.bbox_x0, 3);
   assert_int_equal(r.bbox_y0, 4);
   assert_int_equal(r.bbox_x1, 10);
   assert_int_equal(r.bbox_y1, 12);
   /* MSE over 32*32*3 values. */
   double mse = (200.0 * 200 + 30 * 30 + 2 * 2) / (32 * 32 * 3);
   assert_true(fabs(r.mse - mse) < 1e-12);
   assert_true(fabs(r.ssim - naive_ssim(&a, &b)) < 1e-5);

   /* Tolerance 2 drops the blue pixel: bbox shrinks. */
   t.tolerance = 2;
   cmp_image_compare(&a, &b, &t, &r);
   assert_int_equal(r.diff_pixels, 2);
   assert_int_equal(r.bbox_y1, 7);
   /* Thresholds: allow 2 pixels; then require PSNR above its value. */
   t.max_diff_pixels = 2;
   cmp_image_compare(&a, &b, &t, &r);
   assert_true(r.pass);
   t.min_psnr = r.psnr + 0.01;
   cmp_image_compare(&a, &b, &t, &r);
   assert_false(r.pass);
   assert_non_null(strstr(r.reason, "PSNR"));
   t.min_psnr = -1;
   t.min_ssim = 0.9999;
   cmp_image_compare(&a, &b, &t, &r);
   assert_false(r.pass);
   assert_non_null(strstr(r.reason, "SSIM"));
   t.min_ssim = -2;
   t.max_diff_pixels = -1;
   t.max_diff_fraction = 1.0 / 1024;   /* 2/1024 pixels differ */
   cmp_image_compare(&a, &b, &t, &r);
   assert_false(r.pass);
   t.max_diff_fraction = 2.0 / 1024;
   cmp_image_compare(&a, &b, &t, &r);
   assert_true(r.pass);

   /* The diff picture: red above tolerance, yellow below, grey elsewhere. */
   uint8_t *d = cmp_image_diff_picture(&a, &b, 2);
   assert_non_null(d);
   const uint8_t *p = d + 3 * (4 * 32 + 3);
   assert_true(p[0] > 200 && p[1] == 0);
   p = d + 3 * (12 * 32 + 5);
   assert_true(p[0] == 110 && p[1] == 100 && p[2] == 0);
   p = d + 3 * 0;
   assert_true(p[0] == p[1] && p[1] == p[2] && p[0] < 90);
   free(d);
   cmp_image_free(&a);
   cmp_image_free(&b);
}

static void
test_ssim_closed_forms(void **state)
{
   (void)state;
   /* Two flat images: only the luminance term is left,
    * (2ab + C1) / (a^2 + b^2 + C1), the same in every window. */
   struct cmp_image a = make(24, 16, 8), b = make(24, 16, 8);
   for (size_t i = 0; i < 24 * 16; i++)
      for (unsigned c = 0; c < 3; c++) {
         a.px[4 * i + c] = 100;
         b.px[4 * i + c] = 150;
      }
   struct cmp_image_thresholds t = strict();
   struct cmp_image_result r;
   cmp_image_compare(&a, &b, &t, &r);
   double x = 100 / 255.0, y = 150 / 255.0, c1 = 1e-4;
   assert_true(fabs(r.ssim - (2 * x * y + c1) / (x * x + y * y + c1)) < 1e-6);

   /* Noisy content against a perturbed copy, vs the direct definition. */
   struct cmp_image n = make_random(53, 41), m = copy(&n);
   for (size_t i = 0; i < 53 * 41; i++)
      for (unsigned c = 0; c < 3; c++) {
         int v = m.px[4 * i + c] + (int)rnd(41) - 20;
         m.px[4 * i + c] = (uint16_t)(v < 0 ? 0 : v > 255 ? 255 : v);
      }
   cmp_image_compare(&n, &m, &t, &r);
   double want = naive_ssim(&n, &m);
   assert_true(want < 0.99 && want > 0.5);
   assert_true(fabs(r.ssim - want) < 1e-5);
   cmp_image_free(&a);
   cmp_image_free(&b);
   cmp_image_free(&n);
   cmp_image_free(&m);
}

static void
test_size_mismatch(void **state)
{
   (void)state;
   struct cmp_image a = make(10, 10, 8), b = make(10, 11, 8);
   struct cmp_image_thresholds t = strict();
   struct cmp_image_result r;
   cmp_image_compare(&a, &b, &t, &r);
   assert_true(r.size_mismatch);
   assert_false(r.pass);
   assert_string_equal(r.reason,
                       "size mismatch: reference is 10x10, actual is 10x11");
   assert_null(cmp_image_diff_picture(&a, &b, 0));
   cmp_image_free(&a);
   cmp_image_free(&b);
}

static void
test_mixed_depth(void **state)
{
   (void)state;
   /* v in 8 bits equals v * 257 in 16 bits: no difference at all. */
   struct cmp_image a = make_random(16, 16), b = make(16, 16, 16);
   for (size_t i = 0; i < 16 * 16 * 4; i++)
      b.px[i] = (uint16_t)(a.px[i] * 257);
   struct cmp_image_thresholds t = strict();
   struct cmp_image_result r;
   cmp_image_compare(&a, &b, &t, &r);
   assert_int_equal(r.depth, 16);
   assert_int_equal(r.max_diff, 0);
   assert_true(r.pass);
   b.px[0] += 1;
   cmp_image_compare(&a, &b, &t, &r);
   assert_int_equal(r.max_diff, 1);
   assert_true(fabs(r.psnr - 10 * log10(65535.0 * 65535 / (1.0 / (256 * 3)))) <
               1e-9);
   cmp_image_free(&a);
   cmp_image_free(&b);
}

/* ------------------------------------------------------------ PNG I/O */

static void
test_png_layouts(void **state)
{
   (void)state;
   char err[CMP_ERR_LEN];
   struct cmp_image im;
   uint8_t buf[4 * 3 * 8];

   /* 8-bit grey */
   for (int i = 0; i < 12; i++)
      buf[i] = (uint8_t)(i * 20);
   write_png(tpath("g8.png"), 4, 3, 8, PNG_COLOR_TYPE_GRAY, buf, 4, NULL, 0);
   assert_true(cmp_png_load(tpath("g8.png"), &im, NULL, NULL, err));
   assert_int_equal(im.depth, 8);
   assert_true(im.is_grey && !im.has_alpha);
   assert_int_equal(im.px[4 * 5 + 0], 100);
   assert_int_equal(im.px[4 * 5 + 2], 100);
   assert_int_equal(im.px[4 * 5 + 3], 255);
   cmp_image_free(&im);

   /* 8-bit RGBA */
   for (int i = 0; i < 48; i++)
      buf[i] = (uint8_t)(i * 5);
   write_png(tpath("rgba8.png"), 4, 3, 8, PNG_COLOR_TYPE_RGBA, buf, 16, NULL,
             0);
   assert_true(cmp_png_load(tpath("rgba8.png"), &im, NULL, NULL, err));
   assert_true(im.has_alpha && !im.is_grey);
   assert_int_equal(im.width, 4);
   assert_int_equal(im.height, 3);
   for (int i = 0; i < 48; i++)
      assert_int_equal(im.px[i], i * 5);
   cmp_image_free(&im);

   /* 8-bit RGB */
   write_png(tpath("rgb8.png"), 4, 3, 8, PNG_COLOR_TYPE_RGB, buf, 12, NULL, 0);
   assert_true(cmp_png_load(tpath("rgb8.png"), &im, NULL, NULL, err));
   assert_int_equal(im.px[4 * 1 + 0], 15);
   assert_int_equal(im.px[4 * 1 + 3], 255);
   cmp_image_free(&im);

   /* 16-bit RGB, big-endian samples */
   uint8_t b16[4 * 3 * 6];
   for (int i = 0; i < 36; i++) {
      b16[2 * i] = (uint8_t)(i * 7);
      b16[2 * i + 1] = (uint8_t)(0x80 | i);
   }
   write_png(tpath("rgb16.png"), 4, 3, 16, PNG_COLOR_TYPE_RGB, b16, 24, NULL,
             0);
   assert_true(cmp_png_load(tpath("rgb16.png"), &im, NULL, NULL, err));
   assert_int_equal(im.depth, 16);
   assert_int_equal(im.px[4 * 2 + 1], (7 * 7) << 8 | (0x80 | 7));
   assert_int_equal(im.px[3], 0xffff);
   cmp_image_free(&im);

   /* 16-bit grey + alpha */
   uint8_t ga[4 * 3 * 4];
   for (int i = 0; i < 48; i++)
      ga[i] = (uint8_t)(i + 1);
   write_png(tpath("ga16.png"), 4, 3, 16, PNG_COLOR_TYPE_GRAY_ALPHA, ga, 16,
             NULL, 0);
   assert_true(cmp_png_load(tpath("ga16.png"), &im, NULL, NULL, err));
   assert_true(im.is_grey && im.has_alpha);
   assert_int_equal(im.px[4 * 1 + 0], 5 << 8 | 6);
   assert_int_equal(im.px[4 * 1 + 1], 5 << 8 | 6);
   assert_int_equal(im.px[4 * 1 + 3], 7 << 8 | 8);
   cmp_image_free(&im);

   /* palette, 4-bit indices */
   png_color pal[3] = {{1, 2, 3}, {40, 50, 60}, {200, 100, 0}};
   uint8_t idx[2 * 2] = {0x01, 0x20, 0x12, 0x00};
   write_png(tpath("pal.png"), 4, 2, 4, PNG_COLOR_TYPE_PALETTE, idx, 2, pal, 3);
   assert_true(cmp_png_load(tpath("pal.png"), &im, NULL, NULL, err));
   assert_int_equal(im.px[4 * 1 + 0], 40);
   assert_int_equal(im.px[4 * 2 + 0], 200);
   assert_int_equal(im.px[4 * 4 + 2], 60);
   cmp_image_free(&im);

   /* Adam7-interlaced 16-bit RGBA: libpng's passes, whole-image path. */
   static uint8_t il[13 * 11 * 8];
   for (size_t i = 0; i < sizeof(il); i++)
      il[i] = (uint8_t)(i * 13 + 7);
   interlace = PNG_INTERLACE_ADAM7;
   write_png(tpath("il.png"), 13, 11, 16, PNG_COLOR_TYPE_RGBA, il, 13 * 8,
             NULL, 0);
   interlace = PNG_INTERLACE_NONE;
   assert_true(cmp_png_load(tpath("il.png"), &im, NULL, NULL, err));
   assert_int_equal(im.width, 13);
   assert_int_equal(im.height, 11);
   for (size_t i = 0; i < 13 * 11 * 4; i++)
      assert_int_equal(im.px[i], il[2 * i] << 8 | il[2 * i + 1]);
   cmp_image_free(&im);

   /* Encoding our diff pictures decodes back to the same bytes. */
   uint8_t rgb[5 * 4 * 3];
   for (int i = 0; i < 60; i++)
      rgb[i] = (uint8_t)(i * 4);
   uint8_t *png;
   size_t size;
   assert_true(cmp_png_encode_rgb8(rgb, 5, 4, &png, &size, err));
   assert_true(cmp_png_decode(png, size, &im, err));
   for (int i = 0; i < 20; i++)
      for (int c = 0; c < 3; c++)
         assert_int_equal(im.px[4 * i + c], rgb[3 * i + c]);
   cmp_image_free(&im);
   free(png);
}

static void
test_png_errors(void **state)
{
   (void)state;
   char err[CMP_ERR_LEN];
   struct cmp_image im;
   assert_false(cmp_png_load(tpath("nope.png"), &im, NULL, NULL, err));
   assert_non_null(strstr(err, "cannot open"));
   assert_non_null(strstr(err, "No such file"));

   FILE *fp = fopen(tpath("text.png"), "w");
   fputs("this is not an image\n", fp);
   fclose(fp);
   assert_false(cmp_png_load(tpath("text.png"), &im, NULL, NULL, err));
   assert_non_null(strstr(err, "not a PNG file"));

   /* A real PNG cut short, and one with damaged compressed data. */
   uint8_t buf[64 * 64 * 3];
   for (size_t i = 0; i < sizeof(buf); i++)
      buf[i] = (uint8_t)(i * 31 + (i >> 7));
   write_png(tpath("full.png"), 64, 64, 8, PNG_COLOR_TYPE_RGB, buf, 192, NULL,
             0);
   fp = fopen(tpath("full.png"), "rb");
   static uint8_t file[65536];
   size_t n = fread(file, 1, sizeof(file), fp);
   fclose(fp);
   assert_true(n > 200);
   assert_false(cmp_png_decode(file, n / 2, &im, err));
   assert_non_null(strstr(err, "corrupt or unsupported PNG"));
   for (size_t i = 60; i < 80; i++)
      file[i] ^= 0xa5;
   assert_false(cmp_png_decode(file, n, &im, err));
   assert_non_null(strstr(err, "corrupt or unsupported PNG"));
   assert_null(im.px);
}

/* ------------------------------------------------------------ pairs */

static void
put(const char *rel, const struct cmp_image *im)
{
   uint8_t *rgb = malloc((size_t)im->width * im->height * 3);
   for (size_t i = 0; i < (size_t)im->width * im->height; i++)
      for (int c = 0; c < 3; c++)
         rgb[3 * i + c] = (uint8_t)im->px[4 * i + c];
   write_png(tpath(rel), im->width, im->height, 8, PNG_COLOR_TYPE_RGB, rgb,
             im->width * 3, NULL, 0);
   free(rgb);
}

/* --swap-calls: frame F's snapshot (named by its swap call) with the last
 * colour target of frame F of the same size; frames without a snapshot
 * skipped, one without a target kept with no second image. */
static void
test_swap_pairs(void **state)
{
   (void)state;
   char err[CMP_ERR_LEN];
   mkdir(tpath("live"), 0777);
   mkdir(tpath("rep"), 0777);
   struct cmp_image a = make_random(8, 4), small = make_random(4, 4);
   put("live/0000000005.png", &a);          /* frame 0 */
   put("live/0000000012.png", &a);          /* frame 2 */
   put("rep/f0000_s00000_color0.png", &a);
   put("rep/f0000_s00001_color0.png", &a);  /* the later one wins */
   put("rep/f0000_s00002_color1.png", &small); /* another size: not it */
   put("rep/f0000_s00002_depth.png", &a);   /* not a colour target */
   put("rep/f0001_s00003_color0.png", &a);  /* frame 1: no snapshot */
   FILE *f = fopen(tpath("swaps"), "w");
   fputs("5\n9\n12\n", f);
   fclose(f);
   struct cmp_pair_list l;
   assert_true(cmp_pairs_swaps(tpath("swaps"), tpath("live"), tpath("rep"), &l, err));
   assert_int_equal(l.n, 2);
   assert_string_equal(l.v[0].name, "frame0000.png");
   assert_non_null(strstr(l.v[0].path_a, "live/0000000005.png"));
   assert_non_null(strstr(l.v[0].path_b, "rep/f0000_s00001_color0.png"));
   assert_string_equal(l.v[1].name, "frame0002.png");
   assert_null(l.v[1].path_b);
   cmp_pairs_free(&l);

   f = fopen(tpath("bad"), "w");
   fputs("5\n-3\n", f);
   fclose(f);
   assert_false(cmp_pairs_swaps(tpath("bad"), tpath("live"), tpath("rep"), &l, err));
   assert_non_null(strstr(err, "not a call number"));
   assert_false(cmp_pairs_swaps(tpath("swaps"), tpath("rep"), tpath("rep"), &l, err));
   assert_non_null(strstr(err, "no snapshot"));
   assert_false(cmp_pairs_swaps(tpath("nothere"), tpath("live"), tpath("rep"), &l, err));
   assert_false(cmp_pairs_swaps(tpath("swaps"), tpath("live"), tpath("nodir"), &l, err));
   free(a.px);
   free(small.px);
}

static void
test_directories(void **state)
{
   (void)state;
   char err[CMP_ERR_LEN];
   mkdir(tpath("A"), 0777);
   mkdir(tpath("A/sub"), 0777);
   mkdir(tpath("B"), 0777);
   mkdir(tpath("B/sub"), 0777);
   struct cmp_image x = make_random(12, 12), y = copy(&x);
   y.px[4 * 30] ^= 0x40;
   put("A/one.png", &x);
   put("B/one.png", &x);
   put("A/sub/two.png", &x);
   put("B/sub/two.png", &y);
   put("A/three.png", &x);            /* missing from B */
   struct cmp_pair_list l;
   assert_true(cmp_pairs_find(tpath("A"), tpath("B"), &l, err));
   assert_int_equal(l.n, 3);
   assert_string_equal(l.v[0].name, "one.png");
   assert_string_equal(l.v[1].name, "sub/two.png");
   assert_string_equal(l.v[2].name, "three.png");
   assert_null(l.v[2].path_b);

   struct cmp_image_thresholds t = strict();
   struct cmp_image_entry e[3] = {{0}};
   for (int i = 0; i < 3; i++) {
      e[i].name = l.v[i].name;
      e[i].path_a = l.v[i].path_a;
      e[i].path_b = l.v[i].path_b;
      cmp_image_entry_run(&e[i], &t, true);
   }
   assert_true(e[0].res.pass);
   assert_false(e[1].res.pass);
   assert_int_equal(e[1].res.diff_pixels, 1);
   assert_int_equal(e[1].res.bbox_x0, 30 % 12);
   assert_int_equal(e[1].res.bbox_y0, 30 / 12);
   assert_non_null(e[1].png_diff);
   assert_true(e[2].error);
   assert_non_null(strstr(e[2].error_msg, "missing from the actual images"));
   assert_int_equal(cmp_images_status(e, 2), 1);
   assert_int_equal(cmp_images_status(e, 3), 2);
   assert_int_equal(cmp_images_status(e, 1), 0);

   /* The JSON report holds the same numbers. */
   char *js = cmp_report_images_json(e, 3, &t);
   json_error_t je;
   json_t *root = json_loads(js, 0, &je);
   assert_non_null(root);
   json_t *imgs = json_object_get(root, "images");
   assert_int_equal(json_array_size(imgs), 3);
   json_t *two = json_array_get(imgs, 1);
   assert_string_equal(json_string_value(json_object_get(two, "status")),
                       "fail");
   assert_int_equal(json_integer_value(json_object_get(two, "diff_pixels")), 1);
   assert_true(json_is_null(json_object_get(json_array_get(imgs, 0), "psnr")));
   assert_int_equal(json_integer_value(json_object_get(root, "status")), 2);
   json_decref(root);
   free(js);

   /* The HTML page: written, embeds three images per compared pair. */
   assert_true(cmp_html_images(tpath("html"), e, 3, &t, err));
   {
      FILE *fp = fopen(tpath("html/index.html"), "r");
      assert_non_null(fp);
      static char page[1 << 16];
      size_t n = fread(page, 1, sizeof(page) - 1, fp);
      page[n] = 0;
      fclose(fp);
      int imgs_n = 0;
      for (char *p = page; (p = strstr(p, "data:image/png;base64,")); p++)
         imgs_n++;
      assert_int_equal(imgs_n, 6);
      assert_non_null(strstr(page, "missing from the actual images"));
   }

   for (int i = 0; i < 3; i++)
      cmp_image_entry_free(&e[i]);
   cmp_pairs_free(&l);

   /* A file against a directory is a usage error. */
   assert_false(cmp_pairs_find(tpath("A/one.png"), tpath("B"), &l, err));
   assert_non_null(strstr(err, "give two files or two directories"));
   assert_false(cmp_pairs_find(tpath("nothere"), tpath("B"), &l, err));
   assert_non_null(strstr(err, "cannot open"));
   cmp_image_free(&x);
   cmp_image_free(&y);
}

static int
setup(void **state)
{
   (void)state;
   return mkdtemp(tmpdir) ? 0 : -1;
}

static int
teardown(void **state)
{
   (void)state;
   char cmd[512];
   snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
   return system(cmd) == 0 ? 0 : -1;
}

int
main(void)
{
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_identical),
      cmocka_unit_test(test_constant_offset),
      cmocka_unit_test(test_known_pixels_bbox),
      cmocka_unit_test(test_ssim_closed_forms),
      cmocka_unit_test(test_size_mismatch),
      cmocka_unit_test(test_mixed_depth),
      cmocka_unit_test(test_png_layouts),
      cmocka_unit_test(test_png_errors),
      cmocka_unit_test(test_directories),
      cmocka_unit_test(test_swap_pairs),
   };
   return cmocka_run_group_tests(tests, setup, teardown);
}

/* SPDX-License-Identifier: MIT */
/*
 * PNG files through libpng. libpng reports errors by longjmp; every libpng
 * call therefore lives in a function whose locals the longjmp cannot leave
 * stale (the volatile file pointer), and cleanup happens in one place.
 */
#include "replay/replay_image.h"

#include <errno.h>
#include <png.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void
set_err(char *err, size_t size, const char *fmt, ...)
{
   va_list ap;
   va_start(ap, fmt);
   vsnprintf(err, size, fmt, ap);
   va_end(ap);
}

bool
replay_png_write(const char *path, const uint8_t *rgba, uint32_t w, uint32_t h,
                 char *err, size_t err_size)
{
   FILE *volatile fp = fopen(path, "wb");
   if (!fp) {
      set_err(err, err_size, "%s: %s", path, strerror(errno));
      return false;
   }
   png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
   png_infop info = png ? png_create_info_struct(png) : NULL;
   if (!info) {
      png_destroy_write_struct(&png, NULL);
      fclose(fp);
      set_err(err, err_size, "%s: libpng initialisation failed", path);
      return false;
   }
   if (setjmp(png_jmpbuf(png))) {
      png_destroy_write_struct(&png, &info);
      fclose(fp);
      set_err(err, err_size, "%s: libpng failed writing the image", path);
      return false;
   }
   png_init_io(png, fp);
   /* Fast and deterministic: the files are compared, not archived. */
   png_set_compression_level(png, 1);
   png_set_IHDR(png, info, w, h, 8, PNG_COLOR_TYPE_RGBA, PNG_INTERLACE_NONE,
                PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
   png_write_info(png, info);
   for (uint32_t y = 0; y < h; y++)
      png_write_row(png, (png_const_bytep)(rgba + (size_t)y * w * 4));
   png_write_end(png, NULL);
   png_destroy_write_struct(&png, &info);
   if (fclose(fp) != 0) {
      set_err(err, err_size, "%s: %s", path, strerror(errno));
      return false;
   }
   return true;
}

bool
replay_png_read(const char *path, uint8_t **rgba, uint32_t *w, uint32_t *h,
                char *err, size_t err_size)
{
   png_image img;
   memset(&img, 0, sizeof(img));
   img.version = PNG_IMAGE_VERSION;
   *rgba = NULL;
   if (!png_image_begin_read_from_file(&img, path)) {
      set_err(err, err_size, "%s: %s", path, img.message);
      return false;
   }
   img.format = PNG_FORMAT_RGBA;
   uint8_t *px = malloc(PNG_IMAGE_SIZE(img));
   if (!px || !png_image_finish_read(&img, NULL, px, 0, NULL)) {
      set_err(err, err_size, "%s: %s", path, px ? img.message : "out of memory");
      free(px);
      png_image_free(&img);
      return false;
   }
   *rgba = px;
   *w = img.width;
   *h = img.height;
   return true;
}

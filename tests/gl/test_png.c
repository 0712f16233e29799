/* SPDX-License-Identifier: MIT */
/* test_png: contract in test_png.h. */
#include <png.h>
#include <stdio.h>

#include "tests/gl/test_png.h"

bool
test_png_write_rgba(const char *path, const uint8_t *px, unsigned w, unsigned h)
{
   FILE *f = fopen(path, "wb");
   if (!f)
      return false;
   png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
   png_infop info = png ? png_create_info_struct(png) : NULL;
   if (!png || !info || setjmp(png_jmpbuf(png))) {
      png_destroy_write_struct(&png, info ? &info : NULL);
      fclose(f);
      return false;
   }
   png_init_io(png, f);
   png_set_IHDR(png, info, w, h, 8, PNG_COLOR_TYPE_RGBA, PNG_INTERLACE_NONE,
                PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
   png_write_info(png, info);
   for (unsigned y = 0; y < h; y++)
      png_write_row(png, (png_const_bytep)(px + (size_t)y * w * 4));
   png_write_end(png, NULL);
   png_destroy_write_struct(&png, &info);
   return fclose(f) == 0;
}

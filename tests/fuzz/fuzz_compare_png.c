/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer: PNG decoding through libpng, then the metrics and the diff
 * picture on the decoded image (compared with a copy changed in one pixel).
 */
#include <stdlib.h>
#include <string.h>

#include "compare/compare.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
   char err[CMP_ERR_LEN];
   struct cmp_image a;
   if (!cmp_png_decode(data, size, &a, err))
      return 0;
   struct cmp_image b = a;
   size_t n = (size_t)a.width * a.height * 4;
   b.px = malloc(n * sizeof(uint16_t));
   if (b.px) {
      memcpy(b.px, a.px, n * sizeof(uint16_t));
      if (n)
         b.px[0] ^= 1;
      struct cmp_image_thresholds t;
      cmp_image_thresholds_default(&t);
      struct cmp_image_result r;
      cmp_image_compare(&a, &b, &t, &r);
      if (n && (r.diff_pixels != 1 || r.max_diff != 1))
         abort();
      free(cmp_image_diff_picture(&a, &b, 0));
      cmp_image_free(&b);
   }
   cmp_image_free(&a);
   return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * hw_tex_astc.c against the reference: piglit's ASTC miptrees
 * (tests/spec/khr_texture_compression_astc/compressed/2D/{ldrl,ldrs}, 14
 * block footprints, 8 levels of 160x106) and the decodes astcenc, the
 * Khronos reference codec, made of them (decompressed/2D/..., RGB8 and
 * sRGB8_ALPHA8).  Every texel of every level must match within 1/255
 * (the references are 8-bit).  Skipped when piglit's data is not
 * installed (PIGLIT_SOURCE_DIR or Debian's piglit package).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include <cmocka.h>

#include "hw/tex/hw_tex_compressed.h"

struct ktx {
   uint8_t *data;
   long size;
};

static bool
ktx_read(const char *path, struct ktx *k)
{
   FILE *f = fopen(path, "rb");
   if (!f)
      return false;
   fseek(f, 0, SEEK_END);
   k->size = ftell(f);
   fseek(f, 0, SEEK_SET);
   k->data = malloc((size_t)k->size);
   bool ok = k->data && fread(k->data, 1, (size_t)k->size, f) == (size_t)k->size && k->size > 64;
   fclose(f);
   return ok;
}

static uint32_t
u32(const uint8_t *p)
{
   return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static const char *
piglit_dir(void)
{
   const char *d = getenv("PIGLIT_SOURCE_DIR");
   return d && *d ? d : "/usr/lib/x86_64-linux-gnu/piglit";
}

/* Largest difference (0..255) between our decode and the reference over
 * every texel of every level; -1 if the files are missing. */
static int
compare(const char *mode, unsigned bw, unsigned bh)
{
   char pc[512], pd[512];
   snprintf(pc, sizeof(pc), "%s/tests/spec/khr_texture_compression_astc/compressed/2D/%s/waffles-%ux%u.ktx",
            piglit_dir(), mode, bw, bh);
   snprintf(pd, sizeof(pd), "%s/tests/spec/khr_texture_compression_astc/decompressed/2D/%s/waffles-%ux%u.ktx",
            piglit_dir(), mode, bw, bh);
   struct ktx c, d;
   if (!ktx_read(pc, &c) || !ktx_read(pd, &d))
      return -1;
   bool srgb = strcmp(mode, "ldrs") == 0;
   /* KTX 1 header: 12-byte identifier, then 13 words. */
   uint32_t w0 = u32(c.data + 36), h0 = u32(c.data + 40), levels = u32(c.data + 56);
   unsigned bpp = u32(d.data + 24) == 0x1908 /* GL_RGBA */ ? 4 : 3;
   long oc = 64 + u32(c.data + 60), od = 64 + u32(d.data + 60);
   int worst = 0;
   for (uint32_t l = 0; l < levels; l++) {
      uint32_t w = w0 >> l ? w0 >> l : 1, h = h0 >> l ? h0 >> l : 1;
      uint32_t sc = u32(c.data + oc), sd = u32(d.data + od);
      oc += 4;
      od += 4;
      uint32_t bx = (w + bw - 1) / bw, pitch = (w * bpp + 3) & ~3u;
      assert_true(oc + sc <= c.size && od + sd <= d.size);
      for (uint32_t y = 0; y < h; y++) {
         for (uint32_t x = 0; x < w; x++) {
            float o[4];
            hw_tex_astc_texel(c.data + oc + 16 * ((y / bh) * bx + x / bw), bw, bh, x % bw,
                              y % bh, srgb, o);
            for (unsigned k = 0; k < bpp; k++) {
               int v = (int)lrintf(o[k] * 255.0f);
               int r = d.data[od + y * pitch + x * bpp + k];
               if (abs(v - r) > worst)
                  worst = abs(v - r);
            }
         }
      }
      oc += (sc + 3) & ~3u;
      od += (sd + 3) & ~3u;
   }
   free(c.data);
   free(d.data);
   return worst;
}

static const unsigned dims[14][2] = {
   { 4, 4 }, { 5, 4 }, { 5, 5 }, { 6, 5 }, { 6, 6 }, { 8, 5 }, { 8, 6 },
   { 8, 8 }, { 10, 5 }, { 10, 6 }, { 10, 8 }, { 10, 10 }, { 12, 10 }, { 12, 12 },
};

static void
run_mode(const char *mode)
{
   for (unsigned i = 0; i < 14; i++) {
      int worst = compare(mode, dims[i][0], dims[i][1]);
      if (worst < 0) {
         print_message("piglit's ASTC data not found under %s\n", piglit_dir());
         skip();
      }
      if (worst > 1)
         fail_msg("%s %ux%u: a texel differs by %d/255 from astcenc's decode", mode,
                  dims[i][0], dims[i][1], worst);
   }
}

static void
test_ldr_linear(void **state)
{
   (void)state;
   run_mode("ldrl");
}

static void
test_ldr_srgb(void **state)
{
   (void)state;
   run_mode("ldrs");
}

int
main(void)
{
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_ldr_linear),
      cmocka_unit_test(test_ldr_srgb),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}

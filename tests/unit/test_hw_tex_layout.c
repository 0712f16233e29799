/* SPDX-License-Identifier: MIT */
/*
 * hwtex layout: Morton order, twiddled texel offsets and mip placement
 * against values worked out by hand (comments show the sums), twiddle/
 * de-twiddle round trips and linear addressing.  The placement rules
 * themselves (tile sizes, levels, layers) are pinned in
 * test_agx_image_layout.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hw/tex/hw_tex_layout.h"

static void
test_morton(void **state)
{
   (void)state;
   assert_int_equal(hw_tex_morton(0, 0), 0);
   assert_int_equal(hw_tex_morton(1, 0), 1);
   assert_int_equal(hw_tex_morton(0, 1), 2);
   assert_int_equal(hw_tex_morton(1, 1), 3);
   assert_int_equal(hw_tex_morton(2, 0), 4);
   /* x = 3 -> bits 0, 2 (5); y = 5 -> bits 1, 5 (34) */
   assert_int_equal(hw_tex_morton(3, 5), 39);
   /* x = 127 -> 0x1555 * ... every even bit up to 12; y = 0 */
   assert_int_equal(hw_tex_morton(127, 0), 0x1555);
   assert_int_equal(hw_tex_morton(0, 127), 0x2aaa);
   /* Against the bit-by-bit definition, over the whole 16-bit range in
    * strides (bits above 15 of x and y are ignored, as documented). */
   for (uint32_t x = 0; x < 0x30000u; x += 251) {
      for (uint32_t y = 0; y < 0x30000u; y += 4093) {
         uint32_t want = 0;
         for (unsigned i = 0; i < 16; i++)
            want |= ((x >> i) & 1u) << (2 * i) | ((y >> i) & 1u) << (2 * i + 1);
         assert_int_equal(hw_tex_morton(x, y), want);
      }
   }
}

static void
test_twiddled_offsets(void **state)
{
   (void)state;
   struct hw_tex_layout l;
   /* 128x128 RGBA8: 64x64 tiles of 16 KiB, 2 tiles per row */
   assert_true(hw_tex_layout_twiddled(&l, 4, 128, 128, 1, 1, false));
   assert_int_equal(hw_tex_offset(&l, 0, 0, 0, 0), 0);
   assert_int_equal(hw_tex_offset(&l, 1, 0, 0, 0), 4);
   assert_int_equal(hw_tex_offset(&l, 0, 1, 0, 0), 8);
   assert_int_equal(hw_tex_offset(&l, 2, 2, 0, 0), 48);       /* morton 12 */
   assert_int_equal(hw_tex_offset(&l, 64, 0, 0, 0), 16384);   /* tile 1 */
   assert_int_equal(hw_tex_offset(&l, 0, 64, 0, 0), 32768);   /* tile 2 */
   /* tile 3, morton(1, 2) = 1 + 8 = 9 -> 3 * 16384 + 36 */
   assert_int_equal(hw_tex_offset(&l, 65, 66, 0, 0), 49188);
   assert_int_equal(l.size, 65536);

   /* 2-byte texels: 128x64 tiles, x has one more bit than y */
   assert_true(hw_tex_layout_twiddled(&l, 2, 256, 64, 1, 1, false));
   /* x = 64 -> bit 6 at position 12 */
   assert_int_equal(hw_tex_offset(&l, 64, 0, 0, 0), 4096 * 2);
   assert_int_equal(hw_tex_offset(&l, 127, 63, 0, 0), 8191 * 2);
   assert_int_equal(hw_tex_offset(&l, 128, 0, 0, 0), 16384);

   /* 100x60 RGBA8: below a tile in height, so level 0 is already in the
    * power-of-two tail: allocated 128x64, square 64x64 tiles, 2 per row.
    * (70, 10): tile 1, morton(6, 10) = 20 + 136 = 156. */
   assert_true(hw_tex_layout_twiddled(&l, 4, 100, 60, 1, 3, false));
   assert_int_equal(l.level[0].tile_w, 64);
   assert_int_equal(l.level[0].tiles_per_row, 2);
   assert_int_equal(hw_tex_offset(&l, 70, 10, 0, 0), (4096 + 156) * 4);
   /* level 1: 50x30, allocated 64x32, tile 32x32 (next pow2 of 30) */
   assert_int_equal(l.level[1].offset, 128 * 64 * 4);
   assert_int_equal(l.level[1].tile_w, 32);
   assert_int_equal(l.level[1].tiles_per_row, 2);
   assert_int_equal(hw_tex_offset(&l, 33, 1, 0, 1), 32768 + (1024 + 3) * 4);
   assert_int_equal(l.level[2].offset, 32768 + 64 * 32 * 4);
}

static void
test_mip_offsets(void **state)
{
   (void)state;
   struct hw_tex_layout l;
   /* 256x256 RGBA8, full chain (9 levels), 64x64 tiles: levels 0..2 hold
    * whole tiles (16, 4, 1 of them), levels 3.. are the pow2 tail. */
   assert_true(hw_tex_layout_twiddled(&l, 4, 256, 256, 2, 16, true));
   assert_int_equal(l.levels, 9);
   static const uint64_t want[10] = {
      0, 262144, 327680, 344064,          /* +16, +4, +1 tiles */
      344064 + 4096,                      /* 32x32x4 */
      344064 + 4096 + 1024,               /* 16x16x4 */
      344064 + 4096 + 1024 + 256,         /* 8x8x4 */
      349440 + 128,                       /* 4x4x4 = 64 -> 128 aligned */
      349568 + 128,                       /* 2x2 */
      349696 + 128,                       /* end of 1x1 */
   };
   for (unsigned i = 0; i < 9; i++)
      assert_int_equal(l.level[i].offset, want[i]);
   assert_int_equal(hw_tex_level_size(&l, 8), 128);
   /* page aligned layers: 349824 -> 22 pages */
   assert_int_equal(l.layer_stride, 22 * 16384);
   assert_int_equal(l.size, 2 * 22 * 16384);
   assert_int_equal(hw_tex_offset(&l, 0, 0, 1, 3), 22 * 16384 + 344064);

   /* not page aligned: the layer stride is the chain's end */
   assert_true(hw_tex_layout_twiddled(&l, 4, 256, 256, 2, 16, false));
   assert_int_equal(l.layer_stride, 349824);

   /* 200x200 RGBA8 (4x4 tiles of 64, pads): level 1 = 4 tiles, level 2
    * (50x50) is in the tail: allocated 64x64 */
   assert_true(hw_tex_layout_twiddled(&l, 4, 200, 200, 1, 3, false));
   assert_int_equal(l.level[1].offset, 16 * 16384);
   assert_int_equal(l.level[2].offset, 20 * 16384);
   assert_int_equal(l.level[2].tile_w, 64);

   /* 300x300 RGBA8: 5x5 tiles; level 1 (150x150) = 25 >> 2 = 6 tiles,
    * padded by a column (2), a row (2) and the corner (1) = 11 */
   assert_true(hw_tex_layout_twiddled(&l, 4, 300, 300, 1, 3, false));
   assert_int_equal(l.level[1].offset, 25 * 16384);
   assert_int_equal(l.level[2].offset, (25 + 11) * 16384);

   /* invalid inputs */
   assert_false(hw_tex_layout_twiddled(&l, 3, 16, 16, 1, 1, false));
   assert_false(hw_tex_layout_twiddled(&l, 4, 0, 16, 1, 1, false));
   assert_false(hw_tex_layout_twiddled(&l, 4, 16, 16, 0, 1, false));
}

static void
test_linear(void **state)
{
   (void)state;
   struct hw_tex_layout l;
   assert_true(hw_tex_layout_linear(&l, 4, 10, 5, 3, 64, 512));
   assert_int_equal(hw_tex_offset(&l, 3, 2, 0, 0), 2 * 64 + 12);
   assert_int_equal(hw_tex_offset(&l, 3, 2, 2, 0), 1024 + 2 * 64 + 12);
   assert_int_equal(l.size, 2 * 512 + 4 * 64 + 40);
   assert_false(hw_tex_layout_linear(&l, 4, 10, 5, 1, 32, 0));   /* row too short */
   assert_false(hw_tex_layout_linear(&l, 4, 10, 5, 2, 64, 100)); /* layers overlap */
}

/* Offsets of a level are a permutation: every texel gets its own slot
 * inside the level, and twiddle -> de-twiddle gives the input back. */
static void
round_trip(unsigned bpb, uint32_t w, uint32_t h, unsigned levels, unsigned layers)
{
   struct hw_tex_layout l;
   assert_true(hw_tex_layout_twiddled(&l, bpb, w, h, layers, levels, true));
   uint8_t *image = calloc(1, l.size);
   assert_non_null(image);
   unsigned seed = bpb * 7919u + w * 31u + h;
   for (unsigned layer = 0; layer < layers; layer++) {
      for (unsigned lv = 0; lv < l.levels; lv++) {
         uint32_t lw = l.level[lv].width, lh = l.level[lv].height;
         size_t pitch = (size_t)lw * bpb + 3;        /* odd pitch on purpose */
         uint8_t *src = malloc(pitch * lh), *dst = calloc(1, pitch * lh);
         uint8_t *used = calloc(1, hw_tex_level_size(&l, lv) / bpb + 1);
         assert_non_null(src);
         assert_non_null(dst);
         assert_non_null(used);
         for (size_t i = 0; i < pitch * lh; i++) {
            seed = seed * 1103515245u + 12345u;
            src[i] = (uint8_t)(seed >> 16);
         }
         for (uint32_t y = 0; y < lh; y++)
            for (uint32_t x = 0; x < lw; x++) {
               uint64_t o = hw_tex_offset(&l, x, y, layer, lv);
               uint64_t rel = o - layer * l.layer_stride - l.level[lv].offset;
               assert_true(rel % bpb == 0);
               assert_true(rel + bpb <= hw_tex_level_size(&l, lv));
               assert_int_equal(used[rel / bpb], 0);
               used[rel / bpb] = 1;
            }
         assert_true(hw_tex_twiddle(&l, lv, layer, image, src, pitch));
         assert_true(hw_tex_detwiddle(&l, lv, layer, image, dst, pitch));
         for (uint32_t y = 0; y < lh; y++)
            assert_memory_equal(src + y * pitch, dst + y * pitch, (size_t)lw * bpb);
         free(src);
         free(dst);
         free(used);
      }
   }
   assert_false(hw_tex_twiddle(&l, l.levels, 0, image, image, 1 << 20));
   assert_false(hw_tex_twiddle(&l, 0, layers, image, image, 1 << 20));
   free(image);
}

static void
test_round_trip(void **state)
{
   (void)state;
   round_trip(1, 130, 129, 16, 1);
   round_trip(2, 256, 64, 16, 2);
   round_trip(4, 65, 64, 16, 1);
   round_trip(4, 7, 5, 16, 3);
   round_trip(8, 100, 33, 16, 1);
   round_trip(16, 33, 70, 16, 1);
   round_trip(64, 20, 20, 1, 1);
}

int
main(void)
{
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_morton),
      cmocka_unit_test(test_twiddled_offsets),
      cmocka_unit_test(test_mip_offsets),
      cmocka_unit_test(test_linear),
      cmocka_unit_test(test_round_trip),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}

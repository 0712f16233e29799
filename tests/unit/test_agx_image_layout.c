/* SPDX-License-Identifier: MIT */
/*
 * cmdstream/agx_image_layout: twiddled layouts pinned against values worked
 * out by hand from the rules in docs/texture.md (the sums are in the
 * comments; rule numbers refer to agx_image_layout.h).  The GPU model's
 * texel addressing on top of these layouts is tested in
 * test_hw_tex_layout.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cmdstream/agx_image_layout.h"

/* One expected level: offset, size, w, h, depth, tile w, tile h, tiles/row. */
struct want_level {
   uint64_t offset, size;
   uint32_t w, h, d, tw, th, tpr;
};

static struct agx_image_layout
layout(unsigned bytes, uint32_t w, uint32_t h, uint32_t d, unsigned levels,
       enum agx_image_kind kind, bool page_aligned)
{
   struct agx_image_layout_params p = {
      .block_bytes = bytes, .width = w, .height = h, .depth = d,
      .levels = levels, .kind = kind, .page_aligned_layers = page_aligned,
   };
   struct agx_image_layout l;
   char err[128] = "";
   memset(&l, 0xa5, sizeof(l));
   if (!agx_image_layout_twiddled(&l, &p, err, sizeof(err)))
      fail_msg("layout %ux%ux%u %u B %u levels refused: %s", w, h, d, bytes, levels, err);
   return l;
}

static void
check(const struct agx_image_layout *l, const struct want_level *want, unsigned n,
      uint64_t layer_stride, uint64_t size)
{
   assert_int_equal(l->levels, n);
   for (unsigned i = 0; i < n; i++) {
      const struct agx_image_level *lv = &l->level[i];
      assert_int_equal(lv->offset, want[i].offset);
      assert_int_equal(lv->size, want[i].size);
      assert_int_equal(lv->width, want[i].w);
      assert_int_equal(lv->height, want[i].h);
      assert_int_equal(lv->depth, want[i].d);
      assert_int_equal(lv->tile_w, want[i].tw);
      assert_int_equal(lv->tile_h, want[i].th);
      assert_int_equal(lv->tiles_per_row, want[i].tpr);
   }
   /* Levels past the chain all point at its end (rule 4 alignment). */
   uint64_t end = (want[n - 1].offset + want[n - 1].size + 127) & ~127ull;
   for (unsigned i = n; i < AGX_IMAGE_MAX_LEVELS; i++)
      assert_int_equal(l->level[i].offset, end);
   assert_int_equal(l->layer_stride, layer_stride);
   assert_int_equal(l->size, size);
}

static void
test_tile_sizes(void **state)
{
   (void)state;
   /* docs/texture.md table: one 16 KiB page per tile. */
   static const unsigned want[][3] = {
      { 1, 128, 128 }, { 2, 128, 64 }, { 4, 64, 64 }, { 8, 64, 32 },
      { 16, 32, 32 }, { 32, 32, 16 }, { 64, 16, 16 },
   };
   for (unsigned i = 0; i < 7; i++) {
      unsigned w = 0, h = 0;
      assert_true(agx_image_tile_size(want[i][0], &w, &h));
      assert_int_equal(w, want[i][1]);
      assert_int_equal(h, want[i][2]);
   }
   static const unsigned bad[] = { 0, 3, 6, 12, 24, 128 };
   for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
      unsigned w, h;
      assert_false(agx_image_tile_size(bad[i], &w, &h));
   }
}

static void
test_full_levels(void **state)
{
   (void)state;
   assert_int_equal(agx_image_full_levels(1, 1), 1);
   assert_int_equal(agx_image_full_levels(17, 9), 5);     /* 17 -> 8 4 2 1 */
   assert_int_equal(agx_image_full_levels(256, 256), 9);
   assert_int_equal(agx_image_full_levels(1, 8), 4);
   assert_int_equal(agx_image_full_levels(16384, 1), 15);
}

static void
test_1x1(void **state)
{
   (void)state;
   /* RGBA8 1x1: below a 64x64 tile, so the tail starts at level 0:
    * allocated 1x1 x 4 B with a 1x1 tile; the chain is one cache line. */
   struct agx_image_layout l = layout(4, 1, 1, 1, 1, AGX_IMAGE_2D, false);
   static const struct want_level w[] = { { 0, 4, 1, 1, 1, 1, 1, 1 } };
   check(&l, w, 1, 128, 128);
}

static void
test_17x9_mips(void **state)
{
   (void)state;
   /* RGBA8 17x9, 5 levels, all in the tail (17 < 64): allocations are
    * next_pow2(17) x next_pow2(9) = 32x16 halved per level; square tiles
    * of next_pow2(shorter side 9 >> l) = 16, 4, 2, 1, 1.
    *   L0 32x16x4 = 2048 @ 0
    *   L1 16x8x4  =  512 @ 2048
    *   L2 8x4x4   =  128 @ 2560
    *   L3 4x2x4   =   32 @ 2688  -> 2720, aligned 2816
    *   L4 2x1x4   =    8 @ 2816  -> 2824, aligned 2944 */
   struct agx_image_layout l = layout(4, 17, 9, 1, 5, AGX_IMAGE_2D, false);
   static const struct want_level w[] = {
      { 0, 2048, 17, 9, 1, 16, 16, 2 },
      { 2048, 512, 8, 4, 1, 4, 4, 2 },
      { 2560, 128, 4, 2, 1, 2, 2, 2 },
      { 2688, 32, 2, 1, 1, 1, 1, 2 },
      { 2816, 8, 1, 1, 1, 1, 1, 1 },
   };
   check(&l, w, 5, 2944, 2944);
}

static void
test_256_rgba8_chain(void **state)
{
   (void)state;
   /* RGBA8 256x256, 9 levels.  Level-0 grid 4x4 tiles of 64x64 (16 KiB).
    * Levels 0-2 (256, 128, 64) hold whole tiles: 16, 4, 1 tiles, no
    * padding (4 divides by 2 and 4).  The tail starts at level 3 (32):
    *   L0 16 x 16384 = 262144 @ 0
    *   L1  4 x 16384 =  65536 @ 262144
    *   L2  1 x 16384 =  16384 @ 327680
    *   L3 32x32x4    =   4096 @ 344064
    *   L4 16x16x4    =   1024 @ 348160
    *   L5 8x8x4      =    256 @ 349184
    *   L6 4x4x4      =     64 @ 349440 -> 349504, aligned 349568
    *   L7 2x2x4      =     16 @ 349568 -> 349584, aligned 349696
    *   L8 1x1x4      =      4 @ 349696 -> 349700, aligned 349824 */
   struct agx_image_layout l = layout(4, 256, 256, 1, 9, AGX_IMAGE_2D, false);
   static const struct want_level w[] = {
      { 0, 262144, 256, 256, 1, 64, 64, 4 },
      { 262144, 65536, 128, 128, 1, 64, 64, 2 },
      { 327680, 16384, 64, 64, 1, 64, 64, 1 },
      { 344064, 4096, 32, 32, 1, 32, 32, 1 },
      { 348160, 1024, 16, 16, 1, 16, 16, 1 },
      { 349184, 256, 8, 8, 1, 8, 8, 1 },
      { 349440, 64, 4, 4, 1, 4, 4, 1 },
      { 349568, 16, 2, 2, 1, 2, 2, 1 },
      { 349696, 4, 1, 1, 1, 1, 1, 1 },
   };
   check(&l, w, 9, 349824, 349824);
}

static void
test_3d_64x64x8(void **state)
{
   (void)state;
   /* RGBA8 64x64x8 3D, 7 levels: each slice holds its own chain.  Level 0
    * is one whole 64x64 tile; the tail starts at level 1 (32x32).
    *   L0 16384 @ 0, L1 4096 @ 16384, L2 1024 @ 20480, L3 256 @ 21504,
    *   L4 64 @ 21760 -> aligned 21888, L5 16 @ 21888 -> 22016,
    *   L6 4 @ 22016 -> 22144.
    * Slices addressable per level: 8 >> l, at least 1. */
   static const struct want_level w[] = {
      { 0, 16384, 64, 64, 8, 64, 64, 1 },
      { 16384, 4096, 32, 32, 4, 32, 32, 1 },
      { 20480, 1024, 16, 16, 2, 16, 16, 1 },
      { 21504, 256, 8, 8, 1, 8, 8, 1 },
      { 21760, 64, 4, 4, 1, 4, 4, 1 },
      { 21888, 16, 2, 2, 1, 2, 2, 1 },
      { 22016, 4, 1, 1, 1, 1, 1, 1 },
   };
   /* Page-aligned slices: 22144 rounds up to 32768; 8 slices. */
   struct agx_image_layout l = layout(4, 64, 64, 8, 7, AGX_IMAGE_3D, true);
   check(&l, w, 7, 32768, 8 * 32768);
   /* Without the bit the slices are packed at the chain size. */
   l = layout(4, 64, 64, 8, 7, AGX_IMAGE_3D, false);
   check(&l, w, 7, 22144, 8 * 22144);
}

static void
test_cube(void **state)
{
   (void)state;
   /* RGBA8 32x32 cube, 6 levels, page-aligned faces.  All tail:
    *   L0 4096 @ 0, L1 1024 @ 4096, L2 256 @ 5120, L3 64 @ 5376 -> 5504,
    *   L4 16 @ 5504 -> 5632, L5 4 @ 5632 -> 5760; face stride 16384. */
   static const struct want_level w[] = {
      { 0, 4096, 32, 32, 6, 32, 32, 1 },
      { 4096, 1024, 16, 16, 6, 16, 16, 1 },
      { 5120, 256, 8, 8, 6, 8, 8, 1 },
      { 5376, 64, 4, 4, 6, 4, 4, 1 },
      { 5504, 16, 2, 2, 6, 2, 2, 1 },
      { 5632, 4, 1, 1, 6, 1, 1, 1 },
   };
   struct agx_image_layout l = layout(4, 32, 32, 6, 6, AGX_IMAGE_CUBE, true);
   check(&l, w, 6, 16384, 6 * 16384);
   /* A cube array of 2 cubes: 12 faces, same chain. */
   struct want_level w12[6];
   memcpy(w12, w, sizeof(w));
   for (unsigned i = 0; i < 6; i++)
      w12[i].d = 12;
   l = layout(4, 32, 32, 12, 6, AGX_IMAGE_CUBE, true);
   check(&l, w12, 6, 16384, 12 * 16384);
}

static void
test_padding(void **state)
{
   (void)state;
   /* Rule 2 padding.  RGBA8 192x192: grid 3x3 tiles.  L1 (96x96) still
    * holds whole tiles: 9 >> 2 = 2 tiles, plus a column (3 >> 1 = 1), a
    * row (1) and the corner (1) since 3 is odd: 5 tiles. */
   struct agx_image_layout l = layout(4, 192, 192, 1, 2, AGX_IMAGE_2D, false);
   static const struct want_level w1[] = {
      { 0, 9 * 16384, 192, 192, 1, 64, 64, 3 },
      { 147456, 5 * 16384, 96, 96, 1, 64, 64, 2 },
   };
   check(&l, w1, 2, 229376, 229376);

   /* RGBA8 200x130: grid 4x3.  L1 (100x65): 12 >> 2 = 3 tiles; 4 is even
    * (no column), 3 is odd: a row of 4 >> 1 = 2 -> 5 tiles.  L2 (50x32)
    * starts the tail: 64x32 x 4 B = 8192, tile next_pow2(130 >> 2) = 32. */
   l = layout(4, 200, 130, 1, 3, AGX_IMAGE_2D, false);
   static const struct want_level w2[] = {
      { 0, 12 * 16384, 200, 130, 1, 64, 64, 4 },
      { 196608, 5 * 16384, 100, 65, 1, 64, 64, 2 },
      { 278528, 8192, 50, 32, 1, 32, 32, 2 },
   };
   check(&l, w2, 3, 286720, 286720);
}

static void
test_other_sizes(void **state)
{
   (void)state;
   /* R8 300x200: 128x128 tiles, grid 3x2 = 6 pages. */
   struct agx_image_layout l = layout(1, 300, 200, 1, 1, AGX_IMAGE_2D, false);
   static const struct want_level w1[] = { { 0, 6 * 16384, 300, 200, 1, 128, 128, 3 } };
   check(&l, w1, 1, 98304, 98304);

   /* RGBA32F (16 B) 64x32, 2 levels: 32x32 tiles, grid 2x1; level 1
    * (32x16) is below a tile in height: tail 32x16 x 16 B = 8192, tile
    * next_pow2(16) = 16. */
   l = layout(16, 64, 32, 3, 2, AGX_IMAGE_2D, true);
   static const struct want_level w2[] = {
      { 0, 2 * 16384, 64, 32, 3, 32, 32, 2 },
      { 32768, 8192, 32, 16, 3, 16, 16, 2 },
   };
   check(&l, w2, 2, 49152, 3 * 49152);

   /* 1x8 (tall, 4 B), 4 levels: tail allocations 1x8, 1x4, 1x2, 1x1 with
    * 1x1 tiles (the shorter side is 1); each level a cache line. */
   l = layout(4, 1, 8, 1, 4, AGX_IMAGE_2D, false);
   static const struct want_level w3[] = {
      { 0, 32, 1, 8, 1, 1, 1, 1 },
      { 128, 16, 1, 4, 1, 1, 1, 1 },
      { 256, 8, 1, 2, 1, 1, 1, 1 },
      { 384, 4, 1, 1, 1, 1, 1, 1 },
   };
   check(&l, w3, 4, 512, 512);
}

static void
test_refused(void **state)
{
   (void)state;
   static const struct agx_image_layout_params bad[] = {
      { .block_bytes = 3, .width = 4, .height = 4, .depth = 1, .levels = 1 },
      { .block_bytes = 0, .width = 4, .height = 4, .depth = 1, .levels = 1 },
      { .block_bytes = 4, .width = 0, .height = 4, .depth = 1, .levels = 1 },
      { .block_bytes = 4, .width = 16385, .height = 4, .depth = 1, .levels = 1 },
      { .block_bytes = 4, .width = 4, .height = 4, .depth = 0, .levels = 1 },
      { .block_bytes = 4, .width = 4, .height = 4, .depth = 16385, .levels = 1 },
      { .block_bytes = 4, .width = 4, .height = 4, .depth = 7, .levels = 1,
        .kind = AGX_IMAGE_CUBE },
      { .block_bytes = 4, .width = 4, .height = 4, .depth = 1, .levels = 0 },
      { .block_bytes = 4, .width = 4, .height = 4, .depth = 1, .levels = 4 },
   };
   for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
      struct agx_image_layout l;
      memset(&l, 0x5a, sizeof(l));
      char err[128] = "";
      assert_false(agx_image_layout_twiddled(&l, &bad[i], err, sizeof(err)));
      assert_true(err[0] != '\0');
      assert_int_equal(l.levels, 0x5a5a5a5a);   /* untouched */
      assert_false(agx_image_layout_twiddled(&l, &bad[i], NULL, 0));
   }
}

static struct agx_image_layout
layout_blocks(unsigned bytes, uint32_t w, uint32_t h, unsigned levels)
{
   struct agx_image_layout_params p = {
      .block_bytes = bytes, .block_w = 4, .block_h = 4, .width = w, .height = h,
      .depth = 1, .levels = levels, .kind = AGX_IMAGE_2D,
   };
   struct agx_image_layout l;
   char err[128] = "";
   if (!agx_image_layout_twiddled(&l, &p, err, sizeof(err)))
      fail_msg("block layout %ux%u refused: %s", w, h, err);
   return l;
}

/* Rule 7, tail: a 260x260 BC1/ETC2 image is 65x65 blocks of 8 bytes (tile
 * 64x32).  Level 1 (130 texels = 33 blocks) starts the tail; its
 * allocation is next_pow2(65) = 128 minified once = 64x64 blocks with a
 * 64-block tile, where the uncompressed rule would give 33 -> 64x64 with a
 * 32 tile: the tile differs. */
static void
test_compressed_tail(void **state)
{
   (void)state;
   struct agx_image_layout l = layout_blocks(8, 260, 260, 3);
   const struct want_level want[] = {
      /* 2 x 3 tiles of 64x32 blocks x 8 B = 98304 */
      { 0, 98304, 260, 260, 1, 64, 32, 2 },
      { 98304, 64 * 64 * 8, 130, 130, 1, 64, 64, 1 },
      { 131072, 32 * 32 * 8, 65, 65, 1, 32, 32, 1 },
   };
   check(&l, want, 3, 139264, 139264);
   assert_int_equal(l.block_w, 4);
}

/* Rule 7, padded stride: 513x513 is 129x129 blocks, a 3 x 5 tile grid.
 * Level 1 gets a padding column (3 is odd), so its rows are addressed as
 * 64 + 1 = 65 blocks: two tiles per row although 256 texels = 64 blocks
 * would fit one. */
static void
test_compressed_padded_stride(void **state)
{
   (void)state;
   struct agx_image_layout l = layout_blocks(8, 513, 513, 2);
   const struct want_level want[] = {
      { 0, 15 * 16384, 513, 513, 1, 64, 32, 3 },
      /* 15 >> 2 = 3, + column 5 >> 1 = 2, + row 3 >> 1 = 1, + corner 1 */
      { 245760, 7 * 16384, 256, 256, 1, 64, 32, 2 },
   };
   check(&l, want, 2, 245760 + 7 * 16384, 245760 + 7 * 16384);
}

int
main(void)
{
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_tile_sizes),
      cmocka_unit_test(test_full_levels),
      cmocka_unit_test(test_1x1),
      cmocka_unit_test(test_17x9_mips),
      cmocka_unit_test(test_256_rgba8_chain),
      cmocka_unit_test(test_3d_64x64x8),
      cmocka_unit_test(test_cube),
      cmocka_unit_test(test_padding),
      cmocka_unit_test(test_other_sizes),
      cmocka_unit_test(test_refused),
      cmocka_unit_test(test_compressed_tail),
      cmocka_unit_test(test_compressed_padded_stride),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}

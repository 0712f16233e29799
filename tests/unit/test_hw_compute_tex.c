/* SPDX-License-Identifier: MIT */
/*
 * Texture instructions in compute kernels, through the firmware: the CDM
 * executor hands them to the texture unit model with the tables named by
 * the launch's USC Texture / Sampler words.  Results are checked against
 * CPU computations; texel addresses of the twiddled source are computed
 * here by hand (Morton order inside one tile), not by the library.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cmdstream/agx_pack.h"
#include "hw/tex/hw_tex.h"
#include "test_hw_compute_util.h"
#include "tessera/float_bits.h"

#define UNMAPPED_VA (T_USER_VA + 0x40000000ull)

/* Morton index: x bit i -> bit 2i, y bit i -> bit 2i + 1. */
static uint32_t
morton(uint32_t x, uint32_t y)
{
   uint32_t m = 0;
   for (unsigned b = 0; b < 16; b++)
      m |= ((x >> b) & 1) << (2 * b) | ((y >> b) & 1) << (2 * b + 1);
   return m;
}

/* Heap memory aligned to `align` bytes. */
static uint64_t
alloc_aligned(struct tc *c, size_t size, size_t align, void **host)
{
   uint64_t va = tc_alloc(c, 0, size + align, NULL);
   va = (va + align - 1) & ~(uint64_t)(align - 1);
   *host = tc_host(c, 0, va);
   return va;
}

static void
put_texture(void *table, unsigned slot, const struct agx_texture *t)
{
   agx_texture_pack((uint8_t *)table + slot * AGX_TEXTURE_LENGTH, t);
}

static void
preload(struct tc *c, struct tc_pipeline *p, const uint32_t *u, unsigned n)
{
   p->uniforms[p->nuniforms++] = (struct tc_uniform){
      .start_halfs = 0, .size_halfs = 2 * n,
      .buffer = tc_uniform_buffer(c, 0, u, n),
   };
}

enum { W = 16, H = 16, DST_STRIDE = 128 };

/* Twiddled 16x16 R32 uint texture at src (slot 0) and a linear R32 uint
 * image with 128-byte rows at dst (slot 1) in a two-entry table. */
static uint64_t
load_write_tables(struct tc *c, uint64_t src, uint64_t dst)
{
   void *tab;
   uint64_t va = alloc_aligned(c, 2 * AGX_TEXTURE_LENGTH, 64, &tab);
   struct agx_texture t = { AGX_TEXTURE_HEADER };
   t.layout = AGX_LAYOUT_TWIDDLED;
   t.channels = AGX_CHANNELS_R32;
   t.type = AGX_TEXTURE_TYPE_UINT;
   t.width = W;
   t.height = H;
   t.address = src;
   put_texture(tab, 0, &t);
   struct agx_pbe p = { AGX_PBE_HEADER };
   p.layout = AGX_LAYOUT_LINEAR;
   p.channels = AGX_CHANNELS_R32;
   p.type = AGX_TEXTURE_TYPE_UINT;
   p.swizzle_r = AGX_CHANNEL_R;
   p.swizzle_g = AGX_CHANNEL_G;
   p.swizzle_b = AGX_CHANNEL_B;
   p.swizzle_a = AGX_CHANNEL_A;
   p.width = W;
   p.height = H;
   p.buffer = dst;
   p.stride = DST_STRIDE - 4;   /* stored minus 4 */
   agx_pbe_pack((uint8_t *)tab + AGX_TEXTURE_LENGTH, &p);
   return va;
}

/* texture_load from a twiddled texture, an ALU op, image_write to a
 * linear image; 2-D grid of 8 x 4 workgroups over 2 workers. */
static void
test_load_write(void **state)
{
   (void)state;
   struct tc c;
   tc_setup(&c, 2, NULL);
   uint32_t *src;
   uint8_t *dst;
   uint64_t srcva = alloc_aligned(&c, W * H * 4, 16384, (void **)&src);
   uint64_t dstva = alloc_aligned(&c, DST_STRIDE * H, 128, (void **)&dst);
   for (uint32_t y = 0; y < H; y++)
      for (uint32_t x = 0; x < W; x++)
         src[morton(x, y)] = x * 7919u + y * 104729u + 5u;
   memset(dst, 0xee, DST_STRIDE * H);

   struct tc_pipeline p = {
      .shader = tc_kernel(&c, 0, "tex_load_write"),
      .textures = load_write_tables(&c, srcva, dstva), .ntextures = 2,
   };
   struct tc_result r;
   tc_run1(&c, 0, tc_pipeline(&c, 0, &p), (uint32_t[3]){ W, H, 1 },
           (uint32_t[3]){ 8, 4, 1 }, &r);
   assert_false(r.error);
   for (uint32_t y = 0; y < H; y++) {
      for (uint32_t x = 0; x < W; x++) {
         uint32_t got;
         memcpy(&got, dst + y * DST_STRIDE + x * 4, 4);
         assert_int_equal(got, x * 7919u + y * 104729u + 5u + x);
      }
      /* the row padding is untouched */
      for (uint32_t b = W * 4; b < DST_STRIDE; b++)
         assert_int_equal(dst[y * DST_STRIDE + b], 0xee);
   }
   struct hw_cdm_stats st;
   hw_cdm_last_stats(c.cdm, &st);
   assert_int_equal(st.workgroups, 2 * 4);
   tc_teardown(&c);
}

/* The same with the Texture word naming state slots 2..3 (Start = 2):
 * slot i is read at Buffer + (i - Start) * 24, so a kernel using ts0/ts1
 * must see the descriptors before Buffer.  Here the table holds the real
 * descriptors at slots 0..1, and the word points at the slot-2 entry. */
static void
test_texture_word_start(void **state)
{
   (void)state;
   struct tc c;
   tc_setup(&c, 1, NULL);
   uint32_t *src;
   uint8_t *dst;
   uint64_t srcva = alloc_aligned(&c, W * H * 4, 16384, (void **)&src);
   uint64_t dstva = alloc_aligned(&c, DST_STRIDE * H, 128, (void **)&dst);
   for (uint32_t y = 0; y < H; y++)
      for (uint32_t x = 0; x < W; x++)
         src[morton(x, y)] = 1000u * y + x;
   uint64_t tab = load_write_tables(&c, srcva, dstva);
   struct tc_pipeline p = {
      .shader = tc_kernel(&c, 0, "tex_load_write"),
      .textures = tab + 2 * AGX_TEXTURE_LENGTH, .texture_start = 2, .ntextures = 2,
   };
   struct tc_result r;
   tc_run1(&c, 0, tc_pipeline(&c, 0, &p), (uint32_t[3]){ W, H, 1 },
           (uint32_t[3]){ 16, 2, 1 }, &r);
   assert_false(r.error);
   uint32_t got;
   memcpy(&got, dst + 9 * DST_STRIDE + 13 * 4, 4);
   assert_int_equal(got, 9013u + 13u);
   tc_teardown(&c);
}

/* 16x16 R32F, 5 mip levels, texel (x, y) of level l = l * 1000 + y * 16 + x;
 * nearest filtering and mip selection. */
static void
mip_tables(struct tc *c, struct tc_pipeline *p, uint64_t *texbase)
{
   void *tab;
   uint64_t tabva = alloc_aligned(c, AGX_TEXTURE_LENGTH, 64, &tab);
   uint8_t *mem;
   uint64_t va = alloc_aligned(c, 16384 * 2, 16384, (void **)&mem);
   struct agx_texture t = { AGX_TEXTURE_HEADER };
   t.layout = AGX_LAYOUT_TWIDDLED;
   t.channels = AGX_CHANNELS_R32;
   t.type = AGX_TEXTURE_TYPE_FLOAT;
   t.width = t.height = 16;
   t.address = va;
   t.unk_mipmapped = true;
   t.last_level = 4;
   put_texture(tab, 0, &t);
   /* the mip chain's placement is hwtex's layout (tested on its own) */
   struct hw_tex_view v;
   char err[128];
   assert_true(hw_tex_view_decode(&v, tab, err, sizeof(err)));
   for (unsigned l = 0; l < 5; l++)
      for (uint32_t y = 0; y < v.layout.level[l].height; y++)
         for (uint32_t x = 0; x < v.layout.level[l].width; x++) {
            float f = (float)(l * 1000 + y * 16 + x);
            uint64_t off = hw_tex_offset(&v.layout, x, y, 0, l);
            assert_true(off + 4 <= 16384 * 2);
            memcpy(mem + off, &f, 4);
         }
   void *stab;
   uint64_t stabva = alloc_aligned(c, AGX_SAMPLER_LENGTH, 64, &stab);
   struct agx_sampler s = { AGX_SAMPLER_HEADER };
   s.magnify = s.minify = AGX_FILTER_NEAREST;
   s.mip_filter = AGX_MIP_FILTER_NEAREST;
   s.wrap_s = s.wrap_t = AGX_WRAP_CLAMP_TO_EDGE;
   agx_sampler_pack(stab, &s);
   p->textures = tabva;
   p->ntextures = 1;
   p->samplers = stabva;
   p->nsamplers = 1;
   *texbase = va;
}

/* texture_sample with explicit LODs: 1.0 from a register (lod_min, r7l)
 * and 2.0 from a uniform (lod_min, u8l), at texel centres of an 8x8 grid. */
static void
test_sample_explicit_lod(void **state)
{
   (void)state;
   struct tc c;
   tc_setup(&c, 2, NULL);
   struct tc_pipeline p = { .shader = tc_kernel(&c, 0, "tex_sample_lod") };
   uint64_t texbase;
   mip_tables(&c, &p, &texbase);
   float *a, *b;
   uint64_t ava = tc_alloc(&c, 0, 64 * 4, (void **)&a);
   uint64_t bva = tc_alloc(&c, 0, 64 * 4, (void **)&b);
   uint32_t u[9] = { tessera_fui(0.125f), 0, (uint32_t)ava, (uint32_t)(ava >> 32),
                     (uint32_t)bva, (uint32_t)(bva >> 32), 0, 0, 0x4000 /* u8l = 2.0 */ };
   preload(&c, &p, u, 9);
   struct tc_result r;
   tc_run1(&c, 0, tc_pipeline(&c, 0, &p), (uint32_t[3]){ 64, 1, 1 },
           (uint32_t[3]){ 32, 1, 1 }, &r);
   assert_false(r.error);
   for (unsigned i = 0; i < 64; i++) {
      unsigned x = i & 7, y = i >> 3;
      /* level 1 is 8x8: the centre of cell (x, y) is its texel (x, y);
       * level 2 is 4x4: texel (x / 2, y / 2) */
      assert_int_equal(tessera_fui(a[i]), tessera_fui((float)(1000 + y * 16 + x)));
      assert_int_equal(tessera_fui(b[i]), tessera_fui((float)(2000 + (y / 2) * 16 + x / 2)));
   }
   tc_teardown(&c);
}

/* A texture in unmapped memory: the texture unit's fault reaches the
 * Fault event and FAULT_INFO (unit TEX, the texel address, a read). */
static void
test_texture_fault(void **state)
{
   (void)state;
   struct tc c;
   tc_setup(&c, 2, NULL);
   uint8_t *dst;
   uint64_t dstva = alloc_aligned(&c, DST_STRIDE * H, 128, (void **)&dst);
   memset(dst, 0xee, DST_STRIDE * H);
   struct tc_pipeline p = {
      .shader = tc_kernel(&c, 0, "tex_load_write"),
      .textures = load_write_tables(&c, UNMAPPED_VA, dstva), .ntextures = 2,
   };
   struct tc_result r;
   /* one SIMD group: lane 0 reads texel (0, 0) first */
   tc_run1(&c, 0, tc_pipeline(&c, 0, &p), (uint32_t[3]){ 4, 4, 1 },
           (uint32_t[3]){ 4, 4, 1 }, &r);
   assert_true(r.error);
   assert_int_equal(r.type, AGX_FW_EVENT_FAULT);
   struct agx_fw_event_fault f;
   struct agx_fault_info fi;
   tc_fault(&r, &f, &fi);
   assert_int_equal(fi.unit, HW_UNIT_TEX);
   assert_int_equal(fi.reason, AGX_UAT_FAULT_REASON_UNMAPPED);
   assert_true(fi.read);
   assert_int_equal(f.vm_slot, c.vm[0].slot);
   assert_int_equal(f.address, UNMAPPED_VA);
   assert_int_equal(hw_device_fault_info(c.t.dev), f.fault_info);
   hw_device_clear_fault_info(c.t.dev);
   for (unsigned i = 0; i < DST_STRIDE * H; i++)
      assert_int_equal(dst[i], 0xee);   /* nothing written */
   tc_teardown(&c);
}

/* The compute imageblock: st_tile with explicit coordinates into
 * threadgroup memory laid out as a 16x16 block, then one image_write_block
 * per workgroup at its grid position (tests/data/compute/imageblock.s).
 * 2x2 workgroups cover a 32x32 R32 uint linear image. */
static void
test_imageblock(void **state)
{
   (void)state;
   enum { IW = 32, IH = 32, STRIDE = IW * 4 };
   struct tc c;
   tc_setup(&c, 2, NULL);
   uint8_t *dst;
   uint64_t dstva = alloc_aligned(&c, STRIDE * IH, 128, (void **)&dst);
   memset(dst, 0xee, STRIDE * IH);
   void *tab;
   uint64_t tabva = alloc_aligned(&c, AGX_TEXTURE_LENGTH, 64, &tab);
   struct agx_pbe pbe = { AGX_PBE_HEADER };
   pbe.layout = AGX_LAYOUT_LINEAR;
   pbe.channels = AGX_CHANNELS_R32;
   pbe.type = AGX_TEXTURE_TYPE_UINT;
   pbe.swizzle_r = AGX_CHANNEL_R;
   pbe.swizzle_g = AGX_CHANNEL_G;
   pbe.swizzle_b = AGX_CHANNEL_B;
   pbe.swizzle_a = AGX_CHANNEL_A;
   pbe.width = IW;
   pbe.height = IH;
   pbe.buffer = dstva;
   pbe.stride = STRIDE - 4;   /* stored minus 4 */
   agx_pbe_pack(tab, &pbe);

   struct tc_pipeline p = {
      .shader = tc_kernel(&c, 0, "imageblock"),
      .textures = tabva, .ntextures = 1,
      .tg_bytes = 16 * 16 * 8,
      .ib_layout = AGX_SHARED_LAYOUT_16X16, .ib_sample_stride_8 = 1,
   };
   struct tc_result r;
   tc_run1(&c, 0, tc_pipeline(&c, 0, &p), (uint32_t[3]){ IW, IH, 1 },
           (uint32_t[3]){ 16, 16, 1 }, &r);
   assert_false(r.error);
   for (uint32_t y = 0; y < IH; y++)
      for (uint32_t x = 0; x < IW; x++) {
         uint32_t got;
         memcpy(&got, dst + y * STRIDE + x * 4, 4);
         if (got != y * 100 + x)
            fail_msg("pixel (%u, %u) = %u, want %u", x, y, got, y * 100 + x);
      }

   /* Without the imageblock layout the same kernel fails, saying why. */
   p.ib_layout = 0;
   tc_run1(&c, 0, tc_pipeline(&c, 0, &p), (uint32_t[3]){ IW, IH, 1 },
           (uint32_t[3]){ 16, 16, 1 }, &r);
   assert_true(r.error);

   /* Mesa's blit stores four components into the 8-byte sample: the two
    * past it are clipped (they used to fail the launch), the image is the
    * same. */
   memset(dst, 0xee, STRIDE * IH);
   p.ib_layout = AGX_SHARED_LAYOUT_16X16;
   p.shader = tc_kernel(&c, 0, "imageblock_xyzw");
   tc_run1(&c, 0, tc_pipeline(&c, 0, &p), (uint32_t[3]){ IW, IH, 1 },
           (uint32_t[3]){ 16, 16, 1 }, &r);
   assert_false(r.error);
   for (uint32_t y = 0; y < IH; y++)
      for (uint32_t x = 0; x < IW; x++) {
         uint32_t got;
         memcpy(&got, dst + y * STRIDE + x * 4, 4);
         if (got != y * 100 + x)
            fail_msg("xyzw: pixel (%u, %u) = %u, want %u", x, y, got, y * 100 + x);
      }
   tc_teardown(&c);
}

/* The compute imageblock into a twiddled 2D array, one launch for all
 * layers (grid z = layer), as Mesa's compute blit uploads a compressed
 * array or 3D texture (tests/data/compute/imageblock_array.s): the
 * explicit-coordinate image_write_block names the layer in the 16-bit slot
 * after x and y. The model used to ignore it and wrote every layer into
 * layer 0. Offsets by hand: a 32x32 R32 level is one square Morton tile;
 * page-aligned layers are 16 KiB apart. */
static void
test_imageblock_array(void **state)
{
   (void)state;
   enum { IW = 32, IH = 32, LAYERS = 3, LAYER_STRIDE = 16384 };
   struct tc c;
   tc_setup(&c, 2, NULL);
   uint8_t *dst;
   uint64_t dstva = alloc_aligned(&c, LAYER_STRIDE * LAYERS, 16384, (void **)&dst);
   memset(dst, 0xee, LAYER_STRIDE * LAYERS);
   void *tab;
   uint64_t tabva = alloc_aligned(&c, AGX_TEXTURE_LENGTH, 64, &tab);
   struct agx_pbe pbe = { AGX_PBE_HEADER };
   pbe.dimension = AGX_TEXTURE_DIMENSION_2D_ARRAY;
   pbe.layout = AGX_LAYOUT_TWIDDLED;
   pbe.channels = AGX_CHANNELS_R32;
   pbe.type = AGX_TEXTURE_TYPE_UINT;
   pbe.swizzle_r = AGX_CHANNEL_R;
   pbe.swizzle_g = AGX_CHANNEL_G;
   pbe.swizzle_b = AGX_CHANNEL_B;
   pbe.swizzle_a = AGX_CHANNEL_A;
   pbe.width = IW;
   pbe.height = IH;
   pbe.layers = LAYERS;
   pbe.page_aligned_layers = true;
   pbe.buffer = dstva;
   agx_pbe_pack(tab, &pbe);

   struct tc_pipeline p = {
      .shader = tc_kernel(&c, 0, "imageblock_array"),
      .textures = tabva, .ntextures = 1,
      .tg_bytes = 16 * 16 * 8,
      .ib_layout = AGX_SHARED_LAYOUT_16X16, .ib_sample_stride_8 = 1,
   };
   struct tc_result r;
   tc_run1(&c, 0, tc_pipeline(&c, 0, &p), (uint32_t[3]){ IW, IH, LAYERS },
           (uint32_t[3]){ 16, 16, 1 }, &r);
   assert_false(r.error);
   for (uint32_t z = 0; z < LAYERS; z++)
      for (uint32_t y = 0; y < IH; y++)
         for (uint32_t x = 0; x < IW; x++) {
            uint32_t got, want = z * 1000 + y * 100 + x;
            memcpy(&got, dst + z * LAYER_STRIDE + morton(x, y) * 4, 4);
            if (got != want)
               fail_msg("layer %u pixel (%u, %u) = %u, want %u", z, x, y, got, want);
         }
   tc_teardown(&c);
}

/* texture_load from a twiddled multisampled 2D array (tests/data/compute/
 * tex_load_ms_array.s): the two 16-bit slots after x and y are the sample
 * index, then the layer, as Mesa packs them (sample in the low half). The
 * model used to read them the other way round. 4x4 texels of 2 x R32:
 * one 4x4 Morton tile, 8 bytes a texel, 128 bytes a layer. */
static void
test_load_ms_array(void **state)
{
   (void)state;
   enum { MW = 4, MH = 4, ML = 3, MS = 2, OSTRIDE = MW * 4 };
   struct tc c;
   tc_setup(&c, 2, NULL);
   uint32_t *src;
   uint8_t *dst;
   uint64_t srcva = alloc_aligned(&c, MW * MH * MS * 4 * ML, 16384, (void **)&src);
   uint64_t dstva = alloc_aligned(&c, OSTRIDE * MH * ML, 128, (void **)&dst);
   for (uint32_t l = 0; l < ML; l++)
      for (uint32_t y = 0; y < MH; y++)
         for (uint32_t x = 0; x < MW; x++)
            for (uint32_t k = 0; k < MS; k++)
               src[l * MW * MH * MS + morton(x, y) * MS + k] = 1000 * l + 100 * k + 10 * y + x;
   memset(dst, 0xee, OSTRIDE * MH * ML);
   void *tab;
   uint64_t tabva = alloc_aligned(&c, 2 * AGX_TEXTURE_LENGTH, 64, &tab);
   struct agx_texture t = { AGX_TEXTURE_HEADER };
   t.dimension = AGX_TEXTURE_DIMENSION_2D_ARRAY_MS;
   t.samples = AGX_SAMPLE_COUNT_2;
   t.layout = AGX_LAYOUT_TWIDDLED;
   t.channels = AGX_CHANNELS_R32;
   t.type = AGX_TEXTURE_TYPE_UINT;
   t.width = MW;
   t.height = MH;
   t.depth = ML;
   t.address = srcva;
   put_texture(tab, 0, &t);
   struct agx_pbe pbe = { AGX_PBE_HEADER };
   pbe.layout = AGX_LAYOUT_LINEAR;
   pbe.channels = AGX_CHANNELS_R32;
   pbe.type = AGX_TEXTURE_TYPE_UINT;
   pbe.swizzle_r = AGX_CHANNEL_R;
   pbe.swizzle_g = AGX_CHANNEL_G;
   pbe.swizzle_b = AGX_CHANNEL_B;
   pbe.swizzle_a = AGX_CHANNEL_A;
   pbe.width = MW;
   pbe.height = MH * ML;
   pbe.buffer = dstva;
   pbe.stride = OSTRIDE - 4;   /* stored minus 4 */
   agx_pbe_pack((uint8_t *)tab + AGX_TEXTURE_LENGTH, &pbe);

   struct tc_pipeline p = {
      .shader = tc_kernel(&c, 0, "tex_load_ms_array"),
      .textures = tabva, .ntextures = 2,
   };
   struct tc_result r;
   tc_run1(&c, 0, tc_pipeline(&c, 0, &p), (uint32_t[3]){ MW, MH, ML },
           (uint32_t[3]){ MW, MH, 1 }, &r);
   assert_false(r.error);
   for (uint32_t l = 0; l < ML; l++)
      for (uint32_t y = 0; y < MH; y++)
         for (uint32_t x = 0; x < MW; x++) {
            uint32_t got, want = 1000 * l + 100 * 1 + 10 * y + x;
            memcpy(&got, dst + (l * MH + y) * OSTRIDE + x * 4, 4);
            if (got != want)
               fail_msg("layer %u (%u, %u) sample 1 = %u, want %u", l, x, y, got, want);
         }
   tc_teardown(&c);
}

int
main(void)
{
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_load_write),
      cmocka_unit_test(test_imageblock),
      cmocka_unit_test(test_imageblock_array),
      cmocka_unit_test(test_load_ms_array),
      cmocka_unit_test(test_texture_word_start),
      cmocka_unit_test(test_sample_explicit_lod),
      cmocka_unit_test(test_texture_fault),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}

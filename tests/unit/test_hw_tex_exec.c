/* SPDX-License-Identifier: MIT */
/*
 * hwtex instructions driven by the real USC interpreter: compute kernels
 * (assembled here) run with hw_usc_run_workgroup and hw_tex_compute_hook
 * on flat test memory.  Checks texture_load + image_write (a copy kernel
 * from tests/data/tex/), texture_sample with implicit quad derivatives,
 * explicit LOD, compare + offsets, 16-bit results and faults.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cmdstream/agx_pack.h"
#include "hw/tex/hw_tex.h"
#include "tests/unit/test_hw_tex_mem.h"

#define CODE_VA   (TEX_GPU_BASE + 0x0000)
#define TEXTAB_VA (TEX_GPU_BASE + 0x10000)
#define SAMPTAB_VA (TEX_GPU_BASE + 0x11000)
#define OUT_VA    (TEX_GPU_BASE + 0x20000)
#define SRC_VA    (TEX_GPU_BASE + 0x100000)
#define DST_VA    (TEX_GPU_BASE + 0x200000)

static struct hw_mmu last_mmu;
static const struct hw_tex_tile *frag_tile;        /* for frag_hook */
static hw_usc_stage_hook run_hook = hw_tex_compute_hook;
static struct hw_prof_entry *run_prof;             /* ctx.prof of run() */
static const struct hw_tex_slots *run_slots;       /* ctx.tex_slots of run() */
static unsigned run_nslots;

static int
setup(void **state)
{
   (void)state;
   memset(tex_test_mem, 0, sizeof(tex_test_mem));
   run_hook = hw_tex_compute_hook;
   frag_tile = NULL;
   run_prof = NULL;
   run_slots = NULL;
   run_nslots = 0;
   return 0;
}

static char *
read_text(const char *path)
{
   FILE *f = fopen(path, "rb");
   if (!f)
      return NULL;
   static char buf[8192];
   size_t n = fread(buf, 1, sizeof(buf) - 1, f);
   fclose(f);
   buf[n] = 0;
   return buf;
}

/* Assembles src, runs one workgroup of `threads` threads, returns status. */
/* What the render core's fragment/end-of-tile hook does: hand the
 * texture instructions to hwtex together with its tilebuffer tile. */
static enum hw_usc_status
frag_hook(void *user, struct hw_usc_simd *simd, const struct agx_instr *instr, uint32_t mask)
{
   char err[160];
   return hw_tex_execute((const struct hw_tex_ctx *)user, simd, instr, mask, frag_tile,
                         err, sizeof(err));
}

static enum hw_usc_status
run(const char *src, unsigned threads, const uint32_t *uniforms,
    struct hw_usc_result *res)
{
   uint8_t code[4096];
   size_t len;
   char err[256];
   if (!agx_isa_assemble(src, strlen(src), code, sizeof(code), &len, err, sizeof(err)))
      fail_msg("assemble: %s", err);
   memcpy(tex_host(CODE_VA), code, len);
   struct hw_usc_shader *sh = hw_usc_compile(code, len, CODE_VA, err, sizeof(err));
   if (!sh)
      fail_msg("compile: %s", err);
   static struct hw_tex_ctx ctx;
   ctx = (struct hw_tex_ctx){ .texture_table = TEXTAB_VA, .sampler_table = SAMPTAB_VA,
                              .prof = run_prof, .tex_slots = run_slots,
                              .ntex_slots = run_nslots };   /* compact tables */
   struct hw_usc_launch L = {
      .shader = sh, .uniforms = uniforms, .gpr_count = 16,
      .texture_table = TEXTAB_VA, .sampler_table = SAMPTAB_VA,
      .threads_per_threadgroup = { threads, 1, 1 }, .grid_size = { threads, 1, 1 },
      .stage_hook = run_hook, .hook_user = &ctx,
   };
   static uint8_t tg[1024];
   struct hw_usc_workgroup wg = { .threadgroup_mem = tg, .threadgroup_mem_size = sizeof(tg) };
   hw_mmu_init(&last_mmu, NULL, 1, HW_UNIT_USC);
   enum hw_usc_status st = hw_usc_run_workgroup(&L, &wg, &last_mmu, NULL, res);
   hw_usc_shader_free(sh);
   return st;
}

static void
put_texture(unsigned index, const struct agx_texture *t)
{
   struct agx_texture_packed p;
   agx_texture_pack(&p, t);
   memcpy(tex_host(TEXTAB_VA + index * 24), p.opaque, 24);
}

static void
put_sampler(unsigned index, const struct agx_sampler *s)
{
   struct agx_sampler_packed p;
   agx_sampler_pack(&p, s);
   memcpy(tex_host(SAMPTAB_VA + index * 8), p.opaque, 8);
}

static float
out_f32(unsigned i)
{
   float f;
   memcpy(&f, tex_host(OUT_VA + 4 * i), 4);
   return f;
}

static void
test_copy_kernel(void **state)
{
   (void)state;
   /* source: linear RGBA8, 8x4, stride 32 */
   for (unsigned i = 0; i < 8 * 4 * 4; i++)
      tex_host(SRC_VA)[i] = (uint8_t)(i * 13 + 1);
   struct agx_texture t = { AGX_TEXTURE_HEADER };
   t.layout = AGX_LAYOUT_LINEAR;
   t.channels = AGX_CHANNELS_R8G8B8A8;
   t.type = AGX_TEXTURE_TYPE_UNORM;
   t.width = 8;
   t.height = 4;
   t.address = SRC_VA;
   t.stride = 32 - 16;
   put_texture(0, &t);
   /* destination: twiddled RGBA8 PBE, 8x4 */
   struct agx_pbe p = { AGX_PBE_HEADER };
   p.layout = AGX_LAYOUT_TWIDDLED;
   p.channels = AGX_CHANNELS_R8G8B8A8;
   p.type = AGX_TEXTURE_TYPE_UNORM;
   p.swizzle_r = AGX_CHANNEL_R;
   p.swizzle_g = AGX_CHANNEL_G;
   p.swizzle_b = AGX_CHANNEL_B;
   p.swizzle_a = AGX_CHANNEL_A;
   p.width = 8;
   p.height = 4;
   p.buffer = DST_VA;
   struct agx_pbe_packed pp;
   agx_pbe_pack(&pp, &p);
   memcpy(tex_host(TEXTAB_VA + 24), pp.opaque, 24);
   struct agx_sampler s = { AGX_SAMPLER_HEADER };
   put_sampler(0, &s);

   char *src = read_text("tests/data/tex/copy_image.s");
   if (!src)
      src = read_text("../../../tests/data/tex/copy_image.s");
   assert_non_null(src);
   struct hw_usc_result res;
   memset(&res, 0, sizeof(res));
   enum hw_usc_status st = run(src, 32, NULL, &res);
   if (st != HW_USC_OK)
      fail_msg("run: %s (%s)", hw_usc_status_name(st), res.message);

   /* expected: the source texel at the twiddled position (x bits even,
    * y bits odd, one 64x64 tile) */
   for (unsigned y = 0; y < 4; y++)
      for (unsigned x = 0; x < 8; x++) {
         unsigned m = 0;
         for (unsigned b = 0; b < 3; b++)
            m |= ((x >> b) & 1) << (2 * b) | ((y >> b) & 1) << (2 * b + 1);
         assert_memory_equal(tex_host(DST_VA + 4 * m), tex_host(SRC_VA + y * 32 + x * 4), 4);
      }
}

/* 16x16 R32F, 5 levels; level L holds L + 0.5 everywhere. */
static void
mip_texture(void)
{
   struct agx_texture t = { AGX_TEXTURE_HEADER };
   t.layout = AGX_LAYOUT_TWIDDLED;
   t.channels = AGX_CHANNELS_R32;
   t.type = AGX_TEXTURE_TYPE_FLOAT;
   t.width = t.height = 16;
   t.address = SRC_VA;
   t.unk_mipmapped = true;
   t.last_level = 4;
   put_texture(0, &t);
   struct hw_tex_view v;
   char err[128];
   assert_true(hw_tex_view_decode(&v, tex_host(TEXTAB_VA), err, sizeof(err)));
   for (unsigned l = 0; l < 5; l++)
      for (uint32_t y = 0; y < v.layout.level[l].height; y++)
         for (uint32_t x = 0; x < v.layout.level[l].width; x++) {
            float f = (float)l + 0.5f;
            memcpy(tex_host(SRC_VA + hw_tex_offset(&v.layout, x, y, 0, l)), &f, 4);
         }
   struct agx_sampler s = { AGX_SAMPLER_HEADER };
   s.magnify = s.minify = AGX_FILTER_NEAREST;
   s.mip_filter = AGX_MIP_FILTER_NEAREST;
   s.wrap_s = s.wrap_t = AGX_WRAP_REPEAT;
   put_sampler(0, &s);
}

/* s = (lane & 1) * k + q * 0.01, t = ((lane >> 1) & 1) * k: each quad's
 * footprint is k texture widths per pixel along x and y. */
static const char *sample_kernel =
   "get_sr           r1, sr80 (thread_position_in_grid.x)\n"
   "and              r2, r1, 1\n"
   "bfeil            r3, 0, r1, 1, mask 0x1\n"
   "convert          u32_to_f, r4, r2, rte\n"
   "convert          u32_to_f, r5, r3, rte\n"
   "fmul32           r4, r4, u0\n"
   "fmul32           r5, r5, u0\n"
   "texture_sample   0, 0b0000, 0b0, none, x, 0b00, r6, None, ts0, ss0, tex_2d, r4_r5, auto_lod, 0\n"
   "wait             0\n"
   "device_store     0, i32, x, r6, u2_u3, r1, unsigned, 0\n"
   "stop\n";

static void
test_sample_quad_derivatives(void **state)
{
   (void)state;
   mip_texture();
   static const struct { float k; float want; } cases[] = {
      { 1.0f / 16, 0.5f },     /* one texel per pixel: level 0 */
      { 2.0f / 16, 1.5f },
      { 4.0f / 16, 2.5f },
      { 8.0f / 16, 3.5f },
      { 1.0f, 4.5f },          /* 16 texels per pixel: the last level */
   };
   for (unsigned k = 0; k < 5; k++) {
      uint32_t u[HW_USC_NUM_UNIFORMS] = { 0 };
      memcpy(&u[0], &cases[k].k, 4);
      u[2] = (uint32_t)OUT_VA;
      u[3] = (uint32_t)(OUT_VA >> 32);
      memset(tex_host(OUT_VA), 0, 128);
      struct hw_usc_result res;
      enum hw_usc_status st = run(sample_kernel, 32, u, &res);
      if (st != HW_USC_OK)
         fail_msg("run: %s (%s)", hw_usc_status_name(st), res.message);
      for (unsigned i = 0; i < 32; i++)
         if (out_f32(i) != cases[k].want)
            fail_msg("k=%g lane %u: %g, want %g", cases[k].k, i, out_f32(i), cases[k].want);
   }
}

/* A 16x16 mipmapped cube (5 levels, every face's level l holds l + 0.5),
 * nearest filters. */
static void
mip_cube(void)
{
   struct agx_texture t = { AGX_TEXTURE_HEADER };
   t.dimension = AGX_TEXTURE_DIMENSION_CUBE;
   t.layout = AGX_LAYOUT_TWIDDLED;
   t.channels = AGX_CHANNELS_R32;
   t.type = AGX_TEXTURE_TYPE_FLOAT;
   t.width = t.height = 16;
   t.depth = 1;
   t.address = SRC_VA;
   t.unk_mipmapped = true;
   t.last_level = 4;
   put_texture(0, &t);
   struct hw_tex_view v;
   char err[128];
   assert_true(hw_tex_view_decode(&v, tex_host(TEXTAB_VA), err, sizeof(err)));
   assert_int_equal(v.layers, 6);
   for (unsigned f = 0; f < 6; f++)
      for (unsigned l = 0; l < 5; l++)
         for (uint32_t y = 0; y < v.layout.level[l].height; y++)
            for (uint32_t x = 0; x < v.layout.level[l].width; x++) {
               float val = (float)l + 0.5f;
               memcpy(tex_host(SRC_VA + hw_tex_offset(&v.layout, x, y, f, l)), &val, 4);
            }
   struct agx_sampler s = { AGX_SAMPLER_HEADER };
   s.magnify = s.minify = AGX_FILTER_NEAREST;
   s.mip_filter = AGX_MIP_FILTER_NEAREST;
   put_sampler(0, &s);
}

/* Direction (u1 + (lane & 1) * k, ((lane >> 1) & 1) * k, 1): near the +Z
 * face's right edge (u1 close to 1) a quad's odd lanes cross onto +X. */
static const char *cube_kernel =
   "get_sr           r1, sr80 (thread_position_in_grid.x)\n"
   "and              r2, r1, 1\n"
   "bfeil            r3, 0, r1, 1, mask 0x1\n"
   "convert          u32_to_f, r4, r2, rte\n"
   "convert          u32_to_f, r5, r3, rte\n"
   "fmul32           r4, r4, u0\n"
   "fmul32           r5, r5, u0\n"
   "fadd32           r4, r4, u1\n"
   "fadd32           r6, u4, -0.0\n"
   "texture_sample   0, 0b0000, 0b0, none, x, 0b00, r8, None, ts0, ss0, tex_cube, r4_r5_r6, auto_lod, 0\n"
   "wait             0\n"
   "device_store     0, i32, x, r8, u2_u3, r1, unsigned, 0\n"
   "stop\n";

/* Cube LOD from implicit derivatives: the quad's direction differences
 * projected on each lane's face (GL's rule), not differences of face
 * coordinates, which jump across a face edge.  k = 1/8 is one texel of a
 * 16-texel face per pixel (level 0) wherever the quad lies; before, the
 * quad straddling +Z/+X picked the last level (piglit
 * tex-miplevel-selection GL2:texture() Cube, issue 13). */
static void
test_sample_cube_quad_derivatives(void **state)
{
   (void)state;
   mip_cube();
   static const struct { float k, s0, want; } cases[] = {
      { 1.0f / 8, 0.0f, 0.5f },     /* inside +Z: one texel per pixel */
      { 2.0f / 8, 0.0f, 1.5f },     /* two texels per pixel: level 1 */
      { 1.0f / 8, 0.95f, 0.5f },    /* odd lanes on +X, still level 0 */
      { 1.0f / 8, -1.02f, 0.5f },   /* even lanes on -X */
   };
   const float one = 1.0f;
   for (unsigned k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
      uint32_t u[HW_USC_NUM_UNIFORMS] = { 0 };
      memcpy(&u[0], &cases[k].k, 4);
      memcpy(&u[1], &cases[k].s0, 4);
      memcpy(&u[4], &one, 4);
      u[2] = (uint32_t)OUT_VA;
      u[3] = (uint32_t)(OUT_VA >> 32);
      memset(tex_host(OUT_VA), 0, 128);
      struct hw_usc_result res;
      enum hw_usc_status st = run(cube_kernel, 32, u, &res);
      if (st != HW_USC_OK)
         fail_msg("run: %s (%s)", hw_usc_status_name(st), res.message);
      for (unsigned i = 0; i < 32; i++)
         if (out_f32(i) != cases[k].want)
            fail_msg("case %u lane %u: %g, want %g", k, i, out_f32(i), cases[k].want);
   }
}

/* Explicit LOD (fp16 2.0 in the uniform half u7l) into a 16-bit result. */
static const char *lod_kernel =
   "get_sr           r1, sr80 (thread_position_in_grid.x)\n"
   "mov_imm          r4, 0, 0b0\n"
   "mov_imm          r5, 0, 0b0\n"
   "texture_sample   0, 0b0000, 0b0, none, x, 0b00, r6l, None, ts0, ss0, tex_2d, r4_r5, lod_min, u7l\n"
   "wait             0\n"
   "device_store     0, i16, x, r6l, u2_u3, r1, unsigned, 0\n"
   "stop\n";

static void
test_sample_explicit_lod_half(void **state)
{
   (void)state;
   mip_texture();
   uint32_t u[HW_USC_NUM_UNIFORMS] = { 0 };
   u[2] = (uint32_t)OUT_VA;
   u[3] = (uint32_t)(OUT_VA >> 32);
   u[7] = 0x4000;                             /* u7l = 2.0 (fp16) */
   struct hw_usc_result res;
   enum hw_usc_status st = run(lod_kernel, 4, u, &res);
   if (st != HW_USC_OK)
      fail_msg("run: %s (%s)", hw_usc_status_name(st), res.message);
   for (unsigned i = 0; i < 4; i++) {
      uint16_t h;
      memcpy(&h, tex_host(OUT_VA + 2 * i), 2);
      assert_int_equal(h, 0x4100);            /* 2.5 in fp16 */
   }
   /* the register encoding (lod mode 6): D = r7l; fp16 3.0 there */
   const char *reg_kernel =
      "get_sr           r1, sr80 (thread_position_in_grid.x)\n"
      "mov_imm          r4, 0, 0b0\n"
      "mov_imm          r5, 0, 0b0\n"
      "mov_imm          r7l, 16896\n"
      "texture_sample   0, 0b0000, 0b0, none, x, 0b00, r6l, None, ts0, ss0, tex_2d, r4_r5, lod_min, r7l\n"
      "wait             0\n"
      "device_store     0, i16, x, r6l, u2_u3, r1, unsigned, 0\n"
      "stop\n";
   st = run(reg_kernel, 4, u, &res);
   if (st != HW_USC_OK)
      fail_msg("run: %s (%s)", hw_usc_status_name(st), res.message);
   for (unsigned i = 0; i < 4; i++) {
      uint16_t h;
      memcpy(&h, tex_host(OUT_VA + 2 * i), 2);
      assert_int_equal(h, 0x4300);            /* 3.5 in fp16 */
   }
}

/* The end-of-tile store: image_write_block with the tilebuffer offset in
 * r0l (4: the second render target of 8-byte pixels), u8norm data. */
static void
test_block_store_instruction(void **state)
{
   (void)state;
   uint8_t tile[8 * 8 * 8];
   for (unsigned i = 0; i < sizeof(tile); i++)
      tile[i] = (uint8_t)(i * 5 + 1);
   struct hw_tex_tile tt = {
      .mem = tile, .size = sizeof(tile), .width = 8, .height = 8, .samples = 1,
      .row_stride = 64, .pixel_stride = 8, .x0 = 8, .y0 = 0,
   };
   frag_tile = &tt;
   run_hook = frag_hook;
   struct agx_pbe p = { AGX_PBE_HEADER };
   p.layout = AGX_LAYOUT_LINEAR;
   p.channels = AGX_CHANNELS_R8G8B8A8;
   p.type = AGX_TEXTURE_TYPE_UNORM;
   p.swizzle_r = AGX_CHANNEL_R;
   p.swizzle_g = AGX_CHANNEL_G;
   p.swizzle_b = AGX_CHANNEL_B;
   p.swizzle_a = AGX_CHANNEL_A;
   p.width = 16;
   p.height = 8;
   p.buffer = DST_VA;
   p.stride = 64 - 4;
   struct agx_pbe_packed pp;
   agx_pbe_pack(&pp, &p);
   memcpy(tex_host(TEXTAB_VA + 3 * 24), pp.opaque, 24);
   const char *k = "mov_imm          r0l, 4\n"
                   "image_write_block r0l, r4_r5, 0, ts3, tex_2d, rte, u8norm, 0, 0, 0\n"
                   "stop\n";
   struct hw_usc_result res;
   enum hw_usc_status st = run(k, 32, NULL, &res);
   if (st != HW_USC_OK)
      fail_msg("run: %s (%s)", hw_usc_status_name(st), res.message);
   for (unsigned y = 0; y < 8; y++)
      for (unsigned x = 0; x < 16; x++) {
         const uint8_t *got = tex_host(DST_VA + y * 64 + x * 4);
         if (x < 8) {
            static const uint8_t zero[4] = { 0 };
            assert_memory_equal(got, zero, 4);
         } else {
            assert_memory_equal(got, tile + y * 64 + (x - 8) * 8 + 4, 4);
         }
      }
}

/* A PBE descriptor of a linear 8x8 image of channels/type at buffer. */
static void
put_pbe(uint64_t at, unsigned channels, unsigned type, unsigned stride, uint64_t buffer)
{
   struct agx_pbe p = { AGX_PBE_HEADER };
   p.layout = AGX_LAYOUT_LINEAR;
   p.channels = channels;
   p.type = type;
   p.swizzle_r = AGX_CHANNEL_R;
   p.swizzle_g = AGX_CHANNEL_G;
   p.swizzle_b = AGX_CHANNEL_B;
   p.swizzle_a = AGX_CHANNEL_A;
   p.width = 8;
   p.height = 8;
   p.buffer = buffer;
   p.stride = stride - 4;
   struct agx_pbe_packed pp;
   agx_pbe_pack(&pp, &p);
   memcpy(tex_host(at), pp.opaque, 24);
}

/* Mesa's end-of-tile program stores an f16 render target with i16
 * (agx_compile.c turns every f16 image_write_block into i16): the
 * integer memory formats move the bits, so a half-float image gets the
 * tilebuffer's halves unchanged (the model converted the integers to
 * floats: every half-float render target read back 0). */
static void
test_block_store_i16_to_half_float(void **state)
{
   (void)state;
   uint16_t tile[8 * 8 * 4];
   static const uint16_t halves[4] = { 0x4700 /* 7 */, 0xc180 /* -2.75 */,
                                       0xb400 /* -0.25 */, 0x3a00 /* 0.75 */ };
   for (unsigned i = 0; i < 8 * 8 * 4; i++)
      tile[i] = (uint16_t)(halves[i % 4] + (i / 4 % 7));
   struct hw_tex_tile tt = {
      .mem = (const uint8_t *)tile, .size = sizeof(tile), .width = 8, .height = 8,
      .samples = 1, .row_stride = 64, .pixel_stride = 8,
   };
   frag_tile = &tt;
   run_hook = frag_hook;
   put_pbe(TEXTAB_VA, AGX_CHANNELS_R16G16B16A16, AGX_TEXTURE_TYPE_FLOAT, 64, DST_VA);
   const char *k = "mov_imm          r0l, 0\n"
                   "image_write_block r0l, r4_r5, 0, ts0, tex_2d, rte, i16, 0, 0, 0\n"
                   "stop\n";
   struct hw_usc_result res;
   enum hw_usc_status st = run(k, 32, NULL, &res);
   if (st != HW_USC_OK)
      fail_msg("run: %s (%s)", hw_usc_status_name(st), res.message);
   assert_memory_equal(tex_host(DST_VA), tile, sizeof(tile));
}

/* Slots of several Texture words: Mesa's end-of-tile program binds each
 * render target's PBE descriptor with a word of its own (start = rt,
 * count 1, each from its own allocation), so ts1 is read where the
 * second word put it, not 24 bytes after the first word's descriptor
 * (which held zeros: a store through a PBE at address 0). */
static void
test_texture_slots_of_several_words(void **state)
{
   (void)state;
   uint8_t tile[8 * 8 * 8];
   for (unsigned i = 0; i < sizeof(tile); i++)
      tile[i] = (uint8_t)(i * 3 + 7);
   struct hw_tex_tile tt = {
      .mem = tile, .size = sizeof(tile), .width = 8, .height = 8, .samples = 1,
      .row_stride = 64, .pixel_stride = 8,
   };
   frag_tile = &tt;
   run_hook = frag_hook;
   /* word 0: slot 0 at TEXTAB_VA; word 1: slot 1 at TEXTAB_VA + 0x400 */
   put_pbe(TEXTAB_VA, AGX_CHANNELS_R8G8B8A8, AGX_TEXTURE_TYPE_UNORM, 32, DST_VA);
   put_pbe(TEXTAB_VA + 0x400, AGX_CHANNELS_R8G8B8A8, AGX_TEXTURE_TYPE_UNORM, 32,
           DST_VA + 0x1000);
   static const struct hw_tex_slots slots[2] = {
      { .start = 0, .count = 1, .buffer = TEXTAB_VA },
      { .start = 1, .count = 1, .buffer = TEXTAB_VA + 0x400 },
   };
   run_slots = slots;
   run_nslots = 2;
   const char *k = "mov_imm          r0l, 0\n"
                   "image_write_block r0l, r4_r5, 0, ts0, tex_2d, rte, u8norm, 0, 0, 0\n"
                   "mov_imm          r0l, 4\n"
                   "image_write_block r0l, r4_r5, 0, ts1, tex_2d, rte, u8norm, 0, 0, 0\n"
                   "stop\n";
   struct hw_usc_result res;
   enum hw_usc_status st = run(k, 32, NULL, &res);
   if (st != HW_USC_OK)
      fail_msg("run: %s (%s)", hw_usc_status_name(st), res.message);
   for (unsigned y = 0; y < 8; y++)
      for (unsigned x = 0; x < 8; x++) {
         assert_memory_equal(tex_host(DST_VA + y * 32 + x * 4), tile + y * 64 + x * 8, 4);
         assert_memory_equal(tex_host(DST_VA + 0x1000 + y * 32 + x * 4),
                             tile + y * 64 + x * 8 + 4, 4);
      }
}

/* Shadow compare with a texel offset: reference in r8, offsets in r9l. */
static const char *compare_kernel =
   "get_sr           r1, sr80 (thread_position_in_grid.x)\n"
   "convert          u32_to_f, r4, r1, rte\n"
   "fmul32           r4, r4, 0.25\n"
   "fadd32           r4, r4, 0.125\n"
   "mov_imm          r5, 1040187392, 0b0\n"
   "mov_imm          r8, 1056964608, 0b0\n"
   "mov_imm          r9l, 1\n"
   "texture_sample   1, 0b0000, 0b0, none, x, 0b00, r6, None, ts0, ss1, tex_2d, r4_r5, auto_lod, 0, r8_r9l\n"
   "wait             0\n"
   "device_store     0, i32, x, r6, u2_u3, r1, unsigned, 0\n"
   "stop\n";

static void
test_sample_compare_offset(void **state)
{
   (void)state;
   /* 4x1 depth texture 0.2 0.4 0.6 0.8 (linear R32F) */
   static const float d[4] = { 0.2f, 0.4f, 0.6f, 0.8f };
   memcpy(tex_host(SRC_VA), d, sizeof(d));
   struct agx_texture t = { AGX_TEXTURE_HEADER };
   t.layout = AGX_LAYOUT_LINEAR;
   t.channels = AGX_CHANNELS_R32;
   t.type = AGX_TEXTURE_TYPE_FLOAT;
   t.width = 4;
   t.height = 1;
   t.address = SRC_VA;
   t.stride = 0;
   put_texture(0, &t);
   struct agx_sampler s = { AGX_SAMPLER_HEADER };
   s.compare_enable = true;
   s.compare_func = AGX_COMPARE_FUNC_LEQUAL;   /* pass when ref <= texel */
   put_sampler(1, &s);
   uint32_t u[HW_USC_NUM_UNIFORMS] = { 0 };
   u[2] = (uint32_t)OUT_VA;
   u[3] = (uint32_t)(OUT_VA >> 32);
   struct hw_usc_result res;
   enum hw_usc_status st = run(compare_kernel, 4, u, &res);
   if (st != HW_USC_OK)
      fail_msg("run: %s (%s)", hw_usc_status_name(st), res.message);
   /* lane i samples texel i + 1 (offset 1, clamp to edge): 0.4 0.6 0.8 0.8
    * against ref 0.5 */
   static const float want[4] = { 0, 1, 1, 1 };
   for (unsigned i = 0; i < 4; i++)
      assert_true(out_f32(i) == want[i]);
}

/* texelFetchOffset: thread i loads texel (i, 0) with offset (+1, +1). */
static const char *load_offset_kernel =
   "get_sr           r1, sr80 (thread_position_in_grid.x)\n"
   "mov_imm          r4, 0, 0b0\n"
   "iadd             r4, r1, 0\n"
   "mov_imm          r5, 0, 0b0\n"
   "mov_imm          r9l, 17\n"
   "texture_load     0, 0b0000, 0b0, none, x, 0b00, r6, None, ts0, ss0, tex_2d, r4_r5, auto_lod, 0, r9l\n"
   "wait             0\n"
   "device_store     0, i32, x, r6, u2_u3, r1, unsigned, 0\n"
   "stop\n";

static void
test_load_offset(void **state)
{
   (void)state;
   /* 4x2 R32F (linear): texel (x, y) = 10 y + x */
   float v[8];
   for (unsigned i = 0; i < 8; i++)
      v[i] = (float)(10 * (i / 4) + i % 4);
   memcpy(tex_host(SRC_VA), v, sizeof(v));
   struct agx_texture t = { AGX_TEXTURE_HEADER };
   t.layout = AGX_LAYOUT_LINEAR;
   t.channels = AGX_CHANNELS_R32;
   t.type = AGX_TEXTURE_TYPE_FLOAT;
   t.width = 4;
   t.height = 2;
   t.address = SRC_VA;
   t.stride = 16 - 16;
   put_texture(0, &t);
   struct agx_sampler smp = { AGX_SAMPLER_HEADER };
   put_sampler(0, &smp);
   uint32_t u[HW_USC_NUM_UNIFORMS] = { 0 };
   u[2] = (uint32_t)OUT_VA;
   u[3] = (uint32_t)(OUT_VA >> 32);
   struct hw_usc_result res;
   enum hw_usc_status st = run(load_offset_kernel, 3, u, &res);
   if (st != HW_USC_OK)
      fail_msg("run: %s (%s)", hw_usc_status_name(st), res.message);
   for (unsigned i = 0; i < 3; i++)
      assert_true(out_f32(i) == (float)(10 + i + 1));
}

static void
test_fault_reported(void **state)
{
   (void)state;
   struct agx_texture t = { AGX_TEXTURE_HEADER };
   t.layout = AGX_LAYOUT_LINEAR;
   t.channels = AGX_CHANNELS_R32;
   t.type = AGX_TEXTURE_TYPE_FLOAT;
   t.width = 8;
   t.height = 4;
   t.address = 0x40000000;                          /* unmapped */
   t.stride = 16;
   put_texture(0, &t);
   struct agx_sampler s = { AGX_SAMPLER_HEADER };
   put_sampler(0, &s);
   char *src = read_text("tests/data/tex/copy_image.s");
   assert_non_null(src);
   struct hw_usc_result res;
   memset(&res, 0, sizeof(res));
   assert_int_equal(run(src, 32, NULL, &res), HW_USC_FAULT);
   assert_true(last_mmu.fault.valid);
   assert_int_equal(last_mmu.fault.unit, HW_UNIT_TEX);
   assert_int_equal(last_mmu.fault.addr, 0x40000000);

   /* a bad descriptor stops the shader as bad code */
   t.swizzle_r = 7;   /* no such channel */
   put_texture(0, &t);
   assert_int_equal(run(src, 32, NULL, &res), HW_USC_BAD_CODE);
}

static void
test_block_needs_tile(void **state)
{
   (void)state;
   struct hw_usc_result res;
   const char *k = "mov_imm          r0l, 0\n"
                   "image_write_block r0l, r4_r5, 0, ts3, tex_2d, rte, i8, 0, 0, 0\n"
                   "stop\n";
   assert_int_equal(run(k, 4, NULL, &res), HW_USC_BAD_CODE);
}

/* An end-of-tile store running off the end of mapped memory: rows 0-3 of
 * the image are mapped, rows 4-7 are not. The store writes runs of
 * texels with one copy each and redoes a faulting run texel by texel, so
 * everything before the first unmapped texel lands and the fault names
 * exactly that texel's address. */
static void
test_block_store_partial_fault(void **state)
{
   (void)state;
   uint8_t tile[8 * 8 * 4];
   for (unsigned i = 0; i < sizeof(tile); i++)
      tile[i] = (uint8_t)(i * 7 + 3);
   struct hw_tex_tile tt = {
      .mem = tile, .size = sizeof(tile), .width = 8, .height = 8, .samples = 1,
      .row_stride = 32, .pixel_stride = 4, .x0 = 0, .y0 = 0,
   };
   frag_tile = &tt;
   run_hook = frag_hook;
   const uint64_t base = TEX_GPU_BASE + TEX_GPU_SIZE - 4 * 32;   /* 4 rows of 32 bytes */
   struct agx_pbe p = { AGX_PBE_HEADER };
   p.layout = AGX_LAYOUT_LINEAR;
   p.channels = AGX_CHANNELS_R8G8B8A8;
   p.type = AGX_TEXTURE_TYPE_UNORM;
   p.swizzle_r = AGX_CHANNEL_R;
   p.swizzle_g = AGX_CHANNEL_G;
   p.swizzle_b = AGX_CHANNEL_B;
   p.swizzle_a = AGX_CHANNEL_A;
   p.width = 8;
   p.height = 8;
   p.buffer = base;
   p.stride = 32 - 4;
   struct agx_pbe_packed pp;
   agx_pbe_pack(&pp, &p);
   memcpy(tex_host(TEXTAB_VA), pp.opaque, 24);
   const char *k = "mov_imm          r0l, 0\n"
                   "image_write_block r0l, r4_r5, 0, ts0, tex_2d, rte, u8norm, 0, 0, 0\n"
                   "stop\n";
   struct hw_usc_result res;
   memset(&res, 0, sizeof(res));
   assert_int_equal(run(k, 32, NULL, &res), HW_USC_FAULT);
   assert_true(last_mmu.fault.valid);
   assert_int_equal(last_mmu.fault.unit, HW_UNIT_PBE);
   assert_int_equal(last_mmu.fault.addr, base + 4 * 32);
   assert_memory_equal(tex_host(base), tile, 4 * 32);
}

/* The profile counts of texture instructions: texture_load lanes, sample
 * lanes by the sampler's min and mip filter, fetches per format. */
static void
test_prof_counts(void **state)
{
   struct hw_prof_entry e;
   memset(&e, 0, sizeof(e));
   run_prof = &e;
   test_copy_kernel(state);                   /* 32 loads of RGBA8 unorm */
   assert_int_equal(e.c[HW_PROF_TEX_LOADS], 32);
   uint32_t rgba8 = hw_prof_tex_key(AGX_CHANNELS_R8G8B8A8, AGX_TEXTURE_TYPE_UNORM, false, false);
   assert_int_equal(e.tex[0].key, rgba8);
   assert_int_equal(e.tex[0].n, 32);
   assert_int_equal(e.tex[1].key, 0);

   mip_texture();                             /* R32 float, nearest, mip nearest */
   uint32_t u[HW_USC_NUM_UNIFORMS] = { 0 };
   float k = 1.0f / 16;
   memcpy(&u[0], &k, 4);
   u[2] = (uint32_t)OUT_VA;
   u[3] = (uint32_t)(OUT_VA >> 32);
   struct hw_usc_result res;
   assert_int_equal(run(sample_kernel, 32, u, &res), HW_USC_OK);
   assert_int_equal(e.c[HW_PROF_TEX_NEAREST_MIPMAP_NEAREST], 32);
   struct agx_sampler s = { AGX_SAMPLER_HEADER };
   s.magnify = s.minify = AGX_FILTER_LINEAR;
   s.mip_filter = AGX_MIP_FILTER_LINEAR;
   put_sampler(0, &s);
   assert_int_equal(run(sample_kernel, 8, u, &res), HW_USC_OK);
   assert_int_equal(e.c[HW_PROF_TEX_LINEAR_MIPMAP_LINEAR], 8);
   s.minify = AGX_FILTER_NEAREST;
   s.mip_filter = AGX_MIP_FILTER_NONE;
   put_sampler(0, &s);
   assert_int_equal(run(sample_kernel, 4, u, &res), HW_USC_OK);
   assert_int_equal(e.c[HW_PROF_TEX_NEAREST], 4);
   assert_int_equal(e.c[HW_PROF_TEX_LINEAR] + e.c[HW_PROF_TEX_LINEAR_MIPMAP_NEAREST] +
                    e.c[HW_PROF_TEX_NEAREST_MIPMAP_LINEAR], 0);
   /* formats in ascending key order */
   uint32_t r32f = hw_prof_tex_key(AGX_CHANNELS_R32, AGX_TEXTURE_TYPE_FLOAT, false, false);
   unsigned lo = r32f < rgba8 ? 0 : 1;
   assert_int_equal(e.tex[lo].key, r32f);
   assert_int_equal(e.tex[lo].n, 44);
   assert_int_equal(e.tex[1 - lo].key, rgba8);
   assert_int_equal(e.tex[1 - lo].n, 32);
   assert_int_equal(e.tex[2].key, 0);
}

/* texture_load of 16x4 adjacent pixels over a 12x3 image (the last
 * columns and row out of range), each component stored to its own array:
 * what a background program reloading a render target does. */
static const char *load_group_kernel =
   "get_sr           r1, sr80 (thread_position_in_grid.x)\n"
   "and              r4, r1, 15\n"
   "bfeil            r5, 0, r1, 4, mask 0x3\n"
   "texture_load     0, 0b0000, 0b0, none, xyzw, 0b00, r6_r7_r8_r9, None, ts0, ss0, tex_2d, r4_r5, auto_lod, 0\n"
   "wait             0\n"
   "device_store     0, i32, x, r6, u2_u3, r1, unsigned, 0\n"
   "device_store     0, i32, x, r7, u4_u5, r1, unsigned, 0\n"
   "device_store     0, i32, x, r8, u6_u7, r1, unsigned, 0\n"
   "device_store     0, i32, x, r9, u8_u9, r1, unsigned, 0\n"
   "stop\n";

/* Runs load_group_kernel over 64 threads with the fast paths on or off;
 * returns the status, the four output arrays in out, the profile in e. */
static enum hw_usc_status
run_load_group(bool fast, uint32_t out[4][64], struct hw_prof_entry *e)
{
   uint32_t u[HW_USC_NUM_UNIFORMS] = { 0 };
   for (unsigned c = 0; c < 4; c++) {
      uint64_t va = OUT_VA + c * 0x1000;
      u[2 + 2 * c] = (uint32_t)va;
      u[3 + 2 * c] = (uint32_t)(va >> 32);
      memset(tex_host(va), 0x5a, 64 * 4);
   }
   memset(e, 0, sizeof(*e));
   run_prof = e;
   hw_tex_sample_fast_paths = fast;
   struct hw_usc_result res;
   memset(&res, 0, sizeof(res));
   enum hw_usc_status st = run(load_group_kernel, 64, u, &res);
   hw_tex_sample_fast_paths = true;
   run_prof = NULL;
   for (unsigned c = 0; c < 4; c++)
      memcpy(out[c], tex_host(OUT_VA + c * 0x1000), 64 * 4);
   return st;
}

/* exec_sample's texture_load of a whole group (exec_load_lanes, taken with
 * the fast paths on) against its per-lane loop: the same registers, the
 * same profile counts, and for a texture in unmapped memory the same
 * fault, for 8-bit unorm (twiddled, linear, sRGB, swizzled) and float
 * views. */
static void
test_load_group_matches_general(void **state)
{
   (void)state;
   for (unsigned i = 0; i < 0x10000; i++)
      tex_host(SRC_VA)[i] = (uint8_t)(i * 29 + 7);
   struct agx_sampler s = { AGX_SAMPLER_HEADER };
   put_sampler(0, &s);
   for (unsigned k = 0; k < 6; k++) {
      struct agx_texture t = { AGX_TEXTURE_HEADER };
      t.layout = k == 1 ? AGX_LAYOUT_LINEAR : AGX_LAYOUT_TWIDDLED;
      t.channels = k == 4 ? AGX_CHANNELS_R32 : k == 3 ? AGX_CHANNELS_R8G8 : AGX_CHANNELS_R8G8B8A8;
      t.type = k == 4 ? AGX_TEXTURE_TYPE_FLOAT : AGX_TEXTURE_TYPE_UNORM;
      t.width = 12;
      t.height = 3;
      t.address = k == 5 ? 0x40000000 : SRC_VA;            /* 5: unmapped */
      if (k == 1)
         t.stride = 64 - 16;
      t.srgb = k == 2;
      t.swizzle_r = AGX_CHANNEL_B;
      t.swizzle_g = AGX_CHANNEL_G;
      t.swizzle_b = AGX_CHANNEL_R;
      t.swizzle_a = k == 3 ? AGX_CHANNEL_1 : AGX_CHANNEL_A;
      put_texture(0, &t);
      static uint32_t a[4][64], b[4][64];
      struct hw_prof_entry pa, pb;
      enum hw_usc_status sa = run_load_group(true, a, &pa);
      struct hw_fault fa = last_mmu.fault;
      enum hw_usc_status sb = run_load_group(false, b, &pb);
      struct hw_fault fb = last_mmu.fault;
      assert_int_equal(sa, k == 5 ? HW_USC_FAULT : HW_USC_OK);
      assert_int_equal(sa, sb);
      if (memcmp(a, b, sizeof(a)) != 0)
         fail_msg("view %u: loaded values differ", k);
      if (memcmp(&pa, &pb, sizeof(pa)) != 0)
         fail_msg("view %u: profile counts differ", k);
      assert_int_equal(fa.valid, fb.valid);
      assert_int_equal(fa.addr, fb.addr);
      if (k != 5) {
         assert_int_equal(pa.c[HW_PROF_TEX_LOADS], 64);
         /* texel (1, 2) of an 8-bit view is not all zero; (12, 0) is */
         assert_true(a[0][2 * 16 + 1] | a[1][2 * 16 + 1] | a[2][2 * 16 + 1]);
         assert_int_equal(a[0][12] | a[1][12] | a[2][12] | a[3][12], 0);
      }
   }
}

/* texture_sample (implicit lod) of 64 threads at s = x * u0 + u1,
 * t = y * u0 + u1 for x = thread & 15, y = thread >> 4, each component
 * stored to its own array, as 32-bit results (r6..r9), then as halves
 * with a lod bias (u20l) and with an explicit lod (u21l): the lod modes
 * Mesa's asahi driver emits for GL's texture(). */
static const char *sample_group_kernel =
   "get_sr           r1, sr80 (thread_position_in_grid.x)\n"
   "and              r2, r1, 15\n"
   "bfeil            r3, 0, r1, 4, mask 0x3\n"
   "convert          u32_to_f, r4, r2, rte\n"
   "convert          u32_to_f, r5, r3, rte\n"
   "fmul32           r4, r4, u0\n"
   "fmul32           r5, r5, u0\n"
   "fadd32           r4, r4, u1\n"
   "fadd32           r5, r5, u1\n"
   "texture_sample   0, 0b0000, 0b0, none, xyzw, 0b00, r6_r7_r8_r9, None, ts0, ss0, tex_2d, r4_r5, auto_lod, 0\n"
   "wait             0\n"
   "texture_sample   0, 0b0000, 0b0, none, xyzw, 0b00, r10l_r10h_r11l_r11h, None, ts0, ss0, tex_2d, r4_r5, auto_lod_bias, u20l\n"
   "wait             0\n"
   "texture_sample   0, 0b0000, 0b0, none, xyzw, 0b00, r12l_r12h_r13l_r13h, None, ts0, ss0, tex_2d, r4_r5, lod_min, u21l\n"
   "wait             0\n"
   "device_store     0, i32, x, r6, u2_u3, r1, unsigned, 0\n"
   "device_store     0, i32, x, r7, u4_u5, r1, unsigned, 0\n"
   "device_store     0, i32, x, r8, u6_u7, r1, unsigned, 0\n"
   "device_store     0, i32, x, r9, u8_u9, r1, unsigned, 0\n"
   "device_store     0, i32, x, r10, u10_u11, r1, unsigned, 0\n"
   "device_store     0, i32, x, r11, u12_u13, r1, unsigned, 0\n"
   "device_store     0, i32, x, r12, u14_u15, r1, unsigned, 0\n"
   "device_store     0, i32, x, r13, u16_u17, r1, unsigned, 0\n"
   "stop\n";

/* Runs sample_group_kernel with scale k and offset o, the fast paths on
 * or off; returns the status, the six output arrays, the profile. */
static enum hw_usc_status
run_sample_group(bool fast, float k, float o, uint32_t out[8][64], struct hw_prof_entry *e)
{
   uint32_t u[HW_USC_NUM_UNIFORMS] = { 0 };
   memcpy(&u[0], &k, 4);
   memcpy(&u[1], &o, 4);
   for (unsigned c = 0; c < 8; c++) {
      uint64_t va = OUT_VA + c * 0x1000;
      u[2 + 2 * c] = (uint32_t)va;
      u[3 + 2 * c] = (uint32_t)(va >> 32);
      memset(tex_host(va), 0x5a, 64 * 4);
   }
   u[20] = 0x4000;            /* bias 2.0 (half) */
   u[21] = 0x3c00;            /* lod 1.0 (half) */
   memset(e, 0, sizeof(*e));
   run_prof = e;
   hw_tex_sample_fast_paths = fast;
   struct hw_usc_result res;
   memset(&res, 0, sizeof(res));
   enum hw_usc_status st = run(sample_group_kernel, 64, u, &res);
   hw_tex_sample_fast_paths = true;
   run_prof = NULL;
   for (unsigned c = 0; c < 8; c++)
      memcpy(out[c], tex_host(OUT_VA + c * 0x1000), 64 * 4);
   return st;
}

/* exec_sample's nearest, unmipmapped sampling of a whole group
 * (exec_sample_nearest_lanes, taken with the fast paths on) against its
 * per-lane loop: the same registers (32-bit and half; implicit, biased
 * and explicit lods), profile counts and
 * faults, for 8-bit unorm views (twiddled, linear, sRGB, swizzled, two
 * components, unmapped) under every wrap mode with coordinates inside,
 * across and outside the texture (the border and clamp cases), and for
 * the views and samplers it leaves to the loop (float, bilinear,
 * mipmapped). */
static void
test_sample_nearest_group_matches_general(void **state)
{
   (void)state;
   for (unsigned i = 0; i < 0x10000; i++)
      tex_host(SRC_VA)[i] = (uint8_t)(i * 29 + 7);
   static const unsigned wraps[] = { AGX_WRAP_REPEAT, AGX_WRAP_CLAMP_TO_EDGE,
                                     AGX_WRAP_CLAMP_TO_BORDER, AGX_WRAP_MIRRORED_REPEAT,
                                     AGX_WRAP_CLAMP_GL, AGX_WRAP_MIRRORED_CLAMP_TO_EDGE };
   static const float coords[][2] = {
      { 1.0f / 16, 0.01f }, { 0.13f, -0.4f }, { -0.07f, 0.3f }, { 0.0f, -0.0f },
   };
   unsigned fast_runs = 0;
   for (unsigned v = 0; v < 8; v++)
      for (unsigned w = 0; w < 6; w++)
         for (unsigned c = 0; c < 4; c++) {
            struct agx_texture t = { AGX_TEXTURE_HEADER };
            t.layout = v == 1 ? AGX_LAYOUT_LINEAR : AGX_LAYOUT_TWIDDLED;
            t.channels = v == 4 ? AGX_CHANNELS_R32 : v == 3 ? AGX_CHANNELS_R8G8 : AGX_CHANNELS_R8G8B8A8;
            t.type = v == 4 ? AGX_TEXTURE_TYPE_FLOAT : AGX_TEXTURE_TYPE_UNORM;
            t.width = v == 6 ? 16 : 12;
            t.height = v == 6 ? 16 : 5;
            t.address = v == 5 ? 0x40000000 : SRC_VA;          /* 5: unmapped */
            if (v == 1)
               t.stride = 64 - 16;
            t.srgb = v == 2;
            t.swizzle_r = AGX_CHANNEL_B;
            /* the two-component view also reads its missing alpha and
             * a swizzled 0 and 1 */
            t.swizzle_g = v == 3 && (w & 2) ? AGX_CHANNEL_0 : AGX_CHANNEL_G;
            t.swizzle_b = AGX_CHANNEL_R;
            t.swizzle_a = v == 3 && (w & 1) ? AGX_CHANNEL_1 : AGX_CHANNEL_A;
            if (v == 6) {                                  /* mipmapped, mip nearest */
               t.unk_mipmapped = true;
               t.last_level = 4;
            }
            put_texture(0, &t);
            struct agx_sampler s = { AGX_SAMPLER_HEADER };
            s.magnify = s.minify = AGX_FILTER_NEAREST;
            s.mip_filter = v == 6 ? AGX_MIP_FILTER_NEAREST : AGX_MIP_FILTER_NONE;
            if (v == 7)                                    /* bilinear */
               s.magnify = s.minify = AGX_FILTER_LINEAR;
            s.wrap_s = wraps[w];
            s.wrap_t = wraps[(w + 1) % 6];
            s.border_colour = AGX_BORDER_COLOUR_OPAQUE_WHITE;
            put_sampler(0, &s);
            static uint32_t a[8][64], b[8][64];
            struct hw_prof_entry pa, pb;
            enum hw_usc_status sa = run_sample_group(true, coords[c][0], coords[c][1], a, &pa);
            struct hw_fault fa = last_mmu.fault;
            enum hw_usc_status sb = run_sample_group(false, coords[c][0], coords[c][1], b, &pb);
            struct hw_fault fb = last_mmu.fault;
            /* (the unmapped view's lanes may all read the border) */
            if (v == 5 ? c == 0 && sa != HW_USC_FAULT : sa != HW_USC_OK)
               fail_msg("view %u wrap %u coords %u: status %d", v, w, c, (int)sa);
            assert_int_equal(sa, sb);
            if (memcmp(a, b, sizeof(a)) != 0)
               fail_msg("view %u wrap %u coords %u: sampled values differ", v, w, c);
            if (memcmp(&pa, &pb, sizeof(pa)) != 0)
               fail_msg("view %u wrap %u coords %u: profile counts differ", v, w, c);
            assert_int_equal(fa.valid, fb.valid);
            assert_int_equal(fa.addr, fb.addr);
            if (v != 5) {
               if (v < 4) {
                  assert_int_equal(pa.c[HW_PROF_TEX_NEAREST], 3 * 64);
                  assert_true(a[0][1] | a[1][1] | a[2][1]);      /* texel read, not zero */
                  fast_runs++;
               }
            }
         }
   assert_int_equal(fast_runs, 4 * 6 * 4);
}

/* The per-format table keeps the smallest keys whatever the order of
 * the additions (per-worker tables merge in worker order). */
static void
test_prof_tex_order(void **state)
{
   (void)state;
   struct hw_prof_entry a, b;
   memset(&a, 0, sizeof(a));
   memset(&b, 0, sizeof(b));
   const unsigned n = HW_PROF_TEX_FORMATS + 5;
   for (unsigned i = 0; i < n; i++) {
      hw_prof_tex_add(&a, 0x80000000u + i, i + 1);
      hw_prof_tex_add(&b, 0x80000000u + (n - 1 - i), n - i);
   }
   hw_prof_tex_add(&a, 0x80000003u, 100);
   hw_prof_tex_add(&b, 0x80000003u, 100);
   assert_memory_equal(a.tex, b.tex, sizeof(a.tex));
   for (unsigned i = 0; i < HW_PROF_TEX_FORMATS; i++) {
      assert_int_equal(a.tex[i].key, 0x80000000u + i);
      assert_int_equal(a.tex[i].n, i + 1 + (i == 3 ? 100 : 0));
   }
}

int
main(void)
{
   const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(test_copy_kernel, setup),
      cmocka_unit_test_setup(test_sample_quad_derivatives, setup),
      cmocka_unit_test_setup(test_sample_cube_quad_derivatives, setup),
      cmocka_unit_test_setup(test_sample_explicit_lod_half, setup),
      cmocka_unit_test_setup(test_sample_compare_offset, setup),
      cmocka_unit_test_setup(test_load_offset, setup),
      cmocka_unit_test_setup(test_fault_reported, setup),
      cmocka_unit_test_setup(test_load_group_matches_general, setup),
      cmocka_unit_test_setup(test_sample_nearest_group_matches_general, setup),
      cmocka_unit_test_setup(test_block_needs_tile, setup),
      cmocka_unit_test_setup(test_block_store_instruction, setup),
      cmocka_unit_test_setup(test_block_store_partial_fault, setup),
      cmocka_unit_test_setup(test_block_store_i16_to_half_float, setup),
      cmocka_unit_test_setup(test_texture_slots_of_several_words, setup),
      cmocka_unit_test_setup(test_prof_counts, setup),
      cmocka_unit_test_setup(test_prof_tex_order, setup),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}

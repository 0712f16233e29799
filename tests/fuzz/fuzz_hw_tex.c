/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for hwtex (fuzz_hw_tex): arbitrary texture, sampler,
 * border and PBE descriptors plus arbitrary coordinates, LODs and tiles go
 * through decode, sample, gather, load, image store and block store on the
 * flat test memory.  Anything may be rejected or fault; nothing may crash,
 * hang or trip the sanitizers.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "hw/tex/hw_tex.h"
#include "tests/unit/test_hw_tex_mem.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct input {
   uint8_t tex[24], smp[8], border[16];
   float f[12];
   uint32_t u[8];
   uint8_t tile[256];
};

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
   struct input in;
   memset(&in, 0, sizeof(in));
   memcpy(&in, data, size < sizeof(in) ? size : sizeof(in));

   struct hw_mmu mmu;
   hw_mmu_init(&mmu, NULL, 0, HW_UNIT_TEX);
   char err[160];

   struct hw_tex_view v;
   if (hw_tex_view_decode(&v, in.tex, err, sizeof(err))) {
      /* Keep most images inside the mapped window so texels get read. */
      if (in.u[7] & 1)
         v.base = TEX_GPU_BASE + ((v.base & 0x3ffff0u));
      struct hw_tex_sampler s;
      if (hw_tex_sampler_decode(&s, in.smp, in.border, err, sizeof(err))) {
         struct hw_tex_coord c = {
            .s = in.f[0], .t = in.f[1], .r = in.f[2], .layer = in.u[0] & 0xffff,
            .sample = in.u[0] >> 16, .ref = in.f[3],
         };
         for (unsigned a = 0; a < 3; a++)
            c.offset[a] = (int8_t)((int)((in.u[1] >> (4 * a)) & 0xf) - 8);
         struct hw_tex_lod lod = {
            .mode = (in.u[1] >> 12) & 1 ? HW_TEX_LOD_EXPLICIT : HW_TEX_LOD_AUTO,
            .lod = in.f[4], .bias = in.f[5], .min_lod = in.f[6],
            .ddx = { in.f[7], in.f[8], in.f[9] }, .ddy = { in.f[10], in.f[11], in.f[0] },
         };
         struct hw_tex_sample_req req = {
            .op = (enum hw_tex_op)((in.u[1] >> 13) % 3), .gather_comp = (in.u[1] >> 15) & 3,
            .compare = (in.u[1] >> 17) & 1,
         };
         union hw_texel out;
         hw_mmu_begin_job(&mmu);
         (void)hw_tex_sample(&mmu, &v, &s, &req, &c, &lod, &out);
      }
      hw_mmu_begin_job(&mmu);
      union hw_texel out;
      (void)hw_tex_load(&mmu, &v, (int32_t)in.u[2], (int32_t)in.u[3], (int32_t)in.u[4],
                        in.u[5] & 0x1f, in.u[5] >> 28, &out);
   }

   struct hw_tex_image im;
   if (hw_tex_image_decode(&im, in.tex, err, sizeof(err))) {
      if (in.u[7] & 2)
         im.base = TEX_GPU_BASE + ((im.base & 0x3ffff0u));
      hw_mmu_init(&mmu, NULL, 0, HW_UNIT_PBE);
      union hw_texel val;
      memcpy(val.f, in.f, sizeof(val.f));
      (void)hw_tex_image_store(&mmu, &im, (int32_t)(in.u[2] & 0xffff), (int32_t)(in.u[3] & 0xffff),
                               in.u[4] & 0xff, in.u[5] & 3, 0, &val, in.u[6] & 1);
      struct hw_tex_tile t = {
         .mem = in.tile, .size = sizeof(in.tile), .width = (in.u[6] >> 1) & 15,
         .height = (in.u[6] >> 5) & 15, .samples = 1 + ((in.u[6] >> 9) & 3),
         .row_stride = (in.u[6] >> 11) & 63, .pixel_stride = (in.u[6] >> 17) & 15,
         .sample_stride = (in.u[6] >> 21) & 7, .x0 = in.u[2] & 0xff, .y0 = in.u[3] & 0xff,
         .layer = in.u[4] & 3,
      };
      hw_mmu_begin_job(&mmu);
      (void)hw_tex_block_store(&mmu, &im, &t, in.u[7] >> 28, (in.u[7] >> 8) & 0x3f, 0,
                               (in.u[7] >> 4) & 1, err, sizeof(err));
   }
   return 0;
}

/*
 * Texture instructions of render-pass shaders.  Until the texture unit
 * (hw/tex) is linked in, this models the subset background and
 * end-of-tile programs need: texture_load and image_write_block on 2D
 * R8G8B8A8 unorm images in linear layout.  Anything else is reported as
 * unsupported with a message naming it.  Strides follow the hardware as
 * Mesa programs it: a linear texture stores stride - 16, a PBE stride - 4.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hw/render/hw_render_tex.h"

struct img {
   uint64_t base;
   uint32_t w, h, stride;
};

static const struct agx_operand *
opnd(const struct agx_instr *in, const char *name)
{
   for (unsigned i = 0; i < in->num_operands; i++) {
      const char *n = agx_isa_op_operand_name(in->op, i);
      if (n && !strcmp(n, name))
         return &in->operands[i];
   }
   return NULL;
}

static uint32_t
lane_value(struct hw_usc_simd *s, const struct agx_operand *o, unsigned l)
{
   if (!o || o->type == AGX_OPERAND_IMM)
      return o ? (uint32_t)o->imm : 0;
   if (o->file != AGX_FILE_GPR)
      return o->value;
   return o->size == 16 ? hw_usc_simd_read16(s, o->value, l)
                        : hw_usc_simd_read32(s, o->value, l);
}

static bool
coord(struct hw_usc_simd *s, const struct agx_operand *o, unsigned k, unsigned l,
      uint32_t *v)
{
   if (!o || o->type != AGX_OPERAND_REG)
      return false;
   *v = o->size == 16 ? hw_usc_simd_read16(s, o->value + k, l)
                      : hw_usc_simd_read32(s, o->value + k, l);
   return true;
}

static enum hw_usc_status
get_image(const struct hwr_pipeline *pipe, struct hw_mmu *m, unsigned slot,
          bool pbe, struct img *im, char *err, size_t err_size)
{
   uint64_t va = hwr_pipeline_texture(pipe, slot);
   uint8_t d[AGX_TEXTURE_LENGTH];
   if (!va) {
      snprintf(err, err_size, "texture state slot %u is not bound", slot);
      return HW_USC_BAD_CODE;
   }
   unsigned unit = m->unit;
   m->unit = HW_UNIT_TEX;
   bool ok = hw_mmu_read(m, va, d, sizeof(d));
   m->unit = (uint8_t)unit;
   if (!ok)
      return m->fault.valid ? HW_USC_FAULT : HW_USC_BAD_CODE;
   if (pbe) {
      struct agx_pbe p;
      agx_pbe_unpack(d, &p);
      if (p.layout != AGX_LAYOUT_LINEAR || p.channels != AGX_CHANNELS_R8G8B8A8 ||
          p.type != AGX_TEXTURE_TYPE_UNORM) {
         snprintf(err, err_size, "PBE slot %u: only linear R8G8B8A8 unorm is "
                  "modelled without the texture unit", slot);
         return HW_USC_UNSUPPORTED;
      }
      *im = (struct img){ p.buffer, p.width, p.height, (uint32_t)p.stride + 4 };
   } else {
      struct agx_texture t;
      agx_texture_unpack(d, &t);
      if (t.layout != AGX_LAYOUT_LINEAR || t.channels != AGX_CHANNELS_R8G8B8A8 ||
          t.type != AGX_TEXTURE_TYPE_UNORM) {
         snprintf(err, err_size, "texture slot %u: only linear R8G8B8A8 unorm is "
                  "modelled without the texture unit", slot);
         return HW_USC_UNSUPPORTED;
      }
      *im = (struct img){ t.address, t.width, t.height, (uint32_t)t.stride + 16 };
   }
   return HW_USC_OK;
}

static enum hw_usc_status
block_store(const struct hwr_pipeline *pipe, struct hw_mmu *m, struct hw_usc_simd *s,
            const struct agx_instr *in, uint32_t exec,
            const struct hwr_tex_tile *tile, char *err, size_t err_size)
{
   uint32_t F = 0;
   agx_instr_field(in, "F", &F);
   const struct agx_operand *R = opnd(in, "R"), *C = opnd(in, "C"), *T = opnd(in, "T");
   for (unsigned l = 0; l < 32; l++) {
      if (!(exec >> l & 1))
         continue;
      uint32_t off = lane_value(s, R, l), slot = lane_value(s, T, l), cx, cy;
      if (!coord(s, C, 0, l, &cx) || !coord(s, C, 1, l, &cy)) {
         snprintf(err, err_size, "image_write_block needs register coordinates");
         return HW_USC_BAD_CODE;
      }
      struct img im;
      enum hw_usc_status st = get_image(pipe, m, slot, true, &im, err, err_size);
      if (st != HW_USC_OK)
         return st;
      m->unit = HW_UNIT_PBE;
      for (uint32_t y = 0; y < tile->height; y++) {
         for (uint32_t x = 0; x < tile->width; x++) {
            uint32_t ix = cx + x, iy = cy + y;
            if (ix >= im.w || iy >= im.h)
               continue;
            uint8_t px[4];
            for (unsigned c = 0; c < 4; c++) {
               /* Multisampled tiles resolve with a box filter. */
               float sum = 0;
               for (unsigned smp = 0; smp < tile->samples; smp++) {
                  size_t at = (size_t)y * tile->row_stride + (size_t)x * tile->pixel_stride +
                              (size_t)smp * tile->sample_stride + off;
                  if (at + 4 > tile->size) {
                     snprintf(err, err_size, "image_write_block offset %u is past the tile", off);
                     m->unit = HW_UNIT_USC;
                     return HW_USC_OUT_OF_BOUNDS;
                  }
                  unsigned bytes = (F == 8 || F == 10) ? 0 : (F == 2 ? 4 : (F == 0 || F == 4 || F == 5) ? 1 : 2);
                  uint32_t v = hwr_tile_load_comp(F, c, tile->mem + at + c * bytes, false);
                  float f;
                  memcpy(&f, &v, 4);
                  sum += f;
               }
               float f = sum / (float)tile->samples;
               f = f != f ? 0 : f < 0 ? 0 : f > 1 ? 1 : f;
               px[c] = (uint8_t)lrintf(f * 255.0f);
            }
            if (!hw_mmu_write(m, im.base + (uint64_t)iy * im.stride + (uint64_t)ix * 4, px, 4)) {
               m->unit = HW_UNIT_USC;
               return m->fault.valid ? HW_USC_FAULT : HW_USC_OK;
            }
         }
      }
      m->unit = HW_UNIT_USC;
   }
   return HW_USC_OK;
}

static enum hw_usc_status
tex_load(const struct hwr_pipeline *pipe, struct hw_mmu *m, struct hw_usc_simd *s,
         const struct agx_instr *in, uint32_t exec, char *err, size_t err_size)
{
   const struct agx_operand *R = opnd(in, "R"), *C = opnd(in, "C"), *T = opnd(in, "T");
   uint32_t mask = 0xf;
   agx_instr_field(in, "mask", &mask);
   if (!mask)
      mask = 0xf;
   for (unsigned l = 0; l < 32; l++) {
      if (!(exec >> l & 1))
         continue;
      uint32_t x, y, slot = lane_value(s, T, l);
      if (!R || !coord(s, C, 0, l, &x) || !coord(s, C, 1, l, &y)) {
         snprintf(err, err_size, "texture_load needs register coordinates");
         return HW_USC_BAD_CODE;
      }
      struct img im;
      enum hw_usc_status st = get_image(pipe, m, slot, false, &im, err, err_size);
      if (st != HW_USC_OK)
         return st;
      uint8_t px[4] = { 0 };
      if (x < im.w && y < im.h) {
         m->unit = HW_UNIT_TEX;
         bool ok = hw_mmu_read(m, im.base + (uint64_t)y * im.stride + (uint64_t)x * 4, px, 4);
         m->unit = HW_UNIT_USC;
         if (!ok)
            return m->fault.valid ? HW_USC_FAULT : HW_USC_OK;
      }
      unsigned k = 0;
      for (unsigned c = 0; c < 4; c++) {
         if (!(mask >> c & 1))
            continue;
         float f = px[c] / 255.0f;
         if (R->size == 16)
            hw_usc_simd_write16(s, R->value + k, l, hw_usc_f32_to_f16(f));
         else {
            uint32_t u;
            memcpy(&u, &f, 4);
            hw_usc_simd_write32(s, R->value + k, l, u);
         }
         k++;
      }
   }
   return HW_USC_OK;
}

enum hw_usc_status
hwr_tex_op(const struct hwr_pipeline *pipe, struct hw_mmu *usc, struct hw_usc_simd *s,
           const struct agx_instr *in, uint32_t exec, const struct hwr_tex_tile *tile,
           char *err, size_t err_size)
{
   switch (in->op) {
   case AGX_OP_IMAGE_WRITE_BLOCK:
      return block_store(pipe, usc, s, in, exec, tile, err, err_size);
   case AGX_OP_TEXTURE_LOAD:
      return tex_load(pipe, usc, s, in, exec, err, err_size);
   default:
      snprintf(err, err_size, "%s needs the texture unit, which the render "
               "core does not link yet", agx_isa_op_name(in->op));
      return HW_USC_UNSUPPORTED;
   }
}

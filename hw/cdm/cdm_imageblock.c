/* SPDX-License-Identifier: MIT */
/*
 * The compute stage hook: what a compute kernel hands to units other than
 * the USC core. Texture instructions go to the texture unit (hw/tex). A
 * kernel whose USC Shared word gives threadgroup memory a pixel layout
 * (32x32, 32x16, 16x16) also has an imageblock there -- the compute view
 * of a tilebuffer, which Mesa's asahi driver uses for blits and resolves:
 * st_tile/ld_tile with explicit coordinates move one pixel's samples
 * between registers and the block, and image_write_block stores the whole
 * block into an image at the coordinates it is given.
 *
 * Layout of the block (the same as the fragment tilebuffer's in this
 * model): pixel (x, y), sample s starts at
 *    ((y * width + x) * samples + s) * sample_stride
 * bytes into threadgroup memory; a tile format's components follow at the
 * instruction's byte offset O. Components after the first that lie past
 * the sample are clipped (stores drop them, loads give 0): Mesa's compute
 * blit stores four components into a sample sized for its format.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "hw/cdm/cdm_priv.h"

static const struct agx_operand *
operand(const struct agx_instr *in, const char *name)
{
   const struct agx_operand *found = NULL;
   for (unsigned i = 0; i < in->num_operands; i++) {
      const char *n = agx_isa_op_operand_name(in->op, i);
      if (n && !strcmp(n, name))
         found = &in->operands[i];
   }
   return found;
}

static uint32_t
field(const struct agx_instr *in, const char *name)
{
   uint32_t v = 0;
   return agx_instr_field(in, name, &v) ? v : 0;
}

static enum hw_usc_status
fail(struct hw_usc_simd *s, enum hw_usc_status st, const char *fmt, ...)
   __attribute__((format(printf, 3, 4)));

static enum hw_usc_status
fail(struct hw_usc_simd *s, enum hw_usc_status st, const char *fmt, ...)
{
   char m[160];
   va_list ap;
   va_start(ap, fmt);
   vsnprintf(m, sizeof(m), fmt, ap);
   va_end(ap);
   hw_usc_simd_hook_message(s, m);
   return st;
}

/* ld_tile / st_tile in a compute kernel: the lane's pixel is (C, C + 1). */
static enum hw_usc_status
imageblock_access(const struct cdm_launch *L, struct hw_usc_simd *s,
                  const struct agx_instr *in, uint32_t exec)
{
   const struct cdm_imageblock *ib = &L->ib;
   const struct hw_usc_workgroup *wg = hw_usc_simd_workgroup(s);
   if (!ib->width || !wg || !wg->threadgroup_mem)
      return fail(s, HW_USC_BAD_CODE, "%s: the kernel's USC Shared word gives no imageblock",
                  agx_isa_op_name(in->op));
   if (!field(in, "explicit"))
      return fail(s, HW_USC_UNSUPPORTED, "%s without explicit coordinates in a compute kernel",
                  agx_isa_op_name(in->op));
   bool load = field(in, "load") != 0;
   uint32_t F = field(in, "F"), mask = field(in, "mask"), O = field(in, "O");
   const struct agx_operand *R = operand(in, "R"), *S = operand(in, "S"),
                            *C = operand(in, "C");
   unsigned bytes;
   if (!R || !S || !C || R->type != AGX_OPERAND_REG)
      return fail(s, HW_USC_BAD_CODE, "%s: malformed operands", agx_isa_op_name(in->op));
   if (!hw_tex_tile_fmt_bytes(F, &bytes))
      return fail(s, HW_USC_UNSUPPORTED, "%s: tile format %u is not modelled",
                  agx_isa_op_name(in->op), F);
   bool packed = hw_tex_tile_fmt_packed(F), r16 = R->size == 16;
   uint32_t cx = (uint32_t)C->imm;   /* a 16-bit register number */
   for (unsigned l = 0; l < HW_USC_SIMD_WIDTH; l++) {
      if (!(exec >> l & 1))
         continue;
      uint32_t x = hw_usc_simd_read16(s, cx & 255, l);
      uint32_t y = hw_usc_simd_read16(s, (cx + 1) & 255, l);
      if (x >= ib->width || y >= ib->height)
         return fail(s, HW_USC_OUT_OF_BOUNDS, "%s: pixel (%u, %u) outside the %ux%u imageblock",
                     agx_isa_op_name(in->op), x, y, ib->width, ib->height);
      uint32_t smask = S->type == AGX_OPERAND_IMM ? (uint32_t)S->imm
                                                 : hw_usc_simd_read16(s, S->value & 255, l);
      smask &= (1u << ib->samples) - 1;
      for (unsigned smp = 0; smp < ib->samples; smp++) {
         if (!(smask >> smp & 1))
            continue;
         size_t base = ((size_t)(y * ib->width + x) * ib->samples + smp) * ib->sample_stride + O;
         unsigned k = 0;
         for (unsigned c = 0; c < 4; c++) {
            if (!(mask >> c & 1))
               continue;
            size_t at = base + (packed ? 0 : c * bytes), n = packed ? 4 : bytes;
            unsigned reg = r16 ? (R->value + k) & 255 : (R->value + k) & 127;
            if (k > 0 && (size_t)O + c * bytes + n > ib->sample_stride) {
               /* Components past the pixel's sample: Mesa's compute blit
                * stores all four (write mask 0xf) in the destination's
                * renderable format with a per-thread block of that format's
                * size (agx_blit.c), and blits work on the hardware, so the
                * imageblock clips them: a store drops them, a load gives 0. */
               if (load) {
                  if (r16)
                     hw_usc_simd_write16(s, reg, l, 0);
                  else
                     hw_usc_simd_write32(s, reg, l, 0);
               }
               k++;
               continue;
            }
            if ((size_t)O + (packed ? 0 : c * bytes) + n > ib->sample_stride ||
                at + n > wg->threadgroup_mem_size)
               return fail(s, HW_USC_OUT_OF_BOUNDS, "%s: format %u mask 0x%x at offset %u "
                           "past the %u-byte sample or the %zu bytes of threadgroup memory",
                           agx_isa_op_name(in->op), F, mask, O, ib->sample_stride,
                           wg->threadgroup_mem_size);
            if (load) {
               uint32_t v = hw_tex_tile_load_comp(F, c, wg->threadgroup_mem + at, r16);
               if (r16)
                  hw_usc_simd_write16(s, reg, l, (uint16_t)v);
               else
                  hw_usc_simd_write32(s, reg, l, v);
            } else {
               uint32_t v = r16 ? hw_usc_simd_read16(s, reg, l) : hw_usc_simd_read32(s, reg, l);
               hw_tex_tile_store_comp(F, c, wg->threadgroup_mem + at, v, r16);
            }
            k++;
         }
         if (load)
            break;   /* a load reads the first selected sample */
      }
   }
   return HW_USC_OK;
}

enum hw_usc_status
cdm_stage_hook(void *user, struct hw_usc_simd *s, const struct agx_instr *in, uint32_t exec)
{
   const struct cdm_launch *L = user;
   char err[128] = "";
   enum hw_usc_status st;
   if (in->op == AGX_OP_LDST_TILE)
      return imageblock_access(L, s, in, exec);
   if (in->op == AGX_OP_IMAGE_WRITE_BLOCK) {
      const struct cdm_imageblock *ib = &L->ib;
      const struct hw_usc_workgroup *wg = hw_usc_simd_workgroup(s);
      if (!ib->width || !wg || !wg->threadgroup_mem)
         return fail(s, HW_USC_BAD_CODE,
                     "image_write_block: the kernel's USC Shared word gives no imageblock");
      uint32_t px = ib->samples * ib->sample_stride;
      struct hw_tex_tile tile = {
         .mem = wg->threadgroup_mem, .size = wg->threadgroup_mem_size,
         .width = ib->width, .height = ib->height, .samples = ib->samples,
         .sample_stride = ib->sample_stride, .pixel_stride = px, .row_stride = px * ib->width,
      };
      st = hw_tex_execute(&L->tex, s, in, exec, &tile, err, sizeof(err));
   } else {
      st = hw_tex_execute(&L->tex, s, in, exec, NULL, err, sizeof(err));
   }
   if (st != HW_USC_OK && err[0])
      hw_usc_simd_hook_message(s, err);
   return st;
}

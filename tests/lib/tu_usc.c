/* SPDX-License-Identifier: MIT */
/*
 * See tu_usc.h.
 */
#include <stdbool.h>
#include <string.h>

#include "cmdstream/agx_pack.h"
#include "cmdstream/isa/agx_isa.h"
#include "tests/lib/tu_usc.h"

unsigned
tu_usc_words(uint8_t w[TU_USC_WORDS_MAX], const struct tu_usc_pipeline *p)
{
   unsigned n = 0;
   if (p->uniform_bytes) {
      agx_pack(w + n, USC_UNIFORM, u) {
         u.start_halfs = 0;
         u.size_halfs = p->uniform_bytes / 2;
         u.buffer = p->uniforms;
      }
      n += AGX_USC_UNIFORM_LENGTH;
   }
   if (p->textures) {
      agx_pack(w + n, USC_TEXTURE, t) { t.start = 0; t.count = 1; t.buffer = p->textures; }
      n += AGX_USC_TEXTURE_LENGTH;
   }
   if (p->samplers) {
      agx_pack(w + n, USC_SAMPLER, t) { t.start = 0; t.count = 1; t.buffer = p->samplers; }
      n += AGX_USC_SAMPLER_LENGTH;
   }
   if (p->shared != TU_USC_SHARED_NONE) {
      /* The fragment layout is the tilebuffer the st_tile/ld_tile
       * instructions address: one sample of 8 bytes per pixel. */
      bool tile = p->shared == TU_USC_SHARED_TILE_32X32;
      agx_pack(w + n, USC_SHARED, sh) {
         sh.uses_shared_memory = tile;
         sh.layout = tile ? AGX_SHARED_LAYOUT_32X32 : AGX_SHARED_LAYOUT_VERTEX_COMPUTE;
         sh.sample_count = 1;
         sh.sample_stride_in_8_bytes = tile ? 1 : 0;
         sh.bytes_per_threadgroup = tile ? 4096 : 256;
      }
      n += AGX_USC_SHARED_LENGTH;
   }
   agx_pack(w + n, USC_SHADER, sh) { sh.code = p->code; }
   n += AGX_USC_SHADER_LENGTH;
   if (p->registers) {
      agx_pack(w + n, USC_REGISTERS, rg) { rg.register_count = p->registers; }
      n += AGX_USC_REGISTERS_LENGTH;
   }
   agx_pack(w + n, USC_NO_PRESHADER, np) { (void)np; }
   n += AGX_USC_NO_PRESHADER_LENGTH;
   return n;
}

size_t
tu_usc_assemble(const char *src, uint8_t *code, size_t cap, char *err, size_t err_size)
{
   size_t len = 0;
   if (!agx_isa_assemble(src, strlen(src), code, cap, &len, err, err_size))
      return 0;
   return len;
}

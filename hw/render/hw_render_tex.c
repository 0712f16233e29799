/* SPDX-License-Identifier: MIT */
/*
 * Texture instructions of render-pass shaders go to the texture unit
 * (hw/tex).  The render core only supplies what a launch does not carry:
 * the state tables named by the pipeline's USC words and, for
 * image_write_block, its tilebuffer tile.
 */
#include <stdio.h>

#include "hw/render/hw_render_tex.h"

/*
 * The texture unit indexes one table per kind (24-byte texture/PBE
 * descriptors, 8-byte samplers or 24 in extended tables).  A USC Texture/Sampler word binds `count`
 * entries from `start` at `buffer`; the texture unit looks each slot up
 * in the pipeline's words (hw_tex_ctx), the table bases (buffer - start *
 * stride of the first word) only serving slots no word loads.
 */
static void
tex_ctx(const struct hwr_pipeline *pipe, uint64_t sampler_heap,
        struct hw_tex_ctx *ctx)
{
   ctx->texture_table = pipe->ntex
      ? pipe->tex[0].buffer - (uint64_t)pipe->tex[0].start * HW_TEX_DESC_BYTES : 0;
   ctx->sampler_stride = pipe->sampler_stride ? pipe->sampler_stride : HW_TEX_SAMPLER_BYTES;
   ctx->sampler_table = pipe->nsmp
      ? pipe->smp[0].buffer - (uint64_t)pipe->smp[0].start * ctx->sampler_stride
      : sampler_heap;
   ctx->tex_slots = pipe->tex;
   ctx->ntex_slots = pipe->ntex;
   ctx->smp_slots = pipe->smp;
   ctx->nsmp_slots = pipe->nsmp;
}

enum hw_usc_status
hwr_tex_op(const struct hwr_pipeline *pipe, uint64_t sampler_heap,
           struct hw_usc_simd *s, const struct agx_instr *in, uint32_t exec,
           const struct hw_tex_tile *tile, struct hw_prof_entry *prof, char *err,
           size_t err_size)
{
   struct hw_tex_ctx ctx;
   /* A pipeline without Texture words may still sample bindless images;
    * the texture unit refuses an indexed operand without a table. */
   tex_ctx(pipe, sampler_heap, &ctx);
   ctx.prof = prof;
   return hw_tex_execute(&ctx, s, in, exec, tile, err, err_size);
}

uint64_t
hwr_tex_address(const struct hwr_pipeline *pipe, uint64_t sampler_heap, uint32_t idx)
{
   struct hw_tex_ctx ctx;
   tex_ctx(pipe, sampler_heap, &ctx);
   return hw_tex_ctx_texture_address(&ctx, idx);
}

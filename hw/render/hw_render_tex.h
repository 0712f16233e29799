/* SPDX-License-Identifier: MIT */
/*
 * The render core's one entry point for texture instructions in
 * fragment, background and end-of-tile programs: texture_load,
 * texture_sample, image_write and image_write_block all go through
 * hwr_tex_op() to the texture unit (hw/tex).
 */
#ifndef HW_RENDER_TEX_H
#define HW_RENDER_TEX_H

#include <stddef.h>
#include <stdint.h>

#include "hw/render/hw_render_priv.h"
#include "hw/tex/hw_tex.h"

/* sampler_heap: the payload's table, used when the pipeline binds no
 * Sampler word.  tile: the tilebuffer tile for image_write_block.
 * prof: NULL, or the profile entry whose per-filter and per-format
 * texture counters the fetches go to (struct hw_tex_ctx). */
enum hw_usc_status hwr_tex_op(const struct hwr_pipeline *pipe, uint64_t sampler_heap,
                              struct hw_usc_simd *s, const struct agx_instr *in,
                              uint32_t exec, const struct hw_tex_tile *tile,
                              struct hw_prof_entry *prof, char *err, size_t err_size);

/* GPU address of the descriptor of indexed texture slot idx (ts<idx>) as
 * hwr_tex_op's texture instructions look it up for this pipeline. */
uint64_t hwr_tex_address(const struct hwr_pipeline *pipe, uint64_t sampler_heap, uint32_t idx);

#endif

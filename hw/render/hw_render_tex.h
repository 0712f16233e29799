/*
 * The render core's one entry point for texture instructions in
 * fragment, background and end-of-tile programs.  Every texture_load,
 * texture_sample, image_write and image_write_block goes through
 * hwr_tex_op(), so wiring the texture unit (hw/tex) is a change here.
 */
#ifndef HW_RENDER_TEX_H
#define HW_RENDER_TEX_H

#include <stddef.h>
#include <stdint.h>

#include "hw/render/hw_render_priv.h"

/* The tilebuffer tile image_write_block stores (same layout rule as
 * hw/tex's struct hw_tex_tile). */
struct hwr_tex_tile {
   const uint8_t *mem;
   size_t size;
   uint32_t width, height, samples;
   uint32_t row_stride, pixel_stride, sample_stride;
   uint32_t x0, y0;
};

enum hw_usc_status hwr_tex_op(const struct hwr_pipeline *pipe, struct hw_mmu *usc,
                              struct hw_usc_simd *s, const struct agx_instr *in,
                              uint32_t exec, const struct hwr_tex_tile *tile,
                              char *err, size_t err_size);

/* Tilebuffer component codecs shared with ld_tile/st_tile. */
uint32_t hwr_tile_load_comp(unsigned fmt, unsigned comp, const uint8_t *src, bool r16);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * tu_draw: the draw and render-command builder of the test programs
 * (tests/lib, library testuapi): what a GL driver emits for one simple
 * draw -- a VDM vertex-state record, a PPP record and a non-indexed
 * triangle list -- and the render command around a VDM stream, packed with
 * the generated pack functions, plus the shaders such a draw uses. The
 * replay scene (rs_scene.c), the uAPI tests and the demo (examples/) draw
 * through it.
 *
 * The draw: a vertex shader with 8 outputs (position, then 4 varying
 * components), one CF binding of 4 components from varying slot 1, depth
 * clip on, no culling, both faces with the same depth test and stencil
 * "always", a viewport covering width x height pixels with y pointing down.
 *
 * CONTRACT
 * - The builders write only into the caller's buffers and return the
 *   number of bytes written; the bytes depend on the arguments alone.
 * - Addresses given to them are GPU VAs; pipelines and CF bindings are
 *   offsets from the queue's USC base (as the hardware words hold them).
 * - The render command describes one layer, one sample, 32x32 tiles, a
 *   4-byte tilebuffer sample and a background depth of 1.0; the caller adds
 *   attachments, flags and timestamps.
 */
#ifndef TU_DRAW_H
#define TU_DRAW_H

#include <stdbool.h>
#include <stdint.h>

#include "cmdstream/agx_pack.h"
#include "drm-uapi/asahi_drm.h"

/* Shaders of the simple draw, in the assembler's syntax. */
extern const char tu_draw_vs_src[];       /* vertex r5: 8 floats at u0_u1 + 32*r5 */
extern const char tu_draw_fs_src[];       /* varying colour to tilebuffer colour 0 */
extern const char tu_draw_bg_clear_src[]; /* background: colour from u0..u3 */
extern const char tu_draw_eot_src[];      /* end of tile: store the tile via ts0 */

struct tu_draw {
   uint32_t vs_pipeline, fs_pipeline;  /* USC word lists (offsets) */
   uint32_t cf_bindings;               /* tu_draw_cf() output (offset) */
   unsigned width, height;             /* viewport, pixels */
   bool translucent;                   /* pass type; else opaque */
   bool depth_write;
   enum agx_zs_func depth_func;
   uint32_t vertex_count;
};

#define TU_DRAW_CF_BYTES (AGX_CF_BINDING_HEADER_LENGTH + AGX_CF_BINDING_LENGTH)
#define TU_DRAW_PPP_BYTES 76u
#define TU_DRAW_VDM_BYTES 48u

/* The CF binding record: 4 components of varying slot 1, flat (from the
 * first vertex) or linear. */
unsigned tu_draw_cf(uint8_t out[TU_DRAW_CF_BYTES], bool flat);
/* The PPP record the draw's PPP_STATE word points at. */
unsigned tu_draw_ppp(uint8_t out[TU_DRAW_PPP_BYTES], const struct tu_draw *d);
/* Vertex state, PPP_STATE (ppp_va, ppp_bytes long) and the index list. */
unsigned tu_draw_vdm(uint8_t out[TU_DRAW_VDM_BYTES], const struct tu_draw *d, uint64_t ppp_va,
                     unsigned ppp_bytes);
/* The VDM stream's end. */
unsigned tu_draw_vdm_end(uint8_t out[AGX_VDM_STREAM_TERMINATE_LENGTH]);

/* A render command of width x height pixels over the VDM stream at vdm_va
 * with the given background and end-of-tile programs (USC word-list
 * offsets); the partial variants are the same programs unless the caller
 * changes them. */
struct drm_asahi_cmd_render tu_render_cmd(unsigned width, unsigned height, uint64_t vdm_va,
                                          uint32_t bg, uint32_t eot);

#endif

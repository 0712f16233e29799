/* SPDX-License-Identifier: MIT */
/*
 * Scene builder for the rendering tests and the render benchmark: user
 * memory, shaders (AGX assembly), USC words, PPP records and a VDM
 * stream, submitted as Run Vertex + Run Fragment through the firmware
 * with the small test kernel of test_hw_util.{c,h}.
 */
#ifndef TEST_HW_RENDER_SCENE_H
#define TEST_HW_RENDER_SCENE_H

#include <stdbool.h>
#include <stdint.h>

#include "cmdstream/agx_pack.h"
#include "hw/cdm/cdm.h"
#include "hw/render/hw_render.h"
#include "test_hw_util.h"

#define RW (HW_UAT_READ | HW_UAT_WRITE)
#define SLOT 1
#define MEM_PAGES 512                     /* 8 MiB of user memory */
#define USC_BASE T_USER_VA
#define TVB_VA (T_USER_VA + 0x4000000ull) /* 64 MiB above */
#define TVB_PAGES 512                     /* 8 MiB: heap + tilemap */
#define TILEMAP_BYTES (256 * 1024)
#define BIG_TVB (TVB_PAGES * HW_PAGE_SIZE - TILEMAP_BYTES)

struct vtx { float x, y, z, w, r, g, b, a; };

struct scene {
   struct t_fw t;
   struct hw_render *r;
   uint8_t *mem;            /* host view of USC_BASE.. */
   uint64_t used;
   uint8_t *tvb;
   unsigned w, h, samples;
   uint64_t rt_va, zbuf_va;
   uint32_t *rt;
   uint8_t vdm[4096];
   unsigned vdm_len;
   uint32_t tvb_size;
   uint32_t frame;
   uint64_t ts_v[2], ts_f[2];
   unsigned grow_events;
   uint32_t failed_job;
   struct hw_render_stats stats;
   uint64_t vs_pipe, fs_pipe_off, cf_off;
   uint32_t bg_usc, eot_usc, pbg_usc, peot_usc;
   uint32_t clear;          /* scene_init's clear colour */
   uint64_t zls;
   bool want_depth, want_stencil;
   uint64_t sbuf_va;
   struct hw_cdm *cdm;      /* created by scene_compute */
   uint64_t cs_stream;      /* compute job run before the render, 0: none */
   uint64_t last_vb;        /* vertex buffer VA of the last emit_state */
   unsigned utile_w, utile_h;   /* tilebuffer tile (0: 32x32) */
   /* ISP arrays of the payload (0: none): Depth Bias, Scissor, queries */
   uint64_t dbias_va, scissor_va, oclqry_va;
   uint32_t flags;              /* payload Flags */
   /* ISP BG Obj Depth in the ZLS format when bg_depth_set, else 1.0 in it */
   bool bg_depth_set;
   uint32_t bg_depth;
   /* Layered pass (scene_layered): payload Layers and the linear 2D-array
    * colour target, layer_stride bytes per layer (0: one layer, rt). */
   unsigned layers;
   uint64_t layer_stride;
   uint32_t *rt_array;
   /* The texture descriptor of the colour target (scene_init) that the
    * reload programs read (scene_reload_program). */
   uint64_t rt_tex;
};

/* Back-face stencil of a two-sided draw. */
struct stencil_face {
   enum agx_zs_func cmp;
   enum agx_stencil_op pass, zfail, sfail;
   uint8_t ref;
};

struct draw_state {
   enum agx_zs_func zfunc;
   bool zwrite;
   bool stencil;
   enum agx_zs_func scmp;
   enum agx_stencil_op spass;
   uint8_t sref;
   enum agx_pass_type pass;
   enum agx_shade_model shade;
   const char *fs;
   bool cull_back;
   uint64_t fs_tex, fs_smp;     /* fragment pipeline's texture/sampler (0: none) */
   const void *fs_uni;          /* fragment uniforms from u0 (fs_uni_bytes, 0: none) */
   unsigned fs_uni_bytes;
   const char *fs_pre;          /* fragment pipeline's preshader (NULL: none) */
   /* The vertex pipeline's uniform buffer (u0_u1: the vertex buffer's
    * address); 0: a copy of this draw's vertex buffer address. */
   uint64_t vs_ub;
   unsigned line_width;         /* raw: (width + 1) / 16 pixels */
   enum agx_stencil_op szfail, ssfail;   /* front depth-fail / stencil-fail */
   bool two_sided;
   struct stencil_face back;
   bool scissor, dbias;                  /* Depth Bias Scissor indices: */
   unsigned scissor_idx, dbias_idx;
   enum agx_visibility_mode vis;
   unsigned oq_idx;
   bool depth_clamp, no_depth_clip;
   bool region_clip;
   unsigned rc[4];                       /* min x, max x, min y, max y (tiles, max exclusive) */
   /* Extra vertex outputs between the position and the colour (slot 4):
    * point size and/or clip distances; the colour moves up by this. */
   unsigned extra_slots;
   unsigned clip_planes;                 /* Output Select mask */
   bool point_size;
   bool layer;                           /* the extra slot is the layer word */
   /* Cull's Flat Shading Vertex (0: the record's default, vertex 0) and
    * the Varying Counts 32 word's flat count (the colour, slots 4-7, is
    * flat when 4; 0: the word is not sent, every varying smooth). */
   enum agx_provoking_vertex flat_vertex;
   unsigned flat_slots;
   /* Fragment Face Polygon Mode of the front and back words (0: Fill). */
   enum agx_polygon_mode poly_front, poly_back;
};

extern const char *const vs_src, *const vs_inst_src, *const fs_src, *const fs_blend_src;
/* 16 floats per vertex: struct vtx, then one extra output value. */
extern const char *const vs_extra_src;
struct vtx16 { struct vtx v; float e; float pad[7]; };
extern const struct draw_state default_state;

void scene_init(struct scene *s, unsigned w, unsigned h, unsigned samples,
                uint32_t clear, unsigned threads, uint32_t tvb_size);
void scene_teardown(struct scene *s);
/* A background pipeline: the assembly `prefix` followed by the scene's
 * clear program (scene_init's clear colour in u0..u3). */
uint32_t scene_bg_program(struct scene *s, const char *prefix);
/* A background pipeline running `src` with texture slot 0 = the colour
 * target's texture descriptor (s->rt_tex): a reload program. */
uint32_t scene_reload_program(struct scene *s, const char *src);
/* VDM state (vertex pipeline, 8 outputs) + a PPP record for ds. */
void emit_state(struct scene *s, const struct draw_state *ds, const char *vs,
                const void *verts, unsigned vbytes);
void emit_draw(struct scene *s, enum agx_primitive prim, const void *idx,
               enum agx_index_size isz, unsigned count, unsigned instances,
               bool restart);
/* Makes the pass layered: `layers` layers (payload Layers) rendering into
 * a linear R8G8B8A8 2D array (s->rt_array, s->layer_stride apart, filled
 * with 0x5a) that an end-of-tile program stores the way Mesa's layered
 * one does (image_write_block, tex_2d_array, the layer from sr2). */
void scene_layered(struct scene *s, unsigned layers);
/* Scene memory: allocate, host pointer, allocate + copy. */
uint64_t alloc(struct scene *s, uint64_t size, uint64_t align);
void *host(struct scene *s, uint64_t va);
uint64_t scene_put(struct scene *s, const void *data, uint64_t size, uint64_t align);
/* Appends raw bytes to the VDM stream. */
void vdm_emit(struct scene *s, const void *p, unsigned len);
/* A compute job (one launch of `src` with uniforms) submitted before the
 * render; the vertex job waits for its stamp (firmware Barrier). */
void scene_compute(struct scene *s, const char *src, const void *uni, unsigned uni_bytes,
                   uint32_t grid, uint32_t local);
/* Terminates the stream, submits both jobs, waits; false on an error event. */
bool run(struct scene *s);
/* Element index of pixel (x, y), sample 0, in a ZLS image the scene
 * allocated (depth: bytes 4, or 2 for Z16; stencil: 1): the images are
 * twiddled, as the ZLS unit reads and writes them. */
size_t scene_zs_texel(const struct scene *s, unsigned x, unsigned y, unsigned bytes);
/* n small flat-shaded triangles at pseudo-random places. */
void many_triangles(struct scene *s, unsigned n);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * hwtex: the texture unit and image writes of the GPU model.
 *
 * CONTRACT
 *
 * Descriptors.  A texture descriptor (24 B), a sampler (8 B, followed by a
 * 16-byte Border when its border colour is Custom) and a PBE descriptor
 * (24 B) are decoded once into a view/sampler/image struct; the per-texel
 * paths never look at descriptor bits again.  Decoding rejects what the
 * model cannot honour (block-compressed formats, bad format/type pairs,
 * levels past the chain) with a message.
 *
 * HW_TEX_COMPRESSION.  The compressed (lossless, Layout 3) layout is the
 * twiddled layout plus a metadata buffer (8 bytes per 16x16 tile, at the
 * descriptor's Acceleration Buffer / the ZLS comp_base) that says how each
 * tile is stored; the allocation always has room for the tile
 * uncompressed.  The hardware's compressed tile encoding is not public, so
 * the model's compressor stores every tile uncompressed, in the twiddled
 * body, and leaves the metadata as it finds it: what the model writes it
 * reads back, and software (Mesa) never reads compressed bytes with the
 * CPU.  An image compressed by real hardware (a capture from a real
 * machine) does not decode on the model.
 *
 * Memory.  Every texel access goes through a struct hw_mmu: reads as unit
 * HW_UNIT_TEX, image writes as HW_UNIT_PBE.  A hard fault stops the
 * operation and is returned (HW_TEX_FAULT); the view keeps the fault.
 *
 * Sampling arithmetic is single-precision float throughout (no fixed-
 * point weights): texel-space coordinate u = s * width - 0.5 for linear
 * filtering, weights frac(u) and 1 - frac(u), trilinear blend by
 * frac(lambda).  Results are deterministic and independent of lane order.
 *
 * Instructions.  hw_tex_execute() runs texture_sample, texture_load,
 * image_write and image_write_block for the lanes in exec_mask of one
 * SIMD group, reading operands from the group's registers and descriptors
 * from the tables in struct hw_tex_ctx.  Quads: lanes 4q..4q+3 form a 2x2
 * quad, lane bit 0 = x, bit 1 = y (lane 4q is the top-left pixel), as in
 * the interpreter's dfdx/dfdy.  Implicit derivatives are per quad
 * ("coarse"): d/dx from lanes 4q+1 - 4q, d/dy from 4q+2 - 4q, read even
 * from inactive (helper) lanes.
 *
 * hw_tex_compute_hook() is a ready-made hw_usc_stage_hook for compute
 * launches (hook_user = a struct hw_tex_ctx); the render core's fragment
 * hook calls hw_tex_execute() itself and passes its tilebuffer tile for
 * image_write_block.
 */
#ifndef HW_TEX_H
#define HW_TEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmdstream/isa/agx_isa.h"
#include "hw/hw_mmu.h"
#include "hw/hw_profile.h"
#include "hw/tex/hw_tex_format.h"
#include "hw/tex/hw_tex_layout.h"
#include "hw/usc/hw_usc.h"

#define HW_TEX_DESC_BYTES    24   /* texture and PBE table stride */
#define HW_TEX_SAMPLER_BYTES 8    /* compact sampler table stride */
/* Extended tables (Sampler States "8/16 Extended" in the shader's launch
 * word) give each sampler its Border record: 8 + 16 bytes a slot. */
#define HW_TEX_SAMPLER_EXTENDED_BYTES 24
#define HW_TEX_BORDER_BYTES  16

enum hw_tex_status {
   HW_TEX_OK = 0,
   HW_TEX_FAULT,         /* MMU fault; details in the mmu / view */
   HW_TEX_BAD_DESC,      /* descriptor the model rejects; message given */
   HW_TEX_BAD_ARGS,      /* operands out of range for the operation */
};

/* A decoded texture descriptor. */
struct hw_tex_view {
   struct hw_tex_format fmt;
   struct hw_tex_layout layout;
   uint64_t base;            /* GPU address of level 0, layer 0 */
   uint8_t dim;              /* enum agx_texture_dimension */
   uint8_t swizzle[4];       /* enum agx_channel per output component */
   uint8_t first_level, last_level;
   uint8_t samples;          /* 1, 2 or 4 */
   bool null;                /* null texture: every read returns 0 */
   uint32_t layers;          /* array elements (cubes count 6 each) */
};

/* A decoded sampler (+ its custom border). */
struct hw_tex_sampler {
   float min_lod, max_lod;
   uint8_t mag, min;         /* enum agx_filter (bicubic treated as linear) */
   uint8_t mip;              /* enum agx_mip_filter */
   uint8_t wrap[3];          /* enum agx_wrap for s, t, r */
   bool pixel_coords;
   bool compare_enable;
   uint8_t compare;          /* enum agx_compare_func */
   uint8_t border;           /* enum agx_border_colour */
   bool seamful;             /* Seamful Cube Maps: linear filtering clamps at
                              * a cube face's edges; clear: it takes the
                              * texels past an edge from the adjacent face */
   uint32_t border_raw[4];   /* Custom: the Border record's words, encoded
                              * in the texture's format (hw_tex_sample.c) */
};

/* A decoded PBE (image write) descriptor. */
struct hw_tex_image {
   struct hw_tex_format fmt;
   struct hw_tex_layout layout;
   uint64_t base;
   uint8_t dim;
   uint8_t swizzle[4];       /* memory channel c <- source component swizzle[c] */
   uint8_t level;            /* level named by the descriptor */
   uint8_t samples;
};

bool hw_tex_view_decode(struct hw_tex_view *v, const uint8_t desc[HW_TEX_DESC_BYTES],
                        char *err, size_t err_size);
/* border may be NULL unless the sampler's border colour is Custom. */
bool hw_tex_sampler_decode(struct hw_tex_sampler *s,
                           const uint8_t desc[HW_TEX_SAMPLER_BYTES],
                           const uint8_t *border, char *err, size_t err_size);
bool hw_tex_image_decode(struct hw_tex_image *im, const uint8_t desc[HW_TEX_DESC_BYTES],
                         char *err, size_t err_size);

/* ---- per-lane operations --------------------------------------------- */

enum hw_tex_lod_mode {
   HW_TEX_LOD_AUTO,          /* from derivatives (+ bias) */
   HW_TEX_LOD_EXPLICIT,      /* lod given */
};

/* What one lane samples. Coordinates are normalized unless the sampler
 * uses pixel coordinates; cube maps take a direction in s, t, r. */
struct hw_tex_coord {
   float s, t, r;
   uint32_t layer;           /* array index (cube arrays: cube index) */
   uint32_t sample;          /* multisampled loads */
   int8_t offset[3];         /* texel offsets (-8..7) */
   float ref;                /* shadow compare reference */
};

struct hw_tex_lod {
   enum hw_tex_lod_mode mode;
   float lod;                /* EXPLICIT */
   float bias;               /* AUTO */
   float min_lod;            /* extra lower clamp (grad_min); -INF if none */
   /* AUTO: derivatives of (s, t, r) along screen x and y, in the same
    * units as the coordinates (for cubes: of the face s, t in [0, 1]). */
   float ddx[3], ddy[3];
};

enum hw_tex_op {
   HW_TEX_OP_SAMPLE,         /* filtered sample */
   HW_TEX_OP_GATHER,         /* 4 texels' component gather_comp */
   HW_TEX_OP_QUERY_LOD,      /* (clamped lambda, unclamped lambda) */
};

struct hw_tex_sample_req {
   enum hw_tex_op op;
   unsigned gather_comp;     /* 0..3 after swizzle */
   bool compare;             /* shadow: compare ref with texel R */
};

/*
 * Cube face selection from a direction (major axis; ties prefer Z, then
 * Y): face 0..5 = +X, -X, +Y, -Y, +Z, -Z and the face coordinates in
 * [0, 1], oriented as in GL/Vulkan.
 */
void hw_tex_cube_face(const float dir[3], float *s, float *t, unsigned *face);

/*
 * Derivatives of hw_tex_cube_face's (s, t) for a direction dir changing by
 * ddir, on dir's own face (GL's cube map LOD rule): implicit derivatives
 * of a cube sample are taken on the directions of a quad's lanes and
 * projected per lane, so a quad whose lanes (helpers included) straddle a
 * face edge still gets the footprint of its own face.
 */
void hw_tex_cube_face_deriv(const float dir[3], const float ddir[3], float *ds, float *dt);

/* LOD lambda (before/after clamping) as sampling computes it. */
void hw_tex_compute_lambda(const struct hw_tex_view *v, const struct hw_tex_sampler *s,
                           const struct hw_tex_lod *lod, float *clamped,
                           float *unclamped);

/*
 * Samples one lane.  out receives the swizzled RGBA (floats or ints by
 * the format class; a compare result, 0.0..1.0 after filtering, stands in
 * every component and is swizzled like a texel, with 1 as 1.0).  Gather
 * returns (x, y, z, w) = texels (i0,j1), (i1,j1), (i1,j0), (i0,j0) of the
 * 2x2 footprint, as GL and Vulkan order them.
 */
enum hw_tex_status hw_tex_sample(struct hw_mmu *mmu, const struct hw_tex_view *v,
                                 const struct hw_tex_sampler *s,
                                 const struct hw_tex_sample_req *req,
                                 const struct hw_tex_coord *c,
                                 const struct hw_tex_lod *lod, union hw_texel *out);
/*
 * hw_tex_sample() with the level of detail shared between calls: when
 * shared->valid, its lambda (from an earlier call with the same view,
 * sampler and lod) is used instead of computing it; otherwise it is
 * computed and stored there (valid set) once the call gets that far.
 * The lanes of a quad share their derivatives, so a SIMD group computes
 * lambda once per quad.
 */
struct hw_tex_lambda {
   float clamped, unclamped;
   bool valid;
};
enum hw_tex_status hw_tex_sample_lambda(struct hw_mmu *mmu, const struct hw_tex_view *v,
                                        const struct hw_tex_sampler *s,
                                        const struct hw_tex_sample_req *req,
                                        const struct hw_tex_coord *c,
                                        const struct hw_tex_lod *lod,
                                        struct hw_tex_lambda *shared,
                                        union hw_texel *out);

/*
 * Tests only: clearing it makes sampling take the general path
 * everywhere, the reference the fast paths (hw_tex_sample.c) must match
 * bit for bit.  Not synchronised: set it before sampling starts.
 */
extern bool hw_tex_sample_fast_paths;

/*
 * Tests only: clearing it makes image_write_block's linear rows go
 * through the staging run and hw_mmu_write always, the reference for the
 * rows converted straight into a page the TLB already holds
 * (hw_tex_write.c). Not synchronised: set it before rendering starts.
 */
extern bool hw_tex_write_fast_paths;

/*
 * texture_load: integer texel (x, y, z-or-layer) of level first_level +
 * level.  Out-of-range coordinates, levels or samples return all zeros
 * (robust access), not a fault.
 */
enum hw_tex_status hw_tex_load(struct hw_mmu *mmu, const struct hw_tex_view *v,
                               int32_t x, int32_t y, int32_t z, uint32_t level,
                               uint32_t sample, union hw_texel *out);

/*
 * hw_tex_load of sample 0 of level `level`, layer (or slice) z, for each
 * lane l of `mask` at (x[l], y[l]), lanes in increasing order: out[l]
 * gets what hw_tex_load would, bit for bit.  For a whole SIMD group of
 * adjacent pixels (a background program reloading a render target) the
 * level's checks and addressing are set up once, not per lane.  Stops at
 * the first hard fault (HW_TEX_FAULT, the fault recorded as hw_tex_load
 * would); *loaded is the set of lanes whose out[] was written.
 */
enum hw_tex_status hw_tex_load_lanes(struct hw_mmu *mmu, const struct hw_tex_view *v,
                                     const int32_t x[32], const int32_t y[32], int32_t z,
                                     uint32_t level, uint32_t mask, union hw_texel out[32],
                                     uint32_t *loaded);

/*
 * Plain nearest sampling of a whole SIMD group (issue 17: minetest's
 * fragment shaders sample RGBA8 textures with GL_NEAREST and no mipmaps
 * on nearly every pixel).  hw_tex_sample_nearest_ok says whether
 * hw_tex_sample_nearest_lanes may stand in for hw_tex_sample of op
 * SAMPLE without compare or offsets on view v with sampler s: a
 * non-null single-sampled 2D view the texel fast paths read and a
 * sampler filtering nearest both ways without mipmaps, so that lambda
 * (and with it every level-of-detail input) is never used.  The lanes of
 * `mask` are then sampled in increasing order at c[l] (s, t, layer;
 * offsets zero): out[l] gets hw_tex_sample's texel bit for bit, with the
 * same memory accesses in the same order; it stops at the first hard
 * fault (HW_TEX_FAULT, recorded as hw_tex_sample would) with *done the
 * set of lanes written.  The level's addressing is set up once; a lane
 * whose texel is not inside the level (border) goes through
 * hw_tex_sample itself.
 */
bool hw_tex_sample_nearest_ok(const struct hw_tex_view *v, const struct hw_tex_sampler *s);
enum hw_tex_status hw_tex_sample_nearest_lanes(struct hw_mmu *mmu, const struct hw_tex_view *v,
                                               const struct hw_tex_sampler *s,
                                               const struct hw_tex_coord c[32], uint32_t mask,
                                               union hw_texel out[32], uint32_t *done);

/*
 * A reload as a byte map.  A background program that reloads a render
 * target (hw_render's bulk reload) stores component c of hw_tex_load's
 * texel (x, y) of level 0, layer 0, with st_tile in tile format F.  When
 * the view is one the texel fast paths read (hw_tex_sample_fast_paths:
 * 8-bit unorm components in a byte array, one sample, power-of-two
 * tiles) and F stores each component as one byte (i8, u8norm, s8norm,
 * srgba8), the byte stored for component c is a function of one byte of
 * the texel (unpacking treats the components independently), or a
 * constant when the swizzle selects 0, 1 or a component the format does
 * not store.  hw_tex_reload_map_init tabulates those functions with
 * hw_tex_unpack and hw_tex_tile_store_comp themselves, so the map gives
 * the general path's bytes by construction; false (m unusable) for any
 * other view or format.  hw_tex_reload_row applies it to a row of texels,
 * reading memory a page (one TLB lookup) at a time instead of per texel.
 */
struct hw_tex_reload_map {
   uint32_t mask;                 /* components stored (F's st_tile mask) */
   uint32_t width, height;        /* level 0: texels outside read zero */
   int8_t src[4];                 /* texel byte component c reads; -1: constant */
   uint8_t lut[4][256];           /* byte stored for texel byte b (constant: [0]) */
   uint8_t oob[4];                /* byte stored for a texel outside the level */
   bool perm;                     /* 4 components, each a texel byte as it is
                                   * (identity tables): a byte permutation */
   bool copy;                     /* perm with src[c] == c: a copy */
   /* level 0 addressing, as hw_tex_load's */
   bool twiddled;
   unsigned texel_bytes, sx, sy;
   uint32_t mx, my;
   uint64_t base, row_bytes, tile_bytes;
};

bool hw_tex_reload_map_init(struct hw_tex_reload_map *m, const struct hw_tex_view *v,
                            unsigned tile_fmt, uint32_t mask);

/*
 * Texels (x + i, y), i < n, through map m: for each component c of
 * m->mask, dst[i * stride + c] = the byte st_tile stores from component
 * c of hw_tex_load(v, x + i, y, 0, 0, 0).  HW_TEX_FAULT on a hard fault,
 * recorded in mmu as hw_tex_load records it (some of the n texels may
 * have been stored by then).
 */
enum hw_tex_status hw_tex_reload_row(struct hw_mmu *mmu, const struct hw_tex_reload_map *m,
                                     int32_t x, int32_t y, unsigned n, uint8_t *dst,
                                     size_t stride);

/*
 * Asks the host to fetch texels [x, x + w) x [y, y + h) of the map's
 * level into its caches (a tile's reload is about to read them: they
 * were written by the previous partial render's end-of-tile stores,
 * often on another thread, and waiting for them one row at a time was
 * most of hw_tex_reload_row's time).  Only a hint: nothing is read,
 * recorded or faulted (hw_mmu_peek).
 */
void hw_tex_reload_prefetch(struct hw_mmu *mmu, const struct hw_tex_reload_map *m,
                            int32_t x, int32_t y, unsigned w, unsigned h);

/*
 * image_write of one texel through a PBE image: level = descriptor level +
 * level_add.  Out-of-range writes are dropped (HW_TEX_OK).
 */
enum hw_tex_status hw_tex_image_store(struct hw_mmu *mmu, const struct hw_tex_image *im,
                                      int32_t x, int32_t y, uint32_t layer,
                                      uint32_t level_add, uint32_t sample,
                                      const union hw_texel *value, bool rtz);

/*
 * A tile of the tilebuffer as the render core hands it to
 * image_write_block.  The render core owns the tilebuffer layout; it
 * describes the byte address of (pixel x, y, sample s) inside `mem` as
 *    y * row_stride + x * pixel_stride + s * sample_stride
 * and the instruction adds the render target's byte offset.
 */
struct hw_tex_tile {
   const uint8_t *mem;
   size_t size;              /* bytes readable at mem (bounds check) */
   uint32_t width, height;   /* tile size in pixels */
   uint32_t samples;
   uint32_t row_stride, pixel_stride, sample_stride;
   uint32_t x0, y0;          /* tile origin in the image, pixels */
   uint32_t layer;           /* render target layer */
};

/*
 * Stores the tile's pixels (memory format memfmt at byte offset `offset`
 * in each pixel) into the image: pixels outside the image are skipped.
 */
enum hw_tex_status hw_tex_block_store(struct hw_mmu *mmu, const struct hw_tex_image *im,
                                      const struct hw_tex_tile *tile, unsigned memfmt,
                                      uint32_t offset, uint32_t level_add, bool rtz,
                                      char *err, size_t err_size);

/* ---- tile formats ------------------------------------------------------- */

/*
 * The memory formats of ld_tile / st_tile (the ISA's memory_format: i8,
 * i16, i32, f16, u8norm, s8norm, u16norm, s16norm, rgb10a2, srgba8,
 * rg11b10f, rg11b10f.rtz), as they sit in one sample of a tilebuffer or
 * imageblock pixel. Component `comp` of a 32-bit (or, r16, 16-bit)
 * register value is stored at dst; packed formats (hw_tex_tile_fmt_packed)
 * take dst/src as the sample's 32-bit
 * word. Conversions round to nearest and saturate like the hardware.
 */
/* NaN -> 0, else v clamped to [lo, hi] (lo < hi); written as two selects
 * the compiler turns into maxss/minss instead of data-dependent branches
 * (same results, -0.0 included). */
static inline float
hw_tex_clampf(float v, float lo, float hi)
{
   float r = lo > v ? lo : v;
   r = r > hi ? hi : r;
   return v != v ? 0.0f : r;
}

/* Bytes of one component (packed formats: 1); false if not modelled
 * (rgb9e5, whose shared exponent needs all three components at once). */
bool hw_tex_tile_fmt_bytes(unsigned fmt, unsigned *bytes);
/* Whether fmt packs the pixel into one 32-bit word (rgb10a2, srgba8,
 * rg11b10f and rg11b10f.rtz): every component's dst/src is that word. */
bool hw_tex_tile_fmt_packed(unsigned fmt);
void hw_tex_tile_store_comp(unsigned fmt, unsigned comp, uint8_t *dst, uint32_t reg, bool r16);
/* Stores n values of component comp: value i (a register as for
 * hw_tex_tile_store_comp, a 16-bit one in bits 0-15 when r16) at
 * base + off[i]. The same bytes as hw_tex_tile_store_comp on each i in
 * order; the destinations must not overlap (packed formats: one per
 * word), so the order does not matter. */
void hw_tex_tile_store_comps(unsigned fmt, unsigned comp, uint8_t *base, const size_t *off,
                             const uint32_t *reg, unsigned n, bool r16);
uint32_t hw_tex_tile_load_comp(unsigned fmt, unsigned comp, const uint8_t *src, bool r16);
/* Loads n values of component comp: reg[i] = hw_tex_tile_load_comp(fmt,
 * comp, base + off[i], r16), with the format dispatched once per call
 * (ld_tile gathers a group's lanes per component, as st_tile does). */
void hw_tex_tile_load_comps(unsigned fmt, unsigned comp, const uint8_t *base, const size_t *off,
                            uint32_t *reg, unsigned n, bool r16);

/*
 * Whole pixels of the 4 x 8-bit formats (u8norm with all four components
 * selected, srgba8), the four components at once, straight between
 * register rows and the pixels: pixel i is the 4 bytes at base + off[i]
 * (distinct pixels, not overlapping), component k its register value
 * row[k][i] (r16: bits sh[k]..sh[k]+15 of that word, the other half of
 * the word kept by loads). Stores then write one 32-bit word per pixel
 * and loads read one, instead of a pass over the pixels per component.
 * The same bytes and registers as hw_tex_tile_store_comp /
 * hw_tex_tile_load_comp per component in order (rows may alias, as the
 * two halves of one register do). False, doing nothing, for any other
 * format.
 */
bool hw_tex_tile_store_px8(unsigned fmt, uint8_t *base, const uint32_t *off,
                           uint32_t *const row[4], const unsigned sh[4], unsigned n, bool r16);
bool hw_tex_tile_load_px8(unsigned fmt, const uint8_t *base, const uint32_t *off,
                          uint32_t *const row[4], const unsigned sh[4], unsigned n, bool r16);
/* The same for the pixels i whose bit is set in lanes (i < 32; off[] has
 * 32 entries): the others' bytes and registers are left alone. Stores
 * convert the selected quads (pixels 4q..4q+3) with
 * hw_tex_tile_store_px8 itself, so a pixel's word is the one it writes. */
bool hw_tex_tile_store_px8_lanes(unsigned fmt, uint8_t *base, const uint32_t *off,
                                 uint32_t *const row[4], const unsigned sh[4], uint32_t lanes,
                                 bool r16);
bool hw_tex_tile_load_px8_lanes(unsigned fmt, const uint8_t *base, const uint32_t *off,
                                uint32_t *const row[4], const unsigned sh[4], uint32_t lanes,
                                bool r16);
/* Tests: true makes hw_tex_tile_store_px8 and hw_tex_tile_store_comps
 * convert 32-bit u8norm values one at a time (the scalar reference of
 * their vector loops). Set it only while nothing renders. */
extern bool hw_tex_tile_u8norm_scalar;

/* ---- instructions ------------------------------------------------------ */

/*
 * State slots one USC Texture or Sampler word loads: slots start ..
 * start + count - 1 read their descriptors from buffer onwards (slot i at
 * buffer + (i - start) * stride). A pipeline may carry several such words
 * from unrelated buffers (Mesa's end-of-tile program binds each render
 * target's PBE descriptor with a word of its own); later words overwrite
 * the slots of earlier ones, as the words load in order.
 */
struct hw_tex_slots {
   uint32_t start, count;
   uint64_t buffer;
};

struct hw_tex_ctx {
   uint64_t texture_table;   /* launch's texture state table */
   uint64_t sampler_table;   /* launch's sampler state table */
   unsigned sampler_stride;  /* bytes a sampler; 0 = HW_TEX_SAMPLER_BYTES */
   /* Optional (0: none): the launch's Texture / Sampler words, in order.
    * An indexed slot one of them loads reads its descriptor there; a slot
    * none loads falls back to texture_table / sampler_table + index *
    * stride. */
   const struct hw_tex_slots *tex_slots, *smp_slots;
   unsigned ntex_slots, nsmp_slots;
   /* Optional (NULL: nothing counted): texture_load / texture_sample
    * lanes are added to its tex_loads and per-filter counters
    * (hw/hw_profile.h, by the sampler's min and mip filter) and to its
    * per-format table; tex_fetches itself is the caller's. */
   struct hw_prof_entry *prof;
};

/* GPU address of the texture descriptor in slot idx (an indexed ts<idx>
 * operand): the last of ctx's Texture words loading it, else
 * texture_table + idx * HW_TEX_DESC_BYTES -- the lookup texture
 * instructions make. */
uint64_t hw_tex_ctx_texture_address(const struct hw_tex_ctx *ctx, uint32_t idx);

/* The sampler table stride a launch's Sampler States count (enum
 * agx_sampler_states) selects. */
unsigned hw_tex_sampler_stride(unsigned sampler_states);

/*
 * Executes one texture instruction for exec_mask.  Memory goes through a
 * TEX/PBE-unit copy of the group's MMU view; a fault is also recorded in
 * the group's view (hw_usc_simd_mmu(simd)->fault) so the caller can report
 * it.  tile may be NULL except for image_write_block.  Returns
 * HW_USC_FAULT, HW_USC_BAD_CODE (bad descriptor/operands, message in err)
 * or HW_USC_UNSUPPORTED (not a texture instruction).
 */
enum hw_usc_status hw_tex_execute(const struct hw_tex_ctx *ctx, struct hw_usc_simd *simd,
                                  const struct agx_instr *instr, uint32_t exec_mask,
                                  const struct hw_tex_tile *tile, char *err,
                                  size_t err_size);

/* hw_usc_stage_hook for compute launches: user = const struct hw_tex_ctx *. */
enum hw_usc_status hw_tex_compute_hook(void *user, struct hw_usc_simd *simd,
                                       const struct agx_instr *instr, uint32_t exec_mask);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * tessera shader compiler (tc_): NIR -> AGX (G13) machine code that runs
 * on the tessera GPU model (hw/usc) and, by construction, real G13.
 *
 * Pipeline: tc_preprocess_nir() (key-independent lowering, once per CSO)
 * -> tc_compile() (key-dependent lowering: vertex fetch, blending and the
 * tilebuffer, clip-space z; then instruction selection into the tc IR,
 * SSA; register allocation; scoreboard waits; encoding with agxisa).
 *
 * ABI between compiled shaders and the Gallium driver (the driver fills
 * uniform registers with USC Uniform words; everything else is fixed here):
 *
 *   Uniform registers (32-bit numbering, u0..u255):
 *     u0_u1   GPU address of constant buffer 0 (indirect uniform access)
 *     VS: u2 + 2*i  (i < TC_MAX_VBUFS) 64-bit base address of vertex buffer i
 *     VS: u(TC_U_VATTR_LIMIT + i) (i < TC_MAX_ATTRIBS) largest element index
 *             (vertex or instance / divisor) attribute i may fetch: the
 *             shader clamps to it, so no index can fetch outside the
 *             buffer (robustness)
 *     FS: u2..u5    blend constant colour R, G, B, A (fp32)
 *     FS: u(TC_U_LOD_BIAS + i) (i < 16) sampler i's LOD bias (fp32,
 *             GL_TEXTURE_LOD_BIAS), read when key.fs.lod_bias_mask has bit
 *             i: the hardware's sampler has no bias field, so implicit-LOD
 *             samples become auto_lod_bias with it (plus a shader bias)
 *     u(TC_U_PUSH + k), k < TC_MAX_PUSH_WORDS: word k of constant buffer 0
 *             (constant-offset uniform loads; beyond it loads go to memory)
 *     VS with key.vs.ucp_enables: u(TC_U_UCP + 4*i + j) component j of user
 *             clip plane i (pipe_clip_state.ucp, fp32); the push range
 *             ends before them (TC_MAX_PUSH_WORDS_UCP words)
 *   Texture state index ts<i> = sampler view i; sampler ss<i> = sampler i
 *   (the driver's USC Texture / USC Sampler tables start at 0).
 *
 *   Vertex shaders: r5 = vertex id (base vertex included), r6 = instance
 *   id. Output slots: 0-3 clip-space position (z in [0, w]: GL's [-w, w]
 *   is remapped unless key.clip_halfz), then 4 slots per varying
 *   (tc_vs_info.varying_slot; smooth ones first, then key.flat_mask's,
 *   then key.linear_mask's: info.nr_smooth/nr_flat/nr_linear slots), then
 *   the point size when info.writes_psiz, then info.nr_clip_distances
 *   user clip distances (CLIP_DIST0/1 components, e.g. from
 *   nir_lower_clip_vs): the hardware's UVS order (user varyings, point
 *   size, clip distances).
 *
 *   Fragment shaders: inputs through the coefficient registers the driver
 *   binds from tc_fs_info.inputs (CF Binding per entry); colour outputs go
 *   to the tilebuffer with st_tile at key.rt[i].offset in key.rt[i]
 *   format; blending and colour masks are lowered into the shader
 *   (ld_tile); discard uses sample_mask; depth writes use zs_emit.
 *   A TC_CF_VARYING input reads the 4 slots the vertex shader gives its
 *   location (tc_vs_info.varying_slot; components = 4). gl_FragCoord.xy
 *   is the pixel position (sr80/sr81, upper-left origin) + 0.5, .z the
 *   Fragcoord Z plane, .w the POSITION_W plane (1/w); gl_FrontFacing is
 *   !sr62. Both also work when st/mesa passes them as VARYING_SLOT_POS /
 *   VARYING_SLOT_FACE inputs (no CF binding is made for those).
 *
 *   Errors: anything the compiler cannot translate faithfully makes
 *   tc_compile() return false with a message naming the NIR op,
 *   intrinsic or feature; it never emits approximate code silently.
 */
#ifndef TC_COMPILER_H
#define TC_COMPILER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "compiler/nir/nir.h"
#include "compiler/shader_enums.h"
#include "pipe/p_format.h"
#include "pipe/p_state.h"

#define TC_MAX_VBUFS       16
#define TC_MAX_ATTRIBS     16
#define TC_MAX_RTS         8
#define TC_U_CBUF0_ADDR    0
#define TC_U_VBUF_BASE     2
#define TC_U_BLEND_CONST   2
#define TC_U_VATTR_LIMIT   34
#define TC_U_LOD_BIAS      6
#define TC_U_PUSH          50
#define TC_MAX_PUSH_WORDS  206
#define TC_U_UCP           224
#define TC_MAX_PUSH_WORDS_UCP (TC_U_UCP - TC_U_PUSH)
#define TC_MAX_FS_INPUTS   64

enum tc_stage {
   TC_STAGE_VERTEX,
   TC_STAGE_FRAGMENT,
};

/* Tilebuffer formats st_tile/ld_tile understand (agx_isa's names). */
enum tc_tib_format {
   TC_TIB_NONE = 0,
   TC_TIB_U8NORM,     /* 4 x 8-bit unorm, RGBA order in the tile */
   TC_TIB_F16,        /* 4 x fp16 */
   TC_TIB_I32,        /* 4 x 32-bit (fp32 or integer bits) */
};

/* The tilebuffer format and bytes per sample a render target format uses
 * (TC_TIB_NONE: not renderable). The driver lays the tilebuffer out with
 * this; the compiler stores with it. */
enum tc_tib_format tc_tib_format_for(enum pipe_format format);
unsigned tc_tib_format_size(enum tc_tib_format f);

struct tc_vertex_attrib {
   enum pipe_format format;    /* tc_vertex_format_supported() */
   uint8_t buffer;             /* vertex buffer index, < TC_MAX_VBUFS */
   uint32_t src_offset;        /* bytes */
   uint32_t stride;            /* bytes, multiple of 4 */
   uint32_t divisor;           /* 0: per vertex; else per instance / divisor */
};

/* Formats the vertex shader fetches itself (others: u_vbuf converts). */
bool tc_vertex_format_supported(enum pipe_format format);
unsigned tc_vertex_format_swizzle(enum pipe_format format, unsigned k);

struct tc_vs_key {
   unsigned nr_attribs;        /* attribute i = VERT_ATTRIB_GENERIC0 + i (driver_location i) */
   struct tc_vertex_attrib attribs[TC_MAX_ATTRIBS];
   bool clip_halfz;            /* pipe_rasterizer_state.clip_halfz */
   /* pipe_rasterizer_state.clip_plane_enable: user clip planes become
    * clip distances (nir_lower_clip_vs on gl_ClipVertex or the position,
    * planes from u(TC_U_UCP)); a shader writing gl_ClipDistance has the
    * disabled ones zeroed instead (nir_lower_clip_disable). */
   uint8_t ucp_enables;
   /* Varyings (bit = gl_varying_slot, below 64) the fragment shader reads
    * flat and noperspective: the epilogue lays the user varyings out
    * smooth, then flat, then linear, the groups the PPP's Varying Counts
    * word counts, so the hardware clipper keeps flat values (the
    * provoking vertex's) and interpolates linear ones in screen space. */
   uint64_t flat_mask, linear_mask;
   uint16_t shadow_clamp_mask;  /* as tc_fs_key's */
};

struct tc_fs_key {
   unsigned nr_cbufs;
   struct {
      enum pipe_format format;       /* PIPE_FORMAT_NONE: unbound */
      uint16_t offset;               /* byte offset within a tilebuffer sample */
   } rt[TC_MAX_RTS];
   struct pipe_rt_blend_state blend[TC_MAX_RTS];  /* per RT (already expanded) */
   bool logicop_enable;
   unsigned logicop_func;
   bool flatshade;                   /* glShadeModel(GL_FLAT) for colour inputs */
   uint16_t sprite_coord_enable;     /* rasterizer.sprite_coord_enable (TEXn -> point coord) */
   bool sprite_coord_upper_left;
   uint16_t lod_bias_mask;           /* samplers with a non-zero LOD bias */
   /* Sampler views (bit = texture index) whose shadow compares clamp the
    * reference to [0, 1] in the shader: fixed-point depth formats the
    * hardware samples as float (Z24 stored as Z32F), which GL requires
    * to clamp (GL 4.6 8.23.1) and the sampler does not (it clamps for
    * unorm texture types only, so Z16 needs no bit). */
   uint16_t shadow_clamp_mask;
   /* Polygon stipple for this draw (filled polygons with
    * rasterizer.poly_stipple_enable). Not read by tc_compile: the driver
    * compiles this key from a NIR it lowered with Gallium's
    * nir_lower_pstipple_fs (tessera_shader.c); here so that the variant
    * is its own. */
   bool poly_stipple;
};

union tc_key {
   struct tc_vs_key vs;
   struct tc_fs_key fs;
};

enum tc_interp {
   TC_INTERP_PERSPECTIVE,
   TC_INTERP_LINEAR,       /* noperspective */
   TC_INTERP_FLAT,         /* provoking vertex: the driver picks Flat Vertex 0/2 */
};

enum tc_cf_source {
   TC_CF_VARYING,          /* VS varying `location`, components from 0 */
   TC_CF_POSITION_W,       /* slot 3 (the 1/w plane perspective needs) */
   TC_CF_FRAGCOORD_Z,
   TC_CF_POINT_COORD,
};

struct tc_fs_input {
   enum tc_cf_source source;
   gl_varying_slot location;  /* TC_CF_VARYING */
   uint8_t components;        /* 1..4 */
   enum tc_interp interp;
   uint8_t cf_base;           /* first coefficient register (CF Binding base) */
};

struct tc_vs_info {
   unsigned nr_slots;                      /* output slots written (Output Count) */
   /* user varying slots (from slot 4) by group, in this order: the
    * Varying Counts 32 word's Smooth, Flat and Linear */
   unsigned nr_smooth, nr_flat, nr_linear;
   bool writes_psiz;
   unsigned nr_clip_distances;             /* slots after the point size: Output Select planes */
   uint8_t varying_slot[VARYING_SLOT_MAX]; /* first slot of a varying, 0xff: not written */
};

struct tc_fs_info {
   unsigned nr_inputs;
   struct tc_fs_input inputs[TC_MAX_FS_INPUTS];
   unsigned nr_cf_regs;       /* CF Binding Header.Coefficient Registers */
   bool writes_depth;
   bool discards;
   bool reads_tilebuffer;     /* blending, colour masks, logic ops */
   bool writes_sample_mask;
};

struct tc_shader_binary {
   enum tc_stage stage;
   uint8_t *code;             /* malloc'd, padded; upload to the USC heap */
   size_t size;
   unsigned nr_gprs;          /* 32-bit registers used: USC Registers count */
   unsigned nr_uniforms;      /* highest 32-bit uniform register used + 1 */
   bool uses_textures;
   union {
      struct tc_vs_info vs;
      struct tc_fs_info fs;
   };
};

/* NIR options for st/mesa (screen->get_compiler_options). */
const nir_shader_compiler_options *tc_nir_options(void);

/* Key-independent lowering and optimisation, once per shader CSO (may be
 * called from screen->finalize_nir). Idempotent. */
void tc_preprocess_nir(nir_shader *nir);

/* Compile a variant. `nir` is not modified (cloned inside). On failure
 * returns false and sets *error to a malloc'd message. Thread-safe. */
bool tc_compile(const nir_shader *nir, const union tc_key *key,
                struct tc_shader_binary *out, char **error);

void tc_shader_binary_finish(struct tc_shader_binary *bin);

/* Disassemble a binary (TESSERA_DEBUG=shaders). */
void tc_print_binary(FILE *fp, const struct tc_shader_binary *bin);

#endif

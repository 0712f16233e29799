/* SPDX-License-Identifier: MIT */
/*
 * The fragment pipe: per tilebuffer tile, background program, ISP
 * (rasterisation, depth/stencil), fragment shaders through the stage
 * hook (varyings, tilebuffer access, coverage), end-of-tile program and
 * depth/stencil store.  Tiles are independent work items on the pool;
 * each keeps its own errors, counters and cycles, merged in tile order.
 */
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tessera/bits.h"
#include "hw/render/hw_render_cover.h"
#include "hw/render/hw_render_priv.h"
#include "hw/render/hw_render_tex.h"
#include "hw/tex/hw_tex_layout.h"
#include "tessera/float_bits.h"
#include "tessera/half.h"
#include "tessera/host_cpu.h"

/* Sample positions in 1/256 pixel from the pixel's top-left corner. */
static const uint16_t sample_pos[3][4][2] = {
   { { 128, 128 } },
   { { 192, 192 }, { 64, 64 } },
   { { 96, 32 }, { 224, 96 }, { 32, 160 }, { 160, 224 } },
};

/* What load_prim derives from a primitive's header and its vertices'
 * fixed parts: kept whole in a prim_dec and copied back from it. */
struct prim_geom {
   struct agx_tvb_vertex v[3];
   int64_t X[3], Y[3];            /* 1/256 pixel */
   float zp[3];                   /* depth plane A, B, C */
   struct hwr_tri e;              /* triangle edges in coverage order (hwr_tri_setup) */
};

struct prim {
   uint32_t off;
   struct agx_tvb_primitive h;
   struct prim_geom g;
   float vary[3][HWR_MAX_SLOTS];
   float cf[HWR_MAX_CF][3];       /* A, B, C at the window origin (iter) */
   float cf_bin[HWR_MAX_CF];      /* C at the tile's bin corner (ldcf) */
   unsigned ncf;
   /* The bytes h and v[] were unpacked from (load_prim): the header,
    * then each vertex's fixed part (not its varyings). */
   uint8_t raw[AGX_TVB_PRIMITIVE_LENGTH + 3 * AGX_TVB_VERTEX_LENGTH];
};

/*
 * A deferred primitive's decode, kept from the list walk for resolve():
 * what load_prim derives from the header and the vertices' fixed parts
 * (not the varyings, copied from memory each time), with the bytes it
 * derived them from.  resolve() reads the primitive again as load_prim
 * does (same reads, faults and cycles) and uses the kept decode only if
 * those bytes are unchanged (a shader may have stored over them), the
 * decode being a function of them alone: decoding each deferred
 * primitive twice showed in resolve's profile (~1.5 %).
 */
struct prim_dec {
   uint8_t raw[AGX_TVB_PRIMITIVE_LENGTH + 3 * AGX_TVB_VERTEX_LENGTH];
   struct agx_tvb_primitive h;
   struct prim_geom g;
};

struct fstate {                   /* a decoded TVB State */
   uint32_t off;
   struct agx_tvb_state raw;
   struct agx_fragment_control fc;
   struct agx_fragment_control_2 fc2;
   struct agx_fragment_face face[2];
   struct agx_fragment_stencil sten[2];
   struct agx_depth_bias_scissor dbs;
   struct agx_depth_bias bias;
   struct agx_cull cull;
   struct agx_fragment_occlusion_query oq;
   struct hwr_pipeline pipe;
   struct agx_cf_binding bind[128];
   unsigned nbind;
};

struct fpass;

struct tile {
   struct fpass *fp;
   struct hwr_job j;              /* private copy: errors, cycles */
   struct hw_mmu isp, usc;
   unsigned ux, uy, x0, y0, w, h; /* utile index and pixel rectangle */
   unsigned layer;                /* framebuffer layer */
   uint8_t *tb;                   /* tilebuffer */
   size_t tb_size;
   float *z;
   uint8_t *s;
   struct hw_render_stats stats;
   /* The decoded state (load_state), read only once st_valid is set:
    * the worker's (tile_bufs), not the tile's own, so that the pass's
    * zeroed array of tiles is not 4.4 KB a tile larger (1.2 MB instead
    * of 3.3 MB zeroed per 800x600 pass, most of it to fresh pages). */
   struct fstate *st;
   bool st_valid;
   float iter_x[32], iter_y[32], iter_w[32];   /* fs_run.iter_* */
   /* Hidden-surface removal: per sample, 1 + the index in dfr[] of the
    * deferred opaque primitive that owns it (0: none); dfr[] holds the
    * TVB offsets of the opaque primitives not shaded yet. */
   uint32_t *owner;
   uint32_t *dfr;
   struct prim_dec *dec;          /* dfr[i]'s decode; NULL: none kept */
   unsigned ndfr, dfr_cap;
   struct prim *rp;               /* scratch primitive for resolving */
   struct prim *lp;               /* render_tile's list walk's; NULL: its own */
   /* The shaders' stack (stack_load/store): a slice per thread of a group,
    * as large as the shader's stack_adjust reserves; allocated when a
    * shader first asks, kept for the tile. */
   uint8_t *stack;
   size_t stack_size;
   /* Profiling: the entry counters go to (the current primitive's draw,
    * else the tile's overhead; `none` when not profiling), the worker's
    * arrays they live in, and the cycles already charged to draws. */
   struct hw_prof_entry *pe, *povh, none;
   unsigned worker;
   uint64_t charged;
};

struct fpass {
   struct hwr_job *j;
   unsigned uw, uh, samples, ss, ux_n, uy_n;
   bool partial_bg, partial_eot;
   struct agx_zls_control zls;
   /* The ZLS buffers: twiddled images of the ISP ZLS Pixels size, one
    * texel = every sample of a pixel (zls_layouts). */
   struct hw_tex_layout zl, sl;
   uint32_t zls_w, zls_h;
   /* Morton index of utile pixel (x, y) at [y * uw + x] when a whole utile
    * is one Morton run of its tile (utile_run); see zls_buffer. */
   bool utile_run;
   bool morton4;                  /* 4x4 blocks are Morton runs (zls_permute_blocks) */
   uint16_t morton[32 * 32];
   /* sidx() offset of lane l's sample 0 from its group's (row 0,
    * column 0): the same for every group of the pass (isp_group.loff;
    * computed per primitive it was ~1 % of Mesa asahi's glmark2 build) */
   unsigned lane_off[32];
   /* tilebuffer byte offset of lane l's pixel from its group's first
    * pixel (op_tile's whole-group moves), likewise per pass */
   uint32_t px_off[32];
   struct tile *tiles;
   /* Per worker, the TLBs its last tile ended with (warm_tlb); NULL
    * without (hwr_fast_paths off, or no memory). */
   struct warm_tlb *warm;
   /* Per worker, the tile buffers its tiles reuse (tile_bufs); NULL
    * without (hwr_fast_paths off, or no memory). */
   struct tile_bufs *bufs;
};

/*
 * A tile's host buffers (tilebuffer, depth, stencil, HSR owners, the
 * scratch primitives), allocated for each worker's first tile of the
 * pass and handed to its next ones, rather than allocated and freed per
 * tile: that showed in the profile (~0.8 %).  Their sizes depend only on
 * the pass (utile size, samples, sample size), so one set fits every
 * tile of it; they are freed with the pass.  A tile finds them as a
 * fresh allocation would leave them, for what it reads: the tilebuffer,
 * depth and stencil are written (background program, ZLS load or clear)
 * before they are read, the primitives loaded before use, and owner[]
 * -- calloc'ed per tile on the general path -- is all zero again after
 * every tile (resolve() clears it; tile_item after a failed tile).
 */
struct tile_bufs {
   uint8_t *tb;
   float *z;
   uint8_t *s;
   uint32_t *owner;
   struct prim *rp, *lp;
   struct fstate *st;
};

/*
 * A tile's units start with their TLBs as the same worker's previous tile
 * of the pass left them, rather than empty: neighbouring tiles share the
 * pages of the primitive lists, shaders and render target rows, and
 * walking them again per tile showed in the profile. Only successful
 * translations are cached and the page tables do not change while a pass
 * runs (the kernel only unmaps pages of idle VMs, hw/hw_mmu.c), so a warm
 * entry is the translation a walk would give: the same bytes, faults and
 * results, whatever tile ran before on the worker.
 */
struct warm_tlb {
   bool valid;
   uint32_t isp_gen, usc_gen;
   struct hw_tlb_entry isp[HW_TLB_ENTRIES], usc[HW_TLB_ENTRIES];
};

struct fs_run {
   struct tile *t;
   const struct prim *p;          /* NULL for background/EOT programs */
   const struct hwr_pipeline *pipe;
   unsigned gx, gy;               /* group origin (absolute pixels) */
   uint8_t cov[32];               /* samples per lane (in/out) */
   float zout[32];
   uint32_t zset;
   uint8_t sref[32];              /* emitted stencil references (zs_emit s) */
   uint32_t sset;
   uint32_t tested;               /* lanes whose late tests have run */
   bool late_z;                   /* depth is tested at zs_emit (shader depth) */
   bool late_s;                   /* so is stencil (shader stencil reference) */
   const float (*zs)[HWR_MAX_SAMPLES];   /* interpolated depth per lane, sample */
   /* op_iter's pixel centres and the W plane (iterproj's J) at them, kept
    * for the rest of the launch in the tile's iter_x/y/w: Mesa asahi runs
    * one iterproj per varying with the same J, so each recomputed the same
    * 32 values. Valid while iter_ctr / iter_jw are set (fs_start clears
    * them; zero-initialised runs start without). The values live in the
    * tile, not here, so that the run, zero-initialised per group, stays
    * small. */
   bool iter_ctr, iter_jw;
   unsigned iter_jw_cf;
   char err[96];
};

bool hw_render_frag_reference;
bool hw_render_bg_reload_fast = true;
bool hw_render_bg_reload_map = true;

/* A fresh fs_run for one group: what `= { .t, .p, .gx, .gy }` gives,
 * except that zout[] and sref[] (read only where zset / sset has the
 * lane's bit) and err[] past its terminator are left as they are: a
 * ~350-byte zero fill per group showed in resolve's profile. The caller
 * sets cov[]. */
static inline void
fs_run_init(struct fs_run *r, struct tile *t, const struct prim *p, unsigned gx, unsigned gy)
{
   r->t = t;
   r->p = p;
   r->pipe = NULL;
   r->gx = gx;
   r->gy = gy;
   r->zset = 0;
   r->sset = 0;
   r->tested = 0;
   r->late_z = r->late_s = false;
   r->zs = NULL;
   r->err[0] = 0;
}

static unsigned
sidx(const struct fpass *fp, unsigned px, unsigned py, unsigned s)
{
   return (py * fp->uw + px) * fp->samples + s;
}

static const uint16_t (*positions(unsigned samples))[2]
{
   return sample_pos[samples == 1 ? 0 : samples == 2 ? 1 : 2];
}

static float
plane(const float *p, float x, float y)
{
   return p[0] * x + p[1] * y + p[2];
}

/*
 * Host AVX2 for a few hot loops, when the CPU has it: the loops are
 * per-lane IEEE float operations (no contraction under -std=c11, and the
 * avx2 target has no FMA) and integer masks, which give the same bits at
 * any vector width. op_iter: 8 lanes per instruction halve the divisions
 * and half conversions of Mesa asahi's iterproj-per-varying shaders;
 * isp_group_tri: a depth row's 16 columns in two steps instead of four.
 * HWR_AVX2_COPIES(ret, name, params, args) compiles name##_body (always
 * inlined) twice, for AVX2 and for the baseline, and defines name(),
 * which calls the copy hwr_host_avx2 picks. The compiler's target_clones
 * did the same with the choice made once at load, out of the tests'
 * reach: a host with AVX2 never ran the baseline copy, which every host
 * without it runs (test_host_avx2_copies runs both).
 */
#if defined(__x86_64__) && defined(__GNUC__) && defined(__has_attribute)
#if __has_attribute(target)
#define HWR_AVX2_COPIES(ret, name, params, args)                               \
   __attribute__((target("avx2"), noinline)) static ret name##_avx2 params     \
   {                                                                           \
      return name##_body args;                                                 \
   }                                                                           \
   __attribute__((noinline)) static ret name##_base params                     \
   {                                                                           \
      return name##_body args;                                                 \
   }                                                                           \
   static inline ret name params                                               \
   {                                                                           \
      return hwr_host_avx2 ? name##_avx2 args : name##_base args;              \
   }
bool hwr_host_avx2;

__attribute__((constructor)) static void
hwr_host_avx2_detect(void)
{
   hwr_host_avx2 = tessera_host_avx2();
}
#endif
#endif
#ifndef HWR_AVX2_COPIES
#define HWR_AVX2_COPIES(ret, name, params, args)                               \
   static inline ret name params                                               \
   {                                                                           \
      return name##_body args;                                                 \
   }
bool hwr_host_avx2;
#endif

/* ------------------------------------------------------------- hook */

/* Operands and fields the hooks read, through per-opcode index tables
 * (hw_isa_names_fill): the hooks run once per instruction and group. */
enum { FLD_INTERP, FLD_S, FLD_LOAD, FLD_F, FLD_MASK, FLD_O, FLD_Z, FLD_ZS_S, NUM_FLD };
static const char *const fld_names[NUM_FLD] = {
   "interpolation", "S", "load", "F", "mask", "O", "z", "s",
};
static int8_t fld_idx[AGX_NUM_OPCODES][HW_ISA_NAMES_MAX];
/* ldst_tile's R and S: the last operand of that name (-1: none). */
static int8_t tile_r_idx[AGX_NUM_OPCODES], tile_s_idx[AGX_NUM_OPCODES];
static pthread_once_t names_once = PTHREAD_ONCE_INIT;

static void
names_init(void)
{
   hw_isa_names_fill(fld_idx, fld_names, NUM_FLD, true);
   for (unsigned op = 0; op < AGX_NUM_OPCODES; op++) {
      tile_r_idx[op] = tile_s_idx[op] = -1;
      for (unsigned i = 0; i < 127; i++) {
         const char *n = agx_isa_op_operand_name((enum agx_isa_opcode)op, i);
         if (!n)
            break;
         if (!strcmp(n, "R"))
            tile_r_idx[op] = (int8_t)i;
         if (!strcmp(n, "S"))
            tile_s_idx[op] = (int8_t)i;
      }
   }
}

static uint32_t
fld(const struct agx_instr *in, unsigned k)
{
   return hw_isa_field(in, (const int8_t (*)[HW_ISA_NAMES_MAX])fld_idx, k);
}


/*
 * A pixel SIMD group covers a 16x2 block as eight 2x2 quads: lane l is
 * quad l / 4 (left to right), bit 0 = x, bit 1 = y inside the quad -- the
 * layout the interpreter's dfdx/dfdy and the texture unit's implicit
 * derivatives assume.
 */
#define GROUP_W 16
#define GROUP_H 2

/* As tables: the per-lane loops (fs_start, iter) then load them as
 * vectors instead of computing them lane by lane. */
static const uint8_t quad_dx_tab[32] = {
   0, 1, 0, 1, 2, 3, 2, 3, 4, 5, 4, 5, 6, 7, 6, 7,
   8, 9, 8, 9, 10, 11, 10, 11, 12, 13, 12, 13, 14, 15, 14, 15,
};
static const uint8_t quad_dy_tab[32] = {
   0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1,
   0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1,
};

/* 1 << l: per-lane masks from a table vectorise (SSE2 has no per-lane
 * variable shift) */
static const uint32_t lane_bit_tab[32] = {
#define B4(n) 1u << (n), 1u << ((n) + 1), 1u << ((n) + 2), 1u << ((n) + 3)
   B4(0), B4(4), B4(8), B4(12), B4(16), B4(20), B4(24), B4(28)
#undef B4
};

/* quad_dx_tab widened, for loops storing 32-bit values */
static const uint32_t quad_dx32_tab[32] = {
   0, 1, 0, 1, 2, 3, 2, 3, 4, 5, 4, 5, 6, 7, 6, 7,
   8, 9, 8, 9, 10, 11, 10, 11, 12, 13, 12, 13, 14, 15, 14, 15,
};

static inline unsigned
quad_dx(unsigned l)
{
   return quad_dx_tab[l & 31];   /* (l >> 2) * 2 + (l & 1) */
}

static inline unsigned
quad_dy(unsigned l)
{
   return quad_dy_tab[l & 31];   /* (l >> 1) & 1 */
}

/* Lane's pixel relative to the tile; false when outside the tilebuffer. */
static bool
lane_tile_xy(const struct fs_run *r, unsigned l, unsigned *px, unsigned *py)
{
   *px = r->gx + quad_dx(l) - r->t->x0;
   *py = r->gy + quad_dy(l) - r->t->y0;
   return *px < r->t->fp->uw && *py < r->t->fp->uh;
}

static void
put(struct hw_usc_simd *s, const struct agx_operand *o, unsigned k, unsigned l,
    uint32_t bits32)
{
   if (o->size == 16) {
      float f;
      memcpy(&f, &bits32, 4);
      hw_usc_simd_write16(s, o->value + k, l, hw_usc_f32_to_f16(f));
   } else {
      hw_usc_simd_write32(s, o->value + k, l, bits32);
   }
}

static unsigned
cf_index(const struct agx_operand *o)
{
   return o->value;
}

/* The per-lane reference of op_iter (hw_render_frag_reference), as the
 * model had it before the batched version: a lane at a time, bindings
 * checked at the first live lane. */
static float
lane_x(const struct fs_run *r, unsigned l, unsigned s, bool sample)
{
   float off = sample ? positions(r->t->fp->samples)[s][0] / 256.0f : 0.5f;
   return (float)(r->gx + quad_dx(l)) + off;
}

static float
lane_y(const struct fs_run *r, unsigned l, unsigned s, bool sample)
{
   float off = sample ? positions(r->t->fp->samples)[s][1] / 256.0f : 0.5f;
   return (float)(r->gy + quad_dy(l)) + off;
}

static enum hw_usc_status
op_iter_ref(struct fs_run *r, struct hw_usc_simd *s, const struct agx_instr *in,
            uint32_t exec)
{
   const struct agx_operand *d = &in->operands[0], *I = &in->operands[1];
   const struct agx_operand *J = in->op == AGX_OP_ITERPROJ ? &in->operands[2] : NULL;
   uint32_t interp = fld(in, FLD_INTERP), samp = fld(in, FLD_S);
   bool at_sample = interp == 1 || interp == 3;
   bool samp_reg = interp == 3;
   unsigned cnt = d->count ? d->count : 1;
   for (unsigned l = 0; l < 32; l++) {
      if (!(exec >> l & 1))
         continue;
      unsigned si = (samp_reg ? hw_usc_simd_read16(s, samp, l) : samp) % r->t->fp->samples;
      float x = lane_x(r, l, si, at_sample);
      float y = lane_y(r, l, si, at_sample);
      float jw = 1.0f;
      if (J) {
         unsigned jc = cf_index(J);
         if (!r->p || jc >= r->p->ncf)
            return HW_USC_OUT_OF_BOUNDS;
         jw = plane(r->p->cf[jc], x, y);
      }
      for (unsigned k = 0; k < cnt; k++) {
         unsigned c = cf_index(I) + k;
         if (!r->p || c >= r->p->ncf) {
            snprintf(r->err, sizeof(r->err), "iter reads cf%u past the bindings", c);
            return HW_USC_OUT_OF_BOUNDS;
         }
         float v = plane(r->p->cf[c], x, y);
         if (J)
            v = v / jw;
         put(s, d, k, l, tessera_fui(v));
      }
   }
   return HW_USC_OK;
}

/*
 * iter/iterproj: the plane of each coefficient register at each live
 * lane's pixel centre (or sample), divided by the W plane for iterproj.
 * Evaluated a component at a time over all 32 lanes with the same float
 * operations per lane as plane() (no contraction under -std=c11, so the
 * compiler may vectorise without changing a bit); lanes outside exec are
 * computed and dropped, which has no effect. The f32 -> f16 rounding is
 * hw_usc_f32_to_f16's, in its branch-free float form (tessera_f32_to_f16,
 * tessera/half.h).
 */
/* 1 << l, as a table so that the per-lane masks vectorise */
static const uint32_t iter_lane_bit[32] = {
#define B4(n) 1u << (n), 1u << ((n) + 1), 1u << ((n) + 2), 1u << ((n) + 3)
   B4(0), B4(4), B4(8), B4(12), B4(16), B4(20), B4(24), B4(28)
#undef B4
};

static inline __attribute__((always_inline)) enum hw_usc_status
op_iter_body(struct fs_run *r, struct hw_usc_simd *s, const struct agx_instr *in,
             uint32_t exec)
{
   const struct agx_operand *d = &in->operands[0], *I = &in->operands[1];
   const struct agx_operand *J = in->op == AGX_OP_ITERPROJ ? &in->operands[2] : NULL;
   uint32_t interp = fld(in, FLD_INTERP), samp = fld(in, FLD_S);
   bool at_sample = interp == 1 || interp == 3;
   /* interpolation 3: S names a 16-bit register holding each lane's
    * sample index (Mesa's interpolateAtSample with any index not an
    * immediate -- a constant one too, behind a bcsel on samples_log2) */
   bool samp_reg = interp == 3;
   unsigned cnt = d->count ? d->count : 1;
   if (!exec)
      return HW_USC_OK;
   /* The bindings are the same for every lane: checked once, before any
    * register is written (the error ends the shader). */
   if (J && (!r->p || cf_index(J) >= r->p->ncf))
      return HW_USC_OUT_OF_BOUNDS;
   for (unsigned k = 0; k < cnt; k++) {
      unsigned c = cf_index(I) + k;
      if (!r->p || c >= r->p->ncf) {
         snprintf(r->err, sizeof(r->err), "iter reads cf%u past the bindings", c);
         return HW_USC_OUT_OF_BOUNDS;
      }
   }
   /* Sample positions are computed per call; pixel centres and their W
    * plane come from the launch's cache (fs_run.iter_*) unless
    * hw_render_frag_reference asks for the per-call computation. The
    * values are the same either way (same operations on the same
    * inputs: the group origin and the primitive are fixed in a launch). */
   bool cache = !at_sample && !hw_render_frag_reference;
   float xs[32], ys[32], ws[32], v[32];
   const float *x = xs, *y = ys, *jw = ws;
   if (at_sample) {
      const uint16_t (*pos)[2] = positions(r->t->fp->samples);
      for (unsigned l = 0; l < 32; l++) {
         unsigned si = 0;
         if (exec >> l & 1)
            si = (samp_reg ? hw_usc_simd_read16(s, samp, l) : samp) % r->t->fp->samples;
         xs[l] = (float)(r->gx + quad_dx(l)) + pos[si][0] / 256.0f;
         ys[l] = (float)(r->gy + quad_dy(l)) + pos[si][1] / 256.0f;
      }
   } else {
      float *cx = cache ? r->t->iter_x : xs, *cy = cache ? r->t->iter_y : ys;
      if (!cache || !r->iter_ctr) {
         /* Computed in the locals xs/ys, then copied to the launch's
          * cache: stores through cx/cy (into the tile, for all the
          * compiler knows aliasing each other and r) kept the loop
          * scalar. Positions are below 2^15, so the signed conversion
          * (which vectorises; unsigned has no SSE form) gives the same
          * float. */
         const int32_t gx = (int32_t)r->gx, gy = (int32_t)r->gy;
         for (unsigned l = 0; l < 32; l++) {
            xs[l] = (float)(gx + (int32_t)quad_dx(l)) + 0.5f;
            ys[l] = (float)(gy + (int32_t)quad_dy(l)) + 0.5f;
         }
         if (cache) {
            memcpy(cx, xs, sizeof(xs));
            memcpy(cy, ys, sizeof(ys));
         }
         r->iter_ctr = cache;
      }
      x = cx;
      y = cy;
   }
   if (J) {
      float *w = cache ? r->t->iter_w : ws;
      if (!cache || !r->iter_jw || r->iter_jw_cf != cf_index(J)) {
         /* In the local ws with the plane in locals, then copied to the
          * cache, as for the centres (the same operations in the same
          * order per lane). */
         const float *p = r->p->cf[cf_index(J)];
         const float pa = p[0], pb = p[1], pc = p[2];
         for (unsigned l = 0; l < 32; l++)
            ws[l] = pa * x[l] + pb * y[l] + pc;
         if (cache)
            memcpy(w, ws, sizeof(ws));
         r->iter_jw = cache;
         r->iter_jw_cf = cf_index(J);
      }
      jw = w;
   }
   for (unsigned k = 0; k < cnt; k++) {
      const float *p = r->p->cf[cf_index(I) + k];
      for (unsigned l = 0; l < 32; l++)
         v[l] = p[0] * x[l] + p[1] * y[l] + p[2];
      if (J)
         for (unsigned l = 0; l < 32; l++)
            v[l] = v[l] / jw[l];
      unsigned reg = d->size == 16 ? ((d->value + k) & 255) >> 1 : (d->value + k) & 127;
      if (k >= 8) {
         /* (a count past any the compiler emits: the generic write) */
         for (uint32_t m = exec; m; m &= m - 1)
            put(s, d, k, (unsigned)__builtin_ctz(m), tessera_fui(v[__builtin_ctz(m)]));
         continue;
      }
      uint32_t *row = hw_usc_simd_row32(s, reg);
      /* The row is written through a per-lane mask, every lane converted
       * and kept or dropped without a branch: a walk over the exec bits
       * (or a branch per lane) mispredicted on partial groups and did
       * not vectorise; it was most of this function's time on Mesa
       * asahi's replays (iterproj per varying, fp16 ones on GLES). */
      uint32_t keep[32];
      for (unsigned l = 0; l < 32; l++)
         keep[l] = 0u - (uint32_t)((exec & iter_lane_bit[l]) != 0);
      if (d->size == 16) {
         unsigned sh = ((d->value + k) & 1) * 16;
         uint32_t hm = 0xffffu << sh;
         for (unsigned l = 0; l < 32; l++) {
            uint32_t h = (uint32_t)tessera_f32_to_f16(v[l]) << sh;
            row[l] = (row[l] & ~(hm & keep[l])) | (h & keep[l]);
         }
      } else {
         for (unsigned l = 0; l < 32; l++)
            row[l] = (row[l] & ~keep[l]) | (tessera_fui(v[l]) & keep[l]);
      }
   }
   return HW_USC_OK;
}

HWR_AVX2_COPIES(enum hw_usc_status, op_iter,
                (struct fs_run *r, struct hw_usc_simd *s, const struct agx_instr *in,
                 uint32_t exec),
                (r, s, in, exec))

/*
 * ldcf hands the shader a coefficient register as the hardware holds it:
 * <A, B, C> over x and y relative to the corner of the pixel's 32x32 bin
 * (whatever the tilebuffer tile size), C the value at that corner. Mesa's
 * asahi compiler evaluates it itself at `pixel_coord % 32 + 0.5 + offset`
 * for interpolateAtOffset / AtSample / flat inputs
 * (agx_nir_lower_interpolation.c). iter evaluates the same plane; the
 * model does that in window coordinates from C at the window origin.
 */
static enum hw_usc_status
op_ldcf(struct fs_run *r, struct hw_usc_simd *s, const struct agx_instr *in,
        uint32_t exec)
{
   const struct agx_operand *d = &in->operands[0], *I = &in->operands[1];
   unsigned cnt = d->count ? d->count : 3;
   /* Every lane gets the same values: each destination register is one
    * value written to the live lanes of its row (as op_iter writes its
    * rows), the f16 conversion done once. The per-lane loop below is
    * the reference (hw_render_frag_reference), and handles bindings out
    * of range (it fails at the first live lane, after writing the
    * components before the bad one). */
   bool rows = !hw_render_frag_reference && exec && r->p && cnt <= 8 &&
               cf_index(I) + (cnt - 1) / 3 < r->p->ncf;
   if (rows) {
      for (unsigned k = 0; k < cnt; k++) {
         unsigned c = cf_index(I) + k / 3;
         uint32_t v = tessera_fui(k % 3 == 2 ? r->p->cf_bin[c] : r->p->cf[c][k % 3]);
         if (d->size == 16) {
            unsigned half = (d->value + k) & 255, sh = (half & 1) * 16;
            uint32_t h = hw_usc_f32_to_f16(tessera_uif(v));
            uint32_t *row = hw_usc_simd_row32(s, half >> 1);
            for (unsigned l = 0; l < 32; l++)
               row[l] = exec >> l & 1 ? (row[l] & ~(0xffffu << sh)) | h << sh : row[l];
         } else {
            uint32_t *row = hw_usc_simd_row32(s, (d->value + k) & 127);
            for (unsigned l = 0; l < 32; l++)
               row[l] = exec >> l & 1 ? v : row[l];
         }
      }
      return HW_USC_OK;
   }
   for (unsigned l = 0; l < 32; l++) {
      if (!(exec >> l & 1))
         continue;
      for (unsigned k = 0; k < cnt; k++) {
         unsigned c = cf_index(I) + k / 3;
         if (!r->p || c >= r->p->ncf)
            return HW_USC_OUT_OF_BOUNDS;
         put(s, d, k, l, tessera_fui(k % 3 == 2 ? r->p->cf_bin[c] : r->p->cf[c][k % 3]));
      }
   }
   return HW_USC_OK;
}



static enum hw_usc_status
op_tile(struct fs_run *r, struct hw_usc_simd *s, const struct agx_instr *in,
        uint32_t exec)
{
   struct fpass *fp = r->t->fp;
   uint32_t load = fld(in, FLD_LOAD), F = fld(in, FLD_F), mask = fld(in, FLD_MASK),
            O = fld(in, FLD_O);
   /* The last operand named R / S (operands[1] / [5] when none is). */
   const struct agx_operand *R = &in->operands[1], *S = &in->operands[5];
   int ri = (unsigned)in->op < AGX_NUM_OPCODES ? tile_r_idx[in->op] : -1;
   int si = (unsigned)in->op < AGX_NUM_OPCODES ? tile_s_idx[in->op] : -1;
   if (ri < in->num_operands && si < in->num_operands) {
      if (ri >= 0) R = &in->operands[ri];
      if (si >= 0) S = &in->operands[si];
   } else {
      /* fewer operands than the opcode lists: search what is there */
      for (unsigned i = 0; i < in->num_operands; i++) {
         const char *n = agx_isa_op_operand_name(in->op, i);
         if (n && !strcmp(n, "R")) R = &in->operands[i];
         if (n && !strcmp(n, "S")) S = &in->operands[i];
      }
   }
   r->t->pe->c[load ? HW_PROF_TB_LOADS : HW_PROF_TB_STORES] +=
      tessera_popcount32(exec);
   unsigned bytes;
   if (!hw_tex_tile_fmt_bytes(F, &bytes)) {
      snprintf(r->err, sizeof(r->err), "tilebuffer format %u is not modelled", F);
      return HW_USC_UNSUPPORTED;
   }
   bool packed = hw_tex_tile_fmt_packed(F);
   bool r16 = R->size == 16;
   /* Whether component c's access leaves the sample: the same for every
    * pixel and sample (O + offset + size past the sample stride), so it
    * is decided once; the error is still raised where it is reached. */
   bool oob[4];
   for (unsigned c = 0; c < 4; c++)
      oob[c] = (size_t)O + (packed ? 0 : c * bytes) + (packed ? 4 : bytes) > fp->ss;
   /* Register rows of the components (k-th selected component in R + k)
    * and of S: one lookup per instruction instead of one per lane. */
   uint32_t *row[4];
   unsigned sh[4];
   for (unsigned k = 0; k < 4; k++) {
      unsigned reg = r16 ? ((R->value + k) & 255) >> 1 : (R->value + k) & 127;
      row[k] = hw_usc_simd_row32(s, reg);
      sh[k] = r16 ? ((R->value + k) & 1) * 16 : 0;
   }
   const uint32_t *srow = S->type == AGX_OPERAND_IMM ? NULL
                          : hw_usc_simd_row32(s, (S->value & 255) >> 1);
   unsigned ssh = (S->value & 1) * 16;
   /* Accesses that stay inside the sample (the usual case) are gathered
    * per component and converted in one call per component: the format
    * is dispatched once, not per lane. Stores: lanes are distinct pixels
    * and components distinct bytes (or bits of a packed word), so the
    * order of the writes does not change the tilebuffer. Loads: the
    * tilebuffer does not change, each lane's S is read before its own
    * destination is written and a lane's writes touch only its column of
    * the registers, so reading every S first gives the same registers.
    * The per-lane loop below stays the reference (and raises the error
    * of an access past the sample). */
   /* A whole group of whole 8-bit pixels -- every lane live, its pixel
    * inside the tile, one sample, the four components of u8norm (or
    * srgba8) inside the sample, sample 0 selected (and, storing,
    * covered) in every lane: what Mesa asahi's blending and colour
    * writes do on most groups. The lanes' pixels are then two rows of 16
    * at a fixed offset from the group's first, and each pixel moves as
    * one 32-bit word converted straight from / into the register rows
    * (hw_tex_tile_store_px8 / load_px8), with no per-lane gather or
    * per-component pass. The gathered path below and the per-lane loop
    * give the same bytes and registers (test_frag_fast_paths_exact). */
   /* Groups with some lanes off (small primitives, and the deferred
    * ones, shaded with each primitive's own samples: 96 % of a glmark2
    * build replay's stores on the tessera driver) take the same path
    * for the pixels they access -- the lanes running with sample 0
    * selected (and, storing, covered) -- through the _lanes forms; the
    * other lanes' bytes and registers are left alone, as the gathered
    * path leaves them. */
   if (!hw_render_frag_reference && exec && fp->samples == 1 &&
       (F == HW_TEX_MEM_U8NORM || F == HW_TEX_MEM_SRGBA8) && mask == 0xf &&
       (size_t)O + 4 <= fp->ss) {
      unsigned bx = r->gx - r->t->x0, by = r->gy - r->t->y0;
      uint32_t lanes = exec;
      if (S->type == AGX_OPERAND_IMM) {
         if (!(S->imm & 1))
            lanes = 0;
      } else {
         uint32_t sb = 0;
         for (unsigned l = 0; l < 32; l++)
            sb |= (srow[l] >> ssh & 1u) << l;
         lanes &= sb;
      }
      if (!load) {
         uint32_t cb = 0;
         for (unsigned l = 0; l < 32; l++)
            cb |= (r->cov[l] & 1u) << l;
         lanes &= cb;
      }
      if (bx <= fp->uw && fp->uw - bx >= GROUP_W && by <= fp->uh && fp->uh - by >= GROUP_H) {
         const uint32_t *loff = fp->px_off;
         uint8_t *g = r->t->tb + (size_t)sidx(fp, bx, by, 0) * fp->ss + O;
         bool done = lanes == 0xffffffffu
                        ? (load ? hw_tex_tile_load_px8(F, g, loff, row, sh, 32, r16)
                                : hw_tex_tile_store_px8(F, g, loff, row, sh, 32, r16))
                        : (load ? hw_tex_tile_load_px8_lanes(F, g, loff, row, sh, lanes, r16)
                                : hw_tex_tile_store_px8_lanes(F, g, loff, row, sh, lanes, r16));
         if (done)
            return HW_USC_OK;
      }
   }
   bool fast = !hw_render_frag_reference;
   for (unsigned c = 0; c < 4; c++)
      if (mask >> c & 1 && oob[c])
         fast = false;
   if (fast) {
      size_t off[32 * HWR_MAX_SAMPLES];
      uint8_t lane[32 * HWR_MAX_SAMPLES];
      uint32_t val[32 * HWR_MAX_SAMPLES];
      unsigned n = 0;
      /* lane_tile_xy() with the group's offset in the tile hoisted */
      unsigned bx = r->gx - r->t->x0, by = r->gy - r->t->y0;
      uint32_t sall = (1u << fp->samples) - 1;
      for (uint32_t m = exec; m; m &= m - 1) {
         unsigned l = (unsigned)__builtin_ctz(m);
         uint32_t smask = S->type == AGX_OPERAND_IMM ? (uint32_t)S->imm
                          : (srow[l] >> ssh) & 0xffff;
         smask &= load ? sall : sall & r->cov[l];
         unsigned px = bx + quad_dx(l), py = by + quad_dy(l);
         if (!smask || px >= fp->uw || py >= fp->uh)
            continue;
         if (load) {
            /* loads read the first selected sample */
            off[n] = (size_t)sidx(fp, px, py, (unsigned)__builtin_ctz(smask)) * fp->ss + O;
            lane[n++] = (uint8_t)l;
            continue;
         }
         for (unsigned smp = 0; smp < fp->samples; smp++) {
            if (!(smask >> smp & 1))
               continue;
            off[n] = (size_t)sidx(fp, px, py, smp) * fp->ss + O;
            lane[n++] = (uint8_t)l;
         }
      }
      /* RGBA8 (u8norm, the four components in four consecutive bytes):
       * the pixels move whole between the tilebuffer and a dense copy
       * (px[i] = the 4 bytes at off[i]), which the per-component calls
       * convert from / into, instead of four scattered byte accesses per
       * sample. The accesses stay inside the sample and distinct samples
       * do not overlap, so the tilebuffer ends up with the same bytes. */
      /* Every lane one access (loads read one sample; single-sample
       * stores): the entries are lanes 0-31 in order, so the register
       * rows move as whole 32-lane rows (loops the compiler vectorises). */
      bool dense = n == 32 && (load || fp->samples == 1);
      bool whole = F == HW_TEX_MEM_U8NORM && mask == 0xf;
      uint8_t px[32 * HWR_MAX_SAMPLES][4];
      size_t poff[32 * HWR_MAX_SAMPLES];
      if (whole) {
         for (unsigned i = 0; i < n; i++)
            poff[i] = (size_t)i * 4;
         if (load)
            for (unsigned i = 0; i < n; i++)
               memcpy(px[i], r->t->tb + off[i], 4);
      }
      unsigned k = 0;
      for (unsigned c = 0; c < 4 && n; c++) {
         if (!(mask >> c & 1))
            continue;
         uint8_t *base = whole ? &px[0][c] : r->t->tb + (packed ? 0 : c * bytes);
         const size_t *at = whole ? poff : off;
         uint32_t *rw = row[k];
         uint32_t hm = 0xffffu << sh[k];
         if (load) {
            hw_tex_tile_load_comps(F, c, base, at, val, n, r16);
            if (dense && r16)
               for (unsigned i = 0; i < 32; i++)
                  rw[i] = (rw[i] & ~hm) | (val[i] & 0xffff) << sh[k];
            else if (dense)
               memcpy(rw, val, 32 * 4);
            else if (r16)
               for (unsigned i = 0; i < n; i++)
                  rw[lane[i]] = (rw[lane[i]] & ~hm) | (val[i] & 0xffff) << sh[k];
            else
               for (unsigned i = 0; i < n; i++)
                  rw[lane[i]] = val[i];
         } else {
            if (dense && r16)
               for (unsigned i = 0; i < 32; i++)
                  val[i] = (rw[i] >> sh[k]) & 0xffff;
            else if (dense)
               memcpy(val, rw, 32 * 4);
            else if (r16)
               for (unsigned i = 0; i < n; i++)
                  val[i] = (rw[lane[i]] >> sh[k]) & 0xffff;
            else
               for (unsigned i = 0; i < n; i++)
                  val[i] = rw[lane[i]];
            hw_tex_tile_store_comps(F, c, base, at, val, n, r16);
         }
         k++;
      }
      if (whole && !load)
         for (unsigned i = 0; i < n; i++)
            memcpy(r->t->tb + off[i], px[i], 4);
      return HW_USC_OK;
   }
   for (unsigned l = 0; l < 32; l++) {
      if (!(exec >> l & 1))
         continue;
      uint32_t smask = S->type == AGX_OPERAND_IMM ? (uint32_t)S->imm
                       : (srow[l] >> ssh) & 0xffff;
      smask &= (1u << fp->samples) - 1;
      if (!load)
         smask &= r->cov[l];
      unsigned px, py;
      if (!lane_tile_xy(r, l, &px, &py))
         continue;
      for (unsigned smp = 0; smp < fp->samples; smp++) {
         if (!(smask >> smp & 1))
            continue;
         size_t base = (size_t)sidx(fp, px, py, smp) * fp->ss + O;
         unsigned k = 0;
         for (unsigned c = 0; c < 4; c++) {
            if (!(mask >> c & 1))
               continue;
            size_t at = base + (packed ? 0 : c * bytes);
            if (oob[c]) {
               snprintf(r->err, sizeof(r->err), "tilebuffer access at offset %u "
                        "past the %u-byte sample", O, fp->ss);
               return HW_USC_OUT_OF_BOUNDS;
            }
            uint8_t *p = r->t->tb + at;
            if (load) {
               /* (a put() of 0 first would be overwritten at once) */
               uint32_t v = hw_tex_tile_load_comp(F, c, p, r16);
               if (r16)
                  row[k][l] = (row[k][l] & ~(0xffffu << sh[k])) | (v & 0xffff) << sh[k];
               else
                  row[k][l] = v;
            } else {
               uint32_t v = r16 ? (row[k][l] >> sh[k]) & 0xffff : row[k][l];
               hw_tex_tile_store_comp(F, c, p, v, r16);
            }
            k++;
         }
         if (load)
            break;   /* loads read the first selected sample */
      }
   }
   return HW_USC_OK;
}

static void late_zs_test(struct fs_run *r, unsigned l);

static enum hw_usc_status
fs_hook(void *user, struct hw_usc_simd *s, const struct agx_instr *in,
        uint32_t exec)
{
   struct fs_run *r = user;
   /* (names_init ran in hwr_fragment_pass: this runs per instruction) */
   /* One SIMD group per launch: group index must be 0. */
   if (hw_usc_simd_index(s) != 0)
      exec = 0;
   switch (in->op) {
   case AGX_OP_ITER:
   case AGX_OP_ITERPROJ:
      return hw_render_frag_reference ? op_iter_ref(r, s, in, exec)
                                      : op_iter(r, s, in, exec);
   case AGX_OP_LDCF:
      return op_ldcf(r, s, in, exec);
   case AGX_OP_LDST_TILE:
      return op_tile(r, s, in, exec);
   case AGX_OP_WAIT_PIX:
   case AGX_OP_SIGNAL_PIX:
      /* A row's pixels are distinct and rows of one tile run in
       * primitive order, so raster order always holds. */
      return HW_USC_OK;
   case AGX_OP_SAMPLE_MASK: {
      const struct agx_operand *S = &in->operands[0], *M = &in->operands[1];
      if (!exec)
         return HW_USC_OK;
      /* hw_usc_simd_read16 with the rows looked up once */
      const uint32_t *srow = S->type == AGX_OPERAND_IMM ? NULL
                             : hw_usc_simd_row32(s, (S->value & 255) >> 1);
      const uint32_t *mrow = M->type == AGX_OPERAND_IMM ? NULL
                             : hw_usc_simd_row32(s, (M->value & 255) >> 1);
      unsigned ssh = (S->value & 1) * 16, msh = (M->value & 1) * 16;
      for (unsigned l = 0; l < 32; l++) {
         if (!(exec >> l & 1))
            continue;
         uint32_t sm = srow ? (srow[l] >> ssh) & 0xffff : (uint32_t)S->imm;
         uint32_t mv = mrow ? (mrow[l] >> msh) & 0xffff : (uint32_t)M->imm;
         /* Samples in S whose bit in M is 0 are killed; the others run
          * their tests. It never adds coverage: a helper lane (no
          * sample covered) stays one, or its stores would write the
          * pixels around a primitive's edge (Mesa's discard lowering
          * ends with `sample_mask ~0, ~0` on every lane). */
         r->cov[l] &= (uint8_t)~(sm & ~mv);
      }
      /* A lane left without coverage (discarded) is a helper from here on. */
      uint32_t helpers = hw_usc_simd_helpers(s);
      for (unsigned l = 0; l < 32; l++)
         helpers |= (uint32_t)((exec >> l & 1) && r->cov[l] == 0) << l;
      hw_usc_simd_set_helpers(s, helpers);
      return HW_USC_OK;
   }
   case AGX_OP_ZS_EMIT: {
      uint32_t z = fld(in, FLD_Z), sb = fld(in, FLD_ZS_S);
      const struct agx_operand *T = &in->operands[1];
      for (unsigned l = 0; l < 32 && (z || sb); l++) {
         if (!(exec >> l & 1))
            continue;
         /* The zs operand names 16-bit halves: the depth is the 32-bit
          * register holding halves T, T+1. Like any fragment depth it is
          * clamped to the buffer's [0, 1]. The stencil is the 16-bit
          * half after them (T + 2) when both are written, else half T;
          * its low 8 bits are the lane's stencil reference. */
         if (z) {
            float zv = tessera_uif(hw_usc_simd_read32(s, T->value / 2, l));
            r->zout[l] = fminf(fmaxf(zv, 0.0f), 1.0f);
            r->zset |= 1u << l;
         }
         if (sb) {
            r->sref[l] = (uint8_t)hw_usc_simd_read16(s, (T->value + (z ? 2 : 0)) & 255, l);
            r->sset |= 1u << l;
         }
         /* The ISP tests the emitted values now: samples that fail leave
          * the coverage, so later tilebuffer stores skip them. */
         if (r->late_z && !(r->tested >> l & 1))
            late_zs_test(r, l);
      }
      return HW_USC_OK;
   }
   case AGX_OP_TEXTURE_LOAD:
   case AGX_OP_TEXTURE_SAMPLE:
   case AGX_OP_IMAGE_WRITE:
   case AGX_OP_IMAGE_WRITE_BLOCK: {
      struct fpass *fp = r->t->fp;
      if (in->op == AGX_OP_TEXTURE_LOAD || in->op == AGX_OP_TEXTURE_SAMPLE)
         r->t->pe->c[HW_PROF_TEX_FETCHES] += tessera_popcount32(exec);
      struct hw_tex_tile tile = {
         .mem = r->t->tb, .size = r->t->tb_size, .width = fp->uw, .height = fp->uh,
         .samples = fp->samples, .sample_stride = fp->ss,
         .pixel_stride = fp->ss * fp->samples, .row_stride = fp->ss * fp->samples * fp->uw,
         .x0 = r->t->x0, .y0 = r->t->y0, .layer = r->t->layer,
      };
      return hwr_tex_op(r->pipe, r->t->j.pl->sampler_heap, s, in, exec, &tile,
                        r->t->j.prof ? r->t->pe : NULL,
                        r->err, sizeof(r->err));
   }
   default:
      snprintf(r->err, sizeof(r->err), "%s is not a fragment-stage instruction",
               agx_isa_op_name(in->op));
      return HW_USC_UNSUPPORTED;
   }
}

static void
fs_sr(void *user, unsigned simd, unsigned sr, uint32_t out[HW_USC_SIMD_WIDTH])
{
   struct fs_run *r = user;
   unsigned n = r->t->fp->samples;
   uint32_t log2 = n >= 4 ? 2 : n >= 2 ? 1 : 0;
   for (unsigned l = 0; l < 32; l++)
      out[l] = simd ? 0 : sr == HWR_SR_COVERAGE ? r->cov[l]
             : sr == HWR_SR_BACKFACING ? (r->p && r->p->h.back_facing)
             : sr == HWR_SR_SAMPLES_LOG2 ? log2 : 0;
}

/*
 * What the USC front end does before a pixel shader starts: each lane is
 * placed on its pixel (thread_position_in_grid = pixel coordinates),
 * r1l holds the lane's coverage mask, and quads with no coverage at all
 * start disabled.  Uncovered lanes of a covered quad run as helpers (for
 * derivatives); their tilebuffer stores write no samples.
 */
static void
fs_start(void *user, struct hw_usc_simd *s)
{
   struct fs_run *r = user;
   uint32_t off = 0;
   uint32_t *r1 = hw_usc_simd_row32(s, 1);   /* r1l = half 2 */
   r->iter_ctr = r->iter_jw = false;   /* a new launch: op_iter recomputes */
   uint32_t x[32], y[32];
   const uint32_t bx = r->gx - r->t->x0, by = r->gy - r->t->y0;
   /* Loops the compiler vectorises (this runs per 16x2 group: ~4 % of a
    * small-triangle replay when it went a lane at a time): the
    * positions from 32-bit tables, and the coverage from a local copy,
    * since stores to r1 may alias r->cov (bytes alias anything). */
   uint8_t cov[32];
   memcpy(cov, r->cov, sizeof(cov));
   for (unsigned l = 0; l < 32; l++) {
      x[l] = bx + quad_dx32_tab[l];
      y[l] = by + ((l >> 1) & 1);   /* quad_dy(l) */
   }
   for (unsigned l = 0; l < 32; l++)
      r1[l] = (r1[l] & 0xffff0000u) | cov[l];
   hw_usc_simd_set_positions(s, x, y, 0);
   /* quad q's four coverage bytes are word q of cov: no coverage at all
    * is a zero word */
   uint32_t qw[8];
   memcpy(qw, cov, sizeof(qw));
   for (unsigned q = 0; q < 8; q++)
      off |= (uint32_t)(qw[q] == 0) * (0xfu << (4 * q));
   hw_usc_simd_disable_lanes(s, off);
   /* The uncovered lanes of covered quads are helpers: their memory
    * writes are dropped. A 1-pixel-high target (a 1D array layer, Mesa's
    * PBO download of one) has the row below it in every quad; a store
    * from there lands in the next layer's row of the buffer, racing with
    * that layer's own tile on another host thread. */
   uint32_t helpers = 0;
   for (unsigned l = 0; l < 32; l++)
      helpers |= (uint32_t)(cov[l] == 0) << l;
   hw_usc_simd_set_helpers(s, helpers);
}

/* Runs `pipe` over one 16x2 group of the tile (origin r->gx, r->gy). */
static bool
run_group(struct tile *t, struct fs_run *r, const struct hwr_pipeline *pipe,
          uint64_t *cycles)
{
   struct fpass *fp = t->fp;
   struct hw_usc_launch L = {
      .instruction_budget = t->j.r->insn_budget,
      .shader = pipe->shader,
      .uniforms = pipe->uniforms,
      .gpr_count = pipe->gprs,
      .threads_per_threadgroup = { fp->uw, fp->uh, 1 },
      .vm_slot = t->j.ej->vm_slot,
      .stage_hook = fs_hook,
      .sr_hook = fs_sr,
      .start_hook = fs_start,
      .hook_user = r,
      .sampler_table = t->j.pl->sampler_heap,
   };
   struct hw_usc_workgroup wg = { .threadgroup_position = { t->ux, t->uy, t->layer },
                                  .threads = { GROUP_W, GROUP_H, 1 } };
   if (!hwr_stack(&t->j, &t->stack, &t->stack_size, pipe->shader, GROUP_W * GROUP_H, &wg))
      return false;
   struct hw_usc_stats st = { 0 };
   struct hw_usc_result res;
   r->pipe = pipe;
   if (hw_usc_run_workgroup(&L, &wg, &t->usc, &st, &res) != HW_USC_OK) {
      if (res.status == HW_USC_FAULT)
         return hwr_fault(&t->j, &t->usc);
      return hwr_fail(&t->j, "fragment shader at 0x%llx: %s%s%s",
                      (unsigned long long)res.pc, res.message,
                      r->err[0] ? ": " : "", r->err);
   }
   *cycles += st.cycles;
   t->pe->c[HW_PROF_FS_INSTRUCTIONS] += st.instructions;
   return true;
}

/* ------------------------------------------------------- state, CF */

static bool
load_state(struct tile *t, uint32_t off)
{
   if (t->st_valid && t->st->off == off)
      return true;
   struct hwr_job *j = &t->j;
   struct fstate *st = t->st;
   uint8_t b[AGX_TVB_STATE_LENGTH];
   if (!hwr_read(j, &t->isp, j->pl->tvb_heap + off, b, sizeof(b)))
      return false;
   memset(st, 0, sizeof(*st));
   st->off = off;
   if (!agx_tvb_state_unpack(b, &st->raw))
      return hwr_fail(j, "TVB state at +%u is malformed", off);
   agx_fragment_control_unpack(&st->raw.fragment_control, &st->fc);
   agx_fragment_control_2_unpack(&st->raw.fragment_control_2, &st->fc2);
   agx_fragment_face_unpack(&st->raw.front_face, &st->face[0]);
   agx_fragment_face_unpack(&st->raw.back_face, &st->face[1]);
   agx_fragment_stencil_unpack(&st->raw.front_stencil, &st->sten[0]);
   agx_fragment_stencil_unpack(&st->raw.back_stencil, &st->sten[1]);
   agx_depth_bias_scissor_unpack(&st->raw.depth_bias_scissor, &st->dbs);
   agx_cull_unpack(&st->raw.cull, &st->cull);
   agx_fragment_occlusion_query_unpack(&st->raw.occlusion_query, &st->oq);
   if (!st->fc.two_sided_stencil)
      st->sten[1] = st->sten[0];
   if (st->fc.depth_bias_enable) {
      uint8_t db[AGX_DEPTH_BIAS_LENGTH];
      if (!hwr_read(j, &t->isp, j->pl->isp_dbias_base +
                    (uint64_t)st->dbs.depth_bias * AGX_DEPTH_BIAS_LENGTH, db, sizeof(db)))
         return false;
      agx_depth_bias_unpack(db, &st->bias);
   }
   if (st->raw.has_shader) {
      agx_unpack(&st->raw.shader_word_0, FRAGMENT_SHADER_WORD_0, w0);
      agx_unpack(&st->raw.shader_word_1, FRAGMENT_SHADER_WORD_1, w1);
      agx_unpack(&st->raw.shader_word_2, FRAGMENT_SHADER_WORD_2, w2);
      st->nbind = w0.cf_binding_count;
      if (st->nbind) {
         uint8_t cb[AGX_CF_BINDING_HEADER_LENGTH + 127 * AGX_CF_BINDING_LENGTH];
         size_t sz = AGX_CF_BINDING_HEADER_LENGTH + st->nbind * AGX_CF_BINDING_LENGTH;
         if (!hwr_read(j, &t->isp, j->pl->usc_base + w2.cf_bindings, cb, sz))
            return false;
         for (unsigned i = 0; i < st->nbind; i++)
            agx_cf_binding_unpack(cb + AGX_CF_BINDING_HEADER_LENGTH + i * 4, &st->bind[i]);
      }
      if (!hwr_pipeline_load(j, &t->usc, (uint32_t)w1.pipeline, HWR_FRAGMENT, &st->pipe))
         return false;
      st->pipe.sampler_stride = hw_tex_sampler_stride(w0.sampler_state_register_count);
   }
   t->st_valid = true;
   return true;
}

/*
 * Planes through the vertices' unsnapped window positions (the TVB's):
 * coverage uses the 1/256-pixel grid (X, Y), but setting the planes up
 * from the snapped positions would move every varying by up to half a
 * grid step times its gradient (~0.003 texel for a texture coordinate),
 * enough to flip nearest-filtered texels that GL's plane equations,
 * llvmpipe and softpipe agree on (tests/gl/texture_fidelity.sh).
 */
static void
tri_plane(const struct prim *p, const float f[3], double ox, double oy, float out[3],
          float *c_bin)
{
   double x0 = p->g.v[0].x, y0 = p->g.v[0].y;
   double x1 = p->g.v[1].x - x0, y1 = p->g.v[1].y - y0;
   double x2 = p->g.v[2].x - x0, y2 = p->g.v[2].y - y0;
   double d = x1 * y2 - x2 * y1;
   double f1 = (double)f[1] - f[0], f2 = (double)f[2] - f[0];
   double a = d != 0 ? (f1 * y2 - f2 * y1) / d : 0;
   double b = d != 0 ? (f2 * x1 - f1 * x2) / d : 0;
   out[0] = (float)a;
   out[1] = (float)b;
   out[2] = (float)(f[0] - a * x0 - b * y0);
   *c_bin = (float)(f[0] - a * (x0 - ox) - b * (y0 - oy));
}

static void
line_plane(const struct prim *p, const float f[2], double ox, double oy, float out[3],
           float *c_bin)
{
   double ax = p->g.v[0].x, ay = p->g.v[0].y;
   double dx = p->g.v[1].x - ax, dy = p->g.v[1].y - ay;
   double l2 = dx * dx + dy * dy, df = (double)f[1] - f[0];
   double a = l2 > 0 ? df * dx / l2 : 0, b = l2 > 0 ? df * dy / l2 : 0;
   out[0] = (float)a;
   out[1] = (float)b;
   out[2] = (float)(f[0] - a * ax - b * ay);
   *c_bin = (float)(f[0] - a * (ax - ox) - b * (ay - oy));
}

/* The plane through the vertex values f, C at the window origin, and
 * *c_bin: its value at window position (ox, oy) (a bin corner). */
static void
make_plane_at(const struct prim *p, const float *f, double ox, double oy, float out[3],
              float *c_bin)
{
   if (p->h.type == AGX_TVB_PRIMITIVE_TYPE_TRIANGLE)
      tri_plane(p, f, ox, oy, out, c_bin);
   else if (p->h.type == AGX_TVB_PRIMITIVE_TYPE_LINE)
      line_plane(p, f, ox, oy, out, c_bin);
   else {
      out[0] = out[1] = 0;
      out[2] = *c_bin = f[0];
   }
}

static void
make_plane(const struct prim *p, const float *f, float out[3])
{
   float c_bin;
   make_plane_at(p, f, 0, 0, out, &c_bin);
}

/* The coefficient registers of primitive p (its varying planes) for the
 * tile. With planes false only the bindings are checked (the same
 * errors): a primitive whose shading is deferred (shade_defers) has its
 * planes set up again when resolve() shades it, and only then are they
 * read. */
static bool
setup_cf_planes(struct tile *t, struct prim *p, bool planes)
{
   const struct fstate *st = t->st;
   unsigned nv = p->h.vertices;
   /* setup_cf runs per tile, and a tile lies in one 32x32 bin (op_ldcf) */
   double ox = t->x0 & ~31u, oy = t->y0 & ~31u;
   p->ncf = 0;
   for (unsigned b = 0; b < st->nbind; b++) {
      const struct agx_cf_binding *cb = &st->bind[b];
      for (unsigned c = 0; c < cb->components; c++) {
         unsigned reg = cb->base_coefficient_register + c;
         if (reg >= HWR_MAX_CF)
            return hwr_fail(&t->j, "coefficient register %u is out of range", reg);
         float f[3] = { 0 }, *out = p->cf[reg];
         unsigned slot = cb->base_slot + c;
         if (!planes) {
            bool vary = cb->source != AGX_CF_SOURCE_FRAGCOORD_Z &&
                        cb->source != AGX_CF_SOURCE_BARYCENTRIC &&
                        cb->source != AGX_CF_SOURCE_POINT_COORD &&
                        cb->source != AGX_CF_SOURCE_PRIMITIVE_ID;
            if (vary && slot >= p->h.varyings)
               return hwr_fail(&t->j, "CF binding reads slot %u of %u", slot, p->h.varyings);
            continue;
         }
         switch (cb->source) {
         case AGX_CF_SOURCE_FRAGCOORD_Z:
            for (unsigned i = 0; i < nv; i++) f[i] = p->g.v[i].z;
            make_plane_at(p, f, ox, oy, out, &p->cf_bin[reg]);
            break;
         case AGX_CF_SOURCE_BARYCENTRIC:
            for (unsigned i = 0; i < nv; i++) f[i] = i == c ? 1.0f : 0.0f;
            make_plane_at(p, f, ox, oy, out, &p->cf_bin[reg]);
            break;
         case AGX_CF_SOURCE_POINT_COORD: {
            float sz = p->h.size > 0 ? p->h.size : 1.0f;
            float o = (c ? p->g.Y[0] : p->g.X[0]) / 256.0f - sz * 0.5f;
            out[0] = c == 0 ? 1.0f / sz : 0;
            out[1] = c == 1 ? 1.0f / sz : 0;
            out[2] = c < 2 ? -o / sz : 0;
            p->cf_bin[reg] = c < 2 ? (float)(((c ? oy : ox) - o) / sz) : 0;
            break;
         }
         case AGX_CF_SOURCE_PRIMITIVE_ID:
            out[0] = out[1] = 0;
            out[2] = p->cf_bin[reg] = tessera_uif(p->h.primitive_id);
            break;
         default:
            if (slot >= p->h.varyings)
               return hwr_fail(&t->j, "CF binding reads slot %u of %u", slot, p->h.varyings);
            switch (cb->shade_model) {
            case AGX_SHADE_MODEL_FLAT_VERTEX_0:
            case AGX_SHADE_MODEL_FLAT_VERTEX_1:
            case AGX_SHADE_MODEL_FLAT_VERTEX_2: {
               unsigned k = cb->shade_model == AGX_SHADE_MODEL_FLAT_VERTEX_0 ? 0
                          : cb->shade_model == AGX_SHADE_MODEL_FLAT_VERTEX_1 ? 1 : 2;
               /* Vertex 2 of a line is its last (Mesa's asahi driver
                * programs Flat Vertex 2 for every primitive type when the
                * last vertex provokes); of a point, its only one. */
               out[0] = out[1] = 0;
               out[2] = p->cf_bin[reg] = p->vary[k < nv ? k : nv - 1][slot];
               break;
            }
            case AGX_SHADE_MODEL_PERSPECTIVE:
               /* Values over w, for iterproj to divide by the
                * interpolated 1/w of slot 0 (bound Linear). */
               for (unsigned i = 0; i < nv; i++)
                  f[i] = p->vary[i][slot] * p->g.v[i].inv_w;
               make_plane_at(p, f, ox, oy, out, &p->cf_bin[reg]);
               break;
            default:
               for (unsigned i = 0; i < nv; i++) f[i] = p->vary[i][slot];
               make_plane_at(p, f, ox, oy, out, &p->cf_bin[reg]);
               break;
            }
         }
         if (reg + 1 > p->ncf)
            p->ncf = reg + 1;
      }
   }
   return true;
}


static bool
setup_cf(struct tile *t, struct prim *p)
{
   return setup_cf_planes(t, p, true);
}

/* Whether shade_prim defers the shading of a primitive drawn with st:
 * opaque geometry whose shader neither reads the tilebuffer nor sets the
 * sample mask (see shade_prim). */
static bool
shade_defers(const struct fstate *st)
{
   return st->raw.has_shader && st->pipe.shader && st->fc.pass_type == AGX_PASS_TYPE_OPAQUE &&
          !st->fc2.reads_tilebuffer && !st->fc2.sample_mask_from_shader;
}

/* The primitive at off into p.  With dec (a fast path), the decode kept
 * in it when p's bytes are still those it was made from (prim_dec). */
static bool
load_prim_dec(struct tile *t, uint32_t off, struct prim *p, const struct prim_dec *dec)
{
   struct hwr_job *j = &t->j;
   uint8_t *b = p->raw;
   if (!hwr_read(j, &t->isp, j->pl->tvb_heap + off, b, AGX_TVB_PRIMITIVE_LENGTH))
      return false;
   if (dec && hwr_fast_paths && !memcmp(b, dec->raw, AGX_TVB_PRIMITIVE_LENGTH)) {
      /* The header is the kept one: so are its vertex and varying
       * counts (checked when it was kept). */
      p->h = dec->h;
      p->off = off;
      unsigned nv = p->h.vertices;
      size_t vsz = AGX_TVB_VERTEX_LENGTH + 4 * (size_t)p->h.varyings;
      uint8_t all[3 * (AGX_TVB_VERTEX_LENGTH + 4 * HWR_MAX_SLOTS)];
      if (!hwr_read(j, &t->isp, j->pl->tvb_heap + off + AGX_TVB_PRIMITIVE_LENGTH, all,
                    nv * vsz))
         return false;
      for (unsigned i = 0; i < nv; i++) {
         memcpy(p->raw + AGX_TVB_PRIMITIVE_LENGTH + i * AGX_TVB_VERTEX_LENGTH, all + i * vsz,
                AGX_TVB_VERTEX_LENGTH);
         memcpy(p->vary[i], all + i * vsz + AGX_TVB_VERTEX_LENGTH, 4 * p->h.varyings);
      }
      if (!memcmp(p->raw, dec->raw, AGX_TVB_PRIMITIVE_LENGTH + nv * AGX_TVB_VERTEX_LENGTH)) {
         p->g = dec->g;
         t->j.cycles += (AGX_TVB_PRIMITIVE_LENGTH + nv * (16 + 4 * p->h.varyings)) >>
                        HWR_CYC_MEM_BYTE_SHIFT;
         return true;
      }
      /* Changed: decode from the start, with load_prim's own reads. */
   }
   if (!agx_tvb_primitive_unpack(b, &p->h) || p->h.vertices < 1 || p->h.vertices > 3 ||
       p->h.varyings > HWR_MAX_SLOTS)
      return hwr_fail(j, "TVB primitive at +%u is malformed", off);
   p->off = off;
   uint64_t va = j->pl->tvb_heap + off + AGX_TVB_PRIMITIVE_LENGTH;
   /* The vertices follow the header back to back: one read of all of
    * them instead of two per vertex (a primitive is loaded for every
    * tile it touches).  The reads are contiguous either way, so the
    * first faulting address, and the bytes, are the same. */
   size_t vsz = AGX_TVB_VERTEX_LENGTH + 4 * (size_t)p->h.varyings;
   uint8_t all[3 * (AGX_TVB_VERTEX_LENGTH + 4 * HWR_MAX_SLOTS)];
   bool one = hwr_fast_paths;
   if (one && !hwr_read(j, &t->isp, va, all, p->h.vertices * vsz))
      return false;
   for (unsigned i = 0; i < p->h.vertices; i++) {
      uint8_t vbuf[AGX_TVB_VERTEX_LENGTH];
      const uint8_t *vb = vbuf;
      if (one) {
         vb = all + i * vsz;
         memcpy(p->vary[i], vb + AGX_TVB_VERTEX_LENGTH, 4 * p->h.varyings);
      } else if (!hwr_read(j, &t->isp, va, vbuf, sizeof(vbuf)) ||
                 !hwr_read(j, &t->isp, va + sizeof(vbuf), p->vary[i], 4 * p->h.varyings)) {
         return false;
      }
      memcpy(p->raw + AGX_TVB_PRIMITIVE_LENGTH + i * AGX_TVB_VERTEX_LENGTH, vb,
             AGX_TVB_VERTEX_LENGTH);
      agx_tvb_vertex_unpack(vb, &p->g.v[i]);
      p->g.X[i] = hwr_snap256(p->g.v[i].x);
      p->g.Y[i] = hwr_snap256(p->g.v[i].y);
      va += vsz;
   }
   if (p->h.type == AGX_TVB_PRIMITIVE_TYPE_TRIANGLE)
      hwr_tri_setup(&p->g.e, p->g.X, p->g.Y);
   float zf[3] = { p->g.v[0].z, p->h.vertices > 1 ? p->g.v[1].z : 0, p->h.vertices > 2 ? p->g.v[2].z : 0 };
   make_plane(p, zf, p->g.zp);
   t->j.cycles += (AGX_TVB_PRIMITIVE_LENGTH + p->h.vertices * (16 + 4 * p->h.varyings)) >> HWR_CYC_MEM_BYTE_SHIFT;
   return true;
}

static bool
load_prim(struct tile *t, uint32_t off, struct prim *p)
{
   return load_prim_dec(t, off, p, NULL);
}

/* Keeps p's decode for resolve() (prim_dec). */
static void
prim_dec_keep(struct prim_dec *d, const struct prim *p)
{
   memcpy(d->raw, p->raw, AGX_TVB_PRIMITIVE_LENGTH + p->h.vertices * AGX_TVB_VERTEX_LENGTH);
   d->h = p->h;
   d->g = p->g;
}

/* ------------------------------------------------------- rasteriser */

/* Triangle coverage with the top-left rule on the 1/256 grid. */
static bool
tri_covers(const int64_t *X, const int64_t *Y, int64_t px, int64_t py)
{
   struct hwr_tri e;
   hwr_tri_setup(&e, X, Y);
   return hwr_tri_covers(&e, px, py);
}

/* hwr_tri_covers() at the point (px, py) + 256 * (quad_dx(l), quad_dy(l))
 * of every lane l of a 16x2 group, as a lane mask.  Each edge function is
 * evaluated at the start of each row and stepped by whole pixels (exact
 * integers); it is linear along the row, so a row whose two ends pass (or
 * fail) passes (fails) in every column, and only rows the edge crosses are
 * walked column by column. */
/* The lanes of a 16x2 group's row-0 pixels whose column bit is set in
 * cols (bit c: column c); shifted left by 2, those of row 1.  Column c is
 * lane (c / 2) * 4 + c % 2: each column pair moves to its own nibble. */
static uint32_t
group_row_lanes(uint32_t cols)
{
   uint32_t x = cols & 0xffffu;
   x = (x | (x << 8)) & 0x00ff00ffu;
   x = (x | (x << 4)) & 0x0f0f0f0fu;
   x = (x | (x << 2)) & 0x33333333u;
   return x;
}

static uint32_t
tri_group_cover(const struct prim *p, int64_t px, int64_t py)
{
   uint32_t m = 0xffffffffu;
   for (unsigned e = 0; e < 3 && m; e++) {
      /* covered iff E > 0, or E == 0 on a top-left edge: E >= thr */
      const int64_t thr = p->g.e.etl[e] ? 0 : 1;
      const int64_t sx = -p->g.e.edy[e] * 256;
      int64_t E = p->g.e.edx[e] * (py - p->g.e.eay[e]) - p->g.e.edy[e] * (px - p->g.e.eax[e]);
      uint32_t em = 0;
      for (unsigned y = 0; y < GROUP_H; y++, E += p->g.e.edx[e] * 256) {
         const int64_t last = E + sx * (GROUP_W - 1);
         uint32_t cols;   /* bit c: column c passes */
         if (E >= thr && last >= thr) {
            cols = (1u << GROUP_W) - 1;
         } else if (E < thr && last < thr) {
            cols = 0;
         } else if (sx > 0) {
            /* Rising along the row (E < thr <= last): columns from the
             * first c with E + c * sx >= thr, ceil((thr - E) / sx). */
            unsigned c0 = (unsigned)((thr - E + sx - 1) / sx);
            cols = ((1u << GROUP_W) - 1) & ~((1u << c0) - 1);
         } else {
            /* Falling (E >= thr > last): columns up to the last c with
             * E + c * sx >= thr, floor((E - thr) / -sx). */
            unsigned c1 = (unsigned)((E - thr) / -sx);
            cols = (2u << c1) - 1;
         }
         em |= group_row_lanes(cols) << (2 * y);
      }
      m &= em;
   }
   return m;
}

/* Whether some edge of the (set up) triangle is negative at all four
 * corners of [px0, px1] x [py0, py1]: then hwr_tri_covers() is false
 * at every point of the box. */
static bool
tri_misses_box(const struct prim *p, int64_t px0, int64_t px1, int64_t py0, int64_t py1)
{
   for (unsigned e = 0; e < 3; e++) {
      /* E = edx * (py - eay) - edy * (px - eax): take each term's max */
      int64_t a = p->g.e.edx[e] >= 0 ? p->g.e.edx[e] * (py1 - p->g.e.eay[e]) : p->g.e.edx[e] * (py0 - p->g.e.eay[e]);
      int64_t b = p->g.e.edy[e] >= 0 ? p->g.e.edy[e] * (px0 - p->g.e.eax[e]) : p->g.e.edy[e] * (px1 - p->g.e.eax[e]);
      if (a - b < 0)
         return true;
   }
   return false;
}

static bool
covers(const struct prim *p, int64_t px, int64_t py)
{
   switch (p->h.type) {
   case AGX_TVB_PRIMITIVE_TYPE_TRIANGLE:
      return hwr_tri_covers(&p->g.e, px, py);
   case AGX_TVB_PRIMITIVE_TYPE_POINT: {
      int64_t h = (int64_t)llrintf(p->h.size * 128.0f);
      return px >= p->g.X[0] - h && px < p->g.X[0] + h && py >= p->g.Y[0] - h && py < p->g.Y[0] + h;
   }
   default: {
      /* A line is the parallelogram of GL's (and Vulkan's non-strict)
       * wide lines: the segment swept along its minor axis by half its
       * width each way, ends perpendicular to the major axis. That is
       * the hardware's default line mode as Mesa's asahi Vulkan driver
       * reports it (strictLines and rectangularLines false; Bresenham is
       * the Cull word's Primitive MSAA mode, which neither GL driver
       * sets), and what llvmpipe draws. Two triangles sharing the
       * diagonal (no pixel is lit twice). */
      int64_t dx = p->g.X[1] - p->g.X[0], dy = p->g.Y[1] - p->g.Y[0];
      if (dx == 0 && dy == 0)
         return false;
      int64_t hw = (int64_t)llround(p->h.size * 128.0);
      bool xmajor = (dx < 0 ? -dx : dx) >= (dy < 0 ? -dy : dy);
      int64_t nx = xmajor ? 0 : hw, ny = xmajor ? hw : 0;
      int64_t QX[4] = { p->g.X[0] + nx, p->g.X[1] + nx, p->g.X[1] - nx, p->g.X[0] - nx };
      int64_t QY[4] = { p->g.Y[0] + ny, p->g.Y[1] + ny, p->g.Y[1] - ny, p->g.Y[0] - ny };
      int64_t A[3] = { QX[0], QX[1], QX[2] }, B[3] = { QY[0], QY[1], QY[2] };
      int64_t C[3] = { QX[0], QX[2], QX[3] }, D[3] = { QY[0], QY[2], QY[3] };
      return tri_covers(A, B, px, py) || tri_covers(C, D, px, py);
   }
   }
}

static inline bool
zs_func(enum agx_zs_func f, float a, float b)
{
   switch (f) {
   case AGX_ZS_FUNC_NEVER: return false;
   case AGX_ZS_FUNC_LESS: return a < b;
   case AGX_ZS_FUNC_EQUAL: return a == b;
   case AGX_ZS_FUNC_LEQUAL: return a <= b;
   case AGX_ZS_FUNC_GREATER: return a > b;
   case AGX_ZS_FUNC_NOT_EQUAL: return a != b;
   case AGX_ZS_FUNC_GEQUAL: return a >= b;
   default: return true;
   }
}

static uint8_t
sten_op(enum agx_stencil_op op, uint8_t s, uint8_t ref)
{
   switch (op) {
   case AGX_STENCIL_OP_ZERO: return 0;
   case AGX_STENCIL_OP_REPLACE: return ref;
   case AGX_STENCIL_OP_INCR_SAT: return s == 255 ? 255 : s + 1;
   case AGX_STENCIL_OP_DECR_SAT: return s == 0 ? 0 : s - 1;
   case AGX_STENCIL_OP_INVERT: return (uint8_t)~s;
   case AGX_STENCIL_OP_INCR_WRAP: return (uint8_t)(s + 1);
   case AGX_STENCIL_OP_DECR_WRAP: return (uint8_t)(s - 1);
   default: return s;
   }
}

static void
sten_write(uint8_t *s, uint8_t v, uint8_t wmask)
{
   *s = (uint8_t)((*s & ~wmask) | (v & wmask));
}

/* --------------------------------------------- hidden-surface removal */

/* A deferred primitive's samples in one 16x2 group: per lane, the
 * samples it owns (the coverage its shader runs with). */
struct dfr_ref {
   uint32_t prim, group;
   uint8_t cov[32];
};

/* Appends primitive prim's reference in group g to refs[0..*n), doubling
 * the array (*cap entries) when full; its coverage is the caller's to
 * set.  NULL, with the job failed, when out of host memory (refs and its
 * entries stay valid, for the caller to free). */
static inline struct dfr_ref *
dfr_ref_push(struct tile *t, struct dfr_ref **refs, size_t *cap, size_t *n,
             uint32_t prim, uint32_t g)
{
   if (*n == *cap) {
      struct dfr_ref *nr = realloc(*refs, 2 * *cap * sizeof(**refs));
      if (!nr) {
         hwr_fail(&t->j, "out of host memory");
         return NULL;
      }
      *refs = nr;
      *cap *= 2;
   }
   struct dfr_ref *r = &(*refs)[(*n)++];
   r->prim = prim;
   r->group = g;
   return r;
}

/* The index in refs[first..*n) of primitive prim's reference in group g
 * (a group holds at most one per primitive), appending one with no
 * coverage when there is none yet.  SIZE_MAX, with the job failed, when
 * out of host memory (as dfr_ref_push). */
static inline size_t
dfr_ref_find_or_push(struct tile *t, struct dfr_ref **refs, size_t *cap,
                     size_t *n, size_t first, uint32_t prim, uint32_t g)
{
   size_t k = first;
   while (k < *n && (*refs)[k].prim != prim)
      k++;
   if (k == *n) {
      struct dfr_ref *r = dfr_ref_push(t, refs, cap, n, prim, g);
      if (!r)
         return SIZE_MAX;
      memset(r->cov, 0, sizeof(r->cov));
   }
   return k;
}

/*
 * Shades the deferred opaque fragments: every primitive still owning a
 * sample runs its shader once per 16x2 group it owns samples in, with
 * exactly those samples as coverage.  Depth and stencil were written by
 * the ISP already.  Primitives are shaded in submission order (then
 * group order), the order in-order shading would have run them in, so
 * device stores made by the shaders keep their order.
 */
static inline void lanes_set_bit(uint8_t pass[32], uint32_t lanes, unsigned s);

static bool
resolve(struct tile *t)
{
   struct fpass *fp = t->fp;
   if (!t->ndfr)
      return true;
   unsigned gw = (t->w + GROUP_W - 1) / GROUP_W, gh = (t->h + GROUP_H - 1) / GROUP_H;
   size_t cap = 64, n = 0;
   struct dfr_ref *refs = malloc(cap * sizeof(*refs));
   bool ok = refs != NULL;
   if (!ok)
      return hwr_fail(&t->j, "out of host memory");
   /* One pass over the owners gathers every (primitive, group) with its
    * coverage, in group order. */
   for (unsigned g = 0; ok && g < gw * gh; g++) {
      unsigned gx = (g % gw) * GROUP_W, gy = (g / gw) * GROUP_H;
      size_t first = n;          /* this group's refs are refs[first..n) */
      uint32_t last = 0;
      size_t lastk = 0;
      /* One owner for every sample of the group inside the tile (inside
       * a primitive, or nothing deferred there): what the walk below
       * gathers, without it -- no reference, or one owning them all
       * (hwr_isp_general: the walk, the reference). */
      const unsigned cw = t->w - gx < GROUP_W ? t->w - gx : GROUP_W;
      const unsigned ch = t->h - gy < GROUP_H ? t->h - gy : GROUP_H;
      const uint32_t o0 = t->owner[sidx(fp, gx, gy, 0)];
      bool one = !hwr_isp_general;
      for (unsigned y = 0; one && y < ch; y++) {
         const uint32_t *orow = &t->owner[sidx(fp, gx, gy + y, 0)];
         uint32_t diff = 0;
         for (unsigned i = 0; i < cw * fp->samples; i++)
            diff |= orow[i] ^ o0;
         one = !diff;
      }
      if (one) {
         if (!o0)
            continue;
         struct dfr_ref *r = dfr_ref_push(t, &refs, &cap, &n, o0 - 1, g);
         if (!r) {
            ok = false;
            break;
         }
         for (unsigned l = 0; l < 32; l++)
            r->cov[l] = gx + quad_dx(l) < t->w && gy + quad_dy(l) < t->h
                           ? (uint8_t)((1u << fp->samples) - 1) : 0;
         continue;
      }
      if (!hwr_isp_general) {
         /* Several owners (small primitives): per sample, the group's
          * owners in lane order, then one pass over the lanes per
          * distinct owner. The walk below branches on every sample
          * (owned or not, same owner as the last or not) and
          * mispredicted on most of these groups. The refs differ from
          * the walk's only in their order inside the group, which the
          * sort by primitive below undoes: a group holds one ref per
          * primitive, so (primitive, group) orders them all. */
         const uint32_t *row[GROUP_H];
         for (unsigned y = 0; y < ch; y++)
            row[y] = &t->owner[sidx(fp, gx, gy + y, 0)];
         for (unsigned s = 0; ok && s < fp->samples; s++) {
            uint32_t ow[32], left = 0;
            for (unsigned l = 0; l < 32; l++) {
               const unsigned dx = quad_dx(l), dy = quad_dy(l);
               ow[l] = dx < cw && dy < ch ? row[dy][dx * fp->samples + s] : 0;
            }
            for (unsigned l = 0; l < 32; l++)
               left |= lane_bit_tab[l] & (0u - (uint32_t)(ow[l] != 0));
            while (left) {
               const uint32_t o = ow[__builtin_ctz(left)];
               uint32_t same = 0;
               for (unsigned l = 0; l < 32; l++)
                  same |= lane_bit_tab[l] & (0u - (uint32_t)(ow[l] == o));
               const size_t k = dfr_ref_find_or_push(t, &refs, &cap, &n,
                                                     first, o - 1, g);
               if (k == SIZE_MAX) {
                  ok = false;
                  break;
               }
               lanes_set_bit(refs[k].cov, same, s);
               left &= ~same;
            }
         }
         continue;
      }
      /* The reference (hwr_isp_general): sample by sample in lane order. */
      for (unsigned l = 0; ok && l < 32; l++) {
         unsigned px = gx + quad_dx(l), py = gy + quad_dy(l);
         if (px >= t->w || py >= t->h)
            continue;
         for (unsigned s = 0; s < fp->samples; s++) {
            uint32_t o = t->owner[sidx(fp, px, py, s)];
            if (!o)
               continue;
            /* most owned samples are the previous one's owner */
            size_t k = lastk;
            if (o != last) {
               k = dfr_ref_find_or_push(t, &refs, &cap, &n, first, o - 1, g);
               if (k == SIZE_MAX) {
                  ok = false;
                  break;
               }
               last = o;
               lastk = k;
            }
            refs[k].cov[l] |= (uint8_t)(1u << s);
         }
      }
   }
   /* Into (primitive, group) order: a stable counting sort by primitive
    * of the group-ordered list. */
   struct dfr_ref *sorted = NULL;
   uint32_t *start = NULL;
   if (ok && n > 1) {
      sorted = malloc(n * sizeof(*sorted));
      start = calloc((size_t)t->ndfr + 1, sizeof(*start));
      if (!sorted || !start) {
         ok = hwr_fail(&t->j, "out of host memory");
      } else {
         for (size_t i = 0; i < n; i++)
            start[refs[i].prim + 1]++;
         for (unsigned k = 0; k < t->ndfr; k++)
            start[k + 1] += start[k];
         for (size_t i = 0; i < n; i++)
            sorted[start[refs[i].prim]++] = refs[i];
         free(refs);
         refs = sorted;
         sorted = NULL;
      }
   }
   free(sorted);
   free(start);
   /* Profiling: each deferred primitive's work is its own draw's. */
   struct hw_prof_entry *caller_pe = t->pe;
   for (size_t i = 0; ok && i < n; i++) {
      struct prim *p = t->rp;
      uint64_t c0 = t->j.cycles;
      if (i == 0 || refs[i].prim != refs[i - 1].prim) {
         ok = load_prim_dec(t, t->dfr[refs[i].prim], p,
                            t->dec ? &t->dec[refs[i].prim] : NULL) &&
              load_state(t, p->h.state) &&
              setup_cf(t, p);
         if (!ok)
            break;
         if (t->j.prof)
            t->pe = hwr_prof_frag_entry(t->j.prof, t->worker, p->h.primitive_id);
      }
      unsigned g = refs[i].group;
      struct fs_run r;
      fs_run_init(&r, t, p, t->x0 + (g % gw) * GROUP_W, t->y0 + (g / gw) * GROUP_H);
      unsigned lanes = 0, owned = 0;
      memcpy(r.cov, refs[i].cov, sizeof(r.cov));
      for (unsigned l = 0; l < 32; l++) {
         lanes += r.cov[l] != 0;
         owned += tessera_popcount32(r.cov[l]);
      }
      uint64_t cyc = 0;
      ok = run_group(t, &r, &t->st->pipe, &cyc);
      t->j.cycles += cyc + (uint64_t)lanes * HWR_CYC_FRAGMENT;
      t->stats.fragments += lanes;
      /* shade_prim counted every deferred sample as hidden; the ones
       * still owned were not. */
      t->pe->c[HW_PROF_FRAGMENTS] += lanes;
      t->pe->c[HW_PROF_SAMPLES_HSR_HIDDEN] -= owned;
      if (t->j.prof) {
         t->pe->c[HW_PROF_FRAGMENT_CYCLES] += t->j.cycles - c0;
         t->charged += t->j.cycles - c0;
      }
   }
   t->pe = caller_pe;
   free(refs);
   memset(t->owner, 0, sizeof(*t->owner) * fp->uw * fp->uh * fp->samples);
   t->ndfr = 0;
   return ok;
}

/* The depth the ISP tests and writes for a sample: the primitive's plane
 * at the sample point, biased and clamped to [0, 1] (isp_sample_z, the
 * general path; isp_group_tri_f sums the same products). */
static inline float
isp_clamp_z(float z)
{
   /* The depth buffer holds [0, 1]: fragments are clamped.  Only zeros
    * and NaN need libm's choice (the sign of a zero); every other value
    * has one answer. */
   if (z >= 1.0f)
      z = 1.0f;
   else if (z < 0.0f)
      z = 0.0f;
   else if (!(z > 0.0f))
      z = fminf(fmaxf(z, 0.0f), 1.0f);
   return z;
}

static inline float
isp_sample_z(const struct prim *p, int64_t px, int64_t py, float bias)
{
   return isp_clamp_z(plane(p->g.zp, px / 256.0f, py / 256.0f) + bias);
}

bool hwr_isp_general;

/* A 16x2 group of a triangle for the ISP's early tests (isp_group_tri). */
struct isp_group {
   const struct prim *p;
   float *zbuf;                   /* the tile's depth */
   const uint16_t (*sp)[2];
   int64_t gx, gy;                /* group origin, absolute pixels */
   unsigned ns;                   /* samples per pixel */
   const unsigned *row;           /* sidx() of the group's rows, column 0 */
   const unsigned *loff;          /* sidx() of lane l's sample 0 - row[0] */
   float bias;
   bool need_z;                   /* zs[] is read later (test, write, late) */
   /* A deferred primitive (shade_prim's defer): passing samples are
    * written back here, depth when zwrite, owner = dfr_id, not to zs[]. */
   bool defer, zwrite;
   uint32_t *owner, dfr_id;
};

/* 1 << c, as a table so that per-column masks vectorise */
static const uint32_t isp_col_bit[GROUP_W] = {
   1u << 0, 1u << 1, 1u << 2, 1u << 3, 1u << 4, 1u << 5, 1u << 6, 1u << 7,
   1u << 8, 1u << 9, 1u << 10, 1u << 11, 1u << 12, 1u << 13, 1u << 14, 1u << 15,
};

/* pass[l] |= 1 << s for every lane l set in lanes, 8 lanes at a time:
 * the byte's bits spread to one per byte (bit i to byte i's bit 0). */
static inline void
lanes_set_bit(uint8_t pass[32], uint32_t lanes, unsigned s)
{
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
   for (uint32_t lm = lanes; lm; lm &= lm - 1)   /* byte i is not bits 8i.. */
      pass[__builtin_ctz(lm)] |= (uint8_t)(1u << s);
   return;
#endif
   for (unsigned k = 0; k < 4; k++) {
      uint64_t x = (lanes >> (8 * k)) & 0xffu;
      if (!x)
         continue;
      x = (x | x << 28) & 0x0000000f0000000full;
      x = (x | x << 14) & 0x0003000300030003ull;
      x = (x | x << 7) & 0x0101010101010101ull;
      uint64_t v;
      memcpy(&v, pass + 8 * k, 8);
      v |= x << s;
      memcpy(pass + 8 * k, &v, 8);
   }
}

/* The columns (bit c: column c) of the row-0 lanes set in lanes:
 * group_row_lanes() undone. */
static inline uint32_t
group_lanes_row(uint32_t lanes)
{
   uint32_t x = lanes & 0x33333333u;
   x = (x | (x >> 2)) & 0x0f0f0f0fu;
   x = (x | (x >> 4)) & 0x00ff00ffu;
   x = (x | (x >> 8)) & 0x0000ffffu;
   return x;
}

/* isp_group_rows()'s test of a fully covered row of one-sample pixels
 * (zb, ow: the row's depth and owners, column 0): the column loop's
 * operations for all 16 columns. Returns the passing columns. */
static inline __attribute__((always_inline)) uint32_t
isp_row_full(enum agx_zs_func f, const float zr[GROUP_W], float *zb, uint32_t *ow,
             uint32_t dfr_id, bool defer, bool zwrite)
{
   /* through local copies: zb and ow may alias each other for all the
    * compiler knows, which kept the loop scalar (the copies write back
    * what the loop would: unchanged values where a test fails) */
   float zo[GROUP_W];
   uint32_t oo[GROUP_W], okb[GROUP_W];
   memcpy(zo, zb, sizeof(zo));
   if (defer)
      memcpy(oo, ow, sizeof(oo));
   for (unsigned c = 0; c < GROUP_W; c++) {
      const float z = zr[c], zold = zo[c];
      const bool ok = zs_func(f, z, zold);
      if (defer) {
         if (zwrite)
            zo[c] = ok ? z : zold;
         oo[c] = ok ? dfr_id : oo[c];
      }
      okb[c] = isp_col_bit[c] & (0u - (uint32_t)ok);
   }
   if (defer) {
      if (zwrite)
         memcpy(zb, zo, sizeof(zo));
      memcpy(ow, oo, sizeof(oo));
   }
   uint32_t okm = 0;
   for (unsigned c = 0; c < GROUP_W; c++)
      okm |= okb[c];
   return okm;
}

/*
 * isp_group_tri_f()'s depth test of sample s's covered lanes m, one
 * depth row at a time: columns lo..hi of the row (its covered ones and
 * any between them), the depth of each (the same float sum and clamp as
 * the lane walk), then the test, write-back and lane bits.  The row's
 * samples are every ns-th float from row[r] + s. Returns false, having
 * changed nothing, when a covered depth is NaN or -0 before clamping
 * (isp_clamp_z gives those libm's answer; the caller's lane walk
 * handles them).
 */
static inline __attribute__((always_inline)) bool
isp_group_rows(const struct isp_group *g, enum agx_zs_func f, unsigned s, uint32_t m,
               const float ax[GROUP_W], const float by[GROUP_H], uint8_t pass[32],
               float zs[32][HWR_MAX_SAMPLES], uint32_t *pmask, uint64_t *nf)
{
   const float *zp = g->p->g.zp;
   const unsigned ns = g->ns;
   float zr[GROUP_H][GROUP_W];
   uint32_t cm[GROUP_H];
   unsigned lo[GROUP_H], hi[GROUP_H];
   uint32_t special = 0;
   const float zc = zp[2], bias = g->bias;
   for (unsigned r = 0; r < GROUP_H; r++) {
      cm[r] = group_lanes_row(m >> (2 * r));
      lo[r] = cm[r] ? (unsigned)__builtin_ctz(cm[r]) : 1;
      hi[r] = cm[r] ? 31u - (unsigned)__builtin_clz(cm[r]) : 0;
      /* Every column's depth, a fixed-count loop of selects that
       * vectorises (the lo..hi one did not); only columns lo..hi are
       * read, and only theirs count as special (the others are plain
       * float arithmetic, with no effect). */
      const float byr = by[r];
      uint32_t sp[GROUP_W];
      for (unsigned c = 0; c < GROUP_W; c++) {
         float z = ax[c] + byr + zc + bias;
         uint32_t u;
         memcpy(&u, &z, 4);
         sp[c] = isp_col_bit[c] & (0u - (uint32_t)((z != z) | (u == 0x80000000u)));
         zr[r][c] = z >= 1.0f ? 1.0f : z < 0.0f ? 0.0f : z;
      }
      uint32_t spr = 0;
      for (unsigned c = 0; c < GROUP_W; c++)
         spr |= sp[c];
      if (cm[r])
         special |= spr & ((2u << hi[r]) - (1u << lo[r]));
   }
   if (special)
      return false;
   for (unsigned r = 0; r < GROUP_H; r++) {
      if (!cm[r])
         continue;
      float *zb = g->zbuf + g->row[r] + s;
      uint32_t *ow = g->owner + g->row[r] + s;
      uint32_t okm = 0;
      if (ns == 1 && cm[r] == 0xffffu) {
         /* A fully covered row of one-sample pixels (most rows of large
          * triangles): the loop below over all 16 columns, contiguous,
          * with a fixed count and the deferral a constant, which
          * vectorises; then every lane of the row gets its depth. */
         if (!g->defer)
            okm = isp_row_full(f, zr[r], zb, ow, 0, false, false);
         else if (g->zwrite)
            okm = isp_row_full(f, zr[r], zb, ow, g->dfr_id, true, true);
         else
            okm = isp_row_full(f, zr[r], zb, ow, g->dfr_id, true, false);
         const uint32_t okl = group_row_lanes(okm) << (2 * r);
         *pmask |= okl;
         *nf += 16u - (unsigned)tessera_popcount32(okm);
         lanes_set_bit(pass, okl, s);
         if (!g->defer)
            for (unsigned c = 0; c < GROUP_W; c++)
               zs[(c >> 1) * 4 + 2 * r + (c & 1)][s] = zr[r][c];
         continue;
      }
      for (unsigned c = lo[r]; c <= hi[r]; c++) {
         const float z = zr[r][c], zold = zb[c * ns];
         const bool ok = (cm[r] >> c & 1) & zs_func(f, z, zold);
         if (g->defer) {
            /* columns between covered ones get their own values back */
            if (g->zwrite)
               zb[c * ns] = ok ? z : zold;
            ow[c * ns] = ok ? g->dfr_id : ow[c * ns];
         }
         okm |= (uint32_t)ok << c;
      }
      const uint32_t okl = group_row_lanes(okm) << (2 * r);
      *pmask |= okl;
      *nf += (unsigned)tessera_popcount32(cm[r]) - (unsigned)tessera_popcount32(okm);
      lanes_set_bit(pass, okl, s);
      if (!g->defer)
         for (uint32_t lm = group_row_lanes(cm[r]) << (2 * r); lm; lm &= lm - 1) {
            const unsigned l = (unsigned)__builtin_ctz(lm);
            zs[l][s] = zr[r][quad_dx(l)];
         }
   }
   return true;
}

/*
 * The early depth test of the covered samples of a triangle's group
 * without stencil: the general loop's tests in the same order of
 * operations, with the compare function `f` a constant (the callers
 * pass a literal so each function gets its own loop), the counters
 * summed in locals, the depth buffer indexed from per-row bases, no
 * depth computed when nothing will read it (ALWAYS/NEVER, no depth
 * write, early test), and a deferred primitive's passing samples
 * written back in the same walk.  cov[s]: the lanes sample s is
 * covered in.
 */
static inline __attribute__((always_inline)) uint32_t
isp_group_tri_f(const struct isp_group *g, enum agx_zs_func f, const uint32_t *cov,
                uint8_t pass[32], float zs[32][HWR_MAX_SAMPLES], uint64_t *n_cov,
                uint64_t *n_fail)
{
   uint32_t pmask = 0;
   uint64_t nc = 0, nf = 0;
   for (unsigned s = 0; s < g->ns; s++) {
      const uint32_t m = cov[s];
      const unsigned nm = tessera_popcount32(m);
      nc += nm;
      if (!g->need_z && (f == AGX_ZS_FUNC_NEVER || (f == AGX_ZS_FUNC_ALWAYS && !g->defer))) {
         if (f == AGX_ZS_FUNC_NEVER) {
            nf += nm;
            continue;
         }
         pmask |= m;
         for (uint32_t lm = m; lm; lm &= lm - 1)
            pass[__builtin_ctz(lm)] |= (uint8_t)(1u << s);
         continue;
      }
      /* isp_sample_z()'s products, once per column and row: its plane()
       * is (A * x + B * y) + C, then + bias, so the sum of the same
       * products in the same order is the same float.  The sample points
       * are below 2^24 (exact as floats) and fit 32 bits, whose
       * conversion rounds as the 64-bit one does and vectorises. */
      const float *zp = g->p->g.zp;
      float ax[GROUP_W], by[GROUP_H];
      for (unsigned c = 0; c < GROUP_W; c++)
         ax[c] = zp[0] * ((float)(int32_t)((g->gx + c) * 256 + g->sp[s][0]) / 256.0f);
      for (unsigned r = 0; r < GROUP_H; r++)
         by[r] = zp[1] * ((float)(int32_t)((g->gy + r) * 256 + g->sp[s][1]) / 256.0f);
      /* Row by row, when a quarter of the group or more is covered (the
       * lane walk is cheaper for a few lanes, in a replay's instruction
       * counts): a row's covered lanes are columns of one depth row
       * (the span rasteriser's make one run), walked as columns with
       * branch-free selects the compiler can vectorise. Unless a covered
       * sample's depth is NaN or -0 (isp_clamp_z's libm cases): then the
       * lane walk below, before anything is written. */
      if (nm >= 8 && isp_group_rows(g, f, s, m, ax, by, pass, zs, &pmask, &nf))
         continue;
      /* Most lanes covered: the sums for all of them, in lane order
       * (lane 4q + 2r + b is column 2q + b of row r), a loop the
       * compiler can vectorise; else per covered lane. */
      float zl[32];
      const bool dense = nm >= 16;
      if (dense) {
         for (unsigned q = 0; q < GROUP_W / 2; q++)
            for (unsigned k = 0; k < 4; k++)
               zl[4 * q + k] = ax[2 * q + (k & 1)] + by[k >> 1] + zp[2] + g->bias;
      }
      for (uint32_t lm = m; lm; lm &= lm - 1) {
         const unsigned l = (unsigned)__builtin_ctz(lm);
         const float z = isp_clamp_z(dense ? zl[l]
                                           : ax[quad_dx(l)] + by[quad_dy(l)] + zp[2] + g->bias);
         const unsigned i = g->row[0] + g->loff[l] + s;
         const float zold = g->zbuf[i];
         const bool ok = zs_func(f, z, zold);
         if (g->defer) {
            /* shade_prim's write-back of a deferred sample, now: no
             * other sample reads this one's depth or owner (stores of
             * the old values keep them, and avoid a branch) */
            if (g->zwrite)
               g->zbuf[i] = ok ? z : zold;
            g->owner[i] = ok ? g->dfr_id : g->owner[i];
         } else {
            zs[l][s] = z;
         }
         pass[l] |= (uint8_t)((unsigned)ok << s);
         pmask |= (uint32_t)ok << l;
         nf += !ok;
      }
   }
   *n_cov += nc;
   *n_fail += nf;
   return pmask;
}

static inline __attribute__((always_inline)) uint32_t
isp_group_tri_body(const struct isp_group *g, enum agx_zs_func f, const uint32_t *cov,
                   uint8_t pass[32], float zs[32][HWR_MAX_SAMPLES], uint64_t *n_cov,
                   uint64_t *n_fail)
{
#define ISP_F(F) case F: return isp_group_tri_f(g, F, cov, pass, zs, n_cov, n_fail)
   switch (f) {
   ISP_F(AGX_ZS_FUNC_NEVER);
   ISP_F(AGX_ZS_FUNC_LESS);
   ISP_F(AGX_ZS_FUNC_EQUAL);
   ISP_F(AGX_ZS_FUNC_LEQUAL);
   ISP_F(AGX_ZS_FUNC_GREATER);
   ISP_F(AGX_ZS_FUNC_NOT_EQUAL);
   ISP_F(AGX_ZS_FUNC_GEQUAL);
   default: return isp_group_tri_f(g, AGX_ZS_FUNC_ALWAYS, cov, pass, zs, n_cov, n_fail);
   }
#undef ISP_F
}

HWR_AVX2_COPIES(uint32_t, isp_group_tri,
                (const struct isp_group *g, enum agx_zs_func f, const uint32_t *cov,
                 uint8_t pass[32], float zs[32][HWR_MAX_SAMPLES], uint64_t *n_cov,
                 uint64_t *n_fail),
                (g, f, cov, pass, zs, n_cov, n_fail))

/*
 * The tests of a fragment whose shader writes depth or stencil, run when
 * the values are emitted (zs_emit) or, for a lane that never emitted them,
 * after the shader, once per lane: the stencil test with the emitted
 * reference when the shader writes stencil (else it ran before shading),
 * then the depth test with the emitted depth or the sample's own. Samples
 * that fail leave the lane's coverage and take the stencil fail or
 * depth-fail op; the depth-pass op and the depth write follow in
 * shade_prim.
 */
static void
late_zs_test(struct fs_run *r, unsigned l)
{
   struct tile *t = r->t;
   struct fpass *fp = t->fp;
   const struct fstate *st = t->st;
   unsigned face = r->p->h.back_facing ? 1 : 0;
   const struct agx_fragment_face *ff = &st->face[face];
   const struct agx_fragment_stencil *sf = &st->sten[face];
   uint8_t ref = (r->sset >> l & 1) ? r->sref[l] : (uint8_t)ff->stencil_reference;
   bool stencil = st->fc.stencil_test_enable;
   unsigned lx = r->gx + quad_dx(l) - t->x0, ly = r->gy + quad_dy(l) - t->y0;
   r->tested |= 1u << l;
   for (unsigned s = 0; s < fp->samples; s++) {
      if (!(r->cov[l] >> s & 1))
         continue;
      unsigned i = sidx(fp, lx, ly, s);
      if (stencil && r->late_s) {
         uint8_t rm = (uint8_t)sf->read_mask;
         if (!zs_func(sf->compare, (float)(ref & rm), (float)(t->s[i] & rm))) {
            r->cov[l] &= (uint8_t)~(1u << s);
            t->pe->c[HW_PROF_SAMPLES_ZS_FAIL]++;
            sten_write(&t->s[i], sten_op(sf->stencil_fail, t->s[i], ref), (uint8_t)sf->write_mask);
            continue;
         }
      }
      float z = (r->zset >> l & 1) ? r->zout[l] : r->zs[l][s];
      if (zs_func(ff->depth_function, z, t->z[i]))
         continue;
      r->cov[l] &= (uint8_t)~(1u << s);
      t->pe->c[HW_PROF_SAMPLES_ZS_FAIL]++;
      if (stencil)
         sten_write(&t->s[i], sten_op(sf->depth_fail, t->s[i], ref), (uint8_t)sf->write_mask);
   }
}

static bool
shade_prim(struct tile *t, struct prim *p)
{
   struct fpass *fp = t->fp;
   const struct fstate *st = t->st;
   unsigned face = p->h.back_facing ? 1 : 0;
   const struct agx_fragment_face *ff = &st->face[face];
   const struct agx_fragment_stencil *sf = &st->sten[face];
   uint8_t ref = (uint8_t)ff->stencil_reference;
   bool stencil = st->fc.stencil_test_enable;
   const uint16_t (*sp)[2] = positions(fp->samples);
   struct hw_prof_entry *pe = t->pe;
   /*
    * Opaque geometry whose shader neither reads the tilebuffer nor sets
    * the sample mask (Fragment Control 2 says which: Mesa's asahi driver
    * blends in the shader and keeps Pass Type Opaque) has its visibility
    * resolved by the ISP before shading: depth/stencil are written now
    * and the sample's owner becomes this primitive, so a fragment hidden
    * later is never shaded.  Anything else with a shader is shaded in
    * submission order, after the deferred fragments before it are
    * resolved: a blend must see every fragment under it.
    */
   bool shaded = st->raw.has_shader && st->pipe.shader;
   bool defer = shade_defers(st);
   /* A shader that writes depth is depth-tested with the value it emits
    * (late), not the interpolated one: before shading only coverage and
    * stencil count. (Opaque is the driver's promise it does not.) */
   /* One that writes stencil gives the stencil reference (GL's
    * ARB_shader_stencil_export; u_blitter copies stencil that way): the
    * stencil test waits for it, and the depth test, which follows it,
    * too. */
   bool late_s = shaded && !defer && hw_usc_shader_writes_stencil(st->pipe.shader);
   bool late_z = late_s || (shaded && !defer && hw_usc_shader_writes_depth(st->pipe.shader));
   uint32_t dfr_id = 0;
   if (shaded && !defer && t->ndfr) {
      if (!resolve(t) || !load_state(t, p->h.state))
         return false;
   }
   if (defer) {
      if (t->ndfr == t->dfr_cap) {
         unsigned nc = t->dfr_cap ? 2 * t->dfr_cap : 64;
         uint32_t *nd = realloc(t->dfr, nc * sizeof(*nd));
         if (!nd)
            return hwr_fail(&t->j, "out of host memory");
         t->dfr = nd;
         t->dfr_cap = nc;
         if (hwr_fast_paths && (t->dec || !t->ndfr)) {
            /* Without memory for it resolve() decodes again (for the
             * rest of the tile: entries before are not kept then). */
            struct prim_dec *dd = realloc(t->dec, nc * sizeof(*dd));
            if (!dd)
               free(t->dec);
            t->dec = dd;
         }
      }
      if (t->dec)
         prim_dec_keep(&t->dec[t->ndfr], p);
      t->dfr[t->ndfr] = p->off;
      dfr_id = ++t->ndfr;
   }
   bool owns = false;
   float bias = 0;
   if (st->fc.depth_bias_enable) {
      float slope = fmaxf(fabsf(p->g.zp[0]), fabsf(p->g.zp[1]));
      float constant = st->bias.bias;
      /* DBIAS_IS_INT: the constant counts steps of the depth format
       * (one unorm16 LSB, or 2^-24 with 32-bit float depth) rather
       * than depth units, as GL/Vulkan define it for fixed point. */
      if (t->j.pl->flags & HWR_FLAG_DBIAS_IS_INT)
         constant *= fp->zls.z_format == AGX_ZLS_FORMAT_16 ? 1.0f / 65535.0f
                                                           : 1.0f / 16777216.0f;
      bias = constant + st->bias.slope_scale * slope;
      if (st->bias.clamp > 0) bias = fminf(bias, st->bias.clamp);
      else if (st->bias.clamp < 0) bias = fmaxf(bias, st->bias.clamp);
   }
   /* Pixel rectangle of the primitive inside this tile. */
   int64_t minx = p->g.X[0], maxx = p->g.X[0], miny = p->g.Y[0], maxy = p->g.Y[0];
   for (unsigned i = 1; i < p->h.vertices; i++) {
      minx = minx < p->g.X[i] ? minx : p->g.X[i]; maxx = maxx > p->g.X[i] ? maxx : p->g.X[i];
      miny = miny < p->g.Y[i] ? miny : p->g.Y[i]; maxy = maxy > p->g.Y[i] ? maxy : p->g.Y[i];
   }
   int64_t pad = p->h.type == AGX_TVB_PRIMITIVE_TYPE_TRIANGLE ? 0 : (int64_t)(p->h.size * 128.0f) + 256;
   long x0 = (long)((minx - pad) >> 8), x1 = (long)((maxx + pad) >> 8);
   long y0 = (long)((miny - pad) >> 8), y1 = (long)((maxy + pad) >> 8);
   long tx0 = t->x0, ty0 = t->y0, tx1 = t->x0 + t->w - 1, ty1 = t->y0 + t->h - 1;
   if (st->raw.has_scissor) {
      uint8_t sb[AGX_SCISSOR_LENGTH];
      if (!hwr_read(&t->j, &t->isp, t->j.pl->isp_scissor_base +
                    ((uint64_t)st->dbs.scissor + p->h.viewport) * AGX_SCISSOR_LENGTH,
                    sb, sizeof(sb)))
         return false;
      agx_unpack(sb, SCISSOR, sc);
      if (tx0 < (long)sc.min_x) tx0 = sc.min_x;
      if (ty0 < (long)sc.min_y) ty0 = sc.min_y;
      if (tx1 > (long)sc.max_x - 1) tx1 = (long)sc.max_x - 1;
      if (ty1 > (long)sc.max_y - 1) ty1 = (long)sc.max_y - 1;
   }
   if (x0 < tx0) x0 = tx0;
   if (y0 < ty0) y0 = ty0;
   if (x1 > tx1) x1 = tx1;
   if (y1 > ty1) y1 = ty1;
   uint64_t passed_total = 0;
   if (x0 > x1 || y0 > y1) {
      if (defer)
         t->ndfr--;
      return true;
   }
   /* Groups of 16x2 pixels aligned to the tile; only pixels inside the
    * primitive's (clipped) rectangle are tested. */
   long gy0 = t->y0 + ((y0 - (long)t->y0) & ~(long)(GROUP_H - 1));
   long gx0 = t->x0 + ((x0 - (long)t->x0) & ~(long)(GROUP_W - 1));
   /* The sample offsets' extremes: a group whose box of sample points
    * lies outside one edge of a triangle covers nothing (the edge
    * function is linear, so its largest value is at a corner). */
   bool tri = p->h.type == AGX_TVB_PRIMITIVE_TYPE_TRIANGLE;
   int64_t spx0 = 255, spx1 = 0, spy0 = 255, spy1 = 0;
   for (unsigned s = 0; s < fp->samples; s++) {
      spx0 = sp[s][0] < spx0 ? sp[s][0] : spx0;
      spx1 = sp[s][0] > spx1 ? sp[s][0] : spx1;
      spy0 = sp[s][1] < spy0 ? sp[s][1] : spy0;
      spy1 = sp[s][1] > spy1 ? sp[s][1] : spy1;
   }
   /* Triangles without stencil take isp_group_tri(); everything else,
    * and every primitive when a test sets hwr_isp_general, the general
    * per-sample loop, the reference. */
   bool fast_isp = tri && !stencil && !hwr_isp_general;
   /* A late test runs after the shader: none now. */
   enum agx_zs_func zfunc = late_z ? AGX_ZS_FUNC_ALWAYS : ff->depth_function;
   struct isp_group isp = {
      .p = p, .zbuf = t->z, .sp = sp, .ns = fp->samples, .bias = bias, .loff = fp->lane_off,
      .defer = defer, .zwrite = !ff->disable_depth_write, .owner = t->owner, .dfr_id = dfr_id,
      .need_z = late_z || !ff->disable_depth_write ||
                (zfunc != AGX_ZS_FUNC_ALWAYS && zfunc != AGX_ZS_FUNC_NEVER),
   };
   /* Triangles find each row's covered span once (hwr_tri_row_span: a
    * few divisions per row and sample instead of edge tests per group),
    * then visit only the groups the spans reach; hwr_isp_general keeps
    * the per-group edge tests (tri_misses_box, tri_group_cover), the
    * reference. A group no span reaches is what tri_misses_box skips or
    * a group without coverage: only its raster count, which the span
    * path adds for the whole group row at once (the same sum). */
   const bool span = tri && !hwr_isp_general;
   /* per sample: the edge functions along the rectangle's left column,
    * from the first group row's first row on */
   struct hwr_tri_rows rows[HWR_MAX_SAMPLES];
   if (span)
      for (unsigned s = 0; s < fp->samples; s++)
         hwr_tri_rows_init(&rows[s], &p->g.e, (int64_t)x0 * 256 + sp[s][0],
                           (int64_t)gy0 * 256 + sp[s][1], x1 - x0 + 1);
   for (long gy = gy0; gy <= y1; gy += GROUP_H) {
      long gxa = gx0, gxb = x1;
      int64_t slo[HWR_MAX_SAMPLES][GROUP_H], shi[HWR_MAX_SAMPLES][GROUP_H];
      if (span) {
         long ny = (gy + GROUP_H - 1 < y1 ? gy + GROUP_H - 1 : y1) - (gy > y0 ? gy : y0) + 1;
         uint64_t npix = (uint64_t)ny * (uint64_t)(x1 - x0 + 1);
         t->j.cycles += npix * HWR_CYC_RASTER_PIXEL;
         pe->c[HW_PROF_PIXELS_RASTER] += npix;
         int64_t ulo = INT64_MAX, uhi = INT64_MIN;
         for (unsigned s = 0; s < fp->samples; s++) {
            for (unsigned r = 0; r < GROUP_H; r++, hwr_tri_rows_next(&rows[s])) {
               int64_t lo, hi;
               long y = gy + (long)r;
               if (y < y0 || y > y1 || !hwr_tri_rows_span(&rows[s], &lo, &hi)) {
                  slo[s][r] = 1;   /* empty */
                  shi[s][r] = 0;
                  continue;
               }
               slo[s][r] = x0 + lo;
               shi[s][r] = x0 + hi;
               ulo = slo[s][r] < ulo ? slo[s][r] : ulo;
               uhi = shi[s][r] > uhi ? shi[s][r] : uhi;
            }
         }
         if (ulo > uhi)
            continue;
         gxa = gx0 + ((long)(ulo - gx0) & ~(long)(GROUP_W - 1));
         gxb = (long)uhi;
      }
      for (long gx = gxa; gx <= gxb; gx += GROUP_W) {
         if (tri && !span && tri_misses_box(p, gx * 256 + spx0, (gx + GROUP_W - 1) * 256 + spx1,
                                   gy * 256 + spy0, (gy + GROUP_H - 1) * 256 + spy1)) {
            /* No sample of the group is covered: only the raster count
             * of its pixels inside the rectangle remains (below). */
            long cx = (gx + GROUP_W - 1 < x1 ? gx + GROUP_W - 1 : x1) - (gx > x0 ? gx : x0) + 1;
            long cy = (gy + GROUP_H - 1 < y1 ? gy + GROUP_H - 1 : y1) - (gy > y0 ? gy : y0) + 1;
            if (cx > 0 && cy > 0) {
               t->j.cycles += (uint64_t)(cx * cy) * HWR_CYC_RASTER_PIXEL;
               pe->c[HW_PROF_PIXELS_RASTER] += (uint64_t)(cx * cy);
            }
            continue;
         }
         uint8_t pass[32] = { 0 };
         uint32_t pmask = 0;   /* lanes with a passing sample */
         float zs[32][HWR_MAX_SAMPLES];
         /* Triangles: the lanes each sample is covered in, from the edge
          * functions at the group's origin stepped by whole pixels (the
          * same integers hwr_tri_covers() computes per point). */
         uint32_t tcov[HWR_MAX_SAMPLES], cand = 0xffffffffu;
         if (span) {
            cand = 0;
            for (unsigned s = 0; s < fp->samples; s++) {
               tcov[s] = 0;
               for (unsigned r = 0; r < GROUP_H; r++) {
                  int64_t a = slo[s][r] > gx ? slo[s][r] - gx : 0;
                  int64_t b = shi[s][r] < gx + GROUP_W - 1 ? shi[s][r] - gx : GROUP_W - 1;
                  if (a <= b)
                     tcov[s] |= group_row_lanes((2u << b) - (1u << a)) << (2 * r);
               }
               cand |= tcov[s];
            }
         } else if (tri) {
            cand = 0;
            for (unsigned s = 0; s < fp->samples; s++) {
               tcov[s] = tri_group_cover(p, gx * 256 + sp[s][0], gy * 256 + sp[s][1]);
               cand |= tcov[s];
            }
         }
         /* The lanes inside the rectangle all count as rasterised; only
          * those some sample may cover are tested (lanes are distinct
          * pixels, so their order does not matter). */
         long c0 = x0 > gx ? x0 - gx : 0, c1 = x1 < gx + GROUP_W - 1 ? x1 - gx : GROUP_W - 1;
         uint32_t cols = c0 <= c1 ? (uint32_t)((2u << c1) - (1u << c0)) : 0;
         uint32_t rect = (gy >= y0 && gy <= y1 ? group_row_lanes(cols) : 0) |
                         (gy + 1 >= y0 && gy + 1 <= y1 ? group_row_lanes(cols) << 2 : 0);
         if (!span) {
            unsigned nrect = tessera_popcount32(rect);
            t->j.cycles += (uint64_t)nrect * HWR_CYC_RASTER_PIXEL;
            pe->c[HW_PROF_PIXELS_RASTER] += nrect;
         }
         /* sidx() of the group's rows at column 0, sample 0: a lane's
          * samples follow at + quad_dx(l) * samples. */
         unsigned row[GROUP_H];
         for (unsigned r = 0; r < GROUP_H; r++)
            row[r] = sidx(fp, (unsigned)(gx - t->x0), (unsigned)(gy + r - t->y0), 0);
         if (fast_isp) {
            /* The common case, a triangle without stencil: the same tests,
             * per sample over the covered lanes (isp_group_tri). */
            uint32_t cov[HWR_MAX_SAMPLES];
            for (unsigned s = 0; s < fp->samples; s++)
               cov[s] = tcov[s] & rect;
            isp.gx = gx;
            isp.gy = gy;
            isp.row = row;
            uint64_t n_cov = 0, n_fail = 0;
            pmask = isp_group_tri(&isp, zfunc, cov, pass, zs, &n_cov, &n_fail);
            pe->c[HW_PROF_SAMPLES_COVERED] += n_cov;
            pe->c[HW_PROF_SAMPLES_ZS_FAIL] += n_fail;
            if (defer && pmask) {
               /* written back already; every covered sample passed or
                * failed the depth test (no stencil here) */
               uint64_t npass = n_cov - n_fail;
               owns = true;
               passed_total += npass;
               pe->c[HW_PROF_SAMPLES_HSR_HIDDEN] += npass;
               continue;
            }
         }
         for (uint32_t lm = fast_isp ? 0 : rect & cand; lm; lm &= lm - 1) {
            unsigned l = (unsigned)__builtin_ctz(lm);
            long x = gx + (long)quad_dx(l), y = gy + (long)quad_dy(l);
            for (unsigned s = 0; s < fp->samples; s++) {
               int64_t px = (int64_t)x * 256 + sp[s][0], py = (int64_t)y * 256 + sp[s][1];
               if (tri ? !(tcov[s] >> l & 1) : !covers(p, px, py))
                  continue;
               pe->c[HW_PROF_SAMPLES_COVERED]++;
               float z = isp_sample_z(p, px, py, bias);
               zs[l][s] = z;
               unsigned i = sidx(fp, (unsigned)(x - t->x0), (unsigned)(y - t->y0), s);
               uint8_t *sv = &t->s[i];
               if (stencil && !late_s) {
                  uint8_t rm = (uint8_t)sf->read_mask;
                  if (!zs_func(sf->compare, (float)(ref & rm), (float)(*sv & rm))) {
                     pe->c[HW_PROF_SAMPLES_ZS_FAIL]++;
                     sten_write(sv, sten_op(sf->stencil_fail, *sv, ref), (uint8_t)sf->write_mask);
                     continue;
                  }
               }
               if (!late_z && !zs_func(ff->depth_function, z, t->z[i])) {
                  pe->c[HW_PROF_SAMPLES_ZS_FAIL]++;
                  if (stencil)
                     sten_write(sv, sten_op(sf->depth_fail, *sv, ref), (uint8_t)sf->write_mask);
                  continue;
               }
               pass[l] |= (uint8_t)(1u << s);
               pmask |= 1u << l;
            }
         }
         if (!pmask)
            continue;
         if (defer) {
            uint64_t npass = 0;
            for (uint32_t lm = pmask; lm; lm &= lm - 1) {
               unsigned l = (unsigned)__builtin_ctz(lm);
               unsigned i0 = row[quad_dy(l)] + quad_dx(l) * fp->samples;
               npass += tessera_popcount32(pass[l]);
               for (unsigned sm = pass[l]; sm; sm &= sm - 1) {
                  unsigned s = (unsigned)__builtin_ctz(sm), i = i0 + s;
                  if (!ff->disable_depth_write)
                     t->z[i] = zs[l][s];
                  if (stencil)
                     sten_write(&t->s[i], sten_op(sf->depth_pass, t->s[i], ref), (uint8_t)sf->write_mask);
                  t->owner[i] = dfr_id;
               }
            }
            owns = true;          /* pmask: some sample passed */
            passed_total += npass;
            /* hidden until resolve() shades it */
            pe->c[HW_PROF_SAMPLES_HSR_HIDDEN] += npass;
            continue;
         }
         struct fs_run r;
         fs_run_init(&r, t, p, (unsigned)gx, (unsigned)gy);
         memcpy(r.cov, pass, sizeof(pass));
         r.late_z = late_z;
         r.late_s = late_s;
         r.zs = (const float (*)[HWR_MAX_SAMPLES])zs;
         uint64_t cyc = 0;
         if (st->raw.has_shader && st->pipe.shader) {
            if (!run_group(t, &r, &st->pipe, &cyc))
               return false;
            t->j.cycles += cyc;
         }
         if (shaded) {
            unsigned nfrag = tessera_popcount32(pmask);
            t->stats.fragments += nfrag;
            pe->c[HW_PROF_FRAGMENTS] += nfrag;
            t->j.cycles += (uint64_t)nfrag * HWR_CYC_FRAGMENT;
         }
         /* Only a depth or stencil write needs the samples one by one. */
         bool zs_write = !ff->disable_depth_write || stencil;
         if (fp->samples == 1 && !late_z && !stencil && !r.zset && !hwr_isp_general) {
            /* One sample, no late test, stencil or shader depth (blended
             * geometry: most of pulsar's): the loop below's count and
             * depth writes for the whole group, branch-free -- a lane's
             * one sample passed when the shader kept it, and a row's 16
             * depths are contiguous (the tile's buffer holds whole
             * groups: columns of failing lanes get their own values
             * back). hwr_isp_general keeps the loop below, the
             * reference (test_isp_fast_path). */
            uint32_t wm = 0;
            for (unsigned l = 0; l < 32; l++)
               wm |= (uint32_t)(r.cov[l] & pass[l] & 1u) << l;
            passed_total += tessera_popcount32(wm);
            if (!ff->disable_depth_write)
               for (unsigned gr = 0; gr < GROUP_H; gr++) {
                  float *zb = t->z + row[gr];
                  for (unsigned c = 0; c < GROUP_W; c++) {
                     const unsigned l = (c >> 1) * 4 + 2 * gr + (c & 1);
                     zb[c] = (wm >> l & 1) ? zs[l][0] : zb[c];
                  }
               }
            continue;
         }
         for (uint32_t lm = pmask; lm; lm &= lm - 1) {
            unsigned l = (unsigned)__builtin_ctz(lm);
            /* A lane that emitted nothing is tested with its own depth
             * and the state's stencil reference. */
            if (late_z && !(r.tested >> l & 1))
               late_zs_test(&r, l);
            uint8_t lpass = r.cov[l] & pass[l];
            if (!zs_write) {
               passed_total += tessera_popcount32(lpass);
               continue;
            }
            uint8_t lref = (r.sset >> l & 1) ? r.sref[l] : ref;
            unsigned i0 = row[quad_dy(l)] + quad_dx(l) * fp->samples;
            for (unsigned sm = lpass; sm; sm &= sm - 1) {
               unsigned s = (unsigned)__builtin_ctz(sm), i = i0 + s;
               if (!ff->disable_depth_write)
                  t->z[i] = (r.zset >> l & 1) ? r.zout[l] : zs[l][s];
               if (stencil)
                  sten_write(&t->s[i], sten_op(sf->depth_pass, t->s[i], lref), (uint8_t)sf->write_mask);
               passed_total++;
            }
         }
      }
   }
   if (defer && !owns)
      t->ndfr--;                  /* hidden already: never shaded */
   t->stats.samples_passed += passed_total;
   pe->c[HW_PROF_SAMPLES_PASSED] += passed_total;
   if (st->fc.visibility_mode != AGX_VISIBILITY_MODE_NONE && passed_total) {
      uint64_t va = t->j.pl->isp_oclqry_base + (uint64_t)st->oq.index * 8;
      uint64_t *q = hw_mmu_map(&t->isp, va, 8, true);
      if (!q)
         return hwr_fault(&t->j, &t->isp);
      if (st->fc.visibility_mode == AGX_VISIBILITY_MODE_COUNTING)
         __atomic_fetch_add(q, passed_total, __ATOMIC_RELAXED);
      else
         __atomic_store_n(q, 1, __ATOMIC_RELAXED);
   }
   return true;
}

/* ------------------------------------------------------- tile programs */

/* The stage instructions a launch-invariant background program may use:
 * tilebuffer stores (their lanes' pixels are fixed by the group, their
 * values by the program) and the raster-order waits (no effect here). */
static bool
bg_hook_ok(const struct agx_instr *in, void *user)
{
   (void)user;
   pthread_once(&names_once, names_init);
   if (in->op == AGX_OP_LDST_TILE)
      return fld(in, FLD_LOAD) == 0;
   return in->op == AGX_OP_WAIT_PIX || in->op == AGX_OP_SIGNAL_PIX;
}

/*
 * The reload background program. A partial render (and a pass that loads
 * its render target) starts each tile with a program that reads the
 * pixel's own texel of the render target and stores it unchanged into the
 * tilebuffer -- Mesa's asahi driver (agx_bg_eot.c) emits
 *
 *    get_sr      r0l, sr80          (thread_position_in_grid.x)
 *    get_sr      r0h, sr81          (.y)
 *    mov         r3, r0h
 *    mov         r2, r0l
 *    texture_load ... r0_r1_r2_r3, ts0, tex_2d, r2_r3, auto_lod
 *    wait        0
 *    st_tile     r0_r1_r2_r3, u8norm, 0, xyzw, 0, 255, 0
 *    stop
 *
 * Headless, its TVB heap overflows dozens of times a frame, and running
 * this per 16x2 group (launch, registers, hooks) was a third of the CPU
 * time of a replay. For such a program a whole group (every lane live,
 * covered and inside the tile) does exactly: texels (x, y) of the view
 * for the 32 lanes' pixels, as exec_load_lanes loads them
 * (hw_tex_load_lanes), each component's 32-bit result stored by st_tile's
 * format conversion (hw_tex_tile_store_comps) to the lane's selected
 * samples. bg_reload_group does that without the USC. Its time: the
 * program is straight-line and every lane of a whole group is live, so
 * each whole group costs the cycles and counts of the first one, which
 * runs normally (as the clear copy in tile_program does). The general
 * path (hw_render_frag_reference) stays the reference: the unit test
 * test_bg_reload_fast_exact compares tilebuffers and cycles.
 *
 * bg_reload_match accepts exactly that shape: position moves (get_sr of
 * sr80/sr81, 16- or 32-bit, and plain moves of them) building 32-bit
 * (x, y) in the texture_load's coordinate pair, then texture_load (2D,
 * level 0, no offset, compare or query, an indexed texture slot, 32-bit
 * results), the wait on its slot, st_tile of those registers (the same
 * components -- Mesa reloads an R8 target with mask x --, an immediate
 * sample mask, inside the sample) and stop.
 * Positions are below 2^15 (the largest render target is 16384 pixels),
 * so a 16-bit copy of one is the same value zero- or sign-extended.
 */
struct bg_reload {
   uint32_t F, O, smask;          /* st_tile format, byte offset, samples */
   uint32_t mask;                 /* components loaded and stored */
   unsigned bytes;                /* bytes of a component (packed: 1) */
   bool packed;
   struct hw_tex_view view;
   struct hw_mmu mmu;             /* the texture unit's view of memory */
   /* The load and store as a byte map (hw_tex_reload_map_init), when the
    * view and format have one: rows of texels instead of lanes. */
   bool mapped;
   struct hw_tex_reload_map map;
};

enum { RK_UNK, RK_X, RK_Y, RK_ZERO };

/* Kinds of 16-bit halves a plain register operand reads (a 16-bit one
 * zero-extended); false for anything but a GPR without modifiers. */
static bool
rk_read(const uint8_t *kind, const struct agx_operand *o, uint8_t out[2])
{
   if (o->type != AGX_OPERAND_REG || o->file != AGX_FILE_GPR || o->count != 1 ||
       (o->flags & ~(AGX_OPF_CACHE | AGX_OPF_DISCARD)))
      return false;
   if (o->size == 16) {
      out[0] = kind[o->value & 255];
      out[1] = RK_ZERO;
      return true;
   }
   if (o->size != 32)
      return false;
   out[0] = kind[(2u * o->value) & 255];
   out[1] = kind[(2u * o->value + 1) & 255];
   return true;
}

static bool
rk_write(uint8_t *kind, const struct agx_operand *o, const uint8_t v[2])
{
   if (o->type != AGX_OPERAND_REG || o->file != AGX_FILE_GPR || o->count != 1 ||
       (o->flags & ~(AGX_OPF_CACHE | AGX_OPF_DISCARD)))
      return false;
   if (o->size == 16) {
      kind[o->value & 255] = v[0];
      return true;
   }
   if (o->size != 32)
      return false;
   kind[(2u * o->value) & 255] = v[0];
   kind[(2u * o->value + 1) & 255] = v[1];
   return true;
}

static bool
ifield(const struct agx_instr *in, const char *name, uint32_t want)
{
   uint32_t v;
   return agx_instr_field(in, name, &v) && v == want;
}

static const struct agx_operand *
operand(const struct agx_instr *in, const char *name)
{
   for (unsigned i = 0; i < in->num_operands; i++) {
      const char *n = agx_isa_op_operand_name(in->op, i);
      if (n && !strcmp(n, name))
         return &in->operands[i];
   }
   return NULL;
}

/* Whether code[0, size) has the reload shape, for a pass of `samples`
 * samples of ss bytes: m's F, O, smask, mask, bytes and packed and the
 * texture slot *tex are set when it does. */
static bool
bg_reload_shape(const uint8_t *code, size_t size, unsigned samples, unsigned ss,
                struct bg_reload *m, uint32_t *tex_out)
{
   uint8_t kind[256];
   memset(kind, RK_UNK, sizeof(kind));
   enum { SETUP, LOADED, WAITED, STORED } stage = SETUP;
   uint32_t tex = 0, slot = 0, res = 0, mask = 0;
   for (size_t off = 0; off < size;) {
      struct agx_instr in;
      if (agx_isa_decode(code + off, size - off, &in) != AGX_ISA_OK)
         return false;
      off += in.length;
      if (stage == SETUP && in.op == AGX_OP_GET_SR) {
         const struct agx_operand *D = operand(&in, "D"), *SR = operand(&in, "SR");
         if (!D || !SR || SR->type != AGX_OPERAND_REG || (SR->value != 80 && SR->value != 81))
            return false;
         uint8_t v[2] = { SR->value == 80 ? RK_X : RK_Y, RK_ZERO };
         if (!rk_write(kind, D, v))
            return false;
      } else if (stage == SETUP && in.op == AGX_OP_BITOP) {
         /* tt 0b1010 with B = 0 (Mesa's mov), or 0b0011 / 0b1100: A */
         const struct agx_operand *D = operand(&in, "D"), *A = operand(&in, "A"),
                                  *B = operand(&in, "B");
         uint32_t tt;
         uint8_t v[2];
         if (!D || !A || !agx_instr_field(&in, "tt", &tt) || !rk_read(kind, A, v))
            return false;
         if (tt == 10 ? !(B && B->type == AGX_OPERAND_IMM && B->imm == 0)
                      : tt != 3 && tt != 12)
            return false;
         if (!rk_write(kind, D, v))
            return false;
      } else if (stage == SETUP && in.op == AGX_OP_TEXTURE_LOAD) {
         const struct agx_operand *R = operand(&in, "R"), *T = operand(&in, "T"),
                                  *C = operand(&in, "C"), *U = operand(&in, "U");
         if (!ifield(&in, "n", AGX_TEXTURE_DIMENSION_2D) || !ifield(&in, "lod", 0) ||
             !ifield(&in, "compare", 0) || !ifield(&in, "mode", 0) || !ifield(&in, "Ot", 0) ||
             !ifield(&in, "Tt", 0) || !agx_instr_field(&in, "mask", &mask) || !mask ||
             !ifield(&in, "kill", 0) || !ifield(&in, "q6", 0) ||
             !agx_instr_field(&in, "slot", &slot))
            return false;
         if (!R || R->type != AGX_OPERAND_REG || R->file != AGX_FILE_GPR || R->size != 32 ||
             R->count != (unsigned)__builtin_popcount(mask) || !T || T->type != AGX_OPERAND_REG || T->file != AGX_FILE_TEXTURE ||
             !C || C->type != AGX_OPERAND_REG || C->file != AGX_FILE_GPR || C->size != 32 ||
             C->count != 2 || (U && U->type == AGX_OPERAND_REG))
            return false;
         unsigned c = 2u * C->value;
         if (c + 3 > 255 || kind[c] != RK_X || kind[c + 1] != RK_ZERO || kind[c + 2] != RK_Y ||
             kind[c + 3] != RK_ZERO)
            return false;
         tex = T->value;
         res = R->value;
         stage = LOADED;
      } else if (stage == LOADED && in.op == AGX_OP_WAIT) {
         if (!ifield(&in, "i", slot))
            return false;
         stage = WAITED;
      } else if (stage == WAITED && in.op == AGX_OP_LDST_TILE) {
         const struct agx_operand *R = operand(&in, "R"), *S = operand(&in, "S");
         uint32_t F, O;
         /* the same components from the same registers: the k-th
          * selected component is register R + k in both */
         if (!ifield(&in, "load", 0) || !ifield(&in, "mask", mask) ||
             !ifield(&in, "explicit", 0) || !agx_instr_field(&in, "F", &F) ||
             !agx_instr_field(&in, "O", &O))
            return false;
         if (!R || R->type != AGX_OPERAND_REG || R->file != AGX_FILE_GPR || R->size != 32 ||
             R->count != (unsigned)__builtin_popcount(mask) || R->value != res || !S ||
             S->type != AGX_OPERAND_IMM)
            return false;
         m->mask = mask;
         m->F = F;
         m->O = O;
         m->smask = (uint32_t)S->imm & ((1u << samples) - 1);
         stage = STORED;
      } else if (stage == STORED && in.op == AGX_OP_STOP) {
         if (off != size)
            return false;
         /* st_tile's format and bounds as op_tile checks them: what it
          * refuses stays with it (the error is raised there). */
         if (!hw_tex_tile_fmt_bytes(m->F, &m->bytes))
            return false;
         m->packed = hw_tex_tile_fmt_packed(m->F);
         unsigned last = 31 - (unsigned)__builtin_clz(m->mask);
         if ((size_t)m->O + (m->packed ? 4 : (last + 1) * m->bytes) > ss)
            return false;
         *tex_out = tex;
         return true;
      } else {
         return false;
      }
   }
   return false;
}

/*
 * The last match a thread made: a partial render starts every tile with
 * the same reload program and view (~46 partial renders a frame on
 * glmark2's shading headless), and decoding the program, the descriptor
 * and tabulating the byte map per tile was a tenth of the replay. The
 * match is a function of the program's bytes, the pass's samples and
 * sample size and the descriptor's bytes (and the test switches), all
 * of which are compared: bytes read from memory per tile as before, only
 * their decoding is reused.
 */
struct bg_reload_cache {
   bool valid, shape;             /* key set; the code has the shape */
   bool have_view;                /* desc / view / mapped / map set */
   bool map_switch, tex_fast;     /* the switches the map was made under */
   size_t size;
   uint8_t code[96];
   unsigned samples, ss;
   uint32_t tex;
   uint8_t desc[HW_TEX_DESC_BYTES];
   struct bg_reload m;            /* the match (its mmu unused) */
};
static _Thread_local struct bg_reload_cache bg_cache;

static bool
bg_reload_match(struct tile *t, const struct hwr_pipeline *pipe, struct bg_reload *m)
{
   struct fpass *fp = t->fp;
   uint8_t code[96];
   size_t size = hw_usc_shader_bytes(pipe->shader);
   struct hw_mmu cm = t->usc;
   if (size > sizeof(code) || !hw_mmu_read(&cm, pipe->code_va, code, size))
      return false;
   struct bg_reload_cache *c = &bg_cache;
   uint32_t tex = 0;
   if (c->valid && c->size == size && c->samples == fp->samples && c->ss == fp->ss &&
       !memcmp(c->code, code, size)) {
      if (!c->shape)
         return false;
      tex = c->tex;
      memcpy(m, &c->m, sizeof(*m));
   } else {
      bool shape = bg_reload_shape(code, size, fp->samples, fp->ss, m, &tex);
      c->valid = true;
      c->shape = shape;
      c->have_view = false;
      c->size = size;
      memcpy(c->code, code, size);
      c->samples = fp->samples;
      c->ss = fp->ss;
      c->tex = tex;
      memcpy(&c->m, m, sizeof(*m));
      if (!shape)
         return false;
   }
   /* The view exec_load_lanes decodes (get_view); a descriptor that
    * faults or does not decode is the general path's to report. */
   uint8_t d[HW_TEX_DESC_BYTES];
   char err[96];
   m->mmu = t->usc;
   m->mmu.unit = HW_UNIT_TEX;
   memset(&m->mmu.fault, 0, sizeof(m->mmu.fault));
   struct hw_mmu dm = m->mmu;
   if (!hw_mmu_read(&dm, hwr_tex_address(pipe, t->j.pl->sampler_heap, tex), d, sizeof(d)))
      return false;
   if (c->have_view && !memcmp(c->desc, d, sizeof(d)) &&
       c->map_switch == hw_render_bg_reload_map && c->tex_fast == hw_tex_sample_fast_paths) {
      m->view = c->m.view;
      m->mapped = c->m.mapped;
      if (m->mapped)
         m->map = c->m.map;
      return true;
   }
   if (!hw_tex_view_decode(&m->view, d, err, sizeof(err)))
      return false;
   m->mapped = hw_render_bg_reload_map &&
               hw_tex_reload_map_init(&m->map, &m->view, m->F, m->mask);
   c->have_view = true;
   c->map_switch = hw_render_bg_reload_map;
   c->tex_fast = hw_tex_sample_fast_paths;
   memcpy(c->desc, d, sizeof(d));
   c->m.view = m->view;
   c->m.mapped = m->mapped;
   if (m->mapped)
      c->m.map = m->map;
   return true;
}

/* One whole group (every lane live and covered, every pixel inside the
 * tile) of a matched reload program, as the USC would run it: texels
 * loaded as exec_load_lanes does, each component's 32-bit result stored
 * as op_tile stores a lane's register to its selected samples. False
 * when a load faults: the group then runs normally, storing every byte
 * this may have stored, and reports the fault as always. */
static bool
bg_reload_group(struct tile *t, struct bg_reload *m, unsigned gx, unsigned gy)
{
   struct fpass *fp = t->fp;
   if (m->mapped) {
      /* The group's two rows of 16 pixels, each selected sample: lane l
       * loads texel (gx + quad_dx(l), gy + quad_dy(l)) of its own pixel,
       * so row r of the group is texels gx.. of row gy + r; component c
       * lands at byte O + c of the sample (one-byte components, or
       * srgba8's word). */
      size_t stride = (size_t)fp->samples * fp->ss;
      for (unsigned r = 0; r < GROUP_H; r++) {
         for (unsigned smp = 0; smp < fp->samples; smp++) {
            if (!(m->smask >> smp & 1))
               continue;
            uint8_t *d = t->tb + (size_t)sidx(fp, gx - t->x0, gy - t->y0 + r, smp) * fp->ss +
                         m->O;
            if (hw_tex_reload_row(&m->mmu, &m->map, (int32_t)gx, (int32_t)(gy + r), GROUP_W,
                                  d, stride) != HW_TEX_OK) {
               memset(&m->mmu.fault, 0, sizeof(m->mmu.fault));
               return false;
            }
         }
      }
      return true;
   }
   int32_t x[32], y[32];
   for (unsigned l = 0; l < 32; l++) {
      x[l] = (int32_t)(gx + quad_dx(l));
      y[l] = (int32_t)(gy + quad_dy(l));
   }
   union hw_texel out[32];
   uint32_t loaded;
   /* One MMU view for the tile's groups (the USC copies the group's per
    * texture instruction): its TLB only caches translations. */
   if (hw_tex_load_lanes(&m->mmu, &m->view, x, y, 0, 0, ~0u, out, &loaded) != HW_TEX_OK ||
       loaded != ~0u) {
      memset(&m->mmu.fault, 0, sizeof(m->mmu.fault));
      return false;
   }
   size_t off[32 * HWR_MAX_SAMPLES];
   uint8_t lane[32 * HWR_MAX_SAMPLES];
   unsigned n = 0;
   for (unsigned l = 0; l < 32; l++) {
      unsigned px = gx - t->x0 + quad_dx(l), py = gy - t->y0 + quad_dy(l);
      for (unsigned smp = 0; smp < fp->samples; smp++) {
         if (!(m->smask >> smp & 1))
            continue;
         off[n] = (size_t)sidx(fp, px, py, smp) * fp->ss + m->O;
         lane[n++] = (uint8_t)l;
      }
   }
   uint32_t val[32 * HWR_MAX_SAMPLES];
   for (unsigned c = 0; c < 4 && n; c++) {
      if (!(m->mask >> c & 1))
         continue;
      for (unsigned i = 0; i < n; i++)
         val[i] = out[lane[i]].u[c];
      hw_tex_tile_store_comps(m->F, c, t->tb + (m->packed ? 0 : c * m->bytes), off, val, n,
                              false);
   }
   return true;
}

static bool
tile_program(struct tile *t, uint32_t usc, bool eot)
{
   struct fpass *fp = t->fp;
   if (!usc)
      return true;
   struct hwr_pipeline *pipe = malloc(sizeof(*pipe));
   if (!pipe)
      return hwr_fail(&t->j, "out of host memory");
   bool ok = hwr_pipeline_load(&t->j, &t->usc, usc & ~63u,
                               eot ? HWR_EOT : HWR_TILE_PROGRAM, pipe);
   uint64_t cyc = 0;
   struct bg_reload *rl = NULL;
   if (ok && eot) {
      /* End of tile: one thread; thread_position_in_grid is the origin. */
      struct fs_run r = { .t = t, .gx = t->x0, .gy = t->y0 };
      r.cov[0] = (uint8_t)((1u << fp->samples) - 1);
      struct hw_usc_launch L = {
         .instruction_budget = t->j.r->insn_budget,
         .shader = pipe->shader, .uniforms = pipe->uniforms, .gpr_count = pipe->gprs,
         .threads_per_threadgroup = { fp->uw, fp->uh, 1 },
         .vm_slot = t->j.ej->vm_slot, .stage_hook = fs_hook, .sr_hook = fs_sr,
         .hook_user = &r,
      };
      struct hw_usc_workgroup wg = { .threadgroup_position = { t->ux, t->uy, t->layer },
                                     .threads = { 1, 1, 1 } };
      struct hw_usc_stats st = { 0 };
      struct hw_usc_result res;
      r.pipe = pipe;
      if (hw_usc_run_workgroup(&L, &wg, &t->usc, &st, &res) != HW_USC_OK)
         ok = res.status == HW_USC_FAULT ? hwr_fault(&t->j, &t->usc)
            : hwr_fail(&t->j, "end-of-tile program: %s%s%s", res.message,
                       r.err[0] ? ": " : "", r.err);
      cyc += st.cycles;
      t->pe->c[HW_PROF_FS_INSTRUCTIONS] += st.instructions;
   } else if (ok) {
      /* A background program that computes the same in every launch (a
       * clear: uniforms stored to the tilebuffer, no position, memory or
       * texture input) gives every whole group of the tile the same bytes,
       * since the tilebuffer starts zeroed: the first whole group runs, the
       * others copy its two tilebuffer rows and add its cycles and profile
       * counts. Edge groups (partial coverage) run as before. */
      bool invariant = hw_usc_shader_launch_invariant(pipe->shader, bg_hook_ok, NULL);
      /* A reload program (bg_reload_match): whole groups after the first
       * are loaded and stored in bulk, with the first one's time. Not
       * when profiling (the texture unit's per-format counts are kept
       * by hw_tex_execute) nor when the reference is asked for. */
      if (!invariant && hw_render_bg_reload_fast && !hw_render_frag_reference && !t->j.prof) {
         rl = malloc(sizeof(*rl));
         if (rl && !bg_reload_match(t, pipe, rl)) {
            free(rl);
            rl = NULL;
         } else if (rl && rl->mapped) {
            /* the texels of the whole tile start on their way while the
             * first group runs on the USC */
            hw_tex_reload_prefetch(&rl->mmu, &rl->map, (int32_t)t->x0, (int32_t)t->y0, t->w,
                                   t->h);
         }
      }
      bool have = false;
      uint64_t gcyc = 0, dprof[HW_PROF_NUM];
      size_t row = (size_t)GROUP_W * fp->samples * fp->ss;
      const uint8_t *src = NULL;
      /* A whole tile of whole groups of a launch-invariant program
       * (a clear): filled from its first group at once (below). */
      const bool fill = invariant && !hw_render_frag_reference && t->w == fp->uw &&
                        t->h == fp->uh && fp->uw % GROUP_W == 0 && fp->uh % GROUP_H == 0;
      bool filled = false;
      for (unsigned gy = t->y0; ok && !filled && gy < t->y0 + t->h; gy += GROUP_H) {
         for (unsigned gx = t->x0; ok && gx < t->x0 + t->w; gx += GROUP_W) {
            bool whole = (invariant || rl) && gx + GROUP_W <= t->x0 + t->w &&
                         gy + GROUP_H <= t->y0 + t->h &&
                         gx - t->x0 + GROUP_W <= fp->uw && gy - t->y0 + GROUP_H <= fp->uh;
            uint8_t *dst = t->tb + (size_t)sidx(fp, gx - t->x0, gy - t->y0, 0) * fp->ss;
            if (whole && have && rl) {
               if (bg_reload_group(t, rl, gx, gy)) {
                  cyc += gcyc;
                  for (unsigned k = 0; k < HW_PROF_NUM; k++)
                     t->pe->c[k] += dprof[k];
                  continue;
               }
               /* a fault: the group runs (and reports it) below */
            } else if (whole && have && fill) {
               /* Every group of the tile is whole, and the first one
                * (the tile's first two rows' first GROUP_W pixels) ran:
                * the others get its bytes by doubling copies -- its rows
                * across the tile's width, then the first two rows down
                * the tile -- instead of a copy per group, with the same
                * time and counts per group. The same bytes as the copy
                * per group below (test_bg_invariant_copy). */
               const size_t rs = (size_t)fp->uw * fp->samples * fp->ss;
               uint8_t *tb = t->tb;
               for (unsigned y = 0; y < GROUP_H; y++)
                  for (size_t have_b = row; have_b < rs;) {
                     size_t nb = have_b < rs - have_b ? have_b : rs - have_b;
                     memcpy(tb + y * rs + have_b, tb + y * rs, nb);
                     have_b += nb;
                  }
               const size_t all = rs * fp->uh;
               for (size_t have_b = rs * GROUP_H; have_b < all;) {
                  size_t nb = have_b < all - have_b ? have_b : all - have_b;
                  memcpy(tb + have_b, tb, nb);
                  have_b += nb;
               }
               const uint64_t rest = (uint64_t)(fp->uw / GROUP_W) * (fp->uh / GROUP_H) - 1;
               cyc += gcyc * rest;
               for (unsigned k = 0; k < HW_PROF_NUM; k++)
                  t->pe->c[k] += dprof[k] * rest;
               filled = true;
               break;
            } else if (whole && have) {
               for (unsigned y = 0; y < GROUP_H; y++)
                  memcpy(dst + (size_t)y * fp->uw * fp->samples * fp->ss,
                         src + (size_t)y * fp->uw * fp->samples * fp->ss, row);
               cyc += gcyc;
               for (unsigned k = 0; k < HW_PROF_NUM; k++)
                  t->pe->c[k] += dprof[k];
               continue;
            }
            struct fs_run r = { .t = t, .gx = gx, .gy = gy };
            for (unsigned l = 0; l < 32; l++)
               if (gx + quad_dx(l) < t->x0 + t->w && gy + quad_dy(l) < t->y0 + t->h)
                  r.cov[l] = (uint8_t)((1u << fp->samples) - 1);
            if (whole && !have) {
               uint64_t c0 = cyc;
               memcpy(dprof, t->pe->c, sizeof(dprof));
               ok = run_group(t, &r, pipe, &cyc);
               gcyc = cyc - c0;
               for (unsigned k = 0; k < HW_PROF_NUM; k++)
                  dprof[k] = t->pe->c[k] - dprof[k];
               src = dst;
               have = true;
            } else {
               ok = run_group(t, &r, pipe, &cyc);
            }
         }
      }
   }
   t->j.cycles += cyc;
   free(rl);
   free(pipe);
   return ok;
}

/* One ZLS buffer's part of a tile: pixel (x0 + x, y0 + y) of a twiddled
 * image is the texel at hw_tex_offset, its samples consecutive. A utile
 * aligned inside a page tile is usually one contiguous Morton range: then
 * it moves in one MMU access (straight between the mapped page and the
 * tile's array when the range is in one GPU page, else permuted through
 * `run`), else texel by texel. */
/* One ZLS texel (every sample of a pixel): fixed-size copies for the
 * usual sizes, which the compiler inlines (a libc call per pixel
 * otherwise). */
static inline void
zls_copy(uint8_t *dst, const uint8_t *src, unsigned bpp)
{
   switch (bpp) {
   case 1: *dst = *src; break;
   case 2: memcpy(dst, src, 2); break;
   case 4: memcpy(dst, src, 4); break;
   case 8: memcpy(dst, src, 8); break;
   case 16: memcpy(dst, src, 16); break;
   default: memcpy(dst, src, bpp); break;
   }
}

/* Moves the n texels of a utile between its pixel-order array px and
 * the Morton-ordered memory mem (texel i of px at mem + morton[i] * bpp),
 * with the copy size fixed per case so the compiler inlines it. Pixels
 * (2k, y) and (2k + 1, y) are neighbours in both (x takes the Morton
 * index's lowest bit), so an even-width utile moves in pairs. */
static void
zls_permute(uint8_t *mem, uint8_t *px, const uint16_t *morton, unsigned n, unsigned bpp,
            bool store, unsigned uw)
{
#define ZLS_PERMUTE(B, STEP)                                                \
   for (unsigned i = 0; i < n; i += (STEP)) {                              \
      uint8_t *m_ = mem + (size_t)morton[i] * (B), *p_ = px + (size_t)i * (B); \
      if (store)                                                           \
         memcpy(m_, p_, (size_t)(B) * (STEP));                             \
      else                                                                 \
         memcpy(p_, m_, (size_t)(B) * (STEP));                             \
   }
   switch (uw % 2 ? 0 : bpp) {
   case 1: ZLS_PERMUTE(1, 2) break;
   case 2: ZLS_PERMUTE(2, 2) break;
   case 4: ZLS_PERMUTE(4, 2) break;
   case 8: ZLS_PERMUTE(8, 2) break;
   case 16: ZLS_PERMUTE(16, 2) break;
   default: ZLS_PERMUTE(bpp, 1) break;
   }
#undef ZLS_PERMUTE
}

/* Morton index of (x, y) inside a 4x4 block: x takes bits 0 and 2. */
static const uint8_t morton4x4[16] = {
   0, 1, 4, 5, 2, 3, 6, 7, 8, 9, 12, 13, 10, 11, 14, 15,
};

/*
 * zls_permute() for 1- and 4-byte texels (S8 stencil, single-sample Z32F)
 * by 4x4 blocks: when every 4x4-aligned block of the utile is a run of 16
 * consecutive Morton texels (fp->morton4: the block's first texel at
 * morton[by * uw + bx], pixel (i, j) of it morton4x4[j * 4 + i] after it),
 * a block is its four rows' pairs in a fixed order -- for 4-byte texels
 * eight 8-byte moves to consecutive addresses, for 1-byte ones four
 * 32-bit words built from the rows' bytes -- instead of a table lookup and
 * a scattered 2-byte or 8-byte move per pixel pair. The same bytes as
 * zls_permute (test_zls_blocks_exact: the reference under
 * hw_render_frag_reference, loads and stores).
 */
static void
zls_permute_blocks(uint8_t *mem, uint8_t *px, const uint16_t *morton, unsigned uw,
                   unsigned uh, unsigned bpp, bool store)
{
   /* (row pointers as scalars: an array of them went through the stack
    * and its reload stalled on store forwarding once per block) */
   const size_t rs = (size_t)uw * bpp;
#define ZB_MOVE(M, P, N) (store ? memcpy((M), (P), (N)) : memcpy((P), (M), (N)))
   for (unsigned by = 0; by < uh; by += 4) {
      const uint16_t *mrow = morton + (size_t)by * uw;
      uint8_t *r0 = px + (size_t)by * rs;
      for (unsigned bx = 0; bx < uw; bx += 4, r0 += 4 * bpp) {
         uint8_t *m = mem + (size_t)mrow[bx] * bpp;
         uint8_t *r1 = r0 + rs, *r2 = r1 + rs, *r3 = r2 + rs;
         if (bpp == 4) {
            /* Morton pairs: rows 0/1 then 2/3, left pair then right */
            ZB_MOVE(m, r0, 8);
            ZB_MOVE(m + 8, r1, 8);
            ZB_MOVE(m + 16, r0 + 8, 8);
            ZB_MOVE(m + 24, r1 + 8, 8);
            ZB_MOVE(m + 32, r2, 8);
            ZB_MOVE(m + 40, r3, 8);
            ZB_MOVE(m + 48, r2 + 8, 8);
            ZB_MOVE(m + 56, r3 + 8, 8);
            continue;
         }
         /* 1-byte texels: word k of the block is the pairs 2k and 2k + 1
          * above, two bytes each (little-endian words) */
         uint32_t a, b, c, d, w0, w1, w2, w3;
         if (store) {
            memcpy(&a, r0, 4);
            memcpy(&b, r1, 4);
            memcpy(&c, r2, 4);
            memcpy(&d, r3, 4);
            w0 = (a & 0xffffu) | b << 16;
            w1 = a >> 16 | (b & 0xffff0000u);
            w2 = (c & 0xffffu) | d << 16;
            w3 = c >> 16 | (d & 0xffff0000u);
            memcpy(m, &w0, 4);
            memcpy(m + 4, &w1, 4);
            memcpy(m + 8, &w2, 4);
            memcpy(m + 12, &w3, 4);
         } else {
            memcpy(&w0, m, 4);
            memcpy(&w1, m + 4, 4);
            memcpy(&w2, m + 8, 4);
            memcpy(&w3, m + 12, 4);
            a = (w0 & 0xffffu) | w1 << 16;
            b = w0 >> 16 | (w1 & 0xffff0000u);
            c = (w2 & 0xffffu) | w3 << 16;
            d = w2 >> 16 | (w3 & 0xffff0000u);
            memcpy(r0, &a, 4);
            memcpy(r1, &b, 4);
            memcpy(r2, &c, 4);
            memcpy(r3, &d, 4);
         }
      }
   }
#undef ZB_MOVE
}

static bool
zls_buffer(struct tile *t, const struct hw_tex_layout *l, uint64_t base, bool store,
           uint8_t *px, unsigned bpp)
{
   struct fpass *fp = t->fp;
   struct hw_mmu *m = &t->isp;
   unsigned w = t->w, h = t->h;
   if (t->x0 + w > fp->zls_w)
      w = t->x0 < fp->zls_w ? fp->zls_w - t->x0 : 0;
   if (t->y0 + h > fp->zls_h)
      h = t->y0 < fp->zls_h ? fp->zls_h - t->y0 : 0;
   if (!w || !h)
      return true;   /* outside the ZLS buffer: nothing to load or store */
   /* The utile lies inside one layout tile (power-of-two tiles at least
    * the utile's size, the utile aligned to its size): pixel (x, y) of it
    * is the texel at its origin's offset + fp->morton[y * uw + x] (the
    * origin's Morton bits and the in-utile ones do not overlap), so no
    * per-pixel hw_tex_offset is needed. */
   const struct hw_tex_level *lv = &l->level[0];
   bool in_tile = fp->utile_run && lv->tile_w >= fp->uw && lv->tile_h >= fp->uh &&
                  !(lv->tile_w & (lv->tile_w - 1)) && !(lv->tile_h & (lv->tile_h - 1)) &&
                  !(fp->uw & (fp->uw - 1)) && !(fp->uh & (fp->uh - 1));
   uint64_t org = in_tile ? hw_tex_offset(l, t->x0, t->y0, 0, 0) : 0;
   /* A whole aligned utile: its pixels are the Morton run starting at its
    * origin's texel, in fp->morton order. */
   if (in_tile && w == fp->uw && h == fp->uh) {
      uint64_t va = base + org;
      size_t span = (size_t)w * h * bpp;
      /* In one GPU page (the usual case): moved straight between the
       * page and px. The one translation is the copy's (same address,
       * same access), so a fault is the copy's; on any failure the fault
       * state is put back and the copy below takes it. */
      if ((va >> HW_PAGE_SHIFT) == ((va + span - 1) >> HW_PAGE_SHIFT)) {
         struct hw_fault before = m->fault;
         uint8_t *mem = hw_mmu_map(m, va, span, store);
         if (mem) {
            if (fp->morton4 && (bpp == 1 || bpp == 4) && !hw_render_frag_reference)
               zls_permute_blocks(mem, px, fp->morton, fp->uw, fp->uh, bpp, store);
            else
               zls_permute(mem, px, fp->morton, w * h, bpp, store, fp->uw);
            t->j.cycles += span >> HWR_CYC_MEM_BYTE_SHIFT;
            return true;
         }
         m->fault = before;
      }
      uint8_t run[32 * 32 * 4 * 4];
      if (!store && !hwr_read(&t->j, m, va, run, span))
         return false;
      zls_permute(run, px, fp->morton, w * h, bpp, store, fp->uw);
      if (store && !hw_mmu_write(m, va, run, span))
         return hwr_fault(&t->j, m);
      t->j.cycles += span >> HWR_CYC_MEM_BYTE_SHIFT;
      return true;
   }
   uint64_t lo = UINT64_MAX, hi = 0;
   for (unsigned y = 0; y < h; y++)
      for (unsigned x = 0; x < w; x++) {
         uint64_t o = in_tile ? org + (uint64_t)fp->morton[y * fp->uw + x] * bpp
                              : hw_tex_offset(l, t->x0 + x, t->y0 + y, 0, 0);
         lo = o < lo ? o : lo;
         hi = o > hi ? o : hi;
      }
   size_t span = hi - lo + bpp;
   if (span == (size_t)w * h * bpp) {
      uint8_t run[32 * 32 * 4 * 4];
      if (!store && !hwr_read(&t->j, m, base + lo, run, span))
         return false;
      for (unsigned y = 0; y < h; y++)
         for (unsigned x = 0; x < w; x++) {
            size_t o = (in_tile ? org + (uint64_t)fp->morton[y * fp->uw + x] * bpp
                                : hw_tex_offset(l, t->x0 + x, t->y0 + y, 0, 0)) - lo;
            uint8_t *p = px + (size_t)(y * fp->uw + x) * bpp;
            if (store)
               zls_copy(run + o, p, bpp);
            else
               zls_copy(p, run + o, bpp);
         }
      if (store && !hw_mmu_write(m, base + lo, run, span))
         return hwr_fault(&t->j, m);
   } else {
      /* A utile cut by the buffer's edge (the last column or row of
       * tiles of a size that is not a multiple of the tile's): its
       * texels are scattered over the utile's Morton run. When they all
       * lie in one GPU page the page is mapped once and each texel
       * moved through the pointer, instead of a translation per texel.
       * The first texel the loop below accesses is pixel (0, 0), at lo
       * (Morton offset 0), the one mapped: a page that does not map
       * faults there either way, so on failure the fault state is put
       * back and the loop takes it. */
      if (in_tile && !m->log && !hw_render_frag_reference &&
          ((base + lo) >> HW_PAGE_SHIFT) == ((base + hi + bpp - 1) >> HW_PAGE_SHIFT)) {
         struct hw_fault before = m->fault;
         uint8_t *mem = hw_mmu_map(m, base + lo, span, store);
         if (mem) {
            for (unsigned y = 0; y < h; y++)
               for (unsigned x = 0; x < w; x++) {
                  uint8_t *q = mem + (org + (uint64_t)fp->morton[y * fp->uw + x] * bpp - lo);
                  uint8_t *p = px + (size_t)(y * fp->uw + x) * bpp;
                  if (store)
                     zls_copy(q, p, bpp);
                  else
                     zls_copy(p, q, bpp);
               }
            t->j.cycles += ((size_t)w * h * bpp) >> HWR_CYC_MEM_BYTE_SHIFT;
            return true;
         }
         m->fault = before;
      }
      for (unsigned y = 0; y < h; y++)
         for (unsigned x = 0; x < w; x++) {
            uint64_t va = base + (in_tile ? org + (uint64_t)fp->morton[y * fp->uw + x] * bpp
                                          : hw_tex_offset(l, t->x0 + x, t->y0 + y, 0, 0));
            uint8_t *p = px + (size_t)(y * fp->uw + x) * bpp;
            if (store ? !hw_mmu_write(m, va, p, bpp) : !hwr_read(&t->j, m, va, p, bpp))
               return store ? hwr_fault(&t->j, m) : false;
         }
   }
   t->j.cycles += ((size_t)w * h * bpp) >> HWR_CYC_MEM_BYTE_SHIFT;
   return true;
}

/* Depth/stencil load or store through the ZLS unit. The buffers are
 * twiddled (the hardware has no linear ZLS layout): Z32F or Z16 and S8,
 * all samples of a pixel together (docs/rendering.md, "ZLS"). */
static bool
zls(struct tile *t, bool store)
{
   struct fpass *fp = t->fp;
   const struct agx_fw_render_payload *pl = t->j.pl;
   bool z16 = fp->zls.z_format == AGX_ZLS_FORMAT_16;
   unsigned zb = z16 ? 2 : 4, n = fp->uw * fp->uh * fp->samples;
   bool do_z = pl->depth_base && (store ? (fp->zls.z_store_enable || fp->partial_eot)
                                        : (fp->zls.z_load_enable || fp->partial_bg));
   bool do_s = pl->stencil_base && (store ? (fp->zls.s_store_enable || fp->partial_eot)
                                          : (fp->zls.s_load_enable || fp->partial_bg));
   bool ok = true;
   t->isp.unit = HW_UNIT_ZLS;
   if (do_z && !z16) {
      /* Z32F: the tile's floats are the texels' bytes, pixel after pixel
       * with its samples together, as zls_buffer lays them out. */
      ok = zls_buffer(t, &fp->zl, pl->depth_base + (uint64_t)t->layer * pl->depth_stride,
                      store, (uint8_t *)t->z, zb * fp->samples);
   } else if (do_z) {
      uint8_t px[32 * 32 * 4 * 2];
      if (store) {
         for (unsigned k = 0; k < n; k++) {
            uint16_t v = (uint16_t)lrintf(hw_tex_clampf(t->z[k], 0, 1) * 65535.0f);
            memcpy(px + 2 * k, &v, 2);
         }
      }
      ok = zls_buffer(t, &fp->zl, pl->depth_base + (uint64_t)t->layer * pl->depth_stride,
                      store, px, zb * fp->samples);
      if (ok && !store) {
         unsigned w = t->w, h = t->h;
         for (unsigned y = 0; y < h; y++)
            for (unsigned k = 0; k < w * fp->samples; k++) {
               size_t i = sidx(fp, 0, y, 0) + k;
               uint16_t v;
               memcpy(&v, px + 2 * i, 2);
               t->z[i] = v / 65535.0f;
            }
      }
   }
   if (ok && do_s)
      ok = zls_buffer(t, &fp->sl, pl->stencil_base + (uint64_t)t->layer * pl->stencil_stride,
                      store, t->s, fp->samples);
   t->isp.unit = HW_UNIT_ISP;
   return ok;
}

/* The ZLS buffers of a pass. ISP ZLS Pixels holds (width - 1) in bits
 * 0-14 and (height - 1) in bits 15-29; the stride fields are the bytes
 * from one layer to the next: layer L of a layered pass loads and stores
 * at base + L x stride (zls()). Compressed buffers
 * (ZLS Control compress bits, comp_base) are stored as the texture unit
 * stores compressed images: every tile uncompressed in the twiddled body
 * (HW_TEX_COMPRESSION in hw/tex/hw_tex.h). */
static bool
zls_layouts(struct fpass *fp, const struct agx_fw_render_payload *pl)
{
   fp->zls_w = (pl->isp_zls_pixels & 0x7fff) + 1;
   fp->zls_h = ((pl->isp_zls_pixels >> 15) & 0x7fff) + 1;
   /* Square and 2:1 utiles are one Morton run (x takes the extra bit). */
   fp->utile_run = fp->uw <= 32 && fp->uh <= 32 &&
                   (fp->uw == fp->uh || fp->uw == 2 * fp->uh);
   for (unsigned y = 0; fp->utile_run && y < fp->uh; y++)
      for (unsigned x = 0; x < fp->uw; x++)
         fp->morton[y * fp->uw + x] = (uint16_t)hw_tex_morton(x, y);
   /* Checked on the table itself rather than assumed from the sizes. */
   fp->morton4 = fp->utile_run && fp->uw % 4 == 0 && fp->uh % 4 == 0;
   for (unsigned y = 0; fp->morton4 && y < fp->uh; y++)
      for (unsigned x = 0; x < fp->uw; x++)
         if (fp->morton[y * fp->uw + x] !=
             fp->morton[(y & ~3u) * fp->uw + (x & ~3u)] + morton4x4[(y & 3) * 4 + (x & 3)])
            fp->morton4 = false;
   bool z = pl->depth_base != 0, st = pl->stencil_base != 0;
   unsigned zb = fp->zls.z_format == AGX_ZLS_FORMAT_16 ? 2 : 4;
   if (z && !hw_tex_layout_twiddled(&fp->zl, zb * fp->samples, fp->zls_w, fp->zls_h, 1, 1, false))
      return hwr_fail(fp->j, "ZLS: depth buffer %ux%u x%u samples has no layout",
                      fp->zls_w, fp->zls_h, fp->samples);
   if (st && !hw_tex_layout_twiddled(&fp->sl, fp->samples, fp->zls_w, fp->zls_h, 1, 1, false))
      return hwr_fail(fp->j, "ZLS: stencil buffer %ux%u x%u samples has no layout",
                      fp->zls_w, fp->zls_h, fp->samples);
   return true;
}

static bool
render_tile(struct tile *t)
{
   struct fpass *fp = t->fp;
   const struct agx_fw_render_payload *pl = t->j.pl;
   unsigned n = fp->uw * fp->uh * fp->samples;
   memset(t->tb, 0, t->tb_size);
   /* ISP BG Obj Depth is in the ZLS format: float bits for Z32F, a unorm16
    * value for Z16 (Mesa's asahi GL and Vulkan drivers both program
    * _mesa_float_to_unorm(clear, 16) there for Z16 on the hardware). */
   float zc = fp->zls.z_format == AGX_ZLS_FORMAT_16
                 ? (float)(pl->isp_bg_obj_depth & 0xffff) / 65535.0f
                 : tessera_uif(pl->isp_bg_obj_depth);
   /* Two plain fills: the one loop storing through t->z and t->s (which
    * may alias t for all the compiler knows) reloaded both pointers per
    * sample and stayed scalar; it was a third of this function's time on
    * glmark2 gl-build. */
   float *z = t->z;
   for (unsigned i = 0; i < n; i++)
      z[i] = zc;
   memset(t->s, (uint8_t)pl->isp_bg_obj_vals, n);
   t->j.cycles += HWR_CYC_TILE;
   if (!zls(t, false))
      return false;
   if (!tile_program(t, fp->partial_bg ? pl->partial_bg_usc : pl->bg_usc, false))
      return false;
   /* The primitives of the 32x32 bin holding this tile, in order. */
   unsigned bx = t->x0 / HWR_BIN, by = t->y0 / HWR_BIN;
   uint8_t e[AGX_TVB_TILE_ENTRY_LENGTH];
   if (!hwr_read(&t->j, &t->isp, pl->tvb_tilemap +
                 (((uint64_t)t->layer * t->j.tiles_y + by) * t->j.tiles_x + bx) * sizeof(e),
                 e, sizeof(e)))
      return false;
   agx_unpack(e, TVB_TILE_ENTRY, te);
   uint32_t blk = te.head, left = te.count;
   struct prim *p = t->lp ? t->lp : malloc(sizeof(*p));
   if (!p)
      return hwr_fail(&t->j, "out of host memory");
   bool ok = true;
   while (ok && blk && left) {
      uint8_t b[HWR_LIST_BLOCK];
      if (blk + HWR_LIST_BLOCK > pl->tvb_heap_size) {
         ok = hwr_fail(&t->j, "TVB list block +%u is outside the heap", blk);
         break;
      }
      if (!hwr_read(&t->j, &t->isp, pl->tvb_heap + blk, b, sizeof(b))) { ok = false; break; }
      agx_unpack(b, TVB_LIST_BLOCK, lb);
      for (unsigned i = 0; ok && i < lb.count && i < HWR_LIST_REFS && left; i++, left--) {
         agx_unpack(b + AGX_TVB_LIST_BLOCK_LENGTH + 4 * i, TVB_PRIMITIVE_REFERENCE, ref);
         uint64_t c0 = t->j.cycles, a0 = t->charged;
         ok = load_prim(t, ref.offset, p);
         if (ok && t->j.prof)
            t->pe = hwr_prof_frag_entry(t->j.prof, t->worker, p->h.primitive_id);
         ok = ok && load_state(t, p->h.state) &&
              setup_cf_planes(t, p, !shade_defers(t->st)) && shade_prim(t, p);
         if (t->j.prof) {
            /* The primitive's work, less deferred primitives resolved
             * (and charged to their own draws) inside it. */
            uint64_t d = (t->j.cycles - c0) - (t->charged - a0);
            t->pe->c[HW_PROF_FRAGMENT_CYCLES] += d;
            t->charged += d;
            if (!t->pe->fs && t->st_valid && t->st->raw.has_shader)
               t->pe->fs = t->st->pipe.code_va;
            t->pe = t->povh;
         }
      }
      blk = lb.next;
      if (hw_exec_should_stop(t->j.ej)) {
         t->j.status = HW_EXEC_TIMEOUT;
         ok = false;
      }
   }
   if (p != t->lp)
      free(p);
   if (!ok || !resolve(t))
      return false;
   if (!tile_program(t, fp->partial_eot ? pl->partial_eot_usc : pl->eot_usc, true))
      return false;
   t->stats.tiles++;
   return zls(t, true);
}

static void
tile_bufs_free(struct tile_bufs *b)
{
   free(b->tb);
   free(b->z);
   free(b->s);
   free(b->owner);
   free(b->rp);
   free(b->lp);
   free(b->st);
   memset(b, 0, sizeof(*b));
}

static void
tile_item(void *ctx, unsigned worker, unsigned item)
{
   struct fpass *fp = ctx;
   struct tile *t = &fp->tiles[item];
   t->worker = worker;
   t->charged = 0;
   t->povh = t->j.prof ? hwr_prof_frag_overhead(t->j.prof, worker) : &t->none;
   t->pe = t->povh;
   if (hw_exec_should_stop(fp->j->ej)) {
      t->j.status = HW_EXEC_TIMEOUT;
      return;
   }
   const struct hw_render *rr = fp->j->r;
   if (rr->tile_stall_ms && t->layer == rr->tile_stall_layer) {
      /* in slices, so that a job's stop is not held up */
      for (unsigned ms = 0; ms < rr->tile_stall_ms && !hw_exec_should_stop(fp->j->ej); ms += 10)
         usleep(10000);
   }
   struct warm_tlb *w = fp->warm ? &fp->warm[worker] : NULL;
   if (w && w->valid) {
      memcpy(t->isp.tlb, w->isp, sizeof(w->isp));
      memcpy(t->usc.tlb, w->usc, sizeof(w->usc));
      t->isp.tlb_gen = w->isp_gen;
      t->usc.tlb_gen = w->usc_gen;
   }
   const size_t nsamp = (size_t)fp->uw * fp->uh * fp->samples;
   t->tb_size = nsamp * fp->ss;
   struct tile_bufs *b = fp->bufs ? &fp->bufs[worker] : NULL;
   if (b && !b->tb) {
      /* the worker's first tile of the pass: the set its tiles share */
      b->tb = malloc(t->tb_size ? t->tb_size : 1);
      b->z = malloc(sizeof(float) * nsamp);
      b->s = malloc(nsamp);
      b->owner = calloc(nsamp, sizeof(*b->owner));
      b->rp = malloc(sizeof(*b->rp));
      b->lp = malloc(sizeof(*b->lp));
      b->st = malloc(sizeof(*b->st));
      if (!b->tb || !b->z || !b->s || !b->owner || !b->rp || !b->lp || !b->st) {
         tile_bufs_free(b);   /* this tile allocates its own, below */
         b = NULL;
      }
   }
   if (b) {
      t->tb = b->tb;
      t->z = b->z;
      t->s = b->s;
      t->owner = b->owner;
      t->rp = b->rp;
      t->lp = b->lp;
      t->st = b->st;
   } else {
      /* The general path (and the reference): buffers of its own. */
      t->tb = malloc(t->tb_size ? t->tb_size : 1);
      t->z = malloc(sizeof(float) * nsamp);
      t->s = malloc(nsamp);
      t->owner = calloc(nsamp, sizeof(*t->owner));
      t->rp = malloc(sizeof(*t->rp));
      t->lp = NULL;
      t->st = malloc(sizeof(*t->st));
   }
   t->ndfr = 0;
   if (!t->tb || !t->z || !t->s || !t->owner || !t->rp || !t->st)
      hwr_fail(&t->j, "out of host memory");
   else
      render_tile(t);
   /* A tile that stopped before resolve() may leave owners behind; the
    * worker's next tile must find them zero, as calloc would. */
   if (b && (t->ndfr || t->j.status != HW_EXEC_OK))
      memset(t->owner, 0, sizeof(*t->owner) * nsamp);
   if (w) {
      memcpy(w->isp, t->isp.tlb, sizeof(w->isp));
      memcpy(w->usc, t->usc.tlb, sizeof(w->usc));
      w->isp_gen = t->isp.tlb_gen;
      w->usc_gen = t->usc.tlb_gen;
      w->valid = true;
   }
   /* What no primitive caused (setup, background and end-of-tile
    * programs, depth/stencil loads and stores) is the pass's overhead. */
   if (t->j.prof)
      t->povh->c[HW_PROF_FRAGMENT_CYCLES] += t->j.cycles - t->charged;
   if (!b) {
      free(t->tb);
      free(t->z);
      free(t->s);
      free(t->owner);
      free(t->rp);
      free(t->st);
   }
   free(t->dfr);
   free(t->dec);
   free(t->stack);
   t->stack = NULL;
   t->stack_size = 0;
   t->owner = NULL;
   t->rp = NULL;
   t->lp = NULL;
   t->st = NULL;
   t->dfr = NULL;
   t->dec = NULL;
   t->ndfr = t->dfr_cap = 0;
   t->tb = NULL;
   t->z = NULL;
   t->s = NULL;
}

bool
hwr_fragment_pass(struct hwr_job *j, bool partial_bg, bool partial_eot)
{
   const struct agx_fw_render_payload *pl = j->pl;
   struct fpass fp = {
      .j = j, .uw = pl->utile_width, .uh = pl->utile_height,
      .samples = pl->samples, .ss = pl->sample_size,
      .partial_bg = partial_bg, .partial_eot = partial_eot,
   };
   /* The hooks' operand tables, once per process before any tile runs
    * (not per hooked instruction: fs_hook is on every iter and ld/st_tile
    * of every group). */
   pthread_once(&names_once, names_init);
   agx_zls_control_unpack(&pl->zls_control, &fp.zls);
   if (!zls_layouts(&fp, pl))
      return false;
   fp.ux_n = (pl->width + fp.uw - 1) / fp.uw;
   fp.uy_n = (pl->height + fp.uh - 1) / fp.uh;
   for (unsigned l = 0; l < 32; l++) {
      fp.lane_off[l] = (quad_dy(l) * fp.uw + quad_dx(l)) * fp.samples;
      fp.px_off[l] = quad_dy(l) * (fp.uw * fp.ss) + quad_dx(l) * fp.ss;
   }
   /* Every tile once per layer (the Layers field "affects how many times
    * bg and eot run"): layer-major, so tile i of layer L is item
    * L x tiles + i. */
   unsigned per_layer = fp.ux_n * fp.uy_n, n = per_layer * j->layers;
   fp.tiles = calloc(n, sizeof(*fp.tiles));
   if (!fp.tiles)
      return hwr_fail(j, "out of host memory");
   /* Profiling: per-worker accumulation (merged below); without memory
    * for it the pass's time goes to the overhead, still exactly. */
   bool prof = j->prof && hwr_prof_frag_begin(j->prof, j->r->threads);
   for (unsigned i = 0; i < n; i++) {
      struct tile *t = &fp.tiles[i];
      t->fp = &fp;
      t->j = *j;
      t->j.status = HW_EXEC_OK;
      t->j.cycles = 0;
      if (!prof)
         t->j.prof = NULL;
      t->layer = i / per_layer;
      t->ux = i % per_layer % fp.ux_n;
      t->uy = i % per_layer / fp.ux_n;
      t->x0 = t->ux * fp.uw;
      t->y0 = t->uy * fp.uh;
      t->w = pl->width - t->x0 < fp.uw ? pl->width - t->x0 : fp.uw;
      t->h = pl->height - t->y0 < fp.uh ? pl->height - t->y0 : fp.uh;
      hw_mmu_init(&t->isp, j->ej->dev, j->ej->vm_slot, HW_UNIT_ISP);
      hw_mmu_init(&t->usc, j->ej->dev, j->ej->vm_slot, HW_UNIT_USC);
   }
   fp.warm = hwr_fast_paths ? calloc(j->r->threads ? j->r->threads : 1, sizeof(*fp.warm))
                            : NULL;
   fp.bufs = hwr_fast_paths ? calloc(j->r->threads ? j->r->threads : 1, sizeof(*fp.bufs))
                            : NULL;
   hwr_pool_run(j->r, n, tile_item, &fp);
   free(fp.warm);
   for (unsigned w = 0; fp.bufs && w < (j->r->threads ? j->r->threads : 1); w++)
      tile_bufs_free(&fp.bufs[w]);
   free(fp.bufs);
   /* Merge in tile order: the first failing tile decides, and the time
    * is the tiles' work spread over the cores (a fixed function of the
    * per-tile cycles, not of the host threads). */
   bool ok = true;
   uint64_t core[HWR_CORES] = { 0 };
   struct hw_render_stats sum = { 0 };
   for (unsigned i = 0; i < n; i++) {
      struct tile *t = &fp.tiles[i];
      if (ok && t->j.status != HW_EXEC_OK) {
         j->status = t->j.status;
         j->fault = t->j.fault;
         memcpy(j->message, t->j.message, sizeof(j->message));
         ok = false;
      }
      unsigned c = 0;
      for (unsigned k = 1; k < HWR_CORES; k++)
         if (core[k] < core[c])
            c = k;
      core[c] += t->j.cycles;
      sum.tiles += t->stats.tiles;
      sum.fragments += t->stats.fragments;
      sum.samples_passed += t->stats.samples_passed;
   }
   uint64_t span = 0;
   for (unsigned k = 0; k < HWR_CORES; k++)
      span = core[k] > span ? core[k] : span;
   j->cycles += span;
   if (j->prof)
      hwr_prof_frag_end(j->prof, span);
   hwr_stats_add(j->r, &sum);
   free(fp.tiles);
   return ok;
}

/* SPDX-License-Identifier: MIT */
/*
 * The vertex pipe: VDM stream, PPP state, vertex shading, primitive
 * assembly, clipping, culling, viewport and binning into the TVB.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tessera/bits.h"
#include "hw/render/hw_render_priv.h"
#include "hw/render/hw_render_tex.h"
#include "tessera/float_bits.h"

#define VDM_MAX_BLOCKS (1u << 22)   /* watchdog on looping streams */
#define VDM_CALL_DEPTH 16
#define VS_BATCH 1024
/* Small draws shaded ahead at once (vs_ahead_scan): a fixed number, so
 * what is shaded ahead never depends on the thread count. */
#define VS_AHEAD_DRAWS 16
#define VS_AHEAD_BLOCKS 256          /* VDM blocks a look-ahead reads */
/* Tests clear this to shade every draw where the stream reaches it. */
bool hwr_vs_ahead = true;
_Atomic uint64_t hwr_vs_ahead_used;
_Atomic uint64_t hwr_vs_pipeline_loads;

/* hwr_pipeline_load of a vertex pipeline, counted (hwr_vs_pipeline_loads). */
static bool
vs_pipeline_load(struct hwr_job *j, struct hw_mmu *m, uint32_t offset,
                 struct hwr_pipeline *p)
{
   atomic_fetch_add_explicit(&hwr_vs_pipeline_loads, 1, memory_order_relaxed);
   return hwr_pipeline_load(j, m, offset, HWR_VERTEX, p);
}

/* The PPP carries up to 16 viewports, each with its region clip and
 * scissor (consecutive from the Depth Bias Scissor word's index); a
 * primitive picks one by the viewport index its provoking vertex wrote. */
#define HWR_MAX_VIEWPORTS 16

struct ppp {
   uint32_t w[AGX_TVB_STATE_LENGTH / 4];   /* packed TVB State words */
   struct agx_viewport vp[HWR_MAX_VIEWPORTS];
   unsigned vp_count;
   bool has_vp;
   struct agx_region_clip rc[HWR_MAX_VIEWPORTS];
   unsigned rc_count;
   struct agx_cull cull;
   struct agx_output_select os;
   /* 32-bit user varyings by interpolation: Mesa's asahi driver lays
    * them out smooth, then flat, then linear (agx_assign_uvs), and says
    * how many of each here; the clipper needs it (flat slots are not
    * interpolated, linear ones interpolate in screen space). All smooth
    * while the PPP never sent the word. */
   struct agx_varying_counts vc32;
   struct agx_scissor scissor[HWR_MAX_VIEWPORTS];
   bool scissor_on;
   /* Fragment Face words, front [0] and back [1]: the rasteriser's
    * polygon mode of a triangle of that facing (Fill, Line, Point) and
    * the line width (raw 4.4 less one) its edges are drawn with. */
   enum agx_polygon_mode poly_mode[2];
   unsigned line_width[2];
};

struct vctx {
   struct hwr_job *j;
   struct ppp st;
   struct agx_tvb_state tstate;
   bool state_dirty;
   uint32_t state_off;
   /* VDM state */
   uint32_t vs_pipeline;
   bool has_vs;
   unsigned outputs;
   uint32_t restart_index;
   struct hwr_pipeline vsp;
   bool vsp_valid;
   unsigned vs_sampler_stride;   /* from vertex shader word 0 */
   /* TVB */
   uint64_t heap;
   uint32_t size, used, peak, prims;
   uint32_t *head, *tail, *count;     /* per bin */
   uint32_t prim_id;
   unsigned vpi;                      /* viewport of the current primitive */
   unsigned layer;                    /* its framebuffer layer */
   struct hw_render_stats stats;
   uint8_t *stack;                    /* vertex shaders' stack (hwr_stack) */
   size_t stack_size;
   /* The draws' arrays: the renderer's kept scratch, or own_scratch
    * (freed with the job) while another job holds that. */
   struct hwr_scratch *scratch, own_scratch;
   bool took_scratch;
   /* Profile counters the statistics do not have (always counted: a few
    * additions per primitive). */
   uint64_t prims_in, tvb_bytes, vs_instructions;
   struct vs_ahead *ahead;            /* shaded ahead (vs_ahead_scan) */
};

/* ---------------------------------------------------------------- TVB */

static bool
tvb_flush(struct vctx *v)
{
   struct hwr_job *j = v->j;
   struct hw_mmu *m = &j->mmu;
   m->unit = HW_UNIT_TE;
   unsigned n = j->tiles_x * j->tiles_y * j->layers;
   for (unsigned i = 0; i < n; i++) {
      uint8_t e[AGX_TVB_TILE_ENTRY_LENGTH];
      agx_pack(e, TVB_TILE_ENTRY, t) {
         t.head = v->head[i];
         t.tail = v->tail[i];
         t.count = v->count[i];
      }
      if (!hw_mmu_write(m, j->pl->tvb_tilemap + (uint64_t)i * sizeof(e), e, sizeof(e)))
         return hwr_fault(j, m);
   }
   uint8_t h[AGX_TVB_HEADER_LENGTH];
   agx_pack(h, TVB_HEADER, t) {
      t.tiles_x = j->tiles_x;
      t.tiles_y = j->tiles_y;
      t.used = v->used;
      t.primitives = v->prims;
      t.partial_renders = j->partials;
      t.peak_used = v->peak;
      t.frame = j->pl->frame;
      t.valid = true;
   }
   if (!hw_mmu_write(m, v->heap, h, sizeof(h)))
      return hwr_fault(j, m);
   j->cycles += ((uint64_t)n * AGX_TVB_TILE_ENTRY_LENGTH) >> HWR_CYC_MEM_BYTE_SHIFT;
   return true;
}

static void
tvb_reset(struct vctx *v)
{
   unsigned n = v->j->tiles_x * v->j->tiles_y * v->j->layers;
   memset(v->head, 0, n * sizeof(uint32_t));
   memset(v->tail, 0, n * sizeof(uint32_t));
   memset(v->count, 0, n * sizeof(uint32_t));
   v->used = AGX_TVB_HEADER_LENGTH;
   v->prims = 0;
   v->state_dirty = true;
}

/* The heap is full: render what is binned (spilling through the partial
 * end-of-tile program), then start binning again from an empty heap. */
static bool
tvb_partial_render(struct vctx *v)
{
   struct hwr_job *j = v->j;
   if (!tvb_flush(v))
      return false;
   uint64_t c0 = j->cycles;
   if (!hwr_fragment_pass(j, j->partials > 0, true))
      return false;
   if (j->prof) {
      /* Fragment time inside the vertex job: not the current draw's
       * vertex time (hwr_fragment_pass shared it out already). */
      j->prof->partial_span += j->cycles - c0;
      j->prof->partials++;
   }
   j->partials++;
   v->stats.partial_renders++;
   tvb_reset(v);
   return true;
}

static bool
tvb_write(struct vctx *v, uint32_t off, const void *src, size_t size)
{
   struct hw_mmu *m = &v->j->mmu;
   m->unit = HW_UNIT_TE;
   if (!hw_mmu_write(m, v->heap + off, src, size))
      return hwr_fault(v->j, m);
   v->tvb_bytes += size;
   v->j->cycles += size >> HWR_CYC_MEM_BYTE_SHIFT;
   return true;
}

static bool
tvb_write_state(struct vctx *v)
{
   uint8_t buf[AGX_TVB_STATE_LENGTH];
   agx_tvb_state_pack(buf, &v->tstate);
   v->state_off = v->used;
   v->used += sizeof(buf);
   v->state_dirty = false;
   return tvb_write(v, v->state_off, buf, sizeof(buf));
}

static bool
tvb_add_ref(struct vctx *v, unsigned tile, uint32_t prim)
{
   uint32_t t = v->tail[tile];
   unsigned in_block = v->count[tile] % HWR_LIST_REFS;
   if (!t || in_block == 0) {
      uint32_t b = v->used;
      v->used += HWR_LIST_BLOCK;
      uint8_t hdr[AGX_TVB_LIST_BLOCK_LENGTH];
      agx_pack(hdr, TVB_LIST_BLOCK, lb) { lb.next = 0; lb.count = 0; }
      if (!tvb_write(v, b, hdr, sizeof(hdr)))
         return false;
      if (t) {
         agx_pack(hdr, TVB_LIST_BLOCK, lb) { lb.next = b; lb.count = HWR_LIST_REFS; }
         if (!tvb_write(v, t, hdr, sizeof(hdr)))
            return false;
      } else {
         v->head[tile] = b;
      }
      v->tail[tile] = t = b;
      in_block = 0;
   }
   uint8_t ref[AGX_TVB_PRIMITIVE_REFERENCE_LENGTH];
   agx_pack(ref, TVB_PRIMITIVE_REFERENCE, r) { r.offset = prim; }
   if (!tvb_write(v, t + AGX_TVB_LIST_BLOCK_LENGTH + in_block * 4, ref, 4))
      return false;
   v->count[tile]++;
   in_block++;
   uint8_t hdr[AGX_TVB_LIST_BLOCK_LENGTH];
   agx_pack(hdr, TVB_LIST_BLOCK, lb) { lb.next = 0; lb.count = in_block; }
   v->stats.bin_refs++;
   v->j->cycles += HWR_CYC_BIN_REF;
   return tvb_write(v, t, hdr, sizeof(hdr));
}

/* ---------------------------------------------------------------- PPP */

#define TAKE(len)                                                          \
   do {                                                                    \
      if (pos + (len) > size)                                              \
         return hwr_fail(j, "PPP record at 0x%llx: %u bytes are too few",  \
                         (unsigned long long)va, size);                    \
      p = buf + pos;                                                       \
      pos += (len);                                                        \
   } while (0)

static uint32_t
rd32(const uint8_t *p)
{
   uint32_t v;
   memcpy(&v, p, 4);
   return v;
}

static bool
ppp_update(struct vctx *v, uint64_t va, unsigned size)
{
   struct hwr_job *j = v->j;
   uint8_t buf[1024];
   const uint8_t *p;
   unsigned pos = 0;
   if (size < 4 || size > sizeof(buf))
      return hwr_fail(j, "PPP record of %u bytes", size);
   j->mmu.unit = HW_UNIT_PPP;
   if (!hwr_read(j, &j->mmu, va, buf, size))
      return false;
   j->cycles += size >> 2;
   TAKE(4);
   agx_unpack(p, PPP_HEADER, h);
   struct agx_tvb_state *t = &v->tstate;
#define RAW(present, field, T)                                             \
   if (present) {                                                          \
      TAKE(AGX_##T##_LENGTH);                                              \
      t->field = rd32(p);                                                  \
   }
   RAW(h.fragment_control, fragment_control, FRAGMENT_CONTROL);
   RAW(h.fragment_control_2, fragment_control_2, FRAGMENT_CONTROL_2);
   RAW(h.front_face, front_face, FRAGMENT_FACE);
   RAW(h.front_face_2, front_face_2, FRAGMENT_FACE_2);
   RAW(h.front_stencil, front_stencil, FRAGMENT_STENCIL);
   RAW(h.back_face, back_face, FRAGMENT_FACE);
   RAW(h.back_face_2, back_face_2, FRAGMENT_FACE_2);
   RAW(h.back_stencil, back_stencil, FRAGMENT_STENCIL);
   RAW(h.depth_bias_scissor, depth_bias_scissor, DEPTH_BIAS_SCISSOR);
   /* Viewport Count (1-16) sizes both the region clip and the viewport
    * arrays. */
   if (h.region_clip) {
      for (unsigned i = 0; i < h.viewport_count; i++) {
         TAKE(AGX_REGION_CLIP_LENGTH);
         agx_region_clip_unpack(p, &v->st.rc[i]);
      }
      v->st.rc_count = h.viewport_count;
   }
   if (h.viewport) {
      TAKE(AGX_VIEWPORT_CONTROL_LENGTH);
      for (unsigned i = 0; i < h.viewport_count; i++) {
         TAKE(AGX_VIEWPORT_LENGTH);
         agx_viewport_unpack(p, &v->st.vp[i]);
      }
      v->st.vp_count = h.viewport_count;
      v->st.has_vp = true;
   }
   if (h.w_clamp)
      TAKE(AGX_W_CLAMP_LENGTH);
   RAW(h.output_select, output_select, OUTPUT_SELECT);
   if (h.varying_counts_32) {
      TAKE(AGX_VARYING_COUNTS_LENGTH);
      agx_varying_counts_unpack(p, &v->st.vc32);
   }
   if (h.varying_counts_16)
      TAKE(AGX_VARYING_COUNTS_LENGTH);
   RAW(h.cull, cull, CULL);
   if (h.cull_2)
      TAKE(AGX_CULL_2_LENGTH);
   if (h.fragment_shader) {
      TAKE(16);
      t->shader_word_0 = rd32(p);
      t->shader_word_1 = rd32(p + 4);
      t->shader_word_2 = rd32(p + 8);
      t->has_shader = true;
   }
   RAW(h.occlusion_query, occlusion_query, FRAGMENT_OCCLUSION_QUERY);
   if (h.occlusion_query_2)
      TAKE(AGX_FRAGMENT_OCCLUSION_QUERY_2_LENGTH);
   if (h.output_unknown)
      TAKE(AGX_OUTPUT_UNKNOWN_LENGTH);
   if (h.output_size)
      TAKE(AGX_OUTPUT_SIZE_LENGTH);
   if (h.varying_word_2)
      TAKE(AGX_VARYING_WORD_2_LENGTH);
#undef RAW
   if (pos != size)
      return hwr_fail(j, "PPP record at 0x%llx is %u bytes, its header "
                      "accounts for %u", (unsigned long long)va, size, pos);
   agx_cull_unpack(&t->cull, &v->st.cull);
   agx_output_select_unpack(&t->output_select, &v->st.os);
   for (unsigned f = 0; f < 2; f++) {
      agx_unpack(f ? &t->back_face : &t->front_face, FRAGMENT_FACE, ff);
      /* 3 is not a mode the public formats name: refuse it rather than
       * guess what the rasteriser would do. */
      if (ff.polygon_mode > AGX_POLYGON_MODE_POINT)
         return hwr_fail(j, "PPP record at 0x%llx: %s Fragment Face Polygon "
                         "Mode %u is reserved", (unsigned long long)va,
                         f ? "back" : "front", (unsigned)ff.polygon_mode);
      v->st.poly_mode[f] = ff.polygon_mode;
      v->st.line_width[f] = ff.line_width;
   }
   agx_unpack(&t->fragment_control, FRAGMENT_CONTROL, fc);
   agx_unpack(&t->depth_bias_scissor, DEPTH_BIAS_SCISSOR, dbs);
   v->st.scissor_on = fc.scissor_enable;
   t->has_scissor = fc.scissor_enable;
   if (fc.scissor_enable) {
      /* One scissor per viewport, consecutive from the index. */
      unsigned n = v->st.vp_count ? v->st.vp_count : 1;
      uint8_t sb[HWR_MAX_VIEWPORTS][AGX_SCISSOR_LENGTH];
      j->mmu.unit = HW_UNIT_PPP;
      if (!hwr_read(j, &j->mmu, j->pl->isp_scissor_base +
                    (uint64_t)dbs.scissor * AGX_SCISSOR_LENGTH, sb,
                    n * AGX_SCISSOR_LENGTH))
         return false;
      for (unsigned i = 0; i < n; i++)
         agx_scissor_unpack(sb[i], &v->st.scissor[i]);
   }
   v->state_dirty = true;
   return true;
}

/* ------------------------------------------------------- vertex shading */

struct vs_run {
   const uint32_t *vid, *iid;
   uint32_t *out;                     /* rows of `slots` words */
   unsigned base, n, slots;
   const struct hwr_pipeline *pipe;   /* the vertex shader's state tables */
   uint64_t sampler_heap;
};

/* The USC front end preloads r5 (vertex ID incl. base vertex) and r6
 * (instance ID) before a vertex shader starts. */
static void
vs_start(void *user, struct hw_usc_simd *s)
{
   struct vs_run *r = user;
   unsigned simd = hw_usc_simd_index(s);
   unsigned first = r->base + simd * HW_USC_SIMD_WIDTH;
   if (first >= r->n)
      return;
   /* whole rows: one call per register, not one per lane */
   uint32_t *r5 = hw_usc_simd_row32(s, 5), *r6 = hw_usc_simd_row32(s, 6);
   unsigned cnt = r->n - first < HW_USC_SIMD_WIDTH ? r->n - first : HW_USC_SIMD_WIDTH;
   memcpy(r5, r->vid + first, cnt * sizeof(uint32_t));
   memcpy(r6, r->iid + first, cnt * sizeof(uint32_t));
}

static enum hw_usc_status
vs_hook(void *user, struct hw_usc_simd *s, const struct agx_instr *in,
        uint32_t exec)
{
   struct vs_run *r = user;
   switch (in->op) {
   case AGX_OP_ST_VAR:
   case AGX_OP_ST_VAR_FINAL:
      break;
   case AGX_OP_TEXTURE_LOAD:
   case AGX_OP_TEXTURE_SAMPLE:
   case AGX_OP_IMAGE_WRITE: {
      /* Vertex texture fetch: the texture unit serves every stage, with
       * the tables of the vertex pipeline's USC words. No tilebuffer. */
      char err[96];
      enum hw_usc_status st = hwr_tex_op(r->pipe, r->sampler_heap, s, in, exec, NULL, NULL, err,
                                         sizeof(err));
      if (st != HW_USC_OK && st != HW_USC_FAULT)
         hw_usc_simd_hook_message(s, err);
      return st;
   }
   default:
      hw_usc_simd_hook_message(s, "not a vertex-stage instruction");
      return HW_USC_UNSUPPORTED;
   }
   const struct agx_operand *val = &in->operands[1], *idx = &in->operands[2];
   if (!exec)
      return HW_USC_OK;
   unsigned simd = hw_usc_simd_index(s);
   /* the value register's 32 lanes at once (every output of every
    * vertex passes here) */
   const uint32_t *vrow = hw_usc_simd_row32(s, val->value);
   for (unsigned l = 0; l < HW_USC_SIMD_WIDTH; l++) {
      if (!(exec >> l & 1))
         continue;
      unsigned slot = idx->type == AGX_OPERAND_IMM ? (unsigned)idx->imm
                      : hw_usc_simd_read16(s, idx->value, l);
      if (slot >= r->slots)
         return HW_USC_OUT_OF_BOUNDS;
      unsigned i = r->base + simd * HW_USC_SIMD_WIDTH + l;
      if (i < r->n)
         r->out[(size_t)i * r->slots + slot] = vrow[l];
   }
   return HW_USC_OK;
}

/* Whether a stage instruction of a vertex shader writes memory: an image
 * write does (texture loads and samples only read). */
static bool
vs_hook_writes(const struct agx_instr *in, void *user)
{
   (void)user;
   return in->op != AGX_OP_ST_VAR && in->op != AGX_OP_ST_VAR_FINAL &&
          in->op != AGX_OP_TEXTURE_LOAD && in->op != AGX_OP_TEXTURE_SAMPLE;
}

/* A draw's vertex shading spread over the render core's pool: item b is
 * workgroup b (VS_BATCH vertices), with its own MMU view, hook state,
 * statistics and result, merged in workgroup order afterwards. */
struct vs_par {
   const struct hw_usc_launch *L;
   const struct vs_run *run;          /* template: base set per item */
   const struct hwr_job *j;
   unsigned n;
   struct vs_item {
      struct hw_usc_stats st;
      struct hw_usc_result res;
      struct hw_mmu mmu;
      enum hw_usc_status status;
   } *item;
};

static void
vs_par_item(void *ctx, unsigned worker, unsigned b)
{
   (void)worker;
   struct vs_par *p = ctx;
   struct vs_item *it = &p->item[b];
   struct vs_run run = *p->run;
   run.base = b * VS_BATCH;
   struct hw_usc_launch L = *p->L;
   L.hook_user = &run;
   hw_mmu_init(&it->mmu, p->j->ej->dev, p->j->ej->vm_slot, HW_UNIT_USC);
   struct hw_usc_workgroup wg = { .threadgroup_position = { b, 0, 0 } };
   unsigned cnt = p->n - run.base < VS_BATCH ? p->n - run.base : VS_BATCH;
   wg.threads[0] = cnt;
   wg.threads[1] = wg.threads[2] = 1;
   it->status = hw_usc_run_workgroup(&L, &wg, &it->mmu, &it->st, &it->res);
}

/*
 * Runs the workgroups of a draw's vertex shader on the pool when that
 * cannot change what the draw computes: more than one workgroup, no
 * stack (a serial pass hands one buffer from workgroup to workgroup) and
 * no memory writes (hw_usc_shader_writes_memory; vertex texture fetch
 * only reads). Every workgroup writes its own rows of `out`; the
 * statistics are sums, added in workgroup order, and a failure is the
 * first failing workgroup's, as in order. Returns false when it did not
 * run (the caller shades in order); *ok then untouched.
 */
static bool
shade_parallel(struct vctx *v, const struct hw_usc_launch *L,
               const struct vs_run *run, unsigned n, struct hw_usc_stats *st,
               bool *ok)
{
   struct hwr_job *j = v->j;
   unsigned nb = (n + VS_BATCH - 1) / VS_BATCH;
   if (nb < 2 || j->r->threads <= 1 || hw_usc_shader_stack_bytes(v->vsp.shader) ||
       hw_usc_shader_writes_memory(v->vsp.shader, vs_hook_writes, NULL))
      return false;
   struct vs_par p = { L, run, j, n, calloc(nb, sizeof(struct vs_item)) };
   if (!p.item)
      return false;
   if (!hwr_pool_try_run(j->r, nb, vs_par_item, &p)) {
      free(p.item);
      return false;
   }
   *ok = true;
   for (unsigned b = 0; b < nb; b++) {
      const struct vs_item *it = &p.item[b];
      if (it->status != HW_USC_OK) {
         /* The fault an in-order pass's one MMU view would hold: the
          * first any workgroup up to this one took. */
         const struct hw_mmu *fm = &it->mmu;
         for (unsigned k = 0; k <= b; k++)
            if (p.item[k].mmu.fault.valid) {
               fm = &p.item[k].mmu;
               break;
            }
         *ok = it->res.status == HW_USC_FAULT
                  ? hwr_fault(j, fm)
                  : hwr_fail(j, "vertex shader at 0x%llx: %s",
                             (unsigned long long)it->res.pc, it->res.message);
         break;
      }
      /* What hw_usc_run_workgroup adds up; the render core reads only
       * the cycles and instructions. */
      st->instructions += it->st.instructions;
      st->cycles += it->st.cycles;
      if (it->st.max_simd_cycles > st->max_simd_cycles)
         st->max_simd_cycles = it->st.max_simd_cycles;
   }
   free(p.item);
   return true;
}

/* What shading n vertices adds to the job, whoever ran the shader. */
static void
vs_account(struct vctx *v, const struct hw_usc_stats *st, unsigned n)
{
   /* Vertex batches spread over the cores like tiles do. */
   v->j->cycles += st->cycles / HWR_CORES + (uint64_t)n * HWR_CYC_VERTEX_FETCH;
   v->vs_instructions += st->instructions;
   v->stats.vertices += n;
}

static bool
shade_vertices(struct vctx *v, const uint32_t *vid, const uint32_t *iid,
               unsigned n, uint32_t *out)
{
   struct hwr_job *j = v->j;
   struct hw_mmu um;
   hw_mmu_init(&um, j->ej->dev, j->ej->vm_slot, HW_UNIT_USC);
   struct vs_run run = { vid, iid, out, 0, n, v->outputs, &v->vsp, j->pl->sampler_heap };
   struct hw_usc_launch L = {
      .instruction_budget = j->r->insn_budget,
      .shader = v->vsp.shader,
      .uniforms = v->vsp.uniforms,
      .gpr_count = v->vsp.gprs,
      .threads_per_threadgroup = { VS_BATCH, 1, 1 },
      .grid_size = { n, 1, 1 },
      .vm_slot = j->ej->vm_slot,
      .stage_hook = vs_hook,
      .start_hook = vs_start,
      .hook_user = &run,
      .sampler_table = j->pl->sampler_heap,
   };
   struct hw_usc_stats st = { 0 };
   bool ok;
   if (shade_parallel(v, &L, &run, n, &st, &ok)) {
      if (!ok)
         return false;
   } else {
      for (unsigned b = 0; b < n; b += VS_BATCH) {
         run.base = b;
         struct hw_usc_workgroup wg = { .threadgroup_position = { b / VS_BATCH, 0, 0 } };
         unsigned cnt = n - b < VS_BATCH ? n - b : VS_BATCH;
         wg.threads[0] = cnt;
         wg.threads[1] = wg.threads[2] = 1;
         if (!hwr_stack(j, &v->stack, &v->stack_size, v->vsp.shader, VS_BATCH, &wg))
            return false;
         struct hw_usc_result res;
         if (hw_usc_run_workgroup(&L, &wg, &um, &st, &res) != HW_USC_OK) {
            if (res.status == HW_USC_FAULT)
               return hwr_fault(j, &um);
            return hwr_fail(j, "vertex shader at 0x%llx: %s",
                            (unsigned long long)res.pc, res.message);
         }
      }
   }
   vs_account(v, &st, n);
   return true;
}

/* -------------------------------------------------- clip, cull, binning */

struct cvert {
   float c[HWR_MAX_SLOTS];   /* all output slots; 0..3 = clip position */
};

/* Copies a clip vertex's slots below the output count (the only ones
 * read: a whole struct cvert is 1 KiB). */
static inline void
cv_copy(const struct vctx *v, struct cvert *d, const struct cvert *a)
{
   memcpy(d->c, a->c, (size_t)v->outputs * sizeof(float));
}

/* Vertex i's output row in a draw's outputs (rows of v->outputs words). */
static inline const uint32_t *
vrow(const struct vctx *v, const uint32_t *out, unsigned i)
{
   return out + (size_t)i * v->outputs;
}

/*
 * Where the vertex shader's outputs are (the UVS layout the hardware
 * expects, as Mesa's asahi driver lays it out): position in slots 0-3,
 * then the user varyings, then the point size, the layer/viewport slot
 * and the clip distances, each present as the Output Select word says.
 * The number of user varyings is what is left of Output Count 1.
 */
static unsigned
uvs_clip_base(const struct vctx *v)
{
   return v->outputs - tessera_popcount32(v->st.os.clip_distance_planes);
}

static unsigned
uvs_layer_slots(const struct vctx *v)
{
   return v->st.os.viewport_target || v->st.os.render_target ? 1 : 0;
}

static unsigned
uvs_psiz_slot(const struct vctx *v)
{
   return uvs_clip_base(v) - uvs_layer_slots(v) - 1;
}

/* User varyings (slots 4 ..): the outputs less position and the trailing
 * groups; 0 when the counts do not add up (the draw then has none). */
static unsigned
uvs_user_slots(const struct vctx *v)
{
   unsigned tail = v->outputs - uvs_clip_base(v) + uvs_layer_slots(v) +
                   (v->st.os.point_size ? 1 : 0);
   return v->outputs >= 4 + tail ? v->outputs - 4 - tail : 0;
}

/*
 * The user varyings' interpolation groups, as slot bounds: smooth from 4
 * to *flat0, flat to *lin0, linear to *lin1 (Varying Counts 32, clamped
 * to the user slots there are; the rest is smooth).
 */
static void
uvs_groups(const struct vctx *v, unsigned *flat0, unsigned *lin0, unsigned *lin1)
{
   unsigned user = uvs_user_slots(v);
   unsigned a = v->st.vc32.smooth, b = a + v->st.vc32.flat, c = b + v->st.vc32.linear;
   *flat0 = 4 + (a < user ? a : user);
   *lin0 = 4 + (b < user ? b : user);
   *lin1 = 4 + (c < user ? c : user);
}

/*
 * The provoking vertex of a primitive of nv vertices: Cull's Flat Shading
 * Vertex (1-3 for vertex 0-2; 0, never programmed, as vertex 0), clamped
 * to the primitive's last vertex (Mesa's asahi driver asks for vertex 2
 * for lines too when the last vertex provokes).
 */
static unsigned
provoking_vertex(const struct vctx *v, unsigned nv)
{
   unsigned pv = v->st.cull.flat_shading_vertex ? v->st.cull.flat_shading_vertex - 1 : 0;
   return pv < nv ? pv : nv - 1;
}

/* Signed distance of a vertex to clip plane k (>= 0 inside). */
static float
plane_dist(const struct vctx *v, const struct cvert *p, unsigned k)
{
   const float *c = p->c;
   const float g = 64.0f;   /* guard band: 64x the viewport */
   switch (k) {
   case 0: return c[3] - 1e-6f;
   case 1: return g * c[3] - c[0];
   case 2: return g * c[3] + c[0];
   case 3: return g * c[3] - c[1];
   case 4: return g * c[3] + c[1];
   case 5: return v->st.cull.depth_clip ? c[2] : 1.0f;
   case 6: return v->st.cull.depth_clip ? c[3] - c[2] : 1.0f;
   default: {
      unsigned bit = k - 7, slot = uvs_clip_base(v);
      for (unsigned b = 0; b < bit; b++)
         slot += v->st.os.clip_distance_planes >> b & 1;
      return slot < v->outputs ? c[slot] : 1.0f;
   }
   }
}

/*
 * Whether nv vertices are inside the fixed planes 0-6 (w > 0, the guard
 * band, depth): plane_dist()'s expressions, bit for bit, with its `< 0`
 * test (a NaN distance counts as inside there too), without a call and
 * a switch per vertex and plane -- emit_prim's trivial accept runs this
 * for every primitive of every draw.  The general loop over plane_dist()
 * is the reference (hwr_fast_paths off).
 */
static inline bool
fixed_planes_inside(const struct vctx *v, const struct cvert *cv, unsigned nv)
{
   const float g = 64.0f;   /* plane_dist's guard band */
   bool dc = v->st.cull.depth_clip;
   for (unsigned i = 0; i < nv; i++) {
      const float *c = cv[i].c;
      float gw = g * c[3];
      if (c[3] - 1e-6f < 0 || gw - c[0] < 0 || gw + c[0] < 0 ||
          gw - c[1] < 0 || gw + c[1] < 0)
         return false;
      if (dc && (c[2] < 0 || c[3] - c[2] < 0))
         return false;
   }
   return true;
}

/*
 * The vertex where edge a-b crosses a plane, at parameter t (in clip
 * space). Smooth outputs (and position, point size, clip distances)
 * interpolate at t; flat ones are not interpolated at all: every vertex
 * of a primitive being clipped carries its provoking vertex's flat values
 * (emit_prim copies them before clipping), so the new vertex takes a's,
 * bit for bit (integers pass as flat floats). Linear (noperspective) ones
 * interpolate at the same point's screen-space parameter, t * w_b / w.
 */
static void
clip_lerp(const struct vctx *v, struct cvert *d, const struct cvert *a,
          const struct cvert *b, float t)
{
   unsigned f0, l0, l1;
   uvs_groups(v, &f0, &l0, &l1);
   for (unsigned s = 0; s < v->outputs; s++)
      d->c[s] = a->c[s] + t * (b->c[s] - a->c[s]);
   memcpy(d->c + f0, a->c + f0, (l0 - f0) * sizeof(float));
   if (l1 > l0) {
      float ts = d->c[3] != 0 ? t * b->c[3] / d->c[3] : t;
      for (unsigned s = l0; s < l1; s++)
         d->c[s] = a->c[s] + ts * (b->c[s] - a->c[s]);
   }
}

static unsigned
clip_poly(const struct vctx *v, struct cvert *in, unsigned n, struct cvert *tmp)
{
   unsigned planes = 7 + 16;
   for (unsigned k = 0; k < planes && n; k++) {
      if (k >= 7 && !(v->st.os.clip_distance_planes >> (k - 7) & 1))
         continue;
      unsigned m = 0;
      for (unsigned i = 0; i < n; i++) {
         const struct cvert *a = &in[i], *b = &in[(i + 1) % n];
         float da = plane_dist(v, a, k), db = plane_dist(v, b, k);
         if (da >= 0)
            cv_copy(v, &tmp[m++], a);
         if ((da >= 0) != (db >= 0)) {
            clip_lerp(v, &tmp[m], a, b, da / (da - db));
            m++;
         }
      }
      for (unsigned i = 0; i < m; i++)
         cv_copy(v, &in[i], &tmp[i]);
      n = m;
   }
   return n;
}

/* Clips segment in[0..1] against every enabled plane; false when nothing
 * is left.  Outputs are interpolated like polygon clipping. */
static bool
clip_line(const struct vctx *v, struct cvert *in)
{
   for (unsigned k = 0; k < 7 + 16; k++) {
      if (k >= 7 && !(v->st.os.clip_distance_planes >> (k - 7) & 1))
         continue;
      float da = plane_dist(v, &in[0], k), db = plane_dist(v, &in[1], k);
      if (da < 0 && db < 0)
         return false;
      if (da >= 0 && db >= 0)
         continue;
      struct cvert c;
      clip_lerp(v, &c, &in[0], &in[1], da / (da - db));
      cv_copy(v, &in[da < 0 ? 0 : 1], &c);
   }
   return true;
}

struct wvert {
   float x, y, z, iw;  /* x, y on the rasteriser's 1/256-pixel grid (snap) */
   float ux, uy;       /* x, y before the snap: the TVB keeps these */
   const float *vary;
};

static bool
bin_prim(struct vctx *v, enum agx_tvb_primitive_type type,
         const struct wvert *w, unsigned nv, bool back, float size)
{
   struct hwr_job *j = v->j;
   /* Bounding box in pixels, conservatively widened for points/lines. */
   float minx = w[0].x, maxx = w[0].x, miny = w[0].y, maxy = w[0].y;
   for (unsigned i = 1; i < nv; i++) {
      minx = fminf(minx, w[i].x); maxx = fmaxf(maxx, w[i].x);
      miny = fminf(miny, w[i].y); maxy = fmaxf(maxy, w[i].y);
   }
   float pad = type == AGX_TVB_PRIMITIVE_TYPE_TRIANGLE ? 1.0f : size * 0.5f + 1.0f;
   long x0 = (long)floorf(minx - pad), x1 = (long)ceilf(maxx + pad);
   long y0 = (long)floorf(miny - pad), y1 = (long)ceilf(maxy + pad);
   long sx0 = 0, sy0 = 0, sx1 = j->pl->width - 1, sy1 = j->pl->height - 1;
   if (v->st.scissor_on) {
      const struct agx_scissor *sc = &v->st.scissor[v->vpi];
      sx0 = sx0 > (long)sc->min_x ? sx0 : (long)sc->min_x;
      sy0 = sy0 > (long)sc->min_y ? sy0 : (long)sc->min_y;
      sx1 = sx1 < (long)sc->max_x - 1 ? sx1 : (long)sc->max_x - 1;
      sy1 = sy1 < (long)sc->max_y - 1 ? sy1 : (long)sc->max_y - 1;
   }
   if (x0 < sx0) x0 = sx0;
   if (y0 < sy0) y0 = sy0;
   if (x1 > sx1) x1 = sx1;
   if (y1 > sy1) y1 = sy1;
   if (x0 > x1 || y0 > y1) {
      v->stats.culled++;
      return true;
   }
   long tx0 = x0 / HWR_BIN, tx1 = x1 / HWR_BIN, ty0 = y0 / HWR_BIN, ty1 = y1 / HWR_BIN;
   const struct agx_region_clip *rc =
      &v->st.rc[v->vpi < v->st.rc_count ? v->vpi : 0];
   if (rc->enable) {
      if (tx0 < (long)rc->min_x) tx0 = rc->min_x;
      if (ty0 < (long)rc->min_y) ty0 = rc->min_y;
      /* Max X/Y are exclusive tile bounds (the record stores them
       * minus one). */
      if (tx1 > (long)rc->max_x - 1) tx1 = (long)rc->max_x - 1;
      if (ty1 > (long)rc->max_y - 1) ty1 = (long)rc->max_y - 1;
      if (tx0 > tx1 || ty0 > ty1) {
         v->stats.culled++;
         return true;
      }
   }
   unsigned ntiles = (unsigned)((tx1 - tx0 + 1) * (ty1 - ty0 + 1));
   /* The TVB keeps what the fragment side's coefficient bindings read,
    * in their slot order (the linked layout, as Mesa's asahi driver binds
    * it): slot 0 the vertex's 1/W, slot 1 its window Z when Output Select
    * asks for Frag Coord Z, then the user varyings. */
   unsigned zslots = v->st.os.frag_coord_z ? 1 : 0, user = uvs_user_slots(v);
   unsigned linked = 1 + zslots + user;
   unsigned vbytes = AGX_TVB_VERTEX_LENGTH + 4 * linked;
   uint32_t need = AGX_TVB_PRIMITIVE_LENGTH + nv * vbytes +
                   ntiles * HWR_LIST_BLOCK + AGX_TVB_STATE_LENGTH;
   if (need + AGX_TVB_HEADER_LENGTH > v->size)
      return hwr_fail(j, "TVB heap of %u bytes cannot hold one primitive "
                      "(%u bytes)", v->size, need);
   if (v->used + need > v->size && !tvb_partial_render(v))
      return false;
   if (v->state_dirty && !tvb_write_state(v))
      return false;
   uint32_t off = v->used;
   uint8_t rec[AGX_TVB_PRIMITIVE_LENGTH + 3 * (AGX_TVB_VERTEX_LENGTH + 4 * HWR_MAX_SLOTS)];
   agx_pack(rec, TVB_PRIMITIVE, p) {
      p.type = type;
      p.vertices = nv;
      p.back_facing = back;
      p.varyings = linked;
      p.state = v->state_off;
      p.primitive_id = v->prim_id;
      p.size = size;
      p.viewport = v->vpi;
   }
   uint8_t *q = rec + AGX_TVB_PRIMITIVE_LENGTH;
   for (unsigned i = 0; i < nv; i++) {
      agx_pack(q, TVB_VERTEX, tv) {
         tv.x = w[i].ux; tv.y = w[i].uy; tv.z = w[i].z; tv.inv_w = w[i].iw;
      }
      uint8_t *lv = q + AGX_TVB_VERTEX_LENGTH;
      memcpy(lv, &w[i].iw, 4);
      if (zslots)
         memcpy(lv + 4, &w[i].z, 4);
      memcpy(lv + 4 * (1 + zslots), w[i].vary + 4, 4 * user);
      q += vbytes;
   }
   v->used += (uint32_t)(q - rec);
   if (!tvb_write(v, off, rec, (size_t)(q - rec)))
      return false;
   for (long ty = ty0; ty <= ty1; ty++)
      for (long tx = tx0; tx <= tx1; tx++)
         if (!tvb_add_ref(v, (unsigned)(((uint64_t)v->layer * j->tiles_y + ty) *
                                          j->tiles_x + tx), off))
            return false;
   if (v->used > v->peak)
      v->peak = v->used;
   v->prims++;
   v->stats.primitives++;
   return true;
}

static void
to_window(const struct vctx *v, const struct cvert *c, struct wvert *w)
{
   const struct agx_viewport *vp = &v->st.vp[v->vpi];
   float iw = 1.0f / c->c[3];
   w->x = vp->translate_x + vp->scale_x * c->c[0] * iw;
   w->y = vp->translate_y + vp->scale_y * c->c[1] * iw;
   w->z = vp->translate_z + vp->scale_z * c->c[2] * iw;
   if (v->st.cull.depth_clamp) {
      float lo = fminf(vp->translate_z, vp->translate_z + vp->scale_z);
      float hi = fmaxf(vp->translate_z, vp->translate_z + vp->scale_z);
      w->z = fminf(fmaxf(w->z, lo), hi);
   }
   w->iw = iw;
   w->vary = c->c;
}

/*
 * The viewport a primitive goes through: the high half of the layer/
 * viewport word (Mesa's UVS layout: layer in the low 16 bits) of its
 * provoking vertex (Cull's Flat Shading Vertex, clamped to the
 * primitive's vertices). An index past the viewports the PPP gave is
 * undefined in GL; the model uses viewport 0.
 */
static unsigned
viewport_index(const struct vctx *v, const uint32_t *out,
               const unsigned *idx, unsigned nv)
{
   if (v->st.vp_count <= 1 || !v->st.os.viewport_target)
      return 0;
   unsigned slot = uvs_clip_base(v) - 1;
   if (slot >= v->outputs)
      return 0;
   unsigned vpi = vrow(v, out, idx[provoking_vertex(v, nv)])[slot] >> 16;
   return vpi < v->st.vp_count ? vpi : 0;
}

/*
 * The framebuffer layer a primitive goes to: the low half of the layer/
 * viewport word of its provoking vertex when Output Select says the
 * shader writes a render target index; 0 otherwise, and in a pass of one
 * layer (GL: gl_Layer is ignored without a layered framebuffer). A layer
 * past the pass's is undefined in GL; the model drops the primitive
 * (returns false).
 */
static bool
layer_index(const struct vctx *v, const uint32_t *out,
            const unsigned *idx, unsigned nv, unsigned *layer)
{
   *layer = 0;
   if (v->j->layers <= 1 || !v->st.os.render_target)
      return true;
   unsigned slot = uvs_clip_base(v) - 1;
   if (slot >= v->outputs)
      return true;
   unsigned pv = v->st.cull.flat_shading_vertex ? v->st.cull.flat_shading_vertex - 1 : 0;
   if (pv >= nv)
      pv = nv - 1;
   *layer = vrow(v, out, idx[pv])[slot] & 0xffff;
   return *layer < v->j->layers;
}

/* Snap to the rasteriser's 1/256-pixel grid so binning, culling and the
 * fragment side's coverage agree on the exact same positions.  The TVB
 * keeps the unsnapped position: the fragment side snaps it again with
 * hwr_snap256() for coverage, and sets up the varying planes from it
 * (docs/rendering.md, "Varyings"). */
static float
snap(float x)
{
   return (float)hwr_snap256(x) / 256.0f;
}

/* A clip-space vertex to the window, snapped for the rasteriser (the
 * unsnapped position kept for the TVB). */
static void
to_window_snapped(const struct vctx *v, const struct cvert *c, struct wvert *w)
{
   to_window(v, c, w);
   w->ux = w->x;
   w->uy = w->y;
   w->x = snap(w->x);
   w->y = snap(w->y);
}

/* A point's size: the vertex's Point Size output when Output Select has
 * one, else 1 pixel. */
static float
point_size(const struct vctx *v, const struct cvert *c)
{
   return v->st.os.point_size && v->outputs > 4 ? c->c[uvs_psiz_slot(v)] : 1.0f;
}

/*
 * A triangle drawn in polygon mode Line or Point (its facing's Fragment
 * Face word), after culling by that facing: its three edges as lines of
 * the face's line width, or its three vertices as points of their point
 * size, with the line and point rules of line and point primitives. c is
 * the triangle before clipping, every vertex carrying the provoking
 * vertex's flat outputs (GL: flat shading of a polygon drawn as lines or
 * points takes the polygon's provoking vertex); each edge is clipped as
 * a line (only the triangle's own edges are drawn, never one the clipper
 * made along a plane) and each vertex as a point, by its centre. The
 * pieces keep the triangle's facing (two-sided stencil, depth function,
 * front facing) and primitive ID.
 */
static bool
emit_unfilled(struct vctx *v, const struct cvert *c, bool back, bool lines)
{
   struct wvert w[2];
   if (lines) {
      float lw = (v->st.line_width[back] + 1) / 16.0f;
      for (unsigned e = 0; e < 3; e++) {
         struct cvert seg[2];
         memcpy(seg[0].c, c[e].c, (size_t)v->outputs * sizeof(float));
         memcpy(seg[1].c, c[(e + 1) % 3].c, (size_t)v->outputs * sizeof(float));
         if (!clip_line(v, seg))
            continue;
         to_window_snapped(v, &seg[0], &w[0]);
         to_window_snapped(v, &seg[1], &w[1]);
         if (!bin_prim(v, AGX_TVB_PRIMITIVE_TYPE_LINE, w, 2, back, lw))
            return false;
      }
      return true;
   }
   for (unsigned i = 0; i < 3; i++) {
      bool inside = true;
      for (unsigned k = 0; k < 7 + 16 && inside; k++) {
         if (k >= 7 && !(v->st.os.clip_distance_planes >> (k - 7) & 1))
            continue;
         inside = plane_dist(v, &c[i], k) >= 0;
      }
      if (!inside)
         continue;
      to_window_snapped(v, &c[i], &w[0]);
      if (!bin_prim(v, AGX_TVB_PRIMITIVE_TYPE_POINT, w, 1, back, point_size(v, &c[i])))
         return false;
   }
   return true;
}

static bool
emit_prim(struct vctx *v, const uint32_t *out,
          const unsigned *idx, unsigned nv)
{
   struct hwr_job *j = v->j;
   j->cycles += HWR_CYC_PRIM_SETUP;
   v->prim_id++;
   v->prims_in++;
   struct cvert cv[3 + 7 + 16 + 4], tmp[3 + 7 + 16 + 4];
   /* the output words as floats: one block copy per vertex */
   for (unsigned i = 0; i < nv; i++)
      memcpy(cv[i].c, vrow(v, out, idx[i]), (size_t)v->outputs * sizeof(float));
   if (v->st.cull.rasterizer_discard) {
      v->stats.culled++;
      return true;
   }
   v->vpi = viewport_index(v, out, idx, nv);
   if (!layer_index(v, out, idx, nv, &v->layer)) {
      v->stats.culled++;
      return true;
   }
   float psize = 1.0f;
   if (nv == 1)
      psize = point_size(v, &cv[0]);
   if (nv == 2) {
      /* 4.4 fixed point less one (Mesa's agx_pack_line_width, our
       * driver's): raw 255 is 16 pixels, not 0. */
      psize = (v->st.line_width[0] + 1) / 16.0f;
   }
   /* A triangle some facing draws unfilled keeps its own vertices for
    * that (the clipper below rewrites cv), with the provoking vertex's
    * flat outputs on each. */
   bool unfilled = nv == 3 && (v->st.poly_mode[0] != AGX_POLYGON_MODE_FILL ||
                               v->st.poly_mode[1] != AGX_POLYGON_MODE_FILL);
   struct cvert tri[3];
   if (unfilled) {
      unsigned f0, l0, l1, pv = provoking_vertex(v, nv);
      uvs_groups(v, &f0, &l0, &l1);
      for (unsigned i = 0; i < nv; i++) {
         memcpy(tri[i].c, cv[i].c, (size_t)v->outputs * sizeof(float));
         if (i != pv)
            memcpy(tri[i].c + f0, cv[pv].c + f0, (l0 - f0) * sizeof(float));
      }
   }
   /* Trivially inside every plane: no clipping needed (the common case). */
   bool inside = true;
   unsigned k0 = 0;
   if (hwr_fast_paths) {
      inside = fixed_planes_inside(v, cv, nv);
      k0 = 7;
   }
   for (unsigned k = k0; k < 7 + 16 && inside; k++) {
      if (k >= 7 && !(v->st.os.clip_distance_planes >> (k - 7) & 1))
         continue;
      for (unsigned i = 0; i < nv; i++)
         if (plane_dist(v, &cv[i], k) < 0)
            inside = false;
   }
   unsigned n = nv;
   if (!inside) {
      v->stats.clipped++;
      /* Flat outputs are the provoking vertex's on every piece the
       * clipper makes (whichever vertex of it the fragment side's shade
       * model reads): give every vertex its values, which clip_lerp then
       * copies rather than interpolates. */
      unsigned f0, l0, l1, pv = provoking_vertex(v, nv);
      uvs_groups(v, &f0, &l0, &l1);
      for (unsigned i = 0; i < nv; i++)
         if (i != pv)
            memcpy(cv[i].c + f0, cv[pv].c + f0, (l0 - f0) * sizeof(float));
      /* A point is kept or discarded by its centre (as GL and Vulkan
       * specify); a line is cut at the planes. */
      if (nv == 1 || (nv == 2 && !clip_line(v, cv))) {
         v->stats.culled++;
         return true;
      }
      n = nv == 2 ? 2 : clip_poly(v, cv, nv, tmp);
      if (n < nv) {
         v->stats.culled++;
         return true;
      }
   }
   struct wvert w[3 + 7 + 16 + 4];
   for (unsigned i = 0; i < n; i++)
      to_window_snapped(v, &cv[i], &w[i]);
   if (nv == 1)
      return bin_prim(v, AGX_TVB_PRIMITIVE_TYPE_POINT, w, 1, false, psize);
   if (nv == 2)
      return bin_prim(v, AGX_TVB_PRIMITIVE_TYPE_LINE, w, 2, false, psize);
   /* Facing from the signed area of the whole (unclipped-equivalent)
    * polygon: positive is clockwise on a y-down screen. */
   double area = 0;
   for (unsigned i = 0; i < n; i++) {
      const struct wvert *a = &w[i], *b = &w[(i + 1) % n];
      area += (double)a->x * b->y - (double)b->x * a->y;
   }
   if (area == 0) {
      v->stats.culled++;
      return true;
   }
   bool ccw = area < 0;
   bool front = ccw == v->st.cull.front_face_ccw;
   if ((front && v->st.cull.cull_front) || (!front && v->st.cull.cull_back)) {
      v->stats.culled++;
      return true;
   }
   if (unfilled && v->st.poly_mode[!front] != AGX_POLYGON_MODE_FILL)
      return emit_unfilled(v, tri, !front,
                           v->st.poly_mode[!front] == AGX_POLYGON_MODE_LINE);
   /* Provoking vertex first so flat shading of the fan's pieces agrees. */
   for (unsigned i = 1; i + 1 < n; i++) {
      struct wvert t[3] = { w[0], w[i], w[i + 1] };
      if (!bin_prim(v, AGX_TVB_PRIMITIVE_TYPE_TRIANGLE, t, 3, !front, 1.0f))
         return false;
   }
   return true;
}

/* ------------------------------------------------------------- draws */

static bool
assemble(struct vctx *v, enum agx_primitive prim,
         const uint32_t *out, const bool *restart, unsigned n)
{
   /* Split the index sequence at restarts and assemble each run. */
   unsigned s = 0, pv = provoking_vertex(v, 3);
   while (s < n) {
      unsigned e = s;
      while (e < n && !restart[e])
         e++;
      unsigned len = e - s;
      unsigned ix[3];
      switch (prim) {
      case AGX_PRIMITIVE_POINTS:
         for (unsigned i = 0; i < len; i++) {
            ix[0] = s + i;
            if (!emit_prim(v, out, ix, 1)) return false;
         }
         break;
      case AGX_PRIMITIVE_LINES:
         for (unsigned i = 0; i + 1 < len; i += 2) {
            ix[0] = s + i; ix[1] = s + i + 1;
            if (!emit_prim(v, out, ix, 2)) return false;
         }
         break;
      case AGX_PRIMITIVE_LINE_STRIP:
      case AGX_PRIMITIVE_LINE_LOOP:
         for (unsigned i = 0; i + 1 < len; i++) {
            ix[0] = s + i; ix[1] = s + i + 1;
            if (!emit_prim(v, out, ix, 2)) return false;
         }
         if (prim == AGX_PRIMITIVE_LINE_LOOP && len > 2) {
            ix[0] = s + len - 1; ix[1] = s;
            if (!emit_prim(v, out, ix, 2)) return false;
         }
         break;
      case AGX_PRIMITIVE_TRIANGLES:
         for (unsigned i = 0; i + 2 < len; i += 3) {
            ix[0] = s + i; ix[1] = s + i + 1; ix[2] = s + i + 2;
            if (!emit_prim(v, out, ix, 3)) return false;
         }
         break;
      case AGX_PRIMITIVE_TRIANGLE_STRIP:
         /* Odd triangles reverse their winding by a rotation that puts
          * the provoking vertex (GL's: i first, i + 2 last) where Cull's
          * Flat Shading Vertex says, the vertex the fragment side's flat
          * shade model reads: (i, i+2, i+1) for vertex 0, (i+1, i, i+2)
          * for vertex 2. */
         for (unsigned i = 0; i + 2 < len; i++) {
            if (!(i & 1)) {
               ix[0] = s + i; ix[1] = s + i + 1; ix[2] = s + i + 2;
            } else if (pv == 2) {
               ix[0] = s + i + 1; ix[1] = s + i; ix[2] = s + i + 2;
            } else {
               ix[0] = s + i; ix[1] = s + i + 2; ix[2] = s + i + 1;
            }
            if (!emit_prim(v, out, ix, 3)) return false;
         }
         break;
      case AGX_PRIMITIVE_TRIANGLE_FAN:
         /* Likewise for fans (GL's provoking vertex of the triangle of
          * vertices 0, i, i+1: i first, i+1 last). Mesa's asahi driver
          * draws first-vertex fans with flat inputs through a geometry
          * shader ("TODO: Handle fans properly"), so it never relies on
          * the vertex-0 order. */
         for (unsigned i = 1; i + 1 < len; i++) {
            if (pv == 2) {
               ix[0] = s; ix[1] = s + i; ix[2] = s + i + 1;
            } else {
               ix[0] = s + i; ix[1] = s + i + 1; ix[2] = s;
            }
            if (!emit_prim(v, out, ix, 3)) return false;
         }
         break;
      default:
         return hwr_fail(v->j, "primitive type %u is not supported", prim);
      }
      s = e + 1;
   }
   return true;
}


/* Moves the `live` compacted output rows of an index sequence back to
 * their positions (from the end, so no row is overwritten before it
 * moves); a restart's row is zero. */
static void
scatter_restarts(uint32_t *out, const bool *rs, unsigned n, unsigned live,
                 unsigned outputs)
{
   unsigned k = live;
   for (unsigned i = n; i-- > 0;) {
      if (rs[i]) {
         memset(out + (size_t)i * outputs, 0, (size_t)outputs * sizeof(uint32_t));
      } else {
         k--;
         if (k != i)
            memcpy(out + (size_t)i * outputs, out + (size_t)k * outputs,
                   (size_t)outputs * sizeof(uint32_t));
      }
   }
}

/*
 * Shades the vertices of an index sequence. A restart index is not a
 * vertex: the vertex shader never runs for it (its fetch could be far out
 * of any buffer, 0xffffffff with 32-bit indices), so the runs between
 * restarts are shaded compacted and their outputs scattered back.
 */
static bool
shade_indexed(struct vctx *v, uint32_t *vid, uint32_t *iid, const bool *rs,
              unsigned n, uint32_t *out)
{
   unsigned live = 0;
   for (unsigned i = 0; i < n; i++)
      live += !rs[i];
   if (live == n)
      return shade_vertices(v, vid, iid, n, out);
   /* Compact in place (vid and iid are this draw's scratch), shade, and
    * move the outputs back to their positions from the end, so no output
    * is overwritten before it moves. */
   unsigned k = 0;
   for (unsigned i = 0; i < n; i++) {
      if (!rs[i]) {
         vid[k] = vid[i];
         iid[k] = iid[i];
         k++;
      }
   }
   if (live && !shade_vertices(v, vid, iid, live, out))
      return false;
   scatter_restarts(out, rs, n, live, v->outputs);
   return true;
}
/* ------------------------------------------------ shading ahead */

/*
 * Many draws have fewer vertices than a workgroup (every one of
 * glxgears'), so shade_parallel never splits them and the firmware
 * thread shaded them alone while the pool idled. When the stream reaches
 * a draw nothing was shaded ahead for, vs_ahead_scan reads on through the
 * VDM stream (without side effects: its own MMU view and a copy of the
 * job for pipeline loads, errors and cycles thrown away) and collects up
 * to VS_AHEAD_DRAWS consecutive small draws, then shades them as pool
 * items, each into its own rows. The stream is then processed in order
 * exactly as before; at each draw, vs_ahead_take uses the rows shaded
 * ahead only if they are what the in-order draw would compute: same
 * Index List block, same pipeline (shader, uniforms, tables), output
 * count, vertex and instance IDs and restarts, no partial render since
 * (a fragment pass may write what a vertex shader reads), and the shader
 * ran without error (an error is reproduced by the in-order shading,
 * which reports it at the point the stream reaches). Otherwise the draw
 * is shaded in order. Only shaders that can write no memory and use no
 * stack are shaded ahead (as for shade_parallel), so shading ahead
 * changes no memory another draw reads; the binning of the earlier draws
 * in between writes only the TVB, which a vertex shader does not read
 * (the hardware itself shades ahead of its tiling). For the same reason
 * a vertex pipeline the look-ahead loaded (its preshader run) is what
 * the in-order walk would load at that VDM State block as long as no
 * partial render happened since: vs_ahead_pipeline hands it over rather
 * than loading it twice. The look-ahead and
 * the shading ahead happen at every thread count (the items run in the
 * caller when the pool is busy or absent), so results are the same at
 * any thread count; hwr_vs_ahead off is the reference
 * (test_vertex_shaded_ahead).
 */
struct vs_spec {
   uint64_t pc;                       /* the draw's Index List block */
   unsigned partials;                 /* j->partials when scanned */
   unsigned outputs, count, live;
   struct hwr_pipeline vsp;
   /* The VDM State block whose pipeline word the look-ahead loaded vsp
    * from, and the word's offset; load_pc 0: vsp is a copy (the draw
    * kept the pipeline of the one before). */
   uint64_t load_pc;
   uint32_t load_offset;
   uint32_t *vid, *iid, *out;         /* live IDs; count output rows */
   bool *rs;
   size_t out_off;                    /* into vs_ahead.buf */
   struct hw_usc_stats st;
   bool ok;
};

struct vs_ahead {
   struct vs_spec d[VS_AHEAD_DRAWS];
   unsigned n, next;
   unsigned partials;                 /* j->partials when scanned */
   uint8_t *buf;                      /* every draw's arrays (vs_ahead_grow) */
   size_t size;
   const struct hwr_job *j;
   uint64_t sampler_heap;
};

void
hwr_vs_ahead_free(struct vs_ahead *a)
{
   if (a)
      free(a->buf);
   free(a);
}

/* Grows the arrays' buffer keeping its contents (the IDs are written
 * while the scan goes on); kept from batch to batch. */
static uint8_t *
vs_ahead_grow(struct vs_ahead *a, size_t need)
{
   if (a->size < need) {
      size_t sz = a->size ? a->size : 64 * 1024;
      while (sz < need)
         sz *= 2;
      uint8_t *p = realloc(a->buf, sz);
      if (!p)
         return NULL;
      a->buf = p;
      a->size = sz;
   }
   return a->buf;
}

static void
vs_ahead_item(void *ctx, unsigned worker, unsigned item)
{
   (void)worker;
   struct vs_ahead *a = ctx;
   struct vs_spec *d = &a->d[item];
   const struct hwr_job *j = a->j;
   memset(d->out, 0, (size_t)d->count * d->outputs * sizeof(uint32_t));
   d->ok = true;
   if (d->live) {
      struct hw_mmu um;
      hw_mmu_init(&um, j->ej->dev, j->ej->vm_slot, HW_UNIT_USC);
      struct vs_run run = { d->vid, d->iid, d->out, 0, d->live, d->outputs, &d->vsp,
                            a->sampler_heap };
      struct hw_usc_launch L = {
         .instruction_budget = j->r->insn_budget,
         .shader = d->vsp.shader,
         .uniforms = d->vsp.uniforms,
         .gpr_count = d->vsp.gprs,
         .threads_per_threadgroup = { VS_BATCH, 1, 1 },
         .grid_size = { d->live, 1, 1 },
         .vm_slot = j->ej->vm_slot,
         .stage_hook = vs_hook,
         .start_hook = vs_start,
         .hook_user = &run,
         .sampler_table = a->sampler_heap,
      };
      struct hw_usc_workgroup wg = { .threadgroup_position = { 0, 0, 0 } };
      wg.threads[0] = d->live;
      wg.threads[1] = wg.threads[2] = 1;
      struct hw_usc_result res;
      d->ok = hw_usc_run_workgroup(&L, &wg, &um, &d->st, &res) == HW_USC_OK;
   }
   if (d->ok)
      scatter_restarts(d->out, d->rs, d->count, d->live, d->outputs);
}

/* Whether a draw may be shaded ahead: one workgroup, one instance, a
 * shader without stack or memory writes (see above). */
static bool
vs_ahead_eligible(const struct hwr_pipeline *p, bool valid, unsigned outputs,
                  uint32_t count, uint32_t instances)
{
   return valid && p->shader && outputs >= 4 && outputs <= HWR_MAX_SLOTS &&
          count > 0 && count <= VS_BATCH && instances == 1 &&
          !hw_usc_shader_stack_bytes(p->shader) &&
          !hw_usc_shader_writes_memory(p->shader, vs_hook_writes, NULL);
}

/*
 * Reads the stream from the Index List block at pc (the VDM state as
 * the in-order walk has it, its call stack stack[0..sp)) and shades the
 * small draws it finds ahead. Stops at the first thing it does not
 * follow (any read failing, a draw not eligible, the end of the stream).
 */
static void
vs_ahead_scan(struct vctx *v, uint64_t pc, const uint64_t *stack0, unsigned sp)
{
   struct hwr_job *j = v->j;
   struct vs_ahead *a = v->ahead;
   a->n = a->next = 0;
   a->partials = j->partials;
   a->d[0].load_pc = 0;
   struct hwr_job sj = *j;            /* pipeline loads' errors go here */
   sj.prof = NULL;
   struct hw_mmu m;
   hw_mmu_init(&m, j->ej->dev, j->ej->vm_slot, HW_UNIT_VDM);
   uint64_t stack[VDM_CALL_DEPTH];
   memcpy(stack, stack0, sp * sizeof(*stack));
   unsigned outputs = v->outputs, sampler_stride = v->vs_sampler_stride;
   uint32_t restart_index = v->restart_index;
   bool valid = v->has_vs && v->vsp_valid;
   /* The pipeline of the draw being collected: the last one's. */
   const struct hwr_pipeline *cur = &v->vsp;
   struct hwr_pipeline *next = NULL;
   /* Array sizes first, then one buffer for every draw's arrays. */
   size_t need = 0;
   for (unsigned blocks = 0; blocks < VS_AHEAD_BLOCKS && a->n < VS_AHEAD_DRAWS; blocks++) {
      uint8_t b[64];
      memset(b, 0, sizeof(b));
      if (!hw_mmu_read(&m, pc, b, 4))
         break;
      unsigned type = b[3] >> 5, len = 0;
      if (type != AGX_VDM_BLOCK_TYPE_BARRIER) {
         for (unsigned got = 4; got < 48; got += 4)
            if (!hw_mmu_read(&m, pc + got, b + got, 4)) {
               memset(&m.fault, 0, sizeof(m.fault));
               break;
            }
      }
      if (type == AGX_VDM_BLOCK_TYPE_PPP_STATE_UPDATE) {
         len = AGX_PPP_STATE_LENGTH;
      } else if (type == AGX_VDM_BLOCK_TYPE_BARRIER) {
         agx_unpack(b, VDM_BARRIER, br);
         if (br.returns) {
            if (!sp)
               break;
            pc = stack[--sp];
            continue;
         }
         len = 4;
      } else if (type == AGX_VDM_BLOCK_TYPE_STREAM_LINK) {
         agx_unpack(b, VDM_STREAM_LINK, l);
         if (l.with_return) {
            if (sp == VDM_CALL_DEPTH)
               break;
            stack[sp++] = pc + AGX_VDM_STREAM_LINK_LENGTH;
         }
         pc = (uint64_t)l.target_hi << 32 | l.target_lo;
         continue;
      } else if (type == AGX_VDM_BLOCK_TYPE_VDM_STATE_UPDATE) {
         agx_unpack(b, VDM_STATE, h);
         unsigned n = 4;
         if (h.restart_index_present) { restart_index = rd32(b + n); n += 4; }
         if (h.vertex_shader_word_0_present) {
            agx_unpack(b + n, VDM_STATE_VERTEX_SHADER_WORD_0, w0);
            sampler_stride = hw_tex_sampler_stride(w0.sampler_state_register_count);
            n += 4;
         }
         if (h.vertex_shader_word_1_present) {
            agx_unpack(b + n, VDM_STATE_VERTEX_SHADER_WORD_1, w1);
            n += 4;
            /* Loaded into the next free entry: the draw that uses it. */
            next = &a->d[a->n].vsp;
            struct hw_mmu um;
            hw_mmu_init(&um, j->ej->dev, j->ej->vm_slot, HW_UNIT_USC);
            valid = vs_pipeline_load(&sj, &um, (uint32_t)w1.pipeline, next);
            if (!valid)
               break;
            /* (also when no draw of it is collected: the in-order walk
             * reaches this block before it reads on) */
            a->d[a->n].load_pc = pc;
            a->d[a->n].load_offset = (uint32_t)w1.pipeline;
            cur = next;
         }
         if (h.vertex_outputs_present) {
            agx_unpack(b + n, VDM_STATE_VERTEX_OUTPUTS, o);
            outputs = o.output_count_1;
            n += 4;
         }
         if (h.tessellation_present)
            break;
         if (h.vertex_unknown_present) n += 4;
         if (h.tessellation_scale_present) n += 4;
         else n = (n + 7) & ~7u;
         len = n;
      } else if (type == AGX_VDM_BLOCK_TYPE_INDEX_LIST) {
         agx_unpack(b, INDEX_LIST, il);
         unsigned n = 4;
         uint32_t lo = 0, count = 0, inst = 1, start = 0, size = 0;
         if (il.index_buffer_present) { lo = rd32(b + n); n += 4; }
         if (il.index_count_present) { count = rd32(b + n); n += 4; }
         if (il.instance_count_present) { inst = rd32(b + n); n += 4; }
         if (il.start_present) { start = rd32(b + n); n += 4; }
         if (il.unk_1_present) n += 8;
         if (il.indirect_buffer_present)
            break;                     /* counts in memory: in order */
         if (il.unk_2_present) n += 4;
         if (il.index_buffer_size_present) {
            agx_unpack(b + n, INDEX_LIST_BUFFER_SIZE, bs);
            size = bs.size;
            n += 4;
         }
         len = n;
         unsigned isz = il.index_buffer_present ? 1u << il.index_size : 0;
         if (!vs_ahead_eligible(cur, valid, outputs, count, inst) || isz > 4 ||
             (isz && il.index_buffer_size_present && (uint64_t)count * isz > size))
            break;
         struct vs_spec *d = &a->d[a->n];
         if (cur != &d->vsp) {
            d->vsp = *cur;
            d->load_pc = 0;
         }
         d->vsp.sampler_stride = sampler_stride;
         d->pc = pc;
         d->partials = j->partials;
         d->outputs = outputs;
         d->count = count;
         memset(&d->st, 0, sizeof(d->st));
         d->ok = false;
         /* The arrays: IDs and restarts now (they are compared), the
          * output rows after; offsets, as the buffer may move. */
         size_t ids = (size_t)count * (2 * sizeof(uint32_t) + 4 + sizeof(bool));
         ids = (ids + 7) & ~(size_t)7;
         uint8_t *mem = vs_ahead_grow(a, need + ids);
         if (!mem)
            break;
         uint32_t *vid = (uint32_t *)(mem + need), *iid = vid + count;
         uint32_t *raw = iid + count;
         bool *rs = (bool *)(raw + count);
         if (isz) {
            uint64_t ibuf = (uint64_t)il.index_buffer_hi << 32 | lo;
            uint8_t *ib = (uint8_t *)raw;   /* count * isz <= 4 * count */
            if (!hw_mmu_read(&m, ibuf, ib, (size_t)count * isz))
               break;
            uint32_t rmask = isz == 1 ? 0xff : isz == 2 ? 0xffff : 0xffffffff;
            unsigned k = 0;
            for (uint32_t i = 0; i < count; i++) {
               uint32_t x = 0;
               memcpy(&x, ib + (size_t)i * isz, isz);
               rs[i] = il.restart_enable && x == (restart_index & rmask);
               if (!rs[i]) {
                  vid[k] = x + start;
                  iid[k] = 0;
                  k++;
               }
            }
            d->live = k;
         } else {
            for (uint32_t i = 0; i < count; i++) {
               vid[i] = start + i;
               iid[i] = 0;
               rs[i] = false;
            }
            d->live = count;
         }
         d->out_off = need;            /* reused below: the IDs' offset */
         need += ids;
         a->n++;
         if (a->n < VS_AHEAD_DRAWS)
            a->d[a->n].load_pc = 0;
         next = NULL;
         if (cur != &d->vsp)
            cur = &d->vsp;
      } else {
         break;                       /* terminate, or not a block we know */
      }
      pc += len;
   }
   if (a->n < 2) {
      a->n = 0;                       /* nothing to share out: in order */
      return;
   }
   /* Output rows after every draw's IDs. */
   size_t ids_end = need;
   for (unsigned i = 0; i < a->n; i++)
      need += (size_t)a->d[i].count * a->d[i].outputs * sizeof(uint32_t);
   uint8_t *mem = vs_ahead_grow(a, need);
   if (!mem) {
      a->n = 0;
      return;
   }
   size_t o = ids_end;
   for (unsigned i = 0; i < a->n; i++) {
      struct vs_spec *d = &a->d[i];
      d->vid = (uint32_t *)(mem + d->out_off);
      d->iid = d->vid + d->count;
      d->rs = (bool *)(d->iid + 2 * (size_t)d->count);
      d->out = (uint32_t *)(mem + o);
      o += (size_t)d->count * d->outputs * sizeof(uint32_t);
   }
   a->j = j;
   a->sampler_heap = j->pl->sampler_heap;
   if (!hwr_pool_try_run(j->r, a->n, vs_ahead_item, a))
      for (unsigned i = 0; i < a->n; i++)
         vs_ahead_item(a, 0, i);
}

/*
 * The draw at pc about to shade count vertices (IDs vid/iid, restarts
 * rs, as draw() computed them): when the rows shaded ahead for it are
 * what shading now would give, copies them to out, accounts the shading
 * and returns true.
 */
static bool
vs_ahead_take(struct vctx *v, uint64_t pc, const uint32_t *vid,
              const uint32_t *iid, const bool *rs, unsigned count, uint32_t *out)
{
   struct vs_ahead *a = v->ahead;
   if (!a || a->next >= a->n)
      return false;
   struct vs_spec *d = &a->d[a->next];
   if (d->pc != pc) {
      a->n = a->next = 0;             /* the stream went elsewhere */
      return false;
   }
   a->next++;
   if (!d->ok || d->partials != v->j->partials || d->count != count ||
       d->outputs != v->outputs || memcmp(&d->vsp, &v->vsp, sizeof(d->vsp)) ||
       memcmp(d->rs, rs, count * sizeof(bool)))
      return false;
   /* draw() fills every position's IDs (restarts too); the ahead arrays
    * hold only the live ones, in order. */
   unsigned k = 0;
   for (unsigned i = 0; i < count; i++) {
      if (rs[i])
         continue;
      if (d->vid[k] != vid[i] || d->iid[k] != iid[i])
         return false;
      k++;
   }
   memcpy(out, d->out, (size_t)count * d->outputs * sizeof(uint32_t));
   atomic_fetch_add_explicit(&hwr_vs_ahead_used, 1, memory_order_relaxed);
   if (d->live)
      vs_account(v, &d->st, d->live);
   return true;
}

/*
 * The in-order walk at the VDM State block at pc, about to load the
 * vertex pipeline at offset into p: when the look-ahead loaded it from
 * this block for the next draw it shaded ahead (or for the one it
 * stopped at) and no partial render happened since, the load would read
 * the same memory (see above) and give the same pipeline: copies it and
 * returns true. Otherwise the caller loads it.
 */
static bool
vs_ahead_pipeline(struct vctx *v, uint64_t pc, uint32_t offset,
                  struct hwr_pipeline *p)
{
   const struct vs_ahead *a = v->ahead;
   /* entries 0..n hold this scan's loads (n: the draw it stopped at) */
   if (!a || a->next > a->n || a->next >= VS_AHEAD_DRAWS ||
       a->partials != v->j->partials)
      return false;
   const struct vs_spec *d = &a->d[a->next];
   if (d->load_pc != pc || d->load_offset != offset)
      return false;
   *p = d->vsp;
   return true;
}

static bool
draw(struct vctx *v, uint64_t va, const struct agx_index_list *il, uint64_t ibuf,
     uint32_t count, uint32_t instances, uint32_t start, uint32_t ibuf_size)
{
   struct hwr_job *j = v->j;
   v->stats.draws++;
   if (!v->has_vs || !v->vsp_valid)
      return hwr_fail(j, "draw without a vertex shader");
   if (!v->st.has_vp)
      return hwr_fail(j, "draw without a viewport");
   if (v->outputs < 4 || v->outputs > HWR_MAX_SLOTS)
      return hwr_fail(j, "vertex output count %u: must be 4..%u", v->outputs,
                      HWR_MAX_SLOTS);
   if (count > (1u << 24) || instances > (1u << 16) ||
       (uint64_t)count * instances > (1u << 24))
      return hwr_fail(j, "draw of %u x %u vertices is too large", count, instances);
   if (count == 0 || instances == 0)
      return true;
   bool indexed = il->index_buffer_present;
   unsigned isz = indexed ? 1u << il->index_size : 0;
   if (indexed) {
      if (isz > 4)
         return hwr_fail(j, "index size %u", il->index_size);
      if (il->index_buffer_size_present && (uint64_t)count * isz > ibuf_size)
         return hwr_fail(j, "%u indices overrun the %u-byte index buffer",
                         count, ibuf_size);
   }
   /* The draw's arrays, from the kept scratch (struct hw_render): the
    * outputs (rows of the draw's output count, not of HWR_MAX_SLOTS: a
    * shader writes a few slots of the 255 the hardware allows, and rows
    * that wide spread each vertex over a page's quarter; 4-byte aligned
    * at the start), the vertex and instance IDs, the indices, the restart
    * flags. */
   uint32_t *out;
   size_t out_bytes = (size_t)count * v->outputs * sizeof(*out);
   uint8_t *mem = hwr_scratch_get(v->scratch, out_bytes +
                                  (size_t)count * (2 * sizeof(uint32_t) + isz + 1));
   if (!mem)
      return hwr_fail(j, "out of host memory");
   out = (uint32_t *)mem;
   uint32_t *vid = (uint32_t *)(mem + out_bytes);
   uint32_t *iid = vid + count;
   uint8_t *idx = (uint8_t *)(iid + count);
   bool *rs = (bool *)(idx + (size_t)count * isz);
   bool ok = true;
   if (indexed) {
      j->mmu.unit = HW_UNIT_VDM;
      ok = hwr_read(j, &j->mmu, ibuf, idx, (size_t)count * isz);
      j->cycles += ok ? ((uint64_t)count * isz) >> HWR_CYC_MEM_BYTE_SHIFT : 0;
   } else {
      memset(rs, 0, count);
   }
   /* An output the shader does not write reads as 0 (and, as ever, keeps
    * what an earlier instance wrote); only slots below the count are
    * read (vs_hook refuses others). */
   if (ok)
      memset(out, 0, out_bytes);
   uint32_t rmask = isz == 1 ? 0xff : isz == 2 ? 0xffff : 0xffffffff;
   for (uint32_t inst = 0; ok && inst < instances; inst++) {
      for (uint32_t i = 0; i < count; i++) {
         uint32_t x = start + i;
         if (indexed) {
            uint32_t raw = 0;
            memcpy(&raw, idx + (size_t)i * isz, isz);
            rs[i] = il->restart_enable && raw == (v->restart_index & rmask);
            x = raw + start;
         }
         vid[i] = x;
         iid[i] = inst;
      }
      ok = ((instances == 1 && vs_ahead_take(v, va, vid, iid, rs, count, out)) ||
            shade_indexed(v, vid, iid, rs, count, out)) &&
           assemble(v, il->primitive, out, rs, count);
   }
   hwr_scratch_trim(v->scratch);
   return ok;
}

static bool
index_list(struct vctx *v, uint64_t va, const uint8_t *p, unsigned *len)
{
   struct hwr_job *j = v->j;
   agx_unpack(p, INDEX_LIST, il);
   unsigned n = 4;
   uint32_t lo = 0, count = 0, inst = 1, start = 0, size = 0;
   uint64_t indirect = 0;
   if (il.index_buffer_present) { lo = rd32(p + n); n += 4; }
   if (il.index_count_present) { count = rd32(p + n); n += 4; }
   if (il.instance_count_present) { inst = rd32(p + n); n += 4; }
   if (il.start_present) { start = rd32(p + n); n += 4; }
   if (il.unk_1_present) n += 8;
   if (il.indirect_buffer_present) {
      agx_unpack(p + n, INDEX_LIST_INDIRECT_BUFFER, ib);
      indirect = (uint64_t)ib.address_hi << 32 | ib.address_lo;
      n += 8;
   }
   if (il.unk_2_present) n += 4;
   if (il.index_buffer_size_present) {
      agx_unpack(p + n, INDEX_LIST_BUFFER_SIZE, bs);
      size = bs.size;
      n += 4;
   }
   *len = n;
   if (indirect) {
      /* GL/Vulkan indirect layouts: count, instances, first, base vertex
       * (indexed) or count, instances, first vertex (non-indexed). */
      uint32_t a[5];
      j->mmu.unit = HW_UNIT_VDM;
      /* 5 words indexed, 4 not: read only the record's own bytes. */
      if (!hwr_read(j, &j->mmu, indirect, a, il.index_buffer_present ? 20 : 16))
         return false;
      count = a[0];
      inst = a[1];
      if (il.index_buffer_present) {
         lo += a[2] << il.index_size;
         start = a[3];
      } else {
         start = a[2];
      }
   }
   uint64_t ibuf = (uint64_t)il.index_buffer_hi << 32 | lo;
   struct hw_prof_entry *pe = j->prof ? hwr_prof_draw_begin(j->prof, va) : NULL;
   if (!pe)
      return draw(v, va, &il, ibuf, count, inst, start, size);
   /* The draw's own vertex-side work: everything the job did during it
    * but the partial renders it triggered (fragment work of the pass). */
   pe->vs = v->has_vs && v->vsp_valid ? v->vsp.code_va : 0;
   pe->count = count;
   pe->instances = inst;
   uint64_t c0 = j->cycles, ps0 = j->prof->partial_span;
   unsigned pr0 = j->prof->partials;
   struct hw_render_stats s0 = v->stats;
   uint64_t in0 = v->prims_in, tb0 = v->tvb_bytes, vi0 = v->vs_instructions;
   bool ok = draw(v, va, &il, ibuf, count, inst, start, size);
   /* The entry may have moved: a partial render does not grow the array,
    * but take it again by index to be safe. */
   pe = &j->prof->draws[j->prof->ndraws - 1];
   hwr_prof_draw_end(j->prof, v->prim_id);
   pe->c[HW_PROF_VERTEX_CYCLES] += (j->cycles - c0) - (j->prof->partial_span - ps0);
   pe->c[HW_PROF_PARTIAL_RENDERS] += j->prof->partials - pr0;
   pe->c[HW_PROF_VERTICES] += v->stats.vertices - s0.vertices;
   pe->c[HW_PROF_PRIMS_IN] += v->prims_in - in0;
   pe->c[HW_PROF_PRIMS_CLIPPED] += v->stats.clipped - s0.clipped;
   pe->c[HW_PROF_PRIMS_CULLED] += v->stats.culled - s0.culled;
   pe->c[HW_PROF_PRIMS_BINNED] += v->stats.primitives - s0.primitives;
   pe->c[HW_PROF_BIN_REFS] += v->stats.bin_refs - s0.bin_refs;
   pe->c[HW_PROF_TVB_BYTES] += v->tvb_bytes - tb0;
   pe->c[HW_PROF_VS_INSTRUCTIONS] += v->vs_instructions - vi0;
   return ok;
}

static bool
vdm_state(struct vctx *v, uint64_t pc, const uint8_t *p, unsigned *len)
{
   struct hwr_job *j = v->j;
   agx_unpack(p, VDM_STATE, h);
   unsigned n = 4;
   if (h.restart_index_present) { v->restart_index = rd32(p + n); n += 4; }
   if (h.vertex_shader_word_0_present) {
      agx_unpack(p + n, VDM_STATE_VERTEX_SHADER_WORD_0, w0);
      v->vs_sampler_stride = hw_tex_sampler_stride(w0.sampler_state_register_count);
      v->vsp.sampler_stride = v->vs_sampler_stride;
      n += 4;
   }
   if (h.vertex_shader_word_1_present) {
      agx_unpack(p + n, VDM_STATE_VERTEX_SHADER_WORD_1, w1);
      v->vs_pipeline = (uint32_t)w1.pipeline;
      v->has_vs = true;
      n += 4;
      struct hw_mmu um;
      hw_mmu_init(&um, j->ej->dev, j->ej->vm_slot, HW_UNIT_USC);
      v->vsp_valid = vs_ahead_pipeline(v, pc, v->vs_pipeline, &v->vsp) ||
                     vs_pipeline_load(j, &um, v->vs_pipeline, &v->vsp);
      if (!v->vsp_valid)
         return false;
      v->vsp.sampler_stride = v->vs_sampler_stride;
   }
   if (h.vertex_outputs_present) {
      agx_unpack(p + n, VDM_STATE_VERTEX_OUTPUTS, o);
      /* Mesa's asahi sets both counts to the UVS size: the first is the
       * count the vertex side uses. */
      v->outputs = o.output_count_1;
      n += 4;
   }
   if (h.tessellation_present) return hwr_fail(j, "tessellation is not modelled");
   if (h.vertex_unknown_present) n += 4;
   if (h.tessellation_scale_present) n += 4;
   else n = (n + 7) & ~7u;
   *len = n;
   return true;
}

bool
hwr_vertex_job(struct hwr_job *j)
{
   struct vctx *v = calloc(1, sizeof(*v));
   unsigned ntiles = j->tiles_x * j->tiles_y * j->layers;
   if (!v)
      return hwr_fail(j, "out of host memory");
   v->j = j;
   v->took_scratch = !atomic_exchange(&j->r->vscratch_busy, true);
   v->scratch = v->took_scratch ? &j->r->vscratch : &v->own_scratch;
   v->heap = j->pl->tvb_heap;
   v->size = j->pl->tvb_heap_size;
   v->head = calloc(ntiles, sizeof(uint32_t));
   v->tail = calloc(ntiles, sizeof(uint32_t));
   v->count = calloc(ntiles, sizeof(uint32_t));
   bool ok = v->head && v->tail && v->count;
   if (!ok)
      hwr_fail(j, "out of host memory");
   tvb_reset(v);
   v->peak = v->used;
   /* Kept with the scratch (its arrays' pages stay mapped), else the
    * job's own; none when out of memory: shading ahead is only speed. */
   if (ok && hwr_vs_ahead) {
      if (v->took_scratch && !j->r->vahead)
         j->r->vahead = calloc(1, sizeof(*v->ahead));
      v->ahead = v->took_scratch ? j->r->vahead : calloc(1, sizeof(*v->ahead));
      if (v->ahead)
         v->ahead->n = v->ahead->next = 0;
   }

   uint64_t pc = j->pl->vdm_stream_base, stack[VDM_CALL_DEPTH];
   unsigned sp = 0, blocks = 0;
   bool done = false;
   while (ok && !done) {
      if (++blocks > VDM_MAX_BLOCKS || hw_exec_should_stop(j->ej)) {
         if (j->status == HW_EXEC_OK)
            j->status = HW_EXEC_TIMEOUT;
         ok = false;
         break;
      }
      uint8_t b[64];
      j->mmu.unit = HW_UNIT_VDM;
      if (!hwr_read(j, &j->mmu, pc, b, 4)) { ok = false; break; }
      unsigned type = b[3] >> 5;
      /* Every block is at most 48 bytes; fetch what the type needs. */
      unsigned want = type == AGX_VDM_BLOCK_TYPE_BARRIER ? 4 : 48;
      if (want > 4) {
         memset(b, 0, sizeof(b));
         for (unsigned got = 0; got < want; got += 4)
            if (!hw_mmu_read(&j->mmu, pc + got, b + got, 4)) {
               if (got < 8) { ok = hwr_fault(j, &j->mmu); break; }
               memset(&j->mmu.fault, 0, sizeof(j->mmu.fault));
               break;
            }
         if (!ok) break;
      }
      j->cycles += HWR_CYC_VDM_BLOCK;
      unsigned len = 0;
      switch (type) {
      case AGX_VDM_BLOCK_TYPE_PPP_STATE_UPDATE: {
         agx_unpack(b, PPP_STATE, s);
         ok = ppp_update(v, (uint64_t)s.pointer_hi << 32 | s.pointer_lo,
                         s.size_words * 4);
         len = AGX_PPP_STATE_LENGTH;
         break;
      }
      case AGX_VDM_BLOCK_TYPE_BARRIER: {
         agx_unpack(b, VDM_BARRIER, br);
         if (br.returns) {
            if (!sp) { ok = hwr_fail(j, "VDM return at 0x%llx without a call", (unsigned long long)pc); break; }
            pc = stack[--sp];
            continue;
         }
         len = 4;
         break;
      }
      case AGX_VDM_BLOCK_TYPE_VDM_STATE_UPDATE:
         ok = vdm_state(v, pc, b, &len);
         break;
      case AGX_VDM_BLOCK_TYPE_INDEX_LIST:
         /* A partial render voids what was shaded ahead: look again. */
         if (v->ahead && (v->ahead->next >= v->ahead->n ||
                          v->ahead->partials != j->partials))
            vs_ahead_scan(v, pc, stack, sp);
         ok = index_list(v, pc, b, &len);
         break;
      case AGX_VDM_BLOCK_TYPE_STREAM_LINK: {
         agx_unpack(b, VDM_STREAM_LINK, l);
         uint64_t to = (uint64_t)l.target_hi << 32 | l.target_lo;
         if (l.with_return) {
            if (sp == VDM_CALL_DEPTH) { ok = hwr_fail(j, "VDM calls nest deeper than %u", VDM_CALL_DEPTH); break; }
            stack[sp++] = pc + AGX_VDM_STREAM_LINK_LENGTH;
         }
         pc = to;
         continue;
      }
      case AGX_VDM_BLOCK_TYPE_STREAM_TERMINATE:
         done = true;
         break;
      default:
         ok = hwr_fail(j, "VDM block type %u at 0x%llx is not supported", type,
                       (unsigned long long)pc);
         break;
      }
      pc += len;
   }
   if (ok)
      ok = tvb_flush(v);
   if (ok && j->partials)
      hwr_post_grow(j);
   v->stats.vertex_cycles = 0;
   hwr_stats_add(j->r, &v->stats);
   free(v->head);
   free(v->tail);
   free(v->count);
   free(v->stack);
   hwr_scratch_free(&v->own_scratch);
   if (!v->took_scratch)
      hwr_vs_ahead_free(v->ahead);
   if (v->took_scratch)
      atomic_store(&j->r->vscratch_busy, false);
   free(v);
   return ok;
}

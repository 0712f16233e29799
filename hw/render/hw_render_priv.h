/* SPDX-License-Identifier: MIT */
/*
 * hwrender internals shared by the vertex side (hw_render_vtx.c), the
 * fragment side (hw_render_frag.c) and the glue (hw_render.c).
 */
#ifndef HW_RENDER_PRIV_H
#define HW_RENDER_PRIV_H

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "cmdstream/agx_fw_pack.h"
#include "cmdstream/agx_pack.h"
#include "hw/hw_fw.h"
#include "hw/hw_profile.h"
#include "hw/render/hw_render.h"
#include "hw/tex/hw_tex.h"
#include "hw/usc/hw_usc.h"

#define HWR_BIN 32                 /* binning tile (always 32x32) */
#define HWR_MAX_LAYERS 2048        /* framebuffer layers (the uAPI's limit) */
/* Bins of a pass, tiles x layers: the binner keeps three words per bin on
 * the host. 2^22 is 16 layers of the largest framebuffer; the kernel's
 * 4 MiB tilemap cap (64 bytes a tile and layer) allows 2^16. */
#define HWR_MAX_BINS (1u << 22)
/* Vertex output slots (32-bit each) and coefficient registers: the VDM
 * Vertex Outputs count, the TVB primitive's varying count and a CF
 * binding's base register are 8-bit fields, so the hardware takes up to
 * 255 slots (Mesa's asahi: 32 vec4 varyings + position + point size +
 * clip distances). A 64 limit here refused GL 2.1's own maximum (64
 * varying components + position = 68 slots: piglit varying-packing). */
#define HWR_MAX_SLOTS 255
#define HWR_MAX_SAMPLES 4
#define HWR_MAX_CF 256             /* coefficient registers per primitive */
#define HWR_LIST_REFS 14           /* primitive references per list block */
#define HWR_LIST_BLOCK 64

#define HWR_FLAG_DBIAS_IS_INT (1u << 18)   /* payload Flags (uAPI render flag) */

#define HWR_SR_COVERAGE 124        /* input_sample_mask */
#define HWR_SR_BACKFACING 62
#define HWR_SR_SAMPLES_LOG2 14     /* log2 of the pass's samples per pixel */

/* Cycle model (docs/rendering.md, "Timing"). */
#define HWR_CYC_VDM_BLOCK 4
#define HWR_CYC_VERTEX_FETCH 2     /* per vertex, index fetch + launch */
#define HWR_CYC_PRIM_SETUP 8       /* assembly, clip test, cull, viewport */
#define HWR_CYC_BIN_REF 2          /* one tile reference */
#define HWR_CYC_TILE 64            /* per utile: setup, bg/eot launch */
#define HWR_CYC_RASTER_PIXEL 1     /* per pixel tested */
#define HWR_CYC_FRAGMENT 2         /* per pixel shaded: launch + output */
#define HWR_CYC_MEM_BYTE_SHIFT 4   /* 16 bytes per cycle of memory traffic */
#define HWR_CORES 8                /* tile work is spread over 8 cores */

/* A window coordinate on the rasteriser's 1/256-pixel grid, in 1/256
 * pixels (halves round away from zero).  The vertex side snaps with it for
 * binning and culling, the fragment side for coverage: both must agree. */
static inline int64_t
hwr_snap256(float x)
{
   float y = x * 256.0f;
   /* Fast path for every coordinate a viewport can produce: llroundf is a
    * libm call per vertex on both sides (~1% of a small-draw trace).
    * Below 2^23 the truncation t fits an int32 and y - t is exact
    * (Sterbenz: t and y are within a factor of 2, or t is 0), so the
    * half-away-from-zero rounding below is llroundf's, bit for bit.  NaN,
    * infinities and larger magnitudes take llroundf itself (the reference;
    * tests/unit/test_hw_render.c compares the two). */
   if (fabsf(y) < 8388608.0f) {
      int32_t t = (int32_t)y;
      float f = y - (float)t;
      /* The rounding step as flags, not branches: the fraction of a
       * window coordinate is as good as random, and the two branches
       * mispredicted on most vertices (most of to_window_snapped's and
       * a fifth of load_prim's time). Same values: at most one of the
       * two comparisons holds. */
      return t + (int32_t)(f >= 0.5f) - (int32_t)(f <= -0.5f);
   }
   return (int64_t)llroundf(y);
}

/* The render core's speed-only fast paths (hw_render_vtx.c: trivial
 * clip accept; hw_render_frag.c: one read per primitive record, a tile's
 * TLBs warmed from the worker's previous tile).  On by
 * default; the unit tests turn them off to render the same scene through
 * the general paths and require identical images and cycles.  Not for
 * production use: set it only while no job runs. */
extern bool hwr_fast_paths;
/* Whether the loops with an AVX2 copy (hw_render_frag.c,
 * HWR_AVX2_COPIES) run it: set at load when the host CPU has AVX2; tests
 * clear it to run the baseline copies, which must give the same bits.
 * Set it only while no job runs. */
extern bool hwr_host_avx2;
/* The preshader memo (hw_render.c), on unless hwr_fast_paths is off;
 * tests turn it off alone to compare against runs of every preshader. */
extern bool hwr_pre_memo;
/* Pipeline loads that took a kept preshader result (tests check the
 * path runs). */
extern _Atomic uint64_t hwr_pre_memo_hits;
/* Shading small draws ahead on the pool (hw_render_vtx.c, vs_ahead_scan),
 * on by default; tests turn it off for the in-order reference. Set it
 * only while no job runs. */
extern bool hwr_vs_ahead;
/* Draws whose rows shaded ahead were used (tests check the path runs). */
extern _Atomic uint64_t hwr_vs_ahead_used;
/* Vertex pipelines loaded (hwr_pipeline_load), by the look-ahead and by
 * the in-order walk: tests check that one the look-ahead loaded is
 * handed over, not loaded again, and that it is loaded again when what
 * it read may have changed. */
extern _Atomic uint64_t hwr_vs_pipeline_loads;
struct vs_ahead;
void hwr_vs_ahead_free(struct vs_ahead *a);

enum hwr_stage { HWR_VERTEX, HWR_FRAGMENT, HWR_TILE_PROGRAM, HWR_EOT };


/* Texture / Sampler words a pipeline keeps (one per render target in
 * Mesa's background and end-of-tile programs, plus spilled targets'). */
#define HWR_MAX_SLOT_WORDS 16

/* A parsed USC word list (a "pipeline"). */
struct hwr_pipeline {
   const struct hw_usc_shader *shader;
   unsigned gprs;
   uint32_t uniforms[HW_USC_NUM_UNIFORMS];
   struct hw_tex_slots tex[HWR_MAX_SLOT_WORDS], smp[HWR_MAX_SLOT_WORDS];
   unsigned ntex, nsmp;
   unsigned sampler_stride;  /* from the stage's Sampler States count */
   bool has_shared;
   struct agx_usc_shared shared;
   uint64_t code_va;                  /* the shader's code (profiles) */
};

/* A host buffer that grows and is kept (hwr_scratch_get). */
struct hwr_scratch {
   void *p;
   size_t size;
};

/* A kept buffer larger than this is freed after use (hwr_scratch_trim):
 * one huge draw must not pin its memory for the rest of the process. */
#define HWR_SCRATCH_KEEP (64u << 20)

struct hw_render {
   struct hw_device *dev;
   uint64_t id;                       /* unique per renderer (the preshader memo) */
   struct hw_usc_cache *cache;
   unsigned threads;
   uint64_t insn_budget;              /* per SIMD group launch */
   /* Test hook TESSERA_HW_TILE_STALL=LAYER:MS (read at create): every
    * fragment tile of that layer sleeps MS milliseconds before it runs,
    * so that with two or more threads the tiles after it run first on
    * another thread. It makes races between tiles deterministic
    * (tests/gl/asahi_tile_order.sh); the results do not change. */
   unsigned tile_stall_layer, tile_stall_ms;

   /* worker pool (threads - 1 workers; the caller of a dispatch is the
    * last thread); run_lock: one caller at a time (the firmware runs one
    * job at a time, but hw_render_execute callers may not) */
   pthread_t *workers;
   pthread_mutex_t run_lock;
   pthread_mutex_t lock;
   pthread_cond_t cond, done_cond;
   bool quit;
   uint64_t gen;
   void (*fn)(void *ctx, unsigned worker, unsigned item);
   void *ctx;
   unsigned items, busy, tickets;   /* tickets: workers still wanted */
   atomic_uint next;

   pthread_mutex_t stats_lock;
   struct hw_render_stats stats;

   /* Profiling (hw_render_prof.c): the callback, and the vertex jobs'
    * records waiting for their fragment jobs. */
   pthread_mutex_t prof_lock;
   hw_prof_fn prof_fn;
   void *prof_user;
   struct hwr_prof *prof_pending;

   /* The vertex job's per-draw arrays (hw_render_vtx.c), kept from draw
    * to draw and job to job: the shaded outputs were 1 KiB a vertex
    * (rows of 255 slots; now of the draw's output count), and memory
    * freshly mapped for every draw cost a page fault per 4 KiB
    * (a fifth of a replay's time). Taken with vscratch_busy, so a second
    * vertex job running at the same time allocates its own. */
   struct hwr_scratch vscratch;
   atomic_bool vscratch_busy;
   /* The look-ahead's draws and arrays (hw_render_vtx.c, vs_ahead_scan),
    * kept likewise with vscratch. */
   struct vs_ahead *vahead;
};

/* One job's context (vertex or fragment). */
struct hwr_job {
   struct hw_render *r;
   const struct hw_exec_job *ej;
   const struct agx_fw_render_payload *pl;
   struct hw_mmu mmu;                 /* firmware-thread view */
   unsigned tiles_x, tiles_y;
   /* Framebuffer layers (payload Layers, 0 read as 1): the tilemap holds
    * tiles_x x tiles_y bins per layer, layer-major, and the fragment pass
    * runs every tile once per layer (docs/rendering.md, "Layers"). */
   unsigned layers;
   uint64_t cycles;
   enum hw_exec_status status;
   struct hw_fault fault;
   char message[128];
   unsigned partials;                 /* partial renders so far */
   struct hwr_prof *prof;             /* NULL: not profiling */
};

/*
 * One render pass's profile (hw_render_prof.c). The vertex job appends a
 * draw per Index List; primitive IDs grow through a vertex job, so
 * draw_end[k] (the last ID of draw k) maps a binned primitive back to its
 * draw. A fragment pass (partial or final) accumulates per host worker
 * (acc: nworkers x (ndraws + 1), the last one the overhead), then merges
 * and shares its time out (hwr_prof_frag_end).
 */
struct hwr_prof {
   struct hwr_prof *next;             /* pending list */
   unsigned vm_slot;
   uint64_t payload;
   uint32_t vertex_job_id;
   struct hw_prof_entry *draws;
   uint32_t *draw_end;
   unsigned ndraws, cap;
   struct hw_prof_entry overhead;
   uint64_t partial_span;             /* fragment cycles inside the vertex job */
   unsigned partials;
   struct hw_prof_entry *acc;
   unsigned nworkers;
};

/* Tests set this (before a render) to run every primitive's early
 * depth/stencil tests through the fragment pipe's general per-sample loop,
 * triangle coverage through the per-group edge tests and hidden-surface
 * removal's gather through its per-sample walk: the references the fast
 * paths must match bit for bit (images, depth, stencil, cycles, profile
 * counters). */
extern bool hwr_isp_general;

/* Error helpers: record the first failure; return false. */
bool hwr_fail(struct hwr_job *j, const char *fmt, ...)
   __attribute__((format(printf, 2, 3)));
bool hwr_fault(struct hwr_job *j, const struct hw_mmu *m);
bool hwr_read(struct hwr_job *j, struct hw_mmu *m, uint64_t va, void *dst,
              size_t size);

/* Parses the USC words at usc_base + offset into p (fetching and caching
 * the shader). */
bool hwr_pipeline_load(struct hwr_job *j, struct hw_mmu *m, uint32_t offset,
                       enum hwr_stage stage, struct hwr_pipeline *p);
/*
 * Gives wg the stack `shader` reserves (hw_usc_shader_stack_bytes) for
 * `threads` threads from *buf (*size bytes; grown, zero-filled when it
 * is, kept by the caller, who frees it): a shader using scratch gets a
 * stack in any stage. Nothing when it reserves none; false (job failed)
 * without host memory.
 */
bool hwr_stack(struct hwr_job *j, uint8_t **buf, size_t *size,
               const struct hw_usc_shader *shader, unsigned threads,
               struct hw_usc_workgroup *wg);
/* Texture/PBE descriptor address of state slot `slot`, 0 if none. */
uint64_t hwr_pipeline_texture(const struct hwr_pipeline *p, unsigned slot);

/* Runs fn(ctx, worker, item) for items 0..n-1 on the pool (waiting
 * for another caller's run to end). */
void hwr_pool_run(struct hw_render *r, unsigned n,
                  void (*fn)(void *ctx, unsigned worker, unsigned item),
                  void *ctx);
/* The same when the pool has more than one thread, n > 1 and no other
 * caller is running it; false (nothing run) otherwise: the caller then
 * runs the items itself. */
bool hwr_pool_try_run(struct hw_render *r, unsigned n,
                      void (*fn)(void *ctx, unsigned worker, unsigned item),
                      void *ctx);

void hwr_stats_add(struct hw_render *r, const struct hw_render_stats *s);

/* Fragment pass over the TVB (hw_render_frag.c). partial_eot selects
 * the partial end-of-tile program, partial_bg the partial background. */
bool hwr_fragment_pass(struct hwr_job *j, bool partial_bg, bool partial_eot);

/* Vertex job (hw_render_vtx.c). */
bool hwr_vertex_job(struct hwr_job *j);

/* At least `need` bytes of s's buffer (contents undefined), growing it;
 * NULL when out of memory (the buffer is then empty). */
void *hwr_scratch_get(struct hwr_scratch *s, size_t need);
/* Frees the buffer if it is larger than HWR_SCRATCH_KEEP. */
void hwr_scratch_trim(struct hwr_scratch *s);
void hwr_scratch_free(struct hwr_scratch *s);

/* Profiling (hw_render_prof.c). */
/* The job's record: a new one for a vertex job, the vertex job's for a
 * fragment job (or a new one without draws); NULL when not profiling. */
struct hwr_prof *hwr_prof_job_begin(struct hw_render *r, const struct hw_exec_job *ej);
/* Vertex job: opens draw `addr` (its primitives are those emitted until
 * hwr_prof_draw_end); NULL when out of memory (then not counted). */
struct hw_prof_entry *hwr_prof_draw_begin(struct hwr_prof *p, uint64_t addr);
void hwr_prof_draw_end(struct hwr_prof *p, uint32_t last_prim_id);
/* Vertex job done: its overhead is `cycles` less the draws' and the
 * partial renders'; the record waits for the fragment job (ok) or is
 * dropped. */
void hwr_prof_vertex_end(struct hw_render *r, struct hwr_prof *p, uint64_t cycles, bool ok);
/* Fragment job done: the firmware's fixed costs join the overhead and the
 * pass goes to the callback; p is freed. */
void hwr_prof_fragment_end(struct hw_render *r, struct hwr_prof *p,
                           const struct hw_exec_job *ej, uint64_t cycles);
/* Fragment pass accumulation: per-worker arrays; the entry of primitive
 * `prim_id` (the overhead when it is no draw's); the pass's span shared
 * out over the draws by the fragment work recorded in them. */
bool hwr_prof_frag_begin(struct hwr_prof *p, unsigned nworkers);
struct hw_prof_entry *hwr_prof_frag_entry(struct hwr_prof *p, unsigned worker,
                                          uint32_t prim_id);
struct hw_prof_entry *hwr_prof_frag_overhead(struct hwr_prof *p, unsigned worker);
void hwr_prof_frag_end(struct hwr_prof *p, uint64_t span);
void hwr_prof_free(struct hwr_prof *p);

/* Reports the GrowTVB event (hw_render.c). */
void hwr_post_grow(struct hwr_job *j);

#endif

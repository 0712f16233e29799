/* SPDX-License-Identifier: MIT */
/*
 * The tessera context: bound state, shaders and batches.
 *
 * A batch is one render pass (one framebuffer): a VDM control stream, the
 * PPP records, USC words and uniforms it points at, the BOs it uses, and
 * the clear/load/store decisions for its attachments. It becomes one
 * drm_asahi_cmd_render on flush: on framebuffer change, on a CPU access to
 * a resource it writes (tessera_flush_writer), on pipe->flush, and when a
 * later batch samples what it renders.
 *
 * At most one batch is being recorded at a time (ctx->batch); the other
 * slots hold submitted batches until their syncobj signals, so the BOs
 * their streams point at stay alive and CPU accesses can wait for them.
 * GPU-side ordering between batches comes from the queue: render commands
 * of one queue run in submission order.
 */
#ifndef TESSERA_CONTEXT_H
#define TESSERA_CONTEXT_H

#include "pipe/p_context.h"
#include "pipe/p_state.h"
#include "util/u_dynarray.h"
#include "util/u_upload_mgr.h"
#include "util/hash_table.h"
#include "compiler/tc_compiler.h"
#include "tessera_screen.h"
#include "tessera_resource.h"

#define TESSERA_MAX_BATCHES 8
#define TESSERA_MAX_TEXTURES 16
#define TESSERA_MAX_SAMPLERS 16
#define TESSERA_DESC_SIZE 24          /* TEXTURE / PBE descriptors */

struct tessera_batch;
struct tessera_query;

/* ---------------------------------------------------------------- CSOs */

struct tessera_sampler_state {
   struct pipe_sampler_state base;
   uint8_t desc[8];                   /* SAMPLER */
   bool custom_border;                /* Custom: needs an extended table */
};

struct tessera_sampler_view {
   struct pipe_sampler_view base;
   uint8_t desc[TESSERA_DESC_SIZE];   /* TEXTURE */
};

struct tessera_vertex_elements {
   unsigned count;
   struct pipe_vertex_element ve[PIPE_MAX_ATTRIBS];
};

struct tessera_variant {
   union tc_key key;
   struct tc_shader_binary bin;
   struct tessera_bo *bo;             /* LOW_VA: the code */
   uint32_t code;                     /* USC offset of the code */
};

struct tessera_shader {
   enum tc_stage stage;
   nir_shader *nir;
   struct hash_table *variants;       /* union tc_key -> tessera_variant */
   bool failed_once;                  /* a compile error was printed */
   /* Fragment shaders: `nir` with the polygon stipple lowered
    * (nir_lower_pstipple_fs), made on first use; it samples the stipple
    * texture at unit stipple_unit (after the shader's own units). */
   nir_shader *nir_stipple;
   unsigned stipple_unit;
   /* Texture units (bit = texture index < 16) the shader samples with a
    * shadow compare: only those take part in the key's shadow_clamp_mask,
    * so binding a Z24 texture does not make variants of other shaders. */
   uint16_t shadow_textures;
};

/* ------------------------------------------------------------- state */

struct tessera_context_state {
   struct pipe_blend_state *blend;
   struct pipe_rasterizer_state *rast;
   struct pipe_depth_stencil_alpha_state *zsa;
   struct tessera_vertex_elements *ve;
   struct tessera_shader *vs, *fs;

   struct pipe_vertex_buffer vb[PIPE_MAX_ATTRIBS];
   uint32_t vb_mask;

   struct pipe_constant_buffer cb[PIPE_SHADER_TYPES];   /* slot 0 only */

   struct tessera_sampler_state *samplers[PIPE_SHADER_TYPES][TESSERA_MAX_SAMPLERS];
   unsigned nr_samplers[PIPE_SHADER_TYPES];
   struct pipe_sampler_view *views[PIPE_SHADER_TYPES][TESSERA_MAX_TEXTURES];
   unsigned nr_views[PIPE_SHADER_TYPES];

   struct pipe_framebuffer_state fb;
   struct pipe_viewport_state viewport;
   struct pipe_scissor_state scissor;
   struct pipe_blend_color blend_color;
   struct pipe_stencil_ref stencil_ref;
   unsigned sample_mask;
   struct pipe_clip_state clip;       /* user clip planes (tc_vs_key.ucp_enables) */
};

/* A bump allocator over a list of BOs, reset when its batch retires. */
struct tessera_pool {
   struct tessera_screen *screen;
   unsigned flags;                    /* TESSERA_BO_LOW_VA, _GPU_READONLY */
   const char *label;
   struct util_dynarray bos;          /* struct tessera_bo * */
   unsigned current;                  /* index in bos */
   uint64_t offset;                   /* in bos[current] */
};

enum tessera_batch_state {
   TESSERA_BATCH_FREE,
   TESSERA_BATCH_ACTIVE,
   TESSERA_BATCH_SUBMITTED,
};

/* Tilebuffer layout of a framebuffer. */
struct tessera_tib {
   enum tc_tib_format format[PIPE_MAX_COLOR_BUFS];
   uint16_t offset[PIPE_MAX_COLOR_BUFS];
   unsigned sample_size;              /* bytes per sample, multiple of 4 */
   unsigned samples;
   unsigned tile_w, tile_h;
};

struct tessera_batch {
   struct tessera_context *ctx;
   unsigned slot;
   enum tessera_batch_state state;
   uint64_t seqno;

   struct pipe_framebuffer_state fb;  /* references held */
   struct tessera_tib tib;
   unsigned width, height;

   struct tessera_pool pool;          /* main heap: streams, uniforms, descriptors */
   struct tessera_pool low_pool;      /* USC heap: USC words, CF bindings */
   struct tessera_pool gpu_pool;      /* GPU-written: occlusion counters */

   /* VDM stream being written. */
   uint8_t *vdm_map;
   uint64_t vdm_va;
   unsigned vdm_len, vdm_cap;
   uint64_t vdm_head;                 /* first block */

   struct util_dynarray scissor;      /* AGX Scissor entries */
   struct util_dynarray depth_bias;   /* AGX Depth Bias entries */

   unsigned clear;                    /* PIPE_CLEAR_* recorded */
   unsigned draws;                    /* draw calls recorded */
   uint64_t vertices;                 /* their vertices x instances */
   union pipe_color_union clear_color[PIPE_MAX_COLOR_BUFS];
   double clear_depth;
   unsigned clear_stencil;

   struct util_dynarray resources;    /* struct pipe_resource * read or written (refs) */
   uint32_t syncobj;

   /* Occlusion queries counted by this pass: entry i is counter i of
    * the ISP Oclqry array (oq_counters, CPU view, once submitted). */
   struct util_dynarray occlusion;    /* struct tessera_query * */
   uint64_t *oq_counters;

   /* Timer queries fed by this pass (TIME_ELAPSED inside which it was
    * submitted, TIMESTAMP taken after it), and whether the firmware
    * writes its start/end GPU timestamps into the context's timestamp
    * object (slot = this batch's slot). */
   struct util_dynarray timers;       /* struct tessera_query * */
   bool timestamped;
   /* The slot's start/end ticks when it was handed to this pass (the
    * previous pass's): unchanged at retirement means not written. */
   uint64_t ts_before[2];
};

/* --------------------------------------------------------- the context */

struct tessera_context {
   struct pipe_context base;
   struct tessera_screen *screen;
   uint32_t queue_id;
   uint32_t syncobj;                  /* out-sync of the last submission */
   uint64_t submitted;                /* submissions so far */
   struct tessera_context_state *state;
   struct tessera_batch *batches[TESSERA_MAX_BATCHES];
   struct tessera_batch *batch;       /* current, or NULL */
   uint64_t seqno;

   struct hash_table *bgeot_cache;    /* program text -> USC offset of its code */
   struct tessera_pool program_pool;  /* bg/eot code, lives with the context */
   struct util_dynarray shader_bos;   /* variant BOs this context uploaded (trace) */
   struct primconvert_context *primconvert;   /* quads, polygons; created on use */
   struct blitter_context *blitter;           /* clears inside a pass; created on use */
   uint64_t clears_in_pass;                   /* such clears so far (tests, perf) */
   struct tessera_query *occlusion_query;     /* active, or NULL */
   /* Polygon stipple (set_polygon_stipple): the 32x32 pattern as Gallium's
    * u_pstipple A8 texture, its view and a nearest/repeat sampler, bound
    * at tessera_shader.stipple_unit of fragment variants that stipple. */
   struct pipe_resource *stipple_tex;
   struct pipe_sampler_view *stipple_view;
   void *stipple_sampler;
   bool queries_active;                       /* set_active_query_state */
   /* The draw being recorded is a polygon outline made on the CPU
    * (tessera_draw.c, draw_outline): its lines/points take the polygon
    * offset of the polygon mode. */
   bool drawing_outline;

   /* GPU timestamps (tessera_query.c): one object the firmware writes the
    * start and end ticks of every render pass into, two per batch slot. */
   struct tessera_bo *ts_bo;
   uint32_t ts_object;                        /* GEM_BIND_OBJECT handle */
   bool ts_failed;                            /* no timestamps: said once */
   struct tessera_query *active_timers;       /* TIME_ELAPSED running */
   uint64_t last_submit_seqno;                /* newest timestamped pass */
   uint64_t last_end_ticks;                   /* its end, once retired */
};

static inline struct tessera_context *
tessera_context(struct pipe_context *p)
{
   return (struct tessera_context *)p;
}

struct pipe_context *tessera_context_create(struct pipe_screen *screen, void *priv,
                                            unsigned flags);

/* Fences (tessera_fence.c): a syncobj signalled by a submission. */
void tessera_init_screen_fence_functions(struct pipe_screen *screen);

/* Submit everything pending and optionally wait. */
void tessera_flush_all(struct tessera_context *ctx, const char *reason);

/* ---- tessera_state.c */
void tessera_init_state_functions(struct pipe_context *pctx);
void tessera_cleanup_state(struct tessera_context *ctx);

/* ---- tessera_shader.c */
void tessera_init_shader_functions(struct pipe_context *pctx);
struct tessera_variant *tessera_get_variant(struct tessera_context *ctx,
                                            struct tessera_shader *so,
                                            const union tc_key *key);

/* ---- tessera_batch.c */
void tessera_pool_init(struct tessera_pool *pool, struct tessera_screen *s,
                       unsigned flags, const char *label);
void tessera_pool_fini(struct tessera_pool *pool);
void tessera_pool_reset(struct tessera_pool *pool);
/* size bytes aligned to align; returns the CPU pointer, *va the GPU
 * address; NULL when out of memory. */
void *tessera_pool_alloc(struct tessera_pool *pool, size_t size, unsigned align,
                         uint64_t *va);
uint64_t tessera_pool_upload(struct tessera_pool *pool, const void *data, size_t size,
                             unsigned align);

/* The batch for the bound framebuffer (flushing another one), or NULL
 * when no batch can be had (the reason printed). */
struct tessera_batch *tessera_get_batch(struct tessera_context *ctx);
void tessera_batch_flush(struct tessera_batch *batch, const char *reason);
/* Wait for a submitted batch and retire it. */
void tessera_batch_wait(struct tessera_batch *batch);
void tessera_batch_reads(struct tessera_batch *batch, struct pipe_resource *prsc);
void tessera_batch_writes(struct tessera_batch *batch, struct pipe_resource *prsc);
void *tessera_batch_vdm_reserve(struct tessera_batch *batch, unsigned size);
void tessera_batch_vdm_advance(struct tessera_batch *batch, unsigned size);
void tessera_batches_fini(struct tessera_context *ctx);
void tessera_tib_layout(const struct pipe_framebuffer_state *fb, struct tessera_tib *tib);

/* ---- tessera_bgeot.c */
/* USC word list offsets (64-byte aligned) of the batch's programs. */
struct tessera_bgeot {
   uint32_t bg, eot, partial_bg, partial_eot;
};
bool tessera_build_bgeot(struct tessera_batch *batch, struct tessera_bgeot *out);
void tessera_bgeot_fini(struct tessera_context *ctx);

/* ---- tessera_draw.c */
void tessera_init_draw_functions(struct pipe_context *pctx);

/* ---- tessera_query.c */
void tessera_init_query_functions(struct pipe_context *pctx);
/* The index of the active occlusion query's counter in the batch (added
 * on first use). */
unsigned tessera_query_batch_index(struct tessera_batch *batch, struct tessera_query *q);
bool tessera_query_counts_boolean(const struct tessera_query *q);
/* The batch's counters are final: add them to their queries. */
void tessera_query_batch_retired(struct tessera_batch *batch);
/* The batch is about to be submitted as cmd: ask for its GPU timestamps
 * and hand it to the running time queries. */
void tessera_query_batch_submit(struct tessera_batch *batch,
                                struct drm_asahi_cmd_render *cmd);
/* Releases the timestamp object (all batches retired). */
void tessera_query_fini(struct tessera_context *ctx);

/* ---- tessera_blit.c */
void tessera_init_blit_functions(struct pipe_context *pctx);

/* TESSERA_DEBUG=perf */
#define tessera_perf(ctx, ...)                                          \
   do {                                                                 \
      if ((ctx)->screen->debug & TESSERA_DBG_PERF)                      \
         fprintf(stderr, "tessera perf: " __VA_ARGS__);                 \
   } while (0)

#endif

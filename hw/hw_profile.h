/* SPDX-License-Identifier: MIT */
/*
 * hw_profile: the GPU model's per-pass, per-draw and per-dispatch counters
 * (the records `tessera profile` is built on; docs/profiling.md).
 *
 * CONTRACT
 * - An executor with a profiler set (hw_render_set_profiler,
 *   hw_cdm_set_profiler) hands one struct hw_prof_pass to the callback per
 *   render pass (when its fragment job ends; the vertex job's part is kept
 *   until then) and per compute job (when it ends), on the firmware thread,
 *   before the job's completion is signalled. The record and its entries
 *   are valid during the call only.
 * - Times are modelled GPU cycles at HW_CORE_CLOCK_HZ. For every counter,
 *   the entries plus the overhead entry add up to the pass's total; for
 *   HW_PROF_CYCLES that total is the modelled time of the pass's jobs
 *   (executor cycles + the firmware's start and finalize of each job).
 *   Fragment time is the busiest modelled core's time, shared out over
 *   the draws in proportion to the tile work each caused
 *   (hw_prof_apportion), so the sums are exact.
 * - Records depend only on the work: identical across runs and host
 *   thread counts.
 * - With no profiler set the executors count nothing beyond their normal
 *   statistics (a pointer test per primitive and per shader launch).
 */
#ifndef HW_PROFILE_H
#define HW_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum hw_prof_counter {
   HW_PROF_CYCLES,            /* attributed modelled time (vertex + fragment) */
   HW_PROF_VERTEX_CYCLES,     /* ... of it on the vertex side */
   HW_PROF_FRAGMENT_CYCLES,   /* ... of it on the fragment side (incl. partial renders) */
   HW_PROF_VERTICES,          /* vertex shader invocations */
   HW_PROF_PRIMS_IN,          /* primitives assembled */
   HW_PROF_PRIMS_CLIPPED,     /* primitives that crossed a clip plane */
   HW_PROF_PRIMS_CULLED,      /* dropped: discard, facing, zero area, clipped away, off-screen */
   HW_PROF_PRIMS_BINNED,      /* written to the TVB */
   HW_PROF_BIN_REFS,          /* tile references written */
   HW_PROF_TVB_BYTES,         /* TVB bytes written (records, lists, state) */
   HW_PROF_PARTIAL_RENDERS,   /* partial renders: the TVB filled while binning it */
   HW_PROF_PIXELS_RASTER,     /* pixels tested by the ISP */
   HW_PROF_SAMPLES_COVERED,   /* samples inside the primitive */
   HW_PROF_SAMPLES_ZS_FAIL,   /* samples rejected by stencil or depth */
   HW_PROF_SAMPLES_HSR_HIDDEN,/* deferred samples taken over before shading */
   HW_PROF_SAMPLES_PASSED,    /* samples written (passed depth/stencil) */
   HW_PROF_FRAGMENTS,         /* fragment shader invocations (pixels) */
   HW_PROF_TB_LOADS,          /* ld_tile lanes */
   HW_PROF_TB_STORES,         /* st_tile lanes */
   HW_PROF_TEX_FETCHES,       /* texture_sample / texture_load lanes */
   /* ... of them: texture_load (no filtering), then texture_sample lanes
    * by the sampler's minification filter and mip filter, as GL names
    * them (bicubic counts as linear); these seven add up to tex_fetches */
   HW_PROF_TEX_LOADS,
   HW_PROF_TEX_NEAREST,
   HW_PROF_TEX_LINEAR,
   HW_PROF_TEX_NEAREST_MIPMAP_NEAREST,
   HW_PROF_TEX_LINEAR_MIPMAP_NEAREST,
   HW_PROF_TEX_NEAREST_MIPMAP_LINEAR,
   HW_PROF_TEX_LINEAR_MIPMAP_LINEAR,
   HW_PROF_VS_INSTRUCTIONS,   /* SIMD-group instructions, vertex shaders */
   HW_PROF_FS_INSTRUCTIONS,   /* ... fragment, background and end-of-tile */
   HW_PROF_CS_INSTRUCTIONS,   /* ... compute kernels and preshaders */
   HW_PROF_THREADGROUPS,      /* compute workgroups */
   HW_PROF_INVOCATIONS,       /* compute threads */
   HW_PROF_NUM
};

enum hw_prof_kind { HW_PROF_RENDER, HW_PROF_COMPUTE };

/* Texture fetches of one texture format (hw_prof_tex_key). */
struct hw_prof_tex_fmt {
   uint32_t key;              /* 0: unused slot */
   uint64_t n;
};

/* Formats an entry keeps apart; fetches of the others are
 * c[HW_PROF_TEX_FETCHES] minus the kept slots. */
#define HW_PROF_TEX_FORMATS 8

struct hw_prof_entry {
   uint64_t addr;             /* VDM Index List / CDM Launch block VA; 0 overhead */
   uint64_t vs, fs;           /* shader code VAs (compute: vs = the kernel); 0 none */
   uint32_t count, instances; /* draw: index count, instances */
   uint64_t c[HW_PROF_NUM];
   /* texture fetches per format, ascending keys: the HW_PROF_TEX_FORMATS
    * smallest keys fetched, so the result does not depend on the order
    * fetches (or per-worker entries) were added in */
   struct hw_prof_tex_fmt tex[HW_PROF_TEX_FORMATS];
};

struct hw_prof_pass {
   enum hw_prof_kind kind;
   unsigned vm_slot;
   uint32_t job_ids[2];       /* render: vertex, fragment; compute: [0] */
   uint32_t width, height, samples, partial_renders;
   uint64_t total[HW_PROF_NUM];   /* sum of entries + overhead */
   struct hw_prof_entry overhead;  /* pass work that belongs to no draw */
   unsigned n;
   const struct hw_prof_entry *entries;   /* draws or dispatches, in order */
};

typedef void (*hw_prof_fn)(void *user, const struct hw_prof_pass *pass);

/* Stable short name ("cycles", "prims_culled", ...) and a one-line meaning. */
const char *hw_prof_counter_name(enum hw_prof_counter c);
const char *hw_prof_counter_help(enum hw_prof_counter c);

/* Shares `total` out in proportion to w[0..n-1] into out[] (added to):
 * floor shares, then the remaining units one each to the largest
 * remainders, ties to the lower index. Exact: the additions sum to total.
 * All-zero weights give everything to index n-1. */
void hw_prof_apportion(uint64_t total, const uint64_t *w, size_t n, uint64_t *out);

/* The format key of a texture view: agx channels, texture type, sRGB;
 * null: a null texture (no format). Never 0. */
static inline uint32_t
hw_prof_tex_key(unsigned channels, unsigned type, bool srgb, bool null)
{
   return null ? 1u : 0x80000000u | (channels & 0xffu) | (type & 0xfu) << 8 | (uint32_t)srgb << 12;
}

/* Adds n fetches of format `key` to e->tex, keeping the smallest keys
 * (a larger key dropped here is one of the "other" formats). */
static inline void
hw_prof_tex_add(struct hw_prof_entry *e, uint32_t key, uint64_t n)
{
   unsigned i = 0;
   while (i < HW_PROF_TEX_FORMATS && e->tex[i].key && e->tex[i].key < key)
      i++;
   if (i == HW_PROF_TEX_FORMATS)
      return;
   if (e->tex[i].key == key) {
      e->tex[i].n += n;
      return;
   }
   for (unsigned k = HW_PROF_TEX_FORMATS - 1; k > i; k--)
      e->tex[k] = e->tex[k - 1];
   e->tex[i] = (struct hw_prof_tex_fmt){ key, n };
}

/* "R8G8B8A8 UNORM sRGB", "null", "other" (key 0) into buf. */
const char *hw_prof_tex_format_name(uint32_t key, char *buf, size_t size);

/* pass->total from the entries and the overhead. */
void hw_prof_sum(struct hw_prof_pass *pass);

#endif

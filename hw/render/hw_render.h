/* SPDX-License-Identifier: MIT */
/*
 * hwrender: the rendering pipeline of the GPU model (vertex and fragment
 * pipes).
 *
 * CONTRACT
 * - hw_render_create() registers executors for the Vertex and Fragment
 *   pipes of a device (hw_device_set_executor); hw_render_destroy()
 *   removes them.  Create it after the device, destroy it before.
 * - Run Vertex walks the VDM stream of the job's FW Render Payload, shades
 *   vertices on the USC, assembles, clips, culls and bins primitives into
 *   the tiled vertex buffer (TVB) in the payload's heap.  When the heap is
 *   full it runs a partial render (fragment work for what was binned, with
 *   the partial end-of-tile program) and continues; it then posts a Grow
 *   TVB event once per job.
 * - Run Fragment renders every 32x32 bin from the TVB: background program,
 *   ISP (depth/stencil, hidden-surface removal), fragment shaders,
 *   end-of-tile program, depth/stencil store.
 * - Tiles are shared between `threads` host workers; images, memory and
 *   the returned cycle counts do not depend on the thread count.
 * - Bad streams, state or shaders end the job with HW_EXEC_ERROR and a
 *   message, MMU faults with HW_EXEC_FAULT; nothing aborts.
 * docs/rendering.md describes the model and its limits.
 */
#ifndef HW_RENDER_H
#define HW_RENDER_H

#include <stdint.h>

#include "hw/hw_device.h"
#include "hw/hw_fw.h"
#include "hw/hw_profile.h"

struct hw_render;

struct hw_render_config {
   unsigned threads;      /* host worker threads for tiles; 0 = online CPUs */
   /* Instructions per SIMD group before a shader is stopped with an error
    * (a hung shader must not hang the firmware); 0 = 1 << 24. */
   uint64_t instruction_budget;
};

/* Counters since creation (all jobs). */
struct hw_render_stats {
   uint64_t draws, vertices, primitives, culled, clipped;
   uint64_t bin_refs;             /* primitive references written to tiles */
   uint64_t tiles, fragments;     /* fragment shader invocations (pixels) */
   uint64_t samples_passed;       /* samples surviving depth/stencil */
   uint64_t partial_renders, grow_events;
   uint64_t vertex_cycles, fragment_cycles;
};

struct hw_render *hw_render_create(struct hw_device *dev,
                                   const struct hw_render_config *cfg);
void hw_render_destroy(struct hw_render *r);
void hw_render_get_stats(struct hw_render *r, struct hw_render_stats *out);
unsigned hw_render_threads(const struct hw_render *r);
/* Per-pass profiles (hw/hw_profile.h): fn gets one record per render
 * pass when its fragment job ends; NULL stops profiling. Set it while no
 * render job runs (the pass in flight would be half counted). */
void hw_render_set_profiler(struct hw_render *r, hw_prof_fn fn, void *user);
/* Runs a Run Vertex or Run Fragment job directly, as the firmware would
 * (tools and fuzzers; job->fw may be NULL: no events are posted). */
void hw_render_execute(struct hw_render *r, const struct hw_exec_job *job,
                       struct hw_exec_result *res);

/* Tests only: when true, the fragment stage's hooks take their per-lane
 * reference paths (iter/iterproj, ld_tile/st_tile) instead of the batched
 * fast paths, which must give the same registers, tilebuffer, images and
 * cycles; a test renders a scene both ways and compares. Set it while no
 * render job runs. */
extern bool hw_render_frag_reference;
/* Tests only: when false, reload background programs (a texel of the
 * pixel's own coordinate stored into the tilebuffer; bg_reload_match in
 * hw_render_frag.c) run on the USC group by group like any other instead
 * of being loaded and stored in bulk. hw_render_frag_reference turns the
 * bulk path off too. Set it while no render job runs. */
extern bool hw_render_bg_reload_fast;
/* Tests only: when false, the bulk reload loads lane by lane
 * (hw_tex_load_lanes) even where the view and tile format have a byte
 * map (hw_tex_reload_map_init), whose rows must give the same bytes. Set
 * it while no render job runs. */
extern bool hw_render_bg_reload_map;

#endif

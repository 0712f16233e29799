/* SPDX-License-Identifier: MIT */
/*
 * The replay engine's parts (replay/replay.h is the library's contract):
 *
 *   replay_engine.c    the passes over the trace: records in order, frames,
 *                      loops, setup and teardown, image dumps, messages
 *   replay_state.c     the trace's ids -> the replay's (objects, VMs,
 *                      queues, timestamp objects) and its VM maps: the
 *                      lifetime records and memory restores
 *   replay_submit.c    one SUBMIT: its command buffer with translated
 *                      timestamps and syncs, the wait, GPU and CPU times
 *   replay_validate.c  --validate: pages a submission wrote against the
 *                      capture's later recording of them
 *   replay_override.c  --override-shader: the checks against the trace's
 *                      shader index, and writing the code before a SUBMIT
 *
 * All of them work on one struct replay_engine. Once e->failed is set (by
 * replay_fail, which reports the first error only) every part does no more
 * backend work and the passes stop.
 */
#ifndef REPLAY_ENGINE_H
#define REPLAY_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "drm-uapi/asahi_drm.h"
#include "replay/replay.h"
#include "replay/replay_priv.h"
#include "trace/trace.h"
#include "uapi/uapi_vm_map.h"

/* A GEM object of the trace, made again on the backend and mapped. */
struct replay_obj {
   uint32_t file, handle, new_handle;
   uint64_t size;
   uint8_t *map;
   bool live;
};

/* A trace id (VM, queue, syncobj, timestamp object) and the replay's own. */
struct replay_idmap {
   uint32_t file, id, new_id;
   uint64_t usc_base;   /* queues */
   uint32_t vm;         /* queues: the trace's VM id */
   int obj;             /* timestamp objects: index in objs */
   uint64_t offset;     /* timestamp objects: offset in the object */
   bool live;
};

/* The replay's view of one of the trace's VMs; a mapping's handle is the
 * index of its object in objs (the object as it was at bind time). */
struct replay_vm_maps {
   uint32_t file, vm;   /* trace ids */
   struct uapi_vm_map map;
};

/* Bytes of an object that --override-shader replaced. */
struct replay_obj_range {
   int obj;
   uint64_t offset, size;
};

/* A page a replayed submission changed, waiting for the trace's first
 * later recording of it (validation). */
struct replay_pending_page {
   int obj;
   uint64_t offset;
   uint32_t seq;                    /* the submission that wrote it */
   uint8_t before[TSR_PAGE_SIZE];   /* the replay's page before the submission */
   uint8_t data[TSR_PAGE_SIZE];     /* ... and after it */
};

/* A render command of the current frame, for image dumps. */
struct replay_frame_render {
   uint32_t seq, file, vm;
   uint64_t usc_base;
   struct drm_asahi_cmd_render cmd;
};

/* A growable array; REPLAY_VEC_PUSH fails the replay (engine `e` in scope)
 * when memory runs out, and then leaves the array as it was. */
#define REPLAY_VEC(type) struct { type *v; unsigned n, cap; }
#define REPLAY_VEC_PUSH(vec, item)                                            \
   do {                                                                       \
      if ((vec).n == (vec).cap) {                                             \
         unsigned c_ = (vec).cap ? (vec).cap * 2 : 16;                        \
         void *p_ = realloc((vec).v, c_ * sizeof(*(vec).v));                  \
         if (!p_) {                                                           \
            replay_fail(e, "out of memory");                                  \
            break;                                                            \
         }                                                                    \
         (vec).v = p_;                                                        \
         (vec).cap = c_;                                                      \
      }                                                                       \
      (vec).v[(vec).n++] = (item);                                            \
   } while (0)

/* Everything one replay_run() knows. The id tables and VM maps are
 * replay_state.c's, syncs and the timestamp buffer replay_submit.c's,
 * pending pages replay_validate.c's, overridden ranges replay_override.c's;
 * the rest is the pass loop's (replay_engine.c). */
struct replay_engine {
   const struct replay_options *o;
   struct replay_backend *b;
   struct tsr_reader *r;
   const char *path;
   FILE *log;
   struct replay_stats st;
   enum replay_status status;
   bool failed;
   struct drm_asahi_params_global params;

   REPLAY_VEC(struct replay_obj) objs;
   REPLAY_VEC(struct replay_idmap) vms, queues, syncs, tsobjs;
   REPLAY_VEC(struct replay_vm_maps) maps;
   REPLAY_VEC(struct replay_pending_page) pending;
   REPLAY_VEC(struct replay_frame_render) renders;
   REPLAY_VEC(struct replay_obj_range) overridden;
   bool difference_reported;

   /* The replay's own objects. */
   uint32_t done_sync;
   uint32_t ts_gem, ts_object;
   uint8_t *ts_map;

   /* Per pass. */
   bool measuring, looping;
   unsigned pass;
   struct replay_timing timing;
   struct replay_progress progress;
   uint64_t frame_gpu_ns, frame_cpu_ns;
   bool frame_has_work;
   uint32_t cur_frame;
   uint64_t done_submits;
   /* --from-frame on a trace that records GPU results only at keyframes
    * (docs/trace-format.md): submissions from frame exec_from (the last
    * keyframe at or before the first frame) run to re-create them, as
    * "preroll": no image, timing, profile, validation or count. */
   uint32_t exec_from;
   bool preroll;

   /* Profile records of the submission in flight (replay_prof.c): the
    * firmware thread appends, the engine takes them after the wait. */
   struct replay_prof_queue *prof;
};

/* Replay snapshot of every object before a submission (--validate). */
struct replay_snapshot {
   uint8_t **data;
   unsigned n;
};

/* replay_engine.c: messages on the log ("tessera replay: ..."). The first
 * failure ends the replay with REPLAY_ERROR; later ones are not printed. */
void replay_fail(struct replay_engine *e, const char *fmt, ...)
   __attribute__((format(printf, 2, 3)));
void replay_warn(struct replay_engine *e, const char *fmt, ...)
   __attribute__((format(printf, 2, 3)));
/* Writes the render targets of `list` as PNG (the last writer of a target
 * names it). */
void replay_dump_renders(struct replay_engine *e, const struct replay_frame_render *list,
                         unsigned n);

/* replay_state.c: ids (newest live entry first) and memory. */
struct replay_idmap *replay_find_id(struct replay_idmap *v, unsigned n, uint32_t file,
                                    uint32_t id);
int replay_find_obj(struct replay_engine *e, uint32_t file, uint32_t handle);
/* Host address of trace VA `va` in a VM of the trace, through the replay's
 * own mappings; *avail bytes follow it contiguously. NULL: not mapped. */
uint8_t *replay_va_to_host(struct replay_engine *e, uint32_t file, uint32_t vm, uint64_t va,
                           uint64_t *avail);
struct replay_vm_ctx {
   struct replay_engine *e;
   uint32_t file, vm;
};
/* A replay_target reader over replay_va_to_host (ctx: struct replay_vm_ctx). */
bool replay_read_vm(void *ctx, uint64_t va, void *dst, size_t size);
/* The object whose mapping holds host address p, and the offset in it. */
int replay_obj_of_host(struct replay_engine *e, const uint8_t *p, uint64_t *offset);
void replay_vm_create(struct replay_engine *e, uint32_t file, const struct tsr_vm_create *c);
void replay_vm_destroy(struct replay_engine *e, uint32_t file, uint32_t vm_id);
void replay_gem_create(struct replay_engine *e, uint32_t file, const struct tsr_gem_create *g);
void replay_gem_close(struct replay_engine *e, uint32_t file, uint32_t handle);
void replay_close_obj(struct replay_engine *e, int i);
void replay_vm_bind(struct replay_engine *e, uint32_t file, const struct tsr_vm_bind *b);
void replay_bind_object(struct replay_engine *e, uint32_t file,
                        const struct tsr_bind_object *bo);
void replay_queue_create(struct replay_engine *e, uint32_t file,
                         const struct tsr_queue_create *q);
void replay_queue_destroy(struct replay_engine *e, uint32_t file, uint32_t queue_id);
/* A MEMORY record: its pages into the object (validated first if pending). */
void replay_memory(struct replay_engine *e, const struct tsr_record *rec);
/* Closes every live object, queue and VM; frees the tables. */
void replay_state_release(struct replay_engine *e);

/* replay_submit.c */
/* The replay's completion syncobj and timestamp buffer. */
bool replay_submit_setup(struct replay_engine *e);
void replay_submit(struct replay_engine *e, const struct tsr_record *rec);
/* Destroys the syncobjs and the timestamp buffer. */
void replay_submit_release(struct replay_engine *e);

/* replay_prof.c: --profile collection. start registers the collector
 * with the backend (fails the replay on backends without a model);
 * deliver hands what the submission produced to the sink; stop
 * unregisters and frees. */
void replay_prof_start(struct replay_engine *e);
void replay_prof_deliver(struct replay_engine *e, uint32_t frame, uint32_t seq, uint64_t gpu_ns);
/* Drops the records of a submission that is not profiled (one replayed
 * only to reach the first frame of --frames), so they are not taken for
 * the next delivered submission's. */
void replay_prof_discard(struct replay_engine *e);
void replay_prof_stop(struct replay_engine *e);

/* replay_validate.c */
void replay_snapshot_take(struct replay_engine *e, struct replay_snapshot *s);
/* The pages submission `seq` changed since s (freed) become pending. */
void replay_snapshot_diff(struct replay_engine *e, struct replay_snapshot *s, uint32_t seq);
/* The capture's recording `want` of a page: checked if it is pending. */
void replay_validate_page(struct replay_engine *e, int obj, uint64_t offset, const uint8_t *want);
/* Pending pages of obj (all with obj < 0) that will never be checked. */
void replay_drop_all_pending(struct replay_engine *e, int obj);
/* A TSR_META_CPU_OVERWRITE value: the pending pages it names will be
 * recorded with the CPU's bytes, so they are unverifiable. */
void replay_cpu_overwrite(struct replay_engine *e, const char *value);

/* replay_override.c */
/* Fails the replay for an override the trace's shader index refuses. */
void replay_check_overrides(struct replay_engine *e);
/* Writes the overrides' code through every live VM (before each SUBMIT). */
void replay_apply_overrides(struct replay_engine *e);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * replay: runs a tessera trace (trace/trace.h) again on a backend
 * (replay_backend.h) — the in-process model or an Asahi render node.
 *
 * CONTRACT
 * - VMs are recreated with the recorded kernel ranges and every object is
 *   bound at its recorded GPU address; memory is restored from the trace's
 *   records as they come (the trace stores only what changed between
 *   submissions, so restoring is incremental by construction).
 * - Every SUBMIT is replayed with its command buffer, barriers and the
 *   syncs whose syncobjs the replay itself signalled earlier (syncs from
 *   outside the trace, e.g. imported from a compositor, are dropped). GEM,
 *   VM, queue, syncobj and timestamp-object ids are translated. Hardware
 *   commands without timestamps get the replay's own, so every submission
 *   has a GPU time.
 * - Frames are numbered as in the trace. Submissions before `first_frame`
 *   are not run but their memory records are applied: the frame starts
 *   from the recorded state. Records after `last_frame` are not read.
 * - loops > 0: the frame range runs once as a warm-up and then `loops`
 *   times, each pass starting from the recorded memory state of its first
 *   frame; VMs, objects and queues created in the range are kept across
 *   passes (closes are deferred to the end).
 * - Errors: replay_run() returns REPLAY_OK, REPLAY_DIFFERENT (validation
 *   found a difference, or a submission failed on the GPU) or
 *   REPLAY_ERROR (unreadable trace, incompatible device, ioctl failures)
 *   with a message printed to `log` as "tessera replay: ...".
 * Naming of dumped images and the timing JSON: docs/replay.md.
 */
#ifndef REPLAY_H
#define REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "replay/replay_backend.h"

#define REPLAY_MAX_OVERRIDES 16

enum replay_status {
   REPLAY_OK = 0,
   REPLAY_DIFFERENT = 1,
   REPLAY_ERROR = 2,
};

struct replay_override {
   uint64_t va;              /* GPU VA of the shader code */
   const uint8_t *code;      /* borrowed */
   size_t size;
};

/*
 * Profiling (the model backend only; hw/hw_profile.h): after each
 * submission completes, `submission` gets the records of the render passes
 * and compute jobs it ran, in the order the firmware finished them, with
 * the submission's GPU time from its timestamps (gpu_ns). The records are
 * valid during the call.
 */
struct replay_profile_sink {
   void (*submission)(void *user, uint32_t frame, uint32_t seq, uint64_t gpu_ns,
                      const struct hw_prof_pass *passes, unsigned n);
   void *user;
};

struct replay_options {
   const char *dump_dir;     /* PNGs of render targets; NULL: none */
   bool per_submit;          /* dump after every submission, not frame */
   bool dump_raw;            /* also each target's memory as .raw (dump_dir) */
   uint32_t first_frame;     /* 0 */
   uint32_t last_frame;      /* UINT32_MAX: to the end */
   unsigned loops;           /* 0: one plain pass */
   const char *timing_path;  /* JSON; NULL: none */
   bool validate;
   bool force;               /* replay on an incompatible device */
   bool progress;            /* progress bar on stderr */
   unsigned num_overrides;
   struct replay_override overrides[REPLAY_MAX_OVERRIDES];
   FILE *log;                /* messages; NULL: stderr */
   const struct replay_profile_sink *profile;   /* NULL: no profiling */
};

struct replay_stats {
   uint64_t submits, frames, gpu_errors, images;
   uint64_t pages_restored;
   uint64_t gpu_ns;          /* sum of the submissions' GPU time, last pass */
   uint64_t cpu_ns;          /* wall time of the last pass */
   bool validated_ok;        /* validate: no difference found */
   uint64_t pages_validated;    /* validate: pages compared with the trace */
   uint64_t pages_unverifiable; /* validate: pages rewritten by the GPU, or
                                   dropped, before the trace recorded them */
};

void replay_options_init(struct replay_options *o);

enum replay_status replay_run(const char *trace_path, struct replay_backend *b,
                              const struct replay_options *o, struct replay_stats *st);

#endif

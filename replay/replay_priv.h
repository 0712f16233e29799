/* SPDX-License-Identifier: MIT */
/* replay internals shared by the engine's files. */
#ifndef REPLAY_PRIV_H
#define REPLAY_PRIV_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "replay/replay.h"

/* One timing sample: a submission (seq) or a whole frame (seq = UINT32_MAX). */
struct replay_sample {
   uint32_t frame, seq;
   uint64_t gpu_ns, cpu_ns;
};

struct replay_timing {
   unsigned passes;          /* measured passes stored */
   unsigned per_pass;        /* samples in each pass (the first sets it) */
   unsigned count, cap;
   struct replay_sample *s;  /* pass p's samples are [p * per_pass, ...) */
};

void replay_timing_add(struct replay_timing *t, const struct replay_sample *s);
/* Closes a pass; false if it did not have the first pass's shape. */
bool replay_timing_end_pass(struct replay_timing *t);
bool replay_timing_write(const struct replay_timing *t, const char *path,
                         const char *trace, const char *backend, unsigned warmup,
                         char *err, size_t err_size);
void replay_timing_free(struct replay_timing *t);

/* Progress bar on stderr ("\r"-redrawn); a no-op unless enabled. */
struct replay_progress {
   bool enabled;
   uint64_t total, last_draw_ns;
};
void replay_progress_update(struct replay_progress *p, uint64_t done, uint32_t frame);
void replay_progress_end(struct replay_progress *p);

uint64_t replay_now_ns(void);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * replay_profile: a trace's frames -> passes -> draws with the GPU model's
 * counters (hw/hw_profile.h), and their text and JSON reports
 * (`tessera profile`, docs/profiling.md).
 *
 * CONTRACT
 * - replay_profile_run() replays `trace` on backend `b` (the model; other
 *   backends are refused with REPLAY_ERROR) with the options `o` (frames,
 *   overrides, log; loops and images are not used) and fills `out` with
 *   every frame that ran, its submissions' measured GPU time and the
 *   model's record of each render pass and compute job. Statuses and
 *   messages are replay_run()'s.
 * - Everything in a profile is a function of the trace and the overrides:
 *   identical across runs and model thread counts, and so are the reports.
 * - The text report lists frames, passes and draws, then the `top` most
 *   expensive draws and dispatches (modelled cycles; ties: earlier first)
 *   with their shader addresses. The JSON report (schema
 *   "tessera-profile/1", docs/profiling.md) holds everything.
 * - replay_profile_write_html() writes dir/index.html (creating dir and its
 *   parents): one self-contained page (inline CSS, script and SVG, no
 *   network) that embeds the JSON report and shows a per-frame timeline, a
 *   frame picker, per-pass draw bars and counter tables and the top list;
 *   every number shown is the JSON's. False with a message in err on
 *   failure (nothing else is reported).
 */
#ifndef REPLAY_PROFILE_H
#define REPLAY_PROFILE_H

#include <stdint.h>
#include <stdio.h>

#include "hw/hw_profile.h"
#include "replay/replay.h"

struct replay_profile_pass {
   uint32_t seq;                  /* the trace's submission number */
   struct hw_prof_pass p;         /* entries owned by the profile */
};

struct replay_profile_frame {
   uint32_t frame;
   unsigned submissions;
   uint64_t gpu_ns;               /* the submissions' timestamps, summed */
   uint64_t total[HW_PROF_NUM];   /* over the passes */
   unsigned npasses;
   struct replay_profile_pass *passes;
};

struct replay_profile {
   const char *trace;             /* borrowed */
   unsigned nframes;
   struct replay_profile_frame *frames;
   bool oom;
};

enum replay_status replay_profile_run(const char *trace, struct replay_backend *b,
                                      const struct replay_options *o,
                                      struct replay_profile *out);
void replay_profile_free(struct replay_profile *p);

void replay_profile_print_text(FILE *f, const struct replay_profile *p, unsigned top);
void replay_profile_print_json(FILE *f, const struct replay_profile *p, unsigned top);
bool replay_profile_write_html(const char *dir, const struct replay_profile *p, unsigned top,
                               char *err, size_t errlen);

#endif

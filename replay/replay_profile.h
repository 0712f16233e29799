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
 * - Measured figures: replay_profile_run() also reads the trace's own
 *   record of each pass's firmware timestamps (the render/compute
 *   command's ts_vtx/ts_frag/ts {handle, offset} in its SUBMIT, the values
 *   in its COMPLETION, ticks at the trace's command_timestamp_frequency_hz)
 *   into replay_profile_pass.measured: what the capture's GPU measured (a
 *   real machine's firmware, or the model's when the trace was captured on
 *   it: replay_profile.source). A pass whose command recorded no usable
 *   start and end (no timestamps asked for, unwritten, end before start)
 *   has measured.pass false: "not recorded". Render and compute passes of
 *   a submission are matched to its render and compute commands in order.
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

/* A pass's timestamps as the trace recorded them, in ns. */
struct replay_profile_measured {
   bool pass;                     /* ns valid: a start and an end were recorded */
   bool vertex, fragment;         /* render: vertex_ns / fragment_ns valid */
   uint64_t ns;                   /* first recorded start to last recorded end */
   uint64_t vertex_ns;            /* ts_vtx.end - ts_vtx.start */
   uint64_t fragment_ns;          /* ts_frag.end - ts_frag.start */
   const char *span;              /* which stamps ns spans, e.g. "vertex start to fragment end" */
};

struct replay_profile_pass {
   uint32_t seq;                  /* the trace's submission number */
   unsigned cmd;                  /* its index among the submission's passes of its kind */
   struct hw_prof_pass p;         /* entries owned by the profile */
   struct replay_profile_measured measured;
};

struct replay_profile_frame {
   uint32_t frame;
   unsigned submissions;
   uint64_t gpu_ns;               /* the submissions' timestamps, summed */
   uint64_t total[HW_PROF_NUM];   /* over the passes */
   unsigned npasses;
   struct replay_profile_pass *passes;
};

/* Where a trace's timestamps come from: its DRIVER record names the
 * model's kernel ("... tessera GPU model"), another kernel (a real
 * machine), or there is none. */
enum replay_profile_source { REPLAY_SOURCE_UNKNOWN, REPLAY_SOURCE_MODEL, REPLAY_SOURCE_HARDWARE };

struct replay_profile {
   const char *trace;             /* borrowed */
   enum replay_profile_source source;
   uint64_t timestamp_hz;         /* the trace's command_timestamp_frequency_hz (24 MHz if none) */
   unsigned nframes;
   struct replay_profile_frame *frames;
   bool oom;
};

enum replay_status replay_profile_run(const char *trace, struct replay_backend *b,
                                      const struct replay_options *o,
                                      struct replay_profile *out);
void replay_profile_free(struct replay_profile *p);

/* Fills the measured figures of p's passes and p->source / timestamp_hz
 * from the trace (called by replay_profile_run; replay_profile_measured.c).
 * false with a message in err when the trace cannot be read. */
bool replay_profile_read_measured(const char *trace, struct replay_profile *p, char *err,
                                  size_t errlen);
/* "model", "hardware", "unknown". */
const char *replay_profile_source_name(enum replay_profile_source s);

void replay_profile_print_text(FILE *f, const struct replay_profile *p, unsigned top);
void replay_profile_print_json(FILE *f, const struct replay_profile *p, unsigned top);
bool replay_profile_write_html(const char *dir, const struct replay_profile *p, unsigned top,
                               char *err, size_t errlen);

#endif

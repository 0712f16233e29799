/* SPDX-License-Identifier: MIT */
/*
 * tsr_minimize: delta debugging (ddmin) over the submissions of a trace,
 * then over the draws and dispatches of those kept (`tessera minimize`):
 * the smallest set found for which a predicate ("the bug still shows")
 * holds.
 *
 * Contract
 *  - A candidate is a copy of the input that keeps a subset of its
 *    submissions (tsr_filter_submits): every other record (metadata, driver
 *    and device parameters, VMs, objects, binds, queues, memory records,
 *    frame markers, shaders) is kept, in order, so the candidate stays
 *    self-contained and replayable; a dropped submission loses its SUBMIT
 *    record and its COMPLETION and FW_JOB records. Kept submissions are
 *    renumbered from 0 in order (SUBMIT, COMPLETION, FW_JOB and SHADER seq;
 *    a shader first found in a dropped submission gets the next kept one's
 *    number). Frame markers all stay, so frame numbers do not change.
 *  - tsr_minimize first checks the predicate on the full input (all
 *    submissions, through the same filter) and fails with
 *    TSR_MIN_PRED_FAILS_FULL if it does not hold. Then ddmin (Zeller): split
 *    the current set into n chunks, try each chunk, then each complement;
 *    keep the first candidate that holds and go on (n = 2 after a chunk,
 *    n - 1 after a complement), else double n until n exceeds the set's size.
 *    The result is 1-minimal: dropping any single submission of OUT makes the
 *    predicate fail (for a deterministic predicate).
 *  - Each step is reported through `log` (may be NULL): the candidate's
 *    submission count and the predicate's result.
 *  - Then (unless opts->no_draws) ddmin over the draws and dispatches of
 *    the kept submissions (tsr_list_draws: the Index List blocks of each
 *    render command's VDM stream, the Launch blocks of each compute
 *    command's CDM stream). A dropped draw is not cut out of the stream (its
 *    length would change every address after it) but rewritten into a no-op
 *    in the trace's memory: its Index Count word packed as 0 (a dispatch:
 *    its Global Size as 0x0x0), through the generated INDEX_LIST_COUNT /
 *    CDM_GLOBAL_SIZE packers. tsr_filter records the rewritten pages as
 *    MEMORY records just before the submission's SUBMIT and the pages as
 *    recorded just after it (replay waits for each submission), so only
 *    that submission sees the no-ops. The empty set (every draw a no-op)
 *    is tried first: unlike in classic ddmin it may hold. Indirect draws and dispatches and
 *    draws without a count word cannot be rewritten: they always stay
 *    (stats.fixed_draws).
 *  - Then (unless opts->no_trim) the result is cut with tsr_trim to the
 *    window of its submissions, which replaces the memory history before
 *    them by the live state at their start; the predicate is run once more
 *    on it and the trimmed trace kept only if the bug still shows (a trim
 *    renumbers frames and may start at an earlier keyframe; see
 *    tsr_min_window_frame for predicates that compare by frame).
 *  - Never crashes on bad input; on failure OUT is not left behind.
 */
#ifndef TESSERA_TRACE_MINIMIZE_H
#define TESSERA_TRACE_MINIMIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

enum tsr_min_result {
   TSR_MIN_OK = 0,
   TSR_MIN_BAD_INPUT,       /* cannot open the input, damaged, or no submission */
   TSR_MIN_PRED_FAILS_FULL, /* the predicate does not hold on the full input */
   TSR_MIN_PRED_ERROR,      /* the predicate could not be evaluated */
   TSR_MIN_WRITE_ERROR,     /* cannot write a candidate or OUT */
};

/* A draw (VDM Index List) or dispatch (CDM Launch) of a submission. */
struct tsr_min_draw {
   uint32_t seq;       /* submission of the trace it was listed from */
   uint32_t cmd;       /* command index in that submission */
   bool dispatch;      /* a CDM launch; else a VDM draw */
   uint64_t va;        /* the block's GPU address */
   uint64_t count_va;  /* its count / global size words; 0: cannot be rewritten */
   uint32_t count[3];  /* as recorded: draw count[0]; dispatch x, y, z */
};

/* Every draw and dispatch of `in`, in submission and stream order (a block
 * reached twice in one submission is listed once). *out is malloc'd (free
 * it). 0, or -1 with err set. */
int tsr_list_draws(const char *in, struct tsr_min_draw **out, uint32_t *n, char *err,
                   size_t errlen);

/* Writes `in` to `out` keeping submission i of `in` iff keep[i] (n entries,
 * the input's submission count), and rewriting the draws drop[0..ndrop)
 * (from tsr_list_draws of `in`; seq in `in`'s numbering) into no-ops as
 * described above. 0, or -1 with err set. */
int tsr_filter(const char *in, const char *out, const bool *keep, uint32_t n,
               const struct tsr_min_draw *drop, uint32_t ndrop, char *err, size_t errlen);
/* tsr_filter without draws to drop. */
int tsr_filter_submits(const char *in, const char *out, const bool *keep, uint32_t n,
                       char *err, size_t errlen);

/* The frame at which `trace` starts in the program's run: its META
 * capture_window (written by a ranged capture or tsr_trim), 0 if none. 0, or
 * -1 if the trace cannot be opened. */
int tsr_min_window_frame(const char *trace, uint64_t *frame);

/* The predicate on a candidate trace: 1 the bug shows, 0 it does not, <0 it
 * could not be evaluated (err set). */
typedef int (*tsr_min_predicate)(void *ctx, const char *trace, char *err, size_t errlen);

struct tsr_min_stats {
   uint32_t in_submits, out_submits;
   /* draws and dispatches of the kept submissions before / after the draws
    * pass; fixed_draws of them could not be rewritten */
   uint32_t in_draws, out_draws, in_dispatches, out_dispatches, fixed_draws;
   uint32_t tests;               /* predicate evaluations */
   uint64_t in_bytes, out_bytes; /* file sizes */
   uint64_t submits_bytes;       /* after the submissions pass */
   uint64_t draws_bytes;         /* after the draws pass */
   bool trimmed;                 /* OUT is the trimmed trace */
};

struct tsr_min_options {
   bool no_draws; /* submissions only */
   bool no_trim;  /* keep the memory history */
};

/* Minimizes `in` into `out` (which must not be `in`); candidates are written
 * in `work_dir` (candidate.tsr, submissions.tsr, draws.tsr, removed at the
 * end). opts may be NULL (both passes and the trim). */
enum tsr_min_result tsr_minimize(const char *in, const char *out, const char *work_dir,
                                 const struct tsr_min_options *opts, tsr_min_predicate pred,
                                 void *ctx, FILE *log, struct tsr_min_stats *st, char *err,
                                 size_t errlen);

#ifdef __cplusplus
}
#endif

#endif

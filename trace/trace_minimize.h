/* SPDX-License-Identifier: MIT */
/*
 * tsr_minimize: delta debugging (ddmin) over the submissions of a trace
 * (`tessera minimize`): the smallest set of submissions found for which a
 * predicate ("the bug still shows") holds.
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
 *  - Reduction over the draws inside a render command (and the dispatches of
 *    a compute command) is a later step: submissions are the only unit here.
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

/* Writes `in` to `out` keeping submission i of `in` iff keep[i] (n entries,
 * the input's submission count). 0, or -1 with err set. */
int tsr_filter_submits(const char *in, const char *out, const bool *keep, uint32_t n,
                       char *err, size_t errlen);

/* The predicate on a candidate trace: 1 the bug shows, 0 it does not, <0 it
 * could not be evaluated (err set). */
typedef int (*tsr_min_predicate)(void *ctx, const char *trace, char *err, size_t errlen);

struct tsr_min_stats {
   uint32_t in_submits, out_submits;
   uint32_t tests;               /* predicate evaluations */
   uint64_t in_bytes, out_bytes; /* file sizes */
};

/* Minimizes `in` into `out` (which must not be `in`); candidates are written
 * as `work_dir`/candidate.tsr. */
enum tsr_min_result tsr_minimize(const char *in, const char *out, const char *work_dir,
                                 tsr_min_predicate pred, void *ctx, FILE *log,
                                 struct tsr_min_stats *st, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif

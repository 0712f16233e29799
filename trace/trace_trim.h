/* SPDX-License-Identifier: MIT */
/*
 * tsr_trim: cut a trace to a window of frames or submissions (`tessera
 * trim`), as a new trace that replays on its own.
 *
 * Contract
 *  - OUT starts with the state the window needs, as of its start, read from
 *    the reader's state tracking (tsr_reader_state), in the order a ranged
 *    capture writes a window's snapshot (capture/cap_state.c) so a replay
 *    can create it in record order: the input's metadata, META "trimmed_from"
 *    and META "capture_window" (where the window starts in the program's
 *    run: frame F submission S, following the input's own capture_window if
 *    it has one), each DRM file's driver and device parameters, the live VMs,
 *    the live GEM objects (VM-private ones after their VM), each VM's
 *    mappings as one VM_BIND, the bound timestamp objects, the recorded
 *    memory of every live object (pages never recorded stay unrecorded, as
 *    in the input), the live queues, then the shader index of the input up
 *    to the window (its SHADER records, seq 0). The history before the
 *    window (earlier submissions, closed objects, superseded memory) is not
 *    copied.
 *  - Then the window's records, in order and unchanged but for submission
 *    numbers, which count from 0 in OUT (SUBMIT, COMPLETION, FW_JOB and
 *    SHADER seq); completions and firmware jobs of submissions before the
 *    window are left out, and those of window submissions recorded in the
 *    frame after the window are kept. Record types this reader does not know
 *    are left out (counted in stats.dropped).
 *  - Windows: frames A-B is every record of frames A..B (frame N follows the
 *    N-th frame marker; the marker ending B is included). Submits A-B starts
 *    at SUBMIT A (the memory records written just before it are part of the
 *    state) and ends with the first frame marker after SUBMIT B, or before
 *    SUBMIT B+1 if that comes first; then OUT ends with a marker of kind 2
 *    ("trim end"), as a ranged capture does.
 *    last == UINT32_MAX means "to the end".
 *  - Memory is exactly what the input recorded as of the window's start. A
 *    submits window that starts inside a frame holds the GPU results of the
 *    frame's earlier submissions only if the input recorded them (--mem
 *    hash captures do at every submission; wp captures with --gpu-memory
 *    full once per frame; a keyframes input is widened, below).
 *  - Keyframes: an input that records GPU results only at keyframes (META
 *    TSR_META_GPU_MEMORY "keyframes ...", docs/trace-format.md) has the
 *    real memory only where a META TSR_META_KEYFRAME says so. A window that
 *    does not start at one is widened back to the start of the last
 *    keyframe K before it (frames: A becomes K; submits: A becomes the
 *    first submission of frame K or later), so that OUT's replay re-creates
 *    what the GPU wrote before A; stats.asked_first keeps the A asked for
 *    and stats.widened says it happened. OUT's capture_window and numbering
 *    follow the widened window; its own keyframe METAs count its frames
 *    (the state at its start is one, "0"), the input's earlier ones are not
 *    copied.
 *  - A damaged input (tsr_reader_damage(): a chunk failing its checksum, a
 *    page that cannot be read, anywhere in the file) is refused, since
 *    the reader's salvage would silently leave out what the damage took.
 *  - Never crashes on bad input; on any failure OUT is removed.
 */
#ifndef TESSERA_TRACE_TRIM_H
#define TESSERA_TRACE_TRIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum tsr_trim_unit { TSR_TRIM_FRAMES, TSR_TRIM_SUBMITS };

struct tsr_trim_options {
   enum tsr_trim_unit unit;
   uint32_t first, last; /* inclusive; last UINT32_MAX: to the end */
   int zstd_level;       /* as tsr_writer_options (0: the writer's default) */
   const char *from;     /* META trimmed_from's value; NULL: "IN frames|submits A-B" */
};

struct tsr_trim_stats {
   uint32_t first_frame, last_frame; /* the window in the input's numbering */
   uint32_t first_seq, submits;      /* input seq of OUT's submission 0; count */
   uint32_t frames;                  /* frame markers in OUT */
   uint32_t vms, objects, tsobjs, queues; /* the state written at the start */
   uint64_t state_pages;             /* memory pages of that state */
   uint64_t records, dropped;        /* records written; unknown types left out */
   uint64_t in_bytes, out_bytes;     /* file sizes */
   uint64_t state_bytes;             /* OUT's bytes up to the window's records
                                        (chunks flushed after the state) */
   bool widened;                     /* started at an earlier keyframe (above) */
   uint32_t asked_first;             /* the window's first frame/submission asked for */
};

enum tsr_trim_result {
   TSR_TRIM_OK = 0,
   TSR_TRIM_BAD_WINDOW,  /* empty window, or past the input's end */
   TSR_TRIM_BAD_INPUT,   /* cannot open the input (missing, not a trace) */
   TSR_TRIM_DAMAGED,     /* a corrupt chunk or a missing page in what is copied */
   TSR_TRIM_WRITE_ERROR, /* cannot write OUT, or out of memory */
};

/* Writes the window of `in` to `out` (which must not be `in`). On failure
 * err holds one line ("frame 9 is past the end of IN: its frames are 0-3"). */
enum tsr_trim_result tsr_trim(const char *in, const char *out, const struct tsr_trim_options *o,
                              struct tsr_trim_stats *st, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif

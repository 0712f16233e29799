/* SPDX-License-Identifier: MIT */
/*
 * cap_options: what tessera's LD_PRELOAD capture layer (tessera-capture.so,
 * capture/cap_layer.c) reads from its environment, and its trace naming.
 * Private to the capture library and the layer: programs that start a
 * capture use capture/capture.h, which writes this environment. The layer
 * follows VMs with uapi/uapi_vm_map.h, indexes shaders with
 * uapi/uapi_shaders.h and finds timestamps with cap_cmdbuf.h. The layer
 * itself is described in docs/capture.md.
 *
 * CONTRACT
 * - cap_options_parse() reads the TESSERA_CAPTURE_* environment (or any
 *   getenv-like lookup, for tests). Bad values are errors with a message;
 *   the layer then records nothing and the program runs unchanged.
 * - Ranges are inclusive and 0-based, counted over the whole run of the
 *   process (not over the trace): submission N is the N-th SUBMIT ioctl the
 *   process made, frame N is what follows the N-th frame boundary.
 * - Trace names: the root process writes NAME.tsr, every other process that
 *   uses the render node writes NAME.<pid>.tsr (trace/trace.h, the same rule
 *   tsr_child_traces() lists).
 * - No function here allocates global state; all are thread compatible.
 */
#ifndef TESSERA_CAP_OPTIONS_H
#define TESSERA_CAP_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture/capture.h"

/* ---------------------------------------------------------------- options */

enum cap_mem_strategy {
   CAP_MEM_HASH = 0,    /* hash every bound object at every submission */
   CAP_MEM_WP = 1,      /* write-protect CPU mappings, re-read dirty pages
                         * (the default; GPU-written objects once a frame) */
};

/* What ends a frame (TESSERA_CAPTURE_FRAME_ON, docs/capture.md "Frames").
 * The explicit boundaries (tessera_capture_frame(), --frame-every) end
 * frames in every mode. */
enum cap_frame_on {
   CAP_FRAME_ON_SWAP = 0,   /* eglSwapBuffers / glXSwapBuffers (the default) */
   CAP_FRAME_ON_FLUSH,      /* glFlush or glFinish after a submission */
   CAP_FRAME_ON_FINISH,     /* glFinish after a submission */
   CAP_FRAME_ON_SUBMIT,     /* every submission */
};

/* "swap", "flush", "finish", "submit" -> the mode; -1 if unknown. */
int cap_frame_on_parse(const char *s);

struct cap_range {
   uint64_t first, last;   /* inclusive; last = UINT64_MAX: open */
};

/* Frames between keyframes by default: a keyframe costs about what a frame
 * cost when every frame recorded the GPU's results (docs/capture.md). */
#define CAP_DEFAULT_KEYFRAME_EVERY 30
#define CAP_DEFAULT_ZSTD_LEVEL 1

struct cap_options {
   char path[4096];           /* TESSERA_CAPTURE_FILE */
   int root_pid;              /* TESSERA_CAPTURE_ROOT_PID; 0 unknown */
   bool have_frames, have_submits;
   struct cap_range frames;   /* TESSERA_CAPTURE_FRAMES=A-B */
   struct cap_range submits;  /* TESSERA_CAPTURE_SUBMITS=A-B */
   int trigger_signal;        /* TESSERA_CAPTURE_SIGNAL; 0 none (default cap_default_signal()) */
   char trigger_file[4096];   /* TESSERA_CAPTURE_TRIGGER_FILE */
   bool start_off;            /* TESSERA_CAPTURE_START=off: wait for a trigger */
   uint64_t frame_every;      /* TESSERA_CAPTURE_FRAME_EVERY=N submissions; 0 off */
   enum cap_frame_on frame_on; /* TESSERA_CAPTURE_FRAME_ON (default swap) */
   enum cap_mem_strategy mem; /* TESSERA_CAPTURE_MEM=hash|wp (default wp) */
   /* TESSERA_CAPTURE_WP_TRACK=mprotect|uffd|mixed (default mprotect): how
    * wp finds written pages; uffd uses async userfaultfd write-protection
    * where the kernel offers it for a mapping and mprotect/SIGSEGV for the
    * rest (it measured no cheaper on es2gears, docs/capture.md, hence not
    * the default); mixed (tests) is uffd with every second mapping treated
    * as refused by the kernel */
   bool wp_uffd;
   bool wp_mixed;
   /* TESSERA_CAPTURE_TEST_WP_FAULT_DELAY_US (tests only; default 0): the
    * mprotect mechanism's fault handler sleeps this long between giving
    * write access back and marking the page, as a thread preempted there
    * would, so tests can race collects against it (capture_wp_race.sh) */
   uint32_t wp_fault_delay_us;
   /* TESSERA_CAPTURE_TEST_WP_HOT_FIRST=0|1 (tests only; default 1): a page
    * in a short dirty run becomes hot at its first collect (cap_wp.c);
    * 0 keeps the rule before it (hot at its second) to measure the faults
    * it saves */
   bool wp_hot_first;
   /* TESSERA_CAPTURE_TEST_WP_HOT_IDLE_GROW=0|1 (tests only; default 1): a
    * hot page protected for being idle and written again soon after gets
    * a longer idle limit (cap_wp.c, idle_grow); 0 keeps HOT_IDLE for
    * every page, the rule before, to measure the faults it saves */
   bool wp_hot_idle_grow;
   /* TESSERA_CAPTURE_TEST_WP_AHEAD=0|1 (tests only; default 1): a write
    * fault right after a run of dirty pages unprotects as many pages
    * ahead (cap_wp.c, "Writes ahead"); 0 faults page by page, the rule
    * before, to measure the faults it saves */
   bool wp_ahead;
   /* TESSERA_CAPTURE_TEST_WP_APPEND=0|1 (tests only; default 1): a page
    * that becomes hot right after a hot page makes the next page hot
    * ahead of the program's sequential writes (cap_wp.c, "Appends"); 0
    * lets each next page fault, the rule before, to measure the faults
    * it saves */
   bool wp_append;
   uint64_t flush_ms;         /* TESSERA_CAPTURE_FLUSH_MS: bound on data lost at a crash */
   /* TESSERA_CAPTURE_ZSTD_LEVEL: the trace chunks' zstd level, 1 to 19 or
    * -1 to -50 (zstd's fast levels, `zstd --fast=N`); default
    * CAP_DEFAULT_ZSTD_LEVEL (docs/capture.md weighs its CPU against size) */
   int zstd_level;
   /* TESSERA_CAPTURE_GPU_MEMORY=full|keyframes (default keyframes): record
    * what the GPU wrote before every frame marker and GEM_CLOSE (full), or
    * only every keyframe_every-th frame (docs/capture.md, "GPU-written
    * memory"). */
   bool gpu_memory_full;
   uint64_t keyframe_every;   /* TESSERA_CAPTURE_KEYFRAME_EVERY=N >= 1 (default 30) */
   bool quiet;                /* TESSERA_CAPTURE_QUIET=1 */
   /* TESSERA_CAPTURE_REPORT=1 (set by `tessera capture`): the root process
    * says at its exit which traces were written */
   bool report;
};

typedef const char *(*cap_getenv_fn)(const char *name);

/* 0 or -EINVAL with a message in err. Missing FILE is an error. */
int cap_options_parse(struct cap_options *o, cap_getenv_fn get, char *err, size_t errlen);
/* "A-B", "A-", "A" (just A), "-B". 0 or -EINVAL. */
int cap_range_parse(const char *s, struct cap_range *r);
static inline bool
cap_range_has(const struct cap_range *r, uint64_t v)
{
   return v >= r->first && v <= r->last;
}
/* The default trigger signal: SIGRTMIN+7 (RTMIN+CAP_DEFAULT_SIGNAL_RTMIN_OFFSET),
 * which programs rarely install a handler for (apitrace's retracers catch
 * signals 1-15, USR1 and USR2 included: docs/capture.md). */
#define CAP_DEFAULT_SIGNAL_RTMIN_OFFSET 7
#define CAP_DEFAULT_SIGNAL_NAME CAPTURE_DEFAULT_SIGNAL_NAME
int cap_default_signal(void);
/* Signal number from "USR1", "SIGUSR2", "12", "RTMIN+N", "SIGRTMAX-N" or
 * "none" (0); -1 if unknown or not usable (KILL, STOP, SEGV, glibc's own
 * 32 and 33). */
int cap_signal_parse(const char *s);
/* The name cap_signal_parse() reads back ("USR1", "RTMIN+7", "none"). */
const char *cap_signal_name(int sig, char *buf, size_t len);

/* The trace path of process `pid`: `base` itself for the root, otherwise
 * NAME.<pid>.tsr where NAME is base without a trailing ".tsr". Returns
 * false if it does not fit in len. */
bool cap_trace_path(const char *base, int pid, bool root, char *out, size_t len);

#endif

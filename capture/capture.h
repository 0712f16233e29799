/* SPDX-License-Identifier: MIT */
/*
 * capture: the public API of tessera's capture library -- running a
 * program with the capture layer (tessera-capture.so) preloaded, the way
 * `tessera capture` does (docs/capture.md). A request says what to record;
 * the library turns it into the TESSERA_CAPTURE_* environment the layer
 * reads and LD_PRELOAD, starts the program, forwards signals to it and
 * waits. How the layer records is its own business (cap_*.h, private).
 *
 * CONTRACT
 * - capture_check() accepts exactly the requests the layer accepts: a trace
 *   path, ranges "A-B", "A-", "A" or "-B" (0-based, inclusive), a signal
 *   the layer can use ("USR1", "SIGUSR2", "12", "none"), mem "hash" or
 *   "wp". A refusal is -EINVAL with a message naming the value.
 * - capture_environ() is pure: it returns a new environment (base plus the
 *   request; malloc'd, NULL-terminated; free with capture_environ_free) and
 *   changes nothing in the process. LD_PRELOAD becomes: ASan's runtime
 *   from base's LD_PRELOAD first (ASan requires it), then the layer, then
 *   the shim, then the rest of base's LD_PRELOAD -- so the layer sees the
 *   program's ioctl before the shim or libc does.
 * - capture_run() starts argv[0] (searched in PATH) in that environment with
 *   TESSERA_CAPTURE_ROOT_PID set to the child's pid, and returns the
 *   program's exit status (128+N if signal N ended it) with err empty;
 *   127 with a message if the program could not be executed (as a shell
 *   does); -1 with a message if the request was refused or no process
 *   could be made. While it waits, the trigger signal,
 *   SIGINT and SIGTERM sent to the caller are forwarded to the program; the
 *   caller's previous handlers are restored before it returns. Not
 *   reentrant (one capture at a time per process).
 * - capture_exec() does the same in place of the caller: the program takes
 *   the caller's pid (TESSERA_CAPTURE_ROOT_PID), so signals sent to the
 *   caller reach it without forwarding, and its exit status (or the signal
 *   that ended it) is the caller's. It returns only when it could not start
 *   the program: -1 with a message if the request was refused, 127 with a
 *   message if the program could not be executed. Saves the fork and the
 *   waiting process (what `tessera capture` costs besides the layer).
 * - capture_enter() gives the caller itself the environment capture_exec()
 *   would give the program (TESSERA_CAPTURE_ROOT_PID = the caller's pid)
 *   and returns 0, or -1 with a message if the request was refused. For a
 *   caller that runs the program's own code in place and then execs the
 *   real program (`tessera capture -- tessera run -- PROG`): the layer is
 *   not loaded into the caller, only into what it execs.
 * - Paths in a request may be relative: the library resolves the layer and
 *   makes the trace path absolute (the program may chdir).
 */
#ifndef TESSERA_CAPTURE_H
#define TESSERA_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The layer's default recording toggle (programs rarely install a handler
 * for it; apitrace's retracers catch 1-15: docs/capture.md). */
#define CAPTURE_DEFAULT_SIGNAL_NAME "RTMIN+7"

struct capture_request {
   const char *output;        /* the trace, FILE.tsr (children: FILE.<pid>.tsr) */
   const char *frames;        /* record these frames only; NULL: all */
   const char *submits;       /* record these submissions only; NULL: all */
   const char *signal;        /* recording toggle; NULL: the layer's default, RTMIN+7 */
   const char *trigger_file;  /* toggle when this file appears; NULL: none */
   bool start_off;            /* wait for a trigger before recording */
   uint64_t frame_every;      /* a frame boundary every N submissions; 0: off */
   const char *frame_on;      /* "swap", "flush", "finish", "submit"; NULL: swap */
   const char *mem;           /* "hash" or "wp"; NULL: the layer's default (wp) */
   const char *gpu_memory;    /* "full" or "keyframes"; NULL: the layer's default (keyframes) */
   uint64_t keyframe_every;   /* frames between keyframes; 0: the layer's default (30) */
   bool quiet;                /* no messages from the layer */
   /* the root process's layer says at its exit which traces were written
    * (what `tessera capture` used to print once the program was done) */
   bool report;
   const char *layer;         /* tessera-capture.so */
   const char *shim;          /* tessera-shim.so to preload too; NULL: none */
};

int capture_check(const struct capture_request *r, char *err, size_t err_len);

/* NULL with a message if the request is refused or memory runs out. */
char **capture_environ(const struct capture_request *r, char *const *base, char *err,
                       size_t err_len);
void capture_environ_free(char **env);

int capture_run(const struct capture_request *r, char *const argv[], char *err,
                size_t err_len);
int capture_exec(const struct capture_request *r, char *const argv[], char *err,
                 size_t err_len);
int capture_enter(const struct capture_request *r, char *const argv[], char *err, size_t err_len);

#endif

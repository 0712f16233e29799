/* SPDX-License-Identifier: MIT */
/*
 * Capture options from the environment (set by `tessera capture`, or by
 * hand next to LD_PRELOAD) and the trace naming rule. See capture.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "capture/cap_options.h"

static bool
parse_u64(const char *s, const char **end, uint64_t *v)
{
   if (*s < '0' || *s > '9')
      return false;
   errno = 0;
   char *e;
   unsigned long long x = strtoull(s, &e, 10);
   if (errno)
      return false;
   *v = x;
   *end = e;
   return true;
}

int
cap_range_parse(const char *s, struct cap_range *r)
{
   if (!s || !*s)
      return -EINVAL;
   r->first = 0;
   r->last = UINT64_MAX;
   const char *p = s;
   if (*p != '-') {
      if (!parse_u64(p, &p, &r->first))
         return -EINVAL;
      if (*p == '\0') {
         r->last = r->first;
         return 0;
      }
   }
   if (*p++ != '-' || (p == s + 1 && *p == '\0'))
      return -EINVAL;   /* "-" alone names no range */
   if (*p != '\0' && (!parse_u64(p, &p, &r->last) || *p != '\0'))
      return -EINVAL;
   return r->last >= r->first ? 0 : -EINVAL;
}

static const struct {
   const char *name;
   int sig;
} signals[] = {
   { "USR1", SIGUSR1 }, { "USR2", SIGUSR2 }, { "HUP", SIGHUP },
   { "QUIT", SIGQUIT }, { "PWR", SIGPWR }, { "WINCH", SIGWINCH },
};

int
cap_default_signal(void)
{
   /* apitrace's retracers catch signals 1-15 (but KILL, PIPE) to print a
    * backtrace and exit, USR1 and USR2 among them, so no classic signal is
    * safe; real-time signals are left alone by apitrace, and RTMIN itself
    * and the first few above it are the ones libraries take (timers). */
   return SIGRTMIN + CAP_DEFAULT_SIGNAL_RTMIN_OFFSET;
}

/* "RTMIN", "RTMIN+N", "RTMAX", "RTMAX-N" (after an optional "SIG"). */
static int
parse_rt(const char *s)
{
   bool min = strncasecmp(s, "RTMIN", 5) == 0, max = strncasecmp(s, "RTMAX", 5) == 0;
   if (!min && !max)
      return -1;
   s += 5;
   long n = 0;
   if (*s) {
      if (*s != (min ? '+' : '-') || s[1] < '0' || s[1] > '9')
         return -1;
      char *e;
      n = strtol(s + 1, &e, 10);
      if (*e || n > SIGRTMAX - SIGRTMIN)
         return -1;
   }
   return min ? SIGRTMIN + (int)n : SIGRTMAX - (int)n;
}

int
cap_signal_parse(const char *s)
{
   if (!s || !*s)
      return -1;
   if (strcasecmp(s, "none") == 0)
      return 0;
   if (*s >= '0' && *s <= '9') {
      char *e;
      long v = strtol(s, &e, 10);
      /* SIGKILL/SIGSTOP cannot be caught; SIGSEGV is the write tracker's;
       * 32 and 33 are glibc's own (below SIGRTMIN) */
      if (*e || v <= 0 || v > SIGRTMAX || v == SIGKILL || v == SIGSTOP || v == SIGSEGV ||
          (v > 31 && v < SIGRTMIN))
         return -1;
      return (int)v;
   }
   if (strncasecmp(s, "SIG", 3) == 0)
      s += 3;
   for (unsigned i = 0; i < sizeof(signals) / sizeof(signals[0]); i++)
      if (strcasecmp(s, signals[i].name) == 0)
         return signals[i].sig;
   return parse_rt(s);
}

const char *
cap_signal_name(int sig, char *buf, size_t len)
{
   if (sig == 0) {
      snprintf(buf, len, "none");
      return buf;
   }
   for (unsigned i = 0; i < sizeof(signals) / sizeof(signals[0]); i++) {
      if (signals[i].sig == sig) {
         snprintf(buf, len, "%s", signals[i].name);
         return buf;
      }
   }
   if (sig >= SIGRTMIN && sig <= SIGRTMAX)
      snprintf(buf, len, "RTMIN+%d", sig - SIGRTMIN);
   else
      snprintf(buf, len, "%d", sig);
   return buf;
}

static int
fail(char *err, size_t len, const char *what, const char *value)
{
   snprintf(err, len, "bad %s: '%s'", what, value);
   return -EINVAL;
}

int
cap_frame_on_parse(const char *s)
{
   static const char *const names[] = { "swap", "flush", "finish", "submit" };
   for (int i = 0; s && i < 4; i++)
      if (strcmp(s, names[i]) == 0)
         return i;
   return -1;
}

int
cap_options_parse(struct cap_options *o, cap_getenv_fn get, char *err, size_t errlen)
{
   memset(o, 0, sizeof(*o));
   o->trigger_signal = cap_default_signal();
   o->mem = CAP_MEM_WP;   /* the one within the overhead goal (docs/capture.md) */
   const char *v = get("TESSERA_CAPTURE_FILE");
   if (!v || !*v) {
      snprintf(err, errlen, "TESSERA_CAPTURE_FILE is not set");
      return -EINVAL;
   }
   if (strlen(v) + 32 >= sizeof(o->path))
      return fail(err, errlen, "TESSERA_CAPTURE_FILE (too long)", v);
   snprintf(o->path, sizeof(o->path), "%s", v);
   if ((v = get("TESSERA_CAPTURE_ROOT_PID")) && *v) {
      char *e;
      long pid = strtol(v, &e, 10);
      if (*e || pid <= 0 || pid > INT32_MAX)
         return fail(err, errlen, "TESSERA_CAPTURE_ROOT_PID", v);
      o->root_pid = (int)pid;
   }
   if ((v = get("TESSERA_CAPTURE_FRAMES")) && *v) {
      if (cap_range_parse(v, &o->frames))
         return fail(err, errlen, "frame range", v);
      o->have_frames = true;
   }
   if ((v = get("TESSERA_CAPTURE_SUBMITS")) && *v) {
      if (cap_range_parse(v, &o->submits))
         return fail(err, errlen, "submission range", v);
      o->have_submits = true;
   }
   if ((v = get("TESSERA_CAPTURE_SIGNAL")) && *v) {
      int s = cap_signal_parse(v);
      if (s < 0)
         return fail(err, errlen, "trigger signal", v);
      o->trigger_signal = s;
   }
   if ((v = get("TESSERA_CAPTURE_TRIGGER_FILE")) && *v) {
      if (strlen(v) >= sizeof(o->trigger_file))
         return fail(err, errlen, "trigger file (too long)", v);
      snprintf(o->trigger_file, sizeof(o->trigger_file), "%s", v);
   }
   if ((v = get("TESSERA_CAPTURE_START")) && *v) {
      if (strcmp(v, "off") == 0)
         o->start_off = true;
      else if (strcmp(v, "on") != 0)
         return fail(err, errlen, "TESSERA_CAPTURE_START (on|off)", v);
   }
   if ((v = get("TESSERA_CAPTURE_FRAME_EVERY")) && *v) {
      const char *e;
      if (!parse_u64(v, &e, &o->frame_every) || *e)
         return fail(err, errlen, "TESSERA_CAPTURE_FRAME_EVERY", v);
   }
   if ((v = get("TESSERA_CAPTURE_FRAME_ON")) && *v) {
      int m = cap_frame_on_parse(v);
      if (m < 0)
         return fail(err, errlen, "TESSERA_CAPTURE_FRAME_ON (swap|flush|finish|submit)", v);
      o->frame_on = (enum cap_frame_on)m;
   }
   if ((v = get("TESSERA_CAPTURE_MEM")) && *v) {
      if (strcmp(v, "hash") == 0)
         o->mem = CAP_MEM_HASH;
      else if (strcmp(v, "wp") == 0)
         o->mem = CAP_MEM_WP;
      else
         return fail(err, errlen, "memory strategy (hash|wp)", v);
   }
   if ((v = get("TESSERA_CAPTURE_WP_TRACK")) && *v) {
      if (strcmp(v, "uffd") == 0)
         o->wp_uffd = true;
      else if (strcmp(v, "mixed") == 0)
         o->wp_uffd = o->wp_mixed = true;
      else if (strcmp(v, "mprotect") != 0)
         return fail(err, errlen, "TESSERA_CAPTURE_WP_TRACK (mprotect|uffd|mixed)", v);
   }
   if ((v = get("TESSERA_CAPTURE_TEST_WP_FAULT_DELAY_US")) && *v) {
      const char *e;
      uint64_t us;
      if (!parse_u64(v, &e, &us) || *e || us > 100000)
         return fail(err, errlen, "TESSERA_CAPTURE_TEST_WP_FAULT_DELAY_US (0 to 100000)", v);
      o->wp_fault_delay_us = (uint32_t)us;
   }
   o->wp_hot_first = true;
   if ((v = get("TESSERA_CAPTURE_TEST_WP_HOT_FIRST")) && *v) {
      if (strcmp(v, "0") == 0)
         o->wp_hot_first = false;
      else if (strcmp(v, "1") != 0)
         return fail(err, errlen, "TESSERA_CAPTURE_TEST_WP_HOT_FIRST (0|1)", v);
   }
   o->wp_hot_idle_grow = true;
   if ((v = get("TESSERA_CAPTURE_TEST_WP_HOT_IDLE_GROW")) && *v) {
      if (strcmp(v, "0") == 0)
         o->wp_hot_idle_grow = false;
      else if (strcmp(v, "1") != 0)
         return fail(err, errlen, "TESSERA_CAPTURE_TEST_WP_HOT_IDLE_GROW (0|1)", v);
   }
   o->wp_ahead = true;
   if ((v = get("TESSERA_CAPTURE_TEST_WP_AHEAD")) && *v) {
      if (strcmp(v, "0") == 0)
         o->wp_ahead = false;
      else if (strcmp(v, "1") != 0)
         return fail(err, errlen, "TESSERA_CAPTURE_TEST_WP_AHEAD (0|1)", v);
   }
   o->wp_append = true;
   if ((v = get("TESSERA_CAPTURE_TEST_WP_APPEND")) && *v) {
      if (strcmp(v, "0") == 0)
         o->wp_append = false;
      else if (strcmp(v, "1") != 0)
         return fail(err, errlen, "TESSERA_CAPTURE_TEST_WP_APPEND (0|1)", v);
   }
   if ((v = get("TESSERA_CAPTURE_GPU_MEMORY")) && *v) {
      if (strcmp(v, "full") == 0)
         o->gpu_memory_full = true;
      else if (strcmp(v, "keyframes") != 0)
         return fail(err, errlen, "TESSERA_CAPTURE_GPU_MEMORY (full|keyframes)", v);
   }
   o->keyframe_every = CAP_DEFAULT_KEYFRAME_EVERY;
   if ((v = get("TESSERA_CAPTURE_KEYFRAME_EVERY")) && *v) {
      const char *e;
      if (!parse_u64(v, &e, &o->keyframe_every) || *e || o->keyframe_every == 0 ||
          o->keyframe_every > UINT32_MAX)
         return fail(err, errlen, "TESSERA_CAPTURE_KEYFRAME_EVERY (1 or more)", v);
   }
   o->flush_ms = 50;
   if ((v = get("TESSERA_CAPTURE_FLUSH_MS")) && *v) {
      const char *e;
      if (!parse_u64(v, &e, &o->flush_ms) || *e)
         return fail(err, errlen, "TESSERA_CAPTURE_FLUSH_MS", v);
   }
   o->zstd_level = CAP_DEFAULT_ZSTD_LEVEL;
   if ((v = get("TESSERA_CAPTURE_ZSTD_LEVEL")) && *v) {
      const char *e;
      uint64_t l;
      bool neg = *v == '-';
      if (!parse_u64(v + neg, &e, &l) || *e || l == 0 || l > (neg ? 50u : 19u))
         return fail(err, errlen, "TESSERA_CAPTURE_ZSTD_LEVEL (1 to 19, or -1 to -50: zstd --fast=N)", v);
      o->zstd_level = neg ? -(int)l : (int)l;
   }
   v = get("TESSERA_CAPTURE_QUIET");
   o->quiet = v && *v && strcmp(v, "0") != 0;
   v = get("TESSERA_CAPTURE_REPORT");
   o->report = v && *v && strcmp(v, "0") != 0;
   return 0;
}

bool
cap_trace_path(const char *base, int pid, bool root, char *out, size_t len)
{
   int n;
   if (root) {
      n = snprintf(out, len, "%s", base);
   } else {
      size_t bl = strlen(base), sl = strlen(".tsr");
      int stem = (int)(bl >= sl && strcmp(base + bl - sl, ".tsr") == 0 ? bl - sl : bl);
      n = snprintf(out, len, "%.*s.%d.tsr", stem, base, pid);
   }
   return n >= 0 && (size_t)n < len;
}

/* SPDX-License-Identifier: MIT */
/*
 * tessera minimize: reduce a trace to the submissions and draws a bug
 * needs, by delta debugging (trace/trace_minimize.h) with a predicate: a shell command, or
 * a built-in one that replays the candidate on the model.
 *
 * Every predicate runs in a child process: a command of the user's, or a
 * fork of this one for the built-ins, so that a candidate that crashes the
 * replay, or replay state left behind by one candidate, cannot affect the
 * next one or the minimizer.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli_args.h"
#include "cli/commands.h"
#include "replay/replay.h"
#include "replay/replay_backend.h"
#include "trace/trace_minimize.h"

static const char usage_text[] =
   "usage: tessera minimize IN.tsr -o OUT.tsr (--cmd 'COMMAND' | --faults |\n"
   "                        --image-differs REF_DIR) [--no-draws] [--no-trim] [-q]\n"
   "\n"
   "Reduces IN to a smallest set of submissions for which the predicate still\n"
   "holds (delta debugging, ddmin), then to a smallest set of the draws and\n"
   "dispatches of those submissions. A candidate keeps every state and memory\n"
   "record of IN, so it replays on its own; it drops the SUBMIT records (and\n"
   "their completions and firmware jobs) of the submissions left out, and\n"
   "turns the draws left out into no-ops (count 0) in the stream's memory.\n"
   "Last, the result is cut to the live state its submissions need (as\n"
   "`tessera trim` does), if the predicate still holds on that.\n"
   "\n"
   "  -o, --output OUT          the minimized trace (not IN)\n"
   "  --cmd 'COMMAND'           run by /bin/sh with the candidate's path in\n"
   "                            $TRACE: exit 0 means the bug still shows\n"
   "                            (126, 127 or a signal: the command is broken)\n"
   "  --faults                  replaying the candidate on the model gives a\n"
   "                            GPU fault or job error\n"
   "  --image-differs REF_DIR   replaying the candidate gives a frame image that\n"
   "                            differs from REF_DIR's image of the same frame\n"
   "                            and target (as written by `tessera replay\n"
   "                            --dump-images`; the _sNNNNN part of the name is\n"
   "                            ignored, since kept submissions are renumbered,\n"
   "                            and frames are matched through capture_window\n"
   "                            after a trim)\n"
   "  --no-draws                reduce submissions only\n"
   "  --no-trim                 keep the memory history (no trim at the end)\n"
   "  -q, --quiet               print only the result, not each step\n"
   "  -h, --help                show this help\n"
   "\n"
   "Exit status: 0 written; 1 OUT cannot be written; 2 bad usage, an IN that\n"
   "is missing, damaged or not a trace, a broken predicate, or a predicate\n"
   "that does not hold on the full IN.\n";

enum pred_kind { PRED_NONE, PRED_CMD, PRED_FAULTS, PRED_IMAGES };

struct pred {
   enum pred_kind kind;
   const char *cmd, *ref_dir;
   char img_dir[4096];
   uint64_t in_frame; /* the input's capture_window frame (tsr_min_window_frame) */
};

/* Exit status of the child: 0 holds, 1 does not, 3 error. */
static int
child_status(pid_t pid, char *err, size_t errlen, const char *what)
{
   int status;
   while (waitpid(pid, &status, 0) < 0)
      if (errno != EINTR) {
         snprintf(err, errlen, "%s: waitpid: %s", what, strerror(errno));
         return -1;
      }
   if (WIFSIGNALED(status)) {
      snprintf(err, errlen, "%s was killed by signal %d", what, WTERMSIG(status));
      return -1;
   }
   return WEXITSTATUS(status);
}

static void
clear_dir(const char *dir)
{
   DIR *d = opendir(dir);
   if (!d)
      return;
   struct dirent *e;
   char p[8192];
   while ((e = readdir(d)))
      if (e->d_name[0] != '.') {
         snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
         unlink(p);
      }
   closedir(d);
}

static bool
same_file(const char *a, const char *b)
{
   FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
   bool same = fa && fb;
   while (same) {
      int x = getc(fa), y = getc(fb);
      same = x == y;
      if (x == EOF)
         break;
   }
   if (fa)
      fclose(fa);
   if (fb)
      fclose(fb);
   return same;
}

/* The frame-and-target key of a dumped image: fFFFF_sSSSSS_REST ->
 * fF'_REST, F' = F + shift (a trimmed candidate's frame 0 is a later frame
 * of the reference). */
static bool
image_key(const char *name, int64_t shift, char *key, size_t n)
{
   size_t l = strlen(name);
   if (l < 14 || name[0] != 'f' || name[5] != '_' || name[6] != 's' || name[12] != '_' ||
       strcmp(name + l - 4, ".png"))
      return false;
   char *end;
   long long f = strtoll(name + 1, &end, 10);
   if (end != name + 5)
      return false;
   snprintf(key, n, "f%lld%s", f + shift, name + 12);
   return true;
}

/* 1: some image of `dir` differs from REF's of the same key; 0: none does
 * (or none has a counterpart). */
static int
images_differ(const char *dir, const char *ref, int64_t shift)
{
   DIR *d = opendir(dir), *rd;
   if (!d)
      return 0;
   struct dirent *e, *re;
   char key[512], rkey[512], a[8192], b[8192];
   int differs = 0;
   while (!differs && (e = readdir(d))) {
      if (!image_key(e->d_name, shift, key, sizeof(key)) || !(rd = opendir(ref)))
         continue;
      while ((re = readdir(rd)))
         if (image_key(re->d_name, 0, rkey, sizeof(rkey)) && !strcmp(key, rkey)) {
            snprintf(a, sizeof(a), "%s/%s", dir, e->d_name);
            snprintf(b, sizeof(b), "%s/%s", ref, re->d_name);
            differs = !same_file(a, b);
            break;
         }
      closedir(rd);
   }
   closedir(d);
   return differs;
}

/* In the forked child: replays `trace` on the model; exit 0 the predicate
 * holds, 1 it does not, 3 the model could not be created. */
static void
builtin_child(struct pred *p, const char *trace)
{
   char err[512];
   FILE *devnull = fopen("/dev/null", "w");
   struct replay_backend *b = replay_backend_model(true, err, sizeof(err));
   if (!b) {
      fprintf(stderr, "tessera minimize: %s\n", err);
      _exit(3);
   }
   struct replay_options o;
   replay_options_init(&o);
   o.log = devnull;
   if (p->kind == PRED_IMAGES)
      o.dump_dir = p->img_dir;
   struct replay_stats st;
   memset(&st, 0, sizeof(st));
   enum replay_status s = replay_run(trace, b, &o, &st);
   b->destroy(b);
   if (p->kind == PRED_FAULTS)
      _exit(st.gpu_errors ? 0 : 1);
   /* a candidate that does not replay shows nothing */
   uint64_t frame = 0;
   tsr_min_window_frame(trace, &frame);
   int64_t shift = (int64_t)(frame - p->in_frame);
   _exit(s != REPLAY_ERROR && images_differ(p->img_dir, p->ref_dir, shift) ? 0 : 1);
}

static int
predicate(void *ctx, const char *trace, char *err, size_t errlen)
{
   struct pred *p = ctx;
   fflush(stdout);
   fflush(stderr);
   if (p->kind == PRED_IMAGES)
      clear_dir(p->img_dir);
   pid_t pid = fork();
   if (pid < 0) {
      snprintf(err, errlen, "fork: %s", strerror(errno));
      return -1;
   }
   if (pid == 0) {
      if (p->kind == PRED_CMD) {
         int fd = open("/dev/null", O_WRONLY);
         if (fd >= 0) {
            dup2(fd, STDOUT_FILENO);
            close(fd);
         }
         setenv("TRACE", trace, 1);
         execl("/bin/sh", "sh", "-c", p->cmd, (char *)NULL);
         _exit(127);
      }
      builtin_child(p, trace);
   }
   const char *what = p->kind == PRED_CMD ? "the --cmd command" : "the replay";
   int rc = child_status(pid, err, errlen, what);
   if (rc < 0)
      return -1;
   if (p->kind == PRED_CMD && (rc == 126 || rc == 127)) {
      snprintf(err, errlen, "the --cmd command could not be run (exit %d): %s", rc, p->cmd);
      return -1;
   }
   if (p->kind != PRED_CMD && rc == 3) {
      snprintf(err, errlen, "the replay could not start the model");
      return -1;
   }
   return rc == 0;
}

int
cmd_minimize(int argc, char **argv)
{
   enum { O_CMD = 256, O_FAULTS, O_IMAGES, O_NO_DRAWS, O_NO_TRIM };
   static const struct option longopts[] = {
      { "output", required_argument, NULL, 'o' },
      { "cmd", required_argument, NULL, O_CMD },
      { "faults", no_argument, NULL, O_FAULTS },
      { "image-differs", required_argument, NULL, O_IMAGES },
      { "no-draws", no_argument, NULL, O_NO_DRAWS },
      { "no-trim", no_argument, NULL, O_NO_TRIM },
      { "quiet", no_argument, NULL, 'q' },
      { "help", no_argument, NULL, 'h' },
      { NULL, 0, NULL, 0 },
   };
   struct pred p = { .kind = PRED_NONE };
   struct tsr_min_options mo = { 0 };
   const char *out = NULL;
   bool quiet = false;
   int c;
   optind = 1;
   opterr = 0;
   while ((c = getopt_long(argc, argv, ":o:qh", longopts, NULL)) != -1) {
      switch (c) {
      case 'h': fputs(usage_text, stdout); return 0;
      case 'o': out = optarg; break;
      case 'q': quiet = true; break;
      case O_NO_DRAWS: mo.no_draws = true; break;
      case O_NO_TRIM: mo.no_trim = true; break;
      case O_CMD:
      case O_FAULTS:
      case O_IMAGES:
         if (p.kind != PRED_NONE) {
            fprintf(stderr, "tessera minimize: give one predicate: --cmd, --faults or "
                            "--image-differs\n");
            return 2;
         }
         p.kind = c == O_CMD ? PRED_CMD : c == O_FAULTS ? PRED_FAULTS : PRED_IMAGES;
         if (c == O_CMD)
            p.cmd = optarg;
         if (c == O_IMAGES)
            p.ref_dir = optarg;
         break;
      default:
         cli_bad_option("minimize", c, argv, longopts);
         fputs(usage_text, stderr);
         return 2;
      }
   }
   const char *why = optind == argc      ? "no input trace given"
                     : optind + 1 < argc ? "only one input trace, please"
                     : !out              ? "no output given (-o OUT.tsr)"
                     : p.kind == PRED_NONE
                        ? "no predicate given (--cmd 'COMMAND', --faults or --image-differs DIR)"
                     : p.kind == PRED_CMD && !*p.cmd ? "--cmd wants a command"
                                                     : NULL;
   if (why) {
      fprintf(stderr, "tessera minimize: %s\n%s", why, usage_text);
      return 2;
   }
   struct stat sb;
   if (p.kind == PRED_IMAGES && (stat(p.ref_dir, &sb) || !S_ISDIR(sb.st_mode))) {
      fprintf(stderr, "tessera minimize: --image-differs %s: not a directory\n", p.ref_dir);
      return 2;
   }
   const char *in = argv[optind];
   char work[] = "/tmp/tessera-minimize-XXXXXX";
   if (!mkdtemp(work)) {
      fprintf(stderr, "tessera minimize: mkdtemp: %s\n", strerror(errno));
      return 1;
   }
   snprintf(p.img_dir, sizeof(p.img_dir), "%s/images", work);
   if (p.kind == PRED_IMAGES)
      mkdir(p.img_dir, 0700);
   char err[1024];
   struct tsr_min_stats st;
   tsr_min_window_frame(in, &p.in_frame);
   enum tsr_min_result r = tsr_minimize(in, out, work, &mo, predicate, &p, quiet ? NULL : stdout,
                                        &st, err, sizeof(err));
   clear_dir(p.img_dir);
   rmdir(p.img_dir);
   rmdir(work);
   if (r != TSR_MIN_OK) {
      fprintf(stderr, "tessera minimize: %s\n", err);
      return r == TSR_MIN_WRITE_ERROR ? 1 : 2;
   }
   printf("%s: %" PRIu32 " → %" PRIu32 " submissions; in them %" PRIu32 " → %" PRIu32
          " draws, %" PRIu32 " → %" PRIu32 " dispatches (%" PRIu32 " predicate runs); %" PRIu64
          " → %" PRIu64 " bytes\n",
          out, st.in_submits, st.out_submits, st.in_draws, st.out_draws, st.in_dispatches,
          st.out_dispatches, st.tests, st.in_bytes, st.out_bytes);
   printf("sizes: input %" PRIu64 ", after the submissions %" PRIu64 ", after the draws %" PRIu64
          ", %s %" PRIu64 " bytes (%.1f %%)\n",
          st.in_bytes, st.submits_bytes, st.draws_bytes,
          st.trimmed ? "trimmed to the live state" : "untrimmed", st.out_bytes,
          st.in_bytes ? 100.0 * (double)st.out_bytes / (double)st.in_bytes : 0.0);
   if (st.fixed_draws)
      printf("%" PRIu32 " indirect draws or dispatches could not be rewritten and stay\n",
             st.fixed_draws);
   return 0;
}

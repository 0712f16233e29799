/* SPDX-License-Identifier: MIT */
/*
 * tessera capture: runs a program with the capture layer preloaded
 * (tessera-capture.so, docs/capture.md) and reports the traces written.
 * The options become TESSERA_CAPTURE_* variables, which is all the layer
 * reads, so the layer can also be preloaded by hand.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "capture/capture.h"
#include "cli/cli_args.h"
#include "cli/cli_paths.h"
#include "cli/commands.h"
#include "trace/trace.h"

static volatile sig_atomic_t child_pid;

static void
usage(FILE *fp)
{
   fprintf(fp,
      "usage: tessera capture [options] -o FILE -- PROGRAM [ARGS...]\n"
      "Records every GPU submission of PROGRAM (and of its child processes, each\n"
      "into FILE-without-.tsr.<pid>.tsr) through an LD_PRELOAD layer.\n\n"
      "  -o, --output FILE      trace file (.tsr)\n"
      "      --frames A-B       record frames A..B only (0-based, inclusive; A- or -B)\n"
      "      --submits A-B      record submissions A..B only\n"
      "      --signal SIG       toggle recording on SIG: USR1, RTMIN+N, 40, ... or 'none'\n"
      "                         (default " CAP_DEFAULT_SIGNAL_NAME "; send it with kill -s " CAP_DEFAULT_SIGNAL_NAME ")\n"
      "      --trigger-file P   toggle recording when P appears (P is then removed)\n"
      "      --start-off        start with recording off (wait for a trigger)\n"
      "      --frame-every N    a frame boundary every N submissions\n"
      "      --mem wp|hash      how changed memory is found (default wp)\n"
      "      --shim             also preload tessera-shim.so (the GPU model)\n"
      "      --layer PATH       the capture layer (default: next to tessera)\n"
      "  -q, --quiet            no messages from the layer\n"
      "  -h, --help\n"
      "The exit status is the program's (128+N if it died of signal N).\n");
}

static void
forward(int sig)
{
   if (child_pid > 0)
      kill((pid_t)child_pid, sig);
}

static const char *
env_get(const char *name)
{
   return getenv(name);
}

static int
fail(const char *msg, const char *arg)
{
   fprintf(stderr, "tessera capture: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
   return 2;
}

int
cmd_capture(int argc, char **argv)
{
   enum { O_FRAMES = 256, O_SUBMITS, O_SIGNAL, O_TRIGGER, O_START_OFF, O_EVERY, O_MEM,
          O_SHIM, O_LAYER };
   static const struct option longopts[] = {
      { "output", required_argument, NULL, 'o' },
      { "frames", required_argument, NULL, O_FRAMES },
      { "submits", required_argument, NULL, O_SUBMITS },
      { "signal", required_argument, NULL, O_SIGNAL },
      { "trigger-file", required_argument, NULL, O_TRIGGER },
      { "start-off", no_argument, NULL, O_START_OFF },
      { "frame-every", required_argument, NULL, O_EVERY },
      { "mem", required_argument, NULL, O_MEM },
      { "shim", no_argument, NULL, O_SHIM },
      { "layer", required_argument, NULL, O_LAYER },
      { "quiet", no_argument, NULL, 'q' },
      { "help", no_argument, NULL, 'h' },
      { NULL, 0, NULL, 0 },
   };
   const char *out = NULL, *layer = NULL;
   bool shim = false;
   struct cap_range r;
   optind = 1;
   opterr = 0;
   int c;
   while ((c = getopt_long(argc, argv, "+:o:qh", longopts, NULL)) != -1) {
      switch (c) {
      case 'o': out = optarg; break;
      case O_FRAMES:
         if (cap_range_parse(optarg, &r))
            return fail("bad frame range", optarg);
         setenv("TESSERA_CAPTURE_FRAMES", optarg, 1);
         break;
      case O_SUBMITS:
         if (cap_range_parse(optarg, &r))
            return fail("bad submission range", optarg);
         setenv("TESSERA_CAPTURE_SUBMITS", optarg, 1);
         break;
      case O_SIGNAL:
         if (cap_signal_parse(optarg) < 0)
            return fail("bad signal", optarg);
         setenv("TESSERA_CAPTURE_SIGNAL", optarg, 1);
         break;
      case O_TRIGGER: setenv("TESSERA_CAPTURE_TRIGGER_FILE", optarg, 1); break;
      case O_START_OFF: setenv("TESSERA_CAPTURE_START", "off", 1); break;
      case O_EVERY: {
         /* The layer reads decimal: hand it the value, not the spelling. */
         uint64_t v;
         char dec[24];
         if (!cli_parse_u64(optarg, UINT64_MAX, &v) || v == 0)
            return fail("bad --frame-every", optarg);
         snprintf(dec, sizeof(dec), "%" PRIu64, v);
         setenv("TESSERA_CAPTURE_FRAME_EVERY", dec, 1);
         break;
      }
      case O_MEM:
         if (strcmp(optarg, "hash") && strcmp(optarg, "wp"))
            return fail("bad --mem (hash|wp)", optarg);
         setenv("TESSERA_CAPTURE_MEM", optarg, 1);
         break;
      case O_SHIM: shim = true; break;
      case O_LAYER: layer = optarg; break;
      case 'q': setenv("TESSERA_CAPTURE_QUIET", "1", 1); break;
      case 'h': usage(stdout); return 0;
      default:
         cli_bad_option("capture", c, argv, longopts);
         usage(stderr);
         return 2;
      }
   }
   if (!out)
      return fail("no output file (-o FILE)", NULL);
   if (optind >= argc)
      return fail("no program to run (-- PROGRAM [ARGS])", NULL);
   char layer_path[PATH_MAX], shim_path[PATH_MAX];
   if (layer)
      snprintf(layer_path, sizeof(layer_path), "%s", layer);
   else if (!cli_find_lib("tessera-capture.so", layer_path, sizeof(layer_path)))
      return fail("cannot find tessera-capture.so (use --layer)", NULL);
   if (access(layer_path, R_OK))
      return fail("cannot read the capture layer", layer_path);
   if (shim && !cli_find_lib("tessera-shim.so", shim_path, sizeof(shim_path)))
      return fail("cannot find tessera-shim.so", NULL);
   char abs_layer[PATH_MAX], abs_out[PATH_MAX];
   if (!realpath(layer_path, abs_layer))
      return fail("cannot resolve", layer_path);
   /* the program may chdir: give the layer an absolute trace path */
   if (out[0] != '/') {
      char cwd[PATH_MAX];
      if (!getcwd(cwd, sizeof(cwd)) ||
          snprintf(abs_out, sizeof(abs_out), "%s/%s", cwd, out) >= (int)sizeof(abs_out))
         return fail("path too long", out);
   } else {
      snprintf(abs_out, sizeof(abs_out), "%s", out);
   }
   setenv("TESSERA_CAPTURE_FILE", abs_out, 1);
   /* The layer reads the environment, where the options just set meet any
    * TESSERA_CAPTURE_* the user exported: check it all here, so a bad value
    * fails the command instead of a capture that silently records nothing. */
   {
      struct cap_options *co = malloc(sizeof(*co));
      char err[256];
      int bad = co ? cap_options_parse(co, env_get, err, sizeof(err)) : -ENOMEM;
      free(co);
      if (bad)
         return fail(bad == -ENOMEM ? "out of memory" : err, NULL);
   }
   /* ASan's runtime must stay first; then us, so our ioctl() sees the
    * program's call before the shim (or libc) does. */
   const char *old = getenv("LD_PRELOAD");
   size_t need = strlen(abs_layer) + (shim ? strlen(shim_path) : 0) + (old ? strlen(old) : 0) + 8;
   char *pre = malloc(need * 2);
   char *rest = malloc(need);
   if (!pre || !rest) {
      free(pre);
      free(rest);
      return fail("out of memory", NULL);
   }
   pre[0] = rest[0] = 0;
   if (old) {
      char *copy = strdup(old), *save = NULL;
      for (char *t = copy ? strtok_r(copy, " :", &save) : NULL; t; t = strtok_r(NULL, " :", &save)) {
         char *dst = strstr(t, "libasan") ? pre : rest;
         if (*dst)
            strcat(dst, " ");
         strcat(dst, t);
      }
      free(copy);
   }
   if (*pre)
      strcat(pre, " ");
   strcat(pre, abs_layer);
   if (shim) {
      strcat(pre, " ");
      strcat(pre, shim_path);
   }
   if (*rest) {
      strcat(pre, " ");
      strcat(pre, rest);
   }
   free(rest);
   fflush(stdout);
   pid_t pid = fork();
   if (pid < 0) {
      free(pre);
      return fail("fork", strerror(errno));
   }
   if (pid == 0) {
      char buf[32];
      snprintf(buf, sizeof(buf), "%d", (int)getpid());
      setenv("TESSERA_CAPTURE_ROOT_PID", buf, 1);
      setenv("LD_PRELOAD", pre, 1);
      execvp(argv[optind], &argv[optind]);
      fprintf(stderr, "tessera capture: cannot run %s: %s\n", argv[optind], strerror(errno));
      _exit(127);
   }
   free(pre);
   child_pid = pid;
   /* the trigger signal sent to us reaches the program */
   struct sigaction sa;
   memset(&sa, 0, sizeof(sa));
   sa.sa_handler = forward;
   sigemptyset(&sa.sa_mask);
   const char *sig = getenv("TESSERA_CAPTURE_SIGNAL");
   int trig = sig ? cap_signal_parse(sig) : cap_default_signal();
   if (trig > 0)
      sigaction(trig, &sa, NULL);
   sigaction(SIGINT, &sa, NULL);
   sigaction(SIGTERM, &sa, NULL);
   int st = 0;
   while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
      ;
   int code = WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 1;
   if (!getenv("TESSERA_CAPTURE_QUIET")) {
      struct stat sb;
      char **kids = tsr_child_traces(abs_out);
      unsigned nk = 0;
      for (char **k = kids; k && *k; k++)
         nk++;
      if (stat(abs_out, &sb) == 0)
         fprintf(stderr, "tessera capture: wrote %s (%lld bytes)", out, (long long)sb.st_size);
      else
         fprintf(stderr, "tessera capture: %s was not written (no GPU use by the root process)",
                 out);
      fprintf(stderr, nk ? " and %u child trace%s\n" : "\n", nk, nk == 1 ? "" : "s");
      tsr_free_paths(kids);
   }
   return code;
}

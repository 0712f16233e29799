/* SPDX-License-Identifier: MIT */
/*
 * tessera capture: runs a program with the capture layer preloaded
 * (tessera-capture.so, docs/capture.md) in its own place (exec); the
 * layer of the root process reports the traces written.
 * The options become TESSERA_CAPTURE_* variables, which is all the layer
 * reads, so the layer can also be preloaded by hand.
 */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture/capture.h"
#include "cli/cli_args.h"
#include "cli/cli_paths.h"
#include "cli/commands.h"

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
      "                         (default " CAPTURE_DEFAULT_SIGNAL_NAME "; send it with kill -s " CAPTURE_DEFAULT_SIGNAL_NAME ")\n"
      "      --trigger-file P   toggle recording when P appears (P is then removed)\n"
      "      --start-off        start with recording off (wait for a trigger)\n"
      "      --frame-every N    a frame boundary every N submissions\n"
      "      --frame-on EVENT   what ends a frame: swap (default: eglSwapBuffers,\n"
      "                         glXSwapBuffers), flush (glFlush or glFinish), finish\n"
      "                         (glFinish) or submit (every submission)\n"
      "      --mem wp|hash      how changed memory is found (default wp)\n"
      "      --gpu-memory full|keyframes\n"
      "                         record what the GPU wrote at every frame (full) or\n"
      "                         only at keyframes (default; replay re-creates it)\n"
      "      --keyframe-every N frames between keyframes (default 30)\n"
      "      --shim             also preload tessera-shim.so (the GPU model)\n"
      "      --layer PATH       the capture layer (default: next to tessera)\n"
      "  -q, --quiet            no messages from the layer\n"
      "  -h, --help\n"
      "PROGRAM runs in place of tessera capture (same pid): its exit status, or the\n"
      "signal that ended it (128+N in a shell), is tessera capture's.\n");
}

static int
fail(const char *msg, const char *arg)
{
   fprintf(stderr, "tessera capture: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
   return 2;
}

/* Is prog (found as execvp finds it) this very executable? Compared by
 * file identity, so another build or a wrapper script is not. */
static bool
is_self(const char *prog)
{
   struct stat self, st;
   if (stat("/proc/self/exe", &self))
      return false;
   if (strchr(prog, '/'))
      return stat(prog, &st) == 0 && st.st_dev == self.st_dev && st.st_ino == self.st_ino;
   const char *path = getenv("PATH");
   if (!path || !*path)
      return false;   /* execvp's default path: left to the exec */
   for (const char *p = path;; p++) {
      const char *e = strchr(p, ':');
      size_t n = e ? (size_t)(e - p) : strlen(p);
      char f[PATH_MAX];
      if (snprintf(f, sizeof(f), "%.*s%s%s", (int)n, p, n ? "/" : "", prog) < (int)sizeof(f) &&
          access(f, X_OK) == 0 && stat(f, &st) == 0 && S_ISREG(st.st_mode))
         return st.st_dev == self.st_dev && st.st_ino == self.st_ino;   /* execvp's pick */
      if (!e)
         return false;
      p = e;
   }
}

int
cmd_capture(int argc, char **argv)
{
   enum { O_FRAMES = 256, O_SUBMITS, O_SIGNAL, O_TRIGGER, O_START_OFF, O_EVERY, O_FRAME_ON, O_MEM,
          O_SHIM, O_LAYER, O_GPU_MEMORY, O_KEYFRAME_EVERY };
   static const struct option longopts[] = {
      { "output", required_argument, NULL, 'o' },
      { "frames", required_argument, NULL, O_FRAMES },
      { "submits", required_argument, NULL, O_SUBMITS },
      { "signal", required_argument, NULL, O_SIGNAL },
      { "trigger-file", required_argument, NULL, O_TRIGGER },
      { "start-off", no_argument, NULL, O_START_OFF },
      { "frame-every", required_argument, NULL, O_EVERY },
      { "frame-on", required_argument, NULL, O_FRAME_ON },
      { "mem", required_argument, NULL, O_MEM },
      { "gpu-memory", required_argument, NULL, O_GPU_MEMORY },
      { "keyframe-every", required_argument, NULL, O_KEYFRAME_EVERY },
      { "shim", no_argument, NULL, O_SHIM },
      { "layer", required_argument, NULL, O_LAYER },
      { "quiet", no_argument, NULL, 'q' },
      { "help", no_argument, NULL, 'h' },
      { NULL, 0, NULL, 0 },
   };
   struct capture_request rq = { 0 };
   const char *layer = NULL;
   bool shim = false;
   optind = 1;
   opterr = 0;
   int c;
   while ((c = getopt_long(argc, argv, "+:o:qh", longopts, NULL)) != -1) {
      switch (c) {
      case 'o': rq.output = optarg; break;
      case O_FRAMES: rq.frames = optarg; break;
      case O_SUBMITS: rq.submits = optarg; break;
      case O_SIGNAL: rq.signal = optarg; break;
      case O_TRIGGER: rq.trigger_file = optarg; break;
      case O_START_OFF: rq.start_off = true; break;
      case O_EVERY:
         if (!cli_parse_u64(optarg, UINT64_MAX, &rq.frame_every) || rq.frame_every == 0)
            return fail("bad --frame-every", optarg);
         break;
      case O_FRAME_ON: rq.frame_on = optarg; break;
      case O_MEM: rq.mem = optarg; break;
      case O_GPU_MEMORY: rq.gpu_memory = optarg; break;
      case O_KEYFRAME_EVERY:
         if (!cli_parse_u64(optarg, UINT32_MAX, &rq.keyframe_every) || rq.keyframe_every == 0)
            return fail("bad --keyframe-every", optarg);
         break;
      case O_SHIM: shim = true; break;
      case O_LAYER: layer = optarg; break;
      case 'q': rq.quiet = true; break;
      case 'h': usage(stdout); return 0;
      default:
         cli_bad_option("capture", c, argv, longopts);
         usage(stderr);
         return 2;
      }
   }
   char err[PATH_MAX + 128];
   rq.layer = "-";   /* checked below, once the rest is known good */
   if (capture_check(&rq, err, sizeof(err)))
      return fail(err, NULL);
   if (optind >= argc)
      return fail("no program to run (-- PROGRAM [ARGS])", NULL);
   char layer_path[PATH_MAX], shim_path[PATH_MAX];
   if (layer)
      snprintf(layer_path, sizeof(layer_path), "%s", layer);
   else if (!cli_find_lib("tessera-capture.so", layer_path, sizeof(layer_path)))
      return fail("cannot find tessera-capture.so (use --layer)", NULL);
   if (shim && !cli_find_lib("tessera-shim.so", shim_path, sizeof(shim_path)))
      return fail("cannot find tessera-shim.so", NULL);
   rq.layer = layer_path;
   rq.shim = shim ? shim_path : NULL;
   /* The program runs in our place (same pid: signals reach it without
    * forwarding, its exit status is ours); its layer reports the traces
    * at its exit. A fork and a process waiting for it cost every capture
    * ~0.6 ms of CPU (docs/capture.md). */
   rq.report = !rq.quiet;
   /* `tessera capture -- tessera run ...`, the way to capture a GL program
    * on the model: `run` only sets variables and execs the program, so it
    * runs here, as the exec'd tessera would (same pid, same environment),
    * one process start less: ~95 page faults and ~2.5 ms of CPU per
    * capture, and one load of the layer (docs/capture.md). */
   if (optind + 1 < argc && !strcmp(argv[optind + 1], "run") && is_self(argv[optind])) {
      if (capture_enter(&rq, &argv[optind], err, sizeof(err)))
         return fail(err, NULL);
      int code = cmd_run(argc - optind - 1, &argv[optind + 1]);
      /* `run` did not exec (it failed, or --help): what the layer of the
       * exec'd tessera, the root process, said at its exit */
      const char *q = getenv("TESSERA_CAPTURE_QUIET");
      if (rq.report && !(q && *q && strcmp(q, "0")))
         fprintf(stderr, "tessera capture: %s was not written (no GPU use by the root process)\n",
                 getenv("TESSERA_CAPTURE_FILE"));
      return code;
   }
   int code = capture_exec(&rq, &argv[optind], err, sizeof(err));
   if (code < 0)
      return fail(err, NULL);
   fprintf(stderr, "tessera capture: %s\n", err);   /* could not be executed */
   return code;
}

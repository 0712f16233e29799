/* SPDX-License-Identifier: MIT */
/*
 * tessera replay: run a trace again (replay/replay.h does the work).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli_args.h"
#include "cli/cli_override.h"
#include "cli/commands.h"
#include "replay/replay.h"

static void
usage(FILE *fp)
{
   fputs("usage: tessera replay FILE.tsr [options]\n"
         "  --device PATH          replay on a render node (default: the model in-process)\n"
         "  --force                replay even if the trace's device differs from the target\n"
         "  --dump-images DIR      write render targets as PNG at the end of each frame\n"
         "  --per-submit           ... after every submission instead\n"
         "  --dump-raw             with --dump-images: also each target's memory as\n"
         "                         FRAME_SUBMIT_KIND.raw (what decompiled programs write)\n"
         "  --frames A-B           replay frames A to B (inclusive; B may be omitted)\n"
         "  --from-frame N         start at frame N from the recorded state\n"
         "  --loop N               warm-up pass, then N timed passes over the frames\n"
         "  --timing FILE          per-frame and per-submission GPU/CPU times as JSON\n"
         "  --override-shader ADDR=FILE  replace the shader at GPU VA ADDR (.s: assembled)\n"
         "  --validate             compare the memory each submission wrote with the capture\n"
         "  --quiet                no progress bar and no summary\n",
         fp);
}

static int
bad(const char *fmt, const char *arg)
{
   fprintf(stderr, "tessera replay: ");
   fprintf(stderr, fmt, arg);
   fputc('\n', stderr);
   return 2;
}

int
cmd_replay(int argc, char **argv)
{
   enum { O_DEVICE = 256, O_FORCE, O_DUMP, O_PER_SUBMIT, O_DUMP_RAW, O_FRAMES, O_FROM, O_LOOP,
          O_TIMING, O_OVERRIDE, O_VALIDATE, O_QUIET, O_HELP };
   static const struct option longopts[] = {
      { "device", required_argument, NULL, O_DEVICE },
      { "force", no_argument, NULL, O_FORCE },
      { "dump-images", required_argument, NULL, O_DUMP },
      { "per-submit", no_argument, NULL, O_PER_SUBMIT },
      { "dump-raw", no_argument, NULL, O_DUMP_RAW },
      { "frames", required_argument, NULL, O_FRAMES },
      { "from-frame", required_argument, NULL, O_FROM },
      { "loop", required_argument, NULL, O_LOOP },
      { "timing", required_argument, NULL, O_TIMING },
      { "override-shader", required_argument, NULL, O_OVERRIDE },
      { "validate", no_argument, NULL, O_VALIDATE },
      { "quiet", no_argument, NULL, O_QUIET },
      { "help", no_argument, NULL, O_HELP },
      { NULL, 0, NULL, 0 },
   };
   struct replay_options o;
   replay_options_init(&o);
   const char *device = NULL;
   bool quiet = false;
   uint8_t *owned[REPLAY_MAX_OVERRIDES] = { 0 };
   int rc = 0, c;
   optind = 1;
   opterr = 0;
   while (!rc && (c = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
      switch (c) {
      case O_DEVICE: device = optarg; break;
      case O_FORCE: o.force = true; break;
      case O_DUMP: o.dump_dir = optarg; break;
      case O_PER_SUBMIT: o.per_submit = true; break;
      case O_DUMP_RAW: o.dump_raw = true; break;
      case O_VALIDATE: o.validate = true; break;
      case O_QUIET: quiet = true; break;
      case O_TIMING: o.timing_path = optarg; break;
      case O_FRAMES:
         if (!cli_parse_range(optarg, &o.first_frame, &o.last_frame))
            rc = bad("--frames wants A-B, got '%s'", optarg);
         break;
      case O_FROM:
         if (!cli_parse_u32(optarg, &o.first_frame))
            rc = bad("--from-frame wants a frame number, got '%s'", optarg);
         break;
      case O_LOOP: {
         uint32_t n;
         if (!cli_parse_u32(optarg, &n) || n == 0 || n > 100000)
            rc = bad("--loop wants a count from 1 to 100000, got '%s'", optarg);
         o.loops = n;
         break;
      }
      case O_OVERRIDE:
         if (o.num_overrides == REPLAY_MAX_OVERRIDES)
            rc = bad("at most %s --override-shader options", "16");
         else
            rc = cli_parse_override("replay", optarg, &o.overrides[o.num_overrides],
                                    &owned[o.num_overrides]), o.num_overrides += !rc;
         break;
      case O_HELP:
         usage(stdout);
         rc = -1;
         break;
      default:
         rc = cli_bad_option("replay", c, argv, longopts);
         usage(stderr);
      }
   }
   if (!rc && o.dump_raw && !o.dump_dir)
      rc = bad("--dump-raw writes into the --dump-images %s: give one", "DIR");
   if (!rc && optind != argc - 1) {
      fprintf(stderr, "tessera replay: expected one trace file\n");
      usage(stderr);
      rc = 2;
   }
   if (rc) {
      for (unsigned i = 0; i < REPLAY_MAX_OVERRIDES; i++)
         free(owned[i]);
      return rc < 0 ? 0 : rc;
   }

   o.progress = !quiet && isatty(STDERR_FILENO);
   char err[512];
   struct replay_backend *b = device ? replay_backend_node(device, err, sizeof(err))
                                     : replay_backend_model(false, err, sizeof(err));
   if (!b) {
      fprintf(stderr, "tessera replay: %s\n", err);
      for (unsigned i = 0; i < REPLAY_MAX_OVERRIDES; i++)
         free(owned[i]);
      return 2;
   }
   struct replay_stats st;
   enum replay_status s = replay_run(argv[optind], b, &o, &st);
   b->destroy(b);
   for (unsigned i = 0; i < REPLAY_MAX_OVERRIDES; i++)
      free(owned[i]);
   if (!quiet && s != REPLAY_ERROR) {
      char validation[128] = "";
      if (o.validate)
         snprintf(validation, sizeof(validation),
                  ", validation %s (%" PRIu64 " pages checked, %" PRIu64 " unverifiable)",
                  st.validated_ok ? "passed" : "FAILED", st.pages_validated,
                  st.pages_unverifiable);
      printf("replayed %" PRIu64 " submissions in %" PRIu64 " frames on the %s: GPU %.3f ms, "
             "CPU %.3f ms%s%s\n",
             st.submits, st.frames, device ? device : "model", st.gpu_ns / 1e6, st.cpu_ns / 1e6,
             validation, st.gpu_errors ? ", with GPU errors" : "");
   }
   if (!quiet && o.dump_dir && s != REPLAY_ERROR)
      printf("wrote %" PRIu64 " images to %s\n", st.images, o.dump_dir);
   return (int)s;
}

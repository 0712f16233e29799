/* SPDX-License-Identifier: MIT */
/*
 * tessera trim: cut a trace to a window of frames or submissions, as a new
 * trace that replays on its own (trace/trace_trim.h does the work).
 */
#include <inttypes.h>
#include <stdio.h>

#include "cli/cli_args.h"
#include "cli/commands.h"
#include "trace/trace_trim.h"

static const char usage_text[] =
   "usage: tessera trim IN.tsr -o OUT.tsr --frames A-B | --submits A-B [-q]\n"
   "\n"
   "Writes a self-contained trace of a window of IN: the state the window\n"
   "starts from (live VMs, objects, binds, timestamp objects, queues and\n"
   "their memory as of its start), then the window's records unchanged.\n"
   "Replaying OUT gives the images of the same frames of IN.\n"
   "\n"
   "  -o, --output OUT   the trimmed trace (not IN)\n"
   "  --frames A-B       frames A to B of IN (0-based, inclusive; A- to the end)\n"
   "  --submits A-B      submissions A to B of IN\n"
   "  -q, --quiet        no summary\n"
   "  -h, --help         show this help\n"
   "\n"
   "Exit status: 0 written; 1 IN is damaged where the window needs it, or OUT\n"
   "cannot be written; 2 bad usage, a window that is empty or past the end of\n"
   "IN, or an IN that is not a trace.\n";

int
cmd_trim(int argc, char **argv)
{
   enum { O_FRAMES = 256, O_SUBMITS };
   static const struct option longopts[] = {
      { "output", required_argument, NULL, 'o' },
      { "frames", required_argument, NULL, O_FRAMES },
      { "submits", required_argument, NULL, O_SUBMITS },
      { "quiet", no_argument, NULL, 'q' },
      { "help", no_argument, NULL, 'h' },
      { NULL, 0, NULL, 0 },
   };
   struct tsr_trim_options o = { .last = UINT32_MAX }; /* "A-" sets only first */
   const char *out = NULL;
   bool quiet = false, have_window = false;
   int c;
   optind = 1;
   opterr = 0;
   while ((c = getopt_long(argc, argv, ":o:qh", longopts, NULL)) != -1) {
      switch (c) {
      case 'h': fputs(usage_text, stdout); return 0;
      case 'o': out = optarg; break;
      case 'q': quiet = true; break;
      case O_FRAMES:
      case O_SUBMITS:
         if (have_window) {
            fprintf(stderr, "tessera trim: give one window: --frames or --submits, once\n");
            return 2;
         }
         have_window = true;
         o.unit = c == O_FRAMES ? TSR_TRIM_FRAMES : TSR_TRIM_SUBMITS;
         if (!cli_parse_range(optarg, &o.first, &o.last)) {
            fprintf(stderr, "tessera trim: %s wants A-B, A- or A, got '%s'\n",
                    c == O_FRAMES ? "--frames" : "--submits", optarg);
            return 2;
         }
         break;
      default:
         cli_bad_option("trim", c, argv, longopts);
         fputs(usage_text, stderr);
         return 2;
      }
   }
   const char *why = optind == argc       ? "no input trace given"
                     : optind + 1 < argc  ? "only one input trace, please"
                     : !out               ? "no output given (-o OUT.tsr)"
                     : !have_window       ? "no window given (--frames A-B or --submits A-B)"
                                          : NULL;
   if (why) {
      fprintf(stderr, "tessera trim: %s\n%s", why, usage_text);
      return 2;
   }
   const char *in = argv[optind];
   char err[512];
   struct tsr_trim_stats st;
   enum tsr_trim_result r = tsr_trim(in, out, &o, &st, err, sizeof(err));
   if (r != TSR_TRIM_OK) {
      fprintf(stderr, "tessera trim: %s\n", err);
      return r == TSR_TRIM_DAMAGED || r == TSR_TRIM_WRITE_ERROR ? 1 : 2;
   }
   if (!quiet) {
      printf("%s: frames %" PRIu32 "-%" PRIu32 " of %s (submissions %" PRIu32 "-%" PRIu32
             "): %" PRIu32 " submissions, %" PRIu32 " frame markers\n",
             out, st.first_frame, st.last_frame, in, st.first_seq,
             st.first_seq + st.submits - (st.submits ? 1 : 0), st.submits, st.frames);
      printf("state at the start: %" PRIu32 " VMs, %" PRIu32 " GEM objects (%" PRIu64
             " pages), %" PRIu32 " timestamp objects, %" PRIu32 " queues: %" PRIu64 " bytes\n",
             st.vms, st.objects, st.state_pages, st.tsobjs, st.queues, st.state_bytes);
      printf("size: %" PRIu64 " bytes (%s: %" PRIu64 " bytes, %.1f %%)\n", st.out_bytes, in,
             st.in_bytes, st.in_bytes ? 100.0 * (double)st.out_bytes / (double)st.in_bytes : 0.0);
      if (st.widened && o.unit == TSR_TRIM_FRAMES)
         printf("%s records GPU results only at keyframes: the window starts at keyframe "
                "frame %" PRIu32 ", before frame %" PRIu32 " (its frame %" PRIu32
                " here: replay --from-frame %" PRIu32 ")\n",
                in, st.first_frame, st.asked_first, st.asked_first - st.first_frame,
                st.asked_first - st.first_frame);
      else if (st.widened)
         printf("%s records GPU results only at keyframes: the window starts at submission "
                "%" PRIu32 ", the first of the last keyframe before submission %" PRIu32 "\n",
                in, st.first_seq, st.asked_first);
      if (st.dropped)
         printf("left out %" PRIu64 " records of types this version does not know\n", st.dropped);
   }
   return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * tessera decompile: a trace as a C program that replays it through libdrm
 * (replay/replay_decompile.h does the work).
 */
#include <inttypes.h>
#include <stdio.h>

#include "cli/cli_args.h"
#include "cli/commands.h"
#include "replay/replay_decompile.h"

static const char usage_text[] =
   "usage: tessera decompile IN.tsr -o DIR [--per-submit] [-q]\n"
   "\n"
   "Writes a C program that recreates IN's VMs, GEM objects and memory at the\n"
   "recorded GPU addresses and issues the same submissions in order, using only\n"
   "libdrm and the uAPI header; edit it and rebuild it with `make -C DIR`.\n"
   "At each frame's end it writes the render targets' memory as\n"
   "fFFFF_sSSSSS_KINDn.raw, the files `tessera replay --dump-images D --dump-raw`\n"
   "writes. DIR gets decompiled.c, decompiled.bin (the memory, by offset),\n"
   "asahi_drm.h and a Makefile. Run it on the model with\n"
   "`tessera run -- DIR/decompiled -o OUT`.\n"
   "\n"
   "  -o, --output DIR   where to write (created if missing)\n"
   "  --per-submit       dump after every submission instead (replay's --per-submit)\n"
   "  -q, --quiet        no summary\n"
   "  -h, --help         show this help\n"
   "\n"
   "Exit status: 0 written; 1 DIR cannot be written; 2 bad usage, or an IN that\n"
   "is missing, not a trace, damaged or inconsistent.\n";

int
cmd_decompile(int argc, char **argv)
{
   static const struct option longopts[] = {
      { "output", required_argument, NULL, 'o' },
      { "per-submit", no_argument, NULL, 'p' },
      { "quiet", no_argument, NULL, 'q' },
      { "help", no_argument, NULL, 'h' },
      { NULL, 0, NULL, 0 },
   };
   const char *out = NULL;
   bool quiet = false, per_submit = false;
   int c;
   optind = 1;
   opterr = 0;
   while ((c = getopt_long(argc, argv, ":o:qh", longopts, NULL)) != -1) {
      switch (c) {
      case 'h': fputs(usage_text, stdout); return 0;
      case 'o': out = optarg; break;
      case 'q': quiet = true; break;
      case 'p': per_submit = true; break;
      default:
         cli_bad_option("decompile", c, argv, longopts);
         fputs(usage_text, stderr);
         return 2;
      }
   }
   const char *why = optind == argc      ? "no input trace given"
                     : optind + 1 < argc ? "only one input trace, please"
                     : !out              ? "no output directory given (-o DIR)"
                                         : NULL;
   if (why) {
      fprintf(stderr, "tessera decompile: %s\n%s", why, usage_text);
      return 2;
   }
   const char *in = argv[optind];
   char err[512];
   bool write_failed;
   struct replay_decompile_stats st;
   if (replay_decompile(in, out, per_submit, &st, &write_failed, err, sizeof(err)) != REPLAY_OK) {
      fprintf(stderr, "tessera decompile: %s\n", err);
      return write_failed ? 1 : 2;
   }
   if (!quiet)
      printf("%s: %" PRIu64 " submissions in %" PRIu64 " frames, %" PRIu64 " GEM objects, %" PRIu64
             " memory loads, %" PRIu64 " render-target dumps; decompiled.c %" PRIu64
             " bytes, decompiled.bin %" PRIu64 " bytes\n",
             out, st.submits, st.frames, st.objects, st.loads, st.dumps, st.source_bytes,
             st.data_bytes);
   return 0;
}

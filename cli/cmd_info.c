/* SPDX-License-Identifier: MIT */
/*
 * tessera info: one screen about a trace (or a JSON object with --json),
 * and the child-process traces found beside it (NAME.<pid>.tsr, see
 * trace/trace.h). The summary is the trace library's
 * (trace/trace_summary.h); this file parses the options. --verify also
 * checks every checksum and the index (exit 1 on problems).
 */
#include <stdio.h>

#include "cli/cli_args.h"
#include "cli/commands.h"
#include "trace/trace.h"
#include "trace/trace_summary.h"

static const char usage_text[] =
   "usage: tessera info [--json] [--verify] [--shaders] FILE.tsr\n"
   "\n"
   "Summarizes a trace file.\n"
   "\n"
   "  --json      print one JSON object instead of text\n"
   "  --verify    also check every chunk checksum, record and page reference\n"
   "              and the index; exit 1 if anything is wrong\n"
   "  --shaders   also list the shader index: address, size, stage, hash and\n"
   "              the first submission that used it\n"
   "  -h, --help  show this help\n"
   "\n"
   "Exit status: 0 ok; 1 the trace is damaged (checksums are always checked) or\n"
   "--verify found problems; 2 bad usage or unreadable file.\n";

int cmd_info(int argc, char **argv)
{
   enum { O_JSON = 256, O_VERIFY, O_SHADERS };
   static const struct option longopts[] = {
      { "json", no_argument, NULL, O_JSON },
      { "verify", no_argument, NULL, O_VERIFY },
      { "shaders", no_argument, NULL, O_SHADERS },
      { "help", no_argument, NULL, 'h' },
      { NULL, 0, NULL, 0 },
   };
   bool json = false, verify = false, shaders = false;
   int c;
   optind = 1;
   opterr = 0;
   while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
      switch (c) {
      case 'h': fputs(usage_text, stdout); return 0;
      case O_JSON: json = true; break;
      case O_VERIFY: verify = true; break;
      case O_SHADERS: shaders = true; break;
      default:
         cli_bad_option("info", c, argv, longopts);
         fputs(usage_text, stderr);
         return 2;
      }
   }
   if (optind == argc) {
      fprintf(stderr, "tessera info: no trace file given\n%s", usage_text);
      return 2;
   }
   if (optind + 1 < argc) {
      fprintf(stderr, "tessera info: only one trace file, please\n");
      return 2;
   }
   const char *path = argv[optind];

   char err[512];
   struct tsr_reader *r;
   if (tsr_reader_open(&r, path, err, sizeof(err))) {
      fprintf(stderr, "tessera info: %s: %s\n", path, err);
      return 2;
   }
   struct tsr_summary s;
   int status = 0;
   if (tsr_summary_read(&s, r)) {
      fprintf(stderr, "tessera info: %s: %s\n", path, tsr_reader_error(r));
      status = 2;
   } else {
      char **children = tsr_child_traces(path);
      if (json)
         tsr_summary_print_json(stdout, path, &s, children);
      else
         tsr_summary_print_text(stdout, path, &s, children);
      tsr_free_paths(children);
      if (shaders && !json)
         tsr_summary_print_shaders(stdout, r);
      if (verify) {
         unsigned problems = tsr_reader_verify(r, stderr);
         if (!json)
            printf("verify:       %u problem(s)\n", problems);
         if (problems)
            status = 1;
      }
      /* Damage seen while reading (every chunk's checksum is checked at
       * open): the summary is what could be salvaged, and says so. */
      const struct tsr_info *in = tsr_reader_info(r);
      if (in->damage) {
         fprintf(stderr, "tessera info: %s: damaged trace: %s (%llu problem(s)%s)\n", path,
                 tsr_reader_damage(r), (unsigned long long)in->damage,
                 verify ? "" : "; --verify lists them");
         status = 1;
      }
   }
   tsr_summary_free(&s);
   tsr_reader_close(r);
   return status;
}

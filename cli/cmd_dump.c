/* SPDX-License-Identifier: MIT */
/*
 * tessera dump: every record of a trace as stable, diffable text. The
 * printer is the trace library's (trace/trace_dump.h); this file parses the
 * options, picks the records (--frame, --submit, --shader) and the output.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli_args.h"
#include "cli/commands.h"
#include "trace/trace.h"
#include "trace/trace_dump.h"

static const char usage_text[] =
   "usage: tessera dump [options] FILE.tsr\n"
   "\n"
   "Prints every record of a trace as stable, diffable text.\n"
   "\n"
   "  --frame N     only the records of frame N (0-based; frames end at markers)\n"
   "  --submit N    only submission N and the records up to the next one\n"
   "  --times       include host times (omitted by default for stable diffs)\n"
   "  --no-streams  do not decode the VDM/CDM streams of commands\n"
   "  --no-disasm   do not disassemble shaders\n"
   "  --shader ADDR only disassemble the indexed shader at GPU VA ADDR\n"
   "  -o FILE       write to FILE instead of standard output\n"
   "  -h, --help    show this help\n"
   "\n"
   "Exit status: 0 ok; 1 the trace is damaged or truncated (what is readable is\n"
   "dumped, unreadable pages as zeros, and stderr names the damage);\n"
   "2 bad usage or unreadable file.\n";

int cmd_dump(int argc, char **argv)
{
   enum { O_FRAME = 256, O_SUBMIT, O_TIMES, O_NO_STREAMS, O_NO_DISASM, O_SHADER };
   static const struct option longopts[] = {
      { "frame", required_argument, NULL, O_FRAME },
      { "submit", required_argument, NULL, O_SUBMIT },
      { "times", no_argument, NULL, O_TIMES },
      { "no-streams", no_argument, NULL, O_NO_STREAMS },
      { "no-disasm", no_argument, NULL, O_NO_DISASM },
      { "shader", required_argument, NULL, O_SHADER },
      { "help", no_argument, NULL, 'h' },
      { NULL, 0, NULL, 0 },
   };
   struct tsr_dump_options o = {.streams = true, .disasm = true};
   const char *out = NULL;
   uint64_t frame = 0, submit = 0, shader_va = 0;
   bool by_frame = false, by_submit = false, one_shader = false;
   int c;
   optind = 1;
   opterr = 0;
   while ((c = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
      switch (c) {
      case 'h': fputs(usage_text, stdout); return 0;
      case 'o': out = optarg; break;
      case O_TIMES: o.times = true; break;
      case O_NO_STREAMS: o.streams = false; break;
      case O_NO_DISASM: o.disasm = false; break;
      case O_SHADER:
         if (!cli_parse_u64(optarg, UINT64_MAX, &shader_va)) {
            fprintf(stderr, "tessera dump: bad address '%s' for --shader\n", optarg);
            return 2;
         }
         one_shader = true;
         break;
      case O_FRAME:
      case O_SUBMIT:
         if (!cli_parse_u64(optarg, UINT64_MAX, c == O_FRAME ? &frame : &submit)) {
            fprintf(stderr, "tessera dump: bad number '%s' for %s\n", optarg,
                    c == O_FRAME ? "--frame" : "--submit");
            return 2;
         }
         *(c == O_FRAME ? &by_frame : &by_submit) = true;
         break;
      default:
         cli_bad_option("dump", c, argv, longopts);
         if (c == '?')
            fputs(usage_text, stderr);
         return 2;
      }
   }
   if (optind == argc) {
      fprintf(stderr, "tessera dump: no trace file given\n%s", usage_text);
      return 2;
   }
   if (optind + 1 < argc) {
      fprintf(stderr, "tessera dump: only one trace file, please\n");
      return 2;
   }
   const char *path = argv[optind];
   if (one_shader && (by_frame || by_submit)) {
      fprintf(stderr, "tessera dump: --shader excludes --frame and --submit\n");
      return 2;
   }
   if (by_frame && by_submit) {
      fprintf(stderr, "tessera dump: --frame and --submit exclude each other\n");
      return 2;
   }
   char err[512];
   struct tsr_reader *r;
   if (tsr_reader_open(&r, path, err, sizeof(err))) {
      fprintf(stderr, "tessera dump: %s: %s\n", path, err);
      return 2;
   }
   int ret = 0;
   if (by_frame)
      ret = tsr_reader_seek_frame(r, frame);
   else if (by_submit)
      ret = tsr_reader_seek_submit(r, submit);
   if (ret) {
      fprintf(stderr, "tessera dump: %s: %s\n", path, tsr_reader_error(r));
      tsr_reader_close(r);
      return 2;
   }
   FILE *fp = stdout;
   if (out && !(fp = fopen(out, "w"))) {
      fprintf(stderr, "tessera dump: cannot write %s: %s\n", out, strerror(errno));
      tsr_reader_close(r);
      return 2;
   }
   struct tsr_dump *d = tsr_dump_create(fp, r, &o);
   int status;
   if (!d) {
      fprintf(stderr, "tessera dump: out of memory\n");
      status = 2;
   } else if (one_shader) {
      ret = tsr_dump_shader(d, shader_va);
      if (ret < 0)
         fprintf(stderr, "tessera dump: %s\n", tsr_reader_error(r));
      else if (!ret)
         fprintf(stderr, "tessera dump: no indexed shader at 0x%" PRIx64
                         " (tessera info --shaders lists them)\n", shader_va);
      status = ret > 0 ? 0 : 2;
   } else {
      const struct tsr_info *in = tsr_reader_info(r);
      status = in->truncated ? 1 : 0;
      ret = tsr_dump_records(d, by_frame ? TSR_DUMP_FRAME : by_submit ? TSR_DUMP_SUBMIT
                                                                      : TSR_DUMP_ALL, frame);
      if (ret < 0) {
         fprintf(stderr, "tessera dump: %s: %s\n", path, tsr_reader_error(r));
         status = 1;
      } else if (in->truncated) {
         fprintf(stderr, "tessera dump: %s: truncated trace, dumped up to its last whole chunk\n",
                 path);
      }
   }
   /* Salvage prints what is readable (damaged pages as zeros), but a
    * damaged trace never passes for a good one. */
   const struct tsr_info *in = tsr_reader_info(r);
   if (in->damage && status != 2) {
      fprintf(stderr, "tessera dump: %s: damaged trace: %s (%llu problem(s); unreadable pages "
                      "were read as zeros; tessera info --verify lists them)\n", path,
              tsr_reader_damage(r), (unsigned long long)in->damage);
      status = 1;
   }
   if (fp != stdout && fclose(fp)) {
      if (!one_shader)
         fprintf(stderr, "tessera dump: write error on %s\n", out);
      status = 2;
   }
   tsr_dump_destroy(d);
   tsr_reader_close(r);
   return status;
}

/* SPDX-License-Identifier: MIT */
/* tessera disasm: raw AGX machine code -> applegpu-syntax listing. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_args.h"
#include "cli/commands.h"
#include "cmdstream/isa/agx_isa.h"

static void
disasm_usage(FILE *fp)
{
   fprintf(fp, "usage: tessera disasm [--base ADDR] [--bytes] [--stop] FILE\n"
               "  Disassembles raw AGX G13 machine code in applegpu's syntax.\n"
               "  --base ADDR  address of the first byte (default 0): the addresses\n"
               "               shown with --bytes and the branch targets (0x...)\n"
               "  --bytes      prefix each line with its address and raw bytes\n"
               "  --stop       stop after the first 'stop' instruction\n"
               "  Output without --bytes re-assembles with 'tessera asm' (same --base).\n");
}

int
cmd_disasm(int argc, char **argv)
{
   struct agx_disasm_options opts = { 0 };
   const char *path = NULL;
   enum { O_BYTES = 256, O_STOP, O_BASE };
   static const struct option longopts[] = {
      { "bytes", no_argument, NULL, O_BYTES },
      { "stop", no_argument, NULL, O_STOP },
      { "base", required_argument, NULL, O_BASE },
      { "help", no_argument, NULL, 'h' },
      { NULL, 0, NULL, 0 },
   };
   int c;
   optind = 1;
   opterr = 0;
   while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
      switch (c) {
      case 'h': disasm_usage(stdout); return 0;
      case O_BYTES: opts.show_bytes = true; break;
      case O_STOP: opts.stop_at_end = true; break;
      case O_BASE:
         if (!cli_parse_u64(optarg, UINT64_MAX, &opts.pc)) {
            fprintf(stderr, "tessera disasm: bad address '%s'\n", optarg);
            return 2;
         }
         break;
      default:
         cli_bad_option("disasm", c, argv, longopts);
         disasm_usage(stderr);
         return 2;
      }
   }
   if (optind + 1 < argc) {
      fprintf(stderr, "tessera disasm: unexpected argument '%s'\n", argv[optind + 1]);
      disasm_usage(stderr);
      return 2;
   }
   path = optind < argc ? argv[optind] : NULL;
   if (!path) {
      disasm_usage(stderr);
      return 2;
   }
   FILE *f = fopen(path, "rb");
   if (!f) {
      fprintf(stderr, "tessera disasm: %s: %s\n", path, strerror(errno));
      return 2;
   }
   size_t cap = 4096, len = 0;
   uint8_t *buf = malloc(cap);
   size_t n;
   while (buf && (n = fread(buf + len, 1, cap - len, f)) > 0) {
      len += n;
      if (len == cap) {
         uint8_t *nb = realloc(buf, cap * 2);
         if (!nb) {
            free(buf);
            buf = NULL;
            break;
         }
         buf = nb;
         cap *= 2;
      }
   }
   fclose(f);
   if (!buf) {
      fprintf(stderr, "tessera disasm: out of memory\n");
      return 2;
   }
   /* A trailing partial instruction is printed as data, but it means the
    * input was not a whole program: report it. */
   int rc = 0;
   size_t p = 0;
   while (p < len) {
      struct agx_instr in;
      enum agx_isa_status st = agx_isa_decode(buf + p, len - p, &in);
      if (st == AGX_ISA_TRUNCATED || len - p == 1) {
         fprintf(stderr, "tessera disasm: %s: truncated instruction at offset 0x%zx\n", path, p);
         rc = 2;
         break;
      }
      p += st == AGX_ISA_OK ? in.length : 2;
      if (st == AGX_ISA_OK && opts.stop_at_end && in.op == AGX_OP_STOP)
         break;
   }
   agx_disasm_print(stdout, buf, len, &opts);
   free(buf);
   return rc;
}

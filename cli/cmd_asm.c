/* SPDX-License-Identifier: MIT */
/* tessera asm: applegpu-syntax listing -> raw AGX machine code. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_args.h"
#include "cli/commands.h"
#include "cmdstream/isa/agx_isa.h"

static void
asm_usage(FILE *fp)
{
   fprintf(fp, "usage: tessera asm [--base ADDR] FILE [-o OUT]\n"
               "  Assembles an applegpu-syntax listing to raw AGX G13 machine code\n"
               "  (to OUT, default FILE with .bin appended). Labels: 'name:' and pc+name.\n"
               "  --base ADDR  address of the first byte (default 0); branch targets\n"
               "               written as addresses (0x..., as 'tessera disasm' prints\n"
               "               them) are relative to it, pc+N / pc-N are not\n");
}

int
cmd_asm(int argc, char **argv)
{
   const char *in_path = NULL, *out_path = NULL;
   uint64_t base = 0;
   enum { O_BASE = 256 };
   static const struct option longopts[] = {
      { "base", required_argument, NULL, O_BASE },
      { "help", no_argument, NULL, 'h' },
      { NULL, 0, NULL, 0 },
   };
   int c;
   optind = 1;
   opterr = 0;
   while ((c = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
      switch (c) {
      case 'h': asm_usage(stdout); return 0;
      case 'o': out_path = optarg; break;
      case O_BASE:
         if (!cli_parse_u64(optarg, UINT64_MAX, &base)) {
            fprintf(stderr, "tessera asm: bad address '%s'\n", optarg);
            return 2;
         }
         break;
      default:
         cli_bad_option("asm", c, argv, longopts);
         asm_usage(stderr);
         return 2;
      }
   }
   if (optind + 1 < argc) {
      fprintf(stderr, "tessera asm: unexpected argument '%s'\n", argv[optind + 1]);
      asm_usage(stderr);
      return 2;
   }
   in_path = optind < argc ? argv[optind] : NULL;
   if (!in_path) {
      asm_usage(stderr);
      return 2;
   }
   FILE *f = fopen(in_path, "rb");
   if (!f) {
      fprintf(stderr, "tessera asm: %s: %s\n", in_path, strerror(errno));
      return 2;
   }
   size_t cap = 4096, len = 0, n;
   char *text = malloc(cap);
   while (text && (n = fread(text + len, 1, cap - len, f)) > 0) {
      len += n;
      if (len == cap) {
         char *nt = realloc(text, cap * 2);
         if (!nt) {
            free(text);
            text = NULL;
            break;
         }
         text = nt;
         cap *= 2;
      }
   }
   fclose(f);
   if (!text) {
      fprintf(stderr, "tessera asm: out of memory\n");
      return 2;
   }
   /* every instruction is at most 12 bytes and at least one text byte + newline */
   size_t out_cap = len * 6 + 16;
   uint8_t *out = malloc(out_cap);
   size_t out_len;
   char err[300];
   if (!out || !agx_isa_assemble_at(text, len, base, out, out_cap, &out_len, err, sizeof(err))) {
      fprintf(stderr, "tessera asm: %s:%s\n", in_path, out ? err : " out of memory");
      free(text);
      free(out);
      return 2;
   }
   free(text);
   char def[4096];
   if (!out_path) {
      snprintf(def, sizeof(def), "%s.bin", in_path);
      out_path = def;
   }
   FILE *o = fopen(out_path, "wb");
   if (!o || fwrite(out, 1, out_len, o) != out_len || fclose(o) != 0) {
      fprintf(stderr, "tessera asm: %s: %s\n", out_path, strerror(errno));
      free(out);
      return 2;
   }
   free(out);
   return 0;
}

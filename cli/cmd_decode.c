/* SPDX-License-Identifier: MIT */
/*
 * tessera decode: decode a VDM or CDM control stream from a memory image.
 *
 * The image is one or more raw files, each mapped at a GPU address
 * (--map ADDR:FILE); the stream starts at --vdm or --cdm ADDR. Pipelines,
 * shaders and CF bindings are addressed relative to --usc-base, as the
 * hardware does. Output is the decoder's text (cmdstream/agx_decode.h)
 * followed by a one-line summary starting with '#'.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_args.h"
#include "cli/commands.h"
#include "cmdstream/agx_decode.h"

#define MAX_MAPS 64
#define MAX_FILE_BYTES (1ull << 30)

static const char usage_text[] =
   "usage: tessera decode [options] --map ADDR:FILE... (--vdm ADDR | --cdm ADDR)\n"
   "\n"
   "Decodes an AGX control stream from a memory image made of raw files.\n"
   "\n"
   "  --map ADDR:FILE   map the bytes of FILE at GPU address ADDR (repeatable;\n"
   "                    mappings must not overlap)\n"
   "  --usc-base ADDR   base of the 32-bit USC addresses used by pipelines,\n"
   "                    shaders and CF bindings (default 0)\n"
   "  --vdm ADDR        decode a VDM (render) stream starting at ADDR\n"
   "  --cdm ADDR        decode a CDM (compute) stream starting at ADDR\n"
   "  --no-disasm       print shader addresses without disassembling them\n"
   "  --raw             also hex-dump the bytes of every block\n"
   "  --max-blocks N    stop after N stream blocks (default 4096)\n"
   "  -o FILE           write the text to FILE instead of standard output\n"
   "  -h, --help        show this help\n"
   "\n"
   "Numbers are decimal, 0x-prefixed hex or 0-prefixed octal.\n"
   "Exit status: 0 the stream decoded cleanly and ended with a terminate;\n"
   "1 it was decoded but had errors (shown as XXX lines); 2 bad usage or input.\n";

static int
fail(const char *fmt, const char *arg)
{
   fprintf(stderr, "tessera decode: ");
   fprintf(stderr, fmt, arg);
   fprintf(stderr, "\n");
   return 2;
}

static uint8_t *
load_file(const char *path, size_t *size, const char **why)
{
   FILE *fp = fopen(path, "rb");
   if (!fp) {
      *why = strerror(errno);
      return NULL;
   }
   uint8_t *buf = NULL;
   size_t len = 0, cap = 0;
   for (;;) {
      if (len == cap) {
         if (cap >= MAX_FILE_BYTES) {
            *why = "file too large (limit 1 GiB)";
            goto fail;
         }
         cap = cap ? cap * 2 : 65536;
         uint8_t *n = realloc(buf, cap);
         if (!n) {
            *why = "out of memory";
            goto fail;
         }
         buf = n;
      }
      size_t r = fread(buf + len, 1, cap - len, fp);
      len += r;
      if (r == 0) {
         if (ferror(fp)) {
            *why = "read error";
            goto fail;
         }
         break;
      }
   }
   fclose(fp);
   if (len == 0) {
      *why = "file is empty";
      free(buf);
      return NULL;
   }
   *size = len;
   return buf;
fail:
   fclose(fp);
   free(buf);
   return NULL;
}

int
cmd_decode(int argc, char **argv)
{
   struct {
      uint64_t va;
      const char *path;
   } maps[MAX_MAPS];
   unsigned nmaps = 0;
   uint64_t usc_base = 0, start = 0, max_blocks = 0;
   int kind = -1;
   const char *out_path = NULL;
   bool no_disasm = false, raw = false;

   enum { O_MAP = 256, O_USC_BASE, O_VDM, O_CDM, O_NO_DISASM, O_RAW, O_MAX_BLOCKS };
   static const struct option longopts[] = {
      { "map", required_argument, NULL, O_MAP },
      { "usc-base", required_argument, NULL, O_USC_BASE },
      { "vdm", required_argument, NULL, O_VDM },
      { "cdm", required_argument, NULL, O_CDM },
      { "no-disasm", no_argument, NULL, O_NO_DISASM },
      { "raw", no_argument, NULL, O_RAW },
      { "max-blocks", required_argument, NULL, O_MAX_BLOCKS },
      { "help", no_argument, NULL, 'h' },
      { NULL, 0, NULL, 0 },
   };
   int c;
   optind = 1;
   opterr = 0;
   while ((c = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
      const char *v = optarg;
      switch (c) {
      case 'h':
         fputs(usage_text, stdout);
         return 0;
      case O_NO_DISASM: no_disasm = true; break;
      case O_RAW: raw = true; break;
      case O_MAP: {
         const char *colon = strchr(v, ':');
         if (!colon || colon == v || !colon[1])
            return fail("--map expects ADDR:FILE, got '%s'", v);
         if (nmaps == MAX_MAPS)
            return fail("too many --map options (limit %s)", "64");
         if (!cli_parse_u64_until(v, ':', &maps[nmaps].va))
            return fail("bad address in --map '%s'", v);
         maps[nmaps++].path = colon + 1;
         break;
      }
      case O_USC_BASE:
         if (!cli_parse_u64(v, UINT64_MAX, &usc_base))
            return fail("bad --usc-base value '%s'", v);
         break;
      case O_VDM:
      case O_CDM:
         if (kind >= 0)
            return fail("give only one of --vdm and --cdm%s", "");
         kind = c == O_VDM ? AGX_DECODE_VDM : AGX_DECODE_CDM;
         if (!cli_parse_u64(v, UINT64_MAX, &start))
            return fail("bad stream address '%s'", v);
         break;
      case O_MAX_BLOCKS:
         if (!cli_parse_u64(v, 1u << 24, &max_blocks) || max_blocks == 0)
            return fail("bad --max-blocks value '%s' (1..16777216)", v);
         break;
      case 'o':
         if (!*v)
            return fail("%s needs a file name", "-o");
         out_path = v;
         break;
      default:
         cli_bad_option("decode", c, argv, longopts);
         if (c == '?')
            fprintf(stderr, "\n%s", usage_text);
         return 2;
      }
   }
   if (optind < argc) {
      fprintf(stderr, "tessera decode: unknown argument '%s'\n\n%s", argv[optind], usage_text);
      return 2;
   }
   if (kind < 0)
      return fail("%s", "no stream given: use --vdm ADDR or --cdm ADDR");
   if (nmaps == 0)
      return fail("%s", "no memory given: use --map ADDR:FILE");

   int rc = 2;
   uint8_t *data[MAX_MAPS] = { 0 };
   struct agx_decode_mem mem;
   agx_decode_mem_init(&mem);
   FILE *out = NULL;

   for (unsigned i = 0; i < nmaps; i++) {
      size_t size;
      const char *why = "";
      data[i] = load_file(maps[i].path, &size, &why);
      if (!data[i]) {
         fprintf(stderr, "tessera decode: cannot load '%s': %s\n",
                 maps[i].path, why);
         goto out;
      }
      if (!agx_decode_mem_add(&mem, maps[i].va, data[i], size)) {
         fprintf(stderr, "tessera decode: '%s' at 0x%" PRIx64
                 " overlaps another mapping or wraps around\n", maps[i].path,
                 maps[i].va);
         goto out;
      }
   }

   uint8_t probe[4];
   if (agx_decode_mem_read(&mem, start, probe, sizeof(probe)) < 4) {
      fprintf(stderr, "tessera decode: stream start 0x%" PRIx64
              " is not mapped\n", start);
      goto out;
   }

   out = out_path ? fopen(out_path, "w") : stdout;
   if (!out) {
      fprintf(stderr, "tessera decode: cannot write '%s': %s\n", out_path,
              strerror(errno));
      goto out;
   }

   struct agx_decode_options opts = {
      .read = agx_decode_mem_read,
      .read_ctx = &mem,
      .usc_base = usc_base,
      .max_blocks = (unsigned)max_blocks,
      .no_disasm = no_disasm,
      .raw = raw,
   };
   struct agx_decode_result res;
   bool ok = agx_decode_stream(out, &opts, (enum agx_decode_stream_kind)kind,
                               start, &res);
   fprintf(out, "# %u blocks, %u errors, %u warnings%s%s\n", res.blocks,
           res.errors, res.warnings, res.terminated ? ", terminated" : "",
           res.truncated ? ", output truncated" : "");
   rc = ok ? 0 : 1;
   if (out != stdout && fclose(out)) {
      fprintf(stderr, "tessera decode: error writing '%s'\n", out_path);
      rc = 2;
   } else if (out == stdout && fflush(stdout)) {
      rc = 2;
   }

out:
   agx_decode_mem_finish(&mem);
   for (unsigned i = 0; i < nmaps; i++)
      free(data[i]);
   return rc;
}

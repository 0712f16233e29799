/* SPDX-License-Identifier: MIT */
/*
 * Random text through the assembler (line parser and whole listings).
 * Whatever assembles is disassembled and assembled again (".word" lines can
 * carry undefined encodings, so only "no crash, no leak" is checked).
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
   if (size > 4096)
      return 0;
   size_t cap = size * 6 + 16;
   uint8_t *out = malloc(cap), *again = malloc(cap);
   char err[300];
   size_t n;
   if (out && again && agx_isa_assemble((const char *)data, size, out, cap, &n, err, sizeof(err))) {
      char *text = NULL;
      size_t text_len = 0;
      FILE *mem = open_memstream(&text, &text_len);
      if (mem) {
         agx_disasm_print(mem, out, n, NULL);
         fclose(mem);
         size_t cap2 = text_len * 6 + 16;
         uint8_t *again2 = malloc(cap2);
         size_t n2;
         if (again2 && agx_isa_assemble(text, text_len, again2, cap2, &n2, err, sizeof(err))) {
            (void)n2;
         }
         free(again2);
         free(text);
      }
   }
   free(out);
   free(again);
   return 0;
}

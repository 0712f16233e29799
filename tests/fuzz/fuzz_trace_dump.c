/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target over the trace printer (`tessera dump`): open the input
 * as a trace and print every record with the streams decoded and the
 * shaders disassembled over the trace's memory, then one frame and one
 * submission after a seek, and the damage summary. The printer decodes
 * whatever memory a damaged trace holds (pages read as zeros, repeated or
 * missing chunks), so any input must print or stop without a crash, a leak
 * or undefined behaviour. (Fuzzing builds skip the checksums, so damaged
 * payloads reach the decoders.)
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "trace/trace.h"
#include "trace/trace_dump.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
   static FILE *sink;
   if (!sink && !(sink = fopen("/dev/null", "w")))
      return 0;
   struct tsr_reader *r;
   if (tsr_reader_open_mem(&r, data, size, NULL, 0))
      return 0;
   struct tsr_dump_options o = {.times = true, .streams = true, .disasm = true};
   struct tsr_dump *d = tsr_dump_create(sink, r, &o);
   if (d) {
      tsr_dump_records(d, TSR_DUMP_ALL, 0);
      const struct tsr_info *in = tsr_reader_info(r);
      if (in->frames && tsr_reader_seek_frame(r, in->frames - 1) == 0)
         tsr_dump_records(d, TSR_DUMP_FRAME, in->frames - 1);
      if (in->submits && tsr_reader_seek_submit(r, 0) == 0)
         tsr_dump_records(d, TSR_DUMP_SUBMIT, 0);
      tsr_dump_destroy(d);
   }
   fprintf(sink, "%s %llu\n", tsr_reader_damage(r),
           (unsigned long long)tsr_reader_info(r)->damage);
   tsr_reader_close(r);
   return 0;
}

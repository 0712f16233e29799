/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the stream decoder: arbitrary bytes as GPU memory.
 *
 * Input layout: byte 0 bit 0 picks VDM (0) or CDM (1); bytes 1-2 are the
 * little-endian offset of the first block; the rest is memory mapped at
 * 0x1500000000, which is also the USC base (the seeds are the decode test's
 * image, whose streams live there). The decoder must never crash, hang or
 * write unbounded text; output goes to /dev/null.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cmdstream/agx_decode.h"

#define FUZZ_VA 0x1500000000ull

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
   static FILE *null_fp;
   if (!null_fp)
      null_fp = fopen("/dev/null", "w");
   if (!null_fp || size < 4)
      return 0;

   enum agx_decode_stream_kind kind =
      (data[0] & 1) ? AGX_DECODE_CDM : AGX_DECODE_VDM;
   size_t start = (size_t)data[1] | (size_t)data[2] << 8;
   const uint8_t *mem_bytes = data + 3;
   size_t mem_size = size - 3;

   struct agx_decode_mem mem;
   agx_decode_mem_init(&mem);
   if (!agx_decode_mem_add(&mem, FUZZ_VA, mem_bytes, mem_size))
      return 0;

   struct agx_decode_options opts = {
      .read = agx_decode_mem_read,
      .read_ctx = &mem,
      .usc_base = FUZZ_VA,
      .max_blocks = 512,
      .max_shader_bytes = 4096,
      .max_output = 256 * 1024,
      .raw = (data[0] & 2) != 0,
   };
   struct agx_decode_result res;
   agx_decode_stream(null_fp, &opts, kind, FUZZ_VA + start % mem_size, &res);
   if (data[0] & 4)
      agx_decode_pipeline(null_fp, &opts, (uint32_t)(start % mem_size), &res);
   agx_decode_mem_finish(&mem);
   return 0;
}

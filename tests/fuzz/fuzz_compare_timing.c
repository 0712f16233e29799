/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer: the timing JSON reader, then a full comparison of the file
 * with itself (which must never be judged slower or faster).
 */
#include <stdlib.h>

#include "compare/compare.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
   char err[CMP_ERR_LEN];
   struct cmp_timing_file f;
   if (!cmp_timing_parse((const char *)data, size, &f, err))
      return 0;
   struct cmp_timing_opts o;
   cmp_timing_opts_default(&o);
   o.bootstrap = 100;
   struct cmp_timing_result r;
   if (f.nruns * f.nframes <= 4096 &&
       cmp_timing_compare(&f, &f, &o, &r, err)) {
      if (r.total.verdict == CMP_SLOWER || r.total.verdict == CMP_FASTER)
         abort();
      free(cmp_report_timing_json(&r, &o, "a", "b"));
      cmp_timing_result_free(&r);
   }
   cmp_timing_free(&f);
   return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * Cold paths of the generated format code: error messages and the shared
 * pieces of print/validate. Kept out of line so the inline pack/unpack in
 * the generated header stay small.
 */
#include <stdarg.h>
#include <stdlib.h>

#include "cmdstream/agx_pack_support.h"

static bool
fail(struct agx_pack_error *err, const char *st, const char *field,
     const char *fmt, ...)
{
   if (err) {
      char what[120];
      va_list ap;
      va_start(ap, fmt);
      vsnprintf(what, sizeof(what), fmt, ap);
      va_end(ap);
      snprintf(err->msg, sizeof(err->msg), "%s.%s: %s", st, field, what);
   }
   return false;
}

bool
agx_pack_err_range(struct agx_pack_error *err, const char *st,
                   const char *field, uint64_t value, unsigned width,
                   const char *mod)
{
   return fail(err, st, field, "value %" PRIu64 " (0x%" PRIx64
               ") does not fit in %u bits%s%s", value, value, width,
               *mod ? " with " : "", mod);
}

bool
agx_pack_err_srange(struct agx_pack_error *err, const char *st,
                    const char *field, int64_t value, unsigned width)
{
   return fail(err, st, field, "value %" PRId64
               " does not fit in a signed %u-bit field", value, width);
}

bool
agx_pack_err_below(struct agx_pack_error *err, const char *st,
                   const char *field, uint64_t value, unsigned min)
{
   return fail(err, st, field, "value %" PRIu64
               " is below the minimum %u of minus(%u)", value, min, min);
}

bool
agx_pack_err_align(struct agx_pack_error *err, const char *st,
                   const char *field, uint64_t value, unsigned shift)
{
   return fail(err, st, field, "value 0x%" PRIx64
               " is not a multiple of %u: shr(%u) would lose bits", value,
               1u << shift, shift);
}

bool
agx_pack_err_pow2(struct agx_pack_error *err, const char *st,
                  const char *field, uint64_t value)
{
   return fail(err, st, field, "value %" PRIu64
               " is not a power of two, log2 would lose bits", value);
}

void
agx_pack_abort(const struct agx_pack_error *err)
{
   fprintf(stderr, "agx_pack: %s\n", err->msg);
   fflush(stderr);
   abort();
}

void
agx_print_enum(FILE *fp, int indent, const char *label, const char *name,
               uint32_t value)
{
   if (name)
      fprintf(fp, "%*s%s: %s\n", indent, "", label, name);
   else
      fprintf(fp, "%*s%s: unknown 0x%" PRIx32 "\n", indent, "", label, value);
}

bool
agx_report_unknown_bits(FILE *fp, int indent, const char *st,
                        const uint32_t *words, const uint32_t *unknown,
                        unsigned nwords)
{
   bool ok = true;
   for (unsigned i = 0; i < nwords; i++) {
      uint32_t stray = words[i] & unknown[i];
      if (stray) {
         fprintf(fp, "%*sXXX: %s: unknown bits 0x%08" PRIx32
                 " set in word %u\n", indent, "", st, stray, i);
         ok = false;
      }
   }
   return ok;
}

bool
agx_report_const(FILE *fp, int indent, const char *st, const char *field,
                 uint64_t got, uint64_t want)
{
   if (got == want)
      return true;
   fprintf(fp, "%*sXXX: %s: %s is 0x%" PRIx64 ", expected 0x%" PRIx64 "\n",
           indent, "", st, field, got, want);
   return false;
}

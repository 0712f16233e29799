/* SPDX-License-Identifier: MIT */
/*
 * Every generated structure, checked against vectors the generator computes
 * with its own Python model of the encoding (build/gen/cmdstream/
 * agx_*pack_vectors.h):
 *
 *  - pack of non-default values in every field (per view) gives the golden
 *    bytes; unpack gives the values back; pack(unpack(bytes)) == bytes;
 *  - every field that can overflow makes pack_checked fail with a message
 *    naming "<Struct>.<Field>", without touching the destination;
 *  - set bits no field covers, or a wrong constant (tag, block type), make
 *    unpack return false and validate say so.
 *
 * The generator's own corner cases (cmdstream/agx_selftest.xml: signed and
 * 64-bit fields across words, modifiers at word edges, views) run the same
 * way. One cmocka case per vector, so a failure names the structure.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cmdstream/agx_fw_pack_vectors.h"
#include "cmdstream/agx_pack_vectors.h"
#include "cmdstream/agx_selftest_pack_vectors.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static void
print_bytes(const char *label, const uint8_t *b, unsigned n)
{
   print_message("%s:", label);
   for (unsigned i = 0; i < n; i++)
      print_message(" %02x", b[i]);
   print_message("\n");
}

static void
test_vector(void **state)
{
   const struct agx_pack_vector *v = *state;
   uint8_t packed[4096];
   struct agx_pack_error err = { { 0 } };

   /* One spare byte past the structure checks that pack stays inside it. */
   assert_true(v->length < sizeof(packed));
   memset(packed, 0xcd, sizeof(packed));
   if (!v->pack(packed, &err))
      fail_msg("%s: pack failed: %s", v->name, err.msg);
   if (memcmp(packed, v->expected, v->length)) {
      print_bytes("got     ", packed, v->length);
      print_bytes("expected", v->expected, v->length);
      fail_msg("%s: packed bytes differ from the generator's", v->name);
   }
   /* Bytes past the structure are not touched. */
   assert_int_equal(packed[v->length], 0xcd);

   const char *bad = v->roundtrip(v->expected);
   if (bad)
      fail_msg("%s: field '%s' does not survive unpack", v->name, bad);
}

static void
test_overflow(void **state)
{
   const struct agx_pack_overflow_vector *v = *state;
   struct agx_pack_error err = { { 0 } };
   char want[160];

   if (v->pack(&err))
      fail_msg("%s.%s: out-of-range value was packed", v->struct_name,
               v->field_name);
   snprintf(want, sizeof(want), "%s.%s: ", v->struct_name, v->field_name);
   if (strncmp(err.msg, want, strlen(want)))
      fail_msg("message '%s' does not start with '%s'", err.msg, want);

   const char *reason = !strcmp(v->reason, "range")   ? "does not fit"
                        : !strcmp(v->reason, "below") ? "below the minimum"
                        : !strcmp(v->reason, "align") ? "would lose bits"
                                                      : "not a power of two";
   if (!strstr(err.msg, reason))
      fail_msg("message '%s' lacks '%s'", err.msg, reason);
}

static void
test_unknown(void **state)
{
   const struct agx_pack_unknown_vector *v = *state;
   char *text = NULL;
   size_t len = 0;

   assert_false(v->unpack(v->bytes));

   FILE *fp = open_memstream(&text, &len);
   assert_non_null(fp);
   bool ok = v->validate(fp, v->bytes, 2);
   fclose(fp);
   assert_false(ok);
   if (!strstr(text, v->expect) || !strstr(text, "XXX: "))
      fail_msg("%s: validate printed '%s', expected mention of '%s'", v->name,
               text, v->expect);
   free(text);
}

struct table {
   const struct agx_pack_vector *vec;
   size_t nvec;
   const struct agx_pack_overflow_vector *ovf;
   size_t novf;
   const struct agx_pack_unknown_vector *unk;
   size_t nunk;
};

int
main(void)
{
   const struct table tables[] = {
      { agx_pack_vectors, ARRAY_LEN(agx_pack_vectors),
        agx_pack_overflow_vectors, ARRAY_LEN(agx_pack_overflow_vectors),
        agx_pack_unknown_vectors, ARRAY_LEN(agx_pack_unknown_vectors) },
      { agx_fw_pack_vectors, ARRAY_LEN(agx_fw_pack_vectors),
        agx_fw_pack_overflow_vectors, ARRAY_LEN(agx_fw_pack_overflow_vectors),
        agx_fw_pack_unknown_vectors, ARRAY_LEN(agx_fw_pack_unknown_vectors) },
      { agx_selftest_pack_vectors, ARRAY_LEN(agx_selftest_pack_vectors),
        agx_selftest_pack_overflow_vectors,
        ARRAY_LEN(agx_selftest_pack_overflow_vectors),
        agx_selftest_pack_unknown_vectors,
        ARRAY_LEN(agx_selftest_pack_unknown_vectors) },
   };
   size_t total = 0;
   for (size_t t = 0; t < ARRAY_LEN(tables); t++)
      total += tables[t].nvec + tables[t].novf + tables[t].nunk;

   struct CMUnitTest *tests = calloc(total, sizeof(*tests));
   char **names = calloc(total, sizeof(*names));
   if (!tests || !names)
      return 1;

   size_t n = 0;
   for (size_t t = 0; t < ARRAY_LEN(tables); t++) {
      const struct table *tb = &tables[t];
      for (size_t i = 0; i < tb->nvec; i++, n++) {
         if (asprintf(&names[n], "pack %s", tb->vec[i].name) < 0)
            return 1;
         tests[n] = (struct CMUnitTest){ names[n], test_vector, NULL, NULL,
                                         (void *)&tb->vec[i] };
      }
      for (size_t i = 0; i < tb->novf; i++, n++) {
         if (asprintf(&names[n], "overflow %s.%s", tb->ovf[i].struct_name,
                      tb->ovf[i].field_name) < 0)
            return 1;
         tests[n] = (struct CMUnitTest){ names[n], test_overflow, NULL, NULL,
                                         (void *)&tb->ovf[i] };
      }
      for (size_t i = 0; i < tb->nunk; i++, n++) {
         if (asprintf(&names[n], "unknown %s (%s)", tb->unk[i].name,
                      tb->unk[i].expect) < 0)
            return 1;
         tests[n] = (struct CMUnitTest){ names[n], test_unknown, NULL, NULL,
                                         (void *)&tb->unk[i] };
      }
   }

   int rc = _cmocka_run_group_tests("pack_vectors", tests, n, NULL, NULL);
   for (size_t i = 0; i < n; i++)
      free(names[i]);
   free(names);
   free(tests);
   return rc;
}

/* SPDX-License-Identifier: MIT */
/*
 * compare profile: the tessera-profile/1 reader's errors, the pairing of
 * draws by order and shader (added, removed, reordered, fs 0 as a
 * wildcard), verdicts and the top lists, on small synthetic profiles.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare/compare.h"

/* A profile of one frame (id `frame`) and one render pass whose draws are
 * "vs:fs:cycles" triples separated by spaces; every draw has fragments =
 * cycles / 2 as its second counter. */
static char *
doc(int frame, const char *draws)
{
   static char buf[8192];
   size_t o = 0;
   uint64_t tot = 0, tf = 0;
   char ent[4096] = "";
   size_t eo = 0;
   char tmp[256];
   snprintf(tmp, sizeof(tmp), "%s", draws);
   int i = 0;
   for (char *s = strtok(tmp, " "); s; s = strtok(NULL, " "), i++) {
      unsigned vs, fs, cyc;
      assert_int_equal(sscanf(s, "%x:%x:%u", &vs, &fs, &cyc), 3);
      eo += (size_t)snprintf(ent + eo, sizeof(ent) - eo,
                             "%s{\"index\": %d, \"vdm\": \"0x1\", \"vs\": \"0x%x\", \"fs\": \"0x%x\", "
                             "\"counters\": {\"cycles\": %u, \"fragments\": %u}}",
                             i ? ", " : "", i, vs, fs, cyc, cyc / 2);
      tot += cyc;
      tf += cyc / 2;
   }
   o += (size_t)snprintf(buf + o, sizeof(buf) - o,
                         "{\"schema\": \"tessera-profile/1\", \"meta\": {\"counters\": "
                         "[\"cycles\", \"fragments\"]}, \"frames\": [{\"frame\": %d, "
                         "\"counters\": {\"cycles\": %llu, \"fragments\": %llu}, \"passes\": "
                         "[{\"index\": 0, \"kind\": \"render\", \"width\": 64, \"height\": 64, "
                         "\"counters\": {\"cycles\": %llu, \"fragments\": %llu}, "
                         "\"overhead\": {\"vs\": \"0x0\", \"fs\": \"0x0\", \"counters\": "
                         "{\"cycles\": 0, \"fragments\": 0}}, \"draws\": [%s]}]}]}",
                         frame, (unsigned long long)tot, (unsigned long long)tf,
                         (unsigned long long)tot, (unsigned long long)tf, ent);
   return buf;
}

static void
parse_ok(const char *text, struct cmp_prof_file *f)
{
   char err[CMP_ERR_LEN] = "";
   bool ok = cmp_prof_parse(text, strlen(text), f, err);
   if (!ok)
      fail_msg("parse: %s", err);
}

static void
expect_parse_error(const char *text, const char *want)
{
   struct cmp_prof_file f;
   char err[CMP_ERR_LEN] = "";
   assert_false(cmp_prof_parse(text, strlen(text), &f, err));
   if (!strstr(err, want))
      fail_msg("error '%s' lacks '%s'", err, want);
}

static void
test_parse_errors(void **state)
{
   (void)state;
   expect_parse_error("{", "malformed JSON");
   expect_parse_error("[]", "not a JSON object");
   expect_parse_error("{\"schema\": \"tessera-timing/1\"}", "tessera-profile/1");
   expect_parse_error("{\"schema\": \"tessera-profile/1\", \"meta\": {}}", "meta.counters");
   expect_parse_error("{\"schema\": \"tessera-profile/1\", \"meta\": {\"counters\": [\"x\"]}, "
                      "\"frames\": []}", "start with \"cycles\"");
   char *d = doc(1, "a:b:10");
   char *bad = strdup(d);
   char *p = strstr(bad, "\"fragments\": 5}}");
   assert_non_null(p);
   memcpy(p, "\"fragmentz\"", 11);   /* a draw lacking a counter */
   expect_parse_error(bad, "draw 0: counter \"fragments\"");
   strcpy(bad, d);
   p = strstr(bad, "\"fs\": \"0xb\"");
   memcpy(p, "\"fs\": \"xxb\"", 11);
   expect_parse_error(bad, "\"fs\" is not a hex address");
   free(bad);
   struct cmp_prof_file f;
   char err[CMP_ERR_LEN];
   assert_false(cmp_prof_load("/nonexistent/p.json", &f, err));
   assert_non_null(strstr(err, "cannot open"));
}

/* Pairs as "A-B" indices ("-" for none), space separated. */
static void
pairs(const struct cmp_prof_result *r, char *out, size_t len)
{
   size_t o = 0;
   const struct cmp_prof_dpass *dp = &r->frames[0].passes[0];
   for (size_t j = 0; j < dp->n; j++) {
      char a[8] = "-", b[8] = "-";
      if (dp->d[j].ea)
         snprintf(a, sizeof(a), "%d", (int)dp->d[j].ea->index);
      if (dp->d[j].eb)
         snprintf(b, sizeof(b), "%d", (int)dp->d[j].eb->index);
      o += (size_t)snprintf(out + o, len - o, "%s%s-%s", j ? " " : "", a, b);
   }
}

static void
expect_pairs(const char *da, const char *db, const char *want, size_t added, size_t removed)
{
   struct cmp_prof_file a, b;
   parse_ok(doc(3, da), &a);
   parse_ok(doc(3, db), &b);
   struct cmp_prof_result r;
   char err[CMP_ERR_LEN];
   assert_true(cmp_prof_compare(&a, &b, 0.02, &r, err));
   char got[512];
   pairs(&r, got, sizeof(got));
   if (strcmp(got, want))
      fail_msg("%s vs %s: pairs '%s', want '%s'", da, db, got, want);
   assert_int_equal(r.added, added);
   assert_int_equal(r.removed, removed);
   cmp_prof_result_free(&r);
   cmp_prof_free(&a);
   cmp_prof_free(&b);
}

static void
test_matching(void **state)
{
   (void)state;
   /* identical */
   expect_pairs("1:a:10 1:b:20 2:a:30", "1:a:10 1:b:20 2:a:30", "0-0 1-1 2-2", 0, 0);
   /* a draw inserted in B, one removed from B */
   expect_pairs("1:a:10 2:b:20 3:c:30", "1:a:10 9:9:5 2:b:20 3:c:30", "0-0 --1 1-2 2-3", 1, 0);
   expect_pairs("1:a:10 2:b:20 3:c:30", "1:a:10 3:c:30", "0-0 1-- 2-1", 0, 1);
   /* same shaders, different times: still paired by order */
   expect_pairs("1:a:10 1:a:20", "1:a:99 1:a:1", "0-0 1-1", 0, 0);
   /* fs 0 (nothing reached a tile) pairs with any fs of the same vs */
   expect_pairs("1:a:10 2:b:20", "1:0:1 2:b:20", "0-0 1-1", 0, 0);
   /* a different vs is a different draw */
   expect_pairs("1:a:10", "2:a:10", "0-- --0", 1, 1);
   /* empty passes */
   expect_pairs("", "1:a:10", "--0", 1, 0);
}

static void
test_verdicts_and_top(void **state)
{
   (void)state;
   assert_int_equal(cmp_prof_judge(100, 100, 0.02), CMP_PROF_SAME);
   assert_int_equal(cmp_prof_judge(100, 101, 0.02), CMP_PROF_SMALL);
   assert_int_equal(cmp_prof_judge(100, 102, 0.02), CMP_PROF_SLOWER);
   assert_int_equal(cmp_prof_judge(100, 98, 0.02), CMP_PROF_FASTER);
   assert_int_equal(cmp_prof_judge(0, 1, 0.02), CMP_PROF_SLOWER);
   assert_int_equal(cmp_prof_judge(1, 0, 0.02), CMP_PROF_FASTER);
   assert_string_equal(cmp_prof_verdict_name(CMP_PROF_SAME), "no change");

   struct cmp_prof_file a, b;
   parse_ok(doc(3, "1:a:100 1:b:100 1:c:100 1:d:100"), &a);
   parse_ok(doc(3, "1:a:150 1:b:90 1:c:300 1:d:100"), &b);
   struct cmp_prof_result r;
   char err[CMP_ERR_LEN];
   assert_true(cmp_prof_compare(&a, &b, 0.02, &r, err));
   assert_int_equal(r.verdict, CMP_PROF_SLOWER);
   const struct cmp_prof_dpass *dp = &r.frames[0].passes[0];
   assert_int_equal(dp->d[0].verdict, CMP_PROF_SLOWER);
   assert_int_equal(dp->d[1].verdict, CMP_PROF_FASTER);
   assert_int_equal(dp->d[3].verdict, CMP_PROF_SAME);
   size_t n;
   struct cmp_prof_ref *t = cmp_prof_top(&r, 10, 1, &n);
   assert_int_equal(n, 2);
   assert_int_equal(t[0].draw, 2);
   assert_int_equal(t[0].delta, 200);
   assert_int_equal(t[1].draw, 0);
   free(t);
   t = cmp_prof_top(&r, 1, 1, &n);
   assert_int_equal(n, 1);
   free(t);
   t = cmp_prof_top(&r, 10, -1, &n);
   assert_int_equal(n, 1);
   assert_int_equal(t[0].draw, 1);
   assert_int_equal(t[0].delta, -10);
   free(t);
   /* reports: text names the verdict, JSON carries the pairs */
   char *text = NULL;
   size_t len = 0;
   FILE *fp = open_memstream(&text, &len);
   cmp_report_profile_text(fp, &r, 10, "a.json", "b.json");
   fclose(fp);
   assert_non_null(strstr(text, "verdict: slower"));
   assert_non_null(strstr(text, "draw 2 (vs 0x1 fs 0xc): 100 -> 300 cycles (+200, +200.00%): slower"));
   free(text);
   char *js = cmp_report_profile_json(&r, 10, "a.json", "b.json");
   assert_non_null(strstr(js, "\"schema\": \"tessera-compare-profile/1\""));
   free(js);
   cmp_prof_result_free(&r);
   cmp_prof_free(&b);

   /* frames must agree */
   parse_ok(doc(4, "1:a:100"), &b);
   assert_false(cmp_prof_compare(&a, &b, 0.02, &r, err));
   assert_non_null(strstr(err, "frames differ: A has 1 frame (3..3), B has 1 frame (4..4); frame 3 is in A only"));
   cmp_prof_free(&a);
   cmp_prof_free(&b);
}

int
main(void)
{
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_parse_errors),
      cmocka_unit_test(test_matching),
      cmocka_unit_test(test_verdicts_and_top),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}

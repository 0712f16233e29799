/* SPDX-License-Identifier: MIT */
/*
 * compare: robust statistics on hand-checked values, the rank test against
 * its formula, and verdicts on synthetic run-time distributions (noise must
 * never be called a regression), plus the timing JSON reader.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare/compare.h"

/* Deterministic normal samples (Box-Muller on an LCG). */
static uint64_t rng_state;
static double
uniform(void)
{
   rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
   return ((rng_state >> 11) + 0.5) / 9007199254740992.0;
}

static void
normal_samples(double *x, size_t n, double mean, double rel_sd, uint64_t seed)
{
   /* Scramble the seed so that nearby seeds give unrelated streams. */
   rng_state = seed * 0x9e3779b97f4a7c15ull ^ 0xd1b54a32d192ed03ull;
   uniform();
   for (size_t i = 0; i < n; i++) {
      double u = uniform(), v = uniform();
      x[i] = mean * (1 + rel_sd * sqrt(-2 * log(u)) * cos(2 * M_PI * v));
   }
}

static void
test_quantiles(void **state)
{
   (void)state;
   double x[] = {7, 1, 3, 9, 5};
   assert_true(cmp_median(x, 5) == 5);
   double y[] = {4, 1, 3, 2};
   assert_true(cmp_median(y, 4) == 2.5);
   /* type 7: q1 of 1..5 is 2, q3 is 4 */
   assert_true(cmp_iqr(x, 5) == 4);
   /* |x - 5| = 2 4 2 4 0 -> median 2 */
   assert_true(cmp_mad(x, 5) == 2);
   double s[] = {10, 20, 30, 40};
   assert_true(fabs(cmp_quantile_sorted(s, 4, 0.25) - 17.5) < 1e-12);
   assert_true(cmp_quantile_sorted(s, 4, 1.0) == 40);
}

static void
test_mann_whitney(void **state)
{
   (void)state;
   struct cmp_mwu m;
   double a[] = {1, 2, 3, 4, 5}, b[] = {6, 7, 8, 9, 10};
   cmp_mann_whitney(a, 5, b, 5, &m);
   assert_true(m.u == 0);
   /* mean 12.5, var 25 * 11 / 12, continuity 0.5 */
   double z = (12.5 - 0.5) / sqrt(25.0 * 11 / 12);
   assert_true(fabs(m.z + z) < 1e-12);
   assert_true(fabs(m.p - erfc(z / sqrt(2))) < 1e-12);

   /* Ties: a = {1,1,2}, b = {1,2,2}; pooled ranks 2,2,2,5,5,5. */
   double c[] = {1, 1, 2}, d[] = {1, 2, 2};
   cmp_mann_whitney(c, 3, d, 3, &m);
   double ra = 2 + 2 + 5;
   assert_true(m.u == ra - 6);
   double var = 9.0 / 12 * (7 - (24.0 + 24.0) / 30);
   assert_true(fabs(fabs(m.z) - (fabs(m.u - 4.5) - 0.5) / sqrt(var)) < 1e-12);

   /* All equal: no evidence at all. */
   double e[] = {3, 3, 3};
   cmp_mann_whitney(e, 3, e, 3, &m);
   assert_true(m.p == 1);
}

static void
test_bootstrap(void **state)
{
   (void)state;
   double a[20], b[20], lo, hi, lo2, hi2;
   normal_samples(a, 20, 1000, 0.01, 1);
   normal_samples(b, 20, 1100, 0.01, 2);
   assert_true(cmp_bootstrap_ratio(a, 20, b, 20, 2000, 42, 0.95, &lo, &hi));
   assert_true(lo < hi);
   assert_true(lo > 1.08 && hi < 1.12);
   /* Same seed, same interval, bit for bit. */
   assert_true(cmp_bootstrap_ratio(a, 20, b, 20, 2000, 42, 0.95, &lo2, &hi2));
   assert_true(lo == lo2 && hi == hi2);
   double z[3] = {0, 0, 0};
   assert_false(cmp_bootstrap_ratio(z, 3, b, 3, 100, 1, 0.95, &lo, &hi));
}

static enum cmp_verdict
judge(double shift, double noise, size_t n, uint64_t seed)
{
   double a[64], b[64];
   normal_samples(a, n, 5e6, noise, seed);
   normal_samples(b, n, 5e6 * shift, noise, seed + 1000);
   struct cmp_timing_opts o;
   cmp_timing_opts_default(&o);
   struct cmp_timing_stat s = {.id = 0};
   cmp_timing_judge(a, n, b, n, &o, &s);
   return s.verdict;
}

static void
test_verdicts(void **state)
{
   (void)state;
   /* Clear cases must hold for every seed: a verdict that held only for a
    * lucky seed would not be a property of the method. */
   for (uint64_t seed = 1; seed <= 20; seed++) {
      /* same distribution, 1 % noise */
      assert_int_equal(judge(1.00, 0.01, 15, seed), CMP_NO_CHANGE);
      /* 10 % slower, 1 % noise */
      assert_int_equal(judge(1.10, 0.01, 15, seed), CMP_SLOWER);
      /* 10 % faster */
      assert_int_equal(judge(0.90, 0.01, 15, seed), CMP_FASTER);
      /* 1 % slower, measured very precisely: significant, but below the
       * 2 % that matters */
      assert_int_equal(judge(1.01, 0.001, 30, seed), CMP_NO_CHANGE);
   }
   /* High noise: a rank test at alpha = 1 % is fooled by chance in about
    * 1 % of comparisons, never more. Count over many independent draws:
    * pure 20 % noise, and a 3 % shift hidden in 20 % noise. */
   unsigned noise_calls = 0, hidden_calls = 0;
   for (uint64_t seed = 1; seed <= 300; seed++) {
      noise_calls += judge(1.00, 0.20, 10, seed * 7919) != CMP_NO_CHANGE;
      hidden_calls += judge(1.03, 0.20, 10, seed * 7919) == CMP_SLOWER;
   }
   if (noise_calls > 6 || hidden_calls > 9)
      fail_msg("noise judged as a change %u/300 times, a hidden 3 %% shift "
               "%u/300 times", noise_calls, hidden_calls);
   /* Too few runs to say anything. */
   assert_int_equal(judge(2.0, 0.01, 2, 1), CMP_TOO_FEW);
}

static const char doc_ok[] =
   "{\"schema\":\"tessera-timing/1\",\"meta\":{\"trace\":\"t\"},\"runs\":["
   " {\"frames\":[{\"frame\":0,\"gpu_ns\":100,\"cpu_ns\":10},"
   "              {\"frame\":1,\"submissions\":[{\"gpu_ns\":50,\"cpu_ns\":5},"
   "                                           {\"gpu_ns\":70,\"cpu_ns\":6}]}]},"
   " {\"frames\":[{\"frame\":1,\"gpu_ns\":130,\"cpu_ns\":12},"
   "              {\"frame\":0,\"gpu_ns\":110,\"cpu_ns\":11}]},"
   " {\"frames\":[{\"frame\":0,\"gpu_ns\":90,\"cpu_ns\":9}]}]}";

static void
test_parse(void **state)
{
   (void)state;
   char err[CMP_ERR_LEN];
   struct cmp_timing_file f;
   assert_true(cmp_timing_parse(doc_ok, strlen(doc_ok), &f, err));
   assert_int_equal(f.nruns, 3);
   assert_int_equal(f.nframes, 2);
   assert_int_equal(f.frames[0].id, 0);
   assert_true(f.frames[0].gpu[2] == 90);
   /* frame 1 of run 0 is the sum of its submissions */
   assert_true(f.frames[1].gpu[0] == 120);
   assert_true(f.frames[1].cpu[0] == 11);
   assert_true(isnan(f.frames[1].gpu[2]));
   assert_true(f.run_gpu[0] == 220);
   assert_true(f.run_gpu[1] == 240);
   assert_true(isnan(f.run_gpu[2])); /* incomplete run: no total */
   assert_string_equal(f.meta_json, "{\"trace\":\"t\"}");
   cmp_timing_free(&f);

   static const struct {
      const char *doc, *msg;
   } bad[] = {
      {"{", "invalid JSON at line 1"},
      {"[]", "top level must be a JSON object"},
      {"{\"schema\":\"x\",\"runs\":[]}", "\"schema\" must be"},
      {"{\"schema\":\"tessera-timing/1\",\"runs\":[]}", "non-empty array"},
      {"{\"schema\":\"tessera-timing/1\",\"runs\":[{}]}",
       "run 0: needs a \"frames\" array"},
      {"{\"schema\":\"tessera-timing/1\",\"runs\":[{\"frames\":[{}]}]}",
       "needs \"frame\""},
      {"{\"schema\":\"tessera-timing/1\",\"runs\":[{\"frames\":"
       "[{\"frame\":0,\"gpu_ns\":-1}]}]}", "must be a non-negative number"},
      {"{\"schema\":\"tessera-timing/1\",\"runs\":[{\"frames\":"
       "[{\"frame\":0,\"gpu_ns\":1},{\"frame\":0,\"gpu_ns\":2}]}]}",
       "listed twice"},
      {"{\"schema\":\"tessera-timing/1\",\"runs\":[{\"frames\":"
       "[{\"frame\":0,\"submissions\":3}]}]}", "must be an array"},
   };
   for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
      assert_false(cmp_timing_parse(bad[i].doc, strlen(bad[i].doc), &f, err));
      if (!strstr(err, bad[i].msg))
         fail_msg("case %zu: '%s' lacks '%s'", i, err, bad[i].msg);
   }
   assert_false(cmp_timing_load("/nonexistent/t.json", &f, err));
   assert_non_null(strstr(err, "cannot open"));
}

static char *
data_path(const char *name)
{
   static char buf[2][512];
   static int k;
   const char *top = getenv("TOP");
   char *p = buf[k++ % 2];
   snprintf(p, 512, "%s/tests/data/compare/%s", top ? top : ".", name);
   return p;
}

static void
test_compare_files(void **state)
{
   (void)state;
   char err[CMP_ERR_LEN];
   struct cmp_timing_file ref, slow, same;
   if (!cmp_timing_load(data_path("timing_ref.json"), &ref, err))
      fail_msg("%s (run from the repository root or set TOP)", err);
   assert_true(cmp_timing_load(data_path("timing_slower.json"), &slow, err));
   assert_true(cmp_timing_load(data_path("timing_noise.json"), &same, err));
   assert_int_equal(ref.nruns, 15);
   assert_int_equal(ref.nframes, 12);

   struct cmp_timing_opts o;
   cmp_timing_opts_default(&o);
   struct cmp_timing_result r;
   assert_true(cmp_timing_compare(&ref, &slow, &o, &r, err));
   assert_int_equal(r.total.verdict, CMP_SLOWER);
   assert_true(r.total.ratio > 1.08 && r.total.ratio < 1.12);
   assert_true(r.total.ci_lo > 1.0);
   assert_int_equal(r.nframes, 12);
   for (size_t i = 0; i < r.nframes; i++)
      assert_int_equal(r.frames[i].verdict, CMP_SLOWER);

   char *js = cmp_report_timing_json(&r, &o, "a", "b");
   json_t *root = json_loads(js, 0, NULL);
   assert_non_null(root);
   assert_string_equal(json_string_value(json_object_get(root, "verdict")),
                       "slower");
   assert_int_equal(json_integer_value(json_object_get(root, "status")), 1);
   assert_int_equal(json_array_size(json_object_get(root, "frames")), 12);
   json_decref(root);
   free(js);
   cmp_timing_result_free(&r);

   /* Same distribution, other seed: no change, total or per frame. */
   assert_true(cmp_timing_compare(&ref, &same, &o, &r, err));
   assert_int_equal(r.total.verdict, CMP_NO_CHANGE);
   cmp_timing_result_free(&r);

   /* CPU time is 0.15 x GPU + constant in the samples: also slower. */
   o.use_cpu = true;
   assert_true(cmp_timing_compare(&ref, &slow, &o, &r, err));
   assert_int_equal(r.total.verdict, CMP_SLOWER);
   cmp_timing_result_free(&r);

   cmp_timing_free(&ref);
   cmp_timing_free(&slow);
   cmp_timing_free(&same);
}

int
main(void)
{
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_quantiles),
      cmocka_unit_test(test_mann_whitney),
      cmocka_unit_test(test_bootstrap),
      cmocka_unit_test(test_verdicts),
      cmocka_unit_test(test_parse),
      cmocka_unit_test(test_compare_files),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: MIT */
/*
 * Text and JSON reports. The JSON is built with jansson so that names from
 * the file system are escaped properly; numbers that JSON cannot hold
 * (an infinite PSNR, an undefined interval) are written as null.
 */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare/compare.h"

static const char *
entry_status(const struct cmp_image_entry *e)
{
   if (e->error)
      return "error";
   return e->res.pass && !e->res.size_mismatch ? "pass" : "fail";
}

void
cmp_report_images_text(FILE *fp, const struct cmp_image_entry *e, size_t n,
                       const struct cmp_image_thresholds *t)
{
   size_t npass = 0, nfail = 0, nerr = 0;
   for (size_t i = 0; i < n; i++) {
      const struct cmp_image_result *r = &e[i].res;
      const char *name = *e[i].name ? e[i].name : e[i].path_a;
      if (e[i].error) {
         nerr++;
         fprintf(fp, "ERROR %s: %s\n", name, e[i].error_msg);
         continue;
      }
      if (r->size_mismatch) {
         nfail++;
         fprintf(fp, "FAIL  %s: %s\n", name, r->reason);
         continue;
      }
      r->pass ? npass++ : nfail++;
      fprintf(fp, "%s  %s  %ux%u  max diff %u/%u  over tolerance %llu px "
                  "(%.4f%%)",
              r->pass ? "PASS" : "FAIL", name, e[i].wa, e[i].ha, r->max_diff,
              r->depth == 16 ? 65535 : 255,
              (unsigned long long)r->diff_pixels, 100 * r->diff_fraction);
      if (r->has_bbox)
         fprintf(fp, " in (%u,%u)-(%u,%u)", r->bbox_x0, r->bbox_y0,
                 r->bbox_x1, r->bbox_y1);
      if (isinf(r->psnr))
         fprintf(fp, "  PSNR inf");
      else
         fprintf(fp, "  PSNR %.2f dB", r->psnr);
      fprintf(fp, "  SSIM %.5f\n", r->ssim);
      if (!r->pass)
         fprintf(fp, "      %s\n", r->reason);
   }
   fprintf(fp, "%zu image%s: %zu passed, %zu failed, %zu errors "
               "(tolerance %u)\n",
           n, n == 1 ? "" : "s", npass, nfail, nerr, t->tolerance);
}

static json_t *
num_or_null(double v)
{
   return isfinite(v) ? json_real(v) : json_null();
}

static json_t *
thresholds_json(const struct cmp_image_thresholds *t)
{
   json_t *o = json_object();
   json_object_set_new(o, "tolerance", json_integer(t->tolerance));
   json_object_set_new(o, "max_diff_pixels",
                       t->max_diff_pixels >= 0
                          ? json_integer(t->max_diff_pixels) : json_null());
   json_object_set_new(o, "max_diff_fraction",
                       t->max_diff_fraction >= 0
                          ? json_real(t->max_diff_fraction) : json_null());
   json_object_set_new(o, "min_psnr",
                       t->min_psnr >= 0 ? json_real(t->min_psnr) : json_null());
   json_object_set_new(o, "min_ssim",
                       t->min_ssim >= -1 ? json_real(t->min_ssim)
                                         : json_null());
   return o;
}

static char *
dump(json_t *root)
{
   char *s = json_dumps(root, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
   json_decref(root);
   return s;
}

char *
cmp_report_images_json(const struct cmp_image_entry *e, size_t n,
                       const struct cmp_image_thresholds *t)
{
   json_t *root = json_object(), *arr = json_array();
   json_object_set_new(root, "kind", json_string("images"));
   json_object_set_new(root, "thresholds", thresholds_json(t));
   size_t counts[3] = {0};
   for (size_t i = 0; i < n; i++) {
      const struct cmp_image_result *r = &e[i].res;
      json_t *o = json_object();
      const char *st = entry_status(&e[i]);
      counts[st[0] == 'p' ? 0 : st[0] == 'f' ? 1 : 2]++;
      json_object_set_new(o, "name", json_string(e[i].name));
      json_object_set_new(o, "reference", e[i].path_a
                                             ? json_string(e[i].path_a)
                                             : json_null());
      json_object_set_new(o, "actual", e[i].path_b ? json_string(e[i].path_b)
                                                   : json_null());
      json_object_set_new(o, "status", json_string(st));
      if (e[i].error) {
         json_object_set_new(o, "message", json_string(e[i].error_msg));
         json_array_append_new(arr, o);
         continue;
      }
      json_object_set_new(o, "reference_size",
                          json_pack("[I,I]", (json_int_t)e[i].wa,
                                    (json_int_t)e[i].ha));
      json_object_set_new(o, "actual_size",
                          json_pack("[I,I]", (json_int_t)e[i].wb,
                                    (json_int_t)e[i].hb));
      if (r->size_mismatch) {
         json_object_set_new(o, "message", json_string(r->reason));
         json_array_append_new(arr, o);
         continue;
      }
      json_object_set_new(o, "bit_depth", json_integer(r->depth));
      json_object_set_new(o, "channels", json_integer(r->channels));
      json_object_set_new(o, "max_diff", json_integer(r->max_diff));
      json_object_set_new(o, "diff_pixels", json_integer(
                                               (json_int_t)r->diff_pixels));
      json_object_set_new(o, "diff_fraction", json_real(r->diff_fraction));
      json_object_set_new(o, "bbox", r->has_bbox
         ? json_pack("[I,I,I,I]", (json_int_t)r->bbox_x0,
                     (json_int_t)r->bbox_y0, (json_int_t)r->bbox_x1,
                     (json_int_t)r->bbox_y1)
         : json_null());
      json_object_set_new(o, "mse", json_real(r->mse));
      json_object_set_new(o, "psnr", num_or_null(r->psnr));
      json_object_set_new(o, "ssim", json_real(r->ssim));
      if (!r->pass)
         json_object_set_new(o, "message", json_string(r->reason));
      json_array_append_new(arr, o);
   }
   json_object_set_new(root, "images", arr);
   json_object_set_new(root, "summary",
                       json_pack("{s:I,s:I,s:I,s:I}", "images", (json_int_t)n,
                                 "passed", (json_int_t)counts[0], "failed",
                                 (json_int_t)counts[1], "errors",
                                 (json_int_t)counts[2]));
   json_object_set_new(root, "status",
                       json_integer(cmp_images_status(e, n)));
   return dump(root);
}

/* Prints a duration with a unit that keeps three or four digits. */
static void
fmt_ns(char *buf, size_t len, double ns)
{
   if (isnan(ns))
      snprintf(buf, len, "-");
   else if (ns >= 1e9)
      snprintf(buf, len, "%.3f s", ns / 1e9);
   else if (ns >= 1e6)
      snprintf(buf, len, "%.3f ms", ns / 1e6);
   else if (ns >= 1e3)
      snprintf(buf, len, "%.3f us", ns / 1e3);
   else
      snprintf(buf, len, "%.0f ns", ns);
}

static void
stat_line(FILE *fp, const char *label, const struct cmp_timing_stat *s)
{
   char ma[32], mb[32], ia[32], ib[32];
   fmt_ns(ma, sizeof(ma), s->med_a);
   fmt_ns(mb, sizeof(mb), s->med_b);
   fmt_ns(ia, sizeof(ia), s->iqr_a);
   fmt_ns(ib, sizeof(ib), s->iqr_b);
   fprintf(fp, "%-10s %12s %12s %10s %10s  %+7.2f%%  [%+7.2f%%, %+7.2f%%]  "
               "%-8.2g  %s\n",
           label, ma, mb, ia, ib, 100 * (s->ratio - 1), 100 * (s->ci_lo - 1),
           100 * (s->ci_hi - 1), s->mwu.p, cmp_verdict_name(s->verdict));
}

void
cmp_report_timing_text(FILE *fp, const struct cmp_timing_result *r,
                       const struct cmp_timing_opts *o)
{
   fprintf(fp, "%s time: A = reference (%zu runs), B = actual (%zu runs); "
               "change = median B / median A - 1, %.0f%% bootstrap CI; "
               "Mann-Whitney p; minimum effect %.1f%%, alpha %.3g\n",
           o->use_cpu ? "CPU" : "GPU", r->total.na, r->total.nb,
           100 * o->level, 100 * o->min_effect, o->alpha);
   fprintf(fp, "%-10s %12s %12s %10s %10s  %8s  %-22s  %-8s  %s\n", "",
           "median A", "median B", "IQR A", "IQR B", "change", "interval",
           "p", "verdict");
   stat_line(fp, "total", &r->total);
   size_t slower = 0, faster = 0;
   for (size_t i = 0; i < r->nframes; i++) {
      const struct cmp_timing_stat *s = &r->frames[i];
      slower += s->verdict == CMP_SLOWER;
      faster += s->verdict == CMP_FASTER;
      /* Long traces list only the frames that changed. */
      if (r->nframes <= 20 || s->verdict == CMP_SLOWER ||
          s->verdict == CMP_FASTER) {
         char label[32];
         snprintf(label, sizeof(label), "frame %lld", (long long)s->id);
         stat_line(fp, label, s);
      }
   }
   fprintf(fp, "%zu frames compared (%zu slower, %zu faster)", r->nframes,
           slower, faster);
   if (r->only_a || r->only_b)
      fprintf(fp, "; %zu only in A, %zu only in B", r->only_a, r->only_b);
   fprintf(fp, "\nverdict: %s\n", cmp_verdict_name(r->total.verdict));
}

static json_t *
stat_json(const struct cmp_timing_stat *s)
{
   json_t *o = json_object();
   if (s->id >= 0)
      json_object_set_new(o, "frame", json_integer(s->id));
   json_object_set_new(o, "runs_a", json_integer((json_int_t)s->na));
   json_object_set_new(o, "runs_b", json_integer((json_int_t)s->nb));
   json_object_set_new(o, "median_a", num_or_null(s->med_a));
   json_object_set_new(o, "median_b", num_or_null(s->med_b));
   json_object_set_new(o, "iqr_a", num_or_null(s->iqr_a));
   json_object_set_new(o, "iqr_b", num_or_null(s->iqr_b));
   json_object_set_new(o, "mad_a", num_or_null(s->mad_a));
   json_object_set_new(o, "mad_b", num_or_null(s->mad_b));
   json_object_set_new(o, "ratio", num_or_null(s->ratio));
   json_object_set_new(o, "ci", json_pack("[o,o]", num_or_null(s->ci_lo),
                                          num_or_null(s->ci_hi)));
   json_object_set_new(o, "u", json_real(s->mwu.u));
   json_object_set_new(o, "z", json_real(s->mwu.z));
   json_object_set_new(o, "p", json_real(s->mwu.p));
   json_object_set_new(o, "verdict", json_string(cmp_verdict_name(s->verdict)));
   return o;
}

char *
cmp_report_timing_json(const struct cmp_timing_result *r,
                       const struct cmp_timing_opts *o, const char *path_a,
                       const char *path_b)
{
   json_t *root = json_object(), *frames = json_array();
   json_object_set_new(root, "kind", json_string("timing"));
   json_object_set_new(root, "reference", json_string(path_a));
   json_object_set_new(root, "actual", json_string(path_b));
   json_object_set_new(root, "metric", json_string(o->use_cpu ? "cpu_ns"
                                                              : "gpu_ns"));
   json_object_set_new(root, "options",
                       json_pack("{s:f,s:f,s:I,s:I,s:f}", "alpha", o->alpha,
                                 "min_effect", o->min_effect, "bootstrap",
                                 (json_int_t)o->bootstrap, "seed",
                                 (json_int_t)(o->seed & 0x7fffffffffffffffull),
                                 "level", o->level));
   json_object_set_new(root, "total", stat_json(&r->total));
   for (size_t i = 0; i < r->nframes; i++)
      json_array_append_new(frames, stat_json(&r->frames[i]));
   json_object_set_new(root, "frames", frames);
   json_object_set_new(root, "frames_only_a", json_integer((json_int_t)r->only_a));
   json_object_set_new(root, "frames_only_b", json_integer((json_int_t)r->only_b));
   json_object_set_new(root, "verdict",
                       json_string(cmp_verdict_name(r->total.verdict)));
   json_object_set_new(root, "status",
                       json_integer(r->total.verdict == CMP_SLOWER ? 1 : 0));
   return dump(root);
}

/* SPDX-License-Identifier: MIT */
/*
 * tessera compare: compare a replay's images or timing with a reference.
 *
 *   tessera compare images A B     (files, or directories matched by name)
 *   tessera compare timing A.json B.json
 *
 * The library (compare/compare.h) does the work; this file parses options
 * and picks the report format.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "compare/compare.h"

static const char usage_text[] =
   "usage: tessera compare images [options] REFERENCE ACTUAL\n"
   "       tessera compare timing [options] REFERENCE.json ACTUAL.json\n"
   "\n"
   "images: compares two PNG files, or two directories whose *.png files are\n"
   "matched by relative path. Per image: size, largest channel difference,\n"
   "pixels above the tolerance (count, fraction, bounding box), PSNR, SSIM.\n"
   "  --tolerance N           channel difference ignored per pixel (default 0)\n"
   "  --max-diff-pixels N     allowed pixels above tolerance (default 0)\n"
   "  --max-diff-fraction F   allowed fraction instead (0..1; replaces the\n"
   "                          pixel-count limit)\n"
   "  --min-psnr DB           minimum PSNR\n"
   "  --min-ssim S            minimum SSIM\n"
   "  --diff-dir DIR          write NAME.diff.png diff pictures into DIR\n"
   "\n"
   "timing: compares repeated runs (schema tessera-timing/1, see\n"
   "docs/compare.md) per frame and per-run total.\n"
   "  --cpu                   compare CPU time instead of GPU time\n"
   "  --min-effect F          smallest relative change reported (default 0.02)\n"
   "  --alpha P               significance level (default 0.01)\n"
   "  --bootstrap N           bootstrap resamples (default 2000)\n"
   "  --seed N                bootstrap seed (default fixed)\n"
   "\n"
   "common:\n"
   "  --json                  print a JSON report instead of text\n"
   "  --html DIR              also write DIR/index.html\n"
   "  -h, --help              show this help\n"
   "\n"
   "Exit status: 0 within thresholds / no slowdown; 1 images differ or B is\n"
   "slower; 2 usage or input error (missing or corrupt file).\n";

static int
fail(const char *fmt, const char *arg)
{
   fprintf(stderr, "tessera compare: ");
   fprintf(stderr, fmt, arg);
   fprintf(stderr, "\n");
   return 2;
}

static bool
parse_double(const char *s, double lo, double hi, double *out)
{
   char *end;
   if (!s || !*s)
      return false;
   errno = 0;
   double v = strtod(s, &end);
   if (errno || *end || !(v >= lo && v <= hi))
      return false;
   *out = v;
   return true;
}

static bool
parse_u64(const char *s, uint64_t max, uint64_t *out)
{
   char *end;
   if (!s || !*s || *s == '-' || *s == '+')
      return false;
   errno = 0;
   unsigned long long v = strtoull(s, &end, 0);
   if (errno || *end || v > max)
      return false;
   *out = v;
   return true;
}

/* "--opt VALUE" or "--opt=VALUE"; *matched tells whether argv[*i] is opt. */
static const char *
option_value(int argc, char **argv, int *i, const char *name, bool *matched)
{
   size_t n = strlen(name);
   const char *a = argv[*i];
   *matched = false;
   if (strncmp(a, name, n))
      return NULL;
   if (a[n] == '=') {
      *matched = true;
      return a + n + 1;
   }
   if (a[n] != 0)
      return NULL;
   *matched = true;
   if (*i + 1 >= argc)
      return NULL;
   return argv[++*i];
}

struct opts {
   bool json;
   const char *html, *diff_dir;
   struct cmp_image_thresholds th;
   struct cmp_timing_opts to;
   const char *pos[2];
   int npos;
};

/* Returns -1 to go on, or an exit status. */
static int
parse(int argc, char **argv, struct opts *o)
{
   for (int i = 2; i < argc; i++) {
      const char *a = argv[i], *v;
      bool m;
      uint64_t u;
      double d;
      if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
         fputs(usage_text, stdout);
         return 0;
      } else if (!strcmp(a, "--json")) {
         o->json = true;
      } else if (!strcmp(a, "--cpu")) {
         o->to.use_cpu = true;
      } else if ((v = option_value(argc, argv, &i, "--html", &m)), m) {
         if (!v || !*v)
            return fail("%s needs a directory", "--html");
         o->html = v;
      } else if ((v = option_value(argc, argv, &i, "--diff-dir", &m)), m) {
         if (!v || !*v)
            return fail("%s needs a directory", "--diff-dir");
         o->diff_dir = v;
      } else if ((v = option_value(argc, argv, &i, "--tolerance", &m)), m) {
         if (!parse_u64(v, 65535, &u))
            return fail("bad --tolerance '%s' (0..65535)", v ? v : "");
         o->th.tolerance = (unsigned)u;
      } else if ((v = option_value(argc, argv, &i, "--max-diff-pixels", &m)),
                 m) {
         if (!parse_u64(v, INT64_MAX, &u))
            return fail("bad --max-diff-pixels '%s'", v ? v : "");
         o->th.max_diff_pixels = (int64_t)u;
      } else if ((v = option_value(argc, argv, &i, "--max-diff-fraction",
                                   &m)), m) {
         if (!parse_double(v, 0, 1, &d))
            return fail("bad --max-diff-fraction '%s' (0..1)", v ? v : "");
         o->th.max_diff_fraction = d;
         o->th.max_diff_pixels = -1;
      } else if ((v = option_value(argc, argv, &i, "--min-psnr", &m)), m) {
         if (!parse_double(v, 0, 1000, &d))
            return fail("bad --min-psnr '%s' (dB, 0..1000)", v ? v : "");
         o->th.min_psnr = d;
      } else if ((v = option_value(argc, argv, &i, "--min-ssim", &m)), m) {
         if (!parse_double(v, -1, 1, &d))
            return fail("bad --min-ssim '%s' (-1..1)", v ? v : "");
         o->th.min_ssim = d;
      } else if ((v = option_value(argc, argv, &i, "--min-effect", &m)), m) {
         if (!parse_double(v, 0, 10, &d))
            return fail("bad --min-effect '%s' (e.g. 0.02)", v ? v : "");
         o->to.min_effect = d;
      } else if ((v = option_value(argc, argv, &i, "--alpha", &m)), m) {
         if (!parse_double(v, 1e-12, 0.5, &d))
            return fail("bad --alpha '%s' (0..0.5)", v ? v : "");
         o->to.alpha = d;
      } else if ((v = option_value(argc, argv, &i, "--bootstrap", &m)), m) {
         if (!parse_u64(v, 1000000, &u) || u < 100)
            return fail("bad --bootstrap '%s' (100..1000000)", v ? v : "");
         o->to.bootstrap = (unsigned)u;
      } else if ((v = option_value(argc, argv, &i, "--seed", &m)), m) {
         if (!parse_u64(v, UINT64_MAX, &u))
            return fail("bad --seed '%s'", v ? v : "");
         o->to.seed = u;
      } else if (a[0] == '-' && a[1]) {
         return fail("unknown option '%s' (see --help)", a);
      } else {
         if (o->npos == 2)
            return fail("too many arguments at '%s'", a);
         o->pos[o->npos++] = a;
      }
   }
   if (o->npos != 2)
      return fail("%s", "needs a reference and an actual path (see --help)");
   return -1;
}

static bool
print_json(char *s)
{
   if (!s) {
      fprintf(stderr, "tessera compare: out of memory\n");
      return false;
   }
   puts(s);
   free(s);
   return true;
}

/* NAME.diff.png in dir, with '/' in relative names flattened to '_'. */
static void
write_diff(const char *dir, const struct cmp_image_entry *e)
{
   char path[4096], err[CMP_ERR_LEN];
   const char *name = *e->name ? e->name : "image";
   int n = snprintf(path, sizeof(path), "%s/", dir);
   for (const char *p = name; *p && n < (int)sizeof(path) - 16; p++)
      path[n++] = *p == '/' ? '_' : *p;
   path[n] = 0;
   size_t len = strlen(path);
   if (len > 4 && !strcmp(path + len - 4, ".png"))
      path[len - 4] = 0;
   strcat(path, ".diff.png");
   if (!cmp_write_file(path, e->png_diff, e->png_diff_size, err))
      fprintf(stderr, "tessera compare: %s\n", err);
}

static int
run_images(struct opts *o)
{
   char err[CMP_ERR_LEN];
   struct cmp_pair_list pairs;
   if (!cmp_pairs_find(o->pos[0], o->pos[1], &pairs, err))
      return fail("%s", err);
   struct cmp_image_entry *e = calloc(pairs.n, sizeof(*e));
   if (!e) {
      cmp_pairs_free(&pairs);
      return fail("%s", "out of memory");
   }
   bool want_pngs = o->html || o->diff_dir;
   char err2[CMP_ERR_LEN];
   if (o->diff_dir && !cmp_mkdir_p(o->diff_dir, err2)) {
      fprintf(stderr, "tessera compare: %s\n", err2);
      free(e);
      cmp_pairs_free(&pairs);
      return 2;
   }
   for (size_t i = 0; i < pairs.n; i++) {
      e[i].name = pairs.v[i].name;
      e[i].path_a = pairs.v[i].path_a;
      e[i].path_b = pairs.v[i].path_b;
      cmp_image_entry_run(&e[i], &o->th, want_pngs);
      if (e[i].error)
         fprintf(stderr, "tessera compare: %s\n", e[i].error_msg);
      if (o->diff_dir && e[i].png_diff)
         write_diff(o->diff_dir, &e[i]);
   }
   int status = cmp_images_status(e, pairs.n);
   if (o->json) {
      if (!print_json(cmp_report_images_json(e, pairs.n, &o->th)))
         status = 2;
   } else {
      cmp_report_images_text(stdout, e, pairs.n, &o->th);
   }
   if (o->html && !cmp_html_images(o->html, e, pairs.n, &o->th, err)) {
      fprintf(stderr, "tessera compare: %s\n", err);
      status = 2;
   }
   for (size_t i = 0; i < pairs.n; i++)
      cmp_image_entry_free(&e[i]);
   free(e);
   cmp_pairs_free(&pairs);
   return status;
}

static int
run_timing(struct opts *o)
{
   char err[CMP_ERR_LEN];
   struct cmp_timing_file fa, fb;
   struct cmp_timing_result r;
   if (!cmp_timing_load(o->pos[0], &fa, err))
      return fail("%s", err);
   if (!cmp_timing_load(o->pos[1], &fb, err)) {
      cmp_timing_free(&fa);
      return fail("%s", err);
   }
   int status = 2;
   if (!cmp_timing_compare(&fa, &fb, &o->to, &r, err)) {
      fail("%s", err);
      goto out;
   }
   status = r.total.verdict == CMP_SLOWER ? 1 : 0;
   if (o->json) {
      if (!print_json(cmp_report_timing_json(&r, &o->to, o->pos[0],
                                             o->pos[1])))
         status = 2;
   } else {
      cmp_report_timing_text(stdout, &r, &o->to);
   }
   if (o->html &&
       !cmp_html_timing(o->html, &r, &o->to, o->pos[0], o->pos[1], err)) {
      fprintf(stderr, "tessera compare: %s\n", err);
      status = 2;
   }
   cmp_timing_result_free(&r);
out:
   cmp_timing_free(&fa);
   cmp_timing_free(&fb);
   return status;
}

int
cmd_compare(int argc, char **argv)
{
   struct opts o = {0};
   cmp_image_thresholds_default(&o.th);
   cmp_timing_opts_default(&o.to);
   if (argc < 2)
      return fail("%s", "needs 'images' or 'timing' (see --help)");
   const char *mode = argv[1];
   if (!strcmp(mode, "-h") || !strcmp(mode, "--help")) {
      fputs(usage_text, stdout);
      return 0;
   }
   bool images = !strcmp(mode, "images"), timing = !strcmp(mode, "timing");
   if (!images && !timing)
      return fail("unknown mode '%s': use 'images' or 'timing'", mode);
   int st = parse(argc, argv, &o);
   if (st >= 0)
      return st;
   return images ? run_images(&o) : run_timing(&o);
}

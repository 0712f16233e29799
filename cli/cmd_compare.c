/* SPDX-License-Identifier: MIT */
/*
 * tessera compare: compare a replay's images or timing with a reference.
 *
 *   tessera compare images A B     (files, or directories matched by name)
 *   tessera compare timing A.json B.json
 *   tessera compare profile A B     (traces, or `tessera profile --json` files)
 *
 * The library (compare/compare.h) does the work; this file parses options
 * and picks the report format.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_args.h"
#include "cli/cli_override.h"
#include "cli/commands.h"
#include "compare/compare.h"
#include "replay/replay_profile.h"

static const char usage_text[] =
   "usage: tessera compare images [options] REFERENCE ACTUAL\n"
   "       tessera compare timing [options] REFERENCE.json ACTUAL.json\n"
   "       tessera compare profile [options] A B\n"
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
   "  --ignore-alpha          compare R, G, B only (alpha taken as opaque)\n"
   "  --diff-dir DIR          write NAME.diff.png diff pictures into DIR\n"
   "  --swap-calls FILE       REFERENCE is eglretrace's snapshot directory of a\n"
   "                          live run, ACTUAL the replay's --dump-images\n"
   "                          directory of its capture: pair them frame by\n"
   "                          frame (FILE: the SwapBuffers call numbers, one a\n"
   "                          line, as `apitrace dump` lists them)\n"
   "\n"
   "timing: compares repeated runs (schema tessera-timing/1, see\n"
   "docs/compare.md) per frame and per-run total.\n"
   "  --cpu                   compare CPU time instead of GPU time\n"
   "  --min-effect F          smallest relative change reported (default 0.02)\n"
   "  --alpha P               significance level (default 0.01)\n"
   "  --bootstrap N           bootstrap resamples (default 2000)\n"
   "  --seed N                bootstrap seed (default fixed)\n"
   "\n"
   "profile: per-pass and per-draw deltas of the GPU model's time and counters\n"
   "between two profiles; A and B are traces (profiled on the model here) or\n"
   "files written by `tessera profile --json` (docs/compare.md).\n"
   "  --frames A-B            profile these frames of trace inputs\n"
   "  --override-shader-b ADDR=FILE  replace a shader when profiling trace B\n"
   "  --top N                 largest changes listed each way (default 10)\n"
   "  --min-effect F          relative change called slower/faster (default 0.02)\n"
   "\n"
   "common:\n"
   "  --json                  print a JSON report instead of text\n"
   "  --html DIR              also write DIR/index.html\n"
   "  -h, --help              show this help\n"
   "\n"
   "Exit status: 0 within thresholds / no slowdown; 1 images differ or B is\n"
   "slower; 2 usage or input error (missing or corrupt file, profiles of\n"
   "different frames).\n";

static int
fail(const char *fmt, const char *arg)
{
   fprintf(stderr, "tessera compare: ");
   fprintf(stderr, fmt, arg);
   fprintf(stderr, "\n");
   return 2;
}

struct opts {
   bool json;
   const char *html, *diff_dir, *swap_calls;
   struct cmp_image_thresholds th;
   struct cmp_timing_opts to;
   const char *pos[2];
   /* profile */
   struct replay_options ro;
   struct replay_override ov_b[REPLAY_MAX_OVERRIDES];
   uint8_t *owned_b[REPLAY_MAX_OVERRIDES];
   unsigned num_ov_b;
   uint32_t top;
};

/* Options after the mode word (argv[0] here). Returns -1 to go on, or an
 * exit status. */
static int
parse(int argc, char **argv, struct opts *o)
{
   enum { O_JSON = 256, O_CPU, O_HTML, O_DIFF_DIR, O_TOLERANCE, O_MAX_PIXELS, O_MAX_FRACTION,
          O_MIN_PSNR, O_MIN_SSIM, O_MIN_EFFECT, O_ALPHA, O_BOOTSTRAP, O_SEED, O_FRAMES,
          O_OVERRIDE_B, O_TOP, O_IGNORE_ALPHA, O_SWAP_CALLS };
   static const struct option longopts[] = {
      { "json", no_argument, NULL, O_JSON },
      { "cpu", no_argument, NULL, O_CPU },
      { "html", required_argument, NULL, O_HTML },
      { "diff-dir", required_argument, NULL, O_DIFF_DIR },
      { "tolerance", required_argument, NULL, O_TOLERANCE },
      { "max-diff-pixels", required_argument, NULL, O_MAX_PIXELS },
      { "max-diff-fraction", required_argument, NULL, O_MAX_FRACTION },
      { "min-psnr", required_argument, NULL, O_MIN_PSNR },
      { "min-ssim", required_argument, NULL, O_MIN_SSIM },
      { "ignore-alpha", no_argument, NULL, O_IGNORE_ALPHA },
      { "swap-calls", required_argument, NULL, O_SWAP_CALLS },
      { "min-effect", required_argument, NULL, O_MIN_EFFECT },
      { "alpha", required_argument, NULL, O_ALPHA },
      { "bootstrap", required_argument, NULL, O_BOOTSTRAP },
      { "seed", required_argument, NULL, O_SEED },
      { "frames", required_argument, NULL, O_FRAMES },
      { "override-shader-b", required_argument, NULL, O_OVERRIDE_B },
      { "top", required_argument, NULL, O_TOP },
      { "help", no_argument, NULL, 'h' },
      { NULL, 0, NULL, 0 },
   };
   int c;
   optind = 1;
   opterr = 0;
   while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
      const char *v = optarg;
      uint64_t u;
      double d;
      switch (c) {
      case 'h':
         fputs(usage_text, stdout);
         return 0;
      case O_JSON: o->json = true; break;
      case O_CPU: o->to.use_cpu = true; break;
      case O_HTML:
         if (!*v)
            return fail("%s needs a directory", "--html");
         o->html = v;
         break;
      case O_DIFF_DIR:
         if (!*v)
            return fail("%s needs a directory", "--diff-dir");
         o->diff_dir = v;
         break;
      case O_IGNORE_ALPHA: o->th.ignore_alpha = true; break;
      case O_SWAP_CALLS: o->swap_calls = v; break;
      case O_TOLERANCE:
         if (!cli_parse_u64(v, 65535, &u))
            return fail("bad --tolerance '%s' (0..65535)", v);
         o->th.tolerance = (unsigned)u;
         break;
      case O_MAX_PIXELS:
         if (!cli_parse_u64(v, INT64_MAX, &u))
            return fail("bad --max-diff-pixels '%s'", v);
         o->th.max_diff_pixels = (int64_t)u;
         break;
      case O_MAX_FRACTION:
         if (!cli_parse_double(v, 0, 1, &d))
            return fail("bad --max-diff-fraction '%s' (0..1)", v);
         o->th.max_diff_fraction = d;
         o->th.max_diff_pixels = -1;
         break;
      case O_MIN_PSNR:
         if (!cli_parse_double(v, 0, 1000, &d))
            return fail("bad --min-psnr '%s' (dB, 0..1000)", v);
         o->th.min_psnr = d;
         break;
      case O_MIN_SSIM:
         if (!cli_parse_double(v, -1, 1, &d))
            return fail("bad --min-ssim '%s' (-1..1)", v);
         o->th.min_ssim = d;
         break;
      case O_MIN_EFFECT:
         if (!cli_parse_double(v, 0, 10, &d))
            return fail("bad --min-effect '%s' (e.g. 0.02)", v);
         o->to.min_effect = d;
         break;
      case O_ALPHA:
         if (!cli_parse_double(v, 1e-12, 0.5, &d))
            return fail("bad --alpha '%s' (0..0.5)", v);
         o->to.alpha = d;
         break;
      case O_BOOTSTRAP:
         if (!cli_parse_u64(v, 1000000, &u) || u < 100)
            return fail("bad --bootstrap '%s' (100..1000000)", v);
         o->to.bootstrap = (unsigned)u;
         break;
      case O_SEED:
         if (!cli_parse_u64(v, UINT64_MAX, &u))
            return fail("bad --seed '%s'", v);
         o->to.seed = u;
         break;
      case O_FRAMES:
         if (!cli_parse_range(v, &o->ro.first_frame, &o->ro.last_frame))
            return fail("--frames wants A-B, got '%s'", v);
         break;
      case O_TOP:
         if (!cli_parse_u32(v, &o->top) || o->top > 1000000)
            return fail("bad --top '%s' (0..1000000)", v);
         break;
      case O_OVERRIDE_B:
         if (o->num_ov_b == REPLAY_MAX_OVERRIDES)
            return fail("%s", "at most 16 --override-shader-b options");
         if (cli_parse_override("compare", v, &o->ov_b[o->num_ov_b], &o->owned_b[o->num_ov_b]))
            return 2;
         o->num_ov_b++;
         break;
      default:
         return cli_bad_option("compare", c, argv, longopts);
      }
   }
   if (argc - optind > 2)
      return fail("too many arguments at '%s'", argv[optind + 2]);
   if (argc - optind != 2)
      return fail("%s", "needs a reference and an actual path (see --help)");
   o->pos[0] = argv[optind];
   o->pos[1] = argv[optind + 1];
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
   if (o->swap_calls ? !cmp_pairs_swaps(o->swap_calls, o->pos[0], o->pos[1], &pairs, err)
                     : !cmp_pairs_find(o->pos[0], o->pos[1], &pairs, err))
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

/* A profile from a `tessera profile --json` file, or from profiling a
 * trace on the model (its JSON report, read back: one reader for both). */
static bool
load_profile(const char *path, const struct replay_options *ro, struct cmp_prof_file *out,
             char err[CMP_ERR_LEN])
{
   FILE *fp = fopen(path, "rb");
   if (!fp) {
      snprintf(err, CMP_ERR_LEN, "cannot open '%.180s': %s", path, strerror(errno));
      return false;
   }
   char head[16] = { 0 };
   size_t got = fread(head, 1, sizeof(head) - 1, fp);
   fclose(fp);
   size_t i = 0;
   while (i < got && strchr(" \t\r\n", head[i]))
      i++;
   if (i < got && head[i] == '{')
      return cmp_prof_load(path, out, err);
   if (got < 8 || memcmp(head, "TSRTRACE", 8)) {
      snprintf(err, CMP_ERR_LEN, "'%.180s' is neither a trace nor a `tessera profile "
               "--json` file", path);
      return false;
   }
   char berr[512];
   struct replay_backend *b = replay_backend_model(true, berr, sizeof(berr));
   if (!b) {
      snprintf(err, CMP_ERR_LEN, "%.200s", berr);
      return false;
   }
   struct replay_profile prof;
   enum replay_status s = replay_profile_run(path, b, ro, &prof);
   b->destroy(b);
   if (s != REPLAY_OK) {
      replay_profile_free(&prof);
      snprintf(err, CMP_ERR_LEN, "profiling '%.160s' %s", path,
               s == REPLAY_ERROR ? "failed (see above)" : "hit a GPU fault");
      return false;
   }
   char *buf = NULL;
   size_t len = 0;
   FILE *mem = open_memstream(&buf, &len);
   bool ok = mem != NULL;
   if (ok) {
      replay_profile_print_json(mem, &prof, 0);
      ok = fclose(mem) == 0 && !prof.oom;
   }
   replay_profile_free(&prof);
   if (!ok) {
      free(buf);
      snprintf(err, CMP_ERR_LEN, "out of memory");
      return false;
   }
   char inner[CMP_ERR_LEN];
   ok = cmp_prof_parse(buf, len, out, inner);
   free(buf);
   if (!ok)
      snprintf(err, CMP_ERR_LEN, "'%.80s': %.160s", path, inner);
   return ok;
}

static int
run_profile(struct opts *o)
{
   char err[CMP_ERR_LEN];
   struct cmp_prof_file fa, fb;
   struct replay_options rb = o->ro;
   if (o->num_ov_b) {
      FILE *fp = fopen(o->pos[1], "rb");
      char head[8] = { 0 };
      bool trace = fp && fread(head, 1, 8, fp) == 8 && !memcmp(head, "TSRTRACE", 8);
      if (fp)
         fclose(fp);
      if (!trace && fp)
         return fail("%s", "--override-shader-b needs B to be a trace");
      memcpy(rb.overrides, o->ov_b, sizeof(o->ov_b));
      rb.num_overrides = o->num_ov_b;
   }
   if (!load_profile(o->pos[0], &o->ro, &fa, err))
      return fail("%s", err);
   if (!load_profile(o->pos[1], &rb, &fb, err)) {
      cmp_prof_free(&fa);
      return fail("%s", err);
   }
   struct cmp_prof_result r;
   int status = 2;
   if (!cmp_prof_compare(&fa, &fb, o->to.min_effect, &r, err)) {
      fail("%s", err);
      goto out;
   }
   status = r.verdict == CMP_PROF_SLOWER ? 1 : 0;
   if (o->json) {
      if (!print_json(cmp_report_profile_json(&r, o->top, o->pos[0], o->pos[1])))
         status = 2;
   } else {
      cmp_report_profile_text(stdout, &r, o->top, o->pos[0], o->pos[1]);
   }
   if (o->html && !cmp_html_profile(o->html, &r, o->top, o->pos[0], o->pos[1], err)) {
      fprintf(stderr, "tessera compare: %s\n", err);
      status = 2;
   }
   if (fflush(stdout) != 0) {
      perror("tessera compare: stdout");
      status = 2;
   }
   cmp_prof_result_free(&r);
out:
   cmp_prof_free(&fa);
   cmp_prof_free(&fb);
   return status;
}

int
cmd_compare(int argc, char **argv)
{
   struct opts o = {0};
   replay_options_init(&o.ro);
   o.top = 10;
   cmp_image_thresholds_default(&o.th);
   cmp_timing_opts_default(&o.to);
   if (argc < 2)
      return fail("%s", "needs 'images', 'timing' or 'profile' (see --help)");
   const char *mode = argv[1];
   if (!strcmp(mode, "-h") || !strcmp(mode, "--help")) {
      fputs(usage_text, stdout);
      return 0;
   }
   bool images = !strcmp(mode, "images"), timing = !strcmp(mode, "timing");
   bool profile = !strcmp(mode, "profile");
   if (!images && !timing && !profile)
      return fail("unknown mode '%s': use 'images', 'timing' or 'profile'", mode);
   int st = parse(argc - 1, argv + 1, &o);
   if (st < 0)
      st = images ? run_images(&o) : timing ? run_timing(&o) : run_profile(&o);
   for (unsigned i = 0; i < o.num_ov_b; i++)
      free(o.owned_b[i]);
   return st;
}

/* SPDX-License-Identifier: MIT */
/*
 * Timing files (schema "tessera-timing/1", docs/compare.md) and their
 * comparison. Samples are organised per frame across runs: the question
 * asked is "did frame N get slower", and every run gives one observation
 * of each frame.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare/compare.h"

#define SCHEMA "tessera-timing/1"
#define MAX_RUNS 100000
#define MAX_CELLS (1u << 24) /* runs x frames */
#define MAX_FRAME_BOOTSTRAP 1000

/* Also the bsearch comparator for frames: id is their first member. */
static int
cmp_i64(const void *pa, const void *pb)
{
   int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
   return (a > b) - (a < b);
}

/* A time field: absent is NAN; present must be a non-negative number. */
static bool
get_ns(json_t *obj, const char *key, double *out, char *err,
       const char *where)
{
   json_t *v = json_object_get(obj, key);
   *out = NAN;
   if (!v)
      return true;
   if (!json_is_number(v) || json_number_value(v) < 0) {
      snprintf(err, CMP_ERR_LEN, "%s: \"%s\" must be a non-negative number",
               where, key);
      return false;
   }
   *out = json_number_value(v);
   return true;
}

/* A frame's time: its own field, or the sum over its submissions. */
static bool
frame_time(json_t *fr, const char *key, double *out, char *err,
           const char *where)
{
   if (!get_ns(fr, key, out, err, where))
      return false;
   if (!isnan(*out))
      return true;
   json_t *subs = json_object_get(fr, "submissions");
   if (!subs)
      return true;
   if (!json_is_array(subs)) {
      snprintf(err, CMP_ERR_LEN, "%s: \"submissions\" must be an array",
               where);
      return false;
   }
   double sum = 0;
   size_t i;
   json_t *s;
   json_array_foreach(subs, i, s) {
      double v;
      if (!json_is_object(s)) {
         snprintf(err, CMP_ERR_LEN, "%s: submission %zu is not an object",
                  where, i);
         return false;
      }
      if (!get_ns(s, key, &v, err, where))
         return false;
      if (isnan(v))
         return true; /* incomplete: the frame has no value */
      sum += v;
   }
   if (json_array_size(subs))
      *out = sum;
   return true;
}

static bool
parse_root(json_t *root, struct cmp_timing_file *f, char *err)
{
   if (!json_is_object(root)) {
      snprintf(err, CMP_ERR_LEN, "the top level must be a JSON object");
      return false;
   }
   json_t *schema = json_object_get(root, "schema");
   if (!json_is_string(schema) || strcmp(json_string_value(schema), SCHEMA)) {
      snprintf(err, CMP_ERR_LEN, "\"schema\" must be \"%s\"", SCHEMA);
      return false;
   }
   json_t *meta = json_object_get(root, "meta");
   if (meta) {
      if (!json_is_object(meta)) {
         snprintf(err, CMP_ERR_LEN, "\"meta\" must be an object");
         return false;
      }
      f->meta_json = json_dumps(meta, JSON_COMPACT | JSON_SORT_KEYS);
   }
   json_t *runs = json_object_get(root, "runs");
   if (!json_is_array(runs) || json_array_size(runs) == 0) {
      snprintf(err, CMP_ERR_LEN, "\"runs\" must be a non-empty array");
      return false;
   }
   size_t nruns = json_array_size(runs);
   if (nruns > MAX_RUNS) {
      snprintf(err, CMP_ERR_LEN, "too many runs (%zu, limit %d)", nruns,
               MAX_RUNS);
      return false;
   }

   /* Pass 1: validate the shape and collect the distinct frame ids. */
   size_t nids = 0, cap = 0;
   int64_t *ids = NULL;
   size_t r;
   json_t *run;
   json_array_foreach(runs, r, run) {
      json_t *frames = json_is_object(run) ? json_object_get(run, "frames")
                                           : NULL;
      if (!json_is_array(frames)) {
         snprintf(err, CMP_ERR_LEN, "run %zu: needs a \"frames\" array", r);
         free(ids);
         return false;
      }
      size_t i;
      json_t *fr;
      json_array_foreach(frames, i, fr) {
         json_t *id = json_is_object(fr) ? json_object_get(fr, "frame") : NULL;
         if (!json_is_integer(id) || json_integer_value(id) < 0) {
            snprintf(err, CMP_ERR_LEN,
                     "run %zu, frame entry %zu: needs \"frame\", an integer "
                     ">= 0", r, i);
            free(ids);
            return false;
         }
         if (nids == cap) {
            if (cap >= MAX_CELLS) {
               snprintf(err, CMP_ERR_LEN, "too many frame entries");
               free(ids);
               return false;
            }
            cap = cap ? cap * 2 : 64;
            int64_t *n = realloc(ids, cap * sizeof(*n));
            if (!n) {
               snprintf(err, CMP_ERR_LEN, "out of memory");
               free(ids);
               return false;
            }
            ids = n;
         }
         ids[nids++] = json_integer_value(id);
      }
   }
   if (nids > 1)   /* qsort must not see the NULL of an empty list */
      qsort(ids, nids, sizeof(*ids), cmp_i64);
   size_t nf = 0;
   for (size_t i = 0; i < nids; i++)
      if (nf == 0 || ids[nf - 1] != ids[i])
         ids[nf++] = ids[i];
   if (nf == 0) {
      snprintf(err, CMP_ERR_LEN, "no frames in any run");
      free(ids);
      return false;
   }
   if ((uint64_t)nf * nruns > MAX_CELLS) {
      snprintf(err, CMP_ERR_LEN, "too many runs x frames (%zu x %zu)", nruns,
               nf);
      free(ids);
      return false;
   }

   f->nruns = nruns;
   f->nframes = nf;
   f->frames = calloc(nf, sizeof(*f->frames));
   f->run_gpu = malloc(nruns * sizeof(double));
   f->run_cpu = malloc(nruns * sizeof(double));
   bool ok = f->frames && f->run_gpu && f->run_cpu;
   for (size_t i = 0; ok && i < nf; i++) {
      f->frames[i].id = ids[i];
      f->frames[i].gpu = malloc(nruns * sizeof(double));
      f->frames[i].cpu = malloc(nruns * sizeof(double));
      ok = f->frames[i].gpu && f->frames[i].cpu;
      for (size_t k = 0; ok && k < nruns; k++)
         f->frames[i].gpu[k] = f->frames[i].cpu[k] = NAN;
   }
   free(ids);
   if (!ok) {
      snprintf(err, CMP_ERR_LEN, "out of memory");
      return false;
   }

   /* Pass 2: the values. */
   json_array_foreach(runs, r, run) {
      json_t *frames = json_object_get(run, "frames");
      size_t i;
      json_t *fr;
      json_array_foreach(frames, i, fr) {
         int64_t id = json_integer_value(json_object_get(fr, "frame"));
         struct cmp_timing_frame key = {.id = id};
         struct cmp_timing_frame *slot =
            bsearch(&key, f->frames, nf, sizeof(key), cmp_i64);
         char where[64];
         snprintf(where, sizeof(where), "run %zu, frame %lld", r,
                  (long long)id);
         if (!isnan(slot->gpu[r]) || !isnan(slot->cpu[r])) {
            snprintf(err, CMP_ERR_LEN, "%s: listed twice", where);
            return false;
         }
         if (!frame_time(fr, "gpu_ns", &slot->gpu[r], err, where) ||
             !frame_time(fr, "cpu_ns", &slot->cpu[r], err, where))
            return false;
      }
      /* A run's total is defined only when it has every frame. */
      double g = 0, c = 0;
      for (size_t k = 0; k < nf; k++) {
         g += f->frames[k].gpu[r];
         c += f->frames[k].cpu[r];
      }
      f->run_gpu[r] = g;
      f->run_cpu[r] = c;
   }
   return true;
}

bool
cmp_timing_parse(const char *text, size_t len, struct cmp_timing_file *out,
                 char err[CMP_ERR_LEN])
{
   memset(out, 0, sizeof(*out));
   json_error_t je;
   json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
   if (!root) {
      snprintf(err, CMP_ERR_LEN, "invalid JSON at line %d column %d: %s",
               je.line, je.column, je.text);
      return false;
   }
   bool ok = parse_root(root, out, err);
   json_decref(root);
   if (!ok)
      cmp_timing_free(out);
   return ok;
}

bool
cmp_timing_load(const char *path, struct cmp_timing_file *out,
                char err[CMP_ERR_LEN])
{
   memset(out, 0, sizeof(*out));
   FILE *fp = fopen(path, "rb");
   if (!fp) {
      snprintf(err, CMP_ERR_LEN, "cannot open '%s': %s", path,
               strerror(errno));
      return false;
   }
   char *buf = NULL;
   size_t len = 0, cap = 0;
   bool ok = true;
   for (;;) {
      if (len == cap) {
         cap = cap ? cap * 2 : 1u << 16;
         char *n = cap <= (1u << 30) ? realloc(buf, cap) : NULL;
         if (!n) {
            snprintf(err, CMP_ERR_LEN, "'%s': too large", path);
            ok = false;
            break;
         }
         buf = n;
      }
      size_t rd = fread(buf + len, 1, cap - len, fp);
      len += rd;
      if (rd == 0)
         break;
   }
   fclose(fp);
   if (ok) {
      char why[CMP_ERR_LEN];
      ok = cmp_timing_parse(buf, len, out, why);
      if (!ok)
         snprintf(err, CMP_ERR_LEN, "'%s': %.200s", path, why);
   }
   free(buf);
   return ok;
}

void
cmp_timing_free(struct cmp_timing_file *f)
{
   for (size_t i = 0; f->frames && i < f->nframes; i++) {
      free(f->frames[i].gpu);
      free(f->frames[i].cpu);
   }
   free(f->frames);
   free(f->run_gpu);
   free(f->run_cpu);
   free(f->meta_json);
   memset(f, 0, sizeof(*f));
}

const char *
cmp_verdict_name(enum cmp_verdict v)
{
   switch (v) {
   case CMP_FASTER:
      return "faster";
   case CMP_SLOWER:
      return "slower";
   case CMP_TOO_FEW:
      return "too few runs";
   default:
      return "no significant change";
   }
}

void
cmp_timing_opts_default(struct cmp_timing_opts *o)
{
   o->use_cpu = false;
   o->alpha = 0.01;
   o->min_effect = 0.02;
   o->bootstrap = 2000;
   o->seed = 0x7e55e7a;
   o->level = 0.99;
}

void
cmp_timing_judge(const double *a, size_t na, const double *b, size_t nb,
                 const struct cmp_timing_opts *o, struct cmp_timing_stat *s)
{
   s->na = na;
   s->nb = nb;
   s->sa = a;
   s->sb = b;
   s->med_a = cmp_median(a, na);
   s->med_b = cmp_median(b, nb);
   s->iqr_a = cmp_iqr(a, na);
   s->iqr_b = cmp_iqr(b, nb);
   s->mad_a = cmp_mad(a, na);
   s->mad_b = cmp_mad(b, nb);
   s->ratio = s->med_a > 0 ? s->med_b / s->med_a : NAN;
   s->ci_lo = s->ci_hi = NAN;
   cmp_mann_whitney(a, na, b, nb, &s->mwu);
   s->verdict = CMP_NO_CHANGE;
   /* Fewer than 3 runs a side cannot reach significance in a rank test. */
   if (na < 3 || nb < 3) {
      s->verdict = CMP_TOO_FEW;
      return;
   }
   if (!cmp_bootstrap_ratio(a, na, b, nb, o->bootstrap,
                            o->seed ^ (uint64_t)s->id * 0x9e3779b97f4a7c15ull,
                            o->level, &s->ci_lo, &s->ci_hi))
      return;
   if (s->mwu.p >= o->alpha || isnan(s->ratio))
      return;
   if (s->ci_lo > 1 && s->ratio - 1 >= o->min_effect)
      s->verdict = CMP_SLOWER;
   else if (s->ci_hi < 1 && 1 - s->ratio >= o->min_effect)
      s->verdict = CMP_FASTER;
}

/* Copies the defined samples of x into dst; returns how many. */
static size_t
defined(const double *x, size_t n, double *dst)
{
   size_t k = 0;
   for (size_t i = 0; i < n; i++)
      if (!isnan(x[i]))
         dst[k++] = x[i];
   return k;
}

bool
cmp_timing_compare(const struct cmp_timing_file *a,
                   const struct cmp_timing_file *b,
                   const struct cmp_timing_opts *o,
                   struct cmp_timing_result *r, char err[CMP_ERR_LEN])
{
   memset(r, 0, sizeof(*r));
   size_t common = 0;
   for (size_t i = 0, j = 0; i < a->nframes && j < b->nframes;) {
      if (a->frames[i].id == b->frames[j].id) {
         common++;
         i++;
         j++;
      } else if (a->frames[i].id < b->frames[j].id) {
         i++;
      } else {
         j++;
      }
   }
   r->only_a = a->nframes - common;
   r->only_b = b->nframes - common;
   size_t per = a->nruns + b->nruns;
   r->store = malloc((common + 1) * per * sizeof(double));
   r->frames = calloc(common ? common : 1, sizeof(*r->frames));
   if (!r->store || !r->frames) {
      snprintf(err, CMP_ERR_LEN, "out of memory");
      cmp_timing_result_free(r);
      return false;
   }
   double *p = r->store;
   struct cmp_timing_opts fo = *o;

   size_t na = defined(o->use_cpu ? a->run_cpu : a->run_gpu, a->nruns, p);
   size_t nb = defined(o->use_cpu ? b->run_cpu : b->run_gpu, b->nruns, p + na);
   r->total.id = -1;
   cmp_timing_judge(p, na, p + na, nb, o, &r->total);
   p += per;

   /* Per-frame intervals are informative only; fewer resamples keep long
    * traces quick. */
   if (fo.bootstrap > MAX_FRAME_BOOTSTRAP)
      fo.bootstrap = MAX_FRAME_BOOTSTRAP;
   size_t k = 0;
   for (size_t i = 0, j = 0; i < a->nframes && j < b->nframes;) {
      const struct cmp_timing_frame *fa = &a->frames[i], *fb = &b->frames[j];
      if (fa->id != fb->id) {
         if (fa->id < fb->id)
            i++;
         else
            j++;
         continue;
      }
      na = defined(o->use_cpu ? fa->cpu : fa->gpu, a->nruns, p);
      nb = defined(o->use_cpu ? fb->cpu : fb->gpu, b->nruns, p + na);
      r->frames[k].id = fa->id;
      cmp_timing_judge(p, na, p + na, nb, &fo, &r->frames[k]);
      p += per;
      k++;
      i++;
      j++;
   }
   r->nframes = k;
   if (k == 0) {
      snprintf(err, CMP_ERR_LEN, "the two files have no frame in common");
      cmp_timing_result_free(r);
      return false;
   }
   return true;
}

void
cmp_timing_result_free(struct cmp_timing_result *r)
{
   free(r->store);
   free(r->frames);
   memset(r, 0, sizeof(*r));
}

/* SPDX-License-Identifier: MIT */
/*
 * compare profile: reads two `tessera profile --json` documents and pairs
 * their frames, passes and draws (contract in compare/compare.h,
 * docs/compare.md "Profiles").
 */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "compare/compare.h"

/* ------------------------------------------------------------------ parse */

static bool
get_counters(json_t *obj, const struct cmp_prof_file *f, uint64_t **out,
             const char *where, char *err)
{
   json_t *c = json_object_get(obj, "counters");
   if (!json_is_object(c)) {
      snprintf(err, CMP_ERR_LEN, "%s has no \"counters\" object", where);
      return false;
   }
   uint64_t *v = calloc(f->ncounters ? f->ncounters : 1, sizeof(*v));
   if (!v) {
      snprintf(err, CMP_ERR_LEN, "out of memory");
      return false;
   }
   *out = v;
   for (size_t k = 0; k < f->ncounters; k++) {
      json_t *x = json_object_get(c, f->names[k]);
      if (!json_is_integer(x) || json_integer_value(x) < 0) {
         snprintf(err, CMP_ERR_LEN, "%s: counter \"%s\" missing or not a non-negative "
                  "integer", where, f->names[k]);
         return false;
      }
      v[k] = (uint64_t)json_integer_value(x);
   }
   return true;
}

static bool
get_addr(json_t *obj, const char *key, uint64_t *out, const char *where, char *err)
{
   json_t *x = json_object_get(obj, key);
   const char *s = json_string_value(x);
   char *end;
   errno = 0;
   if (!s || strncmp(s, "0x", 2) != 0 ||
       (*out = strtoull(s + 2, &end, 16), errno || end == s + 2 || *end)) {
      snprintf(err, CMP_ERR_LEN, "%s: \"%s\" is not a hex address string", where, key);
      return false;
   }
   return true;
}

static bool
get_entry(json_t *obj, const struct cmp_prof_file *f, bool compute, int64_t index,
          struct cmp_prof_entry *e, const char *where, char *err)
{
   e->index = index;
   if (!json_is_object(obj)) {
      snprintf(err, CMP_ERR_LEN, "%s is not an object", where);
      return false;
   }
   if (compute) {
      e->fs = 0;
      if (!get_addr(obj, "kernel", &e->vs, where, err))
         return false;
   } else if (!get_addr(obj, "vs", &e->vs, where, err) ||
              !get_addr(obj, "fs", &e->fs, where, err)) {
      return false;
   }
   return get_counters(obj, f, &e->c, where, err);
}

static bool
get_pass(json_t *pj, const struct cmp_prof_file *f, struct cmp_prof_pass *p,
         const char *fwhere, char *err)
{
   char where[96];
   snprintf(where, sizeof(where), "%.40s pass %lld", fwhere, (long long)p->index);
   if (!json_is_object(pj)) {
      snprintf(err, CMP_ERR_LEN, "%s is not an object", where);
      return false;
   }
   const char *kind = json_string_value(json_object_get(pj, "kind"));
   if (!kind || (strcmp(kind, "render") && strcmp(kind, "compute"))) {
      snprintf(err, CMP_ERR_LEN, "%s: \"kind\" must be \"render\" or \"compute\"", where);
      return false;
   }
   p->compute = !strcmp(kind, "compute");
   p->width = (uint32_t)json_integer_value(json_object_get(pj, "width"));
   p->height = (uint32_t)json_integer_value(json_object_get(pj, "height"));
   if (!get_counters(pj, f, &p->total, where, err))
      return false;
   char w2[128];
   snprintf(w2, sizeof(w2), "%s overhead", where);
   if (!get_entry(json_object_get(pj, "overhead"), f, p->compute, -1, &p->overhead, w2, err))
      return false;
   json_t *arr = json_object_get(pj, p->compute ? "dispatches" : "draws");
   if (!json_is_array(arr)) {
      snprintf(err, CMP_ERR_LEN, "%s has no \"%s\" array", where,
               p->compute ? "dispatches" : "draws");
      return false;
   }
   p->n = json_array_size(arr);
   p->e = calloc(p->n ? p->n : 1, sizeof(*p->e));
   if (!p->e) {
      snprintf(err, CMP_ERR_LEN, "out of memory");
      return false;
   }
   for (size_t i = 0; i < p->n; i++) {
      snprintf(w2, sizeof(w2), "%s %s %zu", where, p->compute ? "dispatch" : "draw", i);
      if (!get_entry(json_array_get(arr, i), f, p->compute, (int64_t)i, &p->e[i], w2, err))
         return false;
   }
   return true;
}

static bool
parse_root(json_t *root, struct cmp_prof_file *f, char *err)
{
   if (!json_is_object(root)) {
      snprintf(err, CMP_ERR_LEN, "not a JSON object");
      return false;
   }
   const char *schema = json_string_value(json_object_get(root, "schema"));
   if (!schema || strcmp(schema, "tessera-profile/1")) {
      snprintf(err, CMP_ERR_LEN, "schema is not \"tessera-profile/1\" (not written by "
               "`tessera profile --json`?)");
      return false;
   }
   json_t *names = json_object_get(json_object_get(root, "meta"), "counters");
   if (!json_is_array(names) || json_array_size(names) == 0) {
      snprintf(err, CMP_ERR_LEN, "meta.counters is not a non-empty array");
      return false;
   }
   f->ncounters = json_array_size(names);
   f->names = calloc(f->ncounters, sizeof(*f->names));
   if (!f->names) {
      f->ncounters = 0;
      snprintf(err, CMP_ERR_LEN, "out of memory");
      return false;
   }
   for (size_t k = 0; k < f->ncounters; k++) {
      const char *s = json_string_value(json_array_get(names, k));
      if (!s || !(f->names[k] = strdup(s))) {
         snprintf(err, CMP_ERR_LEN, "meta.counters[%zu] is not a string", k);
         return false;
      }
   }
   if (strcmp(f->names[0], "cycles")) {
      snprintf(err, CMP_ERR_LEN, "meta.counters must start with \"cycles\"");
      return false;
   }
   json_t *frames = json_object_get(root, "frames");
   if (!json_is_array(frames)) {
      snprintf(err, CMP_ERR_LEN, "no \"frames\" array");
      return false;
   }
   f->nframes = json_array_size(frames);
   f->frames = calloc(f->nframes ? f->nframes : 1, sizeof(*f->frames));
   if (!f->frames) {
      snprintf(err, CMP_ERR_LEN, "out of memory");
      return false;
   }
   for (size_t i = 0; i < f->nframes; i++) {
      struct cmp_prof_frame *fr = &f->frames[i];
      json_t *fj = json_array_get(frames, i);
      json_t *id = json_object_get(fj, "frame");
      if (!json_is_integer(id) || json_integer_value(id) < 0) {
         snprintf(err, CMP_ERR_LEN, "frames[%zu] has no non-negative \"frame\"", i);
         return false;
      }
      fr->frame = json_integer_value(id);
      for (size_t j = 0; j < i; j++)
         if (f->frames[j].frame == fr->frame) {
            snprintf(err, CMP_ERR_LEN, "frame %lld appears twice", (long long)fr->frame);
            return false;
         }
      char where[48];
      snprintf(where, sizeof(where), "frame %lld", (long long)fr->frame);
      if (!get_counters(fj, f, &fr->total, where, err))
         return false;
      json_t *passes = json_object_get(fj, "passes");
      if (!json_is_array(passes)) {
         snprintf(err, CMP_ERR_LEN, "%s has no \"passes\" array", where);
         return false;
      }
      fr->npasses = json_array_size(passes);
      fr->passes = calloc(fr->npasses ? fr->npasses : 1, sizeof(*fr->passes));
      if (!fr->passes) {
         fr->npasses = 0;
         snprintf(err, CMP_ERR_LEN, "out of memory");
         return false;
      }
      for (size_t k = 0; k < fr->npasses; k++) {
         fr->passes[k].index = (int64_t)k;
         if (!get_pass(json_array_get(passes, k), f, &fr->passes[k], where, err))
            return false;
      }
   }
   return true;
}

bool
cmp_prof_parse(const char *text, size_t len, struct cmp_prof_file *out, char err[CMP_ERR_LEN])
{
   memset(out, 0, sizeof(*out));
   json_error_t je;
   json_t *root = json_loadb(text, len, 0, &je);
   if (!root) {
      snprintf(err, CMP_ERR_LEN, "malformed JSON at line %d: %s", je.line, je.text);
      return false;
   }
   bool ok = parse_root(root, out, err);
   json_decref(root);
   if (!ok)
      cmp_prof_free(out);
   return ok;
}

bool
cmp_prof_load(const char *path, struct cmp_prof_file *out, char err[CMP_ERR_LEN])
{
   memset(out, 0, sizeof(*out));
   FILE *fp = fopen(path, "rb");
   if (!fp) {
      snprintf(err, CMP_ERR_LEN, "cannot open '%.180s': %s", path, strerror(errno));
      return false;
   }
   char *buf = NULL;
   size_t len = 0, cap = 0;
   for (;;) {
      if (cap - len < 65536) {
         char *nb = realloc(buf, cap = cap * 2 + 65536);
         if (!nb) {
            free(buf);
            fclose(fp);
            snprintf(err, CMP_ERR_LEN, "'%.180s': out of memory", path);
            return false;
         }
         buf = nb;
      }
      size_t got = fread(buf + len, 1, cap - len, fp);
      len += got;
      if (got == 0)
         break;
   }
   bool rd_err = ferror(fp);
   fclose(fp);
   if (rd_err) {
      free(buf);
      snprintf(err, CMP_ERR_LEN, "cannot read '%.180s'", path);
      return false;
   }
   char inner[CMP_ERR_LEN];
   bool ok = cmp_prof_parse(buf, len, out, inner);
   free(buf);
   if (!ok)
      snprintf(err, CMP_ERR_LEN, "'%.80s': %.160s", path, inner);
   return ok;
}

static void
entry_free(struct cmp_prof_entry *e)
{
   free(e->c);
}

void
cmp_prof_free(struct cmp_prof_file *f)
{
   for (size_t i = 0; f->frames && i < f->nframes; i++) {
      struct cmp_prof_frame *fr = &f->frames[i];
      for (size_t k = 0; fr->passes && k < fr->npasses; k++) {
         struct cmp_prof_pass *p = &fr->passes[k];
         free(p->total);
         entry_free(&p->overhead);
         for (size_t j = 0; p->e && j < p->n; j++)
            entry_free(&p->e[j]);
         free(p->e);
      }
      free(fr->passes);
      free(fr->total);
   }
   free(f->frames);
   for (size_t k = 0; f->names && k < f->ncounters; k++)
      free(f->names[k]);
   free(f->names);
   memset(f, 0, sizeof(*f));
}

/* ---------------------------------------------------------------- compare */

const char *
cmp_prof_verdict_name(enum cmp_prof_verdict v)
{
   switch (v) {
   case CMP_PROF_SAME: return "no change";
   case CMP_PROF_SMALL: return "no significant change";
   case CMP_PROF_FASTER: return "faster";
   default: return "slower";
   }
}

enum cmp_prof_verdict
cmp_prof_judge(uint64_t a, uint64_t b, double min_effect)
{
   if (a == b)
      return CMP_PROF_SAME;
   /* something from nothing (or back) is always a change worth naming */
   double rel = a ? ((double)b - (double)a) / (double)a : (b > a ? 1e300 : -1e300);
   if (rel >= min_effect)
      return CMP_PROF_SLOWER;
   if (rel <= -min_effect)
      return CMP_PROF_FASTER;
   return CMP_PROF_SMALL;
}

static bool
key_eq(const struct cmp_prof_entry *a, const struct cmp_prof_entry *b)
{
   return a->vs == b->vs && (a->fs == b->fs || !a->fs || !b->fs);
}

/* Past this many cells the alignment falls back to pairing by position
 * (keys still have to agree), to bound time and memory on huge passes. */
#define CMP_PROF_LCS_CELLS (1u << 24)

static bool
match_draws(const struct cmp_prof_pass *pa, const struct cmp_prof_pass *pb,
            struct cmp_prof_dpass *d, double min_effect)
{
   size_t na = pa->n, nb = pb->n;
   d->d = calloc(na + nb + 1, sizeof(*d->d));
   if (!d->d)
      return false;
   size_t n = 0;
   uint32_t *t = NULL;
   if ((uint64_t)(na + 1) * (nb + 1) <= CMP_PROF_LCS_CELLS)
      t = calloc((na + 1) * (nb + 1), sizeof(*t));
   if (t) {
      /* t[i][j]: LCS length of a[i..], b[j..] */
      size_t w = nb + 1;
      for (size_t i = na; i-- > 0;)
         for (size_t j = nb; j-- > 0;)
            t[i * w + j] = key_eq(&pa->e[i], &pb->e[j])
                              ? t[(i + 1) * w + j + 1] + 1
                              : (t[(i + 1) * w + j] >= t[i * w + j + 1] ? t[(i + 1) * w + j]
                                                                         : t[i * w + j + 1]);
      size_t i = 0, j = 0;
      while (i < na || j < nb) {
         if (i < na && j < nb && key_eq(&pa->e[i], &pb->e[j]) &&
             t[i * w + j] == t[(i + 1) * w + j + 1] + 1) {
            d->d[n++] = (struct cmp_prof_dentry){ &pa->e[i++], &pb->e[j++], 0 };
         } else if (j >= nb || (i < na && t[(i + 1) * w + j] >= t[i * w + j + 1])) {
            d->d[n++] = (struct cmp_prof_dentry){ &pa->e[i++], NULL, 0 };
         } else {
            d->d[n++] = (struct cmp_prof_dentry){ NULL, &pb->e[j++], 0 };
         }
      }
      free(t);
   } else {
      size_t m = na > nb ? na : nb;
      for (size_t i = 0; i < m; i++) {
         const struct cmp_prof_entry *ea = i < na ? &pa->e[i] : NULL;
         const struct cmp_prof_entry *eb = i < nb ? &pb->e[i] : NULL;
         if (ea && eb && !key_eq(ea, eb)) {
            d->d[n++] = (struct cmp_prof_dentry){ ea, NULL, 0 };
            ea = NULL;
         }
         d->d[n++] = (struct cmp_prof_dentry){ ea, eb, 0 };
      }
   }
   d->n = n;
   for (size_t i = 0; i < n; i++)
      if (d->d[i].ea && d->d[i].eb)
         d->d[i].verdict = cmp_prof_judge(d->d[i].ea->c[0], d->d[i].eb->c[0], min_effect);
   return true;
}

static bool
has_frame(const struct cmp_prof_file *f, int64_t id)
{
   for (size_t i = 0; i < f->nframes; i++)
      if (f->frames[i].frame == id)
         return true;
   return false;
}

/* "3 frames (3..5)" */
static void
frame_span(const struct cmp_prof_file *f, char *buf, size_t len)
{
   if (!f->nframes)
      snprintf(buf, len, "no frames");
   else
      snprintf(buf, len, "%zu frame%s (%lld..%lld)", f->nframes, f->nframes == 1 ? "" : "s",
               (long long)f->frames[0].frame, (long long)f->frames[f->nframes - 1].frame);
}

bool
cmp_prof_compare(const struct cmp_prof_file *a, const struct cmp_prof_file *b,
                 double min_effect, struct cmp_prof_result *r, char err[CMP_ERR_LEN])
{
   memset(r, 0, sizeof(*r));
   bool same = a->ncounters == b->ncounters;
   for (size_t k = 0; same && k < a->ncounters; k++)
      same = !strcmp(a->names[k], b->names[k]);
   if (!same) {
      snprintf(err, CMP_ERR_LEN, "the profiles list different counters (written by "
               "different tessera versions?)");
      return false;
   }
   same = a->nframes == b->nframes;
   for (size_t i = 0; same && i < a->nframes; i++)
      same = a->frames[i].frame == b->frames[i].frame;
   if (!same) {
      char la[64], lb[64], which[64] = "";
      frame_span(a, la, sizeof(la));
      frame_span(b, lb, sizeof(lb));
      for (size_t i = 0; !which[0] && i < a->nframes; i++)
         if (!has_frame(b, a->frames[i].frame))
            snprintf(which, sizeof(which), "; frame %lld is in A only",
                     (long long)a->frames[i].frame);
      for (size_t i = 0; !which[0] && i < b->nframes; i++)
         if (!has_frame(a, b->frames[i].frame))
            snprintf(which, sizeof(which), "; frame %lld is in B only",
                     (long long)b->frames[i].frame);
      snprintf(err, CMP_ERR_LEN, "frames differ: A has %s, B has %s%s (profile the same "
               "--frames)", la, lb, which);
      return false;
   }
   if (!a->nframes) {
      snprintf(err, CMP_ERR_LEN, "no frames to compare");
      return false;
   }
   r->min_effect = min_effect;
   r->ncounters = a->ncounters;
   r->names = a->names;
   r->nframes = a->nframes;
   r->total_a = calloc(a->ncounters, sizeof(uint64_t));
   r->total_b = calloc(a->ncounters, sizeof(uint64_t));
   r->frames = calloc(a->nframes, sizeof(*r->frames));
   if (!r->total_a || !r->total_b || !r->frames)
      goto oom;
   for (size_t i = 0; i < a->nframes; i++) {
      const struct cmp_prof_frame *fa = &a->frames[i], *fb = &b->frames[i];
      struct cmp_prof_dframe *df = &r->frames[i];
      df->fa = fa;
      df->fb = fb;
      df->verdict = cmp_prof_judge(fa->total[0], fb->total[0], min_effect);
      for (size_t k = 0; k < a->ncounters; k++) {
         r->total_a[k] += fa->total[k];
         r->total_b[k] += fb->total[k];
      }
      df->passes = calloc(fa->npasses + fb->npasses + 1, sizeof(*df->passes));
      if (!df->passes)
         goto oom;
      size_t m = fa->npasses > fb->npasses ? fa->npasses : fb->npasses;
      for (size_t k = 0; k < m; k++) {
         const struct cmp_prof_pass *pa = k < fa->npasses ? &fa->passes[k] : NULL;
         const struct cmp_prof_pass *pb = k < fb->npasses ? &fb->passes[k] : NULL;
         if (pa && pb && pa->compute != pb->compute) {
            df->passes[df->npasses++].pa = pa;
            r->removed += pa->n;
            pa = NULL;
         }
         struct cmp_prof_dpass *dp = &df->passes[df->npasses++];
         dp->pa = pa;
         dp->pb = pb;
         if (!pa || !pb) {
            r->removed += pa ? pa->n : 0;
            r->added += pb ? pb->n : 0;
            continue;
         }
         dp->verdict = cmp_prof_judge(pa->total[0], pb->total[0], min_effect);
         dp->overhead = (struct cmp_prof_dentry){
            &pa->overhead, &pb->overhead,
            cmp_prof_judge(pa->overhead.c[0], pb->overhead.c[0], min_effect) };
         if (!match_draws(pa, pb, dp, min_effect))
            goto oom;
         for (size_t j = 0; j < dp->n; j++) {
            r->removed += !dp->d[j].eb;
            r->added += !dp->d[j].ea;
         }
      }
   }
   r->verdict = cmp_prof_judge(r->total_a[0], r->total_b[0], min_effect);
   return true;
oom:
   cmp_prof_result_free(r);
   snprintf(err, CMP_ERR_LEN, "out of memory");
   return false;
}

void
cmp_prof_result_free(struct cmp_prof_result *r)
{
   for (size_t i = 0; r->frames && i < r->nframes; i++) {
      for (size_t k = 0; r->frames[i].passes && k < r->frames[i].npasses; k++)
         free(r->frames[i].passes[k].d);
      free(r->frames[i].passes);
   }
   free(r->frames);
   free(r->total_a);
   free(r->total_b);
   memset(r, 0, sizeof(*r));
}

static int
ref_cmp(const void *pa, const void *pb)
{
   const struct cmp_prof_ref *a = pa, *b = pb;
   int64_t ma = a->delta < 0 ? -a->delta : a->delta, mb = b->delta < 0 ? -b->delta : b->delta;
   if (ma != mb)
      return ma > mb ? -1 : 1;
   if (a->frame != b->frame)
      return a->frame < b->frame ? -1 : 1;
   if (a->pass != b->pass)
      return a->pass < b->pass ? -1 : 1;
   return a->draw < b->draw ? -1 : a->draw > b->draw;
}

struct cmp_prof_ref *
cmp_prof_top(const struct cmp_prof_result *r, unsigned top, int sign, size_t *n)
{
   *n = 0;
   size_t cap = 0;
   struct cmp_prof_ref *v = NULL;
   for (size_t f = 0; f < r->nframes; f++)
      for (size_t p = 0; p < r->frames[f].npasses; p++) {
         const struct cmp_prof_dpass *dp = &r->frames[f].passes[p];
         for (size_t j = 0; j < dp->n; j++) {
            if (!dp->d[j].ea || !dp->d[j].eb)
               continue;
            int64_t delta = (int64_t)dp->d[j].eb->c[0] - (int64_t)dp->d[j].ea->c[0];
            if (sign > 0 ? delta <= 0 : delta >= 0)
               continue;
            if (*n == cap) {
               struct cmp_prof_ref *nv = realloc(v, (cap = cap * 2 + 16) * sizeof(*v));
               if (!nv) {
                  free(v);
                  *n = 0;
                  return NULL;
               }
               v = nv;
            }
            v[(*n)++] = (struct cmp_prof_ref){ f, p, j, delta };
         }
      }
   if (v)
      qsort(v, *n, sizeof(*v), ref_cmp);
   if (*n > top)
      *n = top;
   if (!*n) {
      free(v);
      v = NULL;
   }
   return v;
}

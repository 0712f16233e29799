/* SPDX-License-Identifier: MIT */
/*
 * compare profile: text and JSON reports (docs/compare.md "Profiles").
 */
#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "compare/compare.h"

static int64_t
delta(uint64_t a, uint64_t b)
{
   return (int64_t)b - (int64_t)a;
}

/* "+12.34%", or "new" when A is 0 */
static const char *
pct(uint64_t a, uint64_t b, char *buf, size_t len)
{
   if (a)
      snprintf(buf, len, "%+.2f%%", 100.0 * ((double)b - (double)a) / (double)a);
   else
      snprintf(buf, len, b ? "new" : "+0.00%%");
   return buf;
}

static void
change_line(FILE *fp, uint64_t a, uint64_t b, enum cmp_prof_verdict v)
{
   char p[32];
   fprintf(fp, "%" PRIu64 " -> %" PRIu64 " cycles (%+" PRId64 ", %s): %s\n", a, b,
           delta(a, b), pct(a, b, p, sizeof(p)), cmp_prof_verdict_name(v));
}

/* The counters other than cycles that changed, on one indented line. */
static void
counter_changes(FILE *fp, const struct cmp_prof_result *r, const uint64_t *a, const uint64_t *b)
{
   bool any = false;
   for (size_t k = 1; k < r->ncounters; k++) {
      if (a[k] == b[k])
         continue;
      fprintf(fp, "%s%s %" PRIu64 " -> %" PRIu64 " (%+" PRId64 ")", any ? ", " : "        ",
              r->names[k], a[k], b[k], delta(a[k], b[k]));
      any = true;
   }
   if (any)
      fputc('\n', fp);
}

static void
entry_name(FILE *fp, bool compute, const struct cmp_prof_entry *e)
{
   if (compute)
      fprintf(fp, "dispatch %" PRId64 " (kernel 0x%" PRIx64 ")", e->index, e->vs);
   else
      fprintf(fp, "draw %" PRId64 " (vs 0x%" PRIx64 " fs 0x%" PRIx64 ")", e->index, e->vs,
              e->fs);
}

static void
pass_name(FILE *fp, const struct cmp_prof_pass *p)
{
   if (p->compute)
      fprintf(fp, "pass %" PRId64 " compute", p->index);
   else
      fprintf(fp, "pass %" PRId64 " render %ux%u", p->index, p->width, p->height);
}

static void
top_text(FILE *fp, const struct cmp_prof_result *r, unsigned top, int sign)
{
   size_t n;
   struct cmp_prof_ref *t = cmp_prof_top(r, top, sign, &n);
   fprintf(fp, "largest %s (cycles):%s\n", sign > 0 ? "regressions" : "improvements",
           n ? "" : " none");
   for (size_t i = 0; i < n; i++) {
      const struct cmp_prof_dframe *df = &r->frames[t[i].frame];
      const struct cmp_prof_dpass *dp = &df->passes[t[i].pass];
      const struct cmp_prof_dentry *d = &dp->d[t[i].draw];
      char p[32];
      fprintf(fp, "  %2zu. frame %" PRId64 " pass %" PRId64 " ", i + 1, df->fa->frame,
              dp->pa->index);
      entry_name(fp, dp->pa->compute, d->eb);
      fprintf(fp, ": %+" PRId64 " cycles (%s), %" PRIu64 " -> %" PRIu64 "\n", t[i].delta,
              pct(d->ea->c[0], d->eb->c[0], p, sizeof(p)), d->ea->c[0], d->eb->c[0]);
      counter_changes(fp, r, d->ea->c, d->eb->c);
   }
   free(t);
}

void
cmp_report_profile_text(FILE *fp, const struct cmp_prof_result *r, unsigned top,
                        const char *path_a, const char *path_b)
{
   fprintf(fp, "compare profile: A = %s, B = %s\n(modelled cycles, exact; a change of at "
           "least %.1f%% is called slower/faster)\n", path_a, path_b, 100 * r->min_effect);
   fprintf(fp, "total: ");
   change_line(fp, r->total_a[0], r->total_b[0], r->verdict);
   for (size_t f = 0; f < r->nframes; f++) {
      const struct cmp_prof_dframe *df = &r->frames[f];
      fprintf(fp, "frame %" PRId64 ": ", df->fa->frame);
      change_line(fp, df->fa->total[0], df->fb->total[0], df->verdict);
      for (size_t k = 0; k < df->npasses; k++) {
         const struct cmp_prof_dpass *dp = &df->passes[k];
         if (!dp->pa || !dp->pb) {
            const struct cmp_prof_pass *p = dp->pa ? dp->pa : dp->pb;
            fprintf(fp, "  %s ", dp->pa ? "removed" : "added");
            pass_name(fp, p);
            fprintf(fp, " (%s side only): %" PRIu64 " cycles, %zu %s\n", dp->pa ? "A" : "B",
                    p->total[0], p->n, p->compute ? "dispatches" : "draws");
            continue;
         }
         fputs("  ", fp);
         pass_name(fp, dp->pa);
         fputs(": ", fp);
         change_line(fp, dp->pa->total[0], dp->pb->total[0], dp->verdict);
         size_t same = 0;
         for (size_t j = 0; j < dp->n; j++) {
            const struct cmp_prof_dentry *d = &dp->d[j];
            if (d->ea && d->eb) {
               bool eq = !memcmp(d->ea->c, d->eb->c, r->ncounters * sizeof(uint64_t));
               if (eq) {
                  same++;
                  continue;
               }
               fputs("    ", fp);
               entry_name(fp, dp->pa->compute, d->eb);
               if (d->ea->index != d->eb->index)
                  fprintf(fp, " [A's %" PRId64 "]", d->ea->index);
               fputs(": ", fp);
               change_line(fp, d->ea->c[0], d->eb->c[0], d->verdict);
               counter_changes(fp, r, d->ea->c, d->eb->c);
            } else {
               const struct cmp_prof_entry *e = d->ea ? d->ea : d->eb;
               fprintf(fp, "    %s ", d->ea ? "removed" : "added");
               entry_name(fp, dp->pa->compute, e);
               fprintf(fp, " (%s side only): %" PRIu64 " cycles\n", d->ea ? "A" : "B",
                       e->c[0]);
            }
         }
         const struct cmp_prof_dentry *o = &dp->overhead;
         if (memcmp(o->ea->c, o->eb->c, r->ncounters * sizeof(uint64_t))) {
            fputs("    overhead: ", fp);
            change_line(fp, o->ea->c[0], o->eb->c[0], o->verdict);
            counter_changes(fp, r, o->ea->c, o->eb->c);
         }
         if (same)
            fprintf(fp, "    (%zu %s unchanged)\n", same,
                    dp->pa->compute ? "dispatches" : "draws");
      }
   }
   top_text(fp, r, top, 1);
   top_text(fp, r, top, -1);
   fprintf(fp, "unmatched: %zu added, %zu removed\n", r->added, r->removed);
   fprintf(fp, "verdict: %s\n", cmp_prof_verdict_name(r->verdict));
}

/* ---------------------------------------------------------------- JSON */

static json_t *
hex(uint64_t v)
{
   char b[24];
   snprintf(b, sizeof(b), "0x%" PRIx64, v);
   return json_string(b);
}

static json_t *
counters_pair(const struct cmp_prof_result *r, const uint64_t *a, const uint64_t *b)
{
   json_t *o = json_object();
   for (size_t k = 0; k < r->ncounters; k++) {
      json_t *c = json_object();
      json_object_set_new(c, "a", json_integer((json_int_t)a[k]));
      json_object_set_new(c, "b", json_integer((json_int_t)b[k]));
      json_object_set_new(c, "delta", json_integer(delta(a[k], b[k])));
      json_object_set_new(o, r->names[k], c);
   }
   return o;
}

static json_t *
counters_one(const struct cmp_prof_result *r, const uint64_t *a)
{
   json_t *o = json_object();
   for (size_t k = 0; k < r->ncounters; k++)
      json_object_set_new(o, r->names[k], json_integer((json_int_t)a[k]));
   return o;
}

static json_t *
ratio(uint64_t a, uint64_t b)
{
   return a ? json_real((double)b / (double)a) : json_null();
}

static json_t *
entry_json(const struct cmp_prof_result *r, bool compute, const struct cmp_prof_dentry *d)
{
   json_t *o = json_object();
   const struct cmp_prof_entry *e = d->eb ? d->eb : d->ea;
   json_object_set_new(o, "index_a", d->ea ? json_integer(d->ea->index) : json_null());
   json_object_set_new(o, "index_b", d->eb ? json_integer(d->eb->index) : json_null());
   if (compute) {
      json_object_set_new(o, "kernel", hex(e->vs));
   } else {
      json_object_set_new(o, "vs", hex(e->vs));
      json_object_set_new(o, "fs", hex(e->fs));
   }
   if (d->ea && d->eb) {
      json_object_set_new(o, "status", json_string("matched"));
      json_object_set_new(o, "ratio", ratio(d->ea->c[0], d->eb->c[0]));
      json_object_set_new(o, "verdict", json_string(cmp_prof_verdict_name(d->verdict)));
      json_object_set_new(o, "counters", counters_pair(r, d->ea->c, d->eb->c));
   } else {
      json_object_set_new(o, "status", json_string(d->ea ? "removed" : "added"));
      json_object_set_new(o, "counters", counters_one(r, e->c));
   }
   return o;
}

static json_t *
top_json(const struct cmp_prof_result *r, unsigned top, int sign)
{
   json_t *arr = json_array();
   size_t n;
   struct cmp_prof_ref *t = cmp_prof_top(r, top, sign, &n);
   for (size_t i = 0; i < n; i++) {
      const struct cmp_prof_dframe *df = &r->frames[t[i].frame];
      const struct cmp_prof_dpass *dp = &df->passes[t[i].pass];
      const struct cmp_prof_dentry *d = &dp->d[t[i].draw];
      json_t *o = json_object();
      json_object_set_new(o, "frame", json_integer(df->fa->frame));
      json_object_set_new(o, "pass", json_integer(dp->pa->index));
      json_object_set_new(o, dp->pa->compute ? "dispatch" : "draw", json_integer(d->eb->index));
      json_object_set_new(o, "index_a", json_integer(d->ea->index));
      json_object_set_new(o, "cycles_a", json_integer((json_int_t)d->ea->c[0]));
      json_object_set_new(o, "cycles_b", json_integer((json_int_t)d->eb->c[0]));
      json_object_set_new(o, "delta", json_integer(t[i].delta));
      json_object_set_new(o, "ratio", ratio(d->ea->c[0], d->eb->c[0]));
      if (dp->pa->compute) {
         json_object_set_new(o, "kernel", hex(d->eb->vs));
      } else {
         json_object_set_new(o, "vs", hex(d->eb->vs));
         json_object_set_new(o, "fs", hex(d->eb->fs));
      }
      json_array_append_new(arr, o);
   }
   free(t);
   return arr;
}

char *
cmp_report_profile_json(const struct cmp_prof_result *r, unsigned top, const char *path_a,
                        const char *path_b)
{
   json_t *root = json_object();
   json_object_set_new(root, "schema", json_string("tessera-compare-profile/1"));
   json_object_set_new(root, "a", json_string(path_a));
   json_object_set_new(root, "b", json_string(path_b));
   json_object_set_new(root, "min_effect", json_real(r->min_effect));
   json_t *total = json_object();
   json_object_set_new(total, "ratio", ratio(r->total_a[0], r->total_b[0]));
   json_object_set_new(total, "verdict", json_string(cmp_prof_verdict_name(r->verdict)));
   json_object_set_new(total, "counters", counters_pair(r, r->total_a, r->total_b));
   json_object_set_new(root, "total", total);
   json_t *frames = json_array();
   for (size_t f = 0; f < r->nframes; f++) {
      const struct cmp_prof_dframe *df = &r->frames[f];
      json_t *fo = json_object();
      json_object_set_new(fo, "frame", json_integer(df->fa->frame));
      json_object_set_new(fo, "ratio", ratio(df->fa->total[0], df->fb->total[0]));
      json_object_set_new(fo, "verdict", json_string(cmp_prof_verdict_name(df->verdict)));
      json_object_set_new(fo, "counters", counters_pair(r, df->fa->total, df->fb->total));
      json_t *passes = json_array();
      for (size_t k = 0; k < df->npasses; k++) {
         const struct cmp_prof_dpass *dp = &df->passes[k];
         const struct cmp_prof_pass *p = dp->pa ? dp->pa : dp->pb;
         json_t *po = json_object();
         json_object_set_new(po, "index", json_integer(p->index));
         json_object_set_new(po, "kind", json_string(p->compute ? "compute" : "render"));
         if (!dp->pa || !dp->pb) {
            json_object_set_new(po, "status", json_string(dp->pa ? "removed" : "added"));
            json_object_set_new(po, "counters", counters_one(r, p->total));
            json_array_append_new(passes, po);
            continue;
         }
         json_object_set_new(po, "status", json_string("matched"));
         json_object_set_new(po, "ratio", ratio(dp->pa->total[0], dp->pb->total[0]));
         json_object_set_new(po, "verdict", json_string(cmp_prof_verdict_name(dp->verdict)));
         json_object_set_new(po, "counters", counters_pair(r, dp->pa->total, dp->pb->total));
         json_object_set_new(po, "overhead",
                             counters_pair(r, dp->overhead.ea->c, dp->overhead.eb->c));
         json_t *draws = json_array();
         for (size_t j = 0; j < dp->n; j++)
            json_array_append_new(draws, entry_json(r, p->compute, &dp->d[j]));
         json_object_set_new(po, p->compute ? "dispatches" : "draws", draws);
         json_array_append_new(passes, po);
      }
      json_object_set_new(fo, "passes", passes);
      json_array_append_new(frames, fo);
   }
   json_object_set_new(root, "frames", frames);
   json_object_set_new(root, "regressions", top_json(r, top, 1));
   json_object_set_new(root, "improvements", top_json(r, top, -1));
   json_object_set_new(root, "added", json_integer((json_int_t)r->added));
   json_object_set_new(root, "removed", json_integer((json_int_t)r->removed));
   json_object_set_new(root, "verdict", json_string(cmp_prof_verdict_name(r->verdict)));
   char *s = json_dumps(root, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
   json_decref(root);
   return s;
}

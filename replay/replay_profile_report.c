/* SPDX-License-Identifier: MIT */
/*
 * replay_profile reports: text (frames -> passes -> draws, then the most
 * expensive draws) and JSON "tessera-profile/1" (docs/profiling.md).
 */
#include <inttypes.h>
#include <stdlib.h>

#include "hw/hw_device.h"
#include "replay/replay_profile.h"

/* A draw or dispatch, for the top list. */
struct top_ref {
   uint64_t cycles;
   unsigned frame, pass, entry;
};

static int
top_cmp(const void *a, const void *b)
{
   const struct top_ref *x = a, *y = b;
   if (x->cycles != y->cycles)
      return x->cycles > y->cycles ? -1 : 1;
   /* ties: earlier first (frame, pass, draw), so the order is total */
   if (x->frame != y->frame)
      return x->frame < y->frame ? -1 : 1;
   if (x->pass != y->pass)
      return x->pass < y->pass ? -1 : 1;
   return x->entry < y->entry ? -1 : x->entry > y->entry;
}

/* The `top` largest entries over the whole profile; *n receives how many. */
static struct top_ref *
top_list(const struct replay_profile *p, unsigned top, unsigned *n)
{
   size_t total = 0;
   for (unsigned f = 0; f < p->nframes; f++)
      for (unsigned k = 0; k < p->frames[f].npasses; k++)
         total += p->frames[f].passes[k].p.n;
   struct top_ref *v = malloc((total ? total : 1) * sizeof(*v));
   *n = 0;
   if (!v)
      return NULL;
   size_t m = 0;
   for (unsigned f = 0; f < p->nframes; f++)
      for (unsigned k = 0; k < p->frames[f].npasses; k++) {
         const struct hw_prof_pass *ps = &p->frames[f].passes[k].p;
         for (unsigned i = 0; i < ps->n; i++)
            v[m++] = (struct top_ref){ ps->entries[i].c[HW_PROF_CYCLES], f, k, i };
      }
   qsort(v, m, sizeof(*v), top_cmp);
   *n = m < top ? (unsigned)m : top;
   return v;
}

static double
us(uint64_t cycles)
{
   return (double)cycles * 1e6 / (double)HW_CORE_CLOCK_HZ;
}

static uint64_t
cycles_ns(uint64_t cycles)
{
   return (uint64_t)((unsigned __int128)cycles * 1000000000ull / HW_CORE_CLOCK_HZ);
}

/* What the capture timestamped for a frame's passes: their sum and how
 * many passes were recorded. */
static uint64_t
frame_measured(const struct replay_profile_frame *fr, unsigned *n)
{
   uint64_t ns = 0;
   *n = 0;
   for (unsigned k = 0; k < fr->npasses; k++)
      if (fr->passes[k].measured.pass) {
         ns += fr->passes[k].measured.ns;
         (*n)++;
      }
   return ns;
}

/* Who stamped the measured figures, for the reports' headers. */
static const char *
measured_by(const struct replay_profile *p)
{
   switch (p->source) {
   case REPLAY_SOURCE_MODEL:
      return "the model's firmware (the trace was captured on the GPU model)";
   case REPLAY_SOURCE_HARDWARE:
      return "the capturing machine's GPU firmware (real hardware)";
   default:
      return "the capturing machine's firmware (the trace names no driver)";
   }
}

/* ", measured 54.2 us (vertex start to fragment end)" or "not recorded" */
static void
text_measured(FILE *f, const struct replay_profile_measured *m)
{
   if (!m->pass) {
      fprintf(f, "    measured: not recorded (the command asked for no timestamps)\n");
      return;
   }
   fprintf(f, "    measured: %.1f us (%s)", (double)m->ns / 1e3, m->span);
   if (m->vertex)
      fprintf(f, ", vertex %.1f us", (double)m->vertex_ns / 1e3);
   if (m->fragment)
      fprintf(f, ", fragment %.1f us", (double)m->fragment_ns / 1e3);
   fputc('\n', f);
}

static double
pct(uint64_t part, uint64_t whole)
{
   return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* The entry's texture fetches per format, ascending keys, then "other"
 * (the formats past the kept ones) when any: q name q sep count, ... */
static void
tex_formats(FILE *f, const struct hw_prof_entry *e, const char *q, const char *sep,
            const char *comma)
{
   char name[64];
   uint64_t kept = 0;
   unsigned i = 0;
   for (; i < HW_PROF_TEX_FORMATS && e->tex[i].key; i++) {
      fprintf(f, "%s%s%s%s%" PRIu64, i ? comma : "", q,
              hw_prof_tex_format_name(e->tex[i].key, name, sizeof(name)), sep, e->tex[i].n);
      kept += e->tex[i].n;
   }
   if (e->c[HW_PROF_TEX_FETCHES] > kept)
      fprintf(f, "%s%sother%s%" PRIu64, i ? comma : "", q, sep,
              e->c[HW_PROF_TEX_FETCHES] - kept);
}

static void
text_render_row(FILE *f, const char *label, const struct hw_prof_entry *e, uint64_t pass_cycles)
{
   const uint64_t *c = e->c;
   fprintf(f, "    %-8s %10" PRIu64 " %5.1f %9" PRIu64 " %9" PRIu64 " %7" PRIu64 " %7" PRIu64
           " %6" PRIu64 " %7" PRIu64 " %8" PRIu64 " %8" PRIu64 " %7" PRIu64 " %7" PRIu64
           " %9" PRIu64 " %9" PRIu64,
           label, c[HW_PROF_CYCLES], pct(c[HW_PROF_CYCLES], pass_cycles),
           c[HW_PROF_VERTEX_CYCLES], c[HW_PROF_FRAGMENT_CYCLES], c[HW_PROF_VERTICES],
           c[HW_PROF_PRIMS_IN], c[HW_PROF_PRIMS_CULLED], c[HW_PROF_PRIMS_BINNED],
           c[HW_PROF_FRAGMENTS], c[HW_PROF_SAMPLES_ZS_FAIL], c[HW_PROF_SAMPLES_HSR_HIDDEN],
           c[HW_PROF_TEX_FETCHES], c[HW_PROF_TB_STORES], c[HW_PROF_FS_INSTRUCTIONS]);
   if (e->vs || e->fs)
      fprintf(f, "  vs 0x%" PRIx64 " fs 0x%" PRIx64, e->vs, e->fs);
   fputc('\n', f);
}

static void
text_compute_row(FILE *f, const char *label, const struct hw_prof_entry *e, uint64_t pass_cycles)
{
   const uint64_t *c = e->c;
   fprintf(f, "    %-8s %10" PRIu64 " %5.1f %12" PRIu64 " %12" PRIu64 " %12" PRIu64
           " %9" PRIu64, label, c[HW_PROF_CYCLES], pct(c[HW_PROF_CYCLES], pass_cycles),
           c[HW_PROF_THREADGROUPS], c[HW_PROF_INVOCATIONS], c[HW_PROF_CS_INSTRUCTIONS],
           c[HW_PROF_TEX_FETCHES]);
   if (e->vs)
      fprintf(f, "  kernel 0x%" PRIx64, e->vs);
   fputc('\n', f);
}

void
replay_profile_print_text(FILE *f, const struct replay_profile *p, unsigned top)
{
   fprintf(f, "%s: %u frame%s; modelled GPU time in cycles at %.3f GHz (us in brackets); "
           "measured: the trace's per-pass timestamps, stamped by %s\n",
           p->trace, p->nframes, p->nframes == 1 ? "" : "s",
           (double)HW_CORE_CLOCK_HZ / 1e9, measured_by(p));
   for (unsigned fi = 0; fi < p->nframes; fi++) {
      const struct replay_profile_frame *fr = &p->frames[fi];
      unsigned nm;
      uint64_t mns = frame_measured(fr, &nm);
      fprintf(f, "\nframe %u: %u submission%s, %u pass%s, modelled %" PRIu64
              " cycles (%.1f us), timestamps %.1f us", fr->frame, fr->submissions,
              fr->submissions == 1 ? "" : "s", fr->npasses, fr->npasses == 1 ? "" : "es",
              fr->total[HW_PROF_CYCLES], us(fr->total[HW_PROF_CYCLES]),
              (double)fr->gpu_ns / 1e3);
      if (nm)
         fprintf(f, ", measured %.1f us (%u of %u passes recorded)\n", (double)mns / 1e3, nm,
                 fr->npasses);
      else
         fprintf(f, ", measured: not recorded\n");
      for (unsigned k = 0; k < fr->npasses; k++) {
         const struct hw_prof_pass *ps = &fr->passes[k].p;
         uint64_t cyc = ps->total[HW_PROF_CYCLES];
         char label[16];
         if (ps->kind == HW_PROF_RENDER) {
            fprintf(f, "  pass %u: render %ux%u %ux, submission %u, %u draw%s, %" PRIu64
                    " cycles (%.1f us, %.1f%% of the frame), %u partial render%s\n",
                    k, ps->width, ps->height, ps->samples, fr->passes[k].seq, ps->n,
                    ps->n == 1 ? "" : "s", cyc, us(cyc), pct(cyc, fr->total[HW_PROF_CYCLES]),
                    ps->partial_renders, ps->partial_renders == 1 ? "" : "s");
            text_measured(f, &fr->passes[k].measured);
            fprintf(f, "    %-8s %10s %5s %9s %9s %7s %7s %6s %7s %8s %8s %7s %7s %9s %9s\n",
                    "draw", "cycles", "%", "vtx_cyc", "frag_cyc", "verts", "prims", "culled",
                    "binned", "frags", "zs_fail", "hsr", "tex", "tb_st", "fs_insn");
            for (unsigned i = 0; i < ps->n; i++) {
               snprintf(label, sizeof(label), "%u", i);
               text_render_row(f, label, &ps->entries[i], cyc);
            }
            text_render_row(f, "overhead", &ps->overhead, cyc);
         } else {
            fprintf(f, "  pass %u: compute, submission %u, %u dispatch%s, %" PRIu64
                    " cycles (%.1f us, %.1f%% of the frame)\n", k, fr->passes[k].seq, ps->n,
                    ps->n == 1 ? "" : "es", cyc, us(cyc), pct(cyc, fr->total[HW_PROF_CYCLES]));
            text_measured(f, &fr->passes[k].measured);
            fprintf(f, "    %-8s %10s %5s %12s %12s %12s %9s\n", "dispatch", "cycles", "%",
                    "groups", "threads", "cs_insn", "tex");
            for (unsigned i = 0; i < ps->n; i++) {
               snprintf(label, sizeof(label), "%u", i);
               text_compute_row(f, label, &ps->entries[i], cyc);
            }
            text_compute_row(f, "overhead", &ps->overhead, cyc);
         }
      }
   }
   unsigned n;
   struct top_ref *t = top_list(p, top, &n);
   if (n)
      fprintf(f, "\nmost expensive draws and dispatches:\n");
   for (unsigned i = 0; t && i < n; i++) {
      const struct replay_profile_frame *fr = &p->frames[t[i].frame];
      const struct hw_prof_pass *ps = &fr->passes[t[i].pass].p;
      const struct hw_prof_entry *e = &ps->entries[t[i].entry];
      if (ps->kind == HW_PROF_RENDER) {
         fprintf(f, "  %2u. frame %u pass %u draw %u: %" PRIu64 " cycles (%.1f us, %.1f%% of "
                 "the pass), fs 0x%" PRIx64 " vs 0x%" PRIx64 ", %" PRIu64 " fragments, %" PRIu64
                 " fs instructions, %" PRIu64 " vertices\n", i + 1, fr->frame, t[i].pass,
                 t[i].entry, e->c[HW_PROF_CYCLES], us(e->c[HW_PROF_CYCLES]),
                 pct(e->c[HW_PROF_CYCLES], ps->total[HW_PROF_CYCLES]), e->fs, e->vs,
                 e->c[HW_PROF_FRAGMENTS], e->c[HW_PROF_FS_INSTRUCTIONS], e->c[HW_PROF_VERTICES]);
         /* what the texture unit did for it: filters, then formats */
         if (e->c[HW_PROF_TEX_FETCHES]) {
            fprintf(f, "      %" PRIu64 " texture fetches:", e->c[HW_PROF_TEX_FETCHES]);
            for (unsigned k = HW_PROF_TEX_LOADS; k <= HW_PROF_TEX_LINEAR_MIPMAP_LINEAR; k++)
               if (e->c[k])   /* "tex_linear" -> "linear" */
                  fprintf(f, " %s %" PRIu64, hw_prof_counter_name(k) + 4, e->c[k]);
            fprintf(f, "; ");
            tex_formats(f, e, "", " ", ", ");
            fputc('\n', f);
         }
      } else {
         fprintf(f, "  %2u. frame %u pass %u dispatch %u: %" PRIu64 " cycles (%.1f us, %.1f%% of "
                 "the pass), kernel 0x%" PRIx64 ", %" PRIu64 " threads\n", i + 1, fr->frame,
                 t[i].pass, t[i].entry, e->c[HW_PROF_CYCLES], us(e->c[HW_PROF_CYCLES]),
                 pct(e->c[HW_PROF_CYCLES], ps->total[HW_PROF_CYCLES]), e->vs,
                 e->c[HW_PROF_INVOCATIONS]);
      }
   }
   free(t);
}

/* ---------------------------------------------------------------- JSON */

static void
json_str(FILE *f, const char *s)
{
   fputc('"', f);
   for (; *s; s++) {
      unsigned char ch = (unsigned char)*s;
      if (ch == '"' || ch == '\\')
         fprintf(f, "\\%c", ch);
      else if (ch < 0x20)
         fprintf(f, "\\u%04x", ch);
      else
         fputc(ch, f);
   }
   fputc('"', f);
}

/* A number, or null when not recorded. */
static void
json_opt(FILE *f, bool ok, uint64_t v)
{
   if (ok)
      fprintf(f, "%" PRIu64, v);
   else
      fprintf(f, "null");
}

static void
json_counters(FILE *f, const uint64_t *c)
{
   fputc('{', f);
   for (unsigned k = 0; k < HW_PROF_NUM; k++)
      fprintf(f, "%s\"%s\": %" PRIu64, k ? ", " : "", hw_prof_counter_name(k), c[k]);
   fputc('}', f);
}

static void
json_entry(FILE *f, const struct hw_prof_entry *e, bool render, int index)
{
   fprintf(f, "{");
   if (index >= 0)
      fprintf(f, "\"index\": %d, ", index);
   if (render)
      fprintf(f, "\"vdm\": \"0x%" PRIx64 "\", \"vs\": \"0x%" PRIx64 "\", \"fs\": \"0x%" PRIx64
              "\", \"count\": %u, \"instances\": %u, ", e->addr, e->vs, e->fs, e->count,
              e->instances);
   else
      fprintf(f, "\"cdm\": \"0x%" PRIx64 "\", \"kernel\": \"0x%" PRIx64 "\", ", e->addr, e->vs);
   fprintf(f, "\"counters\": ");
   json_counters(f, e->c);
   if (render) {
      fprintf(f, ", \"tex_formats\": {");
      tex_formats(f, e, "\"", "\": ", ", ");
      fprintf(f, "}");
   }
   fprintf(f, "}");
}

void
replay_profile_print_json(FILE *f, const struct replay_profile *p, unsigned top)
{
   fprintf(f, "{\"schema\": \"tessera-profile/1\",\n \"meta\": {\"tool\": \"tessera profile\", "
           "\"trace\": ");
   json_str(f, p->trace);
   fprintf(f, ", \"device\": \"model\", \"clock_hz\": %llu, \"measured_source\": \"%s\", "
           "\"timestamp_hz\": %" PRIu64 ", \"counters\": [",
           (unsigned long long)HW_CORE_CLOCK_HZ, replay_profile_source_name(p->source),
           p->timestamp_hz);
   for (unsigned k = 0; k < HW_PROF_NUM; k++)
      fprintf(f, "%s\"%s\"", k ? ", " : "", hw_prof_counter_name(k));
   fprintf(f, "]},\n \"frames\": [");
   for (unsigned fi = 0; fi < p->nframes; fi++) {
      const struct replay_profile_frame *fr = &p->frames[fi];
      fprintf(f, "%s\n  {\"frame\": %u, \"submissions\": %u, \"gpu_ns\": %" PRIu64
              ", \"cycles\": %" PRIu64 ", ", fi ? "," : "", fr->frame,
              fr->submissions, fr->gpu_ns, fr->total[HW_PROF_CYCLES]);
      unsigned nm;
      uint64_t mns = frame_measured(fr, &nm);
      fprintf(f, "\"modelled_ns\": %" PRIu64 ", \"measured_passes\": %u, \"measured_ns\": ",
              cycles_ns(fr->total[HW_PROF_CYCLES]), nm);
      json_opt(f, nm > 0, mns);
      fprintf(f, ", \"counters\": ");
      json_counters(f, fr->total);
      fprintf(f, ", \"passes\": [");
      for (unsigned k = 0; k < fr->npasses; k++) {
         const struct hw_prof_pass *ps = &fr->passes[k].p;
         bool render = ps->kind == HW_PROF_RENDER;
         fprintf(f, "%s\n   {\"index\": %u, \"submission\": %u, \"kind\": \"%s\", "
                 "\"vm_slot\": %u, ", k ? "," : "", k, fr->passes[k].seq,
                 render ? "render" : "compute", ps->vm_slot);
         if (render)
            fprintf(f, "\"width\": %u, \"height\": %u, \"samples\": %u, "
                    "\"partial_renders\": %u, ", ps->width, ps->height, ps->samples,
                    ps->partial_renders);
         const struct replay_profile_measured *ms = &fr->passes[k].measured;
         fprintf(f, "\"cycles\": %" PRIu64 ", \"modelled_ns\": %" PRIu64 ", \"measured_ns\": ",
                 ps->total[HW_PROF_CYCLES], cycles_ns(ps->total[HW_PROF_CYCLES]));
         json_opt(f, ms->pass, ms->ns);
         fprintf(f, ", \"measured_span\": ");
         if (ms->pass)
            json_str(f, ms->span);
         else
            fprintf(f, "null");
         if (render) {
            fprintf(f, ", \"measured_vertex_ns\": ");
            json_opt(f, ms->vertex, ms->vertex_ns);
            fprintf(f, ", \"measured_fragment_ns\": ");
            json_opt(f, ms->fragment, ms->fragment_ns);
         }
         fprintf(f, ", \"counters\": ");
         json_counters(f, ps->total);
         fprintf(f, ",\n    \"overhead\": ");
         json_entry(f, &ps->overhead, render, -1);
         fprintf(f, ",\n    \"%s\": [", render ? "draws" : "dispatches");
         for (unsigned i = 0; i < ps->n; i++) {
            fprintf(f, "%s\n     ", i ? "," : "");
            json_entry(f, &ps->entries[i], render, (int)i);
         }
         fprintf(f, "]}");
      }
      fprintf(f, "]}");
   }
   fprintf(f, "],\n \"top\": [");
   unsigned n;
   struct top_ref *t = top_list(p, top, &n);
   for (unsigned i = 0; t && i < n; i++) {
      const struct replay_profile_frame *fr = &p->frames[t[i].frame];
      const struct hw_prof_pass *ps = &fr->passes[t[i].pass].p;
      const struct hw_prof_entry *e = &ps->entries[t[i].entry];
      fprintf(f, "%s\n  {\"frame\": %u, \"pass\": %u, \"%s\": %u, \"cycles\": %" PRIu64
              ", \"vs\": \"0x%" PRIx64 "\", \"fs\": \"0x%" PRIx64 "\"}", i ? "," : "",
              fr->frame, t[i].pass, ps->kind == HW_PROF_RENDER ? "draw" : "dispatch",
              t[i].entry, t[i].cycles, e->vs, e->fs);
   }
   free(t);
   fprintf(f, "]}\n");
}

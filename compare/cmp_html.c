/* SPDX-License-Identifier: MIT */
/*
 * HTML reports: one self-contained page per comparison (images inlined as
 * data: URIs, plots as inline SVG, no script), so a CI artifact can be
 * opened anywhere, offline, without a server.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare/compare.h"

static const char style[] =
   "body{font:14px/1.4 system-ui,sans-serif;margin:24px;background:#f4f5f7;"
   "color:#1d232a}\n"
   "h1{font-size:22px;margin:0 0 4px}h2{font-size:16px;margin:0}\n"
   ".sub{color:#5a6572;margin-bottom:16px}\n"
   ".card{background:#fff;border-radius:8px;box-shadow:0 1px 3px #0002;"
   "padding:14px 16px;margin:0 0 16px}\n"
   ".head{display:flex;gap:10px;align-items:center;margin-bottom:8px}\n"
   ".badge{font-weight:600;font-size:12px;padding:2px 8px;border-radius:10px;"
   "color:#fff}\n"
   ".pass{background:#2e7d32}.fail{background:#c62828}.error{background:#6a1b9a}"
   ".same{background:#607d8b}.faster{background:#2e7d32}.slower{background:#c62828}\n"
   ".msg{color:#c62828;margin:4px 0 8px}\n"
   ".imgs{display:grid;grid-template-columns:repeat(3,1fr);gap:12px}\n"
   "figure{margin:0}figcaption{font-size:12px;color:#5a6572;margin-bottom:4px}\n"
   "figure img{width:100%;image-rendering:pixelated;border:1px solid #d0d4d9;"
   "background:repeating-conic-gradient(#ddd 0 25%,#fff 0 50%) 0 0/16px 16px}\n"
   "table{border-collapse:collapse;font-size:13px}"
   "td,th{padding:3px 10px;text-align:right;border-bottom:1px solid #eceff1}"
   "th{color:#5a6572;font-weight:600}td:first-child,th:first-child"
   "{text-align:left}\n"
   ".metrics td{text-align:left}\n"
   "svg text{font:11px system-ui,sans-serif;fill:#5a6572}\n"
   ".summary{display:flex;gap:24px;flex-wrap:wrap}"
   ".summary div b{display:block;font-size:20px;color:#1d232a}\n";

static void
esc(FILE *fp, const char *s)
{
   for (; s && *s; s++) {
      switch (*s) {
      case '<': fputs("&lt;", fp); break;
      case '>': fputs("&gt;", fp); break;
      case '&': fputs("&amp;", fp); break;
      case '"': fputs("&quot;", fp); break;
      default: fputc(*s, fp);
      }
   }
}

static void
base64(FILE *fp, const uint8_t *d, size_t n)
{
   static const char tab[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
   size_t i = 0;
   for (; i + 3 <= n; i += 3) {
      uint32_t v = (uint32_t)d[i] << 16 | (uint32_t)d[i + 1] << 8 | d[i + 2];
      fputc(tab[v >> 18], fp);
      fputc(tab[(v >> 12) & 63], fp);
      fputc(tab[(v >> 6) & 63], fp);
      fputc(tab[v & 63], fp);
   }
   if (n - i == 1) {
      uint32_t v = (uint32_t)d[i] << 16;
      fprintf(fp, "%c%c==", tab[v >> 18], tab[(v >> 12) & 63]);
   } else if (n - i == 2) {
      uint32_t v = (uint32_t)d[i] << 16 | (uint32_t)d[i + 1] << 8;
      fprintf(fp, "%c%c%c=", tab[v >> 18], tab[(v >> 12) & 63],
              tab[(v >> 6) & 63]);
   }
}

static FILE *
open_page(const char *dir, const char *title, char *err)
{
   if (!cmp_mkdir_p(dir, err))
      return NULL;
   char path[4096];
   snprintf(path, sizeof(path), "%s/index.html", dir);
   FILE *fp = fopen(path, "w");
   if (!fp) {
      snprintf(err, CMP_ERR_LEN, "cannot create '%.160s/index.html': %s", dir,
               strerror(errno));
      return NULL;
   }
   fprintf(fp, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
               "<title>");
   esc(fp, title);
   fprintf(fp, "</title>\n<style>\n%s</style></head><body>\n", style);
   return fp;
}

static bool
close_page(FILE *fp, const char *dir, char *err)
{
   fputs("</body></html>\n", fp);
   bool ok = !ferror(fp);
   ok = fclose(fp) == 0 && ok;
   if (!ok)
      snprintf(err, CMP_ERR_LEN, "cannot write '%s/index.html'", dir);
   return ok;
}

static void
figure(FILE *fp, const char *caption, const uint8_t *png, size_t size)
{
   fprintf(fp, "<figure><figcaption>%s</figcaption>", caption);
   if (png) {
      fputs("<img alt=\"\" src=\"data:image/png;base64,", fp);
      base64(fp, png, size);
      fputs("\">", fp);
   } else {
      fputs("<div class=\"msg\">not available</div>", fp);
   }
   fputs("</figure>", fp);
}

bool
cmp_html_images(const char *dir, const struct cmp_image_entry *e, size_t n,
                const struct cmp_image_thresholds *t, char err[CMP_ERR_LEN])
{
   FILE *fp = open_page(dir, "tessera compare: images", err);
   if (!fp)
      return false;
   size_t c[3] = {0};
   for (size_t i = 0; i < n; i++)
      c[e[i].error ? 2 : e[i].res.pass && !e[i].res.size_mismatch ? 0 : 1]++;
   fprintf(fp, "<h1>Image comparison</h1><div class=\"sub\">tolerance %u per "
               "channel &middot; reference on the left, actual in the middle, "
               "differences on the right (red: above tolerance, yellow: "
               "below)</div>\n", t->tolerance);
   fprintf(fp, "<div class=\"card summary\"><div><b>%zu</b>images</div>"
               "<div><b style=\"color:#2e7d32\">%zu</b>passed</div>"
               "<div><b style=\"color:#c62828\">%zu</b>failed</div>"
               "<div><b style=\"color:#6a1b9a\">%zu</b>errors</div></div>\n",
           n, c[0], c[1], c[2]);
   for (size_t i = 0; i < n; i++) {
      const struct cmp_image_entry *x = &e[i];
      const struct cmp_image_result *r = &x->res;
      const char *st = x->error ? "error"
                       : r->pass && !r->size_mismatch ? "pass" : "fail";
      fprintf(fp, "<div class=\"card\"><div class=\"head\">"
                  "<span class=\"badge %s\">%s</span><h2>", st, st);
      esc(fp, *x->name ? x->name : x->path_a);
      fputs("</h2></div>\n", fp);
      if (x->error || r->size_mismatch || !r->pass) {
         fputs("<div class=\"msg\">", fp);
         esc(fp, x->error ? x->error_msg : r->reason);
         fputs("</div>\n", fp);
      }
      if (x->error) {
         fputs("</div>\n", fp);
         continue;
      }
      if (!r->size_mismatch) {
         char psnr[32];
         if (isinf(r->psnr))
            snprintf(psnr, sizeof(psnr), "&infin; (identical)");
         else
            snprintf(psnr, sizeof(psnr), "%.2f dB", r->psnr);
         fprintf(fp, "<table class=\"metrics\"><tr><th>size</th><td>%ux%u, "
                     "%u-bit, %u channels compared</td></tr>"
                     "<tr><th>max channel difference</th><td>%u</td></tr>"
                     "<tr><th>pixels above tolerance</th><td>%llu (%.4f%%)"
                     "</td></tr>",
                 x->wa, x->ha, r->depth, r->channels, r->max_diff,
                 (unsigned long long)r->diff_pixels, 100 * r->diff_fraction);
         if (r->has_bbox)
            fprintf(fp, "<tr><th>bounding box</th><td>(%u, %u) &ndash; "
                        "(%u, %u)</td></tr>",
                    r->bbox_x0, r->bbox_y0, r->bbox_x1, r->bbox_y1);
         fprintf(fp, "<tr><th>PSNR</th><td>%s</td></tr><tr><th>SSIM</th>"
                     "<td>%.5f</td></tr></table><br>\n", psnr, r->ssim);
      }
      fputs("<div class=\"imgs\">", fp);
      char cap[96];
      snprintf(cap, sizeof(cap), "reference (%ux%u)", x->wa, x->ha);
      figure(fp, cap, x->png_a, x->png_a_size);
      snprintf(cap, sizeof(cap), "actual (%ux%u)", x->wb, x->hb);
      figure(fp, cap, x->png_b, x->png_b_size);
      figure(fp, "difference", x->png_diff, x->png_diff_size);
      fputs("</div></div>\n", fp);
   }
   return close_page(fp, dir, err);
}

/* ----------------------------------------------------------- timing plots */

#define PW 1000.0 /* plot width in SVG units */
#define PH 260.0
#define ML 70.0   /* left margin for the axis labels */
#define MB 28.0

static const char col_a[] = "#1e88e5", col_b[] = "#e53935";

static double
nice_step(double range)
{
   double raw = range / 5, mag = pow(10, floor(log10(raw)));
   double f = raw / mag;
   return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * mag;
}

/* Horizontal grid lines and labels (values in ms) for [lo, hi]. */
static void
y_axis(FILE *fp, double lo, double hi, double top, double h)
{
   double step = nice_step(hi - lo);
   for (double v = ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) {
      double y = top + h - (v - lo) / (hi - lo) * h;
      fprintf(fp, "<line x1=\"%g\" x2=\"%g\" y1=\"%.1f\" y2=\"%.1f\" "
                  "stroke=\"#eceff1\"/><text x=\"%g\" y=\"%.1f\" "
                  "text-anchor=\"end\">%.4g ms</text>\n",
              ML, PW, y, y, ML - 6, y + 4, v / 1e6);
   }
}

static void
range_of(const struct cmp_timing_result *r, double *lo, double *hi)
{
   *lo = INFINITY;
   *hi = -INFINITY;
   for (size_t i = 0; i < r->nframes; i++) {
      const struct cmp_timing_stat *s = &r->frames[i];
      double v[2] = {s->med_a, s->med_b};
      for (int k = 0; k < 2; k++) {
         if (isfinite(v[k])) {
            *lo = fmin(*lo, v[k]);
            *hi = fmax(*hi, v[k]);
         }
      }
   }
}

static void
pad_range(double *lo, double *hi)
{
   if (!isfinite(*lo)) {
      *lo = 0;
      *hi = 1;
   }
   double pad = (*hi - *lo) * 0.08;
   if (pad <= 0)
      pad = fabs(*hi) * 0.05 + 1;
   *lo = fmax(0, *lo - pad);
   *hi += pad;
}

static void
frame_plot(FILE *fp, const struct cmp_timing_result *r)
{
   double lo, hi;
   range_of(r, &lo, &hi);
   pad_range(&lo, &hi);
   double h = PH - MB - 10, w = PW - ML - 10;
   fprintf(fp, "<svg viewBox=\"0 0 %g %g\" width=\"100%%\" role=\"img\">\n",
           PW, PH);
   y_axis(fp, lo, hi, 10, h);
   size_t n = r->nframes;
   for (int side = 0; side < 2; side++) {
      fprintf(fp, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.8\" "
                  "points=\"", side ? col_b : col_a);
      for (size_t i = 0; i < n; i++) {
         double v = side ? r->frames[i].med_b : r->frames[i].med_a;
         if (!isfinite(v))
            continue;
         double x = ML + (n > 1 ? (double)i / (double)(n - 1) : 0.5) * w;
         double y = 10 + h - (v - lo) / (hi - lo) * h;
         fprintf(fp, "%.1f,%.1f ", x, y);
      }
      fputs("\"/>\n", fp);
   }
   /* Frames judged slower/faster get a marker on the B line. */
   for (size_t i = 0; i < n; i++) {
      const struct cmp_timing_stat *s = &r->frames[i];
      if (s->verdict != CMP_SLOWER && s->verdict != CMP_FASTER)
         continue;
      double x = ML + (n > 1 ? (double)i / (double)(n - 1) : 0.5) * w;
      double y = 10 + h - (s->med_b - lo) / (hi - lo) * h;
      fprintf(fp, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"/>\n",
              x, y, s->verdict == CMP_SLOWER ? col_b : "#2e7d32");
   }
   fprintf(fp, "<text x=\"%g\" y=\"%g\">frame %lld</text>"
               "<text x=\"%g\" y=\"%g\" text-anchor=\"end\">frame %lld</text>\n",
           ML, PH - 8, (long long)r->frames[0].id, PW - 10, PH - 8,
           (long long)r->frames[n - 1].id);
   fprintf(fp, "<rect x=\"%g\" y=\"%g\" width=\"12\" height=\"3\" fill=\"%s\"/>"
               "<text x=\"%g\" y=\"%g\">A (reference)</text>"
               "<rect x=\"%g\" y=\"%g\" width=\"12\" height=\"3\" fill=\"%s\"/>"
               "<text x=\"%g\" y=\"%g\">B (actual)</text></svg>\n",
           PW / 2 - 110, PH - 12, col_a, PW / 2 - 94, PH - 8, PW / 2 + 10,
           PH - 12, col_b, PW / 2 + 26, PH - 8);
}

/* One row of the distribution plot: box from the quartiles, a line at the
 * median, every run as a dot (jittered deterministically by index). */
static void
dist_row(FILE *fp, const double *x, size_t n, double lo, double hi, double yc,
         const char *col, const char *label)
{
   double w = PW - ML - 10;
   double *s = malloc((n ? n : 1) * sizeof(*s));
   if (!s)
      return;
   memcpy(s, x, n * sizeof(*s));
   double q1 = NAN, q2 = NAN, q3 = NAN;
   if (n) {
      /* sorted copy for the quartiles */
      for (size_t i = 1; i < n; i++)
         for (size_t j = i; j > 0 && s[j - 1] > s[j]; j--) {
            double t = s[j];
            s[j] = s[j - 1];
            s[j - 1] = t;
         }
      q1 = cmp_quantile_sorted(s, n, 0.25);
      q2 = cmp_quantile_sorted(s, n, 0.5);
      q3 = cmp_quantile_sorted(s, n, 0.75);
   }
#define XP(v) (ML + ((v) - lo) / (hi - lo) * w)
   fprintf(fp, "<text x=\"%g\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
           ML - 6, yc + 4, label);
   if (n) {
      fprintf(fp, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"36\" "
                  "fill=\"%s\" fill-opacity=\"0.15\" stroke=\"%s\"/>"
                  "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" "
                  "stroke=\"%s\" stroke-width=\"3\"/>\n",
              XP(q1), yc - 18, fmax(1, XP(q3) - XP(q1)), col, col, XP(q2),
              XP(q2), yc - 18, yc + 18, col);
   }
   for (size_t i = 0; i < n; i++) {
      double jitter = ((double)((i * 37) % 17) / 16.0 - 0.5) * 26;
      fprintf(fp, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\" "
                  "fill-opacity=\"0.7\"/>\n",
              XP(x[i]), yc + jitter, col);
   }
#undef XP
   free(s);
}

static void
dist_plot(FILE *fp, const struct cmp_timing_stat *t)
{
   double lo = INFINITY, hi = -INFINITY;
   for (size_t i = 0; i < t->na; i++) {
      lo = fmin(lo, t->sa[i]);
      hi = fmax(hi, t->sa[i]);
   }
   for (size_t i = 0; i < t->nb; i++) {
      lo = fmin(lo, t->sb[i]);
      hi = fmax(hi, t->sb[i]);
   }
   pad_range(&lo, &hi);
   double h = 150;
   fprintf(fp, "<svg viewBox=\"0 0 %g %g\" width=\"100%%\" role=\"img\">\n",
           PW, h + 30);
   double step = nice_step(hi - lo);
   for (double v = ceil(lo / step) * step; v <= hi; v += step) {
      double x = ML + (v - lo) / (hi - lo) * (PW - ML - 10);
      fprintf(fp, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"0\" y2=\"%g\" "
                  "stroke=\"#eceff1\"/><text x=\"%.1f\" y=\"%g\" "
                  "text-anchor=\"middle\">%.4g ms</text>\n",
              x, x, h, x, h + 20, v / 1e6);
   }
   dist_row(fp, t->sa, t->na, lo, hi, 40, col_a, "A");
   dist_row(fp, t->sb, t->nb, lo, hi, 110, col_b, "B");
   fputs("</svg>\n", fp);
}

static const char *
verdict_class(enum cmp_verdict v)
{
   return v == CMP_SLOWER ? "slower" : v == CMP_FASTER ? "faster" : "same";
}

static void
fmt_ms(char *buf, size_t len, double ns)
{
   if (isfinite(ns))
      snprintf(buf, len, "%.4f", ns / 1e6);
   else
      snprintf(buf, len, "&ndash;");
}

static void
stat_row(FILE *fp, const char *label, const struct cmp_timing_stat *s)
{
   char ma[32], mb[32], ia[32], ib[32];
   fmt_ms(ma, sizeof(ma), s->med_a);
   fmt_ms(mb, sizeof(mb), s->med_b);
   fmt_ms(ia, sizeof(ia), s->iqr_a);
   fmt_ms(ib, sizeof(ib), s->iqr_b);
   fprintf(fp, "<tr><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td>"
               "<td>%+.2f%%</td><td>%+.2f%% &hellip; %+.2f%%</td><td>%.2g</td>"
               "<td><span class=\"badge %s\">%s</span></td></tr>\n",
           label, ma, mb, ia, ib, 100 * (s->ratio - 1), 100 * (s->ci_lo - 1),
           100 * (s->ci_hi - 1), s->mwu.p, verdict_class(s->verdict),
           cmp_verdict_name(s->verdict));
}

bool
cmp_html_timing(const char *dir, const struct cmp_timing_result *r,
                const struct cmp_timing_opts *o, const char *path_a,
                const char *path_b, char err[CMP_ERR_LEN])
{
   FILE *fp = open_page(dir, "tessera compare: timing", err);
   if (!fp)
      return false;
   const struct cmp_timing_stat *t = &r->total;
   fputs("<h1>Timing comparison</h1><div class=\"sub\">A = ", fp);
   esc(fp, path_a);
   fprintf(fp, " (%zu runs) &middot; B = ", t->na);
   esc(fp, path_b);
   fprintf(fp, " (%zu runs) &middot; %s time</div>\n", t->nb,
           o->use_cpu ? "CPU" : "GPU");
   char ma[32], mb[32];
   fmt_ms(ma, sizeof(ma), t->med_a);
   fmt_ms(mb, sizeof(mb), t->med_b);
   fprintf(fp, "<div class=\"card summary\"><div><b><span class=\"badge %s\" "
               "style=\"font-size:18px\">%s</span></b>verdict</div>"
               "<div><b>%s ms</b>median total A</div>"
               "<div><b>%s ms</b>median total B</div>"
               "<div><b>%+.2f%%</b>change (%.0f%% CI %+.2f%% &hellip; "
               "%+.2f%%)</div><div><b>%.2g</b>Mann-Whitney p</div></div>\n",
           verdict_class(t->verdict), cmp_verdict_name(t->verdict), ma, mb,
           100 * (t->ratio - 1), 100 * o->level, 100 * (t->ci_lo - 1),
           100 * (t->ci_hi - 1), t->mwu.p);
   fputs("<div class=\"card\"><h2>Per-frame median</h2>", fp);
   frame_plot(fp, r);
   fputs("</div>\n<div class=\"card\"><h2>Distribution of per-run totals"
         "</h2>", fp);
   dist_plot(fp, t);
   fprintf(fp, "</div>\n<div class=\"card\"><h2>Frames</h2><div class=\"sub\">"
               "a verdict needs p &lt; %.3g, the whole interval on one side "
               "and a change of at least %.1f%%</div><table><tr><th></th>"
               "<th>median A (ms)</th><th>median B (ms)</th><th>IQR A</th>"
               "<th>IQR B</th><th>change</th><th>interval</th><th>p</th>"
               "<th>verdict</th></tr>\n",
           o->alpha, 100 * o->min_effect);
   stat_row(fp, "total", t);
   for (size_t i = 0; i < r->nframes; i++) {
      char label[32];
      snprintf(label, sizeof(label), "frame %lld", (long long)r->frames[i].id);
      stat_row(fp, label, &r->frames[i]);
   }
   fputs("</table></div>\n", fp);
   return close_page(fp, dir, err);
}

/* ------------------------------------------------------------ trace report */

static void
ms_cell(FILE *fp, double ns)
{
   if (isnan(ns))
      fputs("<td>&ndash;</td>", fp);
   else
      fprintf(fp, "<td>%.3f</td>", ns / 1e6);
}

bool
cmp_html_trace(const char *dir, const struct cmp_trace_page *p,
               char err[CMP_ERR_LEN])
{
   FILE *fp = open_page(dir, "tessera report", err);
   if (!fp)
      return false;
   /* Thumbnails and shader listings are the bulk of the page: a grid of
    * small linked images, and <details> so 100 shaders stay browsable. */
   fputs("<style>.thumbs{display:grid;grid-template-columns:repeat(auto-fill,"
         "minmax(160px,1fr));gap:10px}.thumbs img{width:100%;border:1px solid "
         "#d0d4d9;background:repeating-conic-gradient(#ddd 0 25%,#fff 0 50%) 0 0/"
         "16px 16px}.thumbs figure{font-size:12px;color:#5a6572}"
         "pre{font:12px/1.35 ui-monospace,monospace;overflow-x:auto;margin:6px 0}"
         "details{margin:4px 0}summary{cursor:pointer;font:12px ui-monospace,"
         "monospace}</style>\n", fp);
   fputs("<h1>Trace report</h1><div class=\"sub\">", fp);
   esc(fp, p->trace);
   fputs("</div>\n", fp);

   fputs("<div class=\"card\"><h2>Trace</h2><pre>", fp);
   esc(fp, p->info);
   fputs("</pre></div>\n", fp);

   fputs("<div class=\"card\"><h2>Replay it</h2><pre>", fp);
   esc(fp, p->replay_cmd);
   fputs("</pre>", fp);
   if (p->replay_note) {
      fputs("<div class=\"msg\">", fp);
      esc(fp, p->replay_note);
      fputs("</div>", fp);
   }
   fputs("</div>\n", fp);

   double gpu = 0, cpu = 0;
   size_t timed = 0;
   for (size_t i = 0; i < p->nframes; i++)
      if (!isnan(p->frames[i].gpu_ns))
         gpu += p->frames[i].gpu_ns, cpu += p->frames[i].cpu_ns, timed++;
   fprintf(fp, "<div class=\"card summary\"><div><b>%zu</b>frames</div>"
               "<div><b>%zu</b>shaders</div>", p->nframes, p->nshaders);
   if (timed)
      fprintf(fp, "<div><b>%.3f ms</b>GPU time (replay)</div>"
                  "<div><b>%.3f ms</b>CPU time (replay)</div>", gpu / 1e6, cpu / 1e6);
   fputs("</div>\n", fp);

   fputs("<div class=\"card\"><h2>Frames</h2><div class=\"sub\">the last colour "
         "target each frame wrote, as replayed; click for the full size</div>"
         "<div class=\"thumbs\">\n", fp);
   for (size_t i = 0; i < p->nframes; i++) {
      const struct cmp_trace_frame *f = &p->frames[i];
      fprintf(fp, "<figure id=\"frame%" PRId64 "\"><figcaption>frame %" PRId64, f->id, f->id);
      if (!isnan(f->gpu_ns))
         fprintf(fp, " &middot; GPU %.3f ms", f->gpu_ns / 1e6);
      fputs("</figcaption>", fp);
      if (f->image) {
         fputs("<a href=\"", fp);
         esc(fp, f->image);
         fputs("\"><img loading=\"lazy\" alt=\"frame\" src=\"", fp);
         esc(fp, f->image);
         fputs("\"></a>", fp);
      } else {
         fputs("<div class=\"msg\">no image</div>", fp);
      }
      fputs("</figure>\n", fp);
   }
   fputs("</div></div>\n", fp);

   fputs("<div class=\"card\"><h2>GPU time per frame (replay on the model, ms)</h2>"
         "<table><tr><th>frame</th><th>GPU</th><th>CPU</th></tr>\n", fp);
   for (size_t i = 0; i < p->nframes; i++) {
      fprintf(fp, "<tr><td><a href=\"#frame%" PRId64 "\">%" PRId64 "</a></td>",
              p->frames[i].id, p->frames[i].id);
      ms_cell(fp, p->frames[i].gpu_ns);
      ms_cell(fp, p->frames[i].cpu_ns);
      fputs("</tr>\n", fp);
   }
   fputs("</table></div>\n", fp);

   fprintf(fp, "<div class=\"card\"><h2>Shaders (%zu)</h2>\n", p->nshaders);
   for (size_t i = 0; i < p->nshaders; i++) {
      fputs("<details class=\"shader\"><summary>", fp);
      esc(fp, p->shaders[i].title);
      fputs("</summary><pre>", fp);
      esc(fp, p->shaders[i].text);
      fputs("</pre></details>\n", fp);
   }
   fputs("</div>\n", fp);
   return close_page(fp, dir, err);
}

/* --------------------------------------------------------- profile compare */

static const char *
prof_class(enum cmp_prof_verdict v)
{
   return v == CMP_PROF_SLOWER ? "slower" : v == CMP_PROF_FASTER ? "faster" : "same";
}

static void
prof_badge(FILE *fp, enum cmp_prof_verdict v)
{
   fprintf(fp, "<span class=\"badge %s\">%s</span>", prof_class(v), cmp_prof_verdict_name(v));
}

/* A cycles row: label, A, B, change, a bar of the change scaled to `scale`
 * (the largest |change| of the table), verdict. */
static void
prof_row(FILE *fp, const char *label, uint64_t a, uint64_t b, enum cmp_prof_verdict v,
         double scale)
{
   int64_t d = (int64_t)b - (int64_t)a;
   double w = scale > 0 ? 120.0 * (double)(d < 0 ? -d : d) / scale : 0;
   fprintf(fp, "<tr><td>%s</td><td>%" PRIu64 "</td><td>%" PRIu64 "</td><td>%+" PRId64
               "</td><td>", label, a, b, d);
   if (a)
      fprintf(fp, "%+.2f%%", 100.0 * ((double)b - (double)a) / (double)a);
   else
      fputs(b ? "new" : "&ndash;", fp);
   fprintf(fp, "</td><td style=\"text-align:left\"><svg width=\"124\" height=\"10\">"
               "<rect x=\"2\" y=\"1\" width=\"%.1f\" height=\"8\" fill=\"%s\"/></svg></td><td>",
           w, d > 0 ? "#c62828" : "#2e7d32");
   prof_badge(fp, v);
   fputs("</td></tr>\n", fp);
}

static void
prof_top_table(FILE *fp, const struct cmp_prof_result *r, unsigned top, int sign)
{
   size_t n;
   struct cmp_prof_ref *t = cmp_prof_top(r, top, sign, &n);
   fprintf(fp, "<div class=\"card\"><h2>Largest %s</h2>", sign > 0 ? "regressions" :
                                                             "improvements");
   if (!n) {
      fputs("<div class=\"sub\">none</div></div>\n", fp);
      return;
   }
   fputs("<table><tr><th>draw</th><th>A cycles</th><th>B cycles</th><th>change</th>"
         "<th>%</th><th></th><th>verdict</th></tr>\n", fp);
   double scale = (double)(t[0].delta < 0 ? -t[0].delta : t[0].delta);
   for (size_t i = 0; i < n; i++) {
      const struct cmp_prof_dframe *df = &r->frames[t[i].frame];
      const struct cmp_prof_dpass *dp = &df->passes[t[i].pass];
      const struct cmp_prof_dentry *d = &dp->d[t[i].draw];
      char label[160];
      if (dp->pa->compute)
         snprintf(label, sizeof(label), "frame %" PRId64 " pass %" PRId64 " dispatch %" PRId64
                  " (kernel 0x%" PRIx64 ")", df->fa->frame, dp->pa->index, d->eb->index,
                  d->eb->vs);
      else
         snprintf(label, sizeof(label), "frame %" PRId64 " pass %" PRId64 " draw %" PRId64
                  " (vs 0x%" PRIx64 ", fs 0x%" PRIx64 ")", df->fa->frame, dp->pa->index,
                  d->eb->index, d->eb->vs, d->eb->fs);
      prof_row(fp, label, d->ea->c[0], d->eb->c[0], d->verdict, scale);
   }
   fputs("</table></div>\n", fp);
   free(t);
}

bool
cmp_html_profile(const char *dir, const struct cmp_prof_result *r, unsigned top,
                 const char *path_a, const char *path_b, char err[CMP_ERR_LEN])
{
   FILE *fp = open_page(dir, "tessera compare: profile", err);
   if (!fp)
      return false;
   fputs("<h1>Profile comparison</h1><div class=\"sub\">A = ", fp);
   esc(fp, path_a);
   fputs(" &middot; B = ", fp);
   esc(fp, path_b);
   fprintf(fp, " &middot; modelled GPU cycles (exact; a change of at least %.1f%% is "
               "called slower/faster)</div>\n", 100 * r->min_effect);
   uint64_t a = r->total_a[0], b = r->total_b[0];
   fprintf(fp, "<div class=\"card summary\"><div><b><span class=\"badge %s\" "
               "style=\"font-size:18px\">%s</span></b>verdict</div>"
               "<div><b>%" PRIu64 "</b>cycles A</div><div><b>%" PRIu64 "</b>cycles B</div>"
               "<div><b>%+.2f%%</b>change</div><div><b>%zu / %zu</b>draws added / removed"
               "</div></div>\n",
           prof_class(r->verdict), cmp_prof_verdict_name(r->verdict), a, b,
           a ? 100.0 * ((double)b - (double)a) / (double)a : 0.0, r->added, r->removed);
   prof_top_table(fp, r, top, 1);
   prof_top_table(fp, r, top, -1);
   for (size_t f = 0; f < r->nframes; f++) {
      const struct cmp_prof_dframe *df = &r->frames[f];
      fprintf(fp, "<div class=\"card\"><div class=\"head\"><h2>Frame %" PRId64 "</h2>",
              df->fa->frame);
      prof_badge(fp, df->verdict);
      fputs("</div>\n", fp);
      for (size_t k = 0; k < df->npasses; k++) {
         const struct cmp_prof_dpass *dp = &df->passes[k];
         if (!dp->pa || !dp->pb) {
            const struct cmp_prof_pass *p = dp->pa ? dp->pa : dp->pb;
            fprintf(fp, "<p class=\"msg\">pass %" PRId64 " (%s) %s: %" PRIu64 " cycles, "
                        "%zu entries</p>\n", p->index, p->compute ? "compute" : "render",
                    dp->pa ? "removed (A only)" : "added (B only)", p->total[0], p->n);
            continue;
         }
         double scale = 0;
         for (size_t j = 0; j < dp->n; j++)
            if (dp->d[j].ea && dp->d[j].eb) {
               int64_t d = (int64_t)dp->d[j].eb->c[0] - (int64_t)dp->d[j].ea->c[0];
               double m = (double)(d < 0 ? -d : d);
               scale = m > scale ? m : scale;
            }
         fprintf(fp, "<h3>pass %" PRId64 " (%s)</h3><table><tr><th></th><th>A cycles</th>"
                     "<th>B cycles</th><th>change</th><th>%%</th><th></th><th>verdict</th>"
                     "</tr>\n", dp->pa->index, dp->pa->compute ? "compute" : "render");
         prof_row(fp, "pass", dp->pa->total[0], dp->pb->total[0], dp->verdict, 0);
         prof_row(fp, "overhead", dp->overhead.ea->c[0], dp->overhead.eb->c[0],
                  dp->overhead.verdict, scale);
         for (size_t j = 0; j < dp->n; j++) {
            const struct cmp_prof_dentry *d = &dp->d[j];
            const struct cmp_prof_entry *e = d->eb ? d->eb : d->ea;
            char label[160];
            if (dp->pa->compute)
               snprintf(label, sizeof(label), "dispatch %" PRId64 " (kernel 0x%" PRIx64 ")%s",
                        e->index, e->vs, d->ea && d->eb ? "" : d->ea ? " removed" : " added");
            else
               snprintf(label, sizeof(label), "draw %" PRId64 " (vs 0x%" PRIx64 ", fs 0x%"
                        PRIx64 ")%s", e->index, e->vs, e->fs,
                        d->ea && d->eb ? "" : d->ea ? " removed" : " added");
            if (d->ea && d->eb)
               prof_row(fp, label, d->ea->c[0], d->eb->c[0], d->verdict, scale);
            else
               fprintf(fp, "<tr><td>%s</td><td>%s</td><td>%s</td><td colspan=\"4\"></td>"
                           "</tr>\n", label, d->ea ? "&#10003;" : "", d->eb ? "&#10003;" : "");
         }
         fputs("</table>\n", fp);
      }
      fputs("</div>\n", fp);
   }
   return close_page(fp, dir, err);
}

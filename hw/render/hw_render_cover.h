/* SPDX-License-Identifier: MIT */
/*
 * Triangle coverage on the 1/256-pixel grid (hwrender internal).
 *
 * A triangle covers a sample point (px, py) iff every edge function
 *    E = edx * (py - eay) - edy * (px - eax)
 * of its edges in coverage order (counter-clockwise on the y-down
 * screen) is > 0, or == 0 on a top-left edge (dy < 0, or dy == 0 and
 * dx > 0). hwr_tri_covers() is that test at one point, the reference;
 * hwr_tri_row_span() gives the same answer for a whole row of points at
 * once (the fragment side's rasteriser), exactly: it solves each edge's
 * inequality for the column with integer floor/ceil division, so every
 * tie and fill-rule case is the reference's. The integers are the
 * reference's products (the callers start rows inside the primitive's
 * pixel rectangle, where the reference evaluates them too).
 */
#ifndef HW_RENDER_COVER_H
#define HW_RENDER_COVER_H

#include <stdbool.h>
#include <stdint.h>

struct hwr_tri {
   /* edges in coverage order: start, delta, whether E == 0 counts */
   int64_t eax[3], eay[3], edx[3], edy[3];
   bool etl[3];
};

static inline bool
hwr_top_left(int64_t dx, int64_t dy)
{
   return dy < 0 || (dy == 0 && dx > 0);
}

/* The edges of the triangle (X[i], Y[i]) (1/256 pixel), oriented so that
 * the inside is E >= 0 whatever the winding. */
static inline void
hwr_tri_setup(struct hwr_tri *t, const int64_t X[3], const int64_t Y[3])
{
   int64_t area = (X[1] - X[0]) * (Y[2] - Y[0]) - (X[2] - X[0]) * (Y[1] - Y[0]);
   int o[3] = { 0, 1, 2 };
   if (area < 0) { o[1] = 2; o[2] = 1; }
   for (unsigned e = 0; e < 3; e++) {
      unsigned a = o[e], b = o[(e + 1) % 3];
      t->eax[e] = X[a];
      t->eay[e] = Y[a];
      t->edx[e] = X[b] - X[a];
      t->edy[e] = Y[b] - Y[a];
      t->etl[e] = hwr_top_left(t->edx[e], t->edy[e]);
   }
}

/* Whether the point (px, py) (1/256 pixel) is covered: the reference. */
static inline bool
hwr_tri_covers(const struct hwr_tri *t, int64_t px, int64_t py)
{
   for (unsigned e = 0; e < 3; e++) {
      int64_t E = t->edx[e] * (py - t->eay[e]) - t->edy[e] * (px - t->eax[e]);
      if (E < 0 || (E == 0 && !t->etl[e]))
         return false;
   }
   return true;
}

/*
 * Rows of n sample points: points px0 + 256 * c (c = 0 .. n - 1) of the
 * rows py0 + 256 * k (k = 0, 1, ...). hwr_tri_rows_init() evaluates each
 * edge function at the first row's first point; hwr_tri_rows_next()
 * steps it to the next row by whole pixels (exact integers: the same
 * value the reference computes at that point).
 */
struct hwr_tri_rows {
   int64_t E[3];        /* edge functions at the row's first point */
   int64_t dy[3];       /* their step per row */
   int64_t sx[3];       /* their step per column */
   int64_t last[3];     /* sx * (n - 1): the row's last point's E - E */
   int64_t thr[3];      /* covered iff E >= thr (0 on a top-left edge) */
   int64_t n;
};

static inline void
hwr_tri_rows_init(struct hwr_tri_rows *r, const struct hwr_tri *t, int64_t px0, int64_t py0,
                  int64_t n)
{
   for (unsigned e = 0; e < 3; e++) {
      r->E[e] = t->edx[e] * (py0 - t->eay[e]) - t->edy[e] * (px0 - t->eax[e]);
      r->dy[e] = t->edx[e] * 256;
      r->sx[e] = -t->edy[e] * 256;
      r->last[e] = r->sx[e] * (n - 1);
      r->thr[e] = t->etl[e] ? 0 : 1;
   }
   r->n = n;
}

static inline void
hwr_tri_rows_next(struct hwr_tri_rows *r)
{
   for (unsigned e = 0; e < 3; e++)
      r->E[e] += r->dy[e];
}

/*
 * The covered columns of the current row: [*lo, *hi] (both within
 * [0, n - 1]), or false when none is. Covered points of a row are
 * consecutive (each edge's E is linear in c: its passing columns are a
 * prefix or a suffix or all or none), so the span is the intersection of
 * the edges'. An edge passing (or failing) at both ends passes (fails)
 * everywhere and costs no division; one crossing the row is solved for
 * its first (last) passing column with integer ceil (floor) division, so
 * every tie and fill-rule case is the reference's.
 */
static inline bool
hwr_tri_rows_span(const struct hwr_tri_rows *r, int64_t *lo, int64_t *hi)
{
   int64_t a = 0, b = r->n - 1;
   for (unsigned e = 0; e < 3; e++) {
      /* covered iff E >= thr */
      const int64_t thr = r->thr[e];
      const int64_t sx = r->sx[e], E = r->E[e];
      const int64_t last = E + r->last[e];
      if (E >= thr && last >= thr)
         continue;
      if (E < thr && last < thr)
         return false;
      if (sx > 0) {
         /* rising, E < thr <= last: from ceil((thr - E) / sx) */
         const int64_t num = thr - E;          /* > 0 */
         const int64_t c0 = num / sx + (num % sx != 0);
         a = c0 > a ? c0 : a;
      } else {
         /* falling, E >= thr > last: up to floor((E - thr) / -sx) */
         const int64_t c1 = (E - thr) / -sx;   /* numerator >= 0 */
         b = c1 < b ? c1 : b;
      }
   }
   if (a > b)
      return false;
   *lo = a;
   *hi = b;
   return true;
}

/* The span of the single row py (hwr_tri_rows_span of a fresh walk). */
static inline bool
hwr_tri_row_span(const struct hwr_tri *t, int64_t px0, int64_t py, int64_t n,
                 int64_t *lo, int64_t *hi)
{
   struct hwr_tri_rows r;
   hwr_tri_rows_init(&r, t, px0, py, n);
   return hwr_tri_rows_span(&r, lo, hi);
}

#endif

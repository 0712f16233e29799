/* SPDX-License-Identifier: MIT */
/*
 * hw/render/hw_render_cover.h: the fragment side's whole-row triangle
 * coverage (hwr_tri_row_span, and hwr_tri_rows_* walking down rows) gives exactly the per-point reference's
 * answer (hwr_tri_covers) for every point of every row tried: random
 * triangles of both windings, edges through pixel centres and sample
 * points, horizontal and vertical edges of every fill-rule case,
 * degenerate triangles, huge coordinates, MSAA sample offsets and rows
 * starting anywhere (the primitive's rectangle clipped to a tile).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "hw/render/hw_render_cover.h"

static unsigned long long checked;

/* Row py of n points from px0, every column, against the reference. */
static void
check_row(const struct hwr_tri *t, int64_t px0, int64_t py, int64_t n)
{
   int64_t lo = -1, hi = -1;
   bool any = hwr_tri_row_span(t, px0, py, n, &lo, &hi);
   if (any && (lo < 0 || hi >= n || lo > hi))
      fail_msg("span [%lld, %lld] outside [0, %lld)", (long long)lo, (long long)hi, (long long)n);
   for (int64_t c = 0; c < n; c++) {
      bool ref = hwr_tri_covers(t, px0 + 256 * c, py);
      bool got = any && c >= lo && c <= hi;
      if (ref != got)
         fail_msg("point (%lld, %lld): reference %d, span %d [%lld, %lld]",
                  (long long)(px0 + 256 * c), (long long)py, ref, got,
                  (long long)(any ? lo : 0), (long long)(any ? hi : -1));
      checked++;
   }
}

/* The MSAA sample offsets of the model (1/256 pixel: centre, the 2x and
 * 4x positions) and the pixel's corners. */
static const int64_t offs[][2] = {
   { 128, 128 }, { 64, 64 }, { 192, 192 }, { 96, 32 }, { 224, 96 },
   { 32, 160 }, { 160, 224 }, { 0, 0 }, { 255, 255 }, { 0, 255 },
};

/* Every row of the triangle's pixel box (with a margin), for every
 * offset, the row starting at the box's left or a few other columns
 * (a rectangle clipped to a tile starts anywhere). */
static void
check_tri_box(const int64_t X[3], const int64_t Y[3])
{
   struct hwr_tri t;
   hwr_tri_setup(&t, X, Y);
   int64_t minx = X[0], maxx = X[0], miny = Y[0], maxy = Y[0];
   for (unsigned i = 1; i < 3; i++) {
      minx = X[i] < minx ? X[i] : minx; maxx = X[i] > maxx ? X[i] : maxx;
      miny = Y[i] < miny ? Y[i] : miny; maxy = Y[i] > maxy ? Y[i] : maxy;
   }
   int64_t x0 = (minx >> 8) - 2, x1 = (maxx >> 8) + 2;
   int64_t y0 = (miny >> 8) - 2, y1 = (maxy >> 8) + 2;
   for (unsigned o = 0; o < sizeof(offs) / sizeof(offs[0]); o++) {
      /* a walk down the rows, as the rasteriser steps it */
      struct hwr_tri_rows r;
      int64_t n = x1 - x0 + 1;
      hwr_tri_rows_init(&r, &t, x0 * 256 + offs[o][0], y0 * 256 + offs[o][1], n);
      for (int64_t y = y0; y <= y1; y++, hwr_tri_rows_next(&r)) {
         int64_t lo = -1, hi = -1;
         bool any = hwr_tri_rows_span(&r, &lo, &hi);
         for (int64_t c = 0; c < n; c++) {
            bool ref = hwr_tri_covers(&t, (x0 + c) * 256 + offs[o][0], y * 256 + offs[o][1]);
            if (ref != (any && c >= lo && c <= hi))
               fail_msg("row walk: pixel (%lld, %lld) offset %u: reference %d",
                        (long long)(x0 + c), (long long)y, o, ref);
            checked++;
         }
      }
   }
   for (unsigned o = 0; o < sizeof(offs) / sizeof(offs[0]); o++)
      for (int64_t y = y0; y <= y1; y++) {
         int64_t py = y * 256 + offs[o][1];
         check_row(&t, x0 * 256 + offs[o][0], py, x1 - x0 + 1);
         for (int64_t s = x0 + 1; s <= x1; s += 3)
            check_row(&t, s * 256 + offs[o][0], py, x1 - s + 1);
         check_row(&t, x0 * 256 + offs[o][0], py, 1);
      }
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static int64_t
rnd(int64_t lo, int64_t hi)
{
   rng ^= rng << 13;
   rng ^= rng >> 7;
   rng ^= rng << 17;
   return lo + (int64_t)(rng % (uint64_t)(hi - lo + 1));
}

static void
test_random_small(void **state)
{
   (void)state;
   for (unsigned i = 0; i < 3000; i++) {
      int64_t X[3], Y[3];
      int64_t span = i % 3 == 0 ? 256 * 40 : i % 3 == 1 ? 256 * 6 : 512;
      for (unsigned k = 0; k < 3; k++) {
         X[k] = rnd(-span, span);
         Y[k] = rnd(-span, span);
         /* a third of the vertices on the pixel-centre / 1/16 grid, where
          * edges pass through sample points */
         if (i % 3 == 2) {
            X[k] &= ~(int64_t)15;
            Y[k] &= ~(int64_t)15;
         }
      }
      check_tri_box(X, Y);
   }
}

/* Vertices on pixel centres: edges along rows and columns of centres
 * and diagonals through them, both windings, every orientation of the
 * horizontal and vertical edges (top, bottom, left, right: which of
 * them owns the E == 0 points is the fill rule). */
static void
test_edges_on_centres(void **state)
{
   (void)state;
   static const int64_t shapes[][6] = {
      { 0, 0, 4, 0, 0, 4 },   /* top edge, left edge, diagonal */
      { 4, 0, 4, 4, 0, 4 },   /* right edge, bottom edge */
      { 0, 0, 4, 4, 0, 4 },
      { 0, 0, 4, 0, 4, 4 },
      { 0, 0, 8, 2, 3, 7 },
      { 0, 0, 2, 6, -3, 1 },
      { 0, 0, 5, 0, 2, 0 },   /* degenerate: collinear */
      { 1, 1, 1, 1, 1, 1 },   /* degenerate: a point */
      { 0, 0, 0, 6, 0, 3 },   /* degenerate: vertical */
      { 0, 0, 1, 0, 0, 1 },   /* one pixel */
      { 0, 0, 16, 1, 1, 2 },  /* sliver */
   };
   for (unsigned i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
      for (unsigned flip = 0; flip < 8; flip++)
         for (int64_t c = 0; c < 256; c += 64) {
            /* c: where the grid sits in the pixel (128: on the centres) */
            int64_t X[3], Y[3];
            for (unsigned k = 0; k < 3; k++) {
               int64_t x = shapes[i][2 * k], y = shapes[i][2 * k + 1];
               if (flip & 1) x = -x;
               if (flip & 2) y = -y;
               if (flip & 4) { int64_t tmp = x; x = y; y = tmp; }
               X[k] = x * 256 + 128 + c;
               Y[k] = y * 256 + 128 + (c == 64 ? 128 : c);
            }
            check_tri_box(X, Y);
            int64_t Xr[3] = { X[0], X[2], X[1] }, Yr[3] = { Y[0], Y[2], Y[1] };
            check_tri_box(Xr, Yr);   /* the other winding */
         }
}

/* Two triangles sharing an edge cover each point of their union once
 * (the fill rule decides the shared edge's points): a span
 * disagreeing with the reference would show up as a gap or a double. */
static void
test_shared_edges(void **state)
{
   (void)state;
   for (unsigned i = 0; i < 500; i++) {
      int64_t ax = rnd(-2048, 2048), ay = rnd(-2048, 2048);
      int64_t bx = rnd(-2048, 2048), by = rnd(-2048, 2048);
      if (i % 2) { ax &= ~255; ay &= ~255; bx = ax + 256 * rnd(-6, 6); by &= ~255; }
      int64_t cx = rnd(-2048, 2048), cy = rnd(-2048, 2048);
      int64_t dx = rnd(-2048, 2048), dy = rnd(-2048, 2048);
      int64_t X1[3] = { ax, bx, cx }, Y1[3] = { ay, by, cy };
      int64_t X2[3] = { bx, ax, dx }, Y2[3] = { by, ay, dy };
      struct hwr_tri t1, t2;
      hwr_tri_setup(&t1, X1, Y1);
      hwr_tri_setup(&t2, X2, Y2);
      for (int64_t y = -10; y <= 10; y++) {
         int64_t py = y * 256 + 128, l1 = 0, h1 = -1, l2 = 0, h2 = -1;
         bool s1 = hwr_tri_row_span(&t1, -10 * 256 + 128, py, 21, &l1, &h1);
         bool s2 = hwr_tri_row_span(&t2, -10 * 256 + 128, py, 21, &l2, &h2);
         for (int64_t c = 0; c < 21; c++) {
            bool r1 = hwr_tri_covers(&t1, (c - 10) * 256 + 128, py);
            bool r2 = hwr_tri_covers(&t2, (c - 10) * 256 + 128, py);
            assert_int_equal(s1 && c >= l1 && c <= h1, r1);
            assert_int_equal(s2 && c >= l2 && c <= h2, r2);
         }
      }
   }
}

/* Coordinates far from the origin (the guard band of a 16K viewport is
 * 2^20 pixels, 2^28 in 1/256): rows where an edge crosses, windows of
 * columns around the crossing. */
static void
test_huge(void **state)
{
   (void)state;
   const int64_t R = (int64_t)1 << 28;
   for (unsigned i = 0; i < 4000; i++) {
      int64_t X[3], Y[3];
      for (unsigned k = 0; k < 3; k++) {
         X[k] = rnd(-R, R);
         Y[k] = rnd(-R, R);
         if (i % 4 == 1)
            X[k] = (X[k] & ~(int64_t)255) + 128;
         if (i % 4 == 2)
            Y[k] = Y[k / 2 * 2];   /* a horizontal edge */
      }
      struct hwr_tri t;
      hwr_tri_setup(&t, X, Y);
      for (unsigned e = 0; e < 3; e++) {
         /* a row inside the edge's y range and where the edge crosses it */
         int64_t ya = t.eay[e], yb = t.eay[e] + t.edy[e];
         int64_t py = (ya < yb ? rnd(ya, yb) : rnd(yb, ya)) & ~(int64_t)255;
         py += offs[i % 10][1];
         double xc = t.edy[e] ? (double)t.eax[e] + (double)t.edx[e] *
                                    (double)(py - t.eay[e]) / (double)t.edy[e]
                              : (double)t.eax[e];
         int64_t x = ((int64_t)floor(xc / 256.0) - 20) * 256 + offs[i % 10][0];
         check_row(&t, x, py, 41);
         check_row(&t, x + 256 * 20, py, 1);
      }
   }
}

int
main(void)
{
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_random_small),
      cmocka_unit_test(test_edges_on_centres),
      cmocka_unit_test(test_shared_edges),
      cmocka_unit_test(test_huge),
   };
   int rc = cmocka_run_group_tests(tests, NULL, NULL);
   printf("points checked: %llu\n", checked);
   return rc;
}

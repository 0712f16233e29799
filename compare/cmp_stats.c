/* SPDX-License-Identifier: MIT */
/*
 * Robust statistics for run-time samples. GPU and CPU times are skewed with
 * long right tails (preemption, clock ramps), so everything here is rank or
 * quantile based: medians, IQR/MAD, a rank test and a bootstrap interval.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare/compare.h"

static int
cmp_double(const void *pa, const void *pb)
{
   double a = *(const double *)pa, b = *(const double *)pb;
   return (a > b) - (a < b);
}

double
cmp_quantile_sorted(const double *s, size_t n, double q)
{
   if (n == 0)
      return NAN;
   double h = (double)(n - 1) * q;
   size_t lo = (size_t)floor(h);
   if (lo + 1 >= n)
      return s[n - 1];
   return s[lo] + (h - (double)lo) * (s[lo + 1] - s[lo]);
}

static double *
sorted_copy(const double *x, size_t n)
{
   double *s = malloc((n ? n : 1) * sizeof(*s));
   if (!s)
      return NULL;
   if (n) {
      memcpy(s, x, n * sizeof(*s));
      qsort(s, n, sizeof(*s), cmp_double);
   }
   return s;
}

double
cmp_median(const double *x, size_t n)
{
   double *s = sorted_copy(x, n);
   if (!s)
      return NAN;
   double m = cmp_quantile_sorted(s, n, 0.5);
   free(s);
   return m;
}

double
cmp_iqr(const double *x, size_t n)
{
   double *s = sorted_copy(x, n);
   if (!s)
      return NAN;
   double r = cmp_quantile_sorted(s, n, 0.75) - cmp_quantile_sorted(s, n, 0.25);
   free(s);
   return r;
}

double
cmp_mad(const double *x, size_t n)
{
   double m = cmp_median(x, n);
   double *d = malloc((n ? n : 1) * sizeof(*d));
   if (!d)
      return NAN;
   for (size_t i = 0; i < n; i++)
      d[i] = fabs(x[i] - m);
   double r = cmp_median(d, n);
   free(d);
   return r;
}

struct tagged {
   double v;
   int side;
};

static int
cmp_tagged(const void *pa, const void *pb)
{
   const struct tagged *a = pa, *b = pb;
   return (a->v > b->v) - (a->v < b->v);
}

void
cmp_mann_whitney(const double *a, size_t na, const double *b, size_t nb,
                 struct cmp_mwu *out)
{
   out->u = 0;
   out->z = 0;
   out->p = 1;
   size_t n = na + nb;
   if (na == 0 || nb == 0)
      return;
   struct tagged *t = malloc(n * sizeof(*t));
   if (!t)
      return;
   for (size_t i = 0; i < na; i++)
      t[i] = (struct tagged){a[i], 0};
   for (size_t i = 0; i < nb; i++)
      t[na + i] = (struct tagged){b[i], 1};
   qsort(t, n, sizeof(*t), cmp_tagged);

   /* Mid-ranks for ties; the tie term sum(t^3 - t) shrinks the variance. */
   double ra = 0, ties = 0;
   for (size_t i = 0; i < n;) {
      size_t j = i;
      while (j < n && t[j].v == t[i].v)
         j++;
      double rank = (double)(i + 1 + j) / 2.0;
      for (size_t k = i; k < j; k++)
         if (t[k].side == 0)
            ra += rank;
      double c = (double)(j - i);
      ties += c * c * c - c;
      i = j;
   }
   free(t);

   double dna = (double)na, dnb = (double)nb, dn = (double)n;
   double u = ra - dna * (dna + 1) / 2;
   double mean = dna * dnb / 2;
   double var = dna * dnb / 12.0 * ((dn + 1) - ties / (dn * (dn - 1)));
   out->u = u;
   if (var <= 0)
      return;
   double dev = fabs(u - mean) - 0.5;
   if (dev < 0)
      dev = 0;
   double z = dev / sqrt(var);
   out->z = u < mean ? -z : z;
   out->p = erfc(z / sqrt(2.0));
}

/* splitmix64: tiny, fast and fully determined by the seed, so a report
 * is reproducible bit for bit. */
static uint64_t
next_u64(uint64_t *s)
{
   uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
   z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
   z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
   return z ^ (z >> 31);
}

/* Wirth's selection: O(n) on average, mutates v. Afterwards v[k] is the
 * k-th smallest and every v[i], i < k, is <= v[k]. */
static double
select_k(double *v, size_t n, size_t k)
{
   ptrdiff_t l = 0, m = (ptrdiff_t)n - 1, kk = (ptrdiff_t)k;
   while (l < m) {
      double x = v[kk];
      ptrdiff_t i = l, j = m;
      do {
         while (v[i] < x)
            i++;
         while (x < v[j])
            j--;
         if (i <= j) {
            double t = v[i];
            v[i] = v[j];
            v[j] = t;
            i++;
            j--;
         }
      } while (i <= j);
      if (j < kk)
         l = i;
      if (kk < i)
         m = j;
   }
   return v[kk];
}

static double
resample_median(const double *x, size_t n, double *buf, uint64_t *rng)
{
   for (size_t i = 0; i < n; i++)
      buf[i] = x[next_u64(rng) % n];
   double hi = select_k(buf, n, n / 2);
   if (n % 2)
      return hi;
   /* Even n: the lower middle is the largest of the lower half. */
   double lo = buf[0];
   for (size_t i = 1; i < n / 2; i++)
      lo = buf[i] > lo ? buf[i] : lo;
   return (lo + hi) / 2;
}

bool
cmp_bootstrap_ratio(const double *a, size_t na, const double *b, size_t nb,
                    unsigned iters, uint64_t seed, double level, double *lo,
                    double *hi)
{
   *lo = *hi = NAN;
   if (na == 0 || nb == 0 || iters == 0)
      return false;
   double *buf = malloc((na > nb ? na : nb) * sizeof(double));
   double *ratios = malloc(iters * sizeof(double));
   bool ok = buf && ratios;
   uint64_t rng = seed;
   for (unsigned i = 0; ok && i < iters; i++) {
      double ma = resample_median(a, na, buf, &rng);
      double mb = resample_median(b, nb, buf, &rng);
      if (ma == 0)
         ok = false;
      else
         ratios[i] = mb / ma;
   }
   if (ok) {
      qsort(ratios, iters, sizeof(double), cmp_double);
      double tail = (1 - level) / 2;
      *lo = cmp_quantile_sorted(ratios, iters, tail);
      *hi = cmp_quantile_sorted(ratios, iters, 1 - tail);
   }
   free(buf);
   free(ratios);
   return ok;
}

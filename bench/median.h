/* The median of n timings (sorted in place): the bench programs' summary
 * of repeated runs on a shared machine. */
#ifndef FRICON_BENCH_MEDIAN_H
#define FRICON_BENCH_MEDIAN_H

#include <stdlib.h>

static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static inline double median(double *t, int n)
{
    qsort(t, (size_t)n, sizeof *t, bench_cmp_double);
    return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

#endif

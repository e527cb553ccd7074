/*
 * quantile — the exact nearest-rank quantile of sorted values: the one
 * definition fit-jobs (a job mix's check) and the results (waits per team)
 * share.  It owns nothing.
 *
 * The quantile q of n values is the value at rank ceil(q n), 1-based: the
 * inverse of their empirical CDF, which is what drawing each of them with
 * probability 1/n gives (sim/engine/dist.h's empirical kind).  The product
 * q n is read a hair low, so that 0.999 x 1000 (a hair above 999 in binary)
 * is rank 999, and the rank is clamped to [1, n].
 */
#ifndef FS_QUANTILE_H
#define FS_QUANTILE_H

#include <stddef.h>

/* The rank of quantile q of n >= 1 values. */
size_t fs_quantile_rank(double q, size_t n);

/* Sorts n values ascending (qsort), for fs_quantile_sorted. */
void fs_quantile_sort(double *values, size_t n);

/* Quantile q of n >= 1 values sorted ascending. */
static inline double fs_quantile_sorted(const double *sorted, size_t n, double q)
{
    return sorted[fs_quantile_rank(q, n) - 1];
}

#endif

/*
 * summary — replication summaries: mean and 95% confidence interval.
 *
 * Independent replications of a run give independent samples of any output
 * figure; the interval is the Student t interval (GSL's t quantile with n-1
 * degrees of freedom).  With one replication the half-width is 0 and
 * `valid` is false: no interval can be claimed.
 */
#ifndef FS_SUMMARY_H
#define FS_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>

typedef struct fs_summary {
    double mean;
    double sd;          /* sample standard deviation (n-1) */
    double half_width;  /* 95% CI half-width: t_{0.975,n-1} * sd / sqrt(n) */
    size_t n;
    bool valid;         /* n >= 2 */
} fs_summary;

/* Summarizes x[0], x[stride], ..., x[(n-1)*stride].  n >= 1. */
fs_summary fs_summary_of(const double *x, size_t stride, size_t n);

#endif

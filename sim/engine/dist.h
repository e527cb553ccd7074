/*
 * dist — the probability distributions service times and delays are drawn from.
 *
 * A fs_dist is a small immutable value: a kind plus parameters, in seconds.
 * Sampling draws from a caller-supplied GSL generator (see rng.h), so the
 * distribution owns no randomness.  Moments are exact, for theory checks and
 * offered-load estimates.
 *
 * Ownership: only FS_DIST_EMPIRICAL owns memory (its sorted sample array),
 * released by fs_dist_fini; fini is safe on every kind.
 */
#ifndef FS_DIST_H
#define FS_DIST_H

#include <stddef.h>
#include <gsl/gsl_rng.h>

typedef enum fs_dist_kind {
    FS_DIST_DETERMINISTIC, /* a = value */
    FS_DIST_EXPONENTIAL,   /* a = mean */
    FS_DIST_LOGNORMAL,     /* a = median, b = sigma (of the underlying normal) */
    FS_DIST_GAMMA,         /* a = mean, b = coefficient of variation (sd/mean) */
    FS_DIST_UNIFORM,       /* a = min, b = max */
    FS_DIST_EMPIRICAL      /* samples[n]: each drawn with probability 1/n */
} fs_dist_kind;

typedef struct fs_dist {
    fs_dist_kind kind;
    double a, b;
    double *samples; /* FS_DIST_EMPIRICAL only, owned, sorted ascending */
    size_t n;
} fs_dist;

/* Constructors validate parameters: return 0, or EINVAL (non-positive mean,
 * negative sigma, min > max, ...) leaving *d untouched.  fs_dist_empirical
 * copies the n >= 1 samples (all >= 0) and returns ENOMEM if it cannot. */
int fs_dist_deterministic(fs_dist *d, double value);
int fs_dist_exponential(fs_dist *d, double mean);
int fs_dist_lognormal(fs_dist *d, double median, double sigma);
int fs_dist_gamma(fs_dist *d, double mean, double cv);
int fs_dist_uniform(fs_dist *d, double min, double max);
int fs_dist_empirical(fs_dist *d, const double *samples, size_t n);
void fs_dist_fini(fs_dist *d);

/* One draw, in the distribution's unit (seconds).  Hot path. */
double fs_dist_sample(const fs_dist *d, gsl_rng *r);

/* E[X] and E[X^2], exact for every kind. */
double fs_dist_mean(const fs_dist *d);
double fs_dist_moment2(const fs_dist *d);

/* A short name: "exponential", "lognormal", ... */
const char *fs_dist_kind_name(fs_dist_kind kind);

#endif

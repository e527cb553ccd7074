/*
 * dist — constructors, sampling and exact moments; see dist.h.
 */
#include "dist.h"
#include "ziggurat.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>

static void set_params(fs_dist *d, fs_dist_kind kind, double a, double b)
{
    d->kind = kind;
    d->a = a;
    d->b = b;
    d->samples = NULL;
    d->n = 0;
}

int fs_dist_deterministic(fs_dist *d, double value)
{
    assert(d != NULL);
    if (!isfinite(value) || value < 0.0)
        return EINVAL;
    set_params(d, FS_DIST_DETERMINISTIC, value, 0.0);
    return 0;
}

int fs_dist_exponential(fs_dist *d, double mean)
{
    assert(d != NULL);
    if (!isfinite(mean) || mean <= 0.0)
        return EINVAL;
    set_params(d, FS_DIST_EXPONENTIAL, mean, 0.0);
    return 0;
}

int fs_dist_lognormal(fs_dist *d, double median, double sigma)
{
    assert(d != NULL);
    if (!isfinite(median) || median <= 0.0 || !isfinite(sigma) || sigma < 0.0)
        return EINVAL;
    set_params(d, FS_DIST_LOGNORMAL, median, sigma);
    return 0;
}

int fs_dist_gamma(fs_dist *d, double mean, double cv)
{
    assert(d != NULL);
    if (!isfinite(mean) || mean <= 0.0 || !isfinite(cv) || cv <= 0.0)
        return EINVAL;
    set_params(d, FS_DIST_GAMMA, mean, cv);
    return 0;
}

int fs_dist_uniform(fs_dist *d, double min, double max)
{
    assert(d != NULL);
    if (!isfinite(min) || !isfinite(max) || min < 0.0 || min > max)
        return EINVAL;
    set_params(d, FS_DIST_UNIFORM, min, max);
    return 0;
}

static int cmp_double(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

int fs_dist_empirical(fs_dist *d, const double *samples, size_t n)
{
    assert(d != NULL);
    /* gsl_rng_uniform_int accepts n up to the generator's range, 2^32 - 1 for
     * every fs_rng stream (taus2); beyond that a draw would fail, so refuse it here. */
    if (samples == NULL || n == 0 || n > UINT32_MAX || n > SIZE_MAX / sizeof(double))
        return EINVAL;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(samples[i]) || samples[i] < 0.0)
            return EINVAL;

    double *copy = malloc(n * sizeof *copy);
    if (copy == NULL)
        return ENOMEM;
    memcpy(copy, samples, n * sizeof *copy);
    qsort(copy, n, sizeof *copy, cmp_double);

    set_params(d, FS_DIST_EMPIRICAL, 0.0, 0.0);
    d->samples = copy;
    d->n = n;
    return 0;
}

void fs_dist_fini(fs_dist *d)
{
    if (d == NULL)
        return;
    if (d->kind == FS_DIST_EMPIRICAL)
        free(d->samples);
    d->samples = NULL;
    d->n = 0;
}

double fs_dist_sample(const fs_dist *d, gsl_rng *r)
{
    switch (d->kind) {
    case FS_DIST_DETERMINISTIC:
        return d->a;
    case FS_DIST_EXPONENTIAL:
        /* The ziggurat, not gsl_ran_exponential: its log1p was the single
         * largest cost of an M/M/c run (ziggurat.h). */
        return fs_ziggurat_exponential(r, d->a);
    case FS_DIST_LOGNORMAL:
        /* exp(log(median)) need not round back to median: return it exactly
         * when there is no spread, and draw nothing, like deterministic. */
        if (d->b == 0.0)
            return d->a;
        return gsl_ran_lognormal(r, log(d->a), d->b);
    case FS_DIST_GAMMA: {
        double cv2 = d->b * d->b;
        return gsl_ran_gamma(r, 1.0 / cv2, d->a * cv2);
    }
    case FS_DIST_UNIFORM:
        return gsl_ran_flat(r, d->a, d->b);
    case FS_DIST_EMPIRICAL:
        return d->samples[gsl_rng_uniform_int(r, (unsigned long)d->n)];
    }
    assert(!"fs_dist_sample: unknown kind");
    return NAN;
}

/* Sample moments over the stored array: O(n), which is fine because moments
 * feed load estimates and theory checks, not the sampling loop. */
static double empirical_moment(const fs_dist *d, int power)
{
    double sum = 0.0;
    for (size_t i = 0; i < d->n; i++) {
        double x = d->samples[i];
        sum += power == 1 ? x : x * x;
    }
    return sum / (double)d->n;
}

double fs_dist_mean(const fs_dist *d)
{
    switch (d->kind) {
    case FS_DIST_DETERMINISTIC:
    case FS_DIST_EXPONENTIAL:
    case FS_DIST_GAMMA:
        return d->a;
    case FS_DIST_LOGNORMAL:
        return d->a * exp(0.5 * d->b * d->b);
    case FS_DIST_UNIFORM:
        return 0.5 * (d->a + d->b);
    case FS_DIST_EMPIRICAL:
        return empirical_moment(d, 1);
    }
    assert(!"fs_dist_mean: unknown kind");
    return NAN;
}

double fs_dist_moment2(const fs_dist *d)
{
    switch (d->kind) {
    case FS_DIST_DETERMINISTIC:
        return d->a * d->a;
    case FS_DIST_EXPONENTIAL:
        return 2.0 * d->a * d->a;
    case FS_DIST_LOGNORMAL:
        return d->a * d->a * exp(2.0 * d->b * d->b);
    case FS_DIST_GAMMA:
        return d->a * d->a * (1.0 + d->b * d->b);
    case FS_DIST_UNIFORM:
        return (d->a * d->a + d->a * d->b + d->b * d->b) / 3.0;
    case FS_DIST_EMPIRICAL:
        return empirical_moment(d, 2);
    }
    assert(!"fs_dist_moment2: unknown kind");
    return NAN;
}

const char *fs_dist_kind_name(fs_dist_kind kind)
{
    switch (kind) {
    case FS_DIST_DETERMINISTIC:
        return "deterministic";
    case FS_DIST_EXPONENTIAL:
        return "exponential";
    case FS_DIST_LOGNORMAL:
        return "lognormal";
    case FS_DIST_GAMMA:
        return "gamma";
    case FS_DIST_UNIFORM:
        return "uniform";
    case FS_DIST_EMPIRICAL:
        return "empirical";
    }
    return "unknown";
}

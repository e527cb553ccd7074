/*
 * test_sampler — the ziggurat's exponential (ziggurat.h) is the exponential:
 * its tables are the construction's, 10^6 draws pass Kolmogorov-Smirnov and
 * chi-square goodness-of-fit tests at the 0.1% level, the mean and variance
 * sit within four standard errors, the tail beyond 10 (and beyond the
 * ziggurat's r, where it recurses) has the exponential's weight and shape,
 * and the same seed gives the same draws.
 *
 * Every check uses a fixed seed, so a failure is a real one, not bad luck on
 * a new seed: with the right distribution each test at the 0.1% level would
 * fail for one seed in a thousand, and the seeds here were not picked.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>
#include <gsl/gsl_cdf.h>

#include "dist.h"
#include "rng.h"
#include "ziggurat.h"

#define DRAWS 1000000
#define SEED 20261125
#define SIGNIFICANCE 0.001 /* every goodness-of-fit test below */

static gsl_rng *stream(const char *name)
{
    gsl_rng *r = fs_rng_create(SEED, 0, name);
    assert_non_null(r);
    return r;
}

static int cmp_double(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

static double *draws(const char *name, size_t n)
{
    gsl_rng *r = stream(name);
    double *x = malloc(n * sizeof *x);
    assert_non_null(x);
    for (size_t i = 0; i < n; i++)
        x[i] = fs_ziggurat_exp1(r);
    fs_rng_destroy(r);
    return x;
}

/* The shipped tables are the construction of ziggurat_tables.py: every layer
 * has the same area v = (r + 1) exp(-r) (the base one counting its tail), the
 * top closes at 0 with height 1, and zig_f is exp(-zig_x).  A wrong or
 * mistyped entry would make one layer too likely and bend the distribution. */
static void test_tables_are_the_construction(void **state)
{
    (void)state;
    const double *x = fs_ziggurat_x(), *f = fs_ziggurat_f();
    const int n = FS_ZIGGURAT_LAYERS;
    double r = x[1], v = (r + 1.0) * exp(-r);
    assert_true(fabs(r - 7.69711747013105) < 1e-12);
    assert_true(fabs(x[0] * exp(-r) - v) <= 1e-15 * v);
    assert_true(x[n] == 0.0 && f[n] == 1.0);
    for (int i = 1; i < n; i++) {
        assert_true(x[i + 1] < x[i]);
        assert_true(fabs(f[i] - exp(-x[i])) <= 1e-15 * f[i]);
        double area = x[i] * (f[i + 1] - f[i]);
        if (!(fabs(area - v) <= 1e-12 * v))
            fail_msg("layer %d has area %.17g, want %.17g", i, area, v);
    }
}

/* Kolmogorov-Smirnov against 1 - exp(-x): sqrt(n) D below the asymptotic
 * critical value sqrt(-ln(alpha / 2) / 2) (1.949 at alpha = 0.001). */
static void test_kolmogorov_smirnov(void **state)
{
    (void)state;
    double *x = draws("test/sampler/ks", DRAWS);
    qsort(x, DRAWS, sizeof *x, cmp_double);
    double d = 0.0;
    for (size_t i = 0; i < DRAWS; i++) {
        double cdf = -expm1(-x[i]);
        double lo = cdf - (double)i / DRAWS, hi = (double)(i + 1) / DRAWS - cdf;
        d = fmax(d, fmax(lo, hi));
    }
    double critical = sqrt(-log(SIGNIFICANCE / 2.0) / 2.0);
    if (!(sqrt((double)DRAWS) * d < critical))
        fail_msg("sqrt(n) D = %.4f, critical %.4f at %.3g", sqrt((double)DRAWS) * d, critical, SIGNIFICANCE);
    assert_true(x[0] > 0.0);
    free(x);
}

/* Chi-square over 1,000 equiprobable bins (1,000 draws expected in each):
 * fine enough to see a layer of the ziggurat drawn too often or too rarely
 * (the layers hold 1/256 of the mass each, the bins 1/1000). */
static void test_chi_square(void **state)
{
    (void)state;
    enum { BINS = 1000 };
    static long count[BINS];
    gsl_rng *r = stream("test/sampler/chi2");
    for (long i = 0; i < DRAWS; i++) {
        double u = -expm1(-fs_ziggurat_exp1(r)); /* the CDF: uniform on [0, 1) */
        int b = (int)(u * BINS);
        count[b < BINS ? b : BINS - 1]++;
    }
    fs_rng_destroy(r);
    double expected = (double)DRAWS / BINS, chi2 = 0.0;
    for (int b = 0; b < BINS; b++)
        chi2 += (count[b] - expected) * (count[b] - expected) / expected;
    double critical = gsl_cdf_chisq_Qinv(SIGNIFICANCE, BINS - 1);
    if (!(chi2 < critical))
        fail_msg("chi-square %.1f over %d bins, critical %.1f at %.3g", chi2, BINS, critical, SIGNIFICANCE);
}

/* Mean 1 with standard error 1/sqrt(n); sample variance 1 with standard
 * error sqrt((mu4 - sigma^4) / n) = sqrt(8 / n) for Exp(1).  Four each. */
static void test_mean_and_variance(void **state)
{
    (void)state;
    double *x = draws("test/sampler/moments", DRAWS);
    double sum = 0.0;
    for (size_t i = 0; i < DRAWS; i++)
        sum += x[i];
    double mean = sum / DRAWS, ss = 0.0;
    for (size_t i = 0; i < DRAWS; i++)
        ss += (x[i] - mean) * (x[i] - mean);
    double var = ss / (DRAWS - 1);
    if (!(fabs(mean - 1.0) < 4.0 / sqrt((double)DRAWS)))
        fail_msg("mean %.6f, want 1 within %.6f", mean, 4.0 / sqrt((double)DRAWS));
    if (!(fabs(var - 1.0) < 4.0 * sqrt(8.0 / DRAWS)))
        fail_msg("variance %.6f, want 1 within %.6f", var, 4.0 * sqrt(8.0 / DRAWS));
    free(x);
}

/* P(X > 10) = exp(-10) (454 of 10^7 draws expected): the count within four
 * binomial standard errors.  And the tail beyond r, which the ziggurat makes
 * as r + a fresh draw: the excess over r must again be Exp(1), mean 1
 * within four standard errors (1 / sqrt(count)). */
static void test_tail(void **state)
{
    (void)state;
    const long n = 10 * DRAWS;
    const double r = fs_ziggurat_x()[1];
    gsl_rng *g = stream("test/sampler/tail");
    long beyond10 = 0, beyond_r = 0;
    double excess = 0.0;
    for (long i = 0; i < n; i++) {
        double x = fs_ziggurat_exp1(g);
        beyond10 += x > 10.0;
        if (x > r) {
            beyond_r++;
            excess += x - r;
        }
    }
    fs_rng_destroy(g);
    double p = exp(-10.0), want = p * (double)n, se = sqrt((double)n * p * (1.0 - p));
    if (!(fabs((double)beyond10 - want) < 4.0 * se))
        fail_msg("%ld draws beyond 10, want %.1f within %.1f", beyond10, want, 4.0 * se);
    double pr = exp(-r), want_r = pr * (double)n, se_r = sqrt((double)n * pr * (1.0 - pr));
    if (!(fabs((double)beyond_r - want_r) < 4.0 * se_r))
        fail_msg("%ld draws beyond r, want %.1f within %.1f", beyond_r, want_r, 4.0 * se_r);
    double mean_excess = excess / (double)beyond_r;
    if (!(fabs(mean_excess - 1.0) < 4.0 / sqrt((double)beyond_r)))
        fail_msg("mean excess beyond r %.4f, want 1 within %.4f", mean_excess, 4.0 / sqrt((double)beyond_r));
}

/* Same seed, same draws; another stream, other draws; and fs_dist_sample on
 * an exponential is exactly the ziggurat scaled by the mean, so the engine's
 * service times come from it. */
static void test_determinism(void **state)
{
    (void)state;
    gsl_rng *a = stream("test/sampler/same"), *b = stream("test/sampler/same");
    gsl_rng *c = stream("test/sampler/other"), *d = stream("test/sampler/same");
    fs_dist exp_d;
    assert_int_equal(fs_dist_exponential(&exp_d, 0.25), 0);
    int differ = 0;
    for (int i = 0; i < 100000; i++) {
        double x = fs_ziggurat_exp1(a);
        assert_true(x == fs_ziggurat_exp1(b));
        differ += x != fs_ziggurat_exp1(c);
        assert_true(fs_dist_sample(&exp_d, d) == 0.25 * x);
    }
    assert_true(differ > 99000);
    fs_dist_fini(&exp_d);
    fs_rng_destroy(a);
    fs_rng_destroy(b);
    fs_rng_destroy(c);
    fs_rng_destroy(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tables_are_the_construction),
        cmocka_unit_test(test_kolmogorov_smirnov),
        cmocka_unit_test(test_chi_square),
        cmocka_unit_test(test_mean_and_variance),
        cmocka_unit_test(test_tail),
        cmocka_unit_test(test_determinism),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

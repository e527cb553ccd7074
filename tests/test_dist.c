/*
 * test_dist — sampling matches the exact moments, constructors validate, and
 * empirical distributions draw only their samples, uniformly.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dist.h"
#include "rng.h"

#define DRAWS 1000000

static int setup_rng(void **state)
{
    *state = fs_rng_create(20240611, 0, "test/dist");
    return *state == NULL ? -1 : 0;
}

static int teardown_rng(void **state)
{
    fs_rng_destroy(*state);
    return 0;
}

static void assert_rel_close(double got, double want, double rel)
{
    if (!(fabs(got - want) <= rel * fabs(want)))
        fail_msg("got %.9g, want %.9g within %.3g%%", got, want, 100.0 * rel);
}

/* Sample mean and E[X^2] of n draws, each within 1% of the exact moments.
 * n is chosen per case so 1% is at least four standard errors of E[X^2]. */
static void check_moments(const fs_dist *d, gsl_rng *r, long n)
{
    double s1 = 0.0, s2 = 0.0;
    for (long i = 0; i < n; i++) {
        double x = fs_dist_sample(d, r);
        assert_true(x >= 0.0);
        s1 += x;
        s2 += x * x;
    }
    assert_rel_close(s1 / (double)n, fs_dist_mean(d), 0.01);
    assert_rel_close(s2 / (double)n, fs_dist_moment2(d), 0.01);
}

static void test_deterministic(void **state)
{
    gsl_rng *r = *state;
    fs_dist d;
    assert_int_equal(fs_dist_deterministic(&d, 2.5), 0);
    assert_true(fs_dist_mean(&d) == 2.5);
    assert_true(fs_dist_moment2(&d) == 6.25);
    for (int i = 0; i < 1000; i++)
        assert_true(fs_dist_sample(&d, r) == 2.5);
    fs_dist_fini(&d);

    assert_int_equal(fs_dist_deterministic(&d, 0.0), 0);
    assert_true(fs_dist_sample(&d, r) == 0.0);
    assert_true(fs_dist_moment2(&d) == 0.0);
    fs_dist_fini(&d);
}

static void test_exponential(void **state)
{
    fs_dist d;
    assert_int_equal(fs_dist_exponential(&d, 0.3), 0);
    assert_true(fs_dist_mean(&d) == 0.3);
    assert_rel_close(fs_dist_moment2(&d), 0.18, 1e-12);
    check_moments(&d, *state, DRAWS);
    fs_dist_fini(&d);
}

static void test_lognormal(void **state)
{
    fs_dist d;
    assert_int_equal(fs_dist_lognormal(&d, 1.2, 0.5), 0);
    assert_rel_close(fs_dist_mean(&d), 1.2 * exp(0.125), 1e-12);
    assert_rel_close(fs_dist_moment2(&d), 1.44 * exp(0.5), 1e-12);
    check_moments(&d, *state, DRAWS);
    fs_dist_fini(&d);
}

static int cmp_double(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

/* The standard error of the median here is ~0.06%, so 1% catches a wrong
 * zeta (say log10, or the mean used as the median) with a wide margin. */
static void test_lognormal_median(void **state)
{
    gsl_rng *r = *state;
    fs_dist d;
    assert_int_equal(fs_dist_lognormal(&d, 3.0, 0.5), 0);
    double *x = malloc(DRAWS * sizeof *x);
    assert_non_null(x);
    for (long i = 0; i < DRAWS; i++)
        x[i] = fs_dist_sample(&d, r);
    qsort(x, DRAWS, sizeof *x, cmp_double);
    double median = 0.5 * (x[DRAWS / 2 - 1] + x[DRAWS / 2]);
    free(x);
    assert_rel_close(median, 3.0, 0.01);
    fs_dist_fini(&d);
}

/* sigma 0 is a point mass at the median, exactly: exp(log(0.1)) is not 0.1
 * in double, so a naive draw would be off by an ulp. */
static void test_lognormal_no_spread(void **state)
{
    gsl_rng *r = *state;
    fs_dist d;
    assert_int_equal(fs_dist_lognormal(&d, 0.1, 0.0), 0);
    for (int i = 0; i < 1000; i++)
        assert_true(fs_dist_sample(&d, r) == 0.1);
    assert_true(fs_dist_mean(&d) == 0.1);
    assert_rel_close(fs_dist_moment2(&d), 0.01, 1e-15);
    fs_dist_fini(&d);
}

static void test_gamma(void **state)
{
    fs_dist d;
    assert_int_equal(fs_dist_gamma(&d, 2.0, 0.5), 0);
    assert_rel_close(fs_dist_moment2(&d), 5.0, 1e-12);
    check_moments(&d, *state, DRAWS);
    fs_dist_fini(&d);

    /* cv 2 (shape 1/4) is heavy: E[X^2] has relative sd 4.7/sqrt(n), so
     * 4e6 draws put 1% at about four standard errors. */
    assert_int_equal(fs_dist_gamma(&d, 2.0, 2.0), 0);
    assert_rel_close(fs_dist_moment2(&d), 20.0, 1e-12);
    check_moments(&d, *state, 4 * DRAWS);
    fs_dist_fini(&d);
}

static void test_uniform(void **state)
{
    gsl_rng *r = *state;
    fs_dist d;
    assert_int_equal(fs_dist_uniform(&d, 1.0, 3.0), 0);
    assert_true(fs_dist_mean(&d) == 2.0);
    assert_rel_close(fs_dist_moment2(&d), 13.0 / 3.0, 1e-12);
    for (int i = 0; i < 1000; i++) {
        double x = fs_dist_sample(&d, r);
        assert_true(x >= 1.0 && x <= 3.0);
    }
    check_moments(&d, r, DRAWS);
    fs_dist_fini(&d);

    assert_int_equal(fs_dist_uniform(&d, 0.5, 0.5), 0);
    assert_true(fs_dist_sample(&d, r) == 0.5);
    assert_rel_close(fs_dist_moment2(&d), 0.25, 1e-15);
    fs_dist_fini(&d);
}

static void test_empirical(void **state)
{
    gsl_rng *r = *state;
    enum { N = 5 };
    double src[N] = {4.0, 0.5, 2.0, 0.0, 1.0};
    const double sorted[N] = {0.0, 0.5, 1.0, 2.0, 4.0};
    fs_dist d;
    assert_int_equal(fs_dist_empirical(&d, src, N), 0);

    /* Owned and sorted: the caller's array is neither kept nor reordered. */
    assert_true(d.samples != src);
    assert_int_equal(d.n, N);
    assert_memory_equal(d.samples, sorted, sizeof sorted);
    assert_true(src[0] == 4.0 && src[3] == 0.0);
    src[0] = 99.0;
    assert_true(d.samples[N - 1] == 4.0);

    assert_rel_close(fs_dist_mean(&d), 7.5 / N, 1e-15);
    assert_rel_close(fs_dist_moment2(&d), 21.25 / N, 1e-15);

    long count[N] = {0};
    for (long i = 0; i < DRAWS; i++) {
        double x = fs_dist_sample(&d, r);
        size_t k = 0;
        while (k < N && sorted[k] != x)
            k++;
        if (k == N)
            fail_msg("drew %g, not in the sample set", x);
        count[k]++;
    }
    for (size_t k = 0; k < N; k++)
        assert_rel_close((double)count[k] / DRAWS, 1.0 / N, 0.05);

    check_moments(&d, r, DRAWS);
    fs_dist_fini(&d);
    assert_null(d.samples);
}

static void test_empirical_single(void **state)
{
    const double one = 3.25;
    fs_dist d;
    assert_int_equal(fs_dist_empirical(&d, &one, 1), 0);
    for (int i = 0; i < 100; i++)
        assert_true(fs_dist_sample(&d, *state) == 3.25);
    assert_true(fs_dist_mean(&d) == 3.25);
    fs_dist_fini(&d);
}

/* A rejected call must leave every byte of the caller's struct as it was. */
#define ASSERT_REJECTED(call)                                                            \
    do {                                                                                 \
        fs_dist d_, before_;                                                             \
        memset(&d_, 0xA5, sizeof d_);                                                    \
        memcpy(&before_, &d_, sizeof d_);                                                \
        fs_dist *d = &d_;                                                                \
        assert_int_equal((call), EINVAL);                                                \
        assert_memory_equal(&d_, &before_, sizeof d_);                                   \
    } while (0)

static void test_rejects_bad_parameters(void **state)
{
    (void)state;
    const double ok[3] = {1.0, 2.0, 3.0};
    const double neg[3] = {1.0, -2.0, 3.0};
    const double nan3[3] = {1.0, NAN, 3.0};
    const double inf3[3] = {1.0, INFINITY, 3.0};

    ASSERT_REJECTED(fs_dist_deterministic(d, -1.0));
    ASSERT_REJECTED(fs_dist_deterministic(d, NAN));
    ASSERT_REJECTED(fs_dist_deterministic(d, INFINITY));

    ASSERT_REJECTED(fs_dist_exponential(d, 0.0));
    ASSERT_REJECTED(fs_dist_exponential(d, -1.0));
    ASSERT_REJECTED(fs_dist_exponential(d, NAN));
    ASSERT_REJECTED(fs_dist_exponential(d, INFINITY));

    ASSERT_REJECTED(fs_dist_lognormal(d, 0.0, 1.0));
    ASSERT_REJECTED(fs_dist_lognormal(d, -1.0, 1.0));
    ASSERT_REJECTED(fs_dist_lognormal(d, INFINITY, 1.0));
    ASSERT_REJECTED(fs_dist_lognormal(d, 1.0, -0.1));
    ASSERT_REJECTED(fs_dist_lognormal(d, 1.0, NAN));
    ASSERT_REJECTED(fs_dist_lognormal(d, 1.0, INFINITY));

    ASSERT_REJECTED(fs_dist_gamma(d, 0.0, 1.0));
    ASSERT_REJECTED(fs_dist_gamma(d, -1.0, 1.0));
    ASSERT_REJECTED(fs_dist_gamma(d, NAN, 1.0));
    ASSERT_REJECTED(fs_dist_gamma(d, 1.0, 0.0));
    ASSERT_REJECTED(fs_dist_gamma(d, 1.0, -0.5));
    ASSERT_REJECTED(fs_dist_gamma(d, 1.0, NAN));
    ASSERT_REJECTED(fs_dist_gamma(d, 1.0, INFINITY));

    ASSERT_REJECTED(fs_dist_uniform(d, 2.0, 1.0));
    ASSERT_REJECTED(fs_dist_uniform(d, -1.0, 1.0));
    ASSERT_REJECTED(fs_dist_uniform(d, 0.0, INFINITY));
    ASSERT_REJECTED(fs_dist_uniform(d, NAN, 1.0));
    ASSERT_REJECTED(fs_dist_uniform(d, 0.0, NAN));

    ASSERT_REJECTED(fs_dist_empirical(d, ok, 0));
    ASSERT_REJECTED(fs_dist_empirical(d, NULL, 3));
    ASSERT_REJECTED(fs_dist_empirical(d, neg, 3));
    ASSERT_REJECTED(fs_dist_empirical(d, nan3, 3));
    ASSERT_REJECTED(fs_dist_empirical(d, inf3, 3));
}

/* Boundary values that are valid must be accepted. */
static void test_accepts_boundaries(void **state)
{
    (void)state;
    fs_dist d;
    assert_int_equal(fs_dist_deterministic(&d, 0.0), 0);
    assert_int_equal(fs_dist_lognormal(&d, 1e-9, 0.0), 0);
    assert_int_equal(fs_dist_uniform(&d, 0.0, 0.0), 0);
    assert_int_equal(fs_dist_gamma(&d, 1e-6, 1e-3), 0);
    const double zero = 0.0;
    assert_int_equal(fs_dist_empirical(&d, &zero, 1), 0);
    fs_dist_fini(&d);
}

static void test_fini_every_kind(void **state)
{
    (void)state;
    const double s[2] = {1.0, 2.0};
    fs_dist d;
    assert_int_equal(fs_dist_deterministic(&d, 1.0), 0);
    fs_dist_fini(&d);
    fs_dist_fini(&d);
    assert_int_equal(fs_dist_exponential(&d, 1.0), 0);
    fs_dist_fini(&d);
    assert_int_equal(fs_dist_lognormal(&d, 1.0, 1.0), 0);
    fs_dist_fini(&d);
    assert_int_equal(fs_dist_gamma(&d, 1.0, 1.0), 0);
    fs_dist_fini(&d);
    assert_int_equal(fs_dist_uniform(&d, 1.0, 2.0), 0);
    fs_dist_fini(&d);
    assert_int_equal(fs_dist_empirical(&d, s, 2), 0);
    fs_dist_fini(&d);
    fs_dist_fini(&d); /* twice: fini leaves nothing to free again */
    fs_dist_fini(NULL);
}

static void test_kind_names(void **state)
{
    (void)state;
    assert_string_equal(fs_dist_kind_name(FS_DIST_DETERMINISTIC), "deterministic");
    assert_string_equal(fs_dist_kind_name(FS_DIST_EXPONENTIAL), "exponential");
    assert_string_equal(fs_dist_kind_name(FS_DIST_LOGNORMAL), "lognormal");
    assert_string_equal(fs_dist_kind_name(FS_DIST_GAMMA), "gamma");
    assert_string_equal(fs_dist_kind_name(FS_DIST_UNIFORM), "uniform");
    assert_string_equal(fs_dist_kind_name(FS_DIST_EMPIRICAL), "empirical");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_deterministic, setup_rng, teardown_rng),
        cmocka_unit_test_setup_teardown(test_exponential, setup_rng, teardown_rng),
        cmocka_unit_test_setup_teardown(test_lognormal, setup_rng, teardown_rng),
        cmocka_unit_test_setup_teardown(test_lognormal_median, setup_rng, teardown_rng),
        cmocka_unit_test_setup_teardown(test_lognormal_no_spread, setup_rng, teardown_rng),
        cmocka_unit_test_setup_teardown(test_gamma, setup_rng, teardown_rng),
        cmocka_unit_test_setup_teardown(test_uniform, setup_rng, teardown_rng),
        cmocka_unit_test_setup_teardown(test_empirical, setup_rng, teardown_rng),
        cmocka_unit_test_setup_teardown(test_empirical_single, setup_rng, teardown_rng),
        cmocka_unit_test(test_rejects_bad_parameters),
        cmocka_unit_test(test_accepts_boundaries),
        cmocka_unit_test(test_fini_every_kind),
        cmocka_unit_test(test_kind_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

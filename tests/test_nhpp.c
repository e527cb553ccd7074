/*
 * test_nhpp — arrival counts match the integrated rate, zero-rate pieces stay
 * empty, the limit is honoured, and common random numbers reproduce times.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "nhpp.h"
#include "rng.h"

/* ---- rate functions ---------------------------------------------------- */

typedef struct constant_rate {
    double rate;
    long calls;
} constant_rate;

static double constant_fn(void *ctx, double t, double *piece_end)
{
    constant_rate *c = ctx;
    (void)t;
    c->calls++;
    *piece_end = INFINITY;
    return c->rate;
}

#define HOUR 3600.0
#define HOURS 24

/* Arrivals per second for each hour of the day, with idle hours. */
static const double hourly[HOURS] = {0.0, 0.0,  0.0,  0.0,  0.5,  1.0,  2.0,  5.0,
                                     10.0, 15.0, 20.0, 20.0, 18.0, 20.0, 20.0, 15.0,
                                     10.0, 5.0,  0.0,  0.0,  3.0,  2.0,  1.0,  0.0};

typedef struct daily_profile {
    long calls;
} daily_profile;

/* Hour boundaries are integer multiples of 3600, exact in double, so the
 * piece found for t = previous piece_end is always the next one. */
static double daily_fn(void *ctx, double t, double *piece_end)
{
    daily_profile *p = ctx;
    p->calls++;
    double k = floor(t / HOUR);
    *piece_end = (k + 1.0) * HOUR;
    return hourly[(long)k % HOURS];
}

/* 1/128 s pieces alternating 0 and 256/s: exact binary boundaries, many
 * pieces per arrival, mean rate 128/s. */
#define SHORT_PIECE (1.0 / 128.0)
static double flicker_fn(void *ctx, double t, double *piece_end)
{
    (void)ctx;
    double k = floor(t / SHORT_PIECE);
    *piece_end = (k + 1.0) * SHORT_PIECE;
    return fmod(k, 2.0) == 0.0 ? 0.0 : 256.0;
}

/* Rate 2/s on [0, 10), then zero forever. */
static double burst_then_silence_fn(void *ctx, double t, double *piece_end)
{
    (void)ctx;
    if (t < 10.0) {
        *piece_end = 10.0;
        return 2.0;
    }
    *piece_end = INFINITY;
    return 0.0;
}

/* Zero on [0, 100), then 1/s forever. */
static double late_start_fn(void *ctx, double t, double *piece_end)
{
    (void)ctx;
    if (t < 100.0) {
        *piece_end = 100.0;
        return 0.0;
    }
    *piece_end = INFINITY;
    return 1.0;
}

/* ---- fixtures ---------------------------------------------------------- */

static int setup_rng(void **state)
{
    *state = fs_rng_create(7, 0, "arrivals/test");
    return *state == NULL ? -1 : 0;
}

static int teardown_rng(void **state)
{
    fs_rng_destroy(*state);
    return 0;
}

/* ---- tests ------------------------------------------------------------- */

/* Rate 100/s over 1e4 s: the count has sd 1000 (0.1%) and the inter-arrival
 * CV has sd ~0.15%, so 1% tolerances are several sd wide. */
static void test_constant_rate(void **state)
{
    gsl_rng *r = *state;
    const double horizon = 1e4;
    constant_rate c = {100.0, 0};
    fs_nhpp p;
    fs_nhpp_init(&p, constant_fn, &c);

    long n = 0;
    double s1 = 0.0, s2 = 0.0, now = 0.0;
    for (;;) {
        double t = fs_nhpp_next(&p, now, horizon, r);
        if (t == INFINITY)
            break;
        assert_true(t > now && t <= horizon);
        double gap = t - now;
        s1 += gap;
        s2 += gap * gap;
        n++;
        now = t;
    }
    assert_true(fabs((double)n - 1e6) <= 0.01 * 1e6);
    double mean = s1 / (double)n;
    double sd = sqrt(s2 / (double)n - mean * mean);
    assert_true(fabs(mean - 0.01) <= 0.01 * 0.01);
    assert_true(fabs(sd / mean - 1.0) <= 0.01);
    /* One endless piece: looked up once, then served from the cache. */
    assert_int_equal(c.calls, 1);
}

static void test_piecewise_daily_profile(void **state)
{
    gsl_rng *r = *state;
    enum { DAYS = 2, PIECES = DAYS * HOURS };
    daily_profile prof = {0};
    fs_nhpp p;
    fs_nhpp_init(&p, daily_fn, &prof);

    long count[PIECES] = {0};
    double now = 0.0;
    for (;;) {
        double t = fs_nhpp_next(&p, now, DAYS * 24 * HOUR, r);
        if (t == INFINITY)
            break;
        assert_true(t > now);
        long k = (long)floor(t / HOUR);
        assert_true(k >= 0 && k < PIECES);
        count[k]++;
        now = t;
    }
    for (long k = 0; k < PIECES; k++) {
        double want = hourly[k % HOURS] * HOUR;
        if (want == 0.0) {
            assert_int_equal(count[k], 0);
            continue;
        }
        if (fabs((double)count[k] - want) > 3.0 * sqrt(want))
            fail_msg("hour %ld: %ld arrivals, expected %.0f +- %.0f", k, count[k], want,
                     3.0 * sqrt(want));
    }
    /* Each hour looked up exactly once: arrivals within an hour hit the cache. */
    assert_int_equal(prof.calls, PIECES);
}

static void test_many_short_pieces(void **state)
{
    gsl_rng *r = *state;
    const double horizon = 1000.0, want = 128.0 * horizon;
    fs_nhpp p;
    fs_nhpp_init(&p, flicker_fn, NULL);

    long n = 0;
    double now = 0.0;
    for (;;) {
        double t = fs_nhpp_next(&p, now, horizon, r);
        if (t == INFINITY)
            break;
        assert_true(t > now && t <= horizon);
        /* Odd pieces carry the rate; an arrival in an even one is a bug. */
        assert_true(fmod(floor(t / SHORT_PIECE), 2.0) == 1.0);
        n++;
        now = t;
    }
    assert_true(fabs((double)n - want) <= 3.0 * sqrt(want));
}

static void test_zero_rate_forever(void **state)
{
    gsl_rng *r = *state;
    constant_rate c = {0.0, 0};
    fs_nhpp p;
    fs_nhpp_init(&p, constant_fn, &c);
    assert_true(fs_nhpp_next(&p, 0.0, INFINITY, r) == INFINITY);
    assert_true(fs_nhpp_next(&p, 5.0, 1e9, r) == INFINITY);
    assert_true(fs_nhpp_next(&p, 1e12, INFINITY, r) == INFINITY);
}

static void test_rate_stops(void **state)
{
    gsl_rng *r = *state;
    fs_nhpp p;
    fs_nhpp_init(&p, burst_then_silence_fn, NULL);
    long n = 0;
    double now = 0.0;
    for (;;) {
        double t = fs_nhpp_next(&p, now, INFINITY, r);
        if (t == INFINITY)
            break;
        assert_true(t > now && t < 10.0);
        n++;
        now = t;
    }
    /* Poisson(20): 20 +- 6 sd covers everything but a broken walk. */
    assert_true(n > 0 && n < 50);
    assert_true(fs_nhpp_next(&p, 20.0, INFINITY, r) == INFINITY);
}

static void test_limit_respected(void **state)
{
    gsl_rng *r = *state;

    /* Rate 1/s, limit 5, restarted 2000 times: never beyond 5, and the
     * total count over all restarts is Poisson(10000). */
    long total = 0;
    for (int rep = 0; rep < 2000; rep++) {
        constant_rate c = {1.0, 0};
        fs_nhpp p;
        fs_nhpp_init(&p, constant_fn, &c);
        double now = 0.0;
        for (;;) {
            double t = fs_nhpp_next(&p, now, 5.0, r);
            if (t == INFINITY)
                break;
            assert_true(t > now && t <= 5.0);
            total++;
            now = t;
        }
    }
    assert_true(labs(total - 10000) < 500); /* 5 sd */

    /* The only rate lies beyond the limit: nothing before it. */
    fs_nhpp p;
    fs_nhpp_init(&p, late_start_fn, NULL);
    assert_true(fs_nhpp_next(&p, 0.0, 50.0, r) == INFINITY);
    assert_true(fs_nhpp_next(&p, 50.0, 100.0, r) == INFINITY);
    /* Raising the limit past 100 finds it (P(no arrival by 200) = e^-100). */
    double t = fs_nhpp_next(&p, 60.0, 200.0, r);
    assert_true(t >= 100.0 && t <= 200.0);
    /* now at or past the limit: nothing. */
    assert_true(fs_nhpp_next(&p, 300.0, 300.0, r) == INFINITY);
    assert_true(fs_nhpp_next(&p, 400.0, 350.0, r) == INFINITY);
}

/* The caller may advance now past the cached piece between calls. */
static void test_now_jumps_ahead(void **state)
{
    gsl_rng *r = *state;
    daily_profile prof = {0};
    fs_nhpp p;
    fs_nhpp_init(&p, daily_fn, &prof);
    double now = 0.0;
    for (int i = 0; i < 2000; i++) {
        double t = fs_nhpp_next(&p, now, INFINITY, r);
        assert_true(t > now && isfinite(t));
        assert_true(hourly[(long)floor(t / HOUR) % HOURS] > 0.0);
        /* Skip ahead an irregular amount, often across several hours. */
        now = t + (double)((i * 7919) % 20000);
    }
}

static void test_common_random_numbers(void **state)
{
    (void)state;
    enum { N = 20000 };
    gsl_rng *r1 = fs_rng_create(99, 2, "arrivals/chat");
    gsl_rng *r2 = fs_rng_create(99, 2, "arrivals/chat");
    gsl_rng *other = fs_rng_create(99, 2, "service/chat");
    assert_non_null(r1);
    assert_non_null(r2);
    assert_non_null(other);

    daily_profile prof1 = {0}, prof2 = {0};
    fs_nhpp p1, p2;
    fs_nhpp_init(&p1, daily_fn, &prof1);
    fs_nhpp_init(&p2, daily_fn, &prof2);

    double t1 = 0.0, t2 = 0.0;
    for (int i = 0; i < N; i++) {
        t1 = fs_nhpp_next(&p1, t1, INFINITY, r1);
        /* What else the second run draws must not matter. */
        (void)gsl_rng_uniform(other);
        t2 = fs_nhpp_next(&p2, t2, INFINITY, r2);
        assert_true(isfinite(t1));
        assert_memory_equal(&t1, &t2, sizeof t1);
    }
    fs_rng_destroy(r1);
    fs_rng_destroy(r2);
    fs_rng_destroy(other);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_constant_rate, setup_rng, teardown_rng),
        cmocka_unit_test_setup_teardown(test_piecewise_daily_profile, setup_rng, teardown_rng),
        cmocka_unit_test_setup_teardown(test_many_short_pieces, setup_rng, teardown_rng),
        cmocka_unit_test_setup_teardown(test_zero_rate_forever, setup_rng, teardown_rng),
        cmocka_unit_test_setup_teardown(test_rate_stops, setup_rng, teardown_rng),
        cmocka_unit_test_setup_teardown(test_limit_respected, setup_rng, teardown_rng),
        cmocka_unit_test_setup_teardown(test_now_jumps_ahead, setup_rng, teardown_rng),
        cmocka_unit_test(test_common_random_numbers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

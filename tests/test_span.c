/*
 * test_span — span.h: the rate over the span a stream covers and its
 * busiest clock hour, on hand-computed cases (partial first and last hours,
 * an event at the interval's end on the hour, events outside the interval,
 * no data) and against a recount of random streams that keeps every event.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "span.h"

static void assert_near(double got, double want, double tol)
{
    if (!(fabs(got - want) <= tol))
        fail_msg("got %.17g, want %.17g (tolerance %g)", got, want, tol);
}

/* Fewer than two events, or all at one instant: no span, no rate. */
static void test_no_data(void **state)
{
    (void)state;
    fs_span s;
    fs_span_init(&s, 0, 7200);
    assert_true(isnan(fs_span_rate(&s)));
    assert_true(isnan(fs_span_peak_hour_rate(&s)));
    assert_true(isnan(fs_span_length(&s)));
    fs_span_add(&s, 100);
    assert_true(isnan(fs_span_rate(&s)));
    assert_true(isnan(fs_span_peak_hour_rate(&s)));
    fs_span_add(&s, 100);
    assert_int_equal(s.n, 2);
    assert_true(isnan(fs_span_rate(&s)));
    assert_true(isnan(fs_span_peak_hour_rate(&s)));
    fs_span_add(&s, 101);
    assert_near(fs_span_rate(&s), 2.0, 0);
    assert_near(fs_span_length(&s), 1.0, 0);
}

/* The interval is [from, to], both ends in; the rest is ignored.  Two hours
 * of one event a second inside a day: one per second, not a twelfth. */
static void test_rate_over_span(void **state)
{
    (void)state;
    fs_span s;
    fs_span_init(&s, 1800, 86400);
    for (int k = 0; k < 1800; k++)
        fs_span_add(&s, k); /* warm-up: ignored */
    for (int k = 0; k < 7200; k++)
        fs_span_add(&s, 3600 + k); /* 3600 .. 10799 */
    fs_span_add(&s, 86400.5);  /* past the end: ignored */
    assert_int_equal(s.n, 7200);
    assert_near(s.first, 3600, 0);
    assert_near(s.last, 10799, 0);
    assert_near(fs_span_length(&s), 7199, 0);
    assert_near(fs_span_rate(&s), 1.0, 1e-15); /* 7199 gaps over 7199 s */
    assert_near(fs_span_peak_hour_rate(&s), 1.0, 0); /* 3600 in each of two full hours */
    /* The boundaries are in. */
    fs_span_init(&s, 10, 20);
    fs_span_add(&s, 10);
    fs_span_add(&s, 20);
    assert_int_equal(s.n, 2);
    assert_near(fs_span_rate(&s), 0.1, 1e-15);
    /* Both in hour 0, cut to [10, 20]: 2 over 10 s. */
    assert_near(fs_span_peak_hour_rate(&s), 0.2, 1e-15);
}

/* Hours cut by the interval are judged by their seconds in it; an event at
 * `to` on the hour counts in the hour that ends there. */
static void test_peak_hour(void **state)
{
    (void)state;
    fs_span s;
    /* [00:30, 02:30]: 10 events in the half hour 00:30-01:00 (10/1800 s),
     * 30 in 01:00-02:00 (30/3600), 5 in 02:00-02:30 (5/1800). */
    fs_span_init(&s, 1800, 9000);
    for (int k = 0; k < 10; k++)
        fs_span_add(&s, 1800 + 100 * k);
    for (int k = 0; k < 30; k++)
        fs_span_add(&s, 3600 + 100 * k);
    for (int k = 0; k < 5; k++)
        fs_span_add(&s, 7200 + 300 * k);
    assert_near(fs_span_peak_hour_rate(&s), 30.0 / 3600, 1e-15);
    /* The last (open) hour is the busiest once it gets 16 in its half hour. */
    for (int k = 0; k < 11; k++)
        fs_span_add(&s, 8800 + 10 * k);
    assert_near(fs_span_peak_hour_rate(&s), 16.0 / 1800, 1e-15);

    /* [0, 2 h]: events at 01:00 and at 02:00, the end: both in 01:00-02:00. */
    fs_span_init(&s, 0, 7200);
    fs_span_add(&s, 3600);
    fs_span_add(&s, 7200);
    assert_near(fs_span_peak_hour_rate(&s), 2.0 / 3600, 1e-15);
    assert_near(fs_span_rate(&s), 1.0 / 3600, 1e-15);
    /* Skipped hours are simply quiet: 3 events at 00:10, 4 at 05:10. */
    fs_span_init(&s, 0, 86400);
    for (int k = 0; k < 3; k++)
        fs_span_add(&s, 600 + k);
    for (int k = 0; k < 4; k++)
        fs_span_add(&s, 5 * 3600 + 600 + k);
    assert_near(fs_span_peak_hour_rate(&s), 4.0 / 3600, 1e-15);
    assert_near(fs_span_rate(&s), 6.0 / (5 * 3600 + 3), 1e-15);
}

/* Random streams over random intervals against a recount that keeps every
 * event: per hour, count and cut length, then the largest rate. */
static void test_against_recount(void **state)
{
    (void)state;
    srand(7);
    enum { N = 4000 };
    static double t[N];
    for (int trial = 0; trial < 200; trial++) {
        double from = (double)(rand() % 20000), to = from + 1 + (double)(rand() % 40000);
        if (trial % 5 == 0)
            to = ceil(to / 3600) * 3600; /* on the hour, with events there too */
        int n = 2 + rand() % (N - 2);
        double at = from - 500;
        for (int k = 0; k < n; k++) {
            at += (to - from + 1000) / n * 2 * rand() / RAND_MAX;
            t[k] = rand() % 50 == 0 ? floor(at / 3600) * 3600 : at; /* some exactly on an hour */
            if (k > 0 && t[k] < t[k - 1])
                t[k] = t[k - 1];
            if (trial % 5 == 0 && k == n - 1)
                t[k] = to;
        }
        fs_span s;
        fs_span_init(&s, from, to);
        for (int k = 0; k < n; k++)
            fs_span_add(&s, t[k]);
        /* The recount. */
        uint64_t in = 0;
        double first = NAN, last = NAN, peak = 0;
        int64_t h0 = (int64_t)floor(from / 3600), h1 = (int64_t)ceil(to / 3600) - 1;
        for (int64_t h = h0; h <= h1; h++) {
            double lo = fmax((double)h * 3600, from), hi = fmin((double)(h + 1) * 3600, to);
            uint64_t c = 0;
            for (int k = 0; k < n; k++) {
                bool inside = t[k] >= from && t[k] <= to;
                bool here = t[k] >= (double)h * 3600 && (t[k] < (double)(h + 1) * 3600 || (h == h1 && t[k] == to));
                c += inside && here;
            }
            if (hi > lo && c / (hi - lo) > peak)
                peak = c / (hi - lo);
        }
        for (int k = 0; k < n; k++) {
            if (!(t[k] >= from && t[k] <= to))
                continue;
            in++;
            if (isnan(first))
                first = t[k];
            last = t[k];
        }
        assert_int_equal(s.n, in);
        if (in < 2 || !(last > first)) {
            assert_true(isnan(fs_span_rate(&s)));
            assert_true(isnan(fs_span_peak_hour_rate(&s)));
            continue;
        }
        assert_near(fs_span_rate(&s), (double)(in - 1) / (last - first), 1e-12 * fs_span_rate(&s));
        assert_near(fs_span_peak_hour_rate(&s), peak, 1e-12 * peak);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_data),
        cmocka_unit_test(test_rate_over_span),
        cmocka_unit_test(test_peak_hour),
        cmocka_unit_test(test_against_recount),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

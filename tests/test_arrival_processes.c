/*
 * test_arrival_processes — the arrival processes beyond Poisson
 * (models/workload/arrivals.h, modulation.h) against their closed forms:
 * an MMPP's long-run rate, time shares, jumps and index of dispersion; group
 * sizes and compound-Poisson counts; noise's mixed-Poisson variance and
 * AR(1) covariance; growth's and daily levels' expected counts; the
 * analytic mean rate of a composed profile; determinism; and, through runs,
 * groups reaching the service, conservation with groups, and the settling
 * diagnostics skipping a modulated service; and a training stream's shaped
 * submissions (profile, growth, groups of jobs), the same process for jobs.
 *
 * Points are drawn straight from fs_arrival_stream (no simulator), from
 * specs parsed out of scenario documents, so what is tested is what a run
 * uses.  Every statistical comparison states its interval: R independent
 * replications give R values of a statistic, and their mean must lie within
 * 4 standard errors (sd / sqrt(R)) of the theory; a Poisson total N must lie
 * within 4 sqrt(E[N]) of E[N].  A fixed seed makes each outcome the same on
 * every run; none of the figures was tuned to pass.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "arrivals.h"
#include "modulation.h"
#include "nhpp.h"
#include "rng.h"
#include "run.h"
#include "scenario.h"
#include "testutil.h"

#define SEED 20240519
#define DAY 86400.0
#define REPS 40

/* ---- helpers ---------------------------------------------------------------- */

/* A one-service scenario whose "arrivals" is the given JSON object. */
static fs_scenario *with_arrivals(const char *arrivals)
{
    return test_scenario("{\"schema\": \"fleetsim/1\", \"horizon\": \"5d\", \"seed\": 1,"
                         " \"pools\": [{\"name\": \"p\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 1}],"
                         " \"services\": [{\"name\": \"s\", \"arrivals\": %s,"
                         " \"service_time\": {\"exponential\": {\"mean\": \"1ms\"}}}]}",
                         arrivals);
}

/* Requests in each window of length w over [0, n w) of replication rep. */
static void window_counts(const fs_arrivals *a, uint32_t rep, double w, size_t n, double *counts)
{
    fs_arrival_stream s;
    assert_int_equal(fs_arrival_stream_init(&s, a, 0, SEED, rep, "s"), 0);
    memset(counts, 0, n * sizeof *counts);
    uint32_t g;
    for (double t = fs_arrival_stream_next(&s, 0, w * (double)n, &g); isfinite(t);
         t = fs_arrival_stream_next(&s, t, w * (double)n, &g)) {
        size_t k = (size_t)(t / w);
        counts[k < n ? k : n - 1] += g;
    }
    fs_arrival_stream_fini(&s);
}

/* Requests (returned) and points (*points) of replication rep over [0, h),
 * weekday at t = 0 as given. */
static double stream_total(const fs_arrivals *a, int weekday, uint32_t rep, double h, double *points)
{
    fs_arrival_stream s;
    assert_int_equal(fs_arrival_stream_init(&s, a, weekday, SEED, rep, "s"), 0);
    double requests = 0;
    *points = 0;
    uint32_t g;
    for (double t = fs_arrival_stream_next(&s, 0, h, &g); isfinite(t); t = fs_arrival_stream_next(&s, t, h, &g)) {
        assert_true(g >= 1);
        (*points)++;
        requests += g;
    }
    fs_arrival_stream_fini(&s);
    return requests;
}

/* counts summed `per` at a time into n windows of out. */
static void merge_windows(const double *counts, size_t per, size_t n, double *out)
{
    for (size_t k = 0; k < n; k++) {
        out[k] = 0;
        for (size_t j = 0; j < per; j++)
            out[k] += counts[k * per + j];
    }
}

/* An MMPP's chain alone, on its own stream, over [0, h) of replication
 * rep: time in each state into in[], and the jumps out of state 0 and from
 * it to state 1. */
static void mmpp_walk(const fs_arrivals *a, uint32_t rep, double h, double *in, unsigned *from0, unsigned *from0_to1)
{
    gsl_rng *rng = fs_rng_create(SEED, rep, "modulation/s");
    fs_modulation m = {.spec = a, .rng = rng};
    assert_int_equal(fs_modulation_mmpp.start(&m), 0);
    *from0 = *from0_to1 = 0;
    for (double t = 0; t < h;) {
        double end = fmin(m.until, h);
        in[m.state] += end - t;
        t = end;
        uint32_t was = m.state;
        fs_modulation_mmpp.next(&m);
        assert_int_not_equal(m.state, was);
        *from0 += was == 0;
        *from0_to1 += was == 0 && m.state == 1;
    }
    fs_rng_destroy(rng);
}

static double mean_of(const double *x, size_t n)
{
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += x[i];
    return sum / (double)n;
}

/* Sample variance (n - 1) about the sample mean. */
static double var_of(const double *x, size_t n)
{
    double m = mean_of(x, n), ss = 0;
    for (size_t i = 0; i < n; i++)
        ss += (x[i] - m) * (x[i] - m);
    return ss / (double)(n - 1);
}

/* The mean of r replications' values of a statistic within 4 standard
 * errors of theory; prints both and the interval. */
static void within_4se(const char *what, double theory, const double *values, size_t r)
{
    double m = mean_of(values, r), se = sqrt(var_of(values, r) / (double)r);
    printf("  %-52s theory %12.6g  simulated %12.6g +- %.3g (4 SE of %zu replications)\n", what, theory, m,
           4 * se, r);
    assert_true(se > 0);
    assert_true(fabs(m - theory) <= 4 * se);
}

/* A Poisson total within 4 sqrt(E[N]) of its expectation. */
static void poisson_total(const char *what, double expected, double got)
{
    printf("  %-52s theory %12.6g  simulated %12.0f +- %.3g (4 sqrt(E[N]))\n", what, expected, got,
           4 * sqrt(expected));
    assert_true(fabs(got - expected) <= 4 * sqrt(expected));
}

/* ---- MMPP ------------------------------------------------------------------- */

/* The index of dispersion of counts over windows of length t of a
 * stationary 2-state MMPP with rates l1, l2 and exit rates r1, r2 (Fischer
 * & Meier-Hellstern 1993, the MMPP cookbook). */
static double mmpp2_idc(double l1, double l2, double r1, double r2, double t)
{
    double s = r1 + r2;
    return 1 + 2 * (l1 - l2) * (l1 - l2) * r1 * r2 / (s * s * (l1 * r2 + l2 * r1)) * (1 - (1 - exp(-s * t)) / (s * t));
}

/* Two states: 20 requests/s for a mean 2 s, 2/s for a mean 6 s.  Shares
 * 1/4, 3/4; rate 6.5/s; IDC from 8.6 at 1 s to 28.6 at 100 s.  Per
 * replication 40,000 s (many relaxation times, 1/(r1 + r2) = 1.5 s: the
 * sample variance's bias from correlated windows is under 0.5%, a fraction
 * of the interval). */
static void test_mmpp_two_states(void **state)
{
    (void)state;
    fs_scenario *sc = with_arrivals("{\"mmpp\": {\"states\": [{\"rps\": 20, \"mean_sojourn\": \"2s\"},"
                                    " {\"rps\": 2, \"mean_sojourn\": \"6s\"}]}}");
    const fs_arrivals *a = &sc->services[0].arrivals;
    const double H = 40000, l1 = 20, l2 = 2, r1 = 0.5, r2 = 1.0 / 6;
    assert_true(fabs(a->base_rps - 6.5) < 1e-12);
    fs_arrival_profile prof = {.spec = a};
    assert_true(fabs(fs_arrivals_mean_rate(&prof, 0, DAY) - 6.5) < 1e-9);
    assert_true(fabs(fs_arrivals_peak_rate(&prof, 0, DAY) - 20) < 1e-9);

    static const double windows[] = {1, 5, 20, 100};
    double rate[REPS], share[REPS], idc[4][REPS];
    static double counts[40000];
    for (uint32_t rep = 0; rep < REPS; rep++) {
        window_counts(a, rep, 1, (size_t)H, counts);
        rate[rep] = mean_of(counts, (size_t)H);
        for (size_t w = 0; w < 4; w++) {
            size_t n = (size_t)(H / windows[w]);
            static double merged[40000];
            merge_windows(counts, (size_t)windows[w], n, merged);
            idc[w][rep] = var_of(merged, n) / mean_of(merged, n);
        }
        double in[2] = {0};
        unsigned from0, from0_to1;
        mmpp_walk(a, rep, H, in, &from0, &from0_to1);
        share[rep] = in[0] / H;
    }
    within_4se("MMPP-2 long-run rate (requests/s)", 6.5, rate, REPS);
    within_4se("MMPP-2 share of time in state 0 (20/s)", 0.25, share, REPS);
    for (size_t w = 0; w < 4; w++) {
        char what[64];
        snprintf(what, sizeof what, "MMPP-2 IDC(%gs)", windows[w]);
        within_4se(what, mmpp2_idc(l1, l2, r1, r2, windows[w]), idc[w], REPS);
    }
    fs_scenario_destroy(sc);
}

/* Three states, means 1, 3, 6 s: shares 0.1, 0.3, 0.6 (time in a state is
 * proportional to its mean sojourn when the jump chain is uniform), rate
 * 0.1 x 30 + 0.3 x 10 = 6/s, and from state 0 each other state half the
 * time. */
static void test_mmpp_three_states(void **state)
{
    (void)state;
    fs_scenario *sc = with_arrivals("{\"mmpp\": {\"states\": [{\"rps\": 30, \"mean_sojourn\": 1},"
                                    " {\"rps\": 10, \"mean_sojourn\": 3}, {\"rps\": 0, \"mean_sojourn\": 6}]}}");
    const fs_arrivals *a = &sc->services[0].arrivals;
    const double H = 20000, shares[3] = {0.1, 0.3, 0.6};
    assert_true(fabs(a->base_rps - 6) < 1e-12);
    double rate[REPS], share[3][REPS], to1[REPS];
    static double counts[20000];
    for (uint32_t rep = 0; rep < REPS; rep++) {
        window_counts(a, rep, 1, (size_t)H, counts);
        rate[rep] = mean_of(counts, (size_t)H);
        double in[3] = {0};
        unsigned from0, from0_to1;
        mmpp_walk(a, rep, H, in, &from0, &from0_to1);
        for (size_t i = 0; i < 3; i++)
            share[i][rep] = in[i] / H;
        to1[rep] = (double)from0_to1 / from0;
    }
    within_4se("MMPP-3 long-run rate (requests/s)", 6, rate, REPS);
    for (size_t i = 0; i < 3; i++) {
        char what[64];
        snprintf(what, sizeof what, "MMPP-3 share of time in state %zu", i);
        within_4se(what, shares[i], share[i], REPS);
    }
    within_4se("MMPP-3 jumps from state 0 that go to state 1", 0.5, to1, REPS);
    fs_scenario_destroy(sc);
}

/* ---- groups ----------------------------------------------------------------- */

/* Compound Poisson at request rate lambda: points at lambda / E[G], counts
 * over any window of mean lambda T and IDC E[G^2] / E[G] (independent
 * increments, so every window length agrees). */
static void check_groups(const char *arrivals, const char *name, double mean_g, double idc)
{
    fs_scenario *sc = with_arrivals(arrivals);
    const fs_arrivals *a = &sc->services[0].arrivals;
    const double lambda = 12, H = 5000;
    assert_true(fabs(a->groups.mean - mean_g) < 1e-12);
    assert_true(fabs(a->groups.mean_square / a->groups.mean - idc) < 1e-12);
    double g_mean[REPS], rate[REPS], idc1[REPS], idc10[REPS];
    static double counts[5000], tens[500];
    for (uint32_t rep = 0; rep < REPS; rep++) {
        double points, requests = stream_total(a, 0, rep, H, &points);
        g_mean[rep] = requests / points;
        window_counts(a, rep, 1, (size_t)H, counts);
        rate[rep] = mean_of(counts, (size_t)H);
        idc1[rep] = var_of(counts, (size_t)H) / rate[rep];
        merge_windows(counts, 10, 500, tens);
        idc10[rep] = var_of(tens, 500) / mean_of(tens, 500);
    }
    char what[96];
    snprintf(what, sizeof what, "groups %s: mean group size", name);
    if (mean_g == 1) /* every group is one request: no spread to judge by */
        for (uint32_t rep = 0; rep < REPS; rep++)
            assert_true(g_mean[rep] == 1);
    else
        within_4se(what, mean_g, g_mean, REPS);
    snprintf(what, sizeof what, "groups %s: requests/s (1 s windows)", name);
    within_4se(what, lambda, rate, REPS);
    snprintf(what, sizeof what, "groups %s: IDC(1s) = E[G^2]/E[G]", name);
    within_4se(what, idc, idc1, REPS);
    snprintf(what, sizeof what, "groups %s: IDC(10s)", name);
    within_4se(what, idc, idc10, REPS);
    fs_scenario_destroy(sc);
}

/* Geometric of mean 3: q = 1/3, E[G^2] = (2 - q) / q^2 = 15, IDC 5.
 * Listed: sizes 1, 2, 10 at 0.5, 0.3, 0.2: E[G] = 3.1, E[G^2] = 21.7, IDC 7. */
static void test_groups(void **state)
{
    (void)state;
    check_groups("{\"poisson_rps\": 12, \"groups\": {\"mean\": 3}}", "geometric(3)", 3, 5);
    check_groups("{\"poisson_rps\": 12, \"groups\": {\"sizes\": [1, 2, 10], \"weights\": [0.5, 0.3, 0.2]}}",
                 "{1,2,10}", 3.1, 7);
    /* Mean 1 is every point one request: the plain process. */
    check_groups("{\"poisson_rps\": 12, \"groups\": {\"mean\": 1}}", "geometric(1)", 1, 1);
}

/* ---- noise ------------------------------------------------------------------- */

/* Windows that are the intervals: N | X ~ Poisson(m X), so E N = m and
 * Var N = m + m^2 Var X = m + m^2 c^2; with an AR(1) log, adjacent windows
 * covary by m^2 Cov(X_k, X_k+1) = m^2 (exp(rho sigma^2) - 1) (E X = 1). */
static void check_noise(const char *arrivals, const char *name, double cov_lag1)
{
    fs_scenario *sc = with_arrivals(arrivals);
    const fs_arrivals *a = &sc->services[0].arrivals;
    const double base = 50, D = 10, c = 0.5, m = base * D;
    const size_t n = 2000;
    fs_arrival_profile prof = {.spec = a};
    assert_true(fabs(fs_arrivals_mean_rate(&prof, 0, DAY) - base) < 1e-9);
    assert_true(fabs(fs_arrivals_peak_rate(&prof, 0, DAY) - base) < 1e-9);
    double mean[REPS], var[REPS], cov[REPS];
    static double counts[2000];
    for (uint32_t rep = 0; rep < REPS; rep++) {
        window_counts(a, rep, D, n, counts);
        mean[rep] = mean_of(counts, n);
        var[rep] = var_of(counts, n);
        double cv = 0;
        for (size_t k = 0; k + 1 < n; k++)
            cv += (counts[k] - mean[rep]) * (counts[k + 1] - mean[rep]);
        cov[rep] = cv / (double)(n - 2);
    }
    char what[96];
    snprintf(what, sizeof what, "noise %s: mean count per interval", name);
    within_4se(what, m, mean, REPS);
    snprintf(what, sizeof what, "noise %s: Var N = m + m^2 c^2", name);
    within_4se(what, m + m * m * c * c, var, REPS);
    snprintf(what, sizeof what, "noise %s: Cov(N_k, N_k+1)", name);
    within_4se(what, cov_lag1, cov, REPS);
    fs_scenario_destroy(sc);
}

static void test_noise(void **state)
{
    (void)state;
    check_noise("{\"poisson_rps\": 50, \"noise\": {\"distribution\": \"lognormal\", \"cv\": 0.5, \"interval\": 10}}",
                "lognormal", 0);
    check_noise("{\"poisson_rps\": 50, \"noise\": {\"distribution\": \"gamma\", \"cv\": 0.5, \"interval\": 10}}",
                "gamma", 0);
    double s2 = log1p(0.25), rho = exp(-10.0 / 20);
    check_noise("{\"poisson_rps\": 50, \"noise\": {\"distribution\": \"lognormal\", \"cv\": 0.5, \"interval\": 10,"
                " \"correlation_time\": 20}}",
                "lognormal AR(1)", 500.0 * 500 * expm1(rho * s2));
}

/* ---- trend ------------------------------------------------------------------- */

/* The expected count over [0, T] at base rate b growing by g per period P:
 * b P ((1 + g)^(T / P) - 1) / ln(1 + g). */
static double growth_integral(double b, double g, double P, double T)
{
    return b * P * (pow(1 + g, T / P) - 1) / log1p(g);
}

/* Totals over 20 replications of 2 days, +50% and -30% a day. */
static void test_growth(void **state)
{
    (void)state;
    static const char *const docs[] = {"{\"poisson_rps\": 1, \"growth\": \"50%/day\"}",
                                       "{\"poisson_rps\": 1, \"growth\": \"-30%/day\"}"};
    static const double g[] = {0.5, -0.3};
    for (size_t k = 0; k < 2; k++) {
        fs_scenario *sc = with_arrivals(docs[k]);
        const fs_arrivals *a = &sc->services[0].arrivals;
        assert_true(a->growth == g[k] && a->growth_period_s == DAY);
        double total = 0, counts[2];
        for (uint32_t rep = 0; rep < 20; rep++) {
            window_counts(a, rep, 2 * DAY, 1, counts);
            total += counts[0];
        }
        char what[96];
        snprintf(what, sizeof what, "growth %+g%%/day: requests in 2 days x 20 replications", g[k] * 100);
        poisson_total(what, 20 * growth_integral(1, g[k], DAY, 2 * DAY), total);
        fs_arrival_profile prof = {.spec = a};
        assert_true(fabs(fs_arrivals_mean_rate(&prof, 0, 2 * DAY) * 2 * DAY / growth_integral(1, g[k], DAY, 2 * DAY) -
                         1) < 1e-12);
        fs_scenario_destroy(sc);
    }
}

/* Levels 1, 0.5, 2, 0 over 5 days at 0.2/s, 10 replications: each day's
 * count is Poisson of 0.2 x 86,400 x level x 10; the last level, 0, holds
 * past the list, so days 3 and 4 are empty. */
static void test_daily_levels(void **state)
{
    (void)state;
    fs_scenario *sc = with_arrivals("{\"poisson_rps\": 0.2, \"daily_levels\": [1, 0.5, 2, 0]}");
    const fs_arrivals *a = &sc->services[0].arrivals;
    static const double level[5] = {1, 0.5, 2, 0, 0};
    double per_day[5] = {0}, counts[5];
    for (uint32_t rep = 0; rep < 10; rep++) {
        window_counts(a, rep, DAY, 5, counts);
        for (size_t d = 0; d < 5; d++)
            per_day[d] += counts[d];
    }
    for (size_t d = 0; d < 5; d++) {
        double want = 0.2 * DAY * level[d] * 10;
        if (want == 0) {
            printf("  daily level 0 (day %zu): %.0f requests\n", d, per_day[d]);
            assert_true(per_day[d] == 0);
            continue;
        }
        char what[96];
        snprintf(what, sizeof what, "daily level %g (day %zu): requests x 10 replications", level[d], d);
        poisson_total(what, want, per_day[d]);
    }
    fs_scenario_destroy(sc);
}

/* ---- composition --------------------------------------------------------------- */

#define COMPOSED                                                                                         \
    "{\"poisson_rps\": 3, \"diurnal\": [0.2, 0.2, 0.2, 0.3, 0.4, 0.5, 0.8, 1, 1.3, 1.5, 1.6, 1.6, 1.6, 1.5, " \
    "1.5, 1.4, 1.3, 1.2, 1, 0.8, 0.6, 0.4, 0.3, 0.2], \"weekend\": [0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, " \
    "0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5], \"bursts\": [{\"at\": " \
    "\"1d 06:30\", \"multiplier\": 3, \"duration\": \"2h\"}], \"growth\": \"8%/week\", \"daily_levels\": "   \
    "[1, 1.2, 0.7, 1.5]}"

/* The integral of the composed rate over [t0, t1], written out here from
 * the definitions: on each hour, base x the hour's multiplier (weekday from
 * Friday, weekend) x the day's level x the burst where it runs, times the
 * exact integral of (1 + g)^(t / P), P ln-free: P / ln(1 + g) (x(b) - x(a)). */
static double composed_integral(double t0, double t1)
{
    static const double diurnal[24] = {0.2, 0.2, 0.2, 0.3, 0.4, 0.5, 0.8, 1, 1.3, 1.5, 1.6, 1.6,
                                       1.6, 1.5, 1.5, 1.4, 1.3, 1.2, 1, 0.8, 0.6, 0.4, 0.3, 0.2};
    static const double levels[4] = {1, 1.2, 0.7, 1.5};
    const double P = 7 * DAY, g = 0.08, b0 = DAY + 6.5 * 3600, b1 = b0 + 7200;
    double sum = 0;
    for (double h = floor(t0 / 3600) * 3600; h < t1; h += 3600) {
        size_t day = (size_t)(h / DAY), hour = (size_t)((h - (double)day * DAY) / 3600);
        bool weekend = (day + 4) % 7 >= 5;
        double rate = 3 * (weekend ? 0.5 : diurnal[hour]) * levels[day < 3 ? day : 3];
        /* the hour cut at the burst's edges */
        double cuts[4] = {fmax(h, t0), fmin(fmax(b0, h), h + 3600), fmin(fmax(b1, h), h + 3600), fmin(h + 3600, t1)};
        for (size_t i = 0; i < 3; i++) {
            double a = fmax(cuts[i], t0), b = fmin(cuts[i + 1], t1);
            if (b <= a)
                continue;
            double burst = a >= b0 && b <= b1 ? 3 : 1;
            sum += rate * burst * P / log1p(g) * (pow(1 + g, b / P) - pow(1 + g, a / P));
        }
    }
    return sum;
}

static void test_composition(void **state)
{
    (void)state;
    fs_scenario *sc = with_arrivals(COMPOSED);
    const fs_arrivals *a = &sc->services[0].arrivals;
    assert_true(fabs(a->growth_period_s - 7 * DAY) < 1e-9);
    fs_arrival_profile prof = {.spec = a, .start_weekday = 4};
    static const double spans[][2] = {{0, 4.5 * DAY}, {5000.5, 4.5 * DAY}, {DAY + 7 * 3600 + 17, 2 * DAY + 1}};
    for (size_t i = 0; i < 3; i++) {
        double t0 = spans[i][0], t1 = spans[i][1];
        double want = composed_integral(t0, t1) / (t1 - t0), got = fs_arrivals_mean_rate(&prof, t0, t1);
        printf("  composed mean rate over [%.1f, %.1f] s: analytic %.12g, fs_arrivals_mean_rate %.12g\n", t0, t1,
               want, got);
        assert_true(fabs(got / want - 1) < 1e-11);
    }
    /* The same integral drawn: 10 replications of 4.5 days. */
    double total = 0, points;
    for (uint32_t rep = 0; rep < 10; rep++)
        total += stream_total(a, 4, rep, 4.5 * DAY, &points);
    poisson_total("profile x bursts x growth x levels: requests x 10", 10 * composed_integral(0, 4.5 * DAY), total);
    fs_scenario_destroy(sc);
}

/* ---- determinism ------------------------------------------------------------------ */

/* The same (seed, replication) gives the same points and groups; another
 * replication other ones; and a service with none of the new keys draws
 * exactly the points the plain process drew from "arrivals/<name>". */
static void test_determinism(void **state)
{
    (void)state;
    fs_scenario *sc = with_arrivals("{\"mmpp\": {\"states\": [{\"rps\": 40, \"mean_sojourn\": 3}, {\"rps\": 4, "
                                    "\"mean_sojourn\": 5}]}, \"growth\": \"5%/day\", \"groups\": {\"mean\": 2}}");
    const fs_arrivals *a = &sc->services[0].arrivals;
    fs_arrival_stream x, y, z;
    assert_int_equal(fs_arrival_stream_init(&x, a, 0, SEED, 3, "s"), 0);
    assert_int_equal(fs_arrival_stream_init(&y, a, 0, SEED, 3, "s"), 0);
    assert_int_equal(fs_arrival_stream_init(&z, a, 0, SEED, 4, "s"), 0);
    double tx = 0, ty = 0, tz = 0;
    size_t differ = 0;
    for (int i = 0; i < 20000; i++) {
        uint32_t gx, gy, gz;
        tx = fs_arrival_stream_next(&x, tx, INFINITY, &gx);
        ty = fs_arrival_stream_next(&y, ty, INFINITY, &gy);
        tz = fs_arrival_stream_next(&z, tz, INFINITY, &gz);
        assert_true(tx == ty && gx == gy);
        differ += tx != tz;
    }
    assert_true(differ > 19000);
    fs_arrival_stream_fini(&x);
    fs_arrival_stream_fini(&y);
    fs_arrival_stream_fini(&z);
    fs_scenario_destroy(sc);

    sc = with_arrivals("{\"poisson_rps\": 7, \"diurnal\": [0.2, 0.2, 0.2, 0.3, 0.4, 0.5, 0.8, 1, 1.3, 1.5, 1.6, "
                       "1.6, 1.6, 1.5, 1.5, 1.4, 1.3, 1.2, 1, 0.8, 0.6, 0.4, 0.3, 0.2], \"bursts\": [{\"at\": \"3h\", "
                       "\"multiplier\": 4, \"duration\": \"10m\"}]}");
    a = &sc->services[0].arrivals;
    fs_arrival_profile prof = {.spec = a, .start_weekday = 2};
    fs_nhpp plain;
    fs_nhpp_init(&plain, fs_arrivals_rate, &prof);
    gsl_rng *r = fs_rng_create(SEED, 0, "arrivals/s");
    assert_int_equal(fs_arrival_stream_init(&x, a, 2, SEED, 0, "s"), 0);
    double tp = 0;
    tx = 0;
    for (int i = 0; i < 200000; i++) {
        uint32_t g;
        tp = fs_nhpp_next(&plain, tp, 2 * DAY, r);
        tx = fs_arrival_stream_next(&x, tx, 2 * DAY, &g);
        assert_true(memcmp(&tp, &tx, sizeof tp) == 0 && g == 1);
        if (!isfinite(tp))
            break;
    }
    fs_arrival_stream_fini(&x);
    fs_rng_destroy(r);
    fs_scenario_destroy(sc);
}

/* ---- through runs ---------------------------------------------------------------- */

#define RUN_JSON                                                                                            \
    "{\"schema\": \"fleetsim/1\", \"horizon\": \"%s\", \"warmup\": \"%s\", \"seed\": 5, \"replications\": %u," \
    " \"pools\": [{\"name\": \"p\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 8}],"                              \
    " \"services\": [{\"name\": \"s\", \"arrivals\": %s, \"replicas\": %s, %s}]}"
#define EXP10MS "\"service_time\": {\"exponential\": {\"mean\": \"10ms\"}}"

/* Groups of mean 5 at 50 requests/s reach a plain service: requests in the
 * measured hour over 10 replications are compound Poisson, mean 50 x 3,600
 * x 10 and variance that x E[G^2]/E[G] = 9. */
static void test_groups_through_a_run(void **state)
{
    (void)state;
    fs_scenario *s = test_scenario(RUN_JSON, "70m", "10m", 10u, "{\"poisson_rps\": 50, \"groups\": {\"mean\": 5}}",
                                   "{\"count\": 4, \"concurrency\": 64}", EXP10MS);
    fs_results *r = test_run(s);
    double total = 0;
    for (uint32_t k = 0; k < 10; k++) {
        const fs_service_rep *rep = fs_results_service_rep(r, 0, k, 0);
        total += (double)rep->requests;
        assert_true(rep->in_flight_start + rep->requests == rep->completed + rep->dropped + rep->in_flight_end);
    }
    double want = 50.0 * 3600 * 10, sd = sqrt(want * 9);
    printf("  run, groups of mean 5: requests %.0f, theory %.0f +- %.3g (4 sd, compound Poisson)\n", total, want,
           4 * sd);
    assert_true(fabs(total - want) <= 4 * sd);
    fs_results_destroy(r);
    fs_scenario_destroy(s);

    /* Groups into a dynamic batcher and into LLM engines, with drops at a
     * queue limit: every request is accounted for (arrived = completed +
     * dropped + in flight). */
    static const char *const servers[] = {
        "\"queue_limit\": 50, \"batching\": {\"kind\": \"dynamic\", \"max_batch_size\": 16, \"max_queue_delay\": "
        "\"5ms\", \"batch_time\": {\"linear\": {\"base\": \"10ms\", \"per_request\": \"1ms\"}}}",
        "\"queue_limit\": 50, \"batching\": {\"kind\": \"continuous\", \"model\": \"Llama-3-8B\", \"max_seqs\": 16, "
        "\"step_time\": {\"linear\": {\"c0\": \"5ms\", \"c_prefill\": \"0.1ms\", \"c_decode\": \"0.1ms\"}}, "
        "\"prompt_tokens\": {\"deterministic\": {\"value\": 100}}, \"output_tokens\": {\"deterministic\": {\"value\": "
        "10}}}"};
    static const char *const loads[] = {"1000", "40"};
    for (size_t i = 0; i < 2; i++) {
        char arrivals[128];
        snprintf(arrivals, sizeof arrivals, "{\"poisson_rps\": %s, \"groups\": {\"sizes\": [1, 8, 40], "
                 "\"weights\": [5, 3, 1]}}", loads[i]);
        s = test_scenario(RUN_JSON, "20m", "5m", 2u, arrivals, "2", servers[i]);
        r = test_run(s);
        for (uint32_t k = 0; k < 2; k++) {
            const fs_service_rep *rep = fs_results_service_rep(r, 0, k, 0);
            printf("  run, groups into %s: %llu requests, %llu completed, %llu dropped\n",
                   i ? "LLM engines" : "a dynamic batcher", (unsigned long long)rep->requests,
                   (unsigned long long)rep->completed, (unsigned long long)rep->dropped);
            assert_true(rep->requests > 0 && rep->completed > 0 && rep->dropped > 0);
            assert_true(rep->in_flight_start + rep->requests == rep->completed + rep->dropped + rep->in_flight_end);
        }
        fs_results_destroy(r);
        fs_scenario_destroy(s);
    }
}

/* A flat rate with noise has mean = peak, yet batches differ by the noise:
 * no batch diagnostics (one replication: no interval); groups alone keep
 * the rate's law constant, and the diagnostics apply. */
static void test_modulated_is_not_steady(void **state)
{
    (void)state;
    static const char *const arrivals[] = {
        "{\"poisson_rps\": 200, \"noise\": {\"distribution\": \"gamma\", \"cv\": 0.3, \"interval\": \"1m\"}}",
        "{\"mmpp\": {\"states\": [{\"rps\": 300, \"mean_sojourn\": \"1m\"}, {\"rps\": 100, \"mean_sojourn\": \"1m\"}]}}",
        "{\"poisson_rps\": 200, \"groups\": {\"mean\": 2}}"};
    for (size_t i = 0; i < 3; i++) {
        fs_scenario *s = test_scenario(RUN_JSON, "2h", "10m", 1u, arrivals[i], "4", EXP10MS);
        assert_true(fs_arrivals_modulated(&s->services[0].arrivals) == (i < 2));
        fs_results *r = test_run(s);
        fs_service_summary sum;
        assert_int_equal(fs_results_service_summary(r, 0, 0, &sum), 0);
        printf("  %s: batch diagnostics %s\n", i == 0 ? "noise" : i == 1 ? "mmpp" : "groups",
               sum.settling[FS_SETTLE_P99].diagnosed ? "applied" : "skipped");
        assert_true(sum.settling[FS_SETTLE_P99].diagnosed == (i == 2));
        assert_true(sum.ci_from_batches == (i == 2));
        fs_results_destroy(r);
        fs_scenario_destroy(s);
    }
}

/* ---- training submissions: the same process, for jobs ------------------------ */

/* A training stream's submissions in one run, by a pool large enough that
 * every job is admitted on submission (its wait list then lists them all).
 * `submit` is the JSON members of "submit". */
static fs_results *job_run(const char *horizon, const char *submit, fs_scenario **out)
{
    fs_scenario *s = test_scenario(
        "{\"schema\": \"fleetsim/1\", \"horizon\": \"%s\", \"seed\": 3,"
        " \"pools\": [{\"name\": \"p\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 4096}],"
        " \"training\": [{\"name\": \"jobs\", \"submit\": {%s}, \"gang\": 1, \"work_gpu_hours\": 0.001}]}",
        horizon, submit);
    *out = s;
    fs_results *r = test_run(s);
    const fs_training_rep *t = &r->policies[0].reps[0].training[0];
    assert_int_equal(t->n_waits, t->submitted); /* every job admitted: the list is every submission */
    return r;
}

/* Jobs submitted by a shaped stream follow the services' own process: an
 * hourly profile (none in hours 0-11, twice the base in 12-23: 20 days at 6
 * an hour give E[N] = 6 x 2 x 12 x 20 = 2,880, all in the afternoon), growth
 * (100%/day over 4 days at 6 an hour: E[N] = 144 / ln 2 x (2^4 - 1)), groups
 * (3 jobs at each instant), each within 4 sqrt(E[N]); and the same seed
 * gives the same submissions. */
static void test_training_submissions(void **state)
{
    (void)state;
    static const char *const half_day =
        "[0,0,0,0,0,0,0,0,0,0,0,0,2,2,2,2,2,2,2,2,2,2,2,2]";
    char submit[256];
    snprintf(submit, sizeof submit, "\"poisson_per_hour\": 6, \"diurnal\": %s", half_day);
    fs_scenario *s;
    fs_results *r = job_run("20d", submit, &s);
    const fs_training_rep *t = &r->policies[0].reps[0].training[0];
    size_t morning = 0;
    for (size_t j = 0; j < t->n_waits; j++)
        morning += fmod(t->waits[j].submitted_s, DAY) < 12 * 3600.0;
    double want = 6.0 * 2 * 12 * 20;
    printf("  profile: %zu jobs (E %.0f), %zu before noon (E 0)\n", t->n_waits, want, morning);
    assert_int_equal(morning, 0);
    assert_true(fabs((double)t->n_waits - want) <= 4 * sqrt(want));
    fs_results_destroy(r);
    fs_scenario_destroy(s);

    r = job_run("4d", "\"poisson_per_hour\": 6, \"growth\": \"100%/day\"", &s);
    t = &r->policies[0].reps[0].training[0];
    want = 144 / log(2) * 15;
    printf("  growth: %zu jobs (E %.1f)\n", t->n_waits, want);
    assert_true(fabs((double)t->n_waits - want) <= 4 * sqrt(want));
    fs_results_destroy(r);
    fs_scenario_destroy(s);

    r = job_run("5d", "\"poisson_per_hour\": 6, \"groups\": {\"sizes\": [3], \"weights\": [1]}", &s);
    t = &r->policies[0].reps[0].training[0];
    want = 6.0 * 24 * 5; /* jobs: the point rate is the job rate / E[G] */
    printf("  groups: %zu jobs (E %.0f) in groups of 3\n", t->n_waits, want);
    assert_int_equal(t->n_waits % 3, 0);
    for (size_t j = 0; j + 2 < t->n_waits; j += 3) {
        assert_true(t->waits[j].submitted_s == t->waits[j + 1].submitted_s);
        assert_true(t->waits[j].submitted_s == t->waits[j + 2].submitted_s);
    }
    /* Counted in points (a third of the jobs), whose Poisson sd is sqrt(points). */
    assert_true(fabs((double)t->n_waits / 3 - want / 3) <= 4 * sqrt(want / 3));
    fs_scenario *again;
    fs_results *r2 = job_run("5d", "\"poisson_per_hour\": 6, \"groups\": {\"sizes\": [3], \"weights\": [1]}", &again);
    const fs_training_rep *t2 = &r2->policies[0].reps[0].training[0];
    assert_int_equal(t2->n_waits, t->n_waits);
    for (size_t j = 0; j < t->n_waits; j++)
        assert_true(t2->waits[j].submitted_s == t->waits[j].submitted_s);
    fs_results_destroy(r2);
    fs_scenario_destroy(again);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mmpp_two_states),   cmocka_unit_test(test_mmpp_three_states),
        cmocka_unit_test(test_groups),            cmocka_unit_test(test_noise),
        cmocka_unit_test(test_growth),            cmocka_unit_test(test_daily_levels),
        cmocka_unit_test(test_composition),       cmocka_unit_test(test_determinism),
        cmocka_unit_test(test_groups_through_a_run), cmocka_unit_test(test_modulated_is_not_steady),
        cmocka_unit_test(test_training_submissions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

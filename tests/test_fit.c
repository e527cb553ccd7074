/*
 * fleetsim fit-traffic and models/fit: the fit on accumulators filled by
 * hand (exact figures), then the command on synthetic traces drawn from a
 * known weekday/weekend profile as a non-homogeneous Poisson process (the
 * profile must come back within 5%, the bursts injected into it with their
 * times and sizes), the fragment pasted into a scenario, rate series
 * (a zero window idle by default, a gap with --zero-is-gap, by hand),
 * short and weekday-only traces, the shared traces where ../shared/data has
 * them, and bad input.
 */
#include <jansson.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "arrivals.h"
#include "fit.h"
#include "scenario.h"
#include "testutil.h"

#define SHARED FS_SOURCE_DIR "/../shared/data"

static char tmp[256];

static void assert_near(double got, double want, double tol)
{
    if (!(fabs(got - want) <= tol))
        fail_msg("got %.10g, want %.10g (+-%g)", got, want, tol);
}

/* x to 4 significant digits, as the fragment prints multipliers. */
static double fit_sig4(double x)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%.4g", x);
    return strtod(buf, NULL);
}

/* ---- the fit on hand-filled accumulators --------------------------------- */

/* One hour of 1-minute windows at 100 a minute, minutes 10-12 at 400: the
 * cell's observed rate holds the burst too (6,900 in 3,600 s), so each
 * window expects 115 and the burst is found as one episode of 3 windows;
 * the fragment's profile leaves those windows out (5,700 in 3,420 s: 100 a
 * minute), so the burst's multiplier is 1,200 / 300 and the fragment gives
 * back 6,900. */
static void test_compute_by_hand(void **state)
{
    (void)state;
    fs_fit_acc acc;
    fs_error err = {0};
    assert_int_equal(fs_fit_acc_init(&acc, 0, 60, &err), FS_OK);
    assert_int_equal(fs_fit_acc_cover(&acc, 0, 3600, 0, &err), FS_OK);
    for (int m = 0; m < 60; m++) {
        int n = m >= 10 && m <= 12 ? 400 : 100;
        for (int k = 0; k < n; k++)
            assert_int_equal(fs_fit_acc_arrival(&acc, m * 60 + (k + 0.5) * 60.0 / n, &err), FS_OK);
    }
    static fs_fit f;
    assert_int_equal(fs_fit_compute(&acc, &f, &err), FS_OK);
    assert_false(f.split); /* a Monday hour only */
    assert_near(f.base_rps, 6900.0 / 3600, 1e-12);
    assert_true(f.cell[0][0].covered);
    assert_near(f.cell[0][0].multiplier, 1, 1e-12);
    assert_near(f.model.base_rps, 100.0 / 60, 1e-3);
    assert_near(f.model.multiplier[0][0], 1, 0);
    assert_near(f.model.expected, 6900, 6900 * 1e-3);
    assert_false(f.cell[0][1].covered);
    assert_near(f.cell[0][1].multiplier, 1, 0);
    assert_int_equal(f.n_bursts, 1);
    assert_int_equal(f.hot_windows, 3);
    assert_near(f.bursts[0].at_s, 600, 1e-9);
    assert_near(f.bursts[0].duration_s, 180, 1e-9);
    assert_near(f.bursts[0].multiplier, 4, 4e-3); /* 4 digits of the base and of it */
    assert_near(f.bursts[0].observed, 1200, 0);
    /* Dispersion: 57 windows at (100-115)^2/115, 3 at (400-115)^2/115. */
    assert_near(f.dispersion, (57 * 225.0 + 3 * 285.0 * 285.0) / 115 / 60, 1e-9);
    assert_near(f.peak_ratio, 400.0 / 115, 1e-9);
    assert_int_equal(f.windows, 60);
    fs_fit_acc_fini(&acc);
}

/* Partial hours count the seconds they cover; chi-square is 0 when every
 * hour matches its cell; weekday and weekend cells split when both are seen;
 * only the 20 largest of 25 bursts are kept, largest first. */
static void test_compute_partial_and_split(void **state)
{
    (void)state;
    fs_fit_acc acc;
    fs_error err = {0};
    /* Day 0 a Friday: hours 0..47 are a Friday and a Saturday. */
    assert_int_equal(fs_fit_acc_init(&acc, 4, 60, &err), FS_OK);
    /* Friday from 00:30 at 1/s, Saturday at 3/s (spread evenly: a rate series' way). */
    assert_int_equal(fs_fit_acc_cover(&acc, 1800, 86400, 84600, &err), FS_OK);
    assert_int_equal(fs_fit_acc_cover(&acc, 86400, 172800, 3 * 86400.0, &err), FS_OK);
    static fs_fit f;
    assert_int_equal(fs_fit_compute(&acc, &f, &err), FS_OK);
    assert_true(f.split);
    double base = (84600 + 3 * 86400.0) / (84600 + 86400.0);
    assert_near(f.base_rps, base, 1e-12);
    for (int h = 0; h < 24; h++) {
        assert_near(f.cell[FS_FIT_WEEKDAY][h].rate_rps, 1, 1e-12);
        assert_near(f.cell[FS_FIT_WEEKDAY][h].multiplier, 1 / base, 1e-12);
        assert_near(f.cell[FS_FIT_WEEKEND][h].multiplier, 3 / base, 1e-12);
    }
    assert_near(f.cell[FS_FIT_WEEKDAY][0].covered_s, 1800, 1e-9);
    assert_near(f.chi2, 0, 1e-9);
    assert_int_equal(f.dof, 48 - 48); /* one hour per cell: nothing left to test */
    assert_near(f.hour[0].max_rel_err, 0, 1e-12);
    assert_int_equal(f.peak_hour, 0); /* all hours alike: the first */
    fs_fit_acc_fini(&acc);

    /* 25 isolated one-minute bursts of growing size on a flat 1,000 a minute. */
    assert_int_equal(fs_fit_acc_init(&acc, 0, 60, &err), FS_OK);
    assert_int_equal(fs_fit_acc_cover(&acc, 0, 6 * 3600, 0, &err), FS_OK);
    for (int m = 0; m < 360; m++) {
        int n = m % 10 == 5 && m / 10 < 25 ? 1500 + 20 * (m / 10) : 1000;
        for (int k = 0; k < n; k++)
            assert_int_equal(fs_fit_acc_arrival(&acc, m * 60 + (k + 0.5) * 60.0 / n, &err), FS_OK);
    }
    assert_int_equal(fs_fit_compute(&acc, &f, &err), FS_OK);
    assert_int_equal(f.n_bursts, 25);
    assert_int_equal(f.n_listed, FS_FIT_MAX_BURSTS);
    assert_near(f.bursts[0].at_s, (24 * 10 + 5) * 60, 1e-9);
    for (size_t k = 1; k < f.n_listed; k++)
        assert_true(f.bursts[k].observed - f.bursts[k].expected < f.bursts[k - 1].observed - f.bursts[k - 1].expected);
    assert_near(f.bursts[FS_FIT_MAX_BURSTS - 1].at_s, (5 * 10 + 5) * 60, 1e-9);
    fs_fit_acc_fini(&acc);

    /* A window that does not divide an hour is refused. */
    assert_int_equal(fs_fit_acc_init(&acc, 0, 7, &err), FS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "divide an hour"));
    fs_fit_acc_fini(&acc);
}

/* ---- synthetic traces ----------------------------------------------------- */

typedef struct gen_burst {
    double at, duration, multiplier; /* raw seconds */
} gen_burst;

/* A non-homogeneous Poisson process with rate base x profile[day type][hour]
 * x bursts over [start, start + days): exact piece by piece (each minute's
 * rate is constant, and the exponential gap restarts at each piece, which
 * memorylessness allows).  Raw time r falls on weekday (weekday0 +
 * floor(r / 1 day)) mod 7.  Writes one column, seconds ("%.3f") or UTC
 * datetimes; returns the rows and the exact mean rate without bursts. */
typedef struct gen {
    const char *path;
    double base, start, days;
    const double *weekday, *weekend;
    int weekday0;
    bool datetime;
    const gen_burst *bursts;
    size_t n_bursts;
    unsigned long seed;
} gen;

static double gen_rate(const gen *g, double r, bool with_bursts)
{
    double day = floor(r / 86400);
    int hour = (int)floor((r - day * 86400) / 3600);
    bool weekend = ((long)day + g->weekday0) % 7 >= 5;
    double rate = g->base * (weekend ? g->weekend : g->weekday)[hour];
    for (size_t k = 0; with_bursts && k < g->n_bursts; k++)
        if (r >= g->bursts[k].at && r < g->bursts[k].at + g->bursts[k].duration)
            rate *= g->bursts[k].multiplier;
    return rate;
}

static size_t gen_write(const gen *g, double *mean_rate)
{
    FILE *fp = fopen(g->path, "w");
    assert_non_null(fp);
    static char buf[1 << 16];
    setvbuf(fp, buf, _IOFBF, sizeof buf);
    fputs(g->datetime ? "timestamp,tokens\n" : "arrival_s,tokens\n", fp);
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, g->seed);
    size_t rows = 0;
    double integral = 0, end = g->start + g->days * 86400;
    for (double piece = g->start; piece < end; piece += 60) {
        double rate = gen_rate(g, piece, true);
        integral += gen_rate(g, piece, false) * 60;
        for (double t = piece + gsl_ran_exponential(rng, 1 / rate); t < piece + 60;
             t += gsl_ran_exponential(rng, 1 / rate)) {
            if (g->datetime) {
                time_t whole = (time_t)floor(t);
                struct tm tm;
                gmtime_r(&whole, &tm);
                fprintf(fp, "%04d-%02d-%02d %02d:%02d:%02d.%03d,7\n", tm.tm_year + 1900, tm.tm_mon + 1,
                        tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)floor((t - floor(t)) * 1000));
            } else {
                fprintf(fp, "%.3f,7\n", t);
            }
            rows++;
        }
    }
    gsl_rng_free(rng);
    assert_int_equal(fclose(fp), 0);
    *mean_rate = integral / (g->days * 86400);
    return rows;
}

/* A weekday peak in office hours, a weekend peak in the evening: a fit that
 * mixed the day types up would miss by far more than 5%. */
static const double weekday_profile[24] = {0.60, 0.55, 0.50, 0.50, 0.52, 0.60, 0.75, 0.95, 1.20, 1.40, 1.55, 1.60,
                                           1.55, 1.50, 1.55, 1.60, 1.50, 1.35, 1.20, 1.10, 1.00, 0.90, 0.80, 0.70};
static const double weekend_profile[24] = {0.90, 0.80, 0.75, 0.70, 0.70, 0.70, 0.75, 0.80, 0.90, 1.00, 1.10, 1.20,
                                           1.30, 1.35, 1.40, 1.45, 1.50, 1.55, 1.60, 1.60, 1.55, 1.40, 1.20, 1.00};

/* Runs fit-traffic with --format json and returns the document. */
static json_t *fit_json(const char *args)
{
    return test_fleetsim_json(tmp, "fit-traffic %s --format json", args);
}


/* Every multiplier of the fitted profile against the truth (the profile
 * times the generator's base over its mean rate): the largest relative
 * error. */
static double worst_multiplier(const json_t *arrivals, const char *key, const double truth[24], double scale)
{
    const json_t *a = json_object_get(arrivals, key);
    assert_int_equal(json_array_size(a), 24);
    double worst = 0;
    for (int h = 0; h < 24; h++) {
        double want = truth[h] * scale, got = json_number_value(json_array_get(a, (size_t)h));
        worst = fmax(worst, fabs(got - want) / want);
    }
    return worst;
}

/* 14 days at a modest rate from raw time 2 days (numeric seconds), raw time
 * 0 being a Sunday: day 0 is a Tuesday.  The profile, the base and
 * Poisson-ness come back. */
static void test_synthetic_profile_recovered(void **state)
{
    (void)state;
    const char *path = test_path("%s/poisson.csv", tmp);
    double base = 0.35, true_mean;
    gen g = {.path = path, .base = base, .start = 2 * 86400.0, .days = 14, .weekday = weekday_profile,
             .weekend = weekend_profile, .weekday0 = 6, .seed = 20240101};
    size_t rows = gen_write(&g, &true_mean);
    json_t *doc = fit_json(test_path("%s --time arrival_s --start-weekday 6", path));
    const json_t *arrivals = json_object_get(doc, "arrivals"), *fit = json_object_get(doc, "fit");
    assert_null(json_object_get(arrivals, "diurnal"));
    assert_string_equal(test_json_str(fit, "input.day0.weekday"), "tuesday");
    double fitted = test_json_num(arrivals, "poisson_rps");
    double base_err = fabs(fitted - true_mean) / true_mean;
    double wd = worst_multiplier(arrivals, "weekday", weekday_profile, base / true_mean);
    double we = worst_multiplier(arrivals, "weekend", weekend_profile, base / true_mean);
    double dispersion = test_json_num(fit, "dispersion.index");
    size_t bursts = (size_t)test_json_num(fit, "bursts.count");
    print_message("  %zu rows: base %.4g vs %.4g (%.2f%%), worst multiplier weekday %.2f%% weekend %.2f%%, "
                  "dispersion %.4f, chi2 p %.3g, R^2 %.4f, %zu burst(s) (%.3g hot windows by chance)\n",
                  rows, fitted, true_mean, 100 * base_err, 100 * wd, 100 * we, dispersion,
                  test_json_num(fit, "goodness.p_value"), test_json_num(fit, "goodness.r2"), bursts,
                  test_json_num(fit, "bursts.hot_by_chance"));
    assert_true(base_err < 0.02);
    assert_true(wd < 0.05);
    assert_true(we < 0.05);
    assert_true(dispersion > 0.9 && dispersion < 1.1);
    /* Only Poisson noise's lone hot minutes, never a run of them. */
    assert_true(bursts <= 10);
    assert_true(test_json_num(fit, "bursts.longest_s") <= 60);
    assert_true(test_json_num(fit, "goodness.p_value") > 1e-3);
    assert_true(test_json_num(fit, "goodness.r2") > 0.9);
    json_decref(doc);

    /* The default output: the fragment on stdout, the report on stderr. */
    assert_int_equal(test_fleetsim(tmp, "fit-traffic %s --time arrival_s --start-weekday 6", path), 0);
    char *out = test_slurp("%s/out.txt", tmp), *err = test_slurp("%s/err.txt", tmp);
    json_error_t jerr;
    json_t *frag = json_loads(out, 0, &jerr);
    assert_non_null(frag);
    assert_non_null(test_json_at(frag, "arrivals.weekend"));
    assert_non_null(strstr(err, "chi-square"));
    assert_non_null(strstr(err, "R^2"));
    assert_non_null(strstr(err, "index"));
    json_decref(frag);
    free(out);
    free(err);
}

/* The same process with three 10-minute bursts at 5x, on UTC datetimes from
 * a Wednesday 06:30: each burst is found at its minute with its size, and
 * the fragment pasted into a scenario validates and gives back the fitted
 * rate at every hour and in a burst.  The bursts are in busy weekday hours:
 * at night (~8 expected a minute) one minute of a 5x burst can dip under the
 * 4-sigma rule and split the episode, and a weekend hour, seen on 4 days
 * only, holds a larger share of a burst's excess, which pulls its
 * multiplier to ~4.3 (still within 20%, but by less than the noise allows
 * for every seed). */
static void test_synthetic_bursts_detected(void **state)
{
    (void)state;
    const char *path = test_path("%s/bursts.csv", tmp);
    const double day0 = 1704240000; /* 2024-01-03 00:00:00 UTC, a Wednesday */
    const gen_burst bursts[] = {
        {day0 + 1 * 86400 + 10 * 3600, 600, 5},          /* Thursday 10:00 */
        {day0 + 6 * 86400 + 14 * 3600 + 30 * 60, 600, 5}, /* Tuesday 14:30 */
        {day0 + 8 * 86400 + 16 * 3600 + 10 * 60, 600, 5}, /* the next Thursday 16:10 */
    };
    double true_mean;
    gen g = {.path = path, .base = 0.25, .start = day0 + 6.5 * 3600, .days = 14, .weekday = weekday_profile,
             .weekend = weekend_profile, .weekday0 = 3 /* 1970-01-01 */, .datetime = true, .bursts = bursts,
             .n_bursts = 3, .seed = 7};
    size_t rows = gen_write(&g, &true_mean);
    json_t *doc = fit_json(test_path("%s --time timestamp --time-format datetime", path));
    const json_t *fit = json_object_get(doc, "fit"), *listed = test_json_at(fit, "bursts.listed");
    assert_string_equal(test_json_str(fit, "input.day0.date"), "2024-01-03");
    print_message("  %zu rows; %d burst(s), dispersion %.3f\n", rows, (int)test_json_num(fit, "bursts.count"),
                  test_json_num(fit, "dispersion.index"));
    for (size_t b = 0; b < 3; b++) {
        double want = bursts[b].at - day0;
        const json_t *hit = NULL;
        for (size_t k = 0; k < json_array_size(listed) && !hit; k++)
            if (fabs(test_json_num(json_array_get(listed, k), "at_s") - want) <= 60)
                hit = json_array_get(listed, k);
        if (!hit)
            fail_msg("burst at %.0f s not found", want);
        print_message("  burst at %.0f s: found at %.0f s, %.0f s long, %.3fx\n", want, test_json_num(hit, "at_s"),
                      test_json_num(hit, "duration_s"), test_json_num(hit, "multiplier"));
        assert_true(fabs(test_json_num(hit, "duration_s") - 600) <= 120);
        assert_true(fabs(test_json_num(hit, "multiplier") - 5) <= 1);
        /* Sharper: the multiplier is relative to the fragment's profile,
         * which leaves the burst's windows out: 5, not 5 / (1 + 1/15) as
         * when the hour held the burst's own excess too. */
        assert_true(fabs(test_json_num(hit, "multiplier") / 5 - 1) <= 0.1);
        /* The three are the largest: listed first. */
        assert_true(hit == json_array_get(listed, 0) || hit == json_array_get(listed, 1) ||
                    hit == json_array_get(listed, 2));
    }

    /* The fragment (default output) into a scenario. */
    assert_int_equal(test_fleetsim(tmp, "fit-traffic %s --time timestamp --time-format datetime", path), 0);
    json_error_t jerr;
    json_t *frag = json_load_file(test_path("%s/out.txt", tmp), 0, &jerr);
    assert_non_null(frag);
    assert_int_equal(json_array_size(test_json_at(frag, "arrivals.bursts")),
                     json_array_size(listed));
    json_t *scenario = json_pack(
        "{s:s, s:s, s:s, s:s, s:s, s:[{s:s, s:s, s:i}], s:[{s:s, s:O, s:{s:{s:s}}, s:i}]}", "schema", "fleetsim/1",
        "name", "fitted", "horizon", "14d", "warmup", "1h", "start_weekday", "wednesday", "pools", "name", "p", "gpu",
        "L4-24GB", "gpus", 4, "services", "name", "s", "arrivals", json_object_get(frag, "arrivals"),
        "service_time", "exponential", "mean", "10ms", "replicas", 4);
    assert_non_null(scenario);
    const char *spath = test_path("%s/fitted.json", tmp);
    assert_int_equal(json_dump_file(scenario, spath, JSON_INDENT(1)), 0);
    assert_int_equal(test_fleetsim(tmp, "validate %s", spath), 0);
    fs_scenario *s = NULL;
    fs_error err = {0};
    assert_int_equal(fs_scenario_load(spath, &s, &err), FS_OK);
    fs_arrival_profile p = {.spec = &s->services[0].arrivals, .start_weekday = s->start_weekday};
    const json_t *rates = json_object_get(fit, "rates_rps");
    for (int d = 0; d < 7; d++)
        for (int h = 0; h < 24; h++) {
            double t = d * 86400.0 + h * 3600 + 1800 + 5, end;
            bool in_burst = false; /* the injected ones, and Poisson noise's lone hot minutes */
            for (size_t k = 0; k < json_array_size(listed); k++) {
                double at = test_json_num(json_array_get(listed, k), "at_s");
                in_burst = in_burst || (t >= at && t < at + test_json_num(json_array_get(listed, k), "duration_s"));
            }
            if (in_burst)
                continue;
            const char *type = (d + 2) % 7 >= 5 ? "weekend" : "weekday";
            double want = json_number_value(json_array_get(json_object_get(rates, type), (size_t)h));
            /* The fragment's hours leave the listed bursts' windows out: an
             * hour of the day that holds one of the injected bursts is
             * lower by its excess (4 x 600 s at the hour's rate over 10
             * weekdays' 36,000 s: 1/15 of it); any other within the 4
             * digits printed and the base's scaling. */
            assert_near(fs_arrivals_rate(&p, t, &end) / want, 1, 1.0 / 15);
        }
    /* The fragment as printed gives back the trace's count over its span. */
    double t0 = test_json_num(fit, "input.first_s"), t1 = test_json_num(fit, "input.last_s");
    double expected = fs_arrivals_mean_rate(&p, t0, t1) * (t1 - t0);
    print_message("  the fragment expects %.1f over the span, the trace has %zu (%+.3f%%)\n", expected, rows,
                  100 * (expected / (double)rows - 1));
    assert_near(expected / (double)rows, 1, 0.01);
    /* Inside the Thursday 10:00 burst. */
    const json_t *first = NULL;
    for (size_t k = 0; k < json_array_size(listed); k++)
        if (fabs(test_json_num(json_array_get(listed, k), "at_s") - (86400 + 36000)) <= 60)
            first = json_array_get(listed, k);
    /* The fragment's rate at the same hour of a day without a burst (day 0, a
     * Wednesday) times the burst's multiplier. */
    double end, want = fs_arrivals_rate(&p, 36000 + 300, &end) * test_json_num(first, "multiplier");
    assert_near(fs_arrivals_rate(&p, 86400 + 36000 + 300, &end) / want, 1, 1.5e-3);
    fs_scenario_destroy(s);
    json_decref(scenario);
    json_decref(frag);
    json_decref(doc);
}

/* Evenly spaced rows from 02:30 to 05:30, 2/s then 4/s from 04:00: one day
 * type (diurnal), the partial hours counted by the seconds they cover, and
 * the 20 hours outside listed as not covered with multiplier 1. */
static void test_short_trace_lists_uncovered(void **state)
{
    (void)state;
    const char *path = test_path("%s/short.csv", tmp);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs("t\n", fp);
    for (double t = 9000.125; t < 19800; t += t < 14400 ? 0.5 : 0.25)
        fprintf(fp, "%.3f\n", t);
    assert_int_equal(fclose(fp), 0);
    json_t *doc = fit_json(test_path("%s --time t", path));
    const json_t *arrivals = json_object_get(doc, "arrivals"), *fit = json_object_get(doc, "fit");
    assert_null(json_object_get(arrivals, "weekday"));
    const json_t *diurnal = json_object_get(arrivals, "diurnal");
    /* 10,800 + 21,600 rows over 10,799.75 s (first row to last). */
    double base = test_json_num(fit, "arrivals") / test_json_num(fit, "covered_s");
    assert_near(test_json_num(fit, "covered_s"), 19799.875 - 9000.125, 1e-6);
    assert_near(json_number_value(json_array_get(diurnal, 2)), fit_sig4(2 / base), 1e-12);
    assert_near(json_number_value(json_array_get(diurnal, 5)), fit_sig4(4 / base), 1e-12);
    const json_t *uncovered = test_json_at(fit, "not_covered.diurnal");
    assert_int_equal(json_array_size(uncovered), 20);
    for (int h = 0; h < 24; h++) {
        bool in = h >= 2 && h <= 5;
        if (!in)
            assert_near(json_number_value(json_array_get(diurnal, (size_t)h)), 1, 0);
        for (size_t k = 0; k < json_array_size(uncovered); k++)
            assert_false(in && json_integer_value(json_array_get(uncovered, k)) == h);
    }
    json_decref(doc);
    assert_int_equal(test_fleetsim(tmp, "fit-traffic %s --time t --format text", path), 0);
    char *out = test_slurp("%s/out.txt", tmp);
    assert_non_null(strstr(out, "not covered (multiplier 1): 00:00-01:00, 06:00-23:00"));
    assert_non_null(strstr(out, "\"diurnal\""));
    free(out);
}

/* Three days from raw time 0: Monday to Wednesday gives one profile
 * ("diurnal"); the same file from a Friday covers a weekend too. */
static void test_weekdays_only_is_diurnal(void **state)
{
    (void)state;
    const char *path = test_path("%s/weekdays.csv", tmp);
    double mean;
    gen g = {.path = path, .base = 0.05, .start = 0, .days = 3, .weekday = weekday_profile,
             .weekend = weekend_profile, .weekday0 = 0, .seed = 3};
    gen_write(&g, &mean);
    json_t *doc = fit_json(test_path("%s --time arrival_s", path));
    const json_t *a = json_object_get(doc, "arrivals");
    assert_non_null(json_object_get(a, "diurnal"));
    assert_null(json_object_get(a, "weekday"));
    assert_null(json_object_get(a, "weekend"));
    json_decref(doc);
    doc = fit_json(test_path("%s --time arrival_s --start-weekday 4", path));
    a = json_object_get(doc, "arrivals");
    assert_null(json_object_get(a, "diurnal"));
    assert_non_null(json_object_get(a, "weekday"));
    assert_non_null(json_object_get(a, "weekend"));
    json_decref(doc);
}

/* ---- rate series ----------------------------------------------------------- */

/* Two days of 600 s windows, 100/s before noon and 300/s after, with one
 * window of rate 0: observed with no arrivals by default, a gap (not
 * observed) with --zero-is-gap. */
static void test_rate_series(void **state)
{
    (void)state;
    const char *path = test_path("%s/rates.csv", tmp);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs("window_start_s,day,hour_of_day,total_rate_rps,requests_in_window_est\n", fp);
    for (int k = 0; k < 288; k++) {
        double hour = (k % 144) / 6.0, rate = hour < 12 ? 100 : 300;
        if (k == 31) /* 05:10 on day 0 */
            rate = 0;
        fprintf(fp, "%d,%d,%.3f,%g,%g\n", k * 600, k / 144, hour, rate, rate * 600);
    }
    assert_int_equal(fclose(fp), 0);
    /* The zero window is 600 s of the 86,400 before noon, observed: hour 5
     * (both days) averages 100 x (7,200 - 600) / 7,200. */
    json_t *doc = fit_json(test_path("%s --preset servegen-rate", path));
    const json_t *fit = json_object_get(doc, "fit"), *diurnal = test_json_at(doc, "arrivals.diurnal");
    double low = 2 * 43200.0, high = 2 * 43200.0, base = (100 * (low - 600) + 300 * high) / (low + high);
    /* The base is scaled so the printed (rounded) fragment gives back the
     * count: within rounding of the mean rate, not its 4 digits to the bit. */
    assert_near(test_json_num(json_object_get(doc, "arrivals"), "poisson_rps") / base, 1, 1e-3);
    assert_near(test_json_num(fit, "model.expected_count") / test_json_num(fit, "arrivals"), 1, 1e-3);
    assert_near(json_number_value(json_array_get(diurnal, 5)), fit_sig4(100 * (7200 - 600) / 7200.0 / base), 1e-12);
    assert_near(json_number_value(json_array_get(diurnal, 6)), fit_sig4(100 / base), 1e-12);
    assert_near(json_number_value(json_array_get(diurnal, 23)), fit_sig4(300 / base), 1e-12);
    assert_near(test_json_num(fit, "covered_s"), low + high, 1e-6);
    assert_near(test_json_num(fit, "input.idle_windows"), 1, 0);
    assert_near(test_json_num(fit, "input.gap_windows"), 0, 0);
    json_decref(doc);
    /* As a gap its 600 s are not observed: hour 5 is 100/s where observed. */
    doc = fit_json(test_path("%s --preset servegen-rate --zero-is-gap", path));
    fit = json_object_get(doc, "fit");
    diurnal = test_json_at(doc, "arrivals.diurnal");
    low = 2 * 43200.0 - 600;
    base = (100 * low + 300 * high) / (low + high);
    assert_near(test_json_num(json_object_get(doc, "arrivals"), "poisson_rps") / base, 1, 1e-3);
    assert_near(json_number_value(json_array_get(diurnal, 5)), fit_sig4(100 / base), 1e-12);
    assert_near(json_number_value(json_array_get(diurnal, 23)), fit_sig4(300 / base), 1e-12);
    assert_near(test_json_num(fit, "covered_s"), low + high, 1e-6);
    assert_near(test_json_num(fit, "input.idle_windows"), 0, 0);
    assert_near(test_json_num(fit, "input.gap_windows"), 1, 0);
    assert_near(test_json_num(fit, "input.row_window_s"), 600, 0);
    assert_null(json_object_get(fit, "dispersion")); /* no requests, no bursts */
    assert_int_equal((int)test_json_num(fit, "all_days.peak_hour"), 12);
    json_decref(doc);

    /* Named columns, the window from the spacing, and --window overriding it. */
    doc = fit_json(test_path("%s --rate total_rate_rps --window-start window_start_s", path));
    assert_near(test_json_num(json_object_get(doc, "fit"), "input.row_window_s"), 600, 0);
    json_decref(doc);
    doc = fit_json(test_path("%s --rate total_rate_rps --window-start window_start_s --window 5m", path));
    assert_near(test_json_num(json_object_get(doc, "fit"), "input.row_window_s"), 300, 0);
    /* Half of each hour observed, at the same rates (the zero window's
     * first half among them). */
    assert_near(test_json_num(json_object_get(doc, "fit"), "covered_s"), 2 * 86400.0 / 2, 1e-6);
    json_decref(doc);
}

/* Six 600 s windows by hand, rates 2, 0, 4, 0, (no row), 6: 7,200 arrivals.
 * Zeros observed: 3,000 s observed, base 2.4/s.  Zeros as gaps: 1,800 s,
 * base 4/s.  The missing row is a gap either way; the report counts the
 * zero windows each way. */
static void test_rate_zero_windows(void **state)
{
    (void)state;
    char path[300];
    snprintf(path, sizeof path, "%s/zeros.csv", tmp);
    test_write(path, "start,rate\n0,2\n600,0\n1200,4\n1800,0\n3000,6\n");
    json_t *doc = fit_json(test_path("%s --rate rate --window-start start", path));
    const json_t *fit = json_object_get(doc, "fit");
    assert_near(test_json_num(fit, "arrivals"), 7200, 1e-9);
    assert_near(test_json_num(fit, "covered_s"), 3000, 1e-9);
    assert_near(test_json_num(fit, "base_rps"), 2.4, 1e-12);
    assert_near(test_json_num(json_object_get(doc, "arrivals"), "poisson_rps"), 2.4, 1e-12);
    assert_near(test_json_num(fit, "input.idle_windows"), 2, 0);
    assert_near(test_json_num(fit, "input.gap_windows"), 0, 0);
    json_decref(doc);
    doc = fit_json(test_path("%s --rate rate --window-start start --zero-is-gap", path));
    fit = json_object_get(doc, "fit");
    assert_near(test_json_num(fit, "arrivals"), 7200, 1e-9);
    assert_near(test_json_num(fit, "covered_s"), 1800, 1e-9);
    assert_near(test_json_num(fit, "base_rps"), 4, 1e-12);
    assert_near(test_json_num(fit, "input.idle_windows"), 0, 0);
    assert_near(test_json_num(fit, "input.gap_windows"), 2, 0);
    json_decref(doc);
    /* The report says how the zeros were counted. */
    const char *const reports[][3] = {
        {"", "of rate 0: 2 counted as observed with no arrivals, 0 as gaps\n", "poisson_rps 2.4 req/s"},
        {"--zero-is-gap", "of rate 0: 0 counted as observed with no arrivals, 2 as gaps (--zero-is-gap)\n",
         "poisson_rps 4 req/s"},
    };
    for (size_t k = 0; k < 2; k++) {
        assert_int_equal(test_fleetsim(tmp, "fit-traffic %s --rate rate --window-start start %s --format text", path,
                                       reports[k][0]), 0);
        char *out = test_slurp("%s/out.txt", tmp);
        if (!strstr(out, reports[k][1]) || !strstr(out, reports[k][2]))
            fail_msg("fit-traffic %s: the report lacks \"%s\" or \"%s\":\n%s", reports[k][0], reports[k][1],
                     reports[k][2], out);
        free(out);
    }
}

/* ---- the shared data ------------------------------------------------------- */

static bool have(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        print_message("  %s is absent: skipped\n", path);
        return false;
    }
    fclose(f);
    return true;
}

/* ServeGen m-small: SUMMARY.txt gives the peak hour (20:00) and the
 * hour-of-day peak/trough ratio (2.21, counting its 37 zero windows as
 * zeros, as the fit now does by default: 2.205; it calls them data gaps,
 * and with --zero-is-gap the ratio is 2.05 and the base 1.9% higher). */
static void test_servegen_m_small(void **state)
{
    (void)state;
    const char *path = SHARED "/alibaba-servegen/servegen_language_m-small_aggregate_rate.csv";
    if (!have(path))
        skip();
    json_t *doc = fit_json(test_path("%s --preset servegen-rate", path));
    const json_t *fit = json_object_get(doc, "fit");
    print_message("  peak hour %d, peak/trough %.3f, base %.4g, zero windows %d, R^2 %.3f\n",
                  (int)test_json_num(fit, "all_days.peak_hour"), test_json_num(fit, "all_days.peak_trough"),
                  test_json_num(fit, "base_rps"), (int)test_json_num(fit, "input.idle_windows"),
                  test_json_num(fit, "goodness.r2"));
    assert_int_equal((int)test_json_num(fit, "all_days.peak_hour"), 20);
    assert_true(fabs(test_json_num(fit, "all_days.peak_trough") / 2.21 - 1) < 0.01);
    assert_int_equal((int)test_json_num(fit, "input.idle_windows"), 37);
    assert_int_equal((int)test_json_num(fit, "input.gap_windows"), 0);
    assert_int_equal((int)test_json_num(fit, "input.rows"), 2016);
    /* 14 days: both day types. */
    assert_non_null(test_json_at(doc, "arrivals.weekend"));
    double base = test_json_num(fit, "base_rps");
    json_decref(doc);
    /* As gaps the 37 windows' 22,200 s leave the observed time: a higher
     * base (by the share of the mean they would have averaged in). */
    doc = fit_json(test_path("%s --preset servegen-rate --zero-is-gap", path));
    fit = json_object_get(doc, "fit");
    assert_int_equal((int)test_json_num(fit, "input.gap_windows"), 37);
    assert_near(test_json_num(fit, "covered_s"), (2016 - 37) * 600.0, 1e-6);
    assert_near(test_json_num(fit, "base_rps") * (2016 - 37), base * 2016, 1e-5 * base * 2016); /* 6 digits printed */
    assert_true(fabs(test_json_num(fit, "all_days.peak_trough") / 2.21 - 1) < 0.10);
    json_decref(doc);
}

/* Azure conv: 19,366 requests from 18:15:46.68 to 19:14:08.40 (SUMMARY.txt:
 * 15,606 in the 18:00 hour, 3,760 in the 19:00 hour): two hours covered, by
 * the seconds in them. */
static void test_azure_conv(void **state)
{
    (void)state;
    const char *path = SHARED "/azure-llm-2023/AzureLLMInferenceTrace_conv.csv";
    if (!have(path))
        skip();
    json_t *doc = fit_json(test_path("%s --preset azure-llm", path));
    const json_t *fit = json_object_get(doc, "fit"), *diurnal = test_json_at(doc, "arrivals.diurnal");
    double c18 = 3600 - (15 * 60 + 46.6805900), c19 = 14 * 60 + 8.4025270, base = 19366 / (c18 + c19);
    /* The observed rates; the fragment's profile leaves the bursts out. */
    assert_near(test_json_num(fit, "base_rps"), base, base * 1e-5);
    assert_near(json_number_value(json_array_get(test_json_at(fit, "rates_rps.diurnal"), 18)) / (15606 / c18), 1, 1e-5);
    assert_true(json_number_value(json_array_get(diurnal, 18)) > json_number_value(json_array_get(diurnal, 19)));
    assert_int_equal(json_array_size(test_json_at(fit, "not_covered.diurnal")), 22);
    assert_string_equal(test_json_str(fit, "input.day0.weekday"), "thursday");
    /* SUMMARY: minute counts vary ~20x more than Poisson around the flat mean. */
    print_message("  base %.4g, x18 %.4g, x19 %.4g, dispersion %.3g, %d burst(s)\n", base, 15606 / c18 / base,
                  3760 / c19 / base, test_json_num(fit, "dispersion.index"), (int)test_json_num(fit, "bursts.count"));
    assert_true(test_json_num(fit, "dispersion.index") > 3);
    json_decref(doc);
}

/* ---- the fragment's count ------------------------------------------------------ */

/* The expected count, over the trace's observed span, of the fragment that
 * fit-traffic ARGS prints by default, pasted into a scenario that starts on
 * day 0's weekday: the scenario's own arithmetic (fs_arrivals_mean_rate). */
static double fragment_count(const char *args, const json_t *fit)
{
    assert_int_equal(test_fleetsim(tmp, "fit-traffic %s", args), 0);
    json_error_t jerr;
    json_t *frag = json_load_file(test_path("%s/out.txt", tmp), 0, &jerr);
    assert_non_null(frag);
    double t0 = test_json_num(fit, "input.first_s"), t1 = test_json_num(fit, "input.last_s");
    json_t *scenario = json_pack(
        "{s:s, s:s, s:I, s:s, s:[{s:s, s:s, s:i}], s:[{s:s, s:O, s:{s:{s:s}}, s:i}]}", "schema", "fleetsim/1", "name",
        "fitted", "horizon", (json_int_t)ceil(t1) + 3600, "start_weekday", test_json_str(fit, "input.day0.weekday"),
        "pools", "name", "p", "gpu", "L4-24GB", "gpus", 4, "services", "name", "s", "arrivals",
        json_object_get(frag, "arrivals"), "service_time", "exponential", "mean", "10ms", "replicas", 4);
    assert_non_null(scenario);
    const char *spath = test_path("%s/fragment.json", tmp);
    assert_int_equal(json_dump_file(scenario, spath, JSON_INDENT(1)), 0);
    fs_scenario *sc = NULL;
    fs_error err = {0};
    if (fs_scenario_load(spath, &sc, &err) != FS_OK)
        fail_msg("the fragment does not load: %s", err.msg);
    fs_arrival_profile p = {.spec = &sc->services[0].arrivals, .start_weekday = sc->start_weekday};
    double n = fs_arrivals_mean_rate(&p, t0, t1) * (t1 - t0);
    fs_scenario_destroy(sc);
    json_decref(scenario);
    json_decref(frag);
    return n;
}

/* Four days growing 20%/day with the weekday profile, one 10-minute burst
 * at 6x on day 2, requests in groups (geometric, mean 3) at the identical
 * millisecond: groups and growth are found and printed, and the fragment
 * as printed gives back the count within 1%. */
static void test_fragment_reproduces_count(void **state)
{
    (void)state;
    const char *path = test_path("%s/grow.csv", tmp);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs("t\n", fp);
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 19);
    size_t rows = 0;
    const double burst_at = 2 * 86400.0 + 11 * 3600, mean_group = 3;
    for (double piece = 0; piece < 4 * 86400.0; piece += 60) {
        double rate = 0.6 * weekday_profile[(int)(piece / 3600) % 24] * pow(1.2, piece / 86400);
        if (piece >= burst_at && piece < burst_at + 600)
            rate *= 6;
        double points = rate / mean_group;
        for (double t = piece + gsl_ran_exponential(rng, 1 / points); t < piece + 60;
             t += gsl_ran_exponential(rng, 1 / points)) {
            unsigned g = gsl_ran_geometric(rng, 1 / mean_group);
            for (unsigned k = 0; k < g; k++, rows++)
                fprintf(fp, "%.3f\n", t);
        }
    }
    gsl_rng_free(rng);
    assert_int_equal(fclose(fp), 0);
    const char *args = test_path("%s --time t", path);
    char copy[512];
    snprintf(copy, sizeof copy, "%s", args);
    json_t *doc = fit_json(copy);
    const json_t *fit = json_object_get(doc, "fit"), *arrivals = json_object_get(doc, "arrivals");
    double n = fragment_count(copy, fit);
    print_message("  %zu rows; fragment %.1f (%+.3f%%); growth %s; group mean %.3f; chosen %s; 1m index %.3f, "
                  "groups %.3f (p %.3g)\n",
                  rows, n, 100 * (n / (double)rows - 1), test_json_str(arrivals, "growth"),
                  test_json_num(fit, "model.groups.mean"), test_json_str(fit, "model.chosen"),
                  test_json_num(json_array_get(test_json_at(fit, "model.scales"), 0), "index"),
                  test_json_num(json_array_get(test_json_at(fit, "model.scales"), 0), "group_index"),
                  test_json_num(json_array_get(test_json_at(fit, "model.scales"), 0), "group_p_value"));
    assert_near(n / (double)rows, 1, 0.01);
    assert_near(test_json_num(fit, "model.expected_count") / (double)rows, 1, 0.01);
    /* Groups: the law printed, its mean the generator's within noise. */
    assert_non_null(test_json_at(arrivals, "groups"));
    assert_near(test_json_num(fit, "model.groups.mean"), mean_group, 0.1);
    /* Growth: 20%/day within 2 points. */
    assert_true(json_is_true(test_json_at(fit, "model.trend.growth")));
    assert_near(test_json_num(fit, "model.trend.growth_per_day"), 0.2, 0.02);
    assert_string_equal(test_json_str(fit, "model.chosen"), "poisson with the profile + levels/growth");
    /* The requests' counts are compound Poisson (index E[G^2]/E[G] = 5 at
     * 1 min), the groups' Poisson. */
    const json_t *minute = json_array_get(test_json_at(fit, "model.scales"), 0);
    assert_near(test_json_num(minute, "window_s"), 60, 0);
    assert_true(test_json_num(minute, "index") > 3.5);
    assert_near(test_json_num(minute, "group_index"), 1, 0.1);
    /* The burst is listed at its minute, at about 6x the fragment's rate. */
    const json_t *first = json_array_get(test_json_at(fit, "bursts.listed"), 0);
    assert_near(test_json_num(first, "at_s"), burst_at, 60);
    assert_near(test_json_num(first, "multiplier"), 6, 1.5);
    json_decref(doc);
}

/* The shared Azure traces: the fragment gives back each count within 1%. */
static void test_azure_fragment_count(void **state)
{
    (void)state;
    const char *names[] = {"code", "conv"};
    for (size_t k = 0; k < 2; k++) {
        char path[512];
        snprintf(path, sizeof path, "%s/azure-llm-2023/AzureLLMInferenceTrace_%s.csv", SHARED, names[k]);
        if (!have(path))
            skip();
        char args[600];
        snprintf(args, sizeof args, "%s --preset azure-llm", path);
        json_t *doc = fit_json(args);
        const json_t *fit = json_object_get(doc, "fit");
        double n = fragment_count(args, fit), rows = test_json_num(fit, "input.rows");
        print_message("  %s: %.0f rows, the fragment %.1f (%+.3f%%), chosen %s\n", names[k], rows, n,
                      100 * (n / rows - 1), test_json_str(fit, "model.chosen"));
        assert_near(n / rows, 1, 0.01);
        json_decref(doc);
    }
}

/* ---- bad input ------------------------------------------------------------- */

static void expect_refusal(const char *args_in, const char *want1_in, const char *want2)
{
    /* Copies: the arguments may sit in test_path's buffers, which the calls
     * below reuse. */
    char args[1024], want1[512];
    snprintf(args, sizeof args, "%s", args_in);
    snprintf(want1, sizeof want1, "%s", want1_in);
    int status = test_fleetsim(tmp, "fit-traffic %s", args);
    char *err = test_slurp("%s/err.txt", tmp), *out = test_slurp("%s/out.txt", tmp);
    if (status != 2 || !strstr(err, want1) || (want2 && !strstr(err, want2)))
        fail_msg("fit-traffic %s: exit %d, stderr: %s (wanted exit 2 and \"%s\"%s%s)", args, status, err, want1,
                 want2 ? " and " : "", want2 ? want2 : "");
    assert_string_equal(out, ""); /* nothing half-written on stdout */
    free(err);
    free(out);
}

/* What `fit-traffic PATH --time t` prints (it must succeed); caller frees. */
static char *fit_output(const char *path)
{
    assert_int_equal(test_fleetsim(tmp, "fit-traffic %s --time t", path), 0);
    return test_slurp("%s/out.txt", tmp);
}

/* fit-traffic reads a trace named .jsonl as JSON Lines (its rows the CSV's,
 * so its output is the CSV's), and a .gz through gzip. */
static void test_jsonl_and_gzip(void **state)
{
    (void)state;
    char csv[300], jsonl[300];
    snprintf(csv, sizeof csv, "%s/reqs.csv", tmp);
    snprintf(jsonl, sizeof jsonl, "%s/reqs.jsonl", tmp);
    FILE *c = fopen(csv, "w"), *j = fopen(jsonl, "w");
    assert_true(c && j);
    fputs("t\n", c);
    for (int k = 0; k < 3000; k++) {
        double t = 7200 + k * 1.7 + (k % 5) * 0.3;
        fprintf(c, "%.17g\n", t);
        fprintf(j, "{\"t\": %.17g, \"note\": [1, 2]}\n", t); /* a nested value in a column not named */
    }
    assert_int_equal(fclose(c) | fclose(j), 0);
    char *want = fit_output(csv), *got = fit_output(jsonl);
    assert_string_equal(got, want);
    free(got);
    if (system("gzip --version >/dev/null 2>&1") != 0) {
        print_message("  no gzip program: the .gz case is skipped\n");
    } else {
        assert_int_equal(test_sh("gzip -k -f -- '%s'", jsonl), 0);
        got = fit_output(test_path("%s.gz", jsonl));
        assert_string_equal(got, want);
        free(got);
    }
    free(want);
}

static void test_bad_input(void **state)
{
    (void)state;
    /* Own copies of the paths: test_path's buffers are reused in turn. */
    char good[300], bad_time[300], rates[300], overlap[300], one[300];
    snprintf(good, sizeof good, "%s/good.csv", tmp);
    snprintf(bad_time, sizeof bad_time, "%s/bad-time.csv", tmp);
    snprintf(rates, sizeof rates, "%s/bad-rates.csv", tmp);
    snprintf(overlap, sizeof overlap, "%s/overlap.csv", tmp);
    snprintf(one, sizeof one, "%s/one.csv", tmp);
    test_write(good, "t,x\n1,0\n2,0\n3,0\n");
    test_write(bad_time, "t\n1.5\nnoon\n3\n");
    test_write(rates, "window_start_s,total_rate_rps\n0,5\n600,-1\n");
    test_write(overlap, "window_start_s,total_rate_rps\n0,5\n600,5\n900,5\n");
    test_write(one, "t\n5\n");

    expect_refusal(test_path("%s --preset nosuch", good), good, "unknown preset \"nosuch\"");
    expect_refusal(test_path("%s --time when", good), good, "no column \"when\"");
    expect_refusal(test_path("%s --time t", bad_time), test_path("%s:3", bad_time), "noon");
    expect_refusal(test_path("%s --preset servegen-rate", good), good, "no column \"window_start_s\"");
    expect_refusal(test_path("%s --preset servegen-rate", rates), test_path("%s:3", rates), "-1");
    expect_refusal(test_path("%s --rate total_rate_rps --window-start window_start_s", overlap),
                   test_path("%s:4", overlap), "overlap");
    expect_refusal(test_path("%s --time t", one), one, "spanning no time");
    expect_refusal(test_path("%s/missing.csv --time t", tmp), "missing.csv", NULL);
    expect_refusal(test_path("%s --preset philly-jobs", good), good, NULL);
    expect_refusal(test_path("%s", good), "one of --preset", NULL);
    expect_refusal(test_path("%s --time t --start-weekday 7", good), "--start-weekday", NULL);
    expect_refusal(test_path("%s --time t --window 7s", good), "divide an hour", NULL);
    expect_refusal(test_path("%s --time t --format xml", good), "--format", NULL);
    expect_refusal(test_path("%s --rate total_rate_rps", good), "--window-start", NULL);
    expect_refusal(test_path("%s --time t --zero-is-gap", good), "--zero-is-gap goes with a rate series", NULL);
    /* JSON Lines under a name that says CSV, requests or rates: named at its
     * first line with how to read it, nothing of it quoted. */
    char jsonl[300];
    snprintf(jsonl, sizeof jsonl, "%s/rates.log", tmp);
    test_write(jsonl, "{\"window_start_s\": 0, \"total_rate_rps\": 5}\n");
    const char *why = ":1: this looks like JSON Lines (a line starting with '{'); set \"format\": \"jsonl\" (or name "
                      "the file .jsonl)";
    expect_refusal(test_path("%s --preset servegen-rate", jsonl), test_path("%s%s", jsonl, why), NULL);
    expect_refusal(test_path("%s --time t", jsonl), test_path("%s%s", jsonl, why), NULL);
    char *said = test_slurp("%s/err.txt", tmp);
    assert_null(strstr(said, "total_rate_rps"));
    free(said);

    assert_int_equal(test_fleetsim(tmp, "fit-traffic --help"), 0);
    char *out = test_slurp("%s/out.txt", tmp);
    assert_non_null(strstr(out, "--start-weekday N"));
    assert_non_null(strstr(out, "4 sqrt(expected)"));
    free(out);
}

static int setup(void **state)
{
    (void)state;
    return test_tmpdir(tmp, sizeof tmp, "fleetsim-fit");
}

static int teardown(void **state)
{
    (void)state;
    return test_rmdir(tmp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compute_by_hand),
        cmocka_unit_test(test_compute_partial_and_split),
        cmocka_unit_test(test_synthetic_profile_recovered),
        cmocka_unit_test(test_synthetic_bursts_detected),
        cmocka_unit_test(test_short_trace_lists_uncovered),
        cmocka_unit_test(test_weekdays_only_is_diurnal),
        cmocka_unit_test(test_rate_series),
        cmocka_unit_test(test_rate_zero_windows),
        cmocka_unit_test(test_servegen_m_small),
        cmocka_unit_test(test_azure_conv),
        cmocka_unit_test(test_fragment_reproduces_count),
        cmocka_unit_test(test_azure_fragment_count),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_jsonl_and_gzip),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

/*
 * test_fit_cluster — fit-traffic's clustered models (models/traces/
 * fit_cluster.c): the factors' variances against their closed forms, then
 * synthetic traces drawn from known processes with the project's own
 * arrival streams (arrivals.h: an MMPP-2, gamma noise, plain Poisson),
 * written as CSV, fitted by the command, and checked: the MMPP's rates and
 * sojourns come back, Poisson data stay Poisson (no clustered model is even
 * tried), clustered data get a clustered model whose dispersion matches
 * the data's at every tested scale, and the printed fragment loads as a
 * scenario whose simulated count is the trace's within 1% on average.  A
 * trace too short to fit is refused.  The shared Azure traces are fitted
 * when ../shared/data has them (their choice is printed, not asserted).
 *
 * Tolerances, stated before the runs: a day of an MMPP-2 whose states last
 * minutes holds some 500 sojourns of each state, so each mean sojourn is
 * known to about 1/sqrt(500) = 5% and the fit, from second and third
 * moments, to several times that: rates within 25%, sojourns within a
 * factor 1.6.  The simulated count's mean over 100 replications within 1%.
 */
#include <jansson.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "arrivals.h"
#include "fit.h"
#include "scenario.h"
#include "testutil.h"

#define SHARED FS_SOURCE_DIR "/../shared/data"
#define DAY 86400.0

static char tmp[256];

static void assert_near(double got, double want, double tol)
{
    if (!(fabs(got - want) <= tol))
        fail_msg("got %.10g, want %.10g (+-%g)", got, want, tol);
}

/* ---- the factors' variances ---------------------------------------------- */

/* The limits repeated below the scenario layer are the scenario's. */
static void test_limits_agree(void **state)
{
    (void)state;
    assert_true(FS_FIT_MIN_MODULATION_S == FS_SCENARIO_MIN_MODULATION_S);
    assert_true(FS_FIT_MAX_NOISE_CV == FS_SCENARIO_MAX_NOISE_CV);
}

/* The MMPP-2's g(T) times lbar T is the cookbook's IDC(T) - 1 (written out
 * here from Fischer & Meier-Hellstern 1993 with l_i, r_i = 1/D_i); its third
 * moment's series and closed form agree where they meet; noise's g is
 * c^2 (1 - T/(3D)) within an interval and c^2 (D/T - D^2/(3T^2)) beyond
 * (independent intervals, uniform phase), the same for gamma and for a
 * lognormal without correlation. */
static void test_variances(void **state)
{
    (void)state;
    fs_fit_clustered c = {.rps = {12, 3}, .sojourn_s = {40, 200}};
    double l1 = 12, l2 = 3, r1 = 1.0 / 40, r2 = 1.0 / 200, s = r1 + r2, lbar = (l1 * r2 + l2 * r1) / s;
    for (double t = 0.5; t < 1e5; t *= 3.7) {
        double idc = 1 + 2 * (l1 - l2) * (l1 - l2) * r1 * r2 / (s * s * s * lbar) *
                             (1 - (1 - exp(-s * t)) / (s * t));
        double g = fs_fit_clustered_var(FS_FIT_MMPP2, &c, t, NULL);
        assert_near(1 + g * lbar * t, idc, 1e-9 * idc);
    }
    /* x = s T just below and above 0.01: series and closed form. */
    double below, above;
    fs_fit_clustered_var(FS_FIT_MMPP2, &c, 0.0099999 / s, &below);
    fs_fit_clustered_var(FS_FIT_MMPP2, &c, 0.0100001 / s, &above);
    assert_near(below, above, 1e-5 * fabs(above));
    /* Over a long window the third moment of the mean falls as 1/T^2. */
    double h1, h2;
    fs_fit_clustered_var(FS_FIT_MMPP2, &c, 1e6, &h1);
    fs_fit_clustered_var(FS_FIT_MMPP2, &c, 2e6, &h2);
    assert_near(h1 / h2, 4, 0.01);

    fs_fit_clustered n = {.cv = 0.7, .interval_s = 300};
    fs_fit_clustered lognormal = n;
    for (double t = 30; t < 1e5; t *= 2.3) {
        double d = 300, want = t <= d ? 0.49 * (1 - t / (3 * d)) : 0.49 * (d / t - d * d / (3 * t * t));
        assert_near(fs_fit_clustered_var(FS_FIT_NOISE_GAMMA, &n, t, NULL), want, 1e-9);
        assert_near(fs_fit_clustered_var(FS_FIT_NOISE_LOGNORMAL, &lognormal, t, NULL), want, 1e-9);
    }
    /* A correlated lognormal: more variance at long windows than without,
     * and the same within one interval's first instant. */
    lognormal.correlation_s = 3600;
    assert_true(fs_fit_clustered_var(FS_FIT_NOISE_LOGNORMAL, &lognormal, 7200, NULL) >
                2 * fs_fit_clustered_var(FS_FIT_NOISE_GAMMA, &n, 7200, NULL));
    assert_near(fs_fit_clustered_var(FS_FIT_NOISE_LOGNORMAL, &lognormal, 1e-3, NULL), 0.49, 1e-4);
}

/* ---- synthetic traces ------------------------------------------------------ */

/* A one-service scenario whose "arrivals" is the given JSON object. */
static fs_scenario *with_arrivals(const char *arrivals)
{
    return test_scenario("{\"schema\": \"fleetsim/1\", \"horizon\": \"2d\", \"seed\": 1,"
                         " \"pools\": [{\"name\": \"p\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 1}],"
                         " \"services\": [{\"name\": \"s\", \"arrivals\": %s,"
                         " \"service_time\": {\"exponential\": {\"mean\": \"1ms\"}}}]}",
                         arrivals);
}

/* Requests of the service's stream over [0, h) of replication rep: written
 * one a row to path (when given), counted. */
static size_t draw(const fs_arrivals *a, int weekday, uint32_t rep, double t0, double h, const char *path)
{
    FILE *fp = path ? fopen(path, "w") : NULL;
    static char buf[1 << 16];
    if (path) {
        assert_non_null(fp);
        setvbuf(fp, buf, _IOFBF, sizeof buf);
        fputs("t\n", fp);
    }
    fs_arrival_stream s;
    assert_int_equal(fs_arrival_stream_init(&s, a, weekday, 20240601, rep, "s"), 0);
    size_t n = 0;
    uint32_t g;
    for (double t = fs_arrival_stream_next(&s, t0, h, &g); isfinite(t); t = fs_arrival_stream_next(&s, t, h, &g)) {
        for (uint32_t k = 0; k < g; k++, n++)
            if (fp)
                fprintf(fp, "%.4f\n", t);
    }
    fs_arrival_stream_fini(&s);
    if (fp)
        assert_int_equal(fclose(fp), 0);
    return n;
}


/* The candidate named `model` among fit.model.clustered.candidates. */
static const json_t *candidate(const json_t *fit, const char *model)
{
    const json_t *list = test_json_at(fit, "model.clustered.candidates");
    for (size_t k = 0; k < json_array_size(list); k++)
        if (strcmp(json_string_value(json_object_get(json_array_get(list, k), "model")), model) == 0)
            return json_array_get(list, k);
    fail_msg("no candidate %s", model);
    return NULL;
}

/* The chosen candidate's test at every scale with one: not rejected, and,
 * at scales under an hour, its mean index within 25% of the index measured
 * against the same E.  At an hour the measured index is not the process's:
 * the profile's hourly cells were fitted to those very counts (one day: each
 * cell to one hour), which shrinks it (fit_cluster.c fits on differences of
 * adjacent windows for that reason); the test there must still pass. */
static void dispersion_matches(const json_t *fit)
{
    const json_t *c = candidate(fit, json_string_value(test_json_at(fit, "model.clustered.chosen")));
    const json_t *scales = json_object_get(c, "scales");
    size_t tested = 0;
    for (size_t s = 0; s < json_array_size(scales); s++) {
        const json_t *sc = json_array_get(scales, s);
        if (!json_is_number(json_object_get(sc, "z")))
            continue;
        tested++;
        print_message("    %gs: index %.4g, model %.4g, z %.3g\n", test_json_num(sc, "window_s"),
                      test_json_num(sc, "index"), test_json_num(sc, "model_index"), test_json_num(sc, "z"));
        assert_true(test_json_num(sc, "p_value") >= FS_FIT_REJECT_P);
        if (test_json_num(sc, "window_s") < 3600)
            assert_near(test_json_num(sc, "model_index") / test_json_num(sc, "index"), 1, 0.25);
    }
    assert_true(tested >= 3);
}

/* The fragment pasted into a scenario that starts on day 0's weekday (a
 * Monday here): it loads, its analytic expected count over the trace's
 * observed span (fs_arrivals_mean_rate: an MMPP's base is its stationary
 * mean) is the trace's within 0.1%, and the mean count of `reps` simulated
 * replications within 1%.  A modulated day's count varies by about 3%
 * (sqrt(g(1 day)) for the factors below), so 100 replications put 1% at
 * about 3 standard errors. */
static void fragment_reproduces(const json_t *doc, size_t rows, int reps)
{
    const json_t *fit = json_object_get(doc, "fit");
    char *text = json_dumps(json_object_get(doc, "arrivals"), JSON_COMPACT | JSON_REAL_PRECISION(17));
    assert_non_null(text);
    fs_scenario *sc = with_arrivals(text);
    free(text);
    double t0 = test_json_num(fit, "input.first_s"), t1 = test_json_num(fit, "input.last_s"), sum = 0;
    fs_arrival_profile p = {.spec = &sc->services[0].arrivals, .start_weekday = sc->start_weekday};
    assert_near(fs_arrivals_mean_rate(&p, t0, t1) * (t1 - t0) / (double)rows, 1, 1e-3);
    for (int r = 0; r < reps; r++)
        sum += (double)draw(&sc->services[0].arrivals, sc->start_weekday, (uint32_t)(100 + r), t0, t1, NULL);
    print_message("    the fragment: %.1f a replication on average over %d, the trace %zu (%+.3f%%)\n", sum / reps,
                  reps, rows, 100 * (sum / reps / (double)rows - 1));
    assert_near(sum / reps / (double)rows, 1, 0.01);
    fs_scenario_destroy(sc);
}

/* A clustered model chosen, not rejected, matching the data's dispersion,
 * its fragment reproducing the count; doc released. */
static void clustered_chosen(json_t *doc, size_t rows)
{
    const json_t *fit = json_object_get(doc, "fit");
    assert_true(json_is_string(test_json_at(fit, "model.clustered.chosen")));
    assert_false(json_is_true(test_json_at(fit, "model.rejected")));
    dispersion_matches(fit);
    assert_null(test_json_at(doc, "arrivals.bursts"));
    fragment_reproduces(doc, rows, 100);
    json_decref(doc);
}

/* A day of the given arrivals drawn to a trace and fitted: the document,
 * the trace's rows in *rows and the candidate `model` in *c. */
static json_t *fit_drawn(const char *arrivals, const char *model, size_t *rows, const json_t **c)
{
    char path[300];
    snprintf(path, sizeof path, "%s/drawn.csv", tmp);
    fs_scenario *sc = with_arrivals(arrivals);
    *rows = draw(&sc->services[0].arrivals, 0, 0, 0, DAY, path);
    fs_scenario_destroy(sc);
    json_t *doc = test_fleetsim_json(tmp, "fit-traffic %s --time t --format json", path);
    if (model)
        *c = candidate(json_object_get(doc, "fit"), model);
    return doc;
}

/* got within a factor `f` of want, either way. */
static void within_factor(double got, double want, double f)
{
    if (!(got / want < f && want / got < f))
        fail_msg("got %.6g, want %.6g within a factor %g", got, want, f);
}

/* An MMPP-2 on a flat profile over a day: 20/s for 2 minutes on average,
 * 5/s for 6 minutes (mean 8.75/s). */
static const char mmpp_day[] = "{\"mmpp\": {\"states\": [{\"rps\": 20, \"mean_sojourn\": \"2m\"},"
                               " {\"rps\": 5, \"mean_sojourn\": \"6m\"}]}}";

static void test_mmpp_recovered(void **state)
{
    (void)state;
    size_t rows;
    const json_t *mmpp;
    json_t *doc = fit_drawn(mmpp_day, "mmpp (2 states)", &rows, &mmpp), *fit = json_object_get(doc, "fit");
    double busy = json_number_value(json_array_get(json_object_get(mmpp, "rps"), 0));
    double quiet = json_number_value(json_array_get(json_object_get(mmpp, "rps"), 1));
    double d_busy = json_number_value(json_array_get(json_object_get(mmpp, "mean_sojourn_s"), 0));
    double d_quiet = json_number_value(json_array_get(json_object_get(mmpp, "mean_sojourn_s"), 1));
    print_message("  %zu rows; chosen %s; mmpp %.4g/s for %.4gs, %.4g/s for %.4gs\n", rows,
                  json_string_value(test_json_at(fit, "model.chosen")), busy, d_busy, quiet, d_quiet);
    assert_true(json_is_true(test_json_at(fit, "model.clustered.tried")));
    assert_true(json_is_true(json_object_get(mmpp, "fitted")));
    assert_near(busy / 20, 1, 0.25);
    assert_near(quiet / 5, 1, 0.25);
    within_factor(d_busy, 120, 1.6);
    within_factor(d_quiet, 360, 1.6);
    clustered_chosen(doc, rows);
}

/* Gamma noise, cv 0.5 on 5-minute intervals, at 5/s over a day. */
static const char noise_day[] = "{\"poisson_rps\": 5, \"noise\": {\"distribution\": \"gamma\", \"cv\": 0.5,"
                                " \"interval\": \"5m\"}}";

static void test_noise_recovered(void **state)
{
    (void)state;
    size_t rows;
    const json_t *gamma;
    json_t *doc = fit_drawn(noise_day, "noise (gamma)", &rows, &gamma);
    double cv = test_json_num(gamma, "cv"), interval = test_json_num(gamma, "interval_s");
    print_message("  %zu rows; chosen %s; gamma cv %.4g, interval %.4gs\n", rows,
                  test_json_str(doc, "fit.model.chosen"), cv, interval);
    assert_near(cv / 0.5, 1, 0.25);
    within_factor(interval, 300, 1.6);
    clustered_chosen(doc, rows);
}

/* Plain Poisson at 5/s over a day: not rejected, nothing clustered tried. */
static void test_poisson_stays_poisson(void **state)
{
    (void)state;
    size_t rows;
    json_t *doc = fit_drawn("{\"poisson_rps\": 5}", NULL, &rows, NULL);
    const json_t *fit = json_object_get(doc, "fit");
    print_message("  %zu rows; chosen %s\n", rows, json_string_value(test_json_at(fit, "model.chosen")));
    assert_string_equal(json_string_value(test_json_at(fit, "model.chosen")), "poisson with the profile");
    assert_false(json_is_true(test_json_at(fit, "model.rejected")));
    assert_false(json_is_true(test_json_at(fit, "model.clustered.tried")));
    assert_null(test_json_at(doc, "arrivals.mmpp"));
    assert_null(test_json_at(doc, "arrivals.noise"));
    fragment_reproduces(doc, rows, 4);
    json_decref(doc);
}

/* Under 100 arrivals, or under a minute: an input error naming the file. */
static void test_too_short_refused(void **state)
{
    (void)state;
    char few[300], brief[300];
    snprintf(few, sizeof few, "%s/few.csv", tmp);
    snprintf(brief, sizeof brief, "%s/brief.csv", tmp);
    FILE *fp = fopen(few, "w");
    assert_non_null(fp);
    fputs("t\n", fp);
    for (int k = 0; k < 50; k++)
        fprintf(fp, "%d\n", 60 * k);
    assert_int_equal(fclose(fp), 0);
    fp = fopen(brief, "w");
    assert_non_null(fp);
    fputs("t\n", fp);
    for (int k = 0; k < 5000; k++)
        fprintf(fp, "%.3f\n", 0.01 * k);
    assert_int_equal(fclose(fp), 0);
    const char *paths[] = {few, brief};
    for (int k = 0; k < 2; k++) {
        assert_int_equal(test_fleetsim(tmp, "fit-traffic %s --time t", paths[k]), 2);
        char *err = test_slurp("%s/err.txt", tmp);
        assert_non_null(strstr(err, paths[k]));
        assert_non_null(strstr(err, "too short to fit"));
        free(err);
    }
}

/* The shared Azure traces (an hour each): what is chosen, printed. */
static void test_azure(void **state)
{
    (void)state;
    const char *names[] = {"code", "conv"};
    for (size_t k = 0; k < 2; k++) {
        char path[512];
        snprintf(path, sizeof path, "%s/azure-llm-2023/AzureLLMInferenceTrace_%s.csv", SHARED, names[k]);
        FILE *f = fopen(path, "rb");
        if (!f) {
            print_message("  %s is absent: skipped\n", path);
            skip();
        }
        fclose(f);
        json_t *doc = test_fleetsim_json(tmp, "fit-traffic %s --preset azure-llm --format json", path);
        const json_t *fit = json_object_get(doc, "fit");
        char *frag = json_dumps(json_object_get(doc, "arrivals"), JSON_COMPACT);
        print_message("  %s: chosen %s%s\n    %s\n", names[k], json_string_value(test_json_at(fit, "model.chosen")),
                      json_is_true(test_json_at(fit, "model.rejected")) ? " (rejected still)" : "", frag);
        free(frag);
        fs_scenario *sc = NULL;
        char *text = json_dumps(json_object_get(doc, "arrivals"), JSON_COMPACT | JSON_REAL_PRECISION(17));
        sc = with_arrivals(text);
        assert_non_null(sc);
        free(text);
        fs_scenario_destroy(sc);
        json_decref(doc);
    }
}

static int setup(void **state)
{
    (void)state;
    return test_tmpdir(tmp, sizeof tmp, "fleetsim-fitcl");
}

static int teardown(void **state)
{
    (void)state;
    return test_rmdir(tmp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_limits_agree),        cmocka_unit_test(test_variances),
        cmocka_unit_test(test_mmpp_recovered),      cmocka_unit_test(test_noise_recovered),
        cmocka_unit_test(test_poisson_stays_poisson), cmocka_unit_test(test_too_short_refused),
        cmocka_unit_test(test_azure),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

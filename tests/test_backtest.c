/*
 * fleetsim fit-traffic --backtest and models/study/backtest: the fit part's
 * reader (rows before the split, observed up to it), then the command on
 * synthetic Poisson traces written here: at a constant rate the fit and the
 * replay need the same replicas (within 1) and judge as many requests
 * (within Poisson noise); when the rate doubles at the split, which the fit
 * cannot foresee, the fit needs fewer replicas and the error shows; bad
 * input exits 2 naming the file and the reason.
 */
#include <jansson.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "backtest.h"
#include "fit.h"
#include "testutil.h"

static char tmp[256];

/* A Poisson trace in column "t" (seconds), from raw time `start` (01:00:00.25
 * of day 0: the scenario's variants must shift the replay there and keep the
 * fit silent before it): `rate` requests/s up to `change` s after the start,
 * `rate2` from there to `span`.  Returns the rows. */
static size_t write_trace(const char *path, double rate, double change, double rate2, double span,
                          unsigned long seed)
{
    const double start = 3600.25;
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, seed);
    fprintf(fp, "t\n%.6f\n", start);
    size_t rows = 1;
    for (double t = 0;;) {
        t += gsl_ran_exponential(rng, 1 / (t < change ? rate : rate2));
        if (t > span)
            break;
        fprintf(fp, "%.6f\n", start + t);
        rows++;
    }
    /* The last row at the span exactly, so the split falls where asked. */
    fprintf(fp, "%.6f\n", start + span);
    gsl_rng_free(rng);
    assert_int_equal(fclose(fp), 0);
    return rows + 1;
}

/* Two policies (the first one's pool too small for the bisection's top: the
 * variants must grow it), a service replaying the trace and one that does
 * not (left out of the variants), exponential service times of mean 100 ms,
 * one request at a time per replica, p99 target 500 ms. */
static void write_scenario(const char *path, const char *trace, int replications)
{
    char text[2048];
    snprintf(text, sizeof text,
             "{\"schema\": \"fleetsim/1\", \"horizon\": \"1d\", \"warmup\": \"1h\", \"seed\": 7,"
             " \"replications\": %d, \"start_weekday\": \"friday\","
             " \"policies\": {\"first\": {\"pools\": [{\"name\": \"p\", \"gpu\": \"L4-24GB\", \"gpus\": 3}]},"
             "                \"second\": {\"pools\": [{\"name\": \"p\", \"gpu\": \"L4-24GB\", \"gpus\": 9}]}},"
             " \"services\": ["
             "  {\"name\": \"other\", \"pool\": \"p\", \"arrivals\": {\"poisson_rps\": 1},"
             "   \"service_time\": {\"exponential\": {\"mean\": \"100ms\"}}, \"replicas\": 1},"
             "  {\"name\": \"s\", \"pool\": \"p\", \"arrivals\": {\"trace\": {\"file\": \"%s\", \"time\": \"t\","
             "   \"rate_scale\": 3, \"repeat\": true}},"
             "   \"service_time\": {\"exponential\": {\"mean\": \"100ms\"}}, \"replicas\": 2,"
             "   \"slo\": {\"p99_ms\": 500}}]}\n",
             replications, trace);
    test_write(path, text);
}

/* fit-traffic --backtest ARGS --format json: the document's "backtest". */
static json_t *backtest_json(const char *args)
{
    int status = test_fleetsim(tmp, "fit-traffic --backtest %s --format json", args);
    if (status != 0) {
        char *err = test_slurp("%s/err.txt", tmp);
        fail_msg("fit-traffic --backtest %s: exit %d: %s", args, status, err ? err : "");
    }
    json_error_t jerr;
    json_t *doc = json_load_file(test_path("%s/out.txt", tmp), 0, &jerr);
    if (!doc)
        fail_msg("stdout is not JSON: %s", jerr.text);
    /* The fragment and the fit as fit-traffic prints them, the back-test beside. */
    assert_non_null(json_object_get(json_object_get(doc, "arrivals"), "poisson_rps"));
    assert_non_null(json_object_get(doc, "fit"));
    json_t *bt = json_incref(json_object_get(doc, "backtest"));
    assert_non_null(bt);
    json_decref(doc);
    return bt;
}

static double num(const json_t *bt, const char *side, const char *key)
{
    const json_t *v = json_object_get(side ? json_object_get(bt, side) : bt, key);
    if (!json_is_number(v))
        fail_msg("backtest.%s%s%s is not a number", side ? side : "", side ? "." : "", key);
    return json_number_value(v);
}

/* ---- the fit part ------------------------------------------------------------ */

/* Rows at raw 7200 + 0, 1, ..., 9 s: the part before 5 s holds five rows
 * and is observed for 5 s, from 02:00 of day 0. */
static void test_read_until(void **state)
{
    (void)state;
    const char *path = test_path("%s/ten.csv", tmp);
    test_write(path, "t\n7200\n7201\n7202\n7203\n7204\n7205\n7206\n7207\n7208\n7209\n");
    fs_trace_spec spec = {.path = (char *)path, .kind = FS_TRACE_REQUESTS, .time_col = "t", .rate_scale = 1,
                          .tolerance_s = 1};
    fs_fit_acc acc;
    fs_error err = {0};
    assert_int_equal(fs_fit_read_requests_until(&spec, 0, 1, 5, &acc, &err), FS_OK);
    assert_int_equal(acc.rows, 5);
    assert_true(acc.first_s == 7200 && acc.last_s == 7205);
    double covered = 0, count = 0;
    for (size_t h = 0; h < acc.n_hours; h++) {
        covered += acc.hour_cover[h];
        count += acc.hour_count[h];
    }
    assert_true(covered == 5 && count == 5);
    fs_fit_acc_fini(&acc);
    /* To the end: ten rows over 9 s, as fs_fit_read_requests. */
    assert_int_equal(fs_fit_read_requests_until(&spec, 0, 1, INFINITY, &acc, &err), FS_OK);
    assert_int_equal(acc.rows, 10);
    assert_true(acc.last_s == 7209);
    fs_fit_acc_fini(&acc);
}

/* ---- the back-test --------------------------------------------------------------- */

/* 20 requests/s for 30 minutes: the fit (on the first 22.5) and the replay
 * agree on the held-back part. */
static void test_constant_rate_agrees(void **state)
{
    (void)state;
    char trace[300], scenario[300];
    snprintf(trace, sizeof trace, "%s/constant.csv", tmp);
    snprintf(scenario, sizeof scenario, "%s/constant.json", tmp);
    size_t rows = write_trace(trace, 20, INFINITY, 20, 1800, 11);
    write_scenario(scenario, "constant.csv", 2);
    json_t *bt = backtest_json(test_path("%s --max-replicas 16", scenario));
    assert_string_equal(json_string_value(json_object_get(bt, "service")), "s");
    assert_int_equal((size_t)num(bt, NULL, "rows"), rows);
    assert_true(num(bt, NULL, "split_s") == 1350);
    assert_true(num(bt, NULL, "start_s") == 3600.25);
    double held = num(bt, NULL, "held_rows"), replay = num(bt, "replay", "requests"), fit = num(bt, "fit", "requests");
    double r_replay = num(bt, "replay", "replicas_needed"), r_fit = num(bt, "fit", "replicas_needed");
    print_message("  %zu rows, %.0f held back: requests replay %.0f fit %.1f; replicas replay %.0f fit %.0f; "
                  "p99 at the replay's %.1f / %.1f ms\n",
                  rows, held, replay, fit, r_replay, r_fit, num(bt, "replay", "p99_ms_at_replay_replicas"),
                  num(bt, "fit", "p99_ms_at_replay_replicas"));
    /* The replay judges exactly the held-back rows. */
    assert_true(replay == held);
    /* The fit's count (the mean of 2 replications) against the replay's:
     * both Poisson around 9,000, and the fitted rate off by its own noise
     * (1/sqrt(27,000)). */
    double sd = sqrt(replay + fit / 2 + replay * replay / (double)(rows - (size_t)held));
    assert_true(fabs(fit - replay) < 4 * sd);
    /* 2 Erlangs against a 500 ms p99 (five mean service times): a handful. */
    assert_true(r_replay >= 3 && r_replay <= 8);
    assert_true(fabs(r_fit - r_replay) <= 1);
    assert_true(num(bt, "replay", "p99_ms_at_replay_replicas") <= 500);
    assert_true(num(bt, "fit", "p99_ms_at_fit_replicas") <= 500);
    json_decref(bt);

    /* The default output: the fragment on stdout, the report and the
     * back-test on stderr. */
    assert_int_equal(test_fleetsim(tmp, "fit-traffic --backtest %s --max-replicas 16", scenario), 0);
    char *out = test_slurp("%s/out.txt", tmp), *err = test_slurp("%s/err.txt", tmp);
    assert_true(strncmp(out, "{\"arrivals\": {", 14) == 0);
    assert_null(strstr(out, "back-test"));
    assert_non_null(strstr(err, "back-test: "));
    assert_non_null(strstr(err, "replicas needed"));
    assert_non_null(strstr(err, "capacity answer: the fit needs"));
    free(out);
    free(err);
}

/* 20 requests/s, then 40 from the split on: a shift no fit of the first
 * part can see.  The fit expects half the held-back requests and needs
 * fewer replicas than the replay. */
static void test_unforeseen_shift_shows(void **state)
{
    (void)state;
    char trace[300], scenario[300];
    snprintf(trace, sizeof trace, "%s/shift.csv", tmp);
    snprintf(scenario, sizeof scenario, "%s/shift.json", tmp);
    write_trace(trace, 20, 1350, 40, 1800, 12);
    write_scenario(scenario, "shift.csv", 1);
    json_t *bt = backtest_json(test_path("%s --max-replicas 16", scenario));
    double replay = num(bt, "replay", "requests"), fit = num(bt, "fit", "requests");
    double r_replay = num(bt, "replay", "replicas_needed"), r_fit = num(bt, "fit", "replicas_needed");
    char *at_fit_text = json_dumps(json_object_get(json_object_get(bt, "replay"), "p99_ms_at_fit_replicas"),
                                   JSON_ENCODE_ANY);
    print_message("  requests replay %.0f fit %.0f; replicas replay %.0f fit %.0f (error %+.1f%%); the replay's "
                  "p99 at the fit's count: %s\n",
                  replay, fit, r_replay, r_fit, 100 * num(json_object_get(bt, "error"), NULL, "replicas_needed"),
                  at_fit_text);
    free(at_fit_text);
    assert_true(fit < 0.6 * replay && fit > 0.4 * replay);
    assert_true(r_fit < r_replay);
    assert_true(num(json_object_get(bt, "error"), NULL, "replicas_needed") < 0);
    /* At the fit's count the replay misses the target the fit meets:
     * a large p99 error, or one that unfinished requests decide. */
    const json_t *at_fit = json_object_get(json_object_get(bt, "replay"), "p99_ms_at_fit_replicas");
    assert_true(json_is_string(at_fit) || json_number_value(at_fit) > 500);
    json_decref(bt);

    /* A target no count up to the top meets is said so, not invented. */
    bt = backtest_json(test_path("%s --max-replicas 8 --slo-p99 1ms", scenario));
    assert_true(json_is_null(json_object_get(json_object_get(bt, "replay"), "replicas_needed")));
    assert_true(json_is_null(json_object_get(json_object_get(bt, "fit"), "replicas_needed")));
    assert_true(num(bt, "replay", "p99_ms_at_max_replicas") > 1);
    json_decref(bt);
    assert_int_equal(test_fleetsim(tmp, "fit-traffic --backtest %s --max-replicas 8 --slo-p99 1ms", scenario), 0);
    test_stderr_has(tmp, "the replay does not meet the p99 target with any count up to 8 replicas");
}

/* ---- bad input ------------------------------------------------------------------- */

/* fit-traffic ARGS (printf-style) exits 2, writes nothing on stdout, and
 * says `want` (and `also`, unless NULL) on stderr. */
static void refused(const char *want, const char *also, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void refused(const char *want, const char *also, const char *fmt, ...)
{
    char args[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    int status = test_fleetsim(tmp, "fit-traffic %s", args);
    char *err = test_slurp("%s/err.txt", tmp), *out = test_slurp("%s/out.txt", tmp);
    bool said = strstr(err, want) && (!also || strstr(err, also));
    if (status != 2 || !said || out[0] != '\0')
        fail_msg("fit-traffic %s: exit %d, %zu bytes on stdout, stderr: %s (wanted exit 2, no stdout, \"%s\" %s)",
                 args, status, strlen(out), err, want, also ? also : "");
    free(err);
    free(out);
}

static void test_bad_input(void **state)
{
    (void)state;
    char good[300], trace[300], short_trace[300], bad_row[300], short_s[300], bad_s[300], none[300], at[320];
    snprintf(trace, sizeof trace, "%s/good.csv", tmp);
    snprintf(good, sizeof good, "%s/good.json", tmp);
    snprintf(short_trace, sizeof short_trace, "%s/short.csv", tmp);
    snprintf(short_s, sizeof short_s, "%s/short.json", tmp);
    snprintf(bad_row, sizeof bad_row, "%s/bad-row.csv", tmp);
    snprintf(bad_s, sizeof bad_s, "%s/bad-row.json", tmp);
    snprintf(none, sizeof none, "%s/none.json", tmp);
    write_trace(trace, 20, INFINITY, 20, 60, 13);
    write_scenario(good, "good.csv", 1);
    /* 150 rows over 149 s: the last 25% holds 38 of them. */
    FILE *fp = fopen(short_trace, "w");
    assert_non_null(fp);
    fputs("t\n", fp);
    for (int k = 0; k < 150; k++)
        fprintf(fp, "%d\n", k);
    assert_int_equal(fclose(fp), 0);
    write_scenario(short_s, "short.csv", 1);
    test_write(bad_row, "t\n1\n2\nnoon\n4\n");
    write_scenario(bad_s, "bad-row.csv", 1);
    test_write(none, "{\"schema\": \"fleetsim/1\", \"horizon\": \"1h\","
                     " \"pools\": [{\"name\": \"p\", \"gpu\": \"L4-24GB\", \"gpus\": 1}],"
                     " \"services\": [{\"name\": \"x\", \"arrivals\": {\"poisson_rps\": 1},"
                     "  \"service_time\": {\"exponential\": {\"mean\": \"100ms\"}}}]}\n");

    refused("--holdout", "below 1", "--backtest %s --holdout 1", good);
    refused("--holdout", NULL, "--backtest %s --holdout 0", good);
    refused("--holdout", NULL, "--backtest %s --holdout lots", good);
    refused("--max-replicas", NULL, "--backtest %s --max-replicas 0", good);
    refused("--slo-p99", NULL, "--backtest %s --slo-p99 soon", good);
    refused("give no TRACE.csv", NULL, "--backtest %s %s", good, trace);
    refused("--time", "start_weekday", "--backtest %s --time t", good);
    refused("go with --backtest", NULL, "%s --time t --holdout 0.5", trace);
    refused("missing.json", NULL, "--backtest %s/missing.json", tmp);
    refused(good, "no service \"nosuch\"", "--backtest %s --service nosuch", good);
    refused(good, "service \"other\" replays no trace", "--backtest %s --service other", good);
    refused(none, "no service replays a trace", "--backtest %s", none);
    refused(short_trace, "holds 38 rows: a p99 needs at least 100", "--backtest %s", short_s);
    refused(short_trace, "the part to fit", "--backtest %s --holdout 0.995", short_s);
    snprintf(at, sizeof at, "%s:4", bad_row);
    refused(at, "noon", "--backtest %s", bad_s);
    /* No p99 target: give one. */
    char no_slo[300];
    snprintf(no_slo, sizeof no_slo, "%s/no-slo.json", tmp);
    char *text = test_slurp("%s", good), *cut = strstr(text, "\"slo\": {\"p99_ms\": 500}");
    assert_non_null(cut);
    memcpy(cut, "\"memory_gb\": 10.5     ", 22); /* as long as what it replaces */
    test_write(no_slo, text);
    free(text);
    refused(no_slo, "has no p99 target", "--backtest %s", no_slo);

    /* The options are in the help. */
    assert_int_equal(test_fleetsim(tmp, "help fit-traffic"), 0);
    char *help = test_slurp("%s/out.txt", tmp);
    static const char *const options[] = {"--backtest SCENARIO", "--holdout F", "--slo-p99 D", "--max-replicas N"};
    for (size_t k = 0; k < sizeof options / sizeof options[0]; k++)
        if (!strstr(help, options[k]))
            fail_msg("fleetsim help fit-traffic lacks %s", options[k]);
    free(help);
}

static int setup(void **state)
{
    (void)state;
    return test_tmpdir(tmp, sizeof tmp, "fleetsim-backtest");
}

static int teardown(void **state)
{
    (void)state;
    return test_rmdir(tmp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read_until),
        cmocka_unit_test(test_constant_rate_agrees),
        cmocka_unit_test(test_unforeseen_shift_shows),
        cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

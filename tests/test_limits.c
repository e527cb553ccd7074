/*
 * test_limits — what cannot be meant is refused before it can corrupt memory
 * or run without end (issue 15): a concurrency whose bucket count wrapped, a
 * sweep or plan grid whose run count wrapped, run files whose histogram
 * counters wrap when merged, each scenario limit of scenario.h (named by its
 * JSON path and the limit), periods too short to be meant, windows no run
 * (or override) can judge, traces that are empty (request or job traces),
 * binary, ambiguous or endless, numbers in hex; and placement that
 * stays fast (and exact) on a fleet of 100,000 GPUs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "metrics.h"
#include "number.h"
#include "placement.h"
#include "sweep.h"
#include "test_scenario.h"
#include "testutil.h"
#include "trace.h"

static char tmp[256];

static int setup(void **state)
{
    (void)state;
    return test_tmpdir(tmp, sizeof tmp, "fleetsim-limits");
}

static int teardown(void **state)
{
    (void)state;
    return test_rmdir(tmp);
}

/* Runs `fleetsim ARGS` (formatted) in tmp expecting exit 2 with want on stderr. */
static void expect_exit2(const char *want, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void expect_exit2(const char *want, const char *fmt, ...)
{
    char args[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    assert_int_equal(test_fleetsim(tmp, "%s", args), 2);
    char *e = test_slurp("%s/err.txt", tmp);
    assert_non_null(e);
    if (strstr(e, want) == NULL)
        fail_msg("fleetsim %s: stderr lacks \"%s\":\n%s", args, want, e);
    free(e);
}

/* tmp/NAME: a sweep of tmp/SCENARIO along the one dimension DIM (JSON). */
static void write_sweep(const char *name, const char *scenario, const char *dim)
{
    char json[512];
    snprintf(json, sizeof json, "{\"schema\": \"fleetsim-sweep/1\", \"scenario\": \"%s\", \"vary\": [%s]}",
             scenario, dim);
    test_write(test_path("%s/%s", tmp, name), json);
}

/* ---- memory safety --------------------------------------------------------- */

/* concurrency 4294967295 made (concurrency + 1) * size wrap to 0 and the
 * bucket loops never end (a heap overflow; SIGSEGV in a release build): it is
 * refused, and the largest allowed one runs (under ASan in CI). */
static void test_concurrency(void **state)
{
    (void)state;
    expect_error(SERVICE(", 'replicas': {'count': 1, 'concurrency': 4294967295}"),
                 "scen.json: services[0].replicas.concurrency: expected an integer from 1 to "
                 "65536, got 4294967295");
    char json[1024];
    snprintf(json, sizeof json,
             "{'schema': 'fleetsim/1', 'horizon': '10m', " POOL
             "'services': [{'name': 'chat', " ARRIVALS ", " STIME
             ", 'replicas': {'count': 2, 'concurrency': %d}}]}",
             FS_SCENARIO_MAX_CONCURRENCY);
    fs_scenario *s = parse_ok(json);
    fs_results *r = test_run(s);
    assert_true(r->policies[0].reps[0].services[0].completed > 0);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

/* A sweep of one dimension of n values over the scenario in tmp. */
static fs_sweep *sweep_of(const char *const *ranges, size_t n_dims, fs_error *err, int *rc)
{
    static const char *const paths[] = {"seed", "services[chat].arrivals.poisson_rps",
                                        "pools[gpu].gpus", "warmup", "window", "horizon"};
    const char *scen = test_path("%s/grid.json", tmp);
    test_write(scen, doc(SERVICE("")));
    fs_sweep *sw = NULL;
    *rc = fs_sweep_create(scen, &sw, err);
    for (size_t d = 0; *rc == FS_OK && d < n_dims; d++) {
        json_t *values = NULL;
        bool range = false;
        *rc = fs_sweep_parse_values(ranges[d], &values, &range, err);
        if (*rc == FS_OK)
            *rc = fs_sweep_add_dim(sw, paths[d], values, range, err);
    }
    if (*rc == FS_OK)
        *rc = fs_sweep_finish(sw, err);
    return sw;
}

/* 4 dimensions of 4,096 values (2.8e14 points), or six --vary in plan, made
 * n_points * replications and total * sizeof wrap (a heap overflow): the
 * grid is refused with its size, and so is a run count over the limit. */
static void test_grid_overflow(void **state)
{
    (void)state;
    const char *big[] = {"1..4096", "1..4096", "1..4096", "1..4096"};
    fs_error err = {0};
    int rc;
    fs_sweep *sw = sweep_of(big, 4, &err, &rc);
    assert_int_equal(rc, FS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "the grid has 2.81475e+14 points (4096 x 4096 x 4096 x 4096 "
                                    "values), more than the 1000000 a study can run"));
    fs_sweep_destroy(sw);

    const char *small[] = {"1..1000"};
    sw = sweep_of(small, 1, &err, &rc);
    assert_int_equal(rc, FS_OK);
    assert_int_equal(fs_sweep_check_runs(sw, 1000, &err), FS_OK);
    assert_int_equal(fs_sweep_check_runs(sw, 4096, &err), FS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "1000 points x 4096 replications is 4096000 runs, more than "
                                    "the 1000000 a study can run"));
    fs_sweep_destroy(sw);

    /* The binary: sweep --replications and plan's six --vary exit 2. */
    write_sweep("sw.json", "grid.json", "{\"path\": \"seed\", \"from\": 1, \"to\": 1000}");
    expect_exit2("4096000 runs, more than the 1000000", "sweep -q %s/sw.json -r 4096 --out %s/sw.out",
                 tmp, tmp);
    assert_false(test_exists("%s/sw.out", tmp));
    expect_exit2("the grid has 4.72237e+21 points (4096 x 4096 x 4096 x 4096 x 4096 x 4096 values)",
                 "plan %s/grid.json --vary seed=1..4096 --vary services[chat].arrivals.poisson_rps=1..4096 "
                 "--vary pools[gpu].gpus=1..4096 --vary warmup=1..4096 --vary horizon=1..4096 "
                 "--vary window=1..4096 --constraint 'service:chat.p99<=250ms' --out %s/plan.out",
                 tmp, tmp);
    /* plan --search grid runs every point */
    expect_exit2("1000 points x 2000 replications is 2000000 runs",
                 "plan %s/grid.json --vary seed=1..1000 --search grid -r 2000 "
                 "--constraint 'service:chat.p99<=250ms' --out %s/plan.out",
                 tmp, tmp);
}

/* A run record whose histogram holds `total` values in the given buckets. */
static int read_record(const char *buckets, const char *total, fs_metrics *m, fs_error *err)
{
    char text[512];
    snprintf(text, sizeof text,
             "{\"events\": 1, \"values\": {}, \"histograms\": {\"service:chat.latency\": "
             "{\"total\": %s, \"min_ns\": 1, \"max_ns\": 2, \"sum_ns\": 3.0, \"buckets\": %s}}}",
             total, buckets);
    json_error_t jerr;
    json_t *o = json_loads(text, 0, &jerr);
    assert_non_null(o);
    int rc = fs_metrics_from_json(o, "runs/p000000-r0000.json", m, err);
    json_decref(o);
    return rc;
}

/* `merge` took run files whose bucket counts wrap when added (points.csv
 * then showed a mean of -1.4e294 ms): a run file's counts are held to what a
 * run can record and must add up without wrapping. */
static void test_merge_wrap(void **state)
{
    (void)state;
    fs_metrics m;
    fs_error err = {0};
    /* 2^63 - 1000 each, twice: would wrap when merged with another run */
    assert_int_equal(read_record("[[435, 9223372036854774808]]", "9223372036854774808", &m, &err),
                     FS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "runs/p000000-r0000.json: histograms.service:chat.latency: "
                                    "total is beyond the 2^44 values a run can record"));
    /* counts that wrap to match total inside one file */
    assert_int_equal(read_record("[[1, 9223372036854775807], [2, 9223372036854775807], [3, 4]]",
                                 "2", &m, &err),
                     FS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "the bucket counts add up to more than total"));
    assert_int_equal(read_record("[[1, 2]]", "2", &m, &err), FS_OK);
    fs_metrics_fini(&m);

    /* Through the binary: a finished sweep, one run file edited, merge exits 2. */
    test_write(test_path("%s/m.json", tmp), doc("{'schema': 'fleetsim/1', 'horizon': '10m', " POOL
                                                "'services': [{'name': 'chat', " ARRIVALS ", " STIME
                                                "}]}"));
    write_sweep("msw.json", "m.json", "{\"path\": \"seed\", \"values\": [1]}");
    assert_int_equal(test_fleetsim(tmp, "sweep -q %s/msw.json -r 2 --out %s/msw.out", tmp, tmp), 0);
    json_error_t jerr;
    const char *run = test_path("%s/msw.out/runs/p000000-r0001.json", tmp);
    json_t *o = json_load_file(run, 0, &jerr);
    assert_non_null(o);
    json_t *h = json_object_get(json_object_get(o, "histograms"), "service:chat.latency");
    assert_non_null(h);
    json_object_set_new(h, "total", json_integer(INT64_MAX - 1000));
    json_object_set_new(h, "buckets", json_pack("[[I,I]]", (json_int_t)435, (json_int_t)(INT64_MAX - 1000)));
    assert_int_equal(json_dump_file(o, run, 0), 0);
    json_decref(o);
    expect_exit2("p000000-r0001.json: histograms.service:chat.latency: total is beyond", "merge -q %s/msw.out",
                 tmp);
}

/* ---- scenario limits ------------------------------------------------------- */

/* Absurd magnitudes that ran forever or allocated without bound, each
 * refused with its JSON path and the limit. */
static void test_scenario_limits(void **state)
{
    (void)state;
    expect_error(TOP("'horizon': '9999999h'"), "scen.json: horizon: expected at most 730d (the limit), got \"9999999h\"");
    expect_error(TOP("'horizon': 1e308"), "scen.json: horizon: expected at most 730d (the limit), got 1e+308");
    expect_error(SERVICE_ARR("{'poisson_rps': 1e308}"),
                 "services[0].arrivals.poisson_rps: expected at most 1e+06 requests/s (the limit), got 1e+308");
    expect_error(SERVICE_ARR("{'poisson_rps': 1, 'diurnal': " H24("1e308") "}"),
                 "services[0].arrivals.diurnal[0]: expected at most 1000 (the limit), got 1e+308");
    expect_error(SERVICE_ARR("{'poisson_rps': 1, 'bursts': [{'at': '1h', 'duration': '1h', 'multiplier': 1e308}]}"),
                 "services[0].arrivals.bursts[0].multiplier: expected at most 1000 (the limit), got 1e+308");
    /* each factor allowed, their product not */
    expect_error(SERVICE_ARR("{'poisson_rps': 1000, 'bursts': [{'at': '1h', 'duration': '2h', 'multiplier': 100},"
                             " {'at': '2h', 'duration': '1h', 'multiplier': 100}]}"),
                 "services[0].arrivals: poisson_rps (1000) x the highest hourly multiplier (1) x the most the "
                 "bursts multiply at once (10000) may reach 1e+07 requests/s, more than the 1e+06 allowed");
    /* the arrival processes' limits, and their factors in that product */
    expect_error(SERVICE_ARR("{'mmpp': {'states': [{'rps': 1, 'mean_sojourn': 1}, {'rps': 2e6, 'mean_sojourn': 5}]}}"),
                 "services[0].arrivals.mmpp.states[1].rps: expected at most 1e+06 requests/s (the limit), got 2e+06");
    expect_error(SERVICE_ARR("{'poisson_rps': 1, 'noise': {'distribution': 'lognormal', 'cv': 11, 'interval': 10}}"),
                 "services[0].arrivals.noise.cv: expected at most 10 (the limit), got 11");
    expect_error(SERVICE_ARR("{'poisson_rps': 1, 'groups': {'mean': 20000}}"),
                 "services[0].arrivals.groups.mean: expected at most 10000 requests (the limit), got 20000");
    expect_error(SERVICE_ARR("{'poisson_rps': 1, 'daily_levels': [1e308]}"),
                 "services[0].arrivals.daily_levels[0]: expected at most 1000 (the limit), got 1e+308");
    expect_error(SERVICE_ARR("{'poisson_rps': 1, 'growth': '100000%/day'}"),
                 "services[0].arrivals: growth of 100000% a day compounds to 1001 times the starting rate by the "
                 "horizon (1d), more than the 1000 allowed (the limit)");
    expect_error(SERVICE_ARR("{'mmpp': {'states': [{'rps': 1000, 'mean_sojourn': 1}, {'rps': 2, 'mean_sojourn': 5}]},"
                             " 'bursts': [{'at': '1h', 'duration': '1h', 'multiplier': 500}], 'daily_levels': [3],"
                             " 'growth': '50%/day'}"),
                 "services[0].arrivals: the busiest mmpp state's rps (1000) x the highest hourly multiplier (1) x the "
                 "most the bursts multiply at once (500) x the highest daily level (3) x the growth by the horizon "
                 "(1.5) may reach 2.25e+06 requests/s, more than the 1e+06 allowed (the limit)");
    expect_error(HEAD "'pools': [{'name': 'gpu', 'gpu': 'H100-SXM-80GB', 'gpus': 2147483648}], 'services': []}",
                 "pools[0].gpus: expected an integer from 1 to 100000, got 2147483648");
    expect_error(SERVICE(", 'replicas': 2147483648"),
                 "services[0].replicas: expected an integer from 1 to 100000, got 2147483648");
    expect_error(SERVICE(", 'replicas': {'count': 1, 'max': 9999999, 'autoscale': {'target_in_flight': 1}}"),
                 "services[0].replicas.max: expected an integer from 1 to 100000, got 9999999");
    expect_error(POOL_WITH(", 'autoscale': {'min': 0, 'max': 9999999}"),
                 "pools[0].autoscale.max: expected an integer from 1 to 100000, got 9999999");
    expect_error(HEAD "'gpus': {'H100-SXM-80GB': {'price_per_hour': 1e308}}, " POOL "'services': []}",
                 "gpus.H100-SXM-80GB.price_per_hour: expected at most 10000 $/GPU-hour (the limit), got 1e+308");
    expect_error(HEAD "'pools': [{'name': 'a', 'gpu': 'H100-SXM-80GB', 'gpus': 60000},"
                      " {'name': 'b', 'gpu': 'H100-SXM-80GB', 'gpus': 60000}], 'services': []}",
                 "scen.json: pools: the pools hold up to 120000 GPUs, more than the 100000 a fleet may have");
    expect_error(HEAD "'pools': [{'name': 'gpu', 'gpu': 'H100-SXM-80GB', 'gpus': 10001, "
                      "'time_slicing': {'tenants': 2}}], 'services': []}",
                 "pools[0].time_slicing: 20002 seats (GPUs x tenants), more than the 20000 a time-sliced pool may have");

    /* 1,001 bursts (the rate lookup scans them per piece: quadratic) */
    size_t cap = 64 * 1024;
    char *json = malloc(cap);
    assert_non_null(json);
    size_t n = (size_t)snprintf(json, cap, "%s", HEAD POOL "'services': [{'name': 'chat', " STIME
                                                           ", 'arrivals': {'poisson_rps': 1, 'bursts': [");
    for (int b = 0; b <= FS_SCENARIO_MAX_BURSTS; b++)
        n += (size_t)snprintf(json + n, cap - n, "%s{'at': %d, 'duration': 1, 'multiplier': 2}", b ? ", " : "", b * 2);
    snprintf(json + n, cap - n, "]}}]}");
    for (char *c = json; *c; c++)
        *c = *c == '\'' ? '"' : *c;
    expect_raw(json, FS_ERR_INPUT, "services[0].arrivals.bursts: expected at most 1000 bursts (the limit");
    free(json);
}

/* Periods so short that a run did the same work without end: an autoscaler
 * every nanosecond or a checkpoint every nanosecond passed --max-events, a
 * nanosecond time slice stretched service times 200,000-fold, a trace
 * slowed 1e300 times put its second row past any horizon, and spot GPUs were
 * reclaimed 1e308 times an hour.  Each is refused beyond its limit in
 * scenario.h, and each floor itself is accepted. */
static void test_periods(void **state)
{
    (void)state;
    expect_error(SERVICE(", 'replicas': {'count': 1, 'max': 2, 'autoscale': {'target_in_flight': 1, "
                         "'interval': '999ms'}}"),
                 "scen.json: services[0].replicas.autoscale.interval: expected at least 1s (the limit), got \"999ms\"");
    expect_error(POOL_WITH(", 'time_slicing': {'tenants': 2, 'slice': '1ns'}"),
                 "scen.json: pools[0].time_slicing.slice: expected at least 1ms (the limit), got \"1ns\"");
    const char *training = HEAD POOL "'services': [{'name': 'chat', " ARRIVALS ", " STIME "}], "
                           "'training': [{'name': 'ft', 'submit': {'at': [0]}, 'gang': 4, 'work_gpu_hours': 8, "
                           "'checkpoint': {'every': %s, 'write': 0}}]}";
    char json[1024];
    snprintf(json, sizeof json, training, "0.5");
    expect_error(json, "scen.json: training[0].checkpoint.every: expected at least 1s (the limit), got 0.5");
    expect_error(SERVICE_ARR("{'trace': {'file': 'x.csv', 'time': 't', 'rate_scale': 1e-300}}"),
                 "scen.json: services[0].arrivals.trace.rate_scale: expected at least 0.001 (the limit), got 1e-300");
    expect_error(POOL_WITH(", 'class': 'spot', 'reclaim_per_hour': 1e308"),
                 "scen.json: pools[0].reclaim_per_hour: expected at most 60 per GPU-hour (the limit), got 1e+308");
    expect_error(SERVICE_ARR("{'trace': {'file': 'x.csv', 'time': 't', 'rate_scale': 1001}}"),
                 "scen.json: services[0].arrivals.trace.rate_scale: expected at most 1000 (the limit), got 1001");

    /* the floors themselves are meant */
    fs_scenario *s = parse_ok(SERVICE(", 'replicas': {'count': 1, 'max': 2, 'autoscale': {'target_in_flight': 1, "
                                      "'interval': '1s'}}"));
    assert_true(s->services[0].autoscale.interval_s == FS_SCENARIO_MIN_AUTOSCALE_INTERVAL_S);
    fs_scenario_destroy(s);
    s = parse_ok(POOL_WITH(", 'time_slicing': {'tenants': 2, 'slice': '1ms'}"));
    assert_true(s->pools[0].time_slicing.slice_s == FS_SCENARIO_MIN_TIME_SLICE_S);
    fs_scenario_destroy(s);
    snprintf(json, sizeof json, training, "'1s'");
    s = parse_ok(json);
    assert_true(s->training[0].checkpoint_every_s == FS_SCENARIO_MIN_CHECKPOINT_EVERY_S);
    fs_scenario_destroy(s);
    s = parse_ok(SERVICE_ARR("{'trace': {'file': 'x.csv', 'time': 't', 'rate_scale': 0.001}}"));
    assert_true(s->services[0].arrivals.trace->rate_scale == FS_SCENARIO_MIN_RATE_SCALE);
    fs_scenario_destroy(s);
}

/* A window longer than horizon - warm-up judged no window, so every SLO
 * "held"; one so short that the windows number in the millions took
 * gigabytes.  Both refused, at parse time and when --horizon changes the
 * span. */
static void test_windows(void **state)
{
    (void)state;
    expect_error(TOP("'horizon': '1h', 'window': 1e308"),
                 "scen.json: window: longer than horizon - warm-up (1h): no window would be judged");
    expect_error(TOP("'horizon': '1d', 'window': '1ms'"),
                 "scen.json: window: so short that horizon - warm-up (1d) holds 8.64e+07 windows, more than "
                 "the 10000000 allowed");
    expect_error(SERVICE(", 'slo': {'p99_ms': 250, 'window': '2d'}"),
                 "services[0].slo.window: the SLO window (2d) is longer than horizon - warm-up (1d)");
    /* the default window too, when an SLO uses it */
    expect_error("{'schema': 'fleetsim/1', 'horizon': '10m', 'warmup': '6m', " POOL
                 "'services': [{'name': 'chat', " ARRIVALS ", " STIME ", 'slo': {'p99_ms': 250}}]}",
                 "services[0].slo: the SLO window (5m, the default) is longer than horizon - warm-up (4m)");

    fs_scenario *s = parse_ok(SERVICE(", 'slo': {'p99_ms': 250, 'window': '1h'}"));
    fs_error err = {0};
    assert_int_equal(fs_scenario_override(s, -1, -1, 1800, &err), FS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "horizon (override): the SLO window of services[0] (1h) would be longer"));
    assert_int_equal(fs_scenario_override(s, -1, -1, 1e9, &err), FS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "horizon (override): expected at most 730d (the limit)"));
    assert_true(s->horizon_s == 86400); /* refused overrides change nothing */
    fs_scenario_destroy(s);

    /* Growth compounds further over a longer run: 100% a day is 2x by a
     * 1-day horizon, 1024x by ten days. */
    s = parse_ok(SERVICE_ARR("{'poisson_rps': 1, 'growth': '100%/day'}"));
    assert_int_equal(fs_scenario_override(s, -1, -1, 10 * 86400, &err), FS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "horizon (override): services[0].arrivals: growth of 100% a day compounds to "
                                    "1024 times the starting rate by the horizon (10d), more than the 1000 allowed"));
    assert_int_equal(fs_scenario_override(s, -1, -1, 9 * 86400, &err), FS_OK);
    fs_scenario_destroy(s);

    /* A written window the new span cannot hold: the override counted its
     * windows only, so a 12h window over a 6h run judged none. */
    s = parse_ok(TOP("'horizon': '1d', 'window': '12h', 'ci': {'horizon': '6h'}"));
    assert_int_equal(fs_scenario_override(s, -1, -1, 6 * 3600, &err), FS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "scen.json: horizon (override): the window (12h) would be longer than horizon "
                                    "- warm-up (6h): no window would be judged"));
    assert_int_equal(fs_scenario_apply_ci(s, &err), FS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "scen.json: ci: the window (12h) would be longer than horizon - warm-up (6h)"));
    assert_true(s->horizon_s == 86400 && s->warmup_s == 0);
    fs_scenario_destroy(s);
    /* a ci warm-up shortens the span as much */
    s = parse_ok(TOP("'horizon': '1d', 'window': '12h', 'ci': {'warmup': '20h'}"));
    assert_int_equal(fs_scenario_apply_ci(s, &err), FS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "scen.json: ci: the window (12h) would be longer than horizon - warm-up (4h)"));
    assert_true(s->horizon_s == 86400 && s->warmup_s == 0);
    fs_scenario_destroy(s);
    /* the default window judges nothing without an SLO on it: a short run keeps it */
    s = parse_ok(TOP("'horizon': '1d'"));
    assert_int_equal(fs_scenario_override(s, -1, -1, 240, &err), FS_OK);
    assert_true(s->horizon_s == 240);
    fs_scenario_destroy(s);
}

/* `validate /dev/zero` read forever; a directory gave an obscure message. */
static void test_scenario_file(void **state)
{
    (void)state;
    test_load_refused("/dev/zero", FS_ERR_INPUT, "/dev/zero: expected a regular file, got a device, pipe or socket");
    test_load_refused(tmp, FS_ERR_INPUT, "expected a regular file, got a directory");
    const char *big = test_path("%s/big.json", tmp);
    FILE *f = fopen(big, "w");
    assert_non_null(f);
    assert_int_equal(fseek(f, FS_SCENARIO_MAX_FILE_BYTES, SEEK_SET), 0);
    fputc(' ', f);
    assert_int_equal(fclose(f), 0);
    test_load_refused(big, FS_ERR_INPUT, "reaches 64 MiB, the limit for a scenario file");
}

/* ---- placement ------------------------------------------------------------- */

/* Best fit over every unit, as placement did before it weighed one unit per
 * group: the oracle for the grouped search. */
static size_t naive_best_fit(const fs_pool_units *pu, const double *room, double need)
{
    size_t best = FS_UNPLACED;
    for (size_t u = 0; u < pu->n_units; u++)
        if (room[u] >= need && (best == FS_UNPLACED || room[u] < room[best] ||
                                (room[u] == room[best] && pu->units[u].sms < pu->units[best].sms)))
            best = u;
    return best;
}

/* 100,000 whole GPUs took O(replicas x units) (validate of 20,000 GPUs:
 * seconds; 100,000: minutes); now each placement weighs one unit per group.
 * On a MIG pool of mixed shapes, the grouped search places every replica
 * exactly where the exhaustive one does. */
static void test_placement(void **state)
{
    (void)state;
    fs_scenario *s = parse_ok(HEAD "'pools': [{'name': 'gpu', 'gpu': 'H100-SXM-80GB', 'gpus': 100000}], "
                                   "'services': [{'name': 'chat', " ARRIVALS ", " STIME
                                   ", 'replicas': 100000, 'memory_gb': 40}]}");
    fs_placement *pl = NULL;
    fs_error err = {0};
    assert_int_equal(fs_placement_compute(s, &pl, &err), FS_OK);
    assert_int_equal(pl->pools[0].free_units, 0);
    assert_int_equal(pl->replica_unit[0][99999], 99999);
    fs_placement_destroy(pl);
    fs_scenario_destroy(s);

    s = parse_ok(HEAD "'pools': [{'name': 'gpu', 'gpu': 'H100-SXM-80GB', 'gpus': 6, "
                      "'mig': ['1g.10gb', '1g.10gb', '3g.40gb', '2g.20gb']}], "
                      "'services': [{'name': 'a', " ARRIVALS ", " STIME ", 'replicas': 5, 'memory_gb': 15},"
                      " {'name': 'b', " ARRIVALS ", " STIME ", 'replicas': 7, 'memory_gb': 8},"
                      " {'name': 'c', " ARRIVALS ", " STIME ", 'replicas': 4, 'memory_gb': 30}]}");
    assert_int_equal(fs_placement_compute(s, &pl, &err), FS_OK);
    /* Replay the exhaustive search in the same order (largest first, then
     * service, then replica) on a fresh copy of the units. */
    const fs_pool_units *pu = &pl->pools[0];
    double room[64];
    assert_true(pu->n_units <= 64);
    for (size_t u = 0; u < pu->n_units; u++)
        room[u] = pu->units[u].memory_gb;
    const size_t order[] = {2, 0, 1};
    for (size_t k = 0; k < 3; k++) {
        const fs_service_spec *svc = &s->services[order[k]];
        for (uint32_t r = 0; r < svc->replicas; r++) {
            size_t u = naive_best_fit(pu, room, svc->memory_gb);
            assert_int_equal(pl->replica_unit[order[k]][r], u);
            room[u] = -1;
        }
    }
    fs_placement_destroy(pl);
    fs_scenario_destroy(s);
}

/* ---- traces ---------------------------------------------------------------- */

/* The first row of a request trace (column t) holding text, or the error. */
static int first_row(const char *name, const char *text, size_t len, fs_error *err)
{
    const char *path = test_path("%s/%s", tmp, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
    fs_trace_spec spec = {.path = strdup(path), .kind = FS_TRACE_REQUESTS, .time_col = strdup("t"),
                          .rate_scale = 1, .tolerance_s = 1};
    fs_trace *t = NULL;
    int rc = fs_trace_open(&spec, &t, err);
    fs_trace_row row;
    if (rc == FS_OK)
        rc = fs_trace_next(t, &row, err) == 1 ? FS_OK : err->code;
    fs_trace_close(t);
    fs_trace_spec_fini(&spec);
    return rc;
}

/* Hex, "inf", NUL bytes and twice-named columns were accepted; a field had
 * no length cap (an unclosed quote buffered the whole file). */
static void test_trace_input(void **state)
{
    (void)state;
    fs_error err = {0};
    assert_int_equal(first_row("ok.csv", "t\n1.5e1\n", 8, &err), FS_OK);
    assert_int_equal(first_row("hex.csv", "t\n0x10\n", 7, &err), FS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "hex.csv:2: t is not a number of seconds, got \"0x10\""));
    assert_int_equal(first_row("inf.csv", "t\ninf\n", 6, &err), FS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "inf.csv:2: t is not a number of seconds"));
    assert_int_equal(first_row("nul.csv", "t\n1\0002\n", 6, &err), FS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "nul.csv:2: a NUL byte in field 1 (binary data, not CSV text)"));
    assert_int_equal(first_row("dup.csv", "x,t,t\n1,2,3\n", 12, &err), FS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "dup.csv:1: column \"t\" is named twice (fields 2 and 3)"));
    size_t len = 2 * 1024 * 1024;
    char *text = malloc(len);
    assert_non_null(text);
    memset(text, 'a', len);
    memcpy(text, "t\n\"", 3);
    assert_int_equal(first_row("long.csv", text, len, &err), FS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "long.csv:2: a field longer than 1024 KiB (the limit"));
    free(text);
}

/* tmp/SCENARIO: one service "chat" replaying tmp/CSV (column t), which
 * holds text. */
static void write_replay(const char *scenario, const char *csv, const char *text)
{
    char json[512];
    test_write(test_path("%s/%s", tmp, csv), text);
    snprintf(json, sizeof json,
             "{'schema': 'fleetsim/1', 'horizon': '10m', " POOL "'services': [{'name': 'chat', "
             "'arrivals': {'trace': {'file': '%s', 'time': 't'}}, " STIME "}]}",
             csv);
    test_write(test_path("%s/%s", tmp, scenario), doc(json));
}

/* A header-only trace ran with zero traffic and no word: exit 2 naming the
 * file; with --lenient the run goes on and stderr says so.  A job trace of a
 * training stream the same (under --lenient it ran without a word). */
static void test_empty_trace_cli(void **state)
{
    (void)state;
    write_replay("e.json", "empty.csv", "t\n");
    expect_exit2("empty.csv: no data rows (the file is empty or holds only its header)", "run %s/e.json", tmp);
    assert_int_equal(test_fleetsim(tmp, "run %s/e.json --lenient", tmp), 0);
    char *e = test_slurp("%s/err.txt", tmp);
    assert_non_null(strstr(e, "fleetsim: warning: service \"chat\": trace "));
    assert_non_null(strstr(e, "replayed no rows (0 skipped as bad): the service had no traffic"));
    free(e);

    test_write(test_path("%s/jobs.csv", tmp), "t,gpus,hours\n");
    test_write(test_path("%s/bad-jobs.csv", tmp), "t,gpus,hours\nx,1,1\n5,y,1\n");
    for (int bad = 0; bad < 2; bad++) {
        char json[1024];
        snprintf(json, sizeof json,
                 "{'schema': 'fleetsim/1', 'horizon': '10m', " POOL "'services': [{'name': 'chat', " ARRIVALS
                 ", " STIME "}], 'training': [{'name': 'ft', 'submit': {'trace': {'file': '%s', 'time': 't', "
                 "'gpus': 'gpus', 'duration': 'hours'}}}]}",
                 bad ? "bad-jobs.csv" : "jobs.csv");
        test_write(test_path("%s/j.json", tmp), doc(json));
        expect_exit2(bad ? "bad-jobs.csv:2: " : "jobs.csv: no data rows (the file is empty or holds only its header)",
                     "run %s/j.json", tmp);
        assert_int_equal(test_fleetsim(tmp, "run %s/j.json --lenient", tmp), 0);
        e = test_slurp("%s/err.txt", tmp);
        assert_non_null(strstr(e, "fleetsim: warning: training \"ft\": trace "));
        assert_non_null(strstr(e, bad ? "replayed no rows (2 skipped as bad): the stream submitted no jobs"
                                      : "replayed no rows (0 skipped as bad): the stream submitted no jobs"));
        assert_null(strstr(e, "service \"chat\""));
        free(e);
    }
}

/* A malformed trace row in a sweep was recorded as a "refused" point (the
 * word for replicas that fit nowhere): it is the input error it is. */
static void test_sweep_bad_row(void **state)
{
    (void)state;
    write_replay("b.json", "bad.csv", "t\n1\nabc\n3\n");
    write_sweep("bsw.json", "b.json", "{\"path\": \"pools[gpu].gpus\", \"values\": [1, 2]}");
    expect_exit2("point 0 (pools[gpu].gpus=1), replication 0: ", "sweep -q %s/bsw.json --out %s/bsw.out", tmp,
                 tmp);
    char *e = test_slurp("%s/err.txt", tmp);
    assert_non_null(strstr(e, "bad.csv:3: t is not a number of seconds, got \"abc\""));
    free(e);
    assert_false(test_exists("%s/bsw.out/points.csv", tmp));
}

/* ---- numbers --------------------------------------------------------------- */

static void test_numbers(void **state)
{
    (void)state;
    const char *good[] = {"0", "-1.5", "+2", ".5", "5.", "1e3", "2.5E-3"};
    const double want[] = {0, -1.5, 2, 0.5, 5, 1000, 0.0025};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        double v = NAN;
        assert_int_equal(fs_number_parse(good[i], &v), 0);
        assert_true(v == want[i]);
    }
    const char *bad[] = {"", " 1", "1 ", "0x10", "inf", "nan", "infinity", "1e", ".", "-", "1e999", "1,5"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        double v = 7;
        if (fs_number_parse(bad[i], &v) != -1)
            fail_msg("\"%s\" read as %g", bad[i], v);
        assert_true(v == 7);
    }
    /* a prefix stops where the decimal number does */
    const char *rest;
    double v;
    assert_int_equal(fs_number_prefix("0x10", &v, &rest), 0);
    assert_true(v == 0 && strcmp(rest, "x10") == 0);
    assert_int_equal(fs_number_prefix("5%", &v, &rest), 0);
    assert_true(v == 5 && strcmp(rest, "%") == 0);
    /* ranges and plan limits read decimals only */
    json_t *values = NULL;
    bool range;
    fs_error err = {0};
    assert_int_equal(fs_sweep_parse_values("0x1..0x10", &values, &range, &err), FS_ERR_INPUT);
    assert_null(values);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_concurrency),      cmocka_unit_test(test_grid_overflow),
        cmocka_unit_test(test_merge_wrap),       cmocka_unit_test(test_scenario_limits),
        cmocka_unit_test(test_periods),
        cmocka_unit_test(test_windows),          cmocka_unit_test(test_scenario_file),
        cmocka_unit_test(test_placement),        cmocka_unit_test(test_trace_input),
        cmocka_unit_test(test_empty_trace_cli),  cmocka_unit_test(test_sweep_bad_row),
        cmocka_unit_test(test_numbers),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

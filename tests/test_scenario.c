/*
 * test_scenario — a full scenario lands field by field, defaults fill in, and
 * every kind of bad input is refused with the message a user would need:
 * file:line:column for malformed JSON, the JSON path and expected/got for
 * bad values, the closest key for typos.
 *
 * Documents are written with single quotes for readability; doc() turns them
 * into double quotes before parsing (no test document contains an apostrophe).
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "testutil.h"

#include "mig.h"
#include "placement.h"
#include "scenario.h"

/* ---- helpers ------------------------------------------------------------- */

static char docbuf[16384];

static const char *doc(const char *single_quoted)
{
    size_t n = strlen(single_quoted);
    assert_true(n < sizeof docbuf);
    for (size_t i = 0; i <= n; i++)
        docbuf[i] = single_quoted[i] == '\'' ? '"' : single_quoted[i];
    return docbuf;
}

static fs_scenario *parse_ok(const char *single_quoted)
{
    fs_error err = {0, ""};
    fs_scenario *s = NULL;
    int rc = fs_scenario_parse(doc(single_quoted), "scen.json", &s, &err);
    if (rc != FS_OK)
        fail_msg("refused: %s", err.msg);
    assert_non_null(s);
    return s;
}

/* Parses text (already in JSON quoting) and checks the refusal: the code,
 * that *out was left alone, and that the message contains want. */
static void expect_raw(const char *text, int code, const char *want)
{
    fs_error err = {0, ""};
    fs_scenario *sentinel = (fs_scenario *)&err, *s = sentinel;
    int rc = fs_scenario_parse(text, "scen.json", &s, &err);
    if (rc == FS_OK) {
        fs_scenario_destroy(s);
        fail_msg("accepted, wanted \"%s\"", want);
    }
    assert_ptr_equal(s, sentinel);
    assert_int_equal(rc, code);
    assert_int_equal(err.code, code);
    if (strstr(err.msg, want) == NULL)
        fail_msg("message\n  %s\nlacks\n  %s", err.msg, want);
}

static void expect_error(const char *single_quoted, const char *want)
{
    expect_raw(doc(single_quoted), FS_ERR_INPUT, want);
}

#define HEAD "{'schema': 'fleetsim/1', 'horizon': '1d', "
#define POOL "'pools': [{'name': 'gpu', 'gpu': 'H100-SXM-80GB', 'gpus': 8}], "
#define ARRIVALS "'arrivals': {'poisson_rps': 10}"
#define STIME "'service_time': {'exponential': {'mean': '50ms'}}"
/* One pool, one service "chat"; X is spliced into the service object. */
#define SERVICE(X) HEAD POOL "'services': [{'name': 'chat', " ARRIVALS ", " STIME X "}]}"
/* The service with its arrivals object given by A. */
#define SERVICE_ARR(A) HEAD POOL "'services': [{'name': 'chat', 'arrivals': " A ", " STIME "}]}"
/* The service with its service_time object given by T. */
#define SERVICE_ST(T)                                                                              \
    HEAD POOL "'services': [{'name': 'chat', " ARRIVALS ", 'service_time': " T "}]}"
/* Top-level members T added to the one-service scenario. */
#define TOP(T)                                                                                     \
    "{'schema': 'fleetsim/1', " T ", " POOL "'services': [{'name': 'chat', " ARRIVALS ", " STIME   \
    "}]}"

/* One service "chat" on one pool "p" of H100s; X is spliced into the pool. */
#define POOL_WITH(X)                                                                               \
    HEAD "'pools': [{'name': 'p', 'gpu': 'H100-SXM-80GB', 'gpus': 2" X "}], "                      \
         "'services': [{'name': 'chat', " ARRIVALS ", " STIME "}]}"
/* A "gpus" object G, pools P, and one service "chat" with X spliced in. */
#define FLEET(G, P, X)                                                                             \
    HEAD "'gpus': " G ", 'pools': " P ", "                                                         \
         "'services': [{'name': 'chat', " ARRIVALS ", " STIME X "}]}"
/* A "gpus" object G with the one-pool, one-service scenario. */
#define GPUS(G) FLEET(G, "[{'name': 'gpu', 'gpu': 'H100-SXM-80GB', 'gpus': 8}]", "")

#define H24(x)                                                                                     \
    "[" x "," x "," x "," x "," x "," x "," x "," x "," x "," x "," x "," x "," x "," x "," x      \
    "," x "," x "," x "," x "," x "," x "," x "," x "," x "]"

static void assert_close(double got, double want)
{
    if (!(fabs(got - want) <= 1e-12 * fmax(1.0, fabs(want))))
        fail_msg("got %.17g, want %.17g", got, want);
}

/* ---- valid scenarios ----------------------------------------------------- */

/* clang-format off */
static const char full[] =
    "{\n"
    " 'schema': 'fleetsim/1',\n"
    " 'name': 'morning tail',\n"
    " 'description': 'two pools, three services',\n"
    " 'horizon': '7d', 'warmup': '1d', 'window': 60, 'seed': 42, 'replications': 5,\n"
    " 'start_weekday': 'Wed',\n"
    " 'pools': [\n"
    "   {'name': 'serving', 'gpu': 'H100-SXM-80GB', 'gpus': 16},\n"
    "   {'name': 'batch', 'gpu': 'A100-SXM4-40GB', 'gpus': 4}\n"
    " ],\n"
    " 'services': [\n"
    "  {'name': 'chat', 'tenant': 'assistant', 'pool': 'serving',\n"
    "   'arrivals': {'poisson_rps': 400,\n"
    "     'weekday': [0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23],\n"
    "     'weekend': [0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1.0,1.1,1.2,1.3,1.4,1.5,1.6,1.7,1.8,"
    "1.9,2.0,2.1,2.2,2.3],\n"
    "     'bursts': [{'at': '2d 09:30', 'multiplier': 2, 'duration': '2h'},\n"
    "                {'at': 3600, 'multiplier': 10, 'duration': '1m'},\n"
    "                {'at': '1d', 'multiplier': 1.5, 'duration': 30}]},\n"
    "   'service_time': {'lognormal': {'median': '80ms', 'sigma': 0.5}},\n"
    "   'replicas': {'count': 10, 'concurrency': 8},\n"
    "   'queue_limit': 5000,\n"
    "   'slo': {'p999_ms': 1000, 'p99_ms': 250, 'window': '1h'}},\n"
    "  {'name': 'embed', 'pool': 'batch',\n"
    "   'arrivals': {'poisson_rps': 0.5, 'diurnal': " H24("2") ", 'weekend': " H24("3") "},\n"
    "   'service_time': {'empirical': {'samples_ms': [30, 10, 20.5]}},\n"
    "   'replicas': 4, 'queue_limit': 0},\n"
    "  {'name': 'rerank', 'pool': 'serving', 'arrivals': {'poisson_rps': 5},\n"
    "   'service_time': {'gamma': {'mean': 0.05, 'cv': 1.5}},\n"
    "   'replicas': {'count': 6}, 'slo': {'p50_ms': 20, 'p95_ms': 40, 'p90_ms': 30}}\n"
    " ]\n"
    "}\n";
/* clang-format on */

static void test_full(void **state)
{
    (void)state;
    fs_scenario *s = parse_ok(full);
    assert_string_equal(s->path, "scen.json");
    assert_string_equal(s->name, "morning tail");
    assert_string_equal(s->description, "two pools, three services");
    assert_close(s->horizon_s, 7 * 86400.0);
    assert_close(s->warmup_s, 86400.0);
    assert_close(s->window_s, 60.0);
    assert_int_equal(s->seed, 42);
    assert_int_equal(s->replications, 5);
    assert_int_equal(s->start_weekday, 2);

    assert_int_equal(s->n_pools, 2);
    assert_string_equal(s->pools[0].name, "serving");
    assert_string_equal(s->pools[0].gpu, "H100-SXM-80GB");
    assert_int_equal(s->pools[0].gpus, 16);
    assert_string_equal(s->pools[1].name, "batch");
    assert_string_equal(s->pools[1].gpu, "A100-SXM4-40GB");
    assert_int_equal(s->pools[1].gpus, 4);
    /* no "gpus": the two built-ins the pools use, in order of first use */
    assert_int_equal(s->n_gpu_types, 2);
    assert_int_equal(s->pools[0].gpu_type, 0);
    assert_int_equal(s->pools[1].gpu_type, 1);
    assert_string_equal(s->gpu_types[0].name, "H100-SXM-80GB");
    assert_string_equal(s->gpu_types[1].name, "A100-SXM4-40GB");

    assert_int_equal(s->n_services, 3);
    const fs_service_spec *chat = &s->services[0], *embed = &s->services[1],
                          *rerank = &s->services[2];

    assert_string_equal(chat->name, "chat");
    assert_string_equal(chat->tenant, "assistant");
    assert_int_equal(chat->pool, 0);
    assert_close(chat->arrivals.base_rps, 400.0);
    for (int h = 0; h < 24; h++) {
        assert_close(chat->arrivals.weekday[h], h);
        assert_close(chat->arrivals.weekend[h], h * 0.1);
    }
    assert_int_equal(chat->arrivals.n_bursts, 3);
    /* sorted by start: 1h, 1d, 2d 09:30 */
    assert_close(chat->arrivals.bursts[0].at_s, 3600.0);
    assert_close(chat->arrivals.bursts[0].multiplier, 10.0);
    assert_close(chat->arrivals.bursts[0].duration_s, 60.0);
    assert_close(chat->arrivals.bursts[1].at_s, 86400.0);
    assert_close(chat->arrivals.bursts[1].multiplier, 1.5);
    assert_close(chat->arrivals.bursts[1].duration_s, 30.0);
    assert_close(chat->arrivals.bursts[2].at_s, 207000.0);
    assert_close(chat->arrivals.bursts[2].multiplier, 2.0);
    assert_close(chat->arrivals.bursts[2].duration_s, 7200.0);
    assert_int_equal(chat->service_time.kind, FS_DIST_LOGNORMAL);
    assert_close(chat->service_time.a, 0.08);
    assert_close(chat->service_time.b, 0.5);
    assert_int_equal(chat->replicas, 10);
    assert_int_equal(chat->concurrency, 8);
    assert_int_equal(chat->queue_limit, 5000);
    /* targets in quantile order, whatever the order in the file */
    assert_int_equal(chat->slo.n_targets, 2);
    assert_close(chat->slo.targets[0].quantile, 0.99);
    assert_close(chat->slo.targets[0].threshold_s, 0.25);
    assert_close(chat->slo.targets[1].quantile, 0.999);
    assert_close(chat->slo.targets[1].threshold_s, 1.0);
    assert_close(chat->slo.window_s, 3600.0);

    assert_string_equal(embed->name, "embed");
    assert_string_equal(embed->tenant, "embed");
    assert_int_equal(embed->pool, 1);
    assert_int_equal(embed->reference_gpu, 1); /* its pool's type */
    assert_close(embed->arrivals.base_rps, 0.5);
    for (int h = 0; h < 24; h++) {
        assert_close(embed->arrivals.weekday[h], 2.0); /* diurnal */
        assert_close(embed->arrivals.weekend[h], 3.0); /* weekend overrides diurnal */
    }
    assert_int_equal(embed->arrivals.n_bursts, 0);
    assert_null(embed->arrivals.bursts);
    assert_int_equal(embed->service_time.kind, FS_DIST_EMPIRICAL);
    assert_int_equal(embed->service_time.n, 3);
    assert_close(embed->service_time.samples[0], 0.010); /* ms -> s, sorted */
    assert_close(embed->service_time.samples[1], 0.0205);
    assert_close(embed->service_time.samples[2], 0.030);
    assert_int_equal(embed->replicas, 4);
    assert_int_equal(embed->concurrency, 1);
    assert_int_equal(embed->queue_limit, 0);
    assert_int_equal(embed->slo.n_targets, 0);
    assert_close(embed->slo.window_s, 60.0);

    assert_int_equal(rerank->pool, 0);
    for (int h = 0; h < 24; h++) {
        assert_close(rerank->arrivals.weekday[h], 1.0);
        assert_close(rerank->arrivals.weekend[h], 1.0);
    }
    assert_int_equal(rerank->service_time.kind, FS_DIST_GAMMA);
    assert_close(rerank->service_time.a, 0.05);
    assert_close(rerank->service_time.b, 1.5);
    assert_int_equal(rerank->replicas, 6);
    assert_int_equal(rerank->concurrency, 1);
    assert_true(rerank->queue_limit == FS_QUEUE_UNLIMITED);
    assert_int_equal(rerank->slo.n_targets, 3);
    assert_close(rerank->slo.targets[0].quantile, 0.5);
    assert_close(rerank->slo.targets[0].threshold_s, 0.020);
    assert_close(rerank->slo.targets[1].quantile, 0.9);
    assert_close(rerank->slo.targets[1].threshold_s, 0.030);
    assert_close(rerank->slo.targets[2].quantile, 0.95);
    assert_close(rerank->slo.targets[2].threshold_s, 0.040);
    assert_close(rerank->slo.window_s, 60.0); /* the scenario window */
    fs_scenario_destroy(s);
}

static void test_defaults(void **state)
{
    (void)state;
    fs_scenario *s = parse_ok(SERVICE(""));
    assert_string_equal(s->name, "scen"); /* origin without .json */
    assert_string_equal(s->description, "");
    assert_close(s->horizon_s, 86400.0);
    assert_close(s->warmup_s, 0.0);
    assert_close(s->window_s, 300.0);
    assert_int_equal(s->seed, 1);
    assert_int_equal(s->replications, 1);
    assert_int_equal(s->start_weekday, 0);
    const fs_service_spec *c = &s->services[0];
    assert_string_equal(c->tenant, "chat");
    assert_int_equal(c->pool, 0); /* the only pool */
    assert_int_equal(c->replicas, 1);
    assert_int_equal(c->concurrency, 1);
    assert_true(c->queue_limit == FS_QUEUE_UNLIMITED);
    assert_int_equal(c->slo.n_targets, 0);
    assert_close(c->slo.window_s, 300.0);
    assert_null(c->arrivals.bursts);
    assert_int_equal(c->arrivals.n_bursts, 0);
    for (int h = 0; h < 24; h++) {
        assert_close(c->arrivals.weekday[h], 1.0);
        assert_close(c->arrivals.weekend[h], 1.0);
    }
    assert_int_equal(c->service_time.kind, FS_DIST_EXPONENTIAL);
    assert_close(c->service_time.a, 0.05);
    assert_close(c->memory_gb, 0.0); /* not given */
    assert_int_equal(c->reference_gpu, 0);
    assert_close(c->sm_exponent, 1.0);
    const fs_pool_spec *pool = &s->pools[0];
    assert_int_equal(pool->partitioning, FS_PARTITION_WHOLE);
    assert_int_equal(pool->price, FS_PRICE_ON_DEMAND);
    assert_int_equal(pool->placement, fs_scenario_placement_find("best_fit"));
    assert_true(pool->placement >= 0);
    assert_int_equal(pool->gpu_type, 0);
    assert_int_equal(s->n_gpu_types, 1);
    fs_scenario_destroy(s);

    /* diurnal alone applies to every day; weekday alone leaves weekends at 1 */
    s = parse_ok(SERVICE_ARR("{'poisson_rps': 1, 'diurnal': " H24("0.5") "}"));
    assert_close(s->services[0].arrivals.weekday[7], 0.5);
    assert_close(s->services[0].arrivals.weekend[7], 0.5);
    fs_scenario_destroy(s);
    s = parse_ok(SERVICE_ARR("{'poisson_rps': 1, 'weekday': " H24("4") "}"));
    assert_close(s->services[0].arrivals.weekday[7], 4.0);
    assert_close(s->services[0].arrivals.weekend[7], 1.0);
    fs_scenario_destroy(s);

    /* a real that is a whole number counts as an integer; 0 seed is allowed */
    s = parse_ok(TOP("'horizon': 3600, 'seed': 0, 'replications': 3.0, 'start_weekday': 'SUNDAY'"));
    assert_int_equal(s->seed, 0);
    assert_int_equal(s->replications, 3);
    assert_int_equal(s->start_weekday, 6);
    assert_close(s->horizon_s, 3600.0);
    fs_scenario_destroy(s);

    /* a NULL origin still gives messages and a name */
    fs_error err;
    assert_int_equal(fs_scenario_parse(doc(SERVICE("")), NULL, &s, &err), FS_OK);
    assert_string_equal(s->name, "<string>");
    fs_scenario_destroy(s);
    fs_scenario_destroy(NULL);
}

static void test_dist_kinds(void **state)
{
    (void)state;
    static const struct {
        const char *json;
        fs_dist_kind kind;
        double a, b;
    } cases[] = {
        {"{'exponential': {'mean': '50ms'}}", FS_DIST_EXPONENTIAL, 0.05, 0},
        {"{'deterministic': {'value': 0.2}}", FS_DIST_DETERMINISTIC, 0.2, 0},
        {"{'deterministic': {'value': '0s'}}", FS_DIST_DETERMINISTIC, 0, 0},
        {"{'lognormal': {'median': '1s', 'sigma': 0}}", FS_DIST_LOGNORMAL, 1, 0},
        {"{'gamma': {'mean': '2s', 'cv': 0.5}}", FS_DIST_GAMMA, 2, 0.5},
        {"{'uniform': {'min': '10ms', 'max': '30ms'}}", FS_DIST_UNIFORM, 0.01, 0.03},
        {"{'uniform': {'min': '10ms', 'max': '10ms'}}", FS_DIST_UNIFORM, 0.01, 0.01},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[2048];
        snprintf(text, sizeof text,
                 HEAD POOL "'services': [{'name': 'chat', " ARRIVALS ", 'service_time': %s}]}",
                 cases[i].json);
        fs_scenario *s = parse_ok(text);
        assert_int_equal(s->services[0].service_time.kind, cases[i].kind);
        assert_close(s->services[0].service_time.a, cases[i].a);
        assert_close(s->services[0].service_time.b, cases[i].b);
        fs_scenario_destroy(s);
    }
}

/* ---- malformed JSON ------------------------------------------------------ */

/* jansson reports the line and the (1-based) column where the offending
 * token ends. */
static void test_malformed_json(void **state)
{
    (void)state;
    /* line 3, column 14 is the ',' where a value should be */
    expect_raw("{\n  \"schema\": \"fleetsim/1\",\n  \"horizon\": ,\n}", FS_ERR_INPUT,
               "scen.json:3:14: unexpected token near ','");
    expect_raw("{\"schema\": \"fleetsim/1\"", FS_ERR_INPUT, "scen.json:1:23: '}' expected");
    expect_raw("", FS_ERR_INPUT, "scen.json:1:0: '[' or '{' expected near end of file");
    expect_raw("{} x", FS_ERR_INPUT, "scen.json:1:4: end of file expected");
    /* the top level must be an object, not an array */
    expect_raw("[1, 2]", FS_ERR_INPUT,
               "scen.json: expected an object at the top level, got an array");
}

static void test_duplicate_json_key(void **state)
{
    (void)state;
    expect_raw("{\n  \"schema\": \"fleetsim/1\",\n  \"seed\": 1,\n  \"seed\": 2\n}", FS_ERR_INPUT,
               "scen.json:4:8: duplicate object key");
}

/* ---- schema -------------------------------------------------------------- */

static void test_schema(void **state)
{
    (void)state;
    expect_error("{'horizon': '1d'}",
                 "scen.json: missing required key \"schema\" (expected \"fleetsim/1\")");
    expect_error("{'schema': 'fleetsim/2', 'horizon': '1d'}",
                 "scen.json: schema: expected \"fleetsim/1\", got \"fleetsim/2\"");
    expect_error("{'schema': 1}", "scen.json: schema: expected \"fleetsim/1\", got 1");
}

/* ---- types --------------------------------------------------------------- */

static void test_wrong_type(void **state)
{
    (void)state;
    expect_error(
        TOP("'horizon': [1]"),
        "scen.json: horizon: expected a positive duration like \"7d\" or \"90m\", got an array");
    expect_error(TOP("'horizon': '1d', 'name': 5"),
                 "scen.json: name: expected a non-empty string, got 5");
    expect_error(TOP("'horizon': '1d', 'name': ''"), "name: expected a non-empty string, got \"\"");
    expect_error(TOP("'horizon': '1d', 'description': {'a': 1}"),
                 "description: expected a string, got an object");
    expect_error(TOP("'horizon': '1d', 'seed': true"),
                 "seed: expected a non-negative integer, got true");
    expect_error(TOP("'horizon': '1d', 'seed': 1.5"),
                 "seed: expected a non-negative integer, got 1.5");
    expect_error(TOP("'horizon': '1d', 'seed': -1"),
                 "seed: expected a non-negative integer, got -1");
    expect_error(TOP("'horizon': '1d', 'replications': 0"),
                 "replications: expected an integer from 1 to 10000, got 0");
    expect_error(TOP("'horizon': '1d', 'replications': 10001"),
                 "replications: expected an integer from 1 to 10000, got 10001");
    expect_error(TOP("'horizon': '1d', 'replications': null"),
                 "replications: expected an integer from 1 to 10000, got null");
    expect_error(HEAD "'pools': {}, 'services': []}",
                 "scen.json: pools: expected a non-empty array, got an empty object");
    expect_error(HEAD "'pools': [], 'services': []}",
                 "scen.json: pools: expected a non-empty array, got an empty array");
    expect_error(HEAD POOL "'services': []}",
                 "scen.json: services: expected a non-empty array, got an empty array");
    expect_error(HEAD "'pools': ['gpu'], 'services': []}",
                 "scen.json: pools[0]: expected an object describing a pool, got \"gpu\"");
    expect_error(HEAD POOL "'services': [{'name': 'chat'}, 3]}",
                 "services[0]: missing required key \"arrivals\"");
    expect_error(HEAD POOL "'services': [{'name': 'chat', 'arrivals': 'x', " STIME "}]}",
                 "scen.json: services[0].arrivals: expected an object, got \"x\"");
    expect_error(SERVICE(", 'replicas': 'two'"),
                 "services[0].replicas: expected a positive integer or an object {\"count\", "
                 "\"min\", \"max\", \"concurrency\", \"autoscale\"}, got \"two\"");
    expect_error(SERVICE(", 'replicas': 2.5"),
                 "services[0].replicas: expected a positive integer, got 2.5");
    expect_error(SERVICE(", 'queue_limit': -1"),
                 "services[0].queue_limit: expected a non-negative integer, got -1");
    expect_error(SERVICE(", 'tenant': false"),
                 "services[0].tenant: expected a non-empty string, got false");
    expect_error(SERVICE_ARR("{'poisson_rps': '10'}"),
                 "services[0].arrivals.poisson_rps: expected a non-negative number, got \"10\"");
    expect_error(SERVICE_ARR("{'poisson_rps': 1, 'bursts': {}}"),
                 "services[0].arrivals.bursts: expected an array, got an empty object");
    expect_error(SERVICE_ARR("{'poisson_rps': 1, 'bursts': [5]}"),
                 "services[0].arrivals.bursts[0]: expected an object {\"at\", \"multiplier\", "
                 "\"duration\"}, got 5");
    expect_error(SERVICE_ST("{'empirical': {'samples_ms': [1, 'x']}}"),
                 "services[0].service_time.empirical.samples_ms[1]: expected a non-negative "
                 "number, got \"x\"");
    expect_error(SERVICE_ST("{'empirical': {'samples_ms': []}}"),
                 "services[0].service_time.empirical.samples_ms: expected a non-empty array, got "
                 "an empty array");
    expect_error(SERVICE_ST("{'gamma': 3}"), "services[0].service_time.gamma: expected an object "
                                             "with the gamma distribution's parameters, got 3");
    expect_error(TOP("'horizon': '1d', 'start_weekday': 'funday'"),
                 "start_weekday: expected a day of the week (\"monday\"..\"sunday\" or "
                 "\"mon\"..\"sun\"), got \"funday\"");
    expect_error(TOP("'horizon': '1d', 'start_weekday': 'mo'"),
                 "start_weekday: expected a day of the week");
    expect_error(
        HEAD
        "'pools': [{'name': 'gpu', 'gpu': 'H100-SXM-80GB', 'gpus': 5000000000}], 'services': []}",
        "pools[0].gpus: expected a positive integer no larger than 4294967295, got 5000000000");
    /* long strings are cut so the message stays one readable line */
    expect_error(TOP("'horizon': '1d', 'seed': "
                     "'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'"),
                 "got \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...\"");
}

/* ---- out-of-range numbers ------------------------------------------------ */

static void test_bad_numbers(void **state)
{
    (void)state;
    expect_error(SERVICE(", 'slo': {'p99_ms': -5}"),
                 "scen.json: services[0].slo.p99_ms: expected a positive number, got -5");
    expect_error(SERVICE(", 'slo': {'p50_ms': 0}"),
                 "services[0].slo.p50_ms: expected a positive number, got 0");
    expect_error(
        SERVICE(", 'slo': {'p999_ms': 1, 'window': 0}"),
        "services[0].slo.window: expected a positive duration like \"7d\" or \"90m\", got 0");
    expect_error(SERVICE(", 'slo': {'window': '1h'}"),
                 "services[0].slo: expected at least one latency target (\"p50_ms\", \"p90_ms\", "
                 "\"p95_ms\", "
                 "\"p99_ms\", \"p999_ms\"), got none");
    expect_error(SERVICE(", 'replicas': 0"),
                 "services[0].replicas: expected a positive integer, got 0");
    expect_error(SERVICE(", 'replicas': {'count': 1, 'concurrency': 0}"),
                 "services[0].replicas.concurrency: expected a positive integer, got 0");
    expect_error(SERVICE_ARR("{'poisson_rps': -1}"),
                 "services[0].arrivals.poisson_rps: expected a non-negative number, got -1");
    expect_error(
        SERVICE_ARR("{'poisson_rps': 1, 'bursts': [{'at': 0, 'multiplier': 0, 'duration': 1}]}"),
        "services[0].arrivals.bursts[0].multiplier: expected a positive number, got 0");
    expect_error(
        SERVICE_ARR("{'poisson_rps': 1, 'bursts': [{'at': 0, 'multiplier': 2, 'duration': '0s'}]}"),
        "services[0].arrivals.bursts[0].duration: expected a positive duration like \"7d\" or "
        "\"90m\", got \"0s\"");
    expect_error(
        SERVICE_ARR("{'poisson_rps': 1, 'bursts': [{'at': -60, 'multiplier': 2, 'duration': 1}]}"),
        "bursts[0].at: expected a duration like \"7d\" or \"90m\" (negative durations are not "
        "allowed), got -60");
    expect_error(SERVICE_ST("{'gamma': {'mean': '1s', 'cv': 0}}"),
                 "services[0].service_time.gamma.cv: expected a positive number, got 0");
    expect_error(
        SERVICE_ST("{'lognormal': {'median': '1s', 'sigma': -0.1}}"),
        "services[0].service_time.lognormal.sigma: expected a non-negative number, got -0.1");
    expect_error(SERVICE_ST("{'exponential': {'mean': 0}}"),
                 "services[0].service_time.exponential.mean: expected a positive duration like "
                 "\"7d\" or \"90m\", got 0");
    expect_error(
        SERVICE_ST("{'empirical': {'samples_ms': [1, -2]}}"),
        "services[0].service_time.empirical.samples_ms[1]: expected a non-negative number, got -2");
    expect_error(SERVICE_ST("{'uniform': {'min': '30ms', 'max': '10ms'}}"),
                 "services[0].service_time.uniform.max: expected a duration no shorter than min "
                 "(30ms), got \"10ms\"");
    expect_error(
        TOP("'horizon': '0s'"),
        "scen.json: horizon: expected a positive duration like \"7d\" or \"90m\", got \"0s\"");
    expect_error(TOP("'horizon': -3600"),
                 "scen.json: horizon: expected a positive duration like \"7d\" or \"90m\" "
                 "(negative durations are not allowed), got -3600");
    expect_error(TOP("'horizon': '1d', 'window': '0m'"),
                 "scen.json: window: expected a positive duration");
}

/* ---- unknown and missing keys -------------------------------------------- */

static void test_unknown_key_suggestion(void **state)
{
    (void)state;
    expect_error(SERVICE_ARR("{'poison_rps': 10}"),
                 "scen.json: services[0].arrivals: unknown key \"poison_rps\" (did you mean "
                 "\"poisson_rps\"?)");
    expect_error(TOP("'horizn': '1d'"),
                 "scen.json: unknown key \"horizn\" (did you mean \"horizon\"?)");
    expect_error(TOP("'horizon': '1d', 'Seed': 3"),
                 "scen.json: unknown key \"Seed\" (did you mean \"seed\"?)");
    expect_error(HEAD "'pools': [{'name': 'gpu', 'gpu': 'L4-24GB', 'gpuss': 8}], 'services': []}",
                 "scen.json: pools[0]: unknown key \"gpuss\" (did you mean \"gpus\"?)");
    expect_error(SERVICE(", 'slo': {'p99ms': 250}"),
                 "services[0].slo: unknown key \"p99ms\" (did you mean \"p99_ms\"?)");
    expect_error(
        SERVICE_ST("{'exponential': {'maen': 1}}"),
        "services[0].service_time.exponential: unknown key \"maen\" (did you mean \"mean\"?)");
    expect_error(SERVICE_ARR("{'poisson_rps': 1, 'bursts': [{'at': 0, 'mult': 2, 'duration': 1}]}"),
                 "services[0].arrivals.bursts[0]: unknown key \"mult\"");
}

static void test_unknown_key_no_match(void **state)
{
    (void)state;
    expect_error(SERVICE(", 'colour': 'red'"),
                 "scen.json: services[0]: unknown key \"colour\" (valid keys: \"name\", "
                 "\"tenant\", \"pool\", \"arrivals\", \"service_time\", \"replicas\", "
                 "\"queue_limit\", \"slo\", \"memory_gb\", \"reference_gpu\", \"sm_exponent\")");
    expect_error(TOP("'horizon': '1d', 'fleet': {}"),
                 "scen.json: unknown key \"fleet\" (valid keys: \"schema\", \"name\", "
                 "\"description\", \"horizon\", \"warmup\", \"window\", \"seed\", "
                 "\"replications\", \"gpus\", ");
    expect_error(POOL_WITH(", 'colour': 'red'"),
                 "scen.json: pools[0]: unknown key \"colour\" (valid keys: \"name\", \"gpu\", "
                 "\"gpus\", \"mig\", \"time_slicing\", \"price\", \"placement\", \"class\", "
                 "\"autoscale\", \"reclaim_per_hour\")");
    /* three edits from "p99_ms" is beyond max(2, 3 / 3): listed, not guessed */
    expect_error(
        SERVICE(", 'slo': {'p99': 250}"),
        "services[0].slo: unknown key \"p99\" (valid keys: \"p50_ms\", \"p90_ms\", \"p95_ms\", "
        "\"p99_ms\", \"p999_ms\", \"window\")");
    expect_error(SERVICE(", 'replicas': {'size': 1}"),
                 "services[0].replicas: unknown key \"size\" (valid keys: \"count\", \"min\", "
                 "\"max\", \"concurrency\", \"autoscale\")");
}

static void test_missing_key(void **state)
{
    (void)state;
    expect_error("{'schema': 'fleetsim/1', " POOL "'services': []}",
                 "scen.json: missing required key \"horizon\"");
    expect_error(HEAD "'services': []}", "scen.json: missing required key \"pools\"");
    expect_error(HEAD "'pools': [{'name': 'gpu', 'gpu': 'L4-24GB', 'gpus': 1}]}",
                 "scen.json: missing required key \"services\"");
    expect_error(HEAD "'pools': [{'name': 'gpu', 'gpu': 'L4-24GB'}], 'services': []}",
                 "scen.json: pools[0]: missing required key \"gpus\"");
    expect_error(HEAD "'pools': [{'gpu': 'L4-24GB', 'gpus': 1}], 'services': []}",
                 "scen.json: pools[0]: missing required key \"name\"");
    expect_error(HEAD POOL "'services': [{'name': 'chat', " ARRIVALS "}]}",
                 "scen.json: services[0]: missing required key \"service_time\"");
    expect_error(SERVICE_ARR("{'diurnal': " H24("1") "}"),
                 "services[0].arrivals: missing required key \"poisson_rps\"");
    expect_error(SERVICE_ARR("{'poisson_rps': 1, 'bursts': [{'at': '1h', 'multiplier': 2}]}"),
                 "services[0].arrivals.bursts[0]: missing required key \"duration\"");
    expect_error(SERVICE_ST("{'lognormal': {'median': '1s'}}"),
                 "services[0].service_time.lognormal: missing required key \"sigma\"");
    /* "count" is optional now (it defaults to "min"); the autoscaler's target is not */
    expect_error(SERVICE(", 'replicas': {'max': 3, 'autoscale': {'interval': '5s'}}"),
                 "services[0].replicas.autoscale: missing required key \"target_in_flight\"");
}

/* ---- durations ----------------------------------------------------------- */

static void test_bad_duration(void **state)
{
    (void)state;
    expect_error(TOP("'horizon': '7x'"), "scen.json: horizon: expected a positive duration like "
                                         "\"7d\" or \"90m\", got \"7x\" (unknown unit \"x\")");
    expect_error(TOP("'horizon': '1d', 'warmup': '-1h'"),
                 "warmup: expected a duration like \"7d\" or \"90m\", got \"-1h\" (negative "
                 "durations are not allowed)");
    expect_error(TOP("'horizon': '90'"), "got \"90\" (missing unit after \"90\"");
    expect_error(
        SERVICE_ARR(
            "{'poisson_rps': 1, 'bursts': [{'at': '1h 09:30', 'multiplier': 2, 'duration': 1}]}"),
        "services[0].arrivals.bursts[0].at: expected a duration like \"7d\" or \"90m\", got \"1h "
        "09:30\" (a clock time may follow only days or weeks)");
    expect_error(TOP("'horizon': '1d 25:61'"), "(minutes 61 out of range in clock time");
}

static void test_warmup_vs_horizon(void **state)
{
    (void)state;
    expect_error(
        TOP("'horizon': '1d', 'warmup': '1d'"),
        "scen.json: warmup: expected a duration shorter than the horizon (1d), got \"1d\"");
    expect_error(TOP("'horizon': '1d', 'warmup': 90000"),
                 "scen.json: warmup: expected a duration shorter than the horizon (1d), got 90000");
    fs_scenario *s = parse_ok(TOP("'horizon': '1d', 'warmup': '23h59m'"));
    assert_close(s->warmup_s, 86340.0);
    fs_scenario_destroy(s);
}

/* ---- GPUs, pools, capacity ----------------------------------------------- */

static void test_unknown_gpu(void **state)
{
    (void)state;
    expect_error(
        HEAD "'pools': [{'name': 'gpu', 'gpu': 'H100-SXM-80G', 'gpus': 1}], 'services': []}",
        "scen.json: pools[0].gpu: expected a GPU type from the catalog, got \"H100-SXM-80G\" "
        "(did you mean \"H100-SXM-80GB\"? known types: \"H100-SXM-80GB\", \"H100-PCIE-80GB\"");
    /* a fragment of a catalog name is completed, whatever its case */
    expect_error(HEAD "'pools': [{'name': 'gpu', 'gpu': 'h100', 'gpus': 1}], 'services': []}",
                 "got \"h100\" (did you mean \"H100-SXM-80GB\"?");
    expect_error(HEAD "'pools': [{'name': 'gpu', 'gpu': 'l40s', 'gpus': 1}], 'services': []}",
                 "(did you mean \"L40S-48GB\"?");
    /* equally far from two names: the one sharing the longer prefix */
    expect_error(HEAD "'pools': [{'name': 'gpu', 'gpu': 'A100-80GB', 'gpus': 1}], 'services': []}",
                 "(did you mean \"A100-SXM4-80GB\"?");
    /* far from everything: still the nearest, and the catalog listed */
    expect_error(HEAD "'pools': [{'name': 'gpu', 'gpu': 'RTX-4090', 'gpus': 1}], 'services': []}",
                 "\"L4-24GB\"");
}

static void test_unknown_pool(void **state)
{
    (void)state;
#define TWO_POOLS                                                                                  \
    "'pools': [{'name': 'serving', 'gpu': 'L4-24GB', 'gpus': 4}, "                                 \
    "{'name': 'batch', 'gpu': 'L4-24GB', 'gpus': 4}], "
    expect_error(
        HEAD TWO_POOLS "'services': [{'name': 'chat', 'pool': 'servng', " ARRIVALS ", " STIME "}]}",
        "scen.json: services[0].pool: expected the name of a pool (\"serving\", \"batch\"), got "
        "\"servng\" (did you mean \"serving\"?)");
    expect_error(HEAD TWO_POOLS "'services': [{'name': 'chat', 'pool': 'gpu', " ARRIVALS ", " STIME
                                "}]}",
                 "scen.json: services[0].pool: expected the name of a pool (\"serving\", "
                 "\"batch\"), got \"gpu\"");
    expect_error(
        HEAD TWO_POOLS "'services': [{'name': 'chat', " ARRIVALS ", " STIME "}]}",
        "scen.json: services[0]: missing required key \"pool\" (needed when there is more than one "
        "pool: \"serving\", \"batch\")");
    fs_scenario *s = parse_ok(
        HEAD TWO_POOLS "'services': [{'name': 'chat', 'pool': 'batch', " ARRIVALS ", " STIME "}]}");
    assert_int_equal(s->services[0].pool, 1);
    fs_scenario_destroy(s);
#undef TWO_POOLS
}

/* More replicas than GPUs is no longer the parser's business: placement
 * (placement.h) decides what fits from memory and partitioning, so the file
 * is accepted with its counts as written. */
static void test_replicas_beyond_gpus(void **state)
{
    (void)state;
    fs_scenario *s =
        parse_ok(HEAD POOL "'services': [{'name': 'chat', 'replicas': 6, " ARRIVALS ", " STIME "}, "
                           "{'name': 'embed', 'replicas': {'count': 3, 'concurrency': 4}, " ARRIVALS
                           ", " STIME "}]}");
    assert_int_equal(s->pools[0].gpus, 8);
    assert_int_equal(s->services[0].replicas, 6);
    assert_int_equal(s->services[1].replicas, 3);
    assert_int_equal(s->services[1].concurrency, 4);
    assert_int_equal(s->services[0].pool, 0);
    assert_int_equal(s->services[1].pool, 0);
    fs_scenario_destroy(s);
}

static void test_duplicate_names(void **state)
{
    (void)state;
    expect_error(
        HEAD
        "'pools': [{'name': 'a', 'gpu': 'L4-24GB', 'gpus': 1}, "
        "{'name': 'b', 'gpu': 'L4-24GB', 'gpus': 1}, {'name': 'a', 'gpu': 'L4-24GB', 'gpus': 1}], "
        "'services': []}",
        "scen.json: pools[2].name: duplicate pool name \"a\" (also pools[0])");
    expect_error(HEAD POOL "'services': [{'name': 'chat', " ARRIVALS ", " STIME "}, "
                           "{'name': 'chat', " ARRIVALS ", " STIME "}]}",
                 "scen.json: services[1].name: duplicate service name \"chat\" (also services[0])");
    /* duplicate keys inside a nested object are caught by the JSON reader */
    expect_raw("{\"schema\": \"fleetsim/1\", \"pools\": [{\"name\": \"a\", \"name\": \"b\"}]}",
               FS_ERR_INPUT, "scen.json:1:55: duplicate object key near '\"name\"'");
}

/* ---- GPU types ----------------------------------------------------------- */

static void assert_same_type(const fs_gpu_type *got, const fs_gpu_type *want)
{
    assert_string_equal(got->name, want->name);
    assert_close(got->memory_gb, want->memory_gb);
    assert_int_equal(got->sms, want->sms);
    assert_close(got->price_on_demand, want->price_on_demand);
    assert_close(got->price_spot, want->price_spot);
    assert_close(got->idle_w, want->idle_w);
    assert_close(got->busy_w, want->busy_w);
    assert_ptr_equal(got->mig, want->mig);
    assert_int_equal(got->n_mig, want->n_mig);
}

static void test_gpu_overrides(void **state)
{
    (void)state;
    const fs_gpu_type *h100 = fs_gpu_find("H100-SXM-80GB"), *l4 = fs_gpu_find("L4-24GB");
    assert_non_null(h100);
    assert_non_null(l4);
    fs_scenario *s = parse_ok(FLEET(
        "{'H100-SXM-80GB': {'price_per_hour': 4.5, 'idle_w': 90, 'busy_w': 650, 'memory_gb': 96}}",
        "[{'name': 'small', 'gpu': 'L4-24GB', 'gpus': 1}, "
        "{'name': 'big', 'gpu': 'H100-SXM-80GB', 'gpus': 2, 'mig': ['3g.40gb', '3g.40gb']}]",
        ", 'pool': 'big'"));
    assert_int_equal(s->n_gpu_types, 2);
    /* order of first use: the L4 pool comes first in the file */
    assert_int_equal(s->pools[0].gpu_type, 0);
    assert_int_equal(s->pools[1].gpu_type, 1);
    assert_string_equal(s->pools[1].gpu, "H100-SXM-80GB");
    const fs_gpu_type *t = &s->gpu_types[1];
    assert_string_equal(t->name, "H100-SXM-80GB");
    assert_close(t->price_on_demand, 4.5);
    assert_close(t->idle_w, 90.0);
    assert_close(t->busy_w, 650.0);
    assert_close(t->memory_gb, 96.0);
    /* what was not overridden comes from the catalog, MIG table included */
    assert_close(t->price_spot, h100->price_spot);
    assert_int_equal(t->sms, h100->sms);
    assert_ptr_equal(t->mig, h100->mig);
    assert_int_equal(t->n_mig, h100->n_mig);
    assert_true(t->price_on_demand != h100->price_on_demand);
    /* and the L4 nothing overrides is the catalog entry as it is */
    assert_same_type(&s->gpu_types[0], l4);
    /* the service's reference is its pool's (overridden) type */
    assert_int_equal(s->services[0].reference_gpu, 1);
    fs_scenario_destroy(s);

    /* overriding the SMs of a MIG type keeps its MIG table and layouts */
    s = parse_ok(FLEET("{'H100-SXM-80GB': {'sms': 120, 'spot_price_per_hour': 1.5}}",
                       "[{'name': 'p', 'gpu': 'H100-SXM-80GB', 'gpus': 1, 'mig': ['7g.80gb']}]",
                       ""));
    assert_int_equal(s->gpu_types[0].sms, 120);
    assert_close(s->gpu_types[0].price_spot, 1.5);
    assert_close(s->gpu_types[0].price_on_demand, h100->price_on_demand);
    assert_ptr_equal(s->gpu_types[0].mig, h100->mig);
    assert_int_equal(s->pools[0].partitioning, FS_PARTITION_MIG);
    assert_int_equal(s->pools[0].mig.n, 1);
    fs_scenario_destroy(s);

    /* an empty override object is the catalog entry */
    s = parse_ok(GPUS("{'H100-SXM-80GB': {}}"));
    assert_int_equal(s->n_gpu_types, 1);
    assert_same_type(&s->gpu_types[0], h100);
    fs_scenario_destroy(s);

    /* out-of-range overrides */
    expect_error(GPUS("{'H100-SXM-80GB': {'memory_gb': 0}}"),
                 "scen.json: gpus.H100-SXM-80GB.memory_gb: expected a positive number, got 0");
    expect_error(GPUS("{'H100-SXM-80GB': {'sms': 0}}"),
                 "gpus.H100-SXM-80GB.sms: expected a positive integer, got 0");
    expect_error(GPUS("{'H100-SXM-80GB': {'sms': 66.5}}"),
                 "gpus.H100-SXM-80GB.sms: expected a positive integer, got 66.5");
    expect_error(GPUS("{'H100-SXM-80GB': {'price_per_hour': -1}}"),
                 "gpus.H100-SXM-80GB.price_per_hour: expected a non-negative number, got -1");
    expect_error(GPUS("{'H100-SXM-80GB': {'spot_price_per_hour': 'cheap'}}"),
                 "gpus.H100-SXM-80GB.spot_price_per_hour: expected a non-negative number, got "
                 "\"cheap\"");
    expect_error(GPUS("{'H100-SXM-80GB': {'idle_w': -5}}"),
                 "gpus.H100-SXM-80GB.idle_w: expected a non-negative number, got -5");
    /* busy below idle: blamed on the key the file wrote */
    expect_error(GPUS("{'H100-SXM-80GB': {'idle_w': 300, 'busy_w': 200}}"),
                 "gpus.H100-SXM-80GB.busy_w: expected a number no smaller than idle_w (300), got "
                 "200");
    char want[256];
    snprintf(want, sizeof want,
             "gpus.H100-SXM-80GB.idle_w: expected a number no larger than the catalog's busy_w "
             "(%g), got 5000",
             h100->busy_w);
    expect_error(GPUS("{'H100-SXM-80GB': {'idle_w': 5000}}"), want);
    expect_error(GPUS("{'L4-24GB': 5}"),
                 "scen.json: gpus.L4-24GB: expected an object of overrides for the built-in type, "
                 "got 5");
    expect_error(GPUS("[]"), "scen.json: gpus: expected an object, got an empty array");
}

static void test_gpu_order(void **state)
{
    (void)state;
    /* pools first, in file order, then a built-in only a service names, then
     * a declared type nothing names; each once */
    fs_scenario *s = parse_ok(
        FLEET("{'spare': {'memory_gb': 16, 'sms': 40, 'price_per_hour': 0.5, 'idle_w': 10, "
              "'busy_w': 70}, 'H100-SXM-80GB': {'price_per_hour': 3}}",
              "[{'name': 'a', 'gpu': 'L4-24GB', 'gpus': 1}, "
              "{'name': 'b', 'gpu': 'H100-SXM-80GB', 'gpus': 1}, "
              "{'name': 'c', 'gpu': 'L4-24GB', 'gpus': 1}]",
              ", 'pool': 'c', 'reference_gpu': 'A100-SXM4-80GB'"));
    assert_int_equal(s->n_gpu_types, 4);
    assert_string_equal(s->gpu_types[0].name, "L4-24GB");
    assert_string_equal(s->gpu_types[1].name, "H100-SXM-80GB");
    assert_close(s->gpu_types[1].price_on_demand, 3.0);
    assert_string_equal(s->gpu_types[2].name, "A100-SXM4-80GB");
    assert_string_equal(s->gpu_types[3].name, "spare");
    assert_int_equal(s->pools[0].gpu_type, 0);
    assert_int_equal(s->pools[1].gpu_type, 1);
    assert_int_equal(s->pools[2].gpu_type, 0);
    assert_int_equal(s->services[0].reference_gpu, 2);
    fs_scenario_destroy(s);
}

#define CUSTOM_ALL                                                                                 \
    "'memory_gb': 48, 'sms': 100, 'price_per_hour': 1.25, 'idle_w': 30, 'busy_w': 300"

static void test_gpu_custom(void **state)
{
    (void)state;
    fs_scenario *s =
        parse_ok(FLEET("{'inhouse-x1': {" CUSTOM_ALL ", 'spot_price_per_hour': 0.4}}",
                       "[{'name': 'p', 'gpu': 'inhouse-x1', 'gpus': 3}]", ", 'memory_gb': 20"));
    assert_int_equal(s->n_gpu_types, 1);
    const fs_gpu_type *t = &s->gpu_types[0];
    assert_string_equal(t->name, "inhouse-x1");
    assert_string_equal(s->pools[0].gpu, "inhouse-x1");
    assert_int_equal(s->pools[0].gpu_type, 0);
    assert_close(t->memory_gb, 48.0);
    assert_int_equal(t->sms, 100);
    assert_close(t->price_on_demand, 1.25);
    assert_close(t->price_spot, 0.4);
    assert_close(t->idle_w, 30.0);
    assert_close(t->busy_w, 300.0);
    assert_null(t->mig);
    assert_int_equal(t->n_mig, 0);
    fs_scenario_destroy(s);

    /* the spot price defaults to the on-demand one */
    s = parse_ok(FLEET("{'inhouse-x1': {" CUSTOM_ALL "}}",
                       "[{'name': 'p', 'gpu': 'inhouse-x1', 'gpus': 3}]", ""));
    assert_close(s->gpu_types[0].price_spot, 1.25);
    fs_scenario_destroy(s);

    /* every field but the spot price is required */
    static const struct {
        const char *json, *missing;
    } cases[] = {
        {"'sms': 100, 'price_per_hour': 1, 'idle_w': 30, 'busy_w': 300", "memory_gb"},
        {"'memory_gb': 48, 'price_per_hour': 1, 'idle_w': 30, 'busy_w': 300", "sms"},
        {"'memory_gb': 48, 'sms': 100, 'idle_w': 30, 'busy_w': 300", "price_per_hour"},
        {"'memory_gb': 48, 'sms': 100, 'price_per_hour': 1, 'busy_w': 300", "idle_w"},
        {"'memory_gb': 48, 'sms': 100, 'price_per_hour': 1, 'idle_w': 30", "busy_w"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[2048], want[512];
        snprintf(
            text, sizeof text,
            FLEET("{'inhouse-x1': {%s}}", "[{'name': 'p', 'gpu': 'inhouse-x1', 'gpus': 1}]", ""),
            cases[i].json);
        snprintf(want, sizeof want,
                 "scen.json: gpus.inhouse-x1: missing required key \"%s\" (not a built-in type, "
                 "so a custom one, which needs \"memory_gb\", \"sms\", \"price_per_hour\", "
                 "\"idle_w\", \"busy_w\")",
                 cases[i].missing);
        expect_error(text, want);
    }
    /* a loosely typed built-in name is a custom type: say which built-in it resembles */
    expect_error(GPUS("{'H100': {'price_per_hour': 2}}"),
                 "gpus.H100: missing required key \"memory_gb\" (not a built-in type, so a custom "
                 "one, which needs \"memory_gb\", \"sms\", \"price_per_hour\", \"idle_w\", "
                 "\"busy_w\"; did you mean the built-in \"H100-SXM-80GB\"?)");
    /* checked even when nothing uses it */
    expect_error(GPUS("{'unused': {'memory_gb': 48, 'sms': 100, 'price_per_hour': 1, 'idle_w': "
                      "30, 'busy_w': 10}}"),
                 "scen.json: gpus.unused.busy_w: expected a number no smaller than idle_w (30), "
                 "got 10");
    expect_error(GPUS("{'': {" CUSTOM_ALL "}}"),
                 "scen.json: gpus: expected GPU type names of 1 to 63 characters, got one of 0");
    expect_error(
        GPUS("{'abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcd': {" CUSTOM_ALL
             "}}"),
        "scen.json: gpus: expected GPU type names of 1 to 63 characters, got one of 64");
    s = parse_ok(GPUS(
        "{'abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabc': {" CUSTOM_ALL "}}"));
    assert_int_equal(s->n_gpu_types, 2); /* the pool's H100, then the unused custom */
    assert_int_equal(strlen(s->gpu_types[1].name), 63);
    fs_scenario_destroy(s);
    expect_error(GPUS("{'inhouse-x1': 'big'}"),
                 "gpus.inhouse-x1: expected an object describing a custom GPU type, got \"big\"");
}

static void test_gpu_unknown_key(void **state)
{
    (void)state;
    expect_error(GPUS("{'H100-SXM-80GB': {'price_per_hr': 3}}"),
                 "scen.json: gpus.H100-SXM-80GB: unknown key \"price_per_hr\" (did you mean "
                 "\"price_per_hour\"?)");
    expect_error(GPUS("{'inhouse-x1': {" CUSTOM_ALL ", 'memroy_gb': 3}}"),
                 "gpus.inhouse-x1: unknown key \"memroy_gb\" (did you mean \"memory_gb\"?)");
    /* "calibration" is a GPU type's key now (test_gpu_calibration); the list shows it */
    expect_error(GPUS("{'H100-SXM-80GB': {'vendor': 'x'}}"),
                 "gpus.H100-SXM-80GB: unknown key \"vendor\" (valid keys: \"memory_gb\", "
                 "\"sms\", \"price_per_hour\", \"spot_price_per_hour\", \"idle_w\", \"busy_w\", "
                 "\"calibration\")");
}

/* A pool naming a GPU that is neither built in nor declared: the suggestion
 * and the list include the declared custom types. */
static void test_gpu_unknown_with_custom(void **state)
{
    (void)state;
    expect_error(FLEET("{'inhouse-x1': {" CUSTOM_ALL "}, 'L4-24GB': {'price_per_hour': 1}}",
                       "[{'name': 'p', 'gpu': 'inhouse-x2', 'gpus': 1}]", ""),
                 "scen.json: pools[0].gpu: expected a GPU type from the catalog or \"gpus\", got "
                 "\"inhouse-x2\" (did you mean \"inhouse-x1\"? known types: \"H100-SXM-80GB\"");
    expect_error(FLEET("{'inhouse-x1': {" CUSTOM_ALL "}, 'L4-24GB': {'price_per_hour': 1}}",
                       "[{'name': 'p', 'gpu': 'inhouse-x2', 'gpus': 1}]", ""),
                 "\"L4-24GB\"; declared in \"gpus\": \"inhouse-x1\")");
}

/* ---- partitioning, price, placement -------------------------------------- */

static void test_pool_mig(void **state)
{
    (void)state;
    fs_scenario *s = parse_ok(POOL_WITH(", 'mig': ['3g.40gb', '2g.20gb', '1g.10gb@6']"));
    const fs_pool_spec *pool = &s->pools[0];
    const fs_gpu_type *gpu = &s->gpu_types[pool->gpu_type];
    assert_int_equal(pool->partitioning, FS_PARTITION_MIG);
    assert_int_equal(pool->mig.n, 3);
    assert_ptr_equal(pool->mig.profiles[0], fs_gpu_mig_profile(gpu, "3g.40gb"));
    assert_ptr_equal(pool->mig.profiles[1], fs_gpu_mig_profile(gpu, "2g.20gb"));
    assert_ptr_equal(pool->mig.profiles[2], fs_gpu_mig_profile(gpu, "1g.10gb"));
    assert_non_null(pool->mig.profiles[0]);
    assert_int_equal(pool->mig.starts[0], 0);
    assert_int_equal(pool->mig.starts[1], 4);
    assert_int_equal(pool->mig.starts[2], 6);
    fs_scenario_destroy(s);

    /* a pinned start slot is honoured */
    s = parse_ok(POOL_WITH(", 'mig': ['3g.40gb@4', '3g.40gb']"));
    assert_int_equal(s->pools[0].mig.n, 2);
    assert_int_equal(s->pools[0].mig.starts[0], 4);
    assert_int_equal(s->pools[0].mig.starts[1], 0);
    fs_scenario_destroy(s);

    /* an invalid layout: fs_mig_place's reason, verbatim, under pools[0].mig */
    static const char *const bad[][3] = {
        {"4g.40gb", "4g.40gb", NULL},
        {"3g.40gb", "2g.20gb", "2g.20gb"},
        {"5g.50gb", NULL, NULL},
    };
    const fs_gpu_type *h100 = fs_gpu_find("H100-SXM-80GB");
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        size_t n = 0;
        char list[256] = "";
        for (; n < 3 && bad[i][n] != NULL; n++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s'%s'", n ? ", " : "",
                     bad[i][n]);
        fs_mig_layout layout;
        char why[512] = "", want[700], text[2048];
        assert_int_equal(fs_mig_place(h100, bad[i], n, &layout, why, sizeof why), -1);
        assert_true(why[0] != '\0');
        snprintf(want, sizeof want, "scen.json: pools[0].mig: %s", why);
        snprintf(text, sizeof text, POOL_WITH(", 'mig': [%s]"), list);
        expect_error(text, want);
    }

    /* no MIG on an L4, nor on a custom type */
    fs_mig_layout layout;
    char why[512] = "", want[700];
    const char *const one[] = {"1g.10gb"};
    assert_int_equal(fs_mig_place(fs_gpu_find("L4-24GB"), one, 1, &layout, why, sizeof why), -1);
    snprintf(want, sizeof want, "scen.json: pools[0].mig: %s", why);
    expect_error(HEAD "'pools': [{'name': 'p', 'gpu': 'L4-24GB', 'gpus': 1, 'mig': ['1g.10gb']}], "
                      "'services': [{'name': 'chat', " ARRIVALS ", " STIME "}]}",
                 want);
    expect_error(FLEET("{'inhouse-x1': {" CUSTOM_ALL "}}",
                       "[{'name': 'p', 'gpu': 'inhouse-x1', 'gpus': 1, 'mig': ['1g.10gb']}]", ""),
                 "scen.json: pools[0].mig: ");

    /* the list itself */
    expect_error(POOL_WITH(", 'mig': []"),
                 "scen.json: pools[0].mig: expected an array of 1 to 7 MIG profile names like "
                 "\"3g.40gb\" or \"3g.40gb@4\", got an empty array");
    expect_error(POOL_WITH(", 'mig': '3g.40gb'"),
                 "pools[0].mig: expected an array of 1 to 7 MIG profile names");
    expect_error(POOL_WITH(", 'mig': ['1g.10gb', '1g.10gb', '1g.10gb', '1g.10gb', '1g.10gb', "
                           "'1g.10gb', '1g.10gb', '1g.10gb']"),
                 "scen.json: pools[0].mig: expected at most 7 MIG instances per GPU, got 8");
    expect_error(POOL_WITH(", 'mig': ['3g.40gb', 3]"),
                 "scen.json: pools[0].mig[1]: expected a non-empty string, got 3");
    /* seven is allowed */
    s = parse_ok(POOL_WITH(", 'mig': ['1g.10gb', '1g.10gb', '1g.10gb', '1g.10gb', '1g.10gb', "
                           "'1g.10gb', '1g.10gb']"));
    assert_int_equal(s->pools[0].mig.n, 7);
    fs_scenario_destroy(s);
}

static void test_pool_time_slicing(void **state)
{
    (void)state;
    fs_scenario *s = parse_ok(POOL_WITH(", 'time_slicing': {'tenants': 4}"));
    const fs_pool_spec *pool = &s->pools[0];
    assert_int_equal(pool->partitioning, FS_PARTITION_TIME_SLICED);
    assert_int_equal(pool->time_slicing.tenants, 4);
    assert_close(pool->time_slicing.slice_s, 1.024e-3);
    assert_close(pool->time_slicing.switch_overhead_s, 200e-6);
    assert_close(pool->time_slicing.contention_exponent, 1.0);
    fs_scenario_destroy(s);

    s = parse_ok(POOL_WITH(", 'time_slicing': {'tenants': 64, 'slice': '2ms', "
                           "'switch_overhead': 0, 'contention_exponent': 0.5}"));
    pool = &s->pools[0];
    assert_int_equal(pool->time_slicing.tenants, 64);
    assert_close(pool->time_slicing.slice_s, 2e-3);
    assert_close(pool->time_slicing.switch_overhead_s, 0.0);
    assert_close(pool->time_slicing.contention_exponent, 0.5);
    fs_scenario_destroy(s);

    expect_error(POOL_WITH(", 'time_slicing': {'tenants': 1}"),
                 "scen.json: pools[0].time_slicing.tenants: expected an integer from 2 to 64, got "
                 "1");
    expect_error(POOL_WITH(", 'time_slicing': {'tenants': 65}"),
                 "pools[0].time_slicing.tenants: expected an integer from 2 to 64, got 65");
    expect_error(POOL_WITH(", 'time_slicing': {'slice': '1ms'}"),
                 "scen.json: pools[0].time_slicing: missing required key \"tenants\"");
    expect_error(POOL_WITH(", 'time_slicing': {'tenants': 2, 'slice': 0}"),
                 "pools[0].time_slicing.slice: expected a positive duration");
    expect_error(POOL_WITH(", 'time_slicing': {'tenants': 2, 'switch_overhead': '-1us'}"),
                 "pools[0].time_slicing.switch_overhead: expected a duration");
    expect_error(POOL_WITH(", 'time_slicing': {'tenants': 2, 'contention_exponent': -1}"),
                 "pools[0].time_slicing.contention_exponent: expected a non-negative number, got "
                 "-1");
    expect_error(POOL_WITH(", 'time_slicing': {'tenant': 2}"),
                 "pools[0].time_slicing: unknown key \"tenant\" (did you mean \"tenants\"?)");
    expect_error(POOL_WITH(", 'time_slicing': 4"),
                 "pools[0].time_slicing: expected an object {\"tenants\", \"slice\", "
                 "\"switch_overhead\", \"contention_exponent\"}, got 4");
    /* one or the other */
    expect_error(POOL_WITH(", 'mig': ['3g.40gb'], 'time_slicing': {'tenants': 2}"),
                 "scen.json: pools[0]: \"mig\" and \"time_slicing\" exclude each other");
}

static void test_pool_price_and_placement(void **state)
{
    (void)state;
    fs_scenario *s = parse_ok(POOL_WITH(", 'price': 'spot', 'placement': 'first_fit'"));
    assert_int_equal(s->pools[0].price, FS_PRICE_SPOT);
    assert_int_equal(s->pools[0].placement, fs_scenario_placement_find("first_fit"));
    assert_true(s->pools[0].placement != fs_scenario_placement_find("best_fit"));
    fs_scenario_destroy(s);
    s = parse_ok(POOL_WITH(", 'price': 'on_demand', 'placement': 'best_fit'"));
    assert_int_equal(s->pools[0].price, FS_PRICE_ON_DEMAND);
    assert_int_equal(s->pools[0].placement, fs_scenario_placement_find("best_fit"));
    fs_scenario_destroy(s);

    expect_error(POOL_WITH(", 'price': 'spto'"),
                 "scen.json: pools[0].price: expected a price class (\"on_demand\", \"spot\"), got "
                 "\"spto\" (did you mean \"spot\"?)");
    expect_error(POOL_WITH(", 'price': 'reserved'"),
                 "pools[0].price: expected a price class (\"on_demand\", \"spot\"), got "
                 "\"reserved\"");
    expect_error(POOL_WITH(", 'price': 1"),
                 "pools[0].price: expected a price class (\"on_demand\", \"spot\"), got 1");

    /* the list comes from placement.c, whatever it holds */
    size_t n;
    const char *const *names = fs_scenario_placement_names(&n);
    char list[256] = "", want[512];
    for (size_t i = 0; i < n; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s\"%s\"", i ? ", " : "",
                 names[i]);
    snprintf(want, sizeof want,
             "scen.json: pools[0].placement: expected a placement policy (%s), got \"bestfit\" "
             "(did you mean \"best_fit\"?)",
             list);
    expect_error(POOL_WITH(", 'placement': 'bestfit'"), want);
    snprintf(want, sizeof want,
             "scen.json: pools[0].placement: expected a placement policy (%s), got \"random\"",
             list);
    expect_error(POOL_WITH(", 'placement': 'random'"), want);
}

/* ---- service memory and reference GPU ------------------------------------ */

static void test_service_gpu_fields(void **state)
{
    (void)state;
    fs_scenario *s = parse_ok(SERVICE(", 'memory_gb': 12.5, 'sm_exponent': 0.8, "
                                      "'reference_gpu': 'A100-SXM4-80GB'"));
    const fs_service_spec *c = &s->services[0];
    assert_close(c->memory_gb, 12.5);
    assert_close(c->sm_exponent, 0.8);
    assert_int_equal(s->n_gpu_types, 2);
    assert_int_equal(c->reference_gpu, 1);
    assert_string_equal(s->gpu_types[c->reference_gpu].name, "A100-SXM4-80GB");
    fs_scenario_destroy(s);

    /* sm_exponent 0: service time independent of SMs */
    s = parse_ok(SERVICE(", 'sm_exponent': 0"));
    assert_close(s->services[0].sm_exponent, 0.0);
    fs_scenario_destroy(s);

    /* a custom type as the reference */
    s = parse_ok(FLEET("{'inhouse-x1': {" CUSTOM_ALL "}}",
                       "[{'name': 'p', 'gpu': 'H100-SXM-80GB', 'gpus': 2}]",
                       ", 'reference_gpu': 'inhouse-x1'"));
    assert_int_equal(s->n_gpu_types, 2);
    assert_string_equal(s->gpu_types[s->services[0].reference_gpu].name, "inhouse-x1");
    assert_int_equal(s->services[0].reference_gpu, 1);
    fs_scenario_destroy(s);

    /* by default, the type of the service's own pool */
    s = parse_ok(HEAD "'pools': [{'name': 'a', 'gpu': 'L4-24GB', 'gpus': 1}, "
                      "{'name': 'b', 'gpu': 'H200-141GB', 'gpus': 1}], "
                      "'services': [{'name': 'x', 'pool': 'b', " ARRIVALS ", " STIME "}, "
                      "{'name': 'y', 'pool': 'a', " ARRIVALS ", " STIME "}]}");
    assert_int_equal(s->services[0].reference_gpu, s->pools[1].gpu_type);
    assert_int_equal(s->services[0].reference_gpu, 1);
    assert_int_equal(s->services[1].reference_gpu, s->pools[0].gpu_type);
    assert_int_equal(s->services[1].reference_gpu, 0);
    fs_scenario_destroy(s);

    expect_error(SERVICE(", 'reference_gpu': 'A100-80G'"),
                 "scen.json: services[0].reference_gpu: expected a GPU type from the catalog, got "
                 "\"A100-80G\" (did you mean \"A100-SXM4-80GB\"?");
    expect_error(SERVICE(", 'reference_gpu': ''"),
                 "services[0].reference_gpu: expected a non-empty string, got \"\"");
    expect_error(SERVICE(", 'sm_exponent': -0.5"),
                 "scen.json: services[0].sm_exponent: expected a non-negative number, got -0.5");
    expect_error(SERVICE(", 'memory_gb': 0"),
                 "scen.json: services[0].memory_gb: expected a positive number, got 0");
    expect_error(SERVICE(", 'memory_gb': '12GB'"),
                 "services[0].memory_gb: expected a positive number, got \"12GB\"");
    expect_error(SERVICE(", 'memroy_gb': 12"),
                 "services[0]: unknown key \"memroy_gb\" (did you mean \"memory_gb\"?)");
}

/* ---- profiles ------------------------------------------------------------ */

static void test_profiles(void **state)
{
    (void)state;
    expect_error(
        SERVICE_ARR(
            "{'poisson_rps': 1, 'diurnal': [1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1]}"),
        "scen.json: services[0].arrivals.diurnal: expected an array of 24 hourly multipliers, got "
        "an "
        "array of 23");
    expect_error(
        SERVICE_ARR(
            "{'poisson_rps': 1, 'weekend': [1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1]}"),
        "services[0].arrivals.weekend: expected an array of 24 hourly multipliers, got an array of "
        "25");
    expect_error(
        SERVICE_ARR(
            "{'poisson_rps': 1, 'weekday': [1,1,1,1,1,-1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1]}"),
        "services[0].arrivals.weekday[5]: expected a non-negative number, got -1");
    expect_error(SERVICE_ARR("{'poisson_rps': 1, 'weekday': 1}"),
                 "services[0].arrivals.weekday: expected an array of 24 hourly multipliers, got 1");
}

/* ---- service_time kinds -------------------------------------------------- */

static void test_service_time_kinds(void **state)
{
    (void)state;
    expect_error(SERVICE_ST("{'exponential': {'mean': 1}, 'gamma': {'mean': 1, 'cv': 1}}"),
                 "scen.json: services[0].service_time: expected exactly one distribution, got 2 "
                 "(\"exponential\", \"gamma\")");
    expect_error(SERVICE_ST("{'expo': {'mean': 1}}"),
                 "scen.json: services[0].service_time: unknown key \"expo\"");
    expect_error(
        SERVICE_ST("{'exponentail': {'mean': 1}}"),
        "services[0].service_time: unknown key \"exponentail\" (did you mean \"exponential\"?)");
    expect_error(SERVICE_ST("{'weibull': {'mean': 1}}"),
                 "services[0].service_time: unknown key \"weibull\" (valid keys: \"exponential\", "
                 "\"deterministic\", \"lognormal\", \"gamma\", \"uniform\", \"empirical\")");
    expect_error(
        SERVICE_ST("{}"),
        "services[0].service_time: expected an object with one distribution (\"exponential\", "
        "\"deterministic\", \"lognormal\", \"gamma\", \"uniform\", \"empirical\"), got an empty "
        "object");
    expect_error(SERVICE_ST("'50ms'"),
                 "services[0].service_time: expected an object, got \"50ms\"");
}

/* ---- overrides ----------------------------------------------------------- */

static void test_override(void **state)
{
    (void)state;
    fs_scenario *s = parse_ok(TOP("'horizon': '7d', 'warmup': '1d', 'seed': 9, 'replications': 2"));
    fs_error err = {0, ""};

    /* negative / zero: keep everything */
    assert_int_equal(fs_scenario_override(s, -1, 0, 0, &err), FS_OK);
    assert_int_equal(s->seed, 9);
    assert_int_equal(s->replications, 2);
    assert_close(s->horizon_s, 7 * 86400.0);
    assert_int_equal(fs_scenario_override(s, -5, -5, -5, &err), FS_OK);
    assert_int_equal(s->seed, 9);

    /* replace */
    assert_int_equal(fs_scenario_override(s, 0, 10, 2 * 86400.0, &err), FS_OK);
    assert_int_equal(s->seed, 0);
    assert_int_equal(s->replications, 10);
    assert_close(s->horizon_s, 2 * 86400.0);

    /* a horizon not beyond the warm-up is refused, and nothing changes */
    assert_int_equal(fs_scenario_override(s, 77, 3, 86400.0, &err), FS_ERR_INPUT);
    assert_int_equal(err.code, FS_ERR_INPUT);
    if (strstr(err.msg, "scen.json: horizon (override): expected a duration longer than the "
                        "warm-up (1d), got 1d") == NULL)
        fail_msg("message: %s", err.msg);
    assert_int_equal(s->seed, 0);
    assert_int_equal(s->replications, 10);
    assert_close(s->horizon_s, 2 * 86400.0);

    /* so is a replication count beyond the file's own limit */
    assert_int_equal(fs_scenario_override(s, 77, 10001, 0, &err), FS_ERR_INPUT);
    if (strstr(err.msg,
               "replications (override): expected an integer from 1 to 10000, got 10001") == NULL)
        fail_msg("message: %s", err.msg);
    assert_int_equal(s->seed, 0);

    /* and an infinite horizon */
    assert_int_equal(fs_scenario_override(s, -1, 0, INFINITY, &err), FS_ERR_INPUT);
    assert_close(s->horizon_s, 2 * 86400.0);

    /* the smallest values that still replace */
    assert_int_equal(fs_scenario_override(s, 0, 1, 0, &err), FS_OK);
    assert_int_equal(s->replications, 1);
    assert_int_equal(fs_scenario_override(s, INT64_MAX, 10000, 0, &err), FS_OK);
    assert_true(s->seed == (uint64_t)INT64_MAX);
    assert_int_equal(s->replications, 10000);

    /* just above the warm-up is fine */
    assert_int_equal(fs_scenario_override(s, -1, 0, 86401.0, &err), FS_OK);
    assert_close(s->horizon_s, 86401.0);
    fs_scenario_destroy(s);
}

/* ---- the "ci" settings ------------------------------------------------------ */

#define POOL_L4 "'pools': [{'name': 'gpu', 'gpu': 'L4-24GB', 'gpus': 2}]"

static void test_ci_settings(void **state)
{
    (void)state;
    fs_error err = {0, ""};
    /* absent: nothing set, and applying is a no-op */
    fs_scenario *s = parse_ok(TOP("'horizon': '7d', 'warmup': '1d', 'replications': 3"));
    assert_close(s->ci_horizon_s, 0);
    assert_close(s->ci_warmup_s, 0);
    assert_int_equal(s->ci_replications, 0);
    assert_int_equal(fs_scenario_apply_ci(s, &err), FS_OK);
    assert_close(s->horizon_s, 7 * 86400.0);
    assert_close(s->warmup_s, 86400.0);
    assert_int_equal(s->replications, 3);
    fs_scenario_destroy(s);

    /* parsed into every policy; the run's own settings are untouched until
     * applied (run and compare ignore "ci"); applied to every policy */
    s = parse_ok("{'schema': 'fleetsim/1', 'horizon': '7d', 'warmup': '1d', 'replications': 3, "
                 "'ci': {'horizon': '12h', 'replications': 1, 'warmup': '1h'}, "
                 "'policies': {'a': {" POOL_L4 "}, 'b': {" POOL_L4 "}}, "
                 "'services': [{'name': 'chat', " ARRIVALS ", " STIME "}]}");
    assert_int_equal(s->n_policies, 2);
    for (size_t k = 0; k < 2; k++) {
        const fs_scenario *v = s->policies[k];
        assert_close(v->ci_horizon_s, 12 * 3600.0);
        assert_close(v->ci_warmup_s, 3600.0);
        assert_int_equal(v->ci_replications, 1);
        assert_close(v->horizon_s, 7 * 86400.0);
        assert_close(v->warmup_s, 86400.0);
        assert_int_equal(v->replications, 3);
    }
    assert_int_equal(fs_scenario_apply_ci(s, &err), FS_OK);
    for (size_t k = 0; k < 2; k++) {
        const fs_scenario *v = s->policies[k];
        assert_close(v->horizon_s, 12 * 3600.0);
        assert_close(v->warmup_s, 3600.0);
        assert_int_equal(v->replications, 1);
    }
    fs_scenario_destroy(s);

    /* a CI run longer than the file's, warm-up beyond the old horizon */
    s = parse_ok(TOP("'horizon': '1h', 'warmup': '10m', 'ci': {'horizon': '3d', 'warmup': '2d'}"));
    assert_int_equal(fs_scenario_apply_ci(s, &err), FS_OK);
    assert_close(s->horizon_s, 3 * 86400.0);
    assert_close(s->warmup_s, 2 * 86400.0);
    assert_int_equal(s->replications, 1); /* not set in ci: the file's */
    fs_scenario_destroy(s);

    /* only a horizon: the file's warm-up stays */
    s = parse_ok(TOP("'horizon': '2d', 'warmup': '1h', 'ci': {'horizon': '6h'}"));
    assert_int_equal(fs_scenario_apply_ci(s, &err), FS_OK);
    assert_close(s->horizon_s, 6 * 3600.0);
    assert_close(s->warmup_s, 3600.0);
    fs_scenario_destroy(s);

    /* a later --horizon override that the ci warm-up no longer fits under is
     * refused by apply, and nothing changes */
    s = parse_ok(TOP("'horizon': '1d', 'warmup': '10m', 'ci': {'warmup': '2h'}"));
    assert_int_equal(fs_scenario_override(s, -1, -1, 3600.0, &err), FS_OK);
    assert_int_equal(fs_scenario_apply_ci(s, &err), FS_ERR_INPUT);
    if (strstr(err.msg, "scen.json: ci: the warm-up (2h) must stay below the horizon (1h)") == NULL)
        fail_msg("message: %s", err.msg);
    assert_close(s->horizon_s, 3600.0);
    assert_close(s->warmup_s, 600.0);
    fs_scenario_destroy(s);

    /* refusals, each naming the ci key */
    expect_error(TOP("'horizon': '1d', 'ci': {'horizont': '2h'}"),
                 "scen.json: ci: unknown key \"horizont\" (did you mean \"horizon\"?)");
    expect_error(TOP("'horizon': '1d', 'ci': {'replications': 0}"), "scen.json: ci.replications: expected");
    expect_error(TOP("'horizon': '1d', 'ci': {'horizon': '0s'}"),
                 "scen.json: ci.horizon: expected a positive duration");
    expect_error(TOP("'horizon': '1d', 'ci': {'warmup': 0}"), "scen.json: ci.warmup: expected a positive duration");
    expect_error(TOP("'horizon': '1d', 'ci': {'horizon': '2h', 'warmup': '3h'}"),
                 "scen.json: ci.warmup: expected a duration shorter than the ci horizon (2h), got \"3h\"");
    expect_error(TOP("'horizon': '1d', 'ci': {'warmup': '2d'}"),
                 "scen.json: ci.warmup: expected a duration shorter than the scenario's horizon (1d)");
    expect_error(TOP("'horizon': '1d', 'warmup': '6h', 'ci': {'horizon': '2h'}"),
                 "scen.json: ci.horizon: expected a duration longer than the scenario's warm-up (6h), or a "
                 "shorter \"warmup\" in \"ci\", got \"2h\"");
    expect_error(TOP("'horizon': '1d', 'ci': ['2h']"), "scen.json: ci: expected an object");
}

/* ---- files --------------------------------------------------------------- */

static void test_load(void **state)
{
    (void)state;
    fs_error err = {0, ""};
    fs_scenario *sentinel = (fs_scenario *)&err, *s = sentinel;

    assert_int_equal(fs_scenario_load("/nonexistent/dir/scen.json", &s, &err), FS_ERR_INPUT);
    assert_int_equal(err.code, FS_ERR_INPUT);
    assert_string_equal(err.msg,
                        "/nonexistent/dir/scen.json: cannot read: No such file or directory");
    assert_ptr_equal(s, sentinel);

    char dir[] = "/tmp/fleetsim-test-XXXXXX";
    assert_non_null(mkdtemp(dir));
    /* a directory opens but cannot be read */
    assert_int_equal(fs_scenario_load(dir, &s, &err), FS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "cannot read: Is a directory"));

    char path[256];
    snprintf(path, sizeof path, "%s/morning-tail.json", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(doc(SERVICE("")), f);
    fclose(f);
    assert_int_equal(fs_scenario_load(path, &s, &err), FS_OK);
    assert_string_equal(s->path, path);
    assert_string_equal(s->name, "morning-tail");
    fs_scenario_destroy(s);

    /* malformed JSON in a file is located in that file */
    f = fopen(path, "w");
    assert_non_null(f);
    fputs("{\n\n  \"schema\": nope\n}\n", f);
    fclose(f);
    s = sentinel;
    assert_int_equal(fs_scenario_load(path, &s, &err), FS_ERR_INPUT);
    char want[300];
    snprintf(want, sizeof want, "%s:3:16: invalid token near 'nope'", path);
    assert_string_equal(err.msg, want);
    assert_ptr_equal(s, sentinel);

    assert_int_equal(remove(path), 0);
    assert_int_equal(rmdir(dir), 0);
}

/* ---- elastic pools, autoscalers, training, policies, calibration --------- */

/* The one-service scenario with a top-level "training" array T. */
#define TRAINING(T)                                                                                \
    HEAD POOL "'services': [{'name': 'chat', " ARRIVALS ", " STIME "}], 'training': " T "}"
/* The one-service scenario run on the policies object P. */
#define POLICIES(P)                                                                                \
    HEAD "'policies': " P ", 'services': [{'name': 'chat', " ARRIVALS ", " STIME "}]}"
#define L4_POOLS "'pools': [{'name': 'gpu', 'gpu': 'L4-24GB', 'gpus': 2}]"

static void assert_default_costs(const fs_switch_costs *sc)
{
    assert_close(sc->context_s, 0.5);
    assert_close(sc->framework_s, 4.47);
    assert_close(sc->storage_gbps, 1.7);
    assert_close(sc->h2d_gbps, 56.7);
    assert_close(sc->d2h_gbps, 52.8);
    assert_close(sc->inference_warmup_s, 10.0);
    assert_string_equal(sc->source, "built-in default (reference/costs.md)");
}

/* A scenario without the new keys means what it meant before. */
static void test_extension_defaults(void **state)
{
    (void)state;
    fs_scenario *s = parse_ok(SERVICE(""));
    const fs_pool_spec *pool = &s->pools[0];
    assert_int_equal(pool->class, FS_CLASS_SERVING);
    assert_false(pool->elastic);
    assert_int_equal(pool->min_gpus, 8);
    assert_int_equal(pool->max_gpus, 8);
    assert_int_equal(pool->provision_delay.kind, FS_DIST_DETERMINISTIC);
    assert_close(pool->provision_delay.a, 90.0);
    assert_close(pool->idle_release_s, 600.0);
    assert_close(pool->reclaim_per_gpu_hour, 0.0);
    const fs_service_spec *c = &s->services[0];
    assert_int_equal(c->replicas, 1);
    assert_int_equal(c->min_replicas, 1);
    assert_int_equal(c->max_replicas, 1);
    assert_false(c->autoscale.enabled);
    assert_close(c->autoscale.target_in_flight, 0.0);
    assert_close(c->autoscale.p95_ms, 0.0);
    assert_close(c->autoscale.interval_s, 10.0);
    assert_close(c->autoscale.cooldown_s, 60.0);
    assert_close(c->autoscale.idle_s, 600.0);
    assert_string_equal(s->policy, "default");
    assert_int_equal(s->policy_kind, FS_POLICY_SHARED);
    assert_false(s->borrowing);
    assert_close(s->headroom, 0.4);
    assert_null(s->training);
    assert_int_equal(s->n_training, 0);
    assert_default_costs(&s->switch_costs);
    fs_scenario_destroy(s);

    /* fixed counts, plain or as an object, are their own min and max */
    s = parse_ok(full);
    assert_int_equal(s->services[0].min_replicas, 10);
    assert_int_equal(s->services[0].max_replicas, 10);
    assert_int_equal(s->services[1].min_replicas, 4);
    assert_int_equal(s->services[1].max_replicas, 4);
    assert_false(s->services[2].autoscale.enabled);
    assert_int_equal(s->pools[1].min_gpus, 4);
    assert_int_equal(s->pools[1].max_gpus, 4);
    fs_scenario_destroy(s);

    /* an empty training list is no training */
    s = parse_ok(TRAINING("[]"));
    assert_int_equal(s->n_training, 0);
    fs_scenario_destroy(s);
}

static void test_pool_class_autoscale_spot(void **state)
{
    (void)state;
    fs_scenario *s = parse_ok(POOL_WITH(
        ", 'class': 'spot', 'price': 'spot', 'reclaim_per_hour': 0.05, "
        "'autoscale': {'min': 0, 'max': 6, 'provision': {'uniform': {'min': '1m', 'max': '3m'}}, "
        "'idle': '15m'}"));
    const fs_pool_spec *pool = &s->pools[0];
    assert_int_equal(pool->class, FS_CLASS_SPOT);
    assert_int_equal(pool->price, FS_PRICE_SPOT);
    assert_close(pool->reclaim_per_gpu_hour, 0.05);
    assert_true(pool->elastic);
    assert_int_equal(pool->gpus, 2); /* the starting size */
    assert_int_equal(pool->min_gpus, 0);
    assert_int_equal(pool->max_gpus, 6);
    assert_int_equal(pool->provision_delay.kind, FS_DIST_UNIFORM);
    assert_close(pool->provision_delay.a, 60.0);
    assert_close(pool->provision_delay.b, 180.0);
    assert_close(pool->idle_release_s, 900.0);
    fs_scenario_destroy(s);

    /* batch class; provision and idle default; min = gpus = max keeps a
     * spot-like pool topped up without growing it */
    s = parse_ok(POOL_WITH(", 'class': 'batch', 'autoscale': {'min': 2, 'max': 2}"));
    pool = &s->pools[0];
    assert_int_equal(pool->class, FS_CLASS_BATCH);
    assert_true(pool->elastic);
    assert_int_equal(pool->min_gpus, 2);
    assert_int_equal(pool->max_gpus, 2);
    assert_int_equal(pool->provision_delay.kind, FS_DIST_DETERMINISTIC);
    assert_close(pool->provision_delay.a, 90.0);
    assert_close(pool->idle_release_s, 600.0);
    assert_close(pool->reclaim_per_gpu_hour, 0.0);
    fs_scenario_destroy(s);

    /* an empirical provisioning delay owns memory: freed by destroy */
    s = parse_ok(POOL_WITH(
        ", 'autoscale': {'min': 1, 'max': 4, 'provision': {'empirical': {'samples_ms': "
        "[30000, 90000]}}}"));
    assert_int_equal(s->pools[0].provision_delay.kind, FS_DIST_EMPIRICAL);
    assert_close(s->pools[0].provision_delay.samples[1], 90.0);
    fs_scenario_destroy(s);

    expect_error(POOL_WITH(", 'reclaim_per_hour': 0.1"),
                 "scen.json: pools[0].reclaim_per_hour: allowed only on a pool of \"class\": "
                 "\"spot\" (this pool's class is \"serving\")");
    expect_error(POOL_WITH(", 'class': 'batch', 'reclaim_per_hour': 0.1"),
                 "pools[0].reclaim_per_hour: allowed only on a pool of \"class\": \"spot\" (this "
                 "pool's class is \"batch\")");
    expect_error(POOL_WITH(", 'class': 'spot', 'reclaim_per_hour': -1"),
                 "pools[0].reclaim_per_hour: expected a non-negative number, got -1");
    expect_error(POOL_WITH(", 'class': 'sopt'"),
                 "scen.json: pools[0].class: expected a pool class (\"serving\", \"batch\", "
                 "\"spot\"), got \"sopt\" (did you mean \"spot\"?)");
    expect_error(POOL_WITH(", 'autoscale': {'min': 3, 'max': 6}"),
                 "pools[0].autoscale.min: expected an integer no larger than the pool's starting "
                 "\"gpus\" (2): min <= gpus <= max, got 3");
    expect_error(POOL_WITH(", 'autoscale': {'min': 0, 'max': 1}"),
                 "pools[0].autoscale.max: expected an integer no smaller than the pool's starting "
                 "\"gpus\" (2): min <= gpus <= max, got 1");
    expect_error(POOL_WITH(", 'autoscale': {'min': 0}"),
                 "pools[0].autoscale: missing required key \"max\"");
    expect_error(POOL_WITH(", 'autoscale': {'min': 0, 'max': 4, 'provisoin': {}}"),
                 "pools[0].autoscale: unknown key \"provisoin\" (did you mean \"provision\"?)");
    expect_error(POOL_WITH(", 'autoscale': {'min': 0, 'max': 4, 'provision': {'normal': {}}}"),
                 "pools[0].autoscale.provision: unknown key \"normal\"");
    expect_error(POOL_WITH(", 'autoscale': {'min': 0, 'max': 4, 'idle': 0}"),
                 "pools[0].autoscale.idle: expected a positive duration");
    expect_error(POOL_WITH(", 'autoscale': true"),
                 "pools[0].autoscale: expected an object, got true");
}

static void test_service_autoscale(void **state)
{
    (void)state;
    fs_scenario *s = parse_ok(SERVICE(
        ", 'replicas': {'min': 2, 'max': 10, 'concurrency': 4, 'autoscale': {'target_in_flight': "
        "6, 'p95_ms': 300, 'interval': '30s', 'cooldown': 0, 'idle': '20m'}}"));
    const fs_service_spec *c = &s->services[0];
    assert_int_equal(c->replicas, 2); /* count defaults to min */
    assert_int_equal(c->min_replicas, 2);
    assert_int_equal(c->max_replicas, 10);
    assert_int_equal(c->concurrency, 4);
    assert_true(c->autoscale.enabled);
    assert_close(c->autoscale.target_in_flight, 6.0);
    assert_close(c->autoscale.p95_ms, 300.0);
    assert_close(c->autoscale.interval_s, 30.0);
    assert_close(c->autoscale.cooldown_s, 0.0);
    assert_close(c->autoscale.idle_s, 1200.0);
    fs_scenario_destroy(s);

    /* min defaults to count; the cadence to 10 s / 1 m / 10 m */
    s = parse_ok(SERVICE(", 'replicas': {'count': 3, 'max': 5, 'autoscale': "
                         "{'target_in_flight': 1.5}}"));
    c = &s->services[0];
    assert_int_equal(c->replicas, 3);
    assert_int_equal(c->min_replicas, 3);
    assert_int_equal(c->max_replicas, 5);
    assert_true(c->autoscale.enabled);
    assert_close(c->autoscale.target_in_flight, 1.5);
    assert_close(c->autoscale.p95_ms, 0.0);
    assert_close(c->autoscale.interval_s, 10.0);
    assert_close(c->autoscale.cooldown_s, 60.0);
    assert_close(c->autoscale.idle_s, 600.0);
    fs_scenario_destroy(s);

    /* a start between min and max */
    s = parse_ok(SERVICE(", 'replicas': {'count': 4, 'min': 1, 'max': 8, 'autoscale': "
                         "{'target_in_flight': 2}}"));
    assert_int_equal(s->services[0].replicas, 4);
    assert_int_equal(s->services[0].min_replicas, 1);
    assert_int_equal(s->services[0].max_replicas, 8);
    fs_scenario_destroy(s);

    /* min alone is a fixed count; so are equal bounds */
    s = parse_ok(SERVICE(", 'replicas': {'min': 4}"));
    assert_int_equal(s->services[0].replicas, 4);
    assert_int_equal(s->services[0].max_replicas, 4);
    assert_false(s->services[0].autoscale.enabled);
    fs_scenario_destroy(s);
    s = parse_ok(SERVICE(", 'replicas': {'count': 2, 'min': 2, 'max': 2}"));
    assert_int_equal(s->services[0].min_replicas, 2);
    fs_scenario_destroy(s);

    expect_error(SERVICE(", 'replicas': {'min': 2, 'max': 2, 'autoscale': {'target_in_flight': "
                         "4}}"),
                 "scen.json: services[0].replicas.autoscale: an autoscaler needs room to move: "
                 "\"max\" (2) must be above \"min\" (2); raise \"max\"");
    /* max defaults to count, so count alone leaves no room either */
    expect_error(SERVICE(", 'replicas': {'count': 3, 'autoscale': {'target_in_flight': 4}}"),
                 "services[0].replicas.autoscale: an autoscaler needs room to move: \"max\" (3) "
                 "must be above \"min\" (3)");
    expect_error(SERVICE(", 'replicas': {'count': 1, 'min': 2, 'max': 4}"),
                 "scen.json: services[0].replicas.count: expected an integer no smaller than "
                 "\"min\" (2), got 1");
    expect_error(SERVICE(", 'replicas': {'count': 5, 'min': 2, 'max': 4}"),
                 "services[0].replicas.count: expected an integer no larger than \"max\" (4), got "
                 "5");
    expect_error(SERVICE(", 'replicas': {'min': 3, 'max': 2}"),
                 "services[0].replicas.max: expected an integer no smaller than \"min\" (3), "
                 "got 2");
    expect_error(SERVICE(", 'replicas': {'min': 2, 'max': 4}"),
                 "services[0].replicas: \"min\" (2) and \"max\" (4) bound an autoscaler, but there "
                 "is no \"autoscale\", so the count is fixed at 2");
    expect_error(SERVICE(", 'replicas': {'max': 4, 'autoscale': {'target_in_flight': 0}}"),
                 "services[0].replicas.autoscale.target_in_flight: expected a positive number, got "
                 "0");
    expect_error(SERVICE(", 'replicas': {'max': 4, 'autoscale': {'target_in_flight': 1, "
                         "'interval': 0}}"),
                 "services[0].replicas.autoscale.interval: expected a positive duration");
    expect_error(SERVICE(", 'replicas': {'max': 4, 'autoscale': {'target_in_flight': 1, "
                         "'cooldwn': '1m'}}"),
                 "services[0].replicas.autoscale: unknown key \"cooldwn\" (did you mean "
                 "\"cooldown\"?)");
    expect_error(SERVICE(", 'replicas': {'min': 0, 'max': 4}"),
                 "services[0].replicas.min: expected a positive integer, got 0");
}

static void test_training(void **state)
{
    (void)state;
    fs_scenario *s = parse_ok(TRAINING(
        "[{'name': 'pretrain', 'tenant': 'research', 'submit': {'at': ['1d', 60, '2h'], "
        "'daily_at': ['22:30', '02:00'], 'poisson_per_hour': 0.5}, 'gang': 8, "
        "'work_gpu_hours': 640, 'state_gb_per_gpu': 40, 'checkpoint': {'every': '30m', "
        "'write': '45s'}, 'preemptible': true, 'priority': 'experiment'}, "
        "{'name': 'finetune', 'submit': {'poisson_per_hour': 2}, 'gang': 1, "
        "'work_gpu_hours': 0.5}]"));
    assert_int_equal(s->n_training, 2);
    const fs_training_spec *t = &s->training[0];
    assert_string_equal(t->name, "pretrain");
    assert_string_equal(t->tenant, "research");
    assert_int_equal(t->n_submit_at, 3); /* sorted */
    assert_close(t->submit_at_s[0], 60.0);
    assert_close(t->submit_at_s[1], 7200.0);
    assert_close(t->submit_at_s[2], 86400.0);
    assert_int_equal(t->n_daily, 2); /* sorted */
    assert_close(t->daily_at_s[0], 7200.0);
    assert_close(t->daily_at_s[1], 81000.0);
    assert_close(t->poisson_per_hour, 0.5);
    assert_int_equal(t->gang, 8);
    assert_close(t->work_gpu_hours, 640.0);
    assert_close(t->state_gb_per_gpu, 40.0);
    assert_close(t->checkpoint_every_s, 1800.0);
    assert_close(t->checkpoint_write_s, 45.0);
    assert_true(t->preemptible);
    assert_int_equal(t->lane, FS_LANE_EXPERIMENT);
    t = &s->training[1];
    assert_string_equal(t->name, "finetune");
    assert_string_equal(t->tenant, "finetune");
    assert_null(t->submit_at_s);
    assert_int_equal(t->n_submit_at, 0);
    assert_int_equal(t->n_daily, 0);
    assert_close(t->poisson_per_hour, 2.0);
    assert_int_equal(t->gang, 1);
    assert_close(t->state_gb_per_gpu, 0.0);
    assert_close(t->checkpoint_every_s, 0.0); /* never */
    assert_close(t->checkpoint_write_s, 0.0);
    assert_false(t->preemptible);
    assert_int_equal(t->lane, FS_LANE_TRAINING);
    fs_scenario_destroy(s);

#define JOB(X) "[{'name': 'job', 'gang': 2, 'work_gpu_hours': 10" X "}]"
    s = parse_ok(TRAINING(JOB(", 'submit': {'daily_at': ['00:00', '23:59']}, 'priority': "
                              "'production'")));
    assert_int_equal(s->training[0].n_daily, 2);
    assert_close(s->training[0].daily_at_s[1], 86340.0);
    assert_int_equal(s->training[0].lane, FS_LANE_TRAINING);
    fs_scenario_destroy(s);

    expect_error(TRAINING(JOB(", 'submit': {}")),
                 "scen.json: training[0].submit: expected at least one way to submit jobs "
                 "(\"at\", \"daily_at\", \"poisson_per_hour\", \"trace\"), got none");
    expect_error(TRAINING(JOB("")), "training[0]: missing required key \"submit\"");
    expect_error(TRAINING(JOB(", 'submit': {'poisson_per_hour': 1}, 'priority': 'experimnt'")),
                 "scen.json: training[0].priority: expected a training priority (\"production\", "
                 "\"experiment\"), got \"experimnt\" (did you mean \"experiment\"?)");
    expect_error(TRAINING("[{'name': 'chat', 'submit': {'poisson_per_hour': 1}, 'gang': 1, "
                          "'work_gpu_hours': 1}]"),
                 "scen.json: training[0].name: duplicate name \"chat\" (also services[0]; "
                 "services and training streams share one set of names)");
    expect_error(TRAINING("[{'name': 'a', 'submit': {'poisson_per_hour': 1}, 'gang': 1, "
                          "'work_gpu_hours': 1}, {'name': 'a', 'submit': {'poisson_per_hour': "
                          "1}, 'gang': 1, 'work_gpu_hours': 1}]"),
                 "training[1].name: duplicate name \"a\" (also training[0];");
    expect_error(TRAINING(JOB(", 'submit': {'poisson_per_hour': 1}, 'gang_gpus': 2")),
                 "training[0]: unknown key \"gang_gpus\"");
    expect_error(TRAINING(JOB(", 'submit': {'poisson_per_hour': 0}")),
                 "training[0].submit.poisson_per_hour: expected a positive number, got 0");
    expect_error(TRAINING(JOB(", 'submit': {'at': []}")),
                 "training[0].submit.at: expected a non-empty array, got an empty array");
    expect_error(TRAINING(JOB(", 'submit': {'at': ['1h', '-1h']}")),
                 "training[0].submit.at[1]: expected a duration");
    expect_error(TRAINING(JOB(", 'submit': {'daily_at': ['02:00', '24:00']}")),
                 "training[0].submit.daily_at[1]: expected a clock time before 24:00, got "
                 "\"24:00\"");
    expect_error(TRAINING(JOB(", 'submit': {'daily_at': ['2:61']}")),
                 "training[0].submit.daily_at[0]: expected a clock time like \"02:00\", got "
                 "\"2:61\" (");
    expect_error(TRAINING(JOB(", 'submit': {'daily_at': [120]}")),
                 "training[0].submit.daily_at[0]: expected a clock time like \"02:00\", got 120");
    s = parse_ok(TRAINING(JOB(", 'submit': {'daily_at': " H24("'01:00'") "}")));
    assert_int_equal(s->training[0].n_daily, 24); /* the most there can be */
    fs_scenario_destroy(s);
    expect_error(
        TRAINING(JOB(", 'submit': {'daily_at': ['00:00', '01:00', '02:00', '03:00', '04:00', "
                     "'05:00', '06:00', '07:00', '08:00', '09:00', '10:00', '11:00', '12:00', "
                     "'13:00', '14:00', '15:00', '16:00', '17:00', '18:00', '19:00', '20:00', "
                     "'21:00', '22:00', '23:00', '23:30']}")),
        "training[0].submit.daily_at: expected at most 24 clock times, got 25");
    expect_error(TRAINING(JOB(", 'submit': {'poisson_per_hour': 1}, 'preemptible': 'yes'")),
                 "training[0].preemptible: expected true or false, got \"yes\"");
    expect_error(TRAINING(JOB(", 'submit': {'poisson_per_hour': 1}, 'checkpoint': {'every': "
                              "'1h'}")),
                 "training[0].checkpoint: missing required key \"write\"");
    expect_error(TRAINING(JOB(", 'submit': {'poisson_per_hour': 1}, 'checkpoint': {'every': 0, "
                              "'write': 0}")),
                 "training[0].checkpoint.every: expected a positive duration");
    expect_error(TRAINING("[{'name': 'job', 'submit': {'poisson_per_hour': 1}, 'gang': 0, "
                          "'work_gpu_hours': 1}]"),
                 "training[0].gang: expected a positive integer, got 0");
    expect_error(TRAINING("[{'name': 'job', 'submit': {'poisson_per_hour': 1}, 'gang': 1, "
                          "'work_gpu_hours': 0}]"),
                 "training[0].work_gpu_hours: expected a positive number, got 0");
    expect_error(TRAINING(JOB(", 'submit': {'poisson_per_hour': 1}, 'state_gb_per_gpu': -1")),
                 "training[0].state_gb_per_gpu: expected a non-negative number, got -1");
    expect_error(TRAINING("{}"), "scen.json: training: expected an array, got an empty object");
#undef JOB
}

static void test_policy_settings(void **state)
{
    (void)state;
    fs_scenario *s = parse_ok(POLICIES(
        "{'shared': {" L4_POOLS "}, 'Tiered': {" L4_POOLS ", 'headroom': 0.25}, "
        "'mine': {" L4_POOLS ", 'kind': 'partitioned', 'borrowing': true}, "
        "'partitioned': {" L4_POOLS ", 'kind': 'tiered', 'headroom': 0}, "
        "'other': {" L4_POOLS "}}"));
    assert_int_equal(s->n_policies, 5);
    fs_scenario *const *v = s->policies;
    assert_string_equal(v[0]->policy, "shared");
    assert_int_equal(v[0]->policy_kind, FS_POLICY_SHARED);
    assert_close(v[0]->headroom, 0.4);
    assert_false(v[0]->borrowing);
    assert_string_equal(v[1]->policy, "Tiered");
    assert_int_equal(v[1]->policy_kind, FS_POLICY_TIERED); /* from the name, any case */
    assert_close(v[1]->headroom, 0.25);
    assert_int_equal(v[2]->policy_kind, FS_POLICY_PARTITIONED); /* from "kind" */
    assert_true(v[2]->borrowing);
    assert_close(v[2]->headroom, 0.4);
    assert_int_equal(v[3]->policy_kind, FS_POLICY_TIERED); /* "kind" beats the name */
    assert_close(v[3]->headroom, 0.0);
    assert_int_equal(v[4]->policy_kind, FS_POLICY_SHARED); /* any other name */
    fs_scenario_destroy(s);

    s = parse_ok(POLICIES("{'partitioned': {" L4_POOLS "}}"));
    assert_int_equal(s->policy_kind, FS_POLICY_PARTITIONED);
    assert_false(s->borrowing);
    fs_scenario_destroy(s);

    expect_error(POLICIES("{'a': {" L4_POOLS ", 'kind': 'teired'}}"),
                 "scen.json: policies.a.kind: expected a policy kind (\"shared\", "
                 "\"partitioned\", \"tiered\"), got \"teired\" (did you mean \"tiered\"?)");
    expect_error(POLICIES("{'a': {" L4_POOLS ", 'kind': 'fifo'}}"),
                 "policies.a.kind: expected a policy kind (\"shared\", \"partitioned\", "
                 "\"tiered\"), got \"fifo\"");
    expect_error(POLICIES("{'a': {" L4_POOLS ", 'headroom': 1}}"),
                 "scen.json: policies.a.headroom: expected a number from 0 up to but not "
                 "including 1 (the share of each serving pool kept free), got 1");
    expect_error(POLICIES("{'a': {" L4_POOLS ", 'headroom': -0.1}}"),
                 "policies.a.headroom: expected a non-negative number, got -0.1");
    expect_error(POLICIES("{'a': {" L4_POOLS ", 'borrowing': 1}}"),
                 "policies.a.borrowing: expected true or false, got 1");
    expect_error(POLICIES("{'a': {" L4_POOLS ", 'headrom': 0.2}}"),
                 "policies.a: unknown key \"headrom\" (did you mean \"headroom\"?)");
    expect_error(POLICIES("{'a': {'kind': 'tiered'}}"),
                 "policies.a: missing required key \"pools\"");
    /* the settings belong to policies; the top level has none */
    expect_error(TOP("'horizon': '1d', 'kind': 'tiered'"), "scen.json: unknown key \"kind\"");
}

/* Training and calibration are the same in every policy. */
static void test_every_variant_has_training_and_costs(void **state)
{
    (void)state;
    fs_scenario *s = parse_ok(
        HEAD "'policies': {'x': {" L4_POOLS "}, 'y': {" L4_POOLS "}}, "
             "'services': [{'name': 'chat', " ARRIVALS ", " STIME "}], "
             "'training': [{'name': 'job', 'submit': {'at': [1, 2]}, 'gang': 1, "
             "'work_gpu_hours': 1}], 'calibration': {'context_s': 2}}");
    for (size_t k = 0; k < s->n_policies; k++) {
        const fs_scenario *v = s->policies[k];
        assert_int_equal(v->n_training, 1);
        assert_int_equal(v->training[0].n_submit_at, 2);
        assert_close(v->switch_costs.context_s, 2.0);
        assert_string_equal(v->switch_costs.source, "inline");
    }
    assert_ptr_not_equal(s->policies[0]->training, s->policies[1]->training);
    fs_scenario_destroy(s);
}

static void test_calibration_inline(void **state)
{
    (void)state;
    fs_scenario *s = parse_ok(TOP("'horizon': '1d', 'calibration': {'schema': "
                                  "'fleetsim-calibration/1', 'gpu': 'H100-SXM-80GB', "
                                  "'context_s': 0.8, 'storage_gbps': 3.2, "
                                  "'inference_warmup_s': 0}"));
    const fs_switch_costs *sc = &s->switch_costs;
    assert_close(sc->context_s, 0.8);
    assert_close(sc->storage_gbps, 3.2);
    assert_close(sc->inference_warmup_s, 0.0);
    assert_close(sc->framework_s, 4.47); /* not given: built-in */
    assert_close(sc->h2d_gbps, 56.7);
    assert_close(sc->d2h_gbps, 52.8);
    assert_string_equal(sc->source, "inline");
    fs_scenario_destroy(s);

    s = parse_ok(TOP("'horizon': '1d', 'calibration': {'source': 'lab run, node 7', "
                     "'framework_s': 3, 'h2d_gbps': 25, 'd2h_gbps': 24.5}"));
    sc = &s->switch_costs;
    assert_string_equal(sc->source, "lab run, node 7");
    assert_close(sc->framework_s, 3.0);
    assert_close(sc->h2d_gbps, 25.0);
    assert_close(sc->d2h_gbps, 24.5);
    assert_close(sc->context_s, 0.5);
    fs_scenario_destroy(s);

    /* an empty profile is the built-in one, labelled inline */
    s = parse_ok(TOP("'horizon': '1d', 'calibration': {}"));
    assert_close(s->switch_costs.storage_gbps, 1.7);
    assert_string_equal(s->switch_costs.source, "inline");
    fs_scenario_destroy(s);

    expect_error(TOP("'horizon': '1d', 'calibration': {'h2d_gbps': 0}"),
                 "scen.json: calibration.h2d_gbps: expected a positive number, got 0");
    expect_error(TOP("'horizon': '1d', 'calibration': {'context_s': -0.5}"),
                 "scen.json: calibration.context_s: expected a non-negative number, got -0.5");
    expect_error(TOP("'horizon': '1d', 'calibration': {'contxt_s': 1}"),
                 "scen.json: calibration: unknown key \"contxt_s\" (did you mean \"context_s\"?)");
    expect_error(TOP("'horizon': '1d', 'calibration': {'schema': 'fleetsim/1'}"),
                 "calibration.schema: expected \"fleetsim-calibration/1\", got \"fleetsim/1\"");
    expect_error(TOP("'horizon': '1d', 'calibration': 5"),
                 "scen.json: calibration: expected a calibration file name or an inline profile "
                 "object, got 5");
    expect_error(TOP("'horizon': '1d', 'calibration': ''"),
                 "calibration: expected a calibration file name or an inline profile object, got "
                 "\"\"");
    expect_error(TOP("'horizon': '1d', 'calibration': {'gpu': 7}"),
                 "calibration.gpu: expected a non-empty string, got 7");
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}


static void test_calibration_file(void **state)
{
    (void)state;
    char dir[] = "/tmp/fleetsim-cal-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char sub[300], cal[300], bad[300], badjson[300], scen[300], want[1200];
    static char text[sizeof docbuf + 512];
    snprintf(sub, sizeof sub, "%s/cal", dir);
    assert_int_equal(mkdir(sub, 0700), 0);
    snprintf(cal, sizeof cal, "%s/cal/h100.json", dir);
    snprintf(bad, sizeof bad, "%s/cal/bad.json", dir);
    snprintf(badjson, sizeof badjson, "%s/cal/broken.json", dir);
    snprintf(scen, sizeof scen, "%s/scen.json", dir);
    write_text(cal, doc("{'schema': 'fleetsim-calibration/1', 'gpu': 'H100-SXM-80GB',\n"
                        " 'context_s': 0.61, 'framework_s': 3.9, 'storage_gbps': 2.5,\n"
                        " 'h2d_gbps': 55, 'd2h_gbps': 50, 'inference_warmup_s': 12}\n"));
    write_text(bad, doc("{'context_s': 1,\n 'd2h_gbps': -1}\n"));
    write_text(badjson, "{\n  \"context_s\": 1,,\n}\n");

    /* relative to the scenario file's directory, not the working directory */
    write_text(scen, doc(TOP("'horizon': '1d', 'calibration': 'cal/h100.json'")));
    fs_scenario *s = NULL;
    fs_error err = {0, ""};
    if (fs_scenario_load(scen, &s, &err) != FS_OK)
        fail_msg("refused: %s", err.msg);
    const fs_switch_costs *sc = &s->switch_costs;
    assert_close(sc->context_s, 0.61);
    assert_close(sc->framework_s, 3.9);
    assert_close(sc->storage_gbps, 2.5);
    assert_close(sc->h2d_gbps, 55.0);
    assert_close(sc->d2h_gbps, 50.0);
    assert_close(sc->inference_warmup_s, 12.0);
    assert_string_equal(sc->source, cal); /* the file read */
    fs_scenario_destroy(s);

    /* the same from a string whose origin names a file there */
    snprintf(text, sizeof text, "%s",
             doc(TOP("'horizon': '1d', 'calibration': 'cal/h100.json'")));
    s = NULL;
    assert_int_equal(fs_scenario_parse(text, scen, &s, &err), FS_OK);
    assert_close(s->switch_costs.context_s, 0.61);
    fs_scenario_destroy(s);

    /* an absolute path is taken as it is, whatever the origin */
    snprintf(text, sizeof text,
             "{\"schema\": \"fleetsim/1\", \"horizon\": \"1d\", \"calibration\": \"%s\", %s", cal,
             doc(POOL "'services': [{'name': 'chat', " ARRIVALS ", " STIME "}]}"));
    s = NULL;
    if (fs_scenario_parse(text, "elsewhere/scen.json", &s, &err) != FS_OK)
        fail_msg("refused: %s", err.msg);
    assert_close(s->switch_costs.storage_gbps, 2.5);
    fs_scenario_destroy(s);

    /* a missing file: bad input, naming the scenario's key and the file */
    write_text(scen, doc(TOP("'horizon': '1d', 'calibration': 'cal/none.json'")));
    snprintf(want, sizeof want,
             "%s: calibration: %s/cal/none.json: cannot read: No such file or directory", scen,
             dir);
    test_load_refused(scen, FS_ERR_INPUT, want);
    /* an origin without a directory: relative to the working directory */
    expect_raw(doc(TOP("'horizon': '1d', 'calibration': 'no-such-cal.json'")), FS_ERR_INPUT,
               "scen.json: calibration: no-such-cal.json: cannot read: No such file or directory");

    /* a bad value: the calibration file and the key in it */
    write_text(scen, doc(TOP("'horizon': '1d', 'calibration': 'cal/bad.json'")));
    snprintf(want, sizeof want, "%s: d2h_gbps: expected a positive number, got -1", bad);
    test_load_refused(scen, FS_ERR_INPUT, want);

    /* malformed JSON: the calibration file's own line and column */
    write_text(scen, doc(TOP("'horizon': '1d', 'calibration': 'cal/broken.json'")));
    snprintf(want, sizeof want, "%s:2:18: ", badjson);
    test_load_refused(scen, FS_ERR_INPUT, want);

    /* a file that is not an object */
    write_text(bad, "[1, 2]\n");
    write_text(scen, doc(TOP("'horizon': '1d', 'calibration': 'cal/bad.json'")));
    snprintf(want, sizeof want, "%s: expected an object (a calibration profile), got an array",
             bad);
    test_load_refused(scen, FS_ERR_INPUT, want);

    assert_int_equal(remove(cal), 0);
    assert_int_equal(remove(bad), 0);
    assert_int_equal(remove(badjson), 0);
    assert_int_equal(remove(scen), 0);
    assert_int_equal(rmdir(sub), 0);
    assert_int_equal(rmdir(dir), 0);
}

/* A profile as calibrate/ writes it: the figures plus the record (device,
 * not_measured, fits, scalars, samples), which is type-checked only. */
#define RECORD                                                                                     \
    "'device': {'name': 'H100', 'memory_gb': 79.1}, 'not_measured': ['storage_gbps'], "           \
    "'fits': {'h2d_pinned': {'fixed_s': 2e-6}}, 'scalars': {}, "                                   \
    "'samples': {'series': {}, 'scalars': {'context_create': [0.45]}}"

static void test_calibration_record(void **state)
{
    (void)state;
    fs_scenario *s = parse_ok(TOP("'horizon': '1d', 'calibration': {'schema': "
                                  "'fleetsim-calibration/1', 'gpu': 'H100', 'h2d_gbps': 55, "
                                  RECORD "}"));
    assert_close(s->switch_costs.h2d_gbps, 55.0);
    assert_close(s->switch_costs.storage_gbps, 1.7); /* not measured: built-in */
    fs_scenario_destroy(s);
    /* an empty record is still a record */
    s = parse_ok(TOP("'horizon': '1d', 'calibration': {'not_measured': [], 'fits': {}}"));
    fs_scenario_destroy(s);

    expect_error(TOP("'horizon': '1d', 'calibration': {'device': 'H100'}"),
                 "scen.json: calibration.device: expected an object, got \"H100\"");
    expect_error(TOP("'horizon': '1d', 'calibration': {'fits': [1]}"),
                 "scen.json: calibration.fits: expected an object, got ");
    expect_error(TOP("'horizon': '1d', 'calibration': {'scalars': 0.5}"),
                 "scen.json: calibration.scalars: expected an object, got 0.5");
    expect_error(TOP("'horizon': '1d', 'calibration': {'samples': null}"),
                 "scen.json: calibration.samples: expected an object, got null");
    expect_error(TOP("'horizon': '1d', 'calibration': {'not_measured': 'storage_gbps'}"),
                 "scen.json: calibration.not_measured: expected an array, got \"storage_gbps\"");
    expect_error(TOP("'horizon': '1d', 'calibration': {'not_measured': ['storage_gbps', 3]}"),
                 "scen.json: calibration.not_measured[1]: expected a non-empty string, got 3");
    /* still no unknown keys */
    expect_error(TOP("'horizon': '1d', 'calibration': {'fit': {}}"),
                 "scen.json: calibration: unknown key \"fit\" (did you mean \"fits\"?)");
    expect_error(TOP("'horizon': '1d', 'calibration': {'notes': 'x'}"),
                 "scen.json: calibration: unknown key \"notes\"");
}

/* Two pools, H100 then L4, one service on the first; G is the "gpus" object,
 * X more top-level members. */
#define TWO_TYPES(G, X)                                                                            \
    HEAD "'gpus': " G ", 'pools': [{'name': 'h', 'gpu': 'H100-SXM-80GB', 'gpus': 2}, "             \
         "{'name': 'l', 'gpu': 'L4-24GB', 'gpus': 2}], "                                           \
         "'services': [{'name': 'chat', 'pool': 'h', " ARRIVALS ", " STIME "}]" X "}"

/* The index of the type called name in s->gpu_types. */
static size_t type_index(const fs_scenario *s, const char *name)
{
    for (size_t i = 0; i < s->n_gpu_types; i++)
        if (strcmp(s->gpu_types[i].name, name) == 0)
            return i;
    fail_msg("no GPU type %s", name);
    return SIZE_MAX;
}

static void test_gpu_calibration(void **state)
{
    (void)state;
    /* no per-type profile: every type has the scenario's costs */
    fs_scenario *s = parse_ok(TWO_TYPES("{}", ""));
    assert_int_equal(s->n_gpu_types, 2);
    assert_non_null(s->gpu_switch_costs);
    for (size_t i = 0; i < s->n_gpu_types; i++)
        assert_default_costs(fs_scenario_switch_costs(s, i));
    fs_scenario_destroy(s);

    /* one type's own profile; the other keeps the scenario's */
    s = parse_ok(TWO_TYPES("{'H100-SXM-80GB': {'calibration': {'h2d_gbps': 20, 'context_s': 1, "
                           "'source': 'node 7'}}}",
                           ""));
    const fs_switch_costs *h = fs_scenario_switch_costs(s, type_index(s, "H100-SXM-80GB"));
    const fs_switch_costs *l = fs_scenario_switch_costs(s, type_index(s, "L4-24GB"));
    assert_close(h->h2d_gbps, 20.0);
    assert_close(h->context_s, 1.0);
    assert_close(h->d2h_gbps, 52.8); /* not in the type's profile: the scenario's (built-in) */
    assert_string_equal(h->source, "node 7");
    assert_default_costs(l);
    assert_default_costs(&s->switch_costs);
    fs_scenario_destroy(s);

    /* read over the top-level profile, not over the built-in one */
    s = parse_ok(TWO_TYPES("{'H100-SXM-80GB': {'calibration': {'h2d_gbps': 20}}}",
                           ", 'calibration': {'storage_gbps': 3, 'h2d_gbps': 40}"));
    h = fs_scenario_switch_costs(s, type_index(s, "H100-SXM-80GB"));
    l = fs_scenario_switch_costs(s, type_index(s, "L4-24GB"));
    assert_close(h->h2d_gbps, 20.0);
    assert_close(h->storage_gbps, 3.0);
    assert_string_equal(h->source, "inline");
    assert_close(l->h2d_gbps, 40.0);
    assert_close(l->storage_gbps, 3.0);
    assert_close(s->switch_costs.h2d_gbps, 40.0);
    fs_scenario_destroy(s);

    /* a custom type, and a declared type no pool uses (placed last), keep
     * their own profiles at their own indices */
    s = parse_ok(TWO_TYPES("{'spare': {" CUSTOM_ALL ", 'calibration': {'d2h_gbps': 7}}, "
                           "'inhouse-x1': {" CUSTOM_ALL ", 'calibration': {'d2h_gbps': 9}}}",
                           ""));
    assert_int_equal(s->n_gpu_types, 4);
    assert_close(fs_scenario_switch_costs(s, type_index(s, "spare"))->d2h_gbps, 7.0);
    assert_close(fs_scenario_switch_costs(s, type_index(s, "inhouse-x1"))->d2h_gbps, 9.0);
    assert_close(fs_scenario_switch_costs(s, type_index(s, "H100-SXM-80GB"))->d2h_gbps, 52.8);
    fs_scenario_destroy(s);

    /* errors name the type's key */
    expect_error(TWO_TYPES("{'H100-SXM-80GB': {'calibration': {'d2h_gbps': -1}}}", ""),
                 "scen.json: gpus.H100-SXM-80GB.calibration.d2h_gbps: expected a positive "
                 "number, got -1");
    expect_error(TWO_TYPES("{'L4-24GB': {'calibration': 5}}", ""),
                 "scen.json: gpus.L4-24GB.calibration: expected a calibration file name or an "
                 "inline profile object, got 5");
    expect_error(TWO_TYPES("{'L4-24GB': {'calibration': {'h2d': 5}}}", ""),
                 "scen.json: gpus.L4-24GB.calibration: unknown key \"h2d\"");
    expect_raw(doc(TWO_TYPES("{'L4-24GB': {'calibration': 'no-such-l4.json'}}", "")),
               FS_ERR_INPUT,
               "scen.json: gpus.L4-24GB.calibration: no-such-l4.json: cannot read: No such file "
               "or directory");
}

/* Each policy places its own types, in its own order; the per-type costs
 * follow the type, not the index. */
static void test_gpu_calibration_policies(void **state)
{
    (void)state;
    fs_scenario *s = parse_ok(
        HEAD "'gpus': {'L4-24GB': {'calibration': {'context_s': 3}}}, "
             "'policies': {'a': {'pools': [{'name': 'h', 'gpu': 'H100-SXM-80GB', 'gpus': 2}, "
             "{'name': 'l', 'gpu': 'L4-24GB', 'gpus': 2}]}, "
             "'b': {'pools': [{'name': 'l', 'gpu': 'L4-24GB', 'gpus': 2}]}}, "
             "'services': [{'name': 'chat', 'pool': 'l', " ARRIVALS ", " STIME "}]}");
    assert_int_equal(s->n_policies, 2);
    for (size_t k = 0; k < s->n_policies; k++) {
        const fs_scenario *v = s->policies[k];
        for (size_t i = 0; i < v->n_gpu_types; i++) {
            bool l4 = strcmp(v->gpu_types[i].name, "L4-24GB") == 0;
            assert_close(fs_scenario_switch_costs(v, i)->context_s, l4 ? 3.0 : 0.5);
        }
        assert_close(fs_scenario_switch_costs(v, v->pools[v->n_pools - 1].gpu_type)->context_s,
                     3.0);
    }
    /* L4 is type 1 in "a" and type 0 in "b" */
    assert_int_equal(type_index(s->policies[0], "L4-24GB"), 1);
    assert_int_equal(type_index(s->policies[1], "L4-24GB"), 0);
    assert_ptr_not_equal(s->policies[0]->gpu_switch_costs, s->policies[1]->gpu_switch_costs);
    fs_scenario_destroy(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_full),
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_dist_kinds),
        cmocka_unit_test(test_malformed_json),
        cmocka_unit_test(test_duplicate_json_key),
        cmocka_unit_test(test_schema),
        cmocka_unit_test(test_wrong_type),
        cmocka_unit_test(test_bad_numbers),
        cmocka_unit_test(test_unknown_key_suggestion),
        cmocka_unit_test(test_unknown_key_no_match),
        cmocka_unit_test(test_missing_key),
        cmocka_unit_test(test_bad_duration),
        cmocka_unit_test(test_warmup_vs_horizon),
        cmocka_unit_test(test_unknown_gpu),
        cmocka_unit_test(test_unknown_pool),
        cmocka_unit_test(test_replicas_beyond_gpus),
        cmocka_unit_test(test_duplicate_names),
        cmocka_unit_test(test_gpu_overrides),
        cmocka_unit_test(test_gpu_order),
        cmocka_unit_test(test_gpu_custom),
        cmocka_unit_test(test_gpu_unknown_key),
        cmocka_unit_test(test_gpu_unknown_with_custom),
        cmocka_unit_test(test_pool_mig),
        cmocka_unit_test(test_pool_time_slicing),
        cmocka_unit_test(test_pool_price_and_placement),
        cmocka_unit_test(test_service_gpu_fields),
        cmocka_unit_test(test_profiles),
        cmocka_unit_test(test_service_time_kinds),
        cmocka_unit_test(test_override),
        cmocka_unit_test(test_ci_settings),
        cmocka_unit_test(test_load),
        cmocka_unit_test(test_extension_defaults),
        cmocka_unit_test(test_pool_class_autoscale_spot),
        cmocka_unit_test(test_service_autoscale),
        cmocka_unit_test(test_training),
        cmocka_unit_test(test_policy_settings),
        cmocka_unit_test(test_every_variant_has_training_and_costs),
        cmocka_unit_test(test_calibration_inline),
        cmocka_unit_test(test_calibration_file),
        cmocka_unit_test(test_calibration_record),
        cmocka_unit_test(test_gpu_calibration),
        cmocka_unit_test(test_gpu_calibration_policies),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

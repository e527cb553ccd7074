/*
 * test_scenario — a full scenario lands field by field, defaults fill in, and
 * the settings that span the document behave: every distribution kind, the
 * run settings and their overrides, the "ci" settings, loading a file, the
 * defaults of the later keys, service autoscalers, training streams and
 * policies.  Refusals of every kind are in test_scenario_errors.c; GPU types,
 * pools and calibration in test_scenario_fleet.c; test_scenario.h has what
 * the three share.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "test_scenario.h"

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
    /* a directory opens but is not a file to read */
    assert_int_equal(fs_scenario_load(dir, &s, &err), FS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "expected a regular file, got a directory"));

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

/* ---- defaults of later keys, autoscalers, training, policies ------------ */

/* The one-service scenario with a top-level "training" array T. */
#define TRAINING(T)                                                                                \
    HEAD POOL "'services': [{'name': 'chat', " ARRIVALS ", " STIME "}], 'training': " T "}"
/* The one-service scenario run on the policies object P. */
#define POLICIES(P)                                                                                \
    HEAD "'policies': " P ", 'services': [{'name': 'chat', " ARRIVALS ", " STIME "}]}"
#define L4_POOLS "'pools': [{'name': 'gpu', 'gpu': 'L4-24GB', 'gpus': 2}]"

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
    test_assert_default_costs(&s->switch_costs);
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
    /* 0 is a bound only an autoscaler may start from (scale from zero) */
    expect_error(SERVICE(", 'replicas': {'min': 0, 'max': 4}"),
                 "services[0].replicas: \"min\" (0) and \"max\" (4) bound an autoscaler, but there is no "
                 "\"autoscale\", so the count is fixed at 0");
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
                 "training[0].gang: expected an integer from 1 to 100000, got 0");
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_full),
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_dist_kinds),
        cmocka_unit_test(test_override),
        cmocka_unit_test(test_ci_settings),
        cmocka_unit_test(test_load),
        cmocka_unit_test(test_extension_defaults),
        cmocka_unit_test(test_service_autoscale),
        cmocka_unit_test(test_training),
        cmocka_unit_test(test_policy_settings),
        cmocka_unit_test(test_every_variant_has_training_and_costs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

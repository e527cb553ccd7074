/*
 * test_scenario_errors — every kind of bad input is refused with the message
 * a user would need: file:line:column for malformed JSON, the JSON path and
 * expected/got for bad values, the closest key for typos, the known names for
 * an unknown GPU or pool, and the other holder of a duplicate name; bad
 * profiles and service-time kinds too.  Accepted documents are in
 * test_scenario.c and test_scenario_fleet.c.
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

#include "test_scenario.h"

/* The service with its service_time object given by T. */
#define SERVICE_ST(T)                                                                              \
    HEAD POOL "'services': [{'name': 'chat', " ARRIVALS ", 'service_time': " T "}]}"

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
                 "services[0].replicas: expected an integer from 1 to 100000, got 2.5");
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
        "pools[0].gpus: expected an integer from 1 to 100000, got 5000000000");
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
                 "services[0].replicas: expected an integer from 1 to 100000, got 0");
    expect_error(SERVICE(", 'replicas': {'count': 1, 'concurrency': 0}"),
                 "services[0].replicas.concurrency: expected an integer from 1 to 65536, got 0");
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
                 "\"queue_limit\", \"slo\", \"memory_gb\", \"reference_gpu\", \"sm_exponent\", \"batching\", "
                 "\"disaggregation\", \"gpu_share\", \"gpu_share_kind\", \"region\", \"spill\")");
    expect_error(TOP("'horizon': '1d', 'fleet': {}"),
                 "scen.json: unknown key \"fleet\" (valid keys: \"schema\", \"name\", "
                 "\"description\", \"horizon\", \"warmup\", \"window\", \"seed\", "
                 "\"replications\", \"gpus\", ");
    expect_error(POOL_WITH(", 'colour': 'red'"),
                 "scen.json: pools[0]: unknown key \"colour\" (valid keys: \"name\", \"gpu\", "
                 "\"gpus\", \"mig\", \"time_slicing\", \"fractional\", \"price\", \"placement\", \"class\", "
                 "\"autoscale\", \"reclaim_per_hour\", \"region\")");
    /* three edits from "p99_ms" is beyond max(2, 3 / 3): listed, not guessed */
    expect_error(
        SERVICE(", 'slo': {'p99': 250}"),
        "services[0].slo: unknown key \"p99\" (valid keys: \"p50_ms\", \"p90_ms\", \"p95_ms\", "
        "\"p99_ms\", \"p999_ms\", \"window\", \"ttft_p50_ms\"");
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
    /* Training streams make "services" optional, not an empty list. */
    expect_error(HEAD POOL "'services': [], 'training': [{'name': 't', 'submit': {'at': ['1h']}, 'gang': 1,"
                 " 'work_gpu_hours': 1}]}",
                 "scen.json: services: expected a non-empty array");
    /* A training stream's shaped rate: a base to shape, and no MMPP. */
    expect_error(HEAD POOL "'training': [{'name': 't', 'submit': {'at': ['1h'], 'diurnal': " H24("1") "},"
                 " 'gang': 1, 'work_gpu_hours': 1}]}",
                 "scen.json: training[0].submit: \"diurnal\" shapes a Poisson stream: give \"poisson_per_hour\" too");
    expect_error(HEAD POOL "'training': [{'name': 't', 'submit': {'poisson_per_hour': 1, 'mmpp': {'states': []}},"
                 " 'gang': 1, 'work_gpu_hours': 1}]}",
                 "scen.json: training[0].submit.mmpp: not for job submissions");
    expect_error(HEAD POOL "'training': [{'name': 't', 'submit': {'poisson_per_hour': 1, 'growth': '8%'},"
                 " 'gang': 1, 'work_gpu_hours': 1}]}",
                 "scen.json: training[0].submit.growth: expected a growth rate like");
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

/* Only an autoscaled service may start with no replica (scale from zero):
 * a fixed count of 0 would serve nothing, and the plain number form is a
 * fixed count. */
static void test_zero_replicas(void **state)
{
    (void)state;
    expect_error(SERVICE(", 'replicas': {'count': 0}"),
                 "services[0].replicas.count: a service with no replica and no autoscaler would serve nothing");
    expect_error(SERVICE(", 'replicas': {'min': 0}"),
                 "services[0].replicas.min: a service with no replica and no autoscaler would serve nothing");
    expect_error(SERVICE(", 'replicas': {'count': 0, 'autoscale': {'target_in_flight': 1}}"),
                 "services[0].replicas.autoscale: an autoscaler needs room to move: \"max\" (0) must be "
                 "above \"min\" (0)");
    expect_error(SERVICE(", 'replicas': {'count': 0, 'min': 1, 'max': 2, 'autoscale': {'target_in_flight': 1}}"),
                 "services[0].replicas.count: expected an integer no smaller than \"min\" (1), got 0");
    fs_scenario *s = parse_ok(HEAD POOL "'services': [{'name': 'chat', 'replicas': {'count': 0, 'max': 2, "
                                        "'autoscale': {'target_in_flight': 1}}, " ARRIVALS ", " STIME "}]}");
    assert_int_equal(s->services[0].replicas, 0);
    assert_int_equal(s->services[0].min_replicas, 0);
    assert_int_equal(s->services[0].max_replicas, 2);
    assert_true(s->services[0].autoscale.enabled);
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

/* The arrival processes beyond Poisson (scenario_process.c): each bad
 * value named by its path, with what was expected. */
static void test_arrival_processes(void **state)
{
    (void)state;
    expect_error(SERVICE_ARR("{'poisson_rps': 1, 'growth': '8%/fortnight'}"),
                 "services[0].arrivals.growth: expected a growth rate per \"day\", \"week\", \"month\" or "
                 "\"year\" (\"8%/month\"), got \"8%/fortnight\"");
    expect_error(SERVICE_ARR("{'poisson_rps': 1, 'growth': 0.08}"),
                 "services[0].arrivals.growth: expected a growth rate like \"8%/month\" (a percentage per day, "
                 "week, month or year), got 0.08");
    expect_error(SERVICE_ARR("{'poisson_rps': 1, 'growth': '-100%/day'}"),
                 "services[0].arrivals.growth: expected a growth rate above -100% (a decline that leaves some "
                 "traffic), got \"-100%/day\"");
    expect_error(SERVICE_ARR("{'poisson_rps': 1, 'daily_levels': [1, -1]}"),
                 "services[0].arrivals.daily_levels[1]: expected a non-negative number, got -1");
    expect_error(SERVICE_ARR("{'poisson_rps': 1, 'daily_levels': []}"),
                 "services[0].arrivals.daily_levels: expected a non-empty array, got an empty array");
    /* mmpp replaces poisson_rps; 2 to 8 states; at most one random factor */
    expect_error(SERVICE_ARR("{'poisson_rps': 1, 'mmpp': {'states': [{'rps': 1, 'mean_sojourn': 5}, "
                             "{'rps': 2, 'mean_sojourn': 5}]}}"),
                 "services[0].arrivals.mmpp: replaces poisson_rps (its states give the rates, their stationary "
                 "mean the base rate): give one or the other, not both");
    expect_error(SERVICE_ARR("{'mmpp': {'states': [{'rps': 1, 'mean_sojourn': 5}]}}"),
                 "services[0].arrivals.mmpp.states: expected 2 to 8 states (one state is a plain poisson_rps), got 1");
    expect_error(SERVICE_ARR("{'mmpp': {'states': [{'rps': -1, 'mean_sojourn': 5}, {'rps': 2, 'mean_sojourn': 5}]}}"),
                 "services[0].arrivals.mmpp.states[0].rps: expected a non-negative number, got -1");
    expect_error(SERVICE_ARR("{'mmpp': {'states': [{'rps': 1, 'mean_sojourn': 5}, {'rps': 2, 'sojourn': 5}]}}"),
                 "services[0].arrivals.mmpp.states[1]: unknown key \"sojourn\" (valid keys: \"rps\", \"mean_sojourn\")");
    expect_error(SERVICE_ARR("{'mmpp': {'states': [{'rps': 1, 'mean_sojourn': 5}, {'rps': 2, 'mean_sojourn': 5}]}, "
                             "'noise': {'distribution': 'gamma', 'cv': 1, 'interval': 10}}"),
                 "services[0].arrivals: expected \"mmpp\" or \"noise\", not both: each is the whole random "
                 "factor on the rate");
    expect_error(SERVICE_ARR("{'poisson_rps': 1, 'noise': {'distribution': 'normal', 'cv': 1, 'interval': 10}}"),
                 "services[0].arrivals.noise.distribution: expected a noise distribution (\"lognormal\", "
                 "\"gamma\"), got \"normal\"");
    expect_error(SERVICE_ARR("{'poisson_rps': 1, 'noise': {'cv': 1, 'interval': 10}}"),
                 "services[0].arrivals.noise: missing required key \"distribution\" (\"lognormal\" or \"gamma\")");
    expect_error(SERVICE_ARR("{'poisson_rps': 1, 'noise': {'distribution': 'lognormal', 'cv': 0, 'interval': 10}}"),
                 "services[0].arrivals.noise.cv: expected a positive number, got 0");
    expect_error(SERVICE_ARR("{'poisson_rps': 1, 'noise': {'distribution': 'lognormal', 'cv': 1}}"),
                 "services[0].arrivals.noise: missing required key \"interval\"");
    expect_error(SERVICE_ARR("{'poisson_rps': 1, 'noise': {'distribution': 'gamma', 'cv': 1, 'interval': 10, "
                             "'correlation_time': 20}}"),
                 "services[0].arrivals.noise.correlation_time: applies to \"lognormal\" noise only: its log is the "
                 "AR(1) chain that keeps the marginal law; a gamma factor has no such chain here");
    expect_error(SERVICE_ARR("{'poisson_rps': 1, 'noise': {'distribution': 'lognormal', 'cv': 1, 'interval': 10, "
                             "'correlation_time': 0}}"),
                 "services[0].arrivals.noise.correlation_time: expected a positive duration");
    /* groups: a geometric mean or a listed law, each checked */
    expect_error(SERVICE_ARR("{'poisson_rps': 1, 'groups': {'mean': 0.5}}"),
                 "services[0].arrivals.groups.mean: expected a mean group size of at least 1 (every point brings "
                 "one request or more), got 0.5");
    expect_error(SERVICE_ARR("{'poisson_rps': 1, 'groups': {}}"),
                 "services[0].arrivals.groups: expected \"mean\" (a geometric group size) or \"sizes\" with "
                 "\"weights\"");
    expect_error(SERVICE_ARR("{'poisson_rps': 1, 'groups': {'mean': 2, 'sizes': [1]}}"),
                 "services[0].arrivals.groups: expected \"mean\" or \"sizes\" with \"weights\", not both");
    expect_error(SERVICE_ARR("{'poisson_rps': 1, 'groups': {'sizes': [1, 2], 'weights': [1]}}"),
                 "services[0].arrivals.groups.weights: expected one weight per size (2), got 1");
    expect_error(SERVICE_ARR("{'poisson_rps': 1, 'groups': {'sizes': [1.5, 2], 'weights': [1, 1]}}"),
                 "services[0].arrivals.groups.sizes[0]: expected an integer from 1 to 10000, got 1.5");
    expect_error(SERVICE_ARR("{'poisson_rps': 1, 'groups': {'sizes': [1, 2], 'weights': [1, -1]}}"),
                 "services[0].arrivals.groups.weights[1]: expected a non-negative number, got -1");
    expect_error(SERVICE_ARR("{'poisson_rps': 1, 'groups': {'sizes': [1, 2], 'weights': [0, 0]}}"),
                 "services[0].arrivals.groups.weights: expected weights with a positive, finite sum");
    /* a trace stays alone */
    expect_error(SERVICE_ARR("{'trace': {'file': 'x.csv', 'time': 't'}, 'groups': {'mean': 2}}"),
                 "services[0].arrivals: expected \"trace\" alone: a replayed trace has no poisson_rps, profile, "
                 "bursts, growth, daily levels, mmpp, noise or groups of its own");
    /* a trace's row filters: texts only, named by path */
    expect_error(SERVICE_ARR("{'trace': {'file': 'x.csv', 'time': 't', 'where': []}}"),
                 "services[0].arrivals.trace.where: expected an object of column names to the text (or list of "
                 "texts) kept");
    expect_error(SERVICE_ARR("{'trace': {'file': 'x.csv', 'time': 't', 'where': {'status': 0}}}"),
                 "services[0].arrivals.trace.where.status: expected a text or a non-empty list of texts");
    expect_error(SERVICE_ARR("{'trace': {'file': 'x.csv', 'time': 't', 'where': {'qos': ['LS', 1]}}}"),
                 "services[0].arrivals.trace.where.qos[1]: expected a text (a field's text, e.g. \"0\")");
}

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

int main(void)
{
    const struct CMUnitTest tests[] = {
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
        cmocka_unit_test(test_zero_replicas),
        cmocka_unit_test(test_duplicate_names),
        cmocka_unit_test(test_profiles),
        cmocka_unit_test(test_arrival_processes),
        cmocka_unit_test(test_service_time_kinds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * test_scenario_fleet — the fleet a scenario describes: GPU types (built-in
 * overrides, custom types, their order, unknown names), pools (MIG, time
 * slicing, price, placement, class, elastic autoscale, spot reclaims), a
 * service's memory and reference GPU, and calibration profiles (inline, from
 * files, measured records, per GPU type and per policy).
 */
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

#include "test_scenario.h"

#include "mig.h"
#include "testutil.h"

/* A "gpus" object G, pools P, and one service "chat" with X spliced in. */
#define FLEET(G, P, X)                                                                             \
    HEAD "'gpus': " G ", 'pools': " P ", "                                                         \
         "'services': [{'name': 'chat', " ARRIVALS ", " STIME X "}]}"
/* A "gpus" object G with the one-pool, one-service scenario. */
#define GPUS(G) FLEET(G, "[{'name': 'gpu', 'gpu': 'H100-SXM-80GB', 'gpus': 8}]", "")

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
    /* "12GB" is a size now (memsize.h); a unit it does not know is refused. */
    expect_error(SERVICE(", 'memory_gb': '12 GB'"),
                 "services[0].memory_gb: expected a positive memory size in GiB (a number) or with its unit");
    expect_error(SERVICE(", 'memroy_gb': 12"),
                 "services[0]: unknown key \"memroy_gb\" (did you mean \"memory_gb\"?)");
}

/* ---- pool classes, elastic pools, spot ---------------------------------- */

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

/* ---- calibration --------------------------------------------------------- */

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
    "'samples': {'series': {}, 'scalars': {'context_create': [0.45]}}, 'validation': []"

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
    s = parse_ok(TOP("'horizon': '1d', 'calibration': {'not_measured': [], 'fits': {}, 'validation': []}"));
    fs_scenario_destroy(s);
    /* figures alone (no samples, no fits) are not a measured profile */
    s = parse_ok(TOP("'horizon': '1d', 'calibration': {'h2d_gbps': 40, 'module_s': 0.002}"));
    assert_close(s->switch_costs.module_s, 0.002);
    fs_scenario_destroy(s);

    /* a measured profile without its validation table is refused */
    expect_error(TOP("'horizon': '1d', 'calibration': {'fits': {}}"),
                 "scen.json: calibration: a measured profile (it has \"samples\" or \"fits\") needs its "
                 "validation table \"validation\"");
    expect_error(TOP("'horizon': '1d', 'calibration': {'samples': {}, 'h2d_gbps': 40}"),
                 "scen.json: calibration: a measured profile");
    expect_error(TOP("'horizon': '1d', 'calibration': {'validation': {}, 'fits': {}}"),
                 "scen.json: calibration.validation: expected an array, got ");
    expect_error(TOP("'horizon': '1d', 'calibration': {'llm_step': 1, 'validation': []}"),
                 "scen.json: calibration.llm_step: expected an array, got 1");
    expect_error(TOP("'horizon': '1d', 'calibration': {'graph_capture': [], 'validation': []}"),
                 "scen.json: calibration.graph_capture: expected an object, got ");

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

static void test_gpu_calibration(void **state)
{
    (void)state;
    /* no per-type profile: every type has the scenario's costs */
    fs_scenario *s = parse_ok(TWO_TYPES("{}", ""));
    assert_int_equal(s->n_gpu_types, 2);
    assert_non_null(s->gpu_switch_costs);
    for (size_t i = 0; i < s->n_gpu_types; i++)
        test_assert_default_costs(fs_scenario_switch_costs(s, i));
    fs_scenario_destroy(s);

    /* one type's own profile; the other keeps the scenario's */
    s = parse_ok(TWO_TYPES("{'H100-SXM-80GB': {'calibration': {'h2d_gbps': 20, 'context_s': 1, "
                           "'source': 'node 7'}}}",
                           ""));
    const fs_switch_costs *h = fs_scenario_switch_costs(s, test_gpu_type_index(s, "H100-SXM-80GB"));
    const fs_switch_costs *l = fs_scenario_switch_costs(s, test_gpu_type_index(s, "L4-24GB"));
    assert_close(h->h2d_gbps, 20.0);
    assert_close(h->context_s, 1.0);
    assert_close(h->d2h_gbps, 52.8); /* not in the type's profile: the scenario's (built-in) */
    assert_string_equal(h->source, "node 7");
    test_assert_default_costs(l);
    test_assert_default_costs(&s->switch_costs);
    fs_scenario_destroy(s);

    /* read over the top-level profile, not over the built-in one */
    s = parse_ok(TWO_TYPES("{'H100-SXM-80GB': {'calibration': {'h2d_gbps': 20}}}",
                           ", 'calibration': {'storage_gbps': 3, 'h2d_gbps': 40}"));
    h = fs_scenario_switch_costs(s, test_gpu_type_index(s, "H100-SXM-80GB"));
    l = fs_scenario_switch_costs(s, test_gpu_type_index(s, "L4-24GB"));
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
    assert_close(fs_scenario_switch_costs(s, test_gpu_type_index(s, "spare"))->d2h_gbps, 7.0);
    assert_close(fs_scenario_switch_costs(s, test_gpu_type_index(s, "inhouse-x1"))->d2h_gbps, 9.0);
    assert_close(fs_scenario_switch_costs(s, test_gpu_type_index(s, "H100-SXM-80GB"))->d2h_gbps,
                 52.8);
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
    assert_int_equal(test_gpu_type_index(s->policies[0], "L4-24GB"), 1);
    assert_int_equal(test_gpu_type_index(s->policies[1], "L4-24GB"), 0);
    assert_ptr_not_equal(s->policies[0]->gpu_switch_costs, s->policies[1]->gpu_switch_costs);
    fs_scenario_destroy(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gpu_overrides),
        cmocka_unit_test(test_gpu_order),
        cmocka_unit_test(test_gpu_custom),
        cmocka_unit_test(test_gpu_unknown_key),
        cmocka_unit_test(test_gpu_unknown_with_custom),
        cmocka_unit_test(test_pool_mig),
        cmocka_unit_test(test_pool_time_slicing),
        cmocka_unit_test(test_pool_price_and_placement),
        cmocka_unit_test(test_service_gpu_fields),
        cmocka_unit_test(test_pool_class_autoscale_spot),
        cmocka_unit_test(test_calibration_inline),
        cmocka_unit_test(test_calibration_file),
        cmocka_unit_test(test_calibration_record),
        cmocka_unit_test(test_gpu_calibration),
        cmocka_unit_test(test_gpu_calibration_policies),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * test_sensitivity — one-at-a-time sensitivity (models/study/sensitivity.h)
 * on a linear toy model through the evaluate callback, where common random
 * numbers cancel the noise exactly and the effects are known by hand; the
 * design's inputs read from a scenario (--vary and --vary-all); and
 * `fleetsim sensitivity` end to end on a small deterministic scenario whose
 * cost and mean latency are worked by hand, its refusals (exit 2, the path
 * or figure named, nothing written) and its bytes under a fixed seed.
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
#include <jansson.h>

#include "sensitivity.h"
#include "sweep.h"
#include "testutil.h"

static void near(double got, double want, double tol, const char *what)
{
    if (!(fabs(got - want) <= tol))
        fail_msg("%s: got %.17g, want %.17g (tolerance %g)", what, got, want, tol);
}

/* ---- the toy model: y = 3a - 2b + 0.5c + noise ---- */

typedef struct toy {
    const fs_sensitivity *s;
    bool noise_by_point;   /* noise of (point, replication), not of the replication alone */
    size_t nan_point;      /* this point has no data in replication nan_rep (SIZE_MAX: none) */
    uint32_t nan_rep;      /* UINT32_MAX: in every replication */
} toy;

/* Replication r's noise: r - (R-1)/2, so over R = 4 replications -1.5,
 * -0.5, 0.5, 1.5 (mean 0).  By point: a fixed scramble of (point, r) in
 * [-1, 1] that differs between points. */
static double toy_noise(const toy *t, size_t point, uint32_t r)
{
    if (!t->noise_by_point)
        return r - (t->s->replications - 1) / 2.0;
    uint32_t h = (uint32_t)(point * 2654435761u) ^ (r * 40503u + 12345u);
    h ^= h >> 13;
    h *= 0x5bd1e995u;
    h ^= h >> 15;
    return (double)(h % 2001) / 1000.0 - 1.0;
}

static int toy_evaluate(void *arg, size_t point, uint32_t r, double *value, fs_error *err)
{
    (void)err;
    toy *t = arg;
    size_t which;
    fs_sensitivity_level level;
    fs_sensitivity_which(point, &which, &level);
    double x[3];
    for (size_t i = 0; i < 3; i++)
        x[i] = t->s->inputs[i].value[i == which ? level : FS_SENSITIVITY_BASE];
    bool none = point == t->nan_point && (r == t->nan_rep || t->nan_rep == UINT32_MAX);
    *value = none ? NAN : 3 * x[0] - 2 * x[1] + 0.5 * x[2] + toy_noise(t, point, r);
    return FS_OK;
}

/* a in [1, 3] around 2, b in [0, 10] around 5, c in [-4, 4] around 0. */
static void toy_design(fs_sensitivity *s, uint32_t reps)
{
    fs_error err = {0};
    *s = (fs_sensitivity){.replications = reps};
    assert_int_equal(fs_sensitivity_add(s, "a", 1, 2, 3, false, &err), FS_OK);
    assert_int_equal(fs_sensitivity_add(s, "b", 0, 5, 10, true, &err), FS_OK);
    assert_int_equal(fs_sensitivity_add(s, "c", -4, 0, 4, false, &err), FS_OK);
}

static void test_points(void **state)
{
    (void)state;
    fs_sensitivity s;
    toy_design(&s, 2);
    /* 1 + 2 x 3 points: base 0, a 1/2, b 3/4, c 5/6. */
    assert_int_equal(fs_sensitivity_n_points(&s), 7);
    assert_int_equal(fs_sensitivity_point(0, FS_SENSITIVITY_BASE), 0);
    assert_int_equal(fs_sensitivity_point(1, FS_SENSITIVITY_LOW), 3);
    assert_int_equal(fs_sensitivity_point(2, FS_SENSITIVITY_HIGH), 6);
    for (size_t p = 1; p < 7; p++) {
        size_t which;
        fs_sensitivity_level level;
        fs_sensitivity_which(p, &which, &level);
        assert_int_equal(fs_sensitivity_point(which, level), p);
    }
    size_t which;
    fs_sensitivity_level level;
    fs_sensitivity_which(0, &which, &level);
    assert_int_equal(which, SIZE_MAX);
    assert_int_equal(level, FS_SENSITIVITY_BASE);
    fs_error err = {0};
    assert_int_equal(fs_sensitivity_add(&s, "a", 0, 1, 2, false, &err), FS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "\"a\": varied twice"));
    assert_int_equal(fs_sensitivity_add(&s, "d", 2, 2, 2, false, &err), FS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "low and high are both 2"));
    fs_sensitivity_fini(&s);
}

static void test_common_noise_cancels(void **state)
{
    (void)state;
    fs_sensitivity s;
    toy_design(&s, 4);
    toy t = {.s = &s, .nan_point = SIZE_MAX};
    fs_error err = {0};
    assert_int_equal(fs_sensitivity_compute(&s, toy_evaluate, &t, &err), FS_OK);
    /* effect a = 3 (3 - 1) = 6; b = -2 (10 - 0) = -20; c = 0.5 (4 - -4) = 4;
     * the noise is the same at both ends of every pair, so every interval is 0. */
    const double effect[3] = {6, -20, 4};
    const size_t rank[3] = {2, 1, 3};
    /* swings: a 3 (1 - 2) = -3, 3 (3 - 2) = 3; b -2 (0 - 5) = 10, -2 (10 - 5) = -10;
     * c 0.5 (-4) = -2, 0.5 (4) = 2. */
    const double swing[3][2] = {{-3, 3}, {10, -10}, {-2, 2}};
    for (size_t i = 0; i < 3; i++) {
        const fs_sensitivity_input *in = &s.inputs[i];
        printf("%s: effect %.17g +/- %.3g, rank %zu\n", in->path, in->effect.mean, in->effect.ci95, in->rank);
        near(in->effect.mean, effect[i], 1e-12, "effect");
        near(in->effect.ci95, 0, 1e-12, "effect CI");
        near(in->swing[0].mean, swing[i][0], 1e-12, "swing low");
        near(in->swing[1].mean, swing[i][1], 1e-12, "swing high");
        assert_int_equal(in->rank, rank[i]);
        assert_false(in->noise);
        assert_int_equal(in->effect.n, 4);
    }
    /* The base: 3 x 2 - 2 x 5 + 0 = -4 plus mean noise 0.  Elasticities:
     * a (6 / -4) / ((3 - 1) / 2) = -1.5; b (-20 / -4) / (10 / 5) = 2.5;
     * c's base is 0: no relative change, no elasticity. */
    near(s.inputs[0].at[FS_SENSITIVITY_BASE].mean, -4, 1e-12, "base");
    near(s.inputs[0].elasticity, -1.5, 1e-12, "elasticity a");
    near(s.inputs[1].elasticity, 2.5, 1e-12, "elasticity b");
    assert_true(isnan(s.inputs[2].elasticity));
    /* The document lists them in rank order: b, a, c. */
    json_t *doc = fs_sensitivity_to_json(&s, "toy.json", "y", "shared", 1);
    assert_non_null(doc);
    assert_string_equal(test_json_str(doc, "schema"), "fleetsim-sensitivity/1");
    const char *order[3] = {"b", "a", "c"};
    for (size_t k = 0; k < 3; k++)
        assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(doc, "inputs"), k),
                                                              "path")),
                            order[k]);
    const json_t *b = json_array_get(json_object_get(doc, "inputs"), 0);
    assert_true(json_is_integer(json_object_get(b, "high"))); /* b was given as an integer */
    near(test_json_num(b, "effect.value"), -20, 1e-12, "b's effect in the document");
    assert_true(json_is_null(json_object_get(json_array_get(json_object_get(doc, "inputs"), 2), "elasticity")));
    json_decref(doc);
    fs_sensitivity_fini(&s);
}

static void test_noise_by_point(void **state)
{
    (void)state;
    fs_sensitivity s;
    toy_design(&s, 8);
    toy t = {.s = &s, .noise_by_point = true, .nan_point = SIZE_MAX};
    fs_error err = {0};
    assert_int_equal(fs_sensitivity_compute(&s, toy_evaluate, &t, &err), FS_OK);
    /* The noise in [-1, 1] no longer cancels: each effect has an interval,
     * and it holds the true effect (6, -20, 4); none is near 0. */
    const double effect[3] = {6, -20, 4};
    for (size_t i = 0; i < 3; i++) {
        const fs_sensitivity_input *in = &s.inputs[i];
        printf("%s: effect %.6g +/- %.3g\n", in->path, in->effect.mean, in->effect.ci95);
        assert_true(in->effect.ci95 > 0);
        near(in->effect.mean, effect[i], in->effect.ci95, "true effect inside the interval");
        assert_false(in->noise);
    }
    assert_int_equal(s.inputs[1].rank, 1);
    fs_sensitivity_fini(&s);
}

/* One replication of a's high end without data: a's pairs drop to 3 of 4,
 * its high end's mean to 3 replications; the others keep 4. */
static void test_no_data(void **state)
{
    (void)state;
    fs_sensitivity s;
    toy_design(&s, 4);
    toy t = {.s = &s, .nan_point = fs_sensitivity_point(0, FS_SENSITIVITY_HIGH), .nan_rep = 2};
    fs_error err = {0};
    assert_int_equal(fs_sensitivity_compute(&s, toy_evaluate, &t, &err), FS_OK);
    assert_int_equal(s.inputs[0].effect.n, 3);
    assert_int_equal(s.inputs[0].at[FS_SENSITIVITY_HIGH].n, 3);
    assert_int_equal(s.inputs[0].swing[0].n, 4);
    near(s.inputs[0].effect.mean, 6, 1e-12, "a's effect from 3 pairs");
    assert_int_equal(s.inputs[1].effect.n, 4);
    fs_sensitivity_fini(&s);

    /* c's low end without data in one of two replications: one pair, a
     * mean without an interval, which is no evidence: noise. */
    toy_design(&s, 2);
    t = (toy){.s = &s, .nan_point = fs_sensitivity_point(2, FS_SENSITIVITY_LOW), .nan_rep = 0};
    assert_int_equal(fs_sensitivity_compute(&s, toy_evaluate, &t, &err), FS_OK);
    assert_int_equal(s.inputs[2].effect.n, 1);
    near(s.inputs[2].effect.mean, 4, 1e-12, "c's effect from one pair");
    assert_true(isnan(s.inputs[2].effect.ci95));
    assert_true(s.inputs[2].noise);
    fs_sensitivity_fini(&s);

    /* b's high end without data in every replication: b has no effect
     * (NaN, "no data", never 0) and ranks last, after a (6) and c (4). */
    toy_design(&s, 2);
    t = (toy){.s = &s, .nan_point = fs_sensitivity_point(1, FS_SENSITIVITY_HIGH), .nan_rep = UINT32_MAX};
    assert_int_equal(fs_sensitivity_compute(&s, toy_evaluate, &t, &err), FS_OK);
    assert_true(isnan(s.inputs[1].effect.mean));
    assert_int_equal(s.inputs[1].effect.n, 0);
    assert_true(isnan(s.inputs[1].at[FS_SENSITIVITY_HIGH].mean));
    assert_int_equal(s.inputs[1].rank, 3);
    assert_int_equal(s.inputs[0].rank, 1);
    json_t *doc = fs_sensitivity_to_json(&s, "toy.json", "y", "shared", 1);
    const json_t *b = json_array_get(json_object_get(doc, "inputs"), 2);
    assert_true(json_is_null(json_object_get(json_object_get(b, "effect"), "value")));
    json_decref(doc);
    fs_sensitivity_fini(&s);
}

/* ---- inputs read from a scenario ---- */

static const char *toy_scenario =
    "{\"schema\": \"fleetsim/1\", \"name\": \"toy\", \"horizon\": \"2h\", \"warmup\": \"1h\", \"seed\": 7,"
    " \"replications\": 2, \"gpus\": {\"H100-SXM-80GB\": {\"price_per_hour\": 4}},"
    " \"policies\": {\"shared\": {\"pools\": [{\"name\": \"serving\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 3}]}},"
    " \"services\": [{\"name\": \"chat\", \"pool\": \"serving\", \"memory_gb\": 10,"
    "   \"arrivals\": {\"poisson_rps\": 0.05, \"diurnal\": [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,"
    "   1, 1, 1, 1, 1, 1]}, \"service_time\": {\"deterministic\": {\"value\": 0.1}},"
    "   \"replicas\": {\"count\": 2}}]}";

static char dir[256];

static int setup(void **state)
{
    (void)state;
    if (test_tmpdir(dir, sizeof dir, "fleetsim-sensitivity") != 0)
        return -1;
    test_write(test_path("%s/toy.json", dir), toy_scenario);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    return test_rmdir(dir);
}

static void test_inputs_from_scenario(void **state)
{
    (void)state;
    fs_sweep *sw;
    fs_error err = {0};
    assert_int_equal(fs_sweep_create(test_path("%s/toy.json", dir), &sw, &err), FS_OK);
    fs_sensitivity s = {.replications = 2};
    assert_int_equal(fs_sensitivity_add_spec(&s, sw, "policies.shared.pools[serving].gpus=2..4", &err), FS_OK);
    assert_int_equal(fs_sensitivity_add_spec(&s, sw, "gpus.H100-SXM-80GB.price_per_hour=2,5", &err), FS_OK);
    assert_int_equal(s.n_inputs, 2);
    assert_true(s.inputs[0].integer);
    near(s.inputs[0].value[FS_SENSITIVITY_BASE], 3, 0, "gpus' base");
    near(s.inputs[1].value[FS_SENSITIVITY_HIGH], 5, 0, "price's high");
    /* Refusals name the path and what is there. */
    assert_int_equal(fs_sensitivity_add_spec(&s, sw, "services[chat].pool=1..2", &err), FS_ERR_INPUT);
    assert_non_null(
        strstr(err.msg, "path \"services[chat].pool\": expected a number or a duration to vary, found \"serving\""));
    assert_int_equal(fs_sensitivity_add_spec(&s, sw, "services[chta].memory_gb=1..2", &err), FS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "no element named \"chta\""));
    assert_int_equal(fs_sensitivity_add_spec(&s, sw, "services[chat].memory_gb=1..x", &err), FS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "expected LOW..HIGH or LOW,HIGH"));

    /* ±30% of services[chat]: memory_gb 10 -> 7..13, poisson_rps 0.05 ->
     * 0.035..0.065, value 0.1 -> 0.07..0.13, replicas.count 2 -> round(1.4)
     * = 1 .. round(2.6) = 3; names and the pool are strings, the diurnal
     * list is a profile: 4 inputs. */
    size_t skipped = 0;
    assert_int_equal(fs_sensitivity_add_all(&s, sw, "services[chat]\xc2\xb1" "30%", &skipped, &err), FS_OK);
    assert_int_equal(s.n_inputs, 6);
    assert_int_equal(skipped, 0);
    assert_string_equal(s.inputs[2].path, "services[chat].memory_gb");
    near(s.inputs[2].value[FS_SENSITIVITY_LOW], 7, 0, "memory low");
    assert_string_equal(s.inputs[3].path, "services[chat].arrivals.poisson_rps");
    near(s.inputs[3].value[FS_SENSITIVITY_HIGH], 0.065, 1e-15, "rps high");
    assert_string_equal(s.inputs[5].path, "services[chat].replicas.count");
    near(s.inputs[5].value[FS_SENSITIVITY_LOW], 1, 0, "replicas low");
    near(s.inputs[5].value[FS_SENSITIVITY_HIGH], 3, 0, "replicas high");
    fs_sensitivity_fini(&s);

    /* ±10%: 2 replicas -> round(1.8) = 2 .. round(2.2) = 2, left alone. */
    s = (fs_sensitivity){.replications = 2};
    assert_int_equal(fs_sensitivity_add_all(&s, sw, "services[chat]+-10%", &skipped, &err), FS_OK);
    assert_int_equal(s.n_inputs, 3);
    assert_int_equal(skipped, 1);
    assert_int_equal(fs_sensitivity_add_all(&s, sw, "services[chat]+-120%", &skipped, &err), FS_ERR_INPUT);
    assert_int_equal(fs_sensitivity_add_all(&s, sw, "services[chat].memory_gb+-10%", &skipped, &err), FS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "expected an object"));
    /* A plain list holds no input: the diurnal profile is refused as empty. */
    assert_int_equal(fs_sensitivity_add_all(&s, sw, "services[chat].arrivals.diurnal+-10%", &skipped, &err),
                     FS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "no number there that 10% changes"));
    fs_sensitivity_fini(&s);
    /* The list of services, by name: the same four leaves of chat, named
     * through services[chat]. */
    s = (fs_sensitivity){.replications = 2};
    skipped = 0;
    assert_int_equal(fs_sensitivity_add_all(&s, sw, "services+-30%", &skipped, &err), FS_OK);
    assert_int_equal(s.n_inputs, 4);
    assert_string_equal(s.inputs[0].path, "services[chat].memory_gb");
    fs_sensitivity_fini(&s);
    fs_sweep_destroy(sw);

    /* A duration varies in seconds, and is written back as a real: the
     * horizon "2h" from 90 minutes to 3 h (given as durations). */
    assert_int_equal(fs_sweep_create(test_path("%s/toy.json", dir), &sw, &err), FS_OK);
    s = (fs_sensitivity){.replications = 2};
    assert_int_equal(fs_sensitivity_add_spec(&s, sw, "horizon=90m..3h", &err), FS_OK);
    near(s.inputs[0].value[FS_SENSITIVITY_LOW], 5400, 0, "horizon low");
    near(s.inputs[0].value[FS_SENSITIVITY_BASE], 7200, 0, "horizon base");
    near(s.inputs[0].value[FS_SENSITIVITY_HIGH], 10800, 0, "horizon high");
    const json_t *leaf = fs_sweep_get(sw, "horizon", &err);
    assert_true(json_is_real(leaf));
    near(json_real_value(leaf), 7200, 0, "horizon in the document");
    /* A count varied to a fraction is a real the scenario refuses at that
     * end, naming the input. */
    assert_int_equal(fs_sensitivity_add_spec(&s, sw, "policies.shared.pools[0].gpus=2.5..4", &err), FS_OK);
    assert_false(s.inputs[1].integer);
    assert_int_equal(fs_sensitivity_design(&s, sw, &err), FS_ERR_INPUT);
    printf("  %s\n", err.msg);
    assert_non_null(strstr(err.msg, "input \"policies.shared.pools[0].gpus\" at its low value 2.5"));
    fs_sensitivity_fini(&s);
    fs_sweep_destroy(sw);
}

/* ---- the command ---- */

#define TOY_INPUTS                                                                                      \
    "--vary 'policies.shared.pools[serving].gpus=2..4' --vary 'gpus.H100-SXM-80GB.price_per_hour=2..5' " \
    "--vary 'services[chat].service_time.deterministic.value=0.05..0.2' -r 3 -q"

static const json_t *input_at(const json_t *doc, size_t rank)
{
    const json_t *in = json_array_get(json_object_get(doc, "inputs"), rank - 1);
    assert_non_null(in);
    assert_int_equal(json_integer_value(json_object_get(in, "rank")), rank);
    return in;
}

static json_t *load(const char *path)
{
    json_error_t jerr;
    json_t *doc = json_load_file(path, 0, &jerr);
    if (!doc)
        fail_msg("%s: %s", path, jerr.text);
    return doc;
}

static void test_command_cost(void **state)
{
    (void)state;
    assert_int_equal(test_fleetsim(dir, "sensitivity %s/toy.json " TOY_INPUTS " --metric cost --out %s/cost", dir,
                                   dir),
                     0);
    json_t *doc = load(test_path("%s/cost/sensitivity.json", dir));
    assert_string_equal(test_json_str(doc, "metric"), "fleet.cost_usd");
    assert_string_equal(test_json_str(doc, "policy"), "shared");
    /* The measured hour (2 h horizon, 1 h warm-up) of gpus x price:
     * base 3 x 4 = 12.  price 2..5: 3 x 2 = 6, 3 x 5 = 15, effect 9,
     * elasticity (9 / 12) / (3 / 4) = 1.  gpus 2..4: 2 x 4 = 8, 4 x 4 = 16,
     * effect 8, swings -4 and +4.  The service time costs nothing: effect 0,
     * noise.  Ranks: price, gpus, service time. */
    near(test_json_num(doc, "base.value"), 12, 1e-9, "base cost");
    const json_t *price = input_at(doc, 1), *gpus = input_at(doc, 2), *st = input_at(doc, 3);
    assert_string_equal(test_json_str(price, "path"), "gpus.H100-SXM-80GB.price_per_hour");
    near(test_json_num(price, "values.low.value"), 6, 1e-9, "cost at price 2");
    near(test_json_num(price, "values.high.value"), 15, 1e-9, "cost at price 5");
    near(test_json_num(price, "effect.value"), 9, 1e-9, "price's effect");
    near(test_json_num(price, "effect.ci95"), 0, 1e-9, "price's CI");
    near(test_json_num(price, "elasticity"), 1, 1e-9, "price's elasticity");
    assert_true(json_is_true(json_object_get(price, "distinguishable")));
    assert_string_equal(test_json_str(gpus, "path"), "policies.shared.pools[serving].gpus");
    near(test_json_num(gpus, "effect.value"), 8, 1e-9, "gpus' effect");
    near(test_json_num(gpus, "swing_low.value"), -4, 1e-9, "gpus' low swing");
    near(test_json_num(gpus, "swing_high.value"), 4, 1e-9, "gpus' high swing");
    assert_int_equal(json_integer_value(json_object_get(gpus, "low")), 2);
    near(test_json_num(st, "effect.value"), 0, 1e-9, "service time's effect on cost");
    assert_true(json_is_false(json_object_get(st, "distinguishable")));
    json_decref(doc);
    /* The CSV: price's row, every figure with its interval, no refusal. */
    char *csv = test_slurp("%s/cost/sensitivity.csv", dir);
    assert_non_null(csv);
    assert_non_null(strstr(csv, "\n1,\"gpus.H100-SXM-80GB.price_per_hour\",2,4,5,6,0,12,0,15,0,9,0,-6,3,1,true,\n"));
    free(csv);
    char *out = test_slurp("%s/out.txt", dir);
    assert_non_null(out);
    assert_non_null(strstr(out, "sensitivity of fleet.cost_usd"));
    assert_non_null(strstr(out, "noise"));
    free(out);
}

static void test_command_latency(void **state)
{
    (void)state;
    assert_int_equal(test_fleetsim(dir, "sensitivity %s/toy.json " TOY_INPUTS " --metric service:chat.mean "
                                        "--seed 11 --out %s/lat",
                                   dir, dir),
                     0);
    json_t *doc = load(test_path("%s/lat/sensitivity.json", dir));
    /* 0.05 requests/s on 2 replicas of a deterministic service time: no
     * request waits, so the mean latency is the service time: 50, 100 and
     * 200 ms, effect 150, elasticity (150 / 100) / (0.15 / 0.1) = 1. */
    assert_string_equal(test_json_str(doc, "metric"), "service:chat.mean_ms");
    const json_t *st = input_at(doc, 1);
    assert_string_equal(test_json_str(st, "path"), "services[chat].service_time.deterministic.value");
    near(test_json_num(st, "values.low.value"), 50, 1e-6, "mean at 50 ms");
    near(test_json_num(st, "values.base.value"), 100, 1e-6, "mean at 100 ms");
    near(test_json_num(st, "effect.value"), 150, 1e-6, "service time's effect");
    near(test_json_num(st, "elasticity"), 1, 1e-6, "service time's elasticity");
    json_decref(doc);
    /* Same seed, same bytes; a rerun into a fresh directory. */
    assert_int_equal(test_fleetsim(dir, "sensitivity %s/toy.json " TOY_INPUTS " --metric service:chat.mean "
                                        "--seed 11 --out %s/lat2 -j 1",
                                   dir, dir),
                     0);
    char *a = test_slurp("%s/lat/sensitivity.json", dir), *b = test_slurp("%s/lat2/sensitivity.json", dir);
    assert_non_null(a);
    assert_non_null(b);
    assert_string_equal(a, b);
    free(a);
    free(b);
}

/* The report of the cost study (test_command_cost ran it): the table in
 * both pages, the tornado chart's data in rank order with the hand-worked
 * figures, and without gnuplot the page says how to draw it. */
static void test_report(void **state)
{
    (void)state;
    assert_int_equal(test_fleetsim(dir, "report %s/cost", dir), 0);
    char *html = test_slurp("%s/cost/report/index.html", dir), *md = test_slurp("%s/cost/report/report.md", dir);
    assert_non_null(html);
    assert_non_null(md);
    assert_non_null(strstr(md, "fleetsim-run-id: sensitivity-"));
    assert_non_null(strstr(md, "## Inputs by effect"));
    /* price first: 6 at low, 15 at high, effect +9 with a 0 interval. */
    assert_non_null(strstr(md, "| 1 | <code>gpus.H100-SXM-80GB.price\\_per\\_hour</code> | 2 | 4 | 5 | 6 ±0 | 15 ±0 "
                               "| +9 ±0 | 1 |"));
    assert_non_null(strstr(md, "| 3 | <code>services\\[chat\\].service\\_time.deterministic.value</code>"));
    assert_non_null(strstr(md, "noise |"));
    assert_non_null(strstr(html, "<h2>Inputs by effect</h2>"));
    char *csv = test_slurp("%s/cost/report/sensitivity_tornado.csv", dir);
    assert_non_null(csv);
    assert_non_null(strstr(csv, "rank,input,low,high,at_low,at_base,at_high,effect,effect_ci95\n"
                                "1,\"gpus.H100-SXM-80GB.price_per_hour\",2,5,6,12,15,9,0\n"
                                "2,\"policies.shared.pools[serving].gpus\",2,4,8,12,16,8,0\n"));
    assert_true(test_nonempty("%s/cost/report/sensitivity_tornado.gp", dir));
    free(html);
    free(md);
    free(csv);
    assert_int_equal(test_sh("mkdir -p '%s/empty-path' && PATH='%s/empty-path' '%s' report '%s/cost' --out "
                             "'%s/nognu' > '%s/out.txt' 2> '%s/err.txt'",
                             dir, dir, FS_BINARY, dir, dir, dir, dir),
                     0);
    html = test_slurp("%s/nognu/index.html", dir);
    assert_non_null(html);
    assert_non_null(strstr(html, "<code>gnuplot sensitivity_tornado.gp</code>"));
    assert_false(test_exists("%s/nognu/sensitivity_tornado.png", dir));
    free(html);
}

static void refused(const char *args, const char *want)
{
    char out[300];
    snprintf(out, sizeof out, "%s/refused", dir);
    test_rmdir(out);
    assert_int_equal(test_fleetsim(dir, "sensitivity %s/toy.json %s --out %s", dir, args, out), 2);
    test_stderr_has(dir, want);
    if (test_exists("%s", out))
        fail_msg("%s: written though the input was refused (%s)", out, args);
}

static void test_command_refusals(void **state)
{
    (void)state;
    refused("--vary 'services[chat].replicas.cuont=1..4' --metric cost", "no key \"cuont\"");
    refused("--vary 'services[chat].pool=1..4' --metric cost", "path \"services[chat].pool\": expected a number");
    refused("--vary 'policies.shared.pools[0].gpus=2..4' --metric service:chat.p99x",
            "--metric \"service:chat.p99x\": no such figure; did you mean \"service:chat.p99_ms\"?");
    /* 0 GPUs is no pool: the scenario's own message, naming the input. */
    refused("--vary 'policies.shared.pools[0].gpus=0..4' --metric cost",
            "input \"policies.shared.pools[0].gpus\" at its low value 0");
    refused("--metric cost", "expected at least one --vary or --vary-all");
    refused("--vary 'policies.shared.pools[0].gpus=2..4' --metric cost --policy sharde",
            "--policy \"sharde\": no such policy");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_points),
        cmocka_unit_test(test_common_noise_cancels),
        cmocka_unit_test(test_noise_by_point),
        cmocka_unit_test(test_no_data),
        cmocka_unit_test(test_inputs_from_scenario),
        cmocka_unit_test(test_command_cost),
        cmocka_unit_test(test_report),
        cmocka_unit_test(test_command_latency),
        cmocka_unit_test(test_command_refusals),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

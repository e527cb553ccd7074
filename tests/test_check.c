/*
 * test_check — the regression gate.
 *
 * First fs_check_compare on hand-built results documents, where every
 * figure is chosen so that the verdict is known: equal, just beyond and just
 * within a tolerance, better, the "higher is better" direction, the absolute
 * floors, items and policies on one side only, nulls, hostile names, and
 * documents that are not results at all.  Then the tolerance parser.  Then
 * `fleetsim check` end to end through the built binary (FS_BINARY): --update
 * writes a baseline, an unchanged rerun passes, a slower service fails
 * naming its p99, and a malformed baseline exits 2 with file:line:column.
 */
#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "check.h"
#include "testutil.h"

/* ---- hand-built documents ------------------------------------------------ */

/* The figures of the one-policy, one-service, one-training-stream document. */
typedef struct figures {
    double p99, p95, breaches, queue_p95, cost, headroom, utilization, sw;
} figures;

static const figures base_figures = {200, 150, 4, 600, 1000, 0.20, 0.50, 10};

static json_t *service(const char *name, const figures *f)
{
    return json_pack("{s:s, s:{s:f, s:f, s:f}, s:f}", "name", name, "latency_ms", "p50", 90.0, "p95", f->p95,
                     "p99", f->p99, "slo_breach_windows", f->breaches);
}

static json_t *policy(const char *name, const figures *f)
{
    return json_pack("{s:s, s:[o], s:[{s:s, s:{s:f, s:f}}], s:[], s:{s:f, s:f, s:f, s:f, s:f}}", "name", name,
                     "services", service("chat", f), "training", "name", "finetune", "queue_wait_s", "p50",
                     60.0, "p95", f->queue_p95, "pools", "fleet", "cost_usd", f->cost, "peak_headroom",
                     f->headroom, "utilization", f->utilization, "switch_gpu_hours", f->sw, "gpu_hours", 100.0);
}

static json_t *results(const figures *f)
{
    json_t *doc = json_pack("{s:s, s:[o]}", "schema", "fleetsim-results/1", "policies", policy("default", f));
    assert_non_null(doc);
    return doc;
}

/* Shorthand to reach into a document: doc.policies[0].services[0] etc. */
static json_t *pol0(json_t *doc)
{
    return json_array_get(json_object_get(doc, "policies"), 0);
}

static json_t *svc0(json_t *doc)
{
    return json_array_get(json_object_get(pol0(doc), "services"), 0);
}

/* Runs fs_check_compare with tol (NULL: the defaults); returns its result
 * and the text it wrote in *out (caller frees). */
static int run_check(const json_t *baseline, const json_t *current, const fs_check_tolerances *tol, char **out,
                     fs_error *err)
{
    fs_check_tolerances defaults;
    fs_check_tolerances_init(&defaults);
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    assert_non_null(fp);
    int worse = fs_check_compare(baseline, "base.json", current, tol ? tol : &defaults, fp, err);
    assert_int_equal(fclose(fp), 0);
    *out = buf;
    return worse;
}

static void expect_in(const char *text, const char *want)
{
    if (!strstr(text, want))
        fail_msg("output\n%s\nlacks\n  %s", text, want);
}

static void expect_not_in(const char *text, const char *unwanted)
{
    if (strstr(text, unwanted))
        fail_msg("output\n%s\nhas\n  %s", text, unwanted);
}

/* Compares base_figures with the figures f, expecting `worse` worse rows,
 * and returns the table. */
static char *check_figures(const figures *f, const fs_check_tolerances *tol, int worse)
{
    json_t *b = results(&base_figures), *c = results(f);
    char *out;
    fs_error err = {0};
    int got = run_check(b, c, tol, &out, &err);
    json_decref(b);
    json_decref(c);
    if (got != worse)
        fail_msg("%d worse, wanted %d; table:\n%s%s", got, worse, out, err.msg);
    return out;
}

/* A pipeline's root stream (its cycle) and its deploy step (its rollouts;
 * no job, so a null queue wait) beside finetune in policy 0. */
static json_t *with_pipeline(json_t *doc, double cycle_p95, double rollout_p95)
{
    json_t *training = json_object_get(pol0(doc), "training");
    json_array_append_new(training, json_pack("{s:s, s:{s:f, s:f}, s:{s:{s:f}}}", "name", "retrain", "queue_wait_s",
                                              "p50", 0.0, "p95", 0.0, "pipeline", "cycle_s", "p95", cycle_p95));
    json_array_append_new(training, json_pack("{s:s, s:{s:n, s:n}, s:{s:s}, s:{s:{s:f}}}", "name", "deploy",
                                              "queue_wait_s", "p50", "p95", "deploy", "service", "chat", "rollouts",
                                              "duration_s", "p95", rollout_p95));
    return doc;
}

/* The iteration cycle and the rollout are gated where they exist; a
 * deploy step's queue wait, null on both sides, is not a figure. */
static void test_pipeline_figures(void **state)
{
    (void)state;
    json_t *b = with_pipeline(results(&base_figures), 9600, 21);
    json_t *same = with_pipeline(results(&base_figures), 9600, 21);
    json_t *slower = with_pipeline(results(&base_figures), 10800, 21); /* +12.5% against 10% */
    json_t *slow_rollout = with_pipeline(results(&base_figures), 9600, 42);
    char *out;
    fs_error err = {0};
    assert_int_equal(run_check(b, same, NULL, &out, &err), 0);
    expect_in(out, "| default | training retrain | cycle_p95 | 9600.0 s | 9600.0 s | +0.0% | ok |\n");
    expect_in(out, "| default | training deploy | rollout_p95 | 21.0 s | 21.0 s | +0.0% | ok |\n");
    expect_not_in(out, "| training deploy | queue_p95");
    /* 8 + retrain's queue_p95 and cycle_p95 + deploy's rollout_p95 */
    expect_in(out, "11 metrics checked, 0 worse\n");
    free(out);
    assert_int_equal(run_check(b, slower, NULL, &out, &err), 1);
    expect_in(out, "| training retrain | cycle_p95 | 9600.0 s | 10800.0 s | +12.5% | WORSE (tolerance 10%) |\n");
    free(out);
    assert_int_equal(run_check(b, slow_rollout, NULL, &out, &err), 1);
    expect_in(out, "| training deploy | rollout_p95 | 21.0 s | 42.0 s | +100.0% | WORSE (tolerance 10%) |\n");
    free(out);
    json_decref(b);
    json_decref(same);
    json_decref(slower);
    json_decref(slow_rollout);
}

/* ---- comparisons --------------------------------------------------------- */

static void test_equal_documents_pass(void **state)
{
    (void)state;
    char *out = check_figures(&base_figures, NULL, 0);
    expect_in(out, "| policy | item | metric | baseline | current | change | verdict |\n|---|---|---|---|---|---|---|\n");
    expect_in(out, "| default | service chat | p99 | 200.0 ms | 200.0 ms | +0.0% | ok |\n");
    expect_in(out, "| default | service chat | breaches | 4 | 4 | +0.0% | ok |\n");
    expect_in(out, "| default | training finetune | queue_p95 | 600.0 s | 600.0 s | +0.0% | ok |\n");
    expect_in(out, "| default | fleet | cost | 1000.00 USD | 1000.00 USD | +0.0% | ok |\n");
    expect_in(out, "| default | fleet | headroom | 20.00% | 20.00% | +0.0% | ok |\n");
    expect_in(out, "| default | fleet | switch | 10.00 GPU-h | 10.00 GPU-h | +0.0% | ok |\n");
    /* 3 service + 1 training + 4 fleet figures */
    expect_in(out, "\n\n8 metrics checked, 0 worse\n");
    expect_not_in(out, "WORSE");
    free(out);
}

static void test_p99_beyond_tolerance_is_worse(void **state)
{
    (void)state;
    figures f = base_figures;
    f.p99 = 212; /* +6% against the default 5% */
    char *out = check_figures(&f, NULL, 1);
    expect_in(out, "| default | service chat | p99 | 200.0 ms | 212.0 ms | +6.0% | WORSE (tolerance 5%) |\n");
    expect_in(out, "8 metrics checked, 1 worse\n");
    free(out);

    f.p99 = 208; /* +4%: within */
    out = check_figures(&f, NULL, 0);
    expect_in(out, "| default | service chat | p99 | 200.0 ms | 208.0 ms | +4.0% | ok |\n");
    free(out);

    /* a custom tolerance moves the line both ways */
    fs_check_tolerances tol;
    fs_check_tolerances_init(&tol);
    fs_error err = {0};
    assert_int_equal(fs_check_tolerances_parse(&tol, "p99=3%", &err), FS_OK);
    out = check_figures(&f, &tol, 1);
    expect_in(out, "| 208.0 ms | +4.0% | WORSE (tolerance 3%) |\n");
    free(out);
    f.p99 = 212;
    assert_int_equal(fs_check_tolerances_parse(&tol, "p99=7.5", &err), FS_OK);
    out = check_figures(&f, &tol, 0);
    expect_in(out, "| 212.0 ms | +6.0% | ok |\n");
    free(out);
}

static void test_directions(void **state)
{
    (void)state;
    /* cost 10% down: lower is better, so "better", not worse */
    figures f = base_figures;
    f.cost = 900;
    char *out = check_figures(&f, NULL, 0);
    expect_in(out, "| default | fleet | cost | 1000.00 USD | 900.00 USD | -10.0% | better |\n");
    free(out);

    /* headroom 10% down: higher is better, so worse */
    f = base_figures;
    f.headroom = 0.18;
    out = check_figures(&f, NULL, 1);
    expect_in(out, "| default | fleet | headroom | 20.00% | 18.00% | -10.0% | WORSE (tolerance 5%) |\n");
    free(out);

    /* and up 10% is better; utilization behaves the same */
    f = base_figures;
    f.headroom = 0.22;
    f.utilization = 0.40;
    out = check_figures(&f, NULL, 1);
    expect_in(out, "| headroom | 20.00% | 22.00% | +10.0% | better |\n");
    expect_in(out, "| utilization | 50.00% | 40.00% | -20.0% | WORSE (tolerance 5%) |\n");
    free(out);

    /* every lower-is-better figure, 30% up: all worse but none of the others */
    f = base_figures;
    f.p95 *= 1.3;
    f.breaches = 6; /* +50% */
    f.queue_p95 *= 1.3;
    f.cost *= 1.3;
    f.sw *= 1.3;
    out = check_figures(&f, NULL, 5);
    expect_in(out, "| p95 | 150.0 ms | 195.0 ms | +30.0% | WORSE (tolerance 5%) |");
    expect_in(out, "| breaches | 4 | 6 | +50.0% | WORSE (tolerance 10%) |");
    expect_in(out, "| queue_p95 | 600.0 s | 780.0 s | +30.0% | WORSE (tolerance 10%) |");
    expect_in(out, "| cost | 1000.00 USD | 1300.00 USD | +30.0% | WORSE (tolerance 2%) |");
    expect_in(out, "| switch | 10.00 GPU-h | 13.00 GPU-h | +30.0% | WORSE (tolerance 20%) |");
    free(out);
}

static void test_absolute_floors(void **state)
{
    (void)state;
    figures zero = base_figures;
    zero.breaches = 0;
    zero.sw = 0;
    json_t *b = results(&zero);
    figures f = zero;
    f.breaches = 0.4; /* within the 0.5-window floor, though infinitely many percent */
    f.sw = 0.005;     /* within 0.01 GPU-hours */
    json_t *c = results(&f);
    char *out;
    fs_error err = {0};
    assert_int_equal(run_check(b, c, NULL, &out, &err), 0);
    expect_in(out, "| breaches | 0 | 0.40 | n/a (from 0) | ok |");
    free(out);
    json_decref(c);
    f.breaches = 1;
    f.sw = 0.5;
    c = results(&f);
    assert_int_equal(run_check(b, c, NULL, &out, &err), 2);
    expect_in(out, "| breaches | 0 | 1 | n/a (from 0) | WORSE (tolerance 10%) |");
    expect_in(out, "| switch | 0.00 GPU-h | 0.50 GPU-h | n/a (from 0) | WORSE (tolerance 20%) |");
    free(out);
    json_decref(c);
    json_decref(b);

    /* a zero tolerance still forgives what the floor forgives: 0.3 ms */
    fs_check_tolerances tol;
    fs_check_tolerances_init(&tol);
    assert_int_equal(fs_check_tolerances_parse(&tol, "p99=0", &err), FS_OK);
    f = base_figures;
    f.p99 = 200.3;
    out = check_figures(&f, &tol, 0);
    free(out);
    f.p99 = 200.6;
    out = check_figures(&f, &tol, 1);
    expect_in(out, "WORSE (tolerance 0%)");
    free(out);
}

static void test_one_sided_items_are_worse(void **state)
{
    (void)state;
    json_t *b = results(&base_figures), *c = results(&base_figures);
    char *out;
    fs_error err = {0};

    /* a service missing in current */
    json_array_clear(json_object_get(pol0(c), "services"));
    assert_int_equal(run_check(b, c, NULL, &out, &err), 1);
    expect_in(out, "| default | service chat | - | - | - | - | WORSE (missing in current) |\n");
    expect_in(out, "6 metrics checked, 1 worse\n");
    free(out);

    /* renamed: missing on both sides, never silently passing */
    json_decref(c);
    c = results(&base_figures);
    json_object_set_new(svc0(c), "name", json_string("chat-v2"));
    assert_int_equal(run_check(b, c, NULL, &out, &err), 2);
    expect_in(out, "| default | service chat | - | - | - | - | WORSE (missing in current) |\n");
    expect_in(out, "| default | service chat-v2 | - | - | - | - | WORSE (missing in baseline) |\n");
    free(out);

    /* one figure gone from a matched service */
    json_decref(c);
    c = results(&base_figures);
    json_object_del(json_object_get(svc0(c), "latency_ms"), "p99");
    assert_int_equal(run_check(b, c, NULL, &out, &err), 1);
    expect_in(out, "| default | service chat | p99 | 200.0 ms | - | - | WORSE (missing in current) |\n");
    free(out);

    /* a policy on one side only, each way */
    json_decref(c);
    c = results(&base_figures);
    json_object_set_new(pol0(c), "name", json_string("tiered"));
    assert_int_equal(run_check(b, c, NULL, &out, &err), 2);
    expect_in(out, "| default | - | - | - | - | - | WORSE (policy missing in current) |\n");
    expect_in(out, "| tiered | - | - | - | - | - | WORSE (policy missing in baseline) |\n");
    free(out);

    /* a training stream only the current run has */
    json_decref(c);
    c = results(&base_figures);
    json_array_append_new(json_object_get(pol0(c), "training"),
                          json_pack("{s:s, s:{s:f}}", "name", "nightly", "queue_wait_s", "p95", 1.0));
    assert_int_equal(run_check(b, c, NULL, &out, &err), 1);
    expect_in(out, "| default | training nightly | - | - | - | - | WORSE (missing in baseline) |\n");
    free(out);
    json_decref(c);
    json_decref(b);
}

static void test_nulls(void **state)
{
    (void)state;
    json_t *b = results(&base_figures), *c = results(&base_figures);
    char *out;
    fs_error err = {0};
    /* the writer's null is "no data" (nothing completed): null on one side is worse */
    json_object_set_new(json_object_get(svc0(c), "latency_ms"), "p99", json_null());
    assert_int_equal(run_check(b, c, NULL, &out, &err), 1);
    expect_in(out, "| p99 | 200.0 ms | no data | - | WORSE (no data in current) |\n");
    free(out);
    /* and on both too: no data is never "the same", so it never passes the gate */
    json_object_set_new(json_object_get(svc0(b), "latency_ms"), "p99", json_null());
    assert_int_equal(run_check(b, c, NULL, &out, &err), 1);
    expect_in(out, "| p99 | no data | no data | - | WORSE (no data in baseline or current) |\n");
    free(out);
    json_decref(c);
    json_decref(b);
}

/* A current figure that has not settled says so in its verdict, and passes
 * or fails as it would otherwise: ok, better or WORSE, outcome unchanged. */
static void test_unsettled_verdicts(void **state)
{
    (void)state;
    const double p99s[] = {200, 150, 212};
    const char *const want[] = {"| p99 | 200.0 ms | 200.0 ms | +0.0% | ok (not settled) |\n",
                                "| p99 | 200.0 ms | 150.0 ms | -25.0% | better (not settled) |\n",
                                "| p99 | 200.0 ms | 212.0 ms | +6.0% | WORSE (tolerance 5%; not settled) |\n"};
    const fs_check_verdict outcome[] = {FS_CHECK_SAME, FS_CHECK_BETTER, FS_CHECK_WORSE};
    for (size_t i = 0; i < 3; i++) {
        figures f = base_figures;
        f.p99 = p99s[i];
        json_t *b = results(&base_figures), *c = results(&f);
        /* the results writer's services[].settling: p99 not settled, p95 settled */
        json_object_set_new(svc0(c), "settling",
                            json_pack("{s:{s:b}, s:{s:b}, s:{s:n}}", "p99", "settled", 0, "p95", "settled", 1, "p50",
                                      "settled"));
        char *out;
        fs_error err = {0};
        assert_int_equal(run_check(b, c, NULL, &out, &err), outcome[i] == FS_CHECK_WORSE);
        expect_in(out, want[i]);
        expect_in(out, "| p95 | 150.0 ms | 150.0 ms | +0.0% | ok |\n"); /* settled: no note */
        free(out);
        fs_check_tolerances tol;
        fs_check_tolerances_init(&tol);
        fs_check_result r;
        assert_int_equal(fs_check_run(b, "base.json", c, &tol, &r, &err), FS_OK);
        assert_int_equal(r.rows[0].outcome, outcome[i]);
        assert_int_equal(r.better, outcome[i] == FS_CHECK_BETTER);
        fs_check_result_fini(&r);
        json_decref(c);
        json_decref(b);
    }
}

static void test_names_stay_in_their_cell(void **state)
{
    (void)state;
    json_t *b = results(&base_figures), *c = results(&base_figures);
    json_object_set_new(pol0(b), "name", json_string("a|b"));
    json_object_set_new(pol0(c), "name", json_string("a|b"));
    json_object_set_new(svc0(b), "name", json_string("x\ny|z\tw\x7f"));
    json_object_set_new(svc0(c), "name", json_string("x\ny|z\tw\x7f"));
    char *out;
    fs_error err = {0};
    assert_int_equal(run_check(b, c, NULL, &out, &err), 0);
    expect_in(out, "| a\\|b | service x y\\|z w  | p99 | 200.0 ms |");
    /* every row has exactly the table's 8 unescaped pipes */
    for (char *line = out; *line && *line != '\n'; line = strchr(line, '\n') + 1) {
        int pipes = 0;
        for (char *p = line; *p && *p != '\n'; p++)
            pipes += *p == '|' && (p == line || p[-1] != '\\');
        assert_int_equal(pipes, 8);
    }
    free(out);
    json_decref(c);
    json_decref(b);
}

static void test_bad_documents_are_refused(void **state)
{
    (void)state;
    json_t *good = results(&base_figures);
    struct {
        const char *json, *want;
    } cases[] = {
        {"[]", "base.json: expected a results document (an object), got an array"},
        {"{\"schema\": \"fleetsim/1\", \"policies\": []}", "base.json: schema: expected \"fleetsim-results/1\""},
        {"{\"schema\": \"fleetsim-results/1\"}", "base.json: policies: expected an array, got nothing"},
        {"{\"schema\": \"fleetsim-results/1\", \"policies\": [{\"services\": []}]}",
         "base.json: policies[0].name: expected a string, got nothing"},
        {"{\"schema\": \"fleetsim-results/1\", \"policies\": [{\"name\": \"a\", \"services\": {}}]}",
         "base.json: policies[0].services: expected an array, got an object"},
        {"{\"schema\": \"fleetsim-results/1\", \"policies\": [{\"name\": \"a\", \"services\": "
         "[{\"name\": \"s\", \"latency_ms\": {\"p99\": \"fast\"}}]}]}",
         "base.json: policies[0].services[0].latency_ms.p99: expected a number or null, got a string"},
        {"{\"schema\": \"fleetsim-results/1\", \"policies\": [{\"name\": \"a\", \"fleet\": {\"cost_usd\": []}}]}",
         "base.json: policies[0].fleet.cost_usd: expected a number or null, got an array"},
        {"{\"schema\": \"fleetsim-results/1\", \"policies\": [{\"name\": \"a\"}, {\"name\": \"a\"}]}",
         "base.json: policies[1].name: duplicate name \"a\" (also policies[0])"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_t *bad = json_loads(cases[i].json, 0, NULL);
        assert_non_null(bad);
        char *out;
        fs_error err = {0};
        assert_int_equal(run_check(bad, good, NULL, &out, &err), -1);
        assert_int_equal(err.code, FS_ERR_INPUT);
        if (!strstr(err.msg, cases[i].want))
            fail_msg("case %zu: message\n  %s\nlacks\n  %s", i, err.msg, cases[i].want);
        assert_string_equal(out, ""); /* nothing written before the refusal */
        free(out);
        /* and the current side is named as such */
        assert_int_equal(run_check(good, bad, NULL, &out, &err), -1);
        expect_in(err.msg, "current results: ");
        free(out);
        json_decref(bad);
    }
    json_decref(good);
}

/* ---- tolerances ---------------------------------------------------------- */

static void test_tolerance_parsing(void **state)
{
    (void)state;
    fs_check_tolerances t;
    fs_check_tolerances_init(&t);
    const double defaults[FS_CHECK_N_METRICS] = {5, 5, 10, 10, 2, 5, 5, 20, 5, 5, 5, 10, 10};
    for (int m = 0; m < FS_CHECK_N_METRICS; m++)
        assert_true(t.percent[m] == defaults[m]);
    fs_error err = {0};
    assert_int_equal(fs_check_tolerances_parse(&t, "p99=7%,cost=0.5,switch=100%,p99=8", &err), FS_OK);
    assert_true(t.percent[FS_CHECK_P99] == 8); /* the last of a repeated key */
    assert_true(t.percent[FS_CHECK_COST] == 0.5);
    assert_true(t.percent[FS_CHECK_SWITCH] == 100);
    assert_true(t.percent[FS_CHECK_P95] == 5); /* the rest keep theirs */

    struct {
        const char *spec, *want;
    } bad[] = {
        {"p90=5%", "unknown key \"p90\" (valid keys: p99, p95, breaches, queue_p95, cost, headroom, utilization, "
                   "switch, ttft_p99, tpot_p99, tokens_per_s, cycle_p95, rollout_p95)"},
        {"p99=abc", "p99: expected a percentage like 5% or 5 (a number >= 0), got \"abc\""},
        {"p99=-5%", "p99: expected a percentage"},
        {"p99=5%%", "p99: expected a percentage"},
        {"p99=5 %", "p99: expected a percentage"},
        {"p99=", "p99: expected a percentage"},
        {"p99=inf", "p99: expected a percentage"},
        {"p99=nan", "p99: expected a percentage"},
        {"p99=0x10", "p99: expected a percentage"}, /* hex: strtod would read 16 */
        {"p99=0x1p3%", "p99: expected a percentage"},
        {"p99= 5", "p99: expected a percentage"},
        {"p99", "expected KEY=PERCENT, got \"p99\""},
        {"p99=5%,,cost=1", "empty entry"},
        {"", "empty entry"},
        {"cost=1,P99=5", "unknown key \"P99\""},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        fs_check_tolerances before = t;
        assert_int_equal(fs_check_tolerances_parse(&t, bad[i].spec, &err), FS_ERR_INPUT);
        if (!strstr(err.msg, bad[i].want))
            fail_msg("\"%s\": message\n  %s\nlacks\n  %s", bad[i].spec, err.msg, bad[i].want);
        assert_memory_equal(&t, &before, sizeof t); /* a refused list changes nothing */
    }
    /* the metric table agrees with the defaults */
    assert_string_equal(fs_check_metric_get(FS_CHECK_QUEUE_P95)->key, "queue_p95");
    assert_true(fs_check_metric_get(FS_CHECK_HEADROOM)->higher_is_better);
    assert_false(fs_check_metric_get(FS_CHECK_COST)->higher_is_better);
    assert_null(fs_check_metric_get(FS_CHECK_N_METRICS));
}

/* ---- end to end through the binary --------------------------------------- */

static char tmp[256];

/* A day of a small service; its "ci" block makes the check a 2-hour run. */
#define SCENARIO(MEAN)                                                                                       \
    "{\"schema\": \"fleetsim/1\", \"name\": \"gate\", \"horizon\": \"1d\", \"warmup\": \"1h\", "             \
    "\"replications\": 3, \"seed\": 7,\n"                                                                    \
    " \"ci\": {\"horizon\": \"2h\", \"replications\": 1, \"warmup\": \"10m\"},\n"                            \
    " \"pools\": [{\"name\": \"p\", \"gpu\": \"L4-24GB\", \"gpus\": 3}],\n"                                  \
    " \"services\": [{\"name\": \"api\", \"arrivals\": {\"poisson_rps\": 20},\n"                             \
    "   \"service_time\": {\"exponential\": {\"mean\": \"" MEAN "\"}}, \"replicas\": 3,\n"                 \
    "   \"slo\": {\"p99_ms\": 800}}]}\n"

static void test_end_to_end(void **state)
{
    (void)state;
    test_write(test_path("%s/gate.json", tmp), SCENARIO("100ms"));
    /* --update creates the baseline, and its directory */
    assert_int_equal(
        test_fleetsim(tmp, "check %s/gate.json --baseline %s/base/gate.baseline.json --update", tmp, tmp), 0);
    char *out = test_slurp("%s/out.txt", tmp);
    char want[512];
    snprintf(want, sizeof want, "baseline updated: %s/base/gate.baseline.json\n", tmp);
    assert_string_equal(out, want);
    free(out);
    /* the baseline is the results document of the ci run, without timing */
    out = test_slurp("%s/base/gate.baseline.json", tmp);
    assert_non_null(out);
    json_t *doc = json_loads(out, 0, NULL);
    free(out);
    assert_non_null(doc);
    json_t *scen = json_object_get(doc, "scenario");
    assert_true(json_number_value(json_object_get(scen, "horizon_s")) == 7200);
    assert_true(json_number_value(json_object_get(scen, "warmup_s")) == 600);
    assert_true(json_number_value(json_object_get(scen, "replications")) == 1);
    assert_null(json_object_get(json_object_get(doc, "sim"), "wall_s"));
    json_decref(doc);

    /* the same scenario on the same seed passes */
    assert_int_equal(test_fleetsim(tmp, "check %s/gate.json --baseline %s/base/gate.baseline.json", tmp, tmp),
                     0);
    out = test_slurp("%s/out.txt", tmp);
    expect_in(out, "| default | service api | p99 |");
    expect_in(out, "metrics checked, 0 worse\n");
    expect_not_in(out, "WORSE");
    free(out);
    out = test_slurp("%s/err.txt", tmp);
    assert_string_equal(out, "");
    free(out);

    /* a slower service on the same seed fails, naming its p99 */
    test_write(test_path("%s/slower.json", tmp), SCENARIO("115ms"));
    assert_int_equal(
        test_fleetsim(tmp, "check %s/slower.json --baseline %s/base/gate.baseline.json", tmp, tmp), 1);
    out = test_slurp("%s/out.txt", tmp);
    char *row = strstr(out, "| default | service api | p99 |");
    assert_non_null(row);
    char *eol = strchr(row, '\n');
    assert_non_null(eol);
    *eol = '\0';
    expect_in(row, "| WORSE (tolerance 5%) |");
    *eol = '\n';
    expect_not_in(out, " 0 worse\n");
    free(out);
    /* looser tolerances forgive the latencies, but no percentage of a zero
     * baseline forgives SLO breaches appearing: the floor alone judges them */
    assert_int_equal(test_fleetsim(tmp,
                                   "check %s/slower.json --baseline %s/base/gate.baseline.json "
                                   "--tolerance p99=1000%%,p95=1000%%,breaches=1000%%,headroom=1000%%",
                                   tmp, tmp),
                     1);
    out = test_slurp("%s/out.txt", tmp);
    expect_in(out, "| breaches | 0 | ");
    expect_in(out, " | n/a (from 0) | WORSE (tolerance 1000%) |\n");
    expect_in(out, " metrics checked, 1 worse\n");
    free(out);

    /* a baseline made with other run settings: still compared, and stderr says why it differs */
    test_write(test_path("%s/longer.json", tmp), SCENARIO("100ms"));
    char *text = test_slurp("%s/longer.json", tmp), *at = strstr(text, "\"horizon\": \"2h\"");
    assert_non_null(at);
    at[12] = '3'; /* the ci horizon: 3h */
    test_write(test_path("%s/longer.json", tmp), text);
    free(text);
    test_fleetsim(tmp, "check %s/longer.json --baseline %s/base/gate.baseline.json", tmp, tmp);
    out = test_slurp("%s/err.txt", tmp);
    snprintf(want, sizeof want,
             "fleetsim: warning: %s/base/gate.baseline.json was made with horizon 2h, this run has 3h; if that "
             "change is intended, update the baseline with --update\n",
             tmp);
    assert_string_equal(out, want);
    free(out);

    /* run ignores "ci": the full day */
    assert_int_equal(test_fleetsim(tmp, "run %s/gate.json --format json --no-timing -r 1", tmp), 0);
    out = test_slurp("%s/out.txt", tmp);
    expect_in(out, "\"horizon_s\": 86400");
    free(out);
}

static void test_end_to_end_errors(void **state)
{
    (void)state;
    test_write(test_path("%s/gate.json", tmp), SCENARIO("100ms"));
    /* malformed baseline: file:line:column, exit 2 */
    test_write(test_path("%s/bad.json", tmp),
               "{\n  \"schema\": \"fleetsim-results/1\",\n  \"policies\": [\n}\n");
    assert_int_equal(test_fleetsim(tmp, "check %s/gate.json --baseline %s/bad.json", tmp, tmp), 2);
    char *err = test_slurp("%s/err.txt", tmp), want[512];
    snprintf(want, sizeof want, "fleetsim: %s/bad.json:4:1: ", tmp);
    expect_in(err, want);
    free(err);
    char *out = test_slurp("%s/out.txt", tmp);
    assert_string_equal(out, ""); /* refused before the run: no table */
    free(out);

    /* well-formed JSON that is not a results document: exit 2 naming the file */
    test_write(test_path("%s/scenario-as-baseline.json", tmp), SCENARIO("100ms"));
    assert_int_equal(
        test_fleetsim(tmp, "check %s/gate.json --baseline %s/scenario-as-baseline.json", tmp, tmp), 2);
    err = test_slurp("%s/err.txt", tmp);
    snprintf(want, sizeof want, "fleetsim: %s/scenario-as-baseline.json: schema: expected \"fleetsim-results/1\"",
             tmp);
    expect_in(err, want);
    free(err);
    out = test_slurp("%s/out.txt", tmp);
    assert_string_equal(out, "");
    free(out);

    /* a missing baseline says how to make one */
    assert_int_equal(test_fleetsim(tmp, "check %s/gate.json --baseline %s/none.json", tmp, tmp), 2);
    err = test_slurp("%s/err.txt", tmp);
    expect_in(err, "none.json: cannot read the baseline: No such file or directory (create it with --update)");
    free(err);

    /* usage errors */
    assert_int_equal(test_fleetsim(tmp, "check %s/gate.json", tmp), 2);
    err = test_slurp("%s/err.txt", tmp);
    expect_in(err, "--baseline FILE is required");
    free(err);
    assert_int_equal(test_fleetsim(tmp, "check --baseline %s/b.json", tmp), 2);
    assert_int_equal(
        test_fleetsim(tmp, "check %s/gate.json --baseline %s/b.json --tolerance p90=5%%", tmp, tmp), 2);
    err = test_slurp("%s/err.txt", tmp);
    expect_in(err, "fleetsim check: --tolerance: unknown key \"p90\" (valid keys: p99, p95,");
    free(err);
    assert_int_equal(
        test_fleetsim(tmp, "check %s/gate.json --baseline %s/b.json --tolerance p99=lots", tmp, tmp), 2);
    assert_int_equal(test_fleetsim(tmp, "check %s/gate.json --baseline %s/b.json --bogus", tmp, tmp), 2);
    assert_int_equal(test_fleetsim(tmp, "check %s/gate.json --baseline %s/ --update", tmp, tmp), 2);
    /* a scenario error is exit 2, as for run */
    assert_int_equal(test_fleetsim(tmp, "check %s/none.json --baseline %s/b.json --update", tmp, tmp), 2);
    test_write(test_path("%s/badci.json", tmp),
               "{\"schema\": \"fleetsim/1\", \"horizon\": \"1d\", \"ci\": {\"replication\": 1},"
               " \"pools\": [], \"services\": []}");
    assert_int_equal(test_fleetsim(tmp, "check %s/badci.json --baseline %s/b.json --update", tmp, tmp), 2);
    err = test_slurp("%s/err.txt", tmp);
    expect_in(err, "badci.json: ci: unknown key \"replication\" (did you mean \"replications\"?)");
    free(err);

    /* help, from the option table */
    assert_int_equal(test_fleetsim(tmp, "check --help"), 0);
    out = test_slurp("%s/out.txt", tmp);
    expect_in(out, "-b, --baseline FILE");
    expect_in(out, "--tolerance LIST");
    expect_in(out, "  queue_p95    training queue_wait_s.p95        lower   10%");
    free(out);
    assert_int_equal(test_fleetsim(tmp, "--help"), 0);
    out = test_slurp("%s/out.txt", tmp);
    expect_in(out, "  check SCENARIO        rerun and compare with a baseline; exit 1 if worse\n");
    free(out);
}

static int setup(void **state)
{
    (void)state;
    return test_tmpdir(tmp, sizeof tmp, "fleetsim-check");
}

static int teardown(void **state)
{
    (void)state;
    return test_rmdir(tmp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_equal_documents_pass),
        cmocka_unit_test(test_p99_beyond_tolerance_is_worse),
        cmocka_unit_test(test_directions),
        cmocka_unit_test(test_absolute_floors),
        cmocka_unit_test(test_one_sided_items_are_worse),
        cmocka_unit_test(test_nulls),
        cmocka_unit_test(test_unsettled_verdicts),
        cmocka_unit_test(test_names_stay_in_their_cell),
        cmocka_unit_test(test_bad_documents_are_refused),
        cmocka_unit_test(test_tolerance_parsing),
        cmocka_unit_test(test_pipeline_figures),
        cmocka_unit_test(test_end_to_end),
        cmocka_unit_test(test_end_to_end_errors),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

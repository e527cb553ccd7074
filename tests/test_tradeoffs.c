/*
 * The verdict over a comparison (reports/tables/tradeoffs.h): which policy
 * meets every SLO at the lowest cost, and what each costs the other
 * workloads.  Hand-built comparison documents, their figures worked out in
 * the comments, then morning-tail through the binary (compare, compare.json
 * and the report), and hostile names through both.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "testutil.h"
#include "tradeoffs.h"

static json_t *parse(const char *text)
{
    json_error_t e;
    json_t *v = json_loads(text, 0, &e);
    if (!v)
        fail_msg("bad test JSON at %d: %s", e.position, e.text);
    return v;
}

/* Appends every piece to `all`, and each piece the sink must escape to
 * `text` as well, so a test can tell user text from fleetsim's own words. */
typedef struct rec {
    char all[4096], raw[4096], text[4096];
} rec;
static void put(char *buf, const char *s) { strncat(buf, s, 4095 - strlen(buf)); }
static void rec_raw(void *ctx, const char *s) { put(((rec *)ctx)->all, s), put(((rec *)ctx)->raw, s); }
static void rec_text(void *ctx, const char *s) { put(((rec *)ctx)->all, s), put(((rec *)ctx)->text, s); }

static void reason_of(const json_t *v, rec *r)
{
    memset(r, 0, sizeof *r);
    fs_tradeoffs_sink sink = {rec_raw, rec_text, r};
    fs_tradeoffs_write_reason(v, &sink);
}
static void line_of(const json_t *v, size_t p, rec *r)
{
    memset(r, 0, sizeof *r);
    fs_tradeoffs_sink sink = {rec_raw, rec_text, r};
    fs_tradeoffs_write_policy(v, p, &sink);
}

/* One SLO target, chat p99, with each policy's verdict on it. */
static json_t *slo2(const char *a_meets, const char *a_verdict, const char *b_meets, const char *b_verdict)
{
    char buf[512];
    snprintf(buf, sizeof buf,
             "[{\"name\": \"A\", \"meets\": %s, \"targets\": [{\"service\": \"chat\", \"target\": \"p99\", "
             "\"verdict\": \"%s\"}]},"
             " {\"name\": \"B\", \"meets\": %s, \"targets\": [{\"service\": \"chat\", \"target\": \"p99\", "
             "\"verdict\": \"%s\"}]}]",
             a_meets, a_verdict, b_meets, b_verdict);
    return parse(buf);
}

/* A comparison of A (baseline) and B: chat's p99 and drops, nightly's
 * waits, the fleet's cost; B's differences as given. */
static json_t *compare2(double cost_a, double cost_b, const char *b_diffs)
{
    char buf[2048];
    snprintf(buf, sizeof buf,
             "{\"baseline\": \"A\", \"policies\": {"
             "\"A\": {\"services\": {\"chat\": {\"p99_ms\": 300, \"dropped\": 0}},"
             "        \"training\": {\"nightly\": {\"queue_wait_p95_min\": 10, \"queue_wait_p50_min\": 100}},"
             "        \"fleet\": {\"cost_usd\": %.17g}},"
             "\"B\": {\"services\": {\"chat\": {\"p99_ms\": 300, \"dropped\": 0}},"
             "        \"training\": {\"nightly\": {\"queue_wait_p95_min\": 10, \"queue_wait_p50_min\": 100}},"
             "        \"fleet\": {\"cost_usd\": %.17g}}},"
             " \"differences\": {\"A\": {}, \"B\": %s}}",
             cost_a, cost_b, b_diffs);
    json_t *doc = parse(buf);
    /* Each B value is A's plus B's difference, as compare writes them. */
    json_t *b = json_object_get(json_object_get(doc, "policies"), "B");
    json_t *d = json_object_get(json_object_get(doc, "differences"), "B");
    const char *sec, *item, *key;
    json_t *items, *rows, *cell;
    json_object_foreach(d, sec, items) {
        if (strcmp(sec, "fleet") == 0)
            continue;
        json_object_foreach(items, item, rows) {
            json_object_foreach(rows, key, cell) {
                json_t *parent = json_object_get(json_object_get(b, sec), item);
                double was = json_number_value(json_object_get(parent, key));
                json_object_set_new(parent, key, json_real(was + json_number_value(json_object_get(cell, "mean"))));
            }
        }
    }
    return doc;
}

static const json_t *change(const json_t *v, size_t p, size_t k)
{
    return json_array_get(json_object_get(json_array_get(json_object_get(v, "policies"), p), "changes"), k);
}
static size_t n_changes(const json_t *v, size_t p)
{
    return json_array_size(json_object_get(json_array_get(json_object_get(v, "policies"), p), "changes"));
}

/* B meets every SLO for $80 against A's $100, and makes nightly wait longer.
 *   nightly p95 +30 min, CI ±5: 30 >= 1 min, >= 10% of A's 10, |30| > 5: listed, worse;
 *   nightly p50 +5 min, CI ±1: 5 < 10% of A's 100: too small, not listed;
 *   chat p99 +10 ms, CI ±4: 10 < 10% of A's 300: not listed;
 *   cost -20 USD, CI ±2: 20 >= $1, >= 1% of 100, > 2: listed, better. */
static void test_cheaper_names_its_price(void **state)
{
    (void)state;
    json_t *cmp = compare2(100, 80,
                           "{\"services\": {\"chat\": {\"p99_ms\": {\"mean\": 10, \"ci95\": 4}}},"
                           " \"training\": {\"nightly\": {\"queue_wait_p95_min\": {\"mean\": 30, \"ci95\": 5},"
                           "                             \"queue_wait_p50_min\": {\"mean\": 5, \"ci95\": 1}}},"
                           " \"fleet\": {\"cost_usd\": {\"mean\": -20, \"ci95\": 2}}}");
    json_t *slo = slo2("true", "met", "true", "met");
    json_t *v = fs_tradeoffs_verdict(cmp, slo);
    assert_non_null(v);
    assert_int_equal(json_array_size(json_object_get(v, "best")), 1);
    assert_string_equal(test_json_str(v, "baseline"), "A");
    assert_string_equal(json_string_value(json_array_get(json_object_get(v, "best"), 0)), "B");
    assert_int_equal(n_changes(v, 0), 0);
    assert_int_equal(n_changes(v, 1), 2);
    assert_string_equal(test_json_str(change(v, 1, 0), "workload"), "nightly");
    assert_string_equal(test_json_str(change(v, 1, 0), "figure"), "queue_wait_p95_min");
    assert_float_equal(test_json_num(change(v, 1, 0), "difference"), 30, 1e-9);
    assert_float_equal(test_json_num(change(v, 1, 0), "ci95"), 5, 1e-9);
    assert_true(json_is_true(json_object_get(change(v, 1, 0), "worse")));
    assert_string_equal(test_json_str(change(v, 1, 1), "figure"), "cost_usd");
    assert_true(json_is_false(json_object_get(change(v, 1, 1), "worse")));
    rec r;
    reason_of(v, &r);
    assert_string_equal(r.all, "B meets every SLO at $80.00, the lowest cost; against A (which meets every SLO, "
                               "at $100.00) it makes worse: nightly queue wait p95 +30 min (95% CI ±5)");
    assert_string_equal(test_json_str(v, "reason"), r.all);
    line_of(v, 1, &r);
    assert_string_equal(r.all, "B against A: worse: nightly queue wait p95 +30 min (95% CI ±5); better: "
                               "fleet cost -20 USD (95% CI ±2)");
    json_decref(v);
    json_decref(slo);
    json_decref(cmp);
}

/* Neither meets: A misses chat's p99, B has no data for it; no best. */
static void test_none_meets(void **state)
{
    (void)state;
    json_t *cmp = compare2(100, 80, "{}");
    json_t *slo = slo2("false", "missed", "null", "no data");
    json_t *v = fs_tradeoffs_verdict(cmp, slo);
    assert_int_equal(json_array_size(json_object_get(v, "best")), 0);
    assert_true(json_is_false(json_object_get(json_array_get(json_object_get(v, "policies"), 0), "meets_every_slo")));
    assert_true(json_is_null(json_object_get(json_array_get(json_object_get(v, "policies"), 1), "meets_every_slo")));
    rec r;
    reason_of(v, &r);
    assert_string_equal(r.all, "no policy meets every SLO: A misses chat p99; B has no data for chat p99");
    /* missed -> no data is not a gain: nothing was shown to be met. */
    assert_int_equal(n_changes(v, 1), 1);
    assert_string_equal(test_json_str(change(v, 1, 0), "kind"), "slo");
    assert_true(json_is_true(json_object_get(change(v, 1, 0), "worse")));
    json_decref(v);
    json_decref(slo);
    /* No SLO anywhere: nothing to meet, no best either. */
    slo = parse("[{\"name\": \"A\", \"meets\": null, \"targets\": []}, {\"name\": \"B\", \"meets\": null, "
                "\"targets\": []}]");
    v = fs_tradeoffs_verdict(cmp, slo);
    assert_int_equal(json_array_size(json_object_get(v, "best")), 0);
    reason_of(v, &r);
    assert_string_equal(r.all, "no policy can be named: no service has an SLO");
    json_decref(v);
    json_decref(slo);
    json_decref(cmp);
}

/* B is cheaper ($50) but has no data for chat's p99: it never "meets", so A
 * ($100) is best; B's slide from met to no data is listed as worse. */
static void test_no_data_never_meets(void **state)
{
    (void)state;
    json_t *cmp = compare2(100, 50, "{\"fleet\": {\"cost_usd\": {\"mean\": -50, \"ci95\": 1}}}");
    json_t *slo = slo2("true", "met", "null", "no data");
    json_t *v = fs_tradeoffs_verdict(cmp, slo);
    assert_int_equal(json_array_size(json_object_get(v, "best")), 1);
    assert_string_equal(json_string_value(json_array_get(json_object_get(v, "best"), 0)), "A");
    rec r;
    reason_of(v, &r);
    assert_string_equal(r.all, "A meets every SLO at $100.00, the lowest cost");
    line_of(v, 1, &r);
    assert_string_equal(r.all,
                        "B against A: worse: chat p99 SLO met → no data; better: fleet cost -50 USD (95% CI ±1)");
    json_decref(v);
    json_decref(slo);
    json_decref(cmp);
}

/* $100.00 and $100.004 are the same to the cent: a tie, both named. */
static void test_equal_cost_ties(void **state)
{
    (void)state;
    json_t *cmp = compare2(100, 100.004, "{\"fleet\": {\"cost_usd\": {\"mean\": 0.004, \"ci95\": 0.001}}}");
    json_t *slo = slo2("true", "met", "true", "met");
    json_t *v = fs_tradeoffs_verdict(cmp, slo);
    assert_int_equal(json_array_size(json_object_get(v, "best")), 2);
    rec r;
    reason_of(v, &r);
    assert_string_equal(r.all, "A and B tie: each meets every SLO at $100.00, the lowest cost");
    /* $0.004 is under the $1 floor: no material change. */
    line_of(v, 1, &r);
    assert_string_equal(r.all, "B against A: no material change");
    json_decref(v);
    json_decref(slo);
    json_decref(cmp);
}

/* What is listed and what is not:
 *   nightly p95 +3 min, CI ±4: inside noise, not listed;
 *   nightly p50 +1.5 min, CI ±0.1: 1.5% of A's 100, under 10%, not listed;
 *   chat p99 +50 ms, CI ±60: inside noise, but chat's p99 target went from
 *     met to missed, so that flip is listed (never hidden);
 *   chat drops +5, no CI (one replication): 5 >= 1 on a baseline of 0,
 *     listed, its CI said unknown;
 *   cost +0.5 USD, no CI: under the $1 floor, not listed. */
static void test_noise_is_not_listed(void **state)
{
    (void)state;
    json_t *cmp = compare2(100, 100.5,
                           "{\"services\": {\"chat\": {\"p99_ms\": {\"mean\": 50, \"ci95\": 60},"
                           "                          \"dropped\": {\"mean\": 5, \"ci95\": null}}},"
                           " \"training\": {\"nightly\": {\"queue_wait_p95_min\": {\"mean\": 3, \"ci95\": 4},"
                           "                             \"queue_wait_p50_min\": {\"mean\": 1.5, \"ci95\": 0.1}}},"
                           " \"fleet\": {\"cost_usd\": {\"mean\": 0.5, \"ci95\": null}}}");
    json_t *slo = slo2("true", "met", "false", "missed");
    json_t *v = fs_tradeoffs_verdict(cmp, slo);
    assert_int_equal(n_changes(v, 1), 2);
    assert_true(json_is_null(json_object_get(change(v, 1, 1), "ci95")));
    rec r;
    line_of(v, 1, &r);
    assert_string_equal(r.all, "B against A: worse: chat p99 SLO met → missed; chat requests dropped +5 (95% CI "
                               "unknown)");
    /* A alone meets: best, and the baseline, so no price is named. */
    reason_of(v, &r);
    assert_string_equal(r.all, "A meets every SLO at $100.00, the lowest cost");
    json_decref(v);
    json_decref(slo);
    json_decref(cmp);
}

/* A cheaper policy whose saving is inside noise says so: "the lowest cost"
 * claims no more than the run shows.  Cost -20 USD, CI ±30. */
static void test_saving_inside_noise_is_said(void **state)
{
    (void)state;
    json_t *cmp = compare2(100, 80, "{\"fleet\": {\"cost_usd\": {\"mean\": -20, \"ci95\": 30}}}");
    json_t *slo = slo2("true", "met", "true", "met");
    json_t *v = fs_tradeoffs_verdict(cmp, slo);
    rec r;
    reason_of(v, &r);
    assert_string_equal(r.all, "B meets every SLO at $80.00, the lowest cost; it makes no workload materially "
                               "worse than A (which meets every SLO, at $100.00; the cost difference, -20.00 USD "
                               "(95% CI ±30), is within noise or too small to matter)");
    json_decref(v);
    json_decref(slo);
    json_decref(cmp);
}

/* Three policies: A (the baseline), B and C.  B is best; compare's "pairs"
 * give B's paired differences to C, which meets every SLO too, so B's price
 * is named against C as well:
 *   nightly p95: B 40 min, C 20 min, +20 (CI ±2): >= 10% of 20, past noise,
 *     worse; cost: B $80, C $90, -10 (CI ±1): >= 1% of 90, better. */
static const char three[] =
    "{\"baseline\": \"A\", \"policies\": {"
    "\"A\": {\"training\": {\"nightly\": {\"queue_wait_p95_min\": 40}}, \"fleet\": {\"cost_usd\": %g}},"
    "\"B\": {\"training\": {\"nightly\": {\"queue_wait_p95_min\": 40}}, \"fleet\": {\"cost_usd\": 80}},"
    "\"C\": {\"training\": {\"nightly\": {\"queue_wait_p95_min\": 20}}, \"fleet\": {\"cost_usd\": 90}}},"
    " \"differences\": {\"A\": {}, \"B\": {}, \"C\": {}},"
    " \"pairs\": {\"%s\": {\"C\": {\"training\": {\"nightly\": {\"queue_wait_p95_min\": {\"mean\": %g, \"ci95\": 2}}},"
    "                  \"fleet\": {\"cost_usd\": {\"mean\": %g, \"ci95\": 1}}}}}}";

static json_t *slo3(const char *a_meets, const char *a_verdict)
{
    char buf[1024];
    snprintf(buf, sizeof buf,
             "[{\"name\": \"A\", \"meets\": %s, \"targets\": [{\"service\": \"chat\", \"target\": \"p99\","
             " \"verdict\": \"%s\"}]},"
             " {\"name\": \"B\", \"meets\": true, \"targets\": [{\"service\": \"chat\", \"target\": \"p99\","
             " \"verdict\": \"met\"}]},"
             " {\"name\": \"C\", \"meets\": true, \"targets\": [{\"service\": \"chat\", \"target\": \"p99\","
             " \"verdict\": \"met\"}]}]",
             a_meets, a_verdict);
    return parse(buf);
}

static void test_price_against_other_meeting_policy(void **state)
{
    (void)state;
    char buf[1024];
    snprintf(buf, sizeof buf, three, 100.0, "B", 20.0, -10.0);
    json_t *cmp = parse(buf), *slo = slo3("false", "missed");
    json_t *v = fs_tradeoffs_verdict(cmp, slo);
    const json_t *against = json_object_get(json_array_get(json_object_get(v, "policies"), 1), "against");
    assert_int_equal(json_array_size(against), 1);
    assert_string_equal(test_json_str(json_array_get(against, 0), "policy"), "C");
    assert_int_equal(json_array_size(json_object_get(json_array_get(against, 0), "changes")), 2);
    rec r;
    reason_of(v, &r);
    assert_string_equal(r.all, "B meets every SLO at $80.00, the lowest cost; it makes no workload materially worse "
                               "than A (which misses chat p99, at $100.00); against C (which meets every SLO, at "
                               "$90.00) it makes worse: nightly queue wait p95 +20 min (95% CI ±2)");
    json_decref(v);
    json_decref(cmp);
    json_decref(slo);
    /* The baseline is best ($70) and C meets too: A's nightly p95 (40 min)
     * against C's (20 min), +20 (CI ±2), is its price against C. */
    snprintf(buf, sizeof buf, three, 70.0, "A", 20.0, -20.0);
    cmp = parse(buf);
    slo = slo3("true", "met");
    v = fs_tradeoffs_verdict(cmp, slo);
    reason_of(v, &r);
    assert_string_equal(r.all, "A meets every SLO at $70.00, the lowest cost; against C (which meets every SLO, at "
                               "$90.00) it makes worse: nightly queue wait p95 +20 min (95% CI ±2)");
    json_decref(v);
    json_decref(cmp);
    json_decref(slo);
}

/* Seven services, each p99 100 ms under A and 100 + d under B, d = 20, 30,
 * ..., 80 (CI ±1): all material (>= 10% of 100).  The sentence lists the
 * five largest relative to A's figure, s7 (+80%) down to s3 (+40%), and
 * counts the other two; compare.json keeps all seven. */
static void test_long_lists_are_cut(void **state)
{
    (void)state;
    json_t *cmp = parse("{\"baseline\": \"A\", \"policies\": {\"A\": {\"services\": {}, \"fleet\": {}},"
                        " \"B\": {\"services\": {}, \"fleet\": {}}}, \"differences\": {\"A\": {}, \"B\":"
                        " {\"services\": {}}}}");
    json_t *slo = slo2("true", "met", "true", "met");
    json_t *a = json_object_get(json_object_get(json_object_get(cmp, "policies"), "A"), "services");
    json_t *b = json_object_get(json_object_get(json_object_get(cmp, "policies"), "B"), "services");
    json_t *d = json_object_get(json_object_get(json_object_get(cmp, "differences"), "B"), "services");
    for (int i = 1; i <= 7; i++) {
        char name[16];
        snprintf(name, sizeof name, "s%d", i);
        json_object_set_new(a, name, json_pack("{sf}", "p99_ms", 100.0));
        json_object_set_new(b, name, json_pack("{sf}", "p99_ms", 100.0 + 10 * (i + 1)));
        json_object_set_new(d, name, json_pack("{s{sfsf}}", "p99_ms", "mean", 10.0 * (i + 1), "ci95", 1.0));
    }
    json_t *v = fs_tradeoffs_verdict(cmp, slo);
    assert_int_equal(n_changes(v, 1), 7);
    rec r;
    line_of(v, 1, &r);
    assert_string_equal(r.all, "B against A: worse: s7 p99 +80 ms (95% CI ±1); s6 p99 +70 ms (95% CI ±1); s5 p99 +60 "
                               "ms (95% CI ±1); s4 p99 +50 ms (95% CI ±1); s3 p99 +40 ms (95% CI ±1); and 2 more");
    json_decref(v);
    json_decref(slo);
    json_decref(cmp);
}

/* Names typed by a user reach the sink only through `text` (escaped there),
 * never through `raw`. */
static void test_hostile_names_are_text(void **state)
{
    (void)state;
    const char *evil = "<img src=x onerror=alert(1)>|`$(touch PWNED)`";
    char buf[1024];
    snprintf(buf, sizeof buf,
             "{\"baseline\": \"A\", \"policies\": {\"A\": {\"training\": {\"E\": {\"queue_wait_p95_min\": 0}},"
             " \"fleet\": {\"cost_usd\": 10}}, \"P\": {\"training\": {\"E\": {\"queue_wait_p95_min\": 60}},"
             " \"fleet\": {\"cost_usd\": 10}}}, \"differences\": {\"A\": {}, \"P\": {\"training\": {\"E\":"
             " {\"queue_wait_p95_min\": {\"mean\": 60, \"ci95\": null}}}}}}");
    json_t *cmp = parse(buf);
    json_t *slo = parse("[{\"name\": \"A\", \"meets\": false, \"targets\": [{\"service\": \"S\", \"target\": "
                        "\"p99\", \"verdict\": \"missed\"}]}, {\"name\": \"P\", \"meets\": true, \"targets\": "
                        "[{\"service\": \"S\", \"target\": \"p99\", \"verdict\": \"met\"}]}]");
    /* Every name made hostile: policies, the stream, the service. */
    json_t *pols = json_object_get(cmp, "policies"), *diffs = json_object_get(cmp, "differences");
    json_object_set(pols, evil, json_object_get(pols, "P"));
    json_object_set(diffs, evil, json_object_get(diffs, "P"));
    json_t *tr = json_object_get(json_object_get(pols, evil), "training");
    json_object_set(tr, evil, json_object_get(tr, "E"));
    json_object_del(tr, "E");
    tr = json_object_get(json_object_get(json_object_get(pols, "A"), "training"), "E");
    json_object_set(json_object_get(json_object_get(pols, "A"), "training"), evil, tr);
    tr = json_object_get(json_object_get(diffs, evil), "training");
    json_object_set(tr, evil, json_object_get(tr, "E"));
    json_object_del(tr, "E");
    json_object_set_new(json_array_get(slo, 1), "name", json_string(evil));
    json_object_set_new(json_array_get(json_object_get(json_array_get(slo, 0), "targets"), 0), "service",
                        json_string(evil));
    json_object_set_new(json_array_get(json_object_get(json_array_get(slo, 1), "targets"), 0), "service",
                        json_string(evil));
    json_t *v = fs_tradeoffs_verdict(cmp, slo);
    rec r;
    reason_of(v, &r);
    assert_non_null(strstr(r.all, "queue wait p95 +60 min (95% CI unknown)"));
    assert_non_null(strstr(r.text, evil));
    assert_null(strstr(r.raw, "<img"));
    assert_null(strstr(r.raw, "$("));
    line_of(v, 1, &r);
    assert_non_null(strstr(r.text, evil));
    assert_null(strstr(r.raw, "<img"));
    json_decref(v);
    json_decref(slo);
    json_decref(cmp);
}

static char tmp[256];

/* morning-tail, shortened (2 days, 1 of warm-up, 2 replications): partitioned
 * meets chat's SLO, shared misses it, and partitioned's price is the
 * evaluation sweep's wait (it queues behind the fine-tune in the batch
 * pool; under shared it starts at once). */
static void test_morning_tail(void **state)
{
    (void)state;
    assert_int_equal(test_fleetsim(tmp,
                                   "compare scenarios/morning-tail.json --horizon 2d --warmup 1d --replications 2"
                                   " --out '%s/mt' --report '%s/mt/report'",
                                   tmp, tmp),
                     0);
    char *out = test_slurp("%s/out.txt", tmp);
    assert_non_null(strstr(out, "\nverdict: partitioned meets every SLO at $"));
    assert_non_null(strstr(out, "it makes worse: eval-sweep queue wait p95 +"));
    assert_non_null(strstr(out, "partitioned against shared: worse: eval-sweep queue wait p95 +"));
    assert_non_null(strstr(out, "chat p99 SLO missed → met"));
    free(out);
    json_t *doc = json_load_file(test_path("%s/mt/compare.json", tmp), 0, NULL);
    assert_non_null(doc);
    const json_t *v = json_object_get(doc, "verdict");
    assert_string_equal(json_string_value(json_array_get(json_object_get(v, "best"), 0)), "partitioned");
    assert_int_equal(json_array_size(json_object_get(v, "best")), 1);
    const json_t *pols = json_object_get(v, "policies");
    assert_true(json_is_false(json_object_get(json_array_get(pols, 0), "meets_every_slo")));
    assert_true(json_is_true(json_object_get(json_array_get(pols, 1), "meets_every_slo")));
    bool found = false;
    size_t k;
    const json_t *c;
    json_array_foreach(json_object_get(json_array_get(pols, 1), "changes"), k, c) {
        if (strcmp(test_json_str(c, "workload"), "eval-sweep") == 0 &&
            strcmp(test_json_str(c, "figure"), "queue_wait_p95_min") == 0) {
            found = true;
            assert_true(json_is_true(json_object_get(c, "worse")));
            assert_true(test_json_num(c, "difference") > 60); /* hours, not minutes */
        }
    }
    assert_true(found);
    json_decref(doc);
    char *html = test_slurp("%s/mt/report/index.html", tmp), *md = test_slurp("%s/mt/report/report.md", tmp);
    assert_non_null(strstr(html, "<p><b>Overall</b>: partitioned meets every SLO at $"));
    assert_non_null(strstr(html, "<li>partitioned against shared: worse: eval-sweep queue wait p95 +"));
    assert_non_null(strstr(md, "**Overall**: partitioned meets every SLO at $"));
    assert_non_null(strstr(md, "- partitioned against shared: worse: eval-sweep queue wait p95 +"));
    free(html);
    free(md);
}

/* morning-tail with a third policy, partitioned-2: the same split with 40
 * batch GPUs instead of 32 (costing more), where the sweep's gang fits
 * beside the fine-tune's and never waits.  partitioned stays best, and its
 * price is named against partitioned-2, which meets every SLO too. */
static void test_price_against_third_policy(void **state)
{
    (void)state;
    assert_int_equal(test_sh("sed 's/\"policies\": {/\"policies\": { \"partitioned-2\": {\"kind\": "
                             "\"partitioned\", \"pools\": [{\"name\": \"serving\", \"class\": \"serving\", "
                             "\"gpu\": \"H100-SXM-80GB\", \"gpus\": 16}, {\"name\": \"batch\", \"class\": "
                             "\"batch\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 40}]},/'"
                             " '%s/scenarios/morning-tail.json' > '%s/three.json'",
                             FS_SOURCE_DIR, tmp),
                     0);
    json_t *doc = test_fleetsim_json(tmp,
                                     "compare '%s/three.json' --policies shared,partitioned,partitioned-2"
                                     " --horizon 2d --warmup 1d --replications 1 --format json",
                                     tmp);
    const json_t *v = json_object_get(doc, "verdict");
    assert_null(json_object_get(doc, "pairs")); /* the pairs serve the verdict only */
    assert_string_equal(json_string_value(json_array_get(json_object_get(v, "best"), 0)), "partitioned");
    const json_t *against = json_object_get(json_array_get(json_object_get(v, "policies"), 1), "against");
    assert_int_equal(json_array_size(against), 1);
    assert_string_equal(test_json_str(json_array_get(against, 0), "policy"), "partitioned-2");
    const char *reason = test_json_str(v, "reason");
    assert_non_null(strstr(reason, "; against partitioned-2 (which meets every SLO, at $"));
    assert_non_null(strstr(reason, ") it makes worse: eval-sweep queue wait p95 +"));
    json_decref(doc);
}

/* `run` writes every policy but no paired differences: the report says
 * where the trade-offs come from rather than guessing them. */
static void test_run_report_points_to_compare(void **state)
{
    (void)state;
    assert_int_equal(test_fleetsim(tmp,
                                   "run scenarios/morning-tail.json --horizon 2d --warmup 1d --replications 1"
                                   " --report '%s/run'",
                                   tmp),
                     0);
    char *html = test_slurp("%s/run/index.html", tmp);
    assert_non_null(strstr(html, "needs the paired differences of <code>fleetsim compare SCENARIO --out DIR</code>"));
    assert_null(strstr(html, "<b>Overall</b>"));
    free(html);
}

/* morning-tail with a hostile policy and stream name, one replication:
 * escaped in the report, sanitised in the terminal, the CI unknown. */
static void test_hostile_through_binary(void **state)
{
    (void)state;
    /* The policy keeps its kind, which its name would otherwise pick. */
    assert_int_equal(test_sh("sed -e 's/\"name\": \"eval-sweep\"/\"name\": \"<i>ev<\\/i>|*x*\\\\u001b[31m\"/'"
                             " -e 's/\"partitioned\": {/\"<b>p<\\/b>\\\\u001b[2J\": {\"kind\": \"partitioned\",/'"
                             " '%s/scenarios/morning-tail.json' > '%s/hostile.json'",
                             FS_SOURCE_DIR, tmp),
                     0);
    assert_int_equal(test_fleetsim(tmp,
                                   "compare '%s/hostile.json' --horizon 2d --warmup 1d --replications 1"
                                   " --report '%s/hostile'",
                                   tmp, tmp),
                     0);
    char *out = test_slurp("%s/out.txt", tmp);
    assert_null(strchr(out, '\033')); /* the terminal escape never reaches the terminal */
    assert_non_null(strstr(out, "queue wait p95 +"));
    assert_non_null(strstr(out, "(95% CI unknown)"));
    free(out);
    char *html = test_slurp("%s/hostile/index.html", tmp), *md = test_slurp("%s/hostile/report.md", tmp);
    assert_null(strstr(html, "<i>ev"));
    assert_null(strstr(html, "<b>p</b>"));
    assert_non_null(strstr(html, "<p><b>Overall</b>: &lt;b&gt;p&lt;/b&gt; [2J meets every SLO"));
    assert_non_null(strstr(html, "it makes worse: &lt;i&gt;ev&lt;/i&gt;|*x*"));
    assert_null(strstr(md, "<i>ev"));
    assert_non_null(strstr(md, "it makes worse: &lt;i&gt;ev&lt;/i&gt;\\|\\*x\\*"));
    free(html);
    free(md);
}

static int setup(void **state)
{
    (void)state;
    return test_tmpdir(tmp, sizeof tmp, "fs-tradeoffs");
}

static int teardown(void **state)
{
    (void)state;
    return test_rmdir(tmp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cheaper_names_its_price),
        cmocka_unit_test(test_none_meets),
        cmocka_unit_test(test_no_data_never_meets),
        cmocka_unit_test(test_equal_cost_ties),
        cmocka_unit_test(test_noise_is_not_listed),
        cmocka_unit_test(test_saving_inside_noise_is_said),
        cmocka_unit_test(test_price_against_other_meeting_policy),
        cmocka_unit_test(test_long_lists_are_cut),
        cmocka_unit_test(test_hostile_names_are_text),
        cmocka_unit_test(test_morning_tail),
        cmocka_unit_test(test_price_against_third_policy),
        cmocka_unit_test(test_run_report_points_to_compare),
        cmocka_unit_test(test_hostile_through_binary),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

/*
 * An LLM service's figures in every output (issue 16, point 3): run's llm:
 * line, results.json's "llm" block, llm_timeseries.csv, compare's rows,
 * check's gated TTFT/TPOT p99 and tokens/s, the sweep/plan metrics
 * (service:NAME.ttft_p99 ...) and the review report's rows.  Each carries
 * the one definition models/results has (merged histograms for the
 * percentiles); a service that is not an LLM engine gets none of them; a
 * figure with no data is "no data" / null, never 0.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <jansson.h>

#include "compare.h"
#include "metrics.h"
#include "results_json.h"
#include "scenario.h"
#include "testutil.h"

static char dir[256];

static int setup(void **state)
{
    (void)state;
    return test_tmpdir(dir, sizeof dir, "fs-llm-outputs");
}

static int teardown(void **state)
{
    (void)state;
    return test_rmdir(dir);
}

#define ENGINE(PROMPT, MAXLEN)                                                                                  \
    "\"batching\": {\"kind\": \"continuous\", \"model\": \"Llama-3-8B\","                                     \
    " \"step_time\": {\"linear\": {\"c0\": \"6ms\", \"c_prefill\": \"0.06ms\", \"c_decode\": \"0.08ms\","      \
    " \"c_kv\": \"0.00001ms\"}}, \"prompt_tokens\": " PROMPT ","                                               \
    " \"output_tokens\": {\"lognormal\": {\"median\": 60, \"sigma\": 0.5}}, \"max_model_len\": " MAXLEN "}"

#define PROMPTS "{\"lognormal\": {\"median\": 300, \"sigma\": 0.6}}"

/* An LLM chat service and a plain service u, on H100s and on A100s (the
 * price differs, so cost per million tokens does). */
#define TWO_POLICIES                                                                                         \
    "{\"schema\": \"fleetsim/1\", \"horizon\": 300, \"warmup\": 30, \"seed\": 7, \"replications\": 3,"      \
    " \"window\": \"1m\","                                                                                   \
    " \"policies\": {"                                                                                       \
    "   \"h100\": {\"pools\": [{\"name\": \"p\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 4}]},"               \
    "   \"a100\": {\"pools\": [{\"name\": \"p\", \"gpu\": \"A100-SXM4-80GB\", \"gpus\": 4}]}},"             \
    " \"services\": ["                                                                                       \
    "   {\"name\": \"chat\", \"arrivals\": {\"poisson_rps\": 6}, \"replicas\": 2, " ENGINE(PROMPTS, "4096")  \
    ",    \"slo\": {\"ttft_p99_ms\": 1000, \"tpot_p99_ms\": 60}},"                                          \
    "   {\"name\": \"u\", \"arrivals\": {\"poisson_rps\": 20},"                                             \
    "    \"service_time\": {\"deterministic\": {\"value\": 0.02}}, \"replicas\": 2}]}"

/* Every prompt is longer than the model takes: every request is refused,
 * no first token is ever produced. */
#define NO_DATA                                                                                              \
    "{\"schema\": \"fleetsim/1\", \"horizon\": 120, \"warmup\": 10, \"seed\": 5, \"replications\": 2,"      \
    " \"window\": \"1m\", \"pools\": [{\"name\": \"p\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 1}],"         \
    " \"services\": [{\"name\": \"chat\", \"arrivals\": {\"poisson_rps\": 2}, \"replicas\": 1, "           \
    ENGINE("{\"deterministic\": {\"value\": 500}}", "200") ", \"slo\": {\"ttft_p99_ms\": 1000}}]}"

/* No LLM service at all. */
#define PLAIN                                                                                                \
    "{\"schema\": \"fleetsim/1\", \"horizon\": 120, \"warmup\": 10, \"seed\": 5, \"window\": \"1m\","      \
    " \"pools\": [{\"name\": \"p\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 1}],"                              \
    " \"services\": [{\"name\": \"u\", \"arrivals\": {\"poisson_rps\": 20},"                               \
    " \"service_time\": {\"deterministic\": {\"value\": 0.02}}, \"replicas\": 1}]}"

static json_t *service_json(json_t *res, size_t policy, size_t service)
{
    return json_array_get(json_object_get(json_array_get(json_object_get(res, "policies"), policy), "services"),
                          service);
}

static double get(json_t *o, const char *a, const char *b)
{
    json_t *v = json_object_get(o, a);
    if (b)
        v = json_object_get(v, b);
    assert_true(json_is_number(v));
    return json_number_value(v);
}

/* results.json's llm block: the percentiles are the merged histograms'
 * (the definition every output shares), the token figures the mean of the
 * replications' own, with CIs; u has no block; the batching block says
 * "continuous". */
static void test_json_block(void **state)
{
    (void)state;
    fs_scenario *s = test_scenario("%s", TWO_POLICIES);
    fs_results *r = test_run(s);
    json_t *res = fs_results_json(r, false);
    assert_non_null(res);
    for (size_t p = 0; p < 2; p++) {
        json_t *llm = json_object_get(service_json(res, p, 0), "llm");
        assert_non_null(llm);
        fs_percentile ttft, tpot;
        assert_int_equal(fs_results_percentile(r, p, fs_results_ttft_hist, 0, 0.99, 1e-6, &ttft), 0);
        assert_int_equal(fs_results_percentile(r, p, fs_results_tpot_hist, 0, 0.99, 1e-6, &tpot), 0);
        assert_false(isnan(ttft.value));
        assert_true(get(llm, "ttft_ms", "p99") == ttft.value);
        assert_true(get(llm, "tpot_ms", "p99") == tpot.value);
        assert_true(get(llm, "ttft_ms", "p99_ci95") >= 0);
        double sum = 0;
        for (uint32_t k = 0; k < 3; k++) {
            double fig[FS_LFIG_COUNT];
            fs_results_llm_figures(r, p, k, 0, fig);
            sum += fig[FS_LFIG_TOKENS_PER_S];
        }
        assert_true(fabs(get(llm, "tokens_per_s", NULL) - sum / 3) <= 1e-9 * sum);
        assert_true(get(llm, "tokens_per_s", NULL) > 0);
        assert_true(json_is_number(json_object_get(llm, "tokens_per_s_ci95")));
        assert_string_equal(json_string_value(json_object_get(json_object_get(llm, "ttft_slo"), "verdict")),
                            ttft.value <= 1000 ? "met" : "missed");
        assert_string_equal(
            json_string_value(json_object_get(json_object_get(service_json(res, p, 0), "batching"), "kind")),
            "continuous");
        assert_null(json_object_get(service_json(res, p, 1), "llm"));
        printf("  %s: TTFT p99 %.1f ms, TPOT p99 %.2f ms, %.0f tokens/s, %.3g USD per million tokens\n",
               p ? "a100" : "h100", ttft.value, tpot.value, sum / 3, get(llm, "cost_per_million_tokens", NULL));
    }
    json_decref(res);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

/* The sweep/plan metrics: each run's ttft_p99 is its replication's, the
 * summary's the merged histogram's; token figures are there; u has none. */
static void test_metrics(void **state)
{
    (void)state;
    fs_scenario *s = test_scenario("%s", TWO_POLICIES);
    fs_results *r = test_run(s);
    fs_metrics runs[3];
    fs_error err;
    for (uint32_t k = 0; k < 3; k++)
        assert_int_equal(fs_metrics_from_run(r, 0, k, &runs[k], &err), 0);
    fs_metric_row row;
    assert_int_equal(fs_metric_row_summarize(runs, 3, &row, &err), 0);
    fs_percentile ttft;
    assert_int_equal(fs_results_percentile(r, 0, fs_results_ttft_hist, 0, 0.99, 1e-6, &ttft), 0);
    size_t at = fs_metric_row_find(&row, "service:chat.ttft_p99");
    assert_true(at != SIZE_MAX);
    assert_true(row.value[at] == ttft.value);
    assert_false(isnan(row.ci95[at]));
    const char *names[] = {"ttft_p50", "tpot_p50", "tpot_p99", "tokens_per_s", "tokens_per_gpu_s",
                           "cost_per_million_tokens", "goodput", "kv_occupancy", "mean_running", "preemptions"};
    char name[64];
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        snprintf(name, sizeof name, "service:chat.%s", names[i]);
        assert_true(fs_metric_row_find(&row, name) != SIZE_MAX);
        snprintf(name, sizeof name, "service:u.%s", names[i]);
        assert_true(fs_metric_row_find(&row, name) == SIZE_MAX);
    }
    assert_true(fs_metric_row_find(&row, "service:u.ttft_p99") == SIZE_MAX);
    /* A run's record goes to JSON and back without losing the histograms. */
    json_t *j = fs_metrics_to_json(&runs[1]);
    fs_metrics back;
    assert_int_equal(fs_metrics_from_json(j, "test", &back, &err), 0);
    json_decref(j);
    fs_metric_row row1, row_back;
    assert_int_equal(fs_metric_row_summarize(&runs[1], 1, &row1, &err), 0);
    assert_int_equal(fs_metric_row_summarize(&back, 1, &row_back, &err), 0);
    at = fs_metric_row_find(&row1, "service:chat.ttft_p99");
    assert_true(row1.value[at] == row_back.value[fs_metric_row_find(&row_back, "service:chat.ttft_p99")]);
    fs_metric_row_fini(&row1);
    fs_metric_row_fini(&row_back);
    fs_metrics_fini(&back);
    fs_metric_row_fini(&row);
    for (uint32_t k = 0; k < 3; k++)
        fs_metrics_fini(&runs[k]);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

/* compare: the LLM rows for chat with the merged percentile and paired
 * differences with a CI; none for u. */
static void test_compare(void **state)
{
    (void)state;
    fs_scenario *s = test_scenario("%s", TWO_POLICIES);
    fs_results *r = test_run(s);
    json_t *cmp = fs_compare_json(r);
    assert_non_null(cmp);
    fs_percentile t0, t1;
    assert_int_equal(fs_results_percentile(r, 0, fs_results_ttft_hist, 0, 0.99, 1e-6, &t0), 0);
    assert_int_equal(fs_results_percentile(r, 1, fs_results_ttft_hist, 0, 0.99, 1e-6, &t1), 0);
    json_t *pol = json_object_get(json_object_get(json_object_get(cmp, "policies"), "a100"), "services");
    assert_true(get(json_object_get(pol, "chat"), "ttft_p99_ms", NULL) == t1.value);
    json_t *diff = json_object_get(json_object_get(json_object_get(cmp, "differences"), "a100"), "services");
    assert_true(fabs(get(json_object_get(diff, "chat"), "ttft_p99_ms", "mean") - (t1.value - t0.value)) < 1e-9);
    const char *keys[] = {"ttft_p99_ms", "tpot_p99_ms", "tokens_per_s", "cost_per_million_tokens", "goodput_pct"};
    for (size_t i = 0; i < 5; i++) {
        assert_non_null(json_object_get(json_object_get(diff, "chat"), keys[i]));
        assert_null(json_object_get(json_object_get(diff, "u"), keys[i]));
    }
    /* A100s cost less per hour: the same tokens cost less. */
    json_t *cell = json_object_get(json_object_get(diff, "chat"), "cost_per_million_tokens");
    assert_true(json_number_value(json_object_get(cell, "mean")) < 0);
    assert_true(json_is_number(json_object_get(cell, "ci95")));
    FILE *fp = fopen(test_path("%s/compare.txt", dir), "w");
    assert_non_null(fp);
    fs_error err;
    assert_int_equal(fs_compare_table(r, fp, &err), 0);
    fclose(fp);
    char *text = test_slurp("%s/compare.txt", dir);
    const char *row = strstr(text, "  TTFT p99 ms");
    assert_non_null(row);
    assert_true(row > strstr(text, "service chat\n") && row < strstr(text, "service u\n"));
    assert_null(strstr(row + strlen("  TTFT p99 ms"), "TTFT p99 ms"));
    free(text);
    json_decref(cmp);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

/* run through the binary: the llm: line, llm_timeseries.csv with a row per
 * (policy, replication, window) of chat only; a scenario without an LLM
 * service has neither, nor an "llm" key. */
static void test_run_outputs(void **state)
{
    (void)state;
    test_write(test_path("%s/two.json", dir), TWO_POLICIES);
    assert_int_equal(test_fleetsim(dir, "compare %s/two.json --no-timing -o %s/two", dir, dir), 0);
    assert_int_equal(test_fleetsim(dir, "run %s/two.json --no-timing", dir), 0);
    char *out = test_slurp("%s/out.txt", dir);
    const char *line = strstr(out, "llm: service chat: TTFT p50 ");
    assert_non_null(line);
    assert_non_null(strstr(line, "(target p99 1000 ms: "));
    assert_non_null(strstr(line, "(target p99 60 ms: "));
    assert_non_null(strstr(line, "tokens/s "));
    assert_null(strstr(out, "llm: service u"));
    free(out);
    char *csv = test_slurp("%s/two/llm_timeseries.csv", dir);
    assert_non_null(csv);
    assert_true(strncmp(csv, "policy,replication,service,window_start_s,window_end_s,ttft_p99_ms,tpot_p99_ms,", 79) ==
                0);
    size_t rows = 0;
    for (const char *c = strchr(csv, '\n'); c && c[1]; c = strchr(c + 1, '\n')) {
        rows++;
        /* "POLICY",REP,"chat",... */
        const char *rep = c + 1 + 7;
        assert_true(strncmp(c + 1, "\"h100\",", 7) == 0 || strncmp(c + 1, "\"a100\",", 7) == 0);
        assert_true(strncmp(rep + 1, ",\"chat\",", 8) == 0);
    }
    assert_null(strstr(csv, "\"u\""));
    /* 2 policies x 3 replications x windows of the measured 270 s (4 whole
     * minutes and the part left). */
    printf("  llm_timeseries.csv: %zu rows\n", rows);
    assert_true(rows > 0 && rows % 6 == 0);
    free(csv);

    test_write(test_path("%s/plain.json", dir), PLAIN);
    assert_int_equal(test_fleetsim(dir, "run %s/plain.json --no-timing -o %s/plain", dir, dir), 0);
    out = test_slurp("%s/out.txt", dir);
    assert_null(strstr(out, "llm:"));
    free(out);
    assert_false(test_exists("%s/plain/llm_timeseries.csv", dir));
    char *json = test_slurp("%s/plain/results.json", dir);
    assert_null(strstr(json, "\"llm\""));
    assert_null(strstr(json, "ttft"));
    free(json);
}

/* No first token ever: every figure that needs one is "no data" / null,
 * the target's verdict "no data", never a 0 ms. */
static void test_no_data(void **state)
{
    (void)state;
    test_write(test_path("%s/nd.json", dir), NO_DATA);
    assert_int_equal(test_fleetsim(dir, "run %s/nd.json --no-timing -o %s/nd", dir, dir), 0);
    char *out = test_slurp("%s/out.txt", dir);
    assert_non_null(strstr(out, "llm: service chat: TTFT p50 no data, p99 no data (target p99 1000 ms: no data); "
                                "TPOT p50 no data, p99 no data;"));
    assert_non_null(strstr(out, "per million tokens no data"));
    free(out);
    json_error_t jerr;
    json_t *res = json_load_file(test_path("%s/nd/results.json", dir), 0, &jerr);
    assert_non_null(res);
    json_t *llm = json_object_get(service_json(res, 0, 0), "llm");
    assert_true(json_is_null(json_object_get(json_object_get(llm, "ttft_ms"), "p99")));
    assert_true(json_is_null(json_object_get(json_object_get(llm, "tpot_ms"), "p50")));
    assert_true(json_is_null(json_object_get(llm, "cost_per_million_tokens")));
    assert_string_equal(json_string_value(json_object_get(json_object_get(llm, "ttft_slo"), "verdict")), "no data");
    json_decref(res);
    char *csv = test_slurp("%s/nd/llm_timeseries.csv", dir);
    /* Each window's TTFT and TPOT cells are empty. */
    const char *row = strchr(csv, '\n') + 1;
    assert_non_null(strstr(row, ",,,"));
    free(csv);
}

/* check gates TTFT p99, TPOT p99 and tokens/s: a run checks against itself,
 * and against a baseline whose TTFT p99 was half as long it is WORSE. */
static void test_check(void **state)
{
    (void)state;
    test_write(test_path("%s/two.json", dir), TWO_POLICIES);
    assert_int_equal(test_fleetsim(dir, "run %s/two.json --no-timing -o %s/base", dir, dir), 0);
    assert_int_equal(test_fleetsim(dir, "check %s/two.json --baseline %s/base/results.json", dir, dir), 0);
    char *out = test_slurp("%s/out.txt", dir);
    assert_non_null(strstr(out, "| h100 | service chat | ttft_p99 |"));
    assert_non_null(strstr(out, "| h100 | service chat | tpot_p99 |"));
    assert_non_null(strstr(out, "| h100 | service chat | tokens_per_s |"));
    assert_null(strstr(out, "| service u | ttft_p99"));
    free(out);
    json_error_t jerr;
    json_t *base = json_load_file(test_path("%s/base/results.json", dir), 0, &jerr);
    assert_non_null(base);
    json_t *ttft = json_object_get(json_object_get(service_json(base, 0, 0), "llm"), "ttft_ms");
    json_object_set_new(ttft, "p99", json_real(json_number_value(json_object_get(ttft, "p99")) / 2));
    assert_int_equal(json_dump_file(base, test_path("%s/half.json", dir), 0), 0);
    json_decref(base);
    assert_int_equal(test_fleetsim(dir, "check %s/two.json --baseline %s/half.json", dir, dir), 1);
    out = test_slurp("%s/out.txt", dir);
    const char *row = strstr(out, "| h100 | service chat | ttft_p99 |");
    assert_non_null(row);
    assert_true(strstr(row, "WORSE") < strchr(row, '\n') && strstr(row, "WORSE"));
    free(out);
}

/* `fleetsim plan` over replica counts with a TTFT p99 constraint: a
 * reachable one finds a fleet meeting it, an impossible one none. */
static void test_plan(void **state)
{
    (void)state;
    test_write(test_path("%s/two.json", dir), TWO_POLICIES);
    assert_int_equal(test_fleetsim(dir, "plan %s/two.json --vary 'services[0].replicas=1..2' --vary policy=h100 "
                                        "--constraint 'service:chat.ttft_p99<=1s' -r 2 --max-replications 4 -q "
                                        "-o %s/plan1",
                                   dir, dir),
                     0);
    char *out = test_slurp("%s/out.txt", dir);
    assert_non_null(strstr(out, "cheapest point that meets every constraint"));
    const char *fig = strstr(out, "service:chat.ttft_p99 = ");
    assert_non_null(fig);
    double v;
    assert_int_equal(sscanf(fig, "service:chat.ttft_p99 = %lf", &v), 1);
    assert_true(v <= 1000);
    free(out);
    test_fleetsim(dir, "plan %s/two.json --vary 'services[0].replicas=1..2' --vary policy=h100 "
                       "--constraint 'service:chat.ttft_p99<=1ms' -r 2 --max-replications 2 -q -o %s/plan2",
                  dir, dir);
    out = test_slurp("%s/out.txt", dir);
    assert_null(strstr(out, "cheapest point that meets every constraint"));
    assert_non_null(strstr(out, "no point meets every constraint"));
    free(out);
}

/* The review report: the LLM rows and charts for chat only; none without
 * an LLM service. */
static void test_report(void **state)
{
    (void)state;
    test_write(test_path("%s/two.json", dir), TWO_POLICIES);
    assert_int_equal(test_fleetsim(dir, "compare %s/two.json --no-timing -o %s/rep", dir, dir), 0);
    assert_int_equal(test_fleetsim(dir, "report %s/rep", dir), 0);
    char *md = test_slurp("%s/rep/report/report.md", dir);
    assert_non_null(md);
    assert_non_null(strstr(md, "| chat | TTFT p99 ms |"));
    assert_non_null(strstr(md, "| chat | tokens/s |"));
    assert_null(strstr(md, "| u | TTFT p99 ms |"));
    free(md);
    /* The LLM charts' data: TTFT/TPOT by hour with the targets, and the
     * batch-size distribution, whose shares add up to 100% per policy. */
    const char *charts[] = {"ttft_by_hour", "tpot_by_hour", "batch_sizes", "kv_occupancy"};
    for (size_t i = 0; i < 4; i++)
        assert_true(test_nonempty("%s/rep/report/%s.csv", dir, charts[i]));
    char *ttft = test_slurp("%s/rep/report/ttft_by_hour.csv", dir);
    assert_non_null(strstr(ttft, "time_of_day,hour,\"h100\",\"a100\",ttft_target_ms\n00:00,0,"));
    assert_non_null(strstr(ttft, ",1000\n"));
    free(ttft);
    char *sizes = test_slurp("%s/rep/report/batch_sizes.csv", dir);
    double share[2] = {0, 0};
    for (const char *c = strchr(sizes, '\n'); c && c[1]; c = strchr(c + 1, '\n')) {
        double a = 0, b = 0;
        unsigned size;
        assert_int_equal(sscanf(c + 1, "%u,%lf,%lf", &size, &a, &b), 3);
        share[0] += a;
        share[1] += b;
    }
    assert_true(fabs(share[0] - 100) < 1e-6 && fabs(share[1] - 100) < 1e-6);
    free(sizes);
    test_write(test_path("%s/plain.json", dir), PLAIN);
    assert_int_equal(test_fleetsim(dir, "run %s/plain.json --no-timing -o %s/plainrep", dir, dir), 0);
    assert_int_equal(test_fleetsim(dir, "report %s/plainrep", dir), 0);
    md = test_slurp("%s/plainrep/report/report.md", dir);
    assert_non_null(md);
    assert_null(strstr(md, "TTFT"));
    assert_null(strstr(md, "tokens"));
    free(md);
    for (size_t i = 0; i < 4; i++)
        assert_false(test_exists("%s/plainrep/report/%s.csv", dir, charts[i]));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_block),  cmocka_unit_test(test_metrics), cmocka_unit_test(test_compare),
        cmocka_unit_test(test_run_outputs), cmocka_unit_test(test_no_data), cmocka_unit_test(test_check),
        cmocka_unit_test(test_plan),        cmocka_unit_test(test_report),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

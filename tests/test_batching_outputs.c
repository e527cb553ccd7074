/*
 * Dynamic batching's figures in every output (issue 16, point 3): compare's
 * mean-batch-size row, the review report's row, the sweep and plan metrics
 * (service:NAME.batch_mean, .batch_p95) and the many-services table line
 * all carry the one definition results.json has (every batch of every
 * replication pooled), and a service without batching gets none of them.
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
    return test_tmpdir(dir, sizeof dir, "fs-batching-outputs");
}

static int teardown(void **state)
{
    (void)state;
    return test_rmdir(dir);
}

#define BATCH_8 \
    "\"batching\": {\"kind\": \"dynamic\", \"max_batch_size\": 8, \"max_queue_delay\": \"5ms\"," \
    " \"batch_time\": {\"linear\": {\"base\": \"10ms\", \"per_request\": \"2.5ms\"}}}"

/* A batched service b and an unbatched one u under two policies: whole
 * GPUs, and MIG slices whose slower batches fill up more, so the paired
 * difference of the mean batch size is not zero. */
#define TWO_POLICIES                                                                                         \
    "{\"schema\": \"fleetsim/1\", \"horizon\": 300, \"warmup\": 30, \"seed\": 11, \"replications\": 3,"     \
    " \"window\": \"1m\","                                                                                   \
    " \"policies\": {"                                                                                       \
    "   \"whole\": {\"pools\": [{\"name\": \"p\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 4}]},"              \
    "   \"slices\": {\"pools\": [{\"name\": \"p\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 2,"               \
    "                \"mig\": [\"3g.40gb\", \"3g.40gb\"]}]}},"                                               \
    " \"services\": ["                                                                                       \
    "   {\"name\": \"b\", \"arrivals\": {\"poisson_rps\": 150}, " BATCH_8 ", \"replicas\": 2},"           \
    "   {\"name\": \"u\", \"arrivals\": {\"poisson_rps\": 20},"                                             \
    "    \"service_time\": {\"deterministic\": {\"value\": 0.02}}, \"replicas\": 2}]}"

/* o.a.b.services.c.d, or its "mean" for a difference's {mean, ci95}. */
static double num_at(json_t *o, const char *a, const char *b, const char *c, const char *d)
{
    json_t *v = json_object_get(json_object_get(json_object_get(json_object_get(json_object_get(o, a), b), "services"), c), d);
    if (json_is_object(v))
        v = json_object_get(v, "mean");
    assert_true(json_is_number(v));
    return json_number_value(v);
}

/* compare.json and results.json agree on every policy's mean batch size;
 * the difference is the merged figures' difference, with a CI from the
 * three replications; u has no batch key at all. */
static void test_compare_agrees(void **state)
{
    (void)state;
    fs_scenario *s = test_scenario("%s", TWO_POLICIES);
    fs_results *r = test_run(s);
    json_t *cmp = fs_compare_json(r), *res = fs_results_json(r, false);
    assert_non_null(cmp);
    assert_non_null(res);
    const char *names[2] = {"whole", "slices"};
    double mean[2];
    for (size_t p = 0; p < 2; p++) {
        mean[p] = fs_results_batch_figures(r, p, 0).mean;
        assert_false(isnan(mean[p]));
        assert_true(num_at(cmp, "policies", names[p], "b", "batch_mean_size") == mean[p]);
        json_t *svc = json_array_get(json_object_get(json_array_get(json_object_get(res, "policies"), p), "services"), 0);
        assert_true(json_number_value(json_object_get(json_object_get(svc, "batching"), "mean_size")) == mean[p]);
        json_t *u = json_object_get(json_object_get(json_object_get(json_object_get(cmp, "policies"), names[p]),
                                                    "services"),
                                    "u");
        assert_non_null(u);
        assert_null(json_object_get(u, "batch_mean_size"));
    }
    printf("  mean batch size: whole %.4f, slices %.4f\n", mean[0], mean[1]);
    assert_true(mean[1] != mean[0]);
    double diff = num_at(cmp, "differences", "slices", "b", "batch_mean_size");
    assert_true(fabs(diff - (mean[1] - mean[0])) < 1e-12);
    json_t *cell = json_object_get(
        json_object_get(json_object_get(json_object_get(json_object_get(cmp, "differences"), "slices"), "services"),
                        "b"),
        "batch_mean_size");
    assert_true(json_is_number(json_object_get(cell, "ci95")));

    /* The table: one "mean batch size" row (b's), and no 0 anywhere for u. */
    FILE *fp = fopen(test_path("%s/compare.txt", dir), "w");
    assert_non_null(fp);
    fs_error err;
    assert_int_equal(fs_compare_table(r, fp, &err), 0);
    fclose(fp);
    char *text = test_slurp("%s/compare.txt", dir);
    const char *row = strstr(text, "  mean batch size");
    assert_non_null(row);
    assert_null(strstr(row + strlen("  mean batch size"), "mean batch size"));
    assert_true(row > strstr(text, "service b\n") && row < strstr(text, "service u\n"));
    free(text);
    json_decref(cmp);
    json_decref(res);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

/* The sweep/plan metrics: each run's batch_mean is its replication's, the
 * summary's is results.json's (batches pooled), batch_p95 is there, and u
 * has neither. */
static void test_metrics_agree(void **state)
{
    (void)state;
    fs_scenario *s = test_scenario("%s", TWO_POLICIES);
    fs_results *r = test_run(s);
    for (size_t p = 0; p < 2; p++) {
        fs_metrics runs[3];
        fs_error err;
        for (uint32_t k = 0; k < 3; k++) {
            assert_int_equal(fs_metrics_from_run(r, p, k, &runs[k], &err), 0);
            fs_batch_figures f = fs_results_batch_rep_figures(r, p, k, 0);
            size_t at = SIZE_MAX, at_p95 = SIZE_MAX;
            for (size_t i = 0; i < runs[k].n_values; i++) {
                if (strcmp(runs[k].names[i], "service:b.batch_mean") == 0)
                    at = i;
                if (strcmp(runs[k].names[i], "service:b.batch_p95") == 0)
                    at_p95 = i;
            }
            assert_true(at != SIZE_MAX && at_p95 != SIZE_MAX);
            assert_true(runs[k].values[at] == f.mean && runs[k].values[at_p95] == f.p95);
        }
        fs_metric_row row;
        assert_int_equal(fs_metric_row_summarize(runs, 3, &row, &err), 0);
        size_t at = fs_metric_row_find(&row, "service:b.batch_mean");
        assert_true(at != SIZE_MAX);
        double pooled = fs_results_batch_figures(r, p, 0).mean;
        printf("  %s: sweep batch_mean %.6f (CI %.3g), results.json %.6f\n", p ? "slices" : "whole",
               row.value[at], row.ci95[at], pooled);
        assert_true(fabs(row.value[at] - pooled) <= 1e-12 * pooled);
        assert_false(isnan(row.ci95[at]));
        assert_true(fs_metric_row_find(&row, "service:b.batch_p95") != SIZE_MAX);
        assert_true(fs_metric_row_find(&row, "service:u.batch_mean") == SIZE_MAX);
        assert_true(fs_metric_row_find(&row, "service:u.batch_p95") == SIZE_MAX);
        fs_metric_row_fini(&row);
        for (uint32_t k = 0; k < 3; k++)
            fs_metrics_fini(&runs[k]);
    }
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

/* `fleetsim plan` of the two policies under one constraint; its exit status. */
static int plan(const char *constraint, const char *out)
{
    return test_fleetsim(dir, "plan %s/two.json --vary policy=whole,slices --constraint '%s' -r 2 "
                              "--max-replications 2 -q -o %s/%s",
                         dir, constraint, dir, out);
}

/* A plan constraint names the figure: a bound every point meets is met, one
 * none meets is not (through the binary, as a user writes it). */
static void test_plan_constraint(void **state)
{
    (void)state;
    test_write(test_path("%s/two.json", dir), TWO_POLICIES);
    assert_int_equal(plan("service:b.batch_mean>=1", "plan1"), 0);
    char *out = test_slurp("%s/out.txt", dir);
    assert_non_null(strstr(out, "cheapest point that meets every constraint"));
    free(out);
    plan("service:b.batch_mean>=9", "plan2");
    out = test_slurp("%s/out.txt", dir);
    assert_null(strstr(out, "cheapest point that meets every constraint"));
    free(out);
    /* u does not batch: the figure does not exist, so the plan is refused
     * rather than judged on a made-up 0. */
    assert_int_equal(plan("service:u.batch_mean>=1", "plan3"), 2);
    test_stderr_has(dir, "\"service:u.batch_mean\": no such figure");
}

/* The review report has the row for b only; a scenario without batching
 * has none. */
static void test_report_row(void **state)
{
    (void)state;
    test_write(test_path("%s/two.json", dir), TWO_POLICIES);
    assert_int_equal(test_fleetsim(dir, "compare %s/two.json --no-timing -o %s/cmp", dir, dir), 0);
    assert_int_equal(test_fleetsim(dir, "report %s/cmp", dir), 0);
    char *md = test_slurp("%s/cmp/report/report.md", dir);
    assert_non_null(md);
    const char *row = strstr(md, "| b | mean batch size |");
    assert_non_null(row);
    assert_null(strstr(md, "| u | mean batch size |"));
    free(md);
    assert_int_equal(test_fleetsim(dir, "compare %s/scenarios/diurnal-chat.json --no-timing -o %s/plain",
                                   FS_SOURCE_DIR, dir),
                     0);
    assert_int_equal(test_fleetsim(dir, "report %s/plain", dir), 0);
    md = test_slurp("%s/plain/report/report.md", dir);
    assert_non_null(md);
    assert_null(strstr(md, "batch size"));
    free(md);
}

/* Past 12 services the run table summarizes: one batches: line with the
 * range of mean batch sizes, none without batching. */
static void many_services(const char *path, unsigned batched)
{
    char json[16384];
    size_t n = (size_t)snprintf(json, sizeof json,
                                "{\"schema\": \"fleetsim/1\", \"horizon\": 120, \"warmup\": 10, \"seed\": 5,"
                                " \"pools\": [{\"name\": \"p\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 14}],"
                                " \"services\": [");
    for (unsigned i = 0; i < 14; i++)
        n += (size_t)snprintf(json + n, sizeof json - n,
                              "%s{\"name\": \"s%u\", \"arrivals\": {\"poisson_rps\": %u}, %s, \"replicas\": 1}",
                              i ? ", " : "", i, 20 + 20 * i,
                              i < batched ? BATCH_8 : "\"service_time\": {\"deterministic\": {\"value\": 0.01}}");
    snprintf(json + n, sizeof json - n, "]}");
    test_write(path, json);
}

static void test_many_services_line(void **state)
{
    (void)state;
    many_services(test_path("%s/many.json", dir), 3);
    assert_int_equal(test_fleetsim(dir, "run %s/many.json", dir), 0);
    char *out = test_slurp("%s/out.txt", dir);
    assert_non_null(strstr(out, "14 services:"));
    const char *line = strstr(out, "batches: 3 batched services: mean batch size from ");
    assert_non_null(line);
    /* The range's ends are the services' own figures (results.json's). */
    double lo, hi;
    char lo_name[8], hi_name[8];
    assert_int_equal(sscanf(line, "batches: 3 batched services: mean batch size from %lf (%7[^)]) to %lf (%7[^)])", &lo,
                            lo_name, &hi, hi_name),
                     4);
    printf("  %.2f (%s) to %.2f (%s)\n", lo, lo_name, hi, hi_name);
    assert_true(lo <= hi);
    assert_true(strcmp(lo_name, "s0") == 0 || strcmp(lo_name, "s1") == 0 || strcmp(lo_name, "s2") == 0);
    free(out);
    many_services(test_path("%s/many0.json", dir), 0);
    assert_int_equal(test_fleetsim(dir, "run %s/many0.json", dir), 0);
    out = test_slurp("%s/out.txt", dir);
    assert_non_null(strstr(out, "14 services:"));
    assert_null(strstr(out, "batches:"));
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compare_agrees),  cmocka_unit_test(test_metrics_agree),
        cmocka_unit_test(test_plan_constraint), cmocka_unit_test(test_report_row),
        cmocka_unit_test(test_many_services_line),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

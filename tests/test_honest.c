/*
 * Results that never claim what did not happen (issue 15, points 1, 3, 5
 * and 9): a latency with no completion is no data (null, an empty cell,
 * "no data"), never 0; requests unfinished past their SLO at the horizon are
 * misses, in the verdict and in the breach windows; a verdict never says
 * "meets" on no data; a gang no pool can hold is refused, not shown as a
 * short wait, nor one larger than every pool the policy lets its stream use;
 * jobs still waiting at the horizon count as censored waits, and
 * training conserves its jobs; every output gives a percentile across
 * replications the same value (the merged histogram's); a queue bounded by
 * queue_limit is not "unbounded", and its drop fraction has a CI; compare
 * claims no breach of an SLO that does not exist, and marks a figure (and a
 * difference) that has not settled as the run table does.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <jansson.h>

#include "compare.h"
#include "metrics.h"
#include "results_json.h"
#include "testutil.h"

static char dir[256];

static int setup(void **state)
{
    (void)state;
    return test_tmpdir(dir, sizeof dir, "fleetsim-honest");
}

static int teardown(void **state)
{
    (void)state;
    return test_rmdir(dir);
}

/* 2 h of service per request in a 1 h run: nothing completes.  With 8
 * slots and 1 arrival/s most requests wait; with 2000 slots and one arrival
 * every 20 s all are in service.  Either way they are soon past 500 ms. */
#define NEVER_DONE_FMT                                                                                    \
    "{\"schema\": \"fleetsim/1\", \"name\": \"never done\", \"horizon\": \"1h\", \"warmup\": \"0s\","     \
    " \"window\": \"10m\", \"seed\": 1,"                                                                  \
    " \"pools\": [{\"name\": \"p\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 2}],"                           \
    " \"services\": [{\"name\": \"slow\", \"arrivals\": {\"poisson_rps\": %g},"                           \
    "   \"service_time\": {\"deterministic\": {\"value\": \"2h\"}},"                                      \
    "   \"replicas\": {\"count\": 2, \"concurrency\": %d}, \"slo\": {\"p99_ms\": 500, \"window\": \"10m\"}}]}"
#define NEVER_DONE NEVER_DONE_FMT, 1.0, 4

static json_t *load_json(const char *path)
{
    json_error_t e;
    json_t *doc = json_load_file(path, 0, &e);
    if (!doc)
        fail_msg("%s: %s", path, e.text);
    return doc;
}

static json_t *service0(json_t *results)
{
    return json_array_get(json_object_get(json_array_get(json_object_get(results, "policies"), 0), "services"), 0);
}

/* ---- a pool that never held a GPU: utilization and headroom are no data ---- */

static void test_pool_without_gpus_has_no_data(void **state)
{
    (void)state;
    fs_scenario *s = test_scenario(
        "{\"schema\": \"fleetsim/1\", \"name\": \"el\", \"horizon\": \"2h\", \"warmup\": \"10m\", \"replications\": 2,"
        " \"pools\": [{\"name\": \"serve\", \"gpu\": \"L4-24GB\", \"gpus\": 2},"
        "  {\"name\": \"spare\", \"gpu\": \"L4-24GB\", \"gpus\": 0, \"autoscale\": {\"min\": 0, \"max\": 4,"
        "   \"provision\": {\"deterministic\": {\"value\": \"60s\"}}, \"idle\": \"10m\"}}],"
        " \"services\": [{\"name\": \"s\", \"pool\": \"serve\", \"arrivals\": {\"poisson_rps\": 5},"
        "  \"service_time\": {\"exponential\": {\"mean\": \"100ms\"}}, \"replicas\": 2}]}");
    fs_results *r = test_run(s);
    fs_pool_summary spare, serve, fleet;
    assert_int_equal(fs_results_pool_summary(r, 0, 1, &spare), 0);
    assert_int_equal(fs_results_pool_summary(r, 0, 0, &serve), 0);
    assert_int_equal(fs_results_fleet_summary(r, 0, &fleet), 0);
    assert_true(spare.gpu_hours.mean == 0);
    /* nothing was provisioned: no utilization (not 0%), no headroom (not 100%) */
    assert_true(isnan(spare.utilization.mean));
    assert_true(isnan(spare.peak_headroom.mean));
    /* the pools that held GPUs are measured, and the fleet is theirs */
    assert_true(serve.utilization.mean > 0 && serve.utilization.mean < 1);
    assert_true(serve.peak_headroom.mean > 0 && serve.peak_headroom.mean < 1);
    assert_true(fabs(fleet.utilization.mean - serve.utilization.mean) < 1e-12);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

/* ---- 1. no completions: no data, misses, breached windows, no "meets" ---- */

static void test_unfinished_requests_are_misses(void **state)
{
    (void)state;
    fs_scenario *s = test_scenario(NEVER_DONE);
    fs_results *r = test_run(s);
    const fs_service_rep *rep = &r->policies[0].reps[0].services[0];
    assert_true(rep->in_flight_end > 8 * 100); /* most are waiting */
    fs_service_summary sum;
    assert_int_equal(fs_results_service_summary(r, 0, 0, &sum), 0);
    printf("  completed %llu, in flight at the end %llu, unfinished past the SLO %llu, breach windows %u of %u\n",
           (unsigned long long)rep->completed, (unsigned long long)rep->in_flight_end,
           (unsigned long long)rep->unfinished_past_slo[0], rep->slo_breach_windows, rep->slo_windows);
    assert_int_equal(rep->completed, 0);
    /* no data, never 0 */
    assert_true(isnan(sum.merged_p50_ms) && isnan(sum.merged_p99_ms) && isnan(sum.merged_mean_ms));
    assert_true(isnan(sum.p99_ms.mean));
    /* everything in flight at the horizon arrived more than 500 ms before it
     * (arrivals of the last half second aside) */
    assert_true(rep->unfinished_past_slo[0] > 0);
    assert_true(rep->unfinished_past_slo[0] <= rep->in_flight_end);
    assert_true(rep->unfinished_past_slo[0] + 10 > rep->in_flight_end);
    assert_int_equal(sum.slo_verdict[0], FS_SLO_MISSED);
    assert_true(isinf(sum.slo_quantile_ms[0]));
    /* every window had requests sitting past the target */
    assert_int_equal(rep->slo_windows, 6);
    assert_int_equal(rep->slo_breach_windows, 6);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

/* All of them in service, none waiting: still misses, still breaches. */
static void test_unfinished_in_service_are_misses(void **state)
{
    (void)state;
    fs_scenario *s = test_scenario(NEVER_DONE_FMT, 0.05, 1000);
    fs_results *r = test_run(s);
    const fs_service_rep *rep = &r->policies[0].reps[0].services[0];
    printf("  in service at the end %llu (peak queue %llu), unfinished past the SLO %llu, breach windows %u of %u\n",
           (unsigned long long)rep->in_flight_end, (unsigned long long)rep->peak_queue,
           (unsigned long long)rep->unfinished_past_slo[0], rep->slo_breach_windows, rep->slo_windows);
    assert_int_equal(rep->peak_queue, 0);
    assert_true(rep->in_flight_end > 100);
    assert_int_equal(rep->unfinished_past_slo[0], rep->in_flight_end); /* none arrived in the last 500 ms */
    assert_int_equal(rep->slo_breach_windows, 6);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

/* The whole-run verdict on p99 <= 500 ms with 1000 completions of 100 ms:
 * 5 requests unfinished past 500 ms leave rank ceil(0.99 x 1005) = 995
 * among the completions (met); 20 put it at 1010, among the unfinished
 * (missed, the quantile past any threshold). */
static void test_verdict_counts_unfinished(void **state)
{
    (void)state;
    fs_scenario *s = test_scenario(NEVER_DONE_FMT, 1.0, 4);
    fs_results *r;
    assert_int_equal(fs_results_create(s, NULL, 0, &r), 0);
    fs_rep_result *rep = &r->policies[0].reps[0];
    assert_int_equal(fs_rep_result_init(rep, s, 0, r->n_tenants), 0);
    for (int k = 0; k < 1000; k++)
        fs_hist_record(&rep->services[0].latency, 100000000);
    assert_int_equal(fs_results_seal_rep(r, 0, 0), 0);
    const uint64_t late[] = {0, 5, 10, 11, 20};
    const fs_slo_verdict want[] = {FS_SLO_MET, FS_SLO_MET, FS_SLO_MET, FS_SLO_MISSED, FS_SLO_MISSED};
    for (size_t i = 0; i < sizeof late / sizeof *late; i++) {
        rep->services[0].unfinished_past_slo[0] = late[i];
        fs_service_summary sum;
        assert_int_equal(fs_results_service_summary(r, 0, 0, &sum), 0);
        printf("  %llu unfinished: %s, quantile %g ms\n", (unsigned long long)late[i],
               sum.slo_verdict[0] == FS_SLO_MET ? "met" : "missed", sum.slo_quantile_ms[0]);
        assert_int_equal(sum.slo_verdict[0], want[i]);
        assert_true(want[i] == FS_SLO_MET ? fabs(sum.slo_quantile_ms[0] - 100) < 1 : isinf(sum.slo_quantile_ms[0]));
        assert_true(fabs(sum.merged_p99_ms - 100) < 1); /* the completions' own p99 is unchanged */
    }
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

/* The same through the binary: results.json, the CSV summary, the table and
 * the report all say it. */
static void test_unfinished_through_every_output(void **state)
{
    (void)state;
    char json[2048];
    snprintf(json, sizeof json, NEVER_DONE);
    test_write(test_path("%s/never.json", dir), json);
    assert_int_equal(test_fleetsim(dir, "run %s/never.json --out %s/never", dir, dir), 0);
    char *table = test_slurp("%s/out.txt", dir);
    assert_non_null(table);
    assert_non_null(strstr(table, "no data"));
    assert_non_null(strstr(table, "SLO: service slow: p99 <= 500 ms: missed;"));
    free(table);

    json_t *doc = load_json(test_path("%s/never/results.json", dir));
    json_t *svc = service0(doc);
    assert_true(json_is_null(json_object_get(json_object_get(svc, "latency_ms"), "p99")));
    assert_true(json_is_null(json_object_get(json_object_get(svc, "latency_ms"), "mean")));
    json_t *slo = json_object_get(svc, "slo");
    assert_string_equal(json_string_value(json_object_get(json_object_get(slo, "verdict"), "p99_ms")), "missed");
    assert_true(json_is_false(json_object_get(slo, "meets")));
    assert_true(json_number_value(json_object_get(json_object_get(slo, "unfinished_past_slo"), "p99_ms")) > 0);
    assert_true(json_number_value(json_object_get(svc, "slo_breach_windows")) == 6);
    json_decref(doc);

    /* empty cells, not zeros: mean_ms .. p999_ms of the one row */
    assert_int_equal(test_fleetsim(dir, "run %s/never.json --format csv", dir), 0);
    char *csv = test_slurp("%s/out.txt", dir);
    assert_non_null(csv);
    const char *row = strchr(csv, '\n') + 1;
    int commas = 0;
    const char *cell = row;
    for (; *cell && commas < 5; cell++)
        commas += *cell == ',';
    assert_memory_equal(cell, ",,,,,", 5); /* mean, p50, p95, p99, p999 empty (and no CI) */
    free(csv);

    assert_int_equal(test_fleetsim(dir, "report %s/never --out %s/never-report", dir, dir), 0);
    char *md = test_slurp("%s/never-report/report.md", dir);
    assert_non_null(md);
    assert_null(strstr(md, "meets its SLO"));
    assert_non_null(strstr(md, "misses the SLO of slow (p99: "));
    assert_non_null(strstr(md, "unfinished past 500 ms at the horizon"));
    assert_non_null(strstr(md, "–: no data"));
    free(md);
}

/* No traffic at all: nothing to judge, and the verdict says so. */
static void test_no_data_is_not_meets(void **state)
{
    (void)state;
    test_write(test_path("%s/idle.json", dir),
               "{\"schema\": \"fleetsim/1\", \"name\": \"idle\", \"horizon\": \"1h\", \"warmup\": \"0s\","
               " \"window\": \"10m\", \"pools\": [{\"name\": \"p\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 1}],"
               " \"services\": [{\"name\": \"quiet\", \"arrivals\": {\"poisson_rps\": 0},"
               "   \"service_time\": {\"deterministic\": {\"value\": \"1s\"}}, \"replicas\": 1,"
               "   \"slo\": {\"p99_ms\": 500}}]}");
    assert_int_equal(test_fleetsim(dir, "run %s/idle.json --out %s/idle --report %s/idle-report", dir, dir, dir),
                     0);
    json_t *doc = load_json(test_path("%s/idle/results.json", dir));
    json_t *slo = json_object_get(service0(doc), "slo");
    assert_string_equal(json_string_value(json_object_get(json_object_get(slo, "verdict"), "p99_ms")), "no data");
    assert_true(json_is_null(json_object_get(slo, "meets")));
    json_decref(doc);
    char *md = test_slurp("%s/idle-report/report.md", dir);
    assert_non_null(md);
    assert_null(strstr(md, "meets its SLO"));
    assert_non_null(strstr(md, "no data for 1 SLO target"));
    free(md);
    /* and the gate: a baseline and a run with no data never pass as "ok" */
    assert_int_equal(test_fleetsim(dir, "check %s/idle.json --baseline %s/idle/results.json", dir, dir), 1);
    char *out = test_slurp("%s/out.txt", dir);
    assert_non_null(strstr(out, "| p99 | no data | no data | - | WORSE (no data in baseline or current) |"));
    free(out);
}

/* A sweep's run record keeps no data as null and reads it back as NaN, so a
 * plan never sees a 0 ms p99 that would meet any constraint. */
static void test_metrics_keep_no_data(void **state)
{
    (void)state;
    fs_scenario *s = test_scenario(NEVER_DONE);
    fs_results *r = test_run(s);
    fs_metrics m, back;
    fs_error err = {0};
    assert_int_equal(fs_metrics_from_run(r, 0, 0, &m, &err), FS_OK);
    json_t *j = fs_metrics_to_json(&m);
    assert_non_null(j);
    assert_true(json_is_null(json_object_get(json_object_get(j, "values"), "service:slow.p99_ms")));
    assert_int_equal(fs_metrics_from_json(j, "test", &back, &err), FS_OK);
    fs_metric_row row;
    assert_int_equal(fs_metric_row_summarize(&back, 1, &row, &err), FS_OK);
    size_t at = fs_metric_row_find(&row, "service:slow.p99_ms");
    assert_true(at != SIZE_MAX);
    assert_true(isnan(row.value[at]));
    at = fs_metric_row_find(&row, "service:slow.unfinished_past_slo");
    assert_true(at != SIZE_MAX && row.value[at] > 0);
    fs_metric_row_fini(&row);
    fs_metrics_fini(&back);
    json_decref(j);
    fs_metrics_fini(&m);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

/* ---- 3. gangs that can never start; censored waits; conservation ---- */

#define TEN_GPUS                                                                                      \
    "{\"schema\": \"fleetsim/1\", \"horizon\": \"6h\", \"warmup\": \"%s\", \"window\": \"10m\", \"seed\": 2," \
    " \"replications\": %d,"                                                                           \
    " \"pools\": [{\"name\": \"p\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": %d}],"                        \
    " \"services\": [{\"name\": \"idle\", \"arrivals\": {\"poisson_rps\": 0},"                         \
    "   \"service_time\": {\"deterministic\": {\"value\": \"1s\"}}, \"replicas\": 1}]"

static void test_impossible_gang_is_refused_at_load(void **state)
{
    (void)state;
    char json[2048];
    snprintf(json, sizeof json,
             TEN_GPUS ", \"training\": [{\"name\": \"huge\", \"submit\": {\"at\": [0]}, \"gang\": 500,"
                      " \"work_gpu_hours\": 10}]}",
             "0s", 1, 48);
    test_parse_refused(json, "test", FS_ERR_INPUT,
                       "training[0].gang: a gang of 500 units can never start: the largest pool (\"p\") holds at "
                       "most 48");
}

/* Gangs of more than 256 units start (a fixed 256-entry array kept them
 * waiting forever). */
static void test_gang_over_256_starts(void **state)
{
    (void)state;
    fs_scenario *s = test_scenario(TEN_GPUS ", \"training\": [{\"name\": \"big\", \"submit\": {\"at\": [\"1m\"]},"
                                            " \"gang\": 300, \"work_gpu_hours\": 300}]}",
                                   "0s", 1, 320);
    fs_results *r = test_run(s);
    const fs_training_rep *t = &r->policies[0].reps[0].training[0];
    printf("  gang 300 on 320 GPUs: started %llu, completed %llu\n", (unsigned long long)t->started,
           (unsigned long long)t->completed);
    assert_int_equal(t->started, 1);
    assert_int_equal(t->completed, 1);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

/* The one training stream of the first policy in results.json at path
 * refused one impossible job and counts the others: conservation holds. */
static void expect_one_refused(const char *path, double submitted, double completed)
{
    json_t *doc = load_json(path);
    json_t *t = json_array_get(json_object_get(json_array_get(json_object_get(doc, "policies"), 0), "training"), 0);
    assert_true(json_number_value(json_object_get(t, "refused_impossible")) == 1);
    assert_true(json_number_value(json_object_get(t, "submitted")) == submitted);
    assert_true(json_number_value(json_object_get(t, "completed")) == completed);
    json_decref(doc);
}

/* A trace row no pool can hold: bad input naming file:line, or with
 * --lenient a job counted as refused (and conservation still holds). */
static void test_impossible_trace_row(void **state)
{
    (void)state;
    test_write(test_path("%s/jobs.csv", dir), "submit,gpus,secs\n0,2,600\n60,1000000000,600\n120,1,600\n");
    char json[2048];
    snprintf(json, sizeof json,
             TEN_GPUS ", \"training\": [{\"name\": \"replayed\", \"submit\": {\"trace\": {\"file\": \"%s\","
                      " \"time\": \"submit\", \"gpus\": \"gpus\", \"duration\": \"secs\"}}}]}",
             "0s", 1, 10, test_path("%s/jobs.csv", dir));
    test_write(test_path("%s/trace.json", dir), json);
    assert_int_equal(test_fleetsim(dir, "run %s/trace.json", dir), 2);
    char *err = test_slurp("%s/err.txt", dir);
    assert_non_null(strstr(err, "jobs.csv:3: a job asking for 1000000000 GPUs can never start"));
    assert_non_null(strstr(err, "the largest pool (\"p\") policy \"default\" (shared) lets this stream use holds 10 units"));
    free(err);
    assert_int_equal(test_fleetsim(dir, "run %s/trace.json --lenient --out %s/lenient", dir, dir), 0);
    expect_one_refused(test_path("%s/lenient/results.json", dir), 3, 2);
}

/* A gang that fits the pool but not what is free waits to the horizon: its
 * wait counts (censored, a lower bound), not as a 0.0 min queue. */
static void test_waiting_gang_is_a_censored_wait(void **state)
{
    (void)state;
    fs_scenario *s = test_scenario(TEN_GPUS ", \"training\": [{\"name\": \"hog\", \"submit\": {\"at\": [0]},"
                                            " \"gang\": 8, \"work_gpu_hours\": 800},"
                                            " {\"name\": \"stuck\", \"submit\": {\"at\": [\"1h\"]}, \"gang\": 4,"
                                            " \"work_gpu_hours\": 4}]}",
                                   "0s", 1, 10);
    fs_results *r = test_run(s);
    fs_training_summary sum;
    assert_int_equal(fs_results_training_summary(r, 0, 1, &sum), 0);
    printf("  stuck: started %.0f, waiting at the end %.0f, censored %.0f, wait p50 %.1f min\n", sum.started.mean,
           sum.waiting_end.mean, sum.waits_censored.mean, sum.wait_p50_s / 60);
    assert_true(sum.started.mean == 0);
    assert_true(sum.waits_censored.mean == 1);
    assert_true(fabs(sum.wait_p50_s - 5 * 3600.0) < 0.01 * 5 * 3600);
    fs_results_destroy(r);
    fs_scenario_destroy(s);

    char json[2048];
    snprintf(json, sizeof json,
             TEN_GPUS ", \"training\": [{\"name\": \"hog\", \"submit\": {\"at\": [0]}, \"gang\": 8,"
                      " \"work_gpu_hours\": 800}, {\"name\": \"stuck\", \"submit\": {\"at\": [\"1h\"]}, \"gang\": 4,"
                      " \"work_gpu_hours\": 4}]}",
             "0s", 1, 10);
    test_write(test_path("%s/stuck.json", dir), json);
    assert_int_equal(test_fleetsim(dir, "run %s/stuck.json", dir), 0);
    char *out = test_slurp("%s/out.txt", dir);
    assert_non_null(strstr(out, ">=300.0"));
    assert_non_null(strstr(out, ">= : censored"));
    free(out);
    assert_int_equal(test_fleetsim(dir, "compare %s/stuck.json", dir), 0);
    out = test_slurp("%s/out.txt", dir);
    const char *stuck = strstr(out, "training stuck\n");
    assert_non_null(stuck);
    assert_non_null(strstr(stuck, "(queue waits count jobs still waiting at the horizon"));
    free(out);
}

/* Every job is accounted for, in every replication, with a warm-up:
 * in flight at the start + submitted = completed + running + waiting + refused. */
static void test_training_conservation(void **state)
{
    (void)state;
    fs_scenario *s = test_scenario(TEN_GPUS ", \"training\": [{\"name\": \"mix\", \"submit\": {\"poisson_per_hour\": 3},"
                                            " \"gang\": 4, \"work_gpu_hours\": 6, \"checkpoint\": {\"every\": \"20m\", \"write\": \"1m\"}}]}",
                                   "1h", 3, 10);
    fs_results *r = test_run(s);
    uint64_t moving = 0;
    for (uint32_t k = 0; k < r->policies[0].n_reps; k++) {
        const fs_training_rep *t = &r->policies[0].reps[k].training[0];
        printf("  rep %u: %llu in flight at the start + %llu submitted = %llu completed + %llu running + %llu "
               "waiting + %llu refused\n",
               k, (unsigned long long)t->in_flight_start, (unsigned long long)t->submitted,
               (unsigned long long)t->completed, (unsigned long long)t->running_end,
               (unsigned long long)t->waiting_end, (unsigned long long)t->refused_impossible);
        assert_int_equal(t->in_flight_start + t->submitted,
                         t->completed + t->running_end + t->waiting_end + t->refused_impossible);
        moving += t->in_flight_start + t->running_end + t->waiting_end;
    }
    assert_true(moving > 0); /* the identity was tested with jobs crossing both ends */
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

/* ---- 3. gangs against the pools a policy lets a stream use ---- */

/* Under `shared` one 48-GPU pool; under `partitioned` 40 serving GPUs and
 * 8 batch GPUs, and training (not preemptible) runs on batch pools only.
 * The loader holds a gang to the largest pool (48); the policy to 8. */
#define ELIGIBLE_FMT                                                                                         \
    "{\"schema\": \"fleetsim/1\", \"name\": \"eligible\", \"horizon\": \"6h\", \"warmup\": \"0s\","          \
    " \"window\": \"10m\", \"seed\": 2,"                                                                     \
    " \"policies\": {\"shared\": {\"pools\": [{\"name\": \"serving\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 48}]}," \
    "   \"%s\": {\"pools\": [{\"name\": \"serving\", \"class\": \"serving\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 40}," \
    "     {\"name\": \"%s\", \"class\": \"%s\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 8}]%s}},"            \
    " \"services\": [{\"name\": \"idle\", \"pool\": \"serving\", \"arrivals\": {\"poisson_rps\": 0},"        \
    "   \"service_time\": {\"deterministic\": {\"value\": \"1s\"}}, \"replicas\": 1}],"                      \
    " \"training\": [{\"name\": \"job\", %s}]}"

static void test_gang_larger_than_eligible_pools(void **state)
{
    (void)state;
    char json[4096];
    snprintf(json, sizeof json, ELIGIBLE_FMT, "partitioned", "batch", "batch", "",
             "\"submit\": {\"at\": [0]}, \"gang\": 16, \"work_gpu_hours\": 16");
    test_write(test_path("%s/eligible.json", dir), json);
    /* It loads (16 <= 48): only the policy's eligibility can refuse it. */
    fs_scenario *s = test_scenario("%s", json);
    fs_scenario_destroy(s);
    const char *want = "eligible.json: training[0].gang: a gang of 16 units can never start under policy "
                       "\"partitioned\": the largest pool it lets this stream use (\"batch\") holds at most 8";
    assert_int_equal(test_fleetsim(dir, "validate %s/eligible.json", dir), 2);
    test_stderr_has(dir, want);
    char *out = test_slurp("%s/out.txt", dir);
    assert_null(strstr(out, "ok")); /* validate never says ok to what the run refuses */
    free(out);
    assert_int_equal(test_fleetsim(dir, "compare %s/eligible.json --out %s/eligible", dir, dir), 2);
    test_stderr_has(dir, want);
    assert_false(test_exists("%s/eligible/results.json", dir)); /* no partial output */
    /* The same gang under the policy that lets it use the 48-GPU pool runs. */
    assert_int_equal(test_fleetsim(dir, "compare %s/eligible.json --policies shared --out %s/eligible", dir, dir), 0);
    json_t *doc = load_json(test_path("%s/eligible/results.json", dir));
    json_t *t = json_array_get(json_object_get(json_array_get(json_object_get(doc, "policies"), 0), "training"), 0);
    assert_true(json_number_value(json_object_get(t, "completed")) == 1);
    json_decref(doc);
}

/* tiered: preemptible experiments go on spot pools only; with none, no job
 * of the stream could ever start.  A preemptible stream of production
 * training (the default priority) may use the batch pool, so it is valid. */
static void test_stream_with_no_eligible_pool(void **state)
{
    (void)state;
    char json[4096];
    snprintf(json, sizeof json, ELIGIBLE_FMT, "tiered", "batch", "batch", "",
             "\"submit\": {\"at\": [0]}, \"gang\": 4, \"work_gpu_hours\": 4, \"preemptible\": true,"
             " \"priority\": \"experiment\"");
    test_write(test_path("%s/nopool.json", dir), json);
    assert_int_equal(test_fleetsim(dir, "validate %s/nopool.json", dir), 2);
    test_stderr_has(dir, "nopool.json: training[0]: policy \"tiered\" lets this stream's jobs use none of its pools "
                         "(preemptible: true): none of them could ever start");
    snprintf(json, sizeof json, ELIGIBLE_FMT, "tiered", "batch", "batch", "",
             "\"submit\": {\"at\": [0]}, \"gang\": 4, \"work_gpu_hours\": 4, \"preemptible\": true");
    test_write(test_path("%s/nopool.json", dir), json);
    assert_int_equal(test_fleetsim(dir, "validate %s/nopool.json", dir), 0);
}

/* A trace row that fits the largest pool but not the batch pool the
 * partitioned policy lets the stream use: bad input naming file:line and
 * the policy, or with --lenient a refused job. */
static void test_trace_row_larger_than_eligible_pools(void **state)
{
    (void)state;
    test_write(test_path("%s/rows.csv", dir), "submit,gpus,secs\n0,2,600\n60,16,600\n");
    char submit[512], json[4096];
    snprintf(submit, sizeof submit,
             "\"submit\": {\"trace\": {\"file\": \"%s\", \"time\": \"submit\", \"gpus\": \"gpus\","
             " \"duration\": \"secs\"}}",
             test_path("%s/rows.csv", dir));
    snprintf(json, sizeof json, ELIGIBLE_FMT, "partitioned", "batch", "batch", "", submit);
    test_write(test_path("%s/rows.json", dir), json);
    assert_int_equal(test_fleetsim(dir, "validate %s/rows.json", dir), 0); /* rows are read by the run */
    assert_int_equal(test_fleetsim(dir, "compare %s/rows.json", dir), 2);
    test_stderr_has(dir, "rows.csv:3: a job asking for 16 GPUs can never start: the largest pool (\"batch\") "
                         "policy \"partitioned\" lets this stream use holds 8 units");
    assert_int_equal(
        test_fleetsim(dir, "compare %s/rows.json --policies partitioned --lenient --out %s/rows", dir, dir), 0);
    expect_one_refused(test_path("%s/rows/results.json", dir), 2, 1);
}

/* ---- compare: no claim about an SLO that does not exist; unsettled ---- */

/* compare's table of r (caller frees). */
static char *compare_table(const fs_results *r)
{
    char *text = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&text, &len);
    assert_non_null(fp);
    fs_error err = {0};
    assert_int_equal(fs_compare_table(r, fp, &err), FS_OK);
    assert_int_equal(fclose(fp), 0);
    return text;
}

/* A service without an SLO: "no SLO" and null, never "0 breach windows". */
static void test_compare_no_slo(void **state)
{
    (void)state;
    fs_scenario *s = test_scenario(TEN_GPUS "}", "0s", 2, 4);
    fs_results *r = test_run(s);
    char *text = compare_table(r);
    const char *row = strstr(text, "SLO breach windows/week");
    assert_non_null(row);
    row += strlen("SLO breach windows/week");
    size_t n = strcspn(row, "\n");
    assert_true(n == strspn(row, " ") + strlen("no SLO")); /* the cell says no SLO, and nothing else */
    assert_memory_equal(row + n - strlen("no SLO"), "no SLO", strlen("no SLO"));
    free(text);
    json_t *cmp = fs_compare_json(r);
    json_t *rows = json_object_get(json_object_get(json_object_get(json_object_get(cmp, "policies"), "default"),
                                                   "services"),
                                   "idle");
    json_t *cell = json_object_get(rows, "slo_breach_windows_per_week");
    assert_non_null(cell);
    assert_true(json_is_null(cell));
    json_decref(cmp);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

/* Near saturation over 2 h the tail has not settled: compare marks each
 * such figure, and the difference beside it, as the run table does, and
 * explains the mark once; a settled figure carries no mark. */
static void test_compare_marks_unsettled(void **state)
{
    (void)state;
    fs_scenario *s = test_scenario(
        "{\"schema\": \"fleetsim/1\", \"horizon\": \"2h\", \"warmup\": \"10m\", \"window\": \"10m\", \"seed\": 3,"
        " \"replications\": 2,"
        " \"policies\": {\"a\": {\"pools\": [{\"name\": \"p\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 3}]},"
        "   \"b\": {\"pools\": [{\"name\": \"p\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 4}]}},"
        " \"services\": [{\"name\": \"hot\", \"arrivals\": {\"poisson_rps\": 9.5},"
        "   \"service_time\": {\"exponential\": {\"mean\": \"200ms\"}}, \"replicas\": {\"count\": 2, \"concurrency\": 1}},"
        "  {\"name\": \"cool\", \"arrivals\": {\"poisson_rps\": 1},"
        "   \"service_time\": {\"deterministic\": {\"value\": \"100ms\"}}, \"replicas\": 1}]}");
    fs_results *r = test_run(s);
    char *text = compare_table(r);
    printf("%s", text);
    static const char *const labels[] = {"p50 ms", "p95 ms", "p99 ms"};
    static const fs_settle_figure figs[] = {FS_SETTLE_P50, FS_SETTLE_P95, FS_SETTLE_P99};
    size_t marked = 0;
    for (size_t i = 0; i < 2; i++) {
        fs_service_summary sum_a, sum_b;
        assert_int_equal(fs_results_service_summary(r, 0, i, &sum_a), 0);
        assert_int_equal(fs_results_service_summary(r, 1, i, &sum_b), 0);
        char head[64];
        snprintf(head, sizeof head, "service %s\n", i == 0 ? "hot" : "cool");
        const char *block = strstr(text, head);
        assert_non_null(block);
        for (size_t f = 0; f < 3; f++) {
            const char *row = strstr(block, labels[f]);
            assert_non_null(row);
            size_t row_len = strcspn(row, "\n");
            char line[256];
            snprintf(line, sizeof line, "%.*s", (int)row_len, row);
            const fs_settling *a = &sum_a.settling[figs[f]], *b = &sum_b.settling[figs[f]];
            bool a_un = a->why && !isnan(a->value), b_un = b->why && !isnan(b->value);
            /* the a column, the b column, the difference: one mark each */
            size_t want = (size_t)a_un + (size_t)b_un + (size_t)(a_un || b_un), got = 0;
            for (const char *c = line; (c = strchr(c, '~')) != NULL; c++)
                got++;
            if (got != want)
                fail_msg("%s: %zu marks, wanted %zu (a %s, b %s)", line, got, want, a_un ? "unsettled" : "settled",
                         b_un ? "unsettled" : "settled");
            marked += got;
        }
    }
    assert_true(marked > 0); /* the case was tested: the hot tail has not settled */
    assert_non_null(strstr(text, "\n~ not settled: a longer horizon, more replications or a longer warm-up would "
                                 "move it; a difference beside a figure that has not settled has not settled"));
    free(text);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

/* ---- 5. one percentile everywhere ---- */

/* Queue-wait and latency percentiles of three replications: compare's table
 * and JSON, results.json, the report and check print one value each. */
static void test_one_percentile_everywhere(void **state)
{
    (void)state;
    char json[4096];
    snprintf(json, sizeof json,
             "{\"schema\": \"fleetsim/1\", \"name\": \"pct\", \"horizon\": \"1d\", \"warmup\": \"1h\","
             " \"window\": \"1h\", \"seed\": 4, \"replications\": 3,"
             " \"services\": [{\"name\": \"chat\", \"arrivals\": {\"poisson_rps\": 3},"
             "   \"service_time\": {\"lognormal\": {\"median\": \"300ms\", \"sigma\": 0.8}},"
             "   \"replicas\": {\"count\": 2, \"concurrency\": 1}}],"
             " \"training\": [{\"name\": \"jobs\", \"submit\": {\"poisson_per_hour\": 1}, \"gang\": 2,"
             "   \"work_gpu_hours\": 4}],"
             " \"policies\": {\"one\": {\"pools\": [{\"name\": \"p\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 8}]},"
             "   \"two\": {\"pools\": [{\"name\": \"p\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 9}]}}}");
    fs_scenario *s = test_scenario("%s", json);
    fs_results *r = test_run(s);
    json_t *res = fs_results_json(r, false), *cmp = fs_compare_json(r);
    assert_non_null(res);
    assert_non_null(cmp);
    json_t *pol = json_array_get(json_object_get(res, "policies"), 0);
    json_t *svc = json_array_get(json_object_get(pol, "services"), 0);
    json_t *job = json_array_get(json_object_get(pol, "training"), 0);
    json_t *c_one = json_object_get(json_object_get(cmp, "policies"), "one");
    double res_p95 = json_number_value(json_object_get(json_object_get(svc, "latency_ms"), "p95"));
    double res_wait = json_number_value(json_object_get(json_object_get(job, "queue_wait_s"), "p95"));
    double cmp_p95 = json_number_value(json_object_get(json_object_get(json_object_get(c_one, "services"), "chat"), "p95_ms"));
    double cmp_wait = json_number_value(
        json_object_get(json_object_get(json_object_get(c_one, "training"), "jobs"), "queue_wait_p95_min"));
    fs_percentile pw;
    assert_int_equal(fs_results_percentile(r, 0, fs_results_wait_hist, 0, 0.95, 1e-9, &pw), 0);
    /* the per-replication mean: what compare printed before (it differs) */
    double mean_of_reps = pw.spread.mean;
    printf("  latency p95: results.json %.6g, compare.json %.6g ms; queue wait p95: results.json %.6g s, "
           "compare.json %.6g min, mean of replications %.6g s\n",
           res_p95, cmp_p95, res_wait, cmp_wait, mean_of_reps);
    assert_true(res_wait > 0);
    assert_true(fabs(mean_of_reps - pw.value) > 1e-6 * pw.value); /* the definitions do differ here */
    assert_true(res_p95 == cmp_p95);
    assert_true(fabs(res_wait / 60 - cmp_wait) <= 1e-12 * res_wait);
    assert_true(res_wait == pw.value);
    json_decref(res);
    json_decref(cmp);
    fs_results_destroy(r);
    fs_scenario_destroy(s);

    /* Through the binary: the compare table, the report, and check. */
    test_write(test_path("%s/pct.json", dir), json);
    assert_int_equal(test_fleetsim(dir, "compare %s/pct.json --out %s/pct --report %s/pct-report", dir, dir, dir),
                     0);
    char *table = test_slurp("%s/out.txt", dir);
    char printed[160];
    snprintf(printed, sizeof printed, "%14.4g", res_wait / 60);
    const char *row = strstr(table, "queue wait p95 min");
    assert_non_null(row);
    assert_non_null(strstr(row, printed));
    free(table);
    char *md = test_slurp("%s/pct-report/report.md", dir);
    const char *cell = strstr(md, "| jobs | queue wait p95 min | ");
    assert_non_null(cell);
    cell += strlen("| jobs | queue wait p95 min | ");
    if (strncmp(cell, "≥", strlen("≥")) == 0) /* jobs still waiting at the horizon: a lower bound */
        cell += strlen("≥");
    snprintf(printed, sizeof printed, "%.4g |", res_wait / 60);
    assert_memory_equal(cell, printed, strlen(printed));
    free(md);
    assert_int_equal(test_fleetsim(dir, "check %s/pct.json --baseline %s/pct/results.json", dir, dir), 0);
    char *check = test_slurp("%s/out.txt", dir);
    snprintf(printed, sizeof printed, "| queue_p95 | %.1f s | %.1f s | +0.0%% | ok |", res_wait, res_wait);
    assert_non_null(strstr(check, printed));
    free(check);
}

/* ---- 9. a bounded queue is not unbounded; drops have a CI ---- */

static void test_bounded_queue(void **state)
{
    (void)state;
    fs_scenario *s = test_scenario(
        "{\"schema\": \"fleetsim/1\", \"horizon\": \"2h\", \"warmup\": \"0s\", \"window\": \"10m\","
        " \"seed\": 3, \"replications\": 3,"
        " \"pools\": [{\"name\": \"p\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 1}],"
        " \"services\": [{\"name\": \"over\", \"arrivals\": {\"poisson_rps\": 2},"
        "   \"service_time\": {\"exponential\": {\"mean\": 1}}, \"replicas\": 1, \"queue_limit\": 20}]}");
    fs_results *r = test_run(s);
    fs_service_summary sum;
    assert_int_equal(fs_results_service_summary(r, 0, 0, &sum), 0);
    printf("  offered load %.2f: queue %d, drop fraction %.4f ±%.4f\n", r->policies[0].loads[0].offered_load,
           (int)sum.queue, sum.drop_fraction.mean, sum.drop_fraction.half_width);
    assert_true(r->policies[0].loads[0].offered_load >= 1);
    assert_false(sum.queue_unbounded);
    assert_int_equal(sum.queue, FS_QUEUE_AT_LIMIT);
    assert_true(sum.drop_fraction.valid);
    assert_true(fabs(sum.drop_fraction.mean - 0.5) < 0.05); /* M/M/1/K at rho 2 drops about half */
    json_t *doc = fs_results_json(r, false);
    json_t *stab = json_object_get(service0(doc), "stability");
    assert_true(json_is_false(json_object_get(stab, "queue_unbounded")));
    assert_string_equal(json_string_value(json_object_get(stab, "queue")), "bounded at limit, dropping");
    assert_true(json_is_number(json_object_get(stab, "drop_fraction_ci95")));
    json_decref(doc);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unfinished_requests_are_misses),
        cmocka_unit_test(test_unfinished_in_service_are_misses),
        cmocka_unit_test(test_verdict_counts_unfinished),
        cmocka_unit_test(test_unfinished_through_every_output),
        cmocka_unit_test(test_no_data_is_not_meets),
        cmocka_unit_test(test_metrics_keep_no_data),
        cmocka_unit_test(test_impossible_gang_is_refused_at_load),
        cmocka_unit_test(test_gang_over_256_starts),
        cmocka_unit_test(test_impossible_trace_row),
        cmocka_unit_test(test_gang_larger_than_eligible_pools),
        cmocka_unit_test(test_stream_with_no_eligible_pool),
        cmocka_unit_test(test_trace_row_larger_than_eligible_pools),
        cmocka_unit_test(test_compare_no_slo),
        cmocka_unit_test(test_compare_marks_unsettled),
        cmocka_unit_test(test_waiting_gang_is_a_censored_wait),
        cmocka_unit_test(test_training_conservation),
        cmocka_unit_test(test_one_percentile_everywhere),
        cmocka_unit_test(test_bounded_queue),
        cmocka_unit_test(test_pool_without_gpus_has_no_data),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

/*
 * Trace replay through the simulator: every replayed request is completed,
 * dropped or in flight at the horizon; sized requests take the service time
 * their sizes say; rate scale and repeat replay the rows they should; a bad
 * row is bad input (file:line, exit 2) unless --lenient, which skips and
 * counts it; job traces submit one job per row with that row's gang and
 * work; the shipped replay scenarios run when ../shared/data is there.
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

#include "testutil.h"

static char dir[256];

static int setup(void **state)
{
    (void)state;
    return test_tmpdir(dir, sizeof dir, "fleetsim-replay");
}

static int teardown(void **state)
{
    (void)state;
    return test_rmdir(dir);
}

/* A one-service scenario replaying `trace` (the JSON of the trace object). */
static fs_scenario *replay_scenario(const char *horizon, const char *trace, const char *replicas, const char *extra)
{
    fs_scenario *s = test_scenario(
        "{\"schema\": \"fleetsim/1\", \"horizon\": \"%s\", \"warmup\": \"0s\", \"window\": \"5s\", \"seed\": 2,"
        " \"pools\": [{\"name\": \"p\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 4}],"
        " \"services\": [{\"name\": \"llm\", \"pool\": \"p\", \"arrivals\": {\"trace\": %s},"
        "   \"service_time\": {\"exponential\": {\"mean\": \"1s\"}}, \"replicas\": %s%s}]}",
        horizon, trace, replicas, extra);
    return s;
}

static const char *trace_of(const char *name)
{
    return test_path("%s/tests/data/traces/%s", FS_SOURCE_DIR, name);
}

/* Conservation on a bursty real extract with a short queue: some requests
 * dropped, some still in flight when the horizon cuts the run. */
static void test_conservation(void **state)
{
    (void)state;
    char trace[512];
    snprintf(trace, sizeof trace, "{\"file\": \"%s\", \"preset\": \"azure-llm\"}", trace_of("azure-llm-code-200.csv"));
    fs_scenario *s = replay_scenario("3m10s", trace, "1", ", \"queue_limit\": 3");
    fs_results *r = test_run(s);
    const fs_service_rep *rep = &r->policies[0].reps[0].services[0];
    assert_true(rep->traced);
    print_message("replay: %llu rows, %llu completed, %llu dropped, %llu in flight\n",
                  (unsigned long long)rep->trace_rows, (unsigned long long)rep->trace_completed,
                  (unsigned long long)rep->trace_dropped, (unsigned long long)rep->in_flight_end);
    assert_int_equal(rep->trace_rows, rep->trace_completed + rep->trace_dropped + rep->in_flight_end);
    assert_true(rep->trace_dropped > 0);
    assert_true(rep->in_flight_end > 0);
    assert_true(rep->trace_rows > 0 && rep->trace_rows < 200); /* the horizon cut the 200 rows */
    /* With warm-up 0 the measured counts are the replay's. */
    assert_int_equal(rep->requests, rep->trace_rows);
    fs_results_destroy(r);
    fs_scenario_destroy(s);

    /* The whole extract within the horizon: exactly its 200 rows. */
    s = replay_scenario("2h", trace, "4", "");
    r = test_run(s);
    rep = &r->policies[0].reps[0].services[0];
    assert_int_equal(rep->trace_rows, 200);
    assert_int_equal(rep->trace_completed, 200);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

/* Sized requests: no queueing (plenty of slots), so every latency is
 * base + per_size . sizes exactly; the mean over a file of known sizes. */
static void test_sized_service_time(void **state)
{
    (void)state;
    const char *path = test_path("%s/sized.csv", dir);
    test_write(path, "t,prompt,out\n0,100,10\n1,300,20\n2,500,30\n3,700,40\n");
    char trace[512];
    snprintf(trace, sizeof trace,
             "{\"file\": \"%s\", \"time\": \"t\", \"sizes\": [\"prompt\", \"out\"],"
             " \"service_time\": {\"base\": \"10ms\", \"per_size\": [\"0.5ms\", \"20ms\"]}}",
             test_path("%s/sized.csv", dir));
    fs_scenario *s = replay_scenario("10s", trace, "{\"count\": 1, \"concurrency\": 8}", "");
    fs_results *r = test_run(s);
    const fs_service_rep *rep = &r->policies[0].reps[0].services[0];
    assert_int_equal(rep->completed, 4);
    /* means: prompt 400 x 0.5 ms = 200 ms, out 25 x 20 ms = 500 ms, + 10 ms */
    double mean_ms = fs_hist_mean(&rep->latency) * 1e-6;
    assert_true(fabs(mean_ms - 710.0) < 710.0 / 256);
    assert_true(fabs((double)rep->latency.max_ns * 1e-6 - (10 + 350 + 800)) < 1e-3);
    /* The offered load uses the replayed demand, not service_time's 1 s. */
    const fs_service_load *load = &r->policies[0].loads[0];
    assert_true(fabs(load->capacity_rps - 8 / 0.710) < 1e-6);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

/* Rate scale and repeat: a 4-row trace 1 s apart, at 2x and looped, over 10 s. */
static void test_scale_and_repeat(void **state)
{
    (void)state;
    test_write(test_path("%s/tick.csv", dir), "t\n0\n1\n2\n3\n");
    char trace[512];
    snprintf(trace, sizeof trace, "{\"file\": \"%s\", \"time\": \"t\", \"rate_scale\": 2, \"repeat\": true}",
             test_path("%s/tick.csv", dir));
    fs_scenario *s = replay_scenario("10s", trace, "1", "");
    fs_results *r = test_run(s);
    /* rows every 0.5 s from 0 (pass k starts at k x 2 s: span 1.5 s + one gap) up to 10 s: 21 */
    assert_int_equal(r->policies[0].reps[0].services[0].trace_rows, 21);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

/* A one-service scenario with these arrivals is refused with `want` in the message. */
static void assert_arrivals_refused(const char *arrivals, const char *want)
{
    fs_error e = {0};
    fs_scenario *s = NULL;
    char text[1024];
    snprintf(text, sizeof text,
             "{\"schema\": \"fleetsim/1\", \"horizon\": \"1h\","
             " \"pools\": [{\"name\": \"p\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 1}],"
             " \"services\": [{\"name\": \"a\", \"pool\": \"p\", \"arrivals\": %s,"
             " \"service_time\": {\"deterministic\": {\"value\": \"1s\"}}, \"replicas\": 1}]}",
             arrivals);
    assert_int_equal(fs_scenario_parse(text, "t.json", &s, &e), FS_ERR_INPUT);
    if (!strstr(e.msg, want))
        fail_msg("\"%s\" lacks \"%s\"", e.msg, want);
}

/* A bad row: exit 2 naming file:line; --lenient skips it and says so. */
static void test_bad_rows(void **state)
{
    (void)state;
    test_write(test_path("%s/bad.csv", dir), "t\n0\n1\nsoon\n3\n");
    test_write(test_path("%s/bad.json", dir),
               test_path("{\"schema\": \"fleetsim/1\", \"horizon\": \"10s\", \"warmup\": \"0s\", \"window\": \"5s\","
                         " \"pools\": [{\"name\": \"p\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 1}],"
                         " \"services\": [{\"name\": \"llm\", \"pool\": \"p\","
                         "   \"arrivals\": {\"trace\": {\"file\": \"bad.csv\", \"time\": \"t\"}},"
                         "   \"service_time\": {\"deterministic\": {\"value\": \"10ms\"}}, \"replicas\": 1}]}"));
    assert_int_equal(test_fleetsim(dir, "run %s/bad.json --out %s/out-strict", dir, dir), 2);
    char *err = test_slurp("%s/err.txt", dir);
    assert_non_null(strstr(err, "bad.csv:4:"));
    assert_non_null(strstr(err, "soon"));
    free(err);
    assert_false(test_exists("%s/out-strict/results.json", dir));
    assert_int_equal(test_fleetsim(dir, "run %s/bad.json --lenient --out %s/out-lenient", dir, dir), 0);
    json_t *doc = json_load_file(test_path("%s/out-lenient/results.json", dir), 0, NULL);
    assert_non_null(doc);
    char *text = json_dumps(doc, JSON_COMPACT);
    assert_non_null(strstr(text, "\"skipped_bad_rows\":1"));
    assert_non_null(strstr(text, "\"rows\":3"));
    free(text);
    json_decref(doc);
    /* A missing column is caught when the run starts, as bad input. */
    test_write(test_path("%s/nocol.json", dir),
               test_path("{\"schema\": \"fleetsim/1\", \"horizon\": \"10s\","
                         " \"pools\": [{\"name\": \"p\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 1}],"
                         " \"services\": [{\"name\": \"llm\", \"pool\": \"p\","
                         "   \"arrivals\": {\"trace\": {\"file\": \"bad.csv\", \"time\": \"when\"}},"
                         "   \"service_time\": {\"deterministic\": {\"value\": \"10ms\"}}, \"replicas\": 1}]}"));
    assert_int_equal(test_fleetsim(dir, "run %s/nocol.json", dir), 2);
    err = test_slurp("%s/err.txt", dir);
    assert_non_null(strstr(err, "no column \"when\""));
    free(err);
    /* Scenario-level mistakes name the JSON path. */
    assert_arrivals_refused("{\"poisson_rps\": 1, \"trace\": {\"file\": \"x\", \"preset\": \"azure-llm\"}}",
                            "services[0].arrivals");
    assert_arrivals_refused("{\"trace\": {\"file\": \"x\", \"preset\": \"philly-jobs\"}}", "job trace");
}

/* One job per row, with that row's gang and run time. */
static void test_job_trace(void **state)
{
    (void)state;
    test_write(test_path("%s/jobs.csv", dir), "submit,gpus,secs,who\n0,2,3600,a\n600,1,1800,b\n1200,4,7200,a\n");
    fs_scenario *s = test_scenario(
        "{\"schema\": \"fleetsim/1\", \"horizon\": \"6h\", \"warmup\": \"0s\", \"window\": \"10m\","
        " \"pools\": [{\"name\": \"p\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 8}],"
        " \"services\": [{\"name\": \"idle\", \"pool\": \"p\", \"arrivals\": {\"poisson_rps\": 0},"
        "   \"service_time\": {\"deterministic\": {\"value\": \"1s\"}}, \"replicas\": 1}],"
        " \"training\": [{\"name\": \"replayed\", \"submit\": {\"trace\": {\"file\": \"%s\", \"time\": \"submit\","
        "   \"gpus\": \"gpus\", \"duration\": \"secs\", \"tenant\": \"who\"}}, \"state_gb_per_gpu\": 10}]}",
        test_path("%s/jobs.csv", dir));
    fs_results *r = test_run(s);
    const fs_training_rep *t = &r->policies[0].reps[0].training[0];
    assert_int_equal(t->submitted, 3);
    assert_int_equal(t->completed, 3);
    /* 2 x 1 h + 1 x 0.5 h + 4 x 2 h of work; 7 GPUs free for the gangs */
    assert_true(fabs(t->gpu_hours_done - 10.5) < 1e-6);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

/* The shipped replays: conservation on every policy and replication. */
static void test_shipped_replays(void **state)
{
    (void)state;
    if (!test_exists("%s/../shared/data/azure-llm-2023/AzureLLMInferenceTrace_code.csv", FS_SOURCE_DIR)) {
        print_message("skipped: ../shared/data is absent (the shipped replays need the Azure traces)\n");
        skip();
    }
    const char *names[] = {"azure-code", "azure-conv"};
    for (int k = 0; k < 2; k++) {
        fs_scenario *s;
        fs_error err = {0};
        assert_int_equal(fs_scenario_load(test_path("%s/scenarios/traces/%s.json", FS_SOURCE_DIR, names[k]), &s, &err),
                         FS_OK);
        fs_scenario_override(s, -1, 1, 6 * 3600, &err);
        fs_results *r = test_run(s);
        for (size_t p = 0; p < r->n_policies; p++) {
            const fs_service_rep *rep = &r->policies[p].reps[0].services[0];
            assert_true(rep->traced);
            assert_int_equal(rep->trace_skipped, 0);
            assert_true(rep->trace_rows > 1000);
            assert_int_equal(rep->trace_rows, rep->trace_completed + rep->trace_dropped + rep->in_flight_end);
        }
        fs_results_destroy(r);
        fs_scenario_destroy(s);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_conservation),     cmocka_unit_test(test_sized_service_time),
        cmocka_unit_test(test_scale_and_repeat), cmocka_unit_test(test_bad_rows),
        cmocka_unit_test(test_job_trace),        cmocka_unit_test(test_shipped_replays),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

/*
 * Trace replay through the simulator: every replayed request is completed,
 * dropped or in flight at the horizon; sized requests take the service time
 * their sizes say; rate scale and repeat replay the rows they should; a bad
 * row is bad input (file:line, exit 2) unless --lenient, which skips and
 * counts it; job traces submit one job per row with that row's gang and
 * work; the shipped replay scenarios run when ../shared/data is there; a
 * replay's load is over the span its arrivals cover, with its peak hour, and
 * no data under two arrivals; a JSON Lines trace read as CSV is refused
 * saying how to read it, and read as JSON Lines it replays; services split
 * from one trace by "where" keep the trace's own clock.
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

/* Writes DIR/name: one service "llm" of 10 ms on one GPU replaying column
 * `time_col` of `file`, under these run settings ("\"horizon\": ..."). */
static void write_replay_file(const char *name, const char *settings, const char *file, const char *time_col)
{
    char text[1024];
    snprintf(text, sizeof text,
             "{\"schema\": \"fleetsim/1\", %s,"
             " \"pools\": [{\"name\": \"p\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 1}],"
             " \"services\": [{\"name\": \"llm\", \"pool\": \"p\","
             "   \"arrivals\": {\"trace\": {\"file\": \"%s\", \"time\": \"%s\"}},"
             "   \"service_time\": {\"deterministic\": {\"value\": \"10ms\"}}, \"replicas\": 1}]}",
             settings, file, time_col);
    test_write(test_path("%s/%s", dir, name), text);
}

static const char *trace_of(const char *name)
{
    return test_path("%s/tests/data/traces/%s", FS_SOURCE_DIR, name);
}

/* "where" end to end: only rows whose columns hold an accepted text are
 * replayed; a dropped row is not a bad row (even with a time that would be
 * one), though it is the time origin when its time is the file's first;
 * a filter's column must be in the header. */
static void test_where(void **state)
{
    (void)state;
    const char *csv = test_path("%s/where.csv", dir);
    test_write(csv, "t,status,qos\n"
                    "5,FAILED,LS\n" /* dropped, but t = 0 */
                    "10,SUCCEED,LS\n"
                    "11,SUCCEED,BE\n"
                    "oops,FAILED,LS\n" /* dropped before its time is read */
                    "12,RUNNING,BE\n"
                    "14,SUCCEED,Burstable\n"
                    "15, SUCCEED ,BE\n"); /* trimmed like every field */
    char trace[512];
    snprintf(trace, sizeof trace, "{\"file\": \"%s\", \"time\": \"t\", \"where\": {\"status\": \"SUCCEED\"}}", csv);
    fs_scenario *s = replay_scenario("1m", trace, "1", "");
    fs_results *r = test_run(s);
    const fs_service_rep *rep = fs_results_service_rep(r, 0, 0, 0);
    assert_int_equal(rep->trace_rows, 4);
    assert_int_equal(rep->trace_skipped, 0);
    assert_int_equal(rep->trace_filtered, 3);
    assert_int_equal(rep->requests, 4);
    assert_true(rep->arrival_span.first == 5 && rep->arrival_span.last == 10); /* 10 and 15 on the file's clock */
    fs_results_destroy(r);
    fs_scenario_destroy(s);
    /* Two filters, both must pass; a list accepts any of its texts. */
    snprintf(trace, sizeof trace,
             "{\"file\": \"%s\", \"time\": \"t\", \"where\": {\"status\": \"SUCCEED\", \"qos\": [\"LS\", \"BE\"]}}", csv);
    s = replay_scenario("1m", trace, "1", "");
    r = test_run(s);
    assert_int_equal(fs_results_service_rep(r, 0, 0, 0)->trace_rows, 3);
    assert_int_equal(fs_results_service_rep(r, 0, 0, 0)->trace_filtered, 4);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
    snprintf(trace, sizeof trace, "{\"file\": \"%s\", \"time\": \"t\", \"where\": {\"class\": \"a\"}}", csv);
    s = replay_scenario("1m", trace, "1", "");
    fs_results *none = NULL;
    fs_error err = {0};
    assert_int_equal(fs_run_scenario(s, &none, &err), FS_ERR_INPUT);
    if (!strstr(err.msg, "where.csv: no column \"class\" (columns: t, status, qos)"))
        fail_msg("error: %s", err.msg);
    fs_scenario_destroy(s);
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

/* A two-hour trace in a day's run: rows every 10 s through the half-hour
 * warm-up (not measured), then from 01:00 one a second for an hour and
 * three a second for the next.  Its load is over the span its measured
 * arrivals cover, not over the 23.5 measured hours (a twelfth of it), and
 * its peak hour is 02:00-03:00's three a second. */
static void test_load_over_span(void **state)
{
    (void)state;
    const char *path = test_path("%s/two-hours.csv", dir);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs("t\n", fp);
    for (int k = 0; k < 180; k++)
        fprintf(fp, "%d\n", 10 * k);
    for (int k = 0; k < 3600; k++)
        fprintf(fp, "%d\n", 3600 + k);
    for (int k = 0; k < 10800; k++)
        fprintf(fp, "%.17g\n", 7200 + k / 3.0);
    assert_int_equal(fclose(fp), 0);
    const char *scenario =
        "{\"schema\": \"fleetsim/1\", \"horizon\": \"1d\", \"warmup\": \"30m\", \"window\": \"5m\","
        " \"replications\": 2, \"pools\": [{\"name\": \"p\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 4}],"
        " \"services\": [{\"name\": \"llm\", \"pool\": \"p\", \"arrivals\": {\"trace\": {\"file\": \"%s\", \"time\": \"t\"}},"
        "   \"service_time\": {\"deterministic\": {\"value\": \"1s\"}}, \"replicas\": {\"count\": 2, \"concurrency\": 4}}]}";
    char text[1024];
    snprintf(text, sizeof text, scenario, path);
    fs_scenario *s = test_scenario("%s", text);
    fs_results *r = test_run(s);
    double last = 7200 + 10799 / 3.0, mean = 14399 / (last - 3600);
    for (uint32_t k = 0; k < 2; k++) {
        const fs_service_rep *rep = &r->policies[0].reps[k].services[0];
        assert_int_equal(rep->arrival_span.n, rep->requests); /* the arrivals the run measured */
        assert_int_equal(rep->requests, 14400);
    }
    const fs_service_load *load = &r->policies[0].loads[0];
    print_message("  mean %.6g req/s over %.6g s (over the measured interval: %.6g), peak hour %.6g, capacity %.6g\n",
                  load->mean_rps, load->span_s, 14400 / (86400 - 1800.0), load->peak_hour_rps, load->capacity_rps);
    assert_true(fabs(load->mean_rps - mean) < 1e-12 * mean);
    assert_true(fabs(load->span_s - (last - 3600)) < 1e-9);
    assert_true(fabs(load->peak_hour_rps - 3.0) < 1e-12);
    assert_true(fabs(load->capacity_rps - 8) < 1e-9);
    assert_true(fabs(load->offered_load - mean / 8) < 1e-12);
    assert_true(fabs(load->peak_hour_offered_load - 3.0 / 8) < 1e-12);
    /* The busiest 5-minute window: 900 arrivals, three a second. */
    assert_true(fabs(load->peak_rps - 3.0) < 1e-12);
    fs_results_destroy(r);
    fs_scenario_destroy(s);

    /* The outputs: results.json's stability, the table's load and replay note. */
    test_write(test_path("%s/two-hours.json", dir), text);
    assert_int_equal(test_fleetsim(dir, "run %s/two-hours.json --out %s/two-hours-out", dir, dir), 0);
    json_t *doc = json_load_file(test_path("%s/two-hours-out/results.json", dir), 0, NULL);
    assert_non_null(doc);
    json_t *stab = json_object_get(json_array_get(json_object_get(json_array_get(json_object_get(doc, "policies"), 0),
                                                                  "services"), 0), "stability");
    assert_true(fabs(json_number_value(json_object_get(stab, "mean_arrival_rps")) - mean) < 1e-9);
    assert_true(fabs(json_number_value(json_object_get(stab, "peak_hour_arrival_rps")) - 3) < 1e-9);
    assert_true(fabs(json_number_value(json_object_get(stab, "peak_hour_offered_load")) - 3.0 / 8) < 1e-9);
    assert_true(fabs(json_number_value(json_object_get(stab, "arrival_span_s")) - (last - 3600)) < 1e-6);
    json_decref(doc);
    char *out = test_slurp("%s/out.txt", dir);
    char want[256];
    snprintf(want, sizeof want, "replay: service llm: %.4g req/s over the", mean);
    if (!strstr(out, want) || !strstr(out, "peak clock hour 3 req/s (load 0.38)"))
        fail_msg("the table lacks \"%s\" or the peak hour:\n%s", want, out);
    free(out);
}

/* Under two arrivals at or after warm-up the load is no data: NaN in
 * memory, null in results.json, "no data" in the table and an empty CSV
 * cell; not an overload. */
static void test_load_no_data(void **state)
{
    (void)state;
    test_write(test_path("%s/sparse.csv", dir), "t\n0\n10\n5000\n");
    write_replay_file("sparse.json", "\"horizon\": \"2h\", \"warmup\": \"30m\", \"window\": \"5m\"", "sparse.csv", "t");
    assert_int_equal(test_fleetsim(dir, "run %s/sparse.json --out %s/sparse-out", dir, dir), 0);
    char *out = test_slurp("%s/out.txt", dir);
    if (!strstr(out, "replay: service llm: load no data (fewer than two arrivals at or after warm-up)") ||
        !strstr(out, "no data\n") || strstr(out, "UNSTABLE"))
        fail_msg("table:\n%s", out);
    free(out);
    json_t *doc = json_load_file(test_path("%s/sparse-out/results.json", dir), 0, NULL);
    assert_non_null(doc);
    json_t *svc = json_array_get(json_object_get(json_array_get(json_object_get(doc, "policies"), 0), "services"), 0);
    json_t *stab = json_object_get(svc, "stability");
    const char *keys[] = {"mean_arrival_rps", "offered_load", "arrival_span_s", "peak_hour_arrival_rps",
                          "peak_hour_offered_load"};
    for (size_t k = 0; k < sizeof keys / sizeof *keys; k++)
        if (!json_is_null(json_object_get(stab, keys[k])))
            fail_msg("stability.%s is not null", keys[k]);
    assert_string_equal(json_string_value(json_object_get(stab, "queue")), "stable");
    json_decref(doc);
    assert_int_equal(test_fleetsim(dir, "run %s/sparse.json --format csv", dir), 0);
    out = test_slurp("%s/out.txt", dir);
    assert_non_null(strstr(out, "\"default\",\"llm\",1,1,0,")); /* one request measured */
    assert_non_null(strstr(out, ",0,,false,\"stable\",")); /* offered_load: an empty cell */
    free(out);
}

static void assert_arrivals_refused(const char *arrivals, const char *want);

/* A JSON Lines file given as a CSV request or job trace: exit 2 naming
 * file:line and how to read it, and nothing of the file quoted. */
static void test_json_lines_refused(void **state)
{
    (void)state;
    test_write(test_path("%s/requests.log", dir), "{\"t\": 0, \"prompt\": 12}\n{\"t\": 1, \"prompt\": 30}\n");
    write_replay_file("jsonl.json", "\"horizon\": \"10s\"", "requests.log", "t");
    assert_int_equal(test_fleetsim(dir, "run %s/jsonl.json", dir), 2);
    test_stderr_has(dir, "requests.log:1: this looks like JSON Lines (a line starting with '{'); set \"format\": "
                         "\"jsonl\" (or name the file .jsonl)");
    char *err = test_slurp("%s/err.txt", dir);
    assert_null(strstr(err, "prompt")); /* no dump of the file */
    free(err);
    /* A job trace: refused as CSV ("format": "csv" over the name), replayed as JSON Lines. */
    test_write(test_path("%s/jobs.jsonl", dir), "\n{\"submit\": 0, \"gpus\": 2, \"secs\": 60}\n"
                                                "{\"submit\": 600, \"gpus\": 1, \"secs\": 60}\n");
    const char *jobs = "{\"schema\": \"fleetsim/1\", \"horizon\": \"1h\", \"warmup\": \"0s\","
                       " \"pools\": [{\"name\": \"p\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 8}],"
                       " \"services\": [{\"name\": \"idle\", \"pool\": \"p\", \"arrivals\": {\"poisson_rps\": 0},"
                       "   \"service_time\": {\"deterministic\": {\"value\": \"1s\"}}, \"replicas\": 1}],"
                       " \"training\": [{\"name\": \"replayed\", \"submit\": {\"trace\": {\"file\": \"%s\",%s"
                       "   \"time\": \"submit\", \"gpus\": \"gpus\", \"duration\": \"secs\"}}, \"state_gb_per_gpu\": 10}]}";
    char text[1024];
    snprintf(text, sizeof text, jobs, test_path("%s/jobs.jsonl", dir), " \"format\": \"csv\",");
    test_write(test_path("%s/jobs-jsonl.json", dir), text);
    assert_int_equal(test_fleetsim(dir, "run %s/jobs-jsonl.json", dir), 2);
    test_stderr_has(dir, "jobs.jsonl:2: this looks like JSON Lines");
    fs_scenario *s = test_scenario(jobs, test_path("%s/jobs.jsonl", dir), "");
    fs_results *r = test_run(s);
    assert_int_equal(r->policies[0].reps[0].training[0].submitted, 2);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
    /* Requests named .txt, read as JSON Lines by "format". */
    snprintf(text, sizeof text, "{\"file\": \"%s\", \"format\": \"jsonl\", \"time\": \"t\"}",
             test_path("%s/requests.log", dir));
    s = replay_scenario("10s", text, "1", "");
    r = test_run(s);
    assert_int_equal(fs_results_service_rep(r, 0, 0, 0)->trace_rows, 2);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
    assert_arrivals_refused("{\"trace\": {\"file\": \"x\", \"time\": \"t\", \"format\": \"json\"}}",
                            "services[0].arrivals.trace.format: expected \"csv\" or \"jsonl\"");
}

/* One trace split into two services by its class column, one "where" each:
 * each service's arrivals are at the times the whole trace gives its rows
 * (the first row of the file is 0, whichever service it belongs to). */
static void test_split_by_class(void **state)
{
    (void)state;
    const char *csv = test_path("%s/classes.csv", dir);
    test_write(csv, "t,class\n100,B\n101.5,A\n102,A\n104,B\n107,A\n107.5,B\n");
    char text[2048];
    const char *svc = "{\"name\": \"%s\", \"pool\": \"p\", \"arrivals\": {\"trace\": {\"file\": \"%s\", \"time\": \"t\","
                      " \"where\": {\"class\": \"%s\"}}}, \"service_time\": {\"deterministic\": {\"value\": \"10ms\"}},"
                      " \"replicas\": 1}";
    char a[512], b[512];
    snprintf(a, sizeof a, svc, "a", csv, "A");
    snprintf(b, sizeof b, svc, "b", csv, "B");
    snprintf(text, sizeof text,
             "{\"schema\": \"fleetsim/1\", \"horizon\": \"1m\", \"warmup\": \"0s\", \"window\": \"5s\","
             " \"pools\": [{\"name\": \"p\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 2}], \"services\": [%s, %s]}",
             a, b);
    fs_scenario *s = test_scenario("%s", text);
    fs_results *r = test_run(s);
    const fs_service_rep *ra = fs_results_service_rep(r, 0, 0, 0), *rb = fs_results_service_rep(r, 0, 0, 1);
    assert_int_equal(ra->requests, 3);
    assert_int_equal(rb->requests, 3);
    if (!(ra->arrival_span.first == 1.5 && ra->arrival_span.last == 7 && rb->arrival_span.first == 0 &&
          rb->arrival_span.last == 7.5))
        fail_msg("a: %g to %g (want 1.5 to 7), b: %g to %g (want 0 to 7.5)", ra->arrival_span.first,
                 ra->arrival_span.last, rb->arrival_span.first, rb->arrival_span.last);
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
    write_replay_file("bad.json", "\"horizon\": \"10s\", \"warmup\": \"0s\", \"window\": \"5s\"", "bad.csv", "t");
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
    write_replay_file("nocol.json", "\"horizon\": \"10s\"", "bad.csv", "when");
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

/* A job trace's own tenants and priorities.  Three gangs of 4 on a batch
 * pool of 4: A's at 0 s runs first; B's ("BE") asks at 10 s, C's ("LS") at
 * 20 s.  With "priorities" mapping LS to production and BE to experiment,
 * tiered serves C's production lane before B; shared, first come first
 * served, serves B first; without the map every row takes the stream's lane
 * and tiered serves B first too.  Each tenant's admitted wait comes back by
 * name. */
static void test_job_tenants_and_priorities(void **state)
{
    (void)state;
    test_write(test_path("%s/qos.csv", dir),
               "submit,gpus,secs,team,qos\n0,4,3600,A,BE\n10,4,3600,B,BE\n20,4,3600,C,LS\n");
    static const char *const doc =
        "{\"schema\": \"fleetsim/1\", \"horizon\": \"4h\", \"warmup\": \"0s\", \"seed\": 5,"
        " \"policies\": {\"tiered\": {\"kind\": \"tiered\", \"pools\": ["
        "   {\"name\": \"serving\", \"class\": \"serving\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 1},"
        "   {\"name\": \"batch\", \"class\": \"batch\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 4}]},"
        "   \"shared\": {\"kind\": \"shared\", \"pools\": ["
        "   {\"name\": \"serving\", \"class\": \"serving\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 1},"
        "   {\"name\": \"batch\", \"class\": \"batch\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 4}]}},"
        " \"services\": [{\"name\": \"idle\", \"pool\": \"serving\", \"arrivals\": {\"poisson_rps\": 0},"
        "   \"service_time\": {\"deterministic\": {\"value\": \"1s\"}}, \"replicas\": 1}],"
        " \"training\": [{\"name\": \"jobs\", \"tenant\": \"A\", \"priority\": \"experiment\","
        "   \"submit\": {\"trace\": {\"file\": \"%s\", \"time\": \"submit\", \"gpus\": \"gpus\","
        "   \"duration\": \"secs\", \"tenant\": \"team\", \"priority\": \"qos\"%s}}}]}";
    const char *maps[2] = {", \"priorities\": {\"LS\": \"production\", \"BE\": \"experiment\"}", ""};
    for (int with_map = 1; with_map >= 0; with_map--) {
        fs_scenario *s = test_scenario(doc, test_path("%s/qos.csv", dir), maps[1 - with_map]);
        assert_int_equal(s->training[0].n_priorities, with_map ? 2 : 0);
        fs_results *r = test_run(s);
        for (size_t p = 0; p < r->n_policies; p++) {
            fs_tenant_waits *by = NULL;
            size_t n = 0;
            assert_int_equal(fs_results_training_tenants(r, p, 0, &by, &n), 0);
            assert_int_equal(n, 3);
            /* Name order; A is the stream's own tenant, B and C the trace's. */
            assert_string_equal(by[0].tenant, "A");
            assert_string_equal(by[1].tenant, "B");
            assert_string_equal(by[2].tenant, "C");
            printf("  %s, %s: waits A %.3f s, B %.3f s, C %.3f s\n", with_map ? "priorities" : "no map",
                   r->policies[p].name, by[0].max_s, by[1].max_s, by[2].max_s);
            for (size_t k = 0; k < 3; k++)
                assert_int_equal(by[k].admitted, 1);
            assert_true(by[0].max_s < 1e-9); /* A is granted on submission */
            bool production_first = with_map && strcmp(r->policies[p].name, "tiered") == 0;
            if (production_first)
                assert_true(by[2].max_s < by[1].max_s);
            else
                assert_true(by[1].max_s < by[2].max_s);
            free(by);
        }
        fs_results_destroy(r);
        fs_scenario_destroy(s);
    }
    /* Through the CLI: results.json's "teams" (admitted waits per team
     * across streams) and the report's team rows. */
    char text[4096];
    snprintf(text, sizeof text, doc, test_path("%s/qos.csv", dir), maps[0]);
    test_write(test_path("%s/qos.json", dir), text);
    json_t *res = test_fleetsim_json(dir, "run %s/qos.json --format json", dir);
    const json_t *teams = test_json_at(json_array_get(test_json_at(res, "policies"), 0), "teams");
    assert_int_equal(json_array_size(teams), 3);
    assert_string_equal(test_json_str(json_array_get(teams, 2), "tenant"), "C");
    assert_true(test_json_num(json_array_get(teams, 2), "admitted") == 1);
    json_decref(res);
    assert_int_equal(test_fleetsim(dir, "run %s/qos.json -o %s/qos-out", dir, dir), 0);
    assert_int_equal(test_fleetsim(dir, "report %s/qos-out -o %s/qos-report", dir, dir), 0);
    assert_int_equal(test_sh("grep -q '^| C | queue wait p95 min (admitted) |' %s/qos-report/report.md", dir), 0);
    /* A map needs a priority column to read. */
    snprintf(text, sizeof text,
             "{\"schema\": \"fleetsim/1\", \"horizon\": \"1h\", \"pools\": [{\"name\": \"p\", \"gpu\": \"H100-SXM-80GB\","
             " \"gpus\": 4}], \"training\": [{\"name\": \"j\", \"submit\": {\"trace\": {\"file\": \"%s\","
             " \"time\": \"submit\", \"gpus\": \"gpus\", \"duration\": \"secs\","
             " \"priorities\": {\"LS\": \"production\"}}}}]}",
             test_path("%s/qos.csv", dir));
    test_write(test_path("%s/nomap.json", dir), text);
    assert_int_equal(test_fleetsim(dir, "validate %s/nomap.json", dir), 2);
    test_stderr_has(dir, "training[0].submit.trace.priorities: needs a priority column");
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
        cmocka_unit_test(test_where),
        cmocka_unit_test(test_conservation),     cmocka_unit_test(test_sized_service_time),
        cmocka_unit_test(test_scale_and_repeat), cmocka_unit_test(test_bad_rows),
        cmocka_unit_test(test_job_trace),        cmocka_unit_test(test_job_tenants_and_priorities),        cmocka_unit_test(test_shipped_replays),
        cmocka_unit_test(test_load_over_span),   cmocka_unit_test(test_load_no_data),
        cmocka_unit_test(test_json_lines_refused), cmocka_unit_test(test_split_by_class),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

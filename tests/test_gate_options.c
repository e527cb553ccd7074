/*
 * The options a CI gate needs (issue 15, points 14-16): --set, --horizon in
 * bare seconds, --warmup, --window and --window-anchor on run, compare,
 * check and plan; the event limit and the engine watcher under it; progress
 * on a terminal only; memory sizes with their units.  Runs the built binary
 * (FS_BINARY) on files in a temporary directory, and the engine and the
 * scenario parser directly.
 */
#include <jansson.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "memsize.h"
#include "run.h"
#include "scenario.h"
#include "sim.h"
#include "testutil.h"

static char tmp[256];

/* Two hours, a 10 m warm-up; "ci" settings that check applies. */
static const char *small_scenario =
    "{\"schema\": \"fleetsim/1\", \"name\": \"small\", \"horizon\": \"2h\", \"warmup\": \"10m\","
    " \"replications\": 1,"
    " \"ci\": {\"horizon\": \"1h\", \"warmup\": \"5m\", \"replications\": 1},"
    " \"pools\": [{\"name\": \"p\", \"gpu\": \"L4-24GB\", \"gpus\": 3}],"
    " \"services\": [{\"name\": \"chat\", \"arrivals\": {\"poisson_rps\": 5},"
    "   \"service_time\": {\"exponential\": {\"mean\": \"100ms\"}}, \"replicas\": 3,"
    "   \"slo\": {\"p99_ms\": 500}}]}\n";

static json_t *load_json(const char *path)
{
    json_error_t jerr;
    json_t *doc = json_load_file(path, 0, &jerr);
    if (!doc)
        fail_msg("%s:%d: %s", path, jerr.line, jerr.text);
    return doc;
}

static double scenario_field(const json_t *doc, const char *key)
{
    const json_t *v = json_object_get(json_object_get(doc, "scenario"), key);
    assert_true(json_is_number(v));
    return json_number_value(v);
}

static double pool_gpu_hours(const json_t *doc)
{
    const json_t *pol = json_array_get(json_object_get(doc, "policies"), 0);
    const json_t *v = json_object_get(json_array_get(json_object_get(pol, "pools"), 0), "gpu_hours");
    assert_true(json_is_number(v));
    return json_number_value(v);
}

static void test_set_changes_the_figure_it_names(void **state)
{
    (void)state;
    test_write(test_path("%s/small.json", tmp), small_scenario);
    assert_int_equal(test_fleetsim(tmp, "run %s/small.json --out %s/three", tmp, tmp), 0);
    assert_int_equal(test_fleetsim(tmp, "run %s/small.json --set pools[p].gpus=6 --set 'services[chat].replicas=5'"
                                        " --out %s/six", tmp, tmp), 0);
    json_t *three = load_json(test_path("%s/three/results.json", tmp));
    json_t *six = load_json(test_path("%s/six/results.json", tmp));
    /* Twice the GPUs over the same measured time: twice the GPU-hours. */
    assert_true(fabs(pool_gpu_hours(six) - 2 * pool_gpu_hours(three)) < 1e-9 * pool_gpu_hours(six));
    json_decref(three);
    json_decref(six);

    /* A path the document lacks: exit 2 naming it, nothing written. */
    assert_int_equal(test_fleetsim(tmp, "run %s/small.json --set 'services[chta].replicas=5' --out %s/bad", tmp, tmp),
                     2);
    test_stderr_has(tmp, "services[chta].replicas");
    test_stderr_has(tmp, "no element named \"chta\"");
    assert_false(test_exists("%s/bad/results.json", tmp));
    assert_int_equal(test_fleetsim(tmp, "run %s/small.json --set replicas", tmp), 2);
    test_stderr_has(tmp, "--set: expected PATH=VALUE");
    /* A value the parser refuses is refused as the file's own would be. */
    assert_int_equal(test_fleetsim(tmp, "compare %s/small.json --set pools[0].gpus=-1", tmp), 2);
    test_stderr_has(tmp, "pools[0].gpus");
}

static void test_horizon_warmup_window_take_effect(void **state)
{
    (void)state;
    test_write(test_path("%s/small.json", tmp), small_scenario);
    assert_int_equal(test_fleetsim(tmp, "run %s/small.json --horizon 3600 --warmup 0 --window 1m --out %s/hww", tmp,
                                   tmp),
                     0);
    json_t *doc = load_json(test_path("%s/hww/results.json", tmp));
    assert_true(scenario_field(doc, "horizon_s") == 3600);
    assert_true(scenario_field(doc, "warmup_s") == 0);
    assert_true(scenario_field(doc, "window_s") == 60);
    assert_null(json_object_get(json_object_get(doc, "scenario"), "window_anchor_s")); /* not anchored */
    json_decref(doc);
    /* 60 one-minute windows in the time series, then the header. */
    char *series = test_slurp("%s/hww/timeseries.csv", tmp);
    size_t lines = 0;
    for (const char *c = series; *c; c++)
        lines += *c == '\n';
    assert_int_equal(lines, 61);
    free(series);

    /* The warm-up still has to stay below the horizon. */
    assert_int_equal(test_fleetsim(tmp, "run %s/small.json --horizon 600 --warmup 10m", tmp), 2);
    test_stderr_has(tmp, "warmup");
    assert_int_equal(test_fleetsim(tmp, "run %s/small.json --horizon 5parsecs", tmp), 2);
    test_stderr_has(tmp, "horizon");
}

static void test_window_anchor(void **state)
{
    (void)state;
    test_write(test_path("%s/small.json", tmp), small_scenario);
    /* A 10 m warm-up, hourly windows anchored at midnight: measuring starts at 01:00. */
    assert_int_equal(test_fleetsim(tmp, "run %s/small.json --horizon 4h --window 1h --window-anchor 00:00 --out %s/anc",
                                   tmp, tmp),
                     0);
    json_t *doc = load_json(test_path("%s/anc/results.json", tmp));
    assert_true(scenario_field(doc, "warmup_s") == 3600);
    assert_true(scenario_field(doc, "window_anchor_s") == 0);
    json_decref(doc);
    char *series = test_slurp("%s/anc/timeseries.csv", tmp);
    assert_non_null(strstr(series, "\n\"default\",0,\"chat\",3600,7200,"));
    assert_null(strstr(series, ",600,"));
    free(series);
    /* At 00:30, the warm-up ends at 00:30 already. */
    assert_int_equal(test_fleetsim(tmp, "run %s/small.json --window 1h --window-anchor 00:30 --format json", tmp), 0);
    char *out = test_slurp("%s/out.txt", tmp);
    assert_non_null(strstr(out, "\"warmup_s\": 1800"));
    free(out);
    /* check anchors its "ci" warm-up (5m) the same way: to 1h, which is the
     * ci horizon, so refused; with --horizon 3h it runs. */
    assert_int_equal(test_fleetsim(tmp, "check %s/small.json --baseline %s/anc.json --update --window 1h"
                                        " --window-anchor 00:00", tmp, tmp),
                     2);
    test_stderr_has(tmp, "ci: the warm-up (1h) must stay below the horizon (1h)");
    assert_int_equal(test_fleetsim(tmp, "check %s/small.json --baseline %s/anc.json --update --window 1h"
                                        " --window-anchor 00:00 --horizon 3h", tmp, tmp),
                     0);
    doc = load_json(test_path("%s/anc.json", tmp));
    assert_true(scenario_field(doc, "warmup_s") == 3600);
    json_decref(doc);
    assert_int_equal(test_fleetsim(tmp, "run %s/small.json --window-anchor 25:00", tmp), 2);
    test_stderr_has(tmp, "window_anchor: expected a time of day");
    /* Extended to 2h, the warm-up reaches the horizon. */
    assert_int_equal(test_fleetsim(tmp, "run %s/small.json --window 2h --window-anchor 00:00", tmp), 2);
    test_stderr_has(tmp, "reaches the horizon");
}

static void test_check_and_plan_take_the_edits(void **state)
{
    (void)state;
    test_write(test_path("%s/small.json", tmp), small_scenario);
    /* check: --warmup replaces the "ci" warm-up (5m), --set edits the document. */
    assert_int_equal(test_fleetsim(tmp, "check %s/small.json --baseline %s/base.json --update --warmup 0"
                                        " --window 10m --set pools[0].gpus=4", tmp, tmp),
                     0);
    json_t *doc = load_json(test_path("%s/base.json", tmp));
    assert_true(scenario_field(doc, "horizon_s") == 3600); /* the ci horizon */
    assert_true(scenario_field(doc, "warmup_s") == 0);
    assert_true(scenario_field(doc, "window_s") == 600);
    assert_true(fabs(pool_gpu_hours(doc) - 4.0) < 1e-9);
    json_decref(doc);
    assert_int_equal(test_fleetsim(tmp, "check %s/small.json --baseline %s/base.json --warmup 0 --window 10m"
                                        " --set pools[0].gpus=4", tmp, tmp),
                     0);
    assert_int_equal(test_fleetsim(tmp, "check %s/small.json --baseline %s/base.json --set pools[x].gpus=4", tmp, tmp),
                     2);
    test_stderr_has(tmp, "pools[x].gpus");

    /* plan: every point gets the edits. */
    assert_int_equal(test_fleetsim(tmp, "plan %s/small.json --vary pools[0].gpus=3..4 --constraint"
                                        " 'service:chat.p99<=2000ms' --horizon 1800 --warmup 0 --quiet --out %s/plan",
                                   tmp, tmp),
                     0);
    doc = load_json(test_path("%s/plan/sweep.json", tmp));
    const json_t *scen = json_object_get(doc, "scenario");
    assert_true(json_number_value(json_object_get(scen, "horizon")) == 1800);
    assert_true(json_number_value(json_object_get(scen, "warmup")) == 0);
    json_decref(doc);
}

static void test_max_events_stops_and_writes_nothing(void **state)
{
    (void)state;
    test_write(test_path("%s/small.json", tmp), small_scenario);
    assert_int_equal(test_fleetsim(tmp, "run %s/small.json --max-events 1000 --out %s/stopped --report %s/rep", tmp,
                                   tmp, tmp),
                     1);
    test_stderr_has(tmp, "--max-events");
    assert_false(test_exists("%s/stopped/results.json", tmp));
    assert_false(test_exists("%s/rep/index.html", tmp));
    char *out = test_slurp("%s/out.txt", tmp);
    assert_string_equal(out, "");
    free(out);
    assert_int_equal(test_fleetsim(tmp, "check %s/small.json --baseline %s/never.json --update --max-events 1000",
                                   tmp, tmp),
                     1);
    assert_false(test_exists("%s/never.json", tmp));
    /* A limit the run stays under changes nothing. */
    assert_int_equal(test_fleetsim(tmp, "run %s/small.json --max-events 100000000 --no-timing --format json", tmp), 0);
    char *limited = test_slurp("%s/out.txt", tmp);
    assert_int_equal(test_fleetsim(tmp, "run %s/small.json --no-timing --format json", tmp), 0);
    char *free_run = test_slurp("%s/out.txt", tmp);
    assert_string_equal(limited, free_run);
    free(limited);
    free(free_run);
    assert_int_equal(test_fleetsim(tmp, "run %s/small.json --max-events 0", tmp), 2);
    assert_int_equal(test_fleetsim(tmp, "run %s/small.json --max-events lots", tmp), 2);
}

/* About 20 million events: past the first second, when progress shows. */
static const char *busy_scenario =
    "{\"schema\": \"fleetsim/1\", \"horizon\": \"1h\","
    " \"pools\": [{\"name\": \"p\", \"gpu\": \"L4-24GB\", \"gpus\": 1}],"
    " \"services\": [{\"name\": \"s\", \"arrivals\": {\"poisson_rps\": 3000},"
    "   \"service_time\": {\"exponential\": {\"mean\": \"100ms\"}},"
    "   \"replicas\": {\"count\": 1, \"concurrency\": 1000}}]}\n";

static void test_progress_only_on_a_terminal(void **state)
{
    (void)state;
    test_write(test_path("%s/busy.json", tmp), busy_scenario);
    assert_int_equal(test_fleetsim(tmp, "run %s/busy.json --format csv", tmp), 0);
    char *err = test_slurp("%s/err.txt", tmp);
    assert_null(strstr(err, "events/s"));
    assert_null(strchr(err, '\r'));
    assert_null(strchr(err, '\033'));
    free(err);
    /* The same run with stderr on a pseudo-terminal (script(1)) shows it. */
    if (test_sh("command -v script >/dev/null") != 0)
        return;
    assert_int_equal(test_sh("cd '%s' && script -qec \"'%s' run '%s/busy.json' --format csv >/dev/null\" /dev/null"
                             " >'%s/tty.txt' 2>&1",
                             FS_SOURCE_DIR, FS_BINARY, tmp, tmp),
                     0);
    char *tty = test_slurp("%s/tty.txt", tmp);
    assert_non_null(strstr(tty, "events/s"));
    assert_non_null(strstr(tty, "ETA"));
    free(tty);
}

/* The library's side: the watch sees progress and the limit stops the run. */
typedef struct seen {
    size_t calls;
    double last_now;
    uint64_t last_events;
    bool ordered;
} seen;

static void record(void *ctx, const fs_run_progress *p)
{
    seen *s = ctx;
    s->ordered = s->ordered && p->events > s->last_events && p->total == 2 && p->done < p->total &&
                 p->horizon_s == 3600 && p->now_s <= p->horizon_s;
    s->calls++;
    s->last_now = p->now_s;
    s->last_events = p->events;
}

static void test_run_watch(void **state)
{
    (void)state;
    fs_scenario *s = test_scenario("{\"schema\": \"fleetsim/1\", \"horizon\": \"1h\", \"replications\": 2,"
                                   " \"pools\": [{\"name\": \"p\", \"gpu\": \"L4-24GB\", \"gpus\": 2}],"
                                   " \"services\": [{\"name\": \"s\", \"arrivals\": {\"poisson_rps\": 20},"
                                   "   \"service_time\": {\"exponential\": {\"mean\": \"100ms\"}}, \"replicas\": 2}]}");
    seen got = {.ordered = true};
    fs_run_watch watch = {.progress = record, .ctx = &got};
    fs_results *r = NULL;
    fs_error err = {0};
    assert_int_equal(fs_run_watched(s, NULL, 0, &watch, &r, &err), FS_OK);
    /* About 2 x 20 x 3600 events per replication, two replications. */
    assert_true(got.calls >= r->events / FS_RUN_WATCH_EVERY - 2 && got.calls <= r->events / FS_RUN_WATCH_EVERY);
    assert_true(got.ordered);
    double estimate = fs_run_estimate_events(s);
    assert_true(estimate == 2 * 20 * 3600.0);
    assert_true(fabs((double)r->events / 2 - estimate) < 0.05 * estimate);
    fs_results_destroy(r);

    watch = (fs_run_watch){.max_events = 10000};
    r = NULL;
    assert_int_equal(fs_run_watched(s, NULL, 0, &watch, &r, &err), FS_ERR_RUNTIME);
    assert_null(r);
    assert_non_null(strstr(err.msg, "more than the limit of 10000"));
    fs_scenario_destroy(s);
}

static uint64_t watched_at[8];
static size_t n_watched;

static void tick(fs_sim *sim, const fs_event *ev, void *ctx)
{
    (void)ev, (void)ctx;
    fs_sim_schedule(sim, sim->now + 1, 0, 0, 0, 0);
}

static void watcher(fs_sim *sim, void *ctx)
{
    (void)ctx;
    watched_at[n_watched++] = sim->events;
    if (n_watched == 3)
        fs_sim_fail(sim, 1, "enough");
}

static void test_engine_watch(void **state)
{
    (void)state;
    fs_sim sim;
    assert_int_equal(fs_sim_init(&sim), 0);
    assert_true(fs_sim_register(&sim, tick, NULL) == 0);
    fs_sim_schedule(&sim, 0, 0, 0, 0, 0);
    /* Counted across calls: 5 events, then the watcher at 7, 14, 21. */
    assert_int_equal(fs_sim_run(&sim, 4), 0);
    assert_true(sim.events == 5);
    fs_sim_watch(&sim, 7, watcher, NULL);
    assert_int_equal(fs_sim_run(&sim, INFINITY), 1);
    assert_int_equal(n_watched, 3);
    assert_true(watched_at[0] == 7 && watched_at[1] == 14 && watched_at[2] == 21);
    assert_true(sim.events == 21);
    assert_string_equal(sim.failure, "enough");
    fs_sim_fini(&sim);
}

static void test_memory_units(void **state)
{
    (void)state;
    double bytes;
    assert_int_equal(fs_memsize_parse("80GiB", &bytes, NULL, 0), 0);
    assert_true(bytes == 80.0 * 1073741824.0);
    assert_int_equal(fs_memsize_parse("85.9GB", &bytes, NULL, 0), 0);
    assert_true(bytes == 85.9e9);
    assert_int_equal(fs_memsize_parse("512MiB", &bytes, NULL, 0), 0);
    assert_true(bytes == 512.0 * 1048576.0);
    assert_int_equal(fs_memsize_parse("1.5TB", &bytes, NULL, 0), 0);
    assert_true(bytes == 1.5e12);
    char why[128];
    const char *bad[] = {"", "GiB", "80", "80 GiB", "80Gb", "80gib", "1e3GiB", "0x10GiB", "-1GiB", "1.2.3GB", "inf"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        if (fs_memsize_parse(bad[i], &bytes, why, sizeof why) == 0)
            fail_msg("\"%s\" was accepted", bad[i]);
    assert_int_equal(fs_memsize_parse("80Gb", &bytes, why, sizeof why), -1);
    assert_non_null(strstr(why, "unknown unit \"Gb\""));

    /* In a scenario: sizes in GiB, exactly; a plain number is GiB as before. */
    fs_scenario *s = test_scenario(
        "{\"schema\": \"fleetsim/1\", \"horizon\": \"1h\","
        " \"gpus\": {\"big\": {\"memory_gb\": \"85.9GB\", \"sms\": 100, \"price_per_hour\": 1, \"idle_w\": 1,"
        "   \"busy_w\": 2}},"
        " \"pools\": [{\"name\": \"p\", \"gpu\": \"big\", \"gpus\": 2}],"
        " \"services\": [{\"name\": \"s\", \"memory_gb\": \"80GiB\", \"arrivals\": {\"poisson_rps\": 1},"
        "   \"service_time\": {\"exponential\": {\"mean\": \"100ms\"}}, \"replicas\": 2}],"
        " \"training\": [{\"name\": \"t\", \"gang\": 1, \"work_gpu_hours\": 1, \"state_gb_per_gpu\": 2,"
        "   \"submit\": {\"at\": [\"10m\"]}}]}");
    size_t big = test_gpu_type_index(s, "big");
    assert_true(s->gpu_types[big].memory_gb * 1073741824.0 == 85.9e9);
    assert_true(s->services[0].memory_gb == 80.0);
    assert_true(s->training[0].state_gb_per_gpu == 2.0);
    fs_scenario_destroy(s);

    test_parse_refused("{\"schema\": \"fleetsim/1\", \"horizon\": \"1h\", \"pools\": [{\"name\": \"p\","
                       " \"gpu\": \"L4-24GB\", \"gpus\": 1}], \"services\": [{\"name\": \"s\", \"memory_gb\": \"8Gb\","
                       " \"arrivals\": {\"poisson_rps\": 1}, \"service_time\": {\"exponential\": {\"mean\": \"1s\"}},"
                       " \"replicas\": 1}]}",
                       "scen.json", FS_ERR_INPUT, "scen.json: services[0].memory_gb: expected a positive memory size");
    test_parse_refused("{\"schema\": \"fleetsim/1\", \"horizon\": \"1h\", \"gpus\": {\"L4-24GB\": {\"memory_gb\":"
                       " \"0GiB\"}}, \"pools\": [], \"services\": []}",
                       "scen.json", FS_ERR_INPUT, "gpus.L4-24GB.memory_gb: expected a positive memory size");
}

static int setup(void **state)
{
    (void)state;
    return test_tmpdir(tmp, sizeof tmp, "fleetsim-gate");
}

static int teardown(void **state)
{
    (void)state;
    return test_rmdir(tmp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_set_changes_the_figure_it_names),
        cmocka_unit_test(test_horizon_warmup_window_take_effect),
        cmocka_unit_test(test_window_anchor),
        cmocka_unit_test(test_check_and_plan_take_the_edits),
        cmocka_unit_test(test_max_events_stops_and_writes_nothing),
        cmocka_unit_test(test_progress_only_on_a_terminal),
        cmocka_unit_test(test_run_watch),
        cmocka_unit_test(test_engine_watch),
        cmocka_unit_test(test_memory_units),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

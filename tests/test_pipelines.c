/*
 * test_pipelines — training streams chained with "after"
 * (models/workload/pipeline.h): a chain's cycle time on hand-worked
 * timelines (waits 0, then a wait behind another gang), an iteration open
 * at the horizon, a cancelled step ending its iteration unfinished, GPU-hours
 * conserved per stream, and the refusals of bad graphs (a cycle with its
 * path, an unknown name, "after" beside "submit"), and joins (a step after
 * a list: hand-worked cycles with and without a wait, a cancelled
 * predecessor, never matched across iterations, and the list's refusals),
 * and deploy steps (rollouts of 3 replicas warming 7 s each: 21 s one at a
 * time, 14 s two at a time and 28 s queued behind another, 7224 s when the
 * first new replica waits for a unit; ready replicas exactly 3 on average;
 * the pool's GPU-seconds conserved; refusals; results.json and the table).
 *
 * Round calibration as test_quotas.c: a member with no state warms in
 * 1 + 2 = 3 s.  Every test prints the figures it compares.
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

#include "testutil.h"

#include "metrics.h"
#include "results.h"
#include "run.h"
#include "scenario.h"

#define WARM 3.0 /* 1 s context + 2 s framework, no state */

#define CALIBRATION                                                                            \
    "\"calibration\": {\"context_s\": 1, \"framework_s\": 2, \"storage_gbps\": 10,"            \
    " \"inference_warmup_s\": 3}"

#define POOL(n)                                                                                \
    "\"policies\": {\"shared\": {\"kind\": \"shared\", \"pools\": [{\"name\": \"batch\", \"class\": \"batch\","  \
    " \"gpu\": \"H100-SXM-80GB\", \"gpus\": " #n "}]}}"

/* retrain (gang 4, 2 h) -> evaluate (gang 1, 30 min) -> deploy (gang 1, 10 min). */
#define CHAIN(submit, evaluate_extra)                                                          \
    "{\"name\": \"retrain\", \"submit\": {\"at\": " submit "}, \"gang\": 4, \"work_gpu_hours\": 8},"  \
    " {\"name\": \"evaluate\", \"after\": \"retrain\", \"gang\": 1, \"work_gpu_hours\": 0.5" evaluate_extra "}," \
    " {\"name\": \"deploy\", \"after\": \"evaluate\", \"gang\": 1,"                            \
    " \"run_time\": {\"deterministic\": {\"value\": \"10m\"}}}"

static void near(double got, double want, double tol, const char *what)
{
    if (!(fabs(got - want) <= tol))
        fail_msg("%s: got %.12g, want %.12g (tolerance %g)", what, got, want, tol);
}

static const fs_training_rep *stream_of(const fs_results *r, const char *name)
{
    for (size_t i = 0; i < r->scenario->n_training; i++)
        if (strcmp(r->scenario->training[i].name, name) == 0)
            return &r->policies[0].reps[0].training[i];
    fail_msg("no stream %s", name);
    return NULL;
}

/* held = startup + checkpoint + done + lost + failed + cancelled + open, per stream. */
static void assert_conserved(const fs_results *r)
{
    for (size_t i = 0; i < r->scenario->n_training; i++) {
        const fs_training_rep *t = &r->policies[0].reps[0].training[i];
        double parts = t->hours.startup + t->hours.checkpoint + t->gpu_hours_done + t->gpu_hours_lost +
                       t->hours.failed + t->hours.cancelled + t->hours.open;
        printf("  %-9s held %.9f GPU-h = parts %.9f\n", r->scenario->training[i].name, t->hours.held, parts);
        near(t->hours.held, parts, 1e-9, "GPU-hours held vs their parts");
    }
}

static json_t *load_json(const char *path)
{
    json_error_t jerr;
    json_t *doc = json_load_file(path, 0, &jerr);
    if (!doc)
        fail_msg("%s: %s", path, jerr.text);
    return doc;
}

static void print_pipeline(const struct fs_pipeline_rep *pl)
{
    printf("  pipeline: started %llu completed %llu unfinished %llu open %llu; cycles",
           (unsigned long long)pl->started, (unsigned long long)pl->completed, (unsigned long long)pl->unfinished,
           (unsigned long long)pl->open);
    for (size_t k = 0; k < pl->n_cycles; k++)
        printf(" %.6f s", pl->cycle_s[k]);
    printf("\n");
}

/* ---- a. enough GPUs: cycle = warm-ups + runs ------------------------------- */

/* 8 GPUs.  Iterations start at 0, 4 h and 11 h (horizon 12 h).  Nothing
 * waits: retrain 3 + 7200, evaluate 3 + 1800, deploy 3 + 600: 9609 s each.
 * The third is still going at the horizon (11 h + 9609 s > 12 h): open. */
static void test_chain_no_wait(void **state)
{
    (void)state;
    fs_scenario *s = test_scenario("{\"schema\": \"fleetsim/1\", \"horizon\": \"12h\", " POOL(8) ","
                                   " \"training\": [" CHAIN("[0, \"4h\", \"11h\"]", "") "], " CALIBRATION "}");
    assert_int_equal(s->training[1].after, 0);
    assert_int_equal(s->training[2].after, 1);
    fs_results *r = test_run(s);
    const struct fs_pipeline_rep *pl = &stream_of(r, "retrain")->pipeline;
    double want = WARM + 7200 + WARM + 1800 + WARM + 600;
    print_pipeline(pl);
    printf("  want cycles %.6f s (3 + 7200 + 3 + 1800 + 3 + 600), started 3 completed 2 open 1\n", want);
    assert_int_equal(pl->started, 3);
    assert_int_equal(pl->completed, 2);
    assert_int_equal(pl->open, 1);
    assert_int_equal(pl->unfinished, 0);
    assert_int_equal(pl->n_cycles, 2);
    near(pl->cycle_s[0], want, 1e-6, "first cycle");
    near(pl->cycle_s[1], want, 1e-6, "second cycle");
    assert_int_equal(stream_of(r, "evaluate")->submitted, 2); /* the third retrain ends after the horizon */
    assert_int_equal(stream_of(r, "deploy")->submitted, 2);
    assert_int_equal(stream_of(r, "evaluate")->pipeline.started, 0); /* only the root carries it */
    fs_pipeline_summary sum;
    assert_int_equal(fs_results_pipeline_summary(r, 0, 0, &sum), 0);
    printf("  summary: mean %.6f p50 %.6f p95 %.6f max %.6f\n", sum.cycle_mean_s, sum.cycle_p50_s, sum.cycle_p95_s,
           sum.cycle_max_s);
    near(sum.cycle_p95_s, want, 1e-6, "p95");
    near(sum.cycle_max_s, want, 1e-6, "max");
    /* The run's record (what sweeps, plans and sensitivity runs read) has
     * the root's figures and no other stream has them. */
    fs_metrics m;
    fs_error err;
    assert_int_equal(fs_metrics_from_run(r, 0, 0, &m, &err), FS_OK);
    double got[6] = {NAN, NAN, NAN, NAN, NAN, NAN};
    static const char *const names[6] = {"training:retrain.iterations_started", "training:retrain.iterations_completed",
                                         "training:retrain.cycle_mean_s",       "training:retrain.cycle_p50_s",
                                         "training:retrain.cycle_p95_s",        "training:retrain.cycle_max_s"};
    for (size_t v = 0; v < m.n_values; v++) {
        assert_null(strstr(m.names[v], "training:evaluate.cycle"));
        for (size_t k = 0; k < 6; k++)
            if (strcmp(m.names[v], names[k]) == 0)
                got[k] = m.values[v];
    }
    printf("  record: started %g completed %g mean %.6f p50 %.6f p95 %.6f max %.6f\n", got[0], got[1], got[2],
           got[3], got[4], got[5]);
    near(got[0], 3, 0, "iterations_started");
    near(got[1], 2, 0, "iterations_completed");
    for (size_t k = 2; k < 6; k++)
        near(got[k], want, 1e-6, names[k]);
    fs_metrics_fini(&m);
    assert_conserved(r);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

/* ---- b. too few GPUs: a wait appears --------------------------------------- */

/* 4 GPUs.  retrain starts at 0 and ends at 7203.  "other" (gang 4, 1 h),
 * submitted at 100, waits for it and, first in line, takes the 4 GPUs at
 * 7203, before evaluate, submitted at that instant, can: evaluate waits to
 * other's end, 7203 + 3 + 3600 = 10806 (wait 3603), runs to 10806 + 3 + 1800
 * = 12609; deploy starts at once and ends at 12609 + 3 + 600 = 13212.
 * Cycle = waits 0 + 3603 + 0 + warm-ups 9 + runs 9600 = 13212. */
static void test_chain_with_wait(void **state)
{
    (void)state;
    fs_scenario *s = test_scenario("{\"schema\": \"fleetsim/1\", \"horizon\": \"6h\", " POOL(4) ","
                                   " \"training\": [" CHAIN("[0]", "") ","
                                   " {\"name\": \"other\", \"submit\": {\"at\": [100]}, \"gang\": 4,"
                                   " \"work_gpu_hours\": 4}], " CALIBRATION "}");
    fs_results *r = test_run(s);
    const fs_training_rep *ev = stream_of(r, "evaluate"), *dep = stream_of(r, "deploy");
    const struct fs_pipeline_rep *pl = &stream_of(r, "retrain")->pipeline;
    assert_int_equal(ev->n_waits, 1);
    assert_int_equal(dep->n_waits, 1);
    double waits = stream_of(r, "retrain")->waits[0].wait_s + ev->waits[0].wait_s + dep->waits[0].wait_s;
    double want = waits + 3 * WARM + 7200 + 1800 + 600;
    print_pipeline(pl);
    printf("  waits: retrain %.6f evaluate %.6f deploy %.6f (want 0, 3603, 0); want cycle %.6f = waits %.6f"
           " + warm-ups 9 + runs 9600\n",
           stream_of(r, "retrain")->waits[0].wait_s, ev->waits[0].wait_s, dep->waits[0].wait_s, want, waits);
    near(ev->waits[0].wait_s, 3603, 1e-6, "evaluate's wait");
    near(waits, 3603, 1e-6, "the waits");
    assert_int_equal(pl->completed, 1);
    assert_int_equal(pl->n_cycles, 1);
    near(pl->cycle_s[0], want, 1e-6, "cycle");
    near(pl->cycle_s[0], 13212, 1e-6, "cycle, hand-worked");
    assert_conserved(r);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

/* ---- c. a cancelled step ends its iteration unfinished --------------------- */

/* evaluate is always cancelled 10 min after its submission: its iteration
 * ends unfinished, deploy is never submitted, nothing completes. */
static void test_cancelled_step(void **state)
{
    (void)state;
    fs_scenario *s = test_scenario(
        "{\"schema\": \"fleetsim/1\", \"horizon\": \"12h\", " POOL(8) ","
        " \"training\": [" CHAIN("[0, \"4h\"]", ", \"cancellations\": {\"probability\": 1, \"after\":"
                                                 " {\"deterministic\": {\"value\": \"10m\"}}}") "], " CALIBRATION "}");
    fs_results *r = test_run(s);
    const struct fs_pipeline_rep *pl = &stream_of(r, "retrain")->pipeline;
    print_pipeline(pl);
    printf("  evaluate cancelled %llu, deploy submitted %llu (want 2 unfinished, 2 cancelled, 0 deploys)\n",
           (unsigned long long)stream_of(r, "evaluate")->cancelled,
           (unsigned long long)stream_of(r, "deploy")->submitted);
    assert_int_equal(pl->started, 2);
    assert_int_equal(pl->unfinished, 2);
    assert_int_equal(pl->completed, 0);
    assert_int_equal(pl->open, 0);
    assert_int_equal(stream_of(r, "evaluate")->cancelled, 2);
    assert_int_equal(stream_of(r, "deploy")->submitted, 0);
    assert_conserved(r);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

/* ---- d. refusals ----------------------------------------------------------- */

static void refused(const char *training, const char *want)
{
    char json[2048];
    snprintf(json, sizeof json,
             "{\"schema\": \"fleetsim/1\", \"horizon\": \"1h\", " POOL(8) ", \"services\": [{\"name\": \"chat\","
             " \"arrivals\": {\"poisson_rps\": 1}, \"service_time\": {\"deterministic\": {\"value\": \"1s\"}}, \"replicas\": 1}],"
             " \"training\": [%s]}",
             training);
    printf("  %s\n    -> refused with \"%s\"\n", training, want);
    test_parse_refused(json, "test", FS_ERR_INPUT, want);
}

#define STEP(name, after) "{\"name\": \"" name "\", \"after\": " after ", \"gang\": 1, \"work_gpu_hours\": 1}"
#define ROOT(name) "{\"name\": \"" name "\", \"submit\": {\"at\": [0]}, \"gang\": 1, \"work_gpu_hours\": 1}"

static void test_refusals(void **state)
{
    (void)state;
    refused(ROOT("data") ", " STEP("evaluate", "\"retrain\"") ", " STEP("retrain", "\"evaluate\""),
            "test: training[1].after: the pipeline has a cycle: evaluate -> retrain -> evaluate");
    refused(ROOT("data") ", " STEP("a", "\"c\"") ", " STEP("b", "\"a\"") ", " STEP("c", "\"b\""),
            "test: training[1].after: the pipeline has a cycle: a -> b -> c -> a");
    refused(STEP("self", "\"self\""), "test: training[0].after: the pipeline has a cycle: self -> self");
    refused(ROOT("retrain") ", " STEP("evaluate", "\"retrian\""),
            "test: training[1].after: no training stream is named \"retrian\" (did you mean \"retrain\"?)");
    refused(ROOT("retrain") ", " STEP("evaluate", "\"chat\""),
            "test: training[1].after: no training stream is named \"chat\" (\"chat\" is a service");
    refused(ROOT("retrain") ", {\"name\": \"evaluate\", \"after\": \"retrain\", \"submit\": {\"at\": [0]},"
                            " \"gang\": 1, \"work_gpu_hours\": 1}",
            "test: training[1].after: expected \"after\" or \"submit\", not both");
    refused(ROOT("retrain") ", " ROOT("data") ", " STEP("evaluate", "[\"retrain\", \"data\"]"),
            "test: training[2].after: a join's predecessors must descend from the same root stream: \"retrain\""
            " descends from \"retrain\", \"data\" from \"data\"");
    refused(ROOT("retrain") ", " STEP("evaluate", "\"\""), "test: training[1].after:");
    refused(ROOT("retrain") ", {\"name\": \"evaluate\", \"gang\": 1, \"work_gpu_hours\": 1}",
            "test: training[1]: missing required key \"submit\"");
}

/* ---- f. joins: a step after a list of predecessors ---------------------- */

/* prep (gang 1, 30 min) -> train-a (gang 1, 2 h) and train-b (gang 1, 3 h)
 * -> evaluate after [train-a, train-b] (gang 1, 1 h).  extra: more streams
 * (a leading comma), b_extra: more keys of train-b. */
#define JOIN(submit, b_extra, extra)                                                              \
    "{\"name\": \"prep\", \"submit\": {\"at\": " submit "}, \"gang\": 1, \"work_gpu_hours\": 0.5},"   \
    " {\"name\": \"train-a\", \"after\": \"prep\", \"gang\": 1, \"work_gpu_hours\": 2},"            \
    " {\"name\": \"train-b\", \"after\": \"prep\", \"gang\": 1, \"work_gpu_hours\": 3" b_extra "},"  \
    " {\"name\": \"evaluate\", \"after\": [\"train-a\", \"train-b\"], \"gang\": 1, \"work_gpu_hours\": 1}" extra

/* 8 GPUs, one iteration at 0.  prep 0 -> 3 + 1800 = 1803; a and b
 * submitted at 1803, a ends 1803 + 3 + 7200 = 9006, b 1803 + 3 + 10800 =
 * 12606; evaluate submitted at 12606 (the later), ends 12606 + 3 + 3600 =
 * 16209.  Cycle = 1803 + max(7203, 10803) + 3603 = 16209 s. */
static void test_join_no_wait(void **state)
{
    (void)state;
    fs_scenario *s = test_scenario("{\"schema\": \"fleetsim/1\", \"horizon\": \"8h\", " POOL(8) ","
                                   " \"training\": [" JOIN("[0]", "", "") "], " CALIBRATION "}");
    assert_int_equal(s->training[3].n_after, 2);
    assert_int_equal(s->training[3].afters[0], 1);
    assert_int_equal(s->training[3].afters[1], 2);
    fs_results *r = test_run(s);
    const struct fs_pipeline_rep *pl = &stream_of(r, "prep")->pipeline;
    print_pipeline(pl);
    printf("  want cycle 16209 s = prep 1803 + max(a 7203, b 10803) + evaluate 3603; evaluate submitted once\n");
    assert_int_equal(pl->started, 1);
    assert_int_equal(pl->completed, 1);
    assert_int_equal(pl->n_cycles, 1);
    near(pl->cycle_s[0], 1803 + 10803 + 3603, 1e-6, "join cycle");
    assert_int_equal(stream_of(r, "evaluate")->submitted, 1);
    assert_int_equal(stream_of(r, "evaluate")->completed, 1);
    assert_conserved(r);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

/* 2 GPUs.  prep holds one from 0 to 1803; "other" (gang 1, 4 h),
 * submitted at 100, takes the second at 100 and holds it to 100 + 3 +
 * 14400 = 14503.  At 1803 a (submitted first) takes prep's GPU, ends at
 * 9006; b waits to 9006 (wait 7203) and ends at 9006 + 3 + 10800 = 19809;
 * evaluate runs 19809 -> 23412.  Cycle = 16209 + b's wait 7203 = 23412 s. */
static void test_join_with_wait(void **state)
{
    (void)state;
    fs_scenario *s = test_scenario("{\"schema\": \"fleetsim/1\", \"horizon\": \"8h\", " POOL(2) ","
                                   " \"training\": [" JOIN("[0]", "", ", {\"name\": \"other\", \"submit\": {\"at\":"
                                                                      " [100]}, \"gang\": 1, \"work_gpu_hours\": 4}")
                                   "], " CALIBRATION "}");
    fs_results *r = test_run(s);
    const struct fs_pipeline_rep *pl = &stream_of(r, "prep")->pipeline;
    const fs_training_rep *b = stream_of(r, "train-b");
    print_pipeline(pl);
    assert_int_equal(b->n_waits, 1);
    printf("  train-b waited %.6f s (want 7203); want cycle 23412 s = 16209 + 7203\n", b->waits[0].wait_s);
    near(b->waits[0].wait_s, 7203, 1e-6, "train-b's wait");
    assert_int_equal(pl->completed, 1);
    near(pl->cycle_s[0], 16209 + 7203, 1e-6, "join cycle with a wait");
    assert_conserved(r);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

/* train-b always cancelled 10 min after submission, in two iterations (0
 * and 6 h): train-a completes in both, so a count kept per stream instead
 * of per iteration would reach 2 and submit evaluate; matched by iteration
 * it never is, and both iterations end unfinished (none left open). */
static void test_join_cancelled(void **state)
{
    (void)state;
    fs_scenario *s = test_scenario(
        "{\"schema\": \"fleetsim/1\", \"horizon\": \"12h\", " POOL(8) ", \"training\": ["
        JOIN("[0, \"6h\"]", ", \"cancellations\": {\"probability\": 1, \"after\": {\"deterministic\": {\"value\":"
                            " \"10m\"}}}", "") "], " CALIBRATION "}");
    fs_results *r = test_run(s);
    const struct fs_pipeline_rep *pl = &stream_of(r, "prep")->pipeline;
    print_pipeline(pl);
    printf("  train-a completed %llu, train-b cancelled %llu, evaluate submitted %llu (want 2, 2, 0)\n",
           (unsigned long long)stream_of(r, "train-a")->completed,
           (unsigned long long)stream_of(r, "train-b")->cancelled,
           (unsigned long long)stream_of(r, "evaluate")->submitted);
    assert_int_equal(stream_of(r, "train-a")->completed, 2);
    assert_int_equal(stream_of(r, "train-b")->cancelled, 2);
    assert_int_equal(stream_of(r, "evaluate")->submitted, 0);
    assert_int_equal(pl->started, 2);
    assert_int_equal(pl->unfinished, 2);
    assert_int_equal(pl->completed, 0);
    assert_int_equal(pl->open, 0);
    assert_conserved(r);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

static void test_join_refusals(void **state)
{
    (void)state;
    refused(ROOT("data") ", " STEP("a", "\"data\"") ", " STEP("j", "[\"a\", \"a\"]"),
            "test: training[2].after[1]: \"a\" is listed twice (after[0] too)");
    refused(ROOT("data") ", " STEP("a", "\"data\"") ", " STEP("j", "[\"a\", \"dta\"]"),
            "test: training[2].after[1]: no training stream is named \"dta\" (did you mean \"data\"?)");
    refused(ROOT("data") ", " STEP("x", "[\"data\", \"y\"]") ", " STEP("y", "\"x\""),
            "test: training[1].after: the pipeline has a cycle: x -> y -> x");
    refused(ROOT("r1") ", " ROOT("r2") ", " STEP("a", "\"r1\"") ", " STEP("b", "\"r2\"") ", "
            STEP("j", "[\"a\", \"b\"]"),
            "test: training[4].after: a join's predecessors must descend from the same root stream: \"a\" descends"
            " from \"r1\", \"b\" from \"r2\"");
    refused(ROOT("data") ", " STEP("j", "[]"),
            "test: training[1].after: expected a training stream's name or a non-empty list of them");
    refused(ROOT("data") ", " STEP("j", "[\"data\", 3]"), "test: training[1].after[1]: expected");
}

/* ---- g. deploy steps: a rolling update of a service ---------------------- */

/* recs: 3 replicas of "10GB" weights (10 GB: 1 s at 10 GB/s), so a new
 * replica warms W = 1 context + 2 framework + 1 weights + 3 first kernels =
 * 7 s.  retrain (gang 1, 1 h) -> deploy-recs. */
#define DEPLOY_W 7.0
#define RECS(rps)                                                                                 \
    "\"services\": [{\"name\": \"recs\", \"arrivals\": {\"poisson_rps\": " rps "}, \"service_time\":" \
    " {\"deterministic\": {\"value\": \"10ms\"}}, \"replicas\": 3, \"memory_gb\": \"10GB\"}]"
#define DEPLOY(submit, surge, extra)                                                              \
    "{\"name\": \"retrain\", \"submit\": {\"at\": " submit "}, \"gang\": 1, \"work_gpu_hours\": 1},"   \
    " {\"name\": \"deploy-recs\", \"after\": \"retrain\", \"deploy\": {\"service\": \"recs\", \"max_surge\": " \
    surge "}}" extra

/* provisioned = busy + idle + switching for the one pool, and switching
 * (warm-ups: nothing here is evicted) as hand-worked. */
static void assert_pool_conserved(const fs_results *r, double switching_s)
{
    const fs_pool_rep *pr = &r->policies[0].reps[0].pools[0];
    double sum = pr->busy_gpu_s + pr->idle_gpu_s + pr->switching_gpu_s;
    printf("  pool: gpu_s %.6f = busy %.6f + idle %.6f + switching %.6f (want switching %.6f)\n", pr->gpu_s,
           pr->busy_gpu_s, pr->idle_gpu_s, pr->switching_gpu_s, switching_s);
    near(pr->gpu_s, sum, 1e-6 * pr->gpu_s, "GPU-seconds provisioned vs busy + idle + switching");
    near(pr->switching_gpu_s, switching_s, 1e-6, "switching GPU-seconds");
    /* idle is what the others leave (so the sum above holds by
     * construction): it must not go below zero. */
    assert_true(pr->idle_gpu_s >= -1e-6);
}

/* One rollout with max_surge 1, 8 GPUs (5 free at 3603).  retrain 0 ->
 * 3 + 3600 = 3603; new replicas one at a time: ready at 3610, 3617, 3624,
 * each draining an old one: duration 3 x W = 21 s, cycle 3603 + 21 = 3624.
 * Ready replicas: 3 throughout (4 only at the instants a new one is ready
 * and an old one not yet draining), so their time average is exactly 3;
 * 3 added.  Switching: retrain's 3 s + 3 x 7 s = 24 GPU-s. */
static void test_deploy_one_at_a_time(void **state)
{
    (void)state;
    fs_scenario *s = test_scenario("{\"schema\": \"fleetsim/1\", \"horizon\": \"2h\", " POOL(8) ", " RECS("1") ","
                                   " \"training\": [" DEPLOY("[0]", "1", "") "], " CALIBRATION "}");
    assert_int_equal(s->training[1].deploy_service, 0);
    assert_int_equal(s->training[1].deploy_max_surge, 1);
    assert_int_equal(s->training[1].gang, 0);
    fs_results *r = test_run(s);
    const struct fs_pipeline_rep *pl = &stream_of(r, "retrain")->pipeline;
    const struct fs_pipeline_rep *ro = &stream_of(r, "deploy-recs")->rollouts;
    const fs_service_rep *recs = &r->policies[0].reps[0].services[0];
    print_pipeline(pl);
    printf("  rollouts: started %llu completed %llu, duration %.6f s (want 21 = 3 x 7); cycle want 3624;"
           " recs mean ready %.9f (want 3), added %llu (want 3)\n",
           (unsigned long long)ro->started, (unsigned long long)ro->completed, ro->n_cycles ? ro->cycle_s[0] : -1,
           recs->mean_ready_replicas, (unsigned long long)recs->replicas_added);
    assert_int_equal(ro->started, 1);
    assert_int_equal(ro->completed, 1);
    assert_int_equal(ro->open, 0);
    assert_int_equal(ro->n_cycles, 1);
    near(ro->cycle_s[0], 3 * DEPLOY_W, 1e-6, "rollout duration");
    assert_int_equal(pl->completed, 1);
    near(pl->cycle_s[0], 3603 + 3 * DEPLOY_W, 1e-6, "cycle with a rollout");
    near(recs->mean_ready_replicas, 3, 1e-9, "ready replicas, time average");
    assert_int_equal(recs->replicas_added, 3);
    assert_true(recs->completed > 0); /* it kept serving */
    assert_int_equal(stream_of(r, "deploy-recs")->submitted, 0); /* a rollout is not a job */
    assert_conserved(r);
    assert_pool_conserved(r, 3 + 3 * DEPLOY_W);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

/* max_surge 2, two iterations at 0 (two retrains side by side), so two
 * rollouts are submitted at 3603.  The first: 2 new at 3610, then 1 at
 * 3617: ceil(3 / 2) x W = 14 s.  The second waits for it, then replaces
 * the 3 it left: 3617 -> 3631, duration 28 s.  Cycles 3617 and 3631;
 * 6 replicas added, still 3 ready on average.  Switching 2 x 3 + 6 x 7 =
 * 48 GPU-s. */
static void test_deploy_surge_two_queued(void **state)
{
    (void)state;
    fs_scenario *s = test_scenario("{\"schema\": \"fleetsim/1\", \"horizon\": \"2h\", " POOL(8) ", " RECS("1") ","
                                   " \"training\": [" DEPLOY("[0, 0]", "2", "") "], " CALIBRATION "}");
    fs_results *r = test_run(s);
    const struct fs_pipeline_rep *pl = &stream_of(r, "retrain")->pipeline;
    const struct fs_pipeline_rep *ro = &stream_of(r, "deploy-recs")->rollouts;
    const fs_service_rep *recs = &r->policies[0].reps[0].services[0];
    print_pipeline(pl);
    printf("  rollouts: %zu, durations %.6f and %.6f s (want 14 = ceil(3/2) x 7, and 28 after waiting 14);"
           " recs mean ready %.9f, added %llu (want 6)\n",
           ro->n_cycles, ro->n_cycles > 0 ? ro->cycle_s[0] : -1, ro->n_cycles > 1 ? ro->cycle_s[1] : -1,
           recs->mean_ready_replicas, (unsigned long long)recs->replicas_added);
    assert_int_equal(ro->completed, 2);
    assert_int_equal(ro->n_cycles, 2);
    near(ro->cycle_s[0], 2 * DEPLOY_W, 1e-6, "first rollout");
    near(ro->cycle_s[1], 4 * DEPLOY_W, 1e-6, "second rollout, queued behind the first");
    assert_int_equal(pl->n_cycles, 2);
    near(pl->cycle_s[0], 3603 + 2 * DEPLOY_W, 1e-6, "first cycle");
    near(pl->cycle_s[1], 3603 + 4 * DEPLOY_W, 1e-6, "second cycle");
    near(recs->mean_ready_replicas, 3, 1e-9, "ready replicas, time average");
    assert_int_equal(recs->replicas_added, 6);
    assert_conserved(r);
    assert_pool_conserved(r, 2 * 3 + 6 * DEPLOY_W);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

/* 4 GPUs: recs holds 3, retrain the fourth from 0 to 3603.  "blocker"
 * (gang 1, 2 h), submitted at 1 s, waits for it and takes it at 3603, first
 * in line, before the rollout's first new replica, asked at that instant:
 * that one waits to the blocker's end, 3603 + 3 + 7200 = 10806 (T).  Then
 * 10813, 10820, 10827 (each drained old replica's unit taken by the next
 * new one): duration 7203 + 21 = 7224 s, cycle 10827. */
static void test_deploy_waits_for_a_unit(void **state)
{
    (void)state;
    fs_scenario *s = test_scenario(
        "{\"schema\": \"fleetsim/1\", \"horizon\": \"4h\", " POOL(4) ", " RECS("1") ", \"training\": ["
        DEPLOY("[0]", "1", ", {\"name\": \"blocker\", \"submit\": {\"at\": [1]}, \"gang\": 1, \"work_gpu_hours\": 2}")
        "], " CALIBRATION "}");
    fs_results *r = test_run(s);
    const struct fs_pipeline_rep *pl = &stream_of(r, "retrain")->pipeline;
    const struct fs_pipeline_rep *ro = &stream_of(r, "deploy-recs")->rollouts;
    const fs_service_rep *recs = &r->policies[0].reps[0].services[0];
    print_pipeline(pl);
    printf("  blocker waited %.6f s (want 3602); rollout %.6f s (want 7224 = wait to T 7203 + 21); recs mean"
           " ready %.9f\n",
           stream_of(r, "blocker")->waits[0].wait_s, ro->n_cycles ? ro->cycle_s[0] : -1, recs->mean_ready_replicas);
    near(stream_of(r, "blocker")->waits[0].wait_s, 3602, 1e-6, "blocker's wait");
    assert_int_equal(ro->n_cycles, 1);
    near(ro->cycle_s[0], 10806 - 3603 + 3 * DEPLOY_W, 1e-6, "rollout waiting for a unit");
    near(pl->cycle_s[0], 10806 + 3 * DEPLOY_W, 1e-6, "cycle");
    near(recs->mean_ready_replicas, 3, 1e-9, "ready replicas, time average");
    assert_conserved(r);
    assert_pool_conserved(r, 3 + 3 + 3 * DEPLOY_W);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

/* Busy old replicas: recs saturated (0.1 rps of 60 s requests on 3
 * replicas), so an old replica drains with a request in service.  With
 * max_surge 1 the service has one surge slot, so the next new replica is
 * asked for only when the draining one turns off (at most 60 s later);
 * the last old one drains after the rollout completes.  So 21 s < duration
 * <= 21 + 2 x 60 = 141 s; ready replicas still exactly 3 on average (the
 * new one serves while the old drains); every request accounted for:
 * arrivals = completed + dropped + in flight at the horizon. */
static void test_deploy_drains_busy_replicas(void **state)
{
    (void)state;
    fs_scenario *s = test_scenario(
        "{\"schema\": \"fleetsim/1\", \"horizon\": \"2h\", " POOL(8) ", \"services\": [{\"name\": \"recs\","
        " \"arrivals\": {\"poisson_rps\": 0.1}, \"service_time\": {\"deterministic\": {\"value\": \"60s\"}},"
        " \"replicas\": 3, \"memory_gb\": \"10GB\"}], \"training\": [" DEPLOY("[0]", "1", "") "], " CALIBRATION "}");
    fs_results *r = test_run(s);
    const struct fs_pipeline_rep *ro = &stream_of(r, "deploy-recs")->rollouts;
    const fs_service_rep *recs = &r->policies[0].reps[0].services[0];
    printf("  rollout %.6f s (want in (21, 141]); recs mean ready %.9f; requests %llu = completed %llu + dropped"
           " %llu + in flight %llu\n",
           ro->n_cycles ? ro->cycle_s[0] : -1, recs->mean_ready_replicas, (unsigned long long)recs->requests,
           (unsigned long long)recs->completed, (unsigned long long)recs->dropped,
           (unsigned long long)recs->in_flight_end);
    assert_int_equal(ro->completed, 1);
    assert_true(ro->cycle_s[0] > 3 * DEPLOY_W + 1e-6);
    assert_true(ro->cycle_s[0] <= 3 * DEPLOY_W + 2 * 60 + 1e-6);
    near(recs->mean_ready_replicas, 3, 1e-9, "ready replicas, time average");
    assert_int_equal(recs->in_flight_start, 0);
    assert_int_equal(recs->requests, recs->completed + recs->dropped + recs->in_flight_end);
    assert_conserved(r);
    assert_pool_conserved(r, 3 + 3 * DEPLOY_W);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

#define DEPLOY_STEP(body) "{\"name\": \"d\", " body "}"

static void test_deploy_refusals(void **state)
{
    (void)state;
    refused(ROOT("data") ", " DEPLOY_STEP("\"after\": \"data\", \"deploy\": {\"service\": \"chat\"}, \"gang\": 1"),
            "test: training[1].gang: a deploy step takes no training GPUs of its own: \"gang\" is refused beside"
            " \"deploy\"");
    refused(ROOT("data") ", " DEPLOY_STEP("\"after\": \"data\", \"deploy\": {\"service\": \"chat\"},"
                                          " \"work_gpu_hours\": 1"),
            "test: training[1].work_gpu_hours: a deploy step takes no training GPUs of its own");
    refused(ROOT("data") ", " DEPLOY_STEP("\"after\": \"data\", \"submit\": {\"at\": [0]}, \"deploy\":"
                                          " {\"service\": \"chat\"}"),
            "test: training[1].submit: a deploy step is submitted by its predecessors: \"submit\" is refused");
    refused(ROOT("data") ", " DEPLOY_STEP("\"deploy\": {\"service\": \"chat\"}"),
            "test: training[1].deploy: a deploy step is a pipeline step: give it \"after\"");
    refused(ROOT("data") ", " DEPLOY_STEP("\"after\": \"data\", \"deploy\": {\"service\": \"caht\"}"),
            "test: training[1].deploy.service: no service is named \"caht\" (did you mean \"chat\"?)");
    refused(ROOT("data") ", " DEPLOY_STEP("\"after\": \"data\", \"deploy\": {\"service\": \"chat\", \"max_surge\": 0}"),
            "test: training[1].deploy.max_surge: expected");
    refused(ROOT("data") ", " DEPLOY_STEP("\"after\": \"data\", \"deploy\": {\"service\": \"chat\", \"surge\": 1}"),
            "test: training[1].deploy: unknown key \"surge\"");
    refused(ROOT("data") ", " DEPLOY_STEP("\"after\": \"data\", \"deploy\": \"chat\""),
            "test: training[1].deploy: expected an object");
}

/* ---- e. through the command line: results.json, the table, exit 2 ------- */

static void test_cli(void **state)
{
    (void)state;
    char dir[256];
    assert_int_equal(test_tmpdir(dir, sizeof dir, "pipelines"), 0);
    test_write(test_path("%s/chain.json", dir),
               "{\"schema\": \"fleetsim/1\", \"horizon\": \"12h\", " POOL(8) ","
               " \"training\": [" CHAIN("[0, \"4h\", \"11h\"]", "") "], " CALIBRATION "}");
    json_t *res = test_fleetsim_json(dir, "run %s/chain.json --format json --no-timing", dir);
    const json_t *training = test_json_at(json_array_get(test_json_at(res, "policies"), 0), "training");
    const json_t *root = json_array_get(training, 0), *evaluate = json_array_get(training, 1);
    printf("  json: started %g completed %g unfinished %g open %g; cycle_s mean %g p50 %g p95 %g max %g;"
           " evaluate after \"%s\"\n",
           test_json_num(root, "pipeline.started"), test_json_num(root, "pipeline.completed"),
           test_json_num(root, "pipeline.unfinished"), test_json_num(root, "pipeline.open_at_end"),
           test_json_num(root, "pipeline.cycle_s.mean"), test_json_num(root, "pipeline.cycle_s.p50"),
           test_json_num(root, "pipeline.cycle_s.p95"), test_json_num(root, "pipeline.cycle_s.max"),
           test_json_str(evaluate, "after"));
    assert_true(test_json_num(root, "pipeline.started") == 3);
    assert_true(test_json_num(root, "pipeline.completed") == 2);
    assert_true(test_json_num(root, "pipeline.open_at_end") == 1);
    near(test_json_num(root, "pipeline.cycle_s.p95"), 9609, 1e-6, "json p95");
    assert_string_equal(test_json_str(evaluate, "after"), "retrain");
    assert_null(test_json_at(evaluate, "pipeline"));
    json_decref(res);
    assert_int_equal(test_fleetsim(dir, "run %s/chain.json --no-timing", dir), 0);
    char *table = test_slurp("%s/out.txt", dir);
    const char *want = "pipeline: training retrain: 2 of 3 iterations completed (0 unfinished, 1 open); cycle mean "
                       "160.2 m, p50 160.2 m, p95 160.2 m, max 160.2 m";
    printf("  table has \"%s\": %s\n", want, strstr(table, want) ? "yes" : "no");
    assert_non_null(strstr(table, want));
    free(table);
    /* compare: the root's cycle rows (minutes, 9609 s both ways), none on
     * a step. */
    assert_int_equal(test_fleetsim(dir, "compare %s/chain.json -o %s/cmp", dir, dir), 0);
    res = load_json(test_path("%s/cmp/compare.json", dir));
    const json_t *cmp = test_json_at(res, "policies.shared.training");
    printf("  compare: retrain cycle p50 %.6f p95 %.6f min (want 160.15); evaluate has %s\n",
           test_json_num(cmp, "retrain.cycle_p50_min"), test_json_num(cmp, "retrain.cycle_p95_min"),
           test_json_at(cmp, "evaluate.cycle_p50_min") ? "a cycle row" : "none");
    near(test_json_num(cmp, "retrain.cycle_p50_min"), 9609 / 60.0, 1e-9, "compare cycle p50");
    near(test_json_num(cmp, "retrain.cycle_p95_min"), 9609 / 60.0, 1e-9, "compare cycle p95");
    assert_null(test_json_at(cmp, "evaluate.cycle_p50_min"));
    json_decref(res);
    test_write(test_path("%s/cycle.json", dir),
               "{\"schema\": \"fleetsim/1\", \"horizon\": \"1h\", " POOL(8) ", \"training\": ["
               ROOT("data") ", " STEP("evaluate", "\"retrain\"") ", " STEP("retrain", "\"evaluate\"") "]}");
    assert_int_equal(test_fleetsim(dir, "run %s/cycle.json", dir), 2);
    test_stderr_has(dir, "cycle.json: training[1].after: the pipeline has a cycle: evaluate -> retrain -> evaluate");
    printf("  a cycle: exit 2 with its path\n");
    test_write(test_path("%s/join.json", dir), "{\"schema\": \"fleetsim/1\", \"horizon\": \"8h\", " POOL(8) ","
                                               " \"training\": [" JOIN("[0]", "", "") "], " CALIBRATION "}");
    res = test_fleetsim_json(dir, "run %s/join.json --format json --no-timing", dir);
    const json_t *after = test_json_at(json_array_get(test_json_at(json_array_get(test_json_at(res, "policies"), 0),
                                                                   "training"), 3), "after");
    printf("  join: after is a list of %zu, cycle p95 %g (want [\"train-a\", \"train-b\"], 16209)\n",
           json_array_size(after), test_json_num(json_array_get(test_json_at(json_array_get(test_json_at(res,
                                                   "policies"), 0), "training"), 0), "pipeline.cycle_s.p95"));
    assert_true(json_is_array(after));
    assert_int_equal(json_array_size(after), 2);
    assert_string_equal(json_string_value(json_array_get(after, 0)), "train-a");
    assert_string_equal(json_string_value(json_array_get(after, 1)), "train-b");
    json_decref(res);
    test_write(test_path("%s/dup.json", dir), "{\"schema\": \"fleetsim/1\", \"horizon\": \"1h\", " POOL(8) ","
               " \"training\": [" ROOT("data") ", " STEP("a", "\"data\"") ", " STEP("j", "[\"a\", \"a\"]") "]}");
    assert_int_equal(test_fleetsim(dir, "run %s/dup.json", dir), 2);
    test_stderr_has(dir, "dup.json: training[2].after[1]: \"a\" is listed twice");
    printf("  a join listing a twice: exit 2 with its path\n");
    test_write(test_path("%s/deploy.json", dir), "{\"schema\": \"fleetsim/1\", \"horizon\": \"2h\", " POOL(8) ", "
               RECS("1") ", \"training\": [" DEPLOY("[0]", "1", "") "], " CALIBRATION "}");
    res = test_fleetsim_json(dir, "run %s/deploy.json --format json --no-timing", dir);
    const json_t *step = json_array_get(test_json_at(json_array_get(test_json_at(res, "policies"), 0), "training"), 1);
    printf("  deploy: service %s max_surge %g; rollouts started %g completed %g open %g; duration n %g mean %g p50 %g"
           " p95 %g max %g (want recs, 1; 1 1 0; 1, 21 s each)\n",
           test_json_str(step, "deploy.service"), test_json_num(step, "deploy.max_surge"),
           test_json_num(step, "rollouts.started"), test_json_num(step, "rollouts.completed"),
           test_json_num(step, "rollouts.open_at_end"), test_json_num(step, "rollouts.duration_s.rollouts"),
           test_json_num(step, "rollouts.duration_s.mean"), test_json_num(step, "rollouts.duration_s.p50"),
           test_json_num(step, "rollouts.duration_s.p95"), test_json_num(step, "rollouts.duration_s.max"));
    assert_string_equal(test_json_str(step, "deploy.service"), "recs");
    assert_true(test_json_num(step, "deploy.max_surge") == 1);
    assert_true(test_json_num(step, "rollouts.started") == 1);
    assert_true(test_json_num(step, "rollouts.completed") == 1);
    assert_true(test_json_num(step, "rollouts.open_at_end") == 0);
    near(test_json_num(step, "rollouts.duration_s.p95"), 21, 1e-6, "json rollout p95");
    near(test_json_num(step, "rollouts.duration_s.max"), 21, 1e-6, "json rollout max");
    assert_null(test_json_at(step, "rollouts.unfinished"));
    json_decref(res);
    /* compare: the step's mean rollout, and no queue-wait row for a step
     * that runs no job. */
    assert_int_equal(test_fleetsim(dir, "compare %s/deploy.json -o %s/cmp", dir, dir), 0);
    res = load_json(test_path("%s/cmp/compare.json", dir));
    step = test_json_at(res, "policies.shared.training.deploy-recs");
    printf("  compare: deploy-recs rollout mean %g s (want 21), queue wait row %s\n",
           test_json_num(step, "rollout_mean_s"), test_json_at(step, "queue_wait_p95_min") ? "present" : "absent");
    near(test_json_num(step, "rollout_mean_s"), 21, 1e-6, "compare rollout mean");
    assert_null(test_json_at(step, "queue_wait_p95_min"));
    json_decref(res);
    assert_int_equal(test_fleetsim(dir, "run %s/deploy.json --no-timing", dir), 0);
    table = test_slurp("%s/out.txt", dir);
    want = "rollouts: training deploy-recs: service recs, 1 of 1 rollouts completed (0 open); duration mean 21.0 s,"
           " p50 21.0 s, p95 21.0 s, max 21.0 s";
    printf("  table has \"%s\": %s\n", want, strstr(table, want) ? "yes" : "no");
    assert_non_null(strstr(table, want));
    free(table);
    /* A service name with a terminal escape: the rollouts line names the
     * service through the terminal's filter, never the raw byte. */
    test_write(test_path("%s/hostile.json", dir), "{\"schema\": \"fleetsim/1\", \"horizon\": \"2h\", " POOL(8) ", "
               "\"services\": [{\"name\": \"r\\u001b[31mecs\", \"arrivals\": {\"poisson_rps\": 1},"
               " \"service_time\": {\"deterministic\": {\"value\": \"10ms\"}}, \"replicas\": 3,"
               " \"memory_gb\": \"10GB\"}], \"training\": [{\"name\": \"retrain\", \"submit\": {\"at\": [0]},"
               " \"gang\": 1, \"work_gpu_hours\": 1}, {\"name\": \"deploy-recs\", \"after\": \"retrain\","
               " \"deploy\": {\"service\": \"r\\u001b[31mecs\"}}], " CALIBRATION "}");
    assert_int_equal(test_fleetsim(dir, "run %s/hostile.json --no-timing", dir), 0);
    table = test_slurp("%s/out.txt", dir);
    printf("  hostile service name: rollouts line %s, raw escape %s\n", strstr(table, "rollouts: training") ? "present" : "absent",
           strchr(table, '\x1b') ? "PRINTED" : "not printed");
    assert_non_null(strstr(table, "rollouts: training deploy-recs: service r"));
    assert_null(strchr(table, '\x1b'));
    free(table);
    test_write(test_path("%s/root.json", dir), "{\"schema\": \"fleetsim/1\", \"horizon\": \"1h\", " POOL(8) ", "
               RECS("1") ", \"training\": [{\"name\": \"d\", \"deploy\": {\"service\": \"recs\"}}]}");
    assert_int_equal(test_fleetsim(dir, "run %s/root.json", dir), 2);
    test_stderr_has(dir, "root.json: training[0].deploy: a deploy step is a pipeline step");
    printf("  a deploy step on a root stream: exit 2 with its path\n");
    assert_int_equal(test_rmdir(dir), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chain_no_wait),
        cmocka_unit_test(test_chain_with_wait),
        cmocka_unit_test(test_cancelled_step),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_join_no_wait),
        cmocka_unit_test(test_join_with_wait),
        cmocka_unit_test(test_join_cancelled),
        cmocka_unit_test(test_join_refusals),
        cmocka_unit_test(test_deploy_one_at_a_time),
        cmocka_unit_test(test_deploy_surge_two_queued),
        cmocka_unit_test(test_deploy_waits_for_a_unit),
        cmocka_unit_test(test_deploy_drains_busy_replicas),
        cmocka_unit_test(test_deploy_refusals),
        cmocka_unit_test(test_cli),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

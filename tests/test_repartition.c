/*
 * test_repartition — MIG re-partitioning at run time (models/fleet/
 * repartition.h): a pool with a day and a night layout switches its GPUs on
 * a schedule.  Hand-worked timelines on one or two H100s with deterministic
 * workloads and round switch costs:
 *
 *   1. the schedule: switch instants (seen through a gang that only the night
 *      layout can hold), re-partitions and reconfiguration GPU-seconds exactly
 *      (GPUs x reconfigure time x switches), provisioned = busy + switching +
 *      idle to 1e-9;
 *   2. "evict": a service replica held at the switch is moved at the instant
 *      and warms up again on the new layout's unit (its warm-up counted at
 *      that unit's share), each time the layout changes;
 *   3. "wait" against "evict" with a training job holding the GPU: wait
 *      switches when the job ends, evict at the instant (the job preempted);
 *   4. invalid plans refused at load with their JSON path, the geometry's
 *      reason passed on;
 *   5. the array form is one layout and no plan; a plan of one layout gives
 *      the same figures.
 *
 * Every test prints the figures it compares.
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

#include "testutil.h"

#include "mig.h"
#include "results.h"
#include "run.h"
#include "scenario.h"

#define H100 "H100-SXM-80GB"
#define H100_SMS 132.0
#define HOUR 3600.0
#define DAY 86400.0
#define GB_PER_GIB 1.073741824 /* sizes are GiB, bandwidths GB/s */
#define RECONFIGURE_S 120.0

/* Round switch costs: a replica warms in 1 + 2 + memory_gb x 1.0737 / 10 +
 * 3 s, a training member with no state in 1 + 2 = 3 s. */
#define CALIBRATION                                                                            \
    "\"calibration\": {\"context_s\": 1, \"framework_s\": 2, \"storage_gbps\": 10,"            \
    " \"inference_warmup_s\": 3}"
#define TRAINING_WARMUP_S 3.0

/* day at 07:00, night at 22:00, 2 minutes to reconfigure. */
#define SCHEDULE(drain)                                                                        \
    "\"start\": \"day\", \"schedule\": [{\"at\": \"07:00\", \"layout\": \"day\"},"             \
    " {\"at\": \"22:00\", \"layout\": \"night\"}], \"reconfigure\": \"2m\", \"drain\": \"" drain "\""

static void assert_close(double got, double want, double tol)
{
    if (!(fabs(got - want) <= tol))
        fail_msg("got %.15g, want %.15g (tolerance %g)", got, want, tol);
}

/* Conservation on a pool: provisioned = busy + switching + idle, 1e-9
 * relative; and the reconfiguring part of switching is within it. */
static void assert_conserved(const fs_pool_rep *p)
{
    double sum = p->busy_gpu_s + p->switching_gpu_s + p->idle_gpu_s;
    printf("  provisioned %.9f GPU-s = busy %.9f + switching %.9f + idle %.9f = %.9f\n", p->gpu_s,
           p->busy_gpu_s, p->switching_gpu_s, p->idle_gpu_s, sum);
    assert_close(sum, p->gpu_s, 1e-9 * p->gpu_s);
    assert_true(p->reconfigure_gpu_s <= p->switching_gpu_s + 1e-9);
    assert_true(p->idle_gpu_s >= 0);
}

/* Queue wait of the one job a stream started, exact (the histogram's max). */
static double only_wait_s(const fs_training_rep *t)
{
    assert_int_equal(t->wait.total, 1);
    return (double)t->wait.max_ns * 1e-9;
}

/* ---- 1. the schedule -------------------------------------------------------- */

/* Two GPUs, day ["7g.80gb"], night ["1g.10gb" x 7], "wait"; horizon 2 days.
 * A gang of 14 with no state (only the night layout has 14 units) is
 * submitted at 21:00.  Timeline:
 *   22:00        both GPUs are empty: both switch at once, until 22:02;
 *   22:02        the 14 night units are free: the gang is granted (wait
 *                22:02 - 21:00 = 3720 s), warms 3 s, computes 14 GPU-h / 14 =
 *                1 h, and gives its units back at 23:02:03;
 *   1d 07:00     both switch to day, until 07:02;
 *   1d 22:00     both switch to night, until 22:02.
 * So: 6 re-partitions, 2 GPUs x 120 s x 3 = 720 GPU-s reconfiguring;
 * busy 14 x 16/132 x 3600; switching 720 + 14 x 16/132 x 3 (the warm-up; the
 * give-back takes 0 s). */
static void test_schedule(void **state)
{
    (void)state;
    fs_scenario *s = test_scenario(
        "{\"schema\": \"fleetsim/1\", \"horizon\": \"2d\", \"seed\": 1,"
        " \"pools\": [{\"name\": \"mig\", \"gpu\": \"" H100 "\", \"gpus\": 2,"
        "   \"mig\": {\"layouts\": {\"day\": [\"7g.80gb\"], \"night\": [%s]}, " SCHEDULE("wait") "}}],"
        " \"training\": [{\"name\": \"small\", \"submit\": {\"at\": [\"21:00\"]}, \"gang\": 14,"
        "   \"work_gpu_hours\": 14}], " CALIBRATION "}",
        "\"1g.10gb\", \"1g.10gb\", \"1g.10gb\", \"1g.10gb\", \"1g.10gb\", \"1g.10gb\", \"1g.10gb\"");
    const fs_mig_plan *plan = s->pools[0].mig_plan;
    assert_non_null(plan);
    assert_int_equal(plan->n_layouts, 2);
    assert_int_equal(plan->n_schedule, 2);
    assert_int_equal(s->pools[0].mig.n, 1); /* the start layout */
    fs_results *r = test_run(s);
    const fs_pool_rep *p = &r->policies[0].reps[0].pools[0];
    const fs_training_rep *t = &r->policies[0].reps[0].training[0];
    double share = 16 / H100_SMS;
    double want_reconf = 2 * RECONFIGURE_S * 3;
    double want_busy = 14 * share * HOUR, want_switching = want_reconf + 14 * share * TRAINING_WARMUP_S;
    printf("  gang wait %.6f s (want %.6f), completed %llu\n", only_wait_s(t), 22 * HOUR + 120 - 21 * HOUR,
           (unsigned long long)t->completed);
    printf("  re-partitions %llu (want 6), reconfiguring %.9f GPU-s (want 2 x 120 x 3 = %.1f)\n",
           (unsigned long long)p->repartitions, p->reconfigure_gpu_s, want_reconf);
    printf("  busy %.9f GPU-s (want %.9f), switching %.9f (want %.9f), provisioned %.1f (want %.1f)\n",
           p->busy_gpu_s, want_busy, p->switching_gpu_s, want_switching, p->gpu_s, 2 * 2 * DAY);
    assert_close(only_wait_s(t), 22 * HOUR + 120 - 21 * HOUR, 1e-6);
    assert_int_equal(t->completed, 1);
    assert_int_equal(p->repartitions, 6);
    assert_close(p->reconfigure_gpu_s, want_reconf, 1e-9 * want_reconf);
    assert_close(p->busy_gpu_s, want_busy, 1e-9 * want_busy);
    assert_close(p->switching_gpu_s, want_switching, 1e-9 * want_switching);
    assert_close(p->gpu_s, 2 * 2 * DAY, 1e-9);
    assert_conserved(p);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

/* ---- 2. "evict" moves a replica ------------------------------------------- */

/* One GPU, day ["3g.40gb", "3g.40gb"], night ["4g.40gb", "1g.10gb" x 3],
 * "evict"; horizon 2 days.  chat (30 GiB, one replica, no traffic: nothing
 * in service when it moves) starts on the day layout's first 3g.40gb.
 *   22:00     chat is moved: its unit given back in 0 s, asked for again;
 *             the GPU is then empty and switches until 22:02;
 *   22:02     chat is granted the 4g.40gb (only it holds 30 GiB) and warms
 *             W = 1 + 2 + 30 x 1.0737 / 10 + 3 s;
 *   1d 07:00  moved again; 07:02 granted a 3g.40gb, warms W;
 *   1d 22:00  as at 22:00.
 * So: ready replicas (T - 3 (120 + W)) / T; switching 3 x 120 + W x (64 +
 * 60 + 64) / 132 (each warm-up at its unit's share of the SMs). */
static fs_scenario *evict_scenario(const char *drain)
{
    return test_scenario(
        "{\"schema\": \"fleetsim/1\", \"horizon\": \"2d\", \"seed\": 1,"
        " \"pools\": [{\"name\": \"mig\", \"gpu\": \"" H100 "\", \"gpus\": 1,"
        "   \"mig\": {\"layouts\": {\"day\": [\"3g.40gb\", \"3g.40gb\"],"
        "     \"night\": [\"4g.40gb\", \"1g.10gb\", \"1g.10gb\", \"1g.10gb\"]},"
        "     \"start\": \"day\", \"schedule\": [{\"at\": \"07:00\", \"layout\": \"day\"},"
        "     {\"at\": \"22:00\", \"layout\": \"night\"}], \"reconfigure\": \"2m\", \"drain\": \"%s\"}}],"
        " \"services\": [{\"name\": \"chat\", \"pool\": \"mig\", \"memory_gb\": 30,"
        "   \"arrivals\": {\"poisson_rps\": 0}, \"service_time\": {\"deterministic\": {\"value\": \"10ms\"}},"
        "   \"replicas\": {\"count\": 1}}], " CALIBRATION "}",
        drain);
}

static void test_evict_moves_replica(void **state)
{
    (void)state;
    fs_scenario *s = evict_scenario("evict");
    fs_results *r = test_run(s);
    const fs_pool_rep *p = &r->policies[0].reps[0].pools[0];
    const fs_service_rep *chat = fs_rep_service(&r->policies[0].reps[0], 0);
    double T = 2 * DAY, W = 1 + 2 + 30 * GB_PER_GIB / 10 + 3;
    double want_ready = (T - 3 * (RECONFIGURE_S + W)) / T;
    double want_switching = 3 * RECONFIGURE_S + W * (64 + 60 + 64) / H100_SMS;
    printf("  evict: ready replicas %.12f (want %.12f), re-partitions %llu (want 3), reconfiguring %.9f GPU-s"
           " (want %.1f)\n",
           chat->mean_ready_replicas, want_ready, (unsigned long long)p->repartitions, p->reconfigure_gpu_s,
           3 * RECONFIGURE_S);
    printf("  evict: switching %.9f GPU-s (want 3 x 120 + W x (64 + 60 + 64) / 132 = %.9f), W = %.9f s\n",
           p->switching_gpu_s, want_switching, W);
    assert_close(chat->mean_ready_replicas, want_ready, 1e-9);
    assert_int_equal(p->repartitions, 3);
    assert_close(p->reconfigure_gpu_s, 3 * RECONFIGURE_S, 1e-9);
    assert_close(p->switching_gpu_s, want_switching, 1e-9 * want_switching);
    assert_conserved(p);
    fs_results_destroy(r);
    fs_scenario_destroy(s);

    /* With "wait" the replica never leaves: the GPU drains all run long and
     * never switches (its free 3g.40gb is withheld from the night on). */
    s = evict_scenario("wait");
    r = test_run(s);
    p = &r->policies[0].reps[0].pools[0];
    chat = fs_rep_service(&r->policies[0].reps[0], 0);
    printf("  wait: ready replicas %.12f (want 1), re-partitions %llu (want 0), switching %.9f (want 0)\n",
           chat->mean_ready_replicas, (unsigned long long)p->repartitions, p->switching_gpu_s);
    assert_close(chat->mean_ready_replicas, 1, 1e-12);
    assert_int_equal(p->repartitions, 0);
    assert_close(p->switching_gpu_s, 0, 0);
    assert_conserved(p);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

/* ---- 3. "wait" against "evict" with a training job ------------------------- */

/* One GPU, day ["7g.80gb"], night ["1g.10gb" x 7]; horizon 1 day.  "long"
 * (gang 1, no state, 2 GPU-h, no checkpoints) is submitted at 21:00 and
 * granted the 7g.80gb at once (warm 3 s, computing from 21:00:03); "small"
 * (gang 7) is submitted at 21:30 and needs the night layout.
 *   wait:  the GPU drains from 22:00; long ends at 23:00:03 and the switch
 *          runs 23:00:03 - 23:02:03; small waits 23:02:03 - 21:30 = 5523 s;
 *   evict: long (preemptible) is evicted at 22:00, losing 22:00 - 21:00:03 =
 *          3597 s of its gang of 1 (no checkpoint), and queues again behind
 *          small; the switch runs 22:00 - 22:02; small waits 1920 s.
 * Either way one re-partition, 120 GPU-s reconfiguring. */
static fs_results *job_run(const char *drain, bool preemptible, fs_scenario **s)
{
    *s = test_scenario(
        "{\"schema\": \"fleetsim/1\", \"horizon\": \"1d\", \"seed\": 1,"
        " \"pools\": [{\"name\": \"mig\", \"gpu\": \"" H100 "\", \"gpus\": 1,"
        "   \"mig\": {\"layouts\": {\"day\": [\"7g.80gb\"], \"night\": [\"1g.10gb\", \"1g.10gb\", \"1g.10gb\","
        "     \"1g.10gb\", \"1g.10gb\", \"1g.10gb\", \"1g.10gb\"]},"
        "     \"start\": \"day\", \"schedule\": [{\"at\": \"07:00\", \"layout\": \"day\"},"
        "     {\"at\": \"22:00\", \"layout\": \"night\"}], \"reconfigure\": \"2m\", \"drain\": \"%s\"}}],"
        " \"training\": [{\"name\": \"long\", \"submit\": {\"at\": [\"21:00\"]}, \"gang\": 1,"
        "   \"work_gpu_hours\": 2, \"preemptible\": %s},"
        "  {\"name\": \"small\", \"submit\": {\"at\": [\"21:30\"]}, \"gang\": 7, \"work_gpu_hours\": 7}],"
        " " CALIBRATION "}",
        drain, preemptible ? "true" : "false");
    return test_run(*s);
}

static void test_wait_and_evict_jobs(void **state)
{
    (void)state;
    fs_scenario *sw, *se;
    fs_results *rw = job_run("wait", false, &sw), *re = job_run("evict", true, &se);
    const fs_pool_rep *pw = &rw->policies[0].reps[0].pools[0], *pe = &re->policies[0].reps[0].pools[0];
    const fs_training_rep *long_w = &rw->policies[0].reps[0].training[0];
    const fs_training_rep *small_w = &rw->policies[0].reps[0].training[1];
    const fs_training_rep *long_e = &re->policies[0].reps[0].training[0];
    const fs_training_rep *small_e = &re->policies[0].reps[0].training[1];
    double want_wait_w = 23 * HOUR + 2 * 60 + 3 - (21 * HOUR + 30 * 60), want_wait_e = 22 * HOUR + 120 - (21.5 * HOUR);
    printf("  wait:  small waited %.6f s (want %.6f), long completed %llu preemptions %llu;"
           " re-partitions %llu, reconfiguring %.6f GPU-s\n",
           only_wait_s(small_w), want_wait_w, (unsigned long long)long_w->completed,
           (unsigned long long)long_w->preemptions, (unsigned long long)pw->repartitions, pw->reconfigure_gpu_s);
    printf("  evict: small waited %.6f s (want %.6f), long preemptions %llu, lost %.9f GPU-h (want %.9f);"
           " re-partitions %llu, reconfiguring %.6f GPU-s\n",
           only_wait_s(small_e), want_wait_e, (unsigned long long)long_e->preemptions, long_e->gpu_hours_lost,
           3597 / HOUR, (unsigned long long)pe->repartitions, pe->reconfigure_gpu_s);
    assert_close(only_wait_s(small_w), want_wait_w, 1e-6);
    assert_int_equal(long_w->completed, 1);
    assert_int_equal(long_w->preemptions, 0);
    assert_close(only_wait_s(small_e), want_wait_e, 1e-6);
    assert_int_equal(long_e->preemptions, 1);
    assert_close(long_e->gpu_hours_lost, 3597 / HOUR, 1e-9);
    for (int k = 0; k < 2; k++) {
        const fs_pool_rep *p = k ? pe : pw;
        assert_int_equal(p->repartitions, 1);
        assert_close(p->reconfigure_gpu_s, RECONFIGURE_S, 1e-9);
        assert_conserved(p);
    }
    fs_results_destroy(rw);
    fs_results_destroy(re);
    fs_scenario_destroy(sw);
    fs_scenario_destroy(se);
}

/* ---- 4. invalid plans ------------------------------------------------------ */

#define PLAN_DOC(mig, extra)                                                                   \
    "{\"schema\": \"fleetsim/1\", \"horizon\": \"1d\","                                        \
    " \"pools\": [{\"name\": \"mig\", \"gpu\": \"" H100 "\", \"gpus\": 1, \"mig\": " mig extra "}]," \
    " \"services\": [{\"name\": \"chat\", \"pool\": \"mig\", \"memory_gb\": 9,"                \
    "   \"arrivals\": {\"poisson_rps\": 1}, \"service_time\": {\"deterministic\": {\"value\": \"10ms\"}}}]}"

static void test_invalid_plans(void **state)
{
    (void)state;
    /* A target layout the geometry refuses: its own path, fs_mig_place's reason. */
    const fs_gpu_type *h100 = fs_gpu_find(H100);
    assert_non_null(h100);
    const char *bad[] = {"4g.40gb", "4g.40gb"};
    fs_mig_layout layout;
    char why[512], want[700];
    assert_int_equal(fs_mig_place(h100, bad, 2, &layout, why, sizeof why), -1);
    snprintf(want, sizeof want, "scen.json: pools[0].mig.layouts.night: %s", why);
    printf("  refused: %s\n", want);
    test_parse_refused(PLAN_DOC("{\"layouts\": {\"day\": [\"3g.40gb\", \"3g.40gb\"],"
                                " \"night\": [\"4g.40gb\", \"4g.40gb\"]}, \"start\": \"day\","
                                " \"reconfigure\": \"2m\"}", ""),
                       "scen.json", FS_ERR_INPUT, want);
    /* The reconfiguration time has no published default: required. */
    test_parse_refused(PLAN_DOC("{\"layouts\": {\"day\": [\"3g.40gb\"], \"night\": [\"1g.10gb\"]},"
                                " \"start\": \"day\"}", ""),
                       "scen.json", FS_ERR_INPUT, "scen.json: pools[0].mig: missing required key \"reconfigure\"");
    test_parse_refused(PLAN_DOC("{\"layouts\": {\"day\": [\"3g.40gb\"], \"night\": [\"1g.10gb\"]},"
                                " \"reconfigure\": \"2m\"}", ""),
                       "scen.json", FS_ERR_INPUT, "scen.json: pools[0].mig: missing required key \"start\"");
    test_parse_refused(PLAN_DOC("{\"layouts\": {\"day\": [\"3g.40gb\"], \"night\": [\"1g.10gb\"]},"
                                " \"start\": \"dya\", \"reconfigure\": \"2m\"}", ""),
                       "scen.json", FS_ERR_INPUT, "scen.json: pools[0].mig.start: ");
    test_parse_refused(PLAN_DOC("{\"layouts\": {\"day\": [\"3g.40gb\"], \"night\": [\"1g.10gb\"]},"
                                " \"start\": \"day\", \"reconfigure\": \"2m\","
                                " \"schedule\": [{\"at\": \"25:00\", \"layout\": \"night\"}]}", ""),
                       "scen.json", FS_ERR_INPUT, "scen.json: pools[0].mig.schedule[0].at: expected a clock time");
    test_parse_refused(PLAN_DOC("{\"layouts\": {\"day\": [\"3g.40gb\"], \"night\": [\"1g.10gb\"]},"
                                " \"start\": \"day\", \"reconfigure\": \"2m\","
                                " \"schedule\": [{\"at\": \"07:00\", \"layout\": \"evening\"}]}", ""),
                       "scen.json", FS_ERR_INPUT, "scen.json: pools[0].mig.schedule[0].layout: ");
    test_parse_refused(PLAN_DOC("{\"layouts\": {\"day\": [\"3g.40gb\"], \"night\": [\"1g.10gb\"]},"
                                " \"start\": \"day\", \"reconfigure\": \"2m\", \"drain\": \"kill\"}", ""),
                       "scen.json", FS_ERR_INPUT, "scen.json: pools[0].mig.drain: ");
    test_parse_refused(PLAN_DOC("{\"layouts\": {\"day\": [\"3g.40gb\"], \"night\": [\"1g.10gb\"]},"
                                " \"start\": \"day\", \"reconfigure\": \"2m\"}",
                                ", \"autoscale\": {\"min\": 1, \"max\": 2}"),
                       "scen.json", FS_ERR_INPUT, "scen.json: pools[0].autoscale: not allowed on a pool with several");
}

/* ---- 5. the array form ----------------------------------------------------- */

/* The array form is one layout and no plan; the object form with that one
 * layout gives the same figures, bit for bit. */
static void test_array_form(void **state)
{
    (void)state;
    const char *doc =
        "{\"schema\": \"fleetsim/1\", \"horizon\": \"6h\", \"seed\": 7,"
        " \"pools\": [{\"name\": \"mig\", \"gpu\": \"" H100 "\", \"gpus\": 2, \"mig\": %s}],"
        " \"services\": [{\"name\": \"chat\", \"pool\": \"mig\", \"memory_gb\": 18,"
        "   \"arrivals\": {\"poisson_rps\": 20}, \"service_time\": {\"exponential\": {\"mean\": \"50ms\"}},"
        "   \"replicas\": {\"count\": 2, \"min\": 1, \"max\": 4, \"autoscale\": {\"target_in_flight\": 0.5}}}],"
        " \"training\": [{\"name\": \"ft\", \"submit\": {\"poisson_per_hour\": 2}, \"gang\": 2,"
        "   \"work_gpu_hours\": 0.5, \"preemptible\": true}]}";
    fs_scenario *a = test_scenario(doc, "[\"2g.20gb\", \"2g.20gb\", \"3g.40gb\"]");
    fs_scenario *b = test_scenario(doc, "{\"layouts\": {\"only\": [\"2g.20gb\", \"2g.20gb\", \"3g.40gb\"]}}");
    assert_null(a->pools[0].mig_plan);
    assert_non_null(b->pools[0].mig_plan);
    fs_results *ra = test_run(a), *rb = test_run(b);
    const fs_pool_rep *pa = &ra->policies[0].reps[0].pools[0], *pb = &rb->policies[0].reps[0].pools[0];
    const fs_service_rep *sa = fs_rep_service(&ra->policies[0].reps[0], 0);
    const fs_service_rep *sb = fs_rep_service(&rb->policies[0].reps[0], 0);
    printf("  array: busy %.9f switching %.9f completed %llu; one-layout plan: busy %.9f switching %.9f"
           " completed %llu\n",
           pa->busy_gpu_s, pa->switching_gpu_s, (unsigned long long)sa->completed, pb->busy_gpu_s,
           pb->switching_gpu_s, (unsigned long long)sb->completed);
    assert_true(sa->completed > 0);
    assert_true(pa->switching_gpu_s > 0);
    assert_true(pa->busy_gpu_s == pb->busy_gpu_s);
    assert_true(pa->switching_gpu_s == pb->switching_gpu_s);
    assert_true(pa->idle_gpu_s == pb->idle_gpu_s);
    assert_int_equal(sa->completed, sb->completed);
    assert_int_equal(pa->repartitions, 0);
    assert_conserved(pa);
    fs_results_destroy(ra);
    fs_results_destroy(rb);
    fs_scenario_destroy(a);
    fs_scenario_destroy(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_schedule),
        cmocka_unit_test(test_evict_moves_replica),
        cmocka_unit_test(test_wait_and_evict_jobs),
        cmocka_unit_test(test_invalid_plans),
        cmocka_unit_test(test_array_form),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

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
 *      the same figures;
 *   6. on demand ("on_demand": {"after": D}): a gang only the other layout
 *      holds starts at ask + D + drain + reconfigure (+ its warm-up), with
 *      "wait" and "evict";
 *   7. no switch while the waiting request fits the layout in force;
 *   8. no thrash: two profiles waiting give one switch, not a flip back;
 *   9. with a schedule: the wait counts from the last scheduled instant;
 *  10. bad "on_demand" refused with its JSON path.
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

/* compare's pools line counts the start layout's units, as results.json
 * and validate do: 2 GPUs in "day" (one 7g.80gb each) hold 2 units, one
 * taken by the service's replica; the night layout's 14 do not exist at
 * t = 0 (before, the line read "15 of 16 units"). */
static void test_compare_counts_start_units(void **state)
{
    (void)state;
    char dir[256];
    assert_int_equal(test_tmpdir(dir, sizeof dir, "repartition"), 0);
    test_write(test_path("%s/plan.json", dir),
               "{\"schema\": \"fleetsim/1\", \"horizon\": \"1h\", \"seed\": 1,"
               " \"pools\": [{\"name\": \"mig\", \"gpu\": \"" H100 "\", \"gpus\": 2,"
               "   \"mig\": {\"layouts\": {\"day\": [\"7g.80gb\"], \"night\": [\"1g.10gb\", \"1g.10gb\","
               " \"1g.10gb\", \"1g.10gb\", \"1g.10gb\", \"1g.10gb\", \"1g.10gb\"]}, " SCHEDULE("wait") "}}],"
               " \"services\": [{\"name\": \"chat\", \"arrivals\": {\"poisson_rps\": 1}, \"memory_gb\": 30,"
               "   \"service_time\": {\"deterministic\": {\"value\": \"10ms\"}}, \"replicas\": 1}], " CALIBRATION "}");
    assert_int_equal(test_fleetsim(dir, "compare %s/plan.json", dir), 0);
    char *out = test_slurp("%s/out.txt", dir);
    const char *line = strstr(out, "default / mig:");
    printf("  %.*s\n", line ? (int)strcspn(line, "\n") : 0, line ? line : "");
    assert_non_null(line);
    assert_non_null(strstr(line, "; 1 of 2 units;"));
    free(out);
    assert_int_equal(test_rmdir(dir), 0);
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

/* ---- 6. on demand ---------------------------------------------------------- */

/* One GPU, "big" ["7g.80gb"] (start), "small" ["1g.10gb" x 7], no schedule,
 * "on_demand": {"after": "10m"}; horizon 1 day.  "long" (gang 1, no state,
 * 2 GPU-h) is submitted at 01:00 and granted the 7g.80gb (computing from
 * 01:00:03); "pair" (gang 2) at 01:30 waits: one 7g.80gb cannot hold it.
 * At 01:40 pair has waited D = 600 s: the GPU would hold long and pair in
 * "small" (3 units) against long alone in "big" (1): it switches.
 *   wait:  it drains until long ends at 03:00:03 (drain 4803 s), switches
 *          until 03:02:03; pair waits 600 + 4803 + 120 = 5523 s and starts
 *          computing 3 s later;
 *   evict: long (preemptible) is evicted at 01:40; the switch runs
 *          01:40 - 01:42; pair waits 600 + 0 + 120 = 720 s.
 * One re-partition either way, 120 GPU-s reconfiguring. */
#define ON_DEMAND_LAYOUTS                                                                      \
    "\"layouts\": {\"big\": [\"7g.80gb\"], \"small\": [\"1g.10gb\", \"1g.10gb\", \"1g.10gb\","  \
    " \"1g.10gb\", \"1g.10gb\", \"1g.10gb\", \"1g.10gb\"]}, \"reconfigure\": \"2m\""
#define OD_AFTER_S 600.0

/* One H100 with those layouts, on demand after 10 m, and training streams. */
#define OD_SCENARIO(horizon, start, drain, schedule, training)                                 \
    "{\"schema\": \"fleetsim/1\", \"horizon\": \"" horizon "\", \"seed\": 1,"                      \
    " \"pools\": [{\"name\": \"mig\", \"gpu\": \"" H100 "\", \"gpus\": 1,"                         \
    "   \"mig\": {" ON_DEMAND_LAYOUTS ", \"start\": \"" start "\", \"drain\": \"" drain "\","         \
    schedule " \"on_demand\": {\"after\": \"10m\"}}}], \"training\": [" training "], " CALIBRATION "}"

static fs_results *od_run(const char *drain, bool preemptible, fs_scenario **s)
{
    *s = test_scenario(OD_SCENARIO("1d", "big", "%s", "",
        "{\"name\": \"long\", \"submit\": {\"at\": [\"01:00\"]}, \"gang\": 1,"
        "   \"work_gpu_hours\": 2, \"preemptible\": %s},"
        "  {\"name\": \"pair\", \"submit\": {\"at\": [\"01:30\"]}, \"gang\": 2, \"work_gpu_hours\": 2}"),
        drain, preemptible ? "true" : "false");
    assert_true((*s)->pools[0].mig_plan->on_demand_after_s == OD_AFTER_S);
    return test_run(*s);
}

static void test_on_demand(void **state)
{
    (void)state;
    for (int evict = 0; evict < 2; evict++) {
        fs_scenario *s;
        fs_results *r = od_run(evict ? "evict" : "wait", evict, &s);
        const fs_pool_rep *p = &r->policies[0].reps[0].pools[0];
        const fs_training_rep *lng = &r->policies[0].reps[0].training[0];
        const fs_training_rep *pair = &r->policies[0].reps[0].training[1];
        double ask = 1.5 * HOUR, drain = evict ? 0 : (3 * HOUR + 3) - (ask + OD_AFTER_S);
        double want = OD_AFTER_S + drain + RECONFIGURE_S;
        printf("  %s: pair waited %.6f s (want D %.0f + drain %.0f + reconfigure %.0f = %.0f), starts computing"
               " at %.3f s (ask + wait + warm-up %.0f); re-partitions %llu (want 1), reconfiguring %.6f GPU-s;"
               " long preemptions %llu\n",
               evict ? "evict" : "wait", only_wait_s(pair), OD_AFTER_S, drain, RECONFIGURE_S, want,
               ask + only_wait_s(pair) + TRAINING_WARMUP_S, TRAINING_WARMUP_S,
               (unsigned long long)p->repartitions, p->reconfigure_gpu_s, (unsigned long long)lng->preemptions);
        assert_close(only_wait_s(pair), want, 1e-6);
        assert_int_equal(pair->completed, 1);
        assert_int_equal(p->repartitions, 1);
        assert_close(p->reconfigure_gpu_s, RECONFIGURE_S, 1e-9);
        assert_int_equal(lng->preemptions, evict ? 1 : 0);
        assert_int_equal(lng->completed, 1);
        assert_conserved(p);
        fs_results_destroy(r);
        fs_scenario_destroy(s);
    }
}

/* ---- 7. no switch while the layout in force fits --------------------------- */

/* One GPU starting "small"; "fill" (gang 7, 7 GPU-h: 1 h) takes every 1g unit
 * at 01:00; "one" (gang 1) at 01:30 waits for a 1g unit.  "big" would hold
 * one unit against small's seven: no switch, and one starts when fill ends,
 * at 02:00:03 (wait 1803 s). */
static void test_on_demand_fits(void **state)
{
    (void)state;
    fs_scenario *s = test_scenario(OD_SCENARIO("1d", "small", "evict", "",
        "{\"name\": \"fill\", \"submit\": {\"at\": [\"01:00\"]}, \"gang\": 7,"
        "   \"work_gpu_hours\": 7, \"preemptible\": true},"
        "  {\"name\": \"one\", \"submit\": {\"at\": [\"01:30\"]}, \"gang\": 1, \"work_gpu_hours\": 1}"));
    fs_results *r = test_run(s);
    const fs_pool_rep *p = &r->policies[0].reps[0].pools[0];
    const fs_training_rep *one = &r->policies[0].reps[0].training[1];
    double want = 2 * HOUR + 3 - 1.5 * HOUR;
    printf("  one waited %.6f s (want %.0f), re-partitions %llu (want 0), reconfiguring %.6f GPU-s (want 0)\n",
           only_wait_s(one), want, (unsigned long long)p->repartitions, p->reconfigure_gpu_s);
    assert_close(only_wait_s(one), want, 1e-6);
    assert_int_equal(p->repartitions, 0);
    assert_close(p->reconfigure_gpu_s, 0, 0);
    assert_conserved(p);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

/* ---- 8. no thrash ---------------------------------------------------------- */

/* One GPU starting "big", "evict", horizon 8 h.  "hog" (gang 1, 1 GPU-h, not
 * preemptible: waited for) takes the 7g.80gb at 00:00 (computing 00:00:03 -
 * 01:00:03); "pair" (gang 2, 20 GPU-h: 10 h, preemptible) asks at 00:10 and
 * waits.  At 00:20 pair is stuck: small would hold hog and pair (3) against
 * hog (1): the GPU drains, switches 01:00:03 - 01:02:03, and pair starts
 * (wait 3123 s).  "wide" (gang 1, 40 GiB of state: only a 7g.80gb holds it)
 * asks at 01:10 and is stuck at 01:20, but big would hold one of pair's
 * units and not wide against small's two: the GPU stays small, pair is not
 * evicted.  One re-partition in 8 h; wide never starts.  (Weighing only the
 * waiting requests would evict pair for wide, and back again.) */
static void test_on_demand_no_thrash(void **state)
{
    (void)state;
    fs_scenario *s = test_scenario(OD_SCENARIO("8h", "big", "evict", "",
        "{\"name\": \"hog\", \"submit\": {\"at\": [\"00:00\"]}, \"gang\": 1, \"work_gpu_hours\": 1},"
        "  {\"name\": \"pair\", \"submit\": {\"at\": [\"00:10\"]}, \"gang\": 2, \"work_gpu_hours\": 20,"
        "   \"preemptible\": true},"
        "  {\"name\": \"wide\", \"submit\": {\"at\": [\"01:10\"]}, \"gang\": 1, \"work_gpu_hours\": 1,"
        "   \"state_gb_per_gpu\": 40}"));
    fs_results *r = test_run(s);
    const fs_pool_rep *p = &r->policies[0].reps[0].pools[0];
    const fs_training_rep *pair = &r->policies[0].reps[0].training[1];
    const fs_training_rep *wide = &r->policies[0].reps[0].training[2];
    double want = HOUR + 3 + RECONFIGURE_S - 600;
    printf("  pair waited %.6f s (want %.0f); wide waited %.6f s, still waiting (want 8 h - 70 m = %.0f),"
           " completed %llu (want 0); re-partitions %llu (want 1), reconfiguring %.6f GPU-s (want 120)\n",
           only_wait_s(pair), want, only_wait_s(wide), 8 * HOUR - 70 * 60, (unsigned long long)wide->completed,
           (unsigned long long)p->repartitions, p->reconfigure_gpu_s);
    assert_close(only_wait_s(pair), want, 1e-6);
    assert_close(only_wait_s(wide), 8 * HOUR - 70 * 60, 1e-6); /* still waiting: censored at the horizon */
    assert_int_equal(wide->completed, 0);
    assert_int_equal(p->repartitions, 1);
    assert_close(p->reconfigure_gpu_s, RECONFIGURE_S, 1e-9);
    assert_conserved(p);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

/* ---- 9. with a schedule ---------------------------------------------------- */

/* One GPU, "big" by day (07:00) and at the start, "small" by night (22:00),
 * on demand after 10 m; horizon 1 day.  "pair" (gang 2, 2 GPU-h) asks at
 * 06:55.  Its wait counts from 07:00, the scheduled instant (which keeps
 * big): it is stuck at 07:10, not 07:05; the GPU switches 07:10 - 07:12 and
 * pair waits 1020 s.  At 22:00 the GPU is small already: one re-partition. */
static void test_on_demand_with_schedule(void **state)
{
    (void)state;
    fs_scenario *s = test_scenario(OD_SCENARIO("1d", "big", "wait",
        " \"schedule\": [{\"at\": \"07:00\", \"layout\": \"big\"}, {\"at\": \"22:00\", \"layout\": \"small\"}],",
        "{\"name\": \"pair\", \"submit\": {\"at\": [\"06:55\"]}, \"gang\": 2, \"work_gpu_hours\": 2}"));
    fs_results *r = test_run(s);
    const fs_pool_rep *p = &r->policies[0].reps[0].pools[0];
    const fs_training_rep *pair = &r->policies[0].reps[0].training[0];
    double want = 7 * HOUR + OD_AFTER_S + RECONFIGURE_S - (6 * HOUR + 55 * 60);
    printf("  pair waited %.6f s (want %.0f, not %.0f from its ask); re-partitions %llu (want 1)\n",
           only_wait_s(pair), want, OD_AFTER_S + RECONFIGURE_S, (unsigned long long)p->repartitions);
    assert_close(only_wait_s(pair), want, 1e-6);
    assert_int_equal(pair->completed, 1);
    assert_int_equal(p->repartitions, 1);
    assert_conserved(p);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

/* ---- 10. bad "on_demand" --------------------------------------------------- */

static void test_on_demand_invalid(void **state)
{
    (void)state;
#define OD_PLAN(od)                                                                            \
    PLAN_DOC("{\"layouts\": {\"day\": [\"3g.40gb\"], \"night\": [\"1g.10gb\"]}, \"start\": \"day\","  \
             " \"reconfigure\": \"2m\", \"on_demand\": " od "}", "")
    test_parse_refused(OD_PLAN("{\"after\": 0}"), "scen.json", FS_ERR_INPUT,
                       "scen.json: pools[0].mig.on_demand.after: expected");
    test_parse_refused(OD_PLAN("{\"after\": \"-5m\"}"), "scen.json", FS_ERR_INPUT,
                       "scen.json: pools[0].mig.on_demand.after: ");
    test_parse_refused(OD_PLAN("{\"afterr\": \"5m\"}"), "scen.json", FS_ERR_INPUT,
                       "scen.json: pools[0].mig.on_demand: unknown key \"afterr\"");
    test_parse_refused(OD_PLAN("{}"), "scen.json", FS_ERR_INPUT,
                       "scen.json: pools[0].mig.on_demand: missing required key \"after\"");
    test_parse_refused(OD_PLAN("\"10m\""), "scen.json", FS_ERR_INPUT, "scen.json: pools[0].mig.on_demand: expected");
    test_parse_refused(PLAN_DOC("{\"layouts\": {\"only\": [\"3g.40gb\"]}, \"on_demand\": {\"after\": \"5m\"}}", ""),
                       "scen.json", FS_ERR_INPUT, "scen.json: pools[0].mig.on_demand: needs two layouts or more");
    printf("  after 0, a negative after, an unknown key, no after, a string, one layout: refused at their paths\n");
#undef OD_PLAN
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_schedule),
        cmocka_unit_test(test_compare_counts_start_units),
        cmocka_unit_test(test_evict_moves_replica),
        cmocka_unit_test(test_wait_and_evict_jobs),
        cmocka_unit_test(test_invalid_plans),
        cmocka_unit_test(test_array_form),
        cmocka_unit_test(test_on_demand),
        cmocka_unit_test(test_on_demand_fits),
        cmocka_unit_test(test_on_demand_no_thrash),
        cmocka_unit_test(test_on_demand_with_schedule),
        cmocka_unit_test(test_on_demand_invalid),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

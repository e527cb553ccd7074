/*
 * test_deploy_autoscaled — a deploy step rolling out a service with an
 * autoscaler (models/workload/service_deploy.c): at a load where the
 * autoscaler holds N = 3 replicas, N x W with max_surge 1, whether it holds
 * them at its min (surge replicas must not make it scale down) or at its
 * max (the surge slot lies beside max); a scale-down during the rollout
 * retiring an old replica first, so the rollout ends one W sooner; a
 * scale-up during it adding a new replica that drains nothing; a surge
 * replica left beyond the old ones (one retired) withdrawn; in each,
 * the pool's GPU-seconds and the requests conserved and the time-average
 * ready replicas exactly what the autoscaler alone gives.
 *
 * Round calibration as test_pipelines.c: recs's weights are 10 GB at
 * 10 GB/s, so a new replica warms W = 1 context + 2 framework + 1 weights
 * + 3 first kernels = 7 s; retrain (gang 1, 1 h) warms 3 s and ends at
 * 3603, when the rollout starts.  recs gets 1 rps of 10 ms requests and a
 * target of 100 in flight, so the load alone wants ceil(in system / 100)
 * <= 1 replica: the autoscaler's wish is its min unless said otherwise.
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

#include "results.h"
#include "run.h"
#include "scenario.h"

#define W 7.0 /* a new replica's warm-up, above */

/* recs autoscaled: count, min, max, then the autoscale object's timing keys
 * and the arrivals (a rate's JSON). */
#define RECS(count, min, max, timing, arrivals)                                                      \
    "\"services\": [{\"name\": \"recs\", \"arrivals\": " arrivals ", \"service_time\":"               \
    " {\"deterministic\": {\"value\": \"10ms\"}}, \"memory_gb\": \"10GB\", \"replicas\": {\"count\": " \
    count ", \"min\": " min ", \"max\": " max ", \"autoscale\": {\"target_in_flight\": 100, \"interval\":" \
    " \"1s\", " timing "}}}]"

#define SCENARIO(recs, surge)                                                                               \
    "{\"schema\": \"fleetsim/1\", \"horizon\": \"2h\", \"policies\": {\"shared\": {\"kind\": \"shared\","  \
    " \"pools\": [{\"name\": \"batch\", \"class\": \"batch\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 8}]}}, " \
    recs ", \"training\": [{\"name\": \"retrain\", \"submit\": {\"at\": [0]}, \"gang\": 1,"             \
    " \"work_gpu_hours\": 1}, {\"name\": \"deploy-recs\", \"after\": \"retrain\", \"deploy\":"         \
    " {\"service\": \"recs\", \"max_surge\": " surge "}}], \"calibration\": {\"context_s\": 1, \"framework_s\": 2," \
    " \"storage_gbps\": 10, \"inference_warmup_s\": 3}}"

static void near(double got, double want, double tol, const char *what)
{
    if (!(fabs(got - want) <= tol))
        fail_msg("%s: got %.12g, want %.12g (tolerance %g)", what, got, want, tol);
}

/* What each test compares: the one rollout's duration, the service's
 * time-average ready replicas and replicas added, the pool's switching
 * GPU-seconds; and what every test checks: GPU-seconds provisioned = busy
 * + idle + switching, requests = completed + dropped + in flight at the
 * horizon. */
static void run_rollout(const char *json, double duration_s, double mean_ready, uint64_t added, double switching_s)
{
    fs_scenario *s = test_scenario("%s", json);
    assert_true(s->services[0].autoscale.enabled);
    fs_results *r = test_run(s);
    const fs_training_rep *step = &r->policies[0].reps[0].training[1];
    const struct fs_pipeline_rep *ro = &step->rollouts;
    const fs_service_rep *recs = &r->policies[0].reps[0].services[0];
    const fs_pool_rep *pool = &r->policies[0].reps[0].pools[0];
    printf("  rollout %.6f s (want %.6f); cycle %.6f s (want %.6f); mean ready %.9f (want %.9f); added %llu (want"
           " %llu)\n",
           ro->n_cycles ? ro->cycle_s[0] : -1, duration_s,
           r->policies[0].reps[0].training[0].pipeline.n_cycles ? r->policies[0].reps[0].training[0].pipeline.cycle_s[0]
                                                                 : -1,
           3603 + duration_s, recs->mean_ready_replicas, mean_ready, (unsigned long long)recs->replicas_added,
           (unsigned long long)added);
    printf("  pool: gpu_s %.6f = busy %.6f + idle %.6f + switching %.6f (want switching %.6f); requests %llu ="
           " completed %llu + dropped %llu + in flight %llu\n",
           pool->gpu_s, pool->busy_gpu_s, pool->idle_gpu_s, pool->switching_gpu_s, switching_s,
           (unsigned long long)recs->requests, (unsigned long long)recs->completed,
           (unsigned long long)recs->dropped, (unsigned long long)recs->in_flight_end);
    assert_int_equal(ro->started, 1);
    assert_int_equal(ro->completed, 1);
    assert_int_equal(ro->n_cycles, 1);
    near(ro->cycle_s[0], duration_s, 1e-6, "rollout duration");
    near(r->policies[0].reps[0].training[0].pipeline.cycle_s[0], 3603 + duration_s, 1e-6, "cycle");
    near(recs->mean_ready_replicas, mean_ready, 1e-9, "ready replicas, time average");
    assert_int_equal(recs->replicas_added, added);
    near(pool->gpu_s, pool->busy_gpu_s + pool->idle_gpu_s + pool->switching_gpu_s, 1e-6 * pool->gpu_s,
         "GPU-seconds provisioned vs busy + idle + switching");
    near(pool->switching_gpu_s, switching_s, 1e-6, "switching GPU-seconds");
    assert_true(pool->idle_gpu_s >= -1e-6); /* idle is the remainder: the sum above cannot fail, this can */
    assert_true(recs->requests > 0);
    assert_int_equal(recs->in_flight_start, 0);
    assert_int_equal(recs->requests, recs->completed + recs->dropped + recs->in_flight_end);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

/* The autoscaler holds N = 3 at its min (max 16), looking every second and
 * giving a replica back after 1 s of wanting fewer: had the warming surge
 * replica counted as its fourth, it would have retired an old one at the
 * next look.  It does not count: new replicas ready at 3610, 3617, 3624,
 * each draining an old one, so N x W = 21 s, mean ready exactly 3 (4 only
 * at those instants), 3 added; switching retrain's 3 + 3 x 7 = 24 GPU-s.
 * At its max instead (min 1, max 3, count 3, idle 1 d so that it never
 * gives one back in the 2 h): the surge slot lies beside max, the same
 * 21 s. */
static void test_holds_n(void **state)
{
    (void)state;
    printf("  at min 3 (max 16):\n");
    run_rollout(SCENARIO(RECS("3", "3", "16", "\"cooldown\": \"0s\", \"idle\": \"1s\"", "{\"poisson_rps\": 1}"), "1"),
                3 * W, 3, 3, 3 + 3 * W);
    printf("  at max 3 (min 1):\n");
    run_rollout(SCENARIO(RECS("3", "1", "3", "\"cooldown\": \"0s\", \"idle\": \"1d\"", "{\"poisson_rps\": 1}"), "1"),
                3 * W, 3, 3, 3 + 3 * W);
}

/* Count 4, min 1: the autoscaler wants 1 from its first look (t = 1 s), so
 * with idle 3610 s it gives one back at the look at 3611, and with
 * cooldown 2 h no other before the horizon (7200).  The rollout of 4 old
 * replicas (A..D) starts at 3603: S1 ready at 3610 drains A, S2 asked then;
 * at 3611 the scale-down retires an OLD one (B..D, not S1), which needs no
 * replacement; S2 ready at 3617 drains another, S3 ready at 3624 the last:
 * 3 x W = 21 s instead of 4 x W = 28 s (draining S1 at 3611 would have
 * taken the full 28 s).  Ready replicas: 4 until 3611, 3 after, as the
 * autoscaler alone gives: (4 x 3611 + 3 x 3589) / 7200 = 25211 / 7200.
 * 3 added; switching 3 + 3 x 7 = 24 GPU-s. */
static void test_scale_down_retires_old(void **state)
{
    (void)state;
    run_rollout(SCENARIO(RECS("4", "1", "16", "\"cooldown\": \"2h\", \"idle\": \"3610s\"", "{\"poisson_rps\": 1}"), "1"),
                3 * W, 25211.0 / 7200, 3, 3 + 3 * W);
}

/* Count 3, min 3, max 4, idle 1 d (never gives one back in the 2 h).  A
 * burst of 1000 rps in [3604, 3605) brings ~1000 requests of 10 ms to 3
 * replicas serving 300 a second, so the look at 3605 finds ~700 in the
 * system, wants ceil(700 / 100) = 7, clamped to 4, and asks for one more:
 * U, ready at 3612 (its backlog is gone by ~3607.3, so old replicas drain
 * idle).  U is new and drains nothing: S1 (3610), S2 (3617) and S3 (3624)
 * replace the 3 old ones, 21 s (had U drained one it would be 14 s).
 * Ready: 3 until 3612, 4 after: (3 x 3612 + 4 x 3588) / 7200 = 25188 /
 * 7200.  4 added (3 surge, U); switching 3 + 4 x 7 = 31 GPU-s. */
static void test_scale_up_adds_new(void **state)
{
    (void)state;
    run_rollout(SCENARIO(RECS("3", "3", "4", "\"cooldown\": \"0s\", \"idle\": \"1d\"",
                              "{\"poisson_rps\": 1, \"bursts\": [{\"at\": \"3604s\", \"multiplier\": 1000,"
                              " \"duration\": \"1s\"}]}"), "1"),
                3 * W, 25188.0 / 7200, 4, 3 + 4 * W);
}

/* max_surge 2, count 2, min 1: both old replicas' replacements are asked
 * for at 3603.  With idle 3603 s the look at 3604 (cooldown 2 h: the only
 * one) retires an old one, so one surge replica is one too many: it is
 * withdrawn (its unit, granted, still warms to 3610 and is given back
 * then); the other, ready at 3610, drains the last old one: W = 7 s.
 * Ready: 2 until 3604, 1 after: (2 x 3604 + 3596) / 7200 = 10804 / 7200.
 * 1 added; switching 3 + 2 x 7 = 17 GPU-s (the withdrawn one warmed). */
static void test_surplus_surge_withdrawn(void **state)
{
    (void)state;
    run_rollout(SCENARIO(RECS("2", "1", "16", "\"cooldown\": \"2h\", \"idle\": \"3603s\"", "{\"poisson_rps\": 1}"),
                         "2"),
                W, 10804.0 / 7200, 1, 3 + 2 * W);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_holds_n),
        cmocka_unit_test(test_scale_down_retires_old),
        cmocka_unit_test(test_scale_up_adds_new),
        cmocka_unit_test(test_surplus_surge_withdrawn),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

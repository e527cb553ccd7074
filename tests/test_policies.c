/*
 * test_policies — the capacity manager under its three policies: the
 * morning-tail scenario (seed 003's qualitative claim), gang admission,
 * preemption and lost-work accounting, scale from zero, warm-up durations
 * from the calibration profile, priority lanes, GPU-second conservation,
 * spot reclaims and elastic pools.
 *
 * The exact tests (3, 4) use deterministic service times, an arrival profile
 * that is 0 for the first hour and an inline calibration profile with round
 * figures, so every instant can be worked out by hand; the timelines are
 * written out above each test.  Every test prints the figures it compares.
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

#define H100 "H100-SXM-80GB"
#define DAY 86400.0
/* Scenario sizes are GiB (2^30 bytes), bandwidths GB/s (10^9 bytes/s). */
#define GB_PER_GIB 1.073741824
#define HOUR 3600.0

/* Round switch costs: a replica warms in 1 + 2 + memory_gb / 10 + 3 s, a
 * training member in 1 + 2 + state_gb_per_gpu / 10 s. */
#define CALIBRATION                                                                            \
    "\"calibration\": {\"context_s\": 1, \"framework_s\": 2, \"storage_gbps\": 10,"            \
    " \"inference_warmup_s\": 3}"

/* The built-in profile's training warm-up with no state: context 0.5 s +
 * framework 4.47 s (reference/costs.md). */
#define DEFAULT_TRAINING_WARMUP_S (0.5 + 4.47)

/* 24 hourly multipliers: no traffic in hour 0, full rate afterwards. */
#define DIURNAL_AFTER_1H "[0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]"

/* A service with light traffic: the JSON members after "name". */
#define LIGHT                                                                                  \
    "\"arrivals\": {\"poisson_rps\": 1}, \"service_time\": {\"deterministic\": {\"value\": \"10ms\"}}"

/* chat of tests 3 and 4: 50 rps from t = 3600 s, 1 s each, one replica that
 * may become two; any request in system asks for the second one. */
#define CHAT_1_TO_2(memory)                                                                    \
    "{\"name\": \"chat\", \"pool\": \"serving\", \"memory_gb\": " memory ","                   \
    " \"arrivals\": {\"poisson_rps\": 50, \"diurnal\": " DIURNAL_AFTER_1H "},"                 \
    " \"service_time\": {\"deterministic\": {\"value\": \"1s\"}},"                             \
    " \"replicas\": {\"count\": 1, \"min\": 1, \"max\": 2,"                                    \
    "   \"autoscale\": {\"target_in_flight\": 0.001, \"interval\": \"10s\", \"cooldown\": \"0s\"," \
    "                  \"idle\": \"1d\"}}}"

/* ---- helpers -------------------------------------------------------------- */

static void assert_close(double got, double want, double tol)
{
    if (!(fabs(got - want) <= tol))
        fail_msg("got %.15g, want %.15g (tolerance %g)", got, want, tol);
}

static size_t policy_index(const fs_results *r, const char *name)
{
    for (size_t p = 0; p < r->n_policies; p++)
        if (strcmp(r->policies[p].name, name) == 0)
            return p;
    fail_msg("no policy \"%s\" in the results", name);
    return SIZE_MAX;
}

static size_t stream_index(const fs_scenario *s, const char *name)
{
    for (size_t i = 0; i < s->n_training; i++)
        if (strcmp(s->training[i].name, name) == 0)
            return i;
    fail_msg("no training stream \"%s\"", name);
    return SIZE_MAX;
}

static size_t pool_index(const fs_scenario *s, const char *name)
{
    for (size_t i = 0; i < s->n_pools; i++)
        if (strcmp(s->pools[i].name, name) == 0)
            return i;
    fail_msg("no pool \"%s\" in policy %s", name, s->policy);
    return SIZE_MAX;
}

/* The one replication's figures of a training stream under a policy. */
static const fs_training_rep *training_rep(const fs_results *r, const char *policy, const char *stream)
{
    size_t p = policy_index(r, policy);
    assert_int_equal(r->policies[p].n_reps, 1);
    return &r->policies[p].reps[0].training[stream_index(r->scenario, stream)];
}

/* Queue wait of the one job a stream started, exact (the histogram's max). */
static double only_wait_s(const fs_training_rep *t)
{
    assert_int_equal(t->wait.total, 1);
    return (double)t->wait.max_ns * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The morning-tail run (test 1 and test 6 share it: it is the slowest run
 * here); freed by the group teardown. */
static fs_scenario *mt_scenario;
static fs_results *mt_results;

static const fs_results *morning_tail(void)
{
    if (mt_results)
        return mt_results;
    fs_scenario *s = NULL;
    fs_error err = {0};
    if (fs_scenario_load(FS_SOURCE_DIR "/scenarios/morning-tail.json", &s, &err) != FS_OK)
        fail_msg("morning-tail.json: %s", err.msg);
    if (fs_scenario_override(s, -1, 1, -1, &err) != FS_OK) {
        fs_scenario_destroy(s);
        fail_msg("override: %s", err.msg);
    }
    mt_scenario = s;
    mt_results = test_run(s);
    return mt_results;
}

static int teardown_group(void **state)
{
    (void)state;
    if (mt_results)
        fs_results_destroy(mt_results);
    if (mt_scenario)
        fs_scenario_destroy(mt_scenario);
    return 0;
}

/* provisioned = busy + switching + idle for every pool of every policy and
 * replication, idle never negative, and switching time wherever something
 * switched: a pool whose service added replicas, or a pool that hosts no
 * replica at the start yet was busy (a training gang warmed up on it). */
static void check_conservation(const fs_results *r)
{
    for (size_t p = 0; p < r->n_policies; p++) {
        const fs_policy_result *pol = &r->policies[p];
        const fs_scenario *v = pol->scenario;
        for (uint32_t k = 0; k < pol->n_reps; k++) {
            const fs_rep_result *rep = &pol->reps[k];
            for (size_t i = 0; i < v->n_pools; i++) {
                const fs_pool_rep *pr = &rep->pools[i];
                bool hosts = false, added = false;
                for (size_t j = 0; j < v->n_services; j++) {
                    if (v->services[j].pool != i)
                        continue;
                    hosts = true;
                    added |= rep->services[j].replicas_added > 0;
                }
                bool switched = added || (!hosts && pr->busy_gpu_s > 0);
                double sum = pr->busy_gpu_s + pr->idle_gpu_s + pr->switching_gpu_s;
                printf("  %s/%s rep %u: gpu_s %.6f = busy %.6f + idle %.6f + switching %.6f"
                       " (sum %.6f, diff %.3g)%s\n",
                       pol->name, v->pools[i].name, k, pr->gpu_s, pr->busy_gpu_s, pr->idle_gpu_s,
                       pr->switching_gpu_s, sum, pr->gpu_s - sum, switched ? ", switched" : "");
                assert_true(pr->gpu_s > 0);
                if (!(fabs(pr->gpu_s - sum) <= 1e-6 * pr->gpu_s))
                    fail_msg("%s/%s: provisioned %.9g != busy + idle + switching %.9g", pol->name,
                             v->pools[i].name, pr->gpu_s, sum);
                if (!(pr->idle_gpu_s >= 0))
                    fail_msg("%s/%s: idle GPU-seconds %.9g < 0", pol->name, v->pools[i].name,
                             pr->idle_gpu_s);
                if (!(pr->switching_gpu_s >= 0))
                    fail_msg("%s/%s: switching GPU-seconds %.9g < 0", pol->name, v->pools[i].name,
                             pr->switching_gpu_s);
                if (switched && !(pr->switching_gpu_s > 0))
                    fail_msg("%s/%s: tenants changed but switching GPU-seconds are %.9g", pol->name,
                             v->pools[i].name, pr->switching_gpu_s);
            }
        }
    }
}

/* ---- 1. morning tail ------------------------------------------------------ */

/* Day 2 of the run (t in [2d, 3d)): the chat p99 of the ramp (windows
 * starting 10:00 to 11:30) against the afternoon (median of windows starting
 * 12:00 to 16:00).  Under shared the nightly gangs hold the GPUs chat needs
 * for its ramp; under partitioned chat always finds capacity and the eval
 * sweep waits for the fine-tune instead. */
static void ramp_and_baseline(const fs_results *r, size_t p, double *ramp, double *baseline)
{
    const fs_service_rep *chat = &r->policies[p].reps[0].services[0];
    assert_string_equal(r->policies[p].scenario->services[0].name, "chat");
    double base[64], ramp_sum = 0;
    size_t n_base = 0, n_ramp = 0;
    for (size_t w = 0; w < chat->n_windows; w++) {
        const fs_service_window *win = &chat->windows[w];
        double clock = win->start_s - 2 * DAY;
        if (clock < 0 || clock >= DAY)
            continue;
        if (clock >= 12 * HOUR && clock < 16 * HOUR) {
            assert_true(n_base < 64);
            base[n_base++] = win->p99_ms;
        }
        if (clock >= 10 * HOUR && clock <= 11.5 * HOUR) {
            ramp_sum += win->p99_ms;
            n_ramp++;
        }
    }
    assert_int_equal(n_base, 48); /* 4 h of 5-minute windows */
    assert_int_equal(n_ramp, 19); /* 10:00, 10:05, ..., 11:30 */
    qsort(base, n_base, sizeof base[0], cmp_double);
    *baseline = (base[n_base / 2 - 1] + base[n_base / 2]) / 2;
    *ramp = ramp_sum / (double)n_ramp;
}

static void test_morning_tail(void **state)
{
    (void)state;
    const fs_results *r = morning_tail();
    size_t shared = policy_index(r, "shared"), part = policy_index(r, "partitioned");
    double ramp_s, base_s, ramp_p, base_p;
    ramp_and_baseline(r, shared, &ramp_s, &base_s);
    ramp_and_baseline(r, part, &ramp_p, &base_p);
    printf("  shared:      ramp p99 %.1f ms, afternoon p99 %.1f ms, ratio %.3f (want > 2)\n", ramp_s,
           base_s, ramp_s / base_s);
    printf("  partitioned: ramp p99 %.1f ms, afternoon p99 %.1f ms, ratio %.3f (want < 1.2)\n",
           ramp_p, base_p, ramp_p / base_p);
    assert_true(base_s > 0 && base_p > 0);
    assert_true(ramp_s / base_s > 2);
    assert_true(ramp_p / base_p < 1.2);

    size_t eval = stream_index(r->scenario, "eval-sweep");
    fs_training_summary ts, tp;
    assert_int_equal(fs_results_training_summary(r, shared, eval, &ts), 0);
    assert_int_equal(fs_results_training_summary(r, part, eval, &tp), 0);
    printf("  eval-sweep queue wait p95: shared %.1f s, partitioned %.1f s (started %.0f / %.0f)\n",
           ts.wait_p95_s, tp.wait_p95_s, ts.started.mean, tp.started.mean);
    assert_true(ts.started.mean >= 1 && tp.started.mean >= 1);
    assert_true(tp.wait_p95_s > ts.wait_p95_s);
}

/* ---- 2. gang admission: all or nothing ------------------------------------- */

/* 10 whole H100s, 4 held by fixed chat replicas: 6 free.  A gang of 8 never
 * starts and takes nothing (no partial gang); a gang of 6 starts at once and
 * adds exactly its work to the pool's busy time. */
#define GANG_POOL                                                                              \
    "{\"schema\": \"fleetsim/1\", \"horizon\": \"3h\", \"seed\": 7,"                            \
    " \"pools\": [{\"name\": \"all\", \"gpu\": \"" H100 "\", \"gpus\": 10}],"                   \
    " \"services\": [{\"name\": \"chat\", " LIGHT ", \"replicas\": 4}]"

static fs_results *gang_run(int gang, fs_scenario **s)
{
    if (gang == 0)
        *s = test_scenario(GANG_POOL "}");
    else
        *s = test_scenario(GANG_POOL ", \"training\": [{\"name\": \"ft\", \"submit\": {\"at\": [\"60s\"]},"
                                     " \"gang\": %d, \"work_gpu_hours\": 6}]}",
                           gang);
    return test_run(*s);
}

static void test_gang_admission(void **state)
{
    (void)state;
    fs_scenario *s0, *s8, *s6;
    fs_results *r0 = gang_run(0, &s0), *r8 = gang_run(8, &s8), *r6 = gang_run(6, &s6);
    const fs_pool_rep *p0 = &r0->policies[0].reps[0].pools[0];
    const fs_pool_rep *p8 = &r8->policies[0].reps[0].pools[0];
    const fs_pool_rep *p6 = &r6->policies[0].reps[0].pools[0];
    const fs_training_rep *t8 = &r8->policies[0].reps[0].training[0];
    const fs_training_rep *t6 = &r6->policies[0].reps[0].training[0];

    printf("  gang 8: submitted %llu started %llu completed %llu waiting at end %llu;"
           " busy %.6f GPU-s (without training %.6f), switching %.6f\n",
           (unsigned long long)t8->submitted, (unsigned long long)t8->started,
           (unsigned long long)t8->completed, (unsigned long long)t8->waiting_end, p8->busy_gpu_s,
           p0->busy_gpu_s, p8->switching_gpu_s);
    assert_int_equal(t8->submitted, 1);
    assert_int_equal(t8->started, 0);
    assert_int_equal(t8->completed, 0);
    assert_int_equal(t8->waiting_end, 1);
    assert_close(t8->gpu_hours_done, 0, 0);
    assert_close(p8->busy_gpu_s, p0->busy_gpu_s, 1e-9 * p0->busy_gpu_s);
    assert_close(p8->switching_gpu_s, 0, 0); /* no member of the gang was ever granted */
    assert_true(p0->busy_gpu_s > 0);

    double want_busy = p0->busy_gpu_s + 6 * HOUR;
    printf("  gang 6: started %llu completed %llu waiting at end %llu, wait %.6f s (want 0),"
           " start-up %.6f s (warm-up %.2f s); busy %.6f GPU-s, want %.6f; done %.6f GPU-h\n",
           (unsigned long long)t6->started, (unsigned long long)t6->completed,
           (unsigned long long)t6->waiting_end, only_wait_s(t6), t6->startup_s, DEFAULT_TRAINING_WARMUP_S,
           p6->busy_gpu_s, want_busy, t6->gpu_hours_done);
    assert_int_equal(t6->started, 1);
    assert_int_equal(t6->completed, 1);
    assert_int_equal(t6->waiting_end, 0);
    /* Admitted on submission: the warm-up is start-up, not queue wait. */
    assert_close(only_wait_s(t6), 0, 1e-6);
    assert_int_equal(t6->startups, 1);
    assert_close(t6->startup_s, DEFAULT_TRAINING_WARMUP_S, 1e-6);
    assert_close(t6->gpu_hours_done, 6, 1e-9);
    assert_close(p6->busy_gpu_s, want_busy, 1e-6);
    assert_close(p6->switching_gpu_s, 6 * DEFAULT_TRAINING_WARMUP_S, 1e-6);

    fs_results_destroy(r0);
    fs_results_destroy(r8);
    fs_results_destroy(r6);
    fs_scenario_destroy(s0);
    fs_scenario_destroy(s8);
    fs_scenario_destroy(s6);
}

/* ---- 3. preemption accounting, exact ------------------------------------- */

/* Partitioned with borrowing; one serving pool of 2 H100s; chat holds unit 0
 * from t = 0.  Timeline:
 *   t = 0      the job (gang 1, preemptible) is submitted and granted the
 *              idle serving unit; it warms 1 + 2 + 0/10 = 3 s;
 *   t = 3      it computes (queue wait 3 s); segments of 1000 s, each
 *              followed by a checkpoint write of 0 s;
 *   t = 1003, 2003, 3003  checkpoints complete: 3 x 1000 s of work kept;
 *   t = 3600   chat's traffic starts (the autoscaler's tick at 3600 still
 *              finds nobody in the system);
 *   t = 3610   the tick finds requests waiting, wants 2 replicas, and evicts
 *              the job: it loses 3610 - 3003 = 607 s of its gang of 1, gives
 *              its unit back in 0 s and queues again; chat's second replica
 *              (0.5 GB) warms 1 + 2 + 0.5/10 + 3 = 6.05 s;
 *   t = 3616.05  the second replica serves; it never scales down (idle 1d),
 *              so the job waits to the horizon (2 h).
 * So: preemptions 1, lost (3610 - 3003) / 3600 GPU-h, done 3000 / 3600 GPU-h,
 * switching 3 + 0 + 6.05 GPU-s, mean ready replicas (T + (T - 3616.05)) / T. */
static fs_scenario *preemption_scenario(double state_gb, const char *on_eviction)
{
    return test_scenario(
        "{\"schema\": \"fleetsim/1\", \"horizon\": \"2h\", \"seed\": 3,"
        " \"policies\": {\"borrow\": {\"kind\": \"partitioned\", \"borrowing\": true,"
        "   \"pools\": [{\"name\": \"serving\", \"class\": \"serving\", \"gpu\": \"" H100 "\", \"gpus\": 2}]}},"
        " \"services\": [" CHAT_1_TO_2("0.5") "],"
        " \"training\": [{\"name\": \"ft\", \"submit\": {\"at\": [0]}, \"gang\": 1,"
        "   \"work_gpu_hours\": 100, \"state_gb_per_gpu\": %g, \"preemptible\": true,"
        "   \"on_eviction\": \"%s\","
        "   \"checkpoint\": {\"every\": \"1000s\", \"write\": \"0s\"}}],"
        " " CALIBRATION "}",
        state_gb, on_eviction);
}

static void test_preemption_accounting(void **state)
{
    (void)state;
    fs_scenario *s = preemption_scenario(0, "drop");
    assert_int_equal(s->policy_kind, FS_POLICY_PARTITIONED);
    assert_true(s->borrowing);
    fs_results *r = test_run(s);
    const fs_rep_result *rep = &r->policies[0].reps[0];
    const fs_training_rep *t = &rep->training[0];
    const fs_pool_rep *pool = &rep->pools[0];
    const fs_service_rep *chat = &rep->services[0];
    double T = s->horizon_s;
    /* chat's replica: 1 + 2 + 0.5 GiB / 10 GB/s + 3 = 6.0537 s of warm-up. */
    double chat_warm = 1 + 2 + 0.5 * GB_PER_GIB / 10 + 3, ready_at = 3610 + chat_warm;
    double want_lost = (3610.0 - 3003.0) / HOUR, want_done = 3 * 1000.0 / HOUR;
    double want_ready = (T + (T - ready_at)) / T;
    printf("  preemptions %llu (want 1), lost %.12f GPU-h (want %.12f), done %.12f GPU-h (want %.12f)\n",
           (unsigned long long)t->preemptions, t->gpu_hours_lost, want_lost, t->gpu_hours_done,
           want_done);
    printf("  started %llu completed %llu waiting at end %llu, wait %.9f s (want 0), start-up %.9f s"
           " (want 3)\n",
           (unsigned long long)t->started, (unsigned long long)t->completed,
           (unsigned long long)t->waiting_end, only_wait_s(t), t->startup_s);
    printf("  switching %.9f GPU-s (want %.9f), chat replicas added %llu,"
           " mean ready %.12f (want %.12f)\n",
           pool->switching_gpu_s, 3 + chat_warm, (unsigned long long)chat->replicas_added,
           chat->mean_ready_replicas, want_ready);
    assert_int_equal(t->submitted, 1);
    assert_int_equal(t->started, 1);
    assert_int_equal(t->completed, 0);
    assert_int_equal(t->preemptions, 1);
    assert_int_equal(t->waiting_end, 1);
    /* Granted at submission, warmed 1 + 2 s (no state): start-up, not wait. */
    assert_close(only_wait_s(t), 0, 1e-9);
    assert_int_equal(t->startups, 1);
    assert_close(t->startup_s, 3, 1e-9);
    assert_close(t->gpu_hours_lost, want_lost, 1e-9);
    assert_close(t->gpu_hours_done, want_done, 1e-9);
    assert_int_equal(chat->replicas_added, 1);
    assert_close(chat->mean_ready_replicas, want_ready, 1e-9);
    assert_close(pool->switching_gpu_s, 3 + chat_warm, 1e-9);
    /* The job computed on its unit from 3 to 3610. */
    assert_true(pool->busy_gpu_s >= 3607 - 1e-9);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

/* The same, evicted with "save" and 10 GiB of state: warm-up 1 + 2 +
 * 10.737/10 = 4.0737 s, checkpoints complete 1000, 2000, 3000 s of compute
 * later; at 3610 the state goes to host memory in 10.737 / 52.8 s (built-in
 * D2H) and the 605.93 s since the last checkpoint are kept, not lost;
 * chat's replica then warms on the freed unit from 3610 + 10.737/52.8. */
static void test_preemption_save(void **state)
{
    (void)state;
    fs_scenario *s = preemption_scenario(10, "save");
    assert_true(s->training[0].save_on_eviction);
    fs_results *r = test_run(s);
    const fs_rep_result *rep = &r->policies[0].reps[0];
    const fs_training_rep *t = &rep->training[0];
    const fs_pool_rep *pool = &rep->pools[0];
    double evict = 10 * GB_PER_GIB / s->switch_costs.d2h_gbps, chat_warm = 1 + 2 + 0.5 * GB_PER_GIB / 10 + 3;
    double job_warm = 1 + 2 + 10 * GB_PER_GIB / 10;
    double want_done = (3610 - job_warm) / HOUR, want_switch = job_warm + evict + chat_warm;
    printf("  save: preemptions %llu, lost %.12f, done %.12f GPU-h (want %.12f), switching %.9f GPU-s"
           " (want %.9f)\n",
           (unsigned long long)t->preemptions, t->gpu_hours_lost, t->gpu_hours_done, want_done,
           pool->switching_gpu_s, want_switch);
    assert_int_equal(t->preemptions, 1);
    assert_close(t->gpu_hours_lost, 0, 0);
    assert_close(t->gpu_hours_done, want_done, 1e-9);
    assert_close(pool->switching_gpu_s, want_switch, 1e-9);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

/* Scale from zero and back (replicas "count" 0, "min" 0): the only GPU of a
 * serving pool, partitioned with borrowing, is the job's until the service
 * wants a replica.  Timeline:
 *   t = 0      the job (10 GiB, "save") takes the idle GPU: warms 1 + 2 + 10.737/10 s
 *              (10 GiB = 10.737 GB against 10 GB/s);
 *   t = 3600   traffic starts (5 rps, 150 ms each, for one hour); the tick at
 *              3600 finds nobody;
 *   t = 3610   the tick finds requests and asks for the first replica: the job
 *              is evicted, its state to host in 10.737 / 52.8 s (built-in D2H),
 *              and the replica warms 1 + 2 + 0.537/10 + 3 s;
 *   t = 7200   traffic stops; once the queue is empty, the first tick that
 *              finds nobody starts the idle clock, and 60 ticks (10 min) later
 *              the last replica drains (min 0) and gives the GPU back at once;
 *   then       the job resumes from host memory: 1 + 2 + 10.737/56.7 s (built-in
 *              H2D), and computes to the horizon (3 h).
 * The drain's tick depends on when the queue empties, so it is bounded, not
 * worked out; every switch is exact. */
static void test_scale_from_zero(void **state)
{
    (void)state;
    fs_scenario *s = test_scenario(
        "{\"schema\": \"fleetsim/1\", \"horizon\": \"3h\", \"seed\": 5,"
        " \"policies\": {\"borrow\": {\"kind\": \"partitioned\", \"borrowing\": true,"
        "   \"pools\": [{\"name\": \"serving\", \"class\": \"serving\", \"gpu\": \"" H100 "\", \"gpus\": 1}]}},"
        " \"services\": [{\"name\": \"chat\", \"pool\": \"serving\", \"memory_gb\": 0.5,"
        "   \"arrivals\": {\"poisson_rps\": 5, \"diurnal\": [0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,"
        "                                                0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]},"
        "   \"service_time\": {\"deterministic\": {\"value\": \"150ms\"}},"
        "   \"replicas\": {\"count\": 0, \"min\": 0, \"max\": 1,"
        "     \"autoscale\": {\"target_in_flight\": 1, \"interval\": \"10s\", \"cooldown\": \"0s\","
        "                    \"idle\": \"10m\"}}}],"
        " \"training\": [{\"name\": \"ft\", \"submit\": {\"at\": [0]}, \"gang\": 1, \"work_gpu_hours\": 100,"
        "   \"state_gb_per_gpu\": 10, \"preemptible\": true, \"on_eviction\": \"save\"}],"
        " " CALIBRATION "}");
    assert_int_equal(s->services[0].replicas, 0);
    assert_int_equal(s->services[0].min_replicas, 0);
    fs_results *r = test_run(s);
    const fs_rep_result *rep = &r->policies[0].reps[0];
    const fs_training_rep *t = &rep->training[0];
    const fs_pool_rep *pool = &rep->pools[0];
    const fs_service_rep *chat = &rep->services[0];
    double T = s->horizon_s, evict = 10 * GB_PER_GIB / s->switch_costs.d2h_gbps;
    double resume = 1 + 2 + 10 * GB_PER_GIB / s->switch_costs.h2d_gbps, job_warm = 1 + 2 + 10 * GB_PER_GIB / 10;
    double ready_at = 3610 + evict + (1 + 2 + 0.5 * GB_PER_GIB / 10 + 3);
    /* Ready from ready_at to the drain: the drain's instant from the mean. */
    double drained_at = ready_at + chat->mean_ready_replicas * T;
    double want_switch = job_warm + evict + (1 + 2 + 0.5 * GB_PER_GIB / 10 + 3) + resume;
    printf("  replicas added %llu, drained at %.6f s; requests %llu completed %llu; switching %.9f GPU-s (want %.9f);"
           " job preemptions %llu, done %.9f GPU-h, busy %.3f GPU-s\n",
           (unsigned long long)chat->replicas_added, drained_at, (unsigned long long)chat->requests,
           (unsigned long long)chat->completed, pool->switching_gpu_s, want_switch,
           (unsigned long long)t->preemptions, t->gpu_hours_done, pool->busy_gpu_s);
    assert_int_equal(chat->replicas_added, 1);
    assert_true(chat->requests > 0);
    assert_int_equal(chat->completed, chat->requests);
    assert_int_equal(chat->in_flight_end, 0);
    /* The drain falls on a tick 10 minutes after one that found nobody, after 7200. */
    assert_true(drained_at >= 7200 + 600 && drained_at <= 7200 + 700);
    assert_close(fmod(drained_at + 1e-6, 10), 0, 1e-5);
    assert_close(pool->switching_gpu_s, want_switch, 1e-6);
    assert_int_equal(t->preemptions, 1);
    assert_close(t->gpu_hours_lost, 0, 0);
    assert_close(t->gpu_hours_done, (3610.0 - job_warm) / HOUR, 1e-9);
    assert_int_equal(t->running_end, 1);
    /* The job computed before the eviction and again after the drain. */
    assert_true(pool->busy_gpu_s >= (3610 - job_warm) + (T - drained_at - resume) - 1e-6);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

/* ---- 4. warm-up durations from the calibration profile -------------------- */

/* Shared pool of 2 H100s, chat (20 GiB = 21.475 GB) alone: the tick at 3610
 * asks for the second replica, which takes the free GPU at once and warms
 * 1 + 2 + 21.475/10 + 3 = 8.1475 s: switching is exactly that many GPU-s
 * and the replica serves from 3618.1475. */
static void test_warmup_durations(void **state)
{
    (void)state;
    fs_scenario *s = test_scenario("{\"schema\": \"fleetsim/1\", \"horizon\": \"2h\", \"seed\": 3,"
                                   " \"pools\": [{\"name\": \"serving\", \"gpu\": \"" H100 "\", \"gpus\": 2}],"
                                   " \"services\": [" CHAT_1_TO_2("20") "],"
                                   " " CALIBRATION "}");
    assert_close(s->switch_costs.context_s, 1, 0);
    assert_close(s->switch_costs.storage_gbps, 10, 0);
    fs_results *r = test_run(s);
    const fs_rep_result *rep = &r->policies[0].reps[0];
    const fs_pool_rep *pool = &rep->pools[0];
    const fs_service_rep *chat = &rep->services[0];
    double warm = 1 + 2 + 20.0 * GB_PER_GIB / 10 + 3;
    double T = s->horizon_s, want_ready = (T + (T - (3610 + warm))) / T;
    printf("  switching %.12f GPU-s (want %.12f), replicas added %llu, mean ready %.12f (want %.12f)\n",
           pool->switching_gpu_s, warm, (unsigned long long)chat->replicas_added, chat->mean_ready_replicas,
           want_ready);
    assert_close(pool->switching_gpu_s, warm, 1e-9);
    assert_int_equal(chat->replicas_added, 1);
    assert_close(chat->mean_ready_replicas, want_ready, 1e-9);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

/* ---- 5. priority lanes (tiered) against first come first served (shared) --- */

/* Backfilling past waiting gangs (partitioned), as the fleet's indexes must
 * keep it (models/fleet/README.md "Indexes").  A batch pool of 4 H100s: "a"
 * takes 3 GPUs at t = 0 for an hour; "big" (all 4: a gang as large as the
 * largest pool) asks at 10 s and "two" (2) at 20 s, both too large for the
 * one free GPU; "one" (1 GPU, 30 min) asks at 30 s and starts at once past
 * them.  "one" ends first; that GPU alone fits nobody.  When "a" gives its
 * three back, the first of them makes two free: "two" starts, and "big" only
 * once "two" is done. */
static void test_backfill_past_waiting_gangs(void **state)
{
    (void)state;
#define JOB(name, at, gang, hours)                                                              \
    "{\"name\": \"" name "\", \"submit\": {\"at\": [\"" at "\"]}, \"gang\": " gang ","      \
    " \"work_gpu_hours\": " hours "}"
    fs_scenario *s = test_scenario(
        "{\"schema\": \"fleetsim/1\", \"horizon\": \"4h\", \"seed\": 5,"
        " \"policies\": {\"partitioned\": {\"kind\": \"partitioned\", \"pools\": ["
        "   {\"name\": \"serving\", \"class\": \"serving\", \"gpu\": \"" H100 "\", \"gpus\": 1},"
        "   {\"name\": \"batch\", \"class\": \"batch\", \"gpu\": \"" H100 "\", \"gpus\": 4}]}},"
        " \"services\": [{\"name\": \"chat\", \"pool\": \"serving\", " LIGHT ", \"replicas\": 1}],"
        " \"training\": [" JOB("a", "0s", "3", "3") ", " JOB("big", "10s", "4", "4") ", "
        JOB("two", "20s", "2", "2") ", " JOB("one", "30s", "1", "0.5") "]}");
#undef JOB
    fs_results *r = test_run(s);
    double w = DEFAULT_TRAINING_WARMUP_S, a_ends = w + HOUR;
    const fs_training_rep *one = training_rep(r, "partitioned", "one");
    const fs_training_rep *two = training_rep(r, "partitioned", "two");
    const fs_training_rep *big = training_rep(r, "partitioned", "big");
    printf("  waits: one %.3f s, two %.3f s, big %.3f s\n", only_wait_s(one), only_wait_s(two), only_wait_s(big));
    /* A wait ends at the grant; each gang then warms w before computing. */
    assert_close(only_wait_s(one), 0, 1e-6);
    assert_close(only_wait_s(two), a_ends - 20, 1e-6);
    assert_close(only_wait_s(big), a_ends + w + HOUR - 10, 1e-6);
    assert_int_equal(big->completed, 1);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

/* A batch pool of 4 H100s.  "first" (experiment) takes all four at t = 0 for
 * an hour; "exp" (experiment) asks at 10 s and "prod" (production) at 20 s,
 * each for all four.  When "first" ends, tiered serves the production lane
 * first; shared serves whoever asked first.  Experiments are not
 * preemptible, so tiered lets them on the batch pool and nobody evicts. */
static void test_priority_lanes(void **state)
{
    (void)state;
#define BATCH4                                                                                 \
    "\"pools\": [{\"name\": \"serving\", \"class\": \"serving\", \"gpu\": \"" H100 "\", \"gpus\": 1}," \
    "            {\"name\": \"batch\", \"class\": \"batch\", \"gpu\": \"" H100 "\", \"gpus\": 4}]"
#define JOB(name, at, prio)                                                                    \
    "{\"name\": \"" name "\", \"submit\": {\"at\": [\"" at "\"]}, \"gang\": 4,"                \
    " \"work_gpu_hours\": 4, \"priority\": \"" prio "\"}"
    fs_scenario *s = test_scenario(
        "{\"schema\": \"fleetsim/1\", \"horizon\": \"3h\", \"seed\": 5,"
        " \"policies\": {\"tiered\": {\"kind\": \"tiered\", " BATCH4 "},"
        "                \"shared\": {\"kind\": \"shared\", " BATCH4 "}},"
        " \"services\": [{\"name\": \"chat\", \"pool\": \"serving\", " LIGHT ", \"replicas\": 1}],"
        " \"training\": [" JOB("first", "0s", "experiment") ", " JOB("exp", "10s", "experiment") ","
        "                " JOB("prod", "20s", "production") "]}");
#undef JOB
#undef BATCH4
    fs_results *r = test_run(s);
    double w = DEFAULT_TRAINING_WARMUP_S;
    /* "first" computes from w to w + 3600; the next job is granted then and
     * warms for w; the last is granted when that one ends. */
    double next_start = w + HOUR, last_start = 2 * w + 2 * HOUR;
    const char *order[2][2] = {{"tiered", "prod"}, {"shared", "exp"}};
    for (int k = 0; k < 2; k++) {
        const char *pol = order[k][0];
        const fs_training_rep *first = training_rep(r, pol, "first");
        const fs_training_rep *exp = training_rep(r, pol, "exp");
        const fs_training_rep *prod = training_rep(r, pol, "prod");
        double we = only_wait_s(exp), wp = only_wait_s(prod);
        printf("  %s: first waits %.3f s; exp waits %.3f s, prod waits %.3f s; %s goes first\n", pol,
               only_wait_s(first), we, wp, we < wp ? "exp" : "prod");
        assert_close(only_wait_s(first), 0, 1e-6);
        assert_int_equal(first->completed, 1);
        assert_int_equal(exp->preemptions + prod->preemptions + first->preemptions, 0);
        if (strcmp(order[k][1], "prod") == 0) {
            assert_true(wp < we);
            assert_close(wp, next_start - 20, 1e-6);
            assert_close(we, last_start - 10, 1e-6);
        } else {
            assert_true(we < wp);
            assert_close(we, next_start - 10, 1e-6);
            assert_close(wp, last_start - 20, 1e-6);
        }
    }
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

/* ---- 6. conservation of GPU-seconds ---------------------------------------- */

static void test_conservation(void **state)
{
    (void)state;
    printf(" morning tail:\n");
    check_conservation(morning_tail());
    printf(" preemption scenario (test 3):\n");
    fs_scenario *s = preemption_scenario(0, "drop");
    fs_results *r = test_run(s);
    check_conservation(r);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

/* A training-only cluster needs no dummy service: two gangs of 4 submitted
 * at 1 h and 2 h on 8 GPUs each compute 4 GPU-hours (1 h on 4 GPUs after
 * their warm-up), side by side, so both complete with exactly 8 GPU-hours
 * done, nothing lost, and the pool's GPU-seconds still add up. */
static void test_training_only(void **state)
{
    (void)state;
    fs_scenario *s = test_scenario(
        "{\"schema\": \"fleetsim/1\", \"horizon\": \"1d\", \"seed\": 3,"
        " \"policies\": {\"shared\": {\"pools\": [{\"name\": \"p\", \"gpu\": \"" H100 "\", \"gpus\": 8}]},"
        "   \"partitioned\": {\"pools\": [{\"name\": \"p\", \"class\": \"batch\", \"gpu\": \"" H100 "\","
        "     \"gpus\": 8}]}},"
        " \"training\": [{\"name\": \"ft\", \"submit\": {\"at\": [\"1h\", \"2h\"]}, \"gang\": 4,"
        "   \"work_gpu_hours\": 4}]}");
    assert_int_equal(s->n_services, 0);
    fs_results *r = test_run(s);
    for (size_t p = 0; p < r->n_policies; p++) {
        const fs_training_rep *t = &r->policies[p].reps[0].training[0];
        printf("  %s: submitted %llu completed %llu, done %.6f GPU-h, lost %.6f GPU-h, max wait %.3f s\n",
               r->policies[p].name, (unsigned long long)t->submitted, (unsigned long long)t->completed,
               t->gpu_hours_done, t->gpu_hours_lost, (double)t->wait.max_ns * 1e-9);
        assert_int_equal(t->submitted, 2);
        assert_int_equal(t->completed, 2);
        assert_close(t->gpu_hours_done, 8, 1e-9);
        assert_close(t->gpu_hours_lost, 0, 0);
        /* 8 GPUs hold both gangs: each is granted on submission, and its
         * warm-up is start-up, reported apart from the (zero) wait. */
        assert_close((double)t->wait.max_ns * 1e-9, 0, 1e-9);
        assert_int_equal(t->startups, 2);
        assert_close(t->startup_s, 2 * DEFAULT_TRAINING_WARMUP_S, 1e-6);
    }
    check_conservation(r);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

/* ---- 7. spot ---------------------------------------------------------------- */

/* A spot pool of 4 GPUs, each reclaimed at 2 per GPU-hour and replaced (60 s
 * provisioning) while work waits; preemptible experiments of gang 2 run only
 * there.  A reclaim loses at most one checkpoint interval of the gang (the
 * segment being computed or the checkpoint being written). */
static void test_spot(void **state)
{
    (void)state;
    fs_scenario *s = test_scenario(
        "{\"schema\": \"fleetsim/1\", \"horizon\": \"1d\", \"seed\": 11,"
        " \"policies\": {\"tiered\": {\"kind\": \"tiered\", \"pools\": ["
        "   {\"name\": \"serving\", \"class\": \"serving\", \"gpu\": \"" H100 "\", \"gpus\": 1},"
        "   {\"name\": \"spot\", \"class\": \"spot\", \"price\": \"spot\", \"gpu\": \"" H100 "\","
        "    \"gpus\": 4, \"reclaim_per_hour\": 2,"
        "    \"autoscale\": {\"min\": 0, \"max\": 4, \"provision\": {\"deterministic\": {\"value\": \"60s\"}}}}]}},"
        " \"services\": [{\"name\": \"chat\", \"pool\": \"serving\", " LIGHT ", \"replicas\": 1}],"
        " \"training\": [{\"name\": \"sweep\", \"submit\": {\"poisson_per_hour\": 1}, \"gang\": 2,"
        "   \"work_gpu_hours\": 2, \"preemptible\": true, \"priority\": \"experiment\","
        "   \"checkpoint\": {\"every\": \"10m\", \"write\": \"10s\"}}]}");
    size_t spot = pool_index(s, "spot");
    assert_int_equal(s->pools[spot].class, FS_CLASS_SPOT);
    assert_true(s->pools[spot].elastic);
    fs_results *r = test_run(s);
    const fs_rep_result *rep = &r->policies[0].reps[0];
    const fs_training_rep *t = &rep->training[0];
    const fs_pool_rep *sp = &rep->pools[spot];
    double per = t->preemptions ? t->gpu_hours_lost / (double)t->preemptions : 0;
    double bound = 2 * 600.0 / HOUR;
    printf("  spot reclaims %llu; submitted %llu started %llu completed %llu preemptions %llu;"
           " done %.4f GPU-h, lost %.4f GPU-h, %.4f per preemption (bound %.4f)\n",
           (unsigned long long)rep->spot_reclaims, (unsigned long long)t->submitted,
           (unsigned long long)t->started, (unsigned long long)t->completed,
           (unsigned long long)t->preemptions, t->gpu_hours_done, t->gpu_hours_lost, per, bound);
    printf("  spot pool: %.1f GPU-h provisioned, %.1f busy, %.2f switching\n", sp->gpu_s / HOUR,
           sp->busy_gpu_s / HOUR, sp->switching_gpu_s / HOUR);
    assert_true(rep->spot_reclaims > 0);
    assert_true(t->preemptions > 0);
    assert_true(t->gpu_hours_lost > 0);
    assert_true(per <= bound + 1e-12);
    assert_true(t->gpu_hours_done > 0);
    /* Only the spot pool computes for the stream: the serving pool holds chat. */
    assert_true(sp->busy_gpu_s > 0);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

/* Partitioned: spot capacity takes only preemptible training.  A
 * non-preemptible gang of 2 with 1 batch GPU could never start (it is never
 * put on spot, where it would be reclaimed): the run refuses it rather than
 * show it waiting; the same gang preemptible runs on spot. */
static void test_partitioned_spot_only_preemptible(void **state)
{
    (void)state;
    for (int preemptible = 0; preemptible <= 1; preemptible++) {
        fs_scenario *s = test_scenario(
            "{\"schema\": \"fleetsim/1\", \"horizon\": \"6h\", \"seed\": 21,"
            " \"policies\": {\"partitioned\": {\"pools\": ["
            "   {\"name\": \"serving\", \"class\": \"serving\", \"gpu\": \"" H100 "\", \"gpus\": 1},"
            "   {\"name\": \"batch\", \"class\": \"batch\", \"gpu\": \"" H100 "\", \"gpus\": 1},"
            "   {\"name\": \"spot\", \"class\": \"spot\", \"price\": \"spot\", \"gpu\": \"" H100 "\","
            "    \"gpus\": 4, \"reclaim_per_hour\": 0.5}]}},"
            " \"services\": [{\"name\": \"chat\", \"pool\": \"serving\", " LIGHT ", \"replicas\": 1}],"
            " \"training\": [{\"name\": \"job\", \"submit\": {\"at\": [\"60s\"]}, \"gang\": 2,"
            "   \"work_gpu_hours\": 2, \"preemptible\": %s}]}",
            preemptible ? "true" : "false");
        if (!preemptible) {
            /* Only the 1-GPU batch pool is its: the gang of 2 could never
             * start, so the run refuses it, naming the largest pool it may
             * use (not the 4-GPU spot pool). */
            fs_results *r = NULL;
            fs_error err = {0};
            assert_int_equal(fs_run_scenario(s, &r, &err), FS_ERR_INPUT);
            assert_null(r);
            printf("  preemptible 0: %s\n", err.msg);
            assert_non_null(strstr(err.msg, "the largest pool it lets this stream use (\"batch\") holds at most 1"));
            fs_scenario_destroy(s);
            continue;
        }
        fs_results *r = test_run(s);
        const fs_rep_result *rep = &r->policies[0].reps[0];
        const fs_training_rep *t = &rep->training[0];
        printf("  preemptible 1: started %llu, preemptions %llu, spot busy %.1f GPU-s\n",
               (unsigned long long)t->started, (unsigned long long)t->preemptions, rep->pools[2].busy_gpu_s);
        assert_int_equal(t->started, 1);
        assert_true(rep->pools[2].busy_gpu_s > 0);
        fs_results_destroy(r);
        fs_scenario_destroy(s);
    }
}

/* ---- 8. elastic pool ------------------------------------------------------ */

/* A batch pool that starts with 1 GPU and may grow to 8 (90 s to provision,
 * released after 5 idle minutes).  A production gang of 4 asked for at 100 s
 * waits for provisioning, then warms; once it is done the pool shrinks back
 * to its minimum of 1. */
static void test_elastic_pool(void **state)
{
    (void)state;
    fs_scenario *s = test_scenario(
        "{\"schema\": \"fleetsim/1\", \"horizon\": \"4h\", \"window\": \"1m\", \"seed\": 13,"
        " \"policies\": {\"tiered\": {\"kind\": \"tiered\", \"pools\": ["
        "   {\"name\": \"serving\", \"class\": \"serving\", \"gpu\": \"" H100 "\", \"gpus\": 1},"
        "   {\"name\": \"batch\", \"class\": \"batch\", \"gpu\": \"" H100 "\", \"gpus\": 1,"
        "    \"autoscale\": {\"min\": 1, \"max\": 8, \"provision\": {\"deterministic\": {\"value\": \"90s\"}},"
        "                   \"idle\": \"5m\"}}]}},"
        " \"services\": [{\"name\": \"chat\", \"pool\": \"serving\", " LIGHT ", \"replicas\": 1}],"
        " \"training\": [{\"name\": \"prod\", \"submit\": {\"at\": [\"100s\"]}, \"gang\": 4,"
        "   \"work_gpu_hours\": 4}]}");
    size_t batch = pool_index(s, "batch");
    fs_results *r = test_run(s);
    const fs_rep_result *rep = &r->policies[0].reps[0];
    const fs_training_rep *t = &rep->training[0];
    const fs_pool_rep *bp = &rep->pools[batch];
    double T = s->horizon_s, w = DEFAULT_TRAINING_WARMUP_S, wait = only_wait_s(t);
    double peak = 0, last = bp->n_windows ? bp->windows[bp->n_windows - 1].gpus : -1;
    for (size_t i = 0; i < bp->n_windows; i++)
        peak = bp->windows[i].gpus > peak ? bp->windows[i].gpus : peak;
    printf("  queue wait %.3f s (want in [90, %.2f]); completed %llu\n", wait, 90 + w + 30,
           (unsigned long long)t->completed);
    printf("  batch pool: %.1f GPU-s provisioned (%.3f GPU-h; 8 x horizon = %.0f GPU-s),"
           " busy %.1f, peak %.0f GPUs, %.0f at the end\n",
           bp->gpu_s, bp->gpu_s / HOUR, 8 * T, bp->busy_gpu_s, peak, last);
    assert_int_equal(t->started, 1);
    assert_int_equal(t->completed, 1);
    assert_true(wait >= 90);
    assert_true(wait <= 90 + w + 30);
    assert_close(bp->busy_gpu_s, 4 * HOUR, 1e-6);
    assert_close(peak, 4, 0); /* exactly what the gang needed: 1 free + 3 provisioned */
    assert_close(last, 1, 0); /* back to its minimum */
    /* Held: 1 GPU throughout, and 3 more from their arrival at 190 s until the
     * 30 s tick at which they had been idle for 5 minutes: the gang computes
     * 194.97 s .. 3794.97 s, the tick at 3810 s sees them idle, the one at
     * 4110 s gives them back.  14400 + 3 x (4110 - 190) = 26160 GPU-s. */
    assert_close(bp->gpu_s, 26160, 1e-6);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_morning_tail),
        cmocka_unit_test(test_gang_admission),
        cmocka_unit_test(test_preemption_accounting),
        cmocka_unit_test(test_preemption_save),
        cmocka_unit_test(test_scale_from_zero),
        cmocka_unit_test(test_warmup_durations),
        cmocka_unit_test(test_priority_lanes),
        cmocka_unit_test(test_backfill_past_waiting_gangs),
        cmocka_unit_test(test_conservation),
        cmocka_unit_test(test_training_only),
        cmocka_unit_test(test_spot),
        cmocka_unit_test(test_partitioned_spot_only_preemptible),
        cmocka_unit_test(test_elastic_pool),
    };
    return cmocka_run_group_tests(tests, NULL, teardown_group);
}

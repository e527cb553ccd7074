/*
 * test_job_mix — a training stream's job mix, failures, retries and
 * cancellations (issue 20, item 1), and the GPU-hours they account for.
 *
 * The exact tests use deterministic run times and failure times, a pool
 * with room for every gang and the built-in warm-up of a job with no state
 * (context 0.5 s + framework 4.47 s, reference/costs.md), so each instant
 * is worked out by hand above each test.  The conservation test draws a
 * random mix (empirical gangs, lognormal run times, exponential failure
 * and cancellation times) on a pool too small for it, with preemptible
 * jobs evicted by a serving scale-up, and checks every job and every
 * GPU-hour the streams held is accounted for exactly.  Every test prints
 * the figures it compares.
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
#define HOUR 3600.0
/* The built-in warm-up of a gang with no state: context + framework. */
#define WARM (0.5 + 4.47)

static void assert_close(double got, double want, double tol)
{
    if (!(fabs(got - want) <= tol))
        fail_msg("got %.15g, want %.15g (tolerance %g)", got, want, tol);
}

/* One stream "j" on 8 GPUs, measured from t = 0: `job` is the JSON members
 * after its name. */
static fs_scenario *one_stream(const char *horizon, const char *job)
{
    return test_scenario("{\"schema\": \"fleetsim/1\", \"horizon\": \"%s\", \"seed\": 7,"
                         " \"pools\": [{\"name\": \"p\", \"gpu\": \"" H100 "\", \"gpus\": 8}],"
                         " \"training\": [{\"name\": \"j\", %s}]}",
                         horizon, job);
}

/* held = startup + checkpoint + done + lost + failed + cancelled + open,
 * and every job ends one way or is still in the system. */
static void check_accounts(const fs_training_rep *t)
{
    const struct fs_training_hours *h = &t->hours;
    double sum = h->startup + h->checkpoint + t->gpu_hours_done + t->gpu_hours_lost + h->failed + h->cancelled +
                 h->open;
    printf("  held %.9f GPU-h = startup %.9f + checkpoint %.9f + done %.9f + lost %.9f + failed %.9f"
           " + cancelled %.9f + open %.9f (sum %.9f)\n",
           h->held, h->startup, h->checkpoint, t->gpu_hours_done, t->gpu_hours_lost, h->failed, h->cancelled,
           h->open, sum);
    assert_close(sum, h->held, 1e-9 * fmax(1, h->held));
    uint64_t ends = t->completed + t->failed_jobs + t->cancelled + t->running_end + t->waiting_end +
                    t->refused_impossible;
    printf("  jobs: in flight %llu + submitted %llu = completed %llu + failed %llu + cancelled %llu + running"
           " %llu + waiting %llu + refused %llu\n",
           (unsigned long long)t->in_flight_start, (unsigned long long)t->submitted,
           (unsigned long long)t->completed, (unsigned long long)t->failed_jobs, (unsigned long long)t->cancelled,
           (unsigned long long)t->running_end, (unsigned long long)t->waiting_end,
           (unsigned long long)t->refused_impossible);
    assert_int_equal(t->in_flight_start + t->submitted, ends);
}

/* A gang of 2 computes 2 h, checkpointing every 30 min (60 s a write), and
 * every attempt fails 45 min into its run; one retry, 10 min later.
 *   attempt 1: granted 0, warm until W, segment [W, W+1800], write until
 *     W+1860, fails at W+2700 with 840 s of compute since the checkpoint;
 *   retry asks at W+3300, granted then, warm W, resumes from the
 *     checkpoint (5400 s left): segment 1800, write 60, fails 2700 s after
 *     its compute began, 840 s since the checkpoint again; no retry left.
 * Done: 2 x 1800 s x 2 GPUs = 2 GPU-h; failed: 2 x 840 x 2 / 3600; two
 * writes of 60 s on 2 GPUs; two warm-ups of W on 2 GPUs. */
static void test_failures_and_retries(void **state)
{
    (void)state;
    fs_scenario *s = one_stream("1d", "\"submit\": {\"at\": [\"0s\"]}, \"gang\": 2,"
                                      " \"run_time\": {\"deterministic\": {\"value\": \"2h\"}},"
                                      " \"checkpoint\": {\"every\": \"30m\", \"write\": \"60s\"},"
                                      " \"failures\": {\"probability\": 1,"
                                      "   \"after\": {\"deterministic\": {\"value\": \"45m\"}},"
                                      "   \"retries\": 1, \"retry_delay\": \"10m\"}");
    fs_results *r = test_run(s);
    const fs_training_rep *t = &r->policies[0].reps[0].training[0];
    printf("  failures %llu, retries %llu, failed jobs %llu, completed %llu\n", (unsigned long long)t->failures,
           (unsigned long long)t->retries, (unsigned long long)t->failed_jobs, (unsigned long long)t->completed);
    assert_int_equal(t->failures, 2);
    assert_int_equal(t->retries, 1);
    assert_int_equal(t->failed_jobs, 1);
    assert_int_equal(t->completed, 0);
    assert_close(t->gpu_hours_done, 2, 1e-9);
    assert_close(t->hours.failed, 2 * 840.0 * 2 / HOUR, 1e-9);
    assert_close(t->hours.checkpoint, 2 * 60.0 * 2 / HOUR, 1e-9);
    assert_close(t->hours.startup, 2 * WARM * 2 / HOUR, 1e-9);
    assert_close(t->hours.open, 0, 0);
    /* Held from each grant to each failure: (W + 2700) twice, on 2 GPUs. */
    assert_close(t->hours.held, 2 * (WARM + 2700) * 2 / HOUR, 1e-9);
    check_accounts(t);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

/* Cancellations, 1 h after submission, running and waiting, on 16 GPUs:
 * "long" (8 GPUs from 0 s for 2 h, never cancelled) holds half the pool;
 * "c" (8 GPUs at 60 s) runs from 60 + W and is cancelled at 3660 s with
 * 3600 - W s of compute and no checkpoint; "w" (16 GPUs at 120 s) cannot
 * start while "long" runs and is cancelled waiting at 3720 s: it records no
 * wait, holds nothing and is not waiting at the end. */
static void test_cancellations(void **state)
{
    (void)state;
#define CANCEL_1H ", \"cancellations\": {\"probability\": 1, \"after\": {\"deterministic\": {\"value\": \"1h\"}}}"
#define JOB2H(name, at, gang, extra)                                                                   \
    "{\"name\": \"" name "\", \"submit\": {\"at\": [\"" at "\"]}, \"gang\": " gang ","                    \
    " \"run_time\": {\"deterministic\": {\"value\": \"2h\"}}" extra "}"
    fs_scenario *s = test_scenario("{\"schema\": \"fleetsim/1\", \"horizon\": \"1d\", \"seed\": 7,"
                                   " \"pools\": [{\"name\": \"p\", \"gpu\": \"" H100 "\", \"gpus\": 16}],"
                                   " \"training\": [" JOB2H("long", "0s", "8", "") ", " JOB2H("c", "60s", "8", CANCEL_1H)
                                   ", " JOB2H("w", "120s", "16", CANCEL_1H) "]}");
#undef JOB2H
#undef CANCEL_1H
    fs_results *r = test_run(s);
    const fs_training_rep *lng = &r->policies[0].reps[0].training[0];
    const fs_training_rep *c = &r->policies[0].reps[0].training[1];
    const fs_training_rep *w = &r->policies[0].reps[0].training[2];
    printf("  c: cancelled %llu, cancelled GPU-h %.9f (want %.9f); w: cancelled %llu, started %llu, waits %zu;"
           " long: completed %llu\n",
           (unsigned long long)c->cancelled, c->hours.cancelled, (HOUR - WARM) * 8 / HOUR,
           (unsigned long long)w->cancelled, (unsigned long long)w->started, w->n_waits,
           (unsigned long long)lng->completed);
    assert_int_equal(c->cancelled, 1);
    assert_int_equal(c->started, 1);
    assert_close(c->hours.cancelled, (HOUR - WARM) * 8 / HOUR, 1e-9);
    assert_close(c->hours.held, HOUR * 8 / HOUR, 1e-9); /* granted at 60 s, given back at 3660 s */
    assert_int_equal(w->cancelled, 1);
    assert_int_equal(w->started, 0);
    assert_int_equal(w->n_waits, 0);
    assert_int_equal(w->waiting_end, 0);
    assert_close(w->hours.held, 0, 0);
    assert_int_equal(lng->completed, 1);
    for (size_t k = 0; k < 3; k++)
        check_accounts(&r->policies[0].reps[0].training[k]);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

/* A random mix under pressure: empirical gangs of 1 to 8, lognormal run
 * times, failures (30%, exponential, two retries), cancellations (10%),
 * checkpoints, on a pool of 8 that a serving scale-up takes back from the
 * preemptible jobs in the afternoons.  Every job and every GPU-hour held
 * is accounted for, under each policy; the draws come from streams of their
 * own, so the same seed gives the same figures. */
static void test_conservation_of_a_mix(void **state)
{
    (void)state;
    static const char *const doc =
        "{\"schema\": \"fleetsim/1\", \"horizon\": \"3d\", \"seed\": 11,"
        " \"policies\": {\"shared\": {\"pools\": [{\"name\": \"s\", \"gpu\": \"" H100 "\", \"gpus\": 8}]},"
        "   \"partitioned\": {\"borrowing\": true, \"pools\": ["
        "     {\"name\": \"s\", \"class\": \"serving\", \"gpu\": \"" H100 "\", \"gpus\": 4},"
        "     {\"name\": \"b\", \"class\": \"batch\", \"gpu\": \"" H100 "\", \"gpus\": 4}]}},"
        " \"services\": [{\"name\": \"chat\", \"pool\": \"s\", \"arrivals\": {\"poisson_rps\": 20, \"diurnal\":"
        "   [0,0,0,0,0,0,0,0,0,0,0,0,1,1,1,1,1,1,0,0,0,0,0,0]},"
        "   \"service_time\": {\"exponential\": {\"mean\": \"100ms\"}},"
        "   \"replicas\": {\"count\": 1, \"min\": 1, \"max\": 4, \"autoscale\": {\"target_in_flight\": 0.5,"
        "   \"interval\": \"30s\", \"cooldown\": \"0s\", \"idle\": \"10m\"}}}],"
        " \"training\": [{\"name\": \"mix\", \"submit\": {\"poisson_per_hour\": 3},"
        "   \"gang\": {\"empirical\": {\"samples\": [1, 1, 1, 2, 4]}},"
        "   \"run_time\": {\"lognormal\": {\"median\": \"20m\", \"sigma\": 1.2}},"
        "   \"checkpoint\": {\"every\": \"15m\", \"write\": \"30s\"}, \"preemptible\": true,"
        "   \"failures\": {\"probability\": 0.3, \"after\": {\"exponential\": {\"mean\": \"30m\"}},"
        "     \"retries\": 2, \"retry_delay\": \"5m\"},"
        "   \"cancellations\": {\"probability\": 0.1, \"after\": {\"exponential\": {\"mean\": \"2h\"}}}}]}";
    fs_scenario *s = test_scenario("%s", doc);
    fs_results *r = test_run(s);
    double first_held = 0;
    for (size_t p = 0; p < r->n_policies; p++) {
        const fs_training_rep *t = &r->policies[p].reps[0].training[0];
        printf("  %s: submitted %llu, completed %llu, failures %llu, retries %llu, failed %llu, cancelled %llu,"
               " preemptions %llu\n",
               r->policies[p].name, (unsigned long long)t->submitted, (unsigned long long)t->completed,
               (unsigned long long)t->failures, (unsigned long long)t->retries, (unsigned long long)t->failed_jobs,
               (unsigned long long)t->cancelled, (unsigned long long)t->preemptions);
        /* Each way of ending happened, so each term of the sum was exercised. */
        assert_true(t->completed > 0 && t->failures > 0 && t->retries > 0 && t->cancelled > 0);
        assert_true(t->hours.failed > 0 && t->hours.cancelled > 0 && t->hours.checkpoint > 0);
        check_accounts(t);
        if (p == 0)
            first_held = t->hours.held;
    }
    /* Same seed, same draws: a second run gives the same GPU-hours. */
    fs_results *again = test_run(s);
    assert_true(again->policies[0].reps[0].training[0].hours.held == first_held);
    fs_results_destroy(again);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

/* A mix's largest gang is held to the pools like a fixed gang, and its
 * sizes must be whole; run_time and work_gpu_hours exclude each other;
 * run_time_by_gang excludes both, and every size the gang can take must
 * be in exactly one of its classes. */
static void test_mix_refusals(void **state)
{
    (void)state;
    static const struct {
        const char *job, *message;
    } bad[] = {
        {"\"submit\": {\"at\": [\"0s\"]}, \"gang\": {\"empirical\": {\"samples\": [1, 16]}}, \"work_gpu_hours\": 1",
         "training[0].gang: a gang of 16"},
        {"\"submit\": {\"at\": [\"0s\"]}, \"gang\": {\"empirical\": {\"samples\": [1, 2.5]}}, \"work_gpu_hours\": 1",
         "training[0].gang: gang sizes must be whole numbers"},
        {"\"submit\": {\"at\": [\"0s\"]}, \"gang\": {\"lognormal\": {\"median\": 2, \"sigma\": 1}},"
         " \"work_gpu_hours\": 1",
         "training[0].gang: expected \"empirical\" or \"deterministic\""},
        {"\"submit\": {\"at\": [\"0s\"]}, \"gang\": 1, \"work_gpu_hours\": 1,"
         " \"run_time\": {\"deterministic\": {\"value\": \"1h\"}}",
         "training[0]: expected \"work_gpu_hours\" or \"run_time\", not both"},
        {"\"submit\": {\"at\": [\"0s\"]}, \"gang\": 1, \"work_gpu_hours\": 1,"
         " \"failures\": {\"probability\": 1.5, \"after\": {\"deterministic\": {\"value\": \"1h\"}}}",
         "training[0].failures.probability"},
#define RT_1H "\"run_time\": {\"deterministic\": {\"value\": \"1h\"}}"
        {"\"submit\": {\"at\": [\"0s\"]}, \"gang\": {\"empirical\": {\"samples\": [1, 2, 8]}},"
         " \"run_time_by_gang\": [{\"gangs\": [1, 2], " RT_1H "}]",
         "training[0].run_time_by_gang: gang size 8 (the stream's \"gang\" can take it) is in no class"},
        {"\"submit\": {\"at\": [\"0s\"]}, \"gang\": 4, \"run_time_by_gang\": [{\"gangs\": [1], " RT_1H "}]",
         "training[0].run_time_by_gang: gang size 4 (the stream's \"gang\" can take it) is in no class"},
        {"\"submit\": {\"at\": [\"0s\"]}, \"gang\": {\"empirical\": {\"samples\": [1, 2]}},"
         " \"run_time_by_gang\": [{\"gangs\": [1, 2], " RT_1H "}, {\"gangs\": [2], " RT_1H "}]",
         "training[0].run_time_by_gang: gang size 2 is in two classes ([0] and [1])"},
        {"\"submit\": {\"at\": [\"0s\"]}, \"gang\": 1, " RT_1H ", \"run_time_by_gang\": [{\"gangs\": [1], " RT_1H "}]",
         "training[0].run_time_by_gang: expected \"run_time_by_gang\" or \"run_time\", not both"},
        {"\"submit\": {\"at\": [\"0s\"]}, \"gang\": 1, \"work_gpu_hours\": 1,"
         " \"run_time_by_gang\": [{\"gangs\": [1], " RT_1H "}]",
         "training[0].run_time_by_gang: expected \"run_time_by_gang\" or \"work_gpu_hours\", not both"},
        {"\"submit\": {\"at\": [\"0s\"]}, \"gang\": 2, \"run_time_by_gang\": [{\"gangs\": [2, 2], " RT_1H "}]",
         "training[0].run_time_by_gang[0].gangs[1]: gang size 2 is listed twice"},
#undef RT_1H
    };
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        char text[1024];
        snprintf(text, sizeof text,
                 "{\"schema\": \"fleetsim/1\", \"horizon\": \"1d\", \"pools\": [{\"name\": \"p\", \"gpu\": \"" H100
                 "\", \"gpus\": 8}], \"training\": [{\"name\": \"j\", %s}]}",
                 bad[k].job);
        fs_scenario *s = NULL;
        fs_error err = {0};
        int rc = fs_scenario_parse(text, "scen.json", &s, &err);
        printf("  %s\n", err.msg);
        assert_int_equal(rc, FS_ERR_INPUT);
        assert_non_null(strstr(err.msg, bad[k].message));
        fs_scenario_destroy(s);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_failures_and_retries),
        cmocka_unit_test(test_cancellations),
        cmocka_unit_test(test_conservation_of_a_mix),
        cmocka_unit_test(test_mix_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * test_gangs_across_pools — a training gang split over several pools
 * ("across_pools": true; fs_request.across_pools, models/fleet/README.md
 * "Gangs across pools"): it starts when the pools it may use have enough
 * free units together, only after no one pool has them; it waits (and the
 * queue's indexes let it start) until they do; each member warms at its own
 * pool's cost; giving it back frees its units in every pool; saving it to
 * host on eviction takes its slowest member's time; without the key a gang
 * larger than every pool is refused before the run, and with it one larger
 * than the pools together (a stream's gang, or a trace row's).
 *
 * Every run is a hand-worked timeline: submissions at listed instants, no
 * services, two batch pools "a" and "b" of 4 H100s each, the round
 * calibration of test_policies.c (a member with no state warms in 1 + 2 =
 * 3 s; H2D and D2H at 10 GB/s), under the three policy kinds (each lets production training that is
 * not preemptible use both batch pools; shared serves the queue head of
 * line, the others skip by the indexes).  Every test prints the figures it
 * compares.
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

#define HOUR 3600.0
#define WARM 3.0 /* 1 s context + 2 s framework, no state */
/* Scenario sizes are GiB (2^30 bytes), bandwidths GB/s (10^9 bytes/s). */
#define GB_PER_GIB 1.073741824

#define CALIBRATION                                                                            \
    "\"calibration\": {\"context_s\": 1, \"framework_s\": 2, \"storage_gbps\": 10,"            \
    " \"h2d_gbps\": 10, \"d2h_gbps\": 10, \"inference_warmup_s\": 3}"

/* Pools "a" (4 H100s) and "b" (4 GPUs of type B), both batch. */
#define POOLS_OF(b)                                                                            \
    "[{\"name\": \"a\", \"class\": \"batch\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 4},"        \
    " {\"name\": \"b\", \"class\": \"batch\", \"gpu\": \"" b "\", \"gpus\": 4}]"
#define POOLS POOLS_OF("H100-SXM-80GB")
#define THREE_POLICIES_OF(pools)                                                              \
    "\"policies\": {\"shared\": {\"kind\": \"shared\", \"pools\": " pools "},"                  \
    " \"partitioned\": {\"kind\": \"partitioned\", \"pools\": " pools "},"                      \
    " \"tiered\": {\"kind\": \"tiered\", \"pools\": " pools "}}"
#define THREE_POLICIES THREE_POLICIES_OF(POOLS)

/* A stream of one job submitted at `at` s: gang, GPU-hours of work, across. */
#define JOB(name, at, gang, hours, across)                                                      \
    "{\"name\": \"" name "\", \"submit\": {\"at\": [" #at "]}, \"gang\": " #gang ","             \
    " \"work_gpu_hours\": " #hours ", \"across_pools\": " across "}"

static const char *const kinds[] = {"shared", "partitioned", "tiered"};

static void near(double got, double want, double tol, const char *what)
{
    if (!(fabs(got - want) <= tol))
        fail_msg("%s: got %.12g, want %.12g (tolerance %g)", what, got, want, tol);
}

/* A run of the round calibration for `horizon`: `fleet` (the document's
 * "policies", and any "gpus") and the training streams `streams` (the
 * members of its array).  run_done destroys its results and scenario. */
typedef struct run {
    fs_scenario *s;
    fs_results *r;
} run;

static run run_streams(const char *fleet, const char *horizon, const char *streams)
{
    run x;
    x.s = test_scenario("{\"schema\": \"fleetsim/1\", \"horizon\": \"%s\", %s, \"training\": [%s], " CALIBRATION "}",
                        horizon, fleet, streams);
    x.r = test_run(x.s);
    return x;
}

static void run_done(run x)
{
    fs_results_destroy(x.r);
    fs_scenario_destroy(x.s);
}

/* Replication 0 of policy k (document order), checked to be `name`. */
static const fs_rep_result *rep_at(const fs_results *r, size_t k, const char *name)
{
    assert_string_equal(r->policies[k].name, name);
    return &r->policies[k].reps[0];
}

/* Training stream i (document order) of a replication, checked to be `name`. */
static const fs_training_rep *stream_at(const fs_results *r, const fs_rep_result *rep, size_t i, const char *name)
{
    assert_string_equal(r->scenario->training[i].name, name);
    return &rep->training[i];
}

/* The stream's only job's wait, exact. */
static double wait_of(const fs_training_rep *t)
{
    assert_int_equal(t->n_waits, 1);
    return t->waits[0].wait_s;
}

/* Pool k's busy and switching GPU-seconds as worked out by hand, and its
 * GPU-seconds conserved: provisioned = busy + switching + idle, with 4 GPUs
 * over the horizon provisioned. */
static void pool_is(const fs_rep_result *rep, size_t k, double horizon, double busy, double switching)
{
    const fs_pool_rep *p = &rep->pools[k];
    double sum = p->busy_gpu_s + p->switching_gpu_s + p->idle_gpu_s;
    printf("    pool %s: busy %.3f (want %.3f), switching %.3f (want %.3f), provisioned %.3f = %.3f\n",
           k == 0 ? "a" : "b", p->busy_gpu_s, busy, p->switching_gpu_s, switching, p->gpu_s, sum);
    near(p->busy_gpu_s, busy, 1e-6, "busy GPU-s");
    near(p->switching_gpu_s, switching, 1e-6, "switching GPU-s");
    near(p->gpu_s, 4 * horizon, 1e-6, "provisioned GPU-s");
    near(sum, p->gpu_s, 1e-6, "busy + switching + idle = provisioned");
}

/* ---- a. a gang larger than either pool starts at once, split ------------- */

/* One job of gang 6 (6 GPU-hours: 1 h on 6) at t = 0, across pools: no pool
 * holds 6, the two hold 8 together, so it starts at once (wait 0) with the
 * 4 units of "a" and 2 of "b" (pool order), warms 3 s and computes 1 h: "a"
 * is busy 4 x 3600 GPU-s and switching 4 x 3, "b" 2 x 3600 and 2 x 3; its
 * units are held 6 x 3603 s. */
static void test_split_starts_at_once(void **state)
{
    (void)state;
    run x = run_streams(THREE_POLICIES, "2h", JOB("big", 0, 6, 6, "true"));
    assert_true(x.s->training[0].across_pools);
    const fs_results *r = x.r;
    for (size_t k = 0; k < 3; k++) {
        const fs_rep_result *rep = rep_at(r, k, kinds[k]);
        const fs_training_rep *t = stream_at(r, rep, 0, "big");
        printf("  %-11s started %llu completed %llu wait %.3f s, start-up %.3f s, held %.6f GPU-h (want %.6f)\n",
               kinds[k], (unsigned long long)t->started, (unsigned long long)t->completed, wait_of(t), t->startup_s,
               t->hours.held, 6 * (WARM + HOUR) / HOUR);
        assert_int_equal(t->started, 1);
        assert_int_equal(t->completed, 1);
        near(wait_of(t), 0, 0, "wait");
        near(t->startup_s, WARM, 1e-9, "start-up");
        near(t->hours.held, 6 * (WARM + HOUR) / HOUR, 1e-9, "GPU-hours held");
        near(t->gpu_hours_done, 6, 1e-9, "work done");
        pool_is(rep, 0, 2 * HOUR, 4 * HOUR, 4 * WARM);
        pool_is(rep, 1, 2 * HOUR, 2 * HOUR, 2 * WARM);
    }
    run_done(x);
}

/* ---- b. each member warms at its own pool's cost -------------------------- */

/* As a, with "b" of A100s whose own calibration takes 12 s for the
 * framework: the 4 members in "a" warm 3 s, the 2 in "b" 1 + 12 = 13 s, so
 * the gang computes from 13 s (its start-up) and is held 6 x 3613 s. */
static void test_split_warms_per_pool(void **state)
{
    (void)state;
    run x = run_streams(THREE_POLICIES_OF(POOLS_OF("A100-SXM4-80GB")) ","
                        " \"gpus\": {\"A100-SXM4-80GB\": {\"calibration\": {\"framework_s\": 12}}}",
                        "2h", JOB("big", 0, 6, 6, "true"));
    const fs_results *r = x.r;
    for (size_t k = 0; k < 3; k++) {
        const fs_rep_result *rep = rep_at(r, k, kinds[k]);
        const fs_training_rep *t = stream_at(r, rep, 0, "big");
        printf("  %-11s wait %.3f s, start-up %.3f s (want 13), held %.6f GPU-h (want %.6f)\n", kinds[k], wait_of(t),
               t->startup_s, t->hours.held, 6 * (13 + HOUR) / HOUR);
        near(wait_of(t), 0, 0, "wait");
        near(t->startup_s, 13, 1e-9, "start-up: the slowest pool's warm-up");
        near(t->hours.held, 6 * (13 + HOUR) / HOUR, 1e-9, "GPU-hours held");
        pool_is(rep, 0, 2 * HOUR, 4 * HOUR, 4 * WARM);
        pool_is(rep, 1, 2 * HOUR, 2 * HOUR, 2 * 13);
    }
    run_done(x);
}

/* ---- c. a gang one pool can hold is not split ----------------------------- */

/* "solo", gang 4 across pools, alone: 4 free in "a", so all of it in "a"
 * ("b" never busy).  Then "x" (gang 2, not across) at 0 takes half of "a"
 * and "y" (gang 4, across) at 10 finds 2 free in "a" and 4 in "b": one pool
 * holds it, so it takes "b" alone (split in pool order it would have taken
 * "a"'s 2 first): "a" busy 2 x 3600, "b" 4 x 3600, y's wait 0. */
static void test_one_pool_first(void **state)
{
    (void)state;
    run x = run_streams(THREE_POLICIES, "2h", JOB("solo", 0, 4, 4, "true"));
    const fs_results *r = x.r;
    for (size_t k = 0; k < 3; k++) {
        const fs_rep_result *rep = rep_at(r, k, kinds[k]);
        printf("  %-11s solo (gang 4, 4 free in a): wait %.3f s\n", kinds[k], wait_of(stream_at(r, rep, 0, "solo")));
        near(wait_of(stream_at(r, rep, 0, "solo")), 0, 0, "wait");
        pool_is(rep, 0, 2 * HOUR, 4 * HOUR, 4 * WARM);
        pool_is(rep, 1, 2 * HOUR, 0, 0);
    }
    run_done(x);
    x = run_streams(THREE_POLICIES, "2h", JOB("x", 0, 2, 2, "false") ", " JOB("y", 10, 4, 4, "true"));
    r = x.r;
    for (size_t k = 0; k < 3; k++) {
        const fs_rep_result *rep = rep_at(r, k, kinds[k]);
        printf("  %-11s y (gang 4; 2 free in a, 4 in b): wait %.3f s\n", kinds[k], wait_of(stream_at(r, rep, 1, "y")));
        near(wait_of(stream_at(r, rep, 1, "y")), 0, 0, "wait");
        pool_is(rep, 0, 2 * HOUR, 2 * HOUR, 2 * WARM);
        pool_is(rep, 1, 2 * HOUR, 4 * HOUR, 4 * WARM);
    }
    run_done(x);
}

/* ---- d. a split gang waits for enough free units together ------------------ */

/* At 0: "ha" (gang 1, 2 h) takes a unit of "a", "short" (gang 3, 600 s)
 * the other 3 of "a", "hb" (gang 1, 2 h) one of "b".  "big" (gang 6,
 * across, 1 h) at 10 finds 3 free units in all: it waits.  short ends at
 * 3 + 600 = 603 and its 3 units come free one by one; with the third, "a"
 * and "b" have 3 free each, 6 together, and big starts with them (wait 593
 * s) though neither pool could ever hold it: the queue's indexes must count
 * the free units of every pool for it.  "a" is busy ha's 7200 + short's 3 x
 * 600 + big's 3 x 3600 GPU-s, "b" hb's 7200 + big's 3 x 3600. */
static void test_waits_for_enough_free(void **state)
{
    (void)state;
    run x = run_streams(THREE_POLICIES, "3h",
                        JOB("ha", 0, 1, 2, "false") ", " JOB("short", 0, 3, 0.5, "false") ", " JOB("hb", 0, 1, 2, "false")
                        ", " JOB("big", 10, 6, 6, "true"));
    const fs_results *r = x.r;
    for (size_t k = 0; k < 3; k++) {
        const fs_rep_result *rep = rep_at(r, k, kinds[k]);
        const fs_training_rep *big = stream_at(r, rep, 3, "big");
        printf("  %-11s big: wait %.3f s (want 593), completed %llu\n", kinds[k], wait_of(big),
               (unsigned long long)big->completed);
        near(wait_of(big), 603 - 10, 1e-9, "big's wait");
        assert_int_equal(big->completed, 1);
        near(wait_of(stream_at(r, rep, 1, "short")) + wait_of(stream_at(r, rep, 2, "hb")), 0, 0, "the others' waits");
        pool_is(rep, 0, 3 * HOUR, 2 * HOUR + 3 * 600 + 3 * HOUR, 4 * WARM + 3 * WARM);
        pool_is(rep, 1, 3 * HOUR, 2 * HOUR + 3 * HOUR, WARM + 3 * WARM);
    }
    run_done(x);
}

/* ---- e. giving a split gang back frees its units in both pools ------------- */

/* "big" (gang 6, across, 1 h) at 0 takes "a"'s 4 and 2 of "b".  "na" and
 * "nb" (gang 4 each, not across, 1 h) at 10 wait: "a" has none free, "b" 2.
 * big ends at 3603 and gives back all 6: "a" is free again and na starts
 * there, then "b" and nb starts there (waits 3593 s each): neither could if
 * the release missed the units in the other pool.  "a" is busy 4 x 3600 +
 * 4 x 3600 GPU-s, "b" 2 x 3600 + 4 x 3600. */
static void test_release_both_pools(void **state)
{
    (void)state;
    run x = run_streams(THREE_POLICIES, "3h",
                        JOB("big", 0, 6, 6, "true") ", " JOB("na", 10, 4, 4, "false") ", " JOB("nb", 10, 4, 4, "false"));
    const fs_results *r = x.r;
    for (size_t k = 0; k < 3; k++) {
        const fs_rep_result *rep = rep_at(r, k, kinds[k]);
        const fs_training_rep *big = stream_at(r, rep, 0, "big"), *na = stream_at(r, rep, 1, "na"),
                              *nb = stream_at(r, rep, 2, "nb");
        printf("  %-11s big held %.6f GPU-h (want %.6f); na wait %.3f s, nb wait %.3f s (want 3593 each)\n", kinds[k],
               big->hours.held, 6 * (WARM + HOUR) / HOUR, wait_of(na), wait_of(nb));
        near(big->hours.held, 6 * (WARM + HOUR) / HOUR, 1e-9, "big's GPU-hours held");
        near(wait_of(na), WARM + HOUR - 10, 1e-9, "na's wait");
        near(wait_of(nb), WARM + HOUR - 10, 1e-9, "nb's wait");
        assert_int_equal(na->completed + nb->completed, 2);
        pool_is(rep, 0, 3 * HOUR, 8 * HOUR, 8 * WARM);
        pool_is(rep, 1, 3 * HOUR, 6 * HOUR, 6 * WARM);
    }
    run_done(x);
}

/* ---- f. a split gang saved to host takes its slowest member's time -------- */

/* Tiered, two spot pools: "a" of H100s (D2H 10 GB/s) and "b" of A100s whose
 * own calibration saves at 1 GB/s.  "exp" (an experiment, preemptible, gang
 * 6 across pools, 10 GiB of state a unit, saved to host on eviction) starts
 * at 0 on "a"'s 4 and 2 of "b".  "prod" (production, preemptible so spot
 * may take it, gang 4) at 100 finds no pool with 4 free and evicts exp in
 * "a": every member saves its state at once, so the gang's units are free
 * after the slowest member's save, 10 GiB at 1 GB/s = 10.737 s (the save
 * in "a" alone would take 1.074 s): prod waits exactly that. */
static void test_save_takes_slowest(void **state)
{
    (void)state;
    run x = run_streams(
        "\"policies\": {\"tiered\": {\"pools\": "
        "[{\"name\": \"a\", \"class\": \"spot\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 4},"
        " {\"name\": \"b\", \"class\": \"spot\", \"gpu\": \"A100-SXM4-80GB\", \"gpus\": 4}]}},"
        " \"gpus\": {\"A100-SXM4-80GB\": {\"calibration\": {\"d2h_gbps\": 1}}}",
        "2h",
        "{\"name\": \"exp\", \"submit\": {\"at\": [0]}, \"gang\": 6, \"work_gpu_hours\": 60, \"across_pools\": true,"
        " \"preemptible\": true, \"priority\": \"experiment\", \"on_eviction\": \"save\", \"state_gb_per_gpu\": 10},"
        " {\"name\": \"prod\", \"submit\": {\"at\": [100]}, \"gang\": 4, \"work_gpu_hours\": 4, \"preemptible\": true}");
    const fs_results *r = x.r;
    const fs_rep_result *rep = rep_at(r, 0, "tiered");
    const fs_training_rep *exp = stream_at(r, rep, 0, "exp"), *prod = stream_at(r, rep, 1, "prod");
    double want = 10 * GB_PER_GIB / 1.0;
    printf("  exp preempted %llu; prod wait %.6f s (want %.6f, the A100s' save; the H100s' alone %.6f)\n",
           (unsigned long long)exp->preemptions, wait_of(prod), want, 10 * GB_PER_GIB / 10.0);
    assert_int_equal(exp->preemptions, 1);
    near(exp->gpu_hours_lost, 0, 0, "work lost (saved)");
    near(wait_of(prod), want, 1e-9, "prod's wait: the slowest member's save");
    run_done(x);
}

/* ---- g. refusals: without the key, and beyond every pool together ---------- */

/* The scenario of a, run by the command line: without "across_pools" a
 * gang of 6 on pools of 4 is refused at load (exit 2) naming the gang; with
 * it, a gang of 9 on 8 units in all; and a gang of 10 the pools hold (16
 * units, 8 of them serving) but partitioned lets it use only the 8 batch
 * units, refused before the run naming the policy.  A bad type is the usual
 * JSON-path error. */
static void test_refusals(void **state)
{
    (void)state;
    char dir[256];
    assert_int_equal(test_tmpdir(dir, sizeof dir, "fs-across"), 0);
    struct {
        const char *json, *want;
    } cases[] = {
        {"{\"schema\": \"fleetsim/1\", \"horizon\": \"2h\", " THREE_POLICIES ", \"training\": ["
         JOB("big", 0, 6, 6, "false") "]}",
         "training[0].gang: a gang of 6 units can never start: the largest pool of policy \"shared\" (\"a\") holds at "
         "most 4"},
        {"{\"schema\": \"fleetsim/1\", \"horizon\": \"2h\", " THREE_POLICIES ", \"training\": ["
         JOB("big", 0, 9, 9, "true") "]}",
         "training[0].gang: a gang of 9 units can never start: the pools of policy \"shared\" hold at most 8 units "
         "together"},
        {"{\"schema\": \"fleetsim/1\", \"horizon\": \"2h\", \"policies\": {\"partitioned\": {\"pools\": "
         "[{\"name\": \"s\", \"class\": \"serving\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 8}, "
         "{\"name\": \"a\", \"class\": \"batch\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 4}, "
         "{\"name\": \"b\", \"class\": \"batch\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 4}]}}, \"training\": ["
         JOB("big", 0, 10, 10, "true") "]}",
         "training[0].gang: a gang of 10 units can never start under policy \"partitioned\": the pools it lets this "
         "stream use hold 8 units together"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const char *path = test_path("%s/case%zu.json", dir, k);
        test_write(path, cases[k].json);
        int rc = test_fleetsim(dir, "run %s", path);
        char *err = test_slurp("%s/err.txt", dir);
        printf("  case %zu: exit %d: %s", k, rc, err ? err : "(no stderr)\n");
        free(err);
        assert_int_equal(rc, 2);
        test_stderr_has(dir, cases[k].want);
    }
    test_rmdir(dir);
    test_parse_refused("{\"schema\": \"fleetsim/1\", \"horizon\": \"2h\", \"pools\": " POOLS ", \"training\": ["
                       JOB("big", 0, 4, 4, "\"yes\"") "]}",
                       "test", FS_ERR_INPUT, "test: training[0].across_pools: expected true or false, got \"yes\"");
}

/* ---- h. trace rows ------------------------------------------------------------ */

/* A traced stream across pools: a row of 7 GPUs (no pool holds 7, both
 * hold 8) runs, split; a row of 9 can never start: bad input at its line,
 * or with --lenient a job refused. */
static void test_trace_rows(void **state)
{
    (void)state;
    char dir[256];
    assert_int_equal(test_tmpdir(dir, sizeof dir, "fs-across"), 0);
    test_write(test_path("%s/rows.csv", dir), "submit,gpus,secs\n0,7,60\n10,9,60\n");
    char json[1024];
    snprintf(json, sizeof json,
             "{\"schema\": \"fleetsim/1\", \"horizon\": \"1h\", \"policies\": {\"partitioned\": {\"pools\": " POOLS
             "}}, \"training\": [{\"name\": \"jobs\", \"across_pools\": true, \"submit\": {\"trace\": {\"file\": \"%s\","
             " \"time\": \"submit\", \"gpus\": \"gpus\", \"duration\": \"secs\"}}}]}",
             test_path("%s/rows.csv", dir));
    test_write(test_path("%s/rows.json", dir), json);
    assert_int_equal(test_fleetsim(dir, "run %s/rows.json", dir), 2);
    test_stderr_has(dir, "rows.csv:3: a job asking for 9 GPUs can never start: the pools policy \"partitioned\" lets "
                         "this stream use hold 8 units together");
    json_t *res = test_fleetsim_json(dir, "run %s/rows.json --lenient --format json", dir);
    const json_t *policy = json_array_get(test_json_at(res, "policies"), 0);
    const json_t *stream = json_array_get(test_json_at(policy, "training"), 0);
    double refused = test_json_num(stream, "refused_impossible"), completed = test_json_num(stream, "completed");
    json_decref(res);
    printf("  rows of 7 and 9 GPUs on 4 + 4: exit 2; with --lenient refused %g (want 1), completed %g (want 1)\n",
           refused, completed);
    assert_true(refused == 1 && completed == 1);
    test_rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_split_starts_at_once),
        cmocka_unit_test(test_split_warms_per_pool),
        cmocka_unit_test(test_one_pool_first),
        cmocka_unit_test(test_waits_for_enough_free),
        cmocka_unit_test(test_release_both_pools),
        cmocka_unit_test(test_save_takes_slowest),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_trace_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * test_quotas — per-team quotas in one cohort (models/fleet/quota.h):
 * admission within quota, borrowing, reclaim of borrowed units, the
 * borrowing and lending limits, reservations against starvation, unit
 * conservation, and the refusals of bad input.
 *
 * Every run is a hand-worked timeline: submissions at listed instants, no
 * services, whole H100s of one batch pool, and the round calibration of
 * test_policies.c, so a member with no state warms in 1 + 2 = 3 s.  The
 * same timeline runs under the three policies where they must agree (a
 * quota is the fleet's, not a policy's).  Every test prints the figures it
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

#define CALIBRATION                                                                            \
    "\"calibration\": {\"context_s\": 1, \"framework_s\": 2, \"storage_gbps\": 10,"            \
    " \"inference_warmup_s\": 3}"

/* One batch pool of n H100s under each policy kind. */
#define POOL(n) "[{\"name\": \"batch\", \"class\": \"batch\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": " #n "}]"
#define THREE_POLICIES(n)                                                                     \
    "\"policies\": {\"shared\": {\"kind\": \"shared\", \"pools\": " POOL(n) "},"                \
    " \"partitioned\": {\"kind\": \"partitioned\", \"pools\": " POOL(n) "},"                    \
    " \"tiered\": {\"kind\": \"tiered\", \"pools\": " POOL(n) "}}"

static const char *const kinds[] = {"shared", "partitioned", "tiered"};

static void near(double got, double want, double tol, const char *what)
{
    if (!(fabs(got - want) <= tol))
        fail_msg("%s: got %.12g, want %.12g (tolerance %g)", what, got, want, tol);
}

/* Replication 0 of policy `policy`. */
static const fs_rep_result *rep_of(const fs_results *r, const char *policy)
{
    for (size_t p = 0; p < r->n_policies; p++)
        if (strcmp(r->policies[p].name, policy) == 0)
            return &r->policies[p].reps[0];
    fail_msg("no policy %s", policy);
    return NULL;
}

/* Stream `name`'s figures in a replication. */
static const fs_training_rep *stream_of(const fs_results *r, const fs_rep_result *rep, const char *name)
{
    for (size_t i = 0; i < r->scenario->n_training; i++)
        if (strcmp(r->scenario->training[i].name, name) == 0)
            return &rep->training[i];
    fail_msg("no stream %s", name);
    return NULL;
}

/* The k-th admitted job's wait (start order), exact. */
static double wait_s(const fs_training_rep *t, size_t k)
{
    assert_true(k < t->n_waits);
    return t->waits[k].wait_s;
}

/* ---- a. within quota: everyone starts at once ------------------------------ */

/* Teams A and B, 4 units each, on 8 GPUs.  At t = 0 B submits a gang of 4
 * and A two gangs of 2 (all 1 h of compute): each team is within its quota,
 * so all three start at once (wait 0) under every policy; they hold their
 * units 3 s warming + 3600 s, none above its quota. */
static void test_within_quota(void **state)
{
    (void)state;
    fs_scenario *s = test_scenario(
        "{\"schema\": \"fleetsim/1\", \"horizon\": \"2h\", " THREE_POLICIES(8) ","
        " \"quotas\": {\"A\": {\"gpus\": 4}, \"B\": {\"gpus\": 4}},"
        " \"training\": [{\"name\": \"b\", \"tenant\": \"B\", \"submit\": {\"at\": [0]}, \"gang\": 4, \"work_gpu_hours\": 4},"
        "  {\"name\": \"a\", \"tenant\": \"A\", \"submit\": {\"at\": [0, 0]}, \"gang\": 2, \"work_gpu_hours\": 2}],"
        " " CALIBRATION "}");
    assert_int_equal(s->n_quotas, 2);
    assert_int_equal(s->training[0].quota, 2);
    assert_int_equal(s->training[1].quota, 1);
    fs_results *r = test_run(s);
    double want_h = 4 * (WARM + HOUR) / HOUR;
    for (size_t k = 0; k < 3; k++) {
        const fs_rep_result *rep = rep_of(r, kinds[k]);
        const fs_training_rep *a = stream_of(r, rep, "a"), *b = stream_of(r, rep, "b");
        printf("  %-11s b started %llu wait %.3f s; a started %llu waits %.3f %.3f s; A %.6f GPU-h (borrowed %.6f),"
               " B %.6f (borrowed %.6f), want %.6f and 0\n",
               kinds[k], (unsigned long long)b->started, wait_s(b, 0), (unsigned long long)a->started, wait_s(a, 0),
               wait_s(a, 1), rep->quotas[0].gpu_hours, rep->quotas[0].borrowed_gpu_hours, rep->quotas[1].gpu_hours,
               rep->quotas[1].borrowed_gpu_hours, want_h);
        assert_int_equal(b->started, 1);
        assert_int_equal(a->started, 2);
        near(wait_s(b, 0) + wait_s(a, 0) + wait_s(a, 1), 0, 0, "waits");
        for (size_t team = 0; team < 2; team++) {
            near(rep->quotas[team].gpu_hours, want_h, 1e-9, "GPU-hours held");
            near(rep->quotas[team].borrowed_gpu_hours, 0, 0, "borrowed");
            assert_int_equal(rep->quotas[team].reclaimed_jobs, 0);
        }
    }
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

/* ---- b. borrowing and reclaim ---------------------------------------------- */

/* Teams A and B, 4 units each (borrowing unlimited), on 8 GPUs; B idle at
 * first.  At t = 0 A starts "long" (gang 4, 2 h of compute) and then
 * "short" (gang 4, 1 h): short borrows B's 4 unused units.  B asks for 4 at
 * t = 1000.
 *   not preemptible: no one may be evicted; B waits for A's borrowing job to
 *     end: short ends at 3 + 3600 = 3603, B starts then (wait 2603 s); A
 *     borrowed 4 units from 0 to 3603.
 *   preemptible (checkpoint every 600 s, written in 0 s): B is within its
 *     quota and the units are held by A above its own, so the newest job A
 *     admitted (short) is reclaimed at 1000: it loses its progress since
 *     its checkpoint at 3 + 600 = 603, 397 s x 4 units, gives its units back
 *     in 0 s and queues again; B starts at 1000 (wait 0).  Short, A at its
 *     quota and B lending nothing, waits for B (1000 + 3603 = 4603), then
 *     computes its last 3000 s: 4606 to 7606.  A borrowed 4 units from 0 to
 *     1000 and from 4603 to long's end at 7203: 1000 + 2600 s x 4 = 4 GPU-h.
 * Both hold under every policy (reclaim is the fleet's: even under shared,
 * whose policy never evicts). */
static fs_results *borrow_run(bool preemptible, fs_scenario **s)
{
    *s = test_scenario(
        "{\"schema\": \"fleetsim/1\", \"horizon\": \"3h\", " THREE_POLICIES(8) ","
        " \"quotas\": {\"A\": {\"gpus\": 4}, \"B\": {\"gpus\": 4}},"
        " \"training\": [{\"name\": \"long\", \"tenant\": \"A\", \"submit\": {\"at\": [0]}, \"gang\": 4,"
        "   \"work_gpu_hours\": 8, \"preemptible\": %s, \"checkpoint\": {\"every\": \"600s\", \"write\": \"0s\"}},"
        "  {\"name\": \"short\", \"tenant\": \"A\", \"submit\": {\"at\": [0]}, \"gang\": 4,"
        "   \"work_gpu_hours\": 4, \"preemptible\": %s, \"checkpoint\": {\"every\": \"600s\", \"write\": \"0s\"}},"
        "  {\"name\": \"b\", \"tenant\": \"B\", \"submit\": {\"at\": [1000]}, \"gang\": 4, \"work_gpu_hours\": 4}],"
        " " CALIBRATION "}",
        preemptible ? "true" : "false", preemptible ? "true" : "false");
    return test_run(*s);
}

static void test_borrow_without_preemption(void **state)
{
    (void)state;
    fs_scenario *s;
    fs_results *r = borrow_run(false, &s);
    for (size_t k = 0; k < 3; k++) {
        const fs_rep_result *rep = rep_of(r, kinds[k]);
        const fs_training_rep *b = stream_of(r, rep, "b"), *sh = stream_of(r, rep, "short");
        printf("  %-11s b wait %.6f s (want 2603); short wait %.3f, preemptions %llu; A borrowed %.9f GPU-h"
               " (want %.9f), reclaimed %llu\n",
               kinds[k], wait_s(b, 0), wait_s(sh, 0), (unsigned long long)sh->preemptions,
               rep->quotas[0].borrowed_gpu_hours, 4 * 3603 / HOUR, (unsigned long long)rep->quotas[0].reclaimed_jobs);
        near(wait_s(b, 0), 3603 - 1000, 1e-9, "b's wait");
        near(wait_s(sh, 0), 0, 0, "short's wait");
        assert_int_equal(sh->preemptions, 0);
        assert_int_equal(rep->quotas[0].reclaimed_jobs, 0);
        near(rep->quotas[0].borrowed_gpu_hours, 4 * 3603 / HOUR, 1e-9, "A borrowed");
    }
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

/* Pool GPU-seconds: provisioned = busy + switching + idle (test_policies.c's
 * check_conservation); and, with training alone on whole GPUs and evictions
 * taking 0 s, the unit-hours the teams held are the pool's busy and
 * switching (warming) hours exactly. */
static void check_units_conserved(const fs_results *r, const char *policy)
{
    const fs_rep_result *rep = rep_of(r, policy);
    const fs_pool_rep *pool = &rep->pools[0];
    double held = 0;
    for (size_t k = 0; k <= r->scenario->n_quotas; k++)
        held += rep->quotas ? rep->quotas[k].gpu_hours : 0;
    double sum = pool->busy_gpu_s + pool->switching_gpu_s + pool->idle_gpu_s;
    printf("  %-11s gpu_s %.6f = busy %.6f + switching %.6f + idle %.6f (diff %.3g)", policy, pool->gpu_s,
           pool->busy_gpu_s, pool->switching_gpu_s, pool->idle_gpu_s, pool->gpu_s - sum);
    if (rep->quotas)
        printf("; teams held %.9f GPU-h, busy + switching %.9f", held, (pool->busy_gpu_s + pool->switching_gpu_s) / HOUR);
    printf("\n");
    near(sum, pool->gpu_s, 1e-6 * pool->gpu_s, "provisioned = busy + switching + idle");
    assert_true(pool->idle_gpu_s >= 0 && pool->switching_gpu_s >= 0);
    if (rep->quotas)
        near(held, (pool->busy_gpu_s + pool->switching_gpu_s) / HOUR, 1e-9, "held = busy + switching");
}

static void test_reclaim(void **state)
{
    (void)state;
    fs_scenario *s;
    fs_results *r = borrow_run(true, &s);
    double want_lost = 397.0 * 4 / HOUR;
    for (size_t k = 0; k < 3; k++) {
        const fs_rep_result *rep = rep_of(r, kinds[k]);
        const fs_training_rep *b = stream_of(r, rep, "b"), *sh = stream_of(r, rep, "short");
        const fs_training_rep *lg = stream_of(r, rep, "long");
        printf("  %-11s b wait %.6f s (want 0); short preemptions %llu, lost %.9f GPU-h (want %.9f), done %.9f,"
               " completed %llu; long preemptions %llu; A reclaimed %llu, borrowed %.9f GPU-h (want 4), B %.9f\n",
               kinds[k], wait_s(b, 0), (unsigned long long)sh->preemptions, sh->gpu_hours_lost, want_lost,
               sh->gpu_hours_done, (unsigned long long)sh->completed, (unsigned long long)lg->preemptions,
               (unsigned long long)rep->quotas[0].reclaimed_jobs, rep->quotas[0].borrowed_gpu_hours,
               rep->quotas[1].borrowed_gpu_hours);
        near(wait_s(b, 0), 0, 1e-9, "b's wait");
        assert_int_equal(sh->preemptions, 1);
        assert_int_equal(lg->preemptions, 0); /* the newest borrower goes, not the oldest */
        near(sh->gpu_hours_lost, want_lost, 1e-9, "short's lost work");
        assert_int_equal(sh->completed, 1); /* 4606 + 3000 = 7606 < 3 h */
        near(sh->gpu_hours_done, 4, 1e-9, "short's work done");
        assert_int_equal(rep->quotas[0].reclaimed_jobs, 1);
        assert_int_equal(rep->quotas[1].reclaimed_jobs, 0);
        near(rep->quotas[0].borrowed_gpu_hours, 4, 1e-9, "A borrowed");
        near(rep->quotas[1].borrowed_gpu_hours, 0, 0, "B borrowed");
        check_units_conserved(r, kinds[k]);
    }
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

/* ---- c. the borrowing and lending limits ----------------------------------- */

/* 8 GPUs, B idle.  A starts "big" (gang 4, 1 h) at 0, asks for "big" again
 * at 10 and for "small" (gang 2, 1 h) at 20; 4 units stay free throughout.
 *   borrow limit (A may borrow 2; A may hold 4 + 2): the second big needs
 *     8 > 6, so it waits for the first to end at 3603 (wait 3593); small
 *     needs 6 <= 6: it starts at 20 (wait 0) under partitioned and tiered,
 *     which let it pass the blocked gang, and at 3603 beside the second big
 *     (wait 3583) under shared, whose head of line blocks it.  Either way A
 *     holds 2 units above its quota for 3603 s.
 *   lend limit (B lends 1; A may hold 4 + 1): the second big needs 8 > 5 and
 *     waits as before (3593); small needs 6 > 5, and 4 + 2 > 5 still beside
 *     the second big, so it waits for that to end at 3603 + 3603 = 7206
 *     (wait 7186) under every policy; A never holds more than its 4. */
static fs_results *limit_run(const char *quotas, fs_scenario **s)
{
    *s = test_scenario(
        "{\"schema\": \"fleetsim/1\", \"horizon\": \"3h\", " THREE_POLICIES(8) ", \"quotas\": %s,"
        " \"training\": [{\"name\": \"big\", \"tenant\": \"A\", \"submit\": {\"at\": [0, 10]}, \"gang\": 4,"
        "   \"work_gpu_hours\": 4},"
        "  {\"name\": \"small\", \"tenant\": \"A\", \"submit\": {\"at\": [20]}, \"gang\": 2, \"work_gpu_hours\": 2}],"
        " " CALIBRATION "}",
        quotas);
    return test_run(*s);
}

static void test_borrow_and_lend_limits(void **state)
{
    (void)state;
    fs_scenario *sb, *sl;
    fs_results *rb = limit_run("{\"A\": {\"gpus\": 4, \"borrow\": 2}, \"B\": {\"gpus\": 4}}", &sb);
    fs_results *rl = limit_run("{\"A\": {\"gpus\": 4}, \"B\": {\"gpus\": 4, \"lend\": 1}}", &sl);
    for (size_t k = 0; k < 3; k++) {
        bool hol = strcmp(kinds[k], "shared") == 0;
        const fs_rep_result *repb = rep_of(rb, kinds[k]), *repl = rep_of(rl, kinds[k]);
        const fs_training_rep *bigb = stream_of(rb, repb, "big"), *smallb = stream_of(rb, repb, "small");
        const fs_training_rep *bigl = stream_of(rl, repl, "big"), *smalll = stream_of(rl, repl, "small");
        double want_small_b = hol ? 3603 - 20 : 0;
        printf("  %-11s borrow 2: second big wait %.6f s (want 3593), small %.6f (want %.0f);"
               " lend 1: second big %.6f (want 3593), small %.6f (want 7186)\n",
               kinds[k], wait_s(bigb, 1), wait_s(smallb, 0), want_small_b, wait_s(bigl, 1), wait_s(smalll, 0));
        near(wait_s(bigb, 0), 0, 0, "first big");
        near(wait_s(bigb, 1), 3603 - 10, 1e-9, "second big, borrow limit");
        near(wait_s(smallb, 0), want_small_b, 1e-9, "small, borrow limit");
        near(wait_s(bigl, 1), 3603 - 10, 1e-9, "second big, lend limit");
        near(wait_s(smalll, 0), 7206 - 20, 1e-9, "small, lend limit");
        printf("  %-11s borrow 2: A borrowed %.9f GPU-h (want %.9f); lend 1: %.9f (want %.9f)\n", kinds[k],
               repb->quotas[0].borrowed_gpu_hours, 2 * 3603 / HOUR, repl->quotas[0].borrowed_gpu_hours, 0.0);
        near(repb->quotas[0].borrowed_gpu_hours, 2 * 3603 / HOUR, 1e-9, "A borrowed, borrow limit");
        near(repl->quotas[0].borrowed_gpu_hours, 0, 0, "A borrowed, lend limit"); /* never above 4 */
    }
    fs_results_destroy(rb);
    fs_results_destroy(rl);
    fs_scenario_destroy(sb);
    fs_scenario_destroy(sl);
}

/* ---- d. starvation: a reservation bounds the wait of a large gang ---------- */

/* Partitioned, 4 GPUs.  "small" submits a 1-GPU job every 250 s from t = 0
 * (1000 s of compute, 1003 s held), a little more than the pool serves, so
 * whenever a unit frees a small job waits for it; "gang" asks for all 4 at
 * t = 100.  The pool never has 4 units free at once: without a reservation
 * the gang waits to the horizon (4 h).  With "reserve_after": 1800 s it
 * reserves at 1900, when small jobs started at 1003, 1253, 1503 and 1753
 * run; no other job starts, and it starts when the last ends, 1753 + 1003 =
 * 2756: wait 2656 s <= 1800 + 1003, the bound. */
static fs_results *starvation_run(double reserve_after, fs_scenario **s)
{
    char at[2048] = "", extra[64] = "";
    size_t len = 0;
    for (int t = 0; t < 4 * 3600; t += 250)
        len += (size_t)snprintf(at + len, sizeof at - len, "%s%d", t ? ", " : "", t);
    if (reserve_after > 0)
        snprintf(extra, sizeof extra, "\"reserve_after\": %g,", reserve_after);
    *s = test_scenario(
        "{\"schema\": \"fleetsim/1\", \"horizon\": \"4h\", %s"
        " \"policies\": {\"partitioned\": {\"kind\": \"partitioned\", \"pools\": " POOL(4) "}},"
        " \"training\": [{\"name\": \"small\", \"submit\": {\"at\": [%s]}, \"gang\": 1, \"work_gpu_hours\": %.17g},"
        "  {\"name\": \"gang\", \"submit\": {\"at\": [100]}, \"gang\": 4, \"work_gpu_hours\": 4}],"
        " " CALIBRATION "}",
        extra, at, 1000 / HOUR);
    return test_run(*s);
}

static void test_starvation_bound(void **state)
{
    (void)state;
    fs_scenario *s0, *s1;
    fs_results *r0 = starvation_run(0, &s0), *r1 = starvation_run(1800, &s1);
    const fs_training_rep *g0 = stream_of(r0, rep_of(r0, "partitioned"), "gang");
    const fs_training_rep *g1 = stream_of(r1, rep_of(r1, "partitioned"), "gang");
    const fs_training_rep *small1 = stream_of(r1, rep_of(r1, "partitioned"), "small");
    double censored = (double)g0->wait.max_ns * 1e-9, bound = 1800 + 1000 + WARM;
    printf("  without reserve_after: gang started %llu, waiting at the horizon %llu, wait so far %.3f s (want %.0f)\n",
           (unsigned long long)g0->started, (unsigned long long)g0->waiting_end, censored, 4 * HOUR - 100);
    printf("  reserve_after 1800 s: gang wait %.6f s (want 2656, bound D + longest 1-GPU run %.0f); small started"
           " %llu\n",
           g1->n_waits ? wait_s(g1, 0) : -1, bound, (unsigned long long)small1->started);
    assert_int_equal(g0->started, 0);
    assert_int_equal(g0->waiting_end, 1);
    near(censored, 4 * HOUR - 100, 1e-6, "censored wait");
    assert_int_equal(g1->started, 1);
    near(wait_s(g1, 0), 2656, 1e-9, "gang's wait");
    assert_true(wait_s(g1, 0) <= bound);
    check_units_conserved(r1, "partitioned");
    fs_results_destroy(r0);
    fs_results_destroy(r1);
    fs_scenario_destroy(s0);
    fs_scenario_destroy(s1);
}

/* ---- trace rows: their own teams, and "unlisted" ---------------------------- */

/* Partitioned, 8 GPUs, A and B 4 each; a job trace (preemptible, no
 * checkpoints) with rows A at 0, X at 10 and B at 20, gang 4, 1 h each.  X
 * has no quota: it is "unlisted" (nothing of its own) and borrows B's 4
 * unused units at 10.  B's row at 20 is within B's quota and finds no free
 * unit: X is reclaimed (its 7 s of progress lost) and B starts at once.  X
 * then waits for a lender: A's job ends at 3603 and X starts from scratch,
 * running to 7206; it held 4 units 10 to 20 and 3603 to 7206, all above its
 * quota of 0. */
static void test_trace_teams(void **state)
{
    (void)state;
    char dir[256];
    assert_int_equal(test_tmpdir(dir, sizeof dir, "test_quotas"), 0);
    test_write(test_path("%s/jobs.csv", dir), "submit,gpus,secs,team\n0,4,3600,A\n10,4,3600,X\n20,4,3600,B\n");
    fs_scenario *s = test_scenario(
        "{\"schema\": \"fleetsim/1\", \"horizon\": \"3h\","
        " \"policies\": {\"partitioned\": {\"kind\": \"partitioned\", \"pools\": " POOL(8) "}},"
        " \"quotas\": {\"A\": {\"gpus\": 4}, \"B\": {\"gpus\": 4}},"
        " \"training\": [{\"name\": \"jobs\", \"tenant\": \"A\", \"preemptible\": true,"
        "   \"submit\": {\"trace\": {\"file\": \"%s\", \"time\": \"submit\", \"gpus\": \"gpus\","
        "   \"duration\": \"secs\", \"tenant\": \"team\"}}}],"
        " " CALIBRATION "}",
        test_path("%s/jobs.csv", dir));
    fs_results *r = test_run(s);
    const fs_rep_result *rep = rep_of(r, "partitioned");
    const fs_training_rep *t = &rep->training[0];
    const fs_quota_rep *a = &rep->quotas[0], *b = &rep->quotas[1], *x = &rep->quotas[2];
    double want_x = 4 * (10 + 3603) / HOUR;
    printf("  first admissions' waits %.3f %.3f %.3f s (want 0 0 0); preemptions %llu, lost %.9f GPU-h"
           " (want %.9f)\n",
           wait_s(t, 0), wait_s(t, 1), wait_s(t, 2), (unsigned long long)t->preemptions, t->gpu_hours_lost,
           4 * 7 / HOUR);
    printf("  A %.9f GPU-h reclaimed %llu; B %.9f reclaimed %llu; unlisted %.9f (borrowed %.9f, want %.9f),"
           " reclaimed %llu\n",
           a->gpu_hours, (unsigned long long)a->reclaimed_jobs, b->gpu_hours, (unsigned long long)b->reclaimed_jobs,
           x->gpu_hours, x->borrowed_gpu_hours, want_x, (unsigned long long)x->reclaimed_jobs);
    assert_int_equal(t->preemptions, 1);
    near(t->gpu_hours_lost, 4 * 7 / HOUR, 1e-9, "X's lost work");
    near(wait_s(t, 0) + wait_s(t, 1) + wait_s(t, 2), 0, 1e-9, "waits"); /* A at 0, X at 10, B at 20 */
    assert_int_equal(x->reclaimed_jobs, 1);
    assert_int_equal(a->reclaimed_jobs + b->reclaimed_jobs, 0);
    near(x->gpu_hours, want_x, 1e-9, "unlisted held");
    near(x->borrowed_gpu_hours, want_x, 1e-9, "unlisted borrowed");
    near(a->borrowed_gpu_hours + b->borrowed_gpu_hours, 0, 0, "A and B borrowed");
    fs_results_destroy(r);
    fs_scenario_destroy(s);
    /* A row asking for more than its team may ever hold (A: 4 of its own and
     * the 4 B lends; a pool of 16 would hold it) is bad input at its line,
     * or with --lenient a job refused, never a job waiting forever. */
    test_write(test_path("%s/big.csv", dir), "submit,gpus,secs,team\n0,4,60,A\n10,12,60,A\n");
    char json[1024];
    snprintf(json, sizeof json,
             "{\"schema\": \"fleetsim/1\", \"horizon\": \"1h\", \"pools\": " POOL(16) ","
             " \"quotas\": {\"A\": {\"gpus\": 4}, \"B\": {\"gpus\": 4}},"
             " \"training\": [{\"name\": \"jobs\", \"tenant\": \"A\", \"submit\": {\"trace\": {\"file\": \"%s\","
             " \"time\": \"submit\", \"gpus\": \"gpus\", \"duration\": \"secs\", \"tenant\": \"team\"}}}]}",
             test_path("%s/big.csv", dir));
    test_write(test_path("%s/big.json", dir), json);
    assert_int_equal(test_fleetsim(dir, "run %s/big.json", dir), 2);
    test_stderr_has(dir, "big.csv:3: a job asking for 12 GPUs can never start: its team may hold at most 8");
    json_t *res = test_fleetsim_json(dir, "run %s/big.json --lenient --format json", dir);
    const json_t *stream = json_array_get(test_json_at(json_array_get(test_json_at(res, "policies"), 0), "training"), 0);
    printf("  a 12-GPU row of team A (ceiling 8): exit 2; with --lenient refused %g, completed %g\n",
           test_json_num(stream, "refused_impossible"), test_json_num(stream, "completed"));
    assert_true(test_json_num(stream, "refused_impossible") == 1);
    assert_true(test_json_num(stream, "completed") == 1);
    json_decref(res);
    test_rmdir(dir);
}

/* ---- g. cohorts: teams lend only inside their own --------------------------- */

/* A (4 units) and C (none of its own) in cohort "x", B (4) in "y", on 8
 * GPUs.  C submits two gangs of 4 at t = 0 (4 h each): the first borrows
 * A's idle 4 and starts at once; the second waits the whole 3 h although
 * B's 4 stand idle, since B lends only to its own cohort.  With every team
 * in the default cohort both start at once.  Either way C holds what it
 * runs on for the whole 3 h: 12 or 24 GPU-hours. */
static void test_cohorts(void **state)
{
    (void)state;
    for (int split = 0; split < 2; split++) {
        fs_scenario *s = test_scenario(
            "{\"schema\": \"fleetsim/1\", \"horizon\": \"3h\", " THREE_POLICIES(8) ","
            " \"quotas\": {\"A\": {\"gpus\": 4%s}, \"B\": {\"gpus\": 4%s}, \"C\": {\"gpus\": 0%s}},"
            " \"training\": [{\"name\": \"c\", \"tenant\": \"C\", \"submit\": {\"at\": [0, 0]}, \"gang\": 4,"
            "   \"work_gpu_hours\": 16}],"
            " " CALIBRATION "}",
            split ? ", \"cohort\": \"x\"" : "", split ? ", \"cohort\": \"y\"" : "", split ? ", \"cohort\": \"x\"" : "");
        assert_int_equal(s->n_cohorts, split ? 2 : 0);
        assert_int_equal(s->quotas[2].cohort, split ? 1 : 0);
        fs_results *r = test_run(s);
        for (size_t k = 0; k < 3; k++) {
            const fs_rep_result *rep = rep_of(r, kinds[k]);
            const fs_training_rep *c = stream_of(r, rep, "c");
            printf("  %-11s cohorts %s: c started %llu, waiting at the end %llu; C held %.6f GPU-h (want %.6f)\n",
                   kinds[k], split ? "x/y" : "none", (unsigned long long)c->started,
                   (unsigned long long)c->waiting_end, rep->quotas[2].gpu_hours, (split ? 4 : 8) * 3.0);
            assert_int_equal(c->started, split ? 1 : 2);
            assert_int_equal(c->waiting_end, split ? 1 : 0);
            near(rep->quotas[2].gpu_hours, (split ? 4 : 8) * 3.0, 1e-9, "C's GPU-hours");
        }
        fs_results_destroy(r);
        fs_scenario_destroy(s);
    }
    /* C's ceiling is its cohort's lending: a gang of 5 never starts. */
    test_parse_refused("{\"schema\": \"fleetsim/1\", \"horizon\": \"1h\", \"pools\": " POOL(8) ","
                       " \"quotas\": {\"A\": {\"gpus\": 4, \"cohort\": \"x\"}, \"B\": {\"gpus\": 4, \"cohort\": \"y\"},"
                       " \"C\": {\"gpus\": 0, \"cohort\": \"x\"}},"
                       " \"training\": [{\"name\": \"c\", \"tenant\": \"C\", \"submit\": {\"at\": [0]}, \"gang\": 5,"
                       " \"work_gpu_hours\": 1}]}",
                       "test", FS_ERR_INPUT,
                       "test: training[0].gang: a gang of 5 units can never start: team \"C\" may hold at most 4");
}

/* ---- h. fair sharing --------------------------------------------------------- */

/* O owns the 8 GPUs and runs nothing; A (weight 2) and B (weight 1) own
 * none.  A runs a gang of 8 from t = 0 (1 h of compute: it holds the GPUs
 * until 3 + 3600 = 3603 s), then submits eight 1-GPU jobs at 60 s, and B
 * eight at 120 s (each 10 h: still running at the end).  At 3603 the eight
 * GPUs free up at once and the sixteen jobs compete for them:
 * - in the policy's order (first come first served) A's eight, asked first,
 *   take all eight;
 * - by units borrowed per weight, ties to the older request: A (share 0 ->
 *   1/2), B (0 -> 1), A (-> 1), A (tie at 1, older -> 3/2), B (-> 2), A (->
 *   2), A (tie -> 5/2), B: A five, B three, 2:1 as the weights;
 * - by decayed use (half-life 1 h), per weight: A used 8 GPUs for an hour
 *   and B nothing, and a grant adds no use in the instant it happens, so
 *   B's eight go first and A gets none. */
static fs_scenario *fair_scenario(const char *policies, const char *fair, const char *lane_a, const char *lane_b)
{
    return test_scenario(
        "{\"schema\": \"fleetsim/1\", \"horizon\": \"3h\", %s, %s"
        " \"quotas\": {\"O\": {\"gpus\": 8}, \"A\": {\"gpus\": 0, \"weight\": 2}, \"B\": {\"gpus\": 0}},"
        " \"training\": [{\"name\": \"big\", \"tenant\": \"A\", \"submit\": {\"at\": [0]}, \"gang\": 8,"
        "   \"work_gpu_hours\": 8},"
        "  {\"name\": \"a\", \"tenant\": \"A\", \"submit\": {\"at\": [60, 60, 60, 60, 60, 60, 60, 60]},"
        "   \"gang\": 1, \"work_gpu_hours\": 10%s},"
        "  {\"name\": \"b\", \"tenant\": \"B\", \"submit\": {\"at\": [120, 120, 120, 120, 120, 120, 120, 120]},"
        "   \"gang\": 1, \"work_gpu_hours\": 10%s}],"
        " " CALIBRATION "}",
        policies, fair, lane_a, lane_b);
}

static void test_fair_sharing(void **state)
{
    (void)state;
    static const struct {
        const char *fair, *lane_a, *lane_b;
        uint64_t a, b, tiered_a, tiered_b;
    } cases[] = {
        {"", "", "", 8, 0, 8, 0},
        {"\"fair_sharing\": {\"by\": \"borrowed\"},", "", "", 5, 3, 5, 3},
        {"\"fair_sharing\": {\"by\": \"usage\", \"half_life\": \"1h\"},", "", "", 0, 8, 0, 8},
        /* Lanes keep their places: A's jobs in the production lane, B's
         * experiments; only tiered serves by lane, and there A's go first
         * whatever the shares. */
        {"\"fair_sharing\": {\"by\": \"usage\", \"half_life\": \"1h\"},", ", \"priority\": \"production\"",
         ", \"priority\": \"experiment\"", 0, 8, 8, 0},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        fs_scenario *s = fair_scenario(THREE_POLICIES(8), cases[c].fair, cases[c].lane_a, cases[c].lane_b);
        fs_results *r = test_run(s);
        for (size_t k = 0; k < 3; k++) {
            const fs_rep_result *rep = rep_of(r, kinds[k]);
            const fs_training_rep *a = stream_of(r, rep, "a"), *b = stream_of(r, rep, "b");
            uint64_t want_a = k == 2 ? cases[c].tiered_a : cases[c].a, want_b = k == 2 ? cases[c].tiered_b : cases[c].b;
            printf("  %-11s %-58s%s A started %llu (want %llu), B %llu (want %llu); first wait %.3f s\n", kinds[k],
                   cases[c].fair[0] ? cases[c].fair : "(policy order)", cases[c].lane_a[0] ? " A production" : "",
                   (unsigned long long)a->started, (unsigned long long)want_a, (unsigned long long)b->started,
                   (unsigned long long)want_b, a->n_waits ? wait_s(a, 0) : wait_s(b, 0));
            assert_int_equal(a->started, want_a);
            assert_int_equal(b->started, want_b);
            /* Every start was at 3603: the GPUs were full before. */
            near(a->n_waits ? wait_s(a, 0) : wait_s(b, 0), 3603 - (a->n_waits ? 60 : 120), 1e-9, "first wait");
            check_units_conserved(r, kinds[k]);
        }
        fs_results_destroy(r);
        fs_scenario_destroy(s);
    }
}

/* A policy's "fair_sharing" is the scheduler's choice, over the top
 * level's: the same timeline with usage at the top level, and three
 * policies of kind shared that keep it, order by borrowed units instead,
 * or turn it off, gives the three outcomes of test_fair_sharing. */
static void test_fair_sharing_per_policy(void **state)
{
    (void)state;
    static const char *const names[] = {"usage", "borrowed", "none"};
    static const uint64_t want_a[] = {0, 5, 8};
    fs_scenario *s = fair_scenario(
        "\"policies\": {\"usage\": {\"kind\": \"shared\", \"pools\": " POOL(8) "},"
        " \"borrowed\": {\"kind\": \"shared\", \"pools\": " POOL(8) ", \"fair_sharing\": {\"by\": \"borrowed\"}},"
        " \"none\": {\"kind\": \"shared\", \"pools\": " POOL(8) ", \"fair_sharing\": {\"by\": \"none\"}}}",
        "\"fair_sharing\": {\"by\": \"usage\", \"half_life\": \"1h\"},", "", "");
    fs_results *r = test_run(s);
    for (size_t k = 0; k < 3; k++) {
        const fs_rep_result *rep = rep_of(r, names[k]);
        const fs_training_rep *a = stream_of(r, rep, "a"), *b = stream_of(r, rep, "b");
        printf("  %-9s A started %llu (want %llu), B %llu (want %llu)\n", names[k], (unsigned long long)a->started,
               (unsigned long long)want_a[k], (unsigned long long)b->started, (unsigned long long)(8 - want_a[k]));
        assert_int_equal(a->started, want_a[k]);
        assert_int_equal(b->started, 8 - want_a[k]);
    }
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

/* Head of line under fair sharing is per team.  A (4 units, borrowing
 * none) and B (4) on 8 GPUs: A runs a gang of 4 from t = 0 (10 h), asks
 * for another gang of 4 at 10 s, which its quota holds back, and B asks
 * for 2 at 20 s.  Under shared without fair sharing A's second job heads
 * the queue and stops B (strict first come first served): B waits the
 * whole 3 h.  With fair sharing each team's queue is first come first
 * served on its own: B starts at once (wait 0).  Partitioned and tiered
 * never stop behind a job that cannot start: B's wait is 0 either way. */
static void test_fair_head_of_line(void **state)
{
    (void)state;
    for (int fair = 0; fair < 2; fair++) {
        fs_scenario *s = test_scenario(
            "{\"schema\": \"fleetsim/1\", \"horizon\": \"3h\", " THREE_POLICIES(8) ", %s"
            " \"quotas\": {\"A\": {\"gpus\": 4, \"borrow\": 0}, \"B\": {\"gpus\": 4}},"
            " \"training\": [{\"name\": \"a\", \"tenant\": \"A\", \"submit\": {\"at\": [0, 10]}, \"gang\": 4,"
            "   \"work_gpu_hours\": 40},"
            "  {\"name\": \"b\", \"tenant\": \"B\", \"submit\": {\"at\": [20]}, \"gang\": 2, \"work_gpu_hours\": 1}],"
            " " CALIBRATION "}",
            fair ? "\"fair_sharing\": {\"by\": \"borrowed\"}," : "");
        fs_results *r = test_run(s);
        for (size_t k = 0; k < 3; k++) {
            const fs_rep_result *rep = rep_of(r, kinds[k]);
            const fs_training_rep *b = stream_of(r, rep, "b");
            bool stopped = !fair && k == 0;
            printf("  %-11s %s: b started %llu, waiting at the end %llu%s\n", kinds[k],
                   fair ? "fair sharing" : "policy order", (unsigned long long)b->started,
                   (unsigned long long)b->waiting_end, b->n_waits ? "" : " (no wait: never started)");
            assert_int_equal(b->started, stopped ? 0 : 1);
            assert_int_equal(b->waiting_end, stopped ? 1 : 0);
            if (!stopped)
                near(wait_s(b, 0), 0, 0, "b's wait");
        }
        fs_results_destroy(r);
        fs_scenario_destroy(s);
    }
}

/* ---- f. refusals ----------------------------------------------------------- */

static void refused(const char *quotas, const char *tenant, const char *want)
{
    char json[2048];
    snprintf(json, sizeof json,
             "{\"schema\": \"fleetsim/1\", \"horizon\": \"1h\", \"pools\": " POOL(8) ", %s"
             " \"training\": [{\"name\": \"ft\", \"tenant\": \"%s\", \"submit\": {\"at\": [0]}, \"gang\": 4,"
             " \"work_gpu_hours\": 1}]}",
             quotas, tenant);
    printf("  %s\n    -> refused with \"%s\"\n", quotas, want);
    test_parse_refused(json, "test", FS_ERR_INPUT, want);
}

static void test_refusals(void **state)
{
    (void)state;
    refused("\"quotas\": [],", "A", "test: quotas: expected an object of teams");
    refused("\"quotas\": {},", "A", "test: quotas: expected an object of teams");
    refused("\"quotas\": {\"A\": 4},", "A", "test: quotas.A: expected an object {\"gpus\": N");
    refused("\"quotas\": {\"A\": {\"borrow\": 1}},", "A", "test: quotas.A: missing required key \"gpus\"");
    refused("\"quotas\": {\"A\": {\"gpus\": 4, \"borow\": 1}},", "A", "test: quotas.A: unknown key \"borow\"");
    refused("\"quotas\": {\"A\": {\"gpus\": -1}},", "A", "test: quotas.A.gpus:");
    refused("\"quotas\": {\"A\": {\"gpus\": 4, \"lend\": 5}},", "A",
            "test: quotas.A.lend: a team lends at most its own quota: expected at most 4 (\"gpus\"), got 5");
    refused("\"quotas\": {\"A\": {\"gpus\": 4}},", "B", "test: training[0].tenant: tenant \"B\" has no entry in \"quotas\"");
    refused("\"quotas\": {\"A\": {\"gpus\": 2, \"borrow\": 1}, \"B\": {\"gpus\": 6}},", "A",
            "test: training[0].gang: a gang of 4 units can never start: team \"A\" may hold at most 3");
    refused("\"quotas\": {\"A\": {\"gpus\": 2}, \"B\": {\"gpus\": 6, \"lend\": 1}},", "A",
            "test: training[0].gang: a gang of 4 units can never start: team \"A\" may hold at most 3");
    refused("\"reserve_after\": \"-5m\",", "A", "test: reserve_after:");
    refused("\"reserve_after\": \"soon\",", "A", "test: reserve_after:");
    refused("\"quotas\": {\"A\": {\"gpus\": 4, \"weight\": -1}},", "A", "test: quotas.A.weight:");
    refused("\"quotas\": {\"A\": {\"gpus\": 4, \"cohort\": \"\"}},", "A", "test: quotas.A.cohort:");
    refused("\"fair_sharing\": {\"by\": \"borrowed\"},", "A",
            "test: fair_sharing: fair sharing orders the teams of \"quotas\"");
    refused("\"quotas\": {\"A\": {\"gpus\": 4}}, \"fair_sharing\": {\"by\": \"usage\"},", "A",
            "test: fair_sharing: missing required key \"half_life\"");
    refused("\"quotas\": {\"A\": {\"gpus\": 4}}, \"fair_sharing\": {\"by\": \"borrowed\", \"half_life\": \"1h\"},",
            "A", "test: fair_sharing.half_life: a half-life applies to \"by\": \"usage\" only");
    refused("\"quotas\": {\"A\": {\"gpus\": 4}}, \"fair_sharing\": {\"by\": \"drf\"},", "A", "test: fair_sharing.by:");
    refused("\"quotas\": {\"A\": {\"gpus\": 4}}, \"fair_sharing\": {},", "A",
            "test: fair_sharing: missing required key \"by\"");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_within_quota),
        cmocka_unit_test(test_borrow_without_preemption),
        cmocka_unit_test(test_reclaim),
        cmocka_unit_test(test_borrow_and_lend_limits),
        cmocka_unit_test(test_starvation_bound),
        cmocka_unit_test(test_trace_teams),
        cmocka_unit_test(test_cohorts),
        cmocka_unit_test(test_fair_sharing),
        cmocka_unit_test(test_fair_sharing_per_policy),
        cmocka_unit_test(test_fair_head_of_line),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

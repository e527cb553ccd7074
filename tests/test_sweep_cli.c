/*
 * fleetsim sweep, merge and plan, through the built binary: one machine's
 * sweep, the same sweep split into shards (by hand and under a real MPI
 * launcher) and merged, and an interrupted sweep resumed, all give the same
 * bytes; plan's staircase search finds what the brute-force grid finds with
 * fewer simulations; bad input is refused with exit 2.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "testutil.h"

static char dir[256];

/* One pool per policy (b's twice the size, on older GPUs); chat autoscales
 * between 2 and 8 replicas, so more GPUs lower its tail until every replica
 * it wants has one. */
static const char *scenario =
    "{\"schema\": \"fleetsim/1\", \"name\": \"sweep test\", \"horizon\": \"1h\", \"warmup\": \"5m\","
    " \"window\": \"5m\", \"seed\": 11, \"replications\": 2,"
    " \"policies\": {\"a\": {\"pools\": [{\"name\": \"p\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 8}]},"
    "              \"b\": {\"pools\": [{\"name\": \"p\", \"gpu\": \"A100-SXM4-80GB\", \"gpus\": 16}]}},"
    " \"services\": [{\"name\": \"chat\", \"pool\": \"p\", \"arrivals\": {\"poisson_rps\": 40},"
    "   \"service_time\": {\"exponential\": {\"mean\": \"100ms\"}},"
    "   \"replicas\": {\"count\": 2, \"min\": 2, \"max\": 8,"
    "                \"autoscale\": {\"target_in_flight\": 0.6, \"cooldown\": \"1m\", \"idle\": \"20m\"}}}]}";

static const char *sweep =
    "{\"schema\": \"fleetsim-sweep/1\", \"scenario\": \"s.json\","
    " \"vary\": [{\"path\": \"services[chat].arrivals.poisson_rps\", \"from\": 20, \"to\": 40, \"step\": 10}],"
    " \"replications\": 3}";

static int setup(void **state)
{
    (void)state;
    if (test_tmpdir(dir, sizeof dir, "fleetsim-sweepcli") != 0)
        return -1;
    test_write(test_path("%s/s.json", dir), scenario);
    test_write(test_path("%s/sweep.json", dir), sweep);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    return test_rmdir(dir);
}

static void assert_same_file(const char *a, const char *b)
{
    char *x = test_slurp("%s", a), *y = test_slurp("%s", b);
    assert_non_null(x);
    assert_non_null(y);
    if (strcmp(x, y) != 0)
        fail_msg("%s and %s differ", a, b);
    free(x);
    free(y);
}

static void assert_same_points(const char *a, const char *b)
{
    assert_same_file(test_path("%s/%s/points.json", dir, a), test_path("%s/%s/points.json", dir, b));
    assert_same_file(test_path("%s/%s/points.csv", dir, a), test_path("%s/%s/points.csv", dir, b));
}

static void test_sweep_one_machine(void **state)
{
    (void)state;
    assert_int_equal(test_fleetsim(dir, "sweep %s/sweep.json --jobs 1 --out %s/j1", dir, dir), 0);
    /* 3 rates x 2 policies (every policy when none is varied) x 3 replications */
    char *csv = test_slurp("%s/j1/points.csv", dir);
    assert_non_null(csv);
    size_t lines = 0;
    for (char *c = csv; *c; c++)
        lines += *c == '\n';
    assert_int_equal(lines, 1 + 6);
    assert_non_null(strstr(csv, "service:chat.p99_ms_ci95"));
    free(csv);
    json_t *doc = json_load_file(test_path("%s/j1/points.json", dir), 0, NULL);
    assert_non_null(doc);
    json_t *points = json_object_get(doc, "points");
    assert_int_equal(json_array_size(points), 6);
    /* More traffic on the same fleet: a longer tail (points 0, 2, 4 are policy a). */
    double p99[3];
    for (int k = 0; k < 3; k++)
        p99[k] = json_real_value(json_object_get(
            json_object_get(json_object_get(json_array_get(points, (size_t)(2 * k)), "metrics"), "service:chat.p99_ms"),
            "value"));
    assert_true(p99[0] < p99[2]);
    json_decref(doc);
    assert_true(test_exists("%s/j1/runs/p000005-r0002.json", dir));
    /* Two jobs: the same bytes. */
    assert_int_equal(test_fleetsim(dir, "sweep %s/sweep.json --jobs 2 --out %s/j2 --quiet", dir, dir), 0);
    assert_same_points("j1", "j2");
}

static void test_shards_merge_to_the_same(void **state)
{
    (void)state;
    if (!test_exists("%s/j1/points.json", dir))
        assert_int_equal(test_fleetsim(dir, "sweep %s/sweep.json --jobs 1 --out %s/j1 -q", dir, dir), 0);
    for (int i = 0; i < 3; i++)
        assert_int_equal(test_fleetsim(dir, "sweep %s/sweep.json --shard %d/3 --out %s/s%d -q", dir, i, dir, i), 0);
    assert_false(test_exists("%s/s0/points.json", dir)); /* a shard alone writes no results */
    /* A merge that lacks a shard says what is missing and writes nothing. */
    assert_int_equal(test_fleetsim(dir, "merge %s/s0 %s/s2 --out %s/partial", dir, dir, dir), 2);
    test_stderr_has(dir, "missing");
    assert_false(test_exists("%s/partial/points.json", dir));
    assert_int_equal(test_fleetsim(dir, "merge %s/s0 %s/s1 %s/s2 --out %s/m -q", dir, dir, dir, dir), 0);
    assert_same_points("j1", "m");
    /* A retried shard rewrites the same bytes. */
    char *before = test_slurp("%s/s1/runs/p000000-r0001.json", dir);
    assert_int_equal(test_sh("rm -rf %s/s1/runs/*", dir), 0);
    assert_int_equal(test_fleetsim(dir, "sweep %s/sweep.json --shard 1/3 --out %s/s1 -q", dir, dir), 0);
    char *after = test_slurp("%s/s1/runs/p000000-r0001.json", dir);
    assert_non_null(before);
    assert_non_null(after);
    assert_string_equal(before, after);
    free(before);
    free(after);
}

static void test_mpi_launcher(void **state)
{
    (void)state;
    if (test_sh("command -v mpirun >/dev/null 2>&1") != 0) {
        if (getenv("CI"))
            fail_msg("mpirun is missing: .ci/install-deps installs openmpi-bin");
        skip(); /* a developer machine without Open MPI */
    }
    if (!test_exists("%s/j1/points.json", dir))
        assert_int_equal(test_fleetsim(dir, "sweep %s/sweep.json --jobs 1 --out %s/j1 -q", dir, dir), 0);
    /* Root (as in CI containers) needs Open MPI's explicit consent. */
    int rc = test_sh("cd %s && OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "
                     "mpirun -np 2 --oversubscribe %s sweep %s/sweep.json --shard auto --jobs 1 --out %s/mpi -q "
                     ">%s/mpi.out 2>%s/mpi.err",
                     dir, FS_BINARY, dir, dir, dir, dir);
    if (rc != 0) {
        char *err = test_slurp("%s/mpi.err", dir);
        fail_msg("mpirun exited %d: %s", rc, err ? err : "");
    }
    char *err = test_slurp("%s/mpi.err", dir);
    assert_non_null(strstr(err, "shard 0/2 (from Open MPI)"));
    assert_non_null(strstr(err, "shard 1/2 (from Open MPI)"));
    free(err);
    assert_int_equal(test_fleetsim(dir, "merge %s/mpi -q", dir), 0);
    assert_same_points("j1", "mpi");
}

static void test_shard_auto_environments(void **state)
{
    (void)state;
    /* Slurm arrays may start at any id; Kubernetes gives the index only. */
    assert_int_equal(test_sh("cd %s && SLURM_ARRAY_TASK_ID=7 SLURM_ARRAY_TASK_MIN=5 SLURM_ARRAY_TASK_COUNT=3 "
                             "%s sweep sweep.json --shard auto --out slurm -q 2>slurm.err",
                             dir, FS_BINARY),
                     0);
    char *err = test_slurp("%s/slurm.err", dir);
    assert_non_null(strstr(err, "shard 2/3 (from a Slurm job array)"));
    free(err);
    assert_int_equal(test_sh("cd %s && JOB_COMPLETION_INDEX=1 %s sweep sweep.json --shard auto --shard-count 4 "
                             "--out k8s -q 2>k8s.err",
                             dir, FS_BINARY),
                     0);
    err = test_slurp("%s/k8s.err", dir);
    assert_non_null(strstr(err, "shard 1/4 (from a Kubernetes Indexed Job)"));
    free(err);
    /* Runs 1, 5, 9, 13, 17 of 18: point 0 replication 1, point 1 replication 2, ... */
    assert_true(test_exists("%s/k8s/runs/p000000-r0001.json", dir));
    assert_true(test_exists("%s/k8s/runs/p000001-r0002.json", dir));
    assert_false(test_exists("%s/k8s/runs/p000000-r0000.json", dir));
    assert_int_equal(test_sh("cd %s && env -u SLURM_ARRAY_TASK_ID -u OMPI_COMM_WORLD_RANK -u PMI_RANK "
                             "-u JOB_COMPLETION_INDEX %s sweep sweep.json --shard auto --out none 2>none.err",
                             dir, FS_BINARY),
                     2);
    assert_int_equal(test_fleetsim(dir, "sweep %s/sweep.json --shard 3/3", dir), 2);
}

static void test_resume(void **state)
{
    (void)state;
    if (!test_exists("%s/j1/points.json", dir))
        assert_int_equal(test_fleetsim(dir, "sweep %s/sweep.json --jobs 1 --out %s/j1 -q", dir, dir), 0);
    /* Stopped after 5 runs: 5 files, no results; a rerun goes on to the same bytes. */
    assert_int_equal(test_fleetsim(dir, "sweep %s/sweep.json --jobs 2 --max-runs 5 --out %s/r", dir, dir), 0);
    test_stderr_has(dir, "stopped after 5 runs");
    assert_false(test_exists("%s/r/points.json", dir));
    assert_int_equal(test_sh("test $(ls %s/r/runs | grep -c '^p') -eq 5", dir), 0);
    assert_int_equal(test_fleetsim(dir, "sweep %s/sweep.json --jobs 2 --out %s/r -q", dir, dir), 0);
    assert_same_points("j1", "r");

    /* Killed outright while running (a longer horizon so the kill lands
     * mid-sweep), then rerun: the same as a sweep never interrupted. */
    test_write(test_path("%s/long.json", dir),
               "{\"schema\": \"fleetsim-sweep/1\", \"scenario\": \"s.json\", \"set\": {\"horizon\": \"8h\"},"
               " \"vary\": [{\"path\": \"services[chat].arrivals.poisson_rps\", \"values\": [20, 30]},"
               "            {\"path\": \"policy\", \"values\": [\"a\"]}], \"replications\": 4}");
    assert_int_equal(test_fleetsim(dir, "sweep %s/long.json --jobs 2 --out %s/long-whole -q", dir, dir), 0);
    assert_int_equal(test_sh("cd %s && (%s sweep long.json --jobs 1 --out killed -q & pid=$!; "
                             "while [ $(ls killed/runs 2>/dev/null | grep -c '^p') -lt 1 ]; do sleep 0.01; done; "
                             "kill -9 $pid; wait $pid; true) 2>/dev/null",
                             dir, FS_BINARY),
                     0);
    int done = 0;
    char *ls = NULL;
    assert_int_equal(test_sh("ls %s/killed/runs | grep -c '^p' > %s/killed.count", dir, dir), 0);
    ls = test_slurp("%s/killed.count", dir);
    done = atoi(ls);
    free(ls);
    assert_true(done >= 1);
    assert_false(test_exists("%s/killed/points.json", dir));
    if (done == 8)
        print_message("note: the sweep finished before the kill landed\n");
    assert_int_equal(test_fleetsim(dir, "sweep %s/long.json --jobs 2 --out %s/killed -q", dir, dir), 0);
    assert_same_points("long-whole", "killed");

    /* Another sweep into a directory of this one is refused. */
    assert_int_equal(test_fleetsim(dir, "sweep %s/long.json --out %s/r", dir, dir), 2);
    test_stderr_has(dir, "holds another sweep");
}

/* A sweep file with `body` after the schema and scenario keys exits 2 with
 * `want` on stderr, and writes no results. */
static void assert_sweep_refused(const char *name, const char *body, const char *want)
{
    test_write(test_path("%s/%s", dir, name),
               test_path("{\"schema\": \"fleetsim-sweep/1\", \"scenario\": \"s.json\"%s}", body));
    assert_int_equal(test_fleetsim(dir, "sweep %s/%s --out %s/bad", dir, name, dir), 2);
    test_stderr_has(dir, want);
    assert_false(test_exists("%s/bad/points.json", dir));
}

static void test_bad_sweep_files(void **state)
{
    (void)state;
    assert_sweep_refused("bad1.json", ",\n,", "bad1.json:2:");
    assert_sweep_refused("bad2.json", ", \"vary\": [{\"path\": \"policies.a.pool[0].gpus\", \"values\": [1, 2]}]",
                         "no key \"pool\"");
    assert_sweep_refused("bad3.json",
                         ", \"vary\": [{\"path\": \"policies.a.pools[0].gpus\", \"values\": [4]}], \"replicatoins\": 2",
                         "replications");
    assert_sweep_refused("bad4.json", ", \"vary\": [{\"path\": \"policies.a.pools[0].gpus\", \"values\": [4, -3]}]",
                         "policies.a.pools[0].gpus=-3");
}

/* The answer of a plan's search, from plan.json: point index, or -1. */
static long plan_answer(const char *name, long *simulations)
{
    json_t *doc = json_load_file(test_path("%s/%s/plan.json", dir, name), 0, NULL);
    assert_non_null(doc);
    json_t *answer = json_object_get(doc, "answer");
    long point = json_is_object(answer) ? (long)json_integer_value(json_object_get(answer, "point")) : -1;
    *simulations = (long)json_integer_value(json_object_get(json_object_get(doc, "counts"), "simulations"));
    json_decref(doc);
    return point;
}

static void test_plan_matches_grid(void **state)
{
    (void)state;
    const char *common = "--vary 'policies.a.pools[0].gpus=1..8' --vary policy=a,b "
                         "--constraint 'service:chat.p99<=600ms' --replications 3 --jobs 2 -q";
    assert_int_equal(test_fleetsim(dir, "plan %s/s.json %s --out %s/plan", dir, common, dir), 0);
    assert_int_equal(test_fleetsim(dir, "plan %s/s.json %s --search grid --out %s/grid", dir, common, dir), 0);
    long fast_runs, grid_runs;
    long fast = plan_answer("plan", &fast_runs), brute = plan_answer("grid", &grid_runs);
    print_message("plan: point %ld in %ld simulations; grid: point %ld in %ld\n", fast, fast_runs, brute, grid_runs);
    assert_true(brute >= 0);
    assert_int_equal(fast, brute);
    assert_true(fast_runs < grid_runs);
    char *out = test_slurp("%s/out.txt", dir);
    assert_non_null(strstr(out, "cheapest point that meets every constraint"));
    free(out);
    assert_true(test_nonempty("%s/plan/frontier.csv", dir));
    /* A rerun reuses every run it made: no new run files. */
    assert_int_equal(test_sh("ls %s/plan/runs > %s/before.txt", dir, dir), 0);
    assert_int_equal(test_fleetsim(dir, "plan %s/s.json %s --out %s/plan", dir, common, dir), 0);
    assert_int_equal(test_sh("ls %s/plan/runs | cmp -s - %s/before.txt", dir, dir), 0);
    /* Bad constraints and figures are refused. */
    assert_int_equal(test_fleetsim(dir, "plan %s/s.json --vary 'policies.a.pools[0].gpus=1..2' "
                                        "--constraint 'service:chat.p99~1' --out %s/bad", dir, dir), 2);
    assert_int_equal(test_fleetsim(dir, "plan %s/s.json --vary 'policies.a.pools[0].gpus=1..2' --vary policy=a "
                                        "--constraint 'service:chta.p99<=1s' --out %s/bad2", dir, dir), 2);
    test_stderr_has(dir, "service:chat.p99_ms");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sweep_one_machine),
        cmocka_unit_test(test_shards_merge_to_the_same),
        cmocka_unit_test(test_mpi_launcher),
        cmocka_unit_test(test_shard_auto_environments),
        cmocka_unit_test(test_resume),
        cmocka_unit_test(test_bad_sweep_files),
        cmocka_unit_test(test_plan_matches_grid),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

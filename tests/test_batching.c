/*
 * Dynamic batching ("batching": {"kind": "dynamic"}), through the product
 * path (scenario JSON -> engine -> results): batch of one equals the
 * unbatched service, a schedule worked by hand, saturated throughput,
 * Little's law and conservation, speed scale on a MIG slice, and every
 * refusal with its JSON path.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "hist.h"
#include "placement.h"
#include "run.h"
#include "scenario.h"
#include "testutil.h"
#include "theory.h"

static char dir[256];

static int setup(void **state)
{
    (void)state;
    return test_tmpdir(dir, sizeof dir, "fs-batching");
}

static int teardown(void **state)
{
    (void)state;
    return test_rmdir(dir);
}

/* One service of `replicas` replicas on H100s with Poisson arrivals at rps;
 * `execution` is the service's "service_time" or "batching" member. */
static fs_scenario *poisson_service(double rps, unsigned replicas, const char *execution, double horizon_s,
                                    unsigned reps, const char *extra)
{
    return test_scenario("{\"schema\": \"fleetsim/1\", \"horizon\": %.3f, \"warmup\": %.3f, \"seed\": 7,"
                         " \"replications\": %u, \"window\": \"1m\","
                         " \"pools\": [{\"name\": \"p\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": %u}],"
                         " \"services\": [{\"name\": \"s\", \"arrivals\": {\"poisson_rps\": %.9f},"
                         "   %s, \"replicas\": %u%s}]}",
                         horizon_s, horizon_s / 10, reps, replicas, rps, execution, replicas, extra);
}

#define BATCH_OF_ONE(d) \
    "\"batching\": {\"kind\": \"dynamic\", \"max_batch_size\": 1, \"max_queue_delay\": 0," \
    " \"batch_time\": {\"table\": [[1, " d "]]}}"

/* (1) A batch of at most one with no delay is the unbatched replica: the
 * same seed gives the same histograms, counts and waits, request for
 * request; only the batching figures are new. */
static void test_batch_of_one_is_unbatched(void **state)
{
    (void)state;
    fs_scenario *plain = poisson_service(2.7, 3, "\"service_time\": {\"deterministic\": {\"value\": 1}}", 2e4, 2, "");
    fs_scenario *batched = poisson_service(2.7, 3, BATCH_OF_ONE("1"), 2e4, 2, "");
    fs_results *a = test_run(plain), *b = test_run(batched);
    for (uint32_t k = 0; k < 2; k++) {
        const fs_service_rep *x = &a->policies[0].reps[k].services[0], *y = &b->policies[0].reps[k].services[0];
        assert_true(x->completed > 40000);
        assert_int_equal(x->requests, y->requests);
        assert_int_equal(x->completed, y->completed);
        assert_int_equal(x->started, y->started);
        assert_int_equal(x->waited, y->waited);
        assert_int_equal(x->in_flight_end, y->in_flight_end);
        assert_int_equal(x->peak_queue, y->peak_queue);
        assert_true(x->wait_sum_s == y->wait_sum_s);
        assert_true(x->mean_in_system == y->mean_in_system);
        assert_int_equal(x->latency.total, y->latency.total);
        assert_int_equal(x->latency.min_ns, y->latency.min_ns);
        assert_int_equal(x->latency.max_ns, y->latency.max_ns);
        assert_true(x->latency.sum_ns == y->latency.sum_ns);
        test_assert_same_counts(&x->latency, &y->latency);
        assert_null(x->batch_size_counts);
        /* Every batch held one request: as many batches as starts. */
        assert_int_equal(y->batch_size_counts[1], y->started);
    }
    fs_batch_figures f = fs_results_batch_figures(b, 0, 0);
    assert_true(f.mean == 1.0 && f.p95 == 1.0 && f.max == 1.0);
    fs_results_destroy(a);
    fs_results_destroy(b);
    fs_scenario_destroy(plain);
    fs_scenario_destroy(batched);
}

/* (1) One replica, batches of one of 1 s: M/D/1, whose mean wait is
 * Pollaczek-Khinchine's lambda E[S^2] / (2 (1 - rho)). */
static void test_batch_of_one_md1(void **state)
{
    (void)state;
    double lambda = 0.8;
    fs_scenario *s = poisson_service(lambda, 1, BATCH_OF_ONE("\"1s\""), 1e6 / lambda, 4, "");
    fs_results *r = test_run(s);
    fs_service_summary sum;
    assert_int_equal(fs_results_service_summary(r, 0, 0, &sum), 0);
    double want = fs_theory_mg1_mean_wait(lambda, 1.0, 1.0) * 1e3;
    double rel = fabs(sum.wait_mean_ms.mean - want) / want;
    printf("  batched M/D/1 rho=0.8: mean wait %.1f ms (CI +-%.1f) vs Pollaczek-Khinchine %.1f ms: %.2f%% off\n",
           sum.wait_mean_ms.mean, sum.wait_mean_ms.half_width, want, 100 * rel);
    assert_true(rel < 0.03);
    assert_true(sum.wait_mean_ms.half_width / want < 0.02);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

/* A schedule worked by hand for one replica replaying requests at 0, 1, 2,
 * 3 and 4 ms with max 4, delay 10 ms, batch time 5 ms + 1 ms per request,
 * and `preferred` (a JSON fragment, may be empty): what it must give. */
typedef struct schedule {
    const char *preferred;
    uint64_t min_ms, max_ms, sum_ms, wait_ms, waited;
    uint64_t sizes[5]; /* batches of each size 0..4 */
    double p50_size;
} schedule;

/* The hand schedules' scenario: the trace file and the preferred sizes'
 * fragment are its two %s. */
#define HAND_ARRIVALS "t\n0\n1\n2\n3\n4\n"
#define HAND_SCENARIO \
    "{\"schema\": \"fleetsim/1\", \"horizon\": \"1s\", \"warmup\": \"0s\", \"window\": \"1s\"," \
    " \"pools\": [{\"name\": \"p\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 1}]," \
    " \"services\": [{\"name\": \"s\", \"replicas\": 1," \
    "   \"arrivals\": {\"trace\": {\"file\": \"%s\", \"time\": \"t\", \"time_format\": \"ms\"}}," \
    "   \"batching\": {\"kind\": \"dynamic\", \"max_batch_size\": 4, \"max_queue_delay\": \"10ms\"," \
    "     \"batch_time\": {\"linear\": {\"base\": \"5ms\", \"per_request\": \"1ms\"}}%s}}]}"

static void check_schedule(const schedule *want)
{
    const char *csv = test_path("%s/arrivals.csv", dir);
    test_write(csv, HAND_ARRIVALS);
    fs_scenario *s = test_scenario(HAND_SCENARIO, csv, want->preferred);
    fs_results *r = test_run(s);
    const fs_service_rep *rep = &r->policies[0].reps[0].services[0];
    assert_int_equal(rep->completed, 5);
    assert_int_equal(rep->latency.min_ns, want->min_ms * 1000000);
    assert_int_equal(rep->latency.max_ns, want->max_ms * 1000000);
    assert_true(fabs(rep->latency.sum_ns - (double)want->sum_ms * 1e6) <= 2);
    assert_true(fabs(rep->wait_sum_s - (double)want->wait_ms * 1e-3) < 1e-12);
    assert_int_equal(rep->waited, want->waited);
    uint64_t batches = 0, requests = 0;
    for (uint32_t b = 0; b <= 4; b++) {
        assert_int_equal(rep->batch_size_counts[b], want->sizes[b]);
        batches += want->sizes[b];
        requests += b * want->sizes[b];
    }
    fs_batch_figures f = fs_results_batch_figures(r, 0, 0);
    assert_true(f.batches_per_rep == (double)batches && f.mean == (double)requests / (double)batches);
    assert_true(f.p50 == want->p50_size);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

/* (2) No preferred size:
 *   0 ms: one waits, the replica is free: wait for the delay (until 10 ms);
 *   3 ms: four wait = max: batch {0,1,2,3} runs 9 ms, ends at 12 ms;
 *   4 ms: the fifth waits (replica busy); 10 ms: the timer finds no replica;
 *   12 ms: latencies 12, 11, 10, 9 ms; the fifth has waited 8 ms < 10:
 *          wait until 4 + 10 = 14 ms;
 *   14 ms: batch {4} runs 6 ms, ends at 20 ms: latency 16 ms.
 * Latencies 9..12 and 16 ms (sum 58), waits 3+2+1+0+10 = 16 ms, four of the
 * five waited (the fourth started as it arrived), batches of 4 and 1 (p50:
 * the smallest size covering one of the two batches, 1). */
static void test_hand_schedule(void **state)
{
    (void)state;
    check_schedule(&(schedule){.preferred = "", .min_ms = 9, .max_ms = 16, .sum_ms = 58, .wait_ms = 16,
                               .waited = 4, .sizes = {0, 1, 0, 0, 1}, .p50_size = 1});
}

/* (2) Preferred size 2:
 *   0 ms: one waits, no preferred size: wait (timer at 10 ms);
 *   1 ms: two wait = preferred: batch {0,1}, 7 ms, ends at 8 ms;
 *   8 ms: latencies 8, 7; three wait (2, 3, 4): preferred 2: batch {2,3},
 *         7 ms, ends at 15 ms; 10 ms: the timer finds no replica;
 *   15 ms: latencies 13, 12; the fifth (4 ms) is past its delay (14 ms):
 *          batch {4}, 6 ms, ends at 21 ms: latency 17.
 * Latencies sum 8+7+13+12+17 = 57 ms; waits 1+0+6+5+11 = 23 ms, four
 * waited (the second started as it arrived); batches of 2, 2 and 1. */
static void test_hand_schedule_preferred(void **state)
{
    (void)state;
    check_schedule(&(schedule){.preferred = ", \"preferred_batch_sizes\": [2]", .min_ms = 7, .max_ms = 17,
                               .sum_ms = 57, .wait_ms = 23, .waited = 4, .sizes = {0, 1, 2, 0, 0},
                               .p50_size = 2});
}

/* The run table and results.json show the batch sizes of the first hand
 * schedule (batches of 4 and 1): mean 2.5, p50 1, p95 4. */
static void test_outputs(void **state)
{
    (void)state;
    char json[1024];
    snprintf(json, sizeof json, HAND_SCENARIO, "five.csv", "");
    test_write(test_path("%s/five.csv", dir), HAND_ARRIVALS);
    test_write(test_path("%s/hand.json", dir), json);
    assert_int_equal(test_fleetsim(dir, "run %s/hand.json", dir), 0);
    char *out = test_slurp("%s/out.txt", dir);
    assert_non_null(out);
    assert_non_null(strstr(out, "batches: service s: mean size 2.50 of max 4, p50 1, p95 4, largest 4; "
                                "2 batches per replication\n"));
    free(out);
    assert_int_equal(test_fleetsim(dir, "run %s/hand.json --format json --no-timing", dir), 0);
    out = test_slurp("%s/out.txt", dir);
    assert_non_null(out);
    const char *b = strstr(out, "\"batching\": {");
    assert_non_null(b);
    assert_non_null(strstr(b, "\"mean_size\": 2.5,"));
    assert_non_null(strstr(b, "\"p50_size\": 1,"));
    assert_non_null(strstr(b, "\"p95_size\": 4,"));
    free(out);
}

#define BATCH_8 \
    "\"batching\": {\"kind\": \"dynamic\", \"max_batch_size\": 8, \"max_queue_delay\": \"5ms\"," \
    " \"batch_time\": {\"linear\": {\"base\": \"10ms\", \"per_request\": \"2.5ms\"}}}"

/* (3) Overloaded, every batch is full: throughput is max_batch_size /
 * batch_time(max) per replica, 8 / 30 ms x 2 replicas; requests are
 * conserved (arrived + in flight at the start = completed + dropped + in
 * flight at the end); the capacity the run reports is the same figure. */
static void test_saturated_throughput(void **state)
{
    (void)state;
    fs_scenario *s = poisson_service(2000, 2, BATCH_8, 200, 4, ", \"queue_limit\": 500");
    fs_results *r = test_run(s);
    fs_service_summary sum;
    assert_int_equal(fs_results_service_summary(r, 0, 0, &sum), 0);
    double want = 2 * 8 / 0.030, measured = fs_results_measured_s(r);
    /* A run cuts at most one batch per replica at each end of the interval. */
    double edge = 2 * 2 * 8 / measured;
    printf("  saturated: %.3f req/s (CI +-%.3f) vs 8 / 30 ms x 2 = %.3f\n", sum.throughput_rps.mean,
           sum.throughput_rps.half_width, want);
    assert_true(fabs(sum.throughput_rps.mean - want) <= edge);
    assert_true(!(sum.throughput_rps.half_width > edge));
    assert_true(fabs(r->policies[0].loads[0].capacity_rps - want) < 1e-9 * want);
    for (uint32_t k = 0; k < 4; k++) {
        const fs_service_rep *rep = &r->policies[0].reps[k].services[0];
        assert_true(rep->dropped > 0);
        assert_int_equal(rep->requests + rep->in_flight_start, rep->completed + rep->dropped + rep->in_flight_end);
        for (uint32_t b = 1; b < 8; b++)
            assert_int_equal(rep->batch_size_counts[b], 0);
    }
    fs_batch_figures f = fs_results_batch_figures(r, 0, 0);
    assert_true(f.mean == 8 && f.p50 == 8);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

/* (3) Below capacity, Little's law on requests in system (waiting or in a
 * batch): time-average L = throughput x mean latency, and conservation. */
static void test_little_and_conservation(void **state)
{
    (void)state;
    fs_scenario *s = poisson_service(0.6 * 2 * 8 / 0.030, 2, BATCH_8, 2000, 2, "");
    fs_results *r = test_run(s);
    double measured = fs_results_measured_s(r);
    for (uint32_t k = 0; k < 2; k++) {
        const fs_service_rep *rep = &r->policies[0].reps[k].services[0];
        double w = fs_hist_mean(&rep->latency) * 1e-9, x = (double)rep->completed / measured;
        printf("  Little: L %.4f vs X W %.4f\n", rep->mean_in_system, x * w);
        assert_true(fabs(rep->mean_in_system - x * w) < 0.01 * rep->mean_in_system);
        assert_int_equal(rep->requests + rep->in_flight_start, rep->completed + rep->dropped + rep->in_flight_end);
        /* Below capacity some batches go out partly full at the delay. */
        uint64_t partial = 0;
        for (uint32_t b = 1; b < 8; b++)
            partial += rep->batch_size_counts[b];
        assert_true(partial > 0);
    }
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

/* Batch time scales with the unit as a service time does: saturated on one
 * 1g MIG slice, throughput is 8 / (30 ms x the replica's speed scale). */
static void test_mig_scale(void **state)
{
    (void)state;
    fs_scenario *s = test_scenario(
        "{\"schema\": \"fleetsim/1\", \"horizon\": 200, \"warmup\": 20, \"seed\": 3,"
        " \"pools\": [{\"name\": \"p\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 1, \"mig\": [\"1g.10gb\"]}],"
        " \"services\": [{\"name\": \"s\", \"arrivals\": {\"poisson_rps\": 2000}, \"queue_limit\": 500,"
        "   " BATCH_8 ", \"replicas\": 1}]}");
    fs_results *r = test_run(s);
    double scale = fs_placement_scale(r->policies[0].placement, 0, 0);
    assert_true(scale > 1.5);
    const fs_service_rep *rep = &r->policies[0].reps[0].services[0];
    double measured = fs_results_measured_s(r), want = 8 / (0.030 * scale);
    printf("  MIG 1g: %.3f req/s vs 8 / (30 ms x %.3f) = %.3f\n", (double)rep->completed / measured, scale, want);
    assert_true(fabs((double)rep->completed / measured - want) <= 2 * 8 / measured);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

/* Replicas that come and go: an autoscaler adds replicas for a burst and
 * drains them after (a batch in flight on a draining replica completes);
 * every request is still accounted for, and the SLO is judged. */
static void test_autoscaled_conservation(void **state)
{
    (void)state;
    fs_scenario *s = test_scenario(
        "{\"schema\": \"fleetsim/1\", \"horizon\": \"3h\", \"warmup\": \"10m\", \"seed\": 4, \"replications\": 2,"
        " \"pools\": [{\"name\": \"p\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 4}],"
        " \"services\": [{\"name\": \"s\", \"arrivals\": {\"poisson_rps\": 150,"
        "     \"bursts\": [{\"at\": \"1h\", \"multiplier\": 4, \"duration\": \"20m\"}]},"
        "   " BATCH_8 ", \"slo\": {\"p99_ms\": 60},"
        "   \"replicas\": {\"count\": 1, \"max\": 4, \"autoscale\": {\"target_in_flight\": 6, \"idle\": \"5m\"}}}]}");
    fs_results *r = test_run(s);
    for (uint32_t k = 0; k < 2; k++) {
        const fs_service_rep *rep = &r->policies[0].reps[k].services[0];
        assert_true(rep->replicas_added > 0);
        assert_true(rep->mean_ready_replicas > 1.0);
        assert_int_equal(rep->in_flight_start + rep->requests, rep->completed + rep->dropped + rep->in_flight_end);
        assert_int_equal(rep->latency.total, rep->completed);
        assert_true(rep->slo_windows > 0);
    }
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

/* (4) Every refusal names its JSON path and the reason. */
static void refused(const char *service, const char *want)
{
    char json[2048];
    snprintf(json, sizeof json,
             "{\"schema\": \"fleetsim/1\", \"horizon\": \"1h\","
             " \"pools\": [{\"name\": \"p\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 2}],"
             " \"services\": [{\"name\": \"s\", \"arrivals\": {\"poisson_rps\": 1}%s}]}",
             service);
    test_parse_refused(json, "test", FS_ERR_INPUT, want);
}

#define B(inner) ", \"batching\": {\"kind\": \"dynamic\", " inner "}"
#define LIN "\"batch_time\": {\"linear\": {\"base\": \"5ms\", \"per_request\": \"1ms\"}}"

static void test_refusals(void **state)
{
    (void)state;
    refused(B("\"max_batch_size\": 0, \"max_queue_delay\": 0, " LIN), "services[0].batching.max_batch_size");
    refused(B("\"max_batch_size\": -3, \"max_queue_delay\": 0, " LIN), "services[0].batching.max_batch_size");
    refused(B("\"max_batch_size\": 4097, \"max_queue_delay\": 0, " LIN), "services[0].batching.max_batch_size");
    refused(B("\"max_batch_size\": 4, " LIN), "services[0].batching: missing required key \"max_queue_delay\"");
    refused(B("\"max_batch_size\": 4, \"max_queue_delay\": \"-1ms\", " LIN),
            "services[0].batching.max_queue_delay");
    refused(B("\"max_batch_size\": 4, \"max_queue_delay\": 0"),
            "services[0].batching: missing required key \"batch_time\"");
    refused(", \"batching\": {\"kind\": \"static\", \"max_batch_size\": 4, \"max_queue_delay\": 0, " LIN "}",
            "services[0].batching.kind");
    refused(B("\"max_batch_size\": 4, \"max_queue_delay\": 0, "
              "\"batch_time\": {\"linear\": {\"base\": \"-5ms\", \"per_request\": \"1ms\"}}"),
            "services[0].batching.batch_time.linear.base");
    refused(B("\"max_batch_size\": 4, \"max_queue_delay\": 0, "
              "\"batch_time\": {\"linear\": {\"base\": 0, \"per_request\": -1}}"),
            "services[0].batching.batch_time.linear.per_request");
    refused(B("\"max_batch_size\": 4, \"max_queue_delay\": 0, "
              "\"batch_time\": {\"linear\": {\"base\": 0, \"per_request\": 0}}"),
            "services[0].batching.batch_time.linear: a batch must take some time");
    refused(B("\"max_batch_size\": 4, \"max_queue_delay\": 0, "
              "\"batch_time\": {\"linear\": {\"base\": 0, \"per_request\": 1}, \"table\": [[1, 1]]}"),
            "services[0].batching.batch_time: expected exactly one of \"linear\" and \"table\", got both");
    refused(B("\"max_batch_size\": 4, \"max_queue_delay\": 0, \"batch_time\": {}"),
            "services[0].batching.batch_time: expected exactly one of \"linear\" and \"table\", got neither");
    refused(B("\"max_batch_size\": 4, \"max_queue_delay\": 0, \"batch_time\": {\"table\": [[2, 1], [4, 2]]}"),
            "services[0].batching.batch_time.table[0][0]: the table must start at batch size 1");
    refused(B("\"max_batch_size\": 4, \"max_queue_delay\": 0, "
              "\"batch_time\": {\"table\": [[1, 1], [4, 2], [4, 3]]}"),
            "services[0].batching.batch_time.table[2][0]");
    refused(B("\"max_batch_size\": 4, \"max_queue_delay\": 0, "
              "\"batch_time\": {\"table\": [[1, 1], [3, 2], [2, 3]]}"),
            "services[0].batching.batch_time.table[2][0]");
    refused(B("\"max_batch_size\": 4, \"max_queue_delay\": 0, \"batch_time\": {\"table\": [[1, 1], [4, 0]]}"),
            "services[0].batching.batch_time.table[1][1]");
    refused(B("\"max_batch_size\": 4, \"max_queue_delay\": 0, \"batch_time\": {\"table\": [[1, 1], [4, \"-2ms\"]]}"),
            "services[0].batching.batch_time.table[1][1]");
    refused(B("\"max_batch_size\": 4, \"max_queue_delay\": 0, \"batch_time\": {\"table\": [[1, 1], 4]}"),
            "services[0].batching.batch_time.table[1]: expected a pair [batch size, duration]");
    refused(B("\"max_batch_size\": 8, \"max_queue_delay\": 0, \"batch_time\": {\"table\": [[1, 1], [4, 2]]}"),
            "services[0].batching.batch_time.table: the table ends at batch size 4, below \"max_batch_size\" (8)");
    refused(B("\"max_batch_size\": 4, \"max_queue_delay\": 0, \"batch_time\": {\"table\": []}"),
            "services[0].batching.batch_time.table");
    refused(B("\"max_batch_size\": 4, \"max_queue_delay\": 0, \"preferred_batch_sizes\": [8], " LIN),
            "services[0].batching.preferred_batch_sizes[0]");
    refused(B("\"max_batch_size\": 4, \"max_queue_delay\": 0, \"preferred_batch_sizes\": [2, 2], " LIN),
            "services[0].batching.preferred_batch_sizes[1]");
    refused(B("\"max_batch_size\": 4, \"max_queue_delay\": 0, \"preferred_batch_sizes\": [0], " LIN),
            "services[0].batching.preferred_batch_sizes[0]");
    refused(B("\"max_batch_size\": 4, \"max_queue_delay\": 0, \"typo\": 1, " LIN), "services[0].batching");
    refused(", \"replicas\": {\"count\": 1, \"concurrency\": 2}" B("\"max_batch_size\": 4, \"max_queue_delay\": 0, " LIN),
            "services[0].batching: a batched replica runs one batch at a time: \"replicas.concurrency\" must be 1");
    refused(", \"service_time\": {\"deterministic\": {\"value\": 1}}" B("\"max_batch_size\": 4, \"max_queue_delay\": 0, " LIN),
            "services[0].service_time: a batched service's time is \"batching.batch_time\"");
    refused("", "services[0]: missing required key \"service_time\"");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_batch_of_one_is_unbatched),
        cmocka_unit_test(test_batch_of_one_md1),
        cmocka_unit_test(test_hand_schedule),
        cmocka_unit_test(test_hand_schedule_preferred),
        cmocka_unit_test(test_outputs),
        cmocka_unit_test(test_saturated_throughput),
        cmocka_unit_test(test_little_and_conservation),
        cmocka_unit_test(test_mig_scale),
        cmocka_unit_test(test_autoscaled_conservation),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

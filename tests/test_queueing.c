/*
 * Validation against closed-form queueing theory, through the product path
 * (scenario JSON -> engine -> results), with fixed seeds.
 *
 * Sample sizes are chosen so that the statistical error is well inside the
 * tolerance: every comparison is made on the mean of independent
 * replications, and the test also requires the 95% confidence half-width to
 * be well below the tolerance, so a pass is a real agreement and not luck
 * with a noisy estimate.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "run.h"
#include "scenario.h"
#include "testutil.h"
#include "theory.h"

/* M/M/c with mean service 1 s on c servers at utilization rho. */
static fs_scenario *mmc(unsigned c, double rho, double horizon_s, double warmup_s, unsigned reps,
                        unsigned seed)
{
    return test_scenario("{\"schema\": \"fleetsim/1\", \"horizon\": %.3f, \"warmup\": %.3f, \"seed\": %u,"
                    " \"replications\": %u, \"window\": \"1h\","
                    " \"pools\": [{\"name\": \"p\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": %u}],"
                    " \"services\": [{\"name\": \"s\", \"arrivals\": {\"poisson_rps\": %.9f},"
                    "   \"service_time\": {\"exponential\": {\"mean\": 1}}, \"replicas\": %u}]}",
                    horizon_s, warmup_s, seed, reps, c, rho * c, c);
}

static void check_mmc_p99(unsigned c, double rho, double requests_per_rep, unsigned reps)
{
    double lambda = rho * c, mu = 1.0;
    fs_scenario *s = mmc(c, rho, requests_per_rep / lambda, 2000.0, reps, 11);
    fs_results *r = test_run(s);
    fs_service_summary sum;
    assert_int_equal(fs_results_service_summary(r, 0, 0, &sum), 0);
    double want_p99 = fs_theory_mmc_response_quantile(c, lambda, mu, 0.99) * 1e3;
    double want_pw = fs_theory_erlang_c(c, lambda, mu);
    double want_wait = fs_theory_mmc_mean_wait(c, lambda, mu) * 1e3;
    double rel_p99 = fabs(sum.p99_ms.mean - want_p99) / want_p99;
    double rel_merged = fabs(sum.merged_p99_ms - want_p99) / want_p99;
    printf("  M/M/%u rho=%.2f: p99 %.2f ms (merged %.2f, CI +-%.2f) vs Erlang C %.2f ms: %.2f%% off;"
           " P(wait) %.4f vs %.4f; mean wait %.2f vs %.2f ms\n",
           c, rho, sum.p99_ms.mean, sum.merged_p99_ms, sum.p99_ms.half_width, want_p99,
           100 * rel_p99, sum.wait_probability.mean, want_pw, sum.wait_mean_ms.mean, want_wait);
    assert_true(rel_p99 < 0.02);
    assert_true(rel_merged < 0.02);
    /* The estimate must be precise enough to judge a 2% tolerance.  At rho =
     * 0.95 the tail is so autocorrelated that 128 million requests give about
     * +-1.2%; at lower loads far fewer give well under 1%. */
    assert_true(sum.p99_ms.half_width / want_p99 < 0.015);
    assert_true(fabs(sum.wait_probability.mean - want_pw) < 0.02 * want_pw);
    assert_true(fabs(sum.wait_mean_ms.mean - want_wait) < 0.03 * want_wait);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

static void test_mmc_p99_rho_050(void **state) { (void)state; check_mmc_p99(10, 0.50, 4e5, 8); }
static void test_mmc_p99_rho_080(void **state) { (void)state; check_mmc_p99(10, 0.80, 1e6, 8); }
static void test_mmc_p99_rho_095(void **state) { (void)state; check_mmc_p99(10, 0.95, 8e6, 16); }

/* M/G/1: Pollaczek-Khinchine mean wait, for deterministic and gamma service. */
static void check_mg1(const char *service_time, double es, double es2, double rho, double requests,
                      unsigned reps)
{
    double lambda = rho / es;
    fs_scenario *s = test_scenario(
        "{\"schema\": \"fleetsim/1\", \"horizon\": %.3f, \"warmup\": 1000, \"seed\": 5,"
        " \"replications\": %u, \"window\": \"1h\","
        " \"pools\": [{\"name\": \"p\", \"gpu\": \"L4-24GB\", \"gpus\": 1}],"
        " \"services\": [{\"name\": \"s\", \"arrivals\": {\"poisson_rps\": %.9f},"
        "   \"service_time\": %s, \"replicas\": 1}]}",
        requests / lambda, reps, lambda, service_time);
    fs_results *r = test_run(s);
    fs_service_summary sum;
    assert_int_equal(fs_results_service_summary(r, 0, 0, &sum), 0);
    double want = fs_theory_mg1_mean_wait(lambda, es, es2) * 1e3;
    double rel = fabs(sum.wait_mean_ms.mean - want) / want;
    printf("  M/G/1 %s rho=%.2f: mean wait %.3f ms (CI +-%.3f) vs Pollaczek-Khinchine %.3f ms: %.2f%% off\n",
           service_time, rho, sum.wait_mean_ms.mean, sum.wait_mean_ms.half_width, want, 100 * rel);
    assert_true(rel < 0.02);
    assert_true(sum.wait_mean_ms.half_width / want < 0.01);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

static void test_md1_pollaczek_khinchine(void **state)
{
    (void)state;
    check_mg1("{\"deterministic\": {\"value\": 1}}", 1.0, 1.0, 0.8, 1e6, 8);
}

static void test_mg1_gamma_pollaczek_khinchine(void **state)
{
    (void)state; /* gamma, mean 1 s, cv 0.5: E[S^2] = 1.25 */
    check_mg1("{\"gamma\": {\"mean\": 1, \"cv\": 0.5}}", 1.0, 1.25, 0.7, 1e6, 8);
}

/* Little's law, L = lambda W, on a run with diurnal arrivals and several
 * replicas: it holds for any stable system, not just Markovian ones. */
static void test_littles_law(void **state)
{
    (void)state;
    fs_scenario *s = test_scenario(
        "{\"schema\": \"fleetsim/1\", \"horizon\": \"3d\", \"warmup\": \"1h\", \"seed\": 3,"
        " \"pools\": [{\"name\": \"p\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 4}],"
        " \"services\": [{\"name\": \"s\", \"arrivals\": {\"poisson_rps\": 30,"
        "   \"diurnal\": [0.3,0.3,0.3,0.3,0.4,0.5,0.7,0.9,1,1.1,1.2,1.2,1.2,1.2,1.1,1,1,1,0.9,0.8,0.7,0.5,0.4,0.3]},"
        "   \"service_time\": {\"lognormal\": {\"median\": \"80ms\", \"sigma\": 0.6}},"
        "   \"replicas\": {\"count\": 2, \"concurrency\": 2}}]}");
    fs_results *r = test_run(s);
    const fs_service_rep *rep = &r->policies[0].reps[0].services[0];
    double measured = fs_results_measured_s(r);
    double lambda = (double)rep->completed / measured;
    double w = fs_hist_mean(&rep->latency) * 1e-9;
    double rel = fabs(rep->mean_in_system - lambda * w) / rep->mean_in_system;
    printf("  Little: L = %.5f, lambda W = %.5f (%.3f%% apart)\n", rep->mean_in_system, lambda * w,
           100 * rel);
    assert_true(rel < 0.01);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

/* Every arrival is accounted for, exactly: with warm-up, drops and requests
 * still in flight at the horizon.  And GPU-seconds: busy + idle = provisioned. */
static void test_conservation(void **state)
{
    (void)state;
    fs_scenario *s = test_scenario(
        "{\"schema\": \"fleetsim/1\", \"horizon\": \"6h\", \"warmup\": \"30m\", \"seed\": 9,"
        " \"replications\": 3,"
        " \"pools\": [{\"name\": \"p\", \"gpu\": \"A100-SXM4-80GB\", \"gpus\": 6}],"
        " \"services\": [{\"name\": \"a\", \"pool\": \"p\", \"arrivals\": {\"poisson_rps\": 40,"
        "     \"bursts\": [{\"at\": \"2h\", \"multiplier\": 3, \"duration\": \"20m\"}]},"
        "   \"service_time\": {\"exponential\": {\"mean\": \"90ms\"}},"
        "   \"replicas\": {\"count\": 2, \"concurrency\": 2}, \"queue_limit\": 20},"
        "  {\"name\": \"b\", \"pool\": \"p\", \"arrivals\": {\"poisson_rps\": 5},"
        "   \"service_time\": {\"uniform\": {\"min\": \"100ms\", \"max\": \"500ms\"}}, \"replicas\": 3}]}");
    fs_results *r = test_run(s);
    uint64_t total_dropped = 0;
    for (uint32_t k = 0; k < 3; k++) {
        for (size_t i = 0; i < 2; i++) {
            const fs_service_rep *rep = &r->policies[0].reps[k].services[i];
            assert_true(rep->requests > 0);
            assert_int_equal(rep->in_flight_start + rep->requests,
                             rep->completed + rep->dropped + rep->in_flight_end);
            assert_int_equal(rep->latency.total, rep->completed);
            uint64_t window_arrivals = 0, window_completed = 0, window_dropped = 0;
            for (size_t w = 0; w < rep->n_windows; w++) {
                window_arrivals += rep->windows[w].arrivals;
                window_completed += rep->windows[w].completed;
                window_dropped += rep->windows[w].dropped;
            }
            assert_int_equal(window_arrivals, rep->requests);
            assert_int_equal(window_completed, rep->completed);
            assert_int_equal(window_dropped, rep->dropped);
            /* Every latency lands in its settling batch and its window, none
             * twice or lost (they pass through a buffer on the way): the
             * batches count the completions and the windows' largest
             * latency is the run's. */
            assert_int_equal(rep->batches_closed, FS_SETTLE_BATCHES);
            assert_int_equal(rep->batched, rep->completed);
            double window_max_ms = -1;
            for (size_t w = 0; w < rep->n_windows; w++)
                if (rep->windows[w].completed > 0 && rep->windows[w].max_ms > window_max_ms)
                    window_max_ms = rep->windows[w].max_ms;
            assert_true(window_max_ms == fs_results_hist_figure(&rep->latency, 2, 1e-6));
            total_dropped += rep->dropped;
        }
        const fs_pool_rep *pool = &r->policies[0].reps[k].pools[0];
        assert_true(fabs(pool->gpu_s - 6 * 5.5 * 3600) < 1e-6);
        assert_true(fabs(pool->busy_gpu_s + pool->idle_gpu_s - pool->gpu_s) < 1e-6 * pool->gpu_s);
        assert_true(pool->busy_gpu_s > 0 && pool->idle_gpu_s > 0);
    }
    assert_true(total_dropped > 0); /* the burst overflows the limit: drops are exercised */
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

/* queue_limit 0 makes a loss system: the drop fraction is Erlang B. */
static void test_erlang_b_loss(void **state)
{
    (void)state;
    fs_scenario *s = test_scenario(
        "{\"schema\": \"fleetsim/1\", \"horizon\": 200000, \"warmup\": 100, \"seed\": 4, \"replications\": 4,"
        " \"pools\": [{\"name\": \"p\", \"gpu\": \"L4-24GB\", \"gpus\": 5}],"
        " \"services\": [{\"name\": \"s\", \"arrivals\": {\"poisson_rps\": 4},"
        "   \"service_time\": {\"exponential\": {\"mean\": 1}}, \"replicas\": 5, \"queue_limit\": 0}]}");
    fs_results *r = test_run(s);
    fs_service_summary sum;
    assert_int_equal(fs_results_service_summary(r, 0, 0, &sum), 0);
    double got = sum.dropped.mean / sum.requests.mean, want = fs_theory_erlang_b(5, 4.0);
    printf("  Erlang B: drop fraction %.4f vs %.4f\n", got, want);
    assert_true(fabs(got - want) < 0.02 * want);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

/* Arrivals above capacity: the run completes, says the queue is unbounded,
 * and measures growth at about (lambda - c mu) per second. */
static void test_unstable_queue_reported(void **state)
{
    (void)state;
    fs_scenario *s = test_scenario(
        "{\"schema\": \"fleetsim/1\", \"horizon\": \"4h\", \"seed\": 2,"
        " \"pools\": [{\"name\": \"p\", \"gpu\": \"L4-24GB\", \"gpus\": 2}],"
        " \"services\": [{\"name\": \"s\", \"arrivals\": {\"poisson_rps\": 25},"
        "   \"service_time\": {\"exponential\": {\"mean\": \"100ms\"}}, \"replicas\": 2}]}");
    fs_results *r = test_run(s);
    fs_service_summary sum;
    assert_int_equal(fs_results_service_summary(r, 0, 0, &sum), 0);
    assert_true(sum.queue_unbounded);
    assert_true(fabs(r->policies[0].loads[0].offered_load - 1.25) < 1e-9);
    double want = (25.0 - 20.0) * 3600; /* requests per hour */
    printf("  unstable: queue growth %.0f/h vs %.0f/h\n", sum.queue_growth_per_h.mean, want);
    assert_true(fabs(sum.queue_growth_per_h.mean - want) < 0.05 * want);
    assert_true(sum.in_flight_end.mean > 0.9 * want * 4);
    fs_results_destroy(r);
    fs_scenario_destroy(s);

    /* ... and a stable one is not flagged. */
    s = mmc(4, 0.7, 20000, 0, 1, 1);
    r = test_run(s);
    assert_int_equal(fs_results_service_summary(r, 0, 0, &sum), 0);
    assert_false(sum.queue_unbounded);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

/* Common random numbers: the same seed gives the same arrivals and service
 * draws even when the fleet differs, so policies are compared pairwise. */
static void test_common_random_numbers(void **state)
{
    (void)state;
    fs_scenario *a = mmc(4, 0.6, 5000, 0, 1, 77), *b = mmc(4, 0.6, 5000, 0, 1, 77);
    b->services[0].replicas = 3; /* a different fleet, same workload */
    b->pools[0].gpus = 3;
    fs_results *ra = test_run(a), *rb = test_run(b);
    assert_int_equal(ra->policies[0].reps[0].services[0].requests,
                     rb->policies[0].reps[0].services[0].requests);
    fs_results_destroy(ra);
    fs_results_destroy(rb);
    fs_scenario_destroy(a);
    fs_scenario_destroy(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mmc_p99_rho_050),
        cmocka_unit_test(test_mmc_p99_rho_080),
        cmocka_unit_test(test_mmc_p99_rho_095),
        cmocka_unit_test(test_md1_pollaczek_khinchine),
        cmocka_unit_test(test_mg1_gamma_pollaczek_khinchine),
        cmocka_unit_test(test_littles_law),
        cmocka_unit_test(test_conservation),
        cmocka_unit_test(test_erlang_b_loss),
        cmocka_unit_test(test_unstable_queue_reported),
        cmocka_unit_test(test_common_random_numbers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

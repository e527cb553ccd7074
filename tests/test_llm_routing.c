/*
 * test_llm_routing — how requests reach an LLM service's replicas
 * ("routing"): with one replica every policy gives the central queue's
 * figures to the bit; routing conserves requests while replicas are lost
 * and autoscaled; prefix affinity finds cached prefixes more often than
 * least-loaded routing; and a bad policy is refused.
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

#include "results.h"
#include "scenario.h"
#include "testutil.h"

static const char *const routings[] = {"central", "round_robin", "least_loaded", "prefix_affinity"};

static fs_scenario *routed(const char *routing, unsigned replicas, double rps, const char *pool_extra,
                           const char *replica_spec, const char *service_extra)
{
    return test_scenario(
        "{\"schema\": \"fleetsim/1\", \"name\": \"route\", \"horizon\": \"3h\", \"warmup\": \"10m\","
        " \"window\": \"10m\", \"replications\": 1, \"seed\": 21,"
        " \"pools\": [{\"name\": \"p\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": %u %s}],"
        " \"services\": [{\"name\": \"llm\", \"pool\": \"p\", \"arrivals\": {\"poisson_rps\": %g,"
        "     \"bursts\": [{\"at\": \"1h\", \"multiplier\": 3, \"duration\": \"20m\"}]},"
        "   \"replicas\": %s,"
        "   \"batching\": {\"kind\": \"continuous\", \"model\": \"Llama-3-8B\", \"max_seqs\": 48,"
        "     \"routing\": \"%s\","
        "     \"step_time\": {\"linear\": {\"c0\": \"6ms\", \"c_prefill\": \"0.06ms\", \"c_decode\": \"0.08ms\","
        "       \"c_kv\": \"0.00001ms\"}},"
        "     \"prompt_tokens\": {\"lognormal\": {\"median\": 1200, \"sigma\": 0.5}},"
        "     \"output_tokens\": {\"lognormal\": {\"median\": 150, \"sigma\": 0.6}},"
        "     \"prefix\": {\"groups\": 300, \"tokens\": 900, \"zipf\": 0.9}} %s}]}",
        replicas, pool_extra, rps, replica_spec, routing, service_extra);
}

static const fs_service_rep *rep0(const fs_results *r) { return &r->policies[0].reps[0].services[0]; }

/* One replica: every request goes to it, and it takes them at the same
 * step boundaries whether they wait centrally or in its own queue. */
static void test_one_replica_same_as_central(void **state)
{
    (void)state;
    fs_results *r[4];
    fs_scenario *s[4];
    for (int k = 0; k < 4; k++) {
        s[k] = routed(routings[k], 1, 3, "", "{\"count\": 1}", "");
        r[k] = test_run(s[k]);
    }
    for (int k = 1; k < 4; k++) {
        assert_int_equal(rep0(r[k])->completed, rep0(r[0])->completed);
        assert_int_equal(rep0(r[k])->steps, rep0(r[0])->steps);
        assert_true(rep0(r[k])->ttft.sum_ns == rep0(r[0])->ttft.sum_ns);
        assert_true(rep0(r[k])->latency.sum_ns == rep0(r[0])->latency.sum_ns);
        assert_int_equal(rep0(r[k])->prefill_cached, rep0(r[0])->prefill_cached);
        assert_int_equal(rep0(r[k])->in_flight_end, rep0(r[0])->in_flight_end);
    }
    for (int k = 0; k < 4; k++) {
        fs_results_destroy(r[k]);
        fs_scenario_destroy(s[k]);
    }
}

/* Replicas come and go (spot reclaims, an autoscaler); every request is
 * accounted for under every policy. */
static void test_conservation(void **state)
{
    (void)state;
    for (int k = 0; k < 4; k++) {
        fs_scenario *s = routed(routings[k], 4, 6,
                                ", \"class\": \"spot\", \"price\": \"spot\", \"reclaim_per_hour\": 1,"
                                " \"autoscale\": {\"min\": 1, \"max\": 4, \"provision\": {\"deterministic\": {\"value\": \"60s\"}}}",
                                "{\"count\": 2, \"max\": 4, \"autoscale\": {\"target_in_flight\": 30, \"idle\": \"5m\"}}", "");
        fs_results *r = test_run(s);
        const fs_rep_result *rr = &r->policies[0].reps[0];
        const fs_service_rep *rep = rep0(r);
        printf("  %-16s completed %llu, reclaims %llu, replicas added %llu, hit %.3f\n", routings[k],
               (unsigned long long)rep->completed, (unsigned long long)rr->spot_reclaims,
               (unsigned long long)rep->replicas_added, (double)rep->prefill_cached / (double)rep->prefill_queried);
        assert_true(rr->spot_reclaims > 0);
        assert_int_equal(rep->in_flight_start + rep->requests, rep->completed + rep->dropped + rep->in_flight_end);
        assert_int_equal(rep->latency.total, rep->completed);
        fs_results_destroy(r);
        fs_scenario_destroy(s);
    }
}

/* Four replicas, 300 prefix groups, caches of 4,000 blocks (about 70 of
 * the groups' prefixes each): sending a request where its prefix is cached
 * lets the replicas share the groups out, so it finds its prefix cached
 * more often than when it goes to the least loaded replica, whose cache
 * must hold every group. */
static void test_affinity_raises_hits(void **state)
{
    (void)state;
    double ratio[2];
    for (int k = 0; k < 2; k++) {
        char memory[128];
        snprintf(memory, sizeof memory, ", \"memory_gb\": %.12f",
                 (8030261248.0 * 2 + 4000.0 * 16 * 131072) / (1024.0 * 1024.0 * 1024.0));
        fs_scenario *s = routed(k ? "prefix_affinity" : "least_loaded", 4, 12, "", "{\"count\": 4}", memory);
        fs_results *r = test_run(s);
        const fs_service_rep *rep = rep0(r);
        ratio[k] = (double)rep->prefill_cached / (double)rep->prefill_queried;
        assert_int_equal(rep->in_flight_start + rep->requests, rep->completed + rep->dropped + rep->in_flight_end);
        fs_results_destroy(r);
        fs_scenario_destroy(s);
    }
    printf("  hit ratio: least loaded %.3f, prefix affinity %.3f\n", ratio[0], ratio[1]);
    assert_true(ratio[1] > ratio[0] + 0.05);
}

static void test_refusal(void **state)
{
    (void)state;
    test_parse_refused(
        "{\"schema\": \"fleetsim/1\", \"name\": \"x\", \"horizon\": \"1h\","
        " \"pools\": [{\"name\": \"p\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 1}],"
        " \"services\": [{\"name\": \"llm\", \"pool\": \"p\", \"arrivals\": {\"poisson_rps\": 1},"
        "   \"batching\": {\"kind\": \"continuous\", \"model\": \"Llama-3-8B\", \"routing\": \"random\","
        "     \"step_time\": {\"linear\": {\"c0\": \"5ms\", \"c_prefill\": \"0.1ms\", \"c_decode\": \"0.1ms\"}},"
        "     \"prompt_tokens\": {\"deterministic\": {\"value\": 100}},"
        "     \"output_tokens\": {\"deterministic\": {\"value\": 10}}}}]}",
        "x.json", FS_ERR_INPUT, "services[0].batching.routing");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_replica_same_as_central),
        cmocka_unit_test(test_conservation),
        cmocka_unit_test(test_affinity_raises_hits),
        cmocka_unit_test(test_refusal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

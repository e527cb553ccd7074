/*
 * Replications merged as they finish (issue 18): each replication's
 * histograms go into its policy's as it ends and every output reads the
 * merged histograms and the figures kept per replication, so freeing the
 * replications' own counters (what a run does past FS_RESULTS_KEEP_HIST_BYTES)
 * changes no byte of results.json or compare.json.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "compare.h"
#include "metrics.h"
#include "results_json.h"
#include "run.h"
#include "testutil.h"

/* Two policies, three replications; an SLO (its verdict reads the merged
 * histogram) and a training stream (queue waits); %s: more services. */
#define SCENARIO                                                                                          \
    "{\"schema\": \"fleetsim/1\", \"horizon\": \"20m\", \"warmup\": \"1m\", \"seed\": 5,"                 \
    " \"replications\": %d, \"window\": \"2m\","                                                          \
    " \"policies\": {"                                                                                   \
    "   \"four\": {\"pools\": [{\"name\": \"p\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 4}]},"             \
    "   \"three\": {\"pools\": [{\"name\": \"p\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 3}]}},"           \
    " \"services\": ["                                                                                   \
    "   {\"name\": \"a\", \"memory_gb\": 30, \"arrivals\": {\"poisson_rps\": 40},"                        \
    "    \"service_time\": {\"exponential\": {\"mean\": \"40ms\"}}, \"replicas\": 2,"                     \
    "    \"slo\": {\"p99_ms\": 200}},"                                                                    \
    "   {\"name\": \"b\", \"memory_gb\": 30, \"arrivals\": {\"poisson_rps\": 5},"                         \
    "    \"service_time\": {\"lognormal\": {\"median\": \"100ms\", \"sigma\": 0.5}}, \"replicas\": 1}%s],"  \
    " \"training\": [{\"name\": \"t\", \"gang\": 1, \"work_gpu_hours\": 0.05, \"state_gb_per_gpu\": 2,"  \
    "   \"submit\": {\"at\": [\"2m\", \"3m\", \"4m\"]}}]}"

static char *dump(json_t *j)
{
    assert_non_null(j);
    char *s = json_dumps(j, JSON_SORT_KEYS | JSON_REAL_PRECISION(17));
    assert_non_null(s);
    json_decref(j);
    return s;
}

/* What seal does past the budget, to every replication of every policy. */
static void drop_all(fs_results *r)
{
    const fs_scenario *s = r->scenario;
    for (size_t p = 0; p < r->n_policies; p++)
        for (uint32_t k = 0; k < r->policies[p].n_reps; k++) {
            fs_rep_result *rep = &r->policies[p].reps[k];
            assert_true(rep->sealed);
            for (size_t i = 0; i < s->n_services; i++) {
                fs_hist_drop_counts(&rep->services[i].latency);
                fs_hist_drop_counts(&rep->services[i].ttft);
                fs_hist_drop_counts(&rep->services[i].tpot);
            }
            for (size_t i = 0; i < s->n_training; i++)
                fs_hist_drop_counts(&rep->training[i].wait);
            rep->counts_dropped = true;
        }
}

/* The merged histogram is the replications' own merged in order, exactly. */
static void test_merged_is_the_replications(void **state)
{
    (void)state;
    fs_scenario *s = test_scenario(SCENARIO, 3, "");
    fs_results *r = test_run(s);
    for (size_t p = 0; p < r->n_policies; p++) {
        const fs_policy_result *pol = &r->policies[p];
        for (size_t i = 0; i < s->n_services; i++) {
            fs_hist h;
            fs_hist_init(&h);
            for (uint32_t k = 0; k < pol->n_reps; k++) {
                assert_false(pol->reps[k].counts_dropped); /* a small run keeps them */
                assert_int_equal(fs_hist_merge(&h, &pol->reps[k].services[i].latency), 0);
            }
            assert_true(h.total > 0);
            assert_int_equal(h.total, pol->latency[i].total);
            assert_true(h.sum_ns == pol->latency[i].sum_ns);
            test_assert_same_counts(&h, &pol->latency[i]);
            fs_hist_fini(&h);
        }
        assert_true(pol->wait[0].total > 0);
    }
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

/* Without the replications' counters every output is the same, byte for
 * byte; only a run record of one replication of several needs them, and
 * says so instead of inventing one. */
static void test_outputs_without_replication_counters(void **state)
{
    (void)state;
    fs_scenario *s = test_scenario(SCENARIO, 3, "");
    fs_results *r = test_run(s);
    char *res = dump(fs_results_json(r, false)), *cmp = dump(fs_compare_json(r));
    fs_service_summary before;
    assert_int_equal(fs_results_service_summary(r, 1, 0, &before), 0);

    drop_all(r);
    assert_int_equal(fs_hist_bytes(&r->policies[0].reps[1].services[0].latency), 0);
    /* Count, extremes and mean stay with the replication. */
    assert_true(r->policies[0].reps[1].services[0].latency.total > 0);
    char *res2 = dump(fs_results_json(r, false)), *cmp2 = dump(fs_compare_json(r));
    assert_string_equal(res, res2);
    assert_string_equal(cmp, cmp2);
    fs_service_summary after;
    assert_int_equal(fs_results_service_summary(r, 1, 0, &after), 0);
    assert_true(after.merged_p99_ms == before.merged_p99_ms);
    assert_int_equal(after.slo_verdict[0], before.slo_verdict[0]);

    fs_metrics m;
    fs_error err = {0};
    assert_int_equal(fs_metrics_from_run(r, 0, 1, &m, &err), FS_ERR_RUNTIME);
    assert_non_null(strstr(err.msg, "replication 1's histograms were merged"));
    free(res), free(res2), free(cmp), free(cmp2);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

/* With one replication the merged histograms are that replication's: its
 * run record (what a sweep stores) is the same with or without its own. */
static void test_single_replication_record(void **state)
{
    (void)state;
    fs_scenario *s = test_scenario(SCENARIO, 1, "");
    fs_results *r = test_run(s);
    fs_metrics a, b;
    fs_error err = {0};
    assert_int_equal(fs_metrics_from_run(r, 1, 0, &a, &err), FS_OK);
    drop_all(r);
    assert_int_equal(fs_metrics_from_run(r, 1, 0, &b, &err), FS_OK);
    assert_int_equal(a.n_values, b.n_values);
    for (size_t i = 0; i < a.n_values; i++)
        assert_true(memcmp(&a.values[i], &b.values[i], sizeof(double)) == 0);
    assert_int_equal(a.n_hists, b.n_hists);
    for (size_t h = 0; h < a.n_hists; h++) {
        assert_int_equal(a.hists[h].total, b.hists[h].total);
        test_assert_same_counts(&a.hists[h], &b.hists[h]);
    }
    fs_metrics_fini(&a);
    fs_metrics_fini(&b);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

/* A batched service: its batch sizes per replication live beside a spilled
 * record and must come back with it.  It takes policy "four"'s last GPU. */
#define BATCHED                                                                                           \
    ", {\"name\": \"c\", \"memory_gb\": 30, \"arrivals\": {\"poisson_rps\": 20}, \"replicas\": 1," \
    "   \"batching\": {\"kind\": \"dynamic\", \"max_batch_size\": 4, \"max_queue_delay\": \"10ms\","           \
    "     \"batch_time\": {\"linear\": {\"base\": \"5ms\", \"per_request\": \"1ms\"}}}}"

/* The scenario run with windows going nowhere (a sink, as fleetsim run
 * has: rows kept in memory would keep a replication's records there) and
 * the given budgets (0: the defaults). */
static fs_results *run_keeping(const fs_scenario *s, const char *policy, size_t keep_bytes)
{
    static const fs_window_sink nowhere = {0};
    fs_run_watch watch = {.windows = &nowhere, .keep_bytes = keep_bytes};
    fs_results *r = NULL;
    fs_error err = {0};
    if (fs_run_watched(s, policy ? &policy : NULL, policy ? 1 : 0, &watch, &r, &err) != FS_OK)
        fail_msg("run: %s", err.msg);
    return r;
}

/* Past the budgets, sealed replications' records go to a scratch file and
 * the merged histograms wait on disk between replications, read back one
 * by one at the next seal and whole by the first reader: every output is
 * the same, byte for byte, as a run that kept everything in memory. */
static void test_outputs_from_disk(void **state)
{
    (void)state;
    fs_scenario *s = test_scenario(SCENARIO, 3, "");
    fs_results *mem = run_keeping(s, NULL, 0), *disk = run_keeping(s, NULL, 1);
    for (size_t p = 0; p < disk->n_policies; p++)
        for (uint32_t k = 0; k < disk->policies[p].n_reps; k++) {
            assert_non_null(mem->policies[p].reps[k].services);
            assert_null(disk->policies[p].reps[k].services); /* spilled */
            assert_true(disk->policies[p].reps[k].counts_dropped);
        }
    /* The first policy parked after its last replication (another policy
     * followed); the last one never parks after its last. */
    assert_true(fs_results__parked(&disk->policies[0]));
    assert_false(fs_results__parked(&disk->policies[1]));
    assert_non_null(disk->policies[1].park); /* it parked between its own replications */
    char *a = dump(fs_results_json(mem, false)), *b = dump(fs_results_json(disk, false));
    assert_false(fs_results__parked(&disk->policies[0]));
    assert_string_equal(a, b);
    char *ca = dump(fs_compare_json(mem)), *cb = dump(fs_compare_json(disk));
    assert_string_equal(ca, cb);
    /* A record read back is the one kept in memory, field by field. */
    for (uint32_t k = 0; k < 3; k++)
        for (size_t i = 0; i < s->n_services; i++) {
            double fm[FS_SFIG_COUNT], fd[FS_SFIG_COUNT];
            fs_results_service_figures(mem, 1, k, i, fm);
            fs_results_service_figures(disk, 1, k, i, fd);
            assert_memory_equal(fm, fd, sizeof fm);
            const fs_service_rep *x = fs_results_service_rep(mem, 1, k, i), *y = fs_results_service_rep(disk, 1, k, i);
            assert_int_equal(x->completed, y->completed);
            assert_memory_equal(x->latency_figs, y->latency_figs, sizeof x->latency_figs);
        }
    assert_int_equal(fs_results_spill_error(disk), 0);
    free(a), free(b), free(ca), free(cb);
    fs_results_destroy(mem);
    fs_results_destroy(disk);
    fs_scenario_destroy(s);
}

/* A batched service's batch sizes come back with its spilled records. */
static void test_batched_from_disk(void **state)
{
    (void)state;
    fs_scenario *s = test_scenario(SCENARIO, 2, BATCHED);
    fs_results *mem = run_keeping(s, "four", 0), *disk = run_keeping(s, "four", 1);
    assert_null(disk->policies[0].reps[1].services);
    fs_batch_figures a = fs_results_batch_rep_figures(mem, 0, 1, 2), b = fs_results_batch_rep_figures(disk, 0, 1, 2);
    assert_true(a.batches_per_rep > 0);
    assert_memory_equal(&a, &b, sizeof a);
    char *ja = dump(fs_results_json(mem, false)), *jb = dump(fs_results_json(disk, false));
    assert_string_equal(ja, jb);
    free(ja), free(jb);
    fs_results_destroy(mem);
    fs_results_destroy(disk);
    fs_scenario_destroy(s);
}

/* A run of one replication whose records went to disk records the same run
 * (what a sweep stores) as one that kept them. */
static void test_single_replication_from_disk(void **state)
{
    (void)state;
    fs_scenario *s = test_scenario(SCENARIO, 1, "");
    fs_results *mem = run_keeping(s, NULL, 0), *disk = run_keeping(s, NULL, 1);
    assert_null(disk->policies[0].reps[0].services);
    fs_metrics a, b;
    fs_error err = {0};
    assert_int_equal(fs_metrics_from_run(mem, 0, 0, &a, &err), FS_OK);
    assert_int_equal(fs_metrics_from_run(disk, 0, 0, &b, &err), FS_OK);
    assert_int_equal(a.n_values, b.n_values);
    for (size_t i = 0; i < a.n_values; i++)
        assert_true(memcmp(&a.values[i], &b.values[i], sizeof(double)) == 0);
    fs_metrics_fini(&a);
    fs_metrics_fini(&b);
    fs_results_destroy(mem);
    fs_results_destroy(disk);
    fs_scenario_destroy(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_merged_is_the_replications),
        cmocka_unit_test(test_outputs_without_replication_counters),
        cmocka_unit_test(test_single_replication_record),
        cmocka_unit_test(test_outputs_from_disk),
        cmocka_unit_test(test_batched_from_disk),
        cmocka_unit_test(test_single_replication_from_disk),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

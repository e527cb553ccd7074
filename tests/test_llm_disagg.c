/*
 * test_llm_disagg — prefill/decode disaggregation ("disaggregation"): an
 * engine receiving a prefilled request decodes exactly its remaining
 * tokens; on a deterministic case the KV transfer (latency + bytes /
 * bandwidth) adds exactly to TTFT and end-to-end latency and nothing to
 * TPOT; transfers from one replica queue on its link (FIFO); requests and
 * GPU-seconds are conserved while decode replicas are lost; and bad
 * settings are refused with their JSON path.
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

#include "llm_engine.h"
#include "llm_perf.h"
#include "results.h"
#include "scenario.h"
#include "testutil.h"

/* A received request (prompt 10 in 4-token blocks, output 4) is admitted on
 * the blocks of its 10 + 1 tokens, emits no first token (it came with the
 * KV) and finishes after exactly 3 decodes; its steps run no prefill. */
static void test_engine_received(void **state)
{
    (void)state;
    fs_llm_seq running[4], waiting[8];
    fs_llm_event events[FS_LLM_EVENTS_MAX(4)];
    fs_llm_engine e;
    fs_llm_config cfg = {4, 100, 64, 4, FS_LLM_KV_PREEMPT};
    fs_error err = {0};
    fs_llm_step_model m = {.kind = FS_LLM_STEP_LINEAR, .c0 = 1, .c_prefill = 0.1, .c_decode = 0.5,
                           .c_kv = 0, .compute_share = 1, .bandwidth_share = 1};
    assert_int_equal(fs_llm_engine_init(&e, &cfg, running, waiting, 8, "e", &err), 0);
    assert_int_equal(fs_llm_engine_enqueue_received(&e, 7, 10, 1, "e", &err), FS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "decodes left"));
    assert_int_equal(fs_llm_engine_enqueue_received(&e, 7, 10, 4, "e", &err), 0);
    int decodes = 0, admitted = 0, first = 0, finished = 0;
    for (int step = 0; step < 10; step++) {
        fs_llm_step_out out = {.events = events};
        fs_llm_engine_step(&e, &m, &out);
        if (out.idle)
            break;
        assert_int_equal(out.batch.prefill_tokens, 0);
        decodes += (int)out.batch.decodes;
        if (step == 0)
            assert_int_equal(out.blocks_in_step, 3); /* 11 tokens of KV in 4-token blocks */
        for (size_t i = 0; i < out.n_events; i++) {
            admitted += out.events[i].kind == FS_LLM_ADMITTED;
            first += out.events[i].kind == FS_LLM_FIRST_TOKEN;
            finished += out.events[i].kind == FS_LLM_FINISHED;
        }
    }
    assert_int_equal(decodes, 3);
    assert_int_equal(admitted, 1);
    assert_int_equal(first, 0);
    assert_int_equal(finished, 1);
    assert_int_equal(e.free_blocks, 64);
}

/* One prefill replica (and, disaggregated, one decode replica) of a toy
 * model on H100s; requests from the trace file `csv`. */
static fs_scenario *pd_scenario(const char *csv, const char *disagg, const char *pool_extra)
{
    return test_scenario(
        "{\"schema\": \"fleetsim/1\", \"name\": \"pd\", \"horizon\": \"2h\", \"warmup\": \"0s\","
        " \"window\": \"10m\", \"replications\": 1, \"seed\": 9,"
        " \"pools\": [{\"name\": \"p\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 1},"
        "   {\"name\": \"d\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 1 %s}],"
        " \"services\": [{\"name\": \"llm\", \"pool\": \"p\","
        "   \"arrivals\": {\"trace\": {\"file\": \"%s\", \"time\": \"t\", \"sizes\": [\"p\", \"o\"]}},"
        "   \"replicas\": 1,"
        "   \"batching\": {\"kind\": \"continuous\", \"model\": \"Llama-3-8B\", \"max_seqs\": 32,"
        "     \"step_time\": {\"linear\": {\"c0\": \"5ms\", \"c_prefill\": \"0.05ms\", \"c_decode\": \"0.1ms\","
        "       \"c_kv\": \"0.00001ms\"}}} %s}]}",
        pool_extra, csv, disagg);
}

/* Writes `n` requests of prompt `prompt` and output 20, `gap` seconds
 * apart (`burst` at each instant) into DIR/t.csv. */
static void write_trace(const char *dir, unsigned n, unsigned gap, unsigned burst, unsigned prompt)
{
    char *csv = malloc(32 * (size_t)n * burst + 16);
    size_t at = (size_t)sprintf(csv, "t,p,o\n");
    for (unsigned i = 0; i < n; i++)
        for (unsigned b = 0; b < burst; b++)
            at += (size_t)sprintf(csv + at, "%u,%u,20\n", i * gap, prompt);
    test_write(test_path("%s/t.csv", dir), csv);
    free(csv);
}

#define LINK ", \"disaggregation\": {\"decode\": {\"pool\": \"d\", \"replicas\": 1}," \
             " \"link\": {\"bandwidth_gb_s\": 50, \"latency_us\": 20}}"

/*
 * Requests 10 s apart never meet.  Aggregated, TTFT is one prefill step and
 * the 19 decodes follow; disaggregated, the prefill step is the same (one
 * chunk of 1,200 tokens), the KV of 1,200 tokens x 131,072 bytes (Llama-3-
 * 8B: 2 x 32 layers x 8 KV heads x 128 x 2 bytes) crosses 50 GB/s after
 * 20 us, and the decode replica runs the same 19 decodes over the same KV.
 * So TTFT and end-to-end grow by exactly 20 us + 157,286,400 B / 50e9 B/s =
 * 3.16573 ms, and TPOT does not move.
 */
static void test_transfer_adds_exactly_to_ttft(void **state)
{
    (void)state;
    char dir[256];
    assert_int_equal(test_tmpdir(dir, sizeof dir, "fs-pd"), 0);
    write_trace(dir, 600, 10, 1, 1200);
    const char *csv = test_path("%s/t.csv", dir);
    fs_scenario *agg = pd_scenario(csv, "", ""), *pd = pd_scenario(csv, LINK, "");
    fs_results *ra = test_run(agg), *rp = test_run(pd);
    const fs_service_rep *a = &ra->policies[0].reps[0].services[0], *d = &rp->policies[0].reps[0].services[0];
    assert_int_equal(a->completed, 600);
    assert_int_equal(d->completed, 600);
    assert_int_equal(d->kv_transfers, 600);
    double bytes = 1200 * fs_llm_kv_bytes_per_token(&pd->services[0].batching.llm.model);
    assert_true(bytes == 1200.0 * 131072);
    double transfer_ns = (20e-6 + bytes / 50e9) * 1e9;
    /* Every request alike: min = max, each rounded to the nanosecond. */
    assert_int_equal(a->ttft.min_ns, a->ttft.max_ns);
    assert_int_equal(d->ttft.min_ns, d->ttft.max_ns);
    assert_true(fabs((double)d->ttft.max_ns - (double)a->ttft.max_ns - transfer_ns) <= 1);
    assert_true(fabs((double)d->latency.max_ns - (double)a->latency.max_ns - transfer_ns) <= 1);
    assert_true(fabs((double)d->tpot.max_ns - (double)a->tpot.max_ns) <= 1);
    assert_true(fabs(d->kv_transfer_s / 600 * 1e9 - transfer_ns) < 1e-3);
    double fig[FS_LFIG_COUNT];
    fs_results_llm_figures(rp, 0, 0, 0, fig);
    assert_true(fabs(fig[FS_LFIG_KV_TRANSFER_MS] - transfer_ns * 1e-6) < 1e-9);
    fs_results_llm_figures(ra, 0, 0, 0, fig);
    assert_true(isnan(fig[FS_LFIG_KV_TRANSFER_MS]));
    /* The same tokens, twice the GPUs held: twice the cost per token. */
    double cost_agg = fig[FS_LFIG_COST_PER_M_TOKENS];
    fs_results_llm_figures(rp, 0, 0, 0, fig);
    assert_true(fabs(fig[FS_LFIG_COST_PER_M_TOKENS] / cost_agg - 2) < 1e-9);
    fs_results_destroy(ra);
    fs_results_destroy(rp);
    fs_scenario_destroy(agg);
    fs_scenario_destroy(pd);
    test_rmdir(dir);
}

/* Four requests of 600 tokens at once: the first starts the idle prefill
 * replica's step alone (the others arrive while it runs), the other three
 * prefill together in the next step (1,800 tokens within the budget of
 * 2,048), and their KV then leaves over one link, one after the other: 1,
 * 2 and 3 transfer times after that step (the latency once each,
 * pipelined).  The first one's transfer ended long before (1.6 ms against
 * a 35 ms step). */
static void test_link_is_fifo(void **state)
{
    (void)state;
    char dir[256];
    assert_int_equal(test_tmpdir(dir, sizeof dir, "fs-pd"), 0);
    write_trace(dir, 100, 30, 4, 600);
    fs_scenario *pd = pd_scenario(test_path("%s/t.csv", dir), LINK, "");
    fs_results *r = test_run(pd);
    const fs_service_rep *d = &r->policies[0].reps[0].services[0];
    assert_int_equal(d->kv_transfers, 400);
    double wire = 600.0 * 131072 / 50e9, latency = 20e-6;
    double expected = 100 * ((wire + latency) + (wire + latency) + (2 * wire + latency) + (3 * wire + latency));
    assert_true(fabs(d->kv_transfer_s - expected) < 1e-9);
    fs_results_destroy(r);
    fs_scenario_destroy(pd);
    test_rmdir(dir);
}

/* A decode pool on spot GPUs loses replicas: their requests are prefilled
 * and sent again, none is lost, and every pool's GPU-seconds add up. */
static void test_conserved_while_decode_is_lost(void **state)
{
    (void)state;
    fs_scenario *s = test_scenario(
        "{\"schema\": \"fleetsim/1\", \"name\": \"pd-lost\", \"horizon\": \"3h\", \"warmup\": \"10m\","
        " \"window\": \"10m\", \"replications\": 1, \"seed\": 5,"
        " \"pools\": [{\"name\": \"p\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 2},"
        "   {\"name\": \"d\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 6, \"class\": \"spot\", \"price\": \"spot\","
        "    \"reclaim_per_hour\": 0.5}],"
        " \"services\": [{\"name\": \"llm\", \"pool\": \"p\", \"arrivals\": {\"poisson_rps\": 4},"
        "   \"replicas\": 2, \"slo\": {\"ttft_p99_ms\": 500, \"tpot_p99_ms\": 50},"
        "   \"batching\": {\"kind\": \"continuous\", \"model\": \"Llama-3-8B\", \"max_seqs\": 48,"
        "     \"routing\": \"least_loaded\","
        "     \"step_time\": {\"linear\": {\"c0\": \"6ms\", \"c_prefill\": \"0.06ms\", \"c_decode\": \"0.08ms\","
        "       \"c_kv\": \"0.00001ms\"}},"
        "     \"prompt_tokens\": {\"lognormal\": {\"median\": 1200, \"sigma\": 0.5}},"
        "     \"output_tokens\": {\"lognormal\": {\"median\": 150, \"sigma\": 0.6}}},"
        "   \"disaggregation\": {\"decode\": {\"pool\": \"d\", \"replicas\": 6},"
        "     \"link\": {\"bandwidth_gb_s\": 50, \"latency_us\": 20}}}]}");
    fs_results *r = test_run(s);
    const fs_rep_result *rr = &r->policies[0].reps[0];
    const fs_service_rep *d = &rr->services[0];
    assert_true(rr->spot_reclaims > 0);
    assert_true(d->completed > 0);
    assert_true(d->kv_transfers >= d->completed); /* resent after a loss */
    assert_int_equal(d->in_flight_start + d->requests, d->completed + d->dropped + d->in_flight_end);
    assert_true(d->mean_ready_decode < 6);
    for (size_t p = 0; p < 2; p++) {
        const fs_pool_rep *pr = &rr->pools[p];
        assert_true(fabs(pr->busy_gpu_s + pr->switching_gpu_s + pr->idle_gpu_s - pr->gpu_s) < 1e-6 * pr->gpu_s);
        assert_true(pr->busy_gpu_s > 0);
    }
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

static void refused(const char *disagg, const char *replicas, const char *batching, const char *want)
{
    char json[2048];
    snprintf(json, sizeof json,
             "{\"schema\": \"fleetsim/1\", \"name\": \"bad\", \"horizon\": \"1h\","
             " \"pools\": [{\"name\": \"p\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 4}],"
             " \"services\": [{\"name\": \"llm\", \"pool\": \"p\", \"arrivals\": {\"poisson_rps\": 1},"
             "   \"replicas\": %s, %s, \"disaggregation\": %s}]}",
             replicas, batching, disagg);
    test_parse_refused(json, "bad.json", FS_ERR_INPUT, want);
}

static void test_refused(void **state)
{
    (void)state;
    const char *llm = "\"batching\": {\"kind\": \"continuous\", \"model\": \"Llama-3-8B\","
                      " \"step_time\": {\"linear\": {\"c0\": \"5ms\", \"c_prefill\": \"0.05ms\","
                      " \"c_decode\": \"0.1ms\", \"c_kv\": \"0ms\"}},"
                      " \"prompt_tokens\": {\"deterministic\": {\"value\": 100}}, \"output_tokens\": {\"deterministic\": {\"value\": 10}}}";
    const char *ok_link = "\"link\": {\"bandwidth_gb_s\": 50}";
    char d[512];
    snprintf(d, sizeof d, "{\"decode\": {\"pool\": \"p\", \"replicas\": 2}, %s}", ok_link);
    refused(d, "1", "\"service_time\": \"10ms\"", "services[0].disaggregation: prefill/decode disaggregation needs an LLM engine");
    refused(d, "{\"min\": 1, \"max\": 3, \"autoscale\": {\"target_in_flight\": 4}}", llm,
            "services[0].disaggregation: a disaggregated service has fixed replica groups");
    snprintf(d, sizeof d, "{\"decode\": {\"pool\": \"q\", \"replicas\": 2}, %s}", ok_link);
    refused(d, "1", llm, "services[0].disaggregation.decode.pool: expected the name of a pool");
    refused("{\"decode\": {\"pool\": \"p\", \"replicas\": 0}, \"link\": {\"bandwidth_gb_s\": 5}}", "1", llm,
            "services[0].disaggregation.decode.replicas");
    refused("{\"decode\": {\"pool\": \"p\", \"replicas\": 1}, \"link\": {\"bandwidth_gb_s\": 0}}", "1", llm,
            "services[0].disaggregation.link.bandwidth_gb_s");
    refused("{\"decode\": {\"pool\": \"p\", \"replicas\": 1}}", "1", llm,
            "services[0].disaggregation: missing required key \"link\"");
    refused("{\"decode\": {\"pool\": \"p\", \"replicas\": 1}, \"link\": {\"bandwidth_gb_s\": 5, \"latency_ms\": 1}}",
            "1", llm, "services[0].disaggregation.link: unknown key \"latency_ms\"");
    /* 3 prefill + 2 decode replicas do not fit 4 GPUs: placement says so. */
    snprintf(d, sizeof d, "{\"decode\": {\"pool\": \"p\", \"replicas\": 2}, %s}", ok_link);
    char json[2048];
    snprintf(json, sizeof json,
             "{\"schema\": \"fleetsim/1\", \"name\": \"bad\", \"horizon\": \"1h\","
             " \"pools\": [{\"name\": \"p\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 4}],"
             " \"services\": [{\"name\": \"llm\", \"pool\": \"p\", \"arrivals\": {\"poisson_rps\": 1},"
             "   \"replicas\": 3, %s, \"disaggregation\": %s}]}", llm, d);
    fs_scenario *s = test_scenario("%s", json);
    fs_placement *pl = NULL;
    fs_error err = {0};
    assert_int_equal(fs_placement_compute(s, &pl, &err), FS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "decode replica 2 of 2"));
    fs_scenario_destroy(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_engine_received),
        cmocka_unit_test(test_transfer_adds_exactly_to_ttft),
        cmocka_unit_test(test_link_is_fifo),
        cmocka_unit_test(test_conserved_while_decode_is_lost),
        cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

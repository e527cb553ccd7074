/*
 * test_llm_service — continuous batching inside a run (service_llm.c):
 * schedules worked out by hand, a saturated server's throughput from its
 * step time, Little's law on running sequences, conservation of requests and
 * tokens, the scaling of a MIG slice, and refusals of bad input.
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

#define GIB (1024.0 * 1024.0 * 1024.0)

/* A whole-H100 pool of `gpus`, one service "llm" of `replicas`, with the
 * given arrivals, batching members (after "kind") and extra service keys. */
static fs_scenario *llm_scenario(const char *run, unsigned gpus, unsigned replicas, const char *arrivals,
                                 const char *batching, const char *extra)
{
    return test_scenario("{\"schema\": \"fleetsim/1\", \"name\": \"llm\", %s,"
                         " \"pools\": [{\"name\": \"p\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": %u}],"
                         " \"services\": [{\"name\": \"llm\", \"pool\": \"p\", \"arrivals\": %s,"
                         "   \"replicas\": {\"count\": %u},"
                         "   \"batching\": {\"kind\": \"continuous\", %s} %s}]}",
                         run, gpus, arrivals, replicas, batching, extra);
}

static const fs_service_rep *rep0(const fs_results *r) { return &r->policies[0].reps[0].services[0]; }

/* Within the histogram's stated relative error (well under 1%). */
static void assert_near(double got, double want, double rel)
{
    if (fabs(got - want) > rel * fabs(want)) {
        fprintf(stderr, "got %.9g, want %.9g (rel %.3g)\n", got, want, rel);
        fail();
    }
}

/*
 * Two requests by hand.  One replica; step = 10 ms + 1 ms per prefill token;
 * budget 100, max 4 sequences.  R1 arrives at 0 (prompt 50, output 3), R2
 * at 5 ms (prompt 20, output 2).
 *   0 ms: R1 pulled, step 1 prefills its 50 tokens (60 ms): first token.
 *   5 ms: R2 waits: the replica is mid-step.
 *  60 ms: R1's TTFT 60 ms.  R2 pulled; step 2: R1 decodes, R2 prefills 20
 *         tokens (30 ms).
 *  90 ms: R2's TTFT 85 ms (queue 55 ms).  Step 3: both decode (10 ms).
 * 100 ms: both finish: R1 e2e 100 ms, TPOT (100 - 60) / 2 = 20 ms; R2 e2e
 *         95 ms, TPOT (100 - 90) / 1 = 10 ms.  3 steps; 5 tokens.
 */
static void test_hand_schedule(void **state)
{
    (void)state;
    char dir[256];
    assert_int_equal(test_tmpdir(dir, sizeof dir, "fs-llm"), 0);
    test_write(test_path("%s/t.csv", dir), "t,prompt,output\n0,50,3\n0.005,20,2\n");
    char arrivals[512];
    snprintf(arrivals, sizeof arrivals,
             "{\"trace\": {\"file\": \"%s/t.csv\", \"time\": \"t\", \"sizes\": [\"prompt\", \"output\"]}}", dir);
    fs_scenario *s = llm_scenario("\"horizon\": \"10s\", \"warmup\": \"0s\", \"window\": \"10s\", \"replications\": 1",
                                  1, 1, arrivals,
                                  "\"model\": \"Llama-3-8B\", \"max_seqs\": 4, \"token_budget\": 100,"
                                  " \"step_time\": {\"linear\": {\"c0\": \"10ms\", \"c_prefill\": \"1ms\","
                                  " \"c_decode\": 0, \"c_kv\": 0}}",
                                  "");
    fs_results *r = test_run(s);
    const fs_service_rep *rep = rep0(r);
    assert_int_equal(rep->completed, 2);
    assert_int_equal(rep->steps, 3);
    assert_int_equal(rep->tokens_generated, 5);
    assert_int_equal(rep->output_tokens, 5);
    assert_int_equal(rep->prompt_tokens, 70);
    assert_int_equal(rep->started, 2);
    assert_int_equal(rep->waited, 1);
    assert_near(rep->wait_sum_s, 0.055, 1e-9);
    assert_near((double)(rep->ttft).min_ns * 1e-6, 60, 0.002);
    assert_near((double)(rep->ttft).max_ns * 1e-6, 85, 0.002);
    assert_near((double)(rep->tpot).min_ns * 1e-6, 10, 0.002);
    assert_near((double)(rep->tpot).max_ns * 1e-6, 20, 0.002);
    assert_near((double)(rep->latency).min_ns * 1e-6, 95, 0.002);
    assert_near((double)(rep->latency).max_ns * 1e-6, 100, 0.002);
    /* Batch sizes: step 1 ran one sequence, steps 2 and 3 ran two. */
    assert_int_equal(rep->batch_size_counts[1], 1);
    assert_int_equal(rep->batch_size_counts[2], 2);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
    test_rmdir(dir);
}

/* A saturated replica: B sequences start together and finish together
 * after O steps (c_prefill = c_kv = 0, token budget for all B prompts): one
 * step with B prefills (c0), O - 1 with B decodes (c0 + c_decode B); so
 * requests/s = B / (O c0 + (O - 1) c_decode B) and tokens/s = O x that.
 * B is max_seqs, or what the KV cache holds under the queue policy. */
static void saturated(uint32_t max_seqs, const char *memory, double want_b, const char *policy)
{
    const double c0 = 0.004, cd = 0.0001;
    const unsigned prompt = 1000, output = 25;
    char batching[1024];
    /* A custom model: 2e9 bytes of weights, 1 KiB of KV per token, blocks of
     * 1,024 tokens (1 MiB), so one request (1000 + 25 - 1 tokens) holds
     * exactly one block. */
    snprintf(batching, sizeof batching,
             "\"model\": {\"name\": \"toy\", \"params\": 1e9, \"layers\": 1, \"kv_heads\": 1, \"head_dim\": 512,"
             " \"kv_bytes\": 1}, \"block_tokens\": 1024, \"max_seqs\": %u, \"token_budget\": 1000000,"
             " \"kv_policy\": \"%s\","
             " \"step_time\": {\"linear\": {\"c0\": %g, \"c_prefill\": 0, \"c_decode\": %g, \"c_kv\": 0}},"
             " \"prompt_tokens\": {\"deterministic\": {\"value\": %u}},"
             " \"output_tokens\": {\"deterministic\": {\"value\": %u}}",
             max_seqs, policy, c0, cd, prompt, output);
    fs_scenario *s = llm_scenario("\"horizon\": \"1h\", \"warmup\": \"5m\", \"window\": \"5m\", \"replications\": 1",
                                  1, 1, "{\"poisson_rps\": 5000}", batching, memory);
    fs_results *r = test_run(s);
    const fs_service_rep *rep = rep0(r);
    double measured = fs_results_measured_s(r);
    double want_rps = want_b / (output * c0 + (output - 1) * cd * want_b);
    assert_near((double)rep->completed / measured, want_rps, 0.005);
    assert_near((double)rep->tokens_generated / measured, want_rps * output, 0.005);
    assert_near(rep->mean_running, want_b, 0.005);
    assert_int_equal(rep->preemptions, 0);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

static void test_saturated_max_seqs(void **state)
{
    (void)state;
    saturated(64, ", \"queue_limit\": 1000", 64, "preempt");
}

static void test_saturated_kv_bound(void **state)
{
    (void)state;
    /* Budget = weights + 40.5 MiB: 40 blocks, so 40 requests run at once
     * under the queue policy even with max_seqs 256. */
    char memory[128];
    snprintf(memory, sizeof memory, ", \"queue_limit\": 1000, \"memory_gb\": %.12f",
             (2e9 + 40.5 * 1024 * 1024) / GIB);
    saturated(256, memory, 40, "queue");
}

/* Little's law on running sequences: the time-average of sequences running
 * equals the sum of their times in the engine (admission to finish = e2e -
 * queue time) over the measured time, up to the requests in flight at the
 * interval's two ends.  And requests and tokens are conserved. */
static void test_little_and_conservation(void **state)
{
    (void)state;
    fs_scenario *s = llm_scenario("\"horizon\": \"4h\", \"warmup\": \"10m\", \"window\": \"10m\", \"replications\": 1",
                                  2, 2, "{\"poisson_rps\": 6}",
                                  "\"model\": \"Llama-3-8B\", \"max_seqs\": 64,"
                                  " \"step_time\": {\"linear\": {\"c0\": \"6ms\", \"c_prefill\": \"0.06ms\","
                                  " \"c_decode\": \"0.08ms\", \"c_kv\": \"0.00001ms\"}},"
                                  " \"prompt_tokens\": {\"lognormal\": {\"median\": 800, \"sigma\": 0.8}},"
                                  " \"output_tokens\": {\"lognormal\": {\"median\": 200, \"sigma\": 0.7}}",
                                  "");
    fs_results *r = test_run(s);
    const fs_service_rep *rep = rep0(r);
    double measured = fs_results_measured_s(r);
    double in_engine = fs_hist_mean(&rep->latency) * 1e-9 * (double)rep->completed - rep->wait_sum_s;
    assert_near(rep->mean_running * measured, in_engine, 0.01);
    assert_true(rep->mean_running > 1);
    /* arrivals + in flight at the start = completed + dropped + in flight at the end */
    assert_int_equal(rep->requests + rep->in_flight_start, rep->completed + rep->dropped + rep->in_flight_end);
    assert_true(rep->kv_occupancy > 0 && rep->kv_occupancy < 1);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

/* Every token emitted once, preemptions or not: when every request of a
 * trace completes, tokens generated = the outputs' sum. */
static void test_tokens_conserved_under_preemption(void **state)
{
    (void)state;
    char dir[256];
    assert_int_equal(test_tmpdir(dir, sizeof dir, "fs-llm"), 0);
    char *csv = malloc(64 * 400 + 32);
    size_t at = (size_t)sprintf(csv, "t,prompt,output\n");
    uint64_t outputs = 0;
    for (unsigned i = 0; i < 400; i++) {
        unsigned p = 200 + (i * 37) % 600, o = 50 + (i * 53) % 300;
        outputs += o;
        at += (size_t)sprintf(csv + at, "%.3f,%u,%u\n", i * 0.05, p, o);
    }
    test_write(test_path("%s/t.csv", dir), csv);
    free(csv);
    char arrivals[512];
    snprintf(arrivals, sizeof arrivals,
             "{\"trace\": {\"file\": \"%s/t.csv\", \"time\": \"t\", \"sizes\": [\"prompt\", \"output\"]}}", dir);
    /* 2,000 blocks of 1,024 tokens of toy KV... but a cache of 16-token
     * blocks that holds about 12 requests' worth forces preemption. */
    char memory[128];
    snprintf(memory, sizeof memory, ", \"memory_gb\": %.12f", (2e9 + 6.0 * 1024 * 1024) / GIB);
    fs_scenario *s = llm_scenario("\"horizon\": \"2h\", \"warmup\": \"0s\", \"window\": \"10m\", \"replications\": 1",
                                  1, 1, arrivals,
                                  "\"model\": {\"name\": \"toy\", \"params\": 1e9, \"layers\": 1, \"kv_heads\": 1,"
                                  " \"head_dim\": 512, \"kv_bytes\": 1}, \"max_seqs\": 64,"
                                  " \"step_time\": {\"linear\": {\"c0\": \"5ms\", \"c_prefill\": \"0.02ms\","
                                  " \"c_decode\": \"0.05ms\", \"c_kv\": 0}}",
                                  memory);
    fs_results *r = test_run(s);
    const fs_service_rep *rep = rep0(r);
    assert_int_equal(rep->completed, 400);
    assert_true(rep->preemptions > 0);
    assert_int_equal(rep->output_tokens, outputs);
    assert_int_equal(rep->tokens_generated, outputs);
    assert_int_equal(rep->in_flight_end, 0);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
    test_rmdir(dir);
}

/* On a MIG slice the step scales by the slice's shares: prefill by SMs,
 * the rest by memory slices (mig.md geometry via the catalog); the KV cache
 * by the slice's memory. */
static void test_mig_unit(void **state)
{
    (void)state;
    fs_scenario *s = test_scenario(
        "{\"schema\": \"fleetsim/1\", \"name\": \"m\", \"horizon\": \"1h\","
        " \"pools\": [{\"name\": \"p\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 1, \"mig\": [\"3g.40gb\", \"3g.40gb\"]}],"
        " \"services\": [{\"name\": \"llm\", \"pool\": \"p\", \"arrivals\": {\"poisson_rps\": 1},"
        "   \"batching\": {\"kind\": \"continuous\", \"model\": \"Llama-3-8B\","
        "     \"step_time\": {\"linear\": {\"c0\": \"5ms\", \"c_prefill\": \"0.1ms\", \"c_decode\": \"0.1ms\", \"c_kv\": 0}},"
        "     \"prompt_tokens\": {\"deterministic\": {\"value\": 100}},"
        "     \"output_tokens\": {\"deterministic\": {\"value\": 10}}}}]}");
    const fs_gpu_type *gpu = &s->gpu_types[s->pools[0].gpu_type];
    const fs_mig_profile *mig = fs_gpu_mig_profile(gpu, "3g.40gb");
    assert_non_null(mig);
    uint32_t whole_blocks = 0, slice_blocks = 0;
    fs_llm_step_model whole, slice;
    fs_error err = {0};
    assert_int_equal(fs_scenario_llm_unit(s, 0, s->pools[0].gpu_type, NULL, gpu->memory_gb, &whole_blocks, &whole, &err), 0);
    assert_int_equal(fs_scenario_llm_unit(s, 0, s->pools[0].gpu_type, mig, mig->memory_gb, &slice_blocks, &slice, &err), 0);
    assert_near(slice.compute_share, (double)mig->sms / gpu->sms, 1e-12);
    assert_near(slice.bandwidth_share, mig->memory_slices / 8.0, 1e-12);
    fs_llm_batch b = {.prefill_tokens = 100, .decodes = 10};
    double want = 0.005 / slice.bandwidth_share + 0.0001 * 100 / slice.compute_share + 0.0001 * 10 / slice.bandwidth_share;
    assert_near(fs_llm_step_time(&slice, &b), want, 1e-12);
    assert_near(fs_llm_step_time(&whole, &b), 0.005 + 0.01 + 0.001, 1e-12);
    /* KV: (memory x 0.9 - 16.06e9 bytes of weights) / (128 KiB per token x 16). */
    double per_block = 2.0 * 32 * 8 * 128 * 2 * 16;
    assert_int_equal(whole_blocks, (uint32_t)floor((gpu->memory_gb * 0.9 * GIB - 8030261248.0 * 2) / per_block));
    assert_int_equal(slice_blocks, (uint32_t)floor((mig->memory_gb * 0.9 * GIB - 8030261248.0 * 2) / per_block));
    fs_scenario_destroy(s);
}

/* Same seed, same figures; another seed, other draws. */
static void test_deterministic(void **state)
{
    (void)state;
    uint64_t totals[3];
    for (int k = 0; k < 3; k++) {
        char run[128];
        snprintf(run, sizeof run, "\"horizon\": \"30m\", \"warmup\": \"1m\", \"replications\": 1, \"seed\": %d",
                 k == 2 ? 8 : 7);
        fs_scenario *s = llm_scenario(run, 1, 1, "{\"poisson_rps\": 3}",
                                      "\"model\": \"Llama-3-8B\", \"step_time\": {\"roofline\": {\"flops_eff\": 0.5,"
                                      " \"bw_eff\": 0.7, \"overhead\": \"2ms\"}},"
                                      " \"prompt_tokens\": {\"exponential\": {\"mean\": 500}},"
                                      " \"output_tokens\": {\"exponential\": {\"mean\": 100}}",
                                      "");
        fs_results *r = test_run(s);
        totals[k] = rep0(r)->tokens_generated * 1000003 + rep0(r)->ttft.max_ns;
        fs_results_destroy(r);
        fs_scenario_destroy(s);
    }
    assert_true(totals[0] == totals[1]);
    assert_true(totals[0] != totals[2]);
}

/* Replicas that come and go: an autoscaler adds and drains LLM replicas on a
 * spot pool whose GPUs are taken back, so engines are lost mid-step and
 * their requests recomputed elsewhere; every request is still accounted
 * for, each completion has one TTFT, and none is recorded twice. */
static void test_lost_and_autoscaled(void **state)
{
    (void)state;
    fs_scenario *s = test_scenario(
        "{\"schema\": \"fleetsim/1\", \"horizon\": \"6h\", \"warmup\": \"10m\", \"seed\": 5, \"replications\": 2,"
        " \"pools\": [{\"name\": \"spot\", \"class\": \"spot\", \"price\": \"spot\", \"gpu\": \"H100-SXM-80GB\","
        "   \"gpus\": 4, \"reclaim_per_hour\": 1,"
        "   \"autoscale\": {\"min\": 1, \"max\": 4, \"provision\": {\"deterministic\": {\"value\": \"60s\"}}}}],"
        " \"services\": [{\"name\": \"llm\", \"pool\": \"spot\", \"arrivals\": {\"poisson_rps\": 4,"
        "     \"bursts\": [{\"at\": \"2h\", \"multiplier\": 4, \"duration\": \"30m\"}]},"
        "   \"replicas\": {\"count\": 2, \"max\": 4, \"autoscale\": {\"target_in_flight\": 40, \"idle\": \"5m\"}},"
        "   \"batching\": {\"kind\": \"continuous\", \"model\": \"Llama-3-8B\", \"max_seqs\": 64,"
        "     \"step_time\": {\"linear\": {\"c0\": \"6ms\", \"c_prefill\": \"0.06ms\", \"c_decode\": \"0.08ms\"}},"
        "     \"prompt_tokens\": {\"lognormal\": {\"median\": 800, \"sigma\": 0.8}},"
        "     \"output_tokens\": {\"lognormal\": {\"median\": 200, \"sigma\": 0.7}}},"
        "   \"slo\": {\"ttft_p99_ms\": 2000, \"tpot_p99_ms\": 80}}]}");
    fs_results *r = test_run(s);
    uint64_t reclaims = 0, added = 0;
    for (uint32_t k = 0; k < 2; k++) {
        const fs_rep_result *rr = &r->policies[0].reps[k];
        const fs_service_rep *rep = &rr->services[0];
        reclaims += rr->spot_reclaims;
        added += rep->replicas_added;
        assert_int_equal(rep->in_flight_start + rep->requests, rep->completed + rep->dropped + rep->in_flight_end);
        assert_int_equal(rep->latency.total, rep->completed);
        /* A first token per request at most: those that completed, less
         * those whose first token came before the warm-up instant, plus
         * those still running at the horizon. */
        assert_true(rep->ttft.total <= rep->completed + rep->in_flight_end);
        assert_true(rep->ttft.total + rep->in_flight_start >= rep->completed);
        assert_true(rep->slo_good <= rep->completed);
    }
    assert_true(reclaims > 0);
    assert_true(added > 0);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

/* SLO windows judge TTFT and TPOT targets as they judge end-to-end ones:
 * every window breaches a target nothing can meet (1 us TTFT, or 1 us
 * TPOT), none breaches a generous one. */
static void test_llm_breach_windows(void **state)
{
    (void)state;
    static const char *const slos[] = {"\"ttft_p99_ms\": 0.001", "\"tpot_p50_ms\": 0.001",
                                       "\"ttft_p99_ms\": 60000, \"tpot_p99_ms\": 60000"};
    for (int k = 0; k < 3; k++) {
        char extra[256];
        snprintf(extra, sizeof extra, ", \"slo\": {%s, \"window\": \"5m\"}", slos[k]);
        fs_scenario *s = llm_scenario("\"horizon\": \"1h\", \"warmup\": \"5m\", \"replications\": 1",
                                      1, 1, "{\"poisson_rps\": 2}",
                                      "\"model\": \"Llama-3-8B\", \"step_time\": {\"linear\": {\"c0\": \"6ms\","
                                      " \"c_prefill\": \"0.06ms\", \"c_decode\": \"0.08ms\"}},"
                                      " \"prompt_tokens\": {\"deterministic\": {\"value\": 500}},"
                                      " \"output_tokens\": {\"deterministic\": {\"value\": 100}}",
                                      extra);
        fs_results *r = test_run(s);
        const fs_service_rep *rep = rep0(r);
        assert_int_equal(rep->slo_windows, 11);
        assert_int_equal(rep->slo_breach_windows, k < 2 ? 11 : 0);
        fs_results_destroy(r);
        fs_scenario_destroy(s);
    }
}

/* The Azure LLM conversation trace (Splitwise, ISCA'24; ../shared/data),
 * tokens from its columns: every row is a request, and once all have
 * finished the prompt and output tokens served are the columns' sums,
 * counted here from the file itself. */
static void test_azure_tokens(void **state)
{
    (void)state;
    const char *csv = test_path("%s/../shared/data/azure-llm-2023/AzureLLMInferenceTrace_conv.csv", FS_SOURCE_DIR);
    if (!test_exists("%s", csv)) {
        print_message("skipped: ../shared/data is absent (this test replays the Azure LLM trace)\n");
        skip();
    }
    char *text = test_slurp("%s", csv);
    uint64_t rows = 0, prompt = 0, output = 0;
    for (char *line = strchr(text, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
        unsigned long long p = 0, o = 0;
        const char *comma = strchr(line + 1, ',');
        if (comma && sscanf(comma + 1, "%llu,%llu", &p, &o) == 2) {
            rows++;
            prompt += p;
            output += o;
        }
    }
    free(text);
    char arrivals[1024];
    snprintf(arrivals, sizeof arrivals, "{\"trace\": {\"file\": \"%s\", \"preset\": \"azure-llm\"}}", csv);
    fs_scenario *s = llm_scenario("\"horizon\": \"3h\", \"warmup\": \"0s\", \"window\": \"10m\", \"replications\": 1",
                                  2, 2, arrivals,
                                  "\"model\": \"Llama-3-8B\", \"step_time\": {\"roofline\": {\"flops_eff\": 0.5,"
                                  " \"bw_eff\": 0.7, \"overhead\": \"2ms\"}}",
                                  "");
    fs_results *r = test_run(s);
    const fs_service_rep *rep = rep0(r);
    assert_int_equal(rep->trace_rows, rows);
    assert_int_equal(rep->completed, rows);
    assert_int_equal(rep->prompt_tokens, prompt);
    assert_int_equal(rep->output_tokens, output);
    assert_int_equal(rep->ttft.total, rows);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

static void refused(const char *batching, const char *extra, const char *want)
{
    char json[4096];
    snprintf(json, sizeof json,
             "{\"schema\": \"fleetsim/1\", \"name\": \"x\", \"horizon\": \"1h\","
             " \"pools\": [{\"name\": \"p\", \"gpu\": \"%s\", \"gpus\": 1 %s}],"
             " \"services\": [{\"name\": \"llm\", \"pool\": \"p\", \"arrivals\": {\"poisson_rps\": 1},"
             "   \"batching\": {\"kind\": \"continuous\", %s}}]}",
             strstr(want, "L4") ? "L4-24GB" : "H100-SXM-80GB", extra, batching);
    test_parse_refused(json, "x.json", FS_ERR_INPUT, want);
}

#define STEP "\"step_time\": {\"linear\": {\"c0\": \"5ms\", \"c_prefill\": \"0.1ms\", \"c_decode\": \"0.1ms\"}}"
#define TOKENS "\"prompt_tokens\": {\"deterministic\": {\"value\": 100}}, \"output_tokens\": {\"deterministic\": {\"value\": 10}}"

static void test_refusals(void **state)
{
    (void)state;
    refused("\"model\": \"Llama-3-8B\", " STEP ", \"prompt_tokens\": {\"deterministic\": {\"value\": -5}},"
            " \"output_tokens\": {\"deterministic\": {\"value\": 10}}",
            "", "services[0].batching.prompt_tokens.deterministic.value");
    refused("\"model\": \"Llama-3-8B\", \"step_time\": {\"linear\": {\"c0\": \"-1ms\", \"c_prefill\": \"0.1ms\","
            " \"c_decode\": \"0.1ms\"}}, " TOKENS,
            "", "services[0].batching.step_time.linear.c0");
    refused("\"model\": \"Llama-3-8B\", \"step_time\": {\"linear\": {\"c0\": 0, \"c_prefill\": \"0.1ms\","
            " \"c_decode\": 0}}, " TOKENS,
            "", "would take no time");
    /* 70B in BF16 (141 GB of weights) on one 80 GB GPU: no room. */
    refused("\"model\": \"Llama-3-70B\", " STEP ", " TOKENS, "", "leave no room for a KV cache");
    /* 8B on a 1g.10gb slice: 16 GB of weights. */
    refused("\"model\": \"Llama-3-8B\", " STEP ", " TOKENS, ", \"mig\": [\"1g.10gb\"]",
            "services[0].batching: services \"llm\": batching on a H100-SXM-80GB 1g.10gb");
    /* A request that the whole cache of an L4 could never hold. */
    refused("\"model\": \"Llama-3-8B\", " STEP ", \"prompt_tokens\": {\"deterministic\": {\"value\": 200000}},"
            " \"output_tokens\": {\"deterministic\": {\"value\": 10}}",
            "", "L4-24GB unit: a request of 200010 tokens needs KV");
    refused("\"model\": \"GPT-5\", " STEP ", " TOKENS, "", "services[0].batching.model: unknown model \"GPT-5\"");
    refused("\"model\": \"Llama-3-8B\", " STEP, "", "expected \"prompt_tokens\" and \"output_tokens\"");
    refused("\"model\": \"Llama-3-8B\", " STEP ", " TOKENS ", \"max_seqs\": 0", "", "services[0].batching.max_seqs");
    refused("\"model\": \"Llama-3-8B\", " STEP ", " TOKENS ", \"kv_policy\": \"evict\"", "", "services[0].batching.kv_policy");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand_schedule),
        cmocka_unit_test(test_saturated_max_seqs),
        cmocka_unit_test(test_saturated_kv_bound),
        cmocka_unit_test(test_little_and_conservation),
        cmocka_unit_test(test_tokens_conserved_under_preemption),
        cmocka_unit_test(test_mig_unit),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_lost_and_autoscaled),
        cmocka_unit_test(test_azure_tokens),
        cmocka_unit_test(test_llm_breach_windows),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

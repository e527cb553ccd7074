/*
 * test_llm_engine — the continuous-batching core (models/workload/llm_engine.h)
 * and its built-in figures (llm_defaults.h), against arithmetic done by hand.
 *
 * Expected figures are typed in from the sources (config.json, datasheets)
 * or worked out in the comments, never read back from the module, so a wrong
 * table entry or a scheduling change fails here instead of agreeing with
 * itself.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <math.h>

#include "gpu.h"
#include "llm_defaults.h"
#include "llm_engine.h"

#define GIB (1024.0 * 1024.0 * 1024.0)
#define EPS 1e-12
/* cmocka's float comparison rounds to float; these figures need double. */
#define assert_near(a, b, eps) assert_true(fabs((double)(a) - (double)(b)) <= (eps))
#define MAX_SEQS 8
#define QUEUE_CAP 64

/* An engine with its caller-owned arrays, as a service would embed it. */
typedef struct rig {
    fs_llm_engine e;
    fs_llm_seq running[MAX_SEQS];
    fs_llm_seq waiting[QUEUE_CAP];
    fs_llm_event events[FS_LLM_EVENTS_MAX(MAX_SEQS)];
    fs_llm_step_out out;
} rig;

static void rig_init(rig *r, uint32_t max_seqs, uint32_t budget, uint32_t blocks,
                     uint32_t block_tokens, int policy)
{
    assert_true(max_seqs <= MAX_SEQS);
    memset(r, 0, sizeof *r);
    fs_llm_config cfg = {max_seqs, budget, blocks, block_tokens, policy};
    fs_error err = {0};
    assert_int_equal(fs_llm_engine_init(&r->e, &cfg, r->running, r->waiting, QUEUE_CAP, "engine",
                                        &err), 0);
    r->out.events = r->events;
}

static void enqueue(rig *r, uint64_t id, int64_t prompt, int64_t output)
{
    fs_error err = {0};
    assert_int_equal(fs_llm_engine_enqueue(&r->e, id, prompt, output, "engine", &err), 0);
}

static fs_llm_step_model linear(double c0, double cp, double cd, double ckv)
{
    return (fs_llm_step_model){.kind = FS_LLM_STEP_LINEAR, .c0 = c0, .c_prefill = cp,
                               .c_decode = cd, .c_kv = ckv, .compute_share = 1,
                               .bandwidth_share = 1};
}

/* The step's events as "F1 X1 P2" (first token, finished, preempted + id);
 * admissions are left out here (test_admitted_once checks them). */
static const char *events_text(const rig *r)
{
    static char buf[256];
    size_t at = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < r->out.n_events; i++) {
        if (r->out.events[i].kind == FS_LLM_ADMITTED)
            continue;
        char k = r->out.events[i].kind == FS_LLM_FIRST_TOKEN ? 'F'
                 : r->out.events[i].kind == FS_LLM_FINISHED  ? 'X'
                                                             : 'P';
        at += (size_t)snprintf(buf + at, sizeof buf - at, "%s%c%llu", at ? " " : "", k,
                               (unsigned long long)r->out.events[i].id);
    }
    return buf;
}

/* One step as worked out by hand: its cost inputs, duration, events and the
 * KV blocks held after it. */
typedef struct expect_step {
    uint64_t prefill, decodes, kv_read;
    double duration;
    const char *events;
    uint32_t blocks_used;
} expect_step;

/* Runs the steps, checks each, then one more that must be idle, then the
 * tokens emitted (conservation) and the preemptions; returns the total time. */
static double run_schedule(rig *r, const fs_llm_step_model *m, const expect_step *want,
                           size_t n, uint64_t want_tokens, uint64_t want_preemptions)
{
    uint64_t tokens = 0;
    double time = 0;
    for (size_t i = 0; i < n; i++) {
        fs_llm_engine_step(&r->e, m, &r->out);
        assert_false(r->out.idle);
        assert_int_equal(r->out.batch.prefill_tokens, want[i].prefill);
        assert_int_equal(r->out.batch.decodes, want[i].decodes);
        assert_int_equal(r->out.batch.kv_tokens_read, want[i].kv_read);
        assert_near(r->out.duration, want[i].duration, EPS);
        assert_string_equal(events_text(r), want[i].events);
        assert_int_equal(r->out.blocks_used, want[i].blocks_used);
        tokens += r->out.tokens_out;
        time += r->out.duration;
    }
    fs_llm_engine_step(&r->e, m, &r->out);
    assert_true(r->out.idle);
    assert_near(r->out.duration, 0, 0);
    assert_int_equal(r->out.n_events, 0);
    assert_int_equal(tokens, want_tokens);
    assert_int_equal(r->e.preemptions, want_preemptions);
    return time;
}

/* 2 x layers x KV heads x head dim x 2 bytes, from each config.json. */
static void test_kv_bytes_by_hand(void **state)
{
    (void)state;
    const fs_llm_model *m = fs_llm_defaults_model("Llama-3-8B");
    assert_non_null(m);
    /* 2 x 32 x 8 x 128 x 2 = 131,072 bytes = 128 KiB per token. */
    assert_near(fs_llm_kv_bytes_per_token(m), 131072.0, 0);
    /* 8,030,261,248 parameters x 2 bytes. */
    assert_near(fs_llm_weights_bytes(m), 16060522496.0, 0);
    /* Llama-3-70B: 2 x 80 x 8 x 128 x 2 = 327,680; Qwen2-7B: 2 x 28 x 4 x 128 x 2 = 57,344. */
    assert_near(fs_llm_kv_bytes_per_token(fs_llm_defaults_model("Llama-3-70B")),
                        327680.0, 0);
    assert_near(fs_llm_kv_bytes_per_token(fs_llm_defaults_model("Qwen2-7B")), 57344.0,
                        0);
    assert_null(fs_llm_defaults_model("llama-3-8b"));
}

/* Each model's parameters recounted from its config.json figures. */
static void test_params_from_config(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        double hidden, layers, heads, kv_heads, intermediate, vocab;
        bool qkv_bias; /* Qwen2 */
    } cfg[] = {
        {"Llama-3-8B", 4096, 32, 32, 8, 14336, 128256, false},
        {"Llama-3-70B", 8192, 80, 64, 8, 28672, 128256, false},
        {"Mistral-7B", 4096, 32, 32, 8, 14336, 32000, false},
        {"Qwen2-7B", 3584, 28, 28, 4, 18944, 152064, true},
    };
    size_t n;
    fs_llm_defaults_models(&n);
    assert_int_equal(n, sizeof cfg / sizeof cfg[0]);
    for (size_t i = 0; i < n; i++) {
        const fs_llm_model *m = fs_llm_defaults_model(cfg[i].name);
        assert_non_null(m);
        double h = cfg[i].hidden, head_dim = h / cfg[i].heads, kv = cfg[i].kv_heads * head_dim;
        double attn = 2 * h * h + 2 * h * kv + (cfg[i].qkv_bias ? h + 2 * kv : 0);
        double layer = attn + 3 * h * cfg[i].intermediate + 2 * h; /* + two RMSNorms */
        double params = cfg[i].layers * layer + 2 * cfg[i].vocab * h + h; /* untied head */
        assert_near(m->params, params, 0);
        assert_int_equal(m->layers, (unsigned)cfg[i].layers);
        assert_int_equal(m->kv_heads, (unsigned)cfg[i].kv_heads);
        assert_int_equal(m->head_dim, (unsigned)head_dim);
        assert_near(m->bytes_per_param, 2, 0);
        assert_near(m->kv_bytes, 2, 0);
        fs_error err = {0};
        assert_int_equal(fs_llm_model_check(m, "model", &err), 0);
    }
}

/* Datasheet figures typed in; every catalog GPU type has them. */
static void test_gpu_peaks(void **state)
{
    (void)state;
    static const struct {
        const char *gpu;
        double tflops, tbps;
    } want[] = {
        {"H100-SXM-80GB", 989.5, 3.35},   {"H100-PCIE-80GB", 756.5, 2.0},
        {"H200-141GB", 989.5, 4.8},       {"A100-SXM4-80GB", 312, 2.039},
        {"A100-SXM4-40GB", 312, 1.555},   {"L40S-48GB", 362.05, 0.864},
        {"L4-24GB", 121, 0.3},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const fs_llm_gpu_peak *g = fs_llm_defaults_gpu(want[i].gpu);
        assert_non_null(g);
        assert_near(g->bf16_flops, want[i].tflops * 1e12, 1);
        assert_near(g->mem_bw, want[i].tbps * 1e12, 1);
    }
    size_t n;
    const fs_gpu_type *cat = fs_gpu_catalog(&n);
    for (size_t i = 0; i < n; i++)
        assert_non_null(fs_llm_defaults_gpu(cat[i].name));
}

/* Llama-3-8B in 80 GiB with a 4 GiB reserve:
 *   85,899,345,920 - 16,060,522,496 - 4,294,967,296 = 65,543,856,128 bytes
 *   / 131,072 = 500,059.94 -> 500,059 tokens; / (131,072 x 16) -> 31,253 blocks. */
static void test_capacity(void **state)
{
    (void)state;
    const fs_llm_model *m = fs_llm_defaults_model("Llama-3-8B");
    fs_error err = {0};
    uint32_t blocks = 0;
    assert_int_equal(fs_llm_kv_capacity(m, 80 * GIB, 4 * GIB, 1, 0, &blocks, "u", &err), 0);
    assert_int_equal(blocks, 500059);
    assert_int_equal(fs_llm_kv_capacity(m, 80 * GIB, 4 * GIB, 16, 0, &blocks, "u", &err), 0);
    assert_int_equal(blocks, 31253);
    /* A request of P + O = 500,060 needs 500,059 tokens of KV: just fits. */
    assert_int_equal(fs_llm_kv_capacity(m, 80 * GIB, 4 * GIB, 1, 500060, &blocks, "u", &err), 0);
    assert_int_equal(fs_llm_kv_capacity(m, 80 * GIB, 4 * GIB, 1, 500061, &blocks, "svc", &err),
                     FS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "svc: a request of 500061 tokens needs KV for 500060"));
    assert_non_null(strstr(err.msg, "holds 500059"));
    assert_int_equal(blocks, 500059); /* a refused call leaves *blocks as it was */
}

static void test_capacity_refusals(void **state)
{
    (void)state;
    fs_error err = {0};
    uint32_t blocks = 0;
    /* Llama-3-70B's 131.4 GiB of BF16 weights cannot go on one 80 GiB unit. */
    assert_int_equal(fs_llm_kv_capacity(fs_llm_defaults_model("Llama-3-70B"), 80 * GIB, 0, 16, 0,
                                         &blocks, "services[0].batching", &err),
                     FS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "services[0].batching: Llama-3-70B's weights (131.42 GiB)"));
    assert_non_null(strstr(err.msg, "no room for a KV cache"));
    /* Llama-3-8B on 24 GiB, 2 GiB reserve: 7,561,797,632 / 131,072 = 57,691 tokens;
     * a 100,000-token request could never be held. */
    const fs_llm_model *m = fs_llm_defaults_model("Llama-3-8B");
    assert_int_equal(fs_llm_kv_capacity(m, 24 * GIB, 2 * GIB, 1, 100000, &blocks, "l4", &err),
                     FS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "needs KV for 99999 tokens, but the cache holds 57691"));
    /* Bad figures. */
    assert_int_equal(fs_llm_kv_capacity(m, 24 * GIB, -1, 1, 0, &blocks, "l4", &err),
                     FS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "activation reserve"));
    fs_llm_model bad = *m;
    bad.kv_heads = 0;
    assert_int_equal(fs_llm_kv_capacity(&bad, 24 * GIB, 0, 1, 0, &blocks, "m", &err),
                     FS_ERR_INPUT);
    assert_string_equal(err.msg, "m.kv_heads: expected a positive number");
}

/*
 * Three requests, block 1 token, a cache large enough, QUEUE, max 2 running,
 * budget 128 tokens per step; t = 0.01 + 1e-4 x prefill + 1e-3 x decodes
 * + 1e-6 x KV read.  R1 prompt 100 output 3, R2 50/2, R3 200/1.
 *
 * step 1: admit R1, chunk 100 (prefill done: token 1, F1), kv 100; admit
 *         R2, chunk 28 (budget 0), kv 28.  prefill 128, KV read 128:
 *         0.01 + 0.0128 + 0.000128 = 0.022928.
 * step 2: R1 decodes (kv 101, token 2); R2 prefills its last 22 (kv 50,
 *         token 1, F2); the running slots are full.  prefill 22, 1 decode,
 *         KV 151: 0.01 + 0.0022 + 0.001 + 0.000151 = 0.013351.
 * step 3: R1 decodes (kv 102, token 3 = output, X1), R2 decodes (kv 51,
 *         token 2, X2); both leave at the step's end, so R3 still waits.
 *         2 decodes, KV 153: 0.01 + 0.002 + 0.000153 = 0.012153.
 * step 4: admit R3, chunk 128 of 200, kv 128: 0.01 + 0.0128 + 0.000128.
 * step 5: R3's last 72 (kv 200, token 1 = output: F3 X3):
 *         0.01 + 0.0072 + 0.0002 = 0.0174.
 * step 6: idle.
 * So TTFT (from time 0) is 0.022928 for R1, 0.036279 for R2 and
 * 0.036279 + 0.012153 + 0.022928 + 0.0174 = 0.08876 for R3.
 */
static void test_hand_schedule(void **state)
{
    (void)state;
    rig r;
    rig_init(&r, 2, 128, 10000, 1, FS_LLM_KV_QUEUE);
    enqueue(&r, 1, 100, 3);
    enqueue(&r, 2, 50, 2);
    enqueue(&r, 3, 200, 1);
    fs_llm_step_model m = linear(0.01, 1e-4, 1e-3, 1e-6);
    /* QUEUE reserves P + O - 1 blocks at admission: 102 + 51, then 200. */
    static const expect_step want[] = {
        {128, 0, 128, 0.022928, "F1", 153}, {22, 1, 151, 0.013351, "F2", 153},
        {0, 2, 153, 0.012153, "X1 X2", 0},  {128, 0, 128, 0.022928, "", 200},
        {72, 0, 200, 0.0174, "F3 X3", 0},
    };
    assert_near(run_schedule(&r, &m, want, 5, 3 + 2 + 1, 0), 0.08876, EPS);
}

/* Every sequence decoding and the queue never empty: each step is max_seqs
 * decodes, so throughput is max_seqs / t_step(max_seqs decodes) tokens/s. */
static void test_saturated_throughput(void **state)
{
    (void)state;
    rig r;
    rig_init(&r, MAX_SEQS, 512, 100000, 16, FS_LLM_KV_PREEMPT);
    for (uint64_t id = 0; id < QUEUE_CAP; id++)
        enqueue(&r, id, 1, 1000);
    fs_llm_step_model m = linear(0.005, 2e-5, 4e-4, 0);
    fs_llm_engine_step(&r.e, &m, &r.out); /* admits 8 one-token prompts */
    assert_int_equal(r.out.batch.prefill_tokens, MAX_SEQS);
    double expect = 0.005 + MAX_SEQS * 4e-4;
    double time = 0;
    uint64_t tokens = 0;
    for (int i = 0; i < 500; i++) {
        fs_llm_engine_step(&r.e, &m, &r.out);
        assert_int_equal(r.out.batch.decodes, MAX_SEQS);
        assert_int_equal(r.out.batch.prefill_tokens, 0);
        assert_near(r.out.duration, expect, EPS);
        assert_true(r.e.n_waiting > 0);
        time += r.out.duration;
        tokens += r.out.tokens_out;
    }
    assert_near((double)tokens / time, MAX_SEQS / expect, 1e-6);
}

/* Block 1 token, 10 blocks, budget 100, max 2; two requests of prompt 4 and
 * output 5, each needing 4 + 5 - 1 = 8 blocks: both fit alone, not together. */
static void two_requests(rig *r, int policy)
{
    rig_init(r, 2, 100, 10, 1, policy);
    enqueue(r, 1, 4, 5);
    enqueue(r, 2, 4, 5);
}

/*
 * Preemption: block 1 token, 10 blocks, PREEMPT, budget 100, max 2; R1 and
 * R2 both prompt 4, output 5 (each needs 4 + 5 - 1 = 8 blocks alone).
 * step 1: admit both, 4 blocks each, first tokens (free 2).
 * step 2: both decode (kv 5 each, free 0).
 * step 3: R1 needs a 6th block: R2, the newest, is preempted (free 5) and
 *         goes back to the head of the queue to recompute 4 + 2 tokens;
 *         R1 decodes (token 3).  Nothing is admitted in this step.
 * step 4: R1 decodes (token 4, free 3); R2 needs 6 blocks: waits.
 * step 5: R1 decodes its last token (X1), leaving at the end (free 10).
 * step 6: R2 recomputes 6 tokens (its token 3; no second first token).
 * steps 7-8: R2 decodes tokens 4 and 5 (X2).
 */
static void test_preempt_newest_recompute(void **state)
{
    (void)state;
    rig r;
    two_requests(&r, FS_LLM_KV_PREEMPT);
    fs_llm_step_model m = linear(1, 0, 0.5, 0); /* 1 s + 0.5 s per decode */
    static const expect_step want[] = {
        {8, 0, 8, 1, "F1 F2", 8}, {0, 2, 10, 2, "", 10}, {0, 1, 6, 1.5, "P2", 6},
        {0, 1, 7, 1.5, "", 7},    {0, 1, 8, 1.5, "X1", 0}, {6, 0, 6, 1, "", 6},
        {0, 1, 7, 1.5, "", 7},    {0, 1, 8, 1.5, "X2", 0},
    };
    /* 5 + 5 tokens: preemption lost none and added none. */
    run_schedule(&r, &m, want, 8, 10, 1);
}

/* ADMITTED comes once per request, at its first admission, never at a
 * readmission after preemption (the two-request case above: R2 is
 * preempted in step 3 and readmitted in step 6). */
static void test_admitted_once(void **state)
{
    (void)state;
    rig r;
    two_requests(&r, FS_LLM_KV_PREEMPT);
    fs_llm_step_model m = linear(1, 0, 0.5, 0);
    unsigned admitted[3] = {0}, first_step[3] = {0};
    for (unsigned step = 1; step <= 8; step++) {
        fs_llm_engine_step(&r.e, &m, &r.out);
        for (size_t i = 0; i < r.out.n_events; i++)
            if (r.out.events[i].kind == FS_LLM_ADMITTED) {
                uint64_t id = r.out.events[i].id;
                assert_true(id >= 1 && id <= 2);
                if (admitted[id]++ == 0)
                    first_step[id] = step;
            }
    }
    assert_int_equal(admitted[1], 1);
    assert_int_equal(admitted[2], 1);
    assert_int_equal(first_step[1], 1);
    assert_int_equal(first_step[2], 1);
}

/*
 * A sequence that preempts itself, and no readmission in the step that
 * preempted.  Block 1 token, 10 blocks, PREEMPT, budget 3, max 2;
 * R1 prompt 2 output 8, R2 prompt 1 output 8; t = 1 + 0.25 x prefill
 * + 0.5 x decodes.
 * step 1: admit R1 (chunk 2, F1) and R2 (chunk 1, F2): 3 blocks used.
 * steps 2-4: both decode; kv 5 and 4, free 1.
 * step 5: R1 decodes (kv 6, free 0); R2, the newest, needs a block and is
 *         preempted by itself (free 4).  The queue's head, R2, would fit a
 *         2-token chunk in the budget left, but nothing is admitted.
 * step 6: R1 decodes (kv 7, free 3); R2 admitted with a 2-token chunk of its
 *         1 + 4 = 5 to recompute (free 1): 1 + 0.5 + 0.5 = 2.
 * step 7: R1 decodes (kv 8, free 0); R2's next chunk needs 2 blocks:
 *         preempted again (free 2).
 * step 8: R1's last token (kv 9, X1); R2's 2 blocks do not fit in 1: waits.
 * step 9-10: R2 recomputes 3 + 2 tokens (its 5th token, no new F);
 * steps 11-13: R2 decodes tokens 6-8 (X2).
 */
static void test_preempt_self_no_readmission(void **state)
{
    (void)state;
    rig r;
    rig_init(&r, 2, 3, 10, 1, FS_LLM_KV_PREEMPT);
    enqueue(&r, 1, 2, 8);
    enqueue(&r, 2, 1, 8);
    fs_llm_step_model m = linear(1, 0.25, 0.5, 0);
    static const expect_step want[] = {
        {3, 0, 3, 1.75, "F1 F2", 3}, {0, 2, 5, 2, "", 5},    {0, 2, 7, 2, "", 7},
        {0, 2, 9, 2, "", 9},         {0, 1, 6, 1.5, "P2", 6}, {2, 1, 9, 2, "", 9},
        {0, 1, 8, 1.5, "P2", 8},     {0, 1, 9, 1.5, "X1", 0}, {3, 0, 3, 1.75, "", 3},
        {2, 0, 5, 1.5, "", 5},       {0, 1, 6, 1.5, "", 6},   {0, 1, 7, 1.5, "", 7},
        {0, 1, 8, 1.5, "X2", 0},
    };
    run_schedule(&r, &m, want, 13, 16, 2);
}

/* The same two requests under QUEUE: R2 cannot reserve its 8 blocks next to
 * R1's, so it waits for R1 to finish and nothing is preempted. */
static void test_queue_policy_waits(void **state)
{
    (void)state;
    rig r;
    two_requests(&r, FS_LLM_KV_QUEUE);
    fs_llm_step_model m = linear(1, 0, 0.5, 0);
    static const expect_step want[] = {
        {4, 0, 4, 1, "F1", 8},    {0, 1, 5, 1.5, "", 8},   {0, 1, 6, 1.5, "", 8},
        {0, 1, 7, 1.5, "", 8},    {0, 1, 8, 1.5, "X1", 0}, {4, 0, 4, 1, "F2", 8},
        {0, 1, 5, 1.5, "", 8},    {0, 1, 6, 1.5, "", 8},   {0, 1, 7, 1.5, "", 8},
        {0, 1, 8, 1.5, "X2", 0},
    };
    run_schedule(&r, &m, want, 10, 10, 0);
}

/* A mixed load through a small cache with 16-token blocks: every request
 * gets exactly one first token and one finish, tokens out = tokens asked,
 * the cache and the running slots are never over-committed. */
static void test_conservation(void **state)
{
    (void)state;
    for (int policy = FS_LLM_KV_QUEUE; policy <= FS_LLM_KV_PREEMPT; policy++) {
        rig r;
        rig_init(&r, 6, 96, 64, 16, policy);
        uint32_t x = 12345, asked = 0, left = 200;
        uint64_t next = 0, firsts = 0, finished = 0, tokens = 0;
        uint8_t seen[200] = {0};
        fs_llm_step_model m = linear(0.01, 1e-4, 1e-3, 1e-6);
        for (int steps = 0; steps < 100000 && (left > 0 || !r.out.idle); steps++) {
            while (left > 0 && r.e.n_waiting + r.e.n_running < QUEUE_CAP) {
                x = x * 1103515245u + 12345u;
                uint32_t prompt = 1 + (x >> 8) % 400, output = 1 + (x >> 20) % 300;
                if (prompt + output - 1 > 64 * 16)
                    output = 64 * 16 + 1 - prompt;
                enqueue(&r, next++, prompt, output);
                asked += output;
                left--;
            }
            fs_llm_engine_step(&r.e, &m, &r.out);
            assert_true(r.out.blocks_used <= 64);
            assert_true(r.out.running <= 6);
            assert_true(r.out.batch.prefill_tokens + r.out.batch.decodes <= 96);
            tokens += r.out.tokens_out;
            for (size_t i = 0; i < r.out.n_events; i++) {
                uint64_t id = r.out.events[i].id;
                if (r.out.events[i].kind == FS_LLM_FIRST_TOKEN) {
                    assert_int_equal(seen[id], 0);
                    seen[id] = 1;
                    firsts++;
                } else if (r.out.events[i].kind == FS_LLM_FINISHED) {
                    assert_int_equal(seen[id], 1);
                    seen[id] = 2;
                    finished++;
                }
            }
        }
        assert_int_equal(firsts, 200);
        assert_int_equal(finished, 200);
        assert_int_equal(tokens, asked);
        assert_int_equal(r.out.blocks_used, 0);
        if (policy == FS_LLM_KV_QUEUE)
            assert_int_equal(r.e.preemptions, 0);
        else
            assert_true(r.e.preemptions > 0); /* the small cache did run out */
    }
}

static void test_enqueue_refusals(void **state)
{
    (void)state;
    rig r;
    rig_init(&r, 2, 100, 10, 1, FS_LLM_KV_PREEMPT);
    fs_error err = {0};
    assert_int_equal(fs_llm_engine_enqueue(&r.e, 7, -3, 5, "services[1]", &err), FS_ERR_INPUT);
    assert_string_equal(err.msg, "services[1]: request 7 has -3 prompt and 5 output tokens; "
                                 "each must be between 1 and 2147483647");
    assert_int_equal(fs_llm_engine_enqueue(&r.e, 7, 3, 0, "s", &err), FS_ERR_INPUT);
    /* 8 + 4 - 1 = 11 tokens of KV; the cache holds 10. */
    assert_int_equal(fs_llm_engine_enqueue(&r.e, 8, 8, 4, "s", &err), FS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "needs KV for 11 tokens (prompt 8 + output 4 - 1); the whole "
                                    "cache holds 10, so it could never run"));
    assert_int_equal(r.e.n_waiting, 0);
    for (uint64_t id = 0; id < QUEUE_CAP; id++)
        enqueue(&r, id, 1, 1);
    assert_int_equal(fs_llm_engine_enqueue(&r.e, 99, 1, 1, "s", &err), FS_ERR_RUNTIME);
    assert_int_equal(r.e.n_waiting, QUEUE_CAP);

    fs_llm_config bad = {2, 0, 10, 1, FS_LLM_KV_QUEUE};
    assert_int_equal(fs_llm_config_check(&bad, "b", &err), FS_ERR_INPUT);
    assert_string_equal(err.msg, "b.token_budget: expected an integer >= 1");
}

static void test_step_model_refusals(void **state)
{
    (void)state;
    fs_error err = {0};
    fs_llm_step_model m = linear(0.01, 1e-4, -1e-3, 0);
    assert_int_equal(fs_llm_step_model_check(&m, "services[0].batching.step", &err),
                     FS_ERR_INPUT);
    assert_string_equal(err.msg, "services[0].batching.step.c_decode: a step time coefficient "
                                 "must be a number >= 0 (seconds), got -0.001");
    m = linear(0, 1e-4, 0, 1e-6); /* a step of decodes alone would take no time */
    assert_int_equal(fs_llm_step_model_check(&m, "s", &err), FS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "s.c0: with c0 = 0 a step of only decodes would take no time"));
    m = linear(0.01, 0, 0, 0);
    assert_int_equal(fs_llm_step_model_check(&m, "s", &err), 0);
    m.bandwidth_share = 1.5;
    assert_int_equal(fs_llm_step_model_check(&m, "s", &err), FS_ERR_INPUT);
    assert_string_equal(err.msg, "s.bandwidth_share: expected a share of the GPU in (0, 1]");
    const fs_llm_gpu_peak *g = fs_llm_defaults_gpu("H100-SXM-80GB");
    m = fs_llm_step_roofline(fs_llm_defaults_model("Llama-3-8B"), g->bf16_flops, g->mem_bw, 0.6,
                             0.8, 0.002);
    assert_int_equal(fs_llm_step_model_check(&m, "s", &err), 0);
    m.flops_eff = 1.2;
    assert_int_equal(fs_llm_step_model_check(&m, "s", &err), FS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "s.flops_eff: expected a positive number"));
}

/* A unit's share of the GPU: compute-bound work scales with its SMs,
 * memory-bound work with its memory slices. */
static void test_unit_shares(void **state)
{
    (void)state;
    const fs_gpu_type *h100 = fs_gpu_find("H100-SXM-80GB");
    const fs_mig_profile *p = fs_gpu_mig_profile(h100, "3g.40gb");
    double cs, bs;
    fs_llm_mig_shares(h100, p, &cs, &bs);
    assert_near(cs, 60.0 / 132.0, EPS);
    assert_near(bs, 4.0 / 8.0, EPS);

    /* Linear: 0.01/0.25 + 1e-4 x 100/0.5 + 1e-3 x 3/0.25 + 1e-6 x 1000/0.25. */
    fs_llm_step_model m = linear(0.01, 1e-4, 1e-3, 1e-6);
    m.compute_share = 0.5;
    m.bandwidth_share = 0.25;
    fs_llm_batch b = {100, 3, 1000};
    assert_near(fs_llm_step_time(&m, &b), 0.04 + 0.02 + 0.012 + 0.004, EPS);

    /* Roofline, Llama-3-8B on H100 SXM, efficiencies 0.5 and 0.8, no c0.
     * Prefill of 4096 tokens: 2 x 8,030,261,248 x 4096 FLOPs / (989.5e12 x 0.5)
     * = 0.1330 s, against 16.06e9 B / (3.35e12 x 0.8) = 0.0060 s: compute-bound.
     * One decode at context 1000: 0.0060 s of bytes, 3.2e-5 s of FLOPs:
     * memory-bound. */
    const fs_llm_gpu_peak *g = fs_llm_defaults_gpu("H100-SXM-80GB");
    m = fs_llm_step_roofline(fs_llm_defaults_model("Llama-3-8B"), g->bf16_flops, g->mem_bw, 0.5,
                             0.8, 0);
    fs_llm_batch prefill = {4096, 0, 4096}, decode = {0, 1, 1000};
    double whole_p = fs_llm_step_time(&m, &prefill), whole_d = fs_llm_step_time(&m, &decode);
    assert_near(whole_p, 2.0 * 8030261248.0 * 4096 / (989.5e12 * 0.5), 1e-12);
    assert_near(whole_d, (16060522496.0 + 1000 * 131072.0) / (3.35e12 * 0.8), 1e-12);
    m.compute_share = cs;
    m.bandwidth_share = bs;
    assert_near(fs_llm_step_time(&m, &prefill), whole_p * 132.0 / 60.0, 1e-12);
    assert_near(fs_llm_step_time(&m, &decode), whole_d * 2, 1e-12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kv_bytes_by_hand),
        cmocka_unit_test(test_params_from_config),
        cmocka_unit_test(test_gpu_peaks),
        cmocka_unit_test(test_capacity),
        cmocka_unit_test(test_capacity_refusals),
        cmocka_unit_test(test_hand_schedule),
        cmocka_unit_test(test_saturated_throughput),
        cmocka_unit_test(test_preempt_newest_recompute),
        cmocka_unit_test(test_admitted_once),
        cmocka_unit_test(test_preempt_self_no_readmission),
        cmocka_unit_test(test_queue_policy_waits),
        cmocka_unit_test(test_conservation),
        cmocka_unit_test(test_enqueue_refusals),
        cmocka_unit_test(test_step_model_refusals),
        cmocka_unit_test(test_unit_shares),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

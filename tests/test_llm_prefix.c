/*
 * test_llm_prefix — prefix caching (llm_prefix.h, the engine's use of it
 * and a service's "prefix" generator): the cache's LRU order by hand, a
 * cached prefix skipping exactly its full blocks of prefill, the hit ratio
 * of a trace whose prefixes all repeat worked out by hand, caching off
 * giving exactly the figures of a service without prefixes, and LRU
 * eviction under memory pressure.
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
#include "llm_prefix.h"
#include "results.h"
#include "scenario.h"
#include "testutil.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

/* Pinned entries stay; unpinned ones go least recently used first. */
static void test_cache_lru(void **state)
{
    (void)state;
    fs_llm_prefix c;
    assert_int_equal(fs_llm_prefix_init(&c, 3), 0);
    uint32_t freed = 0;
    uint32_t a = fs_llm_prefix_insert(&c, 11, 2, &freed), b = fs_llm_prefix_insert(&c, 12, 3, &freed),
             d = fs_llm_prefix_insert(&c, 13, 4, &freed);
    assert_true(a && b && d);
    assert_int_equal(c.cached_blocks, 9);
    assert_int_equal(c.evictable_blocks, 0);
    assert_int_equal(fs_llm_prefix_evict(&c), 0); /* all pinned */
    fs_llm_prefix_unpin(&c, b);
    fs_llm_prefix_unpin(&c, a);
    fs_llm_prefix_unpin(&c, d);
    assert_int_equal(c.evictable_blocks, 9);
    fs_llm_prefix_pin(&c, b); /* used again: out of the LRU list */
    fs_llm_prefix_unpin(&c, b); /* now the most recent */
    /* A full cache makes room by evicting the LRU entry, a (2 blocks). */
    freed = 0;
    uint32_t e = fs_llm_prefix_insert(&c, 14, 1, &freed);
    assert_true(e);
    assert_int_equal(freed, 2);
    assert_int_equal(fs_llm_prefix_find(&c, 11), 0);
    assert_int_equal(fs_llm_prefix_evict(&c), 4); /* d, then b */
    assert_int_equal(fs_llm_prefix_evict(&c), 3);
    assert_int_equal(fs_llm_prefix_find(&c, 12), 0);
    assert_int_equal(fs_llm_prefix_find(&c, 14), e);
    assert_int_equal(c.cached_blocks, 1);
    fs_llm_prefix_fini(&c);
}

/* The arrays grow with use up to the cap (a trace's caches are capped at
 * 2^32 - 1 entries and must not allocate them): every key still found
 * after growing, LRU order kept, and a cap that is not a power of two
 * (100) reached exactly: the 101st insert evicts, or fails when all are
 * pinned. */
static void test_cache_grows(void **state)
{
    (void)state;
    fs_llm_prefix c;
    assert_int_equal(fs_llm_prefix_init(&c, UINT32_MAX), 0);
    assert_true(c.alloc < 1000);
    uint32_t freed = 0, h[5000];
    for (uint32_t k = 0; k < 5000; k++)
        assert_true((h[k] = fs_llm_prefix_insert(&c, 1000 + 7 * (uint64_t)k, 1 + k % 3, &freed)) != 0);
    assert_int_equal(freed, 0);
    assert_true(c.alloc >= 5000 && c.alloc < 20000);
    for (uint32_t k = 0; k < 5000; k++) {
        assert_int_equal(fs_llm_prefix_find(&c, 1000 + 7 * (uint64_t)k), h[k]);
        fs_llm_prefix_unpin(&c, h[4999 - k]); /* the last inserted is the least recently used */
    }
    assert_int_equal(fs_llm_prefix_find(&c, 1001), 0);
    assert_int_equal(fs_llm_prefix_evict(&c), 1 + 4999 % 3);
    assert_int_equal(fs_llm_prefix_find(&c, 1000 + 7 * 4999), 0);
    fs_llm_prefix_fini(&c);

    assert_int_equal(fs_llm_prefix_init(&c, 100), 0);
    for (uint32_t k = 0; k < 100; k++)
        assert_true((h[k] = fs_llm_prefix_insert(&c, k + 1, 1, &freed)) != 0);
    assert_int_equal(c.alloc, 100);
    assert_int_equal(fs_llm_prefix_insert(&c, 101, 1, &freed), 0); /* all pinned */
    fs_llm_prefix_unpin(&c, h[40]);
    assert_int_equal(fs_llm_prefix_insert(&c, 101, 1, &freed), h[40]); /* its slot, evicted */
    assert_int_equal(freed, 1);
    assert_int_equal(fs_llm_prefix_find(&c, 41), 0);
    assert_int_equal(c.alloc, 100);
    fs_llm_prefix_fini(&c);
}

/*
 * By hand, 4-token blocks, budget 100: R1 (prompt 10, output 2, prefix 7 of
 * 9 tokens) computes 10 prompt tokens; its prefix's 2 full blocks (8 tokens)
 * stay cached when its prefill ends.  R2, same prefix, enqueued after R1
 * finished, computes only 10 - 8 = 2 prompt tokens.  R3 (prompt 8, whole
 * prompt = the cached 8 tokens) still computes its last token: 1 block
 * reused, 4 computed.
 */
static void test_engine_skips_cached_blocks(void **state)
{
    (void)state;
    fs_llm_seq running[4], waiting[8];
    fs_llm_event events[FS_LLM_EVENTS_MAX(4)];
    fs_llm_engine e;
    fs_llm_config cfg = {4, 100, 64, 4, FS_LLM_KV_PREEMPT};
    fs_error err = {0};
    assert_int_equal(fs_llm_engine_init(&e, &cfg, running, waiting, 8, "e", &err), 0);
    fs_llm_prefix cache;
    assert_int_equal(fs_llm_prefix_init(&cache, 8), 0);
    e.prefix = &cache;
    fs_llm_step_model m = {.kind = FS_LLM_STEP_LINEAR, .c0 = 1, .c_prefill = 0.1, .c_decode = 0.5,
                           .compute_share = 1, .bandwidth_share = 1};
    fs_llm_step_out out = {.events = events};
    assert_int_equal(fs_llm_engine_enqueue_prefixed(&e, 1, 10, 2, 7, 9, "e", &err), 0);
    fs_llm_engine_step(&e, &m, &out);
    assert_int_equal(out.batch.prefill_tokens, 10);
    assert_int_equal(out.prefill_queried, 10);
    assert_int_equal(out.prefill_cached, 0);
    assert_int_equal(cache.cached_blocks, 2);
    fs_llm_engine_step(&e, &m, &out); /* R1 decodes its last token and leaves */
    assert_int_equal(e.n_running, 0);
    assert_int_equal(cache.evictable_blocks, 2);
    /* Blocks: the 2 cached are neither free nor a sequence's. */
    assert_int_equal(e.free_blocks, 62);
    assert_int_equal(fs_llm_engine_enqueue_prefixed(&e, 2, 10, 2, 7, 9, "e", &err), 0);
    fs_llm_engine_step(&e, &m, &out);
    assert_int_equal(out.batch.prefill_tokens, 2);
    assert_int_equal(out.prefill_queried, 10);
    assert_int_equal(out.prefill_cached, 8);
    assert_int_equal(out.batch.kv_tokens_read, 10); /* attends to the cached context too */
    assert_int_equal(cache.evictable_blocks, 0);    /* pinned while R2 runs */
    fs_llm_engine_step(&e, &m, &out);
    assert_int_equal(fs_llm_engine_enqueue_prefixed(&e, 3, 8, 1, 7, 9, "e", &err), 0);
    fs_llm_engine_step(&e, &m, &out);
    assert_int_equal(out.prefill_cached, 4);
    assert_int_equal(out.batch.prefill_tokens, 4);
    assert_int_equal(cache.n_entries, 1);
    fs_llm_prefix_fini(&cache);
}

/* Without a cache a prefixed request runs exactly as an unprefixed one. */
static void test_engine_no_cache_ignores_prefix(void **state)
{
    (void)state;
    fs_llm_seq running[2][4], waiting[2][8];
    fs_llm_event events[2][FS_LLM_EVENTS_MAX(4)];
    fs_llm_engine e[2];
    fs_llm_config cfg = {4, 6, 64, 4, FS_LLM_KV_PREEMPT};
    fs_error err = {0};
    fs_llm_step_model m = {.kind = FS_LLM_STEP_LINEAR, .c0 = 1, .c_prefill = 0.1, .c_decode = 0.5,
                           .c_kv = 0.01, .compute_share = 1, .bandwidth_share = 1};
    for (int k = 0; k < 2; k++) {
        assert_int_equal(fs_llm_engine_init(&e[k], &cfg, running[k], waiting[k], 8, "e", &err), 0);
        for (uint64_t id = 1; id <= 3; id++)
            assert_int_equal(fs_llm_engine_enqueue_prefixed(&e[k], id, 9, 3, k ? 5 : 0, k ? 8 : 0, "e", &err), 0);
    }
    for (int step = 0; step < 12; step++) {
        fs_llm_step_out out[2] = {{.events = events[0]}, {.events = events[1]}};
        fs_llm_engine_step(&e[0], &m, &out[0]);
        fs_llm_engine_step(&e[1], &m, &out[1]);
        assert_true(out[0].duration == out[1].duration);
        assert_int_equal(out[0].tokens_out, out[1].tokens_out);
        assert_int_equal(out[0].n_events, out[1].n_events);
    }
}

/* The JSON of one H100 replica of a toy model; `extra` adds batching
 * members, `service_extra` service members. */
static const char *prefix_json(const char *arrivals, const char *extra, const char *service_extra)
{
    static char text[2048];
    int n = snprintf(
        text, sizeof text,
        "{\"schema\": \"fleetsim/1\", \"name\": \"prefix\", \"horizon\": \"2h\", \"warmup\": \"0s\","
        " \"window\": \"10m\", \"replications\": 1, \"seed\": 9,"
        " \"pools\": [{\"name\": \"p\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 1}],"
        " \"services\": [{\"name\": \"llm\", \"pool\": \"p\", \"arrivals\": %s, \"replicas\": {\"count\": 1},"
        "   \"batching\": {\"kind\": \"continuous\", \"model\": \"Llama-3-8B\", \"max_seqs\": 32,"
        "     \"step_time\": {\"linear\": {\"c0\": \"5ms\", \"c_prefill\": \"0.05ms\", \"c_decode\": \"0.1ms\","
        "       \"c_kv\": \"0.00001ms\"}} %s} %s}]}",
        arrivals, extra, service_extra);
    assert_true(n > 0 && (size_t)n < sizeof text);
    return text;
}

static fs_scenario *prefix_scenario(const char *arrivals, const char *extra, const char *service_extra)
{
    return test_scenario("%s", prefix_json(arrivals, extra, service_extra));
}

/* Writes row i's cells after its time: "prompt,output" and, for a trace
 * with prefix columns, ",identity,prefix tokens". */
typedef void trace_row_fn(unsigned i, char *out, size_t size);

/*
 * Runs prefix_scenario on a trace of n rows 10 s apart, so that no request
 * overlaps another (Poisson arrivals could); `header` names the columns
 * after "t", `trace_extra` adds members to the trace object (its prefix
 * columns), `batching_extra` to the batching.  The scenario in *s.
 */
static fs_results *run_spaced_trace(unsigned n, const char *header, trace_row_fn *row, const char *trace_extra,
                                    const char *batching_extra, fs_scenario **s)
{
    char dir[256];
    assert_int_equal(test_tmpdir(dir, sizeof dir, "fs-prefix"), 0);
    char *csv = malloc(64 * (size_t)n + 64);
    assert_non_null(csv);
    size_t at = (size_t)sprintf(csv, "t,%s\n", header);
    for (unsigned i = 0; i < n; i++) {
        at += (size_t)sprintf(csv + at, "%u,", i * 10);
        row(i, csv + at, 48);
        at += strlen(csv + at);
        csv[at++] = '\n';
        csv[at] = '\0';
    }
    test_write(test_path("%s/t.csv", dir), csv);
    free(csv);
    char arrivals[512];
    snprintf(arrivals, sizeof arrivals,
             "{\"trace\": {\"file\": \"%s/t.csv\", \"time\": \"t\", \"sizes\": [\"p\", \"o\"] %s}}", dir,
             trace_extra);
    *s = prefix_scenario(arrivals, batching_extra, "");
    fs_results *r = test_run(*s);
    test_rmdir(dir);
    return r;
}

/* The hit ratio of run r, checked against prefill_cached / prefill_queried. */
static double hit_ratio(const fs_results *r)
{
    const fs_service_rep *rep = &r->policies[0].reps[0].services[0];
    double fig[FS_LFIG_COUNT];
    fs_results_llm_figures(r, 0, 0, 0, fig);
    assert_true(fig[FS_LFIG_PREFIX_HIT_RATIO] == (double)rep->prefill_cached / (double)rep->prefill_queried);
    return fig[FS_LFIG_PREFIX_HIT_RATIO];
}

static void row_plain(unsigned i, char *out, size_t size)
{
    (void)i;
    snprintf(out, size, "1200,20");
}

static void row_same_identity(unsigned i, char *out, size_t size)
{
    (void)i;
    snprintf(out, size, "1200,20,system prompt,1000");
}

/*
 * Every request shares one prefix of 1,000 tokens, prompt 1,200, output 20;
 * arrivals 10 s apart, so none overlaps another.  The first computes its
 * prefix; each later one finds floor(1000 / 16) = 62 blocks = 992 tokens
 * cached.  Hit ratio = (N - 1) x 992 / (N x 1200), exactly: with the prefix
 * from the generator (one group) and from a trace column whose rows all
 * name one identity, which must run the same to the bit.
 */
static void test_hit_ratio_by_hand(void **state)
{
    (void)state;
    const unsigned n = 600;
    fs_scenario *s[2];
    fs_results *r[2] = {
        run_spaced_trace(n, "p,o", row_plain, "", ", \"prefix\": {\"groups\": 1, \"tokens\": 1000}", &s[0]),
        run_spaced_trace(n, "p,o,id,pt", row_same_identity, ", \"prefix\": \"id\", \"prefix_tokens\": \"pt\"", "",
                         &s[1]),
    };
    for (int k = 0; k < 2; k++) {
        const fs_service_rep *rep = &r[k]->policies[0].reps[0].services[0];
        assert_int_equal(rep->completed, n);
        assert_int_equal(rep->prefill_queried, (uint64_t)n * 1200);
        assert_int_equal(rep->prefill_cached, (uint64_t)(n - 1) * 992);
        assert_true(fabs(hit_ratio(r[k]) - (double)(n - 1) * 992 / (n * 1200.0)) < 1e-12);
        /* The cached prefix shortens every later request's prefill: TTFT
         * falls from 5 + 1200 x 0.05 = 65 ms to 5 + 208 x 0.05 = 15.4 ms
         * (plus the KV read). */
        assert_true(rep->ttft.max_ns > 60e6);
        assert_true(fs_hist_quantile(&rep->ttft, 0.5) < 20e6);
    }
    const fs_service_rep *a = &r[0]->policies[0].reps[0].services[0], *b = &r[1]->policies[0].reps[0].services[0];
    assert_true(a->ttft.sum_ns == b->ttft.sum_ns && a->latency.sum_ns == b->latency.sum_ns);
    for (int k = 0; k < 2; k++) {
        fs_results_destroy(r[k]);
        fs_scenario_destroy(s[k]);
    }
}

/* Identities A and B in turn: A prompts 1,200 tokens opening with a 1,000-
 * token prefix, B prompts 300 with a prefix of 500 that the prompt clips to
 * 300. */
static void row_alternating(unsigned i, char *out, size_t size)
{
    snprintf(out, size, i % 2 ? "300,20,B,500" : "1200,20,A,1000");
}

static void row_distinct(unsigned i, char *out, size_t size)
{
    snprintf(out, size, "1200,20,conversation %u,1000", i);
}

/*
 * Two identities in turn, nothing overlapping (10 s apart): the first A and
 * the first B compute their prefixes; each later A finds floor(1000 / 16) =
 * 62 blocks (992 tokens) cached, each later B floor(300 / 16) = 18 blocks
 * (288 tokens: its prefix clipped to its prompt, and 18 blocks still leave
 * its last prompt token to compute).  With N / 2 of each, cached =
 * (N / 2 - 1) x (992 + 288) of N / 2 x (1200 + 300) queried.  A new identity
 * on every row: nothing is ever reused, hit ratio 0 (a figure, not no data:
 * the cache was there and asked).
 */
static void test_trace_identities_by_hand(void **state)
{
    (void)state;
    const unsigned n = 400;
    const char *columns = ", \"prefix\": \"id\", \"prefix_tokens\": \"pt\"";
    fs_scenario *s;
    fs_results *r = run_spaced_trace(n, "p,o,id,pt", row_alternating, columns, "", &s);
    const fs_service_rep *rep = &r->policies[0].reps[0].services[0];
    assert_int_equal(rep->completed, n);
    assert_int_equal(rep->prefill_queried, (uint64_t)n / 2 * (1200 + 300));
    assert_int_equal(rep->prefill_cached, (uint64_t)(n / 2 - 1) * (992 + 288));
    assert_true(fabs(hit_ratio(r) - (double)(n / 2 - 1) * (992 + 288) / (n / 2 * 1500.0)) < 1e-12);
    fs_results_destroy(r);
    fs_scenario_destroy(s);

    r = run_spaced_trace(n, "p,o,id,pt", row_distinct, columns, "", &s);
    rep = &r->policies[0].reps[0].services[0];
    assert_int_equal(rep->completed, n);
    assert_int_equal(rep->prefill_queried, (uint64_t)n * 1200);
    assert_int_equal(rep->prefill_cached, 0);
    assert_true(hit_ratio(r) == 0);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

/* Caching off: the same figures, to the bit, as a service without
 * prefixes (the prefix draws have their own stream). */
static void test_caching_off_equals_no_prefix(void **state)
{
    (void)state;
    const char *tokens = ", \"prompt_tokens\": {\"lognormal\": {\"median\": 900, \"sigma\": 0.6}},"
                         " \"output_tokens\": {\"lognormal\": {\"median\": 150, \"sigma\": 0.6}}";
    char with[512], on[512];
    snprintf(with, sizeof with, "%s, \"prefix\": {\"groups\": 50, \"tokens\": 600, \"zipf\": 1}, \"prefix_caching\": false",
             tokens);
    snprintf(on, sizeof on, "%s, \"prefix\": {\"groups\": 50, \"tokens\": 600, \"zipf\": 1}", tokens);
    fs_scenario *s0 = prefix_scenario("{\"poisson_rps\": 6}", tokens, "");
    fs_scenario *s1 = prefix_scenario("{\"poisson_rps\": 6}", with, "");
    fs_scenario *s2 = prefix_scenario("{\"poisson_rps\": 6}", on, "");
    fs_results *r0 = test_run(s0), *r1 = test_run(s1), *r2 = test_run(s2);
    const fs_service_rep *a = &r0->policies[0].reps[0].services[0], *b = &r1->policies[0].reps[0].services[0],
                         *c = &r2->policies[0].reps[0].services[0];
    assert_int_equal(a->completed, b->completed);
    assert_int_equal(a->steps, b->steps);
    assert_int_equal(a->tokens_generated, b->tokens_generated);
    assert_true(a->ttft.sum_ns == b->ttft.sum_ns);
    assert_true(a->latency.sum_ns == b->latency.sum_ns);
    assert_int_equal(b->prefill_cached, 0);
    /* On: the same requests (same token draws), shorter prefills. */
    assert_int_equal(c->requests, a->requests);
    assert_true(c->prefill_cached > 0);
    assert_true(fs_hist_mean(&c->ttft) < fs_hist_mean(&a->ttft));
    double fig[FS_LFIG_COUNT];
    fs_results_llm_figures(r1, 0, 0, 0, fig);
    assert_true(isnan(fig[FS_LFIG_PREFIX_HIT_RATIO])); /* no cache: no data, not 0 */
    fs_results_destroy(r0);
    fs_results_destroy(r1);
    fs_results_destroy(r2);
    fs_scenario_destroy(s0);
    fs_scenario_destroy(s1);
    fs_scenario_destroy(s2);
}

/* A cache too small for the groups' prefixes evicts (LRU): a lower hit
 * ratio than with room for all, requests conserved either way. */
static void test_eviction_under_pressure(void **state)
{
    (void)state;
    double ratio[2];
    for (int k = 0; k < 2; k++) {
        char memory[128];
        /* Budget = weights + 300 or 30,000 blocks of 16 tokens x 128 KiB. */
        snprintf(memory, sizeof memory, ", \"memory_gb\": %.12f",
                 (8030261248.0 * 2 + (k ? 30000.0 : 300.0) * 16 * 131072) / GIB);
        fs_scenario *s = prefix_scenario("{\"poisson_rps\": 4}",
                                         ", \"prompt_tokens\": {\"deterministic\": {\"value\": 800}},"
                                         " \"output_tokens\": {\"deterministic\": {\"value\": 40}},"
                                         " \"prefix\": {\"groups\": 200, \"tokens\": 640, \"zipf\": 0.8}",
                                         memory);
        fs_results *r = test_run(s);
        const fs_service_rep *rep = &r->policies[0].reps[0].services[0];
        assert_int_equal(rep->in_flight_start + rep->requests, rep->completed + rep->dropped + rep->in_flight_end);
        ratio[k] = (double)rep->prefill_cached / (double)rep->prefill_queried;
        fs_results_destroy(r);
        fs_scenario_destroy(s);
    }
    assert_true(ratio[0] > 0 && ratio[0] < ratio[1]);
    assert_true(ratio[1] < 640.0 / 800);
}

static void test_refusals(void **state)
{
    (void)state;
    test_parse_refused(
        "{\"schema\": \"fleetsim/1\", \"name\": \"x\", \"horizon\": \"1h\","
        " \"pools\": [{\"name\": \"p\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 1}],"
        " \"services\": [{\"name\": \"llm\", \"pool\": \"p\", \"arrivals\": {\"poisson_rps\": 1},"
        "   \"batching\": {\"kind\": \"continuous\", \"model\": \"Llama-3-8B\","
        "     \"step_time\": {\"linear\": {\"c0\": \"5ms\", \"c_prefill\": \"0.1ms\", \"c_decode\": \"0.1ms\"}},"
        "     \"prompt_tokens\": {\"deterministic\": {\"value\": 100}},"
        "     \"output_tokens\": {\"deterministic\": {\"value\": 10}},"
        "     \"prefix\": {\"groups\": 0, \"tokens\": 10}}}]}",
        "x.json", FS_ERR_INPUT, "services[0].batching.prefix.groups");
}

/* A trace's prefix columns: beside a generator, on a service without an
 * LLM engine, or one without the other: refused at load with the path. */
static void test_trace_prefix_refusals(void **state)
{
    (void)state;
    const char *traced = "{\"trace\": {\"file\": \"t.csv\", \"time\": \"t\", \"sizes\": [\"p\", \"o\"],"
                         " \"prefix\": \"id\", \"prefix_tokens\": \"pt\"}}";
    test_parse_refused(prefix_json(traced, ", \"prefix\": {\"groups\": 4, \"tokens\": 100}", ""), "x.json",
                       FS_ERR_INPUT, "services[0].batching.prefix: the trace's \"prefix\" column (\"id\") already");
    test_parse_refused(prefix_json("{\"trace\": {\"file\": \"t.csv\", \"time\": \"t\", \"sizes\": [\"p\", \"o\"],"
                                   " \"prefix\": \"id\"}}",
                                   "", ""),
                       "x.json", FS_ERR_INPUT, "services[0].arrivals.trace.prefix: expected a \"prefix_tokens\" column");
    test_parse_refused(prefix_json("{\"trace\": {\"file\": \"t.csv\", \"time\": \"t\", \"sizes\": [\"p\", \"o\"],"
                                   " \"prefix_tokens\": \"pt\"}}",
                                   "", ""),
                       "x.json", FS_ERR_INPUT, "services[0].arrivals.trace.prefix_tokens: expected a \"prefix\" column");
    char plain[1024];
    snprintf(plain, sizeof plain,
             "{\"schema\": \"fleetsim/1\", \"name\": \"x\", \"horizon\": \"1h\","
             " \"pools\": [{\"name\": \"p\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 1}],"
             " \"services\": [{\"name\": \"web\", \"pool\": \"p\", \"arrivals\": %s,"
             "   \"service_time\": {\"deterministic\": {\"value\": \"10ms\"}}, \"replicas\": 1}]}",
             traced);
    test_parse_refused(plain, "x.json", FS_ERR_INPUT, "services[0].arrivals.trace.prefix: a prefix column is read only");
}

/* A bad prefix_tokens cell stops the run as bad input (exit 2, file:line,
 * the column, the text, no results); --lenient skips and counts the row. */
static void test_bad_prefix_tokens(void **state)
{
    (void)state;
    char dir[256];
    assert_int_equal(test_tmpdir(dir, sizeof dir, "fs-prefix"), 0);
    test_write(test_path("%s/t.csv", dir), "t,p,o,id,pt\n0,1200,20,a,100\n10,1200,20,a,1x\n20,1200,20,b,5\n");
    test_write(test_path("%s/s.json", dir),
               prefix_json("{\"trace\": {\"file\": \"t.csv\", \"time\": \"t\", \"sizes\": [\"p\", \"o\"],"
                           " \"prefix\": \"id\", \"prefix_tokens\": \"pt\"}}",
                           "", ""));
    assert_int_equal(test_fleetsim(dir, "run %s/s.json --out %s/strict", dir, dir), 2);
    test_stderr_has(dir, test_path("%s/t.csv:3: pt is not a whole number of tokens >= 0, got \"1x\"", dir));
    assert_false(test_exists("%s/strict/results.json", dir));
    assert_int_equal(test_fleetsim(dir, "run %s/s.json --lenient --out %s/lenient", dir, dir), 0);
    char *results = test_slurp("%s/lenient/results.json", dir);
    assert_non_null(results);
    assert_non_null(strstr(results, "\"skipped_bad_rows\": 1"));
    free(results);
    test_rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cache_lru),
        cmocka_unit_test(test_cache_grows),
        cmocka_unit_test(test_engine_skips_cached_blocks),
        cmocka_unit_test(test_engine_no_cache_ignores_prefix),
        cmocka_unit_test(test_hit_ratio_by_hand),
        cmocka_unit_test(test_caching_off_equals_no_prefix),
        cmocka_unit_test(test_eviction_under_pressure),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_trace_identities_by_hand),
        cmocka_unit_test(test_trace_prefix_refusals),
        cmocka_unit_test(test_bad_prefix_tokens),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

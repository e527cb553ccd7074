/*
 * test_policy_services — a policy's "services": JSON merge patches that
 * deploy a top-level service differently under one policy.  A patch changes
 * its own policy's variant only (the root's too when the first policy has
 * one); null deletes a key, at any depth; the keys that define the workload
 * or its targets are refused with their path, a null "batching" included; a
 * patch of a service that does not exist is refused naming the ones that
 * do; an error in a patched service names the patch; and two policies that
 * deploy a service differently see the same arrivals (common random
 * numbers), with compare's warnings and validate's lines each policy's own.
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

/* Two policies on the same pool; %s after each policy's pools is its
 * "services" member (or nothing), then chat's extra keys and replicas.
 * embed batches. */
#define DOC                                                                                                        \
    "{\"schema\": \"fleetsim/1\", \"name\": \"patch\", \"horizon\": \"30m\", \"warmup\": \"5m\","                \
    " \"window\": \"5m\", \"seed\": 7, \"replications\": 2,"                                                        \
    " \"policies\": {\"a\": {\"pools\": [{\"name\": \"p\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 8}] %s},"          \
    "              \"b\": {\"pools\": [{\"name\": \"p\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 8}] %s}},"          \
    " \"services\": [{\"name\": \"chat\", \"pool\": \"p\", \"arrivals\": {\"poisson_rps\": 25},"                    \
    "   %s \"service_time\": {\"exponential\": {\"mean\": \"100ms\"}}, \"replicas\": %s},"        \
    "  {\"name\": \"embed\", \"pool\": \"p\", \"arrivals\": {\"poisson_rps\": 40}, \"replicas\": 1,"                \
    "   \"batching\": {\"kind\": \"dynamic\", \"max_batch_size\": 8, \"max_queue_delay\": \"5ms\","                   \
    "     \"preferred_batch_sizes\": [4, 8], \"batch_time\": {\"linear\": {\"base\": \"10ms\","                       \
    "     \"per_request\": \"2ms\"}}}}]}"

/* One LLM service; %s is policy b's "services" member. */
#define LLM_DOC                                                                                                    \
    "{\"schema\": \"fleetsim/1\", \"name\": \"patch-llm\", \"horizon\": \"30m\","                                  \
    " \"policies\": {\"a\": {\"pools\": [{\"name\": \"p\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 2}]},"             \
    "              \"b\": {\"pools\": [{\"name\": \"p\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 2}] %s}},"          \
    " \"services\": [{\"name\": \"llm\", \"pool\": \"p\", \"arrivals\": {\"poisson_rps\": 2}, \"replicas\": 1,"    \
    "   \"batching\": {\"kind\": \"continuous\", \"model\": \"Llama-3-8B\", \"max_seqs\": 48,"                       \
    "     \"step_time\": {\"linear\": {\"c0\": \"6ms\", \"c_prefill\": \"0.06ms\", \"c_decode\": \"0.08ms\","       \
    "       \"c_kv\": \"0.00001ms\"}},"                                                                             \
    "     \"prompt_tokens\": {\"lognormal\": {\"median\": 1200, \"sigma\": 0.5}},"                                   \
    "     \"output_tokens\": {\"lognormal\": {\"median\": 150, \"sigma\": 0.6}},"                                    \
    "     \"max_model_len\": 8192, \"prefix\": {\"groups\": 30, \"tokens\": 900, \"zipf\": 0.9}}}]}"

#define FIXED "a policy changes how a service is deployed, not its traffic or its targets"

#define QUEUE_50 "\"queue_limit\": 50,"

static char *doc(const char *patch_a, const char *patch_b, const char *chat_extra, const char *replicas)
{
    size_t n = (size_t)snprintf(NULL, 0, DOC, patch_a, patch_b, chat_extra, replicas) + 1;
    char *text = malloc(n);
    assert_non_null(text);
    snprintf(text, n, DOC, patch_a, patch_b, chat_extra, replicas);
    return text;
}

static fs_scenario *patched(const char *patch_a, const char *patch_b)
{
    return test_scenario(DOC, patch_a, patch_b, QUEUE_50, "3");
}

static void refused(const char *patch_b, const char *want)
{
    char *text = doc("", patch_b, QUEUE_50, "3");
    test_parse_refused(text, "test", FS_ERR_INPUT, want);
    free(text);
}

static void llm_refused(const char *patch_b, const char *want)
{
    char text[4096];
    snprintf(text, sizeof text, LLM_DOC, patch_b);
    test_parse_refused(text, "test", FS_ERR_INPUT, want);
}

/* Policy b's patch changes b's chat and nothing else; a patch on the first
 * policy changes the root, which is that policy. */
static void test_patch_changes_its_policy_only(void **state)
{
    (void)state;
    fs_scenario *s = patched("", ", \"services\": {\"chat\": {\"replicas\": 6}}");
    assert_int_equal(s->n_policies, 2);
    const fs_scenario *a = s->policies[0], *b = s->policies[1];
    assert_ptr_equal(a, s);
    assert_int_equal(a->services[0].replicas, 3);
    assert_int_equal(b->services[0].replicas, 6);
    for (size_t i = 0; i < 2; i++) {
        assert_string_equal(a->services[i].name, b->services[i].name);
        assert_true(a->services[i].arrivals.base_rps == b->services[i].arrivals.base_rps);
        assert_int_equal(a->services[i].queue_limit, b->services[i].queue_limit);
    }
    assert_int_equal(b->services[1].replicas, a->services[1].replicas);
    fs_scenario_destroy(s);

    s = patched(", \"services\": {\"chat\": {\"replicas\": 2}}", "");
    assert_int_equal(s->services[0].replicas, 2);
    assert_int_equal(s->policies[1]->services[0].replicas, 3);
    fs_scenario_destroy(s);
}

/* null deletes a key: at the top of a service, and inside "batching"; a
 * null for a key the service lacks changes nothing. */
static void test_null_deletes(void **state)
{
    (void)state;
    fs_scenario *s = patched("", ", \"services\": {\"chat\": {\"queue_limit\": null, \"memory_gb\": null},"
                                 " \"embed\": {\"batching\": {\"preferred_batch_sizes\": null,"
                                 " \"max_batch_size\": 16}}}");
    const fs_scenario *a = s->policies[0], *b = s->policies[1];
    assert_int_equal(a->services[0].queue_limit, 50);
    assert_true(b->services[0].queue_limit == FS_QUEUE_UNLIMITED);
    assert_true(b->services[0].memory_gb == 0);
    assert_int_equal(a->services[1].batching.n_preferred, 2);
    assert_int_equal(b->services[1].batching.n_preferred, 0);
    assert_int_equal(a->services[1].batching.max_batch_size, 8);
    assert_int_equal(b->services[1].batching.max_batch_size, 16);
    fs_scenario_destroy(s);
}

/* What defines the workload or its targets is refused with its path. */
static void test_fixed_keys_refused(void **state)
{
    (void)state;
    static const char *const keys[][2] = {{"name", "\"x\""},          {"tenant", "\"x\""},
                                          {"arrivals", "{\"poisson_rps\": 50}"}, {"slo", "{\"p99_ms\": 100}"},
                                          {"service_time", "null"}};
    for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
        char patch[256], want[256];
        snprintf(patch, sizeof patch, ", \"services\": {\"chat\": {\"replicas\": 4, \"%s\": %s}}", keys[k][0],
                 keys[k][1]);
        snprintf(want, sizeof want, "test: policies.b.services.chat.%s: " FIXED, keys[k][0]);
        refused(patch, want);
    }
    static const char *const llm_keys[][2] = {{"prompt_tokens", "{\"deterministic\": 10}"},
                                              {"output_tokens", "null"},
                                              {"prefix", "{\"groups\": 2}"},
                                              {"max_model_len", "4096"},
                                              {"model", "\"Llama-3-70B\""}};
    for (size_t k = 0; k < sizeof llm_keys / sizeof *llm_keys; k++) {
        char patch[256], want[256];
        snprintf(patch, sizeof patch, ", \"services\": {\"llm\": {\"batching\": {\"max_seqs\": 16, \"%s\": %s}}}",
                 llm_keys[k][0], llm_keys[k][1]);
        snprintf(want, sizeof want, "test: policies.b.services.llm.batching.%s: " FIXED, llm_keys[k][0]);
        llm_refused(patch, want);
    }
    /* Deleting "batching" whole would delete its request sizes. */
    llm_refused(", \"services\": {\"llm\": {\"batching\": null}}",
                "test: policies.b.services.llm.batching: " FIXED " (this would remove \"batching.prompt_tokens\")");
    /* The engine's settings are the deployment's: they may differ. */
    char text[4096];
    snprintf(text, sizeof text, LLM_DOC,
             ", \"services\": {\"llm\": {\"batching\": {\"max_seqs\": 16, \"routing\": \"least_loaded\"}}}");
    fs_scenario *s = test_scenario("%s", text);
    assert_int_equal(s->services[0].batching.llm.max_seqs, 48);
    assert_int_equal(s->policies[1]->services[0].batching.llm.max_seqs, 16);
    assert_int_equal(s->policies[1]->services[0].batching.llm.routing, FS_LLM_ROUTE_LEAST_LOADED);
    assert_int_equal(s->policies[1]->services[0].batching.llm.max_model_len, 8192);
    fs_scenario_destroy(s);
}

/* A patch must name a service and be an object; "services" an object. */
static void test_unknown_service_refused(void **state)
{
    (void)state;
    refused(", \"services\": {\"chta\": {\"replicas\": 4}}",
            "test: policies.b.services.chta: no service named \"chta\" (did you mean \"chat\"?)");
    refused(", \"services\": {\"summarize\": {\"replicas\": 4}}",
            "test: policies.b.services.summarize: no service named \"summarize\" (the services: \"chat\", \"embed\")");
    refused(", \"services\": {\"chat\": 4}", "test: policies.b.services.chat: expected an object: a JSON merge patch "
                                             "of service \"chat\", got 4");
    refused(", \"services\": [1]", "test: policies.b.services: expected an object of service names");
}

/* An error in a patched service says which patch it came through; the same
 * value in the document itself gives the message without it. */
static void test_patched_error_names_the_policy(void **state)
{
    (void)state;
    refused(", \"services\": {\"chat\": {\"replicas\": -1}}",
            "test: services[0].replicas: expected an integer from 1 to 100000, got -1 (as patched by "
            "policies.b.services.chat)");
    refused(", \"services\": {\"embed\": {\"pool\": \"nope\"}}", "(as patched by policies.b.services.embed)");
    char *text = doc("", "", QUEUE_50, "-1");
    fs_scenario *s = NULL;
    fs_error err = {0};
    assert_int_equal(fs_scenario_parse(text, "test", &s, &err), FS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "services[0].replicas: expected an integer"));
    assert_null(strstr(err.msg, "patched"));
    assert_null(s);
    free(text);
}

/* Two policies that deploy chat differently: the same requests arrive in
 * each replication (common random numbers), and the deployment differs (b
 * has twice the capacity). */
static void test_same_arrivals_under_both(void **state)
{
    (void)state;
    fs_scenario *s = patched("", ", \"services\": {\"chat\": {\"replicas\": 6}}");
    fs_results *r = test_run(s);
    assert_int_equal(r->n_policies, 2);
    for (uint32_t k = 0; k < 2; k++)
        for (size_t i = 0; i < 2; i++) {
            uint64_t a = r->policies[0].reps[k].services[i].requests, b = r->policies[1].reps[k].services[i].requests;
            assert_true(a > 0);
            assert_int_equal(a, b);
        }
    assert_true(fabs(r->policies[1].loads[0].capacity_rps - 2 * r->policies[0].loads[0].capacity_rps) <
                1e-9 * r->policies[0].loads[0].capacity_rps);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

/* Through the command: compare runs both; its overload warning gives each
 * policy's own queue limit, and validate lists the service b deploys
 * differently under b (and only that one). */
static void test_compare_and_validate(void **state)
{
    (void)state;
    char dir[256];
    assert_int_equal(test_tmpdir(dir, sizeof dir, "fleetsim-policy-services"), 0);
    /* chat overloaded (25/s on one replica of 10/s); b bounds its queue. */
    char *text = doc("", ", \"services\": {\"chat\": {\"queue_limit\": 20}}", "", "1");
    test_write(test_path("%s/s.json", dir), text);
    free(text);
    assert_int_equal(test_fleetsim(dir, "compare %s/s.json --horizon 20m", dir), 0);
    char *out = test_slurp("%s/out.txt", dir);
    assert_non_null(out);
    assert_non_null(strstr(out, "service chat"));
    free(out);
    test_stderr_has(dir, "policy \"a\": service \"chat\" is overloaded (offered load 2.50): its queue grew without bound");
    test_stderr_has(dir, "policy \"b\": service \"chat\" is overloaded (offered load 2.50): its queue sits at the "
                         "limit and the excess is dropped");

    assert_int_equal(test_fleetsim(dir, "validate %s/s.json", dir), 0);
    out = test_slurp("%s/out.txt", dir);
    assert_non_null(out);
    const char *b = strstr(out, "  policy b:\n");
    assert_non_null(b);
    const char *line = strstr(b, "\n    service chat (pool p): 1 replica(s)");
    assert_non_null(line);
    assert_non_null(strstr(line + 1, "queue limit 20\n"));
    assert_null(strstr(out, "    service embed"));
    /* The first policy's line for chat: no queue limit. */
    assert_non_null(strstr(out, "\n  service chat (pool p): 1 replica(s) x 1 concurrent, 25 req/s base, exponential "
                                "service time (mean 100 ms)\n"));
    free(out);
    assert_int_equal(test_rmdir(dir), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_patch_changes_its_policy_only),
        cmocka_unit_test(test_null_deletes),
        cmocka_unit_test(test_fixed_keys_refused),
        cmocka_unit_test(test_unknown_service_refused),
        cmocka_unit_test(test_patched_error_names_the_policy),
        cmocka_unit_test(test_same_arrivals_under_both),
        cmocka_unit_test(test_compare_and_validate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

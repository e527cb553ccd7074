/*
 * scenario_llm — a service's "batching": {"kind": "continuous"} (an LLM
 * engine per replica): the model, the step-time model, the engine's limits,
 * the token counts; the checks that need the service's pool and reference GPU
 * (a KV cache that cannot hold one request is refused here, exit 2); and
 * fs_scenario_llm_unit, what one replica gets on one unit.
 */
#include "scenario_parse.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "llm_defaults.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

/* vLLM's defaults (vllm/config.py, EngineArgs): gpu_memory_utilization 0.9,
 * block_size 16, max_num_seqs 256; max_num_batched_tokens 2048 with chunked
 * prefill on.  A scenario may set each. */
#define DEFAULT_MEMORY_UTILIZATION 0.9
#define DEFAULT_BLOCK_TOKENS 16
#define DEFAULT_MAX_SEQS 256
#define DEFAULT_TOKEN_BUDGET 2048
#define MAX_ENGINE_SEQS 65536
#define MAX_PREFIX_GROUPS 10000000
/* A choice, not a measured figure: how many more requests than the least
 * loaded replica a prefix hit may wait behind (scenarios/README.md). */
#define DEFAULT_AFFINITY_SLACK 16

/* "model": a built-in name, or {"name", "params", "bytes_per_param",
 * "layers", "kv_heads", "head_dim", "kv_bytes"}. */
static int parse_model(fs_jpath *p, const json_t *obj, fs_llm_serving *llm)
{
    json_t *v = NULL;
    int rc = fs_jpath_get(p, obj, "model", true, &v);
    if (rc != FS_OK)
        return rc;
    size_t mark = fs_jpath_push_key(p, "model");
    if (json_is_string(v)) {
        const fs_llm_model *m = fs_llm_defaults_model(json_string_value(v));
        if (!m) {
            size_t n = 0;
            const fs_llm_model *all = fs_llm_defaults_models(&n);
            char known[256] = "";
            size_t at = 0;
            for (size_t i = 0; i < n && at < sizeof known; i++)
                at += (size_t)snprintf(known + at, sizeof known - at, "%s\"%s\"", i ? ", " : "", all[i].name);
            rc = fs_jpath_fail(p, "unknown model \"%s\" (built in: %s; or give an object with its architecture)",
                               json_string_value(v), known);
        } else {
            llm->model = *m;
            rc = fs__scenario_dup_into(p, &llm->model_name, m->name);
        }
    } else if (json_is_object(v)) {
        static const char *const keys[] = {"name", "params", "bytes_per_param", "layers", "kv_heads", "head_dim", "kv_bytes"};
        const char *name = NULL;
        uint64_t layers = 0, kv_heads = 0, head_dim = 0;
        fs_llm_model *m = &llm->model;
        m->bytes_per_param = 2;
        m->kv_bytes = 2;
        rc = fs_jpath_check_keys(p, v, keys, COUNT(keys));
        if (rc == FS_OK)
            rc = fs_jpath_get_string(p, v, "name", true, true, &name);
        if (rc == FS_OK)
            rc = fs__scenario_dup_into(p, &llm->model_name, name);
        if (rc == FS_OK)
            rc = fs_jpath_get_number(p, v, "params", true, FS_JPATH_POSITIVE, &m->params);
        if (rc == FS_OK)
            rc = fs_jpath_get_number(p, v, "bytes_per_param", false, FS_JPATH_POSITIVE, &m->bytes_per_param);
        if (rc == FS_OK)
            rc = fs_jpath_get_uint(p, v, "layers", true, 1, 100000, &layers);
        if (rc == FS_OK)
            rc = fs_jpath_get_uint(p, v, "kv_heads", true, 1, 100000, &kv_heads);
        if (rc == FS_OK)
            rc = fs_jpath_get_uint(p, v, "head_dim", true, 1, 100000, &head_dim);
        if (rc == FS_OK)
            rc = fs_jpath_get_number(p, v, "kv_bytes", false, FS_JPATH_POSITIVE, &m->kv_bytes);
        m->layers = (unsigned)layers;
        m->kv_heads = (unsigned)kv_heads;
        m->head_dim = (unsigned)head_dim;
    } else {
        rc = fs_jpath_expected(p, v, "a built-in model name or an object with the model's architecture");
    }
    llm->model.name = llm->model_name;
    fs_jpath_pop(p, mark);
    return rc;
}

/* "step_time": {"linear": {"c0", "c_prefill", "c_decode", "c_kv"}} (durations:
 * per step, per prefill token, per running sequence, per KV token read),
 * {"roofline": {"flops_eff", "bw_eff", "overhead"}} or {"profile": {"gemm"}}
 * (the unit's GPU type's calibration profile, read once every type has its
 * profile: fs__scenario_check_continuous). */
static int parse_step(fs_jpath *p, const json_t *obj, fs_llm_serving *llm)
{
    json_t *st = NULL;
    int rc = fs_jpath_get_object(p, obj, "step_time", true, &st);
    if (rc != FS_OK)
        return rc;
    size_t mark = fs_jpath_push_key(p, "step_time");
    static const char *const kinds[] = {"linear", "roofline", "profile"};
    json_t *linear = json_object_get(st, "linear"), *roof = json_object_get(st, "roofline"),
           *profile = json_object_get(st, "profile");
    rc = fs_jpath_check_keys(p, st, kinds, COUNT(kinds));
    int given = (linear != NULL) + (roof != NULL) + (profile != NULL);
    if (rc == FS_OK && given != 1)
        rc = fs_jpath_fail(p, "expected exactly one of \"linear\", \"roofline\" and \"profile\", got %s",
                           given ? "several" : "none");
    fs_llm_step_model *m = &llm->step;
    *m = (fs_llm_step_model){.compute_share = 1, .bandwidth_share = 1};
    llm->step_profile = profile != NULL;
    llm->step_gemm = FS_LLM_GEMM_CUBLAS;
    if (rc == FS_OK && profile) {
        static const char *const keys[] = {"gemm"};
        size_t n_gemms;
        const char *const *gemms = fs_llm_gemm_names(&n_gemms);
        size_t k = fs_jpath_push_key(p, "profile");
        rc = json_is_object(profile) ? fs_jpath_check_keys(p, profile, keys, COUNT(keys))
                                     : fs_jpath_expected(p, profile, "an object, {} or {\"gemm\": \"cublas\"}");
        if (rc == FS_OK)
            rc = fs__scenario_get_choice(p, profile, "gemm", "a GEMM backend", gemms, n_gemms, &llm->step_gemm);
        fs_jpath_pop(p, k);
    } else if (rc == FS_OK && linear) {
        static const char *const keys[] = {"c0", "c_prefill", "c_decode", "c_kv"};
        size_t k = fs_jpath_push_key(p, "linear");
        m->kind = FS_LLM_STEP_LINEAR;
        rc = json_is_object(linear) ? fs_jpath_check_keys(p, linear, keys, COUNT(keys))
                                    : fs_jpath_expected(p, linear, "an object with c0, c_prefill, c_decode and c_kv");
        /* Negative time is refused by the getters with the key's path. */
        if (rc == FS_OK)
            rc = fs_jpath_get_duration(p, linear, "c0", true, FS_JPATH_NONNEG, &m->c0);
        if (rc == FS_OK)
            rc = fs_jpath_get_duration(p, linear, "c_prefill", true, FS_JPATH_NONNEG, &m->c_prefill);
        if (rc == FS_OK)
            rc = fs_jpath_get_duration(p, linear, "c_decode", true, FS_JPATH_NONNEG, &m->c_decode);
        if (rc == FS_OK)
            rc = fs_jpath_get_duration(p, linear, "c_kv", false, FS_JPATH_NONNEG, &m->c_kv);
        fs_jpath_pop(p, k);
    } else if (rc == FS_OK && roof) {
        static const char *const keys[] = {"flops_eff", "bw_eff", "overhead"};
        size_t k = fs_jpath_push_key(p, "roofline");
        m->kind = FS_LLM_STEP_ROOFLINE;
        rc = json_is_object(roof) ? fs_jpath_check_keys(p, roof, keys, COUNT(keys))
                                  : fs_jpath_expected(p, roof, "an object with flops_eff, bw_eff and overhead");
        if (rc == FS_OK)
            rc = fs__scenario_get_bounded(p, roof, "flops_eff", true, FS_JPATH_POSITIVE, 0, 1, "", &m->flops_eff);
        if (rc == FS_OK)
            rc = fs__scenario_get_bounded(p, roof, "bw_eff", true, FS_JPATH_POSITIVE, 0, 1, "", &m->bw_eff);
        if (rc == FS_OK)
            rc = fs_jpath_get_duration(p, roof, "overhead", false, FS_JPATH_NONNEG, &m->c0);
        fs_jpath_pop(p, k);
    }
    if (rc == FS_OK && linear && m->c0 == 0 && (m->c_prefill == 0 || m->c_decode == 0)) {
        size_t k = fs_jpath_push_key(p, "linear");
        rc = fs_jpath_fail(p, "with c0 = 0 a step of only %s would take no time; give c0 > 0",
                           m->c_prefill == 0 ? "prefill" : "decodes");
        fs_jpath_pop(p, k);
    }
    fs_jpath_pop(p, mark);
    return rc;
}

/* "prefix": {"groups": N, "tokens": N, "zipf": x}: shared prompt prefixes,
 * or none here and the trace's prefix column (`trace`, NULL without one). */
static int parse_prefix(fs_jpath *p, const json_t *obj, const fs_trace_spec *trace, fs_llm_serving *llm)
{
    static const char *const keys[] = {"groups", "tokens", "zipf"};
    json_t *v = NULL;
    llm->prefix_from_trace = trace && trace->prefix_col;
    int rc = fs_jpath_get_object(p, obj, "prefix", false, &v);
    if (rc != FS_OK || v == NULL)
        return rc;
    size_t mark = fs_jpath_push_key(p, "prefix");
    /* Two sources of one request's prefix: neither would be what ran. */
    if (llm->prefix_from_trace) {
        rc = fs_jpath_fail(p, "the trace's \"prefix\" column (\"%s\") already gives each request its prefix: "
                              "remove this generator or the column",
                           trace->prefix_col);
        fs_jpath_pop(p, mark);
        return rc;
    }
    uint64_t groups = 0, tokens = 0;
    rc = fs_jpath_check_keys(p, v, keys, COUNT(keys));
    if (rc == FS_OK)
        rc = fs_jpath_get_uint(p, v, "groups", true, 1, MAX_PREFIX_GROUPS, &groups);
    if (rc == FS_OK)
        rc = fs_jpath_get_uint(p, v, "tokens", true, 1, INT32_MAX, &tokens);
    llm->prefix_zipf = 0;
    if (rc == FS_OK)
        rc = fs__scenario_get_bounded(p, v, "zipf", false, FS_JPATH_NONNEG, 0, 10, "", &llm->prefix_zipf);
    llm->prefix_groups = (uint32_t)groups;
    llm->prefix_tokens = (uint32_t)tokens;
    fs_jpath_pop(p, mark);
    return rc;
}

int fs__scenario_parse_continuous(fs_jpath *p, const json_t *obj, const parse_ctx *c, fs_service_spec *out)
{
    (void)c;
    static const char *const keys[] = {"kind", "model", "step_time", "max_seqs", "token_budget", "block_tokens",
                                       "kv_policy", "memory_utilization", "activation_reserve_gb",
                                       "prompt_tokens", "output_tokens", "max_model_len", "prefix",
                                       "prefix_caching", "routing", "affinity_slack"};
    static const char *const routings[] = {"central", "round_robin", "least_loaded", "prefix_affinity"};
    static const char *const policies[] = {"queue", "preempt"};
    fs_llm_serving *llm = &out->batching.llm;
    uint64_t max_seqs = DEFAULT_MAX_SEQS, budget = DEFAULT_TOKEN_BUDGET, block = DEFAULT_BLOCK_TOKENS;
    llm->kv_policy = 1; /* preempt: vLLM's behaviour */
    llm->memory_utilization = DEFAULT_MEMORY_UTILIZATION;
    llm->max_model_len = UINT64_MAX;
    int rc = fs_jpath_check_keys(p, obj, keys, COUNT(keys));
    if (rc == FS_OK)
        rc = parse_model(p, obj, llm);
    if (rc == FS_OK)
        rc = parse_step(p, obj, llm);
    if (rc == FS_OK)
        rc = fs_jpath_get_uint(p, obj, "max_seqs", false, 1, MAX_ENGINE_SEQS, &max_seqs);
    if (rc == FS_OK)
        rc = fs_jpath_get_uint(p, obj, "token_budget", false, 1, UINT32_MAX, &budget);
    if (rc == FS_OK)
        rc = fs_jpath_get_uint(p, obj, "block_tokens", false, 1, 65536, &block);
    if (rc == FS_OK && json_object_get(obj, "kv_policy"))
        rc = fs__scenario_get_choice(p, obj, "kv_policy", "a KV policy", policies, COUNT(policies), &llm->kv_policy);
    if (rc == FS_OK)
        rc = fs__scenario_get_bounded(p, obj, "memory_utilization", false, FS_JPATH_POSITIVE, 0, 1, "",
                                      &llm->memory_utilization);
    if (rc == FS_OK)
        rc = fs__scenario_get_memory(p, obj, "activation_reserve_gb", FS_JPATH_NONNEG, &llm->reserve_gb);
    if (rc == FS_OK)
        rc = fs_jpath_get_uint(p, obj, "max_model_len", false, 2, UINT32_MAX, &llm->max_model_len);
    llm->max_seqs = (uint32_t)max_seqs;
    out->batching.max_batch_size = llm->max_seqs; /* batch sizes are sequences per step */
    llm->token_budget = (uint32_t)budget;
    llm->block_tokens = (uint32_t)block;
    bool has_prompt = json_object_get(obj, "prompt_tokens") != NULL, has_output = json_object_get(obj, "output_tokens") != NULL;
    bool traced = out->arrivals.trace && out->arrivals.trace->size_cols[0] && out->arrivals.trace->size_cols[1];
    if (rc == FS_OK && has_prompt != has_output)
        rc = fs_jpath_fail(p, "expected both \"prompt_tokens\" and \"output_tokens\", got only \"%s\"",
                           has_prompt ? "prompt_tokens" : "output_tokens");
    if (rc == FS_OK && !has_prompt && !traced)
        rc = fs_jpath_fail(p, "expected \"prompt_tokens\" and \"output_tokens\" distributions, or a trace "
                              "whose two \"sizes\" columns are the prompt and output tokens");
    if (rc == FS_OK && has_prompt) {
        rc = fs__scenario_parse_count_dist(p, obj, "prompt_tokens", true, &llm->prompt);
        if (rc == FS_OK)
            rc = fs__scenario_parse_count_dist(p, obj, "output_tokens", true, &llm->output);
    }
    llm->tokens_from_trace = !has_prompt;
    llm->prefix_caching = true;
    if (rc == FS_OK)
        rc = parse_prefix(p, obj, out->arrivals.trace, llm);
    if (rc == FS_OK)
        rc = fs__scenario_get_bool(p, obj, "prefix_caching", &llm->prefix_caching);
    llm->routing = FS_LLM_ROUTE_CENTRAL;
    if (rc == FS_OK && json_object_get(obj, "routing"))
        rc = fs__scenario_get_choice(p, obj, "routing", "a routing", routings, COUNT(routings), &llm->routing);
    uint64_t slack = DEFAULT_AFFINITY_SLACK;
    if (rc == FS_OK)
        rc = fs_jpath_get_uint(p, obj, "affinity_slack", false, 0, UINT32_MAX, &slack);
    llm->affinity_slack = (uint32_t)slack;
    if (rc == FS_OK && out->arrivals.trace_sized)
        rc = fs_jpath_fail(p, "an LLM engine's time comes from \"step_time\", not from the trace's "
                              "\"service_time\": remove one of them");
    if (rc == FS_OK && out->concurrency != 1)
        rc = fs_jpath_fail(p, "an LLM replica runs one engine: \"replicas.concurrency\" must be 1 (got %u); "
                              "set \"max_seqs\" instead", out->concurrency);
    return rc;
}

/* Tokens a draw gives: the nearest integer, at least 1. */
uint64_t fs_scenario_llm_tokens(double draw)
{
    if (!(draw >= 1.5))
        return 1;
    if (draw >= 4e9)
        return UINT64_C(4000000000);
    return (uint64_t)llround(draw);
}

bool fs_scenario_llm_caches_prefixes(const fs_llm_serving *llm)
{
    return (llm->prefix_groups || llm->prefix_from_trace) && llm->prefix_caching;
}

/* The peaks of a GPU type, or FS_ERR_INPUT naming what is needed. */
static int gpu_peaks(const fs_gpu_type *gpu, const char *service, const char *why, const fs_llm_gpu_peak **out,
                     fs_error *err)
{
    *out = fs_llm_defaults_gpu(gpu->name);
    if (*out)
        return FS_OK;
    return fs_error_set(err, FS_ERR_INPUT,
                        "services \"%s\": batching: %s needs the datasheet FLOP/s and bandwidth of GPU type "
                        "\"%s\", which fleetsim does not have (known: the catalog's H100, H200, A100, L40S, L4)",
                        service, why, gpu->name);
}

/* The step of the service's model on a whole GPU of type gpu_type, from
 * that type's calibration profile ("step_time": {"profile"}: the mapping is
 * llm_profile.h's).  FS_ERR_INPUT naming the type and its profile when the
 * profile has no "llm_step" rows or they do not map onto the model. */
static int profile_step(const fs_scenario *s, const fs_llm_serving *llm, size_t gpu_type, fs_llm_step_model *step,
                        fs_error *err)
{
    const char *gpu = s->gpu_types[gpu_type].name;
    const fs_switch_costs *sc = fs_scenario_switch_costs(s, gpu_type);
    const char *source = fs_switch_costs_llm_step_source(sc);
    if (source == NULL)
        return fs_error_set(err, FS_ERR_INPUT,
                            "GPU type \"%s\" has no calibration profile with \"llm_step\" rows (its figures come "
                            "from %s): name a measured profile in the top-level \"calibration\" or in "
                            "gpus.\"%s\".calibration, or give \"linear\" or \"roofline\"",
                            gpu, sc->source, gpu);
    char where[400];
    snprintf(where, sizeof where, "GPU type \"%s\", profile %s", gpu, source);
    return fs_llm_profile_step(sc->llm_step, sc->n_llm_step, llm->step_gemm, &llm->model, llm->max_seqs, step, NULL,
                               where, err);
}

int fs_scenario_llm_unit(const fs_scenario *s, size_t service, size_t gpu_type, const fs_mig_profile *mig,
                         double unit_memory_gb, uint32_t *kv_blocks, fs_llm_step_model *step, fs_error *err)
{
    const fs_service_spec *spec = &s->services[service];
    const fs_llm_serving *llm = &spec->batching.llm;
    const fs_gpu_type *gpu = &s->gpu_types[gpu_type];
    char where[300];
    snprintf(where, sizeof where, "services \"%s\": batching on a %s %s", spec->name, gpu->name,
             mig ? mig->name : "unit");
    double budget_gb = spec->memory_gb > 0 ? spec->memory_gb : unit_memory_gb * llm->memory_utilization;
    if (spec->memory_gb > unit_memory_gb)
        budget_gb = unit_memory_gb;
    uint64_t fixed_tokens = llm->tokens_from_trace ? 0
                            : llm->prompt.kind == FS_DIST_DETERMINISTIC && llm->output.kind == FS_DIST_DETERMINISTIC
                                ? fs_scenario_llm_tokens(llm->prompt.a) + fs_scenario_llm_tokens(llm->output.a)
                                : 0;
    int rc = fs_llm_kv_capacity(&llm->model, budget_gb * GIB, llm->reserve_gb * GIB, llm->block_tokens,
                                fixed_tokens, kv_blocks, where, err);
    if (rc != FS_OK)
        return rc;
    *step = llm->step;
    double cs = 1, bs = 1;
    if (mig)
        fs_llm_mig_shares(gpu, mig, &cs, &bs);
    if (llm->step_profile) {
        /* Measured on this very type: no scaling between types.  A slice
         * scales by its shares, as the linear form does. */
        fs_error why = {0};
        if (profile_step(s, llm, gpu_type, step, &why) != FS_OK)
            return fs_error_set(err, FS_ERR_INPUT, "%s: step_time.profile: %s", where, why.msg);
    } else if (llm->step.kind == FS_LLM_STEP_ROOFLINE) {
        const fs_llm_gpu_peak *peak = NULL;
        rc = gpu_peaks(gpu, spec->name, "a roofline step time", &peak, err);
        if (rc != FS_OK)
            return rc;
        *step = fs_llm_step_roofline(&llm->model, peak->bf16_flops, peak->mem_bw, llm->step.flops_eff,
                                     llm->step.bw_eff, llm->step.c0);
    } else if (gpu_type != spec->reference_gpu) {
        /* Coefficients measured on the reference GPU: another type's step
         * scales by the ratio of datasheet peaks, compute and bandwidth. */
        const fs_llm_gpu_peak *here = NULL, *ref = NULL;
        rc = gpu_peaks(gpu, spec->name, "running on another GPU type than the reference", &here, err);
        if (rc == FS_OK)
            rc = gpu_peaks(&s->gpu_types[spec->reference_gpu], spec->name, "scaling from the reference GPU", &ref, err);
        if (rc != FS_OK)
            return rc;
        cs *= here->bf16_flops / ref->bf16_flops;
        bs *= here->mem_bw / ref->mem_bw;
    }
    step->compute_share = cs;
    step->bandwidth_share = bs;
    return FS_OK;
}

/* The steady per-request time of a saturated replica on the whole reference
 * GPU, for capacity figures (offered load): B sequences run, B the smaller
 * of max_seqs and what the KV cache holds of requests of P + O tokens; each
 * step decodes B tokens and prefills B x P / O prompt tokens (a request
 * brings P prompt tokens per O steps), and reads B x (P + O / 2) KV tokens;
 * a request takes O steps, so one replica finishes B / (O x step) requests
 * per second.  An estimate: only the simulation gives latencies. */
int fs_scenario_llm_request_s(const fs_scenario *s, size_t service, double prompt, double output, double *seconds,
                              fs_error *err)
{
    const fs_service_spec *spec = &s->services[service];
    const fs_llm_serving *llm = &spec->batching.llm;
    const fs_gpu_type *ref = &s->gpu_types[spec->reference_gpu];
    uint32_t blocks = 0;
    fs_llm_step_model step;
    int rc = fs_scenario_llm_unit(s, service, spec->reference_gpu, NULL, ref->memory_gb, &blocks, &step, err);
    if (rc != FS_OK)
        return rc;
    if (prompt < 1)
        prompt = 1;
    if (output < 1)
        output = 1;
    double held = (double)blocks * llm->block_tokens / (prompt + output);
    double b = llm->max_seqs < held ? llm->max_seqs : floor(held);
    if (b < 1)
        b = 1;
    if (spec->decode_replicas) {
        /* Prefill: full steps of token_budget prompt tokens, each chunk
         * reading its own KV; decode: b sequences, O - 1 steps each. */
        fs_llm_batch prefill = {.prefill_tokens = llm->token_budget, .kv_tokens_read = llm->token_budget};
        fs_llm_batch decode = {.decodes = (uint64_t)b, .kv_tokens_read = (uint64_t)llround(b * (prompt + output / 2))};
        double prefill_s = prompt * fs_llm_step_time(&step, &prefill) / llm->token_budget;
        double decode_s = (output > 1 ? output - 1 : 1) * fs_llm_step_time(&step, &decode) / b;
        double rps = fmin(spec->replicas / prefill_s, spec->decode_replicas / decode_s);
        *seconds = spec->replicas / rps;
        return FS_OK;
    }
    fs_llm_batch batch = {.prefill_tokens = (uint64_t)llround(b * prompt / output),
                          .decodes = (uint64_t)b,
                          .kv_tokens_read = (uint64_t)llround(b * (prompt + output / 2))};
    *seconds = output * fs_llm_step_time(&step, &batch) / b;
    return FS_OK;
}

int fs__scenario_check_continuous(fs_jpath *p, size_t index, fs_scenario *s)
{
    fs_service_spec *out = &s->services[index];
    const fs_llm_serving *llm = &out->batching.llm;
    const fs_pool_spec *pool = &s->pools[out->pool];
    fs_error err = {0};
    uint32_t blocks = 0;
    fs_llm_step_model step;
    int rc = FS_OK;
    /* A step time from a profile: every GPU type the service runs on (and
     * the reference, for the capacity figure) must have one that maps onto
     * the model, said at step_time.profile. */
    size_t decode_type = out->decode_replicas ? s->pools[out->decode_pool].gpu_type : pool->gpu_type;
    const size_t types[3] = {pool->gpu_type, decode_type, out->reference_gpu};
    for (size_t t = 0; llm->step_profile && rc == FS_OK && t < 3; t++)
        rc = profile_step(s, llm, types[t], &step, &err);
    if (rc != FS_OK) {
        size_t mark = fs_jpath_push_key(p, "batching");
        fs_jpath_push_key(p, "step_time");
        fs_jpath_push_key(p, "profile");
        rc = fs_jpath_fail(p, "%s", err.msg);
        fs_jpath_pop(p, mark);
        return rc;
    }
    /* Every kind of unit the pool offers must hold the model and one request,
     * and so must the reference GPU the capacity figure is taken on.  A
     * disaggregated service's decode group too, on its own pool. */
    for (int group = 0; group < 1 + (out->decode_replicas > 0) && rc == FS_OK; group++) {
        if (group)
            pool = &s->pools[out->decode_pool];
        const fs_gpu_type *gpu = &s->gpu_types[pool->gpu_type];
        if (pool->partitioning == FS_PARTITION_MIG) {
            /* Every layout a pool may switch to (scenario_mig.c). */
            size_t n_layouts = pool->mig_plan ? pool->mig_plan->n_layouts : 1;
            for (size_t k = 0; rc == FS_OK && k < n_layouts; k++) {
                const fs_mig_layout *mig = pool->mig_plan ? &pool->mig_plan->layouts[k] : &pool->mig;
                for (size_t i = 0; rc == FS_OK && i < mig->n; i++)
                    rc = fs_scenario_llm_unit(s, index, pool->gpu_type, mig->profiles[i],
                                              mig->profiles[i]->memory_gb, &blocks, &step, &err);
            }
        } else {
            rc = fs_scenario_llm_unit(s, index, pool->gpu_type, NULL, gpu->memory_gb, &blocks, &step, &err);
        }
    }
    /* The capacity figure: mean tokens from the distributions; a trace's
     * are known once it is read, and run.c takes the figure again then. */
    double seconds = 0;
    if (rc == FS_OK)
        rc = fs_scenario_llm_request_s(s, index, llm->tokens_from_trace ? 1 : fs_dist_mean(&llm->prompt),
                                       llm->tokens_from_trace ? 1 : fs_dist_mean(&llm->output), &seconds, &err);
    if (rc != FS_OK) {
        size_t mark = fs_jpath_push_key(p, "batching");
        rc = fs_jpath_fail(p, "%s", err.msg);
        fs_jpath_pop(p, mark);
        return rc;
    }
    fs_dist_deterministic(&out->service_time, seconds);
    return FS_OK;
}

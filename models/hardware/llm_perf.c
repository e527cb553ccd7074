/*
 * llm_perf — KV and step-time arithmetic with their refusals; see llm_perf.h.
 */
#include "llm_perf.h"

#include <math.h>

#define GIB (1024.0 * 1024.0 * 1024.0)

static bool positive(double x) { return isfinite(x) && x > 0; }

static bool share(double x) { return isfinite(x) && x > 0 && x <= 1; }

int fs_llm_model_check(const fs_llm_model *m, const char *where, fs_error *err)
{
    const char *bad = !positive(m->params)          ? "params"
                      : !positive(m->bytes_per_param) ? "bytes_per_param"
                      : m->layers == 0                ? "layers"
                      : m->kv_heads == 0              ? "kv_heads"
                      : m->head_dim == 0              ? "head_dim"
                      : !positive(m->kv_bytes)        ? "kv_bytes"
                                                      : NULL;
    if (bad)
        return fs_error_set(err, FS_ERR_INPUT, "%s.%s: expected a positive number", where, bad);
    return FS_OK;
}

double fs_llm_weights_bytes(const fs_llm_model *m) { return m->params * m->bytes_per_param; }

double fs_llm_kv_bytes_per_token(const fs_llm_model *m)
{
    return 2.0 * m->layers * m->kv_heads * m->head_dim * m->kv_bytes;
}

int fs_llm_kv_capacity(const fs_llm_model *m, double usable_bytes, double reserve_bytes,
                       uint32_t block_tokens, uint64_t request_tokens, uint32_t *blocks,
                       const char *where, fs_error *err)
{
    int rc = fs_llm_model_check(m, where, err);
    if (rc)
        return rc;
    if (!positive(usable_bytes))
        return fs_error_set(err, FS_ERR_INPUT, "%s: usable memory must be a positive number",
                            where);
    if (!isfinite(reserve_bytes) || reserve_bytes < 0)
        return fs_error_set(err, FS_ERR_INPUT,
                            "%s: activation reserve must be a number >= 0", where);
    if (block_tokens == 0)
        return fs_error_set(err, FS_ERR_INPUT, "%s: block_tokens must be >= 1", where);
    double weights = fs_llm_weights_bytes(m);
    double per_block = fs_llm_kv_bytes_per_token(m) * block_tokens;
    double room = usable_bytes - weights - reserve_bytes;
    if (room < per_block)
        return fs_error_set(err, FS_ERR_INPUT,
                            "%s: %s's weights (%.2f GiB) and the activation reserve (%.2f GiB) "
                            "leave no room for a KV cache in %.2f GiB of usable memory",
                            where, m->name ? m->name : "the model", weights / GIB,
                            reserve_bytes / GIB, usable_bytes / GIB);
    double n = floor(room / per_block);
    uint32_t held = n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
    if (request_tokens > 0) {
        /* P + O - 1 tokens of KV: the last token's is never computed. */
        uint64_t kv = request_tokens - 1;
        uint64_t need = (kv + block_tokens - 1) / block_tokens;
        if (need > held)
            return fs_error_set(err, FS_ERR_INPUT,
                                "%s: a request of %llu tokens needs KV for %llu tokens, but the "
                                "cache holds %llu (%.2f GiB after weights and reserve)",
                                where, (unsigned long long)request_tokens,
                                (unsigned long long)kv,
                                (unsigned long long)held * block_tokens, room / GIB);
    }
    *blocks = held;
    return FS_OK;
}

int fs_llm_step_model_check(const fs_llm_step_model *m, const char *where, fs_error *err)
{
    if (!share(m->compute_share) || !share(m->bandwidth_share))
        return fs_error_set(err, FS_ERR_INPUT,
                            "%s.%s: expected a share of the GPU in (0, 1]", where,
                            share(m->compute_share) ? "bandwidth_share" : "compute_share");
    if (m->kind == FS_LLM_STEP_LINEAR) {
        const char *names[] = {"c0", "c_prefill", "c_decode", "c_kv"};
        const double c[] = {m->c0, m->c_prefill, m->c_decode, m->c_kv};
        for (size_t i = 0; i < 4; i++)
            if (!isfinite(c[i]) || c[i] < 0)
                return fs_error_set(err, FS_ERR_INPUT,
                                    "%s.%s: a step time coefficient must be a number >= 0 "
                                    "(seconds), got %g", where, names[i], c[i]);
        /* Zero-time steps would let a simulation run forever at one instant. */
        if (m->c0 == 0 && (m->c_prefill == 0 || m->c_decode == 0))
            return fs_error_set(err, FS_ERR_INPUT,
                                "%s.c0: with c0 = 0 a step of only %s would take no time; "
                                "give c0 > 0", where,
                                m->c_prefill == 0 ? "prefill" : "decodes");
        return FS_OK;
    }
    if (m->kind != FS_LLM_STEP_ROOFLINE)
        return fs_error_set(err, FS_ERR_INPUT, "%s.kind: expected linear or roofline", where);
    const char *bad = !positive(m->peak_flops)            ? "peak_flops"
                      : !positive(m->mem_bw)              ? "mem_bw"
                      : !share(m->flops_eff)              ? "flops_eff"
                      : !share(m->bw_eff)                 ? "bw_eff"
                      : !positive(m->params)              ? "params"
                      : !positive(m->weights_bytes)       ? "weights_bytes"
                      : !positive(m->kv_bytes_per_token)  ? "kv_bytes_per_token"
                      : !isfinite(m->c0) || m->c0 < 0     ? "c0"
                                                          : NULL;
    if (bad)
        return fs_error_set(err, FS_ERR_INPUT,
                            "%s.%s: expected a positive number (efficiencies in (0, 1], c0 >= 0)",
                            where, bad);
    return FS_OK;
}

double fs_llm_step_time(const fs_llm_step_model *m, const fs_llm_batch *b)
{
    double cs = m->compute_share, bs = m->bandwidth_share;
    if (m->kind == FS_LLM_STEP_LINEAR)
        return m->c0 / bs + m->c_prefill * (double)b->prefill_tokens / cs +
               m->c_decode * (double)b->decodes / bs + m->c_kv * (double)b->kv_tokens_read / bs;
    /* Every token, prefill or decode, goes through all the weights once:
     * 2 FLOPs (multiply, add) per parameter.  The weights are read once per
     * step whatever the batch: that is what batching buys. */
    double flops = 2.0 * m->params * (double)(b->prefill_tokens + b->decodes);
    double bytes = m->weights_bytes + (double)b->kv_tokens_read * m->kv_bytes_per_token;
    double t_compute = flops / (m->peak_flops * m->flops_eff * cs);
    double t_memory = bytes / (m->mem_bw * m->bw_eff * bs);
    /* c0 here is the fixed host-side overhead (scheduling, launches), which a
     * slice does not slow down; in the linear model it is fitted and mostly
     * weight reads, so it scales with bandwidth there. */
    return m->c0 + (t_compute > t_memory ? t_compute : t_memory);
}

fs_llm_step_model fs_llm_step_roofline(const fs_llm_model *model, double peak_flops,
                                       double mem_bw, double flops_eff, double bw_eff,
                                       double c0)
{
    return (fs_llm_step_model){.kind = FS_LLM_STEP_ROOFLINE,
                               .c0 = c0,
                               .peak_flops = peak_flops,
                               .mem_bw = mem_bw,
                               .flops_eff = flops_eff,
                               .bw_eff = bw_eff,
                               .params = model->params,
                               .weights_bytes = fs_llm_weights_bytes(model),
                               .kv_bytes_per_token = fs_llm_kv_bytes_per_token(model),
                               .compute_share = 1,
                               .bandwidth_share = 1};
}

void fs_llm_mig_shares(const fs_gpu_type *gpu, const fs_mig_profile *p, double *compute_share,
                       double *bandwidth_share)
{
    /* A MIG instance owns its SMs and its memory slices' controllers and
     * L2: compute follows SMs, bandwidth follows memory slices (mig.md). */
    *compute_share = (double)p->sms / gpu->sms;
    *bandwidth_share = (double)p->memory_slices / FS_MIG_MEMORY_SLICES;
}


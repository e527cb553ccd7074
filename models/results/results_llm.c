/*
 * results_llm — an LLM service's figures: TTFT and TPOT histograms and
 * targets, tokens per second, per GPU-second and their cost, goodput, running
 * sequences and KV occupancy; see results.h.
 */
#include "results.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

const char *const fs_llm_figure_names[FS_LFIG_COUNT] = {
    "tokens_per_s", "tokens_per_gpu_s", "cost_per_million_tokens", "goodput",
    "mean_running", "kv_occupancy", "preemptions", "too_long", "prefix_hit_ratio", "prefill_saved_per_s",
    "kv_transfer_ms",
};

void fs_results_llm_figures(const fs_results *r, size_t policy, uint32_t k, size_t service,
                            double fig[FS_LFIG_COUNT])
{
    const fs_policy_result *pol = &r->policies[policy];
    const fs_scenario *s = pol->scenario;
    const fs_service_spec *spec = &s->services[service];
    const fs_service_rep *rep = fs_rep_service(&pol->reps[k], service);
    for (int f = 0; f < FS_LFIG_COUNT; f++)
        fig[f] = NAN;
    if (!rep->llm)
        return;
    double measured = fs_results_measured_s(r);
    /* GPU-seconds held: ready replicas on average x the share of a GPU each
     * unit is charged (every replica of a group sits on the same kind of
     * unit: one pool, one layout), and what they cost. */
    double share = spec->replicas ? fs_placement_unit(pol->placement, service, 0)->charge_share : 1;
    double gpu_s = rep->mean_ready_replicas * share * measured;
    double usd = gpu_s / 3600.0 * fs_results_pool_price(s, spec->pool);
    if (spec->decode_replicas) {
        double decode_s = rep->mean_ready_decode * measured *
                          fs_placement_unit(pol->placement, service, spec->replicas)->charge_share;
        gpu_s += decode_s;
        usd += decode_s / 3600.0 * fs_results_pool_price(s, spec->decode_pool);
        if (rep->kv_transfers > 0)
            fig[FS_LFIG_KV_TRANSFER_MS] = rep->kv_transfer_s / (double)rep->kv_transfers * 1e3;
    }
    double tokens = (double)rep->tokens_generated;
    if (measured > 0)
        fig[FS_LFIG_TOKENS_PER_S] = tokens / measured;
    if (gpu_s > 0)
        fig[FS_LFIG_TOKENS_PER_GPU_S] = tokens / gpu_s;
    if (tokens > 0)
        fig[FS_LFIG_COST_PER_M_TOKENS] = usd / (tokens / 1e6);
    const fs_slo *slo = &spec->slo;
    bool targets = slo->n_targets || slo->ttft.threshold_s > 0 || slo->tpot.threshold_s > 0;
    double judged = (double)rep->completed + (double)rep->dropped + (double)rep->in_flight_end;
    if (targets && judged > 0)
        fig[FS_LFIG_GOODPUT] = (double)rep->slo_good / judged;
    fig[FS_LFIG_MEAN_RUNNING] = rep->mean_running;
    fig[FS_LFIG_KV_OCCUPANCY] = rep->kv_occupancy;
    fig[FS_LFIG_PREEMPTIONS] = (double)rep->preemptions;
    fig[FS_LFIG_TOO_LONG] = (double)rep->too_long;
    const fs_llm_serving *llm = &spec->batching.llm;
    if (fs_scenario_llm_caches_prefixes(llm)) {
        if (rep->prefill_queried > 0)
            fig[FS_LFIG_PREFIX_HIT_RATIO] = (double)rep->prefill_cached / (double)rep->prefill_queried;
        if (measured > 0)
            fig[FS_LFIG_PREFILL_SAVED_PER_S] = (double)rep->prefill_cached / measured;
    }
}

int fs_results_llm_slo(const fs_results *r, size_t policy, size_t service, bool tpot, fs_llm_slo *out)
{
    const fs_policy_result *pol = &r->policies[policy];
    const fs_slo *slo = &pol->scenario->services[service].slo;
    const fs_slo_target *t = tpot ? &slo->tpot : &slo->ttft;
    *out = (fs_llm_slo){NAN, FS_SLO_NO_DATA};
    if (t->threshold_s <= 0 || !fs_rep_service(&pol->reps[0], service)->llm)
        return 0;
    double late = 0;
    for (uint32_t k = 0; k < pol->n_reps; k++) {
        const fs_service_rep *rep = fs_rep_service(&pol->reps[k], service);
        late += (double)(tpot ? rep->tpot_late_end : rep->ttft_late_end);
    }
    fs_slo_verdict v;
    fs_policy_result_unpark(pol);
    fs_results_judge(tpot ? &pol->tpot[service] : &pol->ttft[service], late, t, &out->quantile_ms, &v);
    out->verdict = v;
    return 0;
}

int fs_results_llm_summary(const fs_results *r, size_t policy, size_t service, fs_llm_summary *out)
{
    static const double q[2] = {0.50, 0.99};
    const fs_policy_result *pol = &r->policies[policy];
    if (fs_results_percentiles(r, policy, fs_results_ttft_hist, service, q, 2, 1e-6, out->ttft) != 0 ||
        fs_results_percentiles(r, policy, fs_results_tpot_hist, service, q, 2, 1e-6, out->tpot) != 0 ||
        fs_results_llm_slo(r, policy, service, false, &out->ttft_slo) != 0 ||
        fs_results_llm_slo(r, policy, service, true, &out->tpot_slo) != 0)
        return ENOMEM;
    double *x = malloc((pol->n_reps ? pol->n_reps : 1) * FS_LFIG_COUNT * sizeof *x);
    if (!x)
        return ENOMEM;
    for (uint32_t k = 0; k < pol->n_reps; k++)
        fs_results_llm_figures(r, policy, k, service, x + (size_t)k * FS_LFIG_COUNT);
    for (size_t f = 0; f < FS_LFIG_COUNT; f++)
        out->fig[f] = fs_results_summary_known(x + f, FS_LFIG_COUNT, pol->n_reps);
    free(x);
    return 0;
}

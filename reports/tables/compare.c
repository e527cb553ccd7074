#include "compare.h"

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "terminal.h"
#include "tradeoffs.h"
#include "unsettled.h"

/* A figure of one policy in one replication; `index` is the service or
 * training stream (unused for the fleet). */
typedef double (*fs__metric)(const fs_results *r, size_t policy, uint32_t rep, size_t index);

typedef enum { ROW_SERVICE, ROW_TRAINING, ROW_FLEET, ROW_TENANT, ROW_REGION } fs__row_kind;

typedef struct fs__row {
    fs__row_kind kind;
    const char *key;    /* JSON key */
    const char *label;  /* table label */
    fs__metric metric;
    /* A percentile: the value is fs_results_percentile's (the merged
     * histogram's), as in every other output; hist NULL for other rows. */
    fs_results_hist_fn hist;
    double q, scale;
    /* A latency figure the run's settling diagnostics judge (settle.h):
     * the table marks it `~` when it has not settled. */
    bool judged;
    fs_settle_figure figure;
    /* A figure about the service's SLO: none without one ("no SLO"). */
    bool needs_slo;
    /* A batch figure: the row is there only for a service some policy
     * batches; its value comes from every replication's batches merged (as
     * in results.json), its CI from the per-replication figures. */
    double (*merged)(const fs_results *r, size_t policy, size_t index);
    /* Whether policy p has this figure for item i (NULL: always): a row
     * with one is there only for an item some policy has it for, so a
     * scenario without batching or LLM services compares as before, and a
     * policy without it shows "-", never a 0. */
    bool (*applies)(const fs_results *r, size_t policy, size_t index);
} fs__row;

static const fs_service_rep *fs__svc(const fs_results *r, size_t p, uint32_t k, size_t i)
{
    return fs_rep_service(&r->policies[p].reps[k], i);
}

static double m_p50(const fs_results *r, size_t p, uint32_t k, size_t i) { return fs_results_rep_figure(fs__svc(r, p, k, i)->latency_figs, 0.50, 1e-6); }
static double m_p95(const fs_results *r, size_t p, uint32_t k, size_t i) { return fs_results_rep_figure(fs__svc(r, p, k, i)->latency_figs, 0.95, 1e-6); }
static double m_p99(const fs_results *r, size_t p, uint32_t k, size_t i) { return fs_results_rep_figure(fs__svc(r, p, k, i)->latency_figs, 0.99, 1e-6); }

/* Taken as the windows closed (the rows themselves went to the CSV):
 * NaN when no window completed anything. */
static double m_worst_p99(const fs_results *r, size_t p, uint32_t k, size_t i)
{
    return fs__svc(r, p, k, i)->worst_window_p99_ms;
}

/* Whether policy p's service i has an SLO: without one there is nothing to
 * breach, and "0 breaches" would claim an SLO that does not exist. */
static bool fs__has_slo(const fs_results *r, size_t p, size_t i)
{
    return fs_slo_any(&r->policies[p].scenario->services[i].slo);
}

static double m_breach_week(const fs_results *r, size_t p, uint32_t k, size_t i)
{
    double measured = fs_results_measured_s(r);
    if (!fs__has_slo(r, p, i) || !(measured > 0)) /* no SLO, or nothing measured: no figure */
        return NAN;
    return fs__svc(r, p, k, i)->slo_breach_windows * 7 * 86400.0 / measured;
}

static double m_startup(const fs_results *r, size_t p, uint32_t k, size_t i)
{
    const fs_training_rep *t = &r->policies[p].reps[k].training[i];
    return t->startups ? t->startup_s / (double)t->startups : NAN;
}
static double m_wait_p50(const fs_results *r, size_t p, uint32_t k, size_t i) { return fs_results_rep_figure(r->policies[p].reps[k].training[i].wait_figs, 0.50, 1e-9 / 60); }
static double m_wait_p95(const fs_results *r, size_t p, uint32_t k, size_t i) { return fs_results_rep_figure(r->policies[p].reps[k].training[i].wait_figs, 0.95, 1e-9 / 60); }

static double fs__fleet(const fs_results *r, size_t p, uint32_t k, fs_pool_figure f)
{
    double fig[FS_FIG_COUNT];
    fs_results_pool_figures(r, p, k, SIZE_MAX, fig);
    return fig[f];
}
static double m_gpu_h(const fs_results *r, size_t p, uint32_t k, size_t i) { (void)i; return fs__fleet(r, p, k, FS_FIG_GPU_H); }
static double m_cost(const fs_results *r, size_t p, uint32_t k, size_t i) { (void)i; return fs__fleet(r, p, k, FS_FIG_COST); }
/* No GPU-hour provisioned (an elastic fleet that stayed at zero): no
 * utilization was measured, which is not 0%. */
static double m_util(const fs_results *r, size_t p, uint32_t k, size_t i)
{
    (void)i;
    return fs__fleet(r, p, k, FS_FIG_GPU_H) > 0 ? 100 * fs__fleet(r, p, k, FS_FIG_UTIL) : NAN;
}
static double m_headroom(const fs_results *r, size_t p, uint32_t k, size_t i) { (void)i; return 100 * fs__fleet(r, p, k, FS_FIG_HEADROOM); }
static double m_switch(const fs_results *r, size_t p, uint32_t k, size_t i) { (void)i; return fs__fleet(r, p, k, FS_FIG_SWITCH_H); }

/* A region's figures (index: the region), shown with more than one. */
static double fs__region(const fs_results *r, size_t p, uint32_t k, size_t g, fs_region_figure f)
{
    double fig[FS_RFIG_COUNT];
    fs_results_region_figures(r, p, k, g, fig);
    return fig[f];
}
static double m_region_gpu_h(const fs_results *r, size_t p, uint32_t k, size_t g) { return fs__region(r, p, k, g, FS_RFIG_GPU_H); }
static double m_region_cost(const fs_results *r, size_t p, uint32_t k, size_t g) { return fs__region(r, p, k, g, FS_RFIG_COST); }
static double m_region_util(const fs_results *r, size_t p, uint32_t k, size_t g) { return 100 * fs__region(r, p, k, g, FS_RFIG_UTIL); }
static double m_region_out(const fs_results *r, size_t p, uint32_t k, size_t g) { return fs__region(r, p, k, g, FS_RFIG_SPILLED_OUT); }

/* Whether policy p's service i spills: only then has it spilled requests. */
static bool fs__spills(const fs_results *r, size_t p, size_t i) { return r->policies[p].scenario->services[i].spills; }
static double m_spilled(const fs_results *r, size_t p, uint32_t k, size_t i)
{
    return fs__spills(r, p, i) ? (double)fs__svc(r, p, k, i)->spill_out : NAN;
}
/* Whether any policy spills anything: the regions' spilled row only then. */
static bool fs__any_spill(const fs_results *r, size_t p, size_t g)
{
    (void)p, (void)g;
    for (size_t q = 0; q < r->n_policies; q++)
        if (fs_results_spill_any(r->policies[q].scenario))
            return true;
    return false;
}

/* Requests dropped and jobs left waiting at the horizon: rows only where
 * some policy has any (the verdict's trade-offs read them), so a scenario
 * that drops nothing compares as before; every policy then shows its own,
 * 0 included. */
static bool fs__any_dropped(const fs_results *r, size_t p, size_t i)
{
    (void)p;
    for (size_t q = 0; q < r->n_policies; q++)
        for (uint32_t k = 0; k < r->policies[q].n_reps; k++)
            if (fs__svc(r, q, k, i)->dropped > 0)
                return true;
    return false;
}
static double m_dropped(const fs_results *r, size_t p, uint32_t k, size_t i) { return (double)fs__svc(r, p, k, i)->dropped; }
static bool fs__any_waiting(const fs_results *r, size_t p, size_t i)
{
    (void)p;
    for (size_t q = 0; q < r->n_policies; q++)
        for (uint32_t k = 0; k < r->policies[q].n_reps; k++)
            if (r->policies[q].reps[k].training[i].waiting_end > 0)
                return true;
    return false;
}
static double m_waiting_end(const fs_results *r, size_t p, uint32_t k, size_t i) { return (double)r->policies[p].reps[k].training[i].waiting_end; }

/* A pipeline's iteration cycle, on its root stream only (minutes): a
 * replication's own completed iterations, and over every replication's
 * pooled (as results.json's pipeline.cycle_s); no data without one.  A
 * deploy step's rollouts likewise (seconds).  A deploy step runs no job:
 * it has no queue wait or start-up row. */
static bool fs__root(const fs_results *r, size_t p, size_t i) { return fs_training_is_root(r->policies[p].scenario, i); }
static bool fs__deploys(const fs_results *r, size_t p, size_t i)
{
    return r->policies[p].scenario->training[i].deploy_service != SIZE_MAX;
}
static bool fs__runs_jobs(const fs_results *r, size_t p, size_t i) { return !fs__deploys(r, p, i); }
/* The figure at `field` (offsetof in fs_cycle_figures) of one
 * replication's cycles, scaled; no data without one. */
static double fs__cycles_fig(const struct fs_pipeline_rep *pl, size_t field, double scale)
{
    fs_cycle_figures fig;
    fs_results_cycle_figures(pl, &fig); /* out of memory: NAN, no data */
    double v;
    memcpy(&v, (const char *)&fig + field, sizeof v);
    return v * scale;
}
static double m_cycle_p50(const fs_results *r, size_t p, uint32_t k, size_t i) { return fs__root(r, p, i) ? fs__cycles_fig(&r->policies[p].reps[k].training[i].pipeline, offsetof(fs_cycle_figures, p50_s), 1.0 / 60) : NAN; }
static double m_cycle_p95(const fs_results *r, size_t p, uint32_t k, size_t i) { return fs__root(r, p, i) ? fs__cycles_fig(&r->policies[p].reps[k].training[i].pipeline, offsetof(fs_cycle_figures, p95_s), 1.0 / 60) : NAN; }
static double m_rollout_mean(const fs_results *r, size_t p, uint32_t k, size_t i) { return fs__deploys(r, p, i) ? fs__cycles_fig(&r->policies[p].reps[k].training[i].rollouts, offsetof(fs_cycle_figures, mean_s), 1) : NAN; }
/* Every replication's cycles pooled (results.json's figures): false for a
 * stream without them. */
static bool fs__pooled(const fs_results *r, size_t p, size_t i, bool rollouts, fs_pipeline_summary *s)
{
    return (rollouts ? fs__deploys(r, p, i) : fs__root(r, p, i)) &&
           (rollouts ? fs_results_rollout_summary : fs_results_pipeline_summary)(r, p, i, s) == 0;
}
static double merged_cycle_p50(const fs_results *r, size_t p, size_t i)
{
    fs_pipeline_summary s;
    return fs__pooled(r, p, i, false, &s) ? s.cycle_p50_s / 60 : NAN;
}
static double merged_cycle_p95(const fs_results *r, size_t p, size_t i)
{
    fs_pipeline_summary s;
    return fs__pooled(r, p, i, false, &s) ? s.cycle_p95_s / 60 : NAN;
}
static double merged_rollout_mean(const fs_results *r, size_t p, size_t i)
{
    fs_pipeline_summary s;
    return fs__pooled(r, p, i, true, &s) ? s.cycle_mean_s : NAN;
}

static double m_blocked(const fs_results *r, size_t p, uint32_t k, size_t i) { return r->policies[p].reps[k].blocked_minutes[i]; }

/* Whether policy p batches service i: a policy without batching has no
 * batch figure ("-"), never a size of 0. */
static bool fs__batched(const fs_results *r, size_t p, size_t i)
{
    return r->policies[p].scenario->services[i].batching.kind != FS_BATCHING_NONE;
}
static double m_batch_mean(const fs_results *r, size_t p, uint32_t k, size_t i)
{
    return fs__batched(r, p, i) ? fs_results_batch_rep_figures(r, p, k, i).mean : NAN;
}
static double merged_batch_mean(const fs_results *r, size_t p, size_t i)
{
    return fs__batched(r, p, i) ? fs_results_batch_figures(r, p, i).mean : NAN;
}

/* Whether policy p's service i is an LLM engine: only it has token figures. */
static bool fs__llm(const fs_results *r, size_t p, size_t i)
{
    return r->policies[p].n_reps && fs__svc(r, p, 0, i)->llm;
}
static double m_ttft_p99(const fs_results *r, size_t p, uint32_t k, size_t i) { return fs_results_rep_figure(fs__svc(r, p, k, i)->ttft_figs, 0.99, 1e-6); }
static double m_tpot_p99(const fs_results *r, size_t p, uint32_t k, size_t i) { return fs_results_rep_figure(fs__svc(r, p, k, i)->tpot_figs, 0.99, 1e-6); }
static double fs__llm_fig(const fs_results *r, size_t p, uint32_t k, size_t i, fs_llm_figure f)
{
    double fig[FS_LFIG_COUNT];
    fs_results_llm_figures(r, p, k, i, fig);
    return fig[f];
}
static double m_tokens_s(const fs_results *r, size_t p, uint32_t k, size_t i) { return fs__llm_fig(r, p, k, i, FS_LFIG_TOKENS_PER_S); }
static double m_cost_m_tokens(const fs_results *r, size_t p, uint32_t k, size_t i) { return fs__llm_fig(r, p, k, i, FS_LFIG_COST_PER_M_TOKENS); }
static double m_goodput(const fs_results *r, size_t p, uint32_t k, size_t i) { return 100 * fs__llm_fig(r, p, k, i, FS_LFIG_GOODPUT); }
static double m_prefix_hit(const fs_results *r, size_t p, uint32_t k, size_t i) { return 100 * fs__llm_fig(r, p, k, i, FS_LFIG_PREFIX_HIT_RATIO); }
static double m_kv_transfer(const fs_results *r, size_t p, uint32_t k, size_t i) { return fs__llm_fig(r, p, k, i, FS_LFIG_KV_TRANSFER_MS); }

static const fs__row rows[] = {
    {ROW_SERVICE, "p50_ms", "p50 ms", m_p50, fs_results_latency_hist, 0.50, 1e-6, true, FS_SETTLE_P50, false, NULL, NULL},
    {ROW_SERVICE, "p95_ms", "p95 ms", m_p95, fs_results_latency_hist, 0.95, 1e-6, true, FS_SETTLE_P95, false, NULL, NULL},
    {ROW_SERVICE, "p99_ms", "p99 ms", m_p99, fs_results_latency_hist, 0.99, 1e-6, true, FS_SETTLE_P99, false, NULL, NULL},
    {ROW_SERVICE, "worst_window_p99_ms", "worst-window p99 ms", m_worst_p99, NULL, 0, 0, false, 0, false, NULL, NULL},
    {ROW_SERVICE, "slo_breach_windows_per_week", "SLO breach windows/week", m_breach_week, NULL, 0, 0, false, 0,
     true, NULL, NULL},
    {ROW_SERVICE, "dropped", "requests dropped", m_dropped, NULL, 0, 0, false, 0, false, NULL, fs__any_dropped},
    {ROW_SERVICE, "batch_mean_size", "mean batch size", m_batch_mean, NULL, 0, 0, false, 0, false, merged_batch_mean,
     fs__batched},
    {ROW_SERVICE, "ttft_p99_ms", "TTFT p99 ms", m_ttft_p99, fs_results_ttft_hist, 0.99, 1e-6, false, 0, false, NULL,
     fs__llm},
    {ROW_SERVICE, "tpot_p99_ms", "TPOT p99 ms", m_tpot_p99, fs_results_tpot_hist, 0.99, 1e-6, false, 0, false, NULL,
     fs__llm},
    {ROW_SERVICE, "tokens_per_s", "tokens/s", m_tokens_s, NULL, 0, 0, false, 0, false, NULL, fs__llm},
    {ROW_SERVICE, "cost_per_million_tokens", "USD per million tokens", m_cost_m_tokens, NULL, 0, 0, false, 0, false,
     NULL, fs__llm},
    {ROW_SERVICE, "goodput_pct", "goodput %", m_goodput, NULL, 0, 0, false, 0, false, NULL, fs__llm},
    {ROW_SERVICE, "prefix_hit_pct", "prefix cache hit %", m_prefix_hit, NULL, 0, 0, false, 0, false, NULL, fs__llm},
    {ROW_SERVICE, "kv_transfer_ms", "KV transfer ms", m_kv_transfer, NULL, 0, 0, false, 0, false, NULL, fs__llm},
    {ROW_SERVICE, "spilled_requests", "requests spilled out", m_spilled, NULL, 0, 0, false, 0, false, NULL, fs__spills},
    {ROW_TRAINING, "queue_wait_p50_min", "queue wait p50 min", m_wait_p50, fs_results_wait_hist, 0.50, 1e-9 / 60, false, 0, false, NULL, fs__runs_jobs},
    {ROW_TRAINING, "queue_wait_p95_min", "queue wait p95 min", m_wait_p95, fs_results_wait_hist, 0.95, 1e-9 / 60, false, 0, false, NULL, fs__runs_jobs},
    {ROW_TRAINING, "jobs_waiting_at_end", "jobs waiting at horizon", m_waiting_end, NULL, 0, 0, false, 0, false, NULL,
     fs__any_waiting},
    {ROW_TRAINING, "startup_mean_s", "start-up mean s", m_startup, NULL, 0, 0, false, 0, false, NULL, fs__runs_jobs},
    {ROW_TRAINING, "cycle_p50_min", "iteration cycle p50 min", m_cycle_p50, NULL, 0, 0, false, 0, false,
     merged_cycle_p50, fs__root},
    {ROW_TRAINING, "cycle_p95_min", "iteration cycle p95 min", m_cycle_p95, NULL, 0, 0, false, 0, false,
     merged_cycle_p95, fs__root},
    {ROW_TRAINING, "rollout_mean_s", "rollout mean s", m_rollout_mean, NULL, 0, 0, false, 0, false,
     merged_rollout_mean, fs__deploys},
    {ROW_FLEET, "gpu_hours", "GPU-hours", m_gpu_h, NULL, 0, 0, false, 0, false, NULL, NULL},
    {ROW_FLEET, "cost_usd", "cost USD", m_cost, NULL, 0, 0, false, 0, false, NULL, NULL},
    {ROW_FLEET, "utilization_pct", "utilization %", m_util, NULL, 0, 0, false, 0, false, NULL, NULL},
    {ROW_FLEET, "peak_headroom_pct", "peak headroom %", m_headroom, NULL, 0, 0, false, 0, false, NULL, NULL},
    {ROW_FLEET, "switch_gpu_hours", "switch GPU-hours", m_switch, NULL, 0, 0, false, 0, false, NULL, NULL},
    {ROW_REGION, "gpu_hours", "GPU-hours", m_region_gpu_h, NULL, 0, 0, false, 0, false, NULL, NULL},
    {ROW_REGION, "cost_usd", "cost USD", m_region_cost, NULL, 0, 0, false, 0, false, NULL, NULL},
    {ROW_REGION, "utilization_pct", "utilization %", m_region_util, NULL, 0, 0, false, 0, false, NULL, NULL},
    {ROW_REGION, "spilled_out", "requests spilled out", m_region_out, NULL, 0, 0, false, 0, false, NULL, fs__any_spill},
    {ROW_TENANT, "blocked_breach_minutes", "breach minutes charged", m_blocked, NULL, 0, 0, false, 0, false, NULL, NULL},
};

/* Whether any policy charged tenant t anything: only they are shown. */
static bool fs__tenant_charged(const fs_results *r, size_t t)
{
    for (size_t p = 0; p < r->n_policies; p++)
        for (uint32_t k = 0; k < r->policies[p].n_reps; k++)
            if (r->policies[p].reps[k].blocked_minutes[t] > 0)
                return true;
    return false;
}
#define FS__N_ROWS (sizeof rows / sizeof *rows)

/* Whether row applies to item `index`: a batch or LLM figure only to a
 * service some policy batches or runs as an LLM engine. */
static bool fs__row_applies(const fs_results *r, const fs__row *row, size_t index)
{
    if (!row->applies)
        return true;
    for (size_t p = 0; p < r->n_policies; p++)
        if (row->applies(r, p, index))
            return true;
    return false;
}

/* Whether any policy's stream i ended with jobs that never started: its
 * queue-wait figures are then lower bounds. */
static bool fs__waits_censored(const fs_results *r, size_t i)
{
    for (size_t p = 0; p < r->n_policies; p++)
        for (uint32_t k = 0; k < r->policies[p].n_reps; k++)
            if (r->policies[p].reps[k].training[i].waits_censored > 0)
                return true;
    return false;
}

/* Policy p's figure, and the paired difference to policy 0 (NaN: no data).
 * A percentile's value, and its difference, come from the merged
 * histograms (fs_results_percentile); every CI comes from the spread of
 * the per-replication figures, replications without data left out. */
static int fs__cell(const fs_results *r, const fs__row *row, size_t p, size_t b, size_t index, fs_summary *value,
                    fs_summary *diff)
{
    uint32_t n = r->policies[0].n_reps;
    double *x = malloc(2 * (size_t)n * sizeof *x);
    if (!x)
        return -1;
    for (uint32_t k = 0; k < n; k++) {
        x[k] = row->metric(r, p, k, index);
        x[n + k] = x[k] - row->metric(r, b, k, index);
        /* Equal figures summed in another order differ by rounding (1e-13):
         * that is no difference. */
        if (fabs(x[n + k]) < 1e-9 * fmax(1.0, fabs(x[k])))
            x[n + k] = 0;
    }
    *value = fs_results_summary_known(x, 1, n);
    *diff = fs_results_summary_known(x + n, 1, n);
    free(x);
    if (row->hist) {
        fs_percentile mine, base;
        if (fs_results_percentile(r, p, row->hist, index, row->q, row->scale, &mine) != 0 ||
            fs_results_percentile(r, b, row->hist, index, row->q, row->scale, &base) != 0)
            return -1;
        value->mean = mine.value;
        diff->mean = mine.value - base.value;
        if (fabs(diff->mean) < 1e-9 * fmax(1.0, fabs(mine.value)))
            diff->mean = 0;
    }
    if (row->merged) {
        double mine = row->merged(r, p, index);
        value->mean = mine;
        diff->mean = mine - row->merged(r, b, index);
        if (fabs(diff->mean) < 1e-9 * fmax(1.0, fabs(mine)))
            diff->mean = 0;
    }
    return 0;
}

/* A table cell: the value, or why there is none; `mark` after it. */
static void fs__put_value(FILE *fp, double v, bool no_slo, const char *mark)
{
    char buf[40];
    if (no_slo)
        snprintf(buf, sizeof buf, "no SLO");
    else if (isnan(v))
        snprintf(buf, sizeof buf, "no data");
    else
        snprintf(buf, sizeof buf, "%.4g%s", v, mark);
    fprintf(fp, " %14s", buf);
}

/* The rows of one kind for service, stream or tenant `index`; *marked is
 * set when a figure or difference was marked as not settled. */
static int fs__table_rows(const fs_results *r, fs__row_kind kind, size_t index, FILE *fp, bool *marked)
{
    /* Each policy's settling diagnostics of this service, for the marks. */
    fs_service_summary *sum = NULL;
    if (kind == ROW_SERVICE) {
        sum = malloc(r->n_policies * sizeof *sum);
        if (!sum)
            return -1;
        for (size_t p = 0; p < r->n_policies; p++)
            if (fs_results_service_summary(r, p, index, &sum[p]) != 0) {
                free(sum);
                return -1;
            }
    }
    for (size_t j = 0; j < FS__N_ROWS; j++) {
        if (rows[j].kind != kind || !fs__row_applies(r, &rows[j], index))
            continue;
        fprintf(fp, "  %-26s", rows[j].label);
        for (size_t p = 0; p < r->n_policies; p++) {
            fs_summary v, d;
            if (fs__cell(r, &rows[j], p, 0, index, &v, &d) != 0) {
                free(sum);
                return -1;
            }
            bool no_slo = rows[j].needs_slo && !fs__has_slo(r, p, index);
            if (rows[j].applies && !rows[j].applies(r, p, index)) {
                fprintf(fp, " %14s", "-");
                continue;
            }
            const fs_settling *mine = rows[j].judged ? &sum[p].settling[rows[j].figure] : NULL;
            const fs_settling *base = rows[j].judged ? &sum[0].settling[rows[j].figure] : NULL;
            bool unsettled = mine && fs_unsettled_is(mine);
            fs__put_value(fp, v.mean, no_slo, unsettled ? fs_unsettled_mark(mine) : "");
            *marked |= unsettled && !isnan(v.mean);
            if (p == 0 || isnan(d.mean))
                continue;
            /* A difference is no more settled than the figures it is taken
             * between. */
            const char *dmark = unsettled ? fs_unsettled_mark(mine) : base ? fs_unsettled_mark(base) : "";
            *marked |= *dmark != '\0';
            if (d.valid)
                fprintf(fp, " (%+.4g ±%.2g%s)", d.mean, d.half_width, dmark);
            else
                fprintf(fp, " (%+.4g%s)", d.mean, dmark);
        }
        fputc('\n', fp);
    }
    free(sum);
    return 0;
}

/* How a pool's GPUs are cut: "whole", "MIG 3g.40gb, 3g.40gb", "time-sliced
 * by 4", or "MPS, 8 seats, shares <= 1" (fractional). */
static void fs__pool_kind(const fs_pool_spec *pool, char *buf, size_t size)
{
    size_t n = 0;
    switch (pool->partitioning) {
    case FS_PARTITION_WHOLE:
        snprintf(buf, size, "whole");
        break;
    case FS_PARTITION_MIG:
        n = (size_t)snprintf(buf, size, "MIG");
        for (size_t k = 0; k < pool->mig.n && n < size; k++)
            n += (size_t)snprintf(buf + n, size - n, "%s %s", k ? "," : "", pool->mig.profiles[k]->name);
        break;
    case FS_PARTITION_TIME_SLICED:
        snprintf(buf, size, "time-sliced by %u", pool->time_slicing.tenants);
        break;
    case FS_PARTITION_FRACTIONAL:
        snprintf(buf, size, "%s, %u seats, shares <= %g", pool->fractional.mode == FS_SHARE_MPS ? "MPS" : "virtual",
                 pool->fractional.seats, pool->fractional.oversubscription);
        break;
    }
}

/* Every policy's pools, one a line: GPUs, how they are cut, units used
 * at the start, and what the placement strands (placement.h). */
static void fs__pools(const fs_results *r, FILE *fp)
{
    fputs("pools: GPUs, partitioning, units used at the start, memory and compute stranded\n", fp);
    for (size_t p = 0; p < r->n_policies; p++) {
        const fs_scenario *v = r->policies[p].scenario;
        for (size_t i = 0; i < v->n_pools; i++) {
            const fs_pool_spec *pool = &v->pools[i];
            const fs_pool_units *pu = &r->policies[p].placement->pools[i];
            double memory = pool->gpus * v->gpu_types[pool->gpu_type].memory_gb;
            char kind[160];
            fs__pool_kind(pool, kind, sizeof kind);
            fputs("  ", fp);
            fs_terminal_write(fp, r->policies[p].name);
            fputs(" / ", fp);
            fs_terminal_write(fp, pool->name);
            fprintf(fp, ": %u x ", pool->gpus);
            fs_terminal_write(fp, pool->gpu);
            fprintf(fp, ", %s; %zu of %zu units; %.3g%% of memory, %.3g GPUs of compute stranded\n", kind,
                    pu->start_units - pu->free_units, pu->start_units, memory > 0 ? 100 * pu->stranded_memory_gb / memory : 0,
                    pu->stranded_sm_share);
        }
    }
}

static void fs__term_raw(void *fp, const char *s) { fputs(s, fp); }
static void fs__term_text(void *fp, const char *s) { fs_terminal_write(fp, s); }

/* After the table: the verdict and each policy's trade-offs, written from
 * the same JSON compare.json carries (tradeoffs.h).  -1 when out of memory. */
static int fs__verdict_text(const fs_results *r, FILE *fp)
{
    json_t *doc = fs_compare_json(r);
    if (!doc)
        return -1;
    const json_t *v = json_object_get(doc, "verdict");
    fs_tradeoffs_sink sink = {fs__term_raw, fs__term_text, fp};
    fputs("\nverdict: ", fp);
    fs_tradeoffs_write_reason(v, &sink);
    fputs(".\n", fp);
    for (size_t p = 1; p < r->n_policies; p++) {
        fputs(p == 1 ? "trade-offs:\n  " : "  ", fp);
        fs_tradeoffs_write_policy(v, p, &sink);
        fputs(".\n", fp);
    }
    if (r->n_policies > 1)
        fprintf(fp, "(material: %s)\n", fs_tradeoffs_rule);
    json_decref(doc);
    return 0;
}

int fs_compare_table(const fs_results *r, FILE *fp, fs_error *err)
{
    const fs_scenario *s = r->scenario;
    fputs("compare: scenario ", fp);
    fs_terminal_write(fp, s->name);
    fprintf(fp, ", %u replication%s on common random numbers; differences to ", s->replications,
            s->replications == 1 ? "" : "s");
    fs_terminal_write(fp, r->policies[0].name);
    fputs(" with their 95% CI\n\n", fp);
    fprintf(fp, "  %-26s", "");
    for (size_t p = 0; p < r->n_policies; p++) {
        fputc(' ', fp);
        size_t len = strlen(r->policies[p].name);
        for (size_t pad = len < 14 ? 14 - len : 0; pad > 0; pad--)
            fputc(' ', fp);
        fs_terminal_write(fp, r->policies[p].name);
    }
    fputc('\n', fp);
    int rc = 0;
    bool marked = false;
    for (size_t i = 0; i < s->n_services && rc == 0; i++) {
        fputs("service ", fp);
        fs_terminal_write(fp, s->services[i].name);
        fputc('\n', fp);
        rc = fs__table_rows(r, ROW_SERVICE, i, fp, &marked);
    }
    for (size_t i = 0; i < s->n_training && rc == 0; i++) {
        fputs("training ", fp);
        fs_terminal_write(fp, s->training[i].name);
        fputc('\n', fp);
        rc = fs__table_rows(r, ROW_TRAINING, i, fp, &marked);
        if (rc == 0 && fs__waits_censored(r, i))
            fputs("  (queue waits count jobs still waiting at the horizon with their wait so far: lower bounds)\n",
                  fp);
    }
    for (size_t g = 0; fs_results_regions_shown(s) && g < s->n_regions && rc == 0; g++) {
        fputs("region ", fp);
        fs_terminal_write(fp, s->regions[g].name);
        fputc('\n', fp);
        rc = fs__table_rows(r, ROW_REGION, g, fp, &marked);
    }
    if (rc == 0) {
        fputs("fleet\n", fp);
        rc = fs__table_rows(r, ROW_FLEET, 0, fp, &marked);
    }
    if (rc == 0)
        fs__pools(r, fp);
    bool header = false;
    for (size_t t = 0; t < r->n_tenants && rc == 0; t++) {
        if (!fs__tenant_charged(r, t))
            continue;
        if (!header) {
            fputs("externality: SLO-breach minutes while a scale-up waited, charged to the tenants "
                  "holding its pool's GPUs\n",
                  fp);
            header = true;
        }
        fputs("tenant ", fp);
        fs_terminal_write(fp, r->tenants[t]);
        fputc('\n', fp);
        rc = fs__table_rows(r, ROW_TENANT, t, fp, &marked);
    }
    if (rc == 0 && marked)
        fs_unsettled_legend(fp, "a difference beside a figure that has not settled has not settled either "
                                "(why: fleetsim run --format json, settling)");
    if (rc == 0)
        rc = fs__verdict_text(r, fp);
    if (rc != 0)
        return fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
    if (ferror(fp))
        return fs_error_set(err, FS_ERR_RUNTIME, "cannot write the comparison");
    return FS_OK;
}

static json_t *fs__num(double x)
{
    return isfinite(x) ? json_real(x) : json_null();
}

/* The rows of one kind for one service or stream of policy p: values, or
 * paired differences to the baseline as {"mean", "ci95"}.  NULL on ENOMEM. */
static json_t *fs__rows_json(const fs_results *r, fs__row_kind kind, size_t index, size_t p, size_t b, int diff)
{
    json_t *o = json_object();
    for (size_t j = 0; j < FS__N_ROWS && o; j++) {
        if (rows[j].kind != kind || !fs__row_applies(r, &rows[j], index))
            continue;
        fs_summary v, d;
        if (fs__cell(r, &rows[j], p, b, index, &v, &d) != 0) {
            json_decref(o);
            return NULL;
        }
        if (!diff) {
            json_object_set_new(o, rows[j].key, fs__num(v.mean));
            continue;
        }
        json_t *cell = json_object();
        json_object_set_new(cell, "mean", fs__num(d.mean));
        json_object_set_new(cell, "ci95", d.valid ? fs__num(d.half_width) : json_null());
        json_object_set_new(o, rows[j].key, cell);
    }
    return o;
}

/* {"services": {name: rows}, "training": {name: rows}, "fleet": rows} of policy p. */
static json_t *fs__policy_json(const fs_results *r, size_t p, size_t b, int diff)
{
    const fs_scenario *s = r->scenario;
    json_t *o = json_object(), *services = json_object(), *training = json_object();
    json_object_set_new(o, "services", services);
    json_object_set_new(o, "training", training);
    for (size_t i = 0; i < s->n_services; i++) {
        json_t *rows_i = fs__rows_json(r, ROW_SERVICE, i, p, b, diff);
        if (!rows_i)
            goto fail;
        json_object_set_new(services, s->services[i].name, rows_i);
    }
    for (size_t i = 0; i < s->n_training; i++) {
        json_t *rows_i = fs__rows_json(r, ROW_TRAINING, i, p, b, diff);
        if (!rows_i)
            goto fail;
        json_object_set_new(training, s->training[i].name, rows_i);
    }
    if (fs_results_regions_shown(s)) { /* only then: single-region comparisons read as before */
        json_t *regions = json_object();
        json_object_set_new(o, "regions", regions);
        for (size_t g = 0; g < s->n_regions; g++) {
            json_t *rows_g = fs__rows_json(r, ROW_REGION, g, p, b, diff);
            if (!rows_g)
                goto fail;
            json_object_set_new(regions, s->regions[g].name, rows_g);
        }
    }
    json_t *fleet = fs__rows_json(r, ROW_FLEET, 0, p, b, diff);
    if (!fleet)
        goto fail;
    json_object_set_new(o, "fleet", fleet);
    json_t *tenants = json_object();
    json_object_set_new(o, "externality", tenants);
    for (size_t t = 0; t < r->n_tenants; t++) {
        json_t *rows_t = fs__rows_json(r, ROW_TENANT, t, p, b, diff);
        if (!rows_t)
            goto fail;
        json_object_set_new(tenants, r->tenants[t], rows_t);
    }
    return o;
fail:
    json_decref(o);
    return NULL;
}

/* The verdict (tradeoffs.h) over doc; when a single policy is best, it is
 * judged again with its paired differences to every other policy that
 * meets every SLO ("pairs", taken out again: compare.json pairs with the
 * baseline only), so its price is named against those as well.  NULL when
 * out of memory. */
static json_t *fs__verdict_json(const fs_results *r, json_t *doc)
{
    json_t *slo = fs_tradeoffs_slo(r);
    json_t *v = slo ? fs_tradeoffs_verdict(doc, slo) : NULL;
    const char *best = json_string_value(json_array_get(json_object_get(v, "best"), 0));
    json_t *pairs = json_object(), *mine = json_object();
    for (size_t b = 0; best && b < r->n_policies; b++) {
        if (strcmp(r->policies[b].name, best) != 0 || json_array_size(json_object_get(v, "best")) != 1)
            continue;
        for (size_t q = 1; q < r->n_policies; q++)
            if (q != b && json_is_true(json_object_get(json_array_get(slo, q), "meets")))
                json_object_set_new(mine, r->policies[q].name, fs__policy_json(r, b, q, 1));
    }
    if (v && json_object_size(mine)) {
        json_object_set(pairs, best, mine);
        json_object_set(doc, "pairs", pairs);
        json_decref(v);
        v = fs_tradeoffs_verdict(doc, slo);
        json_object_del(doc, "pairs");
    }
    json_decref(mine);
    json_decref(pairs);
    json_decref(slo);
    return v;
}

json_t *fs_compare_json(const fs_results *r)
{
    json_t *doc = json_object(), *values = json_object(), *diffs = json_object();
    json_object_set_new(doc, "schema", json_string("fleetsim-compare/1"));
    json_object_set_new(doc, "scenario", json_string(r->scenario->name));
    json_object_set_new(doc, "replications", json_integer(r->scenario->replications));
    json_object_set_new(doc, "baseline", json_string(r->policies[0].name));
    json_object_set_new(doc, "policies", values);
    json_object_set_new(doc, "differences", diffs);
    for (size_t p = 0; p < r->n_policies; p++) {
        json_t *v = fs__policy_json(r, p, 0, 0), *d = fs__policy_json(r, p, 0, 1);
        if (!v || !d) {
            json_decref(v);
            json_decref(d);
            json_decref(doc);
            return NULL;
        }
        json_object_set_new(values, r->policies[p].name, v);
        json_object_set_new(diffs, r->policies[p].name, d);
    }
    json_t *verdict = fs__verdict_json(r, doc);
    if (!verdict) {
        json_decref(doc);
        return NULL;
    }
    json_object_set_new(doc, "verdict", verdict);
    return doc;
}

#include "results.h"

#include <assert.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "quantile.h"
#include "spool.h"

#define FS_WEEK_S (7 * 86400.0)

int fs_results_create(const fs_scenario *s, const size_t *which, size_t n, fs_results **out)
{
    fs_results *r = calloc(1, sizeof *r);
    if (!r)
        return ENOMEM;
    r->scenario = s;
    r->keep_hist_max = FS_RESULTS_KEEP_HIST_BYTES;
    r->keep_rep_max = FS_RESULTS_KEEP_REP_BYTES;
    r->keep_merged_max = FS_RESULTS_KEEP_MERGED_BYTES;
    r->tenants = calloc(s->n_services + s->n_training + 1, sizeof *r->tenants);
    r->spill_error = calloc(1, sizeof *r->spill_error);
    if (!r->tenants || !r->spill_error)
        goto err;
    for (size_t i = 0; i < s->n_services + s->n_training; i++) {
        const char *t = i < s->n_services ? s->services[i].tenant : s->training[i - s->n_services].tenant;
        if (fs_results_tenant(r, t) == SIZE_MAX)
            r->tenants[r->n_tenants++] = t;
    }
    size_t n_policies = which ? n : s->policies ? s->n_policies : 1;
    r->policies = calloc(n_policies, sizeof *r->policies);
    if (!r->policies)
        goto err;
    r->n_policies = n_policies;
    for (size_t p = 0; p < n_policies; p++) {
        fs_policy_result *pol = &r->policies[p];
        size_t v = which ? which[p] : p;
        pol->scenario = s->policies ? s->policies[v] : s;
        pol->name = pol->scenario->policy ? pol->scenario->policy : "default";
        pol->loads = calloc(s->n_services ? s->n_services : 1, sizeof *pol->loads);
        pol->reps = calloc(s->replications, sizeof *pol->reps);
        /* Merged histograms: empty structs, counters only as values arrive. */
        pol->latency = calloc(s->n_services ? s->n_services : 1, sizeof *pol->latency);
        pol->ttft = calloc(s->n_services ? s->n_services : 1, sizeof *pol->ttft);
        pol->tpot = calloc(s->n_services ? s->n_services : 1, sizeof *pol->tpot);
        pol->wait = calloc(s->n_training ? s->n_training : 1, sizeof *pol->wait);
        if (!pol->loads || !pol->reps || !pol->latency || !pol->ttft || !pol->tpot || !pol->wait)
            goto err;
        for (size_t i = 0; i < s->n_services; i++)
            fs_hist_init(&pol->latency[i]), fs_hist_init(&pol->ttft[i]), fs_hist_init(&pol->tpot[i]);
        for (size_t i = 0; i < s->n_training; i++)
            fs_hist_init(&pol->wait[i]);
        pol->n_reps = s->replications;
    }
    *out = r;
    return 0;
err:
    fs_results_destroy(r);
    return ENOMEM;
}

/* An array of n histograms (NULL: none), zeroed or initialised. */
static void fs__hists_free(fs_hist *h, size_t n)
{
    for (size_t i = 0; h && i < n; i++)
        fs_hist_fini(&h[i]);
    free(h);
}

void fs_results_destroy(fs_results *r)
{
    if (!r)
        return;
    for (size_t p = 0; r->policies && p < r->n_policies; p++) {
        fs_policy_result *pol = &r->policies[p];
        for (uint32_t k = 0; pol->reps && k < pol->n_reps; k++)
            fs_rep_result_fini(&pol->reps[k], pol->scenario);
        free(pol->reps);
        free(pol->loads);
        fs__hists_free(pol->latency, r->scenario->n_services);
        fs__hists_free(pol->ttft, r->scenario->n_services);
        fs__hists_free(pol->tpot, r->scenario->n_services);
        fs__hists_free(pol->wait, r->scenario->n_training);
        free(pol->settle);
        fs_results__park_free(pol);
        fs_placement_destroy(pol->placement);
    }
    free(r->policies);
    free(r->tenants);
    fs_spool_destroy(r->rep_spool);
    free(r->spill_error);
    free(r);
}

size_t fs_results_tenant(const fs_results *r, const char *tenant)
{
    for (size_t i = 0; i < r->n_tenants; i++)
        if (strcmp(r->tenants[i], tenant) == 0)
            return i;
    return SIZE_MAX;
}

int fs_rep_result_init(fs_rep_result *rep, const fs_scenario *s, uint32_t replication, size_t n_tenants)
{
    *rep = (fs_rep_result){.replication = replication};
    rep->services = calloc(s->n_services ? s->n_services : 1, sizeof *rep->services);
    rep->pools = calloc(s->n_pools ? s->n_pools : 1, sizeof *rep->pools);
    rep->training = calloc(s->n_training ? s->n_training : 1, sizeof *rep->training);
    rep->blocked_minutes = calloc(n_tenants ? n_tenants : 1, sizeof *rep->blocked_minutes);
    rep->settle = calloc(s->n_services ? s->n_services : 1, sizeof *rep->settle);
    if (!rep->services || !rep->pools || !rep->training || !rep->blocked_minutes || !rep->settle)
        goto err;
    if (s->n_quotas && !(rep->quotas = calloc(s->n_quotas + 1, sizeof *rep->quotas)))
        goto err;
    for (size_t i = 0; i < s->n_services; i++) {
        rep->services[i].batches = &rep->settle[i];
        /* Every histogram initialised (they allocate nothing until used), so
         * sealing merges them all alike: a non-LLM service's ttft stays empty. */
        if (fs_hist_init(&rep->services[i].latency) != 0 || fs_hist_init(&rep->services[i].ttft) != 0 ||
            fs_hist_init(&rep->services[i].tpot) != 0)
            goto err;
        const fs_batching *b = &s->services[i].batching;
        if (b->kind != FS_BATCHING_NONE &&
            !(rep->services[i].batch_size_counts = calloc((size_t)b->max_batch_size + 1, sizeof(uint64_t))))
            goto err;
        rep->services[i].llm = b->kind == FS_BATCHING_CONTINUOUS;
        rep->services[i].worst_window_p99_ms = NAN; /* no window yet: no data */
        fs_span_init(&rep->services[i].arrival_span, s->warmup_s, s->horizon_s);
    }
    for (size_t i = 0; i < s->n_pools; i++)
        rep->pools[i].least_headroom = NAN;
    rep->fleet_least_headroom = NAN;
    for (size_t i = 0; i < s->n_training; i++)
        if (fs_hist_init(&rep->training[i].wait) != 0)
            goto err;
    return 0;
err:
    fs_rep_result_fini(rep, s);
    return ENOMEM;
}

void fs_rep_result_fini(fs_rep_result *rep, const fs_scenario *s)
{
    if (rep->services) {
        for (size_t i = 0; i < s->n_services; i++) {
            fs_hist_fini(&rep->services[i].latency);
            fs_hist_fini(&rep->services[i].ttft);
            fs_hist_fini(&rep->services[i].tpot);
            free(rep->services[i].batch_size_counts);
            free(rep->services[i].windows);
            free(rep->services[i].slo_breach_starts);
        }
    }
    if (rep->pools)
        for (size_t i = 0; i < s->n_pools; i++)
            free(rep->pools[i].windows);
    if (rep->training)
        for (size_t i = 0; i < s->n_training; i++) {
            fs_hist_fini(&rep->training[i].wait);
            free(rep->training[i].waits);
            free(rep->training[i].pipeline.cycle_s);
            free(rep->training[i].rollouts.cycle_s);
            fs_intern_fini(&rep->training[i].tenants);
        }
    free(rep->services);
    free(rep->pools);
    free(rep->training);
    free(rep->quotas);
    free(rep->blocked_minutes);
    free(rep->settle);
    fs_rep__free_spilled(rep, s->n_services);
    rep->services = NULL;
    rep->pools = NULL;
}

double fs_results_measured_s(const fs_results *r)
{
    return r->scenario->horizon_s - r->scenario->warmup_s;
}

/* Field accessors keep the summary code one line per figure instead of one
 * loop per figure. */
typedef double (*fs__service_field)(const fs_service_rep *s, double measured_s);

#define FS__NS_TO_MS 1e-6
static double f_requests(const fs_service_rep *s, double m) { (void)m; return (double)s->requests; }
static double f_completed(const fs_service_rep *s, double m) { (void)m; return (double)s->completed; }
static double f_dropped(const fs_service_rep *s, double m) { (void)m; return (double)s->dropped; }
static double f_in_start(const fs_service_rep *s, double m) { (void)m; return (double)s->in_flight_start; }
static double f_in_end(const fs_service_rep *s, double m) { (void)m; return (double)s->in_flight_end; }
static double f_mean(const fs_service_rep *s, double m) { (void)m; return fs_results_rep_figure(s->latency_figs, -1, FS__NS_TO_MS); }
static double f_p50(const fs_service_rep *s, double m) { (void)m; return fs_results_rep_figure(s->latency_figs, 0.50, FS__NS_TO_MS); }
static double f_p95(const fs_service_rep *s, double m) { (void)m; return fs_results_rep_figure(s->latency_figs, 0.95, FS__NS_TO_MS); }
static double f_p99(const fs_service_rep *s, double m) { (void)m; return fs_results_rep_figure(s->latency_figs, 0.99, FS__NS_TO_MS); }
static double f_p999(const fs_service_rep *s, double m) { (void)m; return fs_results_rep_figure(s->latency_figs, 0.999, FS__NS_TO_MS); }
/* No request started: no wait was seen, which is no data, not a zero wait. */
static double f_wait(const fs_service_rep *s, double m) { (void)m; return s->started ? s->wait_sum_s / (double)s->started * 1e3 : NAN; }
static double f_pwait(const fs_service_rep *s, double m) { (void)m; return s->started ? (double)s->waited / (double)s->started : NAN; }
static double f_in_system(const fs_service_rep *s, double m) { (void)m; return s->mean_in_system; }
static double f_tput(const fs_service_rep *s, double m) { return m > 0 ? (double)s->completed / m : 0; }
static double f_breach(const fs_service_rep *s, double m) { (void)m; return (double)s->slo_breach_windows; }
static double f_breach_week(const fs_service_rep *s, double m) { return m > 0 ? (double)s->slo_breach_windows * FS_WEEK_S / m : 0; }
static double f_growth(const fs_service_rep *s, double m) { (void)m; return s->queue_growth_per_h; }
static double f_replicas(const fs_service_rep *s, double m) { (void)m; return s->mean_ready_replicas; }

static const fs__service_field fs__service_fields[FS_SFIG_COUNT] = {
    [FS_SFIG_REQUESTS] = f_requests, [FS_SFIG_COMPLETED] = f_completed, [FS_SFIG_DROPPED] = f_dropped,
    [FS_SFIG_IN_FLIGHT_START] = f_in_start, [FS_SFIG_IN_FLIGHT_END] = f_in_end, [FS_SFIG_MEAN_MS] = f_mean,
    [FS_SFIG_P50_MS] = f_p50, [FS_SFIG_P95_MS] = f_p95, [FS_SFIG_P99_MS] = f_p99, [FS_SFIG_P999_MS] = f_p999,
    [FS_SFIG_WAIT_MEAN_MS] = f_wait, [FS_SFIG_WAIT_PROBABILITY] = f_pwait,
    [FS_SFIG_MEAN_IN_SYSTEM] = f_in_system, [FS_SFIG_THROUGHPUT_RPS] = f_tput,
    [FS_SFIG_SLO_BREACH_WINDOWS] = f_breach, [FS_SFIG_SLO_BREACH_WINDOWS_PER_WEEK] = f_breach_week,
    [FS_SFIG_QUEUE_GROWTH_PER_H] = f_growth, [FS_SFIG_MEAN_READY_REPLICAS] = f_replicas,
};

void fs_results_service_figures(const fs_results *r, size_t policy, uint32_t replication, size_t service,
                                double fig[FS_SFIG_COUNT])
{
    const fs_service_rep *rep = fs_results_service_rep(r, policy, replication, service);
    double measured = fs_results_measured_s(r);
    for (size_t k = 0; k < FS_SFIG_COUNT; k++)
        fig[k] = fs__service_fields[k](rep, measured);
}

static fs_summary fs__summarize(const fs_policy_result *pol, size_t service, double measured_s,
                                fs_service_figure figure, double *scratch)
{
    fs__service_field field = fs__service_fields[figure];
    for (uint32_t k = 0; k < pol->n_reps; k++)
        scratch[k] = field(fs_rep_service(&pol->reps[k], service), measured_s);
    return fs_results_summary_known(scratch, 1, pol->n_reps);
}

fs_summary fs_results_summary_known(const double *x, size_t stride, size_t n)
{
    double *known = malloc((n ? n : 1) * sizeof *known);
    size_t have = 0;
    for (size_t k = 0; known && k < n; k++)
        if (!isnan(x[k * stride]))
            known[have++] = x[k * stride];
    fs_summary s = {.mean = NAN, .sd = NAN, .half_width = NAN};
    if (have)
        s = fs_summary_of(known, 1, have);
    else if (!known) /* out of memory: the plain summary, NaNs and all, rather than none */
        s = fs_summary_of(x, stride, n ? n : 1);
    free(known);
    return s;
}

/* The smallest size whose cumulative count reaches ceil(q n). */
static double fs__batch_quantile(const uint64_t *counts, uint32_t max, uint64_t n, double q)
{
    uint64_t need = (uint64_t)ceil(q * (double)n - 1e-9), seen = 0;
    for (uint32_t size = 1; size <= max; size++)
        if ((seen += counts[size]) >= need && seen > 0)
            return size;
    return max;
}

/* Batch sizes of replications [k0, k1) of a policy, their counts merged. */
static fs_batch_figures fs__batch_figures(const fs_results *r, size_t policy, size_t service, uint32_t k0,
                                          uint32_t k1)
{
    const fs_policy_result *pol = &r->policies[policy];
    uint32_t max = pol->scenario->services[service].batching.max_batch_size;
    fs_batch_figures f = {NAN, NAN, NAN, NAN, NAN};
    uint64_t *counts = calloc((size_t)max + 1, sizeof *counts);
    uint64_t n = 0;
    double sum = 0;
    for (uint32_t k = k0; counts && k < k1; k++) {
        const fs_service_rep *rep = fs_rep_service(&pol->reps[k], service);
        for (uint32_t size = 1; rep->batch_size_counts && size <= max; size++) {
            counts[size] += rep->batch_size_counts[size];
            n += rep->batch_size_counts[size];
            sum += (double)size * (double)rep->batch_size_counts[size];
        }
    }
    if (n > 0) {
        f.batches_per_rep = (double)n / (k1 - k0);
        f.mean = sum / (double)n;
        f.p50 = fs__batch_quantile(counts, max, n, 0.50);
        f.p95 = fs__batch_quantile(counts, max, n, 0.95);
        f.max = fs__batch_quantile(counts, max, n, 1.0);
    }
    free(counts);
    return f;
}

fs_batch_figures fs_results_batch_figures(const fs_results *r, size_t policy, size_t service)
{
    return fs__batch_figures(r, policy, service, 0, r->policies[policy].n_reps);
}

fs_batch_figures fs_results_batch_rep_figures(const fs_results *r, size_t policy, uint32_t rep, size_t service)
{
    return fs__batch_figures(r, policy, service, rep, rep + 1);
}

double fs_results_hist_figure(const fs_hist *h, double q, double scale)
{
    if (h->total == 0)
        return NAN;
    double ns = q < 0 ? fs_hist_mean(h) : q > 1 ? (double)h->max_ns : fs_hist_quantile(h, q);
    return ns * scale;
}

const double fs_results_rep_q[FS_RESULTS_REP_FIGS] = {-1, 0.50, 0.95, 0.99, 0.999, 2};

/* Index of q in fs_results_rep_q, or -1. */
static int fs__rep_q_index(double q)
{
    for (int f = 0; f < FS_RESULTS_REP_FIGS; f++)
        if (fs_results_rep_q[f] == q)
            return f;
    return -1;
}

double fs_results_rep_figure(const double figs[FS_RESULTS_REP_FIGS], double q, double scale)
{
    int f = fs__rep_q_index(q);
    assert(f >= 0);
    return figs[f] * scale; /* NaN stays NaN: no data */
}

/* The histograms a replication fills, by accessor. */
typedef enum fs__kind { FS__LATENCY, FS__TTFT, FS__TPOT, FS__WAIT, FS__UNKNOWN } fs__kind;

/* Replication k's own histogram of a kind (read through fs_rep_service:
 * the record of a spilled replication is its block's copy). */
static const fs_hist *fs__own_at(const fs_policy_result *pol, uint32_t k, fs__kind kind, size_t i)
{
    const fs_service_rep *sr = kind == FS__WAIT ? NULL : fs_rep_service(&pol->reps[k], i);
    return kind == FS__LATENCY ? &sr->latency
           : kind == FS__TTFT  ? &sr->ttft
           : kind == FS__TPOT  ? &sr->tpot
                               : &pol->reps[k].training[i].wait;
}

/* The merged histogram of a kind as it is in memory (the seal's: parked
 * ones are read back one by one there). */
static fs_hist *fs__merged_live(const fs_policy_result *pol, fs__kind kind, size_t i)
{
    return kind == FS__LATENCY ? &pol->latency[i]
           : kind == FS__TTFT  ? &pol->ttft[i]
           : kind == FS__TPOT  ? &pol->tpot[i]
                               : &pol->wait[i];
}

static const double *fs__figs_at(const fs_policy_result *pol, uint32_t k, fs__kind kind, size_t i)
{
    const fs_service_rep *sr = kind == FS__WAIT ? NULL : fs_rep_service(&pol->reps[k], i);
    return kind == FS__LATENCY ? sr->latency_figs
           : kind == FS__TTFT  ? sr->ttft_figs
           : kind == FS__TPOT  ? sr->tpot_figs
                               : pol->reps[k].training[i].wait_figs;
}

/* The merged histogram of a kind, for reading: back from disk if parked. */
static fs_hist *fs__merged_at(const fs_policy_result *pol, fs__kind kind, size_t i)
{
    fs_policy_result_unpark(pol);
    return fs__merged_live(pol, kind, i);
}

/* A replication's own histogram, or with one replication whose counters
 * went into the merged one, that one (the same values). */
static const fs_hist *fs__own(const fs_results *r, size_t policy, uint32_t k, fs__kind kind, size_t i)
{
    const fs_policy_result *pol = &r->policies[policy];
    return pol->reps[k].counts_dropped && pol->n_reps == 1 ? fs__merged_at(pol, kind, i) : fs__own_at(pol, k, kind, i);
}

const fs_hist *fs_results_latency_hist(const fs_results *r, size_t policy, uint32_t rep, size_t service) { return fs__own(r, policy, rep, FS__LATENCY, service); }
const fs_hist *fs_results_ttft_hist(const fs_results *r, size_t policy, uint32_t rep, size_t service) { return fs__own(r, policy, rep, FS__TTFT, service); }
const fs_hist *fs_results_tpot_hist(const fs_results *r, size_t policy, uint32_t rep, size_t service) { return fs__own(r, policy, rep, FS__TPOT, service); }
const fs_hist *fs_results_wait_hist(const fs_results *r, size_t policy, uint32_t rep, size_t stream) { return fs__own(r, policy, rep, FS__WAIT, stream); }

static fs__kind fs__kind_of(fs_results_hist_fn hist)
{
    return hist == fs_results_latency_hist ? FS__LATENCY
           : hist == fs_results_ttft_hist  ? FS__TTFT
           : hist == fs_results_tpot_hist  ? FS__TPOT
           : hist == fs_results_wait_hist  ? FS__WAIT
                                           : FS__UNKNOWN;
}

static size_t fs__n_of(const fs_scenario *s, fs__kind kind)
{
    return kind == FS__WAIT ? s->n_training : s->n_services;
}

/* Folds replication k's settling batches into the policy's (in replication
 * order, each term as fs__settling took it when it read every
 * replication's: the same sums, bit for bit) and frees them. */
static int fs__fold_settling(fs_policy_result *pol, uint32_t k)
{
    fs_rep_result *rep = &pol->reps[k];
    /* Allocated as the first replication ends, when the run's own state is
     * gone: a one-replication run's peak never holds both. */
    if (!pol->settle) {
        size_t n = pol->scenario->n_services;
        if (!(pol->settle = calloc(n ? n : 1, sizeof *pol->settle)))
            return ENOMEM;
        for (size_t i = 0; i < n; i++) {
            pol->settle[i].complete = true;
            for (size_t f = 0; f < FS_SETTLE_FIGURES; f++)
                pol->settle[i].comparable[f] = true;
        }
    }
    for (size_t i = 0; i < pol->scenario->n_services; i++) {
        fs_service_rep *sr = &rep->services[i];
        const fs_settle_batches *b = sr->batches;
        fs_settle_fold *fold = &pol->settle[i];
        fold->complete = fold->complete && fs_settle_complete(b) && b->n == FS_SETTLE_BATCHES;
        for (size_t f = 0; f < FS_SETTLE_FIGURES; f++) {
            fold->comparable[f] = fold->comparable[f] && fs_settle_comparable(b, (fs_settle_figure)f);
            for (size_t j = 0; j < FS_SETTLE_BATCHES; j++)
                fold->avg_ms[f][j] += b->value[f][j] * FS__NS_TO_MS / pol->n_reps;
            fold->lag1[f] += fs_settle_lag1(b->value[f], FS_SETTLE_BATCHES) / pol->n_reps;
        }
        sr->batches_closed = b->n;
        sr->batched = 0;
        for (uint32_t j = 0; j < b->n; j++)
            sr->batched += b->count[j];
        sr->batches = NULL;
    }
    free(rep->settle);
    rep->settle = NULL;
    return 0;
}

int fs_results_seal_rep(fs_results *r, size_t policy, uint32_t k)
{
    fs_policy_result *pol = &r->policies[policy];
    const fs_scenario *s = pol->scenario;
    fs_rep_result *rep = &pol->reps[k];
    assert(!rep->sealed && (k == 0 || pol->reps[k - 1].sealed));
    size_t bytes = 0;
    for (fs__kind kind = FS__LATENCY; kind < FS__UNKNOWN; kind++)
        for (size_t i = 0; i < fs__n_of(s, kind); i++) {
            /* The replication being sealed is in memory (a spill comes after),
             * so its records may be written through these. */
            fs_hist *own = (fs_hist *)fs__own_at(pol, k, kind, i);
            /* fs_results_hist_figure's value at scale 1: the ns, bit for bit. */
            double *figs = (double *)fs__figs_at(pol, k, kind, i);
            for (int f = 0; f < FS_RESULTS_REP_FIGS; f++)
                figs[f] = fs_results_hist_figure(own, fs_results_rep_q[f], 1.0);
            bytes += fs_hist_bytes(own);
        }
    /* Past the budget the merged histograms hold these values alone: the
     * first replication's counters become them (fs_hist_merge_drop). */
    bool keep = r->kept_hist_bytes + bytes <= r->keep_hist_max;
    for (fs__kind kind = FS__LATENCY; kind < FS__UNKNOWN; kind++)
        for (size_t i = 0; i < fs__n_of(s, kind); i++) {
            fs_hist *own = (fs_hist *)fs__own_at(pol, k, kind, i), *merged = fs__merged_live(pol, kind, i);
            /* Parked between replications: back one at a time, as the
             * replication's own go, so the two sets are never both whole. */
            int rc = fs_results__parked(pol) ? fs_results__unpark_next(pol, merged) : 0;
            if (rc != 0)
                return rc;
            if ((keep ? fs_hist_merge(merged, own) : fs_hist_merge_drop(merged, own)) != 0)
                return ENOMEM;
        }
    if (fs__fold_settling(pol, k) != 0)
        return ENOMEM;
    rep->sealed = true;
    rep->counts_dropped = !keep;
    if (keep)
        r->kept_hist_bytes += bytes;
    /* A failed spill or park leaves them in memory: the run goes on. */
    (void)fs_results_spill_rep(r, policy, k);
    if (k + 1 < pol->n_reps || policy + 1 < r->n_policies)
        (void)fs_results__park(r, pol);
    return 0;
}

int fs_results_percentiles(const fs_results *r, size_t policy, fs_results_hist_fn hist, size_t index,
                           const double *q, size_t n_q, double scale, fs_percentile *out)
{
    uint32_t n = r->policies[policy].n_reps;
    double *x = malloc((n ? n : 1) * sizeof *x);
    fs_hist merged;
    if (!x || fs_hist_init(&merged) != 0) {
        free(x);
        return ENOMEM;
    }
    /* The policy's merged histogram, kept as replications ended; for an
     * accessor of another's, the replications' own merged here. */
    fs__kind kind = fs__kind_of(hist);
    const fs_hist *all = kind == FS__UNKNOWN ? NULL : fs__merged_at(&r->policies[policy], kind, index);
    for (uint32_t k = 0; !all && k < n; k++)
        if (fs_hist_merge(&merged, hist(r, policy, k, index)) != 0) {
            fs_hist_fini(&merged);
            free(x);
            return ENOMEM;
        }
    for (size_t f = 0; f < n_q; f++) {
        for (uint32_t k = 0; k < n; k++) {
            const double *figs = kind == FS__UNKNOWN ? NULL : fs__figs_at(&r->policies[policy], k, kind, index);
            x[k] = figs && fs__rep_q_index(q[f]) >= 0 ? fs_results_rep_figure(figs, q[f], scale)
                                                      : fs_results_hist_figure(hist(r, policy, k, index), q[f], scale);
        }
        out[f].value = fs_results_hist_figure(all ? all : &merged, q[f], scale);
        out[f].spread = fs_results_summary_known(x, 1, n);
    }
    fs_hist_fini(&merged);
    free(x);
    return 0;
}

int fs_results_percentile(const fs_results *r, size_t policy, fs_results_hist_fn hist, size_t index, double q,
                          double scale, fs_percentile *out)
{
    return fs_results_percentiles(r, policy, hist, index, &q, 1, scale, out);
}

/* A target over the whole run: completions plus the requests unfinished past
 * its threshold at the horizon (`late`), which count as later than any
 * threshold.  The target's quantile is the completions' value at the same
 * rank in that population, or INFINITY when the rank falls among the
 * unfinished; NaN and no data when there is nobody. */
void fs_results_judge(const fs_hist *merged, double late, const fs_slo_target *t, double *quantile_ms,
                       fs_slo_verdict *verdict)
{
    double done = (double)merged->total, all = done + late;
    if (all == 0) {
        *verdict = FS_SLO_NO_DATA;
        *quantile_ms = NAN;
        return;
    }
    /* ceil(q n), forgiving the rounding of q n just above an integer (as
     * fs_hist_quantile does). */
    double x = t->quantile * all, rank = ceil(x);
    if (rank >= 2 && x - (rank - 1) <= 4 * DBL_EPSILON * x)
        rank -= 1;
    if (rank < 1)
        rank = 1;
    if (rank > done) {
        *verdict = FS_SLO_MISSED;
        *quantile_ms = INFINITY;
        return;
    }
    *quantile_ms = fs_hist_quantile(merged, rank / done) * FS__NS_TO_MS;
    *verdict = *quantile_ms <= t->threshold_s * 1e3 ? FS_SLO_MET : FS_SLO_MISSED;
}

static void fs__slo_verdict(const fs_policy_result *pol, size_t service, const fs_hist *merged, size_t j,
                            fs_service_summary *out)
{
    double late = 0;
    for (uint32_t k = 0; k < pol->n_reps; k++)
        late += (double)fs_rep_service(&pol->reps[k], service)->unfinished_past_slo[j];
    fs_results_judge(merged, late, &pol->scenario->services[service].slo.targets[j], &out->slo_quantile_ms[j],
                      &out->slo_verdict[j]);
}

/* Whether each latency figure has settled (settle.h): its CI, and the batch
 * diagnostics where the batches are alike by design. */
static void fs__settling(const fs_policy_result *pol, size_t service, fs_service_summary *out)
{
    const fs_service_load *load = &pol->loads[service];
    /* A load that changes over time (diurnal, bursts, a trace, an autoscaler)
     * makes batches differ by design: neither their spread nor their
     * correlation then says anything about run length.  So does a random
     * factor on the rate (an MMPP, noise), though its mean and peak may be
     * flat: a batch that caught a surge state or a loud interval differs
     * from one that did not by the modulation, not by the run's length, and
     * with sojourns or correlation times near a batch's length the batches
     * are correlated for the same reason.  Groups alone leave the rate's law
     * constant: each batch is alike. */
    const fs_service_spec *spec = &pol->scenario->services[service];
    const fs_settle_fold *fold = pol->settle ? &pol->settle[service] : NULL; /* NULL: nothing sealed */
    bool steady = load->peak_rps <= load->mean_rps * (1 + 1e-9) && !fs_arrivals_modulated(&spec->arrivals) &&
                  !spec->autoscale.enabled && fold && fold->complete;
    out->ci_from_batches = steady && pol->n_reps == 1;
    const double point[FS_SETTLE_FIGURES] = {out->merged_mean_ms, out->merged_p50_ms, out->merged_p95_ms,
                                             out->merged_p99_ms, out->merged_p999_ms};
    const fs_summary *spread[FS_SETTLE_FIGURES] = {&out->mean_ms, &out->p50_ms, &out->p95_ms, &out->p99_ms,
                                                   &out->p999_ms};
    for (size_t f = 0; f < FS_SETTLE_FIGURES; f++) {
        fs_settling *st = &out->settling[f];
        *st = (fs_settling){.value = point[f], .ci95 = spread[f]->valid ? spread[f]->half_width : NAN,
                            .diagnosed = steady};
        if (steady) {
            st->diag = fs_settle_diagnose(fold->avg_ms[f], FS_SETTLE_BATCHES);
            st->diag.lag1 = fold->lag1[f];
            st->diag.comparable = fold->comparable[f];
            if (out->ci_from_batches)
                st->ci95 = st->diag.ci.half_width;
        }
        st->why = fs_settle_judge(point[f], st->ci95, steady ? &st->diag : NULL);
        /* The quantiles come in rising order (p50, p95, p99, p99.9). */
        if (f > FS_SETTLE_P50 && out->settling[f - 1].why != 0 && !(st->why & FS_SETTLE_NO_INTERVAL))
            st->why |= FS_SETTLE_BELOW;
    }
}

char *fs_settling_why(const fs_settling *st, char *buf, size_t size)
{
    return fs_settle_why(st->why, st->value, st->ci95, st->diagnosed ? &st->diag : NULL, buf, size);
}

int fs_results_service_summary(const fs_results *r, size_t policy, size_t service,
                               fs_service_summary *out)
{
    const fs_policy_result *pol = &r->policies[policy];
    double measured = fs_results_measured_s(r);
    double *x = malloc(pol->n_reps * sizeof *x);
    if (!x)
        return ENOMEM;
    *out = (fs_service_summary){0};
    out->requests = fs__summarize(pol, service, measured, FS_SFIG_REQUESTS, x);
    out->completed = fs__summarize(pol, service, measured, FS_SFIG_COMPLETED, x);
    out->dropped = fs__summarize(pol, service, measured, FS_SFIG_DROPPED, x);
    out->in_flight_start = fs__summarize(pol, service, measured, FS_SFIG_IN_FLIGHT_START, x);
    out->in_flight_end = fs__summarize(pol, service, measured, FS_SFIG_IN_FLIGHT_END, x);
    out->wait_mean_ms = fs__summarize(pol, service, measured, FS_SFIG_WAIT_MEAN_MS, x);
    out->wait_probability = fs__summarize(pol, service, measured, FS_SFIG_WAIT_PROBABILITY, x);
    out->mean_in_system = fs__summarize(pol, service, measured, FS_SFIG_MEAN_IN_SYSTEM, x);
    out->throughput_rps = fs__summarize(pol, service, measured, FS_SFIG_THROUGHPUT_RPS, x);
    out->slo_breach_windows = fs__summarize(pol, service, measured, FS_SFIG_SLO_BREACH_WINDOWS, x);
    out->slo_breach_windows_per_week = fs__summarize(pol, service, measured, FS_SFIG_SLO_BREACH_WINDOWS_PER_WEEK, x);
    out->queue_growth_per_h = fs__summarize(pol, service, measured, FS_SFIG_QUEUE_GROWTH_PER_H, x);
    out->mean_ready_replicas = fs__summarize(pol, service, measured, FS_SFIG_MEAN_READY_REPLICAS, x);
    out->slo_windows = fs_rep_service(&pol->reps[0], service)->slo_windows;
    const fs_service_spec *spec = &pol->scenario->services[service];
    /* No data (a replay with under two arrivals) is no evidence of overload. */
    out->queue = !(pol->loads[service].offered_load >= 1.0)    ? FS_QUEUE_STABLE
                 : spec->queue_limit == FS_QUEUE_UNLIMITED ? FS_QUEUE_UNBOUNDED
                                                           : FS_QUEUE_AT_LIMIT;
    out->queue_unbounded = out->queue == FS_QUEUE_UNBOUNDED;
    for (uint32_t k = 0; k < pol->n_reps; k++) {
        const fs_service_rep *rep = fs_rep_service(&pol->reps[k], service);
        x[k] = rep->requests ? (double)rep->dropped / (double)rep->requests : NAN;
    }
    out->drop_fraction = fs_results_summary_known(x, 1, pol->n_reps);
    for (size_t j = 0; j < spec->slo.n_targets; j++) {
        for (uint32_t k = 0; k < pol->n_reps; k++)
            x[k] = (double)fs_rep_service(&pol->reps[k], service)->unfinished_past_slo[j];
        out->unfinished_past_slo[j] = fs_summary_of(x, 1, pol->n_reps);
    }

    /* Latency figures: the one percentile definition (fs_results_percentiles). */
    static const double qs[] = {-1, 0.50, 0.95, 0.99, 0.999, 2};
    fs_percentile pc[sizeof qs / sizeof *qs];
    if (fs_results_percentiles(r, policy, fs_results_latency_hist, service, qs, sizeof qs / sizeof *qs,
                               FS__NS_TO_MS, pc) != 0) {
        free(x);
        return ENOMEM;
    }
    out->merged_mean_ms = pc[0].value;
    out->mean_ms = pc[0].spread;
    out->merged_p50_ms = pc[1].value;
    out->p50_ms = pc[1].spread;
    out->merged_p95_ms = pc[2].value;
    out->p95_ms = pc[2].spread;
    out->merged_p99_ms = pc[3].value;
    out->p99_ms = pc[3].spread;
    out->merged_p999_ms = pc[4].value;
    out->p999_ms = pc[4].spread;
    out->merged_max_ms = pc[5].value;
    fs__settling(pol, service, out);
    for (size_t j = 0; j < spec->slo.n_targets; j++)
        fs__slo_verdict(pol, service, fs__merged_at(pol, FS__LATENCY, service), j, out);
    free(x);
    return 0;
}

double fs_results_pool_price(const fs_scenario *s, size_t pool)
{
    const fs_pool_spec *spec = &s->pools[pool];
    const fs_gpu_type *gpu = &s->gpu_types[spec->gpu_type];
    return spec->price == FS_PRICE_SPOT ? gpu->price_spot : gpu->price_on_demand;
}


void fs_results_pool_figures(const fs_results *r, size_t policy, uint32_t replication, size_t pool,
                             double fig[FS_FIG_COUNT])
{
    const fs_scenario *s = r->policies[policy].scenario;
    const fs_rep_result *rep = &r->policies[policy].reps[replication];
    size_t first = pool == SIZE_MAX ? 0 : pool, last = pool == SIZE_MAX ? s->n_pools : pool + 1;
    for (size_t k = 0; k < FS_FIG_COUNT; k++)
        fig[k] = 0;
    for (size_t p = first; p < last; p++) {
        const fs_pool_rep *pr = &rep->pools[p];
        const fs_gpu_type *gpu = &s->gpu_types[s->pools[p].gpu_type];
        fig[FS_FIG_GPU_H] += pr->gpu_s / 3600.0;
        fig[FS_FIG_BUSY_H] += pr->busy_gpu_s / 3600.0;
        fig[FS_FIG_IDLE_H] += pr->idle_gpu_s / 3600.0;
        fig[FS_FIG_SWITCH_H] += pr->switching_gpu_s / 3600.0;
        fig[FS_FIG_COST] += pr->gpu_s / 3600.0 * fs_results_pool_price(s, p);
        /* A switching GPU copies and initialises: counted at busy power. */
        fig[FS_FIG_ENERGY] += (gpu->idle_w * pr->idle_gpu_s +
                          gpu->busy_w * (pr->busy_gpu_s + pr->switching_gpu_s)) / 3.6e6;
    }
    /* Taken as the windows closed (windows.h): a window without GPUs has no
     * headroom, and a pool that never held a GPU has no data. */
    fig[FS_FIG_HEADROOM] = pool == SIZE_MAX ? rep->fleet_least_headroom : rep->pools[pool].least_headroom;
    /* No GPU-hour provisioned: utilization is no data, not 0%. */
    fig[FS_FIG_UTIL] = fig[FS_FIG_GPU_H] > 0 ? fig[FS_FIG_BUSY_H] / fig[FS_FIG_GPU_H] : NAN;
    double completed = 0;
    for (size_t i = 0; i < s->n_services; i++)
        if (pool == SIZE_MAX || s->services[i].pool == pool)
            completed += (double)fs_rep_service(rep, i)->completed;
    /* Nothing completed: a cost per request is no data, not free. */
    fig[FS_FIG_COST_PER_M] = completed > 0 ? fig[FS_FIG_COST] / (completed / 1e6) : NAN;
}

int fs_results_pool_summary(const fs_results *r, size_t policy, size_t pool, fs_pool_summary *out)
{
    const fs_policy_result *pol = &r->policies[policy];
    uint32_t n = pol->n_reps;
    *out = (fs_pool_summary){0};
    double *x = malloc((size_t)FS_FIG_COUNT * n * sizeof *x);
    if (!x)
        return ENOMEM;
    for (uint32_t k = 0; k < n; k++)
        fs_results_pool_figures(r, policy, k, pool, x + (size_t)k * FS_FIG_COUNT);
    fs_summary *dst[FS_FIG_COUNT] = {&out->gpu_hours, &out->busy_gpu_hours, &out->idle_gpu_hours,
                                &out->utilization, &out->cost_usd, &out->energy_kwh,
                                &out->peak_headroom, &out->cost_per_million_requests,
                                &out->switch_gpu_hours};
    for (size_t f = 0; f < FS_FIG_COUNT; f++)
        *dst[f] = fs_results_summary_known(x + f, FS_FIG_COUNT, n);
    free(x);
    return 0;
}

int fs_results_fleet_summary(const fs_results *r, size_t policy, fs_pool_summary *out)
{
    return fs_results_pool_summary(r, policy, SIZE_MAX, out);
}

fs_chargeback fs_results_chargeback(const fs_results *r, size_t policy, size_t service)
{
    const fs_policy_result *pol = &r->policies[policy];
    const fs_scenario *s = pol->scenario;
    const fs_service_spec *svc = &s->services[service];
    double hours = fs_results_measured_s(r) / 3600.0, held = 0, fleet_cost = 0;
    double usd = 0;
    for (uint32_t k = 0; k < fs_service_placed(svc); k++) {
        double share = fs_placement_unit(pol->placement, service, k)->charge_share;
        held += share;
        usd += share * hours * fs_results_pool_price(s, fs_service_replica_pool(svc, k));
    }
    for (size_t p = 0; p < s->n_pools; p++)
        fleet_cost += s->pools[p].gpus * hours * fs_results_pool_price(s, p);
    fs_chargeback c = {.gpu_hours_held = held * hours};
    c.cost_usd = usd;
    c.share = fleet_cost > 0 ? c.cost_usd / fleet_cost : 0;
    return c;
}

int fs_results_training_summary(const fs_results *r, size_t policy, size_t stream,
                                fs_training_summary *out)
{
    const fs_policy_result *pol = &r->policies[policy];
    uint32_t n = pol->n_reps;
    enum { T_SUB, T_START, T_DONE, T_PRE, T_WORK, T_LOST, T_WAITING, T_RUNNING, T_IN_START, T_REFUSED,
           T_CENSORED, T_FAILURES, T_FAILED_JOBS, T_RETRIES, T_CANCELLED, T_HELD, T_STARTUP, T_CHECKPOINT,
           T_H_FAILED, T_H_CANCELLED, T_OPEN, T_RELEASES, T_R_CHECKPOINT, T_R_RELOAD, T_COUNT };
    double *x = malloc((size_t)T_COUNT * n * sizeof *x);
    if (!x)
        return ENOMEM;
    double startup_s = 0, startups = 0;
    for (uint32_t k = 0; k < n; k++) {
        const fs_training_rep *t = &pol->reps[k].training[stream];
        double *row = x + (size_t)k * T_COUNT;
        startup_s += t->startup_s;
        startups += (double)t->startups;
        row[T_SUB] = (double)t->submitted;
        row[T_START] = (double)t->started;
        row[T_DONE] = (double)t->completed;
        row[T_PRE] = (double)t->preemptions;
        row[T_WORK] = t->gpu_hours_done;
        row[T_LOST] = t->gpu_hours_lost;
        row[T_WAITING] = (double)t->waiting_end;
        row[T_RUNNING] = (double)t->running_end;
        row[T_IN_START] = (double)t->in_flight_start;
        row[T_REFUSED] = (double)t->refused_impossible;
        row[T_CENSORED] = (double)t->waits_censored;
        row[T_FAILURES] = (double)t->failures;
        row[T_FAILED_JOBS] = (double)t->failed_jobs;
        row[T_RETRIES] = (double)t->retries;
        row[T_CANCELLED] = (double)t->cancelled;
        row[T_HELD] = t->hours.held;
        row[T_STARTUP] = t->hours.startup;
        row[T_CHECKPOINT] = t->hours.checkpoint;
        row[T_H_FAILED] = t->hours.failed;
        row[T_H_CANCELLED] = t->hours.cancelled;
        row[T_OPEN] = t->hours.open;
        row[T_RELEASES] = (double)t->release.releases;
        row[T_R_CHECKPOINT] = t->release.checkpoint_gpu_hours;
        row[T_R_RELOAD] = t->release.reload_gpu_hours;
    }
    fs_summary *dst[T_COUNT] = {&out->submitted,      &out->started,         &out->completed,
                                &out->preemptions,    &out->gpu_hours_done,  &out->gpu_hours_lost,
                                &out->waiting_end,    &out->running_end,     &out->in_flight_start,
                                &out->refused_impossible, &out->waits_censored, &out->failures,
                                &out->failed_jobs,    &out->retries,         &out->cancelled,
                                &out->hours_held,     &out->hours_startup,   &out->hours_checkpoint,
                                &out->hours_failed,   &out->hours_cancelled, &out->hours_open,
                                &out->releases,       &out->release_checkpoint_hours, &out->release_reload_hours};
    for (size_t f = 0; f < T_COUNT; f++)
        *dst[f] = fs_summary_of(x + f, T_COUNT, n);
    free(x);
    out->startup_mean_s = startups > 0 ? startup_s / startups : NAN;
    static const double qs[] = {0.50, 0.95, 2, -1};
    fs_percentile pc[sizeof qs / sizeof *qs];
    if (fs_results_percentiles(r, policy, fs_results_wait_hist, stream, qs, sizeof qs / sizeof *qs, 1e-9, pc) != 0)
        return ENOMEM;
    out->wait_p50_s = pc[0].value;
    out->wait_p95_s = pc[1].value;
    out->wait_max_s = pc[2].value;
    out->wait_mean_s = pc[3].value;
    out->wait_p50_spread = pc[0].spread;
    out->wait_p95_spread = pc[1].spread;
    return 0;
}

static const struct fs_pipeline_rep *fs__iterations(const fs_training_rep *t, bool rollouts)
{
    return rollouts ? &t->rollouts : &t->pipeline;
}

static int fs__iterations_summary(const fs_results *r, size_t policy, size_t stream, bool rollouts,
                                  fs_pipeline_summary *out);

int fs_results_pipeline_summary(const fs_results *r, size_t policy, size_t stream, fs_pipeline_summary *out)
{
    return fs__iterations_summary(r, policy, stream, false, out);
}

int fs_results_rollout_summary(const fs_results *r, size_t policy, size_t stream, fs_pipeline_summary *out)
{
    return fs__iterations_summary(r, policy, stream, true, out);
}

/* The figures of n cycle times, sorted here in place (v may be NULL when
 * n is 0: all NAN).  The sum runs in the given order, as before sorting. */
static void fs__cycle_figures(double *v, size_t n, fs_cycle_figures *out)
{
    *out = (fs_cycle_figures){NAN, NAN, NAN, NAN};
    if (n == 0)
        return;
    double sum = 0;
    for (size_t j = 0; j < n; j++)
        sum += v[j];
    fs_quantile_sort(v, n);
    *out = (fs_cycle_figures){sum / (double)n, fs_quantile_sorted(v, n, 0.50), fs_quantile_sorted(v, n, 0.95),
                              v[n - 1]};
}

static int fs__iterations_summary(const fs_results *r, size_t policy, size_t stream, bool rollouts,
                                  fs_pipeline_summary *out)
{
    const fs_policy_result *pol = &r->policies[policy];
    uint32_t n = pol->n_reps;
    size_t total = 0;
    double *x = calloc(4 * (size_t)n + 1, sizeof *x); /* + 1: never empty (no replication) */
    if (!x)
        return ENOMEM;
    for (uint32_t k = 0; k < n; k++) {
        const struct fs_pipeline_rep *pl = fs__iterations(&pol->reps[k].training[stream], rollouts);
        double *row = x + 4 * (size_t)k;
        row[0] = (double)pl->started;
        row[1] = (double)pl->completed;
        row[2] = (double)pl->unfinished;
        row[3] = (double)pl->open;
        total += pl->n_cycles;
    }
    *out = (fs_pipeline_summary){.started = fs_summary_of(x, 4, n), .completed = fs_summary_of(x + 1, 4, n),
                                 .unfinished = fs_summary_of(x + 2, 4, n), .open = fs_summary_of(x + 3, 4, n),
                                 .cycles = total};
    free(x);
    double *all = total ? malloc(total * sizeof *all) : NULL;
    if (total && !all)
        return ENOMEM;
    size_t m = 0;
    for (uint32_t k = 0; k < n; k++) {
        const struct fs_pipeline_rep *pl = fs__iterations(&pol->reps[k].training[stream], rollouts);
        for (size_t j = 0; j < pl->n_cycles; j++)
            all[m++] = pl->cycle_s[j];
    }
    fs_cycle_figures fig;
    fs__cycle_figures(all, total, &fig);
    free(all);
    out->cycle_mean_s = fig.mean_s;
    out->cycle_p50_s = fig.p50_s;
    out->cycle_p95_s = fig.p95_s;
    out->cycle_max_s = fig.max_s;
    return 0;
}

int fs_results_cycle_figures(const struct fs_pipeline_rep *pl, fs_cycle_figures *out)
{
    double *copy = pl->n_cycles ? malloc(pl->n_cycles * sizeof *copy) : NULL;
    if (pl->n_cycles && !copy) {
        fs__cycle_figures(NULL, 0, out);
        return ENOMEM;
    }
    if (copy)
        memcpy(copy, pl->cycle_s, pl->n_cycles * sizeof *copy);
    fs__cycle_figures(copy, pl->n_cycles, out);
    free(copy);
    return 0;
}

typedef struct fs__tenant_wait {
    const char *tenant;
    double wait_s;
} fs__tenant_wait;

static int fs__tenant_wait_cmp(const void *a, const void *b)
{
    const fs__tenant_wait *x = a, *y = b;
    int c = strcmp(x->tenant, y->tenant);
    return c ? c : (x->wait_s > y->wait_s) - (x->wait_s < y->wait_s);
}

int fs_results_training_tenants(const fs_results *r, size_t policy, size_t stream, fs_tenant_waits **out,
                                size_t *n)
{
    const fs_policy_result *pol = &r->policies[policy];
    const fs_scenario *s = pol->scenario;
    size_t from = stream == SIZE_MAX ? 0 : stream, to = stream == SIZE_MAX ? s->n_training : stream + 1;
    *out = NULL;
    *n = 0;
    size_t total = 0;
    for (uint32_t k = 0; k < pol->n_reps; k++)
        for (size_t i = from; i < to; i++)
            total += pol->reps[k].training[i].n_waits;
    if (total == 0)
        return 0;
    fs__tenant_wait *all = malloc(total * sizeof *all);
    fs_tenant_waits *groups = malloc(total * sizeof *groups);
    if (!all || !groups) {
        free(all);
        free(groups);
        return ENOMEM;
    }
    size_t m = 0;
    for (uint32_t k = 0; k < pol->n_reps; k++) {
        for (size_t i = from; i < to; i++) {
            const fs_training_rep *t = &pol->reps[k].training[i];
            const char *own = s->training[i].tenant;
            for (size_t j = 0; j < t->n_waits; j++)
                all[m++] = (fs__tenant_wait){
                    t->waits[j].tenant ? fs_intern_text(&t->tenants, t->waits[j].tenant) : own, t->waits[j].wait_s};
        }
    }
    qsort(all, total, sizeof *all, fs__tenant_wait_cmp);
    /* Each team's waits, ascending and contiguous, for quantile.h. */
    double *waits = malloc(total * sizeof *waits);
    if (!waits) {
        free(all);
        free(groups);
        return ENOMEM;
    }
    for (size_t first = 0; first < total;) {
        const char *tenant = all[first].tenant;
        size_t last = first;
        double sum = 0;
        while (last < total && strcmp(all[last].tenant, tenant) == 0) {
            waits[last] = all[last].wait_s;
            sum += waits[last++];
        }
        size_t count = last - first;
        groups[(*n)++] = (fs_tenant_waits){tenant, count, sum / (double)count,
                                           fs_quantile_sorted(waits + first, count, 0.50),
                                           fs_quantile_sorted(waits + first, count, 0.95), waits[last - 1]};
        first = last;
    }
    free(waits);
    free(all);
    *out = groups;
    return 0;
}

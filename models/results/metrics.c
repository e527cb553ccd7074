#include "metrics.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "summary.h"

/* ---- building a run's record ---- */

static int fs__grow(void **p, size_t n, size_t size)
{
    /* Records hold tens to a few hundred figures: grow by doubling at powers of two. */
    if (n & (n - 1))
        return 0;
    void *bigger = realloc(*p, (n ? 2 * n : 4) * size);
    if (!bigger)
        return ENOMEM;
    *p = bigger;
    return 0;
}

static int fs__add(fs_metrics *m, const char *prefix, const char *name, const char *figure, double v)
{
    if (fs__grow((void **)&m->names, m->n_values, sizeof *m->names) ||
        fs__grow((void **)&m->values, m->n_values, sizeof *m->values))
        return ENOMEM;
    size_t len = strlen(prefix) + strlen(name) + strlen(figure) + 3;
    char *full = malloc(len);
    if (!full)
        return ENOMEM;
    snprintf(full, len, "%s%s%s.%s", prefix, *name ? ":" : "", name, figure);
    m->names[m->n_values] = full;
    m->values[m->n_values++] = v;
    return 0;
}

static int fs__add_hist(fs_metrics *m, const char *prefix, const char *name, const char *figure,
                        const fs_hist *h)
{
    if (fs__grow((void **)&m->hist_names, m->n_hists, sizeof *m->hist_names) ||
        fs__grow((void **)&m->hists, m->n_hists, sizeof *m->hists))
        return ENOMEM;
    size_t len = strlen(prefix) + strlen(name) + strlen(figure) + 3;
    char *full = malloc(len);
    if (!full)
        return ENOMEM;
    if (fs_hist_init(&m->hists[m->n_hists]) != 0) {
        free(full);
        return ENOMEM;
    }
    snprintf(full, len, "%s:%s.%s", prefix, name, figure);
    m->hist_names[m->n_hists] = full;
    return fs_hist_merge(&m->hists[m->n_hists++], h);
}

static const char *const fs__service_figure_names[FS_SFIG_COUNT] = {
    [FS_SFIG_REQUESTS] = "requests", [FS_SFIG_COMPLETED] = "completed", [FS_SFIG_DROPPED] = "dropped",
    [FS_SFIG_IN_FLIGHT_START] = "in_flight_start", [FS_SFIG_IN_FLIGHT_END] = "in_flight_end",
    [FS_SFIG_MEAN_MS] = "mean_ms", [FS_SFIG_P50_MS] = "p50_ms", [FS_SFIG_P95_MS] = "p95_ms",
    [FS_SFIG_P99_MS] = "p99_ms", [FS_SFIG_P999_MS] = "p999_ms", [FS_SFIG_WAIT_MEAN_MS] = "wait_mean_ms",
    [FS_SFIG_WAIT_PROBABILITY] = "wait_probability", [FS_SFIG_MEAN_IN_SYSTEM] = "mean_in_system",
    [FS_SFIG_THROUGHPUT_RPS] = "throughput_rps", [FS_SFIG_SLO_BREACH_WINDOWS] = "slo_breach_windows",
    [FS_SFIG_SLO_BREACH_WINDOWS_PER_WEEK] = "slo_breach_windows_per_week",
    [FS_SFIG_QUEUE_GROWTH_PER_H] = "queue_growth_per_h", [FS_SFIG_MEAN_READY_REPLICAS] = "mean_ready_replicas",
};

static const char *const fs__pool_figure_names[FS_FIG_COUNT] = {
    [FS_FIG_GPU_H] = "gpu_hours", [FS_FIG_BUSY_H] = "busy_gpu_hours", [FS_FIG_IDLE_H] = "idle_gpu_hours",
    [FS_FIG_UTIL] = "utilization", [FS_FIG_COST] = "cost_usd", [FS_FIG_ENERGY] = "energy_kwh",
    [FS_FIG_HEADROOM] = "peak_headroom", [FS_FIG_COST_PER_M] = "cost_per_million",
    [FS_FIG_SWITCH_H] = "switch_gpu_hours",
};

/* A pipeline's root stream (no "after" of its own, followed by another):
 * its iterations and cycle times in this replication, so a sweep, a plan
 * or a sensitivity run can name them; nothing for other streams. */
static int fs__add_pipeline(fs_metrics *m, const fs_scenario *s, size_t t, const fs_training_rep *tr)
{
    if (!fs_training_is_root(s, t))
        return 0;
    const struct fs_pipeline_rep *pl = &tr->pipeline;
    const char *name = s->training[t].name;
    fs_cycle_figures fig;
    if (fs_results_cycle_figures(pl, &fig) != 0)
        return ENOMEM;
    return fs__add(m, "training", name, "iterations_started", (double)pl->started) ||
           fs__add(m, "training", name, "iterations_completed", (double)pl->completed) ||
           fs__add(m, "training", name, "cycle_mean_s", fig.mean_s) ||
           fs__add(m, "training", name, "cycle_p50_s", fig.p50_s) ||
           fs__add(m, "training", name, "cycle_p95_s", fig.p95_s) || fs__add(m, "training", name, "cycle_max_s", fig.max_s);
}

/* An LLM service's figures: TTFT/TPOT percentiles (ms, summarized from the
 * merged ttft/tpot histograms like the latency ones) and the token figures
 * (means over runs).  too_long is left out: it is a count of refusals shown
 * by run and results.json, not something a plan constrains. */
static int fs__record_llm(const fs_results *r, size_t policy, uint32_t k, size_t i, fs_metrics *m)
{
    const char *name = r->policies[policy].scenario->services[i].name;
    const fs_hist *ttft = fs_results_ttft_hist(r, policy, k, i), *tpot = fs_results_tpot_hist(r, policy, k, i);
    const fs_service_rep *sr = fs_rep_service(&r->policies[policy].reps[k], i);
    double fig[FS_LFIG_COUNT];
    fs_results_llm_figures(r, policy, k, i, fig);
    if (fs__add(m, "service", name, "ttft_p50", fs_results_rep_figure(sr->ttft_figs, 0.50, 1e-6)) ||
        fs__add(m, "service", name, "ttft_p99", fs_results_rep_figure(sr->ttft_figs, 0.99, 1e-6)) ||
        fs__add(m, "service", name, "tpot_p50", fs_results_rep_figure(sr->tpot_figs, 0.50, 1e-6)) ||
        fs__add(m, "service", name, "tpot_p99", fs_results_rep_figure(sr->tpot_figs, 0.99, 1e-6)) ||
        fs__add_hist(m, "service", name, "ttft", ttft) || fs__add_hist(m, "service", name, "tpot", tpot))
        return ENOMEM;
    for (size_t f = 0; f < FS_LFIG_COUNT; f++)
        if (f != FS_LFIG_TOO_LONG && fs__add(m, "service", name, fs_llm_figure_names[f], fig[f]))
            return ENOMEM;
    return 0;
}

static int fs__record(const fs_results *r, size_t policy, uint32_t k, fs_metrics *m)
{
    const fs_policy_result *pol = &r->policies[policy];
    const fs_scenario *s = pol->scenario;
    const fs_rep_result *rep = &pol->reps[k];
    for (size_t i = 0; i < s->n_services; i++) {
        const char *name = s->services[i].name;
        double fig[FS_SFIG_COUNT];
        fs_results_service_figures(r, policy, k, i, fig);
        for (size_t f = 0; f < FS_SFIG_COUNT; f++)
            if (fs__add(m, "service", name, fs__service_figure_names[f], fig[f]))
                return ENOMEM;
        const fs_service_rep *sr = fs_rep_service(rep, i);
        double arrivals = fig[FS_SFIG_REQUESTS];
        /* Past the tightest threshold: a miss of at least one target. */
        uint64_t late = 0;
        for (size_t j = 0; j < s->services[i].slo.n_targets; j++)
            late = sr->unfinished_past_slo[j] > late ? sr->unfinished_past_slo[j] : late;
        if (fs__add(m, "service", name, "max_ms", fs_results_rep_figure(sr->latency_figs, 2, 1e-6)) ||
            fs__add(m, "service", name, "drop_rate", arrivals > 0 ? fig[FS_SFIG_DROPPED] / arrivals : NAN) ||
            fs__add(m, "service", name, "unfinished_past_slo", (double)late) ||
            fs__add_hist(m, "service", name, "latency", fs_results_latency_hist(r, policy, k, i)))
            return ENOMEM;
        /* Batch figures only for a batched service: for another there is no
         * batch, and a size of 0 would claim one. */
        if (s->services[i].batching.kind != FS_BATCHING_NONE) {
            fs_batch_figures b = fs_results_batch_rep_figures(r, policy, k, i);
            if (fs__add(m, "service", name, "batches", isnan(b.batches_per_rep) ? 0 : b.batches_per_rep) ||
                fs__add(m, "service", name, "batch_mean", b.mean) || fs__add(m, "service", name, "batch_p95", b.p95))
                return ENOMEM;
        }
        if (sr->llm && fs__record_llm(r, policy, k, i, m))
            return ENOMEM;
    }
    for (size_t p = 0; p <= s->n_pools; p++) {
        bool fleet = p == s->n_pools;
        double fig[FS_FIG_COUNT];
        fs_results_pool_figures(r, policy, k, fleet ? SIZE_MAX : p, fig);
        for (size_t f = 0; f < FS_FIG_COUNT; f++)
            if ((fleet || f != FS_FIG_COST_PER_M) &&
                fs__add(m, fleet ? "fleet" : "pool", fleet ? "" : s->pools[p].name, fs__pool_figure_names[f],
                        fig[f]))
                return ENOMEM;
    }
    /* Fleet-wide service totals: one constraint for every service at once. */
    double breaches = 0, dropped = 0;
    for (size_t i = 0; i < s->n_services; i++) {
        const fs_service_rep *sr = fs_rep_service(rep, i);
        breaches += (double)sr->slo_breach_windows;
        dropped += (double)sr->dropped;
    }
    if (fs__add(m, "fleet", "", "spot_reclaims", (double)rep->spot_reclaims) ||
        fs__add(m, "fleet", "", "slo_breach_windows", breaches) || fs__add(m, "fleet", "", "dropped", dropped))
        return ENOMEM;
    for (size_t t = 0; t < s->n_training; t++) {
        const char *name = s->training[t].name;
        const fs_training_rep *tr = &rep->training[t];
        const fs_hist *w = fs_results_wait_hist(r, policy, k, t);
        const double *wf = tr->wait_figs;
        if (fs__add(m, "training", name, "submitted", (double)tr->submitted) ||
            fs__add(m, "training", name, "started", (double)tr->started) ||
            fs__add(m, "training", name, "completed", (double)tr->completed) ||
            fs__add(m, "training", name, "preemptions", (double)tr->preemptions) ||
            fs__add(m, "training", name, "gpu_hours_done", tr->gpu_hours_done) ||
            fs__add(m, "training", name, "gpu_hours_lost", tr->gpu_hours_lost) ||
            fs__add(m, "training", name, "gpu_hours_failed", tr->hours.failed) ||
            fs__add(m, "training", name, "gpu_hours_cancelled", tr->hours.cancelled) ||
            fs__add(m, "training", name, "failed_jobs", (double)tr->failed_jobs) ||
            fs__add(m, "training", name, "cancelled", (double)tr->cancelled) ||
            fs__add(m, "training", name, "waiting_end", (double)tr->waiting_end) ||
            fs__add(m, "training", name, "running_end", (double)tr->running_end) ||
            fs__add(m, "training", name, "waits_censored", (double)tr->waits_censored) ||
            fs__add(m, "training", name, "refused_impossible", (double)tr->refused_impossible) ||
            fs__add(m, "training", name, "queue_mean_s", fs_results_rep_figure(wf, -1, 1e-9)) ||
            fs__add(m, "training", name, "queue_p50_s", fs_results_rep_figure(wf, 0.50, 1e-9)) ||
            fs__add(m, "training", name, "queue_p95_s", fs_results_rep_figure(wf, 0.95, 1e-9)) ||
            fs__add(m, "training", name, "queue_max_s", fs_results_rep_figure(wf, 2, 1e-9)) ||
            fs__add(m, "training", name, "startup_mean_s",
                    tr->startups ? tr->startup_s / (double)tr->startups : NAN) ||
            fs__add_hist(m, "training", name, "wait", w) || fs__add_pipeline(m, s, t, tr))
            return ENOMEM;
    }
    m->events = rep->events;
    return 0;
}

int fs_metrics_from_run(const fs_results *r, size_t policy, uint32_t rep, fs_metrics *out, fs_error *err)
{
    *out = (fs_metrics){0};
    const fs_policy_result *pol = &r->policies[policy];
    /* A run record carries its histograms; beyond the memory a run keeps
     * them for, only a replication run alone still has them. */
    if (pol->reps[rep].counts_dropped && pol->n_reps > 1)
        return fs_error_set(err, FS_ERR_RUNTIME,
                            "replication %u's histograms were merged as it ended to bound memory; record it "
                            "from a run of that replication alone",
                            rep);
    if (fs__record(r, policy, rep, out) != 0) {
        fs_metrics_fini(out);
        return fs_error_set(err, FS_ERR_RUNTIME, "out of memory recording a run");
    }
    if (fs_results_spill_error(r)) {
        fs_metrics_fini(out);
        return fs_error_set(err, FS_ERR_RUNTIME, "cannot read back the replication's records from the scratch file: %s",
                            strerror(fs_results_spill_error(r)));
    }
    return FS_OK;
}

int fs_metrics_refused(const char *why, fs_metrics *out, fs_error *err)
{
    *out = (fs_metrics){0};
    out->refused = strdup(why);
    return out->refused ? FS_OK : fs_error_set(err, FS_ERR_RUNTIME, "out of memory recording a run");
}

void fs_metrics_fini(fs_metrics *m)
{
    for (size_t i = 0; i < m->n_values; i++)
        free(m->names[i]);
    for (size_t i = 0; i < m->n_hists; i++) {
        free(m->hist_names[i]);
        fs_hist_fini(&m->hists[i]);
    }
    free(m->names);
    free(m->values);
    free(m->hist_names);
    free(m->hists);
    free(m->refused);
    *m = (fs_metrics){0};
}

/* ---- JSON form ---- */

static json_t *fs__hist_json(const fs_hist *h)
{
    json_t *o = json_object(), *buckets = json_array();
    if (!o || !buckets)
        goto fail;
    for (uint32_t i = h->lo; h->total && i <= h->hi; i++)
        if (fs_hist_count(h, i) && json_array_append_new(buckets, json_pack("[I,I]", (json_int_t)i,
                                                                           (json_int_t)fs_hist_count(h, i))) != 0)
            goto fail;
    /* Counts and extremes are integers; the sum is a double written with 17
     * significant digits, which reads back to the same double. */
    if (json_object_set_new(o, "total", json_integer((json_int_t)h->total)) ||
        json_object_set_new(o, "min_ns", json_integer(h->total ? (json_int_t)h->min_ns : 0)) ||
        json_object_set_new(o, "max_ns", json_integer((json_int_t)h->max_ns)) ||
        json_object_set_new(o, "sum_ns", json_real(h->sum_ns)) || json_object_set_new(o, "buckets", buckets))
        goto fail_o;
    return o;
fail:
    json_decref(buckets);
fail_o:
    json_decref(o);
    return NULL;
}

json_t *fs_metrics_to_json(const fs_metrics *m)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    if (m->refused) {
        if (json_object_set_new(o, "refused", json_string(m->refused)))
            goto fail;
        return o;
    }
    json_t *values = json_object(), *hists = json_object();
    if (json_object_set_new(o, "events", json_integer((json_int_t)m->events)) ||
        json_object_set_new(o, "values", values) || json_object_set_new(o, "histograms", hists))
        goto fail;
    /* No data (NaN) has no JSON number: it is written as null and read back as NaN. */
    for (size_t i = 0; i < m->n_values; i++)
        if (json_object_set_new(values, m->names[i], isnan(m->values[i]) ? json_null() : json_real(m->values[i])))
            goto fail;
    for (size_t i = 0; i < m->n_hists; i++) {
        json_t *h = fs__hist_json(&m->hists[i]);
        if (!h || json_object_set_new(hists, m->hist_names[i], h))
            goto fail;
    }
    return o;
fail:
    json_decref(o);
    return NULL;
}

/* The most values one run's histogram may hold when read back.  Summaries
 * add the histograms of every run of a point (at most FS_SWEEP_MAX_RUNS, a
 * million, below 2^20), so 2^44 per run keeps every merged counter below
 * 2^64; it is 20 days of recording at ten million values a second, beyond
 * any run the simulator finishes. */
#define FS__MAX_RECORDED (UINT64_C(1) << 44)

/* Reads a histogram written by fs__hist_json into h (counters zeroed).  NULL,
 * or what is wrong with it: a run file is input, and a hand-edited or
 * corrupted one must not make counters wrap when runs are merged. */
static const char *fs__hist_from_json(const json_t *o, fs_hist *h)
{
    json_int_t total, min_ns, max_ns;
    double sum_ns;
    json_t *buckets;
    if (json_unpack((json_t *)o, "{s:I,s:I,s:I,s:F,s:o}", "total", &total, "min_ns", &min_ns, "max_ns",
                    &max_ns, "sum_ns", &sum_ns, "buckets", &buckets) != 0 ||
        !json_is_array(buckets) || total < 0)
        return "expected {total, min_ns, max_ns, sum_ns, buckets: [[index, count], ...]}";
    if ((uint64_t)total > FS__MAX_RECORDED)
        return "total is beyond the 2^44 values a run can record";
    if (!isfinite(sum_ns) || sum_ns < 0 || (total > 0 && (min_ns < 0 || min_ns > max_ns)))
        return "expected a finite, non-negative sum_ns and 0 <= min_ns <= max_ns";
    uint64_t counted = 0;
    size_t k;
    json_t *b;
    json_array_foreach(buckets, k, b) {
        json_int_t i, c;
        if (json_unpack(b, "[I,I]", &i, &c) != 0 || i < 0 || i >= FS_HIST_BUCKETS || c <= 0)
            return "expected buckets [[index, count], ...] with indexes in range and positive counts";
        /* Both at most 2^44 here, so the sum cannot wrap. */
        if ((uint64_t)c > (uint64_t)total - counted)
            return "the bucket counts add up to more than total";
        if (fs_hist_add_count(h, (uint32_t)i, (uint64_t)c) != 0)
            return "out of memory for its counters";
        counted += (uint64_t)c;
    }
    if (counted != (uint64_t)total)
        return "the bucket counts add up to less than total";
    h->total = (uint64_t)total;
    if (total) {
        h->min_ns = (uint64_t)min_ns;
        h->max_ns = (uint64_t)max_ns;
    }
    h->sum_ns = sum_ns;
    return NULL;
}

int fs_metrics_from_json(const json_t *obj, const char *origin, fs_metrics *out, fs_error *err)
{
    *out = (fs_metrics){0};
    const json_t *refused = json_object_get(obj, "refused");
    if (json_is_string(refused))
        return fs_metrics_refused(json_string_value(refused), out, err);
    const json_t *values = json_object_get(obj, "values"), *hists = json_object_get(obj, "histograms");
    const json_t *events = json_object_get(obj, "events");
    /* events is summed over a point's runs: a negative one would wrap. */
    if (!json_is_object(values) || !json_is_object(hists) || !json_is_integer(events) ||
        json_integer_value(events) < 0 || (uint64_t)json_integer_value(events) > FS__MAX_RECORDED)
        return fs_error_set(err, FS_ERR_INPUT, "%s: expected a run record with \"values\", \"histograms\" and \"events\" (0 to 2^44)",
                            origin);
    out->events = (uint64_t)json_integer_value(events);
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)values, key, v) {
        if (!json_is_number(v) && !json_is_null(v)) {
            fs_metrics_fini(out);
            return fs_error_set(err, FS_ERR_INPUT, "%s: values.%s: expected a number or null (no data)", origin,
                                key);
        }
        if (fs__grow((void **)&out->names, out->n_values, sizeof *out->names) ||
            fs__grow((void **)&out->values, out->n_values, sizeof *out->values) ||
            !(out->names[out->n_values] = strdup(key))) {
            fs_metrics_fini(out);
            return fs_error_set(err, FS_ERR_RUNTIME, "out of memory reading %s", origin);
        }
        out->values[out->n_values++] = json_is_null(v) ? NAN : json_number_value(v);
    }
    json_object_foreach((json_t *)hists, key, v) {
        if (fs__grow((void **)&out->hist_names, out->n_hists, sizeof *out->hist_names) ||
            fs__grow((void **)&out->hists, out->n_hists, sizeof *out->hists) ||
            fs_hist_init(&out->hists[out->n_hists]) != 0) {
            fs_metrics_fini(out);
            return fs_error_set(err, FS_ERR_RUNTIME, "out of memory reading %s", origin);
        }
        if (!(out->hist_names[out->n_hists] = strdup(key))) {
            fs_hist_fini(&out->hists[out->n_hists]);
            fs_metrics_fini(out);
            return fs_error_set(err, FS_ERR_RUNTIME, "out of memory reading %s", origin);
        }
        out->n_hists++;
        const char *wrong = fs__hist_from_json(v, &out->hists[out->n_hists - 1]);
        if (wrong) {
            fs_error_set(err, FS_ERR_INPUT, "%s: histograms.%s: %s", origin, key, wrong);
            fs_metrics_fini(out);
            return FS_ERR_INPUT;
        }
    }
    return FS_OK;
}

/* ---- summary across replications ---- */

/* Figures whose summary value is read from the merged histogram (exact
 * whatever the split of replications); their CI still comes from the spread
 * of the per-replication values. */
typedef struct fs__merged_figure {
    const char *suffix;      /* of the value's name */
    const char *hist_suffix; /* of the histogram's name, same prefix */
    double quantile;         /* < 0: the mean; > 1: the maximum */
    double scale;            /* ns to the figure's unit */
} fs__merged_figure;

static const fs__merged_figure fs__merged[] = {
    {".p50_ms", ".latency", 0.50, 1e-6},   {".p95_ms", ".latency", 0.95, 1e-6},
    {".p99_ms", ".latency", 0.99, 1e-6},   {".p999_ms", ".latency", 0.999, 1e-6},
    {".mean_ms", ".latency", -1, 1e-6},    {".max_ms", ".latency", 2, 1e-6},
    {".ttft_p50", ".ttft", 0.50, 1e-6},    {".ttft_p99", ".ttft", 0.99, 1e-6},
    {".tpot_p50", ".tpot", 0.50, 1e-6},    {".tpot_p99", ".tpot", 0.99, 1e-6},
    {".queue_p50_s", ".wait", 0.50, 1e-9}, {".queue_p95_s", ".wait", 0.95, 1e-9},
    {".queue_mean_s", ".wait", -1, 1e-9},  {".queue_max_s", ".wait", 2, 1e-9},
};

static size_t fs__find(char *const *names, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(names[i], name) == 0)
            return i;
    return SIZE_MAX;
}

/* The merged histogram's figure for a value name, if it is one: 1 and *v,
 * or 0.  merged[h] is the merge of every run's histogram named names[h]. */
static int fs__merged_value(char *const *names, const fs_hist *merged, size_t n_hists, const char *name, double *v)
{
    size_t len = strlen(name);
    for (size_t f = 0; f < sizeof fs__merged / sizeof fs__merged[0]; f++) {
        size_t sl = strlen(fs__merged[f].suffix);
        if (len <= sl || strcmp(name + len - sl, fs__merged[f].suffix) != 0)
            continue;
        char hist_name[512];
        snprintf(hist_name, sizeof hist_name, "%.*s%s", (int)(len - sl), name, fs__merged[f].hist_suffix);
        size_t h = fs__find(names, n_hists, hist_name);
        if (h == SIZE_MAX)
            return 0;
        *v = fs_results_hist_figure(&merged[h], fs__merged[f].quantile, fs__merged[f].scale);
        return 1;
    }
    return 0;
}

/* A batch_mean's summary: the replications' means weighted by their batch
 * counts, which is the mean size of every batch of every replication (the
 * value results.json and compare show), not a mean of means.  1 and *v, or 0
 * for any other name. */
static int fs__batch_mean_value(const fs_metrics *runs, size_t first, size_t n, const char *name, double *v)
{
    static const char suffix[] = ".batch_mean";
    size_t len = strlen(name), sl = sizeof suffix - 1;
    if (len <= sl || strcmp(name + len - sl, suffix) != 0)
        return 0;
    char weight_name[512];
    snprintf(weight_name, sizeof weight_name, "%.*s.batches", (int)(len - sl), name);
    double sum = 0, batches = 0;
    for (size_t j = first; j < n; j++) {
        if (runs[j].refused)
            continue;
        size_t at = fs__find(runs[j].names, runs[j].n_values, name);
        size_t w = fs__find(runs[j].names, runs[j].n_values, weight_name);
        if (at != SIZE_MAX && w != SIZE_MAX && runs[j].values[w] > 0 && !isnan(runs[j].values[at])) {
            sum += runs[j].values[w] * runs[j].values[at];
            batches += runs[j].values[w];
        }
    }
    *v = batches > 0 ? sum / batches : NAN;
    return 1;
}

/* Index of `name` in names[0..n-1], trying position `hint` first: runs of
 * one point list their figures in the same order, so the search is rarely
 * needed. */
static size_t fs__find_hinted(char *const *names, size_t n, size_t hint, const char *name)
{
    if (hint < n && strcmp(names[hint], name) == 0)
        return hint;
    return fs__find(names, n, name);
}

static int fs__row_grow(fs_metric_row *row, size_t *cap)
{
    if (row->n < *cap)
        return 0;
    *cap = *cap ? 2 * *cap : 64;
    char **names = realloc(row->names, *cap * sizeof *names);
    if (names)
        row->names = names;
    double *value = realloc(row->value, *cap * sizeof *value);
    if (value)
        row->value = value;
    double *ci = realloc(row->ci95, *cap * sizeof *ci);
    if (ci)
        row->ci95 = ci;
    return names && value && ci ? 0 : ENOMEM;
}

static void fs__free_merged(fs_hist *merged, size_t n)
{
    for (size_t h = 0; h < n; h++)
        fs_hist_fini(&merged[h]);
    free(merged);
}

int fs_metric_row_summarize(const fs_metrics *runs, size_t n, fs_metric_row *out, fs_error *err)
{
    *out = (fs_metric_row){.replications = (uint32_t)n};
    size_t cap = 0, n_merged = 0;
    fs_hist *merged = NULL;
    double *x = malloc((n ? n : 1) * sizeof *x);
    if (!x)
        goto oom;
    size_t first = SIZE_MAX;
    for (size_t k = 0; k < n; k++) {
        out->events += runs[k].events;
        if (!runs[k].refused && first == SIZE_MAX)
            first = k;
    }
    /* A row is refused only when no replication ran: a point either places
     * or not, the same in every replication. */
    if (first == SIZE_MAX) {
        free(x);
        if (n && !(out->refused = strdup(runs[0].refused)))
            goto oom;
        return FS_OK;
    }
    /* Each histogram merged once, in run order (the first run's names: the
     * runs of one point record the same histograms). */
    size_t n_hists = runs[first].n_hists;
    merged = calloc(n_hists ? n_hists : 1, sizeof *merged);
    if (!merged)
        goto oom;
    for (size_t h = 0; h < n_hists; h++) {
        if (fs_hist_init(&merged[h]) != 0)
            goto oom;
        n_merged++;
        for (size_t j = first; j < n; j++) {
            size_t at = runs[j].refused ? SIZE_MAX
                                        : fs__find_hinted(runs[j].hist_names, runs[j].n_hists, h,
                                                          runs[first].hist_names[h]);
            if (at != SIZE_MAX && fs_hist_merge(&merged[h], &runs[j].hists[at]) != 0)
                goto oom;
        }
    }
    for (size_t k = first; k < n; k++) {
        /* Every name of the first run, then any name only a later one has. */
        for (size_t i = 0; i < runs[k].n_values; i++) {
            const char *name = runs[k].names[i];
            if (k > first && fs__find_hinted(runs[first].names, runs[first].n_values, i, name) != SIZE_MAX)
                continue;
            if (k > first && fs__find(out->names, out->n, name) != SIZE_MAX)
                continue;
            if (fs__row_grow(out, &cap) || !(out->names[out->n] = strdup(name)))
                goto oom;
            size_t have = 0;
            for (size_t j = first; j < n; j++) {
                size_t at = runs[j].refused ? SIZE_MAX : fs__find_hinted(runs[j].names, runs[j].n_values, i, name);
                if (at != SIZE_MAX)
                    x[have++] = runs[j].values[at];
            }
            fs_summary sum = fs_results_summary_known(x, 1, have);
            double merged_v;
            out->value[out->n] = fs__merged_value(runs[first].hist_names, merged, n_hists, name, &merged_v) ||
                                         fs__batch_mean_value(runs, first, n, name, &merged_v)
                                     ? merged_v
                                     : sum.mean;
            out->ci95[out->n] = sum.valid ? sum.half_width : NAN;
            out->n++;
        }
    }
    fs__free_merged(merged, n_merged);
    free(x);
    return FS_OK;
oom:
    fs__free_merged(merged, n_merged);
    free(x);
    fs_metric_row_fini(out);
    return fs_error_set(err, FS_ERR_RUNTIME, "out of memory summarizing runs");
}

void fs_metric_row_fini(fs_metric_row *row)
{
    for (size_t i = 0; i < row->n; i++)
        free(row->names[i]);
    free(row->names);
    free(row->value);
    free(row->ci95);
    free(row->refused);
    *row = (fs_metric_row){0};
}

size_t fs_metric_row_find(const fs_metric_row *row, const char *name)
{
    return fs__find(row->names, row->n, name);
}

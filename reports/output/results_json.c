#include "results_json.h"

#include <stdlib.h>
#include <string.h>

#include <math.h>
#include <stdint.h>

/* Counts are integers when they are (one replication); means are reals.
 * Non-finite numbers have no JSON form: they become null. */
static json_t *fs__number(double x)
{
    if (!isfinite(x))
        return json_null();
    if (x == floor(x) && fabs(x) < 9007199254740992.0)
        return json_integer((json_int_t)x);
    return json_real(x);
}

static void fs__set(json_t *obj, const char *key, double x)
{
    json_object_set_new(obj, key, fs__number(x));
}

/* key: the mean; key_ci95: the half-width, only when an interval exists. */
static void fs__set_summary(json_t *obj, const char *key, const fs_summary *s)
{
    fs__set(obj, key, s->mean);
    if (s->valid) {
        char ci_key[64];
        snprintf(ci_key, sizeof ci_key, "%s_ci95", key);
        fs__set(obj, ci_key, s->half_width);
    }
}

static json_t *fs__latency_json(const fs_service_summary *sum)
{
    json_t *lat = json_object();
    fs__set(lat, "mean", sum->merged_mean_ms);
    fs__set(lat, "p50", sum->merged_p50_ms);
    fs__set(lat, "p95", sum->merged_p95_ms);
    fs__set(lat, "p99", sum->merged_p99_ms);
    fs__set(lat, "p999", sum->merged_p999_ms);
    fs__set(lat, "max", sum->merged_max_ms);
    const fs_summary *spread[] = {&sum->mean_ms, &sum->p50_ms, &sum->p95_ms, &sum->p99_ms, &sum->p999_ms};
    const char *keys[] = {"mean_ci95", "p50_ci95", "p95_ci95", "p99_ci95", "p999_ci95"};
    for (size_t i = 0; i < 5; i++)
        if (spread[i]->valid)
            fs__set(lat, keys[i], spread[i]->half_width);
    return lat;
}

/* Has each latency figure settled (settle.h)?  Machine-readable reasons
 * beside the sentence, so a report can give the matching advice. */
static json_t *fs__settling_json(const fs_service_summary *sum)
{
    static const struct {
        unsigned bit;
        const char *name;
    } reasons[] = {{FS_SETTLE_NO_INTERVAL, "no_interval"}, {FS_SETTLE_WIDE, "wide"},
                   {FS_SETTLE_CORRELATED, "correlated"},   {FS_SETTLE_TRANSIENT, "transient"},
                   {FS_SETTLE_UNEVEN, "uneven"},           {FS_SETTLE_BELOW, "lower_quantile_unsettled"}};
    json_t *o = json_object();
    bool any_ci = false;
    for (size_t f = 0; f < FS_SETTLE_FIGURES; f++)
        any_ci = any_ci || !isnan(sum->settling[f].ci95);
    json_object_set_new(o, "ci95_from",
                        sum->ci_from_batches ? json_string("batches")
                        : any_ci            ? json_string("replications")
                                            : json_null());
    fs__set(o, "batches", FS_SETTLE_BATCHES);
    for (size_t f = 0; f < FS_SETTLE_FIGURES; f++) {
        const fs_settling *st = &sum->settling[f];
        json_t *fig = json_object();
        /* no data is neither settled nor not: null, as the figure itself */
        json_object_set_new(fig, "settled", isnan(st->value) ? json_null() : json_boolean(st->why == 0));
        fs__set(fig, "ci95", st->ci95);
        fs__set(fig, "relative_ci95", st->value != 0 ? st->ci95 / fabs(st->value) : NAN);
        if (st->diagnosed) {
            fs__set(fig, "lag1_autocorrelation", st->diag.lag1);
            fs__set(fig, "mser_truncation_batches", (double)st->diag.mser_cut);
            fs__set(fig, "batch_mean", st->diag.ci.mean);
        }
        if (st->why) {
            char why[512];
            json_object_set_new(fig, "why", json_string(fs_settling_why(st, why, sizeof why)));
            json_t *list = json_array();
            for (size_t k = 0; k < sizeof reasons / sizeof *reasons; k++)
                if (st->why & reasons[k].bit)
                    json_array_append_new(list, json_string(reasons[k].name));
            json_object_set_new(fig, "reasons", list);
        }
        json_object_set_new(o, fs_settle_names[f], fig);
    }
    return o;
}

/* The key of SLO target t: "p99_ms", "p999_ms". */
static void fs__slo_key(const fs_slo_target *t, char *key, size_t size)
{
    if (t->quantile == 0.999)
        snprintf(key, size, "p999_ms");
    else
        snprintf(key, size, "p%.0f_ms", t->quantile * 100);
}

static const char *fs__verdict_name(fs_slo_verdict v)
{
    return v == FS_SLO_MET ? "met" : v == FS_SLO_MISSED ? "missed" : "no data";
}

/* targets, and per target: requests unfinished past it at the horizon, the
 * target's quantile counting them as misses, and the verdict; "meets" is
 * true only when every target is met, null when any has no data and none
 * is missed. */
static json_t *fs__slo_json(const fs_service_spec *spec, const fs_service_summary *sum)
{
    json_t *slo = json_object();
    json_t *targets = json_object(), *late = json_object(), *quantile = json_object(), *verdict = json_object();
    bool missed = false, no_data = false;
    for (size_t j = 0; j < spec->slo.n_targets; j++) {
        const fs_slo_target *t = &spec->slo.targets[j];
        char key[16];
        fs__slo_key(t, key, sizeof key);
        fs__set(targets, key, t->threshold_s * 1e3);
        fs__set_summary(late, key, &sum->unfinished_past_slo[j]);
        /* INFINITY: the unfinished requests alone put the quantile past any threshold. */
        json_object_set_new(quantile, key, isinf(sum->slo_quantile_ms[j]) ? json_string("unfinished")
                                                                            : fs__number(sum->slo_quantile_ms[j]));
        json_object_set_new(verdict, key, json_string(fs__verdict_name(sum->slo_verdict[j])));
        missed |= sum->slo_verdict[j] == FS_SLO_MISSED;
        no_data |= sum->slo_verdict[j] == FS_SLO_NO_DATA;
    }
    json_object_set_new(slo, "targets", targets);
    json_object_set_new(slo, "unfinished_past_slo", late);
    json_object_set_new(slo, "quantile_with_unfinished_ms", quantile);
    json_object_set_new(slo, "verdict", verdict);
    json_object_set_new(slo, "meets", missed ? json_false() : no_data ? json_null() : json_true());
    fs__set(slo, "window_s", spec->slo.window_s);
    fs__set(slo, "windows", sum->slo_windows);
    fs__set_summary(slo, "breach_windows_per_week", &sum->slo_breach_windows_per_week);
    return slo;
}

/* p50/p99 of a merged histogram with their per-replication CI, in ms. */
static json_t *fs__pair_json(const fs_percentile pq[2])
{
    json_t *o = json_object();
    fs__set(o, "p50", pq[0].value);
    fs__set(o, "p99", pq[1].value);
    if (pq[0].spread.valid)
        fs__set(o, "p50_ci95", pq[0].spread.half_width);
    if (pq[1].spread.valid)
        fs__set(o, "p99_ci95", pq[1].spread.half_width);
    return o;
}

/* An LLM service's "llm" block: TTFT/TPOT percentiles (ms) with CI, each
 * target with its quantile and verdict, and the token figures (null: no
 * data).  NULL when out of memory. */
static json_t *fs__llm_json(const fs_results *r, size_t policy, size_t i)
{
    const fs_slo *slo = &r->policies[policy].scenario->services[i].slo;
    fs_llm_summary l;
    if (fs_results_llm_summary(r, policy, i, &l) != 0)
        return NULL;
    json_t *o = json_object();
    json_object_set_new(o, "ttft_ms", fs__pair_json(l.ttft));
    json_object_set_new(o, "tpot_ms", fs__pair_json(l.tpot));
    const fs_slo_target *t[2] = {&slo->ttft, &slo->tpot};
    const fs_llm_slo *judged[2] = {&l.ttft_slo, &l.tpot_slo};
    const char *keys[2] = {"ttft_slo", "tpot_slo"};
    for (size_t j = 0; j < 2; j++) {
        if (t[j]->threshold_s <= 0)
            continue;
        json_t *target = json_object();
        char key[16];
        fs__slo_key(t[j], key, sizeof key);
        fs__set(target, key, t[j]->threshold_s * 1e3);
        json_object_set_new(target, "quantile_with_unfinished_ms",
                            isinf(judged[j]->quantile_ms) ? json_string("unfinished")
                                                          : fs__number(judged[j]->quantile_ms));
        json_object_set_new(target, "verdict", json_string(fs__verdict_name(judged[j]->verdict)));
        json_object_set_new(o, keys[j], target);
    }
    for (size_t f = 0; f < FS_LFIG_COUNT; f++)
        fs__set_summary(o, fs_llm_figure_names[f], &l.fig[f]);
    /* Engine steps by running sequences, every replication's together: the
     * batch-size distribution (the report charts it); sizes with no step
     * left out. */
    const fs_policy_result *pol = &r->policies[policy];
    json_t *steps = json_array();
    for (uint32_t size = 1; size <= pol->scenario->services[i].batching.max_batch_size; size++) {
        double n = 0;
        for (uint32_t k = 0; k < pol->n_reps; k++) {
            const uint64_t *counts = fs_rep_service(&pol->reps[k], i)->batch_size_counts;
            n += counts ? (double)counts[size] : 0;
        }
        if (n > 0)
            json_array_append_new(steps, json_pack("[i,o]", (int)size, fs__number(n)));
    }
    json_object_set_new(o, "steps_by_batch_size", steps);
    return o;
}

static json_t *fs__service_rep_json(const fs_service_spec *spec, const fs_service_rep *rep, double measured_s)
{
    json_t *o = json_object();
    fs__set(o, "requests", (double)rep->requests);
    fs__set(o, "completed", (double)rep->completed);
    fs__set(o, "dropped", (double)rep->dropped);
    fs__set(o, "in_flight_start", (double)rep->in_flight_start);
    fs__set(o, "in_flight_end", (double)rep->in_flight_end);
    fs__set(o, "throughput_rps", measured_s > 0 ? (double)rep->completed / measured_s : 0);
    json_t *lat = json_object();
    fs__set(lat, "mean", fs_results_rep_figure(rep->latency_figs, -1, 1e-6));
    fs__set(lat, "p50", fs_results_rep_figure(rep->latency_figs, 0.50, 1e-6));
    fs__set(lat, "p95", fs_results_rep_figure(rep->latency_figs, 0.95, 1e-6));
    fs__set(lat, "p99", fs_results_rep_figure(rep->latency_figs, 0.99, 1e-6));
    fs__set(lat, "p999", fs_results_rep_figure(rep->latency_figs, 0.999, 1e-6));
    json_object_set_new(o, "latency_ms", lat);
    fs__set(o, "slo_breach_windows", rep->slo_breach_windows);
    if (spec->slo.n_targets) {
        json_t *late = json_object();
        for (size_t j = 0; j < spec->slo.n_targets; j++) {
            char key[16];
            fs__slo_key(&spec->slo.targets[j], key, sizeof key);
            fs__set(late, key, (double)rep->unfinished_past_slo[j]);
        }
        json_object_set_new(o, "unfinished_past_slo", late);
    }
    fs__set(o, "mean_in_system", rep->mean_in_system);
    fs__set(o, "peak_queue", (double)rep->peak_queue);
    if (rep->traced) {
        /* The whole replay from t = 0, warm-up included: every row replayed
         * is completed, dropped or still in flight at the horizon. */
        json_t *replay = json_object();
        fs__set(replay, "rows", (double)rep->trace_rows);
        fs__set(replay, "completed", (double)rep->trace_completed);
        fs__set(replay, "dropped", (double)rep->trace_dropped);
        fs__set(replay, "in_flight_end", (double)rep->in_flight_end);
        fs__set(replay, "skipped_bad_rows", (double)rep->trace_skipped);
        if (spec->arrivals.trace->n_where) /* a key only where filters were given */
            fs__set(replay, "filtered_rows", (double)rep->trace_filtered);
        json_object_set_new(o, "replay", replay);
    }
    return o;
}

/* With "spill" anywhere: a service's "spill" {to, added_latency_ms,
 * when_queue, requests} when it spills, and "spilled_in" when another
 * spills to it.  False when out of memory. */
static bool fs__spill_json(const fs_results *r, size_t policy, size_t i, json_t *o)
{
    const fs_scenario *s = r->policies[policy].scenario;
    const fs_service_spec *spec = &s->services[i];
    fs_summary out, in;
    if (fs_results_spill_summary(r, policy, i, &out, &in) != 0)
        return false;
    if (spec->spills) {
        json_t *spill = json_object();
        json_object_set_new(spill, "to", json_string(s->services[spec->spill_to].name));
        fs__set(spill, "added_latency_ms", spec->spill_added_s * 1e3);
        fs__set(spill, "when_queue", (double)spec->spill_when_queue);
        fs__set_summary(spill, "requests", &out);
        json_object_set_new(o, "spill", spill);
    }
    bool target = false;
    for (size_t j = 0; j < s->n_services; j++)
        target |= s->services[j].spills && s->services[j].spill_to == i;
    if (target)
        fs__set_summary(o, "spilled_in", &in);
    return true;
}

static json_t *fs__service_json(const fs_results *r, size_t policy, size_t i)
{
    const fs_policy_result *pol = &r->policies[policy];
    const fs_scenario *s = pol->scenario;
    const fs_service_spec *spec = &s->services[i];
    fs_service_summary sum;
    if (fs_results_service_summary(r, policy, i, &sum) != 0)
        return NULL;
    double measured = fs_results_measured_s(r);
    json_t *o = json_object();
    json_object_set_new(o, "name", json_string(spec->name));
    json_object_set_new(o, "tenant", json_string(spec->tenant));
    json_object_set_new(o, "pool", json_string(s->pools[spec->pool].name));
    if (fs_results_regions_shown(s)) /* only then: single-region documents stay as they were */
        json_object_set_new(o, "region", json_string(s->regions[spec->region].name));
    fs__set(o, "replicas", spec->replicas);
    if (spec->decode_replicas) {
        json_t *d = json_object();
        json_object_set_new(d, "pool", json_string(s->pools[spec->decode_pool].name));
        fs__set(d, "replicas", spec->decode_replicas);
        fs__set(d, "link_bandwidth_gb_s", spec->link_bandwidth_Bps / 1e9);
        fs__set(d, "link_latency_us", spec->link_latency_s * 1e6);
        json_object_set_new(o, "decode", d);
    }
    fs__set(o, "concurrency", spec->concurrency);
    fs__set_summary(o, "requests", &sum.requests);
    fs__set_summary(o, "completed", &sum.completed);
    fs__set_summary(o, "dropped", &sum.dropped);
    fs__set_summary(o, "in_flight_start", &sum.in_flight_start);
    fs__set_summary(o, "in_flight_end", &sum.in_flight_end);
    fs__set_summary(o, "throughput_rps", &sum.throughput_rps);
    json_object_set_new(o, "latency_ms", fs__latency_json(&sum));
    json_object_set_new(o, "settling", fs__settling_json(&sum));
    json_t *wait = json_object();
    fs__set_summary(wait, "mean_ms", &sum.wait_mean_ms);
    fs__set_summary(wait, "probability", &sum.wait_probability);
    json_object_set_new(o, "wait", wait);
    fs__set_summary(o, "mean_in_system", &sum.mean_in_system);
    fs__set_summary(o, "slo_breach_windows", &sum.slo_breach_windows);
    fs__set_summary(o, "mean_ready_replicas", &sum.mean_ready_replicas);
    if (fs_results_spill_any(s) && !fs__spill_json(r, policy, i, o)) {
        json_decref(o);
        return NULL;
    }
    if (spec->slo.n_targets)
        json_object_set_new(o, "slo", fs__slo_json(spec, &sum));

    const fs_service_load *load = &pol->loads[i];
    json_t *stab = json_object();
    fs__set(stab, "mean_arrival_rps", load->mean_rps);
    fs__set(stab, "peak_arrival_rps", load->peak_rps);
    fs__set(stab, "capacity_rps", load->capacity_rps);
    fs__set(stab, "offered_load", load->offered_load);
    fs__set(stab, "peak_offered_load", load->peak_offered_load);
    if (spec->arrivals.trace) {
        /* A replay's mean is over the span its arrivals cover (results.h):
         * say how long that was, and its busiest clock hour. */
        fs__set(stab, "arrival_span_s", load->span_s);
        fs__set(stab, "peak_hour_arrival_rps", load->peak_hour_rps);
        fs__set(stab, "peak_hour_offered_load", load->peak_hour_offered_load);
    }
    /* Offered load >= 1 grows an unlimited queue without bound; a queue_limit
     * holds it at the limit and the excess is dropped. */
    json_object_set_new(stab, "queue_unbounded", json_boolean(sum.queue_unbounded));
    json_object_set_new(stab, "queue", json_string(sum.queue == FS_QUEUE_STABLE      ? "stable"
                                                   : sum.queue == FS_QUEUE_UNBOUNDED ? "unbounded"
                                                                                     : "bounded at limit, dropping"));
    fs__set_summary(stab, "drop_fraction", &sum.drop_fraction);
    fs__set_summary(stab, "queue_growth_per_hour", &sum.queue_growth_per_h);
    json_object_set_new(o, "stability", stab);
    if (spec->batching.kind != FS_BATCHING_NONE) {
        /* Batch sizes over every replication's batches together. */
        fs_batch_figures bf = fs_results_batch_figures(r, policy, i);
        json_t *batch = json_object();
        json_object_set_new(batch, "kind", json_string(spec->batching.kind == FS_BATCHING_CONTINUOUS ? "continuous"
                                                                                                     : "dynamic"));
        fs__set(batch, "max_batch_size", spec->batching.max_batch_size);
        fs__set(batch, "batches_per_replication", bf.batches_per_rep);
        fs__set(batch, "mean_size", bf.mean);
        fs__set(batch, "p50_size", bf.p50);
        fs__set(batch, "p95_size", bf.p95);
        fs__set(batch, "max_size", bf.max);
        json_object_set_new(o, "batching", batch);
    }
    if (fs_rep_service(&pol->reps[0], i)->llm) {
        json_t *llm = fs__llm_json(r, policy, i);
        if (!llm) {
            json_decref(o);
            return NULL;
        }
        json_object_set_new(o, "llm", llm);
    }

    json_t *units = json_object();
    for (uint32_t k = 0; k < fs_service_placed(spec); k++) {
        const fs_unit *unit = fs_placement_unit(pol->placement, i, k);
        json_int_t seen = json_integer_value(json_object_get(units, unit->kind));
        json_object_set_new(units, unit->kind, json_integer(seen + 1));
    }
    json_object_set_new(o, "units", units);
    fs_chargeback charge = fs_results_chargeback(r, policy, i);
    json_t *cb = json_object();
    fs__set(cb, "gpu_hours_held", charge.gpu_hours_held);
    fs__set(cb, "cost_usd", charge.cost_usd);
    fs__set(cb, "share", charge.share);
    json_object_set_new(o, "chargeback", cb);

    json_t *reps = json_array();
    for (uint32_t k = 0; k < pol->n_reps; k++)
        json_array_append_new(reps, fs__service_rep_json(spec, fs_rep_service(&pol->reps[k], i), measured));
    json_object_set_new(o, "replications", reps);
    return o;
}

static void fs__set_cost_figures(json_t *o, const fs_pool_summary *sum)
{
    fs__set_summary(o, "gpu_hours", &sum->gpu_hours);
    fs__set_summary(o, "busy_gpu_hours", &sum->busy_gpu_hours);
    fs__set_summary(o, "idle_gpu_hours", &sum->idle_gpu_hours);
    fs__set_summary(o, "utilization", &sum->utilization);
    fs__set_summary(o, "peak_headroom", &sum->peak_headroom);
    fs__set_summary(o, "cost_usd", &sum->cost_usd);
    fs__set_summary(o, "energy_kwh", &sum->energy_kwh);
    fs__set_summary(o, "cost_per_million_requests", &sum->cost_per_million_requests);
    fs__set_summary(o, "switch_gpu_hours", &sum->switch_gpu_hours);
}

/* A pipeline's iterations, or a deploy step's rollouts (fs_pipeline_summary
 * over fs_training_rep.pipeline or .rollouts): counts, then the cycle times
 * (for rollouts their durations, without "unfinished", which a rollout
 * cannot be). */
static json_t *fs__iterations_json(const fs_pipeline_summary *pl, bool rollouts)
{
    json_t *pj = json_object(), *cycle = json_object();
    fs__set_summary(pj, "started", &pl->started);
    fs__set_summary(pj, "completed", &pl->completed);
    if (!rollouts)
        fs__set_summary(pj, "unfinished", &pl->unfinished);
    fs__set_summary(pj, "open_at_end", &pl->open);
    fs__set(cycle, rollouts ? "rollouts" : "iterations", (double)pl->cycles);
    fs__set(cycle, "mean", pl->cycle_mean_s);
    fs__set(cycle, "p50", pl->cycle_p50_s);
    fs__set(cycle, "p95", pl->cycle_p95_s);
    fs__set(cycle, "max", pl->cycle_max_s);
    json_object_set_new(pj, rollouts ? "duration_s" : "cycle_s", cycle);
    return pj;
}

/* Admitted jobs' waits per tenant, of one stream or (SIZE_MAX) every
 * stream together; NULL out of memory. */
static json_t *fs__tenant_waits_json(const fs_results *r, size_t policy, size_t stream)
{
    fs_tenant_waits *by = NULL;
    size_t n = 0;
    if (fs_results_training_tenants(r, policy, stream, &by, &n) != 0)
        return NULL;
    json_t *list = json_array();
    for (size_t k = 0; k < n; k++) {
        json_t *t = json_object();
        json_object_set_new(t, "tenant", json_string(by[k].tenant));
        fs__set(t, "admitted", (double)by[k].admitted);
        fs__set(t, "wait_mean_s", by[k].mean_s);
        fs__set(t, "wait_p50_s", by[k].p50_s);
        fs__set(t, "wait_p95_s", by[k].p95_s);
        fs__set(t, "wait_max_s", by[k].max_s);
        json_array_append_new(list, t);
    }
    free(by);
    return list;
}

static json_t *fs__training_json(const fs_results *r, size_t policy, size_t i)
{
    const fs_training_spec *spec = &r->policies[policy].scenario->training[i];
    fs_training_summary sum;
    if (fs_results_training_summary(r, policy, i, &sum) != 0)
        return NULL;
    json_t *o = json_object();
    json_object_set_new(o, "name", json_string(spec->name));
    json_object_set_new(o, "tenant", json_string(spec->tenant));
    fs__set(o, "gang", spec->gang);
    fs__set_summary(o, "submitted", &sum.submitted);
    fs__set_summary(o, "started", &sum.started);
    fs__set_summary(o, "completed", &sum.completed);
    fs__set_summary(o, "preemptions", &sum.preemptions);
    /* in_flight_start + submitted = completed + failed_jobs + cancelled + running_at_end + waiting_at_end
     * + refused_impossible */
    fs__set_summary(o, "in_flight_start", &sum.in_flight_start);
    fs__set_summary(o, "waiting_at_end", &sum.waiting_end);
    fs__set_summary(o, "running_at_end", &sum.running_end);
    fs__set_summary(o, "refused_impossible", &sum.refused_impossible);
    fs__set_summary(o, "gpu_hours_done", &sum.gpu_hours_done);
    fs__set_summary(o, "gpu_hours_lost", &sum.gpu_hours_lost);
    fs__set_summary(o, "failures", &sum.failures);
    fs__set_summary(o, "failed_jobs", &sum.failed_jobs);
    fs__set_summary(o, "retries", &sum.retries);
    fs__set_summary(o, "cancelled", &sum.cancelled);
    /* held = startup + checkpoint + done + lost + failed + cancelled + open */
    json_t *hours = json_object();
    fs__set_summary(hours, "held", &sum.hours_held);
    fs__set_summary(hours, "startup", &sum.hours_startup);
    fs__set_summary(hours, "checkpoint", &sum.hours_checkpoint);
    fs__set_summary(hours, "done", &sum.gpu_hours_done);
    fs__set_summary(hours, "lost", &sum.gpu_hours_lost);
    fs__set_summary(hours, "failed", &sum.hours_failed);
    fs__set_summary(hours, "cancelled", &sum.hours_cancelled);
    fs__set_summary(hours, "open", &sum.hours_open);
    json_object_set_new(o, "gpu_hours", hours);
    /* A release window (training_release.h): its GPU-hours are parts of
     * checkpoint and startup above, not further terms. */
    if (spec->has_release) {
        json_t *rel = json_object();
        fs__set_summary(rel, "releases", &sum.releases);
        fs__set_summary(rel, "checkpoint_gpu_hours", &sum.release_checkpoint_hours);
        fs__set_summary(rel, "reload_gpu_hours", &sum.release_reload_hours);
        json_object_set_new(o, "release", rel);
    }
    fs__set(o, "startup_mean_s", sum.startup_mean_s);
    json_t *wait = json_object();
    fs__set(wait, "mean", sum.wait_mean_s);
    fs__set(wait, "p50", sum.wait_p50_s);
    fs__set(wait, "p95", sum.wait_p95_s);
    fs__set(wait, "max", sum.wait_max_s);
    if (sum.wait_p50_spread.valid)
        fs__set(wait, "p50_ci95", sum.wait_p50_spread.half_width);
    if (sum.wait_p95_spread.valid)
        fs__set(wait, "p95_ci95", sum.wait_p95_spread.half_width);
    /* Jobs still waiting at the horizon count with their wait so far: with
     * any, every figure here is a lower bound. */
    fs__set_summary(wait, "waits_censored", &sum.waits_censored);
    json_object_set_new(wait, "lower_bound", json_boolean(sum.waits_censored.mean > 0));
    json_object_set_new(o, "queue_wait_s", wait);
    /* A pipeline step names its predecessor; a pipeline's root stream
     * carries its iterations (models/workload/pipeline.h). */
    const fs_scenario *s = r->policies[policy].scenario;
    if (spec->n_after == 1)
        json_object_set_new(o, "after", json_string(s->training[spec->after].name));
    if (spec->n_after > 1) { /* a join: its predecessors, as listed */
        json_t *list = json_array();
        for (size_t k = 0; k < spec->n_after; k++)
            json_array_append_new(list, json_string(s->training[spec->afters[k]].name));
        json_object_set_new(o, "after", list);
    }
    bool root = fs_training_is_root(s, i);
    fs_pipeline_summary pl;
    if (root && fs_results_pipeline_summary(r, policy, i, &pl) != 0) {
        json_decref(o);
        return NULL;
    }
    if (root)
        json_object_set_new(o, "pipeline", fs__iterations_json(&pl, false));
    /* A deploy step: the service it rolls out, and its rollouts. */
    if (spec->deploy_service != SIZE_MAX) {
        if (fs_results_rollout_summary(r, policy, i, &pl) != 0) {
            json_decref(o);
            return NULL;
        }
        json_t *dep = json_object();
        json_object_set_new(dep, "service", json_string(s->services[spec->deploy_service].name));
        fs__set(dep, "max_surge", spec->deploy_max_surge);
        json_object_set_new(o, "deploy", dep);
        json_object_set_new(o, "rollouts", fs__iterations_json(&pl, true));
    }
    /* A job trace with a tenant column: its admitted jobs' waits per tenant. */
    if (spec->trace && spec->trace->tenant_col) {
        json_t *list = fs__tenant_waits_json(r, policy, i);
        if (!list) {
            json_decref(o);
            return NULL;
        }
        json_object_set_new(o, "by_tenant", list);
    }
    return o;
}

/* Per team of the scenario's "quotas", the mean over replications of the
 * unit-hours its training jobs held, those above its nominal quota, and
 * its jobs reclaimed, with its cohort (null: the default one) where the
 * scenario names cohorts and its weight under fair sharing; "unlisted"
 * (trace rows naming a tenant without an entry) only where a job trace has
 * a tenant column. */
static json_t *fs__quotas_json(const fs_results *r, size_t policy)
{
    const fs_policy_result *pol = &r->policies[policy];
    const fs_scenario *s = pol->scenario;
    bool unlisted = false;
    for (size_t i = 0; i < s->n_training; i++)
        unlisted |= s->training[i].trace && s->training[i].trace->tenant_col;
    json_t *list = json_array();
    for (size_t k = 0; k < s->n_quotas + unlisted; k++) {
        double held = 0, borrowed = 0, reclaimed = 0;
        for (uint32_t rep = 0; rep < pol->n_reps; rep++) {
            held += pol->reps[rep].quotas[k].gpu_hours;
            borrowed += pol->reps[rep].quotas[k].borrowed_gpu_hours;
            reclaimed += (double)pol->reps[rep].quotas[k].reclaimed_jobs;
        }
        json_t *team = json_object();
        json_object_set_new(team, "tenant", json_string(k < s->n_quotas ? s->quotas[k].tenant : "unlisted"));
        uint32_t cohort = k < s->n_quotas ? s->quotas[k].cohort : 0;
        if (s->n_cohorts) /* named only where the scenario has cohorts: one cohort reads as before */
            json_object_set_new(team, "cohort", cohort ? json_string(s->cohorts[cohort - 1]) : json_null());
        if (s->fair_share != FS_FAIR_NONE)
            fs__set(team, "weight", k < s->n_quotas ? s->quotas[k].weight : 1);
        fs__set(team, "gpu_hours", held / pol->n_reps);
        fs__set(team, "borrowed_gpu_hours", borrowed / pol->n_reps);
        fs__set(team, "reclaimed_jobs", reclaimed / pol->n_reps);
        json_array_append_new(list, team);
    }
    return list;
}

static const char *fs__partitioning_name(fs_partitioning p)
{
    return p == FS_PARTITION_MIG            ? "mig"
           : p == FS_PARTITION_TIME_SLICED  ? "time_slicing"
           : p == FS_PARTITION_FRACTIONAL   ? "fractional"
                                            : "whole";
}

/* A pool that switches MIG layouts (fs_mig_plan): its layouts and schedule's
 * settings, and per replication the switches begun and the GPU-hours spent
 * reconfiguring (part of switch_gpu_hours), as mean and interval. */
static json_t *fs__repartition_json(const fs_policy_result *pol, size_t i)
{
    const fs_mig_plan *plan = pol->scenario->pools[i].mig_plan;
    json_t *o = json_object(), *names = json_array();
    for (size_t k = 0; k < plan->n_layouts; k++)
        json_array_append_new(names, json_string(plan->names[k]));
    json_object_set_new(o, "layouts", names);
    json_object_set_new(o, "start", json_string(plan->names[plan->start]));
    fs__set(o, "reconfigure_s", plan->reconfigure_s);
    json_object_set_new(o, "drain", json_string(plan->drain == FS_MIG_DRAIN_EVICT ? "evict" : "wait"));
    if (plan->on_demand_after_s > 0)
        fs__set(o, "on_demand_after_s", plan->on_demand_after_s);
    double *x = malloc(2 * (pol->n_reps ? pol->n_reps : 1) * sizeof *x);
    if (x == NULL) {
        json_decref(o);
        return NULL;
    }
    for (uint32_t k = 0; k < pol->n_reps; k++) {
        x[2 * k] = (double)pol->reps[k].pools[i].repartitions;
        x[2 * k + 1] = pol->reps[k].pools[i].reconfigure_gpu_s / 3600.0;
    }
    fs_summary count = fs_results_summary_known(x, 2, pol->n_reps);
    fs_summary hours = fs_results_summary_known(x + 1, 2, pol->n_reps);
    free(x);
    fs__set_summary(o, "repartitions", &count);
    fs__set_summary(o, "reconfigure_gpu_hours", &hours);
    return o;
}

static json_t *fs__pool_json(const fs_results *r, size_t policy, size_t i)
{
    const fs_policy_result *pol = &r->policies[policy];
    const fs_scenario *s = pol->scenario;
    const fs_pool_spec *spec = &s->pools[i];
    const fs_gpu_type *gpu = &s->gpu_types[spec->gpu_type];
    const fs_pool_units *pu = &pol->placement->pools[i];
    fs_pool_summary sum;
    if (fs_results_pool_summary(r, policy, i, &sum) != 0)
        return NULL;
    json_t *o = json_object();
    json_object_set_new(o, "name", json_string(spec->name));
    json_object_set_new(o, "gpu", json_string(spec->gpu));
    if (fs_results_regions_shown(s))
        json_object_set_new(o, "region", json_string(s->regions[spec->region].name));
    fs__set(o, "gpus", spec->gpus);
    json_object_set_new(o, "partitioning", json_string(fs__partitioning_name(spec->partitioning)));
    if (spec->partitioning == FS_PARTITION_FRACTIONAL) { /* only there: other pools read as before */
        json_t *fr = json_object();
        json_object_set_new(fr, "mode", json_string(spec->fractional.mode == FS_SHARE_MPS ? "mps" : "virtual"));
        fs__set(fr, "seats", spec->fractional.seats);
        fs__set(fr, "oversubscription", spec->fractional.oversubscription);
        json_object_set_new(o, "fractional", fr);
    }
    json_object_set_new(o, "price_class", json_string(spec->price == FS_PRICE_SPOT ? "spot" : "on_demand"));
    fs__set(o, "price_per_gpu_hour", fs_results_pool_price(s, i));
    /* A pool that switches MIG layouts: the start layout's units (its unit
     * numbers cover every layout's). */
    fs__set(o, "units", (double)pu->start_units);
    fs__set(o, "free_units", (double)pu->free_units);
    fs__set_cost_figures(o, &sum);
    json_t *frag = json_object();
    double memory = spec->gpus * gpu->memory_gb;
    fs__set(frag, "stranded_memory_gb", pu->stranded_memory_gb);
    fs__set(frag, "stranded_memory_fraction", memory > 0 ? pu->stranded_memory_gb / memory : 0);
    fs__set(frag, "stranded_compute_gpus", pu->stranded_sm_share);
    fs__set(frag, "stranded_compute_fraction", spec->gpus ? pu->stranded_sm_share / spec->gpus : 0);
    json_object_set_new(o, "fragmentation", frag);
    if (spec->mig_plan && spec->mig_plan->n_layouts > 1) {
        json_t *rep = fs__repartition_json(pol, i);
        if (rep == NULL) {
            json_decref(o);
            return NULL;
        }
        json_object_set_new(o, "repartitioning", rep);
    }
    return o;
}

/* A policy's "regions": per region its cost figures and its services'
 * requests (results_region.c); NULL when out of memory. */
static json_t *fs__regions_json(const fs_results *r, size_t policy)
{
    const fs_scenario *s = r->policies[policy].scenario;
    json_t *list = json_array();
    for (size_t g = 0; list && g < s->n_regions; g++) {
        fs_region_summary sum;
        if (fs_results_region_summary(r, policy, g, &sum) != 0) {
            json_decref(list);
            return NULL;
        }
        json_t *o = json_object();
        json_object_set_new(o, "name", json_string(s->regions[g].name));
        fs__set(o, "utc_offset_s", s->regions[g].utc_offset_s);
        fs__set_summary(o, "gpu_hours", &sum.gpu_hours);
        fs__set_summary(o, "busy_gpu_hours", &sum.busy_gpu_hours);
        fs__set_summary(o, "utilization", &sum.utilization);
        fs__set_summary(o, "cost_usd", &sum.cost_usd);
        fs__set_summary(o, "energy_kwh", &sum.energy_kwh);
        fs__set_summary(o, "requests", &sum.requests);
        fs__set_summary(o, "completed", &sum.completed);
        fs__set_summary(o, "dropped", &sum.dropped);
        fs__set_summary(o, "spilled_out", &sum.spilled_out);
        fs__set_summary(o, "spilled_in", &sum.spilled_in);
        json_array_append_new(list, o);
    }
    return list;
}

static json_t *fs__fleet_json(const fs_results *r, size_t policy)
{
    fs_pool_summary sum;
    if (fs_results_fleet_summary(r, policy, &sum) != 0)
        return NULL;
    json_t *o = json_object();
    fs__set_cost_figures(o, &sum);
    return o;
}

/* The services array of policy p, in a skeleton document: one string,
 * found again in the dumped text by its array's opening (an unescaped quote
 * and bracket only structure can write, never a user's string). */
#define FS__SERVICES_MARK "fleetsim-services-of-policy-"

/* The document; with `skeleton`, each policy's services array holds only
 * its mark (fs_results_json_emit puts the services in as text). */
static json_t *fs__results_doc(const fs_results *r, bool timing, bool skeleton)
{
    const fs_scenario *s = r->scenario;
    json_t *doc = json_object();
    json_object_set_new(doc, "schema", json_string(FS_RESULTS_SCHEMA));
    json_object_set_new(doc, "fleetsim_version", json_string(FLEETSIM_VERSION));
    json_t *scen = json_object();
    json_object_set_new(scen, "name", json_string(s->name));
    json_object_set_new(scen, "path", json_string(s->path));
    fs__set(scen, "horizon_s", s->horizon_s);
    fs__set(scen, "warmup_s", s->warmup_s);
    fs__set(scen, "window_s", s->window_s);
    if (s->window_anchored) /* only when set: older documents stay byte-identical */
        fs__set(scen, "window_anchor_s", s->window_anchor_s);
    json_object_set_new(scen, "seed", json_integer((json_int_t)s->seed));
    fs__set(scen, "replications", s->replications);
    json_object_set_new(doc, "scenario", scen);

    json_t *policies = json_array();
    json_object_set_new(doc, "policies", policies); /* doc owns it from here: one decref frees all */
    for (size_t p = 0; p < r->n_policies; p++) {
        json_t *pol = json_object(), *services = json_array(), *pools = json_array();
        json_array_append_new(policies, pol);
        json_object_set_new(pol, "name", json_string(r->policies[p].name));
        json_object_set_new(pol, "services", services);
        json_object_set_new(pol, "pools", pools);
        if (skeleton && s->n_services > 0) {
            char mark[64];
            snprintf(mark, sizeof mark, FS__SERVICES_MARK "%zu", p);
            json_array_append_new(services, json_string(mark));
        }
        for (size_t i = 0; i < s->n_services && !skeleton; i++) {
            json_t *svc = fs__service_json(r, p, i);
            if (!svc)
                goto fail;
            json_array_append_new(services, svc);
        }
        for (size_t i = 0; i < r->policies[p].scenario->n_pools; i++) {
            json_t *pool = fs__pool_json(r, p, i);
            if (!pool)
                goto fail;
            json_array_append_new(pools, pool);
        }
        json_t *training = json_array();
        json_object_set_new(pol, "training", training);
        for (size_t i = 0; i < r->policies[p].scenario->n_training; i++) {
            json_t *stream = fs__training_json(r, p, i);
            if (!stream)
                goto fail;
            json_array_append_new(training, stream);
        }
        /* Where each GPU type's switch costs came from: a measured profile,
         * or the built-in default from published figures. */
        json_t *calibration = json_object();
        json_object_set_new(pol, "calibration", calibration);
        const fs_scenario *v = r->policies[p].scenario;
        /* ... and figure by figure: "switch_costs": {type: {figure: {"value",
         * "source"}}}, so a review can say which figures were measured. */
        json_t *costs = json_object();
        json_object_set_new(pol, "switch_costs", costs);
        for (size_t i = 0; i < v->n_pools; i++) {
            size_t g = v->pools[i].gpu_type;
            const fs_switch_costs *sc = fs_scenario_switch_costs(v, g);
            json_object_set_new(calibration, v->gpu_types[g].name, json_string(sc->source));
            json_t *figures = json_object();
            json_object_set_new(costs, v->gpu_types[g].name, figures);
            for (int k = 0; k < FS_COST_FIGURES; k++) {
                double value;
                const char *source, *key = fs_switch_costs_figure(sc, (enum fs_cost_figure)k, &value, &source);
                json_t *fig = json_object();
                json_object_set_new(figures, key, fig);
                fs__set(fig, "value", value);
                json_object_set_new(fig, "source", json_string(source));
            }
        }
        json_t *charged = json_object();
        json_object_set_new(pol, "blocked_breach_minutes_by_tenant", charged);
        for (size_t t = 0; t < r->n_tenants; t++) {
            double sum = 0;
            for (uint32_t k = 0; k < r->policies[p].n_reps; k++)
                sum += r->policies[p].reps[k].blocked_minutes[t];
            fs__set(charged, r->tenants[t], sum / r->policies[p].n_reps);
        }
        if (v->n_quotas) /* only then: documents without quotas stay as they were */
            json_object_set_new(pol, "quotas", fs__quotas_json(r, p));
        /* Per team across streams, where teams are more than streams: with
         * quotas, or a job trace naming each job's tenant. */
        bool job_tenants = false;
        for (size_t i = 0; i < v->n_training; i++)
            job_tenants |= v->training[i].trace && v->training[i].trace->tenant_col;
        if (v->n_quotas || job_tenants) {
            json_t *teams = fs__tenant_waits_json(r, p, SIZE_MAX);
            if (!teams)
                goto fail;
            json_object_set_new(pol, "teams", teams);
        }
        if (fs_results_regions_shown(v)) {
            json_t *regions = fs__regions_json(r, p);
            if (!regions)
                goto fail;
            json_object_set_new(pol, "regions", regions);
        }
        json_t *fleet = fs__fleet_json(r, p);
        if (!fleet)
            goto fail;
        json_object_set_new(pol, "fleet", fleet);
    }

    json_t *sim = json_object();
    fs__set(sim, "events", (double)r->events);
    if (timing) {
        fs__set(sim, "wall_s", r->wall_s);
        fs__set(sim, "events_per_s", r->wall_s > 0 ? (double)r->events / r->wall_s : 0);
        fs__set(sim, "peak_rss_mb", r->peak_rss_mb);
    }
    json_object_set_new(doc, "sim", sim);
    return doc;
fail:
    json_decref(doc);
    return NULL;
}

json_t *fs_results_json(const fs_results *r, bool timing)
{
    return fs__results_doc(r, timing, false);
}

/* A piece of a service object dumped on its own, passed on with `indent`
 * after each newline: what its depth in the whole document adds. */
typedef struct fs__indenter {
    json_dump_callback_t emit;
    void *data;
    const char *indent;
    size_t indent_len;
} fs__indenter;

static int fs__indent_piece(const char *buf, size_t size, void *data)
{
    const fs__indenter *in = data;
    for (const char *end = buf + size; buf < end;) {
        const char *nl = memchr(buf, '\n', (size_t)(end - buf));
        size_t n = nl ? (size_t)(nl - buf) + 1 : (size_t)(end - buf);
        if (in->emit(buf, n, in->data) != 0 || (nl && in->emit(in->indent, in->indent_len, in->data) != 0))
            return -1;
        buf += n;
    }
    return 0;
}

int fs_results_json_emit(const fs_results *r, bool timing, const char *run_id, size_t flags,
                         json_dump_callback_t emit, void *data)
{
    json_t *doc = fs__results_doc(r, timing, true);
    if (doc && run_id && json_object_set_new(doc, "run_id", json_string(run_id)) != 0) {
        json_decref(doc);
        doc = NULL;
    }
    char *text = doc ? json_dumps(doc, flags) : NULL;
    json_decref(doc);
    if (!text)
        return -1;
    bool indented = (flags & JSON_MAX_INDENT) != 0;
    const char *at = text;
    int rc = 0;
    for (size_t p = 0; p < r->n_policies && rc == 0 && r->scenario->n_services > 0; p++) {
        /* The mark as the array's only element: "[", then (indented) a
         * newline and the element's indent, then the quoted mark. */
        char mark[64];
        snprintf(mark, sizeof mark, "\"" FS__SERVICES_MARK "%zu\"", p);
        const char *found = at, *open = NULL;
        /* A tenant named like the mark is an object key, not after a "[". */
        while ((found = strstr(found, mark)) != NULL) {
            open = found;
            while (open > at && (open[-1] == ' ' || open[-1] == '\n'))
                open--;
            if (open > at && open[-1] == '[')
                break;
            found += strlen(mark);
        }
        if (!found) {
            rc = -1;
            break;
        }
        const char *line = found;
        while (line > text && line[-1] == ' ')
            line--;
        fs__indenter in = {emit, data, line, indented ? (size_t)(found - line) : 0};
        rc = emit(at, (size_t)(found - at), data);
        for (size_t i = 0; i < r->scenario->n_services && rc == 0; i++) {
            json_t *svc = fs__service_json(r, p, i);
            if (!svc) {
                rc = -1;
                break;
            }
            if (i > 0)
                rc = emit(",", 1, data) || (indented && (emit("\n", 1, data) || emit(line, in.indent_len, data)));
            if (rc == 0)
                rc = json_dump_callback(svc, indented ? fs__indent_piece : emit, indented ? (void *)&in : data, flags);
            json_decref(svc);
        }
        at = found + strlen(mark);
    }
    if (rc == 0)
        rc = emit(at, strlen(at), data);
    free(text);
    return rc == 0 ? 0 : -1;
}

static int fs__file_piece(const char *buf, size_t size, void *data)
{
    return fwrite(buf, 1, size, (FILE *)data) == size ? 0 : -1;
}

int fs_results_json_write(const fs_results *r, bool timing, FILE *fp, fs_error *err)
{
    return fs_results_json_write_run(r, timing, NULL, fp, err);
}

int fs_results_json_write_run(const fs_results *r, bool timing, const char *run_id, FILE *fp, fs_error *err)
{
    /* Ten significant digits: plenty for any figure here, and short enough to
     * read; fixed so the same run gives the same bytes. */
    if (fs_results_json_emit(r, timing, run_id, JSON_INDENT(2) | JSON_REAL_PRECISION(10), fs__file_piece, fp) != 0 ||
        fputc('\n', fp) == EOF)
        return fs_error_set(err, FS_ERR_RUNTIME, "cannot write the results JSON (out of memory, or a write failed)");
    return FS_OK;
}

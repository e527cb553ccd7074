#include "table.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "duration.h"
#include "terminal.h"
#include "unsettled.h"

/* Beyond this many services the table prints their aggregate, not a row each. */
#define FS_TABLE_MAX_SERVICE_ROWS 12

/* Prints at most `width` bytes of name, padded, with control bytes replaced. */
static void fs__name(FILE *fp, const char *name, int width)
{
    for (int n = fs_terminal_write_n(fp, name, width); n < width; n++)
        fputc(' ', fp);
}

static int fs__name_width(const fs_results *r, int floor_width)
{
    int w = floor_width;
    for (size_t p = 0; p < r->n_policies; p++) {
        const fs_scenario *s = r->policies[p].scenario;
        for (size_t i = 0; i < s->n_services; i++) {
            int n = (int)strlen(s->services[i].name);
            if (n > w)
                w = n;
        }
        for (size_t i = 0; i < s->n_pools; i++) {
            int n = (int)strlen(s->pools[i].name);
            if (n > w)
                w = n;
        }
        for (size_t i = 0; i < s->n_training; i++) {
            int n = (int)strlen(s->training[i].name);
            if (n > w)
                w = n;
        }
    }
    return w > 32 ? 32 : w;
}

/* A figure into buf with one decimal, or "no data" (NaN: nothing completed);
 * `at_least` prefixes ">=" for a lower bound. */
static const char *fs__fig(char *buf, size_t size, double v, bool at_least)
{
    if (isnan(v))
        snprintf(buf, size, "no data");
    else
        snprintf(buf, size, "%s%.1f", at_least ? ">=" : "", v);
    return buf;
}

/* A share as a percentage with one decimal, or "no data" (NaN: no GPU was
 * provisioned to measure it). */
static const char *fs__percent(char *buf, size_t size, double share)
{
    if (isnan(share))
        snprintf(buf, size, "no data");
    else
        snprintf(buf, size, "%.1f%%", 100 * share);
    return buf;
}

/* A latency figure as the table shows it: with its interval when it has one
 * (ci), and the mark `~` when it has not settled (settle.h). */
static const char *fs__figure(char *buf, size_t size, const fs_settling *st, bool ci)
{
    if (isnan(st->value))
        snprintf(buf, size, "no data");
    else if (ci && !isnan(st->ci95))
        snprintf(buf, size, "%.1f ±%.1f%s", st->value, st->ci95, fs_unsettled_mark(st));
    else
        snprintf(buf, size, "%.1f%s", st->value, fs_unsettled_mark(st));
    return buf;
}

/* Under the service rows: where the ± comes from, and for every figure that
 * has not settled, why (detail), or how many there are (past 12 services). */
static int fs__settling_notes(const fs_results *r, size_t p, bool detail, FILE *fp, fs_error *err)
{
    const fs_scenario *s = r->policies[p].scenario;
    size_t n_batch_ci = 0, n_unsettled = 0;
    for (size_t i = 0; i < s->n_services; i++) {
        fs_service_summary sum;
        if (fs_results_service_summary(r, p, i, &sum) != 0)
            return fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
        n_batch_ci += sum.ci_from_batches;
        for (size_t f = 0; f < FS_SETTLE_FIGURES; f++) {
            const fs_settling *st = &sum.settling[f];
            if (!fs_unsettled_is(st)) /* no data is said as such, not as unsettled */
                continue;
            n_unsettled++;
            if (!detail)
                continue;
            if (n_unsettled == 1) {
                fputc('\n', fp);
                fs_unsettled_legend(fp, NULL);
            }
            char why[512];
            fputs("NOT SETTLED: service ", fp);
            fs__name(fp, s->services[i].name, (int)strlen(s->services[i].name));
            fprintf(fp, " %s: %s\n", fs_settle_names[f], fs_settling_why(st, why, sizeof why));
        }
    }
    if (!detail && n_unsettled)
        fprintf(fp, "%zu latency figures have not settled: a longer horizon, more replications or a longer "
                    "warm-up would move them (why: --format json, settling)\n",
                n_unsettled);
    if (n_batch_ci && detail)
        fprintf(fp, "± with one replication: 95%% CI from %d time batches of the run (batch means)\n",
                FS_SETTLE_BATCHES);
    return FS_OK;
}

/* Under the service rows: each SLO target that is not met, or that has no
 * data, with the requests unfinished past it at the horizon (they count as
 * misses: see reports/README.md). */
static int fs__slo_notes(const fs_results *r, size_t p, FILE *fp, fs_error *err)
{
    const fs_scenario *s = r->policies[p].scenario;
    for (size_t i = 0; i < s->n_services; i++) {
        const fs_slo *slo = &s->services[i].slo;
        if (!slo->n_targets)
            continue;
        fs_service_summary sum;
        if (fs_results_service_summary(r, p, i, &sum) != 0)
            return fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
        for (size_t j = 0; j < slo->n_targets; j++) {
            if (sum.slo_verdict[j] == FS_SLO_MET)
                continue;
            fputs("SLO: service ", fp);
            fs__name(fp, s->services[i].name, (int)strlen(s->services[i].name));
            fprintf(fp, ": p%.4g <= %.4g ms: %s", slo->targets[j].quantile * 100, slo->targets[j].threshold_s * 1e3,
                    sum.slo_verdict[j] == FS_SLO_NO_DATA ? "no data (nothing completed)" : "missed");
            if (sum.unfinished_past_slo[j].mean > 0)
                fprintf(fp, "; %.4g requests still unfinished past it at the horizon (misses)",
                        sum.unfinished_past_slo[j].mean);
            fputc('\n', fp);
        }
    }
    return FS_OK;
}

/* Under the service rows: each batched service's batch sizes (none of this
 * for a scenario without batching, whose table is unchanged). */
static void fs__batch_notes(const fs_results *r, size_t p, FILE *fp)
{
    const fs_scenario *s = r->policies[p].scenario;
    for (size_t i = 0; i < s->n_services; i++) {
        const fs_batching *b = &s->services[i].batching;
        if (b->kind == FS_BATCHING_NONE)
            continue;
        fs_batch_figures f = fs_results_batch_figures(r, p, i);
        fputs("batches: service ", fp);
        fs__name(fp, s->services[i].name, (int)strlen(s->services[i].name));
        if (isnan(f.mean))
            fprintf(fp, ": no data (no batch started; max %u)\n", b->max_batch_size);
        else
            fprintf(fp, ": mean size %.2f of max %u, p50 %.0f, p95 %.0f, largest %.0f; %.4g batches per replication\n",
                    f.mean, b->max_batch_size, f.p50, f.p95, f.max, f.batches_per_rep);
    }
}

/* Under the service rows: each replayed service's load (none of this for a
 * scenario without a replay, whose table is unchanged).  Its mean is over
 * the span its arrivals cover, not the whole measured interval (results.h),
 * so the table says which span that was, beside the busiest clock hour and
 * window. */
static void fs__replay_notes(const fs_results *r, size_t p, FILE *fp)
{
    const fs_policy_result *pol = &r->policies[p];
    const fs_scenario *s = pol->scenario;
    for (size_t i = 0; i < s->n_services; i++) {
        if (!s->services[i].arrivals.trace)
            continue;
        const fs_service_load *l = &pol->loads[i];
        fputs("replay: service ", fp);
        fs__name(fp, s->services[i].name, (int)strlen(s->services[i].name));
        if (isnan(l->mean_rps)) {
            fputs(": load no data (fewer than two arrivals at or after warm-up)\n", fp);
            continue;
        }
        char span[48];
        /* Whole seconds past a minute: "22h59m31s", not its seven decimals. */
        fs_duration_format(l->span_s >= 60 ? round(l->span_s) : l->span_s, span, sizeof span);
        fprintf(fp, ": %.4g req/s over the %s its arrivals span (load %.2f); peak clock hour %.4g req/s (load %.2f); "
                    "busiest window %.4g req/s (load %.2f)\n",
                l->mean_rps, span, l->offered_load, l->peak_hour_rps, l->peak_hour_offered_load, l->peak_rps,
                l->peak_offered_load);
    }
}

/* "%.*g" of v then unit, or "no data": a figure nobody measured is never 0. */
static const char *fs__llm_num(char *buf, size_t size, double v, const char *fmt)
{
    if (isnan(v))
        return "no data";
    snprintf(buf, size, fmt, v);
    return buf;
}

/* A percentile pair and its target's verdict: "p50 A ms, p99 B ms (target T ms: met)". */
static void fs__llm_latency(FILE *fp, const char *what, const fs_percentile pq[2], const fs_slo_target *t,
                            const fs_llm_slo *slo)
{
    char a[32], b[32];
    fprintf(fp, "%s p50 %s, p99 %s", what, fs__llm_num(a, sizeof a, pq[0].value, "%.4g ms"),
            fs__llm_num(b, sizeof b, pq[1].value, "%.4g ms"));
    if (t->threshold_s > 0)
        fprintf(fp, " (target p%g %.4g ms: %s)", t->quantile * 100, t->threshold_s * 1e3,
                slo->verdict == FS_SLO_MET ? "met" : slo->verdict == FS_SLO_MISSED ? "MISSED" : "no data");
}

/* Under the service rows: each LLM service's token figures (none of this for
 * a scenario without one).  Figures are means over replications. */
static int fs__llm_notes(const fs_results *r, size_t p, FILE *fp, fs_error *err)
{
    const fs_scenario *s = r->policies[p].scenario;
    for (size_t i = 0; i < s->n_services; i++) {
        if (!fs_rep_service(&r->policies[p].reps[0], i)->llm)
            continue;
        fs_llm_summary l;
        if (fs_results_llm_summary(r, p, i, &l) != 0)
            return fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
        char b[8][32];
        fputs("llm: service ", fp);
        fs__name(fp, s->services[i].name, (int)strlen(s->services[i].name));
        fputs(": ", fp);
        fs__llm_latency(fp, "TTFT", l.ttft, &s->services[i].slo.ttft, &l.ttft_slo);
        fputs("; ", fp);
        fs__llm_latency(fp, "TPOT", l.tpot, &s->services[i].slo.tpot, &l.tpot_slo);
        const double *goodput = &l.fig[FS_LFIG_GOODPUT].mean, *kv = &l.fig[FS_LFIG_KV_OCCUPANCY].mean;
        fprintf(fp, "; tokens/s %s, per GPU-s %s, per million tokens %s; goodput %s; mean running %s, "
                    "KV occupancy %s; preemptions %s, too long %s",
                fs__llm_num(b[0], sizeof b[0], l.fig[FS_LFIG_TOKENS_PER_S].mean, "%.4g"),
                fs__llm_num(b[1], sizeof b[1], l.fig[FS_LFIG_TOKENS_PER_GPU_S].mean, "%.4g"),
                fs__llm_num(b[2], sizeof b[2], l.fig[FS_LFIG_COST_PER_M_TOKENS].mean, "$%.4g"),
                fs__llm_num(b[3], sizeof b[3], *goodput * 100, "%.1f%%"),
                fs__llm_num(b[4], sizeof b[4], l.fig[FS_LFIG_MEAN_RUNNING].mean, "%.4g"),
                fs__llm_num(b[5], sizeof b[5], *kv * 100, "%.1f%%"),
                fs__llm_num(b[6], sizeof b[6], l.fig[FS_LFIG_PREEMPTIONS].mean, "%.4g"),
                fs__llm_num(b[7], sizeof b[7], l.fig[FS_LFIG_TOO_LONG].mean, "%.4g"));
        const fs_llm_serving *llm = &s->services[i].batching.llm;
        if (fs_scenario_llm_caches_prefixes(llm))
            fprintf(fp, "; prefix cache hit %s, prefill tokens saved %s/s",
                    fs__llm_num(b[0], sizeof b[0], l.fig[FS_LFIG_PREFIX_HIT_RATIO].mean * 100, "%.1f%%"),
                    fs__llm_num(b[1], sizeof b[1], l.fig[FS_LFIG_PREFILL_SAVED_PER_S].mean, "%.4g"));
        if (s->services[i].decode_replicas)
            fprintf(fp, "; disaggregated, %u prefill + %u decode replicas, KV transfer mean %s ms",
                    s->services[i].replicas, s->services[i].decode_replicas,
                    fs__llm_num(b[0], sizeof b[0], l.fig[FS_LFIG_KV_TRANSFER_MS].mean, "%.4g"));
        fputc('\n', fp);
    }
    return FS_OK;
}

/* The many-services table's one line on batching: how many services batch
 * and the range of their mean batch sizes (nothing without batching). */
static void fs__batch_summary(const fs_results *r, size_t p, FILE *fp)
{
    const fs_scenario *s = r->policies[p].scenario;
    size_t batched = 0, no_data = 0, lo = 0, hi = 0;
    double lo_mean = NAN, hi_mean = NAN;
    for (size_t i = 0; i < s->n_services; i++) {
        if (s->services[i].batching.kind == FS_BATCHING_NONE)
            continue;
        batched++;
        double mean = fs_results_batch_figures(r, p, i).mean;
        if (isnan(mean)) {
            no_data++;
            continue;
        }
        if (isnan(lo_mean) || mean < lo_mean) {
            lo_mean = mean;
            lo = i;
        }
        if (isnan(hi_mean) || mean > hi_mean) {
            hi_mean = mean;
            hi = i;
        }
    }
    if (!batched)
        return;
    fprintf(fp, "batches: %zu batched service%s", batched, batched == 1 ? "" : "s");
    if (!isnan(lo_mean)) {
        fprintf(fp, ": mean batch size from %.2f (", lo_mean);
        fs__name(fp, s->services[lo].name, (int)strlen(s->services[lo].name));
        fprintf(fp, ") to %.2f (", hi_mean);
        fs__name(fp, s->services[hi].name, (int)strlen(s->services[hi].name));
        fputc(')', fp);
    }
    if (no_data)
        fprintf(fp, "%s%zu with no data (no batch started)", isnan(lo_mean) ? ": " : "; ", no_data);
    fputc('\n', fp);
}

/* One row per service: requests, drops, latency quantiles with the p99
 * interval, breach windows, offered load; then the settling notes. */
static int fs__services_rows(const fs_results *r, size_t p, int w, FILE *fp, fs_error *err)
{
    const fs_policy_result *pol = &r->policies[p];
    const fs_scenario *s = pol->scenario;
    fs__name(fp, "service", w);
    fprintf(fp, " %12s %10s %9s %9s %9s %16s %9s %8s %6s\n", "requests", "dropped", "mean ms",
            "p50 ms", "p95 ms", "p99 ms (95% CI)", "p99.9 ms", "breaches", "load");
    for (size_t i = 0; i < s->n_services; i++) {
        fs_service_summary sum;
        if (fs_results_service_summary(r, p, i, &sum) != 0)
            return fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
        char mean[40], p50[40], p95[40], p99[40], p999[40], load[32] = "no data";
        char breaches[32] = "-";
        if (fs_slo_any(&s->services[i].slo))
            snprintf(breaches, sizeof breaches, "%.4g", sum.slo_breach_windows.mean);
        if (!isnan(pol->loads[i].offered_load)) /* NaN: a replay of under two arrivals */
            snprintf(load, sizeof load, "%.2f", pol->loads[i].offered_load);
        fs__name(fp, s->services[i].name, w);
        fprintf(fp, " %12.0f %10.0f %9s %9s %9s %16s %9s %8s %6s\n", sum.requests.mean, sum.dropped.mean,
                fs__figure(mean, sizeof mean, &sum.settling[FS_SETTLE_MEAN], false),
                fs__figure(p50, sizeof p50, &sum.settling[FS_SETTLE_P50], false),
                fs__figure(p95, sizeof p95, &sum.settling[FS_SETTLE_P95], false),
                fs__figure(p99, sizeof p99, &sum.settling[FS_SETTLE_P99], true),
                fs__figure(p999, sizeof p999, &sum.settling[FS_SETTLE_P999], false),
                breaches, load);
    }
    fs__replay_notes(r, p, fp);
    fs__batch_notes(r, p, fp);
    int rc = fs__llm_notes(r, p, fp, err);
    if (rc == FS_OK)
        rc = fs__slo_notes(r, p, fp, err);
    return rc != FS_OK ? rc : fs__settling_notes(r, p, true, fp, err);
}

/* Many services: totals, how many meet their SLO over the whole run, breach
 * windows, and the service closest to (or furthest past) its p99 target. */
static int fs__services_aggregate(const fs_results *r, size_t p, FILE *fp, fs_error *err)
{
    const fs_policy_result *pol = &r->policies[p];
    const fs_scenario *s = pol->scenario;
    double requests = 0, dropped = 0, breaches = 0, windows = 0, worst_ratio = -1;
    size_t with_slo = 0, within = 0, no_data = 0, worst = 0;
    for (size_t i = 0; i < s->n_services; i++) {
        fs_service_summary sum;
        if (fs_results_service_summary(r, p, i, &sum) != 0)
            return fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
        requests += sum.requests.mean;
        dropped += sum.dropped.mean;
        const fs_slo *slo = &s->services[i].slo;
        for (size_t j = 0; j < slo->n_targets; j++) {
            if (slo->targets[j].quantile != 0.99)
                continue;
            double ratio = sum.slo_quantile_ms[j] / (slo->targets[j].threshold_s * 1e3);
            with_slo++;
            within += sum.slo_verdict[j] == FS_SLO_MET;
            no_data += sum.slo_verdict[j] == FS_SLO_NO_DATA;
            breaches += sum.slo_breach_windows.mean;
            windows += sum.slo_windows;
            if (!isnan(ratio) && ratio > worst_ratio) {
                worst_ratio = ratio;
                worst = i;
            }
        }
    }
    fprintf(fp, "%zu services: %.0f requests, %.0f dropped", s->n_services, requests, dropped);
    if (with_slo) {
        fprintf(fp, "; %zu of %zu with a p99 SLO meet it over the run", within, with_slo);
        if (no_data)
            fprintf(fp, " (%zu with no data: nothing completed)", no_data);
        fprintf(fp, "; %.4g of %.0f SLO windows in breach\ntightest: ", breaches, windows);
        fs__name(fp, s->services[worst].name, (int)strlen(s->services[worst].name));
        if (isinf(worst_ratio))
            fputs(" with requests unfinished past its p99 target", fp);
        else
            fprintf(fp, " at %.2f x its p99 target", worst_ratio);
    }
    fputs(" (per service: --format json or csv, or --out)\n", fp);
    fs__batch_summary(r, p, fp);
    int rc = fs__llm_notes(r, p, fp, err);
    return rc != FS_OK ? rc : fs__settling_notes(r, p, false, fp, err);
}

/* Under a pipeline's root stream (one others follow with "after"), its
 * iterations and cycle time; under a deploy step, its rollouts and their
 * duration; nothing elsewhere.  0, or ENOMEM. */
static int fs__pipeline_line(const fs_results *r, size_t p, size_t i, FILE *fp)
{
    const fs_scenario *s = r->policies[p].scenario;
    const fs_training_spec *spec = &s->training[i];
    bool root = fs_training_is_root(s, i), deploy = spec->deploy_service != SIZE_MAX;
    fs_pipeline_summary pl;
    if (!root && !deploy)
        return 0;
    if ((deploy ? fs_results_rollout_summary : fs_results_pipeline_summary)(r, p, i, &pl) != 0)
        return ENOMEM;
    fputs(deploy ? "rollouts: training " : "pipeline: training ", fp);
    fs__name(fp, spec->name, (int)strlen(spec->name));
    if (deploy) {
        const char *svc = s->services[spec->deploy_service].name;
        fputs(": service ", fp);
        fs__name(fp, svc, (int)strlen(svc)); /* typed by the user: through the terminal's filter */
        fprintf(fp, ", %.4g of %.4g rollouts completed (%.4g open)", pl.completed.mean, pl.started.mean,
                pl.open.mean);
        if (pl.cycles)
            fprintf(fp, "; duration mean %.1f s, p50 %.1f s, p95 %.1f s, max %.1f s", pl.cycle_mean_s,
                    pl.cycle_p50_s, pl.cycle_p95_s, pl.cycle_max_s);
        fputc('\n', fp);
        return 0;
    }
    fprintf(fp, ": %.4g of %.4g iterations completed (%.4g unfinished, %.4g open)", pl.completed.mean,
            pl.started.mean, pl.unfinished.mean, pl.open.mean);
    if (pl.cycles)
        fprintf(fp, "; cycle mean %.1f m, p50 %.1f m, p95 %.1f m, max %.1f m", pl.cycle_mean_s / 60,
                pl.cycle_p50_s / 60, pl.cycle_p95_s / 60, pl.cycle_max_s / 60);
    fputc('\n', fp);
    return 0;
}

/* One row per training stream: jobs, queue wait, preemptions, work. */
static int fs__training_rows(const fs_results *r, size_t p, int w, FILE *fp, fs_error *err)
{
    const fs_scenario *s = r->policies[p].scenario;
    fputc('\n', fp);
    fs__name(fp, "training", w);
    fprintf(fp, " %9s %9s %9s %9s %9s %11s %11s %11s %10s %11s %11s\n", "submitted", "completed", "running",
            "waiting", "preempted", "wait p50 m", "wait p95 m", "wait max m", "start-up s", "done GPU-h",
            "lost GPU-h");
    bool censored = false;
    for (size_t i = 0; i < s->n_training; i++) {
        fs_training_summary sum;
        if (fs_results_training_summary(r, p, i, &sum) != 0)
            return fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
        /* Jobs still waiting at the horizon count with their wait so far:
         * the wait figures are then lower bounds. */
        bool low = sum.waits_censored.mean > 0;
        censored |= low;
        char p50[16], p95[16], max[16], startup[16];
        fs__name(fp, s->training[i].name, w);
        fprintf(fp, " %9.4g %9.4g %9.4g %9.4g %9.4g %11s %11s %11s %10s %11.1f %11.1f\n", sum.submitted.mean,
                sum.completed.mean, sum.running_end.mean, sum.waiting_end.mean, sum.preemptions.mean,
                fs__fig(p50, sizeof p50, sum.wait_p50_s / 60, low), fs__fig(p95, sizeof p95, sum.wait_p95_s / 60, low),
                fs__fig(max, sizeof max, sum.wait_max_s / 60, low), fs__fig(startup, sizeof startup, sum.startup_mean_s, false),
                sum.gpu_hours_done.mean, sum.gpu_hours_lost.mean);
        if (sum.refused_impossible.mean > 0) {
            fputs("refused: training ", fp);
            fs__name(fp, s->training[i].name, (int)strlen(s->training[i].name));
            fprintf(fp, ": %.4g jobs asked for more GPUs than any pool holds and never ran\n",
                    sum.refused_impossible.mean);
        }
        if (fs__pipeline_line(r, p, i, fp) != 0)
            return fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
        if (s->training[i].has_release) { /* training_release.h: parts of checkpoint and start-up */
            fputs("release: training ", fp);
            fs__name(fp, s->training[i].name, (int)strlen(s->training[i].name));
            fprintf(fp, ": %.4g releases; release checkpoints %.4g GPU-h, reloads %.4g GPU-h\n", sum.releases.mean,
                    sum.release_checkpoint_hours.mean, sum.release_reload_hours.mean);
        }
    }
    if (censored)
        fputs(">= : censored: jobs still waiting at the horizon count with their wait so far (a lower bound)\n",
              fp);
    return FS_OK;
}

int fs_table_write(const fs_results *r, FILE *fp, fs_error *err)
{
    const fs_scenario *s = r->scenario;
    char horizon[32], warmup[32], window[32];
    fs_duration_format(s->horizon_s, horizon, sizeof horizon);
    fs_duration_format(s->warmup_s, warmup, sizeof warmup);
    fs_duration_format(s->window_s, window, sizeof window);
    fputs("scenario ", fp);
    fs__name(fp, s->name, (int)strlen(s->name));
    fprintf(fp, ": horizon %s, warm-up %s, window %s, seed %llu, %u replication%s\n", horizon,
            warmup, window, (unsigned long long)s->seed, s->replications,
            s->replications == 1 ? "" : "s");
    int w = fs__name_width(r, 8);
    for (size_t p = 0; p < r->n_policies; p++) {
        const fs_policy_result *pol = &r->policies[p];
        s = pol->scenario;
        fputs("\npolicy ", fp);
        fs__name(fp, pol->name, (int)strlen(pol->name));
        fputc('\n', fp);
        if (s->n_services == 0) {
            fputs("no services (a training-only scenario)\n", fp);
        } else if (s->n_services > FS_TABLE_MAX_SERVICE_ROWS) {
            int rc = fs__services_aggregate(r, p, fp, err);
            if (rc != FS_OK)
                return rc;
        } else {
            int rc = fs__services_rows(r, p, w, fp, err);
            if (rc != FS_OK)
                return rc;
        }
        if (s->n_training) {
            int rc = fs__training_rows(r, p, w, fp, err);
            if (rc != FS_OK)
                return rc;
        }
        fputc('\n', fp);
        fs__name(fp, "pool", w);
        fprintf(fp, " %-16s %6s %10s %10s %9s %7s %9s %11s %10s %9s\n", "gpu", "gpus", "GPU-hours",
                "busy GPU-h", "switch GPU-h", "util", "headroom", "cost USD", "energy kWh", "stranded");
        for (size_t i = 0; i <= s->n_pools; i++) {
            bool fleet = i == s->n_pools;
            fs_pool_summary sum;
            if ((fleet ? fs_results_fleet_summary(r, p, &sum) : fs_results_pool_summary(r, p, i, &sum)) != 0)
                return fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
            unsigned gpus = 0;
            double memory = 0, stranded = 0;
            for (size_t k = fleet ? 0 : i; k < (fleet ? s->n_pools : i + 1); k++) {
                gpus += s->pools[k].gpus;
                memory += s->pools[k].gpus * s->gpu_types[s->pools[k].gpu_type].memory_gb;
                stranded += pol->placement->pools[k].stranded_memory_gb;
            }
            fs__name(fp, fleet ? "fleet" : s->pools[i].name, w);
            fputc(' ', fp);
            fs__name(fp, fleet ? "" : s->pools[i].gpu, 16);
            char util[16], headroom[16];
            fprintf(fp, " %6u %10.1f %10.1f %12.2f %7s %9s %11.2f %10.1f %8.1f%%\n", gpus,
                    sum.gpu_hours.mean, sum.busy_gpu_hours.mean, sum.switch_gpu_hours.mean,
                    fs__percent(util, sizeof util, sum.utilization.mean),
                    fs__percent(headroom, sizeof headroom, sum.peak_headroom.mean), sum.cost_usd.mean,
                    sum.energy_kwh.mean, memory > 0 ? 100 * stranded / memory : 0);
            if (fleet && isnan(sum.cost_per_million_requests.mean))
                fputs("cost per million requests: no data (no request completed)\n", fp);
            else if (fleet)
                fprintf(fp, "cost per million requests: %.2f USD\n", sum.cost_per_million_requests.mean);
        }
        for (size_t i = 0; i < s->n_services; i++) {
            const fs_service_load *load = &pol->loads[i];
            if (!(load->offered_load >= 1.0)) /* NaN: no data, no evidence of overload */
                continue;
            fputs("\nUNSTABLE: service ", fp);
            fs__name(fp, s->services[i].name, (int)strlen(s->services[i].name));
            fprintf(fp, ": arrivals (%.4g/s on average) exceed capacity (%.4g/s), offered load %.2f: ",
                    load->mean_rps, load->capacity_rps, load->offered_load);
            fs_service_summary sum;
            if (fs_results_service_summary(r, p, i, &sum) != 0)
                return fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
            if (sum.queue == FS_QUEUE_UNBOUNDED) {
                fputs("the queue grew without bound\n", fp);
                continue;
            }
            fprintf(fp, "the queue is bounded at its limit, dropping %.2f%%", 100 * sum.drop_fraction.mean);
            if (sum.drop_fraction.valid)
                fprintf(fp, " ±%.2f", 100 * sum.drop_fraction.half_width);
            fputs(" of arrivals\n", fp);
        }
    }
    if (ferror(fp))
        return fs_error_set(err, FS_ERR_RUNTIME, "cannot write the table");
    return FS_OK;
}

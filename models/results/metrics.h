/*
 * metrics — one run's headline figures by name, and their summary across
 * replications: what sweeps, shards and plans store, merge and compare.
 *
 * A run here is one replication of one policy of one scenario.  Its figures
 * are named the way constraints name them:
 *
 *   service:NAME.p99_ms   .p50_ms .p95_ms .p999_ms .mean_ms .max_ms
 *                         .throughput_rps .requests .completed .dropped
 *                         .drop_rate .wait_mean_ms .wait_probability
 *                         .slo_breach_windows .slo_breach_windows_per_week
 *                         .mean_ready_replicas .in_flight_start
 *                         .in_flight_end .mean_in_system .queue_growth_per_h
 *                         .unfinished_past_slo (past the tightest target)
 *                         batched services only ("batching"): .batches
 *                         .batch_mean (over all runs: per batch, as in
 *                         results.json) .batch_p95 (mean over runs)
 *                         LLM services ("continuous"): .ttft_p50
 *                         .ttft_p99 .tpot_p50 .tpot_p99 (ms) .tokens_per_s
 *                         .tokens_per_gpu_s .cost_per_million_tokens
 *                         .goodput (0..1) .mean_running .kv_occupancy
 *                         (0..1) .preemptions
 *   pool:NAME.  and fleet.  gpu_hours busy_gpu_hours idle_gpu_hours
 *                         switch_gpu_hours utilization cost_usd energy_kwh
 *                         peak_headroom
 *                         (fleet also cost_per_million, spot_reclaims, and
 *                         slo_breach_windows and dropped summed over services)
 *   training:NAME.        submitted started completed preemptions
 *                         gpu_hours_done gpu_hours_lost waiting_end
 *                         running_end waits_censored refused_impossible
 *                         queue_mean_s queue_p50_s queue_p95_s queue_max_s
 *                         startup_mean_s (NaN with no start-up measured)
 *                         gpu_hours_failed gpu_hours_cancelled failed_jobs
 *                         cancelled
 *                         a pipeline's root stream also: iterations_started
 *                         iterations_completed cycle_mean_s cycle_p50_s
 *                         cycle_p95_s cycle_max_s (the replication's own
 *                         completed iterations; NaN with none)
 *
 * A figure with no data (a latency with no completion) is NaN, written as
 * null in JSON and read back as NaN; summaries leave such runs out of the
 * interval, and a plan never judges it to meet a constraint.
 *
 * Each run also keeps its latency (service:NAME.latency), an LLM service's
 * service:NAME.ttft and .tpot, and queue-wait (training:NAME.wait)
 * histograms, so a summary's quantiles come from the exact merge of every
 * replication's histogram, wherever each one ran, and its 95% CI from the spread of the per-replication values (Student t).
 * Every other figure is the mean across replications with its CI.
 *
 * A run's record serializes to JSON and back without loss (doubles with 17
 * significant digits, histograms as their non-zero buckets), so a summary
 * computed from files written on other machines is bit-for-bit the one a
 * single process computes, provided runs are summarized in the same order.
 *
 * Ownership: fs_metrics and fs_metric_row own their names, arrays and
 * histograms; fs_metrics_fini / fs_metric_row_fini free them.
 */
#ifndef FS_METRICS_H
#define FS_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "hist.h"
#include "results.h"

struct json_t;

typedef struct fs_metrics {
    size_t n_values;
    char **names;
    double *values;
    size_t n_hists;
    char **hist_names;
    fs_hist *hists;
    uint64_t events;
    char *refused;    /* non-NULL: the run could not start (a replica fits nowhere): why */
} fs_metrics;

/* Records policy `policy`, replication index `rep` of r.  FS_OK or
 * FS_ERR_RUNTIME (out of memory). */
int fs_metrics_from_run(const fs_results *r, size_t policy, uint32_t rep, fs_metrics *out, fs_error *err);

/* A run that could not start: no figures, the reason kept. */
int fs_metrics_refused(const char *why, fs_metrics *out, fs_error *err);

void fs_metrics_fini(fs_metrics *m);

/* The run as a JSON object (new reference, NULL when out of memory). */
struct json_t *fs_metrics_to_json(const fs_metrics *m);

/* Back from that object; `origin` names it in errors.  FS_OK or FS_ERR_INPUT. */
int fs_metrics_from_json(const struct json_t *obj, const char *origin, fs_metrics *out, fs_error *err);

/* Runs summarized: names in the first run's order (later runs' extra names
 * appended), each with its value and CI half-width (NaN when fewer than two
 * replications had it). */
typedef struct fs_metric_row {
    size_t n;
    char **names;
    double *value;
    double *ci95;
    uint32_t replications;
    uint64_t events;
    char *refused;   /* every run refused: why (then n == 0) */
} fs_metric_row;

/* Summarizes runs[0..n-1] (n >= 1), in that order.  FS_OK or FS_ERR_RUNTIME. */
int fs_metric_row_summarize(const fs_metrics *runs, size_t n, fs_metric_row *out, fs_error *err);
void fs_metric_row_fini(fs_metric_row *row);

/* Index of a figure in the row, or SIZE_MAX. */
size_t fs_metric_row_find(const fs_metric_row *row, const char *name);

#endif

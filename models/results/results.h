/*
 * results — what a run produced, per replication, and its summary.
 *
 * A run of a scenario produces, for each policy (the scenario's
 * `policies`, or the one policy "default" of a scenario without them) and
 * each replication, the figures of every service and pool: counters, a
 * latency histogram, stability measures and the per-window time series.
 * The fs_results_*_summary functions combine replications: histograms merge
 * exactly, every other figure gets its mean and 95% confidence interval
 * across replications.  reports/ reads these structures and never runs a
 * simulation.
 *
 * Memory does not grow with services x replications: as each replication
 * ends (fs_results_seal_rep) its histograms are merged into its policy's,
 * the figures every output takes from them one replication at a time are
 * kept (fs_results_rep_q), and beyond FS_RESULTS_KEEP_HIST_BYTES of kept
 * counters the replication's own are freed (fs_hist_drop_counts); past
 * FS_RESULTS_KEEP_REP_BYTES its records go to disk (fs_results_service_rep
 * reads them back), and between replications the merged histograms may wait
 * on disk (FS_RESULTS_KEEP_MERGED_BYTES).  Nor with
 * windows, when the run has a window sink (windows.h): each closed window
 * goes to it instead of the per-window arrays below, which then stay empty,
 * and the figures outputs take from windows are kept as they close.
 *
 * Ownership: fs_results owns every array and histogram in it and the
 * placement, and borrows the scenario (which must outlive it).  fs_results_destroy frees everything.
 */
#ifndef FS_RESULTS_H
#define FS_RESULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hist.h"
#include "intern.h"
#include "placement.h"
#include "scenario.h"
#include "settle.h"
#include "span.h"
#include "summary.h"

#define FS_RESULTS_SCHEMA "fleetsim-results/1"

/* The per-replication figures of a histogram that outputs read (q as
 * fs_results_hist_figure: -1 the mean, 2 the maximum): the CIs across
 * replications, compare's paired differences and each replication's record
 * need only these, so they are taken when a replication ends. */
#define FS_RESULTS_REP_FIGS 6
extern const double fs_results_rep_q[FS_RESULTS_REP_FIGS]; /* -1, 0.50, 0.95, 0.99, 0.999, 2 */

/* Counters of replications' own histograms a run keeps, all together, for
 * who reads them one replication at a time (tests; a sweep's run record is
 * a run of one replication, whose accessor gives the merged histogram);
 * past it a replication keeps only its figures and summary (a run of 5,000
 * services would otherwise keep about 4 KB per service per replication,
 * 16-bit counters over some fifteen octaves).  4 MiB holds every shipped
 * scenario's and a test's; 32 MiB was a third of a 5,000-service run's
 * memory for nobody's use. */
#define FS_RESULTS_KEEP_HIST_BYTES ((size_t)4 << 20)

/* Sealed replications' service records (fs_service_rep, some 800 bytes
 * each) a run keeps in memory, all together.  Past it a sealed
 * replication's records go to a scratch file (spool.h) and are read back a
 * block at a time (fs_results_service_rep): 5,000 services would otherwise
 * keep 4 MB a replication, 400 MB at 100.  A replication whose histograms
 * kept their counters, or whose windows were kept in memory (no window
 * sink), stays in memory: its records point into them. */
#define FS_RESULTS_KEEP_REP_BYTES ((size_t)8 << 20)
/* Records of one spilled replication read back at once. */
#define FS_RESULTS_REP_BLOCK 32

/* One time-series window of one service. */
typedef struct fs_service_window {
    double start_s, end_s;
    uint64_t arrivals, completed, dropped;
    double mean_ms, p50_ms, p95_ms, p99_ms, max_ms; /* of completions in the window; NaN (no data) if none */
    double mean_in_system;   /* time average of requests waiting or in service */
    uint64_t queue_end;      /* requests waiting at the window's end */
    /* An LLM service's (NaN, 0 otherwise): TTFT and TPOT p99 of the window's
     * first tokens and completions (NaN: none), time-average running
     * sequences and KV-cache occupancy (blocks used / blocks of ready
     * replicas; NaN with no replica), tokens emitted. */
    double ttft_p99_ms, tpot_p99_ms, mean_running, kv_occupancy;
    uint64_t tokens;
} fs_service_window;

/* One time-series window of one pool. */
typedef struct fs_pool_window {
    double start_s, end_s;
    double busy_gpus;        /* time-average busy compute, in GPUs */
    double gpus;             /* GPUs provisioned at the window's end */
    double utilization;      /* busy_gpus / gpus */
} fs_pool_window;

/* One service in one replication; figures cover [warmup, horizon]. */
typedef struct fs_service_rep {
    uint64_t requests;        /* arrivals */
    uint64_t completed;
    uint64_t dropped;         /* arrivals refused because the queue was at its limit */
    uint64_t in_flight_start; /* waiting or in service at the warm-up instant */
    uint64_t in_flight_end;   /* waiting or in service at the horizon */
    uint64_t waited;          /* requests that started service after waiting */
    uint64_t started;         /* requests that started service */
    double wait_sum_s;        /* total waiting time of requests that started service */
    fs_hist latency;          /* response time (wait + service) of completions (counters may be dropped: see top) */
    /* Figures of latency, ttft and tpot at fs_results_rep_q, in ns (NaN: no
     * value recorded), taken when the replication ended. */
    double latency_figs[FS_RESULTS_REP_FIGS], ttft_figs[FS_RESULTS_REP_FIGS], tpot_figs[FS_RESULTS_REP_FIGS];
    /* The same in FS_SETTLE_BATCHES time batches (settle.h), while the
     * replication runs: an entry of fs_rep_result.settle, NULL once sealed
     * (folded into the policy's fs_settle_fold).  What they held stays:
     * batches closed and values in them (= completed: none lost). */
    fs_settle_batches *batches;
    uint32_t batches_closed;
    uint64_t batched;
    double mean_in_system;    /* time average, for Little's law */
    uint64_t peak_queue;      /* most requests waiting at once */
    double mean_ready_replicas; /* time average of replicas ready to serve */
    uint64_t replicas_added;  /* replicas that became ready during the run (autoscaling) */
    /* "spill": its requests served by the service it spills to (counted
     * here too: requests, completed, latency), and requests of others
     * served by its replicas (in none of its other figures). */
    uint64_t spill_out, spill_in;
    double queue_growth_per_h;/* least-squares slope of queue length at window ends */
    /* Taken as windows close (windows.h), whether or not the rows are kept:
     * windows closed, the busiest window's arrivals per second (0: none
     * with a length), the worst window p99 (NaN: no window completed
     * anything), and the running means of the growth fit's points. */
    size_t windows_closed;
    double peak_window_rps, worst_window_p99_ms;
    double growth_mean_x, growth_mean_y;
    uint32_t slo_windows;     /* complete SLO windows */
    uint32_t slo_breach_windows;
    /* Requests still waiting or in service at the horizon whose age
     * (horizon - arrival) already exceeds SLO target j's threshold: misses
     * whatever their latency turns out to be (censored, not lost). */
    uint64_t unfinished_past_slo[FS_SLO_MAX_TARGETS];
    /* Kept only when the run has no window sink (windows.h); a sink gets
     * them as they close instead, and these stay empty. */
    double *slo_breach_starts;/* start of every breached SLO window (for heatmaps) */
    size_t n_slo_breaches, cap_slo_breaches;
    fs_service_window *windows;
    size_t n_windows, cap_windows;
    /* A replayed trace, over the whole run from t = 0 (warm-up included):
     * rows replayed = completed + dropped + in_flight_end (conservation). */
    bool traced;
    uint64_t trace_rows, trace_skipped, trace_completed, trace_dropped;
    uint64_t trace_filtered;  /* rows its "where" filters dropped (trace.h) */
    double trace_demand_s;    /* sized trace requests: their service demands, summed */
    /* A replayed trace's arrivals in the measured interval [warmup,
     * horizon], noted as each row is scheduled (span.h: count, first and
     * last, busiest clock hour): what its load is taken from (fs_service_load).
     * Empty (n = 0) for any other service. */
    fs_span arrival_span;
    /* A batched service ("batching"): of the batches started since the
     * warm-up instant, how many had each size, [max_batch_size + 1] (index =
     * size; owned; NULL for a service without batching). */
    uint64_t *batch_size_counts;
    /* An LLM service ("batching": {"kind": "continuous"}; batch sizes above
     * are sequences per engine step, max_batch_size = max_seqs), since the
     * warm-up instant.  The histograms stay empty for another service. */
    bool llm;
    fs_hist ttft;             /* arrival to first token, ns */
    fs_hist tpot;             /* (last token - first token) / (output - 1), requests of >= 2 tokens, ns */
    uint64_t prompt_tokens, output_tokens; /* of the requests completed */
    uint64_t tokens_generated;/* every token emitted (incl. recomputed ones' first) */
    uint64_t steps, preemptions;
    uint64_t too_long;        /* refused: prompt + output over max_model_len or any replica's cache (also in dropped) */
    uint64_t slo_good;        /* completed within every TTFT, TPOT and end-to-end target (goodput) */
    uint64_t ttft_late_end;   /* unfinished at the horizon, no first token, older than the TTFT target */
    uint64_t tpot_late_end;   /* unfinished at the horizon, first token out, already slower than the TPOT target */
    double mean_running;      /* time average of running sequences, all replicas */
    double kv_occupancy;      /* time average of KV blocks used / blocks of ready replicas; NaN: none */
    double busy_s;            /* replica-seconds with a step in flight */
    /* With a prefix cache: prompt tokens (and recomputed contexts) of the
     * sequences admitted, and of those found cached (prefill skipped). */
    uint64_t prefill_queried, prefill_cached;
    /* Disaggregated: KV transfers finished, their seconds from the end of
     * the prefill (link queueing included) and bytes; ready decode
     * replicas, time average (mean_ready_replicas counts the prefill ones). */
    uint64_t kv_transfers;
    double kv_transfer_s, kv_transfer_bytes;
    double mean_ready_decode;
    /* Over the whole run (replayed tokens): for capacity estimates. */
    double all_prompt_tokens, all_output_tokens;
} fs_service_rep;

typedef struct fs_pool_rep {
    double gpu_s;             /* provisioned GPU-seconds */
    double busy_gpu_s;        /* busy compute GPU-seconds (serving or training) */
    double switching_gpu_s;   /* GPU-seconds spent evicting and warming tenants */
    double idle_gpu_s;        /* the rest; provisioned = busy + switching + idle (conservation) */
    uint64_t repartitions;    /* MIG layout switches begun (a pool with several layouts) */
    double reconfigure_gpu_s; /* GPU-seconds switching layout: part of switching_gpu_s */
    double least_headroom;    /* share of GPUs idle in its busiest window (NaN: never held a GPU) */
    fs_pool_window *windows;  /* kept only without a window sink, as fs_service_rep.windows */
    size_t n_windows, cap_windows;
} fs_pool_rep;

/* One training stream in one replication; figures cover [warmup, horizon]. */
typedef struct fs_job_wait {
    double submitted_s, wait_s;
    uint32_t tenant;          /* 0: the stream's tenant; k >= 1: the trace's (fs_training_rep.tenants) */
} fs_job_wait;

/* Conservation over the measured interval:
 *   in_flight_start + submitted
 *     = completed + failed_jobs + cancelled + running_end + waiting_end + refused_impossible. */
typedef struct fs_training_rep {
    uint64_t submitted, started, completed, preemptions;
    fs_job_wait *waits;       /* every job that started, in start order (for CDFs) */
    size_t n_waits, cap_waits;
    /* Submission to first admission (the gang granted; its warm-up is
     * start-up, below), of jobs admitted, and (censored) the wait so far of
     * jobs never admitted by the horizon: with any
     * censored wait its quantiles are lower bounds. */
    fs_hist wait;
    double wait_figs[FS_RESULTS_REP_FIGS]; /* as fs_service_rep.latency_figs */
    uint64_t waits_censored;  /* of those, jobs that had not started at the horizon */
    uint64_t in_flight_start; /* jobs queued, warming or running at the warm-up instant */
    uint64_t waiting_end;     /* jobs still waiting at the horizon (first start, after preemption, or
                               * released in their stream's release window) */
    uint64_t running_end;     /* jobs warming or running at the horizon */
    uint64_t refused_impossible; /* trace jobs asking for more GPUs than any pool holds (--lenient) */
    double gpu_hours_done;    /* useful work: completed jobs' and progress kept by checkpoints */
    double gpu_hours_lost;    /* work lost to preemption (since the last checkpoint) */
    /* Failures and cancellations (fs_training_spec): attempts that failed,
     * jobs that gave up after their last retry, retries, jobs cancelled. */
    uint64_t failures, failed_jobs, retries, cancelled;
    /* GPU-hours by what the units its jobs held did, each grant to its
     * release, measured: held = startup + checkpoint + gpu_hours_done +
     * gpu_hours_lost + failed + cancelled + open, exactly over a run
     * measured from t = 0 (with a warm-up, a job straddling it counts each
     * piece when it ends).  startup: grant to the last member warmed;
     * checkpoint: writing checkpoints; failed, cancelled: compute since the
     * last checkpoint lost that way; open: compute not yet kept at the
     * horizon. */
    struct fs_training_hours {
        double held, startup, checkpoint, failed, cancelled, open;
    } hours;
    /* Start-up, apart from the queue wait: from a gang's grant to its last
     * member warmed up (context, framework, state), every admission that
     * finished warming while measured. */
    uint64_t startups;
    double startup_s;
    /* The tenants a job trace's tenant column named, keys 1, 2, ... in the
     * order first submitted (owned; empty without such a column). */
    fs_intern tenants;
    /* A job trace, over the whole run from t = 0, as fs_service_rep counts one. */
    bool traced;
    uint64_t trace_rows, trace_skipped;
    /* A pipeline's root stream (one that others follow with "after";
     * models/workload/pipeline.h), over iterations started while measured:
     * started (its root job submitted), completed (the last job of every
     * branch done), unfinished (a job of it failed for good or was
     * cancelled), open at the horizon, and each completed one's cycle time
     * (root submission to its last job done; owned).  Zero elsewhere. */
    struct fs_pipeline_rep {
        uint64_t started, completed, unfinished, open;
        double *cycle_s;
        size_t n_cycles, cap_cycles;
    } pipeline;
    /* A stream with a release window (models/workload/training_release.h):
     * jobs that gave their gang back at a window's start (releases), the
     * GPU-hours of the checkpoints written for it (part of hours.checkpoint)
     * and of the warm-ups after one, state reloaded (part of hours.startup).
     * Zero elsewhere. */
    struct fs_release_rep {
        uint64_t releases;
        double checkpoint_gpu_hours, reload_gpu_hours;
    } release;
    /* A deploy step (models/workload/service_deploy.c), the same shape:
     * rollouts submitted while measured, those completed, those still in
     * progress or queued at the horizon, and each completed one's duration
     * in cycle_s (submission to its last old replica replaced; owned).
     * unfinished stays 0.  Zero elsewhere. */
    struct fs_pipeline_rep rollouts;
} fs_training_rep;

/* One team of the scenario's "quotas" in one replication (models/fleet/
 * quota.h), over [warmup, horizon]; units as gangs count them. */
typedef struct fs_quota_rep {
    double gpu_hours;          /* unit-hours its training jobs held, warming or running */
    double borrowed_gpu_hours; /* of those, held above its nominal quota */
    uint64_t reclaimed_jobs;   /* its jobs evicted so that a team within its quota could start */
} fs_quota_rep;

typedef struct fs_rep_result {
    uint32_t replication;
    fs_service_rep *services; /* scenario->n_services */
    fs_pool_rep *pools;       /* scenario->n_pools */
    fs_training_rep *training;/* scenario->n_training */
    fs_quota_rep *quotas;     /* scenario->n_quotas + 1 (the last: "unlisted"); NULL without quotas */
    double *blocked_minutes;  /* per tenant (fs_results.tenants): SLO-breach minutes charged to it */
    fs_settle_batches *settle;/* per service, the batches its entry points to; NULL once sealed */
    double fleet_least_headroom; /* as fs_pool_rep.least_headroom, every pool's GPUs together */
    uint64_t spot_reclaims;
    uint64_t events;
    bool sealed;              /* fs_results_seal_rep took its figures */
    bool counts_dropped;      /* and freed its histograms' counters (merged into the policy's) */
    /* Spilled (FS_RESULTS_KEEP_REP_BYTES): services is NULL and its
     * records are in the results' spool; this holds where, the block of
     * FS_RESULTS_REP_BLOCK of them last read (fs_rep_service) and their
     * batch counts (owned; results_spill.c). */
    struct fs_rep_block *spilled;
} fs_rep_result;

/* Analytic load of a service over the measured interval.
 *
 * A service drawing arrivals from a profile has its mean and peak from the
 * profile over [warmup, horizon].  A replayed trace (arrivals.trace) has
 * them from its replications' arrivals (fs_service_rep.arrival_span), over
 * what the trace covers, not over the whole interval, so that a two-hour
 * trace in a day's run shows its own rate, not a twelfth of it:
 *   - mean_rps: per replication, (arrivals - 1) / (last - first) over the
 *     arrivals at or after warm-up (span.h), then the mean over replications;
 *   - peak_rps: as for any service, the busiest time-series window's
 *     arrivals per second, the largest over replications;
 *   - peak_hour_rps: the busiest clock hour [h, h + 1 h) of the measured
 *     interval, its arrivals over its seconds in the interval (span.h), the
 *     largest over replications; span_s: the mean of last - first.
 * With fewer than two arrivals at or after warm-up in any replication (or
 * all at one instant) mean_rps, span_s, peak_hour_rps and the loads from
 * them are NaN: no data.  A profile's peak_hour_rps and span_s are NaN too:
 * outputs show them for replays only. */
typedef struct fs_service_load {
    double mean_rps, peak_rps;
    double capacity_rps;      /* sum over replicas of concurrency / (E[service time] x speed scale) */
    double offered_load;      /* mean_rps / capacity_rps: >= 1 means the queue grows without bound */
    double peak_offered_load; /* peak_rps / capacity_rps */
    double peak_hour_rps, span_s;
    double peak_hour_offered_load; /* peak_hour_rps / capacity_rps */
} fs_service_load;

/* A service's settling batches over a policy's sealed replications, folded
 * as each is sealed (fs_results_seal_rep), so a replication's 1 KB of batch
 * figures is not kept per service: what the settling diagnostics read. */
typedef struct fs_settle_fold {
    double avg_ms[FS_SETTLE_FIGURES][FS_SETTLE_BATCHES]; /* each batch's figure, mean over the replications */
    double lag1[FS_SETTLE_FIGURES];                       /* the lag-1 autocorrelation, mean over them */
    bool complete;                                        /* every one closed all its batches, none empty */
    bool comparable[FS_SETTLE_FIGURES];                   /* fs_settle_comparable held in every one */
} fs_settle_fold;

/* One policy (fleet) of the scenario: its variant, where its replicas ran,
 * the services' loads on it, and its replications. */
typedef struct fs_policy_result {
    const char *name;            /* the variant's policy name */
    const fs_scenario *scenario; /* borrowed: the variant (its pools) */
    fs_placement *placement;     /* owned */
    fs_service_load *loads;      /* owned, scenario->n_services */
    fs_rep_result *reps;
    uint32_t n_reps;
    /* The histograms of every sealed replication merged, in replication
     * order (owned): latency, ttft and tpot per service (the LLM ones empty
     * for another), queue wait per training stream. */
    fs_hist *latency, *ttft, *tpot, *wait;
    fs_settle_fold *settle;      /* per service (owned) */
    /* Between replications, with more to run, the merged histograms' counters
     * may wait on disk (FS_RESULTS_KEEP_MERGED_BYTES): parked, read back
     * one by one as the next replication is sealed, or all at once by the
     * first reader (fs_policy_result_unpark).  Owned; NULL: never parked. */
    struct fs_park *park;
} fs_policy_result;

typedef struct fs_results {
    const fs_scenario *scenario; /* borrowed: the root (settings shared by every policy) */
    const char **tenants;        /* every tenant of services and training, first-seen order (borrowed strings) */
    size_t n_tenants;
    fs_policy_result *policies;
    size_t n_policies;
    uint64_t events;             /* all replications */
    double wall_s;
    double peak_rss_mb;
    size_t kept_hist_bytes;      /* counters of replications' own histograms kept (FS_RESULTS_KEEP_HIST_BYTES) */
    size_t kept_rep_bytes;       /* sealed replications' service records in memory (FS_RESULTS_KEEP_REP_BYTES) */
    /* The budgets: FS_RESULTS_KEEP_HIST_BYTES, _REP_BYTES and _MERGED_BYTES
     * unless the run was given others (fs_run_watch.keep_bytes). */
    size_t keep_hist_max, keep_rep_max, keep_merged_max;
    struct fs_spool *rep_spool;  /* spilled replications' records (owned; NULL until the first) */
    int *spill_error;            /* owned: 0, or the errno of the first failed read of spilled records */
} fs_results;

/* Service `service`'s record in replication `rep` of a policy, the one way
 * outputs read a sealed replication's records: in memory, or for a spilled
 * replication a copy in its block (valid until the next call for the same
 * policy and replication that reads another block: take what is needed from
 * one record before asking for the next).  A failed read gives a record
 * with no data (NaN figures, zero counts) and sets fs_results_spill_error,
 * which every writer of outputs checks before it keeps them. */
const fs_service_rep *fs_rep__spilled(const fs_rep_result *rep, size_t service);
static inline const fs_service_rep *fs_rep_service(const fs_rep_result *rep, size_t service)
{
    return rep->services ? &rep->services[service] : fs_rep__spilled(rep, service);
}
static inline const fs_service_rep *fs_results_service_rep(const fs_results *r, size_t policy, uint32_t rep,
                                                           size_t service)
{
    return fs_rep_service(&r->policies[policy].reps[rep], service);
}

/* 0, or the errno of the first failed read of spilled records. */
int fs_results_spill_error(const fs_results *r);

/* Moves sealed replication k's records to the results' spool when the
 * records kept would pass FS_RESULTS_KEEP_REP_BYTES (fs_results_seal_rep
 * calls it).  0, or the errno of a failed write (the records then stay). */
int fs_results_spill_rep(fs_results *r, size_t policy, uint32_t k);
/* Merged histograms' counters a policy keeps in memory between its
 * replications while more are to run (its own or another policy's); past it
 * they are parked on disk until the next replication's seal merges into
 * them one by one: a run of 5,000 services would otherwise hold them (20
 * MB) beside the running replication's own. */
#define FS_RESULTS_KEEP_MERGED_BYTES ((size_t)4 << 20)

/* The policy's merged histograms in memory again if parked: every reader of
 * pol->latency, ttft, tpot and wait calls it first (through
 * fs_results_merged and the summaries).  A failed read leaves them without
 * counters (no quantile) and sets fs_results_spill_error. */
void fs_policy_result_unpark(const fs_policy_result *pol);

/* Parks the policy's merged histograms when they pass
 * FS_RESULTS_KEEP_MERGED_BYTES (fs_results_seal_rep, with more replications
 * to run).  0, or the errno of a failed write (they then stay in memory). */
int fs_results__park(fs_results *r, fs_policy_result *pol);
/* Seal: the next parked histogram's counters back into h (the order
 * fs_results__park wrote them), the last one ending the parking.  0 or
 * errno. */
int fs_results__unpark_next(fs_policy_result *pol, fs_hist *h);
bool fs_results__parked(const fs_policy_result *pol);
void fs_results__park_free(fs_policy_result *pol);

/* Frees a spilled replication's block and batch counts (fs_rep_result_fini). */
void fs_rep__free_spilled(fs_rep_result *rep, size_t n_services);

/* Batch sizes of a batched service over all replications of a policy (their
 * counts merged): batches per replication, mean, p50, p95 and largest size.
 * NaN (no data) when no batch started. */
typedef struct fs_batch_figures {
    double batches_per_rep, mean, p50, p95, max;
} fs_batch_figures;

fs_batch_figures fs_results_batch_figures(const fs_results *r, size_t policy, size_t service);

/* An LLM service's figures in one replication (NaN: no data; rates over the
 * measured interval).  goodput is the share of the interval's requests that
 * completed within every TTFT, TPOT and end-to-end target: requests dropped
 * or unfinished at the horizon count against it; NaN without targets or
 * requests.  prefix_hit_ratio is the share of admitted prompt tokens found
 * in a replica's prefix cache, prefill_saved_per_s those tokens per second
 * (NaN without a prefix cache).  kv_transfer_ms is a disaggregated service's
 * mean KV transfer, from the end of the prefill to the KV at the decode
 * side, link queueing included (NaN when aggregated or none finished).
 * GPU-seconds (per GPU-s, cost) count both groups of a disaggregated one. */
typedef enum fs_llm_figure {
    FS_LFIG_TOKENS_PER_S, FS_LFIG_TOKENS_PER_GPU_S, FS_LFIG_COST_PER_M_TOKENS, FS_LFIG_GOODPUT,
    FS_LFIG_MEAN_RUNNING, FS_LFIG_KV_OCCUPANCY, FS_LFIG_PREEMPTIONS, FS_LFIG_TOO_LONG,
    FS_LFIG_PREFIX_HIT_RATIO, FS_LFIG_PREFILL_SAVED_PER_S, FS_LFIG_KV_TRANSFER_MS, FS_LFIG_COUNT
} fs_llm_figure;
void fs_results_llm_figures(const fs_results *r, size_t policy, uint32_t rep, size_t service,
                            double fig[FS_LFIG_COUNT]);
/* Names of those figures ("tokens_per_s", ...), for every output. */
extern const char *const fs_llm_figure_names[FS_LFIG_COUNT];

/* What a run says about an LLM service's TTFT or TPOT target over the whole
 * run (merged histograms): the target's quantile with unfinished requests
 * already past it counted as later than any threshold (INFINITY when they
 * alone decide it), and the verdict (FS_SLO_NO_DATA without requests). */
typedef struct fs_llm_slo {
    double quantile_ms;
    int verdict; /* fs_slo_verdict */
} fs_llm_slo;

/* The same figures of replication `rep` alone: what compare's paired
 * differences and a sweep's per-run record are taken on, so every output
 * shares the one definition of a batch figure. */
fs_batch_figures fs_results_batch_rep_figures(const fs_results *r, size_t policy, uint32_t rep, size_t service);

/* Has one latency figure of a service settled?  Its 95% CI comes from the
 * replications when there are several, else from the batches of the one
 * replication (when they apply); the batch diagnostics apply when the load
 * is steady by design (a constant arrival rate with no random factor, no
 * autoscaler) and every
 * batch of every replication completed requests, and are then taken on the
 * batch series averaged over replications (lag-1: the replications' mean). */
typedef struct fs_settling {
    double value;         /* the figure, in ms (merged_*_ms) */
    double ci95;          /* half-width, in ms; NaN when no interval can be claimed */
    bool diagnosed;       /* diag holds the batch diagnostics (in ms) */
    fs_settle_diag diag;
    unsigned why;         /* 0: settled; else FS_SETTLE_* reasons */
} fs_settling;

/* Why a figure has not settled, in words (fs_settle_why), into buf. */
char *fs_settling_why(const fs_settling *st, char *buf, size_t size);

/* What a run says about a service's SLO target over the whole run. */
typedef enum fs_slo_verdict {
    FS_SLO_NO_DATA,           /* nothing completed and nothing is known to be late: no claim */
    FS_SLO_MET,
    FS_SLO_MISSED
} fs_slo_verdict;

/* Target t over a run: `merged` holds the completions, `late` requests were
 * unfinished past the threshold at the horizon and count as later than any.
 * The target's quantile (INFINITY when the late decide it, NaN with nobody)
 * and the verdict. */
void fs_results_judge(const fs_hist *merged, double late, const fs_slo_target *t, double *quantile_ms,
                      fs_slo_verdict *verdict);

/* What becomes of a service's queue when arrivals outrun capacity. */
typedef enum fs_queue_state {
    FS_QUEUE_STABLE,          /* offered load < 1 */
    FS_QUEUE_UNBOUNDED,       /* offered load >= 1, no queue_limit: it grows without bound */
    FS_QUEUE_AT_LIMIT         /* offered load >= 1, bounded at queue_limit: the excess is dropped */
} fs_queue_state;

/* Summary of one service across replications.  A figure with no data (a
 * latency with no completion) is NaN, never 0: see fs_results_percentile. */
typedef struct fs_service_summary {
    fs_summary requests, completed, dropped, in_flight_start, in_flight_end;
    fs_summary mean_ms, p50_ms, p95_ms, p99_ms, p999_ms; /* per-replication spread, for the CI */
    double merged_mean_ms, merged_p50_ms, merged_p95_ms, merged_p99_ms, merged_p999_ms, merged_max_ms;
    fs_summary wait_mean_ms, wait_probability;
    fs_summary mean_in_system, throughput_rps;
    fs_summary slo_breach_windows, slo_breach_windows_per_week;
    fs_summary queue_growth_per_h;
    fs_summary mean_ready_replicas;
    fs_summary drop_fraction;  /* dropped / arrivals, per replication */
    uint32_t slo_windows;
    /* Per SLO target: requests unfinished past it at the horizon (mean over
     * replications), the verdict over the whole run, and the target's
     * quantile with those requests counted as later than any threshold
     * (merged; INFINITY when they alone decide it, NaN with no data). */
    fs_summary unfinished_past_slo[FS_SLO_MAX_TARGETS];
    fs_slo_verdict slo_verdict[FS_SLO_MAX_TARGETS];
    double slo_quantile_ms[FS_SLO_MAX_TARGETS];
    bool queue_unbounded;     /* offered load >= 1 and no queue_limit */
    fs_queue_state queue;
    fs_settling settling[FS_SETTLE_FIGURES]; /* mean, p50, p95, p99, p999 (fs_settle_figure) */
    bool ci_from_batches;     /* one replication: settling[].ci95 comes from its batches */
} fs_service_summary;

/* A pool's or the fleet's figures across replications.  Busy GPU-hours
 * weigh a busy MIG instance by its share of the GPU's SMs; cost accrues for
 * every provisioned GPU-hour, busy or idle, at the pool's price class; energy
 * is idle power over idle GPU-hours plus busy power over busy GPU-hours;
 * peak headroom is the share of GPUs idle in the busiest window. */
typedef struct fs_pool_summary {
    fs_summary gpu_hours, busy_gpu_hours, idle_gpu_hours, utilization;
    fs_summary switch_gpu_hours;          /* evicting and warming tenants */
    fs_summary cost_usd, energy_kwh, peak_headroom;
    fs_summary cost_per_million_requests; /* fleet only: cost / completed requests */
} fs_pool_summary;

/* One training stream across replications: counts are means; queue-wait
 * figures come from the merged histogram (fs_results_percentile), in
 * seconds, NaN with no data; with waits_censored > 0 they are lower bounds
 * (jobs still waiting at the horizon count with their wait so far). */
typedef struct fs_training_summary {
    fs_summary submitted, started, completed, preemptions, gpu_hours_done, gpu_hours_lost, waiting_end;
    fs_summary running_end, in_flight_start, refused_impossible, waits_censored;
    fs_summary failures, failed_jobs, retries, cancelled;
    /* fs_training_rep.hours, per replication */
    fs_summary hours_held, hours_startup, hours_checkpoint, hours_failed, hours_cancelled, hours_open;
    fs_summary releases, release_checkpoint_hours, release_reload_hours; /* fs_training_rep.release */
    double wait_p50_s, wait_p95_s, wait_max_s, wait_mean_s;
    fs_summary wait_p50_spread, wait_p95_spread; /* per-replication, for the CI */
    /* Mean start-up (grant to every member warmed up) over every replication's
     * start-ups; NaN when none finished while measured. */
    double startup_mean_s;
} fs_training_summary;

/* A percentile across replications, the one definition every output uses
 * (table, JSON, CSV, compare, report, check, plan): the value is the
 * percentile of the histograms of every replication merged; its CI comes
 * from the spread of the per-replication percentiles (replications with no
 * data left out).  value is NaN when no replication recorded anything. */
typedef struct fs_percentile {
    double value;
    fs_summary spread;
} fs_percentile;

/* The histogram a percentile reads in one replication: a service's latency
 * or a training stream's queue wait.  Its counters may have been dropped
 * (fs_hist_has_counts): then, with a single replication, the accessors
 * return the policy's merged histogram, which holds the same values. */
typedef const fs_hist *(*fs_results_hist_fn)(const fs_results *r, size_t policy, uint32_t rep, size_t index);
const fs_hist *fs_results_latency_hist(const fs_results *r, size_t policy, uint32_t rep, size_t service);
const fs_hist *fs_results_wait_hist(const fs_results *r, size_t policy, uint32_t rep, size_t stream);
/* An LLM service's time to first token and time per output token. */
const fs_hist *fs_results_ttft_hist(const fs_results *r, size_t policy, uint32_t rep, size_t service);
const fs_hist *fs_results_tpot_hist(const fs_results *r, size_t policy, uint32_t rep, size_t service);

/* TTFT (tpot false) or TPOT target of an LLM service, judged as above.
 * 0 or ENOMEM. */
int fs_results_llm_slo(const fs_results *r, size_t policy, size_t service, bool tpot, fs_llm_slo *out);

/* An LLM service across a policy's replications, the one summary run,
 * results.json and report print: TTFT and TPOT p50/p99 in ms (merged
 * histograms, per-replication CI), the targets' verdicts, and each
 * fs_llm_figure as the mean of the replications that have it (NaN: none
 * has) with its CI.  0 or ENOMEM. */
typedef struct fs_llm_summary {
    fs_percentile ttft[2], tpot[2]; /* [0] p50, [1] p99 */
    fs_llm_slo ttft_slo, tpot_slo;
    fs_summary fig[FS_LFIG_COUNT];
} fs_llm_summary;
int fs_results_llm_summary(const fs_results *r, size_t policy, size_t service, fs_llm_summary *out);

/* q in [0, 1] a quantile, q < 0 the mean, q > 1 the maximum; scale converts
 * ns to the figure's unit.  0 or ENOMEM.  The service and training
 * summaries, compare, and through them every output, call these. */
int fs_results_percentile(const fs_results *r, size_t policy, fs_results_hist_fn hist, size_t index, double q,
                          double scale, fs_percentile *out);

/* The same for q[0..n_q-1] into out[0..n_q-1], merging the histograms once. */
int fs_results_percentiles(const fs_results *r, size_t policy, fs_results_hist_fn hist, size_t index,
                           const double *q, size_t n_q, double scale, fs_percentile *out);

/* One histogram's figure (q as above) times scale; NaN when it is empty. */
double fs_results_hist_figure(const fs_hist *h, double q, double scale);

/* A replication's kept figure (figs: fs_service_rep.latency_figs and the
 * like) at q, one of fs_results_rep_q, times scale: the value
 * fs_results_hist_figure gave on its histogram, bit for bit; NaN when empty. */
double fs_results_rep_figure(const double figs[FS_RESULTS_REP_FIGS], double q, double scale);

/* Ends replication k of a policy: takes its histograms' figures, merges them
 * into the policy's (replications must be sealed in order, as they run) and
 * drops its counters past FS_RESULTS_KEEP_HIST_BYTES.  Every summary and
 * output reads sealed replications only.  0 or ENOMEM. */
int fs_results_seal_rep(fs_results *r, size_t policy, uint32_t k);

/* fs_summary_of over the figures that are not NaN (a replication without
 * data says nothing); mean NaN and valid false when none is. */
fs_summary fs_results_summary_known(const double *x, size_t stride, size_t n);

/* What a service is charged for: the GPU-hours its units hold (a MIG
 * instance holds compute slices / 7 of a GPU, a time-sliced seat 1 / tenants),
 * their cost at its pool's price, and its share of the fleet's cost. */
typedef struct fs_chargeback {
    double gpu_hours_held, cost_usd, share;
} fs_chargeback;

/* Allocates an empty result for the variants which[0..n-1] of the root
 * scenario s (which = NULL: every variant, in order), each with
 * s->replications replications.  0 or ENOMEM. */
int fs_results_create(const fs_scenario *s, const size_t *which, size_t n, fs_results **out);
void fs_results_destroy(fs_results *r);

/* Allocates the per-service/per-pool arrays of one replication (histograms
 * initialised).  0 or ENOMEM. */
int fs_rep_result_init(fs_rep_result *rep, const fs_scenario *s, uint32_t replication, size_t n_tenants);

/* Index of a tenant in r->tenants, or SIZE_MAX. */
size_t fs_results_tenant(const fs_results *r, const char *tenant);
void fs_rep_result_fini(fs_rep_result *rep, const fs_scenario *s);

/* Summaries across the replications of one policy.  Each returns 0 or ENOMEM. */
int fs_results_service_summary(const fs_results *r, size_t policy, size_t service,
                               fs_service_summary *out);
int fs_results_pool_summary(const fs_results *r, size_t policy, size_t pool, fs_pool_summary *out);

int fs_results_training_summary(const fs_results *r, size_t policy, size_t stream,
                                fs_training_summary *out);

/* A pipeline's iterations (fs_training_rep.pipeline) of root stream
 * `stream`: the counts per replication as fs_summary, and the completed
 * iterations' cycle times pooled over every replication (exact: nearest
 * rank over the cycles themselves; NAN without any).  0, or ENOMEM. */
typedef struct fs_pipeline_summary {
    fs_summary started, completed, unfinished, open;
    size_t cycles;
    double cycle_mean_s, cycle_p50_s, cycle_p95_s, cycle_max_s;
} fs_pipeline_summary;
int fs_results_pipeline_summary(const fs_results *r, size_t policy, size_t stream, fs_pipeline_summary *out);

/* One replication's completed cycles (a pipeline's iterations or a deploy
 * step's rollouts): mean, p50, p95 and max in seconds (nearest rank), NAN
 * without any.  0, or ENOMEM (all NAN). */
typedef struct fs_cycle_figures {
    double mean_s, p50_s, p95_s, max_s;
} fs_cycle_figures;
int fs_results_cycle_figures(const struct fs_pipeline_rep *pl, fs_cycle_figures *out);
/* The same over a deploy step's rollouts (fs_training_rep.rollouts): the
 * cycle figures are rollout durations. */
int fs_results_rollout_summary(const fs_results *r, size_t policy, size_t stream, fs_pipeline_summary *out);

/* One tenant's admitted jobs of a training stream, pooled over every
 * replication: how many, and their queue waits (exact: nearest rank over
 * the jobs' own waits; jobs never admitted are not among them). */
typedef struct fs_tenant_waits {
    const char *tenant;      /* borrowed from the results (or the scenario) */
    size_t admitted;
    double mean_s, p50_s, p95_s, max_s;
} fs_tenant_waits;

/* A stream's admitted waits by tenant (a job trace's tenant column, or the
 * stream's own), in tenant-name order; stream SIZE_MAX: every stream's
 * together, per team across streams.  *out malloc'd (NULL with none), *n
 * entries.  0 or ENOMEM. */
int fs_results_training_tenants(const fs_results *r, size_t policy, size_t stream, fs_tenant_waits **out,
                                size_t *n);

/* The figures behind a pool summary, for one replication (pool = SIZE_MAX:
 * the whole fleet), indexed by fs_pool_figure. */
typedef enum fs_pool_figure {
    FS_FIG_GPU_H, FS_FIG_BUSY_H, FS_FIG_IDLE_H, FS_FIG_UTIL, FS_FIG_COST, FS_FIG_ENERGY,
    FS_FIG_HEADROOM, FS_FIG_COST_PER_M, FS_FIG_SWITCH_H, FS_FIG_COUNT
} fs_pool_figure;
void fs_results_pool_figures(const fs_results *r, size_t policy, uint32_t replication, size_t pool,
                             double fig[FS_FIG_COUNT]);

/* The figures behind a service summary, for one replication, indexed by
 * fs_service_figure (times in ms, rates per second). */
typedef enum fs_service_figure {
    FS_SFIG_REQUESTS, FS_SFIG_COMPLETED, FS_SFIG_DROPPED, FS_SFIG_IN_FLIGHT_START, FS_SFIG_IN_FLIGHT_END,
    FS_SFIG_MEAN_MS, FS_SFIG_P50_MS, FS_SFIG_P95_MS, FS_SFIG_P99_MS, FS_SFIG_P999_MS, FS_SFIG_WAIT_MEAN_MS,
    FS_SFIG_WAIT_PROBABILITY, FS_SFIG_MEAN_IN_SYSTEM, FS_SFIG_THROUGHPUT_RPS, FS_SFIG_SLO_BREACH_WINDOWS,
    FS_SFIG_SLO_BREACH_WINDOWS_PER_WEEK, FS_SFIG_QUEUE_GROWTH_PER_H, FS_SFIG_MEAN_READY_REPLICAS,
    FS_SFIG_COUNT
} fs_service_figure;
void fs_results_service_figures(const fs_results *r, size_t policy, uint32_t replication, size_t service,
                                double fig[FS_SFIG_COUNT]);

/* The whole fleet (every pool; also fs_results_pool_summary with pool =
 * SIZE_MAX), per replication then summarized.  0 or ENOMEM. */
int fs_results_fleet_summary(const fs_results *r, size_t policy, fs_pool_summary *out);

/* results_region.c.  A region of a policy across replications
 * (fs_scenario.regions): the cost figures of its pools summed (utilization:
 * their busy over provisioned GPU-hours, NaN with none) and the counts of
 * its services: requests, completed and dropped (its own requests, wherever
 * served), spilled_out (of those, served in another region) and spilled_in
 * (other regions' requests its replicas served).  The regions' cost figures
 * add up to the fleet's. */
typedef struct fs_region_summary {
    fs_summary gpu_hours, busy_gpu_hours, utilization, cost_usd, energy_kwh;
    fs_summary requests, completed, dropped, spilled_out, spilled_in;
} fs_region_summary;
int fs_results_region_summary(const fs_results *r, size_t policy, size_t region, fs_region_summary *out);
/* The same figures of one replication, in that order. */
typedef enum fs_region_figure {
    FS_RFIG_GPU_H, FS_RFIG_BUSY_H, FS_RFIG_UTIL, FS_RFIG_COST, FS_RFIG_ENERGY, FS_RFIG_REQUESTS,
    FS_RFIG_COMPLETED, FS_RFIG_DROPPED, FS_RFIG_SPILLED_OUT, FS_RFIG_SPILLED_IN, FS_RFIG_COUNT
} fs_region_figure;
void fs_results_region_figures(const fs_results *r, size_t policy, uint32_t rep, size_t region,
                               double fig[FS_RFIG_COUNT]);
/* A service's fs_service_rep.spill_out and spill_in across replications.
 * 0 or ENOMEM. */
int fs_results_spill_summary(const fs_results *r, size_t policy, size_t service, fs_summary *spilled_out,
                             fs_summary *spilled_in);
/* Whether outputs show regions (more than one) and spills (any service
 * spills): otherwise they read as before regions existed. */
bool fs_results_regions_shown(const fs_scenario *s);
bool fs_results_spill_any(const fs_scenario *s);

/* Chargeback of one service (static: placement is fixed during a run). */
fs_chargeback fs_results_chargeback(const fs_results *r, size_t policy, size_t service);

/* Price per GPU-hour of a pool at its price class. */
double fs_results_pool_price(const fs_scenario *s, size_t pool);

/* Measured length of a run: horizon - warmup, in seconds. */
double fs_results_measured_s(const fs_results *r);

#endif

/*
 * scenario — the scenario file: parsed, validated, immutable.
 *
 * A scenario is a JSON document (schema "fleetsim/1") that describes a fleet
 * (pools of GPUs), the inference services placed on it, and how to run it
 * (horizon, warm-up, window, seed, replications).  This module turns the file
 * into an fs_scenario or an error that names the file and either
 * file:line:column (malformed JSON) or the JSON path and what was expected
 * (`services[2].slo.p99_ms: expected a positive number, got -5`).  Unknown
 * keys are refused with the closest valid key, so a typo is never ignored.
 *
 * Durations are accepted as strings ("7d", "90m", "250ms", "1h30m",
 * "2d 09:30") or as plain JSON numbers meaning seconds; every time stored
 * here is in seconds.
 *
 * Ownership: fs_scenario_load/parse allocate the whole scenario; the caller
 * releases it with fs_scenario_destroy.  Nothing in it is shared.
 */
#ifndef FS_SCENARIO_H
#define FS_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dist.h"
#include "error.h"
#include "gpu.h"
#include "llm_perf.h"
#include "llm_profile.h"
#include "mig.h"
#include "mps.h"
#include "trace.h"

#define FS_SCENARIO_SCHEMA "fleetsim/1"

/* ---- limits ----------------------------------------------------------------
 * What a scenario may ask for.  Each is far above what a real fleet or study
 * needs, and low enough that no count, allocation or run time derived from
 * it can overflow or run without end; the loader refuses anything beyond with
 * the JSON path and the limit (scenarios/README.md lists them). */
/* Two years: capacity plans look a year ahead, and a longer run says nothing
 * a year does not, at a hundred times a day's cost. */
#define FS_SCENARIO_MAX_HORIZON_S (2.0 * 365 * 86400)
/* SLO and time-series windows per service over horizon - warm-up.  `run`
 * and `compare` stream each window to its CSV as it closes (memory stays
 * flat), but each still costs its judging, a CSV row of about 100 bytes and
 * the report's read-back: ten million is 1 ms windows over 2.8 hours, or
 * 3 s windows over a year (about 1 GB of CSV a service). */
#define FS_SCENARIO_MAX_WINDOWS 10000000.0
/* GPUs in a pool (also an elastic pool's "max") and in one variant's fleet,
 * replicas of a service (also an autoscaler's "max"), a training gang:
 * today's largest fleets are ~1e5 GPUs. */
#define FS_SCENARIO_MAX_GPUS 100000
#define FS_SCENARIO_MAX_REPLICAS 100000
/* Seats of a time-sliced pool (GPUs, at an elastic pool's "max", x
 * tenants): placement there weighs every GPU for every replica (each GPU's
 * room depends on what it holds), O(seats x GPUs); shared dev pools are
 * small, and 20,000 seats place in well under a second. */
#define FS_SCENARIO_MAX_SHARED_SEATS 20000
/* Requests one replica serves at once: engines batch hundreds to a few
 * thousand; each level costs memory per replication. */
#define FS_SCENARIO_MAX_CONCURRENCY 65536
/* Requests in one dynamic batch: Triton deployments use up to a few hundred;
 * each replica keeps the arrival times of its batch in flight. */
#define FS_SCENARIO_MAX_BATCH_SIZE 4096
/* Points of a batch-time table and preferred batch sizes: fixed arrays, so a
 * service spec stays a plain struct. */
#define FS_SCENARIO_MAX_BATCH_TABLE 64
#define FS_SCENARIO_MAX_PREFERRED_BATCHES 16
/* A service's peak arrival rate (base x hourly profile x overlapping bursts),
 * and any one multiplier: a million requests a second is a hyperscaler's
 * whole front door, and every request is a simulated event. */
#define FS_SCENARIO_MAX_RATE_RPS 1e6
#define FS_SCENARIO_MAX_MULTIPLIER 1e3
/* Bursts per service: each is an event (a launch, an outage); more is a
 * trace.  The rate lookup scans them, so they are kept few. */
#define FS_SCENARIO_MAX_BURSTS 1000
/* Dollars per GPU-hour (any price) and watts per GPU: costs and energy over
 * the largest fleet and horizon stay finite and printable. */
#define FS_SCENARIO_MAX_PRICE 1e4
#define FS_SCENARIO_MAX_WATTS 1e5
/* GB of memory of a GPU type or of a service's replica: 1e5 GB is a
 * hundred times today's largest GPU, and stranded-memory sums stay finite. */
#define FS_SCENARIO_MAX_MEMORY_GB 1e5
/* The scenario file itself: documents are kilobytes; an empirical
 * distribution of a million samples still fits. */
#define FS_SCENARIO_MAX_FILE_BYTES (64L * 1024 * 1024)
/* Floors on the periods that schedule events.  Each is the fastest a real
 * system goes (so no scenario that means something is refused); below it a
 * run does the same work ever more often, and at nanoseconds runs without
 * end.  The loader refuses anything shorter with the JSON path and the
 * limit. */
/* A service autoscaler's "interval": the Kubernetes HPA evaluates every 15 s
 * by default (--horizontal-pod-autoscaler-sync-period) and KEDA polls every
 * 30 s; nothing re-decides a replica count more often than every second. */
#define FS_SCENARIO_MIN_AUTOSCALE_INTERVAL_S 1.0
/* A time-sliced pool's "slice": NVIDIA's vGPU schedulers take a time slice
 * of 1 to 30 ms (the RmPVMRL registry key) and the driver's compute default
 * is about 1 ms; a shorter slice makes the switch overhead, which stretches
 * service times by 1 + overhead / slice, absurd. */
#define FS_SCENARIO_MIN_TIME_SLICE_S 1e-3
/* A training stream's checkpoint "every": the most frequent checkpointing
 * in practice is once per training step (CheckFreq, FAST '21; Gemini, SOSP
 * '23), and a step of a gang-scheduled job takes a second or more. */
#define FS_SCENARIO_MIN_CHECKPOINT_EVERY_S 1.0
/* A trace's "rate_scale" (how much faster than recorded it replays), both
 * ways: at most FS_SCENARIO_MAX_MULTIPLIER times faster, and at most that
 * many times slower, which already stretches a day's trace past the
 * longest horizon. */
#define FS_SCENARIO_MIN_RATE_SCALE (1.0 / FS_SCENARIO_MAX_MULTIPLIER)
/* A spot pool's "reclaim_per_hour", the hazard of losing each GPU: 60 is a
 * mean life of one minute, shorter than the two minutes' notice AWS gives
 * of a spot interruption; each reclaim is an event. */
#define FS_SCENARIO_MAX_RECLAIM_PER_HOUR 60.0
/* An arrival "noise" interval and an "mmpp" state's mean sojourn: each is a
 * piece of the rate the arrival process walks and a draw.  Below a second
 * the Poisson counts themselves swamp any change of rate (at 100 requests/s
 * a 1 s count already varies by 10%), so nothing fitted from traces is
 * finer, and a 2-year run walks some 6.3e7 pieces at most. */
#define FS_SCENARIO_MIN_MODULATION_S 1.0
/* States of an "mmpp": the regimes traces show (quiet, normal, surge, an
 * outage) are a handful; a fixed array in the spec. */
#define FS_SCENARIO_MAX_MMPP_STATES 8
/* "noise" coefficient of variation: 10 already puts half the traffic into
 * a few percent of the intervals (lognormal sigma 2.1). */
#define FS_SCENARIO_MAX_NOISE_CV 10.0
/* Requests per arrival group, as the mean of "groups" and as any listed
 * size: a group lands in the queue at one instant, and ten thousand is a
 * whole batch job's fan-out. */
#define FS_SCENARIO_MAX_GROUP 10000
/* Sizes listed in "groups" (a table drawn from in O(1), built once per
 * replication). */
#define FS_SCENARIO_MAX_GROUP_SIZES 1000
/* "daily_levels": one per day of the longest horizon. */
#define FS_SCENARIO_MAX_DAILY_LEVELS 731
#define FS_QUEUE_UNLIMITED UINT64_MAX
#define FS_SLO_MAX_TARGETS 5

typedef struct fs_burst {
    double at_s;        /* start, from t = 0 */
    double duration_s;  /* > 0 */
    double multiplier;  /* > 0; overlapping bursts multiply */
} fs_burst;

/* One regime of a Markov-modulated Poisson process ("mmpp"). */
typedef struct fs_mmpp_state {
    double rps;            /* >= 0, requests/s while in this state */
    double mean_sojourn_s; /* > 0: the state holds for an exponential time of this mean */
    double share;          /* stationary fraction of time in it: mean_sojourn_s / their sum */
    double multiplier;     /* rps / base_rps (0 when base_rps is 0) */
} fs_mmpp_state;

typedef enum fs_noise_kind { FS_NOISE_NONE, FS_NOISE_LOGNORMAL, FS_NOISE_GAMMA } fs_noise_kind;

/* "noise": the rate times X_k, constant on [k interval, (k+1) interval),
 * E[X] = 1, coefficient of variation cv. */
typedef struct fs_arrival_noise {
    fs_noise_kind kind;    /* FS_NOISE_NONE: no noise */
    double cv;             /* (0, FS_SCENARIO_MAX_NOISE_CV] */
    double interval_s;     /* > 0 */
    double correlation_s;  /* lognormal only; 0: independent intervals, else log X is AR(1)
                            * with rho = exp(-interval / correlation) */
} fs_arrival_noise;

/* "groups": each point of the process brings G >= 1 requests at once. */
typedef struct fs_arrival_groups {
    double mean;           /* E[G]; 0: no groups (every point is one request) */
    double mean_square;    /* E[G^2] */
    /* A listed law (sizes with weights) when n_sizes > 0, else the shifted
     * geometric on {1, 2, ...} of the mean. */
    uint32_t *sizes;       /* owned */
    double *weights;       /* owned; >= 0 with a positive sum, not normalised */
    size_t n_sizes;
} fs_arrival_groups;

typedef struct fs_arrivals {
    double base_rps;      /* >= 0; with "mmpp", its stationary mean sum(share x rps) */
    double weekday[24];   /* hourly multipliers on Monday..Friday (all 1 when no profile) */
    double weekend[24];   /* hourly multipliers on Saturday, Sunday */
    fs_burst *bursts;     /* sorted by at_s */
    size_t n_bursts;
    /* "growth": the rate x (1 + growth)^(t / growth_period_s), compounding
     * from t = 0; growth > -1, 0: none. */
    double growth;
    double growth_period_s;
    /* "daily_levels": day d = floor(t / 1 day) multiplies the rate by
     * daily_levels[min(d, n - 1)] (each >= 0); n 0: none. */
    double *daily_levels; /* owned */
    size_t n_daily_levels;
    /* "mmpp" (n_mmpp 0: none) and "noise", at most one of them: the
     * stochastic factor on top of the deterministic rate (arrivals.h). */
    fs_mmpp_state mmpp[FS_SCENARIO_MAX_MMPP_STATES];
    size_t n_mmpp;
    fs_arrival_noise noise;
    fs_arrival_groups groups;
    /* "trace": arrivals replayed from a CSV file instead (base_rps, profiles
     * and bursts unused).  A trace request's service time is
     * trace_base_s + sum of trace_per_size_s[i] x size i when "service_time"
     * is given in the trace, else drawn from the service's service_time. */
    fs_trace_spec *trace;
    bool trace_sized;
    double trace_base_s;
    double trace_per_size_s[2];
    /* The region's "utc_offset" (scenario_regions.c): hourly profiles,
     * weekdays and daily levels are read in local time, t + utc_offset_s
     * (t = 0 is midnight UTC); bursts and growth stay on the clock, t.
     * 0: UTC. */
    double utc_offset_s;
} fs_arrivals;

/* Whether the rate carries a random factor ("mmpp" or "noise"): its load
 * then varies by chance over a run, whatever its mean and peak say. */
static inline bool fs_arrivals_modulated(const fs_arrivals *a)
{
    return a->n_mmpp > 0 || a->noise.kind != FS_NOISE_NONE;
}

typedef struct fs_slo_target {
    double quantile;      /* 0.5, 0.9, 0.95, 0.99 or 0.999 */
    double threshold_s;   /* > 0 */
} fs_slo_target;

typedef struct fs_slo {
    fs_slo_target targets[FS_SLO_MAX_TARGETS];
    size_t n_targets;     /* 0: no end-to-end target */
    /* An LLM service's targets on time to first token and time per output
     * token ("ttft_p99_ms", "tpot_p99_ms", ...); threshold_s 0: none. */
    fs_slo_target ttft, tpot;
    double window_s;      /* breach-counting window; defaults to the scenario window */
} fs_slo;

/* Whether a service has any target: end-to-end, TTFT or TPOT. */
static inline bool fs_slo_any(const fs_slo *slo)
{
    return slo->n_targets > 0 || slo->ttft.threshold_s > 0 || slo->tpot.threshold_s > 0;
}

typedef enum fs_partitioning {
    FS_PARTITION_WHOLE,        /* one replica per whole GPU */
    FS_PARTITION_MIG,          /* every GPU carries the pool's MIG layout */
    FS_PARTITION_TIME_SLICED,  /* every GPU shared by `tenants` replicas, no memory isolation */
    FS_PARTITION_FRACTIONAL    /* every GPU shared by up to `seats` replicas, each asking a compute
                                * share and a memory quota (MPS, or a virtual GPU) */
} fs_partitioning;

typedef enum fs_price_class { FS_PRICE_ON_DEMAND, FS_PRICE_SPOT } fs_price_class;

typedef struct fs_time_slicing {
    uint32_t tenants;           /* >= 2 replicas share each GPU */
    double slice_s;             /* time slice, default 1.024 ms (NVIDIA driver default) */
    double switch_overhead_s;   /* lost per slice switch, default 0.2 ms */
    double contention_exponent; /* stretch with k busy tenants: k^e * (1 + overhead/slice); default 1 */
} fs_time_slicing;

/* How a fractional pool's replicas share a GPU's compute (models/fleet/pool.h
 * has the arithmetic; scenarios/README.md the words):
 * FS_SHARE_MPS: each client is capped at its share (the MPS daemon's active
 * thread percentage), so it runs at the measured share curve (mps.h) even
 * alone; when the busy clients' shares add up to S > 1 every request starting
 * then is stretched by S.  FS_SHARE_VIRTUAL: a soft share (a virtual GPU, e.g.
 * TensorFusion's): the busy clients split the GPU in proportion to their
 * shares, so a client alone uses it all; past S = 1 as MPS. */
typedef enum fs_share_mode { FS_SHARE_MPS, FS_SHARE_VIRTUAL } fs_share_mode;

typedef struct fs_fractional {
    uint32_t seats;          /* most replicas on one GPU, default 8 */
    double oversubscription; /* most the compute shares on one GPU may add up to, >= 1, default 1 */
    fs_share_mode mode;      /* "mps" (default) or "virtual" */
} fs_fractional;

/* Latency class of a pool: what a policy may put on it. */
typedef enum fs_pool_class { FS_CLASS_SERVING, FS_CLASS_BATCH, FS_CLASS_SPOT } fs_pool_class;

/* Priority lanes, most urgent first (the tiered policy serves them in this
 * order; the others ignore lanes). */
typedef enum fs_lane { FS_LANE_INFERENCE, FS_LANE_TRAINING, FS_LANE_EXPERIMENT } fs_lane;

/* How a pool's replicas are laid onto its units (layout/placement.c implements each). */
typedef enum fs_placement_kind {
    FS_PLACEMENT_BEST_FIT,  /* "best_fit": the unit with the least memory that fits, then fewest SMs */
    FS_PLACEMENT_FIRST_FIT, /* "first_fit": the first unit that fits */
    FS_PLACEMENT_FGD,       /* "fgd": fractional pools only, the GPU whose fragmentation grows least */
    FS_PLACEMENT_KINDS
} fs_placement_kind;

/* MIG re-partitioning at run time ("mig": {"layouts": {...}, ...}, models/fleet/
 * repartition.h): a pool declares several named layouts, each valid on its GPU
 * type (fs_mig_place), and switches its GPUs between them at times of day.  A
 * GPU being switched first drains (its units stop being granted; with "evict"
 * its tenants that can be moved are), then spends reconfigure_s switching,
 * then offers the new layout's units.  With "on_demand" a GPU is also switched,
 * one at a time, when a request has waited too long for a unit. */
#define FS_SCENARIO_MAX_MIG_LAYOUTS 8
#define FS_SCENARIO_MAX_MIG_SWITCHES 48 /* schedule entries, per day */

typedef enum fs_mig_drain {
    FS_MIG_DRAIN_WAIT,  /* "wait": tenants leave on their own */
    FS_MIG_DRAIN_EVICT  /* "evict": service replicas move, preemptible jobs are evicted */
} fs_mig_drain;

typedef struct fs_mig_switch {
    double at_s;        /* time of day, [0, 86400) */
    size_t layout;      /* index into fs_mig_plan.layouts */
} fs_mig_switch;

typedef struct fs_mig_plan {
    fs_mig_layout layouts[FS_SCENARIO_MAX_MIG_LAYOUTS]; /* in document order */
    char *names[FS_SCENARIO_MAX_MIG_LAYOUTS];
    size_t n_layouts;                                    /* >= 1 */
    size_t start;                                        /* in force at t = 0 (fs_pool_spec.mig is a copy) */
    fs_mig_switch schedule[FS_SCENARIO_MAX_MIG_SWITCHES]; /* sorted by at_s; repeats daily */
    size_t n_schedule;
    double reconfigure_s;                                /* a GPU's time switching layouts */
    fs_mig_drain drain;
    double on_demand_after_s; /* "on_demand": {"after"}: a request no layout in force holds that
                               * has waited this long re-partitions one GPU (> 0); 0: never */
} fs_mig_plan;

typedef struct fs_pool_spec {
    char *name;
    char *gpu;            /* the GPU type's name */
    size_t gpu_type;      /* index into fs_scenario.gpu_types */
    uint32_t gpus;        /* >= 1 */
    fs_partitioning partitioning;
    fs_mig_layout mig;    /* FS_PARTITION_MIG: the layout placed on every GPU (with a plan: at t = 0) */
    fs_mig_plan *mig_plan; /* "mig": {"layouts": ...}: the layouts and when to switch; NULL: `mig` only */
    fs_time_slicing time_slicing; /* FS_PARTITION_TIME_SLICED */
    fs_fractional fractional;     /* FS_PARTITION_FRACTIONAL */
    fs_price_class price; /* default on-demand */
    int placement;        /* an fs_placement_kind, default best fit */
    fs_pool_class class;  /* "class": "serving" (default), "batch" or "spot" */
    /* Elastic pools ("autoscale": {"min", "max", "provision", "idle"}): `gpus`
     * is the starting size; GPUs are added while demand waits, each usable
     * after a provisioning delay, and released after sitting idle. */
    bool elastic;
    uint32_t min_gpus, max_gpus;  /* == gpus when not elastic */
    fs_dist provision_delay;      /* seconds; default deterministic 90 s */
    double idle_release_s;        /* default 600 s */
    double reclaim_per_gpu_hour;  /* spot: hazard of a GPU being taken back ("reclaim_per_hour") */
    size_t region;                /* index into fs_scenario.regions ("region") */
} fs_pool_spec;

/* Units one GPU of the pool is cut into: MIG instances (of every layout in
 * turn, for a pool that switches layouts), time-sliced or fractional seats,
 * or 1. */
static inline uint32_t fs_pool_units_per_gpu(const fs_pool_spec *p)
{
    if (p->partitioning == FS_PARTITION_MIG && p->mig_plan) {
        size_t n = 0;
        for (size_t k = 0; k < p->mig_plan->n_layouts; k++)
            n += p->mig_plan->layouts[k].n;
        return (uint32_t)n;
    }
    return p->partitioning == FS_PARTITION_MIG           ? (uint32_t)p->mig.n
           : p->partitioning == FS_PARTITION_TIME_SLICED ? p->time_slicing.tenants
           : p->partitioning == FS_PARTITION_FRACTIONAL  ? p->fractional.seats
                                                         : 1;
}

/* Whether the pool's GPUs are shared by several replicas at once
 * (time-sliced or fractional): its seats share their GPU's memory, and a
 * request's time depends on what the GPU's other tenants do. */
static inline bool fs_pool_shared(const fs_pool_spec *p)
{
    return p->partitioning == FS_PARTITION_TIME_SLICED || p->partitioning == FS_PARTITION_FRACTIONAL;
}

/* Per-service autoscaler ("replicas": {"min", "max", "concurrency",
 * "autoscale": {...}}): every `interval_s` it compares requests in system per
 * ready replica with `target_in_flight` (and, if p95_ms > 0, the interval's
 * p95 with it), asks for replicas when above, at most once per cooldown, and
 * gives one back when the service has needed fewer for `idle_s`. */
typedef struct fs_autoscale {
    bool enabled;
    double target_in_flight;  /* > 0 */
    double p95_ms;            /* 0: not used */
    double interval_s;        /* default 10 s */
    double cooldown_s;        /* default 60 s */
    double idle_s;            /* default 600 s */
} fs_autoscale;

/* "batching": how a replica executes its requests.  FS_BATCHING_NONE is
 * today's `concurrency` independent slots; FS_BATCHING_DYNAMIC is Triton's
 * dynamic batcher (batcher.h has the exact rule): one batch at a time per
 * replica, of up to max_batch_size requests, taken when max_batch_size (or a
 * preferred size) are waiting or the oldest has waited max_queue_delay_s.  A
 * batch of b takes batch_time(b) on the reference GPU, deterministically:
 * base_s + per_request_s x b, or the table interpolated linearly, which must
 * start at size 1 and reach max_batch_size.  FS_BATCHING_CONTINUOUS is an
 * LLM engine per replica (fs_llm_serving, llm_engine.h). */
typedef enum fs_batching_kind { FS_BATCHING_NONE, FS_BATCHING_DYNAMIC, FS_BATCHING_CONTINUOUS } fs_batching_kind;

/* "batching": {"kind": "continuous"}: one vLLM-style engine per replica.
 * Step time is `step` on a whole reference GPU, scaled on each unit by its
 * compute and bandwidth shares (a MIG slice's SMs and memory slices; another
 * GPU type's datasheet peaks over the reference's), or a roofline from the
 * pool GPU's datasheet peaks (llm_defaults.h) with the given efficiencies,
 * or the unit's GPU type's calibration profile (step_profile: llm_profile.h)
 * on a whole GPU, scaled by a MIG slice's shares as the linear form is.
 * The KV cache of a replica is (budget - weights - reserve) / KV bytes per
 * token, where budget is memory_gb when the service gives it, else the unit's
 * memory x memory_utilization (vLLM's gpu_memory_utilization).  Prompt and
 * output tokens come from the two distributions, or from the trace's two size
 * columns (tokens_from_trace); a draw is rounded to the nearest integer, at
 * least 1, and a request longer than max_model_len (prompt + output) is
 * refused and counted as dropped (too_long). */
typedef struct fs_llm_serving {
    fs_llm_model model;       /* model.name points into model_name */
    char *model_name;         /* owned */
    fs_llm_step_model step;   /* LINEAR on the reference GPU, or ROOFLINE (shares 1); unset with step_profile */
    /* "step_time": {"profile": {"gemm"}}: each unit's step comes from its GPU
     * type's profile ("llm_step", fs_switch_costs), mapped onto the model by
     * fs_llm_profile_step; step_gemm is enum fs_llm_gemm (default cuBLAS). */
    bool step_profile;
    int step_gemm;
    uint32_t max_seqs;        /* vLLM max_num_seqs */
    uint32_t token_budget;    /* vLLM max_num_batched_tokens (chunked prefill) */
    uint32_t block_tokens;    /* KV block size, tokens */
    int kv_policy;            /* enum fs_llm_kv_policy (llm_engine.h): 0 queue, 1 preempt */
    double memory_utilization;/* (0, 1] */
    double reserve_gb;        /* activation reserve, GiB */
    fs_dist prompt, output;   /* token counts (unused with tokens_from_trace) */
    bool tokens_from_trace;
    uint64_t max_model_len;   /* prompt + output tokens; UINT64_MAX: no limit */
    /* "prefix": {"groups", "tokens", "zipf"}: each request's prompt opens
     * with the shared prefix of one of prefix_groups groups (a system
     * prompt, a document, a conversation so far), drawn with probability
     * proportional to 1 / rank^prefix_zipf, covering its first
     * min(prefix_tokens, prompt) tokens; groups 0: no prefixes.
     * prefix_from_trace: instead, each request's prefix is its trace row's
     * (the trace's "prefix" and "prefix_tokens" columns, fs_trace_row),
     * also covering at most the prompt; never beside a generator.
     * prefix_caching (default true, as vLLM V1): replicas keep computed
     * prefixes in their KV cache (llm_prefix.h). */
    uint32_t prefix_groups, prefix_tokens;
    double prefix_zipf;
    bool prefix_from_trace;
    bool prefix_caching;
    /* "routing": how requests reach replicas (enum fs_llm_routing). */
    int routing;
    uint32_t affinity_slack; /* prefix_affinity: most extra requests a cache hit may cost */
} fs_llm_serving;

/* FS_LLM_ROUTE_CENTRAL: one queue, replicas take from it at step
 * boundaries while their engine has room (an ideal balancer).  The others
 * send each request to one ready replica on arrival, where it waits in
 * that replica's queue: round robin; least loaded (fewest requests queued
 * or in the engine); prefix affinity (the least loaded replica whose cache
 * holds the request's prefix, unless it has more than affinity_slack
 * requests beyond the least loaded of all, which then gets it). */
enum fs_llm_routing { FS_LLM_ROUTE_CENTRAL, FS_LLM_ROUTE_ROUND_ROBIN, FS_LLM_ROUTE_LEAST_LOADED,
                      FS_LLM_ROUTE_PREFIX_AFFINITY };

typedef struct fs_batching {
    fs_batching_kind kind;
    uint32_t max_batch_size;  /* 1 .. FS_SCENARIO_MAX_BATCH_SIZE */
    double max_queue_delay_s; /* >= 0 */
    uint32_t preferred[FS_SCENARIO_MAX_PREFERRED_BATCHES]; /* strictly increasing, <= max_batch_size */
    size_t n_preferred;
    bool linear;              /* batch time is base_s + per_request_s x b; else the table */
    double base_s, per_request_s;
    uint32_t table_size[FS_SCENARIO_MAX_BATCH_TABLE]; /* strictly increasing from 1 */
    double table_s[FS_SCENARIO_MAX_BATCH_TABLE];      /* > 0 */
    size_t n_table;
    fs_llm_serving llm;       /* FS_BATCHING_CONTINUOUS */
} fs_batching;

/* The time of a batch of `size` requests (1 .. max_batch_size) on the
 * reference GPU, in seconds (scenario_batching.c). */
double fs_scenario_batch_time(const fs_batching *b, uint32_t size);


typedef struct fs_service_spec {
    char *name;
    char *tenant;         /* defaults to the service name */
    size_t pool;          /* index into fs_scenario.pools */
    fs_arrivals arrivals;
    fs_dist service_time; /* seconds; with batching, batch_time(max) / max (deterministic):
                           * the per-request time of full batches, for capacity figures */
    fs_batching batching;
    uint32_t replicas;    /* >= 1 at the start; each takes one unit of its pool (placement.h) */
    uint32_t min_replicas, max_replicas; /* == replicas without an autoscaler */
    fs_autoscale autoscale;
    uint32_t concurrency; /* >= 1 requests served at once per replica */
    uint64_t queue_limit; /* waiting requests beyond it are dropped; FS_QUEUE_UNLIMITED */
    fs_slo slo;
    double memory_gb;     /* footprint of one replica (weights + KV cache / activations); 0 = not given */
    size_t reference_gpu; /* index into gpu_types: service_time is measured on a whole one of these */
    double sm_exponent;   /* service time x (reference SMs / slice SMs)^sm_exponent; default 1 */
    /* A fractional pool's replica ("gpu_share", required there and refused
     * elsewhere): its share of the GPU's compute, FS_MPS_MIN_SHARE to 1, and
     * what its work resembles ("gpu_share_kind", default "compute"), which
     * picks its measured share curve (mps.h).  0 on other pools. */
    double gpu_share;
    fs_share_kind share_kind;
    /* "disaggregation" (an LLM service only, no autoscaler): prefill and
     * decode on separate replica groups (DistServe, Splitwise).  The
     * service's `replicas` on `pool` prefill; `decode_replicas` on
     * `decode_pool` decode, as slots replicas .. replicas + decode_replicas
     * - 1.  A request's prompt KV crosses from its prefill replica over that
     * replica's link, FIFO: latency_s + bytes / bandwidth_Bps.  0 decode
     * replicas: aggregated (prefill and decode on every replica). */
    uint32_t decode_replicas;
    size_t decode_pool;
    double link_bandwidth_Bps; /* > 0, bytes per second */
    double link_latency_s;     /* >= 0 */
    /* "region": index into fs_scenario.regions; its pools (and decode pool)
     * are in it, and its arrivals read their profiles in its local time. */
    size_t region;
    /* "spill": {"to", "added_latency", "when_queue"}: a request arriving
     * when no ready replica has a free slot and at least spill_when_queue
     * requests wait goes to service spill_to (in another region) if one of
     * its ready replicas has a free slot, served there at once with its
     * service time, and takes spill_added_s (the round trip) more; it stays
     * this service's request (its latency, SLO, counts).  spills false:
     * none (a zeroed spec spills nowhere). */
    bool spills;
    size_t spill_to;
    double spill_added_s;
    uint64_t spill_when_queue;
} fs_service_spec;

/* Replicas the service places: its own and, disaggregated, its decode group. */
static inline uint32_t fs_service_placed(const fs_service_spec *s) { return s->replicas + s->decode_replicas; }

/* The pool replica r of the service runs on. */
static inline size_t fs_service_replica_pool(const fs_service_spec *s, uint32_t r)
{
    return r < s->replicas ? s->pool : s->decode_pool;
}

/* A scenario describes one workload (the services) and one or more fleets to
 * run it on.  A fleet is a policy: a named set of pools ("policies": {"whole":
 * {"pools": [...]}, "mig": {"pools": [...]}}), or the top-level "pools" as one
 * policy named "default".  A policy may also deploy services its own way:
 * "services": {"chat": PATCH} applies PATCH, a JSON merge patch (RFC 7386:
 * objects merge, null deletes a key, anything else replaces), to a copy of
 * the top-level service "chat" before that policy reads it (replicas, pool,
 * batching engine settings, routing, spill); it may not change a service's name,
 * tenant, arrivals, SLO, service time, region, or an LLM's model, prompt and output
 * tokens, prefix and max_model_len (scenario_patch.c).  Each policy is parsed
 * into its own fs_scenario, identical but for its pools, its name in
 * `policy`, its settings, its patched services, and what depends on them
 * (gpu_types, each service's pool index and default reference GPU): read a
 * policy's services from its own variant, never the root's.  Services keep
 * their order and names in every variant.  The first is the root: it owns
 * the others and lists all of them, itself first, in `policies`.  Every
 * policy runs the same workload with the same random streams (common random
 * numbers). */
/* A stream of training jobs ("training": [...]).  Each job asks for `gang`
 * units at once (all or nothing), computes work_gpu_hours / gang hours on
 * them, writes a checkpoint every checkpoint_every_s of compute (taking
 * checkpoint_write_s), and, if preempted, loses the work since its last
 * checkpoint and queues again. */
typedef struct fs_training_spec {
    char *name;
    char *tenant;             /* defaults to the name */
    double *submit_at_s;      /* explicit submission times ("submit": {"at": [...]}) */
    size_t n_submit_at;
    double daily_at_s[24];    /* "submit": {"daily_at": ["02:00", ...]}: seconds after midnight */
    size_t n_daily;
    double poisson_per_hour;  /* "submit": {"poisson_per_hour": x}; 0 = none */
    /* "submit" with poisson_per_hour and any of a service's rate keys
     * ("diurnal", "weekday", "weekend", "bursts", "growth", "daily_levels",
     * "noise", "groups"): the same arrival process as a service's
     * (models/workload/arrivals.h), its base_rps poisson_per_hour / 3600,
     * each point bringing a group of jobs.  NULL: plain Poisson (owned). */
    fs_arrivals *submit_shape;
    fs_trace_spec *trace;     /* "submit": {"trace": {...}}: one job per row, its gang the
                               * row's GPUs and its work GPUs x duration (gang and
                               * work_gpu_hours are then not given) */
    uint32_t gang;            /* units per job, >= 1; with gang_mix, its largest draw */
    double work_gpu_hours;    /* > 0 (unused with run_time) */
    /* A job mix, drawn per job from stream "jobs/<name>": "gang" as a
     * distribution of whole numbers (deterministic or empirical), and
     * "run_time", the job's compute time on its gang, instead of
     * work_gpu_hours / gang.  Kinds DETERMINISTIC with has_* false: none. */
    fs_dist gang_mix;
    bool has_gang_mix;
    fs_dist run_time;
    bool has_run_time;
    /* "run_time_by_gang": [{"gangs": [1], "run_time": DIST}, ...]: the run
     * time drawn from the class holding the job's gang (instead of
     * run_time or work_gpu_hours), so a mix whose large gangs run longer
     * keeps that.  Every size the gang can take is in exactly one class;
     * no size is in two.  Owned; n_run_time_by_gang 0: none. */
    struct fs_run_time_class {
        uint32_t *gangs;
        size_t n_gangs;
        fs_dist run_time;
    } *run_time_by_gang;
    size_t n_run_time_by_gang;
    /* "failures": each attempt fails with `probability` after `after` of
     * its compute (drawn from stream "failures/<name>"), losing the compute
     * since its last checkpoint; a failed job is retried up to `retries`
     * times, each after `retry_delay`, from that checkpoint, then gives up.
     * "cancellations": a job is cancelled by its owner with `probability`,
     * `after` its submission, waiting or running (stream
     * "cancellations/<name>"); its compute since its last checkpoint is
     * lost.  probability 0: none. */
    double fail_probability;
    fs_dist fail_after;
    uint32_t retries;
    double retry_delay_s;
    double cancel_probability;
    fs_dist cancel_after;
    double state_gb_per_gpu;  /* weights + optimizer state per unit; must fit the unit */
    double checkpoint_every_s;/* 0: never */
    double checkpoint_write_s;
    bool preemptible;
    bool across_pools;        /* "across_pools": a job's gang may take free units of several
                               * pools the policy lets it use, when no one pool has room
                               * (fs_request.across_pools); default false */
    bool save_on_eviction;    /* "on_eviction": "save" (state to host at D2H, nothing lost,
                               * resumed from host at H2D) or "drop" (default: lose the work
                               * since the last checkpoint, resume from storage) */
    fs_lane lane;             /* "priority": "production" (FS_LANE_TRAINING) or "experiment" */
    /* A job trace's "priorities": {"TEXT": "production" | "experiment"}:
     * a row whose priority cell reads TEXT gets that lane; any other row
     * the stream's. */
    char **priority_texts;
    fs_lane *priority_lanes;
    size_t n_priorities;
    /* Its tenant's entry in "quotas": k for quotas[k - 1]; 0 when the
     * scenario gives no quotas. */
    uint32_t quota;
    /* "region" (optional): its daily_at times and submit shape are in that
     * region's local time (daily_at_s already converted to UTC); index into
     * fs_scenario.regions, SIZE_MAX: none (UTC). */
    size_t region;
    /* "after": "NAME" (a pipeline step, models/workload/pipeline.h): the
     * stream has no "submit"; each job of training[after] that completes
     * submits one job of this stream at that instant.  A list of names is a
     * join: one job is submitted when a job of every one of them has
     * completed in the same iteration.  after_names[n_after] (as written)
     * and afters[n_after] (their indices) owned; after = afters[0], SIZE_MAX:
     * none (the stream submits on its own).  The graph has no cycle, and a
     * join's predecessors descend from one root (refused at load). */
    char **after_names;
    size_t *afters;
    size_t n_after;
    size_t after;
    /* Whether the stream roots a pipeline (no "after", and another stream
     * follows it): found once at load, read per job submitted. */
    bool pipeline_root;
    /* "release": {"daily_at": "09:00", "until": "18:00"} (a "polite" tenant,
     * models/workload/training_release.h): every day from daily_at to until
     * (local time of its region, like submit's daily_at; a window may wrap
     * past midnight) the stream's jobs hold no GPUs: a running job writes a
     * checkpoint and gives its gang back, and jobs wait, asking for nothing,
     * until the window ends.  Needs "checkpoint".  release_at_s: the start,
     * seconds after UTC midnight; release_s: the window's length, > 0 and
     * < 1 day.  has_release false: none. */
    bool has_release;
    double release_at_s, release_s;
    /* "deploy": {"service", "max_surge"} (a pipeline step with "after",
     * models/workload/service_deploy.c): instead of a job, each submission
     * rolls out a new version of services[deploy_service], deploy_max_surge
     * new replicas at a time; no gang or work of its own (gang 0).
     * deploy_service SIZE_MAX: a stream of jobs. */
    size_t deploy_service;
    uint32_t deploy_max_surge;
} fs_training_spec;

/* The run time a job of `gang` units draws from stream "jobs/<name>":
 * run_time, or its gang's class of run_time_by_gang; NULL when the job
 * computes work_gpu_hours / gang (or its trace row's).  O(sizes listed). */
const fs_dist *fs_scenario_job_run_time(const fs_training_spec *spec, uint32_t gang);

/* Whether stream `spec` follows stream `stream` ("after" names it, alone
 * or in a join's list).  O(predecessors). */
static inline bool fs_training_follows(const fs_training_spec *spec, size_t stream)
{
    for (size_t k = 0; k < spec->n_after; k++)
        if (spec->afters[k] == stream)
            return true;
    return false;
}

/* One team's entry of "quotas": {"TEAM": {"gpus": N, "borrow": B, "lend":
 * L}}, in units (whole GPUs, MIG instances or time-sliced seats: what a gang
 * counts).  Every team is in one cohort, the whole fleet: a team may hold
 * more than its nominal `gpus` by borrowing, at most `borrow` units, from
 * what the others leave unused and lend (each at most `lend`).  The fleet
 * enforces it (models/fleet/quota.h); services are not subject to it. */
#define FS_SCENARIO_MAX_QUOTAS 1000
#define FS_SCENARIO_MAX_WEIGHT 1e6 /* a team's fair-sharing weight */
#define FS_QUOTA_UNLIMITED UINT32_MAX
typedef struct fs_quota_spec {
    char *tenant;
    uint32_t gpus;    /* nominal quota */
    uint32_t borrow;  /* default FS_QUOTA_UNLIMITED */
    uint32_t lend;    /* default gpus; <= gpus */
    double weight;    /* fair sharing: its weight (default 1; 0: served after every other team) */
    uint32_t cohort;  /* 0: the default cohort (teams without "cohort", and "unlisted");
                       * k: the named cohort s->cohorts[k - 1] */
} fs_quota_spec;

/* "fair_sharing": how waiting training jobs of different teams are ordered
 * (models/fleet/quota.h): not at all (the policy's order), by the units a
 * team borrows per weight (Kueue's fair sharing), or by the unit-hours it
 * used, decayed with a half-life, per weight (Kueue's admission fair
 * sharing; Slurm's fair-share factor). */
typedef enum fs_fair_share { FS_FAIR_NONE, FS_FAIR_BORROWED, FS_FAIR_USAGE } fs_fair_share;

/* What a GPU (or slice) costs to change tenant: eviction then warm-up, from a
 * calibration profile ("calibration": "file.json" or an inline object; the
 * default profile is built from reference/costs.md).  The top-level
 * "calibration" gives the scenario's costs; a "gpus" member's own
 * "calibration" gives that type's, read over the scenario's (a figure the
 * type's profile leaves out is the scenario's).  A profile written by
 * calibrate/ also carries "device", "not_measured", "fits", "scalars",
 * "samples", "validation", "graph_capture" and "mixed_check", which are
 * type-checked and otherwise ignored; one with "samples" or "fits"
 * (measured) must have "validation", else it is refused.  Its "llm_step"
 * rows (every key checked) are kept for "step_time": {"profile"}. */
enum fs_cost_figure {
    FS_COST_CONTEXT,
    FS_COST_FRAMEWORK,
    FS_COST_MODULE,
    FS_COST_STORAGE,
    FS_COST_H2D,
    FS_COST_D2H,
    FS_COST_INFERENCE_WARMUP,
    FS_COST_FIGURES
};

typedef struct fs_switch_costs {
    double context_s;          /* CUDA context creation */
    double framework_s;        /* framework first use (allocator, libraries) */
    double module_s;           /* first launches of a program's kernels (module loading); built-in 0:
                                  not separate from framework_s until measured */
    double storage_gbps;       /* weights or checkpoint from storage */
    double h2d_gbps;           /* saved state back from host memory */
    double d2h_gbps;           /* state saved to host memory on eviction */
    double inference_warmup_s; /* first kernels and graph capture of a serving replica */
    char source[256];          /* where the figures come from (the last profile read over them) */
    /* Where each figure (enum fs_cost_figure) came from: 0 the built-in
     * default, 1 the scenario's profile, 2 the GPU type's own; the profiles'
     * sources are figure_source[0] and [1]. */
    unsigned char from[FS_COST_FIGURES];
    char figure_source[2][256];
    /* The "llm_step" rows of the profile that gave them (llm_profile.h), for
     * "step_time": {"profile"}; n_llm_step 0 when no profile read had any.
     * A type's own profile with "llm_step" replaces the scenario's rows
     * whole.  llm_step_from: 0 none, else 1 or 2 as in `from`. */
    fs_llm_layer_fit llm_step[FS_LLM_MAX_LAYER_FITS];
    size_t n_llm_step;
    unsigned char llm_step_from;
} fs_switch_costs;

/* A figure's key in a profile ("context_s"), its value, and where it came
 * from (a profile's source, or "built-in default (reference/costs.md)"). */
const char *fs_switch_costs_figure(const fs_switch_costs *c, enum fs_cost_figure k, double *value,
                                   const char **source);

/* The source of the profile whose "llm_step" rows c holds, or NULL when it
 * holds none. */
const char *fs_switch_costs_llm_step_source(const fs_switch_costs *c);

/* A region ("regions": {"NAME": {"utc_offset": "+9h"}}): where pools and
 * services are, and the time zone its services' traffic profiles are read
 * in.  Pools and services without "region" are in "default" (UTC).  See
 * scenario_regions.c for the order and the rules. */
#define FS_SCENARIO_MAX_REGIONS 1000
#define FS_SCENARIO_MIN_UTC_OFFSET_S (-12.0 * 3600)
#define FS_SCENARIO_MAX_UTC_OFFSET_S (14.0 * 3600)
#define FS_REGION_DEFAULT "default"
typedef struct fs_region_spec {
    char *name;
    double utc_offset_s;  /* local time = UTC + utc_offset_s, -12 h .. +14 h */
} fs_region_spec;

typedef enum fs_policy_kind { FS_POLICY_SHARED, FS_POLICY_PARTITIONED, FS_POLICY_TIERED } fs_policy_kind;

typedef struct fs_scenario {
    char *path;           /* as given to fs_scenario_load, or the name given to parse */
    char *policy;         /* this variant's policy name ("default" without "policies") */
    fs_policy_kind policy_kind; /* "kind", default: the name if it is one, else shared */
    bool borrowing;       /* partitioned: preemptible batch may borrow idle serving units */
    double headroom;      /* tiered: serving pool share kept free for bursts, default 0.4 */
    struct fs_scenario **policies; /* root only: every variant in document order, [0] = root */
    size_t n_policies;
    char *name;           /* "name", defaults to the file's base name without .json */
    char *description;    /* optional, "" when absent */
    double horizon_s;     /* total simulated time, > 0 */
    double warmup_s;      /* [0, horizon): statistics cover [warmup, horizon] */
    double window_s;      /* time-series window, default 300 */
    bool window_written;  /* "window" given: a later horizon must still judge one */
    bool window_anchored;   /* "window_anchor" given: window starts fall on */
    double window_anchor_s; /* that time of day (t = 0 is midnight) plus whole windows,
                             * the warm-up extended to the first (else they start at it) */
    uint64_t seed;        /* default 1 */
    uint32_t replications;/* default 1 */
    int start_weekday;    /* day of week at t = 0: 0 = Monday .. 6 = Sunday (default 0) */
    fs_gpu_type *gpu_types; /* the built-in types pools use, with overrides, and custom types */
    size_t n_gpu_types;
    fs_pool_spec *pools;
    size_t n_pools;
    fs_service_spec *services;
    size_t n_services;
    fs_training_spec *training;
    size_t n_training;
    /* Every region, the same list in every variant: those "regions" lists,
     * in its order, then any other named (without "regions") or "default"
     * when something is in it, in order of first mention (services, then
     * each policy's pools, then training streams).  Always at least one. */
    fs_region_spec *regions;
    size_t n_regions;
    /* "quotas" (top level, the same in every variant), in document order;
     * none: no quota is enforced. */
    fs_quota_spec *quotas;
    size_t n_quotas;
    char **cohorts;          /* the named cohorts, in order of first mention */
    size_t n_cohorts;
    fs_fair_share fair_share;
    double fair_half_life_s; /* FS_FAIR_USAGE */
    /* "reserve_after" (top level): a training job waiting longer than this
     * gets a reservation of the pools it may use (models/fleet/quota.h);
     * 0: never. */
    double reserve_after_s;
    fs_switch_costs switch_costs; /* the top-level "calibration", else the built-in default */
    /* [n_gpu_types], index-aligned with gpu_types: each type's costs, its own
     * "calibration" over switch_costs, else switch_costs (NULL when there are
     * no types).  Read it through fs_scenario_switch_costs. */
    fs_switch_costs *gpu_switch_costs;
    /* "ci": {"horizon", "replications", "warmup"}: the fast settings that
     * `fleetsim check` applies (fs_scenario_apply_ci) and run/compare ignore.
     * 0 = not set (keep the run's own); every variant carries the same. */
    double ci_horizon_s;
    double ci_warmup_s;
    uint32_t ci_replications;
} fs_scenario;

/* Whether stream `stream` roots a pipeline: no "after" of its own, and
 * followed by another (fs_training_spec.pipeline_root).  O(1). */
static inline bool fs_training_is_root(const fs_scenario *s, size_t stream)
{
    return s->training[stream].pipeline_root;
}

/* The most surge replicas a deploy step may ask for service `service` at
 * once (the largest max_surge of the steps that roll it out; 0: none does):
 * the slots it keeps beside its replicas.  O(streams). */
uint32_t fs_scenario_deploy_surge(const fs_scenario *s, size_t service);

/* Reads and validates a scenario file.  Returns FS_OK and *out, or
 * FS_ERR_INPUT (cannot read the file, bad JSON, bad values, unknown keys) /
 * FS_ERR_RUNTIME (out of memory) with err filled and *out untouched. */
int fs_scenario_load(const char *path, fs_scenario **out, fs_error *err);

/* The same from a string; `origin` names it in error messages. */
int fs_scenario_parse(const char *text, const char *origin, fs_scenario **out, fs_error *err);

/* The same from a parsed document (borrowed, unchanged): sweeps build each
 * point's scenario by editing a copy of the document.  Relative calibration
 * file names resolve against origin's directory, as for a file. */
struct json_t;
int fs_scenario_parse_json(const struct json_t *doc, const char *origin, fs_scenario **out, fs_error *err);

void fs_scenario_destroy(fs_scenario *s);

/* Placement policies by name ("best_fit", "first_fit", "fgd"): the fs_placement_kind, or -1. */
int fs_scenario_placement_find(const char *name);

/* The entry of `tenant` in s->quotas: k for quotas[k - 1], or 0 when it has
 * none (O(n_quotas): teams are tens). */
uint32_t fs_scenario_quota_of(const fs_scenario *s, const char *tenant);
/* The most units a job of team k may ever hold under the quotas: its
 * nominal quota and what it may borrow of what all the others lend;
 * k = n_quotas + 1 ("unlisted"): what all the teams lend. */
uint64_t fs_scenario_quota_ceiling(const fs_scenario *s, uint32_t k);
/* Their names, indexed by fs_placement_kind (*count of them). */
const char *const *fs_scenario_placement_names(size_t *count);

/* Skip bad trace rows instead of failing (--lenient), in every trace of the
 * root and its policies. */
void fs_scenario_set_lenient(fs_scenario *s);

/* The switch costs of GPU type gpu_type (an index into s->gpu_types, which
 * must be in range): its own calibration profile, else the scenario's.  The
 * pointer lives as long as s. */
const fs_switch_costs *fs_scenario_switch_costs(const fs_scenario *s, size_t gpu_type);

/* Applies command-line overrides (seed < 0, replications <= 0 or horizon_s <=
 * 0 mean "keep"; seed 0 is a seed like any other) to the
 * root and every policy, and re-checks what they affect (warm-up must stay
 * below the horizon; a written window, and every SLO window, must still fit
 * in horizon - warm-up, within FS_SCENARIO_MAX_WINDOWS). */
int fs_scenario_override(fs_scenario *s, int64_t seed, int64_t replications, double horizon_s,
                         fs_error *err);

/* Applies the scenario's "ci" settings (those set; none set is a no-op) to the
 * root and every policy: horizon and replications through
 * fs_scenario_override, the warm-up directly.  The warm-up must stay below
 * the horizon (parsing already checked the pair; checked again so a later
 * --horizon override cannot slip through), and the windows must fit the new
 * span as override requires, blaming "ci".  FS_OK, or FS_ERR_INPUT with the
 * scenario unchanged. */
int fs_scenario_apply_ci(fs_scenario *s, fs_error *err);

/* scenario_llm.c.  What LLM replica `service` gets on a unit of GPU type
 * gpu_type, a MIG instance of `mig` or (mig NULL) a whole GPU or a
 * time-sliced seat, with unit_memory_gb of memory: its KV cache in blocks and
 * its step model (shares set).  FS_ERR_INPUT naming the service when the
 * model, reserve and one request do not fit or the GPU's peaks are needed and
 * unknown. */
int fs_scenario_llm_unit(const fs_scenario *s, size_t service, size_t gpu_type, const fs_mig_profile *mig,
                         double unit_memory_gb, uint32_t *kv_blocks, fs_llm_step_model *step, fs_error *err);

/* A saturated replica's seconds per request on the whole reference GPU, for
 * requests of `prompt` and `output` tokens (capacity estimates only).  For a
 * disaggregated service, `replicas` over the pair's capacity: the smaller of
 * its prefill group's (token_budget prompt tokens a step) and its decode
 * group's (the engine full of decodes), so that replicas / seconds is the
 * service's capacity as for an aggregated one. */
int fs_scenario_llm_request_s(const fs_scenario *s, size_t service, double prompt, double output, double *seconds,
                              fs_error *err);

/* Token count of a draw: the nearest integer, at least 1. */
uint64_t fs_scenario_llm_tokens(double draw);

/* Whether an LLM service's replicas keep a prefix cache: its requests carry
 * prefixes (a generator or a trace column) and prefix_caching is on.  Where
 * this is false there is no hit ratio to report: no data, not 0. */
bool fs_scenario_llm_caches_prefixes(const fs_llm_serving *llm);

#endif

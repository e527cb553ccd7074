/*
 * service — an inference service during one replication.
 *
 * A service owns a fixed set of replicas, each on the unit of its pool the
 * placement gave it (a whole GPU, a MIG instance or a time-sliced seat), each
 * serving up to `concurrency` requests at once.  A request's service time is
 * its draw x the replica's speed scale (reference SMs / unit SMs)^e x, on a
 * time-sliced GPU, the contention stretch at the moment it starts.  Requests arrive as a
 * non-homogeneous Poisson process (arrivals.h), wait in one FIFO queue shared
 * by all replicas (a central queue: with concurrency 1 this is exactly M/G/c),
 * and are dispatched to the least-loaded replica with a free slot.  A request
 * that finds `queue_limit` others waiting is dropped and counted.
 *
 * Service times are drawn from the stream "service/<name>" at dispatch and
 * arrivals from "arrivals/<name>" (and, when used, "modulation/<name>" and
 * "groups/<name>": arrivals.h), so two runs with the same seed see the same
 * draws (common random numbers).  An arrival that brings a group of G
 * requests admits them one after another at the same instant, as G
 * arrivals would be, except that a batcher or an LLM engine is offered the
 * queue once the whole group is in.
 *
 * Per-request work is a handful of stores: no allocation, no request objects
 * (an in-service request lives in its departure event: arrival time in `data`,
 * replica in `arg`; a waiting one is its arrival time in a ring buffer).
 *
 * Replicas come and go: a slot is off, warming (asked of the fleet, or
 * granted and warming up), ready (dispatching), draining (finishing its
 * requests before giving its unit back) or lost (its unit taken away).  With
 * an autoscaler, every interval the service compares requests in system per
 * replica with its target (and the interval's p95 with its limit), asks the
 * fleet for replicas when above, at most once per cooldown, and drains one
 * when it has needed fewer for its idle delay.  Only ready replicas take new
 * requests; a replica's requests started before it was lost still complete.
 *
 * With "batching" (batcher.h) a replica serves one batch at a time instead:
 * arrivals queue, a free replica takes a batch when the batcher says so, and
 * every request of the batch completes when it ends, batch_time(size) x the
 * replica's speed scale (x contention) later.  One event per batch, plus at
 * most one pending delay timer; a batch on a draining or lost replica
 * completes, as requests in service do.
 *
 * With "batching": {"kind": "continuous"} each replica runs an LLM engine
 * (llm_engine.h) instead, one event per engine step: requests wait in the
 * central queue, an idle or stepping replica takes them at a step boundary
 * while its engine holds fewer than max_seqs, and the engine's scheduler
 * admits, prefills and decodes them.  Per request: queue time (to its first
 * admission), TTFT, TPOT and end-to-end latency.  A replica that loses its
 * unit loses its KV cache: its requests go back to the queue's head and are
 * recomputed elsewhere (a first token already out keeps its TTFT).
 *
 * A disaggregated LLM service ("disaggregation", service_pd.c) prefills on
 * its own replicas and decodes on a second group of replicas, slots
 * n_slots .. n_llm_slots - 1 on the decode pool: a prefilled request's KV
 * crosses its prefill replica's FIFO link to one decode queue, which the
 * decode engines take from at step boundaries.
 *
 * With "spill" (service_spill.c) a request arriving when no ready replica
 * has a free slot and at least when_queue wait is served instead on a free
 * slot of the other region's service, if it has one, and takes the round
 * trip more; it stays this service's request: its completion, latency, SLO
 * and in-flight count are this service's, its GPU time the other's.
 *
 * A deploy step's rollout (service_deploy.c, fs_service_deploy) replaces
 * the replicas ready at its start with new ones, warming up to max_surge at
 * a time in surge slots after the service's own, each old one draining as a
 * new one is ready.
 *
 * Ownership: fs_service is caller-owned (init/fini); it owns its generators,
 * queue, replica tables, histograms and spill link, borrows the spec, the
 * engine, the pool and the service it spills to.  fs_service_finish moves the measured figures into a result.
 */
#ifndef FS_SERVICE_H
#define FS_SERVICE_H

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <stdbool.h>
#include <stdint.h>

#include "arrivals.h"
#include "error.h"
#include "hist.h"
#include "level.h"
#include "tally.h"
#include "fleet.h"
#include "nhpp.h"
#include "placement.h"
#include "pool.h"
#include "results.h"
#include "scenario.h"
#include "trace.h"
#include "sim.h"

/* Most requests a service may hold waiting before the run is stopped as
 * runaway (2^26 arrival times = 512 MiB); set queue_limit to model drops. */
#define FS_SERVICE_MAX_WAITING (UINT64_C(1) << 26)

/* Completed latencies held before they are recorded (see latency_buffer). */
#define FS_SERVICE_LATENCY_BUFFER 32

/* One replica slot (fs_service.replica).  The list heads and the nil node
 * use next and prev only. */
typedef struct fs_service_replica {
    double scale;         /* service-time multiplier from its unit's SMs */
    size_t unit;          /* its unit in the pool */
    uint32_t load;        /* requests in service on it */
    uint32_t next, prev;  /* its load list's neighbours (nodes) */
    uint8_t state;        /* fs_replica_state */
} fs_service_replica;
_Static_assert(sizeof(fs_service_replica) <= 32, "a replica's entry: two to a cache line");

typedef struct fs_service {
    const fs_service_spec *spec;
    fs_sim *sim;
    fs_pool *pool;
    double horizon;
    gsl_rng *service_rng;
    fs_arrival_stream arrivals; /* the arrival points and the requests each brings */
    uint32_t next_group;        /* requests the scheduled arrival brings */
    uint32_t kind_arrival, kind_departure, kind_slo, kind_scale;
    /* What every request reads or writes, together here: with a thousand
     * services every line of a service is a cache miss, and this way a
     * request touches a few lines of it instead of a dozen. */
    fs_service_rep *rep;      /* where the measured figures go (owned by the result) */
    /* Replicas, bucketed by load (requests in service) so the least-loaded one
     * with a free slot is found in O(concurrency) worst case, O(1) typically:
     * node list_head + l heads a doubly linked list (next, prev) of the
     * replicas with load l, ended by node list_nil (service_parts.h).  A
     * replica's fields share one 32-byte entry: a request reads and writes
     * most of them, and as one table each they were as many cache lines
     * (with 10,000 replicas, as many misses). */
    uint32_t n_slots, concurrency;  /* n_slots = the most replicas it may have */
    fs_service_replica *replica;    /* n_slots (+ decode replicas), then the list heads and nil */
    uint32_t list_head, list_nil;
    uint64_t free_slots;      /* free request slots on ready replicas */
    uint64_t in_service;      /* requests being served, on any replica */
    bool time_sliced;         /* a shared pool (time-sliced or fractional): ask it for contention at each start */
    bool batched;             /* dynamic batching (below) */
    bool llm;                 /* continuous batching (below) */
    bool scale_p95;           /* the autoscaler has a p95 trigger (scale_latency) */
    uint32_t n_slo_targets;   /* spec->slo.n_targets */
    uint64_t queue_limit;     /* spec->queue_limit */
    bool trace_sized;         /* spec->arrivals.trace_sized */
    /* spec->service_time, copied (borrowing its samples: never finied
     * here) so that a start reads this line instead of the spec's. */
    fs_dist service_time;
    /* Waiting requests: arrival times in a power-of-two ring buffer, and for
     * sized trace requests their service demand (seconds) beside them. */
    double *ring_demand;
    double *ring;
    uint64_t ring_mask, head, waiting;
    fs_level in_system;       /* requests waiting or in service, integrated */
    /* Replayed arrivals (arrivals.trace): the reader (the row whose arrival
     * is scheduled is next_row, below), and since t = 0 every request's
     * fate (conservation). */
    fs_trace *trace;
    uint64_t all_arrivals, all_completed, all_dropped;
    uint32_t latency_buffered;/* values in latency_buffer (below) */
    uint64_t w_arrivals, w_completed, w_dropped; /* in the open window */
    /* The open SLO window's completions, those past each target, and the
     * targets in ns. */
    uint64_t slo_total, slo_bad[FS_SLO_MAX_TARGETS];
    uint64_t slo_threshold_ns[FS_SLO_MAX_TARGETS];
    double batch_end;         /* when the open settling batch closes (below) */
    size_t index;             /* in the scenario's services */
    fs_fleet *fleet;
    const fs_placement *placement;

    uint32_t n_ready, n_wanted; /* ready; ready + warming, less a rollout's surge warming */
    uint32_t owed;            /* replicas moved off a GPU changing MIG layout, to ask for again (service_move.c) */
    double last_up, last_down, low_since; /* autoscaler memory */
    fs_hist scale_latency;    /* latencies since the last autoscaler look (p95 trigger only) */
    fs_level ready_level;     /* ready replicas, integrated */
    bool blocked_in_window;   /* a scale-up waited for capacity during this SLO window */
    /* Called for every SLO window in breach while a scale-up waited: whoever
     * holds the capacity it waited for is charged the window (seed 003). */
    void (*on_blocked_breach)(void *ctx, size_t service, double minutes);
    void *blocked_ctx;
    /* Called with the start of every SLO window in breach: the run keeps it
     * or hands it to its window sink (windows.h).  0 or an errno value,
     * which stops the run. */
    int (*on_breach)(void *ctx, size_t service, double window_start_s);
    void *breach_ctx;
    /* Dynamic batching (batcher.h): a replica's load is 1 while its batch
     * runs; its batch's arrival times, batch_arrival[r][0 .. batch_n[r]]
     * (a row of max_batch_size, allocated on the slot's first batch).  At
     * most one delay timer is pending, at timer_at (INFINITY: none).
     * Unused (NULL) without batching. */
    double **batch_arrival;
    uint32_t *batch_n;
    uint32_t kind_batch_done, kind_batch_timer;
    double timer_at;
    /* Continuous batching (service_parts.h, service_llm.c): one engine per
     * slot (NULL otherwise); the waiting ring carries each request's tokens
     * beside it, and in ring_demand its first-token time (-1: none yet).
     * Levels over all replicas: running sequences, KV blocks used and KV
     * blocks of ready replicas. */
    struct fs_llm_slot *llm_slots; /* n_llm_slots: the n_slots replicas, then a disaggregated service's decode ones */
    uint32_t n_llm_slots;
    struct fs__llm_pd *pd;    /* disaggregated: the decode side (service_pd.c); NULL otherwise */
    uint64_t *ring_tokens, *ring_prefix;
    uint64_t llm_local;       /* requests routed to replicas, waiting in their queues (counted in in_service) */
    uint32_t llm_rr;          /* round robin: the next slot to try */
    gsl_rng *token_rng, *prefix_rng;
    gsl_ran_discrete_t *prefix_table; /* Zipf over prefix groups */
    uint32_t kind_llm_step;
    fs_level llm_running, llm_kv_used, llm_kv_total, llm_busy;
    double w_running_mark, w_kv_used_mark, w_kv_total_mark;
    fs_hist window_ttft, window_tpot;
    uint64_t w_tokens;
    uint64_t ttft_threshold_ns, tpot_threshold_ns;
    /* The open SLO window's first tokens and completions of >= 2 tokens,
     * and those past the TTFT and TPOT targets. */
    uint64_t slo_ttft_total, slo_ttft_bad, slo_tpot_total, slo_tpot_bad;

    fs_trace_row next_row;    /* a replayed trace's row whose arrival is scheduled */
    /* "spill" (service_spill.c): where a saturated arrival may go; NULL:
     * nowhere (the one branch an arrival pays without it). */
    struct fs__spill *spill;
    /* Deploy steps' rollouts (service_deploy.c); NULL: no step rolls it
     * out.  on_rollout_done is called when one completes: the stream and
     * iteration fs_service_deploy was given, and when it was. */
    struct fs__deploy *deploy;
    void (*on_rollout_done)(void *ctx, uint32_t stream, uint32_t cycle, double submitted, double now);
    void *rollout_ctx;

    /* Measured since the warm-up instant. */
    /* Latencies of the open settling batch (settle.h): merged into
     * rep->latency when it closes, so each completion is recorded here once
     * instead of into rep->latency.  It and window_latency are tallies
     * (tally.h), read through the engine's scratch histogram: a span's
     * values cost 2 bytes each, not a histogram's range.  batch_end
     * (above): when the open batch closes (INFINITY before measuring and
     * for the last batch, which fs_service_finish closes); batch_len: the
     * measured interval / batches. */
    fs_tally batch_latency;
    double batch_start, batch_len;
    fs_tally window_latency;
    /* Latencies completed since the last flush into batch_latency and
     * window_latency (FS_SERVICE_LATENCY_BUFFER at most): with thousands of
     * services each record is a cache miss into a cold counter array, and a
     * flush issues a buffer's worth of independent ones that the CPU
     * overlaps.  Flushed before a batch or window closes and at the end, so
     * every value lands in the batch and window it completed in, in order
     * (the histograms' sums add in the same order: same bytes out). */
    uint64_t latency_buffer[FS_SERVICE_LATENCY_BUFFER];
    double window_start;
    double window_area_mark;  /* in_system.area when the window opened */
} fs_service;

/* Sets up the service, its streams and its first arrival.  Returns FS_OK or
 * an error (FS_ERR_RUNTIME: out of memory). */
int fs_service_init(fs_service *svc, size_t index, const fs_scenario *s,
                    const fs_placement *placement, fs_fleet *fleet, fs_sim *sim, fs_pool *pool,
                    uint32_t replication, fs_service_rep *rep, fs_error *err);

/* Links svc's "spill" (spec->spills) to `to`, the fs_service of
 * spec->spill_to in the same replication, once every service is initialised
 * and before the run.  0 or ENOMEM (svc unchanged). */
int fs_service_link_spill(fs_service *svc, fs_service *to);

/* The fleet's callbacks for this service's replica slot r. */
void fs_service_replica_ready(fs_service *svc, uint32_t r, size_t unit, double now);
void fs_service_replica_evicted(fs_service *svc, uint32_t r, double now);
/* Unit `unit` of pool `pool`, replica r's, changes MIG layout (the fleet's
 * `moved`, repartition.h): the replica is lost as to an eviction, gives the
 * unit back and is asked for again at once, or as soon as a slot is off
 * (service_move.c).  A disaggregated service's decode replica stays. */
void fs_service_replica_move(fs_service *svc, uint32_t r, size_t pool, size_t unit, double now);
void fs_service_fini(fs_service *svc);

/* A deploy step (stream `stream`, pipeline iteration `cycle`) rolls out a
 * new version now (service_deploy.c): its replicas ready at the rollout's
 * start are replaced, up to max_surge new ones asked of the fleet at a
 * time, each warming as a scale-up replica does; as each becomes ready the
 * least-loaded old one drains.  A rollout submitted while another is in
 * progress waits for it (FIFO).  on_rollout_done is called once every old
 * replica is replaced.  0, or ENOMEM (nothing changed). */
int fs_service_deploy(fs_service *svc, uint32_t stream, uint32_t cycle, uint32_t max_surge, double now);

/* Starts measuring at now (the warm-up instant). */
void fs_service_start_measuring(fs_service *svc, double now);

/* Closes the current time-series window at now and writes its row into
 * *row: where rows go (a sink, or kept) is the run's choice (windows.h). */
void fs_service_close_window(fs_service *svc, double now, fs_service_window *row);

/* Final figures at the horizon (in flight, Little's law level; the growth
 * fit is the run's, from the windows: windows.h).
 * 0, or ENOMEM when the latency histogram could not grow to take the last
 * batch. */
int fs_service_finish(fs_service *svc, double now);

#endif

/*
 * fleet — the capacity manager: who holds which unit, and who waits for one.
 *
 * Every unit of every pool (placement.h) is absent (its GPU not provisioned,
 * or its MIG layout not in force there: repartition.h),
 * free, switching (being evicted or warmed for a new tenant) or held by a
 * service replica or a training job.  Services and training jobs ask for
 * units with requests; the policy (policy.h) says which pools a request may
 * use, in which order pending requests are served, and whose units a request
 * may evict.  A gang's units come from one pool, or, for a request that may
 * split (fs_request.across_pools) and finds no one pool with room, from the
 * free units of several (pick.h).  A granted unit warms up for the time the switch-cost profile
 * gives for its new tenant (context, framework, weights or state, first
 * kernels) and then calls its holder back; a unit given back, or taken by
 * eviction, is free again after its eviction time.  Time spent switching is
 * switch overhead, counted in GPU-seconds beside busy and idle.
 *
 * Elastic pools add GPUs while requests they could serve wait (each after a
 * provisioning delay) and give back GPUs idle for their idle delay; spot
 * pools lose GPUs at their reclaim hazard, evicting what runs there.
 *
 * Ownership: fs_fleet is caller-owned (init/fini); it owns its unit states,
 * request queue and per-GPU tables; it borrows the scenario variant, the
 * placement, the pools' runtimes and the engine.
 */
#ifndef FS_FLEET_H
#define FS_FLEET_H

#include <gsl/gsl_rng.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "placement.h"
#include "pool.h"
#include "scenario.h"
#include "sim.h"

struct fs_policy_ops;

typedef enum fs_holder_kind { FS_HOLDER_NONE, FS_HOLDER_SERVICE, FS_HOLDER_TRAINING } fs_holder_kind;

typedef enum fs_unit_state {
    FS_UNIT_ABSENT,    /* its GPU is not provisioned (elastic pools), or its MIG layout not in force */
    FS_UNIT_FREE,
    FS_UNIT_WARMING,   /* granted, warming up for its holder */
    FS_UNIT_HELD,      /* serving its holder */
    FS_UNIT_EVICTING   /* being emptied; free when done */
} fs_unit_state;

typedef struct fs_unit_rt {
    fs_unit_state state;
    fs_holder_kind kind;
    uint32_t owner;      /* service index, or training job id */
    uint32_t slot;       /* replica index, or gang member */
    bool preemptible;
    fs_lane lane;
    double memory_gb;    /* what its holder uses (time-sliced seats share their GPU's) */
} fs_unit_rt;

/* A holder's side: the fleet calls these (models/study/run.c provides them,
 * forwarding to fs_service_replica_* and fs_training_member_*).  `ready`:
 * unit u of pool p has warmed up for (owner, slot).
 * `evicted`: the fleet takes the unit back (preemption, spot reclaim).
 * `granted` (may be NULL): a request of owner's was granted at now, all its
 * units at once, before any of them warms up: the end of its queue wait.
 * `moved` (may be NULL: not movable): the unit's GPU changes MIG layout
 * (repartition.h): the holder gives the unit back and asks again, or, when
 * it cannot, keeps it (it is waited for). */
typedef struct fs_holder_ops {
    void (*ready)(void *holder_ctx, uint32_t owner, uint32_t slot, size_t pool, size_t unit, double now);
    void (*evicted)(void *holder_ctx, uint32_t owner, uint32_t slot, size_t pool, size_t unit, double now);
    void (*granted)(void *holder_ctx, uint32_t owner, double now);
    void (*moved)(void *holder_ctx, uint32_t owner, uint32_t slot, size_t pool, size_t unit, double now);
} fs_holder_ops;

/* What a granted unit warms up for; the duration comes from the switch-cost
 * profile of the granted pool's GPU type. */
typedef enum fs_warmup_kind {
    FS_WARMUP_REPLICA,        /* context + framework + weights from storage + first kernels */
    FS_WARMUP_STATE_STORAGE,  /* context + framework + state (or checkpoint) from storage */
    FS_WARMUP_STATE_HOST      /* context + framework + state saved in host memory, at H2D */
} fs_warmup_kind;

typedef struct fs_request {
    fs_holder_kind kind;
    uint32_t owner;
    uint32_t units;        /* all granted at once (a gang), or none */
    double memory_gb;      /* per unit */
    fs_warmup_kind warmup; /* per unit, once granted; of memory_gb */
    double warm_gb;        /* > 0: what the warm-up reads instead of memory_gb (an LLM's weights) */
    size_t pool;           /* SIZE_MAX: any pool the policy allows; else only this one */
    fs_lane lane;
    bool preemptible;
    bool across_pools;     /* a gang no one pool has free units for may take free units of
                            * several pools it may use, in pool order (README "Gangs across
                            * pools"); never by evicting.  false: all from one pool */
    double since;          /* when it was asked for */
    uint64_t seq;          /* ask order, for FIFO */
    uint32_t first_slot;   /* slots first_slot .. first_slot + units - 1 */
    uint32_t team;         /* a training job's team in the scenario's "quotas" (k: quotas[k - 1],
                            * n_quotas + 1: "unlisted"); 0: not subject to quotas (quota.h) */
} fs_request;

typedef struct fs_fleet fs_fleet;

/* The per-pool runtime extras of an elastic or spot pool. */
typedef struct fs_gpu_rt {
    bool present;
    bool provisioning;   /* asked for, not yet ready */
    double idle_since;   /* every unit free since then; -1 when not */
    double reclaim_at;   /* a spot GPU: the reclaim drawn for its current stay (an earlier stay's is stale) */
} fs_gpu_rt;

struct fs_fleet {
    const fs_scenario *scenario;
    const fs_placement *placement;
    const struct fs_policy_ops *policy;
    fs_sim *sim;
    fs_pool *pools;              /* the pools' runtimes (busy / idle / switching levels) */
    fs_unit_rt **units;          /* [pool][unit] */
    fs_gpu_rt **gpus;            /* [pool][gpu], max_gpus each */
    uint32_t *present_gpus;      /* per pool */
    uint32_t *provisioning_gpus; /* per pool */
    struct fs_queue *queue;      /* the waiting requests, in the policy's order (queue.h) */
    unsigned exact;              /* passes over the queue that evict, running (see fs__serve_pending) */
    uint64_t next_seq;
    const fs_holder_ops *holder_ops[3];
    void *holder_ctx[3];
    gsl_rng *rng;                /* provisioning delays and spot reclaims: stream "fleet" */
    uint32_t kind_switched, kind_provisioned, kind_tick, kind_reclaim;
    double horizon;
    uint64_t reclaims;           /* spot GPUs taken back */
    size_t max_pool_units;       /* units of the largest pool at its largest size */
    size_t all_units;            /* units of every pool together, at their largest sizes */
    struct fs_pick_member *chosen; /* all_units: scratch for a gang's units, split or not (pick.h) */
    /* Indexes that keep the cost of an event from growing with the fleet
     * or the queue (see README.md "Indexes"), per pool: */
    size_t *n_free;              /* units FREE */
    size_t *n_evicting;          /* units EVICTING */
    size_t *n_evictable;         /* units HELD by a preemptible holder (only those may be evicted) */
    size_t n_evictable_all;      /* the same over every pool */
    bool *uniform;               /* whole GPUs all alike: best fit is the first free units */
    uint32_t **want;             /* [pool][units]: waiting requests the pool may serve, by gang size */
    size_t *want_min;            /* smallest gang in want[pool] (max_pool_units + 1: none) */
    uint64_t *want_units;        /* units those requests ask for, together */
    /* Waiting requests that may split across pools, by gang size (0 ..
     * all_units, all_units + 1: larger), with the smallest (all_units + 1:
     * none): while the free units of every pool together are fewer, none
     * of them can start. */
    uint32_t *across_want;
    size_t across_min;
    bool stale;                  /* a unit freed (or room made) since the last pass over the queue */
    struct fs_pick_candidate *candidates; /* max_pool_units: scratch for best fit in mixed pools (pick.h) */
    /* Each training job's tenant units (WARMING or HELD), by global unit
     * number (unit_base[pool] + unit), so a job's release walks its own
     * units; held_scan: an owner table failed to grow, so releases walk
     * the pools as before (slower, same result). */
    struct fs_holders *held;
    size_t *unit_base;           /* per pool */
    uint32_t *held_units;        /* scratch: one job's units, at most every unit */
    bool held_scan;
    /* Quotas, reclaim and reservations (quota.h); NULL when the scenario
     * has neither "quotas" nor "reserve_after". */
    struct fs_quota *quota;
    bool fair_pass;              /* a pass in fair order is running (fleet.c, fs__serve_fair) */
    /* Pools that switch MIG layouts at run time (repartition.h); NULL when
     * none does. */
    struct fs_repart *repart;
};

/* 0, or ENOMEM.  Units placed at t = 0 (the static placement) start held and
 * ready; GPUs beyond an elastic pool's starting size start absent. */
int fs_fleet_init(fs_fleet *f, const fs_scenario *s, const fs_placement *placement,
                  const struct fs_policy_ops *policy, fs_sim *sim, fs_pool *pools,
                  uint64_t seed, uint32_t replication);
void fs_fleet_fini(fs_fleet *f);

void fs_fleet_set_holder(fs_fleet *f, fs_holder_kind kind, const fs_holder_ops *ops, void *ctx);

/* Asks for units; grants at once if it can (the holder's `ready` follows
 * after warm-up), else queues the request.  0, or ENOMEM. */
int fs_fleet_request(fs_fleet *f, const fs_request *r);

/* Withdraws the pending requests of (kind, owner), e.g. a scale-up no longer
 * wanted.  Returns how many slots were withdrawn. */
uint32_t fs_fleet_withdraw(fs_fleet *f, fs_holder_kind kind, uint32_t owner);

/* Withdraws the pending request for slot `slot` of (kind, owner), if any. */
void fs_fleet_withdraw_slot(fs_fleet *f, fs_holder_kind kind, uint32_t owner, uint32_t slot);

/* Gives back every unit (kind, owner) holds or is warming, and withdraws its
 * pending requests: a gang ends, or is preempted, all at once. */
void fs_fleet_release_holder(fs_fleet *f, fs_holder_kind kind, uint32_t owner, double evict_s,
                             double now);

/* The holder gives unit u of pool p back; it is free after `evict_s`. */
void fs_fleet_release(fs_fleet *f, size_t pool, size_t unit, double evict_s, double now);

/* Requests waiting, in units, for (kind, owner) (kind NONE: everyone). */
uint32_t fs_fleet_waiting_units(const fs_fleet *f, fs_holder_kind kind, uint32_t owner);

/* Warm-up time of a unit of pool p for `kind` with gib GiB of weights or
 * state, from the profile of the pool's GPU type (its bandwidths are GB/s,
 * 10^9 bytes a second: sizes are converted). */
double fs_fleet_warmup_s(const fs_scenario *s, size_t pool, fs_warmup_kind kind, double gib);

/* Time to save gib GiB of state to host memory (an eviction with "save"). */
double fs_fleet_save_s(const fs_scenario *s, size_t pool, double gib);

#endif

/*
 * service_parts — what service.c shares with service_llm.c, the service's
 * continuous-batching half; private to the two (service.h is the contract).
 *
 * The split is the scenario module's (scenario_parse.h): one module, two
 * files, so that neither passes the tree's 1,000-line bound.
 */
#ifndef FS_SERVICE_PARTS_H
#define FS_SERVICE_PARTS_H

#include "llm_engine.h"
#include "service.h"

typedef enum fs_replica_state {
    FS__OFF, FS__WARMING, FS__READY, FS__DRAINING, FS__LOST
} fs_replica_state;

#define FS__PRIORITY_REQUEST 1 /* window and warm-up ticks (priority 0) run first at equal times */

/* A request outside an engine: arrival, first-token time (-1: none yet),
 * tokens (prompt << 32 | output), prefix (key << 32 | tokens). */
typedef struct fs__llm_request {
    double arrival, first;
    uint64_t tokens, prefix;
} fs__llm_request;

/* One LLM replica slot: its engine over its own arrays, the step in flight
 * (its events apply at its end), and the state of each request in the
 * engine, by engine id (0 .. cap - 1): arrival, first-token time (-1: none
 * yet) and tokens (prompt << 32 | output).  Allocated on the slot's first
 * start, sized by the slot's engine (2 x max_seqs requests). */
struct fs_llm_slot {
    fs_llm_engine engine;
    fs_llm_step_model step;
    fs_llm_seq *running, *waiting;
    fs_llm_event *events;
    fs_llm_step_out out;
    bool stepping;
    double step_start;
    uint32_t kv_blocks;
    uint32_t cap;
    double *arrival, *first_token;
    uint64_t *tokens, *prefix;
    fs_llm_prefix cache;  /* this replica's prefix cache (entries NULL: none) */
    /* Routed requests waiting for this replica's engine (not with central
     * routing): a growable ring, oldest at local_head. */
    fs__llm_request *local;
    uint64_t local_head, local_n, local_cap;
    uint32_t *free_ids, n_free;
    uint32_t level_running, level_blocks; /* this slot's share of the service's levels */
    uint64_t generation;  /* bumped when the replica is lost: its step in flight is void */
};

/* service.c: the waiting ring and the bookkeeping every request goes through. */
/* An LLM request carries its tokens (prompt << 32 | output) and prefix
 * (key << 32 | prefix tokens; 0: none) beside its arrival. */
int fs__service_ring_push(fs_service *svc, double arrival, double demand, uint64_t tokens, uint64_t prefix);
double fs__service_ring_pop(fs_service *svc, double *demand, uint64_t *tokens, uint64_t *prefix);
/* Puts a request back at the head of the ring (it keeps its age). */
int fs__service_ring_unpop(fs_service *svc, double arrival, double demand, uint64_t tokens, uint64_t prefix);
void fs__service_complete(fs_service *svc, double now, double arrival);
void fs__service_occupy(fs_service *svc, uint32_t r, double now);
void fs__service_release(fs_service *svc, uint32_t r, double now);
uint32_t fs__service_pick_replica(const fs_service *svc);
void fs__service_drop(fs_service *svc);

/* service_llm.c */
int fs__llm_init(fs_service *svc, uint64_t seed, uint32_t replication);
void fs__llm_fini(fs_service *svc);
/* An arrival: tokens drawn or read, queued, dispatched. */
void fs__llm_arrival(fs_service *svc, double now);
/* Idle ready replicas take waiting requests and start stepping. */
void fs__llm_dispatch(fs_service *svc, double now);
/* Replica r became ready on its unit: its engine, sized for the unit. */
int fs__llm_replica_ready(fs_service *svc, uint32_t r, size_t unit, double now);
/* Replica r starts draining: requests routed to it and not yet in its
 * engine go back to the queue's head and are routed again. */
void fs__llm_replica_draining(fs_service *svc, uint32_t r, double now);
/* Replica r lost its unit, or gives an idle one back: the requests in its
 * engine go back to the head of the queue, to be recomputed elsewhere
 * (their KV cache is gone); the slot is off. */
void fs__llm_replica_lost(fs_service *svc, uint32_t r, double now);
void fs__llm_on_step(fs_sim *sim, const fs_event *ev, void *ctx);
/* Requests in the engines older than each SLO threshold, added to late[j]. */
void fs__llm_late_in_service(const fs_service *svc, double now, uint64_t late[FS_SLO_MAX_TARGETS]);
/* Whether the SLO window ending now breached the TTFT or TPOT target:
 * fewer than ceil(q n) of its n requests within it, where n counts the
 * window's first tokens (completions for TPOT) plus the requests still
 * unfinished and already past the target.  Resets the window's counts. */
bool fs__llm_window_breached(fs_service *svc, double now);
void fs__llm_start_measuring(fs_service *svc, double now);
void fs__llm_close_window(fs_service *svc, double now, fs_service_window *w);
void fs__llm_finish(fs_service *svc, double now);

#endif

/*
 * service_parts — what service.c shares with service_llm.c, the service's
 * continuous-batching half (and with service_pd.c and service_move.c);
 * private to them (service.h is the contract).
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

/* Replica load buckets (service.h).  The lists are doubly linked through
 * next and prev over nodes: the replicas, then one head node per load
 * (list_head + l), then a nil node (list_nil) that ends every list.  Heads
 * and nil being nodes, linking and unlinking write through them without a
 * branch: with a replica's neighbours unknown, the branches of a plain list
 * were mispredicted on every request. */
static inline void fs__service_bucket_remove(fs_service *svc, uint32_t r)
{
    uint32_t p = svc->replica[r].prev, n = svc->replica[r].next;
    svc->replica[p].next = n;
    svc->replica[n].prev = p; /* the nil node's prev is scratch */
}

static inline void fs__service_bucket_insert(fs_service *svc, uint32_t r)
{
    uint32_t head = svc->list_head + svc->replica[r].load, first = svc->replica[head].next;
    svc->replica[r].next = first;
    svc->replica[r].prev = head;
    svc->replica[first].prev = r;
    svc->replica[head].next = r;
}

/* The first replica of load l's list, or list_nil. */
static inline uint32_t fs__service_bucket_first(const fs_service *svc, uint64_t l)
{
    return svc->replica[svc->list_head + l].next;
}

/* The least-loaded replica with a free slot; requires free_slots > 0. */
static inline uint32_t fs__service_pick_replica(const fs_service *svc)
{
    for (uint32_t l = 0;; l++)
        if (fs__service_bucket_first(svc, l) != svc->list_nil)
            return fs__service_bucket_first(svc, l);
}

/* A request's token counts, packed: prompt << 32 | output. */
static inline uint64_t fs__tokens_pack(uint64_t prompt, uint64_t output) { return prompt << 32 | output; }
static inline uint32_t fs__tokens_prompt(uint64_t t) { return (uint32_t)(t >> 32); }
static inline uint32_t fs__tokens_output(uint64_t t) { return (uint32_t)t; }

/* A request outside an engine: arrival, first-token time (-1: none yet),
 * tokens (prompt << 32 | output), prefix (key << 32 | tokens); a request in
 * KV transfer also carries when its transfer was asked for. */
typedef struct fs__llm_request {
    double arrival, first;
    uint64_t tokens, prefix;
    double sent;
} fs__llm_request;

/* A FIFO of requests: a power-of-two ring, grown by doubling. */
typedef struct fs__llm_ring {
    fs__llm_request *at;
    uint64_t head, n, cap;
} fs__llm_ring;

int fs__llm_ring_push(fs__llm_ring *q, const fs__llm_request *req); /* 0 or ENOMEM */
fs__llm_request fs__llm_ring_pop(fs__llm_ring *q);                  /* requires n > 0 */
static inline const fs__llm_request *fs__llm_ring_at(const fs__llm_ring *q, uint64_t i)
{
    return &q->at[(q->head + i) & (q->cap - 1)];
}

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
     * routing). */
    fs__llm_ring local;
    /* A disaggregated service's prefill replica: requests whose KV crosses
     * its link, in the order they finish (FIFO), and when the link is free. */
    fs__llm_ring xfer;
    double link_free;
    uint32_t *free_ids, n_free;
    uint32_t level_running, level_blocks; /* this slot's share of the service's levels */
    uint64_t generation;  /* bumped when the replica is lost: its step in flight is void */
};

/* A disaggregated service's decode side (service_pd.c): its replicas are
 * slots n_slots .. n_slots + n_decode - 1 of the service's tables. */
struct fs__llm_pd {
    uint32_t n_decode;
    fs_pool *pool;            /* the decode group's pool */
    bool time_sliced;
    double kv_bytes_per_token;
    fs__llm_ring queue;       /* requests whose KV arrived, waiting for a decode engine, oldest first */
    uint32_t idle;            /* ready decode replicas with nothing to run */
    uint32_t kind_kv_done;
    fs_level ready;           /* ready decode replicas */
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
void fs__service_drop(fs_service *svc);
/* A histogram could not grow: fails the run (its figures would be short). */
void fs__service_no_memory(fs_service *svc);
/* service_move.c: asks the fleet for one more replica in the first slot
 * that is off (0 when none is: nothing asked; else fs_fleet_request's
 * code); and asks for replicas owed while slots are off. */
int fs__service_ask(fs_service *svc);
void fs__service_repay(fs_service *svc, double now);

/* service.c: ready replica r takes no new request: it drains, and gives
 * its unit back once its requests are done (at once when it has none). */
void fs__service_drain(fs_service *svc, uint32_t r, double now);

/* service_deploy.c: a deploy step's rollouts.  init (before the replica
 * tables are sized) keeps max surge slots beside the service's own when a
 * step rolls it out: 0 or ENOMEM.  ready: replica r became ready; lost:
 * replica r is about to be lost (fs_service_replica_evicted, its state not
 * yet changed). */
int fs__deploy_init(fs_service *svc, const fs_scenario *s);
void fs__deploy_fini(fs_service *svc);
void fs__deploy_ready(fs_service *svc, uint32_t r, double now);
void fs__deploy_lost(fs_service *svc, uint32_t r, double now);
/* A slot turned off (fs__service_repay): a new replica may be asked for. */
void fs__deploy_slot_off(fs_service *svc, double now);
/* For the autoscaler's scale-down: whether slot r holds a rollout's surge
 * replica (not the autoscaler's to withdraw), and retiring the least-loaded
 * old replica of the rollout in progress (false: none, nothing done). */
bool fs__deploy_is_surge(const fs_service *svc, uint32_t r);
bool fs__deploy_retire_old(fs_service *svc, double now);

/* service.c: replica r's slot is free (a request ended there): the oldest
 * waiting request takes it, else it is released; a request's service time
 * on replica r (demand as a sized trace's, < 0: drawn). */
void fs__service_slot_freed(fs_service *svc, uint32_t r, double now);
double fs__service_time(fs_service *svc, double demand, uint32_t r);

/* service_spill.c: a service's "spill" to a service of another region. */
struct fs__spill {
    fs_service *from, *to;
    double added_s;        /* the round trip added to each spilled request's latency */
    uint64_t when_queue;   /* spill only with at least this many waiting */
    uint32_t kind;         /* a spilled request's end on `to`: arg its replica there, data its arrival */
};
/* svc has no free slot at now and when_queue wait: the arriving request
 * (demand as fs__service_time's) is served on a free slot of spill->to;
 * false when it has none (the request stays). */
bool fs__spill_out(fs_service *svc, double now, double demand);

/* service_llm.c */
int fs__llm_init(fs_service *svc, uint64_t seed, uint32_t replication);
void fs__llm_fini(fs_service *svc);
/* An arrival: tokens drawn or read, then queued (true), or refused as too
 * long or dropped at the queue limit, or the run stopped (false).  The
 * caller offers the queue to the replicas (fs__llm_dispatch) once its
 * group is in. */
bool fs__llm_arrival(fs_service *svc, double now);
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

/* service_llm.c, for service_pd.c: a request into slot r's engine (false:
 * refused, counted as dropped), the first token of a request, and a step. */
bool fs__llm_enter(fs_service *svc, uint32_t r, const fs__llm_request *req, double now);
void fs__llm_first_token(fs_service *svc, double arrival, double now);
void fs__llm_start_step(fs_service *svc, uint32_t r, double now);
/* Puts slot r's requests (queued, in transfer and, with `engine`, in its
 * engine) back at the head of the central queue.  0 or ENOMEM. */
int fs__llm_give_back(fs_service *svc, uint32_t r, bool engine);
/* Calls visit(ctx, request) for every request queued at or inside a
 * replica, in transfer or waiting for decode (not the central queue). */
void fs__llm_each_held(const fs_service *svc, void (*visit)(void *ctx, const fs__llm_request *req), void *ctx);

/* service_pd.c */
static inline bool fs__llm_is_decode(const fs_service *svc, uint32_t r) { return r >= svc->n_slots; }
int fs__pd_init(fs_service *svc);
void fs__pd_fini(fs_service *svc);
/* Prefill replica r finished request `req`'s prefill: its KV crosses the link. */
int fs__pd_send(fs_service *svc, uint32_t r, const fs__llm_request *req, double now);
/* Decode replica r fills its engine from the decode queue. */
void fs__pd_pull(fs_service *svc, uint32_t r, double now);
/* Decode replica r ran out of work. */
void fs__pd_idle(fs_service *svc, uint32_t r, double now);
/* Decode replica r lost its unit, busy or idle (its requests were given back). */
void fs__pd_lost(fs_service *svc, uint32_t r, bool busy, double now);
void fs__pd_start_measuring(fs_service *svc, double now);
void fs__pd_finish(fs_service *svc, double now);

#endif

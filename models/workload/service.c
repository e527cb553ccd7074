#include "service.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batcher.h"
#include "grow.h"
#include "rng.h"
#include "service_parts.h"
#include "settle.h"

static inline void fs__occupy(fs_service *svc, uint32_t r, double now)
{
    fs__service_bucket_remove(svc, r);
    if (svc->replica[r].load++ == 0)
        fs_pool_unit_busy(svc->pool, now, svc->replica[r].unit, +1);
    fs__service_bucket_insert(svc, r);
    svc->free_slots--;
    svc->in_service++;
}

static void fs__set_ready_count(fs_service *svc, double now, int delta)
{
    svc->n_ready += delta;
    fs_level_add(&svc->ready_level, now, delta);
}

/* A request ends on a replica that is not taking requests: the last one out
 * of a draining replica gives its unit back; a lost one just empties. */
static void fs__release_leaving(fs_service *svc, uint32_t r, double now)
{
    svc->in_service--;
    if (--svc->replica[r].load > 0)
        return;
    if (svc->replica[r].state == FS__DRAINING) {
        fs_pool_unit_busy(svc->pool, now, svc->replica[r].unit, -1);
        fs_fleet_release(svc->fleet, svc->spec->pool, svc->replica[r].unit, 0, now);
    }
    svc->replica[r].state = FS__OFF;
    if (svc->owed > 0 || svc->deploy)
        fs__service_repay(svc, now);
}

static inline void fs__release(fs_service *svc, uint32_t r, double now)
{
    if (svc->replica[r].state != FS__READY) {
        fs__release_leaving(svc, r, now);
        return;
    }
    fs__service_bucket_remove(svc, r);
    if (--svc->replica[r].load == 0)
        fs_pool_unit_busy(svc->pool, now, svc->replica[r].unit, -1);
    fs__service_bucket_insert(svc, r);
    svc->free_slots++;
    svc->in_service--;
}

/* ---- waiting room -------------------------------------------------------- */

/* A ring of cap entries of `size` bytes (the arrival times, and beside an
 * LLM service's its tokens) grown to 2 x cap, unwrapped so that the oldest
 * entry (at head) lands at index 0.  NULL when out of memory. */
static void *fs__ring_unwrap(const void *ring, size_t size, uint64_t cap, uint64_t head)
{
    char *grown = malloc(2 * cap * size);
    if (grown) {
        memcpy(grown, (const char *)ring + head * size, (cap - head) * size);
        memcpy(grown + (cap - head) * size, ring, head * size);
    }
    return grown;
}

static int fs__ring_grow(fs_service *svc)
{
    uint64_t cap = svc->ring_mask + 1;
    uint64_t h = svc->head;
    double *grown = fs__ring_unwrap(svc->ring, sizeof *grown, cap, h);
    double *grown_demand = svc->ring_demand ? fs__ring_unwrap(svc->ring_demand, sizeof *grown, cap, h) : NULL;
    uint64_t *grown_tokens = svc->ring_tokens ? fs__ring_unwrap(svc->ring_tokens, sizeof *grown_tokens, cap, h) : NULL;
    uint64_t *grown_prefix = svc->ring_prefix ? fs__ring_unwrap(svc->ring_prefix, sizeof *grown_prefix, cap, h) : NULL;
    if (!grown || (svc->ring_demand && !grown_demand) || (svc->ring_tokens && !grown_tokens) ||
        (svc->ring_prefix && !grown_prefix)) {
        free(grown);
        free(grown_demand);
        free(grown_tokens);
        free(grown_prefix);
        return ENOMEM;
    }
    free(svc->ring);
    free(svc->ring_demand);
    free(svc->ring_tokens);
    free(svc->ring_prefix);
    svc->ring = grown;
    svc->ring_demand = grown_demand;
    svc->ring_tokens = grown_tokens;
    svc->ring_prefix = grown_prefix;
    svc->head = 0;
    svc->ring_mask = 2 * cap - 1;
    return 0;
}

int fs__service_ring_push(fs_service *svc, double arrival, double demand, uint64_t tokens, uint64_t prefix)
{
    if (svc->waiting > svc->ring_mask && fs__ring_grow(svc) != 0)
        return ENOMEM;
    uint64_t at = (svc->head + svc->waiting) & svc->ring_mask;
    svc->ring[at] = arrival;
    if (svc->ring_demand)
        svc->ring_demand[at] = demand;
    if (svc->ring_tokens)
        svc->ring_tokens[at] = tokens;
    if (svc->ring_prefix)
        svc->ring_prefix[at] = prefix;
    svc->waiting++;
    return 0;
}

int fs__service_ring_unpop(fs_service *svc, double arrival, double demand, uint64_t tokens, uint64_t prefix)
{
    if (svc->waiting > svc->ring_mask && fs__ring_grow(svc) != 0)
        return ENOMEM;
    svc->head = (svc->head - 1) & svc->ring_mask;
    svc->ring[svc->head] = arrival;
    if (svc->ring_demand)
        svc->ring_demand[svc->head] = demand;
    if (svc->ring_tokens)
        svc->ring_tokens[svc->head] = tokens;
    if (svc->ring_prefix)
        svc->ring_prefix[svc->head] = prefix;
    svc->waiting++;
    return 0;
}

/* The oldest waiting request's arrival; its demand (-1: draw one) in *demand. */
static inline double fs__ring_pop(fs_service *svc, double *demand)
{
    double arrival = svc->ring[svc->head];
    *demand = svc->ring_demand ? svc->ring_demand[svc->head] : -1;
    svc->head = (svc->head + 1) & svc->ring_mask;
    svc->waiting--;
    return arrival;
}

double fs__service_ring_pop(fs_service *svc, double *demand, uint64_t *tokens, uint64_t *prefix)
{
    *tokens = svc->ring_tokens ? svc->ring_tokens[svc->head] : 0;
    *prefix = svc->ring_prefix ? svc->ring_prefix[svc->head] : 0;
    return fs__ring_pop(svc, demand);
}

/* ---- events ---------------------------------------------------------------- */

/* demand: the request's service time on a reference GPU (a sized trace
 * request), or < 0 to draw it from the service's distribution. */
static inline double fs__service_s(fs_service *svc, double demand, uint32_t replica)
{
    double service = (demand >= 0 ? demand : fs_dist_sample(&svc->service_time, svc->service_rng)) *
                     svc->replica[replica].scale;
    return svc->time_sliced ? service * fs_pool_contention(svc->pool, svc->replica[replica].unit) : service;
}
double fs__service_time(fs_service *svc, double demand, uint32_t r) { return fs__service_s(svc, demand, r); }

static inline void fs__start(fs_service *svc, double now, double arrival, double demand, uint32_t replica)
{
    svc->rep->started++;
    svc->rep->wait_sum_s += now - arrival;
    double service = fs__service_s(svc, demand, replica);
    fs_sim_schedule(svc->sim, now + service, FS__PRIORITY_REQUEST, svc->kind_departure, replica, arrival);
}

static inline void fs__count_slo_miss_all(fs_service *svc)
{
    if (!svc->n_slo_targets)
        return;
    svc->slo_total++;
    for (size_t j = 0; j < svc->n_slo_targets; j++)
        svc->slo_bad[j]++;
}

/* The next arrival after now: the next row of a replayed trace (a bad row
 * stops the run as bad input), else the next point of the Poisson process. */
static void fs__schedule_arrival(fs_service *svc, double now)
{
    double next;
    if (svc->trace) {
        fs_error err = {0};
        int got = fs_trace_next(svc->trace, &svc->next_row, &err);
        if (got < 0) {
            fs_sim_fail(svc->sim, err.code == FS_ERR_INPUT ? EILSEQ : ENOMEM, "%s", err.msg);
            return;
        }
        next = got ? svc->next_row.t : INFINITY;
        /* Each row due by the horizon arrives: the replay's load comes from them (results.h). */
        fs_span_add(&svc->rep->arrival_span, next);
    } else {
        next = fs_arrival_stream_next(&svc->arrivals, now, svc->horizon, &svc->next_group);
    }
    if (next <= svc->horizon)
        fs_sim_schedule(svc->sim, next, FS__PRIORITY_REQUEST, svc->kind_arrival, 0, 0);
}

static void fs__batch_dispatch(fs_service *svc, double now);

static int fs__admit_saturated(fs_service *svc, double now, double demand);

/* One request arriving at now: counted, then served at once (0), queued
 * (1) or dropped (0); -1 when the run was stopped. */
static int fs__admit(fs_service *svc, double now)
{
    fs_service_rep *rep = svc->rep;
    const fs_arrivals *a = &svc->spec->arrivals; /* read for sized trace rows only */
    double demand = svc->trace_sized ? a->trace_base_s + a->trace_per_size_s[0] * svc->next_row.size[0] +
                                           a->trace_per_size_s[1] * svc->next_row.size[1] : -1;
    rep->requests++;
    svc->w_arrivals++;
    svc->all_arrivals++;
    if (demand >= 0)
        rep->trace_demand_s += demand;
    if (svc->llm)
        return fs__llm_arrival(svc, now);
    if (svc->free_slots && !svc->batched) {
        uint32_t r = fs__service_pick_replica(svc);
        fs__occupy(svc, r, now);
        fs_level_add(&svc->in_system, now, +1);
        fs__start(svc, now, now, demand, r);
        return 0;
    }
    return fs__admit_saturated(svc, now, demand);
}

/* fs__admit's request that finds no free slot (or a batcher): spilled,
 * dropped or queued.  Out of line, so that the common admission keeps few
 * registers to save. */
static __attribute__((noinline)) int fs__admit_saturated(fs_service *svc, double now, double demand)
{
    /* Saturated: perhaps to another region (service_spill.c). */
    if (svc->spill && svc->waiting >= svc->spill->when_queue && fs__spill_out(svc, now, demand))
        return 0;
    /* Dropped at the limit unless a replica is free (batched: it waits for its next batch). */
    if (svc->waiting >= svc->queue_limit && !svc->free_slots) {
        fs__service_drop(svc);
        return 0;
    }
    if (svc->waiting >= FS_SERVICE_MAX_WAITING) {
        fs_sim_fail(svc->sim, ENOSPC,
                    "service \"%s\": more than %llu requests waiting at t=%.0fs: arrivals "
                    "exceed capacity; set a queue_limit to model drops instead",
                    svc->spec->name, (unsigned long long)FS_SERVICE_MAX_WAITING, now);
        return -1;
    }
    if (fs__service_ring_push(svc, now, demand, 0, 0) != 0) {
        fs_sim_fail(svc->sim, ENOMEM, "service \"%s\": out of memory for %llu waiting requests",
                    svc->spec->name, (unsigned long long)svc->waiting + 1);
        return -1;
    }
    fs_level_add(&svc->in_system, now, +1);
    return 1;
}

/* An arrival brings next_group requests (one from a trace), admitted in
 * order at one instant; once all are in, a batcher or LLM engine is offered
 * the queue (a group may share a batch) and the peak queue noted. */
static void fs__on_arrival(fs_sim *sim, const fs_event *ev, void *ctx)
{
    (void)ev;
    fs_service *svc = ctx;
    double now = sim->now;
    uint32_t n = svc->trace ? 1 : svc->next_group;
    bool queued = false;
    for (uint32_t i = 0; i < n; i++) {
        int got = fs__admit(svc, now);
        if (got < 0)
            return;
        queued |= got > 0;
    }
    if (queued) {
        if (svc->llm)
            fs__llm_dispatch(svc, now);
        else if (svc->batched)
            fs__batch_dispatch(svc, now);
        /* llm_local: requests routed to an LLM replica's own queue (0 elsewhere). */
        if (svc->waiting + svc->llm_local > svc->rep->peak_queue)
            svc->rep->peak_queue = svc->waiting + svc->llm_local;
    }
    fs__schedule_arrival(svc, now);
}

void fs__service_no_memory(fs_service *svc)
{
    fs_sim_fail(svc->sim, ENOMEM, "service \"%s\": out of memory for latency histograms", svc->spec->name);
}

void fs__service_drop(fs_service *svc)
{
    svc->rep->dropped++;
    svc->w_dropped++;
    svc->all_dropped++;
    fs__count_slo_miss_all(svc); /* a dropped request never meets a latency target */
}

/* Records the buffered latencies into the batch and window histograms. */
static void fs__flush_latencies(fs_service *svc)
{
    int failed = 0;
    for (uint32_t i = 0; i < svc->latency_buffered; i++) {
        uint64_t ns = svc->latency_buffer[i];
        /* Histograms grow when a value opens a new octave; | keeps both records. */
        failed |= fs_tally_record(&svc->batch_latency, ns) | fs_tally_record(&svc->window_latency, ns);
    }
    svc->latency_buffered = 0;
    if (failed)
        fs__service_no_memory(svc);
}

/* Closes the open settling batch: its figures kept, its values merged into
 * the replication's histogram.  0 or ENOMEM. */
static int fs__close_batch(fs_service *svc)
{
    fs_hist *batch = fs_tally_hist(&svc->batch_latency, &svc->sim->scratch);
    if (!batch || fs_settle_close(svc->rep->batches, batch, &svc->rep->latency) != 0)
        return ENOMEM;
    fs_tally_reset(&svc->batch_latency);
    return 0;
}

/* Closes every settling batch that ended at or before now (a quiet service
 * may skip whole batches: they close empty).  A completion at a boundary
 * belongs to the batch it opens. */
static void fs__close_batches(fs_service *svc, double now)
{
    fs_service_rep *rep = svc->rep;
    fs__flush_latencies(svc);
    while (now >= svc->batch_end) {
        if (fs__close_batch(svc) != 0) {
            fs__service_no_memory(svc);
            return;
        }
        svc->batch_end = rep->batches->n + 1 < FS_SETTLE_BATCHES
                             ? svc->batch_start + (rep->batches->n + 1) * svc->batch_len
                             : INFINITY;
    }
}

/* A request that arrived at `arrival` completes at now: its latency into
 * every figure that counts it. */
static inline void fs__complete(fs_service *svc, double now, double arrival)
{
    fs_service_rep *rep = svc->rep;
    uint64_t ns = (uint64_t)((now - arrival) * 1e9 + 0.5);
    if (now >= svc->batch_end)
        fs__close_batches(svc, now); /* FS_SETTLE_BATCHES - 1 times a replication */
    svc->latency_buffer[svc->latency_buffered++] = ns;
    if (svc->latency_buffered == FS_SERVICE_LATENCY_BUFFER)
        fs__flush_latencies(svc);
    rep->completed++;
    svc->w_completed++;
    svc->all_completed++;
    fs_level_add(&svc->in_system, now, -1);
    size_t n_targets = svc->n_slo_targets;
    if (n_targets) {
        svc->slo_total++;
        for (size_t j = 0; j < n_targets; j++)
            svc->slo_bad[j] += ns > svc->slo_threshold_ns[j];
    }
    /* Only the p95 trigger reads it, so only it allocates its counters. */
    if (svc->scale_p95 && fs_hist_record(&svc->scale_latency, ns) != 0)
        fs__service_no_memory(svc);
}

void fs__service_complete(fs_service *svc, double now, double arrival) { fs__complete(svc, now, arrival); }
void fs__service_occupy(fs_service *svc, uint32_t r, double now) { fs__occupy(svc, r, now); }
void fs__service_release(fs_service *svc, uint32_t r, double now) { fs__release(svc, r, now); }

/* Replica r's slot is free: it goes straight to the oldest waiting request
 * (the replica's load is unchanged), else it is released. */
static inline void fs__slot_freed(fs_service *svc, uint32_t r, double now)
{
    if (svc->waiting && svc->replica[r].state == FS__READY) {
        svc->rep->waited++;
        double demand, arrival = fs__ring_pop(svc, &demand);
        fs__start(svc, now, arrival, demand, r);
    } else {
        fs__release(svc, r, now);
    }
}
void fs__service_slot_freed(fs_service *svc, uint32_t r, double now) { fs__slot_freed(svc, r, now); }

static void fs__on_departure(fs_sim *sim, const fs_event *ev, void *ctx)
{
    fs_service *svc = ctx;
    fs__complete(svc, sim->now, ev->data);
    fs__slot_freed(svc, ev->arg, sim->now);
}

/* ---- dynamic batching (batcher.h) ----------------------------------------- */

/* Free ready replicas take batches while the batcher says so; when it says
 * wait, a delay timer is set unless one as early is already pending (the
 * oldest waiting request only gets younger, so a pending timer is never
 * later than the one needed). */
static void fs__batch_dispatch(fs_service *svc, double now)
{
    const fs_batching *b = &svc->spec->batching;
    fs_service_rep *rep = svc->rep;
    while (svc->waiting && svc->free_slots) {
        double wake;
        uint32_t n = fs_batcher_take(b, svc->waiting, svc->ring[svc->head], now, &wake);
        if (n == 0) {
            if (wake < svc->timer_at) {
                svc->timer_at = wake;
                fs_sim_schedule(svc->sim, wake, FS__PRIORITY_REQUEST, svc->kind_batch_timer, 0, 0);
            }
            return;
        }
        uint32_t r = fs__service_pick_replica(svc);
        /* A slot's row on its first batch: slots that never run cost nothing. */
        double *arrival = svc->batch_arrival[r];
        if (!arrival && !(arrival = svc->batch_arrival[r] = malloc(b->max_batch_size * sizeof *arrival))) {
            fs_sim_fail(svc->sim, ENOMEM, "service \"%s\": out of memory for a batch", svc->spec->name);
            return;
        }
        fs__occupy(svc, r, now);
        svc->in_service += n - 1; /* fs__occupy counted one */
        for (uint32_t i = 0; i < n; i++) {
            double demand;
            arrival[i] = fs__ring_pop(svc, &demand);
            rep->started++;
            rep->waited += arrival[i] < now;
            rep->wait_sum_s += now - arrival[i];
        }
        svc->batch_n[r] = n;
        rep->batch_size_counts[n]++;
        double t = fs_scenario_batch_time(b, n) * svc->replica[r].scale;
        if (svc->time_sliced)
            t *= fs_pool_contention(svc->pool, svc->replica[r].unit);
        fs_sim_schedule(svc->sim, now + t, FS__PRIORITY_REQUEST, svc->kind_batch_done, r, now);
    }
}

/* Every request of replica arg's batch completes; the replica is free. */
static void fs__on_batch_done(fs_sim *sim, const fs_event *ev, void *ctx)
{
    fs_service *svc = ctx;
    double now = sim->now;
    uint32_t r = ev->arg, n = svc->batch_n[r];
    const double *arrival = svc->batch_arrival[r];
    for (uint32_t i = 0; i < n; i++)
        fs__complete(svc, now, arrival[i]);
    svc->batch_n[r] = 0;
    svc->in_service -= n - 1; /* fs__release counts one */
    fs__release(svc, r, now);
    fs__batch_dispatch(svc, now);
}

static void fs__on_batch_timer(fs_sim *sim, const fs_event *ev, void *ctx)
{
    (void)ev;
    fs_service *svc = ctx;
    svc->timer_at = INFINITY;
    fs__batch_dispatch(svc, sim->now);
}

/* ---- replicas that come and go -------------------------------------------- */

void fs_service_replica_ready(fs_service *svc, uint32_t r, size_t unit, double now)
{
    if (svc->replica[r].state != FS__WARMING) { /* no longer wanted: give the unit back */
        fs_fleet_release(svc->fleet, fs_service_replica_pool(svc->spec, r), unit, 0, now);
        return;
    }
    const fs_unit *u = &svc->placement->pools[svc->spec->pool].units[unit];
    svc->replica[r].unit = unit;
    svc->replica[r].scale = fs_placement_unit_scale(svc->placement, svc->index, u);
    svc->replica[r].state = FS__READY;
    svc->replica[r].load = 0;
    fs__service_bucket_insert(svc, r);
    svc->free_slots += svc->concurrency;
    fs__set_ready_count(svc, now, +1);
    svc->rep->replicas_added++;
    if (svc->deploy) /* a rollout's new replica: an old one drains */
        fs__deploy_ready(svc, r, now);
    if (svc->llm) {
        if (fs__llm_replica_ready(svc, r, unit, now) == 0)
            fs__llm_dispatch(svc, now);
        return;
    }
    if (svc->batched) {
        fs__batch_dispatch(svc, now);
        return;
    }
    /* Waiting requests go to the new replica at once. */
    while (svc->waiting && svc->replica[r].load < svc->concurrency) {
        fs__occupy(svc, r, now);
        svc->rep->waited++;
        double demand, arrival = fs__ring_pop(svc, &demand);
        fs__start(svc, now, arrival, demand, r);
    }
}

void fs_service_replica_evicted(fs_service *svc, uint32_t r, double now)
{
    uint8_t state = svc->replica[r].state;
    if (svc->deploy)
        fs__deploy_lost(svc, r, now);
    if (r >= svc->n_slots) { /* a disaggregated service's decode replica */
        if (state == FS__READY)
            fs__llm_replica_lost(svc, r, now);
        return;
    }
    if (state == FS__WARMING) {
        svc->replica[r].state = FS__OFF;
        svc->n_wanted--;
        return;
    }
    if (state != FS__READY && state != FS__DRAINING)
        return;
    if (state == FS__READY) {
        fs__service_bucket_remove(svc, r);
        svc->free_slots -= svc->concurrency - svc->replica[r].load;
        fs__set_ready_count(svc, now, -1);
        svc->n_wanted--;
    }
    if (svc->replica[r].load > 0)
        fs_pool_unit_busy(svc->pool, now, svc->replica[r].unit, -1);
    svc->replica[r].state = svc->replica[r].load > 0 ? FS__LOST : FS__OFF;
    if (svc->llm)
        fs__llm_replica_lost(svc, r, now);
}

/* Asks the fleet for one more replica in a free slot (service_move.c). */
static int fs__scale_up(fs_service *svc, double now)
{
    (void)now;
    return fs__service_ask(svc);
}

/* Gives one replica back: a slot still waiting for the fleet first, else the
 * least-loaded ready replica, which drains.  The last ready replica drains
 * only when the service may scale to zero (min 0). */
static void fs__scale_down(fs_service *svc, double now)
{
    for (uint32_t r = 0; r < svc->n_slots; r++) {
        if (svc->replica[r].state == FS__WARMING && !fs__deploy_is_surge(svc, r)) { /* a surge: the rollout's */
            /* Not granted yet, or granted and warming: either way it is no
             * longer wanted; a grant in flight is given back on arrival. */
            svc->replica[r].state = FS__OFF;
            svc->n_wanted--;
            fs_fleet_withdraw_slot(svc->fleet, FS_HOLDER_SERVICE, (uint32_t)svc->index, r);
            return;
        }
    }
    if (svc->n_ready == 0 || (svc->n_ready == 1 && svc->spec->min_replicas > 0) || fs__deploy_retire_old(svc, now))
        return; /* a rollout's old replica first (service_deploy.c) */
    for (uint64_t l = 0; l <= svc->concurrency; l++) {
        if (fs__service_bucket_first(svc, l) != svc->list_nil) {
            fs__service_drain(svc, fs__service_bucket_first(svc, l), now);
            return;
        }
    }
}

void fs__service_drain(fs_service *svc, uint32_t r, double now)
{
    fs__service_bucket_remove(svc, r);
    svc->free_slots -= svc->concurrency - svc->replica[r].load;
    fs__set_ready_count(svc, now, -1);
    svc->n_wanted--;
    svc->replica[r].state = FS__DRAINING;
    if (svc->llm)
        fs__llm_replica_draining(svc, r, now);
    if (svc->replica[r].load == 0) {
        if (svc->llm)
            fs__llm_replica_lost(svc, r, now);
        svc->replica[r].state = FS__OFF;
        fs_fleet_release(svc->fleet, svc->spec->pool, svc->replica[r].unit, 0, now);
    }
}

static void fs__on_scale_tick(fs_sim *sim, const fs_event *ev, void *ctx)
{
    (void)ev;
    fs_service *svc = ctx;
    const fs_service_spec *spec = svc->spec;
    const fs_autoscale *as = &spec->autoscale;
    double now = sim->now;
    double in_system = svc->in_system.value;
    uint32_t desired = (uint32_t)ceil(in_system / as->target_in_flight - 1e-9);
    if (as->p95_ms > 0 && svc->scale_latency.total > 0 &&
        fs_hist_quantile(&svc->scale_latency, 0.95) > as->p95_ms * 1e6 && desired <= svc->n_wanted)
        desired = svc->n_wanted + 1;
    fs_hist_reset(&svc->scale_latency);
    if (fs_fleet_waiting_units(svc->fleet, FS_HOLDER_SERVICE, (uint32_t)svc->index) > 0)
        svc->blocked_in_window = true;
    if (desired < spec->min_replicas)
        desired = spec->min_replicas;
    if (desired > spec->max_replicas)
        desired = spec->max_replicas;
    if (desired > svc->n_wanted) {
        svc->low_since = -1;
        if (now - svc->last_up >= as->cooldown_s) {
            svc->last_up = now;
            for (uint32_t k = svc->n_wanted; k < desired; k++)
                if (fs__scale_up(svc, now) != 0) {
                    fs_sim_fail(sim, ENOMEM, "service \"%s\": out of memory scaling up", spec->name);
                    return;
                }
        }
    } else if (desired < svc->n_wanted) {
        if (svc->low_since < 0)
            svc->low_since = now;
        if (now - svc->low_since >= as->idle_s && now - svc->last_down >= as->cooldown_s) {
            svc->last_down = now;
            fs__scale_down(svc, now);
        }
    } else {
        svc->low_since = -1;
    }
    if (now + as->interval_s <= svc->horizon)
        fs_sim_schedule(sim, now + as->interval_s, 0, svc->kind_scale, 0, 0);
}

/* Requests waiting at `now` that are older than target j's threshold, into
 * late[j]: the waiting ring is in arrival order, so a binary search each. */
static void fs__late_waiting(const fs_service *svc, double now, uint64_t late[FS_SLO_MAX_TARGETS])
{
    const fs_slo *slo = &svc->spec->slo;
    for (size_t j = 0; j < slo->n_targets; j++) {
        double cutoff = now - slo->targets[j].threshold_s;
        uint64_t lo = 0, hi = svc->waiting;
        while (lo < hi) {
            uint64_t mid = lo + (hi - lo) / 2;
            if (svc->ring[(svc->head + mid) & svc->ring_mask] < cutoff)
                lo = mid + 1;
            else
                hi = mid;
        }
        late[j] = lo;
    }
}

/* Adds the requests in service at `now` older than each threshold: each is
 * found through its departure event, which carries its arrival time.  One
 * pass over the event queue, so callers ask only when the answer matters.
 * A batched service's are in its replicas' batches. */
static void fs__late_in_service(const fs_service *svc, double now, uint64_t late[FS_SLO_MAX_TARGETS])
{
    const fs_slo *slo = &svc->spec->slo;
    if (svc->llm) {
        fs__llm_late_in_service(svc, now, late);
        return;
    }
    if (svc->batched) {
        for (uint32_t r = 0; r < svc->n_slots; r++)
            for (uint32_t i = 0; i < svc->batch_n[r]; i++)
                for (size_t j = 0; j < slo->n_targets; j++)
                    late[j] += svc->batch_arrival[r][i] < now - slo->targets[j].threshold_s;
        return;
    }
    const fs_evq *q = &svc->sim->queue;
    for (size_t e = 0; svc->in_service && slo->n_targets && e < fs_evq_slots(q); e++) {
        const fs_event *ev = fs_evq_slot(q, e);
        if (!ev || (ev->kind != svc->kind_departure && !(svc->spill && ev->kind == svc->spill->kind)))
            continue; /* its own requests, served here or (spilled) on another service */
        for (size_t j = 0; j < slo->n_targets; j++)
            late[j] += ev->data < now - slo->targets[j].threshold_s;
    }
}

/* Whether a window with `total` requests judged, `bad[j]` of them past
 * target j, plus late[j] still unfinished past it, breaches a target. */
static bool fs__window_breached(const fs_slo *slo, uint64_t total, const uint64_t *bad, const uint64_t *late)
{
    for (size_t j = 0; j < slo->n_targets; j++) {
        uint64_t n = total + late[j];
        double needed = ceil(slo->targets[j].quantile * (double)n - 1e-9);
        if ((double)(n - bad[j] - late[j]) < needed)
            return true;
    }
    return false;
}

/* A window meets a target q if at least ceil(q n) of its n requests did:
 * exactly "the window's q-quantile is within the threshold", with drops
 * counted as misses, and so are requests still waiting or in service at the
 * window's end whose age already exceeds the threshold (a window where
 * requests sat past the SLO is breached even if none of them completed). */
static void fs__on_slo_tick(fs_sim *sim, const fs_event *ev, void *ctx)
{
    (void)ev;
    fs_service *svc = ctx;
    const fs_slo *slo = &svc->spec->slo;
    uint64_t none[FS_SLO_MAX_TARGETS] = {0}, late[FS_SLO_MAX_TARGETS] = {0}, most[FS_SLO_MAX_TARGETS];
    bool breached = fs__window_breached(slo, svc->slo_total, svc->slo_bad, none);
    if (svc->llm)
        breached |= fs__llm_window_breached(svc, sim->now);
    if (!breached && (svc->waiting || svc->in_service)) {
        fs__late_waiting(svc, sim->now, late);
        breached = fs__window_breached(slo, svc->slo_total, svc->slo_bad, late);
        /* More late requests only make a breach likelier: count those in
         * service (a pass over the event queue) only when all of them being
         * late would breach the window. */
        for (size_t j = 0; j < slo->n_targets; j++)
            most[j] = late[j] + svc->in_service;
        if (!breached && svc->in_service && fs__window_breached(slo, svc->slo_total, svc->slo_bad, most)) {
            fs__late_in_service(svc, sim->now, late);
            breached = fs__window_breached(slo, svc->slo_total, svc->slo_bad, late);
        }
    }
    for (size_t j = 0; j < slo->n_targets; j++)
        svc->slo_bad[j] = 0;
    svc->slo_total = 0;
    svc->rep->slo_windows++;
    svc->rep->slo_breach_windows += breached;
    if (breached) {
        int rc = svc->on_breach(svc->breach_ctx, svc->index, sim->now - slo->window_s);
        if (rc != 0) {
            fs_sim_fail(sim, rc, "service \"%s\": SLO breach windows: %s", svc->spec->name, strerror(rc));
            return;
        }
    }
    if (breached && svc->blocked_in_window && svc->on_blocked_breach)
        svc->on_blocked_breach(svc->blocked_ctx, svc->index, slo->window_s / 60.0);
    svc->blocked_in_window = fs_fleet_waiting_units(svc->fleet, FS_HOLDER_SERVICE, (uint32_t)svc->index) > 0;
    double next = sim->now + slo->window_s;
    if (next <= svc->horizon)
        fs_sim_schedule(sim, next, 0, svc->kind_slo, 0, 0);
}

/* ---- lifecycle ------------------------------------------------------------- */

int fs_service_init(fs_service *svc, size_t index, const fs_scenario *s,
                    const fs_placement *placement, fs_fleet *fleet, fs_sim *sim, fs_pool *pool,
                    uint32_t replication, fs_service_rep *rep, fs_error *err)
{
    const fs_service_spec *spec = &s->services[index];
    *svc = (fs_service){.spec = spec, .sim = sim, .pool = pool, .horizon = s->horizon_s, .rep = rep,
                        .index = index, .fleet = fleet, .placement = placement,
                        .last_up = -INFINITY, .last_down = -INFINITY, .low_since = -1,
                        .batch_end = INFINITY, .timer_at = INFINITY};
    svc->time_sliced = fs_pool_shared(pool->spec);
    svc->n_slots = spec->max_replicas > spec->replicas ? spec->max_replicas : spec->replicas;
    if (fs__deploy_init(svc, s) != 0) /* a rollout's surge slots, after these */
        goto nomem;
    /* A disaggregated service's decode replicas follow its own in the
     * per-slot tables (never in the load buckets: service_pd.c runs them). */
    uint32_t n_all = svc->n_slots + spec->decode_replicas;
    svc->n_llm_slots = n_all;
    svc->concurrency = spec->concurrency;
    svc->free_slots = (uint64_t)spec->replicas * spec->concurrency;
    svc->n_ready = svc->n_wanted = spec->replicas;
    char stream[512];
    snprintf(stream, sizeof stream, "service/%s", spec->name);
    svc->service_rng = fs_rng_create(s->seed, replication, stream);
    /* The replicas' state in one table of 32-byte entries, and the load
     * lists' nodes after them: the replicas, concurrency + 1 heads and the
     * nil node (service_parts.h), counted in size_t: a uint32_t sum could
     * wrap. */
    size_t n_nodes = (size_t)n_all + (size_t)svc->concurrency + 2;
    if (n_nodes > UINT32_MAX)
        goto nomem;
    svc->list_head = n_all;
    svc->list_nil = (uint32_t)(n_nodes - 1);
    svc->replica = calloc(n_nodes, sizeof *svc->replica);
    svc->batched = spec->batching.kind == FS_BATCHING_DYNAMIC;
    svc->llm = spec->batching.kind == FS_BATCHING_CONTINUOUS;
    if (svc->batched) {
        svc->batch_arrival = calloc(svc->n_slots, sizeof *svc->batch_arrival);
        svc->batch_n = calloc(svc->n_slots, sizeof *svc->batch_n);
        if (!svc->batch_arrival || !svc->batch_n)
            goto nomem;
    }
    /* 16 waiting requests to start with, grown by doubling: a fixed 1,024
     * (8 KB) cost 41 MB across 5,000 services whose queues rarely hold a
     * dozen, and a grow is rare and amortised O(1) per push. */
    svc->ring_mask = 15;
    svc->ring = malloc((svc->ring_mask + 1) * sizeof *svc->ring);
    if (fs_arrival_stream_init(&svc->arrivals, &spec->arrivals, s->start_weekday, s->seed, replication,
                               spec->name) != 0 ||
        !svc->service_rng || !svc->replica || !svc->ring ||
        fs_tally_init(&svc->window_latency) != 0 || fs_hist_init(&svc->scale_latency) != 0 ||
        fs_tally_init(&svc->batch_latency) != 0)
        goto nomem;
    for (uint32_t r = 0; r < fs_service_placed(spec); r++) {
        uint32_t slot = r < spec->replicas ? r : svc->n_slots + (r - spec->replicas);
        svc->replica[slot].unit = placement->replica_unit[index][r];
        svc->replica[slot].scale = fs_placement_scale(placement, index, r);
        svc->replica[slot].state = FS__READY;
    }
    for (uint64_t l = 0; l <= svc->concurrency; l++)
        svc->replica[svc->list_head + l].next = svc->list_nil;
    for (uint32_t r = spec->replicas; r-- > 0;)
        fs__service_bucket_insert(svc, r); /* replica 0 ends up first */
    fs_level_init(&svc->ready_level, 0, spec->replicas);
    for (size_t j = 0; j < spec->slo.n_targets; j++)
        svc->slo_threshold_ns[j] = (uint64_t)(spec->slo.targets[j].threshold_s * 1e9 + 0.5);
    svc->n_slo_targets = (uint32_t)spec->slo.n_targets;
    svc->queue_limit = spec->queue_limit;
    svc->trace_sized = spec->arrivals.trace_sized;
    svc->scale_p95 = spec->autoscale.p95_ms > 0;
    svc->service_time = spec->service_time;

    int64_t k_arr = fs_sim_register(sim, fs__on_arrival, svc);
    int64_t k_dep = fs_sim_register(sim, fs__on_departure, svc);
    int64_t k_slo = fs_sim_register(sim, fs__on_slo_tick, svc);
    int64_t k_scale = fs_sim_register(sim, fs__on_scale_tick, svc);
    int64_t k_batch = svc->batched ? fs_sim_register(sim, fs__on_batch_done, svc) : 0;
    int64_t k_timer = svc->batched ? fs_sim_register(sim, fs__on_batch_timer, svc) : 0;
    if (k_arr < 0 || k_dep < 0 || k_slo < 0 || k_scale < 0 || k_batch < 0 || k_timer < 0)
        goto nomem;
    if (svc->llm && fs__llm_init(svc, s->seed, replication) != 0)
        goto nomem;
    svc->kind_batch_done = (uint32_t)k_batch;
    svc->kind_batch_timer = (uint32_t)k_timer;
    svc->kind_scale = (uint32_t)k_scale;
    if (spec->autoscale.enabled && spec->autoscale.interval_s <= svc->horizon)
        fs_sim_schedule(sim, spec->autoscale.interval_s, 0, svc->kind_scale, 0, 0);
    svc->kind_arrival = (uint32_t)k_arr;
    svc->kind_departure = (uint32_t)k_dep;
    svc->kind_slo = (uint32_t)k_slo;
    fs_level_init(&svc->in_system, 0, 0);
    if (spec->arrivals.trace) {
        int rc = fs_trace_open(spec->arrivals.trace, &svc->trace, err);
        if (rc != FS_OK) {
            fs_service_fini(svc);
            return rc;
        }
        if (spec->arrivals.trace_sized && !(svc->ring_demand = malloc((svc->ring_mask + 1) * sizeof *svc->ring_demand)))
            goto nomem;
    }
    /* The starting replicas' engines, sized for their units. */
    for (uint32_t r = 0; svc->llm && r < n_all && !sim->failed; r++)
        if ((r < spec->replicas || r >= svc->n_slots) && fs__llm_replica_ready(svc, r, svc->replica[r].unit, 0) != 0)
            break;
    if (!sim->failed)
        fs__schedule_arrival(svc, 0);
    if (sim->failed) {
        int bad_input = sim->failed == EILSEQ;
        char why[sizeof sim->failure];
        memcpy(why, sim->failure, sizeof why);
        fs_service_fini(svc);
        return fs_error_set(err, bad_input ? FS_ERR_INPUT : FS_ERR_RUNTIME, "%s", why);
    }
    return FS_OK;
nomem:
    fs_service_fini(svc);
    return fs_error_set(err, FS_ERR_RUNTIME, "service \"%s\": out of memory", spec->name);
}

void fs_service_fini(fs_service *svc)
{
    fs_arrival_stream_fini(&svc->arrivals);
    fs_rng_destroy(svc->service_rng);
    free(svc->replica);
    for (uint32_t r = 0; svc->batch_arrival && r < svc->n_slots; r++)
        free(svc->batch_arrival[r]);
    free(svc->batch_arrival);
    free(svc->batch_n);
    fs__llm_fini(svc);
    free(svc->spill);
    fs__deploy_fini(svc);
    fs_hist_fini(&svc->scale_latency); /* safe on a zeroed one; counters only if the p95 trigger recorded */
    free(svc->ring);
    free(svc->ring_demand);
    fs_trace_close(svc->trace);
    fs_tally_fini(&svc->window_latency);
    fs_tally_fini(&svc->batch_latency);
    *svc = (fs_service){0};
}

void fs_service_start_measuring(fs_service *svc, double now)
{
    fs_service_rep *rep = svc->rep;
    uint64_t in_service = svc->in_service;
    rep->requests = rep->completed = rep->dropped = 0;
    rep->replicas_added = rep->spill_out = rep->spill_in = 0;
    fs_level_restart(&svc->ready_level, now);
    rep->started = rep->waited = 0;
    rep->wait_sum_s = 0;
    rep->in_flight_start = svc->waiting + in_service;
    rep->peak_queue = svc->waiting;
    fs_hist_reset(&rep->latency);
    svc->latency_buffered = 0; /* warm-up values: recorded, they would be reset below */
    fs_tally_reset(&svc->batch_latency);
    if (rep->batch_size_counts)
        memset(rep->batch_size_counts, 0, ((size_t)svc->spec->batching.max_batch_size + 1) * sizeof *rep->batch_size_counts);
    fs_settle_reset(rep->batches);
    svc->batch_start = now;
    svc->batch_len = (svc->horizon - now) / FS_SETTLE_BATCHES;
    svc->batch_end = now + svc->batch_len;
    rep->n_slo_breaches = 0;
    fs_level_restart(&svc->in_system, now);
    svc->window_area_mark = 0;
    fs_tally_reset(&svc->window_latency);
    svc->w_arrivals = svc->w_completed = svc->w_dropped = 0;
    svc->window_start = now;
    svc->slo_total = 0;
    memset(svc->slo_bad, 0, sizeof svc->slo_bad);
    if (fs_slo_any(&svc->spec->slo) && now + svc->spec->slo.window_s <= svc->horizon)
        fs_sim_schedule(svc->sim, now + svc->spec->slo.window_s, 0, svc->kind_slo, 0, 0);
    if (svc->llm)
        fs__llm_start_measuring(svc, now);
}

void fs_service_close_window(fs_service *svc, double now, fs_service_window *row)
{
    fs__flush_latencies(svc);
    /* The window's time-average in system comes from the service-wide level's
     * integral: area since the window opened over its length. */
    fs_level_flush(&svc->in_system, now);
    double area = svc->in_system.area - svc->window_area_mark;
    const fs_hist *h = fs_tally_hist(&svc->window_latency, &svc->sim->scratch);
    if (!h) {
        fs__service_no_memory(svc);
        h = &svc->sim->scratch; /* the run stops; the row is not kept */
    }
    *row = (fs_service_window){
        .start_s = svc->window_start,
        .end_s = now,
        .arrivals = svc->w_arrivals,
        .completed = svc->w_completed,
        .dropped = svc->w_dropped,
        .mean_ms = fs_results_hist_figure(h, -1, 1e-6),
        .p50_ms = fs_results_hist_figure(h, 0.50, 1e-6),
        .p95_ms = fs_results_hist_figure(h, 0.95, 1e-6),
        .p99_ms = fs_results_hist_figure(h, 0.99, 1e-6),
        .max_ms = fs_results_hist_figure(h, 2, 1e-6),
        .mean_in_system = now > svc->window_start ? area / (now - svc->window_start) : 0,
        .queue_end = svc->waiting,
        .ttft_p99_ms = NAN, .tpot_p99_ms = NAN, .mean_running = NAN, .kv_occupancy = NAN,
    };
    if (svc->llm)
        fs__llm_close_window(svc, now, row);
    svc->window_area_mark = svc->in_system.area;
    fs_tally_reset(&svc->window_latency);
    svc->w_arrivals = svc->w_completed = svc->w_dropped = 0;
    svc->window_start = now;
}

int fs_service_finish(fs_service *svc, double now)
{
    fs_service_rep *rep = svc->rep;
    /* The open batch, and any a quiet end skipped, close at the horizon;
     * that completes rep->latency. */
    fs__flush_latencies(svc);
    while (rep->batches->n < FS_SETTLE_BATCHES)
        if (fs__close_batch(svc) != 0)
            return ENOMEM;
    rep->in_flight_end = svc->waiting + svc->in_service;
    fs__late_waiting(svc, now, rep->unfinished_past_slo);
    fs__late_in_service(svc, now, rep->unfinished_past_slo);
    if (svc->trace) {
        rep->traced = true;
        rep->trace_rows = svc->all_arrivals;
        rep->trace_skipped = fs_trace_skipped(svc->trace);
        rep->trace_filtered = fs_trace_filtered(svc->trace);
        rep->trace_completed = svc->all_completed;
        rep->trace_dropped = svc->all_dropped;
    }
    rep->mean_ready_replicas = fs_level_mean(&svc->ready_level, now);
    if (svc->llm)
        fs__llm_finish(svc, now);
    rep->mean_in_system = fs_level_mean(&svc->in_system, now);
    return 0;
}

/*
 * service_pd — a disaggregated LLM service's decode side and the KV transfer
 * between its groups (service.h says what is modelled; service_parts.h is
 * what the service's files share).
 *
 * A request is prefilled on one of the service's own replicas (its prompt
 * and first token), then its prompt's KV crosses that replica's link: links
 * are FIFO, so a transfer starts when the link is free and takes the
 * latency plus bytes / bandwidth, and the transfers of one replica finish in
 * the order they started (one event each).  The first token reaches the
 * client with the KV, at the decode side (as when the decode worker streams
 * every token, vLLM's disaggregated serving): the transfer adds to TTFT.
 * Requests whose KV arrived wait in one decode queue, oldest first, for a
 * decode replica's engine, which admits them when their KV fits and decodes
 * their remaining output - 1 tokens; waiting there adds to TPOT.
 *
 * The prefill replica frees a request's KV when its prefill ends (the
 * transfer is taken to read it from a staging copy), and a request of one
 * output token ends on the prefill side.  A decode replica that loses its
 * unit loses its requests' KV: they go back to the central queue to be
 * prefilled and sent again (their first token already counted).
 */
#include "service_parts.h"

#include <errno.h>
#include <stdlib.h>

static void on_kv_done(fs_sim *sim, const fs_event *ev, void *ctx);

int fs__pd_init(fs_service *svc)
{
    const fs_service_spec *spec = svc->spec;
    struct fs__llm_pd *pd = calloc(1, sizeof *pd);
    if (!pd)
        return ENOMEM;
    svc->pd = pd;
    pd->n_decode = spec->decode_replicas;
    pd->pool = &svc->fleet->pools[spec->decode_pool];
    pd->time_sliced = pd->pool->spec->partitioning == FS_PARTITION_TIME_SLICED;
    pd->kv_bytes_per_token = fs_llm_kv_bytes_per_token(&spec->batching.llm.model);
    pd->idle = pd->n_decode; /* the starting decode replicas, ready and empty */
    fs_level_init(&pd->ready, 0, pd->n_decode);
    int64_t kind = fs_sim_register(svc->sim, on_kv_done, svc);
    if (kind < 0)
        return ENOMEM;
    pd->kind_kv_done = (uint32_t)kind;
    return 0;
}

void fs__pd_fini(fs_service *svc)
{
    if (!svc->pd)
        return;
    free(svc->pd->queue.at);
    free(svc->pd);
    svc->pd = NULL;
}

int fs__pd_send(fs_service *svc, uint32_t r, const fs__llm_request *req, double now)
{
    struct fs_llm_slot *slot = &svc->llm_slots[r];
    const fs_service_spec *spec = svc->spec;
    if (fs__llm_ring_push(&slot->xfer, req) != 0)
        return ENOMEM;
    double bytes = fs__tokens_prompt(req->tokens) * svc->pd->kv_bytes_per_token;
    double start = slot->link_free > now ? slot->link_free : now;
    slot->link_free = start + bytes / spec->link_bandwidth_Bps;
    fs_sim_schedule(svc->sim, slot->link_free + spec->link_latency_s, FS__PRIORITY_REQUEST, svc->pd->kind_kv_done,
                    r, (double)slot->generation);
    return 0;
}

/* An idle ready decode replica starts stepping on the decode queue. */
static void wake(fs_service *svc, uint32_t r, double now)
{
    struct fs__llm_pd *pd = svc->pd;
    pd->idle--;
    fs_pool_unit_busy(pd->pool, now, svc->replica[r].unit, +1);
    fs_level_add(&svc->llm_busy, now, +1);
    fs__pd_pull(svc, r, now);
    fs__llm_start_step(svc, r, now);
}

/* Idle decode replicas, lowest slot first, take the decode queue's requests. */
static void dispatch(fs_service *svc, double now)
{
    struct fs__llm_pd *pd = svc->pd;
    for (uint32_t r = svc->n_slots; pd->queue.n && pd->idle && r < svc->n_llm_slots; r++)
        if (svc->replica[r].state == FS__READY && !svc->llm_slots[r].stepping)
            wake(svc, r, now);
}

static void on_kv_done(fs_sim *sim, const fs_event *ev, void *ctx)
{
    fs_service *svc = ctx;
    uint32_t r = ev->arg;
    struct fs_llm_slot *slot = &svc->llm_slots[r];
    if (ev->data != (double)slot->generation)
        return; /* the prefill replica was lost: its transfers went back to the queue */
    double now = sim->now;
    fs__llm_request req = fs__llm_ring_pop(&slot->xfer);
    fs_service_rep *rep = svc->rep;
    rep->kv_transfers++;
    rep->kv_transfer_s += now - req.sent;
    rep->kv_transfer_bytes += fs__tokens_prompt(req.tokens) * svc->pd->kv_bytes_per_token;
    if (req.first < 0) { /* not when sent again after a decode replica was lost */
        req.first = now;
        fs__llm_first_token(svc, req.arrival, now);
    }
    if (fs__llm_ring_push(&svc->pd->queue, &req) != 0) {
        fs_sim_fail(sim, ENOMEM, "service \"%s\": out of memory", svc->spec->name);
        return;
    }
    dispatch(svc, now);
}

void fs__pd_pull(fs_service *svc, uint32_t r, double now)
{
    fs__llm_ring *q = &svc->pd->queue;
    const fs_llm_engine *e = &svc->llm_slots[r].engine;
    while (q->n && e->n_running + e->n_waiting < e->cfg.max_seqs) {
        fs__llm_request req = fs__llm_ring_pop(q);
        if (!fs__llm_enter(svc, r, &req, now))
            svc->in_service--; /* refused as too long for this replica's cache */
    }
}

void fs__pd_idle(fs_service *svc, uint32_t r, double now)
{
    struct fs__llm_pd *pd = svc->pd;
    fs_level_add(&svc->llm_busy, now, -1);
    fs_pool_unit_busy(pd->pool, now, svc->replica[r].unit, -1);
    pd->idle++;
}

void fs__pd_lost(fs_service *svc, uint32_t r, bool busy, double now)
{
    struct fs__llm_pd *pd = svc->pd;
    if (busy)
        fs_pool_unit_busy(pd->pool, now, svc->replica[r].unit, -1);
    else
        pd->idle--;
    fs_level_add(&pd->ready, now, -1);
}

void fs__pd_start_measuring(fs_service *svc, double now)
{
    fs_service_rep *rep = svc->rep;
    rep->kv_transfers = 0;
    rep->kv_transfer_s = rep->kv_transfer_bytes = 0;
    fs_level_restart(&svc->pd->ready, now);
}

void fs__pd_finish(fs_service *svc, double now)
{
    svc->rep->mean_ready_decode = fs_level_mean(&svc->pd->ready, now);
}

/*
 * service_llm — a service's continuous-batching half (service.h says what it
 * does; service_parts.h is what it shares with service.c).
 *
 * One event per engine step per replica: the step's outcome is computed when
 * it starts (llm_engine.h) and applied when it ends.  A replica with nothing
 * to run holds no event and counts as a free slot of load 0 in service.c's
 * buckets, so the least-loaded pick gives an idle replica; while it steps its
 * load is 1.  svc->in_service counts requests inside engines.
 */
#include "service_parts.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>

#include "rng.h"

#define GIB (1024.0 * 1024.0 * 1024.0)


static inline uint64_t to_ns(double s) { return (uint64_t)(s * 1e9 + 0.5); }

/* The engine id of the i-th request an engine holds: running ones first
 * (oldest first), then the waiting ring from its head. */
static inline uint64_t held_id(const fs_llm_engine *e, size_t i)
{
    return i < e->n_running ? e->running[i].id : e->waiting[(e->waiting_head + i - e->n_running) % e->waiting_cap].id;
}

int fs__llm_init(fs_service *svc, uint64_t seed, uint32_t replication)
{
    const fs_service_spec *spec = svc->spec;
    char stream[512];
    snprintf(stream, sizeof stream, "tokens/%s", spec->name);
    svc->token_rng = fs_rng_create(seed, replication, stream);
    const fs_llm_serving *llm = &spec->batching.llm;
    if (llm->prefix_groups) {
        /* Its own stream: prefixes leave the token draws as they were. */
        snprintf(stream, sizeof stream, "prefix/%s", spec->name);
        svc->prefix_rng = fs_rng_create(seed, replication, stream);
        double *weights = malloc(llm->prefix_groups * sizeof *weights);
        if (weights) {
            for (uint32_t g = 0; g < llm->prefix_groups; g++)
                weights[g] = pow(g + 1.0, -llm->prefix_zipf);
            svc->prefix_table = gsl_ran_discrete_preproc(llm->prefix_groups, weights);
            free(weights);
        }
        if (!svc->prefix_rng || !svc->prefix_table)
            return ENOMEM;
    }
    if ((llm->prefix_groups || llm->prefix_from_trace) &&
        !(svc->ring_prefix = malloc((svc->ring_mask + 1) * sizeof *svc->ring_prefix)))
        return ENOMEM;
    svc->llm_slots = calloc(svc->n_llm_slots, sizeof *svc->llm_slots);
    svc->ring_tokens = malloc((svc->ring_mask + 1) * sizeof *svc->ring_tokens);
    svc->ring_demand = malloc((svc->ring_mask + 1) * sizeof *svc->ring_demand);
    int64_t kind = fs_sim_register(svc->sim, fs__llm_on_step, svc);
    if (!svc->token_rng || !svc->llm_slots || !svc->ring_tokens || !svc->ring_demand || kind < 0 ||
        fs_hist_init(&svc->window_ttft) != 0 || fs_hist_init(&svc->window_tpot) != 0)
        return ENOMEM;
    svc->kind_llm_step = (uint32_t)kind;
    svc->ttft_threshold_ns = to_ns(spec->slo.ttft.threshold_s);
    svc->tpot_threshold_ns = to_ns(spec->slo.tpot.threshold_s);
    fs_level_init(&svc->llm_running, 0, 0);
    fs_level_init(&svc->llm_kv_used, 0, 0);
    fs_level_init(&svc->llm_kv_total, 0, 0);
    fs_level_init(&svc->llm_busy, 0, 0);
    return spec->decode_replicas ? fs__pd_init(svc) : 0;
}

void fs__llm_fini(fs_service *svc)
{
    for (uint32_t r = 0; svc->llm_slots && r < svc->n_llm_slots; r++) {
        struct fs_llm_slot *s = &svc->llm_slots[r];
        free(s->running);
        free(s->waiting);
        free(s->events);
        free(s->arrival);
        free(s->first_token);
        free(s->tokens);
        free(s->prefix);
        free(s->local.at);
        free(s->xfer.at);
        free(s->free_ids);
        if (s->cache.entries)
            fs_llm_prefix_fini(&s->cache);
    }
    free(svc->llm_slots);
    svc->llm_slots = NULL;
    fs__pd_fini(svc);
    free(svc->ring_tokens);
    svc->ring_tokens = NULL;
    free(svc->ring_prefix);
    svc->ring_prefix = NULL;
    fs_rng_destroy(svc->token_rng);
    svc->token_rng = NULL;
    fs_rng_destroy(svc->prefix_rng);
    svc->prefix_rng = NULL;
    if (svc->prefix_table)
        gsl_ran_discrete_free(svc->prefix_table);
    svc->prefix_table = NULL;
    fs_hist_fini(&svc->window_ttft);
    fs_hist_fini(&svc->window_tpot);
}

/* A slot's arrays, on its first start: engine capacity 2 x max_seqs (the
 * engine needs room for max_seqs waiting beside max_seqs running). */
static int slot_alloc(struct fs_llm_slot *s, uint32_t max_seqs)
{
    if (s->running)
        return 0;
    uint32_t cap = 2 * max_seqs;
    s->cap = cap;
    s->running = malloc(max_seqs * sizeof *s->running);
    s->waiting = malloc(cap * sizeof *s->waiting);
    s->events = malloc(FS_LLM_EVENTS_MAX(max_seqs) * sizeof *s->events);
    s->arrival = malloc(cap * sizeof *s->arrival);
    s->first_token = malloc(cap * sizeof *s->first_token);
    s->tokens = malloc(cap * sizeof *s->tokens);
    s->prefix = malloc(cap * sizeof *s->prefix);
    s->free_ids = malloc(cap * sizeof *s->free_ids);
    return s->running && s->waiting && s->events && s->arrival && s->first_token && s->tokens && s->prefix &&
                   s->free_ids
               ? 0
               : ENOMEM;
}

int fs__llm_replica_ready(fs_service *svc, uint32_t r, size_t unit, double now)
{
    const fs_service_spec *spec = svc->spec;
    const fs_llm_serving *llm = &spec->batching.llm;
    const fs_scenario *s = svc->placement->scenario;
    size_t p = fs_service_replica_pool(spec, r);
    const fs_pool_spec *pool = &s->pools[p];
    const fs_unit *u = &svc->placement->pools[p].units[unit];
    const fs_mig_profile *mig = pool->partitioning == FS_PARTITION_MIG
                                    ? fs_gpu_mig_profile(&s->gpu_types[pool->gpu_type], u->kind)
                                    : NULL;
    /* A time-sliced GPU's memory is shared by its tenants' engines. */
    double memory = pool->partitioning == FS_PARTITION_TIME_SLICED ? u->memory_gb / pool->time_slicing.tenants
                                                                    : u->memory_gb;
    struct fs_llm_slot *slot = &svc->llm_slots[r];
    fs_error err = {0};
    uint32_t blocks = 0;
    int rc = fs_scenario_llm_unit(s, svc->index, pool->gpu_type, mig, memory, &blocks, &slot->step, &err);
    if (rc != FS_OK) {
        fs_sim_fail(svc->sim, EILSEQ, "%s", err.msg);
        return -1;
    }
    if (slot_alloc(slot, llm->max_seqs) != 0) {
        fs_sim_fail(svc->sim, ENOMEM, "service \"%s\": out of memory for an LLM engine", spec->name);
        return -1;
    }
    fs_llm_config cfg = {llm->max_seqs, llm->token_budget, blocks, llm->block_tokens,
                         llm->kv_policy ? FS_LLM_KV_PREEMPT : FS_LLM_KV_QUEUE};
    if (fs_llm_engine_init(&slot->engine, &cfg, slot->running, slot->waiting, slot->cap, spec->name, &err) != FS_OK) {
        fs_sim_fail(svc->sim, EILSEQ, "%s", err.msg);
        return -1;
    }
    slot->out.events = slot->events;
    if (fs_scenario_llm_caches_prefixes(llm) && !fs__llm_is_decode(svc, r)) {
        /* A new unit starts cold.  One entry per group at most; a trace
         * may have up to 2^32 - 1 keys, but an entry holds a block at
         * least and the cache grows only as entries are made. */
        if (!slot->cache.entries &&
            fs_llm_prefix_init(&slot->cache, llm->prefix_groups ? llm->prefix_groups : UINT32_MAX) != 0) {
            fs_sim_fail(svc->sim, ENOMEM, "service \"%s\": out of memory for a prefix cache", spec->name);
            return -1;
        }
        fs_llm_prefix_clear(&slot->cache);
        slot->engine.prefix = &slot->cache;
    }
    slot->kv_blocks = blocks;
    slot->stepping = false;
    slot->link_free = now;
    slot->n_free = slot->cap;
    for (uint32_t i = 0; i < slot->cap; i++)
        slot->free_ids[i] = slot->cap - 1 - i;
    fs_level_add(&svc->llm_kv_total, now, blocks);
    return 0;
}

/* A request refused as too long: dropped (its SLO missed), out of the system. */
static void refuse_too_long(fs_service *svc, double now)
{
    svc->rep->too_long++;
    fs__service_drop(svc);
    fs_level_add(&svc->in_system, now, -1);
}

bool fs__llm_arrival(fs_service *svc, double now)
{
    const fs_llm_serving *llm = &svc->spec->batching.llm;
    uint64_t prompt, output;
    if (llm->tokens_from_trace) {
        prompt = fs_scenario_llm_tokens(svc->next_row.size[0]);
        output = fs_scenario_llm_tokens(svc->next_row.size[1]);
    } else {
        prompt = fs_scenario_llm_tokens(fs_dist_sample(&llm->prompt, svc->token_rng));
        output = fs_scenario_llm_tokens(fs_dist_sample(&llm->output, svc->token_rng));
    }
    uint64_t prefix = 0;
    if (llm->prefix_from_trace) {
        uint64_t covered = svc->next_row.prefix_tokens < prompt ? svc->next_row.prefix_tokens : prompt;
        prefix = (uint64_t)svc->next_row.prefix_key << 32 | covered;
    } else if (llm->prefix_groups) {
        uint64_t group = gsl_ran_discrete(svc->prefix_rng, svc->prefix_table) + 1;
        uint64_t covered = llm->prefix_tokens < prompt ? llm->prefix_tokens : prompt;
        prefix = group << 32 | covered;
    }
    fs_service_rep *rep = svc->rep;
    rep->all_prompt_tokens += (double)prompt;
    rep->all_output_tokens += (double)output;
    fs_level_add(&svc->in_system, now, +1);
    if (prompt + output > llm->max_model_len || prompt > INT32_MAX || output > INT32_MAX) {
        refuse_too_long(svc, now);
        return false;
    }
    if (svc->waiting + svc->llm_local >= svc->spec->queue_limit && !svc->free_slots) {
        fs_level_add(&svc->in_system, now, -1);
        fs__service_drop(svc);
        return false;
    }
    if (svc->waiting >= FS_SERVICE_MAX_WAITING) {
        fs_sim_fail(svc->sim, ENOSPC,
                    "service \"%s\": more than %llu requests waiting at t=%.0fs: arrivals exceed capacity; "
                    "set a queue_limit to model drops instead",
                    svc->spec->name, (unsigned long long)FS_SERVICE_MAX_WAITING, now);
        return false;
    }
    if (fs__service_ring_push(svc, now, -1, fs__tokens_pack(prompt, output), prefix) != 0) {
        fs_sim_fail(svc->sim, ENOMEM, "service \"%s\": out of memory for %llu waiting requests", svc->spec->name,
                    (unsigned long long)svc->waiting + 1);
        return false;
    }
    return true;
}

/* Puts req into replica r's engine; false when it is longer than the
 * replica's whole KV cache could ever hold (refused, counted as dropped).
 * A disaggregated service's prefill replica computes the prompt and first
 * token only; its decode replicas receive the prompt's KV. */
bool fs__llm_enter(fs_service *svc, uint32_t r, const fs__llm_request *req, double now)
{
    struct fs_llm_slot *slot = &svc->llm_slots[r];
    fs_error err = {0};
    uint32_t id = slot->free_ids[--slot->n_free];
    int rc = fs__llm_is_decode(svc, r)
                 ? fs_llm_engine_enqueue_received(&slot->engine, id, fs__tokens_prompt(req->tokens), fs__tokens_output(req->tokens),
                                                  svc->spec->name, &err)
                 : fs_llm_engine_enqueue_prefixed(&slot->engine, id, fs__tokens_prompt(req->tokens),
                                                  svc->pd ? 1 : fs__tokens_output(req->tokens), (uint32_t)(req->prefix >> 32),
                                                  (uint32_t)req->prefix, svc->spec->name, &err);
    if (rc != FS_OK) {
        slot->n_free++;
        refuse_too_long(svc, now);
        return false;
    }
    slot->arrival[id] = req->arrival;
    slot->first_token[id] = req->first;
    slot->tokens[id] = req->tokens;
    slot->prefix[id] = req->prefix;
    return true;
}

/* Replica r fills its engine up to max_seqs requests: from its own queue
 * when requests are routed, else from the central queue, so a request waits
 * where any replica may take it. */
static void pull(fs_service *svc, uint32_t r, double now)
{
    struct fs_llm_slot *slot = &svc->llm_slots[r];
    fs_llm_engine *e = &slot->engine;
    while (slot->local.n && e->n_running + e->n_waiting < e->cfg.max_seqs) {
        fs__llm_request req = fs__llm_ring_pop(&slot->local);
        svc->llm_local--;
        if (!fs__llm_enter(svc, r, &req, now))
            svc->in_service--; /* it was counted when routed */
    }
    while (svc->waiting && e->n_running + e->n_waiting < e->cfg.max_seqs) {
        fs__llm_request req = {0};
        req.arrival = fs__service_ring_pop(svc, &req.first, &req.tokens, &req.prefix);
        svc->in_service += fs__llm_enter(svc, r, &req, now);
    }
}

int fs__llm_ring_push(fs__llm_ring *q, const fs__llm_request *req)
{
    if (q->n == q->cap) {
        uint64_t cap = q->cap ? 2 * q->cap : 64;
        fs__llm_request *grown = malloc(cap * sizeof *grown);
        if (!grown)
            return ENOMEM;
        for (uint64_t i = 0; i < q->n; i++)
            grown[i] = *fs__llm_ring_at(q, i);
        free(q->at);
        q->at = grown;
        q->cap = cap;
        q->head = 0;
    }
    q->at[(q->head + q->n) & (q->cap - 1)] = *req;
    q->n++;
    return 0;
}

fs__llm_request fs__llm_ring_pop(fs__llm_ring *q)
{
    fs__llm_request req = q->at[q->head];
    q->head = (q->head + 1) & (q->cap - 1);
    q->n--;
    return req;
}

/* Appends req to replica r's own queue (it counts as in service). */
static int local_push(fs_service *svc, struct fs_llm_slot *slot, const fs__llm_request *req)
{
    if (fs__llm_ring_push(&slot->local, req) != 0)
        return ENOMEM;
    svc->llm_local++;
    svc->in_service++;
    return 0;
}

/* Requests queued for or inside replica r's engine. */
static uint64_t load_of(const fs_service *svc, uint32_t r)
{
    const struct fs_llm_slot *slot = &svc->llm_slots[r];
    return slot->local.n + slot->engine.n_running + slot->engine.n_waiting;
}

/* The ready replica a request goes to (the service has one at least);
 * ties go to the lowest slot, so runs repeat. */
static uint32_t route(fs_service *svc, uint64_t prefix)
{
    const fs_llm_serving *llm = &svc->spec->batching.llm;
    if (llm->routing == FS_LLM_ROUTE_ROUND_ROBIN) {
        for (uint32_t k = 0;; k++) {
            uint32_t r = (svc->llm_rr + k) % svc->n_slots;
            if (svc->replica[r].state == FS__READY) {
                svc->llm_rr = (r + 1) % svc->n_slots;
                return r;
            }
        }
    }
    uint32_t best = UINT32_MAX, hit = UINT32_MAX;
    uint64_t best_load = UINT64_MAX, hit_load = UINT64_MAX;
    bool affinity = llm->routing == FS_LLM_ROUTE_PREFIX_AFFINITY && prefix >> 32;
    for (uint32_t r = 0; r < svc->n_slots; r++) {
        if (svc->replica[r].state != FS__READY)
            continue;
        uint64_t load = load_of(svc, r);
        if (load < best_load)
            best = r, best_load = load;
        if (affinity && load < hit_load && svc->llm_slots[r].cache.entries &&
            fs_llm_prefix_find(&svc->llm_slots[r].cache, prefix >> 32))
            hit = r, hit_load = load;
    }
    return hit != UINT32_MAX && hit_load <= best_load + llm->affinity_slack ? hit : best;
}

static void set_levels(fs_service *svc, struct fs_llm_slot *slot, double now, uint32_t running, uint32_t blocks)
{
    fs_level_add(&svc->llm_running, now, (double)running - slot->level_running);
    fs_level_add(&svc->llm_kv_used, now, (double)blocks - slot->level_blocks);
    slot->level_running = running;
    slot->level_blocks = blocks;
}

/* Starts replica r's next step, or, with nothing to run, lets it go idle
 * (a draining replica then gives its unit back). */
void fs__llm_start_step(fs_service *svc, uint32_t r, double now)
{
    struct fs_llm_slot *slot = &svc->llm_slots[r];
    fs_llm_engine_step(&slot->engine, &slot->step, &slot->out);
    bool decode = fs__llm_is_decode(svc, r);
    if (slot->out.idle && decode) {
        set_levels(svc, slot, now, 0, 0);
        fs__pd_idle(svc, r, now);
        return;
    }
    if (slot->out.idle) {
        set_levels(svc, slot, now, 0, 0);
        fs_level_add(&svc->llm_busy, now, -1);
        if (svc->replica[r].state != FS__READY)
            fs_level_add(&svc->llm_kv_total, now, -(double)slot->kv_blocks);
        svc->in_service++; /* fs__service_release counts the replica's one */
        fs__service_release(svc, r, now);
        return;
    }
    double t = slot->out.duration;
    if (decode ? svc->pd->time_sliced : svc->time_sliced)
        t *= fs_pool_contention(decode ? svc->pd->pool : svc->pool, svc->replica[r].unit);
    slot->stepping = true;
    slot->step_start = now;
    set_levels(svc, slot, now, slot->out.running_in_step, slot->out.blocks_in_step);
    fs_sim_schedule(svc->sim, now + t, FS__PRIORITY_REQUEST, svc->kind_llm_step, r, (double)slot->generation);
}

/* An idle ready replica with work starts stepping. */
static void wake(fs_service *svc, uint32_t r, double now)
{
    fs__service_occupy(svc, r, now);
    svc->in_service--; /* pull counts each request */
    fs_level_add(&svc->llm_busy, now, +1);
    pull(svc, r, now);
    fs__llm_start_step(svc, r, now);
}

void fs__llm_dispatch(fs_service *svc, double now)
{
    if (svc->spec->batching.llm.routing != FS_LLM_ROUTE_CENTRAL) {
        while (svc->waiting && svc->n_ready) {
            fs__llm_request req = {0};
            req.arrival = fs__service_ring_pop(svc, &req.first, &req.tokens, &req.prefix);
            uint32_t r = route(svc, req.prefix);
            if (local_push(svc, &svc->llm_slots[r], &req) != 0) {
                fs_sim_fail(svc->sim, ENOMEM, "service \"%s\": out of memory", svc->spec->name);
                return;
            }
            if (svc->replica[r].load == 0)
                wake(svc, r, now);
        }
        return;
    }
    while (svc->waiting && svc->free_slots)
        wake(svc, fs__service_pick_replica(svc), now);
}

/* Whether a finished request met every target it is judged on. */
static bool met_all(const fs_service *svc, uint64_t ttft_ns, bool has_tpot, uint64_t tpot_ns, uint64_t e2e_ns)
{
    const fs_slo *slo = &svc->spec->slo;
    if (svc->ttft_threshold_ns && ttft_ns > svc->ttft_threshold_ns)
        return false;
    if (svc->tpot_threshold_ns && has_tpot && tpot_ns > svc->tpot_threshold_ns)
        return false;
    for (size_t j = 0; j < slo->n_targets; j++)
        if (e2e_ns > svc->slo_threshold_ns[j])
            return false;
    return true;
}

void fs__llm_first_token(fs_service *svc, double arrival, double now)
{
    uint64_t ns = to_ns(now - arrival);
    if ((fs_hist_record(&svc->rep->ttft, ns) | fs_hist_record(&svc->window_ttft, ns)) != 0)
        fs__service_no_memory(svc);
    svc->slo_ttft_total++;
    svc->slo_ttft_bad += ns > svc->ttft_threshold_ns;
}

static void apply_event(fs_service *svc, uint32_t r, const fs_llm_event *ev, double now)
{
    struct fs_llm_slot *slot = &svc->llm_slots[r];
    fs_service_rep *rep = svc->rep;
    uint64_t id = ev->id;
    /* A disaggregated service's request is queued and gets its first token
     * on the prefill side; there it finishes when its prefill does. */
    bool decode = fs__llm_is_decode(svc, r), handed = svc->pd && !decode && fs__tokens_output(slot->tokens[id]) > 1;
    switch (ev->kind) {
    case FS_LLM_ADMITTED: {
        if (decode)
            break;
        double wait = slot->step_start - slot->arrival[id];
        rep->started++;
        rep->waited += wait > 0;
        rep->wait_sum_s += wait;
        break;
    }
    case FS_LLM_FIRST_TOKEN:
        /* A recomputed request keeps its first; a handed-over one's is out
         * when its KV (and the token with it) reaches the decode side. */
        if (slot->first_token[id] < 0 && !handed) {
            slot->first_token[id] = now;
            fs__llm_first_token(svc, slot->arrival[id], now);
        }
        break;
    case FS_LLM_FINISHED: {
        if (handed) {
            fs__llm_request req = {slot->arrival[id], slot->first_token[id], slot->tokens[id], slot->prefix[id], now};
            slot->free_ids[slot->n_free++] = (uint32_t)id;
            if (fs__pd_send(svc, r, &req, now) != 0)
                fs_sim_fail(svc->sim, ENOMEM, "service \"%s\": out of memory", svc->spec->name);
            break;
        }
        uint64_t tokens = slot->tokens[id];
        uint32_t output = fs__tokens_output(tokens);
        double arrival = slot->arrival[id], first = slot->first_token[id];
        uint64_t tpot_ns = 0;
        if (output >= 2) {
            tpot_ns = to_ns((now - first) / (output - 1));
            if ((fs_hist_record(&rep->tpot, tpot_ns) | fs_hist_record(&svc->window_tpot, tpot_ns)) != 0)
                fs__service_no_memory(svc);
            svc->slo_tpot_total++;
            svc->slo_tpot_bad += tpot_ns > svc->tpot_threshold_ns;
        }
        rep->slo_good += met_all(svc, to_ns(first - arrival), output >= 2, tpot_ns, to_ns(now - arrival));
        rep->prompt_tokens += fs__tokens_prompt(tokens);
        rep->output_tokens += output;
        svc->in_service--;
        fs__service_complete(svc, now, arrival);
        slot->free_ids[slot->n_free++] = (uint32_t)id;
        break;
    }
    default: /* FS_LLM_PREEMPTED */
        rep->preemptions++;
        break;
    }
}

void fs__llm_on_step(fs_sim *sim, const fs_event *ev, void *ctx)
{
    fs_service *svc = ctx;
    uint32_t r = ev->arg;
    struct fs_llm_slot *slot = &svc->llm_slots[r];
    if (!slot->stepping || ev->data != (double)slot->generation)
        return; /* the replica lost its unit during the step */
    double now = sim->now;
    fs_service_rep *rep = svc->rep;
    slot->stepping = false;
    for (size_t i = 0; i < slot->out.n_events; i++)
        apply_event(svc, r, &slot->out.events[i], now);
    rep->steps++;
    uint32_t size = slot->out.scheduled < svc->spec->batching.max_batch_size ? slot->out.scheduled
                                                                              : svc->spec->batching.max_batch_size;
    rep->batch_size_counts[size]++;
    rep->tokens_generated += slot->out.tokens_out;
    rep->prefill_queried += slot->out.prefill_queried;
    rep->prefill_cached += slot->out.prefill_cached;
    svc->w_tokens += slot->out.tokens_out;
    if (svc->replica[r].state == FS__READY) {
        if (fs__llm_is_decode(svc, r))
            fs__pd_pull(svc, r, now);
        else
            pull(svc, r, now);
    }
    fs__llm_start_step(svc, r, now);
}

/* Sorts requests by arrival, newest first, for putting back at the head. */
static int newest_first(const void *a, const void *b)
{
    double x = ((const fs__llm_request *)a)->arrival, y = ((const fs__llm_request *)b)->arrival;
    return (x < y) - (x > y);
}

/* Everything a replica holds arrived before everything still in the
 * central queue (it takes or is sent the oldest), so putting it back newest
 * first keeps that queue in arrival order. */
int fs__llm_give_back(fs_service *svc, uint32_t r, bool engine)
{
    struct fs_llm_slot *slot = &svc->llm_slots[r];
    const fs_llm_engine *e = &slot->engine;
    size_t in_engine = engine ? e->n_running + e->n_waiting : 0, in_xfer = engine ? slot->xfer.n : 0;
    size_t n = in_engine + slot->local.n + in_xfer;
    if (n == 0)
        return 0;
    fs__llm_request *back = malloc(n * sizeof *back);
    if (!back)
        return ENOMEM;
    for (size_t i = 0; i < in_engine; i++) {
        uint64_t id = held_id(e, i);
        back[i] = (fs__llm_request){slot->arrival[id], slot->first_token[id], slot->tokens[id], slot->prefix[id], 0};
    }
    for (uint64_t i = 0; i < slot->local.n; i++)
        back[in_engine + i] = *fs__llm_ring_at(&slot->local, i);
    for (uint64_t i = 0; i < in_xfer; i++)
        back[in_engine + slot->local.n + i] = *fs__llm_ring_at(&slot->xfer, i);
    qsort(back, n, sizeof *back, newest_first);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = fs__service_ring_unpop(svc, back[i].arrival, back[i].first, back[i].tokens, back[i].prefix);
    free(back);
    svc->in_service -= n;
    svc->llm_local -= slot->local.n;
    slot->local.n = 0;
    if (engine)
        slot->xfer.n = 0;
    return rc;
}

void fs__llm_replica_draining(fs_service *svc, uint32_t r, double now)
{
    struct fs_llm_slot *slot = &svc->llm_slots[r];
    if (!slot->local.n)
        return;
    if (fs__llm_give_back(svc, r, false) != 0) {
        fs_sim_fail(svc->sim, ENOMEM, "service \"%s\": out of memory", svc->spec->name);
        return;
    }
    fs__llm_dispatch(svc, now);
}

void fs__llm_replica_lost(fs_service *svc, uint32_t r, double now)
{
    struct fs_llm_slot *slot = &svc->llm_slots[r];
    fs_llm_engine *e = &slot->engine;
    size_t n = e->n_running + e->n_waiting + slot->local.n + slot->xfer.n;
    bool busy = slot->stepping || e->n_running + e->n_waiting > 0;
    if (busy)
        fs_level_add(&svc->llm_busy, now, -1);
    if (fs__llm_is_decode(svc, r))
        fs__pd_lost(svc, r, busy, now);
    if (fs__llm_give_back(svc, r, true) != 0) {
        fs_sim_fail(svc->sim, ENOMEM, "service \"%s\": out of memory", svc->spec->name);
        return;
    }
    set_levels(svc, slot, now, 0, 0);
    fs_level_add(&svc->llm_kv_total, now, -(double)slot->kv_blocks);
    slot->generation++;
    slot->stepping = false;
    e->n_running = e->n_waiting = 0;
    svc->replica[r].load = 0;
    svc->replica[r].state = FS__OFF;
    if (n > 0)
        fs__llm_dispatch(svc, now);
}

void fs__llm_each_held(const fs_service *svc, void (*visit)(void *ctx, const fs__llm_request *req), void *ctx)
{
    for (uint32_t r = 0; r < svc->n_llm_slots; r++) {
        const struct fs_llm_slot *slot = &svc->llm_slots[r];
        const fs_llm_engine *e = &slot->engine;
        if (!slot->running)
            continue;
        for (uint64_t i = 0; i < slot->local.n; i++)
            visit(ctx, fs__llm_ring_at(&slot->local, i));
        for (uint64_t i = 0; i < slot->xfer.n; i++)
            visit(ctx, fs__llm_ring_at(&slot->xfer, i));
        for (size_t i = 0; i < e->n_running + e->n_waiting; i++) {
            uint64_t id = held_id(e, i);
            fs__llm_request req = {slot->arrival[id], slot->first_token[id], slot->tokens[id], slot->prefix[id], 0};
            visit(ctx, &req);
        }
    }
    for (uint64_t i = 0; svc->pd && i < svc->pd->queue.n; i++)
        visit(ctx, fs__llm_ring_at(&svc->pd->queue, i));
}

/* What the late counters below look at, and what they found. */
typedef struct late_count {
    double now;
    const fs_slo *slo;
    uint64_t *late;       /* end-to-end: per target */
    uint64_t ttft, tpot;
} late_count;

static void count_late_e2e(void *ctx, const fs__llm_request *req)
{
    late_count *c = ctx;
    for (size_t j = 0; j < c->slo->n_targets; j++)
        c->late[j] += req->arrival < c->now - c->slo->targets[j].threshold_s;
}

void fs__llm_late_in_service(const fs_service *svc, double now, uint64_t late[FS_SLO_MAX_TARGETS])
{
    late_count c = {.now = now, .slo = &svc->spec->slo, .late = late};
    fs__llm_each_held(svc, count_late_e2e, &c);
}

/* A request past the TTFT target (no first token, older than it) or the
 * TPOT target (first token out, and even finishing now would exceed it). */
static void count_late_llm(void *ctx, const fs__llm_request *req)
{
    late_count *c = ctx;
    double ttft_s = c->slo->ttft.threshold_s, tpot_s = c->slo->tpot.threshold_s;
    uint32_t output = fs__tokens_output(req->tokens);
    if (req->first < 0)
        c->ttft += ttft_s > 0 && c->now - req->arrival > ttft_s;
    else
        c->tpot += tpot_s > 0 && output >= 2 && (c->now - req->first) / (output - 1) > tpot_s;
}

/* Requests still queued, in transfer or in an engine at `now` already past
 * the TTFT or TPOT target, into *ttft and *tpot. */
static void late_llm(const fs_service *svc, double now, uint64_t *ttft, uint64_t *tpot)
{
    late_count c = {.now = now, .slo = &svc->spec->slo};
    for (uint64_t i = 0; i < svc->waiting; i++) {
        uint64_t at = (svc->head + i) & svc->ring_mask;
        fs__llm_request req = {svc->ring[at], svc->ring_demand[at], svc->ring_tokens[at], 0, 0};
        count_late_llm(&c, &req);
    }
    fs__llm_each_held(svc, count_late_llm, &c);
    *ttft = c.ttft;
    *tpot = c.tpot;
}

/* Whether n judged requests, `bad` of them past target t, breach it. */
static bool breaches(const fs_slo_target *t, uint64_t n, uint64_t bad)
{
    if (t->threshold_s <= 0 || n == 0)
        return false;
    double needed = ceil(t->quantile * (double)n - 1e-9);
    return (double)(n - bad) < needed;
}

bool fs__llm_window_breached(fs_service *svc, double now)
{
    const fs_slo *slo = &svc->spec->slo;
    uint64_t late_ttft = 0, late_tpot = 0;
    /* Only end-to-end targets: no pass over the queue and the engines. */
    if (slo->ttft.threshold_s > 0 || slo->tpot.threshold_s > 0)
        late_llm(svc, now, &late_ttft, &late_tpot);
    bool breached = breaches(&slo->ttft, svc->slo_ttft_total + late_ttft, svc->slo_ttft_bad + late_ttft) ||
                    breaches(&slo->tpot, svc->slo_tpot_total + late_tpot, svc->slo_tpot_bad + late_tpot);
    svc->slo_ttft_total = svc->slo_ttft_bad = svc->slo_tpot_total = svc->slo_tpot_bad = 0;
    return breached;
}

void fs__llm_start_measuring(fs_service *svc, double now)
{
    svc->slo_ttft_total = svc->slo_ttft_bad = svc->slo_tpot_total = svc->slo_tpot_bad = 0;
    fs_service_rep *rep = svc->rep;
    fs_hist_reset(&rep->ttft);
    fs_hist_reset(&rep->tpot);
    fs_hist_reset(&svc->window_ttft);
    fs_hist_reset(&svc->window_tpot);
    rep->prompt_tokens = rep->output_tokens = rep->tokens_generated = 0;
    rep->steps = rep->preemptions = rep->too_long = rep->slo_good = 0;
    rep->prefill_queried = rep->prefill_cached = 0;
    fs_level_restart(&svc->llm_running, now);
    fs_level_restart(&svc->llm_kv_used, now);
    fs_level_restart(&svc->llm_kv_total, now);
    fs_level_restart(&svc->llm_busy, now);
    svc->w_running_mark = svc->w_kv_used_mark = svc->w_kv_total_mark = 0;
    svc->w_tokens = 0;
    if (svc->pd)
        fs__pd_start_measuring(svc, now);
}

void fs__llm_close_window(fs_service *svc, double now, fs_service_window *w)
{
    fs_level_flush(&svc->llm_running, now);
    fs_level_flush(&svc->llm_kv_used, now);
    fs_level_flush(&svc->llm_kv_total, now);
    double len = w->end_s - w->start_s;
    double used = svc->llm_kv_used.area - svc->w_kv_used_mark, total = svc->llm_kv_total.area - svc->w_kv_total_mark;
    w->ttft_p99_ms = fs_results_hist_figure(&svc->window_ttft, 0.99, 1e-6);
    w->tpot_p99_ms = fs_results_hist_figure(&svc->window_tpot, 0.99, 1e-6);
    w->mean_running = len > 0 ? (svc->llm_running.area - svc->w_running_mark) / len : NAN;
    w->kv_occupancy = total > 0 ? used / total : NAN;
    w->tokens = svc->w_tokens;
    svc->w_running_mark = svc->llm_running.area;
    svc->w_kv_used_mark = svc->llm_kv_used.area;
    svc->w_kv_total_mark = svc->llm_kv_total.area;
    svc->w_tokens = 0;
    fs_hist_reset(&svc->window_ttft);
    fs_hist_reset(&svc->window_tpot);
}

void fs__llm_finish(fs_service *svc, double now)
{
    fs_service_rep *rep = svc->rep;
    rep->mean_running = fs_level_mean(&svc->llm_running, now);
    fs_level_flush(&svc->llm_kv_used, now);
    fs_level_flush(&svc->llm_kv_total, now);
    rep->kv_occupancy = svc->llm_kv_total.area > 0 ? svc->llm_kv_used.area / svc->llm_kv_total.area : NAN;
    fs_level_flush(&svc->llm_busy, now);
    rep->busy_s = svc->llm_busy.area;
    late_llm(svc, now, &rep->ttft_late_end, &rep->tpot_late_end);
    if (svc->pd)
        fs__pd_finish(svc, now);
}

/*
 * llm_engine — the scheduler step; see llm_engine.h.
 *
 * The step is O(running + admitted) and allocates nothing: sequences are
 * plain values moved between the caller's two arrays, and the waiting queue
 * is a ring so a preempted sequence can go back to its head in O(1).
 */
#include "llm_engine.h"

#include <assert.h>
#include <math.h>
#include <string.h>

/* A token count a sequence may have: its KV (P + O - 1) must fit uint32_t. */
#define MAX_TOKENS INT32_MAX

int fs_llm_config_check(const fs_llm_config *c, const char *where, fs_error *err)
{
    const char *bad = c->max_seqs == 0       ? "max_seqs"
                      : c->token_budget == 0 ? "token_budget"
                      : c->kv_blocks == 0    ? "kv_blocks"
                      : c->block_tokens == 0 ? "block_tokens"
                                             : NULL;
    if (bad)
        return fs_error_set(err, FS_ERR_INPUT, "%s.%s: expected an integer >= 1", where, bad);
    if (c->kv_policy != FS_LLM_KV_QUEUE && c->kv_policy != FS_LLM_KV_PREEMPT)
        return fs_error_set(err, FS_ERR_INPUT, "%s.kv_policy: expected queue or preempt", where);
    return FS_OK;
}

int fs_llm_engine_init(fs_llm_engine *e, const fs_llm_config *cfg, fs_llm_seq *running,
                       fs_llm_seq *waiting, size_t waiting_cap, const char *where,
                       fs_error *err)
{
    int rc = fs_llm_config_check(cfg, where, err);
    if (rc)
        return rc;
    assert(running && waiting && waiting_cap >= cfg->max_seqs);
    memset(e, 0, sizeof *e);
    e->cfg = *cfg;
    e->running = running;
    e->waiting = waiting;
    e->waiting_cap = waiting_cap;
    e->free_blocks = cfg->kv_blocks;
    return FS_OK;
}

uint32_t fs_llm_blocks_for(const fs_llm_engine *e, uint64_t tokens)
{
    uint64_t b = (tokens + e->cfg.block_tokens - 1) / e->cfg.block_tokens;
    assert(b <= UINT32_MAX);
    return (uint32_t)b;
}

/* Blocks a sequence holds for its whole life under QUEUE. */
static uint32_t whole_request(const fs_llm_engine *e, uint64_t prompt, uint64_t output)
{
    return fs_llm_blocks_for(e, prompt + output - 1);
}

static int check_request(const fs_llm_engine *e, uint64_t id, int64_t prompt, int64_t output,
                         const char *where, fs_error *err);

/* A new sequence at the waiting ring's tail (checked), to prefill its prompt. */
static fs_llm_seq *queue_tail(fs_llm_engine *e, uint64_t id, int64_t prompt, int64_t output)
{
    fs_llm_seq *s = &e->waiting[(e->waiting_head + e->n_waiting) % e->waiting_cap];
    memset(s, 0, sizeof *s);
    s->id = (uint32_t)id;
    s->prompt = (uint32_t)prompt;
    s->output = (uint32_t)output;
    s->prefill_len = (uint32_t)prompt;
    e->n_waiting++;
    return s;
}

int fs_llm_engine_enqueue(fs_llm_engine *e, uint64_t id, int64_t prompt, int64_t output,
                          const char *where, fs_error *err)
{
    return fs_llm_engine_enqueue_prefixed(e, id, prompt, output, 0, 0, where, err);
}

int fs_llm_engine_enqueue_prefixed(fs_llm_engine *e, uint64_t id, int64_t prompt, int64_t output,
                                   uint32_t prefix_key, uint32_t prefix_tokens, const char *where, fs_error *err)
{
    int rc = check_request(e, id, prompt, output, where, err);
    if (rc != FS_OK)
        return rc;
    fs_llm_seq *s = queue_tail(e, id, prompt, output);
    s->prefix_key = prefix_tokens ? prefix_key : 0;
    s->prefix_tokens = prefix_tokens < prompt ? prefix_tokens : (uint32_t)prompt;
    return FS_OK;
}

int fs_llm_engine_enqueue_received(fs_llm_engine *e, uint64_t id, int64_t prompt, int64_t output,
                                   const char *where, fs_error *err)
{
    if (output < 2)
        return fs_error_set(err, FS_ERR_INPUT,
                            "%s: request %llu arrives prefilled with %lld output tokens; only a request "
                            "of 2 or more has decodes left", where, (unsigned long long)id, (long long)output);
    int rc = check_request(e, id, prompt, output, where, err);
    if (rc != FS_OK)
        return rc;
    fs_llm_seq *s = queue_tail(e, id, prompt, output);
    /* Its prompt's KV arrived computed, with its first token. */
    s->prefilled = s->kv = (uint32_t)prompt;
    s->generated = 1;
    return FS_OK;
}

/* FS_OK when the engine can queue a request of these sizes (see enqueue). */
static int check_request(const fs_llm_engine *e, uint64_t id, int64_t prompt, int64_t output,
                         const char *where, fs_error *err)
{
    if (id > UINT32_MAX)
        return fs_error_set(err, FS_ERR_INPUT, "%s: request id %llu: ids must be below 2^32", where,
                            (unsigned long long)id);
    if (prompt < 1 || prompt > MAX_TOKENS || output < 1 || output > MAX_TOKENS)
        return fs_error_set(err, FS_ERR_INPUT,
                            "%s: request %llu has %lld prompt and %lld output tokens; each must "
                            "be between 1 and %d", where, (unsigned long long)id,
                            (long long)prompt, (long long)output, MAX_TOKENS);
    if (whole_request(e, (uint64_t)prompt, (uint64_t)output) > e->cfg.kv_blocks)
        return fs_error_set(err, FS_ERR_INPUT,
                            "%s: request %llu needs KV for %lld tokens (prompt %lld + output "
                            "%lld - 1); the whole cache holds %llu, so it could never run",
                            where, (unsigned long long)id, (long long)(prompt + output - 1),
                            (long long)prompt, (long long)output,
                            (unsigned long long)e->cfg.kv_blocks * e->cfg.block_tokens);
    if (e->n_waiting + e->n_running >= e->waiting_cap)
        return fs_error_set(err, FS_ERR_RUNTIME,
                            "%s: %zu requests in the engine, its queue holds no more", where,
                            e->n_waiting + e->n_running);
    return FS_OK;
}

static void emit(fs_llm_step_out *out, uint64_t id, int kind)
{
    out->events[out->n_events].id = id;
    out->events[out->n_events].kind = kind;
    out->n_events++;
}

/* A sequence leaving the running set gives back its own blocks and its use
 * of a cached prefix (whose blocks stay cached). */
static void release(fs_llm_engine *e, fs_llm_seq *s)
{
    e->free_blocks += s->blocks;
    if (s->entry)
        fs_llm_prefix_unpin(e->prefix, s->entry);
    s->entry = 0;
    s->shared = 0;
}

/* Evicts unused cached prefixes, least recently used first, until `need`
 * blocks are free or none is left to evict. */
static void make_room(fs_llm_engine *e, uint32_t need)
{
    while (e->prefix && need > e->free_blocks) {
        uint32_t freed = fs_llm_prefix_evict(e->prefix);
        if (!freed)
            break;
        e->free_blocks += freed;
    }
}

/* The newest running sequence gives its blocks back and waits at the head of
 * the queue to recompute its prompt and every token emitted so far. */
static void preempt_newest(fs_llm_engine *e, fs_llm_step_out *out)
{
    fs_llm_seq s = e->running[--e->n_running];
    release(e, &s);
    s.prefill_len = s.prompt + s.generated;
    s.prefilled = 0;
    s.kv = 0;
    s.blocks = 0;
    e->waiting_head = (e->waiting_head + e->waiting_cap - 1) % e->waiting_cap;
    e->waiting[e->waiting_head] = s;
    e->n_waiting++;
    e->preemptions++;
    emit(out, s.id, FS_LLM_PREEMPTED);
}

/* Runs `tokens` of s's work (a chunk of prefill, or one decode) and records
 * the token it emits, if any. */
/* s has just computed its whole context: an uncached prefix of a full block
 * or more stays in the cache, its blocks handed from s to the entry. */
static void cache_prefix(fs_llm_engine *e, fs_llm_seq *s)
{
    uint32_t blocks = s->prefix_tokens / e->cfg.block_tokens;
    if (!e->prefix || !s->prefix_key || s->entry || blocks == 0 || fs_llm_prefix_find(e->prefix, s->prefix_key))
        return;
    uint32_t freed = 0;
    uint32_t h = fs_llm_prefix_insert(e->prefix, s->prefix_key, blocks, &freed);
    e->free_blocks += freed;
    if (!h)
        return;
    s->entry = h;
    s->shared = blocks;
    s->blocks -= blocks;
}

static inline void run_tokens(fs_llm_engine *e, fs_llm_seq *s, uint32_t tokens, fs_llm_step_out *out)
{
    bool emits, prefilled = false;
    out->scheduled++;
    if (s->prefilled < s->prefill_len) {
        s->prefilled += tokens;
        out->batch.prefill_tokens += tokens;
        emits = prefilled = s->prefilled == s->prefill_len;
    } else {
        out->batch.decodes++;
        emits = true;
    }
    s->kv += tokens;
    out->batch.kv_tokens_read += s->kv;
    if (!emits)
        return;
    if (prefilled && e->prefix)
        cache_prefix(e, s);
    s->generated++;
    out->tokens_out++;
    if (s->generated == 1)
        emit(out, s->id, FS_LLM_FIRST_TOKEN);
    if (s->generated == s->output)
        emit(out, s->id, FS_LLM_FINISHED);
}

/* Tokens s would run with `budget` left. */
static uint32_t wanted(const fs_llm_seq *s, uint32_t budget)
{
    uint32_t left = s->prefill_len - s->prefilled;
    if (left == 0)
        return 1;
    return left < budget ? left : budget;
}

void fs_llm_engine_step(fs_llm_engine *e, const fs_llm_step_model *model, fs_llm_step_out *out)
{
    memset(&out->batch, 0, sizeof out->batch);
    out->tokens_out = 0;
    out->n_events = 0;
    out->scheduled = 0;
    out->prefill_queried = out->prefill_cached = 0;
    uint32_t budget = e->cfg.token_budget;
    bool preempted = false;

    for (size_t i = 0; i < e->n_running && budget > 0; i++) {
        fs_llm_seq *s = &e->running[i];
        uint32_t n = wanted(s, budget);
        uint32_t have = fs_llm_blocks_for(e, (uint64_t)s->kv + n);
        uint32_t need = have > s->blocks + s->shared ? have - s->blocks - s->shared : 0;
        if (need > e->free_blocks)
            make_room(e, need);
        /* QUEUE reserved the whole request at admission, so only PREEMPT
         * can get here with too few blocks; the oldest sequence always fits
         * once the others are gone, so the loop ends. */
        while (need > e->free_blocks) {
            assert(e->cfg.kv_policy == FS_LLM_KV_PREEMPT);
            bool self = i == e->n_running - 1;
            preempt_newest(e, out);
            preempted = true;
            if (self)
                goto admit;
        }
        e->free_blocks -= need;
        s->blocks += need;
        budget -= n;
        run_tokens(e, s, n, out);
    }

admit:
    /* vLLM admits nothing in a step that preempted: the freed blocks would
     * only be taken by newcomers and the preempted would starve. */
    while (!preempted && e->n_waiting > 0 && e->n_running < e->cfg.max_seqs && budget > 0) {
        fs_llm_seq *head = &e->waiting[e->waiting_head];
        /* Received (its prompt's KV computed elsewhere): it decodes at once. */
        bool received = head->prefilled == head->prefill_len;
        /* Its cached prefix: full blocks, leaving at least one prompt token
         * to compute (the first token comes out of a prefill step). */
        uint32_t h = !received && e->prefix && head->prefix_key ? fs_llm_prefix_find(e->prefix, head->prefix_key) : 0;
        uint32_t shared = 0;
        if (h) {
            uint32_t usable = (head->prefill_len - 1) / e->cfg.block_tokens;
            shared = fs_llm_prefix_blocks(e->prefix, h);
            shared = shared < usable ? shared : usable;
            h = shared ? h : 0;
            if (h) /* pinned, so making room below cannot evict it */
                fs_llm_prefix_pin(e->prefix, h);
        }
        uint32_t cached = received ? head->kv : shared * e->cfg.block_tokens;
        uint32_t left = head->prefill_len - (received ? head->prefilled : cached);
        uint32_t n = received ? 1 : left < budget ? left : budget;
        uint32_t need = e->cfg.kv_policy == FS_LLM_KV_QUEUE
                            ? whole_request(e, head->prompt, head->output) - shared
                            : fs_llm_blocks_for(e, (uint64_t)cached + n) - shared;
        make_room(e, need);
        if (need > e->free_blocks) {
            if (h)
                fs_llm_prefix_unpin(e->prefix, h);
            break;
        }
        fs_llm_seq *s = &e->running[e->n_running++];
        *s = *head;
        e->waiting_head = (e->waiting_head + 1) % e->waiting_cap;
        e->n_waiting--;
        e->free_blocks -= need;
        s->blocks = need;
        s->entry = h;
        s->shared = shared;
        if (!received)
            s->prefilled = s->kv = cached;
        if (e->prefix && !received) {
            out->prefill_queried += s->prefill_len;
            out->prefill_cached += cached;
        }
        if (s->admitted++ == 0)
            emit(out, s->id, FS_LLM_ADMITTED);
        budget -= n;
        run_tokens(e, s, n, out);
    }

    out->running_in_step = (uint32_t)e->n_running;
    out->blocks_in_step = e->cfg.kv_blocks - e->free_blocks;
    /* Finished sequences leave at the step's end, keeping the others' order. */
    size_t kept = 0;
    for (size_t i = 0; i < e->n_running; i++) {
        if (e->running[i].generated == e->running[i].output)
            release(e, &e->running[i]);
        else
            e->running[kept++] = e->running[i];
    }
    e->n_running = kept;

    out->idle = out->batch.prefill_tokens == 0 && out->batch.decodes == 0;
    /* The oldest running sequence always fits once the newer are preempted,
     * and the queue's head fits an empty cache (checked at enqueue), so a
     * step with work in the engine always runs something. */
    assert(!out->idle || (e->n_running == 0 && e->n_waiting == 0));
    out->duration = out->idle ? 0 : fs_llm_step_time(model, &out->batch);
    out->running = (uint32_t)e->n_running;
    out->blocks_used = e->cfg.kv_blocks - e->free_blocks;
}

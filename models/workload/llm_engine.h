/*
 * llm_engine — the pure core of a continuously batching LLM server: one step
 * of a vLLM-style scheduler over one replica's running and waiting requests
 * (the step's cost comes from llm_perf.h).
 *
 * service.c runs one per replica of a service with "batching": {"kind":
 * "continuous"}.  The engine knows no events, no clock and no scenario: a
 * caller asks for a step, advances its clock by the returned duration and
 * reads which requests were admitted, got their first token or finished at
 * the step's end, which is all queue time, TTFT and TPOT need.
 *
 * The scheduler follows vLLM (Kwon et al., "Efficient Memory Management for
 * Large Language Model Serving with PagedAttention", SOSP 2023; vLLM's
 * scheduler docs): KV cache in fixed-size blocks, a FIFO of waiting requests,
 * a bound on running sequences, and, when the cache runs out, recompute
 * preemption of the newest running sequence.  Chunked prefill with a per-step
 * token budget, decodes scheduled before prefill chunks ("stall-free
 * batching"), follows Sarathi-Serve (Agrawal et al., "Taming
 * Throughput-Latency Tradeoff in LLM Inference with Sarathi-Serve", OSDI 2024).
 *
 * Token accounting, exact: a sequence's prefill computes the KV of its
 * context and emits one token; each decode step computes the KV of the last
 * emitted token and emits the next.  So a request of prompt P and output O
 * emits O tokens in 1 prefill + (O - 1) decodes and holds at most P + O - 1
 * tokens of KV; the last token's KV is never computed.
 *
 * Ownership: fs_llm_engine is caller-owned (init, no fini) and borrows two
 * caller arrays (running sequences and the waiting ring); the step allocates
 * nothing and writes its events into the caller's fs_llm_step_out.
 */
#ifndef FS_LLM_ENGINE_H
#define FS_LLM_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "llm_perf.h"
#include "llm_prefix.h"

/* When a running sequence needs KV the cache no longer has. */
enum fs_llm_kv_policy {
    /* Admit a request only when its whole P + O - 1 tokens can be reserved:
     * nothing is ever preempted, requests queue instead. */
    FS_LLM_KV_QUEUE,
    /* Admit on the blocks of the first chunk; when a decode finds no free
     * block, preempt the newest running sequence, free its blocks and put it
     * at the head of the queue to recompute prompt + tokens so far (vLLM). */
    FS_LLM_KV_PREEMPT
};

typedef struct fs_llm_config {
    uint32_t max_seqs;       /* most running sequences */
    uint32_t token_budget;   /* most tokens (prefill + decode) per step */
    uint32_t kv_blocks;      /* KV cache size in blocks */
    uint32_t block_tokens;   /* tokens per block (vLLM: 16) */
    int kv_policy;           /* enum fs_llm_kv_policy */
} fs_llm_config;

/* 0, or FS_ERR_INPUT naming `where` and the field (zero sizes, unknown policy). */
int fs_llm_config_check(const fs_llm_config *c, const char *where, fs_error *err);

typedef struct fs_llm_seq {
    uint32_t id;          /* the caller's request id (< 2^32: a slot in its table) */
    uint32_t prompt;      /* prompt tokens */
    uint32_t output;      /* tokens to generate, >= 1 */
    uint32_t generated;   /* tokens emitted so far */
    uint32_t prefill_len; /* context this (re)computation prefills */
    uint32_t prefilled;   /* of which done */
    uint32_t kv;          /* tokens whose KV is computed */
    uint32_t blocks;      /* blocks held (QUEUE: reserved for the whole request) */
    uint32_t admitted;    /* times admitted (1 + recomputations after preemption) */
    uint32_t prefix_key;  /* its prompt's prefix identity; 0: none */
    uint32_t prefix_tokens; /* how many of its prompt tokens that prefix covers */
    uint32_t entry;       /* the prefix-cache entry it uses (handle), 0: none */
    uint32_t shared;      /* of its KV blocks, those the entry holds */
} fs_llm_seq;

/* A running or waiting request: the engine's whole per-request state. */
/* The step walks every running sequence: keep it small. */
_Static_assert(sizeof(fs_llm_seq) == 52, "fs_llm_seq: 13 x 4 bytes");

typedef struct fs_llm_engine {
    fs_llm_config cfg;
    fs_llm_seq *running;   /* cfg.max_seqs slots, oldest first */
    size_t n_running;
    fs_llm_seq *waiting;   /* ring of waiting_cap slots */
    size_t waiting_cap, waiting_head, n_waiting;
    uint32_t free_blocks;  /* held by no sequence and no cached prefix */
    uint64_t preemptions;  /* since init */
    fs_llm_prefix *prefix; /* borrowed; NULL: no prefix caching */
} fs_llm_engine;

/* Sets the engine up over `running` (cfg->max_seqs slots) and `waiting`
 * (waiting_cap slots, which must be >= max_seqs: a preempted sequence goes
 * back into it).  0, or FS_ERR_INPUT from fs_llm_config_check. */
int fs_llm_engine_init(fs_llm_engine *e, const fs_llm_config *cfg, fs_llm_seq *running,
                       fs_llm_seq *waiting, size_t waiting_cap, const char *where,
                       fs_error *err);

/* Queues a request at the tail.  FS_ERR_INPUT naming `where` for an id of
 * 2^32 or more, a prompt or
 * output under 1 token or over 2^31, or one whose P + O - 1 tokens of KV exceed the whole
 * cache (it could never run); FS_ERR_RUNTIME when running + waiting would
 * exceed waiting_cap (the caller's queue limit).  The engine is unchanged on
 * failure. */
int fs_llm_engine_enqueue(fs_llm_engine *e, uint64_t id, int64_t prompt, int64_t output,
                          const char *where, fs_error *err);

/* The same for a request whose first prefix_tokens prompt tokens are the
 * prefix `prefix_key` (0: none).  With a prefix cache (e->prefix set), a
 * request admitted while its prefix is cached skips the prefill of the
 * cached full blocks (at least one prompt token is always computed, to emit
 * the first token), and a request that computed an uncached prefix leaves
 * its full blocks in the cache when its prefill ends.  Cached blocks no
 * running sequence uses are evicted, least recently used first, before any
 * sequence is queued or preempted for memory. */
int fs_llm_engine_enqueue_prefixed(fs_llm_engine *e, uint64_t id, int64_t prompt, int64_t output,
                                   uint32_t prefix_key, uint32_t prefix_tokens, const char *where, fs_error *err);

/* Queues a request whose prompt's KV was computed elsewhere and arrives with
 * its first token (prefill/decode disaggregation): admitted when its KV
 * fits, it decodes its remaining output - 1 tokens.  If preempted, it
 * recomputes its context here as any other.  The same errors as enqueue,
 * and FS_ERR_INPUT for an output under 2 tokens (nothing left to decode). */
int fs_llm_engine_enqueue_received(fs_llm_engine *e, uint64_t id, int64_t prompt, int64_t output,
                                   const char *where, fs_error *err);

enum fs_llm_event_kind {
    FS_LLM_ADMITTED,    /* first scheduled (its queue time ends at the step's start) */
    FS_LLM_FIRST_TOKEN, /* the request's first token, at the step's end */
    FS_LLM_FINISHED,    /* its last token, at the step's end; it left the engine */
    FS_LLM_PREEMPTED    /* its KV was freed; it waits to be recomputed */
};

typedef struct fs_llm_event {
    uint64_t id;
    int kind; /* enum fs_llm_event_kind */
} fs_llm_event;

/* Events one step can write at most: each running sequence can be preempted,
 * or be admitted, get its first token and finish. */
#define FS_LLM_EVENTS_MAX(max_seqs) (3 * (size_t)(max_seqs))

typedef struct fs_llm_step_out {
    double duration;       /* seconds; 0 when idle */
    bool idle;             /* nothing was scheduled: no request in the engine */
    fs_llm_batch batch;
    uint64_t tokens_out;   /* tokens emitted */
    uint32_t running;      /* sequences running after the step */
    uint32_t blocks_used;  /* KV blocks held after the step */
    uint32_t scheduled;    /* sequences that ran a chunk or a decode in the step */
    uint32_t running_in_step; /* sequences running during the step (finishing ones included) */
    uint32_t blocks_in_step;  /* KV blocks held during the step (before the finished free theirs) */
    uint64_t prefill_queried; /* prompt tokens of the sequences admitted (with a prefix cache) */
    uint64_t prefill_cached;  /* of which found in the cache: prefill not computed */
    fs_llm_event *events;  /* caller's array, FS_LLM_EVENTS_MAX(max_seqs) */
    size_t n_events;
} fs_llm_step_out;

/* Runs one engine step.  Running sequences, oldest first, while the token
 * budget lasts: one whose prefill is done decodes one token, one with prefill
 * left gets a chunk of min(prefill left, budget left) tokens.  Oldest first is
 * Sarathi-Serve's decodes-before-prefill order: admission stops when a chunk
 * takes the rest of the budget, so a partial prefill is always the newest
 * sequence.  When a sequence's tokens need blocks the cache no longer has
 * (PREEMPT), the newest running sequence is preempted, until they fit or the
 * sequence itself was the newest.  Then, unless one was preempted in this
 * step, waiting requests are admitted in FIFO order while a running slot,
 * budget and blocks remain (a head that does not fit blocks the queue).
 * Fills *out; the duration comes from `model` (checked).  Sequences that
 * finish leave and free their blocks at the step's end. */
void fs_llm_engine_step(fs_llm_engine *e, const fs_llm_step_model *model, fs_llm_step_out *out);

/* Blocks a context of `tokens` tokens occupies. */
uint32_t fs_llm_blocks_for(const fs_llm_engine *e, uint64_t tokens);

#endif

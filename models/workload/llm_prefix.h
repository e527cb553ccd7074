/*
 * llm_prefix — one replica's prefix cache: KV blocks of prompt prefixes
 * kept after the requests that computed them, so a later request with the
 * same prefix skips that part of its prefill (vLLM's automatic prefix
 * caching, SGLang's radix cache, at the granularity of a whole prefix).
 *
 * An entry is a prefix identity (a non-zero key) and the full KV blocks
 * cached for it.  Entries used by running sequences are pinned; the others
 * sit in an LRU list and are evicted, least recently used first, when the
 * engine needs their blocks (llm_engine.c decides when).  Lookups are a
 * hash of the key; every operation is O(1) but deleting a key, which walks
 * one hash chain, and an insert that grows the arrays (amortised O(1)).
 *
 * Memory follows use, not the bound: the arrays start small and double as
 * entries are made, up to `cap` entries, so a bound of 2^32 - 1 (a trace's
 * prefix keys) costs what the entries cached cost.  An entry holds at least
 * one block, so a replica has at most its KV blocks' worth.  Should growing
 * fail for want of memory, the cache behaves as if full at its current size
 * (an insert evicts the least recently used unpinned entry).
 *
 * Ownership: fs_llm_prefix is caller-owned (init/fini); it owns its entry
 * and bucket arrays.  It knows nothing of sequences or of the engine's free
 * blocks: the engine counts blocks, this counts which are cached.
 */
#ifndef FS_LLM_PREFIX_H
#define FS_LLM_PREFIX_H

#include <stdint.h>

typedef struct fs_llm_prefix_entry {
    uint64_t key;        /* 0: a free slot */
    uint32_t blocks;     /* full KV blocks cached */
    uint32_t refs;       /* running sequences using it */
    uint32_t prev, next; /* LRU list of unpinned entries (next: more recent) */
    uint32_t chain;      /* next entry in its hash bucket, or free list */
} fs_llm_prefix_entry;

typedef struct fs_llm_prefix {
    fs_llm_prefix_entry *entries; /* alloc slots; index + 1 is an entry's handle */
    uint32_t cap;                 /* the most entries there may be */
    uint32_t alloc;               /* slots allocated (<= cap) */
    uint32_t *buckets;            /* n_buckets (a power of two) chain heads, handles */
    uint32_t bucket_mask;
    uint32_t lru_head, lru_tail;  /* handles; 0: empty */
    uint32_t free_head;           /* free slots, through `chain` */
    uint32_t n_entries;
    uint64_t cached_blocks;       /* all entries' blocks */
    uint64_t evictable_blocks;    /* unpinned entries' blocks */
} fs_llm_prefix;

/* A cache of at most `cap` entries (>= 1), with room for a few to begin
 * with.  0 or ENOMEM. */
int fs_llm_prefix_init(fs_llm_prefix *c, uint32_t cap);
void fs_llm_prefix_fini(fs_llm_prefix *c);
/* Forgets every entry (a replica that lost its memory). */
void fs_llm_prefix_clear(fs_llm_prefix *c);

/* The handle of key's entry, or 0. */
uint32_t fs_llm_prefix_find(const fs_llm_prefix *c, uint64_t key);

/* A new entry for key (not cached yet) with `blocks` blocks, pinned once;
 * its handle, or 0 when `cap` entries are there and all pinned (nothing is
 * cached then).  With `cap` entries an unpinned one is evicted to make the
 * slot: its blocks are added to *freed. */
uint32_t fs_llm_prefix_insert(fs_llm_prefix *c, uint64_t key, uint32_t blocks, uint32_t *freed);

/* A running sequence starts or stops using entry h. */
void fs_llm_prefix_pin(fs_llm_prefix *c, uint32_t h);
void fs_llm_prefix_unpin(fs_llm_prefix *c, uint32_t h);

/* Evicts the least recently used unpinned entry; the blocks it held, or 0
 * when none is unpinned. */
uint32_t fs_llm_prefix_evict(fs_llm_prefix *c);

static inline uint32_t fs_llm_prefix_blocks(const fs_llm_prefix *c, uint32_t h)
{
    return c->entries[h - 1].blocks;
}

#endif

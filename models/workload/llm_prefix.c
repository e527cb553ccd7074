/*
 * llm_prefix — a prefix cache with pinning and LRU eviction; see
 * llm_prefix.h.  Hand-written: GSL and the Debian C libraries in use offer
 * no hash map or LRU list.
 */
#include "llm_prefix.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static inline fs_llm_prefix_entry *at(const fs_llm_prefix *c, uint32_t h) { return &c->entries[h - 1]; }

static inline uint32_t bucket_of(const fs_llm_prefix *c, uint64_t key)
{
    /* Fibonacci hashing: keys are often small consecutive integers. */
    return (uint32_t)((key * UINT64_C(0x9E3779B97F4A7C15)) >> 32) & c->bucket_mask;
}

int fs_llm_prefix_init(fs_llm_prefix *c, uint32_t cap)
{
    memset(c, 0, sizeof *c);
    uint32_t n = 1;
    while (n < cap && n < (UINT32_C(1) << 30))
        n <<= 1;
    c->entries = calloc(cap, sizeof *c->entries);
    c->buckets = calloc(n, sizeof *c->buckets);
    if (!c->entries || !c->buckets) {
        fs_llm_prefix_fini(c);
        return ENOMEM;
    }
    c->cap = cap;
    c->bucket_mask = n - 1;
    fs_llm_prefix_clear(c);
    return 0;
}

void fs_llm_prefix_fini(fs_llm_prefix *c)
{
    free(c->entries);
    free(c->buckets);
    memset(c, 0, sizeof *c);
}

void fs_llm_prefix_clear(fs_llm_prefix *c)
{
    memset(c->buckets, 0, ((size_t)c->bucket_mask + 1) * sizeof *c->buckets);
    for (uint32_t i = 0; i < c->cap; i++)
        c->entries[i] = (fs_llm_prefix_entry){.chain = i + 2 <= c->cap ? i + 2 : 0};
    c->free_head = c->cap ? 1 : 0;
    c->lru_head = c->lru_tail = 0;
    c->n_entries = 0;
    c->cached_blocks = c->evictable_blocks = 0;
}

uint32_t fs_llm_prefix_find(const fs_llm_prefix *c, uint64_t key)
{
    for (uint32_t h = c->buckets[bucket_of(c, key)]; h; h = at(c, h)->chain)
        if (at(c, h)->key == key)
            return h;
    return 0;
}

static void lru_remove(fs_llm_prefix *c, uint32_t h)
{
    fs_llm_prefix_entry *e = at(c, h);
    if (e->prev)
        at(c, e->prev)->next = e->next;
    else
        c->lru_head = e->next;
    if (e->next)
        at(c, e->next)->prev = e->prev;
    else
        c->lru_tail = e->prev;
    e->prev = e->next = 0;
}

static void lru_append(fs_llm_prefix *c, uint32_t h)
{
    fs_llm_prefix_entry *e = at(c, h);
    e->prev = c->lru_tail;
    e->next = 0;
    if (c->lru_tail)
        at(c, c->lru_tail)->next = h;
    else
        c->lru_head = h;
    c->lru_tail = h;
}

void fs_llm_prefix_pin(fs_llm_prefix *c, uint32_t h)
{
    fs_llm_prefix_entry *e = at(c, h);
    if (e->refs++ == 0) {
        lru_remove(c, h);
        c->evictable_blocks -= e->blocks;
    }
}

void fs_llm_prefix_unpin(fs_llm_prefix *c, uint32_t h)
{
    fs_llm_prefix_entry *e = at(c, h);
    if (--e->refs == 0) {
        lru_append(c, h);
        c->evictable_blocks += e->blocks;
    }
}

uint32_t fs_llm_prefix_evict(fs_llm_prefix *c)
{
    uint32_t h = c->lru_head;
    if (!h)
        return 0;
    fs_llm_prefix_entry *e = at(c, h);
    lru_remove(c, h);
    uint32_t *link = &c->buckets[bucket_of(c, e->key)];
    while (*link != h)
        link = &at(c, *link)->chain;
    *link = e->chain;
    uint32_t blocks = e->blocks;
    c->cached_blocks -= blocks;
    c->evictable_blocks -= blocks;
    c->n_entries--;
    *e = (fs_llm_prefix_entry){.chain = c->free_head};
    c->free_head = h;
    return blocks;
}

uint32_t fs_llm_prefix_insert(fs_llm_prefix *c, uint64_t key, uint32_t blocks, uint32_t *freed)
{
    if (!c->free_head) {
        if (!c->lru_head)
            return 0;
        *freed += fs_llm_prefix_evict(c);
    }
    uint32_t h = c->free_head;
    fs_llm_prefix_entry *e = at(c, h);
    c->free_head = e->chain;
    uint32_t *bucket = &c->buckets[bucket_of(c, key)];
    *e = (fs_llm_prefix_entry){.key = key, .blocks = blocks, .refs = 1, .chain = *bucket};
    *bucket = h;
    c->n_entries++;
    c->cached_blocks += blocks;
    return h;
}

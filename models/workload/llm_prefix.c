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

enum { FIRST_SLOTS = 64, MAX_BUCKETS = 1 << 30 };

/* Buckets for `slots` entries (a power of two, one per entry up to 2^30),
 * every entry in use placed again: the list of one bucket may come out in
 * another order, which no lookup depends on (keys are unique).  0 or
 * ENOMEM (nothing changed). */
static int rehash(fs_llm_prefix *c, uint32_t slots)
{
    uint32_t n = 1;
    while (n < slots && n < MAX_BUCKETS)
        n <<= 1;
    if (c->buckets && n == c->bucket_mask + 1)
        return 0;
    uint32_t *buckets = calloc(n, sizeof *buckets);
    if (!buckets)
        return ENOMEM;
    free(c->buckets);
    c->buckets = buckets;
    c->bucket_mask = n - 1;
    for (uint32_t h = 1; h <= c->alloc; h++) {
        fs_llm_prefix_entry *e = at(c, h);
        if (!e->key)
            continue;
        uint32_t *bucket = &buckets[bucket_of(c, e->key)];
        e->chain = *bucket;
        *bucket = h;
    }
    return 0;
}

int fs_llm_prefix_init(fs_llm_prefix *c, uint32_t cap)
{
    memset(c, 0, sizeof *c);
    uint32_t alloc = cap < FIRST_SLOTS ? cap : FIRST_SLOTS;
    c->entries = calloc(alloc, sizeof *c->entries);
    if (!c->entries || rehash(c, alloc) != 0) {
        fs_llm_prefix_fini(c);
        return ENOMEM;
    }
    c->cap = cap;
    c->alloc = alloc;
    fs_llm_prefix_clear(c);
    return 0;
}

/* Twice the slots (at most cap), the new ones free, called only with none
 * free (so every old slot is in use).  0 or ENOMEM (nothing changed). */
static int grow(fs_llm_prefix *c)
{
    uint32_t alloc = c->cap - c->alloc < c->alloc ? c->cap : 2 * c->alloc;
    fs_llm_prefix_entry *entries = realloc(c->entries, (size_t)alloc * sizeof *entries);
    if (!entries)
        return ENOMEM;
    c->entries = entries;
    if (rehash(c, alloc) != 0)
        return ENOMEM; /* the larger array is kept unused: c->alloc says what is in use */
    for (uint32_t i = c->alloc; i < alloc; i++)
        entries[i] = (fs_llm_prefix_entry){.chain = i + 2 <= alloc ? i + 2 : 0};
    c->free_head = c->alloc + 1;
    c->alloc = alloc;
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
    for (uint32_t i = 0; i < c->alloc; i++)
        c->entries[i] = (fs_llm_prefix_entry){.chain = i + 2 <= c->alloc ? i + 2 : 0};
    c->free_head = c->alloc ? 1 : 0;
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
    if (!c->free_head && (c->alloc == c->cap || grow(c) != 0)) {
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

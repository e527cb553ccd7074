/*
 * queue — the fleet's waiting requests, in the policy's order, indexed so
 * that serving them costs nothing per request that cannot start.
 *
 * The requests sit in one array in the policy's order (ties in ask order).
 * A request taken out leaves a hole (kind FS_HOLDER_NONE, its other fields
 * kept, so the array stays sorted) until fs_queue_tidy closes the holes once
 * they outnumber the requests: removal is O(1) amortized, and indexes held
 * by a caller stay valid until it tidies.  fs_queue_remove_shift closes the
 * hole at once instead, for callers that walk the array as it shifts.
 *
 * Two levels of minima (the smallest gang per 64 slots, and per 64 x 64)
 * let fs_queue_next jump over every request asking for more units than a
 * bound in O(n / 4096) words read, and counts per holder answer "does this
 * holder wait, and for how many units" in O(1).
 *
 * Ownership: fs_queue is caller-owned (init/fini) and owns its arrays.
 */
#ifndef FS_QUEUE_H
#define FS_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fleet.h"

typedef bool (*fs_queue_before)(const fs_request *a, const fs_request *b);

typedef struct fs_queue {
    fs_request *items;      /* n slots, sorted; holes have kind FS_HOLDER_NONE */
    size_t n, cap, live;
    size_t head;            /* no live request before this slot */
    uint32_t *block_min;    /* per 64 slots: least units of a live request; UINT32_MAX: none */
    uint32_t *group_min;    /* per 64 blocks */
    size_t cap_blocks, cap_groups;
    uint32_t *owner_requests[3]; /* [kind][owner]: live requests */
    uint64_t *owner_units[3];    /* [kind][owner]: units they ask for */
    size_t owner_cap[3];
} fs_queue;

void fs_queue_init(fs_queue *q);
void fs_queue_fini(fs_queue *q);

/* Puts r after every request it is not before (a strict weak order).  0 and
 * its slot in *at, or ENOMEM (the queue unchanged). */
int fs_queue_insert(fs_queue *q, const fs_request *r, fs_queue_before before, size_t *at);

/* Takes the live request in slot i out, leaving a hole. */
void fs_queue_remove(fs_queue *q, size_t i);

/* Takes the live request in slot i out and closes its slot at once: the
 * slots after it move down by one. */
void fs_queue_remove_shift(fs_queue *q, size_t i);

/* The first live slot >= from asking for at most `most` units, or q->n. */
size_t fs_queue_next(const fs_queue *q, size_t from, uint32_t most);

/* The slot of the live request asked as r->seq, found in O(log n) by the
 * order it was inserted with; q->n when it is no longer waiting. */
size_t fs_queue_find(const fs_queue *q, const fs_request *r, fs_queue_before before);

/* The first live request, or NULL. */
const fs_request *fs_queue_first(fs_queue *q);

/* Closes the holes once they outnumber the live requests (slots move). */
void fs_queue_tidy(fs_queue *q);

/* Closes every hole (slots move). */
void fs_queue_compact(fs_queue *q);

/* Live requests, and the units they ask for, of (kind, owner). */
uint32_t fs_queue_owner_requests(const fs_queue *q, fs_holder_kind kind, uint32_t owner);
uint64_t fs_queue_owner_units(const fs_queue *q, fs_holder_kind kind, uint32_t owner);

static inline bool fs_queue_is_live(const fs_queue *q, size_t i)
{
    return q->items[i].kind != FS_HOLDER_NONE;
}

#endif

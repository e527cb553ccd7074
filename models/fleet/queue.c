#include "queue.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"

#define FS__BLOCK 64 /* slots per block minimum, and blocks per group minimum */

void fs_queue_init(fs_queue *q)
{
    *q = (fs_queue){0};
}

void fs_queue_fini(fs_queue *q)
{
    free(q->items);
    free(q->block_min);
    free(q->group_min);
    for (int k = 0; k < 3; k++) {
        free(q->owner_requests[k]);
        free(q->owner_units[k]);
    }
    *q = (fs_queue){0};
}

static size_t fs__blocks(size_t n)
{
    return (n + FS__BLOCK - 1) / FS__BLOCK;
}

/* Recomputes the minima of the blocks holding slots [from, q->n) and of
 * their groups. */
static void fs__reindex(fs_queue *q, size_t from)
{
    size_t nb = fs__blocks(q->n), ng = fs__blocks(nb);
    for (size_t b = from / FS__BLOCK; b < nb; b++) {
        uint32_t least = UINT32_MAX;
        size_t end = (b + 1) * FS__BLOCK < q->n ? (b + 1) * FS__BLOCK : q->n;
        for (size_t i = b * FS__BLOCK; i < end; i++)
            if (fs_queue_is_live(q, i) && q->items[i].units < least)
                least = q->items[i].units;
        q->block_min[b] = least;
    }
    for (size_t g = from / FS__BLOCK / FS__BLOCK; g < ng; g++) {
        uint32_t least = UINT32_MAX;
        size_t end = (g + 1) * FS__BLOCK < nb ? (g + 1) * FS__BLOCK : nb;
        for (size_t b = g * FS__BLOCK; b < end; b++)
            if (q->block_min[b] < least)
                least = q->block_min[b];
        q->group_min[g] = least;
    }
}

/* Only the block of slot i changed. */
static void fs__reindex_block(fs_queue *q, size_t i)
{
    size_t b = i / FS__BLOCK, end = (b + 1) * FS__BLOCK < q->n ? (b + 1) * FS__BLOCK : q->n;
    uint32_t least = UINT32_MAX;
    for (size_t k = b * FS__BLOCK; k < end; k++)
        if (fs_queue_is_live(q, k) && q->items[k].units < least)
            least = q->items[k].units;
    q->block_min[b] = least;
    size_t g = b / FS__BLOCK, nb = fs__blocks(q->n), gend = (g + 1) * FS__BLOCK < nb ? (g + 1) * FS__BLOCK : nb;
    least = UINT32_MAX;
    for (size_t k = g * FS__BLOCK; k < gend; k++)
        if (q->block_min[k] < least)
            least = q->block_min[k];
    q->group_min[g] = least;
}

/* Counts r in (+1) or out (-1) of its holder's waiting requests. */
static void fs__owner(fs_queue *q, const fs_request *r, int delta)
{
    q->owner_requests[r->kind][r->owner] += (uint32_t)delta;
    q->owner_units[r->kind][r->owner] += (uint64_t)(int64_t)delta * r->units;
}

int fs_queue_insert(fs_queue *q, const fs_request *r, fs_queue_before before, size_t *at)
{
    /* Room first, so that a failure leaves the queue as it was. */
    fs_request *items = fs_grow(q->items, &q->cap, q->n + 1, sizeof *items, 16);
    if (!items)
        return ENOMEM;
    q->items = items;
    size_t nb = fs__blocks(q->n + 1);
    uint32_t *blocks = fs_grow(q->block_min, &q->cap_blocks, nb, sizeof *blocks, 16);
    if (!blocks)
        return ENOMEM;
    q->block_min = blocks;
    uint32_t *groups = fs_grow(q->group_min, &q->cap_groups, fs__blocks(nb), sizeof *groups, 4);
    if (!groups)
        return ENOMEM;
    q->group_min = groups;
    size_t k = r->kind, was = q->owner_cap[k];
    uint32_t *reqs = fs_grow(q->owner_requests[k], &q->owner_cap[k], (size_t)r->owner + 1, sizeof *reqs, 16);
    if (!reqs)
        return ENOMEM;
    q->owner_requests[k] = reqs;
    size_t cap_units = was;
    uint64_t *units = fs_grow(q->owner_units[k], &cap_units, q->owner_cap[k], sizeof *units, 16);
    if (!units) {
        q->owner_cap[k] = was; /* the counts above stay allocated, unused */
        return ENOMEM;
    }
    q->owner_units[k] = units;
    memset(reqs + was, 0, (q->owner_cap[k] - was) * sizeof *reqs);
    memset(units + was, 0, (q->owner_cap[k] - was) * sizeof *units);
    /* The array is sorted (holes keep their place), so the slot is the
     * first whose request r goes before. */
    size_t lo = 0, hi = q->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (before(r, &q->items[mid]))
            hi = mid;
        else
            lo = mid + 1;
    }
    memmove(&q->items[lo + 1], &q->items[lo], (q->n - lo) * sizeof *q->items);
    q->items[lo] = *r;
    q->n++;
    q->live++;
    if (lo <= q->head)
        q->head = lo;
    fs__owner(q, r, +1);
    if (lo + 1 == q->n)
        fs__reindex_block(q, lo);
    else
        fs__reindex(q, lo);
    *at = lo;
    return 0;
}

void fs_queue_remove(fs_queue *q, size_t i)
{
    fs__owner(q, &q->items[i], -1);
    q->items[i].kind = FS_HOLDER_NONE;
    q->live--;
    fs__reindex_block(q, i);
}

void fs_queue_remove_shift(fs_queue *q, size_t i)
{
    fs__owner(q, &q->items[i], -1);
    memmove(&q->items[i], &q->items[i + 1], (q->n - i - 1) * sizeof *q->items);
    q->n--;
    q->live--;
    if (q->head > i)
        q->head--;
    fs__reindex(q, i);
}

size_t fs_queue_next(const fs_queue *q, size_t from, uint32_t most)
{
    size_t i = from;
    while (i < q->n) {
        size_t b = i / FS__BLOCK, g = b / FS__BLOCK;
        if (q->group_min[g] > most) {
            i = (g + 1) * FS__BLOCK * FS__BLOCK;
        } else if (q->block_min[b] > most) {
            i = (b + 1) * FS__BLOCK;
        } else {
            size_t end = (b + 1) * FS__BLOCK < q->n ? (b + 1) * FS__BLOCK : q->n;
            for (; i < end; i++)
                if (fs_queue_is_live(q, i) && q->items[i].units <= most)
                    return i;
        }
    }
    return q->n;
}

size_t fs_queue_find(const fs_queue *q, const fs_request *r, fs_queue_before before)
{
    /* Slots are in policy order, ties in ask order (fs_queue_insert puts a
     * request after every one it is not before, and a later ask has a
     * larger seq): the first slot not ahead of r is r's, if r is there. */
    size_t lo = 0, hi = q->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const fs_request *x = &q->items[mid];
        if (before(x, r) || (!before(r, x) && x->seq < r->seq))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < q->n && q->items[lo].seq == r->seq && fs_queue_is_live(q, lo) ? lo : q->n;
}

const fs_request *fs_queue_first(fs_queue *q)
{
    while (q->head < q->n && !fs_queue_is_live(q, q->head))
        q->head++;
    return q->head < q->n ? &q->items[q->head] : NULL;
}

void fs_queue_compact(fs_queue *q)
{
    size_t kept = 0;
    for (size_t i = 0; i < q->n; i++)
        if (fs_queue_is_live(q, i))
            q->items[kept++] = q->items[i];
    q->n = kept;
    q->head = 0;
    fs__reindex(q, 0);
}

void fs_queue_tidy(fs_queue *q)
{
    if (q->n - q->live > q->live && q->n > FS__BLOCK)
        fs_queue_compact(q);
}

uint32_t fs_queue_owner_requests(const fs_queue *q, fs_holder_kind kind, uint32_t owner)
{
    return owner < q->owner_cap[kind] ? q->owner_requests[kind][owner] : 0;
}

uint64_t fs_queue_owner_units(const fs_queue *q, fs_holder_kind kind, uint32_t owner)
{
    return owner < q->owner_cap[kind] ? q->owner_units[kind][owner] : 0;
}

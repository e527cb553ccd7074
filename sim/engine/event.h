/*
 * event — the future-event list: a binary heap or a calendar queue of small
 * events.
 *
 * Events are ordered by (time, priority, insertion sequence).  The sequence
 * makes ties deterministic: two events at the same time and priority come out
 * in the order they were scheduled, so the same seed gives the same run.
 * Priority and sequence are packed into one 64-bit key (priority in the top
 * 8 bits, a 56-bit sequence below), so the comparison is two compares.
 *
 * An event carries a kind (which handler runs it, see sim.h) and two payload
 * words the handler interprets; nothing is allocated per event.
 *
 * Why a calendar queue (R. Brown, CACM 31(10), 1988) and not only a heap: a
 * fleet holds thousands of pending departures, and a heap's O(log n) sift was
 * most of an event's cost there (issue 18).  A queue of a few dozen events (a
 * small model) stays a binary heap, cheaper at that size; past 512 events it
 * becomes a calendar, and below 128 a heap again.  Time is cut into "days" of
 * one width; day d lives in bucket d mod nbuckets, a list kept sorted by
 * (time, key).
 * Pop walks the days from the current one, so push and pop are O(1)
 * amortised while the width matches the event density; the width is
 * re-estimated from the events at the head when the bucket count doubles or
 * halves (with the count of events) and when the walks grow long.  The order
 * is exactly the heap's: a day number is a monotone function of the time, so
 * (day, time, key) sorts as (time, key).
 *
 * Ownership: fs_evq is caller-owned (init/fini); it owns its arrays.  Events
 * live in a pool that grows by doubling: a heap in its first len slots, a
 * calendar's in any slot, a freed slot reused.
 */
#ifndef FS_EVENT_H
#define FS_EVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct fs_event {
    double time;      /* simulated seconds */
    uint64_t key;     /* priority << 56 | sequence */
    uint32_t kind;    /* handler index */
    uint32_t arg;     /* small payload, e.g. a replica index */
    double data;      /* payload, e.g. the arrival time of the request */
} fs_event;

_Static_assert(sizeof(fs_event) == 32, "fs_event is a hot struct: keep it at 32 bytes");

#define FS_EVENT_PRIORITY_SHIFT 56
#define FS_EVENT_SEQ_MASK ((UINT64_C(1) << FS_EVENT_PRIORITY_SHIFT) - 1)

typedef struct fs_evq {
    fs_event *pool;       /* a heap: the events in [0, len); a calendar: slots, a free one of kind FS__EVQ_FREE */
    uint32_t *next;       /* per slot: the next in its bucket, or in the free list */
    uint32_t *bucket;     /* per bucket: its earliest slot, or FS__EVQ_NIL; NULL for a heap */
    size_t len, cap;      /* events queued, slots in the pool */
    uint32_t free_head;   /* a free slot, or FS__EVQ_NIL */
    uint32_t nbuckets;    /* a power of two; 0 for a heap */
    bool calendar;        /* a calendar, or (few events) a binary heap */
    double inv_width;     /* days per simulated second */
    uint64_t day;         /* no queued event is on an earlier day */
    uint64_t work, ops;   /* list steps and days walked, operations, since the last check */
    uint64_t next_seq;
} fs_evq;

#define FS__EVQ_NIL UINT32_MAX
#define FS__EVQ_FREE UINT32_MAX

int fs_evq_init(fs_evq *q);  /* 0 or ENOMEM */
void fs_evq_fini(fs_evq *q);

/* Schedules an event; priority 0 runs before 1 at equal times.  Returns 0 or
 * ENOMEM (the queue is unchanged then). */
int fs_evq_push(fs_evq *q, double time, uint8_t priority, uint32_t kind, uint32_t arg, double data);

/* Removes the earliest event into *out.  The queue must not be empty. */
void fs_evq_pop(fs_evq *q, fs_event *out);

/* Removes the earliest event into *out if it is due by `until`; false (the
 * queue unchanged) when the queue is empty or the earliest is later.  The
 * run loop's step: in a calendar the earliest is found once, not once to
 * look and again to take. */
bool fs_evq_pop_until(fs_evq *q, double until, fs_event *out);

const fs_event *fs__evq_peek_calendar(fs_evq *q);

/* The earliest event, or NULL when empty; valid until the next push or pop.
 * Not const: finding it in a calendar moves the current day forward.  Inline
 * because the run loop asks before every pop. */
static inline const fs_event *fs_evq_peek(fs_evq *q)
{
    if (!q->len)
        return NULL;
    return q->calendar ? fs__evq_peek_calendar(q) : &q->pool[0];
}

/* Every queued event, in no particular order: slot i for i < fs_evq_slots(q)
 * is an event when fs_evq_slot(q, i) is not NULL.  For scans that count
 * (O(slots)); the order of the queue is only pop's. */
static inline size_t fs_evq_slots(const fs_evq *q) { return q->calendar ? q->cap : q->len; }
static inline const fs_event *fs_evq_slot(const fs_evq *q, size_t i)
{
    return q->calendar && q->pool[i].kind == FS__EVQ_FREE ? NULL : &q->pool[i];
}

#endif

/*
 * event — the future-event list: a sorted array or a calendar queue of small
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
 * Two shapes, the same order.  Up to FS_EVQ_SORTED_MAX events (a model of a
 * few services) the events are a sorted array, latest first: a pop takes the
 * last, a push moves the events earlier than it up by one.  That costs one
 * mispredicted branch where a binary heap mispredicts at every level, and
 * its paths are inline (every event pushes and pops).  Past it the queue is
 * a calendar queue (R. Brown, CACM 31(10), 1988): a fleet holds thousands
 * of pending departures, where any O(log n) structure's cost grows with the
 * fleet (issue 18).  Time is cut into "days" of one width; day d lives in
 * bucket d mod nbuckets, a list kept sorted by (time, key).  Pop walks the
 * days from the current one, so push and pop are O(1) amortised while the
 * width matches the event density; the width is re-estimated from the
 * events at the head when the bucket count doubles or halves (with the
 * count of events) and when the walks grow long.  Below half of
 * FS_EVQ_SORTED_MAX it is a sorted array again.  The order is the same in
 * both: a day number is a monotone function of the time, so (day, time,
 * key) sorts as (time, key).
 *
 * Ownership: fs_evq is caller-owned (init/fini); it owns its arrays.  Events
 * live in a pool that grows by doubling: a sorted array in its first len
 * slots, a calendar's in any slot, a freed slot reused.
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
    fs_event *pool;       /* a sorted array: the events in [0, len); a calendar: slots, a free one of kind FS__EVQ_FREE */
    uint32_t *next;       /* a calendar's, per slot: the next in its bucket, or in the free list */
    uint32_t *bucket;     /* per bucket: its earliest slot, or FS__EVQ_NIL; NULL for a sorted array */
    size_t len, cap;      /* events queued, slots in the pool */
    uint32_t free_head;   /* a free slot, or FS__EVQ_NIL */
    uint32_t nbuckets;    /* a power of two; 0 for a sorted array */
    bool calendar;        /* a calendar, or (few events) a sorted array */
    double inv_width;     /* days per simulated second */
    uint64_t day;         /* no queued event is on an earlier day */
    uint64_t work, ops;   /* list steps and days walked, operations, since the last check */
    uint64_t next_seq;
} fs_evq;

#define FS__EVQ_NIL UINT32_MAX
#define FS__EVQ_FREE UINT32_MAX

int fs_evq_init(fs_evq *q);  /* 0 or ENOMEM */
void fs_evq_fini(fs_evq *q);

/* Most events the queue keeps as a sorted array; one more and it becomes a
 * calendar (event.c says when it goes back). */
#define FS_EVQ_SORTED_MAX 48

static inline bool fs__evq_before(const fs_event *a, const fs_event *b)
{
    return a->time < b->time || (a->time == b->time && a->key < b->key);
}

/* The sorted array: pool[0, len) latest first, so the earliest is
 * pool[len - 1]: a pop takes the last, and a push moves the events earlier
 * than it up by one, from the earliest (a new event is usually near the
 * front of time: the next arrival, a short service).  Room for one more is
 * the caller's. */
static inline void fs__evq_sorted_insert(fs_evq *q, const fs_event *ev)
{
    size_t i = q->len++;
    while (i > 0 && fs__evq_before(&q->pool[i - 1], ev)) {
        q->pool[i] = q->pool[i - 1];
        i--;
    }
    q->pool[i] = *ev;
}

/* The calendar's paths, and the array's when it must grow or turn into a
 * calendar (event.c). */
int fs__evq_push_slow(fs_evq *q, const fs_event *ev);
void fs__evq_pop_calendar(fs_evq *q, fs_event *out);
bool fs__evq_pop_until_calendar(fs_evq *q, double until, fs_event *out);
const fs_event *fs__evq_peek_calendar(fs_evq *q);

/* Schedules an event; priority 0 runs before 1 at equal times.  Returns 0 or
 * ENOMEM (the queue is unchanged then).  Inline: every event's push, and a
 * small queue's is a few compares and copies. */
static inline int fs_evq_push(fs_evq *q, double time, uint8_t priority, uint32_t kind, uint32_t arg, double data)
{
    fs_event ev = {
        .time = time,
        .key = ((uint64_t)priority << FS_EVENT_PRIORITY_SHIFT) | (q->next_seq & FS_EVENT_SEQ_MASK),
        .kind = kind,
        .arg = arg,
        .data = data,
    };
    if (q->calendar || q->len == q->cap || q->len == FS_EVQ_SORTED_MAX)
        return fs__evq_push_slow(q, &ev);
    q->next_seq++;
    fs__evq_sorted_insert(q, &ev);
    return 0;
}

/* Removes the earliest event into *out.  The queue must not be empty. */
static inline void fs_evq_pop(fs_evq *q, fs_event *out)
{
    if (q->calendar)
        fs__evq_pop_calendar(q, out);
    else
        *out = q->pool[--q->len];
}

/* Removes the earliest event into *out if it is due by `until`; false (the
 * queue unchanged) when the queue is empty or the earliest is later.  The
 * run loop's step: in a calendar the earliest is found once, not once to
 * look and again to take. */
static inline bool fs_evq_pop_until(fs_evq *q, double until, fs_event *out)
{
    if (q->calendar)
        return fs__evq_pop_until_calendar(q, until, out);
    if (!q->len || q->pool[q->len - 1].time > until)
        return false;
    *out = q->pool[--q->len];
    return true;
}

/* The earliest event, or NULL when empty; valid until the next push or pop.
 * Not const: finding it in a calendar moves the current day forward. */
static inline const fs_event *fs_evq_peek(fs_evq *q)
{
    if (!q->len)
        return NULL;
    return q->calendar ? fs__evq_peek_calendar(q) : &q->pool[q->len - 1];
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

/*
 * event — the future-event list: a binary min-heap of small events.
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
 * Ownership: fs_evq is caller-owned (init/fini); it owns its heap array.
 * Push and pop are O(log n); the array grows by doubling.
 */
#ifndef FS_EVENT_H
#define FS_EVENT_H

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
    fs_event *heap;
    size_t len, cap;
    uint64_t next_seq;
} fs_evq;

int fs_evq_init(fs_evq *q);  /* 0 or ENOMEM */
void fs_evq_fini(fs_evq *q);

/* Schedules an event; priority 0 runs before 1 at equal times.  Returns 0 or
 * ENOMEM (the queue is unchanged then). */
int fs_evq_push(fs_evq *q, double time, uint8_t priority, uint32_t kind, uint32_t arg, double data);

/* Removes the earliest event into *out.  The queue must not be empty. */
void fs_evq_pop(fs_evq *q, fs_event *out);

static inline const fs_event *fs_evq_peek(const fs_evq *q) { return q->len ? &q->heap[0] : NULL; }

#endif

/*
 * batcher — the decision of a Triton-style dynamic batcher: when a replica
 * is free, how many of the waiting requests it takes now, or until when it
 * waits for more.
 *
 * Triton's dynamic batcher (docs: user-guide/model_configuration.md, "Dynamic
 * Batcher": max_batch_size, preferred_batch_size, max_queue_delay_microseconds)
 * forms the largest batch it can when a model instance is free: a full batch
 * or a preferred size at once; otherwise it delays up to the queue delay for
 * more requests to join, then sends what it has.  Made exact here, with w
 * requests waiting in arrival order and a free replica at time now:
 *   1. w >= max_batch_size: take max_batch_size;
 *   2. else a preferred size p <= w: take the largest such p;
 *   3. else now >= oldest arrival + max_queue_delay: take all w;
 *   4. else take none and look again at oldest arrival + max_queue_delay
 *      (or at the next arrival or batch end, whichever comes first).
 * With max_queue_delay 0 rule 3 always applies: a free replica never waits.
 *
 * Pure functions of the spec and the queue's state; service.c owns the
 * queue, the replicas and the events.
 */
#ifndef FS_BATCHER_H
#define FS_BATCHER_H

#include <stdint.h>

#include "scenario.h"

/* Requests a free replica takes now out of `waiting` (the oldest arrived at
 * oldest_arrival); 0 when it should wait, with *wake the time to look again
 * (INFINITY when nothing waits). */
uint32_t fs_batcher_take(const fs_batching *b, uint64_t waiting, double oldest_arrival, double now,
                         double *wake);

#endif

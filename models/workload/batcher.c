#include "batcher.h"

#include <math.h>

uint32_t fs_batcher_take(const fs_batching *b, uint64_t waiting, double oldest_arrival, double now,
                         double *wake)
{
    *wake = INFINITY;
    if (waiting == 0)
        return 0;
    if (waiting >= b->max_batch_size)
        return b->max_batch_size;
    for (size_t k = b->n_preferred; k-- > 0;)
        if (b->preferred[k] <= waiting)
            return b->preferred[k];
    /* The timer is scheduled at exactly this sum, so the comparison holds
     * when it fires (no rounding between the two). */
    double deadline = oldest_arrival + b->max_queue_delay_s;
    if (now >= deadline)
        return (uint32_t)waiting;
    *wake = deadline;
    return 0;
}

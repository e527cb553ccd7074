#include "event.h"

#include <assert.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

static inline bool fs__before(const fs_event *a, const fs_event *b)
{
    return a->time < b->time || (a->time == b->time && a->key < b->key);
}

int fs_evq_init(fs_evq *q)
{
    q->cap = 64;
    q->len = 0;
    q->next_seq = 0;
    q->heap = malloc(q->cap * sizeof *q->heap);
    return q->heap ? 0 : ENOMEM;
}

void fs_evq_fini(fs_evq *q)
{
    free(q->heap);
    q->heap = NULL;
    q->len = q->cap = 0;
}

int fs_evq_push(fs_evq *q, double time, uint8_t priority, uint32_t kind, uint32_t arg, double data)
{
    if (q->len == q->cap) {
        fs_event *grown = realloc(q->heap, 2 * q->cap * sizeof *grown);
        if (!grown)
            return ENOMEM;
        q->heap = grown;
        q->cap *= 2;
    }
    fs_event ev = {
        .time = time,
        .key = ((uint64_t)priority << FS_EVENT_PRIORITY_SHIFT) | (q->next_seq++ & FS_EVENT_SEQ_MASK),
        .kind = kind,
        .arg = arg,
        .data = data,
    };
    /* Sift up by moving parents down into the hole: one copy per level. */
    size_t i = q->len++;
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!fs__before(&ev, &q->heap[parent]))
            break;
        q->heap[i] = q->heap[parent];
        i = parent;
    }
    q->heap[i] = ev;
    return 0;
}

void fs_evq_pop(fs_evq *q, fs_event *out)
{
    assert(q->len > 0);
    *out = q->heap[0];
    fs_event last = q->heap[--q->len];
    size_t n = q->len, i = 0;
    for (;;) {
        size_t child = 2 * i + 1;
        if (child >= n)
            break;
        if (child + 1 < n && fs__before(&q->heap[child + 1], &q->heap[child]))
            child++;
        if (!fs__before(&q->heap[child], &last))
            break;
        q->heap[i] = q->heap[child];
        i = child;
    }
    if (n > 0)
        q->heap[i] = last;
}

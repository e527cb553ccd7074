#include "tally.h"

#include <assert.h>
#include <stdlib.h>

int fs_tally_init(fs_tally *t)
{
    *t = (fs_tally){0};
    return fs_hist_init(&t->hist);
}

void fs_tally_fini(fs_tally *t)
{
    free(t->index);
    fs_hist_fini(&t->hist);
    *t = (fs_tally){0};
}

/* Counts the listed values into h's counters (h's total, extremes and sum
 * are the caller's).  0, or ENOMEM with h partly loaded. */
static int fs__tally_count(const fs_tally *t, fs_hist *h)
{
    for (uint32_t k = 0; k < t->n; k++)
        if (fs_hist_add_count(h, t->index[k], 1) != 0)
            return ENOMEM;
    return 0;
}

/* The list's total, extremes and sum onto h, whose counters hold its values. */
static void fs__tally_summary(const fs_tally *t, fs_hist *h)
{
    h->total = t->hist.total;
    h->min_ns = t->hist.min_ns;
    h->max_ns = t->hist.max_ns;
    h->sum_ns = t->hist.sum_ns;
}

int fs_tally_grow(fs_tally *t)
{
    assert(!t->dense && t->n == t->cap);
    if (t->cap < FS_TALLY_LIST_MAX) {
        uint32_t cap = t->cap ? 2 * t->cap : 16;
        uint16_t *index = realloc(t->index, (size_t)cap * sizeof *index);
        if (!index)
            return ENOMEM;
        t->index = index;
        t->cap = cap;
        return 0;
    }
    /* Counted into a fresh histogram first, so a failure leaves t a list;
     * then the summary, which the list mode kept exactly. */
    fs_hist dense;
    fs_hist_init(&dense);
    if (fs__tally_count(t, &dense) != 0) {
        fs_hist_fini(&dense);
        return ENOMEM;
    }
    fs__tally_summary(t, &dense);
    t->hist = dense;
    free(t->index);
    t->index = NULL;
    t->n = t->cap = 0;
    t->dense = true;
    return 0;
}

fs_hist *fs_tally_hist(fs_tally *t, fs_hist *scratch)
{
    if (t->dense)
        return &t->hist;
    assert(scratch != &t->hist);
    fs_hist_reset(scratch);
    if (fs__tally_count(t, scratch) != 0)
        return NULL;
    fs__tally_summary(t, scratch);
    return scratch;
}

void fs_tally_reset(fs_tally *t)
{
    t->n = 0;
    fs_hist_reset(&t->hist);
}

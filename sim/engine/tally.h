/*
 * tally — the latencies of a short span (a time-series window, a settling
 * batch), costing what the span holds, not what its range spans.
 *
 * A service fills two spans beside its replication's histogram, and reads
 * each at its end (its mean and a few quantiles) before starting it again.
 * As dense histograms they cost what their widest span ever covered, about
 * 4 KB each for a latency over fifteen octaves, though a 5 s window of a
 * service at 80 requests/s holds some 400 values: two thirds of a
 * 5,000-service run's memory.  A tally keeps instead each value's bucket
 * index (2 bytes) in record order, with the exact total, extremes and sum
 * (the sum added in record order, as fs_hist_record adds it).  Reading it
 * loads the indexes into a dense scratch histogram shared by every tally of
 * the run (one at a time), so every figure is the one a histogram of the
 * same values gives, bit for bit, computed by the same code.
 *
 * A span of more than FS_TALLY_LIST_MAX values costs more as a list than as
 * counters: the tally then turns into a dense histogram and stays one (its
 * spans are alike: a busy window's service has busy windows), recording as
 * fs_hist does.
 *
 * Ownership: fs_tally is a plain caller-owned struct (init/fini pair); it
 * owns its list or its counters.  The scratch belongs to the caller.
 */
#ifndef FS_TALLY_H
#define FS_TALLY_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "hist.h"

/* 1,024 indexes are 2 KB, half of a dense latency histogram's counters. */
#define FS_TALLY_LIST_MAX 1024u

_Static_assert(FS_HIST_BUCKETS <= UINT16_MAX + 1u, "a bucket index fits a tally's 16 bits");

typedef struct fs_tally {
    uint16_t *index;  /* bucket of each value of the span, in record order (list mode) */
    uint32_t n, cap;  /* indexes held, room */
    bool dense;       /* the span outgrew the list: values are counted in `hist` */
    fs_hist hist;     /* dense: the span's histogram; list: its total, extremes and sum only (no counters) */
} fs_tally;

/* An empty tally; allocates nothing.  Returns 0. */
int fs_tally_init(fs_tally *t);
void fs_tally_fini(fs_tally *t);

/* Makes room for one more value: grows the list, or past
 * FS_TALLY_LIST_MAX turns the tally dense.  0 or ENOMEM (t unchanged). */
int fs_tally_grow(fs_tally *t);

/* Records one value.  Hot path: an append and four summary stores (list),
 * or fs_hist_record (dense).  0, or ENOMEM (the value is not recorded). */
static inline int fs_tally_record(fs_tally *t, uint64_t ns)
{
    if (!t->dense) {
        if (__builtin_expect(t->n == t->cap, 0)) {
            if (fs_tally_grow(t) != 0)
                return ENOMEM;
            if (t->dense)
                return fs_hist_record(&t->hist, ns);
        }
        t->index[t->n++] = (uint16_t)fs_hist_index(ns);
        fs_hist *h = &t->hist;
        h->total++;
        h->sum_ns += (double)ns;
        if (ns < h->min_ns) h->min_ns = ns;
        if (ns > h->max_ns) h->max_ns = ns;
        return 0;
    }
    return fs_hist_record(&t->hist, ns);
}

/* The span as a histogram, to read and merge from: the tally's own when
 * dense, else `scratch` emptied and loaded with the span's values (the
 * scratch must be no tally's own).  Valid until the tally or the scratch
 * changes; the caller may reset it (fs_settle_close does), as
 * fs_tally_reset then would.  NULL on ENOMEM (the scratch could not grow). */
fs_hist *fs_tally_hist(fs_tally *t, fs_hist *scratch);

/* Values recorded in the span. */
static inline uint64_t fs_tally_total(const fs_tally *t) { return t->hist.total; }

/* Starts a new span, keeping the list's room or the counters. */
void fs_tally_reset(fs_tally *t);

#endif

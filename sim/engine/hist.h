/*
 * hist — fixed-memory latency histogram with bounded relative error.
 *
 * Records non-negative durations in integer nanoseconds into log-linear
 * buckets: below 2^FS_HIST_SUB_BITS ns one bucket per value; above, each
 * power-of-two octave is split into 2^FS_HIST_SUB_BITS equal buckets, so a
 * bucket's width is at most 1/128 of its lower edge, and every value below
 * 256 ns has its own bucket (the octave [128, 256) has width-1 buckets).  A
 * quantile is reported as the midpoint of its bucket (clamped to the exact
 * min and max seen), which bounds the relative error of any quantile by 1/256
 * (< 0.4%, well inside the 1% the product promises).  Values at or above
 * FS_HIST_MAX_NS (about 52 days) land in the last bucket and are still
 * counted, but quantiles there are only bounded by the exact min and max.
 * min and max are exact; the sum is a double, exact while it stays below
 * 2^53 ns (about 104 days of latency).
 *
 * Memory is fixed (FS_HIST_BUCKETS counters), independent of how many values
 * are recorded: a billion samples cost what a thousand do.  Two histograms
 * merge exactly by adding counters, so replications and shards split across
 * machines combine into the same answer however the work was divided.
 *
 * Ownership: fs_hist is a plain caller-owned struct (init/fini pair); it
 * allocates its counter array in init and frees it in fini.
 */
#ifndef FS_HIST_H
#define FS_HIST_H

#include <stdbool.h>
#include <stdint.h>

#define FS_HIST_SUB_BITS 7
#define FS_HIST_SUB_COUNT (1u << FS_HIST_SUB_BITS)
#define FS_HIST_MAX_EXP 52 /* largest octave: [2^51, 2^52) ns */
#define FS_HIST_MAX_NS (UINT64_C(1) << FS_HIST_MAX_EXP)
#define FS_HIST_BUCKETS ((FS_HIST_MAX_EXP - FS_HIST_SUB_BITS + 1) * FS_HIST_SUB_COUNT)

typedef struct fs_hist {
    uint64_t *counts;   /* FS_HIST_BUCKETS counters */
    uint64_t total;     /* values recorded */
    uint64_t min_ns;    /* exact; UINT64_MAX when empty */
    uint64_t max_ns;    /* exact; 0 when empty */
    double sum_ns;      /* sum for the mean (double: no overflow; exact below 2^53 ns) */
    uint32_t lo, hi;    /* dirty bucket range [lo, hi] for cheap reset; lo > hi when empty */
} fs_hist;

/* Bucket index of a value in ns; pure and branch-light (used on the hot path). */
static inline uint32_t fs_hist_index(uint64_t ns)
{
    if (ns < FS_HIST_SUB_COUNT)
        return (uint32_t)ns;
    if (ns >= FS_HIST_MAX_NS)
        return FS_HIST_BUCKETS - 1;
    unsigned exp = 63u - (unsigned)__builtin_clzll(ns); /* >= FS_HIST_SUB_BITS */
    unsigned shift = exp - FS_HIST_SUB_BITS;
    return (uint32_t)((shift + 1) * FS_HIST_SUB_COUNT + ((ns >> shift) & (FS_HIST_SUB_COUNT - 1)));
}

/* Allocates the counters. Returns 0, or ENOMEM leaving *h unusable. */
int fs_hist_init(fs_hist *h);
void fs_hist_fini(fs_hist *h);

/* Records one value. Hot path: one index computation and a few stores. */
static inline void fs_hist_record(fs_hist *h, uint64_t ns)
{
    uint32_t i = fs_hist_index(ns);
    h->counts[i]++;
    h->total++;
    h->sum_ns += (double)ns;
    if (ns < h->min_ns) h->min_ns = ns;
    if (ns > h->max_ns) h->max_ns = ns;
    if (i < h->lo) h->lo = i;
    if (i > h->hi) h->hi = i;
}

/* Forgets every value; costs O(dirty range), not O(FS_HIST_BUCKETS). */
void fs_hist_reset(fs_hist *h);

/* dst += src, exactly. */
void fs_hist_merge(fs_hist *dst, const fs_hist *src);

/* Lower and upper edge (ns) of bucket i: values v with lower <= v < upper. */
uint64_t fs_hist_bucket_lower(uint32_t i);
uint64_t fs_hist_bucket_upper(uint32_t i);

/* Value at quantile q in [0,1] (q=0.99 is p99), in ns, using the
 * nearest-rank definition: the smallest recorded value v such that at least
 * ceil(q * total) values are <= v (rank 1 for q = 0).  q * total within a few
 * ulps above an integer counts as that integer, so 0.07 * 100 is rank 7.  Reported as its bucket's
 * midpoint clamped to [min_ns, max_ns].  Returns 0 for an empty histogram. */
double fs_hist_quantile(const fs_hist *h, double q);

/* Mean in ns; 0 for an empty histogram. */
double fs_hist_mean(const fs_hist *h);

#endif

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
 * Memory is bounded (at most FS_HIST_BUCKETS counters), independent of how
 * many values are recorded: a billion samples cost what a thousand do.
 * Counters are allocated lazily, on the first record and only for the
 * octaves actually used (one contiguous run of FS_HIST_SUB_COUNT-bucket
 * chunks, grown at either end when a value falls outside it): a histogram
 * nobody records into costs nothing.
 *
 * A counter is 16 bits, its count's low 16 bits, and most counts never
 * need more: a service keeps three or four live histograms (window, batch,
 * replication, all replications), and a bucket holds a fraction of a
 * percent of an exponential latency's values, so a counter passes 65,535
 * only past millions of values.  The first counter that wraps allocates
 * the high parts, 64 bits per bucket beside the 16 (`carries`, the count's
 * bits 16 and up, never near overflowing: a count is at most `total`, a
 * uint64_t): no count is ever lost or capped, and the histograms that never
 * need them (nearly all) cost 256 bytes an octave instead of 1 KB; a
 * latency spanning ten octaves costs 2.5 KB.  Recording stays one 16-bit
 * increment and a test for the wrap that is almost never taken.  The bucket
 * layout is the same whatever is allocated, so quantiles do not depend on
 * it.  Two histograms merge exactly by adding counts, so replications and
 * shards split across machines combine into the same answer however the
 * work was divided.
 *
 * Ownership: fs_hist is a plain caller-owned struct (init/fini pair); it
 * allocates its counters as values arrive and frees them in fini.  A
 * zero-initialised struct may be passed to fini.
 */
#ifndef FS_HIST_H
#define FS_HIST_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FS_HIST_SUB_BITS 7
#define FS_HIST_SUB_COUNT (1u << FS_HIST_SUB_BITS)
#define FS_HIST_MAX_EXP 52 /* largest octave: [2^51, 2^52) ns */
#define FS_HIST_MAX_NS (UINT64_C(1) << FS_HIST_MAX_EXP)
#define FS_HIST_BUCKETS ((FS_HIST_MAX_EXP - FS_HIST_SUB_BITS + 1) * FS_HIST_SUB_COUNT)

typedef struct fs_hist {
    uint16_t *counts;   /* low 16 bits of the counts of buckets [base, base + cap); NULL until the first record */
    uint64_t *carries;  /* the counts' bits 16 and up, beside counts; NULL until a counter first wraps */
    uint32_t base, cap; /* in buckets, whole chunks of FS_HIST_SUB_COUNT */
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

/* An empty histogram; allocates nothing (counters come with the first
 * record).  Returns 0 (an int, so callers need not change if it ever can fail). */
int fs_hist_init(fs_hist *h);
void fs_hist_fini(fs_hist *h);

/* Makes the counters cover bucket i (the chunk holding it and every chunk
 * between it and those allocated).  0, or ENOMEM leaving h as it was. */
int fs_hist_cover(fs_hist *h, uint32_t i);

/* Bucket i's 16-bit counter has just wrapped to 0: adds 2^16 to its high
 * part (allocating the high parts on the first wrap).  0, or ENOMEM with
 * the counter put back to 65,535 (h is as it was before the increment). */
int fs_hist_carry(fs_hist *h, uint32_t i);

/* Records one value. Hot path: one index computation, one range check that
 * fails only when the value opens a new octave, a 16-bit increment whose
 * wrap (every 65,536th value of one bucket at most) carries out of line,
 * and a few stores.  0, or ENOMEM (the value is not recorded and h is as it
 * was). */
static inline int fs_hist_record(fs_hist *h, uint64_t ns)
{
    uint32_t i = fs_hist_index(ns);
    if (__builtin_expect(i - h->base >= h->cap, 0) && fs_hist_cover(h, i) != 0)
        return ENOMEM;
    if (__builtin_expect(++h->counts[i - h->base] == 0, 0) && fs_hist_carry(h, i) != 0)
        return ENOMEM;
    h->total++;
    h->sum_ns += (double)ns;
    if (ns < h->min_ns) h->min_ns = ns;
    if (ns > h->max_ns) h->max_ns = ns;
    if (i < h->lo) h->lo = i;
    if (i > h->hi) h->hi = i;
    return 0;
}

/* Values recorded in bucket i (0 where nothing is allocated). */
static inline uint64_t fs_hist_count(const fs_hist *h, uint32_t i)
{
    uint32_t k = i - h->base;
    if (k >= h->cap)
        return 0;
    return h->counts[k] + (h->carries ? h->carries[k] << 16 : 0);
}

/* Adds c values to bucket i's counter and its dirty range, leaving total,
 * min, max and sum to the caller (who read them with the counts, e.g. from
 * a file).  0, or ENOMEM leaving h as it was. */
int fs_hist_add_count(fs_hist *h, uint32_t i, uint64_t c);

/* Forgets every value, keeping the counters allocated (a window histogram is
 * reset every window); costs O(dirty range), not O(FS_HIST_BUCKETS). */
void fs_hist_reset(fs_hist *h);

/* dst += src, exactly.  0, or ENOMEM leaving dst as it was. */
int fs_hist_merge(fs_hist *dst, const fs_hist *src);

/* dst += src, then src's counters dropped (fs_hist_drop_counts): when dst
 * holds nothing yet, src's counters become dst's instead of being copied and
 * freed, so the hand-over costs no second set of counters (the first
 * replication's histograms into the policy's).  The same counts, total,
 * extremes and sum as merging.  0, or ENOMEM leaving both as they were. */
int fs_hist_merge_drop(fs_hist *dst, fs_hist *src);

/* Counters allocated, their high parts included, in bytes (what the
 * histogram costs beyond its struct). */
size_t fs_hist_bytes(const fs_hist *h);

/* Frees the counters of a histogram whose values live on elsewhere (merged
 * into another), keeping total, min, max and sum: it still gives its count,
 * extremes and mean, but no quantile, and may not be merged or recorded into
 * again (both assert).  fini still frees it. */
void fs_hist_drop_counts(fs_hist *h);

/* Whether h still has its counters (not dropped; an empty one has). */
static inline bool fs_hist_has_counts(const fs_hist *h)
{
    return h->total == 0 || h->counts;
}

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

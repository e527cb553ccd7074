#include "hist.h"

#include <assert.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(FS_HIST_BUCKETS * (sizeof(uint16_t) + sizeof(uint64_t)) < 64 * 1024,
               "histogram counters, high parts included, should stay well under 64 KiB");

static void fs__hist_clear_summary(fs_hist *h)
{
    h->total = 0;
    h->min_ns = UINT64_MAX;
    h->max_ns = 0;
    h->sum_ns = 0.0;
    h->lo = UINT32_MAX; /* any record lowers it, so lo > hi means empty */
    h->hi = 0;
}

int fs_hist_init(fs_hist *h)
{
    assert(h);
    h->counts = NULL;
    h->carries = NULL;
    h->base = h->cap = 0;
    fs__hist_clear_summary(h);
    return 0;
}

void fs_hist_fini(fs_hist *h)
{
    assert(h);
    free(h->counts);
    free(h->carries);
    h->counts = NULL;
    h->carries = NULL;
    h->base = h->cap = 0;
}

/* Moves the cap elements (of `size` bytes) of a block that covered
 * [base, base + cap) and is already large enough to cover [lo, hi) to their
 * buckets' places, zeroing the new ones. */
static void fs__hist_spread(void *block, size_t size, uint32_t base, uint32_t cap, uint32_t lo, uint32_t hi)
{
    char *c = block;
    if (cap && lo < base) { /* grown downwards: the old counters move up */
        memmove(c + (size_t)(base - lo) * size, c, (size_t)cap * size);
        memset(c, 0, (size_t)(base - lo) * size);
    }
    uint32_t old_end = cap ? base + cap : lo;
    if (hi > old_end)
        memset(c + (size_t)(old_end - lo) * size, 0, (size_t)(hi - old_end) * size);
}

int fs_hist_cover(fs_hist *h, uint32_t i)
{
    assert(h && i < FS_HIST_BUCKETS && fs_hist_has_counts(h));
    if (i - h->base < h->cap)
        return 0;
    /* Whole chunks (one octave each above the linear range), so a histogram
     * grows at most FS_HIST_BUCKETS / FS_HIST_SUB_COUNT times. */
    uint32_t chunk = i / FS_HIST_SUB_COUNT * FS_HIST_SUB_COUNT;
    uint32_t lo = h->cap && h->base < chunk ? h->base : chunk;
    uint32_t hi = h->cap && h->base + h->cap > chunk + FS_HIST_SUB_COUNT ? h->base + h->cap
                                                                          : chunk + FS_HIST_SUB_COUNT;
    /* Both blocks grow before anything moves: if the second realloc fails,
     * the first block is larger but holds its elements where they were, and
     * base and cap are unchanged, so h is as it was. */
    uint16_t *c = realloc(h->counts, (size_t)(hi - lo) * sizeof *c);
    if (!c)
        return ENOMEM;
    h->counts = c;
    if (h->carries) {
        uint64_t *k = realloc(h->carries, (size_t)(hi - lo) * sizeof *k);
        if (!k)
            return ENOMEM;
        h->carries = k;
        fs__hist_spread(k, sizeof *k, h->base, h->cap, lo, hi);
    }
    fs__hist_spread(c, sizeof *c, h->base, h->cap, lo, hi);
    h->base = lo;
    h->cap = hi - lo;
    return 0;
}

/* Allocates the high parts (zero) beside the counters.  0, or ENOMEM. */
static int fs__hist_widen(fs_hist *h)
{
    if (h->carries)
        return 0;
    h->carries = calloc(h->cap ? h->cap : 1, sizeof *h->carries);
    return h->carries ? 0 : ENOMEM;
}

int fs_hist_carry(fs_hist *h, uint32_t i)
{
    assert(h && i - h->base < h->cap && h->counts[i - h->base] == 0);
    if (fs__hist_widen(h) != 0) {
        h->counts[i - h->base] = UINT16_MAX;
        return ENOMEM;
    }
    h->carries[i - h->base]++;
    return 0;
}

/* Sets covered bucket i's count to n (its high parts allocated if n needs
 * them: the caller has checked). */
static void fs__hist_set(fs_hist *h, uint32_t i, uint64_t n)
{
    uint32_t k = i - h->base;
    assert(k < h->cap && (h->carries || n <= UINT16_MAX));
    h->counts[k] = (uint16_t)n;
    if (h->carries)
        h->carries[k] = n >> 16;
}

int fs_hist_add_count(fs_hist *h, uint32_t i, uint64_t c)
{
    assert(h && i < FS_HIST_BUCKETS);
    if (fs_hist_cover(h, i) != 0)
        return ENOMEM;
    uint64_t n = fs_hist_count(h, i) + c;
    if (n > UINT16_MAX && fs__hist_widen(h) != 0)
        return ENOMEM;
    fs__hist_set(h, i, n);
    if (i < h->lo) h->lo = i;
    if (i > h->hi) h->hi = i;
    return 0;
}

void fs_hist_reset(fs_hist *h)
{
    assert(h);
    if (h->lo <= h->hi) {
        memset(h->counts + (h->lo - h->base), 0, (size_t)(h->hi - h->lo + 1) * sizeof *h->counts);
        if (h->carries)
            memset(h->carries + (h->lo - h->base), 0, (size_t)(h->hi - h->lo + 1) * sizeof *h->carries);
    }
    fs__hist_clear_summary(h);
}

int fs_hist_merge(fs_hist *dst, const fs_hist *src)
{
    assert(dst && src && fs_hist_has_counts(src) && fs_hist_has_counts(dst));
    if (src->lo > src->hi)
        return 0; /* empty: also keeps dst's sum bit-identical */
    if (fs_hist_cover(dst, src->lo) != 0 || fs_hist_cover(dst, src->hi) != 0)
        return ENOMEM;
    /* 16-bit sums first (the common case: neither has high parts and no sum
     * wraps); otherwise the high parts, then whole counts. */
    bool wide = src->carries || dst->carries;
    for (uint32_t i = src->lo; i <= src->hi && !wide; i++)
        wide = (uint32_t)dst->counts[i - dst->base] + src->counts[i - src->base] > UINT16_MAX;
    if (wide && fs__hist_widen(dst) != 0)
        return ENOMEM;
    if (!dst->carries)
        for (uint32_t i = src->lo; i <= src->hi; i++)
            dst->counts[i - dst->base] += src->counts[i - src->base];
    else
        for (uint32_t i = src->lo; i <= src->hi; i++)
            fs__hist_set(dst, i, fs_hist_count(dst, i) + fs_hist_count(src, i));
    dst->total += src->total;
    dst->sum_ns += src->sum_ns;
    if (src->min_ns < dst->min_ns) dst->min_ns = src->min_ns;
    if (src->max_ns > dst->max_ns) dst->max_ns = src->max_ns;
    if (src->lo < dst->lo) dst->lo = src->lo;
    if (src->hi > dst->hi) dst->hi = src->hi;
    return 0;
}

void fs_hist_drop_counts(fs_hist *h)
{
    fs_hist_fini(h);
    /* An empty range, so reset stays safe; total > 0 with no counters is
     * what fs_hist_has_counts reads as dropped. */
    h->lo = UINT32_MAX;
    h->hi = 0;
}

int fs_hist_merge_drop(fs_hist *dst, fs_hist *src)
{
    assert(dst && src && fs_hist_has_counts(src) && fs_hist_has_counts(dst));
    if (dst->total == 0 && dst->lo > dst->hi) {
        /* Merging into nothing adds 0 to every figure: 0.0 + sum is sum and
         * the empty extremes give way, so taking src whole is exact. */
        fs_hist_fini(dst);
        *dst = *src;
        src->counts = NULL;
        src->carries = NULL;
        src->base = src->cap = 0;
        src->lo = UINT32_MAX;
        src->hi = 0;
        return 0;
    }
    if (fs_hist_merge(dst, src) != 0)
        return ENOMEM;
    fs_hist_drop_counts(src);
    return 0;
}

size_t fs_hist_bytes(const fs_hist *h)
{
    return (size_t)h->cap * (sizeof *h->counts + (h->carries ? sizeof *h->carries : 0));
}

uint64_t fs_hist_bucket_lower(uint32_t i)
{
    assert(i < FS_HIST_BUCKETS);
    if (i < FS_HIST_SUB_COUNT)
        return i;
    unsigned shift = i / FS_HIST_SUB_COUNT - 1;
    return (uint64_t)(FS_HIST_SUB_COUNT + i % FS_HIST_SUB_COUNT) << shift;
}

uint64_t fs_hist_bucket_upper(uint32_t i)
{
    assert(i < FS_HIST_BUCKETS);
    if (i < FS_HIST_SUB_COUNT)
        return (uint64_t)i + 1;
    unsigned shift = i / FS_HIST_SUB_COUNT - 1;
    return fs_hist_bucket_lower(i) + (UINT64_C(1) << shift);
}

/* ceil(q * total), but q is usually a decimal such as 0.07 that double cannot
 * hold, and 0.07 * 100 evaluates to 7.000000000000001: a plain ceil would
 * report rank 8.  A product within a few ulps above an integer is taken to be
 * that integer, since the caller meant it. */
static uint64_t fs__hist_rank(double q, uint64_t total)
{
    double x = q * (double)total;
    double r = ceil(x);
    if (r >= 2.0 && x - (r - 1.0) <= 4.0 * DBL_EPSILON * x)
        r -= 1.0;
    if (r < 1.0)
        return 1;
    if (r >= (double)total)
        return total;
    return (uint64_t)r;
}

double fs_hist_quantile(const fs_hist *h, double q)
{
    assert(h && fs_hist_has_counts(h));
    assert(q >= 0.0 && q <= 1.0);
    if (h->total == 0)
        return 0.0;

    /* The quantile's bucket is the first whose running count reaches rank.
     * A tail quantile is found from the top: the last bucket whose counts
     * above it stay within total - rank is the same bucket, after a scan of
     * the few buckets above it instead of the many below (settling closes
     * four quantiles of every service's every batch). */
    uint64_t rank = fs__hist_rank(q, h->total);
    uint32_t i;
    if (rank > h->total / 2) {
        uint64_t above = 0, allowed = h->total - rank;
        for (i = h->hi; i > h->lo && above + fs_hist_count(h, i) <= allowed; i--)
            above += fs_hist_count(h, i);
    } else {
        uint64_t seen = 0;
        for (i = h->lo; i < h->hi; i++) {
            seen += fs_hist_count(h, i);
            if (seen >= rank)
                break;
        }
    }

    /* The bucket holds the integers lower .. upper-1; the middle of those is
     * exact for the one-value buckets below 256 ns and within half a width
     * elsewhere, which is what gives the 1/256 bound. */
    uint64_t lower = fs_hist_bucket_lower(i);
    uint64_t upper = fs_hist_bucket_upper(i);
    double mid = (double)lower + (double)(upper - lower - 1) / 2.0;
    if (mid < (double)h->min_ns) mid = (double)h->min_ns;
    if (mid > (double)h->max_ns) mid = (double)h->max_ns;
    return mid;
}

double fs_hist_mean(const fs_hist *h)
{
    assert(h);
    return h->total ? h->sum_ns / (double)h->total : 0.0;
}

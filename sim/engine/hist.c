#include "hist.h"

#include <assert.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(FS_HIST_BUCKETS * sizeof(uint64_t) < 64 * 1024,
               "histogram counters should stay well under 64 KiB");

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
    h->counts = calloc(FS_HIST_BUCKETS, sizeof *h->counts);
    if (!h->counts)
        return ENOMEM;
    fs__hist_clear_summary(h);
    return 0;
}

void fs_hist_fini(fs_hist *h)
{
    assert(h);
    free(h->counts);
    h->counts = NULL;
}

void fs_hist_reset(fs_hist *h)
{
    assert(h && h->counts);
    if (h->lo <= h->hi)
        memset(h->counts + h->lo, 0, (size_t)(h->hi - h->lo + 1) * sizeof *h->counts);
    fs__hist_clear_summary(h);
}

void fs_hist_merge(fs_hist *dst, const fs_hist *src)
{
    assert(dst && dst->counts && src && src->counts);
    if (src->lo > src->hi)
        return; /* empty: also keeps dst's sum bit-identical */
    for (uint32_t i = src->lo; i <= src->hi; i++)
        dst->counts[i] += src->counts[i];
    dst->total += src->total;
    dst->sum_ns += src->sum_ns;
    if (src->min_ns < dst->min_ns) dst->min_ns = src->min_ns;
    if (src->max_ns > dst->max_ns) dst->max_ns = src->max_ns;
    if (src->lo < dst->lo) dst->lo = src->lo;
    if (src->hi > dst->hi) dst->hi = src->hi;
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
    assert(h && h->counts);
    assert(q >= 0.0 && q <= 1.0);
    if (h->total == 0)
        return 0.0;

    uint64_t rank = fs__hist_rank(q, h->total);
    uint64_t seen = 0;
    uint32_t i = h->lo;
    for (; i < h->hi; i++) {
        seen += h->counts[i];
        if (seen >= rank)
            break;
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

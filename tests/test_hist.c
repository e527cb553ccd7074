/*
 * Oracle: every quantile is checked against the exact nearest-rank value of
 * the sorted sample, with the rank computed in integer arithmetic from q
 * written as a fraction, so the oracle shares no floating-point rounding
 * with the code under test.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "hist.h"
#include "testutil.h"

#define SEED 20240611UL
#define NS_PER_US 1e3
#define NS_PER_HOUR 3.6e12

typedef struct {
    uint64_t num, den;
} frac;

/* p50, p90, p99, p99.9, p99.99, and the extremes. */
static const frac QUANTILES[] = {
    {0, 1}, {1, 2}, {9, 10}, {99, 100}, {999, 1000}, {9999, 10000}, {1, 1},
};
#define N_QUANTILES (sizeof QUANTILES / sizeof QUANTILES[0])

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Exact nearest rank ceil(num/den * n), at least 1. */
static uint64_t exact_rank(frac q, uint64_t n)
{
    uint64_t r = (q.num * n + q.den - 1) / q.den;
    return r ? r : 1;
}

static uint64_t to_ns(double x)
{
    return x <= 0.0 ? 0 : (uint64_t)(x + 0.5);
}

static void hist_init_ok(fs_hist *h)
{
    assert_int_equal(fs_hist_init(h), 0);
    assert_null(h->counts); /* counters come with the first record */
    assert_null(h->carries);
    assert_int_equal(fs_hist_bytes(h), 0);
}


/* Checks h, which holds exactly the n values of sorted[], against them.
 * Returns the worst relative quantile error seen. */
static double check_against_sorted(const fs_hist *h, const uint64_t *sorted, size_t n)
{
    assert_int_equal(h->total, n);
    assert_int_equal(h->min_ns, sorted[0]);
    assert_int_equal(h->max_ns, sorted[n - 1]);

    double worst = 0.0;
    for (size_t k = 0; k < N_QUANTILES; k++) {
        frac fq = QUANTILES[k];
        double q = (double)fq.num / (double)fq.den;
        double exact = (double)sorted[exact_rank(fq, n) - 1];
        double got = fs_hist_quantile(h, q);
        double err = fabs(got - exact);
        if (exact == 0.0) {
            assert_true(got == 0.0);
            continue;
        }
        double rel = err / exact;
        if (rel > worst)
            worst = rel;
        if (rel > 0.01 || err > exact / 256.0 || err > got / 256.0) {
            print_error("q=%llu/%llu n=%zu exact=%.17g got=%.17g rel=%g\n",
                        (unsigned long long)fq.num, (unsigned long long)fq.den, n, exact,
                        got, rel);
            fail();
        }
        assert_true(got >= (double)h->min_ns && got <= (double)h->max_ns);
    }

    long double sum = 0.0L;
    for (size_t i = 0; i < n; i++)
        sum += (long double)sorted[i];
    double mean = (double)(sum / (long double)n);
    /* sum_ns is a running double sum: worst-case drift is n ulps. */
    assert_true(fabs(fs_hist_mean(h) - mean) <= 1e-10 * mean);
    return worst;
}

typedef double (*sampler)(const gsl_rng *r);

static double draw_exponential(const gsl_rng *r)
{
    return gsl_ran_exponential(r, 600e9); /* mean 10 min: ~1 ms .. ~2 h */
}

static double draw_lognormal(const gsl_rng *r)
{
    return gsl_ran_lognormal(r, log(0.1e9), 1.5); /* median 100 ms: ~50 us .. ~3 min */
}

static double draw_uniform(const gsl_rng *r)
{
    return gsl_ran_flat(r, NS_PER_US, NS_PER_HOUR);
}

static double draw_loguniform(const gsl_rng *r)
{
    return exp(gsl_ran_flat(r, log(NS_PER_US), log(NS_PER_HOUR)));
}

static void run_accuracy(const char *name, sampler draw, unsigned long seed)
{
    static const size_t sizes[] = {100000, 1000000};
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    assert_non_null(r);
    gsl_rng_set(r, seed);

    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t n = sizes[s];
        uint64_t *v = malloc(n * sizeof *v);
        assert_non_null(v);
        fs_hist h;
        hist_init_ok(&h);
        for (size_t i = 0; i < n; i++) {
            v[i] = to_ns(draw(r));
            fs_hist_record(&h, v[i]);
        }
        qsort(v, n, sizeof *v, cmp_u64);
        double worst = check_against_sorted(&h, v, n);
        print_message("%-11s n=%-7zu %.3g .. %.3g ns, worst quantile rel err %.5f%%\n", name,
                      n, (double)v[0], (double)v[n - 1], 100.0 * worst);
        fs_hist_fini(&h);
        free(v);
    }
    gsl_rng_free(r);
}

static void test_accuracy_exponential(void **state)
{
    (void)state;
    run_accuracy("exponential", draw_exponential, SEED);
}

static void test_accuracy_lognormal(void **state)
{
    (void)state;
    run_accuracy("lognormal", draw_lognormal, SEED + 1);
}

static void test_accuracy_uniform(void **state)
{
    (void)state;
    run_accuracy("uniform", draw_uniform, SEED + 2);
}

static void test_accuracy_loguniform(void **state)
{
    (void)state;
    run_accuracy("log-uniform", draw_loguniform, SEED + 3);
}

/* Random small samples, every rank: an off-by-one in the rank walk lands in
 * the neighbouring bucket and fails the bucket check. */
static void test_nearest_rank_every_rank(void **state)
{
    (void)state;
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    assert_non_null(r);
    gsl_rng_set(r, SEED + 4);
    fs_hist h;
    hist_init_ok(&h);
    uint64_t v[400];

    for (int trial = 0; trial < 300; trial++) {
        size_t n = 1 + gsl_rng_uniform_int(r, 400);
        int small = trial % 2; /* small values repeat, so ranks tie */
        fs_hist_reset(&h);
        for (size_t i = 0; i < n; i++) {
            v[i] = small ? gsl_rng_uniform_int(r, 300)
                         : to_ns(exp(gsl_ran_flat(r, 0.0, log(1e12))));
            fs_hist_record(&h, v[i]);
        }
        qsort(v, n, sizeof *v, cmp_u64);
        for (size_t k = 1; k <= n; k++) {
            double q = ((double)k - 0.5) / (double)n; /* ceil(q n) = k, with margin */
            double got = fs_hist_quantile(&h, q);
            uint32_t b = fs_hist_index(v[k - 1]);
            assert_true(got >= (double)fs_hist_bucket_lower(b));
            assert_true(got <= (double)(fs_hist_bucket_upper(b) - 1));
            assert_true(fabs(got - (double)v[k - 1]) <= (double)v[k - 1] / 256.0);
        }
        assert_true(fs_hist_quantile(&h, 0.0) == fs_hist_quantile(&h, 0.5 / (double)n));
        uint32_t top = fs_hist_index(v[n - 1]);
        assert_true(fs_hist_quantile(&h, 1.0) >= (double)fs_hist_bucket_lower(top));
    }
    fs_hist_fini(&h);
    gsl_rng_free(r);
}

/* Below 256 ns buckets are one value wide, so quantiles are exact; decimal q
 * such as 0.07 must still mean rank 7 of 100 although 0.07 * 100 > 7 in
 * double arithmetic. */
static void test_small_values_exact(void **state)
{
    (void)state;
    fs_hist h;
    hist_init_ok(&h);
    for (uint64_t i = 0; i < 100; i++)
        fs_hist_record(&h, (i * 37) % 100); /* 0..99, shuffled */
    for (uint64_t p = 1; p <= 100; p++)
        assert_true(fs_hist_quantile(&h, (double)p / 100.0) == (double)(p - 1));
    assert_true(fs_hist_quantile(&h, 0.0) == 0.0);

    fs_hist_reset(&h);
    for (uint64_t i = 0; i < 200; i++)
        fs_hist_record(&h, 55 + i); /* 55..254 */
    for (uint64_t p = 0; p <= 1000; p++) {
        uint64_t rank = exact_rank((frac){p, 1000}, 200);
        assert_true(fs_hist_quantile(&h, (double)p / 1000.0) == (double)(55 + rank - 1));
    }
    fs_hist_fini(&h);
}

static void check_value_in_bucket(uint64_t v)
{
    uint32_t i = fs_hist_index(v);
    assert_true(i < FS_HIST_BUCKETS);
    if (v >= FS_HIST_MAX_NS) {
        assert_int_equal(i, FS_HIST_BUCKETS - 1);
        return;
    }
    assert_true(fs_hist_bucket_lower(i) <= v);
    assert_true(v < fs_hist_bucket_upper(i));
}

static void test_index_sweep(void **state)
{
    (void)state;
    uint32_t prev = 0;
    for (uint64_t v = 0; v < 5000; v++) {
        check_value_in_bucket(v);
        assert_true(fs_hist_index(v) >= prev);
        prev = fs_hist_index(v);
    }
    uint64_t last = 4999;
    for (double x = 5000.0; x <= 0x1p60; x *= 1.0007) {
        uint64_t v = (uint64_t)x;
        assert_true(v >= last);
        check_value_in_bucket(v);
        assert_true(fs_hist_index(v) >= prev);
        prev = fs_hist_index(v);
        last = v;
    }
    /* Octave edges, where a shift or mask error would show first. */
    for (unsigned k = 1; k < 64; k++) {
        uint64_t p = UINT64_C(1) << k;
        check_value_in_bucket(p - 1);
        check_value_in_bucket(p);
        check_value_in_bucket(p + 1);
        assert_true(fs_hist_index(p - 1) <= fs_hist_index(p));
        assert_true(fs_hist_index(p) <= fs_hist_index(p + 1));
    }
    check_value_in_bucket(UINT64_MAX);
}

/* Every bucket: contiguous with its neighbour, its own edges map back to it,
 * and it is narrow enough for the stated precision. */
static void test_bucket_edges(void **state)
{
    (void)state;
    assert_int_equal(fs_hist_bucket_lower(0), 0);
    assert_int_equal(fs_hist_bucket_upper(FS_HIST_BUCKETS - 1), FS_HIST_MAX_NS);
    for (uint32_t i = 0; i < FS_HIST_BUCKETS; i++) {
        uint64_t lo = fs_hist_bucket_lower(i), up = fs_hist_bucket_upper(i);
        assert_true(lo < up);
        if (i > 0)
            assert_int_equal(lo, fs_hist_bucket_upper(i - 1));
        assert_int_equal(fs_hist_index(lo), i);
        assert_int_equal(fs_hist_index(up - 1), i);
        if (up - lo > 1)
            assert_true((up - lo) * 128 <= lo);
    }
}

static void assert_same_hist(const fs_hist *a, const fs_hist *b, int same_sum)
{
    test_assert_same_counts(a, b);
    assert_int_equal(a->total, b->total);
    assert_int_equal(a->min_ns, b->min_ns);
    assert_int_equal(a->max_ns, b->max_ns);
    assert_int_equal(a->lo, b->lo);
    assert_int_equal(a->hi, b->hi);
    if (same_sum)
        assert_true(a->sum_ns == b->sum_ns);
    else
        assert_true(fabs(a->sum_ns - b->sum_ns) <= 1e-10 * fabs(b->sum_ns));
    for (int p = 0; p <= 10000; p += 7) {
        double q = p / 10000.0;
        assert_true(fs_hist_quantile(a, q) == fs_hist_quantile(b, q));
    }
}

static void test_merge(void **state)
{
    (void)state;
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    assert_non_null(r);
    gsl_rng_set(r, SEED + 5);
    enum { N = 200000 };
    fs_hist all, a, b, by_range_lo, by_range_hi, empty;
    hist_init_ok(&all);
    hist_init_ok(&a);
    hist_init_ok(&b);
    hist_init_ok(&by_range_lo);
    hist_init_ok(&by_range_hi);
    hist_init_ok(&empty);

    for (int i = 0; i < N; i++) {
        uint64_t v = to_ns(gsl_ran_lognormal(r, log(1e6), 2.0));
        fs_hist_record(&all, v);
        fs_hist_record(gsl_rng_uniform_int(r, 2) ? &a : &b, v);
        fs_hist_record(v < 1000000 ? &by_range_lo : &by_range_hi, v);
    }
    assert_true(a.total > 0 && b.total > 0);

    fs_hist_merge(&a, &b);
    assert_same_hist(&a, &all, 0);

    /* Disjoint dirty ranges, merged in the order that widens hi. */
    fs_hist_merge(&by_range_lo, &by_range_hi);
    assert_same_hist(&by_range_lo, &all, 0);

    /* Into an empty histogram: a copy, bit for bit. */
    fs_hist_merge(&empty, &all);
    assert_same_hist(&empty, &all, 1);

    /* An empty source changes nothing. */
    fs_hist_reset(&b);
    fs_hist_merge(&a, &b);
    assert_same_hist(&a, &all, 0);
    assert_true(fs_hist_mean(&a) == a.sum_ns / (double)a.total);

    fs_hist_fini(&all);
    fs_hist_fini(&a);
    fs_hist_fini(&b);
    fs_hist_fini(&by_range_lo);
    fs_hist_fini(&by_range_hi);
    fs_hist_fini(&empty);
    gsl_rng_free(r);
}

static void assert_empty(const fs_hist *h)
{
    assert_int_equal(h->total, 0);
    assert_int_equal(h->min_ns, UINT64_MAX);
    assert_int_equal(h->max_ns, 0);
    assert_true(h->sum_ns == 0.0);
    assert_true(h->lo > h->hi);
}

static void test_reset(void **state)
{
    (void)state;
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    assert_non_null(r);
    gsl_rng_set(r, SEED + 6);
    fs_hist h, fresh;
    hist_init_ok(&h);
    hist_init_ok(&fresh);

    fs_hist_reset(&h); /* reset of an empty histogram is harmless */
    assert_empty(&h);

    /* First fill spans 0 .. beyond FS_HIST_MAX_NS, so the dirty range is the
     * whole array; the refill is narrower and must not see leftovers. */
    fs_hist_record(&h, 0);
    fs_hist_record(&h, UINT64_MAX);
    for (int i = 0; i < 50000; i++)
        fs_hist_record(&h, to_ns(exp(gsl_ran_flat(r, 0.0, log(1e15)))));
    fs_hist_reset(&h);
    assert_empty(&h);
    for (uint32_t i = 0; i < FS_HIST_BUCKETS; i++)
        assert_int_equal(fs_hist_count(&h, i), 0);
    assert_null(h.carries); /* no bucket passed 65,535 */
    assert_int_equal(fs_hist_bytes(&h), FS_HIST_BUCKETS * sizeof(uint16_t)); /* kept for the next window */

    for (int i = 0; i < 50000; i++) {
        uint64_t v = to_ns(gsl_ran_exponential(r, 1e7));
        fs_hist_record(&h, v);
        fs_hist_record(&fresh, v);
    }
    assert_same_hist(&h, &fresh, 1);

    fs_hist_fini(&h);
    fs_hist_fini(&fresh);
    gsl_rng_free(r);
}

static void test_empty(void **state)
{
    (void)state;
    fs_hist h;
    hist_init_ok(&h);
    assert_empty(&h);
    static const double qs[] = {0.0, 0.5, 0.99, 0.9999, 1.0};
    for (size_t i = 0; i < sizeof qs / sizeof qs[0]; i++)
        assert_true(fs_hist_quantile(&h, qs[i]) == 0.0);
    assert_true(fs_hist_mean(&h) == 0.0);
    fs_hist_fini(&h);
    assert_null(h.counts);
}

static void test_huge_values(void **state)
{
    (void)state;
    fs_hist h;
    hist_init_ok(&h);
    const uint32_t last = FS_HIST_BUCKETS - 1;
    static const uint64_t huge[] = {
        FS_HIST_MAX_NS - 1, FS_HIST_MAX_NS, FS_HIST_MAX_NS + 1, UINT64_C(1) << 60, UINT64_MAX,
    };
    for (size_t i = 0; i < sizeof huge / sizeof huge[0]; i++)
        fs_hist_record(&h, huge[i]);
    assert_int_equal(h.total, 5);
    assert_int_equal(fs_hist_count(&h, last), 5);
    assert_int_equal(fs_hist_bytes(&h), FS_HIST_SUB_COUNT * sizeof(uint16_t)); /* the last octave only */
    assert_int_equal(h.lo, last);
    assert_int_equal(h.hi, last);
    assert_int_equal(h.min_ns, FS_HIST_MAX_NS - 1);
    assert_int_equal(h.max_ns, UINT64_MAX);
    for (int p = 0; p <= 100; p++) {
        double got = fs_hist_quantile(&h, p / 100.0);
        assert_true(got >= (double)h.min_ns && got <= (double)h.max_ns);
    }

    /* One runaway value does not disturb the rest. */
    fs_hist_reset(&h);
    for (uint64_t v = 1000; v < 101000; v++)
        fs_hist_record(&h, v);
    fs_hist_record(&h, UINT64_C(1) << 62);
    assert_int_equal(h.total, 100001);
    assert_int_equal(h.max_ns, UINT64_C(1) << 62);
    assert_int_equal(fs_hist_count(&h, last), 1);
    double p50 = fs_hist_quantile(&h, 0.5); /* rank 50001: value 51000 */
    assert_true(fabs(p50 - 51000.0) <= 51000.0 / 256.0);
    assert_true(fs_hist_quantile(&h, 1.0) <= (double)h.max_ns);
    fs_hist_fini(&h);
}

/* Memory is bounded by the counter array and nothing grows with the sample
 * count: once every octave is in use, recording allocates nothing more. */
static void test_fixed_memory(void **state)
{
    (void)state;
    assert_int_equal(FS_HIST_BUCKETS, 5888);
    assert_true(FS_HIST_BUCKETS * (sizeof(uint16_t) + sizeof(uint64_t)) < 64 * 1024);
    if (sizeof(void *) == 8)
        assert_int_equal(sizeof(fs_hist), 64);

    fs_hist h;
    hist_init_ok(&h);
    uint64_t x = 88172645463325252u; /* xorshift64: cheap, no GSL needed */
    uint16_t *before = NULL;
    for (int round = 0; round < 2; round++) {
        for (int i = 0; i < 1000000; i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            assert_int_equal(fs_hist_record(&h, x >> (x & 63)), 0);
        }
        /* Every bucket has its 16-bit counter, and the high parts once
         * a bucket has passed 65,535 (test_carry covers when). */
        assert_int_equal(fs_hist_bytes(&h),
                         FS_HIST_BUCKETS * (sizeof(uint16_t) + (h.carries ? sizeof(uint64_t) : 0)));
        if (round == 0)
            before = h.counts;
    }
    assert_ptr_equal(h.counts, before);
    uint64_t sum = 0;
    for (uint32_t i = 0; i < FS_HIST_BUCKETS; i++)
        sum += fs_hist_count(&h, i);
    assert_int_equal(sum, h.total);
    fs_hist_fini(&h);
}

/* Counters are allocated only for the octaves between the smallest and the
 * largest value, grown at either end as values arrive, and quantiles are
 * those of a histogram that had every counter from the start: laziness
 * changes memory, never an answer. */
static void test_lazy_growth(void **state)
{
    (void)state;
    fs_hist h, full, merged;
    hist_init_ok(&h);
    hist_init_ok(&full);
    hist_init_ok(&merged);
    assert_int_equal(fs_hist_cover(&full, 0), 0);
    assert_int_equal(fs_hist_cover(&full, FS_HIST_BUCKETS - 1), 0);
    assert_int_equal(fs_hist_bytes(&full), FS_HIST_BUCKETS * sizeof(uint16_t));

    const size_t chunk = FS_HIST_SUB_COUNT * sizeof(uint16_t);
    /* [2^20, 2^21) ns (about 1 to 2 ms) is one octave: one chunk. */
    for (uint64_t v = UINT64_C(1) << 20; v < UINT64_C(1) << 21; v += 997) {
        assert_int_equal(fs_hist_record(&h, v), 0);
        fs_hist_record(&full, v);
    }
    assert_int_equal(fs_hist_bytes(&h), chunk);
    /* Up to 8 ms (below 2^23): two more octaves above. */
    fs_hist_record(&h, 7999999);
    fs_hist_record(&full, 7999999);
    assert_int_equal(fs_hist_bytes(&h), 3 * chunk);
    /* Down to 100 us (octave [2^16, 2^17)): four more below, and the counters
     * already there move up with their values. */
    fs_hist_record(&h, 100000);
    fs_hist_record(&full, 100000);
    assert_int_equal(fs_hist_bytes(&h), 7 * chunk);
    assert_int_equal(fs_hist_count(&h, fs_hist_index(7999999)), 1);
    uint32_t first = fs_hist_index(UINT64_C(1) << 20); /* 9 values 997 apart in a bucket 8192 wide */
    assert_int_equal(fs_hist_count(&h, first), 9);
    assert_int_equal(fs_hist_count(&h, 0), 0); /* not allocated, and empty */
    assert_same_hist(&h, &full, 1);

    /* A merge grows an empty destination to the source's range. */
    assert_int_equal(fs_hist_merge(&merged, &h), 0);
    assert_int_equal(fs_hist_bytes(&merged), 7 * chunk);
    assert_same_hist(&merged, &full, 1);

    /* Counters added by index (a run file read back) grow the same way. */
    fs_hist_reset(&merged);
    assert_int_equal(fs_hist_add_count(&merged, 3, 2), 0);
    assert_int_equal(fs_hist_count(&merged, 3), 2);
    assert_int_equal(fs_hist_count(&merged, fs_hist_index(UINT64_C(1) << 20)), 0);
    assert_int_equal(merged.lo, 3);
    assert_int_equal(merged.hi, 3);

    fs_hist_fini(&h);
    fs_hist_fini(&full);
    fs_hist_fini(&merged);
    assert_null(h.counts);
    assert_int_equal(fs_hist_bytes(&h), 0);
}

/* Counters are 16 bits: the 65,536th value of a bucket carries into its
 * high part, allocated then.  Every count stays exact through records,
 * merges (a sum that wraps, a source with high parts), counts added by
 * index, growth at either end and reset, and quantiles keep their bound. */
static void test_carry(void **state)
{
    (void)state;
    const uint64_t v = 5000, far = 123456789; /* two buckets octaves apart */
    const uint32_t iv = fs_hist_index(v), ifar = fs_hist_index(far);
    fs_hist h, a, b, both, big;
    hist_init_ok(&h);
    hist_init_ok(&a);
    hist_init_ok(&b);
    hist_init_ok(&both);
    hist_init_ok(&big);

    for (uint32_t n = 0; n < UINT16_MAX; n++)
        assert_int_equal(fs_hist_record(&h, v), 0);
    assert_null(h.carries);
    assert_int_equal(fs_hist_count(&h, iv), UINT16_MAX);
    assert_int_equal(fs_hist_bytes(&h), FS_HIST_SUB_COUNT * sizeof(uint16_t));
    assert_int_equal(fs_hist_record(&h, v), 0); /* the 65,536th */
    assert_non_null(h.carries);
    assert_int_equal(fs_hist_count(&h, iv), 65536);
    assert_int_equal(fs_hist_bytes(&h), FS_HIST_SUB_COUNT * (sizeof(uint16_t) + sizeof(uint64_t)));
    for (uint32_t n = 0; n < 2 * 65536 + 5; n++)
        fs_hist_record(&h, v);
    assert_int_equal(fs_hist_count(&h, iv), 3 * 65536 + 5);
    assert_int_equal(h.total, 3 * 65536 + 5);

    /* Growth upwards and downwards moves the high parts with the counters. */
    fs_hist_record(&h, far);
    fs_hist_record(&h, 3);
    assert_int_equal(fs_hist_count(&h, iv), 3 * 65536 + 5);
    assert_int_equal(fs_hist_count(&h, ifar), 1);
    assert_int_equal(fs_hist_count(&h, 3), 1);
    assert_int_equal(fs_hist_bytes(&h), h.cap * (sizeof(uint16_t) + sizeof(uint64_t)));
    /* Quantiles: rank 1 is the 3, the last the far value, the rest v. */
    assert_true(fs_hist_quantile(&h, 0.0) == 3.0);
    double mid = (double)fs_hist_bucket_lower(iv) + (double)(fs_hist_bucket_upper(iv) - fs_hist_bucket_lower(iv) - 1) / 2;
    assert_true(fs_hist_quantile(&h, 0.5) == mid);
    assert_true(fabs(fs_hist_quantile(&h, 0.5) - (double)v) <= (double)v / 256.0);
    assert_true(fs_hist_quantile(&h, 1.0) == (double)far);

    /* Two 16-bit histograms whose sum wraps merge exactly, as one that
     * recorded every value; so does a source with high parts. */
    for (uint32_t n = 0; n < 40000; n++) {
        fs_hist_record(&a, v);
        fs_hist_record(&b, v);
        fs_hist_record(&both, v);
        fs_hist_record(&both, v);
    }
    fs_hist_record(&b, far);
    fs_hist_record(&both, far);
    assert_null(a.carries);
    assert_null(b.carries);
    assert_int_equal(fs_hist_merge(&a, &b), 0);
    assert_non_null(a.carries);
    assert_non_null(both.carries);
    assert_same_hist(&a, &both, 0);
    assert_int_equal(fs_hist_count(&a, iv), 80000);
    fs_hist_reset(&b);
    assert_int_equal(fs_hist_merge(&b, &a), 0); /* into 16 bits from a source with high parts */
    assert_same_hist(&b, &both, 1);

    /* Counts added by index: beyond 16 bits, and onto counts with high parts. */
    assert_int_equal(fs_hist_add_count(&big, ifar, UINT64_C(1) << 40), 0);
    assert_int_equal(fs_hist_add_count(&big, ifar, 70000), 0);
    assert_int_equal(fs_hist_count(&big, ifar), (UINT64_C(1) << 40) + 70000);
    assert_int_equal(fs_hist_add_count(&big, iv, 7), 0);
    assert_int_equal(fs_hist_count(&big, iv), 7);
    assert_int_equal(fs_hist_count(&big, ifar), (UINT64_C(1) << 40) + 70000);

    /* Reset clears the high parts too, and keeps them allocated. */
    fs_hist_reset(&h);
    assert_non_null(h.carries);
    for (uint32_t i = 0; i < FS_HIST_BUCKETS; i++)
        assert_int_equal(fs_hist_count(&h, i), 0);
    fs_hist_record(&h, v);
    assert_int_equal(fs_hist_count(&h, iv), 1);

    fs_hist_fini(&h);
    fs_hist_fini(&a);
    fs_hist_fini(&b);
    fs_hist_fini(&both);
    fs_hist_fini(&big);
    assert_null(h.carries);
}

/* A narrow distribution (two buckets take every value, hundreds of
 * thousands each) against the sorted sample: quantiles keep their bound
 * and the mean its precision with every counter carrying. */
static void test_carry_accuracy(void **state)
{
    (void)state;
    enum { N = 400000 };
    uint64_t *v = malloc(N * sizeof *v);
    assert_non_null(v);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    assert_non_null(r);
    gsl_rng_set(r, SEED + 9);
    fs_hist h;
    hist_init_ok(&h);
    for (size_t i = 0; i < N; i++) {
        v[i] = 10000 + gsl_rng_uniform_int(r, 128); /* buckets 64 ns wide: two */
        assert_int_equal(fs_hist_record(&h, v[i]), 0);
    }
    assert_non_null(h.carries);
    qsort(v, N, sizeof *v, cmp_u64);
    check_against_sorted(&h, v, N);
    uint64_t sum = 0;
    for (uint32_t i = 0; i < FS_HIST_BUCKETS; i++)
        sum += fs_hist_count(&h, i);
    assert_int_equal(sum, N);
    fs_hist_fini(&h);
    gsl_rng_free(r);
    free(v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixed_memory),
        cmocka_unit_test(test_lazy_growth),
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_bucket_edges),
        cmocka_unit_test(test_index_sweep),
        cmocka_unit_test(test_small_values_exact),
        cmocka_unit_test(test_nearest_rank_every_rank),
        cmocka_unit_test(test_accuracy_exponential),
        cmocka_unit_test(test_accuracy_lognormal),
        cmocka_unit_test(test_accuracy_uniform),
        cmocka_unit_test(test_accuracy_loguniform),
        cmocka_unit_test(test_merge),
        cmocka_unit_test(test_reset),
        cmocka_unit_test(test_huge_values),
        cmocka_unit_test(test_carry),
        cmocka_unit_test(test_carry_accuracy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * Oracle: a dense histogram (hist.h) recording the same values in the same
 * order.  A tally must give its counts, total, extremes and sum exactly (so
 * every figure, bit for bit) in list mode, across the turn to dense, and
 * span after span; and fs_hist_merge_drop must leave what fs_hist_merge
 * leaves, taking the counters whole only when the destination is empty.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "hist.h"
#include "tally.h"

#define SEED 20261126UL

/* Every bucket's count, and the summary, equal. */
static void assert_same(const fs_hist *a, const fs_hist *b)
{
    assert_int_equal(a->total, b->total);
    assert_int_equal(a->min_ns, b->min_ns);
    assert_int_equal(a->max_ns, b->max_ns);
    assert_true(a->sum_ns == b->sum_ns);
    for (uint32_t i = 0; i < FS_HIST_BUCKETS; i++)
        if (fs_hist_count(a, i) != fs_hist_count(b, i))
            fail_msg("bucket %u: %llu != %llu", i, (unsigned long long)fs_hist_count(a, i),
                     (unsigned long long)fs_hist_count(b, i));
    for (double q = 0; q <= 1.0; q += 0.01)
        assert_true(fs_hist_quantile(a, q) == fs_hist_quantile(b, q));
    assert_true(fs_hist_mean(a) == fs_hist_mean(b));
}

/* Lognormal latencies around 20 ms, spread over many octaves. */
static uint64_t draw(gsl_rng *rng) { return (uint64_t)(gsl_ran_lognormal(rng, 16.8, 1.5) + 0.5); }

/* Spans of growing size, list mode first, then past FS_TALLY_LIST_MAX. */
static void test_spans_match_a_histogram(void **state)
{
    (void)state;
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_taus2);
    gsl_rng_set(rng, SEED);
    fs_tally t;
    fs_hist dense, scratch;
    assert_int_equal(fs_tally_init(&t), 0);
    fs_hist_init(&dense);
    fs_hist_init(&scratch);
    const uint32_t sizes[] = {0, 1, 7, 300, FS_TALLY_LIST_MAX, 5, FS_TALLY_LIST_MAX + 1, 40, 100000};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        fs_hist_reset(&dense);
        fs_tally_reset(&t);
        for (uint32_t k = 0; k < sizes[s]; k++) {
            uint64_t ns = draw(rng);
            assert_int_equal(fs_tally_record(&t, ns), 0);
            assert_int_equal(fs_hist_record(&dense, ns), 0);
        }
        assert_int_equal(fs_tally_total(&t), sizes[s]);
        /* Dense only once a span held more than the list's most. */
        assert_true(t.dense == (s >= 6));
        fs_hist *h = fs_tally_hist(&t, &scratch);
        assert_non_null(h);
        assert_true(h == (t.dense ? &t.hist : &scratch));
        assert_same(h, &dense);
    }
    fs_tally_fini(&t);
    fs_hist_fini(&dense);
    fs_hist_fini(&scratch);
    gsl_rng_free(rng);
}

/* A list tally costs its values' indexes, not the histogram's range. */
static void test_list_costs_what_it_holds(void **state)
{
    (void)state;
    fs_tally t;
    assert_int_equal(fs_tally_init(&t), 0);
    assert_null(t.index);
    /* Two values fifteen octaves apart: a histogram would allocate 15 x 256 B. */
    assert_int_equal(fs_tally_record(&t, 1000), 0);
    assert_int_equal(fs_tally_record(&t, 1000u << 15), 0);
    assert_false(t.dense);
    assert_null(t.hist.counts);
    assert_true(t.cap * sizeof *t.index <= 64);
    fs_tally_fini(&t);
}

/* merge_drop: into an empty destination the counters move whole (no copy);
 * into a non-empty one it merges; both as fs_hist_merge would leave them. */
static void test_merge_drop(void **state)
{
    (void)state;
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_taus2);
    gsl_rng_set(rng, SEED + 1);
    fs_hist a, b, into, expect;
    fs_hist_init(&a), fs_hist_init(&b), fs_hist_init(&into), fs_hist_init(&expect);
    for (int k = 0; k < 5000; k++) {
        uint64_t x = draw(rng), y = draw(rng);
        fs_hist_record(&a, x);
        fs_hist_record(&b, y);
    }
    assert_int_equal(fs_hist_merge(&expect, &a), 0);
    uint16_t *counts = a.counts;
    uint64_t total = a.total;
    assert_int_equal(fs_hist_merge_drop(&into, &a), 0);
    assert_ptr_equal(into.counts, counts); /* moved, not copied */
    assert_false(fs_hist_has_counts(&a));
    assert_int_equal(a.total, total); /* a dropped histogram keeps its count */
    assert_same(&into, &expect);
    assert_int_equal(fs_hist_merge(&expect, &b), 0);
    assert_int_equal(fs_hist_merge_drop(&into, &b), 0);
    assert_false(fs_hist_has_counts(&b));
    assert_same(&into, &expect);
    fs_hist_fini(&a), fs_hist_fini(&b), fs_hist_fini(&into), fs_hist_fini(&expect);
    gsl_rng_free(rng);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spans_match_a_histogram),
        cmocka_unit_test(test_list_costs_what_it_holds),
        cmocka_unit_test(test_merge_drop),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

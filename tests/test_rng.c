/*
 * test_rng — named streams: reproducible, distinct, isolated, and uniform.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rng.h"

#define SEQ_LEN 1000

static void fill(gsl_rng *r, unsigned long *out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = gsl_rng_get(r);
}

/* Number of positions at which two sequences agree; independent 32-bit
 * streams agree at a position with probability 2^-32. */
static size_t agreements(const unsigned long *a, const unsigned long *b, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += a[i] == b[i];
    return k;
}

static size_t agreement_between(uint64_t s1, uint32_t r1, const char *n1, uint64_t s2,
                                uint32_t r2, const char *n2)
{
    static unsigned long a[SEQ_LEN], b[SEQ_LEN];
    gsl_rng *ra = fs_rng_create(s1, r1, n1);
    gsl_rng *rb = fs_rng_create(s2, r2, n2);
    assert_non_null(ra);
    assert_non_null(rb);
    fill(ra, a, SEQ_LEN);
    fill(rb, b, SEQ_LEN);
    fs_rng_destroy(ra);
    fs_rng_destroy(rb);
    return agreements(a, b, SEQ_LEN);
}

static void test_same_key_same_sequence(void **state)
{
    (void)state;
    assert_int_equal(agreement_between(42, 3, "arrivals/chat", 42, 3, "arrivals/chat"), SEQ_LEN);
    assert_int_equal(agreement_between(0, 0, "", 0, 0, ""), SEQ_LEN);
    assert_true(fs_rng_stream_seed(42, 3, "arrivals/chat") ==
                fs_rng_stream_seed(42, 3, "arrivals/chat"));
}

static void test_different_keys_differ(void **state)
{
    (void)state;
    /* Each differs from the reference key in one component only. */
    assert_true(agreement_between(42, 3, "arrivals/chat", 42, 3, "arrivals/chab") < 3);
    assert_true(agreement_between(42, 3, "arrivals/chat", 42, 3, "arrivals/chat2") < 3);
    assert_true(agreement_between(42, 3, "arrivals/chat", 42, 3, "service/chat") < 3);
    assert_true(agreement_between(42, 3, "arrivals/chat", 42, 4, "arrivals/chat") < 3);
    assert_true(agreement_between(42, 0, "arrivals/chat", 42, 1, "arrivals/chat") < 3);
    assert_true(agreement_between(42, 3, "arrivals/chat", 43, 3, "arrivals/chat") < 3);
    assert_true(agreement_between(0, 0, "a", 1, 0, "a") < 3);

    /* Seed and replication must not cancel each other, nor swap roles. */
    assert_true(fs_rng_stream_seed(1, 0, "x") != fs_rng_stream_seed(0, 1, "x"));
    assert_true(fs_rng_stream_seed(1, 1, "x") != fs_rng_stream_seed(0, 0, "x"));
    assert_true(fs_rng_stream_seed(7, 0, "") != fs_rng_stream_seed(7, 0, "a"));
}

/* A name hashed in pieces gives the seed of the whole name. */
static void test_hash_in_pieces(void **state)
{
    (void)state;
    const char *name = "{\"policies\": [1, 2.5, \"arrivals/chat\"]}";
    size_t n = strlen(name);
    for (size_t cut = 0; cut <= n; cut++) {
        uint64_t h = fs_rng_hash_piece(FS_RNG_HASH_START, name, cut);
        h = fs_rng_hash_piece(h, name + cut, n - cut);
        assert_true(fs_rng_seed_of_hash(7, 2, h) == fs_rng_stream_seed(7, 2, name));
        assert_true(fs_rng_seed_of_hash(7, 3, h) != fs_rng_stream_seed(7, 2, name));
    }
    assert_true(fs_rng_seed_of_hash(0, 0, FS_RNG_HASH_START) == fs_rng_stream_seed(0, 0, ""));
}

/* Many keys: pairwise distinct 64-bit seeds, and distinct generator output,
 * which also catches collisions in the 32-bit fold taus2 actually sees. */
static void test_many_keys_distinct(void **state)
{
    (void)state;
    enum { SEEDS = 4, REPS = 16, NAMES = 8, N = SEEDS * REPS * NAMES };
    static const char *names[NAMES] = {"arrivals/chat", "arrivals/batch", "service/chat",
                                       "service/batch", "failures/gpu", "repair/gpu",
                                       "a", "b"};
    uint64_t *keys = malloc(N * sizeof *keys);
    uint64_t *heads = malloc(N * sizeof *heads);
    assert_non_null(keys);
    assert_non_null(heads);
    size_t k = 0;
    for (uint64_t s = 0; s < SEEDS; s++)
        for (uint32_t rep = 0; rep < REPS; rep++)
            for (size_t i = 0; i < NAMES; i++, k++) {
                keys[k] = fs_rng_stream_seed(s, rep, names[i]);
                gsl_rng *r = fs_rng_create(s, rep, names[i]);
                assert_non_null(r);
                uint64_t hi = gsl_rng_get(r);
                heads[k] = (hi << 32) | (uint64_t)gsl_rng_get(r);
                fs_rng_destroy(r);
            }
    for (size_t i = 0; i < N; i++)
        for (size_t j = i + 1; j < N; j++) {
            assert_true(keys[i] != keys[j]);
            assert_true(heads[i] != heads[j]);
        }
    free(keys);
    free(heads);
}

static void test_streams_isolated(void **state)
{
    (void)state;
    enum { HALF = SEQ_LEN / 2 };
    static unsigned long alone[SEQ_LEN], mixed[SEQ_LEN];

    gsl_rng *a = fs_rng_create(9, 1, "service/chat");
    assert_non_null(a);
    fill(a, alone, SEQ_LEN);
    fs_rng_destroy(a);

    /* Same stream, but another stream is created and drawn from halfway. */
    a = fs_rng_create(9, 1, "service/chat");
    assert_non_null(a);
    fill(a, mixed, HALF);
    gsl_rng *b = fs_rng_create(9, 1, "arrivals/chat");
    assert_non_null(b);
    for (int i = 0; i < 12345; i++)
        (void)gsl_rng_uniform(b);
    gsl_rng *c = fs_rng_create(9, 1, "service/batch");
    assert_non_null(c);
    fill(a, mixed + HALF, SEQ_LEN - HALF);
    fs_rng_destroy(c);
    fs_rng_destroy(b);
    fs_rng_destroy(a);

    assert_int_equal(agreements(alone, mixed, SEQ_LEN), SEQ_LEN);
}

static double correlation(gsl_rng *x, gsl_rng *y, size_t n)
{
    double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
    for (size_t i = 0; i < n; i++) {
        double u = gsl_rng_uniform(x), v = gsl_rng_uniform(y);
        sx += u;
        sy += v;
        sxx += u * u;
        syy += v * v;
        sxy += u * v;
    }
    double cov = sxy / n - (sx / n) * (sy / n);
    double vx = sxx / n - (sx / n) * (sx / n);
    double vy = syy / n - (sy / n) * (sy / n);
    return cov / sqrt(vx * vy);
}

/* With 1e5 pairs the correlation of independent streams has sd ~0.0032, so
 * 0.02 is six sd: a failure means related streams, not bad luck. */
static void test_streams_uncorrelated(void **state)
{
    (void)state;
    static const struct {
        uint64_t s1;
        uint32_t r1;
        const char *n1;
        uint64_t s2;
        uint32_t r2;
        const char *n2;
    } pairs[] = {
        {1, 0, "arrivals/chat", 1, 0, "service/chat"},
        {1, 0, "arrivals/chat", 1, 1, "arrivals/chat"},
        {1, 0, "arrivals/chat", 2, 0, "arrivals/chat"},
        {0, 0, "a", 0, 0, "b"},
    };
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        gsl_rng *x = fs_rng_create(pairs[i].s1, pairs[i].r1, pairs[i].n1);
        gsl_rng *y = fs_rng_create(pairs[i].s2, pairs[i].r2, pairs[i].n2);
        assert_non_null(x);
        assert_non_null(y);
        double r = correlation(x, y, 100000);
        fs_rng_destroy(x);
        fs_rng_destroy(y);
        assert_true(fabs(r) < 0.02);
    }
}

/* sd of the mean of 1e6 uniforms is 0.00029; 0.002 is about seven sd. */
static void test_uniform_mean(void **state)
{
    (void)state;
    gsl_rng *r = fs_rng_create(2024, 0, "service/chat");
    assert_non_null(r);
    double sum = 0.0;
    for (int i = 0; i < 1000000; i++)
        sum += gsl_rng_uniform(r);
    fs_rng_destroy(r);
    assert_true(fabs(sum / 1e6 - 0.5) < 0.002);
}

/* A stream is small (thousands per run: two per service) and gives full
 * 32-bit words (the ziggurat reads them so). */
static void test_stream_small_full_words(void **state)
{
    (void)state;
    gsl_rng *r = fs_rng_create(18, 3, "service/chat");
    assert_non_null(r);
    assert_true(gsl_rng_size(r) <= 64);
    assert_int_equal(gsl_rng_min(r), 0);
    assert_true(gsl_rng_max(r) == UINT32_MAX);
    unsigned long high = 0;
    for (int i = 0; i < 1000; i++)
        high |= gsl_rng_get(r) & UINT32_C(0x80000000);
    assert_true(high != 0); /* the top bit is drawn too */
    fs_rng_destroy(r);
}

static void test_destroy_null(void **state)
{
    (void)state;
    fs_rng_destroy(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_key_same_sequence),
        cmocka_unit_test(test_different_keys_differ),
        cmocka_unit_test(test_hash_in_pieces),
        cmocka_unit_test(test_many_keys_distinct),
        cmocka_unit_test(test_streams_isolated),
        cmocka_unit_test(test_streams_uncorrelated),
        cmocka_unit_test(test_uniform_mean),
        cmocka_unit_test(test_stream_small_full_words),
        cmocka_unit_test(test_destroy_null),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

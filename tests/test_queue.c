/*
 * test_queue — the fleet's queue of waiting requests (models/fleet/queue.h)
 * against a plain array that does everything the slow, obvious way: insert
 * by walking back from the end, remove by shifting, find the next small
 * enough request by scanning.  Random operations on both (FIFO order and the
 * tiered lanes' order, gangs of 1 to 200 units, thousands of requests so
 * that the block and group minima are crossed) must leave the same live
 * requests in the same order, answer every "next request of at most k
 * units" alike, and count every holder's requests and units alike.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "queue.h"

static bool by_seq(const fs_request *a, const fs_request *b)
{
    return a->seq < b->seq;
}

static bool by_lane(const fs_request *a, const fs_request *b)
{
    return a->lane != b->lane ? a->lane < b->lane : a->seq < b->seq;
}

/* The oracle: live requests only, in order. */
typedef struct plain {
    fs_request items[6000];
    size_t n;
} plain;

static void plain_insert(plain *p, const fs_request *r, fs_queue_before before)
{
    size_t at = p->n;
    while (at > 0 && before(r, &p->items[at - 1]))
        at--;
    memmove(&p->items[at + 1], &p->items[at], (p->n - at) * sizeof *r);
    p->items[at] = *r;
    p->n++;
}

static uint64_t rng_state = 1;

static uint32_t draw(uint32_t n)
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (uint32_t)((rng_state >> 33) % n);
}

/* The k-th live slot of q (k < q->live). */
static size_t live_slot(const fs_queue *q, size_t k)
{
    for (size_t i = 0; i < q->n; i++)
        if (fs_queue_is_live(q, i) && k-- == 0)
            return i;
    fail_msg("no live slot %zu", k);
    return 0;
}

static void assert_same(fs_queue *q, const plain *p)
{
    assert_int_equal(q->live, p->n);
    size_t k = 0;
    for (size_t i = 0; i < q->n; i++) {
        if (!fs_queue_is_live(q, i))
            continue;
        assert_int_equal(q->items[i].seq, p->items[k].seq);
        k++;
    }
    const fs_request *first = fs_queue_first(q);
    if (p->n == 0)
        assert_null(first);
    else
        assert_int_equal(first->seq, p->items[0].seq);
    /* "The next request of at most `most` units" from a few places. */
    for (int t = 0; t < 8; t++) {
        uint32_t most = draw(4) == 0 ? UINT32_MAX : draw(40);
        size_t from = q->n ? draw((uint32_t)q->n + 1) : 0;
        size_t want = q->n;
        for (size_t i = from; i < q->n && want == q->n; i++)
            if (fs_queue_is_live(q, i) && q->items[i].units <= most)
                want = i;
        assert_int_equal(fs_queue_next(q, from, most), want);
    }
    for (uint32_t owner = 0; owner < 50; owner++) {
        uint32_t reqs = 0;
        uint64_t units = 0;
        for (size_t i = 0; i < p->n; i++)
            if (p->items[i].kind == FS_HOLDER_TRAINING && p->items[i].owner == owner) {
                reqs++;
                units += p->items[i].units;
            }
        assert_int_equal(fs_queue_owner_requests(q, FS_HOLDER_TRAINING, owner), reqs);
        assert_int_equal(fs_queue_owner_units(q, FS_HOLDER_TRAINING, owner), units);
    }
}

static void run_random(fs_queue_before before)
{
    static plain p;
    p.n = 0;
    fs_queue q;
    fs_queue_init(&q);
    uint64_t seq = 0;
    for (int step = 0; step < 40000; step++) {
        uint32_t op = draw(10);
        if (op < 6 && p.n < 5000) {
            /* Mostly small gangs, a few large: the minima must skip blocks. */
            uint32_t units = draw(10) == 0 ? 1 + draw(200) : 2 + draw(30);
            fs_request r = {.kind = FS_HOLDER_TRAINING, .owner = draw(50), .units = units,
                            .lane = (fs_lane)draw(3), .seq = seq++};
            size_t at;
            assert_int_equal(fs_queue_insert(&q, &r, before, &at), 0);
            assert_int_equal(q.items[at].seq, r.seq);
            plain_insert(&p, &r, before);
        } else if (op < 9 && p.n > 0) {
            size_t k = draw((uint32_t)p.n), i = live_slot(&q, k);
            if (op == 8)
                fs_queue_remove_shift(&q, i);
            else
                fs_queue_remove(&q, i);
            memmove(&p.items[k], &p.items[k + 1], (p.n - k - 1) * sizeof *p.items);
            p.n--;
        } else {
            fs_queue_tidy(&q);
            assert_true(q.n - q.live <= q.live || q.n <= 64);
        }
        if (step % 97 == 0)
            assert_same(&q, &p);
    }
    assert_same(&q, &p);
    fs_queue_compact(&q);
    assert_int_equal(q.n, q.live);
    assert_same(&q, &p);
    fs_queue_fini(&q);
}

static void test_fifo_matches_plain(void **state)
{
    (void)state;
    run_random(by_seq);
}

static void test_lanes_match_plain(void **state)
{
    (void)state;
    run_random(by_lane);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fifo_matches_plain),
        cmocka_unit_test(test_lanes_match_plain),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

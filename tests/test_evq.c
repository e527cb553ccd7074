/*
 * test_evq — the event queue's pop order against a plain reference.
 *
 * The reference keeps the events in an array and pops the least by (time,
 * key) with a linear scan: too slow for the engine, obviously right.  Each
 * case interleaves random pushes and pops (with many equal times and both
 * priorities, so ties are broken by priority, then by sequence) and checks
 * every popped event field by field, every peek, the length, and that the
 * slot scan sees exactly the queued events.  The cases cover the shapes the
 * queue takes: a queue growing to 30,000 events and draining (bucket count
 * doubling and halving), densities that change by orders of magnitude (the
 * width re-estimated), pushes before the last pop, equal times only, far-off,
 * zero, negative and infinite times, a small steady queue (the sorted
 * array), and one that crosses between sorted array and calendar again and
 * again.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "event.h"

typedef struct ref {
    fs_event *ev;
    size_t len, cap;
    uint64_t next_seq;
} ref;

static void ref_push(ref *r, double time, uint8_t priority, uint32_t kind, uint32_t arg, double data)
{
    if (r->len == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 64;
        r->ev = realloc(r->ev, r->cap * sizeof *r->ev);
        assert_non_null(r->ev);
    }
    r->ev[r->len++] = (fs_event){time, ((uint64_t)priority << FS_EVENT_PRIORITY_SHIFT) | r->next_seq++, kind, arg, data};
}

static size_t ref_least(const ref *r)
{
    size_t best = 0;
    for (size_t i = 1; i < r->len; i++) {
        const fs_event *a = &r->ev[i], *b = &r->ev[best];
        if (a->time < b->time || (a->time == b->time && a->key < b->key))
            best = i;
    }
    return best;
}

static fs_event ref_pop(ref *r)
{
    size_t i = ref_least(r);
    fs_event out = r->ev[i];
    r->ev[i] = r->ev[--r->len];
    return out;
}

/* splitmix64: the test's own stream, so it needs nothing but itself. */
static uint64_t rnd(uint64_t *s)
{
    uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

static double unif(uint64_t *s) { return (double)(rnd(s) >> 11) * 0x1p-53; }

static void same_event(const fs_event *a, const fs_event *b)
{
    assert_memory_equal(&a->time, &b->time, sizeof a->time);
    assert_true(a->key == b->key);
    assert_int_equal(a->kind, b->kind);
    assert_int_equal(a->arg, b->arg);
    assert_memory_equal(&a->data, &b->data, sizeof a->data);
}

/* The slot scan sees len events whose args sum to the reference's. */
static void same_contents(const fs_evq *q, const ref *r)
{
    size_t n = 0;
    uint64_t sum = 0, want = 0;
    for (size_t i = 0; i < fs_evq_slots(q); i++) {
        const fs_event *ev = fs_evq_slot(q, i);
        if (ev) {
            n++;
            sum += ev->arg;
        }
    }
    for (size_t i = 0; i < r->len; i++)
        want += r->ev[i].arg;
    assert_int_equal(n, r->len);
    assert_true(sum == want);
}

typedef double (*time_fn)(uint64_t *s, double now, size_t step);

/* Switches between sorted array and calendar seen by run_case, summed. */
static unsigned shape_switches;

typedef struct phase {
    size_t steps;
    double p_push; /* probability that a step pushes (else it pops) */
} phase;

/* Runs phases of random pushes and pops through both queues, comparing;
 * returns the most buckets the queue had, to show which shapes it took. */
static uint32_t run_case(uint64_t seed, time_fn next_time, const phase *phases, size_t n_phases)
{
    fs_evq q;
    ref r = {0};
    assert_int_equal(fs_evq_init(&q), 0);
    uint64_t s = seed;
    double now = 0;
    size_t step = 0;
    uint32_t arg = 0, most_buckets = 0;
    bool was_calendar = q.calendar;
    for (size_t p = 0; p < n_phases; p++) {
        for (size_t k = 0; k < phases[p].steps; k++, step++) {
            if (r.len == 0 || unif(&s) < phases[p].p_push) {
                double t = next_time(&s, now, step);
                uint8_t prio = (uint8_t)(rnd(&s) & 1);
                uint32_t kind = (uint32_t)(rnd(&s) % 7);
                double data = unif(&s);
                assert_int_equal(fs_evq_push(&q, t, prio, kind, arg, data), 0);
                ref_push(&r, t, prio, kind, arg, data);
                arg++;
            } else {
                const fs_event *peek = fs_evq_peek(&q);
                assert_non_null(peek);
                fs_event want = ref_pop(&r), got;
                same_event(peek, &want);
                if (step % 2) {
                    fs_evq_pop(&q, &got);
                } else {
                    /* The run loop's step: nothing before the earliest's
                     * time, then exactly it. */
                    size_t len = q.len;
                    assert_false(fs_evq_pop_until(&q, nextafter(want.time, -INFINITY), &got));
                    assert_int_equal(q.len, len);
                    assert_true(fs_evq_pop_until(&q, want.time, &got));
                }
                same_event(&got, &want);
                now = got.time;
            }
            assert_int_equal(q.len, r.len);
            most_buckets = q.nbuckets > most_buckets ? q.nbuckets : most_buckets;
            shape_switches += q.calendar != was_calendar;
            was_calendar = q.calendar;
            if (step % 997 == 0)
                same_contents(&q, &r);
        }
    }
    same_contents(&q, &r);
    while (r.len) {
        fs_event want = ref_pop(&r), got;
        fs_evq_pop(&q, &got);
        same_event(&got, &want);
    }
    assert_null(fs_evq_peek(&q));
    fs_event none;
    assert_false(fs_evq_pop_until(&q, INFINITY, &none)); /* empty */
    assert_false(q.calendar); /* drained: a sorted array again */
    fs_evq_fini(&q);
    free(r.ev);
    return most_buckets;
}

/* A departure-like future: now + an exponential of mean 10 ms, rounded to
 * 1 ms so that a third of the pushes tie with another event. */
static double exp_rounded(uint64_t *s, double now, size_t step)
{
    (void)step;
    double x = -0.010 * log1p(-unif(s));
    return now + floor(x * 1000) / 1000;
}

/* The density changes by a factor of 10^6 every 20,000 steps. */
static double density_shifts(uint64_t *s, double now, size_t step)
{
    double mean = (step / 20000) % 2 ? 1e-6 : 1.0;
    double x = -mean * log1p(-unif(s));
    return now + (rnd(s) % 4 == 0 ? 0 : x);
}

/* Anywhere in [0, 100): often before the last pop (the queue allows it; the
 * engine does not), on a grid of 0.5 s so ties are frequent. */
static double anywhere(uint64_t *s, double now, size_t step)
{
    (void)now;
    (void)step;
    return (double)(rnd(s) % 200) * 0.5;
}

/* One time for every event: order by priority, then sequence, alone. */
static double all_equal(uint64_t *s, double now, size_t step)
{
    (void)s;
    (void)now;
    (void)step;
    return 42.0;
}

/* Mostly near, with zeros, negatives, huge times and infinities mixed in. */
static double extremes(uint64_t *s, double now, size_t step)
{
    (void)step;
    switch (rnd(s) % 10) {
    case 0: return 0.0;
    case 1: return -1.0 - (double)(rnd(s) % 3);
    case 2: return 1e300 * (double)(1 + rnd(s) % 3);
    case 3: return INFINITY;
    case 4: return 1e18 + (double)(rnd(s) % 5) * 1e17;
    default: return now + unif(s) * 1e-3;
    }
}

static const phase grow_and_drain[] = {
    {60000, 0.75}, /* up to about 30,000 queued */
    {20000, 0.5},
    {70000, 0.3}, /* down to empty, then around zero */
    {20000, 0.55},
};

static void test_departures(void **state)
{
    (void)state;
    assert_true(run_case(1, exp_rounded, grow_and_drain, sizeof grow_and_drain / sizeof *grow_and_drain) >= 8192);
}

static void test_density_shifts(void **state)
{
    (void)state;
    const phase phases[] = {{100000, 0.52}, {40000, 0.45}};
    run_case(2, density_shifts, phases, 2);
}

static void test_anywhere(void **state)
{
    (void)state;
    assert_true(run_case(3, anywhere, grow_and_drain, sizeof grow_and_drain / sizeof *grow_and_drain) >= 8192);
}

static void test_all_equal(void **state)
{
    (void)state;
    const phase phases[] = {{6000, 0.7}, {6000, 0.4}};
    run_case(4, all_equal, phases, 2);
}

static void test_extremes(void **state)
{
    (void)state;
    const phase phases[] = {{8000, 0.6}, {8000, 0.45}};
    run_case(5, extremes, phases, 2);
}

/* Small queues, as in an M/M/c with few servers: a handful of events,
 * popped and pushed one for one for a long time. */
static void test_small_steady(void **state)
{
    (void)state;
    const phase phases[] = {{40, 1.0}, {200000, 0.5}};
    run_case(6, exp_rounded, phases, 2);
}

/* Up past FS_EVQ_SORTED_MAX and down below half of it, twenty times: each
 * crossing moves every event from one shape to the other, ties included. */
static void test_shape_switches(void **state)
{
    (void)state;
    phase phases[41] = {{FS_EVQ_SORTED_MAX / 2 - 2, 1.0}};
    for (size_t i = 1; i < 41; i += 2) {
        phases[i] = (phase){FS_EVQ_SORTED_MAX / 2 + 12, 1.0}; /* to FS_EVQ_SORTED_MAX + 10 */
        phases[i + 1] = (phase){FS_EVQ_SORTED_MAX / 2 + 12, 0.0}; /* back to half less 2 */
    }
    shape_switches = 0;
    run_case(7, exp_rounded, phases, 41);
    assert_int_equal(shape_switches, 40);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_departures),    cmocka_unit_test(test_density_shifts),
        cmocka_unit_test(test_anywhere),      cmocka_unit_test(test_all_equal),
        cmocka_unit_test(test_extremes),      cmocka_unit_test(test_small_steady),
        cmocka_unit_test(test_shape_switches),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

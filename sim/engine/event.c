#include "event.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

/* Fewer buckets than this are not worth the walks; more than this and the
 * bucket array alone would pass 4 GiB. */
#define FS__MIN_BUCKETS 16u
#define FS__MAX_BUCKETS (UINT32_C(1) << 30)
/* Events at the head whose gaps set the width (Brown samples about 25). */
#define FS__SAMPLE 32
/* Re-estimate the width when list steps and empty days walked average more
 * than this per push or pop since the last check. */
#define FS__WORK_PER_OP 2
/* The queue becomes a calendar above FS_EVQ_SORTED_MAX events (event.h)
 * and a sorted array again below FS__SORTED_AT; the gap keeps it from
 * switching back and forth. */
#define FS__SORTED_AT (FS_EVQ_SORTED_MAX / 2)
/* A calendar keeps between 4 and 16 buckets per event (8 when made), and a
 * day one mean gap between events at the head.  Brown's choice, one
 * bucket per event and a day of 3 gaps, puts a few events on each list and
 * walks them on every push; with days of one gap and most buckets empty a
 * push mostly finds its list empty and a pop walks about one empty day.
 * Measured with bench_evq (the hold model at 700 and 9,000 events): 24-26
 * ns per pop and push against 32-33 with Brown's below the old heap's 512
 * (sim/engine/README.md), and 28-32 with 2 to 8 buckets per event while
 * choosing; the buckets cost 16 to 64 bytes per event. */
#define FS__BUCKETS_PER_EVENT_MIN 4
#define FS__BUCKETS_PER_EVENT_MAX 16
#define FS__DAY_GAPS 1

/* The day of a time: monotone in the time (a product by a positive constant,
 * rounded, then truncated), which is all the order needs.  Times at or
 * below 0 (and NaN) are day 0; days past 2^62 share the last one, whose
 * bucket is still sorted, so far-off events stay in order. */
static inline uint64_t fs__day(const fs_evq *q, double t)
{
    double d = t * q->inv_width;
    if (!(d > 0))
        return 0;
    if (d >= 0x1p62)
        return UINT64_C(1) << 62;
    /* Through int64_t: d is in (0, 2^62) here, where the signed conversion
     * is one instruction and the unsigned one a compare and two paths. */
    return (uint64_t)(int64_t)d;
}

/* Links slot s into its day's bucket after every event that comes before
 * it; returns the steps taken. */
static inline uint64_t fs__link(fs_evq *q, uint32_t s, uint64_t day)
{
    uint32_t *at = &q->bucket[day & (q->nbuckets - 1)];
    uint64_t steps = 0;
    while (*at != FS__EVQ_NIL && !fs__evq_before(&q->pool[s], &q->pool[*at])) {
        at = &q->next[*at];
        steps++;
    }
    q->next[s] = *at;
    *at = s;
    return steps;
}

/* Moves q->day to the earliest event's day and returns its slot, the head of
 * that day's bucket.  Invariant: no queued event is on a day before q->day,
 * so a bucket whose head is not on q->day holds nothing on q->day (a bucket
 * is sorted and days are monotone) and the walk may pass it.  After a whole
 * year of empty days it jumps: the earliest of the bucket heads. */
static uint32_t fs__settle(fs_evq *q)
{
    uint32_t mask = q->nbuckets - 1;
    for (uint32_t walked = 0; walked < q->nbuckets; walked++) {
        uint32_t h = q->bucket[q->day & mask];
        if (h != FS__EVQ_NIL && fs__day(q, q->pool[h].time) == q->day) {
            q->work += walked;
            return h;
        }
        q->day++;
    }
    uint32_t best = FS__EVQ_NIL;
    for (uint32_t b = 0; b < q->nbuckets; b++) {
        uint32_t h = q->bucket[b];
        if (h != FS__EVQ_NIL && (best == FS__EVQ_NIL || fs__evq_before(&q->pool[h], &q->pool[best])))
            best = h;
    }
    assert(best != FS__EVQ_NIL);
    q->day = fs__day(q, q->pool[best].time);
    q->work += 2 * (uint64_t)q->nbuckets;
    return best;
}

/* The width from the first events' gaps.  Brown takes 3 x their mean gap,
 * after dropping gaps over twice the mean; but a small queue mixes a few
 * near events (arrivals, departures: milliseconds apart) with far ones
 * (window ticks: minutes), and there a couple of long gaps set the mean and
 * every near event ends up on one day, one sorted list.  So this takes the
 * dense part: FS__DAY_GAPS x the mean of the gaps at most twice the median
 * gap (Brown's 3 x with his one bucket per event; 1 x with the buckets
 * above).  Equal
 * times (zero gaps) land on one day whatever the width, so they say nothing
 * and are left out.  Keeps the old width when the gaps say nothing (fewer
 * than two distinct finite times). */
static double fs__inv_width(double old_inv, const double *t, size_t n)
{
    double gaps[FS__SAMPLE];
    size_t m = 0;
    for (size_t i = 1; i < n; i++) {
        double g = t[i] - t[i - 1];
        if (isfinite(g) && g > 0) {
            /* Insertion sort: at most 31 gaps. */
            size_t j = m++;
            for (; j > 0 && gaps[j - 1] > g; j--)
                gaps[j] = gaps[j - 1];
            gaps[j] = g;
        }
    }
    if (m == 0)
        return old_inv;
    double limit = 2 * gaps[(m - 1) / 2], sum = 0;
    size_t kept = 0;
    for (; kept < m && gaps[kept] <= limit; kept++)
        sum += gaps[kept];
    double inv = 1 / (FS__DAY_GAPS * sum / (double)kept);
    return isfinite(inv) && inv > 0 ? inv : old_inv;
}

/* Redistributes every event over `nbuckets` new buckets with a width
 * re-estimated from the head.  O(events + buckets).  Out of memory, it
 * changes nothing: the queue stays correct, only slower. */
static void fs__rebuild(fs_evq *q, uint32_t nbuckets)
{
    uint32_t *fresh = malloc((size_t)nbuckets * sizeof *fresh);
    if (!fresh)
        return;
    /* Take the earliest events out, in order, to measure their gaps. */
    uint32_t head[FS__SAMPLE];
    size_t n = 0;
    size_t left = q->len;
    while (n < FS__SAMPLE && left > 0) {
        uint32_t s = fs__settle(q);
        q->bucket[q->day & (q->nbuckets - 1)] = q->next[s];
        head[n++] = s;
        left--;
    }
    double times[FS__SAMPLE];
    for (size_t i = 0; i < n; i++)
        times[i] = q->pool[head[i]].time;
    double inv = fs__inv_width(q->inv_width, times, n);
    uint32_t *old = q->bucket, old_n = q->nbuckets;
    for (uint32_t b = 0; b < nbuckets; b++)
        fresh[b] = FS__EVQ_NIL;
    q->bucket = fresh;
    q->nbuckets = nbuckets;
    q->inv_width = inv;
    for (uint32_t b = 0; b < old_n; b++) {
        for (uint32_t s = old[b]; s != FS__EVQ_NIL;) {
            uint32_t after = q->next[s];
            fs__link(q, s, fs__day(q, q->pool[s].time));
            s = after;
        }
    }
    free(old);
    for (size_t i = 0; i < n; i++)
        fs__link(q, head[i], fs__day(q, q->pool[head[i]].time));
    if (n > 0)
        q->day = fs__day(q, q->pool[head[0]].time);
    q->work = q->ops = 0;
}

/* Puts slots [from, to) on the free list. */
static void fs__free_slots(fs_evq *q, size_t from, size_t to)
{
    for (size_t i = to; i-- > from;) {
        q->pool[i].kind = FS__EVQ_FREE;
        q->next[i] = q->free_head;
        q->free_head = (uint32_t)i;
    }
}

/* Calendar to sorted array: the calendar hands its events back in pop
 * order (fewer than FS__SORTED_AT of them), stored latest first. */
static void fs__to_sorted(fs_evq *q)
{
    fs_event sorted[FS__SORTED_AT];
    size_t n = 0;
    assert(q->len <= FS__SORTED_AT);
    while (n < q->len) {
        uint32_t s = fs__settle(q);
        q->bucket[q->day & (q->nbuckets - 1)] = q->next[s];
        sorted[n++] = q->pool[s];
    }
    for (size_t i = 0; i < n; i++)
        q->pool[i] = sorted[n - 1 - i];
    free(q->bucket);
    q->bucket = NULL;
    q->nbuckets = 0;
    q->calendar = false;
    q->work = q->ops = 0;
}

/* Sorted array to calendar: the width from the earliest events' gaps (the
 * array's end), then every event linked into its bucket.  Out of memory,
 * the queue stays a sorted array. */
static void fs__to_calendar(fs_evq *q)
{
    uint32_t nbuckets = FS__MIN_BUCKETS;
    while (nbuckets < 2 * FS__BUCKETS_PER_EVENT_MIN * q->len)
        nbuckets *= 2;
    uint32_t *fresh = malloc((size_t)nbuckets * sizeof *fresh);
    if (!fresh)
        return;
    double times[FS__SAMPLE];
    size_t n = 0, len = q->len;
    for (; n < FS__SAMPLE && n < len; n++)
        times[n] = q->pool[len - 1 - n].time;
    q->inv_width = fs__inv_width(q->inv_width, times, n);
    for (uint32_t b = 0; b < nbuckets; b++)
        fresh[b] = FS__EVQ_NIL;
    q->bucket = fresh;
    q->nbuckets = nbuckets;
    q->calendar = true;
    q->free_head = FS__EVQ_NIL;
    fs__free_slots(q, len, q->cap);
    for (size_t i = 0; i < len; i++)
        fs__link(q, (uint32_t)i, fs__day(q, q->pool[i].time));
    q->day = fs__day(q, times[0]);
    q->work = q->ops = 0;
}

/* Called after each calendar push and pop: a queue that has shrunk goes
 * back to a sorted array, the bucket count follows the event count
 * (doubling below FS__BUCKETS_PER_EVENT_MIN per event, halving above
 * FS__BUCKETS_PER_EVENT_MAX), and long walks
 * re-estimate the width.  A check costs O(events + buckets) and comes at
 * most once per max(1024, events) operations, so it is O(1) amortised. */
static inline void fs__adapt(fs_evq *q)
{
    if (q->len < FS__SORTED_AT)
        fs__to_sorted(q);
    else if (q->nbuckets < FS__BUCKETS_PER_EVENT_MIN * q->len && q->nbuckets < FS__MAX_BUCKETS)
        fs__rebuild(q, 2 * q->nbuckets);
    else if (q->nbuckets > FS__MIN_BUCKETS && q->nbuckets > FS__BUCKETS_PER_EVENT_MAX * q->len)
        fs__rebuild(q, q->nbuckets / 2);
    else if (q->ops >= 1024 && q->ops >= q->len) {
        if (q->work > FS__WORK_PER_OP * q->ops)
            fs__rebuild(q, q->nbuckets);
        else
            q->work = q->ops = 0;
    }
}

int fs_evq_init(fs_evq *q)
{
    *q = (fs_evq){0};
    q->cap = 64;
    q->inv_width = 1000; /* 1 ms days until the first estimate */
    q->free_head = FS__EVQ_NIL;
    q->pool = malloc(q->cap * sizeof *q->pool);
    q->next = malloc(q->cap * sizeof *q->next);
    if (!q->pool || !q->next) {
        fs_evq_fini(q);
        return ENOMEM;
    }
    return 0;
}

void fs_evq_fini(fs_evq *q)
{
    free(q->pool);
    free(q->next);
    free(q->bucket);
    *q = (fs_evq){0};
}

/* Doubles the pool; on failure the queue is as it was (a grown pool array
 * beside an old next array only has unused room).  New slots go on the
 * calendar's free list; the sorted array uses [0, len) and needs none. */
static int fs__grow_pool(fs_evq *q)
{
    if (q->cap >= FS__EVQ_NIL / 2)
        return ENOMEM;
    size_t cap = 2 * q->cap;
    fs_event *pool = realloc(q->pool, cap * sizeof *pool);
    if (!pool)
        return ENOMEM;
    q->pool = pool;
    uint32_t *next = realloc(q->next, cap * sizeof *next);
    if (!next)
        return ENOMEM;
    q->next = next;
    if (q->calendar)
        fs__free_slots(q, q->cap, cap);
    q->cap = cap;
    return 0;
}

int fs__evq_push_slow(fs_evq *q, const fs_event *ev)
{
    assert(ev->kind != FS__EVQ_FREE);
    if (!q->calendar) {
        /* The array is full (grow it) or at FS_EVQ_SORTED_MAX (then a
         * calendar): the inline push's two exceptions. */
        if (q->len == q->cap && fs__grow_pool(q) != 0)
            return ENOMEM;
        q->next_seq++;
        fs__evq_sorted_insert(q, ev);
        if (q->len > FS_EVQ_SORTED_MAX)
            fs__to_calendar(q);
        return 0;
    }
    if (q->free_head == FS__EVQ_NIL && fs__grow_pool(q) != 0)
        return ENOMEM;
    q->next_seq++;
    uint32_t s = q->free_head;
    q->free_head = q->next[s];
    q->pool[s] = *ev;
    uint64_t day = fs__day(q, ev->time);
    /* Keep the invariant: no event before the current day. */
    if (day < q->day)
        q->day = day;
    q->work += fs__link(q, s, day);
    q->len++;
    q->ops++;
    fs__adapt(q);
    return 0;
}

const fs_event *fs__evq_peek_calendar(fs_evq *q) { return &q->pool[fs__settle(q)]; }

/* Takes calendar slot s, the settled earliest event, out of the queue. */
static void fs__calendar_take(fs_evq *q, uint32_t s, fs_event *out)
{
    q->bucket[q->day & (q->nbuckets - 1)] = q->next[s];
    *out = q->pool[s];
    q->pool[s].kind = FS__EVQ_FREE;
    q->next[s] = q->free_head;
    q->free_head = s;
    q->len--;
    q->ops++;
    fs__adapt(q);
}

void fs__evq_pop_calendar(fs_evq *q, fs_event *out)
{
    assert(q->len > 0 && q->calendar);
    fs__calendar_take(q, fs__settle(q), out);
}

bool fs__evq_pop_until_calendar(fs_evq *q, double until, fs_event *out)
{
    if (!q->len)
        return false;
    /* One settle for the look and the take: the run loop's every event. */
    uint32_t s = fs__settle(q);
    if (q->pool[s].time > until)
        return false;
    fs__calendar_take(q, s, out);
    return true;
}

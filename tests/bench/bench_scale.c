/*
 * bench_scale — does the cost of an event stay flat as the model grows?
 * (issue 18: per-event cost flat within 1.5x from 10 to 10,000 GPUs, one
 * service or 1,000 services of 10 replicas, and from 10 to 100,000 pending.)
 *
 * Three ladders, each step doubling one dimension and holding the rest:
 *   fleet     one service on G GPUs (G replicas), G = 10 .. 10,240, at
 *             utilization 0.8 (Poisson arrivals, exponential 10 ms service);
 *   services  S services of 10 replicas on one pool of 10 S GPUs, S = 1 ..
 *             512 and 1,000, each at utilization 0.8;
 *   queue     one service of 10 replicas offered twice its capacity, with a
 *             queue_limit of Q = 10 .. 163,840, so the queue sits at Q
 *             (after filling at 1,000 requests/s) and the excess is dropped.
 * Every step offers about the same number of requests (the horizon shrinks
 * as the rate grows; with the default 2 million the queue ladder's run is
 * long enough to reach every Q, and a nonzero "dropped" shows it did), runs
 * the full product path (parse -> engine -> results) in a child process so
 * each peak RSS is its own, and prints wall ns per engine event, M
 * requests/s and peak RSS, then the ladder's last / first ns per event.
 *
 * On the fleet and services ladders each step is followed, in the same
 * child, by a speed-of-light loop (bench_mmc's idea, carried to many
 * services): the least work a bare C program must do to simulate the same
 * S independent M/M/c queues over the same horizon and report a p99 per
 * service.  It draws from the engine's own named streams ("arrivals/sI",
 * "service/sI") through the same sampler, so it sees the very arrivals and
 * service times the engine does (its events equal the engine's but for the
 * engine's few window ticks; its mean response, "SOL mean ms", is Erlang
 * C's 12.05 ms at 10 replicas), keeps one FIFO and busy count per service,
 * one future-event list for all (run on a binary heap and on a calendar
 * queue, the faster kept and starred: see SOL_HEAP), and records every
 * completion into one fs_hist per service, as any simulator reporting a p99
 * per service must keep at least one histogram per service (the engine
 * keeps more).  It prints the loop's ns per event on each list and engine /
 * speed-of-light, and ends each ladder with the loop's last / first beside
 * the engine's, with the ns per event each added.  On the services ladder a
 * one-state control (the same S arrival streams into ONE queue of 10 S
 * servers) carries the same event-list traffic with one service's state, so
 * the loop's added ns split into the event list's and the per-service
 * state's: what any implementation keeping that state pays on this machine
 * (the memory hierarchy), against what the engine pays.  Figures only: it
 * fails only when a run fails.
 *
 *   bench_scale              2 million requests per step
 *   bench_scale N            N requests per step (smaller: a quicker look)
 *   bench_scale N LADDER     one ladder: fleet, services or queue
 */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "dist.h"
#include "hist.h"
#include "nhpp.h"
#include "rng.h"

#define MEAN_SERVICE_S 0.010
#define REPLICA_RPS (1.0 / MEAN_SERVICE_S)
#define SEED 18

/* What a speed-of-light loop measured: arrivals, events handled (arrivals +
 * departures), wall seconds, and the mean response time of its completions
 * (Erlang C gives 12.05 ms for one M/M/10 at utilization 0.8; shorter with
 * more servers). */
typedef struct sol_figures {
    double requests, events, wall_s, mean_s;
} sol_figures;

typedef struct step_result {
    double requests, dropped, events, wall_s, peak_rss_mb;
    /* When run: the speed-of-light loop on each event list (indexed
     * SOL_HEAP, SOL_CALENDAR), which of them was faster, and the one-state
     * control on that one. */
    sol_figures sol[2], one_state;
    int sol_kind;
    int ok;
} step_result;

enum { SOL_NONE, SOL_LOOP, SOL_AND_ONE_STATE };

typedef struct step_arg {
    int services, replicas;
    double load;
    long queue_limit;
    double requests;
    int sol; /* SOL_NONE, ... */
} step_arg;

/* A step's arrival rate per service and its horizon, rounded to the six
 * decimals its scenario's JSON carries, so that the speed-of-light loop runs
 * the very arrival process the engine parsed. */
static double six_places(double x) { return round(x * 1e6) / 1e6; }
static double step_rps(const step_arg *a) { return six_places(a->load * a->replicas * REPLICA_RPS); }
static double step_horizon(const step_arg *a) { return six_places(a->requests / (step_rps(a) * a->services)); }

/* A growing JSON text; a failed grow leaves ok = 0 and the rest is dropped. */
typedef struct text {
    char *buf;
    size_t len, cap;
    int ok;
} text;

static void put(text *t, const char *fmt, ...)
{
    for (;;) {
        if (!t->ok)
            return;
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
        va_end(ap);
        if (n < 0) {
            t->ok = 0;
            return;
        }
        if ((size_t)n < t->cap - t->len) {
            t->len += (size_t)n;
            return;
        }
        size_t cap = 2 * t->cap + (size_t)n;
        char *bigger = realloc(t->buf, cap);
        if (bigger == NULL) {
            t->ok = 0;
            return;
        }
        t->buf = bigger;
        t->cap = cap;
    }
}

/* a->services services of a->replicas replicas each on one pool, each
 * offered a->load x its capacity, with queue_limit a->queue_limit (< 0:
 * none), over the horizon that offers about a->requests requests in all. */
static char *scenario_json(const step_arg *a)
{
    text t = {malloc(4096), 0, 4096, 1};
    if (t.buf == NULL)
        return NULL;
    put(&t,
        "{\"schema\": \"fleetsim/1\", \"name\": \"bench-scale\", \"horizon\": %.6f, \"seed\": %d,"
        " \"pools\": [{\"name\": \"p\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": %d}], \"services\": [",
        step_horizon(a), SEED, a->services * a->replicas);
    for (int i = 0; i < a->services; i++) {
        put(&t,
            "%s{\"name\": \"s%d\", \"arrivals\": {\"poisson_rps\": %.6f},"
            " \"service_time\": {\"exponential\": {\"mean\": \"%.0fms\"}}, \"replicas\": %d",
            i ? ", " : "", i, step_rps(a), MEAN_SERVICE_S * 1e3, a->replicas);
        if (a->queue_limit >= 0)
            put(&t, ", \"queue_limit\": %ld", a->queue_limit);
        put(&t, "}");
    }
    put(&t, "]}");
    if (!t.ok) {
        free(t.buf);
        return NULL;
    }
    return t.buf;
}

static step_result run_step(const char *json)
{
    step_result out = {0};
    fs_scenario *s;
    fs_results *r = bench_run_json(json, "bench_scale", &s, &out.wall_s);
    if (r == NULL)
        return out;
    for (size_t i = 0; i < s->n_services; i++) {
        out.requests += (double)r->policies[0].reps[0].services[i].requests;
        out.dropped += (double)r->policies[0].reps[0].services[i].dropped;
    }
    out.events = (double)r->events;
    out.peak_rss_mb = bench_peak_rss_mb();
    out.ok = 1;
    fs_results_destroy(r);
    fs_scenario_destroy(s);
    return out;
}

/* ---- the speed-of-light loop -------------------------------------------- */

/* A pending event: an arrival, or a departure carrying its request's arrival
 * time (service is FIFO but departures are not, so the latency's start has
 * to travel with the departure).  24 bytes; the engine's are 32. */
typedef struct sol_event {
    double t, arrived;
    uint32_t next; /* the calendar's link: the next event of its bucket, or SOL_NIL */
    uint32_t service : 31, departure : 1;
} sol_event;

#define SOL_NIL UINT32_MAX

/* The future-event list, one for all services: any simulator of S
 * independent streams must interleave them in time.  Either of the two the
 * engine itself uses (sim/engine/README.md, "The event queue"), each in its
 * least form; the loop runs on both and keeps the faster, because neither is
 * the cheaper at every size, and a lower bound must not charge one
 * structure's weak end to the model:
 *   SOL_HEAP      a binary min-heap on time, sifted by hand, an event and
 *                 the one it schedules in one sift: the cheaper with tens of
 *                 events pending, but O(log n), and with the services
 *                 ladder's 9,000 pending (the arrivals of 1,000 streams land
 *                 deep, not at the top) it measured 3.6-3.8x its
 *                 one-service figure (the "heap ns/ev" column);
 *   SOL_CALENDAR  a calendar queue (R. Brown, CACM 31(10), 1988), O(1) per
 *                 event, sized once from what the loop knows of its model
 *                 and never resized (the engine's adapts): SOL_BUCKETS_PER
 *                 buckets per event that can be pending and days of
 *                 SOL_DAY_EVENTS mean gaps between events (the best of
 *                 2, 4 and 8 by 0.5, 1 and 2 on the services ladder, within
 *                 a few ns of each other), each bucket a list sorted by
 *                 time. */
enum { SOL_HEAP, SOL_CALENDAR };

#define SOL_BUCKETS_PER 4
#define SOL_DAY_EVENTS 1.0

typedef struct sol_fel {
    int kind;         /* SOL_HEAP, ... */
    sol_event *ev;    /* the heap; the calendar's events, queued or free, linked through next */
    uint32_t *bucket; /* calendar: the head of each bucket's list */
    uint32_t mask;    /* calendar: buckets - 1 */
    uint32_t free;    /* calendar: the free events' list */
    double per_day;   /* calendar: days per second */
    uint64_t day;     /* calendar: the day sol_fel_first has reached; no event is earlier */
    size_t n;
} sol_fel;

static uint64_t sol_day(const sol_fel *q, double t) { return (uint64_t)(t * q->per_day); }

/* A list for at most `cap` events handled at `events_per_s` on average; 0,
 * or -1 when out of memory (sol_fel_fini then still frees what was got). */
static int sol_fel_init(sol_fel *q, int kind, uint32_t cap, double events_per_s)
{
    *q = (sol_fel){.kind = kind, .ev = malloc((size_t)cap * sizeof *q->ev)};
    if (q->ev == NULL)
        return -1;
    if (kind == SOL_HEAP)
        return 0;
    uint32_t buckets = 1;
    while (buckets < (uint64_t)cap * SOL_BUCKETS_PER)
        buckets *= 2;
    q->bucket = malloc((size_t)buckets * sizeof *q->bucket);
    if (q->bucket == NULL)
        return -1;
    q->mask = buckets - 1;
    q->per_day = events_per_s / SOL_DAY_EVENTS;
    for (uint32_t i = 0; i < cap; i++)
        q->ev[i].next = i + 1 < cap ? i + 1 : SOL_NIL;
    for (uint32_t i = 0; i < buckets; i++)
        q->bucket[i] = SOL_NIL;
    return 0;
}

static void sol_fel_fini(sol_fel *q)
{
    free(q->ev);
    free(q->bucket);
}

/* Queues x, at or after the earliest event; there is room by construction
 * (the loop never has more than cap events pending). */
static inline void sol_fel_push(sol_fel *q, sol_event x)
{
    if (q->kind == SOL_HEAP) {
        sol_event *h = q->ev;
        size_t i = q->n++;
        while (i > 0 && h[(i - 1) / 2].t > x.t) {
            h[i] = h[(i - 1) / 2];
            i = (i - 1) / 2;
        }
        h[i] = x;
        return;
    }
    uint32_t k = q->free, *link = &q->bucket[sol_day(q, x.t) & q->mask];
    q->free = q->ev[k].next;
    while (*link != SOL_NIL && q->ev[*link].t <= x.t)
        link = &q->ev[*link].next;
    x.next = *link;
    q->ev[k] = x;
    *link = k;
    q->n++;
}

/* The earliest event; q->n > 0.  The calendar walks day by day to the day
 * that holds it, and stays there; after a whole year of empty days (rare:
 * there are more buckets than events) it jumps to the earliest head's. */
static inline sol_event sol_fel_first(sol_fel *q)
{
    if (q->kind == SOL_HEAP)
        return q->ev[0];
    for (uint32_t walked = 0;; walked++) {
        uint32_t head = q->bucket[q->day & q->mask];
        if (head != SOL_NIL && sol_day(q, q->ev[head].t) == q->day)
            return q->ev[head];
        if (walked > q->mask) {
            double t = INFINITY;
            for (uint32_t i = 0; i <= q->mask; i++)
                if (q->bucket[i] != SOL_NIL && q->ev[q->bucket[i]].t < t)
                    t = q->ev[q->bucket[i]].t;
            q->day = sol_day(q, t);
            walked = 0;
            continue;
        }
        q->day++;
    }
}

/* Sifts x down from the root of the heap h[0 .. n).  On locals: stores
 * into the events could alias the list's own fields, so the compiler would
 * reload them at every step. */
static inline void sol_heap_sift(sol_event *h, size_t n, sol_event x)
{
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && h[c + 1].t < h[c].t)
            c++;
        if (h[c].t >= x.t)
            break;
        h[i] = h[c];
        i = c;
    }
    h[i] = x;
}

/* Removes the earliest event, just returned by sol_fel_first. */
static inline void sol_fel_remove(sol_fel *q)
{
    if (q->kind == SOL_HEAP) {
        q->n--;
        sol_heap_sift(q->ev, q->n, q->ev[q->n]);
        return;
    }
    uint32_t *head = &q->bucket[q->day & q->mask], k = *head;
    *head = q->ev[k].next;
    q->ev[k].next = q->free;
    q->free = k;
    q->n--;
}

/* Removes the earliest event, just returned by sol_fel_first, and queues x:
 * on the heap one sift instead of two, since most events schedule one. */
static inline void sol_fel_replace(sol_fel *q, sol_event x)
{
    if (q->kind == SOL_HEAP) {
        sol_heap_sift(q->ev, q->n, x);
        return;
    }
    sol_fel_remove(q);
    sol_fel_push(q, x);
}

/* What one M/M/c needs and nothing more: its two streams (as the engine's,
 * separate per service), the FIFO of waiting arrival times (a ring, its
 * capacity a power of two), its busy count and its latency histogram. */
typedef struct sol_service {
    fs_nhpp arrivals;
    gsl_rng *ra, *rs;
    double *fifo;
    uint32_t head, len, cap, busy;
    fs_hist latency;
} sol_service;

static int sol_fifo_push(sol_service *s, double arrived)
{
    if (s->len == s->cap) { /* grow the ring, unrolling it to start at 0 */
        double *bigger = malloc(2 * (size_t)s->cap * sizeof *bigger);
        if (bigger == NULL)
            return -1;
        for (uint32_t i = 0; i < s->len; i++)
            bigger[i] = s->fifo[(s->head + i) & (s->cap - 1)];
        free(s->fifo);
        s->fifo = bigger;
        s->head = 0;
        s->cap *= 2;
    }
    s->fifo[(s->head + s->len++) & (s->cap - 1)] = arrived;
    return 0;
}

/* Where the loop's p99s go: written, so the compiler must compute them. */
static volatile double sol_sink;

static double constant_rate(void *ctx, double t, double *piece_end)
{
    (void)t;
    *piece_end = INFINITY;
    return *(const double *)ctx;
}

/* Simulates a's S services of a->replicas servers up to a's horizon on the
 * event list `kind`, as the engine does (events after the horizon are left
 * pending), then takes each service's p99: returns 0 and fills *out, or -1
 * when out of memory.  Only the loop and the p99s are timed, not building
 * the streams (the engine's wall time includes building its model, so the
 * ratio leans, if anything, toward the engine).
 *
 * one_state is the control that tells the event list's growth from the
 * per-service state's: the same S arrival streams feed ONE queue of S x
 * replicas servers with one FIFO, one histogram and one pair of streams.
 * Its event list carries the same traffic as the S services' (S arrivals
 * and about utilization x replicas x S departures pending, at the same
 * rate), but its state is one service's and stays in L1. */
static inline __attribute__((always_inline)) int sol_run(const step_arg *a, int kind, int one_state,
                                                         sol_figures *out)
{
    uint32_t n_streams = (uint32_t)a->services, n_state = one_state ? 1 : n_streams;
    uint32_t c = (uint32_t)a->replicas * (one_state ? n_streams : 1);
    double rate = step_rps(a), horizon = step_horizon(a);
    fs_dist service;
    fs_dist_exponential(&service, MEAN_SERVICE_S);
    sol_service *svc = calloc(n_state, sizeof *svc);
    sol_fel q = {0};
    /* Pending: a next arrival per stream and a departure per busy server. */
    int ok = svc != NULL &&
             sol_fel_init(&q, kind, n_streams * ((uint32_t)a->replicas + 1), 2.0 * rate * n_streams) == 0;
    for (uint32_t i = 0; ok && i < n_state; i++) {
        sol_service *s = &svc[i];
        char name[64];
        fs_nhpp_init(&s->arrivals, constant_rate, &rate);
        snprintf(name, sizeof name, "arrivals/s%u", i);
        s->ra = fs_rng_create(SEED, 0, name);
        snprintf(name, sizeof name, "service/s%u", i);
        s->rs = fs_rng_create(SEED, 0, name);
        s->cap = 16;
        s->fifo = malloc(s->cap * sizeof *s->fifo);
        fs_hist_init(&s->latency);
        ok = s->ra != NULL && s->rs != NULL && s->fifo != NULL;
    }
    double t0 = bench_now_s(), requests = 0.0, events = 0.0, p99_sum = 0.0, latency_sum = 0.0;
    for (uint32_t i = 0; ok && i < n_streams; i++) {
        sol_service *s = &svc[one_state ? 0 : i];
        double next = fs_nhpp_next(&s->arrivals, 0.0, horizon, s->ra);
        if (next <= horizon)
            sol_fel_push(&q, (sol_event){.t = next, .service = i});
    }
    while (ok && q.n > 0) {
        sol_event e = sol_fel_first(&q);
        if (e.t > horizon)
            break; /* as the engine: what is left stays pending */
        sol_service *s = &svc[one_state ? 0 : e.service];
        events += 1.0;
        if (e.departure) {
            ok = fs_hist_record(&s->latency, (uint64_t)((e.t - e.arrived) * 1e9 + 0.5)) == 0;
            if (s->len > 0) { /* the server takes the oldest waiting request */
                double arrived = s->fifo[s->head];
                s->head = (s->head + 1) & (s->cap - 1);
                s->len--;
                sol_fel_replace(&q, (sol_event){.t = e.t + fs_dist_sample(&service, s->rs), .arrived = arrived,
                                                .service = e.service, .departure = 1});
            } else {
                s->busy--;
                sol_fel_remove(&q);
            }
            continue;
        }
        requests += 1.0;
        double next = fs_nhpp_next(&s->arrivals, e.t, horizon, s->ra);
        if (next <= horizon)
            sol_fel_replace(&q, (sol_event){.t = next, .service = e.service});
        else
            sol_fel_remove(&q);
        if (s->busy < c) {
            s->busy++;
            sol_fel_push(&q, (sol_event){.t = e.t + fs_dist_sample(&service, s->rs), .arrived = e.t,
                                         .service = e.service, .departure = 1});
        } else {
            ok = sol_fifo_push(s, e.t) == 0;
        }
    }
    for (uint32_t i = 0; ok && i < n_state; i++) {
        p99_sum += fs_hist_quantile(&svc[i].latency, 0.99); /* the figure a run reports per service */
        latency_sum += svc[i].latency.sum_ns;
    }
    *out = (sol_figures){requests, events, bench_now_s() - t0, 1e-9 * latency_sum / (events - requests)};
    sol_sink = p99_sum; /* a use of the p99s, so that they are computed */
    for (uint32_t i = 0; svc != NULL && i < n_state; i++) {
        fs_rng_destroy(svc[i].ra);
        fs_rng_destroy(svc[i].rs);
        free(svc[i].fifo);
        fs_hist_fini(&svc[i].latency);
    }
    free(svc);
    sol_fel_fini(&q);
    return ok ? 0 : -1;
}

/* sol_run with its event list's kind a constant in each copy, so that
 * neither list pays for the other's branches (2 ns an event on the heap). */
static int speed_of_light(const step_arg *a, int kind, int one_state, sol_figures *out)
{
    return kind == SOL_HEAP ? sol_run(a, SOL_HEAP, one_state, out) : sol_run(a, SOL_CALENDAR, one_state, out);
}

/* One ladder: its name, what it holds, its column, and the shape of the
 * scenario at each value x of the column. */
typedef struct ladder {
    const char *name, *what, *column;
    long x[16];
    size_t n;
    int x_is; /* which parameter x sets (X_GPUS, ...) */
} ladder;

enum { X_GPUS, X_SERVICES, X_QUEUE };

/* bench_in_child's step: build the scenario and run it, then (the engine's
 * model freed) the speed-of-light loop where asked. */
static int step(const void *arg, void *result)
{
    const step_arg *a = arg;
    step_result *out = result;
    char *json = scenario_json(a);
    *out = json ? run_step(json) : (step_result){0};
    free(json);
    if (a->sol == SOL_NONE || !out->ok)
        return out->ok;
    out->ok = speed_of_light(a, SOL_HEAP, 0, &out->sol[SOL_HEAP]) == 0 &&
              speed_of_light(a, SOL_CALENDAR, 0, &out->sol[SOL_CALENDAR]) == 0;
    out->sol_kind = out->sol[SOL_CALENDAR].wall_s < out->sol[SOL_HEAP].wall_s ? SOL_CALENDAR : SOL_HEAP;
    if (out->ok && a->sol == SOL_AND_ONE_STATE)
        out->ok = speed_of_light(a, out->sol_kind, 1, &out->one_state) == 0;
    return out->ok;
}

static step_arg shape(const ladder *l, long x, double requests)
{
    switch (l->x_is) {
    case X_GPUS:
        return (step_arg){1, (int)x, 0.8, -1, requests, SOL_LOOP}; /* one service: one state already */
    case X_SERVICES:
        return (step_arg){(int)x, 10, 0.8, -1, requests, SOL_AND_ONE_STATE};
    default: /* drops, which the speed-of-light loop does not model */
        return (step_arg){1, 10, 2.0, x, requests, SOL_NONE};
    }
}

/* ns per event of a speed-of-light figure */
static double sol_ns(const sol_figures *f) { return 1e9 * f->wall_s / f->events; }

/* Prints the ladder's table and its last / first ns per event (the
 * speed-of-light loop's too, where the ladder has one); returns 0, or 1
 * when a step failed. */
static int run_ladder(const ladder *l, double requests)
{
    int sol = shape(l, l->x[0], requests).sol;
    printf("scale %s: %s\n", l->name, l->what);
    printf("scale %s: %9s %11s %11s %11s %8s %9s %9s %12s", l->name, l->column, "requests", "dropped", "events",
           "wall s", "ns/event", "M req/s", "peak RSS MB");
    if (sol != SOL_NONE)
        printf(" %11s %11s %10s %10s %11s", "SOL events", "SOL mean ms", "heap ns/ev", "cal ns/ev", "engine/SOL");
    if (sol == SOL_AND_ONE_STATE)
        printf(" %13s", "1-state ns/ev");
    printf("\n");
    step_result first = {0}, b = {0};
    for (size_t i = 0; i < l->n; i++) {
        step_arg a = shape(l, l->x[i], requests);
        if (!bench_in_child(step, &a, &b, sizeof b)) {
            printf("scale %s: %9ld failed\n", l->name, l->x[i]);
            return 1;
        }
        double ns = 1e9 * b.wall_s / b.events;
        printf("scale %s: %9ld %11.0f %11.0f %11.0f %8.2f %9.1f %9.2f %12.1f", l->name, l->x[i], b.requests,
               b.dropped, b.events, b.wall_s, ns, b.requests / b.wall_s / 1e6, b.peak_rss_mb);
        if (sol != SOL_NONE) /* the faster event list's figure marked with a star */
            printf(" %11.0f %11.3f %9.1f%s %9.1f%s %10.2fx", b.sol[b.sol_kind].events,
                   b.sol[b.sol_kind].mean_s * 1e3, sol_ns(&b.sol[SOL_HEAP]), b.sol_kind == SOL_HEAP ? "*" : " ",
                   sol_ns(&b.sol[SOL_CALENDAR]), b.sol_kind == SOL_CALENDAR ? "*" : " ",
                   ns / sol_ns(&b.sol[b.sol_kind]));
        if (sol == SOL_AND_ONE_STATE)
            printf(" %13.1f", sol_ns(&b.one_state));
        printf("\n");
        if (i == 0)
            first = b;
    }
    double ns_first = 1e9 * first.wall_s / first.events, ns_last = 1e9 * b.wall_s / b.events;
    long x_first = l->x[0], x_last = l->x[l->n - 1];
    printf("scale %s: ns/event at %ld / at %ld = %.2fx (target <= 1.5x)\n", l->name, x_last, x_first,
           ns_last / ns_first);
    if (sol == SOL_NONE)
        return 0;
    /* Beside the ratios, what was added per event: a ratio flatters a
     * program that is slow at the first step, an added cost does not. */
    double sol_first = sol_ns(&first.sol[first.sol_kind]), sol_last = sol_ns(&b.sol[b.sol_kind]);
    printf("scale %s: speed-of-light ns/event at %ld / at %ld = %.2fx, %+.1f ns (engine %.2fx, %+.1f ns)\n",
           l->name, x_last, x_first, sol_last / sol_first, sol_last - sol_first, ns_last / ns_first,
           ns_last - ns_first);
    if (sol == SOL_AND_ONE_STATE)
        printf("scale %s: of the speed-of-light's %+.1f ns: %+.1f ns the event list's (one-state control at %ld"
               " - speed-of-light at %ld), %+.1f ns the per-service state's (speed-of-light - control at %ld)\n",
               l->name, sol_last - sol_first, sol_ns(&b.one_state) - sol_first, x_last, x_first,
               sol_last - sol_ns(&b.one_state), x_last);
    return 0;
}

static const ladder LADDERS[] = {
    {"fleet", "one service, utilization 0.8, G GPUs and G replicas", "GPUs",
     {10, 20, 40, 80, 160, 320, 640, 1280, 2560, 5120, 10240}, 11, X_GPUS},
    {"services", "S services x 10 replicas on 10 S GPUs, each at utilization 0.8", "services",
     {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1000}, 11, X_SERVICES},
    {"queue", "10 replicas offered 2x capacity, queue_limit Q (the queue sits at Q)", "Q",
     {10, 20, 40, 80, 160, 320, 640, 1280, 2560, 5120, 10240, 20480, 40960, 81920, 163840}, 15, X_QUEUE},
};

int main(int argc, char **argv)
{
    double requests = argc >= 2 ? strtod(argv[1], NULL) : 2e6;
    const char *only = argc >= 3 ? argv[2] : NULL;
    size_t n = sizeof LADDERS / sizeof LADDERS[0], matched = 0;
    for (size_t i = 0; only && i < n; i++)
        matched += strcmp(only, LADDERS[i].name) == 0;
    if (!(requests >= 1000) || argc > 3 || (only && !matched)) {
        fprintf(stderr, "usage: bench_scale [REQUESTS >= 1000 [fleet|services|queue]]\n");
        return 2;
    }
    int failed = 0;
    for (size_t i = 0; i < n; i++)
        if (!only || strcmp(only, LADDERS[i].name) == 0)
            failed |= run_ladder(&LADDERS[i], requests);
    return failed;
}

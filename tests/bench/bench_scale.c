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
 * the full product path (parse -> engine ->
 * results) in a child process so each peak RSS is its own, and prints wall
 * ns per engine event, M requests/s and peak RSS, then the ladder's last /
 * first ns per event.  Figures only: it fails only when a run fails.
 *
 *   bench_scale              2 million requests per step
 *   bench_scale N            N requests per step (smaller: a quicker look)
 *   bench_scale N LADDER     one ladder: fleet, services or queue
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define MEAN_SERVICE_S 0.010
#define REPLICA_RPS (1.0 / MEAN_SERVICE_S)
#define SEED 18

typedef struct step_result {
    double requests, dropped, events, wall_s, peak_rss_mb;
    int ok;
} step_result;

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

/* `services` services of `replicas` replicas each on one pool, each offered
 * `load` x its capacity, with queue_limit `queue_limit` (< 0: none), over
 * the horizon that offers about `requests` requests in all. */
static char *scenario_json(int services, int replicas, double load, long queue_limit, double requests)
{
    double rps = load * replicas * REPLICA_RPS;
    text t = {malloc(4096), 0, 4096, 1};
    if (t.buf == NULL)
        return NULL;
    put(&t,
        "{\"schema\": \"fleetsim/1\", \"name\": \"bench-scale\", \"horizon\": %.6f, \"seed\": %d,"
        " \"pools\": [{\"name\": \"p\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": %d}], \"services\": [",
        requests / (rps * services), SEED, services * replicas);
    for (int i = 0; i < services; i++) {
        put(&t,
            "%s{\"name\": \"s%d\", \"arrivals\": {\"poisson_rps\": %.6f},"
            " \"service_time\": {\"exponential\": {\"mean\": \"%.0fms\"}}, \"replicas\": %d",
            i ? ", " : "", i, rps, MEAN_SERVICE_S * 1e3, replicas);
        if (queue_limit >= 0)
            put(&t, ", \"queue_limit\": %ld", queue_limit);
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

/* One ladder: its name, what it holds, its column, and the shape of the
 * scenario at each value x of the column. */
typedef struct ladder {
    const char *name, *what, *column;
    long x[16];
    size_t n;
    int x_is; /* which parameter x sets (X_GPUS, ...) */
} ladder;

enum { X_GPUS, X_SERVICES, X_QUEUE };

typedef struct step_arg {
    int services, replicas;
    double load;
    long queue_limit;
    double requests;
} step_arg;

/* bench_in_child's step: build the scenario and run it. */
static int step(const void *arg, void *result)
{
    const step_arg *a = arg;
    step_result *out = result;
    char *json = scenario_json(a->services, a->replicas, a->load, a->queue_limit, a->requests);
    *out = json ? run_step(json) : (step_result){0};
    free(json);
    return out->ok;
}

static step_arg shape(const ladder *l, long x, double requests)
{
    switch (l->x_is) {
    case X_GPUS:
        return (step_arg){1, (int)x, 0.8, -1, requests};
    case X_SERVICES:
        return (step_arg){(int)x, 10, 0.8, -1, requests};
    default:
        return (step_arg){1, 10, 2.0, x, requests};
    }
}

/* Prints the ladder's table and its last / first ns per event; returns 0, or
 * 1 when a step failed. */
static int run_ladder(const ladder *l, double requests)
{
    printf("scale %s: %s\n", l->name, l->what);
    printf("scale %s: %9s %11s %11s %11s %8s %9s %9s %12s\n", l->name, l->column, "requests", "dropped",
           "events", "wall s", "ns/event", "M req/s", "peak RSS MB");
    double first = 0.0, ns = 0.0;
    for (size_t i = 0; i < l->n; i++) {
        step_arg a = shape(l, l->x[i], requests);
        step_result b = {0};
        if (!bench_in_child(step, &a, &b, sizeof b)) {
            printf("scale %s: %9ld failed\n", l->name, l->x[i]);
            return 1;
        }
        ns = 1e9 * b.wall_s / b.events;
        printf("scale %s: %9ld %11.0f %11.0f %11.0f %8.2f %9.1f %9.2f %12.1f\n", l->name, l->x[i], b.requests,
               b.dropped, b.events, b.wall_s, ns, b.requests / b.wall_s / 1e6, b.peak_rss_mb);
        if (i == 0)
            first = ns;
    }
    printf("scale %s: ns/event at %ld / at %ld = %.2fx (target <= 1.5x)\n", l->name, l->x[l->n - 1], l->x[0],
           ns / first);
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

/*
 * bench_mmc — how fast the simulator runs the model every capacity study is
 * made of: an M/M/c service (c = 10, utilization 0.8, mean service 10 ms).
 *
 * Runs the full product path (scenario parse -> engine -> results) once with
 * 1 million and once with 20 million requests, each in a child process so
 * that each peak-memory figure is its own, and prints requests per second,
 * events per second and peak RSS, then the memory ratio 20M / 1M.  It is a
 * measurement, not a test: it fails only if a run fails.
 *
 * Each size is followed, in the same process, by a speed-of-light loop: the
 * same M/M/c written as bare C (a binary heap of departure times, a FIFO of
 * waiting arrival times, no engine, no histogram) drawing from the same named
 * streams through the same sampler (fs_dist_sample, fs_nhpp_next's Exp(1)).
 * The ratio engine / speed-of-light says how much the engine's generality
 * costs on this machine today, whatever the machine; the target is
 * at least 0.6.
 *
 *   bench_mmc              both sizes
 *   bench_mmc N            one run of N requests (expected arrivals)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"
#include "dist.h"
#include "nhpp.h"
#include "rng.h"

#define SERVERS 10
#define MEAN_SERVICE_S 0.010
#define ARRIVAL_RPS 800.0 /* 10 servers x 100/s x 0.8 */
#define SEED 7

typedef struct bench_result {
    double requests, events, wall_s, peak_rss_mb;
    double sol_requests, sol_wall_s, sol_mean_wait_s;
    int ok;
} bench_result;

static double constant_rate(void *ctx, double t, double *piece_end)
{
    (void)t;
    *piece_end = INFINITY;
    return *(const double *)ctx;
}

/* Min-heap of departure times, at most SERVERS long: sift by hand, because
 * the point is to measure what an M/M/c costs with nothing in the way. */
static void heap_push(double *h, int *n, double x)
{
    int i = (*n)++;
    while (i > 0 && h[(i - 1) / 2] > x) {
        h[i] = h[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h[i] = x;
}

static void heap_pop(double *h, int *n)
{
    double x = h[--*n];
    int i = 0;
    for (;;) {
        int c = 2 * i + 1;
        if (c >= *n)
            break;
        if (c + 1 < *n && h[c + 1] < h[c])
            c++;
        if (h[c] >= x)
            break;
        h[i] = h[c];
        i = c;
    }
    h[i] = x;
}

/* The speed-of-light M/M/c over the same horizon as the engine run: returns
 * 0 and fills the sol_* fields, or -1 when out of memory. */
static int speed_of_light(double horizon, bench_result *out)
{
    double rate = ARRIVAL_RPS;
    fs_nhpp arrivals;
    fs_nhpp_init(&arrivals, constant_rate, &rate);
    fs_dist service;
    fs_dist_exponential(&service, MEAN_SERVICE_S);
    gsl_rng *ra = fs_rng_create(SEED, 0, "arrivals/mmc");
    gsl_rng *rs = fs_rng_create(SEED, 0, "service/mmc");
    size_t cap = 1024, head = 0, len = 0;
    double *fifo = malloc(cap * sizeof *fifo);
    if (ra == NULL || rs == NULL || fifo == NULL) {
        fs_rng_destroy(ra);
        fs_rng_destroy(rs);
        free(fifo);
        return -1;
    }
    double busy[SERVERS];
    int nbusy = 0;
    double t0 = bench_now_s();
    double next = fs_nhpp_next(&arrivals, 0.0, horizon, ra);
    double requests = 0.0, wait_sum = 0.0;
    while (next < INFINITY || nbusy > 0) {
        if (nbusy > 0 && busy[0] <= next) {
            double now = busy[0];
            heap_pop(busy, &nbusy);
            if (len > 0) {
                wait_sum += now - fifo[head];
                head = (head + 1) & (cap - 1);
                len--;
                heap_push(busy, &nbusy, now + fs_dist_sample(&service, rs));
            }
            continue;
        }
        double now = next;
        requests += 1.0;
        if (nbusy < SERVERS) {
            heap_push(busy, &nbusy, now + fs_dist_sample(&service, rs));
        } else {
            if (len == cap) { /* grow the ring, unrolling it to start at 0 */
                double *bigger = malloc(2 * cap * sizeof *bigger);
                if (bigger == NULL) {
                    free(fifo);
                    fs_rng_destroy(ra);
                    fs_rng_destroy(rs);
                    return -1;
                }
                for (size_t i = 0; i < len; i++)
                    bigger[i] = fifo[(head + i) & (cap - 1)];
                free(fifo);
                fifo = bigger;
                head = 0;
                cap *= 2;
            }
            fifo[(head + len) & (cap - 1)] = now;
            len++;
        }
        next = fs_nhpp_next(&arrivals, now, horizon, ra);
    }
    out->sol_wall_s = bench_now_s() - t0;
    out->sol_requests = requests;
    out->sol_mean_wait_s = wait_sum / requests;
    free(fifo);
    fs_rng_destroy(ra);
    fs_rng_destroy(rs);
    return 0;
}

static bench_result bench_once(double requests)
{
    bench_result out = {0};
    char json[1024];
    snprintf(json, sizeof json,
             "{\"schema\": \"fleetsim/1\", \"name\": \"bench-mmc\", \"horizon\": %.6f, \"seed\": %d,"
             " \"pools\": [{\"name\": \"p\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": %d}],"
             " \"services\": [{\"name\": \"mmc\", \"arrivals\": {\"poisson_rps\": %.1f},"
             "   \"service_time\": {\"exponential\": {\"mean\": \"%.0fms\"}}, \"replicas\": %d}]}",
             requests / ARRIVAL_RPS, SEED, SERVERS, ARRIVAL_RPS, MEAN_SERVICE_S * 1e3, SERVERS);
    fs_scenario *s;
    fs_results *r = bench_run_json(json, "bench_mmc", &s, &out.wall_s);
    if (r == NULL)
        return out;
    out.requests = (double)r->policies[0].reps[0].services[0].requests;
    out.events = (double)r->events;
    out.peak_rss_mb = bench_peak_rss_mb();
    out.ok = speed_of_light(requests / ARRIVAL_RPS, &out) == 0;
    fs_results_destroy(r);
    fs_scenario_destroy(s);
    return out;
}

static void print(const bench_result *b)
{
    printf("M/M/c c=10 rho=0.8: %10.0f requests in %6.2f s: %5.2f M requests/s, %5.2f M events/s, "
           "peak RSS %.1f MB\n",
           b->requests, b->wall_s, b->requests / b->wall_s / 1e6, b->events / b->wall_s / 1e6,
           b->peak_rss_mb);
    double engine_rps = b->requests / b->wall_s, sol_rps = b->sol_requests / b->sol_wall_s;
    printf("M/M/c speed-of-light loop: %10.0f requests in %6.2f s: %5.2f M requests/s (mean wait %.3f ms); "
           "engine / speed-of-light %.2fx\n",
           b->sol_requests, b->sol_wall_s, sol_rps / 1e6, b->sol_mean_wait_s * 1e3, engine_rps / sol_rps);
    fflush(stdout);
}

/* bench_in_child's step: one size, in a child so its peak RSS is its own. */
static int step(const void *arg, void *result)
{
    bench_result *b = result;
    *b = bench_once(*(const double *)arg);
    return b->ok;
}

static bench_result bench_in_child_of(double requests)
{
    bench_result b = {0};
    if (!bench_in_child(step, &requests, &b, sizeof b))
        b.ok = 0;
    return b;
}

int main(int argc, char **argv)
{
    if (argc == 2) {
        bench_result b = bench_once(strtod(argv[1], NULL));
        if (!b.ok)
            return 1;
        print(&b);
        return 0;
    }
    bench_result small = bench_in_child_of(1e6);
    if (!small.ok)
        return 1;
    print(&small);
    bench_result large = bench_in_child_of(20e6);
    if (!large.ok)
        return 1;
    print(&large);
    printf("peak memory 20M / 1M requests: %.3f\n", large.peak_rss_mb / small.peak_rss_mb);
    return 0;
}

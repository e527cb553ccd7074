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
 *   bench_mmc              both sizes
 *   bench_mmc N            one run of N requests (expected arrivals)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "run.h"
#include "scenario.h"

#define ARRIVAL_RPS 800.0 /* 10 servers x 100/s x 0.8 */

typedef struct bench_result {
    double requests, events, wall_s, peak_rss_mb;
    int ok;
} bench_result;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static bench_result bench_once(double requests)
{
    bench_result out = {0};
    char json[1024];
    snprintf(json, sizeof json,
             "{\"schema\": \"fleetsim/1\", \"name\": \"bench-mmc\", \"horizon\": %.6f, \"seed\": 7,"
             " \"pools\": [{\"name\": \"p\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 10}],"
             " \"services\": [{\"name\": \"mmc\", \"arrivals\": {\"poisson_rps\": %.1f},"
             "   \"service_time\": {\"exponential\": {\"mean\": \"10ms\"}}, \"replicas\": 10}]}",
             requests / ARRIVAL_RPS, ARRIVAL_RPS);
    fs_scenario *s;
    fs_error err = {0};
    if (fs_scenario_parse(json, "bench", &s, &err) != FS_OK) {
        fprintf(stderr, "bench_mmc: %s\n", err.msg);
        return out;
    }
    fs_results *r;
    double t0 = now_s();
    if (fs_run_scenario(s, &r, &err) != FS_OK) {
        fprintf(stderr, "bench_mmc: %s\n", err.msg);
        fs_scenario_destroy(s);
        return out;
    }
    out.wall_s = now_s() - t0;
    out.requests = (double)r->policies[0].reps[0].services[0].requests;
    out.events = (double)r->events;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    out.peak_rss_mb = (double)ru.ru_maxrss / 1024.0;
    out.ok = 1;
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
    fflush(stdout);
}

/* Runs one size in a child so its peak RSS is not the other size's. */
static bench_result bench_in_child(double requests)
{
    bench_result b = {0};
    int fds[2];
    if (pipe(fds) != 0)
        return b;
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        bench_result mine = bench_once(requests);
        ssize_t n = write(fds[1], &mine, sizeof mine);
        _exit(n == (ssize_t)sizeof mine && mine.ok ? 0 : 1);
    }
    close(fds[1]);
    if (pid > 0) {
        if (read(fds[0], &b, sizeof b) != (ssize_t)sizeof b)
            b.ok = 0;
        int status;
        waitpid(pid, &status, 0);
    }
    close(fds[0]);
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
    bench_result small = bench_in_child(1e6);
    if (!small.ok)
        return 1;
    print(&small);
    bench_result large = bench_in_child(20e6);
    if (!large.ok)
        return 1;
    print(&large);
    printf("peak memory 20M / 1M requests: %.3f\n", large.peak_rss_mb / small.peak_rss_mb);
    return 0;
}

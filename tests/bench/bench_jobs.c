/*
 * bench_jobs — how fast the simulator replays a cluster-sized job trace
 * (issue 18): 125,000 training jobs over 181 days on 1,022 GPUs, gangs of 1
 * to 160 GPUs, durations up to 30 days, under the shared, partitioned and
 * tiered policies, each in its own child process so each peak-memory figure
 * is its own.
 *
 * The trace is synthetic and only has the shape such published cluster
 * traces have; it is not fitted to any of them.  What was chosen:
 *   - submissions: Poisson at 125,000 jobs per 181 days (one every 125 s);
 *   - gangs: 1 GPU for 60% of jobs, then powers of two with a heavy tail
 *     (2: 12%, 4: 10%, 8: 10%, 16: 4%, 32: 2.5%, 64: 1%, 128: 0.3%) and
 *     160 GPUs for 0.1% (mean about 4.8 GPUs);
 *   - durations: lognormal, median 45 minutes, sigma 2.2 (mean about 8.4 h before clipping),
 *     clipped to [10 s, 30 days], independent of the gang;
 * which offers the 960-GPU batch pool about 1.03 of its capacity (the
 * header line prints it): an overloaded cluster whose queue grows to
 * thousands of jobs.
 * The fleet: a 62-GPU serving pool with one idle replica and a 960-GPU batch
 * pool (1,022 H100s); `shared` lets jobs use both, `partitioned` and
 * `tiered` only the batch pool.
 *
 * It prints, per policy, jobs started and completed, jobs still waiting at
 * the horizon, the mean wait, the wall time, events, nanoseconds per event
 * and the peak RSS.  It is a measurement, not a test: it fails only if a run
 * fails, never because a machine is slow.
 *
 *   bench_jobs           the full trace (125,000 jobs, 181 days)
 *   bench_jobs N         N jobs at the same rate on the same fleet (the span
 *                        scales with N, so the load stays the same)
 *   bench_jobs queue     per-event cost against queue length: a job holding
 *                        959 of the 960 batch GPUs all run long, Q two-GPU
 *                        jobs queued behind it (Q = 10 ... 100,000), and
 *                        20,000 one-GPU jobs of 50 s, one a minute, that run
 *                        on the last GPU past the queue (partitioned; with
 *                        their warm-up they queue a little too)
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "run.h"
#include "scenario.h"

#define FULL_JOBS 125000
#define FULL_DAYS 181.0
#define DAY_S 86400.0

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* splitmix64: the trace must be the same bytes on every machine, whatever
 * the C library's rand(). */
static uint64_t mix_state = 18;

static double uniform01(void)
{
    uint64_t z = (mix_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return ((double)(z >> 11) + 0.5) / 9007199254740992.0; /* (0, 1) */
}

static unsigned gang_draw(void)
{
    static const double share[] = {0.60, 0.12, 0.10, 0.10, 0.04, 0.025, 0.01, 0.003, 0.001};
    static const unsigned gang[] = {1, 2, 4, 8, 16, 32, 64, 128, 160};
    double u = uniform01() * 0.999, acc = 0;
    for (size_t k = 0; k < sizeof gang / sizeof *gang; k++) {
        acc += share[k];
        if (u < acc)
            return gang[k];
    }
    return 160;
}

static double duration_draw(void)
{
    double z = sqrt(-2.0 * log(uniform01())) * cos(6.283185307179586 * uniform01());
    double d = 2700.0 * exp(2.2 * z);
    return d < 10.0 ? 10.0 : d > 30 * DAY_S ? 30 * DAY_S : d;
}

/* The synthetic trace of `jobs` jobs into path; its span in seconds, or -1. */
static double write_trace(const char *path, long jobs, double *gpu_s)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    mix_state = 18;
    double mean_gap = FULL_DAYS * DAY_S / FULL_JOBS, t = 0;
    fprintf(f, "submit,gpus,duration\n");
    for (long i = 0; i < jobs; i++) {
        t += -mean_gap * log(uniform01());
        unsigned gang = gang_draw();
        double d = duration_draw();
        *gpu_s += gang * d;
        fprintf(f, "%.3f,%u,%.3f\n", t, gang, d);
    }
    return fclose(f) == 0 ? t : -1;
}

/* The queue-length trace: a blocker, `queued` 2-GPU jobs, 20,000 churners. */
static double write_queue_trace(const char *path, long queued)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    double horizon = 20000 * 60.0;
    fprintf(f, "submit,gpus,duration\n0,959,%.0f\n", 2 * horizon);
    for (long i = 0; i < queued; i++)
        fprintf(f, "1,2,3600\n");
    for (long i = 0; i < 20000; i++)
        fprintf(f, "%.0f,1,50\n", 2.0 + 60.0 * (double)i);
    return fclose(f) == 0 ? horizon : -1;
}

static fs_scenario *scenario(const char *trace, double horizon_s)
{
    const char *pools = "[{\"name\": \"serving\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 62, \"class\": \"serving\"},"
                        " {\"name\": \"batch\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 960, \"class\": \"batch\"}]";
    char json[4096];
    snprintf(json, sizeof json,
             "{\"schema\": \"fleetsim/1\", \"name\": \"bench-jobs\", \"horizon\": %.3f, \"warmup\": \"0s\","
             " \"window\": %.3f, \"seed\": 18,"
             " \"services\": [{\"name\": \"idle\", \"pool\": \"serving\", \"arrivals\": {\"poisson_rps\": 0},"
             "   \"service_time\": {\"deterministic\": {\"value\": \"1s\"}}, \"replicas\": 1}],"
             " \"training\": [{\"name\": \"jobs\", \"submit\": {\"trace\": {\"file\": \"%s\", \"time\": \"submit\","
             "   \"gpus\": \"gpus\", \"duration\": \"duration\"}}, \"state_gb_per_gpu\": 10}],"
             " \"policies\": {\"shared\": {\"pools\": %s}, \"partitioned\": {\"pools\": %s},"
             "   \"tiered\": {\"pools\": %s}}}",
             horizon_s, horizon_s > DAY_S ? DAY_S : horizon_s, trace, pools, pools, pools);
    fs_scenario *s = NULL;
    fs_error err = {0};
    if (fs_scenario_parse(json, "bench", &s, &err) != FS_OK) {
        fprintf(stderr, "bench_jobs: %s\n", err.msg);
        return NULL;
    }
    return s;
}

/* Runs one policy and prints its line; 0, or 1 when the run fails. */
static int bench_once(const fs_scenario *s, const char *policy, const char *what)
{
    fs_results *r;
    fs_error err = {0};
    double t0 = now_s();
    if (fs_run_policies(s, &policy, 1, &r, &err) != FS_OK) {
        fprintf(stderr, "bench_jobs: %s: %s\n", policy, err.msg);
        return 1;
    }
    double wall = now_s() - t0, events = (double)r->events, sum = 0;
    const fs_training_rep *t = &r->policies[0].reps[0].training[0];
    for (size_t i = 0; i < t->n_waits; i++)
        sum += t->waits[i].wait_s;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("jobs %-14s %-11s %7llu started %7llu done %6llu waiting at end, mean wait %7.2f h | "
           "%8.2f s wall %10.0f events %7.0f ns/event peak RSS %6.1f MB\n",
           what, policy, (unsigned long long)t->started, (unsigned long long)t->completed,
           (unsigned long long)t->waiting_end, t->n_waits ? sum / (double)t->n_waits / 3600.0 : NAN, wall, events,
           1e9 * wall / events, (double)ru.ru_maxrss / 1024.0);
    fflush(stdout);
    fs_results_destroy(r);
    return 0;
}

/* Each policy runs in a child process of its own, so that each peak RSS is
 * that policy's alone; the child prints its line. */
static int run_policies(const char *trace, double horizon, const char *what, const char *const *policies,
                        size_t n)
{
    fs_scenario *s = scenario(trace, horizon);
    if (!s)
        return 1;
    int rc = 0;
    for (size_t k = 0; k < n && rc == 0; k++) {
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0)
            _exit(bench_once(s, policies[k], what));
        int status = 0;
        rc = pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
    }
    fs_scenario_destroy(s);
    return rc;
}

int main(int argc, char **argv)
{
    bool queue = argc == 2 && strcmp(argv[1], "queue") == 0;
    long jobs = argc == 2 && !queue ? strtol(argv[1], NULL, 10) : FULL_JOBS;
    if (argc > 2 || jobs < 1) {
        fprintf(stderr, "usage: bench_jobs [JOBS >= 1 | queue]\n");
        return 2;
    }
    char dir[] = "/tmp/bench-jobs-XXXXXX", trace[64];
    if (!mkdtemp(dir)) {
        perror("bench_jobs: mkdtemp");
        return 1;
    }
    snprintf(trace, sizeof trace, "%s/jobs.csv", dir);
    int rc = 0;
    if (queue) {
        static const long sizes[] = {10, 100, 1000, 10000, 100000};
        const char *policies[] = {"partitioned"};
        for (size_t k = 0; k < sizeof sizes / sizeof *sizes && rc == 0; k++) {
            double horizon = write_queue_trace(trace, sizes[k]);
            char what[32];
            snprintf(what, sizeof what, "queue=%ld", sizes[k]);
            rc = horizon < 0 ? 1 : run_policies(trace, horizon, what, policies, 1);
        }
    } else {
        double gpu_s = 0, span = write_trace(trace, jobs, &gpu_s);
        const char *policies[] = {"shared", "partitioned", "tiered"};
        char what[32];
        snprintf(what, sizeof what, "n=%ld", jobs);
        if (span < 0)
            rc = 1;
        else
            printf("jobs: %ld jobs over %.1f days on 1,022 GPUs (62 serving + 960 batch), offering %.2f of the "
                   "batch pool's GPU-seconds\n",
                   jobs, span / DAY_S, gpu_s / (960.0 * span));
        rc = rc ? rc : run_policies(trace, span, what, policies, 3);
    }
    remove(trace);
    rmdir(dir);
    return rc;
}

/*
 * bench — what the C benchmarks share: a monotonic clock, the process's peak
 * RSS, a scenario parsed and run with its wall time, and one measured step
 * run in a forked child so that each step's peak RSS is its own, not the
 * largest of all steps before it.  Header-only (static functions) because
 * every file in tests/bench is its own executable.
 */
#ifndef BENCH_H
#define BENCH_H

#include <stddef.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "run.h"
#include "scenario.h"

static inline double bench_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static inline double bench_peak_rss_mb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_maxrss / 1024.0;
}

/* Parses `json` and runs it: the results and *scenario (the caller destroys
 * both) and the run's wall seconds in *wall_s, or NULL after printing
 * "PROGRAM: message" on stderr. */
static inline fs_results *bench_run_json(const char *json, const char *program, fs_scenario **scenario,
                                         double *wall_s)
{
    fs_error err = {0};
    fs_results *r = NULL;
    if (fs_scenario_parse(json, program, scenario, &err) != FS_OK) {
        fprintf(stderr, "%s: %s\n", program, err.msg);
        return NULL;
    }
    double t0 = bench_now_s();
    if (fs_run_scenario(*scenario, &r, &err) != FS_OK) {
        fprintf(stderr, "%s: %s\n", program, err.msg);
        fs_scenario_destroy(*scenario);
        return NULL;
    }
    *wall_s = bench_now_s() - t0;
    return r;
}

/* Runs step(arg, result) in a child and copies its `size`-byte result back.
 * step returns nonzero on success.  Returns 1 when the child succeeded and
 * its result came back whole, else 0 (result then unspecified). */
static inline int bench_in_child(int (*step)(const void *arg, void *result), const void *arg, void *result,
                                 size_t size)
{
    int fds[2];
    fflush(stdout);
    if (pipe(fds) != 0)
        return 0;
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        int ok = step(arg, result);
        ssize_t n = write(fds[1], result, size);
        _exit(n == (ssize_t)size && ok ? 0 : 1);
    }
    close(fds[1]);
    int ok = 0;
    if (pid > 0) {
        ok = read(fds[0], result, size) == (ssize_t)size;
        int status;
        waitpid(pid, &status, 0);
        ok = ok && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    }
    close(fds[0]);
    return ok;
}

#endif

/*
 * bench_memory — does a run's memory stay flat as replications grow?
 * (issue 18: peak memory for 5,000 services under 100 MB at any replication
 * count.)
 *
 * S services (default 5,000), each one replica on its own GPU of one pool,
 * Poisson 80 requests/s into exponential 10 ms (utilization 0.8), 5 s
 * windows, over H simulated seconds (default 10), at R = 1, 4 and 16
 * replications.  Each run is the whole product path, `fleetsim run SCENARIO
 * -o DIR --no-timing` as a user types it (parse, run, every output written,
 * window tables streamed), in a child process whose peak resident set the
 * kernel reports (wait4's ru_maxrss), so the figure covers the outputs too.
 * Prints peak RSS and wall time per R, then the largest against the target.
 * Figures only: it fails only when a run fails.
 *
 *   bench_memory FLEETSIM              ctest's run
 *   bench_memory FLEETSIM H [S [R...]] another horizon, service count, replication counts
 */
#define _DEFAULT_SOURCE /* wait4 */
#define _XOPEN_SOURCE 700 /* nftw */
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include "bench.h"

static int write_scenario(const char *path, long services, int replications, double horizon_s)
{
    FILE *fp = fopen(path, "w");
    if (!fp)
        return -1;
    fprintf(fp,
            "{\"schema\": \"fleetsim/1\", \"name\": \"memory\", \"horizon\": %.3f, \"seed\": 18,"
            " \"replications\": %d, \"window\": \"5s\","
            " \"pools\": [{\"name\": \"p\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": %ld}], \"services\": [",
            horizon_s, replications, services);
    for (long i = 0; i < services; i++)
        fprintf(fp,
                "%s{\"name\": \"s%ld\", \"arrivals\": {\"poisson_rps\": 80},"
                " \"service_time\": {\"exponential\": {\"mean\": \"10ms\"}}, \"replicas\": 1}",
                i ? ", " : "", i);
    fputs("]}\n", fp);
    return fclose(fp) == 0 ? 0 : -1;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

/* Runs `fleetsim run scenario -o out --no-timing` (its output to
 * /dev/null); returns its peak RSS in MB, or -1 when it failed. */
static double run_child(const char *fleetsim, const char *scenario, const char *out, double *wall_s)
{
    double t0 = bench_now_s();
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0) {
            dup2(null, STDOUT_FILENO);
            dup2(null, STDERR_FILENO);
        }
        execl(fleetsim, fleetsim, "run", scenario, "-o", out, "--no-timing", (char *)NULL);
        _exit(127);
    }
    int status;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return -1;
    *wall_s = bench_now_s() - t0;
    return (double)ru.ru_maxrss / 1024.0; /* KB on Linux */
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_memory FLEETSIM [HORIZON_S [SERVICES [REPLICATIONS...]]]\n");
        return 2;
    }
    const char *fleetsim = argv[1];
    double horizon = argc >= 3 ? strtod(argv[2], NULL) : 10.0;
    long services = argc >= 4 ? strtol(argv[3], NULL, 10) : 5000;
    int reps[16] = {1, 4, 16};
    int n_reps = 3;
    if (argc >= 5) {
        n_reps = 0;
        for (int i = 4; i < argc && n_reps < 16; i++)
            reps[n_reps++] = atoi(argv[i]);
    }
    char dir[] = "/tmp/fleetsim-bench-memory-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("bench_memory: mkdtemp");
        return 1;
    }
    char scenario[sizeof dir + 32], out[sizeof dir + 32];
    snprintf(scenario, sizeof scenario, "%s/memory.json", dir);
    snprintf(out, sizeof out, "%s/out", dir);
    printf("memory: %ld services x 1 replica, 80 requests/s, exponential 10 ms, %.0f s, 5 s windows; "
           "`fleetsim run -o DIR --no-timing` in a child\n",
           services, horizon);
    printf("memory: %12s %10s %14s\n", "replications", "wall s", "peak RSS MB");
    double largest = 0;
    int failed = 0;
    for (int i = 0; i < n_reps && !failed; i++) {
        double wall = 0, mb = -1;
        if (write_scenario(scenario, services, reps[i], horizon) == 0)
            mb = run_child(fleetsim, scenario, out, &wall);
        if (mb < 0) {
            printf("memory: %12d failed\n", reps[i]);
            failed = 1;
            break;
        }
        printf("memory: %12d %10.2f %14.1f\n", reps[i], wall, mb);
        if (mb > largest)
            largest = mb;
    }
    if (!failed)
        printf("memory: largest peak RSS %.1f MB (target < 100 MB for 5,000 services at any replication count)\n",
               largest);
    nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    return failed;
}

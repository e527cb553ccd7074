/*
 * bench_windows — does a run's memory stay flat as its windows multiply?
 * (issue 18: every window's record stayed in memory, 146 bytes each.)
 *
 * One service on one pool over an hour, with time-series and SLO windows
 * of 10 ms: 360,000 windows of the service and of the pool.  The run goes
 * twice, each in a child so its peak RSS is its own, and each writes the
 * window tables into a scratch output directory: from rows kept in memory
 * until the run ends (a run without a window sink, as `fleetsim run --out`
 * did before), and streamed as the run goes (what it does now, windows.h
 * and window_csv.h).  Prints wall seconds (run and tables) and peak RSS of
 * each.  Figures only: it fails only when a run fails.
 *
 *   bench_windows            10 ms windows
 *   bench_windows MS         windows of MS milliseconds (at least 4)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "output.h"
#include "results_csv.h"
#include "window_csv.h"

typedef struct step_arg {
    const char *json;
    int stream;
} step_arg;

typedef struct step_result {
    double wall_s, peak_rss_mb, windows;
} step_result;

static int step(const void *varg, void *vresult)
{
    const step_arg *arg = varg;
    step_result *res = vresult;
    fs_scenario *s = NULL;
    fs_error err = {0};
    if (fs_scenario_parse(arg->json, "bench_windows", &s, &err) != FS_OK) {
        fprintf(stderr, "bench_windows: %s\n", err.msg);
        return 0;
    }
    char dir[] = "/tmp/bench-windows-XXXXXX";
    fs_output out;
    fs_window_csv *csv = NULL;
    fs_window_sink sink = {0};
    if (!mkdtemp(dir) || fs_output_begin(&out, dir, &err) != FS_OK) {
        fprintf(stderr, "bench_windows: %s\n", err.msg[0] ? err.msg : "cannot make a scratch directory");
        fs_scenario_destroy(s);
        return 0;
    }
    if (arg->stream) {
        if (fs_window_csv_begin(&out, &csv, &err) != FS_OK) {
            fprintf(stderr, "bench_windows: %s\n", err.msg);
            fs_output_abort(&out);
            fs_scenario_destroy(s);
            return 0;
        }
        sink = fs_window_csv_sink(csv);
    }
    fs_run_watch watch = {.windows = arg->stream ? &sink : NULL};
    fs_results *r = NULL;
    double t0 = bench_now_s();
    int rc = fs_run_watched(s, NULL, 0, &watch, &r, &err);
    if (arg->stream && fs_window_csv_end(csv, &err) != FS_OK)
        rc = FS_ERR_RUNTIME;
    FILE *series, *pools, *breaches;
    if (!arg->stream && rc == FS_OK &&
        (fs_output_open(&out, "timeseries.csv", &series, &err) != FS_OK ||
         fs_output_open(&out, "pools_timeseries.csv", &pools, &err) != FS_OK ||
         fs_output_open(&out, "slo_breaches.csv", &breaches, &err) != FS_OK ||
         fs_results_csv_timeseries(r, series, &err) != FS_OK ||
         fs_results_csv_pool_timeseries(r, pools, &err) != FS_OK ||
         fs_results_csv_slo_breaches(r, breaches, &err) != FS_OK))
        rc = FS_ERR_RUNTIME;
    if (rc == FS_OK && fs_output_commit(&out, &err) != FS_OK)
        rc = FS_ERR_RUNTIME;
    else if (rc != FS_OK)
        fs_output_abort(&out);
    res->wall_s = bench_now_s() - t0;
    res->peak_rss_mb = bench_peak_rss_mb();
    if (rc == FS_OK)
        res->windows = (double)r->policies[0].reps[0].services[0].windows_closed;
    else
        fprintf(stderr, "bench_windows: %s\n", err.msg);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "bench_windows: cannot remove %s\n", dir);
    return rc == FS_OK;
}

int main(int argc, char **argv)
{
    double ms = argc > 1 ? atof(argv[1]) : 10;
    if (!(ms >= 4)) {
        fprintf(stderr, "usage: bench_windows [MS >= 4]\n");
        return 2;
    }
    char json[1024];
    snprintf(json, sizeof json,
             "{\"schema\": \"fleetsim/1\", \"name\": \"windows\", \"horizon\": \"1h\", \"window\": \"%gms\","
             " \"seed\": 18, \"pools\": [{\"name\": \"p\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 2}],"
             " \"services\": [{\"name\": \"s\", \"pool\": \"p\", \"arrivals\": {\"poisson_rps\": 200},"
             "   \"service_time\": {\"exponential\": {\"mean\": \"5ms\"}}, \"replicas\": 2,"
             "   \"slo\": {\"p99_ms\": 20, \"window\": \"%gms\"}}]}",
             ms, ms);
    step_result kept = {0}, streamed = {0};
    step_arg a = {json, 0}, b = {json, 1};
    if (!bench_in_child(step, &a, &kept, sizeof kept) || !bench_in_child(step, &b, &streamed, sizeof streamed)) {
        fprintf(stderr, "bench_windows: a run failed\n");
        return 1;
    }
    printf("windows: %.0f windows of %g ms (1 service, 1 pool, 1 h)\n", kept.windows, ms);
    printf("windows: kept, then written  wall %.2f s, peak memory %.1f MB\n", kept.wall_s, kept.peak_rss_mb);
    printf("windows: streamed as they close  wall %.2f s, peak memory %.1f MB\n", streamed.wall_s,
           streamed.peak_rss_mb);
    return 0;
}

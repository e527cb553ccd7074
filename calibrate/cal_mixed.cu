/* cal_mixed — the mixed-workload check (cal_mixed.h). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cuda_runtime.h>

extern "C" {
#include "cal_child.h"
#include "cal_clock.h"
#include "cal_options.h"
#include "cal_say.h"
#include "cal_storage.h"
#include "cal_mixed.h"
#include "profile_fit.h"
}
#include "cal_kernels.h"

#define CAL_MIXED_BOUNCE ((size_t)64 << 20) /* a loader's pinned staging buffer */
#define CAL_MIXED_OUT_CAP ((size_t)16 << 20)

#define CAL_CUDA(call)                                                                                             \
    do {                                                                                                           \
        cudaError_t cal_err_ = (call);                                                                             \
        if (cal_err_ != cudaSuccess) {                                                                             \
            cal_say_error("%s failed: %s (%s)", #call, cudaGetErrorString(cal_err_), cudaGetErrorName(cal_err_)); \
            goto fail;                                                                                             \
        }                                                                                                          \
    } while (0)

/* ---------------------------------------------------------------- training */

static volatile sig_atomic_t cal_mixed_go;

static void cal__on_go(int sig)
{
    (void)sig;
    cal_mixed_go = 1;
}

int cal_mixed_train_main(int device, const char *spec)
{
    unsigned long long state_bytes = 0;
    void *state = NULL, *pinned = NULL;
    float *sink = NULL;
    int sms = 0, iters;
    double t0, pinned_s, per_iter, deadline, t_start, t_copied, t_end;
    struct sigaction sa;

    if (sscanf(spec, "%llu", &state_bytes) != 1 || state_bytes == 0 || state_bytes % 16 != 0) {
        cal_say_error("--child-train: '%s' is not a state size in bytes", spec);
        return CAL_EXIT_USAGE;
    }
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = cal__on_go;
    sa.sa_flags = SA_RESTART; /* the driver's own system calls go on */
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGUSR1, &sa, NULL) != 0) {
        cal_say_error("sigaction: %s", strerror(errno));
        return CAL_EXIT_FAILURE;
    }
    CAL_CUDA(cudaSetDevice(device));
    CAL_CUDA(cudaFree(0));
    CAL_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CAL_CUDA(cudaMalloc(&state, (size_t)state_bytes));
    CAL_CUDA(cudaMemset(state, 0x5a, (size_t)state_bytes));
    CAL_CUDA(cudaMalloc((void **)&sink, (size_t)sms * 8 * sizeof(float)));
    t0 = cal_clock_now();
    CAL_CUDA(cudaMallocHost(&pinned, (size_t)state_bytes));
    pinned_s = cal_clock_now() - t0;
    per_iter = cal_spin_rate(sink, sms * 8, 256);
    if (per_iter <= 0)
        goto fail;
    iters = cal_iters_for(0.002, per_iter); /* ~2 ms training kernels */
    printf("ready %.9f\n", pinned_s);
    if (fflush(stdout) != 0)
        goto fail;
    deadline = cal_clock_now() + 600.0;
    while (!cal_mixed_go && cal_clock_now() < deadline) {
        if (cal_spin(sink, sms * 8, 256, iters, 0) != 0)
            goto fail;
        CAL_CUDA(cudaDeviceSynchronize());
    }
    if (!cal_mixed_go) {
        cal_say_error("--child-train: never told to go");
        goto fail;
    }
    /* Eviction: state to host, device memory released. */
    t_start = cal_clock_now();
    CAL_CUDA(cudaMemcpy(pinned, state, (size_t)state_bytes, cudaMemcpyDeviceToHost));
    t_copied = cal_clock_now();
    CAL_CUDA(cudaFree(state));
    state = NULL;
    CAL_CUDA(cudaDeviceSynchronize());
    t_end = cal_clock_now();
    printf("evicted %.9f %.9f %.9f\n", t_start, t_copied, t_end);
    if (fflush(stdout) != 0)
        goto fail;
    /* A suspended job: its context and its state's host copy stay until it is
     * resumed or ended (the parent ends it after the trial).  Freeing 16 GiB
     * of pinned memory takes seconds, and an evicted job would not do it. */
    deadline = cal_clock_now() + 900.0;
    while (cal_clock_now() < deadline)
        sleep(1);
    cudaFree(sink);
    cudaFreeHost(pinned);
    return CAL_EXIT_OK;
fail:
    if (state)
        cudaFree(state);
    if (sink)
        cudaFree(sink);
    if (pinned)
        cudaFreeHost(pinned);
    return CAL_EXIT_FAILURE;
}

/* ----------------------------------------------------------------- serving */

/* splitmix64, then an exponential gap: the child draws its own arrivals
 * (this binary links no random-number library on the GPU side). */
static double cal__exp_gap(uint64_t *state, double rate)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    double u = ((double)(z >> 11) + 0.5) * (1.0 / 9007199254740992.0); /* (0, 1) */
    return -log(u) / rate;
}

static void cal__sleep_until(double when)
{
    for (;;) {
        double left = when - cal_clock_now();
        if (left <= 0)
            return;
        if (left > 300e-6) { /* sleep most of it, spin the end for precision */
            struct timespec ts;
            double s = left - 200e-6;
            ts.tv_sec = (time_t)s;
            ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
            nanosleep(&ts, NULL);
        }
    }
}

int cal_mixed_serve_main(int device, const char *spec, const char *weights_path)
{
    double t0, rate, duration, t_start, t_ctx, t_loaded, t_ready, read_s = 0, h2d_s = 0, alone_s;
    unsigned long long weights_bytes, seed;
    int iters, blocks, fd = -1;
    void *weights = NULL, *bounce = NULL;
    unsigned *sink_u = NULL;
    float *sink = NULL;
    double *arr = NULL, *beg = NULL, *end = NULL;
    size_t n = 0, cap = 0;
    uint64_t rng;

    t_start = cal_clock_now();
    if (sscanf(spec, "%lf,%lf,%lf,%d,%d,%llu,%llu", &t0, &rate, &duration, &iters, &blocks, &weights_bytes,
               &seed) != 7 ||
        !(rate > 0) || !(duration > 0) || iters < 1 || blocks < 1 || weights_bytes == 0 || weights_bytes % 16) {
        cal_say_error("--child-serve: bad spec '%s'", spec);
        return CAL_EXIT_USAGE;
    }
    CAL_CUDA(cudaSetDevice(device));
    CAL_CUDA(cudaFree(0));
    t_ctx = cal_clock_now();
    CAL_CUDA(cudaMalloc(&weights, (size_t)weights_bytes));
    CAL_CUDA(cudaMallocHost(&bounce, CAL_MIXED_BOUNCE));
    fd = open(weights_path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        cal_say_error("--child-serve: cannot open %s: %s", weights_path, strerror(errno));
        goto fail;
    }
    for (size_t off = 0; off < weights_bytes;) {
        size_t want = weights_bytes - off < CAL_MIXED_BOUNCE ? weights_bytes - off : CAL_MIXED_BOUNCE;
        double a = cal_clock_now(), b;
        for (size_t got = 0; got < want;) {
            ssize_t r = pread(fd, (char *)bounce + got, want - got, (off_t)(off + got));
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0) {
                cal_say_error("--child-serve: reading %s: %s", weights_path, r < 0 ? strerror(errno) : "short file");
                goto fail;
            }
            got += (size_t)r;
        }
        b = cal_clock_now();
        CAL_CUDA(cudaMemcpy((char *)weights + off, bounce, want, cudaMemcpyHostToDevice));
        read_s += b - a;
        h2d_s += cal_clock_now() - b;
        off += want;
    }
    close(fd);
    fd = -1;
    t_loaded = cal_clock_now();
    CAL_CUDA(cudaMalloc((void **)&sink, (size_t)blocks * sizeof(float)));
    CAL_CUDA(cudaMalloc((void **)&sink_u, sizeof *sink_u));
    if (cal_touch(weights, (size_t)weights_bytes, sink_u, blocks, 0) != 0)
        goto fail;
    CAL_CUDA(cudaDeviceSynchronize());
    {   /* the serving kernel's first launch, part of the warm-up */
        double a = cal_clock_now();
        if (cal_spin(sink, blocks, 128, iters, 0) != 0)
            goto fail;
        CAL_CUDA(cudaDeviceSynchronize());
        alone_s = cal_clock_now() - a;
    }
    t_ready = cal_clock_now();

    rng = (uint64_t)seed;
    for (double a = t0 + cal__exp_gap(&rng, rate); a < t0 + duration; a += cal__exp_gap(&rng, rate)) {
        if (n == cap) {
            size_t nc = cap ? cap * 2 : 4096;
            double *na = (double *)realloc(arr, nc * sizeof *na);
            if (!na)
                goto oom;
            arr = na;
            cap = nc;
        }
        arr[n++] = a;
    }
    beg = (double *)malloc((n ? n : 1) * sizeof *beg);
    end = (double *)malloc((n ? n : 1) * sizeof *end);
    if (!beg || !end)
        goto oom;
    for (size_t i = 0; i < n; i++) {
        cal__sleep_until(arr[i]);
        beg[i] = cal_clock_now();
        if (cal_spin(sink, blocks, 128, iters, 0) != 0)
            goto fail;
        CAL_CUDA(cudaDeviceSynchronize());
        end[i] = cal_clock_now();
    }
    printf("phases %.9f %.9f %.9f %.9f %.9f %.9f %.9f\n", t_start, t_ctx, read_s, h2d_s, t_loaded, t_ready, alone_s);
    for (size_t i = 0; i < n; i++)
        printf("r %.9f %.9f %.9f\n", arr[i], beg[i], end[i]);
    if (fflush(stdout) != 0)
        goto fail;
    free(arr);
    free(beg);
    free(end);
    cudaFree(weights);
    cudaFreeHost(bounce);
    cudaFree(sink);
    cudaFree(sink_u);
    return CAL_EXIT_OK;
oom:
    cal_say_error("--child-serve: out of memory for %zu requests", n);
fail:
    if (fd >= 0)
        close(fd);
    free(arr);
    free(beg);
    free(end);
    if (weights)
        cudaFree(weights);
    if (bounce)
        cudaFreeHost(bounce);
    if (sink)
        cudaFree(sink);
    if (sink_u)
        cudaFree(sink_u);
    return CAL_EXIT_FAILURE;
}

/* ------------------------------------------------------------------ parent */

static int cal__row(fs_calib_samples *out, const char *table, const char *columns, const double *row)
{
    fs_calib_table *t = fs_calib_table_get(out, table, columns);
    if (!t || fs_calib_table_add(t, row) != 0) {
        cal_say_error("out of memory recording table %s", table);
        return -1;
    }
    return 0;
}

/* The serving child's output into the tables; prints the trial's p50/p99. */
static int cal__parse_serve(char *text, int trial, double t0, const cal_mixed_plan *plan, const double evict[3],
                            double serve_start, double pinned_s, fs_calib_samples *out)
{
    double ph[7], *lat = NULL;
    size_t n = 0, cap = 0;
    char *line = strtok(text, "\n");
    if (!line || sscanf(line, "phases %lf %lf %lf %lf %lf %lf %lf", &ph[0], &ph[1], &ph[2], &ph[3], &ph[4], &ph[5],
                        &ph[6]) != 7) {
        cal_say_error("mixed: the serving process printed no phases line");
        return -1;
    }
    {
        double row[12] = {(double)trial,         plan->rate_per_s,     plan->duration_s,      (double)plan->state_bytes,
                          (double)plan->weights_bytes, evict[0] - t0, evict[1] - t0, evict[2] - t0,
                          serve_start - t0,      ph[1] - t0,           ph[4] - t0,            ph[5] - t0};
        double load[5] = {(double)trial, ph[2], ph[3], pinned_s, ph[6]};
        if (cal__row(out, "mixed_phases",
                     "trial,rate_per_s,duration_s,state_bytes,weights_bytes,evict_start_s,evict_copied_s,"
                     "evict_end_s,serve_start_s,context_s,loaded_s,ready_s",
                     row) != 0 ||
            cal__row(out, "mixed_load", "trial,read_s,h2d_s,pinned_alloc_s,service_kernel_s", load) != 0)
            return -1;
    }
    while ((line = strtok(NULL, "\n")) != NULL) {
        double a, s, e;
        if (sscanf(line, "r %lf %lf %lf", &a, &s, &e) != 3) {
            cal_say_error("mixed: the serving process printed '%.40s'", line);
            free(lat);
            return -1;
        }
        double row[4] = {(double)trial, a - t0, s - t0, e - t0};
        if (cal__row(out, "mixed_requests", "trial,arrival_s,start_s,end_s", row) != 0) {
            free(lat);
            return -1;
        }
        if (n == cap) {
            size_t nc = cap ? cap * 2 : 4096;
            double *nl = (double *)realloc(lat, nc * sizeof *nl);
            if (!nl) {
                free(lat);
                cal_say_error("mixed: out of memory");
                return -1;
            }
            lat = nl;
            cap = nc;
        }
        lat[n++] = e - a;
    }
    if (n > 0) {
        /* The profile's definition (profile_fit.h): nearest rank. */
        double p50 = fs_calib_quantile(lat, n, 0.50), p99 = fs_calib_quantile(lat, n, 0.99);
        fprintf(stderr, "(trial %d: %zu requests, switch %.3f s, latency p50 %.4f s, p99 %.4f s, max %.4f s) ", trial,
                n, ph[5] - t0, p50, p99, lat[n - 1]);
    }
    free(lat);
    return 0;
}

int cal_mixed_measure(const cal_mixed_plan *plan, fs_calib_samples *out)
{
    char wpath[4096], dev[16], state[32], spec[256], line[256], how[64];
    char *text = NULL;
    cal_child train = CAL_CHILD_NONE, serve = CAL_CHILD_NONE;
    int rc = -1, status;
    int n = snprintf(wpath, sizeof wpath, "%s/fleetsim-calibrate-weights.%ld.bin", plan->dir, (long)getpid());

    if (n < 0 || (size_t)n >= sizeof wpath) {
        cal_say_error("mixed: the directory name is too long");
        return -1;
    }
    snprintf(dev, sizeof dev, "%d", plan->device);
    snprintf(state, sizeof state, "%zu", plan->state_bytes);
    text = (char *)malloc(CAL_MIXED_OUT_CAP);
    if (!text) {
        cal_say_error("mixed: out of memory");
        return -1;
    }
    if (cal_storage_write_file(wpath, plan->weights_bytes, NULL) != 0) {
        free(text);
        return -1;
    }
    for (int trial = 0; trial < plan->trials; trial++) {
        char *targv[] = {(char *)CAL_PROG, (char *)"--child-train", state, (char *)"--device", dev, NULL};
        char *sargv[] = {(char *)CAL_PROG, (char *)"--child-serve", spec, (char *)"--child-file", wpath,
                         (char *)"--device", dev, NULL};
        double pinned_s, t0, evict[3], serve_start;

        if (cal_child_start(&train, targv) != 0)
            goto done;
        if (cal_child_read(&train, line, sizeof line, true, 300.0, "training process") < 0)
            goto fail_train;
        if (sscanf(line, "ready %lf", &pinned_s) != 1) {
            cal_say_error("mixed: the training process said '%.60s'", line);
            goto fail_train;
        }
        { /* a second of training before the ramp */
            struct timespec ts = {1, 0};
            nanosleep(&ts, NULL);
        }
        if (cal_storage_drop_cache(wpath) < 0)
            goto fail_train;
        t0 = cal_clock_now();
        if (kill(train.pid, SIGUSR1) != 0) {
            cal_say_error("mixed: signalling the training process: %s", strerror(errno));
            goto fail_train;
        }
        if (cal_child_read(&train, line, sizeof line, true, 300.0, "training process") < 0)
            goto fail_train;
        if (sscanf(line, "evicted %lf %lf %lf", &evict[0], &evict[1], &evict[2]) != 3) {
            cal_say_error("mixed: the training process said '%.60s'", line);
            goto fail_train;
        }
        snprintf(spec, sizeof spec, "%.9f,%.9g,%.9g,%d,%d,%zu,%d", t0, plan->rate_per_s, plan->duration_s,
                 plan->service_iters, plan->sms, plan->weights_bytes, 1000 + trial);
        serve_start = cal_clock_now();
        if (cal_child_start(&serve, sargv) != 0)
            goto done;
        if (cal_child_read(&serve, text, CAL_MIXED_OUT_CAP, false, plan->duration_s + 600.0, "serving process") < 0)
            goto fail_serve;
        status = cal_child_reap(&serve, false);
        if (status < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            cal_child_describe(status, how, sizeof how);
            cal_say_error("mixed: the serving process %s", how);
            goto fail_serve;
        }
        if (cal__parse_serve(text, trial, t0, plan, evict, serve_start, pinned_s, out) != 0)
            goto fail_serve;
        cal_child_fini(&serve);
        cal_child_reap(&train, true); /* the suspended job ends with the trial */
        cal_child_fini(&train);
    }
    rc = 0;
    goto done;
fail_train:
    cal_child_reap(&train, true);
    cal_child_relay(&train);
    goto done;
fail_serve:
    cal_child_reap(&serve, true);
    cal_child_relay(&serve);
done:
    cal_child_fini(&train);
    cal_child_fini(&serve);
    unlink(wpath);
    free(text);
    return rc;
}

/*
 * fleetsim-calibrate — measures, on one real GPU, the costs fleetsim's switch
 * model uses (context creation, allocation, copies in every direction,
 * eviction to host and warm-up back, time-slicing) and writes them, fitted
 * and raw, as a calibration profile (profile.h).
 *
 * Nine steps, each a progress line on stderr; the profile goes to --out,
 * written to FILE.tmp and renamed, so a failed run never leaves half a file;
 * a summary of the fits goes to stdout.  Every measured operation is
 * bracketed by cudaDeviceSynchronize and timed with CLOCK_MONOTONIC, so a
 * sample is what a tenant waits for, launch overheads included; the first
 * repetition of every size is a warm-up and is discarded.
 *
 * Two measurements need a second process, and get one by re-executing this
 * binary (/proc/self/exe, fork + execv) in a hidden mode:
 *   --child-context       times cudaSetDevice + cudaFree(0) and a first
 *                         kernel in a fresh process, prints "CTX FIRST";
 *   --child-hog SECONDS   keeps the GPU busy with long kernels, says "ready"
 *                         once its context is up, stops after SECONDS (the
 *                         parent kills it well before).
 * Children die with the parent (PR_SET_PDEATHSIG) and are always reaped.
 *
 * The binary links the CUDA runtime and GSL statically: a GPU host needs only
 * the NVIDIA driver (libcuda, which the runtime opens itself).
 *
 * Exit status: 0 profile written, 1 runtime failure (a CUDA call, a child, a
 * write; the failing call is named), 2 usage, 3 no CUDA device.
 *
 * This file holds what needs CUDA: the kernels, the nine measurements, the
 * hidden modes and main.  The plain C around them is in its own modules:
 * cal_options (the command line and exit statuses), cal_child (starting,
 * reading and reaping the children), cal_output (the profile file and the
 * summary), cal_say (progress lines and errors on stderr) and cal_clock.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cuda_runtime.h>

/* The calibrate headers are C without extern "C" guards; their own includes
 * (stdarg.h, stdbool.h, stddef.h, stdio.h, sys/types.h, time.h) are already
 * in above, so only declarations land here. */
extern "C" {
#include "cal_child.h"
#include "cal_clock.h"
#include "cal_options.h"
#include "cal_output.h"
#include "cal_say.h"
#include "profile.h"
#include "samples.h"
}

#define CAL_KIB ((size_t)1 << 10)
#define CAL_MIB ((size_t)1 << 20)
#define CAL_GIB ((size_t)1 << 30)

static void cal__cuda_error(const char *call, cudaError_t err)
{
    cal_say_error("%s failed: %s (%s)", call, cudaGetErrorString(err), cudaGetErrorName(err));
}

/* Every CUDA call goes through this: on failure it names the call and jumps
 * to the function's `fail` label, which releases what the function holds.
 * Functions using it declare all their variables before the first use, as
 * C++ forbids jumping over an initialisation. */
#define CAL_CUDA(call)                                                                             \
    do {                                                                                           \
        cudaError_t cal_err_ = (call);                                                             \
        if (cal_err_ != cudaSuccess) {                                                             \
            cal__cuda_error(#call, cal_err_);                                                      \
            goto fail;                                                                             \
        }                                                                                          \
    } while (0)

/* After a <<<>>> launch: launch errors surface through cudaGetLastError. */
#define CAL_LAUNCHED(kernel)                                                                       \
    do {                                                                                           \
        cudaError_t cal_err_ = cudaGetLastError();                                                 \
        if (cal_err_ != cudaSuccess) {                                                             \
            cal__cuda_error("launch of " kernel, cal_err_);                                        \
            goto fail;                                                                             \
        }                                                                                          \
    } while (0)

/* ------------------------------------------------------------------------
 * Kernels.
 */

__global__ void cal_noop_kernel(void) {}

/* A dependent chain of `iters` FMAs per thread: fixed work, so under
 * time-slicing it takes longer in wall time rather than ending early (a
 * clock-based spin would end on time however little it ran). */
__global__ void cal_spin_kernel(float *sink, int iters)
{
    float a = (float)threadIdx.x * 1e-3f;
    for (int i = 0; i < iters; i++)
        a = fmaf(a, 0.999999f, 1e-6f);
    if (a == 12345.0f) /* never true; keeps the chain alive */
        sink[blockIdx.x] = a;
}

/* Reads every 16-byte word once: a tenant's first kernel over its state. */
__global__ void cal_touch_kernel(const uint4 *p, size_t n, unsigned *sink)
{
    unsigned acc = 0;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        uint4 v = p[i];
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (acc == 0x9e3779b9u) /* data-dependent, so the loads stay */
        *sink = acc;
}

/* ------------------------------------------------------------------------
 * The hidden modes: what a child process runs (started through cal_child).
 */

/* --child-context: one fresh process's context creation and first kernel. */
static int cal__child_context_main(int device)
{
    double t0, t1, t2;

    t0 = cal_clock_now();
    CAL_CUDA(cudaSetDevice(device));
    CAL_CUDA(cudaFree(0));
    t1 = cal_clock_now();
    cal_noop_kernel<<<1, 1>>>();
    CAL_LAUNCHED("cal_noop_kernel");
    CAL_CUDA(cudaDeviceSynchronize());
    t2 = cal_clock_now();
    printf("%.9f %.9f\n", t1 - t0, t2 - t1);
    return fflush(stdout) == 0 ? CAL_EXIT_OK : CAL_EXIT_FAILURE;
fail:
    return CAL_EXIT_FAILURE;
}

/* Seconds per iteration of cal_spin_kernel at this grid, from the difference
 * of two lengths (so launch overhead cancels); <= 0 on failure. */
static double cal__spin_rate(float *sink, int blocks, int threads)
{
    double best[2] = {1e30, 1e30};
    const int iters[2] = {1 << 14, 1 << 17};

    for (int rep = 0; rep < 4; rep++) {
        for (int k = 0; k < 2; k++) {
            double t0;
            CAL_CUDA(cudaDeviceSynchronize());
            t0 = cal_clock_now();
            cal_spin_kernel<<<blocks, threads>>>(sink, iters[k]);
            CAL_LAUNCHED("cal_spin_kernel");
            CAL_CUDA(cudaDeviceSynchronize());
            if (rep > 0 && cal_clock_now() - t0 < best[k])
                best[k] = cal_clock_now() - t0;
        }
    }
    if (best[1] > best[0])
        return (best[1] - best[0]) / (double)(iters[1] - iters[0]);
    return best[1] / (double)iters[1];
fail:
    return -1.0;
}

static int cal__iters_for(double seconds, double per_iter)
{
    double n = seconds / per_iter;
    if (n < 1.0)
        return 1;
    if (n > 2e9)
        return 2000000000;
    return (int)n;
}

/* --child-hog: long kernels over the whole GPU, back to back, until killed or
 * `seconds` pass. */
static int cal__child_hog_main(int device, double seconds)
{
    float *sink = NULL;
    int sms = 0, iters;
    double per_iter, end;

    CAL_CUDA(cudaSetDevice(device));
    CAL_CUDA(cudaFree(0));
    CAL_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CAL_CUDA(cudaMalloc((void **)&sink, (size_t)sms * 8 * sizeof(float)));
    per_iter = cal__spin_rate(sink, sms * 8, 256);
    if (per_iter <= 0)
        goto fail;
    iters = cal__iters_for(0.020, per_iter); /* ~20 ms a kernel */
    printf("ready\n");
    if (fflush(stdout) != 0)
        goto fail;
    end = cal_clock_now() + seconds;
    while (cal_clock_now() < end) {
        cal_spin_kernel<<<sms * 8, 256>>>(sink, iters);
        CAL_LAUNCHED("cal_spin_kernel");
        CAL_CUDA(cudaDeviceSynchronize());
    }
    cudaFree(sink);
    return CAL_EXIT_OK;
fail:
    if (sink)
        cudaFree(sink);
    return CAL_EXIT_FAILURE;
}

/* ------------------------------------------------------------------------
 * The run: settings and samples.
 */

typedef struct cal_run {
    cal_config cfg;
    int sms;
    int compute_mode;
    fs_calib_samples samples;
    /* repetitions (each plus one discarded warm-up) and counts */
    int ctx_runs, malloc_reps, copy_reps, evict_reps, slice_kernels;
    size_t size_step_malloc, size_step_copy; /* size factor between points */
} cal_run;

static int cal__add(cal_run *r, const char *series, double bytes, double seconds)
{
    fs_calib_series *s = fs_calib_series_get(&r->samples, series);
    if (!s || fs_calib_series_add(s, bytes, seconds) != 0) {
        cal_say_error("out of memory recording series %s", series);
        return -1;
    }
    return 0;
}

static int cal__add_scalar(cal_run *r, const char *scalar, double seconds)
{
    fs_calib_scalar *s = fs_calib_scalar_get(&r->samples, scalar);
    if (!s || fs_calib_scalar_add(s, seconds) != 0) {
        cal_say_error("out of memory recording %s", scalar);
        return -1;
    }
    return 0;
}

/* Host memory the kernel says is available (MemAvailable), bytes; 0 if unknown. */
static size_t cal__host_available(void)
{
    FILE *fp = fopen("/proc/meminfo", "r");
    char line[256];
    unsigned long long kib = 0;
    if (!fp)
        return 0;
    while (fgets(line, sizeof line, fp))
        if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1)
            break;
    fclose(fp);
    return (size_t)kib * 1024;
}

static size_t cal__min(size_t a, size_t b) { return a < b ? a : b; }

static const char *cal__s(long n) { return n == 1 ? "" : "s"; }

/* Sizes first, first*factor, ... up to max inclusive; returns the count. */
static int cal__sizes(size_t first, size_t factor, size_t max, size_t *out, int cap)
{
    int n = 0;
    for (size_t s = first; s <= max && n < cap; s *= factor)
        out[n++] = s;
    return n;
}

static void cal__fmt_bytes(size_t b, char *buf, size_t cap)
{
    if (b >= CAL_GIB)
        snprintf(buf, cap, "%g GiB", (double)b / (double)CAL_GIB);
    else if (b >= CAL_MIB)
        snprintf(buf, cap, "%g MiB", (double)b / (double)CAL_MIB);
    else
        snprintf(buf, cap, "%g KiB", (double)b / (double)CAL_KIB);
}

/* ---- step 1: context creation and first kernel, fresh processes ---- */

static int cal__measure_contexts(cal_run *r)
{
    char dev[16], out[256], how[64];
    char *argv[] = {(char *)CAL_PROG, (char *)"--child-context", (char *)"--device", dev, NULL};
    cal_child child = CAL_CHILD_NONE;

    snprintf(dev, sizeof dev, "%d", r->cfg.device);
    cal_say_step("context creation, fresh processes: %d runs + 1 warm-up", r->ctx_runs);
    for (int i = 0; i <= r->ctx_runs; i++) {
        double ctx, first;
        int status;
        if (cal_child_start(&child, argv) != 0)
            return -1;
        /* Without persistence mode a cold cuInit can take seconds (costs.md). */
        if (cal_child_read(&child, out, sizeof out, false, 120.0, "context child") < 0)
            goto fail;
        status = cal_child_reap(&child, false);
        if (status < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            cal_child_describe(status, how, sizeof how);
            cal_say_error("context child %s", how);
            goto fail;
        }
        if (sscanf(out, "%lf %lf", &ctx, &first) != 2) {
            cal_say_error("context child printed '%.60s', not two times", out);
            goto fail;
        }
        cal_child_fini(&child);
        if (i == 0)
            continue; /* warm-up: page cache, driver state */
        if (cal__add_scalar(r, "context_create", ctx) != 0 || cal__add_scalar(r, "first_kernel", first) != 0)
            return -1;
    }
    cal_say_done();
    return 0;
fail:
    cal_child_reap(&child, true);
    cal_child_relay(&child);
    cal_child_fini(&child);
    return -1;
}

/* ---- step 2: cudaMalloc / cudaFree against size ---- */

static int cal__measure_malloc(cal_run *r)
{
    size_t sizes[32], free_b = 0, total_b = 0, max;
    int n;
    void *p = NULL;

    CAL_CUDA(cudaMemGetInfo(&free_b, &total_b));
    max = cal__min(4 * CAL_GIB, (size_t)(r->cfg.max_gib * (double)CAL_GIB));
    max = cal__min(max, free_b / 10 * 8);
    n = cal__sizes(CAL_MIB, r->size_step_malloc, max, sizes, 32);
    cal_say_step("cudaMalloc / cudaFree: %d size%s x %d repetition%s", n, cal__s(n), r->malloc_reps,
                    cal__s(r->malloc_reps));
    for (int i = 0; i < n; i++) {
        for (int rep = 0; rep <= r->malloc_reps; rep++) {
            double t0, t1, t2;
            CAL_CUDA(cudaDeviceSynchronize());
            t0 = cal_clock_now();
            CAL_CUDA(cudaMalloc(&p, sizes[i]));
            CAL_CUDA(cudaDeviceSynchronize());
            t1 = cal_clock_now();
            CAL_CUDA(cudaFree(p));
            p = NULL;
            CAL_CUDA(cudaDeviceSynchronize());
            t2 = cal_clock_now();
            if (rep == 0)
                continue;
            if (cal__add(r, "malloc", (double)sizes[i], t1 - t0) != 0 ||
                cal__add(r, "free", (double)sizes[i], t2 - t1) != 0)
                return -1;
        }
    }
    cal_say_done();
    return 0;
fail:
    if (p)
        cudaFree(p);
    return -1;
}

/* ---- steps 3-7: copies against size ---- */

static int cal__copy_series(cal_run *r, const char *series, const char *title, void *dst, const void *src,
                            cudaMemcpyKind kind, size_t max)
{
    size_t sizes[32];
    int n = cal__sizes(4 * CAL_KIB, r->size_step_copy, max, sizes, 32);

    cal_say_step("%s: %d size%s x %d repetition%s", title, n, cal__s(n), r->copy_reps, cal__s(r->copy_reps));
    for (int i = 0; i < n; i++) {
        for (int rep = 0; rep <= r->copy_reps; rep++) {
            double t0, t1;
            CAL_CUDA(cudaDeviceSynchronize());
            t0 = cal_clock_now();
            CAL_CUDA(cudaMemcpy(dst, src, sizes[i], kind));
            CAL_CUDA(cudaDeviceSynchronize());
            t1 = cal_clock_now();
            if (rep > 0 && cal__add(r, series, (double)sizes[i], t1 - t0) != 0)
                return -1;
        }
    }
    cal_say_done();
    return 0;
fail:
    return -1;
}

static int cal__measure_copies(cal_run *r)
{
    size_t free_b = 0, total_b = 0, host = cal__host_available(), max;
    void *pinned = NULL, *dev_a = NULL, *dev_b = NULL;
    char *pageable = NULL;
    int rc = -1;

    CAL_CUDA(cudaMemGetInfo(&free_b, &total_b));
    max = cal__min(CAL_GIB, (size_t)(r->cfg.max_gib * (double)CAL_GIB));
    max = cal__min(max, free_b / 10 * 4); /* two device buffers */
    if (host)
        max = cal__min(max, host / 4); /* a pinned and a pageable buffer */
    if (max < 4 * CAL_KIB) {
        cal_say_error("copies: only %zu bytes of device or host memory to spare", max);
        return -1;
    }
    CAL_CUDA(cudaMallocHost(&pinned, max));
    CAL_CUDA(cudaMalloc(&dev_a, max));
    CAL_CUDA(cudaMalloc(&dev_b, max));
    CAL_CUDA(cudaMemset(dev_a, 0x5a, max));
    CAL_CUDA(cudaMemset(dev_b, 0xa5, max));
    memset(pinned, 0x3c, max);
    pageable = (char *)malloc(max);
    if (!pageable) {
        cal_say_error("copies: out of host memory (%zu bytes pageable)", max);
        goto fail;
    }
    memset(pageable, 0xc3, max); /* touch: the pages exist before the copies */

    if (cal__copy_series(r, "h2d_pinned", "host-to-device copies, pinned", dev_a, pinned, cudaMemcpyHostToDevice,
                         max) != 0 ||
        cal__copy_series(r, "d2h_pinned", "device-to-host copies, pinned", pinned, dev_a, cudaMemcpyDeviceToHost,
                         max) != 0 ||
        cal__copy_series(r, "h2d_pageable", "host-to-device copies, pageable", dev_a, pageable,
                         cudaMemcpyHostToDevice, max) != 0 ||
        cal__copy_series(r, "d2h_pageable", "device-to-host copies, pageable", pageable, dev_a,
                         cudaMemcpyDeviceToHost, max) != 0 ||
        cal__copy_series(r, "d2d", "device-to-device copies", dev_b, dev_a, cudaMemcpyDeviceToDevice, max) != 0)
        goto fail;
    rc = 0;
fail:
    free(pageable);
    if (dev_b)
        cudaFree(dev_b);
    if (dev_a)
        cudaFree(dev_a);
    if (pinned)
        cudaFreeHost(pinned);
    return rc;
}

/* ---- step 8: eviction of a tenant's state and warm-up of the next ---- */

static int cal__measure_eviction(cal_run *r)
{
    size_t free_b = 0, total_b = 0, host = cal__host_available(), cap, sizes[32];
    const size_t grain = 2 * CAL_MIB; /* allocation granularity; keeps sizes in whole uint4s */
    void *pinned = NULL, *dev = NULL;
    unsigned *sink = NULL;
    int n = 0, rc = -1;
    char lo[32], hi[32];

    CAL_CUDA(cudaMemGetInfo(&free_b, &total_b));
    cap = cal__min((size_t)(r->cfg.max_gib * (double)CAL_GIB), free_b / 10 * 8);
    if (host)
        cap = cal__min(cap, host / 2); /* the pinned copy of the state */
    if (r->cfg.quick)
        cap = cal__min(cap, CAL_GIB);
    for (size_t s = r->cfg.quick ? CAL_GIB / 4 : CAL_GIB / 2; s <= cap && n < 32; s *= 2)
        sizes[n++] = s;
    if (n < 2) { /* too little room for the usual ladder: two points below the cap */
        n = 0;
        if (cap / 2 / grain * grain >= grain)
            sizes[n++] = cap / 2 / grain * grain;
        if (cap / grain * grain >= grain)
            sizes[n++] = cap / grain * grain;
    }
    if (n == 0) {
        cal_say_error("eviction: only %zu bytes of device or host memory to spare", cap);
        return -1;
    }
    cal__fmt_bytes(sizes[0], lo, sizeof lo);
    cal__fmt_bytes(sizes[n - 1], hi, sizeof hi);
    cal_say_step("eviction and warm-up: %d size%s (%s .. %s) x %d repetition%s", n, cal__s(n), lo, hi,
                    r->evict_reps, cal__s(r->evict_reps));
    CAL_CUDA(cudaMallocHost(&pinned, sizes[n - 1]));
    CAL_CUDA(cudaMalloc((void **)&sink, sizeof *sink));
    for (int i = 0; i < n; i++) {
        for (int rep = 0; rep <= r->evict_reps; rep++) {
            double t0, t1, t2, t3;
            /* The tenant's state: resident and written. */
            CAL_CUDA(cudaMalloc(&dev, sizes[i]));
            CAL_CUDA(cudaMemset(dev, 0x5a + rep, sizes[i]));
            CAL_CUDA(cudaDeviceSynchronize());
            /* Eviction: state to host, memory back to the pool. */
            t0 = cal_clock_now();
            CAL_CUDA(cudaMemcpy(pinned, dev, sizes[i], cudaMemcpyDeviceToHost));
            CAL_CUDA(cudaFree(dev));
            dev = NULL;
            CAL_CUDA(cudaDeviceSynchronize());
            t1 = cal_clock_now();
            /* Warm-up of the next tenant: memory, state back, first kernel over it. */
            t2 = cal_clock_now();
            CAL_CUDA(cudaMalloc(&dev, sizes[i]));
            CAL_CUDA(cudaMemcpy(dev, pinned, sizes[i], cudaMemcpyHostToDevice));
            cal_touch_kernel<<<r->sms * 4, 256>>>((const uint4 *)dev, sizes[i] / sizeof(uint4), sink);
            CAL_LAUNCHED("cal_touch_kernel");
            CAL_CUDA(cudaDeviceSynchronize());
            t3 = cal_clock_now();
            CAL_CUDA(cudaFree(dev));
            dev = NULL;
            if (rep == 0)
                continue;
            if (cal__add(r, "evict", (double)sizes[i], t1 - t0) != 0 ||
                cal__add(r, "warmup", (double)sizes[i], t3 - t2) != 0)
                goto fail;
        }
    }
    cal_say_done();
    rc = 0;
fail:
    if (dev)
        cudaFree(dev);
    if (sink)
        cudaFree(sink);
    if (pinned)
        cudaFreeHost(pinned);
    return rc;
}

/* ---- step 9: short-kernel latency alone and beside a second process ---- */

/* Launch-to-completion latency of `count` short kernels, one at a time, into
 * `scalar`; the first 10 are a warm-up.  Stops early after `budget_s`.
 * Returns the number recorded, or -1. */
static long cal__slice_series(cal_run *r, const char *scalar, float *sink, int iters, int count, double budget_s)
{
    double start = cal_clock_now();
    long recorded = 0;
    for (int k = 0; k < count + 10; k++) {
        double t0, t1;
        t0 = cal_clock_now();
        cal_spin_kernel<<<r->sms, 128>>>(sink, iters);
        CAL_LAUNCHED("cal_spin_kernel");
        CAL_CUDA(cudaDeviceSynchronize());
        t1 = cal_clock_now();
        if (k < 10)
            continue;
        if (cal__add_scalar(r, scalar, t1 - t0) != 0)
            return -1;
        recorded++;
        if (t1 - start > budget_s)
            break;
    }
    return recorded;
fail:
    return -1;
}

static int cal__measure_slicing(cal_run *r)
{
    char dev[16], line[128], how[64];
    char *argv[] = {(char *)CAL_PROG, (char *)"--child-hog", (char *)"600", (char *)"--device", dev, NULL};
    cal_child hog = CAL_CHILD_NONE;
    float *sink = NULL;
    double per_iter;
    int iters, status = 0, rc = -1;
    long alone, shared;
    const double kernel_s = 50e-6;
    const double budget_s = r->cfg.quick ? 15.0 : 60.0;

    snprintf(dev, sizeof dev, "%d", r->cfg.device);
    cal_say_step("time-slicing: %d kernels of %.0f us, alone and beside a second process",
                    r->slice_kernels, kernel_s * 1e6);
    CAL_CUDA(cudaMalloc((void **)&sink, (size_t)r->sms * sizeof(float)));
    per_iter = cal__spin_rate(sink, r->sms, 128);
    if (per_iter <= 0)
        goto fail;
    iters = cal__iters_for(kernel_s, per_iter);
    alone = cal__slice_series(r, "slice_alone", sink, iters, r->slice_kernels, budget_s);
    if (alone < 0)
        goto fail;

    if (r->compute_mode != cudaComputeModeDefault) {
        /* Exclusive or prohibited: a second process cannot have a context. */
        fprintf(stderr, "(compute mode %d admits no second process: slice_shared not measured) ",
                r->compute_mode);
        cal_say_done();
        rc = 0;
        goto fail;
    }
    if (cal_child_start(&hog, argv) != 0)
        goto fail;
    if (cal_child_read(&hog, line, sizeof line, true, 120.0, "time-slicing hog") < 0)
        goto fail;
    if (strncmp(line, "ready", 5) != 0) {
        status = cal_child_reap(&hog, true);
        cal_child_describe(status, how, sizeof how);
        cal_say_error("time-slicing hog %s before its context was up", how);
        goto fail;
    }
    close(hog.fd); /* it writes nothing more */
    hog.fd = -1;
    shared = cal__slice_series(r, "slice_shared", sink, iters, r->slice_kernels, budget_s);
    if (shared < 0)
        goto fail;
    /* Still running?  If it died during the measurement, the samples were not shared. */
    if (waitpid(hog.pid, &status, WNOHANG) == hog.pid) {
        hog.pid = 0;
        cal_child_describe(status, how, sizeof how);
        cal_say_error("time-slicing hog %s during the measurement", how);
        goto fail;
    }
    cal_child_reap(&hog, true);
    if (shared < r->slice_kernels)
        fprintf(stderr, "(shared: %ld kernels within %.0f s) ", shared, budget_s);
    cal_say_done();
    rc = 0;
fail:
    cal_child_reap(&hog, true); /* no-op when already reaped */
    if (rc != 0)
        cal_child_relay(&hog);
    cal_child_fini(&hog);
    if (sink)
        cudaFree(sink);
    return rc;
}

/* ------------------------------------------------------------------------ */

/* Device count and range check; CAL_EXIT_OK or CAL_EXIT_NO_DEVICE (after a message). */
static int cal__find_device(int device)
{
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) {
        cal_say_error("no CUDA device: cudaGetDeviceCount failed: %s (%s)", cudaGetErrorString(err),
                    cudaGetErrorName(err));
        return CAL_EXIT_NO_DEVICE;
    }
    if (count <= 0) {
        cal_say_error("no CUDA device: cudaGetDeviceCount found none");
        return CAL_EXIT_NO_DEVICE;
    }
    if (device >= count) {
        cal_say_error("no CUDA device %d: found %d (0 .. %d)", device, count, count - 1);
        return CAL_EXIT_NO_DEVICE;
    }
    return CAL_EXIT_OK;
}

static int cal__main(cal_run *r)
{
    cudaDeviceProp prop;
    time_t now = time(NULL);
    struct tm utc;
    size_t name_len;
    int found;

    found = cal__find_device(r->cfg.device);
    if (found != CAL_EXIT_OK)
        return found;
    /* No context yet: the children of step 1 meet the GPU as a new tenant would. */
    CAL_CUDA(cudaGetDeviceProperties(&prop, r->cfg.device));
    CAL_CUDA(cudaDeviceGetAttribute(&r->compute_mode, cudaDevAttrComputeMode, r->cfg.device));
    CAL_CUDA(cudaDriverGetVersion(&r->samples.driver_version));
    CAL_CUDA(cudaRuntimeGetVersion(&r->samples.runtime_version));
    name_len = strnlen(prop.name, sizeof prop.name); /* 256 bytes into 128: names are ~25 */
    if (name_len >= sizeof r->samples.device)
        name_len = sizeof r->samples.device - 1;
    memcpy(r->samples.device, prop.name, name_len);
    r->samples.device[name_len] = '\0';
    r->samples.memory_gb = (double)prop.totalGlobalMem / (double)CAL_GIB;
    r->sms = prop.multiProcessorCount > 0 ? prop.multiProcessorCount : 1;
    if (gmtime_r(&now, &utc))
        strftime(r->samples.date, sizeof r->samples.date, "%Y-%m-%dT%H:%M:%SZ", &utc);
    fprintf(stderr, "%s: device %d: %s, %.1f GiB, %d SMs, driver %d, runtime %d%s\n", CAL_PROG, r->cfg.device,
            r->samples.device, r->samples.memory_gb, r->sms, r->samples.driver_version, r->samples.runtime_version,
            r->cfg.quick ? " (quick)" : "");

    if (cal_output_probe(r->cfg.out) != 0 || cal__measure_contexts(r) != 0)
        return CAL_EXIT_FAILURE;
    CAL_CUDA(cudaSetDevice(r->cfg.device));
    CAL_CUDA(cudaFree(0));
    if (cal__measure_malloc(r) != 0 || cal__measure_copies(r) != 0 || cal__measure_eviction(r) != 0 ||
        cal__measure_slicing(r) != 0)
        return CAL_EXIT_FAILURE;
    if (cal_output_write(&r->samples, r->cfg.out) != 0)
        return CAL_EXIT_FAILURE;
    cal_output_summary(&r->samples, r->cfg.out);
    return CAL_EXIT_OK;
fail:
    return CAL_EXIT_FAILURE;
}

int main(int argc, char **argv)
{
    cal_run *r;
    int rc;

    r = (cal_run *)calloc(1, sizeof *r);
    if (!r) {
        fprintf(stderr, "%s: out of memory\n", CAL_PROG);
        return CAL_EXIT_FAILURE;
    }
    if (cal_options_parse(argc, argv, &r->cfg) != 0) {
        free(r);
        return CAL_EXIT_USAGE;
    }
    if (r->cfg.help) {
        cal_options_help(stdout);
        free(r);
        return CAL_EXIT_OK;
    }
    if (r->cfg.child_context) {
        rc = cal__child_context_main(r->cfg.device);
    } else if (r->cfg.child_hog_s > 0) {
        rc = cal__child_hog_main(r->cfg.device, r->cfg.child_hog_s);
    } else {
        cal_say_steps(9);
        r->ctx_runs = r->cfg.quick ? 3 : 10;
        r->malloc_reps = r->cfg.quick ? 2 : 5;
        r->copy_reps = r->cfg.quick ? 2 : 5;
        r->evict_reps = r->cfg.quick ? 1 : 3;
        r->slice_kernels = r->cfg.quick ? 200 : 1000;
        r->size_step_malloc = r->cfg.quick ? 16 : 4;
        r->size_step_copy = r->cfg.quick ? 16 : 4;
        rc = cal__main(r);
    }
    fs_calib_samples_fini(&r->samples);
    free(r);
    return rc;
}

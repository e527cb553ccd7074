/*
 * fleetsim-calibrate — measures, on one real GPU, what fleetsim's switch
 * costs and LLM step times are made of (context creation and module loading,
 * allocation, copies in every direction, eviction to host and warm-up back,
 * KV-cache allocation, weights from storage, the step time of a
 * transformer-layer proxy, CUDA graph capture, time-slicing and MPS, and a
 * mixed-workload check) and writes them, fitted and raw, as a calibration
 * profile (profile.h).
 *
 * Eleven steps (--help lists them; --steps picks some), each a progress line
 * on stderr; the profile goes to --out, written to FILE.tmp and renamed after
 * every step, so a failed or killed run leaves the steps done so far and
 * never half a file; a step that fails is noted in the profile and the next
 * one runs; a summary of the fits goes to stdout.  Every measured operation
 * is bracketed by a synchronisation and timed with CLOCK_MONOTONIC (the LLM
 * steps with CUDA events), so a sample is what a tenant waits for, launch
 * overheads included; the first repetition of every size is a warm-up and is
 * discarded.
 *
 * Measurements that need another process get one by re-executing this
 * binary (/proc/self/exe, fork + execv) in a hidden mode:
 *   --child-context       times cudaSetDevice + cudaFree(0), a first kernel
 *                         and the first and second launches of 64 distinct
 *                         kernels in a fresh process;
 *   --child-hog SECONDS   keeps the GPU busy with long kernels, says "ready"
 *                         once its context is up, stops after SECONDS (the
 *                         parent kills it well before);
 *   --child-train, --child-serve, --child-file   the mixed check's two
 *                         processes (cal_mixed.h);
 *   --child-slice         the MPS step's client (cal_mps.cu).
 * Children die with the parent (PR_SET_PDEATHSIG) and are always reaped.
 *
 * The binary links the CUDA runtime and GSL statically: a GPU host needs only
 * the NVIDIA driver (libcuda, which the runtime opens itself); cuBLAS is
 * opened at run time where present (cal_blas.h).
 *
 * Exit status: 0 profile written, 1 runtime failure (a CUDA call, a child, a
 * write; the failing call is named), 2 usage, 3 no CUDA device.
 *
 * This file holds main, the hidden context and hog modes and the steps not
 * kept elsewhere (contexts, allocation, copies, eviction, KV cache, storage,
 * slicing, mixed); cal_llm_steps.cu and cal_mps.cu hold the others, cal_run.h
 * what the steps share.  The plain C around them is in its own modules:
 * cal_options (the command line and exit statuses), cal_child (starting,
 * reading and reaping the children), cal_output (the profile file and the
 * summary), cal_say (progress lines and errors on stderr), cal_storage,
 * samples, profile and profile_fit, cal_clock, and cal_host (the storage
 * plan, and --host-only, which main hands over before any CUDA call).
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <ftw.h>
#include <sys/stat.h>
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
#include "cal_host.h"
#include "cal_options.h"
#include "cal_output.h"
#include "cal_say.h"
#include "cal_mixed.h"
#include "cal_storage.h"
#include "profile.h"
#include "samples.h"
}
#include "cal_kernels.h"
#include "cal_run.h"

void cal_run_cuda_error(const char *call, cudaError_t err)
{
    cal_say_error("%s failed: %s (%s)", call, cudaGetErrorString(err), cudaGetErrorName(err));
}

__global__ void cal_noop_kernel(void) {}

/* ------------------------------------------------------------------------
 * The hidden modes: what a child process runs (started through cal_child).
 */

/* --child-context: one fresh process's context creation, its first kernel,
 * and the first and second launches of CAL_DISTINCT_KERNELS other kernels
 * (each launched and waited for alone): with lazy module loading, the CUDA
 * default since 12.2, a kernel is loaded at its first launch, as the many
 * kernels of a framework's first pass are. */
static int cal__child_context_main(int device)
{
    double t0, t1, t2, t3, t4;
    float *sink = NULL;

    t0 = cal_clock_now();
    CAL_CUDA(cudaSetDevice(device));
    CAL_CUDA(cudaFree(0));
    t1 = cal_clock_now();
    cal_noop_kernel<<<1, 1>>>();
    CAL_LAUNCHED("cal_noop_kernel");
    CAL_CUDA(cudaDeviceSynchronize());
    t2 = cal_clock_now();
    CAL_CUDA(cudaMalloc((void **)&sink, 32 * sizeof(float)));
    CAL_CUDA(cudaMemset(sink, 0, 32 * sizeof(float)));
    CAL_CUDA(cudaDeviceSynchronize());
    t3 = cal_clock_now();
    for (int pass = 0; pass < 2; pass++) {
        for (int k = 0; k < CAL_DISTINCT_KERNELS; k++) {
            if (cal_launch_distinct(k, sink) != 0)
                goto fail;
            CAL_CUDA(cudaDeviceSynchronize());
        }
        if (pass == 0)
            t4 = cal_clock_now();
    }
    printf("%.9f %.9f %.9f %.9f\n", t1 - t0, t2 - t1, t4 - t3, cal_clock_now() - t4);
    cudaFree(sink);
    return fflush(stdout) == 0 ? CAL_EXIT_OK : CAL_EXIT_FAILURE;
fail:
    if (sink)
        cudaFree(sink);
    return CAL_EXIT_FAILURE;
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
    per_iter = cal_spin_rate(sink, sms * 8, 256);
    if (per_iter <= 0)
        goto fail;
    iters = cal_iters_for(0.020, per_iter); /* ~20 ms a kernel */
    printf("ready\n");
    if (fflush(stdout) != 0)
        goto fail;
    end = cal_clock_now() + seconds;
    while (cal_clock_now() < end) {
        if (cal_spin(sink, sms * 8, 256, iters, 0) != 0)
            goto fail;
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


int cal_run_add(cal_run *r, const char *series, double bytes, double seconds)
{
    fs_calib_series *s = fs_calib_series_get(&r->samples, series);
    if (!s || fs_calib_series_add(s, bytes, seconds) != 0) {
        cal_say_error("out of memory recording series %s", series);
        return -1;
    }
    return 0;
}

int cal_run_add_scalar(cal_run *r, const char *scalar, double seconds)
{
    fs_calib_scalar *s = fs_calib_scalar_get(&r->samples, scalar);
    if (!s || fs_calib_scalar_add(s, seconds) != 0) {
        cal_say_error("out of memory recording %s", scalar);
        return -1;
    }
    return 0;
}


const char *cal_run_plural(long n) { return n == 1 ? "" : "s"; }

/* Sizes first, first*factor, ... up to max inclusive; returns the count. */
int cal_run_sizes(size_t first, size_t factor, size_t max, size_t *out, int cap)
{
    int n = 0;
    for (size_t s = first; s <= max && n < cap; s *= factor)
        out[n++] = s;
    return n;
}

void cal_run_fmt_bytes(size_t b, char *buf, size_t cap)
{
    if (b >= CAL_GIB)
        snprintf(buf, cap, "%g GiB", (double)b / (double)CAL_GIB);
    else if (b >= CAL_MIB)
        snprintf(buf, cap, "%g MiB", (double)b / (double)CAL_MIB);
    else
        snprintf(buf, cap, "%g KiB", (double)b / (double)CAL_KIB);
}

/* ---- context creation and first kernel, fresh processes ---- */

static int cal__measure_contexts(cal_run *r)
{
    char dev[16], out[256], how[64];
    char *argv[] = {(char *)CAL_PROG, (char *)"--child-context", (char *)"--device", dev, NULL};
    cal_child child = CAL_CHILD_NONE;

    snprintf(dev, sizeof dev, "%d", r->cfg.device);
    cal_say_step("context creation, fresh processes: %d runs + 1 warm-up", r->ctx_runs);
    for (int i = 0; i <= r->ctx_runs; i++) {
        double ctx, first, many_first, many_second;
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
        if (sscanf(out, "%lf %lf %lf %lf", &ctx, &first, &many_first, &many_second) != 4) {
            cal_say_error("context child printed '%.60s', not four times", out);
            goto fail;
        }
        cal_child_fini(&child);
        if (i == 0)
            continue; /* warm-up: page cache, driver state */
        if (cal_run_add_scalar(r, "context_create", ctx) != 0 || cal_run_add_scalar(r, "first_kernel", first) != 0 ||
            cal_run_add_scalar(r, "module_first_launches", many_first) != 0 ||
            cal_run_add_scalar(r, "module_second_launches", many_second) != 0)
            return -1;
    }
    cal_say_done();
    return 0;
fail:
    cal_child_abandon(&child);
    return -1;
}

/* ---- cudaMalloc / cudaFree against size ---- */

/* Allocation against size, each size reps times after a discarded warm-up:
 * cudaMalloc into series[0], then (with a touch series) a first touch of the
 * whole buffer (cudaMemset) into series[1], then cudaFree into the last. */
static int cal__alloc_series(cal_run *r, const size_t *sizes, int n, const char *const series[3], bool touch)
{
    void *p = NULL;
    for (int i = 0; i < n; i++) {
        for (int rep = 0; rep <= r->malloc_reps; rep++) {
            double t0, t1, t2, t3;
            CAL_CUDA(cudaDeviceSynchronize());
            t0 = cal_clock_now();
            CAL_CUDA(cudaMalloc(&p, sizes[i]));
            CAL_CUDA(cudaDeviceSynchronize());
            t1 = cal_clock_now();
            if (touch) {
                CAL_CUDA(cudaMemset(p, 0, sizes[i]));
                CAL_CUDA(cudaDeviceSynchronize());
            }
            t2 = cal_clock_now();
            CAL_CUDA(cudaFree(p));
            p = NULL;
            CAL_CUDA(cudaDeviceSynchronize());
            t3 = cal_clock_now();
            if (rep == 0)
                continue;
            if (cal_run_add(r, series[0], (double)sizes[i], t1 - t0) != 0 ||
                (touch && cal_run_add(r, series[1], (double)sizes[i], t2 - t1) != 0) ||
                cal_run_add(r, series[2], (double)sizes[i], t3 - t2) != 0)
                return -1;
        }
    }
    return 0;
fail:
    if (p)
        cudaFree(p);
    return -1;
}

static int cal__measure_malloc(cal_run *r)
{
    static const char *const series[3] = {"malloc", NULL, "free"};
    size_t sizes[32], free_b = 0, total_b = 0, max;
    int n;

    CAL_CUDA(cudaMemGetInfo(&free_b, &total_b));
    max = cal_run_min(4 * CAL_GIB, (size_t)(r->cfg.max_gib * (double)CAL_GIB));
    max = cal_run_min(max, free_b / 10 * 8);
    n = cal_run_sizes(CAL_MIB, r->size_step_malloc, max, sizes, 32);
    cal_say_step("cudaMalloc / cudaFree: %d size%s x %d repetition%s", n, cal_run_plural(n), r->malloc_reps,
                    cal_run_plural(r->malloc_reps));
    if (cal__alloc_series(r, sizes, n, series, false) != 0)
        return -1;
    cal_say_done();
    return 0;
fail:
    return -1;
}

/* ---- copies against size ---- */

static int cal__copy_series(cal_run *r, const char *series, const char *title, void *dst, const void *src,
                            cudaMemcpyKind kind, size_t max)
{
    size_t sizes[32];
    int n = cal_run_sizes(4 * CAL_KIB, r->size_step_copy, max, sizes, 32);

    cal_say_step("%s: %d size%s x %d repetition%s", title, n, cal_run_plural(n), r->copy_reps, cal_run_plural(r->copy_reps));
    for (int i = 0; i < n; i++) {
        for (int rep = 0; rep <= r->copy_reps; rep++) {
            double t0, t1;
            CAL_CUDA(cudaDeviceSynchronize());
            t0 = cal_clock_now();
            CAL_CUDA(cudaMemcpy(dst, src, sizes[i], kind));
            CAL_CUDA(cudaDeviceSynchronize());
            t1 = cal_clock_now();
            if (rep > 0 && cal_run_add(r, series, (double)sizes[i], t1 - t0) != 0)
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
    size_t free_b = 0, total_b = 0, host = cal_host_mem_available(), max;
    void *pinned = NULL, *dev_a = NULL, *dev_b = NULL;
    char *pageable = NULL;
    int rc = -1;

    CAL_CUDA(cudaMemGetInfo(&free_b, &total_b));
    max = cal_run_min(CAL_GIB, (size_t)(r->cfg.max_gib * (double)CAL_GIB));
    max = cal_run_min(max, free_b / 10 * 4); /* two device buffers */
    if (host)
        max = cal_run_min(max, host / 4); /* a pinned and a pageable buffer */
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

/* ---- eviction of a tenant's state and warm-up of the next ---- */

/* One host buffer kind: the state saved to `host` and freed (evict), then
 * memory taken again, the state copied back and a first kernel over it
 * (warm-up), each size `reps` times after a discarded warm-up repetition. */
static int cal__eviction_series(cal_run *r, const size_t *sizes, int n, void *host, unsigned *sink,
                                const char *evict_name, const char *warmup_name)
{
    void *dev = NULL;
    for (int i = 0; i < n; i++) {
        for (int rep = 0; rep <= r->evict_reps; rep++) {
            double t0, t1, t2, t3;
            /* The tenant's state: resident and written. */
            CAL_CUDA(cudaMalloc(&dev, sizes[i]));
            CAL_CUDA(cudaMemset(dev, 0x5a + rep, sizes[i]));
            CAL_CUDA(cudaDeviceSynchronize());
            /* Eviction: state to host, memory back to the pool. */
            t0 = cal_clock_now();
            CAL_CUDA(cudaMemcpy(host, dev, sizes[i], cudaMemcpyDeviceToHost));
            CAL_CUDA(cudaFree(dev));
            dev = NULL;
            CAL_CUDA(cudaDeviceSynchronize());
            t1 = cal_clock_now();
            /* Warm-up of the next tenant: memory, state back, first kernel over it. */
            t2 = cal_clock_now();
            CAL_CUDA(cudaMalloc(&dev, sizes[i]));
            CAL_CUDA(cudaMemcpy(dev, host, sizes[i], cudaMemcpyHostToDevice));
            if (cal_touch(dev, sizes[i], sink, r->sms, 0) != 0)
                goto fail;
            CAL_CUDA(cudaDeviceSynchronize());
            t3 = cal_clock_now();
            CAL_CUDA(cudaFree(dev));
            dev = NULL;
            if (rep == 0)
                continue;
            if (cal_run_add(r, evict_name, (double)sizes[i], t1 - t0) != 0 ||
                cal_run_add(r, warmup_name, (double)sizes[i], t3 - t2) != 0)
                goto fail;
        }
    }
    return 0;
fail:
    if (dev)
        cudaFree(dev);
    return -1;
}

static int cal__measure_eviction(cal_run *r)
{
    size_t free_b = 0, total_b = 0, host = cal_host_mem_available(), cap, sizes[32];
    const size_t grain = 2 * CAL_MIB; /* allocation granularity; keeps sizes in whole uint4s */
    void *pinned = NULL;
    char *pageable = NULL;
    unsigned *sink = NULL;
    int n = 0, rc = -1;
    char lo[32], hi[32];

    CAL_CUDA(cudaMemGetInfo(&free_b, &total_b));
    cap = cal_run_min((size_t)(r->cfg.max_gib * (double)CAL_GIB), free_b / 10 * 8);
    if (host)
        cap = cal_run_min(cap, host / 3); /* the pinned and the pageable copy of the state */
    if (r->cfg.quick)
        cap = cal_run_min(cap, CAL_GIB);
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
    cal_run_fmt_bytes(sizes[0], lo, sizeof lo);
    cal_run_fmt_bytes(sizes[n - 1], hi, sizeof hi);
    cal_say_step("eviction and warm-up, pinned and pageable: %d size%s (%s .. %s) x %d repetition%s", n,
                 cal_run_plural(n), lo, hi, r->evict_reps, cal_run_plural(r->evict_reps));
    CAL_CUDA(cudaMallocHost(&pinned, sizes[n - 1]));
    CAL_CUDA(cudaMalloc((void **)&sink, sizeof *sink));
    pageable = (char *)malloc(sizes[n - 1]);
    if (!pageable) {
        cal_say_error("eviction: out of host memory (%zu bytes pageable)", sizes[n - 1]);
        goto fail;
    }
    memset(pageable, 0xc3, sizes[n - 1]); /* touch: the pages exist before the copies */
    if (cal__eviction_series(r, sizes, n, pinned, sink, "evict", "warmup") != 0 ||
        cal__eviction_series(r, sizes, n, pageable, sink, "evict_pageable", "warmup_pageable") != 0)
        goto fail;
    cal_say_done();
    rc = 0;
fail:
    free(pageable);
    if (sink)
        cudaFree(sink);
    if (pinned)
        cudaFreeHost(pinned);
    return rc;
}

/* ---- short-kernel latency alone and beside a second process ---- */

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
        if (cal_spin(sink, r->sms, 128, iters, 0) != 0)
            return -1;
        CAL_CUDA(cudaDeviceSynchronize());
        t1 = cal_clock_now();
        if (k < 10)
            continue;
        if (cal_run_add_scalar(r, scalar, t1 - t0) != 0)
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
    char dev[16];
    char *argv[] = {(char *)CAL_PROG, (char *)"--child-hog", (char *)"600", (char *)"--device", dev, NULL};
    cal_child hog = CAL_CHILD_NONE;
    float *sink = NULL;
    double per_iter;
    int iters, rc = -1;
    long alone, shared;
    const double kernel_s = 50e-6;
    const double budget_s = r->cfg.quick ? 15.0 : 60.0;

    snprintf(dev, sizeof dev, "%d", r->cfg.device);
    cal_say_step("time-slicing: %d kernels of %.0f us, alone and beside a second process",
                    r->slice_kernels, kernel_s * 1e6);
    CAL_CUDA(cudaMalloc((void **)&sink, (size_t)r->sms * sizeof(float)));
    per_iter = cal_spin_rate(sink, r->sms, 128);
    if (per_iter <= 0)
        goto fail;
    r->spin_per_iter = per_iter;
    iters = cal_iters_for(kernel_s, per_iter);
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
    if (cal_child_start_ready(&hog, argv, "time-slicing hog") != 0)
        goto fail;
    shared = cal__slice_series(r, "slice_shared", sink, iters, r->slice_kernels, budget_s);
    if (shared < 0 || !cal_child_running(&hog, "time-slicing hog"))
        goto fail;
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

/* ---- KV-cache pre-allocation and first touch ---- */

static int cal__measure_kv(cal_run *r)
{
    static const char *const series[3] = {"kv_alloc", "kv_touch", "kv_free"};
    size_t free_b = 0, total_b = 0, max, sizes[16];
    int n = 0;

    CAL_CUDA(cudaMemGetInfo(&free_b, &total_b));
    max = cal_run_min(r->cfg.quick ? 4 * CAL_GIB : 32 * CAL_GIB, free_b / 10 * 8);
    n = cal_run_sizes(CAL_GIB, r->cfg.quick ? 4 : 2, max, sizes, 16);
    if (n == 0) {
        cal_say_error("kv: only %zu bytes of device memory free", free_b);
        return -1;
    }
    cal_say_step("KV-cache allocation and first touch: %d size%s x %d repetition%s", n, cal_run_plural(n), r->malloc_reps,
                 cal_run_plural(r->malloc_reps));
    if (cal__alloc_series(r, sizes, n, series, true) != 0)
        return -1;
    cal_say_done();
    return 0;
fail:
    return -1;
}

/* ---- storage: the file read cold and warm, and to the device ---- */

typedef struct cal_storage_dev {
    void *dev;
    size_t bytes;
} cal_storage_dev;

static void *cal__pinned_alloc(size_t bytes, void *ctx)
{
    void *p = NULL;
    (void)ctx;
    return cudaMallocHost(&p, bytes) == cudaSuccess ? p : NULL;
}

static void cal__pinned_free(void *p, void *ctx)
{
    (void)ctx;
    cudaFreeHost(p);
}

static int cal__upload(const void *host, size_t bytes, void *ctx)
{
    cal_storage_dev *d = (cal_storage_dev *)ctx;
    cudaError_t err = cudaMemcpy(d->dev, host, bytes < d->bytes ? bytes : d->bytes, cudaMemcpyHostToDevice);
    if (err == cudaSuccess)
        err = cudaDeviceSynchronize();
    if (err != cudaSuccess) {
        cal_run_cuda_error("cudaMemcpy (storage to device)", err);
        return -1;
    }
    return 0;
}

static int cal__measure_storage(cal_run *r)
{
    cal_storage_dev d = {NULL, 0};
    cal_storage_ops ops = {cal__pinned_alloc, cal__pinned_free, cal__upload, &d};
    cal_storage_plan plan;
    int rc;

    if (cal_host_storage_plan(&r->cfg, &plan) != 0)
        return -1;
    cal_say_step("storage: a %.2f GiB file in %s, cold and warm, pageable, pinned and to the device",
                 (double)plan.max_bytes / (double)CAL_GIB, plan.dir);
    CAL_CUDA(cudaMalloc(&d.dev, plan.max_bytes));
    d.bytes = plan.max_bytes;
    rc = cal_storage_measure(&plan, &ops, &r->samples);
    cudaFree(d.dev);
    if (rc == 0)
        cal_say_done();
    return rc;
fail:
    return -1;
}

/* ---- the mixed-workload check ---- */

static int cal__measure_mixed(cal_run *r)
{
    cal_mixed_plan plan;
    size_t host = cal_host_mem_available(), free_b = 0, total_b = 0;
    const double service_s = 0.005;
    float *sink = NULL;
    int rc;

    /* The service kernel's length needs the spin's speed on this GPU. */
    if (r->spin_per_iter <= 0) {
        CAL_CUDA(cudaMalloc((void **)&sink, (size_t)r->sms * sizeof(float)));
        r->spin_per_iter = cal_spin_rate(sink, r->sms, 128);
        cudaFree(sink);
        sink = NULL;
        if (r->spin_per_iter <= 0)
            return -1;
    }
    CAL_CUDA(cudaMemGetInfo(&free_b, &total_b));
    memset(&plan, 0, sizeof plan);
    plan.dir = r->cfg.scratch;
    plan.device = r->cfg.device;
    plan.state_bytes = cal_run_min(r->cfg.quick ? 2 * CAL_GIB : 16 * CAL_GIB, total_b / 4) / (2 * CAL_MIB) * (2 * CAL_MIB);
    plan.weights_bytes = r->cfg.quick ? CAL_GIB : 4 * CAL_GIB;
    if (host) {
        plan.state_bytes = cal_run_min(plan.state_bytes, host / 4) / (2 * CAL_MIB) * (2 * CAL_MIB);
        plan.weights_bytes = cal_run_min(plan.weights_bytes, host / 4) / (2 * CAL_MIB) * (2 * CAL_MIB);
    }
    plan.rate_per_s = 100.0;
    plan.duration_s = r->cfg.quick ? 8.0 : 20.0;
    plan.service_s = service_s;
    plan.trials = r->cfg.quick ? 1 : 3;
    plan.sms = r->sms;
    plan.service_iters = cal_iters_for(service_s, r->spin_per_iter);
    cal_say_step("mixed workload: %d trial%s, %.0f requests/s for %.0f s, %.0f ms each; %.1f GiB evicted, %.1f GiB "
                 "loaded",
                 plan.trials, cal_run_plural(plan.trials), plan.rate_per_s, plan.duration_s, service_s * 1e3,
                 (double)plan.state_bytes / (double)CAL_GIB, (double)plan.weights_bytes / (double)CAL_GIB);
    /* This process must not be a third tenant: its context goes first. */
    CAL_CUDA(cudaDeviceReset());
    rc = cal_mixed_measure(&plan, &r->samples);
    if (rc == 0)
        cal_say_done();
    return rc;
fail:
    if (sink)
        cudaFree(sink);
    return -1;
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

/* One step: run it if --steps names it; a failure is noted in the profile
 * and counted, and the run goes on with the next step. */
typedef int (*cal_step_fn)(cal_run *r);

static void cal__run_step(cal_run *r, const char *name, cal_step_fn fn, int *failed)
{
    if (!cal_options_step_on(&r->cfg, name))
        return;
    if (fn(r) != 0) {
        fs_calib_note(&r->samples, "%s: failed; its samples may be partial (see the run's stderr)", name);
        (*failed)++;
        cudaGetLastError(); /* a non-sticky error must not fail the next step */
    }
    /* The profile so far, after every step: a later step that hangs or
     * crashes the process cannot take the earlier ones' samples with it. */
    if (cal_output_write(&r->samples, r->cfg.out) != 0)
        (*failed)++;
}

static int cal__parent_context(cal_run *r)
{
    CAL_CUDA(cudaSetDevice(r->cfg.device));
    CAL_CUDA(cudaFree(0));
    return 0;
fail:
    return -1;
}

/* The number of progress lines the chosen steps print. */
static int cal__progress_lines(const cal_config *cfg)
{
    int n = 0;
    for (int i = 0; i < cal_step_count; i++)
        if (cal_options_step_on(cfg, cal_steps[i].name))
            n += strcmp(cal_steps[i].name, "copies") == 0 ? 5 : 1;
    return n;
}

static int cal__main(cal_run *r)
{
    cudaDeviceProp prop;
    time_t now = time(NULL);
    struct tm utc;
    size_t name_len;
    int found, failed = 0;
    const char *loading = getenv("CUDA_MODULE_LOADING");

    found = cal__find_device(r->cfg.device);
    if (found != CAL_EXIT_OK)
        return found;
    /* No context yet: the children of the context step meet the GPU as a new tenant would. */
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
    fs_calib_note(&r->samples, "run: %s mode, CUDA_MODULE_LOADING=%s, scratch %s", r->cfg.quick ? "quick" : "full",
                  loading ? loading : "(unset: lazy)", r->cfg.scratch);

    if (cal_output_probe(r->cfg.out) != 0)
        return CAL_EXIT_FAILURE;
    cal__run_step(r, "context", cal__measure_contexts, &failed);
    if (cal__parent_context(r) != 0)
        return CAL_EXIT_FAILURE;
    cal__run_step(r, "malloc", cal__measure_malloc, &failed);
    cal__run_step(r, "copies", cal__measure_copies, &failed);
    cal__run_step(r, "eviction", cal__measure_eviction, &failed);
    cal__run_step(r, "kv", cal__measure_kv, &failed);
    cal__run_step(r, "storage", cal__measure_storage, &failed);
    cal__run_step(r, "step-time", cal_step_time_measure, &failed);
    cal__run_step(r, "graphs", cal_graphs_measure, &failed);
    cal__run_step(r, "slicing", cal__measure_slicing, &failed);
    /* The last three give up this process's context: no step after them needs it. */
    cal__run_step(r, "mixed", cal__measure_mixed, &failed);
    cal__run_step(r, "mps", cal_mps_measure, &failed);
    cal__run_step(r, "share", cal_share_measure, &failed);
    if (cal_output_write(&r->samples, r->cfg.out) != 0)
        return CAL_EXIT_FAILURE;
    cal_output_summary(&r->samples, r->cfg.out);
    if (failed > 0) {
        cal_say_error("%d step%s failed (named in the profile's samples.notes)", failed, cal_run_plural(failed));
        return CAL_EXIT_FAILURE;
    }
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
    if (r->cfg.host_only) {
        rc = cal_host_main(&r->cfg); /* before any CUDA call: it must run where there is no GPU */
    } else if (r->cfg.child_context) {
        rc = cal__child_context_main(r->cfg.device);
    } else if (r->cfg.child_hog_s > 0) {
        rc = cal__child_hog_main(r->cfg.device, r->cfg.child_hog_s);
    } else if (r->cfg.child_train) {
        rc = cal_mixed_train_main(r->cfg.device, r->cfg.child_train);
    } else if (r->cfg.child_serve) {
        rc = r->cfg.child_file ? cal_mixed_serve_main(r->cfg.device, r->cfg.child_serve, r->cfg.child_file)
                               : CAL_EXIT_USAGE;
    } else if (r->cfg.child_slice) {
        rc = cal_mps_child_slice_main(r->cfg.device, r->cfg.child_slice);
    } else if (r->cfg.child_work) {
        rc = cal_share_child_work_main(r->cfg.device, r->cfg.child_work);
    } else {
        cal_say_steps(cal__progress_lines(&r->cfg));
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

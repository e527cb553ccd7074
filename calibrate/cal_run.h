/*
 * cal_run — one fleetsim-calibrate run as its measuring steps share it: the
 * settings, the GPU's size, the samples being taken, and the helpers every
 * step records and reports with.  The steps live in fleetsim_calibrate.cu
 * (copies, allocation, eviction, storage, slicing, mixed), cal_llm_steps.cu
 * (the LLM step time, graph capture) and cal_mps.cu (MPS, shares); main() in
 * fleetsim_calibrate.cu owns the cal_run.
 *
 * CUDA C++ only (the .cu files).  Every CUDA call goes through CAL_CUDA: on
 * failure it names the call and jumps to the function's `fail` label, which
 * releases what the function holds; functions using it declare all their
 * variables before the first use, as C++ forbids jumping over an
 * initialisation.
 */
#ifndef FS_CALIB_RUN_H
#define FS_CALIB_RUN_H

#include <stddef.h>

#include <cuda_runtime.h>

extern "C" {
#include "cal_options.h"
#include "samples.h"
}

#define CAL_KIB ((size_t)1 << 10)
#define CAL_MIB ((size_t)1 << 20)
#define CAL_GIB ((size_t)1 << 30)

typedef struct cal_run {
    cal_config cfg;
    int sms;
    int compute_mode;
    fs_calib_samples samples;
    /* repetitions (each plus one discarded warm-up) and counts */
    int ctx_runs, malloc_reps, copy_reps, evict_reps, slice_kernels;
    double spin_per_iter; /* cal_spin seconds per iteration over sms x 128, from the slicing step */
    size_t size_step_malloc, size_step_copy; /* size factor between points */
} cal_run;

void cal_run_cuda_error(const char *call, cudaError_t err);

#define CAL_CUDA(call)                                                                             \
    do {                                                                                           \
        cudaError_t cal_err_ = (call);                                                             \
        if (cal_err_ != cudaSuccess) {                                                             \
            cal_run_cuda_error(#call, cal_err_);                                                   \
            goto fail;                                                                             \
        }                                                                                          \
    } while (0)

/* After a <<<>>> launch: launch errors surface through cudaGetLastError. */
#define CAL_LAUNCHED(kernel)                                                                       \
    do {                                                                                           \
        cudaError_t cal_err_ = cudaGetLastError();                                                 \
        if (cal_err_ != cudaSuccess) {                                                             \
            cal_run_cuda_error("launch of " kernel, cal_err_);                                     \
            goto fail;                                                                             \
        }                                                                                          \
    } while (0)

/* One sample into a series / a scalar; 0, or -1 after a message. */
int cal_run_add(cal_run *r, const char *series, double bytes, double seconds);
int cal_run_add_scalar(cal_run *r, const char *scalar, double seconds);

/* "s" unless n is 1, for progress lines. */
const char *cal_run_plural(long n);

/* Sizes first, first*factor, ... up to max inclusive; returns the count. */
int cal_run_sizes(size_t first, size_t factor, size_t max, size_t *out, int cap);

/* "512 MiB", "8 GiB", for progress lines. */
void cal_run_fmt_bytes(size_t b, char *buf, size_t cap);

static inline size_t cal_run_min(size_t a, size_t b) { return a < b ? a : b; }

/* The steps that live outside fleetsim_calibrate.cu; 0, or -1 after a message. */
int cal_step_time_measure(cal_run *r);      /* cal_llm_steps.cu */
int cal_graphs_measure(cal_run *r);         /* cal_llm_steps.cu */
int cal_mps_measure(cal_run *r);            /* cal_mps.cu */
int cal_share_measure(cal_run *r);          /* cal_mps.cu */
/* --child-slice COUNT,ITERS: the MPS step's client process; an exit status. */
int cal_mps_child_slice_main(int device, const char *spec);
/* --child-work KIND,COUNT,WORK,SMS: the share step's client process; an exit status. */
int cal_share_child_work_main(int device, const char *spec);

#endif

/*
 * profile_fit — what a calibration profile says beyond the plain series fits: how
 * well each fit predicts what it was not fitted on, the LLM step-time model
 * fitted to the layer proxy, CUDA graph capture against graph size, and the
 * mixed-workload check's per-trial latency.
 *
 * Validation: every size series with at least three distinct sizes is
 * fitted again on all but its largest size, and that fit predicts the
 * largest (measured: the median of its repetitions).  The step-time model is
 * fitted on prefill-only and decode-only steps and predicts the steps that
 * mix both, which it never saw.  Each prediction is one row: what, its
 * input, measured, predicted, error in per cent.  A profile whose figures
 * cannot be checked this way says so with no rows for them; the simulator
 * refuses a measured profile with no validation table at all.
 *
 * Plain C and GSL (no jansson): the measuring tool writes a profile with it
 * on a bare GPU host, and `fleetsim calibrate` refits a profile's recorded
 * samples with the same code.  Nothing here owns memory between calls.
 */
#ifndef FS_CALIB_PROFILE_FIT_H
#define FS_CALIB_PROFILE_FIT_H

#include <stddef.h>

#include "samples.h"

/* One prediction checked against a measurement. */
typedef struct fs_calib_check {
    char what[48];   /* a series ("h2d_pinned") or "step_time gemm 1 H 4096" */
    char input[64];  /* "1073741824 bytes", "T 256 B 16 L 1024" */
    double measured_s, predicted_s, error_pct; /* error = (predicted - measured) / measured */
} fs_calib_check;

#define FS_CALIB_MAX_CHECKS 128

/* Held-out validation of every series (see above) and of every step-time
 * model; returns the number of rows written to out (at most cap). */
size_t fs_calib_validate(const fs_calib_samples *s, fs_calib_check *out, size_t cap);

/* The LLM step-time model of one GEMM backend at one hidden size, per layer:
 *   seconds = c0 + c_prefill x T + c_decode x B + c_kv x (B x L)
 * (T prompt tokens, B decoding sequences, L tokens of context each), the
 * linear model of scenarios/README.md's "Step time", fitted by least squares
 * to the prefill-only and decode-only steps of the "step_time" table. */
typedef struct fs_calib_step_model {
    int gemm;     /* 0: the tool's own kernel, 1: cuBLAS */
    int hidden;
    double c0_s, c_prefill_s, c_decode_s, c_kv_s;
    double r_squared;
    size_t n;     /* steps fitted */
} fs_calib_step_model;

#define FS_CALIB_MAX_STEP_MODELS 8

/* Fits every (gemm, hidden) of the step_time table; returns how many. */
size_t fs_calib_fit_steps(const fs_calib_samples *s, fs_calib_step_model *out, size_t cap);

/* CUDA graph capture plus instantiation against the graph's kernel count:
 *   seconds = per_graph_s + per_kernel_s x kernels
 * (least squares over every row of "graph_capture"); 0, or -1 without rows
 * of two distinct kernel counts. */
typedef struct fs_calib_graph_fit {
    double per_graph_s, per_kernel_s;
    size_t n;
} fs_calib_graph_fit;
int fs_calib_fit_graphs(const fs_calib_samples *s, fs_calib_graph_fit *out);

/* One mixed-workload trial: its requests' latency (end - arrival) and when
 * the serving replica was ready, seconds after t0.  Quantiles are nearest
 * rank: the ceil(q n)-th smallest. */
typedef struct fs_calib_trial {
    int trial;
    size_t requests;
    double p50_s, p99_s, max_s, ready_s;
} fs_calib_trial;

#define FS_CALIB_MAX_TRIALS 16

/* Summarises the mixed_requests and mixed_phases tables; returns the number
 * of trials, or 0 when there are none (or out of memory). */
size_t fs_calib_mixed_trials(const fs_calib_samples *s, fs_calib_trial *out, size_t cap);

/* The nearest-rank q-quantile of n values (sorted in place); NAN when n = 0. */
double fs_calib_quantile(double *x, size_t n, double q);

#endif

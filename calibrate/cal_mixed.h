/*
 * cal_mixed — the mixed-workload check: the morning tail at the scale of one
 * GPU, measured, so that fleetsim's prediction from the same profile can be
 * held against it.
 *
 * One trial: a training process holds `state_bytes` on the GPU and computes;
 * at t0 Poisson requests (rate_per_s, for duration_s) start arriving for a
 * serving replica that is not there yet, and the training process is told to
 * go.  It saves its state to pinned host memory and frees it (eviction), and
 * then waits, suspended, with its context and its host copy, as an evicted
 * job would, until the trial ends; a fresh serving process then starts: CUDA context, weights read
 * from a cold file in `dir` through a pinned bounce buffer to the device,
 * a first kernel over them, and then it serves the requests first come first
 * served, one kernel of about service_s each.  Every request's arrival, start
 * and end, and every phase of the switch, are kept (times from t0).
 *
 * Tables it adds to the samples:
 *   mixed_phases    trial, rate_per_s, duration_s, state_bytes, weights_bytes,
 *                   evict_start_s, evict_copied_s, evict_end_s, serve_start_s,
 *                   context_s, loaded_s, ready_s  (instants after t0)
 *   mixed_load      trial, read_s, h2d_s, pinned_alloc_s, service_kernel_s
 *                   (durations: the weights' reads, their copies, the
 *                   training process's pinned buffer, one request alone)
 *   mixed_requests  trial, arrival_s, start_s, end_s
 *
 * The processes are this binary re-executed (cal_child): --child-train and
 * --child-serve are their hidden modes.  Owns nothing between calls.
 */
#ifndef FS_CALIB_MIXED_H
#define FS_CALIB_MIXED_H

#include <stddef.h>

#include "samples.h"

typedef struct cal_mixed_plan {
    const char *dir;      /* where the weights file goes */
    int device;
    size_t state_bytes;   /* the training process's state on the GPU */
    size_t weights_bytes; /* the serving replica's weights, from storage */
    double rate_per_s, duration_s, service_s;
    int trials;
    int sms;
    int service_iters;    /* cal_spin iterations over sms x 128 for about service_s */
} cal_mixed_plan;

/* Runs the trials (the caller holds no CUDA context: this process must not
 * be a third tenant); 0, or -1 after a message. */
int cal_mixed_measure(const cal_mixed_plan *plan, fs_calib_samples *out);

/* The hidden modes' mains: exit statuses as cal_options.h. */
int cal_mixed_train_main(int device, const char *spec);
int cal_mixed_serve_main(int device, const char *spec, const char *weights_path);

#endif

/*
 * cal_kernels — the small kernels several measurements share, behind host
 * functions: a fixed-work spin (a stand-in for a request's or a training
 * step's compute), a touch that reads a whole buffer once (a tenant's first
 * kernel over its state), and the spin's measured speed.
 *
 * Compiled as CUDA C++ and used only by the other .cu files.  Launch errors
 * are reported through cal_say and returned as -1.
 */
#ifndef FS_CALIB_KERNELS_H
#define FS_CALIB_KERNELS_H

#include <stddef.h>

#include <cuda_runtime.h>

/* A dependent chain of `iters` FMAs per thread over blocks x threads: fixed
 * work, so under time-slicing it takes longer in wall time rather than
 * ending early (a clock-based spin would end on time however little it ran).
 * sink holds `blocks` floats.  0 or -1. */
int cal_spin(float *sink, int blocks, int threads, int iters, cudaStream_t stream);

/* Reads every 16-byte word of p (bytes a multiple of 16) once. */
int cal_touch(const void *p, size_t bytes, unsigned *sink, int sms, cudaStream_t stream);

/* Seconds per iteration of cal_spin at this grid, from the difference of two
 * lengths (so launch overhead cancels); <= 0 on failure. */
double cal_spin_rate(float *sink, int blocks, int threads);

/* Iterations for about `seconds` at `per_iter`, clamped to [1, 2e9]. */
int cal_iters_for(double seconds, double per_iter);

/* One of 64 distinct trivial kernels (k in 0..63), one thread block of 32:
 * the first launch of each loads it (CUDA's lazy module loading), like the
 * many kernels a framework meets on its first pass.  0 or -1. */
int cal_launch_distinct(int k, float *sink);
#define CAL_DISTINCT_KERNELS 64

#endif

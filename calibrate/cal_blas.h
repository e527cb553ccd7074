/*
 * cal_blas — cuBLAS, when the GPU host has it, opened at run time.
 *
 * A serving engine's GEMMs are cuBLAS's (or CUTLASS's), tuned far beyond
 * what cal_layer's own WMMA kernel reaches; the step-time curve is measured
 * with both where cuBLAS can be found, so a profile carries the curve of
 * the GEMMs an engine really runs.  The measuring binary still links only
 * libc and the CUDA runtime: libcublas is dlopen'ed (FLEETSIM_CUBLAS, else
 * libcublas.so.13 / .12 / .so on the loader's path or in
 * /usr/local/cuda/lib64), and a host without it measures the proxy alone.
 *
 * Owns one cuBLAS handle between cal_blas_open and cal_blas_close.
 */
#ifndef FS_CALIB_BLAS_H
#define FS_CALIB_BLAS_H

#include <stddef.h>

#include <cuda_runtime.h>

/* 0 with the library's path in `where`, or -1 with the reason in `where`.
 * Opening it again while open is a no-op that returns 0. */
int cal_blas_open(char *where, size_t cap);

/* C[M x N] = A[M x K] . B[K x N], row-major bf16, fp32 accumulation, on
 * stream; 0, or -1 after a message. */
int cal_blas_gemm(const void *a, const void *b, void *c, int m, int n, int k, cudaStream_t stream);

void cal_blas_close(void);

#endif

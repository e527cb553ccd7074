/* cal_blas — cuBLAS opened at run time (cal_blas.h). */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cublas_api.h>
#include <cuda_runtime.h>

extern "C" {
#include "cal_say.h"
}
#include "cal_blas.h"

/* cublasGemmEx's C signature (the header also overloads it for C++). */
typedef cublasStatus_t (*cal_gemm_ex_fn)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                                         const void *, const void *, cudaDataType, int, const void *, cudaDataType,
                                         int, const void *, void *, cudaDataType, int, cublasComputeType_t,
                                         cublasGemmAlgo_t);

/* The four entry points used, typed from cuBLAS's own header. */
static struct {
    void *lib;
    cublasHandle_t handle;
    decltype(&cublasCreate_v2) create;
    decltype(&cublasDestroy_v2) destroy;
    decltype(&cublasSetStream_v2) set_stream;
    cal_gemm_ex_fn gemm;
} cal_blas;

int cal_blas_open(char *where, size_t cap)
{
    const char *env = getenv("FLEETSIM_CUBLAS");
    const char *names[] = {env, "libcublas.so.13", "libcublas.so.12", "libcublas.so",
                           "/usr/local/cuda/lib64/libcublas.so.13", "/usr/local/cuda/lib64/libcublas.so.12"};
    const char *found = NULL;
    if (cal_blas.handle) { /* open already: one handle serves every caller */
        snprintf(where, cap, "libcublas (open)");
        return 0;
    }
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !cal_blas.lib; i++)
        if (names[i] && (cal_blas.lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL)) != NULL)
            found = names[i];
    if (!cal_blas.lib) {
        snprintf(where, cap, "libcublas not found (set FLEETSIM_CUBLAS to its path)");
        return -1;
    }
    cal_blas.create = (decltype(&cublasCreate_v2))dlsym(cal_blas.lib, "cublasCreate_v2");
    cal_blas.destroy = (decltype(&cublasDestroy_v2))dlsym(cal_blas.lib, "cublasDestroy_v2");
    cal_blas.set_stream = (decltype(&cublasSetStream_v2))dlsym(cal_blas.lib, "cublasSetStream_v2");
    cal_blas.gemm = (cal_gemm_ex_fn)dlsym(cal_blas.lib, "cublasGemmEx");
    if (!cal_blas.create || !cal_blas.destroy || !cal_blas.set_stream || !cal_blas.gemm) {
        snprintf(where, cap, "%s lacks cublasCreate_v2, cublasSetStream_v2 or cublasGemmEx", found);
        dlclose(cal_blas.lib);
        memset(&cal_blas, 0, sizeof cal_blas);
        return -1;
    }
    if (cal_blas.create(&cal_blas.handle) != CUBLAS_STATUS_SUCCESS) {
        snprintf(where, cap, "%s: cublasCreate failed", found);
        dlclose(cal_blas.lib);
        memset(&cal_blas, 0, sizeof cal_blas);
        return -1;
    }
    snprintf(where, cap, "%s", found);
    return 0;
}

int cal_blas_gemm(const void *a, const void *b, void *c, int m, int n, int k, cudaStream_t stream)
{
    const float one = 1.0f, zero = 0.0f;
    cublasStatus_t st;
    if (!cal_blas.lib) {
        cal_say_error("cuBLAS is not open");
        return -1;
    }
    /* Row-major C = A.B is column-major C^T = B^T.A^T: B first, no transposes. */
    st = cal_blas.set_stream(cal_blas.handle, stream);
    if (st == CUBLAS_STATUS_SUCCESS)
        st = cal_blas.gemm(cal_blas.handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, b, CUDA_R_16BF, n, a,
                           CUDA_R_16BF, k, &zero, c, CUDA_R_16BF, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    if (st != CUBLAS_STATUS_SUCCESS) {
        cal_say_error("cublasGemmEx (%d x %d x %d) failed: status %d", m, n, k, (int)st);
        return -1;
    }
    return 0;
}

void cal_blas_close(void)
{
    if (!cal_blas.lib)
        return;
    cal_blas.destroy(cal_blas.handle);
    dlclose(cal_blas.lib);
    memset(&cal_blas, 0, sizeof cal_blas);
}

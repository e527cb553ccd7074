/* cal_kernels — kernels shared by the measurements (cal_kernels.h). */
#include <stdint.h>

#include <cuda_runtime.h>

extern "C" {
#include "cal_clock.h"
#include "cal_say.h"
}
#include "cal_kernels.h"

__global__ void cal_spin_kernel(float *sink, int iters)
{
    float a = (float)threadIdx.x * 1e-3f;
    for (int i = 0; i < iters; i++)
        a = fmaf(a, 0.999999f, 1e-6f);
    if (a == 12345.0f) /* never true; keeps the chain alive */
        sink[blockIdx.x] = a;
}

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

template <int K> __global__ void cal_distinct_kernel(float *sink)
{
    if (sink[threadIdx.x] == (float)K + 0.5f) /* never true: sink holds zeros */
        sink[threadIdx.x] = (float)K;
}

static int cal__launched(const char *what)
{
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) {
        cal_say_error("launch of %s failed: %s (%s)", what, cudaGetErrorString(err), cudaGetErrorName(err));
        return -1;
    }
    return 0;
}

int cal_spin(float *sink, int blocks, int threads, int iters, cudaStream_t stream)
{
    cal_spin_kernel<<<blocks, threads, 0, stream>>>(sink, iters);
    return cal__launched("cal_spin_kernel");
}

int cal_touch(const void *p, size_t bytes, unsigned *sink, int sms, cudaStream_t stream)
{
    cal_touch_kernel<<<sms * 4, 256, 0, stream>>>((const uint4 *)p, bytes / sizeof(uint4), sink);
    return cal__launched("cal_touch_kernel");
}

double cal_spin_rate(float *sink, int blocks, int threads)
{
    double best[2] = {1e30, 1e30};
    const int iters[2] = {1 << 14, 1 << 17};

    for (int rep = 0; rep < 4; rep++) {
        for (int k = 0; k < 2; k++) {
            double t0;
            if (cudaDeviceSynchronize() != cudaSuccess)
                return -1.0;
            t0 = cal_clock_now();
            if (cal_spin(sink, blocks, threads, iters[k], 0) != 0 || cudaDeviceSynchronize() != cudaSuccess)
                return -1.0;
            if (rep > 0 && cal_clock_now() - t0 < best[k])
                best[k] = cal_clock_now() - t0;
        }
    }
    if (best[1] > best[0])
        return (best[1] - best[0]) / (double)(iters[1] - iters[0]);
    return best[1] / (double)iters[1];
}

int cal_iters_for(double seconds, double per_iter)
{
    double n = seconds / per_iter;
    if (n < 1.0)
        return 1;
    if (n > 2e9)
        return 2000000000;
    return (int)n;
}

/* 64 instantiations, each its own symbol in the module. */
#define CAL_D1(k) &cal_distinct_kernel<k>
#define CAL_D8(k) CAL_D1(k), CAL_D1(k + 1), CAL_D1(k + 2), CAL_D1(k + 3), CAL_D1(k + 4), CAL_D1(k + 5), \
                  CAL_D1(k + 6), CAL_D1(k + 7)
static void (*const cal_distinct[CAL_DISTINCT_KERNELS])(float *) = {
    CAL_D8(0), CAL_D8(8), CAL_D8(16), CAL_D8(24), CAL_D8(32), CAL_D8(40), CAL_D8(48), CAL_D8(56)};

int cal_launch_distinct(int k, float *sink)
{
    void *args[] = {&sink};
    cudaError_t err = cudaLaunchKernel((const void *)cal_distinct[k], dim3(1), dim3(32), args, 0, 0);
    if (err != cudaSuccess) {
        cal_say_error("launch of distinct kernel %d failed: %s (%s)", k, cudaGetErrorString(err),
                      cudaGetErrorName(err));
        return -1;
    }
    return 0;
}

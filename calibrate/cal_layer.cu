/* cal_layer — a transformer-layer proxy on the GPU (cal_layer.h). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <mma.h>

extern "C" {
#include "cal_say.h"
}
#include "cal_blas.h"
#include "cal_layer.h"

typedef __nv_bfloat16 cal_bf16;

#define GEMM_BM 128
#define GEMM_BN 128
#define GEMM_BK 32
#define GEMM_PAD 8 /* keeps shared-memory rows off the same banks */
#define GEMM_THREADS 256

/* C[M x N] = A[M x K] . B[K x N], row-major bf16, fp32 accumulation.  M, N
 * multiples of 128 and K of 32 (the caller pads M; H is a multiple of 128).
 * Eight warps, 2 x 4, each 64 x 32 of the tile as 4 x 2 WMMA fragments.
 * Split over K (gridDim.z > 1, for the few-row GEMMs of decode, whose tiles
 * alone cannot keep the GPU's memory busy): block z sums k_per_split of K
 * into partial[z][M][N] (fp32), and cal_split_sum_kernel adds the parts. */
__global__ __launch_bounds__(GEMM_THREADS) void cal_gemm_kernel(const cal_bf16 *__restrict__ A,
                                                                const cal_bf16 *__restrict__ B,
                                                                cal_bf16 *__restrict__ C, int N, int K,
                                                                float *__restrict__ partial, int k_per_split)
{
    using namespace nvcuda;
    __shared__ __align__(128) cal_bf16 As[GEMM_BM][GEMM_BK + GEMM_PAD];
    __shared__ __align__(128) cal_bf16 Bs[GEMM_BK][GEMM_BN + GEMM_PAD];
    __shared__ __align__(128) float stage[GEMM_THREADS / 32][16 * 16];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int wm = warp / 4, wn = warp % 4;
    const size_t row0 = (size_t)blockIdx.y * GEMM_BM, col0 = (size_t)blockIdx.x * GEMM_BN;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[4][2];

    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 2; j++)
            wmma::fill_fragment(acc[i][j], 0.0f);
    const int k_begin = blockIdx.z * k_per_split, k_end = k_begin + k_per_split;
    for (int k0 = k_begin; k0 < k_end; k0 += GEMM_BK) {
        for (int t = threadIdx.x; t < GEMM_BM * GEMM_BK / 8; t += GEMM_THREADS) {
            int r = t / (GEMM_BK / 8), c = (t % (GEMM_BK / 8)) * 8;
            *(uint4 *)&As[r][c] = *(const uint4 *)&A[(row0 + r) * K + k0 + c];
        }
        for (int t = threadIdx.x; t < GEMM_BK * GEMM_BN / 8; t += GEMM_THREADS) {
            int r = t / (GEMM_BN / 8), c = (t % (GEMM_BN / 8)) * 8;
            *(uint4 *)&Bs[r][c] = *(const uint4 *)&B[(size_t)(k0 + r) * N + col0 + c];
        }
        __syncthreads();
        for (int kk = 0; kk < GEMM_BK; kk += 16) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, cal_bf16, wmma::row_major> a[4];
            wmma::fragment<wmma::matrix_b, 16, 16, 16, cal_bf16, wmma::row_major> b[2];
            for (int i = 0; i < 4; i++)
                wmma::load_matrix_sync(a[i], &As[wm * 64 + i * 16][kk], GEMM_BK + GEMM_PAD);
            for (int j = 0; j < 2; j++)
                wmma::load_matrix_sync(b[j], &Bs[kk][wn * 32 + j * 16], GEMM_BN + GEMM_PAD);
            for (int i = 0; i < 4; i++)
                for (int j = 0; j < 2; j++)
                    wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
        }
        __syncthreads();
    }
    for (int i = 0; i < 4; i++) {
        for (int j = 0; j < 2; j++) {
            wmma::store_matrix_sync(stage[warp], acc[i][j], 16, wmma::mem_row_major);
            __syncwarp();
            for (int e = lane; e < 256; e += 32) {
                size_t r = row0 + wm * 64 + i * 16 + e / 16, c = col0 + wn * 32 + j * 16 + e % 16;
                if (partial)
                    partial[((size_t)blockIdx.z * gridDim.y * GEMM_BM + r) * N + c] = stage[warp][e];
                else
                    C[r * N + c] = __float2bfloat16(stage[warp][e]);
            }
            __syncwarp();
        }
    }
}

/* C = the sum of `splits` fp32 parts of n elements each, as bf16. */
__global__ void cal_split_sum_kernel(const float *__restrict__ partial, int splits, size_t n,
                                     cal_bf16 *__restrict__ C)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        float sum = 0.0f;
        for (int z = 0; z < splits; z++)
            sum += partial[(size_t)z * n + i];
        C[i] = __float2bfloat16(sum);
    }
}

/* Sum over a warp. */
__device__ __forceinline__ float cal_warp_sum(float v)
{
    for (int o = 16; o > 0; o /= 2)
        v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

__device__ __forceinline__ float cal_warp_max(float v)
{
    for (int o = 16; o > 0; o /= 2)
        v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}

/* Four bf16 (8 bytes) as floats. */
__device__ __forceinline__ void cal_load4(const cal_bf16 *p, float out[4])
{
    uint2 raw = *(const uint2 *)p;
    __nv_bfloat162 lo = *(__nv_bfloat162 *)&raw.x, hi = *(__nv_bfloat162 *)&raw.y;
    out[0] = __low2float(lo);
    out[1] = __high2float(lo);
    out[2] = __low2float(hi);
    out[3] = __high2float(hi);
}

/* Decode attention: block (head h, sequence b, split z), 128 threads, over
 * the keys [z split_len, (z + 1) split_len) of L.  Scores of the query
 * against each key (a warp per key, a lane per 4 dimensions, so each key row
 * is one coalesced 256-byte read), softmax, then the weighted sum of the
 * values, the 4 warps each over a quarter of the keys.  K and V are
 * [B][L][H].  With one split the block writes the output; with several (few
 * sequences over long contexts, where (heads x B) blocks alone leave most
 * SMs idle, as flash-decoding engines split too) it writes its maximum, sum
 * and unnormalised sums to partial[(z B + b) heads + h][2 + 128] and
 * cal_attention_combine_kernel merges the splits. */
#define CAL_PARTIAL_STRIDE (2 + CAL_LAYER_HEAD_DIM)
__global__ __launch_bounds__(128) void cal_attention_kernel(const cal_bf16 *__restrict__ qkv, int qkv_ld, int q_row0,
                                                            const cal_bf16 *__restrict__ K,
                                                            const cal_bf16 *__restrict__ V, int L, int H,
                                                            int split_len, cal_bf16 *__restrict__ out,
                                                            float *__restrict__ partial)
{
    extern __shared__ float smem[];
    float *scores = smem, *q = smem + split_len, *part = q + CAL_LAYER_HEAD_DIM,
          *red = part + 4 * CAL_LAYER_HEAD_DIM;
    const int h = blockIdx.x, b = blockIdx.y, tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int l0 = blockIdx.z * split_len, l1 = min(L, l0 + split_len);
    const size_t seq = (size_t)b * L * H + (size_t)h * CAL_LAYER_HEAD_DIM;
    float m = -INFINITY, sum = 0.0f, acc[4] = {0, 0, 0, 0};

    q[tid] = __bfloat162float(qkv[(size_t)(q_row0 + b) * qkv_ld + h * CAL_LAYER_HEAD_DIM + tid]);
    __syncthreads();
    for (int l = l0 + warp; l < l1; l += 4) {
        float k[4];
        cal_load4(K + seq + (size_t)l * H + lane * 4, k);
        float s = cal_warp_sum(q[lane * 4] * k[0] + q[lane * 4 + 1] * k[1] + q[lane * 4 + 2] * k[2] +
                               q[lane * 4 + 3] * k[3]);
        if (lane == 0)
            scores[l - l0] = s * 0.08838834764831845f; /* 1/sqrt(128) */
    }
    __syncthreads();
    for (int l = tid; l < l1 - l0; l += 128)
        m = fmaxf(m, scores[l]);
    m = cal_warp_max(m);
    if (lane == 0)
        red[warp] = m;
    __syncthreads();
    m = fmaxf(fmaxf(red[0], red[1]), fmaxf(red[2], red[3]));
    for (int l = tid; l < l1 - l0; l += 128) {
        float p = __expf(scores[l] - m);
        scores[l] = p;
        sum += p;
    }
    sum = cal_warp_sum(sum);
    __syncthreads(); /* every warp has read red[] for the maximum */
    if (lane == 0)
        red[4 + warp] = sum;
    __syncthreads();
    sum = red[4] + red[5] + red[6] + red[7];
    for (int l = l0 + warp; l < l1; l += 4) {
        float v[4], p = scores[l - l0];
        cal_load4(V + seq + (size_t)l * H + lane * 4, v);
        for (int i = 0; i < 4; i++)
            acc[i] += p * v[i];
    }
    for (int i = 0; i < 4; i++)
        part[warp * CAL_LAYER_HEAD_DIM + lane * 4 + i] = acc[i];
    __syncthreads();
    float total = part[tid] + part[128 + tid] + part[256 + tid] + part[384 + tid];
    if (partial) {
        float *mine = partial + (((size_t)blockIdx.z * gridDim.y + b) * gridDim.x + h) * CAL_PARTIAL_STRIDE;
        mine[2 + tid] = total;
        if (tid == 0) {
            mine[0] = m;
            mine[1] = sum;
        }
    } else {
        out[(size_t)(q_row0 + b) * H + h * CAL_LAYER_HEAD_DIM + tid] = __float2bfloat16(total / sum);
    }
}

/* The splits of cal_attention_kernel merged: block (head, sequence). */
__global__ __launch_bounds__(128) void cal_attention_combine_kernel(const float *__restrict__ partial, int splits,
                                                                    int q_row0, int H, cal_bf16 *__restrict__ out)
{
    const int h = blockIdx.x, b = blockIdx.y, tid = threadIdx.x;
    float top = -INFINITY, sum = 0.0f, total = 0.0f;
    for (int z = 0; z < splits; z++)
        top = fmaxf(top, partial[(((size_t)z * gridDim.y + b) * gridDim.x + h) * CAL_PARTIAL_STRIDE]);
    for (int z = 0; z < splits; z++) {
        const float *p = partial + (((size_t)z * gridDim.y + b) * gridDim.x + h) * CAL_PARTIAL_STRIDE;
        float scale = __expf(p[0] - top);
        sum += p[1] * scale;
        total += p[2 + tid] * scale;
    }
    out[(size_t)(q_row0 + b) * H + h * CAL_LAYER_HEAD_DIM + tid] = __float2bfloat16(total / sum);
}

/* The MLP's activation (GELU, sigmoid form) in place over n bf16 pairs. */
__global__ void cal_activation_kernel(__nv_bfloat162 *u, size_t n)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        float2 f = __bfloat1622float2(u[i]);
        f.x = f.x / (1.0f + __expf(-1.702f * f.x));
        f.y = f.y / (1.0f + __expf(-1.702f * f.y));
        u[i] = __float22bfloat162_rn(f);
    }
}

/* Small values in [-0.01, 0.01) from a hash of the index: finite, varied. */
__global__ void cal_fill_kernel(cal_bf16 *p, size_t n, uint32_t seed)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        uint32_t x = (uint32_t)i * 2654435761u ^ seed;
        x ^= x >> 15;
        x *= 2246822519u;
        x ^= x >> 13;
        p[i] = __float2bfloat16(((float)(x & 0xffffu) / 65536.0f - 0.5f) * 0.02f);
    }
}

static void cal__cuda_error(const char *what, cudaError_t err)
{
    cal_say_error("%s failed: %s (%s)", what, cudaGetErrorString(err), cudaGetErrorName(err));
}

static size_t cal__round_rows(int rows) { return ((size_t)rows + GEMM_BM - 1) / GEMM_BM * GEMM_BM; }

static int cal__alloc(void **p, size_t elems, uint32_t seed)
{
    cudaError_t err = cudaMalloc(p, elems * sizeof(cal_bf16));
    if (err != cudaSuccess) {
        *p = NULL;
        cal__cuda_error("cudaMalloc (layer proxy)", err);
        return -1;
    }
    cal_fill_kernel<<<1024, 256>>>((cal_bf16 *)*p, elems, seed);
    err = cudaGetLastError();
    if (err != cudaSuccess) {
        cal__cuda_error("launch of cal_fill_kernel", err);
        return -1;
    }
    return 0;
}

int cal_layer_init(cal_layer *l, int hidden, int max_rows, size_t kv_tokens)
{
    size_t h = (size_t)hidden, rows;
    const size_t wsize[4] = {3 * h * h, h * h, 4 * h * h, 4 * h * h};
    uint32_t seed = 1;
    cudaError_t err;

    memset(l, 0, sizeof *l);
    if (hidden <= 0 || hidden % CAL_LAYER_HEAD_DIM != 0 || max_rows <= 0) {
        cal_say_error("layer proxy: bad shape (hidden %d, rows %d)", hidden, max_rows);
        return -1;
    }
    l->hidden = hidden;
    l->max_rows = (int)cal__round_rows(max_rows);
    l->kv_tokens = kv_tokens;
    rows = (size_t)l->max_rows;
    for (int s = 0; s < CAL_LAYER_SETS; s++) {
        for (int k = 0; k < 4; k++)
            if (cal__alloc(&l->w[s][k], wsize[k], seed++) != 0)
                goto fail;
        if (kv_tokens > 0 && cal__alloc(&l->kv[s], 2 * kv_tokens * h, seed++) != 0)
            goto fail;
    }
    err = cudaDeviceGetAttribute(&l->sms, cudaDevAttrMultiProcessorCount, 0);
    if (err != cudaSuccess || l->sms <= 0) {
        cal__cuda_error("cudaDeviceGetAttribute (multiprocessors)", err);
        goto fail;
    }
    err = cudaMalloc((void **)&l->split_ws, (size_t)CAL_LAYER_MAX_SPLITS * CAL_LAYER_SPLIT_ROWS * 4 * h * sizeof(float));
    if (err != cudaSuccess) {
        l->split_ws = NULL;
        cal__cuda_error("cudaMalloc (split-K workspace)", err);
        goto fail;
    }
    err = cudaMalloc((void **)&l->attn_ws, (size_t)CAL_LAYER_ATTN_PARTIALS * (2 + CAL_LAYER_HEAD_DIM) * sizeof(float));
    if (err != cudaSuccess) {
        l->attn_ws = NULL;
        cal__cuda_error("cudaMalloc (attention workspace)", err);
        goto fail;
    }
    if (cal__alloc(&l->x, rows * h, seed++) != 0 || cal__alloc(&l->qkv, rows * 3 * h, seed++) != 0 ||
        cal__alloc(&l->attn, rows * h, seed++) != 0 || cal__alloc(&l->o, rows * h, seed++) != 0 ||
        cal__alloc(&l->u, rows * 4 * h, seed++) != 0)
        goto fail;
    err = cudaDeviceSynchronize();
    if (err != cudaSuccess) {
        cal__cuda_error("cudaDeviceSynchronize (layer proxy fill)", err);
        goto fail;
    }
    return 0;
fail:
    cal_layer_fini(l);
    return -1;
}

void cal_layer_fini(cal_layer *l)
{
    void **all[] = {&l->x, &l->qkv, &l->attn, &l->o, &l->u};
    for (int s = 0; s < CAL_LAYER_SETS; s++) {
        for (int k = 0; k < 4; k++)
            if (l->w[s][k])
                cudaFree(l->w[s][k]);
        if (l->kv[s])
            cudaFree(l->kv[s]);
    }
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (*all[i])
            cudaFree(*all[i]);
    if (l->split_ws)
        cudaFree(l->split_ws);
    if (l->attn_ws)
        cudaFree(l->attn_ws);
    memset(l, 0, sizeof *l);
}

/* The number of K splits for a GEMM of `rows` x n x k: 1, unless its tiles
 * are too few to keep every SM busy (decode's few rows), then doubled until
 * there are 4 blocks per SM, each split keeping at least 4 steps of K. */
static int cal__splits(const cal_layer *l, size_t rows, int n, int k)
{
    size_t tiles = (size_t)(n / GEMM_BN) * (rows / GEMM_BM);
    int splits = 1;
    if (rows > CAL_LAYER_SPLIT_ROWS)
        return 1;
    while (tiles * (size_t)splits < (size_t)(4 * l->sms) && splits < CAL_LAYER_MAX_SPLITS &&
           (k / GEMM_BK) % (splits * 2) == 0 && k / (splits * 2) >= 4 * GEMM_BK)
        splits *= 2;
    return splits;
}

static int cal__gemm(const cal_layer *l, const void *a, const void *b, void *c, size_t rows, int rows_used, int n,
                     int k, cudaStream_t stream)
{
    cudaError_t err;
    int splits;
    if (l->gemm == CAL_GEMM_CUBLAS)
        return cal_blas_gemm(a, b, c, rows_used, n, k, stream) == 0 ? 1 : -1; /* one call, however many kernels */
    splits = cal__splits(l, rows, n, k);
    dim3 grid((unsigned)(n / GEMM_BN), (unsigned)(rows / GEMM_BM), (unsigned)splits);
    cal_gemm_kernel<<<grid, GEMM_THREADS, 0, stream>>>((const cal_bf16 *)a, (const cal_bf16 *)b, (cal_bf16 *)c, n,
                                                       k, splits > 1 ? l->split_ws : NULL, k / splits);
    err = cudaGetLastError();
    if (err == cudaSuccess && splits > 1) {
        cal_split_sum_kernel<<<2 * l->sms, 256, 0, stream>>>(l->split_ws, splits, rows * (size_t)n, (cal_bf16 *)c);
        err = cudaGetLastError();
    }
    if (err != cudaSuccess) {
        cal__cuda_error("launch of cal_gemm_kernel", err);
        return -1;
    }
    return splits > 1 ? 2 : 1;
}

/* Splits of the keys for decode attention: enough blocks for 4 per SM, each
 * split at least 256 keys, the partials within the workspace. */
static int cal__attention_splits(const cal_layer *l, int heads, int batch, int context)
{
    int splits = 1;
    while ((long)heads * batch * splits < 4L * l->sms && context / (splits * 2) >= 256 &&
           (size_t)heads * batch * splits * 2 <= CAL_LAYER_ATTN_PARTIALS)
        splits *= 2;
    return splits;
}

int cal_layer_enqueue(cal_layer *l, int layers, int prefill_tokens, int batch, int context, cudaStream_t stream)
{
    const int h = l->hidden;
    const int rows_used = prefill_tokens + batch;
    const size_t rows = cal__round_rows(rows_used);
    const size_t smem = ((size_t)context + CAL_LAYER_HEAD_DIM * 5 + 8) * sizeof(float);
    int kernels = 0;
    cudaError_t err;

    if (rows_used <= 0 || prefill_tokens < 0 || batch < 0 || rows > (size_t)l->max_rows ||
        (size_t)batch * (size_t)context > l->kv_tokens || (batch > 0 && context <= 0) || smem > 48 * 1024) {
        cal_say_error("layer proxy: step (T %d, B %d, L %d) is outside what was allocated (%d rows, %zu KV tokens)",
                      prefill_tokens, batch, context, l->max_rows, l->kv_tokens);
        return -1;
    }
    for (int layer = 0; layer < layers; layer++) {
        void *const *w = l->w[layer % CAL_LAYER_SETS];
        const cal_bf16 *kv = (const cal_bf16 *)l->kv[layer % CAL_LAYER_SETS];
        size_t v_offset = l->kv_tokens * h; /* V follows K */
        int g;
        if ((g = cal__gemm(l, l->x, w[0], l->qkv, rows, rows_used, 3 * h, h, stream)) < 0)
            return -1;
        kernels += g;
        if (batch > 0) {
            const int heads = h / CAL_LAYER_HEAD_DIM;
            const int splits = cal__attention_splits(l, heads, batch, context);
            const int split_len = (context + splits - 1) / splits;
            const size_t split_smem = ((size_t)split_len + CAL_LAYER_HEAD_DIM * 5 + 8) * sizeof(float);
            dim3 grid((unsigned)heads, (unsigned)batch, (unsigned)splits);
            cal_attention_kernel<<<grid, 128, split_smem, stream>>>((const cal_bf16 *)l->qkv, 3 * h, prefill_tokens, kv,
                                                              kv + v_offset, context, h, split_len,
                                                              (cal_bf16 *)l->attn, splits > 1 ? l->attn_ws : NULL);
            err = cudaGetLastError();
            if (err == cudaSuccess && splits > 1) {
                cal_attention_combine_kernel<<<dim3((unsigned)heads, (unsigned)batch), 128, 0, stream>>>(
                    l->attn_ws, splits, prefill_tokens, h, (cal_bf16 *)l->attn);
                err = cudaGetLastError();
                kernels++;
            }
            if (err != cudaSuccess) {
                cal__cuda_error("launch of cal_attention_kernel", err);
                return -1;
            }
            kernels++;
        }
        if ((g = cal__gemm(l, l->attn, w[1], l->o, rows, rows_used, h, h, stream)) < 0)
            return -1;
        kernels += g;
        if ((g = cal__gemm(l, l->o, w[2], l->u, rows, rows_used, 4 * h, h, stream)) < 0)
            return -1;
        kernels += g;
        cal_activation_kernel<<<1024, 256, 0, stream>>>((__nv_bfloat162 *)l->u, rows * 4 * h / 2);
        err = cudaGetLastError();
        if (err != cudaSuccess) {
            cal__cuda_error("launch of cal_activation_kernel", err);
            return -1;
        }
        if ((g = cal__gemm(l, l->u, w[3], l->x, rows, rows_used, h, 4 * h, stream)) < 0)
            return -1;
        kernels += g + 1; /* and the activation */
    }
    return kernels;
}

double cal_layer_flops(int hidden, int prefill_tokens, int batch)
{
    return 24.0 * (double)(prefill_tokens + batch) * (double)hidden * (double)hidden;
}

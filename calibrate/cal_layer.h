/*
 * cal_layer — a transformer-layer proxy on the GPU, for the LLM step-time
 * curve and for CUDA-graph capture: what one engine step costs at hidden size
 * H with T prompt tokens being prefilled and B sequences decoding over L
 * tokens of context each.
 *
 * One layer is six kernels, the shapes of a dense decoder layer in bf16:
 *   QKV  = X[M x H] . Wqkv[H x 3H]        (M = T + B rows, tensor cores)
 *   attn = decode attention of the B sequences, reading K and V of L tokens
 *          each (heads of 128), one block per (head, sequence), the keys
 *          split over several blocks when those are too few for the GPU
 *   O    = attn[M x H] . Wo[H x H]
 *   U    = O[M x H] . Wup[H x 4H], then an elementwise activation over U
 *   X'   = U[M x 4H] . Wdown[4H x H]
 * Not in the proxy: prefill attention (quadratic in T; the linear step-time
 * model has no such term either), norms, rotary embeddings, sampling.
 *
 * The GEMMs run either on this file's own kernel (WMMA bf16, fp32
 * accumulation, 128x128 tiles, split over K when the rows are few), which
 * needs nothing beyond the CUDA runtime, or on cuBLAS where the host has it
 * (cal_blas.h), as a serving engine's do.  The own kernel reaches a fraction
 * of the tensor cores' peak; both curves are kept, named by their "gemm"
 * column, so the proxy's distance from tuned GEMMs is visible, not hidden.
 *
 * Compiled as CUDA C++ and used only by the other .cu files.  A cal_layer
 * owns its device buffers; cal_layer_fini frees them.  Errors are reported
 * through cal_say and returned as -1.
 */
#ifndef FS_CALIB_LAYER_H
#define FS_CALIB_LAYER_H

#include <stddef.h>

#include <cuda_runtime.h>

#define CAL_LAYER_HEAD_DIM 128
#define CAL_LAYER_SETS 2 /* distinct weight sets, so consecutive layers never hit L2 */
#define CAL_LAYER_SPLIT_ROWS 256 /* GEMMs of at most this many (padded) rows may split K */
#define CAL_LAYER_MAX_SPLITS 16
#define CAL_LAYER_ATTN_PARTIALS 4096 /* (heads x B x splits) of decode attention split over keys */

enum cal_gemm_backend { CAL_GEMM_OWN = 0, CAL_GEMM_CUBLAS = 1 };

typedef struct cal_layer {
    int hidden;                    /* H, a multiple of 128 */
    int max_rows;                  /* largest T + B, rounded up to 128 */
    size_t kv_tokens;              /* largest B x L the KV cache holds */
    void *w[CAL_LAYER_SETS][4];    /* Wqkv, Wo, Wup, Wdown (bf16) */
    void *kv[CAL_LAYER_SETS];      /* K then V, each [B][L][H] of the step (bf16) */
    void *x, *qkv, *attn, *o, *u;  /* activations (bf16), max_rows rows */
    float *split_ws;               /* split-K parts: MAX_SPLITS x SPLIT_ROWS x 4H */
    float *attn_ws;                /* split attention's partials: ATTN_PARTIALS x (2 + 128) */
    int sms;
    enum cal_gemm_backend gemm;    /* set by the caller; cuBLAS needs cal_blas_open */
} cal_layer;

/* Allocates and fills everything for hidden size H and the largest shapes;
 * 0, or -1 after a message (nothing held). */
int cal_layer_init(cal_layer *l, int hidden, int max_rows, size_t kv_tokens);
void cal_layer_fini(cal_layer *l);

/* Enqueues `layers` layers (weight sets alternating) of a step with T prompt
 * tokens and B sequences of context L on stream; returns the number of
 * kernels enqueued, or -1 after a message.  Capturable into a CUDA graph. */
int cal_layer_enqueue(cal_layer *l, int layers, int prefill_tokens, int batch, int context, cudaStream_t stream);

/* FLOPs of one layer's GEMMs. */
double cal_layer_flops(int hidden, int prefill_tokens, int batch);

#endif

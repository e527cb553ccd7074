/*
 * llm_profile — an LLM engine's step time from a calibration profile: the
 * per-layer step-time fits of calibrate/'s transformer-layer proxy (a
 * profile's "llm_step" rows, calibrate/cal_layer.h and profile_fit.h) mapped
 * onto a served model's layers, for "step_time": {"profile": ...}.
 *
 * What a row is.  One dense decoder layer in bf16 of hidden size H (heads of
 * 128): the QKV, O, up (H x 4H) and down (4H x H) GEMMs, 12 H^2 weights, and
 * decode attention over K and V of L tokens, 2 x H x 2 bytes per token; no
 * prefill attention, no norms, no embedding or output head.  Its time per
 * layer, fitted by least squares on prefill-only and decode-only steps:
 *     seconds = c0 + c_prefill x T + c_decode x B + c_kv x (B x L)
 * (T prompt tokens, B decoding sequences, L tokens of context each).
 *
 * The mapping (fs_llm_profile_step).  The abscissa is the layer's weight
 * count: x = params / layers for the model, x_i = 12 H_i^2 for the proxy row
 * of hidden size H_i.  Among the rows of the asked GEMM backend, sorted by
 * x_i, the two that bracket x (the two lowest or highest when x lies outside
 * them: linear extrapolation, reported) give each per-layer figure by linear
 * interpolation in x:
 *     c(x) = (1 - f) c_lo + f c_hi,   f = (x - x_lo) / (x_hi - x_lo)
 * for c0, c_prefill and c_decode; and, per byte of KV read, for
 * c_kv_i / (4 H_i).  The model's step:
 *     c0 = layers x c0(x),  c_prefill = layers x c_prefill(x),
 *     c_decode = layers x c_decode(x),
 *     c_kv (per KV token) = c_kv per byte(x) x KV bytes per token
 *                         = c_kv per byte(x) x 2 x layers x kv_heads x head_dim x kv_bytes
 * so a grouped-query model (8 KV heads of 128 at H 4096) pays a quarter of
 * the proxy's full multi-head KV read.
 *
 * Why the weight count and linear in it.  A step reads every weight once
 * (decode) and spends 2 FLOPs per weight per prompt token (prefill); both are
 * linear in the weights, plus a fixed cost per layer (kernel launches).  The
 * measured H100 profile bears it out: its cuBLAS c0 is a + b x at all three
 * sizes within 0.5%, with a = 46 us (launches) and b = 2 bytes per weight at
 * 3.32 TB/s (the datasheet's 3.35).  Scaling by H^2 alone would miss a
 * model's MLP width: Qwen2-7B's gated MLP of 18944 makes its layer 1.5 times
 * the proxy's 12 H^2 at H 3584.  params / layers counts the embedding and the
 * output head as spread over the layers: the head is read every decode step
 * (work the proxy lacks), the embedding is only gathered, so x overstates a
 * layer by the embedding's share (vocab x hidden / params, from each
 * config.json: 1.5% for Llama-3-70B, 1.8% for Mistral-7B, 1.9% for
 * Llama-2-7b, 6.5% for Llama-3-8B, 7.2% for Qwen2-7B).
 *
 * What the form inherits.  No prefill attention (quadratic in T) and no
 * sampling or scheduler time; the engine charges c_kv for a prefilling
 * sequence's own tokens as for the linear form.  c_decode is kept as fitted,
 * negative included (on cuBLAS a few more GEMM rows cost nothing and the
 * least-squares line tilts below zero); a model is refused when a step of
 * max_decodes sequences, each reading one KV token, could then take no time.
 * The rows were measured with bf16 weights: a model of another
 * bytes_per_param is refused.
 *
 * Ownership: plain values; nothing is allocated.
 */
#ifndef FS_LLM_PROFILE_H
#define FS_LLM_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "llm_perf.h"

/* The GEMMs a row was measured with: the tool's own WMMA kernel, or cuBLAS
 * (what serving engines run). */
enum fs_llm_gemm { FS_LLM_GEMM_OWN, FS_LLM_GEMM_CUBLAS };

/* Most rows a profile's "llm_step" may have (the tool writes 2 x 3). */
#define FS_LLM_MAX_LAYER_FITS 16

/* One "llm_step" row: the per-layer fit of one backend at one hidden size. */
typedef struct fs_llm_layer_fit {
    int gemm;         /* enum fs_llm_gemm */
    uint32_t hidden;  /* H */
    double c0_s, c_prefill_s, c_decode_s, c_kv_s; /* per layer, seconds */
} fs_llm_layer_fit;

/* "own" or "cublas"; and both, indexed by enum fs_llm_gemm (*count of them),
 * as a profile and a scenario spell them. */
const char *fs_llm_gemm_name(int gemm);
const char *const *fs_llm_gemm_names(size_t *count);

/* The proxy layer's weights, 12 H^2, and KV bytes per token, 2 x H x 2. */
double fs_llm_proxy_layer_params(uint32_t hidden);
double fs_llm_proxy_kv_bytes(uint32_t hidden);

/* How a model was placed among the rows. */
typedef struct fs_llm_profile_use {
    double layer_params;        /* x = params / layers */
    uint32_t lo_hidden, hi_hidden; /* the two rows interpolated between */
    bool extrapolated;          /* x outside [12 lo^2, 12 hi^2] */
} fs_llm_profile_use;

/* The step model of `model` on a whole GPU (shares 1) from the `gemm` rows
 * of fits[0..n), as above, into *out (and *use when not NULL).  FS_ERR_INPUT
 * naming `where`: a model that fails fs_llm_model_check or is not 2 bytes per
 * parameter; no rows of that backend, or rows at fewer than two hidden
 * sizes, or two at one size; mapped figures that come out negative (c0 not
 * positive) when extrapolated; a step of max_decodes decodes that could take
 * no time. */
int fs_llm_profile_step(const fs_llm_layer_fit *fits, size_t n, int gemm, const fs_llm_model *model,
                        uint32_t max_decodes, fs_llm_step_model *out, fs_llm_profile_use *use,
                        const char *where, fs_error *err);

#endif

/*
 * llm_perf — what an LLM costs on a GPU: a model's weights and KV-cache
 * bytes, the KV capacity a unit holds, and the time of one engine step
 * (a fitted linear model or a roofline from the GPU's peak FLOP/s and memory
 * bandwidth), scaled by the unit's share of its GPU.
 *
 * Pure arithmetic with its refusals, shared by the scenario loader (which
 * checks a service's figures) and the scheduler (llm_engine.h, which runs
 * steps).  Defaults for common models and GPUs are in llm_defaults.h.
 *
 * Ownership: plain values; nothing is allocated.
 */
#ifndef FS_LLM_PERF_H
#define FS_LLM_PERF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "gpu.h"
#include "mig.h"

/* A model's architecture: enough for weights and KV-cache bytes. */
typedef struct fs_llm_model {
    const char *name;
    double params;           /* parameters */
    double bytes_per_param;  /* 2 for BF16 weights */
    unsigned layers;
    unsigned kv_heads;       /* key-value heads (grouped-query attention) */
    unsigned head_dim;
    double kv_bytes;         /* bytes per KV element: 2 for a BF16 cache */
} fs_llm_model;

/* 0, or FS_ERR_INPUT naming `where` and the field when a figure is not a
 * positive finite number. */
int fs_llm_model_check(const fs_llm_model *m, const char *where, fs_error *err);

/* params x bytes_per_param. */
double fs_llm_weights_bytes(const fs_llm_model *m);

/* 2 (K and V) x layers x kv_heads x head_dim x kv_bytes. */
double fs_llm_kv_bytes_per_token(const fs_llm_model *m);

/* KV blocks of `block_tokens` tokens a unit holds: floor((usable - weights -
 * reserve) / (KV bytes per token x block_tokens)), into *blocks.  FS_ERR_INPUT
 * naming `where` when the weights and reserve leave no room for one block, or
 * when a request of `request_tokens` (prompt + output) could never be held
 * (its P + O - 1 tokens of KV exceed the capacity); the reason gives both
 * sides in GiB or tokens. */
int fs_llm_kv_capacity(const fs_llm_model *m, double usable_bytes, double reserve_bytes,
                       uint32_t block_tokens, uint64_t request_tokens, uint32_t *blocks,
                       const char *where, fs_error *err);

/* How long a step takes. */
enum fs_llm_step_kind { FS_LLM_STEP_LINEAR, FS_LLM_STEP_ROOFLINE };

typedef struct fs_llm_step_model {
    int kind;
    /* LINEAR: t = c0 + c_prefill x prefill_tokens + c_decode x running decodes
     *             + c_kv x kv_tokens_read  (seconds, on a whole GPU) */
    double c0, c_prefill, c_decode, c_kv;
    /* ROOFLINE: t = c0 + max(2 x params x tokens / (peak_flops x flops_eff),
     *                        (weights + kv_tokens_read x kv per token) /
     *                        (mem_bw x bw_eff))
     * tokens = prefill tokens + decodes; attention FLOPs are left out (small
     * next to the weights' at the context lengths served). */
    double peak_flops;       /* dense FLOP/s of the whole GPU */
    double mem_bw;           /* bytes/s of the whole GPU */
    double flops_eff, bw_eff;/* achieved share of peak, (0, 1] */
    double params, weights_bytes, kv_bytes_per_token;
    /* The unit's share of the GPU, (0, 1]: a MIG slice's SMs and memory
     * slices, a time-sliced seat's share.  Compute-bound work (prefill, FLOPs)
     * divides by compute_share, memory-bound work (c0, c_decode, c_kv, bytes)
     * by bandwidth_share: decode steps are dominated by reading weights and
     * KV, which is also why c0 is counted as memory time. */
    double compute_share, bandwidth_share;
} fs_llm_step_model;

/* What one step ran: its cost inputs. */
typedef struct fs_llm_batch {
    uint64_t prefill_tokens;
    uint64_t decodes;        /* sequences that decoded one token */
    uint64_t kv_tokens_read; /* KV each scheduled sequence attends to: its
                              * cache after this step's tokens are added */
} fs_llm_batch;

/* 0, or FS_ERR_INPUT naming `where` and the coefficient: negative or
 * non-finite figures; a linear model in which a step could take no time
 * (c0 = 0 with c_prefill or c_decode 0); efficiencies or shares outside
 * (0, 1]; a roofline without positive peak, bandwidth and weights.  For the
 * figures a person writes: a linear model mapped from a calibration profile
 * (llm_profile.h) may keep a fitted c_decode < 0, and is checked there. */
int fs_llm_step_model_check(const fs_llm_step_model *m, const char *where, fs_error *err);

/* Seconds the batch takes under a checked model. */
double fs_llm_step_time(const fs_llm_step_model *m, const fs_llm_batch *b);

/* A roofline step model for `model` on a unit with these shares; peak and
 * bandwidth from the caller (llm_defaults.h has datasheet figures). */
fs_llm_step_model fs_llm_step_roofline(const fs_llm_model *model, double peak_flops,
                                       double mem_bw, double flops_eff, double bw_eff,
                                       double c0);

/* A MIG profile's shares of its GPU: SMs / the GPU's SMs, memory slices / 8. */
void fs_llm_mig_shares(const fs_gpu_type *gpu, const fs_mig_profile *p, double *compute_share,
                       double *bandwidth_share);

#endif

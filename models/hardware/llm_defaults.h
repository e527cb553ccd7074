/*
 * llm_defaults — built-in figures for LLM serving: the architecture of a few
 * common models and the peak dense BF16 FLOP/s and memory bandwidth of the
 * catalog's GPU types, for llm_engine.h's KV arithmetic and roofline.
 *
 * The scenario loader reads them for "batching": {"kind": "continuous"}
 * services.  Every figure's public
 * source is in llm_defaults.c and models/workload/README.md.
 *
 * Ownership: static, immutable tables; pointers stay valid for the program.
 */
#ifndef FS_LLM_DEFAULTS_H
#define FS_LLM_DEFAULTS_H

#include <stddef.h>

#include "llm_perf.h"

typedef struct fs_llm_gpu_peak {
    const char *gpu;     /* a catalog name (gpu.h): "H100-SXM-80GB" */
    double bf16_flops;   /* dense (no sparsity) BF16 tensor FLOP/s */
    double mem_bw;       /* memory bandwidth, bytes/s */
} fs_llm_gpu_peak;

/* The built-in model with this exact name ("Llama-3-8B"), or NULL. */
const fs_llm_model *fs_llm_defaults_model(const char *name);

/* Every built-in model (BF16 weights and KV cache). */
const fs_llm_model *fs_llm_defaults_models(size_t *count);

/* The peak figures of the catalog GPU type with this exact name, or NULL. */
const fs_llm_gpu_peak *fs_llm_defaults_gpu(const char *gpu);

#endif

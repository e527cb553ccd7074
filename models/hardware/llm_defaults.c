/*
 * llm_defaults — the tables; see llm_defaults.h.
 *
 * Models: the figures of each model's config.json on Hugging Face (the file
 * named in the table), BF16 weights and cache (2 bytes).  head_dim is
 * hidden_size / num_attention_heads (none of these configs sets it apart).
 * params is counted from the same config (embeddings, untied output head,
 * attention with Qwen2's q/k/v biases, the gated MLP's three matrices, norms)
 * and agrees with the total each model card states; tests/test_llm_engine.c
 * recounts it from the config figures.
 *
 * | model       | config.json                          | hidden | layers | heads | KV heads | head dim | params         |
 * |-------------|--------------------------------------|--------|--------|-------|----------|----------|----------------|
 * | Llama-3-8B  | meta-llama/Meta-Llama-3-8B           | 4096   | 32     | 32    | 8        | 128      | 8,030,261,248  |
 * | Llama-3-70B | meta-llama/Meta-Llama-3-70B          | 8192   | 80     | 64    | 8        | 128      | 70,553,706,496 |
 * | Mistral-7B  | mistralai/Mistral-7B-v0.1            | 4096   | 32     | 32    | 8        | 128      | 7,241,732,096  |
 * | Qwen2-7B    | Qwen/Qwen2-7B                        | 3584   | 28     | 28    | 4        | 128      | 7,615,616,512  |
 *
 * GPUs: NVIDIA's datasheets give BF16 tensor throughput "with sparsity"; the
 * dense figure used here is half of it (the datasheets' footnote), except
 * where the datasheet prints the dense figure itself.  Bandwidth is the
 * datasheet's GPU memory bandwidth, in decimal units (1 TB/s = 1e12 B/s).
 *
 * | type           | dense BF16 TFLOP/s          | memory bandwidth | datasheet                                  |
 * |----------------|-----------------------------|------------------|--------------------------------------------|
 * | H100-SXM-80GB  | 989.5 (1,979 sparse / 2)    | 3.35 TB/s        | NVIDIA H100 Tensor Core GPU datasheet, SXM |
 * | H100-PCIE-80GB | 756.5 (1,513 sparse / 2)    | 2.0 TB/s         | NVIDIA H100 Tensor Core GPU datasheet, PCIe|
 * | H200-141GB     | 989.5 (1,979 sparse / 2)    | 4.8 TB/s         | NVIDIA H200 Tensor Core GPU datasheet, SXM |
 * | A100-SXM4-80GB | 312                         | 2,039 GB/s       | NVIDIA A100 Tensor Core GPU datasheet      |
 * | A100-SXM4-40GB | 312                         | 1,555 GB/s       | NVIDIA A100 Tensor Core GPU datasheet      |
 * | L40S-48GB      | 362.05                      | 864 GB/s         | NVIDIA L40S GPU datasheet                  |
 * | L4-24GB        | 121 (242 sparse / 2)        | 300 GB/s         | NVIDIA L4 Tensor Core GPU datasheet        |
 *
 * reference/costs.md agrees on the one figure it has (H100 SXM HBM3 3.35 TB/s).
 */
#include "llm_defaults.h"

#include <string.h>

static const fs_llm_model models[] = {
    {"Llama-3-8B", 8030261248.0, 2, 32, 8, 128, 2},
    {"Llama-3-70B", 70553706496.0, 2, 80, 8, 128, 2},
    {"Mistral-7B", 7241732096.0, 2, 32, 8, 128, 2},
    {"Qwen2-7B", 7615616512.0, 2, 28, 4, 128, 2},
};

static const fs_llm_gpu_peak gpus[] = {
    {"H100-SXM-80GB", 989.5e12, 3.35e12},
    {"H100-PCIE-80GB", 756.5e12, 2.0e12},
    {"H200-141GB", 989.5e12, 4.8e12},
    {"A100-SXM4-80GB", 312e12, 2.039e12},
    {"A100-SXM4-40GB", 312e12, 1.555e12},
    {"L40S-48GB", 362.05e12, 0.864e12},
    {"L4-24GB", 121e12, 0.3e12},
};

const fs_llm_model *fs_llm_defaults_model(const char *name)
{
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++)
        if (strcmp(models[i].name, name) == 0)
            return &models[i];
    return NULL;
}

const fs_llm_model *fs_llm_defaults_models(size_t *count)
{
    *count = sizeof models / sizeof models[0];
    return models;
}

const fs_llm_gpu_peak *fs_llm_defaults_gpu(const char *gpu)
{
    for (size_t i = 0; i < sizeof gpus / sizeof gpus[0]; i++)
        if (strcmp(gpus[i].gpu, gpu) == 0)
            return &gpus[i];
    return NULL;
}

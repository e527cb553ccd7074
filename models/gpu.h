/*
 * gpu — the catalog of GPU types a pool can be made of.
 *
 * At this stage an entry is its name and memory; the fleet-models work
 * (MIG geometry, SMs, prices, power) extends the entry, not the interface.
 * Names follow reference/mig.md and reference/costs.md.
 */
#ifndef FS_GPU_H
#define FS_GPU_H

#include <stddef.h>

typedef struct fs_gpu_type {
    const char *name;     /* "H100-SXM-80GB" */
    double memory_gb;
} fs_gpu_type;

/* The catalog entry with this exact name, or NULL. */
const fs_gpu_type *fs_gpu_find(const char *name);

/* Every entry, for listing and for "did you mean" suggestions. */
const fs_gpu_type *fs_gpu_catalog(size_t *count);

#endif

/*
 * gpu — the catalog of GPU types a pool can be made of.
 *
 * An entry is a GPU's memory, SM count, default prices (on-demand and spot,
 * USD per GPU-hour), idle and busy power (W), and, for MIG-capable types, the
 * table of MIG profiles with NVIDIA's placement geometry (mig.h).  Defaults
 * and their sources are listed in gpu.c and the README; a scenario can
 * override any number of a built-in type or define a custom type (no MIG),
 * by copying the entry into its own catalog (scenario.h).
 *
 * Ownership: built-in entries and profile tables are static and immutable; an
 * fs_gpu_type is a plain value that may be copied (its `mig` pointer refers to
 * a static table).
 */
#ifndef FS_GPU_H
#define FS_GPU_H

#include <stddef.h>
#include <stdint.h>

#define FS_GPU_NAME_MAX 64
#define FS_MIG_COMPUTE_SLICES 7
#define FS_MIG_MEMORY_SLICES 8
#define FS_MIG_MAX_INSTANCES 7

typedef struct fs_mig_profile {
    const char *name;        /* "3g.40gb" */
    unsigned compute_slices; /* 1..7 */
    unsigned memory_slices;  /* 1..8, contiguous from the start slot */
    double memory_gb;        /* usable memory, as nvidia-smi reports it (GiB) */
    unsigned sms;
    unsigned max_count;      /* per GPU */
    uint8_t starts;          /* bit s set: the instance may start at memory slot s */
} fs_mig_profile;

typedef struct fs_gpu_type {
    char name[FS_GPU_NAME_MAX];  /* "H100-SXM-80GB" */
    double memory_gb;
    unsigned sms;
    double price_on_demand;      /* USD per GPU-hour */
    double price_spot;           /* USD per GPU-hour */
    double idle_w, busy_w;       /* power at idle and fully busy */
    const fs_mig_profile *mig;   /* NULL: no MIG */
    size_t n_mig;
} fs_gpu_type;

/* The built-in entry with this exact name, or NULL. */
const fs_gpu_type *fs_gpu_find(const char *name);

/* Every built-in entry, for listing and for "did you mean" suggestions. */
const fs_gpu_type *fs_gpu_catalog(size_t *count);

/* The profile of this type with this exact name, or NULL (also for no MIG). */
const fs_mig_profile *fs_gpu_mig_profile(const fs_gpu_type *gpu, const char *name);

#endif

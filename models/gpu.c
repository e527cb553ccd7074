/*
 * gpu — the GPU catalog; see gpu.h.
 *
 * A const table: nothing to initialise or free, and lookups are a linear scan
 * because the catalog holds a handful of entries and is read only while a
 * scenario is parsed.
 */
#include "gpu.h"

#include <assert.h>
#include <string.h>

static const fs_gpu_type catalog[] = {
    {"H100-SXM-80GB", 80.0},
    {"H100-PCIE-80GB", 80.0},
    {"H200-141GB", 141.0},
    {"A100-SXM4-80GB", 80.0},
    {"A100-SXM4-40GB", 40.0},
    {"L40S-48GB", 48.0},
    {"L4-24GB", 24.0},
};

const fs_gpu_type *fs_gpu_find(const char *name)
{
    assert(name != NULL);
    for (size_t i = 0; i < sizeof catalog / sizeof catalog[0]; i++)
        if (strcmp(catalog[i].name, name) == 0)
            return &catalog[i];
    return NULL;
}

const fs_gpu_type *fs_gpu_catalog(size_t *count)
{
    assert(count != NULL);
    *count = sizeof catalog / sizeof catalog[0];
    return catalog;
}

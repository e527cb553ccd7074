/*
 * cal_storage — how fast a tenant's weights or checkpoint come off local
 * storage: a file the tool writes itself (no model download), read back
 * with a cold page cache (posix_fadvise(DONTNEED) after fdatasync) and a warm
 * one, into pageable and, where the caller can give it, pinned memory, and
 * from a cold file all the way to the device.
 *
 * Plain C with no CUDA: the device side comes in through cal_storage_ops, so
 * the same code runs in --host-only mode on a machine without a GPU (pinned
 * and device series are then left out) and in the full run.
 *
 * Series it adds to the samples (bytes read, seconds):
 *   storage_write          the file written and synced, one sample
 *   storage_cold_pageable  cold read into malloc'd memory
 *   storage_warm_pageable  the same, page cache warm
 *   storage_cold_pinned    cold read into pinned memory          (ops->alloc_pinned)
 *   storage_warm_pinned    warm read into pinned memory          (ops->alloc_pinned)
 *   load_cold_pinned       cold read into pinned memory, then the
 *                          host-to-device copy                   (ops->upload)
 * and the scalar storage_cold_resident: the fraction of the file's pages
 * still resident (mincore) right after each drop, so a profile shows whether
 * "cold" was cold.
 *
 * Owns nothing between calls: the file is removed and every buffer freed
 * before it returns.  Errors go through cal_say.
 */
#ifndef FS_CALIB_STORAGE_H
#define FS_CALIB_STORAGE_H

#include <stddef.h>

#include "samples.h"

typedef struct cal_storage_ops {
    /* Page-locked host memory; NULL when unavailable.  free_pinned pairs it. */
    void *(*alloc_pinned)(size_t bytes, void *ctx);
    void (*free_pinned)(void *p, void *ctx);
    /* Copies bytes from host to a device buffer the caller keeps; 0 or -1
     * (after a message).  NULL: no device. */
    int (*upload)(const void *host, size_t bytes, void *ctx);
    void *ctx;
} cal_storage_ops;

typedef struct cal_storage_plan {
    const char *dir;     /* where the file goes: the storage weights come from */
    size_t first_bytes;  /* smallest read; sizes double up to max_bytes */
    size_t max_bytes;    /* the file's size and the largest read */
    int reps;            /* repetitions of each read */
    double budget_s;     /* no new size is started past this many seconds */
} cal_storage_plan;

/* Runs the measurement; 0, or -1 after a message (samples taken so far are
 * kept). */
int cal_storage_measure(const cal_storage_plan *plan, const cal_storage_ops *ops, fs_calib_samples *out);

/* Writes `bytes` of incompressible data to path and syncs it; the seconds it
 * took in *seconds (may be NULL).  0, or -1 after a message (file removed). */
int cal_storage_write_file(const char *path, size_t bytes, double *seconds);

/* Drops the file's pages from the page cache; the fraction still resident
 * afterwards (NAN when mincore could not tell), or a negative value after a
 * message. */
double cal_storage_drop_cache(const char *path);

/* Reads the first `bytes` of path into buf in large chunks; 0, or -1 after a
 * message. */
int cal_storage_read(const char *path, void *buf, size_t bytes);

#endif

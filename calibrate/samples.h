/*
 * samples — raw calibration measurements, as the measuring tool takes them.
 *
 * Plain data, no dependencies: the measuring side (fleetsim_calibrate.cu)
 * fills it, the fitting side (fit.h) reads it, the profile writer
 * (profile.h) writes it out verbatim beside the fitted parameters.  Times are
 * seconds, sizes bytes.
 *
 * Ownership: fs_calib_samples is caller-owned; fs_calib_samples_fini frees
 * every series it holds.
 */
#ifndef FS_CALIB_SAMPLES_H
#define FS_CALIB_SAMPLES_H

#include <stddef.h>

/* One size-dependent series: (bytes[i], seconds[i]), repetitions included. */
typedef struct fs_calib_series {
    char name[48];        /* "h2d_pinned", "d2h_pageable", "d2d", "malloc", "free",
                             "evict", "warmup" */
    double *bytes, *seconds;
    size_t n, cap;
} fs_calib_series;

/* Repeated measurements of one fixed-cost quantity. */
typedef struct fs_calib_scalar {
    char name[48];        /* "context_create", "first_kernel", "slice_alone", "slice_shared" */
    double *seconds;
    size_t n, cap;
} fs_calib_scalar;

#define FS_CALIB_MAX_SERIES 16
#define FS_CALIB_MAX_SCALARS 16

typedef struct fs_calib_samples {
    char device[128];     /* cudaDeviceProp.name */
    double memory_gb;
    int driver_version, runtime_version; /* cudaDriverGetVersion / cudaRuntimeGetVersion */
    char date[32];        /* ISO 8601, UTC */
    fs_calib_series series[FS_CALIB_MAX_SERIES];
    size_t n_series;
    fs_calib_scalar scalars[FS_CALIB_MAX_SCALARS];
    size_t n_scalars;
} fs_calib_samples;

/* The series / scalar with this name, created empty if absent; NULL when out
 * of room or memory. */
fs_calib_series *fs_calib_series_get(fs_calib_samples *s, const char *name);
fs_calib_scalar *fs_calib_scalar_get(fs_calib_samples *s, const char *name);

/* Appends one sample; 0 or -1 (out of memory). */
int fs_calib_series_add(fs_calib_series *series, double bytes, double seconds);
int fs_calib_scalar_add(fs_calib_scalar *scalar, double seconds);

void fs_calib_samples_fini(fs_calib_samples *s);

#endif

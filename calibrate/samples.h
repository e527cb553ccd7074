/*
 * samples — raw calibration measurements, as the measuring tool takes them.
 *
 * Plain data, no dependencies: the measuring side (fleetsim_calibrate.cu)
 * fills it, the fitting side (profile.h, profile_fit.h) reads it, the profile writer
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

/* Measurements with more than one input (a step time against hidden size,
 * prompt tokens, batch and context; a request's arrival, start and end):
 * named columns, rows of numbers, row-major. */
#define FS_CALIB_MAX_COLUMNS 12
typedef struct fs_calib_table {
    char name[48];
    char columns[FS_CALIB_MAX_COLUMNS][32];
    size_t n_columns;
    double *values; /* n_rows * n_columns */
    size_t n_rows, cap_rows;
} fs_calib_table;

#define FS_CALIB_MAX_SERIES 32
#define FS_CALIB_MAX_SCALARS 32
#define FS_CALIB_MAX_TABLES 8
#define FS_CALIB_MAX_NOTES 16

typedef struct fs_calib_samples {
    char device[128];     /* cudaDeviceProp.name */
    double memory_gb;
    int driver_version, runtime_version; /* cudaDriverGetVersion / cudaRuntimeGetVersion */
    char date[32];        /* ISO 8601, UTC */
    fs_calib_series series[FS_CALIB_MAX_SERIES];
    size_t n_series;
    fs_calib_scalar scalars[FS_CALIB_MAX_SCALARS];
    size_t n_scalars;
    fs_calib_table tables[FS_CALIB_MAX_TABLES];
    size_t n_tables;
    /* What a run could not do, in words ("mps: nvidia-cuda-mps-control not
     * found"): a step that failed or was skipped names itself here. */
    char notes[FS_CALIB_MAX_NOTES][160];
    size_t n_notes;
} fs_calib_samples;

/* The series / scalar with this name, created empty if absent; NULL when out
 * of room or memory. */
fs_calib_series *fs_calib_series_get(fs_calib_samples *s, const char *name);
fs_calib_scalar *fs_calib_scalar_get(fs_calib_samples *s, const char *name);

/* Appends one sample; 0 or -1 (out of memory). */
int fs_calib_series_add(fs_calib_series *series, double bytes, double seconds);
int fs_calib_scalar_add(fs_calib_scalar *scalar, double seconds);

/* The table with this name, created with these columns (a comma-separated
 * list, "hidden,tokens,seconds") if absent; NULL when out of room, when the
 * columns are too many or too long, or when an existing table has other
 * columns. */
fs_calib_table *fs_calib_table_get(fs_calib_samples *s, const char *name, const char *columns);

/* Appends one row of t->n_columns numbers; 0 or -1 (out of memory). */
int fs_calib_table_add(fs_calib_table *t, const double *row);

/* Appends a note (truncated to fit; dropped past FS_CALIB_MAX_NOTES). */
void fs_calib_note(fs_calib_samples *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

void fs_calib_samples_fini(fs_calib_samples *s);

#endif

/*
 * profile — fitted calibration profiles: fitting the samples and writing the
 * profile JSON the simulator reads.
 *
 * Each size series is fitted to time = fixed + bytes / bandwidth by least
 * squares (GSL); R-squared and residuals are kept.  The profile ("schema":
 * "fleetsim-calibration/1") holds the device (name, memory, driver and CUDA
 * versions, date), the fitted parameters the simulator uses (context_s,
 * framework_s, storage_gbps, h2d_gbps, d2h_gbps, inference_warmup_s, as in
 * models/scenario/scenario.h's fs_switch_costs), every fit ("fits": {series: {fixed_s,
 * bandwidth_gbps, r_squared, residuals_s: [...]}}), the scalar statistics,
 * and every raw sample ("samples": {...}).
 *
 * JSON is written with stdio (no jansson) so the measuring binary stays down
 * to libc, the CUDA runtime and a static GSL: GPU hosts are bare.
 */
#ifndef FS_CALIB_PROFILE_H
#define FS_CALIB_PROFILE_H

#include <stdio.h>

#include "samples.h"

typedef struct fs_calib_fit {
    double fixed_s;          /* intercept */
    double bandwidth_gbps;   /* 1e-9 / slope; INFINITY when the slope is <= 0 */
    double r_squared;
    size_t n;
} fs_calib_fit;

/* Least-squares fit of a series; 0, or -1 with fewer than 2 distinct sizes. */
int fs_calib_fit_series(const fs_calib_series *s, fs_calib_fit *out);

/* The median of n values (the mean of the middle two for an even n), from a
 * sorted copy; NAN for n = 0.  0, or -1 out of memory. */
int fs_calib_median(const double *x, size_t n, double *out);

/* Median of a scalar's samples (robust to a slow first run); NAN when empty. */
double fs_calib_scalar_median(const fs_calib_scalar *s);

/* Writes the profile JSON for these samples to fp; 0 or -1 (write error). */
int fs_calib_profile_write(const fs_calib_samples *s, FILE *fp);

#endif

/*
 * arrivals — the arrival-rate profile of an inference service over time.
 *
 * The rate at time t is base_rps x the hourly multiplier of t's hour (weekday
 * or weekend profile, by t's day of week) x every burst active at t.  It is
 * piecewise constant: pieces end at hour boundaries and burst edges, which is
 * what the engine's Poisson process (sim/engine/nhpp.h) consumes.
 *
 * Ownership: fs_arrival_profile borrows the spec; it must outlive the profile.
 */
#ifndef FS_ARRIVALS_H
#define FS_ARRIVALS_H

#include "scenario.h"

typedef struct fs_arrival_profile {
    const fs_arrivals *spec;
    int start_weekday;  /* day of week at t = 0, 0 = Monday */
} fs_arrival_profile;

/* Rate (requests/s) at t and the end of its piece; matches fs_rate_fn. */
double fs_arrivals_rate(void *profile, double t, double *piece_end);

/* Mean and peak rate over [t0, t1], by walking the pieces exactly. */
double fs_arrivals_mean_rate(const fs_arrival_profile *p, double t0, double t1);
double fs_arrivals_peak_rate(const fs_arrival_profile *p, double t0, double t1);

#endif

/*
 * nhpp — a Poisson process whose rate is piecewise constant in time.
 *
 * The rate is given by a callback that, for a time t, returns the rate in
 * force at t and the end of the piece it belongs to (the next time the rate
 * may change).  Arrival times are generated exactly by inverting the
 * cumulative intensity: draw E ~ Exp(1) and walk the pieces, spending
 * rate * length of each, until E is used up.  No thinning, so one Exp(1)
 * draw (ziggurat.h) is consumed per arrival whatever the profile: with common
 * random numbers two runs of the same process see the same arrival times.
 *
 * The engine knows nothing about where the rate comes from (diurnal profiles
 * and bursts are built in models/).
 *
 * Ownership: fs_nhpp is a caller-owned value; it holds the callback's context
 * pointer but never frees it.
 */
#ifndef FS_NHPP_H
#define FS_NHPP_H

#include <gsl/gsl_rng.h>

/* Rate (events per second, >= 0) in force at t; sets *piece_end (> t) to when
 * it may next change.  A piece may run to INFINITY, and a rate that is zero
 * for good must say so that way: endless finite zero pieces with an infinite
 * limit would keep fs_nhpp_next walking forever. */
typedef double (*fs_rate_fn)(void *ctx, double t, double *piece_end);

typedef struct fs_nhpp {
    fs_rate_fn rate_fn;
    void *ctx;
    double rate;      /* cached rate of the current piece */
    double piece_end; /* end of the current piece */
} fs_nhpp;

void fs_nhpp_init(fs_nhpp *p, fs_rate_fn rate_fn, void *ctx);

/* Time of the next arrival strictly after `now`, or INFINITY when the rate is
 * zero from some point on up to `limit` (the search stops at limit: returns
 * INFINITY if no arrival happens before it).  Calls must come with
 * non-decreasing `now`. */
double fs_nhpp_next(fs_nhpp *p, double now, double limit, gsl_rng *r);

#endif

/*
 * arrivals — the arrival process of an inference service: its rate profile
 * over time, and the stream of arrival points a replication draws from it.
 *
 * The deterministic rate at time t is base_rps x the hourly multiplier of
 * t's hour (weekday or weekend profile, by t's day of week) x every burst
 * active at t x the daily level of t's day x the growth factor (1 + g)^(t/P).
 * It is piecewise constant, which is what the engine's Poisson process
 * (sim/engine/nhpp.h) consumes: pieces end at hour boundaries (so at day
 * boundaries too) and burst edges, and on each piece the growth factor is
 * its exact mean over the piece, so the expected count over any span is
 * exactly the integral of the compounding rate.  Hours, weekdays and days
 * are the service's region's local time (spec->utc_offset_s: t + offset,
 * t = 0 being midnight UTC on start_weekday); bursts and growth are on the
 * clock.
 *
 * A stream (fs_arrival_stream) multiplies that rate by the service's random
 * factor, if it has one (modulation.h: "mmpp" or "noise"; pieces then also
 * end where the factor changes), and hands out points with the number of
 * requests each brings ("groups": the point rate is the request rate / E[G],
 * so the request rate is unchanged).  Its streams: "arrivals/<name>" (one
 * Exp(1) per point, as before any of this), "modulation/<name>" and
 * "groups/<name>", the last two created only when used.
 *
 * The analytic figures (fs_arrivals_mean_rate, fs_arrivals_peak_rate) never
 * touch a stream's random state: the mean is the deterministic rate's (an
 * MMPP's base_rps is its stationary mean, noise has mean 1); the peak is the
 * deterministic rate's x, for an MMPP, the busiest state's rps / base_rps.
 * Noise is left out of the peak (a lognormal has none): it is the
 * deterministic peak.
 *
 * Ownership: fs_arrival_profile borrows the spec; it must outlive the
 * profile.  fs_arrival_stream is caller-owned (init/fini): it owns its
 * generators and group table and borrows the spec.
 */
#ifndef FS_ARRIVALS_H
#define FS_ARRIVALS_H

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <stdint.h>

#include "modulation.h"
#include "nhpp.h"
#include "scenario.h"

typedef struct fs_arrival_profile {
    const fs_arrivals *spec;
    int start_weekday;  /* day of week at t = 0, 0 = Monday */
} fs_arrival_profile;

/* Deterministic rate (requests/s) at t and the end of its piece; matches
 * fs_rate_fn. */
double fs_arrivals_rate(void *profile, double t, double *piece_end);

/* Mean and peak rate over [t0, t1], by walking the pieces exactly (see
 * above for what they leave out). */
double fs_arrivals_mean_rate(const fs_arrival_profile *p, double t0, double t1);
double fs_arrivals_peak_rate(const fs_arrival_profile *p, double t0, double t1);

typedef struct fs_arrival_stream {
    fs_arrival_profile profile;
    fs_nhpp points;
    gsl_rng *rng;                    /* "arrivals/<name>" */
    fs_modulation mod;               /* mod.ops NULL: no random factor */
    gsl_rng *group_rng;              /* "groups/<name>"; NULL: one request per point */
    gsl_ran_discrete_t *group_table; /* a listed group law; NULL: geometric */
} fs_arrival_stream;

/* Sets up the stream of service `name` for (seed, replication).  0, or
 * ENOMEM with the stream left safe to fini. */
int fs_arrival_stream_init(fs_arrival_stream *s, const fs_arrivals *spec, int start_weekday, uint64_t seed,
                           uint32_t replication, const char *name);

/* The next point strictly after now (calls come with non-decreasing now),
 * or INFINITY when there is none up to limit; *group: the requests it
 * brings (1 without groups, and when there is no point). */
uint32_t fs__arrival_stream_group(fs_arrival_stream *s); /* a point's group size (arrivals.c) */
static inline double fs_arrival_stream_next(fs_arrival_stream *s, double now, double limit, uint32_t *group)
{
    double t = fs_nhpp_next(&s->points, now, limit, s->rng);
    *group = s->group_rng && t <= limit ? fs__arrival_stream_group(s) : 1;
    return t;
}

void fs_arrival_stream_fini(fs_arrival_stream *s);

#endif

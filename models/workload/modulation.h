/*
 * modulation — the random factor on a service's arrival rate ("mmpp" or
 * "noise" of its "arrivals"): one small interface, one file per kind.
 *
 * A modulation is a piecewise-constant random process M(t) >= 0 whose
 * stationary mean is 1, so the rate's mean stays what the deterministic
 * profile says (arrivals.h).  It is realised lazily and in time order: the
 * arrival stream asks for the factor in force at non-decreasing times and a
 * kind draws its next piece only when time reaches the end of the current
 * one.  A process whose rate is itself random is a doubly stochastic
 * Poisson process (Cox, "Some statistical methods connected with series of
 * events", JRSS B 17, 1955).  The draws come from the stream
 * "modulation/<service>" alone, so the Exp(1) draws of "arrivals/<service>"
 * are the same with or without one: a modulated and a plain run of the same
 * seed share them.
 *
 *   mmpp   a continuous-time Markov chain over 2 to 8 states: state i holds
 *          for an exponential time of mean D_i, then jumps to one of the
 *          others with equal probability; M = rps_i / base_rps.  It starts
 *          in a state drawn from the stationary law (time shares
 *          proportional to D_i), so the process is stationary from t = 0.
 *   noise  M = X_k on [k D, (k + 1) D), E[X] = 1, coefficient of variation
 *          c: lognormal (sigma^2 = ln(1 + c^2), mu = -sigma^2 / 2), its log
 *          an AR(1) chain with rho = exp(-D / correlation_time) when one is
 *          given (independent intervals otherwise), or gamma (shape 1/c^2,
 *          scale c^2), independent.
 *
 * Adding a kind is one file with one fs_modulation_ops, its extern below and
 * a case in fs_modulation_for (arrivals.c).
 *
 * Ownership: fs_modulation is caller-owned, embedded in the arrival stream
 * (arrivals.h); it borrows the spec and the generator.
 */
#ifndef FS_MODULATION_H
#define FS_MODULATION_H

#include <gsl/gsl_rng.h>
#include <stdint.h>

#include "scenario.h"

typedef struct fs_modulation {
    const struct fs_modulation_ops *ops; /* NULL: no random factor */
    const fs_arrivals *spec;
    gsl_rng *rng;          /* "modulation/<service>", owned by the stream */
    double factor;         /* M(t) on the current piece, which ends at `until` */
    double until;
    uint32_t state;        /* mmpp: the state in force */
    uint64_t k;            /* noise: the interval in force */
    double log_x;          /* noise, lognormal: log of the factor in force */
    double mu, sigma, rho; /* noise, lognormal: the log's mean, sd and lag-1 correlation */
} fs_modulation;

typedef struct fs_modulation_ops {
    const char *name;
    /* The first piece, from t = 0, drawn from the stationary law.  0, or
     * ENOMEM. */
    int (*start)(fs_modulation *m);
    /* The piece after the one ending at m->until. */
    void (*next)(fs_modulation *m);
} fs_modulation_ops;

extern const fs_modulation_ops fs_modulation_mmpp;
extern const fs_modulation_ops fs_modulation_noise;

#endif

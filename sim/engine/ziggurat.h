/*
 * ziggurat — exponential variates for the hot path, without a logarithm.
 *
 * gsl_ran_exponential costs a log1p per draw, and in an M/M/c run (two
 * exponentials per request: the interarrival gap and the service time) that
 * log1p was 31% of the run (issue 18).  The ziggurat (Marsaglia & Tsang 2000,
 * "The Ziggurat Method for Generating Random Variables", J. Stat. Softw.
 * 5(8)) covers exp(-x) with 256 layers of equal area; about 98.9% of draws
 * are one 32-bit word, a table lookup, a multiply and a compare.  The rest
 * fall in a layer's wedge (one more uniform and an exp) or in the tail beyond
 * r = 7.697..., where the exponential's lack of memory makes the answer
 * r + a fresh draw, so no logarithm is ever taken.
 *
 * The word's low 8 bits pick the layer and its high 24 bits the position
 * within it, so a draw is an odd multiple of X[layer] / 2^25: never 0, and
 * neighbouring values at most 8.7 / 2^24 = 5.2e-7 of the mean apart, far
 * finer than a latency histogram's 1/256.  It reads the generator with gsl_rng_get, so the
 * generator must return full 32-bit words (gsl_rng_taus2, which every
 * fs_rng stream is; asserted).  It draws from the caller's stream, so same
 * seed, same draws; but not the same draws as gsl_ran_exponential.
 *
 * Used where exponentials dominate: FS_DIST_EXPONENTIAL in dist.c and the
 * Exp(1) of each Poisson arrival in nhpp.c.  Everything else keeps GSL's
 * samplers.  The tables come from ziggurat_tables.py; tests/test_sampler.c
 * checks them against the construction and the draws against the
 * exponential distribution.
 */
#ifndef FS_ZIGGURAT_H
#define FS_ZIGGURAT_H

#include <gsl/gsl_rng.h>

/* One Exp(1) draw (mean 1), > 0.  Hot path. */
double fs_ziggurat_exp1(gsl_rng *r);

/* One draw of the exponential with mean `mean` (> 0): mean * Exp(1). */
double fs_ziggurat_exponential(gsl_rng *r, double mean);

/* The layer boundaries and exp(-boundary), FS_ZIGGURAT_LAYERS + 1 each (X[0] is the
 * pseudo-width of the base layer, X[1] = r, X[256] = 0), for the test that
 * checks them against the construction. */
#define FS_ZIGGURAT_LAYERS 256
const double *fs_ziggurat_x(void);
const double *fs_ziggurat_f(void);

#endif

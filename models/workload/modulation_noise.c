/* noise: the rate times X_k on the k-th interval [k D, (k + 1) D), with
 * E[X] = 1 and coefficient of variation c, so the mean rate is the profile's
 * and Var N = m + m^2 c^2 for the count N of an interval of mean m (a mixed
 * Poisson count: Cox 1955).  Lognormal: log X ~ N(mu, sigma^2) with
 * sigma^2 = ln(1 + c^2), mu = -sigma^2 / 2; with a correlation time T the
 * logs form the AR(1) chain log X_{k+1} = mu + rho (log X_k - mu) +
 * sqrt(1 - rho^2) sigma eps, rho = exp(-D / T), whose every term keeps that
 * marginal (the sampled Ornstein-Uhlenbeck process).  Gamma: shape 1/c^2,
 * scale c^2, independent intervals. */
#include "modulation.h"

#include <gsl/gsl_randist.h>
#include <math.h>

/* The next factor; rho 0 (no correlation time) draws independent ones
 * through the same chain. */
static void draw(fs_modulation *m, bool first)
{
    const fs_arrival_noise *n = &m->spec->noise;
    if (n->kind == FS_NOISE_GAMMA) {
        m->factor = gsl_ran_gamma(m->rng, 1 / (n->cv * n->cv), n->cv * n->cv);
        return;
    }
    double eps = gsl_ran_gaussian_ziggurat(m->rng, 1.0);
    m->log_x = first ? m->mu + m->sigma * eps
                     : m->mu + m->rho * (m->log_x - m->mu) + sqrt(1 - m->rho * m->rho) * m->sigma * eps;
    m->factor = exp(m->log_x);
}

static int noise_start(fs_modulation *m)
{
    const fs_arrival_noise *n = &m->spec->noise;
    m->sigma = sqrt(log1p(n->cv * n->cv));
    m->mu = -m->sigma * m->sigma / 2;
    m->rho = n->correlation_s > 0 ? exp(-n->interval_s / n->correlation_s) : 0;
    m->k = 0;
    m->until = n->interval_s;
    draw(m, true);
    return 0;
}

/* Edges are (k + 1) D, multiplied rather than summed, so they do not drift
 * over millions of intervals. */
static void noise_next(fs_modulation *m)
{
    m->k++;
    m->until = (double)(m->k + 1) * m->spec->noise.interval_s;
    draw(m, false);
}

const fs_modulation_ops fs_modulation_noise = {
    .name = "noise",
    .start = noise_start,
    .next = noise_next,
};

/* mmpp: a Markov-modulated Poisson process (Fischer & Meier-Hellstern, "The
 * Markov-modulated Poisson process (MMPP) cookbook", Performance Evaluation
 * 18, 1993).  The rate's factor is rps_i / base_rps while the chain is in
 * state i; the chain holds state i for an exponential time of mean D_i and
 * then jumps to one of the other states with equal probability. */
#include "modulation.h"

#include <errno.h>
#include <gsl/gsl_randist.h>

static void enter(fs_modulation *m, uint32_t state, double from)
{
    const fs_mmpp_state *s = &m->spec->mmpp[state];
    m->state = state;
    m->factor = s->multiplier;
    m->until = from + gsl_ran_exponential(m->rng, s->mean_sojourn_s);
}

/* The stationary law: time shares proportional to the mean sojourns.  A
 * sojourn is memoryless, so a full one from t = 0 is what a chain running
 * since long before would have left of its current one. */
static int mmpp_start(fs_modulation *m)
{
    double share[FS_SCENARIO_MAX_MMPP_STATES];
    for (size_t i = 0; i < m->spec->n_mmpp; i++)
        share[i] = m->spec->mmpp[i].share;
    gsl_ran_discrete_t *law = gsl_ran_discrete_preproc(m->spec->n_mmpp, share);
    if (!law)
        return ENOMEM;
    uint32_t first = (uint32_t)gsl_ran_discrete(m->rng, law);
    gsl_ran_discrete_free(law);
    enter(m, first, 0);
    return 0;
}

/* Each other state with probability 1 / (n - 1): a uniform pick among n - 1,
 * shifted past the current one. */
static void mmpp_next(fs_modulation *m)
{
    uint32_t j = (uint32_t)gsl_rng_uniform_int(m->rng, m->spec->n_mmpp - 1);
    enter(m, j >= m->state ? j + 1 : j, m->until);
}

const fs_modulation_ops fs_modulation_mmpp = {
    .name = "mmpp",
    .start = mmpp_start,
    .next = mmpp_next,
};

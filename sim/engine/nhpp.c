/*
 * nhpp — piecewise-constant-rate Poisson arrivals by inversion; see nhpp.h.
 */
#include "nhpp.h"
#include "ziggurat.h"

#include <assert.h>
#include <math.h>

void fs_nhpp_init(fs_nhpp *p, fs_rate_fn rate_fn, void *ctx)
{
    assert(p != NULL && rate_fn != NULL);
    p->rate_fn = rate_fn;
    p->ctx = ctx;
    p->rate = 0.0;
    /* No piece cached yet: every t fails t < piece_end, forcing a lookup. */
    p->piece_end = -INFINITY;
}

double fs_nhpp_next(fs_nhpp *p, double now, double limit, gsl_rng *r)
{
    assert(p != NULL && r != NULL);
    assert(!isnan(now) && !isnan(limit));

    /* Drawn before any early return so each call consumes exactly one
     * Exp(1) draw: the stream stays aligned across runs that differ in limit.
     * The ziggurat, because this draw is half of every request's variates. */
    double e = fs_ziggurat_exp1(r);
    double t = now;

    for (;;) {
        if (t >= limit)
            return INFINITY;
        /* The cached piece was looked up at some time <= t (calls come with
         * non-decreasing now), so it still covers t while t < piece_end. */
        if (!(t < p->piece_end)) {
            double end = t;
            double rate = p->rate_fn(p->ctx, t, &end);
            assert(rate >= 0.0 && isfinite(rate));
            assert(end > t);
            p->rate = rate;
            p->piece_end = end;
        }

        double len = p->piece_end - t;
        if (p->rate > 0.0) {
            double budget = p->rate * len; /* INFINITY for an endless piece */
            /* Strict: an arrival exactly at piece_end belongs to the next
             * piece, whose rate may be zero. */
            if (e < budget) {
                double a = t + e / p->rate;
                /* Rounding can carry t + e/rate onto the boundary; keep the
                 * arrival inside the piece whose rate produced it. */
                if (a >= p->piece_end)
                    a = nextafter(p->piece_end, -INFINITY);
                return a <= limit ? a : INFINITY;
            }
            e -= budget;
        }
        t = p->piece_end;
    }
}

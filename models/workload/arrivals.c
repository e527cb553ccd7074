#include "arrivals.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>

#include "rng.h"

#define FS_HOUR 3600.0
#define FS_DAY 86400.0

/* The rate at t without the growth factor, and the end of its piece: base x
 * hour x bursts x day's level.  Hour, weekday and day are local: the clock
 * t (0 = midnight UTC, start_weekday's) plus the region's offset, so a
 * local day may start before t = 0 (day -1, a day before the first: its
 * weekday the one before, its level the first's).  Pieces end at local
 * hours, mapped back to the clock exactly (offset 0: to the bit as
 * before). */
static double fs__shape(const fs_arrival_profile *p, double t, double *piece_end)
{
    const fs_arrivals *a = p->spec;
    double local = t + a->utc_offset_s;
    double day = floor(local / FS_DAY);
    double w = fmod(day + p->start_weekday, 7.0);
    int weekday = (int)(w < 0 ? w + 7 : w);
    int hour = (int)floor((local - day * FS_DAY) / FS_HOUR);
    if (hour > 23) /* t a hair below a day boundary, rounded */
        hour = 23;
    double end = day * FS_DAY + (hour + 1) * FS_HOUR - a->utc_offset_s;
    double rate = a->base_rps * (weekday >= 5 ? a->weekend[hour] : a->weekday[hour]);
    if (a->n_daily_levels) {
        size_t last = a->n_daily_levels - 1;
        if (day >= (double)last && a->daily_levels[last] == 0) {
            /* Silent for good: an endless piece, so the process stops
             * looking (nhpp.h) instead of walking every hour to the limit. */
            *piece_end = INFINITY;
            return 0;
        }
        rate *= a->daily_levels[day <= 0 ? 0 : day < (double)last ? (size_t)day : last];
    }
    /* Bursts are few (a handful per scenario) and this runs once per piece,
     * not per request, so a linear scan is the clear choice. */
    for (size_t i = 0; i < a->n_bursts; i++) {
        const fs_burst *b = &a->bursts[i];
        double b_end = b->at_s + b->duration_s;
        if (t >= b->at_s && t < b_end) {
            rate *= b->multiplier;
            if (b_end < end)
                end = b_end;
        } else if (b->at_s > t && b->at_s < end) {
            end = b->at_s;
        }
    }
    *piece_end = end;
    return rate;
}

/* The growth factor (1 + g)^(t / P) averaged exactly over the piece [t0, t1):
 *   (1 + g)^(t0 / P) ((1 + g)^(d / P) - 1) / ((d / P) ln(1 + g)),  d = t1 - t0,
 * so rate x this, spent over the piece, is the integral of the compounding
 * rate there and the expected count over any span is exact (only its shape
 * within an hour is flattened).  expm1(x) / x keeps full precision where
 * x = (d / P) ln(1 + g) is tiny.  1 without growth; an endless piece (a
 * rate of zero for good) takes its start's value. */
static double fs__growth_mean(const fs_arrivals *a, double t0, double t1)
{
    if (a->growth == 0)
        return 1;
    double per_s = log1p(a->growth) / a->growth_period_s;
    double start = exp(t0 * per_s), x = (t1 - t0) * per_s;
    if (!isfinite(t1) || x == 0)
        return start;
    return start * expm1(x) / x;
}

double fs_arrivals_rate(void *profile, double t, double *piece_end)
{
    const fs_arrival_profile *p = profile;
    double rate = fs__shape(p, t, piece_end);
    return p->spec->growth != 0 ? rate * fs__growth_mean(p->spec, t, *piece_end) : rate;
}

/* Walks the pieces of [t0, t1], calling back with each piece's rate and length. */
static void fs__walk(const fs_arrival_profile *p, double t0, double t1, double *integral,
                     double *peak)
{
    *integral = 0;
    *peak = 0;
    for (double t = t0; t < t1;) {
        double end;
        double rate = fs__shape(p, t, &end);
        if (end > t1)
            end = t1;
        /* Growth's mean over the part of the piece inside [t0, t1]. */
        if (p->spec->growth != 0)
            rate *= fs__growth_mean(p->spec, t, end);
        *integral += rate * (end - t);
        if (rate > *peak)
            *peak = rate;
        t = end;
    }
}

/* The most an MMPP's busiest state multiplies the rate by (1 without one). */
static double fs__busiest_state(const fs_arrivals *a)
{
    double most = 1;
    for (size_t i = 0; i < a->n_mmpp; i++)
        most = i ? fmax(most, a->mmpp[i].multiplier) : a->mmpp[i].multiplier;
    return most;
}

double fs_arrivals_mean_rate(const fs_arrival_profile *p, double t0, double t1)
{
    double integral, peak;
    if (t1 <= t0)
        return fs_arrivals_rate((void *)p, t0, &peak);
    fs__walk(p, t0, t1, &integral, &peak);
    return integral / (t1 - t0);
}

double fs_arrivals_peak_rate(const fs_arrival_profile *p, double t0, double t1)
{
    double integral, peak;
    if (t1 <= t0)
        return fs_arrivals_rate((void *)p, t0, &peak) * fs__busiest_state(p->spec);
    fs__walk(p, t0, t1, &integral, &peak);
    return peak * fs__busiest_state(p->spec);
}

/* ---- the stream of points -------------------------------------------------- */

/* The kind of random factor a spec asks for; NULL for none. */
static const fs_modulation_ops *fs__modulation_for(const fs_arrivals *a)
{
    if (a->n_mmpp)
        return &fs_modulation_mmpp;
    if (a->noise.kind != FS_NOISE_NONE)
        return &fs_modulation_noise;
    return NULL;
}

/* The point rate the stream's Poisson process runs at: the deterministic
 * shape x the random factor x growth, over a piece that also ends where the
 * factor changes, / E[G].  The process calls it with non-decreasing t, which
 * is what lets the factor be drawn lazily, piece by piece.  Without a factor
 * or groups it is fs_arrivals_rate, to the bit. */
static double fs__stream_rate(void *ctx, double t, double *piece_end)
{
    fs_arrival_stream *s = ctx;
    const fs_arrivals *a = s->profile.spec;
    double end, rate = fs__shape(&s->profile, t, &end);
    if (s->mod.ops && isfinite(end)) {
        while (t >= s->mod.until)
            s->mod.ops->next(&s->mod);
        rate *= s->mod.factor;
        if (s->mod.until < end)
            end = s->mod.until;
    }
    if (a->growth != 0)
        rate *= fs__growth_mean(a, t, end);
    if (a->groups.mean > 0)
        rate /= a->groups.mean;
    *piece_end = end;
    return rate;
}

int fs_arrival_stream_init(fs_arrival_stream *s, const fs_arrivals *spec, int start_weekday, uint64_t seed,
                           uint32_t replication, const char *name)
{
    *s = (fs_arrival_stream){.profile = {.spec = spec, .start_weekday = start_weekday}};
    /* The names are cut at the same length as before this stream existed,
     * so every stream keeps its seed. */
    char stream[512];
    snprintf(stream, sizeof stream, "arrivals/%s", name);
    if (!(s->rng = fs_rng_create(seed, replication, stream)))
        return ENOMEM;
    fs_nhpp_init(&s->points, fs__stream_rate, s);
    const fs_modulation_ops *ops = fs__modulation_for(spec);
    if (ops) {
        snprintf(stream, sizeof stream, "modulation/%s", name);
        s->mod = (fs_modulation){.spec = spec, .rng = fs_rng_create(seed, replication, stream)};
        if (!s->mod.rng || ops->start(&s->mod) != 0)
            return ENOMEM;
        s->mod.ops = ops;
    }
    const fs_arrival_groups *g = &spec->groups;
    if (g->mean > 0) {
        snprintf(stream, sizeof stream, "groups/%s", name);
        if (!(s->group_rng = fs_rng_create(seed, replication, stream)))
            return ENOMEM;
        if (g->n_sizes && !(s->group_table = gsl_ran_discrete_preproc(g->n_sizes, g->weights)))
            return ENOMEM;
    }
    return 0;
}

uint32_t fs__arrival_stream_group(fs_arrival_stream *s)
{
    const fs_arrival_groups *g = &s->profile.spec->groups;
    /* Shifted geometric on {1, 2, ...}: P(G = k) = q (1 - q)^(k - 1),
     * mean 1 / q. */
    return s->group_table ? g->sizes[gsl_ran_discrete(s->group_rng, s->group_table)]
                          : gsl_ran_geometric(s->group_rng, 1 / g->mean);
}

void fs_arrival_stream_fini(fs_arrival_stream *s)
{
    fs_rng_destroy(s->rng);
    fs_rng_destroy(s->mod.rng);
    fs_rng_destroy(s->group_rng);
    if (s->group_table)
        gsl_ran_discrete_free(s->group_table);
    *s = (fs_arrival_stream){0};
}

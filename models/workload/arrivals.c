#include "arrivals.h"

#include <math.h>

#define FS_HOUR 3600.0
#define FS_DAY 86400.0

double fs_arrivals_rate(void *profile, double t, double *piece_end)
{
    const fs_arrival_profile *p = profile;
    const fs_arrivals *a = p->spec;
    double day = floor(t / FS_DAY);
    int weekday = (int)fmod(day + p->start_weekday, 7.0);
    int hour = (int)floor((t - day * FS_DAY) / FS_HOUR);
    if (hour > 23) /* t a hair below a day boundary, rounded */
        hour = 23;
    double end = day * FS_DAY + (hour + 1) * FS_HOUR;
    double rate = a->base_rps * (weekday >= 5 ? a->weekend[hour] : a->weekday[hour]);
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

/* Walks the pieces of [t0, t1], calling back with each piece's rate and length. */
static void fs__walk(const fs_arrival_profile *p, double t0, double t1, double *integral,
                     double *peak)
{
    *integral = 0;
    *peak = 0;
    for (double t = t0; t < t1;) {
        double end;
        double rate = fs_arrivals_rate((void *)p, t, &end);
        if (end > t1)
            end = t1;
        *integral += rate * (end - t);
        if (rate > *peak)
            *peak = rate;
        t = end;
    }
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
        return fs_arrivals_rate((void *)p, t0, &peak);
    fs__walk(p, t0, t1, &integral, &peak);
    return peak;
}

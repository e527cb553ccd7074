/*
 * span — rate over the covered span and busiest clock hour (see span.h).
 */
#include "span.h"

#include <assert.h>
#include <math.h>

void fs_span_init(fs_span *s, double from, double to)
{
    *s = (fs_span){.from = from, .to = to};
}

/* Clock hour h's index for an event at t in [from, to]: the interval is
 * closed at `to`, so an event exactly at a `to` that falls on the hour
 * belongs to the hour that ends there, which has a length. */
static int64_t fs__hour_of(const fs_span *s, double t)
{
    int64_t h = (int64_t)floor(t / FS_SPAN_HOUR_S);
    if (h > 0 && (double)h * FS_SPAN_HOUR_S >= s->to && s->to > s->from)
        h--;
    return h;
}

/* Hour h's events per second over its length inside [from, to]. */
static double fs__hour_rate(const fs_span *s, int64_t h, uint64_t n)
{
    double start = fmax((double)h * FS_SPAN_HOUR_S, s->from);
    double end = fmin((double)(h + 1) * FS_SPAN_HOUR_S, s->to);
    /* A zero-length interval has one instant and no rate. */
    return end > start ? (double)n / (end - start) : NAN;
}

void fs_span_add(fs_span *s, double t)
{
    if (!(t >= s->from && t <= s->to))
        return;
    assert(s->n == 0 || t >= s->last);
    int64_t h = fs__hour_of(s, t);
    if (s->n == 0) {
        s->first = t;
        s->hour = h;
    } else if (h != s->hour) {
        double closed = fs__hour_rate(s, s->hour, s->hour_n);
        if (closed > s->peak_closed)
            s->peak_closed = closed;
        s->hour = h;
        s->hour_n = 0;
    }
    s->n++;
    s->hour_n++;
    s->last = t;
}

double fs_span_length(const fs_span *s)
{
    return s->n >= 2 && s->last > s->first ? s->last - s->first : NAN;
}

double fs_span_rate(const fs_span *s)
{
    double len = fs_span_length(s);
    return isnan(len) ? NAN : (double)(s->n - 1) / len;
}

double fs_span_peak_hour_rate(const fs_span *s)
{
    if (isnan(fs_span_length(s)))
        return NAN;
    double open = fs__hour_rate(s, s->hour, s->hour_n);
    return open > s->peak_closed ? open : s->peak_closed;
}

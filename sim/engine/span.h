/*
 * span — the rate of a stream of event times over the part of an interval it
 * covers, and its busiest clock hour.
 *
 * A replayed trace may cover two hours of a day's run; its requests over the
 * whole measured interval would understate its load twelvefold.  A span
 * watches the events of one interval [from, to] (both ends included; events
 * outside it are ignored) as they come, in time order, and keeps:
 *
 *   - the count n, the first and the last event time: the rate over the span
 *     covered is (n - 1) / (last - first), the reciprocal of the mean gap
 *     between consecutive events (n / (last - first) would count one gap too
 *     many: two events a second apart are one per second, not two);
 *   - the busiest clock hour: hour h is [3600 h, 3600 (h + 1)) cut to the
 *     interval (the last one closed at `to`, so an event at `to` on the hour
 *     counts in the hour before), and its rate is its events over its length
 *     inside the interval, so a first or last hour cut by the interval is
 *     judged by the seconds it has there.  Only the open hour's count and the
 *     largest closed hour's rate are kept: memory does not grow.
 *
 * Both are NaN ("no data") with fewer than two events, or two or more at one
 * instant (no span to divide by).
 *
 * Ownership: a plain value of numbers only (results copy it byte for byte);
 * nothing allocated.
 */
#ifndef FS_SPAN_H
#define FS_SPAN_H

#include <stdint.h>

#define FS_SPAN_HOUR_S 3600.0

typedef struct fs_span {
    double from, to;      /* the interval watched */
    uint64_t n;           /* events in it so far */
    double first, last;   /* their first and last times (0 while n = 0) */
    int64_t hour;         /* the open clock hour's index (valid while n > 0) */
    uint64_t hour_n;      /* its events so far */
    double peak_closed;   /* the largest rate of the hours closed so far (0: none) */
} fs_span;

/* An empty span watching [from, to] (from > to: an empty interval, which
 * sees nothing). */
void fs_span_init(fs_span *s, double from, double to);

/* One event at time t, no earlier than the one before; ignored outside
 * [from, to]. */
void fs_span_add(fs_span *s, double t);

/* (n - 1) / (last - first), per second; NaN with no span (see the top). */
double fs_span_rate(const fs_span *s);

/* The busiest clock hour's events per second, the open hour included; NaN
 * when fs_span_rate is. */
double fs_span_peak_hour_rate(const fs_span *s);

/* last - first; NaN when fs_span_rate is. */
double fs_span_length(const fs_span *s);

#endif

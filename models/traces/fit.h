/*
 * fit — a scenario's arrival profile fitted to observed traffic.
 *
 * Two kinds of input fill one accumulator: a request trace (one row per
 * request, read with trace.h) or a rate series (one row per window with its
 * mean rate, e.g. ServeGen's aggregate rates: preset "servegen-rate").  The
 * accumulator keeps, for each hour and each counting window of the input's
 * span, the arrivals seen and the seconds observed ("covered"); the fit is a
 * pure function of it, so tests can fill one by hand.
 *
 * The clock: accumulator time is seconds since day 0's midnight, day 0 being
 * the day of the first row.  Datetimes (UTC) put the first row on its date;
 * numeric times have no calendar: raw time 0 is 00:00 of --start-weekday, so
 * day 0 is the day that holds the first row's raw time.
 *
 * Definitions (what fs_fit_compute reports):
 *   - A cell is an hour of the day (0-23) for one day type: weekdays
 *     (Monday-Friday) and weekends, or every day when the input does not
 *     cover both.  Its rate is its arrivals over its covered seconds, with
 *     the input's first and last hours counted by the seconds they cover.  A
 *     cell with less than FS_FIT_MIN_COVER_S covered is "not covered": its
 *     multiplier is 1.
 *   - base_rps is the mean rate over all covered time (arrivals / covered
 *     seconds), and a cell's multiplier is its rate / base_rps.  That is
 *     what models/workload/arrivals.c needs: its rate(t) is base x the multiplier of
 *     t's hour and day type, with no normalisation, so base x multiplier
 *     gives back each fitted hourly rate.
 *   - Goodness of fit, hour by hour over the whole input: each covered
 *     clock hour's arrivals O against E = its cell's rate x its covered
 *     seconds.  Pearson's chi-square sum (O-E)^2/E over hours with E >= 5,
 *     degrees of freedom = those hours - the cells fitted from them, p-value
 *     gsl_cdf_chisq_Q: a small p says the counts vary from day to day more
 *     than a Poisson process with this profile allows.  The same per hour of
 *     the day, with the largest |O-E|/E among its hours.  R^2 = 1 -
 *     sum (O-E)^2 / sum (O - mean O)^2 over the fully covered hours: the
 *     share of the hour-to-hour variation of the counts the profile
 *     explains.
 *   - Dispersion and bursts (request traces): each counting window's
 *     arrivals O against E = its cell's rate x its covered seconds (x its
 *     day's factor and growth when fit_model.h prints a trend).  The
 *     index of dispersion is the mean of (O-E)^2/E over windows with E > 0:
 *     1 for a Poisson process with the fitted profile, above 1 for bursty
 *     traffic.  A window is hot when O > E + 4 sqrt(E); a burst episode is
 *     a maximal run of consecutive hot windows, with multiplier sum O / sum
 *     E.  Even a Poisson process has hot windows (about 5e-5 of them at E =
 *     300 a window, 2e-4 at E = 20): hot_by_chance is how many it would
 *     have, sum over windows of P(Poisson(E) > E + 4 sqrt(E)).
 *
 * Memory: 2 doubles per hour and 3 per counting window of the input's span
 * (14 days at 1-minute windows: 60,480 doubles, 473 KiB), whatever the
 * number of rows, and 8 KiB of group sizes; a span over FS_FIT_MAX_WINDOWS windows is refused.
 *
 * Ownership: the caller owns the accumulator (fs_fit_acc_fini frees its
 * arrays) and fs_fit (plain data).
 */
#ifndef FS_FIT_H
#define FS_FIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "fit_model.h"
#include "trace.h"

#define FS_FIT_MIN_COVER_S 60.0
/* Shorter inputs are refused (fs_fit_compute): too few arrivals, or a span
 * under a minute, fit nothing worth printing. */
#define FS_FIT_MIN_ARRIVALS 100
#define FS_FIT_MIN_SPAN_S 60.0
#define FS_FIT_MAX_WINDOWS ((size_t)1 << 22)
#define FS_FIT_MAX_BURSTS 20

enum { FS_FIT_WEEKDAY = 0, FS_FIT_WEEKEND = 1 };

typedef struct fs_fit_acc {
    /* What was read (filled by the readers; a hand-filled one sets weekday0). */
    bool rates;               /* a rate series, not requests */
    bool calendar;            /* datetimes: day 0's weekday came from the date */
    int weekday0;             /* day of week of day 0, 0 = Monday */
    double day0_raw_s;        /* day 0's midnight in the input's raw seconds (epoch for datetimes) */
    uint64_t rows;
    /* Rate series: windows of rate 0, counted as observed with no arrivals
     * (idle), or with zero_is_gap as gaps (not observed). */
    uint64_t idle_windows, gap_windows;
    double row_window_s;      /* rate series: the window each row covers */
    double first_s, last_s;   /* extent observed, accumulator time */

    /* The accumulators. */
    double window_s;          /* counting window; 0 for none (rate series) */
    size_t n_hours, cap_hours;
    double *hour_count, *hour_cover;
    size_t n_windows, cap_windows;
    double *win_count, *win_cover;
    double *win_groups;       /* groups that start in each window */
    /* Groups: consecutive arrivals at the identical time (fit_model.h). */
    double group_t;           /* the open group's time */
    uint64_t group_open;      /* its size so far; 0 before the first arrival */
    double group_hist[FS_FIT_GROUP_HIST + 1]; /* closed groups by size; [0] unused */
    double group_big, group_big_sum, group_big_sumsq; /* sizes above FS_FIT_GROUP_HIST */
} fs_fit_acc;

/* Empty accumulator.  window_s: 0, or a counting window in whole seconds that
 * divides an hour (1 s .. 1 h), so windows never straddle an hour.  FS_OK or
 * FS_ERR_INPUT. */
int fs_fit_acc_init(fs_fit_acc *acc, int weekday0, double window_s, fs_error *err);
void fs_fit_acc_fini(fs_fit_acc *acc);

/* One arrival at time t >= 0.  FS_OK, FS_ERR_INPUT (beyond the span limit),
 * FS_ERR_RUNTIME (out of memory). */
int fs_fit_acc_arrival(fs_fit_acc *acc, double t, fs_error *err);

/* [t0, t1) observed, with `amount` arrivals spread evenly over it (a rate
 * series: rate x length; a request trace: 0, its arrivals come one by one).
 * Same statuses as fs_fit_acc_arrival. */
int fs_fit_acc_cover(fs_fit_acc *acc, double t0, double t1, double amount, fs_error *err);

/* A request trace, read to the end.  start_weekday (0 = Monday) places raw
 * time 0 of a numeric time column; datetimes ignore it.  Initialises *acc
 * (fini it whatever the status).  FS_OK; FS_ERR_INPUT for a job trace, a bad
 * row ("file:LINE: ..."), or a trace without two rows apart in time;
 * FS_ERR_RUNTIME. */
int fs_fit_read_requests(const fs_trace_spec *spec, int start_weekday, double window_s, fs_fit_acc *acc,
                         fs_error *err);

/* The same for the rows before until_s (> 0) on the trace's own clock
 * (seconds from its first row, before any rate scale or shift), observed
 * up to until_s: the first part of a back-test (models/study/backtest.h).
 * INFINITY reads to the end, as fs_fit_read_requests. */
int fs_fit_read_requests_until(const fs_trace_spec *spec, int start_weekday, double window_s, double until_s,
                               fs_fit_acc *acc, fs_error *err);

/* A rate series: a CSV with a window-start column and a rate column (per
 * second).  Each row covers [start, start + window); rows must not overlap.
 * Missing rows are gaps: nothing was observed.  A row of rate 0 is an
 * observed window with no arrivals (idle time: a quiet night, a client
 * that sent nothing), unless zero_is_gap says the series writes 0 for an
 * outage of its own collection; then it is a gap too.  Counting idle
 * windows as gaps drops their seconds from the observed time and overstates
 * the base rate by as much; counting outages as idle understates it. */
typedef struct fs_fit_rate_spec {
    const char *path;
    const char *start_col;            /* window start, a number */
    fs_trace_time_format start_format; /* seconds, ms or us */
    const char *rate_col;             /* requests per second */
    double window_s;                  /* 0: the spacing of the first two rows */
    bool zero_is_gap;                 /* a row of rate 0 is a gap, not idle time */
} fs_fit_rate_spec;

/* NULL-terminated names of the rate-series presets: "servegen-rate"
 * (ServeGen *_aggregate_rate.csv: window_start_s, total_rate_rps, 600 s). */
extern const char *const fs_fit_rate_preset_names[];

/* The preset's spec (strings are static; path is borrowed).  FS_OK, or
 * FS_ERR_INPUT for an unknown name. */
int fs_fit_rate_preset(const char *name, const char *path, fs_fit_rate_spec *out, fs_error *err);

/* Reads the series; start_weekday is day 0's weekday (raw time 0 is its
 * midnight).  Initialises *acc (fini it whatever the status).  FS_OK,
 * FS_ERR_INPUT ("file:LINE: ..."), FS_ERR_RUNTIME. */
int fs_fit_read_rates(const fs_fit_rate_spec *spec, int start_weekday, fs_fit_acc *acc, fs_error *err);

typedef struct fs_fit_cell {
    double count;             /* arrivals */
    double covered_s;
    double rate_rps;          /* count / covered_s; 0 when not covered */
    double multiplier;        /* rate / base; 1 when not covered */
    bool covered;             /* covered_s >= FS_FIT_MIN_COVER_S */
    /* Goodness of fit of the clock hours in this cell (see the top). */
    double chi2;
    int hours;                /* clock hours with E >= 5 */
    double max_rel_err;       /* NAN when none */
} fs_fit_cell;

typedef struct fs_fit_hour_gof {
    double chi2;              /* over both day types' hours at this hour of the day */
    int dof;                  /* hours - cells fitted; <= 0: no test */
    double p_value;           /* NAN when dof <= 0 */
    double max_rel_err;       /* NAN when no hour */
} fs_fit_hour_gof;

typedef struct fs_fit_burst {
    double at_s;              /* accumulator time: from day 0's midnight */
    double duration_s;
    double observed, expected;
    double multiplier;        /* observed / expected */
    size_t first_window, n_windows;
} fs_fit_burst;

typedef struct fs_fit {
    bool split;               /* weekday and weekend profiles: the input covers both */
    double base_rps;
    double covered_s, arrivals;
    fs_fit_cell cell[2][24];  /* [FS_FIT_WEEKDAY] is every day when !split ([1] then a copy) */
    fs_fit_cell all_days[24]; /* both day types pooled */
    int peak_hour, trough_hour;   /* of all_days among covered hours; -1 if none */
    double peak_trough;       /* their rates' ratio; INFINITY when the trough is 0 */

    fs_fit_hour_gof hour[24];
    double chi2;
    int dof;
    double p_value;           /* NAN when dof <= 0 */
    size_t gof_hours;         /* clock hours in the chi-square */
    double r2;                /* NAN with fewer than 2 full hours or no variation */
    size_t r2_hours;

    /* Request traces only (has_windows). */
    bool has_windows;
    double window_s;
    size_t windows;           /* with E > 0 */
    double mean_expected;     /* mean E of those windows */
    double dispersion;
    double peak_ratio;        /* max O/E over fully covered windows */
    double peak_at_s;
    size_t hot_windows;
    double hot_by_chance;     /* hot windows a Poisson process with the profile would have */
    size_t n_bursts;          /* episodes found */
    double burst_s;           /* their total length */
    double burst_multiplier;  /* sum O / sum E over all of them */
    double longest_s;
    fs_fit_burst bursts[FS_FIT_MAX_BURSTS]; /* the largest (most excess arrivals) first */
    size_t n_listed;

    /* The fragment and its checks (fit_model.h).  After fs_fit_compute the
     * listed bursts' expected and multiplier are against the fragment's
     * profile, which leaves their windows out. */
    fs_fit_model model;
} fs_fit;

/* The fit of what acc holds.  FS_OK, or FS_ERR_INPUT when nothing was
 * covered, no arrival was seen (no rate to scale a profile by), or the
 * input is too short (under FS_FIT_MIN_ARRIVALS arrivals or a span under
 * FS_FIT_MIN_SPAN_S); FS_ERR_RUNTIME (out of memory). */
int fs_fit_compute(const fs_fit_acc *acc, fs_fit *out, fs_error *err);

#endif

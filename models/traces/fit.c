/*
 * fit — arrival profiles fitted to traces and rate series (see fit.h).
 *
 * Three parts: the accumulator (hour and window arrays that grow with the
 * input's span), the two readers that fill it (both through trace.h: a
 * request trace row by row, a rate series with its window start as the time
 * and its rate as the first size), and the fit, which only reads the
 * accumulator.
 */
#include "fit.h"

#include <errno.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FS_HOUR 3600.0
#define FS_DAY 86400.0

/* ---- the accumulator ----------------------------------------------------- */

int fs_fit_acc_init(fs_fit_acc *acc, int weekday0, double window_s, fs_error *err)
{
    memset(acc, 0, sizeof *acc);
    acc->weekday0 = weekday0;
    acc->first_s = INFINITY;
    acc->last_s = -INFINITY;
    /* Whole seconds dividing an hour keep every window inside one hour, so a
     * window's expected count is one cell's rate times its coverage. */
    if (window_s != 0 && !(window_s >= 1 && window_s <= FS_HOUR && window_s == floor(window_s) &&
                           fmod(FS_HOUR, window_s) == 0))
        return fs_error_set(err, FS_ERR_INPUT,
                            "the counting window must be whole seconds that divide an hour (1s, 10s, 1m, "
                            "5m, 15m, 1h, ...), got %g s",
                            window_s);
    acc->window_s = window_s;
    return FS_OK;
}

void fs_fit_acc_fini(fs_fit_acc *acc)
{
    free(acc->hour_count);
    free(acc->hour_cover);
    free(acc->win_count);
    free(acc->win_cover);
    free(acc->win_groups);
    memset(acc, 0, sizeof *acc);
}

/* One series of slots `unit` seconds long: arrivals, covered seconds and,
 * for windows, the groups that start in them. */
typedef struct fs__slots {
    double unit;
    size_t *n, *cap;
    double **count, **cover, **groups;
} fs__slots;

static fs__slots fs__hours(fs_fit_acc *acc)
{
    return (fs__slots){FS_HOUR, &acc->n_hours, &acc->cap_hours, &acc->hour_count, &acc->hour_cover, NULL};
}

static fs__slots fs__windows(fs_fit_acc *acc)
{
    return (fs__slots){acc->window_s, &acc->n_windows,  &acc->cap_windows,
                       &acc->win_count, &acc->win_cover, &acc->win_groups};
}

/* Grows one array of a slot series to cap (new slots zeroed). */
static double *fs__grow(double *a, size_t old, size_t cap)
{
    double *b = realloc(a, cap * sizeof *b);
    if (b)
        memset(b + old, 0, (cap - old) * sizeof *b);
    return b;
}

/* Makes slot `last` exist (zeroed); doubling keeps the reallocations few. */
static int fs__reach(const fs__slots *s, double last, fs_error *err)
{
    if (!(last < (double)FS_FIT_MAX_WINDOWS))
        return fs_error_set(err, FS_ERR_INPUT,
                            "the input spans more than %zu slots of %g s (%.0f days): give a longer --window, "
                            "or check the time column's unit",
                            FS_FIT_MAX_WINDOWS, s->unit, (double)FS_FIT_MAX_WINDOWS * s->unit / FS_DAY);
    size_t need = (size_t)last + 1;
    if (need > *s->cap) {
        size_t cap = *s->cap ? *s->cap : 256;
        while (cap < need)
            cap *= 2;
        /* Each array is kept as soon as it grew: a failure leaves every one
         * valid for fini, and the capacity is raised only when all grew. */
        double **arrays[3] = {s->count, s->cover, s->groups};
        for (int a = 0; a < 3; a++) {
            if (!arrays[a])
                continue;
            double *grown = fs__grow(*arrays[a], *s->cap, cap);
            if (!grown)
                return fs_error_set(err, FS_ERR_RUNTIME, "out of memory for %zu slots of the fit", cap);
            *arrays[a] = grown;
        }
        *s->cap = cap;
    }
    if (need > *s->n)
        *s->n = need;
    return FS_OK;
}

static int fs__slot_arrival(const fs__slots *s, double t, bool new_group, fs_error *err)
{
    double k = floor(t / s->unit);
    int rc = fs__reach(s, k, err);
    if (rc == FS_OK)
        (*s->count)[(size_t)k] += 1;
    if (rc == FS_OK && s->groups && new_group)
        (*s->groups)[(size_t)k] += 1;
    return rc;
}

/* Adds [t0, t1) to the slots it overlaps, each by its share of the length. */
static int fs__slot_cover(const fs__slots *s, double t0, double t1, double amount, fs_error *err)
{
    double first = floor(t0 / s->unit), last = ceil(t1 / s->unit) - 1;
    int rc = fs__reach(s, last, err);
    for (double k = first; rc == FS_OK && k <= last; k++) {
        double lo = fmax(t0, k * s->unit), hi = fmin(t1, (k + 1) * s->unit);
        if (hi <= lo)
            continue;
        (*s->cover)[(size_t)k] += hi - lo;
        (*s->count)[(size_t)k] += amount * (hi - lo) / (t1 - t0);
    }
    return rc;
}

static int fs__check_time(double t, fs_error *err)
{
    if (!(t >= 0) || !isfinite(t))
        return fs_error_set(err, FS_ERR_INPUT, "time %g s is before day 0 or not finite", t);
    return FS_OK;
}

/* Closes the open group into the size counts. */
static void fs__group_close(fs_fit_acc *acc)
{
    double g = (double)acc->group_open;
    if (acc->group_open == 0)
        return;
    if (acc->group_open <= FS_FIT_GROUP_HIST) {
        acc->group_hist[acc->group_open] += 1;
    } else {
        acc->group_big += 1;
        acc->group_big_sum += g;
        acc->group_big_sumsq += g * g;
    }
}

int fs_fit_acc_arrival(fs_fit_acc *acc, double t, fs_error *err)
{
    fs__slots hours = fs__hours(acc), windows = fs__windows(acc);
    int rc = fs__check_time(t, err);
    /* The identical time as the arrival before: one more of its group (a
     * row out of order by the trace's tolerance starts a new one). */
    bool new_group = acc->group_open == 0 || t != acc->group_t;
    if (rc == FS_OK)
        rc = fs__slot_arrival(&hours, t, new_group, err);
    if (rc == FS_OK && acc->window_s > 0)
        rc = fs__slot_arrival(&windows, t, new_group, err);
    if (rc == FS_OK && new_group) {
        fs__group_close(acc);
        acc->group_open = 0;
        acc->group_t = t;
    }
    if (rc == FS_OK) {
        acc->group_open++;
        acc->first_s = fmin(acc->first_s, t);
        acc->last_s = fmax(acc->last_s, t);
    }
    return rc;
}

int fs_fit_acc_cover(fs_fit_acc *acc, double t0, double t1, double amount, fs_error *err)
{
    if (!(t1 > t0))
        return FS_OK;
    fs__slots hours = fs__hours(acc), windows = fs__windows(acc);
    int rc = fs__check_time(t0, err);
    if (rc == FS_OK)
        rc = fs__slot_cover(&hours, t0, t1, amount, err);
    if (rc == FS_OK && acc->window_s > 0)
        rc = fs__slot_cover(&windows, t0, t1, amount, err);
    if (rc == FS_OK) {
        acc->first_s = fmin(acc->first_s, t0);
        acc->last_s = fmax(acc->last_s, t1);
    }
    return rc;
}

/* Day 0 is the day holding the first row's raw time.  Datetimes count from
 * 1970-01-01, a Thursday (3, Monday being 0); numeric times from 00:00 of
 * start_weekday. */
static void fs__place_day0(fs_fit_acc *acc, double first_raw_s, bool calendar, int start_weekday)
{
    double day = floor(first_raw_s / FS_DAY);
    acc->day0_raw_s = day * FS_DAY;
    acc->calendar = calendar;
    int64_t from = calendar ? 3 : start_weekday;
    acc->weekday0 = (int)((((int64_t)day % 7) + 7 + from) % 7);
}

/* ---- request traces ------------------------------------------------------ */

int fs_fit_read_requests(const fs_trace_spec *spec, int start_weekday, double window_s, fs_fit_acc *acc,
                         fs_error *err)
{
    return fs_fit_read_requests_until(spec, start_weekday, window_s, INFINITY, acc, err);
}

int fs_fit_read_requests_until(const fs_trace_spec *spec, int start_weekday, double window_s, double until_s,
                               fs_fit_acc *acc, fs_error *err)
{
    int rc = fs_fit_acc_init(acc, 0, window_s, err);
    if (rc != FS_OK)
        return rc;
    if (spec->kind != FS_TRACE_REQUESTS)
        return fs_error_set(err, FS_ERR_INPUT,
                            "%s: a job trace; fit-traffic fits request traces (one row per request) and rate "
                            "series",
                            spec->path);
    /* Rows on the trace's own clock: no scaling, shift or repeat. */
    fs_trace_spec plain = *spec;
    plain.rate_scale = 1;
    plain.shift_s = 0;
    plain.repeat = false;
    fs_trace *t = NULL;
    if ((rc = fs_trace_open(&plain, &t, err)) != FS_OK)
        return rc;
    fs_trace_row row;
    fs_error inner = {0};
    double offset = 0, first = 0, last = 0;
    int got;
    while ((got = fs_trace_next(t, &row, &inner)) == 1) {
        /* Rows come in time order (trace.h), so the first at the limit ends the part. */
        if (row.t >= until_s)
            break;
        if (acc->rows++ == 0) {
            double origin = fs_trace_origin(t);
            fs__place_day0(acc, origin, spec->time_format == FS_TRACE_TIME_DATETIME, start_weekday);
            offset = origin - acc->day0_raw_s;
            first = offset + row.t;
        }
        last = offset + row.t;
        if ((rc = fs_fit_acc_arrival(acc, last, &inner)) != FS_OK) {
            /* Name the row: the accumulator does not know the file. */
            rc = fs_error_set(err, rc, "%s:%llu: %s", spec->path, (unsigned long long)row.line, inner.msg);
            break;
        }
    }
    fs_trace_close(t);
    if (rc != FS_OK)
        return rc;
    if (got < 0)
        return fs_error_set(err, inner.code ? inner.code : FS_ERR_INPUT, "%s", inner.msg);
    if (acc->rows < 2 || !(last > first))
        return fs_error_set(err, FS_ERR_INPUT,
                            "%s: %llu row(s) spanning no time: a rate needs at least two requests at "
                            "different times",
                            spec->path, (unsigned long long)acc->rows);
    /* Observed from the first request to the last, or to the limit: the
     * quiet seconds before it were observed too. */
    return fs_fit_acc_cover(acc, first, isfinite(until_s) ? offset + until_s : last, 0, err);
}

/* ---- rate series --------------------------------------------------------- */

const char *const fs_fit_rate_preset_names[] = {"servegen-rate", NULL};

int fs_fit_rate_preset(const char *name, const char *path, fs_fit_rate_spec *out, fs_error *err)
{
    if (strcmp(name, "servegen-rate") != 0)
        return fs_error_set(err, FS_ERR_INPUT, "unknown rate preset \"%s\" (known: servegen-rate)", name);
    /* ServeGen's *_aggregate_rate.csv: one row per 600 s window (SUMMARY.txt). */
    *out = (fs_fit_rate_spec){.path = path,
                              .start_col = "window_start_s",
                              .start_format = FS_TRACE_TIME_SECONDS,
                              .rate_col = "total_rate_rps",
                              .window_s = 600};
    return FS_OK;
}

/* The series as it is read: the window length (given, or the spacing of
 * the first two rows, so the first row waits for the second) and the last
 * window's start, to refuse overlaps.  The rows come from the trace reader
 * (trace.h): the start column is its time and the rate its first size, so
 * the CSV handling, bad-row messages and streaming are the reader's. */
typedef struct fs__rates {
    const char *path;
    fs_fit_acc *acc;
    int start_weekday;
    bool zero_is_gap;
    int failed;
    fs_error err;
    double window_s;
    bool pending;
    double pending_start, pending_rate;
    uint64_t pending_line;
    bool have_prev;
    double prev_start;
} fs__rates;

/* Records the first failure; later ones are its consequences. */
#define fs__rates_fail(r, code, ...) \
    ((void)((r)->failed || ((r)->failed = fs_error_set(&(r)->err, (code), __VA_ARGS__))))

/* One window of the series into the accumulator. */
static void fs__rates_window(fs__rates *r, double start, double rate, uint64_t line)
{
    const char *path = r->path;
    double w = r->window_s;
    if (r->have_prev && start < r->prev_start + w * (1 - 1e-9)) {
        fs__rates_fail(r, FS_ERR_INPUT,
                       "%s:%llu: the window at %.10g s starts before the one at %.10g s (%g s long) ends: "
                       "windows must be in time order and not overlap",
                       path, (unsigned long long)line, start, r->prev_start, w);
        return;
    }
    if (r->acc->rows++ == 0)
        fs__place_day0(r->acc, start, false, r->start_weekday);
    r->have_prev = true;
    r->prev_start = start;
    if (rate == 0 && r->zero_is_gap) {
        r->acc->gap_windows++;
        return;
    }
    r->acc->idle_windows += rate == 0;
    double t0 = start - r->acc->day0_raw_s;
    fs_error inner = {0};
    if (fs_fit_acc_cover(r->acc, t0, t0 + w, rate * w, &inner) != FS_OK)
        fs__rates_fail(r, inner.code, "%s:%llu: %s", path, (unsigned long long)line, inner.msg);
}

/* One row: windowed at once, or, while the window is unknown, held until
 * the second row gives the spacing. */
static void fs__rates_row(fs__rates *r, double start, double rate, uint64_t line)
{
    if (r->window_s > 0) {
        fs__rates_window(r, start, rate, line);
    } else if (!r->pending) {
        r->pending = true;
        r->pending_start = start;
        r->pending_rate = rate;
        r->pending_line = line;
    } else if (!(start > r->pending_start)) {
        fs__rates_fail(r, FS_ERR_INPUT, "%s:%llu: %.10g is not after the first row's %.10g", r->path,
                       (unsigned long long)line, start, r->pending_start);
    } else {
        r->window_s = start - r->pending_start;
        r->pending = false;
        fs__rates_window(r, r->pending_start, r->pending_rate, r->pending_line);
        if (!r->failed)
            fs__rates_window(r, start, rate, line);
    }
}

int fs_fit_read_rates(const fs_fit_rate_spec *spec, int start_weekday, fs_fit_acc *acc, fs_error *err)
{
    int rc = fs_fit_acc_init(acc, 0, 0, err);
    if (rc != FS_OK)
        return rc;
    acc->rates = true;
    if (!(spec->window_s >= 0) || !isfinite(spec->window_s))
        return fs_error_set(err, FS_ERR_INPUT, "%s: the window must be a length >= 0 s", spec->path);
    /* Tolerance 0: a window earlier than the one before is a bad row. */
    fs_trace_spec ts = {.path = (char *)spec->path, .kind = FS_TRACE_REQUESTS, .time_col = (char *)spec->start_col,
                        .time_format = spec->start_format, .size_cols = {(char *)spec->rate_col},
                        .rate_scale = 1, .tolerance_s = 0};
    fs_trace *trace;
    if ((rc = fs_trace_open(&ts, &trace, err)) != FS_OK)
        return rc;
    fs__rates r = {.path = spec->path, .acc = acc, .start_weekday = start_weekday, .zero_is_gap = spec->zero_is_gap,
                   .window_s = spec->window_s};
    fs_trace_row row;
    int got;
    while (!r.failed && (got = fs_trace_next(trace, &row, &r.err)) != 0) {
        if (got < 0)
            r.failed = r.err.code;
        else
            fs__rates_row(&r, fs_trace_origin(trace) + row.t, row.size[0], row.line);
    }
    fs_trace_close(trace);
    if (!r.failed && r.pending)
        fs__rates_fail(&r, FS_ERR_INPUT, "%s: one window only: give its length (--window)", spec->path);
    if (!r.failed && acc->rows == 0)
        fs__rates_fail(&r, FS_ERR_INPUT, "%s: no rows after the header", spec->path);
    acc->row_window_s = r.window_s;
    return r.failed ? fs_error_set(err, r.failed, "%s", r.err.msg) : FS_OK;
}

/* ---- the fit ------------------------------------------------------------- */

static int fs__day_type(const fs_fit_acc *acc, size_t hour_index)
{
    return (acc->weekday0 + hour_index / 24) % 7 >= 5 ? FS_FIT_WEEKEND : FS_FIT_WEEKDAY;
}

static void fs__cell_rate(fs_fit_cell *c, double base)
{
    c->covered = c->covered_s >= FS_FIT_MIN_COVER_S;
    c->rate_rps = c->covered ? c->count / c->covered_s : 0;
    c->multiplier = c->covered ? c->rate_rps / base : 1;
    c->max_rel_err = NAN;
}

/* The profile's cell for hour index i. */
static fs_fit_cell *fs__cell_of(fs_fit *f, const fs_fit_acc *acc, size_t i)
{
    return &f->cell[f->split ? fs__day_type(acc, i) : FS_FIT_WEEKDAY][i % 24];
}

static void fs__profile(const fs_fit_acc *acc, fs_fit *f)
{
    for (size_t i = 0; i < acc->n_hours; i++) {
        fs_fit_cell *c = &f->cell[fs__day_type(acc, i)][i % 24];
        c->count += acc->hour_count[i];
        c->covered_s += acc->hour_cover[i];
    }
    bool any[2] = {false, false};
    for (int h = 0; h < 24; h++) {
        for (int d = 0; d < 2; d++) {
            any[d] = any[d] || f->cell[d][h].covered_s >= FS_FIT_MIN_COVER_S;
            f->covered_s += f->cell[d][h].covered_s;
            f->arrivals += f->cell[d][h].count;
        }
        f->all_days[h].count = f->cell[0][h].count + f->cell[1][h].count;
        f->all_days[h].covered_s = f->cell[0][h].covered_s + f->cell[1][h].covered_s;
    }
    f->base_rps = f->arrivals / f->covered_s;
    f->split = any[FS_FIT_WEEKDAY] && any[FS_FIT_WEEKEND];
    for (int h = 0; h < 24; h++) {
        if (!f->split)
            f->cell[FS_FIT_WEEKDAY][h] = f->cell[FS_FIT_WEEKEND][h] = f->all_days[h];
        for (int d = 0; d < 2; d++)
            fs__cell_rate(&f->cell[d][h], f->base_rps);
        fs__cell_rate(&f->all_days[h], f->base_rps);
    }
    f->peak_hour = f->trough_hour = -1;
    for (int h = 0; h < 24; h++) {
        if (!f->all_days[h].covered)
            continue;
        if (f->peak_hour < 0 || f->all_days[h].rate_rps > f->all_days[f->peak_hour].rate_rps)
            f->peak_hour = h;
        if (f->trough_hour < 0 || f->all_days[h].rate_rps < f->all_days[f->trough_hour].rate_rps)
            f->trough_hour = h;
    }
    if (f->peak_hour >= 0) {
        double trough = f->all_days[f->trough_hour].rate_rps;
        f->peak_trough = trough > 0 ? f->all_days[f->peak_hour].rate_rps / trough : INFINITY;
    }
}

/* Chi-square hour by hour, per cell and per hour of the day; R^2 of the
 * fully covered hours.  obs and res are scratch arrays of n_hours. */
static void fs__goodness(const fs_fit_acc *acc, fs_fit *f, double *obs, double *res)
{
    size_t full = 0;
    for (size_t i = 0; i < acc->n_hours; i++) {
        fs_fit_cell *c = fs__cell_of(f, acc, i);
        if (acc->hour_cover[i] <= 0 || !c->covered)
            continue;
        double o = acc->hour_count[i], e = c->rate_rps * acc->hour_cover[i];
        /* Below 5 expected the chi-square approximation of a Poisson count
         * fails (the usual rule); such hours are the input's ragged edges. */
        if (e >= 5) {
            double rel = fabs(o - e) / e;
            c->chi2 += (o - e) * (o - e) / e;
            c->hours++;
            c->max_rel_err = isnan(c->max_rel_err) ? rel : fmax(c->max_rel_err, rel);
            f->gof_hours++;
        }
        if (acc->hour_cover[i] >= FS_HOUR * (1 - 1e-9)) {
            obs[full] = o;
            res[full++] = o - e;
        }
    }
    int cells = 0;
    for (int h = 0; h < 24; h++) {
        fs_fit_hour_gof *g = &f->hour[h];
        g->max_rel_err = NAN;
        int fitted = 0, hours = 0;
        for (int d = 0; d < (f->split ? 2 : 1); d++) {
            const fs_fit_cell *c = &f->cell[d][h];
            if (c->hours == 0)
                continue;
            g->chi2 += c->chi2;
            hours += c->hours;
            fitted++;
            g->max_rel_err = isnan(g->max_rel_err) ? c->max_rel_err : fmax(g->max_rel_err, c->max_rel_err);
        }
        g->dof = hours - fitted;
        g->p_value = g->dof > 0 ? gsl_cdf_chisq_Q(g->chi2, g->dof) : NAN;
        f->chi2 += g->chi2;
        cells += fitted;
    }
    if (!f->split) /* cell[1] is a copy of cell[0]: keep them equal */
        memcpy(f->cell[FS_FIT_WEEKEND], f->cell[FS_FIT_WEEKDAY], sizeof f->cell[0]);
    f->dof = (int)f->gof_hours - cells;
    f->p_value = f->dof > 0 ? gsl_cdf_chisq_Q(f->chi2, f->dof) : NAN;
    f->r2_hours = full;
    double tss = full >= 2 ? gsl_stats_tss(obs, 1, full) : 0;
    double rss = 0;
    for (size_t k = 0; k < full; k++)
        rss += res[k] * res[k];
    f->r2 = tss > 0 ? 1 - rss / tss : NAN;
}

/* Keeps the FS_FIT_MAX_BURSTS largest episodes, largest first. */
static void fs__keep_burst(fs_fit *f, const fs_fit_burst *b)
{
    double excess = b->observed - b->expected;
    size_t k = f->n_listed;
    if (k == FS_FIT_MAX_BURSTS) {
        const fs_fit_burst *last = &f->bursts[k - 1];
        if (!(excess > last->observed - last->expected))
            return;
        k--;
    } else {
        f->n_listed++;
    }
    while (k > 0 && excess > f->bursts[k - 1].observed - f->bursts[k - 1].expected) {
        f->bursts[k] = f->bursts[k - 1];
        k--;
    }
    f->bursts[k] = *b;
}

static void fs__close_burst(fs_fit *f, fs_fit_burst *open, double *sum_o, double *sum_e)
{
    if (open->duration_s <= 0)
        return;
    open->multiplier = open->observed / open->expected;
    f->n_bursts++;
    f->burst_s += open->duration_s;
    f->longest_s = fmax(f->longest_s, open->duration_s);
    *sum_o += open->observed;
    *sum_e += open->expected;
    fs__keep_burst(f, open);
    *open = (fs_fit_burst){0};
}

/* The windows against rate[hour index], the model's rate without bursts. */
static void fs__windows_fit(const fs_fit_acc *acc, fs_fit *f, const double *rate)
{
    double w = acc->window_s, sum_o = 0, sum_e = 0, sum_expected = 0, pearson = 0;
    size_t per_hour = (size_t)(FS_HOUR / w);
    /* The episode being extended: a non-hot window closes it, so a run of
     * consecutive hot windows is one episode. */
    fs_fit_burst open = {0};
    f->has_windows = true;
    f->window_s = w;
    for (size_t k = 0; k < acc->n_windows; k++) {
        double e = k / per_hour < acc->n_hours ? rate[k / per_hour] * acc->win_cover[k] : 0;
        if (e <= 0) {
            fs__close_burst(f, &open, &sum_o, &sum_e);
            continue;
        }
        double o = acc->win_count[k];
        f->windows++;
        sum_expected += e;
        pearson += (o - e) * (o - e) / e;
        if (acc->win_cover[k] >= w * (1 - 1e-9) && o / e > f->peak_ratio) {
            f->peak_ratio = o / e;
            f->peak_at_s = (double)k * w;
        }
        double threshold = e + 4 * sqrt(e);
        f->hot_by_chance += gsl_cdf_poisson_Q((unsigned)floor(threshold), e);
        if (!(o > threshold)) {
            fs__close_burst(f, &open, &sum_o, &sum_e);
            continue;
        }
        f->hot_windows++;
        /* Only the observed part of a window at the input's edges: replaying
         * the multiplier over it gives back the window's count. */
        if (open.duration_s == 0) {
            open.at_s = fmax((double)k * w, acc->first_s);
            open.first_window = k;
        }
        open.n_windows++;
        open.duration_s += acc->win_cover[k];
        open.observed += o;
        open.expected += e;
    }
    fs__close_burst(f, &open, &sum_o, &sum_e);
    f->mean_expected = f->windows ? sum_expected / (double)f->windows : NAN;
    f->dispersion = f->windows ? pearson / (double)f->windows : NAN;
    f->burst_multiplier = sum_e > 0 ? sum_o / sum_e : NAN;
}

int fs_fit_compute(const fs_fit_acc *acc, fs_fit *out, fs_error *err)
{
    memset(out, 0, sizeof *out);
    fs__profile(acc, out);
    if (!(out->covered_s > 0))
        return fs_error_set(err, FS_ERR_INPUT, "nothing to fit: the input covers no time");
    if (!(out->arrivals > 0))
        return fs_error_set(err, FS_ERR_INPUT, "nothing to fit: no arrivals in %g covered seconds",
                            out->covered_s);
    /* Under these a profile's multipliers, the dispersion and its test are
     * noise: refused rather than printed as if they meant something. */
    double span = acc->last_s - acc->first_s;
    if (out->arrivals < FS_FIT_MIN_ARRIVALS || span < FS_FIT_MIN_SPAN_S)
        return fs_error_set(err, FS_ERR_INPUT,
                            "too short to fit: %.0f arrivals over %.3g s (a fit needs at least %d arrivals over "
                            "at least %g s)",
                            out->arrivals, span, FS_FIT_MIN_ARRIVALS, FS_FIT_MIN_SPAN_S);
    /* Scratch: 2 arrays for the goodness of fit, 4 and the cells for the
     * model (fit_model.h). */
    size_t n = acc->n_hours ? acc->n_hours : 1;
    double *scratch = malloc(6 * n * sizeof *scratch);
    int *cell = malloc(n * sizeof *cell);
    if (!scratch || !cell) {
        free(scratch);
        free(cell);
        return fs_error_set(err, FS_ERR_RUNTIME, "out of memory for %zu hours of the fit", acc->n_hours);
    }
    fs__goodness(acc, out, scratch, scratch + n);
    fs__fit_hours h = {.n = acc->n_hours, .cell = cell, .count = scratch, .cover = scratch + n,
                       .growth = scratch + 2 * n, .rate = scratch + 3 * n};
    for (size_t i = 0; i < acc->n_hours; i++) {
        cell[i] = (out->split ? fs__day_type(acc, i) : FS_FIT_WEEKDAY) * 24 + (int)(i % 24);
        h.count[i] = acc->hour_count[i];
        h.cover[i] = acc->hour_cover[i];
    }
    fs__fit_model_start(acc, out, &h);
    if (acc->window_s > 0)
        fs__windows_fit(acc, out, h.rate);
    if (fs__fit_model_trend(acc, out, &h) && acc->window_s > 0) {
        /* Bursts again, against the trend: a busy day is not a burst. */
        memset(&out->has_windows, 0, offsetof(fs_fit, model) - offsetof(fs_fit, has_windows));
        fs__windows_fit(acc, out, h.rate);
    }
    int rc = fs__fit_model_finish(acc, out, &h, err);
    free(scratch);
    free(cell);
    return rc;
}

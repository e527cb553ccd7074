#include "settle.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <gsl/gsl_statistics_double.h>

const double fs_settle_quantiles[FS_SETTLE_FIGURES] = {-1, 0.50, 0.95, 0.99, 0.999};
const char *const fs_settle_names[FS_SETTLE_FIGURES] = {"mean", "p50", "p95", "p99", "p999"};

void fs_settle_reset(fs_settle_batches *b)
{
    memset(b, 0, sizeof *b);
}

int fs_settle_close(fs_settle_batches *b, fs_hist *batch, fs_hist *into)
{
    assert(b && batch && into);
    if (b->n < FS_SETTLE_BATCHES) {
        for (size_t f = 0; f < FS_SETTLE_FIGURES; f++)
            b->value[f][b->n] = fs_settle_quantiles[f] < 0 ? fs_hist_mean(batch)
                                                           : fs_hist_quantile(batch, fs_settle_quantiles[f]);
        b->count[b->n++] = batch->total;
    }
    if (fs_hist_merge(into, batch) != 0)
        return ENOMEM;
    fs_hist_reset(batch);
    return 0;
}

bool fs_settle_complete(const fs_settle_batches *b)
{
    for (uint32_t i = 0; i < b->n; i++)
        if (b->count[i] == 0)
            return false;
    return b->n >= 2;
}

bool fs_settle_comparable(const fs_settle_batches *b, fs_settle_figure f)
{
    double q = fs_settle_quantiles[f];
    double need = q < 0 ? 1 : FS_SETTLE_MIN_TAIL_PER_BATCH / (1 - q);
    for (uint32_t i = 0; i < b->n; i++)
        if ((double)b->count[i] < need)
            return false;
    return b->n >= 2;
}

double fs_settle_lag1(const double *x, size_t n)
{
    if (n < 3)
        return 0;
    double mean = gsl_stats_mean(x, 1, n);
    /* GSL divides by the sum of squares: a constant series (every batch in
     * one histogram bucket) has no correlation to speak of, not NaN. */
    double ss = 0;
    for (size_t i = 0; i < n; i++)
        ss += (x[i] - mean) * (x[i] - mean);
    if (!(ss > 0))
        return 0;
    return gsl_stats_lag1_autocorrelation_m(x, 1, n, mean);
}

size_t fs_settle_mser(const double *x, size_t n)
{
    size_t best_d = 0;
    double best = INFINITY;
    /* O(n^2) over n <= FS_SETTLE_BATCHES values: 400 steps, once per figure. */
    for (size_t d = 0; d <= n / 2 && d < n; d++) {
        size_t m = n - d;
        double mean = gsl_stats_mean(x + d, 1, m), ss = 0;
        for (size_t i = d; i < n; i++)
            ss += (x[i] - mean) * (x[i] - mean);
        double mser = ss / ((double)m * (double)m);
        if (mser < best) {
            best = mser;
            best_d = d;
        }
    }
    return best_d;
}

fs_settle_diag fs_settle_diagnose(const double *x, size_t n)
{
    assert(n >= 2);
    fs_settle_diag d = {.ci = fs_summary_of(x, 1, n), .lag1 = fs_settle_lag1(x, n)};
    d.mser_cut = fs_settle_mser(x, n);
    if (d.mser_cut > 0) {
        fs_summary rest = fs_summary_of(x + d.mser_cut, 1, n - d.mser_cut);
        d.mser_shift = fabs(d.ci.mean - rest.mean);
        d.mser_hw = rest.half_width;
    }
    return d;
}

unsigned fs_settle_judge(double point, double hw, const fs_settle_diag *d)
{
    unsigned why = 0;
    if (isnan(hw))
        why |= FS_SETTLE_NO_INTERVAL;
    else if (hw > FS_SETTLE_MAX_RELATIVE_HW * fabs(point))
        why |= FS_SETTLE_WIDE;
    if (d && d->lag1 > FS_SETTLE_MAX_LAG1)
        why |= FS_SETTLE_CORRELATED;
    /* The cut is a transient only if dropping it moves the figure by more
     * than the figure's own uncertainty: on 20 independent normal batches
     * MSER cuts something in 38% of runs, but moves the mean by more than
     * the rest's half-width in under 1% (measured, 20,000 seeded trials). */
    double floor = FS_SETTLE_MIN_RELATIVE_SHIFT * fabs(point);
    if (d && d->mser_cut > 0 && d->mser_shift > fmax(d->mser_hw, floor))
        why |= FS_SETTLE_TRANSIENT;
    if (d && d->comparable && fabs(point - d->ci.mean) > fmax(d->ci.half_width, floor))
        why |= FS_SETTLE_UNEVEN;
    return why;
}

/* Appends "; " (unless first) and one formatted reason; never overruns. */
static void fs__why_add(char *buf, size_t size, size_t *used, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void fs__why_add(char *buf, size_t size, size_t *used, const char *fmt, ...)
{
    if (*used + 2 >= size)
        return;
    if (*used) {
        memcpy(buf + *used, "; ", 3);
        *used += 2;
    }
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(buf + *used, size - *used, fmt, ap);
    va_end(ap);
    if (k > 0)
        *used = *used + (size_t)k < size ? *used + (size_t)k : size - 1;
}

/* A figure as a person reads it: whole units from 100 up (13657, not
 * 1.366e+04), three significant digits below. */
static const char *fs__number(double x, char *buf, size_t size)
{
    snprintf(buf, size, fabs(x) >= 100 ? "%.0f" : "%.3g", x);
    return buf;
}

char *fs_settle_why(unsigned why, double point, double hw, const fs_settle_diag *d, char *buf, size_t size)
{
    assert(size > 0);
    buf[0] = '\0';
    size_t used = 0;
    if (why & FS_SETTLE_NO_INTERVAL)
        fs__why_add(buf, size, &used,
                    "no confidence interval: one replication, and its batches are not alike (a load that "
                    "changes over time, or a batch without completions)");
    if (why & FS_SETTLE_WIDE)
        fs__why_add(buf, size, &used, "95%% CI ±%.0f%% of the value (settled: within %.0f%%)",
                    point != 0 ? 100 * hw / fabs(point) : INFINITY, 100 * FS_SETTLE_MAX_RELATIVE_HW);
    if ((why & FS_SETTLE_CORRELATED) && d)
        fs__why_add(buf, size, &used,
                    "batches correlated (lag-1 autocorrelation %.2f, above %.2f): the run is short against the "
                    "memory of the queue",
                    d->lag1, FS_SETTLE_MAX_LAG1);
    if ((why & FS_SETTLE_TRANSIENT) && d)
        fs__why_add(buf, size, &used, "the warm-up leaves a transient: MSER drops the first %zu of %zu batches",
                    d->mser_cut, d->ci.n);
    if (why & FS_SETTLE_BELOW)
        fs__why_add(buf, size, &used,
                    "a lower quantile of this run has not settled, and one further in the tail settles no sooner");
    if ((why & FS_SETTLE_UNEVEN) && d) {
        char whole[32], batches[32], spread[32];
        fs__why_add(buf, size, &used,
                    "batches not alike: the whole-run figure %s lies outside the batch values %s ±%s, so its "
                    "tail comes from a few batches",
                    fs__number(point, whole, sizeof whole), fs__number(d->ci.mean, batches, sizeof batches),
                    fs__number(d->ci.half_width, spread, sizeof spread));
    }
    return buf;
}

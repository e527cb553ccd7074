/*
 * chart_latency — the latency charts: p99 by time of day (p99_by_hour[_k])
 * and the empirical CDF of training queue waits (queue_wait_cdf).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart_internal.h"

#define FS__MAX_CDF_SERIES 6    /* (policy, stream) lines before streams are pooled */

/* A figure by time of day (chart_internal.h). */
int fs__chart_hourly(const fs__data *d, const fs__chart_out *o, const fs__hourly *h)
{
    fs__writer w;
    int rc = fs__writer_open_nth(&w, o, h->stem, h->nth, h->n);
    if (rc)
        return rc;
    char *title = fs__title(d->scenario, h->what, h->service);
    /* CSV: time_of_day, hour, one column per policy, the target. */
    fs__csv_policy_header(w.csv, d, "time_of_day,hour", h->target_col);
    fputs("$data << EOD\n", w.gp);
    for (size_t b = 0; b < d->n_bins; b++) {
        double start_h = (double)b * d->bin_s / 3600;
        int minutes = (int)lround(start_h * 60);
        fprintf(w.csv, "%02d:%02d,%.9g", minutes / 60, minutes % 60, start_h);
        fs__num(w.gp, fmin(start_h + d->bin_s / 7200, 24.0)); /* the bin's middle */
        for (size_t i = 0; i < d->n_pol; i++) {
            double mean = h->mean(d, i, b, h->ctx);
            fputc(',', w.csv);
            if (!isnan(mean))
                fs__num(w.csv, mean);
            if (i < FS__MAX_LINES) {
                fputc(' ', w.gp);
                fs__num(w.gp, mean);
            }
        }
        fputc(',', w.csv);
        if (!isnan(h->target_ms))
            fs__num(w.csv, h->target_ms);
        fputc('\n', w.csv);
        fputc('\n', w.gp);
    }
    fputs("EOD\n", w.gp);
    fs__gp_labels(w.bp, title ? title : "", "time of day (hours, by window start)", h->ylabel);
    fputs("set xrange [0:24]\nset xtics 0,2,24\nset mxtics 2\nset yrange [0:*]\n"
          "set key top left opaque noenhanced\nplot ",
          w.bp);
    fs__gp_policy_lines(w.bp, d, "lines");
    if (!isnan(h->target_ms))
        fprintf(w.bp, ", \\\n     %.9g with lines dt 2 lw 2 lc rgb '%s' title '%s %.9g ms' noenhanced",
                h->target_ms, FS__SLO_COLOR, h->target_what, h->target_ms);
    fputc('\n', w.bp);
    char *caption = fs__fmt(
        "Each line is one policy's %s for windows starting in that %s of the day, "
        "averaged over every day after warm-up and every replication%s",
        h->figure, d->bin_s == 900 ? "quarter-hour" : "window",
        isnan(h->target_ms) ? "; lower is better."
                            : "; the dashed red line is the SLO target, so a line above it marks "
                              "the times of day when that policy breaches.");
    return fs__writer_finish(&w, o, title, caption);
}

static double fs__p99_mean(const fs__data *d, size_t policy, size_t bin, const void *ctx)
{
    size_t s = *(const size_t *)ctx, n = d->pol[policy].p99_n[s * d->n_bins + bin];
    return n ? d->pol[policy].p99_sum[s * d->n_bins + bin] / (double)n : NAN;
}

/* 1. p99 by time of day, one chart per charted service. */
int fs__chart_p99(const fs__data *d, const fs__chart_out *o)
{
    for (size_t s = 0; s < d->n_sel; s++) {
        fs__hourly h = {"p99_by_hour", s, d->n_sel, d->sel[s].name, "p99 latency by time of day, service",
                        "p99 latency (ms), mean over days and replications", "slo_p99_ms", "SLO target: p99",
                        d->sel[s].p99_ms, "p99 latency", fs__p99_mean, &s};
        int rc = fs__chart_hourly(d, o, &h);
        if (rc)
            return rc;
    }
    return FS_OK;
}

static int fs__cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* 4. Empirical CDF of training queue waits. */
int fs__chart_cdf(fs__data *d, const fs__chart_out *o)
{
    size_t jobs = 0;
    for (size_t s = 0; s < d->n_series; s++)
        jobs += d->series[s].n;
    if (jobs == 0)
        return FS_OK;
    /* Few (policy, stream) pairs: one line each.  Otherwise one line per
     * policy with its streams pooled. */
    bool pooled = d->n_series > FS__MAX_CDF_SERIES;
    size_t n_lines = pooled ? d->n_pol : d->n_series;
    double **w_of = calloc(n_lines, sizeof *w_of);
    size_t *n_of = calloc(n_lines, sizeof *n_of);
    int rc = FS_OK;
    if (!w_of || !n_of) {
        rc = fs_error_set(o->err, FS_ERR_RUNTIME, "charts: out of memory");
        goto out;
    }
    for (size_t l = 0; l < n_lines; l++) {
        size_t n = 0;
        for (size_t s = 0; s < d->n_series; s++)
            if (pooled ? d->series[s].policy == l : s == l)
                n += d->series[s].n;
        w_of[l] = malloc((n ? n : 1) * sizeof **w_of);
        if (!w_of[l]) {
            rc = fs_error_set(o->err, FS_ERR_RUNTIME, "charts: out of memory");
            goto out;
        }
        for (size_t s = 0; s < d->n_series; s++)
            if (pooled ? d->series[s].policy == l : s == l) {
                memcpy(w_of[l] + n_of[l], d->series[s].wait_s, d->series[s].n * sizeof(double));
                n_of[l] += d->series[s].n;
            }
        qsort(w_of[l], n_of[l], sizeof(double), fs__cmp_double);
    }
    fs__writer w;
    if ((rc = fs__writer_open(&w, o, "queue_wait_cdf")))
        goto out;
    char *title = fs__title(d->scenario, "training queue wait", NULL);
    fputs("policy,stream,wait_minutes,cumulative_pct\n", w.csv);
    /* Waits often span seconds to hours (a job that found its GPUs free next
     * to one that waited for the night): past a 100x spread the axis is
     * logarithmic, with waits of 0 drawn at its left edge. */
    double xmax = 0, lo = INFINITY;
    size_t drawn = 0;
    for (size_t l = 0; l < n_lines; l++)
        for (size_t j = 0; j < n_of[l]; j++) {
            double m = w_of[l][j] / 60;
            xmax = fmax(xmax, m);
            if (m > 0)
                lo = fmin(lo, m);
        }
    bool logx = isfinite(lo) && xmax > 100 * lo;
    double floor_x = logx ? pow(10, floor(log10(lo))) : 0;
    for (size_t l = 0; l < n_lines; l++) {
        const char *policy = d->pol[pooled ? l : d->series[l].policy].name;
        if (n_of[l] == 0)
            continue;
        for (size_t j = 0; j < n_of[l]; j++) {
            fs__csv_str(w.csv, policy);
            fputc(',', w.csv);
            fs__csv_str(w.csv, pooled ? "" : d->series[l].stream); /* "" = all streams */
            fputc(',', w.csv);
            fs__num(w.csv, w_of[l][j] / 60);
            fputc(',', w.csv);
            fs__num(w.csv, 100.0 * (double)(j + 1) / (double)n_of[l]);
            fputc('\n', w.csv);
        }
        if (drawn == FS__MAX_LINES)
            continue;
        /* A step line: (w1, 0), then (wj, j/n) for every job. */
        fprintf(w.gp, "$s%zu << EOD\n", l);
        fs__num(w.gp, fmax(w_of[l][0] / 60, floor_x));
        fputs(" 0\n", w.gp);
        for (size_t j = 0; j < n_of[l]; j++) {
            fs__num(w.gp, fmax(w_of[l][j] / 60, floor_x));
            fputc(' ', w.gp);
            fs__num(w.gp, 100.0 * (double)(j + 1) / (double)n_of[l]);
            fputc('\n', w.gp);
        }
        fputs("EOD\n", w.gp);
        drawn++;
    }
    fs__gp_labels(w.bp, title ? title : "",
                  logx ? "queue wait (minutes, log scale; a wait of 0 is drawn at the left edge)"
                       : "queue wait (minutes)",
                  "training jobs that waited at most this long (%)");
    if (logx)
        fprintf(w.bp, "set logscale x\nset xrange [%.9g:%.9g]\n", floor_x, xmax * 1.5);
    else
        fprintf(w.bp, "set xrange [0:%.9g]\n", xmax > 0 ? xmax * 1.05 : 1.0);
    fputs("set yrange [0:105]\nset ytics 0,20,100\nset key below noenhanced\nset bmargin 7\nplot ", w.bp);
    drawn = 0;
    for (size_t l = 0; l < n_lines && drawn < FS__MAX_LINES; l++) {
        if (n_of[l] == 0)
            continue;
        size_t pi = pooled ? l : d->series[l].policy;
        size_t dash = 1; /* streams of one policy: one colour, distinct dashes */
        for (size_t m = 0; !pooled && m < l; m++)
            dash += d->series[m].policy == pi;
        char policy[FS__NAME_SHOWN + 4], stream[FS__NAME_SHOWN + 4];
        fs__shown(d->pol[pi].name, policy, FS__NAME_KEY);
        char *label;
        if (pooled) {
            label = fs__fmt("%s (all streams)", policy);
        } else {
            fs__shown(d->series[l].stream, stream, FS__NAME_KEY);
            label = fs__fmt("%s: %s", policy, stream);
        }
        fprintf(w.bp, "%s$s%zu using 1:2 with steps lw 2 dt %zu lc rgb '%s' title ", drawn ? ", \\\n     " : "",
                l, dash, fs__policy_colors[pi % FS__MAX_LINES]);
        fs__gp_quote(w.bp, label ? label : policy);
        fputs(" noenhanced", w.bp);
        free(label);
        drawn++;
    }
    fputc('\n', w.bp);
    char *caption = fs__fmt(
        "Each step line rises by one training job%s: read across from a share on the vertical axis "
        "to the queue wait that share of jobs did not exceed; a line further left means shorter waits.",
        pooled ? " (each line pools all of a policy's streams)" : "");
    rc = fs__writer_finish(&w, o, title, caption);
out:
    for (size_t l = 0; w_of && l < n_lines; l++)
        free(w_of[l]);
    free(w_of);
    free(n_of);
    return rc;
}

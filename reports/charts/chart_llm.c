/*
 * chart_llm — an LLM service's charts: TTFT and TPOT p99 by time of day
 * (ttft_by_hour, tpot_by_hour), its engine steps by batch size
 * (batch_sizes) and its KV-cache occupancy over time (kv_occupancy).  None
 * when the results have no LLM service.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart_internal.h"

static double fs__ttft_mean(const fs__data *d, size_t policy, size_t bin, const void *ctx)
{
    (void)ctx;
    size_t n = d->pol[policy].ttft_n[bin];
    return n ? d->pol[policy].ttft_sum[bin] / (double)n : NAN;
}

static double fs__tpot_mean(const fs__data *d, size_t policy, size_t bin, const void *ctx)
{
    (void)ctx;
    size_t n = d->pol[policy].tpot_n[bin];
    return n ? d->pol[policy].tpot_sum[bin] / (double)n : NAN;
}

/* Steps of size `size` in policy p, and all its steps (0: none). */
static double fs__steps(const fs__policy *p, size_t size, double *total)
{
    double at = 0;
    *total = 0;
    size_t k;
    json_t *pair;
    json_array_foreach(p->steps, k, pair) {
        json_t *s = json_array_get(pair, 0), *n = json_array_get(pair, 1);
        if (!json_is_integer(s) || !json_is_number(n) || !(json_number_value(n) >= 0))
            continue; /* not what fleetsim writes: left out rather than drawn */
        *total += json_number_value(n);
        if ((size_t)json_integer_value(s) == size)
            at = json_number_value(n);
    }
    return at;
}

/* The largest batch size any policy ran, 0 when none has a step. */
static size_t fs__largest(const fs__data *d)
{
    size_t largest = 0;
    for (size_t i = 0; i < d->n_pol; i++) {
        size_t k;
        json_t *pair;
        json_array_foreach(d->pol[i].steps, k, pair) {
            json_int_t s = json_integer_value(json_array_get(pair, 0));
            if (s > 0 && s <= 1 << 20 && (size_t)s > largest)
                largest = (size_t)s;
        }
    }
    return largest;
}

/* The share of each policy's engine steps that ran each number of sequences. */
static int fs__chart_batch_sizes(const fs__data *d, const fs__chart_out *o)
{
    size_t largest = fs__largest(d);
    if (largest == 0)
        return FS_OK;
    fs__writer w;
    int rc = fs__writer_open(&w, o, "batch_sizes");
    if (rc)
        return rc;
    char *title = fs__title(d->scenario, "engine steps by batch size, service", d->llm);
    fs__csv_policy_header(w.csv, d, "batch_size", NULL);
    size_t lines = fs__min(d->n_pol, FS__MAX_LINES);
    fputs("$data << EOD\n", w.gp);
    for (size_t size = 1; size <= largest; size++) {
        fprintf(w.csv, "%zu", size);
        fprintf(w.gp, "%zu", size);
        for (size_t i = 0; i < d->n_pol; i++) {
            double total, at = fs__steps(&d->pol[i], size, &total);
            double pct = total > 0 ? 100 * at / total : NAN;
            fputc(',', w.csv);
            if (!isnan(pct))
                fs__num(w.csv, pct);
            if (i < lines) {
                fputc(' ', w.gp);
                fs__num(w.gp, pct);
            }
        }
        fputc('\n', w.csv);
        fputc('\n', w.gp);
    }
    fputs("EOD\n", w.gp);
    fs__gp_labels(w.bp, title ? title : "", "running sequences in the step (batch size)", "share of engine steps (%)");
    fprintf(w.bp, "set xrange [0.5:%.9g]\nset yrange [0:*]\nset key top right opaque noenhanced\nplot ",
            (double)largest + 0.5);
    fs__gp_policy_lines(w.bp, d, "histeps");
    fputc('\n', w.bp);
    char *caption = fs__strdup(
        "Each line is one policy's distribution of engine steps by the number of sequences they ran "
        "(every replication's steps after warm-up together): further right means fuller batches, more "
        "tokens per step and, usually, slower steps.");
    return fs__writer_finish(&w, o, title, caption);
}

/* KV-cache occupancy per window, mean over replications. */
static int fs__chart_kv(const fs__data *d, const fs__chart_out *o)
{
    bool any = false;
    for (size_t i = 0; i < d->n_pol && !any; i++)
        for (size_t t = 0; t < d->n_windows && !any; t++)
            any = d->pol[i].kv_n[t] > 0;
    if (!any)
        return FS_OK;
    fs__writer w;
    int rc = fs__writer_open(&w, o, "kv_occupancy");
    if (rc)
        return rc;
    char *title = fs__title(d->scenario, "KV-cache occupancy, service", d->llm);
    fputs("policy,hour,kv_occupancy_pct\n", w.csv);
    for (size_t i = 0; i < d->n_pol; i++)
        for (size_t t = 0; t < d->n_windows; t++) {
            if (!d->pol[i].kv_n[t])
                continue;
            fs__csv_str(w.csv, d->pol[i].name);
            fputc(',', w.csv);
            fs__num(w.csv, (d->warmup_s + (double)t * d->window_s) / 3600);
            fputc(',', w.csv);
            fs__num(w.csv, 100 * d->pol[i].kv_sum[t] / (double)d->pol[i].kv_n[t]);
            fputc('\n', w.csv);
        }
    size_t lines = fs__min(d->n_pol, FS__MAX_LINES);
    fputs("$data << EOD\n", w.gp);
    for (size_t t = 0; t < d->n_windows; t++) {
        fs__num(w.gp, (d->warmup_s + (double)t * d->window_s) / 3600);
        for (size_t i = 0; i < lines; i++) {
            size_t n = d->pol[i].kv_n[t];
            fputc(' ', w.gp);
            fs__num(w.gp, n ? 100 * d->pol[i].kv_sum[t] / (double)n : NAN);
        }
        fputc('\n', w.gp);
    }
    fputs("EOD\n", w.gp);
    fs__gp_labels(w.bp, title ? title : "", "simulated time (hours)", "KV-cache blocks in use (%)");
    fprintf(w.bp, "set xrange [%.9g:%.9g]\nset yrange [0:100]\nset key top left opaque noenhanced\nplot ",
            d->warmup_s / 3600, d->horizon_s / 3600);
    fs__gp_policy_lines(w.bp, d, "lines");
    fputc('\n', w.bp);
    char *caption = fs__strdup(
        "Each line is one policy's share of the KV-cache blocks of its ready replicas that held "
        "sequences, averaged over each window and over replications; near 100% the engine queues or "
        "preempts sequences for memory.");
    return fs__writer_finish(&w, o, title, caption);
}

int fs__chart_llm(const fs__data *d, const fs__chart_out *o)
{
    if (!d->llm)
        return FS_OK;
    fs__hourly ttft = {"ttft_by_hour", 0, 1, d->llm, "TTFT p99 by time of day, service",
                       "TTFT p99 (ms), mean over days and replications", "ttft_target_ms",
                       "TTFT target:", d->ttft_target_ms, "time-to-first-token p99", fs__ttft_mean, NULL};
    fs__hourly tpot = {"tpot_by_hour", 0, 1, d->llm, "TPOT p99 by time of day, service",
                       "TPOT p99 (ms), mean over days and replications", "tpot_target_ms",
                       "TPOT target:", d->tpot_target_ms, "time-per-output-token p99", fs__tpot_mean, NULL};
    int rc;
    if ((rc = fs__chart_hourly(d, o, &ttft)) || (rc = fs__chart_hourly(d, o, &tpot)) ||
        (rc = fs__chart_batch_sizes(d, o)) || (rc = fs__chart_kv(d, o)))
        return rc;
    return FS_OK;
}

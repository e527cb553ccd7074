#include "results_csv.h"

#include <csv.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

/* A cell a spreadsheet would read as a formula: one starting with = + - @,
 * a tab or a carriage return, unless the whole cell is a number (a negative
 * number stays a number). */
static bool fs__formula_like(const char *text)
{
    if (text[0] == '\0' || !strchr("=+-@\t\r", text[0]))
        return false;
    char *end;
    errno = 0;
    strtod(text, &end);
    bool number = end != text && *end == '\0' && errno == 0 && !strpbrk(text, "xXpPnNiI");
    return !number;
}

void fs_results_csv_field(FILE *fp, const char *text)
{
    if (fs__formula_like(text)) {
        /* OWASP's rule for CSV injection: a leading single quote makes the
         * cell text, and the cell is quoted (quotes doubled, as libcsv does). */
        fputs("\"'", fp);
        for (const char *c = text; *c; c++) {
            if (*c == '"')
                fputc('"', fp);
            fputc(*c, fp);
        }
        fputc('"', fp);
        return;
    }
    csv_fwrite(fp, text, strlen(text));
}

int fs_results_csv_check(FILE *fp, fs_error *err, const char *what)
{
    if (ferror(fp))
        return fs_error_set(err, FS_ERR_RUNTIME, "cannot write %s", what);
    return FS_OK;
}


/* ",VALUE", or "," alone when the figure has no data (NaN): an empty cell,
 * never 0, which a spreadsheet would average in. */
static void fs__cell(FILE *fp, double v)
{
    if (isnan(v))
        fputc(',', fp);
    else
        fprintf(fp, ",%.9g", v);
}

const char fs_results_csv_timeseries_header[] =
    "policy,replication,service,window_start_s,window_end_s,arrivals,completed,dropped,"
    "mean_ms,p50_ms,p95_ms,p99_ms,max_ms,mean_in_system,queue_end\n";
const char fs_results_csv_llm_header[] =
    "policy,replication,service,window_start_s,window_end_s,ttft_p99_ms,tpot_p99_ms,mean_running,"
    "kv_occupancy,tokens\n";
const char fs_results_csv_pool_header[] =
    "policy,replication,pool,window_start_s,window_end_s,busy_gpus,gpus,utilization\n";
const char fs_results_csv_breaches_header[] = "policy,replication,service,window_start_s,window_s\n";

/* "POLICY,REPLICATION,NAME" at the start of every per-replication row. */
static void fs__row_key(FILE *fp, const char *policy, uint32_t replication, const char *name)
{
    fs_results_csv_field(fp, policy);
    fprintf(fp, ",%u,", replication);
    fs_results_csv_field(fp, name);
}

void fs_results_csv_service_row(FILE *fp, const char *policy, uint32_t replication, const char *service,
                                const fs_service_window *row)
{
    fs__row_key(fp, policy, replication, service);
    fprintf(fp, ",%.9g,%.9g,%llu,%llu,%llu", row->start_s, row->end_s, (unsigned long long)row->arrivals,
            (unsigned long long)row->completed, (unsigned long long)row->dropped);
    const double latency[] = {row->mean_ms, row->p50_ms, row->p95_ms, row->p99_ms, row->max_ms};
    for (size_t f = 0; f < sizeof latency / sizeof *latency; f++)
        fs__cell(fp, latency[f]);
    fprintf(fp, ",%.9g,%llu\n", row->mean_in_system, (unsigned long long)row->queue_end);
}

void fs_results_csv_llm_row(FILE *fp, const char *policy, uint32_t replication, const char *service,
                            const fs_service_window *row)
{
    fs__row_key(fp, policy, replication, service);
    fprintf(fp, ",%.9g,%.9g", row->start_s, row->end_s);
    fs__cell(fp, row->ttft_p99_ms);
    fs__cell(fp, row->tpot_p99_ms);
    fs__cell(fp, row->mean_running);
    fs__cell(fp, row->kv_occupancy);
    fprintf(fp, ",%llu\n", (unsigned long long)row->tokens);
}

void fs_results_csv_pool_row(FILE *fp, const char *policy, uint32_t replication, const char *pool,
                             const fs_pool_window *row)
{
    fs__row_key(fp, policy, replication, pool);
    fprintf(fp, ",%.9g,%.9g,%.9g,%.9g,%.9g\n", row->start_s, row->end_s, row->busy_gpus, row->gpus,
            row->utilization);
}

void fs_results_csv_breach_row(FILE *fp, const char *policy, uint32_t replication, const char *service,
                               double window_start_s, double window_s)
{
    fs__row_key(fp, policy, replication, service);
    fprintf(fp, ",%.9g,%.9g\n", window_start_s, window_s);
}

/* The rows kept in memory (a run without a window sink), in the order the
 * streaming sink writes them: policy, replication, service, window. */
int fs_results_csv_timeseries(const fs_results *r, FILE *fp, fs_error *err)
{
    fputs(fs_results_csv_timeseries_header, fp);
    for (size_t p = 0; p < r->n_policies; p++) {
        const fs_policy_result *pol = &r->policies[p];
        for (uint32_t k = 0; k < pol->n_reps; k++)
            for (size_t i = 0; i < pol->scenario->n_services; i++)
                for (size_t w = 0; w < fs_rep_service(&pol->reps[k], i)->n_windows; w++)
                    fs_results_csv_service_row(fp, pol->name, pol->reps[k].replication,
                                               pol->scenario->services[i].name,
                                               &fs_rep_service(&pol->reps[k], i)->windows[w]);
    }
    return fs_results_csv_check(fp, err, "the time series");
}

bool fs_results_csv_has_llm(const fs_results *r)
{
    for (size_t p = 0; p < r->n_policies; p++)
        for (size_t i = 0; r->policies[p].n_reps && i < r->policies[p].scenario->n_services; i++)
            if (fs_rep_service(&r->policies[p].reps[0], i)->llm)
                return true;
    return false;
}

int fs_results_csv_llm_timeseries(const fs_results *r, FILE *fp, fs_error *err)
{
    fputs(fs_results_csv_llm_header, fp);
    for (size_t p = 0; p < r->n_policies; p++) {
        const fs_policy_result *pol = &r->policies[p];
        for (uint32_t k = 0; k < pol->n_reps; k++)
            for (size_t i = 0; i < pol->scenario->n_services; i++) {
                const fs_service_rep *rep = fs_rep_service(&pol->reps[k], i);
                for (size_t w = 0; rep->llm && w < rep->n_windows; w++)
                    fs_results_csv_llm_row(fp, pol->name, pol->reps[k].replication,
                                           pol->scenario->services[i].name, &rep->windows[w]);
            }
    }
    return fs_results_csv_check(fp, err, "the LLM time series");
}

int fs_results_csv_pool_timeseries(const fs_results *r, FILE *fp, fs_error *err)
{
    fputs(fs_results_csv_pool_header, fp);
    for (size_t p = 0; p < r->n_policies; p++) {
        const fs_policy_result *pol = &r->policies[p];
        for (uint32_t k = 0; k < pol->n_reps; k++)
            for (size_t i = 0; i < pol->scenario->n_pools; i++)
                for (size_t w = 0; w < pol->reps[k].pools[i].n_windows; w++)
                    fs_results_csv_pool_row(fp, pol->name, pol->reps[k].replication, pol->scenario->pools[i].name,
                                            &pol->reps[k].pools[i].windows[w]);
    }
    return fs_results_csv_check(fp, err, "the pool time series");
}

static const char *fs__queue_name(fs_queue_state q)
{
    return q == FS_QUEUE_STABLE ? "stable" : q == FS_QUEUE_UNBOUNDED ? "unbounded" : "bounded at limit, dropping";
}

/* A latency figure with no completions is an empty cell; queue_unbounded is
 * true only for a queue without a limit (`queue` says the rest). */
int fs_results_csv_summary(const fs_results *r, FILE *fp, fs_error *err)
{
    fputs("policy,service,requests,completed,dropped,mean_ms,p50_ms,p95_ms,p99_ms,p999_ms,"
          "p99_ci95_ms,slo_breach_windows,offered_load,queue_unbounded,queue,drop_fraction,"
          "drop_fraction_ci95,unfinished_past_slo\n",
          fp);
    for (size_t p = 0; p < r->n_policies; p++) {
        for (size_t i = 0; i < r->scenario->n_services; i++) {
            fs_service_summary sum;
            if (fs_results_service_summary(r, p, i, &sum) != 0)
                return fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
            const fs_service_spec *spec = &r->policies[p].scenario->services[i];
            fs_results_csv_field(fp, r->policies[p].name);
            fputc(',', fp);
            fs_results_csv_field(fp, spec->name);
            fprintf(fp, ",%.9g,%.9g,%.9g", sum.requests.mean, sum.completed.mean, sum.dropped.mean);
            const double latency[] = {sum.merged_mean_ms, sum.merged_p50_ms, sum.merged_p95_ms, sum.merged_p99_ms,
                                      sum.merged_p999_ms, sum.p99_ms.valid ? sum.p99_ms.half_width : NAN};
            for (size_t f = 0; f < sizeof latency / sizeof *latency; f++)
                fs__cell(fp, latency[f]);
            fprintf(fp, ",%.9g", sum.slo_breach_windows.mean);
            fs__cell(fp, r->policies[p].loads[i].offered_load); /* a replay of under two arrivals: no data */
            fprintf(fp, ",%s,", sum.queue_unbounded ? "true" : "false");
            fs_results_csv_field(fp, fs__queue_name(sum.queue));
            fs__cell(fp, sum.drop_fraction.mean);
            fs__cell(fp, sum.drop_fraction.valid ? sum.drop_fraction.half_width : NAN);
            /* Past the tightest target: requests that miss at least one. */
            double late = spec->slo.n_targets ? 0 : NAN;
            for (size_t j = 0; j < spec->slo.n_targets; j++)
                late = fmax(late, sum.unfinished_past_slo[j].mean);
            fs__cell(fp, late);
            fputc('\n', fp);
        }
    }
    return fs_results_csv_check(fp, err, "the summary");
}

int fs_results_csv_training_waits(const fs_results *r, FILE *fp, fs_error *err)
{
    fputs("policy,replication,stream,submitted_s,wait_s,tenant\n", fp);
    for (size_t p = 0; p < r->n_policies; p++) {
        const fs_policy_result *pol = &r->policies[p];
        for (uint32_t k = 0; k < pol->n_reps; k++) {
            for (size_t i = 0; i < pol->scenario->n_training; i++) {
                const fs_training_rep *t = &pol->reps[k].training[i];
                for (size_t j = 0; j < t->n_waits; j++) {
                    fs__row_key(fp, pol->name, pol->reps[k].replication, pol->scenario->training[i].name);
                    fprintf(fp, ",%.9g,%.9g,", t->waits[j].submitted_s, t->waits[j].wait_s);
                    const fs_job_wait *w = &t->waits[j];
                    fs_results_csv_field(fp, w->tenant ? fs_intern_text(&t->tenants, w->tenant)
                                               : pol->scenario->training[i].tenant);
                    fputc('\n', fp);
                }
            }
        }
    }
    return fs_results_csv_check(fp, err, "the training waits");
}

int fs_results_csv_slo_breaches(const fs_results *r, FILE *fp, fs_error *err)
{
    fputs(fs_results_csv_breaches_header, fp);
    for (size_t p = 0; p < r->n_policies; p++) {
        const fs_policy_result *pol = &r->policies[p];
        for (uint32_t k = 0; k < pol->n_reps; k++)
            for (size_t i = 0; i < pol->scenario->n_services; i++) {
                const fs_service_rep *rep = fs_rep_service(&pol->reps[k], i);
                for (size_t j = 0; j < rep->n_slo_breaches; j++)
                    fs_results_csv_breach_row(fp, pol->name, pol->reps[k].replication,
                                              pol->scenario->services[i].name, rep->slo_breach_starts[j],
                                              pol->scenario->services[i].slo.window_s);
            }
    }
    return fs_results_csv_check(fp, err, "the SLO breaches");
}

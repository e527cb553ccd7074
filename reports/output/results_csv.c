#include "results_csv.h"

#include <csv.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
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


int fs_results_csv_timeseries(const fs_results *r, FILE *fp, fs_error *err)
{
    fputs("policy,replication,service,window_start_s,window_end_s,arrivals,completed,dropped,"
          "mean_ms,p50_ms,p95_ms,p99_ms,max_ms,mean_in_system,queue_end\n",
          fp);
    for (size_t p = 0; p < r->n_policies; p++) {
        const fs_policy_result *pol = &r->policies[p];
        for (uint32_t k = 0; k < pol->n_reps; k++) {
            for (size_t i = 0; i < pol->scenario->n_services; i++) {
                const fs_service_rep *rep = &pol->reps[k].services[i];
                for (size_t w = 0; w < rep->n_windows; w++) {
                    const fs_service_window *row = &rep->windows[w];
                    fs_results_csv_field(fp, pol->name);
                    fprintf(fp, ",%u,", pol->reps[k].replication);
                    fs_results_csv_field(fp, pol->scenario->services[i].name);
                    fprintf(fp, ",%.9g,%.9g,%llu,%llu,%llu,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%llu\n",
                            row->start_s, row->end_s, (unsigned long long)row->arrivals,
                            (unsigned long long)row->completed, (unsigned long long)row->dropped,
                            row->mean_ms, row->p50_ms, row->p95_ms, row->p99_ms, row->max_ms,
                            row->mean_in_system, (unsigned long long)row->queue_end);
                }
            }
        }
    }
    return fs_results_csv_check(fp, err, "the time series");
}

int fs_results_csv_pool_timeseries(const fs_results *r, FILE *fp, fs_error *err)
{
    fputs("policy,replication,pool,window_start_s,window_end_s,busy_gpus,gpus,utilization\n", fp);
    for (size_t p = 0; p < r->n_policies; p++) {
        const fs_policy_result *pol = &r->policies[p];
        for (uint32_t k = 0; k < pol->n_reps; k++) {
            for (size_t i = 0; i < pol->scenario->n_pools; i++) {
                const fs_pool_rep *rep = &pol->reps[k].pools[i];
                for (size_t w = 0; w < rep->n_windows; w++) {
                    const fs_pool_window *row = &rep->windows[w];
                    fs_results_csv_field(fp, pol->name);
                    fprintf(fp, ",%u,", pol->reps[k].replication);
                    fs_results_csv_field(fp, pol->scenario->pools[i].name);
                    fprintf(fp, ",%.9g,%.9g,%.9g,%.9g,%.9g\n", row->start_s, row->end_s, row->busy_gpus,
                            row->gpus, row->utilization);
                }
            }
        }
    }
    return fs_results_csv_check(fp, err, "the pool time series");
}

int fs_results_csv_summary(const fs_results *r, FILE *fp, fs_error *err)
{
    fputs("policy,service,requests,completed,dropped,mean_ms,p50_ms,p95_ms,p99_ms,p999_ms,"
          "p99_ci95_ms,slo_breach_windows,offered_load,queue_unbounded\n",
          fp);
    for (size_t p = 0; p < r->n_policies; p++) {
        for (size_t i = 0; i < r->scenario->n_services; i++) {
            fs_service_summary sum;
            if (fs_results_service_summary(r, p, i, &sum) != 0)
                return fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
            fs_results_csv_field(fp, r->policies[p].name);
            fputc(',', fp);
            fs_results_csv_field(fp, r->policies[p].scenario->services[i].name);
            fprintf(fp, ",%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%s\n",
                    sum.requests.mean, sum.completed.mean, sum.dropped.mean, sum.merged_mean_ms,
                    sum.merged_p50_ms, sum.merged_p95_ms, sum.merged_p99_ms, sum.merged_p999_ms,
                    sum.p99_ms.half_width, sum.slo_breach_windows.mean, r->policies[p].loads[i].offered_load,
                    sum.queue_unbounded ? "true" : "false");
        }
    }
    return fs_results_csv_check(fp, err, "the summary");
}

int fs_results_csv_training_waits(const fs_results *r, FILE *fp, fs_error *err)
{
    fputs("policy,replication,stream,submitted_s,wait_s\n", fp);
    for (size_t p = 0; p < r->n_policies; p++) {
        const fs_policy_result *pol = &r->policies[p];
        for (uint32_t k = 0; k < pol->n_reps; k++) {
            for (size_t i = 0; i < pol->scenario->n_training; i++) {
                const fs_training_rep *t = &pol->reps[k].training[i];
                for (size_t j = 0; j < t->n_waits; j++) {
                    fs_results_csv_field(fp, pol->name);
                    fprintf(fp, ",%u,", pol->reps[k].replication);
                    fs_results_csv_field(fp, pol->scenario->training[i].name);
                    fprintf(fp, ",%.9g,%.9g\n", t->waits[j].submitted_s, t->waits[j].wait_s);
                }
            }
        }
    }
    return fs_results_csv_check(fp, err, "the training waits");
}

int fs_results_csv_slo_breaches(const fs_results *r, FILE *fp, fs_error *err)
{
    fputs("policy,replication,service,window_start_s,window_s\n", fp);
    for (size_t p = 0; p < r->n_policies; p++) {
        const fs_policy_result *pol = &r->policies[p];
        for (uint32_t k = 0; k < pol->n_reps; k++) {
            for (size_t i = 0; i < pol->scenario->n_services; i++) {
                const fs_service_rep *rep = &pol->reps[k].services[i];
                for (size_t j = 0; j < rep->n_slo_breaches; j++) {
                    fs_results_csv_field(fp, pol->name);
                    fprintf(fp, ",%u,", pol->reps[k].replication);
                    fs_results_csv_field(fp, pol->scenario->services[i].name);
                    fprintf(fp, ",%.9g,%.9g\n", rep->slo_breach_starts[j],
                            pol->scenario->services[i].slo.window_s);
                }
            }
        }
    }
    return fs_results_csv_check(fp, err, "the SLO breaches");
}

/*
 * results_csv — results as CSV: per-window time series and a summary.
 *
 * timeseries.csv has one row per (policy, replication, service, window);
 * pools_timeseries.csv one per (policy, replication, pool, window); the
 * summary one per (policy, service).  Names are quoted with libcsv, so a
 * comma, quote or newline in a name cannot break a row.  Numbers are
 * printed with %.9g: the same run gives the same bytes.
 */
#ifndef FS_RESULTS_CSV_H
#define FS_RESULTS_CSV_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "error.h"
#include "results.h"

/* The window tables from rows kept in memory (a run without a window sink,
 * windows.h); `fleetsim run` streams them instead (window_csv.h), through
 * the same headers and row writers below, so both give the same bytes. */
int fs_results_csv_timeseries(const fs_results *r, FILE *fp, fs_error *err);
int fs_results_csv_pool_timeseries(const fs_results *r, FILE *fp, fs_error *err);
int fs_results_csv_summary(const fs_results *r, FILE *fp, fs_error *err);

/* The window tables' header lines (newline included) and one row of each:
 * the policy's name, the replication's number and the service's or pool's
 * name, then the window's figures. */
extern const char fs_results_csv_timeseries_header[], fs_results_csv_llm_header[], fs_results_csv_pool_header[],
    fs_results_csv_breaches_header[];
void fs_results_csv_service_row(FILE *fp, const char *policy, uint32_t replication, const char *service,
                                const fs_service_window *row);
void fs_results_csv_llm_row(FILE *fp, const char *policy, uint32_t replication, const char *service,
                            const fs_service_window *row);
void fs_results_csv_pool_row(FILE *fp, const char *policy, uint32_t replication, const char *pool,
                             const fs_pool_window *row);
void fs_results_csv_breach_row(FILE *fp, const char *policy, uint32_t replication, const char *service,
                               double window_start_s, double window_s);

/* llm_timeseries.csv: policy,replication,service,window_start_s,
 * window_end_s,ttft_p99_ms,tpot_p99_ms,mean_running,kv_occupancy,tokens —
 * one row per (policy, replication, LLM service, window); an empty cell is
 * no data.  Written only when fs_results_csv_has_llm: a scenario without an
 * LLM service gets the same files as before. */
bool fs_results_csv_has_llm(const fs_results *r);
int fs_results_csv_llm_timeseries(const fs_results *r, FILE *fp, fs_error *err);

/* training_waits.csv: policy,replication,stream,submitted_s,wait_s — one row
 * per job that started (queue-wait CDFs). */
int fs_results_csv_training_waits(const fs_results *r, FILE *fp, fs_error *err);

/* slo_breaches.csv: policy,replication,service,window_start_s,window_s — one
 * row per SLO window in breach (breach heatmaps). */
int fs_results_csv_slo_breaches(const fs_results *r, FILE *fp, fs_error *err);

/* One CSV text field (a name, a label), quoted by libcsv; shared by every CSV
 * fleetsim writes.  A cell a spreadsheet would take for a formula (starting
 * with = + - @, a tab or a carriage return, and not a number) gets a leading
 * single quote, OWASP's rule against CSV injection: "=1+1" is written
 * "'=1+1".  Numbers are not written through here. */
void fs_results_csv_field(FILE *fp, const char *text);

/* FS_OK, or FS_ERR_RUNTIME "cannot write WHAT" if the stream had an error. */
int fs_results_csv_check(FILE *fp, fs_error *err, const char *what);

#endif

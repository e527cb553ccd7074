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

#include <stdio.h>

#include "error.h"
#include "results.h"

int fs_results_csv_timeseries(const fs_results *r, FILE *fp, fs_error *err);
int fs_results_csv_pool_timeseries(const fs_results *r, FILE *fp, fs_error *err);
int fs_results_csv_summary(const fs_results *r, FILE *fp, fs_error *err);

#endif

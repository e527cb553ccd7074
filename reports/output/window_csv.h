/*
 * window_csv — a run's windows streamed to their CSV files as the run goes:
 * the window sink (windows.h) the command line gives `run` and `compare`.
 *
 * timeseries.csv, pools_timeseries.csv, slo_breaches.csv and (with an LLM
 * service) llm_timeseries.csv list rows by policy, replication, service or
 * pool, then window: the order and bytes fs_results_csv_timeseries and the
 * like write from rows kept in memory.  Windows close in time order, every
 * service at each close, so a replication's rows wait in spools (spool.h:
 * scratch files in the output directory, unlinked at once), one segment per
 * service or pool, and are written out service by service when the
 * replication ends.  Memory holds the spools' buffers and counts, never a
 * replication's rows: it does not grow with windows.
 *
 * The CSV streams come from the caller's fs_output set, so they are
 * temporary files until fs_output_commit renames them into place with the
 * run's other files, and fs_output_abort (a failed run) removes them: no
 * partial timeseries.csv is ever left.
 *
 * Ownership: fs_window_csv_begin allocates the sink's state, which borrows
 * the fs_output; fs_window_csv_end frees it (the streams stay in the set).
 */
#ifndef FS_WINDOW_CSV_H
#define FS_WINDOW_CSV_H

#include "error.h"
#include "output.h"
#include "windows.h"

typedef struct fs_window_csv fs_window_csv;

/* Opens the window tables in out and writes their headers (llm_timeseries.csv
 * is opened when the first replication with an LLM service ends).  FS_OK or
 * FS_ERR_RUNTIME. */
int fs_window_csv_begin(fs_output *out, fs_window_csv **csv, fs_error *err);

/* The sink to run with: it writes into csv until fs_window_csv_end. */
fs_window_sink fs_window_csv_sink(fs_window_csv *csv);

/* Frees csv.  FS_OK, or FS_ERR_RUNTIME when a table could not be written in
 * full (a run that ended early leaves tables the caller must abort). */
int fs_window_csv_end(fs_window_csv *csv, fs_error *err);

#endif

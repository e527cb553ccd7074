/*
 * results_json — the results JSON document (schema "fleetsim-results/1").
 *
 * One document per run: the scenario's settings, then per policy the
 * per-service and per-pool figures (replication means, with 95% CI
 * half-widths under "<key>_ci95" when there are several replications;
 * latency quantiles from the exactly merged histogram), the per-replication
 * figures for paired comparisons, and the run's own cost ("sim").  Keys come
 * out in a fixed order and numbers with fixed precision, so the same
 * scenario and seed give the same bytes; the wall-clock figures in "sim" are
 * the only exception, and `timing = false` leaves them out.
 */
#ifndef FS_RESULTS_JSON_H
#define FS_RESULTS_JSON_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "error.h"
#include "results.h"

/* A new JSON document (caller json_decref's it), or NULL when out of memory. */
json_t *fs_results_json(const fs_results *r, bool timing);

/* The document as json_dump_callback(fs_results_json(r, timing) with
 * "run_id" last when run_id is not NULL, flags, emit, data) would write it,
 * byte for byte, but built one service at a time: each policy's services
 * are dumped in turn into the text of the rest, so a run of thousands of
 * services never holds their whole tree (70 MB at 5,000 services).  0, or
 * -1 when out of memory or when emit failed. */
int fs_results_json_emit(const fs_results *r, bool timing, const char *run_id, size_t flags,
                         json_dump_callback_t emit, void *data);

/* Writes the document, pretty-printed, to fp.  FS_OK or FS_ERR_RUNTIME. */
int fs_results_json_write(const fs_results *r, bool timing, FILE *fp, fs_error *err);

/* The same with "run_id": run_id as the document's last key (when run_id is
 * not NULL): the identity every file of one run's directory carries, which
 * `fleetsim report` checks before reading them together. */
int fs_results_json_write_run(const fs_results *r, bool timing, const char *run_id, FILE *fp, fs_error *err);

#endif

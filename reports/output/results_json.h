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

/* Writes the document, pretty-printed, to fp.  FS_OK or FS_ERR_RUNTIME. */
int fs_results_json_write(const fs_results *r, bool timing, FILE *fp, fs_error *err);

/* The same with "run_id": run_id as the document's last key (when run_id is
 * not NULL): the identity every file of one run's directory carries, which
 * `fleetsim report` checks before reading them together. */
int fs_results_json_write_run(const fs_results *r, bool timing, const char *run_id, FILE *fp, fs_error *err);

#endif

/*
 * study — a sweep's runs on local cores, kept in an output directory.
 *
 * DIR/sweep.json holds the resolved sweep (fs_sweep_to_json) and
 * DIR/runs/pPPPPPP-rRRRR.json one run each (point P, replication R), written
 * atomically when the run finishes: an interrupted study loses only the runs
 * in progress, and a rerun skips every run whose file exists.  A directory
 * holding a different sweep (another fingerprint) is refused.  Runs are
 * shared out to `jobs` threads one at a time (the slowest point does not hold
 * up the rest); progress goes to stderr, redrawn in place on a terminal and
 * as a line every few seconds otherwise.
 *
 * Shared by sweep, merge and plan (sim/cli/cmd_sweep.c, cmd_plan.c).
 */
#ifndef FS_CLI_STUDY_H
#define FS_CLI_STUDY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "metrics.h"
#include "sweep.h"

/* Creates DIR/runs, refuses a directory of another sweep (FS_ERR_INPUT) and
 * writes DIR/sweep.json. */
int fs_study_open(const fs_sweep *sw, const char *dir, fs_error *err);

/* Reads DIR/sweep.json back (FS_ERR_INPUT when absent or not one). */
int fs_study_read(const char *dir, fs_sweep **out, fs_error *err);

typedef struct fs_study_unit {
    size_t point;
    uint32_t replication;
} fs_study_unit;

typedef struct fs_study_options {
    unsigned jobs;          /* threads, >= 1 */
    uint64_t max_runs;      /* stop after this many runs (0: no limit) */
    bool quiet;             /* no progress */
    const char *label;      /* "sweep", "plan": starts progress lines */
} fs_study_options;

/* Runs those of units[0..n-1] whose file is missing.  *ran: runs done now.
 * FS_OK, or the first failure (FS_ERR_RUNTIME, or FS_ERR_INPUT). */
int fs_study_run(const fs_sweep *sw, const char *dir, const fs_study_unit *units, size_t n,
                 const fs_study_options *opt, uint64_t *ran, fs_error *err);

/* Whether a run's file exists in dir. */
bool fs_study_has(const char *dir, size_t point, uint32_t replication);

/* The run of one (point, replication) in dir into *m (fs_metrics_fini it).
 * FS_ERR_INPUT when missing or from another sweep. */
int fs_study_load(const fs_sweep *sw, const char *dir, size_t point, uint32_t replication, fs_metrics *m,
                  fs_error *err);

/* Summarizes replications 0..reps-1 of a point, each read from the first of
 * dirs that has it.  FS_ERR_INPUT when one is missing or from another sweep. */
int fs_study_row(const fs_sweep *sw, const char *const *dirs, size_t n_dirs, size_t point, uint32_t reps,
                 fs_metric_row *row, fs_error *err);

/* Cores this process may run on (its CPU affinity), at least 1. */
unsigned fs_study_cores(void);

#endif

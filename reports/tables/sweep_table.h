/*
 * sweep_table — a sweep's and a plan's results as files and tables.
 *
 * A sweep gives one row per point: the value of each dimension, the
 * replications, and every figure of metrics.h with its 95% CI half-width.
 * points.csv is wide (columns `figure` and `figure_ci95`; a figure a point
 * lacks, such as another policy's pool, is empty); points.json
 * (schema fleetsim-sweep-results/1) nests the same.  A plan adds plan.json
 * (schema fleetsim-plan/1: the constraints, the answer, every point it
 * judged with its verdict, the frontier and the simulation counts),
 * plan.csv (the points it judged) and frontier.csv, which `fleetsim report`
 * draws.  Numbers are written with 17 significant digits in JSON and 10 in
 * CSV, so equal results give equal bytes.
 *
 * Reads fs_sweep, fs_metric_row and fs_plan; runs nothing.
 */
#ifndef FS_SWEEP_TABLE_H
#define FS_SWEEP_TABLE_H

#include <stdio.h>

#include "error.h"
#include "metrics.h"
#include "plan.h"
#include "sweep.h"

#define FS_SWEEP_RESULTS_SCHEMA "fleetsim-sweep-results/1"
#define FS_PLAN_SCHEMA "fleetsim-plan/1"

/* rows[p] is point p's row, for every point of sw. */
int fs_sweep_points_csv(const fs_sweep *sw, const fs_metric_row *rows, FILE *fp, fs_error *err);
int fs_sweep_points_json(const fs_sweep *sw, const fs_metric_row *rows, FILE *fp, fs_error *err);

/* A short table for a terminal: each point's cost, utilization and the p99
 * of the first six services (past six, the header adds "(and N more
 * services)"); a refused point shows its reason instead. */
int fs_sweep_points_table(const fs_sweep *sw, const fs_metric_row *rows, FILE *fp, fs_error *err);

int fs_plan_write_json(const fs_plan *plan, uint64_t grid_runs, FILE *fp, fs_error *err);
int fs_plan_write_csv(const fs_plan *plan, FILE *fp, fs_error *err);
int fs_plan_write_frontier(const fs_plan *plan, FILE *fp, fs_error *err);

/* The answer and the counts, for a terminal. */
int fs_plan_print(const fs_plan *plan, uint64_t grid_runs, FILE *fp, fs_error *err);

#endif

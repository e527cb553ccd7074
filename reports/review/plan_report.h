/*
 * plan_report — the report of a plan directory: what `fleetsim plan --out
 * DIR` wrote, read back from DIR/plan.json (schema fleetsim-plan/1, written
 * by sweep_table.h).
 *
 * Writes into an output directory, through the page writer of page.h:
 *   index.html and report.md  the question (the constraints, the figure
 *               minimized), the answer (its label, the minimized figure and
 *               each constraint's figure with their 95% CI, against the
 *               limits) or that no point meets every constraint, the counts
 *               (points judged of the grid's, simulations against the full
 *               grid's), the frontier as a table, and every point judged
 *               (refused ones as refused, the first FS_PLAN_REPORT_ROWS);
 *   plan_frontier.png/.svg/.csv/.gp  the chart of charts.h: each point at
 *               (minimized figure, frontier figure), the frontier, the
 *               answer and the limit on the frontier figure.
 *
 * Everything plan.json holds that a person wrote or named (the scenario
 * path, labels, dimension paths, figure names, constraint texts, refusal
 * reasons) is escaped for HTML and Markdown by fs_page_text, and reaches
 * gnuplot only through charts.c's quoting.
 *
 * Reads one file; keeps nothing between calls; runs no simulation.
 */
#ifndef FS_PLAN_REPORT_H
#define FS_PLAN_REPORT_H

#include <stdbool.h>

#include "error.h"

#define FS_PLAN_REPORT_ROWS 200 /* points listed in the table of points judged */

/* Whether dir holds a plan.json (a file of that name, well-formed or not). */
bool fs_plan_report_applies(const char *dir);

/* Writes the plan's pages into out_dir, marked with run_id (page.h: the
 * plan's id, which fs_report_write works out).  FS_OK; FS_ERR_INPUT when
 * plan_dir/plan.json is missing or malformed (the
 * message names the file, with line:column for bad JSON or the member and
 * what was expected); FS_ERR_RUNTIME when a file cannot be written. */
int fs_plan_report_write(const char *plan_dir, const char *out_dir, const char *run_id, fs_error *err);

#endif

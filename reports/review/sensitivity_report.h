/*
 * sensitivity_report — the report of a sensitivity directory: what
 * `fleetsim sensitivity --out DIR` wrote, read back from
 * DIR/sensitivity.json (schema fleetsim-sensitivity/1, written by
 * models/study/sensitivity.h).
 *
 * Writes into an output directory, through the page writer of page.h:
 *   index.html and report.md  the question (the figure, the policy, the
 *               replications on common random numbers, the figure at the
 *               base point), the inputs in rank order as a table (low, base
 *               and high values, the figure at each end, the effect with its
 *               95% CI, the elasticity, "noise" where the interval holds 0,
 *               "no data" or "refused" where an end has no figure), then the
 *               chart;
 *   sensitivity_tornado.png/.svg/.csv/.gp  the tornado chart of charts.h.
 *
 * Everything the document holds that a person wrote or named (the scenario
 * path, input paths, the figure and policy names, refusal reasons) is
 * escaped by fs_page_text, and reaches gnuplot only through charts.c's
 * quoting.  Reads one file; runs no simulation.
 */
#ifndef FS_SENSITIVITY_REPORT_H
#define FS_SENSITIVITY_REPORT_H

#include <stdbool.h>

#include "error.h"

/* Whether dir holds a sensitivity.json (a file of that name, well-formed or not). */
bool fs_sensitivity_report_applies(const char *dir);

/* Writes the study's pages into out_dir (page.h's rules: a page of the
 * user's own is never replaced, a fleetsim page of other results is
 * removed).  FS_OK; FS_ERR_INPUT when dir/sensitivity.json is missing or
 * not that schema (the message names the file and the member); or
 * FS_ERR_RUNTIME when a file cannot be written. */
int fs_sensitivity_report_write(const char *dir, const char *out_dir, fs_error *err);

#endif

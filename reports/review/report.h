/*
 * report — the capacity-review report of a results directory (its pages
 * written through page.h).
 *
 * Reads what `fleetsim run` or `compare` wrote into a directory
 * (results.json, the CSV series, compare.json when there is one) and writes
 * into an output directory:
 *   index.html  one self-contained page (inline style, charts as files beside
 *               it, no network): the scenario, a verdict sentence per policy
 *               (meets its SLOs or not, and what it costs), the comparison
 *               table, and the charts with how to read each;
 *   report.md   the same in Markdown, for a review document or a PR comment;
 *   the charts  (charts.h): NAME.png / NAME.svg rendered by gnuplot, with
 *               NAME.csv (their data) and NAME.gp (their script) beside them.
 * Where gnuplot is missing the data and scripts are still written and both
 * pages say how to render them.  A directory that holds plan.json (what
 * `fleetsim plan` wrote) gets the plan's report instead (plan_report.h).
 *
 * Every string that comes from a scenario (scenario, service, pool, tenant
 * and policy names) is escaped for HTML (and for Markdown tables), so a name
 * with quotes, backticks, "<script>" or newlines is shown as text and never
 * runs or breaks anything.  The page carries a few lines of inline script
 * that mark a chart whose image failed to load (and sets
 * data-charts-loaded on <body>, which the browser test reads).
 *
 * Reports never run a simulation: they only read files.
 */
#ifndef FS_REPORT_H
#define FS_REPORT_H

#include "error.h"

/* FS_OK, FS_ERR_INPUT (no results.json or plan.json, or a malformed one:
 * names the file), or FS_ERR_RUNTIME (cannot write). */
int fs_report_write(const char *results_dir, const char *out_dir, fs_error *err);

#endif

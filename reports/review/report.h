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
 * Each page carries the id of the results it describes (page.h: results.json's
 * run_id, or a hash of plan.json), so a later run into the same directory
 * can tell fleetsim's pages of other results, which it removes
 * (fs_report_forget), from a user's own page, which it never touches.
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
 * names the file; or out_dir holds an index.html or report.md of the user's
 * own, without fleetsim's marker, which is never replaced), or
 * FS_ERR_RUNTIME (cannot write).  Pages of other results in out_dir are
 * removed first, with their charts. */
int fs_report_write(const char *results_dir, const char *out_dir, fs_error *err);

/* After a command wrote results into results_dir (run, compare, plan): the
 * report pages fleetsim wrote there earlier, in results_dir itself and in
 * results_dir/report (`fleetsim report`'s default), that describe other
 * results (their fleetsim-run-id marker is not the id of what results_dir
 * now holds) are removed, with their charts.  skip_dir (may be NULL) is
 * left alone: the report about to be written there handles it.  A page
 * without the marker is never removed: *warn names it (msg empty when there
 * is none).  known_run_id: the run_id of the results.json the caller has
 * just written, or NULL (it is read; see fs_page_results_id).  FS_OK, FS_ERR_INPUT (the results cannot be read) or
 * FS_ERR_RUNTIME. */
int fs_report_forget(const char *results_dir, const char *skip_dir, const char *known_run_id, fs_error *warn,
                     fs_error *err);

/* Whether fs_report_write may write into out_dir, checked before a run so a
 * refusal comes before the simulation, not after: FS_OK, or FS_ERR_INPUT
 * naming a page of the user's own there. */
int fs_report_check_out(const char *out_dir, fs_error *err);

#endif

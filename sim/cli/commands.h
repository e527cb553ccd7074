/*
 * commands — the subcommands: run, compare, report and validate in main.c,
 * the others in their own files (sim/cli/cmd_*.c).
 *
 * Each takes the arguments after its name (argv[0] is the first of them, not
 * the command) and returns the process's exit status; main() finds it in the
 * help registry (help.h) and returns that status.  Each exposes its option
 * table (fs_cli_*_options) to the registry, which holds the rest of its
 * documentation.
 */
#ifndef FS_CLI_COMMANDS_H
#define FS_CLI_COMMANDS_H

#include <stddef.h>
#include <stdio.h>

#include "error.h"
#include "options.h"

/* Exit statuses; check and fit-traffic name theirs in their own files. */
enum { FS_EXIT_OK = 0, FS_EXIT_RUNTIME = 1, FS_EXIT_USAGE = 2 };

/* fleetsim run / compare / report / validate: main.c. */
int fs_cli_run(int argc, char **argv);
int fs_cli_compare(int argc, char **argv);
int fs_cli_report(int argc, char **argv);
int fs_cli_validate(int argc, char **argv);
extern const fs_cli_table fs_cli_run_options, fs_cli_compare_options, fs_cli_report_options,
    fs_cli_validate_options;

/* After a command wrote results into results_dir (run, compare, plan):
 * removes the report pages there and in results_dir/report that describe
 * other results (report.h, fs_report_forget), leaving report_dir (may be
 * NULL) to the report about to be written; warns on stderr of a page that
 * is not fleetsim's, which stays.  known_run_id: the run_id of the
 * results.json just written there, or NULL to read it.  An exit status:
 * FS_EXIT_OK or the failure's, after its message. */
int fs_cli_forget_pages(const char *results_dir, const char *report_dir, const char *known_run_id);

/* fleetsim check SCENARIO --baseline FILE [--tolerance LIST] [--update]:
 * 0 no metric worse (or baseline updated), 1 a metric worse or a runtime
 * failure, 2 usage, scenario or baseline error.  See cmd_check.c. */
int fs_cli_check(int argc, char **argv);
extern const fs_cli_table fs_cli_check_options;

/* check's metrics, one line each, for its help (after the registry's header). */
void fs_cli_check_metrics(FILE *fp);

/* fleetsim sweep SWEEP.json [--jobs N] [--out DIR] [--shard I/N|auto]: a
 * sweep's runs on local cores or one shard of them.  See cmd_sweep.c. */
int fs_cli_sweep(int argc, char **argv);
extern const fs_cli_table fs_cli_sweep_options;

/* fleetsim merge DIR... [--out DIR]: shards combined into one result. */
int fs_cli_merge(int argc, char **argv);
extern const fs_cli_table fs_cli_merge_options;

/* fleetsim plan SCENARIO --vary PATH=RANGE ... --constraint EXPR ...: the
 * cheapest point that meets every constraint.  See cmd_plan.c. */
int fs_cli_plan(int argc, char **argv);
extern const fs_cli_table fs_cli_plan_options;

/* fleetsim sensitivity SCENARIO --vary PATH=LOW..HIGH ... --metric FIGURE:
 * inputs ranked by their effect on a figure.  See cmd_sensitivity.c. */
int fs_cli_sensitivity(int argc, char **argv);
extern const fs_cli_table fs_cli_sensitivity_options;

/* fleetsim fit-traffic TRACE.csv [--preset NAME | --time COL | --rate COL
 * --window-start COL] ...: a service's arrivals fitted to a trace.  See
 * cmd_fit.c. */
int fs_cli_fit_traffic(int argc, char **argv);
extern const fs_cli_table fs_cli_fit_options;

/* fleetsim fit-jobs TRACE [--preset NAME | --time COL --gpus COL (--duration
 * COL | --end COL)] ...: a training stream's job mix fitted from a job
 * trace.  See cmd_fit_jobs.c. */
int fs_cli_fit_jobs(int argc, char **argv);
extern const fs_cli_table fs_cli_fit_jobs_options;

/* fleetsim calibrate PROFILE.json [--out FILE]: a calibration profile
 * refitted from its recorded samples.  See cmd_calibrate.c. */
int fs_cli_calibrate(int argc, char **argv);
extern const fs_cli_table fs_cli_calibrate_options;

/* fleetsim help [COMMAND | --man | --markdown | --completion bash]: the
 * registry's renderings (help.h).  See cmd_help.c. */
extern const fs_cli_table fs_cli_help_options;

/* Shared by the commands above: --jobs (default: every core; -1 after a
 * message). */
int fs_cli_jobs(const char *cmd, const char *text, unsigned *jobs);

/* What a file holds: a writer and what it writes.  FS_OK or an error. */
typedef int (*fs_cli_writer)(FILE *fp, const void *what, fs_error *err);

/* Writes one file at path atomically through reports/output/output.h (which
 * works on a directory: it gets path's directory and base name, path not
 * empty).  FS_OK, or an error with err set and nothing left at path.  In
 * cmd_check.c. */
int fs_cli_write_file(const char *path, fs_cli_writer writer, const void *what, fs_error *err);

/* --out as given, else the input file's name without .json plus suffix
 * (".out", ".plan"), into buf. */
void fs_cli_out_dir(const char *given, const char *input, const char *suffix, char *buf, size_t size);

#endif

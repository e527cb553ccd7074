/*
 * cmd_fit.h — what fleetsim fit-traffic's two files share (cmd_fit.c: the
 * command, the fit's fragment and report; cmd_fit_backtest.c: the
 * back-test's report), and what fit-jobs (cmd_fit_jobs.c) takes from them:
 * numbers, the fragment's printing, the error exits.  Private to sim/cli.
 */
#ifndef FS_CMD_FIT_H
#define FS_CMD_FIT_H

#include <stdio.h>

#include <jansson.h>

#include "backtest.h"

/* Monday .. Sunday, as the scenario's start_weekday names them. */
extern const char *const fs_cli_fit_day_names[7];

/* A number for JSON, rounded to `digits` significant digits; null when not
 * finite (JSON has no NaN). */
json_t *fs_cli_fit_num(double x, int digits);

/* obj's members, one a line ("  \"key\": value,"), compact: the fragment's
 * body, which the caller opens and closes.  0, or -1 out of memory. */
int fs_cli_fit_print_members(FILE *fp, const json_t *obj);

/* The message of a failed fit on stderr; the exit status: 2 for bad input,
 * 1 otherwise. */
int fs_cli_fit_fail(int rc, const fs_error *err);

/* "fleetsim COMMAND: WHAT (see 'fleetsim COMMAND --help')"; returns 2. */
int fs_cli_fit_usage(const char *command, const char *what);

/* The back-test as JSON (the document's "backtest"), or NULL out of memory. */
json_t *fs_cli_fit_backtest_json(const fs_backtest *bt, const fs_backtest_result *r);

/* The back-test's table and capacity answer, as text. */
void fs_cli_fit_backtest_text(FILE *fp, const fs_backtest *bt, const fs_backtest_result *r);

#endif

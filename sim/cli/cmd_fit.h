/*
 * cmd_fit.h — what fleetsim fit-traffic's two files share (cmd_fit.c: the
 * command, the fit's fragment and report; cmd_fit_backtest.c: the
 * back-test's report).  Private to sim/cli.
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

/* The back-test as JSON (the document's "backtest"), or NULL out of memory. */
json_t *fs_cli_fit_backtest_json(const fs_backtest *bt, const fs_backtest_result *r);

/* The back-test's table and capacity answer, as text. */
void fs_cli_fit_backtest_text(FILE *fp, const fs_backtest *bt, const fs_backtest_result *r);

#endif

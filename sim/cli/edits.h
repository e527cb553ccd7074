/*
 * edits — the scenario edits of the command line: --set PATH=VALUE (a
 * sweep's path syntax, sweep.h: policies.shared.pools[0].gpus,
 * services[chat].replicas), --horizon, --warmup, --window and
 * --window-anchor.
 *
 * They edit the scenario document before it is parsed, in the order given
 * (a later edit of a path wins), so the parser checks an edited value as it
 * checks the file's own, with the same messages and limits, and a bare
 * number of seconds ("--horizon 3600") means what it means in the file.
 * Shared by run, compare, check and plan; their option tables take the rows
 * below, so the four say the same.
 */
#ifndef FS_CLI_EDITS_H
#define FS_CLI_EDITS_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"
#include "options.h"
#include "scenario.h"
#include "sweep.h"

#define FS_EDITS_ROW_SET {"set", 0, "PATH=VALUE", "set a scenario value, e.g. services[chat].replicas=4 (repeat)"}
#define FS_EDITS_ROW_HORIZON {"horizon", 0, "D", "simulated time, e.g. 7d, 90m or 3600 (seconds)"}
#define FS_EDITS_ROW_WARMUP {"warmup", 0, "D", "warm-up before measuring starts, e.g. 1h or 0"}
#define FS_EDITS_ROW_WINDOW {"window", 0, "D", "time-series and SLO window, e.g. 5m or 1d"}
#define FS_EDITS_ROW_WINDOW_ANCHOR {"window-anchor", 0, "HH:MM", "start windows at this time of day (plus whole windows)"}

/* A command's edit options: their indices in its table, -1 for one it lacks. */
typedef struct fs_edits_which {
    int set, horizon, warmup, window, window_anchor;
} fs_edits_which;

/* "PATH=TEXT" split at the first '=' (PATH copied into path, *value into
 * text); 0, or -1 when text is not that (the caller says so). */
int fs_edits_split(const char *text, char *path, size_t size, const char **value);

/* A command-line value as JSON: the text itself when it is JSON (3, true,
 * [1,2], "x"), else a string ("2d", "chat").  NULL when out of memory. */
struct json_t *fs_edits_value(const char *text);

/* Whether opt holds any of the edits. */
bool fs_edits_any(const fs_cli_parsed *opt, const fs_edits_which *which);

/* Applies opt's edits to sw's document.  With ci_yields (check, which then
 * applies the scenario's "ci" settings), --horizon and --warmup also drop
 * the "ci" horizon and warm-up, so what the command line says is what runs.
 * FS_OK, FS_ERR_INPUT naming the option and path, or FS_ERR_RUNTIME. */
int fs_edits_apply(fs_sweep *sw, const fs_cli_parsed *opt, const fs_edits_which *which, bool ci_yields,
                   fs_error *err);

/* The scenario at path with opt's edits (fs_scenario_load when there are
 * none).  FS_OK, FS_ERR_INPUT or FS_ERR_RUNTIME, as fs_scenario_load. */
int fs_edits_load(const char *path, const fs_cli_parsed *opt, const fs_edits_which *which, bool ci_yields,
                  fs_scenario **out, fs_error *err);

#endif

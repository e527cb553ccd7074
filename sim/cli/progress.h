/*
 * progress — what a long single run (run, compare, check) says while it
 * runs, and its event limit.
 *
 * Before the run, when the estimated events (fs_run_estimate_events, times
 * policies and replications) pass FS_PROGRESS_LARGE_EVENTS, one line on
 * stderr says how many, so a run that will take a while says so at once.
 * During it, only when stderr is a terminal and after the first second, a
 * line redrawn in place: simulated time, events/s and the ETA; it is erased
 * when the run ends, so it never reaches a file or a pipe.  --max-events
 * stops the run (fs_run_watch.max_events): exit 1, nothing written.
 *
 * Also the clock and ETA format that the study's progress (study.h) uses.
 */
#ifndef FS_CLI_PROGRESS_H
#define FS_CLI_PROGRESS_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "error.h"
#include "results.h"
#include "scenario.h"
#include "windows.h"

#define FS_PROGRESS_LARGE_EVENTS 5e8

#define FS_PROGRESS_ROW_MAX_EVENTS {"max-events", 0, "N", "stop a run that passes N events (exit 1, nothing written)"}

/* fs_run_watched (names NULL: every policy) with the estimate, progress and
 * limit above; max_events 0 is no limit.  The windows go to `windows`
 * (windows.h; never NULL: a command keeps no window rows in memory). */
int fs_progress_run(const fs_scenario *s, const char *const *names, size_t n_names, uint64_t max_events,
                    const fs_window_sink *windows, fs_results **out, fs_error *err);

/* Parses --max-events: 0 and *out (0 when text is NULL), or -1 after
 * printing "fleetsim CMD: --max-events: expected ...". */
int fs_progress_parse_max(const char *cmd, const char *text, uint64_t *out);

/* Seconds since t0 (CLOCK_MONOTONIC). */
double fs_progress_since(const struct timespec *t0);

/* A remaining time as "42s", "12m05s" or "3.5h". */
void fs_progress_eta(double s, char *buf, size_t size);

#endif

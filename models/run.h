/*
 * run — runs a scenario: every replication, on the event engine.
 *
 * For each replication r the run builds the pools and services of the
 * scenario on a fresh engine, with random streams seeded from (seed, r, name),
 * runs to the horizon, and moves the measured figures into fs_results.
 * Statistics restart at the warm-up instant; time-series windows start there.
 * Replications run one after another on this thread (studies spread them over
 * cores and machines elsewhere).
 *
 * Ownership: the results borrow the scenario; destroy them before it.
 */
#ifndef FS_RUN_H
#define FS_RUN_H

#include "error.h"
#include "results.h"
#include "scenario.h"

/* Returns FS_OK and *out, or FS_ERR_RUNTIME with err filled (out of memory,
 * a runaway queue). */
int fs_run_scenario(const fs_scenario *s, fs_results **out, fs_error *err);

#endif

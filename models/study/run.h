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
 * The replicas are placed first (placement.h); a replica that fits nowhere is
 * an input error.  The results own the placement and borrow the scenario:
 * destroy them before the scenario.
 */
#ifndef FS_RUN_H
#define FS_RUN_H

#include "error.h"
#include "placement.h"
#include "results.h"
#include "scenario.h"

/* Returns FS_OK and *out, FS_ERR_INPUT when a replica fits nowhere, or
 * FS_ERR_RUNTIME (out of memory, a runaway queue), with err filled. */
int fs_run_scenario(const fs_scenario *s, fs_results **out, fs_error *err);

/* The same for the named policies only, in the order given (the first is the
 * baseline of a comparison).  FS_ERR_INPUT for a name the scenario lacks. */
int fs_run_policies(const fs_scenario *s, const char *const *names, size_t n_names, fs_results **out,
                    fs_error *err);

/* One replication of one variant (an index into the root's policies, 0
 * without "policies"), on the streams of replication `replication`: the same
 * figures as that replication of a whole run.  *out holds one policy with one
 * replication (reps[0].replication == replication).  Sweeps run these as
 * independent units on many cores and machines. */
int fs_run_replication(const fs_scenario *s, size_t variant, uint32_t replication, fs_results **out,
                       fs_error *err);

#endif

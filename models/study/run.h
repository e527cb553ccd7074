/*
 * run — runs a scenario: every replication, on the event engine.
 *
 * For each replication r the run builds the pools and services of the
 * scenario on a fresh engine, with random streams seeded from (seed, r, name),
 * runs to the horizon, and moves the measured figures into fs_results.
 * Statistics restart at the warm-up instant; time-series windows start there.
 * Each closed window goes to the run's window sink (fs_run_watch.windows:
 * the command line streams them to their CSV files) or, without one, is kept
 * in the result; the figures taken from windows are kept either way
 * (windows.h).  Sweep and plan units (fs_run_replication) keep no rows.
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
#include "windows.h"

/* What a run tells its watcher while it runs (fs_run_watch.progress). */
typedef struct fs_run_progress {
    double now_s, horizon_s; /* simulated time of the replication running */
    uint64_t events;         /* events handled so far, every replication */
    size_t done, total;      /* replications (of every policy) finished, and all */
} fs_run_progress;

/* Limits and progress for one run (fs_run_watched); zeroed, it changes nothing. */
typedef struct fs_run_watch {
    uint64_t max_events; /* 0: no limit; past it the run stops with FS_ERR_RUNTIME */
    /* Called every FS_RUN_WATCH_EVERY events (NULL: never); the callee
     * decides how often to show anything. */
    void (*progress)(void *ctx, const fs_run_progress *p);
    void *ctx;
    /* Where closed windows go (windows.h), so that memory does not grow
     * with them; NULL: kept in memory (fs_service_rep.windows and the like). */
    const fs_window_sink *windows;
    /* 0: the results' budgets (results.h: FS_RESULTS_KEEP_HIST_BYTES,
     * _REP_BYTES, _MERGED_BYTES); else each of them, in bytes: what a run
     * keeps in memory of replications' own counters, of sealed records and
     * of merged histograms between replications before it drops or parks
     * them (1: everything that may go, goes; tests use it to run the disk
     * paths on a small scenario). */
    size_t keep_bytes;
} fs_run_watch;

#define FS_RUN_WATCH_EVERY 4096

/* Returns FS_OK and *out, FS_ERR_INPUT when a replica fits nowhere, or
 * FS_ERR_RUNTIME (out of memory, a runaway queue), with err filled. */
int fs_run_scenario(const fs_scenario *s, fs_results **out, fs_error *err);

/* The same for the named policies only, in the order given (the first is the
 * baseline of a comparison).  FS_ERR_INPUT for a name the scenario lacks. */
int fs_run_policies(const fs_scenario *s, const char *const *names, size_t n_names, fs_results **out,
                    fs_error *err);

/* fs_run_policies (names NULL: every policy, as fs_run_scenario) under a
 * watch (NULL: none).  An event limit is checked every FS_RUN_WATCH_EVERY
 * events, so a stopped run has handled at most that many more. */
int fs_run_watched(const fs_scenario *s, const char *const *names, size_t n_names, const fs_run_watch *watch,
                   fs_results **out, fs_error *err);

/* The events one replication of one policy of s is expected to take (about
 * two per request: arrival and completion), from the arrival profiles over
 * the horizon; replayed traces, whose size is known only once read, count 0. */
double fs_run_estimate_events(const fs_scenario *s);

/* One replication of one variant (an index into the root's policies, 0
 * without "policies"), on the streams of replication `replication`: the same
 * figures as that replication of a whole run.  *out holds one policy with one
 * replication (reps[0].replication == replication).  Sweeps run these as
 * independent units on many cores and machines. */
int fs_run_replication(const fs_scenario *s, size_t variant, uint32_t replication, fs_results **out,
                       fs_error *err);

#endif

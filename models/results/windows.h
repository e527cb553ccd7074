/*
 * windows — where a replication's closed time-series windows go, and the
 * figures a run takes from them as they close.
 *
 * Every window a service or pool closes, and every SLO window a service
 * finds in breach, goes one of two ways.  Given a sink (fs_window_sink, set
 * by whoever starts the run: the command line streams them to their CSV
 * files), the run hands each over and keeps nothing of it, so memory does
 * not grow with windows.  Without one (library callers, tests), the rows
 * are kept in memory: fs_service_rep.windows, .slo_breach_starts and
 * fs_pool_rep.windows.
 *
 * Either way, what any output computes from windows is taken here as they
 * close, in O(1) memory, to the same bits as a pass over the kept rows: a
 * service's busiest window (a replayed trace's peak rate), its worst window
 * p99 (compare), a pool's and the fleet's least headroom, and the queue
 * growth slope.  The slope is gsl_fit_linear's, whose second pass needs
 * each point again after the means of all of them: the means are taken
 * online here, and the second pass reads the points from the kept rows or,
 * when a sink took them, from a spool (spool.h) of (window end, queue) the
 * run keeps for the replication.  Reports that want more than these read the
 * CSV files back (charts, the review report).
 *
 * Ownership: the sink is the caller's and outlives the run; its callbacks
 * borrow every pointer they get for the call only.
 */
#ifndef FS_WINDOWS_H
#define FS_WINDOWS_H

#include <stddef.h>
#include <stdint.h>

#include "results.h"
#include "spool.h"

/* Where a run's windows go.  Replications run one at a time: each is
 * announced by begin, then its windows come in the order they close (pools,
 * then services, at each close; an SLO breach when its window closes), then
 * end, once the replication's figures are in r (before it is sealed).  Any
 * callback may be NULL: that call's records are dropped.  Each returns 0 or
 * an errno value, which stops the run with an error that names it. */
typedef struct fs_window_sink {
    void *ctx;
    /* Where the run may keep scratch files (the queue growth spool): the
     * output directory, so they sit on the disk the outputs go to; NULL:
     * $TMPDIR, else /tmp. */
    const char *scratch_dir;
    int (*begin)(void *ctx, const fs_results *r, size_t policy, uint32_t replication);
    int (*service_window)(void *ctx, size_t service, const fs_service_window *w);
    int (*pool_window)(void *ctx, size_t pool, const fs_pool_window *w);
    int (*slo_breach)(void *ctx, size_t service, double window_start_s);
    int (*end)(void *ctx, const fs_results *r, size_t policy, uint32_t replication);
} fs_window_sink;

/* An upper bound on the windows of `len` seconds a replication of s closes
 * (measuring from the warm-up instant to the horizon, with a last shorter
 * window): what a spool sizes its segments by. */
size_t fs_windows_bound(const fs_scenario *s, double len);

/* Takes service window w's figures into rep (see top) and counts it. */
void fs_windows_service_seen(fs_service_rep *rep, const fs_service_window *w);

/* Takes pool window w's headroom into rep. */
void fs_windows_pool_seen(fs_pool_rep *rep, const fs_pool_window *w);

/* Takes the fleet's headroom in one window from every pool's row of it
 * (rows[0..n_pools-1]) into rep. */
void fs_windows_fleet_seen(fs_rep_result *rep, const fs_pool_window *rows, size_t n_pools);

/* Keeps a row in memory (no sink).  0 or ENOMEM. */
int fs_windows_keep_service(fs_service_rep *rep, const fs_service_window *w);
int fs_windows_keep_pool(fs_pool_rep *rep, const fs_pool_window *w);
int fs_windows_keep_breach(fs_service_rep *rep, double window_start_s);

/* The growth spool's record: a window's end, in hours, and the queue then. */
typedef struct fs_windows_point {
    double x, y;
} fs_windows_point;

/* Sets rep->queue_growth_per_h from the points of its windows, from the
 * rows kept in rep (growth NULL) or from segment `segment` of growth.  0 or
 * the spool's errno. */
int fs_windows_growth(fs_service_rep *rep, fs_spool *growth, size_t segment);

#endif

/*
 * table — the terminal summary of a run.
 *
 * A header line with the scenario and run settings, then per policy a table
 * of services (requests, drops, latency quantiles with the p99 interval, SLO
 * breaches, offered load; past 12 services, one aggregate line instead), a
 * table of training streams if any (jobs, queue wait, preemptions, GPU-hours
 * done and lost), a table of pools and the fleet (GPU-hours, utilization,
 * headroom, cost, energy, stranded memory), then an UNSTABLE warning for
 * every service whose offered load is 1 or more (its queue grows without
 * bound or, with a queue limit, the excess is dropped).
 * Control characters in user-supplied names are shown as '?', so a name
 * cannot move the cursor or clear the screen.
 */
#ifndef FS_TABLE_H
#define FS_TABLE_H

#include <stdio.h>

#include "error.h"
#include "results.h"

int fs_table_write(const fs_results *r, FILE *fp, fs_error *err);

#endif

/*
 * table — the terminal summary of a run.
 *
 * A header line with the scenario and run settings, then per policy a table
 * of services (requests, drops, latency quantiles with the p99 interval, SLO
 * breaches, offered load) and a table of pools (GPU-hours, utilization),
 * then a plain warning for every service whose queue grows without bound.
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

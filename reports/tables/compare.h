/*
 * compare — policies side by side, with paired differences.
 *
 * Every policy of a run saw the same arrivals, service draws and job
 * submissions (common random numbers), so the difference between a policy
 * and the first one is taken replication by replication and summarized with
 * its own 95% confidence interval: far tighter than comparing two
 * independent means.  Rows: per service p50/p95/p99 over the run (marked
 * `~` in the table, as are their differences, when they have not settled:
 * unsettled.h), p99 of the worst window and SLO-breach windows per week
 * ("no SLO" in the table, null in the JSON, for a service without one); per training stream queue
 * wait P50/P95; per fleet GPU-hours, cost, utilization, peak headroom and
 * switch overhead; then every policy's pools, one a line (GPUs, how they are
 * cut: whole, MIG, time-sliced or fractional; units used at the start;
 * memory and compute the placement strands); per tenant the SLO-breach
 * minutes charged to it (breach
 * time while another tenant's scale-up waited, shared by the units it held
 * in that pool; the table shows only tenants some policy charged, the JSON
 * every tenant).
 *
 * Ownership: reads an fs_results; writes to a stream or builds a JSON value
 * the caller owns.
 */
#ifndef FS_COMPARE_H
#define FS_COMPARE_H

#include <jansson.h>
#include <stdio.h>

#include "error.h"
#include "results.h"

int fs_compare_table(const fs_results *r, FILE *fp, fs_error *err);

/* {"schema": "fleetsim-compare/1", "scenario": name, "replications": n,
 *  "baseline": name, "policies": {policy: P}, "differences": {policy: D}}, where
 *  P is {"services": {service: {row: mean}}, "training": {stream: {row: mean}},
 *  "fleet": {row: mean}, "externality": {tenant: {row: mean}}} and D has the
 *  same shape with {"mean", "ci95"} (the paired difference to the baseline)
 *  in place of each mean; NULL when out of memory. */
json_t *fs_compare_json(const fs_results *r);

#endif

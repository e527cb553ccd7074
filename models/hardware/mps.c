#include "mps.h"

#include <assert.h>
#include <math.h>
#include <stddef.h>

const char *const fs_mps_kind_names[FS_SHARE_KINDS] = {
    [FS_SHARE_COMPUTE] = "compute", [FS_SHARE_MEMORY] = "memory",
    [FS_SHARE_PREFILL] = "prefill", [FS_SHARE_DECODE] = "decode"};

#define N_SHARES 5

/* The measured shares, largest first. */
static const double shares[N_SHARES] = {1.0, 0.75, 0.5, 0.25, 0.1};

/* Each kind alone on its share, as a multiple of its time alone on the
 * whole GPU: the medians of 20 units each, measured 2026-11-26 on an H100
 * SXM 80GB (driver 13.0) under the MPS daemon, run 6
 * (calibrate/profiles/runs/2026-11-26-h100-run6/share.json, table "share",
 * rows with no background client; the table of calibrate/README.md, to its
 * two decimals).  The read at 50% measured 0.998: 1.00 at two decimals. */
static const double slowdowns[FS_SHARE_KINDS][N_SHARES] = {
    [FS_SHARE_COMPUTE] = {1.00, 1.35, 2.00, 4.12, 10.97},
    [FS_SHARE_MEMORY] = {1.00, 1.00, 1.00, 1.77, 3.25},
    [FS_SHARE_PREFILL] = {1.00, 1.30, 1.63, 3.15, 8.28},
    [FS_SHARE_DECODE] = {1.00, 1.09, 1.32, 1.96, 4.46},
};

double fs_mps_slowdown(fs_share_kind kind, double share)
{
    assert(kind >= 0 && kind < FS_SHARE_KINDS && share > 0);
    const double *row = slowdowns[kind];
    if (share >= shares[0])
        return row[0];
    if (share <= shares[N_SHARES - 1])
        return row[N_SHARES - 1]; /* not measured below: held (the scenario refuses it) */
    size_t i = 1;
    while (share < shares[i])
        i++;
    /* shares[i] <= share < shares[i - 1]: a power law through both points. */
    if (share == shares[i])
        return row[i];
    double t = log(share / shares[i]) / log(shares[i - 1] / shares[i]);
    return exp(log(row[i]) + t * log(row[i - 1] / row[i]));
}

/*
 * mps — what a fraction of a GPU costs a client: the measured MPS share
 * curves.
 *
 * Under the MPS daemon a client capped at CUDA_MPS_ACTIVE_THREAD_PERCENTAGE
 * = 100 x share runs on that share of the SMs.  How much slower its work
 * runs than on the whole GPU depends on what the work is: compute-bound
 * work slows as 1 / share, memory-bound work reads at full bandwidth from a
 * quarter of the SMs, and LLM steps lie between.  The four curves here are
 * the medians of the `share` step of run 6 on an H100 SXM (calibrate/
 * profiles/runs/2026-11-26-h100-run6/share.json; calibrate/README.md
 * "Sharing one GPU: MPS shares and time-slicing" has the table and how they
 * were measured), typed in rather than read at run time: they are one
 * run's measurements, committed with their source, not a user's input.
 *
 * Between the measured shares (1, 0.75, 0.5, 0.25, 0.1) a curve is
 * interpolated log-log (a power law on each segment), so each measured
 * point comes back exactly.  Below 0.1 nothing was measured: the scenario
 * refuses such shares, and this module holds a smaller one at 0.1's value.
 *
 * Nothing here allocates; the tables are static.
 */
#ifndef FS_MPS_H
#define FS_MPS_H

/* What a fractional replica's work resembles (the service's
 * "gpu_share_kind"), each a row of the measurement. */
typedef enum fs_share_kind {
    FS_SHARE_COMPUTE,  /* "compute": the compute-bound spin, ~1 / share */
    FS_SHARE_MEMORY,   /* "memory": the memory-bound read */
    FS_SHARE_PREFILL,  /* "prefill": an LLM prefill step (2,048 prompt tokens, H 4096) */
    FS_SHARE_DECODE,   /* "decode": an LLM decode step (32 sequences over 1,024 tokens) */
    FS_SHARE_KINDS
} fs_share_kind;

/* The smallest share measured, and so the smallest a scenario may ask for. */
#define FS_MPS_MIN_SHARE 0.1

/* The kinds' names, indexed by fs_share_kind. */
extern const char *const fs_mps_kind_names[FS_SHARE_KINDS];

/* Time of work of `kind` on `share` (0 < share <= 1) of the GPU's SMs over
 * its time on the whole GPU: >= 1 at every measured share but one (1 at
 * share 1), interpolated log-log between measured shares. */
double fs_mps_slowdown(fs_share_kind kind, double share);

#endif

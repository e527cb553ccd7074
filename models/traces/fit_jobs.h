/*
 * fit_jobs — a training stream's job mix fitted from a job trace: the gang
 * sizes, the run times and the submission rate, as distributions a
 * scenario's training stream draws from ("gang", "run_time", "submit"),
 * with heavy tails kept, and the fit's own check.
 *
 * It owns the accumulator (every job's run time, the count of each gang
 * size, the submission span) and the fit computed from it (plain arrays the
 * caller frees with fs_fit_jobs_fini).  It reads traces through trace.h and
 * knows nothing of scenarios: the fragment is numbers; sim/cli prints them
 * in the scenario's syntax.
 *
 * Definitions (what fs_fit_jobs_compute reports):
 *   - Quantile q of n values (the trace's, or a fragment's samples): the
 *     sorted value at rank ceil(q n), 1-based (the inverse of the empirical
 *     CDF).  That is the quantile of what the simulator draws from an
 *     empirical distribution: sim/engine/dist.h draws each of its n samples
 *     with probability 1/n, so the fit and the check use one definition on
 *     both sides.
 *   - Gang: the empirical distribution of the trace's gang sizes, as
 *     samples whose multiplicities give each size's share.  Every size seen
 *     keeps at least one sample (the tail to the largest gang is kept);
 *     multiplicities are round(share x M), at least 1, for the scale M from
 *     1 to FS_FIT_JOBS_GANG_SAMPLES whose total fits that cap and whose
 *     quantiles at the check's points are nearest the trace's, then whose
 *     largest |printed share - trace share| is least, then the fewest
 *     samples: exact whenever the counts divided by their common divisor
 *     fit the cap.
 *   - Run time: S = 5 N samples (N = quantiles, default 200).  The body is N
 *     cells of probability 1/N up to the last grid point at or below 0.99;
 *     each cell's sample is the trace's quantile at the cell's upper end,
 *     written 5 times (its weight is 5/S).  The top (at least 1%) is cut five
 *     times finer: one sample per 1/S, at Q(k/S), the last one Q(1), the
 *     trace's longest job.  See fs__run_samples in fit_jobs.c for why.
 *   - Zero-duration jobs stay in the fragment as 0-second jobs (the
 *     simulator runs them: they hold their gang for no time) and are counted
 *     (zero_jobs); the lognormal, which has no mass at 0, is fitted to the
 *     others, and its KS distance is against all jobs, zeros included.
 *   - Lognormal by maximum likelihood: mu = the mean of ln(duration) over
 *     durations > 0, sigma = their standard deviation around mu divided by
 *     n (the MLE, not n - 1); median = exp(mu).  KS distance = sup |F - ECDF|.
 *   - Submission rate: (jobs - 1) / span per hour, span = the latest
 *     submission - the earliest (where each was written, out-of-order rows
 *     included: fs_trace_row.t_written): n jobs leave n - 1 gaps between
 *     the first and the last.  No rate (NAN) when the span is 0.
 *   - Run time by gang (the fragment's "run_time_by_gang", the default):
 *     the gang sizes, ascending, are grouped into classes of at least
 *     min_class_jobs = max(FS_FIT_JOBS_CLASS_JOBS, ceil(FS_FIT_JOBS_CLASS_SHARE
 *     x jobs)) jobs: a class closes at the first size that brings it there
 *     (a rare size joins the next larger ones), and what is left after the
 *     last class closed joins it (the largest class takes the rest; a
 *     trace of fewer jobs is one class).  Each class's run time is built
 *     as the run time above, from that class's jobs alone.  Why the floor:
 *     a class's fragment has 5N samples (1,000 by default) whose body cells
 *     each hold N (200) of them; below 200 jobs the cells would repeat
 *     single jobs and the class would copy its few jobs' noise rather than
 *     a distribution.  Why the share: a class weighs at least 1% of the
 *     jobs, so there are at most 100 classes and each moves the mean by a
 *     visible amount.
 *   - The mixture: what the simulator draws from the by-gang fragment, a
 *     gang g with its printed share, then a run time from g's class.  Its
 *     quantiles are exact: every class sample weighs (the class's gang
 *     samples) / (all gang samples x 5N), whole numbers over one total,
 *     enumerated in order.
 *   - Mean GPU-hours: the trace's mean of gang x run time; the by-gang
 *     fragment's, sum over gangs of share x gang x its class's mean run
 *     time; the independent fragment's, E[gang] x E[run time]; and the
 *     trace's own E[gang] x E[run time]: what drawing the two apart loses.
 *
 * Memory: 12 bytes per job (its run time, for exact quantiles, and its
 * gang, for the classes), 16 more while they are sorted, 8 more for the
 * classes' run times, and 16 bytes per distinct gang size.
 */
#ifndef FS_FIT_JOBS_H
#define FS_FIT_JOBS_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "trace.h"

#define FS_FIT_JOBS_GANG_SAMPLES 2000   /* the gang fragment's most samples */
#define FS_FIT_JOBS_QUANTILES 200       /* run-time cells by default */
#define FS_FIT_JOBS_MIN_QUANTILES 10
#define FS_FIT_JOBS_MAX_QUANTILES 20000 /* 100,000 samples: already a large fragment */
#define FS_FIT_JOBS_TAIL_SPLIT 5        /* the top 1% is cut this much finer */
#define FS_FIT_JOBS_CLASS_JOBS 200      /* a gang class's fewest jobs ... */
#define FS_FIT_JOBS_CLASS_SHARE 0.01    /* ... or this share of them, whichever is more */
/* The check's quantiles: p1 p10 p50 p90 p99 p99.9 and max (q = 1). */
#define FS_FIT_JOBS_N_CHECK 7
extern const double fs_fit_jobs_check_q[FS_FIT_JOBS_N_CHECK];

typedef struct fs_fit_jobs_acc {
    double *run_s;            /* every job's run time, in reading order ... */
    uint32_t *gpus;           /* ... and its gang */
    size_t n, cap;
    uint32_t *gang;           /* distinct gang sizes, ascending ... */
    uint64_t *gang_count;     /* ... and their jobs */
    size_t n_gangs, cap_gangs;
    double first_s, last_s;   /* the earliest and latest submissions */
    double gpu_s;             /* sum of gang x run time */
    uint64_t out_of_order;    /* rows submitted before the row above them */
} fs_fit_jobs_acc;

void fs_fit_jobs_acc_init(fs_fit_jobs_acc *acc);
void fs_fit_jobs_acc_fini(fs_fit_jobs_acc *acc);

/* One job: submitted at submit_s, gpus >= 1, run_s >= 0 and finite.
 * FS_OK, FS_ERR_INPUT (out of range), FS_ERR_RUNTIME (out of memory). */
int fs_fit_jobs_acc_add(fs_fit_jobs_acc *acc, double submit_s, uint32_t gpus, double run_s, fs_error *err);

/* A job trace (spec->kind FS_TRACE_JOBS), read to the end through trace.h.
 * Order does not matter to the fit: the reader is given an unbounded
 * tolerance, so an unsorted trace (the Philly list) is read whole.
 * Initialises *acc (fini it whatever the status).  FS_OK, FS_ERR_INPUT (a
 * request trace, a bad row: "file:LINE: ...", no job rows), FS_ERR_RUNTIME. */
int fs_fit_jobs_read(const fs_trace_spec *spec, fs_fit_jobs_acc *acc, fs_error *err);

typedef struct fs_fit_jobs_gang {
    uint32_t gpus;
    uint64_t count;           /* jobs in the trace */
    double share;             /* count / jobs */
    uint32_t copies;          /* samples in the fragment */
    double printed_share;     /* copies / the fragment's samples */
} fs_fit_jobs_gang;

/* One row of the check: a quantile of the trace and of the fragment. */
typedef struct fs_fit_jobs_check {
    double q;
    double trace, fragment;
    double rel_err;           /* fragment / trace - 1; 0 when both are 0, INFINITY when only trace is */
} fs_fit_jobs_check;

/* A gang class of the by-gang fragment: sizes gangs[first .. first + n_sizes)
 * of fs_fit_jobs.gangs, and its run time fitted to its own jobs. */
typedef struct fs_fit_jobs_class {
    size_t first, n_sizes;
    uint64_t jobs;            /* in the trace */
    uint32_t copies;          /* the gang fragment's samples in the class */
    double *run_samples;      /* 5N, ascending, in whole milliseconds / 1000 */
    size_t n_run_samples;
    double run_mean, run_fragment_mean;
    fs_fit_jobs_check run_check[FS_FIT_JOBS_N_CHECK]; /* the class's jobs against its samples */
    double run_max_err;
} fs_fit_jobs_class;

typedef struct fs_fit_jobs {
    uint64_t jobs, zero_jobs, out_of_order;
    double span_s;
    double rate_per_hour;     /* NAN when the span is 0 */

    /* Gang. */
    fs_fit_jobs_gang *gangs;  /* ascending */
    size_t n_gangs;
    uint32_t *gang_samples;   /* the fragment, ascending */
    size_t n_gang_samples;
    double gang_share_err;    /* largest |printed_share - share| */
    double gang_mean, gang_fragment_mean;
    fs_fit_jobs_check gang_check[FS_FIT_JOBS_N_CHECK];
    double gang_max_err;      /* largest |rel_err| of gang_check */

    /* Run time (seconds). */
    size_t quantiles;         /* N */
    double *run_samples;      /* the fragment, ascending, in whole milliseconds / 1000 */
    size_t n_run_samples;
    double run_mean, run_fragment_mean;
    fs_fit_jobs_check run_check[FS_FIT_JOBS_N_CHECK];
    double run_max_err;       /* largest |rel_err| of run_check */
    /* The same at every 0.1% from 0.1% to 99.9% and the max, between grid
     * points too: what the fragment gives up away from its points. */
    double run_fine_err, run_fine_q;

    /* Run time by gang: the classes, ascending, and the mixture's check
     * (its quantiles against the trace's, every job) and mean. */
    uint64_t min_class_jobs;
    fs_fit_jobs_class *classes;
    size_t n_classes;
    fs_fit_jobs_check mixture_check[FS_FIT_JOBS_N_CHECK];
    double mixture_max_err;   /* largest |rel_err| of mixture_check */
    double mixture_mean;

    /* Mean GPU-hours per job: the trace's E[gang x run], the trace's
     * E[gang] x E[run] (what independent draws of its own marginals give:
     * the two differ by the correlation), the independent fragment's
     * E[gang] x E[run], the by-gang fragment's E[gang x run]. */
    double gpu_hours, independent_gpu_hours, fragment_gpu_hours, by_gang_gpu_hours;

    /* The lognormal alternative. */
    uint64_t lognormal_n;     /* durations > 0 it was fitted to */
    double lognormal_median_s, lognormal_sigma;
    double lognormal_ks;      /* against every job; NAN when fewer than 2 durations > 0 */
    fs_fit_jobs_check lognormal_check[FS_FIT_JOBS_N_CHECK];
} fs_fit_jobs;

/* The fit of what acc holds, both ways: independent (gang_*, run_*) and by
 * gang (classes, mixture_*).  acc's jobs are sorted in place by run time,
 * each keeping its gang.
 * quantiles: FS_FIT_JOBS_MIN_QUANTILES .. FS_FIT_JOBS_MAX_QUANTILES.
 * FS_OK, FS_ERR_INPUT (no jobs, quantiles out of range), FS_ERR_RUNTIME;
 * on failure *out holds nothing to free. */
int fs_fit_jobs_compute(fs_fit_jobs_acc *acc, size_t quantiles, fs_fit_jobs *out, fs_error *err);

void fs_fit_jobs_fini(fs_fit_jobs *fit);

#endif

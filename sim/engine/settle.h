/*
 * settle — has a run settled?  Batch statistics and run-length diagnostics
 * for a latency figure (the mean and the p50, p95, p99, p99.9).
 *
 * A run too short for its load gives a confident wrong tail: the figure is
 * one number, and nothing in it says that the queue never reached its steady
 * state.  This module says so, from one replication if need be:
 *
 *  - Batches.  The measured interval [warmup, horizon] is cut into
 *    FS_SETTLE_BATCHES equal time batches.  Values are recorded into one
 *    batch histogram; at each boundary the batch's mean and quantiles are
 *    kept (FS_SETTLE_FIGURES doubles) and the histogram is merged into the
 *    replication's and reset (fs_settle_close), so the hot path records each
 *    value once and memory is O(batches) doubles plus one histogram.
 *  - A confidence interval from the batch values: the Student t interval of
 *    the batch means (Schmeiser 1982, "Batch size effects in the analysis of
 *    simulation output"), and for a quantile the same interval over the
 *    batch quantiles (batching for quantiles: Heidelberger & Lewis 1984,
 *    "Quantile estimation in dependent sequences").  The point estimate
 *    stays the quantile of the whole interval; the batches give its spread.
 *  - Lag-1 autocorrelation of the batch values: batches that are not close
 *    to independent mean the run is not long against the process's memory,
 *    and the interval is too narrow.
 *  - MSER (White 1997, "An effective truncation heuristic for bias
 *    reduction in simulation output"; MSER-5 applies it to means of 5
 *    observations, here the batches play that part): the truncation point d
 *    in [0, n/2] that minimises the marginal standard error of the rest.  A
 *    d > 0 whose truncation moves the mean by more than the truncated
 *    series' own CI half-width says the warm-up left a transient in.
 *  - Batches alike: in a settled run each batch is a sample of the same
 *    distribution, so the whole run's quantile lies within the interval of
 *    its batch quantiles.  A run shorter than the queue's relaxation time
 *    is not: its tail comes from its worst batches and sits above them all
 *    (M/M/10 at rho = 0.999 over 20M requests: p99.9 1.9 s, batch p99.9s
 *    averaging 1.4 s).  This catches what the lag-1 estimate, biased low
 *    and noisy over 20 batches, can miss.
 *
 * The thresholds (FS_SETTLE_MAX_*) are chosen once, below, with the reason.
 * Ownership: fs_settle_batches is a plain caller-owned struct (no heap);
 * every function here is pure apart from fs_settle_close's histograms.
 */
#ifndef FS_SETTLE_H
#define FS_SETTLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hist.h"
#include "summary.h"

/* 20 batches: Schmeiser (1982) finds 10 to 30 batches lose little against
 * the best batch count, and 20 keeps t_{0.975,19} = 2.09 close to the
 * normal's 1.96 while each batch stays 5% of the run. */
#define FS_SETTLE_BATCHES 20

/* The figures kept per batch. */
typedef enum fs_settle_figure {
    FS_SETTLE_MEAN, FS_SETTLE_P50, FS_SETTLE_P95, FS_SETTLE_P99, FS_SETTLE_P999, FS_SETTLE_FIGURES
} fs_settle_figure;

/* The quantile of each figure (the mean: -1). */
extern const double fs_settle_quantiles[FS_SETTLE_FIGURES];
/* Short names: "mean", "p50", "p95", "p99", "p999". */
extern const char *const fs_settle_names[FS_SETTLE_FIGURES];

/* A figure has settled when its 95% CI half-width is at most 10% of its
 * value: the product promises quantiles to 1% of what was simulated, and a
 * figure known only to +-10% of what a longer run would give is the first
 * thing a capacity decision should not lean on. */
#define FS_SETTLE_MAX_RELATIVE_HW 0.10
/* ... and its batches' lag-1 autocorrelation is at most 0.5.  For 20
 * independent normal batches the sample lag-1 autocorrelation exceeds 0.42
 * in 1% and 0.55 in 0.1% of runs (measured, 20,000 seeded trials), so 0.5
 * rarely flags a settled figure, while a run shorter than the queue's
 * relaxation time gives batches correlated at 0.8 to 0.99. */
#define FS_SETTLE_MAX_LAG1 0.5

/* A shift smaller than 1% of the figure is below what the product promises
 * to resolve (hist.h: quantiles within 1/256), so it is never a reason. */
#define FS_SETTLE_MIN_RELATIVE_SHIFT 0.01
/* Batches compare with the whole run only when each holds at least
 * 100 / (1 - q) values (10,000 for a p99): a batch quantile from fewer is
 * biased low (its nearest rank sits at 1 - q less about 1/n), by about 0.1%
 * of the value at that size. */
#define FS_SETTLE_MIN_TAIL_PER_BATCH 100.0

/* Why a figure has not settled: a bit set. */
enum {
    FS_SETTLE_WIDE = 1u << 0,        /* CI half-width > FS_SETTLE_MAX_RELATIVE_HW of the value */
    FS_SETTLE_CORRELATED = 1u << 1,  /* batch lag-1 autocorrelation > FS_SETTLE_MAX_LAG1 */
    FS_SETTLE_TRANSIENT = 1u << 2,   /* MSER: the warm-up leaves a transient in */
    FS_SETTLE_NO_INTERVAL = 1u << 3, /* no interval can be claimed (see fs_settle_why) */
    FS_SETTLE_UNEVEN = 1u << 4,      /* the whole run's figure is outside its batches' interval */
    /* A lower quantile of the same run has not settled.  A quantile further
     * in the tail rests on fewer values and follows the queue's slowest
     * excursions, so it settles no sooner (Heidelberger & Lewis 1984: the
     * variance of a quantile estimate grows as 1 - q shrinks); its own
     * diagnostics, on the rarer values, can miss what the lower one shows
     * (p99 flagged while p99.9's batch interval happens to fall inside the
     * threshold). */
    FS_SETTLE_BELOW = 1u << 5,
};

/* The batches of one replication. */
typedef struct fs_settle_batches {
    double value[FS_SETTLE_FIGURES][FS_SETTLE_BATCHES]; /* ns, per figure per batch */
    uint64_t count[FS_SETTLE_BATCHES];                 /* values in each batch */
    uint32_t n;                                        /* batches closed */
} fs_settle_batches;

/* Forgets every batch. */
void fs_settle_reset(fs_settle_batches *b);

/* Closes the batch held in `batch`: keeps its figures (if fewer than
 * FS_SETTLE_BATCHES are closed; later ones are only merged), merges it into
 * `into` and resets it.  O(the batch's dirty bucket range).  0, or ENOMEM
 * when `into` could not grow (the batch is then left as it was). */
int fs_settle_close(fs_settle_batches *b, fs_hist *batch, fs_hist *into);

/* True when every one of the n >= 2 batches holds at least one value. */
bool fs_settle_complete(const fs_settle_batches *b);

/* True when every batch is large enough for figure f's batch value to be
 * compared with the whole run's (FS_SETTLE_MIN_TAIL_PER_BATCH). */
bool fs_settle_comparable(const fs_settle_batches *b, fs_settle_figure f);

/* Lag-1 autocorrelation of x[0..n-1] (GSL); 0 for n < 3 or a constant series. */
double fs_settle_lag1(const double *x, size_t n);

/* MSER truncation point: the d in [0, n/2] minimising
 * sum_{i >= d} (x_i - mean_d)^2 / (n - d)^2, the first such d on ties. */
size_t fs_settle_mser(const double *x, size_t n);

/* All diagnostics of one batch series. */
typedef struct fs_settle_diag {
    fs_summary ci;      /* Student t interval of the batch values */
    double lag1;        /* lag-1 autocorrelation */
    size_t mser_cut;    /* MSER truncation point, in batches */
    double mser_shift;  /* |mean of all - mean after the cut| */
    double mser_hw;     /* CI half-width of the values after the cut */
    bool comparable;    /* the caller's: compare the whole run's figure with ci (fs_settle_comparable) */
} fs_settle_diag;

/* Diagnoses x[0..n-1], n >= 2. */
fs_settle_diag fs_settle_diagnose(const double *x, size_t n);

/* The verdict for a figure of value `point` with 95% CI half-width `hw`
 * (NaN: none) and the diagnostics of its batches (NULL: none apply, e.g. a
 * load that changes over time by design).  0 when settled, else the reasons. */
unsigned fs_settle_judge(double point, double hw, const fs_settle_diag *d);

/* The reasons in words ("95% CI ±48% of the value; batches correlated
 * (lag-1 autocorrelation 0.93 > 0.50) ..."), into buf; returns buf. */
char *fs_settle_why(unsigned why, double point, double hw, const fs_settle_diag *d, char *buf, size_t size);

#endif

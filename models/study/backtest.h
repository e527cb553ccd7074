/*
 * backtest — does a fitted arrival fragment give the capacity answer the
 * trace itself gives?  (`fleetsim fit-traffic --backtest`, issue 19.)
 *
 * A scenario names a service whose arrivals replay a request trace.  The
 * trace is split on its own clock (seconds from its first row, before any
 * rate scale or shift) at S = (1 - holdout) x span, span being its last
 * row's time.  The rows before S are the fit's (fs_backtest_prepare reads
 * them into a fit accumulator, fit.h; the caller fits them and turns the
 * fit into the fragment that fit-traffic prints); the rows at or after S are
 * held back.  fs_backtest_run then simulates two variants of the scenario
 * over the trace's span, judged after S only (warm-up = S):
 *   - replay: the service's arrivals are the trace itself;
 *   - fit: the service's arrivals are the fragment, exactly as given.
 * For each it finds the fewest replicas whose p99, over the scenario's
 * replications pooled, meets the SLO (the service's p99 target, or one
 * given), by bisection over 1..max_replicas; requests unfinished at the
 * horizon count against the SLO as in every fleetsim figure
 * (fs_results_judge).  The difference between the two answers is what the
 * fit gets wrong about capacity.
 *
 * The variants, built from the scenario's own document:
 *   - the clock: simulated time is the fit's accumulator time (from day 0's
 *     midnight, fit.h), so hours, weekdays, bursts' "at", growth and daily
 *     levels of the fragment fall where the fit put them: start_weekday is
 *     day 0's weekday, and the replay is shifted (rate_scale 1, no repeat)
 *     so that its first row lands at first_s, the first row's time of day;
 *   - the horizon is the trace's last row (first_s + span), the warm-up the
 *     split (first_s + S), one window in between;
 *   - before first_s the trace has no traffic, so the fit variant's rate is
 *     multiplied by 1e-9 there (a burst from 0 to first_s): both variants
 *     start empty at the trace's start, and no simulated time is spent on
 *     hours neither judges;
 *   - a trace whose service time comes from its sizes ("service_time" in
 *     the trace) gives the fit variant an empirical service time: the
 *     service times of the fit part's rows, so that only the arrivals
 *     differ;
 *   - the service alone, replicas fixed (no autoscaler), its SLO just the
 *     p99 target: other services, training and the other policies are left
 *     out, and the service's pool in the first policy is a fixed pool of at
 *     least max_replicas GPUs.
 *
 * Not handled (refused with the reason): LLM services (continuous batching:
 * the fit has no prompt and output tokens to give) and disaggregated ones.
 *
 * Ownership: fs_backtest owns its scenario, document and samples
 * (fs_backtest_fini); the accumulator is the caller's (fs_fit_acc_fini), as
 * is the fragment given to fs_backtest_run (borrowed, unchanged).
 */
#ifndef FS_BACKTEST_H
#define FS_BACKTEST_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "fit.h"
#include "scenario.h"

#define FS_BACKTEST_HOLDOUT 0.25
#define FS_BACKTEST_MAX_REPLICAS 64
/* A p99 of fewer than 100 requests is the largest of them, not a tail. */
#define FS_BACKTEST_MIN_HELD 100

typedef struct fs_backtest_spec {
    const char *scenario;  /* the scenario file */
    const char *service;   /* NULL: its first service whose arrivals replay a trace */
    double holdout;        /* share of the span held back, in (0, 1); 0: FS_BACKTEST_HOLDOUT */
    double slo_p99_s;      /* > 0; 0: the service's p99 target */
    uint32_t max_replicas; /* 0: FS_BACKTEST_MAX_REPLICAS */
    double window_s;       /* the fit's counting window (fit.h); 0: 60 s */
} fs_backtest_spec;

typedef struct fs_backtest {
    fs_scenario *scenario;     /* owned */
    struct json_t *doc;        /* owned: the scenario's document, the base of the variants */
    size_t service;            /* the service's index */
    const char *service_name;  /* borrowed from the scenario */
    const char *trace_path;    /* borrowed: the trace file as the scenario resolves it */
    double holdout, slo_p99_s;
    uint32_t max_replicas;
    uint64_t rows, fit_rows, held_rows; /* the trace's rows: all, before the split, at or after it */
    double span_s, split_s;    /* the trace's clock: its last row, and the split */
    double first_s;            /* the first row from day 0's midnight: where the trace starts */
    int weekday0;              /* day 0's weekday, 0 = Monday */
    double *samples_ms;        /* a sized trace: the fit part's service times (owned); else NULL */
    size_t n_samples;
} fs_backtest;

/* Loads the scenario, picks the service and splits its trace, and reads the
 * fit part into *acc (initialised here; fini it whatever the status).
 * FS_OK; FS_ERR_INPUT naming the file (and line) and why: a bad scenario or
 * trace row, no such service, a service without a trace, an LLM or
 * disaggregated service, no p99 target and none given, a holdout outside
 * (0, 1), a trace too short to split (two rows at different times before
 * the split, FS_BACKTEST_MIN_HELD at or after it); FS_ERR_RUNTIME.  *bt is
 * fini-able whatever the status. */
int fs_backtest_prepare(const fs_backtest_spec *spec, fs_backtest *bt, fs_fit_acc *acc, fs_error *err);

enum { FS_BACKTEST_REPLAY = 0, FS_BACKTEST_FIT = 1 };

/* One variant's answer. */
typedef struct fs_backtest_side {
    double requests;      /* judged requests (arrivals at or after the split), mean over replications */
    uint32_t needed;      /* fewest replicas meeting the SLO; 0: none up to max_replicas */
    /* p99 in ms at the replicas the replay needs ([FS_BACKTEST_REPLAY]) and
     * the fit needs ([FS_BACKTEST_FIT]): NAN where that side needs none (or
     * no request was judged), INFINITY where unfinished requests decide it. */
    double p99_ms_at[2];
    double p99_ms_at_max;  /* at max_replicas: the least p99 replicas can give (as p99_ms_at) */
} fs_backtest_side;

typedef struct fs_backtest_result {
    fs_backtest_side side[2]; /* [FS_BACKTEST_REPLAY], [FS_BACKTEST_FIT] */
    uint32_t runs;            /* simulations run (each of the scenario's replications) */
    double wall_s;
} fs_backtest_result;

/* Runs both variants, the fit's with `arrivals` (a service's "arrivals"
 * object: the fragment).  FS_OK; FS_ERR_INPUT when a variant is refused
 * (the message names the variant); FS_ERR_RUNTIME. */
int fs_backtest_run(const fs_backtest *bt, const struct json_t *arrivals, fs_backtest_result *out,
                    fs_error *err);

/* The fit's error against the replay, fit / replay - 1; NAN when either
 * is not a finite positive figure. */
double fs_backtest_error(double fit, double replay);

void fs_backtest_fini(fs_backtest *bt);

#endif

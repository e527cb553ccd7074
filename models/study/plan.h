/*
 * plan — the cheapest point of a sweep that meets every constraint, with 95%
 * confidence, and the frontier of cost against tail latency.
 *
 * Constraints name a figure of metrics.h, an operator and a limit:
 * `service:chat.p99<=250ms`, `fleet.peak_headroom>=0.4` (or `>=40%`),
 * `training:nightly.queue_p95<=10m`.  A unit suffix may be left off the name
 * (p99 is p99_ms, queue_p95 is queue_p95_s, `cost` is fleet.cost_usd) and a
 * duration limit is converted to the figure's unit.
 *
 * Judging a point: a constraint is met when its whole 95% interval is on the
 * right side of the limit, failed when the whole interval is on the wrong
 * side; a point meets when every constraint is met and fails when one fails.
 * Otherwise its interval straddles a limit and the point gets twice the
 * replications, up to a maximum; still undecided, it counts as not meeting
 * (the plan never recommends a fleet it is not 95% sure of).  A point whose
 * replicas fit nowhere fails.
 *
 * Search: dimensions given as ranges (from..to) are taken as monotone: more
 * of them is more capacity, so if a point meets the constraints, a point
 * higher along a range also does, and costs no less.  The plan enumerates
 * every combination of the other dimensions and binary-searches the last
 * range for the first point that meets them (the cheapest on that line); the
 * first-meeting index can only fall as another range rises, so each search
 * is bounded by the one before it (a staircase walk).  On a grid of a x b
 * points that is about a x log2(b) evaluations instead of a x b.  List
 * dimensions (policies, MIG layouts) are enumerated in full.  The answer is
 * the cheapest evaluated point that meets; search "grid" evaluates every
 * point, the brute force the search is checked against.
 *
 * Ownership: fs_plan owns its constraints and everything it records; the
 * sweep is borrowed.  fs_plan_fini frees.
 */
#ifndef FS_PLAN_H
#define FS_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "metrics.h"
#include "sweep.h"

typedef enum fs_cmp { FS_CMP_LE, FS_CMP_LT, FS_CMP_GE, FS_CMP_GT } fs_cmp;

typedef struct fs_constraint {
    char *text;      /* as given */
    char *name;      /* the figure as written */
    char *metric;    /* resolved against a row (NULL until then) */
    fs_cmp op;
    double limit;    /* in the resolved figure's unit once resolved */
    double given;    /* the number as written */
    char unit[8];    /* "ms", "s", "m", "h", "d", "%" or "" */
} fs_constraint;

/* Parses "NAME OP NUMBER[UNIT]".  FS_OK or FS_ERR_INPUT with what was expected. */
int fs_constraint_parse(const char *text, fs_constraint *out, fs_error *err);
void fs_constraint_fini(fs_constraint *c);

/* The name of a figure in row as given or with a unit suffix (NULL if none):
 * the row's own string. */
const char *fs_plan_resolve_name(const fs_metric_row *row, const char *name);

/* FS_ERR_INPUT for `name`, given to `what` ("constraint", "--metric"), that
 * is no figure of row: the nearest figure, and how figures are named. */
int fs_plan_unknown_figure(const fs_metric_row *row, const char *what, const char *name, fs_error *err);

typedef enum fs_verdict { FS_VERDICT_MEETS, FS_VERDICT_FAILS, FS_VERDICT_UNSURE } fs_verdict;

const char *fs_verdict_name(fs_verdict v);

/* One evaluated point. */
typedef struct fs_plan_point {
    size_t point;
    uint32_t replications;   /* what judging it took */
    fs_verdict verdict;
    fs_metric_row row;       /* its summary at that many replications */
} fs_plan_point;

/* Runs (or reads back) replications 0..replications-1 of point and
 * summarizes them into *row.  Returns FS_OK or an error code with err. */
typedef int (*fs_plan_evaluate)(void *ctx, size_t point, uint32_t replications, fs_metric_row *row,
                                fs_error *err);

typedef struct fs_plan {
    const fs_sweep *sweep;
    fs_constraint *constraints;
    size_t n_constraints;
    char *minimize;          /* figure to minimize, as given ("cost") */
    char *frontier;          /* figure on the frontier's other axis (NULL: a p99 chosen by the plan) */
    uint32_t replications;   /* to start each point with, >= 2 */
    uint32_t max_replications;
    bool grid;               /* evaluate every point */

    /* Filled by fs_plan_search. */
    fs_plan_point *evaluated;
    size_t n_evaluated;
    size_t best;             /* index into evaluated, SIZE_MAX: nothing meets */
    uint64_t runs;           /* simulations the plan needed (sum of replications judged) */
    char *minimize_metric;   /* the figures' resolved names */
    char *frontier_metric;   /* NULL when the scenario has no service */
    size_t *front;           /* indices into evaluated: the Pareto frontier, cheapest first */
    size_t n_front;
} fs_plan;

/* Searches; plan's inputs set, its outputs zeroed.  FS_OK, or FS_ERR_INPUT
 * (a constraint naming no figure) / what evaluate returned. */
int fs_plan_search(fs_plan *plan, fs_plan_evaluate evaluate, void *ctx, fs_error *err);

/* Value and CI of a figure of an evaluated point (NaN when it lacks it). */
double fs_plan_value(const fs_plan_point *p, const char *metric, double *ci95);

void fs_plan_fini(fs_plan *plan);

#endif

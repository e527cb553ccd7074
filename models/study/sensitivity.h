/*
 * sensitivity — which inputs of a scenario move a figure most: each input
 * varied one at a time, low and high around the scenario as written (the
 * base point), with common random numbers, ranked by the size of its effect.
 *
 * The design has 1 + 2n points: point 0 is the base (every input at its
 * value), point 1 + 2i input i at its low value and 2 + 2i at its high
 * value, the others at base (fs_sensitivity_point).  Every point is run for the same
 * replications, and replication r of every point sees the same random
 * streams (common random numbers), so the difference between two points in
 * replication r is the difference the input makes, not luck: per input,
 *
 *   effect    = metric(high) - metric(low)    paired by replication,
 *   swing_low = metric(low)  - metric(base),  swing_high = metric(high) - metric(base),
 *
 * each a mean over replications with a 95% Student t interval of the paired
 * differences.  Inputs are ranked by |effect|; an input whose effect's
 * interval holds 0 is not distinguishable from noise.  The elasticity is the
 * effect relative to the base figure over the change relative to the input's
 * base value: (effect / metric(base)) / ((high - low) / base), defined when
 * both denominators are non-zero.  A replication where the metric has no
 * data (NaN: a latency with no completion) is left out of every pair it is
 * in; a figure with no replication left is "no data" (NaN), never 0.
 *
 * The figures come from an evaluate callback (point, replication -> value),
 * so the computation is tested without the simulator; fs_sensitivity_design turns
 * the design into one zipped sweep dimension (sweep.h) for the real thing.
 *
 * Ownership: fs_sensitivity owns its inputs and their paths; fs_sensitivity_fini frees.
 */
#ifndef FS_SENSITIVITY_H
#define FS_SENSITIVITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "sweep.h"

struct json_t;

#define FS_SENSITIVITY_SCHEMA "fleetsim-sensitivity/1"
/* A design of more inputs is more than one-at-a-time means (and the
 * sweep's zipped dimension keeps every path in each label). */
#define FS_SENSITIVITY_MAX_INPUTS 200

typedef enum fs_sensitivity_level {
    FS_SENSITIVITY_LOW = 0,
    FS_SENSITIVITY_BASE = 1,
    FS_SENSITIVITY_HIGH = 2
} fs_sensitivity_level;

/* A mean over replications: mean NaN when none had data, ci95 NaN when
 * fewer than two did. */
typedef struct fs_sensitivity_stat {
    double mean;
    double ci95;
    uint32_t n;
} fs_sensitivity_stat;

typedef struct fs_sensitivity_input {
    char *path;
    double value[3];          /* the input at low, base, high */
    bool integer;             /* written as JSON integers */
    /* Filled by fs_sensitivity_compute. */
    fs_sensitivity_stat at[3];       /* the metric at low, base, high */
    fs_sensitivity_stat effect;      /* high - low */
    fs_sensitivity_stat swing[2];    /* low - base, high - base */
    double elasticity;        /* NaN when undefined */
    bool noise;               /* the effect's interval holds 0 (or there is none) */
    size_t rank;              /* 1: largest |effect|; inputs with no effect last */
} fs_sensitivity_input;

typedef struct fs_sensitivity {
    fs_sensitivity_input *inputs;
    size_t n_inputs;
    uint32_t replications;    /* >= 1; intervals need >= 2 */
} fs_sensitivity;

/* Adds an input varied from low to high around base.  FS_ERR_INPUT for a
 * path already varied, low equal to high, a value that is not finite, or
 * more than FS_SENSITIVITY_MAX_INPUTS inputs. */
int fs_sensitivity_add(fs_sensitivity *s, const char *path, double low, double base, double high, bool integer,
                       fs_error *err);

/* "PATH=LOW..HIGH" or "PATH=LOW,HIGH": an input whose base is its value in
 * sw's document, which must be a number or a duration ("80ms"; LOW and HIGH
 * may then be durations too).  A duration, or an integer varied to a
 * fraction, becomes a JSON real (seconds) of its base value in sw's
 * document, so the design can edit it.  FS_ERR_INPUT naming the path. */
int fs_sensitivity_add_spec(fs_sensitivity *s, fs_sweep *sw, const char *spec, fs_error *err);

/* "PATH±P%" (or "PATH+-P%"): every numeric leaf under the object (or the
 * list of named objects: "services") at PATH,
 * varied by P% around its value (0 < P < 100).  It descends into objects
 * and into lists of named objects ([name]); numbers in other lists (a
 * diurnal profile) are left alone, as are zeros (no relative change),
 * booleans, strings other than durations, clock times ("09:00") and paths
 * already varied; durations vary in seconds as fs_sensitivity_add_spec's.  Integers are rounded to
 * the nearest integer, and one whose rounded low and high both equal it
 * is left alone.  *skipped counts the leaves left alone for rounding.
 * FS_ERR_INPUT naming the path when it is neither or holds no leaf to
 * vary. */
int fs_sensitivity_add_all(fs_sensitivity *s, fs_sweep *sw, const char *spec, size_t *skipped, fs_error *err);

/* Points of the design, and the point of input i at a level. */
size_t fs_sensitivity_n_points(const fs_sensitivity *s);
size_t fs_sensitivity_point(size_t input, fs_sensitivity_level level);

/* The input and level of a point (the base point: input SIZE_MAX). */
void fs_sensitivity_which(size_t point, size_t *input, fs_sensitivity_level *level);

/* Adds the design to sw as one zipped dimension (its points numbered as
 * above).  FS_ERR_INPUT for no input or a path sw already varies. */
int fs_sensitivity_design(const fs_sensitivity *s, fs_sweep *sw, fs_error *err);

/* The metric in replication rep of point into *value (NaN: no data).
 * FS_OK, or an error code with err filled, which stops the computation. */
typedef int (*fs_sensitivity_evaluate)(void *ctx, size_t point, uint32_t rep, double *value, fs_error *err);

/* Evaluates every (point, replication) once and fills the inputs' figures
 * and ranks.  FS_OK or what evaluate returned. */
int fs_sensitivity_compute(fs_sensitivity *s, fs_sensitivity_evaluate evaluate, void *ctx, fs_error *err);

/* The inputs' indices in rank order, into order[n_inputs]. */
void fs_sensitivity_order(const fs_sensitivity *s, size_t *order);

/* The result document (schema FS_SENSITIVITY_SCHEMA), inputs in rank order; the
 * other fields as given.  New reference, NULL when out of memory. */
struct json_t *fs_sensitivity_to_json(const fs_sensitivity *s, const char *scenario, const char *metric,
                                      const char *policy, uint64_t seed);

void fs_sensitivity_fini(fs_sensitivity *s);

#endif

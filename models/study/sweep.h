/*
 * sweep — a study over a scenario: the parameters varied, its points, and
 * each (point, replication) run.
 *
 * A sweep names a scenario document and dimensions, each a JSON path into it
 * (`policies.shared.pools[0].gpus`, `services[chat].replicas.max`: an index,
 * or the element whose "name" is given) with a list of values or a numeric
 * range, plus the pseudo-path "policy" whose values are policy names.  A
 * zipped dimension sets several paths together, one coordinate per list of
 * values (one value per path): a prefill:decode ratio at a fixed GPU count
 * is {"paths": ["policies.disagg.services.chat.disaggregation.prefill.replicas",
 * "policies.disagg.services.chat.replicas"], "values": [[1, 7], [2, 6], [3, 5]]},
 * three points where a product of two dimensions would give nine.  It is
 * named by its paths joined by "/" and labelled by its values joined by "/"
 * ("1/7"); it is a list, never an ordered range.  A scenario with several
 * policies and no "policy" dimension gets one with every policy.  Points
 * are the cartesian product, numbered row-major (the first dimension varies
 * slowest); each is run `replications` times.
 *
 * Every run is an independent unit, named by (point, replication): it edits
 * a copy of the document, parses it and runs that replication of the chosen
 * policy (run.h), so runs spread over threads, processes and machines in any
 * order and give the same bytes.  Its seed derives from (base seed, point,
 * replication): with common random numbers (the default) the point leaves
 * the streams unchanged, so every point sees the same arrivals and jobs and
 * differences between points are differences of the fleet, not of luck;
 * without, the point's label is hashed into the seed.
 *
 * The sweep file (schema "fleetsim-sweep/1"):
 *   {"schema": "fleetsim-sweep/1", "scenario": "x.json" or {document},
 *    "vary": [{"path": P, "values": [...]} or {"path": P, "from": A, "to": B,
 *              "step": S} or {"paths": [P, Q], "values": [[p1, q1], ...]}, ...],
 *    "set": {P: value, ...}, "replications": R, "seed": N,
 *    "common_random_numbers": true}
 * fs_sweep_to_json writes the resolved form (document inline) that shards
 * and merges read back; its fingerprint covers everything that changes a
 * run's figures (not the replication count: more replications extend a sweep).
 *
 * Ownership: fs_sweep owns its document, dimensions and names;
 * fs_sweep_destroy frees them.  Run functions take a caller-owned working
 * copy of the document (fs_sweep_work_doc), one per thread.
 */
#ifndef FS_SWEEP_H
#define FS_SWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "metrics.h"

struct json_t;

#define FS_SWEEP_SCHEMA "fleetsim-sweep/1"
#define FS_SWEEP_POLICY_PATH "policy"
#define FS_SWEEP_MAX_DIMS 64 /* callers may keep coordinates on the stack */
/* A grid is run (or, by plan, searched) point by point, and each point and
 * each run holds memory of its own: a million points, or a million runs of
 * seconds each (days of machine time), is more than a study means, and both
 * bounds keep every count and allocation size far from overflowing. */
#define FS_SWEEP_MAX_POINTS 1000000
#define FS_SWEEP_MAX_RUNS 1000000

typedef struct fs_sweep_dim {
    char *path;             /* its name: the path, or a zipped dimension's paths joined by "/" */
    char **paths;           /* a zipped dimension's paths (n_paths >= 1); NULL for one path */
    size_t n_paths;
    struct json_t *values;  /* array, >= 1 element; a zipped one's are arrays of n_paths values */
    char **labels;          /* each value as text (strings unquoted; a zipped one's joined by "/") */
    bool range;             /* given as from/to/step: ordered, capacity grows along it */
} fs_sweep_dim;

typedef struct fs_sweep {
    char *origin;           /* the sweep file, or what built it; for messages */
    char *scenario_origin;  /* the scenario's file: messages and relative calibration files */
    struct json_t *doc;     /* the scenario document with "set" applied */
    struct json_t *set;     /* object: path -> value, as given */
    fs_sweep_dim *dims;
    size_t n_dims;
    char **policies;        /* the scenario's policy names, document order */
    size_t n_policies;
    uint32_t replications;
    uint64_t seed;
    bool common_random_numbers;
    size_t n_points;
    char fingerprint[17];   /* 16 hex digits */
    bool trusted;           /* read from a resolved form: not parsed again */
} fs_sweep;

/* An empty sweep of the scenario file at path (no dimensions yet).
 * FS_OK, FS_ERR_INPUT (unreadable or invalid scenario) or FS_ERR_RUNTIME. */
int fs_sweep_create(const char *scenario_path, fs_sweep **out, fs_error *err);

/* Fixes path to value in every point (value borrowed).  FS_ERR_INPUT for a
 * path the document lacks. */
int fs_sweep_set(fs_sweep *sw, const char *path, struct json_t *value, fs_error *err);

/* The document's value at path (borrowed; the document with "set"
 * applied), or NULL with FS_ERR_INPUT naming the step that leads nowhere. */
const struct json_t *fs_sweep_get(const fs_sweep *sw, const char *path, fs_error *err);

/* Adds a dimension; values is stolen (an array).  FS_ERR_INPUT for a bad
 * path, an empty list, or a path already varied. */
int fs_sweep_add_dim(fs_sweep *sw, const char *path, struct json_t *values, bool range, fs_error *err);

/* Adds a zipped dimension: paths[n_paths] (n_paths >= 1) set together, each
 * of values (stolen, an array) a list of n_paths values, one per path.
 * FS_ERR_INPUT for a bad or repeated path, "policy" among them, an empty
 * list, or a value that is not a list of n_paths values. */
int fs_sweep_add_zipped_dim(fs_sweep *sw, const char *const *paths, size_t n_paths, struct json_t *values,
                            fs_error *err);

/* Parses "A..B" or "A..B:STEP" (a range) or "v1,v2,..." or a JSON array
 * "[v1, v2]" (a list; items that are not JSON are strings) into *values.
 * FS_ERR_INPUT with what was expected. */
int fs_sweep_parse_values(const char *text, struct json_t **values, bool *range, fs_error *err);

/* Adds the policy dimension if needed, checks every point's scenario parses
 * (FS_ERR_INPUT naming the point), counts points and fingerprints.  A grid
 * of more than FS_SWEEP_MAX_POINTS points is FS_ERR_INPUT with its size. */
int fs_sweep_finish(fs_sweep *sw, fs_error *err);

/* FS_OK when every point run `replications` times stays within
 * FS_SWEEP_MAX_RUNS, else FS_ERR_INPUT with the count. */
int fs_sweep_check_runs(const fs_sweep *sw, uint32_t replications, fs_error *err);

/* A sweep file, or its resolved form.  FS_OK, FS_ERR_INPUT, FS_ERR_RUNTIME. */
int fs_sweep_load(const char *path, fs_sweep **out, fs_error *err);
int fs_sweep_from_json(const struct json_t *root, const char *origin, const char *base_dir, fs_sweep **out,
                       fs_error *err);

/* The resolved form (new reference; NULL when out of memory). */
struct json_t *fs_sweep_to_json(const fs_sweep *sw);

void fs_sweep_destroy(fs_sweep *sw);

/* Value index of each dimension at a point (coords has n_dims entries). */
void fs_sweep_coords(const fs_sweep *sw, size_t point, size_t *coords);

/* The point at the given coordinates. */
size_t fs_sweep_point_at(const fs_sweep *sw, const size_t *coords);

/* "path=value, path=value" for messages. */
void fs_sweep_point_label(const fs_sweep *sw, size_t point, char *buf, size_t size);

/* The seed of every replication of a point (the streams of replication r
 * are keyed by (seed, r)). */
uint64_t fs_sweep_point_seed(const fs_sweep *sw, size_t point);

/* A working copy of the document for one thread; json_decref it. */
struct json_t *fs_sweep_work_doc(const fs_sweep *sw);

/* Runs replication rep of point into *out (a point whose replicas fit
 * nowhere is recorded as refused, not an error).  FS_OK, or FS_ERR_INPUT /
 * FS_ERR_RUNTIME with err filled. */
int fs_sweep_run(const fs_sweep *sw, struct json_t *work_doc, size_t point, uint32_t rep, fs_metrics *out,
                 fs_error *err);

#endif

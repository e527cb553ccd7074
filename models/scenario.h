/*
 * scenario — the scenario file: parsed, validated, immutable.
 *
 * A scenario is a JSON document (schema "fleetsim/1") that describes a fleet
 * (pools of GPUs), the inference services placed on it, and how to run it
 * (horizon, warm-up, window, seed, replications).  This module turns the file
 * into an fs_scenario or an error that names the file and either
 * file:line:column (malformed JSON) or the JSON path and what was expected
 * (`services[2].slo.p99_ms: expected a positive number, got -5`).  Unknown
 * keys are refused with the closest valid key, so a typo is never ignored.
 *
 * Durations are accepted as strings ("7d", "90m", "250ms", "1h30m",
 * "2d 09:30") or as plain JSON numbers meaning seconds; every time stored
 * here is in seconds.
 *
 * Ownership: fs_scenario_load/parse allocate the whole scenario; the caller
 * releases it with fs_scenario_destroy.  Nothing in it is shared.
 */
#ifndef FS_SCENARIO_H
#define FS_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dist.h"
#include "error.h"

#define FS_SCENARIO_SCHEMA "fleetsim/1"
#define FS_QUEUE_UNLIMITED UINT64_MAX
#define FS_SLO_MAX_TARGETS 5

typedef struct fs_burst {
    double at_s;        /* start, from t = 0 */
    double duration_s;  /* > 0 */
    double multiplier;  /* > 0; overlapping bursts multiply */
} fs_burst;

typedef struct fs_arrivals {
    double base_rps;      /* >= 0 */
    double weekday[24];   /* hourly multipliers on Monday..Friday (all 1 when no profile) */
    double weekend[24];   /* hourly multipliers on Saturday, Sunday */
    fs_burst *bursts;     /* sorted by at_s */
    size_t n_bursts;
} fs_arrivals;

typedef struct fs_slo_target {
    double quantile;      /* 0.5, 0.9, 0.95, 0.99 or 0.999 */
    double threshold_s;   /* > 0 */
} fs_slo_target;

typedef struct fs_slo {
    fs_slo_target targets[FS_SLO_MAX_TARGETS];
    size_t n_targets;     /* 0: no SLO */
    double window_s;      /* breach-counting window; defaults to the scenario window */
} fs_slo;

typedef struct fs_pool_spec {
    char *name;
    char *gpu;            /* a GPU type from the catalog (gpu.h) */
    uint32_t gpus;        /* >= 1 */
} fs_pool_spec;

typedef struct fs_service_spec {
    char *name;
    char *tenant;         /* defaults to the service name */
    size_t pool;          /* index into fs_scenario.pools */
    fs_arrivals arrivals;
    fs_dist service_time; /* seconds */
    uint32_t replicas;    /* >= 1 whole GPUs, one replica each */
    uint32_t concurrency; /* >= 1 requests served at once per replica */
    uint64_t queue_limit; /* waiting requests beyond it are dropped; FS_QUEUE_UNLIMITED */
    fs_slo slo;
} fs_service_spec;

typedef struct fs_scenario {
    char *path;           /* as given to fs_scenario_load, or the name given to parse */
    char *name;           /* "name", defaults to the file's base name without .json */
    char *description;    /* optional, "" when absent */
    double horizon_s;     /* total simulated time, > 0 */
    double warmup_s;      /* [0, horizon): statistics cover [warmup, horizon] */
    double window_s;      /* time-series window, default 300 */
    uint64_t seed;        /* default 1 */
    uint32_t replications;/* default 1 */
    int start_weekday;    /* day of week at t = 0: 0 = Monday .. 6 = Sunday (default 0) */
    fs_pool_spec *pools;
    size_t n_pools;
    fs_service_spec *services;
    size_t n_services;
} fs_scenario;

/* Reads and validates a scenario file.  Returns FS_OK and *out, or
 * FS_ERR_INPUT (cannot read the file, bad JSON, bad values, unknown keys) /
 * FS_ERR_RUNTIME (out of memory) with err filled and *out untouched. */
int fs_scenario_load(const char *path, fs_scenario **out, fs_error *err);

/* The same from a string; `origin` names it in error messages. */
int fs_scenario_parse(const char *text, const char *origin, fs_scenario **out, fs_error *err);

void fs_scenario_destroy(fs_scenario *s);

/* Applies command-line overrides (a negative / zero value means "keep") and
 * re-checks what they affect (warm-up must stay below the horizon). */
int fs_scenario_override(fs_scenario *s, int64_t seed, int64_t replications, double horizon_s,
                         fs_error *err);

#endif

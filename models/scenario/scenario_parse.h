/*
 * scenario_parse — private to the scenario loader: only the .c files of
 * models/scenario include it.
 *
 * The loader reads the document one section per file (README.md lists them).
 * scenario.c reads the root and calls each section's reader in a fixed order;
 * errors come out in that order, so a document with two mistakes always names
 * the same one.  This header holds what the files share: the parse context,
 * the typed field readers of scenario_values.c, the file reading of
 * scenario.c, and each section's entry point.  A helper only one file uses
 * stays static there.
 *
 * Conventions are jsonpath.h's: every reader takes the fs_jpath cursor, puts
 * the JSON path of what it blames in the message, and returns FS_OK or an
 * FS_ERR_* code with the cursor's fs_error filled.  What a reader allocates it
 * hangs on the scenario at once, so fs_scenario_destroy frees a half-read one.
 */
#ifndef FS_SCENARIO_PARSE_H
#define FS_SCENARIO_PARSE_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "jsonpath.h"
#include "scenario.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* What parsing one variant (one policy's fleet) carries besides the
 * scenario: the GPU types declared under "gpus", validated before any pool
 * so that pools and services can name them, and the room in s->gpu_types.
 * It lives on parse_variant's stack (scenario.c) for one variant.  It owns
 * the arrays `declared` and `declared_cal` (freed by parse_variant); it
 * borrows s, the JSON values (`declared_cal`'s entries, `fleet`: the
 * document outlives the parse) and `policy`. */
typedef struct parse_ctx {
    fs_scenario *s;
    fs_gpu_type *declared; /* "gpus" members in document order, overrides applied */
    const json_t **declared_cal; /* [n_declared]: each one's "calibration" or NULL */
    size_t n_declared;
    size_t gpu_types_cap; /* n_declared + catalog size: enough for every type once */
    const json_t *fleet;   /* the object holding this variant's "pools": the root or a policy */
    const char *policy;    /* NULL for the top-level "pools", else the policy's name */
} parse_ctx;

/* ---- scenario_values.c: strings, choices, booleans, distributions ------- */

/* A malloc'd copy of s, or NULL (never strdup: see the definition). */
char *fs__scenario_dup_str(const char *s);
/* *dst = a copy of src, or an out-of-memory error. */
int fs__scenario_dup_into(fs_jpath *p, char **dst, const char *src);
/* ASCII case folding and comparison, whatever the locale. */
char fs__scenario_ascii_lower(char c);
bool fs__scenario_ascii_iequal(const char *a, const char *b);
/* Refuses v as not one of names[n], giving the nearest when one is close. */
int fs__scenario_choice_error(fs_jpath *p, const json_t *v, const char *what,
                              const char *const *names, size_t n);
/* obj[key], when present, as one of names[n] (its index in *out). */
int fs__scenario_get_choice(fs_jpath *p, const json_t *obj, const char *key, const char *what,
                            const char *const *names, size_t n, int *out);
/* obj[key], when present, as true or false. */
int fs__scenario_get_bool(fs_jpath *p, const json_t *obj, const char *key, bool *out);
/* obj[key], when present, as a memory size in GiB: a JSON number of GiB, or
 * a string with its unit ("80GiB", "85.9GB": memsize.h); refused above
 * FS_SCENARIO_MAX_MEMORY_GB. */
int fs__scenario_get_memory(fs_jpath *p, const json_t *obj, const char *key, fs_jpath_sign sign, double *gib);
/* obj[key] read as fs_jpath_get_number / fs_jpath_get_duration do, and
 * refused above max with `expected at most <max> <unit> (the limit), got
 * <value>`: the scenario limits of scenario.h. */
int fs__scenario_get_capped(fs_jpath *p, const json_t *obj, const char *key, bool required,
                            fs_jpath_sign sign, double max, const char *unit, double *out);
int fs__scenario_get_capped_duration(fs_jpath *p, const json_t *obj, const char *key,
                                     bool required, fs_jpath_sign sign, double max,
                                     double *out);
/* The same, refused also below min with `expected at least <min> <unit>
 * (the limit)`; the duration form is for periods (positive, no maximum). */
int fs__scenario_get_bounded(fs_jpath *p, const json_t *obj, const char *key, bool required,
                             fs_jpath_sign sign, double min, double max, const char *unit,
                             double *out);
int fs__scenario_get_floored_duration(fs_jpath *p, const json_t *obj, const char *key,
                                      bool required, double min, double *out);
/* The value at the cursor, already read into x, refused above max the same way. */
int fs__scenario_cap(fs_jpath *p, const json_t *v, double x, double max, const char *unit);
/* parent[member] as a distribution object ({"lognormal": {...}}). */
int fs__scenario_parse_dist(fs_jpath *p, const json_t *parent, const char *member, bool required,
                            fs_dist *d);
/* The same with plain numbers for parameters (token counts: "median": 600)
 * and "samples" for the empirical kind. */
int fs__scenario_parse_count_dist(fs_jpath *p, const json_t *parent, const char *member, bool required,
                                  fs_dist *d);

/* ---- scenario.c: files and arrays ---------------------------------------- */

/* root[key], a required array, each element read by parse_one. */
int fs__scenario_parse_array_of(fs_jpath *p, const json_t *root, const char *key, parse_ctx *c,
                                int (*parse_one)(fs_jpath *, const json_t *, size_t,
                                                 parse_ctx *));
/* name resolved against origin's directory; NULL when out of memory. */
char *fs__scenario_relative_path(const char *origin, const char *name);
/* The whole file at path (caller frees *text). */
int fs__scenario_read_file(const char *path, char **text, size_t *len, fs_error *err);
/* jansson's parse of len bytes, duplicate keys refused. */
int fs__scenario_load_json(const char *text, size_t len, const char *origin, json_t **out,
                           fs_error *err);

/* ---- each section's reader, in the order scenario.c calls them ----------- */

/* scenario_run.c: horizon, warmup, window, seed, replications,
 * start_weekday, ci. */
int fs__scenario_parse_run(fs_jpath *p, const json_t *root, fs_scenario *s);

/* scenario_run.c, once the services are read: the scenario's "window" (when
 * written) and every SLO window must fit horizon - warm-up, and not cut it
 * into more than FS_SCENARIO_MAX_WINDOWS. */
int fs__scenario_check_windows(fs_jpath *p, const json_t *root, const fs_scenario *s);

/* scenario_gpus.c: "gpus" into c->declared; GPU names looked up and placed
 * in s->gpu_types (SIZE_MAX: no such type); obj[key] as a GPU type. */
int fs__scenario_parse_gpu_types(fs_jpath *p, const json_t *root, parse_ctx *c);
size_t fs__scenario_gpu_type_index(parse_ctx *c, const char *name);
int fs__scenario_parse_gpu_ref(fs_jpath *p, parse_ctx *c, const json_t *obj, const char *key,
                               bool required, size_t *index, const char **name);

/* scenario_regions.c: the region list (scenario.h), read before the pools
 * from the whole document (root: "regions", the services, every policy's
 * pools, the training streams). */
int fs__scenario_parse_regions(fs_jpath *p, const json_t *root, fs_scenario *s);
/* obj's "region" into *out (an index into s->regions): absent, "default"
 * (dflt) or SIZE_MAX; one the list lacks is refused with the list. */
int fs__scenario_region_ref(fs_jpath *p, const json_t *obj, const fs_scenario *s, bool dflt, size_t *out);
/* A service's pool (and decode pool) must be in its region; the cursor on
 * the service. */
int fs__scenario_check_service_region(fs_jpath *p, const parse_ctx *c, const fs_service_spec *out);
/* A training stream's "region": daily_at times to UTC, the submit shape's offset. */
int fs__scenario_training_region(fs_jpath *p, const json_t *job, const fs_scenario *s, fs_training_spec *out);
/* Every service's "spill", once all are read (the cursor at the root). */
int fs__scenario_parse_spills(fs_jpath *p, const json_t *root, parse_ctx *c);

/* scenario_pools.c: pools[index]. */
int fs__scenario_parse_pool(fs_jpath *p, const json_t *pool, size_t index, parse_ctx *c);
/* scenario_pools.c: a "mig" array (the cursor on it) placed on one GPU of
 * type gpu.  scenario_mig.c: "mig" as an object of named layouts (the
 * cursor on it) into out->mig_plan, out->mig its start layout; once the
 * pool is read (the cursor on it), a pool with several layouts refused
 * "autoscale" and "reclaim_per_hour"; and the plan freed. */
int fs__scenario_parse_mig_layout(fs_jpath *p, const json_t *list, const fs_gpu_type *gpu, fs_mig_layout *out);
int fs__scenario_parse_mig_plan(fs_jpath *p, const json_t *obj, const fs_gpu_type *gpu, fs_pool_spec *out);
int fs__scenario_check_mig_pool(fs_jpath *p, const json_t *pool, const fs_pool_spec *spec);
void fs__scenario_free_mig_plan(fs_mig_plan *plan);

/* scenario_services.c: services[index]; scenario_arrivals.c: its
 * "arrivals", and a "trace" object (also a training stream's). */
int fs__scenario_parse_service(fs_jpath *p, const json_t *svc, size_t index, parse_ctx *c);
/* services[i].batching (scenario_batching.c); after "replicas" and
 * "arrivals", which it checks against. */
int fs__scenario_parse_batching(fs_jpath *p, const json_t *svc, const parse_ctx *c, fs_service_spec *out);
/* ---- scenario_llm.c ------------------------------------------------------- */
/* "batching": {"kind": "continuous", ...}, the cursor on "batching". */
int fs__scenario_parse_continuous(fs_jpath *p, const json_t *obj, const parse_ctx *c, fs_service_spec *out);
/* Once the service's pool, reference GPU and memory are known, and every GPU
 * type its calibration profile (parse_fields calls it last; the cursor on
 * services[index]): a "profile" step time maps onto the model on each type
 * it runs on; every unit kind of its pool holds the model and one request;
 * service_time set to the capacity estimate. */
int fs__scenario_check_continuous(fs_jpath *p, size_t index, fs_scenario *s);
int fs__scenario_parse_arrivals(fs_jpath *p, const json_t *svc, double horizon_s, fs_arrivals *a);
/* The shape of a rate whose base a->base_rps is set (a service's
 * poisson_rps, a training stream's poisson_per_hour / 3600), from obj's
 * "diurnal", "weekday", "weekend", "bursts", "growth", "daily_levels",
 * "mmpp", "noise" and "groups"; the cursor is on obj.  One parser for both,
 * so a job stream's profile reads as a service's does. */
int fs__scenario_parse_rate_shape(fs_jpath *p, const json_t *obj, double horizon_s, fs_arrivals *a);
/* Frees what an fs_arrivals owns (not a itself). */
void fs__scenario_free_arrivals(fs_arrivals *a);
/* The n elements of the array list (the cursor on it), each a multiplier:
 * >= 0 and at most FS_SCENARIO_MAX_MULTIPLIER (hourly profiles, daily
 * levels). */
int fs__scenario_multipliers(fs_jpath *p, const json_t *list, double *out, size_t n);
/* scenario_process.c: the keys of "arrivals" beyond the hourly Poisson rate
 * ("growth", "daily_levels", "mmpp", "noise", "groups"); the cursor on
 * "arrivals".  "mmpp" sets a->base_rps to its stationary mean. */
int fs__scenario_parse_process(fs_jpath *p, const json_t *obj, fs_arrivals *a);
/* FS_OK when the most requests a second a's arrivals may reach before
 * horizon_s (the rate, or the busiest MMPP state, x every deterministic
 * factor's peak) is within FS_SCENARIO_MAX_RATE_RPS and its growth by then
 * within FS_SCENARIO_MAX_MULTIPLIER; else FS_ERR_INPUT with why (no path)
 * written.  Parsing checks it, and so does a --horizon override, since
 * growth compounds further over a longer run. */
int fs__scenario_arrivals_bound(const fs_arrivals *a, double horizon_s, char *why, size_t size);
int fs__scenario_parse_trace_spec(fs_jpath *p, const json_t *obj, fs_trace_kind kind,
                                  fs_trace_spec **out);

/* scenario_patch.c: the document policy reads (a new reference): root
 * itself, or, when the policy has "services" or "training" (fleet is the
 * policy's object), a copy of root whose services and streams are patched
 * as it says.  Patches that name no element, are not objects, or change
 * what a policy may not are refused at policies.NAME.SECTION.ELEMENT. */
int fs__scenario_policy_doc(fs_jpath *p, const json_t *root, const json_t *fleet, const char *policy,
                            json_t **out);
/* After an error reading service svc (training stream `stream`): when c's
 * policy patched it, appends " (as patched by
 * policies.NAME.services.SERVICE)" (".training.STREAM") to the message,
 * since the bad value may be the patch's. */
void fs__scenario_blame_patch(fs_jpath *p, const json_t *svc, const parse_ctx *c);
void fs__scenario_blame_training_patch(fs_jpath *p, const json_t *stream, const parse_ctx *c);

/* scenario_release.c: a clock time "HH:MM" (before 24:00) in *out, seconds
 * after midnight, the cursor on v; and a stream's "release" window, read
 * after its "checkpoint" and "region" (needs the first, shifted by the
 * second). */
int fs__scenario_clock(fs_jpath *p, const json_t *v, double *out);
int fs__scenario_parse_release(fs_jpath *p, const json_t *job, const fs_scenario *s, fs_training_spec *out);

/* scenario_training.c: "training". */
int fs__scenario_parse_training(fs_jpath *p, const json_t *root, parse_ctx *c);

/* scenario_pipeline.c: a stream's "after" (a name, or a join's list) into
 * out->after_names; once every stream is read, the names resolved and the
 * graph checked (cycles, a join fed from two roots). */
int fs__scenario_parse_after(fs_jpath *p, const json_t *job, const json_t *after, fs_training_spec *out);
int fs__scenario_resolve_after(fs_jpath *p, fs_scenario *s);
/* scenario_pipeline.c: a deploy step (job has "deploy"): its "after" and
 * "deploy", every key that would give it GPUs of its own refused. */
int fs__scenario_parse_deploy(fs_jpath *p, const json_t *job, const fs_scenario *s, fs_training_spec *out);

/* scenario_quotas.c: "quotas" and "reserve_after", after "training": each
 * stream's tenant is given its entry (fs_training_spec.quota), refused at
 * training[i].tenant when it has none. */
int fs__scenario_parse_quotas(fs_jpath *p, const json_t *root, fs_scenario *s);
/* obj["fair_sharing"], when present (the top level's, or a policy's over
 * it): {"by": "none" | "borrowed" | "usage", "half_life": D}; refused
 * without quotas. */
int fs__scenario_parse_fair_sharing(fs_jpath *p, const json_t *obj, bool has_quotas, fs_scenario *s);

/* scenario_calibration.c: the top-level "calibration", then each GPU
 * type's over it (after every type is placed). */
int fs__scenario_parse_calibration(fs_jpath *p, const json_t *root, fs_switch_costs *sc);
int fs__scenario_parse_gpu_calibrations(fs_jpath *p, parse_ctx *c);

#endif

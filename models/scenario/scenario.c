/*
 * scenario — reading a "fleetsim/1" JSON file into an fs_scenario; see scenario.h.
 *
 * Structure: jansson parses the text (rejecting duplicate keys), then one
 * function per JSON object reads it through an fs_jpath cursor (jsonpath.h),
 * which keeps the path for messages and refuses unknown keys.  The scenario
 * is built in freshly zeroed memory and handed out only when everything,
 * cross-checks included, has passed; on any failure fs_scenario_destroy
 * frees the partial scenario, which works because every owned pointer starts
 * NULL and every count is set together with its array.
 *
 * Calibration: a "calibration" string names a second JSON file (relative to
 * the scenario's directory), read and checked here too; its errors name that
 * file and positions or paths inside it.  The top-level one gives the
 * scenario's switch costs; one on a "gpus" member gives that type's, read
 * over the scenario's, after every type has its place in s->gpu_types.
 *
 * GPU types: the "gpus" object is read first, whole, into a side table
 * (parse_ctx.declared); pools and services then name types, and each name is
 * copied into s->gpu_types on first use, from that table or the catalog.
 * Members nothing names are appended last, so a scenario lists every type it
 * declares and the order follows the document.
 */
#include "scenario.h"

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "duration.h"
#include "gpu.h"
#include "jsonpath.h"
#include "mig.h"

#define MAX_REPLICATIONS 10000
#define DEFAULT_WINDOW_S 300.0

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Time-slicing defaults: the NVIDIA driver's default time slice, and an
 * assumed order of magnitude for one context switch (not a measurement,
 * which is why a scenario can set both).  MAX_TENANTS bounds the format;
 * it is not a driver limit. */
#define DEFAULT_SLICE_S 1.024e-3
#define DEFAULT_SWITCH_OVERHEAD_S 200e-6
#define MAX_TENANTS 64
#define DEFAULT_PLACEMENT "best_fit"

/* Elastic pools: a new GPU is usable this long after it is asked for (node
 * ready ~30-40 s typical, 80-100 s observed, aws/karpenter-provider-aws#6165
 * and #3102; reference/costs.md), and goes back after this long idle. */
#define DEFAULT_PROVISION_S 90.0
#define DEFAULT_IDLE_RELEASE_S 600.0

/* Service autoscaler cadence: evaluate every 10 s, act at most once a
 * minute, give a replica back after 10 minutes of not needing it. */
#define DEFAULT_AUTOSCALE_INTERVAL_S 10.0
#define DEFAULT_AUTOSCALE_COOLDOWN_S 60.0
#define DEFAULT_AUTOSCALE_IDLE_S 600.0

/* Tiered policy: share of a serving pool kept free for bursts. */
#define DEFAULT_HEADROOM 0.4

/* The built-in calibration profile, one figure per row of
 * reference/costs.md; a "calibration" profile replaces any of them. */
#define CALIBRATION_SCHEMA "fleetsim-calibration/1"
#define DEFAULT_COSTS_SOURCE "built-in default (reference/costs.md)"
/* cuInit with persistence mode, about 0.5 s (6.56 s without): NVIDIA/nvtrust#113 */
#define DEFAULT_CONTEXT_S 0.5
/* PyTorch first use, 4.1-4.9 s, mean 4.47 s: CGCL-codes/streambox:experiment/README.md */
#define DEFAULT_FRAMEWORK_S 4.47
/* Standard loaders: OPT-30B (60 GB fp16) in 34 s, Llama-2-70B (140 GB) in
 * 84 s, both about 1.7 GB/s: ServerlessLLM, arXiv 2401.14351 */
#define DEFAULT_STORAGE_GBPS 1.7
/* H100 host-to-device, pinned, copy engine, 56.7-57.1 GB/s: NVIDIA/nvbandwidth#6 */
#define DEFAULT_H2D_GBPS 56.7
/* H100 SM copy device-to-host, 52.8 GB/s: NVIDIA/nvbandwidth#24 */
#define DEFAULT_D2H_GBPS 52.8
/* vLLM Llama-3-8B CUDA graph capture, 10 s: vllm-project/vllm#11005 */
#define DEFAULT_INFERENCE_WARMUP_S 10.0

/* What parsing carries besides the scenario: the GPU types declared under
 * "gpus", validated before any pool so that pools and services can name
 * them, and the room in s->gpu_types. */
typedef struct parse_ctx {
    fs_scenario *s;
    fs_gpu_type *declared; /* "gpus" members in document order, overrides applied */
    const json_t **declared_cal; /* [n_declared]: each one's "calibration" or NULL */
    size_t n_declared;
    size_t gpu_types_cap; /* n_declared + catalog size: enough for every type once */
    const json_t *fleet;   /* the object holding this variant's "pools": the root or a policy */
    const char *policy;    /* NULL for the top-level "pools", else the policy's name */
} parse_ctx;

/* Defined with the document-level readers below, used earlier too. */
static int parse_array_of(fs_jpath *p, const json_t *root, const char *key, parse_ctx *c,
                          int (*parse_one)(fs_jpath *, const json_t *, size_t, parse_ctx *));
static int read_file(const char *path, char **text, size_t *len, fs_error *err);
static int load_json(const char *text, size_t len, const char *origin, json_t **out,
                     fs_error *err);

/* Our own copy instead of POSIX strdup so that every allocation this module
 * makes goes through malloc/calloc, which is what fault-injection tests hook. */
static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d != NULL)
        memcpy(d, s, n);
    return d;
}

static int dup_into(fs_jpath *p, char **dst, const char *src)
{
    *dst = dup_str(src);
    return *dst == NULL ? fs_jpath_oom(p) : FS_OK;
}

/* ASCII only, unlike tolower(), so the result does not depend on the locale. */
static char ascii_lower(char c)
{
    return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

static bool ascii_iequal(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (ascii_lower(*a) != ascii_lower(*b))
            return false;
    return *a == *b;
}

/* ------------------------------------------------------------------ fields */

/* Refuses v (at the cursor) as not one of names[n], listing them and giving
 * the nearest when one is close. */
static int choice_error(fs_jpath *p, const json_t *v, const char *what, const char *const *names,
                        size_t n)
{
    char list[256], got[128];
    fs_jpath_list(names, n, list, sizeof list);
    fs_jpath_describe(v, got, sizeof got);
    const char *near = json_is_string(v) ? fs_jpath_closest(json_string_value(v), names, n) : NULL;
    if (near != NULL)
        return fs_jpath_fail(p, "expected %s (%s), got %s (did you mean \"%s\"?)", what, list, got,
                             near);
    return fs_jpath_fail(p, "expected %s (%s), got %s", what, list, got);
}

/* obj[key], when present, as one of names[n]: its index in *out. */
static int get_choice(fs_jpath *p, const json_t *obj, const char *key, const char *what,
                      const char *const *names, size_t n, int *out)
{
    json_t *v = json_object_get(obj, key);
    if (v == NULL)
        return FS_OK;
    for (size_t i = 0; json_is_string(v) && i < n; i++) {
        if (strcmp(json_string_value(v), names[i]) == 0) {
            *out = (int)i;
            return FS_OK;
        }
    }
    size_t mark = fs_jpath_push_key(p, key);
    int rc = choice_error(p, v, what, names, n);
    fs_jpath_pop(p, mark);
    return rc;
}

/* obj[key], when present, as true or false. */
static int get_bool(fs_jpath *p, const json_t *obj, const char *key, bool *out)
{
    json_t *v = json_object_get(obj, key);
    if (v == NULL)
        return FS_OK;
    if (json_is_boolean(v)) {
        *out = json_is_true(v);
        return FS_OK;
    }
    size_t mark = fs_jpath_push_key(p, key);
    int rc = fs_jpath_expected(p, v, "true or false");
    fs_jpath_pop(p, mark);
    return rc;
}

static const char *const weekday_names[] = {"monday", "tuesday",  "wednesday", "thursday",
                                            "friday", "saturday", "sunday"};

static int parse_weekday(fs_jpath *p, const json_t *root, int *out)
{
    const char *text = NULL;
    int rc = fs_jpath_get_string(p, root, "start_weekday", false, false, &text);
    if (rc != FS_OK || text == NULL)
        return rc;
    for (int d = 0; d < 7; d++) {
        char abbrev[4];
        memcpy(abbrev, weekday_names[d], 3);
        abbrev[3] = '\0';
        if (ascii_iequal(text, weekday_names[d]) || ascii_iequal(text, abbrev)) {
            *out = d;
            return FS_OK;
        }
    }
    size_t mark = fs_jpath_push_key(p, "start_weekday");
    rc = fs_jpath_expected(p, json_object_get(root, "start_weekday"),
                           "a day of the week (\"monday\"..\"sunday\" or \"mon\"..\"sun\")");
    fs_jpath_pop(p, mark);
    return rc;
}

/* Twenty-four hourly multipliers, hour 0 first. */
static int parse_profile(fs_jpath *p, const json_t *arrivals, const char *key, double out[24],
                         bool *present)
{
    json_t *v = NULL;
    int rc = fs_jpath_get(p, arrivals, key, false, &v);
    if (rc != FS_OK || v == NULL)
        return rc;
    size_t mark = fs_jpath_push_key(p, key);
    if (!json_is_array(v))
        rc = fs_jpath_expected(p, v, "an array of 24 hourly multipliers");
    else if (json_array_size(v) != 24)
        rc = fs_jpath_fail(p, "expected an array of 24 hourly multipliers, got an array of %zu",
                           json_array_size(v));
    for (size_t h = 0; rc == FS_OK && h < 24; h++) {
        size_t m = fs_jpath_push_index(p, h);
        rc = fs_jpath_number(p, json_array_get(v, h), FS_JPATH_NONNEG, &out[h]);
        fs_jpath_pop(p, m);
    }
    fs_jpath_pop(p, mark);
    if (rc == FS_OK)
        *present = true;
    return rc;
}

static int burst_cmp(const void *pa, const void *pb)
{
    const fs_burst *a = pa, *b = pb;
    /* All three fields, so equal keys are equal bursts and qsort's
     * instability cannot change the order between runs. */
    if (a->at_s != b->at_s)
        return a->at_s < b->at_s ? -1 : 1;
    if (a->duration_s != b->duration_s)
        return a->duration_s < b->duration_s ? -1 : 1;
    return (a->multiplier > b->multiplier) - (a->multiplier < b->multiplier);
}

static int parse_bursts(fs_jpath *p, const json_t *arrivals, fs_arrivals *a)
{
    static const char *const keys[] = {"at", "multiplier", "duration"};
    json_t *list = NULL;
    int rc = fs_jpath_get_array(p, arrivals, "bursts", false, false, &list);
    if (rc != FS_OK || list == NULL || json_array_size(list) == 0)
        return rc;
    size_t n = json_array_size(list);
    a->bursts = calloc(n, sizeof *a->bursts);
    if (a->bursts == NULL)
        return fs_jpath_oom(p);
    a->n_bursts = n;
    size_t mark = fs_jpath_push_key(p, "bursts");
    for (size_t i = 0; rc == FS_OK && i < n; i++) {
        json_t *b = json_array_get(list, i);
        fs_burst *out = &a->bursts[i];
        size_t m = fs_jpath_push_index(p, i);
        if (!json_is_object(b))
            rc = fs_jpath_expected(p, b, "an object {\"at\", \"multiplier\", \"duration\"}");
        if (rc == FS_OK)
            rc = fs_jpath_check_keys(p, b, keys, COUNT(keys));
        if (rc == FS_OK)
            rc = fs_jpath_get_duration(p, b, "at", true, FS_JPATH_NONNEG, &out->at_s);
        if (rc == FS_OK)
            rc = fs_jpath_get_number(p, b, "multiplier", true, FS_JPATH_POSITIVE, &out->multiplier);
        if (rc == FS_OK)
            rc = fs_jpath_get_duration(p, b, "duration", true, FS_JPATH_POSITIVE, &out->duration_s);
        fs_jpath_pop(p, m);
    }
    fs_jpath_pop(p, mark);
    if (rc == FS_OK)
        qsort(a->bursts, n, sizeof *a->bursts, burst_cmp);
    return rc;
}

/* A file named in the scenario: relative to the scenario file's directory
 * unless absolute.  NULL when out of memory. */
static char *relative_path(const char *origin, const char *name)
{
    const char *slash = strrchr(origin, '/');
    size_t dir = name[0] != '/' && slash != NULL ? (size_t)(slash - origin) + 1 : 0;
    char *path = malloc(dir + strlen(name) + 1);
    if (path == NULL)
        return NULL;
    memcpy(path, origin, dir);
    memcpy(path + dir, name, strlen(name) + 1);
    return path;
}


/* A column name read into *out (owned), if the key is there. */
static int get_column(fs_jpath *p, const json_t *obj, const char *key, char **out)
{
    const char *name = NULL;
    int rc = fs_jpath_get_string(p, obj, key, false, true, &name);
    if (rc != FS_OK || name == NULL)
        return rc;
    free(*out);
    *out = dup_str(name);
    return *out ? FS_OK : fs_jpath_oom(p);
}

/* "trace": {"file", "preset" or "time" (+ "time_format"), "sizes" / for jobs
 * "gpus", "duration" or "end", "priority", "tenant"; "rate_scale", "shift",
 * "repeat", "tolerance"}; the cursor is on it. */
static int parse_trace_spec(fs_jpath *p, const json_t *obj, fs_trace_kind kind, fs_trace_spec **out)
{
    const char *file = NULL, *preset = NULL, *format = NULL;
    int rc = fs_jpath_get_string(p, obj, "file", true, true, &file);
    if (rc == FS_OK)
        rc = fs_jpath_get_string(p, obj, "preset", false, true, &preset);
    if (rc != FS_OK)
        return rc;
    char *path = relative_path(p->origin, file);
    fs_trace_spec *spec = calloc(1, sizeof *spec);
    if (!path || !spec) {
        free(path);
        free(spec);
        return fs_jpath_oom(p);
    }
    *out = spec;
    if (preset) {
        fs_error perr = {0};
        rc = fs_trace_preset(preset, path, spec, &perr);
        if (rc != FS_OK) {
            size_t m = fs_jpath_push_key(p, "preset");
            rc = fs_jpath_fail(p, "%s", perr.msg);
            fs_jpath_pop(p, m);
        }
    } else {
        spec->path = path;
        path = NULL;
        spec->kind = kind;
        spec->rate_scale = 1;
        spec->tolerance_s = 1;
    }
    free(path);
    if (rc == FS_OK && spec->kind != kind) {
        size_t m = fs_jpath_push_key(p, "preset");
        rc = fs_jpath_fail(p, "\"%s\" is a %s trace; expected a %s trace here", preset,
                           spec->kind == FS_TRACE_JOBS ? "job" : "request", kind == FS_TRACE_JOBS ? "job" : "request");
        fs_jpath_pop(p, m);
    }
    if (rc == FS_OK)
        rc = get_column(p, obj, "time", &spec->time_col);
    if (rc == FS_OK)
        rc = fs_jpath_get_string(p, obj, "time_format", false, true, &format);
    if (rc == FS_OK && format) {
        static const char *const formats[] = {"seconds", "ms", "us", "datetime"};
        size_t k = 0;
        while (k < COUNT(formats) && strcmp(formats[k], format) != 0)
            k++;
        size_t m = fs_jpath_push_key(p, "time_format");
        if (k == COUNT(formats))
            rc = fs_jpath_fail(p, "expected one of \"seconds\", \"ms\", \"us\", \"datetime\", got \"%s\"", format);
        else
            spec->time_format = (fs_trace_time_format)k;
        fs_jpath_pop(p, m);
    }
    if (rc == FS_OK && !spec->time_col) {
        rc = fs_jpath_fail(p, "expected \"preset\" (one of the known formats) or a \"time\" column");
    }
    if (kind == FS_TRACE_REQUESTS) {
        json_t *sizes = NULL;
        if (rc == FS_OK)
            rc = fs_jpath_get_array(p, obj, "sizes", false, true, &sizes);
        if (rc == FS_OK && sizes && json_array_size(sizes) > 2) {
            size_t m = fs_jpath_push_key(p, "sizes");
            rc = fs_jpath_fail(p, "expected at most two size columns");
            fs_jpath_pop(p, m);
        }
        for (size_t k = 0; rc == FS_OK && sizes && k < json_array_size(sizes); k++) {
            size_t m = fs_jpath_push_key(p, "sizes");
            size_t mi = fs_jpath_push_index(p, k);
            const char *col = NULL;
            rc = fs_jpath_string(p, json_array_get(sizes, k), true, &col);
            if (rc == FS_OK) {
                free(spec->size_cols[k]);
                rc = (spec->size_cols[k] = dup_str(col)) ? FS_OK : fs_jpath_oom(p);
            }
            fs_jpath_pop(p, mi);
            fs_jpath_pop(p, m);
        }
    } else {
        if (rc == FS_OK)
            rc = get_column(p, obj, "gpus", &spec->gpus_col);
        if (rc == FS_OK)
            rc = get_column(p, obj, "duration", &spec->duration_col);
        if (rc == FS_OK)
            rc = get_column(p, obj, "end", &spec->end_col);
        if (rc == FS_OK)
            rc = get_column(p, obj, "priority", &spec->priority_col);
        if (rc == FS_OK)
            rc = get_column(p, obj, "tenant", &spec->tenant_col);
        if (rc == FS_OK && (!spec->gpus_col || (!spec->duration_col && !spec->end_col)))
            rc = fs_jpath_fail(p, "expected a \"preset\", or \"gpus\" and \"duration\" (or \"end\") columns");
    }
    if (rc == FS_OK)
        rc = fs_jpath_get_number(p, obj, "rate_scale", false, FS_JPATH_POSITIVE, &spec->rate_scale);
    if (rc == FS_OK)
        rc = fs_jpath_get_duration(p, obj, "shift", false, FS_JPATH_NONNEG, &spec->shift_s);
    if (rc == FS_OK)
        rc = fs_jpath_get_duration(p, obj, "tolerance", false, FS_JPATH_NONNEG, &spec->tolerance_s);
    json_t *repeat = json_object_get(obj, "repeat");
    if (rc == FS_OK && repeat) {
        size_t m = fs_jpath_push_key(p, "repeat");
        rc = json_is_boolean(repeat) ? FS_OK : fs_jpath_expected(p, repeat, "true or false");
        spec->repeat = json_is_true(repeat);
        fs_jpath_pop(p, m);
    }
    return rc;
}

/* The trace's service-time mapping, "service_time": {"base": D, "per_size": [D, D]}. */
static int parse_trace_service_time(fs_jpath *p, const json_t *obj, fs_arrivals *a)
{
    json_t *st = NULL, *per = NULL;
    int rc = fs_jpath_get_object(p, obj, "service_time", false, &st);
    if (rc != FS_OK || st == NULL)
        return rc;
    size_t m = fs_jpath_push_key(p, "service_time");
    static const char *const keys[] = {"base", "per_size"};
    rc = fs_jpath_check_keys(p, st, keys, COUNT(keys));
    if (rc == FS_OK)
        rc = fs_jpath_get_duration(p, st, "base", false, FS_JPATH_NONNEG, &a->trace_base_s);
    if (rc == FS_OK)
        rc = fs_jpath_get_array(p, st, "per_size", false, true, &per);
    for (size_t k = 0; rc == FS_OK && per && k < json_array_size(per); k++) {
        size_t mk = fs_jpath_push_key(p, "per_size");
        size_t mi = fs_jpath_push_index(p, k);
        rc = k < 2 && a->trace->size_cols[k] ? fs_jpath_duration(p, json_array_get(per, k), FS_JPATH_NONNEG,
                                                                  &a->trace_per_size_s[k])
                                              : fs_jpath_fail(p, "the trace has no size column %zu to scale", k + 1);
        fs_jpath_pop(p, mi);
        fs_jpath_pop(p, mk);
    }
    a->trace_sized = true;
    fs_jpath_pop(p, m);
    return rc;
}

static int parse_trace_arrivals(fs_jpath *p, const json_t *obj, fs_arrivals *a)
{
    static const char *const keys[] = {"file", "preset", "time", "time_format", "sizes", "rate_scale", "shift",
                                       "repeat", "tolerance", "service_time"};
    size_t m = fs_jpath_push_key(p, "trace");
    int rc = json_is_object(obj) ? fs_jpath_check_keys(p, obj, keys, COUNT(keys))
                                 : fs_jpath_expected(p, obj, "an object naming a CSV trace");
    if (rc == FS_OK)
        rc = parse_trace_spec(p, obj, FS_TRACE_REQUESTS, &a->trace);
    if (rc == FS_OK)
        rc = parse_trace_service_time(p, obj, a);
    fs_jpath_pop(p, m);
    return rc;
}

static int parse_arrivals(fs_jpath *p, const json_t *svc, fs_arrivals *a)
{
    static const char *const keys[] = {"poisson_rps", "diurnal", "weekday", "weekend", "bursts", "trace"};
    json_t *obj = NULL;
    int rc = fs_jpath_get_object(p, svc, "arrivals", true, &obj);
    if (rc != FS_OK)
        return rc;
    size_t mark = fs_jpath_push_key(p, "arrivals");
    json_t *trace = json_object_get(obj, "trace");
    if (trace) {
        rc = json_object_size(obj) == 1 ? parse_trace_arrivals(p, trace, a)
                                        : fs_jpath_fail(p, "expected \"trace\" alone: a replayed trace has no "
                                                           "poisson_rps, profile or bursts of its own");
        fs_jpath_pop(p, mark);
        for (int h = 0; h < 24; h++)
            a->weekday[h] = a->weekend[h] = 1.0;
        return rc;
    }
    double diurnal[24], weekday[24], weekend[24];
    bool has_diurnal = false, has_weekday = false, has_weekend = false;
    rc = fs_jpath_check_keys(p, obj, keys, COUNT(keys));
    if (rc == FS_OK)
        rc = fs_jpath_get_number(p, obj, "poisson_rps", true, FS_JPATH_NONNEG, &a->base_rps);
    if (rc == FS_OK)
        rc = parse_profile(p, obj, "diurnal", diurnal, &has_diurnal);
    if (rc == FS_OK)
        rc = parse_profile(p, obj, "weekday", weekday, &has_weekday);
    if (rc == FS_OK)
        rc = parse_profile(p, obj, "weekend", weekend, &has_weekend);
    if (rc == FS_OK)
        rc = parse_bursts(p, obj, a);
    fs_jpath_pop(p, mark);
    if (rc != FS_OK)
        return rc;
    for (int h = 0; h < 24; h++) {
        a->weekday[h] = has_weekday ? weekday[h] : has_diurnal ? diurnal[h] : 1.0;
        a->weekend[h] = has_weekend ? weekend[h] : has_diurnal ? diurnal[h] : 1.0;
    }
    return FS_OK;
}

/* ----------------------------------------------------------- service time */

static const char *const dist_kinds[] = {"exponential", "deterministic", "lognormal",
                                         "gamma",       "uniform",       "empirical"};

static int parse_empirical(fs_jpath *p, const json_t *params, fs_dist *d)
{
    json_t *list = NULL;
    int rc = fs_jpath_get_array(p, params, "samples_ms", true, true, &list);
    if (rc != FS_OK)
        return rc;
    size_t n = json_array_size(list);
    double *samples = malloc(n * sizeof *samples);
    if (samples == NULL)
        return fs_jpath_oom(p);
    size_t mark = fs_jpath_push_key(p, "samples_ms");
    for (size_t i = 0; rc == FS_OK && i < n; i++) {
        size_t m = fs_jpath_push_index(p, i);
        rc = fs_jpath_number(p, json_array_get(list, i), FS_JPATH_NONNEG, &samples[i]);
        if (rc == FS_OK)
            samples[i] /= 1000.0;
        fs_jpath_pop(p, m);
    }
    fs_jpath_pop(p, mark);
    if (rc == FS_OK) {
        int e = fs_dist_empirical(d, samples, n);
        if (e == ENOMEM)
            rc = fs_jpath_oom(p);
        else if (e != 0)
            rc = fs_jpath_fail(p, "invalid empirical distribution (%zu samples)", n);
    }
    free(samples);
    return rc;
}

/* Reads the one distribution in params (the object under the kind's key).
 * The getters already refuse out-of-range parameters with a message naming
 * the field; a constructor's own refusal is reported too, in case dist.c is
 * stricter than what is checked here. */
static int parse_dist_params(fs_jpath *p, const char *kind, const json_t *params, fs_dist *d)
{
    static const char *const k_exp[] = {"mean"}, *const k_det[] = {"value"},
                             *const k_logn[] = {"median", "sigma"},
                             *const k_gamma[] = {"mean", "cv"}, *const k_unif[] = {"min", "max"},
                             *const k_emp[] = {"samples_ms"};
    double a = 0, b = 0;
    int rc, e;
    if (strcmp(kind, "exponential") == 0) {
        rc = fs_jpath_check_keys(p, params, k_exp, COUNT(k_exp));
        if (rc == FS_OK)
            rc = fs_jpath_get_duration(p, params, "mean", true, FS_JPATH_POSITIVE, &a);
        e = rc == FS_OK ? fs_dist_exponential(d, a) : 0;
    } else if (strcmp(kind, "deterministic") == 0) {
        rc = fs_jpath_check_keys(p, params, k_det, COUNT(k_det));
        if (rc == FS_OK)
            rc = fs_jpath_get_duration(p, params, "value", true, FS_JPATH_NONNEG, &a);
        e = rc == FS_OK ? fs_dist_deterministic(d, a) : 0;
    } else if (strcmp(kind, "lognormal") == 0) {
        rc = fs_jpath_check_keys(p, params, k_logn, COUNT(k_logn));
        if (rc == FS_OK)
            rc = fs_jpath_get_duration(p, params, "median", true, FS_JPATH_POSITIVE, &a);
        if (rc == FS_OK)
            rc = fs_jpath_get_number(p, params, "sigma", true, FS_JPATH_NONNEG, &b);
        e = rc == FS_OK ? fs_dist_lognormal(d, a, b) : 0;
    } else if (strcmp(kind, "gamma") == 0) {
        rc = fs_jpath_check_keys(p, params, k_gamma, COUNT(k_gamma));
        if (rc == FS_OK)
            rc = fs_jpath_get_duration(p, params, "mean", true, FS_JPATH_POSITIVE, &a);
        if (rc == FS_OK)
            rc = fs_jpath_get_number(p, params, "cv", true, FS_JPATH_POSITIVE, &b);
        e = rc == FS_OK ? fs_dist_gamma(d, a, b) : 0;
    } else if (strcmp(kind, "uniform") == 0) {
        rc = fs_jpath_check_keys(p, params, k_unif, COUNT(k_unif));
        if (rc == FS_OK)
            rc = fs_jpath_get_duration(p, params, "min", true, FS_JPATH_NONNEG, &a);
        if (rc == FS_OK)
            rc = fs_jpath_get_duration(p, params, "max", true, FS_JPATH_NONNEG, &b);
        if (rc == FS_OK && b < a) {
            char min_text[64];
            fs_duration_format(a, min_text, sizeof min_text);
            size_t m = fs_jpath_push_key(p, "max");
            rc = fs_jpath_expected(p, json_object_get(params, "max"),
                                   "a duration no shorter than min (%s)", min_text);
            fs_jpath_pop(p, m);
        }
        e = rc == FS_OK ? fs_dist_uniform(d, a, b) : 0;
    } else {
        assert(strcmp(kind, "empirical") == 0);
        rc = fs_jpath_check_keys(p, params, k_emp, COUNT(k_emp));
        return rc == FS_OK ? parse_empirical(p, params, d) : rc;
    }
    if (rc == FS_OK && e == ENOMEM)
        return fs_jpath_oom(p);
    if (rc == FS_OK && e != 0)
        return fs_jpath_fail(p, "invalid %s distribution parameters (%g, %g)", kind, a, b);
    return rc;
}

/* parent[member] as a distribution object with exactly one kind ({"lognormal":
 * {...}}): the syntax of "service_time", also used for a pool's
 * "provision" delay.  An absent optional key leaves *d as it was. */
static int parse_dist(fs_jpath *p, const json_t *parent, const char *member, bool required,
                      fs_dist *d)
{
    json_t *obj = NULL;
    int rc = fs_jpath_get_object(p, parent, member, required, &obj);
    if (rc != FS_OK || obj == NULL)
        return rc;
    char kinds[256];
    fs_jpath_list(dist_kinds, COUNT(dist_kinds), kinds, sizeof kinds);
    size_t mark = fs_jpath_push_key(p, member);
    if (json_object_size(obj) == 0)
        rc = fs_jpath_expected(p, obj, "an object with one distribution (%s)", kinds);
    if (rc == FS_OK)
        rc = fs_jpath_check_keys(p, obj, dist_kinds, COUNT(dist_kinds));
    if (rc == FS_OK && json_object_size(obj) > 1) {
        const char *names[COUNT(dist_kinds)];
        size_t n = 0;
        const char *key;
        json_t *value;
        json_object_foreach (obj, key, value) {
            (void)value;
            names[n++] = key; /* check_keys passed and keys are unique: n <= 6 */
        }
        char given[256];
        fs_jpath_list(names, n, given, sizeof given);
        rc = fs_jpath_fail(p, "expected exactly one distribution, got %zu (%s)", n, given);
    }
    if (rc == FS_OK) {
        const char *kind = json_object_iter_key(json_object_iter(obj));
        json_t *params = json_object_get(obj, kind);
        size_t m = fs_jpath_push_key(p, kind);
        if (!json_is_object(params))
            rc = fs_jpath_expected(p, params, "an object with the %s distribution's parameters",
                                   kind);
        else
            rc = parse_dist_params(p, kind, params, d);
        fs_jpath_pop(p, m);
    }
    fs_jpath_pop(p, mark);
    return rc;
}

static int parse_service_time(fs_jpath *p, const json_t *svc, fs_dist *d)
{
    return parse_dist(p, svc, "service_time", true, d);
}

/* -------------------------------------------------------------- GPU types */

/* "calibration" is read after the types are placed (parse_gpu_calibrations). */
static const char *const gpu_keys[] = {"memory_gb",           "sms",    "price_per_hour",
                                       "spot_price_per_hour", "idle_w", "busy_w",
                                       "calibration"};
/* A custom type has no catalog entry to fall back on, so everything is
 * required except the spot price, which defaults to the on-demand one. */
static const char *const custom_required[] = {"memory_gb", "sms", "price_per_hour", "idle_w",
                                              "busy_w"};

static bool contains_ci(const char *hay, const char *needle)
{
    size_t ln = strlen(needle), lh = strlen(hay);
    for (size_t off = 0; ln <= lh && off + ln <= lh; off++) {
        size_t k = 0;
        while (k < ln && ascii_lower(hay[off + k]) == ascii_lower(needle[k]))
            k++;
        if (k == ln)
            return true;
    }
    return false;
}

/* The k-th name a GPU reference may use: the built-ins, then (when c is not
 * NULL) the custom types declared in "gpus"; NULL for a declared member that
 * only overrides a built-in, which is already counted. */
static const char *gpu_candidate(const parse_ctx *c, size_t k)
{
    size_t n_cat;
    const fs_gpu_type *cat = fs_gpu_catalog(&n_cat);
    if (k < n_cat)
        return cat[k].name;
    const char *name = c->declared[k - n_cat].name;
    return fs_gpu_find(name) == NULL ? name : NULL;
}

static size_t gpu_candidates(const parse_ctx *c)
{
    size_t n_cat;
    fs_gpu_catalog(&n_cat);
    return n_cat + (c != NULL ? c->n_declared : 0);
}

static bool has_custom_types(const parse_ctx *c)
{
    for (size_t i = 0; i < c->n_declared; i++)
        if (fs_gpu_find(c->declared[i].name) == NULL)
            return true;
    return false;
}

/* The GPU type name nearest to word.  A name that contains what was typed
 * ("H100" -> "H100-SXM-80GB", any case) beats plain edit distance, which
 * favours short names that merely share a few characters.  Otherwise the
 * nearest by edit distance: always when `always`, else only within
 * max(2, len / 3) edits (fs_jpath_closest's rule), NULL beyond. */
static const char *nearest_gpu(const parse_ctx *c, const char *word, bool always)
{
    size_t n = gpu_candidates(c), best_d = SIZE_MAX;
    const char *best = NULL;
    for (size_t k = 0; k < n; k++) {
        const char *name = gpu_candidate(c, k);
        if (name != NULL && contains_ci(name, word))
            fs_jpath_nearer(word, name, &best_d, &best);
    }
    if (best != NULL)
        return best;
    for (size_t k = 0; k < n; k++) {
        const char *name = gpu_candidate(c, k);
        if (name != NULL)
            fs_jpath_nearer(word, name, &best_d, &best);
    }
    size_t limit = strlen(word) / 3 > 2 ? strlen(word) / 3 : 2;
    return always || best_d <= limit ? best : NULL;
}

/* One member of "gpus" (the cursor is on it): overrides of a built-in type
 * applied to a copy of its catalog entry, or a whole custom type. */
static int parse_gpu_type(fs_jpath *p, const char *name, const json_t *obj, fs_gpu_type *out)
{
    const fs_gpu_type *builtin = fs_gpu_find(name);
    if (!json_is_object(obj))
        return fs_jpath_expected(p, obj, "%s",
                                 builtin != NULL ? "an object of overrides for the built-in type"
                                                 : "an object describing a custom GPU type");
    int rc = fs_jpath_check_keys(p, obj, gpu_keys, COUNT(gpu_keys));
    if (rc != FS_OK)
        return rc;
    if (builtin != NULL) {
        *out = *builtin;
    } else {
        for (size_t i = 0; i < COUNT(custom_required); i++) {
            if (json_object_get(obj, custom_required[i]) != NULL)
                continue;
            /* A built-in name typed loosely ("H100") lands here as a custom
             * type; saying so, with the built-in it resembles, explains why
             * fields the user meant to inherit are demanded. */
            char list[256];
            fs_jpath_list(custom_required, COUNT(custom_required), list, sizeof list);
            const char *near = nearest_gpu(NULL, name, false);
            if (near != NULL)
                return fs_jpath_fail(p,
                                     "missing required key \"%s\" (not a built-in type, so a "
                                     "custom one, which needs %s; did you mean the built-in "
                                     "\"%s\"?)",
                                     custom_required[i], list, near);
            return fs_jpath_fail(p,
                                 "missing required key \"%s\" (not a built-in type, so a custom "
                                 "one, which needs %s)",
                                 custom_required[i], list);
        }
        memset(out, 0, sizeof *out);
        memcpy(out->name, name, strlen(name) + 1); /* the caller checked the length */
    }
    uint64_t sms = out->sms;
    rc = fs_jpath_get_number(p, obj, "memory_gb", false, FS_JPATH_POSITIVE, &out->memory_gb);
    if (rc == FS_OK)
        rc = fs_jpath_get_uint(p, obj, "sms", false, 1, UINT_MAX, &sms);
    out->sms = (unsigned)sms;
    if (rc == FS_OK)
        rc = fs_jpath_get_number(p, obj, "price_per_hour", false, FS_JPATH_NONNEG,
                                 &out->price_on_demand);
    if (builtin == NULL)
        out->price_spot = out->price_on_demand;
    if (rc == FS_OK)
        rc = fs_jpath_get_number(p, obj, "spot_price_per_hour", false, FS_JPATH_NONNEG,
                                 &out->price_spot);
    if (rc == FS_OK)
        rc = fs_jpath_get_number(p, obj, "idle_w", false, FS_JPATH_NONNEG, &out->idle_w);
    if (rc == FS_OK)
        rc = fs_jpath_get_number(p, obj, "busy_w", false, FS_JPATH_NONNEG, &out->busy_w);
    if (rc == FS_OK && out->busy_w < out->idle_w) {
        /* Blame the key that was written: an idle_w override can clash with
         * the catalog's busy_w without busy_w appearing in the file. */
        json_t *busy = json_object_get(obj, "busy_w");
        size_t mark = fs_jpath_push_key(p, busy != NULL ? "busy_w" : "idle_w");
        if (busy != NULL)
            rc = fs_jpath_expected(p, busy, "a number no smaller than idle_w (%g)", out->idle_w);
        else
            rc =
                fs_jpath_expected(p, json_object_get(obj, "idle_w"),
                                  "a number no larger than the catalog's busy_w (%g)", out->busy_w);
        fs_jpath_pop(p, mark);
    }
    return rc;
}

/* Reads "gpus" into c->declared, all of it, before any pool: a pool or a
 * service may name any member, and a member nothing names is still checked. */
static int parse_gpu_types(fs_jpath *p, const json_t *root, parse_ctx *c)
{
    json_t *obj = NULL;
    int rc = fs_jpath_get_object(p, root, "gpus", false, &obj);
    if (rc != FS_OK || obj == NULL || json_object_size(obj) == 0)
        return rc;
    c->declared = calloc(json_object_size(obj), sizeof *c->declared);
    c->declared_cal = calloc(json_object_size(obj), sizeof *c->declared_cal);
    if (c->declared == NULL || c->declared_cal == NULL)
        return fs_jpath_oom(p);
    size_t mark = fs_jpath_push_key(p, "gpus");
    const char *name;
    json_t *value;
    json_object_foreach (obj, name, value) {
        size_t len = strlen(name);
        if (len == 0 || len >= FS_GPU_NAME_MAX) {
            rc = fs_jpath_fail(p, "expected GPU type names of 1 to %d characters, got one of %zu",
                               FS_GPU_NAME_MAX - 1, len);
            break;
        }
        size_t m = fs_jpath_push_key(p, name);
        rc = parse_gpu_type(p, name, value, &c->declared[c->n_declared]);
        fs_jpath_pop(p, m);
        if (rc != FS_OK)
            break;
        c->declared_cal[c->n_declared++] = json_object_get(value, "calibration");
    }
    fs_jpath_pop(p, mark);
    return rc;
}

/* Index of the type called name in s->gpu_types, adding it on first use (a
 * "gpus" member, else the catalog entry), or SIZE_MAX when no type has that
 * name.  First use decides the order, so it is the document's. */
static size_t gpu_type_index(parse_ctx *c, const char *name)
{
    fs_scenario *s = c->s;
    for (size_t i = 0; i < s->n_gpu_types; i++)
        if (strcmp(s->gpu_types[i].name, name) == 0)
            return i;
    const fs_gpu_type *t = NULL;
    for (size_t i = 0; t == NULL && i < c->n_declared; i++)
        if (strcmp(c->declared[i].name, name) == 0)
            t = &c->declared[i];
    if (t == NULL)
        t = fs_gpu_find(name);
    if (t == NULL)
        return SIZE_MAX;
    assert(s->n_gpu_types < c->gpu_types_cap);
    s->gpu_types[s->n_gpu_types] = *t;
    return s->n_gpu_types++;
}

/* obj[key] as a GPU type, built-in or declared in "gpus": its index in
 * s->gpu_types (and, if name is not NULL, the name as written).  An unknown
 * name is refused with the nearest one (always: a GPU name is long enough
 * that even a distant guess helps) and the list of known types. */
static int parse_gpu_ref(fs_jpath *p, parse_ctx *c, const json_t *obj, const char *key,
                         bool required, size_t *index, const char **name)
{
    const char *type = NULL;
    int rc = fs_jpath_get_string(p, obj, key, required, true, &type);
    if (rc != FS_OK || type == NULL)
        return rc;
    size_t i = gpu_type_index(c, type);
    if (i != SIZE_MAX) {
        *index = i;
        if (name != NULL)
            *name = type;
        return FS_OK;
    }
    char list[640];
    size_t len = 0, n = gpu_candidates(c), n_cat;
    fs_gpu_catalog(&n_cat);
    list[0] = '\0';
    bool customs = false;
    for (size_t k = 0; k < n && len < sizeof list; k++) {
        const char *cand = gpu_candidate(c, k);
        if (cand == NULL)
            continue;
        const char *sep = k == 0 ? "" : k >= n_cat && !customs ? "; declared in \"gpus\": " : ", ";
        customs = k >= n_cat;
        int w = snprintf(list + len, sizeof list - len, "%s\"%s\"", sep, cand);
        if (w < 0)
            break;
        len += (size_t)w;
    }
    char got[128];
    fs_jpath_describe(json_object_get(obj, key), got, sizeof got);
    size_t mark = fs_jpath_push_key(p, key);
    rc = fs_jpath_fail(p,
                       "expected a GPU type from the catalog%s, got %s (did you mean \"%s\"? "
                       "known types: %s)",
                       has_custom_types(c) ? " or \"gpus\"" : "", got, nearest_gpu(c, type, true),
                       list);
    fs_jpath_pop(p, mark);
    return rc;
}

/* ------------------------------------------------------------------ service */

/* "replicas": {..., "autoscale": {...}} (the cursor is on "replicas"). */
static int parse_service_autoscale(fs_jpath *p, const json_t *replicas, fs_autoscale *a)
{
    static const char *const keys[] = {"target_in_flight", "p95_ms", "interval", "cooldown",
                                       "idle"};
    json_t *obj = NULL;
    int rc = fs_jpath_get_object(p, replicas, "autoscale", false, &obj);
    if (rc != FS_OK || obj == NULL)
        return rc;
    size_t mark = fs_jpath_push_key(p, "autoscale");
    rc = fs_jpath_check_keys(p, obj, keys, COUNT(keys));
    if (rc == FS_OK)
        rc = fs_jpath_get_number(p, obj, "target_in_flight", true, FS_JPATH_POSITIVE,
                                 &a->target_in_flight);
    if (rc == FS_OK)
        rc = fs_jpath_get_number(p, obj, "p95_ms", false, FS_JPATH_POSITIVE, &a->p95_ms);
    if (rc == FS_OK)
        rc = fs_jpath_get_duration(p, obj, "interval", false, FS_JPATH_POSITIVE, &a->interval_s);
    if (rc == FS_OK)
        rc = fs_jpath_get_duration(p, obj, "cooldown", false, FS_JPATH_NONNEG, &a->cooldown_s);
    if (rc == FS_OK)
        rc = fs_jpath_get_duration(p, obj, "idle", false, FS_JPATH_POSITIVE, &a->idle_s);
    fs_jpath_pop(p, mark);
    if (rc == FS_OK)
        a->enabled = true;
    return rc;
}

/* Fails at replicas[key] with "expected an integer <relation> "<bound_key>"
 * (<bound>), got <value>". */
static int replicas_bound_error(fs_jpath *p, const json_t *obj, const char *key,
                                const char *relation, const char *bound_key, uint64_t bound)
{
    size_t mark = fs_jpath_push_key(p, key);
    int rc = fs_jpath_expected(p, json_object_get(obj, key), "an integer %s \"%s\" (%" PRIu64 ")",
                               relation, bound_key, bound);
    fs_jpath_pop(p, mark);
    return rc;
}

/* A plain count N is a fixed N.  The object form: "count" is the starting
 * count; "count" and "min" default to each other (1 when neither is given),
 * "max" to "count"; min <= count <= max.  "min" and "max" bound the
 * autoscaler, so without "autoscale" they must equal the count, and with it
 * max must exceed min. */
static int parse_replicas(fs_jpath *p, const json_t *svc, fs_service_spec *out)
{
    static const char *const keys[] = {"count", "min", "max", "concurrency", "autoscale"};
    json_t *v = NULL;
    uint64_t count = 1, min = 1, max = 1, concurrency = 1;
    fs_autoscale *a = &out->autoscale;
    *a = (fs_autoscale){false, 0, 0, DEFAULT_AUTOSCALE_INTERVAL_S, DEFAULT_AUTOSCALE_COOLDOWN_S,
                        DEFAULT_AUTOSCALE_IDLE_S};
    int rc = fs_jpath_get(p, svc, "replicas", false, &v);
    if (rc != FS_OK)
        return rc;
    if (v != NULL) {
        size_t mark = fs_jpath_push_key(p, "replicas");
        if (json_is_object(v)) {
            bool has_count = json_object_get(v, "count") != NULL;
            bool has_min = json_object_get(v, "min") != NULL;
            bool has_max = json_object_get(v, "max") != NULL;
            rc = fs_jpath_check_keys(p, v, keys, COUNT(keys));
            if (rc == FS_OK)
                rc = fs_jpath_get_uint(p, v, "count", false, 1, UINT32_MAX, &count);
            if (rc == FS_OK)
                rc = fs_jpath_get_uint(p, v, "min", false, 1, UINT32_MAX, &min);
            if (rc == FS_OK)
                rc = fs_jpath_get_uint(p, v, "max", false, 1, UINT32_MAX, &max);
            if (rc == FS_OK)
                rc = fs_jpath_get_uint(p, v, "concurrency", false, 1, UINT32_MAX, &concurrency);
            if (!has_count)
                count = min;
            if (!has_min)
                min = count;
            if (!has_max)
                max = count;
            /* Blame a key that was written: count < min needs a written
             * count (else count = min), and count > max without one means
             * max < min. */
            if (rc == FS_OK && count < min)
                rc = replicas_bound_error(p, v, "count", "no smaller than", "min", min);
            else if (rc == FS_OK && count > max && has_count)
                rc = replicas_bound_error(p, v, "count", "no larger than", "max", max);
            else if (rc == FS_OK && count > max)
                rc = replicas_bound_error(p, v, "max", "no smaller than", "min", min);
            if (rc == FS_OK)
                rc = parse_service_autoscale(p, v, a);
            if (rc == FS_OK && a->enabled && max <= min) {
                size_t m = fs_jpath_push_key(p, "autoscale");
                rc = fs_jpath_fail(p,
                                   "an autoscaler needs room to move: \"max\" (%" PRIu64
                                   ") must be above \"min\" (%" PRIu64 "); raise \"max\" (it "
                                   "defaults to \"count\") or remove \"autoscale\" for a fixed "
                                   "count",
                                   max, min);
                fs_jpath_pop(p, m);
            } else if (rc == FS_OK && !a->enabled && (min != count || max != count)) {
                rc = fs_jpath_fail(p,
                                   "\"min\" (%" PRIu64 ") and \"max\" (%" PRIu64
                                   ") bound an autoscaler, but there is no \"autoscale\", so the "
                                   "count is fixed at %" PRIu64
                                   "; add \"autoscale\" or remove \"min\" and \"max\"",
                                   min, max, count);
            }
        } else if (json_is_number(v)) {
            rc = fs_jpath_uint(p, v, 1, UINT32_MAX, &count);
            min = max = count;
        } else {
            rc = fs_jpath_expected(p, v,
                                   "a positive integer or an object {\"count\", \"min\", \"max\", "
                                   "\"concurrency\", \"autoscale\"}");
        }
        fs_jpath_pop(p, mark);
    }
    out->replicas = (uint32_t)count;
    out->min_replicas = (uint32_t)min;
    out->max_replicas = (uint32_t)max;
    out->concurrency = (uint32_t)concurrency;
    return rc;
}

static const struct {
    const char *key;
    double quantile;
} slo_keys[FS_SLO_MAX_TARGETS] = {
    {"p50_ms", 0.5}, {"p90_ms", 0.9}, {"p95_ms", 0.95}, {"p99_ms", 0.99}, {"p999_ms", 0.999},
};

static int parse_slo(fs_jpath *p, const json_t *svc, double default_window_s, fs_slo *slo)
{
    static const char *const keys[] = {"p50_ms", "p90_ms", "p95_ms", "p99_ms", "p999_ms", "window"};
    slo->n_targets = 0;
    slo->window_s = default_window_s;
    json_t *obj = NULL;
    int rc = fs_jpath_get_object(p, svc, "slo", false, &obj);
    if (rc != FS_OK || obj == NULL)
        return rc;
    size_t mark = fs_jpath_push_key(p, "slo");
    rc = fs_jpath_check_keys(p, obj, keys, COUNT(keys));
    /* Targets in quantile order, whatever the order in the file. */
    for (size_t i = 0; rc == FS_OK && i < FS_SLO_MAX_TARGETS; i++) {
        double ms = -1;
        rc = fs_jpath_get_number(p, obj, slo_keys[i].key, false, FS_JPATH_POSITIVE, &ms);
        if (rc == FS_OK && ms > 0) {
            slo->targets[slo->n_targets].quantile = slo_keys[i].quantile;
            slo->targets[slo->n_targets].threshold_s = ms / 1000.0;
            slo->n_targets++;
        }
    }
    if (rc == FS_OK)
        rc = fs_jpath_get_duration(p, obj, "window", false, FS_JPATH_POSITIVE, &slo->window_s);
    if (rc == FS_OK && slo->n_targets == 0) {
        char list[128];
        fs_jpath_list(keys, FS_SLO_MAX_TARGETS, list, sizeof list);
        rc = fs_jpath_fail(p, "expected at least one latency target (%s), got none", list);
    }
    fs_jpath_pop(p, mark);
    return rc;
}

static void pool_list(const fs_scenario *s, char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < s->n_pools && len < size; i++) {
        int w = snprintf(buf + len, size - len, "%s\"%s\"", i ? ", " : "", s->pools[i].name);
        if (w < 0)
            break;
        len += (size_t)w;
    }
}

static int parse_service_pool(fs_jpath *p, const json_t *svc, const parse_ctx *c, size_t *pool)
{
    const fs_scenario *s = c->s;
    char names[512];
    pool_list(s, names, sizeof names);
    char in_policy[FS_GPU_NAME_MAX + 64] = "";
    if (c->policy)
        snprintf(in_policy, sizeof in_policy, " in policy \"%.*s\"", FS_GPU_NAME_MAX, c->policy);
    const char *name = NULL;
    int rc = fs_jpath_get_string(p, svc, "pool", false, false, &name);
    if (rc != FS_OK)
        return rc;
    if (name == NULL) {
        if (s->n_pools == 1) {
            *pool = 0;
            return FS_OK;
        }
        return fs_jpath_fail(p,
                             "missing required key \"pool\" (needed when there is more than one "
                             "pool%s: %s)",
                             in_policy, names);
    }
    const char *near = NULL;
    size_t near_d = SIZE_MAX;
    for (size_t i = 0; i < s->n_pools; i++) {
        if (strcmp(name, s->pools[i].name) == 0) {
            *pool = i;
            return FS_OK;
        }
        fs_jpath_nearer(name, s->pools[i].name, &near_d, &near);
    }
    size_t limit = strlen(name) / 3 > 2 ? strlen(name) / 3 : 2;
    size_t mark = fs_jpath_push_key(p, "pool");
    char got[128];
    fs_jpath_describe(json_object_get(svc, "pool"), got, sizeof got);
    if (near != NULL && near_d <= limit)
        rc = fs_jpath_fail(p, "expected the name of a pool%s (%s), got %s (did you mean \"%s\"?)",
                           in_policy, names, got, near);
    else
        rc = fs_jpath_fail(p, "expected the name of a pool%s (%s), got %s", in_policy, names, got);
    fs_jpath_pop(p, mark);
    return rc;
}

static int parse_service(fs_jpath *p, const json_t *svc, size_t index, parse_ctx *c)
{
    static const char *const keys[] = {"name",         "tenant",        "pool",        "arrivals",
                                       "service_time", "replicas",      "queue_limit", "slo",
                                       "memory_gb",    "reference_gpu", "sm_exponent"};
    fs_scenario *s = c->s;
    fs_service_spec *out = &s->services[index];
    if (!json_is_object(svc))
        return fs_jpath_expected(p, svc, "an object describing a service");
    int rc = fs_jpath_check_keys(p, svc, keys, COUNT(keys));
    const char *name = NULL, *tenant = NULL;
    if (rc == FS_OK)
        rc = fs_jpath_get_string(p, svc, "name", true, true, &name);
    /* O(n^2) over services, which number in the tens. */
    for (size_t j = 0; rc == FS_OK && j < index; j++) {
        if (strcmp(s->services[j].name, name) == 0) {
            size_t mark = fs_jpath_push_key(p, "name");
            rc = fs_jpath_fail(p, "duplicate service name \"%s\" (also services[%zu])", name, j);
            fs_jpath_pop(p, mark);
        }
    }
    if (rc == FS_OK)
        rc = dup_into(p, &out->name, name);
    if (rc == FS_OK)
        rc = fs_jpath_get_string(p, svc, "tenant", false, true, &tenant);
    if (rc == FS_OK)
        rc = dup_into(p, &out->tenant, tenant != NULL ? tenant : name);
    if (rc == FS_OK)
        rc = parse_service_pool(p, svc, c, &out->pool);
    if (rc == FS_OK)
        rc = parse_arrivals(p, svc, &out->arrivals);
    if (rc == FS_OK)
        rc = parse_service_time(p, svc, &out->service_time);
    if (rc == FS_OK)
        rc = parse_replicas(p, svc, out);
    out->queue_limit = FS_QUEUE_UNLIMITED;
    if (rc == FS_OK)
        rc = fs_jpath_get_uint(p, svc, "queue_limit", false, 0, UINT64_MAX, &out->queue_limit);
    if (rc == FS_OK)
        rc = parse_slo(p, svc, s->window_s, &out->slo);
    out->memory_gb = 0;
    if (rc == FS_OK)
        rc = fs_jpath_get_number(p, svc, "memory_gb", false, FS_JPATH_POSITIVE, &out->memory_gb);
    if (rc == FS_OK) {
        /* By default the service time was measured on the GPUs it runs on. */
        out->reference_gpu = s->pools[out->pool].gpu_type;
        rc = parse_gpu_ref(p, c, svc, "reference_gpu", false, &out->reference_gpu, NULL);
    }
    out->sm_exponent = 1.0;
    if (rc == FS_OK)
        rc = fs_jpath_get_number(p, svc, "sm_exponent", false, FS_JPATH_NONNEG, &out->sm_exponent);
    return rc;
}

/* -------------------------------------------------------------------- pools */

/* The layout list (the cursor is on "mig") placed on one GPU of the pool's
 * type; fs_mig_place's reason is passed on as it is. */
static int parse_mig(fs_jpath *p, const json_t *list, const fs_gpu_type *gpu, fs_mig_layout *out)
{
    size_t n = json_is_array(list) ? json_array_size(list) : 0;
    if (n == 0)
        return fs_jpath_expected(p, list,
                                 "an array of 1 to %d MIG profile names like \"3g.40gb\" or "
                                 "\"3g.40gb@4\"",
                                 FS_MIG_MAX_INSTANCES);
    if (n > FS_MIG_MAX_INSTANCES)
        return fs_jpath_fail(p, "expected at most %d MIG instances per GPU, got %zu",
                             FS_MIG_MAX_INSTANCES, n);
    const char *names[FS_MIG_MAX_INSTANCES];
    for (size_t j = 0; j < n; j++) {
        size_t m = fs_jpath_push_index(p, j);
        int rc = fs_jpath_string(p, json_array_get(list, j), true, &names[j]);
        fs_jpath_pop(p, m);
        if (rc != FS_OK)
            return rc;
    }
    char why[512] = "";
    if (fs_mig_place(gpu, names, n, out, why, sizeof why) != 0)
        return fs_jpath_fail(p, "%s", why[0] != '\0' ? why : "invalid MIG layout");
    return FS_OK;
}

static int parse_time_slicing(fs_jpath *p, const json_t *obj, fs_time_slicing *ts)
{
    static const char *const keys[] = {"tenants", "slice", "switch_overhead",
                                       "contention_exponent"};
    if (!json_is_object(obj))
        return fs_jpath_expected(p, obj,
                                 "an object {\"tenants\", \"slice\", \"switch_overhead\", "
                                 "\"contention_exponent\"}");
    ts->slice_s = DEFAULT_SLICE_S;
    ts->switch_overhead_s = DEFAULT_SWITCH_OVERHEAD_S;
    ts->contention_exponent = 1.0;
    uint64_t tenants = 0;
    int rc = fs_jpath_check_keys(p, obj, keys, COUNT(keys));
    if (rc == FS_OK)
        rc = fs_jpath_get_uint(p, obj, "tenants", true, 2, MAX_TENANTS, &tenants);
    ts->tenants = (uint32_t)tenants;
    if (rc == FS_OK)
        rc = fs_jpath_get_duration(p, obj, "slice", false, FS_JPATH_POSITIVE, &ts->slice_s);
    if (rc == FS_OK)
        rc = fs_jpath_get_duration(p, obj, "switch_overhead", false, FS_JPATH_NONNEG,
                                   &ts->switch_overhead_s);
    if (rc == FS_OK)
        rc = fs_jpath_get_number(p, obj, "contention_exponent", false, FS_JPATH_NONNEG,
                                 &ts->contention_exponent);
    return rc;
}

/* "mig", "time_slicing" or neither (whole GPUs). */
static int parse_partitioning(fs_jpath *p, const json_t *pool, const fs_gpu_type *gpu,
                              fs_pool_spec *out)
{
    json_t *mig = json_object_get(pool, "mig"), *ts = json_object_get(pool, "time_slicing");
    out->partitioning = FS_PARTITION_WHOLE;
    if (mig != NULL && ts != NULL)
        return fs_jpath_fail(p, "\"mig\" and \"time_slicing\" exclude each other (a GPU is either "
                                "cut into MIG instances or time-sliced); keep one");
    if (mig == NULL && ts == NULL)
        return FS_OK;
    size_t mark = fs_jpath_push_key(p, mig != NULL ? "mig" : "time_slicing");
    int rc = mig != NULL ? parse_mig(p, mig, gpu, &out->mig)
                         : parse_time_slicing(p, ts, &out->time_slicing);
    fs_jpath_pop(p, mark);
    if (rc == FS_OK)
        out->partitioning = mig != NULL ? FS_PARTITION_MIG : FS_PARTITION_TIME_SLICED;
    return rc;
}

static const char *const price_names[] = {
    [FS_PRICE_ON_DEMAND] = "on_demand", [FS_PRICE_SPOT] = "spot"};

static int parse_price(fs_jpath *p, const json_t *pool, fs_price_class *out)
{
    *out = FS_PRICE_ON_DEMAND;
    json_t *v = json_object_get(pool, "price");
    if (v == NULL)
        return FS_OK;
    for (size_t i = 0; json_is_string(v) && i < COUNT(price_names); i++) {
        if (strcmp(json_string_value(v), price_names[i]) == 0) {
            *out = (fs_price_class)i;
            return FS_OK;
        }
    }
    size_t mark = fs_jpath_push_key(p, "price");
    int rc = choice_error(p, v, "a price class", price_names, COUNT(price_names));
    fs_jpath_pop(p, mark);
    return rc;
}

static const char *const placement_names[FS_PLACEMENT_KINDS] = {
    [FS_PLACEMENT_BEST_FIT] = "best_fit", [FS_PLACEMENT_FIRST_FIT] = "first_fit"};

int fs_scenario_placement_find(const char *name)
{
    for (size_t i = 0; i < FS_PLACEMENT_KINDS; i++)
        if (strcmp(placement_names[i], name) == 0)
            return (int)i;
    return -1;
}

const char *const *fs_scenario_placement_names(size_t *count)
{
    *count = FS_PLACEMENT_KINDS;
    return placement_names;
}

static int parse_placement(fs_jpath *p, const json_t *pool, int *out)
{
    *out = fs_scenario_placement_find(DEFAULT_PLACEMENT);
    assert(*out >= 0); /* the documented default is one of placement_names */
    json_t *v = json_object_get(pool, "placement");
    if (v == NULL)
        return FS_OK;
    int k = json_is_string(v) ? fs_scenario_placement_find(json_string_value(v)) : -1;
    if (k >= 0) {
        *out = k;
        return FS_OK;
    }
    size_t n;
    const char *const *names = fs_scenario_placement_names(&n);
    size_t mark = fs_jpath_push_key(p, "placement");
    int rc = choice_error(p, v, "a placement policy", names, n);
    fs_jpath_pop(p, mark);
    return rc;
}

static const char *const class_names[] = {
    [FS_CLASS_SERVING] = "serving", [FS_CLASS_BATCH] = "batch", [FS_CLASS_SPOT] = "spot"};

/* "autoscale": {"min", "max", "provision", "idle"} makes the pool elastic:
 * `gpus` is its starting size, and min <= gpus <= max.  Defaults first, so
 * a fixed pool has min = max = gpus and the documented delays too. */
static int parse_pool_autoscale(fs_jpath *p, const json_t *pool, fs_pool_spec *out)
{
    static const char *const keys[] = {"min", "max", "provision", "idle"};
    out->elastic = false;
    out->min_gpus = out->max_gpus = out->gpus;
    int e = fs_dist_deterministic(&out->provision_delay, DEFAULT_PROVISION_S);
    assert(e == 0);
    (void)e;
    out->idle_release_s = DEFAULT_IDLE_RELEASE_S;
    json_t *obj = NULL;
    int rc = fs_jpath_get_object(p, pool, "autoscale", false, &obj);
    if (rc != FS_OK || obj == NULL)
        return rc;
    size_t mark = fs_jpath_push_key(p, "autoscale");
    uint64_t min = 0, max = 0;
    rc = fs_jpath_check_keys(p, obj, keys, COUNT(keys));
    if (rc == FS_OK)
        rc = fs_jpath_get_uint(p, obj, "min", true, 0, UINT32_MAX, &min);
    if (rc == FS_OK)
        rc = fs_jpath_get_uint(p, obj, "max", true, 1, UINT32_MAX, &max);
    const char *bad = rc != FS_OK ? NULL : min > out->gpus ? "min" : max < out->gpus ? "max" : NULL;
    if (bad != NULL) {
        size_t m = fs_jpath_push_key(p, bad);
        rc = fs_jpath_expected(p, json_object_get(obj, bad),
                               "an integer no %s than the pool's starting \"gpus\" (%" PRIu32
                               "): min <= gpus <= max",
                               strcmp(bad, "min") == 0 ? "larger" : "smaller", out->gpus);
        fs_jpath_pop(p, m);
    }
    if (rc == FS_OK)
        rc = parse_dist(p, obj, "provision", false, &out->provision_delay);
    if (rc == FS_OK)
        rc = fs_jpath_get_duration(p, obj, "idle", false, FS_JPATH_POSITIVE,
                                   &out->idle_release_s);
    fs_jpath_pop(p, mark);
    if (rc == FS_OK) {
        out->elastic = true;
        out->min_gpus = (uint32_t)min;
        out->max_gpus = (uint32_t)max;
    }
    return rc;
}

/* "class" and, on a spot pool only, "reclaim_per_hour". */
static int parse_pool_class(fs_jpath *p, const json_t *pool, fs_pool_spec *out)
{
    int k = FS_CLASS_SERVING;
    int rc = get_choice(p, pool, "class", "a pool class", class_names, COUNT(class_names), &k);
    out->class = (fs_pool_class)k;
    out->reclaim_per_gpu_hour = 0;
    if (rc != FS_OK || json_object_get(pool, "reclaim_per_hour") == NULL)
        return rc;
    if (out->class != FS_CLASS_SPOT) {
        size_t mark = fs_jpath_push_key(p, "reclaim_per_hour");
        rc = fs_jpath_fail(p,
                           "allowed only on a pool of \"class\": \"spot\" (this pool's class is "
                           "\"%s\"); set \"class\": \"spot\" or remove \"reclaim_per_hour\"",
                           class_names[out->class]);
        fs_jpath_pop(p, mark);
        return rc;
    }
    return fs_jpath_get_number(p, pool, "reclaim_per_hour", false, FS_JPATH_NONNEG,
                               &out->reclaim_per_gpu_hour);
}

static int parse_pool(fs_jpath *p, const json_t *pool, size_t index, parse_ctx *c)
{
    static const char *const keys[] = {
        "name",  "gpu",       "gpus",  "mig",       "time_slicing",
        "price", "placement", "class", "autoscale", "reclaim_per_hour"};
    fs_scenario *s = c->s;
    fs_pool_spec *out = &s->pools[index];
    if (!json_is_object(pool))
        return fs_jpath_expected(p, pool, "an object describing a pool");
    int rc = fs_jpath_check_keys(p, pool, keys, COUNT(keys));
    const char *name = NULL, *gpu = NULL;
    if (rc == FS_OK)
        rc = fs_jpath_get_string(p, pool, "name", true, true, &name);
    for (size_t j = 0; rc == FS_OK && j < index; j++) {
        if (strcmp(s->pools[j].name, name) == 0) {
            size_t mark = fs_jpath_push_key(p, "name");
            rc = fs_jpath_fail(p, "duplicate pool name \"%s\" (also pools[%zu])", name, j);
            fs_jpath_pop(p, mark);
        }
    }
    if (rc == FS_OK)
        rc = dup_into(p, &out->name, name);
    if (rc == FS_OK)
        rc = parse_gpu_ref(p, c, pool, "gpu", true, &out->gpu_type, &gpu);
    if (rc == FS_OK)
        rc = dup_into(p, &out->gpu, gpu);
    uint64_t gpus = 0;
    if (rc == FS_OK)
        /* An elastic pool may start empty and grow on demand. */
        rc = fs_jpath_get_uint(p, pool, "gpus", true, json_object_get(pool, "autoscale") ? 0 : 1,
                               UINT32_MAX, &gpus);
    out->gpus = (uint32_t)gpus;
    if (rc == FS_OK)
        rc = parse_partitioning(p, pool, &s->gpu_types[out->gpu_type], out);
    if (rc == FS_OK)
        rc = parse_price(p, pool, &out->price);
    if (rc == FS_OK)
        rc = parse_placement(p, pool, &out->placement);
    if (rc == FS_OK)
        rc = parse_pool_class(p, pool, out);
    if (rc == FS_OK)
        rc = parse_pool_autoscale(p, pool, out);
    return rc;
}

/* ----------------------------------------------------------------- training */

static int double_cmp(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

/* "at": [durations from t = 0], sorted. */
static int parse_submit_at(fs_jpath *p, const json_t *submit, fs_training_spec *out)
{
    json_t *list = NULL;
    int rc = fs_jpath_get_array(p, submit, "at", false, true, &list);
    if (rc != FS_OK || list == NULL)
        return rc;
    size_t n = json_array_size(list);
    out->submit_at_s = calloc(n, sizeof *out->submit_at_s);
    if (out->submit_at_s == NULL)
        return fs_jpath_oom(p);
    out->n_submit_at = n;
    size_t mark = fs_jpath_push_key(p, "at");
    for (size_t i = 0; rc == FS_OK && i < n; i++) {
        size_t m = fs_jpath_push_index(p, i);
        rc = fs_jpath_duration(p, json_array_get(list, i), FS_JPATH_NONNEG, &out->submit_at_s[i]);
        fs_jpath_pop(p, m);
    }
    fs_jpath_pop(p, mark);
    if (rc == FS_OK)
        qsort(out->submit_at_s, n, sizeof *out->submit_at_s, double_cmp);
    return rc;
}

/* "daily_at": ["HH:MM", ...]: up to 24 times of day, sorted. */
static int parse_submit_daily(fs_jpath *p, const json_t *submit, fs_training_spec *out)
{
    json_t *list = NULL;
    int rc = fs_jpath_get_array(p, submit, "daily_at", false, true, &list);
    if (rc != FS_OK || list == NULL)
        return rc;
    size_t n = json_array_size(list), cap = COUNT(out->daily_at_s);
    size_t mark = fs_jpath_push_key(p, "daily_at");
    if (n > cap)
        rc = fs_jpath_fail(p, "expected at most %zu clock times, got %zu", cap, n);
    for (size_t i = 0; rc == FS_OK && i < n; i++) {
        json_t *v = json_array_get(list, i);
        size_t m = fs_jpath_push_index(p, i);
        char why[128], got[128];
        double t = 0;
        if (!json_is_string(v)) {
            rc = fs_jpath_expected(p, v, "a clock time like \"02:00\"");
        } else if (fs_duration_parse(json_string_value(v), &t, why, sizeof why) != 0) {
            fs_jpath_describe(v, got, sizeof got);
            rc = fs_jpath_fail(p, "expected a clock time like \"02:00\", got %s (%s)", got, why);
        } else if (t >= 86400.0) {
            rc = fs_jpath_expected(p, v, "a clock time before 24:00");
        }
        out->daily_at_s[i] = t;
        fs_jpath_pop(p, m);
    }
    fs_jpath_pop(p, mark);
    if (rc == FS_OK) {
        out->n_daily = n;
        qsort(out->daily_at_s, n, sizeof out->daily_at_s[0], double_cmp);
    }
    return rc;
}

static int parse_submit(fs_jpath *p, const json_t *job, fs_training_spec *out)
{
    static const char *const keys[] = {"at", "daily_at", "poisson_per_hour", "trace"};
    json_t *obj = NULL;
    int rc = fs_jpath_get_object(p, job, "submit", true, &obj);
    if (rc != FS_OK)
        return rc;
    size_t mark = fs_jpath_push_key(p, "submit");
    rc = fs_jpath_check_keys(p, obj, keys, COUNT(keys));
    json_t *trace = json_object_get(obj, "trace");
    if (rc == FS_OK && trace) {
        static const char *const trace_keys[] = {"file",     "preset", "time",     "time_format", "gpus",  "duration",
                                                 "end",      "priority", "tenant", "rate_scale",  "shift", "repeat",
                                                 "tolerance"};
        size_t m = fs_jpath_push_key(p, "trace");
        rc = json_object_size(obj) != 1 ? fs_jpath_fail(p, "expected \"trace\" alone in \"submit\"")
             : json_is_object(trace)    ? fs_jpath_check_keys(p, trace, trace_keys, COUNT(trace_keys))
                                        : fs_jpath_expected(p, trace, "an object naming a CSV job trace");
        if (rc == FS_OK)
            rc = parse_trace_spec(p, trace, FS_TRACE_JOBS, &out->trace);
        fs_jpath_pop(p, m);
        fs_jpath_pop(p, mark);
        return rc;
    }
    if (rc == FS_OK && json_object_size(obj) == 0) {
        char list[128];
        fs_jpath_list(keys, COUNT(keys), list, sizeof list);
        rc = fs_jpath_fail(p, "expected at least one way to submit jobs (%s), got none", list);
    }
    if (rc == FS_OK)
        rc = parse_submit_at(p, obj, out);
    if (rc == FS_OK)
        rc = parse_submit_daily(p, obj, out);
    out->poisson_per_hour = 0;
    if (rc == FS_OK)
        rc = fs_jpath_get_number(p, obj, "poisson_per_hour", false, FS_JPATH_POSITIVE,
                                 &out->poisson_per_hour);
    fs_jpath_pop(p, mark);
    return rc;
}

/* "checkpoint": {"every", "write"}; absent, the job never checkpoints. */
static int parse_checkpoint(fs_jpath *p, const json_t *job, fs_training_spec *out)
{
    static const char *const keys[] = {"every", "write"};
    out->checkpoint_every_s = out->checkpoint_write_s = 0;
    json_t *obj = NULL;
    int rc = fs_jpath_get_object(p, job, "checkpoint", false, &obj);
    if (rc != FS_OK || obj == NULL)
        return rc;
    size_t mark = fs_jpath_push_key(p, "checkpoint");
    rc = fs_jpath_check_keys(p, obj, keys, COUNT(keys));
    if (rc == FS_OK)
        rc = fs_jpath_get_duration(p, obj, "every", true, FS_JPATH_POSITIVE,
                                   &out->checkpoint_every_s);
    if (rc == FS_OK)
        rc = fs_jpath_get_duration(p, obj, "write", true, FS_JPATH_NONNEG,
                                   &out->checkpoint_write_s);
    fs_jpath_pop(p, mark);
    return rc;
}

static const char *const priority_names[] = {"production", "experiment"};

/* Training streams and services share one namespace, so a name in results
 * always means one thing.  O(n^2), over tens of names. */
static int check_training_name(fs_jpath *p, const fs_scenario *s, size_t index, const char *name)
{
    char also[64] = "";
    for (size_t j = 0; also[0] == '\0' && j < s->n_services; j++)
        if (strcmp(s->services[j].name, name) == 0)
            snprintf(also, sizeof also, "services[%zu]", j);
    for (size_t j = 0; also[0] == '\0' && j < index; j++)
        if (strcmp(s->training[j].name, name) == 0)
            snprintf(also, sizeof also, "training[%zu]", j);
    if (also[0] == '\0')
        return FS_OK;
    size_t mark = fs_jpath_push_key(p, "name");
    int rc = fs_jpath_fail(p, "duplicate name \"%s\" (also %s; services and training streams "
                              "share one set of names)",
                           name, also);
    fs_jpath_pop(p, mark);
    return rc;
}

static int parse_training_stream(fs_jpath *p, const json_t *job, size_t index, parse_ctx *c)
{
    static const char *const keys[] = {"name",       "tenant",         "submit",
                                       "gang",       "work_gpu_hours", "state_gb_per_gpu",
                                       "checkpoint", "preemptible",    "priority",
                                       "on_eviction"};
    static const char *const eviction_names[] = {"drop", "save"};
    fs_scenario *s = c->s;
    fs_training_spec *out = &s->training[index];
    if (!json_is_object(job))
        return fs_jpath_expected(p, job, "an object describing a training stream");
    int rc = fs_jpath_check_keys(p, job, keys, COUNT(keys));
    const char *name = NULL, *tenant = NULL;
    if (rc == FS_OK)
        rc = fs_jpath_get_string(p, job, "name", true, true, &name);
    if (rc == FS_OK)
        rc = check_training_name(p, s, index, name);
    if (rc == FS_OK)
        rc = dup_into(p, &out->name, name);
    if (rc == FS_OK)
        rc = fs_jpath_get_string(p, job, "tenant", false, true, &tenant);
    if (rc == FS_OK)
        rc = dup_into(p, &out->tenant, tenant != NULL ? tenant : name);
    if (rc == FS_OK)
        rc = parse_submit(p, job, out);
    /* A trace gives each job its own gang and work. */
    bool traced = out->trace != NULL;
    if (rc == FS_OK && traced && (json_object_get(job, "gang") || json_object_get(job, "work_gpu_hours")))
        rc = fs_jpath_fail(p, "a traced stream takes \"gang\" and \"work_gpu_hours\" from its trace's rows");
    uint64_t gang = 1;
    out->work_gpu_hours = 1;
    if (rc == FS_OK)
        rc = fs_jpath_get_uint(p, job, "gang", !traced, 1, UINT32_MAX, &gang);
    out->gang = (uint32_t)gang;
    if (rc == FS_OK)
        rc = fs_jpath_get_number(p, job, "work_gpu_hours", !traced, FS_JPATH_POSITIVE,
                                 &out->work_gpu_hours);
    out->state_gb_per_gpu = 0;
    if (rc == FS_OK)
        rc = fs_jpath_get_number(p, job, "state_gb_per_gpu", false, FS_JPATH_NONNEG,
                                 &out->state_gb_per_gpu);
    if (rc == FS_OK)
        rc = parse_checkpoint(p, job, out);
    out->preemptible = false;
    if (rc == FS_OK)
        rc = get_bool(p, job, "preemptible", &out->preemptible);
    int prio = 0;
    if (rc == FS_OK)
        rc = get_choice(p, job, "priority", "a training priority", priority_names,
                        COUNT(priority_names), &prio);
    out->lane = prio == 0 ? FS_LANE_TRAINING : FS_LANE_EXPERIMENT;
    int eviction = 0;
    if (rc == FS_OK)
        rc = get_choice(p, job, "on_eviction", "an eviction mode", eviction_names,
                        COUNT(eviction_names), &eviction);
    out->save_on_eviction = eviction == 1;
    return rc;
}

/* "training": optional, possibly empty; read after "services" so names can
 * be checked against them. */
static int parse_training(fs_jpath *p, const json_t *root, parse_ctx *c)
{
    fs_scenario *s = c->s;
    json_t *list = NULL;
    int rc = fs_jpath_get_array(p, root, "training", false, false, &list);
    if (rc != FS_OK || list == NULL || json_array_size(list) == 0)
        return rc;
    size_t n = json_array_size(list);
    s->training = calloc(n, sizeof *s->training);
    if (s->training == NULL)
        return fs_jpath_oom(p);
    s->n_training = n;
    return parse_array_of(p, root, "training", c, parse_training_stream);
}

/* -------------------------------------------------------------- calibration */

static void default_switch_costs(fs_switch_costs *sc)
{
    sc->context_s = DEFAULT_CONTEXT_S;
    sc->framework_s = DEFAULT_FRAMEWORK_S;
    sc->storage_gbps = DEFAULT_STORAGE_GBPS;
    sc->h2d_gbps = DEFAULT_H2D_GBPS;
    sc->d2h_gbps = DEFAULT_D2H_GBPS;
    sc->inference_warmup_s = DEFAULT_INFERENCE_WARMUP_S;
    snprintf(sc->source, sizeof sc->source, "%s", DEFAULT_COSTS_SOURCE);
}

/* The record a measured profile keeps beside its figures (what
 * calibrate/profile.c writes: the device, the figures it did not measure,
 * every fit, scalar statistics and raw sample).  The simulator uses none of
 * it, so only the types are checked: enough to refuse a file that is not a
 * profile, without tying the reader to the record's inner layout. */
static int parse_calibration_record(fs_jpath *p, const json_t *obj)
{
    static const char *const objects[] = {"device", "fits", "scalars", "samples"};
    json_t *v = NULL;
    int rc = FS_OK;
    for (size_t k = 0; rc == FS_OK && k < COUNT(objects); k++)
        rc = fs_jpath_get_object(p, obj, objects[k], false, &v);
    v = NULL;
    if (rc == FS_OK)
        rc = fs_jpath_get_array(p, obj, "not_measured", false, false, &v);
    if (rc != FS_OK || v == NULL)
        return rc;
    size_t mark = fs_jpath_push_key(p, "not_measured"), i;
    json_t *item;
    json_array_foreach (v, i, item) {
        const char *key;
        size_t m = fs_jpath_push_index(p, i);
        rc = fs_jpath_string(p, item, true, &key);
        fs_jpath_pop(p, m);
        if (rc != FS_OK)
            break;
    }
    fs_jpath_pop(p, mark);
    return rc;
}

/* A calibration profile (the cursor is on it) over the figures already in
 * *sc; `source` defaults to default_source.  Every key is optional. */
static int parse_calibration_profile(fs_jpath *p, const json_t *obj, const char *default_source,
                                     fs_switch_costs *sc)
{
    static const char *const keys[] = {"schema",       "gpu",         "source",
                                       "context_s",    "framework_s", "inference_warmup_s",
                                       "storage_gbps", "h2d_gbps",    "d2h_gbps",
                                       "device",       "not_measured", "fits",
                                       "scalars",      "samples"};
    if (!json_is_object(obj))
        return fs_jpath_expected(p, obj, "an object (a calibration profile)");
    int rc = fs_jpath_check_keys(p, obj, keys, COUNT(keys));
    json_t *schema = json_object_get(obj, "schema");
    if (rc == FS_OK && schema != NULL &&
        !(json_is_string(schema) && strcmp(json_string_value(schema), CALIBRATION_SCHEMA) == 0)) {
        size_t mark = fs_jpath_push_key(p, "schema");
        rc = fs_jpath_expected(p, schema, "\"%s\"", CALIBRATION_SCHEMA);
        fs_jpath_pop(p, mark);
    }
    const char *gpu = NULL, *source = default_source;
    if (rc == FS_OK) /* informational: which GPU the figures were measured on */
        rc = fs_jpath_get_string(p, obj, "gpu", false, true, &gpu);
    if (rc == FS_OK)
        rc = fs_jpath_get_string(p, obj, "source", false, true, &source);
    if (rc == FS_OK)
        rc = fs_jpath_get_number(p, obj, "context_s", false, FS_JPATH_NONNEG, &sc->context_s);
    if (rc == FS_OK)
        rc = fs_jpath_get_number(p, obj, "framework_s", false, FS_JPATH_NONNEG, &sc->framework_s);
    if (rc == FS_OK)
        rc = fs_jpath_get_number(p, obj, "inference_warmup_s", false, FS_JPATH_NONNEG,
                                 &sc->inference_warmup_s);
    if (rc == FS_OK)
        rc = fs_jpath_get_number(p, obj, "storage_gbps", false, FS_JPATH_POSITIVE,
                                 &sc->storage_gbps);
    if (rc == FS_OK)
        rc = fs_jpath_get_number(p, obj, "h2d_gbps", false, FS_JPATH_POSITIVE, &sc->h2d_gbps);
    if (rc == FS_OK)
        rc = fs_jpath_get_number(p, obj, "d2h_gbps", false, FS_JPATH_POSITIVE, &sc->d2h_gbps);
    if (rc == FS_OK)
        rc = parse_calibration_record(p, obj);
    if (rc == FS_OK) /* a label: cut to fit rather than refused */
        snprintf(sc->source, sizeof sc->source, "%s", source);
    return rc;
}

/* A calibration file: relative to the scenario file's directory unless
 * absolute.  Its errors name it, and positions and paths in it. */
static int load_calibration(fs_jpath *p, const char *name, fs_switch_costs *sc)
{
    char *path = relative_path(p->origin, name);
    if (path == NULL)
        return fs_jpath_oom(p);
    char *text = NULL;
    size_t len = 0;
    json_t *doc = NULL;
    int rc = read_file(path, &text, &len, p->err);
    if (rc == FS_ERR_INPUT) { /* say which scenario key named the file */
        char why[sizeof p->err->msg];
        memcpy(why, p->err->msg, sizeof why);
        rc = fs_jpath_fail(p, "%s", why);
    }
    if (rc == FS_OK)
        rc = load_json(text, len, path, &doc, p->err);
    if (rc == FS_OK) {
        fs_jpath cp;
        fs_jpath_init(&cp, path, p->err);
        rc = parse_calibration_profile(&cp, doc, path, sc);
    }
    json_decref(doc);
    free(text);
    free(path);
    return rc;
}

/* A "calibration" value v (the cursor is on it): a file name or an inline
 * profile, read over *sc. */
static int parse_calibration_value(fs_jpath *p, const json_t *v, fs_switch_costs *sc)
{
    if (json_is_object(v))
        return parse_calibration_profile(p, v, "inline", sc);
    if (json_is_string(v) && json_string_length(v) > 0)
        return load_calibration(p, json_string_value(v), sc);
    return fs_jpath_expected(p, v, "a calibration file name or an inline profile object");
}

/* The top-level "calibration" over the built-in profile; absent, the
 * built-in one. */
static int parse_calibration(fs_jpath *p, const json_t *root, fs_switch_costs *sc)
{
    default_switch_costs(sc);
    json_t *v = json_object_get(root, "calibration");
    if (v == NULL)
        return FS_OK;
    size_t mark = fs_jpath_push_key(p, "calibration");
    int rc = parse_calibration_value(p, v, sc);
    fs_jpath_pop(p, mark);
    return rc;
}

/* s->gpu_switch_costs, one per entry of s->gpu_types (all placed by now):
 * the scenario's costs, with a "gpus" member's own "calibration" read over
 * them, so a figure the type's profile leaves out (a measured profile has no
 * storage_gbps) is the scenario's, which is the built-in one unless the
 * top-level "calibration" says otherwise. */
static int parse_gpu_calibrations(fs_jpath *p, parse_ctx *c)
{
    fs_scenario *s = c->s;
    if (s->n_gpu_types == 0)
        return FS_OK;
    s->gpu_switch_costs = calloc(s->n_gpu_types, sizeof *s->gpu_switch_costs);
    if (s->gpu_switch_costs == NULL)
        return fs_jpath_oom(p);
    for (size_t i = 0; i < s->n_gpu_types; i++)
        s->gpu_switch_costs[i] = s->switch_costs;
    int rc = FS_OK;
    for (size_t k = 0; rc == FS_OK && k < c->n_declared; k++) {
        if (c->declared_cal[k] == NULL)
            continue;
        size_t i = gpu_type_index(c, c->declared[k].name); /* present: placed above */
        assert(i < s->n_gpu_types);
        size_t mark = fs_jpath_push_key(p, "gpus");
        fs_jpath_push_key(p, c->declared[k].name);
        fs_jpath_push_key(p, "calibration");
        rc = parse_calibration_value(p, c->declared_cal[k], &s->gpu_switch_costs[i]);
        fs_jpath_pop(p, mark);
    }
    return rc;
}

/* ---------------------------------------------------------------- scenario */

static int parse_schema(fs_jpath *p, const json_t *root)
{
    json_t *v = json_object_get(root, "schema");
    if (v == NULL)
        return fs_jpath_fail(p, "missing required key \"schema\" (expected \"%s\")",
                             FS_SCENARIO_SCHEMA);
    if (json_is_string(v) && strcmp(json_string_value(v), FS_SCENARIO_SCHEMA) == 0)
        return FS_OK;
    size_t mark = fs_jpath_push_key(p, "schema");
    int rc = fs_jpath_expected(p, v, "\"%s\"", FS_SCENARIO_SCHEMA);
    fs_jpath_pop(p, mark);
    return rc;
}

/* "runs/morning-tail.json" -> "morning-tail"; an origin that is not a path
 * ("<string>") comes back as it is. */
static int default_name(fs_jpath *p, const char *origin, char **out)
{
    const char *base = strrchr(origin, '/');
    base = base != NULL && base[1] != '\0' ? base + 1 : origin;
    size_t len = strlen(base);
    if (len > 5 && strcmp(base + len - 5, ".json") == 0)
        len -= 5;
    *out = malloc(len + 1);
    if (*out == NULL)
        return fs_jpath_oom(p);
    memcpy(*out, base, len);
    (*out)[len] = '\0';
    return FS_OK;
}

static int parse_array_of(fs_jpath *p, const json_t *root, const char *key, parse_ctx *c,
                          int (*parse_one)(fs_jpath *, const json_t *, size_t, parse_ctx *))
{
    json_t *list = NULL;
    int rc = fs_jpath_get_array(p, root, key, true, true, &list);
    if (rc != FS_OK)
        return rc;
    size_t mark = fs_jpath_push_key(p, key);
    for (size_t i = 0; rc == FS_OK && i < json_array_size(list); i++) {
        size_t m = fs_jpath_push_index(p, i);
        rc = parse_one(p, json_array_get(list, i), i, c);
        fs_jpath_pop(p, m);
    }
    fs_jpath_pop(p, mark);
    return rc;
}

/* Length of root[key] when it is an array, else 0 (parse_array_of then
 * reports the missing or mistyped key). */
static size_t array_length(const json_t *root, const char *key)
{
    json_t *list = json_object_get(root, key);
    return json_is_array(list) ? json_array_size(list) : 0;
}

/* "ci": {"horizon", "replications", "warmup"}, the fast settings `fleetsim
 * check` applies (fs_scenario_apply_ci).  Each is optional; what ci leaves out
 * stays the run's own, and the pair that results must keep the warm-up below
 * the horizon.  The warm-up must be positive: 0 stores "not set", so a zero
 * could not be told from an absent key (use a small one, e.g. "1s"). */
static int parse_ci(fs_jpath *p, const json_t *root, fs_scenario *s)
{
    static const char *const keys[] = {"horizon", "replications", "warmup"};
    s->ci_horizon_s = 0;
    s->ci_warmup_s = 0;
    s->ci_replications = 0;
    json_t *ci = NULL;
    int rc = fs_jpath_get_object(p, root, "ci", false, &ci);
    if (rc != FS_OK || ci == NULL)
        return rc;
    size_t mark = fs_jpath_push_key(p, "ci");
    uint64_t replications = 0;
    rc = fs_jpath_check_keys(p, ci, keys, COUNT(keys));
    if (rc == FS_OK)
        rc = fs_jpath_get_duration(p, ci, "horizon", false, FS_JPATH_POSITIVE, &s->ci_horizon_s);
    if (rc == FS_OK)
        rc = fs_jpath_get_uint(p, ci, "replications", false, 1, MAX_REPLICATIONS, &replications);
    s->ci_replications = (uint32_t)replications;
    if (rc == FS_OK)
        rc = fs_jpath_get_duration(p, ci, "warmup", false, FS_JPATH_POSITIVE, &s->ci_warmup_s);
    double horizon = s->ci_horizon_s > 0 ? s->ci_horizon_s : s->horizon_s;
    double warmup = s->ci_warmup_s > 0 ? s->ci_warmup_s : s->warmup_s;
    if (rc == FS_OK && warmup >= horizon) {
        char h[64], w[64];
        fs_duration_format(horizon, h, sizeof h);
        fs_duration_format(warmup, w, sizeof w);
        if (s->ci_warmup_s > 0) {
            fs_jpath_push_key(p, "warmup");
            rc = fs_jpath_expected(p, json_object_get(ci, "warmup"),
                                   "a duration shorter than the %s horizon (%s)",
                                   s->ci_horizon_s > 0 ? "ci" : "scenario's", h);
        } else {
            fs_jpath_push_key(p, "horizon");
            rc = fs_jpath_expected(p, json_object_get(ci, "horizon"),
                                   "a duration longer than the scenario's warm-up (%s), or a "
                                   "shorter \"warmup\" in \"ci\"",
                                   w);
        }
    }
    fs_jpath_pop(p, mark);
    return rc;
}

static int parse_fields(fs_jpath *p, const json_t *root, parse_ctx *c)
{
    static const char *const keys[] = {"schema",   "name",          "description", "horizon",
                                       "warmup",   "window",        "seed",        "replications",
                                       "gpus",     "start_weekday", "pools",       "services",
                                       "policies", "training",      "calibration", "ci"};
    fs_scenario *s = c->s;
    if (!json_is_object(root))
        return fs_jpath_expected(p, root, "an object at the top level");
    int rc = parse_schema(p, root);
    if (rc == FS_OK)
        rc = fs_jpath_check_keys(p, root, keys, COUNT(keys));

    const char *name = NULL, *description = "";
    if (rc == FS_OK)
        rc = fs_jpath_get_string(p, root, "name", false, true, &name);
    if (rc == FS_OK)
        rc = name != NULL ? dup_into(p, &s->name, name) : default_name(p, p->origin, &s->name);
    if (rc == FS_OK)
        rc = fs_jpath_get_string(p, root, "description", false, false, &description);
    if (rc == FS_OK)
        rc = dup_into(p, &s->description, description);

    if (rc == FS_OK)
        rc = fs_jpath_get_duration(p, root, "horizon", true, FS_JPATH_POSITIVE, &s->horizon_s);
    s->warmup_s = 0;
    if (rc == FS_OK)
        rc = fs_jpath_get_duration(p, root, "warmup", false, FS_JPATH_NONNEG, &s->warmup_s);
    if (rc == FS_OK && s->warmup_s >= s->horizon_s) {
        char horizon[64];
        fs_duration_format(s->horizon_s, horizon, sizeof horizon);
        size_t mark = fs_jpath_push_key(p, "warmup");
        rc = fs_jpath_expected(p, json_object_get(root, "warmup"),
                               "a duration shorter than the horizon (%s)", horizon);
        fs_jpath_pop(p, mark);
    }
    s->window_s = DEFAULT_WINDOW_S;
    if (rc == FS_OK)
        rc = fs_jpath_get_duration(p, root, "window", false, FS_JPATH_POSITIVE, &s->window_s);

    uint64_t seed = 1, replications = 1;
    if (rc == FS_OK)
        rc = fs_jpath_get_uint(p, root, "seed", false, 0, UINT64_MAX, &seed);
    if (rc == FS_OK)
        rc = fs_jpath_get_uint(p, root, "replications", false, 1, MAX_REPLICATIONS, &replications);
    s->seed = seed;
    s->replications = (uint32_t)replications;
    s->start_weekday = 0;
    if (rc == FS_OK)
        rc = parse_weekday(p, root, &s->start_weekday);
    if (rc == FS_OK)
        rc = parse_ci(p, root, s);

    if (rc == FS_OK)
        rc = parse_gpu_types(p, root, c);
    if (rc == FS_OK) {
        size_t n_cat;
        fs_gpu_catalog(&n_cat);
        c->gpu_types_cap = c->n_declared + n_cat;
        s->gpu_types = calloc(c->gpu_types_cap, sizeof *s->gpu_types);
        rc = s->gpu_types == NULL ? fs_jpath_oom(p) : FS_OK;
    }

    /* Arrays are allocated zeroed at their final size before any element is
     * read, with the count set at once, so destroy can free a half-read one. */
    size_t n = array_length(c->fleet, "pools");
    if (rc == FS_OK && n > 0) {
        s->pools = calloc(n, sizeof *s->pools);
        rc = s->pools == NULL ? fs_jpath_oom(p) : FS_OK;
        s->n_pools = s->pools == NULL ? 0 : n;
    }
    if (rc == FS_OK) {
        size_t mark = p->len;
        if (c->policy) {
            fs_jpath_push_key(p, "policies");
            fs_jpath_push_key(p, c->policy);
        }
        rc = parse_array_of(p, c->fleet, "pools", c, parse_pool);
        fs_jpath_pop(p, mark);
    }
    n = array_length(root, "services");
    if (rc == FS_OK && n > 0) {
        s->services = calloc(n, sizeof *s->services);
        rc = s->services == NULL ? fs_jpath_oom(p) : FS_OK;
        s->n_services = s->services == NULL ? 0 : n;
    }
    if (rc == FS_OK)
        rc = parse_array_of(p, root, "services", c, parse_service);
    if (rc == FS_OK)
        rc = parse_training(p, root, c);
    if (rc == FS_OK)
        rc = parse_calibration(p, root, &s->switch_costs);
    /* Declared types nothing named go last, so gpu_types shows the whole
     * catalog the file defines.  No capacity check follows: whether replicas
     * fit depends on memory footprints and partitioning, which is
     * placement's question (placement.h), not a count of GPUs. */
    for (size_t i = 0; rc == FS_OK && i < c->n_declared; i++)
        (void)gpu_type_index(c, c->declared[i].name);
    if (rc == FS_OK)
        rc = parse_gpu_calibrations(p, c);
    return rc;
}

static const char *const kind_names[] = {[FS_POLICY_SHARED] = "shared",
                                         [FS_POLICY_PARTITIONED] = "partitioned",
                                         [FS_POLICY_TIERED] = "tiered"};

/* A policy's "kind", "borrowing" and "headroom".  The kind defaults to the
 * policy's name when that is a kind (any case), else shared; the top-level
 * "pools" policy ("default") takes every default. */
static int parse_policy_settings(fs_jpath *p, const json_t *fleet, const char *policy,
                                 fs_scenario *s)
{
    s->policy_kind = FS_POLICY_SHARED;
    for (size_t k = 0; k < COUNT(kind_names); k++)
        if (ascii_iequal(s->policy, kind_names[k]))
            s->policy_kind = (fs_policy_kind)k;
    s->borrowing = false;
    s->headroom = DEFAULT_HEADROOM;
    if (policy == NULL)
        return FS_OK;
    size_t mark = fs_jpath_push_key(p, "policies");
    fs_jpath_push_key(p, policy);
    int kind = s->policy_kind;
    int rc = get_choice(p, fleet, "kind", "a policy kind", kind_names, COUNT(kind_names), &kind);
    s->policy_kind = (fs_policy_kind)kind;
    if (rc == FS_OK)
        rc = get_bool(p, fleet, "borrowing", &s->borrowing);
    if (rc == FS_OK)
        rc = fs_jpath_get_number(p, fleet, "headroom", false, FS_JPATH_NONNEG, &s->headroom);
    if (rc == FS_OK && !(s->headroom < 1)) {
        fs_jpath_push_key(p, "headroom");
        rc = fs_jpath_expected(p, json_object_get(fleet, "headroom"),
                               "a number from 0 up to but not including 1 (the share of each "
                               "serving pool kept free)");
    }
    fs_jpath_pop(p, mark);
    return rc;
}

/* One variant: the whole document read with the pools of one fleet. */
static int parse_variant(fs_jpath *p, const json_t *root, const json_t *fleet, const char *policy,
                         fs_scenario *s)
{
    parse_ctx c = {s, NULL, NULL, 0, 0, fleet, policy};
    int rc = dup_into(p, &s->policy, policy ? policy : "default");
    if (rc == FS_OK)
        rc = parse_fields(p, root, &c);
    if (rc == FS_OK)
        rc = parse_policy_settings(p, fleet, policy, s);
    free(c.declared);
    free(c.declared_cal);
    return rc;
}

/* "policies": an object of named fleets, each {"pools": [...]}, in document
 * order; or the top-level "pools" as the one policy "default". */
static int parse_root(fs_jpath *p, const json_t *root, fs_scenario *s)
{
    static const char *const policy_keys[] = {"pools", "kind", "borrowing", "headroom"};
    const json_t *policies = json_is_object(root) ? json_object_get(root, "policies") : NULL;
    size_t n = 1;
    if (policies != NULL) {
        size_t mark = fs_jpath_push_key(p, "policies");
        int rc = FS_OK;
        if (!json_is_object(policies) || json_object_size(policies) == 0)
            rc = fs_jpath_expected(p, policies,
                                   "an object of named policies, each {\"pools\": [...]}");
        else if (json_object_get(root, "pools") != NULL)
            rc = fs_jpath_fail(p, "\"policies\" and a top-level \"pools\" exclude each other: "
                                  "give each policy its pools");
        const char *name;
        const json_t *fleet;
        json_object_foreach((json_t *)policies, name, fleet) {
            if (rc != FS_OK)
                break;
            size_t m = fs_jpath_push_key(p, name);
            if (!json_is_object(fleet))
                rc = fs_jpath_expected(p, fleet, "an object with \"pools\"");
            else
                rc = fs_jpath_check_keys(p, fleet, policy_keys, COUNT(policy_keys));
            if (rc == FS_OK && (name[0] == '\0' || strlen(name) >= FS_GPU_NAME_MAX))
                rc = fs_jpath_fail(p, "expected a policy name of 1 to %d characters",
                                   FS_GPU_NAME_MAX - 1);
            fs_jpath_pop(p, m);
        }
        fs_jpath_pop(p, mark);
        if (rc != FS_OK)
            return rc;
        n = json_object_size(policies);
    }
    s->policies = calloc(n, sizeof *s->policies);
    if (s->policies == NULL)
        return fs_jpath_oom(p);
    s->policies[0] = s;
    s->n_policies = 1;
    if (policies == NULL)
        return parse_variant(p, root, root, NULL, s);
    const char *name;
    const json_t *fleet;
    int rc = FS_OK;
    json_object_foreach((json_t *)policies, name, fleet) {
        fs_scenario *v = s;
        if (s->policy != NULL) { /* the root is the first policy; the rest are new variants */
            v = calloc(1, sizeof *v);
            if (v == NULL || (rc = dup_into(p, &v->path, s->path)) != FS_OK) {
                free(v);
                return rc != FS_OK ? rc : fs_jpath_oom(p);
            }
            s->policies[s->n_policies++] = v;
        }
        rc = parse_variant(p, root, fleet, name, v);
        if (rc != FS_OK)
            return rc;
    }
    return FS_OK;
}

/* jansson's parse of len bytes, duplicate keys refused; errors are
 * "origin:line:column: message". */
static int load_json(const char *text, size_t len, const char *origin, json_t **out, fs_error *err)
{
    json_error_t jerr;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    if (root == NULL) {
        /* jansson marks some allocation failures as such, leaves others with
         * no text and no position (line -1), and reports the rest, from inside
         * its lexer, as a syntax error near a perfectly good token; the last
         * kind cannot be told apart and is reported as bad input. */
        if (json_error_code(&jerr) == json_error_out_of_memory || jerr.line < 0 ||
            jerr.text[0] == '\0')
            return fs_error_set(err, FS_ERR_RUNTIME, "%s: out of memory", origin);
        return fs_error_set(err, FS_ERR_INPUT, "%s:%d:%d: %s", origin, jerr.line, jerr.column,
                            jerr.text);
    }
    *out = root;
    return FS_OK;
}

/* Parses len bytes of text; origin names it in messages and becomes s->path. */
int fs_scenario_parse_json(const json_t *root, const char *origin, fs_scenario **out, fs_error *err)
{
    assert(root != NULL && out != NULL);
    if (origin == NULL)
        origin = "<document>";
    fs_jpath p;
    fs_jpath_init(&p, origin, err);
    fs_scenario *s = calloc(1, sizeof *s);
    int rc = s == NULL ? fs_jpath_oom(&p) : dup_into(&p, &s->path, origin);
    if (rc == FS_OK)
        rc = parse_root(&p, root, s);
    if (rc != FS_OK) {
        fs_scenario_destroy(s);
        return rc;
    }
    *out = s;
    return FS_OK;
}

static int parse_buffer(const char *text, size_t len, const char *origin, fs_scenario **out,
                        fs_error *err)
{
    json_t *root = NULL;
    int rc = load_json(text, len, origin, &root, err);
    if (rc != FS_OK)
        return rc;
    rc = fs_scenario_parse_json(root, origin, out, err);
    json_decref(root);
    return rc;
}

int fs_scenario_parse(const char *text, const char *origin, fs_scenario **out, fs_error *err)
{
    assert(text != NULL && out != NULL);
    return parse_buffer(text, strlen(text), origin != NULL ? origin : "<string>", out, err);
}

/* Reads the whole file into memory: scenario files are kilobytes, and
 * reading it ourselves (rather than json_load_file) tells "cannot read"
 * apart from "bad JSON" with the real errno.  A file the user named that
 * cannot be read is bad input (exit 2), like a file that does not parse. */
static int read_file(const char *path, char **text, size_t *len, fs_error *err)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return fs_error_set(err, FS_ERR_INPUT, "%s: cannot read: %s", path, strerror(errno));
    size_t cap = 64 * 1024, n = 0;
    char *buf = malloc(cap);
    int rc = buf == NULL ? fs_error_set(err, FS_ERR_RUNTIME, "%s: out of memory", path) : FS_OK;
    while (rc == FS_OK) {
        if (n == cap) {
            char *bigger = cap <= SIZE_MAX / 2 ? realloc(buf, cap * 2) : NULL;
            if (bigger == NULL) {
                rc = fs_error_set(err, FS_ERR_RUNTIME, "%s: out of memory", path);
                break;
            }
            buf = bigger;
            cap *= 2;
        }
        errno = 0;
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) {
            if (ferror(f))
                rc = fs_error_set(err, FS_ERR_INPUT, "%s: cannot read: %s", path,
                                  strerror(errno != 0 ? errno : EIO));
            break;
        }
    }
    fclose(f);
    if (rc != FS_OK) {
        free(buf);
        return rc;
    }
    *text = buf;
    *len = n;
    return FS_OK;
}

int fs_scenario_load(const char *path, fs_scenario **out, fs_error *err)
{
    assert(path != NULL && out != NULL);
    char *text = NULL;
    size_t len = 0;
    int rc = read_file(path, &text, &len, err);
    if (rc != FS_OK)
        return rc;
    rc = parse_buffer(text, len, path, out, err);
    free(text);
    return rc;
}

void fs_scenario_destroy(fs_scenario *s)
{
    if (s == NULL)
        return;
    for (size_t k = 1; s->policies && k < s->n_policies; k++)
        fs_scenario_destroy(s->policies[k]);
    free(s->policies);
    free(s->policy);
    free(s->path);
    free(s->name);
    free(s->description);
    for (size_t i = 0; i < s->n_pools; i++) {
        free(s->pools[i].name);
        free(s->pools[i].gpu);
        fs_dist_fini(&s->pools[i].provision_delay);
    }
    free(s->pools);
    for (size_t i = 0; i < s->n_services; i++) {
        fs_service_spec *svc = &s->services[i];
        free(svc->name);
        free(svc->tenant);
        free(svc->arrivals.bursts);
        if (svc->arrivals.trace) {
            fs_trace_spec_fini(svc->arrivals.trace);
            free(svc->arrivals.trace);
        }
        /* Safe on a service whose distribution was never built: its zeroed
         * fs_dist is a deterministic one with no samples. */
        fs_dist_fini(&svc->service_time);
    }
    free(s->services);
    for (size_t i = 0; i < s->n_training; i++) {
        free(s->training[i].name);
        free(s->training[i].tenant);
        free(s->training[i].submit_at_s);
        if (s->training[i].trace) {
            fs_trace_spec_fini(s->training[i].trace);
            free(s->training[i].trace);
        }
    }
    free(s->training);
    free(s->gpu_types);
    free(s->gpu_switch_costs);
    free(s);
}

int fs_scenario_override(fs_scenario *s, int64_t seed, int64_t replications, double horizon_s,
                         fs_error *err)
{
    assert(s != NULL);
    /* Check everything before changing anything, so a refused override
     * leaves the scenario as it was. */
    if (replications > MAX_REPLICATIONS)
        return fs_error_set(
            err, FS_ERR_INPUT,
            "%s: replications (override): expected an integer from 1 to %d, got %" PRId64, s->path,
            MAX_REPLICATIONS, replications);
    if (horizon_s > 0) {
        char got[64], warmup[64];
        fs_duration_format(horizon_s, got, sizeof got);
        fs_duration_format(s->warmup_s, warmup, sizeof warmup);
        if (!isfinite(horizon_s))
            return fs_error_set(err, FS_ERR_INPUT,
                                "%s: horizon (override): expected a finite duration, got %s",
                                s->path, got);
        if (s->warmup_s >= horizon_s)
            return fs_error_set(err, FS_ERR_INPUT,
                                "%s: horizon (override): expected a duration longer than the "
                                "warm-up (%s), got %s",
                                s->path, warmup, got);
    }
    for (size_t k = 0; k < (s->policies ? s->n_policies : 1); k++) {
        fs_scenario *v = s->policies ? s->policies[k] : s;
        if (seed >= 0)
            v->seed = (uint64_t)seed;
        if (replications > 0)
            v->replications = (uint32_t)replications;
        if (horizon_s > 0)
            v->horizon_s = horizon_s;
    }
    return FS_OK;
}

/* Every variant shares the run settings. */
static void set_warmup(fs_scenario *s, double warmup_s)
{
    for (size_t k = 0; k < (s->policies ? s->n_policies : 1); k++)
        (s->policies ? s->policies[k] : s)->warmup_s = warmup_s;
}

int fs_scenario_apply_ci(fs_scenario *s, fs_error *err)
{
    assert(s != NULL);
    double horizon = s->ci_horizon_s > 0 ? s->ci_horizon_s : s->horizon_s;
    double warmup = s->ci_warmup_s > 0 ? s->ci_warmup_s : s->warmup_s;
    if (warmup >= horizon) {
        char h[64], w[64];
        fs_duration_format(horizon, h, sizeof h);
        fs_duration_format(warmup, w, sizeof w);
        return fs_error_set(err, FS_ERR_INPUT,
                            "%s: ci: the warm-up (%s) must stay below the horizon (%s)", s->path,
                            w, h);
    }
    /* The new warm-up goes in first: fs_scenario_override then checks the
     * new horizon against it, which the pair checked above passes.  Should
     * override refuse anyway, the old warm-up is put back, so that a failed
     * call changes nothing. */
    double old_warmup = s->warmup_s;
    set_warmup(s, warmup);
    int rc = fs_scenario_override(s, -1, s->ci_replications > 0 ? (int64_t)s->ci_replications : -1,
                                  s->ci_horizon_s > 0 ? s->ci_horizon_s : -1, err);
    if (rc != FS_OK)
        set_warmup(s, old_warmup);
    return rc;
}

const fs_switch_costs *fs_scenario_switch_costs(const fs_scenario *s, size_t gpu_type)
{
    assert(s != NULL && gpu_type < s->n_gpu_types);
    /* NULL in a scenario built by hand rather than parsed: the scenario's own. */
    return s->gpu_switch_costs != NULL ? &s->gpu_switch_costs[gpu_type] : &s->switch_costs;
}

void fs_scenario_set_lenient(fs_scenario *s)
{
    size_t n = s->policies ? s->n_policies : 1;
    for (size_t v = 0; v < n; v++) {
        fs_scenario *variant = s->policies ? s->policies[v] : s;
        for (size_t i = 0; i < variant->n_services; i++)
            if (variant->services[i].arrivals.trace)
                variant->services[i].arrivals.trace->lenient = true;
        for (size_t i = 0; i < variant->n_training; i++)
            if (variant->training[i].trace)
                variant->training[i].trace->lenient = true;
    }
}

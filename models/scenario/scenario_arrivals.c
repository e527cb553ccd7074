/*
 * scenario_arrivals — a service's "arrivals": a Poisson rate shaped by hourly
 * profiles ("diurnal", "weekday", "weekend") and "bursts", or a replayed
 * "trace" (CSV or JSON Lines) and the service times its rows give.  The keys beyond that (trend,
 * modulation, groups) are scenario_process.c's; the bound on the rate they
 * all make together is here.  The "trace" object itself
 * (fs__scenario_parse_trace_spec) is also what a training stream's "submit"
 * names (scenario_training.c).
 */
#include "scenario_parse.h"

#include "duration.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int fs__scenario_multipliers(fs_jpath *p, const json_t *list, double *out, size_t n)
{
    int rc = FS_OK;
    for (size_t i = 0; rc == FS_OK && i < n; i++) {
        size_t m = fs_jpath_push_index(p, i);
        rc = fs_jpath_number(p, json_array_get(list, i), FS_JPATH_NONNEG, &out[i]);
        if (rc == FS_OK)
            rc = fs__scenario_cap(p, json_array_get(list, i), out[i], FS_SCENARIO_MAX_MULTIPLIER, "");
        fs_jpath_pop(p, m);
    }
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
    if (rc == FS_OK)
        rc = fs__scenario_multipliers(p, v, out, 24);
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
    if (n > FS_SCENARIO_MAX_BURSTS) {
        size_t m = fs_jpath_push_key(p, "bursts");
        rc = fs_jpath_fail(p, "expected at most %d bursts (the limit; replay a trace for more), got %zu",
                           FS_SCENARIO_MAX_BURSTS, n);
        fs_jpath_pop(p, m);
        return rc;
    }
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
            rc = fs__scenario_get_capped(p, b, "multiplier", true, FS_JPATH_POSITIVE,
                                         FS_SCENARIO_MAX_MULTIPLIER, "", &out->multiplier);
        if (rc == FS_OK)
            rc = fs_jpath_get_duration(p, b, "duration", true, FS_JPATH_POSITIVE, &out->duration_s);
        fs_jpath_pop(p, m);
    }
    fs_jpath_pop(p, mark);
    if (rc == FS_OK)
        qsort(a->bursts, n, sizeof *a->bursts, burst_cmp);
    return rc;
}

/* The most the bursts multiply the rate by at any time (1 with none).  The
 * product changes only where a burst starts or ends, so it is evaluated
 * there: O(n^2) for n <= FS_SCENARIO_MAX_BURSTS, once per load. */
static double burst_peak(const fs_arrivals *a)
{
    double peak = 1;
    for (size_t i = 0; i < 2 * a->n_bursts; i++) {
        const fs_burst *at = &a->bursts[i / 2];
        double t = i % 2 ? at->at_s + at->duration_s : at->at_s;
        double product = 1;
        for (size_t j = 0; j < a->n_bursts; j++) {
            const fs_burst *b = &a->bursts[j];
            if (t >= b->at_s && t < b->at_s + b->duration_s)
                product *= b->multiplier;
        }
        peak = fmax(peak, product);
    }
    return peak;
}

/* A column name read into *out (owned), if the key is there. */
static int get_column(fs_jpath *p, const json_t *obj, const char *key, char **out)
{
    const char *name = NULL;
    int rc = fs_jpath_get_string(p, obj, key, false, true, &name);
    if (rc != FS_OK || name == NULL)
        return rc;
    free(*out);
    *out = fs__scenario_dup_str(name);
    return *out ? FS_OK : fs_jpath_oom(p);
}

/* "where": {"COLUMN": "text" or ["text", ...], ...}: rows are kept when
 * every named column's text is one of its values (trace.h). */
static int parse_where(fs_jpath *p, const json_t *obj, fs_trace_spec *spec)
{
    const json_t *where = json_object_get(obj, "where");
    if (!where)
        return FS_OK;
    size_t m = fs_jpath_push_key(p, "where");
    int rc = json_is_object(where) && json_object_size(where) > 0
                 ? FS_OK
                 : fs_jpath_expected(p, where, "an object of column names to the text (or list of texts) kept");
    if (rc == FS_OK && !(spec->where = calloc(json_object_size(where), sizeof *spec->where)))
        rc = fs_jpath_oom(p);
    const char *col;
    const json_t *v;
    json_object_foreach((json_t *)where, col, v) {
        if (rc != FS_OK)
            break;
        size_t mk = fs_jpath_push_key(p, col);
        fs_trace_where *w = &spec->where[spec->n_where++];
        bool list = json_is_array(v);
        size_t n = list ? json_array_size(v) : 1;
        if (!(list ? n > 0 : json_is_string(v)))
            rc = fs_jpath_expected(p, v, "a text or a non-empty list of texts (a field's text, e.g. \"0\")");
        else if (!(w->col = strdup(col)) || !(w->values = calloc(n, sizeof *w->values)))
            rc = fs_jpath_oom(p);
        for (size_t i = 0; rc == FS_OK && i < n; i++) {
            const json_t *item = list ? json_array_get(v, i) : v;
            size_t mi = list ? fs_jpath_push_index(p, i) : 0;
            if (!json_is_string(item))
                rc = fs_jpath_expected(p, item, "a text (a field's text, e.g. \"0\")");
            else if (!(w->values[w->n_values++] = strdup(json_string_value(item))))
                rc = fs_jpath_oom(p);
            if (list)
                fs_jpath_pop(p, mi);
        }
        fs_jpath_pop(p, mk);
    }
    fs_jpath_pop(p, m);
    return rc;
}

/* "trace": {"file" (+ "format"), "preset" or "time" (+ "time_format"), "sizes", "prefix"
 * and "prefix_tokens" / for jobs "gpus", "duration" or "end", "priority",
 * "tenant"; "rate_scale", "shift",
 * "repeat", "tolerance", "where"}; the cursor is on it. */
int fs__scenario_parse_trace_spec(fs_jpath *p, const json_t *obj, fs_trace_kind kind,
                                  fs_trace_spec **out)
{
    const char *file = NULL, *preset = NULL, *format = NULL;
    int rc = fs_jpath_get_string(p, obj, "file", true, true, &file);
    if (rc == FS_OK)
        rc = fs_jpath_get_string(p, obj, "preset", false, true, &preset);
    if (rc != FS_OK)
        return rc;
    char *path = fs__scenario_relative_path(p->origin, file);
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
    const char *file_format = NULL;
    if (rc == FS_OK)
        rc = fs_jpath_get_string(p, obj, "format", false, true, &file_format);
    if (rc == FS_OK && file_format) {
        size_t m = fs_jpath_push_key(p, "format");
        if (strcmp(file_format, "csv") == 0)
            spec->format = FS_TRACE_FORMAT_CSV;
        else if (strcmp(file_format, "jsonl") == 0)
            spec->format = FS_TRACE_FORMAT_JSONL;
        else
            rc = fs_jpath_fail(p, "expected \"csv\" or \"jsonl\" (JSON Lines), got \"%s\"", file_format);
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
                rc = (spec->size_cols[k] = fs__scenario_dup_str(col)) ? FS_OK : fs_jpath_oom(p);
            }
            fs_jpath_pop(p, mi);
            fs_jpath_pop(p, m);
        }
        if (rc == FS_OK)
            rc = get_column(p, obj, "prefix", &spec->prefix_col);
        if (rc == FS_OK)
            rc = get_column(p, obj, "prefix_tokens", &spec->prefix_tokens_col);
        if (rc == FS_OK && (spec->prefix_col == NULL) != (spec->prefix_tokens_col == NULL)) {
            size_t m = fs_jpath_push_key(p, spec->prefix_col ? "prefix" : "prefix_tokens");
            rc = fs_jpath_fail(p, spec->prefix_col
                                      ? "expected a \"prefix_tokens\" column beside it (how many leading prompt "
                                        "tokens the prefix covers)"
                                      : "expected a \"prefix\" column beside it (the identity whose tokens it counts)");
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
        rc = fs__scenario_get_bounded(p, obj, "rate_scale", false, FS_JPATH_POSITIVE,
                                      FS_SCENARIO_MIN_RATE_SCALE, FS_SCENARIO_MAX_MULTIPLIER, "",
                                      &spec->rate_scale);
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
    if (rc == FS_OK)
        rc = parse_where(p, obj, spec);
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
    static const char *const keys[] = {"file",          "format",     "preset", "time",   "time_format",
                                       "sizes",         "prefix",     "prefix_tokens", "rate_scale", "shift",
                                       "repeat",        "tolerance",  "service_time",  "where"};
    size_t m = fs_jpath_push_key(p, "trace");
    int rc = json_is_object(obj) ? fs_jpath_check_keys(p, obj, keys, COUNT(keys))
                                 : fs_jpath_expected(p, obj, "an object naming a trace file");
    if (rc == FS_OK)
        rc = fs__scenario_parse_trace_spec(p, obj, FS_TRACE_REQUESTS, &a->trace);
    if (rc == FS_OK)
        rc = parse_trace_service_time(p, obj, a);
    fs_jpath_pop(p, m);
    return rc;
}

/* The deterministic factors' most: the highest daily level that applies
 * before the horizon (1 without levels) and the growth by the horizon (1
 * for none or a decline). */
static double levels_peak(const fs_arrivals *a, double horizon_s)
{
    double peak = a->n_daily_levels ? 0 : 1;
    for (size_t d = 0; d < a->n_daily_levels && (double)d * 86400 < horizon_s; d++)
        peak = fmax(peak, a->daily_levels[d]);
    return peak;
}

static double growth_peak(const fs_arrivals *a, double horizon_s)
{
    return a->growth > 0 ? exp(horizon_s / a->growth_period_s * log1p(a->growth)) : 1;
}

int fs__scenario_arrivals_bound(const fs_arrivals *a, double horizon_s, char *why, size_t size)
{
    if (a->trace)
        return FS_OK;
    double profile_peak = 0, top = a->base_rps;
    for (int h = 0; h < 24; h++)
        profile_peak = fmax(profile_peak, fmax(a->weekday[h], a->weekend[h]));
    for (size_t i = 0; i < a->n_mmpp; i++)
        top = i ? fmax(top, a->mmpp[i].rps) : a->mmpp[i].rps;
    double growth = growth_peak(a, horizon_s), levels = levels_peak(a, horizon_s);
    /* Compounding growth alone could overflow the rate (and 0 x inf is no
     * rate), so its factor is capped as every multiplier is. */
    if (!(growth <= FS_SCENARIO_MAX_MULTIPLIER)) {
        char horizon[64];
        fs_duration_format(horizon_s, horizon, sizeof horizon);
        snprintf(why, size,
                 "growth of %g%% a %s compounds to %.4g times the starting rate by the horizon (%s), more "
                 "than the %g allowed (the limit)",
                 a->growth * 100, a->growth_period_s == 86400       ? "day"
                                  : a->growth_period_s == 7 * 86400 ? "week"
                                  : a->growth_period_s == 365.25 / 12 * 86400 ? "month"
                                                                              : "year",
                 growth, horizon, FS_SCENARIO_MAX_MULTIPLIER);
        return FS_ERR_INPUT;
    }
    /* Each factor is capped, but their product is the rate the simulation
     * draws requests at; an upper bound of it (the hourly peak need not
     * meet the bursts' or the levels' peak) is held to the same limit as
     * poisson_rps.  A "noise" factor has no upper bound (a lognormal is
     * unbounded), so it is left out: its mean is 1. */
    double peak = top * profile_peak * burst_peak(a) * levels * growth;
    if (peak <= FS_SCENARIO_MAX_RATE_RPS)
        return FS_OK;
    int n = snprintf(why, size, "%s (%g) x the highest hourly multiplier (%g) x the most the bursts multiply at once (%g)",
                     a->n_mmpp ? "the busiest mmpp state's rps" : "poisson_rps", top, profile_peak, burst_peak(a));
    if (a->n_daily_levels && n > 0 && (size_t)n < size)
        n += snprintf(why + n, size - (size_t)n, " x the highest daily level (%g)", levels);
    if (a->growth > 0 && n > 0 && (size_t)n < size)
        n += snprintf(why + n, size - (size_t)n, " x the growth by the horizon (%.3g)", growth);
    if (n > 0 && (size_t)n < size)
        snprintf(why + n, size - (size_t)n, " may reach %.3g requests/s, more than the %g allowed (the limit)", peak,
                 FS_SCENARIO_MAX_RATE_RPS);
    return FS_ERR_INPUT;
}

int fs__scenario_parse_arrivals(fs_jpath *p, const json_t *svc, double horizon_s, fs_arrivals *a)
{
    static const char *const keys[] = {"poisson_rps", "diurnal", "weekday", "weekend", "bursts", "trace",
                                       "growth",      "daily_levels", "mmpp", "noise", "groups"};
    json_t *obj = NULL;
    int rc = fs_jpath_get_object(p, svc, "arrivals", true, &obj);
    if (rc != FS_OK)
        return rc;
    size_t mark = fs_jpath_push_key(p, "arrivals");
    json_t *trace = json_object_get(obj, "trace");
    if (trace) {
        rc = json_object_size(obj) == 1 ? parse_trace_arrivals(p, trace, a)
                                        : fs_jpath_fail(p, "expected \"trace\" alone: a replayed trace has no "
                                                           "poisson_rps, profile, bursts, growth, daily levels, "
                                                           "mmpp, noise or groups of its own");
        fs_jpath_pop(p, mark);
        for (int h = 0; h < 24; h++)
            a->weekday[h] = a->weekend[h] = 1.0;
        return rc;
    }
    rc = fs_jpath_check_keys(p, obj, keys, COUNT(keys));
    bool mmpp = json_object_get(obj, "mmpp") != NULL;
    if (rc == FS_OK && mmpp && json_object_get(obj, "poisson_rps")) {
        size_t m = fs_jpath_push_key(p, "mmpp");
        rc = fs_jpath_fail(p, "replaces poisson_rps (its states give the rates, their stationary mean the "
                              "base rate): give one or the other, not both");
        fs_jpath_pop(p, m);
    }
    if (rc == FS_OK && !mmpp)
        rc = fs__scenario_get_capped(p, obj, "poisson_rps", true, FS_JPATH_NONNEG,
                                     FS_SCENARIO_MAX_RATE_RPS, "requests/s", &a->base_rps);
    if (rc == FS_OK)
        rc = fs__scenario_parse_rate_shape(p, obj, horizon_s, a);
    fs_jpath_pop(p, mark);
    return rc;
}

int fs__scenario_parse_rate_shape(fs_jpath *p, const json_t *obj, double horizon_s, fs_arrivals *a)
{
    double diurnal[24], weekday[24], weekend[24];
    bool has_diurnal = false, has_weekday = false, has_weekend = false;
    int rc = parse_profile(p, obj, "diurnal", diurnal, &has_diurnal);
    if (rc == FS_OK)
        rc = parse_profile(p, obj, "weekday", weekday, &has_weekday);
    if (rc == FS_OK)
        rc = parse_profile(p, obj, "weekend", weekend, &has_weekend);
    if (rc == FS_OK)
        rc = parse_bursts(p, obj, a);
    if (rc == FS_OK)
        rc = fs__scenario_parse_process(p, obj, a);
    if (rc != FS_OK)
        return rc;
    for (int h = 0; h < 24; h++) {
        a->weekday[h] = has_weekday ? weekday[h] : has_diurnal ? diurnal[h] : 1.0;
        a->weekend[h] = has_weekend ? weekend[h] : has_diurnal ? diurnal[h] : 1.0;
    }
    char why[512];
    rc = fs__scenario_arrivals_bound(a, horizon_s, why, sizeof why);
    return rc != FS_OK ? fs_jpath_fail(p, "%s", why) : FS_OK;
}

void fs__scenario_free_arrivals(fs_arrivals *a)
{
    free(a->bursts);
    free(a->daily_levels);
    free(a->groups.sizes);
    free(a->groups.weights);
    if (a->trace) {
        fs_trace_spec_fini(a->trace);
        free(a->trace);
    }
}

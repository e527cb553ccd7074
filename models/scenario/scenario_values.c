/*
 * scenario_values — the typed readers every section of the scenario document
 * shares: owned copies of strings, ASCII case folding, one-of-a-list choices
 * (with the nearest name when one is close), booleans, and distributions
 * ({"lognormal": {...}}: a service's "service_time", a pool's "provision").
 */
#include "scenario_parse.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "duration.h"
#include "memsize.h"

/* ----------------------------------------------------------------- strings */

/* Our own copy instead of POSIX strdup so that every allocation this module
 * makes goes through malloc/calloc, which is what fault-injection tests hook. */
char *fs__scenario_dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d != NULL)
        memcpy(d, s, n);
    return d;
}

int fs__scenario_dup_into(fs_jpath *p, char **dst, const char *src)
{
    *dst = fs__scenario_dup_str(src);
    return *dst == NULL ? fs_jpath_oom(p) : FS_OK;
}

/* ASCII only, unlike tolower(), so the result does not depend on the locale. */
char fs__scenario_ascii_lower(char c)
{
    return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

bool fs__scenario_ascii_iequal(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (fs__scenario_ascii_lower(*a) != fs__scenario_ascii_lower(*b))
            return false;
    return *a == *b;
}

/* ------------------------------------------------------------------ limits */

/* Refuses v (at the cursor) as beyond bound, "at most" or "at least" it:
 * a duration when unit is NULL, else a number in unit. */
static int limit_error(fs_jpath *p, const json_t *v, const char *side, double bound, const char *unit)
{
    if (unit == NULL) {
        char limit[64];
        fs_duration_format(bound, limit, sizeof limit);
        return fs_jpath_expected(p, v, "%s %s (the limit)", side, limit);
    }
    return fs_jpath_expected(p, v, "%s %g%s%s (the limit)", side, bound, *unit ? " " : "", unit);
}

int fs__scenario_cap(fs_jpath *p, const json_t *v, double x, double max, const char *unit)
{
    return x <= max ? FS_OK : limit_error(p, v, "at most", max, unit);
}

/* Reads obj[key] with read(), then holds it to [min, max] (unit NULL: a
 * duration). */
static int get_bounded(fs_jpath *p, const json_t *obj, const char *key, bool required,
                       fs_jpath_sign sign, double min, double max, const char *unit, double *out,
                       int (*read)(fs_jpath *, const json_t *, const char *, bool, fs_jpath_sign,
                                   double *))
{
    double x = *out;
    int rc = read(p, obj, key, required, sign, &x);
    if (rc != FS_OK || json_object_get(obj, key) == NULL)
        return rc;
    size_t mark = fs_jpath_push_key(p, key);
    rc = x < min ? limit_error(p, json_object_get(obj, key), "at least", min, unit)
                 : fs__scenario_cap(p, json_object_get(obj, key), x, max, unit);
    fs_jpath_pop(p, mark);
    if (rc == FS_OK)
        *out = x;
    return rc;
}

int fs__scenario_get_capped(fs_jpath *p, const json_t *obj, const char *key, bool required,
                            fs_jpath_sign sign, double max, const char *unit, double *out)
{
    return get_bounded(p, obj, key, required, sign, -HUGE_VAL, max, unit, out, fs_jpath_get_number);
}

int fs__scenario_get_capped_duration(fs_jpath *p, const json_t *obj, const char *key,
                                     bool required, fs_jpath_sign sign, double max, double *out)
{
    return get_bounded(p, obj, key, required, sign, -HUGE_VAL, max, NULL, out, fs_jpath_get_duration);
}

int fs__scenario_get_bounded(fs_jpath *p, const json_t *obj, const char *key, bool required,
                             fs_jpath_sign sign, double min, double max, const char *unit,
                             double *out)
{
    return get_bounded(p, obj, key, required, sign, min, max, unit, out, fs_jpath_get_number);
}

int fs__scenario_get_floored_duration(fs_jpath *p, const json_t *obj, const char *key,
                                      bool required, double min, double *out)
{
    return get_bounded(p, obj, key, required, FS_JPATH_POSITIVE, min, HUGE_VAL, NULL, out,
                       fs_jpath_get_duration);
}

/* ----------------------------------------------------------------- choices */

/* Refuses v (at the cursor) as not one of names[n], listing them and giving
 * the nearest when one is close. */
int fs__scenario_choice_error(fs_jpath *p, const json_t *v, const char *what,
                              const char *const *names, size_t n)
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
int fs__scenario_get_choice(fs_jpath *p, const json_t *obj, const char *key, const char *what,
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
    int rc = fs__scenario_choice_error(p, v, what, names, n);
    fs_jpath_pop(p, mark);
    return rc;
}

/* obj[key], when present, as true or false. */
int fs__scenario_get_bool(fs_jpath *p, const json_t *obj, const char *key, bool *out)
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

/* get_bounded's reader for memory sizes (never required). */
static int read_memory(fs_jpath *p, const json_t *obj, const char *key, bool required, fs_jpath_sign sign,
                       double *gib)
{
    (void)required;
    json_t *v = json_object_get(obj, key);
    if (v == NULL || json_is_number(v))
        return fs_jpath_get_number(p, obj, key, false, sign, gib);
    size_t mark = fs_jpath_push_key(p, key);
    const char *what = sign == FS_JPATH_POSITIVE ? "a positive memory size" : "a memory size";
    double bytes = 0;
    char why[128] = "";
    int rc = FS_OK;
    if (!json_is_string(v) || fs_memsize_parse(json_string_value(v), &bytes, why, sizeof why) != 0 ||
        (sign == FS_JPATH_POSITIVE && !(bytes > 0))) {
        char got[128];
        fs_jpath_describe(v, got, sizeof got);
        rc = fs_jpath_fail(p, "expected %s in GiB (a number) or with its unit (\"80GiB\", \"85.9GB\"), got %s%s%s%s",
                           what, got, why[0] ? " (" : "", why, why[0] ? ")" : "");
    } else {
        *gib = bytes / FS_GIB;
    }
    fs_jpath_pop(p, mark);
    return rc;
}

int fs__scenario_get_memory(fs_jpath *p, const json_t *obj, const char *key, fs_jpath_sign sign, double *gib)
{
    return get_bounded(p, obj, key, false, sign, -HUGE_VAL, FS_SCENARIO_MAX_MEMORY_GB, "GiB", gib,
                       read_memory);
}

/* ------------------------------------------------------------ distributions */

static const char *const dist_kinds[] = {"exponential", "deterministic", "lognormal",
                                         "gamma",       "uniform",       "empirical"};

/* A distribution's parameters are durations (service times, delays) or plain
 * numbers (token counts): `counts` picks the reader and the empirical key. */
static int get_param(fs_jpath *p, const json_t *params, const char *key, bool counts,
                     fs_jpath_sign sign, double *out)
{
    return counts ? fs_jpath_get_number(p, params, key, true, sign, out)
                  : fs_jpath_get_duration(p, params, key, true, sign, out);
}

static int parse_empirical(fs_jpath *p, const json_t *params, bool counts, fs_dist *d)
{
    const char *key = counts ? "samples" : "samples_ms";
    json_t *list = NULL;
    int rc = fs_jpath_get_array(p, params, key, true, true, &list);
    if (rc != FS_OK)
        return rc;
    size_t n = json_array_size(list);
    double *samples = malloc(n * sizeof *samples);
    if (samples == NULL)
        return fs_jpath_oom(p);
    size_t mark = fs_jpath_push_key(p, key);
    for (size_t i = 0; rc == FS_OK && i < n; i++) {
        size_t m = fs_jpath_push_index(p, i);
        rc = fs_jpath_number(p, json_array_get(list, i), FS_JPATH_NONNEG, &samples[i]);
        if (rc == FS_OK && !counts)
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
static int parse_dist_params(fs_jpath *p, const char *kind, const json_t *params, bool counts, fs_dist *d)
{
    static const char *const k_exp[] = {"mean"}, *const k_det[] = {"value"},
                             *const k_logn[] = {"median", "sigma"},
                             *const k_gamma[] = {"mean", "cv"}, *const k_unif[] = {"min", "max"},
                             *const k_emp[] = {"samples_ms"}, *const k_emp_counts[] = {"samples"};
    double a = 0, b = 0;
    int rc, e;
    if (strcmp(kind, "exponential") == 0) {
        rc = fs_jpath_check_keys(p, params, k_exp, COUNT(k_exp));
        if (rc == FS_OK)
            rc = get_param(p, params, "mean", counts, FS_JPATH_POSITIVE, &a);
        e = rc == FS_OK ? fs_dist_exponential(d, a) : 0;
    } else if (strcmp(kind, "deterministic") == 0) {
        rc = fs_jpath_check_keys(p, params, k_det, COUNT(k_det));
        if (rc == FS_OK)
            rc = get_param(p, params, "value", counts, FS_JPATH_NONNEG, &a);
        e = rc == FS_OK ? fs_dist_deterministic(d, a) : 0;
    } else if (strcmp(kind, "lognormal") == 0) {
        rc = fs_jpath_check_keys(p, params, k_logn, COUNT(k_logn));
        if (rc == FS_OK)
            rc = get_param(p, params, "median", counts, FS_JPATH_POSITIVE, &a);
        if (rc == FS_OK)
            rc = fs_jpath_get_number(p, params, "sigma", true, FS_JPATH_NONNEG, &b);
        e = rc == FS_OK ? fs_dist_lognormal(d, a, b) : 0;
    } else if (strcmp(kind, "gamma") == 0) {
        rc = fs_jpath_check_keys(p, params, k_gamma, COUNT(k_gamma));
        if (rc == FS_OK)
            rc = get_param(p, params, "mean", counts, FS_JPATH_POSITIVE, &a);
        if (rc == FS_OK)
            rc = fs_jpath_get_number(p, params, "cv", true, FS_JPATH_POSITIVE, &b);
        e = rc == FS_OK ? fs_dist_gamma(d, a, b) : 0;
    } else if (strcmp(kind, "uniform") == 0) {
        rc = fs_jpath_check_keys(p, params, k_unif, COUNT(k_unif));
        if (rc == FS_OK)
            rc = get_param(p, params, "min", counts, FS_JPATH_NONNEG, &a);
        if (rc == FS_OK)
            rc = get_param(p, params, "max", counts, FS_JPATH_NONNEG, &b);
        if (rc == FS_OK && b < a) {
            char min_text[64];
            if (counts)
                snprintf(min_text, sizeof min_text, "%g", a);
            else
                fs_duration_format(a, min_text, sizeof min_text);
            size_t m = fs_jpath_push_key(p, "max");
            rc = fs_jpath_expected(p, json_object_get(params, "max"),
                                   counts ? "a number no smaller than min (%s)"
                                          : "a duration no shorter than min (%s)", min_text);
            fs_jpath_pop(p, m);
        }
        e = rc == FS_OK ? fs_dist_uniform(d, a, b) : 0;
    } else {
        assert(strcmp(kind, "empirical") == 0);
        rc = counts ? fs_jpath_check_keys(p, params, k_emp_counts, COUNT(k_emp_counts))
                    : fs_jpath_check_keys(p, params, k_emp, COUNT(k_emp));
        return rc == FS_OK ? parse_empirical(p, params, counts, d) : rc;
    }
    if (rc == FS_OK && e == ENOMEM)
        return fs_jpath_oom(p);
    if (rc == FS_OK && e != 0)
        return fs_jpath_fail(p, "invalid %s distribution parameters (%g, %g)", kind, a, b);
    return rc;
}

static int parse_dist(fs_jpath *p, const json_t *parent, const char *member, bool required, bool counts,
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
            rc = parse_dist_params(p, kind, params, counts, d);
        fs_jpath_pop(p, m);
    }
    fs_jpath_pop(p, mark);
    return rc;
}

int fs__scenario_parse_dist(fs_jpath *p, const json_t *parent, const char *member, bool required,
                            fs_dist *d)
{
    return parse_dist(p, parent, member, required, false, d);
}

int fs__scenario_parse_count_dist(fs_jpath *p, const json_t *parent, const char *member, bool required,
                                  fs_dist *d)
{
    return parse_dist(p, parent, member, required, true, d);
}

#include "sweep.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "jsonpath.h"
#include "number.h"
#include "placement.h"
#include "run.h"
#include "scenario.h"

/* ---- JSON paths into the document ---- */

/* One step of a path: ".key", "[3]" or "[name]" (the array element whose
 * "name" is name; on an object, the key).  Writes the step into seg and
 * returns the rest of the path, or NULL when the path is malformed. */
static const char *fs__next_step(const char *path, char *seg, size_t size, bool *bracket)
{
    size_t n = 0;
    *bracket = *path == '[';
    if (*bracket) {
        const char *close = strchr(path, ']');
        if (!close || close == path + 1 || (size_t)(close - path - 1) >= size)
            return NULL;
        n = (size_t)(close - path - 1);
        memcpy(seg, path + 1, n);
        path = close + 1;
    } else {
        while (path[n] && path[n] != '.' && path[n] != '[')
            n++;
        if (n == 0 || n >= size)
            return NULL;
        memcpy(seg, path, n);
        path += n;
    }
    seg[n] = '\0';
    if (*path == '.' && path[1] && path[1] != '.' && path[1] != '[')
        path++;
    else if (*path && *path != '[')
        return NULL;
    return path;
}

static bool fs__is_index(const char *seg, size_t *index)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(seg, &end, 10);
    if (errno || *end || end == seg || seg[0] == '-' || seg[0] == '+')
        return false;
    *index = (size_t)v;
    return true;
}

/* The child of cur at one step, or NULL with a message in why. */
static json_t *fs__child(json_t *cur, const char *seg, bool bracket, char *why, size_t size)
{
    size_t index;
    if (json_is_array(cur) && bracket && fs__is_index(seg, &index)) {
        if (index < json_array_size(cur))
            return json_array_get(cur, index);
        snprintf(why, size, "index %zu is past the end (the list has %zu)", index, json_array_size(cur));
        return NULL;
    }
    if (json_is_array(cur) && bracket) {
        size_t k;
        json_t *item;
        json_array_foreach(cur, k, item) {
            const char *name = json_string_value(json_object_get(item, "name"));
            if (name && strcmp(name, seg) == 0)
                return item;
        }
        snprintf(why, size, "no element named \"%s\"", seg);
        return NULL;
    }
    if (json_is_object(cur)) {
        json_t *child = json_object_get(cur, seg);
        if (child)
            return child;
        char keys[256] = "";
        size_t len = 0;
        const char *key;
        json_t *v;
        json_object_foreach(cur, key, v) {
            if (len < sizeof keys)
                len += (size_t)snprintf(keys + len, sizeof keys - len, "%s%s", len ? ", " : "", key);
        }
        snprintf(why, size, "no key \"%s\" (keys there: %s)", seg, keys);
        return NULL;
    }
    snprintf(why, size, "\"%s\" is not inside an object or a list", seg);
    return NULL;
}

/* Sets path in doc to value (borrowed): every step but the last must exist;
 * the last may be a new key of an object. */
static int fs__set_path(json_t *doc, const char *path, json_t *value, const char *context, fs_error *err)
{
    char seg[256], why[400];
    bool bracket;
    json_t *cur = doc;
    const char *rest = path;
    for (;;) {
        rest = fs__next_step(rest, seg, sizeof seg, &bracket);
        if (!rest)
            return fs_error_set(err, FS_ERR_INPUT,
                                "%s: path \"%s\": expected keys separated by dots with [index] or [name] "
                                "steps, like policies.shared.pools[0].gpus",
                                context, path);
        if (*rest == '\0')
            break;
        cur = fs__child(cur, seg, bracket, why, sizeof why);
        if (!cur)
            return fs_error_set(err, FS_ERR_INPUT, "%s: path \"%s\": %s", context, path, why);
    }
    size_t index;
    if (json_is_object(cur)) {
        if (json_object_set(cur, seg, value) != 0)
            return fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
        return FS_OK;
    }
    if (json_is_array(cur) && fs__is_index(seg, &index) && index < json_array_size(cur)) {
        if (json_array_set(cur, index, value) != 0)
            return fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
        return FS_OK;
    }
    if (json_is_array(cur)) {
        /* [name] as the last step replaces that element. */
        size_t k;
        json_t *item;
        json_array_foreach(cur, k, item) {
            const char *name = json_string_value(json_object_get(item, "name"));
            if (name && strcmp(name, seg) == 0)
                return json_array_set(cur, k, value) == 0 ? FS_OK
                                                          : fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
        }
    }
    fs__child(cur, seg, bracket, why, sizeof why);
    return fs_error_set(err, FS_ERR_INPUT, "%s: path \"%s\": %s", context, path, why);
}

/* The value at path (borrowed), or NULL with FS_ERR_INPUT naming the step
 * that leads nowhere. */
const json_t *fs_sweep_get(const fs_sweep *sw, const char *path, fs_error *err)
{
    char seg[256], why[400];
    bool bracket;
    json_t *cur = sw->doc;
    for (const char *rest = path; cur && *rest;) {
        if (!(rest = fs__next_step(rest, seg, sizeof seg, &bracket))) {
            fs_error_set(err, FS_ERR_INPUT, "path \"%s\": expected keys separated by dots with [index] or "
                                            "[name] steps, like policies.shared.pools[0].gpus", path);
            return NULL;
        }
        if (!(cur = fs__child(cur, seg, bracket, why, sizeof why)))
            fs_error_set(err, FS_ERR_INPUT, "path \"%s\": %s", path, why);
    }
    return cur;
}

/* ---- building ---- */

static char *fs__label(const json_t *v)
{
    if (json_is_string(v))
        return strdup(json_string_value(v));
    return json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY | JSON_REAL_PRECISION(12));
}

/* parts[n] joined by "/": a zipped dimension's name and labels.  NULL when
 * out of memory. */
static char *fs__joined(const char *const *parts, size_t n)
{
    size_t len = 1;
    for (size_t j = 0; j < n; j++)
        len += strlen(parts[j]) + 1;
    char *out = malloc(len);
    if (!out)
        return NULL;
    out[0] = '\0';
    for (size_t j = 0, at = 0; j < n; j++)
        at += (size_t)snprintf(out + at, len - at, "%s%s", j ? "/" : "", parts[j]);
    return out;
}

/* A value of dimension d as text: a zipped one's values' labels joined by "/". */
static char *fs__dim_label(const fs_sweep_dim *d, const json_t *v)
{
    if (!d->paths)
        return fs__label(v);
    char **parts = calloc(d->n_paths, sizeof *parts);
    bool ok = parts != NULL;
    for (size_t j = 0; ok && j < d->n_paths; j++)
        ok = (parts[j] = fs__label(json_array_get(v, j))) != NULL;
    char *out = ok ? fs__joined((const char *const *)parts, d->n_paths) : NULL;
    for (size_t j = 0; parts && j < d->n_paths; j++)
        free(parts[j]);
    free(parts);
    return out;
}

/* Whether dimension d sets path. */
static bool fs__dim_sets(const fs_sweep_dim *d, const char *path)
{
    if (!d->paths)
        return strcmp(d->path, path) == 0;
    for (size_t j = 0; j < d->n_paths; j++)
        if (strcmp(d->paths[j], path) == 0)
            return true;
    return false;
}

/* Sets dimension d to its value k in doc: each path of a zipped one to its
 * own value; the policy dimension sets nothing. */
static int fs__set_dim(json_t *doc, const fs_sweep_dim *d, size_t k, const char *context, fs_error *err)
{
    json_t *v = json_array_get(d->values, k);
    if (!d->paths)
        return strcmp(d->path, FS_SWEEP_POLICY_PATH) == 0 ? FS_OK : fs__set_path(doc, d->path, v, context, err);
    int rc = FS_OK;
    for (size_t j = 0; rc == FS_OK && j < d->n_paths; j++)
        rc = fs__set_path(doc, d->paths[j], json_array_get(v, j), context, err);
    return rc;
}

static void fs__dim_fini(fs_sweep_dim *d)
{
    for (size_t k = 0; d->labels && k < json_array_size(d->values); k++)
        free(d->labels[k]);
    free(d->labels);
    for (size_t j = 0; d->paths && j < d->n_paths; j++)
        free(d->paths[j]);
    free(d->paths);
    free(d->path);
    json_decref(d->values);
}

static int fs__load_doc(const char *path, json_t **doc, fs_error *err)
{
    json_error_t jerr;
    *doc = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
    if (*doc)
        return FS_OK;
    if (json_error_code(&jerr) == json_error_cannot_open_file)
        return fs_error_set(err, FS_ERR_INPUT, "%s: cannot read: %s", path, jerr.text);
    return fs_error_set(err, FS_ERR_INPUT, "%s:%d:%d: %s", path, jerr.line, jerr.column, jerr.text);
}

/* A sweep of a scenario document (stolen) from origin; the scenario is
 * parsed once to learn its policies and to report errors as the file's own.
 * A resolved sweep lists its policies (`known`, an array of names): it was
 * checked where it was written, and is taken as it is, so a merge needs
 * neither the scenario's calibration files nor the time to parse it. */
static int fs__create_from_doc(json_t *doc, const char *scenario_origin, const json_t *known, fs_sweep **out,
                               fs_error *err)
{
    fs_scenario *s = NULL;
    if (json_is_array(known) && json_array_size(known) > 0) {
        fs_sweep *sw = calloc(1, sizeof *sw);
        if (sw) {
            sw->doc = doc;
            sw->trusted = true;
            sw->common_random_numbers = true;
            sw->n_points = 1;
            sw->set = json_object();
            sw->scenario_origin = strdup(scenario_origin);
            sw->origin = strdup(scenario_origin);
            sw->policies = calloc(json_array_size(known), sizeof *sw->policies);
        } else {
            json_decref(doc);
        }
        bool ok = sw && sw->set && sw->scenario_origin && sw->origin && sw->policies;
        for (size_t p = 0; ok && p < json_array_size(known); p++) {
            const char *name = json_string_value(json_array_get(known, p));
            ok = name && (sw->policies[p] = strdup(name)) != NULL;
            if (ok)
                sw->n_policies++;
        }
        if (!ok) {
            fs_sweep_destroy(sw);
            return fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
        }
        *out = sw;
        return FS_OK;
    }
    int rc = fs_scenario_parse_json(doc, scenario_origin, &s, err);
    if (rc != FS_OK) {
        json_decref(doc);
        return rc;
    }
    fs_sweep *sw = calloc(1, sizeof *sw);
    if (!sw)
        goto oom;
    sw->doc = doc;
    doc = NULL;
    sw->set = json_object();
    sw->scenario_origin = strdup(scenario_origin);
    sw->origin = strdup(scenario_origin);
    sw->policies = calloc(s->n_policies ? s->n_policies : 1, sizeof *sw->policies);
    if (!sw->set || !sw->scenario_origin || !sw->origin || !sw->policies)
        goto oom;
    for (size_t p = 0; p < s->n_policies; p++) {
        if (!(sw->policies[p] = strdup(s->policies[p]->policy ? s->policies[p]->policy : "default")))
            goto oom;
        sw->n_policies++;
    }
    if (s->n_policies == 0) {
        if (!(sw->policies[0] = strdup("default")))
            goto oom;
        sw->n_policies = 1;
    }
    sw->replications = s->replications;
    sw->seed = s->seed;
    sw->common_random_numbers = true;
    sw->n_points = 1;
    fs_scenario_destroy(s);
    *out = sw;
    return FS_OK;
oom:
    json_decref(doc);
    fs_scenario_destroy(s);
    fs_sweep_destroy(sw);
    return fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
}

int fs_sweep_create(const char *scenario_path, fs_sweep **out, fs_error *err)
{
    json_t *doc;
    int rc = fs__load_doc(scenario_path, &doc, err);
    return rc != FS_OK ? rc : fs__create_from_doc(doc, scenario_path, NULL, out, err);
}

void fs_sweep_destroy(fs_sweep *sw)
{
    if (!sw)
        return;
    for (size_t d = 0; d < sw->n_dims; d++)
        fs__dim_fini(&sw->dims[d]);
    free(sw->dims);
    for (size_t p = 0; p < sw->n_policies; p++)
        free(sw->policies[p]);
    free(sw->policies);
    json_decref(sw->doc);
    json_decref(sw->set);
    free(sw->origin);
    free(sw->scenario_origin);
    free(sw);
}

int fs_sweep_set(fs_sweep *sw, const char *path, json_t *value, fs_error *err)
{
    char context[600];
    snprintf(context, sizeof context, "%s: set", sw->origin);
    int rc = fs__set_path(sw->doc, path, value, context, err);
    if (rc == FS_OK && json_object_set(sw->set, path, value) != 0)
        rc = fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
    return rc;
}

/* Refuses a value of the policy dimension that names no policy. */
static int fs__check_policies(const fs_sweep *sw, const json_t *values, fs_error *err)
{
    size_t k;
    json_t *v;
    json_array_foreach(values, k, v) {
        const char *name = json_string_value(v);
        bool known = false;
        for (size_t p = 0; name && p < sw->n_policies && !known; p++)
            known = strcmp(sw->policies[p], name) == 0;
        if (!known) {
            char list[256];
            fs_jpath_list((const char *const *)sw->policies, sw->n_policies, list, sizeof list);
            return fs_error_set(err, FS_ERR_INPUT, "%s: vary \"policy\": value %zu: expected a policy of %s (%s)",
                                sw->origin, k, sw->scenario_origin, list);
        }
    }
    return FS_OK;
}

/* What dimension d (built, not yet added) may not be: empty, one too many,
 * a path varied already or twice in it, "policy" zipped, a zipped value of
 * the wrong length, or paths that lead nowhere in the document. */
static int fs__check_dim(const fs_sweep *sw, const fs_sweep_dim *d, fs_error *err)
{
    if (json_array_size(d->values) == 0)
        return fs_error_set(err, FS_ERR_INPUT, "%s: vary \"%s\": expected at least one value", sw->origin, d->path);
    if (sw->n_dims == FS_SWEEP_MAX_DIMS)
        return fs_error_set(err, FS_ERR_INPUT, "%s: vary \"%s\": at most %d dimensions", sw->origin, d->path,
                            FS_SWEEP_MAX_DIMS);
    size_t n = d->paths ? d->n_paths : 1;
    for (size_t j = 0; j < n; j++) {
        const char *path = d->paths ? d->paths[j] : d->path;
        bool twice = false;
        for (size_t e = 0; e < sw->n_dims && !twice; e++)
            twice = fs__dim_sets(&sw->dims[e], path);
        for (size_t i = 0; i < j && !twice; i++)
            twice = strcmp(d->paths[i], path) == 0;
        if (twice)
            return fs_error_set(err, FS_ERR_INPUT, "%s: vary \"%s\": varied twice", sw->origin, path);
        if (d->paths && strcmp(path, FS_SWEEP_POLICY_PATH) == 0)
            return fs_error_set(err, FS_ERR_INPUT, "%s: vary \"%s\": \"policy\" is a dimension of its own, "
                                                   "never zipped with paths",
                                sw->origin, d->path);
    }
    if (!d->paths && strcmp(d->path, FS_SWEEP_POLICY_PATH) == 0)
        return fs__check_policies(sw, d->values, err);
    size_t k;
    json_t *v;
    json_array_foreach(d->values, k, v) {
        if (d->paths && (!json_is_array(v) || json_array_size(v) != d->n_paths))
            return fs_error_set(err, FS_ERR_INPUT, "%s: vary \"%s\": value %zu: expected a list of %zu values, "
                                                   "one per path",
                                sw->origin, d->path, k, d->n_paths);
    }
    /* The paths must lead somewhere in the document: try them on a copy. */
    json_t *copy = json_deep_copy(sw->doc);
    char context[600];
    snprintf(context, sizeof context, "%s: vary", sw->origin);
    int rc = copy ? fs__set_dim(copy, d, 0, context, err) : fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
    json_decref(copy);
    return rc;
}

/* Adds dimension d (its path, paths and values set; stolen: freed on failure). */
static int fs__add_dim(fs_sweep *sw, fs_sweep_dim d, fs_error *err)
{
    int rc = d.values && d.path ? fs__check_dim(sw, &d, err) : fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
    if (rc == FS_OK && !(d.labels = calloc(json_array_size(d.values), sizeof(char *))))
        rc = fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
    for (size_t k = 0; rc == FS_OK && k < json_array_size(d.values); k++)
        if (!(d.labels[k] = fs__dim_label(&d, json_array_get(d.values, k))))
            rc = fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
    fs_sweep_dim *dims = rc == FS_OK ? realloc(sw->dims, (sw->n_dims + 1) * sizeof *dims) : NULL;
    if (rc == FS_OK && !dims)
        rc = fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
    if (rc != FS_OK) {
        fs__dim_fini(&d);
        return rc;
    }
    sw->dims = dims;
    sw->dims[sw->n_dims++] = d;
    return FS_OK;
}

int fs_sweep_add_dim(fs_sweep *sw, const char *path, json_t *values, bool range, fs_error *err)
{
    if (!json_is_array(values)) {
        json_decref(values);
        return fs_error_set(err, FS_ERR_INPUT, "%s: vary \"%s\": expected at least one value", sw->origin, path);
    }
    return fs__add_dim(sw, (fs_sweep_dim){.path = strdup(path), .values = values, .range = range}, err);
}

int fs_sweep_add_zipped_dim(fs_sweep *sw, const char *const *paths, size_t n_paths, json_t *values, fs_error *err)
{
    if (!json_is_array(values) || n_paths == 0) {
        json_decref(values);
        return fs_error_set(err, FS_ERR_INPUT, "%s: vary: expected at least one path and one value", sw->origin);
    }
    fs_sweep_dim d = {.path = fs__joined(paths, n_paths), .paths = calloc(n_paths, sizeof(char *)),
                      .values = values};
    bool ok = d.path && d.paths;
    for (size_t j = 0; ok && j < n_paths; j++, d.n_paths++)
        ok = (d.paths[j] = strdup(paths[j])) != NULL;
    if (!ok) {
        fs__dim_fini(&d);
        return fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
    }
    return fs__add_dim(sw, d, err);
}

int fs_sweep_parse_values(const char *text, json_t **values, bool *range, fs_error *err)
{
    *range = false;
    if (text[0] == '[') {
        json_error_t jerr;
        *values = json_loads(text, JSON_DECODE_ANY, &jerr);
        if (!*values || !json_is_array(*values)) {
            json_decref(*values);
            *values = NULL;
            return fs_error_set(err, FS_ERR_INPUT, "\"%s\": expected a JSON list of values (%s)", text,
                                jerr.text);
        }
        return FS_OK;
    }
    const char *dots = strstr(text, "..");
    if (dots) {
        /* strtod would read "2..8" as 2. then .8: parse the head alone. */
        char head[64];
        size_t head_len = (size_t)(dots - text);
        bool ok = head_len > 0 && head_len < sizeof head;
        if (ok) {
            memcpy(head, text, head_len);
            head[head_len] = '\0';
        }
        /* Decimal numbers only (number.h): strtod would take hex and "inf". */
        double from = NAN, to = NAN, step = 1;
        const char *end = NULL;
        ok = ok && fs_number_parse(head, &from) == 0 && fs_number_prefix(dots + 2, &to, &end) == 0;
        if (ok && *end == ':')
            ok = fs_number_prefix(end + 1, &step, &end) == 0;
        ok = ok && *end == '\0';
        if (!ok || !(step > 0) || !(to >= from) || !isfinite(from) || !isfinite(to) || (to - from) / step > 1e6)
            return fs_error_set(err, FS_ERR_INPUT,
                                "\"%s\": expected a range FROM..TO or FROM..TO:STEP with FROM <= TO and STEP > 0", text);
        *values = json_array();
        bool integral = from == floor(from) && step == floor(step);
        size_t n = (size_t)floor((to - from) / step + 1e-9) + 1;
        for (size_t k = 0; *values && k < n; k++) {
            double v = from + (double)k * step;
            if (json_array_append_new(*values, integral ? json_integer((json_int_t)v) : json_real(v)) != 0) {
                json_decref(*values);
                *values = NULL;
            }
        }
        *range = true;
        return *values ? FS_OK : fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
    }
    *values = json_array();
    char *copy = strdup(text);
    if (!*values || !copy) {
        free(copy);
        json_decref(*values);
        return fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
    }
    char *save = NULL;
    for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        json_t *v = json_loads(item, JSON_DECODE_ANY, NULL);
        if (!v)
            v = json_string(item);
        json_array_append_new(*values, v);
    }
    free(copy);
    if (json_array_size(*values) == 0) {
        json_decref(*values);
        *values = NULL;
        return fs_error_set(err, FS_ERR_INPUT, "\"%s\": expected values separated by commas", text);
    }
    return FS_OK;
}

/* FNV-1a, 64-bit: a content hash for fingerprints and seeds, not security. */
static uint64_t fs__fnv1a(const char *s, uint64_t h)
{
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= UINT64_C(0x100000001b3);
    }
    return h;
}

static json_t *fs__names_json(char *const *names, size_t n)
{
    json_t *a = json_array();
    for (size_t k = 0; a && k < n; k++)
        if (json_array_append_new(a, json_string(names[k])) != 0) {
            json_decref(a);
            return NULL;
        }
    return a;
}

static json_t *fs__spec_json(const fs_sweep *sw, bool for_fingerprint)
{
    json_t *vary = json_array();
    for (size_t d = 0; vary && d < sw->n_dims; d++) {
        const fs_sweep_dim *dim = &sw->dims[d];
        /* A zipped dimension as it was given ("paths"); the others as before. */
        json_t *path = dim->paths ? fs__names_json(dim->paths, dim->n_paths) : json_string(dim->path);
        json_array_append_new(vary, json_pack("{s:o,s:O,s:b}", dim->paths ? "paths" : "path", path, "values",
                                              dim->values, "range", dim->range));
    }
    json_t *o = json_pack("{s:s,s:O,s:o,s:I,s:b}", "schema", FS_SWEEP_SCHEMA, "scenario", sw->doc, "vary", vary,
                          "seed", (json_int_t)sw->seed, "common_random_numbers", sw->common_random_numbers);
    if (o && !for_fingerprint &&
        (json_object_set_new(o, "scenario_path", json_string(sw->scenario_origin)) ||
         json_object_set_new(o, "replications", json_integer(sw->replications)) ||
         json_object_set_new(o, "points", json_integer((json_int_t)sw->n_points)) ||
         json_object_set_new(o, "policies", fs__names_json(sw->policies, sw->n_policies)) ||
         json_object_set_new(o, "fingerprint", json_string(sw->fingerprint)))) {
        json_decref(o);
        return NULL;
    }
    return o;
}

json_t *fs_sweep_to_json(const fs_sweep *sw)
{
    return fs__spec_json(sw, false);
}

int fs_sweep_finish(fs_sweep *sw, fs_error *err)
{
    bool has_policy = false;
    for (size_t d = 0; d < sw->n_dims; d++)
        has_policy |= strcmp(sw->dims[d].path, FS_SWEEP_POLICY_PATH) == 0;
    if (!has_policy && sw->n_policies > 1) {
        json_t *names = json_array();
        for (size_t p = 0; names && p < sw->n_policies; p++)
            json_array_append_new(names, json_string(sw->policies[p]));
        int rc = fs_sweep_add_dim(sw, FS_SWEEP_POLICY_PATH, names, false, err);
        if (rc != FS_OK)
            return rc;
    }
    /* Counted in floating point first: the product of the sizes may not
     * fit in any integer, and the message gives it all the same. */
    double points = 1;
    char sizes[256] = "";
    for (size_t d = 0, len = 0; d < sw->n_dims; d++) {
        size_t n = json_array_size(sw->dims[d].values);
        points *= (double)n;
        if (len < sizeof sizes) {
            int w = snprintf(sizes + len, sizeof sizes - len, "%s%zu", d ? " x " : "", n);
            len += w > 0 ? (size_t)w : 0;
        }
    }
    if (points > FS_SWEEP_MAX_POINTS)
        return fs_error_set(err, FS_ERR_INPUT,
                            "%s: the grid has %.6g points (%s values), more than the %d a study can run; "
                            "vary fewer values",
                            sw->origin, points, sizes, FS_SWEEP_MAX_POINTS);
    sw->n_points = (size_t)points;
    /* Each value must give a valid scenario: try each one with the other
     * dimensions at their first value (sum, not product, of the sizes). */
    if (sw->trusted)
        goto fingerprint; /* checked where it was written */
    json_t *work = fs_sweep_work_doc(sw);
    if (!work)
        return fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
    size_t *coords = calloc(sw->n_dims + 1, sizeof *coords);
    int rc = coords ? FS_OK : fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
    for (size_t d = 0; rc == FS_OK && d < sw->n_dims; d++) {
        for (size_t k = 0; rc == FS_OK && k < json_array_size(sw->dims[d].values); k++) {
            if (k == 0 && d > 0)
                continue; /* the all-first point was tried with d = 0 */
            memset(coords, 0, sw->n_dims * sizeof *coords);
            coords[d] = k;
            size_t point = fs_sweep_point_at(sw, coords);
            for (size_t e = 0; rc == FS_OK && e < sw->n_dims; e++)
                rc = fs__set_dim(work, &sw->dims[e], coords[e], sw->origin, err);
            fs_scenario *s = NULL;
            fs_error perr = {0};
            if (rc == FS_OK && fs_scenario_parse_json(work, sw->scenario_origin, &s, &perr) != FS_OK) {
                char label[512];
                fs_sweep_point_label(sw, point, label, sizeof label);
                rc = fs_error_set(err, FS_ERR_INPUT, "%s: point %zu (%s): %s", sw->origin, point, label, perr.msg);
            }
            fs_scenario_destroy(s);
        }
    }
    free(coords);
    json_decref(work);
    if (rc != FS_OK)
        return rc;
fingerprint:;
    json_t *spec = fs__spec_json(sw, true);
    char *text = spec ? json_dumps(spec, JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(17)) : NULL;
    json_decref(spec);
    if (!text)
        return fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
    snprintf(sw->fingerprint, sizeof sw->fingerprint, "%016" PRIx64, fs__fnv1a(text, UINT64_C(0xcbf29ce484222325)));
    free(text);
    return FS_OK;
}

int fs_sweep_check_runs(const fs_sweep *sw, uint32_t replications, fs_error *err)
{
    /* n_points <= FS_SWEEP_MAX_POINTS, so the product fits in 64 bits. */
    uint64_t runs = (uint64_t)sw->n_points * replications;
    if (runs <= FS_SWEEP_MAX_RUNS)
        return FS_OK;
    return fs_error_set(err, FS_ERR_INPUT,
                        "%s: %zu points x %" PRIu32 " replications is %" PRIu64
                        " runs, more than the %d a study can run; vary fewer values or use fewer replications",
                        sw->origin, sw->n_points, replications, runs, FS_SWEEP_MAX_RUNS);
}

/* ---- the sweep file ---- */

/* A zipped dimension of a sweep file, the cursor on it: {"paths": [P, Q],
 * "values": [[p1, q1], ...]}, refused with its JSON path when "path" is
 * given too, "paths" is empty or not strings, it asks for a range, or a value
 * is not a list of one value per path. */
static int fs__read_zipped(fs_jpath *p, fs_sweep *sw, const json_t *entry, fs_error *err)
{
    static const char *const not_with[] = {"path", "from", "to", "step"};
    int rc = FS_OK;
    for (size_t k = 0; rc == FS_OK && k < sizeof not_with / sizeof *not_with; k++)
        if (json_object_get(entry, not_with[k]))
            rc = fs_jpath_fail(p, "\"paths\" and \"%s\" exclude each other: a zipped dimension sets its paths "
                                  "together to each of \"values\"",
                               not_with[k]);
    if (rc == FS_OK && json_is_true(json_object_get(entry, "range"))) {
        size_t m = fs_jpath_push_key(p, "range");
        rc = fs_jpath_fail(p, "a zipped dimension is a list of values, not an ordered range");
        fs_jpath_pop(p, m);
    }
    json_t *paths = NULL, *values = NULL;
    if (rc == FS_OK)
        rc = fs_jpath_get_array(p, entry, "paths", true, true, &paths);
    if (rc == FS_OK && json_array_size(paths) > FS_SWEEP_MAX_DIMS) {
        size_t m = fs_jpath_push_key(p, "paths");
        rc = fs_jpath_fail(p, "expected at most %d paths", FS_SWEEP_MAX_DIMS);
        fs_jpath_pop(p, m);
    }
    const char *names[FS_SWEEP_MAX_DIMS];
    size_t n = rc == FS_OK ? json_array_size(paths) : 0, mark = fs_jpath_push_key(p, "paths");
    for (size_t j = 0; rc == FS_OK && j < n; j++) {
        size_t m = fs_jpath_push_index(p, j);
        rc = fs_jpath_string(p, json_array_get(paths, j), true, &names[j]);
        fs_jpath_pop(p, m);
    }
    fs_jpath_pop(p, mark);
    if (rc == FS_OK)
        rc = fs_jpath_get_array(p, entry, "values", true, true, &values);
    mark = fs_jpath_push_key(p, "values");
    for (size_t k = 0; rc == FS_OK && k < json_array_size(values); k++) {
        json_t *v = json_array_get(values, k);
        size_t m = fs_jpath_push_index(p, k);
        if (!json_is_array(v) || json_array_size(v) != n)
            rc = fs_jpath_expected(p, v, "a list of %zu values, one per path", n);
        fs_jpath_pop(p, m);
    }
    fs_jpath_pop(p, mark);
    if (rc != FS_OK)
        return rc;
    return fs_sweep_add_zipped_dim(sw, names, n, json_incref(values), err);
}

int fs_sweep_from_json(const json_t *root, const char *origin, const char *base_dir, fs_sweep **out,
                       fs_error *err)
{
    fs_jpath p;
    fs_jpath_init(&p, origin, err);
    static const char *const keys[] = {"schema", "scenario", "scenario_path", "vary", "set", "replications",
                                       "seed", "common_random_numbers", "points", "fingerprint",
                                       "policies"};
    int rc = fs_jpath_check_keys(&p, root, keys, sizeof keys / sizeof keys[0]);
    const char *schema = NULL;
    if (rc == FS_OK)
        rc = fs_jpath_get_string(&p, root, "schema", true, true, &schema);
    if (rc == FS_OK && strcmp(schema, FS_SWEEP_SCHEMA) != 0) {
        size_t m = fs_jpath_push_key(&p, "schema");
        rc = fs_jpath_fail(&p, "expected \"%s\", got \"%s\"", FS_SWEEP_SCHEMA, schema);
        fs_jpath_pop(&p, m);
    }
    json_t *scenario = NULL;
    if (rc == FS_OK)
        rc = fs_jpath_get(&p, root, "scenario", true, &scenario);
    if (rc != FS_OK)
        return rc;
    fs_sweep *sw = NULL;
    if (json_is_string(scenario)) {
        const char *name = json_string_value(scenario);
        char path[4096];
        if (name[0] == '/' || !base_dir || !*base_dir)
            snprintf(path, sizeof path, "%s", name);
        else
            snprintf(path, sizeof path, "%s/%s", base_dir, name);
        rc = fs_sweep_create(path, &sw, err);
    } else if (json_is_object(scenario)) {
        const char *scenario_path = json_string_value(json_object_get(root, "scenario_path"));
        json_t *copy = json_deep_copy(scenario);
        rc = copy ? fs__create_from_doc(copy, scenario_path ? scenario_path : origin,
                                        json_object_get(root, "policies"), &sw, err)
                  : fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
    } else {
        size_t m = fs_jpath_push_key(&p, "scenario");
        rc = fs_jpath_expected(&p, scenario, "a scenario file name or an inline scenario document");
        fs_jpath_pop(&p, m);
    }
    if (rc != FS_OK)
        return rc;
    free(sw->origin);
    if (!(sw->origin = strdup(origin))) {
        fs_sweep_destroy(sw);
        return fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
    }
    json_t *set = NULL, *vary = NULL;
    if (rc == FS_OK)
        rc = fs_jpath_get_object(&p, root, "set", false, &set);
    if (rc == FS_OK && set) {
        const char *key;
        json_t *v;
        json_object_foreach(set, key, v) {
            if (rc == FS_OK)
                rc = fs_sweep_set(sw, key, v, err);
        }
    }
    uint64_t reps = sw->replications, seed = sw->seed;
    if (rc == FS_OK)
        rc = fs_jpath_get_uint(&p, root, "replications", false, 1, 100000, &reps);
    if (rc == FS_OK)
        rc = fs_jpath_get_uint(&p, root, "seed", false, 0, INT64_MAX, &seed);
    json_t *crn = json_object_get(root, "common_random_numbers");
    if (rc == FS_OK && crn && !json_is_boolean(crn)) {
        size_t m = fs_jpath_push_key(&p, "common_random_numbers");
        rc = fs_jpath_expected(&p, crn, "true or false");
        fs_jpath_pop(&p, m);
    }
    sw->replications = (uint32_t)reps;
    sw->seed = seed;
    sw->common_random_numbers = !crn || json_is_true(crn);
    if (rc == FS_OK)
        rc = fs_jpath_get_array(&p, root, "vary", true, true, &vary);
    size_t k;
    json_t *entry;
    if (rc == FS_OK) {
        size_t m = fs_jpath_push_key(&p, "vary");
        json_array_foreach(vary, k, entry) {
            if (rc != FS_OK)
                break;
            size_t mk = fs_jpath_push_index(&p, k);
            static const char *const dim_keys[] = {"path", "paths", "values", "from", "to", "step", "range"};
            const char *path = NULL;
            json_t *values = NULL;
            rc = fs_jpath_check_keys(&p, entry, dim_keys, sizeof dim_keys / sizeof dim_keys[0]);
            if (rc == FS_OK && json_object_get(entry, "paths")) {
                rc = fs__read_zipped(&p, sw, entry, err);
                fs_jpath_pop(&p, mk);
                continue;
            }
            if (rc == FS_OK)
                rc = fs_jpath_get_string(&p, entry, "path", true, true, &path);
            bool range = json_is_true(json_object_get(entry, "range"));
            if (rc == FS_OK && json_object_get(entry, "values")) {
                rc = fs_jpath_get_array(&p, entry, "values", true, true, &values);
                json_incref(values);
            } else if (rc == FS_OK) {
                /* Initialised although both are required: the message below
                 * is formatted before rc is looked at. */
                double from = 0, to = 0, step = 1;
                rc = fs_jpath_get_number(&p, entry, "from", true, FS_JPATH_ANY, &from);
                if (rc == FS_OK)
                    rc = fs_jpath_get_number(&p, entry, "to", true, FS_JPATH_ANY, &to);
                if (rc == FS_OK)
                    rc = fs_jpath_get_number(&p, entry, "step", false, FS_JPATH_POSITIVE, &step);
                char text[128];
                snprintf(text, sizeof text, "%.17g..%.17g:%.17g", from, to, step);
                if (rc == FS_OK && fs_sweep_parse_values(text, &values, &range, err) != FS_OK)
                    rc = fs_jpath_fail(&p, "expected \"from\" <= \"to\" and a positive \"step\" (at most a million values)");
            }
            if (rc == FS_OK)
                rc = fs_sweep_add_dim(sw, path, values, range, err);
            fs_jpath_pop(&p, mk);
        }
        fs_jpath_pop(&p, m);
    }
    if (rc == FS_OK)
        rc = fs_sweep_finish(sw, err);
    if (rc == FS_OK)
        rc = fs_sweep_check_runs(sw, sw->replications, err);
    const char *written = json_string_value(json_object_get(root, "fingerprint"));
    if (rc == FS_OK && sw->trusted && (!written || strcmp(written, sw->fingerprint) != 0))
        rc = fs_error_set(err, FS_ERR_INPUT, "%s: \"fingerprint\" %s does not match its contents (%s): the file was edited",
                          origin, written ? written : "(missing)", sw->fingerprint);
    if (rc != FS_OK) {
        fs_sweep_destroy(sw);
        return rc;
    }
    *out = sw;
    return FS_OK;
}

int fs_sweep_load(const char *path, fs_sweep **out, fs_error *err)
{
    json_t *root;
    int rc = fs__load_doc(path, &root, err);
    if (rc != FS_OK)
        return rc;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    else
        dir[0] = '\0';
    rc = fs_sweep_from_json(root, path, dir, out, err);
    json_decref(root);
    return rc;
}

/* ---- points and runs ---- */

void fs_sweep_coords(const fs_sweep *sw, size_t point, size_t *coords)
{
    for (size_t d = sw->n_dims; d-- > 0;) {
        size_t n = json_array_size(sw->dims[d].values);
        coords[d] = point % n;
        point /= n;
    }
}

size_t fs_sweep_point_at(const fs_sweep *sw, const size_t *coords)
{
    size_t point = 0;
    for (size_t d = 0; d < sw->n_dims; d++)
        point = point * json_array_size(sw->dims[d].values) + coords[d];
    return point;
}

void fs_sweep_point_label(const fs_sweep *sw, size_t point, char *buf, size_t size)
{
    size_t coords[FS_SWEEP_MAX_DIMS], len = 0;
    if (size == 0)
        return;
    fs_sweep_coords(sw, point, coords);
    buf[0] = '\0';
    for (size_t d = 0; d < sw->n_dims && len < size; d++)
        len += (size_t)snprintf(buf + len, size - len, "%s%s=%s", d ? ", " : "", sw->dims[d].path,
                                sw->dims[d].labels[coords[d]]);
    if (sw->n_dims == 0)
        snprintf(buf, size, "the scenario as it is");
}

uint64_t fs_sweep_point_seed(const fs_sweep *sw, size_t point)
{
    if (sw->common_random_numbers)
        return sw->seed;
    char label[2048];
    fs_sweep_point_label(sw, point, label, sizeof label);
    /* splitmix64's finalizer spreads the label's hash over every bit; the
     * seed stays below 2^63 so the scenario document can carry it. */
    uint64_t z = sw->seed ^ fs__fnv1a(label, UINT64_C(0xcbf29ce484222325));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return (z ^ (z >> 31)) & INT64_MAX;
}

json_t *fs_sweep_work_doc(const fs_sweep *sw)
{
    return json_deep_copy(sw->doc);
}

int fs_sweep_run(const fs_sweep *sw, json_t *work_doc, size_t point, uint32_t rep, fs_metrics *out,
                 fs_error *err)
{
    size_t coords[FS_SWEEP_MAX_DIMS];
    fs_sweep_coords(sw, point, coords);
    const char *policy = sw->policies[0];
    for (size_t d = 0; d < sw->n_dims; d++) {
        if (strcmp(sw->dims[d].path, FS_SWEEP_POLICY_PATH) == 0)
            policy = json_string_value(json_array_get(sw->dims[d].values, coords[d]));
        int rc = fs__set_dim(work_doc, &sw->dims[d], coords[d], sw->origin, err);
        if (rc != FS_OK)
            return rc;
    }
    if (json_object_set_new(work_doc, "seed", json_integer((json_int_t)fs_sweep_point_seed(sw, point))) != 0)
        return fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
    fs_scenario *s;
    int rc = fs_scenario_parse_json(work_doc, sw->scenario_origin, &s, err);
    if (rc != FS_OK)
        return rc;
    size_t variant = 0;
    for (size_t v = 0; v < s->n_policies; v++)
        if (strcmp(s->policies[v]->policy, policy) == 0)
            variant = v;
    fs_results *r = NULL;
    fs_error run_err = {0};
    /* Refused means one thing: the point's replicas fit nowhere.  Placement
     * is tried alone first, so that other bad input met during the run (a
     * malformed trace row: file:line) stops the study as the error it is
     * instead of passing for a refused point. */
    fs_placement *pl = NULL;
    rc = fs_placement_compute(s->policies ? s->policies[variant] : s, &pl, &run_err);
    fs_placement_destroy(pl);
    if (rc == FS_ERR_INPUT) {
        rc = fs_metrics_refused(run_err.msg, out, err);
    } else {
        if (rc == FS_OK)
            rc = fs_run_replication(s, variant, rep, &r, &run_err);
        if (rc != FS_OK) {
            char label[512];
            fs_sweep_point_label(sw, point, label, sizeof label);
            rc = fs_error_set(err, rc, "point %zu (%s), replication %u: %s", point, label, rep,
                              run_err.msg);
        } else {
            rc = fs_metrics_from_run(r, 0, 0, out, err);
        }
    }
    fs_results_destroy(r);
    fs_scenario_destroy(s);
    return rc;
}

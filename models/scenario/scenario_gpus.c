/*
 * scenario_gpus — the "gpus" object (overrides of built-in GPU types, and
 * custom types) and every reference to a GPU type by name: a pool's "gpu", a
 * service's "reference_gpu".  An unknown name is refused with the nearest
 * known one ("did you mean") and the list of them.
 *
 * The "gpus" object is read first, whole, into a side table
 * (parse_ctx.declared); pools and services then name types, and each name is
 * copied into s->gpu_types on first use, from that table or the catalog.
 * Members nothing names are appended last (scenario.c), so a scenario lists
 * every type it declares and the order follows the document.
 */
#include "scenario_parse.h"

#include <assert.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu.h"

/* "calibration" is read after the types are placed (fs__scenario_parse_gpu_calibrations). */
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
        while (k < ln &&
               fs__scenario_ascii_lower(hay[off + k]) == fs__scenario_ascii_lower(needle[k]))
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
    rc = fs__scenario_get_memory(p, obj, "memory_gb", FS_JPATH_POSITIVE, &out->memory_gb);
    if (rc == FS_OK)
        rc = fs_jpath_get_uint(p, obj, "sms", false, 1, UINT_MAX, &sms);
    out->sms = (unsigned)sms;
    if (rc == FS_OK)
        rc = fs__scenario_get_capped(p, obj, "price_per_hour", false, FS_JPATH_NONNEG,
                                     FS_SCENARIO_MAX_PRICE, "$/GPU-hour", &out->price_on_demand);
    if (builtin == NULL)
        out->price_spot = out->price_on_demand;
    if (rc == FS_OK)
        rc = fs__scenario_get_capped(p, obj, "spot_price_per_hour", false, FS_JPATH_NONNEG,
                                     FS_SCENARIO_MAX_PRICE, "$/GPU-hour", &out->price_spot);
    if (rc == FS_OK)
        rc = fs__scenario_get_capped(p, obj, "idle_w", false, FS_JPATH_NONNEG,
                                     FS_SCENARIO_MAX_WATTS, "W", &out->idle_w);
    if (rc == FS_OK)
        rc = fs__scenario_get_capped(p, obj, "busy_w", false, FS_JPATH_NONNEG,
                                     FS_SCENARIO_MAX_WATTS, "W", &out->busy_w);
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
int fs__scenario_parse_gpu_types(fs_jpath *p, const json_t *root, parse_ctx *c)
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
size_t fs__scenario_gpu_type_index(parse_ctx *c, const char *name)
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
int fs__scenario_parse_gpu_ref(fs_jpath *p, parse_ctx *c, const json_t *obj, const char *key,
                               bool required, size_t *index, const char **name)
{
    const char *type = NULL;
    int rc = fs_jpath_get_string(p, obj, key, required, true, &type);
    if (rc != FS_OK || type == NULL)
        return rc;
    size_t i = fs__scenario_gpu_type_index(c, type);
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

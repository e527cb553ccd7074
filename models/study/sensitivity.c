#include "sensitivity.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "duration.h"
#include "jsonpath.h"
#include "number.h"
#include "scenario.h"
#include "summary.h"

static const char *const fs__level_names[3] = {"low", "base", "high"};

/* ---- the design ---- */

static bool fs__varied(const fs_sensitivity *s, const char *path)
{
    for (size_t i = 0; i < s->n_inputs; i++)
        if (strcmp(s->inputs[i].path, path) == 0)
            return true;
    return false;
}

int fs_sensitivity_add(fs_sensitivity *s, const char *path, double low, double base, double high, bool integer,
                       fs_error *err)
{
    if (fs__varied(s, path))
        return fs_error_set(err, FS_ERR_INPUT, "input \"%s\": varied twice", path);
    if (!isfinite(low) || !isfinite(base) || !isfinite(high))
        return fs_error_set(err, FS_ERR_INPUT, "input \"%s\": expected finite numbers", path);
    if (low == high)
        return fs_error_set(err, FS_ERR_INPUT, "input \"%s\": low and high are both %g; expected two values",
                            path, low);
    if (s->n_inputs == FS_SENSITIVITY_MAX_INPUTS)
        return fs_error_set(err, FS_ERR_INPUT, "input \"%s\": at most %d inputs", path, FS_SENSITIVITY_MAX_INPUTS);
    fs_sensitivity_input *more = realloc(s->inputs, (s->n_inputs + 1) * sizeof *more);
    if (!more)
        return fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
    s->inputs = more;
    fs_sensitivity_input *in = &s->inputs[s->n_inputs];
    *in = (fs_sensitivity_input){.path = strdup(path), .value = {low, base, high}, .integer = integer,
                          .elasticity = NAN, .noise = true};
    if (!in->path)
        return fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
    s->n_inputs++;
    return FS_OK;
}

/* A duration written as text ("80ms", "30m"; not a clock time such as
 * "09:00") in seconds into *seconds: such an input varies like a number and
 * is written back as seconds, which every duration key also takes. */
static bool fs__duration_text(const char *text, double *seconds)
{
    return text && !strchr(text, ':') && fs_duration_parse(text, seconds, NULL, 0) == 0;
}

static bool fs__duration_leaf(const json_t *v, double *seconds)
{
    return fs__duration_text(json_string_value(v), seconds);
}

/* The number (or duration) at path in sw's document into *base (*integer:
 * a JSON integer), or FS_ERR_INPUT naming the path and what is there. */
static int fs__leaf(const fs_sweep *sw, const char *path, double *base, bool *integer, fs_error *err)
{
    if (!path[0])
        return fs_error_set(err, FS_ERR_INPUT, "expected a path into the scenario, got an empty one");
    const json_t *v = fs_sweep_get(sw, path, err);
    if (!v)
        return FS_ERR_INPUT;
    *integer = json_is_integer(v);
    if (json_is_number(v)) {
        *base = json_number_value(v);
        return FS_OK;
    }
    if (fs__duration_leaf(v, base))
        return FS_OK;
    char got[96];
    fs_jpath_describe(v, got, sizeof got);
    return fs_error_set(err, FS_ERR_INPUT, "path \"%s\": expected a number or a duration to vary, found %s", path,
                        got);
}

/* Inputs [from, n) whose leaf the design cannot edit in place (a duration
 * written as text, an integer varied to fractions) become JSON reals of
 * their base value in the document, through the sweep's "set". */
static int fs__as_reals(const fs_sensitivity *s, size_t from, fs_sweep *sw, fs_error *err)
{
    for (size_t i = from; i < s->n_inputs; i++) {
        const fs_sensitivity_input *in = &s->inputs[i];
        const json_t *leaf = fs_sweep_get(sw, in->path, err);
        if (!leaf)
            return FS_ERR_INPUT;
        if (json_is_real(leaf) || (json_is_integer(leaf) && in->integer))
            continue;
        json_t *v = json_real(in->value[FS_SENSITIVITY_BASE]);
        int rc = v ? fs_sweep_set(sw, in->path, v, err) : fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
        json_decref(v);
        if (rc != FS_OK)
            return rc;
    }
    return FS_OK;
}

/* One end of --vary: a number, or a duration ("48ms") in seconds. */
static bool fs__end(const char *text, double *v)
{
    return fs_number_parse(text, v) == 0 || fs__duration_text(text, v);
}

int fs_sensitivity_add_spec(fs_sensitivity *s, fs_sweep *sw, const char *spec, fs_error *err)
{
    const char *eq = strchr(spec, '=');
    char path[512], lo_text[64];
    if (!eq || (size_t)(eq - spec) >= sizeof path)
        return fs_error_set(err, FS_ERR_INPUT, "--vary \"%s\": expected PATH=LOW..HIGH or PATH=LOW,HIGH", spec);
    memcpy(path, spec, (size_t)(eq - spec));
    path[eq - spec] = '\0';
    const char *text = eq + 1, *sep = strstr(text, "..");
    size_t sep_len = 2;
    if (!sep) {
        sep = strchr(text, ',');
        sep_len = 1;
    }
    double low = NAN, high = NAN, base = NAN;
    bool integer = false;
    bool ok = sep && (size_t)(sep - text) < sizeof lo_text;
    if (ok) {
        memcpy(lo_text, text, (size_t)(sep - text));
        lo_text[sep - text] = '\0';
        ok = fs__end(lo_text, &low) && fs__end(sep + sep_len, &high);
    }
    if (!ok)
        return fs_error_set(err, FS_ERR_INPUT, "--vary %s: expected LOW..HIGH or LOW,HIGH (two numbers or durations), got \"%s\"",
                            path, text);
    int rc = fs__leaf(sw, path, &base, &integer, err);
    if (rc != FS_OK)
        return rc;
    /* An integer of the scenario stays one when both ends are whole; with a
     * fraction it becomes a real (a count the scenario then refuses at that
     * end, naming the input, where a fraction means nothing). */
    integer = integer && low == floor(low) && high == floor(high);
    size_t from = s->n_inputs;
    rc = fs_sensitivity_add(s, path, low, base, high, integer, err);
    return rc == FS_OK ? fs__as_reals(s, from, sw, err) : rc;
}


/* Adds every numeric leaf under v (at path) varied by frac; see fs_sensitivity_add_all. */
static int fs__add_leaves(fs_sensitivity *s, const json_t *v, const char *path, double frac, size_t *skipped,
                          fs_error *err)
{
    char child[512];
    int rc = FS_OK;
    if (json_is_object(v)) {
        const char *key;
        const json_t *item;
        json_object_foreach((json_t *)v, key, item) {
            /* A key the path syntax cannot name is no input of a path. */
            if (rc != FS_OK || strpbrk(key, ".[]") ||
                (size_t)snprintf(child, sizeof child, "%s.%s", path, key) >= sizeof child)
                continue;
            rc = fs__add_leaves(s, item, child, frac, skipped, err);
        }
        return rc;
    }
    if (json_is_array(v)) {
        size_t k;
        const json_t *item;
        json_array_foreach(v, k, item) {
            const char *name = json_string_value(json_object_get(item, "name"));
            if (!name)
                return FS_OK; /* a profile or a plain list: not inputs of their own */
        }
        json_array_foreach(v, k, item) {
            const char *name = json_string_value(json_object_get(item, "name"));
            if (rc != FS_OK || strpbrk(name, "[]") ||
                (size_t)snprintf(child, sizeof child, "%s[%s]", path, name) >= sizeof child)
                continue;
            rc = fs__add_leaves(s, item, child, frac, skipped, err);
        }
        return rc;
    }
    double base;
    if (json_is_number(v))
        base = json_number_value(v);
    else if (!fs__duration_leaf(v, &base))
        return FS_OK;
    if (base == 0 || fs__varied(s, path))
        return FS_OK;
    double low = base * (1 - frac), high = base * (1 + frac);
    if (json_is_integer(v)) {
        low = round(low);
        high = round(high);
        if (low == base && high == base) {
            (*skipped)++;
            return FS_OK;
        }
    }
    return fs_sensitivity_add(s, path, low, base, high, json_is_integer(v), err);
}

int fs_sensitivity_add_all(fs_sensitivity *s, fs_sweep *sw, const char *spec, size_t *skipped, fs_error *err)
{
    const char *pm = strstr(spec, "\xc2\xb1"), *pct = NULL;
    size_t pm_len = 2; /* "\xc2\xb1" and "+-" alike */
    if (!pm)
        pm = strstr(spec, "+-");
    char path[512], num[64];
    double p = NAN;
    bool ok = pm && pm > spec && (size_t)(pm - spec) < sizeof path;
    if (ok) {
        pct = strchr(pm + pm_len, '%');
        ok = pct && pct[1] == '\0' && (size_t)(pct - pm - pm_len) < sizeof num;
    }
    if (ok) {
        memcpy(num, pm + pm_len, (size_t)(pct - pm - pm_len));
        num[pct - pm - pm_len] = '\0';
        ok = fs_number_parse(num, &p) == 0 && p > 0 && p < 100;
    }
    if (!ok)
        return fs_error_set(err, FS_ERR_INPUT, "--vary-all \"%s\": expected PATH\xc2\xb1P%% (or PATH+-P%%) with "
                                               "0 < P < 100, like services[chat]+-20%%",
                            spec);
    memcpy(path, spec, (size_t)(pm - spec));
    path[pm - spec] = '\0';
    const json_t *v = fs_sweep_get(sw, path, err);
    if (!v)
        return FS_ERR_INPUT;
    if (!json_is_object(v) && !json_is_array(v))
        return fs_error_set(err, FS_ERR_INPUT, "--vary-all %s: expected an object (or a list of named ones) whose "
                                               "numbers to vary",
                            path);
    size_t before = s->n_inputs;
    int rc = fs__add_leaves(s, v, path, p / 100, skipped, err);
    if (rc == FS_OK && s->n_inputs == before)
        rc = fs_error_set(err, FS_ERR_INPUT, "--vary-all %s: no number there that %g%% changes", path, p);
    return rc == FS_OK ? fs__as_reals(s, before, sw, err) : rc;
}

size_t fs_sensitivity_n_points(const fs_sensitivity *s)
{
    return 1 + 2 * s->n_inputs;
}

size_t fs_sensitivity_point(size_t input, fs_sensitivity_level level)
{
    return level == FS_SENSITIVITY_BASE ? 0 : 1 + 2 * input + (level == FS_SENSITIVITY_HIGH);
}

void fs_sensitivity_which(size_t point, size_t *input, fs_sensitivity_level *level)
{
    *input = point == 0 ? SIZE_MAX : (point - 1) / 2;
    *level = point == 0 ? FS_SENSITIVITY_BASE : (point - 1) % 2 ? FS_SENSITIVITY_HIGH : FS_SENSITIVITY_LOW;
}

static json_t *fs__value_json(const fs_sensitivity_input *in, fs_sensitivity_level level)
{
    return in->integer ? json_integer((json_int_t)in->value[level]) : json_real(in->value[level]);
}

/* Each input's low and high must give a valid scenario: tried here, one
 * leaf at a time, so the message names the input (the sweep's own check
 * would name a point of the zipped dimension).  The leaf is set in place
 * and restored: sw's document is the same afterwards. */
static int fs__check_levels(const fs_sensitivity *s, fs_sweep *sw, fs_error *err)
{
    int rc = FS_OK;
    for (size_t i = 0; i < s->n_inputs && rc == FS_OK; i++) {
        const fs_sensitivity_input *in = &s->inputs[i];
        json_t *leaf = (json_t *)fs_sweep_get(sw, in->path, err);
        if (!leaf || !json_is_number(leaf))
            return fs_error_set(err, FS_ERR_INPUT, "input \"%s\": not a number of the scenario", in->path);
        for (int level = FS_SENSITIVITY_LOW; level <= FS_SENSITIVITY_HIGH && rc == FS_OK; level += 2) {
            if (json_is_integer(leaf))
                json_integer_set(leaf, (json_int_t)in->value[level]);
            else
                json_real_set(leaf, in->value[level]);
            fs_scenario *sc = NULL;
            fs_error perr = {0};
            if (fs_scenario_parse_json(sw->doc, sw->scenario_origin, &sc, &perr) != FS_OK)
                rc = fs_error_set(err, FS_ERR_INPUT, "input \"%s\" at its %s value %.12g: %s", in->path,
                                  fs__level_names[level], in->value[level], perr.msg);
            fs_scenario_destroy(sc);
        }
        if (json_is_integer(leaf))
            json_integer_set(leaf, (json_int_t)in->value[FS_SENSITIVITY_BASE]);
        else
            json_real_set(leaf, in->value[FS_SENSITIVITY_BASE]);
    }
    return rc;
}

int fs_sensitivity_design(const fs_sensitivity *s, fs_sweep *sw, fs_error *err)
{
    if (s->n_inputs == 0)
        return fs_error_set(err, FS_ERR_INPUT, "expected at least one input to vary");
    int rc = fs__check_levels(s, sw, err);
    if (rc != FS_OK)
        return rc;
    const char **paths = calloc(s->n_inputs, sizeof *paths);
    json_t *values = json_array();
    bool ok = paths && values;
    for (size_t p = 0; ok && p < fs_sensitivity_n_points(s); p++) {
        size_t which;
        fs_sensitivity_level level;
        fs_sensitivity_which(p, &which, &level);
        json_t *row = json_array();
        for (size_t i = 0; row && i < s->n_inputs; i++)
            ok = json_array_append_new(row, fs__value_json(&s->inputs[i], i == which ? level : FS_SENSITIVITY_BASE)) ==
                 0;
        ok = ok && json_array_append_new(values, row) == 0;
    }
    for (size_t i = 0; ok && i < s->n_inputs; i++)
        paths[i] = s->inputs[i].path;
    if (!ok) {
        free(paths);
        json_decref(values);
        return fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
    }
    rc = fs_sweep_add_zipped_dim(sw, paths, s->n_inputs, values, err);
    free(paths);
    return rc;
}

/* ---- the computation ---- */

/* Mean and interval of a[r] - b[r] (b NULL: of a[r]) over the replications
 * where both have data. */
static fs_sensitivity_stat fs__stat(const double *a, const double *b, uint32_t reps, double *scratch)
{
    uint32_t n = 0;
    for (uint32_t r = 0; r < reps; r++) {
        double x = b ? a[r] - b[r] : a[r];
        if (!isnan(x))
            scratch[n++] = x;
    }
    fs_sensitivity_stat st = {.mean = NAN, .ci95 = NAN, .n = n};
    if (n == 0)
        return st;
    fs_summary sum = fs_summary_of(scratch, 1, n);
    st.mean = sum.mean;
    st.ci95 = sum.valid ? sum.half_width : NAN;
    return st;
}

/* Larger |effect| first, inputs with no effect last, then input order. */
static int fs__by_effect(const fs_sensitivity *s, size_t a, size_t b)
{
    double x = fabs(s->inputs[a].effect.mean), y = fabs(s->inputs[b].effect.mean);
    if (isnan(x) != isnan(y))
        return isnan(x) ? 1 : -1;
    if (!isnan(x) && x != y)
        return x > y ? -1 : 1;
    return a < b ? -1 : a > b;
}

void fs_sensitivity_order(const fs_sensitivity *s, size_t *order)
{
    /* Insertion sort: a design has at most FS_SENSITIVITY_MAX_INPUTS inputs. */
    for (size_t i = 0; i < s->n_inputs; i++) {
        size_t j = i;
        for (; j > 0 && fs__by_effect(s, order[j - 1], i) > 0; j--)
            order[j] = order[j - 1];
        order[j] = i;
    }
}

int fs_sensitivity_compute(fs_sensitivity *s, fs_sensitivity_evaluate evaluate, void *ctx, fs_error *err)
{
    uint32_t reps = s->replications ? s->replications : 1;
    size_t n_points = fs_sensitivity_n_points(s);
    double *v = malloc(n_points * reps * sizeof *v), *scratch = malloc(reps * sizeof *scratch);
    size_t *order = malloc((s->n_inputs ? s->n_inputs : 1) * sizeof *order);
    int rc = v && scratch && order ? FS_OK : fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
    for (size_t p = 0; p < n_points && rc == FS_OK; p++)
        for (uint32_t r = 0; r < reps && rc == FS_OK; r++)
            rc = evaluate(ctx, p, r, &v[p * reps + r], err);
    for (size_t i = 0; i < s->n_inputs && rc == FS_OK; i++) {
        fs_sensitivity_input *in = &s->inputs[i];
        const double *at[3];
        for (int level = 0; level < 3; level++) {
            at[level] = &v[fs_sensitivity_point(i, (fs_sensitivity_level)level) * reps];
            in->at[level] = fs__stat(at[level], NULL, reps, scratch);
        }
        in->effect = fs__stat(at[FS_SENSITIVITY_HIGH], at[FS_SENSITIVITY_LOW], reps, scratch);
        in->swing[0] = fs__stat(at[FS_SENSITIVITY_LOW], at[FS_SENSITIVITY_BASE], reps, scratch);
        in->swing[1] = fs__stat(at[FS_SENSITIVITY_HIGH], at[FS_SENSITIVITY_BASE], reps, scratch);
        /* No interval (one replication with data) is no evidence either way. */
        in->noise = isnan(in->effect.ci95) || fabs(in->effect.mean) <= in->effect.ci95;
        double base_metric = in->at[FS_SENSITIVITY_BASE].mean;
        double change = in->value[FS_SENSITIVITY_HIGH] - in->value[FS_SENSITIVITY_LOW];
        in->elasticity = isfinite(in->effect.mean) && isfinite(base_metric) && base_metric != 0 &&
                                 in->value[FS_SENSITIVITY_BASE] != 0
                             ? (in->effect.mean / base_metric) / (change / in->value[FS_SENSITIVITY_BASE])
                             : NAN;
    }
    if (rc == FS_OK) {
        fs_sensitivity_order(s, order);
        for (size_t k = 0; k < s->n_inputs; k++)
            s->inputs[order[k]].rank = k + 1;
    }
    free(order);
    free(scratch);
    free(v);
    return rc;
}

/* ---- the document ---- */

static json_t *fs__num(double x)
{
    return isfinite(x) ? json_real(x) : json_null();
}

static json_t *fs__stat_json(fs_sensitivity_stat st)
{
    return json_pack("{s:o,s:o,s:I}", "value", fs__num(st.mean), "ci95", fs__num(st.ci95), "replications",
                     (json_int_t)st.n);
}

static json_t *fs__input_json(const fs_sensitivity_input *in)
{
    return json_pack("{s:s,s:I,s:o,s:o,s:o,s:{s:o,s:o,s:o},s:o,s:o,s:o,s:o,s:b}", "path", in->path, "rank",
                     (json_int_t)in->rank, "low", fs__value_json(in, FS_SENSITIVITY_LOW), "base",
                     fs__value_json(in, FS_SENSITIVITY_BASE), "high", fs__value_json(in, FS_SENSITIVITY_HIGH),
                     "values", "low", fs__stat_json(in->at[FS_SENSITIVITY_LOW]), "base",
                     fs__stat_json(in->at[FS_SENSITIVITY_BASE]), "high", fs__stat_json(in->at[FS_SENSITIVITY_HIGH]),
                     "effect", fs__stat_json(in->effect), "swing_low", fs__stat_json(in->swing[0]), "swing_high",
                     fs__stat_json(in->swing[1]), "elasticity", fs__num(in->elasticity), "distinguishable",
                     !in->noise);
}

json_t *fs_sensitivity_to_json(const fs_sensitivity *s, const char *scenario, const char *metric, const char *policy,
                        uint64_t seed)
{
    size_t *order = malloc((s->n_inputs ? s->n_inputs : 1) * sizeof *order);
    json_t *inputs = json_array();
    bool ok = order && inputs;
    if (ok)
        fs_sensitivity_order(s, order);
    for (size_t k = 0; ok && k < s->n_inputs; k++)
        ok = json_array_append_new(inputs, fs__input_json(&s->inputs[order[k]])) == 0;
    free(order);
    if (!ok) {
        json_decref(inputs);
        return NULL;
    }
    fs_sensitivity_stat base = s->n_inputs ? s->inputs[0].at[FS_SENSITIVITY_BASE] : (fs_sensitivity_stat){NAN, NAN, 0};
    return json_pack("{s:s,s:s,s:s,s:s,s:I,s:I,s:o,s:o}", "schema", FS_SENSITIVITY_SCHEMA, "scenario", scenario,
                     "metric", metric, "policy", policy, "replications", (json_int_t)s->replications, "seed",
                     (json_int_t)seed, "base", fs__stat_json(base), "inputs", inputs);
}

void fs_sensitivity_fini(fs_sensitivity *s)
{
    for (size_t i = 0; i < s->n_inputs; i++)
        free(s->inputs[i].path);
    free(s->inputs);
    *s = (fs_sensitivity){0};
}

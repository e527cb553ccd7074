/*
 * scenario_calibration — what a GPU costs to change tenant: the top-level
 * "calibration" (the scenario's switch costs) and a "gpus" member's own (that
 * type's), each a file name or an inline profile, read over the built-in
 * default profile.
 *
 * A "calibration" string names a second JSON file (relative to the
 * scenario's directory), read and checked here too; its errors name that
 * file and positions or paths inside it.  A type's profile is read over the
 * scenario's, after every type has its place in s->gpu_types.
 */
#include "scenario_parse.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
/* Not a separate cost until measured: a framework's first use (framework_s)
 * already includes loading its kernels. */
#define DEFAULT_MODULE_S 0.0

/* The figures' keys, in the order of enum fs_cost_figure. */
static const char *const figure_keys[FS_COST_FIGURES] = {
    "context_s", "framework_s", "module_s", "storage_gbps", "h2d_gbps", "d2h_gbps", "inference_warmup_s"};

static void default_switch_costs(fs_switch_costs *sc)
{
    sc->context_s = DEFAULT_CONTEXT_S;
    sc->framework_s = DEFAULT_FRAMEWORK_S;
    sc->module_s = DEFAULT_MODULE_S;
    sc->storage_gbps = DEFAULT_STORAGE_GBPS;
    sc->h2d_gbps = DEFAULT_H2D_GBPS;
    sc->d2h_gbps = DEFAULT_D2H_GBPS;
    sc->inference_warmup_s = DEFAULT_INFERENCE_WARMUP_S;
    snprintf(sc->source, sizeof sc->source, "%s", DEFAULT_COSTS_SOURCE);
    memset(sc->from, 0, sizeof sc->from);
    memset(sc->figure_source, 0, sizeof sc->figure_source);
    sc->n_llm_step = 0; /* no step-time rows in the built-in profile */
    sc->llm_step_from = 0;
}

const char *fs_switch_costs_figure(const fs_switch_costs *c, enum fs_cost_figure k, double *value,
                                   const char **source)
{
    const double values[FS_COST_FIGURES] = {c->context_s, c->framework_s, c->module_s,          c->storage_gbps,
                                            c->h2d_gbps,  c->d2h_gbps,    c->inference_warmup_s};
    *value = values[k];
    *source = c->from[k] ? c->figure_source[c->from[k] - 1] : DEFAULT_COSTS_SOURCE;
    return figure_keys[k];
}

const char *fs_switch_costs_llm_step_source(const fs_switch_costs *c)
{
    return c->llm_step_from ? c->figure_source[c->llm_step_from - 1] : NULL;
}

/* "llm_step": [{"gemm", "hidden", "c0_s", "c_prefill_s", "c_decode_s",
 * "c_kv_s", "r_squared", "n"}, ...], the per-layer step-time fits that
 * calibrate/profile_fit.h writes, into rows[0..*n).  Every key is checked;
 * the coefficients are any numbers (a fit may tilt c_decode below zero:
 * llm_profile.h says what a model may take from them); r_squared and n are
 * the fit's record and only checked.  One row per (gemm, hidden). */
static int parse_llm_step(fs_jpath *p, const json_t *list, fs_llm_layer_fit *rows, size_t *n)
{
    static const char *const keys[] = {"gemm",   "hidden",    "c0_s", "c_prefill_s", "c_decode_s",
                                       "c_kv_s", "r_squared", "n"};
    size_t n_gemms;
    const char *const *gemms = fs_llm_gemm_names(&n_gemms);
    size_t mark = fs_jpath_push_key(p, "llm_step"), i;
    int rc = FS_OK;
    json_t *item;
    *n = 0;
    if (json_array_size(list) > FS_LLM_MAX_LAYER_FITS)
        rc = fs_jpath_fail(p, "expected at most %d rows, got %zu", FS_LLM_MAX_LAYER_FITS, json_array_size(list));
    json_array_foreach (list, i, item) {
        if (rc != FS_OK)
            break;
        size_t m = fs_jpath_push_index(p, i);
        fs_llm_layer_fit *r = &rows[i];
        uint64_t hidden = 0, count = 0;
        double r2 = 0;
        rc = json_is_object(item) ? fs_jpath_check_keys(p, item, keys, COUNT(keys))
                                  : fs_jpath_expected(p, item, "an object (one step-time fit)");
        json_t *gemm = NULL;
        if (rc == FS_OK)
            rc = fs_jpath_get(p, item, "gemm", true, &gemm);
        if (rc == FS_OK)
            rc = fs__scenario_get_choice(p, item, "gemm", "a GEMM backend", gemms, n_gemms, &r->gemm);
        if (rc == FS_OK)
            rc = fs_jpath_get_uint(p, item, "hidden", true, 1, 1u << 20, &hidden);
        if (rc == FS_OK)
            rc = fs_jpath_get_number(p, item, "c0_s", true, FS_JPATH_ANY, &r->c0_s);
        if (rc == FS_OK)
            rc = fs_jpath_get_number(p, item, "c_prefill_s", true, FS_JPATH_ANY, &r->c_prefill_s);
        if (rc == FS_OK)
            rc = fs_jpath_get_number(p, item, "c_decode_s", true, FS_JPATH_ANY, &r->c_decode_s);
        if (rc == FS_OK)
            rc = fs_jpath_get_number(p, item, "c_kv_s", true, FS_JPATH_ANY, &r->c_kv_s);
        if (rc == FS_OK)
            rc = fs_jpath_get_number(p, item, "r_squared", false, FS_JPATH_ANY, &r2);
        if (rc == FS_OK)
            rc = fs_jpath_get_uint(p, item, "n", false, 0, UINT64_MAX, &count);
        r->hidden = (uint32_t)hidden;
        for (size_t k = 0; rc == FS_OK && k < i; k++)
            if (rows[k].gemm == r->gemm && rows[k].hidden == r->hidden)
                rc = fs_jpath_fail(p, "a second \"%s\" row for hidden %u (the first is llm_step[%zu])",
                                   gemms[r->gemm], r->hidden, k);
        fs_jpath_pop(p, m);
    }
    if (rc == FS_OK)
        *n = json_array_size(list);
    fs_jpath_pop(p, mark);
    return rc;
}

/* The record a measured profile keeps beside its figures (what
 * calibrate/profile.c writes: the device, the figures it did not measure,
 * every fit, scalar statistics and raw sample).  The simulator uses none of
 * it (but "llm_step", read by parse_llm_step), so only the types are checked:
 * enough to refuse a file that is not a profile, without tying the reader to
 * the record's inner layout. */
static int parse_calibration_record(fs_jpath *p, const json_t *obj)
{
    static const char *const objects[] = {"device", "fits", "scalars", "samples", "graph_capture"};
    json_t *v = NULL;
    int rc = FS_OK;
    for (size_t k = 0; rc == FS_OK && k < COUNT(objects); k++)
        rc = fs_jpath_get_object(p, obj, objects[k], false, &v);
    static const char *const arrays[] = {"validation", "mixed_check"};
    for (size_t k = 0; rc == FS_OK && k < COUNT(arrays); k++)
        rc = fs_jpath_get_array(p, obj, arrays[k], false, false, &v);
    /* A measured profile says how far to trust it, or it is not used. */
    if (rc == FS_OK && json_object_get(obj, "validation") == NULL &&
        (json_object_get(obj, "samples") != NULL || json_object_get(obj, "fits") != NULL))
        rc = fs_jpath_fail(p, "a measured profile (it has \"samples\" or \"fits\") needs its validation "
                              "table \"validation\": refit it with 'fleetsim calibrate PROFILE --out PROFILE'");
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
 * *sc; `source` defaults to default_source.  Every key is optional.  level:
 * 1 for the scenario's profile, 2 for a GPU type's (fs_switch_costs.from). */
static int parse_calibration_profile(fs_jpath *p, const json_t *obj, const char *default_source, int level,
                                     fs_switch_costs *sc)
{
    static const char *const keys[] = {"schema",       "gpu",          "source",     "context_s",
                                       "framework_s",  "module_s",     "inference_warmup_s",
                                       "storage_gbps", "h2d_gbps",     "d2h_gbps",   "device",
                                       "not_measured", "fits",         "scalars",    "samples",
                                       "validation",   "llm_step",     "graph_capture", "mixed_check"};
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
        rc = fs_jpath_get_number(p, obj, "module_s", false, FS_JPATH_NONNEG, &sc->module_s);
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
    json_t *steps = NULL;
    fs_llm_layer_fit rows[FS_LLM_MAX_LAYER_FITS];
    size_t n_rows = 0;
    if (rc == FS_OK)
        rc = fs_jpath_get_array(p, obj, "llm_step", false, false, &steps);
    if (rc == FS_OK && steps != NULL)
        rc = parse_llm_step(p, steps, rows, &n_rows);
    if (rc == FS_OK) { /* a label: cut to fit rather than refused */
        snprintf(sc->source, sizeof sc->source, "%s", source);
        snprintf(sc->figure_source[level - 1], sizeof sc->figure_source[0], "%s", source);
        for (size_t k = 0; k < FS_COST_FIGURES; k++)
            if (json_object_get(obj, figure_keys[k]) != NULL)
                sc->from[k] = (unsigned char)level;
        /* Rows replace rows whole: a type's fits are never mixed with the
         * scenario's.  An empty "llm_step" is a profile without them. */
        if (n_rows > 0) {
            memcpy(sc->llm_step, rows, n_rows * sizeof rows[0]);
            sc->n_llm_step = n_rows;
            sc->llm_step_from = (unsigned char)level;
        }
    }
    return rc;
}

/* A calibration file: relative to the scenario file's directory unless
 * absolute.  Its errors name it, and positions and paths in it. */
static int load_calibration(fs_jpath *p, const char *name, int level, fs_switch_costs *sc)
{
    char *path = fs__scenario_relative_path(p->origin, name);
    if (path == NULL)
        return fs_jpath_oom(p);
    char *text = NULL;
    size_t len = 0;
    json_t *doc = NULL;
    int rc = fs__scenario_read_file(path, &text, &len, p->err);
    if (rc == FS_ERR_INPUT) { /* say which scenario key named the file */
        char why[sizeof p->err->msg];
        memcpy(why, p->err->msg, sizeof why);
        rc = fs_jpath_fail(p, "%s", why);
    }
    if (rc == FS_OK)
        rc = fs__scenario_load_json(text, len, path, &doc, p->err);
    if (rc == FS_OK) {
        fs_jpath cp;
        fs_jpath_init(&cp, path, p->err);
        rc = parse_calibration_profile(&cp, doc, path, level, sc);
    }
    json_decref(doc);
    free(text);
    free(path);
    return rc;
}

/* A "calibration" value v (the cursor is on it): a file name or an inline
 * profile, read over *sc. */
static int parse_calibration_value(fs_jpath *p, const json_t *v, int level, fs_switch_costs *sc)
{
    if (json_is_object(v))
        return parse_calibration_profile(p, v, "inline", level, sc);
    if (json_is_string(v) && json_string_length(v) > 0)
        return load_calibration(p, json_string_value(v), level, sc);
    return fs_jpath_expected(p, v, "a calibration file name or an inline profile object");
}

/* The top-level "calibration" over the built-in profile; absent, the
 * built-in one. */
int fs__scenario_parse_calibration(fs_jpath *p, const json_t *root, fs_switch_costs *sc)
{
    default_switch_costs(sc);
    json_t *v = json_object_get(root, "calibration");
    if (v == NULL)
        return FS_OK;
    size_t mark = fs_jpath_push_key(p, "calibration");
    int rc = parse_calibration_value(p, v, 1, sc);
    fs_jpath_pop(p, mark);
    return rc;
}

/* s->gpu_switch_costs, one per entry of s->gpu_types (all placed by now):
 * the scenario's costs, with a "gpus" member's own "calibration" read over
 * them, so a figure the type's profile leaves out (a measured profile has no
 * storage_gbps) is the scenario's, which is the built-in one unless the
 * top-level "calibration" says otherwise. */
int fs__scenario_parse_gpu_calibrations(fs_jpath *p, parse_ctx *c)
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
        size_t i = fs__scenario_gpu_type_index(c, c->declared[k].name); /* present: placed above */
        assert(i < s->n_gpu_types);
        size_t mark = fs_jpath_push_key(p, "gpus");
        fs_jpath_push_key(p, c->declared[k].name);
        fs_jpath_push_key(p, "calibration");
        rc = parse_calibration_value(p, c->declared_cal[k], 2, &s->gpu_switch_costs[i]);
        fs_jpath_pop(p, mark);
    }
    return rc;
}

/*
 * sensitivity_report — see sensitivity_report.h for the contract.
 */
#include "sensitivity_report.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "charts.h"
#include "page.h"

#define FS__SENS_SCHEMA "fleetsim-sensitivity/1" /* sensitivity.h's, which reports do not include */

/* A number of the document: null (no data) or absent is NaN. */
static double fs__num(const json_t *v)
{
    return json_is_number(v) ? json_number_value(v) : NAN;
}

/* A figure of an input: "values"/level, or an effect, as {value, ci95}. */
static const json_t *fs__at(const json_t *in, const char *key, const char *level)
{
    const json_t *o = json_object_get(in, key);
    return level ? json_object_get(o, level) : o;
}

static const char *fs__str(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "";
}

/* Refuses a document that is not a sensitivity study's, naming the member. */
static int fs__check(const json_t *doc, const char *path, fs_error *err)
{
    if (strcmp(fs__str(doc, "schema"), FS__SENS_SCHEMA) != 0)
        return fs_error_set(err, FS_ERR_INPUT, "%s: \"schema\": expected \"%s\"", path, FS__SENS_SCHEMA);
    const char *keys[3] = {"scenario", "metric", "policy"};
    for (int k = 0; k < 3; k++)
        if (!json_is_string(json_object_get(doc, keys[k])))
            return fs_error_set(err, FS_ERR_INPUT, "%s: \"%s\": expected a string", path, keys[k]);
    const json_t *inputs = json_object_get(doc, "inputs");
    if (!json_is_array(inputs))
        return fs_error_set(err, FS_ERR_INPUT, "%s: \"inputs\": expected a list", path);
    size_t i;
    const json_t *in;
    json_array_foreach(inputs, i, in) {
        if (!json_is_string(json_object_get(in, "path")) || !json_is_object(json_object_get(in, "values")) ||
            !json_is_object(json_object_get(in, "effect")))
            return fs_error_set(err, FS_ERR_INPUT, "%s: inputs[%zu]: expected an object with \"path\", "
                                                   "\"values\" and \"effect\"",
                                path, i);
    }
    return FS_OK;
}

typedef struct fs__page {
    const json_t *doc;
    const fs_chart_set *charts;
} fs__page;

static void fs__cell_open(fs_page_doc *d, bool head)
{
    fs_page_raw(d, "%s", d->html ? (head ? "<th>" : "<td>") : " ");
}

static void fs__cell_close(fs_page_doc *d, bool head)
{
    fs_page_raw(d, "%s", d->html ? (head ? "</th>" : "</td>") : " |");
}

/* A figure with its interval, "no data" where it has none (never 0). */
static void fs__figure(fs_page_doc *d, const json_t *st, bool signed_value)
{
    double v = fs__num(json_object_get(st, "value")), ci = fs__num(json_object_get(st, "ci95"));
    if (isnan(v)) {
        fs_page_raw(d, "no data");
        return;
    }
    if (signed_value && v > 0)
        fs_page_raw(d, "+");
    fs_page_number(d, v);
    if (isfinite(ci))
        fs_page_raw(d, " ±%.2g", ci);
}

static void fs__row(fs_page_doc *d, const json_t *in)
{
    fs_page_raw(d, "%s", d->html ? "<tr>" : "|");
    fs__cell_open(d, false);
    fs_page_raw(d, "%lld", (long long)json_integer_value(json_object_get(in, "rank")));
    fs__cell_close(d, false);
    fs__cell_open(d, false);
    fs_page_raw(d, "<code>");
    fs_page_text(d, fs__str(in, "path"));
    fs_page_raw(d, "</code>");
    fs__cell_close(d, false);
    const char *values[3] = {"low", "base", "high"};
    for (int k = 0; k < 3; k++) {
        fs__cell_open(d, false);
        fs_page_number(d, fs__num(json_object_get(in, values[k])));
        fs__cell_close(d, false);
    }
    for (int k = 0; k < 3; k += 2) {
        fs__cell_open(d, false);
        if (json_object_get(fs__at(in, "values", values[k]), "refused"))
            fs_page_raw(d, "refused");
        else
            fs__figure(d, fs__at(in, "values", values[k]), false);
        fs__cell_close(d, false);
    }
    fs__cell_open(d, false);
    fs__figure(d, fs__at(in, "effect", NULL), true);
    fs__cell_close(d, false);
    fs__cell_open(d, false);
    double e = fs__num(json_object_get(in, "elasticity"));
    if (isnan(e))
        fs_page_raw(d, "no data");
    else
        fs_page_number(d, e);
    fs__cell_close(d, false);
    fs__cell_open(d, false);
    bool no_effect = isnan(fs__num(json_object_get(fs__at(in, "effect", NULL), "value")));
    fs_page_raw(d, "%s", no_effect ? "no data"
                         : json_is_true(json_object_get(in, "distinguishable")) ? ""
                                                                               : "noise");
    fs__cell_close(d, false);
    fs_page_raw(d, "%s", d->html ? "</tr>\n" : "\n");
}

static void fs__table(fs_page_doc *d, const json_t *doc)
{
    static const char *const heads[] = {"rank", "input", "low", "base", "high", "at low", "at high",
                                        "effect (high − low)", "elasticity", ""};
    const size_t n_heads = sizeof heads / sizeof *heads;
    fs_page_raw(d, "%s", d->html ? "<table>\n<tr>" : "|");
    for (size_t k = 0; k < n_heads; k++) {
        fs__cell_open(d, true);
        fs_page_raw(d, "%s", heads[k]);
        fs__cell_close(d, true);
    }
    fs_page_raw(d, "%s", d->html ? "</tr>\n" : "\n|");
    for (size_t k = 0; !d->html && k < n_heads; k++)
        fs_page_raw(d, "---|");
    fs_page_raw(d, "%s", d->html ? "" : "\n");
    size_t i;
    const json_t *in;
    json_array_foreach(json_object_get(doc, "inputs"), i, in)
        fs__row(d, in);
    fs_page_raw(d, "%s", d->html ? "</table>\n" : "\n");
}

/* Why each refused end could not run, one paragraph each. */
static void fs__refusals(fs_page_doc *d, const json_t *doc)
{
    size_t i;
    const json_t *in;
    json_array_foreach(json_object_get(doc, "inputs"), i, in) {
        for (int k = 0; k < 2; k++) {
            const char *why = json_string_value(json_object_get(fs__at(in, "values", k ? "high" : "low"), "refused"));
            if (!why)
                continue;
            fs_page_para_open(d);
            fs_page_raw(d, "Refused: <code>");
            fs_page_text(d, fs__str(in, "path"));
            fs_page_raw(d, "</code> at its %s value: ", k ? "high" : "low");
            fs_page_text(d, why);
            fs_page_para_close(d);
        }
    }
}

static void fs__document(fs_page_doc *d, void *ctx)
{
    const fs__page *pg = ctx;
    const json_t *doc = pg->doc;
    fs_page_open(d, fs__str(doc, "scenario"));
    fs_page_heading(d, 1, "Sensitivity: ", fs__str(doc, "scenario"));
    fs_page_para_open(d);
    fs_page_raw(d, "Which inputs move <code>");
    fs_page_text(d, fs__str(doc, "metric"));
    fs_page_raw(d, "</code> most, policy <code>");
    fs_page_text(d, fs__str(doc, "policy"));
    fs_page_raw(d, "</code>, by <code>fleetsim sensitivity</code>: each input set to its low and then its high "
                   "value, the others as the scenario has them, every point run for %lld replications on the "
                   "same random numbers.  The effect is the figure at high minus the figure at low, paired by "
                   "replication, with its 95%% confidence half-width; the elasticity is that effect relative "
                   "to the base figure over the input's change relative to its base value.  At the base point "
                   "(the scenario as written) the figure is ",
                (long long)json_integer_value(json_object_get(doc, "replications")));
    fs__figure(d, json_object_get(doc, "base"), false);
    fs_page_raw(d, ".");
    fs_page_para_close(d);
    fs_page_heading(d, 2, "Inputs by effect", NULL);
    fs__table(d, doc);
    fs_page_para_open(d);
    fs_page_raw(d, "<b>noise</b>: the effect's interval holds 0, so this many replications cannot tell it from "
                   "chance.  <b>no data</b>: the figure had no value there (a latency with no completed "
                   "request, or a point whose replicas fit nowhere).");
    fs_page_para_close(d);
    fs__refusals(d, doc);
    if (pg->charts->n > 0) {
        fs_page_charts(d, pg->charts);
    } else {
        fs_page_heading(d, 2, "Charts", NULL);
        fs_page_para_open(d);
        fs_page_raw(d, "No chart: the figure has no data at the base point.");
        fs_page_para_close(d);
    }
    fs_page_close(d);
}

static int fs__chart(const json_t *doc, const char *out_dir, fs_chart_set *charts, fs_error *err)
{
    const json_t *inputs = json_object_get(doc, "inputs");
    size_t n = json_array_size(inputs);
    fs_tornado_input *bars = calloc(n ? n : 1, sizeof *bars);
    if (!bars)
        return fs_error_set(err, FS_ERR_RUNTIME, "sensitivity report: out of memory");
    for (size_t i = 0; i < n; i++) {
        const json_t *in = json_array_get(inputs, i);
        const json_t *effect = fs__at(in, "effect", NULL);
        bars[i] = (fs_tornado_input){fs__str(in, "path"), fs__num(json_object_get(in, "low")),
                                     fs__num(json_object_get(in, "high")),
                                     fs__num(json_object_get(fs__at(in, "values", "low"), "value")),
                                     fs__num(json_object_get(fs__at(in, "values", "high"), "value")),
                                     fs__num(json_object_get(effect, "value")),
                                     fs__num(json_object_get(effect, "ci95"))};
    }
    fs_tornado_chart c = {.scenario = fs__str(doc, "scenario"), .metric = fs__str(doc, "metric"),
                          .base_value = fs__num(json_object_get(json_object_get(doc, "base"), "value")),
                          .inputs = bars, .n_inputs = n};
    int rc = fs_charts_write_tornado(&c, out_dir, charts, err);
    free(bars);
    return rc;
}

bool fs_sensitivity_report_applies(const char *dir)
{
    char *path = fs_page_path(dir, "sensitivity.json");
    struct stat st;
    bool applies = path && stat(path, &st) == 0;
    free(path);
    return applies;
}

int fs_sensitivity_report_write(const char *dir, const char *out_dir, fs_error *err)
{
    int rc = FS_OK;
    char id[FS_PAGE_ID_MAX], *path = fs_page_path(dir, "sensitivity.json");
    json_t *doc = path ? fs_page_load(dir, "sensitivity.json", true, err, &rc) : NULL;
    if (!path)
        rc = fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
    if (rc == FS_OK)
        rc = fs__check(doc, path, err);
    fs_error left;
    if (rc == FS_OK && (rc = fs_page_results_id(dir, NULL, id, err)) == FS_OK &&
        (rc = fs_page_check_replaceable(out_dir, err)) == FS_OK)
        rc = fs_page_remove_stale(out_dir, id, &left, err);
    fs_chart_set charts = {0};
    if (rc == FS_OK)
        rc = fs__chart(doc, out_dir, &charts, err);
    fs__page page = {doc, &charts};
    if (rc == FS_OK)
        rc = fs_page_write_pages(out_dir, id, fs__document, &page, err);
    fs_charts_free(&charts);
    json_decref(doc);
    free(path);
    return rc;
}

/*
 * plan_report — see plan_report.h for the contract.
 *
 * Two phases: read (plan.json checked member by member into fs__plan, whose
 * strings point into the JSON document), then write (the chart, then both
 * pages from one body function).  The reader stops at the first member that
 * is not what the schema says, so a message names one place to fix.
 */
#include "plan_report.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "charts.h"
#include "page.h"
#include "sweep_table.h"

/* ---- plan.json ------------------------------------------------------------ */

typedef struct fs__fig {
    double value, ci95; /* NAN where plan.json has null or nothing */
} fs__fig;

typedef struct fs__point {
    long long id;
    const char *label;
    const char *verdict; /* "meets", "fails" or "unsure" */
    const char *refused; /* why, or NULL */
    long long replications;
    fs__fig objective, frontier;
    json_t *constraints; /* constraint text -> {value, ci95}; NULL when refused */
} fs__point;

typedef struct fs__plan {
    char path[4096]; /* DIR/plan.json, for messages */
    json_t *root;
    const char *scenario, *fingerprint, *minimize, *frontier_figure, *search;
    json_t *dimensions, *constraints;
    long long replications, max_replications;
    long long points_evaluated, grid_points, simulations, grid_simulations;
    fs__point *pts;
    size_t n;
    size_t answer; /* index into pts, SIZE_MAX: nothing meets */
    size_t *front; /* indices into pts, cheapest first */
    size_t n_front;
    size_t limit;  /* the first constraint on frontier_figure, SIZE_MAX: none */
} fs__plan;

static void fs__plan_fini(fs__plan *p)
{
    free(p->pts);
    free(p->front);
    json_decref(p->root);
}

/* The reader keeps the first error: every later call is a no-op returning
 * NULL, so a sequence of reads needs one check at its end. */
typedef struct fs__reader {
    const char *path;
    fs_error *err;
    int rc;
} fs__reader;

typedef enum { FS__OBJ, FS__ARR, FS__STR, FS__NUM, FS__INT, FS__BOOL } fs__kind;

static const char *const fs__kind_names[] = {
    [FS__OBJ] = "an object", [FS__ARR] = "an array",   [FS__STR] = "a string",
    [FS__NUM] = "a number",  [FS__INT] = "an integer", [FS__BOOL] = "true or false"};

static bool fs__is(json_t *v, fs__kind kind)
{
    switch (kind) {
    case FS__OBJ: return json_is_object(v);
    case FS__ARR: return json_is_array(v);
    case FS__STR: return json_is_string(v);
    case FS__NUM: return json_is_number(v);
    case FS__INT: return json_is_integer(v);
    case FS__BOOL: return json_is_boolean(v);
    }
    return false;
}

static int fs__fail(fs__reader *r, const char *where, const char *key, const char *what)
{
    if (!r->rc)
        r->rc = fs_error_set(r->err, FS_ERR_INPUT, "%s: %s%s%s: expected %s", r->path, where,
                             *where && *key ? "." : "", key, what);
    return r->rc;
}

/* obj[key] when it is of the kind; NULL otherwise, which is an error unless
 * optional and the member is absent or null.  where names obj ("" for the
 * document, "evaluated[3]"). */
static json_t *fs__get(fs__reader *r, json_t *obj, const char *where, const char *key, fs__kind kind,
                       bool optional)
{
    if (r->rc)
        return NULL;
    json_t *v = json_object_get(obj, key);
    if (fs__is(v, kind))
        return v;
    if (!(optional && (!v || json_is_null(v))))
        fs__fail(r, where, key, fs__kind_names[kind]);
    return NULL;
}

static const char *fs__get_str(fs__reader *r, json_t *obj, const char *where, const char *key, bool optional)
{
    return json_string_value(fs__get(r, obj, where, key, FS__STR, optional));
}

static long long fs__get_int(fs__reader *r, json_t *obj, const char *where, const char *key)
{
    return (long long)json_integer_value(fs__get(r, obj, where, key, FS__INT, false));
}

/* {value, ci95}, each a number or null; the object itself may be absent. */
static fs__fig fs__get_fig(fs__reader *r, json_t *obj, const char *where, const char *key)
{
    fs__fig f = {NAN, NAN};
    json_t *o = fs__get(r, obj, where, key, FS__OBJ, true);
    if (!o)
        return f;
    char at[96];
    snprintf(at, sizeof at, "%s%s%s", where, *where ? "." : "", key);
    json_t *v = fs__get(r, o, at, "value", FS__NUM, true), *ci = fs__get(r, o, at, "ci95", FS__NUM, true);
    if (v)
        f.value = json_number_value(v);
    if (ci)
        f.ci95 = json_number_value(ci);
    return f;
}

/* The index in p->pts of the point numbered by v (an integer), or SIZE_MAX
 * and an error.  A linear scan: the frontier and the answer are looked up
 * once each, O(frontier x points), well under reading the file for any
 * grid a plan can simulate. */
static size_t fs__find_point(fs__reader *r, const fs__plan *p, json_t *v, const char *where, const char *key)
{
    if (r->rc)
        return SIZE_MAX;
    for (size_t i = 0; json_is_integer(v) && i < p->n; i++)
        if (p->pts[i].id == json_integer_value(v))
            return i;
    fs__fail(r, where, key, "the number of a point in evaluated");
    return SIZE_MAX;
}

static void fs__read_point(fs__reader *r, json_t *o, size_t i, fs__point *pt)
{
    char where[48];
    snprintf(where, sizeof where, "evaluated[%zu]", i);
    if (!json_is_object(o)) {
        fs__fail(r, "", where, "an object");
        return;
    }
    pt->id = fs__get_int(r, o, where, "point");
    pt->label = fs__get_str(r, o, where, "label", false);
    pt->replications = fs__get_int(r, o, where, "replications");
    pt->verdict = fs__get_str(r, o, where, "verdict", false);
    pt->refused = fs__get_str(r, o, where, "refused", true);
    if (!r->rc && strcmp(pt->verdict, "meets") != 0 && strcmp(pt->verdict, "fails") != 0 &&
        strcmp(pt->verdict, "unsure") != 0)
        fs__fail(r, where, "verdict", "\"meets\", \"fails\" or \"unsure\"");
    pt->objective = fs__get_fig(r, o, where, "objective");
    pt->frontier = fs__get_fig(r, o, where, "frontier");
    pt->constraints = fs__get(r, o, where, "constraints", FS__OBJ, pt->refused != NULL);
}

static int fs__read(fs__plan *p, const char *dir, fs_error *err)
{
    int rc = FS_OK;
    snprintf(p->path, sizeof p->path, "%s/plan.json", dir);
    p->answer = p->limit = SIZE_MAX;
    if (!(p->root = fs_page_load(dir, "plan.json", true, err, &rc)))
        return rc;
    fs__reader r = {.path = p->path, .err = err};
    json_t *doc = p->root;
    if (!json_is_object(doc))
        return fs_error_set(err, FS_ERR_INPUT, "%s: expected an object (a plan written by fleetsim plan)", p->path);
    const char *schema = fs__get_str(&r, doc, "", "schema", false);
    if (!r.rc && strcmp(schema, FS_PLAN_SCHEMA) != 0)
        fs__fail(&r, "", "schema", "\"" FS_PLAN_SCHEMA "\"");
    p->scenario = fs__get_str(&r, doc, "", "scenario", false);
    p->fingerprint = fs__get_str(&r, doc, "", "fingerprint", true);
    p->minimize = fs__get_str(&r, doc, "", "minimize", false);
    p->frontier_figure = fs__get_str(&r, doc, "", "frontier_figure", true);
    p->search = fs__get_str(&r, doc, "", "search", false);
    p->replications = fs__get_int(&r, doc, "", "replications");
    p->max_replications = fs__get_int(&r, doc, "", "max_replications");
    p->dimensions = fs__get(&r, doc, "", "dimensions", FS__ARR, false);
    p->constraints = fs__get(&r, doc, "", "constraints", FS__ARR, false);
    json_t *counts = fs__get(&r, doc, "", "counts", FS__OBJ, false);
    p->points_evaluated = fs__get_int(&r, counts, "counts", "points_evaluated");
    p->grid_points = fs__get_int(&r, counts, "counts", "grid_points");
    p->simulations = fs__get_int(&r, counts, "counts", "simulations");
    p->grid_simulations = fs__get_int(&r, counts, "counts", "grid_simulations");
    size_t i;
    json_t *v;
    char where[48];
    json_array_foreach(p->dimensions, i, v) {
        snprintf(where, sizeof where, "dimensions[%zu]", i);
        fs__get_str(&r, v, where, "path", false);
        fs__get(&r, v, where, "values", FS__ARR, false);
    }
    json_array_foreach(p->constraints, i, v) {
        snprintf(where, sizeof where, "constraints[%zu]", i);
        fs__get_str(&r, v, where, "text", false);
        fs__get_str(&r, v, where, "op", false);
        fs__get(&r, v, where, "limit", FS__NUM, false);
        const char *figure = fs__get_str(&r, v, where, "figure", true);
        if (figure && p->frontier_figure && strcmp(figure, p->frontier_figure) == 0 && p->limit == SIZE_MAX)
            p->limit = i;
    }
    json_t *evaluated = fs__get(&r, doc, "", "evaluated", FS__ARR, false);
    json_t *front = fs__get(&r, doc, "", "frontier", FS__ARR, false);
    if (r.rc)
        return r.rc;
    p->n = json_array_size(evaluated);
    p->pts = calloc(p->n ? p->n : 1, sizeof *p->pts);
    p->front = calloc(json_array_size(front) ? json_array_size(front) : 1, sizeof *p->front);
    if (!p->pts || !p->front)
        return fs_error_set(err, FS_ERR_RUNTIME, "plan report: out of memory");
    json_array_foreach(evaluated, i, v) fs__read_point(&r, v, i, &p->pts[i]);
    json_array_foreach(front, i, v) {
        snprintf(where, sizeof where, "frontier[%zu]", i);
        p->front[p->n_front++] = fs__find_point(&r, p, v, "", where);
    }
    json_t *answer = json_object_get(doc, "answer");
    if (json_is_object(answer))
        p->answer = fs__find_point(&r, p, json_object_get(answer, "point"), "answer", "point");
    else if (!json_is_null(answer))
        fs__fail(&r, "", "answer", "null (nothing meets) or the point object of the answer");
    return r.rc;
}

/* ---- the pages ------------------------------------------------------------ */

typedef struct fs__page {
    const fs__plan *plan;
    const fs_chart_set *charts;
} fs__page;

static void fs__fig_text(fs_page_doc *d, fs__fig f)
{
    fs_page_number(d, f.value);
    if (isfinite(f.value) && isfinite(f.ci95))
        fs_page_raw(d, " ±%.2g", f.ci95);
}

/* The markup the pages use beyond report.h's, as {opening, closing} per
 * markup.  A Markdown table row is "| a | b |": the row opens with "|" and
 * each cell closes with " |". */
typedef enum { FS__CODE, FS__STRONG, FS__LIST, FS__ITEM, FS__TABLE, FS__ROW, FS__HEAD, FS__CELL } fs__tag;

static const struct {
    const char *html[2], *md[2];
} fs__tags[] = {
    [FS__CODE] = {{"<code>", "</code>"}, {"<code>", "</code>"}},
    [FS__STRONG] = {{"<b>", "</b>"}, {"**", "**"}},
    [FS__LIST] = {{"<ul>\n", "</ul>\n"}, {"", "\n"}},
    [FS__ITEM] = {{"<li>", "</li>\n"}, {"- ", "\n"}},
    [FS__TABLE] = {{"<table>\n", "</table>\n"}, {"", "\n"}},
    [FS__ROW] = {{"<tr>", "</tr>\n"}, {"|", "\n"}},
    [FS__HEAD] = {{"<th>", "</th>"}, {" ", " |"}},
    [FS__CELL] = {{"<td>", "</td>"}, {" ", " |"}},
};

static void fs__open(fs_page_doc *d, fs__tag t)
{
    fs_page_raw(d, "%s", d->html ? fs__tags[t].html[0] : fs__tags[t].md[0]);
}

static void fs__close(fs_page_doc *d, fs__tag t)
{
    fs_page_raw(d, "%s", d->html ? fs__tags[t].html[1] : fs__tags[t].md[1]);
}

/* User text inside tag t. */
static void fs__tagged(fs_page_doc *d, fs__tag t, const char *user)
{
    fs__open(d, t);
    fs_page_text(d, user);
    fs__close(d, t);
}

/* A table opens with its header cells (fs__tagged FS__HEAD) and this ends
 * them: Markdown's separator row needs their count. */
static void fs__head_close(fs_page_doc *d, size_t n)
{
    fs__close(d, FS__ROW);
    for (size_t k = 0; !d->html && k < n; k++)
        fs_page_raw(d, k ? "---|" : "|---|");
    fs_page_raw(d, d->html ? "" : "\n");
}

static void fs__cell_fig(fs_page_doc *d, fs__fig f)
{
    fs__open(d, FS__CELL);
    fs__fig_text(d, f);
    fs__close(d, FS__CELL);
}

/* A point's value of constraint c (by its text), NAN when it has none. */
static fs__fig fs__constraint_fig(const fs__point *pt, json_t *c)
{
    json_t *o = json_object_get(pt->constraints, json_string_value(json_object_get(c, "text")));
    json_t *v = json_object_get(o, "value"), *ci = json_object_get(o, "ci95");
    return (fs__fig){json_is_number(v) ? json_number_value(v) : NAN, json_is_number(ci) ? json_number_value(ci) : NAN};
}

/* Whether constraint c's figure is already a column (the minimized or the
 * frontier figure): the points table leaves it out rather than repeat it. */
static bool fs__constraint_shown(const fs__plan *p, json_t *c)
{
    const char *fig = json_string_value(json_object_get(c, "figure"));
    return fig && (strcmp(fig, p->minimize) == 0 || (p->frontier_figure && strcmp(fig, p->frontier_figure) == 0));
}

static void fs__question(fs_page_doc *d, const fs__plan *p)
{
    fs_page_heading(d, 2, "Question", NULL);
    fs_page_para_open(d);
    fs_page_raw(d, "Minimize ");
    fs__tagged(d, FS__CODE, p->minimize);
    size_t n = json_array_size(p->constraints);
    if (n == 0) {
        fs_page_raw(d, " over every point: there are no constraints.");
        fs_page_para_close(d);
        return;
    }
    fs_page_raw(d, " over the points that meet every constraint with 95%% confidence (the whole "
                  "95%% interval on the right side of the limit):");
    fs_page_para_close(d);
    fs__open(d, FS__LIST);
    size_t i;
    json_t *c;
    json_array_foreach(p->constraints, i, c) {
        fs__open(d, FS__ITEM);
        fs__tagged(d, FS__CODE, json_string_value(json_object_get(c, "text")));
        const char *fig = json_string_value(json_object_get(c, "figure"));
        if (fig) {
            fs_page_raw(d, ": ");
            fs_page_text(d, fig);
            fs_page_raw(d, " ");
            fs_page_text(d, json_string_value(json_object_get(c, "op")));
            fs_page_raw(d, " ");
            fs_page_number(d, json_number_value(json_object_get(c, "limit")));
        }
        fs__close(d, FS__ITEM);
    }
    fs__close(d, FS__LIST);
}

static void fs__answer(fs_page_doc *d, const fs__plan *p)
{
    fs_page_heading(d, 2, "Answer", NULL);
    fs_page_para_open(d);
    if (p->answer == SIZE_MAX) {
        size_t fails = 0, unsure = 0, refused = 0;
        for (size_t i = 0; i < p->n; i++) {
            refused += p->pts[i].refused != NULL;
            fails += !p->pts[i].refused && strcmp(p->pts[i].verdict, "fails") == 0;
            unsure += !p->pts[i].refused && strcmp(p->pts[i].verdict, "unsure") == 0;
        }
        fs__tagged(d, FS__STRONG, "No point meets every constraint");
        fs_page_raw(d, " with 95%% confidence: of the %zu points judged, %zu fail, %zu stayed unsure at up to "
                      "%lld replications and %zu were refused.",
                      p->n, fails, unsure, p->max_replications, refused);
        fs_page_para_close(d);
        return;
    }
    const fs__point *a = &p->pts[p->answer];
    fs_page_raw(d, "The cheapest point that meets every constraint is point %lld, ", a->id);
    fs__tagged(d, FS__STRONG, a->label);
    fs_page_raw(d, ": ");
    fs_page_text(d, p->minimize);
    fs_page_raw(d, " = ");
    fs__fig_text(d, a->objective);
    fs_page_raw(d, " (the mean of %lld replications ± its 95%% confidence half-width).", a->replications);
    fs_page_para_close(d);
    if (json_array_size(p->constraints) == 0)
        return;
    static const char *const heads[] = {"constraint", "figure", "value ± 95% CI", "limit"};
    fs__open(d, FS__TABLE);
    fs__open(d, FS__ROW);
    for (size_t k = 0; k < 4; k++)
        fs__tagged(d, FS__HEAD, heads[k]);
    fs__head_close(d, 4);
    size_t i;
    json_t *c;
    json_array_foreach(p->constraints, i, c) {
        fs__open(d, FS__ROW);
        fs__tagged(d, FS__CELL, json_string_value(json_object_get(c, "text")));
        const char *fig = json_string_value(json_object_get(c, "figure"));
        fs__tagged(d, FS__CELL, fig ? fig : "");
        fs__cell_fig(d, fs__constraint_fig(a, c));
        fs__open(d, FS__CELL);
        fs_page_text(d, json_string_value(json_object_get(c, "op")));
        fs_page_raw(d, " ");
        fs_page_number(d, json_number_value(json_object_get(c, "limit")));
        fs__close(d, FS__CELL);
        fs__close(d, FS__ROW);
    }
    fs__close(d, FS__TABLE);
}

static void fs__counts(fs_page_doc *d, const fs__plan *p)
{
    fs_page_heading(d, 2, "Effort", NULL);
    fs_page_para_open(d);
    fs_page_raw(d, "A ");
    fs_page_text(d, p->search);
    fs_page_raw(d, " search judged %lld of %lld points with %lld simulations (the full grid at %lld "
                  "replications: %lld). Each point started with %lld replications and got up to %lld "
                  "where an interval straddled a limit.",
                  p->points_evaluated, p->grid_points, p->simulations, p->replications, p->grid_simulations,
                  p->replications, p->max_replications);
    fs_page_para_close(d);
    fs__open(d, FS__LIST);
    size_t i;
    json_t *dim;
    json_array_foreach(p->dimensions, i, dim) {
        fs__open(d, FS__ITEM);
        fs__tagged(d, FS__CODE, json_string_value(json_object_get(dim, "path")));
        fs_page_raw(d, ": %zu values%s", json_array_size(json_object_get(dim, "values")),
                      json_is_true(json_object_get(dim, "monotone"))
                      ? ", a range taken as monotone (more of it is more capacity)"
                      : ", each judged");
        fs__close(d, FS__ITEM);
    }
    fs__close(d, FS__LIST);
}

/* One row of the frontier or the points table. */
static void fs__point_row(fs_page_doc *d, const fs__plan *p, size_t i, bool constraints)
{
    const fs__point *pt = &p->pts[i];
    fs__open(d, FS__ROW);
    fs__open(d, FS__CELL);
    fs_page_raw(d, "%lld", pt->id);
    fs__close(d, FS__CELL);
    fs__tagged(d, FS__CELL, pt->label);
    fs__open(d, FS__CELL);
    if (pt->refused) {
        fs_page_raw(d, "refused: ");
        fs_page_text(d, pt->refused);
    } else {
        fs_page_text(d, pt->verdict);
        fs_page_raw(d, i == p->answer ? " (the answer)" : "");
    }
    fs__close(d, FS__CELL);
    fs__open(d, FS__CELL);
    fs_page_raw(d, "%lld", pt->replications);
    fs__close(d, FS__CELL);
    fs__cell_fig(d, pt->objective);
    if (p->frontier_figure)
        fs__cell_fig(d, pt->frontier);
    size_t k;
    json_t *c;
    json_array_foreach(p->constraints, k, c) {
        if (constraints && !fs__constraint_shown(p, c))
            fs__cell_fig(d, fs__constraint_fig(pt, c));
    }
    fs__close(d, FS__ROW);
}

/* The header of the frontier or the points table. */
static void fs__points_open(fs_page_doc *d, const fs__plan *p, bool constraints)
{
    static const char *const heads[] = {"point", "label", "verdict", "replications"};
    fs__open(d, FS__TABLE);
    fs__open(d, FS__ROW);
    for (size_t k = 0; k < 4; k++)
        fs__tagged(d, FS__HEAD, heads[k]);
    fs__tagged(d, FS__HEAD, p->minimize);
    size_t n = 5;
    if (p->frontier_figure)
        fs__tagged(d, FS__HEAD, p->frontier_figure), n++;
    size_t k;
    json_t *c;
    json_array_foreach(p->constraints, k, c) {
        if (constraints && !fs__constraint_shown(p, c))
            fs__tagged(d, FS__HEAD, json_string_value(json_object_get(c, "text"))), n++;
    }
    fs__head_close(d, n);
}

static void fs__frontier(fs_page_doc *d, const fs__plan *p)
{
    fs_page_heading(d, 2, "Frontier", NULL);
    fs_page_para_open(d);
    if (!p->frontier_figure) {
        fs_page_raw(d, "The plan has no frontier figure (its scenario has no service), so there is no frontier.");
        fs_page_para_close(d);
        return;
    }
    if (p->n_front == 0) {
        fs_page_raw(d, "No point judged has both figures, so there is no frontier.");
        fs_page_para_close(d);
        return;
    }
    fs_page_raw(d, "The %zu points that no cheaper point beats on ", p->n_front);
    fs__tagged(d, FS__CODE, p->frontier_figure);
    fs_page_raw(d, ", cheapest first; each figure is the mean over the point's replications ± its 95%% "
                  "confidence half-width.");
    fs_page_para_close(d);
    fs__points_open(d, p, false);
    for (size_t k = 0; k < p->n_front; k++)
        fs__point_row(d, p, p->front[k], false);
    fs__close(d, FS__TABLE);
}

static void fs__points(fs_page_doc *d, const fs__plan *p)
{
    fs_page_heading(d, 2, "Points judged", NULL);
    if (p->n == 0) {
        fs_page_para_open(d);
        fs_page_raw(d, "None.");
        fs_page_para_close(d);
        return;
    }
    size_t shown = p->n < FS_PLAN_REPORT_ROWS ? p->n : FS_PLAN_REPORT_ROWS;
    if (p->n > shown) {
        fs_page_para_open(d);
        fs_page_raw(d, "The first %zu of %zu; plan.json and plan.csv in the plan directory hold them all.",
                      shown, p->n);
        fs_page_para_close(d);
    }
    fs__points_open(d, p, true);
    for (size_t i = 0; i < shown; i++)
        fs__point_row(d, p, i, true);
    fs__close(d, FS__TABLE);
}

static void fs__document(fs_page_doc *d, void *ctx)
{
    const fs__page *pg = ctx;
    const fs__plan *p = pg->plan;
    fs_page_open(d, p->scenario);
    fs_page_heading(d, 1, "Capacity plan: ", p->scenario);
    fs_page_para_open(d);
    fs_page_raw(d, "Scenario ");
    fs__tagged(d, FS__CODE, p->scenario);
    if (p->fingerprint) {
        fs_page_raw(d, " (fingerprint ");
        fs_page_text(d, p->fingerprint);
        fs_page_raw(d, ")");
    }
    fs_page_raw(d, ", planned by <code>fleetsim plan</code>.");
    fs_page_para_close(d);
    fs__question(d, p);
    fs__answer(d, p);
    fs__counts(d, p);
    fs__frontier(d, p);
    if (pg->charts->n > 0) {
        fs_page_charts(d, pg->charts);
    } else if (p->frontier_figure) {
        fs_page_heading(d, 2, "Charts", NULL);
        fs_page_para_open(d);
        fs_page_raw(d, "No chart: no point judged has both figures.");
        fs_page_para_close(d);
    }
    fs__points(d, p);
    fs_page_close(d);
}

/* ---- the chart ------------------------------------------------------------ */

static int fs__chart(const fs__plan *p, const char *out_dir, fs_chart_set *charts, fs_error *err)
{
    if (!p->frontier_figure)
        return FS_OK;
    /* Refused points have no figures: the chart leaves them out, so its
     * indices differ from p->pts's. */
    fs_chart_point *pts = calloc(p->n ? p->n : 1, sizeof *pts);
    size_t *index = calloc(p->n ? p->n : 1, sizeof *index);
    size_t *front = calloc(p->n_front ? p->n_front : 1, sizeof *front);
    if (!pts || !index || !front) {
        free(pts);
        free(index);
        free(front);
        return fs_error_set(err, FS_ERR_RUNTIME, "plan report: out of memory");
    }
    fs_frontier_chart c = {.scenario = p->scenario, .x_name = p->minimize, .y_name = p->frontier_figure,
                           .points = pts, .frontier = front, .answer = SIZE_MAX, .y_limit = NAN};
    for (size_t i = 0; i < p->n; i++) {
        const fs__point *pt = &p->pts[i];
        index[i] = SIZE_MAX;
        if (pt->refused)
            continue;
        fs_chart_verdict v = strcmp(pt->verdict, "meets") == 0    ? FS_CHART_MEETS
                             : strcmp(pt->verdict, "unsure") == 0 ? FS_CHART_UNSURE
                                                                  : FS_CHART_FAILS;
        index[i] = c.n_points;
        pts[c.n_points++] = (fs_chart_point){pt->id, pt->label, v, pt->objective.value, pt->objective.ci95,
                                             pt->frontier.value, pt->frontier.ci95};
    }
    for (size_t k = 0; k < p->n_front; k++)
        if (index[p->front[k]] != SIZE_MAX)
            front[c.n_frontier++] = index[p->front[k]];
    if (p->answer != SIZE_MAX)
        c.answer = index[p->answer];
    if (p->limit != SIZE_MAX) {
        json_t *con = json_array_get(p->constraints, p->limit);
        c.y_limit = json_number_value(json_object_get(con, "limit"));
        c.limit_text = json_string_value(json_object_get(con, "text"));
    }
    int rc = fs_charts_write_frontier(&c, out_dir, charts, err);
    free(pts);
    free(index);
    free(front);
    return rc;
}

/* ---- entry points ------------------------------------------------------------ */

bool fs_plan_report_applies(const char *dir)
{
    char *path = fs_page_path(dir, "plan.json");
    struct stat st;
    bool applies = path && stat(path, &st) == 0;
    free(path);
    return applies;
}

int fs_plan_report_write(const char *plan_dir, const char *out_dir, const char *run_id, fs_error *err)
{
    fs__plan plan = {0};
    fs_chart_set charts = {0};
    int rc = fs__read(&plan, plan_dir, err);
    if (rc == FS_OK)
        rc = fs__chart(&plan, out_dir, &charts, err);
    fs__page page = {&plan, &charts};
    if (rc == FS_OK)
        rc = fs_page_write_pages(out_dir, run_id, fs__document, &page, err);
    fs_charts_free(&charts);
    fs__plan_fini(&plan);
    return rc;
}

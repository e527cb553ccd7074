#include "sweep_table.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "results_csv.h"
#include "terminal.h"


static void fs__number(FILE *fp, double v)
{
    if (isfinite(v))
        fprintf(fp, "%.10g", v);
}

/* Every figure any row has, in first-seen order (rows of one policy list
 * the same figures in the same order, so this stays cheap). */
static int fs__columns(const fs_metric_row *rows, size_t n_rows, const char ***out, size_t *n_out)
{
    const char **names = NULL;
    size_t n = 0, cap = 0;
    for (size_t p = 0; p < n_rows; p++) {
        for (size_t i = 0; i < rows[p].n; i++) {
            const char *name = rows[p].names[i];
            bool seen = i < n && strcmp(names[i], name) == 0;
            for (size_t k = 0; k < n && !seen; k++)
                seen = strcmp(names[k], name) == 0;
            if (seen)
                continue;
            if (n == cap) {
                cap = cap ? 2 * cap : 64;
                const char **bigger = realloc(names, cap * sizeof *bigger);
                if (!bigger) {
                    free(names);
                    return ENOMEM;
                }
                names = bigger;
            }
            names[n++] = name;
        }
    }
    *out = names;
    *n_out = n;
    return 0;
}

/* Index of name in row, trying position hint first. */
static size_t fs__at(const fs_metric_row *row, size_t hint, const char *name)
{
    if (hint < row->n && strcmp(row->names[hint], name) == 0)
        return hint;
    return fs_metric_row_find(row, name);
}

int fs_sweep_points_csv(const fs_sweep *sw, const fs_metric_row *rows, FILE *fp, fs_error *err)
{
    const char **cols;
    size_t n_cols;
    if (fs__columns(rows, sw->n_points, &cols, &n_cols) != 0)
        return fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
    fputs("point", fp);
    for (size_t d = 0; d < sw->n_dims; d++) {
        fputc(',', fp);
        fs_results_csv_field(fp, sw->dims[d].path);
    }
    fputs(",replications,refused", fp);
    for (size_t c = 0; c < n_cols; c++) {
        fputc(',', fp);
        fs_results_csv_field(fp, cols[c]);
        char ci[600];
        snprintf(ci, sizeof ci, "%s_ci95", cols[c]);
        fputc(',', fp);
        fs_results_csv_field(fp, ci);
    }
    fputc('\n', fp);
    size_t coords[FS_SWEEP_MAX_DIMS];
    for (size_t p = 0; p < sw->n_points; p++) {
        fs_sweep_coords(sw, p, coords);
        fprintf(fp, "%zu", p);
        for (size_t d = 0; d < sw->n_dims; d++) {
            fputc(',', fp);
            fs_results_csv_field(fp, sw->dims[d].labels[coords[d]]);
        }
        fprintf(fp, ",%u,", rows[p].replications);
        fs_results_csv_field(fp, rows[p].refused ? rows[p].refused : "");
        for (size_t c = 0; c < n_cols; c++) {
            size_t i = fs__at(&rows[p], c, cols[c]);
            fputc(',', fp);
            if (i != SIZE_MAX)
                fs__number(fp, rows[p].value[i]);
            fputc(',', fp);
            if (i != SIZE_MAX)
                fs__number(fp, rows[p].ci95[i]);
        }
        fputc('\n', fp);
    }
    free(cols);
    return fs_results_csv_check(fp, err, "points.csv");
}

static json_t *fs__num(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *fs__row_json(const fs_metric_row *row)
{
    json_t *metrics = json_object();
    for (size_t i = 0; metrics && i < row->n; i++)
        if (json_object_set_new(metrics, row->names[i],
                                json_pack("{s:o,s:o}", "value", fs__num(row->value[i]), "ci95", fs__num(row->ci95[i]))) != 0) {
            json_decref(metrics);
            return NULL;
        }
    return metrics;
}

static json_t *fs__point_values(const fs_sweep *sw, size_t point)
{
    size_t coords[FS_SWEEP_MAX_DIMS];
    fs_sweep_coords(sw, point, coords);
    json_t *values = json_object();
    for (size_t d = 0; values && d < sw->n_dims; d++)
        if (json_object_set(values, sw->dims[d].path, json_array_get(sw->dims[d].values, coords[d])) != 0) {
            json_decref(values);
            return NULL;
        }
    return values;
}

static int fs__dump(json_t *doc, FILE *fp, fs_error *err, const char *what)
{
    int rc = doc && json_dumpf(doc, fp, JSON_INDENT(1) | JSON_REAL_PRECISION(17)) == 0 && fputc('\n', fp) != EOF
                 ? FS_OK
                 : fs_error_set(err, FS_ERR_RUNTIME, "cannot write %s", what);
    json_decref(doc);
    return rc;
}

int fs_sweep_points_json(const fs_sweep *sw, const fs_metric_row *rows, FILE *fp, fs_error *err)
{
    json_t *dims = json_array(), *points = json_array();
    for (size_t d = 0; dims && d < sw->n_dims; d++)
        json_array_append_new(dims, json_pack("{s:s,s:O}", "path", sw->dims[d].path, "values", sw->dims[d].values));
    for (size_t p = 0; points && p < sw->n_points; p++) {
        json_t *o = json_pack("{s:I,s:o,s:i,s:I}", "point", (json_int_t)p, "values", fs__point_values(sw, p),
                              "replications", (int)rows[p].replications, "events", (json_int_t)rows[p].events);
        if (o && rows[p].refused)
            json_object_set_new(o, "refused", json_string(rows[p].refused));
        else if (o)
            json_object_set_new(o, "metrics", fs__row_json(&rows[p]));
        json_array_append_new(points, o);
    }
    json_t *doc = json_pack("{s:s,s:s,s:s,s:o,s:o}", "schema", FS_SWEEP_RESULTS_SCHEMA, "fingerprint",
                            sw->fingerprint, "scenario", sw->scenario_origin, "dimensions", dims, "points", points);
    return fs__dump(doc, fp, err, "points.json");
}

/* The value of a figure in a row, NaN if absent. */
static double fs__value(const fs_metric_row *row, const char *name)
{
    size_t i = fs_metric_row_find(row, name);
    return i == SIZE_MAX ? NAN : row->value[i];
}

int fs_sweep_points_table(const fs_sweep *sw, const fs_metric_row *rows, FILE *fp, fs_error *err)
{
    const char **cols;
    size_t n_cols;
    if (fs__columns(rows, sw->n_points, &cols, &n_cols) != 0)
        return fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
    const char *p99[6];
    size_t n_p99 = 0, total_p99 = 0;
    for (size_t c = 0; c < n_cols; c++)
        if (strncmp(cols[c], "service:", 8) == 0 && strstr(cols[c], ".p99_ms") &&
            strcmp(strstr(cols[c], ".p99_ms"), ".p99_ms") == 0) {
            if (n_p99 < 6)
                p99[n_p99++] = cols[c];
            total_p99++;
        }
    size_t coords[FS_SWEEP_MAX_DIMS];
    fprintf(fp, "%-6s", "point");
    for (size_t d = 0; d < sw->n_dims; d++) {
        fputs("  ", fp);
        fs_terminal_write(fp, sw->dims[d].path);
    }
    fprintf(fp, "  |  cost_usd  utilization");
    for (size_t k = 0; k < n_p99; k++)
        fprintf(fp, "  %s", p99[k] + 8);
    if (total_p99 > n_p99)
        fprintf(fp, "  (and %zu more services)", total_p99 - n_p99);
    fputc('\n', fp);
    for (size_t p = 0; p < sw->n_points; p++) {
        fs_sweep_coords(sw, p, coords);
        fprintf(fp, "%-6zu", p);
        for (size_t d = 0; d < sw->n_dims; d++) {
            const char *label = sw->dims[d].labels[coords[d]];
            int pad = (int)strlen(sw->dims[d].path) - (int)strlen(label);
            fprintf(fp, "  %*s", pad > 0 ? pad : 0, ""); /* right-aligned under the path */
            fs_terminal_write(fp, label);
        }
        if (rows[p].refused) {
            fputs("  |  refused: ", fp);
            fs_terminal_write(fp, rows[p].refused);
            fputc('\n', fp);
            continue;
        }
        fprintf(fp, "  |  %8.1f  %11.3f", fs__value(&rows[p], "fleet.cost_usd"), fs__value(&rows[p], "fleet.utilization"));
        for (size_t k = 0; k < n_p99; k++) {
            double v = fs__value(&rows[p], p99[k]);
            if (isnan(v)) /* nothing completed at this point */
                fprintf(fp, "  %*s", (int)strlen(p99[k] + 8), "no data");
            else
                fprintf(fp, "  %*.1f", (int)strlen(p99[k] + 8), v);
        }
        fputc('\n', fp);
    }
    free(cols);
    return fs_results_csv_check(fp, err, "the table");
}

/* ---- plan ---- */

static const char *const fs__ops[] = {[FS_CMP_LE] = "<=", [FS_CMP_LT] = "<", [FS_CMP_GE] = ">=", [FS_CMP_GT] = ">"};

static json_t *fs__figure_json(const fs_plan_point *e, const char *metric)
{
    double ci, v = fs_plan_value(e, metric, &ci);
    return json_pack("{s:o,s:o}", "value", fs__num(v), "ci95", fs__num(ci));
}

static json_t *fs__plan_point_json(const fs_plan *plan, const fs_plan_point *e)
{
    char label[1024];
    fs_sweep_point_label(plan->sweep, e->point, label, sizeof label);
    json_t *o = json_pack("{s:I,s:s,s:o,s:i,s:s}", "point", (json_int_t)e->point, "label", label, "values",
                          fs__point_values(plan->sweep, e->point), "replications", (int)e->replications,
                          "verdict", fs_verdict_name(e->verdict));
    if (!o)
        return NULL;
    if (e->row.refused) {
        json_object_set_new(o, "refused", json_string(e->row.refused));
        return o;
    }
    if (plan->minimize_metric)
        json_object_set_new(o, "objective", fs__figure_json(e, plan->minimize_metric));
    if (plan->frontier_metric)
        json_object_set_new(o, "frontier", fs__figure_json(e, plan->frontier_metric));
    json_t *cons = json_object();
    for (size_t k = 0; cons && k < plan->n_constraints; k++)
        if (plan->constraints[k].metric)
            json_object_set_new(cons, plan->constraints[k].text, fs__figure_json(e, plan->constraints[k].metric));
    json_object_set_new(o, "constraints", cons);
    return o;
}

int fs_plan_write_json(const fs_plan *plan, uint64_t grid_runs, FILE *fp, fs_error *err)
{
    const fs_sweep *sw = plan->sweep;
    json_t *cons = json_array(), *dims = json_array(), *points = json_array(), *front = json_array();
    for (size_t k = 0; cons && k < plan->n_constraints; k++) {
        const fs_constraint *c = &plan->constraints[k];
        json_array_append_new(cons, json_pack("{s:s,s:s?,s:s,s:f}", "text", c->text, "figure", c->metric, "op",
                                              fs__ops[c->op], "limit", c->limit));
    }
    for (size_t d = 0; dims && d < sw->n_dims; d++)
        json_array_append_new(dims, json_pack("{s:s,s:O,s:b}", "path", sw->dims[d].path, "values", sw->dims[d].values,
                                              "monotone", sw->dims[d].range));
    for (size_t i = 0; points && i < plan->n_evaluated; i++)
        json_array_append_new(points, fs__plan_point_json(plan, &plan->evaluated[i]));
    for (size_t k = 0; front && k < plan->n_front; k++)
        json_array_append_new(front, json_integer((json_int_t)plan->evaluated[plan->front[k]].point));
    json_t *doc = json_pack("{s:s,s:s,s:s,s:o,s:o,s:s?,s:s?,s:s,s:i,s:i}", "schema", FS_PLAN_SCHEMA, "scenario",
                            sw->scenario_origin, "fingerprint", sw->fingerprint, "dimensions", dims, "constraints",
                            cons, "minimize", plan->minimize_metric, "frontier_figure", plan->frontier_metric,
                            "search", plan->grid ? "grid" : "staircase", "replications", (int)plan->replications,
                            "max_replications", (int)plan->max_replications);
    if (doc) {
        json_object_set_new(doc, "answer", plan->best == SIZE_MAX
                                               ? json_null()
                                               : fs__plan_point_json(plan, &plan->evaluated[plan->best]));
        json_object_set_new(doc, "counts",
                            json_pack("{s:I,s:I,s:I,s:I}", "points_evaluated", (json_int_t)plan->n_evaluated,
                                      "grid_points", (json_int_t)sw->n_points, "simulations", (json_int_t)plan->runs,
                                      "grid_simulations", (json_int_t)grid_runs));
        json_object_set_new(doc, "evaluated", points);
        json_object_set_new(doc, "frontier", front);
    } else {
        json_decref(points);
        json_decref(front);
    }
    return fs__dump(doc, fp, err, "plan.json");
}

static void fs__plan_row(const fs_plan *plan, const fs_plan_point *e, FILE *fp)
{
    size_t coords[FS_SWEEP_MAX_DIMS];
    fs_sweep_coords(plan->sweep, e->point, coords);
    fprintf(fp, "%zu", e->point);
    for (size_t d = 0; d < plan->sweep->n_dims; d++) {
        fputc(',', fp);
        fs_results_csv_field(fp, plan->sweep->dims[d].labels[coords[d]]);
    }
    fprintf(fp, ",%u,%s", e->replications, fs_verdict_name(e->verdict));
    const char *figs[2] = {plan->minimize_metric, plan->frontier_metric};
    for (size_t k = 0; k < 2 + plan->n_constraints; k++) {
        const char *m = k < 2 ? figs[k] : plan->constraints[k - 2].metric;
        double ci, v = m ? fs_plan_value(e, m, &ci) : NAN;
        if (!m)
            ci = NAN;
        fputc(',', fp);
        fs__number(fp, v);
        fputc(',', fp);
        fs__number(fp, ci);
    }
    fputc('\n', fp);
}

static void fs__plan_header(const fs_plan *plan, FILE *fp)
{
    fputs("point", fp);
    for (size_t d = 0; d < plan->sweep->n_dims; d++) {
        fputc(',', fp);
        fs_results_csv_field(fp, plan->sweep->dims[d].path);
    }
    fputs(",replications,verdict", fp);
    const char *figs[2] = {plan->minimize_metric, plan->frontier_metric};
    for (size_t k = 0; k < 2 + plan->n_constraints; k++) {
        const char *m = k < 2 ? figs[k] : plan->constraints[k - 2].text;
        char ci[600];
        snprintf(ci, sizeof ci, "%s_ci95", m ? m : "");
        fputc(',', fp);
        fs_results_csv_field(fp, m ? m : "");
        fputc(',', fp);
        fs_results_csv_field(fp, ci);
    }
    fputc('\n', fp);
}

int fs_plan_write_csv(const fs_plan *plan, FILE *fp, fs_error *err)
{
    fs__plan_header(plan, fp);
    for (size_t i = 0; i < plan->n_evaluated; i++)
        fs__plan_row(plan, &plan->evaluated[i], fp);
    return fs_results_csv_check(fp, err, "plan.csv");
}

int fs_plan_write_frontier(const fs_plan *plan, FILE *fp, fs_error *err)
{
    fs__plan_header(plan, fp);
    for (size_t k = 0; k < plan->n_front; k++)
        fs__plan_row(plan, &plan->evaluated[plan->front[k]], fp);
    return fs_results_csv_check(fp, err, "frontier.csv");
}

int fs_plan_print(const fs_plan *plan, uint64_t grid_runs, FILE *fp, fs_error *err)
{
    const fs_sweep *sw = plan->sweep;
    fprintf(fp, "plan: %s search, %zu of %zu points judged, %llu simulations (the full grid at %u replications: %llu)\n",
            plan->grid ? "grid" : "staircase", plan->n_evaluated, sw->n_points, (unsigned long long)plan->runs,
            plan->replications, (unsigned long long)grid_runs);
    if (plan->best == SIZE_MAX) {
        fprintf(fp, "no point meets every constraint with 95%% confidence\n");
    } else {
        const fs_plan_point *e = &plan->evaluated[plan->best];
        char label[1024];
        fs_sweep_point_label(sw, e->point, label, sizeof label);
        double ci, v = fs_plan_value(e, plan->minimize_metric, &ci);
        fprintf(fp, "cheapest point that meets every constraint: point %zu: ", e->point);
        fs_terminal_write(fp, label);
        fputc('\n', fp);
        fprintf(fp, "  %s = %.6g +/- %.3g (%u replications)\n", plan->minimize_metric, v, ci, e->replications);
        for (size_t k = 0; k < plan->n_constraints; k++) {
            const fs_constraint *c = &plan->constraints[k];
            v = fs_plan_value(e, c->metric, &ci);
            fprintf(fp, "  %s = %.6g +/- %.3g  (limit %s %.6g)\n", c->metric, v, ci, fs__ops[c->op], c->limit);
        }
    }
    if (plan->n_front && plan->frontier_metric) {
        fprintf(fp, "frontier (%s against %s):\n", plan->minimize_metric, plan->frontier_metric);
        for (size_t k = 0; k < plan->n_front; k++) {
            const fs_plan_point *e = &plan->evaluated[plan->front[k]];
            char label[1024];
            fs_sweep_point_label(sw, e->point, label, sizeof label);
            double ci;
            double cost = fs_plan_value(e, plan->minimize_metric, &ci);
            double lat = fs_plan_value(e, plan->frontier_metric, &ci);
            fprintf(fp, "  %10.6g  %10.6g  %-7s ", cost, lat, fs_verdict_name(e->verdict));
            fs_terminal_write(fp, label);
            fputc('\n', fp);
        }
    }
    return fs_results_csv_check(fp, err, "the plan");
}

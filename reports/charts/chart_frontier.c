/*
 * chart_frontier — a plan's one chart (plan_frontier): every point it judged,
 * the minimized figure against the frontier figure, with the frontier, the
 * answer and a constraint's limit.
 */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "chart_internal.h"

/* 6. A plan's points, cost against tail latency, and their frontier. */
static const struct {
    const char *title, *style;
} fs__verdict_marks[3] = {
    [FS_CHART_MEETS] = {"meets every constraint", "pt 7 ps 1.2 lc rgb '#2ca02c'"},
    [FS_CHART_UNSURE] = {"unsure: an interval straddles a limit", "pt 9 ps 1.4 lc rgb '#ff7f0e'"},
    [FS_CHART_FAILS] = {"fails a constraint", "pt 2 ps 1.2 lc rgb '#7f7f7f'"},
};
static const char *const fs__verdict_names[3] = {
    [FS_CHART_MEETS] = "meets", [FS_CHART_UNSURE] = "unsure", [FS_CHART_FAILS] = "fails"};

static bool fs__drawn(const fs_chart_point *p)
{
    return isfinite(p->x) && isfinite(p->y);
}

static double fs__ci(double ci)
{
    return isfinite(ci) && ci > 0 ? ci : 0;
}

/* [lo, hi] widened by 6% of its span on both sides (a zero span by 10% of
 * the value, or 1), so no mark sits on the border. */
static void fs__pad(double *lo, double *hi)
{
    double pad = *hi > *lo ? 0.06 * (*hi - *lo) : fmax(fabs(*hi) * 0.1, 1);
    *lo -= pad;
    *hi += pad;
}

int fs__chart_frontier(const fs_frontier_chart *c, const fs__chart_out *o)
{
    /* Ranges over the drawn points and their bars.  Past a 100x spread of
     * values the vertical axis is logarithmic: a point that fails can be
     * thousands of times slower than the frontier, which would flatten it. */
    double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
    double vmin = INFINITY, vmax = -INFINITY; /* positive values only */
    for (size_t i = 0; i < c->n_points; i++) {
        const fs_chart_point *p = &c->points[i];
        if (!fs__drawn(p))
            continue;
        xlo = fmin(xlo, p->x - fs__ci(p->x_ci95));
        xhi = fmax(xhi, p->x + fs__ci(p->x_ci95));
        ylo = fmin(ylo, p->y - fs__ci(p->y_ci95));
        yhi = fmax(yhi, p->y + fs__ci(p->y_ci95));
        if (p->y > 0)
            vmin = fmin(vmin, p->y), vmax = fmax(vmax, p->y);
    }
    bool logy = isfinite(vmin) && vmax > 100 * vmin;
    bool limit = isfinite(c->y_limit) && (!logy || c->y_limit > 0);
    if (limit)
        ylo = fmin(ylo, c->y_limit), yhi = fmax(yhi, c->y_limit), vmin = fmin(vmin, c->y_limit);
    double floor_y = logy ? pow(10, floor(log10(vmin))) : 0; /* the decade below everything drawn */
    bool *front = calloc(c->n_points ? c->n_points : 1, sizeof *front);
    if (!front)
        return fs_error_set(o->err, FS_ERR_RUNTIME, "charts: out of memory");
    for (size_t k = 0; k < c->n_frontier; k++) {
        assert(c->frontier[k] < c->n_points);
        front[c->frontier[k]] = true;
    }
    fs__writer w;
    int rc = fs__writer_open(&w, o, "plan_frontier");
    if (rc) {
        free(front);
        return rc;
    }
    char *title = fs__title(c->scenario, "the plan's points and frontier", NULL);

    /* CSV: every point, with its figures under their own names. */
    fputs("point,label,verdict,", w.csv);
    const char *names[2] = {c->x_name, c->y_name};
    for (int k = 0; k < 2; k++) {
        char *ci = fs__fmt("%s_ci95", names[k]);
        fs__csv_str(w.csv, names[k]);
        fputc(',', w.csv);
        fs__csv_str(w.csv, ci ? ci : "ci95");
        fputc(',', w.csv);
        free(ci);
    }
    fputs("on_frontier,answer\n", w.csv);
    size_t drawn[3] = {0, 0, 0};
    for (size_t i = 0; i < c->n_points; i++) {
        const fs_chart_point *p = &c->points[i];
        fprintf(w.csv, "%lld,", p->id);
        fs__csv_str(w.csv, p->label);
        fprintf(w.csv, ",%s,", fs__verdict_names[p->verdict]);
        const double v[4] = {p->x, p->x_ci95, p->y, p->y_ci95};
        for (int k = 0; k < 4; k++) {
            fs__num(w.csv, v[k]);
            fputc(',', w.csv);
        }
        fprintf(w.csv, "%d,%d\n", front[i], i == c->answer);
        drawn[p->verdict] += fs__drawn(p);
    }

    /* Data: one block per verdict (x y xlow xhigh ylow yhigh), the frontier
     * in order, the answer.  On a log axis a value or a bar below its floor
     * is drawn at the floor. */
    for (int v = 0; v < 3; v++) {
        if (!drawn[v])
            continue;
        fprintf(w.gp, "$v%d << EOD\n", v);
        for (size_t i = 0; i < c->n_points; i++) {
            const fs_chart_point *p = &c->points[i];
            if (!fs__drawn(p) || (int)p->verdict != v)
                continue;
            double xc = fs__ci(p->x_ci95), yc = fs__ci(p->y_ci95);
            const double row[6] = {p->x, fmax(p->y, floor_y), p->x - xc, p->x + xc,
                                   fmax(p->y - yc, floor_y), fmax(p->y + yc, floor_y)};
            for (int k = 0; k < 6; k++) {
                fputs(k ? " " : "", w.gp);
                fs__num(w.gp, row[k]);
            }
            fputc('\n', w.gp);
        }
        fputs("EOD\n", w.gp);
    }
    size_t n_front = 0; /* a line needs two points */
    for (size_t k = 0; k < c->n_frontier; k++)
        n_front += fs__drawn(&c->points[c->frontier[k]]);
    if (n_front >= 2) {
        fputs("$front << EOD\n", w.gp);
        for (size_t k = 0; k < c->n_frontier; k++) {
            const fs_chart_point *p = &c->points[c->frontier[k]];
            if (!fs__drawn(p))
                continue;
            fs__num(w.gp, p->x);
            fputc(' ', w.gp);
            fs__num(w.gp, fmax(p->y, floor_y));
            fputc('\n', w.gp);
        }
        fputs("EOD\n", w.gp);
    }
    const fs_chart_point *ans = c->answer < c->n_points && fs__drawn(&c->points[c->answer])
                                    ? &c->points[c->answer]
                                    : NULL;
    if (ans) {
        fputs("$answer << EOD\n", w.gp);
        fs__num(w.gp, ans->x);
        fputc(' ', w.gp);
        fs__num(w.gp, fmax(ans->y, floor_y));
        fputs("\nEOD\n", w.gp);
    }

    char xl[FS__NAME_SHOWN + 4], yl[FS__NAME_SHOWN + 4];
    fs__shown(c->x_name, xl, FS__NAME_SHOWN);
    fs__shown(c->y_name, yl, FS__NAME_SHOWN);
    char *ylabel = fs__fmt("%s%s", yl, logy ? " (log scale)" : "");
    fs__gp_labels(w.bp, title ? title : "", xl, ylabel ? ylabel : yl);
    free(ylabel);
    fs__pad(&xlo, &xhi);
    if (logy) {
        fprintf(w.bp, "set logscale y\nset yrange [%.9g:%.9g]\n", floor_y, yhi * 1.5);
    } else {
        fs__pad(&ylo, &yhi);
        fprintf(w.bp, "set yrange [%.9g:%.9g]\n", ylo, yhi);
    }
    /* The legend below the plot, one entry a row (the answer's label is
     * long): a bottom margin of the axis label plus a row per entry. */
    int entries = (n_front >= 2) + limit + (drawn[0] > 0) + (drawn[1] > 0) + (drawn[2] > 0) + (ans != NULL);
    fprintf(w.bp, "set xrange [%.9g:%.9g]\nset key below noenhanced\nset bmargin %d\nplot ", xlo, xhi,
            4 + entries);
    const char *sep = "";
    if (n_front >= 2) {
        fputs("$front using 1:2 with lines lw 1.5 lc rgb '#404040' title 'frontier, cheapest first' noenhanced",
              w.bp);
        sep = ", \\\n     ";
    }
    if (limit) {
        char shown[FS__NAME_SHOWN + 4];
        fs__shown(c->limit_text ? c->limit_text : "", shown, FS__NAME_TITLE);
        char *key = fs__fmt("limit: %s", shown);
        fprintf(w.bp, "%s%.9g with lines dt 2 lw 2 lc rgb '%s' title ", sep, c->y_limit, FS__SLO_COLOR);
        fs__gp_quote(w.bp, key ? key : "limit");
        fputs(" noenhanced", w.bp);
        free(key);
        sep = ", \\\n     ";
    }
    for (int v = 0; v < 3; v++) {
        if (!drawn[v])
            continue;
        fprintf(w.bp, "%s$v%d using 1:2:3:4:5:6 with xyerrorbars %s title '%s' noenhanced", sep, v,
                fs__verdict_marks[v].style, fs__verdict_marks[v].title);
        sep = ", \\\n     ";
    }
    if (ans) {
        char shown[FS__NAME_SHOWN + 4];
        fs__shown(ans->label, shown, FS__NAME_SHOWN);
        char *key = fs__fmt("answer: point %lld, %s", ans->id, shown);
        fprintf(w.bp, "%s$answer using 1:2 with points pt 6 ps 3 lw 2 lc rgb '#000000' title ", sep);
        fs__gp_quote(w.bp, key ? key : "answer");
        fputs(" noenhanced", w.bp);
        free(key);
    }
    fputc('\n', w.bp);
    free(front);
    char *caption = fs__fmt(
        "Each mark is one point the plan judged, at its minimized figure (across) and its frontier "
        "figure (up), with 95%% confidence bars: green circles meet every constraint, orange "
        "triangles stayed unsure and grey crosses fail one%s%s%s%s.",
        n_front >= 2 ? "; the dark line joins the frontier, the points that no cheaper point beats "
                       "on the vertical figure, cheapest first"
                     : "",
        ans ? "; the ringed point is the answer, the cheapest that meets every constraint" : "",
        limit ? "; the dashed red line is a constraint's limit on the vertical figure" : "",
        logy ? "; the vertical axis is logarithmic, since the values span more than two decades" : "");
    return fs__writer_finish(&w, o, title, caption);
}

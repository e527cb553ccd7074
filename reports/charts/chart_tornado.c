/*
 * chart_tornado — a sensitivity study's one chart (sensitivity_tornado):
 * per input, a bar from the figure at the base point to the figure at the
 * input's low value and one to its high value, largest effect on top.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "chart_internal.h"

#define FS__TORNADO_BARS 30 /* inputs drawn; the CSV has them all */

/* 7. A sensitivity study's swings around the base point. */
int fs__chart_tornado(const fs_tornado_chart *c, const fs__chart_out *o)
{
    fs__writer w;
    int rc = fs__writer_open(&w, o, "sensitivity_tornado");
    if (rc)
        return rc;
    char *title = fs__title(c->scenario, "sensitivity of", c->metric);

    /* CSV: every input in rank order, its values and the figure at each end. */
    fputs("rank,input,low,high,at_low,at_base,at_high,effect,effect_ci95\n", w.csv);
    const char *ends[2] = {"at_low", "at_high"};
    for (size_t i = 0; i < c->n_inputs; i++) {
        const fs_tornado_input *in = &c->inputs[i];
        fprintf(w.csv, "%zu,", i + 1);
        fs__csv_str(w.csv, in->path);
        const double v[7] = {in->low, in->high, in->at_low, c->base_value, in->at_high, in->effect, in->effect_ci95};
        for (int k = 0; k < 7; k++) {
            fputc(',', w.csv);
            fs__num(w.csv, v[k]);
        }
        fputc('\n', w.csv);
    }

    /* Data: one block per end (x y xlow xhigh ylow yhigh): the bar from the
     * base to the figure there, the first input at the top. */
    size_t n = fs__min(c->n_inputs, FS__TORNADO_BARS), drawn[2] = {0, 0};
    double xlo = c->base_value, xhi = c->base_value;
    for (int k = 0; k < 2; k++) {
        fprintf(w.gp, "$%s << EOD\n", ends[k]);
        for (size_t i = 0; i < n; i++) {
            double x = k ? c->inputs[i].at_high : c->inputs[i].at_low, y = (double)(n - i);
            if (!isfinite(x))
                continue; /* no data at that end: no bar */
            const double row[6] = {(x + c->base_value) / 2, y, fmin(x, c->base_value), fmax(x, c->base_value),
                                   y - 0.35, y + 0.35};
            for (int j = 0; j < 6; j++) {
                fputs(j ? " " : "", w.gp);
                fs__num(w.gp, row[j]);
            }
            fputc('\n', w.gp);
            xlo = fmin(xlo, x), xhi = fmax(xhi, x);
            drawn[k]++;
        }
        fputs("EOD\n", w.gp);
    }

    char xl[FS__NAME_SHOWN + 4];
    fs__shown(c->metric, xl, FS__NAME_SHOWN);
    fs__gp_labels(w.bp, title ? title : "", xl, "");
    /* The inputs as tic labels, top to bottom in rank order. */
    fputs("set ytics (", w.bp);
    for (size_t i = 0; i < n; i++) {
        char shown[FS__NAME_SHOWN + 4];
        fs__shown(c->inputs[i].path, shown, FS__NAME_SHOWN);
        fputs(i ? ", " : "", w.bp);
        fs__gp_quote(w.bp, shown);
        fprintf(w.bp, " %zu", n - i);
    }
    double pad = xhi > xlo ? 0.06 * (xhi - xlo) : fmax(fabs(xhi) * 0.1, 1);
    fprintf(w.bp, ") noenhanced\nset lmargin 40\nset yrange [0.3:%.9g]\nset xrange [%.9g:%.9g]\n", (double)n + 0.7,
            xlo - pad, xhi + pad);
    fputs("set style fill solid 0.7 border -1\nset key below noenhanced\nset bmargin 6\n", w.bp);
    fprintf(w.bp, "set arrow from %.9g, graph 0 to %.9g, graph 1 nohead dt 2 lw 1.5 lc rgb '#404040'\nplot ",
            c->base_value, c->base_value);
    const char *colors[2] = {"#1f77b4", "#ff7f0e"}, *keys[2] = {"input at its low value", "input at its high value"};
    const char *sep = "";
    for (int k = 0; k < 2; k++) {
        if (!drawn[k])
            continue;
        fprintf(w.bp, "%s$%s using 1:2:3:4:5:6 with boxxyerror lc rgb '%s' title '%s'", sep, ends[k], colors[k],
                keys[k]);
        sep = ", \\\n     ";
    }
    if (!drawn[0] && !drawn[1])
        fprintf(w.bp, "NaN notitle");
    fputc('\n', w.bp);
    char *caption = fs__fmt(
        "Each row is one input, the largest effect on top: the blue bar runs from the figure at the base "
        "point (the dashed line, the scenario as written) to the figure with that input at its low value, "
        "the orange bar to the figure at its high value, the other inputs at their base values and every "
        "point on the same random numbers%s.",
        c->n_inputs > n ? "; only the first inputs are drawn, the CSV has them all" : "");
    return fs__writer_finish(&w, o, title, caption);
}

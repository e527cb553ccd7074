/*
 * chart_capacity — the capacity charts: cost per policy stacked by pool
 * (cost_by_pool) and the fleet's utilization and headroom over time
 * (utilization).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart_internal.h"

#define FS__MAX_SEGMENTS 10     /* pools stacked in one bar; the rest become "other pools" */

static const char *const fs__on_demand_colors[FS__MAX_SEGMENTS] = {
    "#08519c", "#3182bd", "#6baed6", "#9ecae1", "#006d2c",
    "#31a354", "#74c476", "#a1d99b", "#08306b", "#c6dbef"};
static const char *const fs__spot_colors[FS__MAX_SEGMENTS] = {
    "#a63603", "#e6550d", "#fd8d3c", "#fdae6b", "#7f2704",
    "#d94801", "#f16913", "#fdd0a2", "#8c6d31", "#e7ba52"};
#define FS__OTHER_COLOR "#969696"

/* 2. Cost per policy, stacked by pool: on-demand pools first, then spot. */
typedef struct fs__segment {
    const char *name;
    bool spot, shown;
    double total;
} fs__segment;

int fs__chart_cost(const fs__data *d, const fs__chart_out *o)
{
    size_t n_all = 0;
    for (size_t i = 0; i < d->n_pol; i++)
        n_all += d->pol[i].n_pools;
    if (n_all == 0)
        return FS_OK;
    fs__segment *seg = calloc(n_all, sizeof *seg);
    double *row = calloc(n_all + 1, sizeof *row);
    if (!seg || !row) {
        free(seg);
        free(row);
        return fs_error_set(o->err, FS_ERR_RUNTIME, "charts: out of memory");
    }
    /* Segments: distinct (name, price class), on-demand ones first, each
     * class in order of first appearance. */
    size_t n_seg = 0;
    for (int spot = 0; spot <= 1; spot++)
        for (size_t i = 0; i < d->n_pol; i++)
            for (size_t k = 0; k < d->pol[i].n_pools; k++) {
                const fs__pool *q = &d->pol[i].pools[k];
                if (q->spot != (bool)spot)
                    continue;
                size_t j = 0;
                while (j < n_seg && !(seg[j].spot == q->spot && strcmp(seg[j].name, q->name) == 0))
                    j++;
                if (j == n_seg)
                    seg[n_seg++] = (fs__segment){.name = q->name, .spot = q->spot};
                seg[j].total += q->cost_usd;
            }
    /* Keep the costliest segments, the rest become "other pools".  O(n^2) in
     * pools, which stays small next to reading the CSVs. */
    bool other = n_seg > FS__MAX_SEGMENTS;
    size_t limit = other ? FS__MAX_SEGMENTS - 1 : n_seg;
    for (size_t j = 0; j < n_seg; j++) {
        size_t larger = 0;
        for (size_t m = 0; m < n_seg; m++)
            larger += seg[m].total > seg[j].total || (seg[m].total == seg[j].total && m < j);
        seg[j].shown = larger < limit;
    }
    fs__writer w;
    int rc = fs__writer_open(&w, o, "cost_by_pool");
    if (rc) {
        free(seg);
        free(row);
        return rc;
    }
    char *title = fs__title(d->scenario, "cost by pool", NULL);
    fputs("policy,pool,price_class,cost_usd\n", w.csv);
    fputs("$data << EOD\n", w.gp);
    size_t bars = fs__min(d->n_pol, FS__MAX_LINES);
    for (size_t i = 0; i < d->n_pol; i++) {
        const fs__policy *p = &d->pol[i];
        memset(row, 0, (n_all + 1) * sizeof *row);
        double total = 0;
        for (size_t k = 0; k < p->n_pools; k++) {
            const fs__pool *q = &p->pools[k];
            fs__csv_str(w.csv, p->name);
            fputc(',', w.csv);
            fs__csv_str(w.csv, q->name);
            fputs(q->spot ? ",spot," : ",on_demand,", w.csv);
            fs__num(w.csv, q->cost_usd);
            fputc('\n', w.csv);
            size_t j = 0;
            while (!(seg[j].spot == q->spot && strcmp(seg[j].name, q->name) == 0))
                j++;
            row[seg[j].shown ? j : n_seg] += q->cost_usd;
            total += q->cost_usd;
        }
        if (i >= bars)
            continue;
        fprintf(w.gp, "%zu", i);
        for (size_t j = 0; j < n_seg; j++)
            if (seg[j].shown) {
                fputc(' ', w.gp);
                fs__num(w.gp, row[j]);
            }
        if (other) {
            fputc(' ', w.gp);
            fs__num(w.gp, row[n_seg]);
        }
        fputc(' ', w.gp);
        fs__num(w.gp, total);
        fputc('\n', w.gp);
    }
    fputs("EOD\n", w.gp);
    fs__gp_labels(w.bp, title ? title : "", "policy", "cost over the measured period (USD)");
    fputs("set style data histograms\nset style histogram rowstacked\n"
          "set style fill solid 0.9 border rgb '#404040'\nset boxwidth 0.6\nset yrange [0:*]\n"
          "set grid noxtics\nset key outside right top noenhanced title 'pools'\nset xtics (",
          w.bp);
    size_t longest = 0;
    for (size_t i = 0; i < bars; i++) {
        char shown[FS__NAME_SHOWN + 4];
        fs__shown(d->pol[i].name, shown, FS__NAME_KEY);
        fprintf(w.bp, "%s", i ? ", " : "");
        fs__gp_quote(w.bp, shown);
        fprintf(w.bp, " %zu", i);
        longest = strlen(shown) > longest ? strlen(shown) : longest;
    }
    /* Slanted labels once they would collide: about 90 characters fit across
     * the bars and their margins. */
    fprintf(w.bp, ") noenhanced%s\nplot ", (bars + 1) * (longest + 2) > 90 ? " rotate by -15" : "");
    size_t col = 2, od = 0, sp = 0;
    for (size_t j = 0; j < n_seg; j++) {
        if (!seg[j].shown)
            continue;
        char shown[FS__NAME_SHOWN + 4];
        fs__shown(seg[j].name, shown, FS__NAME_KEY);
        char *label = seg[j].spot ? fs__fmt("%s (spot)", shown) : fs__strdup(shown);
        fprintf(w.bp, "%s$data using %zu lc rgb '%s' title ", col > 2 ? ", \\\n     " : "", col,
                seg[j].spot ? fs__spot_colors[sp++ % FS__MAX_SEGMENTS]
                            : fs__on_demand_colors[od++ % FS__MAX_SEGMENTS]);
        fs__gp_quote(w.bp, label ? label : shown);
        fputs(" noenhanced", w.bp);
        free(label);
        col++;
    }
    if (other)
        fprintf(w.bp, ", \\\n     $data using %zu lc rgb '%s' title 'other pools' noenhanced", col++,
                FS__OTHER_COLOR);
    fprintf(w.bp, ", \\\n     $data using 0:%zu:(sprintf('$%%.0f', column(%zu))) with labels offset 0,0.8 notitle\n",
            col, col);
    free(seg);
    free(row);
    char *caption = fs__strdup(
        "Each bar is one policy's cost over the measured period (every provisioned GPU-hour, busy "
        "or idle, at its pool's price), stacked by pool with on-demand pools in blue and green "
        "below spot pools in orange; the figure on top is the total.");
    return fs__writer_finish(&w, o, title, caption);
}

/* 3. Fleet utilization and headroom over time. */
int fs__chart_utilization(const fs__data *d, const fs__chart_out *o)
{
    bool any = false;
    for (size_t i = 0; i < d->n_pol; i++)
        any = any || d->pol[i].max_rep >= 0;
    if (!any || d->n_windows == 0)
        return FS_OK;
    fs__writer w;
    int rc = fs__writer_open(&w, o, "utilization");
    if (rc)
        return rc;
    char *title = fs__title(d->scenario, "fleet utilization and headroom", NULL);
    fputs("policy,hour,busy_gpus,gpus,utilization_pct,headroom_pct\n", w.csv);
    for (size_t i = 0; i < d->n_pol; i++) {
        const fs__policy *p = &d->pol[i];
        double reps = p->max_rep >= 0 ? p->max_rep + 1 : 1;
        for (size_t t = 0; t < d->n_windows; t++) {
            if (!(p->gpus[t] > 0))
                continue;
            double util = 100 * p->busy[t] / p->gpus[t];
            fs__csv_str(w.csv, p->name);
            fputc(',', w.csv);
            fs__num(w.csv, (d->warmup_s + (double)t * d->window_s) / 3600);
            fputc(',', w.csv);
            fs__num(w.csv, p->busy[t] / reps);
            fputc(',', w.csv);
            fs__num(w.csv, p->gpus[t] / reps);
            fputc(',', w.csv);
            fs__num(w.csv, util);
            fputc(',', w.csv);
            fs__num(w.csv, 100 - util);
            fputc('\n', w.csv);
        }
    }
    size_t lines = fs__min(d->n_pol, FS__MAX_LINES);
    fputs("$data << EOD\n", w.gp);
    for (size_t t = 0; t < d->n_windows; t++) {
        fs__num(w.gp, (d->warmup_s + (double)t * d->window_s) / 3600);
        for (size_t i = 0; i < lines; i++) {
            const fs__policy *p = &d->pol[i];
            double util = p->gpus[t] > 0 ? 100 * p->busy[t] / p->gpus[t] : NAN;
            fputc(' ', w.gp);
            fs__num(w.gp, util);
            fputc(' ', w.gp);
            fs__num(w.gp, 100 - util);
        }
        fputc('\n', w.gp);
    }
    fputs("EOD\n", w.gp);
    fs__gp_labels(w.bp, title ? title : "", "simulated time (hours)",
                  "share of provisioned GPUs (%)");
    fprintf(w.bp, "set xrange [%.9g:%.9g]\nset yrange [0:100]\nset key below noenhanced\nset bmargin 7\nplot ",
            d->warmup_s / 3600, d->horizon_s / 3600);
    for (size_t i = 0; i < lines; i++) {
        char shown[FS__NAME_SHOWN + 4];
        fs__shown(d->pol[i].name, shown, FS__NAME_KEY);
        char *busy = fs__fmt("%s: busy", shown), *head = fs__fmt("%s: headroom", shown);
        fprintf(w.bp, "%s$data using 1:%zu with lines lw 2 lc rgb '%s' title ", i ? ", \\\n     " : "",
                2 + 2 * i, fs__policy_colors[i]);
        fs__gp_quote(w.bp, busy ? busy : shown);
        fprintf(w.bp, " noenhanced, \\\n     $data using 1:%zu with lines dt 2 lw 1.5 lc rgb '%s' title ",
                3 + 2 * i, fs__policy_colors[i]);
        fs__gp_quote(w.bp, head ? head : shown);
        fputs(" noenhanced", w.bp);
        free(busy);
        free(head);
    }
    fputc('\n', w.bp);
    char *caption = fs__strdup(
        "Solid lines are the share of each policy's provisioned GPUs that were busy in each window "
        "(all pools together, pooled over replications); dashed lines are the headroom left, 100% "
        "minus that, so a dashed line near zero means the fleet had no spare GPUs.");
    return fs__writer_finish(&w, o, title, caption);
}

/*
 * chart_breaches — the SLO-breach heatmaps (breach_heatmap[_k]): breached
 * windows by day and hour of day, one chart per policy.
 */
#include <stdio.h>

#include "chart_internal.h"

/* 5. SLO-breach heatmaps, day by hour of day, one per policy. */
int fs__chart_breaches(const fs__data *d, const fs__chart_out *o)
{
    if (!d->any_slo || !d->have_breaches || d->first_day >= d->n_days)
        return FS_OK;
    size_t maps = fs__min(d->n_pol, FS__MAX_HEATMAPS);
    for (size_t i = 0; i < maps; i++) {
        const fs__policy *p = &d->pol[i];
        fs__writer w;
        int rc = fs__writer_open_nth(&w, o, "breach_heatmap", i, maps);
        if (rc)
            return rc;
        char *title = fs__title(d->scenario, "SLO-breach windows, policy", p->name);
        fputs("policy,day,hour,breached_windows\n", w.csv);
        fputs("$data << EOD\n", w.gp);
        unsigned long most = 0;
        for (size_t day = d->first_day; day < d->n_days; day++)
            for (size_t h = 0; h < 24; h++) {
                unsigned long n = p->breach[day * 24 + h];
                most = n > most ? n : most;
                fs__csv_str(w.csv, p->name);
                fprintf(w.csv, ",%zu,%zu,%lu\n", day + 1, h, n);
                fprintf(w.gp, "%zu %zu %lu\n", day + 1, h, n);
            }
        fputs("EOD\n", w.gp);
        fs__gp_labels(w.bp, title ? title : "", "day of the run (day 1 starts at time 0)",
                      "hour of day (window start)");
        size_t days = d->n_days - d->first_day;
        fprintf(w.bp,
                "set grid noxtics noytics\nset xrange [%.1f:%.1f]\nset yrange [-0.5:23.5]\n"
                "set ytics 0,3,21\n%s"
                "set cbrange [0:%lu]\nset cblabel 'breached SLO windows (all services and replications)' noenhanced\n"
                "set palette defined (0 '#ffffff', 1 '#fdd49e', 2 '#ef6548', 3 '#7f0000')\n"
                "set style fill solid 1.0 noborder\n"
                "plot $data using 1:2:($1-0.5):($1+0.5):($2-0.5):($2+0.5):3 with boxxyerror lc palette notitle\n",
                (double)d->first_day + 0.5, (double)d->n_days + 0.5, days <= 31 ? "set xtics 1\n" : "",
                most > 0 ? most : 1);
        char *caption = fs__strdup(
            "Each cell counts the SLO windows in breach that started in that hour of that day, over "
            "every service and replication of the policy; white is none, darker red is more, so a "
            "horizontal band marks a time of day that breaches every day.");
        if ((rc = fs__writer_finish(&w, o, title, caption)))
            return rc;
    }
    return FS_OK;
}

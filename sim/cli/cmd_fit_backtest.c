/*
 * cmd_fit_backtest — fleetsim fit-traffic --backtest's report: the replay's
 * and the fit's figures side by side (models/study/backtest.h computes
 * them), as text and as the JSON document's "backtest".  A figure with no
 * data is "no data" (null), a p99 decided by requests still in the system
 * at the end is "unfinished", and a replica count no run met is "> max".
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cmd_fit.h"
#include "duration.h"
#include "terminal.h"

static const char *const fit_bt_sides[] = {"replay", "fit"};

/* A p99 for the back-test: "unfinished" when requests still in the system
 * at the horizon decide it, null with no data. */
static json_t *fit_bt_p99_json(double ms)
{
    return isinf(ms) ? json_string("unfinished") : fs_cli_fit_num(ms, 6);
}

static json_t *fit_bt_needed_json(uint32_t needed)
{
    return needed ? json_integer(needed) : json_null();
}

static json_t *fit_bt_side_json(const fs_backtest_side *side)
{
    return json_pack("{s:o, s:o, s:o, s:o, s:o}", "requests", fs_cli_fit_num(side->requests, 10), "replicas_needed",
                     fit_bt_needed_json(side->needed), "p99_ms_at_replay_replicas",
                     fit_bt_p99_json(side->p99_ms_at[FS_BACKTEST_REPLAY]), "p99_ms_at_fit_replicas",
                     fit_bt_p99_json(side->p99_ms_at[FS_BACKTEST_FIT]), "p99_ms_at_max_replicas",
                     fit_bt_p99_json(side->p99_ms_at_max));
}

/* "backtest": the split, each side's answer, and the fit's errors (fit /
 * replay - 1, null where either figure is missing). */
json_t *fs_cli_fit_backtest_json(const fs_backtest *bt, const fs_backtest_result *r)
{
    const fs_backtest_side *rp = &r->side[FS_BACKTEST_REPLAY], *ft = &r->side[FS_BACKTEST_FIT];
    json_t *error = json_pack(
        "{s:o, s:o, s:o, s:o, s:o}", "requests", fs_cli_fit_num(fs_backtest_error(ft->requests, rp->requests), 4),
        "replicas_needed", fs_cli_fit_num(fs_backtest_error(ft->needed, rp->needed), 4), "p99_at_replay_replicas",
        fs_cli_fit_num(fs_backtest_error(ft->p99_ms_at[FS_BACKTEST_REPLAY], rp->p99_ms_at[FS_BACKTEST_REPLAY]), 4),
        "p99_at_fit_replicas",
        fs_cli_fit_num(fs_backtest_error(ft->p99_ms_at[FS_BACKTEST_FIT], rp->p99_ms_at[FS_BACKTEST_FIT]), 4),
        "p99_at_max_replicas", fs_cli_fit_num(fs_backtest_error(ft->p99_ms_at_max, rp->p99_ms_at_max), 4));
    return json_pack("{s:s, s:s, s:s, s:o, s:o, s:o, s:I, s:I, s:I, s:o, s:s, s:i, s:o, s:i, s:o, s:o, s:o, s:i, "
                     "s:o}",
                     "scenario", bt->scenario->path, "service", bt->service_name, "trace", bt->trace_path,
                     "holdout", fs_cli_fit_num(bt->holdout, 6), "span_s", fs_cli_fit_num(bt->span_s, 10), "split_s",
                     fs_cli_fit_num(bt->split_s, 10), "rows", (json_int_t)bt->rows, "fit_rows", (json_int_t)bt->fit_rows,
                     "held_rows", (json_int_t)bt->held_rows, "start_s", fs_cli_fit_num(bt->first_s, 10), "start_weekday",
                     fs_cli_fit_day_names[bt->weekday0], "replications", (int)bt->scenario->replications, "slo_p99_ms",
                     fs_cli_fit_num(1e3 * bt->slo_p99_s, 10), "max_replicas", (int)bt->max_replicas, "replay",
                     fit_bt_side_json(rp), "fit", fit_bt_side_json(ft), "error", error, "runs", (int)r->runs,
                     "wall_s", fs_cli_fit_num(r->wall_s, 3));
}

/* One figure of the table: "no data" where there is none, "unfinished"
 * where requests still in the system at the horizon decide a p99. */
static void fit_bt_cell(char *buf, size_t size, double x, const char *unit)
{
    if (isinf(x))
        snprintf(buf, size, "unfinished");
    else if (isfinite(x))
        snprintf(buf, size, x >= 1e4 ? "%.0f%s" : "%.4g%s", x, unit);
    else
        snprintf(buf, size, "no data");
}

/* A row of the table: the replay's and the fit's figures, and the error. */
static void fit_bt_row(FILE *fp, const char *label, const char *replay, const char *fit, double err)
{
    char e[32] = "-";
    if (isfinite(err))
        snprintf(e, sizeof e, "%+.1f%%", 100 * err);
    fprintf(fp, "  %-30s %12s %12s %8s\n", label, replay, fit, e);
}

static void fit_bt_figures(FILE *fp, const char *label, double replay, double fit, const char *unit)
{
    char a[32], b[32];
    fit_bt_cell(a, sizeof a, replay, unit);
    fit_bt_cell(b, sizeof b, fit, unit);
    fit_bt_row(fp, label, a, b, fs_backtest_error(fit, replay));
}

void fs_cli_fit_backtest_text(FILE *fp, const fs_backtest *bt, const fs_backtest_result *r)
{
    const fs_backtest_side *rp = &r->side[FS_BACKTEST_REPLAY], *ft = &r->side[FS_BACKTEST_FIT];
    char slo[48], label[64];
    fs_duration_format(bt->slo_p99_s, slo, sizeof slo);
    fputc('\n', fp);
    fs_terminal_say(fp, "back-test: %s, service %s: fitted on the trace's first %.4g%%, simulated on the rest",
                    bt->scenario->path, bt->service_name, 100 * (1 - bt->holdout));
    fprintf(fp, "split at %.1f s of the trace's %.1f s (its own clock: no rate_scale, shift or repeat): %llu rows\n"
                "  fitted, %llu held back\n",
            bt->split_s, bt->span_s, (unsigned long long)bt->fit_rows, (unsigned long long)bt->held_rows);
    fprintf(fp, "both simulated from the trace's start, judged after the split: %u replication%s, replicas fixed,\n"
                "  p99 target %s (pooled over replications; requests unfinished at the end count as late)\n",
            bt->scenario->replications, bt->scenario->replications == 1 ? "" : "s", slo);
    fprintf(fp, "  %-30s %12s %12s %8s\n", "", "replay", "fit", "error");
    fit_bt_figures(fp, "held-back requests", rp->requests, ft->requests, "");
    char needed[2][32];
    for (int s = 0; s < 2; s++)
        snprintf(needed[s], sizeof needed[s], r->side[s].needed ? "%u" : "> %u",
                 r->side[s].needed ? r->side[s].needed : bt->max_replicas);
    fit_bt_row(fp, "replicas needed", needed[FS_BACKTEST_REPLAY], needed[FS_BACKTEST_FIT],
               fs_backtest_error(ft->needed, rp->needed));
    for (int at = 0; at < 2; at++) {
        uint32_t n = r->side[at].needed;
        if (n == 0 || (at == FS_BACKTEST_FIT && n == rp->needed))
            continue;
        snprintf(label, sizeof label, "p99 at %u replica%s (%s)", n, n == 1 ? "" : "s",
                 n == ft->needed && n == rp->needed ? "both" : fit_bt_sides[at]);
        fit_bt_figures(fp, label, rp->p99_ms_at[at], ft->p99_ms_at[at], " ms");
    }
    if (!rp->needed || !ft->needed) {
        snprintf(label, sizeof label, "p99 at %u replicas (the most)", bt->max_replicas);
        fit_bt_figures(fp, label, rp->p99_ms_at_max, ft->p99_ms_at_max, " ms");
    }
    if (rp->needed && ft->needed)
        fprintf(fp, "capacity answer: the fit needs %u replica%s, the replay %u (%+d)\n", ft->needed,
                ft->needed == 1 ? "" : "s", rp->needed, (int)ft->needed - (int)rp->needed);
    for (int s = 0; s < 2; s++)
        if (!r->side[s].needed)
            fprintf(fp, "the %s does not meet the p99 target with any count up to %u replicas (--max-replicas)\n",
                    fit_bt_sides[s], bt->max_replicas);
    fprintf(fp, "(%u simulated replications in %.2f s)\n", r->runs, r->wall_s);
}

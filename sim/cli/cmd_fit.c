/*
 * fleetsim fit-traffic — a scenario's "arrivals" fitted to a trace.
 *
 *   fleetsim fit-traffic TRACE.csv [--preset NAME | --time COL [--time-format F]
 *                        | --rate COL --window-start COL [--zero-is-gap]] [--start-weekday 0-6]
 *                        [--window D] [--format json|text]
 *   fleetsim fit-traffic --backtest SCENARIO.json [--service NAME] [--holdout F]
 *                        [--slo-p99 D] [--max-replicas N] [--window D] [--format json|text]
 *
 * Reads a request trace (models/traces/trace.h: a preset or a --time column) or a
 * rate series (models/traces/fit.h: preset servegen-rate, or --rate and
 * --window-start columns), fits the hourly profile (models/traces/fit.h states the
 * definitions) and prints:
 *   - default: the fragment {"arrivals": {...}} on stdout, to paste into a
 *     scenario's service, and the goodness-of-fit report on stderr;
 *   - --format json: one document, {"arrivals": ..., "fit": {statistics}};
 *   - --format text: the report, then the fragment, on stdout.
 * With --backtest the trace is the one a scenario's service replays: the
 * fit is of its first part, and the back-test (models/study/backtest.h)
 * follows the report, in the same stream, or under "backtest" in the JSON.
 * Exit status: 0 fitted, 1 runtime failure, 2 usage or input error (the
 * message names the file, and the line for a bad row).
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "backtest.h"
#include "cmd_fit.h"
#include "commands.h"
#include "duration.h"
#include "fit.h"
#include "help.h"
#include "number.h"
#include "options.h"
#include "terminal.h"
#include "trace.h"

enum { FIT_EXIT_OK = 0, FIT_EXIT_RUNTIME = 1, FIT_EXIT_USAGE = 2 };

enum { FIT_PRESET, FIT_TIME, FIT_TIME_FORMAT, FIT_RATE, FIT_WINDOW_START, FIT_ZERO_IS_GAP, FIT_START_WEEKDAY,
       FIT_WINDOW, FIT_FORMAT, FIT_BACKTEST, FIT_SERVICE, FIT_HOLDOUT, FIT_SLO_P99, FIT_MAX_REPLICAS, FIT_HELP };
static const fs_cli_option fit_options[] = {
    [FIT_PRESET] = {"preset", 'p', "NAME", "a known format: azure-llm (requests), servegen-rate (rate series)"},
    [FIT_TIME] = {"time", 't', "COL", "request trace: the arrival-time column"},
    [FIT_TIME_FORMAT] = {"time-format", 0, "F", "seconds (default), ms, us or datetime (UTC)"},
    [FIT_RATE] = {"rate", 0, "COL", "rate series: the requests-per-second column"},
    [FIT_WINDOW_START] = {"window-start", 0, "COL", "rate series: the window-start column (seconds)"},
    [FIT_ZERO_IS_GAP] = {"zero-is-gap", 0, NULL, "rate series: a window of rate 0 is an outage (a gap), not idle time"},
    [FIT_START_WEEKDAY] = {"start-weekday", 0, "N", "weekday of raw time 0, 0 = Monday .. 6 = Sunday (default 0)"},
    [FIT_WINDOW] = {"window", 'w', "D", "requests: the burst window (default 1m); rates: a row's window"},
    [FIT_FORMAT] = {"format", 'f', "FMT", "json (fragment and statistics) or text (report) on stdout"},
    [FIT_BACKTEST] = {"backtest", 0, "SCENARIO", "fit the first part of a scenario service's trace, simulate the rest"},
    [FIT_SERVICE] = {"service", 0, "NAME", "back-test: the service (default: the first replaying a trace)"},
    [FIT_HOLDOUT] = {"holdout", 0, "F", "back-test: the share of the trace's span held back (default 0.25)"},
    [FIT_SLO_P99] = {"slo-p99", 0, "D", "back-test: the p99 target (default: the service's slo p99_ms)"},
    [FIT_MAX_REPLICAS] = {"max-replicas", 0, "N", "back-test: the most replicas tried (default 64)"},
    [FIT_HELP] = {"help", 'h', NULL, "show this help"},
};
#define FIT_N_OPTIONS ((int)(sizeof fit_options / sizeof fit_options[0]))
/* --time-format's words in the order of fs_trace_time_format. */
static const char *const fit_choices[FIT_N_OPTIONS] = {[FIT_TIME_FORMAT] = "seconds ms us datetime",
                                                       [FIT_FORMAT] = "json text"};
const fs_cli_table fs_cli_fit_options = {fit_options, FIT_N_OPTIONS, fit_choices};

const char *const fs_cli_fit_day_names[7] = {"monday", "tuesday", "wednesday", "thursday",
                                            "friday", "saturday", "sunday"};

/* x to `digits` significant digits: what the fragment prints. */
static double fit_sig(double x, int digits)
{
    return fs_fit_model_round(x, digits);
}

/* A number for JSON: rounded, and null when not finite (JSON has no NaN). */
json_t *fs_cli_fit_num(double x, int digits)
{
    return isfinite(x) ? json_real(fit_sig(x, digits)) : json_null();
}

/* An offset from day 0's midnight as the scenario reads a duration: "2d
 * 09:30", "09:30:15". */
static void fit_clock(double s, char *buf, size_t size)
{
    long long whole = (long long)floor(s + 0.5);
    long long d = whole / 86400, h = whole / 3600 % 24, m = whole / 60 % 60, sec = whole % 60;
    int n = d ? snprintf(buf, size, "%lldd ", d) : 0;
    if (sec)
        snprintf(buf + n, size - (size_t)n, "%02lld:%02lld:%02lld", h, m, sec);
    else
        snprintf(buf + n, size - (size_t)n, "%02lld:%02lld", h, m);
}

/* The date of an epoch day (Howard Hinnant's civil_from_days). */
static void fit_date(double epoch_s, char *buf, size_t size)
{
    int64_t z = (int64_t)floor(epoch_s / 86400) + 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    int64_t d = doy - (153 * mp + 2) / 5 + 1, m = mp < 10 ? mp + 3 : mp - 9;
    /* Months and days are small; the casts tell the compiler so. */
    snprintf(buf, size, "%04lld-%02d-%02d", (long long)(yoe + era * 400 + (m <= 2)), (int)(m % 100), (int)(d % 100));
}

/* ---- the fragment -------------------------------------------------------- */

static json_t *fit_profile_json(const double multiplier[24])
{
    json_t *a = json_array();
    for (int h = 0; h < 24; h++)
        json_array_append_new(a, fs_cli_fit_num(multiplier[h], 4));
    return a;
}

static json_t *fit_bursts_json(const fs_fit *f)
{
    json_t *a = json_array();
    for (size_t k = 0; k < f->n_listed; k++) {
        char at[48], dur[48];
        fit_clock(f->bursts[k].at_s, at, sizeof at);
        fs_duration_format(f->bursts[k].duration_s, dur, sizeof dur);
        json_array_append_new(a, json_pack("{s:s, s:s, s:o}", "at", at, "duration", dur, "multiplier",
                                           fs_cli_fit_num(f->bursts[k].multiplier, 4)));
    }
    return a;
}

/* "groups": {"sizes": [...], "weights": [...]}, the measured law. */
static json_t *fit_groups_json(const fs_fit_groups *g)
{
    json_t *sizes = json_array(), *weights = json_array();
    for (size_t k = 0; k < g->n_sizes; k++) {
        json_array_append_new(sizes, json_integer(g->size[k]));
        json_array_append_new(weights, fs_cli_fit_num(g->weight[k], 6));
    }
    return json_pack("{s:o, s:o}", "sizes", sizes, "weights", weights);
}

/* A duration as the scenario reads it ("2m 17.5s"). */
static json_t *fit_duration_json(double s)
{
    char buf[48];
    fs_duration_format(s, buf, sizeof buf);
    return json_string(buf);
}

/* "mmpp": {"states": [...]} or "noise": {...}, the clustered model chosen
 * (fit_model.h); its figures are rounded as printed already. */
static void fit_modulation_json(const fs_fit_model *m, json_t *a)
{
    if (m->modulation < 0)
        return;
    const fs_fit_clustered *c = &m->clustered[m->modulation];
    if (m->modulation == FS_FIT_MMPP2) {
        json_t *states = json_array();
        for (int i = 0; i < 2; i++)
            json_array_append_new(states, json_pack("{s:o, s:o}", "rps", fs_cli_fit_num(c->rps[i], 6), "mean_sojourn",
                                                    fit_duration_json(c->sojourn_s[i])));
        json_object_set_new(a, "mmpp", json_pack("{s:o}", "states", states));
        return;
    }
    json_t *noise = json_pack("{s:s, s:o, s:o}", "distribution",
                              m->modulation == FS_FIT_NOISE_GAMMA ? "gamma" : "lognormal", "cv", fs_cli_fit_num(c->cv, 4),
                              "interval", fit_duration_json(c->interval_s));
    if (c->correlation_s > 0)
        json_object_set_new(noise, "correlation_time", fit_duration_json(c->correlation_s));
    json_object_set_new(a, "noise", noise);
}

/* {"poisson_rps" (or "mmpp", whose states' rates replace it), "diurnal" or
 * "weekday" + "weekend", "growth", "daily_levels", "noise", "groups" and
 * "bursts" when the model has them} (fit_model.h). */
static json_t *fit_arrivals_json(const fs_fit *f)
{
    const fs_fit_model *m = &f->model;
    json_t *a = json_object();
    if (m->modulation != FS_FIT_MMPP2)
        json_object_set_new(a, "poisson_rps", fs_cli_fit_num(m->base_rps, 4));
    if (f->split) {
        json_object_set_new(a, "weekday", fit_profile_json(m->multiplier[FS_FIT_WEEKDAY]));
        json_object_set_new(a, "weekend", fit_profile_json(m->multiplier[FS_FIT_WEEKEND]));
    } else {
        json_object_set_new(a, "diurnal", fit_profile_json(m->multiplier[FS_FIT_WEEKDAY]));
    }
    if (m->trend.growth) {
        char g[48];
        snprintf(g, sizeof g, "%.6g%%/day", 100 * m->trend.growth_per_day);
        json_object_set_new(a, "growth", json_string(g));
    }
    if (m->trend.levels) {
        json_t *levels = json_array();
        for (size_t d = 0; d < m->trend.n_levels; d++)
            json_array_append_new(levels, fs_cli_fit_num(m->trend.level[d], 6));
        json_object_set_new(a, "daily_levels", levels);
    }
    fit_modulation_json(m, a);
    if (m->groups.printed)
        json_object_set_new(a, "groups", fit_groups_json(&m->groups));
    if (f->n_listed && m->modulation < 0) /* a clustered model makes its own */
        json_object_set_new(a, "bursts", fit_bursts_json(f));
    return a;
}

/* The fragment one member a line (jansson's indent would give each of the
 * 24 multipliers its own line). */
int fs_cli_fit_print_members(FILE *fp, const json_t *obj)
{
    const char *key;
    json_t *v;
    size_t n = json_object_size(obj), i = 0;
    json_object_foreach((json_t *)obj, key, v) {
        char *text = json_dumps(v, JSON_COMPACT | JSON_REAL_PRECISION(10) | JSON_ENCODE_ANY);
        if (!text)
            return -1;
        fprintf(fp, "  \"%s\": %s%s\n", key, text, ++i < n ? "," : "");
        free(text);
    }
    return 0;
}

static int fit_print_fragment(FILE *fp, const json_t *arrivals)
{
    fputs("{\"arrivals\": {\n", fp);
    int rc = fs_cli_fit_print_members(fp, arrivals);
    fputs("}}\n", fp);
    return rc;
}

/* ---- the statistics ------------------------------------------------------ */

static const char *const fit_notes[] = {
    "rate of a cell (hour of the day, day type) = its arrivals / its observed seconds; poisson_rps = all "
    "arrivals / all observed seconds; multiplier = rate / poisson_rps, as models/workload/arrivals.c multiplies them",
    "chi-square: each clock hour's count O against E = its cell's rate x its observed seconds, sum (O-E)^2/E "
    "over hours with E >= 5; dof = those hours - the cells fitted; a small p_value says counts vary from day to "
    "day more than a Poisson process with this profile allows",
    "r2: 1 - sum (O-E)^2 / sum (O - mean O)^2 over fully observed clock hours: the share of the hour-to-hour "
    "variation the profile explains",
    "dispersion index: mean of (O-E)^2/E over counting windows, 1 for a Poisson process with the fitted profile",
    "bursts: maximal runs of windows with O > E + 4 sqrt(E); the 20 largest are listed, and the fragment's "
    "profile leaves their windows out, so multiplier = sum O / sum E against that profile restores their "
    "arrivals once; at counts from the first row's midnight: for replaying the trace's own period with the "
    "scenario's start_weekday set to day0.weekday",
    "model: the fragment's expected count over the observed span equals the arrivals (expected_count, from the "
    "printed figures); scales: counts in windows against the fragment's deterministic rate, index = mean "
    "(O-E)^2/E, z = (sum (O-E)^2/E - n) / sqrt(sum (2 + 1/E)), p one-sided; group counts against E / E[G]",
    "groups: requests at the identical time; fitted when the mean size > 1.05 over more than 100 groups; "
    "trend (>= 3 days): growth when |slope of ln day factor| > 2 standard errors, daily_levels when the daily "
    "counts' chi-square against the profile (/ E[G^2]/E[G]) has p < 0.001",
    "clustered (tried when the choice above is rejected still): a random factor on the fragment's rate, "
    "noise (gamma), mmpp (2 states), noise (lognormal, correlated), simplest first; a window of mean E has "
    "index I = 1 + E g(T), g(T) the variance of the factor's mean over the window; fitted to factor_diff, "
    "the mean of (O1/E1 - O2/E2)^2 - 1/E1 - 1/E2 over adjacent windows = 4 (g(T) - g(2T)), at every scale "
    "(and to the windows' own (O-E)^2, and the MMPP's (O-E)^3, up to 10 min); the listed bursts are left out "
    "of E and of the fragment; tested at the scales with (O-E)^2/(E I), two-sided; the first not rejected is "
    "chosen, else the one with the smallest largest |z|",
    "back-test: --backtest SCENARIO fits the first part of the scenario's trace and simulates the rest from "
    "the fragment and from the replay (models/study/backtest.h)",
};

static const char *const fit_choice_names[] = {"poisson with the profile", "poisson with the profile + groups",
                                               "poisson with the profile + levels/growth"};

/* The ladder's choice, with the clustered model printed when there is one. */
static void fit_chosen_name(const fs_fit_model *m, char *buf, size_t size)
{
    snprintf(buf, size, "%s%s%s", fit_choice_names[m->chosen], m->modulation >= 0 ? " + " : "",
             m->modulation >= 0 ? fs_fit_clustered_names[m->modulation] : "");
}

/* One clustered candidate: its figures and its test at the model's scales. */
static json_t *fit_candidate_json(const fs_fit_model *m, int k)
{
    const fs_fit_clustered *c = &m->clustered[k];
    json_t *o = json_pack("{s:s, s:b, s:i, s:o}", "model", fs_fit_clustered_names[k], "fitted", c->fitted,
                          "parameters", c->params, "cost", fs_cli_fit_num(c->cost, 4));
    if (!c->fitted)
        return o;
    if (k == FS_FIT_MMPP2) {
        json_object_set_new(o, "rps", json_pack("[o, o]", fs_cli_fit_num(c->rps[0], 6), fs_cli_fit_num(c->rps[1], 6)));
        json_object_set_new(o, "mean_sojourn_s",
                            json_pack("[o, o]", fs_cli_fit_num(c->sojourn_s[0], 4), fs_cli_fit_num(c->sojourn_s[1], 4)));
    } else {
        json_object_set_new(o, "cv", fs_cli_fit_num(c->cv, 4));
        json_object_set_new(o, "interval_s", fs_cli_fit_num(c->interval_s, 4));
        json_object_set_new(o, "correlation_s", fs_cli_fit_num(c->correlation_s > 0 ? c->correlation_s : NAN, 4));
    }
    json_t *tests = json_array();
    for (size_t s = 0; s < m->n_scales; s++)
        json_array_append_new(tests, json_pack("{s:o, s:o, s:o, s:o, s:o}", "window_s",
                                               fs_cli_fit_num(m->scale[s].window_s, 10), "index",
                                               fs_cli_fit_num(m->clustered_index[s], 4), "model_index",
                                               fs_cli_fit_num(c->model_index[s], 4), "z", fs_cli_fit_num(c->z[s], 4), "p_value",
                                               fs_cli_fit_num(c->p_value[s], 4)));
    json_object_set_new(o, "scales", tests);
    json_object_set_new(o, "worst_z", fs_cli_fit_num(c->worst_z, 4));
    json_object_set_new(o, "rejected", json_boolean(c->rejected));
    return o;
}

/* {"tried", "on", "chosen", "fit_scales", "candidates"} (fit_model.h). */
static json_t *fit_clustered_json(const fs_fit_model *m)
{
    json_t *o = json_pack("{s:b}", "tried", m->clustered_tried);
    if (!m->clustered_tried)
        return o;
    json_object_set_new(o, "on", json_string(m->clustered_on_groups ? "group counts" : "request counts"));
    json_object_set_new(o, "base_rps", fs_cli_fit_num(m->clustered_base_rps, 4));
    json_object_set_new(o, "chosen", m->modulation >= 0 ? json_string(fs_fit_clustered_names[m->modulation])
                                                        : json_null());
    json_t *scales = json_array(), *candidates = json_array();
    for (size_t s = 0; s < m->n_factor_scales; s++) {
        const fs_fit_factor_scale *fs = &m->factor_scale[s];
        json_array_append_new(scales, json_pack("{s:o, s:I, s:o, s:o}", "window_s", fs_cli_fit_num(fs->window_s, 10),
                                                "pairs", (json_int_t)fs->windows, "factor_diff",
                                                fs_cli_fit_num(fs->factor_diff, 4), "factor_diff_se",
                                                fs_cli_fit_num(fs->factor_diff_se, 4)));
    }
    for (int k = 0; k < FS_FIT_N_CLUSTERED; k++)
        json_array_append_new(candidates, fit_candidate_json(m, k));
    json_object_set_new(o, "fit_scales", scales);
    json_object_set_new(o, "candidates", candidates);
    return o;
}

static json_t *fit_model_json(const fs_fit_model *m)
{
    const fs_fit_groups *g = &m->groups;
    const fs_fit_trend *t = &m->trend;
    json_t *scales = json_array();
    for (size_t k = 0; k < m->n_scales; k++) {
        const fs_fit_scale *sc = &m->scale[k];
        json_array_append_new(scales, json_pack("{s:o, s:I, s:o, s:o, s:o, s:o, s:o, s:o}", "window_s",
                                                fs_cli_fit_num(sc->window_s, 10), "windows", (json_int_t)sc->windows,
                                                "index", fs_cli_fit_num(sc->index, 4), "z", fs_cli_fit_num(sc->z, 4), "p_value",
                                                fs_cli_fit_num(sc->p_value, 4), "group_index", fs_cli_fit_num(sc->group_index, 4),
                                                "group_z", fs_cli_fit_num(sc->group_z, 4), "group_p_value",
                                                fs_cli_fit_num(sc->group_p_value, 4)));
    }
    json_t *groups = json_pack("{s:o, s:o, s:o, s:o, s:o, s:b, s:b, s:o, s:o, s:o}", "groups", fs_cli_fit_num(g->points, 12),
                               "mean", fs_cli_fit_num(g->mean, 6), "mean_square", fs_cli_fit_num(g->mean_square, 6), "dispersion",
                               fs_cli_fit_num(g->mean > 0 ? g->mean_square / g->mean : NAN, 4), "largest",
                               fs_cli_fit_num(g->largest, 12), "fitted", g->fitted, "printed", g->printed, "law_mean",
                               fs_cli_fit_num(g->law_mean, 6), "law_mean_square", fs_cli_fit_num(g->law_mean_square, 6),
                               "tail_share", fs_cli_fit_num(g->tail_share, 4));
    json_t *trend = json_pack("{s:b, s:I, s:I, s:o, s:o, s:o, s:b, s:o, s:i, s:o, s:b}", "tested", t->tested, "days",
                              (json_int_t)t->days, "regression_days", (json_int_t)t->regression_days, "slope",
                              fs_cli_fit_num(t->slope, 6), "slope_se", fs_cli_fit_num(t->slope_se, 6), "growth_per_day",
                              fs_cli_fit_num(t->tested ? t->growth_per_day : NAN, 6), "growth", t->growth, "day_chi2",
                              fs_cli_fit_num(t->day_chi2, 6), "day_dof", t->day_dof, "day_p_value",
                              fs_cli_fit_num(t->day_p, 4), "levels", t->levels);
    char chosen[160];
    fit_chosen_name(m, chosen, sizeof chosen);
    return json_pack("{s:s, s:s, s:b, s:o, s:o, s:o, s:o, s:o}", "chosen", chosen, "why", m->why, "rejected",
                     m->rejected, "expected_count", fs_cli_fit_num(m->expected, 10), "groups", groups, "trend", trend,
                     "scales", scales, "clustered", fit_clustered_json(m));
}

/* Per hour of a profile: its rates, its covered seconds, or the hours not covered. */
typedef enum { FIT_RATES, FIT_COVERED, FIT_UNCOVERED } fit_column;

static json_t *fit_cells_json(const fs_fit_cell cells[24], fit_column what)
{
    json_t *a = json_array();
    for (int h = 0; h < 24; h++) {
        if (what == FIT_UNCOVERED) {
            if (!cells[h].covered)
                json_array_append_new(a, json_integer(h));
        } else {
            json_array_append_new(a, fs_cli_fit_num(what == FIT_RATES ? cells[h].rate_rps : cells[h].covered_s, 6));
        }
    }
    return a;
}

/* {"weekday": ..., "weekend": ...} or {"diurnal": ...}, as in the fragment. */
static json_t *fit_by_day_type(const fs_fit *f, fit_column what)
{
    if (!f->split)
        return json_pack("{s:o}", "diurnal", fit_cells_json(f->cell[FS_FIT_WEEKDAY], what));
    return json_pack("{s:o, s:o}", "weekday", fit_cells_json(f->cell[FS_FIT_WEEKDAY], what), "weekend",
                     fit_cells_json(f->cell[FS_FIT_WEEKEND], what));
}

static json_t *fit_input_json(const char *path, const fs_fit_acc *acc)
{
    char date[32] = "";
    json_t *day0 = json_pack("{s:s, s:s}", "weekday", fs_cli_fit_day_names[acc->weekday0], "from",
                             acc->calendar ? "the dates (UTC)" : "--start-weekday");
    if (acc->calendar) {
        fit_date(acc->day0_raw_s, date, sizeof date);
        json_object_set_new(day0, "date", json_string(date));
    }
    json_t *in = json_pack("{s:s, s:s, s:I, s:o, s:o, s:o}", "file", path, "kind",
                           acc->rates ? "rate series" : "requests", "rows", (json_int_t)acc->rows, "day0", day0,
                           "first_s", fs_cli_fit_num(acc->first_s, 10), "last_s", fs_cli_fit_num(acc->last_s, 10));
    if (acc->rates) {
        /* Windows of rate 0 one way or the other (--zero-is-gap): the other count is 0. */
        json_object_set_new(in, "row_window_s", fs_cli_fit_num(acc->row_window_s, 10));
        json_object_set_new(in, "idle_windows", json_integer((json_int_t)acc->idle_windows));
        json_object_set_new(in, "gap_windows", json_integer((json_int_t)acc->gap_windows));
    }
    return in;
}

static json_t *fit_goodness_json(const fs_fit *f)
{
    json_t *per = json_array();
    for (int h = 0; h < 24; h++) {
        const fs_fit_hour_gof *g = &f->hour[h];
        json_array_append_new(per, json_pack("{s:i, s:o, s:i, s:o, s:o}", "hour", h, "chi2", fs_cli_fit_num(g->chi2, 6),
                                             "dof", g->dof, "p_value", fs_cli_fit_num(g->p_value, 4), "max_rel_err",
                                             fs_cli_fit_num(g->max_rel_err, 4)));
    }
    return json_pack("{s:o, s:i, s:o, s:I, s:o, s:I, s:o}", "chi2", fs_cli_fit_num(f->chi2, 6), "dof", f->dof,
                     "p_value", fs_cli_fit_num(f->p_value, 4), "hours", (json_int_t)f->gof_hours, "r2",
                     fs_cli_fit_num(f->r2, 6), "r2_hours", (json_int_t)f->r2_hours, "per_hour", per);
}

static json_t *fit_windows_json(const fs_fit *f, json_t **bursts)
{
    json_t *listed = json_array();
    for (size_t k = 0; k < f->n_listed; k++) {
        const fs_fit_burst *b = &f->bursts[k];
        char at[48];
        fit_clock(b->at_s, at, sizeof at);
        json_array_append_new(listed, json_pack("{s:o, s:s, s:o, s:o, s:o, s:o}", "at_s", fs_cli_fit_num(b->at_s, 10),
                                                "at", at, "duration_s", fs_cli_fit_num(b->duration_s, 10), "observed",
                                                fs_cli_fit_num(b->observed, 10), "expected", fs_cli_fit_num(b->expected, 6),
                                                "multiplier", fs_cli_fit_num(b->multiplier, 4)));
    }
    *bursts = json_pack("{s:s, s:I, s:o, s:I, s:o, s:o, s:o, s:o, s:o}", "rule",
                        "maximal runs of windows with count > expected + 4 sqrt(expected)", "hot_windows",
                        (json_int_t)f->hot_windows, "hot_by_chance", fs_cli_fit_num(f->hot_by_chance, 4), "count",
                        (json_int_t)f->n_bursts, "total_s", fs_cli_fit_num(f->burst_s, 10), "minutes",
                        fs_cli_fit_num(f->burst_s / 60, 6), "mean_multiplier", fs_cli_fit_num(f->burst_multiplier, 4),
                        "longest_s", fs_cli_fit_num(f->longest_s, 10), "listed", listed);
    return json_pack("{s:o, s:I, s:o, s:o, s:o, s:o}", "window_s", fs_cli_fit_num(f->window_s, 10), "windows",
                     (json_int_t)f->windows, "mean_expected", fs_cli_fit_num(f->mean_expected, 4), "index",
                     fs_cli_fit_num(f->dispersion, 4), "peak_ratio", fs_cli_fit_num(f->peak_ratio, 4), "peak_at_s",
                     fs_cli_fit_num(f->peak_at_s, 10));
}

static json_t *fit_document(const char *path, const fs_fit_acc *acc, const fs_fit *f)
{
    json_t *notes = json_array();
    for (size_t k = 0; k < sizeof fit_notes / sizeof fit_notes[0]; k++)
        json_array_append_new(notes, json_string(fit_notes[k]));
    json_t *all = json_pack("{s:o, s:o, s:o, s:o}", "rates_rps", fit_cells_json(f->all_days, FIT_RATES), "peak_hour",
                            f->peak_hour >= 0 ? json_integer(f->peak_hour) : json_null(), "trough_hour",
                            f->trough_hour >= 0 ? json_integer(f->trough_hour) : json_null(), "peak_trough",
                            fs_cli_fit_num(f->peak_trough, 4));
    json_t *fit = json_pack("{s:o, s:o, s:o, s:o, s:s, s:o, s:o, s:o, s:o, s:o}", "input", fit_input_json(path, acc),
                            "base_rps", fs_cli_fit_num(f->base_rps, 6), "arrivals", fs_cli_fit_num(f->arrivals, 12), "covered_s",
                            fs_cli_fit_num(f->covered_s, 10), "profile", f->split ? "weekday and weekend" : "diurnal",
                            "rates_rps", fit_by_day_type(f, FIT_RATES), "covered_s_per_hour",
                            fit_by_day_type(f, FIT_COVERED), "not_covered", fit_by_day_type(f, FIT_UNCOVERED),
                            "all_days", all, "goodness",
                            fit_goodness_json(f));
    if (f->has_windows) {
        json_t *bursts;
        json_object_set_new(fit, "dispersion", fit_windows_json(f, &bursts));
        json_object_set_new(fit, "bursts", bursts);
    }
    json_object_set_new(fit, "model", fit_model_json(&f->model));
    json_object_set_new(fit, "definitions", notes);
    return json_pack("{s:o, s:o}", "arrivals", fit_arrivals_json(f), "fit", fit);
}

/* ---- the report ---------------------------------------------------------- */

/* "00:00-05:00, 22:00" for the hours not covered, or "none". */
static void fit_hour_list(const fs_fit_cell cells[24], char *buf, size_t size)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int h = 0; h < 24; h++) {
        if (cells[h].covered || (h > 0 && !cells[h - 1].covered))
            continue;
        int end = h;
        while (end + 1 < 24 && !cells[end + 1].covered)
            end++;
        n += (size_t)snprintf(buf + n, n < size ? size - n : 0, end > h ? "%s%02d:00-%02d:00" : "%s%02d:00",
                              n ? ", " : "", h, end);
    }
    if (n == 0)
        snprintf(buf, size, "none");
}

static void fit_cell_text(FILE *fp, const fs_fit_cell *c)
{
    if (c->covered)
        fprintf(fp, "  %10.4g %7.4g", c->rate_rps, fit_sig(c->multiplier, 4));
    else
        fprintf(fp, "  %10s %7s", "-", "1");
}

static void fit_report(FILE *fp, const char *path, const fs_fit_acc *acc, const fs_fit *f)
{
    char date[32] = "", buf[256];
    if (acc->calendar)
        fit_date(acc->day0_raw_s, date, sizeof date);
    char first[48], last[48];
    fit_clock(acc->first_s, first, sizeof first);
    fit_clock(acc->last_s, last, sizeof last);
    fs_terminal_say(fp, "fit-traffic: %s: %s, %llu rows, observed from %s to %s (from day 0's midnight)", path,
                    acc->rates ? "rate series" : "request trace", (unsigned long long)acc->rows, first, last);
    fprintf(fp, "day 0 is a %s%s%s (%s)\n", fs_cli_fit_day_names[acc->weekday0], date[0] ? ", " : "", date,
            acc->calendar ? "from the dates, UTC" : "raw time 0 is 00:00 of --start-weekday");
    if (acc->rates)
        fprintf(fp, "rows are %g s windows; of rate 0: %llu counted as observed with no arrivals, %llu as gaps%s\n",
                acc->row_window_s, (unsigned long long)acc->idle_windows, (unsigned long long)acc->gap_windows,
                acc->gap_windows ? " (--zero-is-gap)" : "");
    fprintf(fp, "poisson_rps %.4g req/s: the mean over %.1f observed hours (%.0f arrivals)\n", f->base_rps,
            f->covered_s / 3600, f->arrivals);
    fprintf(fp, "profile: %s\n\n", f->split ? "weekday and weekend (the input covers both)"
                                            : "diurnal (one day type observed: the same every day)");
    fprintf(fp, "hour %s", f->split ? "   wkday r/s    mult   wkend r/s    mult" : "  rate r/s    mult");
    fprintf(fp, "      chi2   dof  p-value  max err\n");
    for (int h = 0; h < 24; h++) {
        const fs_fit_hour_gof *g = &f->hour[h];
        fprintf(fp, "%02d:00", h);
        fit_cell_text(fp, &f->cell[FS_FIT_WEEKDAY][h]);
        if (f->split)
            fit_cell_text(fp, &f->cell[FS_FIT_WEEKEND][h]);
        if (g->dof > 0)
            fprintf(fp, "  %8.4g %5d  %7.3g  %6.1f%%\n", g->chi2, g->dof, g->p_value, 100 * g->max_rel_err);
        else
            fprintf(fp, "  %8s %5s  %7s  %7s\n", "-", "-", "-", "-");
    }
    fit_hour_list(f->cell[FS_FIT_WEEKDAY], buf, sizeof buf);
    fprintf(fp, "\nnot covered (multiplier 1): %s%s", f->split ? "weekday " : "", buf);
    if (f->split) {
        fit_hour_list(f->cell[FS_FIT_WEEKEND], buf, sizeof buf);
        fprintf(fp, "; weekend %s", buf);
    }
    fprintf(fp, "\n\ngoodness of fit, clock hour by clock hour against the profile:\n");
    if (f->dof > 0)
        fprintf(fp, "  chi-square %.5g on %d degrees of freedom (%zu hours with >= 5 expected), p = %.3g:\n"
                    "    a small p means the counts vary from day to day more than Poisson noise%s\n",
                f->chi2, f->dof, f->gof_hours, f->p_value,
                acc->rates ? " (a rate series'\n    counts are estimates, not Poisson counts: expect a small p)" : "");
    else
        fprintf(fp, "  chi-square: no test (each cell is observed in one clock hour at most)\n");
    if (isfinite(f->r2))
        fprintf(fp, "  R^2 %.4f over %zu full hours: the share of the hour-to-hour variation the profile explains\n",
                f->r2, f->r2_hours);
    else
        fprintf(fp, "  R^2: none (fewer than two fully observed hours)\n");
    if (!f->has_windows)
        return;
    char w[32], at[48];
    fs_duration_format(f->window_s, w, sizeof w);
    fit_clock(f->peak_at_s, at, sizeof at);
    fprintf(fp, "\ndispersion over %zu windows of %s (%.4g expected each on average):\n"
                "  index %.4g (mean (O-E)^2/E; 1 = Poisson with this profile); peak window %.4gx expected at %s\n",
            f->windows, w, f->mean_expected, f->dispersion, f->peak_ratio, at);
    if (f->mean_expected < 10)
        fprintf(fp, "  (under ~10 expected a window, the burst rule flags Poisson noise too: try a longer --window)\n");
    fs_duration_format(f->longest_s, buf, sizeof buf);
    fprintf(fp, "bursts (runs of %s windows with count > expected + 4 sqrt(expected)): %zu", w, f->n_bursts);
    if (f->n_bursts)
        fprintf(fp, ", %.4g minutes in all, %.4gx expected on average, the longest %s", f->burst_s / 60,
                f->burst_multiplier, buf);
    fprintf(fp, "\n  %zu hot windows; Poisson noise alone would give about %.2g\n", f->hot_windows,
            f->hot_by_chance);
    for (size_t k = 0; k < f->n_listed; k++) {
        const fs_fit_burst *b = &f->bursts[k];
        char day[16];
        snprintf(day, sizeof day, "(%s)", fs_cli_fit_day_names[(acc->weekday0 + (int)floor(b->at_s / 86400)) % 7]);
        fit_clock(b->at_s, at, sizeof at);
        fs_duration_format(b->duration_s, buf, sizeof buf);
        fprintf(fp, "  at %-12s %-11s %6s  %7.4gx  (%.0f arrivals, %.4g expected)\n", at, day, buf,
                fit_sig(b->multiplier, 4), b->observed, b->expected);
    }
    if (f->n_listed)
        fprintf(fp, "note: these %s the trace's own bursts, for replaying the period it covers: \"at\" counts from\n"
                    "  day 0's midnight, so give the scenario \"start_weekday\": \"%s\"; the fragment's profile\n"
                    "  leaves their windows out, so each multiplier restores its own arrivals once%s\n",
                f->n_listed == 1 ? "is" : "are", fs_cli_fit_day_names[acc->weekday0],
                f->n_listed < f->n_bursts ? " (only the 20 largest are listed; the rest stay in the profile)" : "");
}

/* The clustered candidates: the factor's variance measured at each fit
 * scale, then each model's figures and its test. */
static void fit_clustered_text(FILE *fp, const fs_fit_model *m)
{
    if (!m->clustered_tried)
        return;
    fprintf(fp, "clustered models on %s, against a base of %.4g req/s without the listed bursts (a random\n"
                "  factor on the rate; g(T) = Var of its mean over a window of T; adjacent windows'\n"
                "  (O1/E1 - O2/E2)^2 - 1/E1 - 1/E2 measures 4 (g(T) - g(2T))):\n"
                "  window     pairs  measured      +-\n",
            m->clustered_on_groups ? "group counts" : "request counts", m->clustered_base_rps);
    for (size_t s = 0; s < m->n_factor_scales; s++) {
        const fs_fit_factor_scale *fs = &m->factor_scale[s];
        char w[32];
        fs_duration_format(fs->window_s, w, sizeof w);
        fprintf(fp, "  %-6s  %8zu  %8.4g  %6.2g\n", w, fs->windows, fs->factor_diff, fs->factor_diff_se);
    }
    for (int k = 0; k < FS_FIT_N_CLUSTERED; k++) {
        const fs_fit_clustered *c = &m->clustered[k];
        if (!c->fitted) {
            fprintf(fp, "  %s: not fitted (%d parameters, too few scales)\n", fs_fit_clustered_names[k], c->params);
            continue;
        }
        char a[32], b[32];
        if (k == FS_FIT_MMPP2) {
            fs_duration_format(c->sojourn_s[0], a, sizeof a);
            fs_duration_format(c->sojourn_s[1], b, sizeof b);
            fprintf(fp, "  %s: %.6g req/s for %s, %.6g req/s for %s (mean sojourns)", fs_fit_clustered_names[k],
                    c->rps[0], a, c->rps[1], b);
        } else {
            fs_duration_format(c->interval_s, a, sizeof a);
            fs_duration_format(c->correlation_s, b, sizeof b);
            fprintf(fp, "  %s: cv %.4g, interval %s%s%s", fs_fit_clustered_names[k], c->cv, a,
                    c->correlation_s > 0 ? ", correlation time " : "", c->correlation_s > 0 ? b : "");
        }
        fprintf(fp, "; cost %.3g; %s\n   ", c->cost, c->rejected ? "rejected" : "not rejected");
        for (size_t s = 0; s < m->n_scales; s++) {
            if (!isfinite(c->z[s]))
                continue;
            fs_duration_format(m->scale[s].window_s, a, sizeof a);
            fprintf(fp, " %s: index %.4g (measured %.4g), z %.3g, p %.3g;", a, c->model_index[s],
                    m->clustered_index[s], c->z[s], c->p_value[s]);
        }
        fputc('\n', fp);
    }
}

/* The model: groups, trend, scales, the choice and what is not fitted. */
static void fit_model_text(FILE *fp, const fs_fit *f)
{
    const fs_fit_model *m = &f->model;
    const fs_fit_groups *g = &m->groups;
    const fs_fit_trend *t = &m->trend;
    fprintf(fp, "\nthe fragment: expected %.10g arrivals over the observed span (%.0f in the input, %+.3f%%)\n",
            m->expected, f->arrivals, 100 * (m->expected / f->arrivals - 1));
    if (g->points > 0)
        fprintf(fp, "groups (requests at the identical time): %.0f, mean size %.4g, E[G^2]/E[G] %.4g, largest %.0f: %s\n",
                g->points, g->mean, g->mean_square / g->mean, g->largest,
                g->printed ? "fitted" : g->fitted ? "not needed (Poisson counts not rejected)"
                                                  : "not fitted (mean <= 1.05 or <= 100 groups)");
    if (g->printed)
        fprintf(fp, "  the law printed: %zu sizes (tail bucket %.3g%% of groups), mean %.4g, E[G^2] %.4g (measured %.4g)\n",
                g->n_sizes, 100 * g->tail_share, g->law_mean, g->law_mean_square, g->mean_square);
    if (!t->tested) {
        fprintf(fp, "trend: not tested (the input spans under 3 days)\n");
    } else {
        fprintf(fp, "trend over %zu days: ", t->days);
        if (isfinite(t->slope))
            fprintf(fp, "ln(day factor) slope %.4g +- %.2g per day over %zu days (%+.4g%%/day): growth %s\n", t->slope,
                    t->slope_se, t->regression_days, 100 * t->growth_per_day,
                    t->growth ? "printed (|slope| > 2 s.e.)" : "not printed");
        else
            fprintf(fp, "fewer than 3 days with 6 h observed: no growth\n");
        if (t->day_dof > 0)
            fprintf(fp, "  daily counts against the profile%s: chi-square %.4g on %d dof, p = %.3g: daily_levels %s\n",
                    t->growth ? " and growth" : "", t->day_chi2, t->day_dof, t->day_p,
                    t->levels ? "printed" : "not printed");
    }
    fprintf(fp, "dispersion against the fragment's deterministic rate (1 = Poisson; z, p one-sided):\n");
    fprintf(fp, "  window   windows     index        z    p-value%s\n",
            g->printed ? "   groups: index        z    p-value" : "");
    for (size_t k = 0; k < m->n_scales; k++) {
        const fs_fit_scale *sc = &m->scale[k];
        char w[32];
        fs_duration_format(sc->window_s, w, sizeof w);
        if (sc->windows < 10 || !isfinite(sc->index)) {
            fprintf(fp, "  %-6s  %8zu  (under 10 windows: no test)\n", w, sc->windows);
            continue;
        }
        fprintf(fp, "  %-6s  %8zu  %8.4g %8.3g  %9.3g", w, sc->windows, sc->index, sc->z, sc->p_value);
        if (g->printed)
            fprintf(fp, "           %8.4g %8.3g  %9.3g", sc->group_index, sc->group_z, sc->group_p_value);
        fputc('\n', fp);
    }
    fit_clustered_text(fp, m);
    char chosen[160];
    fit_chosen_name(m, chosen, sizeof chosen);
    fprintf(fp, "chosen: %s%s: %s\n", chosen, m->rejected ? " (still rejected)" : "", m->why);
    fprintf(fp, "back-test: fleetsim fit-traffic --backtest SCENARIO (the fit of the first part, simulated "
                "against a replay of the rest)\n");
}

/* ---- the command --------------------------------------------------------- */

int fs_cli_fit_fail(int rc, const fs_error *err)
{
    fs_terminal_error(err->msg);
    return rc == FS_ERR_INPUT ? FIT_EXIT_USAGE : FIT_EXIT_RUNTIME;
}

int fs_cli_fit_usage(const char *command, const char *what)
{
    fs_terminal_say(stderr, "fleetsim %s: %s (see 'fleetsim %s --help')", command, what, command);
    return FIT_EXIT_USAGE;
}

static int fit_fail(int rc, const fs_error *err)
{
    return fs_cli_fit_fail(rc, err);
}

static int fit_usage_error(const char *what)
{
    return fs_cli_fit_usage("fit-traffic", what);
}

/* Whether the options name a rate series rather than a request trace. */
static bool fit_is_rates(const fs_cli_parsed *opt)
{
    const char *preset = opt->values[FIT_PRESET];
    return opt->values[FIT_RATE] || (preset && strcmp(preset, "servegen-rate") == 0);
}

/* Reads the input the options describe into acc. */
static int fit_read(const fs_cli_parsed *opt, const char *path, int weekday, double window_s, fs_fit_acc *acc,
                    fs_error *err)
{
    const char *preset = opt->values[FIT_PRESET], *fmt = opt->values[FIT_TIME_FORMAT];
    int time_format = fmt ? fs_cli_choice(&fs_cli_fit_options, FIT_TIME_FORMAT, fmt) : FS_TRACE_TIME_SECONDS;
    if (time_format < 0)
        return fs_error_set(err, FS_ERR_INPUT, "--time-format: expected seconds, ms, us or datetime, got \"%s\"", fmt);
    fs_trace_time_format format = (fs_trace_time_format)time_format;
    if (fit_is_rates(opt)) {
        fs_fit_rate_spec rs = {.path = path, .start_col = opt->values[FIT_WINDOW_START],
                               .start_format = format, .rate_col = opt->values[FIT_RATE]};
        int rc = preset ? fs_fit_rate_preset(preset, path, &rs, err) : FS_OK;
        rs.zero_is_gap = opt->values[FIT_ZERO_IS_GAP] != NULL;
        if (rc == FS_OK && format == FS_TRACE_TIME_DATETIME)
            rc = fs_error_set(err, FS_ERR_INPUT, "%s: a rate series' window starts are numbers (seconds, ms or us)",
                              path);
        if (rc != FS_OK)
            return rc;
        if (window_s > 0)
            rs.window_s = window_s;
        return fs_fit_read_rates(&rs, weekday, acc, err);
    }
    fs_trace_spec spec = {0};
    int rc = FS_OK;
    if (preset) {
        rc = fs_trace_preset(preset, path, &spec, err);
        if (rc == FS_ERR_INPUT) {
            char known[256] = "";
            for (size_t k = 0; fs_trace_preset_names[k]; k++)
                snprintf(known + strlen(known), sizeof known - strlen(known), "%s, ", fs_trace_preset_names[k]);
            rc = fs_error_set(err, FS_ERR_INPUT, "%s: unknown preset \"%s\" (known: %s%s)", path, preset, known,
                              fs_fit_rate_preset_names[0]);
        }
    } else {
        spec = (fs_trace_spec){.path = strdup(path), .kind = FS_TRACE_REQUESTS,
                               .time_col = strdup(opt->values[FIT_TIME]), .time_format = format, .rate_scale = 1,
                               .tolerance_s = 1};
        if (!spec.path || !spec.time_col)
            rc = fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
    }
    if (rc == FS_OK)
        rc = fs_fit_read_requests(&spec, weekday, window_s > 0 ? window_s : 60, acc, err);
    fs_trace_spec_fini(&spec);
    return rc;
}

/* ---- the back-test ------------------------------------------------------- */

/* Its printing (fs_cli_fit_backtest_json, _text) is cmd_fit_backtest.c's. */

/* The back-test of the fragment the fit prints. */
static int fit_backtest_run(const fs_backtest *bt, const fs_fit *fit, fs_backtest_result *r)
{
    fs_error err = {0};
    json_t *arrivals = fit_arrivals_json(fit);
    int rc = arrivals ? fs_backtest_run(bt, arrivals, r, &err)
                      : fs_error_set(&err, FS_ERR_RUNTIME, "out of memory for the fragment");
    json_decref(arrivals);
    return rc == FS_OK ? FIT_EXIT_OK : fit_fail(rc, &err);
}

/* The back-test's options into spec; FIT_EXIT_OK or a usage error. */
static int fit_backtest_options(const fs_cli_parsed *opt, double window_s, fs_backtest_spec *spec)
{
    static const int trace_only[] = {FIT_PRESET, FIT_TIME, FIT_TIME_FORMAT, FIT_RATE, FIT_WINDOW_START,
                                     FIT_ZERO_IS_GAP, FIT_START_WEEKDAY};
    for (size_t k = 0; k < sizeof trace_only / sizeof trace_only[0]; k++)
        if (opt->values[trace_only[k]]) {
            fs_terminal_say(stderr, "fleetsim fit-traffic: --%s: with --backtest the scenario's trace spec and "
                                    "start_weekday say how to read the trace (see 'fleetsim fit-traffic --help')",
                            fit_options[trace_only[k]].name);
            return FIT_EXIT_USAGE;
        }
    if (opt->n_positional != 0)
        return fit_usage_error("--backtest reads the trace its scenario names: give no TRACE.csv");
    *spec = (fs_backtest_spec){.scenario = opt->values[FIT_BACKTEST], .service = opt->values[FIT_SERVICE],
                               .window_s = window_s};
    const char *holdout = opt->values[FIT_HOLDOUT], *slo = opt->values[FIT_SLO_P99];
    if (holdout && (fs_number_parse(holdout, &spec->holdout) != 0 || !(spec->holdout > 0 && spec->holdout < 1)))
        return fit_usage_error("--holdout: expected the share of the trace held back, above 0 and below 1, "
                               "such as 0.25");
    char why[128];
    if (slo && (fs_duration_parse(slo, &spec->slo_p99_s, why, sizeof why) != 0 || !(spec->slo_p99_s > 0)))
        return fit_usage_error("--slo-p99: expected a duration above 0 such as 500ms or 10s");
    uint64_t max = 0;
    if (opt->values[FIT_MAX_REPLICAS] &&
        fs_cli_parse_count(opt->values[FIT_MAX_REPLICAS], 1, FS_SCENARIO_MAX_REPLICAS, &max) != 0)
        return fit_usage_error("--max-replicas: expected a whole number from 1 to 100000");
    spec->max_replicas = (uint32_t)max;
    return FIT_EXIT_OK;
}

/* Prints the fit as --format says and, with bt, runs the back-test and
 * prints it after the report (text) or under "backtest" (JSON). */
static int fit_print(const char *format, const char *path, const fs_fit_acc *acc, const fs_fit *fit,
                     const fs_backtest *bt)
{
    int status = FIT_EXIT_OK;
    fs_backtest_result res;
    if (format && strcmp(format, "json") == 0) {
        if (bt && (status = fit_backtest_run(bt, fit, &res)) != FIT_EXIT_OK)
            return status;
        json_t *doc = fit_document(path, acc, fit);
        if (doc && bt)
            json_object_set_new(doc, "backtest", fs_cli_fit_backtest_json(bt, &res));
        if (!doc || json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(10)) != 0 ||
            fputc('\n', stdout) == EOF)
            status = FIT_EXIT_RUNTIME;
        json_decref(doc);
    } else {
        FILE *report = format ? stdout : stderr;
        fit_report(report, path, acc, fit);
        fit_model_text(report, fit);
        if (format)
            fputs("\nscenario fragment (paste into a service):\n", stdout);
        json_t *arrivals = fit_arrivals_json(fit);
        if (!arrivals || fit_print_fragment(stdout, arrivals) != 0)
            status = FIT_EXIT_RUNTIME;
        json_decref(arrivals);
        /* The fragment first: it is there while the simulations run. */
        fflush(stdout);
        if (status == FIT_EXIT_OK && bt && (status = fit_backtest_run(bt, fit, &res)) != FIT_EXIT_OK)
            return status;
        if (bt)
            fs_cli_fit_backtest_text(report, bt, &res);
    }
    if (fflush(stdout) != 0)
        status = FIT_EXIT_RUNTIME;
    if (status != FIT_EXIT_OK)
        fprintf(stderr, "fleetsim: fit-traffic: cannot write the output (out of memory or a write error)\n");
    return status;
}

/* fit-traffic --backtest: the fit of the trace's first part, printed as
 * ever, then the back-test of that fragment. */
static int fit_backtest_main(const fs_cli_parsed *opt, const char *format, double window_s)
{
    fs_backtest_spec spec;
    int status = fit_backtest_options(opt, window_s, &spec);
    if (status != FIT_EXIT_OK)
        return status;
    fs_backtest bt;
    static fs_fit fit; /* 2 KiB of cells and bursts: off the stack */
    fs_fit_acc acc;
    fs_error err = {0};
    int rc = fs_backtest_prepare(&spec, &bt, &acc, &err);
    if (rc == FS_OK && (rc = fs_fit_compute(&acc, &fit, &err)) != FS_OK) {
        fs_error named = err; /* the fit's messages do not know the file */
        snprintf(named.msg, sizeof named.msg, "%.200s: %.800s", bt.trace_path, err.msg);
        err = named;
    }
    status = rc == FS_OK ? fit_print(format, bt.trace_path, &acc, &fit, &bt) : fit_fail(rc, &err);
    fs_fit_acc_fini(&acc);
    fs_backtest_fini(&bt);
    return status;
}

int fs_cli_fit_traffic(int argc, char **argv)
{
    fs_cli_parsed opt;
    int status = fs_cli_help_parse("fit-traffic", argc, argv, &opt);
    if (status >= 0)
        return status;
    const char *format = opt.values[FIT_FORMAT];
    if (format && fs_cli_choice(&fs_cli_fit_options, FIT_FORMAT, format) < 0)
        return fit_usage_error("--format: expected json or text");
    double window_s = 0;
    char why[128];
    if (opt.values[FIT_WINDOW] && (fs_duration_parse(opt.values[FIT_WINDOW], &window_s, why, sizeof why) != 0 ||
                                   !(window_s > 0))) {
        fs_terminal_say(stderr, "fleetsim fit-traffic: --window: %s, got \"%s\"",
                window_s > 0 ? why : "expected a duration above 0 such as 1m", opt.values[FIT_WINDOW]);
        return FIT_EXIT_USAGE;
    }
    if (opt.values[FIT_BACKTEST])
        return fit_backtest_main(&opt, format, window_s);
    static const int backtest_only[] = {FIT_SERVICE, FIT_HOLDOUT, FIT_SLO_P99, FIT_MAX_REPLICAS};
    for (size_t k = 0; k < sizeof backtest_only / sizeof backtest_only[0]; k++)
        if (opt.values[backtest_only[k]])
            return fit_usage_error("--service, --holdout, --slo-p99 and --max-replicas go with --backtest");
    if (opt.n_positional != 1)
        return fit_usage_error("expected one TRACE.csv");
    const char *path = opt.positional[0];
    int sources = !!opt.values[FIT_PRESET] + !!opt.values[FIT_TIME] + !!opt.values[FIT_RATE];
    if (sources != 1)
        return fit_usage_error("give one of --preset, --time COL (a request trace) or --rate COL (a rate series)");
    if (!opt.values[FIT_RATE] != !opt.values[FIT_WINDOW_START])
        return fit_usage_error("--rate and --window-start go together");
    if (opt.values[FIT_TIME_FORMAT] && !opt.values[FIT_TIME] && !opt.values[FIT_RATE])
        return fit_usage_error("--time-format goes with --time (or --window-start); a preset knows its format");
    if (opt.values[FIT_ZERO_IS_GAP] && !fit_is_rates(&opt))
        return fit_usage_error("--zero-is-gap goes with a rate series (--rate, or --preset servegen-rate)");
    uint64_t weekday = 0;
    if (opt.values[FIT_START_WEEKDAY] && fs_cli_parse_count(opt.values[FIT_START_WEEKDAY], 0, 6, &weekday) != 0)
        return fit_usage_error("--start-weekday: expected 0 (Monday) to 6 (Sunday)");

    fs_error err = {0};
    fs_fit_acc acc = {0}; /* fini-able whether or not a reader got to initialise it */
    int rc = fit_read(&opt, path, (int)weekday, window_s, &acc, &err);
    static fs_fit fit; /* 2 KiB of cells and bursts: off the stack */
    if (rc == FS_OK)
        rc = fs_fit_compute(&acc, &fit, &err);
    if (rc != FS_OK) {
        fs_fit_acc_fini(&acc);
        /* The fit's own messages do not know the file. */
        if (strncmp(err.msg, path, strlen(path)) != 0) {
            fs_error named = err;
            snprintf(named.msg, sizeof named.msg, "%.200s: %.800s", path, err.msg);
            err = named;
        }
        return fit_fail(rc, &err);
    }
    if (acc.calendar && opt.values[FIT_START_WEEKDAY])
        fprintf(stderr, "fleetsim: fit-traffic: --start-weekday ignored: the dates give the weekday\n");
    status = fit_print(format, path, &acc, &fit, NULL);
    fs_fit_acc_fini(&acc);
    return status;
}

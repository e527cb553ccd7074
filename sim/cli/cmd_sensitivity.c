/*
 * fleetsim sensitivity: which inputs move a figure most (sensitivity.h
 * designs and computes; study.h runs and keeps the simulations, so a rerun
 * with the same --out reuses every run it already made).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "commands.h"
#include "edits.h"
#include "help.h"
#include "jsonpath.h"
#include "options.h"
#include "output.h"
#include "plan.h"
#include "sensitivity.h"
#include "sensitivity_table.h"
#include "study.h"
#include "sweep.h"
#include "terminal.h"

#define FS_COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

enum { SE_VARY, SE_VARY_ALL, SE_METRIC, SE_POLICY, SE_SET, SE_HORIZON, SE_WARMUP, SE_WINDOW, SE_WINDOW_ANCHOR,
       SE_REPLICATIONS, SE_SEED, SE_JOBS, SE_OUT, SE_QUIET, SE_HELP };
static const fs_edits_which sens_edits = {.set = SE_SET, .horizon = SE_HORIZON, .warmup = SE_WARMUP,
                                          .window = SE_WINDOW, .window_anchor = SE_WINDOW_ANCHOR};
static const fs_cli_option sens_options[] = {
    [SE_VARY] = {"vary", 'v', "PATH=LOW..HIGH", "an input and its low and high values (or LOW,HIGH); repeat"},
    [SE_VARY_ALL] = {"vary-all", 0, "PATH+-P%", "every number under PATH, P% either side (or PATH\xc2\xb1P%); repeat"},
    [SE_METRIC] = {"metric", 'm', "FIGURE", "the figure to explain, e.g. service:chat.p99 or fleet.cost_usd"},
    [SE_POLICY] = {"policy", 'p', "NAME", "the policy to run (default: the scenario's first)"},
    [SE_SET] = FS_EDITS_ROW_SET, [SE_HORIZON] = FS_EDITS_ROW_HORIZON, [SE_WARMUP] = FS_EDITS_ROW_WARMUP,
    [SE_WINDOW] = FS_EDITS_ROW_WINDOW, [SE_WINDOW_ANCHOR] = FS_EDITS_ROW_WINDOW_ANCHOR,
    [SE_REPLICATIONS] = {"replications", 'r', "R", "replications of every point (default 3, at least 2)"},
    [SE_SEED] = {"seed", 's', "N", "base seed (default: the scenario's)"},
    [SE_JOBS] = {"jobs", 'j', "N", "simulations at once (default: every core it may use)"},
    [SE_OUT] = {"out", 'o', "DIR", "sensitivity.json, .csv and the runs (default: SCENARIO.sensitivity)"},
    [SE_QUIET] = {"quiet", 'q', NULL, "no progress lines"},
    [SE_HELP] = {"help", 'h', NULL, "show this help"},
};
const fs_cli_table fs_cli_sensitivity_options = {sens_options, FS_COUNT(sens_options), NULL};

typedef struct fs__sens_ctx {
    const fs_sweep *sw;
    const char *dir;
    const char *metric;   /* resolved */
    char **refused;       /* per point: why its replicas fit nowhere (NULL: they fit) */
} fs__sens_ctx;

/* The figure named metric in one run, NaN when it has none (no data, or
 * the point refused). */
static double fs__figure(const fs_metrics *m, const char *metric, fs_error *err, int *rc)
{
    fs_metric_row row = {0};
    *rc = m->refused ? FS_OK : fs_metric_row_summarize(m, 1, &row, err);
    size_t i = *rc == FS_OK && !m->refused ? fs_metric_row_find(&row, metric) : SIZE_MAX;
    double v = i == SIZE_MAX ? NAN : row.value[i];
    fs_metric_row_fini(&row);
    return v;
}

static int fs__evaluate(void *arg, size_t point, uint32_t rep, double *value, fs_error *err)
{
    fs__sens_ctx *ctx = arg;
    fs_metrics m = {0};
    int rc = fs_study_load(ctx->sw, ctx->dir, point, rep, &m, err);
    if (rc == FS_OK)
        *value = fs__figure(&m, ctx->metric, err, &rc);
    if (rc == FS_OK && m.refused && !ctx->refused[point] && !(ctx->refused[point] = strdup(m.refused)))
        rc = fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
    fs_metrics_fini(&m);
    return rc;
}

/* Resolves the metric against one run of the base point, made here in
 * memory before anything is written: a name that is no figure is refused
 * with the nearest one and no output.  *resolved: the row's own string,
 * copied. */
static int fs__resolve(const fs_sweep *sw, const char *name, char **resolved, fs_error *err)
{
    json_t *work = fs_sweep_work_doc(sw);
    fs_metrics m = {0};
    fs_metric_row row = {0};
    int rc = work ? fs_sweep_run(sw, work, 0, 0, &m, err) : fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
    json_decref(work);
    if (rc == FS_OK && m.refused)
        rc = fs_error_set(err, FS_ERR_INPUT, "the scenario as written cannot start: %s", m.refused);
    if (rc == FS_OK)
        rc = fs_metric_row_summarize(&m, 1, &row, err);
    if (rc == FS_OK) {
        const char *found = fs_plan_resolve_name(&row, name);
        if (!found)
            rc = fs_plan_unknown_figure(&row, "--metric", name, err);
        else if (!(*resolved = strdup(found))) {
            rc = fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
        }
    }
    fs_metric_row_fini(&row);
    fs_metrics_fini(&m);
    return rc;
}

/* The inputs (--vary and --vary-all, in the order given) after the edits,
 * so every input's base is its edited value. */
static int fs__build(const fs_cli_parsed *opt, fs_sweep *sw, fs_sensitivity *s, fs_error *err)
{
    int rc = fs_edits_apply(sw, opt, &sens_edits, false, err);
    for (int k = 0; k < opt->n_given && rc == FS_OK; k++) {
        if (opt->given[k].option == SE_VARY) {
            rc = fs_sensitivity_add_spec(s, sw, opt->given[k].value, err);
        } else if (opt->given[k].option == SE_VARY_ALL) {
            size_t skipped = 0;
            rc = fs_sensitivity_add_all(s, sw, opt->given[k].value, &skipped, err);
            if (rc == FS_OK && skipped && !opt->values[SE_QUIET])
                fs_terminal_say(stderr, "fleetsim sensitivity: --vary-all %s: %zu integer(s) left alone (the "
                                        "change rounds to nothing)",
                                opt->given[k].value, skipped);
        }
    }
    return rc;
}

/* The policy to run: --policy (one of the scenario's) or the first. */
static int fs__policy(fs_sweep *sw, const char *given, const char **policy, fs_error *err)
{
    *policy = sw->policies[0];
    if (given) {
        const char *near = fs_jpath_closest(given, (const char *const *)sw->policies, sw->n_policies);
        size_t p = 0;
        for (; p < sw->n_policies && strcmp(sw->policies[p], given) != 0; p++)
            ;
        if (p == sw->n_policies)
            return fs_error_set(err, FS_ERR_INPUT, "--policy \"%s\": no such policy in %s%s%s%s", given,
                                sw->scenario_origin, near ? "; did you mean \"" : "", near ? near : "",
                                near ? "\"?" : "");
        *policy = sw->policies[p];
    }
    /* One policy of several: a policy dimension of one value, so the sweep
     * does not add one of every policy. */
    if (sw->n_policies < 2)
        return FS_OK;
    json_t *one = json_pack("[s]", *policy);
    return one ? fs_sweep_add_dim(sw, FS_SWEEP_POLICY_PATH, one, false, err)
               : fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
}

/* A refused end of an input says why in the document ("values": {"low":
 * {"value": null, "refused": why}}), so the table says refused, not only
 * no data. */
static int fs__note_refused(const fs_sensitivity *s, char *const *refused, json_t *doc, fs_error *err)
{
    json_t *inputs = json_object_get(doc, "inputs");
    for (size_t i = 0; i < s->n_inputs; i++)
        for (int level = FS_SENSITIVITY_LOW; level <= FS_SENSITIVITY_HIGH; level += 2) {
            const char *why = refused[fs_sensitivity_point(i, (fs_sensitivity_level)level)];
            json_t *values = json_object_get(json_array_get(inputs, s->inputs[i].rank - 1), "values");
            json_t *at = json_object_get(values, level == FS_SENSITIVITY_LOW ? "low" : "high");
            if (why && json_object_set_new(at, "refused", json_string(why)) != 0)
                return fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
        }
    return FS_OK;
}

static int fs__write(const json_t *doc, const char *dir, fs_error *err)
{
    fs_output out;
    FILE *fp, *csv;
    int rc = fs_output_begin(&out, dir, err);
    if (rc != FS_OK)
        return rc;
    if ((rc = fs_output_open(&out, "sensitivity.json", &fp, err)) != FS_OK ||
        (rc = fs_output_open(&out, "sensitivity.csv", &csv, err)) != FS_OK ||
        (rc = json_dumpf(doc, fp, JSON_INDENT(1) | JSON_REAL_PRECISION(17)) == 0 && fputc('\n', fp) != EOF
                  ? FS_OK
                  : fs_error_set(err, FS_ERR_RUNTIME, "cannot write sensitivity.json")) != FS_OK ||
        (rc = fs_sensitivity_csv(doc, csv, err)) != FS_OK) {
        fs_output_abort(&out);
        return rc;
    }
    return fs_output_commit(&out, err);
}

/* Everything after the options are read: FS_OK or an error code with err;
 * *forgot: the exit status of removing an earlier report's pages. */
static int fs__sensitivity(const fs_cli_parsed *opt, uint32_t reps, unsigned jobs, const uint64_t *seed,
                           int *forgot, fs_error *err)
{
    fs_sweep *sw;
    int rc = fs_sweep_create(opt->positional[0], &sw, err);
    if (rc != FS_OK)
        return rc;
    if (seed)
        sw->seed = *seed;
    fs_sensitivity s = {.replications = reps};
    const char *policy = NULL;
    char *metric = NULL;
    json_t *doc = NULL;
    rc = fs__build(opt, sw, &s, err);
    if (rc == FS_OK && s.n_inputs == 0)
        rc = fs_error_set(err, FS_ERR_INPUT, "sensitivity: expected at least one --vary or --vary-all");
    if (rc == FS_OK)
        rc = fs_sensitivity_design(&s, sw, err);
    if (rc == FS_OK)
        rc = fs__policy(sw, opt->values[SE_POLICY], &policy, err);
    if (rc == FS_OK)
        rc = fs_sweep_finish(sw, err);
    if (rc == FS_OK)
        rc = fs_sweep_check_runs(sw, reps, err);
    sw->replications = reps;
    if (rc == FS_OK)
        rc = fs__resolve(sw, opt->values[SE_METRIC], &metric, err);
    char dir[4096];
    fs_cli_out_dir(opt->values[SE_OUT], opt->positional[0], ".sensitivity", dir, sizeof dir);
    if (rc == FS_OK)
        rc = fs_study_open(sw, dir, err);
    fs_study_unit *units = rc == FS_OK ? calloc(sw->n_points * reps, sizeof *units) : NULL;
    if (rc == FS_OK && !units)
        rc = fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
    /* Point by point, as fs_study_run counts points done. */
    for (size_t k = 0; units && k < sw->n_points * reps; k++)
        units[k] = (fs_study_unit){.point = k / reps, .replication = (uint32_t)(k % reps)};
    uint64_t ran;
    fs_study_options so = {.jobs = jobs, .quiet = opt->values[SE_QUIET] != NULL, .label = "sensitivity"};
    if (rc == FS_OK)
        rc = fs_study_run(sw, dir, units, sw->n_points * reps, &so, &ran, err);
    free(units);
    fs__sens_ctx ctx = {.sw = sw, .dir = dir, .metric = metric, .refused = calloc(sw->n_points, sizeof(char *))};
    if (rc == FS_OK && !ctx.refused)
        rc = fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
    if (rc == FS_OK)
        rc = fs_sensitivity_compute(&s, fs__evaluate, &ctx, err);
    if (rc == FS_OK && !(doc = fs_sensitivity_to_json(&s, sw->scenario_origin, metric, policy, sw->seed)))
        rc = fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
    if (rc == FS_OK)
        rc = fs__note_refused(&s, ctx.refused, doc, err);
    for (size_t p = 0; ctx.refused && p < sw->n_points; p++)
        free(ctx.refused[p]);
    free(ctx.refused);
    if (rc == FS_OK)
        rc = fs__write(doc, dir, err);
    /* A report on an earlier study (DIR/report) describes another one. */
    if (rc == FS_OK)
        *forgot = fs_cli_forget_pages(dir, NULL, NULL);
    if (rc == FS_OK)
        rc = fs_sensitivity_table(doc, stdout, err);
    if (rc == FS_OK && !so.quiet)
        fs_terminal_say(stderr, "fleetsim sensitivity: %s/sensitivity.json, sensitivity.csv", dir);
    json_decref(doc);
    free(metric);
    fs_sensitivity_fini(&s);
    fs_sweep_destroy(sw);
    return rc;
}

int fs_cli_sensitivity(int argc, char **argv)
{
    fs_cli_parsed opt;
    int status = fs_cli_help_parse("sensitivity", argc, argv, &opt);
    if (status >= 0)
        return status;
    if (opt.n_positional != 1) {
        fprintf(stderr, "fleetsim sensitivity: expected one SCENARIO file, got %d (see 'fleetsim sensitivity "
                        "--help')\n",
                opt.n_positional);
        return FS_EXIT_USAGE;
    }
    if (!opt.values[SE_METRIC]) {
        fprintf(stderr, "fleetsim sensitivity: expected --metric FIGURE, e.g. service:chat.p99\n");
        return FS_EXIT_USAGE;
    }
    unsigned jobs;
    uint64_t reps = 3, seed = 0;
    const char *v;
    if (fs_cli_jobs("sensitivity", opt.values[SE_JOBS], &jobs) != 0)
        return FS_EXIT_USAGE;
    if ((v = opt.values[SE_REPLICATIONS]) && fs_cli_parse_count(v, 2, 10000, &reps) != 0) {
        fs_terminal_say(stderr, "fleetsim sensitivity: --replications: expected an integer from 2 to 10000, got "
                                "\"%s\"",
                        v);
        return FS_EXIT_USAGE;
    }
    if ((v = opt.values[SE_SEED]) && fs_cli_parse_count(v, 0, INT64_MAX, &seed) != 0) {
        fs_terminal_say(stderr, "fleetsim sensitivity: --seed: expected a non-negative integer, got \"%s\"", v);
        return FS_EXIT_USAGE;
    }
    fs_error err = {0};
    int forgot = FS_EXIT_OK;
    int rc = fs__sensitivity(&opt, (uint32_t)reps, jobs, opt.values[SE_SEED] ? &seed : NULL, &forgot, &err);
    if (rc != FS_OK)
        fs_terminal_error(err.msg);
    return rc == FS_OK ? forgot : rc == FS_ERR_INPUT ? FS_EXIT_USAGE : FS_EXIT_RUNTIME;
}

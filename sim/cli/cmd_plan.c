/*
 * fleetsim plan: the cheapest fleet that meets every constraint (plan.h
 * judges and searches; study.h runs and keeps the simulations, so a plan
 * rerun with the same --out reuses every run it already made).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "commands.h"
#include "edits.h"
#include "help.h"
#include "options.h"
#include "output.h"
#include "plan.h"
#include "study.h"
#include "sweep.h"
#include "sweep_table.h"
#include "terminal.h"

#define FS_COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

enum { PL_VARY, PL_CONSTRAINT, PL_MINIMIZE, PL_FRONTIER, PL_SET, PL_HORIZON, PL_WARMUP, PL_WINDOW, PL_WINDOW_ANCHOR,
       PL_REPLICATIONS, PL_MAX_REPLICATIONS, PL_SEARCH, PL_SEED, PL_JOBS, PL_OUT, PL_QUIET, PL_HELP };
static const fs_edits_which plan_edits = {.set = PL_SET, .horizon = PL_HORIZON, .warmup = PL_WARMUP,
                                          .window = PL_WINDOW, .window_anchor = PL_WINDOW_ANCHOR};
static const fs_cli_option plan_options[] = {
    [PL_VARY] = {"vary", 'v', "PATH=VALUES", "a dimension: FROM..TO[:STEP] (monotone) or a,b,c or a JSON list; repeat"},
    [PL_CONSTRAINT] = {"constraint", 'c', "EXPR", "e.g. 'service:chat.p99<=250ms', 'fleet.peak_headroom>=0.4'; repeat"},
    [PL_MINIMIZE] = {"minimize", 0, "FIGURE", "what to minimize (default cost, i.e. fleet.cost_usd)"},
    [PL_FRONTIER] = {"frontier", 0, "FIGURE", "the frontier's latency axis (default: the first p99 constrained)"},
    [PL_SET] = FS_EDITS_ROW_SET, [PL_HORIZON] = FS_EDITS_ROW_HORIZON, [PL_WARMUP] = FS_EDITS_ROW_WARMUP,
    [PL_WINDOW] = FS_EDITS_ROW_WINDOW, [PL_WINDOW_ANCHOR] = FS_EDITS_ROW_WINDOW_ANCHOR,
    [PL_REPLICATIONS] = {"replications", 'r', "R", "replications to judge a point with first (default 3, at least 2)"},
    [PL_MAX_REPLICATIONS] = {"max-replications", 0, "R", "most replications for a point near a limit (default 12)"},
    [PL_SEARCH] = {"search", 0, "HOW", "staircase (default: binary search along ranges) or grid (every point)"},
    [PL_SEED] = {"seed", 's', "N", "base seed (default: the scenario's)"},
    [PL_JOBS] = {"jobs", 'j', "N", "simulations at once (default: every core it may use)"},
    [PL_OUT] = {"out", 'o', "DIR", "plan.json, plan.csv, frontier.csv and the runs (default: SCENARIO.plan)"},
    [PL_QUIET] = {"quiet", 'q', NULL, "no progress lines"},
    [PL_HELP] = {"help", 'h', NULL, "show this help"},
};

static const char *const plan_choices[FS_COUNT(plan_options)] = {[PL_SEARCH] = "staircase grid"};
const fs_cli_table fs_cli_plan_options = {plan_options, FS_COUNT(plan_options), plan_choices};

typedef struct fs__plan_ctx {
    const fs_sweep *sw;
    const char *dir;
    fs_study_options so;
    bool quiet;
} fs__plan_ctx;

static int fs__evaluate(void *arg, size_t point, uint32_t reps, fs_metric_row *row, fs_error *err)
{
    fs__plan_ctx *ctx = arg;
    fs_study_unit *units = malloc(reps * sizeof *units);
    if (!units)
        return fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
    for (uint32_t k = 0; k < reps; k++)
        units[k] = (fs_study_unit){.point = point, .replication = k};
    uint64_t ran;
    int rc = fs_study_run(ctx->sw, ctx->dir, units, reps, &ctx->so, &ran, err);
    free(units);
    const char *dirs[1] = {ctx->dir};
    if (rc == FS_OK)
        rc = fs_study_row(ctx->sw, dirs, 1, point, reps, row, err);
    if (rc == FS_OK && !ctx->quiet) {
        char label[512];
        fs_sweep_point_label(ctx->sw, point, label, sizeof label);
        fprintf(stderr, "plan: point %zu (", point);
        fs_terminal_write(stderr, label);
        fprintf(stderr, "): %u replications%s", reps, row->refused ? ", refused: " : "");
        fs_terminal_write(stderr, row->refused ? row->refused : "");
        fputc('\n', stderr);
    }
    return rc;
}

static int fs__write(const fs_plan *plan, const char *dir, uint64_t grid_runs, fs_error *err)
{
    fs_output out;
    FILE *json, *csv, *front;
    int rc = fs_output_begin(&out, dir, err);
    if (rc != FS_OK)
        return rc;
    if ((rc = fs_output_open(&out, "plan.json", &json, err)) != FS_OK ||
        (rc = fs_output_open(&out, "plan.csv", &csv, err)) != FS_OK ||
        (rc = fs_output_open(&out, "frontier.csv", &front, err)) != FS_OK ||
        (rc = fs_plan_write_json(plan, grid_runs, json, err)) != FS_OK ||
        (rc = fs_plan_write_csv(plan, csv, err)) != FS_OK || (rc = fs_plan_write_frontier(plan, front, err)) != FS_OK) {
        fs_output_abort(&out);
        return rc;
    }
    return fs_output_commit(&out, err);
}

static int fs__build(const fs_cli_parsed *opt, fs_sweep *sw, fs_plan *plan, fs_error *err)
{
    char path[512];
    const char *text;
    /* The edits first: every point, and each --vary's check of its path, sees them. */
    int rc = fs_edits_apply(sw, opt, &plan_edits, false, err);
    for (int k = 0; k < opt->n_given && rc == FS_OK; k++) {
        int which = opt->given[k].option;
        if (which == PL_VARY) {
            if (fs_edits_split(opt->given[k].value, path, sizeof path, &text) != 0)
                return fs_error_set(err, FS_ERR_INPUT, "--vary: expected PATH=VALUES, got \"%s\"",
                                    opt->given[k].value);
            json_t *values;
            bool range;
            fs_error verr = {0};
            rc = fs_sweep_parse_values(text, &values, &range, &verr);
            if (rc != FS_OK)
                rc = fs_error_set(err, rc, "--vary %s: %s", path, verr.msg);
            else
                rc = fs_sweep_add_dim(sw, path, values, range, err);
        } else if (which == PL_CONSTRAINT) {
            fs_constraint *more = realloc(plan->constraints, (plan->n_constraints + 1) * sizeof *more);
            if (!more)
                return fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
            plan->constraints = more;
            rc = fs_constraint_parse(opt->given[k].value, &plan->constraints[plan->n_constraints], err);
            if (rc == FS_OK)
                plan->n_constraints++;
        }
    }
    return rc;
}

int fs_cli_plan(int argc, char **argv)
{
    fs_cli_parsed opt;
    int status = fs_cli_help_parse("plan", argc, argv, &opt);
    if (status >= 0)
        return status;
    if (opt.n_positional != 1) {
        fprintf(stderr, "fleetsim plan: expected one SCENARIO file, got %d (see 'fleetsim plan --help')\n",
                opt.n_positional);
        return FS_EXIT_USAGE;
    }
    if (!opt.values[PL_VARY]) {
        fprintf(stderr, "fleetsim plan: expected at least one --vary PATH=VALUES\n");
        return FS_EXIT_USAGE;
    }
    unsigned jobs;
    uint64_t reps = 3, max_reps = 12, seed = 0;
    const char *v;
    if (fs_cli_jobs("plan", opt.values[PL_JOBS], &jobs) != 0)
        return FS_EXIT_USAGE;
    if ((v = opt.values[PL_REPLICATIONS]) && fs_cli_parse_count(v, 2, 10000, &reps) != 0) {
        fs_terminal_say(stderr, "fleetsim plan: --replications: expected an integer from 2 to 10000, got \"%s\"", v);
        return FS_EXIT_USAGE;
    }
    if ((v = opt.values[PL_MAX_REPLICATIONS]) && fs_cli_parse_count(v, 2, 10000, &max_reps) != 0) {
        fs_terminal_say(stderr, "fleetsim plan: --max-replications: expected an integer from 2 to 10000, got \"%s\"", v);
        return FS_EXIT_USAGE;
    }
    if ((v = opt.values[PL_SEED]) && fs_cli_parse_count(v, 0, INT64_MAX, &seed) != 0) {
        fs_terminal_say(stderr, "fleetsim plan: --seed: expected a non-negative integer, got \"%s\"", v);
        return FS_EXIT_USAGE;
    }
    const char *search = opt.values[PL_SEARCH] ? opt.values[PL_SEARCH] : "staircase";
    if (fs_cli_choice(&fs_cli_plan_options, PL_SEARCH, search) < 0) {
        fs_terminal_say(stderr, "fleetsim plan: --search: expected staircase or grid, got \"%s\"", search);
        return FS_EXIT_USAGE;
    }
    fs_error err = {0};
    fs_sweep *sw;
    int rc = fs_sweep_create(opt.positional[0], &sw, &err);
    if (rc != FS_OK) {
        fs_terminal_error(err.msg);
        return rc == FS_ERR_INPUT ? FS_EXIT_USAGE : FS_EXIT_RUNTIME;
    }
    fs_plan plan = {.sweep = sw, .replications = (uint32_t)reps,
                    .max_replications = (uint32_t)(max_reps > reps ? max_reps : reps),
                    .grid = strcmp(search, "grid") == 0};
    if (opt.values[PL_SEED])
        sw->seed = seed;
    rc = fs__build(&opt, sw, &plan, &err);
    if (rc == FS_OK && plan.n_constraints == 0)
        rc = fs_error_set(&err, FS_ERR_INPUT, "plan: expected at least one --constraint");
    if (rc == FS_OK && ((opt.values[PL_MINIMIZE] && !(plan.minimize = strdup(opt.values[PL_MINIMIZE]))) ||
                        (opt.values[PL_FRONTIER] && !(plan.frontier = strdup(opt.values[PL_FRONTIER])))))
        rc = fs_error_set(&err, FS_ERR_RUNTIME, "out of memory");
    if (rc == FS_OK)
        rc = fs_sweep_finish(sw, &err);
    /* --search grid runs every point; the staircase a few along each range. */
    if (rc == FS_OK && plan.grid)
        rc = fs_sweep_check_runs(sw, plan.replications, &err);
    sw->replications = plan.replications;
    char dir[4096];
    fs_cli_out_dir(opt.values[PL_OUT], opt.positional[0], ".plan", dir, sizeof dir);
    if (rc == FS_OK)
        rc = fs_study_open(sw, dir, &err);
    fs__plan_ctx ctx = {.sw = sw, .dir = dir, .quiet = opt.values[PL_QUIET] != NULL,
                        .so = {.jobs = jobs, .quiet = true, .label = "plan"}};
    if (rc == FS_OK)
        rc = fs_plan_search(&plan, fs__evaluate, &ctx, &err);
    uint64_t grid_runs = (uint64_t)sw->n_points * plan.replications;
    if (rc == FS_OK)
        rc = fs__write(&plan, dir, grid_runs, &err);
    /* A report on an earlier plan (DIR/report) describes another plan. */
    int forgot = rc == FS_OK ? fs_cli_forget_pages(dir, NULL, NULL) : FS_EXIT_OK;
    if (rc == FS_OK)
        rc = fs_plan_print(&plan, grid_runs, stdout, &err);
    status = rc == FS_OK ? forgot : rc == FS_ERR_INPUT ? FS_EXIT_USAGE : FS_EXIT_RUNTIME;
    if (rc != FS_OK)
        fs_terminal_error(err.msg);
    else if (!ctx.quiet)
        fs_terminal_say(stderr, "fleetsim plan: %s/plan.json, plan.csv, frontier.csv", dir);
    fs_plan_fini(&plan);
    fs_sweep_destroy(sw);
    return status;
}

/*
 * fleetsim — the command line.  The composition root: the only code that sees
 * the engine, the domain (models/) and the reports together.  main() finds
 * the command in the help registry (help.h); run, compare, report and
 * validate live here, the other commands in cmd_*.c.
 *
 * stdout carries only what was asked for (table, JSON, CSV); diagnostics go
 * to stderr as "fleetsim: ...".  Exit status: 0 success, 1 runtime failure,
 * 2 usage or scenario error.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "duration.h"
#include "commands.h"
#include "edits.h"
#include "help.h"
#include "options.h"
#include "compare.h"
#include "report.h"
#include "output.h"
#include "placement.h"
#include "policy.h"
#include "progress.h"
#include "results_csv.h"
#include "results_json.h"
#include "rng.h"
#include "run.h"
#include "scenario.h"
#include "table.h"
#include "terminal.h"
#include "training.h"
#include "window_csv.h"

#define FS_COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* run and compare share their first options (same indices); compare adds
 * --policies. */
enum { RUN_SEED, RUN_REPLICATIONS, RUN_HORIZON, RUN_WARMUP, RUN_WINDOW, RUN_WINDOW_ANCHOR, RUN_SET,
       RUN_MAX_EVENTS, RUN_OUT, RUN_FORMAT, RUN_NO_TIMING, RUN_HELP, RUN_REPORT, RUN_LENIENT, RUN_POLICIES };
static const fs_edits_which run_edits = {.set = RUN_SET, .horizon = RUN_HORIZON, .warmup = RUN_WARMUP,
                                         .window = RUN_WINDOW, .window_anchor = RUN_WINDOW_ANCHOR};
#define FS_RUN_OPTIONS                                                                                          \
    [RUN_SEED] = {"seed", 's', "N", "base seed (overrides the scenario's \"seed\")"},                            \
    [RUN_REPLICATIONS] = {"replications", 'r', "R", "independent replications (overrides \"replications\")"},   \
    [RUN_HORIZON] = FS_EDITS_ROW_HORIZON, [RUN_WARMUP] = FS_EDITS_ROW_WARMUP,                                   \
    [RUN_WINDOW] = FS_EDITS_ROW_WINDOW, [RUN_WINDOW_ANCHOR] = FS_EDITS_ROW_WINDOW_ANCHOR,                      \
    [RUN_SET] = FS_EDITS_ROW_SET, [RUN_MAX_EVENTS] = FS_PROGRESS_ROW_MAX_EVENTS,                                \
    [RUN_NO_TIMING] = {"no-timing", 0, NULL, "leave wall-clock figures out of the JSON (byte-identical reruns)"}, \
    [RUN_HELP] = {"help", 'h', NULL, "show this help"},                                                        \
    [RUN_REPORT] = {"report", 0, "DIR", "also write the HTML/Markdown report with charts to DIR"},              \
    [RUN_LENIENT] = {"lenient", 0, NULL, "skip bad trace rows (counted in the results) instead of failing"}

static const fs_cli_option compare_options[] = {
    FS_RUN_OPTIONS,
    [RUN_OUT] = {"out", 'o', "DIR", "write results.json, compare.json and the time series to DIR"},
    [RUN_FORMAT] = {"format", 'f', "FMT", "what to print: table (default) or json"},
    [RUN_POLICIES] = {"policies", 'p', "LIST", "comma-separated policies to run, the first the baseline (default: all)"},
};
static const char *const compare_choices[FS_COUNT(compare_options)] = {[RUN_FORMAT] = "table json"};
const fs_cli_table fs_cli_compare_options = {compare_options, FS_COUNT(compare_options), compare_choices};

static const fs_cli_option run_options[] = {
    FS_RUN_OPTIONS,
    [RUN_OUT] = {"out", 'o', "DIR", "write results.json, timeseries.csv, pools_timeseries.csv to DIR"},
    [RUN_FORMAT] = {"format", 'f', "FMT", "what to print: table (default), json or csv"},
};
static const char *const run_choices[FS_COUNT(run_options)] = {[RUN_FORMAT] = "table json csv"};
const fs_cli_table fs_cli_run_options = {run_options, FS_COUNT(run_options), run_choices};

enum { REPORT_OUT, REPORT_HELP };
static const fs_cli_option report_options[] = {
    [REPORT_OUT] = {"out", 'o', "DIR", "where to write index.html, report.md and the charts (default RESULTS_DIR/report)"},
    [REPORT_HELP] = {"help", 'h', NULL, "show this help"},
};
const fs_cli_table fs_cli_report_options = {report_options, FS_COUNT(report_options), NULL};

enum { VALIDATE_HELP };
static const fs_cli_option validate_options[] = {
    [VALIDATE_HELP] = {"help", 'h', NULL, "show this help"},
};
const fs_cli_table fs_cli_validate_options = {validate_options, FS_COUNT(validate_options), NULL};

/* The scenario at path, with the command's edits when it has some (NULL: none). */
static int load_scenario(const char *path, const fs_cli_parsed *opt, const fs_edits_which *edits, fs_scenario **s)
{
    fs_error err = {0};
    int rc = edits ? fs_edits_load(path, opt, edits, false, s, &err) : fs_scenario_load(path, s, &err);
    if (rc != FS_OK) {
        fs_terminal_error(err.msg);
        return rc == FS_ERR_INPUT ? FS_EXIT_USAGE : FS_EXIT_RUNTIME;
    }
    return FS_EXIT_OK;
}

/* Every file run and compare write into an --out directory.  Those a run
 * does not write (compare.json, for run) are removed from it, so that what
 * the directory holds comes from one run (output.h). */
static const char *const fs__run_files[] = {"results.json",       "timeseries.csv",   "pools_timeseries.csv",
                                            "training_waits.csv", "slo_breaches.csv", "compare.json",
                                            "llm_timeseries.csv", NULL};

/* json_dump_callback's sink: FNV-1a over each piece (rng.h). */
static int hash_piece(const char *buffer, size_t size, void *data)
{
    uint64_t *h = data;
    *h = fs_rng_hash_piece(*h, buffer, size);
    return 0;
}

/* The run's identity, shared by results.json and compare.json and checked by
 * `fleetsim report`: a 64-bit hash of the results document without its
 * wall-clock figures, so it is the same for the same scenario, seed and
 * options (same seed, same bytes) and differs when any figure differs.  The
 * hash is the engine's string hash (what names its random streams). */
/* The text is hashed as it is written, piece by piece and one service at a
 * time (fs_results_json_emit): held whole, the text was the largest thing a
 * run of 5,000 services allocated (30 MB), and the tree behind it 70 MB. */
static int run_identity(const fs_results *r, char id[17])
{
    uint64_t h = FS_RNG_HASH_START;
    int rc = fs_results_json_emit(r, false, NULL, JSON_COMPACT | JSON_REAL_PRECISION(17), hash_piece, &h);
    if (rc != 0)
        return FS_ERR_RUNTIME;
    snprintf(id, 17, "%016" PRIx64, fs_rng_seed_of_hash(0, 0, h));
    return FS_OK;
}

/* Writes the run's files into an output set opened before the run (so a
 * directory that cannot be created fails in a second, not after the run),
 * which already holds the window tables the run streamed (window_csv.h);
 * compare adds compare.json. */
static int write_outputs(const fs_results *r, fs_output *out, bool timing, bool comparison, char run_id[17])
{
    fs_error err = {0};
    FILE *json, *waits, *cmp = NULL;
    int rc = run_identity(r, run_id) == FS_OK ? FS_OK : fs_error_set(&err, FS_ERR_RUNTIME, "out of memory");
    fs_output_own(out, fs__run_files);
    if (rc != FS_OK || fs_output_open(out, "results.json", &json, &err) != FS_OK ||
        fs_output_open(out, "training_waits.csv", &waits, &err) != FS_OK ||
        (comparison && fs_output_open(out, "compare.json", &cmp, &err) != FS_OK) ||
        fs_results_json_write_run(r, timing, run_id, json, &err) != FS_OK ||
        fs_results_csv_training_waits(r, waits, &err) != FS_OK)
        rc = FS_ERR_RUNTIME;
    if (rc == FS_OK && cmp) {
        json_t *doc = fs_compare_json(r);
        if (!doc || json_object_set_new(doc, "run_id", json_string(run_id)) != 0 ||
            json_dumpf(doc, cmp, JSON_INDENT(2) | JSON_REAL_PRECISION(10)) != 0 || fputc('\n', cmp) == EOF)
            rc = fs_error_set(&err, FS_ERR_RUNTIME, "cannot write compare.json");
        json_decref(doc);
    }
    /* Records read back from the scratch file as the outputs were written
     * (results.h): a failed read left "no data" in them, so nothing is kept. */
    if (rc == FS_OK && fs_results_spill_error(r))
        rc = fs_error_set(&err, FS_ERR_RUNTIME, "cannot read back replication records from the scratch file in $TMPDIR: %s",
                          strerror(fs_results_spill_error(r)));
    if (rc != FS_OK) {
        fs_output_abort(out);
        fs_terminal_error(err.msg);
        return FS_EXIT_RUNTIME;
    }
    if (fs_output_commit(out, &err) != FS_OK) {
        fs_terminal_error(err.msg);
        return FS_EXIT_RUNTIME;
    }
    return FS_EXIT_OK;
}

/* What run and compare share: parsed options, the scenario with the
 * command-line overrides applied, and the output directory opened. */
typedef struct fs__job {
    fs_cli_parsed opt;
    fs_scenario *s;
    const char *format;
    bool timing;
    uint64_t max_events;  /* 0: no limit */
    bool has_out;
    fs_output out;
} fs__job;

/* Returns -1 to go on with *job ready, or the exit status to stop with. */
static int prepare(const char *cmd, const fs_cli_table *table, int argc, char **argv, fs__job *job)
{
    *job = (fs__job){0};
    fs_cli_parsed *opt = &job->opt;
    int status = fs_cli_help_parse(cmd, argc, argv, opt);
    if (status >= 0)
        return status;
    if (opt->n_positional != 1) {
        fprintf(stderr, "fleetsim %s: expected one SCENARIO file, got %d (see 'fleetsim %s --help')\n", cmd,
                opt->n_positional, cmd);
        return FS_EXIT_USAGE;
    }
    uint64_t given;
    int64_t seed = -1, replications = -1;
    const char *v;
    if ((v = opt->values[RUN_SEED]) && fs_cli_parse_count(v, 0, INT64_MAX, &given) != 0) {
        fs_terminal_say(stderr, "fleetsim %s: --seed: expected a non-negative integer, got \"%s\"", cmd, v);
        return FS_EXIT_USAGE;
    }
    if (v)
        seed = (int64_t)given;
    if ((v = opt->values[RUN_REPLICATIONS]) && fs_cli_parse_count(v, 1, 10000, &given) != 0) {
        fs_terminal_say(stderr, "fleetsim %s: --replications: expected an integer from 1 to 10000, got \"%s\"", cmd, v);
        return FS_EXIT_USAGE;
    }
    if (v)
        replications = (int64_t)given;
    if (fs_progress_parse_max(cmd, opt->values[RUN_MAX_EVENTS], &job->max_events) != 0)
        return FS_EXIT_USAGE;
    job->format = opt->values[RUN_FORMAT] ? opt->values[RUN_FORMAT] : "table";
    if (fs_cli_choice(table, RUN_FORMAT, job->format) < 0) {
        fs_terminal_say(stderr, "fleetsim %s: --format: expected one of %s, got \"%s\"", cmd,
                fs_cli_choices(table, RUN_FORMAT), job->format);
        return FS_EXIT_USAGE;
    }
    job->timing = !opt->values[RUN_NO_TIMING];
    status = load_scenario(opt->positional[0], opt, &run_edits, &job->s);
    if (status != FS_EXIT_OK)
        return status;
    fs_error err = {0};
    if (opt->values[RUN_LENIENT])
        fs_scenario_set_lenient(job->s);
    if (fs_scenario_override(job->s, seed, replications, -1, &err) != FS_OK) {
        fs_terminal_error(err.msg);
        fs_scenario_destroy(job->s);
        return FS_EXIT_USAGE;
    }
    /* A page of the user's own where the report would go: refused now, not
     * after the run. */
    if (opt->values[RUN_REPORT] && fs_report_check_out(opt->values[RUN_REPORT], &err) != FS_OK) {
        fs_terminal_error(err.msg);
        fs_scenario_destroy(job->s);
        return err.code == FS_ERR_INPUT ? FS_EXIT_USAGE : FS_EXIT_RUNTIME;
    }
    /* --report without --out keeps the results beside the report. */
    const char *out_dir = opt->values[RUN_OUT] ? opt->values[RUN_OUT] : opt->values[RUN_REPORT];
    if (out_dir) {
        if (fs_output_begin(&job->out, out_dir, &err) != FS_OK) {
            fs_terminal_error(err.msg);
            fs_scenario_destroy(job->s);
            return FS_EXIT_RUNTIME;
        }
        job->has_out = true;
    }
    return -1;
}

/* Each policy's own services: a policy may deploy one with another queue
 * limit ("services" patches). */
static void warn_overloaded(const fs_results *r)
{
    for (size_t p = 0; p < r->n_policies; p++) {
        const fs_scenario *s = r->policies[p].scenario;
        for (size_t i = 0; i < s->n_services; i++)
            if (r->policies[p].loads[i].offered_load >= 1.0) {
                fs_error w;
                fs_error_set(&w, FS_OK,
                             "warning: policy \"%s\": service \"%s\" is overloaded (offered load %.2f): %s",
                             r->policies[p].name, s->services[i].name, r->policies[p].loads[i].offered_load,
                             s->services[i].queue_limit == FS_QUEUE_UNLIMITED
                                 ? "its queue grew without bound"
                                 : "its queue sits at the limit and the excess is dropped");
                fs_terminal_error(w.msg);
            }
    }
}

/* A replayed trace that gave no row (only --lenient lets an empty or
 * header-only file, or one whose every row is bad, get this far): the
 * figures of what it fed describe no traffic, which the user must be told.
 * Request traces and job traces alike. */
static void warn_empty_trace(const char *kind, const char *name, const fs_trace_spec *trace, uint64_t rows,
                             uint64_t skipped, const char *nothing)
{
    if (trace != NULL && rows == 0)
        fs_terminal_say(stderr,
                        "fleetsim: warning: %s \"%s\": trace %s replayed no rows (%" PRIu64 " skipped as bad): %s",
                        kind, name, trace->path, skipped, nothing);
}

static void warn_empty_traces(const fs_results *r)
{
    const fs_scenario *s = r->scenario;
    if (r->n_policies == 0 || r->policies[0].n_reps == 0)
        return;
    const fs_rep_result *rep = &r->policies[0].reps[0];
    for (size_t i = 0; i < s->n_services; i++) {
        const fs_service_rep *sr = fs_rep_service(rep, i);
        warn_empty_trace("service", s->services[i].name, sr->traced ? s->services[i].arrivals.trace : NULL,
                         sr->trace_rows, sr->trace_skipped, "the service had no traffic");
    }
    for (size_t i = 0; i < s->n_training; i++)
        warn_empty_trace("training", s->training[i].name, rep->training[i].traced ? s->training[i].trace : NULL,
                         rep->training[i].trace_rows, rep->training[i].trace_skipped,
                         "the stream submitted no jobs");
}

/* No page may describe a run its directory no longer holds (commands.h). */
int fs_cli_forget_pages(const char *results_dir, const char *report_dir, const char *known_run_id)
{
    fs_error warn, err = {0};
    if (fs_report_forget(results_dir, report_dir, known_run_id, &warn, &err) != FS_OK) {
        fs_terminal_error(err.msg);
        return err.code == FS_ERR_INPUT ? FS_EXIT_USAGE : FS_EXIT_RUNTIME;
    }
    if (warn.msg[0])
        fs_terminal_say(stderr, "fleetsim: warning: %s", warn.msg);
    return FS_EXIT_OK;
}

/* Runs the job (all policies, or the listed ones), writes --out, prints. */
static int execute(fs__job *job, bool comparison)
{
    fs_error err = {0};
    fs_results *r = NULL;
    int rc = FS_OK;
    /* The windows stream to their tables in --out as the run goes, so memory
     * does not grow with them; without --out nothing reads a window row (the
     * figures taken from windows are kept as they close) and they go nowhere. */
    fs_window_csv *tables = NULL;
    fs_window_sink windows = {0};
    if (job->has_out) {
        rc = fs_window_csv_begin(&job->out, &tables, &err);
        if (rc == FS_OK)
            windows = fs_window_csv_sink(tables);
    }
    const char *list = job->opt.values[RUN_POLICIES];
    if (rc != FS_OK) {
        /* err says why the tables could not be opened */
    } else if (comparison && list) {
        char *copy = strdup(list);
        const char *names[64];
        size_t n = 0;
        for (char *tok = copy ? strtok(copy, ",") : NULL; tok && n < 64; tok = strtok(NULL, ","))
            names[n++] = tok;
        rc = copy ? fs_progress_run(job->s, names, n, job->max_events, &windows, &r, &err)
                  : fs_error_set(&err, FS_ERR_RUNTIME, "out of memory");
        free(copy);
    } else {
        rc = fs_progress_run(job->s, NULL, 0, job->max_events, &windows, &r, &err);
    }
    if (tables) {
        fs_error end_err = {0};
        if (fs_window_csv_end(tables, &end_err) != FS_OK && rc == FS_OK) {
            err = end_err;
            rc = FS_ERR_RUNTIME;
            fs_results_destroy(r);
            r = NULL;
        }
    }
    if (rc != FS_OK) {
        fs_terminal_error(err.msg);
        if (job->has_out)
            fs_output_abort(&job->out);
        fs_scenario_destroy(job->s);
        return rc == FS_ERR_INPUT ? FS_EXIT_USAGE : FS_EXIT_RUNTIME;
    }
    warn_overloaded(r);
    warn_empty_traces(r);
    char run_id[17];
    int status = job->has_out ? write_outputs(r, &job->out, job->timing, comparison, run_id) : FS_EXIT_OK;
    const char *report_dir = job->opt.values[RUN_REPORT];
    const char *results_dir = job->opt.values[RUN_OUT] ? job->opt.values[RUN_OUT] : report_dir;
    /* The run_id just written: reading results.json back for it would hold
     * the whole document's tree (60 MB at 5,000 services). */
    if (status == FS_EXIT_OK && job->has_out)
        status = fs_cli_forget_pages(results_dir, report_dir, run_id);
    if (status == FS_EXIT_OK && report_dir) {
        if (fs_report_write(results_dir, report_dir, &err) != FS_OK) {
            fs_terminal_error(err.msg);
            status = FS_EXIT_RUNTIME;
        }
    }
    if (status == FS_EXIT_OK) {
        if (comparison && strcmp(job->format, "json") == 0) {
            json_t *doc = fs_compare_json(r);
            rc = doc && json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(10)) == 0 &&
                         fputc('\n', stdout) != EOF
                     ? FS_OK
                     : fs_error_set(&err, FS_ERR_RUNTIME, "cannot write the comparison");
            json_decref(doc);
        } else if (comparison) {
            rc = fs_compare_table(r, stdout, &err);
        } else if (strcmp(job->format, "json") == 0) {
            rc = fs_results_json_write(r, job->timing, stdout, &err);
        } else if (strcmp(job->format, "csv") == 0) {
            rc = fs_results_csv_summary(r, stdout, &err);
        } else {
            rc = fs_table_write(r, stdout, &err);
        }
        if (rc != FS_OK || fflush(stdout) != 0) {
            fs_terminal_error(rc != FS_OK ? err.msg : "cannot write to standard output");
            status = FS_EXIT_RUNTIME;
        }
    }
    fs_results_destroy(r);
    fs_scenario_destroy(job->s);
    return status;
}

int fs_cli_run(int argc, char **argv)
{
    fs__job job;
    int status = prepare("run", &fs_cli_run_options, argc, argv, &job);
    return status >= 0 ? status : execute(&job, false);
}

int fs_cli_compare(int argc, char **argv)
{
    fs__job job;
    int status = prepare("compare", &fs_cli_compare_options, argc, argv, &job);
    return status >= 0 ? status : execute(&job, true);
}

int fs_cli_report(int argc, char **argv)
{
    fs_cli_parsed opt;
    int status = fs_cli_help_parse("report", argc, argv, &opt);
    if (status >= 0)
        return status;
    if (opt.n_positional != 1) {
        fprintf(stderr, "fleetsim report: expected one RESULTS_DIR, got %d (see 'fleetsim report --help')\n",
                opt.n_positional);
        return FS_EXIT_USAGE;
    }
    char *dir = NULL;
    const char *out = opt.values[REPORT_OUT];
    if (!out) {
        size_t n = strlen(opt.positional[0]) + sizeof "/report";
        if ((dir = malloc(n)))
            snprintf(dir, n, "%s/report", opt.positional[0]);
        out = dir;
    }
    fs_error err = {0};
    int rc = out ? fs_report_write(opt.positional[0], out, &err) : fs_error_set(&err, FS_ERR_RUNTIME, "out of memory");
    if (rc != FS_OK) {
        fs_terminal_error(err.msg);
        free(dir);
        return rc == FS_ERR_INPUT ? FS_EXIT_USAGE : FS_EXIT_RUNTIME;
    }
    /* Pages of other results beside the ones just read (an older fleetsim's
     * run, files copied in) go too. */
    status = fs_cli_forget_pages(opt.positional[0], out, NULL);
    if (status != FS_EXIT_OK) {
        free(dir);
        return status;
    }
    printf("report written to ");
    fs_terminal_write(stdout, out);
    printf("/index.html and ");
    fs_terminal_write(stdout, out);
    printf("/report.md\n");
    free(dir);
    return FS_EXIT_OK;
}

/* Appends the formatted text to the string in buf (cut at size). */
__attribute__((format(printf, 3, 4))) static void fs__append(char *buf, size_t size, const char *fmt, ...)
{
    size_t len = strlen(buf);
    va_list ap;
    va_start(ap, fmt);
    if (len < size)
        vsnprintf(buf + len, size - len, fmt, ap);
    va_end(ap);
}

/* validate's line for service i of variant v, names as they are (the caller
 * prints it through fs_terminal_write): where it runs and how, so that two
 * policies that deploy it differently give different lines. */
static void fs__service_line(const fs_scenario *v, size_t i, char *buf, size_t size)
{
    const fs_service_spec *svc = &v->services[i];
    const fs_batching *b = &svc->batching;
    snprintf(buf, size, "service %s (pool %s): %u replica(s)", svc->name, v->pools[svc->pool].name, svc->replicas);
    if (svc->autoscale.enabled)
        fs__append(buf, size, " (autoscaled %u..%u)", svc->min_replicas, svc->max_replicas);
    static const char *const routings[] = {"central", "round_robin", "least_loaded", "prefix_affinity"};
    if (b->kind == FS_BATCHING_CONTINUOUS)
        fs__append(buf, size, ", %.4g req/s base, LLM engine %s, up to %u sequences, %s routing, %.4g ms per "
                              "request when saturated (estimate)",
                   svc->arrivals.base_rps, b->llm.model_name, b->llm.max_seqs, routings[b->llm.routing],
                   fs_dist_mean(&svc->service_time) * 1e3);
    else if (b->kind != FS_BATCHING_NONE)
        fs__append(buf, size, ", %.4g req/s base, dynamic batches of up to %u (%.4g ms each when full)",
                   svc->arrivals.base_rps, b->max_batch_size, fs_scenario_batch_time(b, b->max_batch_size) * 1e3);
    else
        fs__append(buf, size, " x %u concurrent, %.4g req/s base, %s service time (mean %.4g ms)", svc->concurrency,
                   svc->arrivals.base_rps, fs_dist_kind_name(svc->service_time.kind),
                   fs_dist_mean(&svc->service_time) * 1e3);
    /* The arrival process beyond an hourly-profiled Poisson rate, if any
     * (base is then its stationary mean, or the rate before trend). */
    const fs_arrivals *a = &svc->arrivals;
    if (a->n_mmpp)
        fs__append(buf, size, ", MMPP of %zu states", a->n_mmpp);
    if (a->noise.kind != FS_NOISE_NONE)
        fs__append(buf, size, ", %s noise (cv %.3g, every %.4g s)",
                   a->noise.kind == FS_NOISE_GAMMA ? "gamma" : "lognormal", a->noise.cv, a->noise.interval_s);
    if (a->growth != 0)
        fs__append(buf, size, ", growth %.4g%% every %.4g days", a->growth * 100, a->growth_period_s / 86400);
    if (a->n_daily_levels)
        fs__append(buf, size, ", %zu daily levels", a->n_daily_levels);
    if (a->groups.mean > 0)
        fs__append(buf, size, ", groups of mean %.4g requests", a->groups.mean);
    if (b->kind == FS_BATCHING_CONTINUOUS && b->llm.step_profile) {
        /* Where the step time comes from, and what it comes to on a whole
         * GPU of the pool's type (the load checked that it maps). */
        size_t type = v->pools[svc->pool].gpu_type;
        const char *source = fs_switch_costs_llm_step_source(fs_scenario_switch_costs(v, type));
        fs_llm_step_model m;
        uint32_t blocks = 0;
        fs_error err = {0};
        if (source && fs_scenario_llm_unit(v, i, type, NULL, v->gpu_types[type].memory_gb, &blocks, &m, &err) == FS_OK)
            fs__append(buf, size, "; step time from the llm_step of %s (%s GEMMs), on a whole %s %.4g ms + %.4g us "
                                  "per prefill token %+.4g us per sequence + %.4g us per KV token",
                       source, fs_llm_gemm_name(b->llm.step_gemm), v->gpu_types[type].name, m.c0 * 1e3,
                       m.c_prefill * 1e6, m.c_decode * 1e6, m.c_kv * 1e6);
    }
    if (svc->decode_replicas)
        fs__append(buf, size, "; disaggregated: those prefill, %u decode on pool %s, KV over %.4g GB/s + %.4g us "
                              "per prefill replica's link",
                   svc->decode_replicas, v->pools[svc->decode_pool].name, svc->link_bandwidth_Bps / 1e9,
                   svc->link_latency_s * 1e6);
    if (svc->queue_limit != FS_QUEUE_UNLIMITED)
        fs__append(buf, size, ", queue limit %" PRIu64, svc->queue_limit);
    /* Regions, only where there is more than one or a time zone. */
    const fs_region_spec *g = v->n_regions ? &v->regions[svc->region] : NULL;
    if (g && (v->n_regions > 1 || g->utc_offset_s != 0))
        fs__append(buf, size, "; region %s (UTC%+.4g h: its profiles in local time)", g->name, g->utc_offset_s / 3600);
    if (svc->spills)
        fs__append(buf, size, "; spills to %s when saturated with %" PRIu64 "+ waiting (+%.4g ms round trip)",
                   v->services[svc->spill_to].name, svc->spill_when_queue, svc->spill_added_s * 1e3);
}

/* A training stream's line: how its jobs run, what a policy may patch. */
static void fs__training_line(const fs_scenario *v, size_t i, char *buf, size_t size)
{
    const fs_training_spec *t = &v->training[i];
    if (t->deploy_service != SIZE_MAX) { /* a rollout, no gang of its own */
        snprintf(buf, size, "training %s: deploys service %s, %u new replica(s) at a time", t->name,
                 v->services[t->deploy_service].name, t->deploy_max_surge);
        return;
    }
    snprintf(buf, size, "training %s: gang %u, %s, %s", t->name, t->gang,
             t->lane == FS_LANE_EXPERIMENT ? "experiment" : "production",
             t->preemptible ? "preemptible" : "not preemptible");
    if (t->checkpoint_every_s > 0)
        fs__append(buf, size, ", checkpoint every %.4g s (written in %.4g s)", t->checkpoint_every_s,
                   t->checkpoint_write_s);
    if (t->save_on_eviction)
        fs__append(buf, size, ", saved to host on eviction");
    if (t->across_pools)
        fs__append(buf, size, ", gangs across pools");
    unsigned minute = (unsigned)(t->release_at_s / 60); /* of the UTC day */
    if (t->has_release)
        fs__append(buf, size, "; released daily from %02u:%02u UTC for %.4g h", minute / 60, minute % 60,
                   t->release_s / 3600);
}

/* validate's summary of a scenario that passed every check; names from the
 * scenario go through fs_terminal_write.  The service lines are the first
 * policy's; another policy that deploys a service differently ("services"
 * patches) lists that service's line under its pools. */
/* Each GPU type's switch costs, figure by figure, with where each came from:
 * a measured profile or the built-in default (issue 21: a planner must see
 * which figures are measured). */
static void print_switch_costs(const fs_scenario *s)
{
    static const char *const units[FS_COST_FIGURES] = {"s", "s", "s", "GB/s", "GB/s", "GB/s", "s"};
    for (size_t g = 0; g < s->n_gpu_types; g++) {
        const fs_switch_costs *c = fs_scenario_switch_costs(s, g);
        printf("  switch costs of ");
        fs_terminal_write(stdout, s->gpu_types[g].name);
        printf(":\n");
        for (int k = 0; k < FS_COST_FIGURES; k++) {
            double value;
            const char *source, *key = fs_switch_costs_figure(c, (enum fs_cost_figure)k, &value, &source);
            printf("    %-19s %10.4g %-4s from ", key, value, units[k]);
            fs_terminal_write(stdout, source);
            printf("\n");
        }
    }
}

/* The lines of n services or streams of v (fs__service_line,
 * fs__training_line), each after indent; with first, only those that
 * differ from first's. */
static void print_lines(const fs_scenario *v, const fs_scenario *first, size_t n,
                        void (*line)(const fs_scenario *, size_t, char *, size_t), const char *indent)
{
    for (size_t i = 0; i < n; i++) {
        char mine[1024], theirs[1024];
        line(v, i, mine, sizeof mine);
        if (first != NULL) {
            line(first, i, theirs, sizeof theirs);
            if (strcmp(mine, theirs) == 0)
                continue;
        }
        printf("%s", indent);
        fs_terminal_write(stdout, mine);
        printf("\n");
    }
}

static void print_validated(const fs_scenario *s, fs_placement *const *placements)
{
    char horizon[32], warmup[32], window[32];
    fs_duration_format(s->horizon_s, horizon, sizeof horizon);
    fs_duration_format(s->warmup_s, warmup, sizeof warmup);
    fs_duration_format(s->window_s, window, sizeof window);
    fs_terminal_write(stdout, s->path);
    printf(": ok: scenario \"");
    fs_terminal_write(stdout, s->name);
    printf("\", horizon %s, warm-up %s, window %s, seed %llu, %u replication(s)\n", horizon, warmup, window,
           (unsigned long long)s->seed, s->replications);
    for (size_t p = 0; p < s->n_policies; p++) {
        const fs_scenario *v = s->policies[p];
        printf("  policy ");
        fs_terminal_write(stdout, v->policy);
        printf(":\n");
        for (size_t i = 0; i < v->n_pools; i++) {
            const fs_pool_spec *pool = &v->pools[i];
            const fs_pool_units *pu = &placements[p]->pools[i];
            printf("    pool ");
            fs_terminal_write(stdout, pool->name);
            printf(": %u x ", pool->gpus);
            fs_terminal_write(stdout, pool->gpu);
            if (pool->partitioning == FS_PARTITION_MIG) {
                printf(", MIG");
                for (size_t k = 0; k < pool->mig.n; k++) {
                    printf("%s ", k ? "," : "");
                    fs_terminal_write(stdout, pool->mig.profiles[k]->name);
                    printf("@%u", pool->mig.starts[k]);
                }
                if (pool->mig_plan && pool->mig_plan->n_layouts > 1) { /* the start one of several */
                    printf(" (layout ");
                    fs_terminal_write(stdout, pool->mig_plan->names[pool->mig_plan->start]);
                    printf(" of %zu)", pool->mig_plan->n_layouts);
                }
            } else if (pool->partitioning == FS_PARTITION_TIME_SLICED) {
                printf(", time-sliced by %u", pool->time_slicing.tenants);
            } else if (pool->partitioning == FS_PARTITION_FRACTIONAL) {
                printf(", fractional (%s), up to %u replicas a GPU, shares up to %g a GPU",
                       pool->fractional.mode == FS_SHARE_MPS ? "MPS" : "virtual", pool->fractional.seats,
                       pool->fractional.oversubscription);
            }
            printf(": %zu of %zu units used, %.4g GiB stranded", pu->start_units - pu->free_units, pu->start_units,
                   pu->stranded_memory_gb);
            if (pool->partitioning == FS_PARTITION_FRACTIONAL)
                printf(" and %.4g GPUs of compute", pu->stranded_sm_share);
            printf("\n");
        }
        if (p > 0) { /* what this policy deploys or runs differently ("services", "training" patches) */
            print_lines(v, s, v->n_services, fs__service_line, "    ");
            print_lines(v, s, v->n_training, fs__training_line, "    ");
        }
    }
    print_lines(s, NULL, s->n_services, fs__service_line, "  ");
    print_lines(s, NULL, s->n_training, fs__training_line, "  ");
    print_switch_costs(s);
}

int fs_cli_validate(int argc, char **argv)
{
    fs_cli_parsed opt;
    int status = fs_cli_help_parse("validate", argc, argv, &opt);
    if (status >= 0)
        return status;
    if (opt.n_positional != 1) {
        fprintf(stderr, "fleetsim validate: expected one SCENARIO file, got %d\n", opt.n_positional);
        return FS_EXIT_USAGE;
    }
    fs_scenario *s;
    status = load_scenario(opt.positional[0], &opt, NULL, &s);
    if (status != FS_EXIT_OK)
        return status;
    /* Every check first: "ok" is printed only for a scenario that passed them all. */
    fs_placement **placements = calloc(s->n_policies ? s->n_policies : 1, sizeof *placements);
    if (!placements) {
        fs_terminal_error("out of memory");
        fs_scenario_destroy(s);
        return FS_EXIT_RUNTIME;
    }
    for (size_t p = 0; p < s->n_policies && status == FS_EXIT_OK; p++) {
        fs_error err = {0};
        int rc = fs_placement_compute(s->policies[p], &placements[p], &err);
        if (rc != FS_OK && s->n_policies > 1) {
            size_t n = strlen(err.msg);
            snprintf(err.msg + n, sizeof err.msg - n, " in policy %s", s->policies[p]->policy);
        }
        /* A gang no pool of this policy lets its stream use: the run would
         * refuse it, so validate does too (the message names the policy). */
        if (rc == FS_OK)
            rc = fs_training_check_gangs(s->policies[p], fs_policy_for(s->policies[p]->policy_kind), placements[p],
                                         &err);
        if (rc != FS_OK) {
            fs_terminal_error(err.msg);
            status = rc == FS_ERR_INPUT ? FS_EXIT_USAGE : FS_EXIT_RUNTIME;
        }
    }
    if (status == FS_EXIT_OK)
        print_validated(s, placements);
    for (size_t p = 0; p < s->n_policies; p++)
        fs_placement_destroy(placements[p]);
    free(placements);
    fs_scenario_destroy(s);
    return status;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fs_cli_help_usage(stderr);
        return FS_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
        fs_cli_help_usage(stdout);
        return FS_EXIT_OK;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("fleetsim %s\n", FLEETSIM_VERSION);
        return FS_EXIT_OK;
    }
    const fs_cli_command *c = fs_cli_help_find(cmd);
    if (c)
        return c->main(argc - 2, argv + 2);
    fs_terminal_say(stderr, "fleetsim: unknown command '%s' (see 'fleetsim --help')", cmd);
    return FS_EXIT_USAGE;
}

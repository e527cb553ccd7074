/*
 * fleetsim check — the CI regression gate.
 *
 *   fleetsim check SCENARIO --baseline FILE [--tolerance p99=5%,cost=2%] [--update]
 *                  [--junit FILE] [--summary FILE]
 *
 * Loads SCENARIO with the command line's edits (--set, --horizon, --warmup,
 * --window: edits.h), applies its "ci" settings (a shorter horizon, fewer
 * replications, a warm-up: fs_scenario_apply_ci), runs every policy, and
 * compares the results document (fs_results_json, without wall-clock
 * figures) with FILE, a results document written earlier by --update.  The
 * comparison and its Markdown table are reports/tables/check.h; this file is the
 * command around it: options, files, exit statuses.
 *
 * The baseline is read, parsed and validated before the run, so a missing
 * or malformed baseline fails in a moment rather than after the simulation.
 * --update writes FILE through reports/output/output.h (a temporary file in FILE's
 * directory, renamed into place), so an interrupted update never leaves half
 * a baseline.  --junit (JUnit XML, reports/tables/check_junit.h) and
 * --summary (Markdown for a pull request, reports/tables/check_summary.h)
 * write the comparison the same way, after the table on standard output;
 * they describe a comparison, so --update refuses them.
 *
 * Exit status: 0 nothing worse (or the baseline updated); 1 a metric worse,
 * or a runtime failure (out of memory, a baseline that cannot be written):
 * CI fails either way; 2 usage, scenario or baseline error (a baseline that
 * cannot be read, malformed JSON as file:line:column, or a document that is
 * not a results document).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "check.h"
#include "check_junit.h"
#include "check_summary.h"
#include "commands.h"
#include "duration.h"
#include "edits.h"
#include "help.h"
#include "options.h"
#include "output.h"
#include "progress.h"
#include "results_json.h"
#include "run.h"
#include "scenario.h"
#include "terminal.h"

enum { CHECK_EXIT_OK = 0, CHECK_EXIT_WORSE = 1, CHECK_EXIT_RUNTIME = 1, CHECK_EXIT_USAGE = 2 };

enum { CHECK_BASELINE, CHECK_TOLERANCE, CHECK_UPDATE, CHECK_HORIZON, CHECK_WARMUP, CHECK_WINDOW,
       CHECK_WINDOW_ANCHOR, CHECK_SET, CHECK_MAX_EVENTS, CHECK_JUNIT, CHECK_SUMMARY, CHECK_HELP };
static const fs_cli_option check_options[] = {
    [CHECK_BASELINE] = {"baseline", 'b', "FILE", "the baseline results JSON (required)"},
    [CHECK_TOLERANCE] = {"tolerance", 't', "LIST", "tolerances overriding the defaults, e.g. p99=5%,cost=2%"},
    [CHECK_UPDATE] = {"update", 0, NULL, "write the current results to FILE instead of comparing"},
    [CHECK_HORIZON] = FS_EDITS_ROW_HORIZON, [CHECK_WARMUP] = FS_EDITS_ROW_WARMUP,
    [CHECK_WINDOW] = FS_EDITS_ROW_WINDOW, [CHECK_WINDOW_ANCHOR] = FS_EDITS_ROW_WINDOW_ANCHOR,
    [CHECK_SET] = FS_EDITS_ROW_SET, [CHECK_MAX_EVENTS] = FS_PROGRESS_ROW_MAX_EVENTS,
    [CHECK_JUNIT] = {"junit", 0, "FILE", "also write the comparison as JUnit XML (a test case per metric)"},
    [CHECK_SUMMARY] = {"summary", 0, "FILE", "also write it as Markdown for a pull request or job summary"},
    [CHECK_HELP] = {"help", 'h', NULL, "show this help"},
};
/* --horizon and --warmup replace the "ci" ones (edits.h). */
static const fs_edits_which check_edits = {.set = CHECK_SET, .horizon = CHECK_HORIZON, .warmup = CHECK_WARMUP,
                                           .window = CHECK_WINDOW, .window_anchor = CHECK_WINDOW_ANCHOR};
#define CHECK_N_OPTIONS ((int)(sizeof check_options / sizeof check_options[0]))
const fs_cli_table fs_cli_check_options = {check_options, CHECK_N_OPTIONS, NULL};

void fs_cli_check_metrics(FILE *fp)
{
    for (int m = 0; m < FS_CHECK_N_METRICS; m++) {
        const fs_check_metric_info *info = fs_check_metric_get((fs_check_metric)m);
        char pct[16];
        snprintf(pct, sizeof pct, "%g%%", info->default_percent);
        fprintf(fp, "  %-12s %-32s %-7s %-8s %s\n", info->key, info->what,
                info->higher_is_better ? "higher" : "lower", pct, info->floor_text);
    }
}

/* Reads, parses and validates the baseline: exit 2 naming the file and
 * line:column for malformed JSON, or the JSON path for a document that is
 * not a results document, as for a scenario. */
static int load_baseline(const char *path, json_t **out)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        int e = errno;
        fs_terminal_say(stderr, "fleetsim: %s: cannot read the baseline: %s%s", path, strerror(e),
                e == ENOENT ? " (create it with --update)" : "");
        return CHECK_EXIT_USAGE;
    }
    json_error_t jerr;
    json_t *doc = json_loadf(f, JSON_REJECT_DUPLICATES, &jerr);
    fclose(f);
    if (!doc) {
        if (json_error_code(&jerr) == json_error_out_of_memory) {
            fs_terminal_say(stderr, "fleetsim: %s: out of memory", path);
            return CHECK_EXIT_RUNTIME;
        }
        fs_terminal_say(stderr, "fleetsim: %s:%d:%d: %s", path, jerr.line, jerr.column, jerr.text);
        return CHECK_EXIT_USAGE;
    }
    fs_error err = {0};
    if (fs_check_validate(doc, path, &err) != FS_OK) {
        fs_terminal_error(err.msg);
        json_decref(doc);
        return CHECK_EXIT_USAGE;
    }
    *out = doc;
    return CHECK_EXIT_OK;
}

/* A baseline made with other run settings compares different experiments;
 * the figures will say so, but the reason is worth a line on stderr. */
static void warn_settings(const char *path, const json_t *baseline, const json_t *current)
{
    static const char *const keys[] = {"horizon_s", "warmup_s", "window_s", "seed", "replications"};
    const json_t *bs = json_object_get(baseline, "scenario"), *cs = json_object_get(current, "scenario");
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        const json_t *b = json_object_get(bs, keys[k]), *c = json_object_get(cs, keys[k]);
        if (!json_is_number(b) || !json_is_number(c) || json_number_value(b) == json_number_value(c))
            continue;
        char bt[64], ct[64];
        if (strstr(keys[k], "_s")) {
            fs_duration_format(json_number_value(b), bt, sizeof bt);
            fs_duration_format(json_number_value(c), ct, sizeof ct);
        } else {
            snprintf(bt, sizeof bt, "%.17g", json_number_value(b));
            snprintf(ct, sizeof ct, "%.17g", json_number_value(c));
        }
        fs_terminal_say(stderr,
                "fleetsim: warning: %s was made with %.*s %s, this run has %s; if that change is "
                "intended, update the baseline with --update",
                path, (int)(strstr(keys[k], "_s") ? strlen(keys[k]) - 2 : strlen(keys[k])), keys[k], bt, ct);
    }
}

int fs_cli_write_file(const char *path, fs_cli_writer writer, const void *what, fs_error *err)
{
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path; /* not empty: check_path refused that */
    size_t dir_len = slash ? (size_t)(slash - path) : 1;
    char *dir = malloc(dir_len + 1);
    if (!dir)
        return fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
    if (!slash)
        strcpy(dir, ".");
    else if (dir_len == 0)
        strcpy(dir, "/");
    else {
        memcpy(dir, path, dir_len);
        dir[dir_len] = '\0';
    }
    fs_output out;
    FILE *fp;
    int rc = fs_output_begin(&out, dir, err);
    free(dir);
    if (rc != FS_OK)
        return rc;
    if (fs_output_open(&out, name, &fp, err) != FS_OK || writer(fp, what, err) != FS_OK) {
        fs_output_abort(&out);
        return FS_ERR_RUNTIME;
    }
    return fs_output_commit(&out, err);
}

static int write_results(FILE *fp, const void *what, fs_error *err)
{
    return fs_results_json_write(what, false, fp, err);
}

static int write_baseline(const fs_results *r, const char *path)
{
    fs_error err = {0};
    if (fs_cli_write_file(path, write_results, r, &err) != FS_OK) {
        fs_terminal_error(err.msg);
        return CHECK_EXIT_RUNTIME;
    }
    fs_terminal_say(stdout, "baseline updated: %s", path);
    return CHECK_EXIT_OK;
}

/* The comparison and the names its CI forms show. */
typedef struct check_report {
    const fs_check_result *result;
    const char *scenario, *baseline;
} check_report;

static int write_junit(FILE *fp, const void *what, fs_error *err)
{
    const check_report *c = what;
    return fs_check_junit_write(c->result, c->scenario, c->baseline, fp, err);
}

static int write_summary(FILE *fp, const void *what, fs_error *err)
{
    const check_report *c = what;
    return fs_check_summary_write(c->result, c->scenario, c->baseline, fp, err);
}

/* An output file's path as given: not empty, not a directory's. */
static bool check_path(const char *option, const char *path)
{
    size_t len = strlen(path);
    if (len == 0) {
        fprintf(stderr, "fleetsim check: --%s: expected a file name, got an empty one\n", option);
        return false;
    }
    if (path[len - 1] == '/') {
        fs_terminal_say(stderr, "fleetsim check: --%s: expected a file, got the directory \"%s\"", option, path);
        return false;
    }
    return true;
}

/* The current results as --update would have written them: the document
 * goes through the writer's text form (ten significant digits) and back, so
 * an unchanged run compares equal to its baseline digit for digit instead of
 * differing in the eleventh. */
static json_t *current_results(const fs_results *r)
{
    json_t *doc = fs_results_json(r, false);
    char *text = doc ? json_dumps(doc, JSON_COMPACT | JSON_REAL_PRECISION(10)) : NULL;
    json_decref(doc);
    json_t *reread = text ? json_loads(text, 0, NULL) : NULL;
    free(text);
    return reread;
}

/* The files --junit and --summary name (NULL: not asked for). */
typedef struct check_outputs {
    const char *junit, *summary;
} check_outputs;

static int compare(const fs_results *r, const char *scenario, const char *path, const json_t *baseline,
                   const fs_check_tolerances *tol, const check_outputs *outputs)
{
    json_t *current = current_results(r);
    if (!current) {
        fprintf(stderr, "fleetsim: out of memory building the results JSON\n");
        return CHECK_EXIT_RUNTIME;
    }
    warn_settings(path, baseline, current);
    fs_error err = {0};
    fs_check_result result;
    int rc = fs_check_run(baseline, path, current, tol, &result, &err);
    if (rc == FS_OK) {
        check_report report = {&result, scenario, path};
        rc = fs_check_write_table(&result, stdout, &err);
        if (rc == FS_OK && outputs->junit)
            rc = fs_cli_write_file(outputs->junit, write_junit, &report, &err);
        if (rc == FS_OK && outputs->summary)
            rc = fs_cli_write_file(outputs->summary, write_summary, &report, &err);
    }
    size_t worse = result.worse;
    fs_check_result_fini(&result);
    json_decref(current); /* after the writers: the rows borrow its names */
    if (rc != FS_OK) {
        fs_terminal_error(err.msg);
        return rc == FS_ERR_INPUT ? CHECK_EXIT_USAGE : CHECK_EXIT_RUNTIME;
    }
    return worse > 0 ? CHECK_EXIT_WORSE : CHECK_EXIT_OK;
}

int fs_cli_check(int argc, char **argv)
{
    fs_cli_parsed opt;
    int status = fs_cli_help_parse("check", argc, argv, &opt);
    if (status >= 0)
        return status;
    if (opt.n_positional != 1) {
        fprintf(stderr, "fleetsim check: expected one SCENARIO file, got %d (see 'fleetsim check --help')\n",
                opt.n_positional);
        return CHECK_EXIT_USAGE;
    }
    const char *path = opt.values[CHECK_BASELINE];
    if (!path || !*path) {
        fprintf(stderr, "fleetsim check: --baseline FILE is required (see 'fleetsim check --help')\n");
        return CHECK_EXIT_USAGE;
    }
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        fs_terminal_say(stderr, "fleetsim check: --baseline: \"%s\" is a directory: expected the baseline results "
                        "JSON file", path);
        return CHECK_EXIT_USAGE;
    }
    check_outputs outputs = {opt.values[CHECK_JUNIT], opt.values[CHECK_SUMMARY]};
    if (!check_path("baseline", path) || (outputs.junit && !check_path("junit", outputs.junit)) ||
        (outputs.summary && !check_path("summary", outputs.summary)))
        return CHECK_EXIT_USAGE;
    bool update = opt.values[CHECK_UPDATE] != NULL;
    if (update && (outputs.junit || outputs.summary)) {
        fprintf(stderr, "fleetsim check: --%s reports a comparison, and --update makes none\n",
                outputs.junit ? "junit" : "summary");
        return CHECK_EXIT_USAGE;
    }
    const char *same = outputs.junit && strcmp(outputs.junit, path) == 0       ? "junit"
                       : outputs.summary && strcmp(outputs.summary, path) == 0 ? "summary"
                                                                                : NULL;
    if (!same && outputs.junit && outputs.summary && strcmp(outputs.junit, outputs.summary) == 0)
        same = "summary";
    if (same) {
        fprintf(stderr, "fleetsim check: --%s names a file another option also names\n", same);
        return CHECK_EXIT_USAGE;
    }
    fs_check_tolerances tol;
    fs_check_tolerances_init(&tol);
    fs_error err = {0};
    if (opt.values[CHECK_TOLERANCE] && fs_check_tolerances_parse(&tol, opt.values[CHECK_TOLERANCE], &err) != FS_OK) {
        fs_terminal_say(stderr, "fleetsim check: --tolerance: %s", err.msg);
        return err.code == FS_ERR_INPUT ? CHECK_EXIT_USAGE : CHECK_EXIT_RUNTIME;
    }

    uint64_t max_events;
    if (fs_progress_parse_max("check", opt.values[CHECK_MAX_EVENTS], &max_events) != 0)
        return CHECK_EXIT_USAGE;
    fs_scenario *s = NULL;
    int rc = fs_edits_load(opt.positional[0], &opt, &check_edits, true, &s, &err);
    if (rc == FS_OK && (rc = fs_scenario_apply_ci(s, &err)) != FS_OK)
        fs_scenario_destroy(s);
    if (rc != FS_OK) {
        fs_terminal_error(err.msg);
        return rc == FS_ERR_INPUT ? CHECK_EXIT_USAGE : CHECK_EXIT_RUNTIME;
    }
    json_t *baseline = NULL;
    status = update ? CHECK_EXIT_OK : load_baseline(path, &baseline);
    if (status != CHECK_EXIT_OK) {
        fs_scenario_destroy(s);
        return status;
    }

    fs_results *r = NULL;
    /* The gate reads no window row (its figures are taken as windows close):
     * they go nowhere, so its memory does not grow with them. */
    static const fs_window_sink nowhere = {0};
    rc = fs_progress_run(s, NULL, 0, max_events, &nowhere, &r, &err);
    if (rc != FS_OK) {
        fs_terminal_error(err.msg);
        status = rc == FS_ERR_INPUT ? CHECK_EXIT_USAGE : CHECK_EXIT_RUNTIME;
    } else {
        status = update ? write_baseline(r, path) : compare(r, opt.positional[0], path, baseline, &tol, &outputs);
        /* A failed read of records spilled to disk (results.h) left "no
         * data" in what was compared: the verdict cannot stand. */
        if (fs_results_spill_error(r)) {
            fprintf(stderr, "fleetsim: cannot read back replication records from the scratch file: %s\n",
                    strerror(fs_results_spill_error(r)));
            status = CHECK_EXIT_RUNTIME;
        }
        if (fflush(stdout) != 0) {
            fprintf(stderr, "fleetsim: cannot write to standard output\n");
            status = CHECK_EXIT_RUNTIME;
        }
    }
    fs_results_destroy(r);
    json_decref(baseline);
    fs_scenario_destroy(s);
    return status;
}

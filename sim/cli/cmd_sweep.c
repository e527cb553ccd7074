/*
 * fleetsim sweep and fleetsim merge: a sweep's points on every local core,
 * or one shard of them on each machine of a Slurm array, a Kubernetes
 * Indexed Job or an MPI launch, merged afterwards into the same results.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "help.h"
#include "options.h"
#include "output.h"
#include "study.h"
#include "sweep.h"
#include "sweep_table.h"
#include "terminal.h"

#define FS_COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

static int fs__status(int rc)
{
    return rc == FS_OK ? FS_EXIT_OK : rc == FS_ERR_INPUT ? FS_EXIT_USAGE : FS_EXIT_RUNTIME;
}

static int fs__fail(int rc, const fs_error *err)
{
    fs_terminal_error(err->msg);
    return fs__status(rc);
}

/* --jobs N, default every core this process may use. */
int fs_cli_jobs(const char *cmd, const char *text, unsigned *jobs)
{
    uint64_t n = fs_study_cores();
    if (text && fs_cli_parse_count(text, 1, 4096, &n) != 0) {
        fs_terminal_say(stderr, "fleetsim %s: --jobs: expected an integer from 1 to 4096, got \"%s\"", cmd, text);
        return -1;
    }
    *jobs = (unsigned)n;
    return 0;
}

void fs_cli_out_dir(const char *given, const char *input, const char *suffix, char *buf, size_t size)
{
    if (given) {
        snprintf(buf, size, "%s", given);
        return;
    }
    size_t len = strlen(input);
    if (len > 5 && strcmp(input + len - 5, ".json") == 0)
        len -= 5;
    snprintf(buf, size, "%.*s%s", (int)len, input, suffix);
}

/* An environment variable as a count, or -1 when unset or not one. */
static int64_t fs__env(const char *name)
{
    const char *v = getenv(name);
    uint64_t n;
    return v && fs_cli_parse_count(v, 0, INT64_MAX, &n) == 0 ? (int64_t)n : -1;
}

/* --shard I/N or auto: this process's index and the shard count. */
static int fs__shard(const char *text, const char *count_text, uint64_t *index, uint64_t *count)
{
    *index = 0;
    *count = 1;
    if (!text)
        return 0;
    if (strcmp(text, "auto") != 0) {
        char *slash = strchr(text, '/');
        char head[32];
        if (slash && (size_t)(slash - text) < sizeof head) {
            memcpy(head, text, (size_t)(slash - text));
            head[slash - text] = '\0';
            if (fs_cli_parse_count(head, 0, UINT32_MAX, index) == 0 &&
                fs_cli_parse_count(slash + 1, 1, UINT32_MAX, count) == 0 && *index < *count)
                return 0;
        }
        fs_terminal_say(stderr, "fleetsim sweep: --shard: expected I/N with 0 <= I < N, or auto, got \"%s\"", text);
        return -1;
    }
    /* The launchers' own variables, innermost first: an MPI launch inside a
     * Slurm array task shards by rank. */
    static const struct { const char *index, *count, *min, *who; } launchers[] = {
        {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", NULL, "Open MPI"},
        {"PMI_RANK", "PMI_SIZE", NULL, "an MPI launcher (PMI)"},
        {"SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT", "SLURM_ARRAY_TASK_MIN", "a Slurm job array"},
        {"JOB_COMPLETION_INDEX", NULL, NULL, "a Kubernetes Indexed Job"},
    };
    for (size_t k = 0; k < sizeof launchers / sizeof launchers[0]; k++) {
        int64_t i = fs__env(launchers[k].index);
        if (i < 0)
            continue;
        int64_t n = launchers[k].count ? fs__env(launchers[k].count) : -1;
        if (n < 0 && count_text)
            n = fs_cli_parse_count(count_text, 1, UINT32_MAX, count) == 0 ? (int64_t)*count : -1;
        if (n < 0)
            n = fs__env("FLEETSIM_SHARD_COUNT");
        int64_t min = launchers[k].min ? fs__env(launchers[k].min) : 0;
        if (min > 0)
            i -= min; /* array ids need not start at 0 */
        if (n < 1 || i < 0 || i >= n) {
            fs_terminal_say(stderr,
                    "fleetsim sweep: --shard auto: %s=%s but no usable shard count (%s; for a Kubernetes Indexed "
                    "Job give --shard-count or FLEETSIM_SHARD_COUNT, set to the Job's completions)",
                    launchers[k].index, getenv(launchers[k].index),
                    launchers[k].count ? launchers[k].count : "JOB_COMPLETION_INDEX has none");
            return -1;
        }
        *index = (uint64_t)i;
        *count = (uint64_t)n;
        fprintf(stderr, "fleetsim sweep: shard %" PRIu64 "/%" PRIu64 " (from %s)\n", *index, *count, launchers[k].who);
        return 0;
    }
    fprintf(stderr, "fleetsim sweep: --shard auto: no SLURM_ARRAY_TASK_ID, JOB_COMPLETION_INDEX, "
                    "OMPI_COMM_WORLD_RANK or PMI_RANK in the environment; give --shard I/N\n");
    return -1;
}

/* Writes points.csv and points.json into out_dir from the runs in dirs, and
 * prints the table unless quiet. */
static int fs__write_points(const fs_sweep *sw, const char *const *dirs, size_t n_dirs, const char *out_dir,
                            bool quiet, fs_error *err)
{
    /* Every run must be there before anything is written. */
    size_t missing = 0, first_point = 0;
    uint32_t first_rep = 0;
    for (size_t p = 0; p < sw->n_points; p++)
        for (uint32_t k = 0; k < sw->replications; k++) {
            bool found = false;
            for (size_t d = 0; d < n_dirs && !found; d++)
                found = fs_study_has(dirs[d], p, k);
            if (!found && missing++ == 0) {
                first_point = p;
                first_rep = k;
            }
        }
    if (missing) {
        char label[512];
        fs_sweep_point_label(sw, first_point, label, sizeof label);
        return fs_error_set(err, FS_ERR_INPUT,
                            "%zu of %zu runs are missing (the first: point %zu (%s), replication %u): run the "
                            "shards that hold them, or rerun 'fleetsim sweep' with --out set to one of these "
                            "directories to run them there",
                            missing, sw->n_points * sw->replications, first_point, label, first_rep);
    }
    fs_metric_row *rows = calloc(sw->n_points ? sw->n_points : 1, sizeof *rows);
    if (!rows)
        return fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
    int rc = FS_OK;
    for (size_t p = 0; p < sw->n_points && rc == FS_OK; p++)
        rc = fs_study_row(sw, dirs, n_dirs, p, sw->replications, &rows[p], err);
    fs_output out;
    FILE *csv, *json;
    if (rc == FS_OK && (rc = fs_output_begin(&out, out_dir, err)) == FS_OK) {
        if ((rc = fs_output_open(&out, "points.csv", &csv, err)) != FS_OK ||
            (rc = fs_output_open(&out, "points.json", &json, err)) != FS_OK ||
            (rc = fs_sweep_points_csv(sw, rows, csv, err)) != FS_OK ||
            (rc = fs_sweep_points_json(sw, rows, json, err)) != FS_OK)
            fs_output_abort(&out);
        else
            rc = fs_output_commit(&out, err);
    }
    if (rc == FS_OK && !quiet)
        rc = fs_sweep_points_table(sw, rows, stdout, err);
    for (size_t p = 0; p < sw->n_points; p++)
        fs_metric_row_fini(&rows[p]);
    free(rows);
    return rc;
}

enum { SW_JOBS, SW_OUT, SW_SHARD, SW_SHARD_COUNT, SW_REPLICATIONS, SW_MAX_RUNS, SW_QUIET, SW_HELP };
static const fs_cli_option sweep_options[] = {
    [SW_JOBS] = {"jobs", 'j', "N", "runs at once on this machine (default: every core it may use)"},
    [SW_OUT] = {"out", 'o', "DIR", "results and finished runs (default: SWEEP without .json, plus .out)"},
    [SW_SHARD] = {"shard", 0, "I/N", "run shard I of N (0-based), or auto: from Slurm, Kubernetes or MPI"},
    [SW_SHARD_COUNT] = {"shard-count", 0, "N", "shard count for --shard auto under a Kubernetes Indexed Job"},
    [SW_REPLICATIONS] = {"replications", 'r', "R", "replications per point (overrides the sweep file's)"},
    [SW_MAX_RUNS] = {"max-runs", 0, "K", "stop after K runs (a time-boxed slot); rerun to go on"},
    [SW_QUIET] = {"quiet", 'q', NULL, "no progress and no table"},
    [SW_HELP] = {"help", 'h', NULL, "show this help"},
};

const fs_cli_table fs_cli_sweep_options = {sweep_options, FS_COUNT(sweep_options), NULL};

int fs_cli_sweep(int argc, char **argv)
{
    fs_cli_parsed opt;
    int status = fs_cli_help_parse("sweep", argc, argv, &opt);
    if (status >= 0)
        return status;
    if (opt.n_positional != 1) {
        fprintf(stderr, "fleetsim sweep: expected one SWEEP file, got %d (see 'fleetsim sweep --help')\n",
                opt.n_positional);
        return FS_EXIT_USAGE;
    }
    unsigned jobs;
    uint64_t shard, shards, reps = 0, max_runs = 0;
    const char *v;
    if (fs_cli_jobs("sweep", opt.values[SW_JOBS], &jobs) != 0 ||
        fs__shard(opt.values[SW_SHARD], opt.values[SW_SHARD_COUNT], &shard, &shards) != 0)
        return FS_EXIT_USAGE;
    if ((v = opt.values[SW_REPLICATIONS]) && fs_cli_parse_count(v, 1, 100000, &reps) != 0) {
        fs_terminal_say(stderr, "fleetsim sweep: --replications: expected an integer from 1 to 100000, got \"%s\"", v);
        return FS_EXIT_USAGE;
    }
    if ((v = opt.values[SW_MAX_RUNS]) && fs_cli_parse_count(v, 1, UINT64_MAX, &max_runs) != 0) {
        fs_terminal_say(stderr, "fleetsim sweep: --max-runs: expected a positive integer, got \"%s\"", v);
        return FS_EXIT_USAGE;
    }
    fs_error err = {0};
    fs_sweep *sw;
    int rc = fs_sweep_load(opt.positional[0], &sw, &err);
    if (rc != FS_OK)
        return fs__fail(rc, &err);
    if (reps)
        sw->replications = (uint32_t)reps;
    if ((rc = fs_sweep_check_runs(sw, sw->replications, &err)) != FS_OK) {
        fs_sweep_destroy(sw);
        return fs__fail(rc, &err);
    }
    char dir[4096];
    fs_cli_out_dir(opt.values[SW_OUT], opt.positional[0], ".out", dir, sizeof dir);
    if ((rc = fs_study_open(sw, dir, &err)) != FS_OK) {
        fs_sweep_destroy(sw);
        return fs__fail(rc, &err);
    }
    /* Run u = point * R + replication belongs to shard u mod N: every shard
     * gets a share of every point, so shards finish together. */
    size_t total = sw->n_points * sw->replications, n = 0;
    fs_study_unit *units = malloc((total ? total : 1) * sizeof *units);
    if (!units) {
        fs_sweep_destroy(sw);
        fprintf(stderr, "fleetsim: out of memory\n");
        return FS_EXIT_RUNTIME;
    }
    for (size_t u = shard; u < total; u += shards)
        units[n++] = (fs_study_unit){.point = u / sw->replications, .replication = (uint32_t)(u % sw->replications)};
    fs_study_options so = {.jobs = jobs, .max_runs = max_runs, .quiet = opt.values[SW_QUIET] != NULL,
                           .label = "sweep"};
    uint64_t ran = 0;
    rc = fs_study_run(sw, dir, units, n, &so, &ran, &err);
    size_t left = 0;
    for (size_t k = 0; k < n; k++)
        left += !fs_study_has(dir, units[k].point, units[k].replication);
    free(units);
    status = FS_EXIT_OK;
    if (rc != FS_OK) {
        status = fs__fail(rc, &err);
    } else if (left) {
        fs_terminal_say(stderr, "fleetsim sweep: stopped after %llu runs (--max-runs); %zu left: rerun with --out %s to go on",
                (unsigned long long)ran, left, dir);
    } else if (shards > 1) {
        fprintf(stderr, "fleetsim sweep: shard %llu/%llu done (%llu runs now, %zu in all); when every shard is "
                        "done: fleetsim merge DIR...\n",
                (unsigned long long)shard, (unsigned long long)shards, (unsigned long long)ran, n);
    } else {
        const char *dirs[1] = {dir};
        rc = fs__write_points(sw, dirs, 1, dir, so.quiet, &err);
        if (rc != FS_OK)
            status = fs__fail(rc, &err);
        else if (!so.quiet)
            fs_terminal_say(stderr, "fleetsim sweep: %zu points x %u replications: %s/points.csv and points.json",
                    sw->n_points, sw->replications, dir);
    }
    fs_sweep_destroy(sw);
    return status;
}

enum { MG_OUT, MG_QUIET, MG_HELP };
static const fs_cli_option merge_options[] = {
    [MG_OUT] = {"out", 'o', "DIR", "where to write points.csv and points.json (default: the first DIR)"},
    [MG_QUIET] = {"quiet", 'q', NULL, "no table"},
    [MG_HELP] = {"help", 'h', NULL, "show this help"},
};

const fs_cli_table fs_cli_merge_options = {merge_options, FS_COUNT(merge_options), NULL};

int fs_cli_merge(int argc, char **argv)
{
    fs_cli_parsed opt;
    int status = fs_cli_help_parse("merge", argc, argv, &opt);
    if (status >= 0)
        return status;
    if (opt.n_positional < 1) {
        fprintf(stderr, "fleetsim merge: expected at least one DIR (see 'fleetsim merge --help')\n");
        return FS_EXIT_USAGE;
    }
    fs_error err = {0};
    fs_sweep *sw = NULL;
    int rc = FS_OK;
    for (int d = 0; d < opt.n_positional && rc == FS_OK; d++) {
        fs_sweep *other;
        rc = fs_study_read(opt.positional[d], &other, &err);
        if (rc != FS_OK)
            break;
        if (!sw) {
            sw = other;
            continue;
        }
        if (strcmp(other->fingerprint, sw->fingerprint) != 0 || other->replications != sw->replications)
            rc = fs_error_set(&err, FS_ERR_INPUT,
                              "%s holds another sweep than %s (fingerprint %s with %u replications, not %s with %u)",
                              opt.positional[d], opt.positional[0], other->fingerprint, other->replications,
                              sw->fingerprint, sw->replications);
        fs_sweep_destroy(other);
    }
    const char *out = opt.values[MG_OUT] ? opt.values[MG_OUT] : opt.positional[0];
    if (rc == FS_OK && opt.values[MG_OUT])
        rc = fs_study_open(sw, out, &err);
    if (rc == FS_OK)
        rc = fs__write_points(sw, (const char *const *)opt.positional, (size_t)opt.n_positional, out,
                              opt.values[MG_QUIET] != NULL, &err);
    if (rc == FS_OK && !opt.values[MG_QUIET])
        fs_terminal_say(stderr, "fleetsim merge: %zu points x %u replications from %d director%s: %s/points.csv and points.json",
                sw->n_points, sw->replications, opt.n_positional, opt.n_positional == 1 ? "y" : "ies", out);
    fs_sweep_destroy(sw);
    return rc == FS_OK ? FS_EXIT_OK : fs__fail(rc, &err);
}

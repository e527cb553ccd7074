/*
 * fleetsim — the command line.  The composition root: the only code that sees
 * the engine, the domain (models/) and the reports together.
 *
 * stdout carries only what was asked for (table, JSON, CSV); diagnostics go
 * to stderr as "fleetsim: ...".  Exit status: 0 success, 1 runtime failure,
 * 2 usage or scenario error.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "duration.h"
#include "options.h"
#include "output.h"
#include "placement.h"
#include "results_csv.h"
#include "results_json.h"
#include "run.h"
#include "scenario.h"
#include "table.h"

enum { FS_EXIT_OK = 0, FS_EXIT_RUNTIME = 1, FS_EXIT_USAGE = 2 };

#define FS_COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

enum { RUN_SEED, RUN_REPLICATIONS, RUN_HORIZON, RUN_OUT, RUN_FORMAT, RUN_NO_TIMING, RUN_HELP };
static const fs_cli_option run_options[] = {
    [RUN_SEED] = {"seed", 's', "N", "base seed (overrides the scenario's \"seed\")"},
    [RUN_REPLICATIONS] = {"replications", 'r', "R", "independent replications (overrides \"replications\")"},
    [RUN_HORIZON] = {"horizon", 0, "D", "simulated time, e.g. 7d or 90m (overrides \"horizon\")"},
    [RUN_OUT] = {"out", 'o', "DIR", "write results.json, timeseries.csv, pools_timeseries.csv to DIR"},
    [RUN_FORMAT] = {"format", 'f', "FMT", "what to print: table (default), json or csv"},
    [RUN_NO_TIMING] = {"no-timing", 0, NULL, "leave wall-clock figures out of the JSON (byte-identical reruns)"},
    [RUN_HELP] = {"help", 'h', NULL, "show this help"},
};

enum { VALIDATE_HELP };
static const fs_cli_option validate_options[] = {
    [VALIDATE_HELP] = {"help", 'h', NULL, "show this help"},
};

static void usage(FILE *fp)
{
    fputs("usage: fleetsim COMMAND [OPTIONS]\n"
          "\n"
          "Simulates GPU fleets that serve inference, to compare pool policies and\n"
          "size fleets against latency SLOs.\n"
          "\n"
          "commands:\n"
          "  run SCENARIO        simulate a scenario file and report the results\n"
          "  validate SCENARIO   check a scenario file and print what it describes\n"
          "\n"
          "  -h, --help          show this help ('fleetsim COMMAND --help' for a command)\n"
          "      --version       print the version\n"
          "\n"
          "exit status: 0 success, 1 runtime failure, 2 usage or scenario error\n",
          fp);
}

static void run_usage(FILE *fp)
{
    fputs("usage: fleetsim run SCENARIO [OPTIONS]\n\n"
          "Runs every replication of SCENARIO and prints a summary.  Figures cover\n"
          "[warmup, horizon]; with several replications they carry 95% CIs.\n\n",
          fp);
    fs_cli_help(fp, run_options, FS_COUNT(run_options));
}

static void validate_usage(FILE *fp)
{
    fputs("usage: fleetsim validate SCENARIO\n\n"
          "Checks SCENARIO and prints a one-line summary of each pool and service;\n"
          "exit status 2 with the file, line:column or JSON path on any error.\n\n",
          fp);
    fs_cli_help(fp, validate_options, FS_COUNT(validate_options));
}

/* A whole non-negative integer with no trailing junk. */
static int parse_count(const char *text, int64_t max, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (errno || end == text || *end || v < 0 || v > max)
        return -1;
    *out = v;
    return 0;
}

static int load_scenario(const char *path, fs_scenario **s)
{
    fs_error err = {0};
    int rc = fs_scenario_load(path, s, &err);
    if (rc != FS_OK) {
        fprintf(stderr, "fleetsim: %s\n", err.msg);
        return rc == FS_ERR_INPUT ? FS_EXIT_USAGE : FS_EXIT_RUNTIME;
    }
    return FS_EXIT_OK;
}

/* Writes the run's files into an output set opened before the run (so a
 * directory that cannot be created fails in a second, not after the run). */
static int write_outputs(const fs_results *r, fs_output *out, bool timing)
{
    fs_error err = {0};
    FILE *json, *series, *pools;
    if (fs_output_open(out, "results.json", &json, &err) != FS_OK ||
        fs_output_open(out, "timeseries.csv", &series, &err) != FS_OK ||
        fs_output_open(out, "pools_timeseries.csv", &pools, &err) != FS_OK ||
        fs_results_json_write(r, timing, json, &err) != FS_OK ||
        fs_results_csv_timeseries(r, series, &err) != FS_OK ||
        fs_results_csv_pool_timeseries(r, pools, &err) != FS_OK) {
        fs_output_abort(out);
        fprintf(stderr, "fleetsim: %s\n", err.msg);
        return FS_EXIT_RUNTIME;
    }
    if (fs_output_commit(out, &err) != FS_OK) {
        fprintf(stderr, "fleetsim: %s\n", err.msg);
        return FS_EXIT_RUNTIME;
    }
    return FS_EXIT_OK;
}

static int cmd_run(int argc, char **argv)
{
    fs_cli_parsed opt;
    if (fs_cli_parse("run", run_options, FS_COUNT(run_options), argc, argv, &opt) != 0)
        return FS_EXIT_USAGE;
    if (opt.values[RUN_HELP]) {
        run_usage(stdout);
        return FS_EXIT_OK;
    }
    if (opt.n_positional != 1) {
        fprintf(stderr, "fleetsim run: expected one SCENARIO file, got %d (see 'fleetsim run --help')\n",
                opt.n_positional);
        return FS_EXIT_USAGE;
    }
    int64_t seed = -1, replications = -1;
    double horizon = -1;
    const char *v;
    if ((v = opt.values[RUN_SEED]) && parse_count(v, INT64_MAX, &seed) != 0) {
        fprintf(stderr, "fleetsim run: --seed: expected a non-negative integer, got \"%s\"\n", v);
        return FS_EXIT_USAGE;
    }
    if ((v = opt.values[RUN_REPLICATIONS]) &&
        (parse_count(v, 10000, &replications) != 0 || replications < 1)) {
        fprintf(stderr, "fleetsim run: --replications: expected an integer from 1 to 10000, got \"%s\"\n", v);
        return FS_EXIT_USAGE;
    }
    char why[128];
    if ((v = opt.values[RUN_HORIZON]) &&
        (fs_duration_parse(v, &horizon, why, sizeof why) != 0 || horizon <= 0)) {
        fprintf(stderr, "fleetsim run: --horizon: expected a positive duration like 7d or 90m, got \"%s\"\n", v);
        return FS_EXIT_USAGE;
    }
    const char *format = opt.values[RUN_FORMAT] ? opt.values[RUN_FORMAT] : "table";
    if (strcmp(format, "table") && strcmp(format, "json") && strcmp(format, "csv")) {
        fprintf(stderr, "fleetsim run: --format: expected table, json or csv, got \"%s\"\n", format);
        return FS_EXIT_USAGE;
    }
    bool timing = !opt.values[RUN_NO_TIMING];

    fs_scenario *s;
    int status = load_scenario(opt.positional[0], &s);
    if (status != FS_EXIT_OK)
        return status;
    fs_error err = {0};
    if (fs_scenario_override(s, seed, replications, horizon, &err) != FS_OK) {
        fprintf(stderr, "fleetsim: %s\n", err.msg);
        fs_scenario_destroy(s);
        return FS_EXIT_USAGE;
    }
    fs_output out;
    if (opt.values[RUN_OUT] && fs_output_begin(&out, opt.values[RUN_OUT], &err) != FS_OK) {
        fprintf(stderr, "fleetsim: %s\n", err.msg);
        fs_scenario_destroy(s);
        return FS_EXIT_RUNTIME;
    }
    fs_results *r;
    int rc = fs_run_scenario(s, &r, &err);
    if (rc != FS_OK) {
        fprintf(stderr, "fleetsim: %s\n", err.msg);
        if (opt.values[RUN_OUT])
            fs_output_abort(&out);
        fs_scenario_destroy(s);
        return rc == FS_ERR_INPUT ? FS_EXIT_USAGE : FS_EXIT_RUNTIME;
    }
    for (size_t p = 0; p < r->n_policies; p++)
        for (size_t i = 0; i < s->n_services; i++)
            if (r->policies[p].loads[i].offered_load >= 1.0)
                fprintf(stderr, "fleetsim: warning: policy \"%s\": service \"%s\" is overloaded (offered load %.2f): %s\n",
                    r->policies[p].name, s->services[i].name, r->policies[p].loads[i].offered_load,
                    s->services[i].queue_limit == FS_QUEUE_UNLIMITED
                        ? "its queue grew without bound"
                        : "its queue sits at the limit and the excess is dropped");
    if (opt.values[RUN_OUT])
        status = write_outputs(r, &out, timing);
    if (status == FS_EXIT_OK) {
        if (strcmp(format, "json") == 0)
            rc = fs_results_json_write(r, timing, stdout, &err);
        else if (strcmp(format, "csv") == 0)
            rc = fs_results_csv_summary(r, stdout, &err);
        else
            rc = fs_table_write(r, stdout, &err);
        if (rc != FS_OK || fflush(stdout) != 0) {
            fprintf(stderr, "fleetsim: %s\n", rc != FS_OK ? err.msg : "cannot write to standard output");
            status = FS_EXIT_RUNTIME;
        }
    }
    fs_results_destroy(r);
    fs_scenario_destroy(s);
    return status;
}

static int cmd_validate(int argc, char **argv)
{
    fs_cli_parsed opt;
    if (fs_cli_parse("validate", validate_options, FS_COUNT(validate_options), argc, argv, &opt) != 0)
        return FS_EXIT_USAGE;
    if (opt.values[VALIDATE_HELP]) {
        validate_usage(stdout);
        return FS_EXIT_OK;
    }
    if (opt.n_positional != 1) {
        fprintf(stderr, "fleetsim validate: expected one SCENARIO file, got %d\n", opt.n_positional);
        return FS_EXIT_USAGE;
    }
    fs_scenario *s;
    int status = load_scenario(opt.positional[0], &s);
    if (status != FS_EXIT_OK)
        return status;
    char horizon[32], warmup[32], window[32];
    fs_duration_format(s->horizon_s, horizon, sizeof horizon);
    fs_duration_format(s->warmup_s, warmup, sizeof warmup);
    fs_duration_format(s->window_s, window, sizeof window);
    printf("%s: ok: scenario \"%s\", horizon %s, warm-up %s, window %s, seed %llu, %u replication(s)\n",
           s->path, s->name, horizon, warmup, window, (unsigned long long)s->seed, s->replications);
    for (size_t p = 0; p < s->n_policies; p++) {
        const fs_scenario *v = s->policies[p];
        fs_placement *placement;
        fs_error err = {0};
        int rc = fs_placement_compute(v, &placement, &err);
        if (rc != FS_OK) {
            fprintf(stderr, "fleetsim: %s%s%s\n", err.msg, s->n_policies > 1 ? " in policy " : "",
                    s->n_policies > 1 ? v->policy : "");
            fs_scenario_destroy(s);
            return rc == FS_ERR_INPUT ? FS_EXIT_USAGE : FS_EXIT_RUNTIME;
        }
        printf("  policy %s:\n", v->policy);
        for (size_t i = 0; i < v->n_pools; i++) {
            const fs_pool_spec *pool = &v->pools[i];
            const fs_pool_units *pu = &placement->pools[i];
            printf("    pool %s: %u x %s", pool->name, pool->gpus, pool->gpu);
            if (pool->partitioning == FS_PARTITION_MIG) {
                printf(", MIG");
                for (size_t k = 0; k < pool->mig.n; k++)
                    printf("%s %s@%u", k ? "," : "", pool->mig.profiles[k]->name, pool->mig.starts[k]);
            } else if (pool->partitioning == FS_PARTITION_TIME_SLICED) {
                printf(", time-sliced by %u", pool->time_slicing.tenants);
            }
            printf(": %zu of %zu units used, %.4g GB stranded\n", pu->n_units - pu->free_units,
                   pu->n_units, pu->stranded_memory_gb);
        }
        fs_placement_destroy(placement);
    }
    for (size_t i = 0; i < s->n_services; i++) {
        const fs_service_spec *svc = &s->services[i];
        printf("  service %s: %u replica(s) x %u concurrent, %.4g req/s base, %s service time "
               "(mean %.4g ms)\n",
               svc->name, svc->replicas, svc->concurrency,
               svc->arrivals.base_rps, fs_dist_kind_name(svc->service_time.kind),
               fs_dist_mean(&svc->service_time) * 1e3);
    }
    fs_scenario_destroy(s);
    return FS_EXIT_OK;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return FS_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        usage(stdout);
        return FS_EXIT_OK;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("fleetsim %s\n", FLEETSIM_VERSION);
        return FS_EXIT_OK;
    }
    if (strcmp(cmd, "run") == 0)
        return cmd_run(argc - 2, argv + 2);
    if (strcmp(cmd, "validate") == 0)
        return cmd_validate(argc - 2, argv + 2);
    fprintf(stderr, "fleetsim: unknown command '%s' (see 'fleetsim --help')\n", cmd);
    return FS_EXIT_USAGE;
}

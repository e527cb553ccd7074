/*
 * The help registry (help.h): every word the command line says about itself,
 * once, and the plain-text help printed from it.  The option tables stay
 * beside the code that parses them (main.c and cmd_*.c expose them through
 * commands.h); this file points at them.
 */
#include "help.h"

#include <assert.h>
#include <string.h>

#include "commands.h"

enum { PROG_HELP, PROG_VERSION };
static const fs_cli_option program_options[] = {
    [PROG_HELP] = {"help", 'h', NULL, "show this help ('fleetsim COMMAND --help' for a command)"},
    [PROG_VERSION] = {"version", 0, NULL, "print the version"},
};
static const fs_cli_table program_table = {program_options, (int)(sizeof program_options / sizeof *program_options),
                                           NULL};

const fs_cli_program fs_cli_help_program = {
    .whatis = "simulate GPU fleets that serve inference, compare policies and size fleets",
    .synopsis = "COMMAND [OPTIONS]",
    .description = "Simulates GPU fleets that serve inference, to compare pool policies and\n"
                   "size fleets against latency SLOs.",
    .reference = "'fleetsim COMMAND --help' prints a command's part of this reference.  The\n"
                 "help, the man page fleetsim(1), the Markdown reference in sim/cli/README.md\n"
                 "and the bash completion are all written by 'fleetsim help' from one source,\n"
                 "the command line's help registry (sim/cli/help.c), so they cannot disagree.",
    .options = &program_table,
    .exit_status = "0 success, 1 runtime failure, 2 usage or scenario error",
    .examples = "fleetsim validate scenarios/morning-tail.json\n"
                "fleetsim run scenarios/morning-tail.json --replications 5 --out results\n"
                "fleetsim report results\n"
                "fleetsim check scenarios/morning-tail.json \\\n"
                "    --baseline scenarios/morning-tail.baseline.json\n"
                "fleetsim help --completion bash >fleetsim.bash-completion\n",
};

const fs_cli_command fs_cli_help_commands[] = {
    {.name = "run", .operand = "SCENARIO", .summary = "simulate a scenario file and report the results",
     .synopsis = "run SCENARIO [OPTIONS]",
     .description = "Runs every replication of SCENARIO and prints a summary.  Figures cover\n"
                    "[warmup, horizon]; with several replications they carry 95% CIs.",
     .options = &fs_cli_run_options, .main = fs_cli_run},
    {.name = "compare", .operand = "SCENARIO", .summary = "run its policies side by side, with paired differences",
     .synopsis = "compare SCENARIO [OPTIONS]",
     .description = "Runs the scenario's policies on common random numbers (every policy sees the\n"
                    "same arrivals, service draws and job submissions) and prints them side by\n"
                    "side, each figure with its difference to the first policy and that\n"
                    "difference's 95% CI across replications.",
     .options = &fs_cli_compare_options, .main = fs_cli_compare},
    {.name = "report", .operand = "RESULTS_DIR", .summary = "write the capacity-review report (HTML, Markdown, charts)",
     .synopsis = "report RESULTS_DIR [--out DIR]",
     .description = "Writes index.html (one self-contained page), report.md and the charts\n"
                    "(gnuplot PNG and SVG, with their data as CSV and their scripts) for the\n"
                    "results that 'fleetsim run' or 'compare' wrote to RESULTS_DIR with --out,\n"
                    "or, for the --out of 'fleetsim plan', the plan: its answer and the frontier\n"
                    "of cost against p99; of 'fleetsim sensitivity', the inputs and the tornado.",
     .options = &fs_cli_report_options, .main = fs_cli_report},
    {.name = "validate", .operand = "SCENARIO", .summary = "check a scenario file and print what it describes",
     .synopsis = "validate SCENARIO",
     .description = "Checks SCENARIO and prints a one-line summary of each pool and service;\n"
                    "exit status 2 with the file, line:column or JSON path on any error.",
     .options = &fs_cli_validate_options, .main = fs_cli_validate},
    {.name = "check", .operand = "SCENARIO", .summary = "rerun and compare with a baseline; exit 1 if worse",
     .synopsis = "check SCENARIO --baseline FILE [--tolerance LIST] [--update] [--junit FILE] [--summary FILE]\n"
                 "[--set PATH=VALUE]... [--horizon D] [--warmup D] [--window D] [--max-events N]",
     .description = "Runs SCENARIO with its \"ci\" settings (horizon, replications, warmup) and\n"
                    "compares each policy's figures with FILE, matching policies, services and\n"
                    "training streams by name.  Prints a Markdown table and \"N metrics checked,\n"
                    "K worse\".  A policy, item or figure on one side only counts as worse.\n"
                    "--horizon and --warmup replace the \"ci\" ones; --set edits the scenario\n"
                    "before \"ci\" applies.  --junit and --summary also write the comparison\n"
                    "for CI: JUnit XML (a test case per metric) and Markdown for a pull request\n"
                    "or job summary.",
     .options = &fs_cli_check_options,
     .notes = "metrics: a figure is WORSE when it moved the wrong way by more than its\n"
              "tolerance (percent of the baseline) and by more than the absolute floor\n"
              "\n"
              "  key          figure                        better  default  floor\n",
     .notes_rows = fs_cli_check_metrics,
     .exit_status = "0 nothing worse (or baseline updated), 1 a metric worse or a\n"
                    "runtime failure, 2 usage, scenario or baseline error",
     .main = fs_cli_check},
    {.name = "sweep", .operand = "SWEEP.json", .summary = "run every point of a sweep on all cores (or one shard)",
     .synopsis = "sweep SWEEP.json [OPTIONS]",
     .description = "Runs every point x replication of a sweep file on the local cores and writes\n"
                    "DIR/points.csv and DIR/points.json: one row per point with every headline\n"
                    "figure and its 95% CI.  Each finished run is kept in DIR/runs/, so an\n"
                    "interrupted sweep rerun with the same --out goes on where it stopped.  With\n"
                    "--shard, only that shard's runs are made; 'fleetsim merge' combines shards.",
     .options = &fs_cli_sweep_options, .main = fs_cli_sweep},
    {.name = "merge", .operand = "DIR...", .summary = "combine sweep shards into one result",
     .synopsis = "merge DIR... [--out DIR]",
     .description = "Combines the runs that sweep shards wrote to one or more directories into\n"
                    "points.csv and points.json: latency histograms merge exactly and CIs are\n"
                    "recomputed, so the result is byte for byte what one machine's sweep gives.\n"
                    "Every run must be present in one of the directories, all of one sweep.",
     .options = &fs_cli_merge_options, .main = fs_cli_merge},
    {.name = "plan", .operand = "SCENARIO", .summary = "find the cheapest fleet that meets every constraint",
     .synopsis = "plan SCENARIO --vary PATH=VALUES ... --constraint EXPR ... [OPTIONS]",
     .description = "Finds the cheapest point of the grid that meets every constraint with 95%\n"
                    "confidence, and the frontier of cost against p99.  A point whose interval\n"
                    "straddles a limit gets more replications before it is judged.  Ranges are\n"
                    "taken as monotone (more is more capacity) and binary-searched; lists are\n"
                    "tried in full.  Paths: policies.NAME.pools[0].gpus, services[chat].replicas.max,\n"
                    "or 'policy' to choose among the scenario's policies.",
     .options = &fs_cli_plan_options, .main = fs_cli_plan},
    {.name = "sensitivity", .operand = "SCENARIO", .summary = "rank a scenario's inputs by their effect on a figure",
     .synopsis = "sensitivity SCENARIO (--vary PATH=LOW..HIGH | --vary-all PATH+-P%) ... --metric FIGURE [OPTIONS]",
     .description = "Varies each input one at a time to its low and high value around the scenario\n"
                    "as written, every point run for the same replications with common random\n"
                    "numbers, and ranks the inputs by the effect (figure at high minus at low,\n"
                    "paired by replication) with its 95% CI and elasticity; an effect whose\n"
                    "interval holds 0 is marked noise.  --vary-all varies every number under an\n"
                    "object by P% (integers rounded; zeros and lists of plain numbers left alone).\n"
                    "Writes DIR/sensitivity.json and .csv; 'fleetsim report DIR' draws the tornado.",
     .options = &fs_cli_sensitivity_options, .main = fs_cli_sensitivity},
    {.name = "fit-traffic", .operand = "TRACE",
     .summary = "fit a service's arrivals (rate, hourly profile, bursts) to a trace",
     .synopsis = "fit-traffic (TRACE.csv [--preset NAME | --time COL [--time-format F]\n"
                 "| --rate COL --window-start COL [--zero-is-gap]] [--start-weekday 0-6]\n"
                 "| --backtest SCENARIO.json [--service NAME] [--holdout F] [--slo-p99 D]\n"
                 "[--max-replicas N]) [--window D] [--format json|text]",
     .description = "Fits a service's \"arrivals\" (poisson_rps, hourly multipliers, bursts) to a\n"
                    "request trace (one row per request) or a rate series (one row per window).\n"
                    "stdout gets {\"arrivals\": {...}} to paste into a scenario; stderr the fit.\n"
                    "With --backtest, fits the first part of the trace a scenario's service\n"
                    "replays and simulates the rest: the replicas the fit needs against the replay's.",
     .options = &fs_cli_fit_options,
     .notes = "the fit:\n"
              "  rate of an hour of the day = its arrivals / its observed seconds (the\n"
              "  first and last hours count the seconds the input covers), for weekdays\n"
              "  and weekends apart when the input covers both; poisson_rps = the mean\n"
              "  rate, multiplier = hourly rate / poisson_rps; hours observed under 60 s\n"
              "  keep multiplier 1 and are listed as not covered.\n"
              "calendar: datetimes are UTC and carry their weekday; a numeric time 0 is\n"
              "  00:00 of --start-weekday.  Bursts' \"at\" counts from the first row's\n"
              "  midnight: replay them with the scenario's start_weekday set as reported.\n"
              "bursts (request traces): runs of windows with count > expected +\n"
              "  4 sqrt(expected); at most 20 listed, the largest first.\n"
              "rate series: a window of rate 0 is observed time with no arrivals (idle);\n"
              "  a missing row is a gap (not observed); --zero-is-gap makes a 0 a gap\n"
              "  too, for series that write 0 for an outage.  The report counts both.\n"
              "memory: 2 doubles per hour and per window of the span, whatever the rows.\n"
              "back-test: the trace is split at (1 - holdout) x its span on its own clock\n"
              "  (no rate_scale, shift or repeat); the fit is of the rows before the split.\n"
              "  Two variants of the scenario, the service alone in its first policy's pool,\n"
              "  replicas fixed, judged from the split to the trace's end: the replay, and\n"
              "  the fragment (with the trace's sized service times resampled).  For each,\n"
              "  the fewest replicas whose p99 over the replications pooled meets the target\n"
              "  (bisection over 1..--max-replicas; unfinished requests count as late), and\n"
              "  each one's p99 at both counts; the error is fit / replay - 1.\n",
     .exit_status = "0 fitted, 1 runtime failure, 2 usage or input error",
     .main = fs_cli_fit_traffic},
    {.name = "fit-jobs", .operand = "TRACE",
     .summary = "fit a training stream's job mix (gang sizes, run times, rate) to a job trace",
     .synopsis = "fit-jobs TRACE [--preset NAME | --time COL --gpus COL (--duration COL | --end COL)\n"
                 "[--time-format F]] [--where COL=TEXT]... [--quantiles N] [--independent]\n"
                 "[--format json|text]",
     .description = "Fits a training stream's job mix to a job trace (one row per job): \"gang\",\n"
                    "the empirical distribution of gang sizes; \"run_time_by_gang\", for each\n"
                    "class of gang sizes an empirical distribution of run-time quantiles that\n"
                    "keeps the heavy tail and the longest job, so large gangs that run longer\n"
                    "still do (--independent: one \"run_time\" for every gang); and \"submit\",\n"
                    "the submission rate.  stdout gets the fragment to paste into a training\n"
                    "stream; stderr the report: the gang table, run-time quantiles, a lognormal\n"
                    "fitted by maximum likelihood as the alternative, each class's quantiles,\n"
                    "the mean GPU-hours per job both ways, and the check: the fragment's\n"
                    "quantiles, as the simulator draws it, against the trace's.",
     .options = &fs_cli_fit_jobs_options,
     .notes = "the fit (models/traces/fit_jobs.h):\n"
              "  quantile q of n values = the sorted value at rank ceil(q n): the quantile of\n"
              "  an empirical distribution whose n samples are drawn with probability 1/n.\n"
              "  gang: every size seen keeps a sample; multiplicities round(share x M), at\n"
              "  least 1, for the M whose total (at most 2,000) gives the quantiles nearest\n"
              "  the trace's, then the least share error, then the fewest samples.\n"
              "  run time: 5N samples; N cells of 1/N up to 99%, each the trace's quantile at\n"
              "  the cell's upper end, written 5 times; above, one sample per 1/(5N), the\n"
              "  last the longest job.  Whole milliseconds (samples_ms).\n"
              "  run time 0: kept as 0-second jobs, left out of the lognormal (its KS\n"
              "  distance is against every job).  submit: (jobs - 1) / (last - first\n"
              "  submission), per hour; rows out of order are taken where written.\n"
              "  run_time_by_gang: gang sizes in ascending classes of at least max(200, 1% of\n"
              "  the jobs) jobs, a rarer size joined to the next larger, the rest to the\n"
              "  largest class; each class's run time built as above from its own jobs.\n"
              "  The report prints the trace's mean GPU-hours per job beside the by-gang\n"
              "  fragment's and the independent one's E[gang] x E[run time].\n"
              "examples:\n"
              "  fleetsim fit-jobs ../shared/data/philly-derived/chronus_trace_job_Philly_MIX1.csv \\\n"
              "      --preset philly-jobs\n"
              "  fleetsim fit-jobs pods.csv --preset alibaba-pods --where qos=BE --format text\n"
              "  fleetsim fit-jobs jobs.jsonl.gz --time submitted --gpus gpus --end finished \\\n"
              "      --time-format datetime --quantiles 1000 --format json\n",
     .exit_status = "0 fitted, 1 runtime failure, 2 usage or input error",
     .main = fs_cli_fit_jobs},
    {.name = "calibrate", .operand = "PROFILE",
     .summary = "refit a calibration profile from its recorded samples",
     .synopsis = "calibrate PROFILE.json [--out FILE]",
     .description = "Reads the raw samples a fleetsim-calibrate run recorded in PROFILE.json, fits\n"
                    "them again (the figures the simulator uses, every series fit, the validation\n"
                    "table, the LLM step-time model, CUDA graph capture, the mixed-workload check)\n"
                    "and writes the whole profile to --out or stdout.  The validation table and\n"
                    "the mixed check are printed as well (stderr when the profile goes to stdout).",
     .options = &fs_cli_calibrate_options,
     .notes = "validation: each series with 3 or more sizes is fitted without its largest\n"
              "  size, which the fit then predicts; the LLM step model (per layer,\n"
              "  c0 + c_prefill T + c_decode B + c_kv B L, least squares weighted by\n"
              "  1/seconds^2) is fitted on prefill-only and decode-only steps and predicts\n"
              "  the steps that mix both.  error = (predicted - measured) / measured.\n"
              "the simulator refuses a measured profile (one with samples or fits) that has\n"
              "  no validation table: run this command on it.\n",
     .exit_status = "0 written, 1 runtime failure, 2 usage or input error",
     .main = fs_cli_calibrate},
    {.name = "help", .operand = "[COMMAND]", .summary = "a command's help, or the man page, Markdown or completion",
     .synopsis = "help [COMMAND | --man | --markdown | --completion bash]",
     .description = "Prints the help of COMMAND, as 'fleetsim COMMAND --help' does, or without\n"
                    "one the list of commands.  --man writes the manual page fleetsim(1) in\n"
                    "troff, --markdown this reference in Markdown (as sim/cli/README.md holds\n"
                    "it) and --completion bash a bash completion script for fleetsim.",
     .options = &fs_cli_help_options, .main = fs_cli_help_main},
};
const int fs_cli_help_n_commands = (int)(sizeof fs_cli_help_commands / sizeof *fs_cli_help_commands);

const fs_cli_command *fs_cli_help_find(const char *name)
{
    for (int i = 0; i < fs_cli_help_n_commands; i++)
        if (strcmp(fs_cli_help_commands[i].name, name) == 0)
            return &fs_cli_help_commands[i];
    return NULL;
}

int fs_cli_help_parse(const char *name, int argc, char **argv, fs_cli_parsed *out)
{
    const fs_cli_command *c = fs_cli_help_find(name);
    assert(c);
    const fs_cli_table *t = c->options;
    if (fs_cli_parse(name, t->options, t->n, argc, argv, out) != 0)
        return FS_EXIT_USAGE;
    for (int i = 0; i < t->n; i++)
        if (strcmp(t->options[i].name, "help") == 0 && out->values[i]) {
            fs_cli_help_command(stdout, name);
            return FS_EXIT_OK;
        }
    return -1;
}

void fs_cli_help_synopsis(FILE *fp, const char *prefix, const fs_cli_command *c)
{
    assert(strncmp(c->synopsis, c->name, strlen(c->name)) == 0);
    int indent = (int)(strlen(prefix) + strlen(c->name) + 1);
    fputs(prefix, fp);
    for (const char *s = c->synopsis; *s; s++) {
        fputc(*s, fp);
        if (*s == '\n')
            fprintf(fp, "%*s", indent, "");
    }
}

void fs_cli_help_usage(FILE *fp)
{
    const fs_cli_program *p = &fs_cli_help_program;
    int width = 0;
    for (int i = 0; i < fs_cli_help_n_commands; i++) {
        int n = (int)(strlen(fs_cli_help_commands[i].name) + 1 + strlen(fs_cli_help_commands[i].operand));
        if (n > width)
            width = n;
    }
    fprintf(fp, "usage: fleetsim %s\n\n%s\n\ncommands:\n", p->synopsis, p->description);
    for (int i = 0; i < fs_cli_help_n_commands; i++) {
        const fs_cli_command *c = &fs_cli_help_commands[i];
        fprintf(fp, "  %s %-*s  %s\n", c->name, width - (int)strlen(c->name) - 1, c->operand, c->summary);
    }
    fputc('\n', fp);
    /* "  -x, --long" puts the text 4 columns further than a command's row. */
    fs_cli_help_at(fp, p->options->options, p->options->n, width - 4);
    fprintf(fp, "\nexit status: %s\n", p->exit_status);
}

void fs_cli_help_command(FILE *fp, const char *name)
{
    const fs_cli_command *c = fs_cli_help_find(name);
    assert(c);
    fs_cli_help_synopsis(fp, "usage: fleetsim ", c);
    fprintf(fp, "\n\n%s\n\n", c->description);
    fs_cli_help(fp, c->options->options, c->options->n);
    if (c->notes)
        fprintf(fp, "\n%s", c->notes);
    if (c->notes_rows)
        c->notes_rows(fp);
    if (c->exit_status)
        fprintf(fp, "\nexit status: %s\n", c->exit_status);
}

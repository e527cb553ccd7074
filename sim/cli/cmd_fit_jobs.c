/*
 * fleetsim fit-jobs — a training stream's job mix fitted from a job trace.
 *
 *   fleetsim fit-jobs TRACE [--preset philly-jobs|alibaba-pods | --time COL --gpus COL
 *                     (--duration COL | --end COL) [--time-format F]] [--where COL=TEXT]...
 *                     [--quantiles N] [--independent] [--format json|text]
 *
 * Reads the trace through models/traces/trace.h (CSV or JSON Lines, plain or
 * gzip, presets, filters), fits it with models/traces/fit_jobs.h (which
 * states the definitions) and prints:
 *   - default: the fragment {"gang": ..., "run_time_by_gang": ..., "submit":
 *     ...} on stdout, to paste into a training stream, and the report on
 *     stderr; --independent: "run_time" instead of "run_time_by_gang", the
 *     run time drawn apart from the gang (the report gives both);
 *   - --format text: the report, then the fragment, on stdout;
 *   - --format json: one document, {"fragment": ..., "fit": {figures}}.
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

#include "cmd_fit.h"
#include "commands.h"
#include "duration.h"
#include "fit_jobs.h"
#include "help.h"
#include "options.h"
#include "terminal.h"
#include "trace.h"

enum { FJ_PRESET, FJ_TIME, FJ_GPUS, FJ_DURATION, FJ_END, FJ_TIME_FORMAT, FJ_WHERE, FJ_QUANTILES, FJ_INDEPENDENT,
       FJ_FORMAT, FJ_HELP };
static const fs_cli_option fj_options[] = {
    [FJ_PRESET] = {"preset", 'p', "NAME", "a known job trace: philly-jobs or alibaba-pods"},
    [FJ_TIME] = {"time", 't', "COL", "the submission-time column"},
    [FJ_GPUS] = {"gpus", 0, "COL", "the GPU-count column (the gang; 0 and fractions read as whole GPUs)"},
    [FJ_DURATION] = {"duration", 0, "COL", "the run-time column, in seconds ..."},
    [FJ_END] = {"end", 0, "COL", "... or the end-time column, in the time column's format"},
    [FJ_TIME_FORMAT] = {"time-format", 0, "F", "seconds (default), ms, us or datetime (UTC)"},
    [FJ_WHERE] = {"where", 'w', "COL=TEXT", "keep only rows whose COL is TEXT (repeat: a column's texts OR, columns AND)"},
    [FJ_QUANTILES] = {"quantiles", 'q', "N", "run-time cells, 10 to 20000 (default 200: 1,000 samples)"},
    [FJ_INDEPENDENT] = {"independent", 0, NULL, "one \"run_time\" for every gang, not \"run_time_by_gang\""},
    [FJ_FORMAT] = {"format", 'f', "FMT", "json (fragment and figures) or text (report) on stdout"},
    [FJ_HELP] = {"help", 'h', NULL, "show this help"},
};
#define FJ_N_OPTIONS ((int)(sizeof fj_options / sizeof fj_options[0]))
/* --time-format's words in the order of fs_trace_time_format. */
static const char *const fj_choices[FJ_N_OPTIONS] = {[FJ_PRESET] = "philly-jobs alibaba-pods",
                                                     [FJ_TIME_FORMAT] = "seconds ms us datetime",
                                                     [FJ_FORMAT] = "json text"};
const fs_cli_table fs_cli_fit_jobs_options = {fj_options, FJ_N_OPTIONS, fj_choices};

static int fj_usage_error(const char *what)
{
    return fs_cli_fit_usage("fit-jobs", what);
}

/* ---- the spec ------------------------------------------------------------ */

/* Adds TEXT to COL's filter (a new one for a new column).  FS_OK, or an
 * error for a value without "COL=" or out of memory. */
static int fj_add_where(fs_trace_spec *spec, const char *arg, fs_error *err)
{
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg)
        return fs_error_set(err, FS_ERR_INPUT, "--where: expected COL=TEXT, got \"%s\"", arg);
    size_t len = (size_t)(eq - arg), i = 0;
    while (i < spec->n_where && (strlen(spec->where[i].col) != len || strncmp(spec->where[i].col, arg, len) != 0))
        i++;
    if (i == spec->n_where) {
        fs_trace_where *grown = realloc(spec->where, (i + 1) * sizeof *grown);
        if (!grown)
            return fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
        spec->where = grown;
        spec->where[i] = (fs_trace_where){.col = strndup(arg, len)};
        spec->n_where++;
        if (!spec->where[i].col)
            return fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
    }
    fs_trace_where *w = &spec->where[i];
    char **values = realloc(w->values, (w->n_values + 1) * sizeof *values);
    if (!values)
        return fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
    w->values = values;
    if (!(w->values[w->n_values] = strdup(eq + 1)))
        return fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
    w->n_values++;
    return FS_OK;
}

/* The trace spec the options describe (fini it whatever the status). */
static int fj_spec(const fs_cli_parsed *opt, const char *path, fs_trace_spec *spec, fs_error *err)
{
    *spec = (fs_trace_spec){0};
    int rc = FS_OK;
    if (opt->values[FJ_PRESET]) {
        rc = fs_trace_preset(opt->values[FJ_PRESET], path, spec, err);
        if (rc == FS_OK && spec->kind != FS_TRACE_JOBS)
            rc = fs_error_set(err, FS_ERR_INPUT, "--preset %s is a request trace's: fit-jobs reads job traces "
                              "(philly-jobs, alibaba-pods)", opt->values[FJ_PRESET]);
    } else {
        const char *fmt = opt->values[FJ_TIME_FORMAT];
        int format = fmt ? fs_cli_choice(&fs_cli_fit_jobs_options, FJ_TIME_FORMAT, fmt) : FS_TRACE_TIME_SECONDS;
        if (format < 0)
            return fs_error_set(err, FS_ERR_INPUT, "--time-format: expected seconds, ms, us or datetime, got \"%s\"",
                                fmt);
        const char *dur = opt->values[FJ_DURATION], *end = opt->values[FJ_END];
        *spec = (fs_trace_spec){.path = strdup(path), .kind = FS_TRACE_JOBS, .time_col = strdup(opt->values[FJ_TIME]),
                                .time_format = (fs_trace_time_format)format, .gpus_col = strdup(opt->values[FJ_GPUS]),
                                .duration_col = dur ? strdup(dur) : NULL, .end_col = end ? strdup(end) : NULL,
                                .rate_scale = 1, .tolerance_s = 1};
        if (!spec->path || !spec->time_col || !spec->gpus_col || (dur && !spec->duration_col) ||
            (end && !spec->end_col))
            rc = fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
    }
    for (int k = 0; rc == FS_OK && k < opt->n_given; k++)
        if (opt->given[k].option == FJ_WHERE)
            rc = fj_add_where(spec, opt->given[k].value, err);
    return rc;
}

/* ---- the fragment -------------------------------------------------------- */

static json_t *fj_duration(double s)
{
    char buf[48];
    fs_duration_format(s, buf, sizeof buf);
    return json_string(buf);
}

/* "gang": the one size as an integer, or {"empirical": {"samples": [...]}}. */
static json_t *fj_gang_json(const fs_fit_jobs *f)
{
    if (f->n_gangs == 1)
        return json_integer(f->gangs[0].gpus);
    json_t *samples = json_array();
    for (size_t k = 0; k < f->n_gang_samples; k++)
        json_array_append_new(samples, json_integer(f->gang_samples[k]));
    return json_pack("{s:{s:o}}", "empirical", "samples", samples);
}

/* A run time: {"empirical": {"samples_ms": [...]}}: whole milliseconds. */
static json_t *fj_run_json(const double *run_samples, size_t n)
{
    json_t *samples = json_array();
    for (size_t k = 0; k < n; k++)
        json_array_append_new(samples, json_integer((json_int_t)llround(run_samples[k] * 1000)));
    return json_pack("{s:{s:o}}", "empirical", "samples_ms", samples);
}

/* A class's sizes, [8, 16, 32]. */
static json_t *fj_class_gangs(const fs_fit_jobs *f, const fs_fit_jobs_class *c)
{
    json_t *gangs = json_array();
    for (size_t g = c->first; g < c->first + c->n_sizes; g++)
        json_array_append_new(gangs, json_integer(f->gangs[g].gpus));
    return gangs;
}

/* "run_time_by_gang": [{"gangs": [...], "run_time": {...}}, ...]. */
static json_t *fj_by_gang_json(const fs_fit_jobs *f)
{
    json_t *classes = json_array();
    for (size_t c = 0; c < f->n_classes; c++) {
        const fs_fit_jobs_class *k = &f->classes[c];
        json_array_append_new(classes, json_pack("{s:o, s:o}", "gangs", fj_class_gangs(f, k), "run_time",
                                                 fj_run_json(k->run_samples, k->n_run_samples)));
    }
    return classes;
}

/* The lognormal alternative, in the same syntax; NULL without one. */
static json_t *fj_lognormal_json(const fs_fit_jobs *f)
{
    if (!isfinite(f->lognormal_ks))
        return NULL;
    return json_pack("{s:{s:o, s:o}}", "lognormal", "median", fj_duration(floor(f->lognormal_median_s * 1000 + 0.5) / 1000),
                     "sigma", fs_cli_fit_num(f->lognormal_sigma, 4));
}

static json_t *fj_fragment_json(const fs_fit_jobs *f, bool independent)
{
    json_t *frag = independent ? json_pack("{s:o, s:o}", "gang", fj_gang_json(f), "run_time",
                                           fj_run_json(f->run_samples, f->n_run_samples))
                               : json_pack("{s:o, s:o}", "gang", fj_gang_json(f), "run_time_by_gang",
                                           fj_by_gang_json(f));
    if (frag && isfinite(f->rate_per_hour))
        json_object_set_new(frag, "submit", json_pack("{s:o}", "poisson_per_hour", fs_cli_fit_num(f->rate_per_hour, 4)));
    return frag;
}

/* One key a line: the sample lists are long, the keys should be easy to find. */
static int fj_print_fragment(FILE *fp, const json_t *frag)
{
    fputs("{\n", fp);
    int rc = fs_cli_fit_print_members(fp, frag);
    fputs("}\n", fp);
    return rc;
}

/* ---- the report ---------------------------------------------------------- */

static json_t *fj_check_json(const fs_fit_jobs_check c[FS_FIT_JOBS_N_CHECK], int digits)
{
    json_t *a = json_array();
    for (int k = 0; k < FS_FIT_JOBS_N_CHECK; k++)
        json_array_append_new(a, json_pack("{s:o, s:o, s:o, s:o}", "q", fs_cli_fit_num(c[k].q, 6), "trace",
                                           fs_cli_fit_num(c[k].trace, digits), "fragment", fs_cli_fit_num(c[k].fragment, digits),
                                           "rel_err", fs_cli_fit_num(c[k].rel_err, 4)));
    return a;
}

/* The by-gang fit: each class against its own jobs, the mixture against
 * every job. */
static json_t *fj_by_gang_fit_json(const fs_fit_jobs *f)
{
    json_t *classes = json_array();
    for (size_t c = 0; c < f->n_classes; c++) {
        const fs_fit_jobs_class *k = &f->classes[c];
        json_array_append_new(
            classes, json_pack("{s:o, s:I, s:o, s:o, s:o, s:o, s:o, s:o}", "gangs", fj_class_gangs(f, k), "jobs",
                               (json_int_t)k->jobs, "share", fs_cli_fit_num((double)k->jobs / (double)f->jobs, 6),
                               "fragment_share", fs_cli_fit_num((double)k->copies / (double)f->n_gang_samples, 6),
                               "mean_s", fs_cli_fit_num(k->run_mean, 6), "fragment_mean_s",
                               fs_cli_fit_num(k->run_fragment_mean, 6), "quantile_check", fj_check_json(k->run_check, 10),
                               "largest_error", fs_cli_fit_num(k->run_max_err, 4)));
    }
    return json_pack("{s:I, s:o, s:{s:o, s:o, s:o}}", "min_class_jobs", (json_int_t)f->min_class_jobs, "classes",
                     classes, "mixture", "fragment_mean_s", fs_cli_fit_num(f->mixture_mean, 6), "quantile_check",
                     fj_check_json(f->mixture_check, 10), "largest_error", fs_cli_fit_num(f->mixture_max_err, 4));
}

/* The printed fragment's largest quantile error: the gang's and the run
 * time's, drawn as the fragment draws it. */
static double fj_largest_error(const fs_fit_jobs *f, bool independent)
{
    return fmax(f->gang_max_err, independent ? f->run_max_err : f->mixture_max_err);
}

static json_t *fj_fit_json(const char *path, const fs_fit_jobs *f, bool independent)
{
    json_t *gangs = json_array();
    for (size_t k = 0; k < f->n_gangs; k++) {
        const fs_fit_jobs_gang *g = &f->gangs[k];
        json_array_append_new(gangs, json_pack("{s:I, s:I, s:o, s:I, s:o}", "gpus", (json_int_t)g->gpus, "jobs",
                                               (json_int_t)g->count, "share", fs_cli_fit_num(g->share, 6), "samples",
                                               (json_int_t)g->copies, "fragment_share", fs_cli_fit_num(g->printed_share, 6)));
    }
    json_t *lognormal = json_pack("{s:I, s:o, s:o, s:o, s:o}", "fitted_to", (json_int_t)f->lognormal_n, "median_s",
                                  fs_cli_fit_num(f->lognormal_median_s, 6), "sigma", fs_cli_fit_num(f->lognormal_sigma, 6), "ks",
                                  fs_cli_fit_num(f->lognormal_ks, 4), "quantiles", fj_check_json(f->lognormal_check, 10));
    json_t *alt = fj_lognormal_json(f);
    if (lognormal && alt)
        json_object_set_new(lognormal, "fragment", alt);
    json_t *run = json_pack("{s:I, s:I, s:o, s:o, s:o, s:o, s:{s:o, s:o}}", "quantiles", (json_int_t)f->quantiles,
                            "samples", (json_int_t)f->n_run_samples, "mean_s", fs_cli_fit_num(f->run_mean, 6),
                            "fragment_mean_s", fs_cli_fit_num(f->run_fragment_mean, 6), "quantile_check",
                            fj_check_json(f->run_check, 10), "largest_error", fs_cli_fit_num(f->run_max_err, 4),
                            "between_points", "largest_error", fs_cli_fit_num(f->run_fine_err, 4), "at_q",
                            fs_cli_fit_num(f->run_fine_q, 4));
    json_t *gang = json_pack("{s:o, s:I, s:o, s:o, s:o, s:o, s:o}", "sizes", gangs, "samples",
                             (json_int_t)f->n_gang_samples, "largest_share_error", fs_cli_fit_num(f->gang_share_err, 4),
                             "mean", fs_cli_fit_num(f->gang_mean, 6), "fragment_mean", fs_cli_fit_num(f->gang_fragment_mean, 6),
                             "quantile_check", fj_check_json(f->gang_check, 6), "largest_error",
                             fs_cli_fit_num(f->gang_max_err, 4));
    /* "fragment": the printed one's; "by_gang" and "independent" both. */
    json_t *gpu_hours = json_pack("{s:o, s:o, s:o, s:o, s:o}", "trace", fs_cli_fit_num(f->gpu_hours, 6),
                                  "trace_drawn_apart", fs_cli_fit_num(f->independent_gpu_hours, 6), "by_gang",
                                  fs_cli_fit_num(f->by_gang_gpu_hours, 6), "independent",
                                  fs_cli_fit_num(f->fragment_gpu_hours, 6), "fragment",
                                  fs_cli_fit_num(independent ? f->fragment_gpu_hours : f->by_gang_gpu_hours, 6));
    return json_pack("{s:s, s:I, s:I, s:I, s:o, s:o, s:s, s:o, s:o, s:o, s:o, s:o, s:o}", "trace", path, "jobs",
                     (json_int_t)f->jobs, "zero_duration_jobs", (json_int_t)f->zero_jobs, "out_of_order_rows",
                     (json_int_t)f->out_of_order, "span_s", fs_cli_fit_num(f->span_s, 10), "submissions_per_hour",
                     fs_cli_fit_num(f->rate_per_hour, 6), "fragment_run_time",
                     independent ? "run_time" : "run_time_by_gang", "gang", gang, "run_time", run, "by_gang",
                     fj_by_gang_fit_json(f), "lognormal", lognormal, "gpu_hours_per_job", gpu_hours,
                     "largest_quantile_error", fs_cli_fit_num(fj_largest_error(f, independent), 4));
}

static const char *fj_q_name(double q, char *buf, size_t size)
{
    if (q >= 1)
        snprintf(buf, size, "max");
    else
        snprintf(buf, size, "p%.4g", 100 * q);
    return buf;
}

/* A duration for the report: "2m 17s"-style text, "-" when not finite. */
static const char *fj_dur(double s, char *buf, size_t size)
{
    if (!isfinite(s))
        snprintf(buf, size, "-");
    else
        fs_duration_format(floor(s * 1000 + 0.5) / 1000, buf, size);
    return buf;
}

/* Run time by gang: each class's quantiles (trace / fragment), then the
 * mixture's against every job. */
static void fj_report_by_gang(FILE *fp, const fs_fit_jobs *f)
{
    char a[48], b[48], q[16];
    fprintf(fp, "\nrun time by gang (\"run_time_by_gang\": classes of at least %llu jobs, the more of %d and %g%% of "
                "them; a rarer size joins the next larger, the largest class takes the rest):\n",
            (unsigned long long)f->min_class_jobs, FS_FIT_JOBS_CLASS_JOBS, 100 * FS_FIT_JOBS_CLASS_SHARE);
    for (size_t c = 0; c < f->n_classes; c++) {
        const fs_fit_jobs_class *k = &f->classes[c];
        fprintf(fp, "  gangs");
        for (size_t g = k->first; g < k->first + k->n_sizes; g++)
            fprintf(fp, "%s%u", g == k->first ? " " : ", ", (unsigned)f->gangs[g].gpus);
        fprintf(fp, ": %llu jobs (%.3f%%; fragment %.3f%%), mean %s (fragment %s), largest error %.3g%%\n   ",
                (unsigned long long)k->jobs, 100.0 * (double)k->jobs / (double)f->jobs,
                100.0 * k->copies / (double)f->n_gang_samples, fj_dur(k->run_mean, a, sizeof a),
                fj_dur(k->run_fragment_mean, b, sizeof b), 100 * k->run_max_err);
        for (int r = 0; r < FS_FIT_JOBS_N_CHECK; r++)
            fprintf(fp, " %s %s/%s", fj_q_name(k->run_check[r].q, q, sizeof q),
                    fj_dur(k->run_check[r].trace, a, sizeof a), fj_dur(k->run_check[r].fragment, b, sizeof b));
        fputc('\n', fp);
    }
    fprintf(fp, "  the mixture (a gang, then its class's run time, as the simulator draws them) against every job:\n");
    fprintf(fp, "  quantile  %14s  %14s  %8s\n", "trace", "fragment", "error");
    for (int r = 0; r < FS_FIT_JOBS_N_CHECK; r++) {
        const fs_fit_jobs_check *m = &f->mixture_check[r];
        fprintf(fp, "  %-8s  %14s  %14s  %+7.3f%%\n", fj_q_name(m->q, q, sizeof q), fj_dur(m->trace, a, sizeof a),
                fj_dur(m->fragment, b, sizeof b), 100 * m->rel_err);
    }
    fprintf(fp, "  mean      %14s  %14s  %+7.3f%%\n", fj_dur(f->run_mean, a, sizeof a),
            fj_dur(f->mixture_mean, b, sizeof b), 100 * (f->mixture_mean / f->run_mean - 1));
}

static void fj_report(FILE *fp, const char *path, const fs_fit_jobs *f, bool independent)
{
    char a[48], b[48], c[48];
    fprintf(fp, "fleetsim fit-jobs: %s\n", path);
    fprintf(fp, "jobs: %llu (%llu with run time 0, kept as 0-second jobs; %llu rows submitted before a row above "
                "them, each taken where written)\n",
            (unsigned long long)f->jobs, (unsigned long long)f->zero_jobs, (unsigned long long)f->out_of_order);
    if (isfinite(f->rate_per_hour))
        fprintf(fp, "span: %s (first to last submission); %.6g submissions/h ((jobs - 1) / span)\n",
                fj_dur(f->span_s, a, sizeof a), f->rate_per_hour);
    else
        fprintf(fp, "span: 0 (every job at one time): no rate, the fragment has no \"submit\"\n");
    fprintf(fp, "\ngang sizes (the fragment: %zu samples, largest share error %.3g points):\n", f->n_gang_samples,
            100 * f->gang_share_err);
    fprintf(fp, "     gpus        jobs    share   samples  fragment\n");
    for (size_t k = 0; k < f->n_gangs; k++) {
        const fs_fit_jobs_gang *g = &f->gangs[k];
        fprintf(fp, "  %7u  %10llu  %6.3f%%  %8u  %7.3f%%\n", (unsigned)g->gpus, (unsigned long long)g->count,
                100 * g->share, (unsigned)g->copies, 100 * g->printed_share);
    }
    fprintf(fp, "  mean %.4g GPUs (fragment %.4g)\n", f->gang_mean, f->gang_fragment_mean);
    fprintf(fp, "\nrun time (the fragment: %zu samples, %zu cells, the top 1%% %dx finer; the lognormal: MLE over "
                "%llu run times > 0):\n",
            f->n_run_samples, f->quantiles, FS_FIT_JOBS_TAIL_SPLIT, (unsigned long long)f->lognormal_n);
    fprintf(fp, "  quantile  %14s  %14s  %8s  %14s  %8s\n", "trace", "fragment", "error", "lognormal", "error");
    for (int k = 0; k < FS_FIT_JOBS_N_CHECK; k++) {
        const fs_fit_jobs_check *r = &f->run_check[k], *l = &f->lognormal_check[k];
        char q[16];
        char le[16] = "-";
        if (isfinite(l->rel_err))
            snprintf(le, sizeof le, "%+.1f%%", 100 * l->rel_err);
        fprintf(fp, "  %-8s  %14s  %14s  %+7.3f%%  %14s  %8s\n", fj_q_name(r->q, q, sizeof q),
                fj_dur(r->trace, a, sizeof a), fj_dur(r->fragment, b, sizeof b), 100 * r->rel_err,
                fj_dur(l->fragment, c, sizeof c), le);
    }
    fprintf(fp, "  mean      %14s  %14s  %+7.3f%%\n", fj_dur(f->run_mean, a, sizeof a),
            fj_dur(f->run_fragment_mean, b, sizeof b), 100 * (f->run_fragment_mean / f->run_mean - 1));
    if (f->run_fine_err > 0)
        fprintf(fp, "  between the grid's points (every 0.1%% and the max): largest error %.3g%% at p%.4g\n",
                100 * f->run_fine_err, 100 * f->run_fine_q);
    else
        fprintf(fp, "  between the grid's points (every 0.1%% and the max): no error\n");
    fprintf(fp, "lognormal alternative: median %s, sigma %.4g; KS distance %.4g against all %llu jobs\n",
            fj_dur(f->lognormal_median_s, a, sizeof a), f->lognormal_sigma, f->lognormal_ks,
            (unsigned long long)f->jobs);
    json_t *alt = fj_lognormal_json(f);
    char *text = alt ? json_dumps(alt, JSON_COMPACT | JSON_REAL_PRECISION(10)) : NULL;
    if (text)
        fprintf(fp, "  \"run_time\": %s\n", text);
    free(text);
    json_decref(alt);
    fj_report_by_gang(fp, f);
    fprintf(fp, "\nmean GPU-hours per job: %.6g in the trace (gang x run time, job by job); %.6g from the fragment "
                "by gang (run_time_by_gang, %+.3g%%); %.6g from the independent fragment (--independent: "
                "E[gang] x E[run time], %+.3g%%); %.6g if the trace's own gang and run time were drawn apart\n",
            f->gpu_hours, f->by_gang_gpu_hours, 100 * (f->by_gang_gpu_hours / f->gpu_hours - 1),
            f->fragment_gpu_hours, 100 * (f->fragment_gpu_hours / f->gpu_hours - 1), f->independent_gpu_hours);
    /* A trace whose large gangs also run long (Philly's) loses that when
     * the two are drawn apart: say so where it changes the offered load. */
    if (fabs(f->independent_gpu_hours / f->gpu_hours - 1) > 0.05)
        fprintf(fp, "  note: gang and run time are correlated in the trace: drawn apart, its own marginals offer "
                    "%+.3g%% GPU-hours per job\n",
                100 * (f->independent_gpu_hours / f->gpu_hours - 1));
    if (fabs(f->run_fragment_mean / f->run_mean - 1) > 0.05)
        fprintf(fp, "  note: the fragment's mean run time is %+.3g%% off the trace's (its longest job weighs 1/%zu, "
                    "not 1/%llu): a larger --quantiles brings it closer\n",
                100 * (f->run_fragment_mean / f->run_mean - 1), f->n_run_samples, (unsigned long long)f->jobs);
    fprintf(fp, "gang quantiles (trace / fragment):");
    for (int k = 0; k < FS_FIT_JOBS_N_CHECK; k++) {
        char q[16];
        fprintf(fp, " %s %.0f/%.0f", fj_q_name(f->gang_check[k].q, q, sizeof q), f->gang_check[k].trace,
                f->gang_check[k].fragment);
    }
    fprintf(fp, "\ncheck (the %s fragment's quantiles, as the simulator draws its samples, against the trace's): "
                "largest error %.3g%% (gang %.3g%%, run time %.3g%%)\n",
            independent ? "independent" : "by-gang", 100 * fj_largest_error(f, independent), 100 * f->gang_max_err,
            100 * (independent ? f->run_max_err : f->mixture_max_err));
}

/* ---- the command --------------------------------------------------------- */

static int fj_print(const char *format, const char *path, const fs_fit_jobs *f, bool independent)
{
    int status = FS_EXIT_OK;
    json_t *frag = fj_fragment_json(f, independent);
    if (!frag) {
        status = FS_EXIT_RUNTIME;
    } else if (format && strcmp(format, "json") == 0) {
        json_t *doc = json_pack("{s:O, s:o}", "fragment", frag, "fit", fj_fit_json(path, f, independent));
        if (!doc || json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(10)) != 0 ||
            fputc('\n', stdout) == EOF)
            status = FS_EXIT_RUNTIME;
        json_decref(doc);
    } else {
        FILE *report = format ? stdout : stderr;
        fj_report(report, path, f, independent);
        if (format)
            fputs("\nfragment (paste into a training stream):\n", stdout);
        if (fj_print_fragment(stdout, frag) != 0)
            status = FS_EXIT_RUNTIME;
    }
    json_decref(frag);
    if (fflush(stdout) != 0)
        status = FS_EXIT_RUNTIME;
    if (status != FS_EXIT_OK)
        fprintf(stderr, "fleetsim: fit-jobs: cannot write the output (out of memory or a write error)\n");
    return status;
}

/* The option combinations, before any file is read. */
static int fj_check_options(const fs_cli_parsed *opt)
{
    const char *format = opt->values[FJ_FORMAT];
    if (format && fs_cli_choice(&fs_cli_fit_jobs_options, FJ_FORMAT, format) < 0)
        return fj_usage_error("--format: expected json or text");
    if (opt->n_positional != 1)
        return fj_usage_error("expected one TRACE");
    bool columns = opt->values[FJ_TIME] || opt->values[FJ_GPUS] || opt->values[FJ_DURATION] || opt->values[FJ_END] ||
                   opt->values[FJ_TIME_FORMAT];
    if (opt->values[FJ_PRESET] && columns)
        return fj_usage_error("--preset names the columns: give it, or --time, --gpus and --duration or --end");
    if (!opt->values[FJ_PRESET] && (!opt->values[FJ_TIME] || !opt->values[FJ_GPUS] ||
                                    !opt->values[FJ_DURATION] == !opt->values[FJ_END]))
        return fj_usage_error("give --preset, or --time COL, --gpus COL and one of --duration COL or --end COL");
    return FS_EXIT_OK;
}

int fs_cli_fit_jobs(int argc, char **argv)
{
    fs_cli_parsed opt;
    int status = fs_cli_help_parse("fit-jobs", argc, argv, &opt);
    if (status >= 0)
        return status;
    if ((status = fj_check_options(&opt)) != FS_EXIT_OK)
        return status;
    uint64_t quantiles = FS_FIT_JOBS_QUANTILES;
    if (opt.values[FJ_QUANTILES] && fs_cli_parse_count(opt.values[FJ_QUANTILES], FS_FIT_JOBS_MIN_QUANTILES,
                                                       FS_FIT_JOBS_MAX_QUANTILES, &quantiles) != 0) {
        fs_terminal_say(stderr, "fleetsim fit-jobs: --quantiles: expected a whole number from %d to %d, got \"%s\"",
                        FS_FIT_JOBS_MIN_QUANTILES, FS_FIT_JOBS_MAX_QUANTILES, opt.values[FJ_QUANTILES]);
        return FS_EXIT_USAGE;
    }
    const char *path = opt.positional[0];
    fs_error err = {0};
    fs_trace_spec spec;
    fs_fit_jobs_acc acc;
    fs_fit_jobs_acc_init(&acc);
    fs_fit_jobs fit = {0};
    int rc = fj_spec(&opt, path, &spec, &err);
    if (rc == FS_OK)
        rc = fs_fit_jobs_read(&spec, &acc, &err);
    if (rc == FS_OK)
        rc = fs_fit_jobs_compute(&acc, (size_t)quantiles, &fit, &err);
    bool independent = opt.values[FJ_INDEPENDENT] != NULL;
    status = rc == FS_OK ? fj_print(opt.values[FJ_FORMAT], path, &fit, independent) : fs_cli_fit_fail(rc, &err);
    fs_fit_jobs_fini(&fit);
    fs_fit_jobs_acc_fini(&acc);
    fs_trace_spec_fini(&spec);
    return status;
}

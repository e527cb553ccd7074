/*
 * fleetsim fit-jobs and models/traces/fit_jobs: the fit on jobs added by
 * hand (exact samples), then the command on a synthetic job trace written
 * here with a known gang mix and lognormal run times drawn with GSL (fixed
 * seed): the gang shares within 0.5 points, the fragment's run-time
 * quantiles within 2% of the trace's, the lognormal's median and sigma
 * within 4 standard errors, the fragment read back by the scenario's own
 * distribution parsers (as a training stream's "gang" and "run_time" will
 * read it); run time by gang on a synthetic trace whose large gangs run
 * longer (the classes, the mean GPU-hours per job against the trace's, the
 * fragment run in the simulator); the shared Philly and Alibaba job lists
 * where ../shared/data has them; and bad input.
 *
 * The 2% bound: the fragment puts a point at every grid probability (k/S,
 * fit_jobs.h), so at p10 .. p99.9 and the max its quantiles are the
 * trace's up to the whole-millisecond rounding of the printed samples; 2%
 * is what the issue asks, and the measured error is printed beside it.
 */
#include <jansson.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "dist.h"
#include "fit_jobs.h"
#include "results.h"
#include "jsonpath.h"
#include "scenario_parse.h"
#include "testtrace.h"
#include "testutil.h"

#define SHARED FS_SOURCE_DIR "/../shared/data"
#define QUANTILE_TOL 0.02
/* The by-gang fragment's mean GPU-hours per job against the trace's.  On
 * the synthetic trace (exact gang shares) the error is the classes' upper
 * cell ends, +2.5% measured: 3%.  On the shared lists the
 * gang fragment's rounding of rare sizes adds to it (Philly: 12, 20 and 32
 * GPUs, 17 jobs, 3 samples of 2,000: +5.7% at the default grid, +4.2% at
 * 2,000 cells): 8%. */
#define BY_GANG_TOL 0.03
#define SHARED_BY_GANG_TOL 0.08
/* The mixture's quantiles against every job's: a check point of the whole
 * falls between its classes' grid points, where a class's fragment is up
 * to a cell off (steepest at the bottom: the synthetic p1, 7% measured):
 * 10%. */
#define MIXTURE_TOL 0.10

static char tmp[256];

/* testtrace.h's: fails unless |got - want| <= tol. */
#define assert_near test_trace_near

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The test's own quantile, written apart from the module's: the value at
 * rank ceil(q n) of the sorted values. */
static double oracle_quantile(const double *sorted, size_t n, double q)
{
    size_t rank = (size_t)ceil(q * (double)n - 1e-9);
    return sorted[(rank < 1 ? 1 : rank > n ? n : rank) - 1];
}

/* ---- the fit on jobs added by hand --------------------------------------- */

/* 1,000 jobs of 1 .. 1,000 s, three of 1 GPU to one of 2: with 200 cells
 * (1,000 samples) the body's sample k is its cell's upper end, 5 ceil(k/5)
 * seconds; the top 1% has one sample a second, 991 .. 1,000.  The gang
 * shares divide exactly: 4 samples. */
static void test_by_hand(void **state)
{
    (void)state;
    fs_fit_jobs_acc acc;
    fs_fit_jobs_acc_init(&acc);
    fs_error err = {0};
    for (int i = 1; i <= 1000; i++)
        assert_int_equal(fs_fit_jobs_acc_add(&acc, 3600.0 * (1000 - i) / 999, i % 4 == 0 ? 2 : 1, (double)i, &err),
                         FS_OK);
    assert_int_equal(fs_fit_jobs_acc_add(&acc, 0, 0, 1, &err), FS_ERR_INPUT);
    assert_int_equal(fs_fit_jobs_acc_add(&acc, 0, 1, -1, &err), FS_ERR_INPUT);
    fs_fit_jobs fit;
    assert_int_equal(fs_fit_jobs_compute(&acc, 9, &fit, &err), FS_ERR_INPUT);
    assert_int_equal(fs_fit_jobs_compute(&acc, 200, &fit, &err), FS_OK);
    assert_int_equal(fit.jobs, 1000);
    assert_int_equal(fit.n_gang_samples, 4);
    assert_int_equal(fit.gang_samples[0], 1);
    assert_int_equal(fit.gang_samples[2], 1);
    assert_int_equal(fit.gang_samples[3], 2);
    assert_near(fit.gang_share_err, 0, 1e-15);
    assert_int_equal(fit.n_run_samples, 1000);
    for (size_t k = 1; k <= 990; k++)
        assert_near(fit.run_samples[k - 1], (double)(5 * ((k + 4) / 5)), 0);
    for (size_t k = 991; k <= 1000; k++)
        assert_near(fit.run_samples[k - 1], (double)k, 0);
    for (int k = 0; k < FS_FIT_JOBS_N_CHECK; k++)
        assert_near(fit.run_check[k].rel_err, 0, 0);
    /* Between the points: p0.1 is 1 s in the trace and 5 s in the fragment. */
    assert_near(fit.run_fine_err, 4, 1e-12);
    assert_near(fit.run_fine_q, 0.001, 1e-12);
    /* 1,000 submissions evenly over an hour: 999 gaps an hour. */
    assert_near(fit.span_s, 3600, 1e-9);
    assert_near(fit.rate_per_hour, 999, 1e-9);
    assert_near(fit.gpu_hours, (750 * 500.0 + 250 * 2 * 502.0) / 1000 / 3600, 1e-12);
    fs_fit_jobs_fini(&fit);
    fs_fit_jobs_acc_fini(&acc);
}

/* ---- the synthetic trace ------------------------------------------------- */

/* The written mix: exact counts, so the shares are known. */
static const uint32_t mix_gpus[] = {1, 2, 4, 8, 64, 1024};
static const unsigned mix_count[] = {12000, 2000, 3000, 2000, 980, 20};
#define MIX_N (sizeof mix_gpus / sizeof mix_gpus[0])
#define SYN_JOBS 20000
#define SYN_ZEROS 200          /* run time 0: 1% */
#define SYN_MEDIAN 120.0
#define SYN_SIGMA 2.0
#define SYN_RATE_PER_HOUR 30.0

static double syn_run[SYN_JOBS];  /* the run times as written (ms precision), sorted after writing */

/* A synthetic job trace being written: its path, the CSV open with its
 * header, and the generator (seeded `seed`) that shuffled the jobs' kinds
 * and then draws their run times. */
typedef struct syn_trace {
    char path[512];
    FILE *fp;
    gsl_rng *r;
} syn_trace;

/* Opens tmp/name; kind[0 .. total) gets each k < n count[k] times,
 * shuffled: jobs in known counts, in random order. */
static void syn_open(syn_trace *t, const char *name, const unsigned *count, size_t n, size_t *kind, size_t total,
                     unsigned long seed)
{
    size_t at = 0;
    for (size_t k = 0; k < n; k++)
        for (unsigned c = 0; c < count[k]; c++)
            kind[at++] = k;
    assert_int_equal(at, total);
    t->r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(t->r, seed);
    gsl_ran_shuffle(t->r, kind, total, sizeof kind[0]);
    snprintf(t->path, sizeof t->path, "%s/%s", tmp, name);
    t->fp = fopen(t->path, "w");
    assert_non_null(t->fp);
    fprintf(t->fp, "t,gpus,dur\n");
}

static void syn_close(syn_trace *t)
{
    fclose(t->fp);
    gsl_rng_free(t->r);
}

/* Writes the trace (t, gpus, dur; gang sizes shuffled, 1% zero run times
 * among them) and returns its path. */
static const char *write_synthetic(void)
{
    static syn_trace trace;
    static size_t kind[SYN_JOBS];
    syn_open(&trace, "jobs.csv", mix_count, MIX_N, kind, SYN_JOBS, 20260101);
    gsl_rng *r = trace.r;
    double t = 0;
    for (size_t i = 0; i < SYN_JOBS; i++) {
        t += gsl_ran_exponential(r, 3600 / SYN_RATE_PER_HOUR);
        double d = i % (SYN_JOBS / SYN_ZEROS) == 7 ? 0 : gsl_ran_lognormal(r, log(SYN_MEDIAN), SYN_SIGMA);
        char cell[64];
        snprintf(cell, sizeof cell, "%.3f", d);
        syn_run[i] = strtod(cell, NULL);
        fprintf(trace.fp, "%.3f,%u,%s\n", t, (unsigned)mix_gpus[kind[i]], cell);
    }
    syn_close(&trace);
    qsort(syn_run, SYN_JOBS, sizeof syn_run[0], cmp_double);
    return trace.path;
}

/* The fragment's member read back by the scenario's parser. */
static void parse_member(const json_t *fragment, const char *member, bool counts, fs_dist *d)
{
    fs_error err = {0};
    fs_jpath p;
    fs_jpath_init(&p, "fragment", &err);
    int rc = counts ? fs__scenario_parse_count_dist(&p, fragment, member, true, d)
                    : fs__scenario_parse_dist(&p, fragment, member, true, d);
    if (rc != FS_OK)
        fail_msg("the fragment's %s does not parse: %s", member, err.msg);
    assert_int_equal(d->kind, FS_DIST_EMPIRICAL);
}

static void test_synthetic(void **state)
{
    (void)state;
    const char *path = write_synthetic();
    json_t *doc = test_fleetsim_json(tmp, "fit-jobs %s --time t --gpus gpus --duration dur --independent --format json",
                                     path);
    const json_t *fit = json_object_get(doc, "fit"), *fragment = json_object_get(doc, "fragment");
    assert_near(test_json_num(fit, "jobs"), SYN_JOBS, 0);
    assert_near(test_json_num(fit, "zero_duration_jobs"), SYN_ZEROS, 0);

    /* Gang: the fragment as the scenario reads it, share by share. */
    fs_dist gang;
    parse_member(fragment, "gang", true, &gang);
    printf("gang: %zu samples\n", gang.n);
    assert_true(gang.n <= FS_FIT_JOBS_GANG_SAMPLES);
    for (size_t k = 0; k < MIX_N; k++) {
        size_t copies = 0;
        for (size_t i = 0; i < gang.n; i++)
            copies += gang.samples[i] == mix_gpus[k];
        double written = (double)mix_count[k] / SYN_JOBS, printed = (double)copies / (double)gang.n;
        printf("  %4u GPUs: written %.3f%%, fragment %.3f%%\n", (unsigned)mix_gpus[k], 100 * written, 100 * printed);
        assert_near(printed, written, 0.005);
    }
    fs_dist_fini(&gang);

    /* Run time: the fragment's quantiles, from the parsed samples, against
     * the written trace's (the test's own sort). */
    fs_dist run;
    parse_member(fragment, "run_time", false, &run);
    static const double qs[] = {0.1, 0.5, 0.9, 0.99, 0.999, 1.0};
    double worst = 0;
    for (size_t k = 0; k < sizeof qs / sizeof qs[0]; k++) {
        double want = oracle_quantile(syn_run, SYN_JOBS, qs[k]), got = oracle_quantile(run.samples, run.n, qs[k]);
        double e = fabs(got / want - 1);
        worst = fmax(worst, e);
        printf("  run time q %.4g: trace %.6g s, fragment %.6g s, error %.3g%%\n", qs[k], want, got, 100 * e);
    }
    printf("run time: largest quantile error %.3g%% (bound %.3g%%)\n", 100 * worst, 100 * QUANTILE_TOL);
    assert_true(worst <= QUANTILE_TOL);
    /* The module's own check says the same. */
    assert_true(test_json_num(fit, "run_time.largest_error") <= QUANTILE_TOL);
    fs_dist_fini(&run);

    /* The lognormal: MLE over the 19,800 positive run times. */
    double n = SYN_JOBS - SYN_ZEROS, median = test_json_num(fit, "lognormal.median_s");
    double sigma = test_json_num(fit, "lognormal.sigma"), ks = test_json_num(fit, "lognormal.ks");
    printf("lognormal: median %.5g s (written %g), sigma %.5g (written %g), KS %.4g\n", median, SYN_MEDIAN, sigma,
           SYN_SIGMA, ks);
    assert_near(test_json_num(fit, "lognormal.fitted_to"), n, 0);
    assert_near(log(median), log(SYN_MEDIAN), 4 * SYN_SIGMA / sqrt(n));
    assert_near(sigma, SYN_SIGMA, 4 * SYN_SIGMA / sqrt(2 * n));
    /* Against all jobs: the 1% at 0 the lognormal has no mass for, plus
     * the sampling noise (KS of the true law: about 1.36 / sqrt(n) at 95%). */
    assert_true(ks >= 0.01 - 1e-9 && ks <= 0.01 + 2.0 / sqrt(n));

    /* The rate: 30 an hour, within 4 standard errors. */
    double rate = test_json_num(fragment, "submit.poisson_per_hour");
    assert_near(rate, SYN_RATE_PER_HOUR, 4 * SYN_RATE_PER_HOUR / sqrt(SYN_JOBS));
    json_decref(doc);
}

/* The same trace as JSON Lines, gzip-compressed, with an end column: the
 * same jobs through the other reader. */
static void test_jsonl_gz(void **state)
{
    (void)state;
    char path[512];
    snprintf(path, sizeof path, "%s/jobs.jsonl", tmp);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    for (int i = 0; i < 300; i++)
        fprintf(fp, "{\"at\": %d, \"g\": %d, \"until\": %d, \"class\": \"%s\"}\n", 10 * i, 1 << (i % 3),
                10 * i + 60 * (1 + i % 10), i % 2 ? "a" : "b");
    fclose(fp);
    assert_int_equal(test_sh("gzip -f %s", path), 0);
    json_t *doc = test_fleetsim_json(tmp, "fit-jobs %s.gz --time at --gpus g --end until --where class=a "
                                          "--format json",
                                     path);
    const json_t *fit = json_object_get(doc, "fit");
    assert_near(test_json_num(fit, "jobs"), 150, 0);
    /* Odd rows: gangs 2, 1, 4 in turn (50 each); run times 2, 4, ..., 10 min. */
    assert_near(test_json_num(fit, "gang.mean"), 7.0 / 3, 1e-5);
    assert_near(test_json_num(fit, "run_time.mean_s"), 360, 1e-6);
    json_decref(doc);
}

/* ---- run time by gang ----------------------------------------------------- */

/* Gangs 1, 8 and 64 with lognormal run times of medians 60 s, 600 s and
 * 3,600 s (sigma 1), and two rare sizes that the classes must merge: 2
 * GPUs (60 jobs, below the 200-job floor: joins 8) and 128 (40 jobs, the
 * rest: joins 64), each run as its class.  10,000 jobs, so 1% is 100 and
 * the floor is 200. */
static const uint32_t bg_gpus[] = {1, 2, 8, 64, 128};
static const unsigned bg_count[] = {6000, 60, 3000, 900, 40};
static const double bg_median[] = {60, 600, 600, 3600, 3600};
#define BG_N (sizeof bg_gpus / sizeof bg_gpus[0])
#define BG_JOBS 10000
#define BG_SIGMA 1.0

static const char *write_by_gang(void)
{
    static syn_trace trace;
    static size_t kind[BG_JOBS];
    syn_open(&trace, "by_gang.csv", bg_count, BG_N, kind, BG_JOBS, 20260202);
    for (size_t i = 0; i < BG_JOBS; i++)
        fprintf(trace.fp, "%zu,%u,%.3f\n", 30 * i, (unsigned)bg_gpus[kind[i]],
                gsl_ran_lognormal(trace.r, log(bg_median[kind[i]]), BG_SIGMA));
    syn_close(&trace);
    return trace.path;
}

/* A class's sizes as the fragment prints them: [1], [2, 8], [64, 128]. */
static void assert_class(const json_t *cls, const uint32_t *want, size_t n)
{
    const json_t *gangs = json_object_get(cls, "gangs");
    assert_int_equal(json_array_size(gangs), n);
    for (size_t k = 0; k < n; k++)
        assert_int_equal(json_integer_value(json_array_get(gangs, k)), want[k]);
}

/* The mean and variance of a parsed empirical distribution. */
static void dist_moments(const fs_dist *d, double *mean, double *var)
{
    double sum = 0, sq = 0;
    for (size_t k = 0; k < d->n; k++) {
        sum += d->samples[k];
        sq += d->samples[k] * d->samples[k];
    }
    *mean = sum / (double)d->n;
    *var = sq / (double)d->n - *mean * *mean;
}

#define BG_SIM_JOBS 10000

/* The fragment as a training stream, run: "mix" draws the fragment's gang
 * and its class's run time; "c0", "c1", "c2" each a fixed gang of one
 * class.  Jobs are submitted a minute apart and all finish well before
 * the horizon, with no checkpoint, failure or preemption, so a stream's
 * done GPU-hours are the sum of gang x run time over its jobs: a class's
 * mean run time is done / completed / gang, to be within 4 standard
 * errors of its fragment's mean (the parsed samples'), and the mix's mean
 * GPU-hours per job within 4 standard errors of the fit's by-gang figure
 * (the 64- and 128-GPU jobs make that a wide 24% at 10,000 jobs) and more
 * than 8 of them from the independent one: the simulator keeps the
 * correlation.  About a second. */
static void simulate_by_gang(const json_t *fragment, double by_gang_gpu_hours, double independent_gpu_hours)
{
    const json_t *classes = json_object_get(fragment, "run_time_by_gang");
    size_t n_classes = json_array_size(classes);
    json_t *at = json_array();
    for (int i = 0; i < BG_SIM_JOBS; i++)
        json_array_append_new(at, json_integer(60 * i));
    json_t *streams = json_array();
    json_array_append_new(streams, json_pack("{s:s, s:{s:O}, s:O, s:O}", "name", "mix", "submit", "at", at, "gang",
                                             json_object_get(fragment, "gang"), "run_time_by_gang", classes));
    for (size_t c = 0; c < n_classes; c++) {
        char name[32];
        snprintf(name, sizeof name, "c%zu", c);
        json_array_append_new(streams, json_pack("{s:s, s:{s:O}, s:O, s:O}", "name", name, "submit", "at", at, "gang",
                                                 json_array_get(json_object_get(json_array_get(classes, c), "gangs"), 0),
                                                 "run_time_by_gang", classes));
    }
    json_t *doc = json_pack("{s:s, s:s, s:i, s:i, s:[{s:s, s:s, s:i}], s:o}", "schema", "fleetsim/1", "horizon", "365d",
                            "warmup", 0, "seed", 5, "pools", "name", "p", "gpu", "H100-SXM-80GB", "gpus", 2048,
                            "training", streams);
    /* Parsed as a scenario file is (test_scenario's buffer is too small
     * for 4,000 samples a stream). */
    char *text = json_dumps(doc, JSON_COMPACT);
    fs_scenario *s = NULL;
    fs_error err = {0};
    if (fs_scenario_parse(text, "by_gang.json", &s, &err) != FS_OK)
        fail_msg("the by-gang fragment does not parse as a training stream: %s", err.msg);
    free(text);
    json_decref(doc);
    json_decref(at);
    assert_int_equal(s->n_training, 1 + n_classes);
    assert_int_equal(s->training[0].n_run_time_by_gang, n_classes);
    fs_results *r = test_run(s);
    const fs_training_rep *reps = r->policies[0].reps[0].training;

    /* Per class: the fragment's law as parsed, against what the jobs ran. */
    double mix_sq = 0;
    for (size_t c = 0; c < n_classes; c++) {
        const struct fs_run_time_class *k = &s->training[0].run_time_by_gang[c];
        const fs_training_rep *t = &reps[1 + c];
        double mean, var;
        dist_moments(&k->run_time, &mean, &var);
        double got = t->gpu_hours_done * 3600 / (double)t->completed / s->training[1 + c].gang;
        double tol = 4 * sqrt(var / (double)t->completed);
        printf("  class %zu (gang %u): %llu jobs, mean run time %.6g s, fragment %.6g s (4 standard errors %.3g s)\n",
               c, (unsigned)s->training[1 + c].gang, (unsigned long long)t->completed, got, mean, tol);
        assert_int_equal(t->completed, BG_SIM_JOBS);
        assert_near(got, mean, tol);
        /* E[(gang x run)^2] of the mix, for its standard error. */
        const fs_dist *g = &s->training[0].gang_mix;
        for (size_t j = 0; j < g->n; j++)
            if (fs_scenario_job_run_time(&s->training[0], (uint32_t)g->samples[j]) == &k->run_time)
                mix_sq += g->samples[j] * g->samples[j] * (var + mean * mean) / (double)g->n;
    }
    const fs_training_rep *mix = &reps[0];
    double want = by_gang_gpu_hours * 3600, got = mix->gpu_hours_done * 3600 / (double)mix->completed;
    double tol = 4 * sqrt((mix_sq - want * want) / (double)mix->completed);
    printf("  mix: %llu jobs, mean GPU-hours per job %.6g, the fit's by gang %.6g (4 standard errors %.3g)\n",
           (unsigned long long)mix->completed, got / 3600, want / 3600, tol / 3600);
    assert_int_equal(mix->completed, BG_SIM_JOBS);
    assert_near(got, want, tol);
    assert_true(fabs(got - independent_gpu_hours * 3600) > 2 * tol);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

static void test_by_gang(void **state)
{
    (void)state;
    const char *path = write_by_gang();
    json_t *doc = test_fleetsim_json(tmp, "fit-jobs %s --time t --gpus gpus --duration dur --format json", path);
    const json_t *fit = json_object_get(doc, "fit"), *fragment = json_object_get(doc, "fragment");
    assert_null(json_object_get(fragment, "run_time"));
    const json_t *classes = json_object_get(fragment, "run_time_by_gang");
    assert_int_equal(json_array_size(classes), 3);
    assert_class(json_array_get(classes, 0), (const uint32_t[]){1}, 1);
    assert_class(json_array_get(classes, 1), (const uint32_t[]){2, 8}, 2);
    assert_class(json_array_get(classes, 2), (const uint32_t[]){64, 128}, 2);
    assert_near(test_json_num(fit, "by_gang.min_class_jobs"), 200, 0);

    /* GPU-hours per job: by gang near the trace's, independent far off. */
    double trace = test_json_num(fit, "gpu_hours_per_job.trace"), by_gang = test_json_num(fit, "gpu_hours_per_job.by_gang");
    double independent = test_json_num(fit, "gpu_hours_per_job.independent");
    printf("mean GPU-hours per job: trace %.6g, by gang %.6g (%+.3g%%, bound %.3g%%), independent %.6g (%+.3g%%)\n",
           trace, by_gang, 100 * (by_gang / trace - 1), 100 * BY_GANG_TOL, independent,
           100 * (independent / trace - 1));
    assert_true(fabs(by_gang / trace - 1) <= BY_GANG_TOL);
    /* Drawn apart, the long runs of the 64-GPU jobs spread over the 1-GPU
     * ones: about a fifth of the trace's GPU-hours (see the comment above
     * write_by_gang's figures). */
    assert_true(independent / trace < 0.5);
    assert_near(test_json_num(fit, "gpu_hours_per_job.fragment"), by_gang, 0);

    /* Each class's quantiles are its own jobs'; the mixture's every job's. */
    const json_t *fit_classes = test_json_at(fit, "by_gang.classes");
    for (size_t c = 0; c < json_array_size(fit_classes); c++) {
        const json_t *k = json_array_get(fit_classes, c);
        printf("  class %zu: %.0f jobs, mean %.6g s (fragment %.6g s), largest quantile error %.3g%%\n", c,
               test_json_num(k, "jobs"), test_json_num(k, "mean_s"), test_json_num(k, "fragment_mean_s"),
               100 * test_json_num(k, "largest_error"));
        assert_true(test_json_num(k, "largest_error") <= QUANTILE_TOL);
    }
    assert_near(test_json_num(json_array_get(fit_classes, 1), "jobs"), 3060, 0);
    printf("  mixture: largest quantile error %.3g%%\n", 100 * test_json_num(fit, "by_gang.mixture.largest_error"));
    assert_true(test_json_num(fit, "by_gang.mixture.largest_error") <= MIXTURE_TOL);
    simulate_by_gang(fragment, by_gang, independent);
    json_decref(doc);

    /* --independent: today's one run time, and the figures both ways. */
    doc = test_fleetsim_json(tmp, "fit-jobs %s --time t --gpus gpus --duration dur --independent --format json", path);
    fragment = json_object_get(doc, "fragment");
    assert_null(json_object_get(fragment, "run_time_by_gang"));
    assert_non_null(json_object_get(fragment, "run_time"));
    fit = json_object_get(doc, "fit");
    assert_near(test_json_num(fit, "gpu_hours_per_job.fragment"), independent, 0);
    assert_near(test_json_num(fit, "gpu_hours_per_job.by_gang"), by_gang, 0);
    json_decref(doc);
}

/* ---- the shared traces ---------------------------------------------------- */

/* The mean GPU-hours per job of the shared list at `quantiles` cells:
 * trace, by gang, independent, printed; by gang held to
 * SHARED_BY_GANG_TOL when `held`. */
static void shared_gpu_hours(const char *file, const char *preset, int quantiles, bool held)
{
    json_t *doc = test_fleetsim_json(tmp, "fit-jobs %s --preset %s --quantiles %d --format json", file, preset,
                                     quantiles);
    const json_t *fit = json_object_get(doc, "fit");
    double trace = test_json_num(fit, "gpu_hours_per_job.trace"), by_gang = test_json_num(fit, "gpu_hours_per_job.by_gang");
    double independent = test_json_num(fit, "gpu_hours_per_job.independent");
    printf("  %d cells: mean GPU-hours per job: trace %.6g, by gang %.6g (%+.3g%%%s), independent %.6g (%+.3g%%)\n",
           quantiles, trace, by_gang, 100 * (by_gang / trace - 1), held ? ", held to 8%" : ", not held", independent,
           100 * (independent / trace - 1));
    const json_t *classes = test_json_at(fit, "by_gang.classes");
    for (size_t c = 0; c < json_array_size(classes); c++) {
        const json_t *k = json_array_get(classes, c);
        char *gangs = json_dumps(json_object_get(k, "gangs"), JSON_COMPACT);
        printf("    class %s: %.0f jobs, mean run time %.6g s (fragment %.6g s)\n", gangs, test_json_num(k, "jobs"),
               test_json_num(k, "mean_s"), test_json_num(k, "fragment_mean_s"));
        free(gangs);
    }
    if (held)
        assert_true(fabs(by_gang / trace - 1) <= SHARED_BY_GANG_TOL);
    json_decref(doc);
}

/* The shared job lists: figures printed, quantiles held to the bound, and
 * the trace's own quantiles against the data's SUMMARY.txt.  The mean
 * GPU-hours by gang is held to SHARED_BY_GANG_TOL at 2,000 cells (10,000
 * samples a class), and at the default 200 where default_held: Alibaba's
 * longest job (145 days) weighs 1/1,000 there instead of 1/8,152, which
 * puts its fragment's mean run time 28% above the trace's, by gang or not
 * (the report says so). */
static void fit_shared(const char *file, const char *preset, const double summary[3], bool default_held)
{
    if (!test_exists("%s", file)) {
        printf("skipped: %s is not there (../shared/data)\n", file);
        skip();
    }
    json_t *doc = test_fleetsim_json(tmp, "fit-jobs %s --preset %s --format json", file, preset);
    const json_t *fit = json_object_get(doc, "fit"), *fragment = json_object_get(doc, "fragment");
    printf("%s: %.0f jobs, %.4g submissions/h, gang mean %.4g\n", preset, test_json_num(fit, "jobs"),
           test_json_num(fit, "submissions_per_hour"), test_json_num(fit, "gang.mean"));
    const json_t *sizes = test_json_at(fit, "gang.sizes");
    for (size_t k = 0; k < json_array_size(sizes); k++) {
        const json_t *s = json_array_get(sizes, k);
        double share = test_json_num(s, "share"), printed = test_json_num(s, "fragment_share");
        printf("  %4.0f GPUs: %6.0f jobs, %.3f%%, fragment %.3f%%\n", test_json_num(s, "gpus"),
               test_json_num(s, "jobs"), 100 * share, 100 * printed);
        assert_near(printed, share, 0.005);
    }
    const json_t *check = test_json_at(fit, "run_time.quantile_check");
    for (size_t k = 0; k < json_array_size(check); k++) {
        const json_t *c = json_array_get(check, k);
        /* The lognormal has no max: null there. */
        const json_t *l = json_object_get(json_array_get(test_json_at(fit, "lognormal.quantiles"), k), "fragment");
        printf("  run time q %.4g: trace %.6g s, fragment %.6g s, lognormal %.6g s\n", test_json_num(c, "q"),
               test_json_num(c, "trace"), test_json_num(c, "fragment"), json_is_number(l) ? json_number_value(l) : NAN);
    }
    printf("  largest quantile error: gang %.3g%%, run time %.3g%% (every 0.1%%: %.3g%%); lognormal median %.5g s, "
           "sigma %.4g, KS %.4g; GPU-hours/job %.4g (fragment %.4g)\n",
           100 * test_json_num(fit, "gang.largest_error"), 100 * test_json_num(fit, "run_time.largest_error"),
           100 * test_json_num(fit, "run_time.between_points.largest_error"),
           test_json_num(fit, "lognormal.median_s"), test_json_num(fit, "lognormal.sigma"),
           test_json_num(fit, "lognormal.ks"), test_json_num(fit, "gpu_hours_per_job.trace"),
           test_json_num(fit, "gpu_hours_per_job.fragment"));
    assert_true(test_json_num(fit, "gang.largest_error") <= QUANTILE_TOL);
    assert_true(test_json_num(fit, "run_time.largest_error") <= QUANTILE_TOL);
    /* p50, p90 and the max as SUMMARY.txt gives them (numpy's, which agree
     * here: the ranks fall on equal values). */
    assert_near(test_json_num(json_array_get(check, 2), "trace"), summary[0], 0);
    assert_near(test_json_num(json_array_get(check, 3), "trace"), summary[1], 0);
    assert_near(test_json_num(json_array_get(check, 6), "trace"), summary[2], 0);
    /* The fragment's run time by gang read back: its longest is the trace's. */
    const json_t *classes = json_object_get(fragment, "run_time_by_gang");
    double longest = 0;
    for (size_t c = 0; c < json_array_size(classes); c++) {
        fs_dist run;
        parse_member(json_array_get(classes, c), "run_time", false, &run);
        longest = fmax(longest, run.samples[run.n - 1]);
        fs_dist_fini(&run);
    }
    assert_near(longest, summary[2], 0);
    json_decref(doc);
    shared_gpu_hours(file, preset, FS_FIT_JOBS_QUANTILES, default_held);
    shared_gpu_hours(file, preset, 2000, true);
}

static void test_philly(void **state)
{
    (void)state;
    static const double summary[3] = {60, 654, 4317};
    fit_shared(SHARED "/philly-derived/chronus_trace_job_Philly_MIX1.csv", "philly-jobs", summary, true);
}

static void test_alibaba(void **state)
{
    (void)state;
    static const double summary[3] = {540, 6574, 12537496};
    fit_shared(SHARED "/alibaba-gpu-v2023-openb/openb_pod_list_default.csv", "alibaba-pods", summary, false);
}

/* ---- bad input ----------------------------------------------------------- */

static void refused(const char *want, const char *fmt, const char *arg)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, fmt, arg);
    assert_int_equal(test_fleetsim(tmp, "%s", cmd), 2);
    test_stderr_has(tmp, want);
}

static void test_bad_input(void **state)
{
    (void)state;
    char path[512];
    snprintf(path, sizeof path, "%s/bad.csv", tmp);
    test_write(path, "t,gpus,dur\n0,1,10\n5,2,-3\n");
    refused("bad.csv:3:", "fit-jobs %s --time t --gpus gpus --duration dur", path);
    test_write(path, "t,gpus,dur\n");
    refused("no job rows (the file is empty", "fit-jobs %s --time t --gpus gpus --duration dur", path);
    test_write(path, "t,gpus,dur,c\n0,1,10,x\n");
    refused("no job rows passed the --where filters", "fit-jobs %s --time t --gpus gpus --duration dur --where c=y",
            path);
    refused("no column \"gpu\"", "fit-jobs %s --time t --gpus gpu --duration dur", path);
    refused("--quantiles: expected a whole number from 10 to 20000", "fit-jobs %s --preset philly-jobs --quantiles 9",
            path);
    refused("--quantiles: expected a whole number from 10 to 20000",
            "fit-jobs %s --preset philly-jobs --quantiles 20001", path);
    refused("--quantiles", "fit-jobs %s --preset philly-jobs --quantiles many", path);
    refused("one of --duration COL or --end COL", "fit-jobs %s --time t --gpus gpus", path);
    refused("--preset names the columns", "fit-jobs %s --preset philly-jobs --time t", path);
    refused("--where: expected COL=TEXT", "fit-jobs %s --time t --gpus gpus --duration dur --where c", path);
    refused("a request trace", "fit-jobs %s --preset azure-llm", path);
}

static int setup(void **state)
{
    (void)state;
    return test_tmpdir(tmp, sizeof tmp, "fleetsim-fit-jobs");
}

static int teardown(void **state)
{
    (void)state;
    return test_rmdir(tmp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_by_hand),  cmocka_unit_test(test_synthetic), cmocka_unit_test(test_jsonl_gz),
        cmocka_unit_test(test_by_gang),  cmocka_unit_test(test_philly),    cmocka_unit_test(test_alibaba),
        cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

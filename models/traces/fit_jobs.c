/*
 * fit_jobs — a training stream's job mix fitted from a job trace (see
 * fit_jobs.h for the definitions).
 *
 * Three parts: the accumulator (run times, their gangs and gang counts), the
 * reader that fills it through trace.h, and the fit, which only reads the
 * accumulator (sorted): the gang's samples, the run time's samples, the
 * lognormal, the run time by gang class, and the check of each fragment
 * against the trace.
 */
#include "fit_jobs.h"
#include "quantile.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const double fs_fit_jobs_check_q[FS_FIT_JOBS_N_CHECK] = {0.01, 0.1, 0.5, 0.9, 0.99, 0.999, 1.0};

/* ---- the accumulator ----------------------------------------------------- */

void fs_fit_jobs_acc_init(fs_fit_jobs_acc *acc)
{
    memset(acc, 0, sizeof *acc);
    acc->first_s = INFINITY;
    acc->last_s = -INFINITY;
}

void fs_fit_jobs_acc_fini(fs_fit_jobs_acc *acc)
{
    free(acc->run_s);
    free(acc->gpus);
    free(acc->gang);
    free(acc->gang_count);
    fs_fit_jobs_acc_init(acc);
}

/* Room for one more of n in *a (elements of `size` bytes); doubling keeps
 * the reallocations few.  false when out of memory, *a unchanged. */
static bool fs__room(void **a, size_t n, size_t *cap, size_t size)
{
    if (n < *cap)
        return true;
    size_t grown = *cap ? 2 * *cap : 256;
    void *b = realloc(*a, grown * size);
    if (!b)
        return false;
    *a = b;
    *cap = grown;
    return true;
}

/* The gang size's slot, inserted in order when new.  Distinct sizes are few
 * (9 in the Philly list, 5 in Alibaba's), so an insertion into a sorted
 * array is cheaper than any table; a trace of a million distinct sizes
 * would make it O(n^2). */
static int fs__gang_slot(fs_fit_jobs_acc *acc, uint32_t gpus, size_t *slot, fs_error *err)
{
    size_t lo = 0, hi = acc->n_gangs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (acc->gang[mid] < gpus)
            lo = mid + 1;
        else
            hi = mid;
    }
    *slot = lo;
    if (lo < acc->n_gangs && acc->gang[lo] == gpus)
        return FS_OK;
    size_t cap = acc->cap_gangs;
    if (!fs__room((void **)&acc->gang, acc->n_gangs, &cap, sizeof *acc->gang) ||
        !fs__room((void **)&acc->gang_count, acc->n_gangs, &acc->cap_gangs, sizeof *acc->gang_count))
        return fs_error_set(err, FS_ERR_RUNTIME, "out of memory for %zu gang sizes", acc->n_gangs + 1);
    memmove(acc->gang + lo + 1, acc->gang + lo, (acc->n_gangs - lo) * sizeof *acc->gang);
    memmove(acc->gang_count + lo + 1, acc->gang_count + lo, (acc->n_gangs - lo) * sizeof *acc->gang_count);
    acc->gang[lo] = gpus;
    acc->gang_count[lo] = 0;
    acc->n_gangs++;
    return FS_OK;
}

int fs_fit_jobs_acc_add(fs_fit_jobs_acc *acc, double submit_s, uint32_t gpus, double run_s, fs_error *err)
{
    if (gpus < 1 || !(run_s >= 0) || !isfinite(run_s) || !isfinite(submit_s))
        return fs_error_set(err, FS_ERR_INPUT, "a job needs a gang >= 1 and a finite run time >= 0, got %u GPUs, %g s",
                            (unsigned)gpus, run_s);
    size_t slot;
    int rc = fs__gang_slot(acc, gpus, &slot, err);
    if (rc != FS_OK)
        return rc;
    size_t cap = acc->cap;
    if (!fs__room((void **)&acc->run_s, acc->n, &cap, sizeof *acc->run_s) ||
        !fs__room((void **)&acc->gpus, acc->n, &acc->cap, sizeof *acc->gpus))
        return fs_error_set(err, FS_ERR_RUNTIME, "out of memory for %zu run times", acc->n + 1);
    acc->gpus[acc->n] = gpus;
    acc->run_s[acc->n++] = run_s;
    acc->gang_count[slot]++;
    acc->gpu_s += (double)gpus * run_s;
    acc->first_s = fmin(acc->first_s, submit_s);
    acc->last_s = fmax(acc->last_s, submit_s);
    return FS_OK;
}

int fs_fit_jobs_read(const fs_trace_spec *spec, fs_fit_jobs_acc *acc, fs_error *err)
{
    fs_fit_jobs_acc_init(acc);
    if (spec->kind != FS_TRACE_JOBS)
        return fs_error_set(err, FS_ERR_INPUT, "%s: a job trace is needed (a GPU count and a duration or end column)",
                            spec->path);
    /* The marginals do not depend on the order of the rows, and a stream
     * cannot be reordered: every row is taken wherever it falls, and its
     * written time (t_written) gives the span. */
    fs_trace_spec whole = *spec;
    whole.tolerance_s = INFINITY;
    whole.repeat = false;
    fs_trace *t = NULL;
    int rc = fs_trace_open(&whole, &t, err);
    fs_trace_row row;
    int got = 0;
    while (rc == FS_OK && (got = fs_trace_next(t, &row, err)) == 1) {
        acc->out_of_order += row.t_written < row.t;
        rc = fs_fit_jobs_acc_add(acc, row.t_written, row.gpus, row.duration_s, err);
        if (rc != FS_OK) {
            fs_error named = *err;
            snprintf(named.msg, sizeof named.msg, "%.200s:%llu: %.700s", spec->path, (unsigned long long)row.line,
                     err->msg);
            *err = named;
        }
    }
    if (rc == FS_OK && got < 0)
        rc = err->code;
    /* trace.c refuses a file without a row at its end, in a replay's words
     * (its --lenient is not this command's); without a row, say it in the
     * fit's, naming the filters when they dropped every row. */
    bool none = acc->n == 0 && (rc == FS_OK || (got < 0 && strstr(err->msg, ": no data rows") != NULL));
    if (none && fs_trace_filtered(t) > 0)
        rc = fs_error_set(err, FS_ERR_INPUT, "%s: no job rows passed the --where filters (%llu rows dropped)",
                          spec->path, (unsigned long long)fs_trace_filtered(t));
    else if (none)
        rc = fs_error_set(err, FS_ERR_INPUT, "%s: no job rows (the file is empty or holds only its header)",
                          spec->path);
    fs_trace_close(t);
    return rc;
}

/* ---- quantiles ----------------------------------------------------------- */

static double fs__rel_err(double fragment, double trace)
{
    if (fragment == trace)
        return 0;
    return trace == 0 ? INFINITY : fragment / trace - 1;
}

/* One row of a check; returns its |error|. */
static double fs__check_row(fs_fit_jobs_check *row, double q, double trace, double fragment)
{
    *row = (fs_fit_jobs_check){q, trace, fragment, fs__rel_err(fragment, trace)};
    return fabs(row->rel_err);
}

/* The check's rows: the trace's quantiles against the fragment's; returns
 * the largest |error|. */
static double fs__check(const double *trace, size_t n, const double *fragment, size_t m,
                        fs_fit_jobs_check out[FS_FIT_JOBS_N_CHECK])
{
    double worst = 0;
    for (int k = 0; k < FS_FIT_JOBS_N_CHECK; k++) {
        double q = fs_fit_jobs_check_q[k];
        worst = fmax(worst, fs__check_row(&out[k], q, fs_quantile_sorted(trace, n, q),
                                          fs_quantile_sorted(fragment, m, q)));
    }
    return worst;
}

/* The index of quantile q of values given as weights w[0 .. n) (their
 * values ascending, total of them): a weight w counts as w equal values. */
static size_t fs__weighted_index(const uint64_t *w, size_t n, uint64_t total, double q)
{
    size_t rank = fs_quantile_rank(q, (size_t)total), k = 0;
    uint64_t below = w[0];
    while (below < rank && k + 1 < n)
        below += w[++k];
    return k;
}

static int fs__cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* ---- gang ---------------------------------------------------------------- */

/* Quantile q of sizes given as counts (ascending sizes, total of them). */
static double fs__count_quantile(const fs_fit_jobs_gang *g, size_t n, const uint64_t *count, uint64_t total, double q)
{
    return g[fs__weighted_index(count, n, total, q)].gpus;
}

/* The gang check for the multiplicities `copies` (total of them): fills
 * out, returns the largest |error|. */
static double fs__check_gang(const fs_fit_jobs_gang *g, size_t n, const uint64_t *trace, uint64_t jobs,
                             const uint64_t *copies, uint64_t total, fs_fit_jobs_check out[FS_FIT_JOBS_N_CHECK])
{
    double worst = 0;
    for (int k = 0; k < FS_FIT_JOBS_N_CHECK; k++) {
        double q = fs_fit_jobs_check_q[k];
        worst = fmax(worst, fs__check_row(&out[k], q, fs__count_quantile(g, n, trace, jobs, q),
                                          fs__count_quantile(g, n, copies, total, q)));
    }
    return worst;
}

/* Multiplicities for scale m: round(share x m), at least 1.  Returns the
 * total and the largest share error. */
static uint64_t fs__gang_round(const fs_fit_jobs_gang *g, size_t n, double m, uint64_t *copies, double *worst)
{
    uint64_t total = 0;
    for (size_t k = 0; k < n; k++) {
        copies[k] = (uint64_t)fmax(1, floor(g[k].share * m + 0.5));
        total += copies[k];
    }
    *worst = 0;
    for (size_t k = 0; k < n; k++)
        *worst = fmax(*worst, fabs((double)copies[k] / (double)total - g[k].share));
    return total;
}

/* The gang fragment (fit_jobs.h).  Among the scales whose total fits the
 * cap, the one whose quantiles at the check's points (p1 .. p99.9, max)
 * are nearest the trace's, then the least share error, then the fewest
 * samples.  Why the quantiles first: a rare size keeps its one sample (the
 * tail the trace has), and that sample weighs 1/total, so a few rare sizes
 * above the trace's p99.9 push the fragment's p99.9 onto them unless the
 * total is large enough (Philly: 12, 20 and 32 GPUs, 17 jobs in 30,940,
 * need 2,000 samples for p99.9 to stay at 16).  The cap of 2,000 keeps the
 * pasted list a few kilobytes. */
static int fs__fit_gang(const fs_fit_jobs_acc *acc, fs_fit_jobs *f, fs_error *err)
{
    size_t n = acc->n_gangs;
    /* Every size needs a sample: more sizes than the cap raise it. */
    uint64_t cap = n > FS_FIT_JOBS_GANG_SAMPLES ? n : FS_FIT_JOBS_GANG_SAMPLES;
    f->gangs = calloc(n, sizeof *f->gangs);
    uint64_t *copies = calloc(n, sizeof *copies);
    if (!f->gangs || !copies) {
        free(copies);
        return fs_error_set(err, FS_ERR_RUNTIME, "out of memory for %zu gang sizes", n);
    }
    f->n_gangs = n;
    double sum = 0;
    for (size_t k = 0; k < n; k++) {
        f->gangs[k] = (fs_fit_jobs_gang){.gpus = acc->gang[k], .count = acc->gang_count[k],
                                         .share = (double)acc->gang_count[k] / (double)f->jobs};
        sum += (double)acc->gang[k] * (double)acc->gang_count[k];
    }
    f->gang_mean = sum / (double)f->jobs;
    double best_q = INFINITY, best_share = INFINITY, best_m = 1;
    uint64_t best_total = 0;
    for (uint64_t m = 1; m <= cap; m++) {
        double share_err;
        uint64_t total = fs__gang_round(f->gangs, n, (double)m, copies, &share_err);
        if (total > cap)
            continue;
        double q_err = fs__check_gang(f->gangs, n, acc->gang_count, f->jobs, copies, total, f->gang_check);
        bool better = q_err < best_q - 1e-12 ||
                      (q_err <= best_q + 1e-12 && (share_err < best_share - 1e-15 ||
                                                   (share_err <= best_share + 1e-15 && total < best_total)));
        if (better) {
            best_q = q_err;
            best_share = share_err;
            best_m = (double)m;
            best_total = total;
        }
    }
    f->n_gang_samples = (size_t)fs__gang_round(f->gangs, n, best_m, copies, &f->gang_share_err);
    f->gang_max_err = fs__check_gang(f->gangs, n, acc->gang_count, f->jobs, copies, f->n_gang_samples, f->gang_check);
    f->gang_samples = malloc(f->n_gang_samples * sizeof *f->gang_samples);
    if (!f->gang_samples) {
        free(copies);
        return fs_error_set(err, FS_ERR_RUNTIME, "out of memory for %zu gang samples", f->n_gang_samples);
    }
    size_t at = 0;
    sum = 0;
    for (size_t k = 0; k < n; k++) {
        f->gangs[k].copies = (uint32_t)copies[k];
        f->gangs[k].printed_share = (double)copies[k] / (double)f->n_gang_samples;
        for (uint64_t c = 0; c < copies[k]; c++)
            f->gang_samples[at++] = f->gangs[k].gpus;
        sum += (double)copies[k] * (double)f->gangs[k].gpus;
    }
    f->gang_fragment_mean = sum / (double)f->n_gang_samples;
    free(copies);
    return FS_OK;
}

/* ---- run time ------------------------------------------------------------ */

/* The run-time fragment.  Why these points, given that the simulator draws
 * each sample with probability 1/S (dist.h):
 *   - equal weights make the probability grid uniform; a finer tail can
 *     only come from writing the body's points several times.  The body's
 *     N cells (1/N each, 0.5% by default) are written FS_FIT_JOBS_TAIL_SPLIT
 *     times so that the top 1% gets a point every 1/S (0.1% by default):
 *     the p99.9 of a heavy tail is its own point, not the p99.5's.
 *   - each point is the trace's quantile at its cell's upper end, Q(k/S),
 *     not the midpoint (k - 0.5)/S: the fragment's quantile q is its sample
 *     at rank ceil(q S), so at every grid point it is the trace's own, where
 *     midpoints would be half a cell low (in Philly's tail, p98.75 for p99),
 *     and the last point is Q(1), the longest job, which a midpoint grid
 *     never reaches.  The price: the longest job gets weight 1/S rather than
 *     1/n, and the fragment's mean is above the trace's by what the upper
 *     ends add; the report prints both means.
 *   - samples are whole milliseconds (the scenario's "samples_ms"), and the
 *     check reads them after that rounding, as the simulator would.
 * The samples of n sorted run times, out[FS_FIT_JOBS_TAIL_SPLIT x quantiles];
 * returns their mean.  Every job's (fs__fit_run) and each gang class's
 * (fs__fit_classes) are built here. */
static double fs__run_cells(const double *sorted, size_t n, size_t quantiles, double *out)
{
    const size_t split = FS_FIT_JOBS_TAIL_SPLIT, body = 99 * quantiles / 100;
    size_t s = split * quantiles;
    double sum = 0;
    for (size_t k = 1; k <= s; k++) {
        /* A body sample takes its cell's upper end; a tail sample its own. */
        uint64_t end = k <= split * body ? (k + split - 1) / split * split : k;
        uint64_t rank = (end * (uint64_t)n + s - 1) / s;
        double x = floor(sorted[rank - 1] * 1000 + 0.5) / 1000;
        out[k - 1] = x;
        sum += x;
    }
    return sum / (double)s;
}

static int fs__fit_run(const fs_fit_jobs_acc *acc, size_t quantiles, fs_fit_jobs *f, fs_error *err)
{
    size_t s = FS_FIT_JOBS_TAIL_SPLIT * quantiles, n = acc->n;
    f->quantiles = quantiles;
    f->run_samples = malloc(s * sizeof *f->run_samples);
    if (!f->run_samples)
        return fs_error_set(err, FS_ERR_RUNTIME, "out of memory for %zu run-time samples", s);
    f->n_run_samples = s;
    f->run_fragment_mean = fs__run_cells(acc->run_s, n, quantiles, f->run_samples);
    f->run_max_err = fs__check(acc->run_s, n, f->run_samples, s, f->run_check);
    /* Between the grid's points: every 0.1% and the max. */
    f->run_fine_err = 0;
    f->run_fine_q = NAN;
    for (int j = 1; j <= 1000; j++) {
        double q = j / 1000.0;
        double e = fabs(fs__rel_err(fs_quantile_sorted(f->run_samples, s, q), fs_quantile_sorted(acc->run_s, n, q)));
        if (e > f->run_fine_err) {
            f->run_fine_err = e;
            f->run_fine_q = q;
        }
    }
    return FS_OK;
}

/* The lognormal by maximum likelihood over durations > 0, its KS distance
 * against every job (acc->run_s sorted) and its quantiles. */
static int fs__fit_lognormal(const fs_fit_jobs_acc *acc, fs_fit_jobs *f, fs_error *err)
{
    size_t n = acc->n, zeros = 0;
    while (zeros < n && acc->run_s[zeros] == 0)
        zeros++;
    f->zero_jobs = zeros;
    f->lognormal_n = n - zeros;
    f->lognormal_median_s = f->lognormal_sigma = f->lognormal_ks = NAN;
    for (int k = 0; k < FS_FIT_JOBS_N_CHECK; k++)
        f->lognormal_check[k] = (fs_fit_jobs_check){fs_fit_jobs_check_q[k], f->run_check[k].trace, NAN, NAN};
    if (n - zeros < 2)
        return FS_OK;
    double *logs = malloc((n - zeros) * sizeof *logs);
    if (!logs)
        return fs_error_set(err, FS_ERR_RUNTIME, "out of memory for %zu log durations", n - zeros);
    for (size_t i = zeros; i < n; i++)
        logs[i - zeros] = log(acc->run_s[i]);
    double mu = gsl_stats_mean(logs, 1, n - zeros);
    /* Around the known mean, divided by n: the MLE of sigma. */
    double sigma = gsl_stats_sd_with_fixed_mean(logs, 1, n - zeros, mu);
    free(logs);
    f->lognormal_median_s = exp(mu);
    f->lognormal_sigma = sigma;
    if (!(sigma > 0))
        return FS_OK;
    /* sup |F - ECDF|: at each value, F against the ECDF just before it and
     * at it (ties: the first and the last of the run give both). */
    double d = 0;
    for (size_t i = 0; i < n; i++) {
        double cdf = acc->run_s[i] > 0 ? gsl_cdf_lognormal_P(acc->run_s[i], mu, sigma) : 0;
        d = fmax(d, fmax(cdf - (double)i / (double)n, (double)(i + 1) / (double)n - cdf));
    }
    f->lognormal_ks = d;
    for (int k = 0; k < FS_FIT_JOBS_N_CHECK; k++) {
        double q = fs_fit_jobs_check_q[k];
        fs_fit_jobs_check *c = &f->lognormal_check[k];
        c->fragment = q < 1 ? exp(mu + sigma * gsl_cdf_ugaussian_Pinv(q)) : INFINITY;
        c->rel_err = fs__rel_err(c->fragment, c->trace);
    }
    return FS_OK;
}

/* ---- run time by gang ---------------------------------------------------- */

/* A value and a tag, sorted by value: a job's run time and gang
 * (fs__sort_jobs), or a class sample and its class's weight
 * (fs__check_mixture). */
typedef struct fs__job {
    double x;
    uint32_t tag;
} fs__job;

static int fs__cmp_job(const void *a, const void *b)
{
    return fs__cmp_double(&((const fs__job *)a)->x, &((const fs__job *)b)->x);
}

/* acc's jobs sorted by run time, each keeping its gang: the classes then
 * read their jobs in order, already sorted.  O(n log n), 16 bytes a job
 * while it lasts. */
static int fs__sort_jobs(fs_fit_jobs_acc *acc, fs_error *err)
{
    fs__job *jobs = malloc(acc->n * sizeof *jobs);
    if (!jobs)
        return fs_error_set(err, FS_ERR_RUNTIME, "out of memory to sort %zu jobs", acc->n);
    for (size_t i = 0; i < acc->n; i++)
        jobs[i] = (fs__job){acc->run_s[i], acc->gpus[i]};
    qsort(jobs, acc->n, sizeof *jobs, fs__cmp_job);
    for (size_t i = 0; i < acc->n; i++) {
        acc->run_s[i] = jobs[i].x;
        acc->gpus[i] = jobs[i].tag;
    }
    free(jobs);
    return FS_OK;
}

/* The classes (fit_jobs.h): ascending sizes, a class closed at the first
 * size that brings it to min_class_jobs, the rest joined to the last. */
static int fs__group_gangs(fs_fit_jobs *f, fs_error *err)
{
    double share = ceil(FS_FIT_JOBS_CLASS_SHARE * (double)f->jobs - 1e-9);
    f->min_class_jobs = share > FS_FIT_JOBS_CLASS_JOBS ? (uint64_t)share : FS_FIT_JOBS_CLASS_JOBS;
    f->classes = calloc(f->n_gangs, sizeof *f->classes);
    if (!f->classes)
        return fs_error_set(err, FS_ERR_RUNTIME, "out of memory for %zu gang classes", f->n_gangs);
    fs_fit_jobs_class open = {0};
    for (size_t k = 0; k < f->n_gangs; k++) {
        open.n_sizes++;
        open.jobs += f->gangs[k].count;
        open.copies += f->gangs[k].copies;
        if (open.jobs >= f->min_class_jobs) {
            f->classes[f->n_classes++] = open;
            open = (fs_fit_jobs_class){.first = k + 1};
        }
    }
    if (open.n_sizes > 0 && f->n_classes == 0) {
        f->classes[f->n_classes++] = open;
    } else if (open.n_sizes > 0) {
        fs_fit_jobs_class *last = &f->classes[f->n_classes - 1];
        last->n_sizes += open.n_sizes;
        last->jobs += open.jobs;
        last->copies += open.copies;
    }
    return FS_OK;
}

/* The class holding gang size gpus (classes cover every size, in order). */
static size_t fs__class_of(const fs_fit_jobs *f, uint32_t gpus)
{
    size_t c = f->n_classes - 1;
    while (c > 0 && f->gangs[f->classes[c].first].gpus > gpus)
        c--;
    return c;
}

/* The mixture's quantiles: each class's samples weigh its gang samples
 * (copies), one total of n_gang_samples x 5N; sorted together, quantile q
 * is the value at the weighted rank ceil(q total).  O(M log M) over the
 * classes' M samples. */
static int fs__check_mixture(const fs_fit_jobs_acc *acc, fs_fit_jobs *f, fs_error *err)
{
    size_t m = 0;
    for (size_t c = 0; c < f->n_classes; c++)
        m += f->classes[c].n_run_samples;
    fs__job *v = malloc(m * sizeof *v);
    uint64_t *w = malloc(m * sizeof *w);
    if (!v || !w) {
        free(v);
        free(w);
        return fs_error_set(err, FS_ERR_RUNTIME, "out of memory for %zu mixture samples", m);
    }
    size_t at = 0;
    for (size_t c = 0; c < f->n_classes; c++)
        for (size_t k = 0; k < f->classes[c].n_run_samples; k++)
            v[at++] = (fs__job){f->classes[c].run_samples[k], f->classes[c].copies};
    qsort(v, m, sizeof *v, fs__cmp_job);
    for (size_t k = 0; k < m; k++)
        w[k] = v[k].tag;
    uint64_t total = (uint64_t)f->n_gang_samples * FS_FIT_JOBS_TAIL_SPLIT * f->quantiles;
    f->mixture_max_err = 0;
    for (int k = 0; k < FS_FIT_JOBS_N_CHECK; k++) {
        double q = fs_fit_jobs_check_q[k];
        f->mixture_max_err = fmax(f->mixture_max_err,
                                  fs__check_row(&f->mixture_check[k], q, fs_quantile_sorted(acc->run_s, acc->n, q),
                                                v[fs__weighted_index(w, m, total, q)].x));
    }
    free(v);
    free(w);
    return FS_OK;
}

/* Run time by gang: the classes, each one's jobs (read from the sorted
 * jobs, so each class's run times come sorted), its samples and check;
 * then the mixture's check, mean and GPU-hours. */
static int fs__fit_classes(const fs_fit_jobs_acc *acc, size_t quantiles, fs_fit_jobs *f, fs_error *err)
{
    int rc = fs__group_gangs(f, err);
    double *runs = rc == FS_OK ? malloc(acc->n * sizeof *runs) : NULL;
    size_t *fill = rc == FS_OK ? calloc(f->n_classes, sizeof *fill) : NULL;
    if (rc == FS_OK && (!runs || !fill))
        rc = fs_error_set(err, FS_ERR_RUNTIME, "out of memory for the run times of %zu gang classes", f->n_classes);
    /* fill[c]: where class c's next run time goes, its jobs one block. */
    for (size_t c = 1; rc == FS_OK && c < f->n_classes; c++)
        fill[c] = fill[c - 1] + f->classes[c - 1].jobs;
    for (size_t i = 0; rc == FS_OK && i < acc->n; i++)
        runs[fill[fs__class_of(f, acc->gpus[i])]++] = acc->run_s[i];
    size_t s = FS_FIT_JOBS_TAIL_SPLIT * quantiles, from = 0;
    f->mixture_mean = f->by_gang_gpu_hours = 0;
    for (size_t c = 0; rc == FS_OK && c < f->n_classes; c++) {
        fs_fit_jobs_class *k = &f->classes[c];
        const double *own = runs + from;
        from += k->jobs;
        if (!(k->run_samples = malloc(s * sizeof *k->run_samples))) {
            rc = fs_error_set(err, FS_ERR_RUNTIME, "out of memory for %zu run-time samples", s);
            break;
        }
        k->n_run_samples = s;
        k->run_fragment_mean = fs__run_cells(own, k->jobs, quantiles, k->run_samples);
        k->run_mean = gsl_stats_mean(own, 1, k->jobs);
        k->run_max_err = fs__check(own, k->jobs, k->run_samples, s, k->run_check);
        double weight = (double)k->copies / (double)f->n_gang_samples;
        f->mixture_mean += weight * k->run_fragment_mean;
        for (size_t g = k->first; g < k->first + k->n_sizes; g++)
            f->by_gang_gpu_hours += f->gangs[g].printed_share * f->gangs[g].gpus * k->run_fragment_mean / 3600;
    }
    free(runs);
    free(fill);
    return rc == FS_OK ? fs__check_mixture(acc, f, err) : rc;
}

int fs_fit_jobs_compute(fs_fit_jobs_acc *acc, size_t quantiles, fs_fit_jobs *out, fs_error *err)
{
    memset(out, 0, sizeof *out);
    if (quantiles < FS_FIT_JOBS_MIN_QUANTILES || quantiles > FS_FIT_JOBS_MAX_QUANTILES)
        return fs_error_set(err, FS_ERR_INPUT, "quantiles: expected %d to %d, got %zu", FS_FIT_JOBS_MIN_QUANTILES,
                            FS_FIT_JOBS_MAX_QUANTILES, quantiles);
    if (acc->n == 0)
        return fs_error_set(err, FS_ERR_INPUT, "no jobs to fit");
    out->jobs = acc->n;
    out->out_of_order = acc->out_of_order;
    out->span_s = acc->last_s - acc->first_s;
    out->rate_per_hour = out->span_s > 0 ? (double)(acc->n - 1) / out->span_s * 3600 : NAN;
    int rc = fs__sort_jobs(acc, err);
    out->run_mean = gsl_stats_mean(acc->run_s, 1, acc->n);
    out->gpu_hours = acc->gpu_s / (double)acc->n / 3600;
    if (rc == FS_OK)
        rc = fs__fit_gang(acc, out, err);
    if (rc == FS_OK)
        rc = fs__fit_run(acc, quantiles, out, err);
    if (rc == FS_OK)
        rc = fs__fit_lognormal(acc, out, err);
    if (rc == FS_OK)
        rc = fs__fit_classes(acc, quantiles, out, err);
    if (rc != FS_OK) {
        fs_fit_jobs_fini(out);
        return rc;
    }
    out->independent_gpu_hours = out->gang_mean * out->run_mean / 3600;
    out->fragment_gpu_hours = out->gang_fragment_mean * out->run_fragment_mean / 3600;
    return FS_OK;
}

void fs_fit_jobs_fini(fs_fit_jobs *fit)
{
    free(fit->gangs);
    free(fit->gang_samples);
    free(fit->run_samples);
    for (size_t c = 0; fit->classes && c < fit->n_classes; c++)
        free(fit->classes[c].run_samples);
    free(fit->classes);
    memset(fit, 0, sizeof *fit);
}

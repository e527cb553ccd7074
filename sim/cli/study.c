#define _GNU_SOURCE /* sched_getaffinity */
#include "study.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "output.h"
#include "progress.h"

#define FS_RUN_SCHEMA "fleetsim-run/1"

static void fs__unit_name(size_t point, uint32_t rep, char *buf, size_t size)
{
    snprintf(buf, size, "p%06zu-r%04u.json", point, rep);
}

static void fs__unit_path(const char *dir, size_t point, uint32_t rep, char *buf, size_t size)
{
    char name[64];
    fs__unit_name(point, rep, name, sizeof name);
    snprintf(buf, size, "%s/runs/%s", dir, name);
}

bool fs_study_has(const char *dir, size_t point, uint32_t replication)
{
    char path[4200];
    fs__unit_path(dir, point, replication, path, sizeof path);
    return access(path, F_OK) == 0;
}

unsigned fs_study_cores(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return (unsigned)CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)n : 1;
}

static int fs__write_json(const char *dir, const char *name, const json_t *doc, size_t flags, fs_error *err)
{
    fs_output out;
    FILE *fp;
    int rc = fs_output_begin(&out, dir, err);
    if (rc != FS_OK)
        return rc;
    if ((rc = fs_output_open(&out, name, &fp, err)) != FS_OK) {
        fs_output_abort(&out);
        return rc;
    }
    if (json_dumpf(doc, fp, flags) != 0 || fputc('\n', fp) == EOF) {
        fs_output_abort(&out);
        return fs_error_set(err, FS_ERR_RUNTIME, "%s/%s: cannot write", dir, name);
    }
    return fs_output_commit(&out, err);
}

int fs_study_read(const char *dir, fs_sweep **out, fs_error *err)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/sweep.json", dir);
    json_error_t jerr;
    json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
    if (!root)
        return fs_error_set(err, FS_ERR_INPUT, "%s: %s (is %s the --out of a sweep or plan?)", path,
                            json_error_code(&jerr) == json_error_cannot_open_file ? "cannot read" : jerr.text,
                            dir);
    int rc = fs_sweep_from_json(root, path, dir, out, err);
    json_decref(root);
    return rc;
}

int fs_study_open(const fs_sweep *sw, const char *dir, fs_error *err)
{
    char runs[4200];
    snprintf(runs, sizeof runs, "%s/runs", dir);
    fs_output probe;
    int rc = fs_output_begin(&probe, runs, err); /* mkdir -p */
    if (rc != FS_OK)
        return rc;
    fs_output_abort(&probe);
    char path[4200];
    snprintf(path, sizeof path, "%s/sweep.json", dir);
    if (access(path, F_OK) == 0) {
        fs_sweep *old;
        fs_error read_err = {0};
        rc = fs_study_read(dir, &old, &read_err);
        if (rc == FS_OK && strcmp(old->fingerprint, sw->fingerprint) != 0)
            rc = fs_error_set(err, FS_ERR_INPUT,
                              "%s holds another sweep (fingerprint %s; this one is %s): give another --out, "
                              "or remove it to start over",
                              dir, old->fingerprint, sw->fingerprint);
        else if (rc != FS_OK)
            rc = fs_error_set(err, FS_ERR_INPUT, "%s", read_err.msg);
        fs_sweep_destroy(old);
        if (rc != FS_OK)
            return rc;
    }
    json_t *doc = fs_sweep_to_json(sw);
    if (!doc)
        return fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
    rc = fs__write_json(dir, "sweep.json", doc, JSON_INDENT(1) | JSON_REAL_PRECISION(17), err);
    json_decref(doc);
    return rc;
}

/* ---- running ---- */

typedef struct fs__pool {
    const fs_sweep *sw;
    const char *dir;
    const fs_study_unit *todo; /* runs without a file */
    size_t n_todo, next;
    const fs_study_options *opt;
    pthread_mutex_t mu;
    int rc;
    fs_error err;
    size_t failed_at;  /* todo index of the run whose error is kept: the lowest that failed */
    uint64_t done;
    size_t *point_left;        /* runs of a point not yet finished, at the point's slot */
    size_t *slot;              /* per run in todo: its point's slot */
    size_t points_total, points_done;
    struct timespec start, last_line;
    bool tty;
} fs__pool;

/* Called with the lock held after each finished run. */
static void fs__progress(fs__pool *pool, bool final)
{
    if (pool->opt->quiet)
        return;
    double elapsed = fs_progress_since(&pool->start);
    if (!pool->tty && !final && fs_progress_since(&pool->last_line) < 5)
        return;
    clock_gettime(CLOCK_MONOTONIC, &pool->last_line);
    char eta[32] = "?";
    if (pool->done)
        fs_progress_eta(elapsed / (double)pool->done * (double)(pool->n_todo - pool->done), eta, sizeof eta);
    if (pool->tty) {
        int width = 30, filled = pool->n_todo ? (int)(width * pool->done / pool->n_todo) : width;
        fprintf(stderr, "\r%s: [%.*s%*s] %zu/%zu points, %llu/%zu runs, ETA %s   ", pool->opt->label, filled,
                "##############################", width - filled, "", pool->points_done, pool->points_total,
                (unsigned long long)pool->done, pool->n_todo, final ? "0s" : eta);
        if (final)
            fputc('\n', stderr);
    } else {
        fprintf(stderr, "%s: %zu/%zu points, %llu/%zu runs done, %.0fs elapsed, ETA %s\n", pool->opt->label,
                pool->points_done, pool->points_total, (unsigned long long)pool->done, pool->n_todo, elapsed,
                final ? "0s" : eta);
    }
    fflush(stderr);
}

static int fs__save(const fs_sweep *sw, const char *dir, size_t point, uint32_t rep, const fs_metrics *m,
                    fs_error *err)
{
    json_t *doc = fs_metrics_to_json(m);
    char label[1024], runs[4200], name[64];
    fs_sweep_point_label(sw, point, label, sizeof label);
    if (!doc || json_object_set_new(doc, "schema", json_string(FS_RUN_SCHEMA)) ||
        json_object_set_new(doc, "fingerprint", json_string(sw->fingerprint)) ||
        json_object_set_new(doc, "point", json_integer((json_int_t)point)) ||
        json_object_set_new(doc, "replication", json_integer(rep)) ||
        json_object_set_new(doc, "seed", json_integer((json_int_t)fs_sweep_point_seed(sw, point))) ||
        json_object_set_new(doc, "label", json_string(label))) {
        json_decref(doc);
        return fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
    }
    snprintf(runs, sizeof runs, "%s/runs", dir);
    fs__unit_name(point, rep, name, sizeof name);
    int rc = fs__write_json(runs, name, doc, JSON_COMPACT | JSON_REAL_PRECISION(17), err);
    json_decref(doc);
    return rc;
}

static void *fs__worker(void *arg)
{
    fs__pool *pool = arg;
    json_t *doc = NULL;
    pthread_mutex_lock(&pool->mu);
    doc = fs_sweep_work_doc(pool->sw); /* the shared document is only read under the lock */
    if (!doc && pool->rc == FS_OK)
        pool->rc = fs_error_set(&pool->err, FS_ERR_RUNTIME, "out of memory");
    pthread_mutex_unlock(&pool->mu);
    for (;;) {
        pthread_mutex_lock(&pool->mu);
        bool stop = pool->rc != FS_OK || pool->next == pool->n_todo;
        size_t i = pool->next;
        if (!stop)
            pool->next++;
        pthread_mutex_unlock(&pool->mu);
        if (stop)
            break;
        const fs_study_unit *u = &pool->todo[i];
        fs_metrics m;
        fs_error err = {0};
        int rc = fs_sweep_run(pool->sw, doc, u->point, u->replication, &m, &err);
        if (rc == FS_OK) {
            rc = fs__save(pool->sw, pool->dir, u->point, u->replication, &m, &err);
            fs_metrics_fini(&m);
        }
        pthread_mutex_lock(&pool->mu);
        /* Runs are handed out in order, so every run before a failed one has
         * started and will finish: keeping the lowest failing index makes the
         * error the same whatever the threads' timing (same input, same
         * message). */
        if (rc != FS_OK && (pool->rc == FS_OK || i < pool->failed_at)) {
            pool->rc = rc;
            pool->err = err;
            pool->failed_at = i;
        } else if (rc == FS_OK) {
            pool->done++;
            if (--pool->point_left[pool->slot[i]] == 0)
                pool->points_done++;
            fs__progress(pool, false);
        }
        pthread_mutex_unlock(&pool->mu);
    }
    json_decref(doc);
    return NULL;
}

int fs_study_run(const fs_sweep *sw, const char *dir, const fs_study_unit *units, size_t n,
                 const fs_study_options *opt, uint64_t *ran, fs_error *err)
{
    *ran = 0;
    fs__pool pool = {.sw = sw, .dir = dir, .opt = opt, .rc = FS_OK, .tty = isatty(STDERR_FILENO) == 1};
    size_t room = n ? n : 1;
    fs_study_unit *todo = malloc(room * sizeof *todo);
    /* Runs of one point are adjacent in every caller's list and share one
     * counter (at the first run's slot): the point is done with its last run. */
    size_t *left = calloc(room, sizeof *left), *slot = malloc(room * sizeof *slot);
    pthread_t *threads = NULL;
    int rc = todo && left && slot ? FS_OK : fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
    for (size_t i = 0; rc == FS_OK && i < n; i++) {
        if (fs_study_has(dir, units[i].point, units[i].replication))
            continue;
        if (opt->max_runs && pool.n_todo == opt->max_runs)
            break;
        size_t k = pool.n_todo++;
        todo[k] = units[i];
        slot[k] = k > 0 && todo[k - 1].point == units[i].point ? slot[k - 1] : k;
        if (slot[k] == k)
            pool.points_total++;
        left[slot[k]]++;
    }
    pool.todo = todo;
    pool.point_left = left;
    pool.slot = slot;
    unsigned jobs = opt->jobs ? opt->jobs : 1;
    if (jobs > pool.n_todo)
        jobs = pool.n_todo ? (unsigned)pool.n_todo : 1;
    if (rc == FS_OK && pool.n_todo > 0 && !(threads = malloc(jobs * sizeof *threads)))
        rc = fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
    if (rc == FS_OK && pool.n_todo > 0) {
        pthread_mutex_init(&pool.mu, NULL);
        clock_gettime(CLOCK_MONOTONIC, &pool.start);
        pool.last_line = pool.start;
        unsigned started = 0;
        for (unsigned t = 0; t < jobs && pthread_create(&threads[t], NULL, fs__worker, &pool) == 0; t++)
            started++;
        if (started == 0)
            fs__worker(&pool); /* no thread to be had: run here */
        for (unsigned t = 0; t < started; t++)
            pthread_join(threads[t], NULL);
        pthread_mutex_destroy(&pool.mu);
        fs__progress(&pool, true);
        rc = pool.rc;
        if (rc != FS_OK)
            *err = pool.err;
    }
    *ran = pool.done;
    free(threads);
    free(todo);
    free(left);
    free(slot);
    return rc;
}

/* ---- reading back ---- */

static int fs__load_unit(const fs_sweep *sw, const char *path, size_t point, uint32_t rep, fs_metrics *m,
                         fs_error *err)
{
    json_error_t jerr;
    json_t *doc = json_load_file(path, 0, &jerr);
    if (!doc)
        return fs_error_set(err, FS_ERR_INPUT, "%s: %s", path, jerr.text);
    const char *fp = json_string_value(json_object_get(doc, "fingerprint"));
    json_t *p = json_object_get(doc, "point"), *r = json_object_get(doc, "replication");
    int rc;
    if (!fp || strcmp(fp, sw->fingerprint) != 0)
        rc = fs_error_set(err, FS_ERR_INPUT, "%s: a run of another sweep (fingerprint %s, expected %s)", path,
                          fp ? fp : "missing", sw->fingerprint);
    else if (!json_is_integer(p) || (size_t)json_integer_value(p) != point || !json_is_integer(r) ||
             (uint32_t)json_integer_value(r) != rep)
        rc = fs_error_set(err, FS_ERR_INPUT, "%s: expected the run of point %zu, replication %u", path, point, rep);
    else
        rc = fs_metrics_from_json(doc, path, m, err);
    json_decref(doc);
    return rc;
}

int fs_study_load(const fs_sweep *sw, const char *dir, size_t point, uint32_t replication, fs_metrics *m,
                  fs_error *err)
{
    char path[4200];
    fs__unit_path(dir, point, replication, path, sizeof path);
    if (!fs_study_has(dir, point, replication))
        return fs_error_set(err, FS_ERR_INPUT, "%s: the run of point %zu, replication %u is missing", path, point,
                            replication);
    return fs__load_unit(sw, path, point, replication, m, err);
}

int fs_study_row(const fs_sweep *sw, const char *const *dirs, size_t n_dirs, size_t point, uint32_t reps,
                 fs_metric_row *row, fs_error *err)
{
    fs_metrics *runs = calloc(reps ? reps : 1, sizeof *runs);
    if (!runs)
        return fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
    int rc = FS_OK;
    uint32_t loaded = 0;
    for (uint32_t k = 0; k < reps && rc == FS_OK; k++) {
        char path[4200];
        size_t d = 0;
        for (; d < n_dirs && !fs_study_has(dirs[d], point, k); d++)
            ;
        if (d == n_dirs) {
            char label[512];
            fs_sweep_point_label(sw, point, label, sizeof label);
            rc = fs_error_set(err, FS_ERR_INPUT, "the run of point %zu (%s), replication %u is missing", point,
                              label, k);
            break;
        }
        fs__unit_path(dirs[d], point, k, path, sizeof path);
        rc = fs__load_unit(sw, path, point, k, &runs[k], err);
        if (rc == FS_OK)
            loaded++;
    }
    if (rc == FS_OK)
        rc = fs_metric_row_summarize(runs, reps, row, err);
    for (uint32_t k = 0; k < loaded; k++)
        fs_metrics_fini(&runs[k]);
    free(runs);
    return rc;
}

/*
 * charts — see charts.h for the contract.
 *
 * Three phases: read (results.json with jansson, the CSVs streamed through
 * libcsv into fixed-size accumulators; a plan's points come read already),
 * write (per chart a CSV and a self-contained gnuplot script), render (one
 * gnuplot process per chart, all started at once in a private directory,
 * then waited for, their images renamed into place).
 *
 * This file holds the public entry points, which run the phases in turn, and
 * the render phase; the others live in the files listed in README.md.
 */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "chart_internal.h"

/* ------------------------------------------------------------ render */

/* The stem of the k-th chart this module can write (every kind, each
 * numbered one up to its maximum), or NULL past the last. */
static const char *fs__stem_at(size_t k, char stem[32])
{
    static const struct { const char *stem; size_t max_nth; } kinds[] = {
        {"p99_by_hour", FS__MAX_SERVICES}, {"breach_heatmap", FS__MAX_HEATMAPS}, {"cost_by_pool", 0},
        {"utilization", 0},                {"queue_wait_cdf", 0},                 {"plan_frontier", 0},
        {"ttft_by_hour", 0},               {"tpot_by_hour", 0},                   {"batch_sizes", 0},
        {"kv_occupancy", 0},               {"sensitivity_tornado", 0}};
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++) {
        if (k == 0) {
            snprintf(stem, 32, "%s", kinds[i].stem);
            return stem;
        }
        if (k <= kinds[i].max_nth) {
            snprintf(stem, 32, "%s_%zu", kinds[i].stem, k);
            return stem;
        }
        k -= 1 + kinds[i].max_nth;
    }
    return NULL;
}

/* Removes from dir the chart files of this module (STEM.csv, .gp, .png,
 * .svg, .log) that this set did not write, and the images of a chart that
 * did not render: a page must never show an earlier report's chart. */
static int fs__remove_stale(const char *dir, const fs_chart_set *set, fs_error *err)
{
    static const char *const exts[] = {"csv", "gp", "log", "png", "svg"}; /* images last */
    char stem[32];
    for (size_t k = 0; fs__stem_at(k, stem); k++) {
        const fs_chart *ch = NULL;
        for (size_t i = 0; i < set->n && !ch; i++)
            if (strcmp(set->charts[i].stem, stem) == 0)
                ch = &set->charts[i];
        for (size_t e = ch ? (ch->rendered ? 5 : 3) : 0; e < 5; e++) {
            char *path = fs__fmt("%s/%s.%s", dir, stem, exts[e]);
            if (!path)
                return fs_error_set(err, FS_ERR_RUNTIME, "charts: out of memory");
            int rc = unlink(path) != 0 && errno != ENOENT
                         ? fs_error_set(err, FS_ERR_RUNTIME, "%s: cannot remove this file of an earlier report: %s",
                                        path, strerror(errno))
                         : FS_OK;
            free(path);
            if (rc)
                return rc;
        }
    }
    return FS_OK;
}

/* Starts one gnuplot with the chart's script, kept in memory since it was
 * written, on its standard input (an unlinked temporary file, so nothing
 * else can reach or swap it), in the private directory work; output to
 * work/STEM.log.  Never through a shell: the argv is {"gnuplot"}.  A CLOEXEC
 * pipe tells an exec failure (gnuplot not found) from gnuplot itself
 * failing.  Returns the child or -1 (then not rendered); *pipe_rd is the
 * pipe's end to read. */
static pid_t fs__start(const char *work, const fs_chart *ch, int *pipe_rd, fs_error *err, int *rc)
{
    char *log_path = fs__fmt("%s/%s.log", work, ch->stem);
    if (!log_path) {
        *rc = fs_error_set(err, FS_ERR_RUNTIME, "charts: out of memory");
        return -1;
    }
    int log = open(log_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (log < 0)
        *rc = fs_error_set(err, FS_ERR_RUNTIME, "%s: cannot write: %s", log_path, strerror(errno));
    free(log_path);
    if (log < 0)
        return -1;
    FILE *script = tmpfile();
    int fds[2] = {-1, -1};
    pid_t child = -1;
    if (script && fwrite(ch->script, 1, strlen(ch->script), script) == strlen(ch->script) &&
        fflush(script) == 0 && lseek(fileno(script), 0, SEEK_SET) == 0 && pipe(fds) == 0) {
        fcntl(fds[0], F_SETFD, FD_CLOEXEC);
        fcntl(fds[1], F_SETFD, FD_CLOEXEC);
        int in = fileno(script);
        char prog[] = "gnuplot";
        char *argv[] = {prog, NULL};
        child = fork();
        if (child == 0) {
            /* Only async-signal-safe calls from here to exec. */
            int why[2] = {0, 0};
            dup2(in, 0);
            dup2(log, 1);
            dup2(log, 2);
            if (chdir(work) != 0) {
                why[0] = 1, why[1] = errno;
            } else {
                execvp(prog, argv);
                why[0] = 2, why[1] = errno;
            }
            ssize_t unused = write(fds[1], why, sizeof why);
            (void)unused;
            _exit(127);
        }
        close(fds[1]);
        if (child < 0)
            close(fds[0]);
        else
            *pipe_rd = fds[0];
    }
    if (script)
        fclose(script); /* the child holds its own descriptor */
    close(log);
    return child;
}

/* Renders every chart at once in a private directory made inside dir
 * (mkdtemp: 0700, new), then moves each STEM.png, STEM.svg and STEM.log
 * into dir with rename, which replaces a planted symlink instead of writing
 * through it.  Only failing to create the directory or a log file is an
 * error; everything else leaves the chart unrendered. */
static int fs__render(const char *dir, fs_chart_set *set, fs_error *err)
{
    pid_t pid[FS_CHARTS_MAX];
    int pipe_rd[FS_CHARTS_MAX];
    int rc = FS_OK;
    char *work = fs__fmt("%s/.render.XXXXXX", dir);
    if (!work)
        return fs_error_set(err, FS_ERR_RUNTIME, "charts: out of memory");
    if (!mkdtemp(work)) {
        rc = fs_error_set(err, FS_ERR_RUNTIME, "%s: cannot create a directory to render in: %s", dir,
                          strerror(errno));
        free(work);
        return rc;
    }
    for (size_t c = 0; c < set->n; c++)
        pid[c] = -1, pipe_rd[c] = -1; /* so a failed start still waits for the others */
    for (size_t c = 0; c < set->n && rc == FS_OK; c++)
        pid[c] = fs__start(work, &set->charts[c], &pipe_rd[c], err, &rc);
    static const char *const exts[] = {"png", "svg", "log"};
    for (size_t c = 0; c < set->n; c++) {
        if (pid[c] < 0)
            continue;
        int why[2] = {0, 0};
        ssize_t got;
        do
            got = read(pipe_rd[c], why, sizeof why);
        while (got < 0 && errno == EINTR);
        close(pipe_rd[c]);
        int status;
        pid_t r;
        do
            r = waitpid(pid[c], &status, 0);
        while (r < 0 && errno == EINTR);
        if (got != (ssize_t)sizeof why) /* the exec succeeded: gnuplot exists */
            set->gnuplot_found = true;
        bool ok = got != (ssize_t)sizeof why && r == pid[c] && WIFEXITED(status) && WEXITSTATUS(status) == 0;
        for (int k = 0; k < 2 && ok; k++) {
            char *img = fs__fmt("%s/%s.%s", work, set->charts[c].stem, exts[k]);
            struct stat st;
            ok = img && lstat(img, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
            free(img);
        }
        set->charts[c].rendered = ok;
    }
    /* Moves what gnuplot wrote out (images only when the chart rendered) and
     * removes the rest with the private directory. */
    for (size_t c = 0; c < set->n; c++)
        for (int k = 0; k < 3; k++) {
            char *from = fs__fmt("%s/%s.%s", work, set->charts[c].stem, exts[k]);
            char *to = fs__fmt("%s/%s.%s", dir, set->charts[c].stem, exts[k]);
            if (from && to && (k == 2 || set->charts[c].rendered) && rename(from, to) != 0 && errno != ENOENT &&
                rc == FS_OK)
                rc = fs_error_set(err, FS_ERR_RUNTIME, "%s: cannot move into place: %s", to, strerror(errno));
            if (from)
                unlink(from);
            free(from);
            free(to);
        }
    rmdir(work);
    free(work);
    set->gnuplot_ran = set->gnuplot_found && set->n > 0;
    for (size_t c = 0; c < set->n; c++)
        set->gnuplot_ran = set->gnuplot_ran && set->charts[c].rendered;
    return rc;
}

/* Renders every chart of *set in out_dir and sets the hint that renders them
 * by hand. */
static int fs__render_set(const char *out_dir, fs_chart_set *set, fs_error *err)
{
    int rc = fs__render(out_dir, set, err);
    if (rc == FS_OK)
        rc = fs__remove_stale(out_dir, set, err);
    if (rc)
        return rc;
    size_t len = sizeof "gnuplot";
    for (size_t c = 0; c < set->n; c++)
        len += strlen(set->charts[c].stem) + 4;
    set->render_hint = malloc(len);
    if (!set->render_hint)
        return fs_error_set(err, FS_ERR_RUNTIME, "charts: out of memory");
    strcpy(set->render_hint, "gnuplot");
    for (size_t c = 0; c < set->n; c++) {
        strcat(set->render_hint, " ");
        strcat(set->render_hint, set->charts[c].stem);
        strcat(set->render_hint, ".gp");
    }
    return FS_OK;
}

int fs_charts_write(const char *results_dir, const char *out_dir, fs_chart_set *out,
                    fs_error *err)
{
    assert(results_dir && out_dir && out);
    memset(out, 0, sizeof *out);
    fs__data d = {.dir = results_dir};
    fs__chart_out o = {.dir = out_dir, .set = out, .err = err};
    int rc;
    if ((rc = fs__load_json(&d, err)) || (rc = fs__load_csvs(&d, err)))
        goto out;
    if ((rc = fs_output_mkdirs(out_dir, err)) || (rc = fs__chart_p99(&d, &o)) ||
        (rc = fs__chart_cost(&d, &o)) || (rc = fs__chart_utilization(&d, &o)) ||
        (rc = fs__chart_cdf(&d, &o)) || (rc = fs__chart_breaches(&d, &o)) || (rc = fs__chart_llm(&d, &o)))
        goto out;
    rc = fs__render_set(out_dir, out, err);
out:
    fs__data_fini(&d);
    if (rc)
        fs_charts_free(out);
    return rc;
}

int fs_charts_write_frontier(const fs_frontier_chart *plan, const char *out_dir, fs_chart_set *out,
                             fs_error *err)
{
    assert(plan && out_dir && out);
    memset(out, 0, sizeof *out);
    fs__chart_out o = {.dir = out_dir, .set = out, .err = err};
    bool any = false;
    for (size_t i = 0; i < plan->n_points && !any; i++)
        any = isfinite(plan->points[i].x) && isfinite(plan->points[i].y);
    if (!any) /* no chart: an earlier report's is not this plan's */
        return fs__remove_stale(out_dir, out, err);
    int rc;
    if ((rc = fs_output_mkdirs(out_dir, err)) || (rc = fs__chart_frontier(plan, &o)) ||
        (rc = fs__render_set(out_dir, out, err)))
        fs_charts_free(out);
    return rc;
}

int fs_charts_write_tornado(const fs_tornado_chart *c, const char *out_dir, fs_chart_set *out, fs_error *err)
{
    assert(c && out_dir && out);
    memset(out, 0, sizeof *out);
    fs__chart_out o = {.dir = out_dir, .set = out, .err = err};
    if (!isfinite(c->base_value)) /* no chart: an earlier report's is not this study's */
        return fs__remove_stale(out_dir, out, err);
    int rc;
    if ((rc = fs_output_mkdirs(out_dir, err)) || (rc = fs__chart_tornado(c, &o)) ||
        (rc = fs__render_set(out_dir, out, err)))
        fs_charts_free(out);
    return rc;
}

int fs_charts_remove(const char *dir, fs_error *err)
{
    fs_chart_set none = {0};
    return fs__remove_stale(dir, &none, err);
}

void fs_charts_free(fs_chart_set *set)
{
    if (!set)
        return;
    for (size_t c = 0; c < set->n; c++) {
        free(set->charts[c].title);
        free(set->charts[c].caption);
        free(set->charts[c].script);
    }
    free(set->render_hint);
    memset(set, 0, sizeof *set);
}

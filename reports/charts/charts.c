/*
 * charts — see charts.h for the contract.
 *
 * Three phases: read (results.json with jansson, the CSVs streamed through
 * libcsv into fixed-size accumulators; a plan's points come read already),
 * write (per chart a CSV and a self-contained gnuplot script), render (one
 * gnuplot process per chart, all started at once, then waited for).
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

/* Starts gnuplot for every chart at once (fork + execvp, in out_dir, output
 * to STEM.log), then waits for each.  Never through a shell: the argv is
 * {"gnuplot", "STEM.gp"}, stems are fixed ASCII, so nothing from the results
 * is parsed as a command.  A CLOEXEC pipe tells an exec failure
 * (gnuplot not found) from gnuplot itself failing.  Only failing to create a
 * log file is an error; everything else leaves the chart unrendered. */
static int fs__render(const char *dir, fs_chart_set *set, fs_error *err)
{
    pid_t pid[FS_CHARTS_MAX];
    int pipe_rd[FS_CHARTS_MAX];
    int rc = FS_OK;
    for (size_t c = 0; c < set->n; c++)
        pid[c] = -1, pipe_rd[c] = -1; /* so a failed start still waits for the others */
    int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    for (size_t c = 0; c < set->n; c++) {
        char *log_path = fs__fmt("%s/%s.log", dir, set->charts[c].stem);
        if (!log_path) {
            rc = fs_error_set(err, FS_ERR_RUNTIME, "charts: out of memory");
            break;
        }
        int log = open(log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (log < 0) {
            rc = fs_error_set(err, FS_ERR_RUNTIME, "%s: cannot write: %s", log_path, strerror(errno));
            free(log_path);
            break;
        }
        free(log_path);
        int fds[2];
        if (pipe(fds) != 0) {
            close(log);
            continue; /* out of descriptors: not rendered */
        }
        fcntl(fds[0], F_SETFD, FD_CLOEXEC);
        fcntl(fds[1], F_SETFD, FD_CLOEXEC);
        char script[sizeof set->charts[c].stem + 3];
        snprintf(script, sizeof script, "%s.gp", set->charts[c].stem);
        char prog[] = "gnuplot";
        char *argv[] = {prog, script, NULL};
        pid_t child = fork();
        if (child == 0) {
            /* Only async-signal-safe calls from here to exec. */
            int why[2] = {0, 0};
            if (devnull >= 0)
                dup2(devnull, 0);
            dup2(log, 1);
            dup2(log, 2);
            if (chdir(dir) != 0) {
                why[0] = 1, why[1] = errno;
            } else {
                execvp(prog, argv);
                why[0] = 2, why[1] = errno;
            }
            ssize_t unused = write(fds[1], why, sizeof why);
            (void)unused;
            _exit(127);
        }
        close(log);
        close(fds[1]);
        if (child < 0) {
            close(fds[0]);
            continue;
        }
        pid[c] = child;
        pipe_rd[c] = fds[0];
    }
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
        if (got == (ssize_t)sizeof why || r != pid[c] || !WIFEXITED(status) ||
            WEXITSTATUS(status) != 0)
            continue;
        bool ok = true;
        for (int k = 0; k < 2 && ok; k++) {
            char *img = fs__fmt("%s/%s.%s", dir, set->charts[c].stem, k ? "svg" : "png");
            struct stat st;
            ok = img && stat(img, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
            free(img);
        }
        set->charts[c].rendered = ok;
    }
    if (devnull >= 0)
        close(devnull);
    set->gnuplot_ran = set->gnuplot_found && set->n > 0;
    for (size_t c = 0; c < set->n; c++)
        set->gnuplot_ran = set->gnuplot_ran && set->charts[c].rendered;
    return rc;
}

/* mkdir -p. */
static int fs__mkdirs(const char *dir, fs_error *err)
{
    char *p = fs__strdup(dir);
    if (!p)
        return fs_error_set(err, FS_ERR_RUNTIME, "charts: out of memory");
    for (char *s = p + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        mkdir(p, 0777); /* errors show at the last component */
        *s = '/';
    }
    int rc = FS_OK;
    struct stat st;
    if (mkdir(p, 0777) != 0 && !(errno == EEXIST && stat(p, &st) == 0 && S_ISDIR(st.st_mode)))
        rc = fs_error_set(err, FS_ERR_RUNTIME, "%s: cannot create directory: %s", dir,
                          strerror(errno == EEXIST ? ENOTDIR : errno));
    free(p);
    return rc;
}

/* Renders every chart of *set in out_dir and sets the hint that renders them
 * by hand. */
static int fs__render_set(const char *out_dir, fs_chart_set *set, fs_error *err)
{
    int rc = fs__render(out_dir, set, err);
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
    if ((rc = fs__mkdirs(out_dir, err)) || (rc = fs__chart_p99(&d, &o)) ||
        (rc = fs__chart_cost(&d, &o)) || (rc = fs__chart_utilization(&d, &o)) ||
        (rc = fs__chart_cdf(&d, &o)) || (rc = fs__chart_breaches(&d, &o)))
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
    if (!any)
        return FS_OK;
    int rc;
    if ((rc = fs__mkdirs(out_dir, err)) || (rc = fs__chart_frontier(plan, &o)) ||
        (rc = fs__render_set(out_dir, out, err)))
        fs_charts_free(out);
    return rc;
}

void fs_charts_free(fs_chart_set *set)
{
    if (!set)
        return;
    for (size_t c = 0; c < set->n; c++) {
        free(set->charts[c].title);
        free(set->charts[c].caption);
    }
    free(set->render_hint);
    memset(set, 0, sizeof *set);
}

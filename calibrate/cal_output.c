/* cal_output — the profile file and the summary on stdout (cal_output.h). */
#include "cal_output.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cal_say.h"
#include "profile.h"

/* "PATH.tmp", malloc'd; NULL after a message when out of memory. */
static char *cal__tmp_path(const char *path)
{
    size_t len = strlen(path) + 5;
    char *tmp = malloc(len);
    if (!tmp)
        cal_say_error("out of memory");
    else
        snprintf(tmp, len, "%s.tmp", path);
    return tmp;
}

int cal_output_probe(const char *path)
{
    char *tmp = cal__tmp_path(path);
    FILE *fp;
    if (!tmp)
        return -1;
    fp = fopen(tmp, "w");
    if (!fp) {
        cal_say_error("cannot write the profile: %s: %s", tmp, strerror(errno));
        free(tmp);
        return -1;
    }
    fclose(fp);
    remove(tmp);
    free(tmp);
    return 0;
}

int cal_output_write(const fs_calib_samples *s, const char *path)
{
    char *tmp = cal__tmp_path(path);
    FILE *fp = NULL;
    int rc = -1;

    if (!tmp)
        return -1;
    fp = fopen(tmp, "w");
    if (!fp) {
        cal_say_error("%s: %s", tmp, strerror(errno));
        goto out;
    }
    errno = 0;
    if (fs_calib_profile_write(s, fp) != 0 || fflush(fp) != 0 || ferror(fp) || fsync(fileno(fp)) != 0) {
        cal_say_error("%s: write failed: %s", tmp, errno ? strerror(errno) : "error");
        fclose(fp);
        remove(tmp);
        goto out;
    }
    if (fclose(fp) != 0) {
        cal_say_error("%s: %s", tmp, strerror(errno));
        remove(tmp);
        goto out;
    }
    if (rename(tmp, path) != 0) {
        cal_say_error("cannot rename %s to %s: %s", tmp, path, strerror(errno));
        remove(tmp);
        goto out;
    }
    rc = 0;
out:
    free(tmp);
    return rc;
}

static void cal__fmt_seconds(double s, char *buf, size_t cap)
{
    if (!isfinite(s))
        snprintf(buf, cap, "-");
    else if (fabs(s) < 1e-3)
        snprintf(buf, cap, "%.1f us", s * 1e6);
    else if (fabs(s) < 1.0)
        snprintf(buf, cap, "%.2f ms", s * 1e3);
    else
        snprintf(buf, cap, "%.3f s", s);
}

void cal_output_summary(const fs_calib_samples *s, const char *path)
{
    char fixed[32], median[32], bw[32];
    int w = 14; /* the name column, widened to the longest name so that every row stays in line */

    for (size_t i = 0; i < s->n_series; i++)
        w = (int)strlen(s->series[i].name) > w ? (int)strlen(s->series[i].name) : w;
    for (size_t i = 0; i < s->n_scalars; i++)
        w = (int)strlen(s->scalars[i].name) > w ? (int)strlen(s->scalars[i].name) : w;

    if (s->device[0] != '\0')
        printf("%s: %s (%.1f GiB), driver %d, runtime %d, %s\n", CAL_PROG, s->device, s->memory_gb,
               s->driver_version, s->runtime_version, s->date);
    else /* --host-only (cal_host.h): no device, so no name, memory or versions to show */
        printf("%s: no GPU measured, %s\n", CAL_PROG, s->date);
    printf("profile written to %s\n\n", path);
    printf("%-*s %12s %14s %9s %6s\n", w, "series", "fixed", "bandwidth", "R^2", "n");
    for (size_t i = 0; i < s->n_series; i++) {
        fs_calib_fit fit;
        if (fs_calib_fit_series(&s->series[i], &fit) != 0) {
            printf("%-*s %12s %14s %9s %6zu\n", w, s->series[i].name, "-", "-", "-", s->series[i].n);
            continue;
        }
        cal__fmt_seconds(fit.fixed_s, fixed, sizeof fixed);
        if (isfinite(fit.bandwidth_gbps))
            snprintf(bw, sizeof bw, "%.2f GB/s", fit.bandwidth_gbps);
        else
            snprintf(bw, sizeof bw, "unbounded");
        printf("%-*s %12s %14s %9.4f %6zu\n", w, s->series[i].name, fixed, bw, fit.r_squared, fit.n);
    }
    printf("\n%-*s %12s %6s\n", w, "fixed cost", "median", "n");
    for (size_t i = 0; i < s->n_scalars; i++) {
        cal__fmt_seconds(fs_calib_scalar_median(&s->scalars[i]), median, sizeof median);
        printf("%-*s %12s %6zu\n", w, s->scalars[i].name, median, s->scalars[i].n);
    }
    fflush(stdout);
}

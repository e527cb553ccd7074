/*
 * check_host_profile — reads back the profile that `fleetsim-calibrate
 * --host-only` wrote, for tests/check_calibrate_host.sh, with jansson: a
 * parser independent of profile.c, which writes JSON with stdio.
 *
 * It checks that the profile is a host-only one (schema, no "gpu" key, the
 * host-only note, storage_write and no pinned or device series), that the
 * cold and warm pageable reads were fitted to a bandwidth between 0.01 and
 * 200 GB/s (any machine's storage or page cache; null, an infinite fit, fails),
 * and that the cold reads were cold: storage_cold_resident, the fraction of
 * the file's pages still resident after each drop, below 0.5 every time.
 * With --any-resident (scratch on tmpfs, whose pages cannot be dropped) the
 * fractions are printed but not judged.  It prints what it read, so the
 * test's log shows the machine's figures.
 *
 * Usage: check_host_profile [--any-resident] PROFILE.  Exit 0, or 1 after
 * naming each failure.  Test-only.
 */
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static int failures = 0;

static void bad(const char *what, const char *detail)
{
    printf("check_host_profile: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    failures++;
}

/* v's member under the keys that follow, down to a NULL key
 * (get(doc, "fits", "storage_write", NULL)); NULL when one is absent. */
static json_t *get(json_t *v, ...)
{
    va_list ap;
    va_start(ap, v);
    for (const char *key = va_arg(ap, const char *); v && key; key = va_arg(ap, const char *))
        v = json_object_get(v, key);
    va_end(ap);
    return v;
}

/* A pageable series' fitted bandwidth: a finite number in (0.01, 200) GB/s. */
static void check_bandwidth(json_t *doc, const char *series)
{
    json_t *fit = get(doc, "fits", series, NULL), *bw = get(fit, "bandwidth_gbps", NULL);
    if (!json_is_number(bw)) {
        bad(series, "no fitted bandwidth_gbps (null: the fitted slope was <= 0)");
        return;
    }
    double gbps = json_number_value(bw);
    json_t *r2 = get(fit, "r_squared", NULL);
    printf("check_host_profile: %s: %.3f GB/s (R^2 %.4f, %lld samples)\n", series, gbps,
           json_is_number(r2) ? json_number_value(r2) : NAN, (long long)json_integer_value(get(fit, "n", NULL)));
    if (!(isfinite(gbps) && gbps > 0.01 && gbps < 200.0))
        bad(series, "bandwidth outside 0.01 .. 200 GB/s");
}

/* Every resident fraction in [0, 1] and, unless any_resident, below 0.5. */
static void check_resident(json_t *doc, bool any_resident)
{
    json_t *r = get(doc, "samples", "scalars", "storage_cold_resident", NULL);
    size_t n = json_array_size(r);
    double lo = INFINITY, hi = -INFINITY, sum = 0;
    if (!json_is_array(r) || n == 0) {
        bad("samples.scalars.storage_cold_resident", "missing or empty");
        return;
    }
    for (size_t i = 0; i < n; i++) {
        json_t *v = json_array_get(r, i);
        double x = json_is_number(v) ? json_number_value(v) : NAN;
        if (!(x >= 0.0 && x <= 1.0)) {
            bad("samples.scalars.storage_cold_resident", "a value that is not a fraction in [0, 1]");
            return;
        }
        lo = fmin(lo, x);
        hi = fmax(hi, x);
        sum += x;
    }
    printf("check_host_profile: storage_cold_resident: min %.4f, mean %.4f, max %.4f over %zu cold reads%s\n", lo,
           sum / (double)n, hi, n, any_resident ? " (not judged: scratch on tmpfs)" : "");
    if (!any_resident && hi >= 0.5)
        bad("storage_cold_resident", "a cold read started with half the file or more still in the page cache");
}

int main(int argc, char **argv)
{
    bool any_resident = argc == 3 && strcmp(argv[1], "--any-resident") == 0;
    const char *path = argv[argc - 1];
    json_error_t err;
    json_t *doc, *notes;
    bool noted = false;

    if (argc != 2 && !any_resident) {
        fprintf(stderr, "usage: check_host_profile [--any-resident] PROFILE\n");
        return 2;
    }
    doc = json_load_file(path, 0, &err);
    if (!doc) {
        printf("check_host_profile: %s:%d:%d: not JSON: %s\n", path, err.line, err.column, err.text);
        return 1;
    }
    if (!json_is_object(doc))
        bad("the profile", "not a JSON object");
    if (!json_is_string(get(doc, "schema", NULL)) ||
        strcmp(json_string_value(get(doc, "schema", NULL)), "fleetsim-calibration/1") != 0)
        bad("schema", "not \"fleetsim-calibration/1\"");
    if (get(doc, "gpu", NULL))
        bad("gpu", "present in a host-only profile");
    notes = get(doc, "samples", "notes", NULL);
    for (size_t i = 0; i < json_array_size(notes); i++)
        noted = noted || (json_is_string(json_array_get(notes, i)) &&
                          strcmp(json_string_value(json_array_get(notes, i)),
                                 "host-only: storage only, no GPU measured") == 0);
    if (!noted)
        bad("samples.notes", "no \"host-only: storage only, no GPU measured\"");
    if (json_array_size(get(doc, "samples", "series", "storage_write", "seconds", NULL)) != 1)
        bad("samples.series.storage_write", "not one sample");
    static const char *const device_series[] = {"storage_cold_pinned", "storage_warm_pinned", "load_cold_pinned",
                                                "h2d_pinned"};
    for (size_t i = 0; i < sizeof device_series / sizeof *device_series; i++)
        if (get(doc, "samples", "series", device_series[i], NULL))
            bad(device_series[i], "in samples.series: --host-only has no pinned memory and no device");
    check_bandwidth(doc, "storage_cold_pageable");
    check_bandwidth(doc, "storage_warm_pageable");
    check_resident(doc, any_resident);
    json_decref(doc);
    return failures ? 1 : 0;
}

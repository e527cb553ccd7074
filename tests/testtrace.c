/* testtrace — see testtrace.h. */
#include "testtrace.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

void test_trace_set(char **field, const char *value)
{
    free(*field);
    *field = value ? strdup(value) : NULL;
    assert_true(value == NULL || *field != NULL);
}

fs_trace_spec test_trace_requests(const char *path)
{
    fs_trace_spec s = {.kind = FS_TRACE_REQUESTS, .rate_scale = 1, .tolerance_s = 1};
    test_trace_set(&s.path, path);
    test_trace_set(&s.time_col, "t");
    return s;
}

fs_trace_spec test_trace_jobs(const char *path)
{
    fs_trace_spec s = test_trace_requests(path);
    s.kind = FS_TRACE_JOBS;
    test_trace_set(&s.gpus_col, "gpus");
    test_trace_set(&s.duration_col, "dur");
    return s;
}

fs_trace *test_trace_open(const fs_trace_spec *s)
{
    fs_trace *t = NULL;
    fs_error err = {0};
    if (fs_trace_open(s, &t, &err) != FS_OK)
        fail_msg("open %s: %s", s->path, err.msg);
    return t;
}

size_t test_trace_read_all(const fs_trace_spec *s, fs_trace_row *rows, size_t max, uint64_t *skipped)
{
    fs_trace *t = test_trace_open(s);
    fs_trace_row r;
    fs_error err = {0};
    size_t n = 0;
    int rc;
    while ((rc = fs_trace_next(t, &r, &err)) == 1) {
        if (n < max)
            rows[n] = r;
        n++;
    }
    if (rc != 0)
        fail_msg("%s: %s", s->path, err.msg);
    assert_int_equal(fs_trace_rows(t), n);
    assert_int_equal(fs_trace_next(t, &r, &err), 0);     if (skipped)
        *skipped = fs_trace_skipped(t);
    fs_trace_close(t);
    return n;
}

size_t test_trace_read_to_error(const fs_trace_spec *s, int code, ...)
{
    fs_trace *t = test_trace_open(s);
    fs_trace_row r;
    fs_error err = {0};
    size_t n = 0;
    int rc;
    while ((rc = fs_trace_next(t, &r, &err)) == 1)
        n++;
    if (rc != -1)
        fail_msg("%s: no error after %zu rows", s->path, n);
    assert_int_equal(err.code, code);
    va_list ap;
    va_start(ap, code);
    for (const char *want; (want = va_arg(ap, const char *)) != NULL;)
        if (strstr(err.msg, want) == NULL)
            fail_msg("message\n  %s\nlacks\n  %s", err.msg, want);
    va_end(ap);
    fs_trace_close(t);
    return n;
}

void test_trace_open_fails(const fs_trace_spec *s, int code, const char *want)
{
    fs_trace *t = NULL;
    fs_error err = {0};
    assert_int_equal(fs_trace_open(s, &t, &err), code);
    assert_null(t);
    if (strstr(err.msg, want) == NULL)
        fail_msg("message\n  %s\nlacks\n  %s", err.msg, want);
}

void test_trace_near(double got, double want, double tol)
{
    if (!(fabs(got - want) <= tol))
        fail_msg("got %.12g, want %.12g (+-%g)", got, want, tol);
}

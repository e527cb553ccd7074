/*
 * testtrace — what the trace tests share (test_trace.c, test_trace_formats.c):
 * specs with the tests' usual columns, and reads of a whole trace that fail
 * the current cmocka test with the reader's own message.  Test-only.
 */
#ifndef FS_TESTTRACE_H
#define FS_TESTTRACE_H

#include <stddef.h>
#include <stdint.h>

#include "trace.h"

/* *field = a copy of value (NULL stays NULL). */
void test_trace_set(char **field, const char *value);

/* A request spec for path: time column "t" in seconds, no sizes, defaults. */
fs_trace_spec test_trace_requests(const char *path);

/* A job spec for path: columns t, gpus, dur (seconds), defaults. */
fs_trace_spec test_trace_jobs(const char *path);

/* Opens s; fails the test on an error. */
fs_trace *test_trace_open(const fs_trace_spec *s);

/* Reads up to max rows (more are counted, not kept) until the end; fails
 * the test on an error.  The number read; skipped rows in *skipped. */
size_t test_trace_read_all(const fs_trace_spec *s, fs_trace_row *rows, size_t max, uint64_t *skipped);

/* Reads until an error, which must have `code` and contain every one of the
 * NULL-terminated strings; the rows read before it. */
size_t test_trace_read_to_error(const fs_trace_spec *s, int code, ...);

/* fs_trace_open fails with code and a message containing want. */
void test_trace_open_fails(const fs_trace_spec *s, int code, const char *want);

/* Fails the test unless |got - want| <= tol. */
void test_trace_near(double got, double want, double tol);

#endif

/*
 * test_scenario.h — what the scenario tests share (test_scenario.c,
 * test_scenario_errors.c, test_scenario_fleet.c): parsing a document that
 * must be accepted or refused with a given message, the fragments most test
 * documents are built from, and comparisons of parsed figures.  Test-only;
 * the helpers are static inline so that each test file takes what it uses.
 *
 * Documents are written with single quotes for readability; doc() turns them
 * into double quotes before parsing (no test document contains an apostrophe).
 */
#ifndef FS_TEST_SCENARIO_H
#define FS_TEST_SCENARIO_H

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "scenario.h"
#include "testutil.h"

static char docbuf[16384];

/* single_quoted with every ' turned into ", in docbuf (the next call reuses it). */
static inline const char *doc(const char *single_quoted)
{
    size_t n = strlen(single_quoted);
    assert_true(n < sizeof docbuf);
    for (size_t i = 0; i <= n; i++)
        docbuf[i] = single_quoted[i] == '\'' ? '"' : single_quoted[i];
    return docbuf;
}

/* The scenario the single-quoted document describes; fails the test if it is
 * refused. */
static inline fs_scenario *parse_ok(const char *single_quoted)
{
    fs_error err = {0, ""};
    fs_scenario *s = NULL;
    int rc = fs_scenario_parse(doc(single_quoted), "scen.json", &s, &err);
    if (rc != FS_OK)
        fail_msg("refused: %s", err.msg);
    assert_non_null(s);
    return s;
}

/* text (already in JSON quoting, origin "scen.json") refused with code and a
 * message containing want. */
static inline void expect_raw(const char *text, int code, const char *want)
{
    test_parse_refused(text, "scen.json", code, want);
}

/* The single-quoted document refused as bad input with a message containing
 * want. */
static inline void expect_error(const char *single_quoted, const char *want)
{
    expect_raw(doc(single_quoted), FS_ERR_INPUT, want);
}

#define HEAD "{'schema': 'fleetsim/1', 'horizon': '1d', "
#define POOL "'pools': [{'name': 'gpu', 'gpu': 'H100-SXM-80GB', 'gpus': 8}], "
#define ARRIVALS "'arrivals': {'poisson_rps': 10}"
#define STIME "'service_time': {'exponential': {'mean': '50ms'}}"
/* One pool, one service "chat"; X is spliced into the service object. */
#define SERVICE(X) HEAD POOL "'services': [{'name': 'chat', " ARRIVALS ", " STIME X "}]}"
/* The service with its arrivals object given by A. */
#define SERVICE_ARR(A) HEAD POOL "'services': [{'name': 'chat', 'arrivals': " A ", " STIME "}]}"
/* Top-level members T added to the one-service scenario. */
#define TOP(T)                                                                                     \
    "{'schema': 'fleetsim/1', " T ", " POOL "'services': [{'name': 'chat', " ARRIVALS ", " STIME   \
    "}]}"

/* One service "chat" on one pool "p" of H100s; X is spliced into the pool. */
#define POOL_WITH(X)                                                                               \
    HEAD "'pools': [{'name': 'p', 'gpu': 'H100-SXM-80GB', 'gpus': 2" X "}], "                      \
         "'services': [{'name': 'chat', " ARRIVALS ", " STIME "}]}"

/* A profile of 24 hourly multipliers, each x. */
#define H24(x)                                                                                     \
    "[" x "," x "," x "," x "," x "," x "," x "," x "," x "," x "," x "," x "," x "," x "," x      \
    "," x "," x "," x "," x "," x "," x "," x "," x "," x "]"

/* Equal to twelve significant digits. */
static inline void assert_close(double got, double want)
{
    if (!(fabs(got - want) <= 1e-12 * fmax(1.0, fabs(want))))
        fail_msg("got %.17g, want %.17g", got, want);
}

#endif

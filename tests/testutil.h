/*
 * testutil — what the tests share: a scenario from a printf-style JSON
 * string, and a run that fails the current cmocka test with the product's own
 * error message instead of returning an error.  Test-only.
 */
#ifndef FS_TESTUTIL_H
#define FS_TESTUTIL_H

#include "run.h"
#include "scenario.h"

/* Parses the formatted JSON (origin "test"); fails the test on any error. */
fs_scenario *test_scenario(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Runs s; fails the test on any error.  The caller destroys the results. */
fs_results *test_run(const fs_scenario *s);

#endif

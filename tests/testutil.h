/*
 * testutil — what the tests share: a scenario from a printf-style JSON
 * string, and a run that fails the current cmocka test with the product's own
 * error message instead of returning an error; and, for the tests that work
 * on files and run the built binary, a temporary directory, whole-file reads
 * and writes, shell commands and `fleetsim` runs.  Test-only.
 */
#ifndef FS_TESTUTIL_H
#define FS_TESTUTIL_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "run.h"
#include "scenario.h"

/* Parses the formatted JSON (origin "test"); fails the test on any error. */
fs_scenario *test_scenario(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Runs s; fails the test on any error.  The caller destroys the results. */
fs_results *test_run(const fs_scenario *s);

/* Places s's replicas; fails the test on any error.  The caller destroys the
 * placement. */
fs_placement *test_place(const fs_scenario *s);

/* Loads the scenario at path expecting refusal with `code` and a message
 * containing `want`; fails the test otherwise, and if *out was touched. */
void test_load_refused(const char *path, int code, const char *want);

/* The index of the GPU type called name in s->gpu_types; fails the test when
 * the scenario has no such type. */
size_t test_gpu_type_index(const fs_scenario *s, const char *name);

/* Parses json (origin names it in messages) expecting the same refusal as
 * test_load_refused. */
void test_parse_refused(const char *json, const char *origin, int code, const char *want);

/* Fails the test unless sc is the built-in calibration profile
 * (reference/costs.md), source included. */
void test_assert_default_costs(const fs_switch_costs *sc);

/* Makes a fresh directory /tmp/PREFIX-XXXXXX (mkdtemp) and leaves its path in
 * buf; 0, or -1 on failure. */
int test_tmpdir(char *buf, size_t size, const char *prefix);

/* Removes dir and everything under it (rm -rf); 0, or -1 on failure. */
int test_rmdir(const char *dir);

/* The formatted path, in one of a few static buffers that are reused in turn
 * (so a handful may be live at once, e.g. as arguments of one call). */
const char *test_path(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The whole of the file at the formatted path, NUL-terminated (caller frees);
 * NULL if it cannot be opened.  Fails the test on a read error. */
char *test_slurp(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Writes text to path, replacing it; fails the test on any error. */
void test_write(const char *path, const char *text);

/* Asserts that a and b hold the same count in every bucket, whatever
 * counters each happens to have allocated (hist.h allocates lazily). */
void test_assert_same_counts(const fs_hist *a, const fs_hist *b);

/* Whether the file at the formatted path exists. */
bool test_exists(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Whether the file at the formatted path exists and is not empty. */
bool test_nonempty(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Fails the test unless DIR/err.txt (test_fleetsim's stderr) contains want. */
void test_stderr_has(const char *dir, const char *want);

/* Runs the formatted command with system(); returns its exit status, and
 * fails the test if it did not exit normally. */
int test_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Runs `FS_BINARY ARGS` from FS_SOURCE_DIR, stdout to DIR/out.txt and stderr
 * to DIR/err.txt; returns the exit status (fails the test if it did not exit
 * normally). */
int test_fleetsim(const char *dir, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Runs fleetsim as test_fleetsim does and returns its stdout parsed as JSON
 * (the caller decrefs it); fails the test, quoting stderr, when it exits
 * non-zero or its stdout is not JSON. */
json_t *test_fleetsim_json(const char *dir, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The member at "a.b.c" (nested keys), or NULL; its number or string,
 * failing the test when it is not one. */
const json_t *test_json_at(const json_t *obj, const char *path);
double test_json_num(const json_t *obj, const char *path);
const char *test_json_str(const json_t *obj, const char *path);

#endif

/*
 * test_trace_formats — the trace reader's formats and sources (trace.h):
 * JSON Lines gives exactly the rows of the equivalent CSV (request and job
 * columns, prefixes, filters), its errors (a malformed line at
 * FILE:LINE:COLUMN, a nested value, a missing column at open, a line over
 * the cap); a .gz gives the plain file's rows, a corrupt or truncated one
 * is an input error, and repeat restarts it; services split from one trace
 * by a filter keep the trace's own clock, repeats included.  Each test
 * writes its own files; without a gzip program the .gz cases are skipped
 * with a message.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "testtrace.h"
#include "testutil.h"
#include "trace.h"

static char tmp[256];

static int setup(void **state)
{
    (void)state;
    return test_tmpdir(tmp, sizeof tmp, "test_trace_formats");
}

static int teardown(void **state)
{
    (void)state;
    return test_rmdir(tmp);
}

/* Writes text to the temporary file `name`; its path (a copy, owned). */
static char *file(const char *name, const char *text)
{
    const char *path = test_path("%s/%s", tmp, name);
    test_write(path, text);
    char *copy = strdup(path);
    assert_non_null(copy);
    return copy;
}

/* Whether a gzip program runs; if not, says so (the caller skips). */
static bool have_gzip(void)
{
    if (system("gzip --version >/dev/null 2>&1") == 0)
        return true;
    print_message("  no gzip program on the PATH: the .gz cases are skipped\n");
    return false;
}

/* PATH.gz, compressed from PATH (kept); its path (owned). */
static char *gzip(const char *path)
{
    assert_int_equal(test_sh("gzip -k -f -- '%s'", path), 0);
    char *gz = malloc(strlen(path) + 4);
    assert_non_null(gz);
    sprintf(gz, "%s.gz", path);
    return gz;
}

enum { MAXROWS = 64 };

/* Every field of two rows equal (tenants as text); lines differ by `dline`
 * (a CSV's header is its line 1, a JSON Lines file has none). */
static void assert_same_rows(const fs_trace_row *a, const fs_trace_row *b, size_t n, int dline)
{
    for (size_t i = 0; i < n; i++) {
        if (a[i].t != b[i].t || a[i].size[0] != b[i].size[0] || a[i].size[1] != b[i].size[1] ||
            a[i].prefix_key != b[i].prefix_key || a[i].prefix_tokens != b[i].prefix_tokens ||
            a[i].gpus != b[i].gpus || a[i].duration_s != b[i].duration_s || a[i].priority != b[i].priority ||
            (int64_t)a[i].line != (int64_t)b[i].line + dline)
            fail_msg("row %zu differs: t %.17g/%.17g, line %llu/%llu", i, a[i].t, b[i].t,
                     (unsigned long long)a[i].line, (unsigned long long)b[i].line);
    }
}

/* Reads every row of s (at most MAXROWS), tenants copied into tenants[]. */
static size_t read_rows(const fs_trace_spec *s, fs_trace_row *rows, char tenants[][16])
{
    fs_trace *t = test_trace_open(s);
    fs_error err = {0};
    size_t n = 0;
    int rc;
    while (n < MAXROWS && (rc = fs_trace_next(t, &rows[n], &err)) == 1) {
        snprintf(tenants[n], 16, "%s", rows[n].tenant ? rows[n].tenant : "(none)");
        n++;
    }
    if (rc < 0)
        fail_msg("%s: %s", s->path, err.msg);
    fs_trace_close(t);
    return n;
}

/* Reads s again from path in format: the same n rows as want (lines
 * `dline` apart), tenants too. */
static void assert_reads_as(fs_trace_spec *s, const char *path, fs_trace_format format, const fs_trace_row *want,
                            char want_tenants[][16], size_t n, int dline)
{
    fs_trace_row got[MAXROWS];
    char tenants[MAXROWS][16];
    test_trace_set(&s->path, path);
    s->format = format;
    assert_int_equal(read_rows(s, got, tenants), n);
    assert_same_rows(want, got, n, dline);
    for (size_t i = 0; i < n; i++)
        assert_string_equal(want_tenants[i], tenants[i]);
}

/* s's one filter: column col holds value (replacing any filter before). */
static void set_where(fs_trace_spec *s, const char *col, const char *value)
{
    if (s->where == NULL) {
        s->where = calloc(1, sizeof *s->where);
        assert_non_null(s->where);
        s->n_where = 1;
        s->where[0].values = calloc(1, sizeof(char *));
        assert_non_null(s->where[0].values);
        s->where[0].n_values = 1;
    }
    test_trace_set(&s->where[0].col, col);
    test_trace_set(&s->where[0].values[0], value);
}

/* ---- JSON Lines ------------------------------------------------------------ */

/* A request trace with sizes and prefixes, CSV and JSON Lines: strings and
 * numbers, spaces trimmed, null and a missing key as an empty field, keys
 * in another order and extra keys (nested too) in columns not named. */
static void test_jsonl_requests_equal_csv(void **state)
{
    (void)state;
    char *csv = file("req.csv", "t,prompt,out,pfx,ptok\n"
                                "10.25,100,7,sys,32\n"
                                "10.5,200,8,,\n"
                                "11,300,9, sys ,32\n"
                                "12.125,1e2,0.5,user,4294967296\n");
    char *jsonl = file("req.jsonl", "\r\n" /* a blank line first: the CSV's header line */
                                    "{\"t\": 10.25, \"prompt\": 100, \"out\": \"7\", \"pfx\": \"sys\", \"ptok\": 32}\n"
                                    "{\"ptok\": null, \"out\": 8, \"t\": \"10.5\", \"prompt\": 200, \"x\": {\"a\": [1]}}\n"
                                    "{\"t\": 11, \"prompt\": 300.0, \"out\": 9, \"pfx\": \" sys \", \"ptok\": 32}\r\n"
                                    "{\"t\": 12.125, \"prompt\": 1e2, \"out\": 0.5, \"pfx\": \"user\", \"ptok\": "
                                    "4294967296}");
    fs_trace_row a[MAXROWS];
    char ta[MAXROWS][16];
    fs_trace_spec s = test_trace_requests(csv);
    test_trace_set(&s.size_cols[0], "prompt");
    test_trace_set(&s.size_cols[1], "out");
    test_trace_set(&s.prefix_col, "pfx");
    test_trace_set(&s.prefix_tokens_col, "ptok");
    assert_int_equal(read_rows(&s, a, ta), 4);
    assert_true(a[0].t == 0 && a[3].t == 1.875 && a[3].size[1] == 0.5);
    assert_true(a[0].prefix_key == 1 && a[1].prefix_key == 0 && a[2].prefix_key == 1 && a[3].prefix_key == 2);
    assert_true(a[3].prefix_tokens == UINT32_MAX);
    assert_reads_as(&s, jsonl, FS_TRACE_FORMAT_AUTO, a, ta, 4, 0); /* lines too: the blank line counted */

    /* The spec's format over the name, and .ndjson by name. */
    char *text = test_slurp("%s", jsonl);
    char *txt = file("req.txt", text), *nd = file("req.ndjson", text);
    free(text);
    assert_reads_as(&s, txt, FS_TRACE_FORMAT_JSONL, a, ta, 4, 0);
    assert_reads_as(&s, nd, FS_TRACE_FORMAT_AUTO, a, ta, 4, 0);
    fs_trace_spec_fini(&s);
    free(csv), free(jsonl), free(txt), free(nd);
}

/* A job trace, durations or end times, text and numeric priorities,
 * tenants; a filter on a number. */
static void test_jsonl_jobs_equal_csv(void **state)
{
    (void)state;
    char *csv = file("jobs.csv", "t,gpus,dur,end,qos,user,class\n"
                                 "0,2,3600,3600,LS,alice,1\n"
                                 "60,0.5,30,90,BE,bob,2\n"
                                 "120,8,7200,7320,LS,,1\n"
                                 "180,1,0,180,7,carol,1\n");
    char *jsonl = file("jobs.jsonl", "{\"t\": 0, \"gpus\": 2, \"dur\": 3600, \"end\": 3600, \"qos\": \"LS\", \"user\": "
                                     "\"alice\", \"class\": 1}\n"
                                     "{\"t\": 60, \"gpus\": 0.5, \"dur\": 30, \"end\": 90, \"qos\": \"BE\", \"user\": "
                                     "\"bob\", \"class\": 2}\n"
                                     "{\"t\": 120, \"gpus\": 8, \"dur\": 7200, \"end\": 7320, \"qos\": \"LS\", \"class\": 1}\n"
                                     "{\"t\": 180, \"gpus\": 1, \"dur\": 0, \"end\": 180, \"qos\": 7, \"user\": \"carol\","
                                     " \"class\": 1.0}\n");
    fs_trace_row a[MAXROWS];
    char ta[MAXROWS][16];
    for (int ends = 0; ends < 2; ends++) {
        fs_trace_spec s = test_trace_jobs(csv);
        if (ends) {
            test_trace_set(&s.duration_col, NULL);
            test_trace_set(&s.end_col, "end");
        }
        test_trace_set(&s.priority_col, "qos");
        test_trace_set(&s.tenant_col, "user");
        s.lenient = true;
        assert_int_equal(read_rows(&s, a, ta), 4);
        assert_true(a[1].gpus == 1 && a[1].priority == 1 && a[3].priority == 7 && a[2].duration_s == 7200);
        assert_reads_as(&s, jsonl, FS_TRACE_FORMAT_AUTO, a, ta, 4, 1);
        /* class 1 and 1.0 are the text "1" either way. */
        set_where(&s, "class", "1");
        test_trace_set(&s.path, csv);
        assert_int_equal(read_rows(&s, a, ta), 3);
        assert_reads_as(&s, jsonl, FS_TRACE_FORMAT_AUTO, a, ta, 3, 1);
        fs_trace_spec_fini(&s);
    }
    free(csv), free(jsonl);
}

static void test_jsonl_errors(void **state)
{
    (void)state;
    /* A malformed line after good ones: they come first, then FILE:LINE:COLUMN. */
    char *bad = file("bad.jsonl", "{\"t\": 1}\n\n{\"t\": 2,}\n{\"t\": 3}\n");
    fs_trace_spec s = test_trace_requests(bad);
    s.lenient = true; /* a broken line is no bad row: lenient does not skip it */
    const char *want = test_path("%s:3:9: ", bad);
    assert_int_equal(test_trace_read_to_error(&s, FS_ERR_INPUT, want, NULL), 1);
    s.lenient = false;

    /* Not an object. */
    test_trace_set(&s.path, test_path("%s/array.jsonl", tmp));
    test_write(s.path, "{\"t\": 1}\n  [1, 2]\n");
    assert_int_equal(test_trace_read_to_error(&s, FS_ERR_INPUT,
                                              "array.jsonl:2:3: expected a JSON object (one a line), got an array", NULL),
                     1);
    /* The first line broken: refused at open. */
    test_trace_set(&s.path, test_path("%s/first.jsonl", tmp));
    test_write(s.path, "{\"t\": 1\n");
    test_trace_open_fails(&s, FS_ERR_INPUT, "first.jsonl:1:");

    /* A nested value in a named column: a bad row naming the key; lenient skips it. */
    test_trace_set(&s.path, test_path("%s/nested.jsonl", tmp));
    test_write(s.path, "{\"t\": 1, \"p\": 3}\n{\"t\": 2, \"p\": {\"deep\": [1, 2]}}\n{\"t\": 3, \"p\": 4}\n");
    test_trace_set(&s.size_cols[0], "p");
    assert_int_equal(test_trace_read_to_error(&s, FS_ERR_INPUT, "nested.jsonl:2: p holds a JSON object or array",
                                              "{\"deep\":[1,2]}", NULL),
                     1);
    s.lenient = true;
    uint64_t skipped = 0;
    fs_trace_row rows[4];
    assert_int_equal(test_trace_read_all(&s, rows, 4, &skipped), 2);
    assert_int_equal(skipped, 1);
    s.lenient = false;

    /* Null or a missing key: an empty field, a bad row for a number. */
    test_trace_set(&s.path, test_path("%s/missing.jsonl", tmp));
    test_write(s.path, "{\"t\": 1, \"p\": 3}\n{\"t\": 2, \"p\": null}\n");
    test_trace_read_to_error(&s, FS_ERR_INPUT, "missing.jsonl:2: p is not a number >= 0, got \"\"", NULL);
    test_write(s.path, "{\"t\": 1, \"p\": 3}\n{\"p\": 5}\n");
    test_trace_read_to_error(&s, FS_ERR_INPUT, "missing.jsonl:2: t is not a number of seconds, got \"\"", NULL);

    /* A named column missing from the first object, at open, naming its keys. */
    test_write(s.path, "{\"t\": 1, \"q\": 3, \"r\": \"x\"}\n");
    test_trace_open_fails(&s, FS_ERR_INPUT, "missing.jsonl: no column \"p\" (columns: t, q, r)");
    /* Duplicate keys, as a CSV header naming a column twice. */
    test_write(s.path, "{\"t\": 1, \"p\": 3, \"t\": 2}\n");
    test_trace_open_fails(&s, FS_ERR_INPUT, "missing.jsonl:1:");

    /* A line over 1 MiB, named by its line. */
    const char *path = test_path("%s/long.jsonl", tmp);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("{\"t\": 1, \"p\": 1}\n{\"t\": 2, \"p\": 1, \"pad\": \"", f);
    for (int i = 0; i < 1100 * 1024; i++)
        fputc('x', f);
    fputs("\"}\n", f);
    assert_int_equal(fclose(f), 0);
    test_trace_set(&s.path, path);
    assert_int_equal(test_trace_read_to_error(&s, FS_ERR_INPUT, "long.jsonl:2: a line longer than 1024 KiB", NULL), 1);
    fs_trace_spec_fini(&s);
    free(bad);
}

/* ---- gzip ------------------------------------------------------------------ */

static void test_gzip(void **state)
{
    (void)state;
    if (!have_gzip())
        skip();
    /* Enough rows for many chunks of decompressed data, and digits that
     * do not compress away: the .gz is over 1 MB, more than gzip reads
     * ahead (256 KiB) before the pipe fills. */
    const char *path = test_path("%s/big.csv", tmp);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("t,p\n", f);
    enum { N = 200000 };
    for (uint32_t i = 0; i < N; i++)
        fprintf(f, "%u.%03u,%u\n", i / 7, i % 7 * 100, (i * 2654435761u) % 1000003);
    assert_int_equal(fclose(f), 0);
    char *csv = strdup(path), *gz = gzip(csv);
    fs_trace_spec s = test_trace_requests(csv);
    test_trace_set(&s.size_cols[0], "p");
    fs_trace_row *a = calloc(N, sizeof *a), *b = calloc(N, sizeof *b);
    assert_true(a && b);
    s.tolerance_s = 1;
    assert_int_equal(test_trace_read_all(&s, a, N, NULL), N);
    test_trace_set(&s.path, gz);
    assert_int_equal(test_trace_read_all(&s, b, N, NULL), N);
    assert_same_rows(a, b, N, 0);

    /* JSON Lines compressed: .jsonl.gz is JSON Lines by its name. */
    char *jl = file("small.jsonl", "{\"t\": 5, \"p\": 1}\n{\"t\": 6, \"p\": 2}\n{\"t\": 8, \"p\": 3}");
    char *jlgz = gzip(jl);
    test_trace_set(&s.path, jlgz);
    assert_int_equal(test_trace_read_all(&s, b, N, NULL), 3);
    assert_true(b[2].t == 3 && b[2].size[0] == 3 && b[2].line == 3);

    /* Repeat restarts the child: three passes of span 3 s and mean gap 1.5 s. */
    s.repeat = true;
    fs_trace *t = test_trace_open(&s);
    fs_error err = {0};
    for (int pass = 0; pass < 3; pass++) {
        static const double offs[3] = {0, 1, 3};
        for (int i = 0; i < 3; i++) {
            assert_int_equal(fs_trace_next(t, &b[0], &err), 1);
            test_trace_near(b[0].t, pass * 4.5 + offs[i], 1e-12);
        }
    }
    fs_trace_close(t);
    s.repeat = false;

    /* Closed long before its end: the child is stopped and reaped. */
    test_trace_set(&s.path, gz);
    t = test_trace_open(&s);
    assert_int_equal(fs_trace_next(t, &b[0], &err), 1);
    fs_trace_close(t);

    /* Corrupt (bytes changed in the middle) and truncated: input errors
     * naming the file, at open, before any row. */
    f = fopen(gz, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fclose(f);
    assert_true(size > 1000 * 1000);
    assert_int_equal(test_sh("cp '%s' '%s/cut.csv.gz' && truncate -s %ld '%s/cut.csv.gz'", gz, tmp, size / 2, tmp), 0);
    test_trace_set(&s.path, test_path("%s/cut.csv.gz", tmp));
    test_trace_open_fails(&s, FS_ERR_INPUT, "cut.csv.gz: not a valid gzip file, or cut short (gzip exited 1)");
    assert_int_equal(test_sh("cp '%s' '%s/bad.csv.gz' && printf 'garbage!' | dd of='%s/bad.csv.gz' bs=1 seek=%ld "
                             "conv=notrunc 2>/dev/null",
                             gz, tmp, tmp, size / 3),
                     0);
    test_trace_set(&s.path, test_path("%s/bad.csv.gz", tmp));
    test_trace_open_fails(&s, FS_ERR_INPUT, "bad.csv.gz: not a valid gzip file");
    /* Cut short while it is read (after the test at open): the streaming
     * child's exit ends the reading with the same error, short of the end. */
    assert_int_equal(test_sh("cp '%s' '%s/shrinks.csv.gz'", gz, tmp), 0);
    test_trace_set(&s.path, test_path("%s/shrinks.csv.gz", tmp));
    t = test_trace_open(&s);
    assert_int_equal(test_sh("truncate -s %ld '%s'", size / 2, s.path), 0);
    size_t got = 0;
    int rc;
    while ((rc = fs_trace_next(t, &b[0], &err)) == 1)
        got++;
    assert_int_equal(rc, -1);
    assert_int_equal(err.code, FS_ERR_INPUT);
    if (!strstr(err.msg, "shrinks.csv.gz: not a valid gzip file"))
        fail_msg("message: %s", err.msg);
    assert_true(got > 0 && got < N);
    fs_trace_close(t);
    /* Not gzip at all, and no file. */
    char *plain = file("plain.csv.gz", "t\n1\n2\n");
    test_trace_set(&s.path, plain);
    free(plain);
    test_trace_open_fails(&s, FS_ERR_INPUT, "plain.csv.gz: not a valid gzip file");
    test_trace_set(&s.path, test_path("%s/absent.csv.gz", tmp));
    test_trace_open_fails(&s, FS_ERR_INPUT, "absent.csv.gz: cannot open: No such file");
    fs_trace_spec_fini(&s);
    free(a), free(b), free(csv), free(gz), free(jl), free(jlgz);
}

/* ---- one clock for a trace split by filters -------------------------------- */

/* The trace's rows of class A and of class B, each read through a filter,
 * have the times the whole trace gives them (the origin is the file's first
 * row, a B row dropped from A's service), on every pass of a repeat. */
static void test_split_clock(void **state)
{
    (void)state;
    char *path = file("split.csv", "t,class\n"
                                   "oops,A\n" /* no time: not the origin */
                                   "100,B\n"
                                   "101.5,A\n"
                                   "102,A\n"
                                   "104,B\n"
                                   "107,A\n"
                                   "107.5,B\n");
    fs_trace_spec s = test_trace_requests(path);
    s.lenient = true;
    s.repeat = true;
    s.rate_scale = 2;
    s.shift_s = 10;
    enum { PASSES = 3, ROWS = 6 };
    fs_trace_row all[PASSES * ROWS];
    fs_trace *t = test_trace_open(&s);
    fs_error err = {0};
    for (int i = 0; i < PASSES * ROWS; i++)
        assert_int_equal(fs_trace_next(t, &all[i], &err), 1);
    fs_trace_close(t);
    assert_true(all[0].t == 10 && all[1].t == 10.75 && all[ROWS].t == 10 + 3.75 + 0.75); /* span 3.75, gap 0.75 */
    static const char *const classes[] = {"A", "B"};
    for (int c = 0; c < 2; c++) {
        set_where(&s, "class", classes[c]);
        t = test_trace_open(&s);
        size_t kept = 0;
        fs_trace_row r;
        for (int i = 0; i < PASSES * ROWS; i++) {
            /* Line 3 (100,B), 4 A, 5 A, 6 B, 7 A, 8 B. */
            uint64_t line = all[i].line;
            bool is_a = line == 4 || line == 5 || line == 7;
            if (is_a != (c == 0))
                continue;
            assert_int_equal(fs_trace_next(t, &r, &err), 1);
            assert_int_equal(r.line, line);
            if (r.t != all[i].t)
                fail_msg("class %s, line %llu: t %.17g, the whole trace's %.17g", classes[c],
                         (unsigned long long)line, r.t, all[i].t);
            kept++;
        }
        assert_int_equal(kept, PASSES * 3);
        fs_trace_close(t);
    }
    fs_trace_spec_fini(&s);
    free(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_jsonl_requests_equal_csv),
        cmocka_unit_test(test_jsonl_jobs_equal_csv),
        cmocka_unit_test(test_jsonl_errors),
        cmocka_unit_test(test_gzip),
        cmocka_unit_test(test_split_clock),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

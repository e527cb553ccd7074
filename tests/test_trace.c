/*
 * test_trace — the CSV trace reader of trace.h: memory that does not grow
 * with the file, the presets on extracts of the shipped traces (and on the
 * whole traces where ../shared/data has them), CSV details (quotes, CRLF,
 * no final newline, empty files), every kind of bad row strictly and
 * leniently, out-of-order rows, rate scale, shift, repeat, and time formats;
 * a JSON Lines file read as CSV named as such (test_trace_formats.c reads
 * JSON Lines and gzip).
 * Expected values come from the CSV text itself (tests/data/traces).
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <cmocka.h>

#include "intern.h"
#include "testtrace.h"
#include "testutil.h"
#include "trace.h"

#define EXTRACTS FS_SOURCE_DIR "/tests/data/traces"
#define SHARED FS_SOURCE_DIR "/../shared/data"

static char tmp[256];

static int setup(void **state)
{
    (void)state;
    return test_tmpdir(tmp, sizeof tmp, "test_trace");
}

static int teardown(void **state)
{
    (void)state;
    return test_rmdir(tmp);
}

/* ---- helpers --------------------------------------------------------------- */

/* The preset's spec for path. */
static fs_trace_spec spec_preset(const char *name, const char *path)
{
    fs_trace_spec s;
    fs_error err = {0};
    if (fs_trace_preset(name, path, &s, &err) != FS_OK)
        fail_msg("preset %s: %s", name, err.msg);
    return s;
}

/* Writes text to the temporary file `name`; its path. */
static const char *file(const char *name, const char *text)
{
    const char *path = test_path("%s/%s", tmp, name);
    test_write(path, text);
    return path;
}

/* Opens the temporary file `name` for writing; its path in *path (a
 * test_path buffer: copy it before a handful more test_path calls). */
static FILE *create(const char *name, const char **path)
{
    *path = test_path("%s/%s", tmp, name);
    FILE *f = fopen(*path, "w");
    assert_non_null(f);
    return f;
}

/* Whether the shared file exists; if not, says so and skips the test. */
static void need(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        print_message("  %s is absent: skipped\n", path);
        skip();
    }
    fclose(f);
}

static long peak_rss_kib(void)
{
    struct rusage ru;
    assert_int_equal(getrusage(RUSAGE_SELF, &ru), 0);
    return ru.ru_maxrss;
}

/* ---- memory does not grow with the file ----------------------------------- */

/* First in the list, so that no earlier test has raised the peak RSS
 * (getrusage's only measure) above what this one reaches: reading a 2
 * million-row file (~40 MB) may raise it by no more than 8 MB. */
static void test_memory_independent_of_length(void **state)
{
    (void)state;
    enum { ROWS = 2000000 };
    const char *path;
    FILE *f = create("big.csv", &path);
    fputs("t,prompt,output\n", f);
    for (long i = 0; i < ROWS; i++)
        fprintf(f, "%ld.%03ld,%ld,%ld\n", i / 1000, i % 1000, 100 + i % 977, 1 + i % 313);
    assert_int_equal(fclose(f), 0);

    fs_trace_spec s = test_trace_requests(path);
    test_trace_set(&s.size_cols[0], "prompt");
    test_trace_set(&s.size_cols[1], "output");
    long before = peak_rss_kib();
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    fs_trace *t = test_trace_open(&s);
    fs_trace_row r;
    fs_error err = {0};
    long n = 0;
    double sum = 0;
    while (fs_trace_next(t, &r, &err) == 1) {
        sum += r.size[0];
        n++;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    assert_int_equal(n, ROWS);
    test_trace_near(r.t, (ROWS - 1) / 1000.0, 1e-6);
    assert_int_equal(r.line, ROWS + 1);
    fs_trace_close(t);
    long growth = peak_rss_kib() - before;
    double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    print_message("  %d rows in %.3f s (%.2f M rows/s); peak RSS growth %ld KiB\n", ROWS, secs,
                  ROWS / secs / 1e6, growth);
    assert_true(sum > 0);
    assert_true(growth < 8 * 1024);
    fs_trace_spec_fini(&s);
    remove(path);
}

/* ---- presets --------------------------------------------------------------- */

static void test_presets(void **state)
{
    (void)state;
    size_t n = 0;
    for (; fs_trace_preset_names[n]; n++) {
        fs_trace_spec s = spec_preset(fs_trace_preset_names[n], "x.csv");
        assert_string_equal(s.path, "x.csv");
        assert_non_null(s.time_col);
        assert_true(s.rate_scale == 1 && s.shift_s == 0 && s.tolerance_s == 1 && !s.repeat && !s.lenient);
        fs_trace_spec_fini(&s);
        assert_null(s.path);
    }
    assert_int_equal(n, 3);
    fs_trace_spec s;
    fs_error err = {0};
    assert_int_equal(fs_trace_preset("google", "x.csv", &s, &err), FS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "unknown trace preset \"google\" (known: azure-llm, philly-jobs, alibaba-pods)"));
    fs_trace_spec_fini(NULL);
}

/* ---- the extracts ---------------------------------------------------------- */

/* The two Azure extracts: first and second time, last time and token sums,
 * as the CSV text has them (TIMESTAMP differences worked out by hand). */
static void test_extract_azure(void **state)
{
    (void)state;
    static const struct {
        const char *file;
        double t1, last, context, generated;
    } cases[] = {
        {"azure-llm-code-200.csv", 0.052, 199.089585, 414215, 4907},
        {"azure-llm-conv-200.csv", 4.314579, 61.263537, 180695, 47050},
    };
    for (size_t c = 0; c < 2; c++) {
        fs_trace_spec s = spec_preset("azure-llm", test_path("%s/%s", EXTRACTS, cases[c].file));
        fs_trace_row rows[200];
        uint64_t skipped = 1;
        assert_int_equal(test_trace_read_all(&s, rows, 200, &skipped), 200);
        assert_int_equal(skipped, 0);
        double context = 0, generated = 0;
        for (size_t i = 0; i < 200; i++) {
            context += rows[i].size[0];
            generated += rows[i].size[1];
            assert_int_equal(rows[i].line, i + 2);
            if (i > 0)
                assert_true(rows[i].t >= rows[i - 1].t);
        }
        assert_true(rows[0].t == 0);
        /* 100 ns digits survive the rebase from an epoch of 1.7e9 s. */
        test_trace_near(rows[1].t, cases[c].t1, 1e-9);
        test_trace_near(rows[199].t, cases[c].last, 1e-9);
        assert_true(context == cases[c].context && generated == cases[c].generated);
        fs_trace_spec_fini(&s);
    }
    fs_trace_spec s = spec_preset("azure-llm", EXTRACTS "/azure-llm-code-200.csv");
    fs_trace_row r[1];
    test_trace_read_all(&s, r, 1, NULL);
    assert_true(r[0].size[0] == 4808 && r[0].size[1] == 10 && r[0].tenant == NULL);
    fs_trace_spec_fini(&s);
}

static void test_extract_alibaba(void **state)
{
    (void)state;
    fs_trace_spec s = spec_preset("alibaba-pods", EXTRACTS "/alibaba-openb-default-100.csv");
    fs_trace_row rows[100];
    uint64_t skipped = 1;
    assert_int_equal(test_trace_read_all(&s, rows, 100, &skipped), 100);
    assert_int_equal(skipped, 0);
    assert_true(rows[0].t == 0 && rows[1].t == 427061 && rows[2].t == 1558381 && rows[99].t == 10020698);
    assert_true(rows[0].duration_s == 12537496); /* deletion_time - creation_time */
    double gpus = 0, duration = 0, priority = 0;
    for (size_t i = 0; i < 100; i++) {
        gpus += rows[i].gpus;
        duration += rows[i].duration_s;
        priority += rows[i].priority;
        assert_true(rows[i].gpus >= 1);
    }
    /* 94 pods of 1 to 8 GPUs (101 in all) and 6 CPU-only pods read as 1 GPU each. */
    assert_true(gpus == 107);
    assert_true(duration == 154959416);
    /* qos ranks by first appearance: LS 0, Burstable 1, BE 2. */
    assert_true(rows[0].priority == 0);
    assert_true(priority == 97);
    fs_trace_spec_fini(&s);
}

/* The Philly job list is not sorted by submit_time: the preset stops at line
 * 3 (832 after 8555) saying so; leniently 92 of its 100 rows are refused;
 * with an unbounded tolerance all are replayed, clamped. */
static void test_extract_philly(void **state)
{
    (void)state;
    fs_trace_spec s = spec_preset("philly-jobs", EXTRACTS "/philly-mix1-100.csv");
    assert_int_equal(test_trace_read_to_error(&s, FS_ERR_INPUT, "philly-mix1-100.csv:3: submit_time goes back 7723 s",
                                   "sort the file by time", "got \"832\"", NULL),
                     1);

    s.lenient = true;
    fs_trace_row rows[100];
    uint64_t skipped = 0;
    assert_int_equal(test_trace_read_all(&s, rows, 100, &skipped), 8);
    assert_int_equal(skipped, 92);
    assert_true(rows[7].t == 11340);

    s.lenient = false;
    s.tolerance_s = INFINITY;
    assert_int_equal(test_trace_read_all(&s, rows, 100, &skipped), 100);
    assert_int_equal(skipped, 0);
    double gpus = 0, duration = 0;
    for (size_t i = 0; i < 100; i++) {
        gpus += rows[i].gpus;
        duration += rows[i].duration_s;
    }
    assert_true(gpus == 144 && duration == 28312);
    assert_true(rows[0].t == 0 && rows[1].t == 0 && rows[99].t == 11340); /* clamped: the latest so far */
    assert_true(rows[0].gpus == 1 && rows[0].duration_s == 747);

    fs_trace *t = test_trace_open(&s);
    fs_trace_row r;
    fs_error err;
    assert_int_equal(fs_trace_next(t, &r, &err), 1);
    assert_string_equal(r.tenant, "vc_6214e9");
    assert_int_equal(fs_trace_next(t, &r, &err), 1);
    assert_string_equal(r.tenant, "vc_ed69ec");
    fs_trace_close(t);
    fs_trace_spec_fini(&s);
}

/* ---- the whole shared traces (skipped where ../shared/data is absent) ----- */

static void test_shared_traces(void **state)
{
    (void)state;
    static const struct {
        const char *preset, *file;
        size_t rows;
        double tolerance, last; /* the last row's time */
    } cases[] = {
        {"azure-llm", SHARED "/azure-llm-2023/AzureLLMInferenceTrace_conv.csv", 19366, 1, 3501.721937},
        {"azure-llm", SHARED "/azure-llm-2023/AzureLLMInferenceTrace_code.csv", 8819, 1, 3435.948056},
        {"philly-jobs", SHARED "/philly-derived/chronus_trace_job_Philly_MIX1.csv", 30940, INFINITY, 11596},
        {"alibaba-pods", SHARED "/alibaba-gpu-v2023-openb/openb_pod_list_default.csv", 8152, 1, 12901761},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        need(cases[c].file);
        fs_trace_spec s = spec_preset(cases[c].preset, cases[c].file);
        s.tolerance_s = cases[c].tolerance;
        fs_trace *t = test_trace_open(&s);
        fs_trace_row r, last = {0};
        fs_error err = {0};
        size_t n = 0;
        int rc;
        while ((rc = fs_trace_next(t, &r, &err)) == 1)
            last = r, n++;
        if (rc != 0)
            fail_msg("%s: %s", cases[c].file, err.msg);
        uint64_t skipped = fs_trace_skipped(t);
        fs_trace_close(t);
        print_message("  %s: %zu rows, %llu skipped, last at %.7f s\n", cases[c].file, n,
                      (unsigned long long)skipped, last.t);
        assert_int_equal(n, cases[c].rows);
        assert_int_equal(skipped, 0);
        assert_int_equal(last.line, cases[c].rows + 1);
        test_trace_near(last.t, cases[c].last, 1e-9);
        fs_trace_spec_fini(&s);
    }
}

/* ---- CSV details ----------------------------------------------------------- */

/* Quoted fields (a comma, a doubled quote, a newline inside), CRLF, spaces
 * around fields, a blank line, a byte-order mark, and a last row without a
 * newline; line numbers count the lines a quoted field spans. */
static void test_csv_details(void **state)
{
    (void)state;
    const char *path = file("quoted.csv", "\xEF\xBB\xBF"
                                          "t, gpus ,dur,\"who\"\r\n"
                                          "1,2,10,\"smith, j\"\r\n"
                                          "\r\n"
                                          "\" 2 \",\"1\",5,\"say \"\"hi\"\"\nand go\"\r\n"
                                          "  3  ,  4  ,  7  ,  plain  \r\n"
                                          "4,1,1,last");
    fs_trace_spec s = test_trace_jobs(path);
    test_trace_set(&s.tenant_col, "who");
    fs_trace *t = test_trace_open(&s);
    fs_trace_row r;
    fs_error err;
    static const struct {
        double t;
        uint32_t gpus;
        double dur;
        const char *who;
        uint64_t line;
    } want[] = {
        {0, 2, 10, "smith, j", 2}, {1, 1, 5, "say \"hi\"\nand go", 4}, {2, 4, 7, "plain", 6}, {3, 1, 1, "last", 7},
    };
    for (size_t i = 0; i < 4; i++) {
        assert_int_equal(fs_trace_next(t, &r, &err), 1);
        assert_true(r.t == want[i].t && r.gpus == want[i].gpus && r.duration_s == want[i].dur);
        assert_string_equal(r.tenant, want[i].who);
        assert_int_equal(r.line, want[i].line);
    }
    assert_int_equal(fs_trace_next(t, &r, &err), 0);
    fs_trace_close(t);
    fs_trace_spec_fini(&s);
}

/* An empty file, a header alone, and blank lines alone have no rows, with
 * or without repeat. */
/* An empty or header-only file replays no traffic: refused at its end,
 * naming the file; leniently it is simply no rows, even with repeat. */
static void test_empty(void **state)
{
    (void)state;
    const char *texts[] = {"", "t,x\n", "t,x", "t\r\n\r\n\r\n"};
    for (size_t i = 0; i < 4; i++) {
        for (int repeat = 0; repeat < 2; repeat++) {
            fs_trace_spec s = test_trace_requests(file("empty.csv", texts[i]));
            s.repeat = repeat;
            fs_trace *t = test_trace_open(&s);
            fs_trace_row r;
            fs_error err = {0};
            assert_int_equal(fs_trace_next(t, &r, &err), -1);
            assert_int_equal(err.code, FS_ERR_INPUT);
            assert_non_null(strstr(err.msg, test_path("%s/empty.csv: no data rows", tmp)));
            fs_trace_close(t);
            s.lenient = true;
            assert_int_equal(test_trace_read_all(&s, NULL, 0, NULL), 0);
            fs_trace_spec_fini(&s);
        }
    }
    /* Rows all bad, leniently, are no rows either, even with repeat. */
    fs_trace_spec s = test_trace_requests(file("bad.csv", "t\nx\ny\n"));
    s.repeat = s.lenient = true;
    uint64_t skipped;
    assert_int_equal(test_trace_read_all(&s, NULL, 0, &skipped), 0);
    assert_int_equal(skipped, 2);
    fs_trace_spec_fini(&s);
}

static void test_missing_column(void **state)
{
    (void)state;
    fs_trace_spec s = test_trace_jobs(file("cols.csv", "t,gpus,a b\n1,1,2\n"));
    const char *want = test_path("%s/cols.csv: no column \"dur\" (columns: t, gpus, a b)", tmp);
    test_trace_open_fails(&s, FS_ERR_INPUT, want);
    fs_trace_spec_fini(&s);

    s = test_trace_requests(test_path("%s/nothing-here.csv", tmp));
    test_trace_open_fails(&s, FS_ERR_INPUT, "nothing-here.csv: cannot open: No such file");
    test_trace_set(&s.path, tmp);
    test_trace_open_fails(&s, FS_ERR_INPUT, "cannot read: Is a directory");
    fs_trace_spec_fini(&s);
}

/* A JSON Lines file read as CSV (its name or the spec says CSV) is named
 * as such at its first line that is not blank (after a byte-order mark and
 * blank lines, counted as the parser counts them), for request and job
 * traces alike, saying how to read it, without quoting the file; a CSV
 * whose quoted field opens with '{' is not one. */
static void test_json_lines(void **state)
{
    (void)state;
    const char *jsonl = "{\"t\": 0.5, \"prompt\": 10}\n{\"t\": 1, \"prompt\": 20}\n";
    fs_trace_spec s = test_trace_requests(file("a.log", jsonl));
    const char *tail = ": this looks like JSON Lines (a line starting with '{'); set \"format\": \"jsonl\" (or name "
                       "the file .jsonl)";
    char want[512];
    snprintf(want, sizeof want, "%s/a.log:1%s", tmp, tail);
    test_trace_open_fails(&s, FS_ERR_INPUT, want);
    fs_trace_spec_fini(&s);

    s = test_trace_requests(file("b.jsonl", "\xEF\xBB\xBF\r\n  \n\r\n\t{\"t\": 0.5}\n"));
    s.format = FS_TRACE_FORMAT_CSV; /* the spec over the name */
    fs_trace *t = NULL;
    fs_error err = {0};
    assert_int_equal(fs_trace_open(&s, &t, &err), FS_ERR_INPUT);
    snprintf(want, sizeof want, "%s/b.jsonl:4%s", tmp, tail);
    assert_string_equal(err.msg, want); /* the whole message: nothing of the file quoted */
    fs_trace_spec_fini(&s);

    s = test_trace_jobs(file("jobs.csv", "{\"t\": 0, \"gpus\": 2, \"dur\": 60}\n"));
    snprintf(want, sizeof want, "%s/jobs.csv:1%s", tmp, tail);
    test_trace_open_fails(&s, FS_ERR_INPUT, want);
    fs_trace_spec_fini(&s);

    /* CSV after all: the brace is inside a quoted header field. */
    s = test_trace_requests(file("brace.csv", "\"{t}\",t\n9,1\n9,2\n"));
    fs_trace_row rows[2];
    assert_int_equal(test_trace_read_all(&s, rows, 2, NULL), 2);
    fs_trace_spec_fini(&s);
}

static void test_bad_spec(void **state)
{
    (void)state;
    fs_trace_spec s = test_trace_jobs(file("spec.csv", "t,gpus,dur,end\n1,1,1,2\n"));
    s.rate_scale = 0;
    test_trace_open_fails(&s, FS_ERR_INPUT, "rate scale must be a number > 0");
    s.rate_scale = 1;
    s.tolerance_s = -1;
    test_trace_open_fails(&s, FS_ERR_INPUT, "tolerance must be >= 0");
    s.tolerance_s = 1;
    test_trace_set(&s.end_col, "end");
    test_trace_open_fails(&s, FS_ERR_INPUT, "one, not both");
    test_trace_set(&s.end_col, NULL);
    test_trace_set(&s.gpus_col, NULL);
    test_trace_open_fails(&s, FS_ERR_INPUT, "needs a GPU-count column");
    fs_trace_spec_fini(&s);
}

/* ---- bad rows -------------------------------------------------------------- */

/* Each kind of bad row at line 3 of a job trace with priority and end time:
 * strictly an error naming file:3, what and the text; leniently skipped. */
static void test_bad_rows(void **state)
{
    (void)state;
    static const struct {
        const char *row;
        const char *what;
    } cases[] = {
        {"x,1,20,z", "t is not a number of seconds, got \"x\""},
        {",1,20,z", "t is not a number of seconds, got \"\""},
        {"nan,1,20,z", "t is not a number of seconds, got \"nan\""},
        {"12,-1,20,z", "gpus is not a GPU count >= 0, got \"-1\""},
        {"12,two,20,z", "gpus is not a GPU count >= 0, got \"two\""},
        {"12,1,5,z", "end is before t (12), got \"5\""},
        {"12,1,2e,z", "end is not a number of seconds, got \"2e\""},
        {"12,1", "2 fields, but column \"end\" is field 3 of 4, got \"12,1\""},
        {"8,1,20,z", "t goes back 2 s in the replay, more than the tolerance of 1 s"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[256];
        snprintf(text, sizeof text, "t,gpus,end,p\n10,1,20,a\n%s\n13,2,20,b\n", cases[i].row);
        const char *path = file("bad.csv", text);
        fs_trace_spec s = test_trace_jobs(path);
        test_trace_set(&s.duration_col, NULL);
        test_trace_set(&s.end_col, "end");
        test_trace_set(&s.priority_col, "p");
        const char *where = test_path("%s:3: ", path);
        assert_int_equal(test_trace_read_to_error(&s, FS_ERR_INPUT, where, cases[i].what, NULL), 1);

        s.lenient = true;
        fs_trace_row rows[3];
        uint64_t skipped = 0;
        assert_int_equal(test_trace_read_all(&s, rows, 3, &skipped), 2);
        assert_int_equal(skipped, 1);
        assert_true(rows[1].t == 3 && rows[1].gpus == 2 && rows[1].duration_s == 7 && rows[1].line == 4);
        /* The skipped row took no priority rank. */
        assert_true(rows[0].priority == 0 && rows[1].priority == 1);
        fs_trace_spec_fini(&s);
    }

    /* Sizes of a request trace; a negative duration; after a bad row the
     * strict reader goes on with the next. */
    fs_trace_spec s = test_trace_requests(file("sizes.csv", "t,a,b\n1,1,2\n2,-3,4\n3,5,x\n4,5,6\n"));
    test_trace_set(&s.size_cols[0], "a");
    test_trace_set(&s.size_cols[1], "b");
    fs_trace *t = test_trace_open(&s);
    fs_trace_row r;
    fs_error err = {0};
    assert_int_equal(fs_trace_next(t, &r, &err), 1);
    assert_int_equal(fs_trace_next(t, &r, &err), -1);
    assert_non_null(strstr(err.msg, "sizes.csv:3: a is not a number >= 0, got \"-3\""));
    assert_int_equal(fs_trace_next(t, &r, &err), -1);
    assert_non_null(strstr(err.msg, "sizes.csv:4: b is not a number >= 0, got \"x\""));
    assert_int_equal(fs_trace_next(t, &r, &err), 1);
    assert_true(r.t == 3 && r.size[0] == 5 && r.size[1] == 6);
    fs_trace_close(t);
    fs_trace_spec_fini(&s);

    s = test_trace_jobs(file("dur.csv", "t,gpus,dur\n1,1,-5\n"));
    test_trace_read_to_error(&s, FS_ERR_INPUT, "dur.csv:2: dur is not a number of seconds >= 0, got \"-5\"", NULL);
    fs_trace_spec_fini(&s);

    /* A long text is cut in the message. */
    char row[400] = "t\n";
    memset(row + 2, '9', 200);
    row[202] = 'x';
    s = test_trace_requests(file("long.csv", row));
    test_trace_read_to_error(&s, FS_ERR_INPUT, "long.csv:2: t is not a number of seconds, got \"9999", "999...\"", NULL);
    fs_trace_spec_fini(&s);
}

/* At most 256 distinct priority texts; numbers are numbers. */
static void test_priorities(void **state)
{
    (void)state;
    const char *path;
    FILE *f = create("prio.csv", &path);
    fputs("t,gpus,dur,p\n1,1,1,7.5\n", f);
    for (int i = 0; i < 257; i++)
        fprintf(f, "%d,1,1,class%d\n", i + 2, i);
    fputs("300,1,1,class3\n", f);
    assert_int_equal(fclose(f), 0);
    fs_trace_spec s = test_trace_jobs(path);
    test_trace_set(&s.priority_col, "p");
    assert_int_equal(test_trace_read_to_error(&s, FS_ERR_INPUT, "prio.csv:259: p has more than 256 distinct texts",
                                   "got \"class256\"", NULL),
                     257);
    s.lenient = true;
    fs_trace_row rows[300];
    uint64_t skipped;
    assert_int_equal(test_trace_read_all(&s, rows, 300, &skipped), 258);
    assert_int_equal(skipped, 1);
    assert_true(rows[0].priority == 7.5 && rows[1].priority == 0 && rows[256].priority == 255);
    assert_true(rows[257].priority == 3);
    fs_trace_spec_fini(&s);
}

/* ---- prefixes -------------------------------------------------------------- */

/* Prefix identities become keys in the order first seen (equal text,
 * equal key, whatever the quoting or spaces around it); an empty identity
 * is no prefix; keys hold across the passes of a repeat; a bad token count
 * is a bad row and, skipped, takes no key. */
static void test_prefixes(void **state)
{
    (void)state;
    fs_trace_spec s = test_trace_requests(file("prefix.csv", "t,id,n\n"
                                                       "1,sys-b,100\n"
                                                       "2,sys-a,50\n"
                                                       "3,\"sys-b\",100\n"
                                                       "4,,\n"
                                                       "5, sys-a ,7\n"
                                                       "6,\"sys, c\",0\n"
                                                       "7,,12\n"));
    test_trace_set(&s.prefix_col, "id");
    test_trace_set(&s.prefix_tokens_col, "n");
    fs_trace_row rows[14];
    assert_int_equal(test_trace_read_all(&s, rows, 7, NULL), 7);
    static const uint32_t keys[] = {1, 2, 1, 0, 2, 3, 0}, tokens[] = {100, 50, 100, 0, 7, 0, 0};
    for (size_t i = 0; i < 7; i++) {
        assert_int_equal(rows[i].prefix_key, keys[i]);
        assert_int_equal(rows[i].prefix_tokens, tokens[i]);
    }
    s.repeat = true;
    fs_trace *t = test_trace_open(&s);
    fs_error err = {0};
    for (size_t i = 0; i < 14; i++)
        assert_int_equal(fs_trace_next(t, &rows[i], &err), 1);
    for (size_t i = 0; i < 7; i++)
        assert_int_equal(rows[7 + i].prefix_key, keys[i]);
    fs_trace_close(t);
    fs_trace_spec_fini(&s);

    /* Bad counts at line 3; the row after takes key 2, not 3. */
    static const char *const bad[] = {"x", "-1", "1.5", "", "1e", "nan"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[128];
        snprintf(text, sizeof text, "t,id,n\n1,a,10\n2,new,%s\n3,next,4\n", bad[i]);
        s = test_trace_requests(file("badprefix.csv", text));
        test_trace_set(&s.prefix_col, "id");
        test_trace_set(&s.prefix_tokens_col, "n");
        char want[64];
        snprintf(want, sizeof want, "n is not a whole number of tokens >= 0, got \"%s\"", bad[i]);
        assert_int_equal(test_trace_read_to_error(&s, FS_ERR_INPUT, test_path("%s:3: ", s.path), want, NULL), 1);
        s.lenient = true;
        uint64_t skipped = 0;
        assert_int_equal(test_trace_read_all(&s, rows, 2, &skipped), 2);
        assert_int_equal(skipped, 1);
        assert_int_equal(rows[1].prefix_key, 2);
        assert_int_equal(rows[1].prefix_tokens, 4);
        fs_trace_spec_fini(&s);
    }

    /* Counts beyond 2^32 - 1 cover more than any prompt: read as 2^32 - 1. */
    s = test_trace_requests(file("huge.csv", "t,id,n\n1,a,1e12\n"));
    test_trace_set(&s.prefix_col, "id");
    test_trace_set(&s.prefix_tokens_col, "n");
    assert_int_equal(test_trace_read_all(&s, rows, 1, NULL), 1);
    assert_int_equal(rows[0].prefix_tokens, UINT32_MAX);

    /* Both columns or neither, and only in a request trace. */
    test_trace_set(&s.prefix_tokens_col, NULL);
    test_trace_open_fails(&s, FS_ERR_INPUT, "a prefix column needs a prefix-tokens column");
    test_trace_set(&s.prefix_tokens_col, "n");
    s.kind = FS_TRACE_JOBS;
    test_trace_set(&s.gpus_col, "n");
    test_trace_set(&s.duration_col, "n");
    test_trace_open_fails(&s, FS_ERR_INPUT, "a prefix column belongs to a request trace");
    fs_trace_spec_fini(&s);
}

/* The table behind the keys: many texts, some of them prefixes of others
 * (the stored text must end where the looked-up one does), keep their
 * keys as the table grows; past its limit a new text is refused (ERANGE)
 * and the table stays as it was.  The reader's limit is 2^32 - 1. */
static void test_intern(void **state)
{
    (void)state;
    fs_intern in;
    fs_intern_init(&in, 100000);
    char text[32];
    uint32_t key;
    for (uint32_t i = 0; i < 100000; i++) {
        int n = snprintf(text, sizeof text, "prompt-%u", i);
        assert_int_equal(fs_intern_key(&in, text, (size_t)n, &key), 0);
        assert_int_equal(key, i + 1);
    }
    for (uint32_t i = 0; i < 100000; i += 7) {
        int n = snprintf(text, sizeof text, "prompt-%u", i);
        assert_int_equal(fs_intern_key(&in, text, (size_t)n, &key), 0);
        assert_int_equal(key, i + 1);
    }
    assert_int_equal(fs_intern_key(&in, "prompt-1", 7, &key), ERANGE); /* "prompt-": new, and no room */
    assert_int_equal(fs_intern_key(&in, "prompt-12x", 9, &key), 0);    /* "prompt-12" */
    assert_int_equal(key, 13);
    assert_int_equal(in.n, 100000);
    fs_intern_fini(&in);
}

/* ---- time ------------------------------------------------------------------ */

/* Rows up to the tolerance earlier than the one before replay at its time;
 * the tolerance is in replay seconds, after the rate scale. */
static void test_out_of_order(void **state)
{
    (void)state;
    fs_trace_spec s = test_trace_requests(file("order.csv", "t\n10\n12\n11.5\n11\n13\n"));
    fs_trace_row rows[5];
    assert_int_equal(test_trace_read_all(&s, rows, 5, NULL), 5);
    assert_true(rows[1].t == 2 && rows[2].t == 2 && rows[3].t == 2 && rows[4].t == 3);

    s.tolerance_s = 0.5; /* 11 is 1 s before 12 */
    test_trace_read_to_error(&s, FS_ERR_INPUT, "order.csv:5: t goes back 1 s", NULL);
    s.rate_scale = 2;    /* now 0.5 s in the replay */
    assert_int_equal(test_trace_read_all(&s, rows, 5, NULL), 5);
    assert_true(rows[3].t == 1 && rows[4].t == 1.5);
    fs_trace_spec_fini(&s);
}

/* Rate scale divides times, not durations; the shift is added after. */
static void test_scale_and_shift(void **state)
{
    (void)state;
    fs_trace_spec s = test_trace_jobs(file("scale.csv", "t,gpus,dur\n100,1,60\n101,2.5,30\n104,0,0\n"));
    fs_trace_row rows[3];
    s.rate_scale = 2;
    assert_int_equal(test_trace_read_all(&s, rows, 3, NULL), 3);
    assert_true(rows[0].t == 0 && rows[1].t == 0.5 && rows[2].t == 2);
    assert_true(rows[0].duration_s == 60 && rows[1].duration_s == 30 && rows[2].duration_s == 0);
    assert_true(rows[0].gpus == 1 && rows[1].gpus == 3 && rows[2].gpus == 1); /* 2.5 rounds up, 0 reads as 1 */
    s.rate_scale = 0.25;
    s.shift_s = 1000;
    assert_int_equal(test_trace_read_all(&s, rows, 3, NULL), 3);
    assert_true(rows[0].t == 1000 && rows[1].t == 1004 && rows[2].t == 1016);
    fs_trace_spec_fini(&s);
}

/* Repeat: pass k is shifted by k * (span + mean gap), for as long as it is
 * read; lines are the file's. */
static void test_repeat(void **state)
{
    (void)state;
    fs_trace_spec s = test_trace_requests(file("rep.csv", "t,a\n10,1\n12,2\n\n16,3\n")); /* span 6, mean gap 3 */
    test_trace_set(&s.size_cols[0], "a");
    s.repeat = true;
    s.shift_s = 5;
    fs_trace *t = test_trace_open(&s);
    fs_trace_row r;
    fs_error err;
    static const double offs[3] = {0, 2, 6};
    static const uint64_t lines[3] = {2, 3, 5};
    for (int pass = 0; pass < 5; pass++) {
        for (int i = 0; i < 3; i++) {
            assert_int_equal(fs_trace_next(t, &r, &err), 1);
            test_trace_near(r.t, 5 + pass * 9.0 + offs[i], 1e-12);
            assert_true(r.size[0] == i + 1);
            assert_int_equal(r.line, lines[i]);
        }
    }
    assert_int_equal(fs_trace_rows(t), 15);
    fs_trace_close(t);

    /* One row repeats every second of trace time: every half second at rate 2. */
    test_trace_set(&s.path, file("one.csv", "t,a\n42,1"));
    s.shift_s = 0;
    s.rate_scale = 2;
    t = test_trace_open(&s);
    for (int pass = 0; pass < 4; pass++) {
        assert_int_equal(fs_trace_next(t, &r, &err), 1);
        assert_true(r.t == pass * 0.5 && r.line == 2);
    }
    fs_trace_close(t);

    /* A bad row skipped leniently in every pass; the mean gap counts valid rows. */
    test_trace_set(&s.path, file("rep-bad.csv", "t,a\n0,1\nbad,1\n4,1\n"));
    s.rate_scale = 1;
    s.lenient = true;
    t = test_trace_open(&s);
    for (int pass = 0; pass < 3; pass++) {
        for (int i = 0; i < 2; i++) {
            assert_int_equal(fs_trace_next(t, &r, &err), 1);
            assert_true(r.t == pass * 8.0 + i * 4.0);
        }
    }
    assert_int_equal(fs_trace_skipped(t), 3);
    fs_trace_close(t);
    fs_trace_spec_fini(&s);
}

static void test_time_formats(void **state)
{
    (void)state;
    static const struct {
        fs_trace_time_format format;
        const char *a, *b;
        double seconds; /* b - a */
    } cases[] = {
        {FS_TRACE_TIME_SECONDS, "1700000000.25", "1700000001.5", 1.25},
        {FS_TRACE_TIME_MS, "1700000000250", "1700000001500", 1.25},
        {FS_TRACE_TIME_US, "1700000000250000", "1700000001500001", 1.250001},
        {FS_TRACE_TIME_DATETIME, "2023-11-16 18:17:03.9799600", "2023-11-16 18:17:04.0319600", 0.052},
        {FS_TRACE_TIME_DATETIME, "2023-11-16T18:17:03Z", "2023-11-16T18:17:04.5Z", 1.5},
        {FS_TRACE_TIME_DATETIME, "2023-12-31 23:59:59.9999999", "2024-01-01 00:00:00", 1e-7},
        {FS_TRACE_TIME_DATETIME, "2024-02-28 12:00:00", "2024-03-01T12:00:00", 2 * 86400.0},
        {FS_TRACE_TIME_DATETIME, "2023-02-28 12:00:00", "2023-03-01T12:00:00", 86400.0},
        {FS_TRACE_TIME_DATETIME, "1969-12-31 23:59:59", "1970-01-01 00:00:01", 2},
        {FS_TRACE_TIME_DATETIME, "2000-02-29 00:00:00", "2100-02-28 00:00:00", 36524 * 86400.0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[256];
        snprintf(text, sizeof text, "t,gpus,end\n%s,1,%s\n%s,1,%s\n", cases[i].a, cases[i].b, cases[i].b,
                 cases[i].b);
        fs_trace_spec s = test_trace_jobs(file("fmt.csv", text));
        test_trace_set(&s.duration_col, NULL);
        test_trace_set(&s.end_col, "end");
        s.time_format = cases[i].format;
        s.rate_scale = 4; /* times scale, durations do not */
        fs_trace_row rows[2];
        assert_int_equal(test_trace_read_all(&s, rows, 2, NULL), 2);
        test_trace_near(rows[1].t, cases[i].seconds / 4, 1e-9);
        test_trace_near(rows[0].duration_s, cases[i].seconds, 1e-9);
        assert_true(rows[1].duration_s == 0);
        fs_trace_spec_fini(&s);
    }

    static const char *const bad[] = {
        "2023-11-16",          "2023-11-16 18:17",     "2023-11-16 18:17:03.", "2023-11-16 18:17:03.5ZZ",
        "2023-13-01 00:00:00", "2023-02-29 00:00:00",  "2023-11-16 24:00:00",  "2023-11-16 18:60:00",
        "2023/11/16 18:17:03", "2023-11-16x18:17:03",  "1700000000",          "2023-11-16 18:17:03+01:00",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[256];
        snprintf(text, sizeof text, "t\n2023-11-16 00:00:00\n%s\n", bad[i]);
        fs_trace_spec s = test_trace_requests(file("dt.csv", text));
        s.time_format = FS_TRACE_TIME_DATETIME;
        const char *want = test_path("dt.csv:3: t is not a datetime YYYY-MM-DD HH:MM:SS[.fraction], got \"%s\"",
                                     bad[i]);
        test_trace_read_to_error(&s, FS_ERR_INPUT, want, NULL);
        fs_trace_spec_fini(&s);
    }
}

/* The origin (the first row whose time reads) as written, in seconds. */
static void test_origin(void **state)
{
    (void)state;
    static const struct {
        fs_trace_time_format format;
        const char *text;
        double seconds;
    } cases[] = {
        {FS_TRACE_TIME_SECONDS, "1700000000.25", 1700000000.25},
        {FS_TRACE_TIME_MS, "1700000000250", 1700000000.25},
        {FS_TRACE_TIME_US, "1700000000250000", 1700000000.25},
        {FS_TRACE_TIME_DATETIME, "2023-11-16 18:17:03.9799600", 1700158623.97996},
        {FS_TRACE_TIME_DATETIME, "1970-01-01T00:00:00Z", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[256];
        snprintf(text, sizeof text, "t\nbad\n%s\n%s\n", cases[i].text, cases[i].text);
        fs_trace_spec s = test_trace_requests(file("origin.csv", text));
        s.time_format = cases[i].format;
        s.lenient = true;
        s.rate_scale = 3;
        s.shift_s = 7;
        fs_trace *t = test_trace_open(&s);
        fs_trace_row r;
        fs_error err;
        assert_int_equal(fs_trace_next(t, &r, &err), 1);
        assert_true(r.t == 7);
        test_trace_near(fs_trace_origin(t), cases[i].seconds, 1e-6);
        fs_trace_close(t);
        fs_trace_spec_fini(&s);
    }
}

/* A field longer than a chunk (64 KiB), and rows across chunk boundaries. */
static void test_long_fields(void **state)
{
    (void)state;
    const char *path;
    FILE *f = create("longfield.csv", &path);
    fputs("t,gpus,dur,who\n", f);
    for (int i = 0; i < 3; i++) {
        fprintf(f, "%d,1,1,\"", i);
        for (int k = 0; k < 100000; k++)
            fputc(k % 1000 == 500 ? '\n' : 'a' + i, f);
        fputs("\"\n", f);
    }
    for (int i = 3; i < 20000; i++)
        fprintf(f, "%d,1,1,u%d\n", i, i);
    assert_int_equal(fclose(f), 0);
    fs_trace_spec s = test_trace_jobs(path);
    test_trace_set(&s.tenant_col, "who");
    fs_trace *t = test_trace_open(&s);
    fs_trace_row r;
    fs_error err;
    for (int i = 0; i < 20000; i++) {
        assert_int_equal(fs_trace_next(t, &r, &err), 1);
        assert_true(r.t == i);
        if (i < 3) {
            assert_int_equal(strlen(r.tenant), 100000);
            assert_true(r.tenant[0] == 'a' + i && r.tenant[500] == '\n');
            assert_int_equal(r.line, 2 + 101 * i); /* each spans 101 lines */
        } else {
            assert_string_equal(r.tenant, test_path("u%d", i));
            assert_int_equal(r.line, 2 + 303 + i - 3);
        }
    }
    assert_int_equal(fs_trace_next(t, &r, &err), 0);
    fs_trace_close(t);
    fs_trace_spec_fini(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_memory_independent_of_length), /* first: see its comment */
        cmocka_unit_test(test_presets),
        cmocka_unit_test(test_extract_azure),
        cmocka_unit_test(test_extract_alibaba),
        cmocka_unit_test(test_extract_philly),
        cmocka_unit_test(test_shared_traces),
        cmocka_unit_test(test_csv_details),
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_missing_column),
        cmocka_unit_test(test_json_lines),
        cmocka_unit_test(test_bad_spec),
        cmocka_unit_test(test_bad_rows),
        cmocka_unit_test(test_priorities),
        cmocka_unit_test(test_prefixes),
        cmocka_unit_test(test_intern),
        cmocka_unit_test(test_out_of_order),
        cmocka_unit_test(test_scale_and_shift),
        cmocka_unit_test(test_repeat),
        cmocka_unit_test(test_time_formats),
        cmocka_unit_test(test_long_fields),
        cmocka_unit_test(test_origin),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

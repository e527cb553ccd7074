/*
 * Output safety (issue 15, points 6, 7 and 10 to 13), through the built
 * binary: a planted symlink is replaced, never written through; the umask
 * survives a --jobs sweep; an empty path is a usage error; a results
 * directory holds one run (stale files removed, mixed files refused by
 * `report`), and a report's pages are removed when a later run replaces the
 * results they describe, never when they are the user's own; validate says
 * "ok" only when every check passed; names and argv reach a terminal
 * without their control characters, and a CSV without a formula.
 */
#include <jansson.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "output.h"
#include "testutil.h"

static char tmp[256];

/* Two policies (so compare writes compare.json), one short replication.
 * %s is the service's name, as JSON string content. */
static const char *two_policies =
    "{\"schema\": \"fleetsim/1\", \"name\": \"safety\", \"horizon\": \"1h\", \"warmup\": \"10m\","
    " \"policies\": {\"a\": {\"pools\": [{\"name\": \"p\", \"gpu\": \"L4-24GB\", \"gpus\": 2}]},"
    "                \"b\": {\"pools\": [{\"name\": \"p\", \"gpu\": \"L4-24GB\", \"gpus\": 3}]}},"
    " \"services\": [{\"name\": \"%s\", \"arrivals\": {\"poisson_rps\": 5},"
    "   \"service_time\": {\"exponential\": {\"mean\": \"100ms\"}}, \"replicas\": 2,"
    "   \"slo\": {\"p99_ms\": 500}}]}\n";

static void write_scenario(const char *file, const char *service_json)
{
    char text[2048];
    snprintf(text, sizeof text, two_policies, service_json);
    test_write(test_path("%s/%s", tmp, file), text);
}

static char *err_text(void)
{
    char *err = test_slurp("%s/err.txt", tmp);
    assert_non_null(err);
    return err;
}

/* Point 10: "" is no path.  Before: a one-byte heap overrun in fs__mkdirs
 * (seen under ASan), then exit 1. */
static void test_empty_paths_refused(void **state)
{
    (void)state;
    write_scenario("s.json", "s");
    const char *cases[] = {"run %s/s.json --out ''", "run %s/s.json --report ''", "compare %s/s.json --out ''",
                           "report %s --out ''", "check %s/s.json --baseline ''", "report ''"};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        assert_int_equal(test_fleetsim(tmp, cases[i], tmp), 2);
        char *err = err_text();
        assert_non_null(strstr(err, "empty"));
        free(err);
    }
    assert_int_equal(test_fleetsim(tmp, "sweep scenarios/sweeps/does-not-matter.json --out ''"), 2);
    char *err = err_text();
    assert_non_null(strstr(err, "--out: expected a directory name, got an empty one"));
    free(err);
}

/* Point 10, in the library: "" is refused where directories are made (it
 * was read and written one byte past its copy), for results and charts. */
static void test_empty_directory_in_library(void **state)
{
    (void)state;
    fs_output out;
    fs_error err = {0};
    assert_int_equal(fs_output_begin(&out, "", &err), FS_ERR_RUNTIME);
    assert_non_null(strstr(err.msg, "empty name"));
    assert_int_equal(fs_output_mkdirs("", &err), FS_ERR_RUNTIME);
    /* "a//b/" is a//b: made, and fine to make again. */
    assert_int_equal(fs_output_mkdirs(test_path("%s/a//b/", tmp), &err), FS_OK);
    assert_int_equal(fs_output_mkdirs(test_path("%s/a//b/", tmp), &err), FS_OK);
    assert_true(test_exists("%s/a/b", tmp));
}

/* Point 10: a directory too long for a path, or a name too long for a
 * directory entry: a message naming the problem, exit 1, no crash. */
static void test_long_path_is_an_error(void **state)
{
    (void)state;
    write_scenario("s.json", "s");
    const char *digits = "0123456789012345678901234567890123456789012345678901234567890123456789";
    /* 17 components of 250 characters: past PATH_MAX (4096). */
    assert_int_equal(test_sh("cd '%s' && d='%s' && for k in $(seq 17); do d=\"$d/${k}%.66s%.66s%.66s%.48s\"; done && "
                             "'%s' run '%s/s.json' --out \"$d\" --report \"$d\" >/dev/null 2>'%s/err.txt'; "
                             "test $? -eq 1",
                             FS_SOURCE_DIR, tmp, digits, digits, digits, digits, FS_BINARY, tmp, tmp),
                     0);
    char *err = err_text();
    assert_non_null(strstr(err, "File name too long"));
    free(err);
    /* One component of 300 characters. */
    assert_int_equal(test_fleetsim(tmp, "run %s/s.json --out %s/%.70s%.70s%.70s%.70s%.20s", tmp, tmp, digits, digits,
                                   digits, digits, digits),
                     1);
    err = err_text();
    assert_non_null(strstr(err, "cannot create directory: File name too long"));
    free(err);
}

/* Point 10: --baseline naming a directory says so. */
static void test_baseline_directory(void **state)
{
    (void)state;
    write_scenario("s.json", "s");
    assert_int_equal(test_fleetsim(tmp, "check %s/s.json --baseline %s", tmp, tmp), 2);
    char *err = err_text();
    assert_non_null(strstr(err, "is a directory"));
    assert_null(strstr(err, "'[' or '{' expected"));
    free(err);
}

/* Point 11: symlinks planted under every name a run and its report write
 * are replaced by the files; their target is untouched. */
static void test_planted_symlinks_not_followed(void **state)
{
    (void)state;
    write_scenario("s.json", "s");
    test_write(test_path("%s/victim", tmp), "precious\n");
    assert_int_equal(test_sh("mkdir -p '%s/planted'", tmp), 0);
    const char *names[] = {"results.json", "compare.json", "index.html", "report.md", "cost_by_pool.gp",
                           "cost_by_pool.csv", "cost_by_pool.png", "cost_by_pool.svg", "cost_by_pool.log",
                           "utilization.gp"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        assert_int_equal(test_sh("ln -s '%s/victim' '%s/planted/%s'", tmp, tmp, names[i]), 0);
    assert_int_equal(test_fleetsim(tmp, "compare %s/s.json --report %s/planted", tmp, tmp), 0);
    char *victim = test_slurp("%s/victim", tmp);
    assert_string_equal(victim, "precious\n");
    free(victim);
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        struct stat st;
        int rc = lstat(test_path("%s/planted/%s", tmp, names[i]), &st);
        /* Replaced by a regular file, or (an image or log gnuplot did not
         * write) removed; never left pointing at the victim. */
        assert_true(rc != 0 || S_ISREG(st.st_mode));
    }
    assert_true(test_nonempty("%s/planted/index.html", tmp));
}

/* Point 12: files 0644 and directories 0755 under umask 022, after a sweep
 * whose four workers all wrote files. */
static void test_umask_kept_by_jobs(void **state)
{
    (void)state;
    write_scenario("s.json", "s");
    test_write(test_path("%s/sweep.json", tmp),
               test_path("{\"schema\": \"fleetsim-sweep/1\", \"scenario\": \"%s/s.json\","
                         " \"vary\": [{\"path\": \"services[0].arrivals.poisson_rps\", \"values\": [1, 2, 3, 4, 5, 6, 7, 8]}]}\n",
                         tmp));
    assert_int_equal(test_sh("cd '%s' && umask 022 && '%s' sweep '%s/sweep.json' --jobs 4 --out '%s/sw'"
                             " >/dev/null 2>'%s/err.txt'",
                             FS_SOURCE_DIR, FS_BINARY, tmp, tmp, tmp),
                     0);
    assert_int_equal(test_sh("cd '%s' && umask 022 && '%s' run '%s/s.json' --out '%s/sw/after' >/dev/null", FS_SOURCE_DIR,
                             FS_BINARY, tmp, tmp),
                     0);
    /* Any file or directory writable by group or others. */
    assert_int_equal(test_sh("test -z \"$(find '%s/sw' -perm /022 -print -quit)\"", tmp), 0);
    assert_int_equal(test_sh("test \"$(stat -c %%a '%s/sw/points.csv')\" = 644", tmp), 0);
    assert_int_equal(test_sh("test \"$(stat -c %%a '%s/sw/after')\" = 755", tmp), 0);
}

/* Point 12, in the library itself, where the race was: four threads each
 * write 1,500 files through fs_output under umask 022; none may come out
 * writable by group or others.  (Before: each fs_output_open set the umask to
 * 0 for a moment, so files created meanwhile, and for good when two threads
 * interleaved, came out 0666.) */
#define FS__THREAD_FILES 1500
static void *write_files(void *arg)
{
    const char *dir = arg;
    for (int i = 0; i < FS__THREAD_FILES; i++) {
        fs_output out;
        fs_error err = {0};
        FILE *fp;
        if (fs_output_begin(&out, dir, &err) != FS_OK)
            return "begin";
        if (fs_output_open(&out, "f", &fp, &err) != FS_OK) {
            fs_output_abort(&out);
            return "open";
        }
        fputs("x\n", fp);
        if (fs_output_commit(&out, &err) != FS_OK)
            return "commit";
        char path[400]; /* not test_path: its buffers are shared by every thread */
        snprintf(path, sizeof path, "%s/f", dir);
        struct stat st;
        if (stat(path, &st) != 0 || (st.st_mode & 022) != 0)
            return "a file writable by group or others";
    }
    return NULL;
}

static void test_umask_kept_by_threads(void **state)
{
    (void)state;
    mode_t old = umask(022);
    pthread_t threads[4];
    char dirs[4][300];
    for (int t = 0; t < 4; t++) {
        snprintf(dirs[t], sizeof dirs[t], "%s/threads/%d", tmp, t);
        assert_int_equal(pthread_create(&threads[t], NULL, write_files, dirs[t]), 0);
    }
    const char *failed = NULL;
    for (int t = 0; t < 4; t++) {
        void *why;
        pthread_join(threads[t], &why);
        if (why && !failed)
            failed = why;
    }
    mode_t now = umask(old);
    assert_null(failed);
    assert_int_equal(now, 022);
    assert_int_equal(test_sh("test -z \"$(find '%s/threads' -perm /022 -print -quit)\"", tmp), 0);
}

/* Point 7: run over compare's directory removes compare.json; report refuses
 * a compare.json from another run, naming both files. */
static void test_one_run_per_directory(void **state)
{
    (void)state;
    write_scenario("s.json", "s");
    assert_int_equal(test_fleetsim(tmp, "compare %s/s.json --out %s/mix", tmp, tmp), 0);
    assert_true(test_exists("%s/mix/compare.json", tmp));
    json_t *results = json_load_file(test_path("%s/mix/results.json", tmp), 0, NULL);
    json_t *cmp = json_load_file(test_path("%s/mix/compare.json", tmp), 0, NULL);
    const char *id = json_string_value(json_object_get(results, "run_id"));
    assert_non_null(id);
    assert_string_equal(id, json_string_value(json_object_get(cmp, "run_id")));
    assert_int_equal(test_fleetsim(tmp, "report %s/mix --out %s/mix-report", tmp, tmp), 0);

    /* An older compare.json kept aside, then brought back beside a new run. */
    assert_int_equal(test_sh("cp '%s/mix/compare.json' '%s/old-compare.json'", tmp, tmp), 0);
    assert_int_equal(test_fleetsim(tmp, "run %s/s.json --seed 7 --out %s/mix", tmp, tmp), 0);
    assert_false(test_exists("%s/mix/compare.json", tmp));
    assert_int_equal(test_sh("cp '%s/old-compare.json' '%s/mix/compare.json'", tmp, tmp), 0);
    assert_int_equal(test_fleetsim(tmp, "report %s/mix --out %s/mix-report2", tmp, tmp), 2);
    char *err = err_text();
    assert_non_null(strstr(err, "mix/compare.json"));
    assert_non_null(strstr(err, "mix/results.json"));
    assert_non_null(strstr(err, "not from the same run"));
    free(err);
    assert_false(test_exists("%s/mix-report2/index.html", tmp));

    /* The same scenario and seed: the same identity (same seed, same bytes). */
    assert_int_equal(test_fleetsim(tmp, "compare %s/s.json --out %s/again", tmp, tmp), 0);
    json_t *again = json_load_file(test_path("%s/again/results.json", tmp), 0, NULL);
    assert_string_equal(id, json_string_value(json_object_get(again, "run_id")));
    json_decref(again);
    json_decref(results);
    json_decref(cmp);

    /* A plan's files beside a run's: refused, naming both. */
    test_write(test_path("%s/mix/plan.json", tmp), "{}\n");
    assert_int_equal(test_fleetsim(tmp, "report %s/mix --out %s/mix-report3", tmp, tmp), 2);
    err = err_text();
    assert_non_null(strstr(err, "mix/plan.json and"));
    free(err);
}

/* Point 6: a scenario that loads but cannot be placed: no "ok". */
static void test_validate_ok_only_when_valid(void **state)
{
    (void)state;
    test_write(test_path("%s/unplaceable.json", tmp),
               "{\"schema\": \"fleetsim/1\", \"name\": \"v\", \"horizon\": \"1h\","
               " \"pools\": [{\"name\": \"p\", \"gpu\": \"L4-24GB\", \"gpus\": 1}],"
               " \"services\": [{\"name\": \"s\", \"arrivals\": {\"poisson_rps\": 1},"
               "   \"service_time\": {\"exponential\": {\"mean\": \"100ms\"}}, \"replicas\": 5}]}\n");
    assert_int_equal(test_fleetsim(tmp, "validate %s/unplaceable.json", tmp), 2);
    char *out = test_slurp("%s/out.txt", tmp);
    assert_null(strstr(out, "ok"));
    free(out);
    write_scenario("s.json", "s");
    assert_int_equal(test_fleetsim(tmp, "validate %s/s.json", tmp), 0);
    out = test_slurp("%s/out.txt", tmp);
    assert_non_null(strstr(out, ": ok: scenario \"safety\""));
    free(out);
}

/* Point 13: ESC, BEL and the C1 CSI in a service name never reach the
 * terminal, in validate's summary, the tables or an error message. */
static void test_control_characters_not_printed(void **state)
{
    (void)state;
    const char *hostile = "x\\u001b]0;pwned\\u0007\\u001b[2J\\u009b31m";
    write_scenario("esc.json", hostile);
    const char *cmds[] = {"validate %s/esc.json", "run %s/esc.json", "compare %s/esc.json"};
    for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) {
        assert_int_equal(test_fleetsim(tmp, cmds[i], tmp), 0);
        char *out = test_slurp("%s/out.txt", tmp), *err = err_text();
        assert_non_null(strstr(out, "x?]0;pwned??[2J?31m"));
        assert_null(strchr(out, '\033'));
        assert_null(strchr(err, '\033'));
        assert_null(strstr(out, "\xc2\x9b"));
        free(out);
        free(err);
    }
    /* An error message naming the service. */
    char text[2048];
    snprintf(text, sizeof text, two_policies, hostile);
    char *at = strstr(text, "\"replicas\": 2");
    memcpy(at, "\"replicas\": 9", 13);
    test_write(test_path("%s/esc-bad.json", tmp), text);
    assert_int_equal(test_fleetsim(tmp, "validate %s/esc-bad.json", tmp), 2);
    char *err = err_text();
    assert_non_null(strstr(err, "x?]0;pwned"));
    assert_null(strchr(err, '\033'));
    free(err);
}

/* Point 13: a name that is a formula is written as text; numbers stay numbers. */
static void test_csv_formula_neutralised(void **state)
{
    (void)state;
    write_scenario("f.json", "=1+1");
    assert_int_equal(test_fleetsim(tmp, "compare %s/f.json --out %s/f --report %s/f", tmp, tmp, tmp), 0);
    char *series = test_slurp("%s/f/timeseries.csv", tmp);
    assert_non_null(strstr(series, ",\"'=1+1\","));
    assert_null(strstr(series, ",\"=1+1\""));
    free(series);
    assert_int_equal(test_fleetsim(tmp, "run %s/f.json --format csv", tmp), 0);
    char *out = test_slurp("%s/out.txt", tmp);
    assert_non_null(strstr(out, "\"'=1+1\""));
    free(out);
    /* Every CSV the run and its report wrote: no cell starts with = + - @
     * unless it is a number. */
    assert_int_equal(test_sh("! grep -lE '(^|,)\"?[=+@]|(^|,)\"?-[^0-9.]' '%s'/f/*.csv", tmp), 0);
}

/* Hostile names in the gnuplot scripts and pages stay text: every control
 * character is gone from the scripts and the pages, and nothing is run. */
static void test_hostile_name_in_report(void **state)
{
    (void)state;
    const char *hostile = "q\\\"'`$(touch PWNED)\\n</script><b>\\u001b[2J";
    write_scenario("h.json", hostile);
    assert_int_equal(test_fleetsim(tmp, "compare %s/h.json --report %s/h", tmp, tmp), 0);
    assert_false(test_exists("%s/h/PWNED", tmp));
    assert_false(test_exists("%s/PWNED", FS_SOURCE_DIR));
    char *html = test_slurp("%s/h/index.html", tmp);
    assert_null(strstr(html, "</script><b>"));
    assert_non_null(strstr(html, "&lt;/script&gt;&lt;b&gt;"));
    assert_null(strchr(html, '\033'));
    free(html);
    assert_int_equal(test_sh("! grep -l \"$(printf '\\033')\" '%s'/h/*.gp '%s'/h/*.md", tmp, tmp), 0);
}

/* Point 13: text from the command line (a path, an option's value, a
 * command's name) echoed in a usage or error message prints with its
 * control characters as '?'.  Before: the ESC reached the terminal raw. */
static void test_argv_echo_sanitised(void **state)
{
    (void)state;
    write_scenario("s.json", "s");
    assert_int_equal(test_sh("mkdir -p '%s/b'\"$(printf '\\033')\"'[2J'", tmp), 0);
    static const struct {
        const char *args, *want;
        int status;
    } cases[] = {
        {"run %s/s.json --seed \"1$(printf '\\033')[2J\"", "got \"1?[2J\"", 2},
        {"run %s/s.json --format \"x$(printf '\\033')]0;t$(printf '\\007')\"", "got \"x?]0;t?\"", 2},
        {"run %s/s.json --bogus\"$(printf '\\033')[2J\"", "unknown option '--bogus?[2J'", 2},
        {"run %s/s.json --max-events \"$(printf '\\033')c\"", "got \"?c\"", 2},
        {"\"x$(printf '\\033')[2J\" %s", "unknown command 'x?[2J'", 2},
        {"check %s/s.json --baseline \"%s/b$(printf '\\033')[2J\"", "b?[2J\" is a directory", 2},
        {"check %s/s.json --baseline \"%s/none$(printf '\\033')[2J.json\"", "none?[2J.json: cannot read", 2},
        {"check %s/s.json --baseline %s/s.json --tolerance \"p99=$(printf '\\033')[2J\"", "got \"?[2J\"", 2},
        {"sweep %s/s.json --jobs \"$(printf '\\033')[2J\"", "got \"?[2J\"", 2},
        {"help \"x$(printf '\\033')[2J\"", "unknown command 'x?[2J'", 2},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int status = test_fleetsim(tmp, cases[i].args, tmp, tmp);
        char *err = err_text();
        if (status != cases[i].status || !strstr(err, cases[i].want) || strchr(err, '\033') || strchr(err, '\007'))
            fail_msg("%s: exit %d, stderr:\n%s\nwanted exit %d and \"%s\", no ESC or BEL", cases[i].args, status,
                     err, cases[i].status, cases[i].want);
        free(err);
    }
}

/* Point 14: `report DIR` reads whatever DIR holds; a number in its CSV
 * series is a decimal or refused (exit 2, the file, the row, the column),
 * never hex read as 16 nor "inf".  Before: strtod took both. */
static void test_report_csv_numbers_decimal(void **state)
{
    (void)state;
    write_scenario("s.json", "s");
    const char *bad[] = {"0x1", "inf", "nan", "1e"}; /* libcsv trims spaces itself */
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        assert_int_equal(test_fleetsim(tmp, "run %s/s.json --out %s/num", tmp, tmp), 0);
        assert_int_equal(test_fleetsim(tmp, "report %s/num --out %s/num-report", tmp, tmp), 0);
        /* The utilization cell of the first data row. */
        assert_int_equal(test_sh("sed -i '2s/,[^,]*$/,%s/' '%s/num/pools_timeseries.csv'", bad[i], tmp), 0);
        assert_int_equal(test_fleetsim(tmp, "report %s/num --out %s/num-report", tmp, tmp), 2);
        char *err = err_text();
        char want[64];
        snprintf(want, sizeof want, "column \"utilization\": expected a number, got \"%s\"", bad[i]);
        if (!strstr(err, "pools_timeseries.csv: row 2") || !strstr(err, want))
            fail_msg("%s: stderr\n%s\nlacks the row and\n%s", bad[i], err, want);
        free(err);
    }
}

/* The run id a page carries (its fleetsim-run-id marker), or "" when it has
 * none; the caller frees nothing (a static buffer). */
static const char *page_id(const char *path)
{
    static char id[64];
    id[0] = '\0';
    char *text = test_slurp("%s", path);
    if (!text)
        return id;
    const char *marks[] = {"<meta name=\"fleetsim-run-id\" content=\"", "<!-- fleetsim-run-id: "};
    for (size_t k = 0; k < 2 && !id[0]; k++) {
        const char *at = strstr(text, marks[k]);
        if (at)
            sscanf(at + strlen(marks[k]), "%63[0-9a-zA-Z-]", id);
    }
    free(text);
    return id;
}

static const char *run_id_of(const char *dir)
{
    static char id[64];
    json_t *doc = json_load_file(test_path("%s/results.json", dir), 0, NULL);
    assert_non_null(doc);
    snprintf(id, sizeof id, "%s", json_string_value(json_object_get(doc, "run_id")));
    json_decref(doc);
    return id;
}

/* Point 7: a report's pages say which run they describe, and a later run
 * into the directory removes those of another run, with their charts: in
 * DIR (run --report DIR) and DIR/report (`fleetsim report DIR`).  Pages of
 * the same run stay.  Before: index.html and report.md of the earlier run
 * stayed beside the new results. */
static void test_stale_pages_removed(void **state)
{
    (void)state;
    write_scenario("s.json", "s");
    char d[512];
    snprintf(d, sizeof d, "%s/pages", tmp); /* test_path's buffers are reused */
    assert_int_equal(test_fleetsim(tmp, "compare %s/s.json --out %s --report %s", tmp, d, d), 0);
    assert_int_equal(test_fleetsim(tmp, "report %s", d), 0);
    char first[64];
    snprintf(first, sizeof first, "%s", run_id_of(d));
    const char *pages[] = {"index.html", "report.md", "report/index.html", "report/report.md"};
    for (size_t i = 0; i < 4; i++)
        assert_string_equal(page_id(test_path("%s/%s", d, pages[i])), first);
    assert_true(test_exists("%s/cost_by_pool.csv", d));
    assert_true(test_exists("%s/report/cost_by_pool.csv", d));

    /* The same run again: its pages still describe it, and stay. */
    assert_int_equal(test_fleetsim(tmp, "compare %s/s.json --out %s", tmp, d), 0);
    assert_string_equal(run_id_of(d), first);
    for (size_t i = 0; i < 4; i++)
        assert_true(test_exists("%s/%s", d, pages[i]));

    /* Another run: every page of the first goes, and its charts. */
    assert_int_equal(test_fleetsim(tmp, "run %s/s.json --seed 7 --out %s", tmp, d), 0);
    assert_string_not_equal(run_id_of(d), first);
    for (size_t i = 0; i < 4; i++)
        assert_false(test_exists("%s/%s", d, pages[i]));
    assert_false(test_exists("%s/cost_by_pool.csv", d));
    assert_false(test_exists("%s/report/cost_by_pool.gp", d));
    assert_true(test_nonempty("%s/results.json", d));

    /* report regenerates DIR/report for the run now in DIR. */
    assert_int_equal(test_fleetsim(tmp, "report %s", d), 0);
    assert_string_equal(page_id(test_path("%s/report/index.html", d)), run_id_of(d));

    /* compare --report R (results in R too) over R/report of another run. */
    assert_int_equal(test_fleetsim(tmp, "compare %s/s.json --report %s", tmp, d), 0);
    assert_string_equal(page_id(test_path("%s/index.html", d)), run_id_of(d));
    assert_false(test_exists("%s/report/index.html", d));
}

/* Point 7: a page without fleetsim's marker is the user's: a run never
 * removes it (it warns), and a report never replaces it (exit 2, before the
 * run).  A planted symlink is not a page either: it is left, with the same
 * warning. */
static void test_user_pages_kept(void **state)
{
    (void)state;
    write_scenario("s.json", "s");
    char d[512];
    snprintf(d, sizeof d, "%s/own", tmp); /* test_path's buffers are reused */
    assert_int_equal(test_sh("mkdir -p '%s/report'", d), 0);
    test_write(test_path("%s/index.html", d), "<html>mine</html>\n");
    test_write(test_path("%s/report/report.md", d), "# my notes\n");
    assert_int_equal(test_fleetsim(tmp, "run %s/s.json --out %s", tmp, d), 0);
    test_stderr_has(tmp, "own/index.html: not a fleetsim page (no fleetsim-run-id marker): left as it is");
    test_stderr_has(tmp, "own/report/report.md: not a fleetsim page");
    char *mine = test_slurp("%s/index.html", d);
    assert_string_equal(mine, "<html>mine</html>\n");
    free(mine);
    assert_true(test_exists("%s/report/report.md", d));

    /* Where the report would replace it: refused before the run. */
    char e[512];
    snprintf(e, sizeof e, "%s/own-results", tmp); /* test_path's buffers are reused */
    assert_int_equal(test_fleetsim(tmp, "run %s/s.json --out %s --report %s", tmp, e, d), 2);
    test_stderr_has(tmp, "own/index.html: not a fleetsim page (no fleetsim-run-id marker), so not replaced");
    assert_false(test_exists("%s/results.json", e));
    assert_int_equal(test_fleetsim(tmp, "report %s", d), 2);
    test_stderr_has(tmp, "own/report/report.md: not a fleetsim page");
    mine = test_slurp("%s/index.html", d);
    assert_string_equal(mine, "<html>mine</html>\n");
    free(mine);

    /* A symlink planted as a page: neither followed nor removed. */
    char f[512];
    snprintf(f, sizeof f, "%s/linked", tmp); /* test_path's buffers are reused */
    assert_int_equal(test_sh("mkdir -p '%s' && ln -s '%s/s.json' '%s/report.md'", f, tmp, f), 0);
    assert_int_equal(test_fleetsim(tmp, "run %s/s.json --out %s", tmp, f), 0);
    test_stderr_has(tmp, "linked/report.md: not a fleetsim page");
    struct stat st;
    assert_int_equal(lstat(test_path("%s/report.md", f), &st), 0);
    assert_true(S_ISLNK(st.st_mode));
}

/* Point 7 for plans: `plan --out DIR` removes DIR/report of another plan
 * (the plan's id is a hash of plan.json) and keeps that of the same one. */
static void test_stale_plan_pages_removed(void **state)
{
    (void)state;
    test_write(test_path("%s/one.json", tmp),
               "{\"schema\": \"fleetsim/1\", \"name\": \"p\", \"horizon\": \"1h\", \"warmup\": \"10m\","
               " \"pools\": [{\"name\": \"p\", \"gpu\": \"L4-24GB\", \"gpus\": 4}],"
               " \"services\": [{\"name\": \"s\", \"arrivals\": {\"poisson_rps\": 5},"
               "   \"service_time\": {\"exponential\": {\"mean\": \"100ms\"}}, \"replicas\": 2}]}\n");
    const char *plan = "plan %s/one.json --vary 'services[s].replicas=1..3' --out %s/plan -q --constraint ";
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s'service:s.p99<=500ms'", plan);
    assert_int_equal(test_fleetsim(tmp, cmd, tmp, tmp), 0);
    assert_int_equal(test_fleetsim(tmp, "report %s/plan", tmp), 0);
    char id[64];
    snprintf(id, sizeof id, "%s", page_id(test_path("%s/plan/report/index.html", tmp)));
    assert_memory_equal(id, "plan-", 5);
    assert_string_equal(page_id(test_path("%s/plan/report/report.md", tmp)), id);
    assert_int_equal(test_fleetsim(tmp, cmd, tmp, tmp), 0); /* the same plan */
    assert_string_equal(page_id(test_path("%s/plan/report/index.html", tmp)), id);
    snprintf(cmd, sizeof cmd, "%s'service:s.p99<=300ms'", plan);
    assert_int_equal(test_fleetsim(tmp, cmd, tmp, tmp), 0); /* another plan */
    assert_false(test_exists("%s/plan/report/index.html", tmp));
    assert_false(test_exists("%s/plan/report/report.md", tmp));
    assert_false(test_exists("%s/plan/report/plan_frontier.gp", tmp));
}

int main(void)
{
    if (test_tmpdir(tmp, sizeof tmp, "fleetsim-output-safety") != 0)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty_paths_refused),
        cmocka_unit_test(test_empty_directory_in_library),
        cmocka_unit_test(test_long_path_is_an_error),
        cmocka_unit_test(test_baseline_directory),
        cmocka_unit_test(test_planted_symlinks_not_followed),
        cmocka_unit_test(test_umask_kept_by_jobs),
        cmocka_unit_test(test_umask_kept_by_threads),
        cmocka_unit_test(test_one_run_per_directory),
        cmocka_unit_test(test_validate_ok_only_when_valid),
        cmocka_unit_test(test_control_characters_not_printed),
        cmocka_unit_test(test_csv_formula_neutralised),
        cmocka_unit_test(test_hostile_name_in_report),
        cmocka_unit_test(test_argv_echo_sanitised),
        cmocka_unit_test(test_report_csv_numbers_decimal),
        cmocka_unit_test(test_stale_pages_removed),
        cmocka_unit_test(test_user_pages_kept),
        cmocka_unit_test(test_stale_plan_pages_removed),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    if (failed == 0)
        test_rmdir(tmp);
    return failed;
}

/*
 * The capacity-review report as a reader meets it: written by the binary
 * (`compare --report`), escaped against hostile names, and opened in a real
 * headless browser (Debian's chromium), which must load the page without
 * console errors and render every chart image.  Without chromium the browser
 * test skips with a message, except under CI (CI=true), where .ci/run
 * installs it and a missing browser is a failure.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "testutil.h"

static char tmp[256];

/* The morning-tail comparison, shortened: 1 replication, 3 days. */
static void make_report(const char *dir)
{
    if (test_nonempty("%s/%s/index.html", tmp, dir))
        return;
    assert_int_equal(test_fleetsim(tmp,
                                   "compare scenarios/morning-tail.json --replications 1 --horizon 3d"
                                   " --report '%s/%s'",
                                   tmp, dir),
                     0);
}

static void test_report_files(void **state)
{
    (void)state;
    make_report("mt");
    char *html = test_slurp("%s/mt/index.html", tmp), *md = test_slurp("%s/mt/report.md", tmp);
    assert_non_null(html);
    assert_non_null(md);
    assert_non_null(strstr(html, "<!DOCTYPE html>"));
    assert_non_null(strstr(html, "Capacity review: morning tail"));
    /* A verdict per policy, with the SLO outcome and the cost. */
    assert_non_null(strstr(html, "<b>shared</b>: misses the SLO of chat"));
    assert_non_null(strstr(html, "<b>partitioned</b>: every service meets its SLO"));
    assert_non_null(strstr(md, "- **partitioned**: every service meets its SLO"));
    /* The comparison table with paired differences from compare.json. */
    assert_non_null(strstr(html, "<th>shared</th><th>partitioned</th>"));
    assert_non_null(strstr(md, "| item | metric | shared | partitioned |"));
    assert_non_null(strstr(html, "peak headroom %"));
    /* Self-contained: nothing fetched from a network. */
    assert_null(strstr(html, "http://"));
    assert_null(strstr(html, "https://"));
    /* Charts: images referenced by both pages exist, with their data. */
    int charts = 0;
    for (const char *p = html; (p = strstr(p, "<img class=\"chart\" src=\"")) != NULL; charts++) {
        p += strlen("<img class=\"chart\" src=\"");
        char file[256];
        size_t n = strcspn(p, "\"");
        assert_true(n < sizeof file);
        memcpy(file, p, n);
        file[n] = '\0';
        assert_true(test_nonempty("%s/mt/%s", tmp, file));
        char stem[256];
        snprintf(stem, sizeof stem, "%.*s", (int)(n - 4), file);
        assert_true(test_nonempty("%s/mt/%s.csv", tmp, stem));
        assert_true(test_nonempty("%s/mt/%s.gp", tmp, stem));
        assert_non_null(strstr(md, file));
    }
    printf("  %d charts in the report\n", charts);
    assert_true(charts >= 4);
    free(html);
    free(md);
}

/* Names that try to break out of HTML, Markdown or gnuplot. */
static void test_hostile_names(void **state)
{
    (void)state;
    const char *scenario =
        "{\"schema\": \"fleetsim/1\", \"name\": \"<script>alert(1)</script> | `x` 'q' \\\"d\\\"\","
        " \"horizon\": \"3h\", \"window\": \"15m\","
        " \"policies\": {\"<b>p</b> | $(touch PWNED3)\": {\"pools\": [{\"name\": \"pool'; system(\\\"touch PWNED\\\") '\","
        "   \"gpu\": \"L4-24GB\", \"gpus\": 2}]}},"
        " \"services\": [{\"name\": \"svc`touch PWNED2`\\n<img src=x onerror=alert(2)>\","
        "   \"tenant\": \"t\\\"</td>\", \"arrivals\": {\"poisson_rps\": 5},"
        "   \"service_time\": {\"exponential\": {\"mean\": \"50ms\"}}, \"replicas\": 2,"
        "   \"slo\": {\"p99_ms\": 200}}]}\n";
    test_write(test_path("%s/hostile.json", tmp), scenario);
    assert_int_equal(test_sh("cd '%s' && '%s' run hostile.json --report '%s/hostile' > out.txt 2> err.txt",
                             tmp, FS_BINARY, tmp),
                     0);
    char *html = test_slurp("%s/hostile/index.html", tmp), *md = test_slurp("%s/hostile/report.md", tmp);
    assert_non_null(html);
    assert_non_null(md);
    /* Nothing ran. */
    assert_false(test_nonempty("%s/PWNED", tmp) || test_nonempty("%s/hostile/PWNED", tmp));
    assert_false(test_nonempty("%s/PWNED2", tmp) || test_nonempty("%s/hostile/PWNED2", tmp));
    assert_false(test_nonempty("%s/PWNED3", tmp) || test_nonempty("%s/hostile/PWNED3", tmp));
    /* Escaped: the only <script> is the page's own checker, and no name's
     * markup survives. */
    assert_non_null(strstr(html, "&lt;script&gt;alert(1)&lt;/script&gt;"));
    const char *first = strstr(html, "<script>"), *last = first;
    for (const char *p = first; p && (p = strstr(p + 1, "<script>")) != NULL;)
        last = p;
    assert_ptr_equal(first, last);
    assert_null(strstr(html, "<img src=x"));
    assert_null(strstr(html, "<b>p</b>"));
    assert_non_null(strstr(html, "&lt;b&gt;p&lt;/b&gt;"));
    /* Markdown: pipes escaped, so table rows keep their columns. */
    assert_null(strstr(md, "<script>"));
    assert_non_null(strstr(md, "\\|"));
    free(html);
    free(md);
}

/* Chromium: loads the page with no console errors, and every chart image
 * has a natural width (the page's checker writes data-charts-loaded). */
/* Without gnuplot: the report is still written, with every chart's data and
 * script, no images, and the page says how to render them. */
static void test_without_gnuplot(void **state)
{
    (void)state;
    make_report("mt");
    assert_int_equal(test_sh("mkdir -p '%s/empty-path' && PATH='%s/empty-path' '%s' report '%s/mt' --out '%s/nognu'"
                             " > '%s/out.txt' 2> '%s/err.txt'",
                             tmp, tmp, FS_BINARY, tmp, tmp, tmp, tmp),
                     0);
    char *html = test_slurp("%s/nognu/index.html", tmp), *md = test_slurp("%s/nognu/report.md", tmp);
    assert_non_null(html);
    assert_non_null(md);
    assert_non_null(strstr(html, "gnuplot was not found or failed"));
    assert_non_null(strstr(html, "<code>gnuplot p99_by_hour.gp"));
    assert_non_null(strstr(md, "gnuplot was not found or failed"));
    assert_true(test_nonempty("%s/nognu/p99_by_hour.gp", tmp));
    assert_true(test_nonempty("%s/nognu/p99_by_hour.csv", tmp));
    assert_false(test_exists("%s/nognu/p99_by_hour.png", tmp));
    free(html);
    free(md);
}

static void test_in_browser(void **state)
{
    (void)state;
    const char *browser = test_sh("command -v chromium > /dev/null 2>&1") == 0 ? "chromium" : NULL;
    if (!browser) {
        const char *ci = getenv("CI");
        if (ci && strcmp(ci, "true") == 0)
            fail_msg("chromium is not installed, and CI must run the browser test (.ci/install-deps --test)");
        printf("  SKIPPED: chromium is not installed (bash .ci/install-deps --test installs it)\n");
        skip();
    }
    make_report("mt");
    const char *flags = "--headless=new --no-sandbox --disable-gpu --disable-dev-shm-usage "
                        "--allow-file-access-from-files --enable-logging=stderr --v=0 "
                        "--virtual-time-budget=10000";
    int rc = test_sh("%s %s --dump-dom 'file://%s/mt/index.html' > '%s/dom.html' 2> '%s/browser.log'",
                     browser, flags, tmp, tmp, tmp);
    assert_int_equal(rc, 0);
    char *dom = test_slurp("%s/dom.html", tmp), *log = test_slurp("%s/browser.log", tmp);
    assert_non_null(dom);
    assert_non_null(log);
    const char *mark = strstr(dom, "data-charts-loaded=\"");
    assert_non_null(mark);
    int loaded = -1, total = -1;
    assert_int_equal(sscanf(mark, "data-charts-loaded=\"%d/%d\"", &loaded, &total), 2);
    printf("  chromium: %d of %d chart images loaded\n", loaded, total);
    assert_true(total >= 4);
    assert_int_equal(loaded, total);
    /* Console messages appear in the log as CONSOLE(...) lines. */
    assert_null(strstr(log, "CONSOLE("));
    assert_null(strstr(log, "Uncaught"));
    /* A screenshot for a person to look at. */
    assert_int_equal(
        test_sh("%s %s --window-size=1100,2600 --screenshot='%s/mt/screenshot.png' 'file://%s/mt/index.html'"
                " > /dev/null 2>&1",
                browser, flags, tmp, tmp),
        0);
    assert_true(test_nonempty("%s/mt/screenshot.png", tmp));
    if (getenv("FLEETSIM_KEEP_SCREENSHOT"))
        test_sh("cp '%s/mt/screenshot.png' '%s'", tmp, getenv("FLEETSIM_KEEP_SCREENSHOT"));
    free(dom);
    free(log);
}

static int setup(void **state)
{
    (void)state;
    return test_tmpdir(tmp, sizeof tmp, "fleetsim-report");
}

static int teardown(void **state)
{
    (void)state;
    return test_rmdir(tmp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_report_files),
        cmocka_unit_test(test_hostile_names),
        cmocka_unit_test(test_without_gnuplot),
        cmocka_unit_test(test_in_browser),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

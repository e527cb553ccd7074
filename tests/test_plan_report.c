/*
 * The report of a plan directory (reports/review/plan_report.c), written by the
 * binary (`fleetsim report DIR`) from plan.json files made here by hand, so
 * no simulation runs: the answer, the counts, the frontier and refused
 * points on both pages; a hostile label escaped in HTML and Markdown and
 * quoted in the chart's gnuplot script; the page when nothing meets; a
 * missing gnuplot; malformed plan.json refused with exit 2 naming the file.
 */
#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "report.h"
#include "testutil.h"

static char tmp[256];

/* A label that tries to break out of HTML, Markdown and gnuplot: quotes,
 * a backquote command, a newline, a tag and Markdown's table and emphasis
 * characters; 47 bytes, so the chart shows it whole (its cut is 48). */
#define HOSTILE_LABEL "a'b\"c`touch PWNED`\n<script>alert(1)</script>|*_"

#define P99_TEXT "service:chat.p99<=600ms"
#define HEADROOM_TEXT "fleet.peak_headroom>=0.1"

static json_t *fig(double value, double ci95)
{
    return json_pack("{s:f,s:f}", "value", value, "ci95", ci95);
}

/* A judged point: its cost, its p99 (the frontier figure and the first
 * constraint's) and its headroom (the second constraint's). */
static json_t *point(int id, const char *label, const char *verdict, double cost, double p99, double p99_ci)
{
    return json_pack("{s:i,s:s,s:{s:i},s:i,s:s,s:o,s:o,s:{s:o,s:o}}", "point", id, "label", label, "values",
                     "gpus", 2 * id + 2, "replications", 3, "verdict", verdict, "objective", fig(cost, 0),
                     "frontier", fig(p99, p99_ci), "constraints", P99_TEXT, fig(p99, p99_ci), HEADROOM_TEXT,
                     fig(0.3, 0.01));
}

/* Writes DIR/plan.json: five points over gpus = 2..10 of a 12-point grid.
 * Point 0 fails by far (p99 250 s, so the chart's axis is logarithmic),
 * 1 is unsure, 2 (labelled answer_label) and 3 meet, 4 was refused.  With
 * answer false nothing meets: points 2 and 3 fail at 900 ms, 1 stays unsure,
 * and 0 fails at 950 ms, a spread the chart draws on a linear axis. */
static void write_plan(const char *dir, const char *scenario, const char *answer_label, bool answer)
{
    assert_int_equal(test_sh("mkdir -p '%s'", dir), 0);
    json_t *evaluated = json_array();
    json_array_append_new(evaluated, point(0, "gpus=2", "fails", 20, answer ? 250000 : 950, 100));
    json_array_append_new(evaluated, point(1, "gpus=4", "unsure", 40, 610, 30));
    json_array_append_new(evaluated, point(2, answer_label, answer ? "meets" : "fails", 60, answer ? 480 : 905, 6));
    json_array_append_new(evaluated, point(3, "gpus=8", answer ? "meets" : "fails", 80, answer ? 470 : 900, 5));
    json_array_append_new(evaluated, json_pack("{s:i,s:s,s:{s:i},s:i,s:s,s:s}", "point", 4, "label", "gpus=1",
                                               "values", "gpus", 1, "replications", 0, "verdict", "fails",
                                               "refused", "replicas of chat fit on no pool"));
    json_t *doc = json_pack(
        "{s:s,s:s,s:s,s:[{s:s,s:[i,i,i,i,i],s:b}],s:[{s:s,s:s,s:s,s:f},{s:s,s:s,s:s,s:f}],s:s,s:s,s:s,s:i,s:i,"
        "s:{s:i,s:i,s:i,s:i},s:o,s:[i,i,i,i]}",
        "schema", "fleetsim-plan/1", "scenario", scenario, "fingerprint", "0123456789abcdef", "dimensions",
        "path", "policies.shared.pools[0].gpus", "values", 2, 4, 6, 8, 10, "monotone", 1, "constraints", "text",
        P99_TEXT, "figure", "service:chat.p99_ms", "op", "<=", "limit", 600.0, "text", HEADROOM_TEXT, "figure",
        "fleet.peak_headroom", "op", ">=", "limit", 0.1, "minimize", "fleet.cost_usd", "frontier_figure",
        "service:chat.p99_ms", "search", "staircase", "replications", 3, "max_replications", 12, "counts",
        "points_evaluated", 5, "grid_points", 12, "simulations", 17, "grid_simulations", 36, "evaluated",
        evaluated, "frontier", 0, 1, 2, 3);
    assert_non_null(doc);
    json_object_set_new(doc, "answer", answer ? json_deep_copy(json_array_get(evaluated, 2)) : json_null());
    assert_int_equal(json_dump_file(doc, test_path("%s/plan.json", dir), JSON_INDENT(1)), 0);
    json_decref(doc);
}

static bool gnuplot_installed(void)
{
    return test_sh("command -v gnuplot > /dev/null 2>&1") == 0;
}

/* The rows of the first table after heading `after` in page (a "<tr>" each). */
static int rows_after(const char *page, const char *after)
{
    const char *p = strstr(page, after);
    assert_non_null(p);
    const char *end = strstr(p, "</table>");
    assert_non_null(end);
    int rows = 0;
    while ((p = strstr(p, "<tr>")) != NULL && p < end)
        rows++, p++;
    return rows - 1; /* the header */
}

/* The chart's files; with gnuplot, a PNG and an SVG, and a log without a
 * script error. */
static void check_chart(const char *dir)
{
    assert_true(test_nonempty("%s/plan_frontier.csv", dir));
    assert_true(test_nonempty("%s/plan_frontier.gp", dir));
    if (!gnuplot_installed()) {
        assert_false(test_exists("%s/plan_frontier.png", dir));
        return;
    }
    char *png = test_slurp("%s/plan_frontier.png", dir);
    assert_non_null(png);
    assert_memory_equal(png, "\x89PNG\r\n\x1a\n", 8);
    free(png);
    assert_true(test_nonempty("%s/plan_frontier.svg", dir));
    char *log = test_slurp("%s/plan_frontier.log", dir);
    assert_non_null(log);
    if (strstr(log, ".gp\" line "))
        fail_msg("gnuplot: %s", log);
    free(log);
}

static void test_answer(void **state)
{
    (void)state;
    const char *dir = test_path("%s/plan", tmp);
    write_plan(dir, "scenarios/chat.json", "gpus=6", true);
    assert_int_equal(test_fleetsim(tmp, "report '%s'", dir), 0); /* default: DIR/report */
    char *html = test_slurp("%s/plan/report/index.html", tmp), *md = test_slurp("%s/plan/report/report.md", tmp);
    assert_non_null(html);
    assert_non_null(md);
    assert_non_null(strstr(html, "<h1>Capacity plan: scenarios/chat.json</h1>"));
    /* The question. */
    assert_non_null(strstr(html, "Minimize <code>fleet.cost_usd</code>"));
    assert_non_null(strstr(html, "<code>service:chat.p99&lt;=600ms</code>: service:chat.p99_ms &lt;= 600"));
    /* The answer, its cost and each constraint against its limit. */
    assert_non_null(strstr(html, "is point 2, <b>gpus=6</b>: fleet.cost_usd = 60 ±0"));
    assert_non_null(strstr(md, "is point 2, **gpus=6**: fleet.cost\\_usd = 60 ±0"));
    assert_non_null(strstr(html, "<td>service:chat.p99&lt;=600ms</td><td>service:chat.p99_ms</td><td>480 ±6</td>"
                                 "<td>&lt;= 600</td>"));
    assert_non_null(strstr(html, "<td>fleet.peak_headroom&gt;=0.1</td><td>fleet.peak_headroom</td><td>0.3 ±0.01</td>"
                                 "<td>&gt;= 0.1</td>"));
    /* The counts. */
    const char *counts = "judged 5 of 12 points with 17 simulations (the full grid at 3 replications: 36)";
    assert_non_null(strstr(html, counts));
    assert_non_null(strstr(md, counts));
    /* The frontier: four points, cheapest first, the answer marked; the
     * table of every point lists the refused one as refused. */
    assert_int_equal(rows_after(html, "<h2>Frontier</h2>"), 4);
    assert_int_equal(rows_after(html, "<h2>Points judged</h2>"), 5);
    const char *f0 = strstr(html, "<td>gpus=2</td>"), *f3 = strstr(html, "<td>gpus=8</td>");
    assert_true(f0 && f3 && f0 < f3);
    assert_non_null(strstr(html, "<td>meets (the answer)</td>"));
    assert_non_null(strstr(html, "<td>refused: replicas of chat fit on no pool</td>"));
    assert_non_null(strstr(md, "| 4 | gpus=1 | refused: replicas of chat fit on no pool | 0 |"));
    /* The chart: log scale (250 s next to 470 ms), the limit, the answer. */
    assert_non_null(strstr(html, "<img class=\"chart\" src=\"plan_frontier.png\""));
    assert_non_null(strstr(md, "](plan_frontier.png)"));
    check_chart(test_path("%s/plan/report", tmp));
    char *gp = test_slurp("%s/plan/report/plan_frontier.gp", tmp);
    assert_non_null(gp);
    assert_non_null(strstr(gp, "set logscale y\n"));
    assert_non_null(strstr(gp, "600 with lines dt 2 lw 2 lc rgb '#d62728' title 'limit: " P99_TEXT "'"));
    assert_non_null(strstr(gp, "title 'answer: point 2, gpus=6' noenhanced"));
    assert_non_null(strstr(gp, "$front << EOD\n20 250000\n40 610\n60 480\n80 470\nEOD\n"));
    free(gp);
    /* Its data: every point but the refused one, the frontier and answer flagged. */
    char *csv = test_slurp("%s/plan/report/plan_frontier.csv", tmp);
    assert_non_null(csv);
    assert_non_null(strstr(csv, "point,label,verdict,\"fleet.cost_usd\",\"fleet.cost_usd_ci95\","));
    assert_non_null(strstr(csv, "\n2,\"gpus=6\",meets,60,0,480,6,1,1\n"));
    assert_non_null(strstr(csv, "\n1,\"gpus=4\",unsure,40,0,610,30,1,0\n"));
    assert_null(strstr(csv, "gpus=1"));
    free(csv);
    free(html);
    free(md);
}

static void test_hostile_label(void **state)
{
    (void)state;
    const char *dir = test_path("%s/hostile", tmp);
    write_plan(dir, "<b>scen</b> | `x`.json", HOSTILE_LABEL, true);
    assert_int_equal(test_fleetsim(tmp, "report '%s' --out '%s/hostile-report'", dir, tmp), 0);
    char *html = test_slurp("%s/hostile-report/index.html", tmp), *md = test_slurp("%s/hostile-report/report.md", tmp);
    assert_non_null(html);
    assert_non_null(md);
    /* HTML: the label is text; the only <script> is the page's checker. */
    const char *escaped = "a&#39;b&quot;c`touch PWNED` &lt;script&gt;alert(1)&lt;/script&gt;|*_";
    assert_non_null(strstr(html, escaped));
    const char *first = strstr(html, "<script>");
    assert_non_null(first);
    assert_null(strstr(first + 1, "<script>"));
    assert_null(strstr(html, "<b>scen</b>"));
    assert_non_null(strstr(html, "&lt;b&gt;scen&lt;/b&gt; | `x`.json"));
    /* Markdown: no tag, and | * _ escaped so the table keeps its columns. */
    assert_null(strstr(md, "<script>"));
    assert_non_null(
        strstr(md, "| 2 | a&#39;b&quot;c&#96;touch PWNED&#96; &lt;script&gt;alert(1)&lt;/script&gt;\\|\\*\\_ |"));
    /* gnuplot: the label in single-quoted pieces, its quote as sq, its
     * newline a space; the script ran without an error and ran nothing. */
    check_chart(test_path("%s/hostile-report", tmp));
    char *gp = test_slurp("%s/hostile-report/plan_frontier.gp", tmp);
    assert_non_null(gp);
    assert_non_null(
        strstr(gp, "title 'answer: point 2, a'.sq.'b\"c`touch PWNED` <script>alert(1)</script>|*_' noenhanced\n"));
    assert_non_null(
        strstr(gp, "set title '<b>scen</b> | `x`.json: the plan'.sq.'s points and frontier' noenhanced\n"));
    free(gp);
    assert_false(test_exists("%s/hostile-report/PWNED", tmp));
    assert_false(test_exists("%s/PWNED", tmp));
    assert_false(test_exists("%s/PWNED", FS_SOURCE_DIR));
    /* The chart's CSV keeps the label whole, newline and all. */
    char *csv = test_slurp("%s/hostile-report/plan_frontier.csv", tmp);
    assert_non_null(csv);
    assert_non_null(strstr(csv, "\n2,\"a'b\"\"c`touch PWNED`\n<script>alert(1)</script>|*_\",meets,"));
    free(csv);
    free(html);
    free(md);
}

static void test_no_answer(void **state)
{
    (void)state;
    const char *dir = test_path("%s/none", tmp);
    write_plan(dir, "chat.json", "gpus=6", false);
    assert_int_equal(test_fleetsim(tmp, "report '%s' --out '%s/none-report'", dir, tmp), 0);
    char *html = test_slurp("%s/none-report/index.html", tmp), *md = test_slurp("%s/none-report/report.md", tmp);
    assert_non_null(html);
    assert_non_null(md);
    const char *none = "No point meets every constraint";
    assert_non_null(strstr(html, none));
    assert_non_null(strstr(md, none));
    assert_non_null(strstr(html, "of the 5 points judged, 3 fail, 1 stayed unsure at up to 12 replications and 1 "
                                 "were refused."));
    assert_null(strstr(html, "cheapest point that meets"));
    assert_null(strstr(html, "(the answer)"));
    assert_non_null(strstr(html, "judged 5 of 12 points with 17 simulations"));
    check_chart(test_path("%s/none-report", tmp));
    /* No answer ring; 900 to 950 ms is drawn on a linear axis. */
    char *gp = test_slurp("%s/none-report/plan_frontier.gp", tmp);
    assert_non_null(gp);
    assert_null(strstr(gp, "$answer"));
    assert_null(strstr(gp, "answer:"));
    assert_null(strstr(gp, "logscale"));
    assert_non_null(strstr(gp, "title 'unsure: an interval straddles a limit'"));
    free(gp);
    free(html);
    free(md);
}

/* Without gnuplot the pages are written with the chart's data and script
 * and say how to render it. */
static void test_without_gnuplot(void **state)
{
    (void)state;
    const char *dir = test_path("%s/nognu", tmp);
    write_plan(dir, "chat.json", "gpus=6", true);
    assert_int_equal(test_sh("mkdir -p '%s/empty-path' && PATH='%s/empty-path' '%s' report '%s' --out '%s/nognu-report'"
                             " > '%s/out.txt' 2> '%s/err.txt'",
                             tmp, tmp, FS_BINARY, dir, tmp, tmp, tmp),
                     0);
    char *html = test_slurp("%s/nognu-report/index.html", tmp);
    assert_non_null(html);
    assert_non_null(strstr(html, "gnuplot was not found or failed"));
    assert_non_null(strstr(html, "<code>gnuplot plan_frontier.gp</code>"));
    assert_true(test_nonempty("%s/nognu-report/plan_frontier.gp", tmp));
    assert_false(test_exists("%s/nognu-report/plan_frontier.png", tmp));
    free(html);
}

/* The hostile page in a real browser (Debian's chromium, when installed; CI
 * runs it in test_report): no console error, so no escaped text became
 * script, and the chart image loads where gnuplot drew it. */
static void test_in_browser(void **state)
{
    (void)state;
    if (test_sh("command -v chromium > /dev/null 2>&1") != 0) {
        printf("  SKIPPED: chromium is not installed\n");
        skip();
    }
    if (!test_exists("%s/hostile-report/index.html", tmp))
        test_hostile_label(state);
    assert_int_equal(test_sh("chromium --headless=new --no-sandbox --disable-gpu --disable-dev-shm-usage"
                             " --allow-file-access-from-files --enable-logging=stderr --v=0 --virtual-time-budget=10000"
                             " --dump-dom 'file://%s/hostile-report/index.html' > '%s/dom.html' 2> '%s/browser.log'",
                             tmp, tmp, tmp),
                     0);
    char *dom = test_slurp("%s/dom.html", tmp), *log = test_slurp("%s/browser.log", tmp);
    assert_non_null(dom);
    assert_non_null(log);
    assert_non_null(strstr(dom, gnuplot_installed() ? "data-charts-loaded=\"1/1\"" : "data-charts-loaded=\"0/1\""));
    assert_non_null(strstr(dom, "&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert_null(strstr(log, "CONSOLE("));
    assert_null(strstr(log, "Uncaught"));
    free(dom);
    free(log);
}

/* A malformed plan.json: exit 2, the file named with what was expected,
 * and no report written. */
static void expect_refused(const char *name, const char *text, const char *want)
{
    const char *dir = test_path("%s/%s", tmp, name);
    assert_int_equal(test_sh("mkdir -p '%s'", dir), 0);
    test_write(test_path("%s/plan.json", dir), text);
    assert_int_equal(test_fleetsim(tmp, "report '%s'", dir), 2);
    char *err = test_slurp("%s/err.txt", tmp);
    assert_non_null(err);
    if (!strstr(err, want))
        fail_msg("expected \"%s\" in: %s", want, err);
    free(err);
    assert_false(test_exists("%s/report/index.html", dir));
}

static void test_malformed(void **state)
{
    (void)state;
    expect_refused("bad-json", "{\"schema\": \"fleetsim-plan/1\", \"evaluated\": [\n",
                   "bad-json/plan.json:2:");
    expect_refused("bad-schema", "{\"schema\": \"fleetsim-sweep/1\"}\n",
                   "bad-schema/plan.json: schema: expected \"fleetsim-plan/1\"");
    expect_refused("not-object", "[1, 2]\n", "not-object/plan.json: expected an object");

    /* A well-formed plan with one member wrong at a time. */
    const char *good = test_path("%s/good", tmp);
    write_plan(good, "chat.json", "gpus=6", true);
    char *text = test_slurp("%s/plan.json", good);
    assert_non_null(text);
    json_t *doc = json_loads(text, 0, NULL);
    assert_non_null(doc);
    free(text);
    static const struct {
        const char *name, *pointer, *want;
        int kind; /* 0: a string "maybe", 1: the integer 99, 2: remove the member */
    } cases[] = {
        {"bad-verdict", "evaluated.1.verdict", "evaluated[1].verdict: expected \"meets\", \"fails\" or \"unsure\"", 0},
        {"bad-frontier", "frontier.2", "frontier[2]: expected the number of a point in evaluated", 1},
        {"bad-answer", "answer.point", "answer.point: expected the number of a point in evaluated", 1},
        {"no-counts", "counts.simulations", "counts.simulations: expected an integer", 2},
        {"bad-limit", "constraints.0.limit", "constraints[0].limit: expected a number", 0},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        json_t *copy = json_deep_copy(doc);
        /* Walk the dotted pointer to the parent of its last member. */
        char path[64];
        snprintf(path, sizeof path, "%s", cases[c].pointer);
        json_t *parent = copy;
        char *key = path, *dot;
        while ((dot = strchr(key, '.')) != NULL) {
            *dot = '\0';
            parent = json_is_array(parent) ? json_array_get(parent, (size_t)atoi(key)) : json_object_get(parent, key);
            key = dot + 1;
        }
        json_t *value = cases[c].kind == 0 ? json_string("maybe") : json_integer(99);
        if (json_is_array(parent)) {
            assert_int_equal(json_array_set_new(parent, (size_t)atoi(key), value), 0);
        } else if (cases[c].kind == 2) {
            json_decref(value);
            assert_int_equal(json_object_del(parent, key), 0);
        } else {
            assert_int_equal(json_object_set_new(parent, key, value), 0);
        }
        char *bad = json_dumps(copy, 0);
        assert_non_null(bad);
        char want[256];
        snprintf(want, sizeof want, "%s/plan.json: %s", cases[c].name, cases[c].want);
        expect_refused(cases[c].name, bad, want);
        free(bad);
        json_decref(copy);
    }
    json_decref(doc);

    /* The library says the same with FS_ERR_INPUT. */
    fs_error err = {0};
    assert_int_equal(fs_report_write(test_path("%s/bad-verdict", tmp), test_path("%s/bad-verdict/r", tmp), &err),
                     FS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "bad-verdict/plan.json: evaluated[1].verdict"));

    /* Neither plan.json nor results.json: both named. */
    assert_int_equal(test_sh("mkdir -p '%s/empty'", tmp), 0);
    assert_int_equal(test_fleetsim(tmp, "report '%s/empty'", tmp), 2);
    char *msg = test_slurp("%s/err.txt", tmp);
    assert_non_null(msg);
    assert_non_null(strstr(msg, "empty: no results.json or plan.json"));
    free(msg);
}

static int setup(void **state)
{
    (void)state;
    return test_tmpdir(tmp, sizeof tmp, "fleetsim-plan-report");
}

static int teardown(void **state)
{
    (void)state;
    return test_rmdir(tmp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_answer),
        cmocka_unit_test(test_hostile_label),
        cmocka_unit_test(test_no_answer),
        cmocka_unit_test(test_without_gnuplot),
        cmocka_unit_test(test_in_browser),
        cmocka_unit_test(test_malformed),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

/*
 * test_check_ci — the regression gate's CI outputs: `fleetsim check --junit`
 * (JUnit XML, reports/tables/check_junit.h) and `--summary` (Markdown for a
 * pull request, reports/tables/check_summary.h).
 *
 * The XML is read back with libxml2, an independent parser: the structure
 * (testsuites > testsuite > testcase), the counts against the comparison's
 * rows, a failing metric's <failure> with both values and both CIs, and
 * hostile names (quotes, angle brackets, ampersands, "]]>", an escape
 * character) coming back as the same text.  The summary: WORSE rows before
 * better ones, the unchanged ones folded, hostile names inert.  Then both
 * through the built binary, with the usage errors and a planted symlink.
 * Expected texts are built from the figures the documents were made with.
 */
#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#ifdef FS_HAVE_LIBXML2
#include <libxml/parser.h>
#include <libxml/tree.h>
#endif

#include "check.h"
#include "check_junit.h"
#include "check_summary.h"
#include "testutil.h"

/* A hostile name for each place a name goes. */
static const char *const evil_policy = "p<1>&\"q\"'r'";
static const char *const evil_service = "]]></testcase><x a=\"|*_`@[l](j:a)\x1b]0;t\x07";

/* One policy, one service with p99 and its CI, a fleet with a cost. */
static json_t *doc(const char *policy, const char *service, double p99, double p99_ci, double cost)
{
    json_t *d = json_pack("{s:s, s:[{s:s, s:[{s:s, s:{s:f, s:f}, s:f}], s:{s:f, s:f}}]}", "schema",
                          "fleetsim-results/1", "policies", "name", policy, "services", "name", service,
                          "latency_ms", "p99", p99, "p99_ci95", p99_ci, "slo_breach_windows", 2.0, "fleet",
                          "cost_usd", cost, "utilization", 0.5);
    assert_non_null(d);
    return d;
}

/* What the writer gives on a memory stream. */
typedef int (*writer)(const fs_check_result *, const char *, const char *, FILE *, fs_error *);

static char *write_to_string(writer w, const fs_check_result *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    assert_non_null(fp);
    fs_error err = {0};
    assert_int_equal(w(r, "scen<a>.json", "base&.json", fp, &err), FS_OK);
    assert_int_equal(fclose(fp), 0);
    return buf;
}

/* base: p99 200 ms, cost 1000; current: p99 230 ms (+15%: worse), cost 900
 * (-10%: better), breaches and utilization the same. */
static void compare_docs(const char *policy, const char *service, fs_check_result *r)
{
    json_t *b = doc(policy, service, 200, 4, 1000), *c = doc(policy, service, 230, 6.5, 900);
    fs_check_tolerances tol;
    fs_check_tolerances_init(&tol);
    fs_error err = {0};
    assert_int_equal(fs_check_run(b, "base.json", c, &tol, r, &err), FS_OK);
    /* the rows borrow names from the documents: keep them alive */
    json_t *keep = json_pack("[o, o]", b, c);
    assert_non_null(keep);
    static json_t *kept;
    json_decref(kept);
    kept = keep;
    assert_int_equal(r->worse, 1);
    assert_int_equal(r->better, 1);
}

static void test_rows(void **state)
{
    (void)state;
    fs_check_result r;
    compare_docs("default", "chat", &r);
    /* 2 service figures (p99, breaches) + 2 fleet figures present */
    assert_int_equal(r.n_rows, 4);
    const fs_check_row *p99 = &r.rows[0];
    assert_string_equal(p99->metric, "p99");
    assert_int_equal(p99->outcome, FS_CHECK_WORSE);
    char want[64];
    snprintf(want, sizeof want, "%.1f ms", 230.0);
    assert_string_equal(p99->current, want);
    snprintf(want, sizeof want, "\u00b1%.1f ms", 4.0);
    assert_string_equal(p99->baseline_ci, want);
    /* breaches has no _ci95 in the documents: no CI, not a made-up one */
    assert_string_equal(r.rows[1].metric, "breaches");
    assert_string_equal(r.rows[1].baseline_ci, "");
    assert_int_equal(r.rows[1].outcome, FS_CHECK_SAME);
    fs_check_result_fini(&r);
}

#ifdef FS_HAVE_LIBXML2
static xmlDoc *parse_xml(const char *text)
{
    xmlDoc *x = xmlReadMemory(text, (int)strlen(text), "junit.xml", NULL, XML_PARSE_NONET);
    if (!x)
        fail_msg("not well-formed XML:\n%s", text);
    return x;
}

static xmlNode *child(xmlNode *n, const char *name, int index)
{
    for (xmlNode *c = n ? n->children : NULL; c; c = c->next)
        if (c->type == XML_ELEMENT_NODE && strcmp((const char *)c->name, name) == 0 && index-- == 0)
            return c;
    return NULL;
}

static int count(xmlNode *n, const char *name)
{
    int k = 0;
    while (child(n, name, k))
        k++;
    return k;
}

/* The attribute's value, as libxml2 unescaped it (compared, then freed). */
static void expect_attr(xmlNode *n, const char *attr, const char *want)
{
    xmlChar *v = xmlGetProp(n, (const xmlChar *)attr);
    assert_non_null(v);
    if (strcmp((const char *)v, want) != 0)
        fail_msg("%s=\"%s\", wanted \"%s\"", attr, (const char *)v, want);
    xmlFree(v);
}

static char *attr_text(xmlNode *n, const char *attr)
{
    xmlChar *v = xmlGetProp(n, (const xmlChar *)attr);
    assert_non_null(v);
    char *s = strdup((const char *)v);
    xmlFree(v);
    return s;
}

/* The JUnit document of one comparison: checked whole. */
static void check_junit(const char *xml, const fs_check_result *r, const char *policy, const char *service,
                        const char *suite)
{
    xmlDoc *x = parse_xml(xml);
    xmlNode *root = xmlDocGetRootElement(x);
    assert_string_equal((const char *)root->name, "testsuites");
    char n[32], f[32];
    snprintf(n, sizeof n, "%zu", r->n_rows);
    snprintf(f, sizeof f, "%zu", r->worse);
    expect_attr(root, "tests", n);
    expect_attr(root, "failures", f);
    assert_int_equal(count(root, "testsuite"), 1);
    xmlNode *ts = child(root, "testsuite", 0);
    expect_attr(ts, "name", suite);
    expect_attr(ts, "tests", n);
    expect_attr(ts, "failures", f);
    assert_int_equal(count(ts, "testcase"), (int)r->n_rows);
    int failures = 0;
    for (int i = 0; child(ts, "testcase", i); i++)
        failures += count(child(ts, "testcase", i), "failure");
    assert_int_equal(failures, (int)r->worse);

    /* the p99 case: the policy as class, kind, item and metric as name */
    xmlNode *tc = child(ts, "testcase", 0);
    expect_attr(tc, "classname", policy);
    char name[256];
    snprintf(name, sizeof name, "service %s p99", service);
    for (char *c = name; *c; c++) /* control characters travel as spaces */
        if ((unsigned char)*c < 0x20)
            *c = ' ';
    expect_attr(tc, "name", name);
    xmlNode *failure = child(tc, "failure", 0);
    assert_non_null(failure);
    char *message = attr_text(failure, "message");
    char want[128];
    snprintf(want, sizeof want, "baseline %.1f ms (CI \u00b1%.1f ms)", 200.0, 4.0);
    if (!strstr(message, want))
        fail_msg("message \"%s\" lacks \"%s\"", message, want);
    snprintf(want, sizeof want, "current %.1f ms (CI \u00b1%.1f ms)", 230.0, 6.5);
    if (!strstr(message, want))
        fail_msg("message \"%s\" lacks \"%s\"", message, want);
    assert_non_null(strstr(message, "WORSE (tolerance 5%)"));
    xmlChar *body = xmlNodeGetContent(failure);
    assert_string_equal((const char *)body, message);
    xmlFree(body);
    free(message);
    /* the breaches case passed: no failure */
    assert_null(child(child(ts, "testcase", 1), "failure", 0));
    xmlFreeDoc(x);
}
#endif

static void test_junit(void **state)
{
    (void)state;
#ifdef FS_HAVE_LIBXML2
    fs_check_result r;
    compare_docs("default", "chat", &r);
    char *xml = write_to_string(fs_check_junit_write, &r);
    check_junit(xml, &r, "default", "chat", "scen<a>.json");
    free(xml);
    fs_check_result_fini(&r);
#else
    if (getenv("CI"))
        fail_msg("libxml2 (libxml2-dev) was not found when this test was built; CI installs it");
    skip();
#endif
}

static void test_summary(void **state)
{
    (void)state;
    fs_check_result r;
    compare_docs("default", "chat", &r);
    char *md = write_to_string(fs_check_summary_write, &r);
    assert_non_null(strstr(md, "### fleetsim check: scen&lt;a&gt;.json: FAIL, 1 of 4 metrics worse\n"));
    assert_non_null(strstr(md, "Baseline: base&amp;.json. 1 worse, 1 better, 2 the same.\n"));
    char row[256];
    snprintf(row, sizeof row, "| default | service chat | p99 | %.1f ms \u00b1%.1f ms | %.1f ms \u00b1%.1f ms | +15.0%% |",
             200.0, 4.0, 230.0, 6.5);
    char *worse = strstr(md, row), *better = strstr(md, "| default | fleet | cost |"),
         *fold = strstr(md, "<details><summary>2 the same</summary>\n\n"), *same = strstr(md, "| breaches |");
    assert_non_null(worse);
    assert_non_null(better);
    assert_non_null(fold);
    assert_non_null(same);
    /* WORSE, then better, then the folded unchanged rows */
    assert_true(worse < better && better < fold && fold < same);
    free(md);
    fs_check_result_fini(&r);

    /* a pass says so */
    json_t *b = doc("default", "chat", 200, 4, 1000);
    fs_check_tolerances tol;
    fs_check_tolerances_init(&tol);
    fs_error err = {0};
    assert_int_equal(fs_check_run(b, "base.json", b, &tol, &r, &err), FS_OK);
    md = write_to_string(fs_check_summary_write, &r);
    assert_non_null(strstr(md, ": pass, none of 4 metrics worse\n"));
    assert_null(strstr(md, "\u274c"));
    free(md);
    fs_check_result_fini(&r);
    json_decref(b);
}

/* A name that tries to end the XML element and open one of its own, or a
 * Markdown cell, a link, an emphasis, a terminal title: in both forms it is
 * text, and the XML parser gives it back as it was (controls as spaces). */
static void test_hostile_names(void **state)
{
    (void)state;
    fs_check_result r;
    compare_docs(evil_policy, evil_service, &r);
    char *xml = write_to_string(fs_check_junit_write, &r), *md = write_to_string(fs_check_summary_write, &r);
    for (const char *text = xml; text; text = text == xml ? md : NULL) {
        assert_null(strstr(text, "<x "));
        assert_null(strstr(text, "]]></testcase>"));
        assert_null(strstr(text, "<1>"));
        assert_null(strchr(text, '\x1b'));
    }
#ifdef FS_HAVE_LIBXML2
    check_junit(xml, &r, evil_policy, evil_service, "scen<a>.json");
#endif
    assert_non_null(strstr(md, "| p&lt;1&gt;&amp;&quot;q&quot;&#39;r&#39; | service \\]\\]&gt;&lt;/testcase&gt;"));
    assert_non_null(strstr(md, "&lt;x a\\=&quot;\\|\\*\\_\\`\\@\\[l\\]\\(j\\:a\\) \\]0\\;t  | p99 |"));
    /* every table row still has its 9 cell borders: no name split a cell */
    for (const char *line = md; line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        if (strncmp(line, "| ", 2) != 0)
            continue;
        int bars = 0;
        for (const char *c = line; *c && *c != '\n'; c++)
            bars += *c == '|' && (c == line || c[-1] != '\\');
        assert_int_equal(bars, 9);
    }
    free(xml);
    free(md);
    fs_check_result_fini(&r);
}

/* ---- through the binary ------------------------------------------------- */

static char tmp[256];

/* Two hours of a small service, its "ci" block the same. */
#define GATE(MEAN)                                                                                           \
    "{\"schema\": \"fleetsim/1\", \"name\": \"gate\", \"horizon\": \"2h\", \"warmup\": \"10m\", \"seed\": 3,\n" \
    " \"pools\": [{\"name\": \"p\", \"gpu\": \"L4-24GB\", \"gpus\": 3}],\n"                                  \
    " \"services\": [{\"name\": \"api\", \"arrivals\": {\"poisson_rps\": 20},\n"                             \
    "   \"service_time\": {\"exponential\": {\"mean\": \"" MEAN "\"}}, \"replicas\": 3,\n"                 \
    "   \"slo\": {\"p99_ms\": 800}}]}\n"

static void test_end_to_end(void **state)
{
    (void)state;
    test_write(test_path("%s/gate.json", tmp), GATE("100ms"));
    test_write(test_path("%s/slower.json", tmp), GATE("130ms"));
    assert_int_equal(test_fleetsim(tmp, "check %s/gate.json --baseline %s/base.json --update", tmp, tmp), 0);

    /* an unchanged rerun: both files, no failure */
    assert_int_equal(test_fleetsim(tmp, "check %s/gate.json --baseline %s/base.json --junit %s/j.xml "
                                        "--summary %s/s.md", tmp, tmp, tmp, tmp), 0);
    char *xml = test_slurp("%s/j.xml", tmp), *md = test_slurp("%s/s.md", tmp);
    assert_non_null(xml);
    assert_non_null(md);
    assert_non_null(strstr(xml, " failures=\"0\""));
    assert_null(strstr(xml, "<failure"));
    assert_non_null(strstr(md, ": pass, none of "));
    free(xml);
    free(md);

    /* a slower service: exit 1, and the files say which metric and by how much */
    assert_int_equal(test_fleetsim(tmp, "check %s/slower.json --baseline %s/base.json --junit %s/j.xml "
                                        "--summary %s/s.md", tmp, tmp, tmp, tmp), 1);
    xml = test_slurp("%s/j.xml", tmp);
    md = test_slurp("%s/s.md", tmp);
    char want[512];
    snprintf(want, sizeof want, "<testsuite name=\"%s/slower.json\"", tmp);
    assert_non_null(strstr(xml, want));
    assert_non_null(strstr(xml, "<testcase classname=\"default\" name=\"service api p99\">\n   <failure "));
    assert_non_null(strstr(md, ": FAIL, "));
    assert_non_null(strstr(md, "| default | service api | p99 |"));
#ifdef FS_HAVE_LIBXML2
    xmlFreeDoc(parse_xml(xml));
#endif
    free(xml);
    free(md);

    /* a symlink planted where the file goes is replaced, not written through */
    test_write(test_path("%s/target.txt", tmp), "keep\n");
    assert_int_equal(symlink(test_path("%s/target.txt", tmp), test_path("%s/link.xml", tmp)), 0);
    test_fleetsim(tmp, "check %s/gate.json --baseline %s/base.json --junit %s/link.xml", tmp, tmp, tmp);
    char *kept = test_slurp("%s/target.txt", tmp);
    assert_string_equal(kept, "keep\n");
    free(kept);
    struct stat st;
    assert_int_equal(lstat(test_path("%s/link.xml", tmp), &st), 0);
    assert_true(S_ISREG(st.st_mode));
}

static void test_usage_errors(void **state)
{
    (void)state;
    test_write(test_path("%s/gate.json", tmp), GATE("100ms"));
    static const struct {
        const char *args, *message;
    } cases[] = {
        {"--junit ''", "--junit: expected a file name, got an empty one"},
        {"--summary ''", "--summary: expected a file name, got an empty one"},
        {"--junit DIR/", "--junit: expected a file, got the directory"},
        {"--update --junit DIR/j.xml", "--junit reports a comparison, and --update makes none"},
        {"--update --summary DIR/s.md", "--summary reports a comparison, and --update makes none"},
        {"--junit DIR/base.json", "--junit names a file another option also names"},
        {"--junit DIR/x --summary DIR/x", "--summary names a file another option also names"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char args[512];
        /* DIR stands for the temporary directory */
        size_t n = 0;
        for (const char *c = cases[i].args; *c && n + 300 < sizeof args;) {
            if (strncmp(c, "DIR", 3) == 0) {
                n += (size_t)snprintf(args + n, sizeof args - n, "%s", tmp);
                c += 3;
            } else {
                args[n++] = *c++;
            }
        }
        args[n] = '\0';
        assert_int_equal(test_fleetsim(tmp, "check %s/gate.json --baseline %s/base.json %s", tmp, tmp, args), 2);
        char *err = test_slurp("%s/err.txt", tmp);
        if (!strstr(err, cases[i].message))
            fail_msg("check ... %s: stderr \"%s\" lacks \"%s\"", args, err, cases[i].message);
        free(err);
        char *out = test_slurp("%s/out.txt", tmp);
        assert_string_equal(out, ""); /* refused before the run */
        free(out);
    }
    /* help lists both */
    assert_int_equal(test_fleetsim(tmp, "check --help"), 0);
    char *out = test_slurp("%s/out.txt", tmp);
    assert_non_null(strstr(out, "--junit FILE"));
    assert_non_null(strstr(out, "--summary FILE"));
    free(out);
}

static int setup(void **state)
{
    (void)state;
    return test_tmpdir(tmp, sizeof tmp, "fleetsim-check-ci");
}

static int teardown(void **state)
{
    (void)state;
    return test_rmdir(tmp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows),
        cmocka_unit_test(test_junit),
        cmocka_unit_test(test_summary),
        cmocka_unit_test(test_hostile_names),
        cmocka_unit_test(test_end_to_end),
        cmocka_unit_test(test_usage_errors),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

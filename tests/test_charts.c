/*
 * The charts of a results directory (reports/charts/charts.c): the expected charts
 * and their data on the morning tail; hostile names that stay data in every
 * script gnuplot runs; a missing gnuplot; malformed input.  Results come from
 * running the built binary (FS_BINARY) into a temporary directory.
 */
#include <dirent.h>
#include <jansson.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "charts.h"
#include "testutil.h"

static char tmp[256];

static int starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

static long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

/* Whether an executable gnuplot is on PATH: decided apart from the module, so
 * a module that wrongly reports "not found" still fails the test. */
static int gnuplot_on_path(void)
{
    const char *path = getenv("PATH");
    if (!path)
        return 0;
    char *copy = strdup(path);
    int found = 0;
    for (char *save = NULL, *dir = strtok_r(copy, ":", &save); dir && !found;
         dir = strtok_r(NULL, ":", &save)) {
        char exe[1024];
        snprintf(exe, sizeof exe, "%s/gnuplot", *dir ? dir : ".");
        found = access(exe, X_OK) == 0;
    }
    free(copy);
    return found;
}

static const fs_chart *find_chart(const fs_chart_set *set, const char *stem)
{
    for (size_t i = 0; i < set->n; i++)
        if (strcmp(set->charts[i].stem, stem) == 0)
            return &set->charts[i];
    return NULL;
}

/* Every chart of the set has its .csv and .gp, a title and a caption; with
 * gnuplot, a PNG (with the PNG signature) and an SVG. */
static void check_files(const char *dir, const fs_chart_set *set, int rendered)
{
    static const unsigned char png_sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    char path[1024];
    assert_true(set->n > 0 && set->n <= FS_CHARTS_MAX);
    assert_non_null(set->render_hint);
    for (size_t i = 0; i < set->n; i++) {
        const fs_chart *ch = &set->charts[i];
        assert_true(ch->title && *ch->title && !strchr(ch->title, '\n'));
        assert_true(ch->caption && strlen(ch->caption) > 40);
        snprintf(path, sizeof path, "%s.gp", ch->stem);
        assert_non_null(strstr(set->render_hint, path));
        snprintf(path, sizeof path, "%s/%s.csv", dir, ch->stem);
        assert_true(file_size(path) > 0);
        snprintf(path, sizeof path, "%s/%s.gp", dir, ch->stem);
        assert_true(file_size(path) > 0);
        snprintf(path, sizeof path, "%s/%s.png", dir, ch->stem);
        if (!rendered) {
            assert_false(ch->rendered);
            assert_true(file_size(path) < 0);
            continue;
        }
        assert_true(ch->rendered);
        assert_true(file_size(path) > 1000);
        FILE *f = fopen(path, "rb");
        assert_non_null(f);
        unsigned char sig[8];
        assert_int_equal(fread(sig, 1, 8, f), 8);
        fclose(f);
        assert_memory_equal(sig, png_sig, 8);
        char *svg = test_slurp("%s/%s.svg", dir, ch->stem);
        assert_non_null(svg);
        assert_non_null(strstr(svg, "<svg"));
        free(svg);
    }
    assert_int_equal(set->gnuplot_found, rendered);
    assert_int_equal(set->gnuplot_ran, rendered);
}

/* ------------------------------------------------------- morning tail */

static void test_morning_tail_charts(void **state)
{
    (void)state;
    fs_chart_set set = {0};
    fs_error err = {0};
    int rc = fs_charts_write(test_path("%s/mt", tmp), test_path("%s/mt-charts", tmp), &set, &err);
    if (rc)
        fail_msg("%s", err.msg);
    const char *expected[] = {"p99_by_hour", "cost_by_pool", "utilization", "queue_wait_cdf",
                              "breach_heatmap_1", "breach_heatmap_2"};
    assert_int_equal(set.n, 6);
    for (size_t i = 0; i < 6; i++)
        assert_string_equal(set.charts[i].stem, expected[i]);
    check_files(test_path("%s/mt-charts", tmp), &set, gnuplot_on_path());
    assert_non_null(strstr(find_chart(&set, "p99_by_hour")->title, "chat"));
    assert_non_null(strstr(find_chart(&set, "breach_heatmap_2")->title, "partitioned"));
    fs_charts_free(&set);
    assert_int_equal(set.n, 0);

    /* p99 by hour: one column per policy, then the SLO target. */
    char *csv = test_slurp("%s/mt-charts/p99_by_hour.csv", tmp);
    assert_non_null(csv);
    assert_true(starts_with(csv, "time_of_day,hour,\"shared\",\"partitioned\",slo_p99_ms\n"));
    double shared_tail = 0, part_tail = 0, shared_night = 0;
    int n_tail = 0, n_night = 0, rows = 0;
    for (char *line = strchr(csv, '\n') + 1; *line; line = strchr(line, '\n') + 1) {
        int hh, mm;
        double hour, shared, part, slo;
        assert_int_equal(sscanf(line, "%d:%d,%lf,%lf,%lf,%lf", &hh, &mm, &hour, &shared, &part, &slo), 6);
        assert_true(fabs(hour - (hh + mm / 60.0)) < 1e-9);
        assert_true(shared > 50 && shared < 5000 && part > 50 && part < 5000);
        assert_true(slo == 400);
        if (hour >= 10 && hour < 11.5) { /* the morning tail: 10:00-11:30 */
            shared_tail += shared;
            part_tail += part;
            n_tail++;
        } else if (hour < 6) {
            shared_night += shared;
            n_night++;
        }
        rows++;
    }
    free(csv);
    assert_int_equal(rows, 96); /* quarter-hour bins */
    assert_int_equal(n_tail, 6);
    shared_tail /= n_tail;
    part_tail /= n_tail;
    shared_night /= n_night;
    printf("  p99 10:00-11:30: shared %.1f ms, partitioned %.1f ms; shared at night %.1f ms\n",
           shared_tail, part_tail, shared_night);
    assert_true(shared_tail > 400 && shared_tail > 1.5 * part_tail);
    assert_true(part_tail < 400);
    assert_true(shared_night < 400);

    /* Cost by pool: the rows add up to each policy's fleet cost. */
    json_error_t je;
    json_t *results = json_load_file(test_path("%s/mt/results.json", tmp), 0, &je);
    assert_non_null(results);
    csv = test_slurp("%s/mt-charts/cost_by_pool.csv", tmp);
    assert_non_null(csv);
    assert_true(starts_with(csv, "policy,pool,price_class,cost_usd\n"));
    for (size_t p = 0; p < 2; p++) {
        json_t *pol = json_array_get(json_object_get(results, "policies"), p);
        const char *name = json_string_value(json_object_get(pol, "name"));
        double fleet = json_number_value(json_object_get(json_object_get(pol, "fleet"), "cost_usd"));
        char prefix[64];
        snprintf(prefix, sizeof prefix, "\"%s\",", name);
        double sum = 0;
        for (char *line = csv; *line; line = strchr(line, '\n') + 1) {
            char *end = strchr(line, '\n'), *last = end;
            while (last > line && last[-1] != ',')
                last--;
            if (starts_with(line, prefix))
                sum += strtod(last, NULL); /* cost_usd is the last field */
        }
        assert_true(fleet > 0 && fabs(sum - fleet) < 0.01);
    }
    free(csv);
    json_decref(results);

    /* Breaches: shared breaches in the morning, on both days. */
    csv = test_slurp("%s/mt-charts/breach_heatmap_1.csv", tmp);
    assert_non_null(csv);
    assert_non_null(strstr(csv, "\"shared\",2,10,"));
    assert_null(strstr(csv, "\"shared\",2,10,0\n"));
    assert_non_null(strstr(csv, "\"shared\",3,10,"));
    assert_non_null(strstr(csv, "\"shared\",2,3,0\n"));
    free(csv);
}

/* ------------------------------------------------------ hostile names */

/* Names as JSON text: a quote, a double quote, backquotes, system(), a
 * newline, a carriage return and a tab, HTML, gnuplot's enhanced-text
 * characters and a comma.  Policy names stay under 64 characters. */
#define DQ "\\\""
#define HOSTILE "a'b" DQ "c`d system(" DQ "touch PWNED" DQ ") `touch PWNED2` x\\ny <script>alert(1)</script> @^_{} ,z"
#define POLICY_1 "'" DQ "`touch PWNED2`\\n@^_{},system(" DQ "touch PWNED" DQ ") 1"
#define POLICY_2 "<script>alert(1)</script>''" DQ "\\r\\t,`touch PWNED2` 2"

static const char *hostile_scenario =
    "{\"schema\": \"fleetsim/1\", \"name\": \"" HOSTILE " scenario\","
    " \"horizon\": \"1d\", \"warmup\": \"1h\", \"window\": \"15m\","
    " \"policies\": {"
    "   \"" POLICY_1 "\": {\"kind\": \"shared\", \"pools\": ["
    "     {\"name\": \"" HOSTILE " pool\", \"gpu\": \"L4-24GB\", \"gpus\": 6}]},"
    "   \"" POLICY_2 "\": {\"kind\": \"shared\", \"pools\": ["
    "     {\"name\": \"" HOSTILE " pool\", \"gpu\": \"L4-24GB\", \"gpus\": 4},"
    "     {\"name\": \"'" HOSTILE " spot\", \"gpu\": \"L4-24GB\", \"gpus\": 1, \"price\": \"spot\"}]}},"
    " \"services\": [{\"name\": \"" HOSTILE " svc\", \"tenant\": \"" HOSTILE " tenant\","
    "   \"pool\": \"" HOSTILE " pool\","
    "   \"arrivals\": {\"poisson_rps\": 30, \"diurnal\": [0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2,"
    "     1, 1, 1, 1, 1, 1, 1, 1, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5]},"
    "   \"service_time\": {\"exponential\": {\"mean\": \"100ms\"}}, \"replicas\": 4,"
    "   \"slo\": {\"p99_ms\": 300}}],"
    " \"training\": [{\"name\": \"" HOSTILE " train\", \"tenant\": \"" HOSTILE " tenant\","
    "   \"submit\": {\"at\": [\"2h\", \"3h\", \"4h\"]}, \"gang\": 1, \"work_gpu_hours\": 1}]}\n";

/* NULL if text is a safe gnuplot script, else what is wrong: outside
 * single-quoted strings there is no backquote and no "system(", and no
 * single-quoted string runs past the end of its line. */
static const char *gp_unsafe(const char *text)
{
    int quoted = 0;
    for (const char *p = text; *p; p++) {
        if (*p == '\'') {
            quoted = !quoted;
        } else if (quoted) {
            if (*p == '\n')
                return "a single-quoted string spans a line";
        } else if (*p == '`') {
            return "a backquote outside single quotes";
        } else if (strncmp(p, "system(", 7) == 0) {
            return "system( outside single quotes";
        }
    }
    if (quoted)
        return "an unterminated single-quoted string";
    /* Every line that sets text or a terminal says noenhanced, so ^ _ @ { }
     * in a name are drawn as they are. */
    for (const char *line = text; *line;) {
        const char *end = strchr(line, '\n');
        size_t n = end ? (size_t)(end - line) : strlen(line);
        char buf[4096];
        snprintf(buf, sizeof buf, "%.*s", (int)(n < sizeof buf ? n : sizeof buf - 1), line);
        if ((strstr(buf, "title '") || strstr(buf, "label '") || strstr(buf, "set xtics (") ||
             strncmp(buf, "set terminal", 12) == 0) &&
            !strstr(buf, "noenhanced"))
            return "text without noenhanced";
        line += n + (end != NULL);
    }
    return NULL;
}

static void test_gp_scanner_catches_commands(void **state)
{
    (void)state;
    assert_null(gp_unsafe("set title 'a `b` system(1)' noenhanced\nplot x title 'q'.sq.'r' noenhanced\n"));
    assert_non_null(gp_unsafe("set title `touch x`\n"));
    assert_non_null(gp_unsafe("set title 'a'.system('touch x')\n"));
    assert_non_null(gp_unsafe("set title 'a\nb'\n"));
    assert_non_null(gp_unsafe("set title 'a''`x`\n"));
    assert_non_null(gp_unsafe("set title 'a_b'\n"));
    assert_null(gp_unsafe("set title 'a_b' noenhanced\n"));
}

/* Whether a file named PWNED* exists under dir (recursively). */
static int pwned_under(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int found = 0;
    struct dirent *e;
    while (!found && (e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (strncmp(e->d_name, "PWNED", 5) == 0) {
            found = 1;
            break;
        }
        char sub[2048];
        struct stat st;
        snprintf(sub, sizeof sub, "%s/%s", dir, e->d_name);
        if (lstat(sub, &st) == 0 && S_ISDIR(st.st_mode))
            found = pwned_under(sub);
    }
    closedir(d);
    return found;
}

static void test_hostile_names_stay_data(void **state)
{
    (void)state;
    test_write(test_path("%s/hostile.json", tmp), hostile_scenario);
    if (test_fleetsim(tmp, "run '%s' --out '%s'", test_path("%s/hostile.json", tmp),
                      test_path("%s/hostile", tmp)) != 0) {
        char *e = test_slurp("%s/err.txt", tmp);
        fail_msg("fleetsim run failed: %s", e ? e : "?");
    }
    fs_chart_set set = {0};
    fs_error err = {0};
    int rc = fs_charts_write(test_path("%s/hostile", tmp), test_path("%s/hostile-charts", tmp), &set, &err);
    if (rc)
        fail_msg("%s", err.msg);
    /* Every kind of chart, so every kind of label meets the names. */
    const char *expected[] = {"p99_by_hour", "cost_by_pool", "utilization", "queue_wait_cdf",
                              "breach_heatmap_1", "breach_heatmap_2"};
    assert_int_equal(set.n, 6);
    for (size_t i = 0; i < 6; i++)
        assert_string_equal(set.charts[i].stem, expected[i]);
    int rendered = gnuplot_on_path();
    check_files(test_path("%s/hostile-charts", tmp), &set, rendered);
    for (size_t i = 0; i < set.n; i++) {
        const fs_chart *ch = &set.charts[i];
        /* Plain text, control characters as spaces, nothing escaped. */
        assert_non_null(strstr(ch->title, "a'b\"c`d system(\"touch PWNED\")"));
        assert_null(strpbrk(ch->title, "\n\r\t"));
        char *gp = test_slurp("%s/hostile-charts/%s.gp", tmp, ch->stem);
        assert_non_null(gp);
        const char *why = gp_unsafe(gp);
        if (why)
            fail_msg("%s: %s", ch->stem, why);
        free(gp);
        if (rendered) { /* gnuplot read the whole script without an error or a warning */
            char *log = test_slurp("%s/hostile-charts/%s.log", tmp, ch->stem);
            assert_non_null(log);
            if (strstr(log, ".gp\" line "))
                fail_msg("%s: %s", ch->stem, log);
            free(log);
        }
    }
    assert_non_null(strstr(find_chart(&set, "breach_heatmap_2")->title, "<script>alert(1)</script>''\"  ,`"));
    fs_charts_free(&set);
    assert_false(pwned_under(tmp));
    assert_false(pwned_under("."));

    /* The CSVs keep the names whole, quoted by libcsv. */
    char *csv = test_slurp("%s/hostile-charts/p99_by_hour.csv", tmp);
    assert_non_null(csv);
    assert_non_null(strstr(csv, ",\"'\"\"`touch PWNED2`\n@^_{},system(\"\"touch PWNED\"\") 1\","));
    free(csv);
    csv = test_slurp("%s/hostile-charts/cost_by_pool.csv", tmp);
    assert_non_null(csv);
    assert_non_null(strstr(csv, " spot\",spot,"));
    free(csv);
    /* The spot pool is labelled as one. */
    char *gp = test_slurp("%s/hostile-charts/cost_by_pool.gp", tmp);
    assert_non_null(strstr(gp, "... (spot)' noenhanced")); /* cut at 28 bytes, then the class */
    free(gp);
}

/* ---------------------------------------------------- missing gnuplot */

static void test_missing_gnuplot(void **state)
{
    (void)state;
    char empty[512];
    snprintf(empty, sizeof empty, "%s/empty-path-XXXXXX", tmp);
    assert_non_null(mkdtemp(empty));
    const char *old = getenv("PATH");
    char *saved = old ? strdup(old) : NULL;
    setenv("PATH", empty, 1);
    fs_chart_set set = {0};
    fs_error err = {0};
    int rc = fs_charts_write(test_path("%s/mt", tmp), test_path("%s/mt-nognuplot", tmp), &set, &err);
    if (saved) {
        setenv("PATH", saved, 1);
        free(saved);
    } else {
        unsetenv("PATH");
    }
    if (rc)
        fail_msg("%s", err.msg);
    assert_int_equal(set.n, 6);
    check_files(test_path("%s/mt-nognuplot", tmp), &set, 0);
    assert_true(starts_with(set.render_hint, "gnuplot p99_by_hour.gp cost_by_pool.gp"));
    fs_charts_free(&set);
}

/* ---------------------------------------------------- malformed input */

static void copy_file(const char *from, const char *to)
{
    char *text = test_slurp("%s", from);
    assert_non_null(text);
    test_write(to, text);
    free(text);
}

static void test_malformed_input(void **state)
{
    (void)state;
    fs_chart_set set = {0};
    fs_error err = {0};
    char bad[512];
    snprintf(bad, sizeof bad, "%s/bad", tmp);
    mkdir(bad, 0777);

    /* No results.json. */
    assert_int_equal(fs_charts_write(bad, test_path("%s/bad-charts", tmp), &set, &err), FS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "bad/results.json: cannot read"));
    assert_int_equal(set.n, 0);

    /* Broken JSON: file:line:column. */
    test_write(test_path("%s/bad/results.json", tmp), "{\"scenario\": {\n  \"name\": oops}}\n");
    assert_int_equal(fs_charts_write(bad, test_path("%s/bad-charts", tmp), &set, &err), FS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "bad/results.json:2:"));

    /* Valid JSON, a missing field: its path. */
    test_write(test_path("%s/bad/results.json", tmp),
               "{\"scenario\": {\"horizon_s\": 10, \"warmup_s\": 0}}\n");
    assert_int_equal(fs_charts_write(bad, test_path("%s/bad-charts", tmp), &set, &err), FS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "results.json: scenario.window_s: expected a number"));

    /* Good results.json, a CSV without the columns it needs. */
    copy_file(test_path("%s/mt/results.json", tmp), test_path("%s/bad/results.json", tmp));
    copy_file(test_path("%s/mt/pools_timeseries.csv", tmp), test_path("%s/bad/pools_timeseries.csv", tmp));
    test_write(test_path("%s/bad/timeseries.csv", tmp),
               "policy,replication,service,when\n\"shared\",0,\"chat\",1\n");
    assert_int_equal(fs_charts_write(bad, test_path("%s/bad-charts", tmp), &set, &err), FS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "bad/timeseries.csv: row 1: no column \"window_start_s\""));

    /* A short row, an unknown policy, a number that is not one. */
    copy_file(test_path("%s/mt/timeseries.csv", tmp), test_path("%s/bad/timeseries.csv", tmp));
    FILE *f = fopen(test_path("%s/bad/timeseries.csv", tmp), "a");
    fputs("\"shared\",0,\"chat\",86400\n", f);
    fclose(f);
    assert_int_equal(fs_charts_write(bad, test_path("%s/bad-charts", tmp), &set, &err), FS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "bad/timeseries.csv: row 1154: expected 15 fields, found 4"));
    copy_file(test_path("%s/mt/timeseries.csv", tmp), test_path("%s/bad/timeseries.csv", tmp));
    test_write(test_path("%s/bad/pools_timeseries.csv", tmp),
               "policy,replication,pool,window_start_s,window_end_s,busy_gpus,utilization\n"
               "\"tiered\",0,\"serving\",86400,86700,1,0.5\n");
    assert_int_equal(fs_charts_write(bad, test_path("%s/bad-charts", tmp), &set, &err), FS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "bad/pools_timeseries.csv: row 2: policy \"tiered\" is not in results.json"));
    test_write(test_path("%s/bad/pools_timeseries.csv", tmp),
               "policy,replication,pool,window_start_s,window_end_s,busy_gpus,utilization\n"
               "\"shared\",0,\"serving\",86400,86700,lots,0.5\n");
    assert_int_equal(fs_charts_write(bad, test_path("%s/bad-charts", tmp), &set, &err), FS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "row 2: column \"busy_gpus\": expected a number, got \"lots\""));

    /* An output directory that cannot be made: a runtime error naming it. */
    copy_file(test_path("%s/mt/pools_timeseries.csv", tmp), test_path("%s/bad/pools_timeseries.csv", tmp));
    test_write(test_path("%s/a-file", tmp), "x");
    assert_int_equal(fs_charts_write(bad, test_path("%s/a-file/charts", tmp), &set, &err), FS_ERR_RUNTIME);
    assert_non_null(strstr(err.msg, "a-file/charts: cannot create directory"));
    assert_int_equal(set.n, 0);
    fs_charts_free(&set);
}

/* ------------------------------------------------------------- setup */

static int setup(void **state)
{
    (void)state;
    if (test_tmpdir(tmp, sizeof tmp, "fleetsim-charts") != 0)
        return -1;
    /* The morning tail as CI runs it: two policies, training, breaches. */
    int rc = test_sh("cd '%s' && '%s' compare scenarios/morning-tail.json --replications 1 --horizon 3d "
                     "--out '%s/mt' > /dev/null",
                     FS_SOURCE_DIR, FS_BINARY, tmp);
    return rc == 0 ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    return test_rmdir(tmp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_morning_tail_charts),
        cmocka_unit_test(test_gp_scanner_catches_commands),
        cmocka_unit_test(test_hostile_names_stay_data),
        cmocka_unit_test(test_missing_gnuplot),
        cmocka_unit_test(test_malformed_input),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

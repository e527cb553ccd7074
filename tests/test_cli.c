/*
 * The fleetsim command as a user meets it: exit statuses, help, outputs
 * written all-or-nothing, byte-identical reruns, and the shipped diurnal
 * scenario.  Runs the built binary (FS_BINARY) on files in a temporary
 * directory.
 */
#include <jansson.h>
#include <math.h>
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

static const char *small_scenario =
    "{\"schema\": \"fleetsim/1\", \"name\": \"small\", \"horizon\": \"2h\", \"warmup\": \"10m\","
    " \"replications\": 2,"
    " \"pools\": [{\"name\": \"p\", \"gpu\": \"L4-24GB\", \"gpus\": 3}],"
    " \"services\": [{\"name\": \"s\", \"arrivals\": {\"poisson_rps\": 20},"
    "   \"service_time\": {\"exponential\": {\"mean\": \"100ms\"}}, \"replicas\": 3,"
    "   \"slo\": {\"p99_ms\": 500}}]}\n";

static void test_help_and_version(void **state)
{
    (void)state;
    assert_int_equal(test_fleetsim(tmp, "--help"), 0);
    char *out = test_slurp("%s/out.txt", tmp);
    assert_non_null(strstr(out, "run SCENARIO"));
    free(out);
    assert_int_equal(test_fleetsim(tmp, "run --help"), 0);
    out = test_slurp("%s/out.txt", tmp);
    assert_non_null(strstr(out, "-r, --replications R"));
    assert_non_null(strstr(out, "--format FMT"));
    free(out);
    assert_int_equal(test_fleetsim(tmp, "validate --help"), 0);
    assert_int_equal(test_fleetsim(tmp, "--version"), 0);
    out = test_slurp("%s/out.txt", tmp);
    assert_non_null(strstr(out, "fleetsim " FLEETSIM_VERSION));
    free(out);
}

static void test_usage_errors_exit_2(void **state)
{
    (void)state;
    assert_int_equal(test_fleetsim(tmp, "%s", "") /* no arguments */, 2);
    assert_int_equal(test_fleetsim(tmp, "frobnicate"), 2);
    char *err = test_slurp("%s/err.txt", tmp);
    assert_non_null(strstr(err, "fleetsim: unknown command 'frobnicate'"));
    free(err);
    test_write(test_path("%s/small.json", tmp), small_scenario);
    assert_int_equal(test_fleetsim(tmp, "run"), 2);
    assert_int_equal(test_fleetsim(tmp, "run %s/small.json --format xml", tmp), 2);
    assert_int_equal(test_fleetsim(tmp, "run %s/small.json --seed -3", tmp), 2);
    assert_int_equal(test_fleetsim(tmp, "run %s/small.json --replications 0", tmp), 2);
    assert_int_equal(test_fleetsim(tmp, "run %s/small.json --horizon 5parsecs", tmp), 2);
    /* below the 10m warm-up */
    assert_int_equal(test_fleetsim(tmp, "run %s/small.json --horizon 5m", tmp), 2);
    assert_int_equal(test_fleetsim(tmp, "run %s/small.json --bogus", tmp), 2);
    assert_int_equal(test_fleetsim(tmp, "run %s/does-not-exist.json", tmp), 2);
}

static void test_bad_scenario_exit_2_and_no_output(void **state)
{
    (void)state;
    test_write(test_path("%s/broken.json", tmp),
               "{\n  \"schema\": \"fleetsim/1\",\n  \"horizon\": \"1h\"\n  \"seed\": 1\n}\n");
    assert_int_equal(test_fleetsim(tmp, "run %s/broken.json --out %s/res-broken", tmp, tmp), 2);
    char *err = test_slurp("%s/err.txt", tmp);
    assert_non_null(strstr(err, "broken.json:4:"));
    free(err);
    assert_false(test_exists("%s/res-broken/results.json", tmp));
    assert_int_equal(test_fleetsim(tmp, "validate %s/broken.json", tmp), 2);

    test_write(test_path("%s/typo.json", tmp),
               "{\"schema\": \"fleetsim/1\", \"horizon\": \"1h\", \"replicatons\": 2,"
               " \"pools\": [], \"services\": []}");
    assert_int_equal(test_fleetsim(tmp, "validate %s/typo.json", tmp), 2);
    err = test_slurp("%s/err.txt", tmp);
    assert_non_null(strstr(err, "did you mean \"replications\""));
    free(err);

    /* an arrival process beyond Poisson, refused with its path */
    test_write(test_path("%s/mmpp.json", tmp),
               "{\"schema\": \"fleetsim/1\", \"horizon\": \"1h\", \"pools\": [{\"name\": \"p\", \"gpu\": "
               "\"H100-SXM-80GB\", \"gpus\": 1}], \"services\": [{\"name\": \"s\", \"arrivals\": {\"poisson_rps\": 5, "
               "\"mmpp\": {\"states\": [{\"rps\": 1, \"mean_sojourn\": 5}, {\"rps\": 9, \"mean_sojourn\": 5}]}}, "
               "\"service_time\": {\"exponential\": {\"mean\": \"10ms\"}}}]}");
    assert_int_equal(test_fleetsim(tmp, "validate %s/mmpp.json", tmp), 2);
    err = test_slurp("%s/err.txt", tmp);
    assert_non_null(strstr(err, "mmpp.json: services[0].arrivals.mmpp: replaces poisson_rps"));
    free(err);
}

static void test_outputs_written(void **state)
{
    (void)state;
    test_write(test_path("%s/small.json", tmp), small_scenario);
    assert_int_equal(test_fleetsim(tmp, "run %s/small.json --out %s/res", tmp, tmp), 0);
    char *out = test_slurp("%s/out.txt", tmp);
    assert_non_null(strstr(out, "p99 ms"));
    free(out);
    char *series = test_slurp("%s/res/timeseries.csv", tmp);
    assert_non_null(series);
    assert_true(strncmp(series, "policy,replication,service,window_start_s", 41) == 0);
    free(series);
    assert_true(test_exists("%s/res/pools_timeseries.csv", tmp));

    char path[512];
    snprintf(path, sizeof path, "%s/res/results.json", tmp);
    json_error_t jerr;
    json_t *doc = json_load_file(path, 0, &jerr);
    assert_non_null(doc);
    json_t *svc = json_array_get(json_object_get(json_array_get(json_object_get(doc, "policies"), 0), "services"), 0);
    const char *keys[] = {"requests", "completed", "dropped", "slo_breach_windows", "latency_ms"};
    for (size_t i = 0; i < 5; i++)
        assert_non_null(json_object_get(svc, keys[i]));
    json_t *lat = json_object_get(svc, "latency_ms");
    const char *lat_keys[] = {"mean", "p50", "p95", "p99", "p999", "p99_ci95"};
    for (size_t i = 0; i < 6; i++)
        assert_true(json_is_number(json_object_get(lat, lat_keys[i])));
    json_t *pool = json_array_get(json_object_get(json_array_get(json_object_get(doc, "policies"), 0), "pools"), 0);
    assert_true(json_is_number(json_object_get(pool, "gpu_hours")));
    assert_true(json_is_number(json_object_get(pool, "busy_gpu_hours")));
    assert_true(json_is_number(json_object_get(pool, "utilization")));
    json_t *sim = json_object_get(doc, "sim");
    const char *sim_keys[] = {"events", "wall_s", "events_per_s", "peak_rss_mb"};
    for (size_t i = 0; i < 4; i++)
        assert_true(json_is_number(json_object_get(sim, sim_keys[i])));
    json_decref(doc);

    /* No temporary files are left behind. */
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "ls -A '%s/res' | grep -c '^\\.' > '%s/count.txt'", tmp, tmp);
    assert_int_not_equal(system(cmd), -1);
    char *count = test_slurp("%s/count.txt", tmp);
    assert_int_equal(atoi(count), 0);
    free(count);

    /* --out creates missing parents. */
    assert_int_equal(test_fleetsim(tmp, "run %s/small.json --out %s/deep/er/res", tmp, tmp), 0);
    assert_true(test_exists("%s/deep/er/res/results.json", tmp));

    /* --out naming a file, not a directory: runtime failure, exit 1. */
    test_write(test_path("%s/afile", tmp), "x");
    assert_int_equal(test_fleetsim(tmp, "run %s/small.json --out %s/afile", tmp, tmp), 1);
}

static void test_formats(void **state)
{
    (void)state;
    test_write(test_path("%s/small.json", tmp), small_scenario);
    assert_int_equal(test_fleetsim(tmp, "run %s/small.json --format json", tmp), 0);
    char path[512];
    snprintf(path, sizeof path, "%s/out.txt", tmp);
    json_error_t jerr;
    json_t *doc = json_load_file(path, 0, &jerr);
    assert_non_null(doc);
    assert_string_equal(json_string_value(json_object_get(doc, "schema")), "fleetsim-results/1");
    json_decref(doc);
    assert_int_equal(test_fleetsim(tmp, "run %s/small.json --format csv", tmp), 0);
    char *csv = test_slurp("%s/out.txt", tmp);
    assert_true(strncmp(csv, "policy,service,requests", 23) == 0);
    assert_non_null(strstr(csv, "\n\"default\",\"s\","));
    free(csv);
}

/* Same scenario and seed: the same bytes.  Another seed: other numbers. */
static void test_determinism(void **state)
{
    (void)state;
    test_write(test_path("%s/small.json", tmp), small_scenario);
    assert_int_equal(test_fleetsim(tmp, "run %s/small.json --no-timing --out %s/d1", tmp, tmp), 0);
    assert_int_equal(test_fleetsim(tmp, "run %s/small.json --no-timing --out %s/d2", tmp, tmp), 0);
    assert_int_equal(test_fleetsim(tmp, "run %s/small.json --no-timing --seed 2 --out %s/d3", tmp, tmp), 0);
    const char *files[] = {"results.json", "timeseries.csv", "pools_timeseries.csv"};
    for (size_t i = 0; i < 3; i++) {
        char *x = test_slurp("%s/d1/%s", tmp, files[i]), *y = test_slurp("%s/d2/%s", tmp, files[i]),
             *z = test_slurp("%s/d3/%s", tmp, files[i]);
        assert_non_null(x);
        assert_non_null(y);
        assert_non_null(z);
        assert_string_equal(x, y);
        assert_string_not_equal(x, z);
        free(x);
        free(y);
        free(z);
    }
}

/* An overloaded service: the run succeeds and says the queue grew without bound. */
static void test_unstable_runs_and_says_so(void **state)
{
    (void)state;
    test_write(test_path("%s/over.json", tmp),
               "{\"schema\": \"fleetsim/1\", \"horizon\": \"1h\","
               " \"pools\": [{\"name\": \"p\", \"gpu\": \"L4-24GB\", \"gpus\": 1}],"
               " \"services\": [{\"name\": \"hot\", \"arrivals\": {\"poisson_rps\": 12},"
               "   \"service_time\": {\"deterministic\": {\"value\": \"100ms\"}}, \"replicas\": 1}]}");
    assert_int_equal(test_fleetsim(tmp, "run %s/over.json", tmp), 0);
    char *out = test_slurp("%s/out.txt", tmp), *err = test_slurp("%s/err.txt", tmp);
    assert_non_null(strstr(out, "UNSTABLE: service hot"));
    assert_non_null(strstr(out, "grew without bound"));
    assert_non_null(strstr(err, "warning: policy \"default\": service \"hot\" is overloaded"));
    free(out);
    free(err);
    assert_int_equal(test_fleetsim(tmp, "run %s/over.json --format json", tmp), 0);
    out = test_slurp("%s/out.txt", tmp);
    assert_non_null(strstr(out, "\"queue_unbounded\": true"));
    free(out);
}

/* A name with a newline, quotes and a comma cannot break a CSV row. */
static void test_hostile_names_stay_data(void **state)
{
    (void)state;
    test_write(
        test_path("%s/names.json", tmp),
        "{\"schema\": \"fleetsim/1\", \"horizon\": \"20m\", \"window\": \"10m\","
        " \"pools\": [{\"name\": \"p\", \"gpu\": \"L4-24GB\", \"gpus\": 1}],"
        " \"services\": [{\"name\": \"a,\\\"b\\\"\\n$(touch pwned)\", \"arrivals\": {\"poisson_rps\": 1},"
        "   \"service_time\": {\"exponential\": {\"mean\": \"10ms\"}}, \"replicas\": 1}]}");
    assert_int_equal(test_fleetsim(tmp, "run %s/names.json --out %s/names", tmp, tmp), 0);
    char *series = test_slurp("%s/names/timeseries.csv", tmp);
    assert_non_null(strstr(series, "\"a,\"\"b\"\"\n$(touch pwned)\""));
    free(series);
    assert_false(test_exists("%s/pwned", tmp));
    char *out = test_slurp("%s/out.txt", tmp);
    assert_non_null(strstr(out, "a,\"b\"?$(touch pwned)")); /* the newline is shown as '?' */
    free(out);
}

/* The shipped diurnal scenario: per-window p99 rises and falls with traffic. */
static void test_diurnal_p99_follows_traffic(void **state)
{
    (void)state;
    assert_int_equal(test_fleetsim(tmp,
                                   "run scenarios/diurnal-chat.json --horizon 1d --replications 1 "
                                   "--out %s/diurnal",
                                   tmp),
                     0);
    char path[512];
    snprintf(path, sizeof path, "%s/diurnal/timeseries.csv", tmp);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[1024];
    double arrivals[400], p99[400];
    size_t n = 0;
    assert_non_null(fgets(line, sizeof line, f)); /* header */
    while (fgets(line, sizeof line, f) && n < 400) {
        if (!strstr(line, ",\"chat\","))
            continue;
        /* policy,replication,service,start,end,arrivals,completed,dropped,mean,p50,p95,p99,... */
        char *field = line;
        double v[12];
        for (int k = 0; k < 12; k++) {
            v[k] = strtod(field, NULL);
            field = strchr(field, ',') + 1;
        }
        arrivals[n] = v[5];
        p99[n] = v[11];
        n++;
    }
    fclose(f);
    assert_true(n >= 270); /* 23 hours of 5-minute windows */
    /* Rank correlation (Spearman) between window arrivals and p99. */
    double rank_a[400], rank_p[400];
    for (size_t i = 0; i < n; i++) {
        rank_a[i] = rank_p[i] = 0;
        for (size_t j = 0; j < n; j++) {
            rank_a[i] += arrivals[j] < arrivals[i];
            rank_p[i] += p99[j] < p99[i];
        }
    }
    double ma = 0, mp = 0;
    for (size_t i = 0; i < n; i++) {
        ma += rank_a[i] / n;
        mp += rank_p[i] / n;
    }
    double sab = 0, saa = 0, spp = 0;
    for (size_t i = 0; i < n; i++) {
        sab += (rank_a[i] - ma) * (rank_p[i] - mp);
        saa += (rank_a[i] - ma) * (rank_a[i] - ma);
        spp += (rank_p[i] - mp) * (rank_p[i] - mp);
    }
    double rho = sab / sqrt(saa * spp);
    /* And the busiest quarter of windows has a clearly worse p99 than the quietest. */
    double busy = 0, quiet = 0;
    size_t n_busy = 0, n_quiet = 0;
    for (size_t i = 0; i < n; i++) {
        if (rank_a[i] >= 0.75 * n) {
            busy += p99[i];
            n_busy++;
        } else if (rank_a[i] < 0.25 * n) {
            quiet += p99[i];
            n_quiet++;
        }
    }
    busy /= n_busy;
    quiet /= n_quiet;
    printf("  diurnal: Spearman(arrivals, p99) = %.3f; p99 busiest quarter %.1f ms, quietest %.1f ms\n",
           rho, busy, quiet);
    assert_true(rho > 0.6);
    assert_true(busy > 1.3 * quiet);
}

static int setup(void **state)
{
    (void)state;
    return test_tmpdir(tmp, sizeof tmp, "fleetsim-cli");
}

static int teardown(void **state)
{
    (void)state;
    return test_rmdir(tmp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_help_and_version),
        cmocka_unit_test(test_usage_errors_exit_2),
        cmocka_unit_test(test_bad_scenario_exit_2_and_no_output),
        cmocka_unit_test(test_outputs_written),
        cmocka_unit_test(test_formats),
        cmocka_unit_test(test_determinism),
        cmocka_unit_test(test_unstable_runs_and_says_so),
        cmocka_unit_test(test_hostile_names_stay_data),
        cmocka_unit_test(test_diurnal_p99_follows_traffic),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

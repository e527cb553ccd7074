/*
 * Windows streamed as they close (issue 18: memory that does not grow with
 * windows).  A run with the CSV sink (window_csv.h) writes the same window
 * tables, byte for byte, as the rows kept in memory by a run without a sink,
 * and the same results document (the figures taken from windows as they
 * close: queue growth, least headroom, worst window p99, a trace's peak);
 * the streamed rows conserve requests and count every breached window; the
 * online figures equal a recount from the kept rows; the growth slope is
 * gsl_fit_linear's bit for bit; the spool keeps segments apart and leaves no
 * file; a run stopped part-way leaves no partial table.
 */
#include <errno.h>
#include <gsl/gsl_fit.h>
#include <gsl/gsl_rng.h>
#include <jansson.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "output.h"
#include "results_csv.h"
#include "results_json.h"
#include "run.h"
#include "spool.h"
#include "testutil.h"
#include "window_csv.h"
#include "windows.h"

/* A shipped scenario, shortened, with two replications. */
static fs_scenario *shipped(const char *name, double horizon_s)
{
    fs_scenario *s = NULL;
    fs_error err = {0};
    if (fs_scenario_load(test_path("%s/scenarios/%s", FS_SOURCE_DIR, name), &s, &err) != FS_OK ||
        fs_scenario_override(s, -1, 2, horizon_s, &err) != FS_OK)
        fail_msg("%s: %s", name, err.msg);
    return s;
}

/* What an in-memory writer puts in a file, as a string (caller frees). */
static char *written(int (*write)(const fs_results *, FILE *, fs_error *), const fs_results *r)
{
    char *text = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&text, &len);
    assert_non_null(fp);
    fs_error err = {0};
    assert_int_equal(write(r, fp, &err), FS_OK);
    assert_int_equal(fclose(fp), 0);
    return text;
}

static size_t lines(const char *text)
{
    size_t n = 0;
    for (const char *c = text; *c; c++)
        n += *c == '\n';
    return n;
}

static char *json_text(const fs_results *r)
{
    json_t *doc = fs_results_json(r, false);
    char *text = json_dumps(doc, JSON_COMPACT | JSON_REAL_PRECISION(17));
    json_decref(doc);
    assert_non_null(text);
    return text;
}

/* Runs s with the CSV sink into dir (committed); the results. */
static fs_results *run_streamed(const fs_scenario *s, const char *dir)
{
    fs_output out;
    fs_window_csv *csv = NULL;
    fs_error err = {0};
    fs_results *r = NULL;
    assert_int_equal(fs_output_begin(&out, dir, &err), FS_OK);
    assert_int_equal(fs_window_csv_begin(&out, &csv, &err), FS_OK);
    fs_window_sink sink = fs_window_csv_sink(csv);
    fs_run_watch watch = {.windows = &sink};
    if (fs_run_watched(s, NULL, 0, &watch, &r, &err) != FS_OK)
        fail_msg("%s", err.msg);
    assert_int_equal(fs_window_csv_end(csv, &err), FS_OK);
    assert_int_equal(fs_output_commit(&out, &err), FS_OK);
    return r;
}

/* Sums of a column per (policy, replication, service) key of a streamed
 * table, checked against the run's own counters: requests, completions and
 * drops are conserved window by window, and every breached window has its row. */
static void check_recount(const fs_results *r, const char *series, const char *breaches)
{
    for (size_t p = 0; p < r->n_policies; p++) {
        const fs_policy_result *pol = &r->policies[p];
        for (uint32_t k = 0; k < pol->n_reps; k++) {
            for (size_t i = 0; i < pol->scenario->n_services; i++) {
                char key[512];
                /* libcsv quotes every name (plain names here) */
                snprintf(key, sizeof key, "\n\"%s\",%u,\"%s\",", pol->name, pol->reps[k].replication,
                         pol->scenario->services[i].name);
                uint64_t arrivals = 0, completed = 0, dropped = 0, rows = 0, breached = 0;
                for (const char *at = strstr(series, key); at; at = strstr(at + 1, key)) {
                    const char *c = at + strlen(key);
                    double start, end;
                    unsigned long long a, d, x;
                    assert_int_equal(sscanf(c, "%lf,%lf,%llu,%llu,%llu", &start, &end, &a, &d, &x), 5);
                    arrivals += a, completed += d, dropped += x, rows++;
                }
                for (const char *at = strstr(breaches, key); at; at = strstr(at + 1, key))
                    breached++;
                const fs_service_rep *rep = &pol->reps[k].services[i];
                assert_true(rows > 0);
                assert_int_equal(rows, rep->windows_closed);
                assert_int_equal(arrivals, rep->requests);
                assert_int_equal(completed, rep->completed);
                assert_int_equal(dropped, rep->dropped);
                assert_int_equal(rep->in_flight_start + arrivals, completed + dropped + rep->in_flight_end);
                assert_int_equal(breached, rep->slo_breach_windows);
            }
        }
    }
}

/* The figures taken as windows close equal a recount from the kept rows. */
static void check_online(const fs_results *r)
{
    for (size_t p = 0; p < r->n_policies; p++) {
        const fs_policy_result *pol = &r->policies[p];
        for (uint32_t k = 0; k < pol->n_reps; k++) {
            const fs_rep_result *rep = &pol->reps[k];
            for (size_t i = 0; i < pol->scenario->n_services; i++) {
                const fs_service_rep *s = &rep->services[i];
                double worst = NAN, peak = 0;
                for (size_t w = 0; w < s->n_windows; w++) {
                    double p99 = s->windows[w].p99_ms, len = s->windows[w].end_s - s->windows[w].start_s;
                    if (!isnan(p99) && (isnan(worst) || p99 > worst))
                        worst = p99;
                    if (len > 0)
                        peak = fmax(peak, (double)s->windows[w].arrivals / len);
                }
                assert_int_equal(s->n_windows, s->windows_closed);
                assert_true(isnan(worst) ? isnan(s->worst_window_p99_ms) : worst == s->worst_window_p99_ms);
                assert_true(peak == s->peak_window_rps);
            }
            double fleet = NAN;
            size_t n = pol->scenario->n_pools ? rep->pools[0].n_windows : 0;
            for (size_t w = 0; w < n; w++) {
                double busy = 0, gpus = 0;
                for (size_t q = 0; q < pol->scenario->n_pools; q++)
                    busy += rep->pools[q].windows[w].busy_gpus, gpus += rep->pools[q].windows[w].gpus;
                if (gpus > 0 && (isnan(fleet) || fmax(0, 1 - busy / gpus) < fleet))
                    fleet = fmax(0, 1 - busy / gpus);
            }
            assert_true(isnan(fleet) ? isnan(rep->fleet_least_headroom) : fleet == rep->fleet_least_headroom);
        }
    }
}

static void compare_paths(const char *scenario, double horizon_s)
{
    fs_scenario *s = shipped(scenario, horizon_s);
    char dir[256];
    assert_int_equal(test_tmpdir(dir, sizeof dir, "fs-windows"), 0);
    fs_results *mem = test_run(s);
    fs_results *str = run_streamed(s, dir);
    /* Streamed: nothing kept in memory, every window seen. */
    for (size_t p = 0; p < str->n_policies; p++)
        for (uint32_t k = 0; k < str->policies[p].n_reps; k++) {
            const fs_rep_result *rep = &str->policies[p].reps[k];
            for (size_t i = 0; i < str->policies[p].scenario->n_services; i++) {
                assert_null(rep->services[i].windows);
                assert_null(rep->services[i].slo_breach_starts);
                assert_true(rep->services[i].windows_closed > 0);
            }
            for (size_t i = 0; i < str->policies[p].scenario->n_pools; i++)
                assert_null(rep->pools[i].windows);
        }
    struct {
        const char *file;
        int (*write)(const fs_results *, FILE *, fs_error *);
    } tables[] = {{"timeseries.csv", fs_results_csv_timeseries},
                  {"pools_timeseries.csv", fs_results_csv_pool_timeseries},
                  {"slo_breaches.csv", fs_results_csv_slo_breaches},
                  {"llm_timeseries.csv", fs_results_csv_llm_timeseries}};
    bool llm = fs_results_csv_has_llm(mem);
    for (size_t t = 0; t < sizeof tables / sizeof *tables; t++) {
        char *file = test_slurp("%s/%s", dir, tables[t].file);
        if (t == 3 && !llm) {
            assert_null(file);
            continue;
        }
        char *want = written(tables[t].write, mem);
        assert_non_null(file);
        assert_true(lines(want) > 1 || t == 2);
        if (strcmp(file, want) != 0)
            fail_msg("%s: %s differs from the in-memory rows (%zu against %zu lines)", scenario, tables[t].file,
                     lines(file), lines(want));
        free(want);
        free(file);
    }
    char *a = json_text(mem), *b = json_text(str);
    assert_string_equal(a, b);
    free(a);
    free(b);
    char *series = test_slurp("%s/timeseries.csv", dir), *breaches = test_slurp("%s/slo_breaches.csv", dir);
    check_recount(str, series, breaches);
    check_online(mem);
    free(series);
    free(breaches);
    /* No scratch file left beside the tables. */
    assert_int_equal(test_sh("test -z \"$(ls -A %s | grep -v -e '^timeseries.csv$' -e '^pools_timeseries.csv$' "
                             "-e '^slo_breaches.csv$' -e '^llm_timeseries.csv$')\"",
                             dir),
                     0);
    fs_results_destroy(mem);
    fs_results_destroy(str);
    fs_scenario_destroy(s);
    assert_int_equal(test_rmdir(dir), 0);
}

/* Two policies, elastic pools (windows without GPUs), SLO breaches. */
static void test_elastic_streamed_equals_memory(void **state)
{
    (void)state;
    compare_paths("elastic-pools.json", 2 * 86400);
}

/* LLM services: llm_timeseries.csv, two policies. */
static void test_llm_streamed_equals_memory(void **state)
{
    (void)state;
    compare_paths("llm-serving.json", 4 * 3600);
}

/* Breaches in many windows: the diurnal scenario's burst. */
static void test_diurnal_streamed_equals_memory(void **state)
{
    (void)state;
    compare_paths("diurnal-chat.json", 129600);
}

/* The growth slope, from rows kept or from the spool, is gsl_fit_linear's
 * bit for bit (what results.json printed before windows were streamed). */
static void test_growth_is_gsl_fit_linear(void **state)
{
    (void)state;
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    for (size_t n = 1; n <= 3000; n = n * 3 + 1) {
        fs_service_rep kept = {0}, spooled = {0};
        fs_spool *sp = NULL;
        assert_int_equal(fs_spool_create(NULL, 2, n, sizeof(fs_windows_point), &sp), 0);
        double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y), end = 0;
        for (size_t i = 0; i < n; i++) {
            fs_service_window w = {.start_s = end, .end_s = end + 0.1 + gsl_rng_uniform(rng) * 300,
                                   .queue_end = gsl_rng_uniform_int(rng, 50) + i / 7, .p99_ms = NAN};
            end = w.end_s;
            x[i] = w.end_s / 3600.0;
            y[i] = (double)w.queue_end;
            fs_windows_service_seen(&kept, &w);
            fs_windows_service_seen(&spooled, &w);
            assert_int_equal(fs_windows_keep_service(&kept, &w), 0);
            assert_int_equal(fs_spool_put(sp, 1, &(fs_windows_point){x[i], y[i]}), 0);
        }
        assert_int_equal(fs_windows_growth(&kept, NULL, 0), 0);
        assert_int_equal(fs_windows_growth(&spooled, sp, 1), 0);
        double c0, c1 = 0, cov00, cov01, cov11, sumsq;
        if (n >= 3)
            assert_int_equal(gsl_fit_linear(x, 1, y, 1, n, &c0, &c1, &cov00, &cov01, &cov11, &sumsq), 0);
        assert_memory_equal(&kept.queue_growth_per_h, &c1, sizeof c1);
        assert_memory_equal(&spooled.queue_growth_per_h, &c1, sizeof c1);
        if (n >= 3)
            assert_true(c1 != 0); /* the series grows: a slope that could be wrong */
        free(kept.windows);
        free(x);
        free(y);
        fs_spool_destroy(sp);
    }
    gsl_rng_free(rng);
}

/* Segments put in any interleaving read back apart and in order; a full
 * segment refuses; clear empties; the file never shows in its directory. */
static void test_spool(void **state)
{
    (void)state;
    char dir[256];
    assert_int_equal(test_tmpdir(dir, sizeof dir, "fs-spool"), 0);
    fs_spool *sp = NULL;
    enum { SEGS = 3, CAP = 100000 };
    assert_int_equal(fs_spool_create(dir, SEGS, CAP, sizeof(uint64_t), &sp), 0);
    assert_int_equal(test_sh("test -z \"$(ls -A %s)\"", dir), 0);
    for (uint64_t v = 0; v < CAP; v++)
        for (size_t s = 0; s < SEGS; s++) {
            uint64_t rec = v * 10 + s;
            assert_int_equal(fs_spool_put(sp, s, &rec), 0);
        }
    uint64_t extra = 1;
    assert_int_equal(fs_spool_put(sp, 2, &extra), EOVERFLOW);
    uint64_t *back = malloc(CAP * sizeof *back);
    for (size_t s = 0; s < SEGS; s++) {
        assert_int_equal(fs_spool_count(sp, s), CAP);
        assert_int_equal(fs_spool_read(sp, s, 0, CAP, back), 0);
        for (uint64_t v = 0; v < CAP; v++)
            assert_int_equal(back[v], v * 10 + s);
    }
    assert_int_equal(fs_spool_read(sp, 1, CAP - 5, 5, back), 0);
    assert_int_equal(back[4], (CAP - 1) * 10 + 1);
    assert_int_equal(fs_spool_clear(sp), 0);
    assert_int_equal(fs_spool_count(sp, 0), 0);
    assert_int_equal(fs_spool_put(sp, 0, &extra), 0);
    assert_int_equal(fs_spool_read(sp, 0, 0, 1, back), 0);
    assert_int_equal(back[0], 1);
    free(back);
    fs_spool_destroy(sp);
    assert_int_equal(fs_spool_create(test_path("%s/missing", dir), 1, 1, 1, &sp), ENOENT);
    assert_int_equal(test_rmdir(dir), 0);
}

/* Two replications of about 72,000 events each: a limit of 100,000 stops the
 * run in the second, after the first's rows were streamed. */
static const char *two_reps =
    "{\"schema\": \"fleetsim/1\", \"name\": \"two\", \"horizon\": \"2h\", \"window\": \"1m\","
    " \"replications\": 2, \"seed\": %d,"
    " \"pools\": [{\"name\": \"p\", \"gpu\": \"L4-24GB\", \"gpus\": 3}],"
    " \"services\": [{\"name\": \"chat\", \"arrivals\": {\"poisson_rps\": 5},"
    "   \"service_time\": {\"exponential\": {\"mean\": \"100ms\"}}, \"replicas\": 3,"
    "   \"slo\": {\"p99_ms\": 150, \"window\": \"1m\"}}]}\n";

static void test_failed_run_leaves_no_partial_table(void **state)
{
    (void)state;
    char dir[256], json[1024];
    assert_int_equal(test_tmpdir(dir, sizeof dir, "fs-windows-fail"), 0);
    snprintf(json, sizeof json, two_reps, 1);
    test_write(test_path("%s/a.json", dir), json);
    snprintf(json, sizeof json, two_reps, 2);
    test_write(test_path("%s/b.json", dir), json);
    /* Stopped in replication 2: the directory stays empty. */
    assert_int_equal(test_fleetsim(dir, "run %s/a.json --max-events 100000 --out %s/stopped", dir, dir), 1);
    test_stderr_has(dir, "--max-events");
    assert_int_equal(test_sh("test -d %s/stopped && test -z \"$(ls -A %s/stopped)\"", dir, dir), 0);
    /* A complete run's tables stay whole when a later run into the same
     * directory fails: none is half replaced. */
    assert_int_equal(test_fleetsim(dir, "run %s/a.json --out %s/kept --no-timing", dir, dir), 0);
    char *before = test_slurp("%s/kept/timeseries.csv", dir);
    assert_non_null(before);
    assert_true(lines(before) == 1 + 2 * 120);
    assert_int_equal(test_fleetsim(dir, "run %s/b.json --max-events 100000 --out %s/kept", dir, dir), 1);
    char *after = test_slurp("%s/kept/timeseries.csv", dir);
    assert_string_equal(before, after);
    assert_int_equal(test_sh("test \"$(ls -A %s/kept | wc -l)\" -eq 5", dir), 0);
    /* The same run completed does replace them. */
    assert_int_equal(test_fleetsim(dir, "run %s/b.json --out %s/kept --no-timing", dir, dir), 0);
    free(after);
    after = test_slurp("%s/kept/timeseries.csv", dir);
    assert_true(strcmp(before, after) != 0);
    free(before);
    free(after);
    assert_int_equal(test_rmdir(dir), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_growth_is_gsl_fit_linear),
        cmocka_unit_test(test_spool),
        cmocka_unit_test(test_elastic_streamed_equals_memory),
        cmocka_unit_test(test_llm_streamed_equals_memory),
        cmocka_unit_test(test_diurnal_streamed_equals_memory),
        cmocka_unit_test(test_failed_run_leaves_no_partial_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

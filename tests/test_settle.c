/*
 * Has a run settled?  The batch statistics of sim/engine/settle.h against
 * values worked out by hand or by construction, and the verdicts a run
 * gets: an M/M/10 at rho = 0.5 over a long horizon settles and its p99
 * agrees with Erlang C within its CI; an M/M/10 at rho = 0.999 over a short
 * horizon (issue 15, point 8: a confident wrong tail) is flagged in the
 * summary, the table, results.json and the report.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <jansson.h>

#include "settle.h"
#include "testutil.h"
#include "theory.h"

/* ---- the statistics ----------------------------------------------------- */

/* Four batches far off, then a steady 0, 1, 0, 1, ...: MSER's statistic
 * (sum of squares after d over (n - d)^2) is 4/256 at d = 4, 3.73/225 at
 * d = 5, 3.5/196 at d = 6 and far larger below 4, so the cut is 4. */
static void test_mser_finds_the_transient(void **state)
{
    (void)state;
    double x[20];
    for (size_t i = 0; i < 20; i++)
        x[i] = i < 4 ? 100 : (double)(i % 2);
    assert_int_equal(fs_settle_mser(x, 20), 4);
    fs_settle_diag d = fs_settle_diagnose(x, 20);
    assert_int_equal(d.mser_cut, 4);
    assert_true(fabs(d.mser_shift - ((400.0 + 8) / 20 - 0.5)) < 1e-12); /* mean 20.4 -> 0.5 */
    /* Judged on the mean of the rest, the transient is the reason. */
    assert_true(fs_settle_judge(0.5, 0.01, &d) & FS_SETTLE_TRANSIENT);

    /* A steady series (here a constant one) is never cut. */
    for (size_t i = 0; i < 20; i++)
        x[i] = 7;
    assert_int_equal(fs_settle_mser(x, 20), 0);
}

/* Lag-1 autocorrelation: -(n-1)/n for an alternating series of mean 0, 0 for
 * a constant one (no variation: no correlation, never NaN). */
static void test_lag1_closed_forms(void **state)
{
    (void)state;
    double x[20];
    for (size_t i = 0; i < 20; i++)
        x[i] = i % 2 ? 1 : -1;
    assert_true(fabs(fs_settle_lag1(x, 20) - (-19.0 / 20)) < 1e-12);
    for (size_t i = 0; i < 20; i++)
        x[i] = 3;
    assert_true(fs_settle_lag1(x, 20) == 0);
    /* A straight line is as correlated as 20 points can be: above the bar. */
    for (size_t i = 0; i < 20; i++)
        x[i] = (double)i;
    assert_true(fs_settle_lag1(x, 20) > FS_SETTLE_MAX_LAG1);
}

/* Batch means of an AR(1) series with phi = 0.9 (correlation time 19
 * steps) in 20 batches of 1,000 steps: the t interval covers the true mean
 * 0 in about 95% of seeded trials, and the diagnostics rarely object. */
static void test_batch_means_cover_an_ar1_mean(void **state)
{
    (void)state;
    enum { TRIALS = 400, BATCH = 1000 };
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 15);
    unsigned covered = 0, flagged = 0;
    for (unsigned t = 0; t < TRIALS; t++) {
        double means[FS_SETTLE_BATCHES], y = gsl_ran_gaussian(rng, 1) / sqrt(1 - 0.81); /* stationary start */
        for (size_t b = 0; b < FS_SETTLE_BATCHES; b++) {
            double sum = 0;
            for (unsigned i = 0; i < BATCH; i++) {
                y = 0.9 * y + gsl_ran_gaussian(rng, 1);
                sum += y;
            }
            means[b] = sum / BATCH;
        }
        fs_settle_diag d = fs_settle_diagnose(means, FS_SETTLE_BATCHES);
        covered += fabs(d.ci.mean) <= d.ci.half_width;
        flagged += (fs_settle_judge(d.ci.mean, d.ci.half_width, &d) &
                    (FS_SETTLE_CORRELATED | FS_SETTLE_TRANSIENT)) != 0;
    }
    gsl_rng_free(rng);
    printf("  AR(1) batch means: CI covered the mean in %u of %u trials; diagnostics objected in %u\n",
           covered, TRIALS, flagged);
    /* 95% of 400 is 380, binomial sd 4.4: 368 .. 392 is +-2.7 sd. */
    assert_in_range(covered, 368, 392);
    assert_true(flagged < TRIALS * 3 / 100);
}

/* Batches close into the replication's histogram exactly: the merge equals
 * recording every value straight into one histogram, and each batch's
 * figures are those of its own values. */
static void test_batches_merge_exactly(void **state)
{
    (void)state;
    fs_hist batch, into, direct, alone;
    assert_int_equal(fs_hist_init(&batch), 0);
    assert_int_equal(fs_hist_init(&into), 0);
    assert_int_equal(fs_hist_init(&direct), 0);
    assert_int_equal(fs_hist_init(&alone), 0);
    fs_settle_batches b;
    fs_settle_reset(&b);
    for (unsigned k = 0; k < FS_SETTLE_BATCHES; k++) {
        fs_hist_reset(&alone);
        for (uint64_t v = 1; v <= 1000; v++) {
            uint64_t ns = v * 1000 * (k + 1) + v % 7;
            fs_hist_record(&batch, ns);
            fs_hist_record(&direct, ns);
            fs_hist_record(&alone, ns);
        }
        fs_settle_close(&b, &batch, &into);
        assert_int_equal(batch.total, 0);
        assert_true(b.value[FS_SETTLE_P99][k] == fs_hist_quantile(&alone, 0.99));
        assert_true(b.value[FS_SETTLE_MEAN][k] == fs_hist_mean(&alone));
    }
    assert_int_equal(b.n, FS_SETTLE_BATCHES);
    assert_true(fs_settle_complete(&b));
    assert_true(fs_settle_comparable(&b, FS_SETTLE_P50));  /* 1,000 >= 100 / 0.5 */
    assert_false(fs_settle_comparable(&b, FS_SETTLE_P95)); /* 1,000 < 100 / 0.05 */
    assert_int_equal(into.total, direct.total);
    assert_true(into.sum_ns == direct.sum_ns);
    for (double q = 0; q <= 1.0; q += 0.125)
        assert_true(fs_hist_quantile(&into, q) == fs_hist_quantile(&direct, q));
    /* A batch with nothing in it leaves the series incomplete. */
    fs_settle_reset(&b);
    fs_settle_close(&b, &batch, &into);
    fs_settle_close(&b, &batch, &into);
    assert_false(fs_settle_complete(&b));
    fs_hist_fini(&batch);
    fs_hist_fini(&into);
    fs_hist_fini(&direct);
    fs_hist_fini(&alone);
}

/* No interval, and one that is too wide, are each a reason; a settled
 * figure has none. */
static void test_judge_reasons(void **state)
{
    (void)state;
    assert_int_equal(fs_settle_judge(100, NAN, NULL), FS_SETTLE_NO_INTERVAL);
    assert_int_equal(fs_settle_judge(100, 11, NULL), FS_SETTLE_WIDE);
    assert_int_equal(fs_settle_judge(100, 9, NULL), 0);
    char why[256];
    fs_settle_why(FS_SETTLE_WIDE, 100, 48, NULL, why, sizeof why);
    assert_non_null(strstr(why, "48%"));
    /* A short buffer is cut, never overrun. */
    char tiny[8];
    fs_settle_why(FS_SETTLE_WIDE | FS_SETTLE_NO_INTERVAL, 100, 48, NULL, tiny, sizeof tiny);
    assert_true(strlen(tiny) < sizeof tiny);
}

/* ---- runs --------------------------------------------------------------- */

#define MMC_JSON                                                                                         \
    "{\"schema\": \"fleetsim/1\", \"name\": \"settle\", \"horizon\": %.0f, \"warmup\": 10, \"seed\": 1," \
    " \"replications\": %u, \"pools\": [{\"name\": \"p\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 10}],"  \
    " \"services\": [{\"name\": \"mmc\", \"arrivals\": {\"poisson_rps\": %.3f},"                        \
    "   \"service_time\": {\"exponential\": {\"mean\": \"10ms\"}}, \"replicas\": 10}]}"

/* M/M/10, mean service 10 ms, at rho over the horizon: the summary. */
static fs_service_summary mmc_summary(double rho, double horizon_s, unsigned reps)
{
    fs_scenario *s = test_scenario(MMC_JSON, horizon_s, reps, rho * 1000);
    fs_results *r = test_run(s);
    fs_service_summary sum;
    assert_int_equal(fs_results_service_summary(r, 0, 0, &sum), 0);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
    return sum;
}

/* rho = 0.5 over 1M requests, one replication: every figure settles, the
 * interval comes from the batches, and it holds Erlang C's p99. */
static void test_light_load_long_run_settles(void **state)
{
    (void)state;
    fs_service_summary sum = mmc_summary(0.5, 2000, 1);
    double want = fs_theory_mmc_response_quantile(10, 500, 100, 0.99) * 1e3;
    const fs_settling *p99 = &sum.settling[FS_SETTLE_P99];
    printf("  M/M/10 rho=0.5, 1M requests: p99 %.2f ±%.2f ms (batches) vs Erlang C %.2f ms\n",
           sum.merged_p99_ms, p99->ci95, want);
    assert_true(sum.ci_from_batches);
    for (size_t f = 0; f < FS_SETTLE_FIGURES; f++) {
        assert_true(sum.settling[f].diagnosed);
        assert_int_equal(sum.settling[f].why, 0);
    }
    assert_true(p99->ci95 > 0);
    assert_true(fabs(sum.merged_p99_ms - want) <= p99->ci95);
}

/* rho = 0.999 over 1M requests (the queue's relaxation time is about 4,000 s,
 * the run 1,000 s): the tail is far below Erlang C and flagged, from one
 * replication and from several. */
static void test_heavy_load_short_run_is_flagged(void **state)
{
    (void)state;
    double want = fs_theory_mmc_response_quantile(10, 999, 100, 0.99) * 1e3;
    for (unsigned reps = 1; reps <= 3; reps += 2) {
        fs_service_summary sum = mmc_summary(0.999, 1000, reps);
        printf("  M/M/10 rho=0.999, %u x 1M requests: p99 %.0f ms vs Erlang C %.0f ms; why %#x\n", reps,
               sum.merged_p99_ms, want, sum.settling[FS_SETTLE_P99].why);
        assert_true(sum.merged_p99_ms < 0.5 * want); /* the confident wrong tail itself */
        assert_true(sum.ci_from_batches == (reps == 1));
        assert_int_not_equal(sum.settling[FS_SETTLE_P99].why, 0);
        assert_int_not_equal(sum.settling[FS_SETTLE_P999].why, 0);
        /* A quantile above an unsettled one is flagged for it, whatever its
         * own diagnostics say; the mean (f 0) and p50 inherit nothing. */
        for (size_t f = FS_SETTLE_P95; f < FS_SETTLE_FIGURES; f++)
            assert_true(((sum.settling[f].why & FS_SETTLE_BELOW) != 0) == (sum.settling[f - 1].why != 0));
        assert_int_equal(sum.settling[FS_SETTLE_P50].why & FS_SETTLE_BELOW, 0);
    }
}

/* A daily profile makes batches differ by design: one replication claims
 * no interval (and says why); two take theirs from the replications, and
 * the batch diagnostics stay out of it. */
static void test_time_varying_load(void **state)
{
    (void)state;
    for (unsigned reps = 1; reps <= 2; reps++) {
        fs_scenario *s = test_scenario(
            "{\"schema\": \"fleetsim/1\", \"horizon\": \"1d\", \"warmup\": \"1h\", \"seed\": 3,"
            " \"replications\": %u, \"pools\": [{\"name\": \"p\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 4}],"
            " \"services\": [{\"name\": \"d\", \"arrivals\": {\"poisson_rps\": 2, \"diurnal\": [0.2, 0.2,"
            " 0.2, 0.2, 0.3, 0.5, 0.8, 1, 1.3, 1.5, 1.6, 1.6, 1.6, 1.5, 1.5, 1.4, 1.3, 1.2, 1, 0.8, 0.6, 0.4,"
            " 0.3, 0.2]}, \"service_time\": {\"exponential\": {\"mean\": \"100ms\"}}, \"replicas\": 4}]}",
            reps);
        fs_results *r = test_run(s);
        fs_service_summary sum;
        assert_int_equal(fs_results_service_summary(r, 0, 0, &sum), 0);
        assert_false(sum.ci_from_batches);
        for (size_t f = 0; f < FS_SETTLE_FIGURES; f++) {
            assert_false(sum.settling[f].diagnosed);
            if (reps == 1)
                assert_int_equal(sum.settling[f].why, FS_SETTLE_NO_INTERVAL);
            else
                assert_true(sum.settling[f].ci95 == sum.p99_ms.half_width || f != FS_SETTLE_P99);
        }
        fs_results_destroy(r);
        fs_scenario_destroy(s);
    }
}

/* The same run through the command: the table marks the figures and says
 * why, results.json says "settled": false with the reasons, the report has a
 * sentence with advice.  A settled run says so in the report. */
static void test_outputs_say_not_settled(void **state)
{
    (void)state;
    char dir[256];
    assert_int_equal(test_tmpdir(dir, sizeof dir, "fs-settle"), 0);
    char json[2048];
    snprintf(json, sizeof json, MMC_JSON, 1000.0, 1u, 999.0);
    test_write(test_path("%s/short.json", dir), json);
    assert_int_equal(test_fleetsim(dir, "run %s/short.json --out %s/out --report %s/rep", dir, dir, dir), 0);
    char *out = test_slurp("%s/out.txt", dir);
    assert_non_null(strstr(out, "~ not settled"));
    assert_non_null(strstr(out, "NOT SETTLED: service mmc p99: "));
    assert_non_null(strstr(out, "CI from 20 time batches"));
    free(out);

    json_error_t jerr;
    json_t *doc = json_load_file(test_path("%s/out/results.json", dir), 0, &jerr);
    assert_non_null(doc);
    json_t *settling = json_object_get(json_array_get(json_object_get(json_array_get(
                                                          json_object_get(doc, "policies"), 0), "services"), 0),
                                       "settling");
    assert_string_equal(json_string_value(json_object_get(settling, "ci95_from")), "batches");
    json_t *p99 = json_object_get(settling, "p99");
    assert_true(json_is_false(json_object_get(p99, "settled")));
    assert_non_null(json_string_value(json_object_get(p99, "why")));
    assert_true(json_array_size(json_object_get(p99, "reasons")) >= 1);
    json_decref(doc);

    char *md = test_slurp("%s/rep/report.md", dir);
    assert_non_null(md);
    assert_non_null(strstr(md, "## Has the run settled?"));
    assert_non_null(strstr(md, "mmc p99 ("));
    assert_non_null(strstr(md, "To settle it, try "));
    assert_non_null(strstr(md, "a longer horizon"));
    free(md);

    /* rho = 0.5, long: settled, and the report says so in one sentence. */
    snprintf(json, sizeof json, MMC_JSON, 2000.0, 1u, 500.0);
    test_write(test_path("%s/long.json", dir), json);
    assert_int_equal(test_fleetsim(dir, "run %s/long.json --report %s/rep2", dir, dir), 0);
    out = test_slurp("%s/out.txt", dir);
    assert_null(strstr(out, "NOT SETTLED"));
    assert_null(strstr(out, "~"));
    free(out);
    md = test_slurp("%s/rep2/report.md", dir);
    assert_non_null(strstr(md, "Every latency figure has settled"));
    free(md);
    test_rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mser_finds_the_transient),
        cmocka_unit_test(test_lag1_closed_forms),
        cmocka_unit_test(test_batch_means_cover_an_ar1_mean),
        cmocka_unit_test(test_batches_merge_exactly),
        cmocka_unit_test(test_judge_reasons),
        cmocka_unit_test(test_light_load_long_run_settles),
        cmocka_unit_test(test_heavy_load_short_run_is_flagged),
        cmocka_unit_test(test_time_varying_load),
        cmocka_unit_test(test_outputs_say_not_settled),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

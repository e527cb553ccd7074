/*
 * test_llm_validation — the README's "Validation: LLM serving" note, run.
 *
 * scenarios/validation/fit_llm_steps.py fits the linear step-time model on
 * the FIT stages of a public vLLM measurement (derived figures in
 * scenarios/validation/llm_measured.json, coefficients in llm_fitted.json)
 * and writes one scenario per stage.  This runs every stage's scenario,
 * adds the fitted client-side overhead ("api", which the engine does not
 * model) to the simulated TTFT and end-to-end figures, and prints predicted
 * vs measured p50/p99 with the relative error: the table in the README.
 *
 * Two splits (fit_llm_steps.py says which stages each fits on).  What it
 * asserts: every stage gives finite TTFT and end-to-end figures, and on the
 * FIT stages of a split whose equations the fit solves closely (rms
 * residual under 2%) the simulation reproduces the medians within 10% (the fit assumes one decode step per output token and a
 * half-step wait before a prompt's step; a scheduler that broke either
 * would miss here).  Held-out errors are reported, not bounded: they are
 * the result of the validation, not a property of the code.
 *
 * The same stages with "step_time": {"profile": {}} on the measured H100
 * calibration profile (calibrate/profiles/h100-sxm-80gb.json: per-layer
 * fits of a layer proxy, llm_profile.h) instead of a fit to these
 * measurements: nothing here is fitted to them.  It prints the decode step
 * the mapped model gives at each stage's measured operating point (the
 * equation of fit_llm_steps.py: B = rate x e2e mean sequences, each reading
 * P + O/2 tokens of KV, rate x P x T prompt tokens per step) against the
 * measured (e2e p50 - TTFT p50) / (O - 1), and the simulated TTFT and
 * end-to-end against the measured, with no client overhead added.  It
 * asserts only that every figure is finite and the decode step within a
 * factor of two (a wrong layer count or unit would miss it); the errors are
 * the result, reported in scenarios/README.md.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>
#include <math.h>

#include "results.h"
#include "scenario.h"
#include "testutil.h"

#define VALIDATION_DIR FS_SOURCE_DIR "/scenarios/validation"
#define NS_TO_S 1e-9

static json_t *load_json(const char *name)
{
    json_error_t jerr;
    json_t *j = json_load_file(test_path("%s/%s", VALIDATION_DIR, name), 0, &jerr);
    if (j == NULL)
        fail_msg("%s: %s", name, jerr.text);
    return j;
}

static double number(const json_t *obj, const char *a, const char *b)
{
    const json_t *v = json_object_get(obj, a);
    if (b != NULL)
        v = json_object_get(v, b);
    if (!json_is_number(v))
        fail_msg("llm_measured.json: %s.%s is not a number", a, b ? b : "");
    return json_number_value(v);
}

/* Predicted p50 and p99 (seconds) of one histogram, plus the overhead. */
static void predicted(const fs_results *r, fs_results_hist_fn hist, double api, double out[2])
{
    const double q[2] = {0.50, 0.99};
    fs_percentile p[2];
    assert_int_equal(fs_results_percentiles(r, 0, hist, 0, q, 2, NS_TO_S, p), 0);
    for (int i = 0; i < 2; i++) {
        assert_true(isfinite(p[i].value) && p[i].value > 0);
        out[i] = p[i].value + api;
    }
}

static void row(const char *id, const char *figure, const double pred[2], double m50, double m99)
{
    printf("%-12s %-5s p50 %8.1f ms vs %8.1f ms (%+6.1f%%)   p99 %8.1f ms vs %8.1f ms (%+6.1f%%)\n", id, figure,
           pred[0] * 1e3, m50 * 1e3, 100 * (pred[0] / m50 - 1), pred[1] * 1e3, m99 * 1e3, 100 * (pred[1] / m99 - 1));
}

/* Whether stage id is among the split's fit stages. */
static bool fitted_on(const json_t *split, const char *id)
{
    size_t i;
    const json_t *v;
    json_array_foreach(json_object_get(split, "fit"), i, v) {
        if (strcmp(json_string_value(v), id) == 0)
            return true;
    }
    return false;
}

static void test_stages_predicted(void **state)
{
    (void)state;
    json_t *measured = load_json("llm_measured.json"), *fitted = load_json("llm_fitted.json");
    const json_t *stages = json_object_get(measured, "stages");
    const json_t *splits = json_object_get(fitted, "splits");
    assert_true(json_array_size(stages) > 0);
    assert_true(json_object_size(splits) > 0);
    const char *name;
    const json_t *split;
    json_object_foreach ((json_t *)splits, name, split) {
        double api = number(split, "api", NULL);
        printf("split %s\n", name);
        size_t i;
        const json_t *s;
        json_array_foreach(stages, i, s) {
            const char *id = json_string_value(json_object_get(s, "id"));
            bool fit = fitted_on(split, id);
            fs_scenario *sc = NULL;
            fs_error err = {0, ""};
            if (fs_scenario_load(test_path("%s/%s/%s.json", VALIDATION_DIR, name, id), &sc, &err) != 0)
                fail_msg("%s/%s: %s", name, id, err.msg);
            fs_results *r = test_run(sc);
            double ttft[2], e2e[2];
            predicted(r, fs_results_ttft_hist, api, ttft);
            predicted(r, fs_results_latency_hist, api, e2e);
            double m_ttft50 = number(s, "ttft", "p50"), m_e2e50 = number(s, "e2e", "p50");
            printf("%s ", fit ? "fit " : "held");
            row(id, "TTFT", ttft, m_ttft50, number(s, "ttft", "p99"));
            printf("%s ", fit ? "fit " : "held");
            row(id, "e2e", e2e, m_e2e50, number(s, "e2e", "p99"));
            /* A fit that reproduces its own stages' medians (rms residual
             * of the fit's equations under 2%) must do so in simulation. */
            if (fit && number(split, "rms_relative_residual", NULL) < 0.02) {
                assert_true(fabs(ttft[0] / m_ttft50 - 1) < 0.10);
                assert_true(fabs(e2e[0] / m_e2e50 - 1) < 0.10);
            }
            fs_results_destroy(r);
            fs_scenario_destroy(sc);
        }
    }
    json_decref(measured);
    json_decref(fitted);
}

#define H100_PROFILE FS_SOURCE_DIR "/calibrate/profiles/h100-sxm-80gb.json"

static void test_profile_predicted(void **state)
{
    (void)state;
    json_t *measured = load_json("llm_measured.json");
    const json_t *stages = json_object_get(measured, "stages");
    assert_true(json_array_size(stages) > 0);
    printf("step time from the H100 profile (cuBLAS rows), no fit to these stages, no client overhead\n");
    size_t i;
    const json_t *st;
    json_array_foreach(stages, i, st) {
        const char *id = json_string_value(json_object_get(st, "id"));
        char file[64];
        snprintf(file, sizeof file, "by-load/%s.json", id);
        json_t *doc = load_json(file);
        json_t *batching = json_object_get(json_array_get(json_object_get(doc, "services"), 0), "batching");
        assert_non_null(batching);
        assert_int_equal(json_object_set_new(batching, "step_time", json_pack("{s:{}}", "profile")), 0);
        assert_int_equal(json_object_set_new(doc, "calibration", json_string(H100_PROFILE)), 0);
        fs_scenario *sc = NULL;
        fs_error err = {0, ""};
        if (fs_scenario_parse_json(doc, test_path("%s/%s", VALIDATION_DIR, file), &sc, &err) != 0)
            fail_msg("%s: %s", id, err.msg);
        size_t type = sc->pools[0].gpu_type;
        fs_llm_step_model m;
        uint32_t blocks = 0;
        assert_int_equal(fs_scenario_llm_unit(sc, 0, type, NULL, sc->gpu_types[type].memory_gb, &blocks, &m, &err), 0);
        double rate = number(st, "rate", NULL), p = number(st, "prompt", "mean");
        double o = number(st, "output_max_tokens", NULL);
        double e2e50 = number(st, "e2e", "p50"), ttft50 = number(st, "ttft", "p50");
        double t_measured = (e2e50 - ttft50) / (o - 1), b = rate * number(st, "e2e", "mean");
        double t_predicted = (m.c0 + m.c_decode * b + m.c_kv * b * (p + o / 2)) / (1 - m.c_prefill * rate * p);
        printf("%-12s decode step at B %.1f: %6.2f ms vs %6.2f ms (%+6.1f%%)\n", id, b, t_predicted * 1e3,
               t_measured * 1e3, 100 * (t_predicted / t_measured - 1));
        assert_true(t_predicted > t_measured / 2 && t_predicted < 2 * t_measured);
        fs_results *r = test_run(sc);
        double ttft[2], e2e[2];
        predicted(r, fs_results_ttft_hist, 0, ttft);
        predicted(r, fs_results_latency_hist, 0, e2e);
        printf("prof ");
        row(id, "TTFT", ttft, ttft50, number(st, "ttft", "p99"));
        printf("prof ");
        row(id, "e2e", e2e, e2e50, number(st, "e2e", "p99"));
        fs_results_destroy(r);
        fs_scenario_destroy(sc);
        json_decref(doc);
    }
    json_decref(measured);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stages_predicted),
        cmocka_unit_test(test_profile_predicted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

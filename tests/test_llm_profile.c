/*
 * test_llm_profile — "step_time": {"profile"}: an LLM's step time from its GPU
 * type's calibration profile ("llm_step" rows, llm_profile.h), read by
 * scenario_calibration.c and mapped in scenario_llm.c.
 *
 * What it asserts:
 *  - by hand: synthetic rows mapped onto the catalogued Llama-3-8B give the
 *    coefficients and step time worked out below with exact fractions; a
 *    model whose layer is exactly a row's gets that row times its layers,
 *    bit for bit; a MIG slice scales the mapped step by its shares;
 *  - a type's own profile replaces the scenario's rows whole, and the
 *    per-figure sources of the switch costs are unchanged by it;
 *  - the measured H100 profile: the mapped Llama-3-8B step equals the
 *    mapping recomputed here from the file's own llm_step numbers (read with
 *    jansson), and a proxy-shaped model reproduces, times its layers, every
 *    cuBLAS prediction of the profile's "validation" table (computed by
 *    calibrate/profile_fit.c when the profile was written);
 *  - refusals, each with its JSON path and reason.
 * The comparison with published vLLM measurements is in
 * test_llm_validation.c.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "llm_defaults.h"
#include "llm_profile.h"
#include "scenario.h"
#include "testutil.h"

#define H100_PROFILE FS_SOURCE_DIR "/calibrate/profiles/h100-sxm-80gb.json"

/* Synthetic rows: cuBLAS at H 2048, 4096 and 8192, and one row of the own
 * kernel, far slower, which a cuBLAS step must never read. */
#define ROW(gemm, h, c0, cp, cd, ckv)                                                                     \
    "{\"gemm\": \"" gemm "\", \"hidden\": " #h ", \"c0_s\": " #c0 ", \"c_prefill_s\": " #cp                  \
    ", \"c_decode_s\": " #cd ", \"c_kv_s\": " #ckv ", \"r_squared\": 0.9, \"n\": 10}"
#define SYN_ROWS                                                                                          \
    "[" ROW("cublas", 2048, 50e-6, 1e-7, 5e-8, 4e-9) ", " ROW("own", 4096, 1e-3, 1e-5, 1e-5, 1e-7) ", "    \
        ROW("cublas", 8192, 4e-4, 2e-6, 8e-7, 1.6e-8) ", " ROW("cublas", 4096, 1e-4, 5e-7, 2e-7, 8e-9) "]"
#define TOKENS                                                                                            \
    "\"prompt_tokens\": {\"deterministic\": {\"value\": 100}},"                                                  \
    " \"output_tokens\": {\"deterministic\": {\"value\": 10}}"
#define PROFILE_STEP "\"step_time\": {\"profile\": {}}"
/* Llama-3-8B with the step time `st` (the members of "step_time"). */
#define L3_STEP(st) "\"model\": \"Llama-3-8B\", \"step_time\": {" st "}"

/* A one-pool scenario ("p", one GPU of type `gpu`, `pool` extra pool keys)
 * with `top` and `gpus` members before the pools (each "" or ending in a
 * comma), and one LLM service whose batching members are `batching` plus
 * TOKENS.  A static buffer. */
static const char *doc(const char *top, const char *gpu, const char *pool, const char *batching, const char *service)
{
    static char json[8192];
    int n = snprintf(json, sizeof json,
                     "{\"schema\": \"fleetsim/1\", \"name\": \"x\", \"horizon\": \"1h\", %s"
                     " \"pools\": [{\"name\": \"p\", \"gpu\": \"%s\", \"gpus\": 1 %s}],"
                     " \"services\": [{\"name\": \"llm\", \"pool\": \"p\", \"arrivals\": {\"poisson_rps\": 1},"
                     "   \"batching\": {\"kind\": \"continuous\", %s, " TOKENS "} %s}]}",
                     top, gpu, pool, batching, service);
    assert_true(n > 0 && (size_t)n < sizeof json);
    return json;
}

static fs_scenario *parsed(const char *json)
{
    fs_scenario *s = NULL;
    fs_error err = {0};
    if (fs_scenario_parse(json, "x.json", &s, &err) != FS_OK)
        fail_msg("%s", err.msg);
    return s;
}

static void assert_rel(double got, double want, double rel)
{
    if (!(fabs(got - want) <= rel * fabs(want)))
        fail_msg("got %.17g, want %.17g (rel %.3g)", got, want, rel);
}

/* The whole-GPU step of service 0 on the pool's type. */
static fs_llm_step_model whole_step(const fs_scenario *s)
{
    size_t t = s->pools[0].gpu_type;
    fs_llm_step_model m;
    uint32_t blocks = 0;
    fs_error err = {0};
    if (fs_scenario_llm_unit(s, 0, t, NULL, s->gpu_types[t].memory_gb, &blocks, &m, &err) != FS_OK)
        fail_msg("%s", err.msg);
    assert_int_equal(m.kind, FS_LLM_STEP_LINEAR);
    return m;
}

/*
 * Llama-3-8B (llm_defaults.c: 8,030,261,248 parameters, 32 layers, 8 KV heads
 * of 128, bf16) on SYN_ROWS.
 *   x = 8030261248 / 32 = 250,945,664 parameters per layer, between the rows
 *   at H 4096 (12 x 4096^2 = 201,326,592) and H 8192 (805,306,368):
 *   f = (250945664 - 201326592) / (805306368 - 201326592) = 387649 / 4718592.
 *   c0        = 32 (100 us + f x 300 us)       = 3.988673909505208 ms
 *   c_prefill = 32 (0.5 us + f x 1.5 us)       = 19.943369547526042 us
 *   c_decode  = 32 (0.2 us + f x 0.6 us)       = 7.977347819010417 us
 *   c_kv: per KV byte both rows give 8e-9 / 16384 = 1.6e-8 / 32768
 *         = 4.8828125e-13 s; KV bytes per token 2 x 32 x 8 x 128 x 2 = 131072;
 *         c_kv = 6.4e-8 s per KV token.
 *   A step of 100 prompt tokens, 10 decodes and 5000 KV tokens read:
 *   c0 + 100 c_prefill + 10 c_decode + 5000 c_kv = 6.382784342447916 ms.
 */
static void test_by_hand(void **state)
{
    (void)state;
    fs_scenario *s = parsed(doc("\"calibration\": {\"llm_step\": " SYN_ROWS "},", "H100-SXM-80GB", "",
                                "\"model\": \"Llama-3-8B\", " PROFILE_STEP, ""));
    fs_llm_step_model m = whole_step(s);
    assert_rel(m.c0, 3.988673909505208e-3, 1e-12);
    assert_rel(m.c_prefill, 19.943369547526042e-6, 1e-12);
    assert_rel(m.c_decode, 7.977347819010417e-6, 1e-12);
    assert_rel(m.c_kv, 6.4e-8, 1e-12);
    assert_rel(m.compute_share, 1, 0);
    assert_rel(m.bandwidth_share, 1, 0);
    fs_llm_batch b = {.prefill_tokens = 100, .decodes = 10, .kv_tokens_read = 5000};
    assert_rel(fs_llm_step_time(&m, &b), 6.382784342447916e-3, 1e-12);
    /* Where the rows come from: the inline profile. */
    assert_string_equal(fs_switch_costs_llm_step_source(fs_scenario_switch_costs(s, s->pools[0].gpu_type)), "inline");
    fs_scenario_destroy(s);

    /* The own kernel's row, asked for, is the only "own" row: one size,
     * which cannot be interpolated (refused below); a cuBLAS step above
     * never read it, or c0 would be far from 4 ms. */
}

/* A model whose layer is exactly the H 4096 row's (12 x 4096^2 weights, 32
 * heads of 128 for KV: the proxy's full multi-head attention) gets that row
 * times its layers, exactly; on a 3g.40gb slice the same coefficients are
 * divided by the slice's shares at step time. */
static void test_at_a_row_and_on_a_slice(void **state)
{
    (void)state;
    const char *model = "\"model\": {\"name\": \"proxy\", \"params\": 6442450944, \"layers\": 32, \"kv_heads\": 32,"
                        " \"head_dim\": 128}, " PROFILE_STEP;
    fs_scenario *s = parsed(doc("\"calibration\": {\"llm_step\": " SYN_ROWS "},", "H100-SXM-80GB",
                                ", \"mig\": [\"3g.40gb\", \"3g.40gb\"]", model, ""));
    size_t t = s->pools[0].gpu_type;
    const fs_gpu_type *gpu = &s->gpu_types[t];
    const fs_mig_profile *mig = fs_gpu_mig_profile(gpu, "3g.40gb");
    assert_non_null(mig);
    fs_llm_step_model m;
    uint32_t blocks = 0;
    fs_error err = {0};
    assert_int_equal(fs_scenario_llm_unit(s, 0, t, mig, mig->memory_gb, &blocks, &m, &err), FS_OK);
    assert_true(m.c0 == 32 * 1e-4 && m.c_prefill == 32 * 5e-7 && m.c_decode == 32 * 2e-7);
    /* 8e-9 s per token of 16384 bytes per layer, 32 layers. */
    assert_rel(m.c_kv, 32 * 8e-9, 1e-15);
    double cs = (double)mig->sms / gpu->sms, bs = mig->memory_slices / 8.0;
    assert_rel(m.compute_share, cs, 1e-15);
    assert_rel(m.bandwidth_share, bs, 1e-15);
    fs_llm_batch b = {.prefill_tokens = 64, .decodes = 8, .kv_tokens_read = 4096};
    double want = 32 * 1e-4 / bs + 32 * 5e-7 * 64 / cs + 32 * 2e-7 * 8 / bs + 32 * 8e-9 * 4096 / bs;
    assert_rel(fs_llm_step_time(&m, &b), want, 1e-12);
    fs_scenario_destroy(s);

    /* Directly: the two rows around x are named, and x itself. */
    const fs_llm_layer_fit rows[] = {{FS_LLM_GEMM_CUBLAS, 8192, 4e-4, 2e-6, 8e-7, 1.6e-8},
                                     {FS_LLM_GEMM_CUBLAS, 4096, 1e-4, 5e-7, 2e-7, 8e-9}};
    const fs_llm_model *l3 = fs_llm_defaults_model("Llama-3-70B");
    assert_non_null(l3);
    fs_llm_profile_use use;
    assert_int_equal(fs_llm_profile_step(rows, 2, FS_LLM_GEMM_CUBLAS, l3, 256, &m, &use, "w", &err), FS_OK);
    /* 70,553,706,496 / 80 = 881,921,331.2 weights per layer: past the
     * H 8192 row's 805,306,368, so extrapolated. */
    assert_rel(use.layer_params, 881921331.2, 1e-12);
    assert_int_equal(use.lo_hidden, 4096);
    assert_int_equal(use.hi_hidden, 8192);
    assert_true(use.extrapolated);
}

/* A type's own profile with llm_step replaces the scenario's rows whole;
 * one without them keeps the scenario's; the switch-cost figures keep their
 * own sources (fs_switch_costs_figure). */
static void test_whose_rows(void **state)
{
    (void)state;
    const char *top = "\"calibration\": {\"source\": \"top\", \"llm_step\": " SYN_ROWS "},"
                      " \"gpus\": {\"H100-SXM-80GB\": {\"calibration\": {\"source\": \"own\", \"h2d_gbps\": 40,"
                      "   \"llm_step\": [" ROW("cublas", 2048, 1e-4, 0, 0, 0) ", "
                      ROW("cublas", 4096, 3e-4, 0, 0, 0) "]}},"
                      "   \"L4-24GB\": {\"calibration\": {\"source\": \"l4\", \"d2h_gbps\": 20}}},";
    fs_scenario *s = parsed(doc(top, "H100-SXM-80GB", "", L3_STEP("\"profile\": {}"), ""));
    size_t h = test_gpu_type_index(s, "H100-SXM-80GB"), l4 = test_gpu_type_index(s, "L4-24GB");
    const fs_switch_costs *hc = fs_scenario_switch_costs(s, h), *lc = fs_scenario_switch_costs(s, l4);
    assert_string_equal(fs_switch_costs_llm_step_source(hc), "own");
    assert_int_equal(hc->n_llm_step, 2);
    assert_string_equal(fs_switch_costs_llm_step_source(lc), "top");
    assert_int_equal(lc->n_llm_step, 4);
    /* Llama-3-8B's 250,945,664 weights per layer lie past the own rows'
     * H 4096 (201,326,592): c0 extrapolates along 100 us -> 300 us. */
    fs_llm_step_model m = whole_step(s);
    double f = (250945664.0 - 50331648.0) / (201326592.0 - 50331648.0);
    assert_rel(m.c0, 32 * ((1 - f) * 1e-4 + f * 3e-4), 1e-12);
    assert_true(m.c_prefill == 0 && m.c_kv == 0);
    double v;
    const char *src;
    assert_string_equal(fs_switch_costs_figure(hc, FS_COST_H2D, &v, &src), "h2d_gbps");
    assert_true(v == 40);
    assert_string_equal(src, "own");
    fs_switch_costs_figure(lc, FS_COST_D2H, &v, &src);
    assert_true(v == 20);
    assert_string_equal(src, "l4");
    fs_switch_costs_figure(lc, FS_COST_H2D, &v, &src);
    assert_string_equal(src, "built-in default (reference/costs.md)");
    fs_scenario_destroy(s);

    /* No llm_step anywhere: the built-in profile has none. */
    s = parsed(doc("", "H100-SXM-80GB", "", L3_STEP("\"roofline\": {\"flops_eff\": 0.5, \"bw_eff\": 0.5}"), ""));
    assert_null(fs_switch_costs_llm_step_source(fs_scenario_switch_costs(s, 0)));
    assert_int_equal(fs_scenario_switch_costs(s, 0)->n_llm_step, 0);
    fs_scenario_destroy(s);
}

/* The H100 profile, read here with jansson (the caller decrefs it). */
static json_t *h100_json(void)
{
    json_error_t jerr;
    json_t *p = json_load_file(H100_PROFILE, 0, &jerr);
    if (p == NULL)
        fail_msg("%s: %s", H100_PROFILE, jerr.text);
    return p;
}

/* Its llm_step rows. */
static size_t h100_rows(fs_llm_layer_fit *rows, size_t cap)
{
    json_t *p = h100_json();
    size_t i, n = 0;
    json_t *r;
    json_array_foreach (json_object_get(p, "llm_step"), i, r) {
        assert_true(n < cap);
        rows[n].gemm = strcmp(json_string_value(json_object_get(r, "gemm")), "cublas") == 0;
        rows[n].hidden = (uint32_t)json_integer_value(json_object_get(r, "hidden"));
        rows[n].c0_s = json_number_value(json_object_get(r, "c0_s"));
        rows[n].c_prefill_s = json_number_value(json_object_get(r, "c_prefill_s"));
        rows[n].c_decode_s = json_number_value(json_object_get(r, "c_decode_s"));
        rows[n].c_kv_s = json_number_value(json_object_get(r, "c_kv_s"));
        n++;
    }
    json_decref(p);
    return n;
}

static const fs_llm_layer_fit *h100_row(const fs_llm_layer_fit *rows, size_t n, uint32_t hidden)
{
    for (size_t i = 0; i < n; i++)
        if (rows[i].gemm == 1 && rows[i].hidden == hidden)
            return &rows[i];
    fail_msg("no cublas row at %u", hidden);
    return NULL;
}

/* The measured H100 profile, mapped onto Llama-3-8B, against the mapping
 * recomputed here from the file's numbers: x = 8030261248 / 32 between the
 * H 4096 and 8192 rows. */
static void test_h100_profile(void **state)
{
    (void)state;
    fs_llm_layer_fit rows[16];
    size_t n = h100_rows(rows, 16);
    const fs_llm_layer_fit *lo = h100_row(rows, n, 4096), *hi = h100_row(rows, n, 8192);
    double f = (8030261248.0 / 32 - 12.0 * 4096 * 4096) / (12.0 * 8192 * 8192 - 12.0 * 4096 * 4096);
    double c0 = 32 * ((1 - f) * lo->c0_s + f * hi->c0_s);
    double cp = 32 * ((1 - f) * lo->c_prefill_s + f * hi->c_prefill_s);
    double cd = 32 * ((1 - f) * lo->c_decode_s + f * hi->c_decode_s);
    double ckv = ((1 - f) * lo->c_kv_s / (4.0 * 4096) + f * hi->c_kv_s / (4.0 * 8192)) * (2.0 * 32 * 8 * 128 * 2);

    fs_scenario *s = parsed(doc("\"calibration\": \"" H100_PROFILE "\",", "H100-SXM-80GB", "",
                                "\"model\": \"Llama-3-8B\", " PROFILE_STEP, ""));
    fs_llm_step_model m = whole_step(s);
    assert_rel(m.c0, c0, 1e-12);
    assert_rel(m.c_prefill, cp, 1e-12);
    assert_rel(m.c_decode, cd, 1e-12);
    assert_rel(m.c_kv, ckv, 1e-12);
    /* Decode steps: one sequence of 1024 tokens, and 64 of them. */
    fs_llm_batch one = {.decodes = 1, .kv_tokens_read = 1024}, full = {.decodes = 64, .kv_tokens_read = 64 * 1024};
    double t1 = fs_llm_step_time(&m, &one), t64 = fs_llm_step_time(&m, &full);
    assert_rel(t1, c0 + cd + 1024 * ckv, 1e-12);
    assert_rel(t64, c0 + 64 * cd + 64 * 1024 * ckv, 1e-12);
    printf("Llama-3-8B on the H100 profile (cuBLAS): c0 %.4g ms, %.4g us per prefill token, %+.4g us per sequence,"
           " %.4g us per KV token; decode step of 1 x 1024 tokens %.3f ms, of 64 x 1024 %.3f ms\n",
           m.c0 * 1e3, m.c_prefill * 1e6, m.c_decode * 1e6, m.c_kv * 1e6, t1 * 1e3, t64 * 1e3);
    fs_scenario_destroy(s);
}

/* A model shaped like the proxy at each measured H (12 H^2 weights per
 * layer, H / 128 KV heads of 128, 10 layers) reproduces the profile's own
 * cuBLAS predictions of its "validation" table, times 10: the per-layer
 * model the calibration tool fitted is the one the simulator runs. */
static void test_h100_validation_rows(void **state)
{
    (void)state;
    json_t *p = h100_json();
    size_t i, checked = 0;
    json_t *v;
    json_array_foreach (json_object_get(p, "validation"), i, v) {
        unsigned gemm, hidden, t, b, l;
        const char *what = json_string_value(json_object_get(v, "what"));
        const char *input = json_string_value(json_object_get(v, "input"));
        if (sscanf(what, "step_time gemm %u H %u", &gemm, &hidden) != 2 || gemm != 1)
            continue;
        assert_int_equal(sscanf(input, "T %u B %u L %u", &t, &b, &l), 3);
        char model[512];
        snprintf(model, sizeof model,
                 "\"model\": {\"name\": \"proxy-%u\", \"params\": %.17g, \"layers\": 10, \"kv_heads\": %u,"
                 " \"head_dim\": 128}, " PROFILE_STEP,
                 hidden, 10 * 12.0 * hidden * hidden, hidden / 128);
        fs_scenario *s = parsed(doc("\"calibration\": \"" H100_PROFILE "\",", "H100-SXM-80GB", "", model, ""));
        fs_llm_step_model m = whole_step(s);
        fs_llm_batch batch = {.prefill_tokens = t, .decodes = b, .kv_tokens_read = (uint64_t)b * l};
        double predicted = json_number_value(json_object_get(v, "predicted_s"));
        /* The file prints 9 significant digits. */
        assert_rel(fs_llm_step_time(&m, &batch), 10 * predicted, 1e-8);
        checked++;
        fs_scenario_destroy(s);
    }
    assert_int_equal(checked, 9);
    json_decref(p);
}

static void refused(const char *json, const char *want) { test_parse_refused(json, "x.json", FS_ERR_INPUT, want); }

/* Llama-3-8B with a profile step time on rows (the "llm_step" value and
 * anything after it in the inline profile). */
static void rows_refused(const char *rows, const char *want)
{
    char top[4096];
    snprintf(top, sizeof top, "\"calibration\": {\"llm_step\": %s},", rows);
    refused(doc(top, "H100-SXM-80GB", "", L3_STEP("\"profile\": {}"), ""), want);
}

static void test_refusals(void **state)
{
    (void)state;
    const char *l3 = "\"model\": \"Llama-3-8B\", " PROFILE_STEP;
    const char *syn = "\"calibration\": {\"llm_step\": " SYN_ROWS "},";
    /* No profile with rows: the built-in one has none. */
    refused(doc("", "H100-SXM-80GB", "", l3, ""),
            "x.json: services[0].batching.step_time.profile: GPU type \"H100-SXM-80GB\" has no calibration profile "
            "with \"llm_step\" rows (its figures come from built-in default (reference/costs.md))");
    refused(doc("\"calibration\": {\"h2d_gbps\": 50},", "H100-SXM-80GB", "", l3, ""),
            "services[0].batching.step_time.profile: GPU type \"H100-SXM-80GB\" has no calibration profile");
    /* Rows only for another type: the reference GPU's capacity figure needs
     * its own. */
    refused(doc("\"gpus\": {\"H100-SXM-80GB\": {\"calibration\": {\"llm_step\": " SYN_ROWS "}}},", "H100-SXM-80GB", "",
                l3, ", \"reference_gpu\": \"L4-24GB\""),
            "services[0].batching.step_time.profile: GPU type \"L4-24GB\" has no calibration profile");
    /* The asked backend: one "own" row only; none at all. */
    refused(doc(syn, "H100-SXM-80GB", "", L3_STEP("\"profile\": {\"gemm\": \"own\"}"), ""),
            "step_time.profile: GPU type \"H100-SXM-80GB\", profile inline: \"llm_step\" has \"own\" rows at one "
            "hidden size only (4096)");
    refused(doc("\"calibration\": {\"llm_step\": [" ROW("own", 4096, 1e-3, 1e-5, 1e-5, 1e-7) "]},", "H100-SXM-80GB", "",
                l3, ""),
            "profile inline: \"llm_step\" has no \"cublas\" rows");
    refused(doc(syn, "H100-SXM-80GB", "", L3_STEP("\"profile\": {\"gemm\": \"CUBLAS\"}"), ""),
            "services[0].batching.step_time.profile.gemm: expected a GEMM backend (\"own\", \"cublas\"), got "
            "\"CUBLAS\"");
    refused(doc(syn, "H100-SXM-80GB", "", L3_STEP("\"profile\": {\"gem\": \"own\"}"), ""),
            "services[0].batching.step_time.profile: unknown key \"gem\"");
    refused(doc(syn, "H100-SXM-80GB", "", L3_STEP("\"profile\": true"), ""),
            "services[0].batching.step_time.profile: expected an object");
    refused(doc(syn, "H100-SXM-80GB", "",
                L3_STEP("\"profile\": {}, \"roofline\": {\"flops_eff\": 0.5, \"bw_eff\": 0.5}"), ""),
            "services[0].batching.step_time: expected exactly one of \"linear\", \"roofline\" and \"profile\", got "
            "several");
    /* FP8 weights: the rows are bf16. */
    refused(doc(syn, "H100-SXM-80GB", "",
                "\"model\": {\"name\": \"fp8\", \"params\": 8e9, \"bytes_per_param\": 1, \"layers\": 32,"
                " \"kv_heads\": 8, \"head_dim\": 128}, " PROFILE_STEP,
                ""),
            "fp8 has 1 bytes per parameter, but the profile's layers were measured with bf16 weights");
    /* A tiny model far below the rows: c_prefill's line crosses zero. */
    refused(doc("\"calibration\": {\"llm_step\": [" ROW("cublas", 2048, 50e-6, 1e-7, 0, 4e-9) ", " ROW(
                    "cublas", 4096, 1e-4, 5e-7, 0, 8e-9) "]},",
                "H100-SXM-80GB", "",
                "\"model\": {\"name\": \"tiny\", \"params\": 1e7, \"layers\": 10, \"kv_heads\": 1, \"head_dim\": 64}, "
                    PROFILE_STEP,
                ""),
            "at tiny's 1e+06 parameters per layer the per-layer c_prefill comes out -3.06842e-08 s, from the rows at "
            "hidden 2048 and 4096 (5.033e+07 and 2.013e+08 parameters per layer, extrapolated)");
    /* Rows that load but do not map: a fitted c_decode so negative that
     * 256 decodes of one KV token would take no time. */
    rows_refused("[" ROW("cublas", 2048, 50e-6, 1e-7, -1e-6, 4e-9) ", " ROW("cublas", 4096, 1e-4, 5e-7, -1e-6,
                                                                            8e-9) "]",
                 "a step of 256 decoding sequences would take");
    /* The rows themselves, each key checked. */
    static const struct {
        const char *rows, *want;
    } bad[] = {
        {"[{\"gemm\": \"cublas\", \"hidden\": 4096, \"c0_s\": 1e-4, \"c_prefill_s\": 0, \"c_decode_s\": 0}]",
         "x.json: calibration.llm_step[0]: missing required key \"c_kv_s\""},
        {"[{\"gemm\": \"cublas\", \"hidden\": 4096, \"c0_s\": 1e-4, \"c_prefill_s\": 0, \"c_decode_s\": 0,"
         " \"c_kv_s\": 0, \"r2\": 1}]",
         "calibration.llm_step[0]: unknown key \"r2\""},
        {"[{\"hidden\": 4096, \"c0_s\": 1e-4, \"c_prefill_s\": 0, \"c_decode_s\": 0, \"c_kv_s\": 0}]",
         "calibration.llm_step[0]: missing required key \"gemm\""},
        {"[" ROW("cublas", 0, 1e-4, 0, 0, 0) "]", "calibration.llm_step[0].hidden: expected an integer from 1"},
        {"[{\"gemm\": \"cublas\", \"hidden\": 4096, \"c0_s\": null, \"c_prefill_s\": 0, \"c_decode_s\": 0,"
         " \"c_kv_s\": 0}]",
         "calibration.llm_step[0].c0_s: expected a number, got null"},
        {"[" ROW("cublas", 4096, 1e-4, 0, 0, 0) ", " ROW("cublas", 4096, 2e-4, 0, 0, 0) "]",
         "calibration.llm_step[1]: a second \"cublas\" row for hidden 4096 (the first is llm_step[0])"},
        {"{}", "calibration.llm_step: expected an array"},
        {SYN_ROWS ", \"gpu\": \"x\", \"llm_step2\": 1", "calibration: unknown key \"llm_step2\""},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++)
        rows_refused(bad[k].rows, bad[k].want);
    char many[4096] = "[";
    for (int k = 0; k < FS_LLM_MAX_LAYER_FITS + 1; k++) {
        char row[200];
        snprintf(row, sizeof row, "%s{\"gemm\": \"cublas\", \"hidden\": %d, \"c0_s\": 1e-4, \"c_prefill_s\": 0,"
                                  " \"c_decode_s\": 0, \"c_kv_s\": 0}", k ? ", " : "", 128 * (k + 1));
        strcat(many, row);
    }
    strcat(many, "]");
    rows_refused(many, "calibration.llm_step: expected at most 16 rows, got 17");
    /* A profile file's rows: errors name the file and the path in it. */
    char dir[256], json[512];
    assert_int_equal(test_tmpdir(dir, sizeof dir, "llm-profile"), 0);
    test_write(test_path("%s/prof.json", dir), "{\"schema\": \"fleetsim-calibration/1\", \"llm_step\": ["
                                               "{\"gemm\": \"wmma\", \"hidden\": 4096, \"c0_s\": 1e-4,"
                                               " \"c_prefill_s\": 0, \"c_decode_s\": 0, \"c_kv_s\": 0}]}");
    snprintf(json, sizeof json, "\"calibration\": \"%s/prof.json\",", dir);
    refused(doc(json, "H100-SXM-80GB", "", l3, ""),
            "prof.json: llm_step[0].gemm: expected a GEMM backend (\"own\", \"cublas\"), got \"wmma\"");
    assert_int_equal(test_rmdir(dir), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_by_hand),
        cmocka_unit_test(test_at_a_row_and_on_a_slice),
        cmocka_unit_test(test_whose_rows),
        cmocka_unit_test(test_h100_profile),
        cmocka_unit_test(test_h100_validation_rows),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

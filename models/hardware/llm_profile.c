/*
 * llm_profile — a profile's per-layer step-time fits mapped onto a model; see
 * llm_profile.h for the mapping and why.
 */
#include "llm_profile.h"

#include <math.h>
#include <stdio.h>

/* calibrate/cal_layer.h: bf16 weights and KV, heads of 128. */
#define PROXY_BYTES 2.0

static const char *const gemm_names[] = {[FS_LLM_GEMM_OWN] = "own", [FS_LLM_GEMM_CUBLAS] = "cublas"};

const char *fs_llm_gemm_name(int gemm)
{
    return gemm == FS_LLM_GEMM_OWN ? gemm_names[FS_LLM_GEMM_OWN] : gemm_names[FS_LLM_GEMM_CUBLAS];
}

const char *const *fs_llm_gemm_names(size_t *count)
{
    *count = sizeof gemm_names / sizeof gemm_names[0];
    return gemm_names;
}

double fs_llm_proxy_layer_params(uint32_t hidden)
{
    /* Wqkv H x 3H, Wo H x H, Wup H x 4H, Wdown 4H x H. */
    return 12.0 * (double)hidden * (double)hidden;
}

double fs_llm_proxy_kv_bytes(uint32_t hidden) { return 2.0 * (double)hidden * PROXY_BYTES; }

/* Weighted so that f = 0 gives a and f = 1 gives b exactly. */
static double lerp(double a, double b, double f) { return (1 - f) * a + f * b; }

int fs_llm_profile_step(const fs_llm_layer_fit *fits, size_t n, int gemm, const fs_llm_model *model,
                        uint32_t max_decodes, fs_llm_step_model *out, fs_llm_profile_use *use,
                        const char *where, fs_error *err)
{
    int rc = fs_llm_model_check(model, where, err);
    if (rc)
        return rc;
    const char *name = model->name ? model->name : "the model";
    if (model->bytes_per_param != PROXY_BYTES)
        return fs_error_set(err, FS_ERR_INPUT,
                            "%s: %s has %g bytes per parameter, but the profile's layers were measured with "
                            "bf16 weights (2 bytes): its step times do not apply",
                            where, name, model->bytes_per_param);
    /* The backend's rows, sorted by hidden size (insertion: a handful). */
    const fs_llm_layer_fit *row[FS_LLM_MAX_LAYER_FITS];
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (fits[i].gemm != gemm)
            continue;
        if (k == FS_LLM_MAX_LAYER_FITS)
            return fs_error_set(err, FS_ERR_INPUT, "%s: more than %d \"%s\" rows", where, FS_LLM_MAX_LAYER_FITS,
                                fs_llm_gemm_name(gemm));
        size_t j = k++;
        for (; j > 0 && row[j - 1]->hidden > fits[i].hidden; j--)
            row[j] = row[j - 1];
        row[j] = &fits[i];
        if ((j > 0 && row[j - 1]->hidden == fits[i].hidden) || (j + 1 < k && row[j + 1]->hidden == fits[i].hidden))
            return fs_error_set(err, FS_ERR_INPUT, "%s: two \"%s\" rows for hidden size %u", where,
                                fs_llm_gemm_name(gemm), fits[i].hidden);
    }
    if (k == 0)
        return fs_error_set(err, FS_ERR_INPUT, "%s: \"llm_step\" has no \"%s\" rows", where,
                            fs_llm_gemm_name(gemm));
    if (k == 1)
        return fs_error_set(err, FS_ERR_INPUT,
                            "%s: \"llm_step\" has \"%s\" rows at one hidden size only (%u); mapping a model "
                            "needs two or more to interpolate between",
                            where, fs_llm_gemm_name(gemm), row[0]->hidden);
    double x = model->params / model->layers;
    size_t s = 0;
    while (s + 2 < k && x > fs_llm_proxy_layer_params(row[s + 1]->hidden))
        s++;
    const fs_llm_layer_fit *lo = row[s], *hi = row[s + 1];
    double x_lo = fs_llm_proxy_layer_params(lo->hidden), x_hi = fs_llm_proxy_layer_params(hi->hidden);
    double f = (x - x_lo) / (x_hi - x_lo);
    double c0 = lerp(lo->c0_s, hi->c0_s, f);
    double cp = lerp(lo->c_prefill_s, hi->c_prefill_s, f);
    double cd = lerp(lo->c_decode_s, hi->c_decode_s, f);
    double kv_byte =
        lerp(lo->c_kv_s / fs_llm_proxy_kv_bytes(lo->hidden), hi->c_kv_s / fs_llm_proxy_kv_bytes(hi->hidden), f);
    if (use)
        *use = (fs_llm_profile_use){.layer_params = x, .lo_hidden = lo->hidden, .hi_hidden = hi->hidden,
                                    .extrapolated = f < 0 || f > 1};
    /* Outside the rows a line can cross zero: no step is free, and none
     * gets cheaper with more prompt tokens or KV. */
    const char *bad = NULL;
    double got = 0;
    if (!(c0 > 0))
        bad = "c0", got = c0;
    else if (!(cp >= 0))
        bad = "c_prefill", got = cp;
    else if (!(kv_byte >= 0))
        bad = "c_kv per KV byte", got = kv_byte;
    if (bad)
        return fs_error_set(err, FS_ERR_INPUT,
                            "%s: at %s's %.4g parameters per layer the per-layer %s comes out %g s, from the rows "
                            "at hidden %u and %u (%.4g and %.4g parameters per layer%s)",
                            where, name, x, bad, got, lo->hidden, hi->hidden, x_lo, x_hi,
                            f < 0 || f > 1 ? ", extrapolated" : "");
    double layers = model->layers;
    *out = (fs_llm_step_model){.kind = FS_LLM_STEP_LINEAR,
                               .c0 = layers * c0,
                               .c_prefill = layers * cp,
                               .c_decode = layers * cd,
                               .c_kv = kv_byte * fs_llm_kv_bytes_per_token(model),
                               .compute_share = 1,
                               .bandwidth_share = 1};
    /* A negative c_decode (as fitted) must not make any step the engine
     * can run free: the least is max_decodes decodes of one KV token each. */
    double per_seq = out->c_decode + out->c_kv;
    if (per_seq < 0 && !(out->c0 + per_seq * max_decodes > 0))
        return fs_error_set(err, FS_ERR_INPUT,
                            "%s: with the fitted c_decode of %g s per sequence, a step of %u decoding sequences "
                            "would take %g s: lower max_seqs or refit the profile",
                            where, out->c_decode, max_decodes, out->c0 + per_seq * max_decodes);
    return FS_OK;
}

/*
 * profile — fitting calibration samples and writing the profile JSON; see
 * profile.h.
 *
 * Which measurement becomes which simulator figure (models/scenario/scenario.h,
 * fs_switch_costs):
 *   context_s          median of "context_create"
 *   framework_s        not measured: "first_kernel" (module load and first
 *                      launch, in "scalars") is only the CUDA-level part of a
 *                      framework's first use, far below what a framework's
 *                      own start-up costs (PyTorch's import, allocator and
 *                      library handles: the built-in 4.47 s), so a profile
 *                      does not replace the framework figure with it
 *   module_s           median of "module_first_launches": the first launch
 *                      of 64 distinct kernels (lazy module loading)
 *   storage_gbps       bandwidth of the fit of "load_cold_pinned": weights
 *                      read from a cold file and copied to the device, the
 *                      whole path a loader takes (the built-in 1.7 GB/s is
 *                      such an end-to-end loader figure too)
 *   h2d_gbps           bandwidth of the fit of "h2d_pinned"
 *   d2h_gbps           bandwidth of the fit of "d2h_pinned"
 *   inference_warmup_s not measured: the tool's CUDA graph capture of a
 *                      decode step ("graph_capture", under a millisecond a
 *                      graph) is only the CUDA-level part of an engine's
 *                      warm-up, far below the built-in 10 s that vLLM's
 *                      capture phase takes with its framework around it
 * A figure that was not measured, or whose measurement gives no usable value
 * (no samples; fewer than 2 distinct sizes; a slope <= 0, which would be an
 * infinite bandwidth), is left out of the profile and named in
 * "not_measured": the simulator then keeps its own value for it (the
 * scenario-level profile, else the built-in default) instead of refusing the
 * whole profile over one missing figure.
 *
 * The JSON is written by hand with stdio: numbers with %.9g (enough that
 * every figure survives a round trip to 9 significant digits), non-finite
 * numbers as null, strings escaped as JSON requires.  The output is
 * deterministic: the same samples give the same bytes.
 */
#include "profile.h"

#include <assert.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_fit.h>

#include "profile_fit.h"

#define PROFILE_SCHEMA "fleetsim-calibration/1"
#define N_FIGURES 7 /* the simulator's figures, as models/scenario/scenario.h's fs_switch_costs */

/* ---------------------------------------------------------------- fitting */

/* The fit and its slope (s per byte), which the residuals need as it is:
 * bandwidth_gbps cannot give it back when it is INFINITY. */
static int fit_line(const fs_calib_series *s, fs_calib_fit *out, double *slope)
{
    bool distinct = false;
    for (size_t i = 1; i < s->n && !distinct; i++)
        distinct = s->bytes[i] != s->bytes[0];
    if (!distinct)
        return -1;
    /* gsl_fit_linear works on centred sums, so sizes of 1e9 bytes against
     * times of 1e-6 s lose nothing to cancellation; it never calls the GSL
     * error handler, and the check above rules out its one division by zero. */
    double c0, c1, cov00, cov01, cov11, ss_res;
    gsl_fit_linear(s->bytes, 1, s->seconds, 1, s->n, &c0, &c1, &cov00, &cov01, &cov11, &ss_res);
    double mean = 0, ss_tot = 0;
    for (size_t i = 0; i < s->n; i++)
        mean += (s->seconds[i] - mean) / (double)(i + 1);
    for (size_t i = 0; i < s->n; i++)
        ss_tot += (s->seconds[i] - mean) * (s->seconds[i] - mean);
    out->fixed_s = c0;
    out->bandwidth_gbps = c1 > 0 ? 1e-9 / c1 : INFINITY;
    out->r_squared = ss_tot > 0 ? 1 - ss_res / ss_tot : 1;
    out->n = s->n;
    *slope = c1;
    return 0;
}

int fs_calib_fit_series(const fs_calib_series *s, fs_calib_fit *out)
{
    assert(s != NULL && out != NULL);
    double slope;
    return fit_line(s, out, &slope);
}

static int double_cmp(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

/* The median of x[n] into *out (NAN when n is 0); -1 when out of memory.
 * Sorts a copy: scalars hold tens of repetitions, so O(n log n) is nothing. */
int fs_calib_median(const double *x, size_t n, double *out)
{
    if (n == 0) {
        *out = NAN;
        return 0;
    }
    double *copy = malloc(n * sizeof *copy);
    if (copy == NULL)
        return -1;
    memcpy(copy, x, n * sizeof *copy);
    qsort(copy, n, sizeof *copy, double_cmp);
    *out = n % 2 == 1 ? copy[n / 2] : (copy[n / 2 - 1] + copy[n / 2]) / 2;
    free(copy);
    return 0;
}

/* NAN also when out of memory, which the profile writer tells apart. */
double fs_calib_scalar_median(const fs_calib_scalar *s)
{
    assert(s != NULL);
    double m;
    return fs_calib_median(s->seconds, s->n, &m) == 0 ? m : NAN;
}

/* ---------------------------------------------------------------- writing */

/* A number as JSON: %.9g, or null when it is not finite (JSON has no
 * infinity or NaN).  Whole numbers below 2^53 are written in full instead:
 * %.9g would turn a 1 GiB sample (1073741824 bytes) into 1.07374182e+09, and
 * raw samples are meant to be kept as taken. */
static void put_num(FILE *fp, double x)
{
    if (!isfinite(x))
        fputs("null", fp);
    else if (x == floor(x) && fabs(x) < 9007199254740992.0)
        fprintf(fp, "%.0f", x);
    else
        fprintf(fp, "%.9g", x);
}

/* The characters of a JSON string, without the quotes: '"' and '\' escaped,
 * control characters as \u00XX.  Bytes outside ASCII become '?': CUDA's
 * device names are ASCII, and this keeps the file valid UTF-8 whatever
 * bytes a driver hands back. */
static void put_chars(FILE *fp, const char *s)
{
    for (const unsigned char *c = (const unsigned char *)s; *c != '\0'; c++) {
        if (*c == '"' || *c == '\\')
            fprintf(fp, "\\%c", *c);
        else if (*c < 0x20)
            fprintf(fp, "\\u%04x", *c);
        else if (*c >= 0x80)
            fputc('?', fp);
        else
            fputc(*c, fp);
    }
}

static void put_str(FILE *fp, const char *s)
{
    fputc('"', fp);
    put_chars(fp, s);
    fputc('"', fp);
}

static void put_array(FILE *fp, const double *x, size_t n)
{
    fputc('[', fp);
    for (size_t i = 0; i < n; i++) {
        if (i > 0)
            fputs(", ", fp);
        put_num(fp, x[i]);
    }
    fputc(']', fp);
}

/* A series by name, or NULL. */
static const fs_calib_series *find_series(const fs_calib_samples *s, const char *name)
{
    for (size_t i = 0; i < s->n_series; i++)
        if (strcmp(s->series[i].name, name) == 0)
            return &s->series[i];
    return NULL;
}

static const fs_calib_scalar *find_scalar(const fs_calib_samples *s, const char *name)
{
    for (size_t i = 0; i < s->n_scalars; i++)
        if (strcmp(s->scalars[i].name, name) == 0)
            return &s->scalars[i];
    return NULL;
}

/* One simulator figure: its key and, when measured, its value. */
typedef struct figure {
    const char *key;
    double value;
    bool measured;
} figure;

/* A time from a scalar's median: measured when there are samples and the
 * median is a usable (finite, non-negative) time.  -1 when out of memory. */
static int time_figure(const fs_calib_samples *s, const char *scalar, figure *f)
{
    const fs_calib_scalar *sc = find_scalar(s, scalar);
    f->measured = false;
    if (sc == NULL || sc->n == 0)
        return 0;
    if (fs_calib_median(sc->seconds, sc->n, &f->value) != 0)
        return -1;
    f->measured = isfinite(f->value) && f->value >= 0;
    return 0;
}

/* A bandwidth from a series' fit: measured when the fit exists and its
 * bandwidth is finite and positive (the simulator refuses anything else). */
static void bandwidth_figure(const fs_calib_samples *s, const char *series, figure *f)
{
    const fs_calib_series *se = find_series(s, series);
    fs_calib_fit fit;
    f->measured = se != NULL && fs_calib_fit_series(se, &fit) == 0 &&
                  isfinite(fit.bandwidth_gbps) && fit.bandwidth_gbps > 0;
    f->value = f->measured ? fit.bandwidth_gbps : NAN;
}

static void write_fit(FILE *fp, const fs_calib_series *se, const fs_calib_fit *fit, double slope)
{
    fputs("    ", fp);
    put_str(fp, se->name);
    fputs(": {\"fixed_s\": ", fp);
    put_num(fp, fit->fixed_s);
    fputs(", \"bandwidth_gbps\": ", fp);
    put_num(fp, fit->bandwidth_gbps);
    fputs(", \"r_squared\": ", fp);
    put_num(fp, fit->r_squared);
    fprintf(fp, ", \"n\": %zu,\n      \"residuals_s\": [", fit->n);
    /* Residuals: each sample's seconds minus the fitted line's. */
    for (size_t i = 0; i < se->n; i++) {
        if (i > 0)
            fputs(", ", fp);
        put_num(fp, se->seconds[i] - (fit->fixed_s + slope * se->bytes[i]));
    }
    fputs("]}", fp);
}

static int write_scalar_stats(FILE *fp, const fs_calib_scalar *sc)
{
    double median, lo = sc->seconds[0], hi = sc->seconds[0];
    if (fs_calib_median(sc->seconds, sc->n, &median) != 0)
        return -1;
    for (size_t i = 1; i < sc->n; i++) {
        lo = fmin(lo, sc->seconds[i]);
        hi = fmax(hi, sc->seconds[i]);
    }
    fputs("    ", fp);
    put_str(fp, sc->name);
    fputs(": {\"median_s\": ", fp);
    put_num(fp, median);
    fputs(", \"min_s\": ", fp);
    put_num(fp, lo);
    fputs(", \"max_s\": ", fp);
    put_num(fp, hi);
    fprintf(fp, ", \"n\": %zu}", sc->n);
    return 0;
}

/* "validation" (always: the simulator refuses a measured profile without
 * it), then, when the samples have them, "llm_step", "graph_capture" and
 * "mixed_check" (profile_fit.h). */
static int write_checks(FILE *fp, const fs_calib_samples *s)
{
    fs_calib_check *checks = malloc(FS_CALIB_MAX_CHECKS * sizeof *checks);
    fs_calib_step_model models[FS_CALIB_MAX_STEP_MODELS];
    fs_calib_trial trials[FS_CALIB_MAX_TRIALS];
    fs_calib_graph_fit graphs;
    if (!checks)
        return -1;
    size_t n = fs_calib_validate(s, checks, FS_CALIB_MAX_CHECKS);
    fputs("  \"validation\": [", fp);
    for (size_t i = 0; i < n; i++) {
        fputs(i ? ",\n    {\"what\": " : "\n    {\"what\": ", fp);
        put_str(fp, checks[i].what);
        fputs(", \"input\": ", fp);
        put_str(fp, checks[i].input);
        fputs(", \"measured_s\": ", fp);
        put_num(fp, checks[i].measured_s);
        fputs(", \"predicted_s\": ", fp);
        put_num(fp, checks[i].predicted_s);
        fputs(", \"error_pct\": ", fp);
        put_num(fp, checks[i].error_pct);
        fputc('}', fp);
    }
    fputs(n ? "\n  ],\n" : "],\n", fp);
    free(checks);

    size_t nm = fs_calib_fit_steps(s, models, FS_CALIB_MAX_STEP_MODELS);
    if (nm > 0) {
        fputs("  \"llm_step\": [", fp);
        for (size_t i = 0; i < nm; i++) {
            fprintf(fp, "%s{\"gemm\": \"%s\", \"hidden\": %d, \"c0_s\": ", i ? ",\n    " : "\n    ",
                    models[i].gemm == 1 ? "cublas" : "own", models[i].hidden);
            put_num(fp, models[i].c0_s);
            fputs(", \"c_prefill_s\": ", fp);
            put_num(fp, models[i].c_prefill_s);
            fputs(", \"c_decode_s\": ", fp);
            put_num(fp, models[i].c_decode_s);
            fputs(", \"c_kv_s\": ", fp);
            put_num(fp, models[i].c_kv_s);
            fputs(", \"r_squared\": ", fp);
            put_num(fp, models[i].r_squared);
            fprintf(fp, ", \"n\": %zu}", models[i].n);
        }
        fputs("\n  ],\n", fp);
    }
    if (fs_calib_fit_graphs(s, &graphs) == 0) {
        fputs("  \"graph_capture\": {\"per_graph_s\": ", fp);
        put_num(fp, graphs.per_graph_s);
        fputs(", \"per_kernel_s\": ", fp);
        put_num(fp, graphs.per_kernel_s);
        fprintf(fp, ", \"n\": %zu},\n", graphs.n);
    }
    size_t nt = fs_calib_mixed_trials(s, trials, FS_CALIB_MAX_TRIALS);
    if (nt > 0) {
        fputs("  \"mixed_check\": [", fp);
        for (size_t i = 0; i < nt; i++) {
            fprintf(fp, "%s{\"trial\": %d, \"requests\": %zu, \"ready_s\": ", i ? ",\n    " : "\n    ",
                    trials[i].trial, trials[i].requests);
            put_num(fp, trials[i].ready_s);
            fputs(", \"p50_s\": ", fp);
            put_num(fp, trials[i].p50_s);
            fputs(", \"p99_s\": ", fp);
            put_num(fp, trials[i].p99_s);
            fputs(", \"max_s\": ", fp);
            put_num(fp, trials[i].max_s);
            fputc('}', fp);
        }
        fputs("\n  ],\n", fp);
    }
    return 0;
}

/* Besides a write error, -1 also means out of memory (a median sorts a
 * copy); either way what reached fp is not a profile, which is why the tool
 * writes to a temporary file and renames it only on success. */
int fs_calib_profile_write(const fs_calib_samples *s, FILE *fp)
{
    assert(s != NULL && fp != NULL);
    figure figs[N_FIGURES] = {{"context_s", NAN, false},    {"framework_s", NAN, false},
                              {"module_s", NAN, false},     {"storage_gbps", NAN, false},
                              {"h2d_gbps", NAN, false},     {"d2h_gbps", NAN, false},
                              {"inference_warmup_s", NAN, false}};
    if (time_figure(s, "context_create", &figs[0]) != 0 || time_figure(s, "module_first_launches", &figs[2]) != 0)
        return -1;
    bandwidth_figure(s, "load_cold_pinned", &figs[3]);
    bandwidth_figure(s, "h2d_pinned", &figs[4]);
    bandwidth_figure(s, "d2h_pinned", &figs[5]);

    fprintf(fp, "{\n  \"schema\": \"%s\",\n", PROFILE_SCHEMA);
    if (s->device[0] != '\0') { /* the simulator wants a non-empty "gpu" or none */
        fputs("  \"gpu\": ", fp);
        put_str(fp, s->device);
        fputs(",\n", fp);
    }
    /* Without a device (--host-only) "on <device>" is left out rather than
     * left empty. */
    fputs("  \"source\": \"fleetsim-calibrate", fp);
    if (s->device[0] != '\0') {
        fputs(" on ", fp);
        put_chars(fp, s->device);
    }
    fputs(", ", fp);
    put_chars(fp, s->date);
    fputs("\",\n  \"device\": {\"name\": ", fp);
    put_str(fp, s->device);
    fputs(", \"memory_gb\": ", fp);
    put_num(fp, s->memory_gb);
    fprintf(fp, ", \"driver_version\": %d, \"runtime_version\": %d, \"date\": ",
            s->driver_version, s->runtime_version);
    put_str(fp, s->date);
    fputs("},\n", fp);

    for (size_t k = 0; k < N_FIGURES; k++) {
        if (!figs[k].measured)
            continue;
        fprintf(fp, "  \"%s\": ", figs[k].key);
        put_num(fp, figs[k].value);
        fputs(",\n", fp);
    }
    fputs("  \"not_measured\": [", fp);
    const char *sep = "";
    for (size_t k = 0; k < N_FIGURES; k++) {
        if (figs[k].measured)
            continue;
        fprintf(fp, "%s\"%s\"", sep, figs[k].key);
        sep = ", ";
    }
    fputs("],\n", fp);

    /* Fits of every series with 2 or more distinct sizes, in sample order. */
    fputs("  \"fits\": {", fp);
    sep = "\n";
    for (size_t i = 0; i < s->n_series; i++) {
        fs_calib_fit fit;
        double slope;
        if (fit_line(&s->series[i], &fit, &slope) != 0)
            continue;
        fputs(sep, fp);
        write_fit(fp, &s->series[i], &fit, slope);
        sep = ",\n";
    }
    fputs(*sep == ',' ? "\n  },\n" : "},\n", fp);

    if (write_checks(fp, s) != 0)
        return -1;

    /* Statistics of every scalar with at least one sample. */
    fputs("  \"scalars\": {", fp);
    sep = "\n";
    for (size_t i = 0; i < s->n_scalars; i++) {
        if (s->scalars[i].n == 0)
            continue;
        fputs(sep, fp);
        if (write_scalar_stats(fp, &s->scalars[i]) != 0)
            return -1;
        sep = ",\n";
    }
    fputs(*sep == ',' ? "\n  },\n" : "},\n", fp);

    /* Every raw sample, as taken. */
    fputs("  \"samples\": {\n    \"series\": {", fp);
    sep = "\n";
    for (size_t i = 0; i < s->n_series; i++) {
        const fs_calib_series *se = &s->series[i];
        fputs(sep, fp);
        fputs("      ", fp);
        put_str(fp, se->name);
        fputs(": {\n        \"bytes\": ", fp);
        put_array(fp, se->bytes, se->n);
        fputs(",\n        \"seconds\": ", fp);
        put_array(fp, se->seconds, se->n);
        fputs("}", fp);
        sep = ",\n";
    }
    fputs(*sep == ',' ? "\n    },\n" : "},\n", fp);
    fputs("    \"scalars\": {", fp);
    sep = "\n";
    for (size_t i = 0; i < s->n_scalars; i++) {
        fputs(sep, fp);
        fputs("      ", fp);
        put_str(fp, s->scalars[i].name);
        fputs(": ", fp);
        put_array(fp, s->scalars[i].seconds, s->scalars[i].n);
        sep = ",\n";
    }
    fputs(*sep == ',' ? "\n    }" : "}", fp);
    /* Tables and notes only when there are any, so a profile of series and
     * scalars alone reads exactly as before they existed. */
    if (s->n_tables > 0) {
        fputs(",\n    \"tables\": {", fp);
        sep = "\n";
        for (size_t i = 0; i < s->n_tables; i++) {
            const fs_calib_table *t = &s->tables[i];
            fputs(sep, fp);
            fputs("      ", fp);
            put_str(fp, t->name);
            fputs(": {\n        \"columns\": [", fp);
            for (size_t c = 0; c < t->n_columns; c++) {
                if (c > 0)
                    fputs(", ", fp);
                put_str(fp, t->columns[c]);
            }
            fputs("],\n        \"rows\": [", fp);
            for (size_t r = 0; r < t->n_rows; r++) {
                fputs(r > 0 ? ",\n          " : "\n          ", fp);
                put_array(fp, t->values + r * t->n_columns, t->n_columns);
            }
            fputs(t->n_rows > 0 ? "\n        ]}" : "]}", fp);
            sep = ",\n";
        }
        fputs(*sep == ',' ? "\n    }" : "}", fp);
    }
    if (s->n_notes > 0) { /* inside "samples": the simulator reads no key of it */
        fputs(",\n    \"notes\": [", fp);
        for (size_t i = 0; i < s->n_notes; i++) {
            fputs(i > 0 ? ",\n      " : "\n      ", fp);
            put_str(fp, s->notes[i]);
        }
        fputs("\n    ]", fp);
    }
    fputs("\n  }\n}\n", fp);
    /* stdio keeps the error flag; one check at the end catches any failed write. */
    return fflush(fp) != 0 || ferror(fp) ? -1 : 0;
}

#include "sensitivity_table.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include <jansson.h>

#include "results_csv.h"
#include "terminal.h"

/* A number of the document: null (no data) is NaN. */
static double fs__num(const json_t *v)
{
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static double fs__stat(const json_t *input, const char *key, const char *level, double *ci)
{
    const json_t *st = json_object_get(input, key);
    if (level)
        st = json_object_get(st, level);
    if (ci)
        *ci = fs__num(json_object_get(st, "ci95"));
    return fs__num(json_object_get(st, "value"));
}

/* A figure in a column of width w, "no data" when it has none. */
static void fs__cell(FILE *fp, int w, double v)
{
    if (isnan(v))
        fprintf(fp, "  %*s", w, "no data");
    else
        fprintf(fp, "  %*.6g", w, v);
}

int fs_sensitivity_table(const json_t *doc, FILE *fp, fs_error *err)
{
    const json_t *inputs = json_object_get(doc, "inputs");
    double base_ci, base = fs__stat(doc, "base", NULL, &base_ci);
    fputs("sensitivity of ", fp);
    fs_terminal_write(fp, json_string_value(json_object_get(doc, "metric")));
    fputs(" (policy ", fp);
    fs_terminal_write(fp, json_string_value(json_object_get(doc, "policy")));
    fprintf(fp, ", %lld replications of each point, common random numbers)\n",
            (long long)json_integer_value(json_object_get(doc, "replications")));
    if (isnan(base))
        fprintf(fp, "base (the scenario as written): no data\n");
    else
        fprintf(fp, "base (the scenario as written): %.6g +/- %.3g\n", base, base_ci);
    int w = 5;
    size_t k;
    const json_t *in;
    json_array_foreach(inputs, k, in) {
        int len = (int)strlen(json_string_value(json_object_get(in, "path")));
        w = len > w ? len : w;
    }
    fprintf(fp, "%4s  %-*s  %10s  %10s  %10s  |  %10s  %10s  %24s  %10s\n", "rank", w, "input", "low", "base",
            "high", "at low", "at high", "effect (high - low)", "elasticity");
    size_t noise = 0;
    json_array_foreach(inputs, k, in) {
        const char *path = json_string_value(json_object_get(in, "path"));
        fprintf(fp, "%4lld  ", (long long)json_integer_value(json_object_get(in, "rank")));
        fs_terminal_write(fp, path);
        fprintf(fp, "%*s", w - (int)strlen(path), "");
        fs__cell(fp, 10, fs__num(json_object_get(in, "low")));
        fs__cell(fp, 10, fs__num(json_object_get(in, "base")));
        fs__cell(fp, 10, fs__num(json_object_get(in, "high")));
        fputs("  |", fp);
        for (int end = 0; end < 2; end++) {
            const char *level = end ? "high" : "low";
            if (json_object_get(json_object_get(json_object_get(in, "values"), level), "refused"))
                fprintf(fp, "  %10s", "refused");
            else
                fs__cell(fp, 10, fs__stat(in, "values", level, NULL));
        }
        double ci, effect = fs__stat(in, "effect", NULL, &ci);
        char text[64];
        if (isnan(effect))
            snprintf(text, sizeof text, "no data");
        else if (isnan(ci))
            snprintf(text, sizeof text, "%+.6g (no interval)", effect);
        else
            snprintf(text, sizeof text, "%+.6g +/- %.3g", effect, ci);
        fprintf(fp, "  %24s", text);
        fs__cell(fp, 10, fs__num(json_object_get(in, "elasticity")));
        /* No effect at all is no data, not noise. */
        bool is_noise = !isnan(effect) && !json_is_true(json_object_get(in, "distinguishable"));
        noise += is_noise;
        fputs(is_noise ? "  noise\n" : "\n", fp);
    }
    json_array_foreach(inputs, k, in) {
        for (int end = 0; end < 2; end++) {
            const char *level = end ? "high" : "low";
            const char *why = json_string_value(
                json_object_get(json_object_get(json_object_get(in, "values"), level), "refused"));
            if (!why)
                continue;
            fputs("refused: ", fp);
            fs_terminal_write(fp, json_string_value(json_object_get(in, "path")));
            fprintf(fp, " at its %s value: ", level);
            fs_terminal_write(fp, why);
            fputc('\n', fp);
        }
    }
    if (noise)
        fprintf(fp, "noise: the effect's 95%% interval holds 0; not distinguishable from noise at %lld "
                    "replications\n",
                (long long)json_integer_value(json_object_get(doc, "replications")));
    return fs_results_csv_check(fp, err, "the table");
}

/* A CSV number: empty without data. */
static void fs__csv_num(FILE *fp, double v)
{
    fputc(',', fp);
    if (isfinite(v))
        fprintf(fp, "%.10g", v);
}

int fs_sensitivity_csv(const json_t *doc, FILE *fp, fs_error *err)
{
    fputs("rank,input,low,base,high,at_low,at_low_ci95,at_base,at_base_ci95,at_high,at_high_ci95,effect,"
          "effect_ci95,swing_low,swing_high,elasticity,distinguishable,refused\n",
          fp);
    size_t k;
    const json_t *in;
    json_array_foreach(json_object_get(doc, "inputs"), k, in) {
        fprintf(fp, "%lld,", (long long)json_integer_value(json_object_get(in, "rank")));
        fs_results_csv_field(fp, json_string_value(json_object_get(in, "path")));
        const char *values[3] = {"low", "base", "high"};
        for (int v = 0; v < 3; v++)
            fs__csv_num(fp, fs__num(json_object_get(in, values[v])));
        for (int v = 0; v < 3; v++) {
            double ci, x = fs__stat(in, "values", values[v], &ci);
            fs__csv_num(fp, x);
            fs__csv_num(fp, ci);
        }
        double ci, effect = fs__stat(in, "effect", NULL, &ci);
        fs__csv_num(fp, effect);
        fs__csv_num(fp, ci);
        fs__csv_num(fp, fs__stat(in, "swing_low", NULL, NULL));
        fs__csv_num(fp, fs__stat(in, "swing_high", NULL, NULL));
        fs__csv_num(fp, fs__num(json_object_get(in, "elasticity")));
        fprintf(fp, ",%s,", json_is_true(json_object_get(in, "distinguishable")) ? "true" : "false");
        /* The ends that could not start, "low" / "high" / "low high". */
        bool low = json_object_get(json_object_get(json_object_get(in, "values"), "low"), "refused") != NULL;
        bool high = json_object_get(json_object_get(json_object_get(in, "values"), "high"), "refused") != NULL;
        fputs(low && high ? "low high" : low ? "low" : high ? "high" : "", fp);
        fputc('\n', fp);
    }
    return fs_results_csv_check(fp, err, "sensitivity.csv");
}

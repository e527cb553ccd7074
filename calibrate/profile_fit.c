/* profile_fit — validation, the LLM step-time model, graph capture and the mixed
 * check (profile_fit.h). */
#include "profile_fit.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_fit.h>
#include <gsl/gsl_multifit.h>

#include "profile.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double fs_calib_quantile(double *x, size_t n, double q)
{
    if (n == 0)
        return NAN;
    qsort(x, n, sizeof *x, cmp_double);
    size_t rank = (size_t)ceil(q * (double)n);
    return x[rank == 0 ? 0 : rank - 1];
}

static void check_set(fs_calib_check *c, const char *what, const char *input, double measured, double predicted)
{
    snprintf(c->what, sizeof c->what, "%s", what);
    snprintf(c->input, sizeof c->input, "%s", input);
    c->measured_s = measured;
    c->predicted_s = predicted;
    c->error_pct = 100.0 * (predicted - measured) / measured;
}

/* ------------------------------------------------------------- series */

/* The largest size of a series, how many distinct sizes it has (counted up
 * to 3, all that matters here), and the median time at the largest size. */
static int series_top(const fs_calib_series *se, double *top, double *median)
{
    double distinct[3];
    size_t nd = 0, at_top = 0;
    *top = -INFINITY;
    for (size_t i = 0; i < se->n; i++) {
        size_t k = 0;
        while (k < nd && distinct[k] != se->bytes[i])
            k++;
        if (k == nd && nd < 3)
            distinct[nd++] = se->bytes[i];
        if (se->bytes[i] > *top)
            *top = se->bytes[i];
    }
    if (nd < 3)
        return -1;
    double *at = malloc(se->n * sizeof *at);
    if (!at)
        return -1;
    for (size_t i = 0; i < se->n; i++)
        if (se->bytes[i] == *top)
            at[at_top++] = se->seconds[i];
    /* The median as the profile's scalars take it (profile.h). */
    int rc = fs_calib_median(at, at_top, median);
    free(at);
    return rc;
}

/* Fits a series without its largest size and predicts that size. */
static int validate_series(const fs_calib_series *se, fs_calib_check *out)
{
    double top, measured, c0, c1, cov00, cov01, cov11, ss;
    size_t n = 0;
    if (series_top(se, &top, &measured) != 0)
        return 0;
    double *x = malloc(se->n * sizeof *x), *y = malloc(se->n * sizeof *y);
    if (!x || !y) {
        free(x);
        free(y);
        return 0;
    }
    for (size_t i = 0; i < se->n; i++)
        if (se->bytes[i] != top) {
            x[n] = se->bytes[i];
            y[n++] = se->seconds[i];
        }
    gsl_fit_linear(x, 1, y, 1, n, &c0, &c1, &cov00, &cov01, &cov11, &ss);
    free(x);
    free(y);
    char input[64];
    snprintf(input, sizeof input, "%.0f bytes", top);
    check_set(out, se->name, input, measured, c0 + c1 * top);
    return 1;
}

/* ----------------------------------------------------------- step time */

/* Column indices of the step_time table; "gemm" is -1 in profiles from
 * before the tool measured with cuBLAS (their steps are all gemm 0). */
typedef struct step_cols {
    int hidden, layers, prefill, batch, context, gemm, seconds;
} step_cols;

static int col(const fs_calib_table *t, const char *name)
{
    for (size_t c = 0; c < t->n_columns; c++)
        if (strcmp(t->columns[c], name) == 0)
            return (int)c;
    return -1;
}

static const fs_calib_table *find_table(const fs_calib_samples *s, const char *name)
{
    for (size_t i = 0; i < s->n_tables; i++)
        if (strcmp(s->tables[i].name, name) == 0)
            return &s->tables[i];
    return NULL;
}

static const fs_calib_table *step_table(const fs_calib_samples *s, step_cols *c)
{
    const fs_calib_table *t = find_table(s, "step_time");
    if (!t)
        return NULL;
    c->hidden = col(t, "hidden");
    c->layers = col(t, "layers");
    c->prefill = col(t, "prefill_tokens");
    c->batch = col(t, "batch");
    c->context = col(t, "context");
    c->gemm = col(t, "gemm");
    c->seconds = col(t, "seconds");
    if (c->hidden < 0 || c->layers < 0 || c->prefill < 0 || c->batch < 0 || c->context < 0 || c->seconds < 0)
        return NULL;
    return t;
}

static double cell(const fs_calib_table *t, size_t row, int c, double absent)
{
    return c < 0 ? absent : t->values[row * t->n_columns + (size_t)c];
}

/* Fits one (gemm, hidden): per-layer seconds against [1, T, B, B L] by
 * least squares weighted by 1 / seconds^2, so each step counts by its
 * relative error (a 100 ms prefill would otherwise outweigh every 0.2 ms
 * decode step, and the model is judged in per cent).  Mixed steps are left
 * out: they are the validation. */
static int fit_one_step_model(const fs_calib_table *t, const step_cols *c, fs_calib_step_model *m)
{
    size_t n = 0;
    for (size_t r = 0; r < t->n_rows; r++) {
        double prefill = cell(t, r, c->prefill, 0), batch = cell(t, r, c->batch, 0);
        if ((int)cell(t, r, c->gemm, 0) == m->gemm && (int)cell(t, r, c->hidden, 0) == m->hidden &&
            (prefill == 0) != (batch == 0))
            n++;
    }
    if (n < 5)
        return -1;
    gsl_matrix *X = gsl_matrix_alloc(n, 4), *cov = gsl_matrix_alloc(4, 4);
    gsl_vector *y = gsl_vector_alloc(n), *w = gsl_vector_alloc(n), *coef = gsl_vector_alloc(4);
    gsl_multifit_linear_workspace *ws = gsl_multifit_linear_alloc(n, 4);
    int rc = -1;
    if (!X || !cov || !y || !w || !coef || !ws)
        goto done;
    size_t i = 0;
    double wmean = 0, wsum = 0;
    for (size_t r = 0; r < t->n_rows; r++) {
        double prefill = cell(t, r, c->prefill, 0), batch = cell(t, r, c->batch, 0);
        if (!((int)cell(t, r, c->gemm, 0) == m->gemm && (int)cell(t, r, c->hidden, 0) == m->hidden &&
              (prefill == 0) != (batch == 0)))
            continue;
        double per_layer = cell(t, r, c->seconds, 0) / cell(t, r, c->layers, 1);
        gsl_matrix_set(X, i, 0, 1.0);
        gsl_matrix_set(X, i, 1, prefill);
        gsl_matrix_set(X, i, 2, batch);
        gsl_matrix_set(X, i, 3, batch * cell(t, r, c->context, 0));
        gsl_vector_set(y, i, per_layer);
        gsl_vector_set(w, i, 1.0 / (per_layer * per_layer));
        wmean += per_layer / (per_layer * per_layer);
        wsum += 1.0 / (per_layer * per_layer);
        i++;
    }
    double chisq;
    if (gsl_multifit_wlinear(X, w, y, coef, cov, &chisq, ws) != 0)
        goto done;
    /* Weighted R^2: 1 - chisq / the weighted total sum of squares. */
    wmean /= wsum;
    double tss = 0;
    for (size_t k = 0; k < n; k++) {
        double d = gsl_vector_get(y, k) - wmean;
        tss += gsl_vector_get(w, k) * d * d;
    }
    m->c0_s = gsl_vector_get(coef, 0);
    m->c_prefill_s = gsl_vector_get(coef, 1);
    m->c_decode_s = gsl_vector_get(coef, 2);
    m->c_kv_s = gsl_vector_get(coef, 3);
    m->r_squared = tss > 0 ? 1.0 - chisq / tss : 1.0;
    m->n = n;
    rc = 0;
done:
    gsl_multifit_linear_free(ws);
    gsl_vector_free(coef);
    gsl_vector_free(w);
    gsl_vector_free(y);
    gsl_matrix_free(cov);
    gsl_matrix_free(X);
    return rc;
}

size_t fs_calib_fit_steps(const fs_calib_samples *s, fs_calib_step_model *out, size_t cap)
{
    step_cols c;
    const fs_calib_table *t = step_table(s, &c);
    size_t n = 0;
    if (!t)
        return 0;
    /* Every (gemm, hidden) in the order the table first has it. */
    for (size_t r = 0; r < t->n_rows && n < cap; r++) {
        int gemm = (int)cell(t, r, c.gemm, 0), hidden = (int)cell(t, r, c.hidden, 0);
        size_t k = 0;
        while (k < n && !(out[k].gemm == gemm && out[k].hidden == hidden))
            k++;
        if (k < n)
            continue;
        memset(&out[n], 0, sizeof out[n]);
        out[n].gemm = gemm;
        out[n].hidden = hidden;
        if (fit_one_step_model(t, &c, &out[n]) == 0)
            n++;
    }
    return n;
}

/* The mixed steps of one model, each point's median against the model. */
static size_t validate_steps(const fs_calib_table *t, const step_cols *c, const fs_calib_step_model *m,
                             fs_calib_check *out, size_t cap)
{
    size_t rows = 0;
    double *reps = malloc(t->n_rows * sizeof *reps);
    if (!reps)
        return 0;
    for (size_t r = 0; r < t->n_rows && rows < cap; r++) {
        double prefill = cell(t, r, c->prefill, 0), batch = cell(t, r, c->batch, 0), ctx = cell(t, r, c->context, 0);
        if ((int)cell(t, r, c->gemm, 0) != m->gemm || (int)cell(t, r, c->hidden, 0) != m->hidden || prefill == 0 ||
            batch == 0)
            continue;
        /* The first row of each point gathers its repetitions. */
        bool seen = false;
        for (size_t q = 0; q < r && !seen; q++)
            seen = (int)cell(t, q, c->gemm, 0) == m->gemm && (int)cell(t, q, c->hidden, 0) == m->hidden &&
                   cell(t, q, c->prefill, 0) == prefill && cell(t, q, c->batch, 0) == batch &&
                   cell(t, q, c->context, 0) == ctx;
        if (seen)
            continue;
        size_t n = 0;
        for (size_t q = r; q < t->n_rows; q++)
            if ((int)cell(t, q, c->gemm, 0) == m->gemm && (int)cell(t, q, c->hidden, 0) == m->hidden &&
                cell(t, q, c->prefill, 0) == prefill && cell(t, q, c->batch, 0) == batch &&
                cell(t, q, c->context, 0) == ctx)
                reps[n++] = cell(t, q, c->seconds, 0) / cell(t, q, c->layers, 1);
        double measured = fs_calib_quantile(reps, n, 0.5);
        double predicted = m->c0_s + m->c_prefill_s * prefill + m->c_decode_s * batch + m->c_kv_s * batch * ctx;
        char what[48], input[64];
        snprintf(what, sizeof what, "step_time gemm %d H %d", m->gemm, m->hidden);
        snprintf(input, sizeof input, "T %.0f B %.0f L %.0f", prefill, batch, ctx);
        check_set(&out[rows++], what, input, measured, predicted);
    }
    free(reps);
    return rows;
}

size_t fs_calib_validate(const fs_calib_samples *s, fs_calib_check *out, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < s->n_series && n < cap; i++)
        n += (size_t)validate_series(&s->series[i], &out[n]);
    fs_calib_step_model models[FS_CALIB_MAX_STEP_MODELS];
    size_t nm = fs_calib_fit_steps(s, models, FS_CALIB_MAX_STEP_MODELS);
    step_cols c;
    const fs_calib_table *t = step_table(s, &c);
    for (size_t k = 0; t && k < nm && n < cap; k++)
        n += validate_steps(t, &c, &models[k], &out[n], cap - n);
    return n;
}

/* ------------------------------------------------------------- graphs */

int fs_calib_fit_graphs(const fs_calib_samples *s, fs_calib_graph_fit *out)
{
    const fs_calib_table *t = find_table(s, "graph_capture");
    int ck, cc, ci;
    if (!t || (ck = col(t, "kernels")) < 0 || (cc = col(t, "capture_s")) < 0 || (ci = col(t, "instantiate_s")) < 0 ||
        t->n_rows < 2)
        return -1;
    double *x = malloc(t->n_rows * sizeof *x), *y = malloc(t->n_rows * sizeof *y);
    bool distinct = false;
    int rc = -1;
    if (!x || !y)
        goto done;
    for (size_t r = 0; r < t->n_rows; r++) {
        x[r] = cell(t, r, ck, 0);
        y[r] = cell(t, r, cc, 0) + cell(t, r, ci, 0);
        distinct = distinct || x[r] != x[0];
    }
    if (distinct) {
        double cov00, cov01, cov11, ss;
        gsl_fit_linear(x, 1, y, 1, t->n_rows, &out->per_graph_s, &out->per_kernel_s, &cov00, &cov01, &cov11, &ss);
        out->n = t->n_rows;
        rc = 0;
    }
done:
    free(x);
    free(y);
    return rc;
}

/* ------------------------------------------------------------- mixed */

size_t fs_calib_mixed_trials(const fs_calib_samples *s, fs_calib_trial *out, size_t cap)
{
    const fs_calib_table *req = find_table(s, "mixed_requests"), *ph = find_table(s, "mixed_phases");
    int rt, ra, re, pt, pr;
    size_t n = 0;
    if (!req || !ph || (rt = col(req, "trial")) < 0 || (ra = col(req, "arrival_s")) < 0 || (re = col(req, "end_s")) < 0 ||
        (pt = col(ph, "trial")) < 0 || (pr = col(ph, "ready_s")) < 0)
        return 0;
    double *lat = malloc((req->n_rows ? req->n_rows : 1) * sizeof *lat);
    if (!lat)
        return 0;
    for (size_t p = 0; p < ph->n_rows && n < cap; p++) {
        int trial = (int)cell(ph, p, pt, 0);
        size_t k = 0;
        for (size_t r = 0; r < req->n_rows; r++)
            if ((int)cell(req, r, rt, 0) == trial)
                lat[k++] = cell(req, r, re, 0) - cell(req, r, ra, 0);
        out[n].trial = trial;
        out[n].requests = k;
        out[n].ready_s = cell(ph, p, pr, 0);
        out[n].p50_s = fs_calib_quantile(lat, k, 0.50);
        out[n].p99_s = fs_calib_quantile(lat, k, 0.99);
        out[n].max_s = fs_calib_quantile(lat, k, 1.0);
        n++;
    }
    free(lat);
    return n;
}

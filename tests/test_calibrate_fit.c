/*
 * test_calibrate_fit — the calibration profile's fits and validation table,
 * recomputed from recorded samples by independent arithmetic (closed-form
 * least squares, normal equations solved by Gaussian elimination here, not
 * GSL), on synthetic samples with known answers and on the profile measured
 * on an H100 (calibrate/profiles/h100-sxm-80gb.json), whose committed file
 * must be exactly what its samples give.
 */
#include <math.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "profile.h"
#include "profile_fit.h"
#include "profile_read.h"
#include "samples.h"
#include "testutil.h"

#define H100_PROFILE FS_SOURCE_DIR "/calibrate/profiles/h100-sxm-80gb.json"
#define H100_RAW FS_SOURCE_DIR "/calibrate/profiles/runs/2026-11-26-h100-run3/full.json"

static void assert_rel(double got, double want, double tol)
{
    if (!(fabs(got - want) <= tol * fabs(want))) {
        print_error("%.12g is not within %g of %.12g\n", got, tol, want);
        fail();
    }
}

/* ------------------------------------------------ independent arithmetic */

/* Ordinary least squares y = a + b x in closed form. */
static void ols(const double *x, const double *y, size_t n, double *a, double *b)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (size_t i = 0; i < n; i++) {
        sx += x[i];
        sy += y[i];
    }
    double mx = sx / (double)n, my = sy / (double)n;
    for (size_t i = 0; i < n; i++) {
        sxx += (x[i] - mx) * (x[i] - mx);
        sxy += (x[i] - mx) * (y[i] - my);
    }
    *b = sxy / sxx;
    *a = my - *b * mx;
}

/* Solves the 4 x 4 system A c = r by Gaussian elimination with partial
 * pivoting (A and r are overwritten). */
static void solve4(double A[4][4], double r[4], double c[4])
{
    for (int k = 0; k < 4; k++) {
        int piv = k;
        for (int i = k + 1; i < 4; i++)
            if (fabs(A[i][k]) > fabs(A[piv][k]))
                piv = i;
        for (int j = 0; j < 4; j++) {
            double t = A[k][j];
            A[k][j] = A[piv][j];
            A[piv][j] = t;
        }
        double t = r[k];
        r[k] = r[piv];
        r[piv] = t;
        for (int i = k + 1; i < 4; i++) {
            double f = A[i][k] / A[k][k];
            for (int j = k; j < 4; j++)
                A[i][j] -= f * A[k][j];
            r[i] -= f * r[k];
        }
    }
    for (int k = 3; k >= 0; k--) {
        double s = r[k];
        for (int j = k + 1; j < 4; j++)
            s -= A[k][j] * c[j];
        c[k] = s / A[k][k];
    }
}

static int col(const fs_calib_table *t, const char *name)
{
    for (size_t c = 0; c < t->n_columns; c++)
        if (strcmp(t->columns[c], name) == 0)
            return (int)c;
    return -1;
}

static const fs_calib_table *table(const fs_calib_samples *s, const char *name)
{
    for (size_t i = 0; i < s->n_tables; i++)
        if (strcmp(s->tables[i].name, name) == 0)
            return &s->tables[i];
    return NULL;
}

/* The step model of (gemm, hidden) by weighted normal equations:
 * sum w x x' c = sum w x y with w = 1 / y^2, over prefill-only and
 * decode-only steps, per layer. */
static void step_model_by_hand(const fs_calib_table *t, int gemm, int hidden, double c[4])
{
    int ch = col(t, "hidden"), cl = col(t, "layers"), cp = col(t, "prefill_tokens"), cb = col(t, "batch"),
        cc = col(t, "context"), cg = col(t, "gemm"), cs = col(t, "seconds");
    double A[4][4] = {{0}}, r[4] = {0};
    for (size_t i = 0; i < t->n_rows; i++) {
        const double *row = t->values + i * t->n_columns;
        double T = row[cp], B = row[cb];
        if ((cg >= 0 ? (int)row[cg] : 0) != gemm || (int)row[ch] != hidden || (T == 0) == (B == 0))
            continue;
        double y = row[cs] / row[cl], w = 1.0 / (y * y), x[4] = {1, T, B, B * row[cc]};
        for (int a = 0; a < 4; a++) {
            r[a] += w * x[a] * y;
            for (int b = 0; b < 4; b++)
                A[a][b] += w * x[a] * x[b];
        }
    }
    solve4(A, r, c);
}

/* ------------------------------------------------------- synthetic cases */

static void test_quantile_nearest_rank(void **state)
{
    (void)state;
    double x[] = {5, 1, 4, 2, 3};
    assert_true(fs_calib_quantile(x, 5, 0.5) == 3);  /* ceil(2.5) = 3rd */
    assert_true(fs_calib_quantile(x, 5, 0.99) == 5); /* ceil(4.95) = 5th */
    assert_true(fs_calib_quantile(x, 5, 0.2) == 1);  /* ceil(1.0) = 1st */
    assert_true(isnan(fs_calib_quantile(x, 0, 0.5)));
}

/* A series on an exact line predicts its largest size exactly; moving that
 * size's times moves the error by exactly as much. */
static void test_series_validation_synthetic(void **state)
{
    (void)state;
    fs_calib_samples s;
    memset(&s, 0, sizeof s);
    fs_calib_series *se = fs_calib_series_get(&s, "h2d_pinned");
    const double fixed = 8e-6, bw = 50e9;
    for (double b = 1 << 20; b <= (double)(1u << 30); b *= 4)
        for (int rep = 0; rep < 3; rep++)
            assert_int_equal(fs_calib_series_add(se, b, fixed + b / bw), 0);
    fs_calib_check c[4];
    assert_int_equal(fs_calib_validate(&s, c, 4), 1);
    assert_string_equal(c[0].what, "h2d_pinned");
    assert_string_equal(c[0].input, "1073741824 bytes");
    assert_rel(c[0].measured_s, fixed + 1073741824.0 / bw, 1e-12);
    assert_true(fabs(c[0].error_pct) < 1e-6);

    /* The largest size twice as slow: the fit of the others predicts half. */
    for (size_t i = 0; i < se->n; i++)
        if (se->bytes[i] == (double)(1u << 30))
            se->seconds[i] *= 2;
    assert_int_equal(fs_calib_validate(&s, c, 4), 1);
    assert_rel(c[0].error_pct, -50.0, 1e-6);

    /* Two distinct sizes: nothing to hold out. */
    fs_calib_samples_fini(&s);
    memset(&s, 0, sizeof s);
    se = fs_calib_series_get(&s, "d2h_pinned");
    assert_int_equal(fs_calib_series_add(se, 1e6, 1e-4), 0);
    assert_int_equal(fs_calib_series_add(se, 2e6, 2e-4), 0);
    assert_int_equal(fs_calib_validate(&s, c, 4), 0);
    fs_calib_samples_fini(&s);
}

/* Steps made from known coefficients are fitted back to them, and the mixed
 * steps (never fitted) are predicted exactly. */
static void test_step_model_synthetic(void **state)
{
    (void)state;
    fs_calib_samples s;
    memset(&s, 0, sizeof s);
    fs_calib_table *t =
        fs_calib_table_get(&s, "step_time", "hidden,layers,prefill_tokens,batch,context,kernels,gemm,seconds");
    assert_non_null(t);
    const double c0 = 9e-5, cp = 2.5e-7, cd = 1.2e-6, ckv = 3e-10, layers = 2;
    const double pre[] = {64, 256, 1024, 4096}, bat[] = {1, 16, 256}, ctx[] = {256, 4096};
    const double mixed[][3] = {{256, 16, 1024}, {512, 4, 4096}};
    for (size_t i = 0; i < 4; i++) {
        double row[8] = {4096, layers, pre[i], 0, 0, 6, 1, layers * (c0 + cp * pre[i])};
        assert_int_equal(fs_calib_table_add(t, row), 0);
    }
    for (size_t i = 0; i < 3; i++)
        for (size_t j = 0; j < 2; j++) {
            double row[8] = {4096, layers, 0, bat[i], ctx[j], 6, 1,
                             layers * (c0 + cd * bat[i] + ckv * bat[i] * ctx[j])};
            assert_int_equal(fs_calib_table_add(t, row), 0);
        }
    for (size_t i = 0; i < 2; i++)
        for (int rep = 0; rep < 3; rep++) {
            double T = mixed[i][0], B = mixed[i][1], L = mixed[i][2];
            double row[8] = {4096, layers, T, B, L, 6, 1, layers * (c0 + cp * T + cd * B + ckv * B * L)};
            assert_int_equal(fs_calib_table_add(t, row), 0);
        }
    fs_calib_step_model m[2];
    assert_int_equal(fs_calib_fit_steps(&s, m, 2), 1);
    assert_int_equal(m[0].gemm, 1);
    assert_int_equal(m[0].hidden, 4096);
    assert_int_equal((int)m[0].n, 10);
    assert_rel(m[0].c0_s, c0, 1e-9);
    assert_rel(m[0].c_prefill_s, cp, 1e-9);
    assert_rel(m[0].c_decode_s, cd, 1e-9);
    assert_rel(m[0].c_kv_s, ckv, 1e-9);
    assert_rel(m[0].r_squared, 1.0, 1e-9);
    fs_calib_check c[8];
    assert_int_equal(fs_calib_validate(&s, c, 8), 2);
    assert_string_equal(c[0].what, "step_time gemm 1 H 4096");
    assert_string_equal(c[0].input, "T 256 B 16 L 1024");
    assert_true(fabs(c[1].error_pct) < 1e-6);
    fs_calib_samples_fini(&s);
}

/* --------------------------------------------- the profile measured on an H100 */

static int read_h100(fs_calib_samples *s)
{
    char why[512];
    FILE *fp = fopen(H100_PROFILE, "r");
    if (!fp) {
        print_message("skipped: %s is absent\n", H100_PROFILE);
        return -1;
    }
    fclose(fp);
    if (fs_calib_profile_read(H100_PROFILE, s, why, sizeof why) != 0) {
        print_error("%s\n", why);
        fail();
    }
    return 0;
}

/* Every series check: the closed-form fit of all sizes but the largest,
 * predicting the median at the largest. */
static void test_h100_series_validation(void **state)
{
    (void)state;
    fs_calib_samples s;
    if (read_h100(&s) != 0)
        skip();
    fs_calib_check *c = malloc(FS_CALIB_MAX_CHECKS * sizeof *c);
    assert_non_null(c);
    size_t n = fs_calib_validate(&s, c, FS_CALIB_MAX_CHECKS), checked = 0;
    for (size_t i = 0; i < s.n_series; i++) {
        const fs_calib_series *se = &s.series[i];
        double top = 0, x[256], y[256], at[64], a, b;
        size_t m = 0, k = 0, distinct = 0;
        for (size_t j = 0; j < se->n; j++)
            top = fmax(top, se->bytes[j]);
        for (size_t j = 0; j < se->n; j++) {
            bool first = true;
            for (size_t q = 0; q < j; q++)
                first = first && se->bytes[q] != se->bytes[j];
            distinct += first;
        }
        if (distinct < 3)
            continue;
        assert_true(se->n <= 256);
        for (size_t j = 0; j < se->n; j++) {
            if (se->bytes[j] == top) {
                at[k++] = se->seconds[j];
            } else {
                x[m] = se->bytes[j];
                y[m++] = se->seconds[j];
            }
        }
        ols(x, y, m, &a, &b);
        /* median of the held-out repetitions */
        for (size_t p = 1; p < k; p++)
            for (size_t q = p; q > 0 && at[q - 1] > at[q]; q--) {
                double tmp = at[q];
                at[q] = at[q - 1];
                at[q - 1] = tmp;
            }
        double measured = k % 2 ? at[k / 2] : 0.5 * (at[k / 2 - 1] + at[k / 2]);
        size_t row = 0;
        while (row < n && strcmp(c[row].what, se->name) != 0)
            row++;
        assert_true(row < n);
        assert_rel(c[row].measured_s, measured, 1e-12);
        assert_rel(c[row].predicted_s, a + b * top, 1e-6);
        checked++;
    }
    print_message("%zu series checks recomputed\n", checked);
    assert_true(checked >= 15); /* copies, eviction, KV, storage: every series but storage_write */
    free(c);
    fs_calib_samples_fini(&s);
}

/* Every step model by the weighted normal equations, and every mixed step's
 * prediction from those coefficients. */
static void test_h100_step_models(void **state)
{
    (void)state;
    fs_calib_samples s;
    if (read_h100(&s) != 0)
        skip();
    const fs_calib_table *t = table(&s, "step_time");
    assert_non_null(t);
    fs_calib_step_model m[FS_CALIB_MAX_STEP_MODELS];
    size_t nm = fs_calib_fit_steps(&s, m, FS_CALIB_MAX_STEP_MODELS);
    assert_int_equal(nm, 6); /* own and cuBLAS GEMMs at H 2048, 4096, 8192 */
    for (size_t k = 0; k < nm; k++) {
        double c[4];
        step_model_by_hand(t, m[k].gemm, m[k].hidden, c);
        assert_rel(m[k].c0_s, c[0], 1e-6);
        assert_rel(m[k].c_prefill_s, c[1], 1e-6);
        assert_rel(m[k].c_decode_s, c[2], 1e-6);
        assert_rel(m[k].c_kv_s, c[3], 1e-6);
    }
    fs_calib_check *v = malloc(FS_CALIB_MAX_CHECKS * sizeof *v);
    assert_non_null(v);
    size_t n = fs_calib_validate(&s, v, FS_CALIB_MAX_CHECKS), steps = 0;
    for (size_t i = 0; i < n; i++) {
        int gemm, hidden;
        double T, B, L;
        if (sscanf(v[i].what, "step_time gemm %d H %d", &gemm, &hidden) != 2)
            continue;
        assert_int_equal(sscanf(v[i].input, "T %lf B %lf L %lf", &T, &B, &L), 3);
        double c[4];
        step_model_by_hand(t, gemm, hidden, c);
        assert_rel(v[i].predicted_s, c[0] + c[1] * T + c[2] * B + c[3] * B * L, 1e-6);
        assert_rel(v[i].error_pct, 100 * (v[i].predicted_s - v[i].measured_s) / v[i].measured_s, 1e-9);
        steps++;
    }
    assert_int_equal(steps, 18); /* 3 mixed points x 3 hidden sizes x 2 backends */
    free(v);
    fs_calib_samples_fini(&s);
}

/* The mixed check's latency quantiles, recomputed from every request. */
static void test_h100_mixed_check(void **state)
{
    (void)state;
    fs_calib_samples s;
    if (read_h100(&s) != 0)
        skip();
    const fs_calib_table *req = table(&s, "mixed_requests");
    assert_non_null(req);
    fs_calib_trial tr[FS_CALIB_MAX_TRIALS];
    size_t nt = fs_calib_mixed_trials(&s, tr, FS_CALIB_MAX_TRIALS);
    assert_int_equal(nt, 3);
    size_t total = 0;
    for (size_t k = 0; k < nt; k++) {
        double *lat = malloc(req->n_rows * sizeof *lat);
        size_t n = 0;
        assert_non_null(lat);
        for (size_t i = 0; i < req->n_rows; i++) {
            const double *row = req->values + i * req->n_columns;
            if ((int)row[0] != tr[k].trial)
                continue;
            /* a request starts no earlier than it arrives and ends after it starts */
            assert_true(row[2] >= row[1] - 1e-6);
            assert_true(row[3] > row[2]);
            lat[n++] = row[3] - row[1];
        }
        for (size_t p = 1; p < n; p++) /* insertion sort: independent of qsort */
            for (size_t q = p; q > 0 && lat[q - 1] > lat[q]; q--) {
                double tmp = lat[q];
                lat[q] = lat[q - 1];
                lat[q - 1] = tmp;
            }
        assert_int_equal(n, tr[k].requests);
        assert_true(tr[k].p99_s == lat[(size_t)ceil(0.99 * (double)n) - 1]);
        assert_true(tr[k].p50_s == lat[(size_t)ceil(0.50 * (double)n) - 1]);
        /* The switch is what the tail is made of: p99 within the time the
         * replica took to be ready (the requests queued behind it). */
        assert_true(tr[k].p99_s <= tr[k].ready_s + 0.1);
        assert_true(tr[k].p99_s > 0.5 * tr[k].ready_s);
        total += n;
        free(lat);
    }
    assert_int_equal(total, req->n_rows);
    fs_calib_samples_fini(&s);
}

/* The committed profile is exactly what its own samples give, and what the
 * tool's raw output of the same run gives: nothing in it was edited. */
static void test_h100_profile_is_its_samples(void **state)
{
    (void)state;
    fs_calib_samples s, raw;
    char why[512];
    if (read_h100(&s) != 0)
        skip();
    char *committed = test_slurp("%s", H100_PROFILE);
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    assert_non_null(mem);
    assert_int_equal(fs_calib_profile_write(&s, mem), 0);
    fclose(mem);
    assert_string_equal(buf, committed);
    free(buf);
    assert_int_equal(fs_calib_profile_read(H100_RAW, &raw, why, sizeof why), 0);
    mem = open_memstream(&buf, &len);
    assert_int_equal(fs_calib_profile_write(&raw, mem), 0);
    fclose(mem);
    assert_string_equal(buf, committed);
    free(buf);
    free(committed);
    fs_calib_samples_fini(&raw);
    fs_calib_samples_fini(&s);
}

/* Bad input names the file and the line and column, or the JSON path. */
static void test_read_errors(void **state)
{
    (void)state;
    fs_calib_samples s;
    char why[512], dir[256], path[512];
    assert_int_equal(test_tmpdir(dir, sizeof dir, "fleetsim-calfit"), 0);
    snprintf(path, sizeof path, "%s/p.json", dir);
    test_write(path, "{\"samples\": {\"series\": {\"h2d\": {\"bytes\": [1, 2], \"seconds\": [1]}}}}");
    assert_int_equal(fs_calib_profile_read(path, &s, why, sizeof why), -1);
    assert_non_null(strstr(why, "p.json: samples.series.h2d: 2 bytes against 1 seconds"));
    test_write(path, "{\"samples\": {\"tables\": {\"t\": {\"columns\": [\"a\", \"b\"], \"rows\": [[1]]}}}}");
    assert_int_equal(fs_calib_profile_read(path, &s, why, sizeof why), -1);
    assert_non_null(strstr(why, "p.json: samples.tables.t.rows[0]: 1 numbers for 2 columns"));
    test_write(path, "{\"samples\": {\"scalars\": {\"x\": [1, null]}}}");
    assert_int_equal(fs_calib_profile_read(path, &s, why, sizeof why), -1);
    assert_non_null(strstr(why, "samples.scalars.x[1]: expected a number"));
    test_write(path, "{\"context_s\": 0.5}");
    assert_int_equal(fs_calib_profile_read(path, &s, why, sizeof why), -1);
    assert_non_null(strstr(why, "samples: expected an object"));
    test_write(path, "{\"samples\": {\n  \"series\": [}");
    assert_int_equal(fs_calib_profile_read(path, &s, why, sizeof why), -1);
    assert_non_null(strstr(why, "p.json:2:"));
    test_rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quantile_nearest_rank),   cmocka_unit_test(test_series_validation_synthetic),
        cmocka_unit_test(test_step_model_synthetic),    cmocka_unit_test(test_h100_series_validation),
        cmocka_unit_test(test_h100_step_models),        cmocka_unit_test(test_h100_mixed_check),
        cmocka_unit_test(test_h100_profile_is_its_samples), cmocka_unit_test(test_read_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

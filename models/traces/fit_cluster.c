/*
 * fit_cluster — the clustered models fit-traffic tries when Poisson with the
 * profile (and groups, levels, growth) is still rejected: a random factor on
 * the fragment's rate, "noise" or a 2-state "mmpp", fitted to the counts'
 * dispersion at many time scales and tested at the report's scales (see
 * fit_model.h for the definitions).
 *
 * Why a factor's variance is all the fit needs: a window of length T whose
 * deterministic mean is E = d T (d the fragment's rate, constant within an
 * hour) holds a Poisson count given the factor, with mean E Mbar, Mbar the
 * factor's mean over the window.  So (Cox 1955, the mixed Poisson count)
 * Var N = E + E^2 Var Mbar and the third central moment is E + 3 E^2 Var
 * Mbar + E^3 k3(Mbar): the factor enters only through g(T) = Var Mbar and
 * h(T) = k3(Mbar), the same for every window of that length whatever its
 * E.  The fit matches the measured sums of (O-E)^2 and (O-E)^3 over the
 * windows of each scale to those.
 */
#include "fit.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_multimin.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const fs_fit_clustered_names[FS_FIT_N_CLUSTERED] = {"noise (gamma)", "mmpp (2 states)",
                                                                 "noise (lognormal, correlated)"};

/* ---- the factors' variances ------------------------------------------------ */

/* MMPP-2 with exit rates r_i = 1 / D_i and factors m_i (rps_i over the
 * stationary mean): the share of time in state 1 is p1 = D1 / (D1 + D2),
 * the factor's variance s2 = (m1 - m2)^2 p1 p2 and its autocovariance s2
 * e^(-s tau), s = r1 + r2.  Hence Var Mbar = 2 s2 / x (1 - (1 - e^-x) / x),
 * x = s T: times (lbar T) it is the cookbook's index of dispersion minus 1,
 * I(T) = 1 + 2 (l1 - l2)^2 r1 r2 / ((r1 + r2)^3 lbar) (1 - (1 - e^-x) / x)
 * (Fischer & Meier-Hellstern, "The Markov-modulated Poisson process (MMPP)
 * cookbook", Performance Evaluation 18, 1993).  The third moment: with y(t)
 * the centred state indicator, E[y(t2) | y(t1)] = y(t1) e^(-s (t2 - t1))
 * and y^2 = (p2 - p1) y + p1 p2 on both states, so for t1 < t2 < t3
 * E[y1 y2 y3] = p1 p2 (p2 - p1) e^(-s (t3 - t1)); integrated over the
 * ordered triples of [0, T], k3(Mbar) = 6 (m1 - m2)^3 p1 p2 (p2 - p1) J(x),
 * J(x) = (x - 2 + e^-x (x + 2)) / x^3 (a short derivation of ours, checked
 * against simulation in tests/test_fit_cluster.c). */
static double fs__mmpp_var(const fs_fit_clustered *c, double t, double *third)
{
    double d1 = c->sojourn_s[0], d2 = c->sojourn_s[1];
    double p1 = d1 / (d1 + d2), p2 = d2 / (d1 + d2), s = 1 / d1 + 1 / d2;
    double mean = p1 * c->rps[0] + p2 * c->rps[1];
    double delta = (c->rps[0] - c->rps[1]) / mean, x = s * t;
    /* 1 + expm1(-x) / x is 1 - (1 - e^-x) / x without its cancellation. */
    double shape = x < 1e-6 ? x / 2 : 1 + expm1(-x) / x;
    if (third) {
        /* J's series below 0.01, where its closed form cancels. */
        double j = x < 1e-2 ? 1.0 / 6 - x / 12 + x * x / 40 - x * x * x / 180
                            : (x - 2 + exp(-x) * (x + 2)) / (x * x * x);
        *third = 6 * delta * delta * delta * p1 * p2 * (p2 - p1) * j;
    }
    return 2 * delta * delta * p1 * p2 / x * shape;
}

/* Noise as modulation_noise.c draws it: X_k on [k D, (k + 1) D) from t = 0,
 * ln X_k an AR(1) chain with sigma^2 = ln(1 + cv^2), mu = -sigma^2 / 2 and
 * rho = e^(-D / correlation) (0 without one; a gamma factor has the same
 * second moments with rho 0), so Cov(X_j, X_k) = e^(sigma^2 rho^|j-k|) - 1
 * (the lognormal's moments).  A window does not start at an interval's
 * edge, so over a uniform phase the factor is stationary with R(tau)
 * linear between those covariances at tau = n D, and Var Mbar = (2 / T^2)
 * int_0^T (T - tau) R(tau) dtau.  The integrand is quadratic on each
 * interval, so Simpson's rule is exact there. */
static double fs__noise_cov(double sigma2, double rho, double n)
{
    return expm1(sigma2 * pow(rho, n));
}

static double fs__simpson(double t, double a, double b, double ra, double rb, double rm)
{
    return (b - a) / 6 * ((t - a) * ra + 4 * (t - (a + b) / 2) * rm + (t - b) * rb);
}

static double fs__noise_var(const fs_fit_clustered *c, double t)
{
    double d = c->interval_s, sigma2 = log1p(c->cv * c->cv);
    double rho = c->correlation_s > 0 ? exp(-d / c->correlation_s) : 0;
    /* Beyond `live` intervals the covariance is below 1e-14 of the variance. */
    double live = rho > 0 && rho < 1 ? log(1e-14) / log(rho) + 1 : 1;
    double segments = fmin(ceil(t / d), ceil(live)), sum = 0;
    if (segments <= 4096) {
        for (double k = 0; k < segments; k++) {
            double a = k * d, b = fmin((k + 1) * d, t), ca = fs__noise_cov(sigma2, rho, k);
            double cb = fs__noise_cov(sigma2, rho, k + 1), r_at_b = ca + (cb - ca) * (b - a) / d;
            sum += fs__simpson(t, a, b, ca, r_at_b, (ca + r_at_b) / 2);
        }
        return 2 * sum / (t * t);
    }
    /* Many intervals inside the correlation time (D << correlation): the
     * first interval exactly, then R(tau) = e^(sigma^2 e^(-tau/corr)) - 1,
     * which the interpolation follows closely there, by composite Simpson. */
    double c0 = fs__noise_cov(sigma2, rho, 0), c1 = fs__noise_cov(sigma2, rho, 1);
    sum = fs__simpson(t, 0, d, c0, c1, (c0 + c1) / 2);
    double end = fmin(t, segments * d), step = (end - d) / 2048;
    for (int k = 0; k < 2048; k++) {
        double a = d + k * step, b = a + step;
        sum += fs__simpson(t, a, b, fs__noise_cov(sigma2, rho, a / d), fs__noise_cov(sigma2, rho, b / d),
                           fs__noise_cov(sigma2, rho, (a + b) / 2 / d));
    }
    return 2 * sum / (t * t);
}

double fs_fit_clustered_var(fs_fit_clustered_kind kind, const fs_fit_clustered *c, double t, double *third)
{
    if (kind == FS_FIT_MMPP2)
        return fs__mmpp_var(c, t, third);
    if (third)
        *third = 0;
    return fs__noise_var(c, t);
}

/* ---- what the data say at each scale --------------------------------------- */

/* One scale T of the fit.  The second moment comes from adjacent windows
 * (k, k + 1), both fully observed: d = O1/E1 - O2/E2 has E[d^2] = 1/E1 +
 * 1/E2 + Var(Mbar1 - Mbar2) = 1/E1 + 1/E2 + 4 (g(T) - g(2T)) (Var of the
 * mean over 2T is (g(T) + Cov) / 2, so Cov = 2 g(2T) - g(T)).  A difference
 * leaves the profile out: its hourly rates were fitted to these very counts,
 * which shrinks (O-E)^2 at scales near a cell's length (in a one-hour trace,
 * to 0 at an hour), but not the ratio of two windows' rates.  The pairs are
 * weighted 1/v^2, v = 1/E1 + 1/E2 + the measured excess, and the sum's
 * variance is sum w^2 3 v^2: 2 v^2 for a Gaussian d, and half as much again
 * because each window is in two pairs (neighbouring d share it, correlation
 * -1/2, so their squares' covariance is v^2 / 2).  Differences are blind to
 * a factor slower than the scales, so the level is anchored by the windows'
 * own moments at scales up to 10 min and a twentieth of the span, where the
 * profile's shrinkage is small: sum (O-E)^2 has expectation sum E + E^2 g,
 * variance sum 2 V^2 + V, and (the MMPP's) sum (O-E)^3 expectation sum E +
 * 3 E^2 g + E^3 h, variance sum 15 V^3 + 25 V^2 + V, with V = E + E^2 g (a
 * Poisson count's exact figures when g = 0). */
typedef struct fs__cl_scale {
    double t, sw, r2, w2; /* pairs: sum w, sum w (d^2 - 1/E1 - 1/E2), its variance */
    bool level;  /* short scales: the windows' own moments below */
    double s1, s2, s3, q2, v2, r3, w3; /* sum E, E^2, E^3, (O-E)^2 and its variance, (O-E)^3 and its */
} fs__cl_scale;

typedef struct fs__cl_counts {
    const double *o, *e; /* per counting window; e divided by `per_e` */
    double per_e;
    const double *cover;
    size_t n;
    double window_s, span_s;
} fs__cl_counts;

/* Window k of `per` slots from slot j: its count, expectation and seconds. */
static void fs__cl_window(const fs__cl_counts *w, size_t j, size_t per, double *o, double *e, double *cover)
{
    *o = *e = *cover = 0;
    for (size_t i = j; i < j + per && i < w->n; i++) {
        *o += w->o[i];
        *e += w->e[i] / w->per_e;
        *cover += w->cover[i];
    }
}

/* The pairs' sums, weighted for an excess q (two passes: q from the first). */
static size_t fs__cl_pairs(const fs__cl_counts *w, double t, double q, fs__cl_scale *sc)
{
    size_t per = (size_t)(t / w->window_s), n = 0;
    sc->sw = sc->r2 = sc->w2 = 0;
    for (size_t j = 0; j + 2 * per <= w->n; j += per) {
        double o1, e1, c1, o2, e2, c2;
        fs__cl_window(w, j, per, &o1, &e1, &c1);
        fs__cl_window(w, j + per, per, &o2, &e2, &c2);
        if (!(e1 > 0 && e2 > 0) || c1 < t * (1 - 1e-9) || c2 < t * (1 - 1e-9))
            continue;
        double d = o1 / e1 - o2 / e2, poisson = 1 / e1 + 1 / e2, v = poisson + q, wt = 1 / (v * v);
        sc->sw += wt;
        sc->r2 += wt * (d * d - poisson);
        sc->w2 += wt * wt * 3 * v * v;
        n++;
    }
    return n;
}

static void fs__cl_level(const fs__cl_counts *w, double t, double g, fs__cl_scale *sc)
{
    size_t per = (size_t)(t / w->window_s), n = 0;
    for (size_t j = 0; j < w->n; j += per) {
        double o, e, cover;
        fs__cl_window(w, j, per, &o, &e, &cover);
        if (!(e > 0) || cover < t * (1 - 1e-9))
            continue;
        double v = e + e * e * g;
        sc->s1 += e;
        sc->s2 += e * e;
        sc->s3 += e * e * e;
        sc->q2 += (o - e) * (o - e);
        sc->v2 += 2 * v * v + v;
        sc->r3 += (o - e) * (o - e) * (o - e);
        sc->w3 += 15 * v * v * v + 25 * v * v + v;
        n++;
    }
    sc->level = n >= 10;
}

static bool fs__cl_measure(const fs__cl_counts *w, double t, fs__cl_scale *sc, fs_fit_factor_scale *out)
{
    memset(sc, 0, sizeof *sc);
    sc->t = t;
    if (fs__cl_pairs(w, t, 0, sc) < 10)
        return false;
    double q = fmax(0, sc->r2 / sc->sw);
    size_t n = fs__cl_pairs(w, t, q, sc);
    if (t <= 600 && t <= w->span_s / 20)
        fs__cl_level(w, t, q / 2, sc); /* g(T) >= q/4 with g(2T) >= 0; q/2 a middling guess for the weights */
    *out = (fs_fit_factor_scale){.window_s = t, .windows = n, .factor_diff = sc->r2 / sc->sw,
                                 .factor_diff_se = sqrt(sc->w2) / sc->sw};
    return true;
}

/* ---- the fit ----------------------------------------------------------------- */

typedef struct fs__cl_problem {
    fs_fit_clustered_kind kind;
    const fs__cl_scale *sc;
    size_t n;
    double longest; /* the bound on times: 10 x the span */
} fs__cl_problem;

static int fs__cl_params(fs_fit_clustered_kind kind)
{
    return kind == FS_FIT_NOISE_GAMMA ? 2 : 3;
}

/* x, unbounded, to the model: times are the scenario's floor + e^x (e^x
 * capped at 10 spans), cv = its cap / (1 + e^-x), the MMPP's quiet factor
 * 1 - u with u = 1 / (1 + e^-x) and its busy one what keeps the mean 1. */
static void fs__cl_decode(const fs__cl_problem *p, const double *x, fs_fit_clustered *c)
{
    double top = log(p->longest);
    double a = FS_FIT_MIN_MODULATION_S + exp(fmin(x[0], top)), b = FS_FIT_MIN_MODULATION_S + exp(fmin(x[1], top));
    memset(c, 0, sizeof *c);
    c->params = fs__cl_params(p->kind);
    if (p->kind == FS_FIT_MMPP2) {
        double u = 1 / (1 + exp(-x[2])), p1 = a / (a + b);
        c->sojourn_s[0] = a;
        c->sojourn_s[1] = b;
        c->rps[0] = 1 + (1 - p1) * u / p1;
        c->rps[1] = 1 - u;
        return;
    }
    c->cv = FS_FIT_MAX_NOISE_CV / (1 + exp(-x[0]));
    c->interval_s = b;
    if (p->kind == FS_FIT_NOISE_LOGNORMAL)
        c->correlation_s = FS_FIT_MIN_MODULATION_S + exp(fmin(x[2], top));
}

static double fs__cl_cost(const gsl_vector *v, void *params)
{
    const fs__cl_problem *p = params;
    fs_fit_clustered c;
    fs__cl_decode(p, v->data, &c);
    double cost = 0;
    for (size_t s = 0; s < p->n; s++) {
        const fs__cl_scale *sc = &p->sc[s];
        double h, g = fs_fit_clustered_var(p->kind, &c, sc->t, &h);
        double r = sc->r2 - sc->sw * 4 * (g - fs_fit_clustered_var(p->kind, &c, 2 * sc->t, NULL));
        cost += r * r / sc->w2;
        if (sc->level) {
            r = sc->q2 - sc->s1 - sc->s2 * g;
            cost += r * r / sc->v2;
        }
        if (p->kind == FS_FIT_MMPP2 && sc->level) {
            r = sc->r3 - sc->s1 - 3 * sc->s2 * g - sc->s3 * h;
            cost += r * r / sc->w3;
        }
    }
    /* The simplex refuses a value that is not finite. */
    return isfinite(cost) ? cost : 1e300;
}

/* The best point of a grid of starts: times spread geometrically from a
 * quarter window to the span, cv and u over their ranges. */
static void fs__cl_start(const fs__cl_problem *p, double shortest, double span, double *best)
{
    enum { TIMES = 8 };
    const double shares[4] = {0.1, 0.3, 0.6, 0.9}; /* cv / its cap and the MMPP's u */
    double times[TIMES], x[3], lowest = INFINITY;
    for (int k = 0; k < TIMES; k++)
        times[k] = log(fmax(shortest / 4, 1) * pow(span / fmax(shortest / 4, 1), k / (TIMES - 1.0)));
    int dims[3] = {TIMES, TIMES, 4};
    if (p->kind != FS_FIT_MMPP2)
        dims[0] = 4, dims[2] = p->kind == FS_FIT_NOISE_LOGNORMAL ? TIMES : 1;
    gsl_vector_view view = gsl_vector_view_array(x, 3);
    for (int i = 0; i < dims[0]; i++) {
        for (int j = 0; j < dims[1]; j++) {
            for (int k = 0; k < dims[2]; k++) {
                double share = shares[p->kind == FS_FIT_MMPP2 ? k : i];
                x[0] = p->kind == FS_FIT_MMPP2 ? times[i] : log(share / (1 - share));
                x[1] = times[j];
                x[2] = p->kind == FS_FIT_MMPP2 ? log(share / (1 - share)) : times[k];
                double cost = fs__cl_cost(&view.vector, (void *)p);
                if (cost < lowest) {
                    lowest = cost;
                    memcpy(best, x, sizeof x);
                }
            }
        }
    }
}

/* Nelder-Mead (gsl_multimin's nmsimplex2) from the grid's best, restarted
 * once from where it stops (a simplex can collapse early). */
static int fs__cl_minimise(fs__cl_problem *p, double *x, double *cost)
{
    size_t dim = (size_t)fs__cl_params(p->kind);
    gsl_multimin_function fn = {.f = fs__cl_cost, .n = dim, .params = p};
    gsl_vector *at = gsl_vector_alloc(dim), *step = gsl_vector_alloc(dim);
    gsl_multimin_fminimizer *mm = gsl_multimin_fminimizer_alloc(gsl_multimin_fminimizer_nmsimplex2, dim);
    if (!at || !step || !mm) {
        gsl_vector_free(at);
        gsl_vector_free(step);
        gsl_multimin_fminimizer_free(mm);
        return FS_ERR_RUNTIME;
    }
    for (int round = 0; round < 2; round++) {
        for (size_t k = 0; k < dim; k++)
            gsl_vector_set(at, k, x[k]);
        gsl_vector_set_all(step, 1);
        gsl_multimin_fminimizer_set(mm, &fn, at, step);
        for (int it = 0; it < 4000; it++) {
            if (gsl_multimin_fminimizer_iterate(mm) != GSL_SUCCESS)
                break;
            if (gsl_multimin_test_size(gsl_multimin_fminimizer_size(mm), 1e-7) == GSL_SUCCESS)
                break;
        }
        for (size_t k = 0; k < dim; k++)
            x[k] = gsl_vector_get(mm->x, k);
        *cost = mm->fval;
    }
    gsl_vector_free(at);
    gsl_vector_free(step);
    gsl_multimin_fminimizer_free(mm);
    return FS_OK;
}

/* The figures as the fragment prints them: 4 significant digits (rates 6,
 * so the MMPP's mean stays the base). */
static void fs__cl_round(fs_fit_clustered_kind kind, fs_fit_clustered *c, double base_rps)
{
    for (int i = 0; i < 2 && kind == FS_FIT_MMPP2; i++) {
        /* A quiet state within a millionth of silence is silent (on-off). */
        c->rps[i] = c->rps[i] < 1e-6 ? 0 : fs_fit_model_round(c->rps[i] * base_rps, 6);
        c->sojourn_s[i] = fmax(FS_FIT_MIN_MODULATION_S, fs_fit_model_round(c->sojourn_s[i], 4));
    }
    if (kind == FS_FIT_MMPP2)
        return;
    c->cv = fmin(FS_FIT_MAX_NOISE_CV, fs_fit_model_round(c->cv, 4));
    c->interval_s = fmax(FS_FIT_MIN_MODULATION_S, fs_fit_model_round(c->interval_s, 4));
    c->correlation_s = fs_fit_model_round(c->correlation_s, 4);
}

/* ---- the test and the choice -------------------------------------------------- */

/* The candidate at each of the report's scales: each window's (O-E)^2 / (E
 * I), I = 1 + E g(its observed seconds); z two-sided, |z| the worst. */
static void fs__cl_test(const fs__cl_counts *w, const fs_fit_model *m, fs_fit_clustered_kind kind,
                        fs_fit_clustered *c)
{
    c->worst_z = -INFINITY;
    for (size_t s = 0; s < m->n_scales; s++) {
        const fs_fit_scale *sc = &m->scale[s];
        size_t per = (size_t)(sc->window_s / w->window_s), n = 0;
        double full = fs_fit_clustered_var(kind, c, sc->window_s, NULL), sum = 0, var = 0, index = 0;
        c->model_index[s] = c->z[s] = c->p_value[s] = NAN;
        for (size_t j = 0; j < w->n; j += per) {
            double o, e, cover;
            fs__cl_window(w, j, per, &o, &e, &cover);
            if (!(e > 0))
                continue;
            double g = cover >= sc->window_s * (1 - 1e-9) ? full : fs_fit_clustered_var(kind, c, cover, NULL);
            double i = 1 + e * g;
            sum += (o - e) * (o - e) / (e * i);
            var += 2 + 1 / (e * i);
            index += i;
            n++;
        }
        if (n < 10)
            continue;
        c->model_index[s] = index / (double)n;
        c->z[s] = (sum - (double)n) / sqrt(var);
        /* Two-sided: a model with more dispersion than the data is wrong too. */
        c->p_value[s] = 2 * gsl_cdf_ugaussian_Q(fabs(c->z[s]));
        c->worst_z = fmax(c->worst_z, fabs(c->z[s]));
        c->rejected = c->rejected || c->p_value[s] < FS_FIT_REJECT_P;
    }
}

/* The fit scales: the counting window's multiples up to 2 days that leave
 * 10 fully observed windows. */
static size_t fs__cl_scales(const fs__cl_counts *w, fs_fit_model *m, fs__cl_scale *sc)
{
    static const double ladder[] = {1,   2,    5,    10,   15,    20,    30,    60,    120,   180,   240,  300,
                                    600, 900, 1200, 1800, 3600, 7200, 10800, 21600, 43200, 86400, 172800};
    size_t n = 0;
    for (size_t k = 0; k < sizeof ladder / sizeof ladder[0] && n < FS_FIT_MAX_FIT_SCALES; k++) {
        double t = ladder[k];
        if (t < w->window_s || fmod(t, w->window_s) != 0)
            continue;
        if (fs__cl_measure(w, t, &sc[n], &m->factor_scale[n]))
            n++;
    }
    m->n_factor_scales = n;
    return n;
}

/* One candidate: fitted when its residuals outnumber its parameters. */
static int fs__cl_fit_one(const fs__cl_counts *w, const fs_fit_model *m, fs__cl_problem *p, double base,
                          fs_fit_clustered *c)
{
    size_t residuals = p->n;
    for (size_t s = 0; s < p->n; s++)
        residuals += (size_t)p->sc[s].level * (p->kind == FS_FIT_MMPP2 ? 2 : 1);
    memset(c, 0, sizeof *c);
    c->params = fs__cl_params(p->kind);
    c->worst_z = NAN;
    if (residuals <= (size_t)c->params)
        return FS_OK;
    double x[3] = {0}, cost = 0, span = p->longest / 10;
    fs__cl_start(p, p->sc[0].t, span, x);
    int rc = fs__cl_minimise(p, x, &cost);
    if (rc != FS_OK)
        return rc;
    fs__cl_decode(p, x, c);
    c->cost = cost;
    fs__cl_round(p->kind, c, base);
    c->fitted = isfinite(cost) && cost < 1e300;
    if (c->fitted)
        fs__cl_test(w, m, p->kind, c);
    return FS_OK;
}

/* The why: the candidate chosen and how it fared. */
static void fs__cl_why(fs_fit_model *m)
{
    size_t len = strlen(m->why);
    const fs_fit_clustered *c = &m->clustered[m->modulation];
    if (len + 1 >= sizeof m->why)
        return;
    snprintf(m->why + len, sizeof m->why - len, "; + %s (the %s of %d clustered models fitted%s): %s",
             fs_fit_clustered_names[m->modulation], c->rejected ? "best by the test" : "first not rejected",
             FS_FIT_N_CLUSTERED, m->clustered_on_groups ? ", on group counts" : "",
             c->rejected ? "still rejected, largest z at a scale" : "not rejected at any scale");
    len = strlen(m->why);
    if (c->rejected && len + 1 < sizeof m->why)
        snprintf(m->why + len, sizeof m->why - len, " %.3g", c->worst_z);
}

static int fs__cl_fit_all(const fs_fit_acc *acc, fs_fit *f, const double *e, double scale);

/* e without the listed bursts, scaled to the same total: a clustered model
 * makes its own bursts, so its fragment lists none (they would count
 * twice), and its base carries their arrivals.  Returns the scale. */
static double fs__cl_without_bursts(const fs_fit_acc *acc, const fs_fit *f, const double *e, double *out)
{
    double with = 0, without = 0;
    memcpy(out, e, acc->n_windows * sizeof *out);
    for (size_t b = 0; b < f->n_listed; b++)
        for (size_t k = f->bursts[b].first_window; k < f->bursts[b].first_window + f->bursts[b].n_windows; k++)
            out[k] /= f->bursts[b].multiplier;
    for (size_t k = 0; k < acc->n_windows; k++) {
        with += e[k];
        without += out[k];
    }
    double scale = without > 0 ? with / without : 1;
    for (size_t k = 0; k < acc->n_windows; k++)
        out[k] *= scale;
    return scale;
}

/* The measured index against e at each of the report's scales. */
static void fs__cl_index(const fs__cl_counts *w, fs_fit_model *m)
{
    for (size_t s = 0; s < m->n_scales; s++) {
        size_t per = (size_t)(m->scale[s].window_s / w->window_s), n = 0;
        double sum = 0;
        for (size_t j = 0; j < w->n; j += per) {
            double o, e, cover;
            fs__cl_window(w, j, per, &o, &e, &cover);
            if (e > 0) {
                sum += (o - e) * (o - e) / e;
                n++;
            }
        }
        m->clustered_index[s] = n >= 10 ? sum / (double)n : NAN;
    }
}

int fs__fit_clustered(const fs_fit_acc *acc, fs_fit *f, const double *e_in, fs_error *err)
{
    fs_fit_model *m = &f->model;
    m->modulation = -1;
    if (!m->rejected || !(acc->window_s > 0) || acc->n_windows == 0)
        return FS_OK;
    double *e = malloc(acc->n_windows * sizeof *e);
    if (!e)
        return fs_error_set(err, FS_ERR_RUNTIME, "out of memory for %zu windows of the fit", acc->n_windows);
    double scale = fs__cl_without_bursts(acc, f, e_in, e);
    int rc = fs__cl_fit_all(acc, f, e, scale);
    free(e);
    if (rc != FS_OK)
        return fs_error_set(err, rc, "out of memory for the clustered models' fit");
    return FS_OK;
}

/* The candidates against e (without bursts; the base times `scale`), and
 * the choice. */
static int fs__cl_fit_all(const fs_fit_acc *acc, fs_fit *f, const double *e, double scale)
{
    fs_fit_model *m = &f->model;
    double base = fs_fit_model_round(m->base_rps * scale, 4);
    m->clustered_tried = true;
    m->clustered_on_groups = m->groups.printed;
    m->clustered_base_rps = base;
    fs__cl_counts w = {.o = m->clustered_on_groups ? acc->win_groups : acc->win_count, .e = e,
                       .per_e = m->clustered_on_groups ? m->groups.law_mean : 1, .cover = acc->win_cover,
                       .n = acc->n_windows, .window_s = acc->window_s, .span_s = acc->last_s - acc->first_s};
    fs__cl_scale sc[FS_FIT_MAX_FIT_SCALES];
    fs__cl_problem p = {.sc = sc, .n = fs__cl_scales(&w, m, sc), .longest = 10 * (acc->last_s - acc->first_s)};
    fs__cl_index(&w, m);
    if (p.n == 0)
        return FS_OK;
    /* A failed step comes back as a status: GSL's handler would abort. */
    gsl_error_handler_t *handler = gsl_set_error_handler_off();
    int rc = FS_OK, best = -1;
    for (int k = 0; k < FS_FIT_N_CLUSTERED && rc == FS_OK; k++) {
        p.kind = (fs_fit_clustered_kind)k;
        rc = fs__cl_fit_one(&w, m, &p, base, &m->clustered[k]);
        const fs_fit_clustered *c = &m->clustered[k];
        if (rc != FS_OK || !c->fitted || !isfinite(c->worst_z))
            continue;
        bool first_good = !c->rejected && (best < 0 || m->clustered[best].rejected);
        if (first_good || (best < 0 || (m->clustered[best].rejected && c->worst_z < m->clustered[best].worst_z)))
            best = k;
    }
    gsl_set_error_handler(handler);
    if (rc != FS_OK || best < 0)
        return rc;
    /* The fragment: this base (or the printed states' stationary mean, which
     * replaces it), no bursts; the expected count follows what is printed. */
    const fs_fit_clustered *c = &m->clustered[best];
    double p1 = c->sojourn_s[0] / (c->sojourn_s[0] + c->sojourn_s[1]);
    double printed = best == FS_FIT_MMPP2 ? p1 * c->rps[0] + (1 - p1) * c->rps[1] : base;
    m->expected *= printed / (m->base_rps * scale);
    m->base_rps = base;
    m->modulation = best;
    m->rejected = c->rejected;
    fs__cl_why(m);
    return FS_OK;
}

#include "theory.h"

#include <assert.h>
#include <math.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_roots.h>

double fs_theory_erlang_b(unsigned c, double a)
{
    assert(a >= 0.0);
    double b = 1.0;
    for (unsigned k = 1; k <= c; k++)
        b = a * b / ((double)k + a * b);
    return b;
}

double fs_theory_erlang_c(unsigned c, double lambda, double mu)
{
    assert(c >= 1 && mu > 0.0 && lambda >= 0.0 && lambda < (double)c * mu);
    double a = lambda / mu;
    double b = fs_theory_erlang_b(c, a);
    return (double)c * b / ((double)c - a * (1.0 - b));
}

double fs_theory_mmc_mean_wait(unsigned c, double lambda, double mu)
{
    return fs_theory_erlang_c(c, lambda, mu) / ((double)c * mu - lambda);
}

double fs_theory_mmc_mean_response(unsigned c, double lambda, double mu)
{
    return fs_theory_mmc_mean_wait(c, lambda, mu) + 1.0 / mu;
}

/* P(X + Y > t) for independent X ~ Exp(r), Y ~ Exp(s).  The textbook form
 * (s e^{-rt} - r e^{-st}) / (s - r) loses digits as s -> r (near theta == mu
 * a 1e-9 gap leaves about 7).  Factored around the slower rate it is
 * e^{-rt} (1 + r (1 - e^{-dt}) / d) with d = s - r >= 0: expm1 keeps the
 * ratio accurate for any d, nothing can overflow, and the series t (1 - dt/2)
 * takes over where dt is too small to divide by (including d == 0, the limit
 * (1 + rt) e^{-rt}).  So no tolerance on theta == mu is needed. */
static double fs__hypoexp_ccdf(double r, double s, double t)
{
    if (r > s) {
        double tmp = r;
        r = s;
        s = tmp;
    }
    double d = s - r;
    double x = d * t;
    double h = x < 1e-8 ? t * (1.0 - x / 2.0) : -expm1(-x) / d;
    return exp(-r * t) * (1.0 + r * h);
}

double fs_theory_mmc_response_ccdf(unsigned c, double lambda, double mu, double t)
{
    if (t <= 0.0)
        return 1.0;
    double cw = fs_theory_erlang_c(c, lambda, mu);
    double theta = (double)c * mu - lambda;
    return (1.0 - cw) * exp(-mu * t) + cw * fs__hypoexp_ccdf(mu, theta, t);
}

struct fs__quantile_args {
    unsigned c;
    double lambda, mu, tail;
};

static double fs__quantile_f(double t, void *p)
{
    const struct fs__quantile_args *a = p;
    return fs_theory_mmc_response_ccdf(a->c, a->lambda, a->mu, t) - a->tail;
}

double fs_theory_mmc_response_quantile(unsigned c, double lambda, double mu, double q)
{
    assert(q >= 0.0 && q < 1.0);
    if (q == 0.0)
        return 0.0;

    struct fs__quantile_args args = {c, lambda, mu, 1.0 - q};
    gsl_function f = {fs__quantile_f, &args};

    /* f(0) = q > 0 and the CCDF falls to 0 > -(1-q), so doubling ends; the
     * cap only guards against a NaN from bad input. */
    double hi = 1.0 / mu;
    for (int k = 0; fs__quantile_f(hi, &args) >= 0.0; k++) {
        if (k == 2100)
            return NAN;
        hi *= 2.0;
    }

    gsl_root_fsolver *s = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
    if (!s)
        return NAN;
    double root = NAN;
    if (gsl_root_fsolver_set(s, &f, 0.0, hi) == GSL_SUCCESS) {
        for (int iter = 0; iter < 200; iter++) {
            if (gsl_root_fsolver_iterate(s) != GSL_SUCCESS)
                break;
            root = gsl_root_fsolver_root(s);
            double lo = gsl_root_fsolver_x_lower(s), up = gsl_root_fsolver_x_upper(s);
            if (gsl_root_test_interval(lo, up, 0.0, 1e-12) == GSL_SUCCESS)
                break;
        }
    }
    gsl_root_fsolver_free(s);
    return root;
}

double fs_theory_mg1_mean_wait(double lambda, double es, double es2)
{
    double rho = lambda * es;
    assert(lambda >= 0.0 && es > 0.0 && es2 >= 0.0 && rho < 1.0);
    return lambda * es2 / (2.0 * (1.0 - rho));
}

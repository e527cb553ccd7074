/*
 * Each result is checked against something computed another way: the direct
 * factorial sums for Erlang B and C, the M/M/1 closed forms, the first two
 * moments of the response time integrated numerically from the CCDF, and the
 * textbook CCDF evaluated in long double near theta == mu.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_integration.h>

#include "theory.h"

static const unsigned SERVERS[] = {1, 2, 5, 10, 20};
#define N_SERVERS (sizeof SERVERS / sizeof SERVERS[0])

static const double TAIL_Q[] = {0.5, 0.9, 0.99, 0.999, 0.9999};
#define N_TAIL_Q (sizeof TAIL_Q / sizeof TAIL_Q[0])

static void assert_rel(double got, double want, double tol, const char *what)
{
    double err = fabs(got - want);
    if (!(err <= tol * fabs(want))) {
        print_error("%s: got %.17g want %.17g (rel err %g > %g)\n", what, got, want,
                    err / fabs(want), tol);
        fail();
    }
}

/* Sum of a^k / k! for k = 0..upto, term by term; *last gets the k = c term. */
static double poisson_terms(unsigned c, double a, unsigned upto, double *last)
{
    double sum = 0.0;
    for (unsigned k = 0; k <= upto; k++)
        sum += pow(a, k) / tgamma(k + 1.0);
    *last = pow(a, c) / tgamma(c + 1.0);
    return sum;
}

static double direct_erlang_b(unsigned c, double a)
{
    double top;
    double sum = poisson_terms(c, a, c, &top);
    return top / sum;
}

static double direct_erlang_c(unsigned c, double a)
{
    double top;
    double sum = poisson_terms(c, a, c - 1, &top);
    double waiting = top * c / (c - a);
    return waiting / (sum + waiting);
}

static void test_erlang_b_direct(void **state)
{
    (void)state;
    static const double loads_per_server[] = {0.05, 0.3, 0.7, 0.9, 1.0, 1.5, 3.0};
    for (size_t i = 0; i < N_SERVERS; i++) {
        unsigned c = SERVERS[i];
        for (size_t j = 0; j < sizeof loads_per_server / sizeof loads_per_server[0]; j++) {
            double a = loads_per_server[j] * c;
            assert_rel(fs_theory_erlang_b(c, a), direct_erlang_b(c, a), 1e-12, "erlang b");
        }
    }
    /* By hand: B(1, a) = a / (1 + a); B(2, 1) = (1/2) / (1 + 1 + 1/2). */
    assert_rel(fs_theory_erlang_b(1, 3.0), 0.75, 1e-15, "B(1,3)");
    assert_rel(fs_theory_erlang_b(2, 1.0), 0.2, 1e-15, "B(2,1)");
    assert_true(fs_theory_erlang_b(0, 2.0) == 1.0);
    assert_true(fs_theory_erlang_b(5, 0.0) == 0.0);
    /* Large c, where the factorial form would overflow: still a probability,
     * and blocking falls as servers are added at fixed load. */
    double prev = 1.0;
    for (unsigned c = 100; c <= 1000; c += 100) {
        double b = fs_theory_erlang_b(c, 800.0);
        assert_true(b > 0.0 && b < prev);
        prev = b;
    }
}

static void test_erlang_c_direct(void **state)
{
    (void)state;
    static const double rhos[] = {0.1, 0.5, 0.8, 0.95, 0.99};
    static const double mus[] = {1.0, 3.7};
    for (size_t i = 0; i < N_SERVERS; i++) {
        unsigned c = SERVERS[i];
        for (size_t j = 0; j < sizeof rhos / sizeof rhos[0]; j++) {
            for (size_t m = 0; m < sizeof mus / sizeof mus[0]; m++) {
                double mu = mus[m], lambda = rhos[j] * c * mu;
                double want = direct_erlang_c(c, lambda / mu);
                double cw = fs_theory_erlang_c(c, lambda, mu);
                assert_rel(cw, want, 1e-12, "erlang c");
                assert_rel(fs_theory_mmc_mean_wait(c, lambda, mu), want / (c * mu - lambda),
                           1e-12, "mmc mean wait");
                assert_rel(fs_theory_mmc_mean_response(c, lambda, mu),
                           want / (c * mu - lambda) + 1.0 / mu, 1e-12, "mmc mean response");
            }
        }
    }
    /* By hand: M/M/2 at lambda = mu = 1 has P0 = 1/3 and C = 1/3. */
    assert_rel(fs_theory_erlang_c(2, 1.0, 1.0), 1.0 / 3.0, 1e-15, "C(2,1)");
    assert_rel(fs_theory_mmc_mean_wait(2, 1.0, 1.0), 1.0 / 3.0, 1e-15, "Wq(2,1)");
    /* Pooling: at the same utilisation, more servers wait less often. */
    double prev = 1.0;
    for (unsigned c = 1; c <= 64; c *= 2) {
        double cw = fs_theory_erlang_c(c, 0.8 * c, 1.0);
        assert_true(cw < prev);
        prev = cw;
    }
}

static void test_mm1_closed_form(void **state)
{
    (void)state;
    static const double rhos[] = {0.1, 0.5, 0.9, 0.99};
    static const double mus[] = {1.0, 0.25, 1e3};
    for (size_t j = 0; j < sizeof rhos / sizeof rhos[0]; j++) {
        for (size_t m = 0; m < sizeof mus / sizeof mus[0]; m++) {
            double rho = rhos[j], mu = mus[m], lambda = rho * mu, rate = mu - lambda;
            assert_rel(fs_theory_erlang_c(1, lambda, mu), rho, 1e-12, "mm1 C");
            assert_rel(fs_theory_mmc_mean_wait(1, lambda, mu), rho / rate, 1e-12, "mm1 Wq");
            assert_rel(fs_theory_mmc_mean_response(1, lambda, mu), 1.0 / rate, 1e-12, "mm1 W");
            for (double t = 0.0; t <= 20.0 / rate; t += 0.37 / rate)
                assert_rel(fs_theory_mmc_response_ccdf(1, lambda, mu, t), exp(-rate * t), 1e-12,
                           "mm1 ccdf");
            for (size_t k = 0; k < N_TAIL_Q; k++) {
                double q = TAIL_Q[k];
                assert_rel(fs_theory_mmc_response_quantile(1, lambda, mu, q),
                           -log1p(-q) / rate, 1e-9, "mm1 quantile");
            }
        }
    }
}

static void test_quantile_inverts_ccdf(void **state)
{
    (void)state;
    static const unsigned cs[] = {1, 2, 3, 8, 16, 64};
    static const double rhos[] = {0.3, 0.7, 0.9, 0.99};
    const double mu = 2.5;
    for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++) {
        for (size_t j = 0; j < sizeof rhos / sizeof rhos[0]; j++) {
            unsigned c = cs[i];
            double lambda = rhos[j] * c * mu, prev = 0.0;
            for (size_t k = 0; k < N_TAIL_Q; k++) {
                double q = TAIL_Q[k];
                double t = fs_theory_mmc_response_quantile(c, lambda, mu, q);
                assert_true(t > prev);
                prev = t;
                assert_rel(fs_theory_mmc_response_ccdf(c, lambda, mu, t), 1.0 - q, 1e-9,
                           "ccdf(quantile)");
            }
            /* Never shorter than the service time's own quantile. */
            assert_true(prev >= -log1p(-TAIL_Q[N_TAIL_Q - 1]) / mu * (1.0 - 1e-12));
        }
    }
    assert_true(fs_theory_mmc_response_quantile(4, 2.0, 1.0, 0.0) == 0.0);
    assert_true(fs_theory_mmc_response_ccdf(4, 2.0, 1.0, 0.0) == 1.0);
}

/* The textbook form (theta e^{-mu t} - mu e^{-theta t}) / (theta - mu) in long
 * double: a different formula at higher precision, good to ~1e-19 / |theta - mu|. */
static double textbook_ccdf(unsigned c, double lambda, double mu, double t)
{
    long double cw = direct_erlang_c(c, lambda / mu);
    long double theta = (double)c * mu - lambda, m = mu, tt = t;
    long double hypo = (theta * expl(-m * tt) - m * expl(-theta * tt)) / (theta - m);
    return (double)((1.0L - cw) * expl(-m * tt) + cw * hypo);
}

static double series_ccdf(unsigned c, double lambda, double mu, double t)
{
    long double cw = direct_erlang_c(c, lambda / mu);
    long double theta = (double)c * mu - lambda, m = mu, tt = t;
    long double r = theta < m ? theta : m, d = fabsl(theta - m);
    long double term = tt, sum = 0.0L;
    for (int k = 1; fabsl(term) > 1e-30L * tt; k++) {
        sum += term;
        term *= -d * tt / (k + 1);
    }
    return (double)((1.0L - cw) * expl(-m * tt) + cw * expl(-r * tt) * (1.0L + r * sum));
}

static void test_theta_equals_mu(void **state)
{
    (void)state;
    /* c = 2, mu = 1, lambda = 1: theta = 2 - 1 = mu exactly, C = 1/3. */
    const double cw = 1.0 / 3.0;
    for (double t = 0.0; t <= 40.0; t += 0.25) {
        double want = (1.0 - cw) * exp(-t) + cw * (1.0 + t) * exp(-t);
        assert_rel(fs_theory_mmc_response_ccdf(2, 1.0, 1.0, t), want, 1e-13, "theta == mu");
    }
    for (size_t k = 0; k < N_TAIL_Q; k++) {
        double q = TAIL_Q[k], t = fs_theory_mmc_response_quantile(2, 1.0, 1.0, q);
        assert_rel(fs_theory_mmc_response_ccdf(2, 1.0, 1.0, t), 1.0 - q, 1e-9, "theta == mu q");
    }

    /* Approaching from both sides, and c = 5 where theta == mu needs
     * lambda = 4 mu: no jump, and agreement with the long double form where it
     * is still accurate. */
    static const double gaps[] = {1e-2, 1e-4, 1e-6, -1e-6, -1e-4, -1e-2};
    for (size_t g = 0; g < sizeof gaps / sizeof gaps[0]; g++) {
        for (double t = 0.1; t <= 30.0; t += 0.7) {
            double lambda2 = 1.0 + gaps[g], lambda5 = 4.0 * 3.0 * (1.0 + gaps[g]);
            double tol = 1e-17 / fabs(gaps[g]) + 1e-13;
            assert_rel(fs_theory_mmc_response_ccdf(2, lambda2, 1.0, t),
                       textbook_ccdf(2, lambda2, 1.0, t), tol, "near theta == mu, c=2");
            assert_rel(fs_theory_mmc_response_ccdf(5, lambda5, 3.0, t / 3.0),
                       textbook_ccdf(5, lambda5, 3.0, t / 3.0), tol, "near theta == mu, c=5");
        }
    }
    /* Gaps below 1e-9 relative, where the long double form has lost its
     * digits: against the same convolution written as a power series,
     * e^{-rt} (1 + r sum_k (-d)^k t^(k+1) / (k+1)!), summed in long double. */
    static const double tiny[] = {1e-10, 1e-13, -1e-13, -1e-10};
    for (size_t g = 0; g < sizeof tiny / sizeof tiny[0]; g++) {
        double lambda = 1.0 + tiny[g];
        for (double t = 0.1; t <= 30.0; t += 0.7) {
            assert_rel(fs_theory_mmc_response_ccdf(2, lambda, 1.0, t),
                       series_ccdf(2, lambda, 1.0, t), 1e-13, "theta ~= mu");
        }
    }
}

struct moment_args {
    unsigned c;
    double lambda, mu;
    int power; /* integrate power * t^(power-1) * ccdf(t) */
};

static double moment_integrand(double t, void *p)
{
    const struct moment_args *a = p;
    double w = a->power == 1 ? 1.0 : 2.0 * t;
    return w * fs_theory_mmc_response_ccdf(a->c, a->lambda, a->mu, t);
}

/* E[T] = int ccdf and E[T^2] = int 2t ccdf must match the moments of
 * wait + service: an independent check of the CCDF's shape for general c. */
static void test_ccdf_moments(void **state)
{
    (void)state;
    static const struct {
        unsigned c;
        double rho, mu;
    } cases[] = {
        {1, 0.5, 1.0}, {2, 0.9, 1.0},  /* theta < mu */
        {2, 0.5, 2.0},                 /* theta == mu */
        {8, 0.7, 0.5}, {32, 0.95, 4.0} /* theta > mu */
    };
    gsl_integration_workspace *ws = gsl_integration_workspace_alloc(1000);
    assert_non_null(ws);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        unsigned c = cases[i].c;
        double mu = cases[i].mu, lambda = cases[i].rho * c * mu;
        double cw = direct_erlang_c(c, lambda / mu), theta = c * mu - lambda;
        double m1 = cw / theta + 1.0 / mu;
        double m2 = 2.0 * cw / (theta * theta) + 2.0 * cw / (theta * mu) + 2.0 / (mu * mu);
        for (int power = 1; power <= 2; power++) {
            struct moment_args args = {c, lambda, mu, power};
            gsl_function f = {moment_integrand, &args};
            double got, abserr;
            assert_int_equal(gsl_integration_qagiu(&f, 0.0, 0.0, 1e-11, 1000, ws, &got, &abserr),
                             0);
            assert_rel(got, power == 1 ? m1 : m2, 1e-9, power == 1 ? "E[T]" : "E[T^2]");
        }
        assert_rel(fs_theory_mmc_mean_response(c, lambda, mu), m1, 1e-12, "mean response");
    }
    gsl_integration_workspace_free(ws);
}

static void test_pollaczek_khinchine(void **state)
{
    (void)state;
    static const double rhos[] = {0.1, 0.5, 0.9, 0.99};
    static const double mus[] = {1.0, 7.0};
    for (size_t j = 0; j < sizeof rhos / sizeof rhos[0]; j++) {
        for (size_t m = 0; m < sizeof mus / sizeof mus[0]; m++) {
            double rho = rhos[j], mu = mus[m], lambda = rho * mu;
            double mm1 = rho / (mu - lambda);
            /* Exponential service: E[S^2] = 2 / mu^2 gives back M/M/1. */
            double pk = fs_theory_mg1_mean_wait(lambda, 1.0 / mu, 2.0 / (mu * mu));
            assert_rel(pk, mm1, 1e-12, "PK exponential");
            assert_rel(pk, fs_theory_mmc_mean_wait(1, lambda, mu), 1e-12, "PK vs erlang c");
            /* Deterministic service halves the wait. */
            assert_rel(fs_theory_mg1_mean_wait(lambda, 1.0 / mu, 1.0 / (mu * mu)), mm1 / 2.0,
                       1e-12, "PK deterministic");
        }
    }
    /* By hand: lambda 0.5, S = 1 always: 0.5 * 1 / (2 * 0.5) = 0.5. */
    assert_rel(fs_theory_mg1_mean_wait(0.5, 1.0, 1.0), 0.5, 1e-15, "PK M/D/1");
    assert_true(fs_theory_mg1_mean_wait(0.0, 1.0, 2.0) == 0.0);
}

int main(void)
{
    gsl_set_error_handler_off(); /* failures come back as codes the tests assert on */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_erlang_b_direct),
        cmocka_unit_test(test_erlang_c_direct),
        cmocka_unit_test(test_mm1_closed_form),
        cmocka_unit_test(test_quantile_inverts_ccdf),
        cmocka_unit_test(test_theta_equals_mu),
        cmocka_unit_test(test_ccdf_moments),
        cmocka_unit_test(test_pollaczek_khinchine),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * theory — closed-form queueing results, the oracle the simulator is tested
 * against.  Test-only: nothing in the product links it.
 *
 * Conventions: lambda = arrival rate, mu = service rate of one server,
 * c = servers; rho = lambda / (c mu) < 1 for the M/M/c results.
 */
#ifndef FS_THEORY_H
#define FS_THEORY_H

/* Erlang B blocking probability for offered load a = lambda/mu Erlangs on c
 * servers (stable recurrence, no factorials). */
double fs_theory_erlang_b(unsigned c, double a);

/* Erlang C: probability that an arrival waits, M/M/c. */
double fs_theory_erlang_c(unsigned c, double lambda, double mu);

/* M/M/c FCFS: mean waiting time and mean response time. */
double fs_theory_mmc_mean_wait(unsigned c, double lambda, double mu);
double fs_theory_mmc_mean_response(unsigned c, double lambda, double mu);

/* M/M/c FCFS: P(response > t), response = wait + service, where the wait is 0
 * with probability 1 - C and otherwise Exp(c mu - lambda). */
double fs_theory_mmc_response_ccdf(unsigned c, double lambda, double mu, double t);

/* M/M/c FCFS: the q-quantile of the response time (q = 0.99 for p99), found
 * with a GSL bracketing root solver on the CCDF above. */
double fs_theory_mmc_response_quantile(unsigned c, double lambda, double mu, double q);

/* M/G/1 Pollaczek-Khinchine mean wait: lambda E[S^2] / (2 (1 - rho)), with
 * rho = lambda E[S]. */
double fs_theory_mg1_mean_wait(double lambda, double es, double es2);

#endif

/*
 * fit_model — the fragment fit-traffic prints, chosen and checked (see
 * fit_model.h for the definitions, fit.c for the calls).
 *
 * Four parts: the group law, the trend (a joint fit of hourly cells and day
 * factors, the growth regression and the day-to-day test), the refit that
 * leaves the listed bursts out and scales the base to the count, and the
 * dispersion at several time scales with the choice.
 */
#include "fit.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_fit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FS_HOUR 3600.0
#define FS_DAY 86400.0
#define FS_CELLS 48

double fs_fit_model_round(double x, int digits)
{
    if (!isfinite(x) || x == 0)
        return x;
    char buf[40];
    snprintf(buf, sizeof buf, "%.*g", digits, x);
    return strtod(buf, NULL);
}

/* ---- groups ---------------------------------------------------------------- */

static void fs__groups(const fs_fit_acc *acc, fs_fit_groups *g)
{
    double sumsq = 0, count[FS_FIT_GROUP_HIST + 1];
    memset(g, 0, sizeof *g);
    if (acc->rates)
        return;
    /* The group still open at the end counts as closed. */
    for (size_t s = 1; s <= FS_FIT_GROUP_HIST; s++) {
        count[s] = acc->group_hist[s] + (acc->group_open == s);
        g->points += count[s];
        g->requests += count[s] * (double)s;
        sumsq += count[s] * (double)s * (double)s;
        if (count[s] > 0)
            g->largest = (double)s;
    }
    double open = (double)acc->group_open, big = acc->group_big, big_sum = acc->group_big_sum;
    if (acc->group_open > FS_FIT_GROUP_HIST) {
        big += 1;
        big_sum += open;
        sumsq += open * open;
        g->largest = fmax(g->largest, open);
    }
    g->points += big;
    g->requests += big_sum;
    sumsq += acc->group_big_sumsq;
    if (!(g->points > 0))
        return;
    g->mean = g->requests / g->points;
    g->mean_square = sumsq / g->points;
    g->fitted = g->points > FS_FIT_GROUP_MIN_POINTS && g->mean > FS_FIT_GROUP_MIN_MEAN;
    if (!g->fitted)
        return;
    /* The most frequent sizes one by one, in size order; the rest (and every
     * size above the histogram) one bucket at its mean. */
    bool kept[FS_FIT_GROUP_HIST + 1] = {false};
    for (size_t k = 0; k + 1 < FS_FIT_MAX_GROUP_SIZES; k++) {
        size_t best = 0;
        for (size_t s = 1; s <= FS_FIT_GROUP_HIST; s++)
            if (!kept[s] && count[s] > 0 && (best == 0 || count[s] > count[best]))
                best = s;
        if (best == 0)
            break;
        kept[best] = true;
    }
    double tail_n = big, tail_sum = big_sum;
    for (size_t s = 1; s <= FS_FIT_GROUP_HIST; s++) {
        if (kept[s]) {
            g->size[g->n_sizes] = (uint32_t)s;
            g->weight[g->n_sizes++] = fs_fit_model_round(count[s] / g->points, 6);
        } else {
            tail_n += count[s];
            tail_sum += count[s] * (double)s;
        }
    }
    if (tail_n > 0) {
        uint32_t size = (uint32_t)floor(tail_sum / tail_n + 0.5);
        size_t k = 0;
        while (k < g->n_sizes && g->size[k] != size)
            k++;
        if (k == g->n_sizes) {
            g->size[k] = size;
            g->weight[k] = 0;
            g->n_sizes++;
        }
        g->weight[k] = fs_fit_model_round(g->weight[k] + tail_n / g->points, 6);
        g->tail_share = tail_n / g->points;
    }
    double w = 0, m1 = 0, m2 = 0;
    for (size_t k = 0; k < g->n_sizes; k++) {
        w += g->weight[k];
        m1 += g->weight[k] * g->size[k];
        m2 += g->weight[k] * (double)g->size[k] * g->size[k];
    }
    g->law_mean = m1 / w;
    g->law_mean_square = m2 / w;
}

/* ---- the trend ---------------------------------------------------------------- */

/* The mean of e^(slope t / 1 day) over [t0, t1]: the growth factor as
 * arrivals.c averages it over a piece (exact integral). */
static double fs__growth_mean(double slope, double t0, double t1)
{
    double a = slope * t0 / FS_DAY, x = slope * (t1 - t0) / FS_DAY;
    if (slope == 0)
        return 1;
    return x == 0 ? exp(a) : exp(a) * expm1(x) / x;
}

/* The observed part of hour i: from the first arrival to the last. */
static void fs__hour_span(const fs_fit_acc *acc, size_t i, double *t0, double *t1)
{
    *t0 = fmax((double)i * FS_HOUR, acc->first_s);
    *t1 = fmin((double)(i + 1) * FS_HOUR, acc->last_s);
    if (*t1 < *t0)
        *t1 = *t0;
}

/* Fits count_i ~ a[cell] b[day] growth_i cover_i by iterative proportional
 * fitting: at its fixed point every cell's and every day's expected count
 * equals its observed count (the Poisson maximum likelihood of the
 * log-linear model).  Without levels b stays 1 and one pass is exact. */
static void fs__ipf(const fs__fit_hours *h, bool levels, double a[FS_CELLS], double *b, size_t days)
{
    double num[FS_CELLS], den[FS_CELLS], dn[FS_FIT_MAX_LEVELS], dd[FS_FIT_MAX_LEVELS];
    for (size_t d = 0; d < days; d++)
        b[d] = 1;
    for (int it = 0; it < 500; it++) {
        memset(num, 0, sizeof num);
        memset(den, 0, sizeof den);
        for (size_t i = 0; i < h->n; i++) {
            num[h->cell[i]] += h->count[i];
            den[h->cell[i]] += h->cover[i] * h->growth[i] * b[i / 24];
        }
        for (int c = 0; c < FS_CELLS; c++)
            a[c] = den[c] > 0 ? num[c] / den[c] : 0;
        if (!levels)
            return;
        memset(dn, 0, days * sizeof *dn);
        memset(dd, 0, days * sizeof *dd);
        for (size_t i = 0; i < h->n; i++) {
            dn[i / 24] += h->count[i];
            dd[i / 24] += h->cover[i] * h->growth[i] * a[h->cell[i]];
        }
        double change = 0;
        for (size_t d = 0; d < days; d++) {
            double nb = dd[d] > 0 ? dn[d] / dd[d] : 1;
            change = fmax(change, fabs(nb - b[d]) / fmax(nb, b[d] > 0 ? b[d] : 1));
            b[d] = nb;
        }
        if (change < 1e-12)
            return;
    }
}

static bool fs__cell_covered(const fs_fit *f, int c)
{
    return f->cell[c / 24][c % 24].covered;
}

/* The day factors' growth: least squares of ln b on the day over days with
 * 6 hours observed and arrivals. */
static void fs__growth_fit(const fs__fit_hours *h, const double *b, size_t days, fs_fit_trend *t)
{
    double x[FS_FIT_MAX_LEVELS], y[FS_FIT_MAX_LEVELS], cover[FS_FIT_MAX_LEVELS] = {0};
    for (size_t i = 0; i < h->n; i++)
        cover[i / 24] += h->cover[i];
    size_t n = 0;
    for (size_t d = 0; d < days; d++) {
        if (cover[d] < 6 * FS_HOUR || !(b[d] > 0))
            continue;
        x[n] = (double)d;
        y[n++] = log(b[d]);
    }
    t->regression_days = n;
    t->slope = t->slope_se = NAN;
    if (n < 3)
        return;
    double c0, c1, cov00, cov01, cov11, sumsq;
    gsl_fit_linear(x, 1, y, 1, n, &c0, &c1, &cov00, &cov01, &cov11, &sumsq);
    t->slope = c1;
    t->slope_se = sqrt(cov11);
    /* The printed rate (6 digits) is the one the model uses. */
    t->growth_per_day = fs_fit_model_round(expm1(c1), 6);
    t->growth = fabs(c1) > 2 * t->slope_se && t->growth_per_day > -1;
}

/* Daily counts against the profile (with the growth when printed): the
 * chi-square, in units of the groups' compound Poisson variance. */
static void fs__levels_test(const fs_fit_model *m, const fs__fit_hours *h, size_t days, fs_fit_trend *t)
{
    double a[FS_CELLS], b[FS_FIT_MAX_LEVELS], o[FS_FIT_MAX_LEVELS] = {0}, e[FS_FIT_MAX_LEVELS] = {0};
    fs__ipf(h, false, a, b, days);
    for (size_t i = 0; i < h->n; i++) {
        o[i / 24] += h->count[i];
        e[i / 24] += a[h->cell[i]] * h->growth[i] * h->cover[i];
    }
    double idc = m->groups.fitted ? m->groups.mean_square / m->groups.mean : 1;
    int n = 0;
    for (size_t d = 0; d < days; d++) {
        if (e[d] >= 5) {
            t->day_chi2 += (o[d] - e[d]) * (o[d] - e[d]) / e[d] / idc;
            n++;
        }
    }
    t->day_dof = n - 1 - (t->growth ? 1 : 0);
    t->day_p = t->day_dof > 0 ? gsl_cdf_chisq_Q(t->day_chi2, t->day_dof) : NAN;
    t->levels = t->day_dof > 0 && t->day_p < FS_FIT_REJECT_P;
}

/* Takes the listed bursts' windows out of h's counts and seconds. */
static void fs__leave_bursts_out(const fs_fit_acc *acc, const fs_fit *f, fs__fit_hours *h)
{
    size_t per_hour = acc->window_s > 0 ? (size_t)(FS_HOUR / acc->window_s) : 1;
    for (size_t i = 0; i < h->n; i++) {
        h->count[i] = acc->hour_count[i];
        h->cover[i] = acc->hour_cover[i];
    }
    for (size_t k = 0; k < f->n_listed; k++) {
        const fs_fit_burst *bu = &f->bursts[k];
        for (size_t w = bu->first_window; w < bu->first_window + bu->n_windows; w++) {
            h->count[w / per_hour] -= acc->win_count[w];
            h->cover[w / per_hour] -= acc->win_cover[w];
        }
    }
}

/* h->rate: the model's rate without bursts (0 in cells not covered). */
static void fs__model_rate(const fs_fit *f, fs__fit_hours *h)
{
    double a[FS_CELLS], b[FS_FIT_MAX_LEVELS];
    const fs_fit_trend *t = &f->model.trend;
    fs__ipf(h, t->levels, a, b, t->days);
    for (size_t i = 0; i < h->n; i++)
        h->rate[i] = fs__cell_covered(f, h->cell[i]) ? a[h->cell[i]] * (t->levels ? b[i / 24] : 1) * h->growth[i]
                                                     : 0;
}

void fs__fit_model_start(const fs_fit_acc *acc, fs_fit *f, fs__fit_hours *h)
{
    fs_fit_model *m = &f->model;
    memset(m, 0, sizeof *m);
    fs__groups(acc, &m->groups);
    m->trend.slope = m->trend.slope_se = m->trend.day_p = NAN;
    m->modulation = -1;
    m->trend.days = (h->n + 23) / 24;
    for (size_t i = 0; i < h->n; i++)
        h->growth[i] = 1;
    fs__model_rate(f, h);
}

bool fs__fit_model_trend(const fs_fit_acc *acc, fs_fit *f, fs__fit_hours *h)
{
    fs_fit_model *m = &f->model;
    fs_fit_trend *t = &m->trend;
    t->tested = acc->last_s - acc->first_s >= 3 * FS_DAY && t->days <= FS_FIT_MAX_LEVELS;
    if (!t->tested)
        return false;
    /* Without the bursts found against the profile: a burst is not a level. */
    fs__leave_bursts_out(acc, f, h);
    double a[FS_CELLS], b[FS_FIT_MAX_LEVELS];
    fs__ipf(h, true, a, b, t->days);
    fs__growth_fit(h, b, t->days, t);
    for (size_t i = 0; t->growth && i < h->n; i++) {
        double t0, t1;
        fs__hour_span(acc, i, &t0, &t1);
        h->growth[i] = fs__growth_mean(log1p(t->growth_per_day), t0, t1);
    }
    fs__levels_test(m, h, t->days, t);
    if (!t->growth && !t->levels)
        return false;
    /* The bursts are to be looked for again, against the trend. */
    fs__model_rate(f, h);
    return true;
}

/* ---- the refit ------------------------------------------------------------------ */

/* Burst k's expected count at the fragment's rate without it, hour_rate
 * being that rate's hourly part without growth. */
static double fs__burst_expected(const fs_fit_acc *acc, const fs_fit_burst *bu, const double *hour_rate,
                                 double slope)
{
    double e = 0, w = acc->window_s;
    size_t per_hour = (size_t)(FS_HOUR / w);
    for (size_t k = bu->first_window; k < bu->first_window + bu->n_windows; k++) {
        double t0 = fmax((double)k * w, acc->first_s), t1 = fmin((double)(k + 1) * w, acc->last_s);
        e += hour_rate[k / per_hour] * acc->win_cover[k] * fs__growth_mean(slope, t0, fmax(t0, t1));
    }
    return e;
}

/* The printed profile, levels and bursts; the base scaled so the expected
 * count over the span is the arrivals.  h->rate becomes the hourly part
 * of the fragment's rate (no growth, no bursts). */
static void fs__refit(const fs_fit_acc *acc, fs_fit *f, fs__fit_hours *h)
{
    fs_fit_model *m = &f->model;
    fs_fit_trend *t = &m->trend;
    double a[FS_CELLS], b[FS_FIT_MAX_LEVELS], slope = t->growth ? log1p(t->growth_per_day) : 0;
    fs__leave_bursts_out(acc, f, h);
    fs__ipf(h, t->levels, a, b, t->days);
    double cover[FS_FIT_MAX_LEVELS] = {0}, level_mean = 0, day_cover = 0;
    if (t->levels) {
        /* Levels averaging 1 over the observed time: the profile keeps the
         * scale of an average day. */
        for (size_t i = 0; i < h->n; i++)
            cover[i / 24] += h->cover[i];
        for (size_t d = 0; d < t->days; d++) {
            level_mean += b[d] * cover[d];
            day_cover += cover[d];
        }
        level_mean = day_cover > 0 ? level_mean / day_cover : 1;
    }
    double cell_cover[FS_CELLS] = {0}, sum = 0, covered = 0;
    for (size_t i = 0; i < h->n; i++)
        cell_cover[h->cell[i]] += h->cover[i];
    for (int c = 0; c < FS_CELLS; c++) {
        if (fs__cell_covered(f, c)) {
            sum += a[c] * cell_cover[c];
            covered += cell_cover[c];
        }
    }
    double base = covered > 0 ? sum / covered : f->base_rps;
    if (t->levels) {
        base *= level_mean;
        t->n_levels = t->days;
        for (size_t d = 0; d < t->days; d++)
            t->level[d] = fs_fit_model_round(b[d] / level_mean, 6);
    }
    for (int c = 0; c < FS_CELLS; c++) {
        double mult = fs__cell_covered(f, c) ? a[c] * (t->levels ? level_mean : 1) / base : 1;
        m->multiplier[c / 24][c % 24] = fs_fit_model_round(mult, 4);
    }
    if (!f->split)
        memcpy(m->multiplier[1], m->multiplier[0], sizeof m->multiplier[0]);
    /* The fragment's rate per unit base, and the scale that makes its count
     * the arrivals': s (sum r - sum E_b) + sum O_b = arrivals, each burst
     * restoring its own O_b. */
    double total = 0, burst_o = 0, burst_e = 0;
    for (size_t i = 0; i < h->n; i++) {
        double t0, t1;
        fs__hour_span(acc, i, &t0, &t1);
        h->rate[i] = m->multiplier[h->cell[i] / 24][h->cell[i] % 24] * (t->levels ? t->level[i / 24] : 1);
        h->growth[i] = fs__growth_mean(slope, t0, t1);
        total += h->rate[i] * h->growth[i] * acc->hour_cover[i];
    }
    double expected[FS_FIT_MAX_BURSTS];
    for (size_t k = 0; k < f->n_listed; k++) {
        expected[k] = fs__burst_expected(acc, &f->bursts[k], h->rate, slope);
        burst_o += f->bursts[k].observed;
        burst_e += expected[k];
    }
    double scale = total - burst_e > 0 ? (f->arrivals - burst_o) / (total - burst_e) : base;
    m->base_rps = fs_fit_model_round(scale, 4);
    m->expected = 0;
    for (size_t k = 0; k < f->n_listed; k++) {
        fs_fit_burst *bu = &f->bursts[k];
        bu->expected = expected[k] * m->base_rps;
        bu->multiplier = fs_fit_model_round(bu->observed / bu->expected, 4);
        m->expected += (bu->multiplier - 1) * bu->expected;
    }
    m->expected += m->base_rps * total;
    for (size_t i = 0; i < h->n; i++)
        h->rate[i] *= m->base_rps;
}

/* ---- the scales and the choice ------------------------------------------------- */

/* Counts in windows of `per` slots against e, the expected count per slot. */
static void fs__scale(const double *count, const double *groups, const double *e, size_t n, size_t per,
                      double group_mean, fs_fit_scale *sc)
{
    double sum = 0, var = 0, gsum = 0, gvar = 0;
    sc->windows = 0;
    for (size_t k = 0; k < n; k += per) {
        double o = 0, ex = 0, og = 0;
        for (size_t j = k; j < k + per && j < n; j++) {
            o += count[j];
            ex += e[j];
            og += groups ? groups[j] : 0;
        }
        if (!(ex > 0))
            continue;
        sc->windows++;
        sum += (o - ex) * (o - ex) / ex;
        var += 2 + 1 / ex;
        if (groups) {
            double eg = ex / group_mean;
            gsum += (og - eg) * (og - eg) / eg;
            gvar += 2 + 1 / eg;
        }
    }
    double nw = (double)sc->windows;
    sc->index = sc->z = sc->p_value = sc->group_index = sc->group_z = sc->group_p_value = NAN;
    if (sc->windows < 10)
        return;
    sc->index = sum / nw;
    sc->z = (sum - nw) / sqrt(var);
    sc->p_value = gsl_cdf_ugaussian_Q(sc->z);
    if (groups) {
        sc->group_index = gsum / nw;
        sc->group_z = (gsum - nw) / sqrt(gvar);
        sc->group_p_value = gsl_cdf_ugaussian_Q(sc->group_z);
    }
}

/* The fragment's expected count per counting window (bursts included). */
static void fs__window_expected(const fs_fit_acc *acc, const fs_fit *f, const fs__fit_hours *h, double *e)
{
    double w = acc->window_s, slope = f->model.trend.growth ? log1p(f->model.trend.growth_per_day) : 0;
    size_t per_hour = (size_t)(FS_HOUR / w);
    for (size_t k = 0; k < acc->n_windows; k++) {
        double t0 = fmax((double)k * w, acc->first_s), t1 = fmin((double)(k + 1) * w, acc->last_s);
        size_t i = k / per_hour;
        e[k] = i < h->n ? h->rate[i] * acc->win_cover[k] * fs__growth_mean(slope, t0, fmax(t0, t1)) : 0;
    }
    for (size_t b = 0; b < f->n_listed; b++)
        for (size_t k = f->bursts[b].first_window; k < f->bursts[b].first_window + f->bursts[b].n_windows; k++)
            e[k] *= f->bursts[b].multiplier;
}

static void fs__scales(const fs_fit_acc *acc, fs_fit *f, const fs__fit_hours *h, double *e)
{
    fs_fit_model *m = &f->model;
    const double scales[FS_FIT_MAX_SCALES] = {60, 600, FS_HOUR, FS_DAY};
    bool windows = acc->window_s > 0;
    if (windows) {
        fs__window_expected(acc, f, h, e);
    } else {
        /* A rate series: hours only (its counts are estimates, not Poisson
         * counts, so the test says little; no groups). */
        for (size_t i = 0; i < h->n; i++)
            e[i] = h->rate[i] * h->growth[i] * acc->hour_cover[i];
    }
    double groups_mean = m->groups.fitted ? m->groups.law_mean : 0;
    for (int s = 0; s < FS_FIT_MAX_SCALES; s++) {
        if (s == 3 && acc->last_s - acc->first_s < 7 * FS_DAY)
            break;
        double unit = windows ? acc->window_s : FS_HOUR;
        if (scales[s] < unit)
            continue;
        fs_fit_scale *sc = &m->scale[m->n_scales++];
        sc->window_s = scales[s];
        fs__scale(windows ? acc->win_count : acc->hour_count, windows && groups_mean > 0 ? acc->win_groups : NULL,
                  e, windows ? acc->n_windows : h->n, (size_t)(scales[s] / unit), groups_mean, sc);
    }
}

/* Whether any scale rejects the Poisson counts (of groups, or requests). */
static bool fs__rejected(const fs_fit_model *m, bool groups, char *where, size_t size)
{
    bool any = false;
    size_t n = 0;
    where[0] = '\0';
    for (size_t s = 0; s < m->n_scales; s++) {
        double p = groups ? m->scale[s].group_p_value : m->scale[s].p_value;
        if (!(p < FS_FIT_REJECT_P))
            continue;
        n += (size_t)snprintf(where + n, n < size ? size - n : 0, "%s%gs (index %.3g)", any ? ", " : "",
                              m->scale[s].window_s, groups ? m->scale[s].group_index : m->scale[s].index);
        any = true;
    }
    return any;
}

static void fs__choose(fs_fit_model *m)
{
    char req[200], grp[200];
    bool poisson_rejected = fs__rejected(m, false, req, sizeof req);
    bool groups_rejected = m->groups.fitted && fs__rejected(m, true, grp, sizeof grp);
    const fs_fit_trend *t = &m->trend;
    int n;
    if (t->growth || t->levels) {
        m->chosen = FS_FIT_CHOSE_TREND;
        m->rejected = m->groups.fitted ? groups_rejected : poisson_rejected;
        n = snprintf(m->why, sizeof m->why, "the days differ beyond the profile (%s%s%s)",
                     t->growth ? "growth: slope > 2 standard errors" : "", t->growth && t->levels ? "; " : "",
                     t->levels ? "levels: day-to-day chi-square p < 0.001" : "");
    } else if (m->groups.fitted && poisson_rejected) {
        m->chosen = FS_FIT_CHOSE_GROUPS;
        m->rejected = groups_rejected;
        n = snprintf(m->why, sizeof m->why, "Poisson counts rejected at %s; groups of mean %.3g", req,
                     m->groups.mean);
    } else {
        m->chosen = FS_FIT_CHOSE_POISSON;
        m->rejected = poisson_rejected;
        n = snprintf(m->why, sizeof m->why, "%s", poisson_rejected ? "nothing simpler" : "not rejected at any scale");
    }
    if (m->rejected && n > 0 && (size_t)n < sizeof m->why)
        snprintf(m->why + n, sizeof m->why - (size_t)n, "; still rejected at %s",
                 m->groups.fitted && m->chosen != FS_FIT_CHOSE_POISSON ? grp : req);
    /* What the fragment prints follows the choice. */
    m->groups.printed = m->groups.fitted && m->chosen != FS_FIT_CHOSE_POISSON;
}

int fs__fit_model_finish(const fs_fit_acc *acc, fs_fit *f, fs__fit_hours *h, fs_error *err)
{
    fs__refit(acc, f, h);
    size_t n = acc->n_windows > h->n ? acc->n_windows : h->n;
    double *e = malloc((n ? n : 1) * sizeof *e);
    if (!e)
        return fs_error_set(err, FS_ERR_RUNTIME, "out of memory for %zu windows of the fit", n);
    fs__scales(acc, f, h, e);
    fs__choose(&f->model);
    int rc = fs__fit_clustered(acc, f, e, err);
    free(e);
    return rc;
}

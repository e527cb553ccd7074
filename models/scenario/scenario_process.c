/*
 * scenario_process — the keys of a service's "arrivals" that go beyond an
 * hourly-profiled Poisson rate: its trend ("growth", "daily_levels"), a
 * random factor on its rate ("mmpp" or "noise", at most one) and arrivals in
 * groups ("groups").  scenario_arrivals.c reads the rest of "arrivals" and
 * calls in here; models/workload/arrivals.h is what runs them.
 */
#include "scenario_parse.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "number.h"

#define DAY_S 86400.0

/* "growth": "8%/month": a percentage per period, compounding. */
static int parse_growth(fs_jpath *p, const json_t *obj, fs_arrivals *a)
{
    static const char *const units[] = {"day", "week", "month", "year"};
    /* A month is a twelfth of the Julian year, so twelve months make one. */
    static const double unit_s[] = {DAY_S, 7 * DAY_S, 365.25 / 12 * DAY_S, 365.25 * DAY_S};
    json_t *v = json_object_get(obj, "growth");
    if (v == NULL)
        return FS_OK;
    size_t mark = fs_jpath_push_key(p, "growth");
    const char *text = json_is_string(v) ? json_string_value(v) : NULL;
    const char *rest = NULL;
    double pct = 0;
    int rc = FS_OK;
    if (text == NULL || fs_number_prefix(text, &pct, &rest) != 0 || rest[0] != '%' || rest[1] != '/')
        rc = fs_jpath_expected(p, v, "a growth rate like \"8%%/month\" (a percentage per day, week, month "
                                     "or year)");
    size_t k = 0;
    while (rc == FS_OK && k < COUNT(units) && strcmp(rest + 2, units[k]) != 0)
        k++;
    if (rc == FS_OK && k == COUNT(units))
        rc = fs_jpath_expected(p, v, "a growth rate per \"day\", \"week\", \"month\" or \"year\" (\"8%%/month\")");
    /* -100% would end all traffic after one period and below it the rate
     * would turn negative: a decline must leave some. */
    if (rc == FS_OK && !(pct > -100))
        rc = fs_jpath_expected(p, v, "a growth rate above -100%% (a decline that leaves some traffic)");
    if (rc == FS_OK) {
        a->growth = pct / 100;
        a->growth_period_s = unit_s[k];
    }
    fs_jpath_pop(p, mark);
    return rc;
}

/* "daily_levels": [l0, l1, ...], a multiplier per day from t = 0. */
static int parse_daily_levels(fs_jpath *p, const json_t *obj, fs_arrivals *a)
{
    json_t *list = NULL;
    int rc = fs_jpath_get_array(p, obj, "daily_levels", false, true, &list);
    if (rc != FS_OK || list == NULL)
        return rc;
    size_t n = json_array_size(list), mark = fs_jpath_push_key(p, "daily_levels");
    if (n > FS_SCENARIO_MAX_DAILY_LEVELS)
        rc = fs_jpath_fail(p, "expected at most %d daily levels (one per day of the longest horizon), got %zu",
                           FS_SCENARIO_MAX_DAILY_LEVELS, n);
    else if ((a->daily_levels = calloc(n, sizeof *a->daily_levels)) == NULL)
        rc = fs_jpath_oom(p);
    else
        a->n_daily_levels = n;
    if (rc == FS_OK)
        rc = fs__scenario_multipliers(p, list, a->daily_levels, n);
    fs_jpath_pop(p, mark);
    return rc;
}

/* "mmpp": {"states": [{"rps", "mean_sojourn"}, ...]}.  The state left jumps
 * to each other one with equal probability, so the embedded jump chain is
 * doubly stochastic and spends equal turns in every state: the time in state
 * i is then proportional to its mean sojourn. */
static int parse_mmpp(fs_jpath *p, const json_t *obj, fs_arrivals *a)
{
    static const char *const keys[] = {"states"};
    static const char *const state_keys[] = {"rps", "mean_sojourn"};
    json_t *mmpp = NULL, *list = NULL;
    int rc = fs_jpath_get_object(p, obj, "mmpp", false, &mmpp);
    if (rc != FS_OK || mmpp == NULL)
        return rc;
    size_t mark = fs_jpath_push_key(p, "mmpp");
    rc = fs_jpath_check_keys(p, mmpp, keys, COUNT(keys));
    if (rc == FS_OK)
        rc = fs_jpath_get_array(p, mmpp, "states", true, false, &list);
    size_t n = list ? json_array_size(list) : 0;
    if (rc == FS_OK && (n < 2 || n > FS_SCENARIO_MAX_MMPP_STATES)) {
        size_t m = fs_jpath_push_key(p, "states");
        rc = fs_jpath_fail(p, "expected 2 to %d states (one state is a plain poisson_rps), got %zu",
                           FS_SCENARIO_MAX_MMPP_STATES, n);
        fs_jpath_pop(p, m);
    }
    double sojourns = 0, base = 0;
    for (size_t i = 0; rc == FS_OK && i < n; i++) {
        fs_mmpp_state *st = &a->mmpp[i];
        json_t *s = json_array_get(list, i);
        size_t m = fs_jpath_push_key(p, "states");
        fs_jpath_push_index(p, i);
        rc = json_is_object(s) ? fs_jpath_check_keys(p, s, state_keys, COUNT(state_keys))
                               : fs_jpath_expected(p, s, "an object {\"rps\", \"mean_sojourn\"}");
        if (rc == FS_OK)
            rc = fs__scenario_get_capped(p, s, "rps", true, FS_JPATH_NONNEG, FS_SCENARIO_MAX_RATE_RPS,
                                         "requests/s", &st->rps);
        if (rc == FS_OK)
            rc = fs__scenario_get_floored_duration(p, s, "mean_sojourn", true, FS_SCENARIO_MIN_MODULATION_S,
                                                   &st->mean_sojourn_s);
        fs_jpath_pop(p, m);
        sojourns += st->mean_sojourn_s;
    }
    fs_jpath_pop(p, mark);
    if (rc != FS_OK)
        return rc;
    a->n_mmpp = n;
    for (size_t i = 0; i < n; i++) {
        a->mmpp[i].share = a->mmpp[i].mean_sojourn_s / sojourns;
        base += a->mmpp[i].share * a->mmpp[i].rps;
    }
    a->base_rps = base;
    for (size_t i = 0; i < n; i++)
        a->mmpp[i].multiplier = base > 0 ? a->mmpp[i].rps / base : 0;
    return FS_OK;
}

/* "noise": {"distribution", "cv", "interval", "correlation_time"}. */
static int parse_noise(fs_jpath *p, const json_t *obj, fs_arrivals *a)
{
    static const char *const keys[] = {"distribution", "cv", "interval", "correlation_time"};
    static const char *const kinds[] = {"lognormal", "gamma"};
    json_t *noise = NULL;
    int rc = fs_jpath_get_object(p, obj, "noise", false, &noise);
    if (rc != FS_OK || noise == NULL)
        return rc;
    fs_arrival_noise *out = &a->noise;
    int kind = -1;
    size_t mark = fs_jpath_push_key(p, "noise");
    rc = fs_jpath_check_keys(p, noise, keys, COUNT(keys));
    if (rc == FS_OK && !json_object_get(noise, "distribution"))
        rc = fs_jpath_fail(p, "missing required key \"distribution\" (\"lognormal\" or \"gamma\")");
    if (rc == FS_OK)
        rc = fs__scenario_get_choice(p, noise, "distribution", "a noise distribution", kinds, COUNT(kinds), &kind);
    if (rc == FS_OK)
        rc = fs__scenario_get_capped(p, noise, "cv", true, FS_JPATH_POSITIVE, FS_SCENARIO_MAX_NOISE_CV, "",
                                     &out->cv);
    if (rc == FS_OK)
        rc = fs__scenario_get_floored_duration(p, noise, "interval", true, FS_SCENARIO_MIN_MODULATION_S,
                                               &out->interval_s);
    if (rc == FS_OK && kind == 1 && json_object_get(noise, "correlation_time")) {
        size_t m = fs_jpath_push_key(p, "correlation_time");
        rc = fs_jpath_fail(p, "applies to \"lognormal\" noise only: its log is the AR(1) chain that keeps "
                              "the marginal law; a gamma factor has no such chain here");
        fs_jpath_pop(p, m);
    }
    if (rc == FS_OK)
        rc = fs_jpath_get_duration(p, noise, "correlation_time", false, FS_JPATH_POSITIVE, &out->correlation_s);
    fs_jpath_pop(p, mark);
    if (rc == FS_OK)
        out->kind = kind == 0 ? FS_NOISE_LOGNORMAL : FS_NOISE_GAMMA;
    return rc;
}

/* "groups": {"sizes": [...], "weights": [...]}, the two lists read into a. */
static int parse_group_table(fs_jpath *p, const json_t *groups, fs_arrival_groups *g)
{
    json_t *sizes = NULL, *weights = NULL;
    int rc = fs_jpath_get_array(p, groups, "sizes", true, true, &sizes);
    if (rc == FS_OK)
        rc = fs_jpath_get_array(p, groups, "weights", true, true, &weights);
    size_t n = sizes ? json_array_size(sizes) : 0;
    if (rc == FS_OK && json_array_size(weights) != n) {
        size_t m = fs_jpath_push_key(p, "weights");
        rc = fs_jpath_fail(p, "expected one weight per size (%zu), got %zu", n, json_array_size(weights));
        fs_jpath_pop(p, m);
    }
    if (rc == FS_OK && n > FS_SCENARIO_MAX_GROUP_SIZES) {
        size_t m = fs_jpath_push_key(p, "sizes");
        rc = fs_jpath_fail(p, "expected at most %d sizes (the limit), got %zu", FS_SCENARIO_MAX_GROUP_SIZES, n);
        fs_jpath_pop(p, m);
    }
    if (rc != FS_OK)
        return rc;
    g->sizes = calloc(n, sizeof *g->sizes);
    g->weights = calloc(n, sizeof *g->weights);
    if (!g->sizes || !g->weights)
        return fs_jpath_oom(p);
    g->n_sizes = n;
    double sum = 0, first = 0, second = 0;
    for (size_t i = 0; rc == FS_OK && i < n; i++) {
        uint64_t size = 0;
        size_t m = fs_jpath_push_key(p, "sizes");
        fs_jpath_push_index(p, i);
        rc = fs_jpath_uint(p, json_array_get(sizes, i), 1, FS_SCENARIO_MAX_GROUP, &size);
        fs_jpath_pop(p, m);
        g->sizes[i] = (uint32_t)size;
        m = fs_jpath_push_key(p, "weights");
        fs_jpath_push_index(p, i);
        if (rc == FS_OK)
            rc = fs_jpath_number(p, json_array_get(weights, i), FS_JPATH_NONNEG, &g->weights[i]);
        if (rc == FS_OK && !isfinite(g->weights[i]))
            rc = fs_jpath_expected(p, json_array_get(weights, i), "a finite weight");
        fs_jpath_pop(p, m);
        sum += g->weights[i];
        first += g->weights[i] * (double)size;
        second += g->weights[i] * (double)size * (double)size;
    }
    if (rc == FS_OK && !(sum > 0 && isfinite(sum))) {
        size_t m = fs_jpath_push_key(p, "weights");
        rc = fs_jpath_fail(p, "expected weights with a positive, finite sum (they are relative: [1, 1] is "
                              "half and half)");
        fs_jpath_pop(p, m);
    }
    g->mean = first / sum;
    g->mean_square = second / sum;
    return rc;
}

/* "groups": {"mean": m} (shifted geometric) or {"sizes", "weights"}. */
static int parse_groups(fs_jpath *p, const json_t *obj, fs_arrivals *a)
{
    static const char *const keys[] = {"mean", "sizes", "weights"};
    json_t *groups = NULL;
    int rc = fs_jpath_get_object(p, obj, "groups", false, &groups);
    if (rc != FS_OK || groups == NULL)
        return rc;
    fs_arrival_groups *g = &a->groups;
    size_t mark = fs_jpath_push_key(p, "groups");
    rc = fs_jpath_check_keys(p, groups, keys, COUNT(keys));
    bool has_mean = json_object_get(groups, "mean") != NULL;
    bool has_table = json_object_get(groups, "sizes") || json_object_get(groups, "weights");
    if (rc == FS_OK && has_mean == has_table)
        rc = fs_jpath_fail(p, has_mean ? "expected \"mean\" or \"sizes\" with \"weights\", not both"
                                       : "expected \"mean\" (a geometric group size) or \"sizes\" with "
                                         "\"weights\"");
    if (rc == FS_OK && has_mean) {
        rc = fs__scenario_get_capped(p, groups, "mean", true, FS_JPATH_POSITIVE, FS_SCENARIO_MAX_GROUP,
                                     "requests", &g->mean);
        if (rc == FS_OK && g->mean < 1) {
            size_t m = fs_jpath_push_key(p, "mean");
            rc = fs_jpath_expected(p, json_object_get(groups, "mean"),
                                   "a mean group size of at least 1 (every point brings one request or more)");
            fs_jpath_pop(p, m);
        }
        /* Geometric on {1, 2, ...} with P(G = 1) = q = 1 / mean:
         * E[G^2] = Var + mean^2 = (1 - q) / q^2 + 1 / q^2 = (2 - q) / q^2. */
        double q = 1 / g->mean;
        g->mean_square = (2 - q) / (q * q);
    } else if (rc == FS_OK) {
        rc = parse_group_table(p, groups, g);
    }
    fs_jpath_pop(p, mark);
    if (rc != FS_OK)
        g->mean = 0; /* no groups: what destroy and the runs read of a refused one */
    return rc;
}

int fs__scenario_parse_process(fs_jpath *p, const json_t *obj, fs_arrivals *a)
{
    int rc = parse_growth(p, obj, a);
    if (rc == FS_OK)
        rc = parse_daily_levels(p, obj, a);
    if (rc == FS_OK && json_object_get(obj, "mmpp") && json_object_get(obj, "noise"))
        rc = fs_jpath_fail(p, "expected \"mmpp\" or \"noise\", not both: each is the whole random factor "
                              "on the rate");
    if (rc == FS_OK)
        rc = parse_mmpp(p, obj, a);
    if (rc == FS_OK)
        rc = parse_noise(p, obj, a);
    if (rc == FS_OK)
        rc = parse_groups(p, obj, a);
    return rc;
}

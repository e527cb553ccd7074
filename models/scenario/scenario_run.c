/*
 * scenario_run — how a scenario is run: "horizon", "warmup", "window",
 * "window_anchor", "seed", "replications", "start_weekday" and the fast "ci"
 * settings; and
 * the two calls that change them after parsing, fs_scenario_override (the
 * command line's --seed, --replications, --horizon) and fs_scenario_apply_ci
 * (`fleetsim check`).  They live together because they keep one rule: the
 * warm-up stays below the horizon, however the pair was arrived at.
 */
#include "scenario_parse.h"

#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "duration.h"

#define MAX_REPLICATIONS 10000
#define DEFAULT_WINDOW_S 300.0

static const char *const weekday_names[] = {"monday", "tuesday",  "wednesday", "thursday",
                                            "friday", "saturday", "sunday"};

static int parse_weekday(fs_jpath *p, const json_t *root, int *out)
{
    const char *text = NULL;
    int rc = fs_jpath_get_string(p, root, "start_weekday", false, false, &text);
    if (rc != FS_OK || text == NULL)
        return rc;
    for (int d = 0; d < 7; d++) {
        char abbrev[4];
        memcpy(abbrev, weekday_names[d], 3);
        abbrev[3] = '\0';
        if (fs__scenario_ascii_iequal(text, weekday_names[d]) ||
            fs__scenario_ascii_iequal(text, abbrev)) {
            *out = d;
            return FS_OK;
        }
    }
    size_t mark = fs_jpath_push_key(p, "start_weekday");
    rc = fs_jpath_expected(p, json_object_get(root, "start_weekday"),
                           "a day of the week (\"monday\"..\"sunday\" or \"mon\"..\"sun\")");
    fs_jpath_pop(p, mark);
    return rc;
}

/* "ci": {"horizon", "replications", "warmup"}, the fast settings `fleetsim
 * check` applies (fs_scenario_apply_ci).  Each is optional; what ci leaves out
 * stays the run's own, and the pair that results must keep the warm-up below
 * the horizon.  The warm-up must be positive: 0 stores "not set", so a zero
 * could not be told from an absent key (use a small one, e.g. "1s"). */
static int parse_ci(fs_jpath *p, const json_t *root, fs_scenario *s)
{
    static const char *const keys[] = {"horizon", "replications", "warmup"};
    s->ci_horizon_s = 0;
    s->ci_warmup_s = 0;
    s->ci_replications = 0;
    json_t *ci = NULL;
    int rc = fs_jpath_get_object(p, root, "ci", false, &ci);
    if (rc != FS_OK || ci == NULL)
        return rc;
    size_t mark = fs_jpath_push_key(p, "ci");
    uint64_t replications = 0;
    rc = fs_jpath_check_keys(p, ci, keys, COUNT(keys));
    if (rc == FS_OK)
        rc = fs__scenario_get_capped_duration(p, ci, "horizon", false, FS_JPATH_POSITIVE,
                                              FS_SCENARIO_MAX_HORIZON_S, &s->ci_horizon_s);
    if (rc == FS_OK)
        rc = fs_jpath_get_uint(p, ci, "replications", false, 1, MAX_REPLICATIONS, &replications);
    s->ci_replications = (uint32_t)replications;
    if (rc == FS_OK)
        rc = fs_jpath_get_duration(p, ci, "warmup", false, FS_JPATH_POSITIVE, &s->ci_warmup_s);
    double horizon = s->ci_horizon_s > 0 ? s->ci_horizon_s : s->horizon_s;
    double warmup = s->ci_warmup_s > 0 ? s->ci_warmup_s : s->warmup_s;
    if (rc == FS_OK && warmup >= horizon) {
        char h[64], w[64];
        fs_duration_format(horizon, h, sizeof h);
        fs_duration_format(warmup, w, sizeof w);
        if (s->ci_warmup_s > 0) {
            fs_jpath_push_key(p, "warmup");
            rc = fs_jpath_expected(p, json_object_get(ci, "warmup"),
                                   "a duration shorter than the %s horizon (%s)",
                                   s->ci_horizon_s > 0 ? "ci" : "scenario's", h);
        } else {
            fs_jpath_push_key(p, "horizon");
            rc = fs_jpath_expected(p, json_object_get(ci, "horizon"),
                                   "a duration longer than the scenario's warm-up (%s), or a "
                                   "shorter \"warmup\" in \"ci\"",
                                   w);
        }
    }
    fs_jpath_pop(p, mark);
    return rc;
}

/* The first instant at or after warmup that is the window anchor plus a
 * whole number of windows: measuring starts there, so every window starts
 * at a time of day the scenario chose (midnight for daily windows). */
static double anchored(const fs_scenario *s, double warmup)
{
    if (!s->window_anchored)
        return warmup;
    /* The 1e-9 keeps a warm-up already on an anchor (up to rounding) there. */
    double k = ceil((warmup - s->window_anchor_s) / s->window_s - 1e-9);
    return fmax(warmup, s->window_anchor_s + k * s->window_s);
}

static int parse_anchor(fs_jpath *p, const json_t *root, fs_scenario *s)
{
    double anchor = -1;
    int rc = fs_jpath_get_duration(p, root, "window_anchor", false, FS_JPATH_NONNEG, &anchor);
    if (rc != FS_OK || anchor < 0)
        return rc;
    size_t mark = fs_jpath_push_key(p, "window_anchor");
    if (anchor >= 86400) {
        rc = fs_jpath_expected(p, json_object_get(root, "window_anchor"), "a time of day from \"00:00\" to \"23:59\"");
    } else {
        s->window_anchored = true;
        s->window_anchor_s = anchor;
        s->warmup_s = anchored(s, s->warmup_s);
        if (s->warmup_s >= s->horizon_s) {
            char w[64], h[64];
            fs_duration_format(s->warmup_s, w, sizeof w);
            fs_duration_format(s->horizon_s, h, sizeof h);
            rc = fs_jpath_fail(p, "the warm-up, extended to the first window start on the anchor (%s), reaches "
                                  "the horizon (%s)", w, h);
        }
    }
    fs_jpath_pop(p, mark);
    return rc;
}

/* ------------------------------------------------------------------ windows */

/* Why a window of w seconds cannot be judged over [warmup, horizon] (in buf),
 * or NULL.  A window longer than that span is never judged, so an SLO on it
 * would hold whatever happened; one so short that the span holds more than
 * FS_SCENARIO_MAX_WINDOWS of them costs memory and time without end. */
static const char *window_fault(double w, double horizon, double warmup, char *buf, size_t size)
{
    char span[64], limit[64];
    fs_duration_format(horizon - warmup, span, sizeof span);
    double n = (horizon - warmup) / w;
    if (w > horizon - warmup) {
        snprintf(buf, size, "longer than horizon - warm-up (%s): no window would be judged", span);
        return buf;
    }
    if (n > FS_SCENARIO_MAX_WINDOWS) {
        fs_duration_format((horizon - warmup) / FS_SCENARIO_MAX_WINDOWS, limit, sizeof limit);
        snprintf(buf, size,
                 "so short that horizon - warm-up (%s) holds %.3g windows, more than the %.0f "
                 "allowed (at least %s here)",
                 span, n, FS_SCENARIO_MAX_WINDOWS, limit);
        return buf;
    }
    return NULL;
}

int fs__scenario_check_windows(fs_jpath *p, const json_t *root, const fs_scenario *s)
{
    char why[256], w[64];
    const json_t *written = json_object_get(root, "window");
    if (written && window_fault(s->window_s, s->horizon_s, s->warmup_s, why, sizeof why)) {
        size_t mark = fs_jpath_push_key(p, "window");
        int rc = fs_jpath_fail(p, "%s", why);
        fs_jpath_pop(p, mark);
        return rc;
    }
    const json_t *services = json_object_get(root, "services");
    for (size_t i = 0; i < s->n_services; i++) {
        const fs_slo *slo = &s->services[i].slo;
        if (slo->n_targets == 0 || !window_fault(slo->window_s, s->horizon_s, s->warmup_s, why,
                                                 sizeof why))
            continue;
        const json_t *obj = json_object_get(json_array_get(services, i), "slo");
        bool own = json_object_get(obj, "window") != NULL;
        fs_duration_format(slo->window_s, w, sizeof w);
        size_t mark = fs_jpath_push_key(p, "services");
        fs_jpath_push_index(p, i);
        fs_jpath_push_key(p, "slo");
        if (own)
            fs_jpath_push_key(p, "window");
        int rc = fs_jpath_fail(p, "the SLO window (%s%s) is %s%s", w,
                               own ? "" : written ? ", the scenario's \"window\"" : ", the default",
                               why, own ? "" : "; set \"window\" in \"slo\" or at the top level");
        fs_jpath_pop(p, mark);
        return rc;
    }
    return FS_OK;
}

/* The same checks for a new horizon or warm-up, on every variant: the first
 * fault, as an FS_ERR_INPUT message blaming `what`. */
static int check_windows_again(const fs_scenario *s, double horizon, double warmup,
                               const char *what, fs_error *err)
{
    char why[256], w[64];
    for (size_t k = 0; k < (s->policies ? s->n_policies : 1); k++) {
        const fs_scenario *v = s->policies ? s->policies[k] : s;
        /* A written window as parsing judged it (the new span must still
         * hold one); the default one only for its count, as it judges
         * nothing unless an SLO uses it, which the loop below checks. */
        if (window_fault(v->window_s, horizon, warmup, why, sizeof why) &&
            (v->window_written || v->window_s <= horizon - warmup)) {
            fs_duration_format(v->window_s, w, sizeof w);
            return fs_error_set(err, FS_ERR_INPUT, "%s: %s: the window (%s) would be %s", s->path,
                                what, w, why);
        }
        for (size_t i = 0; i < v->n_services; i++) {
            const fs_slo *slo = &v->services[i].slo;
            if (slo->n_targets && window_fault(slo->window_s, horizon, warmup, why, sizeof why)) {
                fs_duration_format(slo->window_s, w, sizeof w);
                return fs_error_set(err, FS_ERR_INPUT,
                                    "%s: %s: the SLO window of services[%zu] (%s) would be %s",
                                    s->path, what, i, w, why);
            }
        }
    }
    return FS_OK;
}

/* Growth compounds and daily levels run on over a longer horizon: every
 * variant's services and shaped training streams held to the rate bound
 * again at the new one. */
static int check_arrivals_again(const fs_scenario *s, double horizon, const char *what, fs_error *err)
{
    char why[512];
    for (size_t k = 0; k < (s->policies ? s->n_policies : 1); k++) {
        const fs_scenario *v = s->policies ? s->policies[k] : s;
        for (size_t i = 0; i < v->n_services; i++)
            if (fs__scenario_arrivals_bound(&v->services[i].arrivals, horizon, why, sizeof why) != FS_OK)
                return fs_error_set(err, FS_ERR_INPUT, "%s: %s: services[%zu].arrivals: %s", s->path, what, i,
                                    why);
        for (size_t i = 0; i < v->n_training; i++)
            if (v->training[i].submit_shape &&
                fs__scenario_arrivals_bound(v->training[i].submit_shape, horizon, why, sizeof why) != FS_OK)
                return fs_error_set(err, FS_ERR_INPUT, "%s: %s: training[%zu].submit: %s", s->path, what, i, why);
    }
    return FS_OK;
}

/* The run settings, in document order after "name" and "description". */
int fs__scenario_parse_run(fs_jpath *p, const json_t *root, fs_scenario *s)
{
    int rc = fs__scenario_get_capped_duration(p, root, "horizon", true, FS_JPATH_POSITIVE,
                                              FS_SCENARIO_MAX_HORIZON_S, &s->horizon_s);
    s->warmup_s = 0;
    if (rc == FS_OK)
        rc = fs_jpath_get_duration(p, root, "warmup", false, FS_JPATH_NONNEG, &s->warmup_s);
    if (rc == FS_OK && s->warmup_s >= s->horizon_s) {
        char horizon[64];
        fs_duration_format(s->horizon_s, horizon, sizeof horizon);
        size_t mark = fs_jpath_push_key(p, "warmup");
        rc = fs_jpath_expected(p, json_object_get(root, "warmup"),
                               "a duration shorter than the horizon (%s)", horizon);
        fs_jpath_pop(p, mark);
    }
    s->window_s = DEFAULT_WINDOW_S;
    if (rc == FS_OK)
        rc = fs_jpath_get_duration(p, root, "window", false, FS_JPATH_POSITIVE, &s->window_s);
    s->window_written = json_object_get(root, "window") != NULL;
    s->window_anchored = false;
    if (rc == FS_OK)
        rc = parse_anchor(p, root, s);

    uint64_t seed = 1, replications = 1;
    if (rc == FS_OK)
        rc = fs_jpath_get_uint(p, root, "seed", false, 0, UINT64_MAX, &seed);
    if (rc == FS_OK)
        rc = fs_jpath_get_uint(p, root, "replications", false, 1, MAX_REPLICATIONS, &replications);
    s->seed = seed;
    s->replications = (uint32_t)replications;
    s->start_weekday = 0;
    if (rc == FS_OK)
        rc = parse_weekday(p, root, &s->start_weekday);
    if (rc == FS_OK)
        rc = parse_ci(p, root, s);
    return rc;
}

/* fs_scenario_override, its messages blaming `what` for a refused horizon. */
static int override(fs_scenario *s, int64_t seed, int64_t replications, double horizon_s,
                    const char *what, fs_error *err)
{
    assert(s != NULL);
    /* Check everything before changing anything, so a refused override
     * leaves the scenario as it was. */
    if (replications > MAX_REPLICATIONS)
        return fs_error_set(
            err, FS_ERR_INPUT,
            "%s: replications (override): expected an integer from 1 to %d, got %" PRId64, s->path,
            MAX_REPLICATIONS, replications);
    if (horizon_s > 0) {
        char got[64], warmup[64];
        fs_duration_format(horizon_s, got, sizeof got);
        fs_duration_format(s->warmup_s, warmup, sizeof warmup);
        if (!isfinite(horizon_s))
            return fs_error_set(err, FS_ERR_INPUT,
                                "%s: %s: expected a finite duration, got %s", s->path,
                                what, got);
        if (s->warmup_s >= horizon_s)
            return fs_error_set(err, FS_ERR_INPUT,
                                "%s: %s: expected a duration longer than the warm-up (%s), got %s",
                                s->path, what, warmup, got);
        if (horizon_s > FS_SCENARIO_MAX_HORIZON_S) {
            char limit[64];
            fs_duration_format(FS_SCENARIO_MAX_HORIZON_S, limit, sizeof limit);
            return fs_error_set(err, FS_ERR_INPUT,
                                "%s: %s: expected at most %s (the limit), got %s", s->path,
                                what, limit, got);
        }
        int rc = check_windows_again(s, horizon_s, s->warmup_s, what, err);
        if (rc != FS_OK)
            return rc;
        rc = check_arrivals_again(s, horizon_s, what, err);
        if (rc != FS_OK)
            return rc;
    }
    for (size_t k = 0; k < (s->policies ? s->n_policies : 1); k++) {
        fs_scenario *v = s->policies ? s->policies[k] : s;
        if (seed >= 0)
            v->seed = (uint64_t)seed;
        if (replications > 0)
            v->replications = (uint32_t)replications;
        if (horizon_s > 0)
            v->horizon_s = horizon_s;
    }
    return FS_OK;
}

int fs_scenario_override(fs_scenario *s, int64_t seed, int64_t replications, double horizon_s,
                         fs_error *err)
{
    return override(s, seed, replications, horizon_s, "horizon (override)", err);
}

/* Every variant shares the run settings. */
static void set_warmup(fs_scenario *s, double warmup_s)
{
    for (size_t k = 0; k < (s->policies ? s->n_policies : 1); k++)
        (s->policies ? s->policies[k] : s)->warmup_s = warmup_s;
}

int fs_scenario_apply_ci(fs_scenario *s, fs_error *err)
{
    assert(s != NULL);
    double horizon = s->ci_horizon_s > 0 ? s->ci_horizon_s : s->horizon_s;
    double warmup = anchored(s, s->ci_warmup_s > 0 ? s->ci_warmup_s : s->warmup_s);
    if (warmup >= horizon) {
        char h[64], w[64];
        fs_duration_format(horizon, h, sizeof h);
        fs_duration_format(warmup, w, sizeof w);
        return fs_error_set(err, FS_ERR_INPUT,
                            "%s: ci: the warm-up (%s) must stay below the horizon (%s)", s->path,
                            w, h);
    }
    /* The windows against the new span, a new warm-up's too (override
     * checks only a new horizon, against the warm-up it finds). */
    int rc = check_windows_again(s, horizon, warmup, "ci", err);
    if (rc != FS_OK)
        return rc;
    /* The new warm-up goes in first: override then checks the
     * new horizon against it, which the pair checked above passes.  Should
     * override refuse anyway, the old warm-up is put back, so that a failed
     * call changes nothing. */
    double old_warmup = s->warmup_s;
    set_warmup(s, warmup);
    rc = override(s, -1, s->ci_replications > 0 ? (int64_t)s->ci_replications : -1,
                  s->ci_horizon_s > 0 ? s->ci_horizon_s : -1, "ci.horizon", err);
    if (rc != FS_OK)
        set_warmup(s, old_warmup);
    return rc;
}

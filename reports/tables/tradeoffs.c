#include "tradeoffs.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The figures a trade-off is read on, all "higher is worse", and when a
 * change of one matters.  The floors are the smallest change a reviewer
 * acts on: a millisecond of latency, one breach window a week, one request
 * dropped, a minute of queue wait, one job left waiting, a dollar; and 10%
 * of the baseline's figure (1% for cost, which decides the verdict), so
 * that 1 ms on a 500 ms p99 is not called a price.  A baseline of 0 makes
 * any change past the floor relative enough. */
typedef struct fs__figure {
    const char *section; /* compare.json's: "services", "training" or "fleet" */
    const char *key, *label, *unit;
    double floor, relative;
} fs__figure;

static const fs__figure figures[] = {
    {"services", "p99_ms", "p99", "ms", 1, 0.10},
    {"services", "ttft_p99_ms", "TTFT p99", "ms", 1, 0.10},
    {"services", "slo_breach_windows_per_week", "SLO breach windows/week", "", 1, 0.10},
    {"services", "dropped", "requests dropped", "", 1, 0.10},
    {"training", "queue_wait_p95_min", "queue wait p95", "min", 1, 0.10},
    {"training", "queue_wait_p50_min", "queue wait p50", "min", 1, 0.10},
    {"training", "jobs_waiting_at_end", "jobs waiting at the horizon", "", 1, 0.10},
    {"training", "cycle_p95_min", "iteration cycle p95", "min", 1, 0.10},
    {"fleet", "cost_usd", "cost", "USD", 1, 0.01},
};
#define FS__N_FIGURES (sizeof figures / sizeof *figures)

const char fs_tradeoffs_rule[] =
    "a change is listed when its 95% CI excludes 0 (or, with one replication, is unknown) and it is at least "
    "10% of the baseline's figure (1% for cost) and at least 1 ms, 1 breach window a week, 1 request, 1 minute, "
    "1 job or 1 USD; an SLO target whose verdict differs from the baseline's is always listed";

/* A string member, "" when missing: the report reads these documents from
 * disk, where a hand-edited one may lack a member. */
static const char *fs__s(const json_t *v)
{
    const char *s = json_string_value(v);
    return s ? s : "";
}
static const char *fs__str(const json_t *obj, const char *key)
{
    return fs__s(json_object_get(obj, key));
}

/* The first object of `array` whose member `key` is the string `value`, or
 * NULL. */
static const json_t *fs__find(const json_t *array, const char *key, const char *value)
{
    size_t k;
    const json_t *o;
    json_array_foreach(array, k, o) {
        if (strcmp(fs__str(o, key), value) == 0)
            return o;
    }
    return NULL;
}

/* ---- each policy's SLO standing ------------------------------------------ */

static void fs__target_name(const char *prefix, const fs_slo_target *t, char *buf, size_t size)
{
    if (t->quantile == 0.999)
        snprintf(buf, size, "%sp999", prefix);
    else
        snprintf(buf, size, "%sp%.0f", prefix, t->quantile * 100);
}

static const char *fs__verdict_name(int v)
{
    return v == FS_SLO_MET ? "met" : v == FS_SLO_MISSED ? "missed" : "no data";
}

static void fs__add_target(json_t *targets, const char *service, const char *name, int verdict, bool *missed,
                           bool *no_data)
{
    json_t *t = json_object();
    json_object_set_new(t, "service", json_string(service));
    json_object_set_new(t, "target", json_string(name));
    json_object_set_new(t, "verdict", json_string(fs__verdict_name(verdict)));
    json_array_append_new(targets, t);
    *missed |= verdict == FS_SLO_MISSED;
    *no_data |= verdict == FS_SLO_NO_DATA;
}

json_t *fs_tradeoffs_slo(const fs_results *r)
{
    json_t *all = json_array();
    for (size_t p = 0; p < r->n_policies && all; p++) {
        const fs_scenario *s = r->policies[p].scenario;
        json_t *pol = json_object(), *targets = json_array();
        json_object_set_new(pol, "name", json_string(r->policies[p].name));
        json_object_set_new(pol, "targets", targets);
        json_array_append_new(all, pol);
        bool missed = false, no_data = false;
        for (size_t i = 0; i < s->n_services; i++) {
            const fs_slo *slo = &s->services[i].slo;
            char name[32];
            if (slo->n_targets > 0) {
                fs_service_summary sum;
                if (fs_results_service_summary(r, p, i, &sum) != 0)
                    goto fail;
                for (size_t j = 0; j < slo->n_targets; j++) {
                    fs__target_name("", &slo->targets[j], name, sizeof name);
                    fs__add_target(targets, s->services[i].name, name, sum.slo_verdict[j], &missed, &no_data);
                }
            }
            const fs_slo_target *llm[2] = {&slo->ttft, &slo->tpot};
            for (size_t j = 0; j < 2; j++) {
                fs_llm_slo judged;
                if (llm[j]->threshold_s <= 0)
                    continue;
                if (fs_results_llm_slo(r, p, i, j == 1, &judged) != 0)
                    goto fail;
                fs__target_name(j == 0 ? "TTFT " : "TPOT ", llm[j], name, sizeof name);
                fs__add_target(targets, s->services[i].name, name, judged.verdict, &missed, &no_data);
            }
        }
        /* Never "meets" on no data, nor with nothing to meet. */
        json_object_set_new(pol, "meets", missed ? json_false()
                                          : no_data || json_array_size(targets) == 0 ? json_null()
                                                                                      : json_true());
    }
    return all;
fail:
    json_decref(all);
    return NULL;
}

/* ---- the verdict ----------------------------------------------------------- */

static double fs__num(const json_t *v)
{
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static json_t *fs__real(double x)
{
    return isfinite(x) ? json_real(x) : json_null();
}

/* Whether a paired difference is material (the rule at the top): past the
 * floor, past `relative` of the baseline, and past noise (an unknown CI,
 * NaN, cannot show it is noise: the change is listed, the CI said unknown). */
static bool fs__material(double value, double diff, double ci, const fs__figure *f)
{
    double base = value - diff;
    if (!(fabs(diff) >= f->floor))
        return false;
    if (fabs(base) > 0 && fabs(diff) < f->relative * fabs(base))
        return false;
    return isnan(ci) || fabs(diff) > ci;
}

/* The target named (service, target) in an SLO standing's list, or NULL. */
static const json_t *fs__find_target(const json_t *targets, const char *service, const char *target)
{
    size_t k;
    const json_t *t;
    json_array_foreach(targets, k, t) {
        if (strcmp(fs__str(t, "service"), service) == 0 &&
            strcmp(fs__str(t, "target"), target) == 0)
            return t;
    }
    return NULL;
}

/* Met beats no data beats missed: a move down that order is worse. */
static int fs__rank(const char *verdict)
{
    return strcmp(verdict, "met") == 0 ? 2 : strcmp(verdict, "no data") == 0 ? 1 : 0;
}

/* Every SLO target whose verdict differs from the baseline's. */
static void fs__slo_changes(json_t *changes, const json_t *mine, const json_t *base)
{
    size_t k;
    const json_t *t;
    json_array_foreach(json_object_get(mine, "targets"), k, t) {
        const char *svc = fs__str(t, "service");
        const char *name = fs__str(t, "target");
        const char *to = fs__str(t, "verdict");
        const json_t *b = fs__find_target(json_object_get(base, "targets"), svc, name);
        const char *from = b ? fs__str(b, "verdict") : NULL;
        if (!from || strcmp(from, to) == 0)
            continue;
        json_t *c = json_object();
        json_object_set_new(c, "workload", json_string(svc));
        json_object_set_new(c, "kind", json_string("slo"));
        json_object_set_new(c, "figure", json_string(name));
        json_object_set_new(c, "from", json_string(from));
        json_object_set_new(c, "to", json_string(to));
        /* Moving to no data is never better: nothing was shown to be met. */
        json_object_set_new(c, "worse", json_boolean(fs__rank(to) < fs__rank(from) || fs__rank(to) == 1));
        json_array_append_new(changes, c);
    }
}

/* The material figure changes of a policy (its `values`) against another
 * (`diffs`: its paired differences to that one), in compare's order:
 * services, training streams, the fleet. */
static void fs__figure_changes(json_t *changes, const json_t *values, const json_t *diffs)
{
    static const char *const sections[] = {"services", "training", "fleet"};
    static const char *const kinds[] = {"service", "training", "fleet"};
    for (size_t s = 0; s < 3; s++) {
        const json_t *items = json_object_get(values, sections[s]);
        /* The fleet is one item, the others an object of them by name. */
        json_t *one = s == 2 ? json_pack("{sO}", "fleet", json_object_get(values, "fleet")) : NULL;
        if (s == 2 && !one)
            continue; /* no fleet figures */
        const char *item;
        const json_t *rows;
        json_object_foreach((json_t *)(one ? one : items), item, rows) {
            const json_t *drows = s == 2 ? json_object_get(diffs, "fleet")
                                         : json_object_get(json_object_get(diffs, sections[s]), item);
            for (size_t f = 0; f < FS__N_FIGURES; f++) {
                if (strcmp(figures[f].section, sections[s]) != 0)
                    continue;
                const json_t *cell = json_object_get(drows, figures[f].key);
                double value = fs__num(json_object_get(rows, figures[f].key));
                double diff = fs__num(json_object_get(cell, "mean"));
                double ci = fs__num(json_object_get(cell, "ci95"));
                if (isnan(value) || isnan(diff) || !fs__material(value, diff, ci, &figures[f]))
                    continue;
                json_t *c = json_object();
                json_object_set_new(c, "workload", json_string(item));
                json_object_set_new(c, "kind", json_string(kinds[s]));
                json_object_set_new(c, "figure", json_string(figures[f].key));
                json_object_set_new(c, "label", json_string(figures[f].label));
                json_object_set_new(c, "unit", json_string(figures[f].unit));
                json_object_set_new(c, "value", fs__real(value));
                json_object_set_new(c, "difference", fs__real(diff));
                json_object_set_new(c, "ci95", fs__real(ci));
                json_object_set_new(c, "worse", json_boolean(diff > 0));
                json_array_append_new(changes, c);
            }
        }
        json_decref(one);
    }
}

/* The names of policy `pol`'s targets with verdict `which`. */
static json_t *fs__targets_with(const json_t *pol, const char *which)
{
    json_t *out = json_array();
    size_t k;
    const json_t *t;
    json_array_foreach(json_object_get(pol, "targets"), k, t) {
        if (strcmp(fs__str(t, "verdict"), which) != 0)
            continue;
        /* Whole, however long the name: a cut could split a UTF-8 character. */
        const char *svc = fs__str(t, "service"), *target = fs__str(t, "target");
        size_t n = strlen(svc) + strlen(target) + 2;
        char *buf = malloc(n);
        if (buf) {
            snprintf(buf, n, "%s %s", svc, target);
            json_array_append_new(out, json_string(buf));
            free(buf);
        }
    }
    return out;
}

/* Appends to a growing string: the sink that builds "reason". */
typedef struct fs__buf {
    char *s;
    size_t n, cap;
    bool failed;
} fs__buf;

static void fs__buf_put(void *ctx, const char *s)
{
    fs__buf *b = ctx;
    size_t len = strlen(s);
    if (b->failed)
        return;
    if (b->n + len + 1 > b->cap) {
        size_t cap = 2 * (b->n + len + 1);
        char *grown = realloc(b->s, cap);
        if (!grown) {
            b->failed = true;
            return;
        }
        b->s = grown;
        b->cap = cap;
    }
    memcpy(b->s + b->n, s, len + 1);
    b->n += len;
}

/* The cost difference of a change list's owner to the policy it is taken
 * against, from compare's paired differences. */
static void fs__cost_difference(json_t *o, const json_t *diffs)
{
    const json_t *cell = json_object_get(json_object_get(diffs, "fleet"), "cost_usd");
    json_object_set_new(o, "cost_usd_difference", fs__real(fs__num(json_object_get(cell, "mean"))));
    json_object_set_new(o, "cost_usd_ci95", fs__real(fs__num(json_object_get(cell, "ci95"))));
}

/* The single best policy against every other policy that meets every SLO
 * but the baseline (the best's own changes are against it; a best that is
 * the baseline has none): compare's "pairs" {best: {other: differences of
 * best to other}}, when it has them. */
static void fs__against_others(json_t *v, const json_t *compare)
{
    const json_t *pols = json_object_get(v, "policies");
    const char *name = fs__s(json_array_get(json_object_get(v, "best"), 0));
    json_t *best = (json_t *)fs__find(pols, "name", name);
    const json_t *pairs = json_object_get(json_object_get(compare, "pairs"), name);
    const json_t *values = json_object_get(json_object_get(compare, "policies"), name);
    if (!best || !json_object_size(pairs))
        return;
    json_t *against = json_array();
    json_object_set_new(best, "against", against);
    size_t k;
    const json_t *other;
    json_array_foreach(pols, k, other) {
        const json_t *diffs = json_object_get(pairs, fs__str(other, "name"));
        if (k == 0 || other == best || !diffs || !json_is_true(json_object_get(other, "meets_every_slo")))
            continue;
        json_t *o = json_object(), *changes = json_array();
        json_object_set_new(o, "policy", json_string(fs__str(other, "name")));
        fs__cost_difference(o, diffs);
        json_object_set_new(o, "changes", changes);
        fs__figure_changes(changes, values, diffs);
        json_array_append_new(against, o);
    }
}

json_t *fs_tradeoffs_verdict(const json_t *compare, const json_t *slo)
{
    const json_t *base = json_array_get(slo, 0);
    json_t *v = json_object(), *pols = json_array(), *best = json_array();
    if (!v || !pols || !best) {
        json_decref(v);
        json_decref(pols);
        json_decref(best);
        return NULL;
    }
    json_object_set_new(v, "baseline", json_string(fs__str(base, "name")));
    json_object_set_new(v, "best", best);
    json_object_set_new(v, "policies", pols);
    double lowest = INFINITY;
    size_t p;
    const json_t *pol;
    json_array_foreach(slo, p, pol) {
        const char *name = fs__str(pol, "name");
        double cost = fs__num(json_object_get(
            json_object_get(json_object_get(json_object_get(compare, "policies"), name), "fleet"), "cost_usd"));
        json_t *o = json_object(), *changes = json_array();
        json_object_set_new(o, "name", json_string(name));
        const json_t *meets = json_object_get(pol, "meets");
        json_object_set_new(o, "meets_every_slo", json_is_boolean(meets) ? json_boolean(json_is_true(meets))
                                                                         : json_null());
        json_object_set_new(o, "missed", fs__targets_with(pol, "missed"));
        json_object_set_new(o, "no_data", fs__targets_with(pol, "no data"));
        json_object_set_new(o, "cost_usd", fs__real(cost));
        json_object_set_new(o, "changes", changes);
        json_array_append_new(pols, o);
        if (p > 0) {
            fs__cost_difference(o, json_object_get(json_object_get(compare, "differences"), name));
            fs__slo_changes(changes, pol, base);
            fs__figure_changes(changes, json_object_get(json_object_get(compare, "policies"), name),
                               json_object_get(json_object_get(compare, "differences"), name));
        }
        /* A policy whose cost has no data cannot be called the cheapest. */
        if (json_is_true(json_object_get(pol, "meets")) && isfinite(cost) && cost < lowest)
            lowest = cost;
    }
    /* Equal to the cent is a tie: every such policy is named. */
    json_array_foreach(pols, p, pol) {
        double cost = fs__num(json_object_get(pol, "cost_usd"));
        if (json_is_true(json_object_get(pol, "meets_every_slo")) && isfinite(cost) && fabs(cost - lowest) < 0.005)
            json_array_append_new(best, json_string(fs__str(pol, "name")));
    }
    if (json_array_size(best) == 1)
        fs__against_others(v, compare);
    fs__buf b = {0};
    fs_tradeoffs_sink sink = {fs__buf_put, fs__buf_put, &b};
    fs_tradeoffs_write_reason(v, &sink);
    json_t *reason = b.s && !b.failed ? json_string(b.s) : NULL;
    free(b.s);
    if (!reason) {
        json_decref(v);
        return NULL;
    }
    json_object_set_new(v, "reason", reason);
    return v;
}

/* ---- the sentences --------------------------------------------------------- */

static void fs__put(const fs_tradeoffs_sink *out, const char *fmt, double x)
{
    char buf[64];
    snprintf(buf, sizeof buf, fmt, x);
    out->raw(out->ctx, buf);
}

/* "eval-sweep queue wait p95 +576.7 min (95% CI ±0)", or "chat p99 SLO
 * missed → met".  Every string read from the document goes through `text`:
 * the report reads compare.json from disk, and a file is no proof of who
 * wrote it. */
static void fs__write_change(const json_t *c, const fs_tradeoffs_sink *out)
{
    out->text(out->ctx, fs__str(c, "workload"));
    out->raw(out->ctx, " ");
    if (strcmp(fs__str(c, "kind"), "slo") == 0) {
        out->text(out->ctx, fs__str(c, "figure"));
        out->raw(out->ctx, " SLO ");
        out->text(out->ctx, fs__str(c, "from"));
        out->raw(out->ctx, " → ");
        out->text(out->ctx, fs__str(c, "to"));
        return;
    }
    const char *unit = fs__str(c, "unit");
    double ci = fs__num(json_object_get(c, "ci95"));
    out->text(out->ctx, fs__str(c, "label"));
    fs__put(out, " %+.4g", fs__num(json_object_get(c, "difference")));
    if (unit && *unit) {
        out->raw(out->ctx, " ");
        out->text(out->ctx, unit);
    }
    if (isnan(ci))
        out->raw(out->ctx, " (95% CI unknown)");
    else
        fs__put(out, " (95%% CI ±%.2g)", ci);
}

/* How large a change is, for the order the sentences list them in: an SLO
 * flip first, then by the change relative to the other policy's figure (a
 * change from 0 as large as a flip), ties in compare's order. */
typedef struct fs__ranked {
    const json_t *change;
    double weight;
    size_t order;
} fs__ranked;

static int fs__by_weight(const void *a, const void *b)
{
    const fs__ranked *x = a, *y = b;
    if (x->weight != y->weight)
        return x->weight > y->weight ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* At most this many changes a sentence lists in each direction; the rest
 * are counted ("and 3 more"), all of them in compare.json. */
#define FS__MAX_LISTED 5

/* The changes of one policy that are (worse) or are not worse, the largest
 * first, "; " between them. */
static void fs__write_changes(const json_t *pol, bool worse, const fs_tradeoffs_sink *out)
{
    const json_t *changes = json_object_get(pol, "changes");
    fs__ranked *list = malloc((json_array_size(changes) + 1) * sizeof *list);
    size_t k, n = 0;
    const json_t *c;
    if (!list)
        return;
    json_array_foreach(changes, k, c) {
        if (json_is_true(json_object_get(c, "worse")) != worse)
            continue;
        double diff = fs__num(json_object_get(c, "difference"));
        double base = fs__num(json_object_get(c, "value")) - diff;
        double w = strcmp(fs__str(c, "kind"), "slo") == 0 || !(fabs(base) > 0) ? INFINITY : fabs(diff / base);
        list[n++] = (fs__ranked){c, isnan(w) ? 0 : w, k};
    }
    qsort(list, n, sizeof *list, fs__by_weight);
    for (size_t i = 0; i < n && i < FS__MAX_LISTED; i++) {
        out->raw(out->ctx, i ? "; " : "");
        fs__write_change(list[i].change, out);
    }
    if (n > FS__MAX_LISTED)
        fs__put(out, "; and %.0f more", (double)(n - FS__MAX_LISTED));
    free(list);
}

static size_t fs__count(const json_t *pol, bool worse)
{
    size_t k, n = 0;
    const json_t *c;
    json_array_foreach(json_object_get(pol, "changes"), k, c) n += json_is_true(json_object_get(c, "worse")) == worse;
    return n;
}

/* "misses chat p99", "has no data for chat p99", "has no SLO to judge". */
static void fs__write_standing(const json_t *pol, const fs_tradeoffs_sink *out)
{
    const json_t *missed = json_object_get(pol, "missed"), *no_data = json_object_get(pol, "no_data");
    const json_t *list = json_array_size(missed) ? missed : no_data;
    if (!json_array_size(list)) {
        out->raw(out->ctx, json_is_true(json_object_get(pol, "meets_every_slo")) ? "meets every SLO"
                                                                                 : "has no SLO to judge");
        return;
    }
    out->raw(out->ctx, list == missed ? "misses " : "has no data for ");
    size_t k;
    const json_t *t;
    json_array_foreach(list, k, t) {
        if (k == 3) {
            out->raw(out->ctx, " and more");
            break;
        }
        out->raw(out->ctx, k ? ", " : "");
        out->text(out->ctx, fs__s(t));
    }
}

/* "; against A (which misses chat p99, at $100.00) it makes worse: ...",
 * or "; it makes no workload materially worse than A (...)": the changes
 * of `mine` (an object with "changes" and the cost difference) against
 * policy `other`.  Where `other` meets every SLO too and the cost
 * difference is not material, that is said, so that "the lowest cost"
 * claims no more than the run shows. */
static void fs__write_against(const json_t *mine, const json_t *other, const fs_tradeoffs_sink *out)
{
    bool worse = fs__count(mine, true) > 0;
    out->raw(out->ctx, worse ? "; against " : "; it makes no workload materially worse than ");
    out->text(out->ctx, fs__str(other, "name"));
    out->raw(out->ctx, " (which ");
    fs__write_standing(other, out);
    fs__put(out, ", at $%.2f", fs__num(json_object_get(other, "cost_usd")));
    if (json_is_true(json_object_get(other, "meets_every_slo")) &&
        !fs__find(json_object_get(mine, "changes"), "figure", "cost_usd")) {
        fs__put(out, "; the cost difference, %+.2f USD", fs__num(json_object_get(mine, "cost_usd_difference")));
        double ci = fs__num(json_object_get(mine, "cost_usd_ci95"));
        if (isnan(ci))
            out->raw(out->ctx, " (95% CI unknown), is too small to matter");
        else
            fs__put(out, " (95%% CI ±%.2g), is within noise or too small to matter", ci);
    }
    out->raw(out->ctx, ")");
    if (worse) {
        out->raw(out->ctx, " it makes worse: ");
        fs__write_changes(mine, true, out);
    }
}

void fs_tradeoffs_write_reason(const json_t *verdict, const fs_tradeoffs_sink *out)
{
    const json_t *best = json_object_get(verdict, "best"), *pols = json_object_get(verdict, "policies");
    const json_t *base = json_array_get(pols, 0);
    size_t k;
    const json_t *pol;
    if (json_array_size(best) == 0) {
        bool judged = false;
        json_array_foreach(pols, k, pol) judged |= json_array_size(json_object_get(pol, "missed")) ||
                                                   json_array_size(json_object_get(pol, "no_data"));
        out->raw(out->ctx, judged ? "no policy meets every SLO: " : "no policy can be named: no service has an SLO");
        json_array_foreach(pols, k, pol) {
            if (!judged)
                break;
            out->raw(out->ctx, k ? "; " : "");
            out->text(out->ctx, fs__str(pol, "name"));
            out->raw(out->ctx, " ");
            fs__write_standing(pol, out);
        }
        return;
    }
    const json_t *first = fs__find(pols, "name", fs__s(json_array_get(best, 0)));
    json_array_foreach(best, k, pol) {
        out->raw(out->ctx, k == 0 ? "" : k + 1 == json_array_size(best) ? " and " : ", ");
        out->text(out->ctx, fs__s(pol));
    }
    fs__put(out, json_array_size(best) > 1 ? " tie: each meets every SLO at $%.2f, the lowest cost"
                                           : " meets every SLO at $%.2f, the lowest cost",
            fs__num(json_object_get(first, "cost_usd")));
    /* The price the cheapest pays elsewhere, against the baseline (when it
     * is not the baseline itself) and every other policy that meets every
     * SLO: what a reviewer weighs against the saving. */
    if (json_array_size(best) > 1)
        return;
    if (first != base)
        fs__write_against(first, base, out);
    json_array_foreach(json_object_get(first, "against"), k, pol)
        fs__write_against(pol, fs__find(pols, "name", fs__str(pol, "policy")), out);
}

void fs_tradeoffs_write_policy(const json_t *verdict, size_t index, const fs_tradeoffs_sink *out)
{
    const json_t *pol = json_array_get(json_object_get(verdict, "policies"), index);
    out->text(out->ctx, fs__str(pol, "name"));
    out->raw(out->ctx, " against ");
    out->text(out->ctx, fs__str(verdict, "baseline"));
    if (fs__count(pol, true) + fs__count(pol, false) == 0) {
        out->raw(out->ctx, ": no material change");
        return;
    }
    if (fs__count(pol, true)) {
        out->raw(out->ctx, ": worse: ");
        fs__write_changes(pol, true, out);
    }
    if (fs__count(pol, false)) {
        out->raw(out->ctx, fs__count(pol, true) ? "; better: " : ": better: ");
        fs__write_changes(pol, false, out);
    }
}

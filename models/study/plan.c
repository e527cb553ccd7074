#include "plan.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "duration.h"
#include "jsonpath.h"
#include "number.h"

/* ---- constraints ---- */

int fs_constraint_parse(const char *text, fs_constraint *out, fs_error *err)
{
    *out = (fs_constraint){0};
    static const struct { const char *sym; fs_cmp op; } ops[] = {
        {"<=", FS_CMP_LE}, {">=", FS_CMP_GE}, {"<", FS_CMP_LT}, {">", FS_CMP_GT}};
    const char *at = NULL;
    size_t sym_len = 0;
    for (size_t k = 0; k < sizeof ops / sizeof ops[0] && !at; k++)
        if ((at = strstr(text, ops[k].sym)) != NULL) {
            out->op = ops[k].op;
            sym_len = strlen(ops[k].sym);
        }
    const char *name_end = at;
    while (at && name_end > text && isspace((unsigned char)name_end[-1]))
        name_end--;
    const char *limit = at ? at + sym_len : NULL;
    while (limit && isspace((unsigned char)*limit))
        limit++;
    if (!at || name_end == text || !*limit)
        return fs_error_set(err, FS_ERR_INPUT,
                            "constraint \"%s\": expected FIGURE OP LIMIT with OP one of <= < >= >, like "
                            "service:chat.p99<=250ms or fleet.peak_headroom>=0.4",
                            text);
    const char *end;
    double v;
    bool number = fs_number_prefix(limit, &v, &end) == 0;
    if (number && *end == '\0') {
        out->given = v;
    } else if (number && strcmp(end, "%") == 0) {
        out->given = v / 100;
        strcpy(out->unit, "%");
    } else {
        char why[128];
        if (fs_duration_parse(limit, &v, why, sizeof why) != 0)
            return fs_error_set(err, FS_ERR_INPUT,
                                "constraint \"%s\": limit \"%s\": expected a number, a percentage or a "
                                "duration like 250ms or 10m (%s)",
                                text, limit, why);
        out->given = v; /* seconds */
        strcpy(out->unit, "s");
    }
    if (!isfinite(out->given))
        return fs_error_set(err, FS_ERR_INPUT, "constraint \"%s\": the limit must be finite", text);
    out->text = strdup(text);
    out->name = strndup(text, (size_t)(name_end - text));
    if (!out->text || !out->name) {
        fs_constraint_fini(out);
        return fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
    }
    return FS_OK;
}

void fs_constraint_fini(fs_constraint *c)
{
    free(c->text);
    free(c->name);
    free(c->metric);
    *c = (fs_constraint){0};
}

static bool fs__ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

const char *fs_plan_resolve_name(const fs_metric_row *row, const char *name)
{
    if (strcmp(name, "cost") == 0)
        name = "fleet.cost_usd";
    static const char *const suffixes[] = {"", "_ms", "_s", "_usd", "_hours", "_kwh", "_rps"};
    char buf[512];
    for (size_t k = 0; k < sizeof suffixes / sizeof suffixes[0]; k++) {
        snprintf(buf, sizeof buf, "%s%s", name, suffixes[k]);
        size_t i = fs_metric_row_find(row, buf);
        if (i != SIZE_MAX)
            return row->names[i];
    }
    return NULL;
}

int fs_plan_unknown_figure(const fs_metric_row *row, const char *what, const char *name, fs_error *err)
{
    const char *near = fs_jpath_closest(name, (const char *const *)row->names, row->n);
    return fs_error_set(err, FS_ERR_INPUT, "%s \"%s\": no such figure%s%s%s (figures are named like "
                        "service:NAME.p99_ms, pool:NAME.utilization, fleet.cost_usd, training:NAME.queue_p95_s)",
                        what, name, near ? "; did you mean \"" : "", near ? near : "", near ? "\"?" : "");
}

/* Resolves c against row and converts its limit to the figure's unit. */
static int fs__resolve(fs_constraint *c, const fs_metric_row *row, fs_error *err)
{
    const char *metric = fs_plan_resolve_name(row, c->name);
    if (!metric)
        return fs_plan_unknown_figure(row, "constraint", c->name, err);
    c->limit = c->given;
    if (strcmp(c->unit, "s") == 0) {
        /* An LLM service's ttft_pNN and tpot_pNN are in ms too (their names,
         * like the histograms', carry no unit). */
        if (fs__ends_with(metric, "_ms") || strstr(metric, ".ttft_p") || strstr(metric, ".tpot_p"))
            c->limit = c->given * 1e3;
        else if (!fs__ends_with(metric, "_s"))
            return fs_error_set(err, FS_ERR_INPUT, "constraint \"%s\": %s is not a time; give a plain number",
                                c->text, metric);
    }
    if (!(c->metric = strdup(metric)))
        return fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
    return FS_OK;
}

static fs_verdict fs__judge_one(const fs_constraint *c, const fs_metric_row *row)
{
    size_t i = fs_metric_row_find(row, c->metric);
    if (i == SIZE_MAX)
        return FS_VERDICT_FAILS; /* a point without the figure cannot show it meets */
    double v = row->value[i], h = row->ci95[i];
    if (isnan(v))
        return FS_VERDICT_FAILS; /* no data (a latency with no completion) never meets a constraint */
    if (isnan(h))
        return FS_VERDICT_UNSURE;
    double lo = v - h, hi = v + h;
    switch (c->op) {
    case FS_CMP_LE: return hi <= c->limit ? FS_VERDICT_MEETS : lo > c->limit ? FS_VERDICT_FAILS : FS_VERDICT_UNSURE;
    case FS_CMP_LT: return hi < c->limit ? FS_VERDICT_MEETS : lo >= c->limit ? FS_VERDICT_FAILS : FS_VERDICT_UNSURE;
    case FS_CMP_GE: return lo >= c->limit ? FS_VERDICT_MEETS : hi < c->limit ? FS_VERDICT_FAILS : FS_VERDICT_UNSURE;
    case FS_CMP_GT: return lo > c->limit ? FS_VERDICT_MEETS : hi <= c->limit ? FS_VERDICT_FAILS : FS_VERDICT_UNSURE;
    }
    return FS_VERDICT_UNSURE;
}

const char *fs_verdict_name(fs_verdict v)
{
    return v == FS_VERDICT_MEETS ? "meets" : v == FS_VERDICT_FAILS ? "fails" : "unsure";
}

/* ---- the search ---- */

typedef struct fs__search {
    fs_plan *plan;
    fs_plan_evaluate evaluate;
    void *ctx;
    size_t *at;      /* per point: index into plan->evaluated, SIZE_MAX if not yet */
    size_t cap;
    bool resolved;
} fs__search;

static int fs__resolve_all(fs__search *st, const fs_metric_row *row, fs_error *err)
{
    fs_plan *plan = st->plan;
    for (size_t k = 0; k < plan->n_constraints; k++) {
        int rc = fs__resolve(&plan->constraints[k], row, err);
        if (rc != FS_OK)
            return rc;
    }
    const char *minimize = plan->minimize ? plan->minimize : "cost";
    const char *name = fs_plan_resolve_name(row, minimize);
    if (!name)
        return fs_plan_unknown_figure(row, "--minimize", minimize, err);
    if (!(plan->minimize_metric = strdup(name)))
        return fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
    name = NULL;
    if (plan->frontier) {
        if (!(name = fs_plan_resolve_name(row, plan->frontier)))
            return fs_plan_unknown_figure(row, "--frontier", plan->frontier, err);
    } else {
        /* The first p99 a constraint names (an LLM service's TTFT or TPOT
         * p99 too), else the first service's. */
        for (size_t k = 0; k < plan->n_constraints && !name; k++)
            if (fs__ends_with(plan->constraints[k].metric, ".p99_ms") ||
                fs__ends_with(plan->constraints[k].metric, ".ttft_p99") ||
                fs__ends_with(plan->constraints[k].metric, ".tpot_p99"))
                name = plan->constraints[k].metric;
        for (size_t i = 0; i < row->n && !name; i++)
            if (strncmp(row->names[i], "service:", 8) == 0 && fs__ends_with(row->names[i], ".p99_ms"))
                name = row->names[i];
    }
    if (name && !(plan->frontier_metric = strdup(name)))
        return fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
    st->resolved = true;
    return FS_OK;
}

/* The verdict on a point, judging it (with more replications while unsure)
 * the first time it is asked for. */
static int fs__judge(fs__search *st, size_t point, fs_verdict *verdict, fs_error *err)
{
    fs_plan *plan = st->plan;
    if (st->at[point] != SIZE_MAX) {
        *verdict = plan->evaluated[st->at[point]].verdict;
        return FS_OK;
    }
    uint32_t reps = plan->replications;
    fs_metric_row row;
    fs_verdict v;
    for (;;) {
        int rc = st->evaluate(st->ctx, point, reps, &row, err);
        if (rc != FS_OK)
            return rc;
        if (row.refused) {
            v = FS_VERDICT_FAILS;
            break;
        }
        if (!st->resolved && (rc = fs__resolve_all(st, &row, err)) != FS_OK) {
            fs_metric_row_fini(&row);
            return rc;
        }
        v = FS_VERDICT_MEETS;
        for (size_t k = 0; k < plan->n_constraints && v != FS_VERDICT_FAILS; k++) {
            fs_verdict one = fs__judge_one(&plan->constraints[k], &row);
            if (one != FS_VERDICT_MEETS)
                v = one;
        }
        if (v != FS_VERDICT_UNSURE || reps >= plan->max_replications)
            break;
        fs_metric_row_fini(&row);
        reps = reps * 2 < plan->max_replications ? reps * 2 : plan->max_replications;
    }
    if (plan->n_evaluated == st->cap) {
        size_t cap = st->cap ? 2 * st->cap : 32;
        fs_plan_point *bigger = realloc(plan->evaluated, cap * sizeof *bigger);
        if (!bigger) {
            fs_metric_row_fini(&row);
            return fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
        }
        plan->evaluated = bigger;
        st->cap = cap;
    }
    plan->evaluated[plan->n_evaluated] = (fs_plan_point){.point = point, .replications = reps, .verdict = v, .row = row};
    st->at[point] = plan->n_evaluated++;
    plan->runs += reps;
    *verdict = v;
    return FS_OK;
}

/* The first index along dimension L (points base + k * stride) that meets,
 * knowing (when known < n) that index `known` meets by monotonicity; n when
 * none does. */
static int fs__first_meeting(fs__search *st, size_t base, size_t stride, size_t n, size_t known, size_t *first,
                             fs_error *err)
{
    fs_verdict v;
    size_t lo = 0, hi = known;
    if (known >= n) {
        int rc = fs__judge(st, base + (n - 1) * stride, &v, err);
        if (rc != FS_OK)
            return rc;
        if (v != FS_VERDICT_MEETS) {
            *first = n;
            return FS_OK;
        }
        hi = n - 1;
    }
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int rc = fs__judge(st, base + mid * stride, &v, err);
        if (rc != FS_OK)
            return rc;
        if (v == FS_VERDICT_MEETS)
            hi = mid;
        else
            lo = mid + 1;
    }
    int rc = fs__judge(st, base + lo * stride, &v, err);
    if (rc != FS_OK)
        return rc;
    if (v != FS_VERDICT_MEETS && lo + 1 < n) {
        /* The inferred bound did not hold (noise, or a dimension that is not
         * monotone after all): search what lies above it. */
        size_t above;
        rc = fs__first_meeting(st, base + (lo + 1) * stride, stride, n - lo - 1, n, &above, err);
        *first = above < n - lo - 1 ? lo + 1 + above : n;
        return rc;
    }
    *first = v == FS_VERDICT_MEETS ? lo : n;
    return FS_OK;
}

static bool fs__monotone(const fs_sweep_dim *d)
{
    return d->range && strcmp(d->path, FS_SWEEP_POLICY_PATH) != 0;
}

static int fs__staircase(fs__search *st, fs_error *err)
{
    const fs_sweep *sw = st->plan->sweep;
    size_t last = SIZE_MAX;
    for (size_t d = 0; d < sw->n_dims; d++)
        if (fs__monotone(&sw->dims[d]))
            last = d;
    size_t n_last = json_array_size(sw->dims[last].values), stride = 1;
    for (size_t d = last + 1; d < sw->n_dims; d++)
        stride *= json_array_size(sw->dims[d].values);
    /* first[c]: first meeting index along `last` for the line through point c
     * (its coordinate on `last` is 0). */
    size_t *first = malloc(sw->n_points * sizeof *first);
    size_t *coords = malloc((sw->n_dims + 1) * sizeof *coords);
    int rc = first && coords ? FS_OK : fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
    for (size_t c = 0; rc == FS_OK && c < sw->n_points; c++) {
        fs_sweep_coords(sw, c, coords);
        if (coords[last] != 0)
            continue;
        /* A line one step lower on another range met at index t: this one
         * meets at t too, so its first meeting index is at most t. */
        size_t known = n_last;
        for (size_t d = 0; d < sw->n_dims; d++) {
            if (d == last || !fs__monotone(&sw->dims[d]) || coords[d] == 0)
                continue;
            coords[d]--;
            size_t t = first[fs_sweep_point_at(sw, coords)];
            coords[d]++;
            if (t < known)
                known = t;
        }
        rc = fs__first_meeting(st, c, stride, n_last, known, &first[c], err);
    }
    free(first);
    free(coords);
    return rc;
}

typedef struct fs__front_item {
    size_t index;
    double cost, latency;
} fs__front_item;

static int fs__cmp_front(const void *a, const void *b)
{
    const fs__front_item *x = a, *y = b;
    if (x->cost != y->cost)
        return x->cost < y->cost ? -1 : 1;
    if (x->latency != y->latency)
        return x->latency < y->latency ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

static int fs__frontier(fs_plan *plan, fs_error *err)
{
    if (!plan->frontier_metric || !plan->minimize_metric)
        return FS_OK;
    fs__front_item *items = malloc((plan->n_evaluated + 1) * sizeof *items);
    plan->front = malloc((plan->n_evaluated + 1) * sizeof *plan->front);
    if (!items || !plan->front) {
        free(items);
        return fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
    }
    size_t n = 0;
    for (size_t i = 0; i < plan->n_evaluated; i++) {
        double ci, cost = fs_plan_value(&plan->evaluated[i], plan->minimize_metric, &ci);
        double lat = fs_plan_value(&plan->evaluated[i], plan->frontier_metric, &ci);
        if (isfinite(cost) && isfinite(lat))
            items[n++] = (fs__front_item){i, cost, lat};
    }
    qsort(items, n, sizeof *items, fs__cmp_front);
    double best = INFINITY;
    for (size_t k = 0; k < n; k++)
        if (items[k].latency < best) {
            best = items[k].latency;
            plan->front[plan->n_front++] = items[k].index;
        }
    free(items);
    return FS_OK;
}

int fs_plan_search(fs_plan *plan, fs_plan_evaluate evaluate, void *ctx, fs_error *err)
{
    const fs_sweep *sw = plan->sweep;
    plan->best = SIZE_MAX;
    if (plan->replications < 2)
        plan->replications = 2; /* an interval needs two */
    if (plan->max_replications < plan->replications)
        plan->max_replications = plan->replications;
    fs__search st = {.plan = plan, .evaluate = evaluate, .ctx = ctx};
    st.at = malloc(sw->n_points * sizeof *st.at);
    if (!st.at)
        return fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
    for (size_t p = 0; p < sw->n_points; p++)
        st.at[p] = SIZE_MAX;
    bool any_monotone = false;
    for (size_t d = 0; d < sw->n_dims; d++)
        any_monotone |= fs__monotone(&sw->dims[d]);
    int rc = FS_OK;
    if (plan->grid || !any_monotone) {
        fs_verdict v;
        for (size_t p = 0; rc == FS_OK && p < sw->n_points; p++)
            rc = fs__judge(&st, p, &v, err);
    } else {
        rc = fs__staircase(&st, err);
    }
    free(st.at);
    if (rc != FS_OK)
        return rc;
    double best = INFINITY;
    for (size_t i = 0; i < plan->n_evaluated; i++) {
        const fs_plan_point *e = &plan->evaluated[i];
        double ci, cost = fs_plan_value(e, plan->minimize_metric, &ci);
        if (e->verdict != FS_VERDICT_MEETS || !(cost <= best))
            continue;
        if (cost < best || plan->best == SIZE_MAX || e->point < plan->evaluated[plan->best].point) {
            best = cost;
            plan->best = i;
        }
    }
    return fs__frontier(plan, err);
}

double fs_plan_value(const fs_plan_point *p, const char *metric, double *ci95)
{
    size_t i = metric ? fs_metric_row_find(&p->row, metric) : SIZE_MAX;
    *ci95 = i == SIZE_MAX ? NAN : p->row.ci95[i];
    return i == SIZE_MAX ? NAN : p->row.value[i];
}

void fs_plan_fini(fs_plan *plan)
{
    for (size_t k = 0; k < plan->n_constraints; k++)
        fs_constraint_fini(&plan->constraints[k]);
    free(plan->constraints);
    free(plan->minimize);
    free(plan->frontier);
    for (size_t i = 0; i < plan->n_evaluated; i++)
        fs_metric_row_fini(&plan->evaluated[i].row);
    free(plan->evaluated);
    free(plan->front);
    free(plan->minimize_metric);
    free(plan->frontier_metric);
    *plan = (fs_plan){0};
}

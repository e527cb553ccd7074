/*
 * check — comparing two results documents; see check.h.
 *
 * Structure: both documents are validated whole first (fs__validate), so the
 * comparison that follows reads them without error paths and a refused
 * baseline leaves no partial table on the stream.  The comparison walks the
 * baseline's order (policies, then per policy its services, training
 * streams and fleet), listing after each group what only the current
 * document has.
 */
#include "check.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "number.h"
#include "results.h"

/* Where a metric lives: in each service, each training stream or the fleet.
 * FS__POLICY, which holds no metric itself, names the elements of
 * "policies" for validation. */
typedef enum fs__scope { FS__SERVICE, FS__TRAINING, FS__FLEET, FS__POLICY } fs__scope;

/* How a value is shown in the table. */
typedef enum fs__unit { FS__MS, FS__WINDOWS, FS__SECONDS, FS__USD, FS__SHARE, FS__GPU_HOURS, FS__TOKENS_S } fs__unit;

typedef struct fs__metric {
    fs_check_metric_info info;
    fs__scope scope;
    const char *object; /* the member holding the figure ("latency_ms", "llm.ttft_ms": a dotted path), or NULL */
    const char *member; /* the figure ("p99") */
    fs__unit unit;
} fs__metric;

static const fs__metric fs__metrics[FS_CHECK_N_METRICS] = {
    [FS_CHECK_P99] = {{"p99", "service latency_ms.p99", false, 5, 0.5, "0.5 ms"},
                      FS__SERVICE, "latency_ms", "p99", FS__MS},
    [FS_CHECK_P95] = {{"p95", "service latency_ms.p95", false, 5, 0.5, "0.5 ms"},
                      FS__SERVICE, "latency_ms", "p95", FS__MS},
    [FS_CHECK_BREACHES] = {{"breaches", "service slo_breach_windows", false, 10, 0.5, "0.5 windows"},
                           FS__SERVICE, NULL, "slo_breach_windows", FS__WINDOWS},
    [FS_CHECK_QUEUE_P95] = {{"queue_p95", "training queue_wait_s.p95", false, 10, 1.0, "1 s"},
                            FS__TRAINING, "queue_wait_s", "p95", FS__SECONDS},
    [FS_CHECK_COST] = {{"cost", "fleet cost_usd", false, 2, 0.01, "0.01 USD"},
                       FS__FLEET, NULL, "cost_usd", FS__USD},
    [FS_CHECK_HEADROOM] = {{"headroom", "fleet peak_headroom", true, 5, 0.001, "0.1 percentage point"},
                           FS__FLEET, NULL, "peak_headroom", FS__SHARE},
    [FS_CHECK_UTILIZATION] = {{"utilization", "fleet utilization", true, 5, 0.001, "0.1 percentage point"},
                              FS__FLEET, NULL, "utilization", FS__SHARE},
    [FS_CHECK_SWITCH] = {{"switch", "fleet switch_gpu_hours", false, 20, 0.01, "0.01 GPU-hours"},
                         FS__FLEET, NULL, "switch_gpu_hours", FS__GPU_HOURS},
    [FS_CHECK_TTFT_P99] = {{"ttft_p99", "service llm.ttft_ms.p99", false, 5, 0.5, "0.5 ms"},
                           FS__SERVICE, "llm.ttft_ms", "p99", FS__MS},
    [FS_CHECK_TPOT_P99] = {{"tpot_p99", "service llm.tpot_ms.p99", false, 5, 0.05, "0.05 ms"},
                           FS__SERVICE, "llm.tpot_ms", "p99", FS__MS},
    [FS_CHECK_TOKENS_PER_S] = {{"tokens_per_s", "service llm.tokens_per_s", true, 5, 0.5, "0.5 tokens/s"},
                               FS__SERVICE, "llm", "tokens_per_s", FS__TOKENS_S},
    [FS_CHECK_CYCLE_P95] = {{"cycle_p95", "training pipeline.cycle_s.p95", false, 10, 60, "60 s"},
                            FS__TRAINING, "pipeline.cycle_s", "p95", FS__SECONDS},
    [FS_CHECK_ROLLOUT_P95] = {{"rollout_p95", "training rollouts.duration_s.p95", false, 10, 1, "1 s"},
                              FS__TRAINING, "rollouts.duration_s", "p95", FS__SECONDS},
};

/* The object holding a figure: `path` ("llm.ttft_ms") followed member by
 * member from item; NULL when any step is absent (or not an object). */
static const json_t *fs__holder(const json_t *item, const char *path)
{
    while (item && path) {
        const char *dot = strchr(path, '.');
        size_t len = dot ? (size_t)(dot - path) : strlen(path);
        item = json_is_object(item) ? json_object_getn(item, path, len) : NULL;
        path = dot ? dot + 1 : NULL;
    }
    return item;
}

const fs_check_metric_info *fs_check_metric_get(fs_check_metric m)
{
    return m >= 0 && m < FS_CHECK_N_METRICS ? &fs__metrics[m].info : NULL;
}

void fs_check_tolerances_init(fs_check_tolerances *t)
{
    for (int m = 0; m < FS_CHECK_N_METRICS; m++)
        t->percent[m] = fs__metrics[m].info.default_percent;
}

/* ------------------------------------------------------------ tolerances */

static void fs__valid_keys(char *buf, size_t size)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int m = 0; m < FS_CHECK_N_METRICS && n < size; m++) {
        int w = snprintf(buf + n, size - n, "%s%s", m ? ", " : "", fs__metrics[m].info.key);
        if (w < 0)
            break;
        n += (size_t)w;
    }
}

/* "5%", "5", "2.5%", "0": a decimal number >= 0 (number.h: no hex, no
 * "inf" or "nan", no white space), an optional "%", nothing else.  A
 * tolerance is typed by a person, so "0x10" is a typo, not sixteen. */
static int fs__parse_percent(const char *text, double *out)
{
    const char *end;
    double v;
    if (fs_number_prefix(text, &v, &end) != 0 || v < 0)
        return -1;
    if (*end == '%')
        end++;
    if (*end != '\0')
        return -1;
    *out = v;
    return 0;
}

int fs_check_tolerances_parse(fs_check_tolerances *t, const char *spec, fs_error *err)
{
    fs_check_tolerances next = *t;
    char *copy = malloc(strlen(spec) + 1);
    if (!copy)
        return fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
    strcpy(copy, spec);
    int rc = FS_OK;
    char keys[256];
    fs__valid_keys(keys, sizeof keys);
    /* Split by hand rather than with strtok so that empty entries ("p99=5%,,")
     * are seen and refused instead of skipped. */
    char *entry = copy;
    while (rc == FS_OK) {
        char *comma = strchr(entry, ',');
        if (comma)
            *comma = '\0';
        char *eq = strchr(entry, '=');
        if (*entry == '\0') {
            rc = fs_error_set(err, FS_ERR_INPUT, "empty entry in \"%s\": expected KEY=PERCENT[,KEY=PERCENT...] "
                              "(keys: %s)", spec, keys);
            break;
        }
        if (!eq) {
            rc = fs_error_set(err, FS_ERR_INPUT, "expected KEY=PERCENT, got \"%s\" (keys: %s)", entry, keys);
            break;
        }
        *eq = '\0';
        int found = -1;
        for (int m = 0; m < FS_CHECK_N_METRICS && found < 0; m++)
            if (strcmp(entry, fs__metrics[m].info.key) == 0)
                found = m;
        double v;
        if (found < 0)
            rc = fs_error_set(err, FS_ERR_INPUT, "unknown key \"%s\" (valid keys: %s)", entry, keys);
        else if (fs__parse_percent(eq + 1, &v) != 0)
            rc = fs_error_set(err, FS_ERR_INPUT,
                              "%s: expected a percentage like 5%% or 5 (a number >= 0), got \"%s\"", entry,
                              eq + 1);
        else
            next.percent[found] = v;
        if (!comma)
            break;
        entry = comma + 1;
    }
    free(copy);
    if (rc == FS_OK)
        *t = next;
    return rc;
}

/* ------------------------------------------------------------ validation */

/* The context of a validation: which document, for messages. */
typedef struct fs__doc {
    const char *side; /* the baseline's file name, or "current results" */
    fs_error *err;
} fs__doc;

/* A JSON path into buf.  Paths hold only fixed keys and indices, so they
 * are short; a longer one would be cut, which only shortens a message. */
static void fs__path(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fs__path(char *buf, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, size, fmt, ap);
    va_end(ap);
}

static int fs__bad(const fs__doc *d, const char *path, const char *what, const json_t *found)
{
    const char *kind = !found               ? "nothing"
                       : json_is_object(found) ? "an object"
                       : json_is_array(found)  ? "an array"
                       : json_is_string(found) ? "a string"
                       : json_is_number(found) ? "a number"
                       : json_is_boolean(found) ? "a boolean"
                                                : "null";
    return fs_error_set(d->err, FS_ERR_INPUT, "%s: %s%sexpected %s, got %s", d->side, path, *path ? ": " : "",
                        what, kind);
}

/* A figure: absent, null or a number; if nested, its holder is an object. */
static int fs__validate_metric(const fs__doc *d, const json_t *item, const char *path, const fs__metric *m)
{
    char where[512];
    const json_t *holder = item;
    if (m->object) {
        holder = fs__holder(item, m->object);
        if (!holder)
            return FS_OK;
        if (!json_is_object(holder)) {
            fs__path(where, sizeof where, "%s.%s", path, m->object);
            return fs__bad(d, where, "an object", holder);
        }
    }
    const json_t *v = json_object_get(holder, m->member);
    if (v && !json_is_number(v) && !json_is_null(v)) {
        fs__path(where, sizeof where, "%s%s%s.%s", path, m->object ? "." : "", m->object ? m->object : "",
                 m->member);
        return fs__bad(d, where, "a number or null", v);
    }
    return FS_OK;
}

static int fs__validate_metrics(const fs__doc *d, const json_t *item, const char *path, fs__scope scope)
{
    int rc = FS_OK;
    for (int m = 0; m < FS_CHECK_N_METRICS && rc == FS_OK; m++)
        if (fs__metrics[m].scope == scope)
            rc = fs__validate_metric(d, item, path, &fs__metrics[m]);
    return rc;
}

/* parent[key]: absent (unless required), or an array of objects with
 * distinct string names, each valid as a `scope`.  path is the parent's. */
static int fs__validate_named(const fs__doc *d, const json_t *parent, const char *key, const char *path,
                              bool required, fs__scope scope)
{
    char where[512], elem[512];
    fs__path(where, sizeof where, "%s%s%s", path, *path ? "." : "", key);
    const json_t *list = json_object_get(parent, key);
    if (!list)
        return required ? fs__bad(d, where, "an array", NULL) : FS_OK;
    if (!json_is_array(list))
        return fs__bad(d, where, "an array", list);
    for (size_t i = 0; i < json_array_size(list); i++) {
        const json_t *o = json_array_get(list, i);
        fs__path(elem, sizeof elem, "%s[%zu]", where, i);
        if (!json_is_object(o))
            return fs__bad(d, elem, "an object", o);
        const json_t *name = json_object_get(o, "name");
        if (!json_is_string(name)) {
            char at[512];
            fs__path(at, sizeof at, "%s.name", elem);
            return fs__bad(d, at, "a string", name);
        }
        for (size_t j = 0; j < i; j++)
            if (strcmp(json_string_value(json_object_get(json_array_get(list, j), "name")),
                       json_string_value(name)) == 0)
                return fs_error_set(d->err, FS_ERR_INPUT, "%s: %s.name: duplicate name \"%s\" (also %s[%zu])",
                                    d->side, elem, json_string_value(name), where, j);
        int rc = FS_OK;
        if (scope == FS__POLICY) { /* its services, training and fleet */
            rc = fs__validate_named(d, o, "services", elem, false, FS__SERVICE);
            if (rc == FS_OK)
                rc = fs__validate_named(d, o, "training", elem, false, FS__TRAINING);
            const json_t *fleet = json_object_get(o, "fleet");
            if (rc == FS_OK && fleet) {
                char at[512];
                fs__path(at, sizeof at, "%s.fleet", elem);
                rc = json_is_object(fleet) ? fs__validate_metrics(d, fleet, at, FS__FLEET)
                                           : fs__bad(d, at, "an object", fleet);
            }
        } else {
            rc = fs__validate_metrics(d, o, elem, scope);
        }
        if (rc != FS_OK)
            return rc;
    }
    return FS_OK;
}

static int fs__validate(const fs__doc *d, const json_t *doc)
{
    if (!json_is_object(doc))
        return fs__bad(d, "", "a results document (an object)", doc);
    const json_t *schema = json_object_get(doc, "schema");
    if (!json_is_string(schema) || strcmp(json_string_value(schema), FS_RESULTS_SCHEMA) != 0)
        return fs_error_set(d->err, FS_ERR_INPUT,
                            "%s: schema: expected \"%s\" (a results document, as 'fleetsim check --update' "
                            "writes), got %s%s%s",
                            d->side, FS_RESULTS_SCHEMA, json_is_string(schema) ? "\"" : "",
                            json_is_string(schema) ? json_string_value(schema) : schema ? "a non-string" : "nothing",
                            json_is_string(schema) ? "\"" : "");
    return fs__validate_named(d, doc, "policies", "", true, FS__POLICY);
}

/* ------------------------------------------------------------ comparison */

typedef struct fs__ctx {
    const fs_check_tolerances *tol;
    fs_check_result *out;
    size_t cap;
    bool out_of_memory; /* a row could not be kept: the result is incomplete */
} fs__ctx;

void fs_check_write_cell(FILE *fp, const char *name)
{
    for (const unsigned char *c = (const unsigned char *)name; *c; c++) {
        if (*c == '|')
            fputs("\\|", fp);
        else if (*c < 0x20 || *c == 0x7f)
            fputc(' ', fp);
        else
            fputc(*c, fp);
    }
}

void fs_check_write_markup(FILE *fp, const char *name, bool markdown)
{
    for (const unsigned char *c = (const unsigned char *)name; *c; c++) {
        switch (*c) {
        case '&': fputs("&amp;", fp); break;
        case '<': fputs("&lt;", fp); break;
        case '>': fputs("&gt;", fp); break;
        case '"': fputs("&quot;", fp); break;
        case '\'': fputs("&#39;", fp); break;
        default:
            if (*c < 0x20 || *c == 0x7f)
                fputc(' ', fp);
            /* CommonMark lets any ASCII punctuation be escaped; "-./," are
             * left as they are: inside a cell or after a heading's first
             * words they never start a list or a numbered item, and file
             * names stay readable in the Markdown source. */
            else if (markdown && *c < 0x80 && strchr("!#$%()*+:;=?@[\\]^_`{|}~", *c))
                fprintf(fp, "\\%c", *c);
            else
                fputc(*c, fp);
        }
    }
}

static void fs__format(char *buf, size_t size, fs__unit unit, double v)
{
    switch (unit) {
    case FS__MS:
        snprintf(buf, size, "%.1f ms", v);
        break;
    case FS__WINDOWS:
        snprintf(buf, size, v == floor(v) && fabs(v) < 1e15 ? "%.0f" : "%.2f", v);
        break;
    case FS__SECONDS:
        snprintf(buf, size, "%.1f s", v);
        break;
    case FS__USD: /* not "$": GitHub renders text between two dollars as math */
        snprintf(buf, size, "%.2f USD", v);
        break;
    case FS__SHARE:
        snprintf(buf, size, "%.2f%%", v * 100);
        break;
    case FS__GPU_HOURS:
        snprintf(buf, size, "%.2f GPU-h", v);
        break;
    case FS__TOKENS_S:
        snprintf(buf, size, "%.1f tokens/s", v);
        break;
    }
}

/* Keeps one row; NULL texts become "" (the table's "-").  The outcome is
 * the verdict's first word. */
static void fs__row(fs__ctx *c, const char *policy, const char *kind, const char *item, const char *metric,
                    const char *base, const char *cur, const char *change, const char *verdict)
{
    fs_check_result *r = c->out;
    if (r->n_rows == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 32;
        fs_check_row *grown = cap < SIZE_MAX / sizeof *grown ? realloc(r->rows, cap * sizeof *grown) : NULL;
        if (!grown) {
            c->out_of_memory = true;
            return;
        }
        r->rows = grown;
        c->cap = cap;
    }
    fs_check_row *row = &r->rows[r->n_rows++];
    *row = (fs_check_row){.policy = policy, .kind = kind, .item = item, .metric = metric};
    snprintf(row->baseline, sizeof row->baseline, "%s", base ? base : "");
    snprintf(row->current, sizeof row->current, "%s", cur ? cur : "");
    snprintf(row->change, sizeof row->change, "%s", change ? change : "");
    snprintf(row->verdict, sizeof row->verdict, "%s", verdict);
    row->outcome = strncmp(verdict, "WORSE", 5) == 0 ? FS_CHECK_WORSE
                   : strncmp(verdict, "better", 6) == 0 ? FS_CHECK_BETTER
                                                     : FS_CHECK_SAME;
    if (row->outcome == FS_CHECK_WORSE)
        r->worse++;
    else if (row->outcome == FS_CHECK_BETTER)
        r->better++;
}

/* A figure's 95% half-width beside it (the results writer's FIELD_ci95),
 * as "±0.4 ms" in the figure's unit; "" when the document has none (one
 * replication) or it is not a finite number. */
static void fs__ci(char *buf, size_t size, const json_t *item, const fs__metric *m);

/* A figure's state in one document. */
typedef enum fs__state { FS__ABSENT, FS__NULL, FS__NUMBER } fs__state;

static fs__state fs__get(const json_t *item, const fs__metric *m, double *v)
{
    const json_t *holder = m->object ? fs__holder(item, m->object) : item;
    const json_t *x = holder ? json_object_get(holder, m->member) : NULL;
    if (!x)
        return FS__ABSENT;
    if (json_is_null(x))
        return FS__NULL;
    *v = json_number_value(x);
    return FS__NUMBER;
}

/* Does the document say this latency figure has not settled
 * (services[].settling.FIGURE.settled false: settle.h)?  Absent (an older
 * writer, or a figure it does not judge) or null (no data) says nothing. */
static bool fs__unsettled(const json_t *item, const fs__metric *m)
{
    if (m->scope != FS__SERVICE || !m->object || strcmp(m->object, "latency_ms") != 0)
        return false;
    const json_t *fig = json_object_get(json_object_get(item, "settling"), m->member);
    return json_is_false(json_object_get(fig, "settled"));
}

static void fs__compare_metric(fs__ctx *c, const char *policy, const char *kind, const char *item,
                               const json_t *b_item, const json_t *c_item, fs_check_metric id)
{
    const fs__metric *m = &fs__metrics[id];
    const char *key = m->info.key;
    double b = 0, v = 0;
    fs__state bs = fs__get(b_item, m, &b), cs = fs__get(c_item, m, &v);
    char bt[64] = "null", ct[64] = "null", change[64], verdict[64];
    if (bs == FS__NUMBER)
        fs__format(bt, sizeof bt, m->unit, b);
    if (cs == FS__NUMBER)
        fs__format(ct, sizeof ct, m->unit, v);
    if (bs == FS__ABSENT || cs == FS__ABSENT) {
        if (bs == FS__ABSENT && cs == FS__ABSENT)
            return; /* neither side reports it: nothing to compare (an older writer) */
        fs__row(c, policy, kind, item, key, bs == FS__ABSENT ? NULL : bt, cs == FS__ABSENT ? NULL : ct, NULL,
                bs == FS__ABSENT ? "WORSE (missing in baseline)" : "WORSE (missing in current)");
        return;
    }
    /* null is "no data" (a latency with no completion): it is never better
     * than, nor the same as, anything, so it never passes the gate, not even
     * against a baseline that had no data either. */
    if (bs == FS__NULL || cs == FS__NULL) {
        fs__row(c, policy, kind, item, key, bs == FS__NULL ? "no data" : bt, cs == FS__NULL ? "no data" : ct, NULL,
                cs == FS__NULL ? (bs == FS__NULL ? "WORSE (no data in baseline or current)" : "WORSE (no data in current)")
                               : "WORSE (no data in baseline)");
        return;
    }
    double tol = c->tol->percent[id];
    /* gain > 0 is an improvement, in the metric's own direction. */
    double gain = m->info.higher_is_better ? v - b : b - v;
    double allowed = tol / 100 * fabs(b);
    bool worse = -gain > allowed && -gain > m->info.floor;
    bool better = gain > allowed && gain > m->info.floor;
    double pct = b != 0 ? (v - b) / fabs(b) * 100 : 0;
    if (b != 0)
        snprintf(change, sizeof change, "%+.1f%%", fabs(pct) < 0.05 ? 0.0 : pct); /* never "-0.0%" */
    else
        snprintf(change, sizeof change, "%s", v == 0 ? "+0.0%" : "n/a (from 0)");
    /* A current figure that has not settled may move on the next run
     * without any change to the code: the verdict says so, so a gate that
     * flips later does not flip silently.  Pass or fail stays the figure's. */
    bool unsettled = fs__unsettled(c_item, m);
    if (worse)
        snprintf(verdict, sizeof verdict, "WORSE (tolerance %g%%%s)", tol, unsettled ? "; not settled" : "");
    else
        snprintf(verdict, sizeof verdict, "%s%s", better ? "better" : "ok", unsettled ? " (not settled)" : "");
    fs__row(c, policy, kind, item, key, bt, ct, change, verdict);
    if (!c->out_of_memory) {
        fs_check_row *row = &c->out->rows[c->out->n_rows - 1];
        fs__ci(row->baseline_ci, sizeof row->baseline_ci, b_item, m);
        fs__ci(row->current_ci, sizeof row->current_ci, c_item, m);
    }
}

static const json_t *fs__find(const json_t *list, const char *name)
{
    for (size_t i = 0; i < json_array_size(list); i++) {
        const json_t *o = json_array_get(list, i);
        if (strcmp(json_string_value(json_object_get(o, "name")), name) == 0)
            return o;
    }
    return NULL;
}

static const char *fs__name(const json_t *o)
{
    return json_string_value(json_object_get(o, "name"));
}

/* Services or training streams of one matched policy: each baseline item
 * against its namesake, then the items only the current document has. */
static void fs__compare_items(fs__ctx *c, const char *policy, const json_t *b_pol, const json_t *c_pol,
                              const char *key, const char *kind, fs__scope scope)
{
    const json_t *bl = json_object_get(b_pol, key), *cl = json_object_get(c_pol, key);
    for (size_t i = 0; i < json_array_size(bl); i++) {
        const json_t *bi = json_array_get(bl, i), *ci = fs__find(cl, fs__name(bi));
        if (!ci) {
            fs__row(c, policy, kind, fs__name(bi), NULL, NULL, NULL, NULL, "WORSE (missing in current)");
            continue;
        }
        /* A deploy step runs no job: its queue wait is no figure to gate. */
        bool deploys = json_object_get(bi, "deploy") && json_object_get(ci, "deploy");
        for (int m = 0; m < FS_CHECK_N_METRICS; m++)
            if (fs__metrics[m].scope == scope && !(deploys && m == FS_CHECK_QUEUE_P95))
                fs__compare_metric(c, policy, kind, fs__name(bi), bi, ci, (fs_check_metric)m);
    }
    for (size_t i = 0; i < json_array_size(cl); i++) {
        const json_t *ci = json_array_get(cl, i);
        if (!fs__find(bl, fs__name(ci)))
            fs__row(c, policy, kind, fs__name(ci), NULL, NULL, NULL, NULL, "WORSE (missing in baseline)");
    }
}

static void fs__compare_docs(fs__ctx *c, const json_t *baseline, const json_t *current)
{
    const json_t *bl = json_object_get(baseline, "policies"), *cl = json_object_get(current, "policies");
    for (size_t i = 0; i < json_array_size(bl); i++) {
        const json_t *bp = json_array_get(bl, i), *cp = fs__find(cl, fs__name(bp));
        const char *name = fs__name(bp);
        if (!cp) {
            fs__row(c, name, NULL, NULL, NULL, NULL, NULL, NULL, "WORSE (policy missing in current)");
            continue;
        }
        fs__compare_items(c, name, bp, cp, "services", "service", FS__SERVICE);
        fs__compare_items(c, name, bp, cp, "training", "training", FS__TRAINING);
        /* An absent fleet object reads as every fleet figure absent
         * (json_object_get of NULL is NULL). */
        const json_t *bf = json_object_get(bp, "fleet"), *cf = json_object_get(cp, "fleet");
        for (int m = 0; m < FS_CHECK_N_METRICS; m++)
            if (fs__metrics[m].scope == FS__FLEET)
                fs__compare_metric(c, name, "fleet", NULL, bf, cf, (fs_check_metric)m);
    }
    for (size_t i = 0; i < json_array_size(cl); i++) {
        const json_t *cp = json_array_get(cl, i);
        if (!fs__find(bl, fs__name(cp)))
            fs__row(c, fs__name(cp), NULL, NULL, NULL, NULL, NULL, NULL, "WORSE (policy missing in baseline)");
    }
}

int fs_check_validate(const json_t *doc, const char *name, fs_error *err)
{
    fs__doc d = {name ? name : "baseline", err};
    return fs__validate(&d, doc);
}

static void fs__ci(char *buf, size_t size, const json_t *item, const fs__metric *m)
{
    char key[64];
    snprintf(key, sizeof key, "%s_ci95", m->member);
    const json_t *holder = m->object ? fs__holder(item, m->object) : item;
    const json_t *ci = holder ? json_object_get(holder, key) : NULL;
    buf[0] = '\0';
    if (json_is_number(ci) && isfinite(json_number_value(ci))) {
        char v[48]; /* "±" and the figure fit in 64 */
        fs__format(v, sizeof v, m->unit, json_number_value(ci));
        snprintf(buf, size, "\u00b1%s", v);
    }
}

void fs_check_result_fini(fs_check_result *r)
{
    free(r->rows);
    *r = (fs_check_result){0};
}

int fs_check_run(const json_t *baseline, const char *baseline_name, const json_t *current,
                 const fs_check_tolerances *tol, fs_check_result *out, fs_error *err)
{
    *out = (fs_check_result){0};
    if (fs_check_validate(baseline, baseline_name, err) != FS_OK ||
        fs_check_validate(current, "current results", err) != FS_OK)
        return err->code;
    fs__ctx c = {tol, out, 0, false};
    fs__compare_docs(&c, baseline, current);
    if (c.out_of_memory) {
        fs_check_result_fini(out);
        return fs_error_set(err, FS_ERR_RUNTIME, "out of memory comparing the results");
    }
    return FS_OK;
}

static const char *fs__cell(const char *text)
{
    return *text ? text : "-";
}

int fs_check_write_table(const fs_check_result *r, FILE *fp, fs_error *err)
{
    fputs("| policy | item | metric | baseline | current | change | verdict |\n"
          "|---|---|---|---|---|---|---|\n",
          fp);
    for (size_t i = 0; i < r->n_rows; i++) {
        const fs_check_row *row = &r->rows[i];
        fputs("| ", fp);
        fs_check_write_cell(fp, row->policy);
        fputs(" | ", fp);
        if (row->kind) {
            fprintf(fp, "%s%s", row->kind, row->item ? " " : "");
            if (row->item)
                fs_check_write_cell(fp, row->item);
        } else {
            fputs("-", fp);
        }
        fprintf(fp, " | %s | %s | %s | %s | %s |\n", row->metric ? row->metric : "-", fs__cell(row->baseline),
                fs__cell(row->current), fs__cell(row->change), row->verdict);
    }
    fprintf(fp, "\n%zu metrics checked, %zu worse\n", r->n_rows, r->worse);
    if (ferror(fp) || fflush(fp) != 0)
        return fs_error_set(err, FS_ERR_RUNTIME, "cannot write the check table");
    return FS_OK;
}

int fs_check_compare(const json_t *baseline, const char *baseline_name, const json_t *current,
                     const fs_check_tolerances *tol, FILE *fp, fs_error *err)
{
    fs_check_result r;
    if (fs_check_run(baseline, baseline_name, current, tol, &r, err) != FS_OK)
        return -1;
    int rc = fs_check_write_table(&r, fp, err);
    size_t worse = r.worse;
    fs_check_result_fini(&r);
    if (rc != FS_OK)
        return -1;
    return worse > (size_t)INT_MAX ? INT_MAX : (int)worse;
}

#include "report.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "charts.h"
#include "page.h"
#include "plan_report.h"
#include "sensitivity_report.h"

/* obj at a dotted path ("latency_ms.p99"), or NULL. */
static json_t *fs__at(json_t *obj, const char *path)
{
    char key[64];
    while (obj && *path) {
        size_t n = strcspn(path, ".");
        if (n >= sizeof key)
            return NULL;
        memcpy(key, path, n);
        key[n] = '\0';
        obj = json_object_get(obj, key);
        path += n + (path[n] == '.');
    }
    return obj;
}

static const char *fs__str(json_t *obj, const char *key)
{
    const char *s = json_string_value(json_object_get(obj, key));
    return s ? s : "";
}

static double fs__num(json_t *obj, const char *path)
{
    json_t *v = fs__at(obj, path);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

/* ---- the comparison table ------------------------------------------------ */

/* SEC_TEAM reads a policy's "teams" (admitted waits per team across
 * streams), SEC_QUOTA its "quotas" (unit-hours per team), both by "tenant". */
typedef enum { SEC_SERVICE, SEC_TRAINING, SEC_TEAM, SEC_QUOTA, SEC_FLEET } fs__section;

typedef struct fs__metric {
    fs__section section;
    const char *label;
    const char *path;        /* in the service / stream / fleet object of results.json */
    double scale;
    const char *compare_key; /* in compare.json's differences, or NULL */
} fs__metric;

static const fs__metric metrics[] = {
    {SEC_SERVICE, "p50 ms", "latency_ms.p50", 1, "p50_ms"},
    {SEC_SERVICE, "p95 ms", "latency_ms.p95", 1, "p95_ms"},
    {SEC_SERVICE, "p99 ms", "latency_ms.p99", 1, "p99_ms"},
    {SEC_SERVICE, "SLO breach windows/week", "slo.breach_windows_per_week", 1, "slo_breach_windows_per_week"},
    {SEC_SERVICE, "dropped", "dropped", 1, NULL},
    /* Only batched services have "batching" in results.json: no row otherwise. */
    {SEC_SERVICE, "mean batch size", "batching.mean_size", 1, "batch_mean_size"},
    /* Only LLM services have "llm": no rows otherwise. */
    {SEC_SERVICE, "TTFT p99 ms", "llm.ttft_ms.p99", 1, "ttft_p99_ms"},
    {SEC_SERVICE, "TPOT p99 ms", "llm.tpot_ms.p99", 1, "tpot_p99_ms"},
    {SEC_SERVICE, "tokens/s", "llm.tokens_per_s", 1, "tokens_per_s"},
    {SEC_SERVICE, "USD per million tokens", "llm.cost_per_million_tokens", 1, "cost_per_million_tokens"},
    {SEC_SERVICE, "goodput %", "llm.goodput", 100, "goodput_pct"},
    {SEC_SERVICE, "KV-cache occupancy %", "llm.kv_occupancy", 100, NULL},
    {SEC_TRAINING, "queue wait p50 min", "queue_wait_s.p50", 1.0 / 60, "queue_wait_p50_min"},
    {SEC_TRAINING, "queue wait p95 min", "queue_wait_s.p95", 1.0 / 60, "queue_wait_p95_min"},
    {SEC_TRAINING, "start-up mean s", "startup_mean_s", 1, "startup_mean_s"},
    {SEC_TRAINING, "GPU-hours lost to preemption", "gpu_hours_lost", 1, NULL},
    {SEC_TRAINING, "GPU-hours lost to failures", "gpu_hours.failed", 1, NULL},
    {SEC_TEAM, "jobs admitted", "admitted", 1, NULL},
    {SEC_TEAM, "queue wait p50 min (admitted)", "wait_p50_s", 1.0 / 60, NULL},
    {SEC_TEAM, "queue wait p95 min (admitted)", "wait_p95_s", 1.0 / 60, NULL},
    {SEC_QUOTA, "GPU-hours held", "gpu_hours", 1, NULL},
    {SEC_QUOTA, "GPU-hours borrowed", "borrowed_gpu_hours", 1, NULL},
    {SEC_QUOTA, "jobs reclaimed", "reclaimed_jobs", 1, NULL},
    {SEC_FLEET, "GPU-hours", "gpu_hours", 1, "gpu_hours"},
    {SEC_FLEET, "cost USD", "cost_usd", 1, "cost_usd"},
    {SEC_FLEET, "cost per million requests USD", "cost_per_million_requests", 1, NULL},
    {SEC_FLEET, "utilization %", "utilization", 100, "utilization_pct"},
    {SEC_FLEET, "peak headroom %", "peak_headroom", 100, "peak_headroom_pct"},
    {SEC_FLEET, "switch GPU-hours", "switch_gpu_hours", 1, "switch_gpu_hours"},
    {SEC_FLEET, "energy kWh", "energy_kwh", 1, NULL},
};
#define FS__N_METRICS (sizeof metrics / sizeof *metrics)

/* The object a metric of section `sec` reads in policy `pol`: the item
 * named `item` (service or stream), or the fleet. */
static json_t *fs__item(json_t *pol, fs__section sec, const char *item)
{
    if (sec == SEC_FLEET)
        return json_object_get(pol, "fleet");
    static const char *const lists[] = {[SEC_SERVICE] = "services", [SEC_TRAINING] = "training",
                                        [SEC_TEAM] = "teams", [SEC_QUOTA] = "quotas"};
    const char *key = sec == SEC_TEAM || sec == SEC_QUOTA ? "tenant" : "name";
    size_t i;
    json_t *v;
    json_array_foreach(json_object_get(pol, lists[sec]), i, v) if (strcmp(fs__str(v, key), item) == 0) return v;
    return NULL;
}

/* Marks a table used, for its legend. */
enum { FS__MARK_NO_DATA = 1, FS__MARK_LOWER_BOUND = 2 };

static void fs__table_row(fs_page_doc *d, json_t *results, json_t *compare, const fs__metric *m,
                          const char *item, unsigned *marks)
{
    json_t *policies = json_object_get(results, "policies");
    size_t n = json_array_size(policies);
    /* Rows whose metric no policy has (no SLO, no training) are left out; a
     * null one is there, with no data, and is shown as such. */
    bool any = false;
    for (size_t p = 0; p < n && !any; p++)
        any = fs__at(fs__item(json_array_get(policies, p), m->section, item), m->path) != NULL;
    if (!any)
        return;
    fs_page_raw(d, d->html ? "<tr><td>" : "| ");
    if (item)
        fs_page_text(d, item);
    fs_page_raw(d, d->html ? "</td><td>%s</td>" : " | %s |", m->label);
    for (size_t p = 0; p < n; p++) {
        json_t *pol = json_array_get(policies, p);
        fs_page_raw(d, d->html ? "<td>" : " ");
        json_t *holder = fs__item(pol, m->section, item);
        double v = fs__num(holder, m->path) * m->scale;
        /* Queue waits of jobs still waiting at the horizon are censored. */
        if (!isnan(v) && strncmp(m->path, "queue_wait_s.", 13) == 0 &&
            json_is_true(fs__at(holder, "queue_wait_s.lower_bound"))) {
            fs_page_raw(d, "≥");
            *marks |= FS__MARK_LOWER_BOUND;
        }
        if (isnan(v))
            *marks |= FS__MARK_NO_DATA;
        fs_page_number(d, v);
        if (p > 0 && compare && m->compare_key) {
            json_t *diffs = json_object_get(json_object_get(compare, "differences"), fs__str(pol, "name"));
            json_t *obj = m->section == SEC_FLEET ? json_object_get(diffs, "fleet")
                                                  : json_object_get(json_object_get(diffs, m->section == SEC_SERVICE
                                                                                               ? "services"
                                                                                               : "training"),
                                                                    item);
            json_t *cell = json_object_get(obj, m->compare_key);
            double mean = fs__num(cell, "mean"), ci = fs__num(cell, "ci95");
            if (!isnan(mean)) {
                fs_page_raw(d, " (%+.4g", mean);
                if (!isnan(ci))
                    fs_page_raw(d, " ±%.2g", ci);
                fs_page_raw(d, ")");
            }
        }
        fs_page_raw(d, d->html ? "</td>" : " |");
    }
    fs_page_raw(d, d->html ? "</tr>\n" : "\n");
}

static void fs__table(fs_page_doc *d, json_t *results, json_t *compare)
{
    json_t *policies = json_object_get(results, "policies");
    json_t *first = json_array_get(policies, 0);
    size_t n = json_array_size(policies);
    fs_page_raw(d, d->html ? "<table>\n<tr><th>item</th><th>metric</th>" : "| item | metric |");
    for (size_t p = 0; p < n; p++) {
        fs_page_raw(d, d->html ? "<th>" : " ");
        fs_page_text(d, fs__str(json_array_get(policies, p), "name"));
        fs_page_raw(d, d->html ? "</th>" : " |");
    }
    fs_page_raw(d, d->html ? "</tr>\n" : "\n|---|---|");
    if (!d->html) {
        for (size_t p = 0; p < n; p++)
            fs_page_raw(d, "---|");
        fs_page_raw(d, "\n");
    }
    size_t i;
    json_t *v;
    unsigned marks = 0;
    json_array_foreach(json_object_get(first, "services"), i, v) {
        if (i >= 12)
            break; /* the rest are in results.json: a review table stays readable */
        for (size_t k = 0; k < FS__N_METRICS; k++)
            if (metrics[k].section == SEC_SERVICE)
                fs__table_row(d, results, compare, &metrics[k], fs__str(v, "name"), &marks);
    }
    json_array_foreach(json_object_get(first, "training"), i, v) {
        for (size_t k = 0; k < FS__N_METRICS; k++)
            if (metrics[k].section == SEC_TRAINING)
                fs__table_row(d, results, compare, &metrics[k], fs__str(v, "name"), &marks);
    }
    /* Teams: every tenant some policy lists, its waits then its quota. */
    json_array_foreach(json_object_get(first, "teams"), i, v) {
        for (size_t k = 0; k < FS__N_METRICS; k++)
            if (metrics[k].section == SEC_TEAM || metrics[k].section == SEC_QUOTA)
                fs__table_row(d, results, compare, &metrics[k], fs__str(v, "tenant"), &marks);
    }
    for (size_t k = 0; k < FS__N_METRICS; k++)
        if (metrics[k].section == SEC_FLEET)
            fs__table_row(d, results, compare, &metrics[k], "fleet", &marks);
    fs_page_raw(d, d->html ? "</table>\n" : "\n");
    if (marks) {
        fs_page_para_open(d);
        if (marks & FS__MARK_NO_DATA)
            fs_page_raw(d, "–: no data (nothing completed to measure; never a zero). ");
        if (marks & FS__MARK_LOWER_BOUND)
            fs_page_raw(d, "≥: a lower bound: jobs still waiting at the horizon count with their wait so far.");
        fs_page_para_close(d);
    }
    if (compare) {
        fs_page_para_open(d);
        fs_page_raw(d, "In brackets: the difference to ");
        fs_page_text(d, fs__str(first, "name"));
        fs_page_raw(d, ", paired replication by replication (common random numbers), ± its 95%% confidence "
                      "half-width.");
        fs_page_para_close(d);
    }
}

/* ---- pools ---------------------------------------------------------------- */

/* Ends a table cell and opens the next one (the row's first when `first`). */
static void fs__next_cell(fs_page_doc *d, bool first)
{
    if (d->html)
        fs_page_raw(d, first ? "<tr><td>" : "</td><td>");
    else
        fs_page_raw(d, first ? "| " : " | ");
}

/* Every policy's pools side by side: how the GPUs are cut (whole, MIG,
 * time-sliced, fractional), what the placement uses and strands, and what
 * they cost and do. */
static void fs__pools(fs_page_doc *d, json_t *results)
{
    static const char *const heads[] = {"policy", "pool", "GPUs", "partitioning", "units used",
                                        "memory stranded %", "compute stranded (GPUs)", "GPU-hours",
                                        "utilization %", "cost USD"};
    fs_page_heading(d, 2, "Pools", NULL);
    fs_page_para_open(d);
    fs_page_raw(d, "How each policy cuts its GPUs, the units its replicas take at the start, and what the "
                   "placement strands: memory and compute left where no replica of the pool fits.");
    fs_page_para_close(d);
    for (size_t k = 0; k < sizeof heads / sizeof *heads; k++)
        fs_page_raw(d, d->html ? "%s<th>%s</th>" : "%s%s |", k > 0 ? (d->html ? "" : " ") : d->html ? "<table>\n<tr>" : "| ",
                    heads[k]);
    fs_page_raw(d, d->html ? "</tr>\n" : "\n|");
    for (size_t k = 0; !d->html && k < sizeof heads / sizeof *heads; k++)
        fs_page_raw(d, "---|");
    fs_page_raw(d, d->html ? "" : "\n");
    size_t p, i;
    json_t *pol, *pool;
    json_array_foreach(json_object_get(results, "policies"), p, pol) {
        json_array_foreach(json_object_get(pol, "pools"), i, pool) {
            fs__next_cell(d, true);
            fs_page_text(d, fs__str(pol, "name"));
            fs__next_cell(d, false);
            fs_page_text(d, fs__str(pool, "name"));
            fs__next_cell(d, false);
            fs_page_number(d, fs__num(pool, "gpus"));
            fs_page_raw(d, " × ");
            fs_page_text(d, fs__str(pool, "gpu"));
            fs__next_cell(d, false);
            fs_page_text(d, fs__str(pool, "partitioning"));
            json_t *fr = json_object_get(pool, "fractional");
            if (fr) {
                fs_page_raw(d, " (");
                fs_page_text(d, fs__str(fr, "mode"));
                fs_page_raw(d, ", %.0f seats, shares up to %.4g a GPU)", fs__num(fr, "seats"),
                            fs__num(fr, "oversubscription"));
            }
            fs__next_cell(d, false);
            fs_page_number(d, fs__num(pool, "units") - fs__num(pool, "free_units"));
            fs_page_raw(d, " of ");
            fs_page_number(d, fs__num(pool, "units"));
            fs__next_cell(d, false);
            fs_page_number(d, 100 * fs__num(pool, "fragmentation.stranded_memory_fraction"));
            fs__next_cell(d, false);
            fs_page_number(d, fs__num(pool, "fragmentation.stranded_compute_gpus"));
            fs__next_cell(d, false);
            fs_page_number(d, fs__num(pool, "gpu_hours"));
            fs__next_cell(d, false);
            fs_page_number(d, 100 * fs__num(pool, "utilization"));
            fs__next_cell(d, false);
            fs_page_number(d, fs__num(pool, "cost_usd"));
            fs_page_raw(d, d->html ? "</td></tr>\n" : " |\n");
        }
    }
    fs_page_raw(d, d->html ? "</table>\n" : "\n");
}

/* ---- verdicts ------------------------------------------------------------ */

static const struct {
    const char *target, *latency;
} slo_keys[] = {{"p50_ms", "p50"}, {"p90_ms", "p90"}, {"p95_ms", "p95"}, {"p99_ms", "p99"}, {"p999_ms", "p999"}};

/* The verdict on one SLO target of a service: "met", "missed" or "no data",
 * as results.json says (slo.verdict); results.json files from before that
 * field compare the latency figure with the target. */
static const char *fs__target_verdict(json_t *svc, size_t k)
{
    const char *said = json_string_value(fs__at(fs__at(svc, "slo.verdict"), slo_keys[k].target));
    if (said)
        return said;
    double target = fs__num(fs__at(svc, "slo.targets"), slo_keys[k].target);
    char path[32];
    snprintf(path, sizeof path, "latency_ms.%s", slo_keys[k].latency);
    double got = fs__num(svc, path);
    return isnan(got) ? "no data" : got <= target ? "met" : "missed";
}

/* One missed target: the quantile against the target, or how many requests
 * were still unfinished past it at the horizon when they alone decide it. */
static void fs__miss(fs_page_doc *d, json_t *svc, size_t k, double target)
{
    const char *key = slo_keys[k].target;
    json_t *q = fs__at(fs__at(svc, "slo.quantile_with_unfinished_ms"), key);
    double late = fs__num(fs__at(svc, "slo.unfinished_past_slo"), key);
    char path[32];
    snprintf(path, sizeof path, "latency_ms.%s", slo_keys[k].latency);
    double got = json_is_number(q) ? json_number_value(q) : fs__num(svc, path);
    fs_page_text(d, fs__str(svc, "name"));
    if (json_is_string(q) || isnan(got))
        fs_page_raw(d, " (%s: %.4g requests unfinished past %.4g ms at the horizon)", slo_keys[k].latency, late,
                    target);
    else if (!isnan(late) && late > 0)
        fs_page_raw(d, " (%s %.4g ms against %.4g ms, counting %.4g requests unfinished at the horizon as misses)",
                    slo_keys[k].latency, got, target, late);
    else
        fs_page_raw(d, " (%s %.4g ms against %.4g ms)", slo_keys[k].latency, got, target);
}

/* One sentence per policy: does every service meet its SLO over the run, how
 * many windows breached, what it costs.  It never says "meets" where nothing
 * was measured: a target with no data is named as such. */
static void fs__verdict(fs_page_doc *d, json_t *pol, double hours)
{
    size_t i, misses = 0, no_data = 0, judged = 0;
    json_t *svc;
    double breaches = 0;
    fs_page_raw(d, d->html ? "<li><b>" : "- **");
    fs_page_text(d, fs__str(pol, "name"));
    fs_page_raw(d, d->html ? "</b>: " : "**: ");
    json_array_foreach(json_object_get(pol, "services"), i, svc) {
        json_t *targets = fs__at(svc, "slo.targets");
        breaches += isnan(fs__num(svc, "slo_breach_windows")) ? 0 : fs__num(svc, "slo_breach_windows");
        for (size_t k = 0; k < sizeof slo_keys / sizeof *slo_keys; k++) {
            double target = fs__num(targets, slo_keys[k].target);
            if (isnan(target))
                continue;
            judged++;
            const char *v = fs__target_verdict(svc, k);
            if (strcmp(v, "no data") == 0) {
                no_data++;
                continue;
            }
            if (strcmp(v, "missed") != 0)
                continue;
            fs_page_raw(d, misses ? "; " : "misses the SLO of ");
            if (misses < 3)
                fs__miss(d, svc, k, target);
            else if (misses == 3)
                fs_page_raw(d, "and more");
            misses++;
        }
    }
    if (!judged)
        fs_page_raw(d, "no service has an SLO to judge");
    else if (!misses && !no_data)
        fs_page_raw(d, "every service meets its SLO over the run");
    if (no_data) {
        fs_page_raw(d, "%sno data for %zu SLO target%s (nothing completed in the measured hours): ",
                    misses ? "; " : "", no_data, no_data == 1 ? "" : "s");
        size_t named = 0;
        json_array_foreach(json_object_get(pol, "services"), i, svc) {
            for (size_t k = 0; k < sizeof slo_keys / sizeof *slo_keys && named <= 3; k++) {
                if (isnan(fs__num(fs__at(svc, "slo.targets"), slo_keys[k].target)) ||
                    strcmp(fs__target_verdict(svc, k), "no data") != 0)
                    continue;
                fs_page_raw(d, named ? ", " : "");
                if (named++ == 3) {
                    fs_page_raw(d, "and more");
                    break;
                }
                fs_page_text(d, fs__str(svc, "name"));
                fs_page_raw(d, " %s", slo_keys[k].latency);
            }
        }
    }
    fs_page_raw(d, ", with %.4g SLO windows in breach; costs $%.2f for the %.4g measured hours", breaches,
                  fs__num(pol, "fleet.cost_usd"), hours);
    double per_m = fs__num(pol, "fleet.cost_per_million_requests");
    if (!isnan(per_m) && per_m > 0)
        fs_page_raw(d, " ($%.2f per million requests)", per_m);
    fs_page_raw(d, d->html ? ".</li>\n" : ".\n");
}

/* ---- has the run settled? ---------------------------------------------- */

static const char *const settle_figures[] = {"mean", "p50", "p95", "p99", "p999"};
#define FS__MAX_SETTLE_SENTENCES 20

/* What would settle a figure, from its reasons (results.json's
 * settling.FIGURE.reasons, settle.h): a transient wants a longer warm-up;
 * correlated, uneven or wide batches a longer horizon; a wide or missing
 * interval more replications. */
static void fs__settle_advice(fs_page_doc *d, json_t *reasons)
{
    bool warmup = false, horizon = false, replications = false;
    size_t k;
    json_t *v;
    json_array_foreach(reasons, k, v) {
        const char *r = json_string_value(v) ? json_string_value(v) : "";
        warmup = warmup || strcmp(r, "transient") == 0;
        horizon = horizon || strcmp(r, "correlated") == 0 || strcmp(r, "uneven") == 0 || strcmp(r, "wide") == 0;
        replications = replications || strcmp(r, "wide") == 0 || strcmp(r, "no_interval") == 0;
    }
    const char *said[3];
    size_t n = 0;
    if (warmup)
        said[n++] = "a longer warm-up";
    if (horizon || n == 0)
        said[n++] = "a longer horizon";
    if (replications)
        said[n++] = "more replications";
    for (size_t i = 0; i < n; i++)
        fs_page_raw(d, "%s%s", i == 0 ? "" : i + 1 == n ? " or " : ", ", said[i]);
}

/* One sentence per latency figure that has not settled: which, its value,
 * why, and what would settle it.  Results from before settling was recorded
 * have no `settling`: the section then says nothing. */
static void fs__settling(fs_page_doc *d, json_t *results)
{
    size_t unsettled = 0, diagnosed = 0, no_data = 0, i, j;
    json_t *pol, *svc;
    json_array_foreach(json_object_get(results, "policies"), i, pol) {
        json_array_foreach(json_object_get(pol, "services"), j, svc) {
            for (size_t f = 0; f < sizeof settle_figures / sizeof *settle_figures; f++) {
                json_t *fig = json_object_get(json_object_get(svc, "settling"), settle_figures[f]);
                const json_t *settled = json_object_get(fig, "settled");
                diagnosed += json_is_boolean(settled);
                no_data += fig != NULL && json_is_null(settled); /* nothing completed: no claim */
                if (!json_is_false(settled))
                    continue;
                if (unsettled++ == 0) {
                    fs_page_heading(d, 2, "Has the run settled?", NULL);
                    fs_page_raw(d, d->html ? "<ul>\n" : "");
                }
                if (unsettled > FS__MAX_SETTLE_SENTENCES)
                    continue;
                fs_page_raw(d, d->html ? "<li>" : "- ");
                fs_page_text(d, fs__str(pol, "name"));
                fs_page_raw(d, ": ");
                fs_page_text(d, fs__str(svc, "name"));
                char path[32];
                snprintf(path, sizeof path, "latency_ms.%s", settle_figures[f]);
                fs_page_raw(d, " %s (%.4g ms) has not settled: ", settle_figures[f], fs__num(svc, path));
                fs_page_text(d, fs__str(fig, "why"));
                fs_page_raw(d, ". To settle it, try ");
                fs__settle_advice(d, json_object_get(fig, "reasons"));
                fs_page_raw(d, d->html ? ".</li>\n" : ".\n");
            }
        }
    }
    if (unsettled > FS__MAX_SETTLE_SENTENCES)
        fs_page_raw(d, d->html ? "<li>and %zu more (results.json: settling)</li>\n"
                               : "- and %zu more (results.json: settling)\n",
                    unsettled - FS__MAX_SETTLE_SENTENCES);
    if (unsettled) {
        fs_page_raw(d, d->html ? "</ul>\n" : "\n");
    } else if (diagnosed) {
        fs_page_para_open(d);
        fs_page_raw(d, "Every latency figure %shas settled: its 95%% confidence interval is within 10%% of it, "
                       "and no run-length diagnostic objects.", no_data ? "with data " : "");
        if (no_data)
            fs_page_raw(d, " %zu figure%s no data (nothing completed), so no claim.", no_data,
                        no_data == 1 ? " has" : "s have");
        fs_page_para_close(d);
    }
}

typedef struct fs__results_page {
    json_t *results, *compare;
    const fs_chart_set *charts;
} fs__results_page;

/* Where the switch costs came from, per GPU type (the first policy that has
 * the type): measured by a calibration profile, or built-in defaults from
 * published figures.  A reader weighs the morning tail by this. */
static void fs__switch_costs(fs_page_doc *d, json_t *results)
{
    json_t *seen = json_object(), *pol;
    size_t p;
    bool any = false;
    json_array_foreach(json_object_get(results, "policies"), p, pol) {
        json_t *types = json_object_get(pol, "switch_costs"), *figures;
        const char *type;
        json_object_foreach(types, type, figures) {
            if (json_object_get(seen, type))
                continue;
            json_object_set_new(seen, type, json_true());
            if (!any) {
                fs_page_heading(d, 2, "Switch costs", NULL);
                fs_page_para_open(d);
                fs_page_raw(d, "What evicting and warming a GPU costs in this run, and where each figure "
                               "comes from: a calibration profile measured on the GPU, or a built-in "
                               "default taken from published figures.");
                fs_page_para_close(d);
                any = true;
            }
            fs_page_raw(d, d->html ? "<table>\n<tr><th>GPU type</th><th>figure</th><th>value</th><th>from</th></tr>\n"
                                   : "| GPU type | figure | value | from |\n|---|---|---|---|\n");
            const char *key;
            json_t *fig;
            json_object_foreach(figures, key, fig) {
                fs_page_raw(d, d->html ? "<tr><td>" : "| ");
                fs_page_text(d, type);
                fs_page_raw(d, d->html ? "</td><td>" : " | ");
                fs_page_text(d, key);
                fs_page_raw(d, d->html ? "</td><td>" : " | ");
                fs_page_number(d, json_number_value(json_object_get(fig, "value")));
                fs_page_raw(d, d->html ? "</td><td>" : " | ");
                fs_page_text(d, fs__str(fig, "source"));
                fs_page_raw(d, d->html ? "</td></tr>\n" : " |\n");
            }
            fs_page_raw(d, d->html ? "</table>\n" : "\n");
        }
    }
    json_decref(seen);
}

/* Per region and policy (results.json's "regions", written for a scenario
 * of more than one region): its cost and its services' requests; the
 * regions' costs add up to the fleet's.  Nothing for one region. */
static void fs__regions(fs_page_doc *d, json_t *results)
{
    static const char *const keys[] = {"gpu_hours", "cost_usd", "utilization", "requests", "spilled_out",
                                       "spilled_in"};
    json_t *pol;
    size_t p;
    bool any = false;
    json_array_foreach(json_object_get(results, "policies"), p, pol) {
        json_t *region;
        size_t g;
        json_array_foreach(json_object_get(pol, "regions"), g, region) {
            if (!any) {
                fs_page_heading(d, 2, "Regions", NULL);
                fs_page_para_open(d);
                fs_page_raw(d, "Each region's pools and services: GPU-hours, cost and utilization of its pools "
                               "(they add up to the fleet's), its services' requests, those spilled out to "
                               "another region and those it took in. The breach heat map's hours are UTC: a "
                               "region's local hour is UTC plus its offset.");
                fs_page_para_close(d);
                fs_page_raw(d, d->html ? "<table>\n<tr><th>policy</th><th>region</th><th>UTC offset h</th>"
                                         "<th>GPU-hours</th><th>cost USD</th><th>utilization</th><th>requests</th>"
                                         "<th>spilled out</th><th>spilled in</th></tr>\n"
                                       : "| policy | region | UTC offset h | GPU-hours | cost USD | utilization | "
                                         "requests | spilled out | spilled in |\n|---|---|---|---|---|---|---|---|---|\n");
                any = true;
            }
            fs_page_raw(d, d->html ? "<tr><td>" : "| ");
            fs_page_text(d, fs__str(pol, "name"));
            fs_page_raw(d, d->html ? "</td><td>" : " | ");
            fs_page_text(d, fs__str(region, "name"));
            fs_page_raw(d, d->html ? "</td><td>" : " | ");
            fs_page_number(d, fs__num(region, "utc_offset_s") / 3600);
            for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
                fs_page_raw(d, d->html ? "</td><td>" : " | ");
                fs_page_number(d, fs__num(region, keys[k]));
            }
            fs_page_raw(d, d->html ? "</td></tr>\n" : " |\n");
        }
    }
    if (any)
        fs_page_raw(d, d->html ? "</table>\n" : "\n");
}

static void fs__document(fs_page_doc *d, void *ctx)
{
    const fs__results_page *pg = ctx;
    json_t *results = pg->results;
    json_t *scen = json_object_get(results, "scenario");
    const char *name = fs__str(scen, "name");
    double hours = (fs__num(scen, "horizon_s") - fs__num(scen, "warmup_s")) / 3600;
    fs_page_open(d, name);
    fs_page_heading(d, 1, "Capacity review: ", name);
    fs_page_para_open(d);
    fs_page_raw(d, "Scenario <code>");
    fs_page_text(d, fs__str(scen, "path"));
    fs_page_raw(d, "</code>: %.4g measured hours after a %.4g h warm-up, %.0f replication(s), seed %.0f, "
                  "%.4g-minute windows.",
                  hours, fs__num(scen, "warmup_s") / 3600, fs__num(scen, "replications"), fs__num(scen, "seed"),
                  fs__num(scen, "window_s") / 60);
    fs_page_para_close(d);

    fs_page_heading(d, 2, "Verdict", NULL);
    fs_page_raw(d, d->html ? "<ul>\n" : "");
    size_t i;
    json_t *pol;
    json_array_foreach(json_object_get(results, "policies"), i, pol) fs__verdict(d, pol, hours);
    fs_page_raw(d, d->html ? "</ul>\n" : "\n");
    fs__settling(d, results);

    fs_page_heading(d, 2, "Comparison", NULL);
    fs__table(d, results, pg->compare);
    fs__pools(d, results);
    fs__regions(d, results);
    fs__switch_costs(d, results);

    fs_page_charts(d, pg->charts);
    fs_page_close(d);
}

/* compare.json and results.json are read as one run's: refused, naming both,
 * unless both carry the same run_id (what run and compare write). */
static int fs__same_run(const char *dir, json_t *results, json_t *compare, fs_error *err)
{
    const char *a = json_string_value(json_object_get(results, "run_id"));
    const char *b = json_string_value(json_object_get(compare, "run_id"));
    if (a && b && strcmp(a, b) == 0)
        return FS_OK;
    return fs_error_set(err, FS_ERR_INPUT,
                        "%s/compare.json (run_id %s) and %s/results.json (run_id %s) are not from the same run: "
                        "rerun 'fleetsim compare --out %s' to write them together",
                        dir, b ? b : "missing", dir, a ? a : "missing", dir);
}

/* Before a report is written into out_dir: the user's own pages there are
 * refused, and fleetsim's pages of other results removed (with their
 * charts), so that a report that fails half-way leaves no page of other
 * results behind. */
static int fs__prepare_out(const char *out_dir, const char *id, fs_error *err)
{
    fs_error left;
    int rc = fs_page_check_replaceable(out_dir, err);
    return rc == FS_OK ? fs_page_remove_stale(out_dir, id, &left, err) : rc;
}

int fs_report_check_out(const char *out_dir, fs_error *err)
{
    return fs_page_check_replaceable(out_dir, err);
}

int fs_report_forget(const char *results_dir, const char *skip_dir, const char *known_run_id, fs_error *warn,
                     fs_error *err)
{
    *warn = (fs_error){0};
    char id[FS_PAGE_ID_MAX];
    int rc = fs_page_results_id(results_dir, known_run_id, id, err);
    char *sub = fs_page_path(results_dir, "report");
    if (!sub)
        return fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
    struct stat skip, st;
    bool has_skip = skip_dir && stat(skip_dir, &skip) == 0;
    const char *dirs[2] = {results_dir, sub};
    for (size_t k = 0; k < 2 && rc == FS_OK; k++) {
        /* The directory a report is about to be written to is that
         * report's business (fs_report_write); one that is missing has no
         * page. */
        if (stat(dirs[k], &st) != 0 || !S_ISDIR(st.st_mode) ||
            (has_skip && st.st_dev == skip.st_dev && st.st_ino == skip.st_ino))
            continue;
        fs_error left;
        rc = fs_page_remove_stale(dirs[k], id, &left, err);
        size_t n = strlen(warn->msg);
        if (rc == FS_OK && left.msg[0])
            snprintf(warn->msg + n, sizeof warn->msg - n, "%s%s", n ? "; " : "", left.msg);
    }
    free(sub);
    return rc;
}

int fs_report_write(const char *results_dir, const char *out_dir, fs_error *err)
{
    struct stat st;
    char *path = fs_page_path(results_dir, "results.json");
    if (!path)
        return fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
    bool has_results = stat(path, &st) == 0 || errno != ENOENT;
    free(path);
    if (fs_sensitivity_report_applies(results_dir)) /* a sensitivity study's directory */
        return fs_sensitivity_report_write(results_dir, out_dir, err);
    /* A plan directory holds plan.json and no results.json of its own. */
    if (fs_plan_report_applies(results_dir)) {
        if (has_results)
            return fs_error_set(err, FS_ERR_INPUT,
                                "%s/plan.json and %s/results.json are from different commands (plan; run or "
                                "compare): give each its own --out directory",
                                results_dir, results_dir);
        char id[FS_PAGE_ID_MAX];
        int rc = fs_page_results_id(results_dir, NULL, id, err);
        if (rc == FS_OK)
            rc = fs__prepare_out(out_dir, id, err);
        return rc == FS_OK ? fs_plan_report_write(results_dir, out_dir, id, err) : rc;
    }
    if (!has_results)
        return fs_error_set(err, FS_ERR_INPUT,
                            "%s: no results.json or plan.json: expected the --out directory of run, compare or plan",
                            results_dir);
    char id[FS_PAGE_ID_MAX];
    int rc = fs_page_results_id(results_dir, NULL, id, err);
    json_t *results = rc == FS_OK ? fs_page_load(results_dir, "results.json", true, err, &rc) : NULL;
    if (!results)
        return rc;
    json_t *compare = fs_page_load(results_dir, "compare.json", false, err, &rc);
    if (rc == FS_OK && compare)
        rc = fs__same_run(results_dir, results, compare, err);
    if (rc != FS_OK || !json_is_array(json_object_get(results, "policies"))) {
        json_decref(results);
        json_decref(compare);
        return rc != FS_OK ? rc
                           : fs_error_set(err, FS_ERR_INPUT, "%s/results.json: policies: expected an array",
                                          results_dir);
    }
    /* fs_charts_write creates out_dir (and its parents) before writing. */
    fs_chart_set charts = {0};
    rc = fs__prepare_out(out_dir, id, err);
    if (rc == FS_OK)
        rc = fs_charts_write(results_dir, out_dir, &charts, err);
    fs__results_page page = {results, compare, &charts};
    if (rc == FS_OK)
        rc = fs_page_write_pages(out_dir, id, fs__document, &page, err);
    fs_charts_free(&charts);
    json_decref(results);
    json_decref(compare);
    return rc;
}

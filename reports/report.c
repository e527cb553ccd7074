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

/* ---- one writer, two markups --------------------------------------------
 * The report's content is built once and emitted through these, so the HTML
 * page and the Markdown file cannot drift apart. */

typedef struct fs__doc {
    FILE *fp;
    bool html;
} fs__doc;

static void fs__raw(fs__doc *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fs__raw(fs__doc *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfprintf(d->fp, fmt, ap);
    va_end(ap);
}

/* Text from a scenario: HTML-escaped in both markups (Markdown renders inline
 * HTML), `|` escaped for Markdown tables, control characters as spaces. */
static void fs__text(fs__doc *d, const char *s)
{
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        switch (*c) {
        case '&': fputs("&amp;", d->fp); break;
        case '<': fputs("&lt;", d->fp); break;
        case '>': fputs("&gt;", d->fp); break;
        case '"': fputs("&quot;", d->fp); break;
        case '\'': fputs("&#39;", d->fp); break;
        case '|': fputs(d->html ? "|" : "\\|", d->fp); break;
        case '`': fputs(d->html ? "`" : "&#96;", d->fp); break;
        case '*': case '_': case '[': case ']': case '\\':
            if (!d->html)
                fputc('\\', d->fp);
            fputc(*c, d->fp);
            break;
        default:
            fputc(*c < 0x20 || *c == 0x7f ? ' ' : *c, d->fp);
        }
    }
}

static void fs__heading(fs__doc *d, int level, const char *plain, const char *user)
{
    if (d->html)
        fs__raw(d, "<h%d>%s", level, plain);
    else
        fs__raw(d, "\n%.*s %s", level, "######", plain);
    if (user)
        fs__text(d, user);
    fs__raw(d, d->html ? "</h%d>\n" : "\n\n", level);
}

static void fs__para_open(fs__doc *d) { fs__raw(d, d->html ? "<p>" : ""); }
static void fs__para_close(fs__doc *d) { fs__raw(d, d->html ? "</p>\n" : "\n\n"); }

/* ---- reading results ------------------------------------------------------ */

static json_t *fs__load(const char *dir, const char *name, bool required, fs_error *err, int *rc)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    struct stat st;
    if (stat(path, &st) != 0) {
        if (required)
            *rc = fs_error_set(err, FS_ERR_INPUT, "%s: cannot read: %s", path, strerror(errno));
        return NULL;
    }
    json_error_t jerr;
    json_t *doc = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
    if (!doc)
        *rc = fs_error_set(err, FS_ERR_INPUT, "%s:%d:%d: %s", path, jerr.line, jerr.column, jerr.text);
    return doc;
}

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

typedef enum { SEC_SERVICE, SEC_TRAINING, SEC_FLEET } fs__section;

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
    {SEC_TRAINING, "queue wait p50 min", "queue_wait_s.p50", 1.0 / 60, "queue_wait_p50_min"},
    {SEC_TRAINING, "queue wait p95 min", "queue_wait_s.p95", 1.0 / 60, "queue_wait_p95_min"},
    {SEC_TRAINING, "GPU-hours lost to preemption", "gpu_hours_lost", 1, NULL},
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
    json_t *list = json_object_get(pol, sec == SEC_SERVICE ? "services" : "training");
    size_t i;
    json_t *v;
    json_array_foreach(list, i, v) if (strcmp(fs__str(v, "name"), item) == 0) return v;
    return NULL;
}

static void fs__cell(fs__doc *d, double v)
{
    if (isnan(v))
        fs__raw(d, "–");
    else if (fabs(v) >= 1000)
        fs__raw(d, "%.0f", v);
    else
        fs__raw(d, "%.4g", v);
}

static void fs__table_row(fs__doc *d, json_t *results, json_t *compare, const fs__metric *m,
                          const char *item)
{
    json_t *policies = json_object_get(results, "policies");
    size_t n = json_array_size(policies);
    /* Rows whose metric no policy has (no SLO, no training) are left out. */
    bool any = false;
    for (size_t p = 0; p < n && !any; p++)
        any = !isnan(fs__num(fs__item(json_array_get(policies, p), m->section, item), m->path));
    if (!any)
        return;
    fs__raw(d, d->html ? "<tr><td>" : "| ");
    if (item)
        fs__text(d, item);
    fs__raw(d, d->html ? "</td><td>%s</td>" : " | %s |", m->label);
    for (size_t p = 0; p < n; p++) {
        json_t *pol = json_array_get(policies, p);
        fs__raw(d, d->html ? "<td>" : " ");
        fs__cell(d, fs__num(fs__item(pol, m->section, item), m->path) * m->scale);
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
                fs__raw(d, " (%+.4g", mean);
                if (!isnan(ci))
                    fs__raw(d, " ±%.2g", ci);
                fs__raw(d, ")");
            }
        }
        fs__raw(d, d->html ? "</td>" : " |");
    }
    fs__raw(d, d->html ? "</tr>\n" : "\n");
}

static void fs__table(fs__doc *d, json_t *results, json_t *compare)
{
    json_t *policies = json_object_get(results, "policies");
    json_t *first = json_array_get(policies, 0);
    size_t n = json_array_size(policies);
    fs__raw(d, d->html ? "<table>\n<tr><th>item</th><th>metric</th>" : "| item | metric |");
    for (size_t p = 0; p < n; p++) {
        fs__raw(d, d->html ? "<th>" : " ");
        fs__text(d, fs__str(json_array_get(policies, p), "name"));
        fs__raw(d, d->html ? "</th>" : " |");
    }
    fs__raw(d, d->html ? "</tr>\n" : "\n|---|---|");
    if (!d->html) {
        for (size_t p = 0; p < n; p++)
            fs__raw(d, "---|");
        fs__raw(d, "\n");
    }
    size_t i;
    json_t *v;
    json_array_foreach(json_object_get(first, "services"), i, v) {
        if (i >= 12)
            break; /* the rest are in results.json: a review table stays readable */
        for (size_t k = 0; k < FS__N_METRICS; k++)
            if (metrics[k].section == SEC_SERVICE)
                fs__table_row(d, results, compare, &metrics[k], fs__str(v, "name"));
    }
    json_array_foreach(json_object_get(first, "training"), i, v) {
        for (size_t k = 0; k < FS__N_METRICS; k++)
            if (metrics[k].section == SEC_TRAINING)
                fs__table_row(d, results, compare, &metrics[k], fs__str(v, "name"));
    }
    for (size_t k = 0; k < FS__N_METRICS; k++)
        if (metrics[k].section == SEC_FLEET)
            fs__table_row(d, results, compare, &metrics[k], "fleet");
    fs__raw(d, d->html ? "</table>\n" : "\n");
    if (compare) {
        fs__para_open(d);
        fs__raw(d, "In brackets: the difference to ");
        fs__text(d, fs__str(first, "name"));
        fs__raw(d, ", paired replication by replication (common random numbers), ± its 95%% confidence "
                   "half-width.");
        fs__para_close(d);
    }
}

/* ---- verdicts ------------------------------------------------------------ */

static const struct {
    const char *target, *latency;
} slo_keys[] = {{"p50_ms", "p50"}, {"p95_ms", "p95"}, {"p99_ms", "p99"}, {"p999_ms", "p999"}};

/* One sentence per policy: does every service meet its SLO over the run, how
 * many windows breached, what it costs. */
static void fs__verdict(fs__doc *d, json_t *pol, double hours)
{
    size_t i, misses = 0;
    json_t *svc;
    double breaches = 0;
    fs__raw(d, d->html ? "<li><b>" : "- **");
    fs__text(d, fs__str(pol, "name"));
    fs__raw(d, d->html ? "</b>: " : "**: ");
    json_array_foreach(json_object_get(pol, "services"), i, svc) {
        json_t *targets = fs__at(svc, "slo.targets");
        breaches += isnan(fs__num(svc, "slo_breach_windows")) ? 0 : fs__num(svc, "slo_breach_windows");
        for (size_t k = 0; k < sizeof slo_keys / sizeof *slo_keys; k++) {
            double target = fs__num(targets, slo_keys[k].target);
            char path[32];
            snprintf(path, sizeof path, "latency_ms.%s", slo_keys[k].latency);
            double got = fs__num(svc, path);
            if (isnan(target) || isnan(got) || got <= target)
                continue;
            fs__raw(d, misses ? "; " : "misses the SLO of ");
            if (misses < 3) {
                fs__text(d, fs__str(svc, "name"));
                fs__raw(d, " (%s %.4g ms against %.4g ms)", slo_keys[k].latency, got, target);
            } else if (misses == 3) {
                fs__raw(d, "and more");
            }
            misses++;
        }
    }
    if (!misses)
        fs__raw(d, "every service meets its SLO over the run");
    fs__raw(d, ", with %.4g SLO windows in breach; costs $%.2f for the %.4g measured hours", breaches,
            fs__num(pol, "fleet.cost_usd"), hours);
    double per_m = fs__num(pol, "fleet.cost_per_million_requests");
    if (!isnan(per_m) && per_m > 0)
        fs__raw(d, " ($%.2f per million requests)", per_m);
    fs__raw(d, d->html ? ".</li>\n" : ".\n");
}

/* ---- the page -------------------------------------------------------------- */

static const char *const style =
    "body{font-family:system-ui,sans-serif;max-width:1000px;margin:2em auto;padding:0 1em;color:#222}"
    "table{border-collapse:collapse;font-size:0.9em}td,th{border:1px solid #ccc;padding:3px 8px;"
    "text-align:right}td:first-child,td:nth-child(2),th{text-align:left}"
    "figure{margin:1.5em 0}img{max-width:100%;border:1px solid #eee}.broken{color:#b00}"
    "figcaption{color:#444}code{background:#f4f4f4;padding:0 3px}";

/* Marks a chart whose image did not load, and records on <body> how many
 * loaded (data-charts-loaded="k/n") for tests and for the reader. */
static const char *const checker =
    "window.addEventListener('load',function(){var im=document.querySelectorAll('img.chart'),ok=0;"
    "for(var i=0;i<im.length;i++){if(im[i].complete&&im[i].naturalWidth>0){ok++;}else{"
    "var p=document.createElement('p');p.className='broken';"
    "p.textContent='This chart did not load: render it with gnuplot (see above).';"
    "im[i].parentNode.insertBefore(p,im[i]);}}"
    "document.body.setAttribute('data-charts-loaded',ok+'/'+im.length);});";

static void fs__document(fs__doc *d, json_t *results, json_t *compare, const fs_chart_set *charts)
{
    json_t *scen = json_object_get(results, "scenario");
    const char *name = fs__str(scen, "name");
    double hours = (fs__num(scen, "horizon_s") - fs__num(scen, "warmup_s")) / 3600;
    if (d->html) {
        fs__raw(d, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                   "<title>fleetsim: ");
        fs__text(d, name);
        fs__raw(d, "</title><style>%s</style></head>\n<body>\n", style);
    }
    fs__heading(d, 1, "Capacity review: ", name);
    fs__para_open(d);
    fs__raw(d, "Scenario <code>");
    fs__text(d, fs__str(scen, "path"));
    fs__raw(d, "</code>: %.4g measured hours after a %.4g h warm-up, %.0f replication(s), seed %.0f, "
               "%.4g-minute windows.",
            hours, fs__num(scen, "warmup_s") / 3600, fs__num(scen, "replications"), fs__num(scen, "seed"),
            fs__num(scen, "window_s") / 60);
    fs__para_close(d);

    fs__heading(d, 2, "Verdict", NULL);
    fs__raw(d, d->html ? "<ul>\n" : "");
    size_t i;
    json_t *pol;
    json_array_foreach(json_object_get(results, "policies"), i, pol) fs__verdict(d, pol, hours);
    fs__raw(d, d->html ? "</ul>\n" : "\n");

    fs__heading(d, 2, "Comparison", NULL);
    fs__table(d, results, compare);

    fs__heading(d, 2, "Charts", NULL);
    if (!charts->gnuplot_ran) {
        fs__para_open(d);
        fs__raw(d, "gnuplot was not found or failed, so the charts are not rendered. Their data "
                   "(<code>*.csv</code>) and scripts (<code>*.gp</code>) are in this directory: render "
                   "them with <code>");
        fs__text(d, charts->render_hint ? charts->render_hint : "gnuplot *.gp");
        fs__raw(d, "</code> there.");
        fs__para_close(d);
    }
    for (size_t c = 0; c < charts->n; c++) {
        const fs_chart *ch = &charts->charts[c];
        if (d->html) {
            fs__raw(d, "<figure><img class=\"chart\" src=\"%s.png\" alt=\"", ch->stem);
            fs__text(d, ch->title);
            fs__raw(d, "\"><figcaption><b>");
            fs__text(d, ch->title);
            fs__raw(d, ".</b> ");
            fs__text(d, ch->caption);
            fs__raw(d, " Data: <a href=\"%s.csv\">%s.csv</a>; vector: <a href=\"%s.svg\">%s.svg</a>."
                       "</figcaption></figure>\n",
                    ch->stem, ch->stem, ch->stem, ch->stem);
        } else {
            fs__raw(d, "![");
            fs__text(d, ch->title);
            fs__raw(d, "](%s.png)\n\n**", ch->stem);
            fs__text(d, ch->title);
            fs__raw(d, ".** ");
            fs__text(d, ch->caption);
            fs__raw(d, " Data: [%s.csv](%s.csv).\n\n", ch->stem, ch->stem);
        }
    }
    if (d->html)
        fs__raw(d, "<script>%s</script>\n</body></html>\n", checker);
}

static int fs__write_doc(const char *out_dir, const char *name, bool html, json_t *results,
                         json_t *compare, const fs_chart_set *charts, fs_error *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", out_dir, name);
    FILE *fp = fopen(path, "w");
    if (!fp)
        return fs_error_set(err, FS_ERR_RUNTIME, "%s: cannot create: %s", path, strerror(errno));
    fs__doc d = {fp, html};
    fs__document(&d, results, compare, charts);
    if ((ferror(fp) | fclose(fp)) != 0)
        return fs_error_set(err, FS_ERR_RUNTIME, "%s: write failed", path);
    return FS_OK;
}

int fs_report_write(const char *results_dir, const char *out_dir, fs_error *err)
{
    int rc = FS_OK;
    json_t *results = fs__load(results_dir, "results.json", true, err, &rc);
    if (!results)
        return rc;
    json_t *compare = fs__load(results_dir, "compare.json", false, err, &rc);
    if (rc != FS_OK || !json_is_array(json_object_get(results, "policies"))) {
        json_decref(results);
        json_decref(compare);
        return rc != FS_OK ? rc
                           : fs_error_set(err, FS_ERR_INPUT, "%s/results.json: policies: expected an array",
                                          results_dir);
    }
    if (mkdir(out_dir, 0777) != 0 && errno != EEXIST) {
        json_decref(results);
        json_decref(compare);
        return fs_error_set(err, FS_ERR_RUNTIME, "%s: cannot create directory: %s", out_dir, strerror(errno));
    }
    fs_chart_set charts = {0};
    rc = fs_charts_write(results_dir, out_dir, &charts, err);
    if (rc == FS_OK)
        rc = fs__write_doc(out_dir, "index.html", true, results, compare, &charts, err);
    if (rc == FS_OK)
        rc = fs__write_doc(out_dir, "report.md", false, results, compare, &charts, err);
    fs_charts_free(&charts);
    json_decref(results);
    json_decref(compare);
    return rc;
}

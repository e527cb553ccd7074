/*
 * charts — see charts.h for the contract.
 *
 * Three phases: read (results.json with jansson, the CSVs streamed through
 * libcsv into fixed-size accumulators; a plan's points come read already),
 * write (per chart a CSV and a self-contained gnuplot script), render (one
 * gnuplot process per chart, all started at once, then waited for).
 *
 * Why the data is inline in the script and not read from STEM.csv: gnuplot's
 * CSV reader knows nothing of quoted newlines, so a header row holding a
 * hostile name would shift its `skip` count.  Inline datablocks hold numbers
 * only, so the one place a name can reach gnuplot is a single-quoted string
 * written by fs__gp_quote.
 */
#include <assert.h>
#include <csv.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "charts.h"

#define FS__NAME_SHOWN 48       /* most bytes of a name shown anywhere (then "...") */
#define FS__NAME_TITLE 36       /* ... in a chart title */
#define FS__NAME_KEY 28         /* ... in a legend entry or tic label */
#define FS__MAX_SERVICES 4      /* p99_by_hour charts */
#define FS__MAX_HEATMAPS 4      /* breach_heatmap charts (one per policy) */
#define FS__MAX_LINES 8         /* policies drawn on one chart; the CSV has them all */
#define FS__MAX_CDF_SERIES 6    /* (policy, stream) lines before streams are pooled */
#define FS__MAX_SEGMENTS 10     /* pools stacked in one bar; the rest become "other pools" */
#define FS__MAX_WINDOWS 4000000 /* time-series windows per policy we accept */
#define FS__MAX_DAYS 100000
#define FS__DAY_S 86400.0

_Static_assert(FS__MAX_SERVICES + FS__MAX_HEATMAPS + 3 <= FS_CHARTS_MAX,
               "every chart must fit in fs_chart_set");

static const char *const fs__policy_colors[FS__MAX_LINES] = {
    "#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#7f7f7f"};
static const char *const fs__on_demand_colors[FS__MAX_SEGMENTS] = {
    "#08519c", "#3182bd", "#6baed6", "#9ecae1", "#006d2c",
    "#31a354", "#74c476", "#a1d99b", "#08306b", "#c6dbef"};
static const char *const fs__spot_colors[FS__MAX_SEGMENTS] = {
    "#a63603", "#e6550d", "#fd8d3c", "#fdae6b", "#7f2704",
    "#d94801", "#f16913", "#fdd0a2", "#8c6d31", "#e7ba52"};
#define FS__SLO_COLOR "#d62728"
#define FS__OTHER_COLOR "#969696"

/* ---------------------------------------------------------------- data */

typedef struct fs__pool {
    const char *name; /* points into the JSON document */
    bool spot;
    double cost_usd;
    double gpus; /* configured GPUs; NAN when absent */
} fs__pool;

typedef struct fs__policy {
    const char *name;
    fs__pool *pools;
    size_t n_pools;
    double *busy, *gpus;   /* per window, summed over pools and replications */
    int max_rep;           /* highest replication index seen in pools_timeseries.csv */
    double *p99_sum;       /* [service * n_bins + bin] */
    size_t *p99_n;
    unsigned long *breach; /* [day * 24 + hour] */
} fs__policy;

typedef struct fs__service {
    const char *name;
    double p99_ms; /* the SLO target, NAN when the service has none */
} fs__service;

typedef struct fs__series {
    size_t policy;
    char *stream; /* as read from training_waits.csv */
    double *wait_s;
    size_t n, cap;
} fs__series;

typedef struct fs__data {
    const char *dir;
    json_t *root;
    const char *scenario; /* "" when the document has no name */
    double horizon_s, warmup_s, window_s, bin_s;
    size_t n_windows, n_bins, n_days, first_day;
    fs__policy *pol;
    size_t n_pol;
    fs__service sel[FS__MAX_SERVICES];
    size_t n_sel;
    bool any_slo;
    fs__series *series;
    size_t n_series, cap_series;
    bool have_waits, have_breaches;
} fs__data;

static void fs__data_fini(fs__data *d)
{
    for (size_t i = 0; i < d->n_pol; i++) {
        free(d->pol[i].pools);
        free(d->pol[i].busy);
        free(d->pol[i].gpus);
        free(d->pol[i].p99_sum);
        free(d->pol[i].p99_n);
        free(d->pol[i].breach);
    }
    free(d->pol);
    for (size_t i = 0; i < d->n_series; i++) {
        free(d->series[i].stream);
        free(d->series[i].wait_s);
    }
    free(d->series);
    json_decref(d->root);
    memset(d, 0, sizeof *d);
}

/* ------------------------------------------------------------- strings */

static char *fs__strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *c = malloc(n);
    if (c)
        memcpy(c, s, n);
    return c;
}

/* A malloc'ed printf; NULL when out of memory. */
static char *fs__fmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *fs__fmt(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return NULL;
    char *s = malloc((size_t)n + 1);
    if (!s)
        return NULL;
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

static bool fs__is_control(unsigned char c)
{
    return c < 0x20 || c == 0x7f;
}

/* A name as a chart shows it: control characters become spaces, and a name
 * longer than max bytes (at most FS__NAME_SHOWN) is cut, never inside a
 * UTF-8 sequence, and ends with "...". */
static void fs__shown(const char *s, char out[FS__NAME_SHOWN + 4], size_t max)
{
    assert(max <= FS__NAME_SHOWN);
    size_t n = strlen(s);
    bool cut = n > max;
    if (cut) {
        n = max;
        while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
            n--; /* s[n] would start the cut-off part: back up to a lead byte */
    }
    for (size_t i = 0; i < n; i++)
        out[i] = fs__is_control((unsigned char)s[i]) ? ' ' : s[i];
    if (cut)
        memcpy(out + n, "...", 3), n += 3;
    out[n] = '\0';
}

/* Writes s as a gnuplot string expression made of single-quoted pieces:
 * gnuplot expands nothing inside single quotes (no backquote commands, no
 * macros, no escapes).  A quote in s is not written with the documented ''
 * escape: gnuplot 5.4 misreads '' right after an opening quote or right after
 * another '' (both '''x' and 'a''''b' are syntax errors), so a name starting
 * with a quote would break the script.  Each quote is instead the variable sq
 * (a quote character, set at the top of every script) joined with `.`:
 * a'b -> 'a'.sq.'b'.  Control characters (a newline would end the command)
 * become spaces.  Usable wherever gnuplot takes a string expression: titles,
 * axis labels, plot titles, tic labels. */
static void fs__gp_quote(FILE *fp, const char *s)
{
    fputc('\'', fp);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '\'')
            fputs("'.sq.'", fp);
        else
            fputc(fs__is_control(*p) ? ' ' : *p, fp);
    }
    fputc('\'', fp);
}

/* A CSV field, quoted by libcsv (commas, quotes, newlines stay data). */
static void fs__csv_str(FILE *fp, const char *s)
{
    csv_fwrite(fp, s, strlen(s));
}

/* A number for a datablock or a CSV: NaN (gnuplot skips the point) or %.9g. */
static void fs__num(FILE *fp, double v)
{
    if (isfinite(v))
        fprintf(fp, "%.9g", v);
    else
        fputs("NaN", fp);
}

static char *fs__join(const char *dir, const char *name)
{
    return fs__fmt("%s/%s", dir, name);
}

/* -------------------------------------------------------- results.json */

static int fs__jfail(fs_error *err, const char *file, const char *where, const char *key,
                     const char *what)
{
    return fs_error_set(err, FS_ERR_INPUT, "%s: %s%s%s: expected %s", file, where,
                        *where ? "." : "", key, what);
}

static int fs__jnum(json_t *obj, const char *key, double *out, const char *file,
                    const char *where, fs_error *err)
{
    json_t *v = json_object_get(obj, key);
    if (!json_is_number(v) || !isfinite(json_number_value(v)))
        return fs__jfail(err, file, where, key, "a number");
    *out = json_number_value(v);
    return FS_OK;
}

static int fs__jstr(json_t *obj, const char *key, const char **out, const char *file,
                    const char *where, fs_error *err)
{
    json_t *v = json_object_get(obj, key);
    if (!json_is_string(v))
        return fs__jfail(err, file, where, key, "a string");
    *out = json_string_value(v);
    return FS_OK;
}

/* The SLO's p99 target of a service object, NAN when it has none; *any set
 * when it has any target at all. */
static double fs__p99_target(json_t *service, bool *any)
{
    json_t *targets = json_object_get(json_object_get(service, "slo"), "targets");
    if (json_is_object(targets) && json_object_size(targets) > 0)
        *any = true;
    json_t *p99 = json_object_get(targets, "p99_ms");
    return json_is_number(p99) ? json_number_value(p99) : NAN;
}

static int fs__load_json(fs__data *d, fs_error *err)
{
    char *path = fs__join(d->dir, "results.json");
    if (!path)
        return fs_error_set(err, FS_ERR_RUNTIME, "charts: out of memory");
    int rc = FS_OK;
    char where[96];
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        rc = fs_error_set(err, FS_ERR_INPUT, "%s: cannot read: %s", path, strerror(errno));
        goto out;
    }
    json_error_t je;
    d->root = json_loadf(fp, 0, &je);
    fclose(fp);
    if (!d->root) {
        rc = je.line >= 1 ? fs_error_set(err, FS_ERR_INPUT, "%s:%d:%d: %s", path, je.line,
                                         je.column, je.text)
                          : fs_error_set(err, FS_ERR_INPUT, "%s: %s", path, je.text);
        goto out;
    }
    json_t *scen = json_object_get(d->root, "scenario");
    if (!json_is_object(scen)) {
        rc = fs__jfail(err, path, "", "scenario", "an object");
        goto out;
    }
    d->scenario = json_string_value(json_object_get(scen, "name"));
    if (!d->scenario)
        d->scenario = "";
    if ((rc = fs__jnum(scen, "horizon_s", &d->horizon_s, path, "scenario", err)) ||
        (rc = fs__jnum(scen, "warmup_s", &d->warmup_s, path, "scenario", err)) ||
        (rc = fs__jnum(scen, "window_s", &d->window_s, path, "scenario", err)))
        goto out;
    if (!(d->window_s > 0) || !(d->warmup_s >= 0) || !(d->horizon_s > d->warmup_s)) {
        rc = fs_error_set(err, FS_ERR_INPUT,
                          "%s: scenario: expected window_s > 0 and horizon_s > warmup_s >= 0", path);
        goto out;
    }
    double windows = ceil((d->horizon_s - d->warmup_s) / d->window_s - 1e-9);
    double days = ceil(d->horizon_s / FS__DAY_S - 1e-9);
    if (windows > FS__MAX_WINDOWS || days > FS__MAX_DAYS) {
        rc = fs_error_set(err, FS_ERR_INPUT,
                          "%s: scenario: %.0f windows over %.0f days is more than charts can draw",
                          path, windows, days);
        goto out;
    }
    d->n_windows = (size_t)windows;
    d->n_days = (size_t)days;
    d->first_day = (size_t)floor(d->warmup_s / FS__DAY_S);
    /* p99 by time of day: quarter-hour bins, or the window when it is longer. */
    d->bin_s = d->window_s <= 900 ? 900 : d->window_s;
    d->n_bins = d->bin_s >= FS__DAY_S ? 1 : (size_t)ceil(FS__DAY_S / d->bin_s);

    json_t *pols = json_object_get(d->root, "policies");
    if (!json_is_array(pols) || json_array_size(pols) == 0) {
        rc = fs__jfail(err, path, "", "policies", "a non-empty array");
        goto out;
    }
    d->n_pol = json_array_size(pols);
    d->pol = calloc(d->n_pol, sizeof *d->pol);
    if (!d->pol) {
        d->n_pol = 0;
        rc = fs_error_set(err, FS_ERR_RUNTIME, "charts: out of memory");
        goto out;
    }
    for (size_t i = 0; i < d->n_pol; i++) {
        fs__policy *p = &d->pol[i];
        json_t *pj = json_array_get(pols, i);
        snprintf(where, sizeof where, "policies[%zu]", i);
        if ((rc = fs__jstr(pj, "name", &p->name, path, where, err)))
            goto out;
        json_t *services = json_object_get(pj, "services");
        json_t *pools = json_object_get(pj, "pools");
        if (!json_is_array(services)) {
            rc = fs__jfail(err, path, where, "services", "an array");
            goto out;
        }
        if (!json_is_array(pools)) {
            rc = fs__jfail(err, path, where, "pools", "an array");
            goto out;
        }
        for (size_t s = 0; s < json_array_size(services); s++) {
            json_t *sj = json_array_get(services, s);
            const char *name = "";
            snprintf(where, sizeof where, "policies[%zu].services[%zu]", i, s);
            if ((rc = fs__jstr(sj, "name", &name, path, where, err)))
                goto out;
            double target = fs__p99_target(sj, &d->any_slo);
            /* The services charted: those of the first policy with a p99 SLO. */
            if (i == 0 && !isnan(target) && d->n_sel < FS__MAX_SERVICES)
                d->sel[d->n_sel++] = (fs__service){name, target};
        }
        if (i == 0 && d->n_sel == 0 && json_array_size(services) > 0) {
            d->sel[0].name = json_string_value(json_object_get(json_array_get(services, 0), "name"));
            d->sel[0].p99_ms = NAN;
            d->n_sel = 1;
        }
        p->n_pools = json_array_size(pools);
        p->pools = calloc(p->n_pools ? p->n_pools : 1, sizeof *p->pools);
        if (!p->pools) {
            rc = fs_error_set(err, FS_ERR_RUNTIME, "charts: out of memory");
            goto out;
        }
        for (size_t k = 0; k < p->n_pools; k++) {
            json_t *qj = json_array_get(pools, k);
            fs__pool *q = &p->pools[k];
            const char *cls = "";
            snprintf(where, sizeof where, "policies[%zu].pools[%zu]", i, k);
            if ((rc = fs__jstr(qj, "name", &q->name, path, where, err)) ||
                (rc = fs__jstr(qj, "price_class", &cls, path, where, err)) ||
                (rc = fs__jnum(qj, "cost_usd", &q->cost_usd, path, where, err)))
                goto out;
            q->spot = strcmp(cls, "spot") == 0;
            json_t *g = json_object_get(qj, "gpus");
            q->gpus = json_is_number(g) ? json_number_value(g) : NAN;
        }
        p->max_rep = -1;
        p->busy = calloc(d->n_windows ? d->n_windows : 1, sizeof *p->busy);
        p->gpus = calloc(d->n_windows ? d->n_windows : 1, sizeof *p->gpus);
        p->p99_sum = calloc(FS__MAX_SERVICES * d->n_bins, sizeof *p->p99_sum);
        p->p99_n = calloc(FS__MAX_SERVICES * d->n_bins, sizeof *p->p99_n);
        p->breach = calloc(d->n_days * 24, sizeof *p->breach);
        if (!p->busy || !p->gpus || !p->p99_sum || !p->p99_n || !p->breach) {
            rc = fs_error_set(err, FS_ERR_RUNTIME, "charts: out of memory");
            goto out;
        }
    }
out:
    free(path);
    return rc;
}

/* ---------------------------------------------------------- CSV input */

typedef struct fs__col {
    const char *name;
    bool required;
} fs__col;

#define FS__CSV_MAX_COLS 8

typedef struct fs__csv fs__csv;
struct fs__csv {
    const char *path;
    const fs__col *cols; /* the columns this reader uses, found by header name */
    size_t n_cols;
    int idx[FS__CSV_MAX_COLS]; /* header position of cols[k], -1 if absent */
    size_t n_header;
    char **f;      /* the current record's fields, NUL-terminated copies */
    size_t *f_cap; /* capacity of each f[i] */
    size_t n_f, cap_f;
    size_t row; /* records completed; the header is row 1 */
    int (*on_row)(fs__csv *c);
    fs__data *d;
    size_t cache; /* the last series index (training waits) */
    int rc;
    fs_error *err;
};

static void fs__csv_field(void *s, size_t len, void *data)
{
    fs__csv *c = data;
    if (c->rc)
        return;
    if (c->n_f == c->cap_f) {
        size_t cap = c->cap_f ? 2 * c->cap_f : 16;
        char **f = realloc(c->f, cap * sizeof *f);
        if (f)
            c->f = f;
        size_t *fc = realloc(c->f_cap, cap * sizeof *fc);
        if (fc)
            c->f_cap = fc;
        if (!f || !fc) {
            c->rc = fs_error_set(c->err, FS_ERR_RUNTIME, "charts: out of memory");
            return;
        }
        for (size_t i = c->cap_f; i < cap; i++)
            c->f[i] = NULL, c->f_cap[i] = 0;
        c->cap_f = cap;
    }
    if (c->f_cap[c->n_f] < len + 1) {
        char *b = realloc(c->f[c->n_f], len + 1);
        if (!b) {
            c->rc = fs_error_set(c->err, FS_ERR_RUNTIME, "charts: out of memory");
            return;
        }
        c->f[c->n_f] = b;
        c->f_cap[c->n_f] = len + 1;
    }
    if (len)
        memcpy(c->f[c->n_f], s, len);
    c->f[c->n_f][len] = '\0';
    c->n_f++;
}

static void fs__csv_record(int term, void *data)
{
    (void)term;
    fs__csv *c = data;
    if (c->rc)
        return;
    c->row++;
    if (c->row == 1) {
        c->n_header = c->n_f;
        for (size_t k = 0; k < c->n_cols; k++) {
            c->idx[k] = -1;
            for (size_t i = 0; i < c->n_f; i++)
                if (strcmp(c->f[i], c->cols[k].name) == 0)
                    c->idx[k] = (int)i;
            if (c->idx[k] < 0 && c->cols[k].required) {
                c->rc = fs_error_set(c->err, FS_ERR_INPUT, "%s: row 1: no column \"%s\" in the header",
                                     c->path, c->cols[k].name);
                return;
            }
        }
    } else if (c->n_f != c->n_header) {
        c->rc = fs_error_set(c->err, FS_ERR_INPUT, "%s: row %zu: expected %zu fields, found %zu",
                             c->path, c->row, c->n_header, c->n_f);
    } else {
        c->rc = c->on_row(c);
    }
    c->n_f = 0;
}

/* The field of column k of the current record ("" when the column is absent). */
static const char *fs__csv_get(const fs__csv *c, size_t k)
{
    return c->idx[k] < 0 ? "" : c->f[c->idx[k]];
}

static int fs__csv_number(fs__csv *c, size_t k, double *out)
{
    const char *s = fs__csv_get(c, k);
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end != '\0') {
        char shown[FS__NAME_SHOWN + 4];
        fs__shown(s, shown, FS__NAME_SHOWN);
        return fs_error_set(c->err, FS_ERR_INPUT, "%s: row %zu: column \"%s\": expected a number, got \"%s\"",
                            c->path, c->row, c->cols[k].name, shown);
    }
    *out = v;
    return FS_OK;
}

static int fs__csv_policy(fs__csv *c, size_t k, size_t *out)
{
    const char *name = fs__csv_get(c, k);
    for (size_t i = 0; i < c->d->n_pol; i++)
        if (strcmp(c->d->pol[i].name, name) == 0) {
            *out = i;
            return FS_OK;
        }
    char shown[FS__NAME_SHOWN + 4];
    fs__shown(name, shown, FS__NAME_SHOWN);
    return fs_error_set(c->err, FS_ERR_INPUT, "%s: row %zu: policy \"%s\" is not in results.json",
                        c->path, c->row, shown);
}

/* Streams DIR/name through libcsv.  A missing optional file sets *found =
 * false and is not an error. */
static int fs__csv_read(fs__data *d, const char *name, const fs__col *cols, size_t n_cols,
                        int (*on_row)(fs__csv *), bool optional, bool *found, fs_error *err)
{
    assert(n_cols <= FS__CSV_MAX_COLS);
    char *path = fs__join(d->dir, name);
    if (!path)
        return fs_error_set(err, FS_ERR_RUNTIME, "charts: out of memory");
    fs__csv c = {.path = path, .cols = cols, .n_cols = n_cols, .on_row = on_row, .d = d, .err = err};
    struct csv_parser p;
    bool parser = false;
    FILE *fp = fopen(path, "rb");
    if (found)
        *found = fp != NULL;
    if (!fp) {
        if (!(optional && errno == ENOENT))
            c.rc = fs_error_set(err, FS_ERR_INPUT, "%s: cannot read: %s", path, strerror(errno));
        goto out;
    }
    if (csv_init(&p, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL) != 0) {
        c.rc = fs_error_set(err, FS_ERR_RUNTIME, "charts: out of memory");
        goto out;
    }
    parser = true;
    char buf[1 << 16];
    size_t n;
    while (!c.rc && (n = fread(buf, 1, sizeof buf, fp)) > 0)
        if (csv_parse(&p, buf, n, fs__csv_field, fs__csv_record, &c) != n && !c.rc)
            c.rc = fs_error_set(err, FS_ERR_INPUT, "%s: row %zu: %s", path, c.row + 1,
                                csv_strerror(csv_error(&p)));
    if (!c.rc && ferror(fp))
        c.rc = fs_error_set(err, FS_ERR_INPUT, "%s: cannot read: %s", path, strerror(errno));
    if (!c.rc && csv_fini(&p, fs__csv_field, fs__csv_record, &c) != 0 && !c.rc)
        c.rc = fs_error_set(err, FS_ERR_INPUT, "%s: row %zu: %s", path, c.row + 1,
                            csv_strerror(csv_error(&p)));
    if (!c.rc && c.row == 0)
        c.rc = fs_error_set(err, FS_ERR_INPUT, "%s: empty, expected a header row", path);
out:
    if (parser)
        csv_free(&p);
    if (fp)
        fclose(fp);
    for (size_t i = 0; i < c.cap_f; i++)
        free(c.f[i]);
    free(c.f);
    free(c.f_cap);
    free(path);
    return c.rc;
}

/* timeseries.csv: window p99 into (policy, charted service, time-of-day bin). */
static const fs__col fs__ts_cols[] = {
    {"policy", true}, {"replication", true}, {"service", true},
    {"window_start_s", true}, {"completed", true}, {"p99_ms", true}};

static int fs__ts_row(fs__csv *c)
{
    fs__data *d = c->d;
    const char *service = fs__csv_get(c, 2);
    size_t s = 0;
    while (s < d->n_sel && strcmp(d->sel[s].name, service) != 0)
        s++;
    if (s == d->n_sel)
        return FS_OK; /* not charted */
    size_t pi = 0;
    double start, completed, p99;
    int rc;
    if ((rc = fs__csv_policy(c, 0, &pi)) || (rc = fs__csv_number(c, 3, &start)) ||
        (rc = fs__csv_number(c, 4, &completed)) || (rc = fs__csv_number(c, 5, &p99)))
        return rc;
    /* A window without completions has p99 0 (no data), not a fast window. */
    if (!(completed > 0) || !isfinite(p99) || !isfinite(start) || start < d->warmup_s)
        return FS_OK;
    size_t bin = (size_t)floor(fmod(start, FS__DAY_S) / d->bin_s);
    if (bin >= d->n_bins)
        bin = d->n_bins - 1;
    d->pol[pi].p99_sum[s * d->n_bins + bin] += p99;
    d->pol[pi].p99_n[s * d->n_bins + bin]++;
    return FS_OK;
}

/* pools_timeseries.csv: busy and provisioned GPUs per (policy, window).
 * `gpus` is read when the file has it; otherwise a window's GPUs are
 * busy / utilization, or the pool's configured GPUs in results.json when the
 * pool was idle (exact for fixed pools, approximate for idle elastic ones). */
static const fs__col fs__pool_cols[] = {
    {"policy", true},    {"replication", true}, {"pool", true},  {"window_start_s", true},
    {"busy_gpus", true}, {"utilization", true}, {"gpus", false}};

static int fs__pool_row(fs__csv *c)
{
    fs__data *d = c->d;
    size_t pi = 0;
    double rep, start, busy, util, gpus = NAN;
    int rc;
    if ((rc = fs__csv_policy(c, 0, &pi)) || (rc = fs__csv_number(c, 1, &rep)) ||
        (rc = fs__csv_number(c, 3, &start)) || (rc = fs__csv_number(c, 4, &busy)) ||
        (rc = fs__csv_number(c, 5, &util)))
        return rc;
    if (c->idx[6] >= 0 && (rc = fs__csv_number(c, 6, &gpus)))
        return rc;
    fs__policy *p = &d->pol[pi];
    double w = floor((start - d->warmup_s) / d->window_s + 1e-6);
    if (!(w >= 0 && w < (double)d->n_windows))
        return fs_error_set(c->err, FS_ERR_INPUT,
                            "%s: row %zu: window_start_s %.9g is outside the run [%.9g, %.9g)",
                            c->path, c->row, start, d->warmup_s, d->horizon_s);
    if (!isfinite(gpus)) {
        if (util > 0 && isfinite(busy / util)) {
            gpus = busy / util;
        } else {
            const char *pool = fs__csv_get(c, 2);
            for (size_t k = 0; k < p->n_pools && !isfinite(gpus); k++)
                if (strcmp(p->pools[k].name, pool) == 0)
                    gpus = p->pools[k].gpus;
            if (!isfinite(gpus))
                gpus = 0;
        }
    }
    if (rep > p->max_rep && rep < 1e9)
        p->max_rep = (int)rep;
    if (isfinite(busy))
        p->busy[(size_t)w] += busy;
    p->gpus[(size_t)w] += gpus;
    return FS_OK;
}

/* training_waits.csv: waits per (policy, stream). */
static const fs__col fs__wait_cols[] = {
    {"policy", true}, {"replication", true}, {"stream", true}, {"wait_s", true}};

static int fs__wait_row(fs__csv *c)
{
    fs__data *d = c->d;
    size_t pi = 0;
    double wait;
    int rc;
    if ((rc = fs__csv_policy(c, 0, &pi)) || (rc = fs__csv_number(c, 3, &wait)))
        return rc;
    if (!isfinite(wait))
        return FS_OK;
    const char *stream = fs__csv_get(c, 2);
    size_t s = c->cache; /* rows come grouped by stream: try the last one first */
    if (!(s < d->n_series && d->series[s].policy == pi && strcmp(d->series[s].stream, stream) == 0)) {
        for (s = 0; s < d->n_series; s++)
            if (d->series[s].policy == pi && strcmp(d->series[s].stream, stream) == 0)
                break;
    }
    if (s == d->n_series) {
        if (d->n_series == d->cap_series) {
            size_t cap = d->cap_series ? 2 * d->cap_series : 8;
            fs__series *g = realloc(d->series, cap * sizeof *g);
            if (!g)
                return fs_error_set(c->err, FS_ERR_RUNTIME, "charts: out of memory");
            d->series = g;
            d->cap_series = cap;
        }
        char *name = fs__strdup(stream);
        if (!name)
            return fs_error_set(c->err, FS_ERR_RUNTIME, "charts: out of memory");
        d->series[s] = (fs__series){.policy = pi, .stream = name};
        d->n_series++;
    }
    c->cache = s;
    fs__series *g = &d->series[s];
    if (g->n == g->cap) {
        size_t cap = g->cap ? 2 * g->cap : 16;
        double *w = realloc(g->wait_s, cap * sizeof *w);
        if (!w)
            return fs_error_set(c->err, FS_ERR_RUNTIME, "charts: out of memory");
        g->wait_s = w;
        g->cap = cap;
    }
    g->wait_s[g->n++] = wait;
    return FS_OK;
}

/* slo_breaches.csv: breached windows per (policy, day, hour of day). */
static const fs__col fs__breach_cols[] = {
    {"policy", true}, {"replication", true}, {"service", true}, {"window_start_s", true}};

static int fs__breach_row(fs__csv *c)
{
    fs__data *d = c->d;
    size_t pi = 0;
    double start;
    int rc;
    if ((rc = fs__csv_policy(c, 0, &pi)) || (rc = fs__csv_number(c, 3, &start)))
        return rc;
    double day = floor(start / FS__DAY_S);
    if (!(day >= 0 && day < (double)d->n_days))
        return fs_error_set(c->err, FS_ERR_INPUT,
                            "%s: row %zu: window_start_s %.9g is outside the run [0, %.9g)",
                            c->path, c->row, start, d->horizon_s);
    size_t hour = (size_t)floor(fmod(start, FS__DAY_S) / 3600);
    d->pol[pi].breach[(size_t)day * 24 + (hour < 24 ? hour : 23)]++;
    return FS_OK;
}

/* ------------------------------------------------------ chart writing */

typedef struct fs__chart_out {
    const char *dir;
    fs_chart_set *set;
    fs_error *err;
} fs__chart_out;

/* A chart being written: its CSV, its script, and the plot commands (body),
 * which the script repeats once per terminal. */
typedef struct fs__writer {
    char stem[32];
    char *csv_path, *gp_path, *body;
    size_t body_len;
    FILE *csv, *gp, *bp;
} fs__writer;

static void fs__writer_discard(fs__writer *w)
{
    if (w->csv)
        fclose(w->csv);
    if (w->gp)
        fclose(w->gp);
    if (w->bp)
        fclose(w->bp);
    free(w->csv_path);
    free(w->gp_path);
    free(w->body);
    memset(w, 0, sizeof *w);
}

static int fs__writer_open(fs__writer *w, const fs__chart_out *o, const char *stem)
{
    memset(w, 0, sizeof *w);
    assert(strlen(stem) < sizeof w->stem);
    snprintf(w->stem, sizeof w->stem, "%s", stem);
    w->csv_path = fs__fmt("%s/%s.csv", o->dir, stem);
    w->gp_path = fs__fmt("%s/%s.gp", o->dir, stem);
    if (!w->csv_path || !w->gp_path)
        goto oom;
    w->bp = open_memstream(&w->body, &w->body_len);
    if (!w->bp)
        goto oom;
    if (!(w->csv = fopen(w->csv_path, "w"))) {
        int rc = fs_error_set(o->err, FS_ERR_RUNTIME, "%s: cannot write: %s", w->csv_path,
                              strerror(errno));
        fs__writer_discard(w);
        return rc;
    }
    if (!(w->gp = fopen(w->gp_path, "w"))) {
        int rc = fs_error_set(o->err, FS_ERR_RUNTIME, "%s: cannot write: %s", w->gp_path,
                              strerror(errno));
        fs__writer_discard(w);
        return rc;
    }
    fprintf(w->gp,
            "# fleetsim chart %s: written by fleetsim; render it by running: gnuplot %s.gp (in this directory)\n"
            "# The data is inline; names from the results appear only in single-quoted strings.\n"
            "set encoding utf8\n"
            "sq = sprintf('%%c', 39)  # a single quote, for names that hold one\n",
            stem, stem);
    return FS_OK;
oom:
    fs__writer_discard(w);
    return fs_error_set(o->err, FS_ERR_RUNTIME, "charts: out of memory");
}

static int fs__close_checked(FILE **fp, const char *path, fs_error *err)
{
    int bad = ferror(*fp);
    int e = errno;
    if (fclose(*fp) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    *fp = NULL;
    if (bad)
        return fs_error_set(err, FS_ERR_RUNTIME, "%s: cannot write: %s", path, strerror(e));
    return FS_OK;
}

/* Finishes the script (the body once for PNG, once for SVG), closes both
 * files and adds the chart to the set.  title and caption are taken over. */
static int fs__writer_finish(fs__writer *w, const fs__chart_out *o, char *title, char *caption)
{
    int rc = FS_OK;
    if (!title || !caption) {
        rc = fs_error_set(o->err, FS_ERR_RUNTIME, "charts: out of memory");
        goto out;
    }
    if (fclose(w->bp) != 0) {
        w->bp = NULL;
        rc = fs_error_set(o->err, FS_ERR_RUNTIME, "charts: out of memory");
        goto out;
    }
    w->bp = NULL;
    fprintf(w->gp,
            "set terminal pngcairo size 900,420 noenhanced font 'sans,10'\n"
            "set output '%s.png'\n",
            w->stem);
    fwrite(w->body, 1, w->body_len, w->gp);
    fprintf(w->gp,
            "set output\n"
            "set terminal svg size 900,420 noenhanced font 'sans,10' background '#ffffff'\n"
            "set output '%s.svg'\n",
            w->stem);
    fwrite(w->body, 1, w->body_len, w->gp);
    fputs("set output\n", w->gp);
    if ((rc = fs__close_checked(&w->csv, w->csv_path, o->err)) ||
        (rc = fs__close_checked(&w->gp, w->gp_path, o->err)))
        goto out;
    fs_chart_set *set = o->set;
    assert(set->n < FS_CHARTS_MAX);
    fs_chart *ch = &set->charts[set->n++];
    memcpy(ch->stem, w->stem, sizeof ch->stem);
    ch->title = title;
    ch->caption = caption;
    ch->rendered = false;
    title = caption = NULL;
out:
    free(title);
    free(caption);
    fs__writer_discard(w);
    return rc;
}

/* The chart title as plain text: control characters are already spaces. */
static char *fs__title(const char *scenario, const char *what, const char *name)
{
    char scen[FS__NAME_SHOWN + 4], shown[FS__NAME_SHOWN + 4];
    fs__shown(scenario, scen, FS__NAME_TITLE);
    if (name) {
        fs__shown(name, shown, FS__NAME_TITLE);
        return *scen ? fs__fmt("%s: %s %s", scen, what, shown) : fs__fmt("%s %s", what, shown);
    }
    return *scen ? fs__fmt("%s: %s", scen, what) : fs__strdup(what);
}

/* Common settings at the top of every body: title and axis labels, all
 * noenhanced so ^ _ @ { } in a name are drawn as they are. */
static void fs__gp_labels(FILE *bp, const char *title, const char *xlabel, const char *ylabel)
{
    fputs("reset\nset title ", bp);
    fs__gp_quote(bp, title);
    fputs(" noenhanced\nset xlabel ", bp);
    fs__gp_quote(bp, xlabel);
    fputs(" noenhanced\nset ylabel ", bp);
    fs__gp_quote(bp, ylabel);
    fputs(" noenhanced\nset grid\nset border 3\nset tics nomirror\n", bp);
}

static size_t fs__min(size_t a, size_t b)
{
    return a < b ? a : b;
}

/* 1. p99 by time of day, one chart per charted service. */
static int fs__chart_p99(const fs__data *d, const fs__chart_out *o)
{
    for (size_t s = 0; s < d->n_sel; s++) {
        const fs__service *sv = &d->sel[s];
        char stem[32];
        if (d->n_sel == 1)
            snprintf(stem, sizeof stem, "p99_by_hour");
        else
            snprintf(stem, sizeof stem, "p99_by_hour_%u", (unsigned)(s + 1));
        fs__writer w;
        int rc = fs__writer_open(&w, o, stem);
        if (rc)
            return rc;
        char *title = fs__title(d->scenario, "p99 latency by time of day, service", sv->name);
        /* CSV: time_of_day, hour, one column per policy, slo_p99_ms. */
        fputs("time_of_day,hour", w.csv);
        for (size_t i = 0; i < d->n_pol; i++) {
            fputc(',', w.csv);
            fs__csv_str(w.csv, d->pol[i].name);
        }
        fputs(",slo_p99_ms\n", w.csv);
        fputs("$data << EOD\n", w.gp);
        for (size_t b = 0; b < d->n_bins; b++) {
            double start_h = (double)b * d->bin_s / 3600;
            int minutes = (int)lround(start_h * 60);
            fprintf(w.csv, "%02d:%02d,%.9g", minutes / 60, minutes % 60, start_h);
            fs__num(w.gp, fmin(start_h + d->bin_s / 7200, 24.0)); /* the bin's middle */
            for (size_t i = 0; i < d->n_pol; i++) {
                size_t n = d->pol[i].p99_n[s * d->n_bins + b];
                double mean = n ? d->pol[i].p99_sum[s * d->n_bins + b] / (double)n : NAN;
                fputc(',', w.csv);
                if (n)
                    fs__num(w.csv, mean);
                if (i < FS__MAX_LINES) {
                    fputc(' ', w.gp);
                    fs__num(w.gp, mean);
                }
            }
            fputc(',', w.csv);
            if (!isnan(sv->p99_ms))
                fs__num(w.csv, sv->p99_ms);
            fputc('\n', w.csv);
            fputc('\n', w.gp);
        }
        fputs("EOD\n", w.gp);
        fs__gp_labels(w.bp, title ? title : "", "time of day (hours, by window start)",
                      "p99 latency (ms), mean over days and replications");
        fputs("set xrange [0:24]\nset xtics 0,2,24\nset mxtics 2\nset yrange [0:*]\n"
              "set key top left opaque noenhanced\nplot ",
              w.bp);
        size_t lines = fs__min(d->n_pol, FS__MAX_LINES);
        for (size_t i = 0; i < lines; i++) {
            fprintf(w.bp, "%s$data using 1:%zu with lines lw 2 lc rgb '%s' title ", i ? ", \\\n     " : "",
                    i + 2, fs__policy_colors[i]);
            char shown[FS__NAME_SHOWN + 4];
            fs__shown(d->pol[i].name, shown, FS__NAME_KEY);
            fs__gp_quote(w.bp, shown);
            fputs(" noenhanced", w.bp);
        }
        if (!isnan(sv->p99_ms))
            fprintf(w.bp, ", \\\n     %.9g with lines dt 2 lw 2 lc rgb '%s' title 'SLO target: p99 %.9g ms' noenhanced",
                    sv->p99_ms, FS__SLO_COLOR, sv->p99_ms);
        fputc('\n', w.bp);
        char *caption = fs__fmt(
            "Each line is one policy's p99 latency for windows starting in that %s of the day, "
            "averaged over every day after warm-up and every replication%s",
            d->bin_s == 900 ? "quarter-hour" : "window",
            isnan(sv->p99_ms) ? "; lower is better."
                              : "; the dashed red line is the SLO target, so a line above it marks "
                                "the times of day when that policy breaches.");
        if ((rc = fs__writer_finish(&w, o, title, caption)))
            return rc;
    }
    return FS_OK;
}

/* 2. Cost per policy, stacked by pool: on-demand pools first, then spot. */
typedef struct fs__segment {
    const char *name;
    bool spot, shown;
    double total;
} fs__segment;

static int fs__chart_cost(const fs__data *d, const fs__chart_out *o)
{
    size_t n_all = 0;
    for (size_t i = 0; i < d->n_pol; i++)
        n_all += d->pol[i].n_pools;
    if (n_all == 0)
        return FS_OK;
    fs__segment *seg = calloc(n_all, sizeof *seg);
    double *row = calloc(n_all + 1, sizeof *row);
    if (!seg || !row) {
        free(seg);
        free(row);
        return fs_error_set(o->err, FS_ERR_RUNTIME, "charts: out of memory");
    }
    /* Segments: distinct (name, price class), on-demand ones first, each
     * class in order of first appearance. */
    size_t n_seg = 0;
    for (int spot = 0; spot <= 1; spot++)
        for (size_t i = 0; i < d->n_pol; i++)
            for (size_t k = 0; k < d->pol[i].n_pools; k++) {
                const fs__pool *q = &d->pol[i].pools[k];
                if (q->spot != (bool)spot)
                    continue;
                size_t j = 0;
                while (j < n_seg && !(seg[j].spot == q->spot && strcmp(seg[j].name, q->name) == 0))
                    j++;
                if (j == n_seg)
                    seg[n_seg++] = (fs__segment){.name = q->name, .spot = q->spot};
                seg[j].total += q->cost_usd;
            }
    /* Keep the costliest segments, the rest become "other pools".  O(n^2) in
     * pools, which stays small next to reading the CSVs. */
    bool other = n_seg > FS__MAX_SEGMENTS;
    size_t limit = other ? FS__MAX_SEGMENTS - 1 : n_seg;
    for (size_t j = 0; j < n_seg; j++) {
        size_t larger = 0;
        for (size_t m = 0; m < n_seg; m++)
            larger += seg[m].total > seg[j].total || (seg[m].total == seg[j].total && m < j);
        seg[j].shown = larger < limit;
    }
    fs__writer w;
    int rc = fs__writer_open(&w, o, "cost_by_pool");
    if (rc) {
        free(seg);
        free(row);
        return rc;
    }
    char *title = fs__title(d->scenario, "cost by pool", NULL);
    fputs("policy,pool,price_class,cost_usd\n", w.csv);
    fputs("$data << EOD\n", w.gp);
    size_t bars = fs__min(d->n_pol, FS__MAX_LINES);
    for (size_t i = 0; i < d->n_pol; i++) {
        const fs__policy *p = &d->pol[i];
        memset(row, 0, (n_all + 1) * sizeof *row);
        double total = 0;
        for (size_t k = 0; k < p->n_pools; k++) {
            const fs__pool *q = &p->pools[k];
            fs__csv_str(w.csv, p->name);
            fputc(',', w.csv);
            fs__csv_str(w.csv, q->name);
            fputs(q->spot ? ",spot," : ",on_demand,", w.csv);
            fs__num(w.csv, q->cost_usd);
            fputc('\n', w.csv);
            size_t j = 0;
            while (!(seg[j].spot == q->spot && strcmp(seg[j].name, q->name) == 0))
                j++;
            row[seg[j].shown ? j : n_seg] += q->cost_usd;
            total += q->cost_usd;
        }
        if (i >= bars)
            continue;
        fprintf(w.gp, "%zu", i);
        for (size_t j = 0; j < n_seg; j++)
            if (seg[j].shown) {
                fputc(' ', w.gp);
                fs__num(w.gp, row[j]);
            }
        if (other) {
            fputc(' ', w.gp);
            fs__num(w.gp, row[n_seg]);
        }
        fputc(' ', w.gp);
        fs__num(w.gp, total);
        fputc('\n', w.gp);
    }
    fputs("EOD\n", w.gp);
    fs__gp_labels(w.bp, title ? title : "", "policy", "cost over the measured period (USD)");
    fputs("set style data histograms\nset style histogram rowstacked\n"
          "set style fill solid 0.9 border rgb '#404040'\nset boxwidth 0.6\nset yrange [0:*]\n"
          "set grid noxtics\nset key outside right top noenhanced title 'pools'\nset xtics (",
          w.bp);
    size_t longest = 0;
    for (size_t i = 0; i < bars; i++) {
        char shown[FS__NAME_SHOWN + 4];
        fs__shown(d->pol[i].name, shown, FS__NAME_KEY);
        fprintf(w.bp, "%s", i ? ", " : "");
        fs__gp_quote(w.bp, shown);
        fprintf(w.bp, " %zu", i);
        longest = strlen(shown) > longest ? strlen(shown) : longest;
    }
    /* Slanted labels once they would collide: about 90 characters fit across
     * the bars and their margins. */
    fprintf(w.bp, ") noenhanced%s\nplot ", (bars + 1) * (longest + 2) > 90 ? " rotate by -15" : "");
    size_t col = 2, od = 0, sp = 0;
    for (size_t j = 0; j < n_seg; j++) {
        if (!seg[j].shown)
            continue;
        char shown[FS__NAME_SHOWN + 4];
        fs__shown(seg[j].name, shown, FS__NAME_KEY);
        char *label = seg[j].spot ? fs__fmt("%s (spot)", shown) : fs__strdup(shown);
        fprintf(w.bp, "%s$data using %zu lc rgb '%s' title ", col > 2 ? ", \\\n     " : "", col,
                seg[j].spot ? fs__spot_colors[sp++ % FS__MAX_SEGMENTS]
                            : fs__on_demand_colors[od++ % FS__MAX_SEGMENTS]);
        fs__gp_quote(w.bp, label ? label : shown);
        fputs(" noenhanced", w.bp);
        free(label);
        col++;
    }
    if (other)
        fprintf(w.bp, ", \\\n     $data using %zu lc rgb '%s' title 'other pools' noenhanced", col++,
                FS__OTHER_COLOR);
    fprintf(w.bp, ", \\\n     $data using 0:%zu:(sprintf('$%%.0f', column(%zu))) with labels offset 0,0.8 notitle\n",
            col, col);
    free(seg);
    free(row);
    char *caption = fs__strdup(
        "Each bar is one policy's cost over the measured period (every provisioned GPU-hour, busy "
        "or idle, at its pool's price), stacked by pool with on-demand pools in blue and green "
        "below spot pools in orange; the figure on top is the total.");
    return fs__writer_finish(&w, o, title, caption);
}

/* 3. Fleet utilization and headroom over time. */
static int fs__chart_utilization(const fs__data *d, const fs__chart_out *o)
{
    bool any = false;
    for (size_t i = 0; i < d->n_pol; i++)
        any = any || d->pol[i].max_rep >= 0;
    if (!any || d->n_windows == 0)
        return FS_OK;
    fs__writer w;
    int rc = fs__writer_open(&w, o, "utilization");
    if (rc)
        return rc;
    char *title = fs__title(d->scenario, "fleet utilization and headroom", NULL);
    fputs("policy,hour,busy_gpus,gpus,utilization_pct,headroom_pct\n", w.csv);
    for (size_t i = 0; i < d->n_pol; i++) {
        const fs__policy *p = &d->pol[i];
        double reps = p->max_rep >= 0 ? p->max_rep + 1 : 1;
        for (size_t t = 0; t < d->n_windows; t++) {
            if (!(p->gpus[t] > 0))
                continue;
            double util = 100 * p->busy[t] / p->gpus[t];
            fs__csv_str(w.csv, p->name);
            fputc(',', w.csv);
            fs__num(w.csv, (d->warmup_s + (double)t * d->window_s) / 3600);
            fputc(',', w.csv);
            fs__num(w.csv, p->busy[t] / reps);
            fputc(',', w.csv);
            fs__num(w.csv, p->gpus[t] / reps);
            fputc(',', w.csv);
            fs__num(w.csv, util);
            fputc(',', w.csv);
            fs__num(w.csv, 100 - util);
            fputc('\n', w.csv);
        }
    }
    size_t lines = fs__min(d->n_pol, FS__MAX_LINES);
    fputs("$data << EOD\n", w.gp);
    for (size_t t = 0; t < d->n_windows; t++) {
        fs__num(w.gp, (d->warmup_s + (double)t * d->window_s) / 3600);
        for (size_t i = 0; i < lines; i++) {
            const fs__policy *p = &d->pol[i];
            double util = p->gpus[t] > 0 ? 100 * p->busy[t] / p->gpus[t] : NAN;
            fputc(' ', w.gp);
            fs__num(w.gp, util);
            fputc(' ', w.gp);
            fs__num(w.gp, 100 - util);
        }
        fputc('\n', w.gp);
    }
    fputs("EOD\n", w.gp);
    fs__gp_labels(w.bp, title ? title : "", "simulated time (hours)",
                  "share of provisioned GPUs (%)");
    fprintf(w.bp, "set xrange [%.9g:%.9g]\nset yrange [0:100]\nset key below noenhanced\nset bmargin 7\nplot ",
            d->warmup_s / 3600, d->horizon_s / 3600);
    for (size_t i = 0; i < lines; i++) {
        char shown[FS__NAME_SHOWN + 4];
        fs__shown(d->pol[i].name, shown, FS__NAME_KEY);
        char *busy = fs__fmt("%s: busy", shown), *head = fs__fmt("%s: headroom", shown);
        fprintf(w.bp, "%s$data using 1:%zu with lines lw 2 lc rgb '%s' title ", i ? ", \\\n     " : "",
                2 + 2 * i, fs__policy_colors[i]);
        fs__gp_quote(w.bp, busy ? busy : shown);
        fprintf(w.bp, " noenhanced, \\\n     $data using 1:%zu with lines dt 2 lw 1.5 lc rgb '%s' title ",
                3 + 2 * i, fs__policy_colors[i]);
        fs__gp_quote(w.bp, head ? head : shown);
        fputs(" noenhanced", w.bp);
        free(busy);
        free(head);
    }
    fputc('\n', w.bp);
    char *caption = fs__strdup(
        "Solid lines are the share of each policy's provisioned GPUs that were busy in each window "
        "(all pools together, pooled over replications); dashed lines are the headroom left, 100% "
        "minus that, so a dashed line near zero means the fleet had no spare GPUs.");
    return fs__writer_finish(&w, o, title, caption);
}

static int fs__cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* 4. Empirical CDF of training queue waits. */
static int fs__chart_cdf(fs__data *d, const fs__chart_out *o)
{
    size_t jobs = 0;
    for (size_t s = 0; s < d->n_series; s++)
        jobs += d->series[s].n;
    if (jobs == 0)
        return FS_OK;
    /* Few (policy, stream) pairs: one line each.  Otherwise one line per
     * policy with its streams pooled. */
    bool pooled = d->n_series > FS__MAX_CDF_SERIES;
    size_t n_lines = pooled ? d->n_pol : d->n_series;
    double **w_of = calloc(n_lines, sizeof *w_of);
    size_t *n_of = calloc(n_lines, sizeof *n_of);
    int rc = FS_OK;
    if (!w_of || !n_of) {
        rc = fs_error_set(o->err, FS_ERR_RUNTIME, "charts: out of memory");
        goto out;
    }
    for (size_t l = 0; l < n_lines; l++) {
        size_t n = 0;
        for (size_t s = 0; s < d->n_series; s++)
            if (pooled ? d->series[s].policy == l : s == l)
                n += d->series[s].n;
        w_of[l] = malloc((n ? n : 1) * sizeof **w_of);
        if (!w_of[l]) {
            rc = fs_error_set(o->err, FS_ERR_RUNTIME, "charts: out of memory");
            goto out;
        }
        for (size_t s = 0; s < d->n_series; s++)
            if (pooled ? d->series[s].policy == l : s == l) {
                memcpy(w_of[l] + n_of[l], d->series[s].wait_s, d->series[s].n * sizeof(double));
                n_of[l] += d->series[s].n;
            }
        qsort(w_of[l], n_of[l], sizeof(double), fs__cmp_double);
    }
    fs__writer w;
    if ((rc = fs__writer_open(&w, o, "queue_wait_cdf")))
        goto out;
    char *title = fs__title(d->scenario, "training queue wait", NULL);
    fputs("policy,stream,wait_minutes,cumulative_pct\n", w.csv);
    /* Waits often span seconds to hours (a job that found its GPUs free next
     * to one that waited for the night): past a 100x spread the axis is
     * logarithmic, with waits of 0 drawn at its left edge. */
    double xmax = 0, lo = INFINITY;
    size_t drawn = 0;
    for (size_t l = 0; l < n_lines; l++)
        for (size_t j = 0; j < n_of[l]; j++) {
            double m = w_of[l][j] / 60;
            xmax = fmax(xmax, m);
            if (m > 0)
                lo = fmin(lo, m);
        }
    bool logx = isfinite(lo) && xmax > 100 * lo;
    double floor_x = logx ? pow(10, floor(log10(lo))) : 0;
    for (size_t l = 0; l < n_lines; l++) {
        const char *policy = d->pol[pooled ? l : d->series[l].policy].name;
        if (n_of[l] == 0)
            continue;
        for (size_t j = 0; j < n_of[l]; j++) {
            fs__csv_str(w.csv, policy);
            fputc(',', w.csv);
            fs__csv_str(w.csv, pooled ? "" : d->series[l].stream); /* "" = all streams */
            fputc(',', w.csv);
            fs__num(w.csv, w_of[l][j] / 60);
            fputc(',', w.csv);
            fs__num(w.csv, 100.0 * (double)(j + 1) / (double)n_of[l]);
            fputc('\n', w.csv);
        }
        if (drawn == FS__MAX_LINES)
            continue;
        /* A step line: (w1, 0), then (wj, j/n) for every job. */
        fprintf(w.gp, "$s%zu << EOD\n", l);
        fs__num(w.gp, fmax(w_of[l][0] / 60, floor_x));
        fputs(" 0\n", w.gp);
        for (size_t j = 0; j < n_of[l]; j++) {
            fs__num(w.gp, fmax(w_of[l][j] / 60, floor_x));
            fputc(' ', w.gp);
            fs__num(w.gp, 100.0 * (double)(j + 1) / (double)n_of[l]);
            fputc('\n', w.gp);
        }
        fputs("EOD\n", w.gp);
        drawn++;
    }
    fs__gp_labels(w.bp, title ? title : "",
                  logx ? "queue wait (minutes, log scale; a wait of 0 is drawn at the left edge)"
                       : "queue wait (minutes)",
                  "training jobs that waited at most this long (%)");
    if (logx)
        fprintf(w.bp, "set logscale x\nset xrange [%.9g:%.9g]\n", floor_x, xmax * 1.5);
    else
        fprintf(w.bp, "set xrange [0:%.9g]\n", xmax > 0 ? xmax * 1.05 : 1.0);
    fputs("set yrange [0:105]\nset ytics 0,20,100\nset key below noenhanced\nset bmargin 7\nplot ", w.bp);
    drawn = 0;
    for (size_t l = 0; l < n_lines && drawn < FS__MAX_LINES; l++) {
        if (n_of[l] == 0)
            continue;
        size_t pi = pooled ? l : d->series[l].policy;
        size_t dash = 1; /* streams of one policy: one colour, distinct dashes */
        for (size_t m = 0; !pooled && m < l; m++)
            dash += d->series[m].policy == pi;
        char policy[FS__NAME_SHOWN + 4], stream[FS__NAME_SHOWN + 4];
        fs__shown(d->pol[pi].name, policy, FS__NAME_KEY);
        char *label;
        if (pooled) {
            label = fs__fmt("%s (all streams)", policy);
        } else {
            fs__shown(d->series[l].stream, stream, FS__NAME_KEY);
            label = fs__fmt("%s: %s", policy, stream);
        }
        fprintf(w.bp, "%s$s%zu using 1:2 with steps lw 2 dt %zu lc rgb '%s' title ", drawn ? ", \\\n     " : "",
                l, dash, fs__policy_colors[pi % FS__MAX_LINES]);
        fs__gp_quote(w.bp, label ? label : policy);
        fputs(" noenhanced", w.bp);
        free(label);
        drawn++;
    }
    fputc('\n', w.bp);
    char *caption = fs__fmt(
        "Each step line rises by one training job%s: read across from a share on the vertical axis "
        "to the queue wait that share of jobs did not exceed; a line further left means shorter waits.",
        pooled ? " (each line pools all of a policy's streams)" : "");
    rc = fs__writer_finish(&w, o, title, caption);
out:
    for (size_t l = 0; w_of && l < n_lines; l++)
        free(w_of[l]);
    free(w_of);
    free(n_of);
    return rc;
}

/* 5. SLO-breach heatmaps, day by hour of day, one per policy. */
static int fs__chart_breaches(const fs__data *d, const fs__chart_out *o)
{
    if (!d->any_slo || !d->have_breaches || d->first_day >= d->n_days)
        return FS_OK;
    size_t maps = fs__min(d->n_pol, FS__MAX_HEATMAPS);
    for (size_t i = 0; i < maps; i++) {
        const fs__policy *p = &d->pol[i];
        char stem[32];
        if (maps == 1)
            snprintf(stem, sizeof stem, "breach_heatmap");
        else
            snprintf(stem, sizeof stem, "breach_heatmap_%u", (unsigned)(i + 1));
        fs__writer w;
        int rc = fs__writer_open(&w, o, stem);
        if (rc)
            return rc;
        char *title = fs__title(d->scenario, "SLO-breach windows, policy", p->name);
        fputs("policy,day,hour,breached_windows\n", w.csv);
        fputs("$data << EOD\n", w.gp);
        unsigned long most = 0;
        for (size_t day = d->first_day; day < d->n_days; day++)
            for (size_t h = 0; h < 24; h++) {
                unsigned long n = p->breach[day * 24 + h];
                most = n > most ? n : most;
                fs__csv_str(w.csv, p->name);
                fprintf(w.csv, ",%zu,%zu,%lu\n", day + 1, h, n);
                fprintf(w.gp, "%zu %zu %lu\n", day + 1, h, n);
            }
        fputs("EOD\n", w.gp);
        fs__gp_labels(w.bp, title ? title : "", "day of the run (day 1 starts at time 0)",
                      "hour of day (window start)");
        size_t days = d->n_days - d->first_day;
        fprintf(w.bp,
                "set grid noxtics noytics\nset xrange [%.1f:%.1f]\nset yrange [-0.5:23.5]\n"
                "set ytics 0,3,21\n%s"
                "set cbrange [0:%lu]\nset cblabel 'breached SLO windows (all services and replications)' noenhanced\n"
                "set palette defined (0 '#ffffff', 1 '#fdd49e', 2 '#ef6548', 3 '#7f0000')\n"
                "set style fill solid 1.0 noborder\n"
                "plot $data using 1:2:($1-0.5):($1+0.5):($2-0.5):($2+0.5):3 with boxxyerror lc palette notitle\n",
                (double)d->first_day + 0.5, (double)d->n_days + 0.5, days <= 31 ? "set xtics 1\n" : "",
                most > 0 ? most : 1);
        char *caption = fs__strdup(
            "Each cell counts the SLO windows in breach that started in that hour of that day, over "
            "every service and replication of the policy; white is none, darker red is more, so a "
            "horizontal band marks a time of day that breaches every day.");
        if ((rc = fs__writer_finish(&w, o, title, caption)))
            return rc;
    }
    return FS_OK;
}

/* 6. A plan's points, cost against tail latency, and their frontier. */
static const struct {
    const char *title, *style;
} fs__verdict_marks[3] = {
    [FS_CHART_MEETS] = {"meets every constraint", "pt 7 ps 1.2 lc rgb '#2ca02c'"},
    [FS_CHART_UNSURE] = {"unsure: an interval straddles a limit", "pt 9 ps 1.4 lc rgb '#ff7f0e'"},
    [FS_CHART_FAILS] = {"fails a constraint", "pt 2 ps 1.2 lc rgb '#7f7f7f'"},
};
static const char *const fs__verdict_names[3] = {
    [FS_CHART_MEETS] = "meets", [FS_CHART_UNSURE] = "unsure", [FS_CHART_FAILS] = "fails"};

static bool fs__drawn(const fs_chart_point *p)
{
    return isfinite(p->x) && isfinite(p->y);
}

static double fs__ci(double ci)
{
    return isfinite(ci) && ci > 0 ? ci : 0;
}

/* [lo, hi] widened by 6% of its span on both sides (a zero span by 10% of
 * the value, or 1), so no mark sits on the border. */
static void fs__pad(double *lo, double *hi)
{
    double pad = *hi > *lo ? 0.06 * (*hi - *lo) : fmax(fabs(*hi) * 0.1, 1);
    *lo -= pad;
    *hi += pad;
}

static int fs__chart_frontier(const fs_frontier_chart *c, const fs__chart_out *o)
{
    /* Ranges over the drawn points and their bars.  Past a 100x spread of
     * values the vertical axis is logarithmic: a point that fails can be
     * thousands of times slower than the frontier, which would flatten it. */
    double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
    double vmin = INFINITY, vmax = -INFINITY; /* positive values only */
    for (size_t i = 0; i < c->n_points; i++) {
        const fs_chart_point *p = &c->points[i];
        if (!fs__drawn(p))
            continue;
        xlo = fmin(xlo, p->x - fs__ci(p->x_ci95));
        xhi = fmax(xhi, p->x + fs__ci(p->x_ci95));
        ylo = fmin(ylo, p->y - fs__ci(p->y_ci95));
        yhi = fmax(yhi, p->y + fs__ci(p->y_ci95));
        if (p->y > 0)
            vmin = fmin(vmin, p->y), vmax = fmax(vmax, p->y);
    }
    bool logy = isfinite(vmin) && vmax > 100 * vmin;
    bool limit = isfinite(c->y_limit) && (!logy || c->y_limit > 0);
    if (limit)
        ylo = fmin(ylo, c->y_limit), yhi = fmax(yhi, c->y_limit), vmin = fmin(vmin, c->y_limit);
    double floor_y = logy ? pow(10, floor(log10(vmin))) : 0; /* the decade below everything drawn */
    bool *front = calloc(c->n_points ? c->n_points : 1, sizeof *front);
    if (!front)
        return fs_error_set(o->err, FS_ERR_RUNTIME, "charts: out of memory");
    for (size_t k = 0; k < c->n_frontier; k++) {
        assert(c->frontier[k] < c->n_points);
        front[c->frontier[k]] = true;
    }
    fs__writer w;
    int rc = fs__writer_open(&w, o, "plan_frontier");
    if (rc) {
        free(front);
        return rc;
    }
    char *title = fs__title(c->scenario, "the plan's points and frontier", NULL);

    /* CSV: every point, with its figures under their own names. */
    fputs("point,label,verdict,", w.csv);
    const char *names[2] = {c->x_name, c->y_name};
    for (int k = 0; k < 2; k++) {
        char *ci = fs__fmt("%s_ci95", names[k]);
        fs__csv_str(w.csv, names[k]);
        fputc(',', w.csv);
        fs__csv_str(w.csv, ci ? ci : "ci95");
        fputc(',', w.csv);
        free(ci);
    }
    fputs("on_frontier,answer\n", w.csv);
    size_t drawn[3] = {0, 0, 0};
    for (size_t i = 0; i < c->n_points; i++) {
        const fs_chart_point *p = &c->points[i];
        fprintf(w.csv, "%lld,", p->id);
        fs__csv_str(w.csv, p->label);
        fprintf(w.csv, ",%s,", fs__verdict_names[p->verdict]);
        const double v[4] = {p->x, p->x_ci95, p->y, p->y_ci95};
        for (int k = 0; k < 4; k++) {
            fs__num(w.csv, v[k]);
            fputc(',', w.csv);
        }
        fprintf(w.csv, "%d,%d\n", front[i], i == c->answer);
        drawn[p->verdict] += fs__drawn(p);
    }

    /* Data: one block per verdict (x y xlow xhigh ylow yhigh), the frontier
     * in order, the answer.  On a log axis a value or a bar below its floor
     * is drawn at the floor. */
    for (int v = 0; v < 3; v++) {
        if (!drawn[v])
            continue;
        fprintf(w.gp, "$v%d << EOD\n", v);
        for (size_t i = 0; i < c->n_points; i++) {
            const fs_chart_point *p = &c->points[i];
            if (!fs__drawn(p) || (int)p->verdict != v)
                continue;
            double xc = fs__ci(p->x_ci95), yc = fs__ci(p->y_ci95);
            const double row[6] = {p->x, fmax(p->y, floor_y), p->x - xc, p->x + xc,
                                   fmax(p->y - yc, floor_y), fmax(p->y + yc, floor_y)};
            for (int k = 0; k < 6; k++) {
                fputs(k ? " " : "", w.gp);
                fs__num(w.gp, row[k]);
            }
            fputc('\n', w.gp);
        }
        fputs("EOD\n", w.gp);
    }
    size_t n_front = 0; /* a line needs two points */
    for (size_t k = 0; k < c->n_frontier; k++)
        n_front += fs__drawn(&c->points[c->frontier[k]]);
    if (n_front >= 2) {
        fputs("$front << EOD\n", w.gp);
        for (size_t k = 0; k < c->n_frontier; k++) {
            const fs_chart_point *p = &c->points[c->frontier[k]];
            if (!fs__drawn(p))
                continue;
            fs__num(w.gp, p->x);
            fputc(' ', w.gp);
            fs__num(w.gp, fmax(p->y, floor_y));
            fputc('\n', w.gp);
        }
        fputs("EOD\n", w.gp);
    }
    const fs_chart_point *ans = c->answer < c->n_points && fs__drawn(&c->points[c->answer])
                                    ? &c->points[c->answer]
                                    : NULL;
    if (ans) {
        fputs("$answer << EOD\n", w.gp);
        fs__num(w.gp, ans->x);
        fputc(' ', w.gp);
        fs__num(w.gp, fmax(ans->y, floor_y));
        fputs("\nEOD\n", w.gp);
    }

    char xl[FS__NAME_SHOWN + 4], yl[FS__NAME_SHOWN + 4];
    fs__shown(c->x_name, xl, FS__NAME_SHOWN);
    fs__shown(c->y_name, yl, FS__NAME_SHOWN);
    char *ylabel = fs__fmt("%s%s", yl, logy ? " (log scale)" : "");
    fs__gp_labels(w.bp, title ? title : "", xl, ylabel ? ylabel : yl);
    free(ylabel);
    fs__pad(&xlo, &xhi);
    if (logy) {
        fprintf(w.bp, "set logscale y\nset yrange [%.9g:%.9g]\n", floor_y, yhi * 1.5);
    } else {
        fs__pad(&ylo, &yhi);
        fprintf(w.bp, "set yrange [%.9g:%.9g]\n", ylo, yhi);
    }
    /* The legend below the plot, one entry a row (the answer's label is
     * long): a bottom margin of the axis label plus a row per entry. */
    int entries = (n_front >= 2) + limit + (drawn[0] > 0) + (drawn[1] > 0) + (drawn[2] > 0) + (ans != NULL);
    fprintf(w.bp, "set xrange [%.9g:%.9g]\nset key below noenhanced\nset bmargin %d\nplot ", xlo, xhi,
            4 + entries);
    const char *sep = "";
    if (n_front >= 2) {
        fputs("$front using 1:2 with lines lw 1.5 lc rgb '#404040' title 'frontier, cheapest first' noenhanced",
              w.bp);
        sep = ", \\\n     ";
    }
    if (limit) {
        char shown[FS__NAME_SHOWN + 4];
        fs__shown(c->limit_text ? c->limit_text : "", shown, FS__NAME_TITLE);
        char *key = fs__fmt("limit: %s", shown);
        fprintf(w.bp, "%s%.9g with lines dt 2 lw 2 lc rgb '%s' title ", sep, c->y_limit, FS__SLO_COLOR);
        fs__gp_quote(w.bp, key ? key : "limit");
        fputs(" noenhanced", w.bp);
        free(key);
        sep = ", \\\n     ";
    }
    for (int v = 0; v < 3; v++) {
        if (!drawn[v])
            continue;
        fprintf(w.bp, "%s$v%d using 1:2:3:4:5:6 with xyerrorbars %s title '%s' noenhanced", sep, v,
                fs__verdict_marks[v].style, fs__verdict_marks[v].title);
        sep = ", \\\n     ";
    }
    if (ans) {
        char shown[FS__NAME_SHOWN + 4];
        fs__shown(ans->label, shown, FS__NAME_SHOWN);
        char *key = fs__fmt("answer: point %lld, %s", ans->id, shown);
        fprintf(w.bp, "%s$answer using 1:2 with points pt 6 ps 3 lw 2 lc rgb '#000000' title ", sep);
        fs__gp_quote(w.bp, key ? key : "answer");
        fputs(" noenhanced", w.bp);
        free(key);
    }
    fputc('\n', w.bp);
    free(front);
    char *caption = fs__fmt(
        "Each mark is one point the plan judged, at its minimized figure (across) and its frontier "
        "figure (up), with 95%% confidence bars: green circles meet every constraint, orange "
        "triangles stayed unsure and grey crosses fail one%s%s%s%s.",
        n_front >= 2 ? "; the dark line joins the frontier, the points that no cheaper point beats "
                       "on the vertical figure, cheapest first"
                     : "",
        ans ? "; the ringed point is the answer, the cheapest that meets every constraint" : "",
        limit ? "; the dashed red line is a constraint's limit on the vertical figure" : "",
        logy ? "; the vertical axis is logarithmic, since the values span more than two decades" : "");
    return fs__writer_finish(&w, o, title, caption);
}

/* ------------------------------------------------------------ render */

/* Starts gnuplot for every chart at once (fork + execvp, in out_dir, output
 * to STEM.log), then waits for each.  A CLOEXEC pipe tells an exec failure
 * (gnuplot not found) from gnuplot itself failing.  Only failing to create a
 * log file is an error; everything else leaves the chart unrendered. */
static int fs__render(const char *dir, fs_chart_set *set, fs_error *err)
{
    pid_t pid[FS_CHARTS_MAX];
    int pipe_rd[FS_CHARTS_MAX];
    int rc = FS_OK;
    for (size_t c = 0; c < set->n; c++)
        pid[c] = -1, pipe_rd[c] = -1; /* so a failed start still waits for the others */
    int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    for (size_t c = 0; c < set->n; c++) {
        char *log_path = fs__fmt("%s/%s.log", dir, set->charts[c].stem);
        if (!log_path) {
            rc = fs_error_set(err, FS_ERR_RUNTIME, "charts: out of memory");
            break;
        }
        int log = open(log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (log < 0) {
            rc = fs_error_set(err, FS_ERR_RUNTIME, "%s: cannot write: %s", log_path, strerror(errno));
            free(log_path);
            break;
        }
        free(log_path);
        int fds[2];
        if (pipe(fds) != 0) {
            close(log);
            continue; /* out of descriptors: not rendered */
        }
        fcntl(fds[0], F_SETFD, FD_CLOEXEC);
        fcntl(fds[1], F_SETFD, FD_CLOEXEC);
        char script[sizeof set->charts[c].stem + 3];
        snprintf(script, sizeof script, "%s.gp", set->charts[c].stem);
        char prog[] = "gnuplot";
        char *argv[] = {prog, script, NULL};
        pid_t child = fork();
        if (child == 0) {
            /* Only async-signal-safe calls from here to exec. */
            int why[2] = {0, 0};
            if (devnull >= 0)
                dup2(devnull, 0);
            dup2(log, 1);
            dup2(log, 2);
            if (chdir(dir) != 0) {
                why[0] = 1, why[1] = errno;
            } else {
                execvp(prog, argv);
                why[0] = 2, why[1] = errno;
            }
            ssize_t unused = write(fds[1], why, sizeof why);
            (void)unused;
            _exit(127);
        }
        close(log);
        close(fds[1]);
        if (child < 0) {
            close(fds[0]);
            continue;
        }
        pid[c] = child;
        pipe_rd[c] = fds[0];
    }
    for (size_t c = 0; c < set->n; c++) {
        if (pid[c] < 0)
            continue;
        int why[2] = {0, 0};
        ssize_t got;
        do
            got = read(pipe_rd[c], why, sizeof why);
        while (got < 0 && errno == EINTR);
        close(pipe_rd[c]);
        int status;
        pid_t r;
        do
            r = waitpid(pid[c], &status, 0);
        while (r < 0 && errno == EINTR);
        if (got != (ssize_t)sizeof why) /* the exec succeeded: gnuplot exists */
            set->gnuplot_found = true;
        if (got == (ssize_t)sizeof why || r != pid[c] || !WIFEXITED(status) ||
            WEXITSTATUS(status) != 0)
            continue;
        bool ok = true;
        for (int k = 0; k < 2 && ok; k++) {
            char *img = fs__fmt("%s/%s.%s", dir, set->charts[c].stem, k ? "svg" : "png");
            struct stat st;
            ok = img && stat(img, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
            free(img);
        }
        set->charts[c].rendered = ok;
    }
    if (devnull >= 0)
        close(devnull);
    set->gnuplot_ran = set->gnuplot_found && set->n > 0;
    for (size_t c = 0; c < set->n; c++)
        set->gnuplot_ran = set->gnuplot_ran && set->charts[c].rendered;
    return rc;
}

/* mkdir -p. */
static int fs__mkdirs(const char *dir, fs_error *err)
{
    char *p = fs__strdup(dir);
    if (!p)
        return fs_error_set(err, FS_ERR_RUNTIME, "charts: out of memory");
    for (char *s = p + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        mkdir(p, 0777); /* errors show at the last component */
        *s = '/';
    }
    int rc = FS_OK;
    struct stat st;
    if (mkdir(p, 0777) != 0 && !(errno == EEXIST && stat(p, &st) == 0 && S_ISDIR(st.st_mode)))
        rc = fs_error_set(err, FS_ERR_RUNTIME, "%s: cannot create directory: %s", dir,
                          strerror(errno == EEXIST ? ENOTDIR : errno));
    free(p);
    return rc;
}

/* Renders every chart of *set in out_dir and sets the hint that renders them
 * by hand. */
static int fs__render_set(const char *out_dir, fs_chart_set *set, fs_error *err)
{
    int rc = fs__render(out_dir, set, err);
    if (rc)
        return rc;
    size_t len = sizeof "gnuplot";
    for (size_t c = 0; c < set->n; c++)
        len += strlen(set->charts[c].stem) + 4;
    set->render_hint = malloc(len);
    if (!set->render_hint)
        return fs_error_set(err, FS_ERR_RUNTIME, "charts: out of memory");
    strcpy(set->render_hint, "gnuplot");
    for (size_t c = 0; c < set->n; c++) {
        strcat(set->render_hint, " ");
        strcat(set->render_hint, set->charts[c].stem);
        strcat(set->render_hint, ".gp");
    }
    return FS_OK;
}

int fs_charts_write(const char *results_dir, const char *out_dir, fs_chart_set *out,
                    fs_error *err)
{
    assert(results_dir && out_dir && out);
    memset(out, 0, sizeof *out);
    fs__data d = {.dir = results_dir};
    fs__chart_out o = {.dir = out_dir, .set = out, .err = err};
    int rc;
    if ((rc = fs__load_json(&d, err)) ||
        (rc = fs__csv_read(&d, "timeseries.csv", fs__ts_cols, 6, fs__ts_row, false, NULL, err)) ||
        (rc = fs__csv_read(&d, "pools_timeseries.csv", fs__pool_cols, 7, fs__pool_row, false, NULL,
                           err)) ||
        (rc = fs__csv_read(&d, "training_waits.csv", fs__wait_cols, 4, fs__wait_row, true,
                           &d.have_waits, err)) ||
        (rc = fs__csv_read(&d, "slo_breaches.csv", fs__breach_cols, 4, fs__breach_row, true,
                           &d.have_breaches, err)))
        goto out;
    if ((rc = fs__mkdirs(out_dir, err)) || (rc = fs__chart_p99(&d, &o)) ||
        (rc = fs__chart_cost(&d, &o)) || (rc = fs__chart_utilization(&d, &o)) ||
        (rc = fs__chart_cdf(&d, &o)) || (rc = fs__chart_breaches(&d, &o)))
        goto out;
    rc = fs__render_set(out_dir, out, err);
out:
    fs__data_fini(&d);
    if (rc)
        fs_charts_free(out);
    return rc;
}

int fs_charts_write_frontier(const fs_frontier_chart *plan, const char *out_dir, fs_chart_set *out,
                             fs_error *err)
{
    assert(plan && out_dir && out);
    memset(out, 0, sizeof *out);
    fs__chart_out o = {.dir = out_dir, .set = out, .err = err};
    bool any = false;
    for (size_t i = 0; i < plan->n_points && !any; i++)
        any = isfinite(plan->points[i].x) && isfinite(plan->points[i].y);
    if (!any)
        return FS_OK;
    int rc;
    if ((rc = fs__mkdirs(out_dir, err)) || (rc = fs__chart_frontier(plan, &o)) ||
        (rc = fs__render_set(out_dir, out, err)))
        fs_charts_free(out);
    return rc;
}

void fs_charts_free(fs_chart_set *set)
{
    if (!set)
        return;
    for (size_t c = 0; c < set->n; c++) {
        free(set->charts[c].title);
        free(set->charts[c].caption);
    }
    free(set->render_hint);
    memset(set, 0, sizeof *set);
}

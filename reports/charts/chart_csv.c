/*
 * chart_csv — the CSV time series streamed through libcsv into the
 * accumulators of fs__data: one pass per file, columns found by header name,
 * every record checked for its field count, numbers and policy.
 */
#include <assert.h>
#include <csv.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart_internal.h"
#include "number.h"

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

/* A cell as a decimal number (number.h).  fleetsim wrote these files with
 * %.9g, but `fleetsim report DIR` reads whatever DIR holds, edited by hand
 * or not: "0x10", "inf", "nan" or " 5" is refused, never read as a figure. */
static int fs__csv_number(fs__csv *c, size_t k, double *out)
{
    const char *s = fs__csv_get(c, k);
    double v = NAN;
    *out = NAN; /* set on every path, as the callers' compilers want to see */
    if (fs_number_parse(s, &v) != 0) {
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
        (rc = fs__csv_number(c, 4, &completed)))
        return rc;
    /* A window without completions has no p99 (an empty cell; 0 from older
     * writers): no data, not a fast window. */
    if (!(completed > 0))
        return FS_OK;
    if ((rc = fs__csv_number(c, 5, &p99)))
        return rc;
    if (!isfinite(p99) || !isfinite(start) || start < d->warmup_s)
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

/* llm_timeseries.csv: the charted LLM service's window TTFT and TPOT p99
 * into time-of-day bins, its KV occupancy per window.  An empty cell is no
 * data (a window without a first token, or without a ready replica). */
static const fs__col fs__llm_cols[] = {
    {"policy", true},      {"service", true},      {"window_start_s", true},
    {"ttft_p99_ms", true}, {"tpot_p99_ms", true}, {"kv_occupancy", true}};

/* Column k as a number, or NaN when its cell is empty. */
static int fs__csv_maybe(fs__csv *c, size_t k, double *out)
{
    *out = NAN;
    return *fs__csv_get(c, k) ? fs__csv_number(c, k, out) : FS_OK;
}

static int fs__llm_row(fs__csv *c)
{
    fs__data *d = c->d;
    if (strcmp(fs__csv_get(c, 1), d->llm) != 0)
        return FS_OK;
    size_t pi = 0;
    double start, ttft, tpot, kv;
    int rc;
    if ((rc = fs__csv_policy(c, 0, &pi)) || (rc = fs__csv_number(c, 2, &start)) ||
        (rc = fs__csv_maybe(c, 3, &ttft)) || (rc = fs__csv_maybe(c, 4, &tpot)) || (rc = fs__csv_maybe(c, 5, &kv)))
        return rc;
    double w = floor((start - d->warmup_s) / d->window_s + 1e-6);
    if (!(w >= 0 && w < (double)d->n_windows))
        return fs_error_set(c->err, FS_ERR_INPUT,
                            "%s: row %zu: window_start_s %.9g is outside the run [%.9g, %.9g)",
                            c->path, c->row, start, d->warmup_s, d->horizon_s);
    fs__policy *p = &d->pol[pi];
    size_t bin = (size_t)floor(fmod(start, FS__DAY_S) / d->bin_s);
    if (bin >= d->n_bins)
        bin = d->n_bins - 1;
    if (isfinite(ttft)) {
        p->ttft_sum[bin] += ttft;
        p->ttft_n[bin]++;
    }
    if (isfinite(tpot)) {
        p->tpot_sum[bin] += tpot;
        p->tpot_n[bin]++;
    }
    if (isfinite(kv)) {
        p->kv_sum[(size_t)w] += kv;
        p->kv_n[(size_t)w]++;
    }
    return FS_OK;
}

int fs__load_csvs(fs__data *d, fs_error *err)
{
    int rc;
    if ((rc = fs__csv_read(d, "timeseries.csv", fs__ts_cols, 6, fs__ts_row, false, NULL, err)) ||
        (rc = fs__csv_read(d, "pools_timeseries.csv", fs__pool_cols, 7, fs__pool_row, false, NULL,
                           err)) ||
        (rc = fs__csv_read(d, "training_waits.csv", fs__wait_cols, 4, fs__wait_row, true,
                           &d->have_waits, err)) ||
        (rc = fs__csv_read(d, "slo_breaches.csv", fs__breach_cols, 4, fs__breach_row, true,
                           &d->have_breaches, err)) ||
        (d->llm && (rc = fs__csv_read(d, "llm_timeseries.csv", fs__llm_cols, 6, fs__llm_row, true, NULL, err))))
        return rc;
    return FS_OK;
}

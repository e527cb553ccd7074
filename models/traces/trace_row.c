/*
 * trace_row — the one row path of the trace reader (trace_read.h), whatever
 * the format: a row's fields as text, the header's columns, the filters,
 * the queue, and the conversion of a queued row into an fs_trace_row
 * (times, sizes, GPU counts, priorities, prefixes; bad rows).
 */
#include "trace_read.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "number.h"

/* ---- buffers and failures ------------------------------------------------ */

bool fs__trace_reserve(void **p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return true;
    size_t n = *cap ? *cap : 64;
    while (n < need)
        n *= 2;
    void *q = realloc(*p, n * size);
    if (q == NULL)
        return false;
    *p = q;
    *cap = n;
    return true;
}

uint32_t fs__trace_append(trace_buf *b, const char *s, size_t len)
{
    if (b->len + len + 1 >= FIELD_NONE || !fs__trace_reserve((void **)&b->data, &b->cap, b->len + len + 1, 1))
        return FIELD_NONE;
    uint32_t at = (uint32_t)b->len;
    memcpy(b->data + b->len, s, len);
    b->data[b->len + len] = '\0';
    b->len += len + 1;
    return at;
}

void fs__trace_failed(fs_trace *t, int code, const char *fmt, ...)
{
    if (t->failed)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->fail.msg, sizeof t->fail.msg, fmt, ap);
    va_end(ap);
    t->fail.code = code;
    t->failed = code;
}

int fs__trace_report(const fs_trace *t, fs_error *err)
{
    if (err)
        *err = t->fail;
    return -1;
}

bool fs__trace_is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* ---- a row's fields, the header, the filters, the queue ------------------- */

bool fs__trace_field(fs_trace *t, size_t i, const char *s, size_t len, bool trim)
{
    while (trim && len > 0 && fs__trace_is_space(*s))
        s++, len--;
    while (trim && len > 0 && fs__trace_is_space(s[len - 1]))
        len--;
    uint32_t at = fs__trace_append(&t->cur, s, len);
    if (at == FIELD_NONE || !fs__trace_reserve((void **)&t->cur_field, &t->cur_cap, i + 1, sizeof *t->cur_field)) {
        fs__trace_failed(t, FS_ERR_RUNTIME, "%s: out of memory reading line %llu", t->path,
                         (unsigned long long)t->cur_line);
        return false;
    }
    t->cur_field[i] = at;
    if (i == t->cur_n)
        t->cur_n++;
    return true;
}

/* The row being parsed, its fields joined by commas, into out (size
 * bytes); trace_bad cuts it to TRACE_ECHO bytes. */
static void trace_echo_row(const fs_trace *t, char *out, size_t size)
{
    size_t n = 0;
    out[0] = '\0';
    for (size_t i = 0; i < t->cur_n && n + 1 < size; i++)
        n += (size_t)snprintf(out + n, size - n, "%s%s", i ? "," : "", t->cur.data + t->cur_field[i]);
}

/* Column `name`'s field index in the header row into *index: it must be
 * there, once (of two equal names neither is more the column than the
 * other).  False, the trace failed, when it is not. */
static bool trace_find_column(fs_trace *t, const char *name, int *index)
{
    *index = -1;
    for (size_t i = 0; i < t->cur_n; i++) {
        if (strcmp(t->cur.data + t->cur_field[i], name) != 0)
            continue;
        if (*index >= 0) {
            fs__trace_failed(t, FS_ERR_INPUT, "%s:%llu: column \"%s\" is named twice (fields %d and %zu)", t->path,
                             (unsigned long long)t->cur_line, name, *index + 1, i + 1);
            return false;
        }
        *index = (int)i;
    }
    if (*index >= 0)
        return true;
    char names[768] = "";
    size_t n = 0;
    for (size_t i = 0; i < t->cur_n && n < sizeof names; i++)
        n += (size_t)snprintf(names + n, sizeof names - n, "%s%s", i ? ", " : "", t->cur.data + t->cur_field[i]);
    fs__trace_failed(t, FS_ERR_INPUT, "%s: no column \"%s\" (columns: %s)", t->path, name, names);
    return false;
}

void fs__trace_header(fs_trace *t)
{
    t->header_fields = t->cur_n;
    for (int c = 0; c < NCOLS; c++)
        if (t->col[c] != NULL && !trace_find_column(t, t->col[c], &t->index[c]))
            return;
    for (size_t w = 0; w < t->n_where; w++)
        if (!trace_find_column(t, t->where[w].col, &t->where_index[w]))
            return;
}

/* Whether the row being parsed passes every filter.  A row too short to
 * have a filter's column, or holding a nested JSON value, passes: it is a
 * bad row, which converting it reports. */
static bool trace_row_wanted(const fs_trace *t)
{
    if (t->cur_nested)
        return true;
    for (size_t w = 0; w < t->n_where; w++) {
        if ((size_t)t->where_index[w] >= t->cur_n)
            continue;
        const char *f = t->cur.data + t->cur_field[t->where_index[w]];
        bool any = false;
        for (size_t v = 0; v < t->where[w].n_values && !any; v++)
            any = strcmp(f, t->where[w].values[v]) == 0;
        if (!any)
            return false;
    }
    return true;
}

static bool trace_time_parse(fs_trace_time_format format, const char *s, trace_time *out);

/* The time origin, and a dropped row's part in a repeat's period (first
 * pass): both come from every row whose time reads, dropped by the filters
 * or not, so that services split from one trace by filters share its clock. */
static void trace_clock(fs_trace *t, bool kept)
{
    int i = t->index[COL_TIME];
    trace_time at;
    if (t->pass > 0 || (t->have_origin && (kept || !t->repeat)) || (size_t)i >= t->cur_n || t->cur_nested ||
        !trace_time_parse(t->format, t->cur.data + t->cur_field[i], &at))
        return;
    if (!t->have_origin) {
        t->origin = at;
        t->have_origin = true;
    }
    if (!kept && t->repeat) {
        double r = fs__trace_time_diff(t->format, at, t->origin) / t->rate_scale + t->shift_s;
        t->dropped_last = t->dropped_timed++ ? fmax(t->dropped_last, r) : r;
    }
}

void fs__trace_take(fs_trace *t)
{
    bool kept = trace_row_wanted(t);
    trace_clock(t, kept);
    if (!kept) {
        t->filtered++;
        return;
    }
    if (!fs__trace_reserve((void **)&t->q, &t->q_cap, t->q_n + 1, sizeof *t->q))
        goto nomem;
    trace_qrow *r = &t->q[t->q_n];
    r->line = t->cur_line;
    r->nfields = (uint32_t)t->cur_n;
    r->echo = FIELD_NONE;
    r->nested = t->cur_nested;
    bool short_row = false;
    for (int c = 0; c < NCOLS; c++) {
        r->field[c] = FIELD_NONE;
        if (t->index[c] < 0 || t->cur_nested)
            continue;
        if ((size_t)t->index[c] >= t->cur_n) {
            short_row = true;
            continue;
        }
        const char *f = t->cur.data + t->cur_field[t->index[c]];
        if ((r->field[c] = fs__trace_append(&t->q_text, f, strlen(f))) == FIELD_NONE)
            goto nomem;
    }
    if (short_row || t->cur_nested) {
        char echo[TRACE_ECHO + 2];
        if (t->cur_nested)
            snprintf(echo, sizeof echo, "%s", t->cur.data + t->cur_echo);
        else
            trace_echo_row(t, echo, sizeof echo);
        if ((r->echo = fs__trace_append(&t->q_text, echo, strlen(echo))) == FIELD_NONE)
            goto nomem;
    }
    t->q_n++;
    return;
nomem:
    fs__trace_failed(t, FS_ERR_RUNTIME, "%s: out of memory reading line %llu", t->path,
                     (unsigned long long)t->cur_line);
}

/* ---- converting a row ---------------------------------------------------- */

/* A bad row: with `lenient` it is counted and 0 returned, otherwise err says
 * "PATH:LINE: what, got "text"" and -1 is returned. */
static int trace_bad(fs_trace *t, uint64_t line, const char *got, fs_error *err, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static int trace_bad(fs_trace *t, uint64_t line, const char *got, fs_error *err, const char *fmt, ...)
{
    if (t->lenient) {
        t->skipped++;
        return 0;
    }
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    size_t n = strlen(got);
    fs_error_set(err, FS_ERR_INPUT, "%s:%llu: %s, got \"%.*s%s\"", t->path, (unsigned long long)line, what,
                 (int)(n > TRACE_ECHO ? TRACE_ECHO : n), got, n > TRACE_ECHO ? "..." : "");
    return -1;
}

/* A whole field as a finite decimal number (number.h: no hex, "inf" or
 * "nan", which strtod would take). */
static bool trace_number(const char *s, double *out)
{
    return fs_number_parse(s, out) == 0;
}

/* n decimal digits at *p (advancing it) into *out. */
static bool trace_digits(const char **p, int n, int *out)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        char c = (*p)[i];
        if (c < '0' || c > '9')
            return false;
        v = v * 10 + (c - '0');
    }
    *p += n;
    *out = v;
    return true;
}

/* Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar (Howard
 * Hinnant's days_from_civil): pure arithmetic, where timegm is not standard
 * C and mktime would read the local time zone. */
static int64_t trace_days_from_civil(int64_t y, int m, int d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static int trace_month_days(int y, int m)
{
    static const int days[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return days[m - 1] + (m == 2 && leap);
}

/* YYYY-MM-DD[ T]HH:MM:SS[.fraction][Z], UTC.  Second 60 (a leap second) is
 * taken as the next minute's first. */
static bool trace_datetime(const char *s, trace_time *out)
{
    int y, mo, d, h, mi, sec;
    const char *p = s;
    bool ok = trace_digits(&p, 4, &y) && *p++ == '-' && trace_digits(&p, 2, &mo) && *p++ == '-' &&
              trace_digits(&p, 2, &d) && (*p == ' ' || *p == 'T') && (p++, trace_digits(&p, 2, &h)) &&
              *p++ == ':' && trace_digits(&p, 2, &mi) && *p++ == ':' && trace_digits(&p, 2, &sec);
    if (!ok || mo < 1 || mo > 12 || d < 1 || d > trace_month_days(y, mo) || h > 23 || mi > 59 || sec > 60)
        return false;
    double rest = 0;
    if (*p == '.') {
        const char *f = p++;
        if (*p < '0' || *p > '9')
            return false;
        while (*p >= '0' && *p <= '9')
            p++;
        rest = strtod(f, NULL); /* only ".digits" is there: strtod reads exactly that */
    }
    if (*p == 'Z')
        p++;
    if (*p != '\0')
        return false;
    out->whole = trace_days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec;
    out->rest = rest;
    return true;
}

static bool trace_time_parse(fs_trace_time_format format, const char *s, trace_time *out)
{
    if (format == FS_TRACE_TIME_DATETIME)
        return trace_datetime(s, out);
    out->whole = 0;
    return trace_number(s, &out->rest);
}

double fs__trace_time_diff(fs_trace_time_format format, trace_time a, trace_time b)
{
    double d = (double)(a.whole - b.whole) + (a.rest - b.rest);
    switch (format) {
    case FS_TRACE_TIME_MS:
        return d * 1e-3;
    case FS_TRACE_TIME_US:
        return d * 1e-6;
    default:
        return d;
    }
}

static const char *trace_format_name(fs_trace_time_format format)
{
    switch (format) {
    case FS_TRACE_TIME_MS:
        return "a number of milliseconds";
    case FS_TRACE_TIME_US:
        return "a number of microseconds";
    case FS_TRACE_TIME_DATETIME:
        return "a datetime YYYY-MM-DD HH:MM:SS[.fraction]";
    default:
        return "a number of seconds";
    }
}

/* A GPU count: any number >= 0, rounded up (a fractional GPU is a whole one
 * to a scheduler that places gangs), and at least 1.  Zero reads as 1
 * because both shipped job traces list 0-GPU rows (Alibaba's CPU-only pods,
 * 184 Philly jobs) that a strict reader would refuse at their first line,
 * and a fleet of GPUs has no other place to run them; a trace whose 0-GPU
 * rows should not run at all must be filtered before it is replayed. */
static bool trace_gpus(const char *s, uint32_t *out)
{
    double v;
    if (!trace_number(s, &v) || v < 0 || v > (double)UINT32_MAX)
        return false;
    *out = v <= 1 ? 1 : (uint32_t)ceil(v);
    return true;
}

/* A token count: a whole number >= 0; above 2^32 - 1 it is 2^32 - 1, more
 * than any prompt has (prompts are clipped at 4e9 tokens). */
static bool trace_count(const char *s, uint32_t *out)
{
    double v;
    if (!trace_number(s, &v) || v < 0 || v != floor(v))
        return false;
    *out = v >= (double)UINT32_MAX ? UINT32_MAX : (uint32_t)v;
    return true;
}

/* The rank of a priority string: the order of first appearance. */
static bool trace_priority_rank(fs_trace *t, const char *s, double *out)
{
    size_t i = 0;
    while (i < t->npriority && strcmp(t->priority[i], s) != 0)
        i++;
    if (i == t->npriority) {
        if (i == TRACE_MAX_PRIORITIES || (t->priority[i] = strdup(s)) == NULL)
            return false;
        t->npriority++;
    }
    *out = (double)i;
    return true;
}

int fs__trace_convert(fs_trace *t, const trace_qrow *q, fs_trace_row *row, fs_error *err)
{
    if (q->nested)
        return trace_bad(t, q->line, t->q_text.data + q->echo, err,
                         "%s holds a JSON object or array, not a text or a number", q->nested);
    const char *f[NCOLS];
    for (int c = 0; c < NCOLS; c++) {
        f[c] = q->field[c] == FIELD_NONE ? NULL : t->q_text.data + q->field[c];
        if (t->index[c] >= 0 && f[c] == NULL)
            return trace_bad(t, q->line, t->q_text.data + q->echo, err,
                             "%u fields, but column \"%s\" is field %d of %zu", q->nfields, t->col[c],
                             t->index[c] + 1, t->header_fields);
    }
    fs_trace_row r = {.line = q->line};
    trace_time start, end;
    if (!trace_time_parse(t->format, f[COL_TIME], &start))
        return trace_bad(t, q->line, f[COL_TIME], err, "%s is not %s", t->col[COL_TIME],
                         trace_format_name(t->format));
    for (int i = 0; i < 2; i++)
        if (f[COL_SIZE0 + i] && (!trace_number(f[COL_SIZE0 + i], &r.size[i]) || r.size[i] < 0))
            return trace_bad(t, q->line, f[COL_SIZE0 + i], err, "%s is not a number >= 0",
                             t->col[COL_SIZE0 + i]);
    /* An empty identity is no prefix, and then its token cell may be empty. */
    bool prefixed = f[COL_PREFIX] && f[COL_PREFIX][0] != '\0';
    if ((prefixed || (f[COL_PREFIX_TOKENS] && f[COL_PREFIX_TOKENS][0] != '\0')) &&
        !trace_count(f[COL_PREFIX_TOKENS], &r.prefix_tokens))
        return trace_bad(t, q->line, f[COL_PREFIX_TOKENS], err, "%s is not a whole number of tokens >= 0",
                         t->col[COL_PREFIX_TOKENS]);
    if (f[COL_GPUS] && !trace_gpus(f[COL_GPUS], &r.gpus))
        return trace_bad(t, q->line, f[COL_GPUS], err, "%s is not a GPU count >= 0", t->col[COL_GPUS]);
    if (f[COL_DURATION] && (!trace_number(f[COL_DURATION], &r.duration_s) || r.duration_s < 0))
        return trace_bad(t, q->line, f[COL_DURATION], err, "%s is not a number of seconds >= 0",
                         t->col[COL_DURATION]);
    if (f[COL_END]) {
        if (!trace_time_parse(t->format, f[COL_END], &end))
            return trace_bad(t, q->line, f[COL_END], err, "%s is not %s", t->col[COL_END],
                             trace_format_name(t->format));
        /* Durations, given or derived, are not divided by the rate scale: a
         * job's work is what it is; the scale changes how often jobs come. */
        if ((r.duration_s = fs__trace_time_diff(t->format, end, start)) < 0)
            return trace_bad(t, q->line, f[COL_END], err, "%s is before %s (%s)", t->col[COL_END],
                             t->col[COL_TIME], f[COL_TIME]);
    }
    r.tenant = f[COL_TENANT];
    r.priority_text = f[COL_PRIORITY];

    /* The origin is set: by this row, or by an earlier one whose time read
     * (fs__trace_take).  The first row kept goes no earlier than the origin,
     * as if that row had been the one before it. */
    r.t = fs__trace_time_diff(t->format, start, t->origin) / t->rate_scale + t->shift_s + (double)t->pass * t->period;
    double before = t->have_prev ? t->prev_t : t->shift_s;
    r.t_written = r.t;
    if (r.t < before) {
        if (before - r.t > t->tolerance_s)
            return trace_bad(t, q->line, f[COL_TIME], err,
                             "%s goes back %.6g s in the replay, more than the tolerance of %g s "
                             "(a stream cannot be reordered: sort the file by time, or raise the tolerance)",
                             t->col[COL_TIME], before - r.t, t->tolerance_s);
        r.t = before;
    }
    /* Last, so that a row refused for anything else takes no rank and no key. */
    if (f[COL_PRIORITY] && !trace_number(f[COL_PRIORITY], &r.priority) &&
        !trace_priority_rank(t, f[COL_PRIORITY], &r.priority))
        return trace_bad(t, q->line, f[COL_PRIORITY], err, "%s has more than %d distinct texts",
                         t->col[COL_PRIORITY], TRACE_MAX_PRIORITIES);
    if (!prefixed) {
        r.prefix_tokens = 0;
    } else {
        int rc = fs_intern_key(&t->prefixes, f[COL_PREFIX], strlen(f[COL_PREFIX]), &r.prefix_key);
        if (rc == ERANGE)
            return trace_bad(t, q->line, f[COL_PREFIX], err, "%s has more than %" PRIu32 " distinct identities",
                             t->col[COL_PREFIX], t->prefixes.max);
        if (rc != 0) {
            fs_error_set(err, FS_ERR_RUNTIME, "%s:%llu: out of memory for prefix identities", t->path,
                         (unsigned long long)q->line);
            return -1;
        }
    }

    t->prev_t = r.t;
    t->have_prev = true;
    t->pass_rows++;
    *row = r;
    return 1;
}

/* The offset between passes of a repeat: the first pass's span plus its
 * mean gap, so the next pass starts one typical gap after the last row.  The
 * span and the gap are the whole file's: its rows kept and its rows dropped
 * by the filters whose time reads, so that every service split from one
 * trace by filters repeats it on the same period.  A pass of one row, or of
 * rows all at one time, has no gap to average: it repeats every second of
 * trace time. */
double fs__trace_period(const fs_trace *t)
{
    double last = t->dropped_timed ? fmax(t->prev_t, t->dropped_last) : t->prev_t;
    double span = last - t->shift_s; /* the origin is at shift_s */
    uint64_t n = t->pass_rows + t->dropped_timed;
    double gap = n > 1 && span > 0 ? span / (double)(n - 1) : 1.0 / t->rate_scale;
    return span + gap;
}

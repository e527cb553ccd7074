/*
 * trace — CSV traces read as a stream (see trace.h).
 *
 * The pipeline: fread fills a 64 KiB chunk; csv_parse (libcsv) is fed 4 KiB
 * slices of it and calls back once per field and once per row; the field
 * callback collects one row's fields, the row callback copies the fields the
 * spec names into a queue; fs_trace_next converts queued rows one at a time
 * and parses more only when the queue is empty.  Parsing in slices bounds
 * what one refill can queue (a 4 KiB slice holds at most ~2,000 rows), so
 * memory is a chunk, a slice's rows and the longest row, whatever the
 * file's length.
 *
 * Rows are queued as text and converted in fs_trace_next, not in the
 * callbacks, because conversion is where errors are reported, and a bad row
 * must surface only after the good rows before it have been handed out.
 */
#include "trace.h"

#include <csv.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "intern.h"
#include "number.h"

enum {
    TRACE_CHUNK = 64 * 1024,   /* bytes per fread */
    TRACE_SLICE = 4 * 1024,    /* bytes per csv_parse */
    TRACE_MAX_PRIORITIES = 256, /* distinct priority strings a trace may use */
    TRACE_ECHO = 80,           /* bytes of a field or row quoted in a message */
    /* Bytes in one field: a time, a count or a tenant's name is tens of
     * bytes, a quoted note a few KiB; without a cap a file with no line
     * breaks, or an unclosed quote, would be buffered whole as one field. */
    TRACE_MAX_FIELD = 1024 * 1024
};

/* The columns a spec can name, in the order of fs_trace_spec. */
enum trace_col {
    COL_TIME, COL_SIZE0, COL_SIZE1, COL_PREFIX, COL_PREFIX_TOKENS, COL_GPUS, COL_DURATION, COL_END, COL_PRIORITY,
    COL_TENANT, NCOLS
};

#define FIELD_NONE UINT32_MAX

/* A row waiting in the queue: where its named fields sit in the queue's text
 * (FIELD_NONE when the row is too short to have one), and, for a short row,
 * the row itself as an echo for the message. */
typedef struct trace_qrow {
    uint64_t line;
    uint32_t nfields;
    uint32_t echo;
    uint32_t field[NCOLS];
} trace_qrow;

/* A growable byte buffer. */
typedef struct trace_buf {
    char *data;
    size_t len, cap;
} trace_buf;

/* A time as read: whole seconds and the rest, so that a datetime keeps its
 * 100 ns digits through the rebase (a double holds an epoch to ~0.2 us
 * only).  Numeric times are all in `rest` (whole = 0): a double holds an
 * epoch in seconds to ~0.2 us and one in ms or us exactly, which is enough. */
typedef struct trace_time {
    int64_t whole;
    double rest;
} trace_time;

struct fs_trace {
    /* From the spec. */
    char *path;
    char *col[NCOLS];
    int index[NCOLS];               /* field index of each named column, -1 when not named */
    fs_trace_kind kind;
    fs_trace_time_format format;
    double rate_scale, shift_s, tolerance_s;
    bool repeat, lenient;

    /* The file and the parser. */
    FILE *fp;
    struct csv_parser parser;
    bool parser_ready;
    unsigned char *chunk;
    size_t chunk_len, chunk_pos;
    bool eof;
    bool at_start;                  /* nothing read yet in this pass */
    bool header_seen;               /* in this pass */
    size_t header_fields;

    /* The row being parsed: its fields, NUL-terminated, one after another. */
    trace_buf cur;
    uint32_t *cur_field;
    size_t cur_n, cur_cap;
    uint64_t cur_line;
    uint64_t line;                  /* where the parser is */
    bool after_cr;                  /* the last thing seen ended a line with CR */

    /* Rows parsed but not yet handed out. */
    trace_qrow *q;
    size_t q_n, q_head, q_cap;
    trace_buf q_text;

    /* A failure inside a callback (out of memory, no such column), reported
     * by the call that fed the parser; sticky. */
    int failed;
    fs_error fail;

    /* The replay. */
    bool have_origin;
    trace_time origin;
    bool have_prev;
    double prev_t;
    uint64_t pass;
    double period;                  /* replay seconds between passes */
    uint64_t pass_rows;             /* valid rows in this pass */
    uint64_t rows, skipped;
    char *priority[TRACE_MAX_PRIORITIES];
    size_t npriority;
    fs_intern prefixes;             /* prefix identities to keys; kept across passes */

    /* Row filters, borrowed from the spec, their columns' field indexes,
     * and the rows they dropped (every pass). */
    const fs_trace_where *where;
    size_t n_where;
    int *where_index;
    uint64_t filtered;
};

/* ---- presets ------------------------------------------------------------- */

const char *const fs_trace_preset_names[] = {"azure-llm", "philly-jobs", "alibaba-pods", NULL};

/* One row per name above, in the same order. */
static const struct trace_preset {
    fs_trace_kind kind;
    const char *time_col;
    fs_trace_time_format format;
    const char *size_cols[2];
    const char *gpus_col, *duration_col, *end_col, *priority_col, *tenant_col;
} presets[] = {
    /* azure-llm: AzureLLMInferenceTrace_{code,conv}.csv (CRLF, last row
     * without a newline).  Both files are sorted by TIMESTAMP. */
    {FS_TRACE_REQUESTS, "TIMESTAMP", FS_TRACE_TIME_DATETIME, {"ContextTokens", "GeneratedTokens"},
     NULL, NULL, NULL, NULL, NULL},
    /* philly-jobs: chronus_trace_job_Philly_MIX1.csv.  That file is NOT
     * sorted by submit_time (about half its rows are earlier than the row
     * before, by up to 20,150 s of its 20,151 s span), and a stream cannot be
     * reordered: with the default tolerance it stops at its line 3 saying
     * so.  Sort it first (keep the header: `(head -1 F; tail -n +2 F | sort
     * -t, -k4,4n)`), or raise the tolerance to replay it clamped, which keeps
     * the GPU-count and duration mix but not the arrival process.  The data
     * README says as much: its timing is compressed, use it for the mix.
     * num_gpu 0 (184 rows) reads as 1 GPU (see trace_gpus). */
    {FS_TRACE_JOBS, "submit_time", FS_TRACE_TIME_SECONDS, {NULL, NULL},
     "num_gpu", "duration", NULL, NULL, "user"},
    /* alibaba-pods: openb_pod_list_*.csv.  The default list is sorted by
     * creation_time; the resampled lists are not (gpushare100: 3,530 rows
     * earlier than the one before), and multigpu50 has no time columns at
     * all.  num_gpu 0 is a CPU-only pod (1,088 of 8,152 in the default
     * list; gpu_milli is 0 for all of them) and reads as 1 GPU, like any
     * gang (see trace_gpus); gpu_milli (a share of one GPU for num_gpu 1)
     * is not read: a pod sharing a GPU still takes one here.  qos is text,
     * so priorities are ranks of first appearance (LS 0, BE 1, ... in the
     * default list). */
    {FS_TRACE_JOBS, "creation_time", FS_TRACE_TIME_SECONDS, {NULL, NULL},
     "num_gpu", NULL, "deletion_time", "qos", NULL},
};
_Static_assert(sizeof presets / sizeof presets[0] ==
                   sizeof fs_trace_preset_names / sizeof fs_trace_preset_names[0] - 1,
               "one preset per name");

/* *dst = a copy of src (NULL stays NULL); false when out of memory. */
static bool trace_strdup(char **dst, const char *src)
{
    *dst = src ? strdup(src) : NULL;
    return src == NULL || *dst != NULL;
}

int fs_trace_preset(const char *name, const char *path, fs_trace_spec *out, fs_error *err)
{
    size_t i = 0;
    while (fs_trace_preset_names[i] && strcmp(fs_trace_preset_names[i], name) != 0)
        i++;
    if (fs_trace_preset_names[i] == NULL) {
        char known[256] = "";
        for (size_t k = 0; fs_trace_preset_names[k]; k++)
            snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", k ? ", " : "",
                     fs_trace_preset_names[k]);
        return fs_error_set(err, FS_ERR_INPUT, "unknown trace preset \"%s\" (known: %s)", name, known);
    }
    const struct trace_preset *p = &presets[i];
    fs_trace_spec s = {.kind = p->kind, .time_format = p->format, .rate_scale = 1, .tolerance_s = 1};
    bool ok = trace_strdup(&s.path, path) && trace_strdup(&s.time_col, p->time_col) &&
              trace_strdup(&s.size_cols[0], p->size_cols[0]) &&
              trace_strdup(&s.size_cols[1], p->size_cols[1]) && trace_strdup(&s.gpus_col, p->gpus_col) &&
              trace_strdup(&s.duration_col, p->duration_col) && trace_strdup(&s.end_col, p->end_col) &&
              trace_strdup(&s.priority_col, p->priority_col) && trace_strdup(&s.tenant_col, p->tenant_col);
    if (!ok) {
        fs_trace_spec_fini(&s);
        return fs_error_set(err, FS_ERR_RUNTIME, "trace preset %s: out of memory", name);
    }
    *out = s;
    return FS_OK;
}

/* The spec's column names, indexed by trace_col. */
static void trace_spec_cols(const fs_trace_spec *spec, const char *cols[NCOLS])
{
    cols[COL_TIME] = spec->time_col;
    cols[COL_SIZE0] = spec->size_cols[0];
    cols[COL_SIZE1] = spec->size_cols[1];
    cols[COL_PREFIX] = spec->prefix_col;
    cols[COL_PREFIX_TOKENS] = spec->prefix_tokens_col;
    cols[COL_GPUS] = spec->gpus_col;
    cols[COL_DURATION] = spec->duration_col;
    cols[COL_END] = spec->end_col;
    cols[COL_PRIORITY] = spec->priority_col;
    cols[COL_TENANT] = spec->tenant_col;
}

void fs_trace_spec_fini(fs_trace_spec *spec)
{
    if (spec == NULL)
        return;
    free(spec->path);
    free(spec->time_col);
    free(spec->size_cols[0]);
    free(spec->size_cols[1]);
    free(spec->prefix_col);
    free(spec->prefix_tokens_col);
    free(spec->gpus_col);
    free(spec->duration_col);
    free(spec->end_col);
    free(spec->priority_col);
    free(spec->tenant_col);
    for (size_t i = 0; i < spec->n_where; i++) {
        free(spec->where[i].col);
        for (size_t v = 0; v < spec->where[i].n_values; v++)
            free(spec->where[i].values[v]);
        free(spec->where[i].values);
    }
    free(spec->where);
    memset(spec, 0, sizeof *spec);
}

/* ---- buffers ------------------------------------------------------------- */

/* Makes room for `need` elements of `size` bytes in *p (capacity *cap);
 * false when out of memory, leaving *p as it was. */
static bool trace_reserve(void **p, size_t *cap, size_t need, size_t size)
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

/* Appends len bytes and a NUL to b; the offset of the copy, or FIELD_NONE
 * when out of memory (or past 4 GiB, which one slice's rows never reach). */
static uint32_t trace_append(trace_buf *b, const char *s, size_t len)
{
    if (b->len + len + 1 >= FIELD_NONE || !trace_reserve((void **)&b->data, &b->cap, b->len + len + 1, 1))
        return FIELD_NONE;
    uint32_t at = (uint32_t)b->len;
    memcpy(b->data + b->len, s, len);
    b->data[b->len + len] = '\0';
    b->len += len + 1;
    return at;
}

/* Records a failure inside a callback; the first one wins. */
static void trace_failed(fs_trace *t, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void trace_failed(fs_trace *t, int code, const char *fmt, ...)
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

/* The failure recorded, in err; -1. */
static int trace_report(const fs_trace *t, fs_error *err)
{
    if (err)
        *err = t->fail;
    return -1;
}

/* ---- the parser's callbacks ---------------------------------------------- */

static bool trace_is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* libcsv's allocator for its field buffer, refusing to grow it past
 * TRACE_MAX_FIELD (libcsv then stops with CSV_ENOMEM, which trace_fill
 * tells from a real lack of memory by the buffer's size). */
static void *trace_csv_realloc(void *p, size_t size)
{
    return size > TRACE_MAX_FIELD + 1 ? NULL : realloc(p, size);
}

/* One field: counted for line numbers (a quoted field may hold newlines),
 * trimmed (libcsv trims unquoted fields only), and kept with its row. */
static void trace_on_field(void *data, size_t len, void *arg)
{
    fs_trace *t = arg;
    const char *s = data;
    if (t->failed)
        return;
    if (t->cur_n == 0)
        t->cur_line = t->line;
    /* A NUL would cut the field short wherever it is read as a string, so
     * the rest of it would be ignored unseen: a binary file, not CSV text. */
    if (memchr(s, '\0', len) != NULL) {
        trace_failed(t, FS_ERR_INPUT, "%s:%llu: a NUL byte in field %zu (binary data, not CSV text)",
                     t->path, (unsigned long long)t->line, t->cur_n + 1);
        return;
    }
    t->after_cr = false;
    for (size_t i = 0; i < len; i++)
        t->line += s[i] == '\n';
    while (len > 0 && trace_is_space(*s))
        s++, len--;
    while (len > 0 && trace_is_space(s[len - 1]))
        len--;
    uint32_t at = trace_append(&t->cur, s, len);
    if (at == FIELD_NONE ||
        !trace_reserve((void **)&t->cur_field, &t->cur_cap, t->cur_n + 1, sizeof *t->cur_field)) {
        trace_failed(t, FS_ERR_RUNTIME, "%s: out of memory reading line %llu", t->path,
                     (unsigned long long)t->cur_line);
        return;
    }
    t->cur_field[t->cur_n++] = at;
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
            trace_failed(t, FS_ERR_INPUT, "%s:%llu: column \"%s\" is named twice (fields %d and %zu)", t->path,
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
    trace_failed(t, FS_ERR_INPUT, "%s: no column \"%s\" (columns: %s)", t->path, name, names);
    return false;
}

/* The header: every named column, and every filter's, must be there once. */
static void trace_map_header(fs_trace *t)
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
 * have a filter's column passes it: it is a bad row, which converting it
 * reports. */
static bool trace_row_wanted(const fs_trace *t)
{
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

/* A data row: its named fields (and, if it is short, an echo) go to the queue. */
static void trace_enqueue(fs_trace *t)
{
    if (!trace_row_wanted(t)) {
        t->filtered++;
        return;
    }
    if (!trace_reserve((void **)&t->q, &t->q_cap, t->q_n + 1, sizeof *t->q))
        goto nomem;
    trace_qrow *r = &t->q[t->q_n];
    r->line = t->cur_line;
    r->nfields = (uint32_t)t->cur_n;
    r->echo = FIELD_NONE;
    bool short_row = false;
    for (int c = 0; c < NCOLS; c++) {
        r->field[c] = FIELD_NONE;
        if (t->index[c] < 0)
            continue;
        if ((size_t)t->index[c] >= t->cur_n) {
            short_row = true;
            continue;
        }
        const char *f = t->cur.data + t->cur_field[t->index[c]];
        if ((r->field[c] = trace_append(&t->q_text, f, strlen(f))) == FIELD_NONE)
            goto nomem;
    }
    if (short_row) {
        char echo[TRACE_ECHO + 2];
        trace_echo_row(t, echo, sizeof echo);
        if ((r->echo = trace_append(&t->q_text, echo, strlen(echo))) == FIELD_NONE)
            goto nomem;
    }
    t->q_n++;
    return;
nomem:
    trace_failed(t, FS_ERR_RUNTIME, "%s: out of memory reading line %llu", t->path,
                 (unsigned long long)t->cur_line);
}

/* The end of a row, or (with CSV_REPALL_NL) of an empty line: c is the CR or
 * LF that ended it, or -1 at the end of the file.  A CR followed at once by
 * an LF ends one line, not two. */
static void trace_on_row(int c, void *arg)
{
    fs_trace *t = arg;
    if (t->cur_n > 0 && !t->failed) {
        if (t->header_seen)
            trace_enqueue(t);
        else if (t->pass == 0)
            trace_map_header(t);
        t->header_seen = true;  /* later passes read the header again and pass over it */
    }
    t->cur_n = 0;
    t->cur.len = 0;
    if (c == CSV_CR || (c == CSV_LF && !t->after_cr))
        t->line++;
    t->after_cr = c == CSV_CR;
}

/* ---- reading ------------------------------------------------------------- */

/* A JSON Lines file (one object a line) parsed as CSV would split each
 * object at its commas and fail later with a header of JSON fragments, or a
 * bad time quoting one: say what the file is instead, at its first line
 * that is not blank, from the bytes before the parser sees them. */
static void trace_refuse_json_lines(fs_trace *t)
{
    uint64_t line = t->line;
    size_t at = t->chunk_pos;
    /* Blank lines first: LF, or CR not followed by LF, ends one (as trace_on_row counts). */
    for (; at < t->chunk_len && trace_is_space((char)t->chunk[at]); at++)
        line += t->chunk[at] == '\n' || (t->chunk[at] == '\r' && (at + 1 == t->chunk_len || t->chunk[at + 1] != '\n'));
    if (at < t->chunk_len && t->chunk[at] == '{')
        trace_failed(t, FS_ERR_INPUT,
                     "%s:%llu: this looks like JSON Lines (a line starting with '{'); JSON Lines traces are not "
                     "read yet",
                     t->path, (unsigned long long)line);
}

/* Parses until a row is queued or the file ends (then t->eof). */
static int trace_fill(fs_trace *t, fs_error *err)
{
    while (t->q_head == t->q_n && !t->eof && !t->failed) {
        if (t->chunk_pos == t->chunk_len) {
            bool first = t->at_start;
            t->at_start = false;
            t->chunk_len = fread(t->chunk, 1, TRACE_CHUNK, t->fp);
            t->chunk_pos = 0;
            if (t->chunk_len == 0) {
                if (ferror(t->fp))
                    trace_failed(t, FS_ERR_INPUT, "%s: cannot read: %s", t->path, strerror(errno));
                else
                    csv_fini(&t->parser, trace_on_field, trace_on_row, t); /* a last row without a newline */
                t->eof = true;
                break;
            }
            /* A UTF-8 byte-order mark (spreadsheets write one) is not part of the first column's name. */
            if (first && t->chunk_len >= 3 && memcmp(t->chunk, "\xEF\xBB\xBF", 3) == 0)
                t->chunk_pos = 3;
            if (first && t->pass == 0)
                trace_refuse_json_lines(t);
            continue;
        }
        size_t n = t->chunk_len - t->chunk_pos;
        if (n > TRACE_SLICE)
            n = TRACE_SLICE;
        if (csv_parse(&t->parser, t->chunk + t->chunk_pos, n, trace_on_field, trace_on_row, t) != n) {
            if (csv_error(&t->parser) == CSV_ENOMEM && t->parser.entry_size >= TRACE_MAX_FIELD)
                trace_failed(t, FS_ERR_INPUT,
                             "%s:%llu: a field longer than %d KiB (the limit; an unclosed quote?)",
                             t->path, (unsigned long long)t->line, TRACE_MAX_FIELD / 1024);
            else
                trace_failed(t, FS_ERR_RUNTIME, "%s: line %llu: %s", t->path,
                             (unsigned long long)t->line, csv_strerror(csv_error(&t->parser)));
        }
        t->chunk_pos += n;
    }
    /* Rows queued before a failure are handed out first. */
    return t->failed && t->q_head == t->q_n ? trace_report(t, err) : 0;
}

/* Starts the file over for the next pass of a repeat. */
static int trace_rewind(fs_trace *t, fs_error *err)
{
    if (fseek(t->fp, 0, SEEK_SET) != 0) {
        trace_failed(t, FS_ERR_INPUT, "%s: cannot start the trace over (repeat): %s", t->path, strerror(errno));
        return trace_report(t, err);
    }
    clearerr(t->fp);
    t->chunk_len = t->chunk_pos = 0;
    t->eof = false;
    t->at_start = true;
    t->header_seen = false;
    t->line = 1;
    t->after_cr = false;
    t->pass++;
    t->pass_rows = 0;
    return 0;
}

void fs_trace_close(fs_trace *t)
{
    if (t == NULL)
        return;
    if (t->fp)
        fclose(t->fp);
    if (t->parser_ready)
        csv_free(&t->parser);
    free(t->chunk);
    free(t->cur.data);
    free(t->cur_field);
    free(t->q);
    free(t->q_text.data);
    for (size_t i = 0; i < t->npriority; i++)
        free(t->priority[i]);
    fs_intern_fini(&t->prefixes);
    free(t->where_index);
    free(t->path);
    for (int c = 0; c < NCOLS; c++)
        free(t->col[c]);
    free(t);
}

/* What is wrong with spec, in why; false if nothing. */
static bool trace_spec_wrong(const fs_trace_spec *spec, char *why, size_t size)
{
    if (spec->time_col == NULL)
        snprintf(why, size, "no time column");
    else if (!(spec->rate_scale > 0) || !isfinite(spec->rate_scale))
        snprintf(why, size, "the rate scale must be a number > 0, got %g", spec->rate_scale);
    else if (!isfinite(spec->shift_s))
        snprintf(why, size, "the shift must be a finite number of seconds, got %g", spec->shift_s);
    else if (!(spec->tolerance_s >= 0))
        snprintf(why, size, "the tolerance must be >= 0 s, got %g", spec->tolerance_s);
    else if ((spec->prefix_col == NULL) != (spec->prefix_tokens_col == NULL))
        snprintf(why, size, "a prefix column needs a prefix-tokens column and the other way round");
    else if (spec->prefix_col && spec->kind != FS_TRACE_REQUESTS)
        snprintf(why, size, "a prefix column belongs to a request trace");
    else if (spec->kind == FS_TRACE_JOBS && spec->gpus_col == NULL)
        snprintf(why, size, "a job trace needs a GPU-count column");
    else if (spec->kind == FS_TRACE_JOBS && (spec->duration_col == NULL) == (spec->end_col == NULL))
        snprintf(why, size, "a job trace needs a duration column or an end-time column (one, not both)");
    else
        return false;
    return true;
}

int fs_trace_open(const fs_trace_spec *spec, fs_trace **out, fs_error *err)
{
    const char *path = spec->path;
    char why[256];
    if (path == NULL)
        return fs_error_set(err, FS_ERR_INPUT, "trace: no file named");
    if (trace_spec_wrong(spec, why, sizeof why))
        return fs_error_set(err, FS_ERR_INPUT, "trace %s: %s", path, why);
    fs_trace *t = calloc(1, sizeof *t);
    if (t == NULL)
        return fs_error_set(err, FS_ERR_RUNTIME, "trace %s: out of memory", path);
    const char *cols[NCOLS];
    trace_spec_cols(spec, cols);
    bool ok = trace_strdup(&t->path, spec->path);
    for (int c = 0; c < NCOLS; c++) {
        ok = ok && trace_strdup(&t->col[c], cols[c]);
        t->index[c] = -1;
    }
    t->chunk = malloc(TRACE_CHUNK);
    if (!ok || t->chunk == NULL) {
        fs_trace_close(t);
        return fs_error_set(err, FS_ERR_RUNTIME, "trace %s: out of memory", path);
    }
    t->kind = spec->kind;
    t->format = spec->time_format;
    t->rate_scale = spec->rate_scale;
    t->shift_s = spec->shift_s;
    t->tolerance_s = spec->tolerance_s;
    t->repeat = spec->repeat;
    t->lenient = spec->lenient;
    t->where = spec->where;
    t->n_where = spec->n_where;
    if (t->n_where && !(t->where_index = malloc(t->n_where * sizeof *t->where_index))) {
        fs_trace_close(t);
        return fs_error_set(err, FS_ERR_RUNTIME, "trace %s: out of memory", path);
    }
    t->line = 1;
    t->at_start = true;
    fs_intern_init(&t->prefixes, UINT32_MAX);
    t->fp = fopen(spec->path, "rb");
    if (t->fp == NULL) {
        int e = errno;
        fs_trace_close(t);
        return fs_error_set(err, FS_ERR_INPUT, "%s: cannot open: %s", path, strerror(e));
    }
    /* CSV_REPALL_NL reports empty lines too, which line numbers need. */
    if (csv_init(&t->parser, CSV_REPALL_NL) != 0) {
        fs_trace_close(t);
        return fs_error_set(err, FS_ERR_RUNTIME, "trace %s: out of memory", path);
    }
    t->parser_ready = true;
    csv_set_realloc_func(&t->parser, trace_csv_realloc);
    /* The header; an empty file has none and simply has no rows. */
    while (!t->header_seen && !t->eof) {
        if (trace_fill(t, err) != 0) {
            int code = t->failed;
            fs_trace_close(t);
            return code;
        }
    }
    *out = t;
    return FS_OK;
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

/* a - b in seconds. */
static double trace_time_diff(fs_trace_time_format format, trace_time a, trace_time b)
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

/* The queued row q as a row: 1, 0 when skipped (lenient), -1 with err. */
static int trace_convert(fs_trace *t, const trace_qrow *q, fs_trace_row *row, fs_error *err)
{
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
        if ((r.duration_s = trace_time_diff(t->format, end, start)) < 0)
            return trace_bad(t, q->line, f[COL_END], err, "%s is before %s (%s)", t->col[COL_END],
                             t->col[COL_TIME], f[COL_TIME]);
    }
    r.tenant = f[COL_TENANT];

    trace_time origin = t->have_origin ? t->origin : start;
    r.t = trace_time_diff(t->format, start, origin) / t->rate_scale + t->shift_s + (double)t->pass * t->period;
    if (t->have_prev && r.t < t->prev_t) {
        if (t->prev_t - r.t > t->tolerance_s)
            return trace_bad(t, q->line, f[COL_TIME], err,
                             "%s goes back %.6g s in the replay, more than the tolerance of %g s "
                             "(a stream cannot be reordered: sort the file by time, or raise the tolerance)",
                             t->col[COL_TIME], t->prev_t - r.t, t->tolerance_s);
        r.t = t->prev_t;
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

    t->origin = origin;
    t->have_origin = true;
    t->prev_t = r.t;
    t->have_prev = true;
    t->pass_rows++;
    *row = r;
    return 1;
}

/* The offset between passes of a repeat: the first pass's span plus its
 * mean gap, so the next pass starts one typical gap after the last row.  A
 * pass of one row, or of rows all at one time, has no gap to average: it
 * repeats every second of trace time. */
static double trace_period(const fs_trace *t)
{
    double span = t->prev_t - t->shift_s; /* the first row is at shift_s */
    double gap = t->pass_rows > 1 && span > 0 ? span / (double)(t->pass_rows - 1) : 1.0 / t->rate_scale;
    return span + gap;
}

int fs_trace_next(fs_trace *t, fs_trace_row *row, fs_error *err)
{
    for (;;) {
        if (t->q_head == t->q_n) {
            t->q_head = t->q_n = 0;
            t->q_text.len = 0;
            if (trace_fill(t, err) != 0)
                return -1;
        }
        if (t->q_head < t->q_n) {
            int rc = trace_convert(t, &t->q[t->q_head++], row, err);
            if (rc != 0) {
                t->rows += rc > 0;
                return rc;
            }
            continue;
        }
        /* A file with no data row at all replays no traffic: a run of it
         * would report a quiet service that never was.  Refused unless
         * lenient, where the caller warns. */
        if (t->pass == 0 && t->rows == 0 && t->skipped == 0 && !t->lenient) {
            fs_error_set(err, FS_ERR_INPUT,
                         "%s: no data rows (the file is empty or holds only its header): a replay "
                         "of it has no traffic (--lenient runs it anyway)",
                         t->path);
            return -1;
        }
        /* The end of the file: a pass without a valid row would repeat forever. */
        if (!t->repeat || t->pass_rows == 0)
            return 0;
        if (t->pass == 0)
            t->period = trace_period(t);
        if (trace_rewind(t, err) != 0)
            return -1;
    }
}

double fs_trace_origin(const fs_trace *t)
{
    static const trace_time epoch = {0, 0};
    return t->have_origin ? trace_time_diff(t->format, t->origin, epoch) : 0;
}

uint64_t fs_trace_rows(const fs_trace *t)
{
    return t->rows;
}

uint64_t fs_trace_skipped(const fs_trace *t)
{
    return t->skipped;
}

uint64_t fs_trace_filtered(const fs_trace *t)
{
    return t->filtered;
}

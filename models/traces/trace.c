/*
 * trace — traces read as a stream (see trace.h): the presets and specs, and
 * the reader's frame: it opens the source and the format's parser, refills
 * the chunk (trace_read.h draws the pipeline), hands out converted rows,
 * and starts the file over for a repeat.
 */
#include "trace_read.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* ---- reading ------------------------------------------------------------- */

/* At the end of the source: the last row without a newline. */
static void trace_end(fs_trace *t)
{
    if (t->jsonl)
        fs__trace_jsonl_end(t);
    else
        fs__trace_csv_end(t);
}

/* Parses until a row is queued or the file ends (then t->eof). */
static int trace_fill(fs_trace *t, fs_error *err)
{
    while (t->q_head == t->q_n && !t->eof && !t->failed) {
        if (t->chunk_pos == t->chunk_len) {
            bool first = t->at_start;
            t->at_start = false;
            fs_error rerr = {0};
            t->chunk_pos = 0;
            /* A failed read (a corrupt .gz) ends the file before its last,
             * unfinished row is taken. */
            if (fs__trace_source_read(&t->src, t->chunk, TRACE_CHUNK, &t->chunk_len, &rerr) != FS_OK)
                fs__trace_failed(t, rerr.code, "%s", rerr.msg);
            else if (t->chunk_len == 0)
                trace_end(t);
            if (t->chunk_len == 0) {
                t->eof = true;
                break;
            }
            /* A UTF-8 byte-order mark (spreadsheets write one) is not part of the first column's name. */
            if (first && t->chunk_len >= 3 && memcmp(t->chunk, "\xEF\xBB\xBF", 3) == 0)
                t->chunk_pos = 3;
            if (first && t->pass == 0 && !t->jsonl)
                fs__trace_csv_start(t);
            continue;
        }
        size_t n = t->chunk_len - t->chunk_pos;
        if (n > TRACE_SLICE)
            n = TRACE_SLICE;
        if (t->jsonl)
            fs__trace_jsonl_feed(t, t->chunk + t->chunk_pos, n);
        else
            fs__trace_csv_feed(t, t->chunk + t->chunk_pos, n);
        t->chunk_pos += n;
    }
    /* Rows queued before a failure are handed out first. */
    return t->failed && t->q_head == t->q_n ? fs__trace_report(t, err) : 0;
}

/* Starts the file over for the next pass of a repeat. */
static int trace_rewind(fs_trace *t, fs_error *err)
{
    fs_error rerr = {0};
    if (fs__trace_source_rewind(&t->src, &rerr) != FS_OK) {
        fs__trace_failed(t, rerr.code, "%s", rerr.msg);
        return fs__trace_report(t, err);
    }
    t->chunk_len = t->chunk_pos = 0;
    t->eof = false;
    t->at_start = true;
    t->header_seen = false;
    t->line = 1;
    t->after_cr = false;
    t->pending.len = 0;
    t->pass++;
    t->pass_rows = 0;
    return 0;
}

void fs_trace_close(fs_trace *t)
{
    if (t == NULL)
        return;
    fs__trace_source_close(&t->src);
    if (t->parser_ready)
        csv_free(&t->parser);
    free(t->chunk);
    free(t->cur.data);
    free(t->cur_field);
    free(t->pending.data);
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

/* Whether the name ends with ".jsonl" or ".ndjson", before an optional ".gz". */
static bool trace_named_jsonl(const char *path)
{
    size_t n = strlen(path);
    if (fs__trace_source_gz(path))
        n -= 3;
    static const char *const ends[] = {".jsonl", ".ndjson"};
    for (size_t i = 0; i < sizeof ends / sizeof ends[0]; i++) {
        size_t k = strlen(ends[i]);
        if (n > k && strncmp(path + n - k, ends[i], k) == 0)
            return true;
    }
    return false;
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
    t->src.fd = -1; /* nothing open yet: fs_trace_close must not close fd 0 */
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
    t->jsonl = spec->format == FS_TRACE_FORMAT_JSONL ||
               (spec->format == FS_TRACE_FORMAT_AUTO && trace_named_jsonl(spec->path));
    int rc = t->jsonl ? FS_OK : fs__trace_csv_init(t, err);
    if (rc == FS_OK)
        rc = fs__trace_source_open(&t->src, t->path, err);
    if (rc != FS_OK) {
        fs_trace_close(t);
        return rc;
    }
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
            int rc = fs__trace_convert(t, &t->q[t->q_head++], row, err);
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
            t->period = fs__trace_period(t);
        if (trace_rewind(t, err) != 0)
            return -1;
    }
}

double fs_trace_origin(const fs_trace *t)
{
    static const trace_time epoch = {0, 0};
    return t->have_origin ? fs__trace_time_diff(t->format, t->origin, epoch) : 0;
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

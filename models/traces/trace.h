/*
 * trace — traces of inference requests and training jobs, read as a
 * stream: CSV or JSON Lines, plain or gzip-compressed.
 *
 * A CSV trace has a header row; a JSON Lines trace has one JSON object a
 * line, whose keys are the columns (the first object's keys are the header
 * named columns are checked against).  The format is the spec's, or when
 * it says nothing the file name's: a name ending ".jsonl" or ".ndjson"
 * (before an optional ".gz") is JSON Lines, any other CSV.  A path ending
 * ".gz" is decompressed on the fly by a `gzip -dc` child (no shell); a
 * corrupt or truncated one is FS_ERR_INPUT ("FILE: not a valid gzip file
 * ...") when gzip finds it, and no row past that point is handed out.
 *
 * A request trace has a time
 * column, optionally two size columns (prompt and generated tokens, or any
 * sizes the scenario maps to service time), and optionally a prefix: an
 * identity column (any text; rows with equal text share a prompt prefix)
 * and a column of how many leading prompt tokens it covers; a job trace has a submit
 * time, a GPU count, a duration (or an end time), and optionally a priority
 * and a tenant.  Columns are named by a spec, or by a preset for each format
 * in ../shared/data (fs_trace_preset_names).  Files are parsed in
 * fixed-size chunks and handed out one row at a time, so memory does not
 * depend on the trace's length: ten million rows cost what ten do.  The one
 * exception is a prefix column: each distinct identity is kept once (its
 * text and 24 to 48 bytes, intern.h) so that equal texts get equal keys; a
 * trace whose every row has a new identity grows by that much a row.
 *
 * JSON Lines values: a string is read exactly as the same text in a CSV
 * field would be, a number as its value, true and false as those words,
 * null or a missing key as an empty field (then the bad-row rules below
 * apply); an object or an array in a named column is a bad row naming the
 * key.  A line that is not a JSON object stops the reading whatever
 * `lenient` says: "FILE:LINE:COLUMN: what jansson found".
 *
 * Times: the time origin is the first row of the file whose time reads,
 * whether or not the filters keep it; it becomes 0; then the rate scale divides every
 * time (2 replays the trace at twice its rate; 1/24 stretches an hour over a
 * day) and the shift is added.  With `repeat`, the trace starts over after
 * its last row, one mean inter-arrival gap later, for as long as it is read
 * (span and gap over every row whose time reads, kept or dropped).
 * Time columns are seconds, milliseconds, microseconds or datetimes
 * ("2023-11-16 18:17:03.9799600", "2023-11-16T18:17:03Z"; UTC).
 *
 * Bad rows (a time that does not parse, a negative or non-numeric size or
 * GPU count or duration, a prefix token count that is not an integer >= 0,
 * a row with too few fields, time going backwards by more than the
 * tolerance) are errors naming file:line, the column and what was wrong;
 * with `lenient` they are skipped and counted.  A file with no data row at
 * all is an error at its end unless lenient.  Whatever `lenient` says, a NUL
 * byte, a named column that appears twice in the header, and a field (or a
 * JSON Lines line) over 1 MiB stop the reading (FS_ERR_INPUT, file:line).
 * A row earlier than the one before it (or than the origin) by no more than
 * the tolerance is replayed at the earlier row's time (traces logged by
 * several hosts are slightly out of order).
 *
 * Filters ("where": column -> accepted texts) drop rows before anything
 * else reads them: a dropped row is never bad, but it can be the time
 * origin, so that services split from one trace by a class column (one
 * filter each) share the trace's own clock.
 *
 * Ownership: fs_trace_spec owns its strings (fs_trace_spec_fini); the reader
 * borrows the spec's filters (the spec outlives it) and copies the rest it
 * needs from the spec and owns its file, gzip child and parser
 * (fs_trace_close reaps the child).  Row strings (tenant, priority_text)
 * live until the next call.
 */
#ifndef FS_TRACE_H
#define FS_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

typedef enum fs_trace_kind { FS_TRACE_REQUESTS, FS_TRACE_JOBS } fs_trace_kind;

typedef enum fs_trace_time_format {
    FS_TRACE_TIME_SECONDS,   /* a number of seconds */
    FS_TRACE_TIME_MS,        /* a number of milliseconds */
    FS_TRACE_TIME_US,        /* a number of microseconds */
    FS_TRACE_TIME_DATETIME   /* YYYY-MM-DD[ T]HH:MM:SS[.fraction][Z], UTC */
} fs_trace_time_format;

/* The file's format: AUTO (the zero value) lets the name decide. */
typedef enum fs_trace_format {
    FS_TRACE_FORMAT_AUTO,    /* ".jsonl" or ".ndjson" (+ ".gz"): JSON Lines; else CSV */
    FS_TRACE_FORMAT_CSV,
    FS_TRACE_FORMAT_JSONL    /* one JSON object a line */
} fs_trace_format;

/* A row filter ("where"): the row is kept only when the column's text is
 * one of the values (exact, after the trimming every field gets). */
typedef struct fs_trace_where {
    char *col;
    char **values;
    size_t n_values;
} fs_trace_where;

typedef struct fs_trace_spec {
    char *path;              /* the file; ending ".gz", gzip-compressed */
    fs_trace_format format;
    fs_trace_kind kind;
    /* Column names (header text); NULL when the trace lacks the column. */
    char *time_col;          /* requests: arrival; jobs: submission.  Required. */
    fs_trace_time_format time_format;
    char *size_cols[2];      /* requests: e.g. prompt and generated tokens */
    char *prefix_col;        /* requests: the prompt prefix's identity, any text ... */
    char *prefix_tokens_col; /* ... and the leading prompt tokens it covers; both or neither */
    char *gpus_col;          /* jobs: GPUs of the gang (fractions round up). Required for jobs. */
    char *duration_col;      /* jobs: run time in seconds ... */
    char *end_col;           /* ... or an end time in the time column's format (duration = end - start) */
    char *priority_col;      /* jobs: a number or a string (see fs_trace_row.priority) */
    char *tenant_col;        /* jobs */
    double rate_scale;       /* > 0, default 1 */
    double shift_s;          /* added after scaling, default 0 */
    bool repeat;             /* start over after the last row */
    double tolerance_s;      /* backwards slack, default 1 s */
    bool lenient;            /* skip bad rows instead of failing */
    /* Row filters, all of which a row must pass (owned): rows that fail one
     * are dropped before anything else reads them (though the first row
     * whose time reads is time 0, kept or not) and counted
     * (fs_trace_filtered). */
    fs_trace_where *where;
    size_t n_where;
} fs_trace_spec;

/* The spec of a named preset, for path: "azure-llm" (Azure LLM inference
 * 2023: TIMESTAMP datetime, ContextTokens, GeneratedTokens), "philly-jobs"
 * (the Philly-derived job list: submit_time s, num_gpu, duration s, user as
 * tenant), "alibaba-pods" (Alibaba GPU cluster pods: creation_time s,
 * num_gpu, deletion_time as end, qos as priority).  FS_OK, FS_ERR_INPUT for
 * an unknown name (listing the known ones), FS_ERR_RUNTIME. */
int fs_trace_preset(const char *name, const char *path, fs_trace_spec *out, fs_error *err);

/* NULL-terminated list of preset names. */
extern const char *const fs_trace_preset_names[];

void fs_trace_spec_fini(fs_trace_spec *spec);

typedef struct fs_trace_row {
    double t;                /* seconds from the start of the replay */
    double t_written;        /* t before an out-of-order row was moved up to the
                              * row before it (== t unless it was): where it was
                              * submitted, for fits of the whole span (fit_jobs.h) */
    double size[2];          /* requests: the size columns (0 when absent) */
    /* Requests: the prefix identity as a key, 1, 2, ... in the order the
     * texts first appear (equal text, equal key; never a hash of it), and
     * the tokens it covers (an integer >= 0, above 2^32 - 1 read as
     * 2^32 - 1: more than any prompt); 0 and 0 when the trace has no prefix
     * column or the row's identity cell is empty (its token cell then may
     * be empty too).  More than 2^32 - 1 distinct identities: a bad row. */
    uint32_t prefix_key, prefix_tokens;
    uint32_t gpus;           /* jobs: >= 1 */
    double duration_s;       /* jobs: >= 0 */
    double priority;         /* jobs: the number, or for text the rank of its
                              * first appearance (0, 1, ...); 0 when absent */
    const char *tenant;      /* jobs: NULL when absent */
    const char *priority_text; /* jobs: the priority cell as written (trimmed); NULL when absent */
    uint64_t line;           /* in the file (1 = the header) */
} fs_trace_row;

typedef struct fs_trace fs_trace;

/* Opens the file and reads its header (JSON Lines: its first object);
 * every named column must be there.  FS_OK, FS_ERR_INPUT (cannot read, no
 * such column: "file: no column \"X\" (columns: a, b, c)", a CSV that looks
 * like JSON Lines), FS_ERR_RUNTIME (out of memory; a .gz without a gzip
 * program to read it). */
int fs_trace_open(const fs_trace_spec *spec, fs_trace **out, fs_error *err);

/* The next row: 1 and *row, 0 at the end (never with repeat, unless the
 * trace has no valid row at all), or -1 with err filled (FS_ERR_INPUT,
 * "file:LINE: what was wrong", or FS_ERR_RUNTIME). */
int fs_trace_next(fs_trace *t, fs_trace_row *row, fs_error *err);

/* The origin's time as written (the first row whose time reads), in
 * seconds (datetimes: seconds since 1970-01-01 UTC), before rebasing,
 * scaling and shifting: what fit-traffic needs to place rows on the clock
 * and calendar.  0 until the parser has met that row, which it has by the
 * time the first row is handed out (often already at fs_trace_open). */
double fs_trace_origin(const fs_trace *t);

/* Rows handed out, and rows skipped as bad (lenient), so far. */
uint64_t fs_trace_rows(const fs_trace *t);
uint64_t fs_trace_skipped(const fs_trace *t);
/* Rows dropped by the spec's filters ("where"), so far, every pass. */
uint64_t fs_trace_filtered(const fs_trace *t);

void fs_trace_close(fs_trace *t);

#endif

/*
 * trace_read — the trace reader's insides, shared by its files and by no
 * one else (trace.h is the contract).
 *
 * The pipeline, whatever the format: a source (trace_source.c: the file, or
 * a gzip child's output) fills a 64 KiB chunk; the format's parser
 * (trace_csv.c: libcsv; trace_jsonl.c: one jansson object a line) is fed
 * 4 KiB slices of it and hands each row's fields, as text, to the one row
 * path (trace_row.c): fs__trace_field collects them, fs__trace_header maps
 * the named columns, fs__trace_take filters a data row and queues its named
 * fields; fs_trace_next (trace.c) converts queued rows one at a time
 * (fs__trace_convert) and parses more only when the queue is empty.
 * Parsing in slices bounds what one refill can queue (a 4 KiB slice holds
 * at most ~2,000 rows), so memory is a chunk, a slice's rows and the
 * longest row, whatever the file's length.
 *
 * Rows are queued as text and converted in fs_trace_next, not while
 * parsing, because conversion is where errors are reported, and a bad row
 * must surface only after the good rows before it have been handed out.
 * Both formats queue text so that one conversion reads them both: a JSON
 * number arrives as the text that reads back as the same number.
 */
#ifndef FS_TRACE_READ_H
#define FS_TRACE_READ_H

#include <csv.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "intern.h"
#include "trace.h"

enum {
    TRACE_CHUNK = 64 * 1024,   /* bytes per read */
    TRACE_SLICE = 4 * 1024,    /* bytes per parse */
    TRACE_MAX_PRIORITIES = 256, /* distinct priority strings a trace may use */
    TRACE_ECHO = 80,           /* bytes of a field or row quoted in a message */
    /* Bytes in one field (and in one JSON Lines line): a time, a count or a
     * tenant's name is tens of bytes, a quoted note a few KiB; without a cap
     * a file with no line breaks, or an unclosed quote, would be buffered
     * whole as one field. */
    TRACE_MAX_FIELD = 1024 * 1024
};

/* The columns a spec can name, in the order of fs_trace_spec. */
enum trace_col {
    COL_TIME, COL_SIZE0, COL_SIZE1, COL_PREFIX, COL_PREFIX_TOKENS, COL_GPUS, COL_DURATION, COL_END, COL_PRIORITY,
    COL_TENANT, NCOLS
};

#define FIELD_NONE UINT32_MAX

/* A row waiting in the queue: where its named fields sit in the queue's text
 * (FIELD_NONE when the row is too short to have one); for a short row the
 * row itself, and for a JSON value that is not a field (an object or an
 * array) that value, as an echo for the message, and then the column that
 * held it in `nested`. */
typedef struct trace_qrow {
    uint64_t line;
    const char *nested;
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

/* Where the bytes come from: the file itself, or the output of a `gzip -dc`
 * child through a pipe (trace_source.c says why a child). */
typedef struct trace_source {
    const char *path;     /* borrowed from the reader */
    FILE *fp;             /* a plain file, or NULL */
    pid_t pid;            /* the gzip child while it runs, or 0 */
    int fd;               /* the pipe from it, or -1 */
} trace_source;

struct fs_trace {
    /* From the spec. */
    char *path;
    char *col[NCOLS];
    int index[NCOLS];               /* field index of each named column, -1 when not named */
    fs_trace_kind kind;
    fs_trace_time_format format;
    bool jsonl;                     /* JSON Lines, else CSV */
    double rate_scale, shift_s, tolerance_s;
    bool repeat, lenient;

    /* The source and the parser. */
    trace_source src;
    struct csv_parser parser;
    bool parser_ready;
    unsigned char *chunk;
    size_t chunk_len, chunk_pos;
    bool eof;
    bool at_start;                  /* nothing read yet in this pass */
    bool header_seen;               /* in this pass */
    size_t header_fields;
    trace_buf pending;              /* JSON Lines: the start of a line cut by a slice */

    /* The row being parsed: its fields, NUL-terminated, one after another. */
    trace_buf cur;
    uint32_t *cur_field;
    size_t cur_n, cur_cap;
    uint64_t cur_line;
    const char *cur_nested;         /* JSON Lines: the column holding an object or array */
    uint32_t cur_echo;              /* ... and that value, in cur */
    uint64_t line;                  /* where the parser is */
    bool after_cr;                  /* the last thing seen ended a line with CR */

    /* Rows parsed but not yet handed out. */
    trace_qrow *q;
    size_t q_n, q_head, q_cap;
    trace_buf q_text;

    /* A failure while parsing (out of memory, no such column), reported by
     * the call that fed the parser; sticky. */
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
    /* Rows the filters dropped in the first pass whose time reads, and the
     * latest of their replay times: a repeat's period is the whole file's,
     * so services split from one trace by filters repeat on one clock. */
    uint64_t dropped_timed;
    double dropped_last;
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

/* ---- trace_row.c: buffers, failures, the one row path --------------------- */

/* Makes room for `need` elements of `size` bytes in *p (capacity *cap);
 * false when out of memory, leaving *p as it was. */
bool fs__trace_reserve(void **p, size_t *cap, size_t need, size_t size);

/* Appends len bytes and a NUL to b; the offset of the copy, or FIELD_NONE
 * when out of memory (or past 4 GiB, which one slice's rows never reach). */
uint32_t fs__trace_append(trace_buf *b, const char *s, size_t len);

/* Records a failure while parsing; the first one wins. */
void fs__trace_failed(fs_trace *t, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The failure recorded, in err; -1. */
int fs__trace_report(const fs_trace *t, fs_error *err);

bool fs__trace_is_space(char c);

/* One field of the row being parsed into cur at index i (i == cur_n appends
 * one), with `trim` trimmed of spaces, tabs, CR and LF at both ends (a CSV
 * field and a JSON string alike; a JSON key is a name as written).  False,
 * the trace failed, when out of memory. */
bool fs__trace_field(fs_trace *t, size_t i, const char *s, size_t len, bool trim);

/* The row in cur as the header: every named column, and every filter's,
 * must be there once (FS_ERR_INPUT otherwise, "no column ..."). */
void fs__trace_header(fs_trace *t);

/* The row in cur as a data row: the first row of the file whose time reads
 * sets the origin, filtered out or not; a row the filters keep goes to the
 * queue (its named fields, and an echo when it is short or holds a nested
 * JSON value). */
void fs__trace_take(fs_trace *t);

/* The queued row q as a row: 1, 0 when skipped (lenient), -1 with err. */
int fs__trace_convert(fs_trace *t, const trace_qrow *q, fs_trace_row *row, fs_error *err);

/* a - b in seconds. */
double fs__trace_time_diff(fs_trace_time_format format, trace_time a, trace_time b);

/* The offset between passes of a repeat (see fs__trace_convert). */
double fs__trace_period(const fs_trace *t);

/* ---- trace_csv.c ----------------------------------------------------------- */

/* The CSV parser: ready (FS_OK) or FS_ERR_RUNTIME in err. */
int fs__trace_csv_init(fs_trace *t, fs_error *err);
/* At the first bytes of the file: refuses a file that looks like JSON Lines. */
void fs__trace_csv_start(fs_trace *t);
void fs__trace_csv_feed(fs_trace *t, const unsigned char *s, size_t n);
/* The end of the file: a last row without a newline. */
void fs__trace_csv_end(fs_trace *t);

/* ---- trace_jsonl.c --------------------------------------------------------- */

void fs__trace_jsonl_feed(fs_trace *t, const unsigned char *s, size_t n);
/* The end of the file: a last line without a newline. */
void fs__trace_jsonl_end(fs_trace *t);

/* ---- trace_source.c -------------------------------------------------------- */

/* Whether the path names a gzip-compressed file (it ends with ".gz"). */
bool fs__trace_source_gz(const char *path);
/* Opens path (borrowed: it must outlive the source).  FS_OK, FS_ERR_INPUT
 * (cannot open), FS_ERR_RUNTIME (no gzip, no pipe). */
int fs__trace_source_open(trace_source *s, const char *path, fs_error *err);
/* Up to cap bytes into buf: FS_OK and *got (0 at the end, once a gzip child
 * has exited 0), or an error: a read error, or the child's non-zero exit
 * (a corrupt or truncated file: FS_ERR_INPUT). */
int fs__trace_source_read(trace_source *s, unsigned char *buf, size_t cap, size_t *got, fs_error *err);
/* Starts the bytes over (a repeat): the file from its start, or a new child. */
int fs__trace_source_rewind(trace_source *s, fs_error *err);
void fs__trace_source_close(trace_source *s);

#endif

/*
 * trace_csv — the CSV format of the trace reader (trace_read.h): libcsv's
 * callbacks hand each field to the row path and each row's end to the
 * header or the queue; a file that looks like JSON Lines is refused before
 * libcsv sees it.
 */
#include "trace_read.h"

#include <stdlib.h>
#include <string.h>

/* libcsv's allocator for its field buffer, refusing to grow it past
 * TRACE_MAX_FIELD (libcsv then stops with CSV_ENOMEM, which
 * fs__trace_csv_feed tells from a real lack of memory by the buffer's size). */
static void *trace_csv_realloc(void *p, size_t size)
{
    return size > TRACE_MAX_FIELD + 1 ? NULL : realloc(p, size);
}

/* One field: counted for line numbers (a quoted field may hold newlines),
 * and kept with its row. */
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
        fs__trace_failed(t, FS_ERR_INPUT, "%s:%llu: a NUL byte in field %zu (binary data, not CSV text)", t->path,
                         (unsigned long long)t->line, t->cur_n + 1);
        return;
    }
    t->after_cr = false;
    for (size_t i = 0; i < len; i++)
        t->line += s[i] == '\n';
    fs__trace_field(t, t->cur_n, s, len, true);
}

/* The end of a row, or (with CSV_REPALL_NL) of an empty line: c is the CR or
 * LF that ended it, or -1 at the end of the file.  A CR followed at once by
 * an LF ends one line, not two. */
static void trace_on_row(int c, void *arg)
{
    fs_trace *t = arg;
    if (t->cur_n > 0 && !t->failed) {
        if (t->header_seen)
            fs__trace_take(t);
        else if (t->pass == 0)
            fs__trace_header(t);
        t->header_seen = true; /* later passes read the header again and pass over it */
    }
    t->cur_n = 0;
    t->cur.len = 0;
    if (c == CSV_CR || (c == CSV_LF && !t->after_cr))
        t->line++;
    t->after_cr = c == CSV_CR;
}

int fs__trace_csv_init(fs_trace *t, fs_error *err)
{
    /* CSV_REPALL_NL reports empty lines too, which line numbers need. */
    if (csv_init(&t->parser, CSV_REPALL_NL) != 0)
        return fs_error_set(err, FS_ERR_RUNTIME, "trace %s: out of memory", t->path);
    t->parser_ready = true;
    csv_set_realloc_func(&t->parser, trace_csv_realloc);
    return FS_OK;
}

/* A JSON Lines file (one object a line) parsed as CSV would split each
 * object at its commas and fail later with a header of JSON fragments, or a
 * bad time quoting one: say what the file is, and how to read it, at its
 * first line that is not blank, from the bytes before the parser sees them. */
void fs__trace_csv_start(fs_trace *t)
{
    uint64_t line = t->line;
    size_t at = t->chunk_pos;
    /* Blank lines first: LF, or CR not followed by LF, ends one (as trace_on_row counts). */
    for (; at < t->chunk_len && fs__trace_is_space((char)t->chunk[at]); at++)
        line += t->chunk[at] == '\n' || (t->chunk[at] == '\r' && (at + 1 == t->chunk_len || t->chunk[at + 1] != '\n'));
    if (at < t->chunk_len && t->chunk[at] == '{')
        fs__trace_failed(t, FS_ERR_INPUT,
                         "%s:%llu: this looks like JSON Lines (a line starting with '{'); set \"format\": \"jsonl\" "
                         "(or name the file .jsonl)",
                         t->path, (unsigned long long)line);
}

void fs__trace_csv_feed(fs_trace *t, const unsigned char *s, size_t n)
{
    if (csv_parse(&t->parser, s, n, trace_on_field, trace_on_row, t) == n)
        return;
    if (csv_error(&t->parser) == CSV_ENOMEM && t->parser.entry_size >= TRACE_MAX_FIELD)
        fs__trace_failed(t, FS_ERR_INPUT, "%s:%llu: a field longer than %d KiB (the limit; an unclosed quote?)",
                         t->path, (unsigned long long)t->line, TRACE_MAX_FIELD / 1024);
    else
        fs__trace_failed(t, FS_ERR_RUNTIME, "%s: line %llu: %s", t->path, (unsigned long long)t->line,
                         csv_strerror(csv_error(&t->parser)));
}

void fs__trace_csv_end(fs_trace *t)
{
    csv_fini(&t->parser, trace_on_field, trace_on_row, t);
}

/*
 * trace_jsonl — the JSON Lines format of the trace reader (trace_read.h):
 * one JSON object a line, its keys the columns.  Lines are cut at LF (a CR
 * before it is JSON whitespace), each parsed on its own with jansson, so
 * memory is one line (at most TRACE_MAX_FIELD bytes) whatever the file's
 * length.  The first object's keys are the header the named columns are
 * checked against, and the first object is a data row too.  A named
 * column's value reaches the row path as the text a CSV field would hold:
 * a string as it is (trimmed like any field), a number as the shortest text
 * that reads back as it, true and false as those words, null or a missing
 * key as an empty field; an object or an array is a bad row naming its key.
 */
#include "trace_read.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

/* The shortest of %.15g, %.16g, %.17g that reads back as v: 0.1 stays
 * "0.1" (a filter compares texts), and every double still reads back
 * exactly.  Its length. */
static int trace_jsonl_real(double v, char *out, size_t size)
{
    int n = 0;
    for (int prec = 15; prec <= 17; prec++) {
        n = snprintf(out, size, "%.*g", prec, v);
        if (strtod(out, NULL) == v)
            break;
    }
    return n;
}

/* The value of `key` in o as the text of field i of the row being parsed;
 * an object or an array marks the row bad (the first such key wins).
 * False, the trace failed, when out of memory. */
static bool trace_jsonl_value(fs_trace *t, const json_t *o, const char *key, int i)
{
    const json_t *v = json_object_get(o, key);
    char num[64];
    const char *s = "";
    size_t len = 0;
    switch (v ? json_typeof(v) : JSON_NULL) {
    case JSON_STRING:
        s = json_string_value(v);
        len = json_string_length(v);
        break;
    case JSON_INTEGER:
        len = (size_t)snprintf(num, sizeof num, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        s = num;
        break;
    case JSON_REAL:
        len = (size_t)trace_jsonl_real(json_real_value(v), num, sizeof num);
        s = num;
        break;
    case JSON_TRUE:
    case JSON_FALSE:
        s = json_is_true(v) ? "true" : "false";
        len = strlen(s);
        break;
    case JSON_NULL:
        break;
    case JSON_OBJECT:
    case JSON_ARRAY:
        if (t->cur_nested == NULL) {
            char *d = json_dumps(v, JSON_COMPACT);
            size_t n = d ? strlen(d) : 0;
            t->cur_nested = key;
            t->cur_echo = fs__trace_append(&t->cur, d ? d : "", n > TRACE_ECHO + 1 ? TRACE_ECHO + 1 : n);
            free(d);
            if (t->cur_echo == FIELD_NONE) {
                fs__trace_failed(t, FS_ERR_RUNTIME, "%s: out of memory reading line %llu", t->path,
                                 (unsigned long long)t->cur_line);
                return false;
            }
        }
        return true;
    }
    return fs__trace_field(t, (size_t)i, s, len, true);
}

/* A data row: every field of the header empty, then the named columns'. */
static void trace_jsonl_row(fs_trace *t, const json_t *o)
{
    if (!fs__trace_field(t, 0, "", 0, false) ||
        !fs__trace_reserve((void **)&t->cur_field, &t->cur_cap, t->header_fields, sizeof *t->cur_field)) {
        fs__trace_failed(t, FS_ERR_RUNTIME, "%s: out of memory reading line %llu", t->path,
                         (unsigned long long)t->cur_line);
        return;
    }
    for (size_t i = 0; i < t->header_fields; i++)
        t->cur_field[i] = t->cur_field[0];
    t->cur_n = t->header_fields;
    for (int c = 0; c < NCOLS; c++)
        if (t->index[c] >= 0 && !trace_jsonl_value(t, o, t->col[c], t->index[c]))
            return;
    for (size_t w = 0; w < t->n_where; w++)
        if (!trace_jsonl_value(t, o, t->where[w].col, t->where_index[w]))
            return;
    fs__trace_take(t);
}

static const char *trace_jsonl_type(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_ARRAY:
        return "an array";
    case JSON_STRING:
        return "a string";
    case JSON_INTEGER:
    case JSON_REAL:
        return "a number";
    case JSON_TRUE:
    case JSON_FALSE:
        return "true or false";
    case JSON_NULL:
        return "null";
    default:
        return "an object";
    }
}

/* One line, without its LF, at t->line: blank, or an object. */
static void trace_jsonl_line(fs_trace *t, const char *s, size_t len)
{
    size_t lead = 0;
    while (lead < len && fs__trace_is_space(s[lead]))
        lead++;
    if (lead == len)
        return;
    json_error_t e;
    /* JSON_DECODE_ANY so that a line holding a number or a string is named
     * as such below; duplicate keys are refused, as a CSV header naming a
     * column twice is. */
    json_t *o = json_loadb(s, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &e);
    if (o == NULL) {
        fs__trace_failed(t, FS_ERR_INPUT, "%s:%llu:%d: %s", t->path, (unsigned long long)t->line, e.column, e.text);
        return;
    }
    if (!json_is_object(o)) {
        fs__trace_failed(t, FS_ERR_INPUT, "%s:%llu:%zu: expected a JSON object (one a line), got %s", t->path,
                         (unsigned long long)t->line, lead + 1, trace_jsonl_type(o));
        json_decref(o);
        return;
    }
    t->cur_line = t->line;
    t->cur_n = 0;
    t->cur.len = 0;
    t->cur_nested = NULL;
    if (!t->header_seen) {
        const char *key;
        const json_t *v;
        if (t->pass == 0) {
            json_object_foreach(o, key, v) {
                if (!fs__trace_field(t, t->cur_n, key, strlen(key), false))
                    break;
            }
            if (!t->failed)
                fs__trace_header(t);
            t->cur_n = 0;
            t->cur.len = 0;
        }
        t->header_seen = true;
    }
    if (!t->failed)
        trace_jsonl_row(t, o);
    json_decref(o);
    t->cur_n = 0;
    t->cur.len = 0;
    t->cur_nested = NULL;
}

void fs__trace_jsonl_feed(fs_trace *t, const unsigned char *s, size_t n)
{
    while (n > 0 && !t->failed) {
        const unsigned char *lf = memchr(s, '\n', n);
        size_t len = lf ? (size_t)(lf - s) : n;
        if (t->pending.len + len > TRACE_MAX_FIELD) {
            fs__trace_failed(t, FS_ERR_INPUT, "%s:%llu: a line longer than %d KiB (the limit)", t->path,
                             (unsigned long long)t->line, TRACE_MAX_FIELD / 1024);
            return;
        }
        /* A line within the slice is parsed where it lies; one cut by the
         * slice's end waits in `pending` for the rest. */
        if (t->pending.len > 0 || lf == NULL) {
            if (!fs__trace_reserve((void **)&t->pending.data, &t->pending.cap, t->pending.len + len, 1)) {
                fs__trace_failed(t, FS_ERR_RUNTIME, "%s: out of memory reading line %llu", t->path,
                                 (unsigned long long)t->line);
                return;
            }
            memcpy(t->pending.data + t->pending.len, s, len);
            t->pending.len += len;
        }
        if (lf == NULL)
            return;
        if (t->pending.len > 0)
            trace_jsonl_line(t, t->pending.data, t->pending.len);
        else
            trace_jsonl_line(t, (const char *)s, len);
        t->pending.len = 0;
        t->line++;
        s += len + 1;
        n -= len + 1;
    }
}

void fs__trace_jsonl_end(fs_trace *t)
{
    if (t->pending.len > 0 && !t->failed)
        trace_jsonl_line(t, t->pending.data, t->pending.len);
    t->pending.len = 0;
}

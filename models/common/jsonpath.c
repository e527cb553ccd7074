/*
 * jsonpath — path-tracking typed reads from jansson values; see jsonpath.h.
 */
#include "jsonpath.h"

#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "duration.h"

void fs_jpath_init(fs_jpath *p, const char *origin, fs_error *err)
{
    assert(p != NULL && origin != NULL);
    p->origin = origin;
    p->err = err;
    p->buf[0] = '\0';
    p->len = 0;
}

static void push(fs_jpath *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void push(fs_jpath *p, const char *fmt, ...)
{
    if (p->len >= sizeof p->buf - 1)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(p->buf + p->len, sizeof p->buf - p->len, fmt, ap);
    va_end(ap);
    if (n > 0)
        p->len += (size_t)n;
    if (p->len > sizeof p->buf - 1)
        p->len = sizeof p->buf - 1;
}

size_t fs_jpath_push_key(fs_jpath *p, const char *key)
{
    size_t mark = p->len;
    push(p, p->len == 0 ? "%s" : ".%s", key);
    return mark;
}

size_t fs_jpath_push_index(fs_jpath *p, size_t index)
{
    size_t mark = p->len;
    push(p, "[%zu]", index);
    return mark;
}

void fs_jpath_pop(fs_jpath *p, size_t mark)
{
    assert(mark <= p->len);
    p->len = mark;
    p->buf[mark] = '\0';
}

int fs_jpath_fail(fs_jpath *p, const char *fmt, ...)
{
    char msg[sizeof p->err->msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (p->len == 0)
        return fs_error_set(p->err, FS_ERR_INPUT, "%s: %s", p->origin, msg);
    return fs_error_set(p->err, FS_ERR_INPUT, "%s: %s: %s", p->origin, p->buf, msg);
}

int fs_jpath_expected(fs_jpath *p, const json_t *found, const char *fmt, ...)
{
    char what[512], got[128];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    fs_jpath_describe(found, got, sizeof got);
    return fs_jpath_fail(p, "expected %s, got %s", what, got);
}

int fs_jpath_oom(fs_jpath *p)
{
    return fs_error_set(p->err, FS_ERR_RUNTIME, "%s: out of memory", p->origin);
}

/* Quotes s the way a reader would type it back: \" \\ and control
 * characters escaped, cut at 48 bytes with "..." so one long value cannot
 * push the rest of the message out of the 1 KiB error buffer. */
static void quote(const char *s, char *buf, size_t size)
{
    size_t len = 0, limit = 48;
    char tmp[8];
    if (size < 2) {
        if (size)
            buf[0] = '\0';
        return;
    }
    buf[len++] = '"';
    for (size_t i = 0; s[i] != '\0'; i++) {
        if (i == limit) {
            snprintf(tmp, sizeof tmp, "...");
        } else {
            unsigned char c = (unsigned char)s[i];
            if (c == '"' || c == '\\')
                snprintf(tmp, sizeof tmp, "\\%c", c);
            else if (c == '\n')
                snprintf(tmp, sizeof tmp, "\\n");
            else if (c == '\t')
                snprintf(tmp, sizeof tmp, "\\t");
            else if (c < 0x20)
                snprintf(tmp, sizeof tmp, "\\u%04x", c);
            else
                snprintf(tmp, sizeof tmp, "%c", c);
        }
        size_t t = strlen(tmp);
        if (len + t + 2 > size)
            break;
        memcpy(buf + len, tmp, t);
        len += t;
        if (i == limit)
            break;
    }
    buf[len++] = '"';
    buf[len] = '\0';
}

void fs_jpath_describe(const json_t *v, char *buf, size_t size)
{
    assert(buf != NULL && size > 0);
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        snprintf(buf, size, "%s", json_object_size(v) ? "an object" : "an empty object");
        break;
    case JSON_ARRAY:
        snprintf(buf, size, "%s", json_array_size(v) ? "an array" : "an empty array");
        break;
    case JSON_STRING:
        quote(json_string_value(v), buf, size);
        break;
    case JSON_INTEGER:
        snprintf(buf, size, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        break;
    case JSON_REAL:
        snprintf(buf, size, "%g", json_real_value(v));
        break;
    case JSON_TRUE:
        snprintf(buf, size, "true");
        break;
    case JSON_FALSE:
        snprintf(buf, size, "false");
        break;
    case JSON_NULL:
        snprintf(buf, size, "null");
        break;
    }
}

static unsigned char lower(unsigned char c)
{
    return c >= 'A' && c <= 'Z' ? (unsigned char)(c - 'A' + 'a') : c;
}

/* Two-row dynamic programme, O(|a| * |b|) time: fine for key names and GPU
 * types.  The rows live on the stack, so a suggestion never allocates (and an
 * error path never has a second way to fail); the price is the length cap. */
#define DISTANCE_MAX_LEN 128

size_t fs_jpath_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > DISTANCE_MAX_LEN || lb > DISTANCE_MAX_LEN)
        return SIZE_MAX;
    size_t prev[DISTANCE_MAX_LEN + 1], cur[DISTANCE_MAX_LEN + 1];
    for (size_t j = 0; j <= lb; j++)
        prev[j] = j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t sub =
                prev[j - 1] + (lower((unsigned char)a[i - 1]) != lower((unsigned char)b[j - 1]));
            size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
            size_t best = sub < del ? sub : del;
            cur[j] = best < ins ? best : ins;
        }
        memcpy(prev, cur, (lb + 1) * sizeof prev[0]);
    }
    return prev[lb];
}

static size_t common_prefix(const char *a, const char *b)
{
    size_t n = 0;
    while (a[n] != '\0' && lower((unsigned char)a[n]) == lower((unsigned char)b[n]))
        n++;
    return n;
}

bool fs_jpath_nearer(const char *word, const char *candidate, size_t *best_d, const char **best)
{
    size_t d = fs_jpath_distance(word, candidate);
    if (d > *best_d)
        return false;
    if (d == *best_d &&
        (*best == NULL || common_prefix(word, candidate) <= common_prefix(word, *best)))
        return false;
    *best_d = d;
    *best = candidate;
    return true;
}

const char *fs_jpath_closest(const char *word, const char *const *candidates, size_t n)
{
    size_t len = strlen(word);
    size_t limit = len / 3 > 2 ? len / 3 : 2;
    const char *best = NULL;
    size_t best_d = SIZE_MAX;
    for (size_t i = 0; i < n; i++)
        fs_jpath_nearer(word, candidates[i], &best_d, &best);
    return best_d <= limit ? best : NULL;
}

void fs_jpath_list(const char *const *words, size_t n, char *buf, size_t size)
{
    assert(size > 0);
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && len < size; i++) {
        int w = snprintf(buf + len, size - len, "%s\"%s\"", i ? ", " : "", words[i]);
        if (w < 0)
            break;
        len += (size_t)w;
    }
}

int fs_jpath_check_keys(fs_jpath *p, const json_t *obj, const char *const *keys, size_t n)
{
    const char *key;
    json_t *value;
    /* json_object_foreach takes a non-const object but does not modify it. */
    json_object_foreach ((json_t *)obj, key, value) {
        (void)value;
        size_t i = 0;
        while (i < n && strcmp(key, keys[i]) != 0)
            i++;
        if (i < n)
            continue;
        char shown[128];
        quote(key, shown, sizeof shown);
        const char *near = fs_jpath_closest(key, keys, n);
        if (near != NULL)
            return fs_jpath_fail(p, "unknown key %s (did you mean \"%s\"?)", shown, near);
        char list[512];
        fs_jpath_list(keys, n, list, sizeof list);
        return fs_jpath_fail(p, "unknown key %s (valid keys: %s)", shown, list);
    }
    return FS_OK;
}

int fs_jpath_string(fs_jpath *p, const json_t *v, bool nonempty, const char **out)
{
    if (!json_is_string(v))
        return fs_jpath_expected(p, v, nonempty ? "a non-empty string" : "a string");
    if (nonempty && json_string_length(v) == 0)
        return fs_jpath_expected(p, v, "a non-empty string");
    *out = json_string_value(v);
    return FS_OK;
}

int fs_jpath_number(fs_jpath *p, const json_t *v, fs_jpath_sign sign, double *out)
{
    static const char *const what[] = {"a number", "a non-negative number", "a positive number"};
    if (!json_is_number(v))
        return fs_jpath_expected(p, v, "%s", what[sign]);
    double x = json_number_value(v);
    if ((sign == FS_JPATH_NONNEG && !(x >= 0)) || (sign == FS_JPATH_POSITIVE && !(x > 0)))
        return fs_jpath_expected(p, v, "%s", what[sign]);
    *out = x;
    return FS_OK;
}

int fs_jpath_uint(fs_jpath *p, const json_t *v, uint64_t min, uint64_t max, uint64_t *out)
{
    assert(min <= max);
    char what[96];
    /* A small range is part of the rule ("from 1 to 10000"); a bound that
     * only reflects the field's width (2^32 - 1 and up) would be noise, so it
     * appears only when a value actually crosses it. */
    if (max < UINT32_MAX)
        snprintf(what, sizeof what, "an integer from %" PRIu64 " to %" PRIu64, min, max);
    else if (min <= 1)
        snprintf(what, sizeof what, "%s",
                 min == 0 ? "a non-negative integer" : "a positive integer");
    else
        snprintf(what, sizeof what, "an integer >= %" PRIu64, min);

    uint64_t x;
    if (json_is_integer(v)) {
        json_int_t i = json_integer_value(v);
        if (i < 0)
            return fs_jpath_expected(p, v, "%s", what);
        x = (uint64_t)i;
    } else if (json_is_real(v)) {
        /* 2^53: beyond it a double no longer tells neighbouring integers
         * apart, so "integral" would mean nothing. */
        double d = json_real_value(v);
        if (!(d >= 0 && d <= 9007199254740992.0) || d != floor(d))
            return fs_jpath_expected(p, v, "%s", what);
        x = (uint64_t)d;
    } else {
        return fs_jpath_expected(p, v, "%s", what);
    }
    if (x > max && max >= UINT32_MAX)
        return fs_jpath_expected(p, v, "%s no larger than %" PRIu64, what, max);
    if (x < min || x > max)
        return fs_jpath_expected(p, v, "%s", what);
    *out = x;
    return FS_OK;
}

int fs_jpath_duration(fs_jpath *p, const json_t *v, fs_jpath_sign sign, double *out)
{
    const char *what = sign == FS_JPATH_POSITIVE ? "a positive duration like \"7d\" or \"90m\""
                                                 : "a duration like \"7d\" or \"90m\"";
    double s;
    if (json_is_number(v)) {
        s = json_number_value(v);
        if (!(s >= 0))
            return fs_jpath_expected(p, v, "%s (negative durations are not allowed)", what);
    } else if (json_is_string(v)) {
        char why[128];
        if (fs_duration_parse(json_string_value(v), &s, why, sizeof why) != 0) {
            char got[128];
            fs_jpath_describe(v, got, sizeof got);
            return fs_jpath_fail(p, "expected %s, got %s (%s)", what, got, why);
        }
    } else {
        return fs_jpath_expected(p, v, "%s", what);
    }
    if (sign == FS_JPATH_POSITIVE && !(s > 0))
        return fs_jpath_expected(p, v, "%s", what);
    *out = s;
    return FS_OK;
}

int fs_jpath_get(fs_jpath *p, const json_t *obj, const char *key, bool required, json_t **out)
{
    assert(json_is_object(obj));
    json_t *v = json_object_get(obj, key);
    if (v == NULL) {
        if (required)
            return fs_jpath_fail(p, "missing required key \"%s\"", key);
        return FS_OK;
    }
    *out = v;
    return FS_OK;
}

/* The member getters share one shape: look up, descend, read, come back up.
 * The path stays pushed while the reader fails, so its message names the key. */
#define MEMBER(read_call)                                                                          \
    json_t *v = NULL;                                                                              \
    int rc = fs_jpath_get(p, obj, key, required, &v);                                              \
    if (rc != FS_OK || v == NULL)                                                                  \
        return rc;                                                                                 \
    size_t mark = fs_jpath_push_key(p, key);                                                       \
    rc = (read_call);                                                                              \
    fs_jpath_pop(p, mark);                                                                         \
    return rc

int fs_jpath_get_string(fs_jpath *p, const json_t *obj, const char *key, bool required,
                        bool nonempty, const char **out)
{
    MEMBER(fs_jpath_string(p, v, nonempty, out));
}

int fs_jpath_get_number(fs_jpath *p, const json_t *obj, const char *key, bool required,
                        fs_jpath_sign sign, double *out)
{
    MEMBER(fs_jpath_number(p, v, sign, out));
}

int fs_jpath_get_uint(fs_jpath *p, const json_t *obj, const char *key, bool required, uint64_t min,
                      uint64_t max, uint64_t *out)
{
    MEMBER(fs_jpath_uint(p, v, min, max, out));
}

int fs_jpath_get_duration(fs_jpath *p, const json_t *obj, const char *key, bool required,
                          fs_jpath_sign sign, double *out)
{
    MEMBER(fs_jpath_duration(p, v, sign, out));
}

static int read_object(fs_jpath *p, json_t *v, json_t **out)
{
    if (!json_is_object(v))
        return fs_jpath_expected(p, v, "an object");
    *out = v;
    return FS_OK;
}

static int read_array(fs_jpath *p, json_t *v, bool nonempty, json_t **out)
{
    if (!json_is_array(v) || (nonempty && json_array_size(v) == 0))
        return fs_jpath_expected(p, v, nonempty ? "a non-empty array" : "an array");
    *out = v;
    return FS_OK;
}

int fs_jpath_get_object(fs_jpath *p, const json_t *obj, const char *key, bool required,
                        json_t **out)
{
    MEMBER(read_object(p, v, out));
}

int fs_jpath_get_array(fs_jpath *p, const json_t *obj, const char *key, bool required,
                       bool nonempty, json_t **out)
{
    MEMBER(read_array(p, v, nonempty, out));
}

/*
 * duration — parsing and printing scenario durations; see duration.h.
 *
 * The grammar is small enough that a hand-written scanner gives better
 * messages than a regex or sscanf would: each failure names the unit, the
 * character or the clock field that is wrong.
 */
#include "duration.h"
#include "number.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct unit {
    const char *name;
    double seconds;
} units[] = {
    {"ns", 1e-9}, {"us", 1e-6},  {"ms", 1e-3},   {"s", 1.0},
    {"m", 60.0},  {"h", 3600.0}, {"d", 86400.0}, {"w", 604800.0},
};

static int fail(char *why, size_t why_size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(char *why, size_t why_size, const char *fmt, ...)
{
    if (why != NULL && why_size > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, why_size, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}
static bool is_alpha(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
static bool is_space(char c)
{
    return c == ' ' || c == '\t';
}

/* Length of a plain decimal number at p (digits, optionally '.' digits), or 0.
 * Signs, exponents, hex, "inf" and "nan" are not numbers here, although
 * strtod would take them: a duration in a scenario file never needs them, and
 * accepting "1e3s" or "infs" would only hide typos. */
static size_t number_span(const char *p)
{
    size_t n = 0;
    while (is_digit(p[n]))
        n++;
    size_t int_digits = n;
    if (p[n] == '.') {
        size_t frac = n + 1;
        while (is_digit(p[frac]))
            frac++;
        if (frac - n - 1 == 0 && int_digits == 0)
            return 0; /* a lone "." */
        n = frac;
    }
    return n;
}

/* The number in a span already checked by number_span, read from a copy of
 * just that span ("1e3s" is 1 and the unit "e3s", not 1000 s).  64
 * characters is far beyond any duration a person writes. */
static int to_double(const char *p, size_t len, double *out)
{
    char copy[64];
    if (len >= sizeof copy)
        return -1;
    memcpy(copy, p, len);
    copy[len] = '\0';
    return fs_number_parse(copy, out);
}

/* HH:MM or HH:MM:SS(.fff) at p, hours any number of digits, minutes and
 * seconds exactly two digits (so "9:5" is not silently 9:05 or 9:50). */
static int parse_clock(const char *p, size_t *used, double *seconds, char *why, size_t why_size)
{
    size_t i = 0;
    double h = 0, m = 0, s = 0;
    while (is_digit(p[i]))
        h = h * 10 + (p[i++] - '0');
    assert(i > 0 && p[i] == ':');
    i++;
    if (!is_digit(p[i]) || !is_digit(p[i + 1]) || is_digit(p[i + 2]))
        return fail(why, why_size, "clock time needs two-digit minutes, as in \"09:30\"");
    m = (p[i] - '0') * 10 + (p[i + 1] - '0');
    i += 2;
    if (m >= 60)
        return fail(why, why_size, "minutes %g out of range in clock time (must be < 60)", m);
    if (p[i] == ':') {
        i++;
        if (!is_digit(p[i]) || !is_digit(p[i + 1]))
            return fail(why, why_size, "clock time needs two-digit seconds, as in \"09:30:15\"");
        size_t len = number_span(p + i);
        if (len < 2 || is_digit(p[i + 2]) || to_double(p + i, len, &s) != 0)
            return fail(why, why_size, "clock time needs two-digit seconds, as in \"09:30:15\"");
        i += len;
        if (s >= 60)
            return fail(why, why_size, "seconds %g out of range in clock time (must be < 60)", s);
    }
    *used = i;
    *seconds = h * 3600 + m * 60 + s;
    return 0;
}

int fs_duration_parse(const char *text, double *seconds, char *why, size_t why_size)
{
    assert(text != NULL && seconds != NULL);
    const char *p = text;
    double total = 0;
    bool any = false;     /* a term or a clock has been read */
    bool clock_ok = true; /* only days / weeks so far, so a clock time may follow */

    while (is_space(*p))
        p++;
    if (*p == '\0')
        return fail(why, why_size, "empty duration");

    while (*p != '\0') {
        if (*p == '-')
            return fail(why, why_size, "negative durations are not allowed");
        size_t len = number_span(p);
        if (len == 0) {
            if (any) {
                int before = (int)(p - text);
                while (before > 0 && is_space(text[before - 1]))
                    before--;
                return fail(why, why_size, "unexpected \"%.16s\" after \"%.*s\"", p, before, text);
            }
            return fail(why, why_size, "expected a number");
        }
        size_t digits = 0;
        while (is_digit(p[digits]))
            digits++;
        if (p[digits] == ':' && digits == len) {
            if (!clock_ok)
                return fail(why, why_size, "a clock time may follow only days or weeks");
            size_t used = 0;
            double clock_s = 0;
            if (parse_clock(p, &used, &clock_s, why, why_size) != 0)
                return -1;
            total += clock_s;
            any = true;
            p += used;
            while (is_space(*p))
                p++;
            if (*p != '\0')
                return fail(why, why_size, "the clock time must come last");
            break;
        }
        double value;
        if (to_double(p, len, &value) != 0)
            return fail(why, why_size, "number \"%.16s...\" too long or out of range", p);
        const char *u = p + len;
        size_t ulen = 0;
        while (is_alpha(u[ulen]))
            ulen++;
        if (ulen == 0)
            return fail(why, why_size,
                        "missing unit after \"%.*s\" (use ns, us, ms, s, m, h, d or w)", (int)len,
                        p);
        const struct unit *unit = NULL;
        for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
            if (strlen(units[i].name) == ulen && strncmp(units[i].name, u, ulen) == 0)
                unit = &units[i];
        if (unit == NULL)
            return fail(why, why_size, "unknown unit \"%.*s\"", (int)ulen, u);
        total += value * unit->seconds;
        clock_ok = clock_ok && unit->seconds >= 86400.0;
        any = true;
        p = u + ulen;
        while (is_space(*p))
            p++;
    }
    if (!isfinite(total))
        return fail(why, why_size, "duration out of range");
    *seconds = total;
    return 0;
}

/* Appends to buf at *len, never past size; truncation just stops output. */
static void append(char *buf, size_t size, size_t *len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void append(char *buf, size_t size, size_t *len, const char *fmt, ...)
{
    if (*len >= size)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *len, size - *len, fmt, ap);
    va_end(ap);
    if (n > 0)
        *len += (size_t)n;
}

void fs_duration_format(double seconds, char *buf, size_t size)
{
    assert(buf != NULL && size > 0);
    size_t len = 0;
    buf[0] = '\0';
    if (isnan(seconds)) {
        append(buf, size, &len, "nan");
        return;
    }
    if (seconds < 0) {
        append(buf, size, &len, "-");
        seconds = -seconds;
    }
    /* %.9g keeps every digit a scenario file would plausibly hold, so
     * parse(format(x)) == x for such values, and still prints "1.5s" not
     * "1.500000000s". */
    if (seconds == 0) {
        append(buf, size, &len, "0s");
    } else if (isinf(seconds) || seconds >= 1e15) {
        append(buf, size, &len, "%gs", seconds);
    } else if (seconds < 1e-6) {
        append(buf, size, &len, "%.9gns", seconds * 1e9);
    } else if (seconds < 1e-3) {
        append(buf, size, &len, "%.9gus", seconds * 1e6);
    } else if (seconds < 1) {
        append(buf, size, &len, "%.9gms", seconds * 1e3);
    } else {
        double whole = floor(seconds);
        double frac = seconds - whole;
        unsigned long long w = (unsigned long long)whole;
        unsigned long long d = w / 86400, h = w / 3600 % 24, m = w / 60 % 60, s = w % 60;
        if (d)
            append(buf, size, &len, "%llud", d);
        if (h)
            append(buf, size, &len, "%lluh", h);
        if (m)
            append(buf, size, &len, "%llum", m);
        if (frac > 0)
            append(buf, size, &len, "%.9gs", (double)s + frac);
        else if (s)
            append(buf, size, &len, "%llus", s);
    }
}

#include "number.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static size_t digits(const char *p)
{
    size_t n = 0;
    while (p[n] >= '0' && p[n] <= '9')
        n++;
    return n;
}

size_t fs_number_span(const char *text)
{
    size_t n = text[0] == '+' || text[0] == '-';
    size_t whole = digits(text + n);
    n += whole;
    size_t frac = 0;
    if (text[n] == '.') {
        frac = digits(text + n + 1);
        if (whole == 0 && frac == 0)
            return 0; /* "." or "-." */
        n += 1 + frac;
    }
    if (whole == 0 && frac == 0)
        return 0;
    if (text[n] == 'e' || text[n] == 'E') {
        size_t e = n + 1 + (text[n + 1] == '+' || text[n + 1] == '-');
        size_t exp = digits(text + e);
        if (exp > 0)
            n = e + exp; /* else the 'e' is not part of the number */
    }
    return n;
}

int fs_number_prefix(const char *text, double *out, const char **rest)
{
    /* strtod reads a copy of the checked span: on the text itself it would
     * read on into "0x10" or "5e3" past where the span ends.  A number of
     * more than 400 characters is no number a person wrote. */
    char copy[400];
    size_t n = fs_number_span(text);
    if (n == 0 || n >= sizeof copy)
        return -1;
    memcpy(copy, text, n);
    copy[n] = '\0';
    char *end;
    errno = 0;
    double v = strtod(copy, &end);
    /* end tells a locale whose decimal point is not '.'. */
    if ((size_t)(end - copy) != n || !isfinite(v) || (errno == ERANGE && fabs(v) > 1))
        return -1;
    *out = v;
    *rest = text + n;
    return 0;
}

int fs_number_parse(const char *text, double *out)
{
    const char *rest;
    double v;
    if (fs_number_prefix(text, &v, &rest) != 0 || *rest != '\0')
        return -1;
    *out = v;
    return 0;
}

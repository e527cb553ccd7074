/*
 * memsize — memory sizes with units; see memsize.h.
 */
#include "memsize.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A decimal unit is 10^exp10 bytes, read by strtod with the exponent
 * appended, so "85.9GB" is the double nearest 85.9e9 (multiplying the double
 * nearest 85.9 by 1e9 can miss it by an ulp); a binary one is 2^exp2 bytes,
 * an exact scaling. */
static const struct unit {
    const char *name;
    int exp10, exp2;
} units[] = {
    {"B", 0, 0},   {"kB", 3, 0},   {"KB", 3, 0},   {"MB", 6, 0},   {"GB", 9, 0},
    {"TB", 12, 0}, {"KiB", 0, 10}, {"MiB", 0, 20}, {"GiB", 0, 30}, {"TiB", 0, 40},
};

int fs_memsize_parse(const char *text, double *bytes, char *why, size_t why_size)
{
    char dummy[1];
    if (!why || why_size == 0) {
        why = dummy;
        why_size = sizeof dummy;
    }
    /* Digits with at most one '.': strtod alone would take "1e3", "0x10" and "inf". */
    size_t n = strspn(text, "0123456789."), dots = 0;
    for (size_t i = 0; i < n; i++)
        dots += text[i] == '.';
    if (n == 0 || dots > 1 || (n == 1 && dots == 1)) {
        snprintf(why, why_size, "expected a number and a unit such as GiB or GB");
        return -1;
    }
    char number[80];
    if (n > 64) {
        snprintf(why, why_size, "the number is too long");
        return -1;
    }
    const char *unit = text + n;
    for (size_t u = 0; u < sizeof units / sizeof units[0]; u++) {
        if (strcmp(unit, units[u].name) != 0)
            continue;
        snprintf(number, sizeof number, "%.*se%d", (int)n, text, units[u].exp10);
        char *end;
        double v = strtod(number, &end);
        if (*end || !isfinite(v)) {
            snprintf(why, why_size, "expected a number and a unit such as GiB or GB");
            return -1;
        }
        *bytes = ldexp(v, units[u].exp2);
        return 0;
    }
    if (*unit)
        snprintf(why, why_size, "unknown unit \"%.16s\": use GiB, MiB, TiB, GB, MB, TB, kB or B", unit);
    else
        snprintf(why, why_size, "missing unit (GiB or GB; a plain JSON number means GiB)");
    return -1;
}

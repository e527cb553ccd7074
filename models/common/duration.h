/*
 * duration — parsing and printing the durations scenario files use.
 *
 * Accepted: one or more <number><unit> terms, optionally separated by spaces,
 * with units ns, us, ms, s, m, h, d, w ("250ms", "1h30m", "1.5s", "7d"), and
 * optionally a trailing clock time HH:MM or HH:MM:SS that adds to the days
 * before it ("2d 09:30" = 2 days 9.5 hours; "09:30" alone is 9.5 hours).
 * Numbers are decimal, non-negative.  Results are in seconds.
 *
 * Details: a unit directly follows its number ("1 h" is refused) and is
 * lower case; terms add up in any order.  Numbers are plain decimals
 * ("1.5", ".5", "2."): no sign, exponent, hex, "inf" or "nan".  A bare number
 * string ("90") is refused for its missing unit, so a forgotten "s" or "m"
 * never silently means seconds; scenario files give plain seconds as a JSON
 * number instead.  In a clock time, minutes and seconds are two digits and
 * below 60 (seconds may carry a fraction), hours are any number of digits; a
 * clock may follow only d or w terms and must come last.
 */
#ifndef FS_DURATION_H
#define FS_DURATION_H

#include <stddef.h>

/* Returns 0 and *seconds, or -1 with a short reason in why (if not NULL),
 * e.g. "unknown unit \"x\"" or "expected a number". */
int fs_duration_parse(const char *text, double *seconds, char *why, size_t why_size);

/* Writes a compact form ("1h30m", "250ms", "2d") into buf. */
void fs_duration_format(double seconds, char *buf, size_t size);

#endif

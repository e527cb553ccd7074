/*
 * number — the one reading of a plain decimal number from text a person
 * wrote (a trace's fields, a --vary range, a plan's limits).
 *
 * strtod alone takes far more than a decimal number: hex ("0x10" is 16),
 * "inf", "nan" and "infinity", and leading white space.  In a CSV cell or a
 * command-line value those are typos or garbage, not numbers, and reading
 * them silently turns a bad input into a plausible figure.  This module
 * accepts [+-]digits[.digits][(e|E)[+-]digits] (a leading "." or a trailing
 * one counts too: ".5", "5.") and nothing else, finite.  It owns nothing.
 */
#ifndef FS_NUMBER_H
#define FS_NUMBER_H

#include <stddef.h>

/* Length of the decimal number that starts at text, or 0 when none does. */
size_t fs_number_span(const char *text);

/* The decimal number that starts text, as a finite double: 0, *out and
 * *rest (what follows it), or -1 when text does not start with one.  Only
 * the span is read, so "0x10" is 0 followed by "x10" (strtod would give 16). */
int fs_number_prefix(const char *text, double *out, const char **rest);

/* The whole of text as a finite decimal number: 0 and *out, or -1 (*out
 * untouched) for anything else, including out-of-range magnitudes. */
int fs_number_parse(const char *text, double *out);

#endif

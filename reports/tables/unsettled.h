/*
 * unsettled — how the terminal tables mark a latency figure that has not
 * settled (settle.h): the mark `~` beside the figure and the one legend line
 * that explains it.  The run table and the policy comparison both call it,
 * so the two say the same thing in the same words.
 *
 * A figure with no data (NaN) is neither settled nor not: it gets no mark
 * (the tables say "no data" instead).  Owns nothing.
 */
#ifndef FS_UNSETTLED_H
#define FS_UNSETTLED_H

#include <stdbool.h>
#include <stdio.h>

#include "results.h"

/* Has this figure a value that has not settled? */
bool fs_unsettled_is(const fs_settling *st);

/* "~" for a figure that has not settled, else "". */
const char *fs_unsettled_mark(const fs_settling *st);

/* The legend of the mark, one line; `also` (or NULL) is added inside the
 * line before its end, e.g. what the mark means beside a difference. */
void fs_unsettled_legend(FILE *fp, const char *also);

#endif

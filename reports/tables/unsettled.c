#include "unsettled.h"

#include <math.h>

bool fs_unsettled_is(const fs_settling *st)
{
    return st->why != 0 && !isnan(st->value);
}

const char *fs_unsettled_mark(const fs_settling *st)
{
    return fs_unsettled_is(st) ? "~" : "";
}

void fs_unsettled_legend(FILE *fp, const char *also)
{
    fprintf(fp, "~ not settled: a longer horizon, more replications or a longer warm-up would move it%s%s\n",
            also ? "; " : "", also ? also : "");
}

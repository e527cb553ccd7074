#include "quantile.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>

size_t fs_quantile_rank(double q, size_t n)
{
    assert(n >= 1);
    double r = ceil(q * (double)n - 1e-9);
    return r < 1 ? 1 : r > (double)n ? n : (size_t)r;
}

static int fs__ascending(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void fs_quantile_sort(double *values, size_t n)
{
    qsort(values, n, sizeof *values, fs__ascending);
}

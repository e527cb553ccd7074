#include "quantile.h"

#include <assert.h>
#include <math.h>

size_t fs_quantile_rank(double q, size_t n)
{
    assert(n >= 1);
    double r = ceil(q * (double)n - 1e-9);
    return r < 1 ? 1 : r > (double)n ? n : (size_t)r;
}

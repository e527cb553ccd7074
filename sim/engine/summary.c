#include "summary.h"

#include <assert.h>
#include <math.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>

fs_summary fs_summary_of(const double *x, size_t stride, size_t n)
{
    assert(n >= 1);
    fs_summary s = {.n = n};
    s.mean = gsl_stats_mean(x, stride, n);
    if (n < 2)
        return s;
    s.sd = gsl_stats_sd_m(x, stride, n, s.mean);
    s.half_width = gsl_cdf_tdist_Pinv(0.975, (double)(n - 1)) * s.sd / sqrt((double)n);
    s.valid = true;
    return s;
}

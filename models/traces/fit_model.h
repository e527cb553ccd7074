/*
 * fit_model — the arrival model fit-traffic prints, chosen and checked
 * (fit.h's fs_fit_compute calls it; fit.h holds the result in fs_fit.model).
 *
 * fit.c describes a trace (hourly rates, goodness of fit, bursts); this part
 * turns the description into the fragment and says how far to trust it:
 *   - Groups: requests at the identical time are one group.  Their size law
 *     is measured, and fitted ("groups") when the mean size is above
 *     FS_FIT_GROUP_MIN_MEAN over more than FS_FIT_GROUP_MIN_POINTS groups.
 *   - Trend (input spanning >= 3 days, tested without the bursts found
 *     against the profile, which are then looked for again against the
 *     trend when it is printed): a factor per day beside the hourly
 *     profile, fitted jointly (a Poisson log-linear model rate = a_cell x
 *     b_day x growth, by iterative proportional fitting: each cell's and
 *     each day's expected count equals its observed count).  ln b_day on the
 *     day (gsl_fit_linear) gives the growth and its standard error; "growth"
 *     is printed when |slope| > 2 standard errors.  "daily_levels" are
 *     printed when the daily counts, against the profile (with the growth
 *     when printed), have a chi-square (divided by the groups' E[G^2]/E[G],
 *     the compound Poisson variance) with p < FS_FIT_REJECT_P on days - 1
 *     (- 1 with growth) degrees of freedom.
 *   - The fragment's profile leaves the listed bursts' windows out (their
 *     arrivals and their seconds), so each burst's multiplier, against that
 *     profile, restores exactly its own arrivals: nothing is counted twice.
 *     The base is then scaled so that the fragment's expected count over the
 *     observed span equals the arrivals (only cells observed under
 *     FS_FIT_MIN_COVER_S, printed as 1, need it).
 *   - Dispersion at 1 min, 10 min, 1 h (and 1 day when the input spans >= 7
 *     days): counts in windows of that length against the fragment's
 *     deterministic rate (profile, trend, bursts), index = mean (O-E)^2/E,
 *     and z = (sum (O-E)^2/E - n) / sqrt(sum (2 + 1/E)), the exact Poisson
 *     variance of each term; p = Q(z), one-sided.  The same for group counts
 *     (E / E[G]) when groups are fitted.
 *   - The choice: Poisson with the profile, then + groups, then + levels and
 *     growth; the first whose test does not reject (p >= FS_FIT_REJECT_P at
 *     every scale) is chosen, else the last, said to be rejected still.
 */
#ifndef FS_FIT_MODEL_H
#define FS_FIT_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

#define FS_FIT_GROUP_HIST 1024      /* group sizes counted one by one up to this */
#define FS_FIT_MAX_GROUP_SIZES 32   /* sizes in the printed law, the last a tail bucket */
#define FS_FIT_GROUP_MIN_MEAN 1.05
#define FS_FIT_GROUP_MIN_POINTS 100
#define FS_FIT_MAX_LEVELS 400       /* days of daily_levels; a longer input gets none */
#define FS_FIT_MAX_SCALES 4
#define FS_FIT_REJECT_P 1e-3

typedef struct fs_fit_scale {
    double window_s;
    size_t windows;         /* with E > 0 */
    double index, z, p_value;                   /* requests */
    double group_index, group_z, group_p_value; /* groups: NAN when not fitted */
} fs_fit_scale;

typedef struct fs_fit_groups {
    double points;          /* groups seen (distinct times in a row) */
    double requests;
    double mean, mean_square; /* E[G], E[G^2] of the sizes seen */
    double largest;
    bool fitted;            /* mean and points above the thresholds */
    bool printed;           /* in the fragment: fitted, and the choice goes past Poisson */
    /* The printed law: the FS_FIT_MAX_GROUP_SIZES - 1 most frequent sizes,
     * and the rest as one size, their mean rounded (this understates the
     * tail's E[G^2]: law_mean_square says by how much). */
    size_t n_sizes;
    uint32_t size[FS_FIT_MAX_GROUP_SIZES];
    double weight[FS_FIT_MAX_GROUP_SIZES];
    double tail_share;      /* share of groups in the tail bucket; 0 without one */
    double law_mean, law_mean_square;
} fs_fit_groups;

typedef struct fs_fit_trend {
    bool tested;            /* the input spans >= 3 days */
    size_t days;            /* days in the span */
    size_t regression_days; /* days with >= 6 h observed and arrivals */
    double slope, slope_se; /* ln(day factor) per day; NAN untested */
    double growth_per_day;  /* exp(slope) - 1 */
    bool growth;            /* printed */
    double day_chi2, day_p; /* daily counts against the profile (+ growth) */
    int day_dof;
    bool levels;            /* printed */
    size_t n_levels;
    double level[FS_FIT_MAX_LEVELS];
} fs_fit_trend;

typedef enum { FS_FIT_CHOSE_POISSON, FS_FIT_CHOSE_GROUPS, FS_FIT_CHOSE_TREND } fs_fit_choice;

typedef struct fs_fit_model {
    /* The fragment. */
    double base_rps;
    double multiplier[2][24]; /* [FS_FIT_WEEKDAY] is every day when the profile is not split */
    double expected;          /* its expected count over the observed span (before rounding) */
    fs_fit_groups groups;
    fs_fit_trend trend;
    /* The checks. */
    size_t n_scales;
    fs_fit_scale scale[FS_FIT_MAX_SCALES];
    fs_fit_choice chosen;
    bool rejected;            /* even the chosen model is rejected at some scale */
    char why[640];
} fs_fit_model;

/* x to `digits` significant digits (as "%.*g" prints it): the fragment's
 * figures are rounded here, so that its expected count is computed from
 * what is printed. */
double fs_fit_model_round(double x, int digits);

struct fs_fit_acc;
struct fs_fit;

/* The work arrays of one fit: per clock hour of the input. */
typedef struct fs__fit_hours {
    size_t n;
    int *cell;        /* day type x 24 + hour, day type 0 when the profile is not split */
    double *count, *cover; /* with the listed bursts' windows taken out, for the refit */
    double *growth;   /* the mean growth factor over the hour's observed part (1 without) */
    double *rate;     /* the model's rate without bursts */
} fs__fit_hours;

/* Groups, and h->rate: the profile's, for the first burst search. */
void fs__fit_model_start(const struct fs_fit_acc *acc, struct fs_fit *f, fs__fit_hours *h);

/* The trend, tested without the bursts found; true when it is printed,
 * h->rate then being the trend's for a second burst search. */
bool fs__fit_model_trend(const struct fs_fit_acc *acc, struct fs_fit *f, fs__fit_hours *h);

/* After the burst search: the refit without the listed bursts' windows, the
 * bursts' multipliers against it, the scales and the choice. */
int fs__fit_model_finish(const struct fs_fit_acc *acc, struct fs_fit *f, fs__fit_hours *h, fs_error *err);

#endif

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
 *   - Clustered models (fit_cluster.c), tried only when that last is still
 *     rejected, on a request trace: a random factor M(t) (mean 1) on the
 *     chosen fragment's rate, as models/workload/modulation.h generates it,
 *     simplest first by free parameters: "noise" gamma (cv, interval;
 *     independent intervals), "mmpp" with 2 states (the busy state's and the
 *     quiet state's mean sojourns, and the quiet state's rate; the mean is
 *     the fitted base), "noise" lognormal with a correlation time (cv,
 *     interval, correlation_time).  Counts of a window of length T with
 *     deterministic mean E have Var = E + E^2 g(T), g(T) = Var of M averaged
 *     over the window (a doubly stochastic Poisson count: Cox 1955), so the
 *     index of dispersion is I(T) = 1 + E g(T).  Each model's g(T) is in
 *     closed form (MMPP-2, gamma) or integrated from the factor's
 *     autocovariance (lognormal AR(1)).  The fit: at every scale T from the
 *     counting window to 2 days with >= 10 pairs of adjacent fully observed
 *     windows, d = O1/E1 - O2/E2 has E[d^2] = 1/E1 + 1/E2 + 4 (g(T) -
 *     g(2T)): a difference that the profile's fit to the same counts does
 *     not shrink.  Least squares of those, standardised by their Gaussian
 *     variance (gsl_multimin's simplex from the best point of a grid of
 *     starts); the MMPP adds the third central moment at scales up to
 *     10 min, sum (O-E)^3 - E - 3 E^2 g(T) against sum E^3 h(T), which fixes
 *     how its variance splits into a rare busy state or a frequent one.  With
 *     groups printed, group counts are fitted (the factor multiplies the
 *     group rate).  Limits are the scenario's: sojourns and intervals >= 1 s
 *     (FS_FIT_MIN_MODULATION_S), cv <= FS_FIT_MAX_NOISE_CV.  The test: each
 *     window's (O-E)^2 / (E I), z = (sum - n) / sqrt(sum (2 + 1/(E I))) at
 *     the scales above, two-sided (a model more dispersed than the data is
 *     wrong too; the factor's own kurtosis is left out of the variance).
 *     The first candidate not rejected is chosen, else the one with the
 *     smallest largest |z|, rejected still.  A clustered
 *     model makes its own bursts: its E leaves the listed bursts'
 *     multipliers out, the base scaled to keep the count, and its fragment
 *     lists no bursts (they would count twice).  The MMPP's printed rates
 *     are rounded, and the expected count follows them.
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

/* The clustered candidates, in the order they are tried. */
typedef enum { FS_FIT_NOISE_GAMMA, FS_FIT_MMPP2, FS_FIT_NOISE_LOGNORMAL, FS_FIT_N_CLUSTERED } fs_fit_clustered_kind;

/* The scenario's limits (scenario.h: FS_SCENARIO_MIN_MODULATION_S,
 * FS_SCENARIO_MAX_NOISE_CV), repeated because this layer is below it;
 * tests/test_fit_cluster.c checks they agree. */
#define FS_FIT_MIN_MODULATION_S 1.0
#define FS_FIT_MAX_NOISE_CV 10.0
#define FS_FIT_MAX_FIT_SCALES 24

typedef struct fs_fit_clustered {
    bool fitted;            /* enough scales (residuals > parameters) and a finite fit */
    int params;             /* free parameters */
    double cost;            /* the fit's sum of squared standardised residuals */
    /* mmpp: state 0 is the busy one; rps as printed (base x its factor). */
    double rps[2], sojourn_s[2];
    /* noise: correlation_s 0 for independent intervals. */
    double cv, interval_s, correlation_s;
    /* The test at each of fs_fit_model.scale: the model's mean index
     * (mean of I = 1 + E g(T)), z and p; NAN where the scale has no test. */
    double model_index[FS_FIT_MAX_SCALES], z[FS_FIT_MAX_SCALES], p_value[FS_FIT_MAX_SCALES];
    double worst_z;
    bool rejected;
} fs_fit_clustered;

/* A scale T of the clustered fit, as measured from pairs of adjacent fully
 * observed windows: the mean of (O1/E1 - O2/E2)^2 - 1/E1 - 1/E2 (weighted),
 * whose expectation is 4 (g(T) - g(2T)), and its standard error. */
typedef struct fs_fit_factor_scale {
    double window_s;
    size_t windows;         /* pairs */
    double factor_diff, factor_diff_se;
} fs_fit_factor_scale;

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
    char why[1024];
    /* The clustered models: tried when the ladder above ends rejected. */
    bool clustered_tried;
    bool clustered_on_groups; /* fitted and tested on group counts (groups printed) */
    size_t n_factor_scales;
    fs_fit_factor_scale factor_scale[FS_FIT_MAX_FIT_SCALES];
    fs_fit_clustered clustered[FS_FIT_N_CLUSTERED];
    int modulation;           /* the one printed (fs_fit_clustered_kind), -1 for none */
    double clustered_base_rps; /* the base without the listed bursts (base_rps once one is printed) */
    double clustered_index[FS_FIT_MAX_SCALES]; /* the measured index against that, per scale */
} fs_fit_model;

/* "noise (gamma)", "mmpp (2 states)", "noise (lognormal, correlated)". */
extern const char *const fs_fit_clustered_names[FS_FIT_N_CLUSTERED];

/* g(t): the variance of the kind's factor averaged over a window of t
 * seconds (see the top), from c's figures (rps and sojourn_s for the MMPP,
 * whose factor is rps_i over its stationary mean; cv, interval_s and
 * correlation_s for noise); *third (may be NULL) gets the third central
 * moment of that average, the MMPP's (0 for noise, which the fit does not
 * use it for).  Exposed for the tests. */
double fs_fit_clustered_var(fs_fit_clustered_kind kind, const fs_fit_clustered *c, double t, double *third);

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

/* After the choice, when it is rejected still: the clustered candidates
 * fitted and tested against e, the fragment's expected count per counting
 * window, and the choice among them (fit_cluster.c).  FS_OK or
 * FS_ERR_RUNTIME (out of memory). */
int fs__fit_clustered(const struct fs_fit_acc *acc, struct fs_fit *f, const double *e, fs_error *err);

#endif

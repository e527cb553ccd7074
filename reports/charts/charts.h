/*
 * charts — the charts of a results directory and of a plan, as data, gnuplot
 * scripts and (where gnuplot is installed) PNG and SVG images.
 *
 * Reads what `fleetsim run` or `compare --out DIR` wrote (results.json,
 * timeseries.csv, pools_timeseries.csv, and training_waits.csv and
 * slo_breaches.csv when present) and writes into out_dir, for each chart
 * STEM:
 *   STEM.csv  the numbers behind the chart, names quoted by libcsv;
 *   STEM.gp   a self-contained gnuplot script: the data is inline (numbers
 *             only), it reads no file and writes only STEM.png and STEM.svg;
 *   STEM.png  pngcairo, 900x420, and STEM.svg, when gnuplot ran;
 *   STEM.log  gnuplot's stdout and stderr, when it was started.
 *
 * The charts, at most FS_CHARTS_MAX whatever the scenario's size:
 *   p99_by_hour[_k]   mean window p99 by time of day (quarter-hour bins, or
 *                     the window when longer; windows without completions
 *                     left out), one line per policy, the p99 SLO as a dashed
 *                     line; one chart per service of the first policy with a
 *                     p99 SLO (the first 4), or for its first service;
 *   cost_by_pool      cost per policy, stacked by pool, on-demand then spot;
 *   utilization       the fleet's busy share and headroom per window: busy
 *                     GPUs over provisioned GPUs, summed over pools and
 *                     pooled over replications.  Provisioned GPUs come from a
 *                     `gpus` column when pools_timeseries.csv has one, else
 *                     busy_gpus / utilization, else (an idle pool) the pool's
 *                     configured gpus in results.json;
 *   queue_wait_cdf    the empirical CDF of training queue waits (only when a
 *                     training job started);
 *   breach_heatmap[_k] breached SLO windows by day and hour of day, one chart
 *                     per policy (the first 4; only when some service has an
 *                     SLO target).
 *   ttft_by_hour, tpot_by_hour   an LLM service's window TTFT and TPOT p99
 *                     by time of day, as p99_by_hour, with its TTFT / TPOT
 *                     p99 target dashed (the first LLM service of the first
 *                     policy, from llm_timeseries.csv; none without one);
 *   batch_sizes       that service's engine steps by running sequences, as
 *                     a share of its steps, one line per policy;
 *   kv_occupancy      its KV-cache occupancy per window (mean over
 *                     replications), one line per policy.
 *
 * A plan's report has one chart of its own, written by
 * fs_charts_write_frontier from numbers its caller read (plan_report.h):
 *   plan_frontier     every point the plan judged at (the minimized figure,
 *                     the frontier figure) with 95% CI bars, a mark per
 *                     verdict, the frontier joined by a line, the answer
 *                     ringed, and the limit of a constraint on the vertical
 *                     figure as a dashed line; the vertical axis is
 *                     logarithmic when the values span more than two decades
 *                     (a point that fails can be 10^4 times slower).
 *                     (Not "frontier": a plan directory has a frontier.csv
 *                     of its own, and --out may be that directory.)
 *
 * A sensitivity study's report has one, written by fs_charts_write_tornado
 * (sensitivity_report.h):
 *   sensitivity_tornado  per input (the first 30, largest effect on top) a
 *                     bar from the figure at the base point to the figure at
 *                     its low value and one to its high value.
 *
 * Safety: names from the results (scenario, policies, services, pools,
 * streams) and from a plan (labels, figures, constraint texts) are data.  In a .gp script they appear only inside single-quoted
 * gnuplot strings, where gnuplot substitutes nothing (no backquotes, no
 * macros, no escapes); every control character becomes a space; a quote in a
 * name is written as the variable sq between quoted pieces ('a'.sq.'b'),
 * because gnuplot 5.4 misparses the '' escape after an opening quote; and all
 * text is `noenhanced`, so ^ _ @ { } are drawn as they are.  No script uses
 * backquotes or system(), and the only files a script names are
 * STEM.png and STEM.svg.  gnuplot is started with fork and
 * execvp("gnuplot", {"gnuplot"}), never through a shell, with the script
 * fleetsim kept in memory on its standard input (never STEM.gp, which could
 * be swapped once written), in a private directory made with mkdtemp inside
 * out_dir, from which STEM.png, STEM.svg and STEM.log are renamed into
 * out_dir.  STEM.csv and STEM.gp are written through output.h (a temporary
 * file renamed into place), so no file is ever written through a symlink
 * planted in out_dir.  Chart files of an earlier report that this one does
 * not write, and the images of a chart that did not render, are removed.
 * STEM.csv holds the names in full, quoted by libcsv, a name that looks like
 * a spreadsheet formula neutralised (results_csv.h).
 *
 * Ownership: fs_chart_set is caller-owned; fs_charts_write fills it and
 * fs_charts_free frees what it holds.  The module keeps nothing between calls.
 *
 * Files (README.md has a line on each): charts.c (these entry points and the
 * rendering), chart_data.c and chart_csv.c (reading the results),
 * chart_script.c (the writing and quoting every chart shares), one file per
 * family of charts: chart_latency.c, chart_capacity.c, chart_breaches.c,
 * chart_frontier.c, chart_tornado.c; chart_internal.h is private to them.
 */
#ifndef FS_CHARTS_H
#define FS_CHARTS_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"

#define FS_CHARTS_MAX 16

typedef struct fs_chart {
    char stem[32];   /* file stem in out_dir, e.g. "p99_by_hour_2"; fixed ASCII */
    char *title;     /* plain text, as drawn on the chart: names appear verbatim
                        (cut at 36 bytes) except that control characters are
                        spaces; NOT escaped for HTML or Markdown */
    char *caption;   /* one plain-text sentence on how to read the chart; no names */
    char *script;    /* what STEM.gp holds: gnuplot is fed this text, never the file */
    bool rendered;   /* gnuplot exited 0 and wrote STEM.png and STEM.svg */
} fs_chart;

typedef struct fs_chart_set {
    fs_chart charts[FS_CHARTS_MAX]; /* in the order a report should show them */
    size_t n;
    bool gnuplot_found; /* gnuplot could be started (found on PATH) */
    bool gnuplot_ran;   /* gnuplot was found and rendered every chart */
    char *render_hint;  /* the command that renders every chart by hand, to be
                           run in out_dir: "gnuplot p99_by_hour.gp cost_by_pool.gp ..."
                           (stems only, nothing from the results) */
} fs_chart_set;

/*
 * Writes the charts of results_dir into out_dir (created, with its parents,
 * if missing) and describes them in *out, which must be zeroed or freed
 * before the call.  A missing gnuplot, or gnuplot failing on a chart, is not
 * an error: that chart has rendered = false and the call still returns FS_OK.
 *
 * Returns FS_OK; FS_ERR_INPUT when the results are missing or malformed (the
 * message names the file, with line:column for JSON and the record number
 * for CSV); FS_ERR_RUNTIME when a file cannot be written (named) or memory
 * runs out.  On failure *out is left empty (n = 0); files already written
 * stay.
 *
 * Cost: one streaming pass over each CSV; memory is O(policies x windows)
 * plus the training waits, independent of the number of services.
 */
int fs_charts_write(const char *results_dir, const char *out_dir, fs_chart_set *out,
                    fs_error *err);

/* A point of a plan, as the frontier chart draws it. */
typedef enum fs_chart_verdict { FS_CHART_MEETS, FS_CHART_UNSURE, FS_CHART_FAILS } fs_chart_verdict;

typedef struct fs_chart_point {
    long long id;             /* the point's number in the plan */
    const char *label;        /* plain text: the CSV keeps it whole, the chart
                                 draws only the answer's, cut at 48 bytes */
    fs_chart_verdict verdict;
    double x, x_ci95;         /* the minimized figure; NAN: not drawn */
    double y, y_ci95;         /* the frontier figure; NAN: not drawn */
} fs_chart_point;

typedef struct fs_frontier_chart {
    const char *scenario;           /* for the title; may be "" */
    const char *x_name, *y_name;    /* the figures, as axis labels */
    const fs_chart_point *points;
    size_t n_points;
    const size_t *frontier;         /* indices into points, cheapest first */
    size_t n_frontier;
    size_t answer;                  /* index into points, or SIZE_MAX: none */
    double y_limit;                 /* the limit on the frontier figure, NAN: none */
    const char *limit_text;         /* that constraint as written (when y_limit is set) */
} fs_frontier_chart;

/*
 * Writes the plan_frontier chart of *plan into out_dir (created, with its
 * parents, if missing) and describes it in *out, which must be zeroed or
 * freed before the call.  Nothing is drawn, and *out stays empty (n = 0),
 * when no point has both figures.  Labels, figure names, the scenario and
 * the constraint text are data, under the same rules as names above.
 *
 * Returns FS_OK, or FS_ERR_RUNTIME when a file cannot be written (named) or
 * memory runs out; gnuplot missing or failing is not an error.  On failure
 * *out is left empty.
 */
int fs_charts_write_frontier(const fs_frontier_chart *plan, const char *out_dir, fs_chart_set *out,
                             fs_error *err);

/* An input of a sensitivity study, as the tornado chart draws it. */
typedef struct fs_tornado_input {
    const char *path;            /* plain text: drawn cut at 48 bytes, whole in the CSV */
    double low, high;            /* the input's values */
    double at_low, at_high;      /* the figure there; NAN: no data, no bar */
    double effect, effect_ci95;  /* for the CSV */
} fs_tornado_input;

typedef struct fs_tornado_chart {
    const char *scenario;        /* for the title; may be "" */
    const char *metric;          /* the figure, as the axis label */
    double base_value;           /* the figure at the base point */
    const fs_tornado_input *inputs; /* in rank order, largest |effect| first */
    size_t n_inputs;
} fs_tornado_chart;

/*
 * Writes the sensitivity_tornado chart of *c into out_dir (created, with its
 * parents, if missing) and describes it in *out, which must be zeroed or
 * freed before the call: per input, largest effect on top, a bar from the
 * base figure to the figure at its low value and one to its high value.
 * Nothing is drawn, and *out stays empty, when the base figure has no data.
 * Paths, the metric and the scenario are data, under the rules above.
 * FS_OK or FS_ERR_RUNTIME, as fs_charts_write_frontier.
 */
int fs_charts_write_tornado(const fs_tornado_chart *c, const char *out_dir, fs_chart_set *out, fs_error *err);

/* Removes from dir every chart file this module can write (each STEM.csv,
 * .gp, .log, .png and .svg), for a report whose pages were of other results
 * and were removed (report.h, fs_report_forget): no chart outlives its page.
 * Missing files are no error; FS_OK or FS_ERR_RUNTIME naming the file. */
int fs_charts_remove(const char *dir, fs_error *err);

/* Frees what *set holds and zeroes it; safe on a zeroed set. */
void fs_charts_free(fs_chart_set *set);

#endif

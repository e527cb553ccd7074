/*
 * chart_internal — private to the charts module (reports/charts/); nothing
 * outside this folder includes it.  What the module's files share:
 *
 *   fs__data     the results read into memory (chart_data.c fills it from
 *                results.json, chart_csv.c from the CSV time series); it
 *                owns its arrays and the JSON document, whose strings the
 *                pools, policies and services point into; fs__data_fini
 *                frees it all.
 *   fs__writer   one chart being written (chart_script.c): it owns its open
 *                STEM.csv (an output set, output.h), the script and its plot
 *                commands in memory until fs__writer_finish, or
 *                fs__writer_open's failure, frees them.
 *   fs__chart_out where the charts go: out_dir and the caller's fs_chart_set,
 *                which fs__writer_finish adds each chart to; borrowed.
 *
 * The string helpers here keep the safety rules of charts.h: a name reaches
 * a script only through fs__gp_quote, and a CSV only through fs__csv_str.
 */
#ifndef FS_CHART_INTERNAL_H
#define FS_CHART_INTERNAL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "charts.h"
#include "error.h"
#include "output.h"

#define FS__NAME_SHOWN 48       /* most bytes of a name shown anywhere (then "...") */
#define FS__NAME_TITLE 36       /* ... in a chart title */
#define FS__NAME_KEY 28         /* ... in a legend entry or tic label */
#define FS__MAX_SERVICES 4      /* p99_by_hour charts */
#define FS__MAX_HEATMAPS 4      /* breach_heatmap charts (one per policy) */
#define FS__MAX_LINES 8         /* policies drawn on one chart; the CSV has them all */
#define FS__DAY_S 86400.0

_Static_assert(FS__MAX_SERVICES + FS__MAX_HEATMAPS + 3 + 4 <= FS_CHARTS_MAX,
               "every chart must fit in fs_chart_set");

/* One colour per policy line (chart_script.c), in the order of results.json. */
extern const char *const fs__policy_colors[FS__MAX_LINES];
#define FS__SLO_COLOR "#d62728"

/* ---------------------------------------------------------------- data */

typedef struct fs__pool {
    const char *name; /* points into the JSON document */
    bool spot;
    double cost_usd;
    double gpus; /* configured GPUs; NAN when absent */
} fs__pool;

typedef struct fs__policy {
    const char *name;
    fs__pool *pools;
    size_t n_pools;
    double *busy, *gpus;   /* per window, summed over pools and replications */
    int max_rep;           /* highest replication index seen in pools_timeseries.csv */
    double *p99_sum;       /* [service * n_bins + bin] */
    size_t *p99_n;
    unsigned long *breach; /* [day * 24 + hour] */
    /* The charted LLM service (fs__data.llm): window TTFT and TPOT p99 by
     * time-of-day bin, KV occupancy per window (sums and counts over
     * replications), and its engine steps by batch size (borrowed from the
     * JSON document; NULL without one). */
    double *ttft_sum, *tpot_sum, *kv_sum;
    size_t *ttft_n, *tpot_n, *kv_n;
    json_t *steps;
} fs__policy;

typedef struct fs__service {
    const char *name;
    double p99_ms; /* the SLO target, NAN when the service has none */
} fs__service;

typedef struct fs__series {
    size_t policy;
    char *stream; /* as read from training_waits.csv */
    double *wait_s;
    size_t n, cap;
} fs__series;

typedef struct fs__data {
    const char *dir;
    json_t *root;
    const char *scenario; /* "" when the document has no name */
    double horizon_s, warmup_s, window_s, bin_s;
    size_t n_windows, n_bins, n_days, first_day;
    fs__policy *pol;
    size_t n_pol;
    fs__service sel[FS__MAX_SERVICES];
    size_t n_sel;
    bool any_slo;
    fs__series *series;
    size_t n_series, cap_series;
    bool have_waits, have_breaches;
    /* The first LLM service of the first policy (an "llm" block in
     * results.json), NULL without one; its TTFT and TPOT p99 targets, NAN
     * when it has none. */
    const char *llm;
    double ttft_target_ms, tpot_target_ms;
} fs__data;

/* chart_data.c: reads d->dir/results.json into *d (zeroed but for dir) and
 * sizes the accumulators the CSVs fill.  FS_OK, FS_ERR_INPUT naming the file
 * (line:column for JSON), or FS_ERR_RUNTIME; either way fs__data_fini frees
 * what *d holds. */
int fs__load_json(fs__data *d, fs_error *err);
void fs__data_fini(fs__data *d);

/* chart_csv.c: streams timeseries.csv, pools_timeseries.csv and, when
 * present, training_waits.csv, slo_breaches.csv and llm_timeseries.csv
 * (read only when results.json has an LLM service) into the accumulators of
 * *d, in that order.  FS_OK, FS_ERR_INPUT naming the file and record, or
 * FS_ERR_RUNTIME. */
int fs__load_csvs(fs__data *d, fs_error *err);

/* ------------------------------------------------------------- strings */

char *fs__strdup(const char *s);
char *fs__fmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *fs__join(const char *dir, const char *name);
void fs__shown(const char *s, char out[FS__NAME_SHOWN + 4], size_t max);
void fs__gp_quote(FILE *fp, const char *s);
void fs__csv_str(FILE *fp, const char *s);
void fs__num(FILE *fp, double v);

static inline size_t fs__min(size_t a, size_t b)
{
    return a < b ? a : b;
}

/* ------------------------------------------------------ chart writing */

typedef struct fs__chart_out {
    const char *dir;
    fs_chart_set *set;
    fs_error *err;
} fs__chart_out;

/* A chart being written: its CSV, its script, and the plot commands (body),
 * which the script repeats once per terminal. */
typedef struct fs__writer {
    char stem[32];
    fs_output files;        /* STEM.csv now, STEM.gp at finish: renamed into place together */
    char *script, *body;    /* the whole script and the plot commands, in memory */
    size_t script_len, body_len;
    FILE *csv, *gp, *bp;    /* csv: into files; gp, bp: into script and body */
} fs__writer;

int fs__writer_open(fs__writer *w, const fs__chart_out *o, const char *stem);
int fs__writer_open_nth(fs__writer *w, const fs__chart_out *o, const char *stem, size_t i, size_t n);
int fs__writer_finish(fs__writer *w, const fs__chart_out *o, char *title, char *caption);
char *fs__title(const char *scenario, const char *what, const char *name);
void fs__gp_labels(FILE *bp, const char *title, const char *xlabel, const char *ylabel);
/* The plot's lines, one per policy (the first FS__MAX_LINES): column i + 2
 * of $data against column 1, drawn `with STYLE` ("lines", "histeps") in the
 * policy's colour, titled with its name (quoted, cut).  No newline. */
struct fs__data;
void fs__gp_policy_lines(FILE *bp, const struct fs__data *d, const char *style);
/* A chart CSV's header: `first` (its leading columns), one column per
 * policy named as the policy (quoted), then `last` when not NULL. */
void fs__csv_policy_header(FILE *csv, const struct fs__data *d, const char *first, const char *last);

/* ------------------------------------------------------------- charts */

/* Each writes its chart(s) into o, or nothing when the results have no data
 * for it; FS_OK or FS_ERR_RUNTIME (a file cannot be written, out of memory). */
int fs__chart_p99(const fs__data *d, const fs__chart_out *o);           /* chart_latency.c */
int fs__chart_cdf(fs__data *d, const fs__chart_out *o);                 /* chart_latency.c */
int fs__chart_cost(const fs__data *d, const fs__chart_out *o);          /* chart_capacity.c */
int fs__chart_utilization(const fs__data *d, const fs__chart_out *o);   /* chart_capacity.c */
int fs__chart_breaches(const fs__data *d, const fs__chart_out *o);      /* chart_breaches.c */
int fs__chart_llm(const fs__data *d, const fs__chart_out *o);           /* chart_llm.c */

/* A chart of one figure by time of day (chart_latency.c): one line per
 * policy of mean(d, policy, bin, ctx) (NaN: no data in that bin), and the
 * target as a dashed line when it is not NaN.  p99_by_hour and the LLM
 * latency charts are drawn by it. */
typedef struct fs__hourly {
    const char *stem;
    size_t nth, n;           /* fs__writer_open_nth */
    const char *service;
    const char *what;        /* the title, before the service's name */
    const char *ylabel;
    const char *target_col;  /* the CSV's target column: "slo_p99_ms" */
    const char *target_what; /* the legend's: "SLO target: p99" */
    double target_ms;
    const char *figure;      /* the caption's: "p99 latency" */
    double (*mean)(const fs__data *d, size_t policy, size_t bin, const void *ctx);
    const void *ctx;
} fs__hourly;
int fs__chart_hourly(const fs__data *d, const fs__chart_out *o, const fs__hourly *h);
int fs__chart_frontier(const fs_frontier_chart *c, const fs__chart_out *o); /* chart_frontier.c */
int fs__chart_tornado(const fs_tornado_chart *c, const fs__chart_out *o);   /* chart_tornado.c */

#endif

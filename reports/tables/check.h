/*
 * check — the regression gate: a current results document against a baseline.
 *
 * Both sides are results JSON documents ("fleetsim-results/1", see
 * results_json.h).  Policies are matched by name, and within a matched policy
 * services and training streams by name; for each match a fixed set of
 * metrics is compared with a per-metric tolerance, in the direction that
 * metric improves:
 *
 *   key          where                               better  default  floor
 *   p99          service latency_ms.p99              lower   5%       0.5 ms
 *   p95          service latency_ms.p95              lower   5%       0.5 ms
 *   breaches     service slo_breach_windows          lower   10%      0.5 windows
 *   queue_p95    training queue_wait_s.p95           lower   10%      1 s
 *   cost         fleet cost_usd                      lower   2%       0.01 USD
 *   headroom     fleet peak_headroom                 higher  5%       0.001 (0.1 point)
 *   utilization  fleet utilization                   higher  5%       0.001 (0.1 point)
 *   switch       fleet switch_gpu_hours              lower   20%      0.01 GPU-hours
 *   ttft_p99     service llm.ttft_ms.p99             lower   5%       0.5 ms
 *   tpot_p99     service llm.tpot_ms.p99             lower   5%       0.05 ms
 *   tokens_per_s service llm.tokens_per_s            higher  5%       0.5 tokens/s
 *   cycle_p95    training pipeline.cycle_s.p95       lower   10%      60 s
 *   rollout_p95  training rollouts.duration_s.p95    lower   10%      1 s
 *
 * The three llm figures exist only for LLM services ("batching": continuous):
 * a service without them on either side has nothing to compare, so results
 * of other scenarios check as before.  Likewise cycle_p95 exists only on a
 * pipeline's root stream and rollout_p95 only on a deploy step, which runs
 * no job and so has no queue_p95 to compare.  Dynamic batching's batch sizes are
 * not gated (a consequence of the load, not a service level).
 *
 * A "lower is better" metric is WORSE when current - baseline exceeds both
 * tol x |baseline| and the floor; "better" when baseline - current exceeds
 * both; "ok" otherwise (mirrored for "higher is better").  The floor keeps a
 * zero or tiny baseline (0 breach windows, 0 switch hours) from turning noise
 * into a failure: 0 -> 0.3 breach windows is not a regression, 0 -> 1 is.
 *
 * Anything present on one side only (a policy, a service or training stream,
 * or one metric of a matched item) is a row "missing in baseline" or
 * "missing in current" and counts as worse, so a renamed service never
 * passes silently.  A metric that is null on one side (the writer's form of a
 * non-finite figure) and a number on the other is worse too; null on both is
 * ok.
 *
 * Output: a Markdown table | policy | item | metric | baseline | current |
 * change | verdict |, one row per comparison, then a blank line and
 * "N metrics checked, K worse".  Names from the documents are made safe for
 * a table cell (`|` -> `\|`, control characters -> spaces).
 *
 * Pure: reads two jansson values the caller owns, writes only to the given
 * stream, keeps no state.
 */
#ifndef FS_CHECK_H
#define FS_CHECK_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "error.h"

typedef enum fs_check_metric {
    FS_CHECK_P99,
    FS_CHECK_P95,
    FS_CHECK_BREACHES,
    FS_CHECK_QUEUE_P95,
    FS_CHECK_COST,
    FS_CHECK_HEADROOM,
    FS_CHECK_UTILIZATION,
    FS_CHECK_SWITCH,
    FS_CHECK_TTFT_P99,
    FS_CHECK_TPOT_P99,
    FS_CHECK_TOKENS_PER_S,
    FS_CHECK_CYCLE_P95,
    FS_CHECK_ROLLOUT_P95,
    FS_CHECK_N_METRICS
} fs_check_metric;

/* What each metric is; the table above, as data (for --help and the tests). */
typedef struct fs_check_metric_info {
    const char *key;         /* tolerance key and the table's metric column: "p99" */
    const char *what;        /* "service latency_ms.p99" */
    bool higher_is_better;
    double default_percent;  /* default tolerance, in percent */
    double floor;            /* absolute change that must also be exceeded */
    const char *floor_text;  /* the floor as the help shows it: "0.5 ms" */
} fs_check_metric_info;

const fs_check_metric_info *fs_check_metric_get(fs_check_metric m);

/* Tolerances in percent, one per metric. */
typedef struct fs_check_tolerances {
    double percent[FS_CHECK_N_METRICS];
} fs_check_tolerances;

/* The defaults of the table above. */
void fs_check_tolerances_init(fs_check_tolerances *t);

/* Applies "key=value[,key=value...]" on top of *t, where value is "N%" or a
 * plain number N, both meaning N percent (finite, >= 0); a key given twice
 * takes the last value.  FS_OK, or FS_ERR_INPUT with a message naming the
 * entry and, for an unknown key, the valid ones ("unknown key \"p90\" (valid
 * keys: p99, p95, ...)"); *t is unchanged on failure. */
int fs_check_tolerances_parse(fs_check_tolerances *t, const char *spec, fs_error *err);

/* Checks that doc is a results document the comparison can read: an object
 * with "schema": "fleetsim-results/1" and a "policies" array; policies,
 * services and training streams objects with distinct string names; every
 * compared figure absent, null or a number.  name (a file name, or "current
 * results") starts the message.  FS_OK or FS_ERR_INPUT naming the JSON path:
 * `b.json: policies[0].services[2].latency_ms.p99: expected a number or
 * null, got a string`. */
int fs_check_validate(const json_t *doc, const char *name, fs_error *err);

/* A comparison's outcome, kept as rows so that each of its forms (the
 * terminal's Markdown table here, JUnit XML in check_junit.h, a job summary
 * in check_summary.h) is written from one comparison. */
typedef enum fs_check_verdict { FS_CHECK_SAME, FS_CHECK_BETTER, FS_CHECK_WORSE } fs_check_verdict;

typedef struct fs_check_row {
    /* Names borrowed from the documents compared: valid while they live. */
    const char *policy;
    const char *kind;     /* "service", "training", "fleet"; NULL on a row about a whole policy */
    const char *item;     /* the service's or stream's name; NULL for the fleet or a policy */
    const char *metric;   /* the metric's key ("p99"); NULL on a row about a whole item */
    /* Texts as the table shows them, "" where the table has "-". */
    char baseline[64], current[64]; /* "12.3 ms", or "null" for the writer's non-finite figure */
    char baseline_ci[64], current_ci[64]; /* "±0.4 ms": the document's 95% half-width (FIELD_ci95) */
    char change[64];      /* "+13.8%", "n/a (from 0)" */
    char verdict[64];     /* "ok", "better", "WORSE (tolerance 5%)", "WORSE (missing in current)" */
    fs_check_verdict outcome;
} fs_check_row;

typedef struct fs_check_result {
    fs_check_row *rows;   /* in the table's order */
    size_t n_rows;
    size_t worse, better; /* rows by outcome; the rest are the same */
} fs_check_result;

/* Validates both documents (as fs_check_compare) and compares them into
 * *out (owned by the caller: fs_check_result_fini).  FS_OK, or FS_ERR_INPUT
 * as fs_check_compare, FS_ERR_RUNTIME (out of memory), with *out empty. */
int fs_check_run(const json_t *baseline, const char *baseline_name, const json_t *current,
                 const fs_check_tolerances *tol, fs_check_result *out, fs_error *err);

void fs_check_result_fini(fs_check_result *r);

/* The Markdown table and the summary line of fs_check_compare.  FS_OK or
 * FS_ERR_RUNTIME when fp cannot be written. */
int fs_check_write_table(const fs_check_result *r, FILE *fp, fs_error *err);

/* Compares current with baseline under tol and writes the Markdown table and
 * the summary line to fp.  baseline_name (a file name) starts messages about
 * the baseline's structure.  Returns the number of WORSE rows (0 = the gate
 * passes), or -1 with err set: FS_ERR_INPUT when either document fails
 * fs_check_validate (the current one named "current results");
 * FS_ERR_RUNTIME when fp cannot be written.  Nothing is written to fp
 * before both documents have been checked, so a refused baseline leaves no
 * partial table.
 *
 * Cost: matching is by linear search, O(n^2) in the services of a policy;
 * 120 services x 2 policies is 30,000 string comparisons, nothing next to
 * the run that produced them.  Use a hash if documents ever hold thousands. */
int fs_check_compare(const json_t *baseline, const char *baseline_name, const json_t *current,
                     const fs_check_tolerances *tol, FILE *fp, fs_error *err);

/* Writes name to fp made safe for a Markdown table cell: `|` as `\|`,
 * newlines and other control characters as spaces. */
void fs_check_write_cell(FILE *fp, const char *name);

/* Writes name to fp as inert markup: & < > " ' as entities (valid in XML
 * and HTML, text or attribute), control characters as spaces (XML 1.0
 * cannot carry them at all); with markdown, also the ASCII punctuation that
 * can start Markdown (| * _ [ ] ( ) ` $ ! # ...) behind a backslash, for a
 * page GitHub renders as Markdown with HTML inside. */
void fs_check_write_markup(FILE *fp, const char *name, bool markdown);

#endif

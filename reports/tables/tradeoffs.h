/*
 * tradeoffs — the verdict over a comparison: which policy meets every SLO
 * at the lowest cost, and what each policy costs the other workloads.
 *
 * compare (compare.h) pairs every policy with the first one, the baseline,
 * replication by replication.  This module reads those paired differences
 * and keeps the material ones: a change is listed when it is past noise
 * (its 95% CI excludes 0; with no interval, one replication, it is listed
 * with the CI said to be unknown) and large enough to matter (at least
 * `relative` of the baseline's figure and at least `floor` in the figure's
 * unit, FS_TRADEOFF_FIGURES below).  An SLO target whose verdict differs
 * from the baseline's is always listed, whatever the noise: a change that
 * flips a verdict is never hidden.  A target with no data is never met
 * (results.json's slo.verdict).
 *
 * The verdict is built once, as JSON (compare.json's "verdict"), from
 * compare's own document; the terminal table and the report both write it
 * through fs_tradeoffs_write_*, so the two can never disagree.
 *
 * Ownership: every function reads its arguments and returns a new JSON
 * value the caller owns (NULL when out of memory); nothing is kept.
 */
#ifndef FS_TRADEOFFS_H
#define FS_TRADEOFFS_H

#include <jansson.h>

#include "results.h"

/* Each policy's SLO standing, in the policies' order: [{"name": policy,
 * "meets": true | false | null, "targets": [{"service", "target" ("p99",
 * "TTFT p99", ...), "verdict": "met" | "missed" | "no data"}]}].  "meets"
 * is true only when the policy has a target and every one is met, false
 * when any is missed, null otherwise (no data, or no SLO at all). */
json_t *fs_tradeoffs_slo(const fs_results *r);

/* The verdict over a comparison document (fs_compare_json's shape:
 * "baseline", "policies" and "differences"; and optionally "pairs": {best:
 * {other: the best's paired differences to other}}, for the one best
 * policy against the others that meet every SLO) and the SLO standing
 * above:
 *   {"baseline": name,
 *    "best": [names],  the policies that meet every SLO at the lowest cost
 *                      (several: a tie, to the cent; empty: none meets),
 *    "reason": one plain-text sentence (fs_tradeoffs_write_reason),
 *    "policies": [{"name", "meets_every_slo": bool | null, "missed": [..],
 *                  "no_data": [..] ("chat p99" ...), "cost_usd": n | null,
 *                  "cost_usd_difference", "cost_usd_ci95" (the paired
 *                  difference to the baseline; not on the baseline),
 *                  "changes": [C, ...],
 *                  and on the one best policy, with "pairs": "against":
 *                  [{"policy", "cost_usd_difference", "cost_usd_ci95",
 *                    "changes": [C, ...]}] (its figure changes against each
 *                  other policy but the baseline that meets every SLO)}]}
 *                                              (in the policies' order)
 * where a change C against the baseline is either a figure
 *   {"workload": service | stream | "fleet", "kind": "service" |
 *    "training" | "fleet", "figure": compare's row key, "label", "unit",
 *    "value", "difference", "ci95": half-width | null (unknown),
 *    "worse": bool}
 * or an SLO target's verdict that differs from the baseline's
 *   {"workload": service, "kind": "slo", "figure": target, "from", "to",
 *    "worse": bool}.
 * The baseline has no changes. */
json_t *fs_tradeoffs_verdict(const json_t *compare, const json_t *slo);

/* Where the sentences go: `raw` takes fleetsim's own words, `text` a name
 * a user typed (a policy, service or stream), which the sink escapes for
 * its medium (the terminal's sanitiser, HTML or Markdown). */
typedef struct fs_tradeoffs_sink {
    void (*raw)(void *ctx, const char *s);
    void (*text)(void *ctx, const char *s);
    void *ctx;
} fs_tradeoffs_sink;

/* The overall sentence: "partitioned meets every SLO at $7925.76, the
 * lowest cost; against shared (which misses chat p99, at $7925.76) it makes
 * worse: eval-sweep queue wait p95 +576.7 min (95% CI ±0)", and the same
 * against each policy of "against"; a tie; or that none meets. */
void fs_tradeoffs_write_reason(const json_t *verdict, const fs_tradeoffs_sink *out);

/* Policy `index`'s line (index >= 1; the baseline has none): its material
 * changes against the baseline, worse then better, or that it has none. */
void fs_tradeoffs_write_policy(const json_t *verdict, size_t index, const fs_tradeoffs_sink *out);

/* The rule in words, for a legend: what "material" means. */
extern const char fs_tradeoffs_rule[];

#endif

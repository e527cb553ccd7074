/*
 * check_summary — `fleetsim check`'s outcome as Markdown for a person in a
 * pull request: a comment, or a job summary ($GITHUB_STEP_SUMMARY).
 *
 *   ### fleetsim check: scenarios/a.json: FAIL, 1 of 40 metrics worse
 *
 *   Baseline: scenarios/a.baseline.json. 1 worse, 2 better, 37 the same.
 *
 *   | | policy | item | metric | baseline | current | change | verdict |
 *   |---|---|---|---|---|---|---|---|
 *   | ❌ | shared | service chat | p99 | 12.3 ms ±0.4 | 14.0 ms ±0.5 | +13.8% | WORSE (tolerance 5%) |
 *   | ✅ | ... better rows ...
 *
 *   <details><summary>37 the same</summary> ... their table ... </details>
 *
 * (a pass says "pass, none of 40 metrics worse").  WORSE rows come first,
 * then better, each in the table's order; the rows that did not move are
 * folded away.  Every name (scenario, baseline, policy, item) is escaped for
 * both Markdown and HTML, since GitHub renders the comment as both
 * (fs_check_write_markup): & < > " ' as entities, the other ASCII
 * punctuation that can start markup behind a backslash (so `|` cannot split
 * a cell and `*`, `_`, `[`, `$`, backticks cannot format or link; "-./,"
 * stay as they are), control characters as spaces.
 *
 * Pure: writes only to the given stream.
 */
#ifndef FS_CHECK_SUMMARY_H
#define FS_CHECK_SUMMARY_H

#include <stdio.h>

#include "check.h"
#include "error.h"

/* Writes r, the comparison of the scenario `scenario` against
 * baseline_name, as Markdown to fp.  FS_OK or FS_ERR_RUNTIME when fp cannot
 * be written. */
int fs_check_summary_write(const fs_check_result *r, const char *scenario, const char *baseline_name, FILE *fp,
                           fs_error *err);

#endif

/*
 * sensitivity_table — a sensitivity study's result (sensitivity.json,
 * schema fleetsim-sensitivity/1, written by models/study/sensitivity.h) as
 * the table `fleetsim sensitivity` prints and the report page shows.
 *
 * Reads the document, not the study: the command and `fleetsim report` on
 * its directory print the same thing from the same bytes.  Runs nothing.
 */
#ifndef FS_SENSITIVITY_TABLE_H
#define FS_SENSITIVITY_TABLE_H

#include <stdio.h>

#include "error.h"

struct json_t;

/* One line per input in rank order: its low, base and high values, the
 * figure at low and high, the effect (high - low) with its 95% CI, the
 * elasticity, and "noise" where the interval holds 0; "no data" where the
 * figure has none.  FS_OK or FS_ERR_RUNTIME (a write failed). */
int fs_sensitivity_table(const struct json_t *doc, FILE *fp, fs_error *err);

/* sensitivity.csv: one row per input in rank order, the same figures with
 * their CIs (rank,input,low,base,high,at_low,at_low_ci95,at_base,
 * at_base_ci95,at_high,at_high_ci95,effect,effect_ci95,swing_low,
 * swing_high,elasticity,distinguishable,refused); a figure without data is
 * an empty cell, numbers with 10 significant digits.  FS_OK or
 * FS_ERR_RUNTIME. */
int fs_sensitivity_csv(const struct json_t *doc, FILE *fp, fs_error *err);

#endif

/*
 * check_junit — `fleetsim check`'s outcome as JUnit XML, the report format
 * CI systems read (GitLab's artifacts:reports:junit, Jenkins, GitHub test
 * reporters).
 *
 * One <testsuites> with one <testsuite> per scenario checked (its name: the
 * scenario file as given), and in it one <testcase> per row of the check
 * table: classname the policy, name "KIND ITEM METRIC" ("service chat p99",
 * "fleet cost"; a row about a whole item or policy has no metric).  A WORSE
 * row is a <failure> whose message has the baseline value, the current
 * value, the change, the verdict (the tolerance) and each side's 95% CI
 * where the document has one ("no CI" where it has not: one replication).
 * A better row passes and says so in <system-out>.
 *
 *   <testsuites name="fleetsim check" tests="40" failures="1">
 *    <testsuite name="scenarios/a.json" tests="40" failures="1" errors="0" skipped="0">
 *     <testcase classname="shared" name="service chat p99">
 *      <failure type="WORSE" message="p99: baseline 12.3 ms (CI ±0.4 ms), current 14.0 ms (CI ±0.5 ms),
 *        change +13.8%, WORSE (tolerance 5%)">...the same...</failure>
 *
 * No time or timestamp attributes: the same results give the same bytes.
 * Every name is XML-escaped (fs_check_write_markup: & < > " ' as entities;
 * control characters, which XML 1.0 cannot carry, as spaces).  Names are the results
 * documents', which jansson has checked to be UTF-8.
 *
 * Pure: writes only to the given stream.
 */
#ifndef FS_CHECK_JUNIT_H
#define FS_CHECK_JUNIT_H

#include <stdio.h>

#include "check.h"
#include "error.h"

/* Writes r, the comparison of the scenario `suite` against baseline_name,
 * as a JUnit XML document to fp.  FS_OK or FS_ERR_RUNTIME when fp cannot be
 * written. */
int fs_check_junit_write(const fs_check_result *r, const char *suite, const char *baseline_name, FILE *fp,
                         fs_error *err);

#endif

/* check_junit — see check_junit.h. */
#include "check_junit.h"

#include <string.h>

/* text as XML character data or an attribute value (quotes included). */
static void fs__xml(FILE *fp, const char *text)
{
    fs_check_write_markup(fp, text, false);
}

/* "service chat p99", "fleet cost", "service chat" (a missing item), or the
 * policy's name for a row about a whole policy. */
static void fs__case_name(FILE *fp, const fs_check_row *row)
{
    if (!row->kind) {
        fputs("policy ", fp);
        fs__xml(fp, row->policy);
        return;
    }
    fs__xml(fp, row->kind);
    if (row->item) {
        fputc(' ', fp);
        fs__xml(fp, row->item);
    }
    if (row->metric) {
        fputc(' ', fp);
        fs__xml(fp, row->metric);
    }
}

/* One side's value for the message: "12.3 ms (CI ±0.4 ms)", "12.3 ms (no
 * CI)", "null (no value)", or "absent". */
static void fs__side(FILE *fp, const char *label, const char *value, const char *ci)
{
    fprintf(fp, "%s ", label);
    if (!*value) {
        fputs("absent", fp);
        return;
    }
    fs__xml(fp, value);
    if (*ci) {
        fputs(" (CI ", fp);
        fs__xml(fp, ci);
        fputc(')', fp);
    } else if (strcmp(value, "null") != 0) {
        fputs(" (no CI)", fp);
    }
}

/* The message of a failure or the note of a better row, XML-escaped. */
static void fs__message(FILE *fp, const fs_check_row *row)
{
    if (row->metric) {
        fs__xml(fp, row->metric);
        fputs(": ", fp);
        fs__side(fp, "baseline", row->baseline, row->baseline_ci);
        fputs(", ", fp);
        fs__side(fp, "current", row->current, row->current_ci);
        if (*row->change) {
            fputs(", change ", fp);
            fs__xml(fp, row->change);
        }
        fputs(", ", fp);
    }
    fs__xml(fp, row->verdict);
}

int fs_check_junit_write(const fs_check_result *r, const char *suite, const char *baseline_name, FILE *fp,
                         fs_error *err)
{
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", fp);
    fprintf(fp, "<testsuites name=\"fleetsim check\" tests=\"%zu\" failures=\"%zu\" errors=\"0\">\n", r->n_rows,
            r->worse);
    fputs(" <testsuite name=\"", fp);
    fs__xml(fp, suite);
    fprintf(fp, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"0\">\n", r->n_rows, r->worse);
    fputs("  <properties>\n   <property name=\"baseline\" value=\"", fp);
    fs__xml(fp, baseline_name);
    fputs("\"/>\n  </properties>\n", fp);
    for (size_t i = 0; i < r->n_rows; i++) {
        const fs_check_row *row = &r->rows[i];
        fputs("  <testcase classname=\"", fp);
        fs__xml(fp, row->policy);
        fputs("\" name=\"", fp);
        fs__case_name(fp, row);
        if (row->outcome == FS_CHECK_SAME) {
            fputs("\"/>\n", fp);
            continue;
        }
        fputs("\">\n", fp);
        if (row->outcome == FS_CHECK_WORSE) {
            fputs("   <failure type=\"WORSE\" message=\"", fp);
            fs__message(fp, row);
            fputs("\">", fp);
            fs__message(fp, row);
            fputs("</failure>\n", fp);
        } else {
            fputs("   <system-out>", fp);
            fs__message(fp, row);
            fputs("</system-out>\n", fp);
        }
        fputs("  </testcase>\n", fp);
    }
    fputs(" </testsuite>\n</testsuites>\n", fp);
    if (ferror(fp) || fflush(fp) != 0)
        return fs_error_set(err, FS_ERR_RUNTIME, "cannot write the JUnit XML");
    return FS_OK;
}

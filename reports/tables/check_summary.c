/* check_summary — see check_summary.h. */
#include "check_summary.h"

/* text made inert for Markdown and the HTML GitHub allows in it. */
static void fs__md(FILE *fp, const char *text)
{
    fs_check_write_markup(fp, text, true);
}

/* A value with its CI: "12.3 ms ±0.4 ms", or "-" when absent.  Values and
 * CIs are the check's own texts (numbers and units), not names. */
static void fs__value(FILE *fp, const char *value, const char *ci)
{
    fputs(*value ? value : "-", fp);
    if (*ci)
        fprintf(fp, " %s", ci);
}

static void fs__table_head(FILE *fp)
{
    fputs("| | policy | item | metric | baseline | current | change | verdict |\n"
          "|---|---|---|---|---|---|---|---|\n",
          fp);
}

static void fs__rows(FILE *fp, const fs_check_result *r, fs_check_verdict outcome)
{
    static const char *const mark[] = {[FS_CHECK_SAME] = "", [FS_CHECK_BETTER] = "\u2705",
                                       [FS_CHECK_WORSE] = "\u274c"};
    for (size_t i = 0; i < r->n_rows; i++) {
        const fs_check_row *row = &r->rows[i];
        if (row->outcome != outcome)
            continue;
        fprintf(fp, "| %s | ", mark[outcome]);
        fs__md(fp, row->policy);
        fputs(" | ", fp);
        if (row->kind) {
            fputs(row->kind, fp);
            if (row->item) {
                fputc(' ', fp);
                fs__md(fp, row->item);
            }
        } else {
            fputc('-', fp);
        }
        fprintf(fp, " | %s | ", row->metric ? row->metric : "-");
        fs__value(fp, row->baseline, row->baseline_ci);
        fputs(" | ", fp);
        fs__value(fp, row->current, row->current_ci);
        fprintf(fp, " | %s | %s |\n", *row->change ? row->change : "-", row->verdict);
    }
}

int fs_check_summary_write(const fs_check_result *r, const char *scenario, const char *baseline_name, FILE *fp,
                           fs_error *err)
{
    size_t same = r->n_rows - r->worse - r->better;
    fputs("### fleetsim check: ", fp);
    fs__md(fp, scenario);
    if (r->worse)
        fprintf(fp, ": FAIL, %zu of %zu metrics worse\n\n", r->worse, r->n_rows);
    else
        fprintf(fp, ": pass, none of %zu metrics worse\n\n", r->n_rows);
    fputs("Baseline: ", fp);
    fs__md(fp, baseline_name);
    fprintf(fp, ". %zu worse, %zu better, %zu the same.\n", r->worse, r->better, same);
    if (r->worse || r->better) {
        fputc('\n', fp);
        fs__table_head(fp);
        fs__rows(fp, r, FS_CHECK_WORSE);
        fs__rows(fp, r, FS_CHECK_BETTER);
    }
    if (same) {
        /* A blank line after <summary> lets GitHub render the table inside. */
        fprintf(fp, "\n<details><summary>%zu the same</summary>\n\n", same);
        fs__table_head(fp);
        fs__rows(fp, r, FS_CHECK_SAME);
        fputs("\n</details>\n", fp);
    }
    if (ferror(fp) || fflush(fp) != 0)
        return fs_error_set(err, FS_ERR_RUNTIME, "cannot write the check summary");
    return FS_OK;
}

/*
 * page — the report pages' writer: one body, two markups.
 *
 * A report's content is written once through these into index.html and
 * report.md, so the two cannot drift apart.  Everything from the user
 * (names, labels, paths, constraint texts) goes through fs_page_text, which
 * escapes it for HTML and Markdown.  The results report (report.c) and the
 * plan report (plan_report.c) both write with it; nothing here knows what a
 * report contains.
 *
 * Ownership: fs_page_doc borrows its stream; fs_page_write_pages opens and
 * closes the files.
 */
#ifndef FS_PAGE_H
#define FS_PAGE_H

#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

#include "charts.h"
#include "error.h"

typedef struct fs_page_doc {
    FILE *fp;
    bool html; /* index.html; false: report.md */
} fs_page_doc;

/* Markup, printf-style: written as is, so never pass user text in fmt's
 * arguments (use fs_page_text). */
void fs_page_raw(fs_page_doc *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Text from the user (names, labels, paths, constraint texts): HTML-escaped in
 * both markups (Markdown renders inline HTML), `|` `*` `_` `[` `]` `\`
 * escaped in Markdown so table rows keep their columns, control characters
 * (a newline would end a table row) as spaces. */
void fs_page_text(fs_page_doc *d, const char *s);

/* A heading: plain (markup-free, not escaped) followed by user (escaped; may be NULL). */
void fs_page_heading(fs_page_doc *d, int level, const char *plain, const char *user);
void fs_page_para_open(fs_page_doc *d);
void fs_page_para_close(fs_page_doc *d);

/* A number for a table cell: "–" for NaN, whole numbers from 1000 up,
 * otherwise 4 significant digits. */
void fs_page_number(fs_page_doc *d, double v);

/* The HTML head (title escaped, the inline style) and the closing script
 * (the chart checker); nothing in Markdown. */
void fs_page_open(fs_page_doc *d, const char *title);
void fs_page_close(fs_page_doc *d);

/* The "Charts" section: how to render them where gnuplot did not, then each
 * chart's image, title, caption and data link. */
void fs_page_charts(fs_page_doc *d, const fs_chart_set *charts);

/* Writes out_dir/index.html and out_dir/report.md (creating out_dir and its
 * parents if missing), calling body once for each, through output.h: both
 * renamed into place together, never written through a planted symlink.
 * FS_OK or FS_ERR_RUNTIME naming the file. */
typedef void (*fs_page_body)(fs_page_doc *d, void *ctx);
int fs_page_write_pages(const char *out_dir, fs_page_body body, void *ctx, fs_error *err);

/* "dir/name", malloc'ed (any length); NULL when out of memory. */
char *fs_page_path(const char *dir, const char *name);

/* DIR/NAME parsed as JSON (duplicate keys refused).  NULL when it is missing
 * (then, only if required, *rc = FS_ERR_INPUT naming the file) or malformed
 * (*rc = FS_ERR_INPUT with path:line:column); *rc is untouched otherwise. */
json_t *fs_page_load(const char *dir, const char *name, bool required, fs_error *err, int *rc);

#endif

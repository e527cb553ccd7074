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

/* A page's id: the run_id of the results it describes (results.json's), or
 * "plan-" and a hash of plan.json; "none" for results without one.  Digits,
 * letters and '-' only, so it is safe inside an HTML attribute or comment. */
#define FS_PAGE_ID_MAX 40

typedef struct fs_page_doc {
    FILE *fp;
    bool html;          /* index.html; false: report.md */
    const char *run_id; /* the marker fs_page_open writes (FS_PAGE_ID_MAX) */
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

/* The HTML head (title escaped, the inline style, the marker
 * <meta name="fleetsim-run-id" content="ID">) and the closing script (the
 * chart checker); in Markdown the first line, the marker
 * <!-- fleetsim-run-id: ID -->, an HTML comment no renderer shows. */
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
int fs_page_write_pages(const char *out_dir, const char *run_id, fs_page_body body, void *ctx, fs_error *err);

/* The id of the results in dir (see FS_PAGE_ID_MAX): of plan.json or
 * sensitivity.json when dir
 * holds one, else of results.json: its "run_id", or known_run_id when the
 * caller has just written that file and knows it (NULL: read the file, a
 * whole document's tree for a single key).  FS_OK, or FS_ERR_INPUT naming a
 * file that is missing or cannot be read. */
int fs_page_results_id(const char *dir, const char *known_run_id, char id[FS_PAGE_ID_MAX], fs_error *err);

/* Removes from dir the pages (index.html, report.md) fleetsim wrote about
 * results other than id, found by their marker, and then every chart file
 * (charts.h, fs_charts_remove) when one was removed: what is left in dir
 * never describes other results.  A page without fleetsim's marker (the
 * user's own, or a symlink) is never removed: it is named in *warn ("...:
 * not a fleetsim page ...: left as it is"; several joined by "; "), whose
 * msg is empty when nothing was left.  FS_OK or FS_ERR_RUNTIME. */
int fs_page_remove_stale(const char *dir, const char *id, fs_error *warn, fs_error *err);

/* Whether a report may be written into dir: FS_OK when its index.html and
 * report.md are absent, fleetsim's (marked) or not plain files (a symlink is
 * replaced, never written through); FS_ERR_INPUT naming a plain file without
 * the marker, the user's own page, which a report never replaces. */
int fs_page_check_replaceable(const char *dir, fs_error *err);

/* "dir/name", malloc'ed (any length); NULL when out of memory. */
char *fs_page_path(const char *dir, const char *name);

/* DIR/NAME parsed as JSON (duplicate keys refused).  NULL when it is missing
 * (then, only if required, *rc = FS_ERR_INPUT naming the file) or malformed
 * (*rc = FS_ERR_INPUT with path:line:column); *rc is untouched otherwise. */
json_t *fs_page_load(const char *dir, const char *name, bool required, fs_error *err, int *rc);

#endif

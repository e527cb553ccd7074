#include "page.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "charts.h"
#include "output.h"

/* ---- one writer, two markups --------------------------------------------
 * The report's content is built once and emitted through these, so the HTML
 * page and the Markdown file cannot drift apart. */

void fs_page_raw(fs_page_doc *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfprintf(d->fp, fmt, ap);
    va_end(ap);
}

void fs_page_text(fs_page_doc *d, const char *s)
{
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        switch (*c) {
        case '&': fputs("&amp;", d->fp); break;
        case '<': fputs("&lt;", d->fp); break;
        case '>': fputs("&gt;", d->fp); break;
        case '"': fputs("&quot;", d->fp); break;
        case '\'': fputs("&#39;", d->fp); break;
        case '|': fputs(d->html ? "|" : "\\|", d->fp); break;
        case '`': fputs(d->html ? "`" : "&#96;", d->fp); break;
        case '*': case '_': case '[': case ']': case '\\':
            if (!d->html)
                fputc('\\', d->fp);
            fputc(*c, d->fp);
            break;
        default:
            fputc(*c < 0x20 || *c == 0x7f ? ' ' : *c, d->fp);
        }
    }
}

void fs_page_heading(fs_page_doc *d, int level, const char *plain, const char *user)
{
    if (d->html)
        fs_page_raw(d, "<h%d>%s", level, plain);
    else
        fs_page_raw(d, "\n%.*s %s", level, "######", plain);
    if (user)
        fs_page_text(d, user);
    fs_page_raw(d, d->html ? "</h%d>\n" : "\n\n", level);
}

void fs_page_para_open(fs_page_doc *d) { fs_page_raw(d, d->html ? "<p>" : ""); }
void fs_page_para_close(fs_page_doc *d) { fs_page_raw(d, d->html ? "</p>\n" : "\n\n"); }

void fs_page_number(fs_page_doc *d, double v)
{
    if (isnan(v))
        fs_page_raw(d, "–");
    else if (fabs(v) >= 1000)
        fs_page_raw(d, "%.0f", v);
    else
        fs_page_raw(d, "%.4g", v);
}

/* ---- reading results ------------------------------------------------------ */

char *fs_page_path(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *path = malloc(n);
    if (path)
        snprintf(path, n, "%s/%s", dir, name);
    return path;
}

json_t *fs_page_load(const char *dir, const char *name, bool required, fs_error *err, int *rc)
{
    char *path = fs_page_path(dir, name);
    if (!path) {
        *rc = fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
        return NULL;
    }
    struct stat st;
    json_t *doc = NULL;
    if (stat(path, &st) != 0) {
        if (required || errno != ENOENT)
            *rc = fs_error_set(err, FS_ERR_INPUT, "%s: cannot read: %s", path, strerror(errno));
    } else {
        json_error_t jerr;
        doc = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
        if (!doc)
            *rc = fs_error_set(err, FS_ERR_INPUT, "%s:%d:%d: %s", path, jerr.line, jerr.column, jerr.text);
    }
    free(path);
    return doc;
}

/* ---- whose pages: the run-id marker -------------------------------------------
 * Every page carries the id of the results it describes, where fs_page_open
 * puts it: in index.html's head, on report.md's first line.  A later run
 * into the same directory finds it there and removes the pages of other
 * results; a page without it is not fleetsim's to remove. */

#define FS__MARK_HTML "<meta name=\"fleetsim-run-id\" content=\""
#define FS__MARK_MD "<!-- fleetsim-run-id: "

static const char *const fs__page_names[2] = {"index.html", "report.md"};

static bool fs__id_char(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-';
}

/* What the page at path is. */
typedef enum { FS__ABSENT, FS__UNMARKED, FS__MARKED, FS__NOT_A_FILE } fs__kind;

/* The page at path: FS__MARKED with its id, FS__UNMARKED (a plain file
 * without the marker, or one that cannot be read), FS__NOT_A_FILE (a
 * symlink, never followed, a directory...) or FS__ABSENT. */
static fs__kind fs__marker(const char *path, char id[FS_PAGE_ID_MAX])
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return FS__ABSENT; /* or unreachable (too long, no permission): writing there fails on its own */
    if (!S_ISREG(st.st_mode))
        return FS__NOT_A_FILE;
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return errno == ELOOP ? FS__NOT_A_FILE : FS__UNMARKED; /* swapped for a symlink meanwhile */
    char head[1024];
    ssize_t n = read(fd, head, sizeof head - 1);
    close(fd);
    if (n <= 0)
        return FS__UNMARKED;
    head[n] = '\0';
    /* report.md opens with its marker; index.html has it in the head, well
     * within the first KiB. */
    const char *at = strncmp(head, FS__MARK_MD, strlen(FS__MARK_MD)) == 0 ? head + strlen(FS__MARK_MD)
                     : strstr(head, FS__MARK_HTML)                        ? strstr(head, FS__MARK_HTML) + strlen(FS__MARK_HTML)
                                                                          : NULL;
    size_t len = 0;
    while (at && len < FS_PAGE_ID_MAX - 1 && fs__id_char(at[len]))
        len++;
    if (!at || len == 0 || (at[len] != '"' && at[len] != ' '))
        return FS__UNMARKED;
    memcpy(id, at, len);
    id[len] = '\0';
    return FS__MARKED;
}

/* FNV-1a, 64 bits: a plan's id is the hash of its plan.json's bytes. */
static int fs__hash_file(const char *path, uint64_t *h, fs_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return fs_error_set(err, FS_ERR_INPUT, "%s: cannot read: %s", path, strerror(errno));
    *h = 1469598103934665603ULL;
    for (int c; (c = getc(f)) != EOF;)
        *h = (*h ^ (uint64_t)(unsigned char)c) * 1099511628211ULL;
    int failed = ferror(f);
    fclose(f);
    return failed ? fs_error_set(err, FS_ERR_INPUT, "%s: cannot read", path) : FS_OK;
}

int fs_page_results_id(const char *dir, const char *known_run_id, char id[FS_PAGE_ID_MAX], fs_error *err)
{
    /* A plan's or a sensitivity study's directory: its document's hash. */
    static const char *const studies[2][2] = {{"plan.json", "plan"}, {"sensitivity.json", "sensitivity"}};
    struct stat st;
    int rc = FS_OK;
    for (size_t k = 0; k < 2; k++) {
        char *plan = fs_page_path(dir, studies[k][0]);
        if (!plan)
            return fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
        if (stat(plan, &st) == 0) {
            uint64_t h = 0;
            if ((rc = fs__hash_file(plan, &h, err)) == FS_OK)
                snprintf(id, FS_PAGE_ID_MAX, "%s-%016" PRIx64, studies[k][1], h);
            free(plan);
            return rc;
        }
        free(plan);
    }
    json_t *results = known_run_id ? NULL : fs_page_load(dir, "results.json", true, err, &rc);
    if (!results && !known_run_id)
        return rc;
    /* An id that is not a plain token (a hand-edited file) marks nothing. */
    const char *run_id = known_run_id ? known_run_id : json_string_value(json_object_get(results, "run_id"));
    size_t len = run_id ? strlen(run_id) : 0;
    bool plain = len > 0 && len < FS_PAGE_ID_MAX;
    for (size_t i = 0; i < len && plain; i++)
        plain = fs__id_char(run_id[i]);
    snprintf(id, FS_PAGE_ID_MAX, "%s", plain ? run_id : "none");
    json_decref(results);
    return FS_OK;
}

int fs_page_remove_stale(const char *dir, const char *id, fs_error *warn, fs_error *err)
{
    *warn = (fs_error){0};
    bool removed = false;
    for (size_t k = 0; k < 2; k++) {
        char *path = fs_page_path(dir, fs__page_names[k]);
        if (!path)
            return fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
        char found[FS_PAGE_ID_MAX];
        fs__kind kind = fs__marker(path, found);
        int rc = FS_OK;
        if (kind == FS__UNMARKED || kind == FS__NOT_A_FILE) {
            size_t n = strlen(warn->msg);
            snprintf(warn->msg + n, sizeof warn->msg - n,
                     "%s%s: not a fleetsim page (no fleetsim-run-id marker): left as it is", n ? "; " : "", path);
        } else if (kind == FS__MARKED && strcmp(found, id) != 0) {
            if (unlink(path) != 0 && errno != ENOENT)
                rc = fs_error_set(err, FS_ERR_RUNTIME,
                                  "%s: cannot remove this page of other results (run_id %s, not %s): %s", path,
                                  found, id, strerror(errno));
            removed = true;
        }
        free(path);
        if (rc != FS_OK)
            return rc;
    }
    return removed ? fs_charts_remove(dir, err) : FS_OK;
}

int fs_page_check_replaceable(const char *dir, fs_error *err)
{
    for (size_t k = 0; k < 2; k++) {
        char *path = fs_page_path(dir, fs__page_names[k]);
        if (!path)
            return fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
        char found[FS_PAGE_ID_MAX];
        int rc = fs__marker(path, found) != FS__UNMARKED
                     ? FS_OK
                     : fs_error_set(err, FS_ERR_INPUT,
                                    "%s: not a fleetsim page (no fleetsim-run-id marker), so not replaced by the "
                                    "report: move it away (or delete a report of an older fleetsim) or write the "
                                    "report to another directory",
                                    path);
        free(path);
        if (rc != FS_OK)
            return rc;
    }
    return FS_OK;
}

/* ---- the page -------------------------------------------------------------- */

static const char *const style =
    "body{font-family:system-ui,sans-serif;max-width:1000px;margin:2em auto;padding:0 1em;color:#222}"
    "table{border-collapse:collapse;font-size:0.9em}td,th{border:1px solid #ccc;padding:3px 8px;"
    "text-align:right}td:first-child,td:nth-child(2),th{text-align:left}"
    "figure{margin:1.5em 0}img{max-width:100%;border:1px solid #eee}.broken{color:#b00}"
    "figcaption{color:#444}code{background:#f4f4f4;padding:0 3px}";

/* Marks a chart whose image did not load, and records on <body> how many
 * loaded (data-charts-loaded="k/n") for tests and for the reader. */
static const char *const checker =
    "window.addEventListener('load',function(){var im=document.querySelectorAll('img.chart'),ok=0;"
    "for(var i=0;i<im.length;i++){if(im[i].complete&&im[i].naturalWidth>0){ok++;}else{"
    "var p=document.createElement('p');p.className='broken';"
    "p.textContent='This chart did not load: render it with gnuplot (see above).';"
    "im[i].parentNode.insertBefore(p,im[i]);}}"
    "document.body.setAttribute('data-charts-loaded',ok+'/'+im.length);});";

void fs_page_open(fs_page_doc *d, const char *title)
{
    if (!d->html) {
        fs_page_raw(d, FS__MARK_MD "%s -->\n", d->run_id);
        return;
    }
    fs_page_raw(d, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">" FS__MARK_HTML "%s\">"
                  "<title>fleetsim: ",
                d->run_id);
    fs_page_text(d, title);
    fs_page_raw(d, "</title><style>%s</style></head>\n<body>\n", style);
}

void fs_page_close(fs_page_doc *d)
{
    if (d->html)
        fs_page_raw(d, "<script>%s</script>\n</body></html>\n", checker);
}

void fs_page_charts(fs_page_doc *d, const fs_chart_set *charts)
{
    fs_page_heading(d, 2, "Charts", NULL);
    if (!charts->gnuplot_ran) {
        fs_page_para_open(d);
        fs_page_raw(d, "gnuplot was not found or failed, so the charts are not rendered. Their data "
                      "(<code>*.csv</code>) and scripts (<code>*.gp</code>) are in this directory: render "
                      "them with <code>");
        fs_page_text(d, charts->render_hint ? charts->render_hint : "gnuplot *.gp");
        fs_page_raw(d, "</code> there.");
        fs_page_para_close(d);
    }
    for (size_t c = 0; c < charts->n; c++) {
        const fs_chart *ch = &charts->charts[c];
        if (d->html) {
            fs_page_raw(d, "<figure><img class=\"chart\" src=\"%s.png\" alt=\"", ch->stem);
            fs_page_text(d, ch->title);
            fs_page_raw(d, "\"><figcaption><b>");
            fs_page_text(d, ch->title);
            fs_page_raw(d, ".</b> ");
            fs_page_text(d, ch->caption);
            fs_page_raw(d, " Data: <a href=\"%s.csv\">%s.csv</a>; vector: <a href=\"%s.svg\">%s.svg</a>."
                          "</figcaption></figure>\n",
                          ch->stem, ch->stem, ch->stem, ch->stem);
        } else {
            fs_page_raw(d, "![");
            fs_page_text(d, ch->title);
            fs_page_raw(d, "](%s.png)\n\n**", ch->stem);
            fs_page_text(d, ch->title);
            fs_page_raw(d, ".** ");
            fs_page_text(d, ch->caption);
            fs_page_raw(d, " Data: [%s.csv](%s.csv).\n\n", ch->stem, ch->stem);
        }
    }
}

int fs_page_write_pages(const char *out_dir, const char *run_id, fs_page_body body, void *ctx, fs_error *err)
{
    fs_output out;
    int rc = fs_output_begin(&out, out_dir, err);
    for (int k = 0; k < 2 && rc == FS_OK; k++) {
        FILE *fp;
        if ((rc = fs_output_open(&out, fs__page_names[k], &fp, err)) != FS_OK)
            break;
        fs_page_doc d = {fp, k == 0, run_id};
        body(&d, ctx);
    }
    if (rc != FS_OK) {
        fs_output_abort(&out);
        return rc;
    }
    return fs_output_commit(&out, err);
}

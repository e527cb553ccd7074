#include "page.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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
    if (!d->html)
        return;
    fs_page_raw(d, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                  "<title>fleetsim: ");
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

int fs_page_write_pages(const char *out_dir, fs_page_body body, void *ctx, fs_error *err)
{
    static const char *const names[2] = {"index.html", "report.md"};
    fs_output out;
    int rc = fs_output_begin(&out, out_dir, err);
    for (int k = 0; k < 2 && rc == FS_OK; k++) {
        FILE *fp;
        if ((rc = fs_output_open(&out, names[k], &fp, err)) != FS_OK)
            break;
        fs_page_doc d = {fp, k == 0};
        body(&d, ctx);
    }
    if (rc != FS_OK) {
        fs_output_abort(&out);
        return rc;
    }
    return fs_output_commit(&out, err);
}

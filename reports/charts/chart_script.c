/*
 * chart_script — the writing every chart shares: names as a chart shows them,
 * quoted for gnuplot and for CSV, numbers, and one chart's STEM.csv and
 * STEM.gp from opening to adding it to the set.
 *
 * Why the data is inline in the script and not read from STEM.csv: gnuplot's
 * CSV reader knows nothing of quoted newlines, so a header row holding a
 * hostile name would shift its `skip` count.  Inline datablocks hold numbers
 * only, so the one place a name can reach gnuplot is a single-quoted string
 * written by fs__gp_quote.
 */
#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart_internal.h"
#include "results_csv.h"

const char *const fs__policy_colors[FS__MAX_LINES] = {
    "#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#7f7f7f"};

/* ------------------------------------------------------------- strings */

char *fs__strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *c = malloc(n);
    if (c)
        memcpy(c, s, n);
    return c;
}

/* A malloc'ed printf; NULL when out of memory. */
char *fs__fmt(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return NULL;
    char *s = malloc((size_t)n + 1);
    if (!s)
        return NULL;
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

static bool fs__is_control(unsigned char c)
{
    return c < 0x20 || c == 0x7f;
}

/* A name as a chart shows it: control characters become spaces, and a name
 * longer than max bytes (at most FS__NAME_SHOWN) is cut, never inside a
 * UTF-8 sequence, and ends with "...". */
void fs__shown(const char *s, char out[FS__NAME_SHOWN + 4], size_t max)
{
    assert(max <= FS__NAME_SHOWN);
    size_t n = strlen(s);
    bool cut = n > max;
    if (cut) {
        n = max;
        while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
            n--; /* s[n] would start the cut-off part: back up to a lead byte */
    }
    for (size_t i = 0; i < n; i++)
        out[i] = fs__is_control((unsigned char)s[i]) ? ' ' : s[i];
    if (cut)
        memcpy(out + n, "...", 3), n += 3;
    out[n] = '\0';
}

/* Writes s as a gnuplot string expression made of single-quoted pieces:
 * gnuplot expands nothing inside single quotes (no backquote commands, no
 * macros, no escapes).  A quote in s is not written with the documented ''
 * escape: gnuplot 5.4 misreads '' right after an opening quote or right after
 * another '' (both '''x' and 'a''''b' are syntax errors), so a name starting
 * with a quote would break the script.  Each quote is instead the variable sq
 * (a quote character, set at the top of every script) joined with `.`:
 * a'b -> 'a'.sq.'b'.  Control characters (a newline would end the command)
 * become spaces.  Usable wherever gnuplot takes a string expression: titles,
 * axis labels, plot titles, tic labels. */
void fs__gp_quote(FILE *fp, const char *s)
{
    fputc('\'', fp);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '\'')
            fputs("'.sq.'", fp);
        else
            fputc(fs__is_control(*p) ? ' ' : *p, fp);
    }
    fputc('\'', fp);
}

/* A CSV field: the one writer every CSV shares (quoted by libcsv, a
 * would-be spreadsheet formula neutralised). */
void fs__csv_str(FILE *fp, const char *s)
{
    fs_results_csv_field(fp, s);
}

/* A number for a datablock or a CSV: NaN (gnuplot skips the point) or %.9g. */
void fs__num(FILE *fp, double v)
{
    if (isfinite(v))
        fprintf(fp, "%.9g", v);
    else
        fputs("NaN", fp);
}

/* "dir/name", malloc'ed; NULL when out of memory. */
char *fs__join(const char *dir, const char *name)
{
    return fs__fmt("%s/%s", dir, name);
}

/* ------------------------------------------------------ chart writing */

static void fs__writer_discard(fs__writer *w)
{
    if (w->files.dir)
        fs_output_abort(&w->files); /* closes w->csv */
    if (w->gp)
        fclose(w->gp);
    if (w->bp)
        fclose(w->bp);
    free(w->script);
    free(w->body);
    memset(w, 0, sizeof *w);
}

int fs__writer_open(fs__writer *w, const fs__chart_out *o, const char *stem)
{
    memset(w, 0, sizeof *w);
    assert(strlen(stem) < sizeof w->stem);
    snprintf(w->stem, sizeof w->stem, "%s", stem);
    char csv_name[sizeof w->stem + 4];
    snprintf(csv_name, sizeof csv_name, "%s.csv", stem);
    int rc;
    if ((rc = fs_output_begin(&w->files, o->dir, o->err)) != FS_OK ||
        (rc = fs_output_open(&w->files, csv_name, &w->csv, o->err)) != FS_OK) {
        fs__writer_discard(w);
        return rc;
    }
    /* The script is kept in memory: gnuplot is fed this text, never the
     * STEM.gp file, which someone could replace before gnuplot reads it. */
    w->gp = open_memstream(&w->script, &w->script_len);
    w->bp = open_memstream(&w->body, &w->body_len);
    if (!w->gp || !w->bp) {
        fs__writer_discard(w);
        return fs_error_set(o->err, FS_ERR_RUNTIME, "charts: out of memory");
    }
    fprintf(w->gp,
            "# fleetsim chart %s: written by fleetsim; render it by running: gnuplot %s.gp (in this directory)\n"
            "# The data is inline; names from the results appear only in single-quoted strings.\n"
            "set encoding utf8\n"
            "sq = sprintf('%%c', 39)  # a single quote, for names that hold one\n",
            stem, stem);
    return FS_OK;
}

/* Opens chart i of n of a kind: STEM alone, or STEM_1 ... STEM_n when n > 1. */
int fs__writer_open_nth(fs__writer *w, const fs__chart_out *o, const char *stem, size_t i, size_t n)
{
    char nth[32];
    if (n == 1)
        snprintf(nth, sizeof nth, "%s", stem);
    else
        snprintf(nth, sizeof nth, "%s_%u", stem, (unsigned)(i + 1));
    return fs__writer_open(w, o, nth);
}

/* Finishes the script (the body once for PNG, once for SVG), writes STEM.gp
 * beside STEM.csv (both renamed into place together) and adds the chart,
 * with its script, to the set.  title and caption are taken over. */
int fs__writer_finish(fs__writer *w, const fs__chart_out *o, char *title, char *caption)
{
    int rc = FS_OK;
    if (!title || !caption) {
        rc = fs_error_set(o->err, FS_ERR_RUNTIME, "charts: out of memory");
        goto out;
    }
    int bad = fclose(w->bp);
    w->bp = NULL;
    if (bad == 0) {
        fprintf(w->gp,
                "set terminal pngcairo size 900,420 noenhanced font 'sans,10'\n"
                "set output '%s.png'\n",
                w->stem);
        fwrite(w->body, 1, w->body_len, w->gp);
        fprintf(w->gp,
                "set output\n"
                "set terminal svg size 900,420 noenhanced font 'sans,10' background '#ffffff'\n"
                "set output '%s.svg'\n",
                w->stem);
        fwrite(w->body, 1, w->body_len, w->gp);
        fputs("set output\n", w->gp);
        bad = ferror(w->gp) | fclose(w->gp);
        w->gp = NULL;
    }
    if (bad != 0) {
        rc = fs_error_set(o->err, FS_ERR_RUNTIME, "charts: out of memory");
        goto out;
    }
    char gp_name[sizeof w->stem + 3];
    snprintf(gp_name, sizeof gp_name, "%s.gp", w->stem);
    FILE *gp;
    if ((rc = fs_output_open(&w->files, gp_name, &gp, o->err)) != FS_OK)
        goto out;
    fwrite(w->script, 1, w->script_len, gp);
    w->csv = NULL; /* closed by the commit */
    if ((rc = fs_output_commit(&w->files, o->err)) != FS_OK)
        goto out;
    fs_chart_set *set = o->set;
    assert(set->n < FS_CHARTS_MAX);
    fs_chart *ch = &set->charts[set->n++];
    memcpy(ch->stem, w->stem, sizeof ch->stem);
    ch->title = title;
    ch->caption = caption;
    ch->script = w->script;
    ch->rendered = false;
    title = caption = w->script = NULL;
out:
    free(title);
    free(caption);
    fs__writer_discard(w);
    return rc;
}

/* The chart title as plain text: control characters are already spaces. */
char *fs__title(const char *scenario, const char *what, const char *name)
{
    char scen[FS__NAME_SHOWN + 4], shown[FS__NAME_SHOWN + 4];
    fs__shown(scenario, scen, FS__NAME_TITLE);
    if (name) {
        fs__shown(name, shown, FS__NAME_TITLE);
        return *scen ? fs__fmt("%s: %s %s", scen, what, shown) : fs__fmt("%s %s", what, shown);
    }
    return *scen ? fs__fmt("%s: %s", scen, what) : fs__strdup(what);
}

/* Common settings at the top of every body: title and axis labels, all
 * noenhanced so ^ _ @ { } in a name are drawn as they are. */
void fs__gp_labels(FILE *bp, const char *title, const char *xlabel, const char *ylabel)
{
    fputs("reset\nset title ", bp);
    fs__gp_quote(bp, title);
    fputs(" noenhanced\nset xlabel ", bp);
    fs__gp_quote(bp, xlabel);
    fputs(" noenhanced\nset ylabel ", bp);
    fs__gp_quote(bp, ylabel);
    fputs(" noenhanced\nset grid\nset border 3\nset tics nomirror\n", bp);
}

void fs__gp_policy_lines(FILE *bp, const fs__data *d, const char *style)
{
    size_t lines = fs__min(d->n_pol, FS__MAX_LINES);
    for (size_t i = 0; i < lines; i++) {
        fprintf(bp, "%s$data using 1:%zu with %s lw 2 lc rgb '%s' title ", i ? ", \\\n     " : "", i + 2, style,
                fs__policy_colors[i]);
        char shown[FS__NAME_SHOWN + 4];
        fs__shown(d->pol[i].name, shown, FS__NAME_KEY);
        fs__gp_quote(bp, shown);
        fputs(" noenhanced", bp);
    }
}

void fs__csv_policy_header(FILE *csv, const fs__data *d, const char *first, const char *last)
{
    fputs(first, csv);
    for (size_t i = 0; i < d->n_pol; i++) {
        fputc(',', csv);
        fs__csv_str(csv, d->pol[i].name);
    }
    if (last)
        fprintf(csv, ",%s", last);
    fputc('\n', csv);
}

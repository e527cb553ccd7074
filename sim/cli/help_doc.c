/*
 * The help registry (help.h) as the man page fleetsim(1), in troff with the
 * man macros, and as the command reference in Markdown that
 * sim/cli/README.md holds.
 *
 * troff: text goes out with every backslash as \e and every hyphen as \- (a
 * minus sign: options copy and paste from the rendered page, and never break
 * across lines), and a line that would start with a control character ('.'
 * or '\'') starts with the zero-width \& instead.  Paragraphs are filled;
 * notes and examples go in no-fill blocks.  The page carries no date, so the
 * same binary always writes the same bytes.
 *
 * Markdown: prose goes out as it is, but for a line whose first character
 * would start a heading, quote, list or HTML block, which gets a backslash;
 * a table cell escapes its '|'.  Synopses and notes go in code blocks.  The
 * reference opens with the table of commands and gives each command a
 * level-3 heading, as it sits under a section of the README.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "help.h"

/* before, text as escape writes it, after. */
static void fs__wrap(FILE *fp, void (*escape)(FILE *, const char *), const char *before, const char *text,
                     const char *after)
{
    fputs(before, fp);
    escape(fp, text);
    fputs(after, fp);
}

/* How a format writes an option's row: what goes before and after the
 * short letter, the long name, the argument and the help, and how it
 * escapes text. */
typedef struct fs__markup {
    const char *row;
    const char *letter[2], *name[2], *arg[2], *help[2];
    void (*escape)(FILE *fp, const char *s);
} fs__markup;

static void fs__options(FILE *fp, const fs_cli_table *t, const fs__markup *m)
{
    for (int i = 0; i < t->n; i++) {
        const fs_cli_option *o = &t->options[i];
        char letter[2] = {o->letter, 0};
        fputs(m->row, fp);
        if (o->letter)
            fs__wrap(fp, m->escape, m->letter[0], letter, m->letter[1]);
        fs__wrap(fp, m->escape, m->name[0], o->name, m->name[1]);
        if (o->arg)
            fs__wrap(fp, m->escape, m->arg[0], o->arg, m->arg[1]);
        fs__wrap(fp, m->escape, m->help[0], o->help, m->help[1]);
    }
}

/* ---- troff ---------------------------------------------------------------- */

static void fs__roff(FILE *fp, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if ((i == 0 || s[i - 1] == '\n') && (s[i] == '.' || s[i] == '\''))
            fputs("\\&", fp);
        if (s[i] == '\\')
            fputs("\\e", fp);
        else if (s[i] == '-')
            fputs("\\-", fp);
        else
            fputc(s[i], fp);
    }
}

static void fs__roff_str(FILE *fp, const char *s)
{
    fs__roff(fp, s, strlen(s));
}

/* Text line by line, a blank line written as `blank`. */
static void fs__roff_lines(FILE *fp, const char *text, const char *blank)
{
    for (const char *s = text; *s;) {
        size_t n = strcspn(s, "\n");
        if (n == 0) {
            fputs(blank, fp);
        } else {
            fs__roff(fp, s, n);
            fputc('\n', fp);
        }
        s += n + (s[n] == '\n');
    }
}

/* Filled text: a blank line starts a new paragraph. */
static void fs__roff_text(FILE *fp, const char *text)
{
    fs__roff_lines(fp, text, ".PP\n");
}

/* Preformatted text, one output line per input line. */
static void fs__roff_pre(FILE *fp, const char *text)
{
    fputs(".PP\n.nf\n", fp);
    fs__roff_lines(fp, text, ".sp\n");
    fputs(".fi\n", fp);
}

static const fs__markup fs__roff_markup = {
    ".TP\n", {"\\fB\\-", "\\fR, "}, {"\\fB\\-\\-", "\\fR"}, {" \\fI", "\\fR"}, {"\n", "\n"}, fs__roff_str};

/* "fleetsim NAME" in bold and the rest of the synopsis, filled. */
static void fs__roff_synopsis(FILE *fp, const fs_cli_command *c)
{
    fs__wrap(fp, fs__roff_str, "\\fBfleetsim ", c->name, "\\fR");
    fs__roff_str(fp, c->synopsis + strlen(c->name));
    fputc('\n', fp);
}

/* The notes and their computed rows as one text, for escaping: NULL without
 * notes or without memory (*failed set). */
static char *fs__notes(const fs_cli_command *c, int *failed)
{
    if (!c->notes && !c->notes_rows)
        return NULL;
    char *buf = NULL;
    size_t size = 0;
    FILE *mem = open_memstream(&buf, &size);
    if (!mem) {
        *failed = 1;
        return NULL;
    }
    if (c->notes)
        fputs(c->notes, mem);
    if (c->notes_rows)
        c->notes_rows(mem);
    if (fclose(mem) != 0) {
        free(buf);
        *failed = 1;
        return NULL;
    }
    return buf;
}

int fs_cli_help_man(FILE *fp)
{
    const fs_cli_program *p = &fs_cli_help_program;
    int failed = 0;
    fputs(".\\\" fleetsim(1), written by 'fleetsim help --man' from the command line's help\n"
          ".\\\" registry (sim/cli/help.c): change that, not this.\n",
          fp);
    fprintf(fp, ".TH FLEETSIM 1 \"\" \"fleetsim %s\" \"User Commands\"\n.nh\n.ad l\n", FLEETSIM_VERSION);
    fs__wrap(fp, fs__roff_str, ".SH NAME\nfleetsim \\- ", p->whatis, "\n");
    fs__wrap(fp, fs__roff_str, ".SH SYNOPSIS\n\\fBfleetsim\\fR ", p->synopsis, "\n");
    for (int i = 0; i < fs_cli_help_n_commands; i++) {
        fputs(".br\n", fp);
        fs__roff_synopsis(fp, &fs_cli_help_commands[i]);
    }
    for (int i = 0; i < p->options->n; i++)
        fs__wrap(fp, fs__roff_str, ".br\n\\fBfleetsim \\-\\-", p->options->options[i].name, "\\fR\n");
    fputs(".SH DESCRIPTION\n", fp);
    fs__roff_text(fp, p->description);
    fputs(".PP\n", fp);
    fs__roff_text(fp, p->reference);
    fputs(".SH OPTIONS\n", fp);
    fs__options(fp, p->options, &fs__roff_markup);
    fputs(".SH COMMANDS\n", fp);
    for (int i = 0; i < fs_cli_help_n_commands; i++) {
        const fs_cli_command *c = &fs_cli_help_commands[i];
        fs__wrap(fp, fs__roff_str, ".SS ", c->name, "\n");
        fs__roff_synopsis(fp, c);
        fputs(".PP\n", fp);
        fs__roff_text(fp, c->description);
        fs__options(fp, c->options, &fs__roff_markup);
        char *notes = fs__notes(c, &failed);
        if (notes)
            fs__roff_pre(fp, notes);
        free(notes);
        if (c->exit_status)
            fs__wrap(fp, fs__roff_text, ".PP\nExit status: ", c->exit_status, "");
    }
    fputs(".SH \"EXIT STATUS\"\n", fp);
    fs__roff_text(fp, p->exit_status);
    fputs(".PP\nThese commands have their own:\n", fp);
    for (int i = 0; i < fs_cli_help_n_commands; i++) {
        const fs_cli_command *c = &fs_cli_help_commands[i];
        if (c->exit_status) {
            fs__wrap(fp, fs__roff_str, ".TP\n\\fB", c->name, "\\fR\n");
            fs__roff_text(fp, c->exit_status);
        }
    }
    fputs(".SH EXAMPLES\n", fp);
    fs__roff_pre(fp, p->examples);
    fputs(".SH \"SEE ALSO\"\n.BR gnuplot (1),\nwhich draws the report's charts.\n", fp);
    return failed ? -1 : 0;
}

/* ---- Markdown ------------------------------------------------------------- */

/* Prose, each line guarded where its first character would make it a
 * heading, quote, list item, thematic break or HTML block. */
static void fs__md_text(FILE *fp, const char *text)
{
    for (const char *s = text; *s;) {
        size_t n = strcspn(s, "\n"), digits = strspn(s, "0123456789");
        if (n && strchr("#>+-*=<_", s[0]))
            fputc('\\', fp);
        if (digits && (s[digits] == '.' || s[digits] == ')')) {
            fwrite(s, 1, digits, fp);
            fputc('\\', fp);
            s += digits, n -= digits;
        }
        fwrite(s, 1, n, fp);
        fputc('\n', fp);
        s += n + (s[n] == '\n');
    }
}

/* A table cell's text with its '|' escaped. */
static void fs__md_cell(FILE *fp, const char *s)
{
    for (; *s; s++) {
        if (*s == '|')
            fputc('\\', fp);
        fputc(*s, fp);
    }
}

static const fs__markup fs__md_markup = {"| ", {"`-", "`, "}, {"`--", "` | "}, {"`", "`"}, {" | ", " |\n"},
                                         fs__md_cell};

static void fs__md_options(FILE *fp, const fs_cli_table *t)
{
    fputs("| option | argument | meaning |\n| --- | --- | --- |\n", fp);
    fs__options(fp, t, &fs__md_markup);
}

int fs_cli_help_markdown(FILE *fp)
{
    const fs_cli_program *p = &fs_cli_help_program;
    int failed = 0;
    fputs("| command | what it does |\n| --- | --- |\n", fp);
    for (int i = 0; i < fs_cli_help_n_commands; i++) {
        const fs_cli_command *c = &fs_cli_help_commands[i];
        fs__wrap(fp, fs__md_cell, "| `fleetsim ", c->name, " ");
        fs__wrap(fp, fs__md_cell, "", c->operand, "` | ");
        fs__wrap(fp, fs__md_cell, "", c->summary, " |\n");
    }
    fputs("\nWithout a command:\n\n", fp);
    fs__md_options(fp, p->options);
    fs__wrap(fp, fs__md_text, "\nExit status: ", p->exit_status, "");
    for (int i = 0; i < fs_cli_help_n_commands; i++) {
        const fs_cli_command *c = &fs_cli_help_commands[i];
        /* The operand too keeps the heading's anchor apart from the prose's "`fleetsim sweep`". */
        fprintf(fp, "\n### `fleetsim %s %s`\n\n```text\n", c->name, c->operand);
        fs_cli_help_synopsis(fp, "fleetsim ", c);
        fputs("\n```\n\n", fp);
        fs__md_text(fp, c->description);
        fputc('\n', fp);
        fs__md_options(fp, c->options);
        char *notes = fs__notes(c, &failed);
        if (notes)
            fprintf(fp, "\n```text\n%s```\n", notes);
        free(notes);
        if (c->exit_status)
            fs__wrap(fp, fs__md_text, "\nExit status: ", c->exit_status, "");
    }
    /* A blank line last: whatever follows the reference starts a block of its own. */
    fputc('\n', fp);
    return failed ? -1 : 0;
}

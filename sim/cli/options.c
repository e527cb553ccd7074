#include "options.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "terminal.h"

static int fs__find_long(const fs_cli_option *t, int n, const char *name, size_t len)
{
    for (int i = 0; i < n; i++)
        if (strlen(t[i].name) == len && strncmp(t[i].name, name, len) == 0)
            return i;
    return -1;
}

static int fs__find_short(const fs_cli_option *t, int n, char letter)
{
    for (int i = 0; i < n; i++)
        if (t[i].letter && t[i].letter == letter)
            return i;
    return -1;
}

int fs_cli_parse(const char *command, const fs_cli_option *table, int n_options, int argc,
                 char **argv, fs_cli_parsed *out)
{
    memset(out, 0, sizeof *out);
    int only_positional = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] == '\0') {
            fprintf(stderr, "fleetsim %s: an empty argument: expected a file or directory name\n", command);
            return -1;
        }
        if (only_positional || a[0] != '-' || a[1] == '\0') {
            if (out->n_positional == FS_CLI_MAX_POSITIONAL) {
                fprintf(stderr, "fleetsim %s: too many arguments\n", command);
                return -1;
            }
            out->positional[out->n_positional++] = a;
            continue;
        }
        if (strcmp(a, "--") == 0) {
            only_positional = 1;
            continue;
        }
        int opt;
        const char *inline_value = NULL;
        if (a[1] == '-') {
            const char *eq = strchr(a + 2, '=');
            size_t len = eq ? (size_t)(eq - (a + 2)) : strlen(a + 2);
            opt = fs__find_long(table, n_options, a + 2, len);
            if (eq)
                inline_value = eq + 1;
        } else {
            opt = a[2] == '\0' ? fs__find_short(table, n_options, a[1]) : -1;
        }
        if (opt < 0) {
            fs_terminal_say(stderr, "fleetsim %s: unknown option '%s' (see 'fleetsim %s --help')", command,
                    a, command);
            return -1;
        }
        if (out->n_given == FS_CLI_MAX_OCCURRENCES) {
            fprintf(stderr, "fleetsim %s: too many options (at most %d)\n", command, FS_CLI_MAX_OCCURRENCES);
            return -1;
        }
        if (!table[opt].arg) {
            if (inline_value) {
                fprintf(stderr, "fleetsim %s: option '--%s' takes no value\n", command, table[opt].name);
                return -1;
            }
            out->values[opt] = "";
        } else if (inline_value) {
            out->values[opt] = inline_value;
        } else if (i + 1 < argc) {
            out->values[opt] = argv[++i];
        } else {
            fprintf(stderr, "fleetsim %s: option '--%s' needs a value (%s)\n", command,
                    table[opt].name, table[opt].arg);
            return -1;
        }
        if (!*out->values[opt] && table[opt].arg && (strstr(table[opt].arg, "DIR") || strstr(table[opt].arg, "FILE"))) {
            /* "" would name the root, or a buffer's end, as a path. */
            fprintf(stderr, "fleetsim %s: --%s: expected a %s name, got an empty one\n", command, table[opt].name,
                    strstr(table[opt].arg, "DIR") ? "directory" : "file");
            return -1;
        }
        out->given[out->n_given].option = opt;
        out->given[out->n_given++].value = out->values[opt];
    }
    return 0;
}

/* "--name ARG" into buf; returns its length. */
static int fs__left(const fs_cli_option *o, char *buf, size_t size)
{
    return snprintf(buf, size, "--%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
}

void fs_cli_help(FILE *fp, const fs_cli_option *table, int n_options)
{
    fs_cli_help_at(fp, table, n_options, 0);
}

void fs_cli_help_at(FILE *fp, const fs_cli_option *table, int n_options, int width)
{
    char left[64];
    for (int i = 0; i < n_options; i++) {
        int n = fs__left(&table[i], left, sizeof left);
        if (n > width)
            width = n;
    }
    for (int i = 0; i < n_options; i++) {
        fs__left(&table[i], left, sizeof left);
        if (table[i].letter)
            fprintf(fp, "  -%c, %-*s  %s\n", table[i].letter, width, left, table[i].help);
        else
            fprintf(fp, "      %-*s  %s\n", width, left, table[i].help);
    }
}

const char *fs_cli_choices(const fs_cli_table *t, int option)
{
    assert(option >= 0 && option < t->n);
    return t->choices ? t->choices[option] : NULL;
}

int fs_cli_choice(const fs_cli_table *t, int option, const char *value)
{
    const char *w = fs_cli_choices(t, option);
    size_t len = strlen(value);
    for (int k = 0; w && *w; k++) {
        size_t n = strcspn(w, " ");
        if (n == len && strncmp(w, value, len) == 0)
            return k;
        w += n + (w[n] == ' ');
    }
    return -1;
}

int fs_cli_parse_count(const char *text, uint64_t min, uint64_t max, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno || end == text || *end || text[0] == '-' || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

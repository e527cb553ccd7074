/*
 * options — one option table per subcommand, used for parsing and --help.
 *
 * A table lists each option once (long name, optional short letter, the name
 * of its argument or NULL for a flag, one line of help).  fs_cli_parse walks
 * argv against it, accepting `--name value`, `--name=value` and `-x value`,
 * and collects positional arguments; fs_cli_help prints the aligned
 * `-x, --long ARG  help` block from the same table, so the two never drift.
 */
#ifndef FS_CLI_OPTIONS_H
#define FS_CLI_OPTIONS_H

#include <stdint.h>
#include <stdio.h>

typedef struct fs_cli_option {
    const char *name;   /* long name without "--" */
    char letter;        /* short letter or 0 */
    const char *arg;    /* argument name ("N", "DIR") or NULL for a flag */
    const char *help;
} fs_cli_option;

/* A command's table as the help registry (help.h) holds it: the options, their
 * count, and for the options that take one of a fixed set of values, those
 * values as space-separated words ("table json csv"), indexed like the table
 * (NULL, or NULL entries, elsewhere).  Completion offers the words;
 * fs_cli_choice checks a value against them. */
typedef struct fs_cli_table {
    const fs_cli_option *options;
    int n;
    const char *const *choices;
} fs_cli_table;

#define FS_CLI_MAX_POSITIONAL 8

#define FS_CLI_MAX_OCCURRENCES 64

typedef struct fs_cli_parsed {
    const char *values[32];   /* per option: its (last) value, "" for a flag given, NULL if absent */
    /* Every option given, in order, for options that may repeat (--vary). */
    struct { int option; const char *value; } given[FS_CLI_MAX_OCCURRENCES];
    int n_given;
    const char *positional[FS_CLI_MAX_POSITIONAL];
    int n_positional;
} fs_cli_parsed;

/* Returns 0, or -1 after printing "fleetsim CMD: ..." to stderr.  An empty
 * argument, or an empty value for an option whose argument names a file or
 * a directory (its name holds FILE or DIR), is refused: "" is no path. */
int fs_cli_parse(const char *command, const fs_cli_option *table, int n_options, int argc,
                 char **argv, fs_cli_parsed *out);

void fs_cli_help(FILE *fp, const fs_cli_option *table, int n_options);

/* The same block with the text starting at column 2 + 4 + width + 2 (width
 * at least that of the longest "--name ARG"), to line up with other rows. */
void fs_cli_help_at(FILE *fp, const fs_cli_option *table, int n_options, int width);

/* Option `option`'s choices, or NULL when it takes any value. */
const char *fs_cli_choices(const fs_cli_table *t, int option);

/* The position of value among option's choices, or -1 when it is not one. */
int fs_cli_choice(const fs_cli_table *t, int option, const char *value);

/* A whole number in [min, max] with nothing before or after it: 0 and *out,
 * or -1 (the caller says what was expected). */
int fs_cli_parse_count(const char *text, uint64_t min, uint64_t max, uint64_t *out);

#endif

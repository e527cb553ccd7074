/*
 * help — the command line's documentation, held once: the help registry.
 *
 * One entry per command (fs_cli_help_commands): its name, synopsis, the line
 * of the top-level list, a description, its option table (the very table its
 * parser reads: the command's file exposes it as an fs_cli_table), notes, its
 * own exit statuses where they differ from the program's, and the function
 * that runs it, which main() dispatches to.  Everything that documents the
 * command line is rendered from here and from nothing else:
 *   fleetsim --help, fleetsim COMMAND --help   help.c
 *   fleetsim help --man, --markdown            help_doc.c (fleetsim(1), sim/cli/README.md)
 *   fleetsim help --completion bash            help_bash.c
 * so the help, the man page, the README and the completion cannot disagree.
 *
 * The text follows conventions that every renderer relies on:
 *   - synopsis, description, exit_status: plain text wrapped for an 80-column
 *     terminal, a blank line between paragraphs, no line starting with a
 *     space.  The help prints them as they are; troff and Markdown refill
 *     them.  A synopsis starts with the command's name, and its further lines
 *     are written unindented: the help lines them up after the name.
 *   - notes: preformatted (indentation matters), each line ending in "\n";
 *     printed verbatim, in a no-fill block in the man page and in a code
 *     block in Markdown.  notes_rows, when set, appends lines computed at run
 *     time (check's metrics come from reports/tables/check.h).
 *   - argument names carry meaning for completion: an operand or option
 *     argument whose name holds DIR completes directories, an operand whose
 *     name holds COMMAND command names, an argument FILE and any other
 *     operand file names, and an option with choices those words.
 *
 * Everything here is static and read-only; nothing to create or free.
 */
#ifndef FS_CLI_HELP_H
#define FS_CLI_HELP_H

#include <stdio.h>

#include "options.h"

typedef struct fs_cli_command {
    const char *name;            /* "fit-traffic" */
    const char *operand;         /* in the top-level list ("TRACE") and for completion; NULL: none */
    const char *summary;         /* the top-level list's line */
    const char *synopsis;        /* "fit-traffic TRACE.csv [...]" (without "fleetsim ") */
    const char *description;
    const fs_cli_table *options;
    const char *notes;           /* or NULL */
    void (*notes_rows)(FILE *fp); /* or NULL */
    const char *exit_status;     /* or NULL: the program's */
    int (*main)(int argc, char **argv);
} fs_cli_command;

typedef struct fs_cli_program {
    const char *whatis;          /* the man page's NAME line */
    const char *synopsis;        /* "COMMAND [OPTIONS]" */
    const char *description;     /* the top of fleetsim --help */
    const char *reference;       /* the man page's and Markdown's word on where this text comes from */
    const fs_cli_table *options; /* -h, --help and --version */
    const char *exit_status;
    const char *examples;        /* preformatted, as notes */
} fs_cli_program;

extern const fs_cli_program fs_cli_help_program;
extern const fs_cli_command fs_cli_help_commands[];
extern const int fs_cli_help_n_commands;

/* The command called name, or NULL. */
const fs_cli_command *fs_cli_help_find(const char *name);

/* fleetsim --help: the synopsis, the list of commands and the exit statuses. */
void fs_cli_help_usage(FILE *fp);

/* Parses argv (the words after the command's name) against the registered
 * command's options and prints its help when --help is among them.  Returns
 * -1 to go on with *out, or the exit status to stop with: 0 after the help,
 * 2 after a message on stderr. */
int fs_cli_help_parse(const char *name, int argc, char **argv, fs_cli_parsed *out);

/* fleetsim COMMAND --help for the registered command called name. */
void fs_cli_help_command(FILE *fp, const char *name);

/* "PREFIX" and the command's synopsis, its further lines lined up after
 * "PREFIX NAME " (no newline at the end). */
void fs_cli_help_synopsis(FILE *fp, const char *prefix, const fs_cli_command *c);

/* The help subcommand (cmd_help.c), and its renderers, which write the
 * whole document to fp and return 0, or -1 when out of memory (the caller
 * checks fp for write errors). */
int fs_cli_help_main(int argc, char **argv);
int fs_cli_help_man(FILE *fp);
int fs_cli_help_markdown(FILE *fp);
int fs_cli_help_bash(FILE *fp);

#endif

/*
 * fleetsim help — the help registry's renderings (help.h), on stdout:
 *
 *   fleetsim help [COMMAND]          the help, as --help prints it
 *   fleetsim help --man              the man page fleetsim(1) in troff (help_doc.c)
 *   fleetsim help --markdown         the command reference in Markdown (help_doc.c)
 *   fleetsim help --completion bash  a bash completion script (help_bash.c)
 *
 * The build writes fleetsim.1 and fleetsim.bash-completion with --man and
 * --completion bash (CMakeLists.txt), and tests/check_docs.sh holds
 * sim/cli/README.md to --markdown.
 */
#include <stdio.h>

#include "commands.h"
#include "help.h"
#include "options.h"
#include "terminal.h"

enum { HELP_MAN, HELP_MARKDOWN, HELP_COMPLETION, HELP_HELP };
static const fs_cli_option help_options[] = {
    [HELP_MAN] = {"man", 'm', NULL, "write the man page fleetsim(1), in troff"},
    [HELP_MARKDOWN] = {"markdown", 0, NULL, "write the command reference in Markdown"},
    [HELP_COMPLETION] = {"completion", 0, "SHELL", "write the completion script for SHELL (bash)"},
    [HELP_HELP] = {"help", 'h', NULL, "show this help"},
};
#define HELP_N_OPTIONS ((int)(sizeof help_options / sizeof help_options[0]))
static const char *const help_choices[HELP_N_OPTIONS] = {[HELP_COMPLETION] = "bash"};
const fs_cli_table fs_cli_help_options = {help_options, HELP_N_OPTIONS, help_choices};

int fs_cli_help_main(int argc, char **argv)
{
    fs_cli_parsed opt;
    int status = fs_cli_help_parse("help", argc, argv, &opt);
    if (status >= 0)
        return status;
    const char *shell = opt.values[HELP_COMPLETION];
    int asked = opt.n_positional + !!opt.values[HELP_MAN] + !!opt.values[HELP_MARKDOWN] + !!shell;
    if (asked > 1) {
        fprintf(stderr, "fleetsim help: expected one of COMMAND, --man, --markdown or --completion SHELL "
                        "(see 'fleetsim help --help')\n");
        return FS_EXIT_USAGE;
    }
    if (shell && fs_cli_choice(&fs_cli_help_options, HELP_COMPLETION, shell) < 0) {
        fs_terminal_say(stderr, "fleetsim help: --completion: expected one of %s, got \"%s\"",
                fs_cli_choices(&fs_cli_help_options, HELP_COMPLETION), shell);
        return FS_EXIT_USAGE;
    }
    if (opt.n_positional && !fs_cli_help_find(opt.positional[0])) {
        fs_terminal_say(stderr, "fleetsim help: unknown command '%s' (see 'fleetsim --help')", opt.positional[0]);
        return FS_EXIT_USAGE;
    }
    int rc = 0;
    if (opt.n_positional)
        fs_cli_help_command(stdout, opt.positional[0]);
    else if (opt.values[HELP_MAN])
        rc = fs_cli_help_man(stdout);
    else if (opt.values[HELP_MARKDOWN])
        rc = fs_cli_help_markdown(stdout);
    else if (shell)
        rc = fs_cli_help_bash(stdout);
    else
        fs_cli_help_usage(stdout);
    if (rc != 0 || fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "fleetsim: help: cannot write to standard output\n");
        return FS_EXIT_RUNTIME;
    }
    return FS_EXIT_OK;
}

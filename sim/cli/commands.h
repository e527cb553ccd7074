/*
 * commands — subcommands that live in their own files (sim/cli/cmd_*.c).
 *
 * Each takes the arguments after its name (argv[0] is the first of them, not
 * the command) and returns the process's exit status; main() dispatches to it
 * and returns that status.
 */
#ifndef FS_CLI_COMMANDS_H
#define FS_CLI_COMMANDS_H

/* fleetsim check SCENARIO --baseline FILE [--tolerance LIST] [--update]:
 * 0 no metric worse (or baseline updated), 1 a metric worse or a runtime
 * failure, 2 usage, scenario or baseline error.  See cmd_check.c. */
int fs_cli_check(int argc, char **argv);

#endif

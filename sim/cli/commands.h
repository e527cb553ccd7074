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

/* fleetsim sweep SWEEP.json [--jobs N] [--out DIR] [--shard I/N|auto]: a
 * sweep's runs on local cores or one shard of them.  See cmd_sweep.c. */
int fs_cli_sweep(int argc, char **argv);

/* fleetsim merge DIR... [--out DIR]: shards combined into one result. */
int fs_cli_merge(int argc, char **argv);

/* fleetsim plan SCENARIO --vary PATH=RANGE ... --constraint EXPR ...: the
 * cheapest point that meets every constraint.  See cmd_plan.c. */
int fs_cli_plan(int argc, char **argv);

/* fleetsim fit-traffic TRACE.csv [--preset NAME | --time COL | --rate COL
 * --window-start COL] ...: a service's arrivals fitted to a trace.  See
 * cmd_fit.c. */
int fs_cli_fit_traffic(int argc, char **argv);

/* Shared by the commands above: --jobs (default: every core; -1 after a
 * message). */
int fs_cli_jobs(const char *cmd, const char *text, unsigned *jobs);

/* --out as given, else the input file's name without .json plus suffix
 * (".out", ".plan"), into buf. */
#include <stddef.h>
void fs_cli_out_dir(const char *given, const char *input, const char *suffix, char *buf, size_t size);

#endif

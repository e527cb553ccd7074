/*
 * cal_child — the second processes two of fleetsim-calibrate's measurements
 * need: this same binary, re-executed from /proc/self/exe in a hidden mode
 * (--child-context, --child-hog), its stdout on a pipe that the parent reads
 * against a deadline.
 *
 * A fresh process is the only way to time context creation as a new tenant
 * meets it, and a second process the only way to share the GPU by
 * time-slicing; fork without exec would inherit the parent's CUDA state.
 *
 * The caller owns each cal_child (on its stack, set to CAL_CHILD_NONE) and
 * pairs every cal_child_start with cal_child_fini.  A started child owns its
 * process, the read end of its stdout and a temporary file holding its
 * stderr.  Children die with the parent (PR_SET_PDEATHSIG) and are always
 * reaped, so none outlives the tool or is left a zombie.  Failures are
 * reported through cal_say.
 */
#ifndef FS_CALIB_CHILD_H
#define FS_CALIB_CHILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

typedef struct cal_child {
    pid_t pid; /* 0: none */
    int fd;    /* read end of its stdout, -1: closed */
    FILE *err; /* its stderr, relayed when it fails; NULL: it shares ours */
} cal_child;

#define CAL_CHILD_NONE {0, -1, NULL}

/* Starts /proc/self/exe with argv; 0, or -1 after a message. */
int cal_child_start(cal_child *c, char *const argv[]);

/* Reads the child's stdout into buf (NUL-terminated) until EOF, or until the
 * first newline when `line` is set, waiting at most timeout_s in all; `what`
 * names the child in messages.  Returns the length, or -1 on timeout or a
 * read error (after a message). */
long cal_child_read(cal_child *c, char *buf, size_t cap, bool line, double timeout_s, const char *what);

/* Copies what the child wrote to its stderr to ours, each line indented. */
void cal_child_relay(cal_child *c);

/* Waits for the child to exit, killing it first when `kill_it`; returns its
 * wait status, or -1.  Safe on a child never started.  Never leaves a zombie.
 * The child's stderr is kept until cal_child_fini. */
int cal_child_reap(cal_child *c, bool kill_it);

/* Reaps (killing) if still running and drops the saved stderr. */
void cal_child_fini(cal_child *c);

/* Starts a child that keeps the GPU busy and says "ready" on its first line
 * once it is: 0, after which its stdout is closed (it writes nothing more),
 * or -1 after a message naming `what` (the child then reaped; the caller
 * relays its stderr and finishes it). */
int cal_child_start_ready(cal_child *c, char *const argv[], const char *what);

/* Whether a busy child is still running; false, after a message naming
 * `what` and how it ended (it is then reaped), when it died: samples taken
 * beside it were not shared. */
bool cal_child_running(cal_child *c, const char *what);

/* Asks the child to stop (SIGTERM) and reaps it, killing it after grace_s.
 * For a child that must end cleanly: an MPS client killed mid-kernel leaves
 * the MPS server refusing new clients.  Safe on a child never started. */
void cal_child_stop(cal_child *c, double grace_s);

/* After a failure: kills and reaps the child if still running, relays its
 * stderr and finishes it (cal_child_fini). */
void cal_child_abandon(cal_child *c);

/* A wait status in words for a message: "exited with status 1", "was killed
 * by signal 9"; -1 (from cal_child_reap) is "was lost". */
void cal_child_describe(int status, char *buf, size_t cap);

#endif

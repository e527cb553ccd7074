/*
 * cal_say — what fleetsim-calibrate says on stderr: one progress line per
 * step, and error messages prefixed with the program name.
 *
 * Owns the progress state: how many steps there are, which one runs, when it
 * began, and whether its line is still open.  A step's line stays open
 * ("[3/9] ... ") while the step runs, so an error in the middle of it first
 * ends that line with "failed" and then stands on a line of its own.  Every
 * module of the tool reports through here, so that rule holds wherever the
 * error comes from.  stdout is never written.
 */
#ifndef FS_CALIB_SAY_H
#define FS_CALIB_SAY_H

#include <stdarg.h>

/* A literal, not a variable: the child's message between fork and exec
 * (cal_child.c) must be a constant string, as nothing may be formatted there. */
#define CAL_PROG "fleetsim-calibrate"

/* The number of steps the progress lines count to ("[k/N]"). */
void cal_say_steps(int n_steps);

/* Opens the next step's line, "[k/N] <fmt> ... ", and starts its clock. */
void cal_say_step(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Ends the open step's line with "done in X s". */
void cal_say_done(void);

/* "fleetsim-calibrate: <fmt>" and a newline on stderr, after ending any open
 * progress line with "failed". */
void cal_say_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cal_say_verror(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

#endif

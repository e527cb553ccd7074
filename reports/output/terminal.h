/*
 * terminal — text from the user as fleetsim prints it on a terminal.
 *
 * Names, paths and messages that carry them (a scenario's, a trace's, an
 * error's) reach stdout and stderr through here, so an escape sequence in a
 * name cannot clear the screen, retitle the window or fake a line: every
 * control character (C0, DEL, and C1 as UTF-8 encodes it, U+0080..U+009F)
 * prints as '?'.  Everything else, UTF-8 included, prints as it is.
 *
 * Ownership: nothing is kept; the streams are borrowed.
 */
#ifndef FS_TERMINAL_H
#define FS_TERMINAL_H

#include <stdio.h>

/* Writes s to fp with each control character as '?'; returns the number of
 * characters written (a replaced C1 character counts one). */
int fs_terminal_write(FILE *fp, const char *s);

/* The same, stopping after at most max characters (for table columns). */
int fs_terminal_write_n(FILE *fp, const char *s, int max);

/* "fleetsim: MSG\n" on stderr, MSG through fs_terminal_write: the command
 * line's one way to print an error or a warning built from user input. */
void fs_terminal_error(const char *msg);

/* printf-style: the formatted text through fs_terminal_write, then a
 * newline, for a message that mixes fleetsim's words with user text (a path,
 * an option's value, a name); fmt itself ends without "\n".  Text too long
 * for 4 KiB is cut there. */
void fs_terminal_say(FILE *fp, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif

/*
 * error — the message channel for bad input and environment failures.
 *
 * Library functions that can fail on input return a status (0 or an FS_ERR_*
 * code) and, on failure, fill a caller-owned fs_error with one line a person
 * can act on: the file, then file:line:column or a JSON path, then what was
 * expected and what was found.  Programmer errors are asserts, not fs_error.
 */
#ifndef FS_ERROR_H
#define FS_ERROR_H

enum {
    FS_OK = 0,
    FS_ERR_INPUT = 2,   /* the user's input is wrong: exit status 2 */
    FS_ERR_RUNTIME = 1  /* environment or resource failure: exit status 1 */
};

typedef struct fs_error {
    int code;       /* FS_ERR_INPUT or FS_ERR_RUNTIME once set */
    char msg[1024];
} fs_error;

/* Sets err (if not NULL) and returns code, so callers can `return fs_error_set(...)`. */
int fs_error_set(fs_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif

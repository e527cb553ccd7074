/*
 * output — all-or-nothing output files.
 *
 * A run's files are written to temporary files in the target directory and
 * renamed into place only when every one of them was written completely, so
 * a failed or interrupted run never leaves a partial results.json beside a
 * stale timeseries.csv.  rename(2) within one directory is atomic.
 *
 * Ownership: fs_output is caller-owned; fs_output_commit or fs_output_abort
 * closes every stream it handed out and frees its paths.
 */
#ifndef FS_OUTPUT_H
#define FS_OUTPUT_H

#include <stdio.h>

#include "error.h"

#define FS_OUTPUT_MAX_FILES 8

typedef struct fs_output {
    char *dir;
    struct {
        char *final_path, *tmp_path;
        FILE *fp;
    } files[FS_OUTPUT_MAX_FILES];
    int n;
} fs_output;

/* Creates dir and its missing parents.  FS_OK or FS_ERR_RUNTIME. */
int fs_output_begin(fs_output *out, const char *dir, fs_error *err);

/* A stream for dir/name, backed by a temporary file until commit. */
int fs_output_open(fs_output *out, const char *name, FILE **fp, fs_error *err);

/* Closes every stream (checking for write errors) and renames each file into
 * place.  On any failure, removes the temporary files and returns
 * FS_ERR_RUNTIME; files already renamed stay (they are complete). */
int fs_output_commit(fs_output *out, fs_error *err);

/* Closes and removes every temporary file. */
void fs_output_abort(fs_output *out);

#endif

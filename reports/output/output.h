/*
 * output — all-or-nothing, symlink-safe output files.
 *
 * Every file fleetsim writes goes through here.  A set's files are written to
 * temporary files (mkstemp: created new, never through an existing name) in
 * the target directory and renamed into place only when every one of them
 * was written completely, so a failed or interrupted run never leaves a
 * partial results.json beside a stale timeseries.csv.  rename(2) within one
 * directory is atomic and replaces a planted symlink instead of following it.
 *
 * A set may also name the files it owns (fs_output_own): what fleetsim
 * writes into such a directory.  Those of them this set did not write are
 * removed on commit, so a directory holds the outputs of one run only, never
 * a stale compare.json beside new results.  Nothing else is ever removed.
 *
 * Permissions: files get 0666 and directories 0777, less the process umask,
 * read once before main() (the constructor in output.c), so no thread ever
 * changes the umask to learn it.
 *
 * Ownership: fs_output is caller-owned; fs_output_commit or fs_output_abort
 * closes every stream it handed out and frees its paths.
 */
#ifndef FS_OUTPUT_H
#define FS_OUTPUT_H

#include <stdio.h>
#include <sys/types.h>

#include "error.h"

#define FS_OUTPUT_MAX_FILES 8

typedef struct fs_output {
    char *dir;
    struct {
        char *final_path, *tmp_path;
        FILE *fp;
    } files[FS_OUTPUT_MAX_FILES];
    int n;
    const char *const *owned; /* borrowed; NULL-terminated; see fs_output_own */
} fs_output;

/* Creates dir and its missing parents (mode 0777 less the umask).  FS_OK, or
 * FS_ERR_RUNTIME naming dir: an empty path, a component that is not a
 * directory, a path too long, no permission. */
int fs_output_mkdirs(const char *dir, fs_error *err);

/* fs_output_mkdirs, then an empty set of files for dir.  FS_OK or
 * FS_ERR_RUNTIME. */
int fs_output_begin(fs_output *out, const char *dir, fs_error *err);

/* A stream for dir/name, backed by a temporary file until commit.  name is a
 * plain file name (no '/'). */
int fs_output_open(fs_output *out, const char *name, FILE **fp, fs_error *err);

/* Names the files (a NULL-terminated list of plain names, borrowed until
 * commit) that this kind of output owns in its directory: on commit, each of
 * them that this set did not open is removed, if present. */
void fs_output_own(fs_output *out, const char *const *names);

/* Closes every stream (checking for write errors) and renames each file into
 * place, then removes the owned files this set did not write.  On any
 * failure, removes the temporary files and returns FS_ERR_RUNTIME; files
 * already renamed stay (they are complete). */
int fs_output_commit(fs_output *out, fs_error *err);

/* Closes and removes every temporary file. */
void fs_output_abort(fs_output *out);

/* The process umask, as read once at start-up. */
mode_t fs_output_umask(void);

#endif

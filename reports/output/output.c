#include "output.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static mode_t fs__umask;

/* umask(2) can only be read by setting it, and the process umask is shared by
 * every thread: a worker that sets it to 0 for a moment makes every file any
 * other thread creates meanwhile world-writable, and two workers interleaving
 * can leave it 0 for good.  So it is read here, once, before main() and
 * before any thread exists. */
__attribute__((constructor)) static void fs__read_umask(void)
{
    fs__umask = umask(0);
    umask(fs__umask);
}

mode_t fs_output_umask(void)
{
    return fs__umask;
}

/* "dir/name", malloc'ed; NULL when out of memory. */
static char *fs__join(const char *dir, const char *prefix, const char *name, const char *suffix)
{
    size_t n = strlen(dir) + strlen(prefix) + strlen(name) + strlen(suffix) + 2;
    char *path = malloc(n);
    if (path)
        snprintf(path, n, "%s/%s%s%s", dir, prefix, name, suffix);
    return path;
}

int fs_output_mkdirs(const char *dir, fs_error *err)
{
    size_t len = strlen(dir);
    if (len == 0)
        return fs_error_set(err, FS_ERR_RUNTIME, "cannot create a directory with an empty name");
    if (len >= PATH_MAX)
        return fs_error_set(err, FS_ERR_RUNTIME, "%.64s...: cannot create directory: %s", dir,
                            strerror(ENAMETOOLONG));
    char *path = strdup(dir);
    if (!path)
        return fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
    /* Each prefix that ends a component ("a", "a/b", ..., the whole path);
     * a failure shows at the component that cannot be made a directory. */
    int rc = 0;
    for (size_t i = 1; i <= len && rc == 0; i++) {
        if (path[i] != '/' && path[i] != '\0')
            continue;
        if (path[i - 1] == '/')
            continue; /* "a//b" or a trailing '/' */
        char saved = path[i];
        path[i] = '\0';
        struct stat st;
        if (mkdir(path, 0777) != 0 && errno != EEXIST)
            rc = errno;
        else if (stat(path, &st) != 0)
            rc = errno;
        else if (!S_ISDIR(st.st_mode))
            rc = ENOTDIR;
        path[i] = saved;
    }
    free(path);
    if (rc != 0)
        return fs_error_set(err, FS_ERR_RUNTIME, "%s: cannot create directory: %s", dir, strerror(rc));
    return FS_OK;
}

int fs_output_begin(fs_output *out, const char *dir, fs_error *err)
{
    *out = (fs_output){0};
    int rc = fs_output_mkdirs(dir, err);
    if (rc != FS_OK)
        return rc;
    out->dir = strdup(dir);
    if (!out->dir)
        return fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
    return FS_OK;
}

int fs_output_open(fs_output *out, const char *name, FILE **fp, fs_error *err)
{
    if (out->n == FS_OUTPUT_MAX_FILES)
        return fs_error_set(err, FS_ERR_RUNTIME, "too many output files");
    char *final_path = fs__join(out->dir, "", name, "");
    char *tmp_path = fs__join(out->dir, ".", name, ".XXXXXX");
    if (!final_path || !tmp_path) {
        free(final_path);
        free(tmp_path);
        return fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
    }
    int fd = strlen(tmp_path) < PATH_MAX ? mkstemp(tmp_path) : (errno = ENAMETOOLONG, -1);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        int e = errno;
        if (fd >= 0) {
            close(fd);
            unlink(tmp_path);
        }
        fs_error_set(err, FS_ERR_RUNTIME, "%s: cannot create: %s", final_path, strerror(e));
        free(final_path);
        free(tmp_path);
        return FS_ERR_RUNTIME;
    }
    /* mkstemp creates 0600; results are ordinary files readable like any other. */
    fchmod(fd, 0666 & ~fs__umask);
    out->files[out->n].final_path = final_path;
    out->files[out->n].tmp_path = tmp_path;
    out->files[out->n].fp = f;
    out->n++;
    *fp = f;
    return FS_OK;
}

void fs_output_own(fs_output *out, const char *const *names)
{
    out->owned = names;
}

static void fs__release(fs_output *out)
{
    for (int i = 0; i < out->n; i++) {
        free(out->files[i].final_path);
        free(out->files[i].tmp_path);
    }
    free(out->dir);
    *out = (fs_output){0};
}

/* Removes the owned files this set does not write.  unlink removes a
 * symlink itself, never its target. */
static int fs__remove_stale(const fs_output *out, fs_error *err)
{
    for (const char *const *name = out->owned; name && *name; name++) {
        char *path = fs__join(out->dir, "", *name, "");
        if (!path)
            return fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
        bool written = false;
        for (int i = 0; i < out->n && !written; i++)
            written = strcmp(out->files[i].final_path, path) == 0;
        int rc = FS_OK;
        if (!written && unlink(path) != 0 && errno != ENOENT)
            rc = fs_error_set(err, FS_ERR_RUNTIME,
                              "%s: cannot remove this output of an earlier run (it would be read as part of "
                              "this one): %s",
                              path, strerror(errno));
        free(path);
        if (rc != FS_OK)
            return rc;
    }
    return FS_OK;
}

int fs_output_commit(fs_output *out, fs_error *err)
{
    int rc = FS_OK;
    for (int i = 0; i < out->n; i++) {
        FILE *f = out->files[i].fp;
        out->files[i].fp = NULL;
        if ((ferror(f) | fclose(f)) != 0 && rc == FS_OK)
            rc = fs_error_set(err, FS_ERR_RUNTIME, "%s: write failed: %s", out->files[i].final_path,
                              strerror(errno));
    }
    if (rc == FS_OK)
        rc = fs__remove_stale(out, err);
    for (int i = 0; i < out->n && rc == FS_OK; i++)
        if (rename(out->files[i].tmp_path, out->files[i].final_path) != 0)
            rc = fs_error_set(err, FS_ERR_RUNTIME, "%s: cannot rename into place: %s",
                              out->files[i].final_path, strerror(errno));
    if (rc != FS_OK)
        for (int i = 0; i < out->n; i++)
            unlink(out->files[i].tmp_path); /* fails harmlessly for files already renamed */
    fs__release(out);
    return rc;
}

void fs_output_abort(fs_output *out)
{
    for (int i = 0; i < out->n; i++) {
        if (out->files[i].fp)
            fclose(out->files[i].fp);
        unlink(out->files[i].tmp_path);
    }
    fs__release(out);
}

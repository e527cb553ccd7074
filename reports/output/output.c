#include "output.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *fs__join(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *path = malloc(n);
    if (path)
        snprintf(path, n, "%s/%s", dir, name);
    return path;
}

/* mkdir -p: creates each missing component of dir. */
static int fs__mkdirs(const char *dir)
{
    char *path = strdup(dir);
    if (!path)
        return ENOMEM;
    int rc = 0;
    for (char *slash = path + 1; rc == 0; slash++) {
        if (*slash != '/' && *slash != '\0')
            continue;
        char saved = *slash;
        *slash = '\0';
        if (mkdir(path, 0777) != 0 && errno != EEXIST)
            rc = errno;
        *slash = saved;
        if (saved == '\0')
            break;
    }
    free(path);
    return rc;
}

int fs_output_begin(fs_output *out, const char *dir, fs_error *err)
{
    *out = (fs_output){0};
    int rc = fs__mkdirs(dir);
    if (rc != 0)
        return fs_error_set(err, FS_ERR_RUNTIME, "%s: cannot create directory: %s", dir,
                            strerror(rc));
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return fs_error_set(err, FS_ERR_RUNTIME, "%s: not a directory", dir);
    out->dir = strdup(dir);
    if (!out->dir)
        return fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
    return FS_OK;
}

int fs_output_open(fs_output *out, const char *name, FILE **fp, fs_error *err)
{
    if (out->n == FS_OUTPUT_MAX_FILES)
        return fs_error_set(err, FS_ERR_RUNTIME, "too many output files");
    char tmp_name[256];
    snprintf(tmp_name, sizeof tmp_name, ".%s.XXXXXX", name);
    char *final_path = fs__join(out->dir, name);
    char *tmp_path = fs__join(out->dir, tmp_name);
    if (!final_path || !tmp_path) {
        free(final_path);
        free(tmp_path);
        return fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
    }
    int fd = mkstemp(tmp_path);
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
    mode_t mask = umask(0);
    umask(mask);
    fchmod(fd, 0666 & ~mask);
    out->files[out->n].final_path = final_path;
    out->files[out->n].tmp_path = tmp_path;
    out->files[out->n].fp = f;
    out->n++;
    *fp = f;
    return FS_OK;
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

/*
 * trace_source — where a trace's bytes come from (trace_read.h): the file
 * itself, or, for a path ending ".gz", the output of a `gzip -dc -- PATH`
 * child read through a pipe, in the same chunks.
 *
 * Why a child and not a library: zlib is not among the project's
 * dependencies (GSL, jansson, libcsv, cmocka), and gzip is an Essential
 * package on Debian, present on every system the project builds on.  The
 * child is started with posix_spawnp and an argv array, never a shell, so
 * nothing in a path can run as a command ("--" ends gzip's options, so a
 * path starting with '-' is a file too).  Its stdin and stderr are
 * /dev/null (its messages would interleave with ours; its exit status says
 * what we need).  The pipe is close-on-exec, so a replication spawning its
 * own child on another thread cannot inherit this one's end and hold it open.
 *
 * gzip writes what it has decompressed before it finds a corrupt block or a
 * bad checksum, so no row of a .gz is trusted before the file is: at open a
 * first child tests it whole (`gzip -t`, the CPU time of one more
 * decompression, no memory), and a non-zero exit is a corrupt or truncated
 * file (FS_ERR_INPUT).  The streaming child's exit status is read too, at
 * the end of its data and before the last row without a newline is taken,
 * for a file that changes while it is read.
 */
#define _GNU_SOURCE /* pipe2 (O_CLOEXEC at creation) under -std=c11 */
#include "trace_read.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

bool fs__trace_source_gz(const char *path)
{
    size_t n = strlen(path);
    return n > 3 && strcmp(path + n - 3, ".gz") == 0;
}

/* Starts `gzip FLAG -- PATH`: with `out`, its stdout is the pipe whose read
 * end *out gets, else /dev/null.  s->pid is the child. */
static int trace_source_spawn(trace_source *s, const char *flag, int *out, fs_error *err)
{
    int fds[2] = {-1, -1};
    if (out && pipe2(fds, O_CLOEXEC) != 0)
        return fs_error_set(err, FS_ERR_RUNTIME, "%s: cannot make a pipe for gzip: %s", s->path, strerror(errno));
    posix_spawn_file_actions_t fa;
    int rc = posix_spawn_file_actions_init(&fa);
    if (rc == 0) {
        /* dup2 onto stdout clears close-on-exec there; both pipe ends close at exec. */
        if ((rc = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0)) == 0)
            rc = out ? posix_spawn_file_actions_adddup2(&fa, fds[1], 1)
                     : posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
        if (rc == 0)
            rc = posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
        char *argv[] = {"gzip", (char *)flag, "--", (char *)s->path, NULL};
        if (rc == 0)
            rc = posix_spawnp(&s->pid, "gzip", &fa, NULL, argv, environ);
        posix_spawn_file_actions_destroy(&fa);
    }
    if (out)
        close(fds[1]);
    if (rc != 0) {
        if (out)
            close(fds[0]);
        s->pid = 0;
        if (rc == ENOENT)
            return fs_error_set(err, FS_ERR_RUNTIME,
                                "%s: cannot read a .gz trace: no gzip program on the PATH (install gzip, or "
                                "decompress the file first)",
                                s->path);
        return fs_error_set(err, FS_ERR_RUNTIME, "%s: cannot start gzip: %s", s->path, strerror(rc));
    }
    if (out)
        *out = fds[0];
    return FS_OK;
}

/* Waits for the child; its exit status, or -1 when it did not exit (a
 * signal). */
static int trace_source_reap(trace_source *s)
{
    int status = 0;
    pid_t r;
    while ((r = waitpid(s->pid, &status, 0)) < 0 && errno == EINTR)
        ;
    s->pid = 0;
    if (r < 0)
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The message of a gzip child's non-zero exit status (-1: a signal). */
static int trace_source_bad(const trace_source *s, int status, fs_error *err)
{
    if (status < 0)
        return fs_error_set(err, FS_ERR_INPUT, "%s: gzip stopped by a signal before the end", s->path);
    return fs_error_set(err, FS_ERR_INPUT, "%s: not a valid gzip file, or cut short (gzip exited %d)", s->path, status);
}

int fs__trace_source_open(trace_source *s, const char *path, fs_error *err)
{
    *s = (trace_source){.path = path, .fd = -1};
    /* Opened here too for a .gz, so that a missing or unreadable file is
     * said as plainly as a plain one's, not as gzip's exit status. */
    FILE *fp = fopen(path, "rb");
    if (fp == NULL)
        return fs_error_set(err, FS_ERR_INPUT, "%s: cannot open: %s", path, strerror(errno));
    if (!fs__trace_source_gz(path)) {
        s->fp = fp;
        return FS_OK;
    }
    fclose(fp);
    /* The whole file is tested before a row is read: gzip finds a bad
     * checksum only at the end, after writing everything before it, so a
     * stream alone would hand out rows from a file that turns out corrupt. */
    int rc = trace_source_spawn(s, "-t", NULL, err);
    if (rc != FS_OK)
        return rc;
    int status = trace_source_reap(s);
    if (status != 0)
        return trace_source_bad(s, status, err);
    return trace_source_spawn(s, "-dc", &s->fd, err);
}

int fs__trace_source_read(trace_source *s, unsigned char *buf, size_t cap, size_t *got, fs_error *err)
{
    *got = 0;
    if (s->fp) {
        *got = fread(buf, 1, cap, s->fp);
        if (*got == 0 && ferror(s->fp))
            return fs_error_set(err, FS_ERR_INPUT, "%s: cannot read: %s", s->path, strerror(errno));
        return FS_OK;
    }
    if (s->fd < 0)
        return FS_OK; /* the child's data ended, and it exited 0 */
    ssize_t n;
    while ((n = read(s->fd, buf, cap)) < 0 && errno == EINTR)
        ;
    if (n > 0) {
        *got = (size_t)n;
        return FS_OK;
    }
    int e = errno;
    close(s->fd);
    s->fd = -1;
    int status = trace_source_reap(s);
    if (n < 0)
        return fs_error_set(err, FS_ERR_INPUT, "%s: cannot read gzip's output: %s", s->path, strerror(e));
    return status == 0 ? FS_OK : trace_source_bad(s, status, err);
}

int fs__trace_source_rewind(trace_source *s, fs_error *err)
{
    if (s->fp) {
        if (fseek(s->fp, 0, SEEK_SET) != 0)
            return fs_error_set(err, FS_ERR_INPUT, "%s: cannot start the trace over (repeat): %s", s->path,
                                strerror(errno));
        clearerr(s->fp);
        return FS_OK;
    }
    fs__trace_source_close(s);
    return trace_source_spawn(s, "-dc", &s->fd, err);
}

void fs__trace_source_close(trace_source *s)
{
    if (s->fp)
        fclose(s->fp);
    s->fp = NULL;
    if (s->fd >= 0)
        close(s->fd);
    s->fd = -1;
    /* Closed before its end (the run stopped reading): the child would
     * stop at its next write (SIGPIPE), but may be decompressing a block
     * before it; it is ours, so it is stopped and reaped now. */
    if (s->pid > 0) {
        kill(s->pid, SIGTERM);
        trace_source_reap(s);
    }
}

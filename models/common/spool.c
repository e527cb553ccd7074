#include "spool.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

struct fs_spool {
    int fd;
    size_t n_segments, cap, size;
    size_t batch;         /* records buffered per segment before a write */
    size_t *written;      /* per segment: records in the file */
    size_t *pending;      /* per segment: records in its buffer, after those */
    unsigned char *buf;   /* n_segments x batch records */
};

int fs_spool_create(const char *dir, size_t n_segments, size_t cap, size_t size, fs_spool **out)
{
    *out = NULL;
    if (n_segments == 0)
        n_segments = 1;
    /* The file's last byte must be addressable: off_t is 64-bit here. */
    if (size == 0 || cap > (size_t)INT64_MAX / size / n_segments)
        return EOVERFLOW;
    fs_spool *sp = calloc(1, sizeof *sp);
    if (!sp)
        return ENOMEM;
    sp->fd = -1;
    sp->n_segments = n_segments;
    sp->cap = cap;
    sp->size = size;
    sp->batch = FS_SPOOL_BUFFER_BYTES / size / n_segments;
    sp->batch = sp->batch > FS_SPOOL_BATCH_MAX ? FS_SPOOL_BATCH_MAX : sp->batch < 1 ? 1 : sp->batch;
    sp->written = calloc(n_segments, sizeof *sp->written);
    sp->pending = calloc(n_segments, sizeof *sp->pending);
    sp->buf = malloc(n_segments * sp->batch * size);
    if (!sp->written || !sp->pending || !sp->buf) {
        fs_spool_destroy(sp);
        return ENOMEM;
    }
    int rc = fs_spool_scratch_fd(dir, &sp->fd);
    if (rc != 0) {
        fs_spool_destroy(sp);
        return rc;
    }
    *out = sp;
    return 0;
}

int fs_spool_scratch_fd(const char *dir, int *fd)
{
    *fd = -1;
    if (!dir) {
        const char *tmp = getenv("TMPDIR");
        dir = tmp && tmp[0] ? tmp : "/tmp";
    }
    size_t len = strlen(dir) + sizeof "/.fleetsim-spool-XXXXXX";
    char *path = malloc(len);
    if (!path)
        return ENOMEM;
    snprintf(path, len, "%s/.fleetsim-spool-XXXXXX", dir);
    *fd = mkstemp(path);
    int rc = *fd < 0 ? errno : 0;
    /* Unlinked at once: the open descriptor keeps the data, and no exit,
     * crash or kill can leave the file behind. */
    if (*fd >= 0 && unlink(path) != 0) {
        rc = errno;
        close(*fd);
        *fd = -1;
    }
    free(path);
    return rc;
}

/* Writes len bytes at offset, resuming after short writes. */
static int fs__pwrite_all(int fd, const unsigned char *p, size_t len, off_t at)
{
    while (len > 0) {
        ssize_t n = pwrite(fd, p, len, at);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return errno;
        }
        p += n;
        len -= (size_t)n;
        at += n;
    }
    return 0;
}

static off_t fs__offset(const fs_spool *sp, size_t segment, size_t record)
{
    return (off_t)((segment * sp->cap + record) * sp->size);
}

static int fs__flush(fs_spool *sp, size_t segment)
{
    size_t n = sp->pending[segment];
    if (n == 0)
        return 0;
    int rc = fs__pwrite_all(sp->fd, sp->buf + segment * sp->batch * sp->size, n * sp->size,
                            fs__offset(sp, segment, sp->written[segment]));
    if (rc != 0)
        return rc;
    sp->written[segment] += n;
    sp->pending[segment] = 0;
    return 0;
}

int fs_spool_put(fs_spool *sp, size_t segment, const void *rec)
{
    if (sp->written[segment] + sp->pending[segment] >= sp->cap)
        return EOVERFLOW;
    if (sp->pending[segment] == sp->batch) {
        int rc = fs__flush(sp, segment);
        if (rc != 0)
            return rc;
    }
    memcpy(sp->buf + (segment * sp->batch + sp->pending[segment]) * sp->size, rec, sp->size);
    sp->pending[segment]++;
    return 0;
}

size_t fs_spool_count(const fs_spool *sp, size_t segment)
{
    return sp->written[segment] + sp->pending[segment];
}

int fs_spool_read(fs_spool *sp, size_t segment, size_t first, size_t n, void *buf)
{
    int rc = fs__flush(sp, segment);
    if (rc != 0)
        return rc;
    unsigned char *p = buf;
    size_t len = n * sp->size;
    off_t at = fs__offset(sp, segment, first);
    while (len > 0) {
        ssize_t got = pread(sp->fd, p, len, at);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return got < 0 ? errno : EIO;
        p += got;
        len -= (size_t)got;
        at += got;
    }
    return 0;
}

int fs_spool_clear(fs_spool *sp)
{
    memset(sp->written, 0, sp->n_segments * sizeof *sp->written);
    memset(sp->pending, 0, sp->n_segments * sizeof *sp->pending);
    return ftruncate(sp->fd, 0) == 0 ? 0 : errno;
}

void fs_spool_destroy(fs_spool *sp)
{
    if (!sp)
        return;
    if (sp->fd >= 0)
        close(sp->fd);
    free(sp->written);
    free(sp->pending);
    free(sp->buf);
    free(sp);
}

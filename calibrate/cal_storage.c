/* cal_storage — weights and checkpoints from local storage (cal_storage.h). */
#define _GNU_SOURCE /* posix_fadvise, mincore, fdatasync under -std=c11 */
#include "cal_storage.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cal_clock.h"
#include "cal_say.h"

#define CAL_STORAGE_CHUNK ((size_t)16 << 20) /* what one read() asks for, as loaders do */

/* splitmix64: fills the file with bytes no filesystem or virtual disk can
 * compress or deduplicate (zeros could be thin-provisioned holes). */
static uint64_t cal__mix(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

int cal_storage_write_file(const char *path, size_t bytes, double *seconds)
{
    uint64_t *chunk = malloc(CAL_STORAGE_CHUNK), state = 0x5eedull;
    int fd = -1;
    double t0;
    if (!chunk) {
        cal_say_error("storage: out of memory for a %zu-byte write buffer", CAL_STORAGE_CHUNK);
        return -1;
    }
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
        cal_say_error("storage: cannot create %s: %s", path, strerror(errno));
        free(chunk);
        return -1;
    }
    t0 = cal_clock_now();
    for (size_t done = 0; done < bytes;) {
        size_t want = bytes - done < CAL_STORAGE_CHUNK ? bytes - done : CAL_STORAGE_CHUNK;
        for (size_t i = 0; i < CAL_STORAGE_CHUNK / sizeof *chunk; i++)
            chunk[i] = cal__mix(&state);
        for (size_t off = 0; off < want;) {
            ssize_t w = write(fd, (char *)chunk + off, want - off);
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0) {
                cal_say_error("storage: writing %s: %s", path, w < 0 ? strerror(errno) : "wrote nothing");
                goto fail;
            }
            off += (size_t)w;
        }
        done += want;
    }
    if (fdatasync(fd) != 0) {
        cal_say_error("storage: syncing %s: %s", path, strerror(errno));
        goto fail;
    }
    if (seconds)
        *seconds = cal_clock_now() - t0;
    close(fd);
    free(chunk);
    return 0;
fail:
    close(fd);
    unlink(path);
    free(chunk);
    return -1;
}

double cal_storage_drop_cache(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    double resident = NAN;
    if (fd < 0) {
        cal_say_error("storage: cannot open %s: %s", path, strerror(errno));
        return -1.0;
    }
    /* Clean pages only: the file was synced when written and is never dirtied. */
    int rc = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    if (rc != 0) {
        cal_say_error("storage: posix_fadvise(DONTNEED) on %s: %s", path, strerror(rc));
        close(fd);
        return -1.0;
    }
    if (fstat(fd, &st) == 0 && st.st_size > 0) {
        long page = sysconf(_SC_PAGESIZE);
        size_t len = (size_t)st.st_size, pages = (len + (size_t)page - 1) / (size_t)page;
        void *map = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
        unsigned char *vec = malloc(pages);
        if (map != MAP_FAILED && vec && mincore(map, len, vec) == 0) {
            size_t in = 0;
            for (size_t i = 0; i < pages; i++)
                in += vec[i] & 1;
            resident = (double)in / (double)pages;
        }
        free(vec);
        if (map != MAP_FAILED)
            munmap(map, len);
    }
    close(fd);
    return resident;
}

int cal_storage_read(const char *path, void *buf, size_t bytes)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        cal_say_error("storage: cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    for (size_t done = 0; done < bytes;) {
        size_t want = bytes - done < CAL_STORAGE_CHUNK ? bytes - done : CAL_STORAGE_CHUNK;
        ssize_t r = read(fd, (char *)buf + done, want);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            cal_say_error("storage: reading %s: %s", path, r < 0 ? strerror(errno) : "file ended early");
            close(fd);
            return -1;
        }
        done += (size_t)r;
    }
    close(fd);
    return 0;
}

static int cal__add(fs_calib_samples *out, const char *series, size_t bytes, double seconds)
{
    fs_calib_series *s = fs_calib_series_get(out, series);
    if (!s || fs_calib_series_add(s, (double)bytes, seconds) != 0) {
        cal_say_error("out of memory recording series %s", series);
        return -1;
    }
    return 0;
}

/* One timed read of the first `bytes` into buf, cold (cache dropped first)
 * or warm; with `upload`, the host-to-device copy is inside the time. */
static int cal__timed_read(const char *path, void *buf, size_t bytes, int cold, const cal_storage_ops *ops,
                           int upload, const char *series, fs_calib_samples *out)
{
    double t0;
    if (cold) {
        double resident = cal_storage_drop_cache(path);
        fs_calib_scalar *r;
        if (resident < 0)
            return -1;
        r = fs_calib_scalar_get(out, "storage_cold_resident");
        if (!isnan(resident) && (!r || fs_calib_scalar_add(r, resident) != 0)) {
            cal_say_error("out of memory recording storage_cold_resident");
            return -1;
        }
    }
    t0 = cal_clock_now();
    if (cal_storage_read(path, buf, bytes) != 0)
        return -1;
    if (upload && ops->upload(buf, bytes, ops->ctx) != 0)
        return -1;
    return cal__add(out, series, bytes, cal_clock_now() - t0);
}

int cal_storage_measure(const cal_storage_plan *plan, const cal_storage_ops *ops, fs_calib_samples *out)
{
    char path[4096];
    char *pageable = NULL;
    void *pinned = NULL;
    double start = cal_clock_now(), write_s = 0;
    int rc = -1, n = snprintf(path, sizeof path, "%s/fleetsim-calibrate-storage.%ld.bin", plan->dir,
                              (long)getpid());
    if (n < 0 || (size_t)n >= sizeof path) {
        cal_say_error("storage: the directory name is too long");
        return -1;
    }
    pageable = malloc(plan->max_bytes);
    if (!pageable) {
        cal_say_error("storage: out of host memory (%zu bytes)", plan->max_bytes);
        return -1;
    }
    memset(pageable, 0x3c, plan->max_bytes); /* the pages exist before any timed read */
    if (ops->alloc_pinned) {
        pinned = ops->alloc_pinned(plan->max_bytes, ops->ctx);
        if (!pinned)
            fs_calib_note(out, "storage: no pinned buffer of %zu bytes; pinned series not measured",
                          plan->max_bytes);
    }
    if (cal_storage_write_file(path, plan->max_bytes, &write_s) != 0)
        goto done;
    if (cal__add(out, "storage_write", plan->max_bytes, write_s) != 0)
        goto done;

    for (size_t bytes = plan->first_bytes; bytes <= plan->max_bytes; bytes *= 2) {
        if (cal_clock_now() - start > plan->budget_s) {
            fs_calib_note(out, "storage: stopped before %zu bytes, past the %.0f s budget", bytes, plan->budget_s);
            break;
        }
        for (int rep = 0; rep < plan->reps; rep++) {
            if (cal__timed_read(path, pageable, bytes, 1, ops, 0, "storage_cold_pageable", out) != 0)
                goto done;
            if (pinned && cal__timed_read(path, pinned, bytes, 1, ops, 0, "storage_cold_pinned", out) != 0)
                goto done;
            if (pinned && ops->upload &&
                cal__timed_read(path, pinned, bytes, 1, ops, 1, "load_cold_pinned", out) != 0)
                goto done;
        }
        /* Warm: one read fills the cache, then the timed ones. */
        if (cal_storage_read(path, pageable, bytes) != 0)
            goto done;
        for (int rep = 0; rep < plan->reps; rep++) {
            if (cal__timed_read(path, pageable, bytes, 0, ops, 0, "storage_warm_pageable", out) != 0)
                goto done;
            if (pinned && cal__timed_read(path, pinned, bytes, 0, ops, 0, "storage_warm_pinned", out) != 0)
                goto done;
        }
    }
    rc = 0;
done:
    unlink(path);
    if (pinned)
        ops->free_pinned(pinned, ops->ctx);
    free(pageable);
    return rc;
}

/*
 * spool — fixed-size records kept on disk in numbered segments, each read
 * back in the order its records were put.
 *
 * A replication's time-series windows close in time order, all services at
 * each close (window 1 of every service, then window 2, ...), while their
 * CSV lists them service by service, and the queue-growth fit needs each
 * service's series twice.  Kept in memory, those rows grow with windows x
 * services (146 bytes a window: 538 MB for 1 ms windows over an hour).  A
 * spool keeps them in one scratch file instead: segment s's records start
 * at record s x cap, so putting them in any interleaving and reading a
 * segment back are both sequential in that segment, and room a segment
 * never fills takes no disk (a sparse file).  Memory: a write buffer of at
 * most FS_SPOOL_BUFFER_BYTES in all (at least one record per segment) and
 * a count per segment, whatever the number of records.
 *
 * The scratch file is created new in the directory given (mkstemp: never
 * through an existing name or a planted symlink) and unlinked at once, so
 * nothing is left behind, whatever happens to the process.
 *
 * Ownership: fs_spool_create allocates the spool and its file descriptor;
 * fs_spool_destroy closes and frees both.  Not thread-safe: one spool, one
 * thread.
 */
#ifndef FS_SPOOL_H
#define FS_SPOOL_H

#include <stddef.h>

/* Write buffer of a spool, all segments together, and the most records a
 * segment buffers: a write of a segment's run of records costs one system
 * call, so runs of hundreds make the calls' cost small beside the copying,
 * and a few services' runs stay small beside what the spool replaces.  A
 * run keeps four spools (the window tables' three and the growth one): at
 * 1 MiB each they are 4 MiB of a run's memory (12.7 MB at 4 MiB each, a
 * tenth of a 5,000-service run's peak); with 5,000 services a window row is
 * then written as it closes, one system call each. */
#define FS_SPOOL_BUFFER_BYTES ((size_t)1 << 20)
#define FS_SPOOL_BATCH_MAX 512

typedef struct fs_spool fs_spool;

/* A spool of n_segments segments of up to cap records of size bytes, its
 * file in dir (NULL: $TMPDIR, else /tmp).  0, EOVERFLOW when the file would
 * be larger than an off_t holds, or the errno of mkstemp or malloc. */
int fs_spool_create(const char *dir, size_t n_segments, size_t cap, size_t size, fs_spool **out);

/* Appends the size bytes at rec to segment.  0, EOVERFLOW when the segment
 * already holds cap records, or the errno of a failed write. */
int fs_spool_put(fs_spool *sp, size_t segment, const void *rec);

/* Records put in segment so far. */
size_t fs_spool_count(const fs_spool *sp, size_t segment);

/* Copies records [first, first + n) of segment, which must have been put,
 * into buf.  0, or the errno of the failed write or read (EIO: the file
 * ended early). */
int fs_spool_read(fs_spool *sp, size_t segment, size_t first, size_t n, void *buf);

/* A new scratch file in dir (NULL: $TMPDIR, else /tmp), made with mkstemp
 * and unlinked at once: *fd is its descriptor (the caller closes it).  0,
 * or the errno of malloc, mkstemp or unlink. */
int fs_spool_scratch_fd(const char *dir, int *fd);

/* Empties every segment and gives the file's disk back.  0 or errno. */
int fs_spool_clear(fs_spool *sp);

/* Closes (and so deletes) the file; NULL is allowed. */
void fs_spool_destroy(fs_spool *sp);

#endif

/*
 * training_release — a training stream's release window at run time
 * (fs_training_spec.has_release: a "polite" batch tenant that gives its GPUs
 * back before the morning ramp).
 *
 * At a window's start each job of the stream holding its gang gives it
 * back: a running one first writes a checkpoint (its checkpoint "write",
 * GPUs still held, so nothing computed is lost), one writing a checkpoint
 * finishes that one, one still warming up gives it back at once (its
 * warm-up so far is start-up).  A job waiting for its gang withdraws the
 * request; one submitted, retried or evicted inside the window asks for
 * nothing.  At the window's end every released job of the stream asks
 * again, in submission order, like a preempted job (behind whatever asked
 * earlier), and its next warm-up reloads its state from storage (the
 * preemption's resume: fs_fleet_warmup_s, FS_WARMUP_STATE_STORAGE).
 *
 * Time a job spends released before its first admission is not queue wait
 * (fs_job.off_s is taken from it).  Measured per stream: fs_training_rep
 * .release.
 *
 * Ownership: the window flags (fs_training.off) belong to the fs_training;
 * fs_training_release_init allocates them, fs_training_release_fini frees
 * them.  Each window edge walks the jobs submitted so far: O(jobs).
 */
#ifndef FS_TRAINING_RELEASE_H
#define FS_TRAINING_RELEASE_H

#include <stdbool.h>
#include <stdint.h>

#include "training.h"

/* Registers the window edges' handler and schedules each stream's first
 * edge (a stream whose window holds t = 0 starts off): 0, or ENOMEM. */
int fs_training_release_init(fs_training *t);
void fs_training_release_fini(fs_training *t);

/* Called as job `id` (state QUEUED, not holding) is about to ask for its
 * gang: true when its stream is inside its window, the job then RELEASED
 * and asking for nothing. */
bool fs_training_release_defer(fs_training *t, uint32_t id, double now);

/* The job gave its gang back at the end of its release checkpoint (or of
 * the write it was doing at the window's start): it is RELEASED. */
void fs_training_release_done(fs_training *t, uint32_t id, double now);

/* Every member of job `id` warmed up at now: a warm-up after a release
 * counts as its reload. */
void fs_training_release_warmed(fs_training *t, uint32_t id, double now);

/* The time job `id` spent released before its first admission, to now. */
double fs_training_release_off_s(const fs_job *job, double now);

#endif

/*
 * pipeline — training streams chained with "after" (scenario.h:
 * fs_training_spec.after): the iterations of a pipeline, each from its root
 * job's submission to the last job of every branch done.
 *
 * A stream with "after" has no submissions of its own: each job of its
 * predecessor that completes submits one job of it at that instant
 * (training.c).  A join (a list of predecessors) counts, per iteration, the
 * jobs of its predecessors completed in it, and is submitted at the instant
 * the last of them completes; one that failed or was cancelled never
 * completes, so the join is never submitted in that iteration.  Every
 * stream descends from one root and runs at most once an iteration, so the
 * count is matched by iteration and never spills into another.  One iteration starts per job of the root stream (the
 * stream of a pipeline with no "after"); it holds a count of its jobs not
 * yet over, plus one per successor submitted, so it ends when that count
 * reaches zero: completed if every job in it was done, unfinished if one
 * failed for good or was cancelled (that job submits no successor).  A
 * preempted or retried job is still the same job: its iteration waits.
 *
 * Measured on the root stream's fs_training_rep.pipeline: iterations
 * started while measuring (after the warm-up), and what became of them.
 *
 * Ownership: fs_pipelines is caller-owned (init by zeroing, fini); it owns
 * its iteration records.  O(1) per job; the records grow with the
 * iterations (tens of bytes each).
 */
#ifndef FS_PIPELINE_H
#define FS_PIPELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "results.h"
#include "scenario.h"

/* A job in no pipeline's iteration (fs_job.cycle). */
#define FS_PIPELINE_NONE UINT32_MAX

typedef struct fs_pipeline_cycle {
    double start;     /* the root job's submission */
    uint32_t root;    /* the root stream */
    uint32_t pending; /* jobs of it not yet over */
    bool measured;    /* started while measuring */
    bool broken;      /* a job of it failed for good or was cancelled */
    uint32_t *joined; /* per stream: its predecessors' jobs completed in it (joins; NULL: none yet) */
} fs_pipeline_cycle;

typedef struct fs_pipelines {
    fs_pipeline_cycle *cycles;
    size_t n, cap;
} fs_pipelines;

void fs_pipelines_fini(fs_pipelines *pl);

/* A new iteration of root stream `root`, starting now, in *id: 0, or
 * ENOMEM (nothing changed). */
int fs_pipelines_begin(fs_pipelines *pl, fs_training_rep *reps, uint32_t root, double now, bool measuring,
                       uint32_t *id);

/* A job of iteration `id` is over: done (and it submitted `spawned` jobs of
 * its successors, in the same iteration), or failed for good or cancelled
 * (spawned 0).  When none is left the iteration ends: its cycle time is
 * recorded if it completed.  0, or ENOMEM. */
int fs_pipelines_job_over(fs_pipelines *pl, fs_training_rep *reps, uint32_t id, bool done, uint32_t spawned,
                          double now);

/* A job of one of join stream `join`'s n_after predecessors completed in
 * iteration `id`: *ready tells whether it was the last, so the join is
 * submitted now.  0, or ENOMEM (nothing changed).  O(1), but the first
 * in an iteration allocates n_streams counters, freed when it ends. */
int fs_pipelines_join(fs_pipelines *pl, uint32_t id, size_t join, size_t n_after, size_t n_streams, bool *ready);

/* At the warm-up instant: iterations started before it are not measured. */
void fs_pipelines_start_measuring(fs_pipelines *pl, fs_training_rep *reps, size_t n_streams);

/* A deploy step's rollout (fs_training_rep.rollouts, same shape as an
 * iteration: its duration in cycle_s): submitted (counted when measuring),
 * and completed (counted, with its duration from submission, when it was
 * submitted while measuring).  done: 0 or ENOMEM. */
void fs_pipelines_rollout_started(fs_training_rep *rep, bool measuring);
int fs_pipelines_rollout_done(fs_training_rep *rep, bool measured, double duration_s);

/* At the horizon: measured iterations still going count as open, and
 * measured rollouts not completed. */
void fs_pipelines_finish(const fs_pipelines *pl, fs_training_rep *reps, size_t n_streams);

#endif

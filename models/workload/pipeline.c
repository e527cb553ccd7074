#include "pipeline.h"

#include <errno.h>
#include <stdlib.h>

#include "grow.h"

void fs_pipelines_fini(fs_pipelines *pl)
{
    for (size_t k = 0; k < pl->n; k++)
        free(pl->cycles[k].joined);
    free(pl->cycles);
    *pl = (fs_pipelines){0};
}

int fs_pipelines_begin(fs_pipelines *pl, fs_training_rep *reps, uint32_t root, double now, bool measuring,
                       uint32_t *id)
{
    fs_pipeline_cycle *cycles = fs_grow(pl->cycles, &pl->cap, pl->n + 1, sizeof *cycles, 16);
    if (!cycles)
        return ENOMEM;
    pl->cycles = cycles;
    *id = (uint32_t)pl->n++;
    cycles[*id] = (fs_pipeline_cycle){.start = now, .root = root, .pending = 1, .measured = measuring};
    if (measuring)
        reps[root].pipeline.started++;
    return 0;
}

/* One more completed, taking seconds: 0, or ENOMEM (nothing changed). */
static int fs__completed(struct fs_pipeline_rep *rep, double seconds)
{
    double *cycle_s = fs_grow(rep->cycle_s, &rep->cap_cycles, rep->n_cycles + 1, sizeof *cycle_s, 16);
    if (!cycle_s)
        return ENOMEM;
    rep->cycle_s = cycle_s;
    cycle_s[rep->n_cycles++] = seconds;
    rep->completed++;
    return 0;
}

int fs_pipelines_job_over(fs_pipelines *pl, fs_training_rep *reps, uint32_t id, bool done, uint32_t spawned,
                          double now)
{
    fs_pipeline_cycle *c = &pl->cycles[id];
    c->broken |= !done;
    c->pending += spawned;
    if (--c->pending > 0)
        return 0;
    free(c->joined); /* nothing of it is left to join */
    c->joined = NULL;
    if (!c->measured)
        return 0;
    struct fs_pipeline_rep *rep = &reps[c->root].pipeline;
    if (c->broken) {
        rep->unfinished++;
        return 0;
    }
    return fs__completed(rep, now - c->start);
}

int fs_pipelines_join(fs_pipelines *pl, uint32_t id, size_t join, size_t n_after, size_t n_streams, bool *ready)
{
    fs_pipeline_cycle *c = &pl->cycles[id];
    if (!c->joined && !(c->joined = calloc(n_streams, sizeof *c->joined)))
        return ENOMEM;
    *ready = ++c->joined[join] == n_after;
    return 0;
}

void fs_pipelines_start_measuring(fs_pipelines *pl, fs_training_rep *reps, size_t n_streams)
{
    for (size_t i = 0; i < n_streams; i++) {
        struct fs_pipeline_rep *rep = &reps[i].pipeline, *rollouts = &reps[i].rollouts;
        rep->started = rep->completed = rep->unfinished = rep->open = 0;
        rep->n_cycles = 0;
        rollouts->started = rollouts->completed = rollouts->open = 0;
        rollouts->n_cycles = 0;
    }
    for (size_t k = 0; k < pl->n; k++)
        pl->cycles[k].measured = false;
}

void fs_pipelines_rollout_started(fs_training_rep *rep, bool measuring)
{
    rep->rollouts.started += measuring;
}

int fs_pipelines_rollout_done(fs_training_rep *rep, bool measured, double duration_s)
{
    return measured ? fs__completed(&rep->rollouts, duration_s) : 0;
}

void fs_pipelines_finish(const fs_pipelines *pl, fs_training_rep *reps, size_t n_streams)
{
    for (size_t k = 0; k < pl->n; k++)
        if (pl->cycles[k].measured && pl->cycles[k].pending > 0)
            reps[pl->cycles[k].root].pipeline.open++;
    for (size_t i = 0; i < n_streams; i++)
        reps[i].rollouts.open = reps[i].rollouts.started - reps[i].rollouts.completed;
}

#include "training_release.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "training_parts.h"

#define FS__DAY_S 86400.0

/* Window edges: arg the stream, data 0 for its start, 1 for its end; at
 * priority 0, before a submission at the same instant. */
#define FS__EDGE_START 0
#define FS__EDGE_END 1

static void fs__schedule_edge(fs_training *t, uint32_t stream, double at, int edge)
{
    if (at <= t->scenario->horizon_s)
        fs_sim_schedule(t->sim, at, 0, t->kind_release, stream, edge);
}

/* The job goes off: it holds and asks for nothing until its window ends. */
static void fs__go_off(fs_job *job, double now)
{
    job->state = FS_JOB_RELEASED;
    job->releasing = 0;
    job->reload |= job->started_once;
    job->off_since = now;
}

/* At a window's start: each job of the stream holding or asking for its
 * gang gives it back (a running one after a checkpoint). */
static void fs__window_start(fs_training *t, uint32_t stream, double now)
{
    const fs_training_spec *spec = &t->scenario->training[stream];
    fs_training_rep *rep = &t->reps[stream];
    t->off[stream] = true;
    fs__schedule_edge(t, stream, now + spec->release_s, FS__EDGE_END);
    fs__schedule_edge(t, stream, now + FS__DAY_S, FS__EDGE_START);
    for (size_t j = 0; j < t->n_jobs; j++) {
        fs_job *job = &t->jobs[j];
        if (job->stream != stream)
            continue;
        if (job->holding && t->measuring)
            rep->release.releases++;
        if (job->state == FS_JOB_RUNNING) {
            /* Its own checkpoint of the compute so far, as a periodic one
             * (fs__on_step ends it and calls fs_training_release_done); the
             * epoch drops the segment's end and a failure drawn for it. */
            job->epoch++;
            job->segment_s = now - job->segment_start;
            job->state = FS_JOB_CHECKPOINTING;
            job->releasing = 2;
            fs_sim_schedule(t->sim, now + spec->checkpoint_write_s, 1, t->kind_step, (uint32_t)j, job->epoch);
        } else if (job->state == FS_JOB_CHECKPOINTING) {
            job->releasing = 1; /* released when this write ends */
        } else if (job->state == FS_JOB_QUEUED || job->state == FS_JOB_WARMING) {
            /* Waiting (the request withdrawn) or warming (the warm-up so
             * far is start-up; nothing computed yet). */
            double compute_h;
            fs__training_attempt_so_far(t, job, now, &compute_h);
            fs__training_give_back(t, (uint32_t)j, 0, now);
            job->epoch++;
            fs__go_off(job, now);
        }
        /* RETRYING: its retry asks, and is deferred then; over: nothing. */
    }
}

/* At a window's end: the released jobs ask again, in submission order. */
static void fs__window_end(fs_training *t, uint32_t stream, double now)
{
    t->off[stream] = false;
    for (size_t j = 0; j < t->n_jobs; j++) {
        fs_job *job = &t->jobs[j];
        if (job->stream != stream || job->state != FS_JOB_RELEASED)
            continue;
        if (!job->started_once)
            job->off_s += now - job->off_since;
        if (fs__training_ask(t, (uint32_t)j) != 0) {
            fs_sim_fail(t->sim, ENOMEM, "training \"%s\": out of memory requeueing a released job",
                        t->scenario->training[stream].name);
            return;
        }
    }
}

static void fs__on_edge(fs_sim *sim, const fs_event *ev, void *ctx)
{
    fs_training *t = ctx;
    if (ev->data == FS__EDGE_START)
        fs__window_start(t, ev->arg, sim->now);
    else
        fs__window_end(t, ev->arg, sim->now);
}

int fs_training_release_init(fs_training *t)
{
    const fs_scenario *s = t->scenario;
    bool any = false;
    for (size_t i = 0; i < s->n_training; i++)
        any |= s->training[i].has_release;
    if (!any)
        return 0;
    int64_t kind = fs_sim_register(t->sim, fs__on_edge, t);
    t->off = calloc(s->n_training, sizeof *t->off);
    if (kind < 0 || !t->off)
        return ENOMEM;
    t->kind_release = (uint32_t)kind;
    for (size_t i = 0; i < s->n_training; i++) {
        const fs_training_spec *spec = &s->training[i];
        if (!spec->has_release)
            continue;
        /* A window from the day before that is still open at t = 0 (one
         * past midnight) holds the stream off from the start. */
        double before_end = spec->release_at_s - FS__DAY_S + spec->release_s;
        if (before_end > 0) {
            t->off[i] = true;
            fs__schedule_edge(t, (uint32_t)i, before_end, FS__EDGE_END);
        }
        fs__schedule_edge(t, (uint32_t)i, spec->release_at_s, FS__EDGE_START);
    }
    return 0;
}

void fs_training_release_fini(fs_training *t)
{
    free(t->off);
    t->off = NULL;
}

bool fs_training_release_defer(fs_training *t, uint32_t id, double now)
{
    fs_job *job = &t->jobs[id];
    if (t->off == NULL || !t->off[job->stream])
        return false;
    fs__go_off(job, now);
    return true;
}

void fs_training_release_done(fs_training *t, uint32_t id, double now)
{
    fs_job *job = &t->jobs[id];
    const fs_training_spec *spec = &t->scenario->training[job->stream];
    if (t->measuring && job->releasing == 2)
        t->reps[job->stream].release.checkpoint_gpu_hours += spec->checkpoint_write_s * job->gang / 3600.0;
    job->state_on_host = false; /* its state is the checkpoint just written, in storage */
    fs__go_off(job, now);
    /* A window shorter than the write is over already: it asks at once. */
    if (!t->off[job->stream] && fs__training_ask(t, id) != 0)
        fs_sim_fail(t->sim, ENOMEM, "training \"%s\": out of memory requeueing a released job", spec->name);
}

void fs_training_release_warmed(fs_training *t, uint32_t id, double now)
{
    fs_job *job = &t->jobs[id];
    if (!job->reload)
        return;
    job->reload = false;
    if (t->measuring)
        t->reps[job->stream].release.reload_gpu_hours += (now - job->admitted) * job->gang / 3600.0;
}

double fs_training_release_off_s(const fs_job *job, double now)
{
    if (job->started_once)
        return job->off_s;
    return job->off_s + (job->state == FS_JOB_RELEASED ? now - job->off_since : 0);
}

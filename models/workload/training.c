#include "training.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_randist.h>

#include "grow.h"
#include "policy.h"
#include "rng.h"
#include "training_parts.h"
#include "training_release.h"

#define FS__DAY_S 86400.0

/* A submission event carries its stream in `arg` and, for daily schedules,
 * the index of the clock time in `data` (-1 for Poisson and listed times). */

static double fs__next_daily(const fs_training_spec *spec, double after, size_t *which)
{
    double best = INFINITY;
    double day = floor(after / FS__DAY_S);
    for (int d = 0; d < 2; d++) {
        for (size_t k = 0; k < spec->n_daily; k++) {
            double t = (day + d) * FS__DAY_S + spec->daily_at_s[k];
            if (t > after && t < best) {
                best = t;
                *which = k;
            }
        }
    }
    return best;
}

/* Reads the stream's next trace row and schedules its submission (data 3),
 * if it falls within the horizon.  A bad row stops the run as bad input. */
static void fs__schedule_traced(fs_training *t, uint32_t stream)
{
    fs_error err = {0};
    int got = fs_trace_next(t->traces[stream], &t->next_row[stream], &err);
    if (got < 0)
        fs_sim_fail(t->sim, err.code == FS_ERR_INPUT ? EILSEQ : ENOMEM, "%s", err.msg);
    else if (got > 0 && t->next_row[stream].t <= t->scenario->horizon_s)
        fs_sim_schedule(t->sim, t->next_row[stream].t, 1, t->kind_submit, stream, 3);
}

/* The stream's next Poisson submission after `after`: a plain rate's
 * exponential gap, or its shaped stream's next point (its group size kept
 * in next_group); INFINITY when none comes before the horizon. */
static double fs__next_poisson(fs_training *t, uint32_t stream, double after)
{
    const fs_training_spec *spec = &t->scenario->training[stream];
    if (!spec->submit_shape)
        return after + gsl_ran_exponential(t->rngs[stream], 3600.0 / spec->poisson_per_hour);
    return fs_arrival_stream_next(&t->shaped[stream], after, t->scenario->horizon_s, &t->next_group[stream]);
}

static void fs__schedule_submissions(fs_training *t, uint32_t stream, double after, bool first)
{
    const fs_training_spec *spec = &t->scenario->training[stream];
    double horizon = t->scenario->horizon_s;
    if (spec->trace) {
        fs__schedule_traced(t, stream);
        return;
    }
    if (spec->n_daily) {
        size_t which = 0;
        double at = fs__next_daily(spec, first ? after - 1e-9 : after, &which);
        if (at <= horizon)
            fs_sim_schedule(t->sim, at, 1, t->kind_submit, stream, 0);
    }
    if (spec->poisson_per_hour > 0) {
        double at = fs__next_poisson(t, stream, after);
        if (at <= horizon)
            fs_sim_schedule(t->sim, at, 1, t->kind_submit, stream, 1);
    }
    if (first)
        for (size_t k = 0; k < spec->n_submit_at; k++)
            if (spec->submit_at_s[k] <= horizon)
                fs_sim_schedule(t->sim, spec->submit_at_s[k], 1, t->kind_submit, stream, 2);
}

/* What a job of this stream asks the fleet for, but its owner and warm-up:
 * the policy decides from this which pools the job may use. */
static fs_request fs__stream_request(const fs_training_spec *spec, uint32_t gang, fs_lane lane)
{
    return (fs_request){.kind = FS_HOLDER_TRAINING, .units = gang, .memory_gb = spec->state_gb_per_gpu,
                        .pool = SIZE_MAX, .lane = lane, .preemptible = spec->preemptible,
                        .across_pools = spec->across_pools};
}

/* The largest gang a job like r may ever start with under the policy: the
 * largest pool it lets r use (that pool in *pool: SIZE_MAX when none), or,
 * for a gang that may split across pools, all of them together. */
static size_t fs__gang_limit(const fs_policy_ops *policy, const fs_scenario *s, const fs_placement *placement,
                             const fs_request *r, size_t *pool)
{
    size_t most = fs_policy_largest_eligible(policy, s, placement, r, pool);
    return r->across_pools ? fs_policy_eligible_units(policy, s, placement, r) : most;
}

/* A trace row's lane: the one "priorities" gives its priority cell, else
 * the stream's. */
static fs_lane fs__row_lane(const fs_training_spec *spec, const fs_trace_row *row)
{
    for (size_t k = 0; row->priority_text && k < spec->n_priorities; k++)
        if (strcmp(spec->priority_texts[k], row->priority_text) == 0)
            return spec->priority_lanes[k];
    return spec->lane;
}

/* A trace row's tenant as a key of the replication's table (0 when the row
 * names none, or the stream's own): 0, or ENOMEM / ERANGE. */
static int fs__row_tenant(const fs_training_spec *spec, fs_training_rep *rep, const fs_trace_row *row,
                          uint32_t *key)
{
    *key = 0;
    if (row->tenant == NULL || row->tenant[0] == '\0' || strcmp(row->tenant, spec->tenant) == 0)
        return 0;
    return fs_intern_key(&rep->tenants, row->tenant, strlen(row->tenant), key);
}

static int fs__ask(fs_training *t, uint32_t id)
{
    fs_job *job = &t->jobs[id];
    const fs_training_spec *spec = &t->scenario->training[job->stream];
    job->state = FS_JOB_QUEUED;
    job->ready = 0;
    if (fs_training_release_defer(t, id, t->sim->now))
        return 0; /* its stream's release window: it asks when the window ends */
    /* A job evicted with "save" resumes from host memory at H2D bandwidth;
     * otherwise its state (or last checkpoint) comes from storage. */
    fs_request r = fs__stream_request(spec, job->gang, job->lane);
    r.owner = id;
    r.team = job->team;
    r.warmup = job->state_on_host ? FS_WARMUP_STATE_HOST : FS_WARMUP_STATE_STORAGE;
    return fs_fleet_request(t->fleet, &r);
}

/* 'policy "NAME"', and its kind when the name is not the kind's. */
static const char *fs__policy_words(char *buf, size_t size, const fs_scenario *s, const fs_policy_ops *policy)
{
    if (strcmp(s->policy, policy->name) == 0)
        snprintf(buf, size, "policy \"%s\"", s->policy);
    else
        snprintf(buf, size, "policy \"%s\" (%s)", s->policy, policy->name);
    return buf;
}

int fs_training_check_gangs(const fs_scenario *s, const fs_policy_ops *policy, const fs_placement *placement,
                            fs_error *err)
{
    for (size_t i = 0; i < s->n_training; i++) {
        const fs_training_spec *spec = &s->training[i];
        if (spec->deploy_service != SIZE_MAX)
            continue; /* a deploy step asks for no gang */
        fs_request r = fs__stream_request(spec, spec->gang, spec->lane);
        size_t pool, most = fs__gang_limit(policy, s, placement, &r, &pool);
        char words[256];
        if (pool == SIZE_MAX)
            return fs_error_set(err, FS_ERR_INPUT,
                                "%s: training[%zu]: %s lets this stream's jobs use none of its pools "
                                "(preemptible: %s): none of them could ever start",
                                s->path, i, fs__policy_words(words, sizeof words, s, policy),
                                spec->preemptible ? "true" : "false");
        /* A traced stream's rows bring their own gangs: each is held to the
         * same pool when it is submitted (fs__on_submit). */
        if (spec->trace == NULL && spec->gang > most && spec->across_pools)
            return fs_error_set(err, FS_ERR_INPUT,
                                "%s: training[%zu].gang: a gang of %u units can never start under %s: the pools it "
                                "lets this stream use hold %zu units together",
                                s->path, i, spec->gang, fs__policy_words(words, sizeof words, s, policy), most);
        if (spec->trace == NULL && spec->gang > most)
            return fs_error_set(err, FS_ERR_INPUT,
                                "%s: training[%zu].gang: a gang of %u units can never start under %s: the largest "
                                "pool it lets this stream use (\"%s\") holds at most %zu",
                                s->path, i, spec->gang, fs__policy_words(words, sizeof words, s, policy),
                                s->pools[pool].name, most);
    }
    return FS_OK;
}

/* A job's team in the scenario's quotas (fs_request.team): its stream's,
 * or its trace row's tenant's; a row naming a tenant without one is in
 * "unlisted" (n_quotas + 1, models/fleet/quota.h).  0 without quotas. */
static uint32_t fs__job_team(const fs_scenario *s, const fs_training_spec *spec, const fs_training_rep *rep,
                             uint32_t tenant)
{
    if (s->n_quotas == 0 || tenant == 0)
        return spec->quota;
    uint32_t team = fs_scenario_quota_of(s, fs_intern_text(&rep->tenants, tenant));
    return team ? team : (uint32_t)s->n_quotas + 1;
}

/* A new job of the stream, submitted now and queued for its gang: 0, or
 * ENOMEM with the run stopped. */
static int fs__submit_job(fs_training *t, uint32_t stream, uint32_t gang, double compute_s, fs_lane lane,
                          uint32_t tenant, uint32_t cycle)
{
    const fs_training_spec *spec = &t->scenario->training[stream];
    fs_job *jobs = fs_grow(t->jobs, &t->cap_jobs, t->n_jobs + 1, sizeof *jobs, 16);
    size_t *pool = malloc(gang * sizeof *pool), *unit = malloc(gang * sizeof *unit);
    if (!jobs || !pool || !unit) {
        if (jobs)
            t->jobs = jobs;
        free(pool);
        free(unit);
        fs_sim_fail(t->sim, ENOMEM, "training \"%s\": out of memory for a job", spec->name);
        return ENOMEM;
    }
    t->jobs = jobs;
    uint32_t id = (uint32_t)t->n_jobs++;
    t->jobs[id] = (fs_job){.stream = stream, .gang = gang, .lane = lane, .tenant = tenant,
                           .submitted = t->sim->now, .remaining_s = compute_s, .pool = pool, .unit = unit,
                           .retries_left = spec->retries, .cycle = cycle};
    t->jobs[id].team = fs__job_team(t->scenario, spec, &t->reps[stream], tenant);
    /* Whether and when its owner cancels it, from "cancellations/<name>":
     * both draws always made, one pair a job. */
    if (spec->cancel_probability > 0) {
        gsl_rng *r = t->cancel_rngs[stream];
        bool cancels = gsl_rng_uniform(r) < spec->cancel_probability;
        double after = fs_dist_sample(&spec->cancel_after, r);
        if (cancels)
            fs_sim_schedule(t->sim, t->sim->now + after, 1, t->kind_cancel, id, 0);
    }
    if (t->measuring)
        t->reps[stream].submitted++;
    if (fs__ask(t, id) != 0) {
        fs_sim_fail(t->sim, ENOMEM, "training \"%s\": out of memory queueing a job", spec->name);
        return ENOMEM;
    }
    return 0;
}

/* A job's gang and compute time: the stream's, or, with a job mix, the
 * gang then the run time (its gang class's, with run_time_by_gang: one draw
 * either way) from "jobs/<name>". */
static void fs__draw_job(fs_training *t, uint32_t stream, uint32_t *gang, double *compute_s)
{
    const fs_training_spec *spec = &t->scenario->training[stream];
    *gang = spec->gang;
    *compute_s = spec->work_gpu_hours * 3600.0 / spec->gang;
    if (spec->has_gang_mix)
        *gang = (uint32_t)fs_dist_sample(&spec->gang_mix, t->mix_rngs[stream]);
    const fs_dist *run_time = fs_scenario_job_run_time(spec, *gang);
    if (run_time)
        *compute_s = fs_dist_sample(run_time, t->mix_rngs[stream]);
}

/* A job of a stream submitted on its own: in a new iteration when the
 * stream roots a pipeline.  0, or ENOMEM with the run stopped. */
static int fs__submit_own(fs_training *t, uint32_t stream, uint32_t gang, double compute_s, fs_lane lane,
                          uint32_t tenant)
{
    uint32_t cycle = FS_PIPELINE_NONE;
    if (fs_training_is_root(t->scenario, stream) &&
        fs_pipelines_begin(&t->pipelines, t->reps, stream, t->sim->now, t->measuring, &cycle) != 0) {
        fs_sim_fail(t->sim, ENOMEM, "training \"%s\": out of memory for a pipeline iteration",
                    t->scenario->training[stream].name);
        return ENOMEM;
    }
    return fs__submit_job(t, stream, gang, compute_s, lane, tenant, cycle);
}

static void fs__pipeline_next(fs_training *t, uint32_t stream, uint32_t cycle, bool done);

/* Deploy step `stream`'s rollout in iteration `cycle`, submitted now: 0,
 * or an errno value with the run stopped. */
static int fs__submit_rollout(fs_training *t, uint32_t stream, uint32_t cycle)
{
    const fs_training_spec *spec = &t->scenario->training[stream];
    int rc = t->deploy ? t->deploy(t->deploy_ctx, spec->deploy_service, stream, cycle, spec->deploy_max_surge,
                                   t->sim->now)
                       : ENOSYS;
    if (rc != 0)
        fs_sim_fail(t->sim, rc, "training \"%s\": could not start a rollout", spec->name);
    else
        fs_pipelines_rollout_started(&t->reps[stream], t->measuring);
    return rc;
}

void fs_training_rollout_done(fs_training *t, uint32_t stream, uint32_t cycle, double submitted, double now)
{
    bool measured = t->measuring && submitted >= t->scenario->warmup_s;
    if (fs_pipelines_rollout_done(&t->reps[stream], measured, now - submitted) != 0) {
        fs_sim_fail(t->sim, ENOMEM, "training: out of memory for rollout durations");
        return;
    }
    fs__pipeline_next(t, stream, cycle, true);
}

/* A job of iteration `cycle` of stream `stream` is over (done or not): a
 * done one submits one job of each stream that follows its stream, now, in
 * the same iteration (of a join, only when it was the last predecessor's). */
static void fs__pipeline_next(fs_training *t, uint32_t stream, uint32_t cycle, bool done)
{
    if (cycle == FS_PIPELINE_NONE)
        return;
    uint32_t spawned = 0;
    for (size_t j = 0; done && j < t->scenario->n_training; j++) {
        const fs_training_spec *next = &t->scenario->training[j];
        bool ready = true;
        if (!fs_training_follows(next, stream))
            continue;
        if (next->n_after > 1 &&
            fs_pipelines_join(&t->pipelines, cycle, j, next->n_after, t->scenario->n_training, &ready) != 0) {
            fs_sim_fail(t->sim, ENOMEM, "training \"%s\": out of memory for a join", next->name);
            return;
        }
        if (!ready)
            continue;
        if (next->deploy_service != SIZE_MAX) { /* a rollout instead of a job */
            if (fs__submit_rollout(t, (uint32_t)j, cycle) != 0)
                return;
            spawned++;
            continue;
        }
        uint32_t gang;
        double compute_s;
        fs__draw_job(t, (uint32_t)j, &gang, &compute_s);
        if (fs__submit_job(t, (uint32_t)j, gang, compute_s, next->lane, 0, cycle) != 0)
            return;
        spawned++;
    }
    if (fs_pipelines_job_over(&t->pipelines, t->reps, cycle, done, spawned, t->sim->now) != 0)
        fs_sim_fail(t->sim, ENOMEM, "training: out of memory for pipeline cycle times");
}

static void fs__on_submit(fs_sim *sim, const fs_event *ev, void *ctx)
{
    fs_training *t = ctx;
    uint32_t stream = ev->arg;
    const fs_training_spec *spec = &t->scenario->training[stream];
    /* Daily and Poisson submissions schedule their successor; listed times
     * were all scheduled at the start. */
    if (ev->data == 0 && spec->n_daily) {
        size_t which;
        double at = fs__next_daily(spec, sim->now, &which);
        if (at <= t->scenario->horizon_s)
            fs_sim_schedule(sim, at, 1, t->kind_submit, stream, 0);
    }
    /* A shaped point's group: read before the successor's draw replaces it. */
    uint32_t group = ev->data == 1 && spec->submit_shape ? t->next_group[stream] : 1;
    if (ev->data == 1) {
        double at = fs__next_poisson(t, stream, sim->now);
        if (at <= t->scenario->horizon_s)
            fs_sim_schedule(sim, at, 1, t->kind_submit, stream, 1);
    }
    uint32_t gang, tenant = 0;
    double compute_s;
    fs_lane lane = spec->lane;
    fs__draw_job(t, stream, &gang, &compute_s);
    if (ev->data == 3) { /* a trace row: its own gang, run time, lane and tenant */
        const fs_trace_row *row = &t->next_row[stream];
        gang = row->gpus;
        compute_s = row->duration_s;
        lane = fs__row_lane(spec, row);
        int rc = fs__row_tenant(spec, &t->reps[stream], row, &tenant);
        if (rc != 0) {
            fs_sim_fail(sim, rc, "%s:%llu: %s", spec->trace->path, (unsigned long long)row->line,
                        rc == ERANGE ? "more distinct tenants than a stream can keep" : "out of memory for tenants");
            return;
        }
    }
    /* A gang larger than any pool the policy lets this stream use (than all
     * of them together, across pools), or than its team may ever hold under
     * the quotas, would wait forever and show as a short queue: a trace row
     * asking for it is bad input, or with --lenient a job counted as
     * refused.  (A stream's own gang is refused before the run:
     * fs_training_check_gangs, and the quotas' loader.) */
    fs_request asked = fs__stream_request(spec, gang, lane);
    size_t largest;
    size_t most = fs__gang_limit(t->fleet->policy, t->scenario, t->fleet->placement, &asked, &largest);
    uint32_t team = fs__job_team(t->scenario, spec, &t->reps[stream], tenant);
    uint64_t ceiling = t->scenario->n_quotas ? fs_scenario_quota_ceiling(t->scenario, team) : UINT64_MAX;
    if (gang > most || gang > ceiling) {
        if (ev->data == 3 && !spec->trace->lenient) {
            char words[256];
            fs__policy_words(words, sizeof words, t->scenario, t->fleet->policy);
            assert(largest != SIZE_MAX); /* fs_training_check_gangs refused such a stream before the run */
            if (gang > most && spec->across_pools)
                fs_sim_fail(sim, EILSEQ,
                            "%s:%llu: a job asking for %u GPUs can never start: the pools %s lets this stream use "
                            "hold %zu units together (--lenient counts such jobs as refused instead)",
                            spec->trace->path, (unsigned long long)t->next_row[stream].line, gang, words, most);
            else if (gang > most)
                fs_sim_fail(sim, EILSEQ,
                            "%s:%llu: a job asking for %u GPUs can never start: the largest pool (\"%s\") %s lets "
                            "this stream use holds %zu units (--lenient counts such jobs as refused instead)",
                            spec->trace->path, (unsigned long long)t->next_row[stream].line, gang,
                            t->scenario->pools[largest].name, words, most);
            else
                fs_sim_fail(sim, EILSEQ,
                            "%s:%llu: a job asking for %u GPUs can never start: its team may hold at most %llu "
                            "under the quotas (--lenient counts such jobs as refused instead)",
                            spec->trace->path, (unsigned long long)t->next_row[stream].line, gang,
                            (unsigned long long)ceiling);
            return;
        }
        if (t->measuring) {
            t->reps[stream].submitted++;
            t->reps[stream].refused_impossible++;
        }
        if (ev->data == 3)
            fs__schedule_traced(t, stream);
        return;
    }
    for (uint32_t g = 0; g < group && fs__submit_own(t, stream, gang, compute_s, lane, tenant) == 0; g++)
        ;
    if (ev->data == 3)
        fs__schedule_traced(t, stream);
}

/* Starts the next compute segment: up to the next checkpoint, or the end. */
static void fs__run_segment(fs_training *t, uint32_t id, double now)
{
    fs_job *job = &t->jobs[id];
    const fs_training_spec *spec = &t->scenario->training[job->stream];
    double every = spec->checkpoint_every_s;
    job->state = FS_JOB_RUNNING;
    job->segment_start = now;
    job->segment_s = every > 0 && every < job->remaining_s ? every : job->remaining_s;
    fs_sim_schedule(t->sim, now + job->segment_s, 1, t->kind_step, id, job->epoch);
}

static void fs__gang_busy(fs_training *t, fs_job *job, double now, int delta)
{
    uint32_t gang = job->gang;
    for (uint32_t m = 0; m < gang; m++)
        fs_pool_unit_busy(&t->pools[job->pool[m]], now, job->unit[m], delta);
}

/* The whole gang goes back at once, warming members included, after
 * evict_s (a save to host) or at once; the units it held since its grant
 * count as held. */
static void fs__give_back(fs_training *t, uint32_t id, double evict_s, double now)
{
    fs_job *job = &t->jobs[id];
    if (t->measuring && job->holding)
        t->reps[job->stream].hours.held += (now - job->admitted) * job->gang / 3600.0;
    job->holding = false;
    fs_fleet_release_holder(t->fleet, FS_HOLDER_TRAINING, id, evict_s, now);
}

/* Where the attempt of a holding job stands at now, in GPU-hours: the
 * compute since its last checkpoint (a segment being written included: it
 * is not safe yet) in *compute, and the write so far into the checkpoint
 * term, or, for a gang still warming, the warm-up so far into the start-up
 * term.  The caller says what the compute became (lost, failed, cancelled,
 * open). */
static void fs__attempt_so_far(fs_training *t, const fs_job *job, double now, double *compute)
{
    fs_training_rep *rep = &t->reps[job->stream];
    double per_s = job->gang / 3600.0;
    *compute = 0;
    if (job->state == FS_JOB_WARMING || (job->state == FS_JOB_QUEUED && job->holding)) {
        if (t->measuring)
            rep->hours.startup += (now - job->admitted) * per_s;
    } else if (job->state == FS_JOB_RUNNING) {
        *compute = (now - job->segment_start) * per_s;
    } else if (job->state == FS_JOB_CHECKPOINTING) {
        *compute = job->segment_s * per_s;
        if (t->measuring)
            rep->hours.checkpoint += (now - job->segment_start - job->segment_s) * per_s;
    }
}

/* End of a compute segment or of a checkpoint write. */
static void fs__on_step(fs_sim *sim, const fs_event *ev, void *ctx)
{
    fs_training *t = ctx;
    uint32_t id = ev->arg;
    fs_job *job = &t->jobs[id];
    if ((double)job->epoch != ev->data)
        return; /* preempted since: this step belongs to a lost run */
    const fs_training_spec *spec = &t->scenario->training[job->stream];
    fs_training_rep *rep = &t->reps[job->stream];
    double now = sim->now;
    double gpu_h = job->segment_s * job->gang / 3600.0;
    if (job->state == FS_JOB_CHECKPOINTING) {
        /* The checkpoint is written: the segment's work is safe. */
        job->remaining_s -= job->segment_s;
        if (t->measuring) {
            rep->gpu_hours_done += gpu_h;
            rep->hours.checkpoint += spec->checkpoint_write_s * job->gang / 3600.0;
        }
        if (job->releasing) { /* its stream's release window began (training_release.h) */
            fs__gang_busy(t, job, now, -1);
            fs__give_back(t, id, 0, now);
            fs_training_release_done(t, id, now);
            return;
        }
        fs__run_segment(t, id, now);
        return;
    }
    if (job->segment_s >= job->remaining_s) { /* the last segment: done */
        job->remaining_s = 0;
        job->state = FS_JOB_DONE;
        if (t->measuring) {
            rep->gpu_hours_done += gpu_h;
            rep->completed++;
        }
        fs__gang_busy(t, job, now, -1);
        fs__give_back(t, id, 0, now);
        fs__pipeline_next(t, job->stream, job->cycle, true);
        return;
    }
    job->state = FS_JOB_CHECKPOINTING;
    fs_sim_schedule(sim, now + spec->checkpoint_write_s, 1, t->kind_step, id, job->epoch);
}

/* Whether the job is over: done, given up after failures, or cancelled. */
static inline bool fs__over(const fs_job *job)
{
    return job->state == FS_JOB_DONE || job->state == FS_JOB_FAILED || job->state == FS_JOB_CANCELLED;
}

/* At an attempt's first compute: whether and when it fails, from
 * "failures/<name>".  Both draws are always made, so each attempt takes the
 * same two numbers whatever happens. */
static void fs__draw_failure(fs_training *t, uint32_t id, double now)
{
    fs_job *job = &t->jobs[id];
    const fs_training_spec *spec = &t->scenario->training[job->stream];
    if (spec->fail_probability <= 0)
        return;
    gsl_rng *r = t->fail_rngs[job->stream];
    bool fails = gsl_rng_uniform(r) < spec->fail_probability;
    double after = fs_dist_sample(&spec->fail_after, r);
    if (fails)
        fs_sim_schedule(t->sim, now + after, 1, t->kind_fail, id, job->epoch);
}

/* The attempt fails: its compute since the last checkpoint is lost, the
 * gang goes back, and the job retries after retry_delay or gives up. */
static void fs__on_fail(fs_sim *sim, const fs_event *ev, void *ctx)
{
    fs_training *t = ctx;
    uint32_t id = ev->arg;
    fs_job *job = &t->jobs[id];
    if ((double)job->epoch != ev->data || (job->state != FS_JOB_RUNNING && job->state != FS_JOB_CHECKPOINTING))
        return; /* the attempt ended before it failed */
    const fs_training_spec *spec = &t->scenario->training[job->stream];
    fs_training_rep *rep = &t->reps[job->stream];
    double compute_h;
    fs__attempt_so_far(t, job, sim->now, &compute_h);
    if (t->measuring) {
        rep->hours.failed += compute_h;
        rep->failures++;
    }
    fs__gang_busy(t, job, sim->now, -1);
    fs__give_back(t, id, 0, sim->now);
    job->epoch++;
    job->state_on_host = false; /* a failed process keeps nothing in memory */
    if (job->retries_left == 0) {
        job->state = FS_JOB_FAILED;
        if (t->measuring)
            rep->failed_jobs++;
        fs__pipeline_next(t, job->stream, job->cycle, false);
        return;
    }
    job->retries_left--;
    job->state = FS_JOB_RETRYING;
    if (t->measuring)
        rep->retries++;
    fs_sim_schedule(sim, sim->now + spec->retry_delay_s, 1, t->kind_retry, id, job->epoch);
}

/* A failed job asks for its gang again, to resume from its last checkpoint. */
static void fs__on_retry(fs_sim *sim, const fs_event *ev, void *ctx)
{
    (void)sim;
    fs_training *t = ctx;
    fs_job *job = &t->jobs[ev->arg];
    if ((double)job->epoch != ev->data || job->state != FS_JOB_RETRYING)
        return; /* cancelled meanwhile */
    if (fs__ask(t, ev->arg) != 0)
        fs_sim_fail(t->sim, ENOMEM, "training \"%s\": out of memory requeueing a job",
                    t->scenario->training[job->stream].name);
}

/* Its owner cancels the job, wherever it is: waiting, warming or running.
 * The compute since its last checkpoint is lost to the cancellation. */
static void fs__on_cancel(fs_sim *sim, const fs_event *ev, void *ctx)
{
    fs_training *t = ctx;
    uint32_t id = ev->arg;
    fs_job *job = &t->jobs[id];
    if (fs__over(job))
        return;
    fs_training_rep *rep = &t->reps[job->stream];
    double compute_h;
    fs__attempt_so_far(t, job, sim->now, &compute_h);
    if (job->state == FS_JOB_RUNNING || job->state == FS_JOB_CHECKPOINTING)
        fs__gang_busy(t, job, sim->now, -1);
    if (t->measuring) {
        rep->hours.cancelled += compute_h;
        rep->cancelled++;
    }
    fs__give_back(t, id, 0, sim->now); /* also withdraws a request still waiting */
    job->epoch++;
    job->state = FS_JOB_CANCELLED;
    fs__pipeline_next(t, job->stream, job->cycle, false);
}

void fs_training_admitted(fs_training *t, uint32_t id, double now)
{
    fs_job *job = &t->jobs[id];
    job->admitted = now;
    job->holding = true;
    if (job->started_once)
        return;
    job->started_once = true;
    if (!t->measuring)
        return;
    fs_training_rep *rep = &t->reps[job->stream];
    rep->started++;
    /* Time off in its stream's release window is not queue wait. */
    double wait = now - job->submitted - fs_training_release_off_s(job, now);
    int grown = fs_hist_record(&rep->wait, (uint64_t)(wait * 1e9 + 0.5));
    fs_job_wait *waits = fs_grow(rep->waits, &rep->cap_waits, rep->n_waits + 1, sizeof *waits, 16);
    if (!waits || grown != 0) {
        fs_sim_fail(t->sim, ENOMEM, "training: out of memory");
        return;
    }
    rep->waits = waits;
    waits[rep->n_waits++] = (fs_job_wait){job->submitted, wait, job->tenant};
}

void fs_training_member_ready(fs_training *t, uint32_t id, uint32_t member, size_t pool, size_t unit,
                              double now)
{
    fs_job *job = &t->jobs[id];
    if (job->state != FS_JOB_QUEUED && job->state != FS_JOB_WARMING) {
        fs_fleet_release(t->fleet, pool, unit, 0, now); /* cannot happen: kept as a guard */
        return;
    }
    job->state = FS_JOB_WARMING;
    job->pool[member] = pool;
    job->unit[member] = unit;
    if (++job->ready < job->gang)
        return;
    if (t->measuring) {
        fs_training_rep *rep = &t->reps[job->stream];
        rep->startups++;
        rep->startup_s += now - job->admitted;
        rep->hours.startup += (now - job->admitted) * job->gang / 3600.0;
    }
    fs_training_release_warmed(t, id, now);
    fs__gang_busy(t, job, now, +1);
    fs__run_segment(t, id, now);
    fs__draw_failure(t, id, now);
}

/* The time to save a running job's state to host memory: every member saves
 * at once, each at its own pool's D2H bandwidth, so the gang's slowest
 * member's (a gang split across pools may have several). */
static double fs__save_s(const fs_training *t, const fs_job *job)
{
    const fs_training_spec *spec = &t->scenario->training[job->stream];
    double slowest = 0;
    for (uint32_t m = 0; m < job->gang; m++) {
        double save = fs_fleet_save_s(t->scenario, job->pool[m], spec->state_gb_per_gpu);
        if (save > slowest)
            slowest = save;
    }
    return slowest;
}

void fs_training_member_evicted(fs_training *t, uint32_t id, double now)
{
    fs_job *job = &t->jobs[id];
    const fs_training_spec *spec = &t->scenario->training[job->stream];
    fs_training_rep *rep = &t->reps[job->stream];
    if (job->state == FS_JOB_QUEUED || job->state == FS_JOB_RETRYING || job->state == FS_JOB_RELEASED ||
        fs__over(job))
        return; /* the gang was already given back: this is another member's call */
    double evict_s = 0, compute_h;
    fs__attempt_so_far(t, job, now, &compute_h);
    if (job->state == FS_JOB_RUNNING || job->state == FS_JOB_CHECKPOINTING) {
        double progress_s = job->state == FS_JOB_RUNNING ? now - job->segment_start : job->segment_s;
        if (spec->save_on_eviction) {
            /* The state goes to host memory at D2H bandwidth before the GPU
             * is free: nothing computed is lost. */
            evict_s = fs__save_s(t, job);
            job->remaining_s -= progress_s;
            job->state_on_host = true;
            if (t->measuring)
                rep->gpu_hours_done += progress_s * job->gang / 3600.0;
        } else {
            /* Everything since the last completed checkpoint is lost; a
             * checkpoint being written is not complete. */
            job->state_on_host = false;
            if (t->measuring)
                rep->gpu_hours_lost += progress_s * job->gang / 3600.0;
        }
        if (t->measuring)
            rep->preemptions++;
        fs__gang_busy(t, job, now, -1);
    } else if (t->measuring) { /* warming: nothing computed yet, nothing lost */
        rep->preemptions++;
    }
    fs__give_back(t, id, evict_s, now);
    job->epoch++;
    job->state = FS_JOB_QUEUED;
    if (fs__ask(t, id) != 0)
        fs_sim_fail(t->sim, ENOMEM, "training \"%s\": out of memory requeueing a job", spec->name);
}

int fs_training_init(fs_training *t, const fs_scenario *s, fs_fleet *fleet, fs_pool *pools,
                     fs_sim *sim, uint32_t replication, fs_training_rep *reps, fs_error *err)
{
    *t = (fs_training){.scenario = s, .sim = sim, .fleet = fleet, .pools = pools, .reps = reps};
    /* A tenant key is 32 bits; no trace names that many teams. */
    for (size_t i = 0; i < s->n_training; i++)
        fs_intern_init(&reps[i].tenants, UINT32_MAX - 1);
    if (s->n_training == 0)
        return FS_OK;
    int checked = fs_training_check_gangs(s, fleet->policy, fleet->placement, err);
    if (checked != FS_OK)
        return checked;
    t->rngs = calloc(s->n_training, sizeof *t->rngs);
    t->traces = calloc(s->n_training, sizeof *t->traces);
    t->next_row = calloc(s->n_training, sizeof *t->next_row);
    t->shaped = calloc(s->n_training, sizeof *t->shaped); /* zeroed: safe to fini unused */
    t->next_group = calloc(s->n_training, sizeof *t->next_group);
    t->mix_rngs = calloc(s->n_training, sizeof *t->mix_rngs);
    t->fail_rngs = calloc(s->n_training, sizeof *t->fail_rngs);
    t->cancel_rngs = calloc(s->n_training, sizeof *t->cancel_rngs);
    int64_t k_sub = fs_sim_register(sim, fs__on_submit, t);
    int64_t k_step = fs_sim_register(sim, fs__on_step, t);
    int64_t k_fail = fs_sim_register(sim, fs__on_fail, t);
    int64_t k_retry = fs_sim_register(sim, fs__on_retry, t);
    int64_t k_cancel = fs_sim_register(sim, fs__on_cancel, t);
    if (!t->rngs || !t->traces || !t->next_row || !t->shaped || !t->next_group || !t->mix_rngs || !t->fail_rngs ||
        !t->cancel_rngs || k_sub < 0 || k_step < 0 || k_fail < 0 || k_retry < 0 || k_cancel < 0)
        goto nomem;
    for (size_t i = 0; i < s->n_training; i++) {
        int rc = s->training[i].trace ? fs_trace_open(s->training[i].trace, &t->traces[i], err) : FS_OK;
        if (rc != FS_OK) {
            fs_training_fini(t);
            return rc;
        }
    }
    t->kind_submit = (uint32_t)k_sub;
    t->kind_step = (uint32_t)k_step;
    t->kind_fail = (uint32_t)k_fail;
    t->kind_retry = (uint32_t)k_retry;
    t->kind_cancel = (uint32_t)k_cancel;
    for (size_t i = 0; i < s->n_training; i++) {
        char stream[512];
        snprintf(stream, sizeof stream, "training/%s", s->training[i].name);
        t->rngs[i] = fs_rng_create(s->seed, replication, stream);
        if (!t->rngs[i])
            goto nomem;
        if (s->training[i].submit_shape &&
            fs_arrival_stream_init(&t->shaped[i], s->training[i].submit_shape, s->start_weekday, s->seed,
                                   replication, s->training[i].name) != 0)
            goto nomem;
        /* Streams of their own, made only where used, so a stream without a
         * mix, failures or cancellations draws exactly as before. */
        const fs_training_spec *spec = &s->training[i];
        struct {
            bool used;
            const char *prefix;
            gsl_rng **out;
        } extra[] = {{spec->has_gang_mix || spec->has_run_time || spec->n_run_time_by_gang, "jobs", &t->mix_rngs[i]},
                     {spec->fail_probability > 0, "failures", &t->fail_rngs[i]},
                     {spec->cancel_probability > 0, "cancellations", &t->cancel_rngs[i]}};
        for (size_t k = 0; k < sizeof extra / sizeof *extra; k++) {
            if (!extra[k].used)
                continue;
            snprintf(stream, sizeof stream, "%s/%s", extra[k].prefix, spec->name);
            if (!(*extra[k].out = fs_rng_create(s->seed, replication, stream)))
                goto nomem;
        }
        fs__schedule_submissions(t, (uint32_t)i, 0, true);
    }
    if (fs_training_release_init(t) != 0)
        goto nomem;
    return FS_OK;
nomem:
    fs_training_fini(t);
    return fs_error_set(err, FS_ERR_RUNTIME, "out of memory for training streams");
}

void fs_training_fini(fs_training *t)
{
    for (size_t i = 0; t->rngs && i < t->scenario->n_training; i++)
        fs_rng_destroy(t->rngs[i]);
    for (size_t i = 0; t->mix_rngs && t->fail_rngs && t->cancel_rngs && i < t->scenario->n_training; i++) {
        fs_rng_destroy(t->mix_rngs[i]);
        fs_rng_destroy(t->fail_rngs[i]);
        fs_rng_destroy(t->cancel_rngs[i]);
    }
    free(t->mix_rngs);
    free(t->fail_rngs);
    free(t->cancel_rngs);
    for (size_t i = 0; t->traces && i < t->scenario->n_training; i++)
        fs_trace_close(t->traces[i]);
    for (size_t i = 0; t->shaped && i < t->scenario->n_training; i++)
        fs_arrival_stream_fini(&t->shaped[i]);
    free(t->shaped);
    free(t->next_group);
    free(t->rngs);
    free(t->traces);
    free(t->next_row);
    for (size_t j = 0; j < t->n_jobs; j++) {
        free(t->jobs[j].pool);
        free(t->jobs[j].unit);
    }
    free(t->jobs);
    fs_pipelines_fini(&t->pipelines);
    fs_training_release_fini(t);
    *t = (fs_training){0};
}

void fs_training_start_measuring(fs_training *t, double now)
{
    (void)now;
    t->measuring = true;
    for (size_t i = 0; i < t->scenario->n_training; i++) {
        fs_training_rep *rep = &t->reps[i];
        rep->submitted = rep->started = rep->completed = rep->preemptions = 0;
        rep->gpu_hours_done = rep->gpu_hours_lost = rep->startup_s = 0;
        rep->startups = rep->failures = rep->failed_jobs = rep->retries = rep->cancelled = 0;
        rep->hours = (struct fs_training_hours){0};
        rep->release = (struct fs_release_rep){0};
        rep->n_waits = 0;
        rep->in_flight_start = 0;
        fs_hist_reset(&rep->wait);
    }
    for (size_t j = 0; j < t->n_jobs; j++)
        if (!fs__over(&t->jobs[j]))
            t->reps[t->jobs[j].stream].in_flight_start++;
    fs_pipelines_start_measuring(&t->pipelines, t->reps, t->scenario->n_training);
}

/* Jobs still waiting for their first admission count in the wait histogram with
 * their wait so far (censored: a lower bound on their wait), so a gang that
 * never starts shows a long wait, not none. */
int fs_training_finish(fs_training *t, double now)
{
    for (size_t i = 0; t->traces && i < t->scenario->n_training; i++) {
        fs_training_rep *rep = &t->reps[i];
        rep->traced = t->traces[i] != NULL;
        rep->trace_rows = rep->traced ? fs_trace_rows(t->traces[i]) : 0;
        rep->trace_skipped = rep->traced ? fs_trace_skipped(t->traces[i]) : 0;
    }
    for (size_t j = 0; j < t->n_jobs; j++) {
        fs_job *job = &t->jobs[j];
        fs_training_rep *rep = &t->reps[job->stream];
        if (fs__over(job))
            continue;
        /* A gang still held at the horizon: its units count as held to
         * now, and its compute not yet kept as open. */
        if (job->holding && t->measuring) {
            double compute_h;
            fs__attempt_so_far(t, job, now, &compute_h);
            rep->hours.open += compute_h;
            rep->hours.held += (now - job->admitted) * job->gang / 3600.0;
        }
        if ((job->state == FS_JOB_QUEUED && !job->holding) || job->state == FS_JOB_RETRYING ||
            job->state == FS_JOB_RELEASED)
            rep->waiting_end++;
        else
            rep->running_end++; /* warming or running */
        if (!job->started_once) {
            rep->waits_censored++;
            double wait = now - job->submitted - fs_training_release_off_s(job, now);
            if (fs_hist_record(&rep->wait, (uint64_t)(wait * 1e9 + 0.5)) != 0)
                return ENOMEM;
        }
    }
    if (t->measuring)
        fs_pipelines_finish(&t->pipelines, t->reps, t->scenario->n_training);
    return 0;
}

/* ---- training_parts.h ------------------------------------------------------ */

void fs__training_give_back(fs_training *t, uint32_t id, double evict_s, double now)
{
    fs__give_back(t, id, evict_s, now);
}

void fs__training_attempt_so_far(fs_training *t, const fs_job *job, double now, double *compute_h)
{
    fs__attempt_so_far(t, job, now, compute_h);
}

int fs__training_ask(fs_training *t, uint32_t id)
{
    return fs__ask(t, id);
}

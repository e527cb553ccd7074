/*
 * training — streams of training jobs during one replication.
 *
 * Each stream submits jobs (daily at clock times, as a Poisson stream, or at
 * listed times, or one per row of a job trace).  A Poisson stream with a
 * shape (scenario.h: submit_shape) draws its submissions from the services'
 * own arrival process (arrivals.h: profile, bursts, trend, noise, groups of
 * jobs at one instant), written once for both.  A job asks the fleet for its whole gang at once (all or
 * nothing), warms up (context, framework, state loaded from storage),
 * computes work_gpu_hours / gang hours, pausing every checkpoint interval to
 * write a checkpoint, and gives its units back when done.  If the fleet
 * evicts it (preemption, spot reclaim) it loses the work since its last
 * completed checkpoint, gives back its whole gang and queues again.
 *
 * A stream may draw each job's gang and run time from a mix, fail an
 * attempt at a random time (losing the compute since its last checkpoint;
 * retried after a delay up to a count, then given up) and cancel a job at a
 * random time after its submission, waiting or running.
 *
 * A stream with "after" submits no jobs of its own: each job of its
 * predecessor that completes submits one of it (pipeline.h measures the
 * iterations); a deploy step submits a rollout of its service instead of a
 * job (through `deploy`, service.h fs_service_deploy).  A stream with
 * "release" gives its GPUs back every day for a window (training_release.h).
 *
 * Measured per stream (from the warm-up instant): submissions, queue wait
 * from submission to first admission (the gang granted; histogram:
 * P50/P95/max), start-up apart (grant to the last member warmed up, every
 * admission), completions, preemptions, GPU-hours of work done and lost.
 *
 * Ownership: fs_training is caller-owned (init/fini); it owns its jobs and
 * generators; borrows the scenario, fleet, pools and engine.
 */
#ifndef FS_TRAINING_H
#define FS_TRAINING_H

#include <gsl/gsl_rng.h>
#include <stdint.h>

#include "arrivals.h"
#include "error.h"
#include "fleet.h"
#include "pipeline.h"
#include "results.h"
#include "scenario.h"
#include "trace.h"
#include "sim.h"

/* RETRYING: failed, waiting retry_delay before it asks again.  DONE, FAILED
 * (out of retries) and CANCELLED are over. */
typedef enum fs_job_state {
    FS_JOB_QUEUED,
    FS_JOB_WARMING,
    FS_JOB_RUNNING,
    FS_JOB_CHECKPOINTING,
    FS_JOB_RETRYING,
    FS_JOB_RELEASED,         /* its stream's release window: holds and asks for nothing (training_release.h) */
    FS_JOB_DONE,
    FS_JOB_FAILED,
    FS_JOB_CANCELLED
} fs_job_state;

typedef struct fs_job {
    uint32_t stream;
    uint32_t gang;           /* the stream's, or the trace row's GPUs */
    fs_lane lane;            /* the stream's, or its trace row's by "priorities" */
    uint32_t tenant;         /* 0: the stream's; else its trace row's (fs_training_rep.tenants) */
    uint32_t team;           /* its tenant's quota (fs_request.team); 0: no quotas */
    fs_job_state state;
    double submitted;
    bool started_once;       /* admitted (granted its gang) at least once */
    double admitted;         /* when its gang was last granted (held since then) */
    uint32_t retries_left;
    bool holding;            /* granted its gang and not given it back */
    double remaining_s;      /* compute seconds left after the last completed checkpoint */
    double segment_start;    /* when the current compute segment began */
    double segment_s;        /* its length: to the next checkpoint or the end */
    uint32_t ready;          /* gang members warmed up */
    uint32_t epoch;          /* bumps on preemption: stale events are ignored */
    bool state_on_host;      /* evicted with "save": resumes from host memory */
    size_t *pool, *unit;     /* per gang member */
    uint32_t cycle;          /* its pipeline iteration (pipeline.h); FS_PIPELINE_NONE: none */
    /* Its stream's release window (training_release.h): releasing, 1 when
     * it gives its gang back at the end of the checkpoint being written, 2
     * when that write is the release's own; reload: released after it had
     * started, so its next warm-up reloads its state; off_since: when it
     * last went off; off_s: time off before its first admission (not
     * queue wait). */
    uint8_t releasing;
    bool reload;
    double off_since, off_s;
} fs_job;

typedef struct fs_training {
    const fs_scenario *scenario;
    fs_sim *sim;
    fs_fleet *fleet;
    fs_pool *pools;
    fs_training_rep *reps;   /* per stream, owned by the result */
    gsl_rng **rngs;          /* per stream: "training/<name>" (Poisson submissions) */
    /* per stream with a shaped Poisson rate (submit_shape): its arrival
     * stream (arrivals.h: "arrivals/<name>", ...) and the jobs its next
     * point brings; unused elsewhere */
    fs_arrival_stream *shaped;
    uint32_t *next_group;
    /* per stream, created only where used: "jobs/<name>" (gang and run-time
     * draws), "failures/<name>", "cancellations/<name>" */
    gsl_rng **mix_rngs, **fail_rngs, **cancel_rngs;
    fs_trace **traces;       /* per stream: its job trace's reader, NULL if none */
    fs_trace_row *next_row;  /* per traced stream: the row whose submission is scheduled */
    fs_job *jobs;
    size_t n_jobs, cap_jobs;
    uint32_t kind_submit, kind_step, kind_fail, kind_retry, kind_cancel;
    bool measuring;
    fs_pipelines pipelines;  /* iterations of streams chained with "after" */
    bool *off;               /* per stream: inside its release window now; NULL: no stream has one */
    uint32_t kind_release;
    /* Starts a deploy step's rollout of service `service` (the run links it
     * to fs_service_deploy); fs_training_rollout_done is its end.  0 or an
     * errno value. */
    int (*deploy)(void *ctx, size_t service, uint32_t stream, uint32_t cycle, uint32_t max_surge, double now);
    void *deploy_ctx;
} fs_training;

int fs_training_init(fs_training *t, const fs_scenario *s, fs_fleet *fleet, fs_pool *pools,
                     fs_sim *sim, uint32_t replication, fs_training_rep *reps, fs_error *err);
void fs_training_fini(fs_training *t);

struct fs_policy_ops;

/* Refuses (FS_ERR_INPUT, naming the file, the JSON path and the policy) a
 * stream whose jobs could never start under this policy variant: a gang
 * larger than every pool the policy lets the stream use (than all of them
 * together, for a stream whose gangs may split across pools), or a stream
 * the policy lets use no pool at all.  The loader knows only the largest pool;
 * which pools a stream may use is the policy's (policy.h).  fs_training_init
 * calls it; `validate` too, so it never says "ok" to such a scenario. */
int fs_training_check_gangs(const fs_scenario *s, const struct fs_policy_ops *policy,
                            const fs_placement *placement, fs_error *err);

void fs_training_start_measuring(fs_training *t, double now);
/* Final figures at the horizon; 0, or ENOMEM when a wait histogram could not grow. */
int fs_training_finish(fs_training *t, double now);

/* The fleet granted job `job` its whole gang at now: its queue wait ends
 * (the first time: the wait histogram), its start-up begins. */
void fs_training_admitted(fs_training *t, uint32_t job, double now);

/* The fleet's callbacks for gang member `member` of job `job`. */
void fs_training_member_ready(fs_training *t, uint32_t job, uint32_t member, size_t pool, size_t unit,
                              double now);
void fs_training_member_evicted(fs_training *t, uint32_t job, double now);

/* A deploy step's rollout (stream `stream`, iteration `cycle`, submitted
 * at `submitted`) completed now: measured (rollouts, duration) when
 * submitted while measuring, and the steps after it submitted. */
void fs_training_rollout_done(fs_training *t, uint32_t stream, uint32_t cycle, double submitted, double now);

#endif

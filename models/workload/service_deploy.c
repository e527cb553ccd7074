/*
 * service_deploy — a deploy step's rolling update of a service (service.h,
 * fs_service_deploy; the step is a training stream with "deploy",
 * scenario.h fs_training_spec.deploy_service).
 *
 * The model: the replicas ready when a rollout starts are the old version;
 * every replica that becomes ready after it started is the new version.
 * Up to max_surge new replicas at a time are asked of the fleet, in surge
 * slots kept beside the service's own, and each warms up exactly as a
 * scale-up replica does (fs__service_ask: context, framework, weights from
 * storage, first kernels: fs_fleet_warmup_s).  When one becomes ready, the
 * least-loaded old replica drains (its requests in service finish; its unit
 * is given back when they have) and another new one is asked for while old
 * ones remain beyond those already asked.  The rollout completes the
 * instant no old replica is left, so the service never has fewer ready
 * replicas than at the start (while new ones warm, the old ones serve).  A
 * new replica waiting for a free unit waits as a scale-up does: that wait
 * is part of the rollout.  With no ready replica at its start a rollout
 * completes at once.  An old replica lost meanwhile (its unit taken back)
 * needs no replacement; a new one lost while warming is asked for again.
 * Replicas warming for another reason when it starts are not replaced
 * (they come up after it began).  Surge replicas beyond the old ones left
 * (old ones lost or retired meanwhile) are withdrawn.
 *
 * With an autoscaler, as Kubernetes' maxSurge: surge replicas are not the
 * autoscaler's (svc->n_wanted leaves them out until ready), so they neither
 * count toward its max nor make it scale down; the surge slots lie beside
 * max.  A surge replica ready counts, and the old one it replaces stops
 * counting, at the same instant.  The autoscaler keeps working meanwhile: a
 * scale-up's replica is new and drains nothing (it adds capacity the
 * autoscaler asked for; draining for it would take that back); a scale-down
 * withdraws a warming scale-up first, as without a rollout (it serves
 * nothing yet), else retires the least-loaded OLD replica
 * (fs__deploy_retire_old), which then needs no replacement, so the rollout
 * ends sooner.  The rollout itself never lowers the ready count: surge
 * first, then drain.
 *
 * Rollouts of one service run one at a time, in the order submitted: one
 * submitted while another is in progress waits (its duration includes the
 * wait).  Completion is announced through an event at the same instant, so
 * the pipeline's next step never runs inside the fleet's callback.
 *
 * Ownership: the fs__deploy hangs on the service (svc->deploy, freed by
 * fs__deploy_fini); it owns its slot marks and queue.  O(slots) per
 * replacement (finding the least-loaded old replica).
 */
#include "service_parts.h"

#include <errno.h>
#include <stdlib.h>

#include "grow.h"

enum { FS__MARK_NONE, FS__MARK_OLD, FS__MARK_SURGE };

typedef struct fs__rollout {
    uint32_t stream, cycle, max_surge;
    double submitted;
} fs__rollout;

struct fs__deploy {
    uint8_t *mark;        /* per slot: FS__MARK_* */
    uint32_t surging;     /* new replicas asked for and not yet ready */
    bool active;          /* queue[head] is in progress */
    bool announcing;      /* its completion event is scheduled */
    fs__rollout *queue;   /* queue[head .. n - 1]: in progress, then waiting */
    size_t head, n, cap;
    uint32_t kind_look;   /* look again at the rollout in progress (arg 1: it completed) */
};

static void fs__deploy_on_look(fs_sim *sim, const fs_event *ev, void *ctx);

int fs__deploy_init(fs_service *svc, const fs_scenario *s)
{
    uint32_t surge = fs_scenario_deploy_surge(s, svc->index);
    if (surge == 0)
        return 0;
    svc->n_slots += surge;
    struct fs__deploy *d = calloc(1, sizeof *d);
    if (!d)
        return ENOMEM;
    svc->deploy = d;
    d->mark = calloc(svc->n_slots, sizeof *d->mark);
    int64_t kind = fs_sim_register(svc->sim, fs__deploy_on_look, svc);
    if (!d->mark || kind < 0)
        return ENOMEM;
    d->kind_look = (uint32_t)kind;
    return 0;
}

void fs__deploy_fini(fs_service *svc)
{
    if (!svc->deploy)
        return;
    free(svc->deploy->mark);
    free(svc->deploy->queue);
    free(svc->deploy);
    svc->deploy = NULL;
}

/* Old replicas still ready: those left to replace. */
static uint32_t fs__old_ready(const fs_service *svc)
{
    uint32_t n = 0;
    for (uint32_t r = 0; r < svc->n_slots; r++)
        n += svc->deploy->mark[r] == FS__MARK_OLD && svc->replica[r].state == FS__READY;
    return n;
}

/* The least-loaded old replica still ready, UINT32_MAX when none is. */
static uint32_t fs__least_loaded_old(const fs_service *svc)
{
    uint32_t old = UINT32_MAX;
    for (uint32_t o = 0; o < svc->n_slots; o++)
        if (svc->deploy->mark[o] == FS__MARK_OLD && svc->replica[o].state == FS__READY &&
            (old == UINT32_MAX || svc->replica[o].load < svc->replica[old].load))
            old = o;
    return old;
}

/* Withdraws warming surge replicas beyond the old ones left: those left
 * were lost or retired by a scale-down, and need no replacement. */
static void fs__withdraw_surplus(fs_service *svc, uint32_t left)
{
    struct fs__deploy *d = svc->deploy;
    for (uint32_t r = svc->n_slots; r-- > 0 && d->surging > left;)
        if (d->mark[r] == FS__MARK_SURGE && svc->replica[r].state == FS__WARMING) {
            d->mark[r] = FS__MARK_NONE;
            d->surging--;
            svc->replica[r].state = FS__OFF; /* a grant in flight is given back on arrival */
            fs_fleet_withdraw_slot(svc->fleet, FS_HOLDER_SERVICE, (uint32_t)svc->index, r);
        }
}

/* Asks for new replicas while fewer are coming than old ones are left, up
 * to the rollout's max_surge; completes it (by an event now) when nothing
 * is left to replace or coming. */
static void fs__advance(fs_service *svc, double now)
{
    struct fs__deploy *d = svc->deploy;
    if (!d->active || d->announcing)
        return;
    uint32_t left = fs__old_ready(svc), max_surge = d->queue[d->head].max_surge;
    fs__withdraw_surplus(svc, left);
    while (d->surging < max_surge && d->surging < left) {
        uint32_t r = 0;
        while (r < svc->n_slots && svc->replica[r].state != FS__OFF)
            r++;
        if (r == svc->n_slots)
            break; /* every slot taken (old replicas still draining): asked when one turns off */
        if (fs__service_ask(svc) != 0) { /* asks slot r, the first off */
            fs_sim_fail(svc->sim, ENOMEM, "service \"%s\": out of memory asking for a new replica",
                        svc->spec->name);
            return;
        }
        svc->n_wanted--; /* not the autoscaler's until ready (Kubernetes' maxSurge) */
        d->mark[r] = FS__MARK_SURGE;
        d->surging++;
    }
    if (left == 0 && d->surging == 0) {
        d->announcing = true;
        fs_sim_schedule(svc->sim, now, 0, d->kind_look, 1, 0);
    }
}

/* The rollout at the queue's head starts: every replica ready now is old. */
static void fs__start_next(fs_service *svc, double now)
{
    struct fs__deploy *d = svc->deploy;
    if (d->active || d->head == d->n)
        return;
    d->active = true;
    for (uint32_t r = 0; r < svc->n_slots; r++)
        if (svc->replica[r].state == FS__READY)
            d->mark[r] = FS__MARK_OLD;
    fs__advance(svc, now);
}

static void fs__deploy_on_look(fs_sim *sim, const fs_event *ev, void *ctx)
{
    fs_service *svc = ctx;
    struct fs__deploy *d = svc->deploy;
    if (ev->arg == 0) {
        fs__advance(svc, sim->now);
        return;
    }
    fs__rollout done = d->queue[d->head++];
    d->active = d->announcing = false;
    for (uint32_t r = 0; r < svc->n_slots; r++)
        if (d->mark[r] == FS__MARK_OLD)
            d->mark[r] = FS__MARK_NONE; /* lost or drained: nothing left of this rollout */
    if (svc->on_rollout_done)
        svc->on_rollout_done(svc->rollout_ctx, done.stream, done.cycle, done.submitted, sim->now);
    fs__start_next(svc, sim->now);
}

int fs_service_deploy(fs_service *svc, uint32_t stream, uint32_t cycle, uint32_t max_surge, double now)
{
    struct fs__deploy *d = svc->deploy;
    if (d->head == d->n) /* empty: reuse the room */
        d->head = d->n = 0;
    fs__rollout *queue = fs_grow(d->queue, &d->cap, d->n + 1, sizeof *queue, 4);
    if (!queue)
        return ENOMEM;
    d->queue = queue;
    queue[d->n++] = (fs__rollout){.stream = stream, .cycle = cycle, .max_surge = max_surge, .submitted = now};
    fs__start_next(svc, now);
    return 0;
}

void fs__deploy_ready(fs_service *svc, uint32_t r, double now)
{
    struct fs__deploy *d = svc->deploy;
    if (r >= svc->n_slots || d->mark[r] != FS__MARK_SURGE)
        return;
    d->mark[r] = FS__MARK_NONE;
    d->surging--;
    svc->n_wanted++; /* the autoscaler's now; the old one drained stops being */
    uint32_t old = fs__least_loaded_old(svc);
    if (old != UINT32_MAX) {
        d->mark[old] = FS__MARK_NONE;
        fs__service_drain(svc, old, now);
    }
    fs__advance(svc, now);
}

void fs__deploy_lost(fs_service *svc, uint32_t r, double now)
{
    struct fs__deploy *d = svc->deploy;
    if (r >= svc->n_slots || d->mark[r] == FS__MARK_NONE)
        return;
    if (d->mark[r] == FS__MARK_SURGE) {
        d->surging--;
        svc->n_wanted++; /* fs_service_replica_evicted takes a warming one off n_wanted */
    }
    d->mark[r] = FS__MARK_NONE;
    /* Looked at again once the loss is done (the slot's state is not yet). */
    if (d->active && !d->announcing)
        fs_sim_schedule(svc->sim, now, 0, d->kind_look, 0, 0);
}

void fs__deploy_slot_off(fs_service *svc, double now)
{
    fs__advance(svc, now);
}

bool fs__deploy_is_surge(const fs_service *svc, uint32_t r)
{
    return svc->deploy && r < svc->n_slots && svc->deploy->mark[r] == FS__MARK_SURGE;
}

bool fs__deploy_retire_old(fs_service *svc, double now)
{
    struct fs__deploy *d = svc->deploy;
    if (!d || !d->active || d->announcing)
        return false;
    uint32_t old = fs__least_loaded_old(svc);
    if (old == UINT32_MAX)
        return false;
    d->mark[old] = FS__MARK_NONE;
    fs__service_drain(svc, old, now);
    fs__advance(svc, now);
    return true;
}

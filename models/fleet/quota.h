/*
 * quota — per-team quotas in cohorts, reclaim of borrowed units, fair
 * sharing between teams, and reservations against starvation, for training
 * jobs.
 *
 * Kueue's model, cut down: each team (a tenant of the scenario's "quotas")
 * has a nominal quota of units (whole GPUs, MIG instances or seats: what a
 * gang counts) and belongs to one cohort (the default one unless it names
 * another).  A training request of team T for g units passes the quota
 * when
 *     usage(T) + g <= nominal(T) + min(borrow(T), lent(T)),
 *     lent(T) = sum over the other teams O of T's cohort of min(lend(O), max(0, nominal(O) - usage(O))),
 * usage being the units T's jobs hold, warming or running.  Units must also
 * be free (or evictable) as before: the quota only ever holds a request back.
 * A request within its nominal quota (usage(T) + g <= nominal(T)) that finds
 * no room may reclaim: the fleet evicts jobs of teams of its cohort above
 * their nominal quota, the newest admitted first, preemptible ones only
 * (fleetsim never evicts work that did not accept preemption), never of a
 * higher lane than its own (tiered: it would be served first and take the
 * units back), and only when the evictions planned make room for the whole
 * gang.  Services are not subject to quotas.  Trace rows whose tenant has
 * no entry belong to the team "unlisted" of the default cohort: nominal 0,
 * borrow unlimited, lend 0 (they run on what the teams lend, and are
 * reclaimed first when a team wants its quota back).
 *
 * Fair sharing ("fair_sharing"): the teams' waiting training requests are
 * served in order of their team's share, the lowest first, instead of the
 * policy's order among them (services and the policy's lanes keep their
 * places: each place in the policy's order that a team's request held goes
 * to the request of the team with the lowest share then, among those of the
 * same lane, the oldest on ties).  The share is the units a team borrows
 * (usage above nominal) per weight, Kueue's fair sharing; or the unit-hours
 * it used, decayed with a half-life, per weight, Kueue's admission fair
 * sharing (Slurm's fair-share factor).  A weight of 0 is an infinite share:
 * such a team goes last.  Shares are read as each request is tried, so a
 * grant moves its team back at once.  Preemption for fairness between
 * borrowers (Kueue's fair-sharing preemption) is not modelled: a team gets
 * back only its nominal quota by reclaim.
 *
 * Reservations ("reserve_after": D): a training request that has waited D
 * (since it was last queued) gets a reservation once no other holds one
 * (oldest first): until it starts, no other training request may start in
 * any pool it may use, from free units or by eviction.  So its wait is at
 * most D plus the time the holders of those pools take to give back enough
 * units (the longest remaining run among them), as long as services do not
 * take the units meanwhile (they are not held back) and its quota lets it
 * in.  A request whose gang its team can never hold gets none.
 *
 * Cost: a quota check is O(1) (what each cohort lends is kept as a running
 * sum); a reclaim plan walks the units of a pool once per victim; a
 * reservation check is one load per pool; a pass over the queue in fair
 * order copies it once and picks each team request in O(teams).  A fleet
 * without "quotas" and "reserve_after" has no fs_quota at all (fleet.quota
 * is NULL): its path is unchanged.
 *
 * Ownership: created and destroyed by the fleet (fs_fleet_init/fini); owns
 * its team and job tables and the fair pass's copy of the queue; borrows the
 * fleet.
 */
#ifndef FS_QUOTA_H
#define FS_QUOTA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fleet.h"
#include "results.h"

typedef struct fs_quota_team {
    uint64_t nominal, borrow, lend;
    uint32_t cohort;       /* index into fs_quota.lent */
    double weight;         /* fair sharing */
    double decayed_s;      /* unit-seconds used, decayed with the half-life, at `since` */
    uint64_t ceiling;      /* the most its jobs may ever hold: nominal + min(borrow, all the others' lend) */
    uint64_t usage;        /* units its jobs hold, warming or running */
    uint64_t evictable;    /* of those, running and preemptible */
    double since;          /* when usage last changed (or measuring began) */
    double held_s, borrowed_s; /* unit-seconds held, and above nominal, since measuring began */
    uint64_t reclaimed;    /* its jobs evicted by a reclaim while measuring */
} fs_quota_team;

/* Per training job (fleet owner number). */
typedef struct fs_quota_job {
    uint64_t asked;        /* 1 + seq of its request last queued, 0: none */
    uint64_t order;        /* grant order of its last admission (newest: largest) */
    uint32_t team;         /* of its last request; 0: none */
    uint32_t units;        /* its gang */
} fs_quota_job;

typedef struct fs_quota {
    fs_fleet *fleet;
    fs_quota_team *teams;  /* team k is teams[k - 1]; the last is "unlisted" */
    size_t n_teams;        /* 0: reservations only */
    uint64_t *plan_usage;  /* [n_teams]: scratch for a reclaim plan */
    uint64_t *lent;        /* [cohort]: sum over its teams of min(lend, max(0, nominal - usage)) */
    uint64_t reclaimable;  /* running preemptible units of teams above their nominal quota */
    fs_quota_job *jobs;
    size_t cap_jobs;
    uint64_t grants;
    bool measuring;
    /* Reservations. */
    double reserve_after_s;
    uint32_t kind_overdue;
    bool reserved;
    fs_request reservation;
    bool *reserved_pool;   /* [n_pools]: pools the reserved request may use */
    struct fs_quota_overdue {
        uint32_t owner;
        uint64_t seq;
    } *overdue;            /* FIFO of requests that waited D while another held the reservation */
    size_t overdue_head, n_overdue, cap_overdue;
    unsigned released;     /* reservations ended: a pass that ends one serves the queue again */
    /* Fair sharing, and the fair pass's state (fs_quota_fair_begin). */
    fs_fair_share fair;
    double decay_per_s;    /* ln 2 / half-life */
    fs_request *snap;      /* the queue when the pass began */
    size_t *snap_next;     /* [snapshot slot]: the next slot of the same team's requests */
    size_t *team_next;     /* [team]: its next request not yet handed out; SIZE_MAX: none */
    size_t n_snap, cap_snap, pos;
} fs_quota;

/* NULL in *out when the scenario has neither "quotas" nor "reserve_after".
 * 0, or ENOMEM. */
int fs_quota_create(fs_fleet *f, fs_quota **out);
void fs_quota_destroy(fs_quota *q);

/* Room in the job table for training job `owner`: 0, or ENOMEM. */
int fs_quota_room(fs_quota *q, uint32_t owner);

/* Does the quota let r (of r->team; 0: none) start now? */
static inline bool fs_quota_admits(const fs_quota *q, const fs_request *r)
{
    if (r->team == 0 || q->n_teams == 0)
        return true;
    const fs_quota_team *t = &q->teams[r->team - 1];
    uint64_t want = t->usage + r->units;
    if (want <= t->nominal)
        return true;
    uint64_t own = t->usage < t->nominal ? t->nominal - t->usage : 0;
    uint64_t lent = q->lent[t->cohort] - (own < t->lend ? own : t->lend);
    return want - t->nominal <= (t->borrow < lent ? t->borrow : lent);
}

/* Is pool p held back from r by another request's reservation? */
static inline bool fs_quota_held_back(const fs_quota *q, const fs_request *r, size_t p)
{
    return q->reserved && q->reserved_pool[p] && r->kind == FS_HOLDER_TRAINING &&
           r->owner != q->reservation.owner;
}

/* May a reclaim evict anyone now (someone above its nominal quota runs
 * preemptible work)?  And may r reclaim (within its team's nominal quota)? */
static inline bool fs_quota_may_reclaim(const fs_quota *q)
{
    return q->reclaimable > 0;
}

static inline bool fs_quota_within(const fs_quota *q, const fs_request *r)
{
    return r->team != 0 && q->n_teams != 0 && q->teams[r->team - 1].usage + r->units <= q->teams[r->team - 1].nominal;
}

/* The fleet grants r: its job's team and gang, and its grant order.  Called
 * before its units change (fs_quota_unit reads the team). */
void fs_quota_granted(fs_quota *q, const fs_request *r);

/* Unit `was` becomes `next` at now (fleet.c, fs__set): usage and evictable
 * units of the teams, and their time integrals. */
void fs_quota_unit(fs_quota *q, const fs_unit_rt *was, const fs_unit_rt *next, double now);

/* The job whose reclaim makes room for r in pool p, where `coming` units
 * that fit r are free or being evicted: the unit of its newest admitted
 * preemptible job whose team is above nominal, if evicting such jobs, newest
 * first, would make room for the whole gang; SIZE_MAX when r may not
 * reclaim (above its nominal quota) or reclaiming cannot make room.  The
 * fleet evicts it, counts it (fs_quota_reclaimed) and asks again. */
size_t fs_quota_reclaim_victim(fs_quota *q, const fs_request *r, size_t p, size_t coming);

/* Training job `owner` is being evicted by a reclaim. */
void fs_quota_reclaimed(fs_quota *q, uint32_t owner);

/* r (a training request) was queued: its reservation timer starts.  r left
 * the queue (granted or withdrawn): its reservation, if any, ends and the
 * next overdue request's begins. */
void fs_quota_queued(fs_quota *q, const fs_request *r);
void fs_quota_left(fs_quota *q, const fs_request *r);

/* Fair sharing: is it on, and does it order r (a training request of a team)? */
static inline bool fs_quota_fair(const fs_quota *q)
{
    return q->fair != FS_FAIR_NONE;
}

/* One pass over the queue in fair order: fs_quota_fair_begin copies the
 * queue's live requests (0, or ENOMEM); each fs_quota_fair_next hands out
 * the next request to try, in the policy's order except that each place of
 * a team's request goes to the team with the lowest share at that moment
 * (its oldest request not yet handed out); false when every request of the
 * copy has been handed out.  The fleet finds each in the queue again (it
 * may have left meanwhile) and tries it. */
int fs_quota_fair_begin(fs_quota *q, const struct fs_queue *queue);
bool fs_quota_fair_next(fs_quota *q, fs_request *out);

/* r, handed out, could not start under a head-of-line policy: if it is a
 * team's (true), its team's later requests are not handed out in this pass
 * and the pass goes on; else (false) the pass stops.  (Each team's queue is
 * first come first served on its own, Kueue's StrictFIFO per ClusterQueue;
 * without this a team held back by its quota, using little and so always
 * the fairest, would stop every team). */
bool fs_quota_fair_hold(fs_quota *q, const fs_request *r);

/* Integrals restart at now (the warm-up instant). */
void fs_quota_start_measuring(fs_quota *q, double now);

/* Per team (n_teams of them, the last "unlisted"), into out: unit-hours
 * held and held above nominal, reclaimed jobs, over [warm-up, now]. */
void fs_quota_finish(fs_quota *q, double now, fs_quota_rep *out);

#endif

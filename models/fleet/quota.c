#include "quota.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "policy.h"
#include "queue.h"

/* ---- teams: usage, what they lend, what may be reclaimed ------------------ */

/* What team t lends now: its unused nominal quota, at most its limit. */
static uint64_t fs__lends(const fs_quota_team *t)
{
    uint64_t unused = t->usage < t->nominal ? t->nominal - t->usage : 0;
    return unused < t->lend ? unused : t->lend;
}

/* Its running preemptible units, when it holds more than its quota. */
static uint64_t fs__reclaimable(const fs_quota_team *t)
{
    return t->usage > t->nominal ? t->evictable : 0;
}

/* Team t's unit-seconds used, decayed at rate r = ln 2 / half-life, at now:
 * D(now) = D(since) e^(-r dt) + usage (1 - e^(-r dt)) / r, its usage having
 * been constant since. */
static double fs__decayed(const fs_quota *q, const fs_quota_team *t, double now)
{
    double lost = -expm1(-q->decay_per_s * (now - t->since)); /* 1 - e^(-r dt), one call */
    return t->decayed_s * (1 - lost) + (double)t->usage * lost / q->decay_per_s;
}

/* Moves team k's usage and evictable units by the deltas at now, keeping
 * the running sums and the time integrals in step. */
static void fs__team_change(fs_quota *q, uint32_t k, int usage, int evictable, double now)
{
    fs_quota_team *t = &q->teams[k - 1];
    double dt = now - t->since;
    t->held_s += (double)t->usage * dt;
    t->borrowed_s += t->usage > t->nominal ? (double)(t->usage - t->nominal) * dt : 0;
    if (q->fair == FS_FAIR_USAGE)
        t->decayed_s = fs__decayed(q, t, now);
    t->since = now;
    q->lent[t->cohort] -= fs__lends(t);
    q->reclaimable -= fs__reclaimable(t);
    t->usage += (uint64_t)(int64_t)usage;
    t->evictable += (uint64_t)(int64_t)evictable;
    q->lent[t->cohort] += fs__lends(t);
    q->reclaimable += fs__reclaimable(t);
}

static bool fs__tenant(const fs_unit_rt *u)
{
    return u->kind == FS_HOLDER_TRAINING && (u->state == FS_UNIT_WARMING || u->state == FS_UNIT_HELD);
}

static bool fs__evictable(const fs_unit_rt *u)
{
    return u->kind == FS_HOLDER_TRAINING && u->state == FS_UNIT_HELD && u->preemptible;
}

void fs_quota_unit(fs_quota *q, const fs_unit_rt *was, const fs_unit_rt *next, double now)
{
    if (q->n_teams == 0)
        return;
    if (fs__tenant(was) && q->jobs[was->owner].team)
        fs__team_change(q, q->jobs[was->owner].team, -1, -(int)fs__evictable(was), now);
    if (fs__tenant(next) && q->jobs[next->owner].team)
        fs__team_change(q, q->jobs[next->owner].team, +1, (int)fs__evictable(next), now);
}

void fs_quota_granted(fs_quota *q, const fs_request *r)
{
    if (r->kind != FS_HOLDER_TRAINING)
        return;
    fs_quota_job *job = &q->jobs[r->owner];
    job->team = r->team;
    job->units = r->units;
    job->order = ++q->grants;
}

int fs_quota_room(fs_quota *q, uint32_t owner)
{
    size_t was = q->cap_jobs;
    fs_quota_job *jobs = fs_grow(q->jobs, &q->cap_jobs, (size_t)owner + 1, sizeof *jobs, 64);
    if (!jobs)
        return ENOMEM;
    memset(jobs + was, 0, (q->cap_jobs - was) * sizeof *jobs);
    q->jobs = jobs;
    return 0;
}

/* ---- reclaim -------------------------------------------------------------- */

/* Units of pool p that job `owner` holds (warming or running) and that fit r. */
static size_t fs__job_units(const fs_fleet *f, const fs_request *r, size_t p, uint32_t owner)
{
    const fs_pool_units *pu = &f->placement->pools[p];
    size_t n = 0;
    for (size_t u = 0; u < pu->n_units_max; u++)
        n += fs__tenant(&f->units[p][u]) && f->units[p][u].owner == owner && pu->units[u].memory_gb >= r->memory_gb;
    return n;
}

/* The running preemptible unit in pool p, fitting r, of the newest job
 * admitted before `before`, of r's lane or a lower one, whose team is of r's
 * cohort and above its nominal quota by the plan's usage; SIZE_MAX when
 * none. */
static size_t fs__newest_borrower(const fs_quota *q, const fs_request *r, size_t p, uint64_t before)
{
    const fs_fleet *f = q->fleet;
    const fs_pool_units *pu = &f->placement->pools[p];
    size_t at = SIZE_MAX;
    uint64_t newest = 0;
    for (size_t u = 0; u < pu->n_units_max; u++) {
        const fs_unit_rt *unit = &f->units[p][u];
        /* A job of a higher lane would be served before r and take its units
         * back: it is not reclaimed for r (tiered; one lane elsewhere). */
        if (!fs__evictable(unit) || pu->units[u].memory_gb < r->memory_gb || unit->lane < r->lane)
            continue;
        const fs_quota_job *job = &q->jobs[unit->owner];
        if (job->team == 0 || job->order >= before || job->order <= newest ||
            q->plan_usage[job->team - 1] <= q->teams[job->team - 1].nominal ||
            q->teams[job->team - 1].cohort != q->teams[r->team - 1].cohort)
            continue;
        newest = job->order;
        at = u;
    }
    return at;
}

size_t fs_quota_reclaim_victim(fs_quota *q, const fs_request *r, size_t p, size_t coming)
{
    if (!fs_quota_within(q, r) || q->reclaimable == 0 || coming >= r->units)
        return SIZE_MAX; /* only a team within its quota reclaims, and only when it must */
    /* Plan the whole reclaim first, newest admitted first, each victim's
     * team still above its quota once the victims before it are gone: only
     * a plan that makes room for the whole gang evicts anyone. */
    for (size_t k = 0; k < q->n_teams; k++)
        q->plan_usage[k] = q->teams[k].usage;
    size_t first = SIZE_MAX;
    uint64_t before = UINT64_MAX;
    while (coming < r->units) {
        size_t u = fs__newest_borrower(q, r, p, before);
        if (u == SIZE_MAX)
            return SIZE_MAX;
        uint32_t owner = q->fleet->units[p][u].owner;
        const fs_quota_job *job = &q->jobs[owner];
        if (first == SIZE_MAX)
            first = u;
        before = job->order;
        q->plan_usage[job->team - 1] -= job->units;
        coming += fs__job_units(q->fleet, r, p, owner);
    }
    return first;
}

void fs_quota_reclaimed(fs_quota *q, uint32_t owner)
{
    if (q->measuring && q->jobs[owner].team)
        q->teams[q->jobs[owner].team - 1].reclaimed++;
}

/* ---- reservations --------------------------------------------------------- */

/* Is the request `seq` of job `owner` still waiting in the queue? */
static bool fs__still_waiting(const fs_quota *q, uint32_t owner, uint64_t seq)
{
    return q->jobs[owner].asked == seq + 1 && fs_queue_owner_requests(q->fleet->queue, FS_HOLDER_TRAINING, owner) > 0;
}

/* Can its team ever hold this many units? */
static bool fs__may_ever_start(const fs_quota *q, const fs_request *r)
{
    return r->team == 0 || q->n_teams == 0 || r->units <= q->teams[r->team - 1].ceiling;
}

/* Reserves for the waiting request (owner, seq): it is in the queue. */
static void fs__reserve(fs_quota *q, uint32_t owner, uint64_t seq)
{
    const fs_fleet *f = q->fleet;
    const fs_queue *queue = f->queue;
    for (size_t i = 0; i < queue->n; i++) {
        const fs_request *r = &queue->items[i];
        if (r->kind != FS_HOLDER_TRAINING || r->owner != owner || r->seq != seq || !fs__may_ever_start(q, r))
            continue;
        q->reserved = true;
        q->reservation = *r;
        for (size_t p = 0; p < f->scenario->n_pools; p++)
            q->reserved_pool[p] = f->policy->eligible(f->scenario, r, p);
        return;
    }
}

/* The oldest overdue request still waiting gets the reservation. */
static void fs__reserve_next(fs_quota *q)
{
    while (!q->reserved && q->overdue_head < q->n_overdue) {
        struct fs_quota_overdue next = q->overdue[q->overdue_head++];
        if (fs__still_waiting(q, next.owner, next.seq))
            fs__reserve(q, next.owner, next.seq);
    }
    if (q->overdue_head == q->n_overdue)
        q->overdue_head = q->n_overdue = 0;
}

/* A request queued D ago: if it still waits, it reserves now, or after
 * those overdue before it. */
static void fs__on_overdue(fs_sim *sim, const fs_event *ev, void *ctx)
{
    fs_quota *q = ctx;
    uint32_t owner = ev->arg;
    uint64_t seq = (uint64_t)ev->data;
    if (!fs__still_waiting(q, owner, seq))
        return;
    struct fs_quota_overdue *list = fs_grow(q->overdue, &q->cap_overdue, q->n_overdue + 1, sizeof *list, 16);
    if (!list) {
        fs_sim_fail(sim, ENOMEM, "out of memory for reservations");
        return;
    }
    q->overdue = list;
    list[q->n_overdue++] = (struct fs_quota_overdue){owner, seq};
    fs__reserve_next(q);
}

void fs_quota_queued(fs_quota *q, const fs_request *r)
{
    if (q->reserve_after_s <= 0 || r->kind != FS_HOLDER_TRAINING)
        return;
    q->jobs[r->owner].asked = r->seq + 1;
    fs_sim *sim = q->fleet->sim;
    /* A seq is below 2^53 in any run: exact as a double. */
    fs_sim_schedule(sim, r->since + q->reserve_after_s, 1, q->kind_overdue, r->owner, (double)r->seq);
}

void fs_quota_left(fs_quota *q, const fs_request *r)
{
    if (!q->reserved || r->kind != FS_HOLDER_TRAINING || r->owner != q->reservation.owner ||
        r->seq != q->reservation.seq)
        return;
    q->reserved = false;
    q->released++;
    fs__reserve_next(q);
}

/* ---- fair sharing ---------------------------------------------------------- */

/* Team t's share now: what it borrows, or its decayed use, per weight. */
static double fs__share(const fs_quota *q, const fs_quota_team *t, double now)
{
    if (t->weight <= 0)
        return INFINITY;
    if (q->fair == FS_FAIR_USAGE)
        return fs__decayed(q, t, now) / t->weight;
    return t->usage > t->nominal ? (double)(t->usage - t->nominal) / t->weight : 0;
}

/* Does the fair order pick r's place (a training request of a team)? */
static bool fs__fair_place(const fs_request *r)
{
    return r->kind == FS_HOLDER_TRAINING && r->team != 0;
}

int fs_quota_fair_begin(fs_quota *q, const fs_queue *queue)
{
    if (queue->live > q->cap_snap) {
        size_t cap = queue->live + queue->live / 2 + 16;
        fs_request *snap = realloc(q->snap, cap * sizeof *snap);
        if (snap)
            q->snap = snap;
        size_t *next = realloc(q->snap_next, cap * sizeof *next);
        if (next)
            q->snap_next = next;
        if (!snap || !next)
            return ENOMEM;
        q->cap_snap = cap;
    }
    q->n_snap = q->pos = 0;
    for (size_t i = 0; i < queue->n; i++)
        if (fs_queue_is_live(queue, i))
            q->snap[q->n_snap++] = queue->items[i];
    /* Link each team's requests in queue order, from the back. */
    for (size_t k = 0; k < q->n_teams; k++)
        q->team_next[k] = SIZE_MAX;
    for (size_t i = q->n_snap; i-- > 0;) {
        const fs_request *r = &q->snap[i];
        if (!fs__fair_place(r))
            continue;
        q->snap_next[i] = q->team_next[r->team - 1];
        q->team_next[r->team - 1] = i;
    }
    return 0;
}

/* May c take the place of p: would the policy put c no later than p were
 * they asked at the same instant (a lower lane never takes a higher lane's
 * place; under first come first served any request takes any place)? */
static bool fs__may_take(const fs_quota *q, const fs_request *place, const fs_request *c)
{
    fs_request p = *place;
    p.seq = c->seq;
    p.since = c->since;
    return !q->fleet->policy->before(&p, c);
}

bool fs_quota_fair_next(fs_quota *q, fs_request *out)
{
    double now = q->fleet->sim->now;
    while (true) {
        /* Past the last place, requests whose places went to others (or
         * were skipped) are handed out in fair order all the same. */
        const fs_request *place = q->pos < q->n_snap ? &q->snap[q->pos++] : NULL;
        if (place && !fs__fair_place(place)) {
            *out = *place;
            return true;
        }
        /* The team with the lowest share among those whose next request may
         * take the place, its oldest request breaking ties. */
        double best_share = 0;
        size_t best = SIZE_MAX;
        for (size_t k = 0; k < q->n_teams; k++) {
            size_t i = q->team_next[k];
            if (i == SIZE_MAX || (place && !fs__may_take(q, place, &q->snap[i])))
                continue;
            double share = fs__share(q, &q->teams[k], now);
            if (best == SIZE_MAX || share < best_share || (share == best_share && i < q->team_next[best])) {
                best = k;
                best_share = share;
            }
        }
        if (best != SIZE_MAX) {
            size_t i = q->team_next[best];
            q->team_next[best] = q->snap_next[i];
            *out = q->snap[i];
            return true;
        }
        if (!place)
            return false;
    }
}

bool fs_quota_fair_hold(fs_quota *q, const fs_request *r)
{
    if (!fs__fair_place(r))
        return false;
    q->team_next[r->team - 1] = SIZE_MAX;
    return true;
}

/* ---- measuring ------------------------------------------------------------ */

void fs_quota_start_measuring(fs_quota *q, double now)
{
    q->measuring = true;
    for (size_t k = 0; k < q->n_teams; k++) {
        fs_quota_team *t = &q->teams[k];
        if (q->fair == FS_FAIR_USAGE) /* the decayed use goes on across the warm-up instant */
            t->decayed_s = fs__decayed(q, t, now);
        t->since = now;
        t->held_s = t->borrowed_s = 0;
        t->reclaimed = 0;
    }
}

void fs_quota_finish(fs_quota *q, double now, fs_quota_rep *out)
{
    for (size_t k = 0; k < q->n_teams; k++) {
        fs__team_change(q, (uint32_t)k + 1, 0, 0, now);
        out[k] = (fs_quota_rep){q->teams[k].held_s / 3600.0, q->teams[k].borrowed_s / 3600.0, q->teams[k].reclaimed};
    }
}

/* ---- lifecycle ------------------------------------------------------------ */

int fs_quota_create(fs_fleet *f, fs_quota **out)
{
    const fs_scenario *s = f->scenario;
    *out = NULL;
    if (s->n_quotas == 0 && s->reserve_after_s <= 0)
        return 0;
    fs_quota *q = calloc(1, sizeof *q);
    if (!q)
        return ENOMEM;
    *q = (fs_quota){.fleet = f, .reserve_after_s = s->reserve_after_s};
    q->n_teams = s->n_quotas ? s->n_quotas + 1 : 0;
    q->fair = q->n_teams ? s->fair_share : FS_FAIR_NONE;
    q->decay_per_s = s->fair_half_life_s > 0 ? log(2.0) / s->fair_half_life_s : 0;
    q->teams = calloc(q->n_teams + 1, sizeof *q->teams);
    q->plan_usage = calloc(q->n_teams + 1, sizeof *q->plan_usage);
    q->team_next = calloc(q->n_teams + 1, sizeof *q->team_next);
    q->lent = calloc(s->n_cohorts + 1, sizeof *q->lent);
    q->reserved_pool = calloc(s->n_pools + 1, sizeof *q->reserved_pool);
    int64_t kind = s->reserve_after_s > 0 ? fs_sim_register(f->sim, fs__on_overdue, q) : 0;
    if (!q->teams || !q->plan_usage || !q->team_next || !q->lent || !q->reserved_pool || kind < 0) {
        fs_quota_destroy(q);
        return ENOMEM;
    }
    q->kind_overdue = (uint32_t)kind;
    for (size_t k = 0; k < s->n_quotas; k++) {
        const fs_quota_spec *spec = &s->quotas[k];
        q->teams[k] = (fs_quota_team){.nominal = spec->gpus, .lend = spec->lend, .cohort = spec->cohort,
                                      .weight = spec->weight,
                                      .borrow = spec->borrow == FS_QUOTA_UNLIMITED ? UINT64_MAX : spec->borrow};
    }
    if (q->n_teams) /* "unlisted": nothing of its own, borrows what its cohort lends */
        q->teams[s->n_quotas] = (fs_quota_team){.borrow = UINT64_MAX, .weight = 1};
    for (size_t k = 0; k < q->n_teams; k++) {
        q->teams[k].ceiling = fs_scenario_quota_ceiling(s, (uint32_t)k + 1);
        q->lent[q->teams[k].cohort] += fs__lends(&q->teams[k]);
    }
    *out = q;
    return 0;
}

void fs_quota_destroy(fs_quota *q)
{
    if (!q)
        return;
    free(q->teams);
    free(q->plan_usage);
    free(q->team_next);
    free(q->lent);
    free(q->snap);
    free(q->snap_next);
    free(q->reserved_pool);
    free(q->jobs);
    free(q->overdue);
    free(q);
}

#include "fleet.h"
#include "fleet_share.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_randist.h>

#include "grow.h"
#include "holders.h"
#include "memsize.h"
#include "pick.h"
#include "policy.h"
#include "queue.h"
#include "quota.h"
#include "repartition.h"
#include "rng.h"

/* How often elastic pools look for idle GPUs to give back and serving pools
 * for headroom to restore.  Coarse on purpose: idle delays are minutes. */
#define FS__TICK_S 30.0

/* ---- switch costs ---------------------------------------------------------- */

/* Each pool switches tenants at the costs of its GPU type's profile. */
static const fs_switch_costs *fs__costs(const fs_scenario *s, size_t pool)
{
    return fs_scenario_switch_costs(s, s->pools[pool].gpu_type);
}

/* Sizes are GiB (2^30 bytes: every memory figure of a scenario, memsize.h)
 * and bandwidths GB/s (10^9 bytes a second, as the calibration measures and
 * reference/costs.md reports them): this many GB in one GiB. */
#define FS__GB_PER_GIB (FS_GIB / 1e9)

double fs_fleet_warmup_s(const fs_scenario *s, size_t pool, fs_warmup_kind kind, double gib)
{
    const fs_switch_costs *c = fs__costs(s, pool);
    const double gb = gib * FS__GB_PER_GIB;
    double base = c->context_s + c->framework_s + c->module_s;
    switch (kind) {
    case FS_WARMUP_REPLICA:
        return base + (c->storage_gbps > 0 ? gb / c->storage_gbps : 0) + c->inference_warmup_s;
    case FS_WARMUP_STATE_HOST:
        return base + (c->h2d_gbps > 0 ? gb / c->h2d_gbps : 0);
    case FS_WARMUP_STATE_STORAGE:
        break;
    }
    return base + (c->storage_gbps > 0 ? gb / c->storage_gbps : 0);
}

double fs_fleet_save_s(const fs_scenario *s, size_t pool, double gib)
{
    const fs_switch_costs *c = fs__costs(s, pool);
    return c->d2h_gbps > 0 ? gib * FS__GB_PER_GIB / c->d2h_gbps : 0;
}

/* ---- unit state changes (every one keeps the pool's levels in step) ------- */

static inline fs_unit_rt *fs__unit(fs_fleet *f, size_t pool, size_t u)
{
    return &f->units[pool][u];
}

/* A unit's share of the pool's counts (free, evicting, evictable). */
static void fs__count(fs_fleet *f, size_t pool, const fs_unit_rt *unit, int delta)
{
    if (unit->state == FS_UNIT_FREE)
        f->n_free[pool] += (size_t)delta;
    else if (unit->state == FS_UNIT_EVICTING)
        f->n_evicting[pool] += (size_t)delta;
    else if (unit->state == FS_UNIT_HELD && unit->preemptible) {
        f->n_evictable[pool] += (size_t)delta;
        f->n_evictable_all += (size_t)delta;
    }
}

/* Every change of a unit goes through here, so the counts stay exact.  A
 * unit turning free, or a tenant leaving (which gives its time-sliced GPU's
 * other seats room), may let a waiting request start: the queue is stale. */
static void fs__set(fs_fleet *f, size_t pool, fs_unit_rt *unit, fs_unit_rt next)
{
    bool was_tenant = unit->state == FS_UNIT_WARMING || unit->state == FS_UNIT_HELD;
    bool is_tenant = next.state == FS_UNIT_WARMING || next.state == FS_UNIT_HELD;
    bool was_job = was_tenant && unit->kind == FS_HOLDER_TRAINING;
    bool is_job = is_tenant && next.kind == FS_HOLDER_TRAINING;
    fs__count(f, pool, unit, -1);
    if ((next.state == FS_UNIT_FREE && unit->state != FS_UNIT_FREE) || (was_tenant && !is_tenant))
        f->stale = true;
    if ((was_job || is_job) && !f->held_scan && !(was_job && is_job && unit->owner == next.owner)) {
        uint32_t g = (uint32_t)(f->unit_base[pool] + (size_t)(unit - f->units[pool]));
        if (was_job)
            fs_holders_unlink(f->held, unit->owner, g);
        if (is_job && fs_holders_link(f->held, next.owner, g) != 0)
            f->held_scan = true; /* the index is now incomplete: stop using it */
    }
    if (f->quota)
        fs_quota_unit(f->quota, unit, &next, f->sim->now);
    *unit = next;
    fs__count(f, pool, unit, +1);
}

static void fs__set_state(fs_fleet *f, size_t pool, fs_unit_rt *unit, fs_unit_state state)
{
    fs_unit_rt next = *unit;
    next.state = state;
    fs__set(f, pool, unit, next);
}

static void fs__to_switching(fs_fleet *f, size_t pool, size_t u, fs_unit_state state, double until)
{
    fs_unit_rt *unit = fs__unit(f, pool, u);
    fs_pool_unit_switching(&f->pools[pool], f->sim->now, u, +1);
    fs__set_state(f, pool, unit, state);
    fs_sim_schedule(f->sim, until, 0, f->kind_switched, (uint32_t)u, (double)pool);
}

/* ---- requests ------------------------------------------------------------- */

/* Grants r its units, all at once: members[0 .. r->units - 1], of one pool
 * or several (a gang split across pools), slots first_slot onwards in that
 * order, each warming up at its own pool's cost; then the holder hears of
 * the grant, once. */
static void fs__grant(fs_fleet *f, const fs_request *r, const fs_pick_member *members)
{
    double now = f->sim->now;
    if (f->quota)
        fs_quota_granted(f->quota, r);
    fs_share_kind kind;
    double share = fs_fleet__share(f, r, &kind);
    for (uint32_t k = 0; k < r->units; k++) {
        size_t pool = members[k].pool, u = members[k].unit;
        if (f->scenario->pools[pool].partitioning == FS_PARTITION_FRACTIONAL)
            fs_pool_unit_tenant(&f->pools[pool], u, share, kind);
        fs__set(f, pool, fs__unit(f, pool, u),
                (fs_unit_rt){.state = FS_UNIT_FREE, .kind = r->kind, .owner = r->owner, .slot = r->first_slot + k,
                             .preemptible = r->preemptible, .lane = r->lane, .memory_gb = r->memory_gb});
        fs__to_switching(f, pool, u, FS_UNIT_WARMING,
                         now + fs_fleet_warmup_s(f->scenario, pool, r->warmup, r->warm_gb > 0 ? r->warm_gb : r->memory_gb));
    }
    const fs_holder_ops *ops = f->holder_ops[r->kind];
    if (ops && ops->granted)
        ops->granted(f->holder_ctx[r->kind], r->owner, now);
}

/* Evicts the holder of unit u of pool p: a training gang loses all its units
 * (the holder gives the others back from its `evicted` callback); a replica
 * loses its unit. */
static void fs__evict(fs_fleet *f, size_t pool, size_t u)
{
    fs_unit_rt *unit = fs__unit(f, pool, u);
    fs_holder_kind kind = unit->kind;
    const fs_holder_ops *ops = f->holder_ops[kind];
    if (ops && ops->evicted)
        ops->evicted(f->holder_ctx[kind], unit->owner, unit->slot, pool, u, f->sim->now);
}

/* May r evict the holder of unit u of pool p (held, preemptible, and the
 * policy says so)? */
static bool fs__evictable(const fs_fleet *f, const fs_request *r, size_t p, size_t u)
{
    const fs_unit_rt *unit = &f->units[p][u];
    return unit->state == FS_UNIT_HELD && unit->preemptible && f->policy->may_evict(f->scenario, r, p, unit);
}

/* Units of pool p that fit r and are free or being evicted. */
static size_t fs__coming(const fs_fleet *f, const fs_request *r, size_t p)
{
    const fs_pool_units *pu = &f->placement->pools[p];
    if (f->uniform[p])
        return pu->n_units_max && pu->units[0].memory_gb >= r->memory_gb ? f->n_free[p] + f->n_evicting[p] : 0;
    size_t coming = 0;
    for (size_t u = 0; u < pu->n_units_max; u++)
        coming += pu->units[u].memory_gb >= r->memory_gb &&
                  (f->units[p][u].state == FS_UNIT_FREE || f->units[p][u].state == FS_UNIT_EVICTING);
    return coming;
}

/* May r use pool p now: the policy lets it, and no other request's
 * reservation holds the pool (quota.h)? */
static bool fs__usable(const fs_fleet *f, const fs_request *r, size_t p)
{
    return f->policy->eligible(f->scenario, r, p) && !(f->quota && fs_quota_held_back(f->quota, r, p));
}

/* Reclaim (quota.h): r, within its team's nominal quota, evicts jobs of
 * teams above theirs, newest admitted first, in the first pool where that
 * makes room for its whole gang.  True when it evicted, or room is on its
 * way already: r waits for it. */
static bool fs__reclaim(fs_fleet *f, const fs_request *r)
{
    for (size_t p = 0; p < f->scenario->n_pools; p++) {
        if (!fs__usable(f, r, p))
            continue;
        size_t coming = fs__coming(f, r, p);
        if (coming >= r->units)
            return true;
        size_t victim = fs_quota_reclaim_victim(f->quota, r, p, coming);
        if (victim == SIZE_MAX)
            continue;
        /* One job at a time, planned again after each: an eviction calls
         * its holder back, which asks again meanwhile. */
        for (; victim != SIZE_MAX; victim = fs_quota_reclaim_victim(f->quota, r, p, fs__coming(f, r, p))) {
            fs_quota_reclaimed(f->quota, f->units[p][victim].owner);
            fs__evict(f, p, victim);
        }
        return true;
    }
    return false;
}

/* A gang that may split across pools (r->across_pools), when no one pool
 * has room for it: if the pools r may use have free units that fit it, r->units
 * of them together, it takes them in pool order, from each pool what fits
 * of what is still needed, best fit within the pool.  Free units only: it
 * never evicts anyone across pools.  Returns true when granted. */
static bool fs__try_across(fs_fleet *f, const fs_request *r)
{
    size_t n_pools = f->scenario->n_pools, fitting = 0, got = 0;
    for (size_t p = 0; p < n_pools && fitting < r->units; p++)
        if (f->n_free[p] > 0 && fs__usable(f, r, p))
            fitting += fs_pick_fitting(f, r, p);
    if (fitting < r->units)
        return false;
    for (size_t p = 0; p < n_pools && got < r->units; p++) {
        if (f->n_free[p] == 0 || !fs__usable(f, r, p))
            continue;
        size_t take = fs_pick_fitting(f, r, p);
        if (take > r->units - got)
            take = r->units - got;
        if (take > 0)
            got += fs_pick_in_pool(f, r, p, f->chosen + got, take);
    }
    /* Fewer only where a fractional pool's compute refused a unit its memory
     * fits (fs_pick_fitting counts memory): nothing was granted yet. */
    if (got < r->units)
        return false;
    fs__grant(f, r, f->chosen);
    return true;
}

/* Tries to serve r now: free units in an eligible pool, else (a gang that
 * may split) free units of several, else, if the policy lets r evict, units
 * of evictable holders in one pool (which become free after their eviction;
 * r stays pending until then).  With quotas, r must pass its team's quota
 * first, and may reclaim before the policy's eviction.  Returns true when
 * granted. */
static bool fs__try(fs_fleet *f, const fs_request *r)
{
    const fs_scenario *s = f->scenario;
    /* No pool holds more units than the largest (no pools together more
     * than all of them): such a request can never be served here (the
     * scenario loader and the training stream refuse it before it gets
     * this far). */
    fs_pick_member *chosen = f->chosen;
    if (r->units > (r->across_pools ? f->all_units : f->max_pool_units) ||
        (f->quota && !fs_quota_admits(f->quota, r)))
        return false;
    for (size_t p = 0; p < s->n_pools; p++) {
        if (f->n_free[p] < r->units || !fs__usable(f, r, p))
            continue;
        if (fs_pick_in_pool(f, r, p, chosen, r->units) == r->units) {
            fs__grant(f, r, chosen);
            return true;
        }
    }
    if (r->across_pools && fs__try_across(f, r))
        return true;
    if (f->quota && fs_quota_may_reclaim(f->quota) && fs_quota_within(f->quota, r) && fs__reclaim(f, r))
        return false;
    /* Eviction: count what is free, already being evicted, or evictable.
     * Only preemptible holders may be evicted (policy.h), so a pool holding
     * none has nothing to count. */
    for (size_t p = 0; p < s->n_pools; p++) {
        if (f->n_evictable[p] == 0 || !fs__usable(f, r, p))
            continue;
        const fs_pool_units *pu = &f->placement->pools[p];
        size_t coming = 0, evictable = 0;
        for (size_t u = 0; u < pu->n_units_max; u++) {
            const fs_unit_rt *unit = &f->units[p][u];
            if (pu->units[u].memory_gb < r->memory_gb)
                continue;
            if (unit->state == FS_UNIT_FREE || unit->state == FS_UNIT_EVICTING)
                coming++;
            else if (fs__evictable(f, r, p, u))
                evictable++;
        }
        if (coming >= r->units || coming + evictable < r->units)
            continue;
        /* Evict one holder at a time and count again: evicting one member of
         * a gang frees all of it.  No unit turns held meanwhile (only a
         * warm-up event does that), so the search for the next victim goes
         * on from the last one instead of starting over. */
        size_t from = 0;
        while (coming < r->units) {
            size_t victim = SIZE_MAX;
            for (size_t u = from; u < pu->n_units_max && victim == SIZE_MAX; u++)
                if (pu->units[u].memory_gb >= r->memory_gb && fs__evictable(f, r, p, u))
                    victim = u;
            if (victim == SIZE_MAX)
                break;
            fs__evict(f, p, victim);
            from = victim;
            coming = fs__coming(f, r, p);
        }
        return false;
    }
    return false;
}

/* ---- the queue ------------------------------------------------------------ */

/* Counts a gang of r->units in (+1) or out of (-1) by_size, sizes 0 ..
 * most and most + 1 for larger, keeping *min the smallest counted (most +
 * 1: none). */
static void fs__tally(uint32_t *by_size, size_t *min, size_t most, const fs_request *r, int delta)
{
    size_t size = r->units <= most ? r->units : most + 1;
    by_size[size] += (uint32_t)delta;
    if (delta > 0 && size < *min)
        *min = size;
    while (*min <= most && by_size[*min] == 0)
        (*min)++;
}

/* Counts r in (+1) or out of (-1) the waiting demand of each pool it may
 * use, and of the gangs that may split across pools. */
static void fs__want(fs_fleet *f, const fs_request *r, int delta)
{
    const fs_scenario *s = f->scenario;
    for (size_t p = 0; p < s->n_pools; p++) {
        if (!f->policy->eligible(s, r, p))
            continue;
        fs__tally(f->want[p], &f->want_min[p], f->max_pool_units, r, delta);
        f->want_units[p] += (uint64_t)(int64_t)delta * r->units;
    }
    if (r->across_pools)
        fs__tally(f->across_want, &f->across_min, f->all_units, r, delta);
}

/* Free units of every pool together, when a gang that may split across
 * pools waits and they could hold the smallest such gang; else 0.  O(pools),
 * only while such a gang waits. */
static size_t fs__free_across(const fs_fleet *f)
{
    if (f->across_min > f->all_units)
        return 0;
    size_t all = 0;
    for (size_t p = 0; p < f->scenario->n_pools; p++)
        all += f->n_free[p];
    return all >= f->across_min ? all : 0;
}

/* Can any waiting request start on free units?  Not while every pool has
 * fewer free units than the smallest gang waiting for it, and all the pools
 * together fewer than the smallest waiting gang that may split across
 * them. */
static bool fs__any_fits(const fs_fleet *f)
{
    for (size_t p = 0; p < f->scenario->n_pools; p++)
        if (f->n_free[p] >= f->want_min[p])
            return true;
    return fs__free_across(f) > 0;
}

/* May a request evict anyone now?  Only preemptible holders can go: by the
 * policy's leave, or by a reclaim (quota.h). */
static bool fs__may_evict_any(const fs_fleet *f)
{
    return (f->n_evictable_all > 0 && f->policy->may_evict != fs_policy_never_evict) ||
           (f->quota && fs_quota_may_reclaim(f->quota));
}

/* The most free units of a pool that some waiting gang may fit, or of all
 * pools together when a waiting gang that may split across them fits
 * those: no request asking for more can start. */
static uint32_t fs__most_free(const fs_fleet *f)
{
    size_t most = fs__free_across(f);
    for (size_t p = 0; p < f->scenario->n_pools; p++)
        if (f->n_free[p] >= f->want_min[p] && f->n_free[p] > most)
            most = f->n_free[p];
    return most < UINT32_MAX ? (uint32_t)most : UINT32_MAX;
}

/* Takes the waiting request in slot i out.  During a pass that evicts the
 * queue shifts at once, as such a pass expects (see fs__serve_pending).
 * Returns true when the slots after i moved down. */
static bool fs__remove_pending(fs_fleet *f, size_t i)
{
    fs__want(f, &f->queue->items[i], -1);
    if (f->quota)
        fs_quota_left(f->quota, &f->queue->items[i]);
    if (f->exact) {
        fs_queue_remove_shift(f->queue, i);
        return true;
    }
    fs_queue_remove(f->queue, i);
    return false;
}

static void fs__grow_elastic(fs_fleet *f);

/* A pass in fair order (quota.h): every waiting request is tried once, in
 * the order fs_quota_fair_next hands them out from a copy of the queue
 * taken as the pass begins, and found again in the queue by its ask number
 * (it may have been withdrawn meanwhile).  Evictions call holders back,
 * which may ask again: a request asked during the pass is not in the copy,
 * and a pass asked for during the pass would overwrite it, so either marks
 * the queue stale and fs__serve_pending runs another pass.  The walk is
 * one request at a time (f->exact) as for a pass that evicts.  Under head
 * of line a team's request that cannot start holds back that team's later
 * ones only; any other request stops the pass, as in the policy's order. */
static void fs__serve_fair(fs_fleet *f)
{
    fs_queue *q = f->queue;
    if (f->fair_pass) {
        f->stale = true;
        return;
    }
    f->stale = false;
    if (fs_quota_fair_begin(f->quota, q) != 0) {
        fs_sim_fail(f->sim, ENOMEM, "out of memory for fair sharing");
        return;
    }
    uint64_t asked = f->next_seq;
    f->fair_pass = true;
    f->exact++;
    fs_request r;
    while (fs_quota_fair_next(f->quota, &r)) {
        if (fs_queue_find(q, &r, f->policy->before) == q->n)
            continue;
        if (fs__try(f, &r))
            fs__remove_pending(f, fs_queue_find(q, &r, f->policy->before));
        else if (f->policy->head_of_line && !fs_quota_fair_hold(f->quota, &r))
            break;
    }
    f->exact--;
    f->fair_pass = false;
    f->stale |= f->next_seq != asked;
    fs_queue_tidy(q);
}

/* Serves waiting requests in the policy's order, as far as capacity allows.
 * A request that cannot be served blocks those behind it only under a
 * head-of-line policy; otherwise smaller requests behind it go first.
 *
 * While no one may be evicted, a request that cannot start has no effect:
 * the pass skips every request asking for more units than any pool has free
 * (fs_queue_next), and stops as soon as no waiting gang fits the free units
 * (fs__any_fits).  Otherwise evictions call holders back, which ask and
 * withdraw meanwhile: the pass walks the queue one request at a time as it
 * stands and shifts, exactly as the fleet always has, so that every
 * scenario's grants stay the same.  A request its quota or another's
 * reservation holds back (quota.h) is passed over like one that does not
 * fit, so it blocks those behind it only under head of line; a reclaim
 * evicts, so a fleet where one could happen is walked one request at a
 * time too. */
static void fs__serve_pass(fs_fleet *f)
{
    fs_queue *q = f->queue;
    if (f->quota && fs_quota_fair(f->quota)) {
        fs__serve_fair(f);
        return;
    }
    f->stale = false;
    if (f->exact || fs__may_evict_any(f)) {
        if (!f->exact)
            fs_queue_compact(q);
        f->exact++;
        for (size_t i = 0; i < q->n;) {
            fs_request r = q->items[i];
            if (fs__try(f, &r))
                fs__remove_pending(f, i);
            else if (f->policy->head_of_line)
                break;
            else
                i++;
        }
        f->exact--;
    } else if (fs__any_fits(f) && f->policy->head_of_line) {
        for (const fs_request *head; (head = fs_queue_first(q)) != NULL;) {
            fs_request r = *head;
            if (!fs__try(f, &r))
                break;
            fs__remove_pending(f, (size_t)(head - q->items));
        }
        fs_queue_tidy(q);
    } else if (fs__any_fits(f)) {
        uint32_t most = fs__most_free(f);
        for (size_t i = fs_queue_next(q, 0, most); i < q->n && fs__any_fits(f); i = fs_queue_next(q, i + 1, most)) {
            fs_request r = q->items[i];
            if (fs__try(f, &r)) {
                fs__remove_pending(f, i);
                most = fs__most_free(f);
            }
        }
        fs_queue_tidy(q);
    }
}

/* A pass, again while a reservation ended during it (quota.h): requests it
 * held back and the pass had gone by may start now. */
static void fs__serve_pending(fs_fleet *f)
{
    unsigned released;
    do {
        released = f->quota ? f->quota->released : 0;
        fs__serve_pass(f);
    } while (f->quota && (released != f->quota->released || (fs_quota_fair(f->quota) && f->stale)));
    fs__grow_elastic(f);
}

int fs_fleet_request(fs_fleet *f, const fs_request *req)
{
    fs_request r = *req;
    fs_queue *q = f->queue;
    if (f->quota && r.kind == FS_HOLDER_TRAINING && fs_quota_room(f->quota, r.owner) != 0)
        return ENOMEM;
    r.seq = f->next_seq++;
    r.since = f->sim->now;
    /* Earlier waiters the policy puts first keep their turn.  The queue is
     * sorted, so r goes first only if it goes before the first. */
    const fs_request *first = fs_queue_first(q);
    bool ahead = first && !f->policy->before(&r, first);
    if (!ahead && fs__try(f, &r))
        return 0;
    size_t at;
    if (fs_queue_insert(q, &r, f->policy->before, &at) != 0)
        return ENOMEM;
    fs__want(f, &r, +1);
    if (f->quota)
        fs_quota_queued(f->quota, &r);
    if (f->repart) /* a pool that re-partitions on demand times its wait */
        fs_repart_queued(f->repart, &r);
    if (!ahead) {
        fs__grow_elastic(f);
    } else if (f->stale || f->exact || fs__may_evict_any(f) || (f->quota && fs_quota_fair(f->quota))) {
        fs__serve_pending(f);
    } else {
        /* Nothing freed since the last pass, which left only requests that
         * cannot start (or, head of line, a head that cannot), and no one
         * may be evicted: a pass could serve only r. */
        bool first_now = fs_queue_first(q) == &q->items[at];
        if ((first_now || !f->policy->head_of_line) && fs__try(f, &r))
            fs__remove_pending(f, at);
        fs_queue_tidy(q);
        fs__grow_elastic(f);
    }
    return 0;
}

uint32_t fs_fleet_withdraw(fs_fleet *f, fs_holder_kind kind, uint32_t owner)
{
    fs_queue *q = f->queue;
    if (fs_queue_owner_requests(q, kind, owner) == 0)
        return 0;
    uint32_t n = 0;
    for (size_t i = 0; i < q->n;) {
        const fs_request *r = &q->items[i];
        if (r->kind == kind && r->owner == owner) {
            n += r->units;
            if (fs__remove_pending(f, i))
                continue;
        }
        i++;
    }
    /* Under head of line a withdrawn head lets the next one try. */
    f->stale = true;
    if (!f->exact)
        fs_queue_tidy(q);
    return n;
}

void fs_fleet_withdraw_slot(fs_fleet *f, fs_holder_kind kind, uint32_t owner, uint32_t slot)
{
    fs_queue *q = f->queue;
    if (fs_queue_owner_requests(q, kind, owner) == 0)
        return;
    for (size_t i = 0; i < q->n; i++) {
        const fs_request *r = &q->items[i];
        if (r->kind == kind && r->owner == owner && r->first_slot == slot) {
            fs__remove_pending(f, i);
            f->stale = true;
            if (!f->exact)
                fs_queue_tidy(q);
            return;
        }
    }
}

uint32_t fs_fleet_waiting_units(const fs_fleet *f, fs_holder_kind kind, uint32_t owner)
{
    const fs_queue *q = f->queue;
    if (kind != FS_HOLDER_NONE)
        return (uint32_t)fs_queue_owner_units(q, kind, owner);
    uint32_t n = 0;
    for (size_t i = 0; i < q->n; i++)
        if (fs_queue_is_live(q, i))
            n += q->items[i].units;
    return n;
}

void fs_fleet_release(fs_fleet *f, size_t pool, size_t u, double evict_s, double now)
{
    fs_unit_rt *unit = fs__unit(f, pool, u);
    if (unit->state == FS_UNIT_ABSENT || unit->state == FS_UNIT_FREE || unit->state == FS_UNIT_EVICTING)
        return; /* already gone: reclaimed, or given back twice */
    if (unit->state == FS_UNIT_WARMING) {
        /* Its warm-up event is still to come: it finds the unit evicting and
         * frees it then (the remaining warm-up time stands in for teardown). */
        fs__set_state(f, pool, unit, FS_UNIT_EVICTING);
        unit->kind = FS_HOLDER_NONE;
        return;
    }
    /* The holder goes after the state changes, so fs__set still sees whose
     * unit is leaving (the training index). */
    fs__to_switching(f, pool, u, FS_UNIT_EVICTING, now + evict_s);
    unit->kind = FS_HOLDER_NONE;
}

void fs_fleet_release_holder(fs_fleet *f, fs_holder_kind kind, uint32_t owner, double evict_s,
                             double now)
{
    fs_fleet_withdraw(f, kind, owner);
    if (kind == FS_HOLDER_TRAINING && !f->held_scan) {
        /* The job's units in pool-then-unit order, as the scan below meets
         * them, so events are scheduled in the same order; each is checked
         * again, since releasing one may let the queue take another. */
        size_t n = fs_holders_list(f->held, owner, f->held_units), p = 0;
        for (size_t i = 0; i < n; i++) {
            while (p + 1 < f->scenario->n_pools && f->held_units[i] >= f->unit_base[p + 1])
                p++;
            size_t u = f->held_units[i] - f->unit_base[p];
            const fs_unit_rt *unit = &f->units[p][u];
            if (unit->kind == kind && unit->owner == owner &&
                (unit->state == FS_UNIT_HELD || unit->state == FS_UNIT_WARMING))
                fs_fleet_release(f, p, u, evict_s, now);
        }
        return;
    }
    for (size_t p = 0; p < f->scenario->n_pools; p++) {
        for (size_t u = 0; u < f->placement->pools[p].n_units_max; u++) {
            const fs_unit_rt *unit = &f->units[p][u];
            if (unit->kind == kind && unit->owner == owner &&
                (unit->state == FS_UNIT_HELD || unit->state == FS_UNIT_WARMING))
                fs_fleet_release(f, p, u, evict_s, now);
        }
    }
}

/* ---- events ------------------------------------------------------------- */

static void fs__on_switched(fs_sim *sim, const fs_event *ev, void *ctx)
{
    fs_fleet *f = ctx;
    size_t pool = (size_t)ev->data, u = ev->arg;
    fs_unit_rt *unit = fs__unit(f, pool, u);
    if (unit->state != FS_UNIT_WARMING && unit->state != FS_UNIT_EVICTING)
        return; /* reclaimed meanwhile: the GPU is gone */
    fs_pool_unit_switching(&f->pools[pool], sim->now, u, -1);
    if (unit->state == FS_UNIT_WARMING) {
        fs__set_state(f, pool, unit, FS_UNIT_HELD);
        const fs_holder_ops *ops = f->holder_ops[unit->kind];
        if (ops && ops->ready)
            ops->ready(f->holder_ctx[unit->kind], unit->owner, unit->slot, pool, u, sim->now);
        return;
    }
    fs__set(f, pool, unit, (fs_unit_rt){.state = FS_UNIT_FREE});
    if (f->repart) /* on a GPU changing MIG layout it goes absent instead */
        fs_repart_unit_freed(f->repart, pool, u);
    fs__serve_pending(f);
}

void fs_fleet__set_state(fs_fleet *f, size_t pool, size_t u, fs_unit_state state)
{
    fs__set(f, pool, fs__unit(f, pool, u), (fs_unit_rt){.state = state});
}

void fs_fleet__serve(fs_fleet *f)
{
    fs__serve_pending(f);
}

/* ---- elastic pools and spot ---------------------------------------------- */

static void fs__schedule_reclaim(fs_fleet *f, size_t pool, uint32_t gpu)
{
    double rate = f->scenario->pools[pool].reclaim_per_gpu_hour / 3600.0;
    if (rate <= 0)
        return;
    double at = f->sim->now + gsl_ran_exponential(f->rng, 1.0 / rate);
    f->gpus[pool][gpu].reclaim_at = at;
    if (at <= f->horizon)
        fs_sim_schedule(f->sim, at, 0, f->kind_reclaim, gpu, (double)pool);
}

static void fs__gpu_units(fs_fleet *f, size_t pool, uint32_t gpu, size_t *first, size_t *count)
{
    *count = fs_pick_per_gpu(f, pool);
    *first = (size_t)gpu * *count;
}

static void fs__gpu_arrives(fs_fleet *f, size_t pool, uint32_t gpu)
{
    size_t first, count;
    fs__gpu_units(f, pool, gpu, &first, &count);
    f->gpus[pool][gpu] = (fs_gpu_rt){.present = true, .idle_since = f->sim->now};
    f->present_gpus[pool]++;
    fs_pool_gpus_present(&f->pools[pool], f->sim->now, +1);
    for (size_t u = first; u < first + count; u++)
        fs__set(f, pool, &f->units[pool][u], (fs_unit_rt){.state = FS_UNIT_FREE});
    fs__schedule_reclaim(f, pool, gpu);
}

static void fs__gpu_leaves(fs_fleet *f, size_t pool, uint32_t gpu)
{
    size_t first, count;
    fs__gpu_units(f, pool, gpu, &first, &count);
    for (size_t u = first; u < first + count; u++) {
        fs_unit_rt *unit = &f->units[pool][u];
        if (unit->state == FS_UNIT_HELD || unit->state == FS_UNIT_WARMING)
            fs__evict(f, pool, u); /* the holder gives it back; it is taken at once below */
        if (unit->state == FS_UNIT_WARMING || unit->state == FS_UNIT_EVICTING)
            fs_pool_unit_switching(&f->pools[pool], f->sim->now, u, -1);
        fs__set(f, pool, unit, (fs_unit_rt){.state = FS_UNIT_ABSENT});
    }
    f->gpus[pool][gpu] = (fs_gpu_rt){.idle_since = -1};
    f->present_gpus[pool]--;
    fs_pool_gpus_present(&f->pools[pool], f->sim->now, -1);
}

static void fs__on_provisioned(fs_sim *sim, const fs_event *ev, void *ctx)
{
    (void)sim;
    fs_fleet *f = ctx;
    size_t pool = (size_t)ev->data;
    uint32_t gpu = ev->arg;
    f->provisioning_gpus[pool]--;
    fs__gpu_arrives(f, pool, gpu);
    fs__serve_pending(f);
}

static void fs__on_reclaim(fs_sim *sim, const fs_event *ev, void *ctx)
{
    fs_fleet *f = ctx;
    size_t pool = (size_t)ev->data;
    uint32_t gpu = ev->arg;
    if (!f->gpus[pool][gpu].present || f->gpus[pool][gpu].reclaim_at != sim->now)
        return; /* gone, or drawn for a stay that ended when it was given back idle */
    f->reclaims++;
    fs__gpu_leaves(f, pool, gpu);
    fs__serve_pending(f);
}

static void fs__provision(fs_fleet *f, size_t pool, uint32_t n)
{
    const fs_pool_spec *spec = &f->scenario->pools[pool];
    for (uint32_t g = 0; g < spec->max_gpus && n > 0; g++) {
        fs_gpu_rt *gpu = &f->gpus[pool][g];
        if (gpu->present || gpu->provisioning)
            continue;
        gpu->provisioning = true;
        f->provisioning_gpus[pool]++;
        double delay = fs_dist_sample(&spec->provision_delay, f->rng);
        fs_sim_schedule(f->sim, f->sim->now + delay, 0, f->kind_provisioned, g, (double)pool);
        n--;
    }
}

/* Grows elastic pools for waiting requests they could serve (units asked for
 * minus units already on their way), and serving pools to the policy's
 * headroom target. */
static void fs__grow_elastic(fs_fleet *f)
{
    const fs_scenario *s = f->scenario;
    for (size_t p = 0; p < s->n_pools; p++) {
        const fs_pool_spec *spec = &s->pools[p];
        if (!spec->elastic)
            continue;
        uint32_t room = spec->max_gpus - f->present_gpus[p] - f->provisioning_gpus[p];
        if (room == 0)
            continue;
        size_t per_gpu = fs_pick_per_gpu(f, p);
        uint64_t wanted = f->want_units[p], free_units = f->n_free[p] + f->n_evicting[p];
        /* What waits, less what is free (or about to be) and what is on its way. */
        uint64_t coming = (uint64_t)f->provisioning_gpus[p] * per_gpu + free_units;
        uint32_t gpus = 0;
        if (wanted > coming)
            gpus = (uint32_t)((wanted - coming + per_gpu - 1) / per_gpu);
        double headroom = f->policy->serving_headroom(s);
        if (headroom > 0 && spec->class == FS_CLASS_SERVING) {
            size_t present_units = (size_t)f->present_gpus[p] * per_gpu;
            double on_way = (double)f->provisioning_gpus[p] * per_gpu;
            double target = headroom * ((double)present_units + on_way);
            if ((double)free_units + on_way < target) {
                double short_units = target - ((double)free_units + on_way);
                uint32_t more = (uint32_t)ceil(short_units / (1.0 - headroom) / (double)per_gpu);
                if (more > gpus)
                    gpus = more;
            }
        }
        fs__provision(f, p, gpus < room ? gpus : room);
    }
}

/* Every FS__TICK_S: gives back elastic GPUs idle for their idle delay (down
 * to the pool's minimum) and keeps serving headroom. */
static void fs__on_tick(fs_sim *sim, const fs_event *ev, void *ctx)
{
    (void)ev;
    fs_fleet *f = ctx;
    const fs_scenario *s = f->scenario;
    double now = sim->now;
    for (size_t p = 0; p < s->n_pools; p++) {
        const fs_pool_spec *spec = &s->pools[p];
        if (!spec->elastic)
            continue;
        for (uint32_t g = 0; g < spec->max_gpus; g++) {
            fs_gpu_rt *gpu = &f->gpus[p][g];
            if (!gpu->present)
                continue;
            size_t first, count;
            fs__gpu_units(f, p, g, &first, &count);
            bool all_free = true;
            for (size_t u = first; u < first + count && all_free; u++)
                all_free = f->units[p][u].state == FS_UNIT_FREE;
            if (!all_free) {
                gpu->idle_since = -1;
                continue;
            }
            if (gpu->idle_since < 0)
                gpu->idle_since = now;
            bool keep_for_headroom = f->policy->serving_headroom(s) > 0 && spec->class == FS_CLASS_SERVING;
            if (now - gpu->idle_since >= spec->idle_release_s && f->present_gpus[p] > spec->min_gpus &&
                !keep_for_headroom)
                fs__gpu_leaves(f, p, g);
        }
    }
    fs__grow_elastic(f);
    if (now + FS__TICK_S <= f->horizon)
        fs_sim_schedule(sim, now + FS__TICK_S, 0, f->kind_tick, 0, 0);
}

/* ---- lifecycle ------------------------------------------------------------ */

void fs_fleet_set_holder(fs_fleet *f, fs_holder_kind kind, const fs_holder_ops *ops, void *ctx)
{
    f->holder_ops[kind] = ops;
    f->holder_ctx[kind] = ctx;
}

int fs_fleet_init(fs_fleet *f, const fs_scenario *s, const fs_placement *placement,
                  const fs_policy_ops *policy, fs_sim *sim, fs_pool *pools, uint64_t seed,
                  uint32_t replication)
{
    *f = (fs_fleet){.scenario = s, .placement = placement, .policy = policy, .sim = sim,
                    .pools = pools, .horizon = s->horizon_s};
    size_t n = s->n_pools ? s->n_pools : 1;
    f->units = calloc(n, sizeof *f->units);
    f->gpus = calloc(n, sizeof *f->gpus);
    f->present_gpus = calloc(n, sizeof *f->present_gpus);
    f->provisioning_gpus = calloc(n, sizeof *f->provisioning_gpus);
    f->rng = fs_rng_create(seed, replication, "fleet");
    for (size_t p = 0; p < s->n_pools; p++) {
        f->all_units += placement->pools[p].n_units_max;
        if (placement->pools[p].n_units_max > f->max_pool_units)
            f->max_pool_units = placement->pools[p].n_units_max;
    }
    size_t most = f->max_pool_units ? f->max_pool_units : 1;
    f->chosen = malloc((f->all_units ? f->all_units : 1) * sizeof *f->chosen);
    f->candidates = malloc(most * sizeof *f->candidates);
    /* Gang sizes 0 .. all_units, and one more for "larger". */
    f->across_want = calloc(f->all_units + 2, sizeof *f->across_want);
    f->across_min = f->all_units + 1;
    f->n_free = calloc(n, sizeof *f->n_free);
    f->n_evicting = calloc(n, sizeof *f->n_evicting);
    f->n_evictable = calloc(n, sizeof *f->n_evictable);
    f->uniform = calloc(n, sizeof *f->uniform);
    f->want = calloc(n, sizeof *f->want);
    f->want_min = calloc(n, sizeof *f->want_min);
    f->want_units = calloc(n, sizeof *f->want_units);
    f->stale = true;
    f->unit_base = calloc(n + 1, sizeof *f->unit_base);
    for (size_t p = 0; f->unit_base && p < s->n_pools; p++)
        f->unit_base[p + 1] = f->unit_base[p] + placement->pools[p].n_units_max;
    f->held = malloc(sizeof *f->held);
    if (f->held && f->unit_base && fs_holders_init(f->held, f->unit_base[s->n_pools]) != 0) {
        free(f->held);
        f->held = NULL;
    }
    f->held_units = f->unit_base ? malloc((f->unit_base[s->n_pools] + 1) * sizeof *f->held_units) : NULL;
    f->queue = malloc(sizeof *f->queue);
    if (f->queue)
        fs_queue_init(f->queue);
    if (!f->queue || !f->units || !f->gpus || !f->present_gpus || !f->provisioning_gpus || !f->rng || !f->chosen ||
        !f->candidates || !f->n_free || !f->n_evicting || !f->n_evictable || !f->uniform || !f->want ||
        !f->want_min || !f->want_units || !f->across_want || !f->unit_base || !f->held || !f->held_units)
        goto nomem;
    int64_t k_sw = fs_sim_register(sim, fs__on_switched, f);
    int64_t k_pr = fs_sim_register(sim, fs__on_provisioned, f);
    int64_t k_tk = fs_sim_register(sim, fs__on_tick, f);
    int64_t k_rc = fs_sim_register(sim, fs__on_reclaim, f);
    if (k_sw < 0 || k_pr < 0 || k_tk < 0 || k_rc < 0)
        goto nomem;
    f->kind_switched = (uint32_t)k_sw;
    f->kind_provisioned = (uint32_t)k_pr;
    f->kind_tick = (uint32_t)k_tk;
    f->kind_reclaim = (uint32_t)k_rc;
    if (fs_quota_create(f, &f->quota) != 0)
        goto nomem;
    bool any_elastic = false;
    for (size_t p = 0; p < s->n_pools; p++) {
        const fs_pool_spec *spec = &s->pools[p];
        const fs_pool_units *pu = &placement->pools[p];
        uint32_t max_gpus = spec->max_gpus > spec->gpus ? spec->max_gpus : spec->gpus;
        f->units[p] = calloc(pu->n_units_max ? pu->n_units_max : 1, sizeof **f->units);
        f->gpus[p] = calloc(max_gpus, sizeof **f->gpus);
        /* Gang sizes 0 .. max_pool_units, and one more for "larger". */
        f->want[p] = calloc(f->max_pool_units + 2, sizeof **f->want);
        if (!f->units[p] || !f->gpus[p] || !f->want[p])
            goto nomem;
        f->want_min[p] = f->max_pool_units + 1;
        f->uniform[p] = !fs_pool_shared(spec);
        for (size_t u = 1; u < pu->n_units_max; u++)
            f->uniform[p] &= pu->units[u].memory_gb == pu->units[0].memory_gb && pu->units[u].sms == pu->units[0].sms;
        for (size_t u = 0; u < pu->n_units_max; u++) {
            const fs_unit *unit = &pu->units[u];
            fs_unit_rt *rt = &f->units[p][u];
            if (unit->gpu >= spec->gpus || !fs_unit_at_start(spec, unit)) {
                rt->state = FS_UNIT_ABSENT;
            } else if (u < pu->n_units && unit->service != FS_UNPLACED) {
                *rt = (fs_unit_rt){.state = FS_UNIT_HELD, .kind = FS_HOLDER_SERVICE,
                                   .owner = (uint32_t)unit->service, .slot = unit->replica,
                                   .memory_gb = s->services[unit->service].memory_gb};
                if (spec->partitioning == FS_PARTITION_FRACTIONAL)
                    fs_pool_unit_tenant(&pools[p], u, unit->compute_share, s->services[unit->service].share_kind);
            } else {
                rt->state = FS_UNIT_FREE;
            }
            fs__count(f, p, rt, +1);
        }
        for (uint32_t g = 0; g < max_gpus; g++)
            f->gpus[p][g] = (fs_gpu_rt){.present = g < spec->gpus, .idle_since = -1};
        f->present_gpus[p] = spec->gpus;
        any_elastic |= spec->elastic;
        for (uint32_t g = 0; g < spec->gpus; g++)
            fs__schedule_reclaim(f, p, g);
    }
    if (any_elastic && FS__TICK_S <= s->horizon_s)
        fs_sim_schedule(sim, FS__TICK_S, 0, f->kind_tick, 0, 0);
    if (fs_repart_create(f, &f->repart) != 0)
        goto nomem;
    return 0;
nomem:
    fs_fleet_fini(f);
    return ENOMEM;
}

void fs_fleet_fini(fs_fleet *f)
{
    for (size_t p = 0; f->scenario && p < f->scenario->n_pools; p++) {
        if (f->units)
            free(f->units[p]);
        if (f->gpus)
            free(f->gpus[p]);
        if (f->want)
            free(f->want[p]);
    }
    free(f->units);
    free(f->gpus);
    free(f->present_gpus);
    free(f->provisioning_gpus);
    if (f->queue)
        fs_queue_fini(f->queue);
    free(f->queue);
    free(f->chosen);
    free(f->candidates);
    free(f->n_free);
    free(f->n_evicting);
    free(f->n_evictable);
    free(f->uniform);
    free(f->want);
    free(f->want_min);
    free(f->want_units);
    free(f->across_want);
    if (f->held)
        fs_holders_fini(f->held);
    free(f->held);
    free(f->unit_base);
    free(f->held_units);
    fs_quota_destroy(f->quota);
    fs_repart_destroy(f->repart);
    fs_rng_destroy(f->rng);
    *f = (fs_fleet){0};
}

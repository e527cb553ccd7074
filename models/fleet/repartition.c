/*
 * repartition — switching a pool's GPUs between MIG layouts on a schedule
 * (repartition.h).
 */
#include "repartition.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "pick.h"
#include "policy.h"
#include "queue.h"

#define FS__DAY_S 86400.0
#define FS__NONE UINT32_MAX
/* Requests weighed by one on-demand decision, the first in the policy's
 * order: a GPU holds at most FS_MIG_MAX_INSTANCES units, so later ones
 * rarely change which layout holds most (a bound, to keep fixed memory). */
#define FS__MAX_STUCK 64

typedef enum fs__phase {
    FS__STEADY,    /* its layout's units present */
    FS__DRAINING,  /* waiting for its layout's units to be given back */
    FS__SWITCHING  /* reconfiguring: no unit present */
} fs__phase;

typedef struct fs__gpu {
    uint16_t active;  /* the layout in force (switching: the one it becomes) */
    uint16_t target;  /* the layout the schedule asks for */
    uint8_t phase;    /* fs__phase */
} fs__gpu;

typedef struct fs__pool {
    const fs_mig_plan *plan;                       /* NULL: this pool never switches */
    size_t first[FS_SCENARIO_MAX_MIG_LAYOUTS + 1]; /* each layout's first unit on a GPU, and the end */
    uint32_t n_gpus;
    fs__gpu *gpus;
    size_t next;                                   /* schedule entry of the next switch */
    uint64_t day;                                  /* ... on this day */
    /* On demand (plan->on_demand_after_s > 0): */
    uint32_t od_gpu;                               /* the GPU switching on demand; FS__NONE: none */
    double sched_at;                               /* the last scheduled instant (0: none yet) */
    double check_at;                               /* a check scheduled for now at this time; -1: none */
} fs__pool;

/* A gang weighed by an on-demand decision: a tenant (1 unit) or a request. */
typedef struct fs__item {
    uint32_t units;
    double memory_gb;
} fs__item;

struct fs_repart {
    fs_fleet *fleet;
    fs__pool *pools;
    uint32_t kind_scheduled, kind_switched, kind_check;
    fs__item items[FS_MIG_MAX_INSTANCES + FS__MAX_STUCK]; /* scratch: a GPU's tenants, then the stuck */
};

static void fs__check_at(fs_repart *r, size_t p, double at);

/* Unit k of layout `layout` on GPU g of the pool. */
static size_t fs__unit(const fs__pool *pool, uint32_t g, size_t layout, size_t k)
{
    return (size_t)g * pool->first[pool->plan->n_layouts] + pool->first[layout] + k;
}

static size_t fs__layout_units(const fs__pool *pool, size_t layout)
{
    return pool->first[layout + 1] - pool->first[layout];
}

/* Sets every unit of GPU g's active layout that is in state `from` to `to`. */
static void fs__set_active(fs_repart *r, size_t p, uint32_t g, fs_unit_state from, fs_unit_state to)
{
    const fs__pool *pool = &r->pools[p];
    size_t layout = pool->gpus[g].active;
    for (size_t k = 0; k < fs__layout_units(pool, layout); k++) {
        size_t u = fs__unit(pool, g, layout, k);
        if (r->fleet->units[p][u].state == from)
            fs_fleet__set_state(r->fleet, p, u, to);
    }
}

/* Every unit of GPU g's active layout absent: nothing left to wait for. */
static bool fs__empty(const fs_repart *r, size_t p, uint32_t g)
{
    const fs__pool *pool = &r->pools[p];
    size_t layout = pool->gpus[g].active;
    for (size_t k = 0; k < fs__layout_units(pool, layout); k++)
        if (r->fleet->units[p][fs__unit(pool, g, layout, k)].state != FS_UNIT_ABSENT)
            return false;
    return true;
}

/* GPU g is empty: it reconfigures into its target layout. */
static void fs__begin_switch(fs_repart *r, size_t p, uint32_t g)
{
    fs_fleet *f = r->fleet;
    fs__gpu *gpu = &r->pools[p].gpus[g];
    gpu->phase = FS__SWITCHING;
    gpu->active = gpu->target;
    fs_pool_gpu_reconfiguring(&f->pools[p], f->sim->now, +1);
    fs_sim_schedule(f->sim, f->sim->now + r->pools[p].plan->reconfigure_s, 0, r->kind_switched, g, (double)p);
}

/* Moves the tenant of unit u off its GPU, if it can be: a service replica
 * gives the unit back and asks again (`moved`); a preemptible training job
 * is evicted, its whole gang.  Anyone else is waited for. */
static void fs__move_out(fs_fleet *f, size_t p, size_t u)
{
    const fs_unit_rt *unit = &f->units[p][u];
    if (unit->state != FS_UNIT_HELD && unit->state != FS_UNIT_WARMING)
        return;
    const fs_holder_ops *ops = f->holder_ops[unit->kind];
    void *ctx = f->holder_ctx[unit->kind];
    if (ops == NULL)
        return;
    if (unit->kind == FS_HOLDER_SERVICE && ops->moved)
        ops->moved(ctx, unit->owner, unit->slot, p, u, f->sim->now);
    else if (unit->kind == FS_HOLDER_TRAINING && unit->preemptible && ops->evicted)
        ops->evicted(ctx, unit->owner, unit->slot, p, u, f->sim->now);
}

/* The schedule asks pool p for `layout`.  Every GPU in another layout drains
 * (all of them first, so a tenant moved off one does not land on the next
 * about to drain), its tenants moved out with "evict"; an empty one switches
 * at once.  A draining GPU asked for its own layout again stops draining. */
static void fs__retarget(fs_repart *r, size_t p, size_t layout)
{
    fs__pool *pool = &r->pools[p];
    for (uint32_t g = 0; g < pool->n_gpus; g++) {
        fs__gpu *gpu = &pool->gpus[g];
        gpu->target = (uint16_t)layout;
        if (gpu->phase == FS__STEADY && gpu->active != layout) {
            gpu->phase = FS__DRAINING;
            fs__set_active(r, p, g, FS_UNIT_FREE, FS_UNIT_ABSENT);
        } else if (gpu->phase == FS__DRAINING && gpu->active == layout) {
            gpu->phase = FS__STEADY;
            fs__set_active(r, p, g, FS_UNIT_ABSENT, FS_UNIT_FREE);
            if (pool->od_gpu == g) /* an on-demand drain the schedule undoes */
                pool->od_gpu = FS__NONE;
        }
    }
    for (uint32_t g = 0; pool->plan->drain == FS_MIG_DRAIN_EVICT && g < pool->n_gpus; g++) {
        size_t active = pool->gpus[g].active;
        for (size_t k = 0; pool->gpus[g].phase == FS__DRAINING && k < fs__layout_units(pool, active); k++)
            fs__move_out(r->fleet, p, fs__unit(pool, g, active, k));
    }
    for (uint32_t g = 0; g < pool->n_gpus; g++)
        if (pool->gpus[g].phase == FS__DRAINING && fs__empty(r, p, g))
            fs__begin_switch(r, p, g);
    fs_fleet__serve(r->fleet);
}

/* Schedules pool p's next switch: its next schedule entry after now. */
static void fs__schedule_next(fs_repart *r, size_t p)
{
    fs__pool *pool = &r->pools[p];
    fs_fleet *f = r->fleet;
    double at = (double)pool->day * FS__DAY_S + pool->plan->schedule[pool->next].at_s;
    if (at <= f->horizon)
        fs_sim_schedule(f->sim, at, 0, r->kind_scheduled, (uint32_t)pool->next, (double)p);
}

static void fs__on_scheduled(fs_sim *sim, const fs_event *ev, void *ctx)
{
    fs_repart *r = ctx;
    size_t p = (size_t)ev->data;
    fs__pool *pool = &r->pools[p];
    size_t layout = pool->plan->schedule[ev->arg].layout;
    if (++pool->next == pool->plan->n_schedule) {
        pool->next = 0;
        pool->day++;
    }
    fs__schedule_next(r, p);
    pool->sched_at = sim->now;
    if (pool->plan->on_demand_after_s > 0)
        fs__check_at(r, p, sim->now + pool->plan->on_demand_after_s);
    fs__retarget(r, p, layout);
}

/* GPU g has reconfigured: its new layout's units are free; if the schedule
 * has moved on meanwhile, it drains again (it is empty: it switches again). */
static void fs__on_switched(fs_sim *sim, const fs_event *ev, void *ctx)
{
    fs_repart *r = ctx;
    size_t p = (size_t)ev->data;
    uint32_t g = ev->arg;
    fs__pool *pool = &r->pools[p];
    fs__gpu *gpu = &pool->gpus[g];
    fs_pool_gpu_reconfiguring(&r->fleet->pools[p], sim->now, -1);
    gpu->phase = FS__STEADY;
    fs__set_active(r, p, g, FS_UNIT_ABSENT, FS_UNIT_FREE);
    if (gpu->target != gpu->active) {
        gpu->phase = FS__DRAINING;
        fs__set_active(r, p, g, FS_UNIT_FREE, FS_UNIT_ABSENT);
        fs__begin_switch(r, p, g);
    }
    if (gpu->phase == FS__STEADY && pool->od_gpu == g)
        pool->od_gpu = FS__NONE;
    fs_fleet__serve(r->fleet);
    if (pool->od_gpu == FS__NONE) /* requests may still wait for another layout */
        fs__check_at(r, p, sim->now);
}

/* ---- on demand -------------------------------------------------------------- */

/* Looks at pool p's waiting requests at `at` (an event, so after what runs
 * now); checks asked for the same instant run once. */
static void fs__check_at(fs_repart *r, size_t p, double at)
{
    fs__pool *pool = &r->pools[p];
    fs_fleet *f = r->fleet;
    if (pool->plan == NULL || pool->plan->on_demand_after_s <= 0 || at > f->horizon || pool->check_at == at)
        return;
    pool->check_at = at;
    fs_sim_schedule(f->sim, at, 0, r->kind_check, 0, (double)p);
}

/* Has req waited for pool p long enough, with no free unit of the layouts
 * in force that fits it?  Its wait counts from its ask, or from the pool's
 * last scheduled instant if that came later. */
static bool fs__stuck(const fs_repart *r, size_t p, const fs_request *req)
{
    const fs_fleet *f = r->fleet;
    const fs__pool *pool = &r->pools[p];
    double from = req->since > pool->sched_at ? req->since : pool->sched_at;
    return from + pool->plan->on_demand_after_s <= f->sim->now && f->policy->eligible(f->scenario, req, p) &&
           fs_pick_fitting(f, req, p) < req->units;
}

/* How many units one GPU in `layout` would hold of items[0 .. n - 1], in
 * order: each member on the smallest unit left that fits its memory; a gang
 * whole or not at all, except one larger than the layout, which takes what
 * fits (its other members would come from other GPUs).  O(n x units^2),
 * units <= FS_MIG_MAX_INSTANCES. */
static uint32_t fs__hold(const fs_repart *r, size_t p, size_t layout, const fs__item *items, size_t n)
{
    const fs__pool *pool = &r->pools[p];
    const fs_unit *units = r->fleet->placement->pools[p].units;
    size_t m = fs__layout_units(pool, layout);
    bool used[FS_MIG_MAX_INSTANCES] = {false};
    size_t took[FS_MIG_MAX_INSTANCES];
    uint32_t held = 0;
    for (size_t i = 0; i < n && held < m; i++) {
        size_t k = 0;
        for (uint32_t j = 0; j < items[i].units && k < m; j++) {
            size_t best = SIZE_MAX;
            for (size_t x = 0; x < m; x++) {
                double mem = units[fs__unit(pool, 0, layout, x)].memory_gb;
                if (!used[x] && mem >= items[i].memory_gb &&
                    (best == SIZE_MAX || mem < units[fs__unit(pool, 0, layout, best)].memory_gb))
                    best = x;
            }
            if (best == SIZE_MAX)
                break;
            used[best] = true;
            took[k++] = best;
        }
        if (k < items[i].units && items[i].units <= m) {
            while (k > 0)
                used[took[--k]] = false;
        }
        held += (uint32_t)k;
    }
    return held;
}

/* GPU g of pool p switches on demand to `layout`: it drains as at a
 * scheduled instant, the pool's one on-demand switch until it is steady. */
static void fs__switch_on_demand(fs_repart *r, size_t p, uint32_t g, size_t layout)
{
    fs__pool *pool = &r->pools[p];
    fs__gpu *gpu = &pool->gpus[g];
    pool->od_gpu = g;
    gpu->target = (uint16_t)layout;
    gpu->phase = FS__DRAINING;
    fs__set_active(r, p, g, FS_UNIT_FREE, FS_UNIT_ABSENT);
    for (size_t k = 0; pool->plan->drain == FS_MIG_DRAIN_EVICT && k < fs__layout_units(pool, gpu->active); k++)
        fs__move_out(r->fleet, p, fs__unit(pool, g, gpu->active, k));
    if (fs__empty(r, p, g))
        fs__begin_switch(r, p, g);
    fs_fleet__serve(r->fleet);
}

/* The on-demand rule, for pool p with no GPU switching on demand.  The
 * stuck requests (fs__stuck; the first FS__MAX_STUCK in the policy's order)
 * are weighed on each steady GPU g against each other layout L: what g would
 * hold in L of its own tenants (one unit each, WARMING or HELD) and then the
 * stuck requests (fs__hold), less what it holds of them in its layout now.
 * The largest gain wins if it is positive; ties go to the GPU with fewer
 * tenants (less to drain), then the lower GPU, then the layout declared
 * first.  A strict gain is what stops thrash: a GPU switched for one
 * profile's requests holds them as tenants, so another profile's waiting
 * requests win it back only by holding more units than they displace.
 * O(queue) to find the stuck, then O(GPUs x layouts x (tenants + stuck) x
 * units^2); it runs only at the instants fs__check_at names. */
static void fs__on_demand(fs_repart *r, size_t p)
{
    fs_fleet *f = r->fleet;
    fs__pool *pool = &r->pools[p];
    const fs_queue *q = f->queue;
    if (pool->od_gpu != FS__NONE || q->live == 0)
        return;
    fs__item *stuck = r->items + FS_MIG_MAX_INSTANCES;
    size_t n_stuck = 0;
    for (size_t i = q->head; i < q->n && n_stuck < FS__MAX_STUCK; i++)
        if (fs_queue_is_live(q, i) && fs__stuck(r, p, &q->items[i]))
            stuck[n_stuck++] = (fs__item){q->items[i].units, q->items[i].memory_gb};
    if (n_stuck == 0)
        return;
    long best_gain = 0;
    size_t best_tenants = SIZE_MAX, best_layout = 0;
    uint32_t best_gpu = FS__NONE;
    for (uint32_t g = 0; g < pool->n_gpus; g++) {
        const fs__gpu *gpu = &pool->gpus[g];
        if (gpu->phase != FS__STEADY)
            continue;
        fs__item tenants[FS_MIG_MAX_INSTANCES];
        size_t n_ten = 0;
        for (size_t k = 0; k < fs__layout_units(pool, gpu->active); k++) {
            const fs_unit_rt *unit = &f->units[p][fs__unit(pool, g, gpu->active, k)];
            if (unit->state == FS_UNIT_HELD || unit->state == FS_UNIT_WARMING)
                tenants[n_ten++] = (fs__item){1, unit->memory_gb};
        }
        fs__item *items = stuck - n_ten;
        for (size_t k = 0; k < n_ten; k++)
            items[k] = tenants[k];
        long now_held = fs__hold(r, p, gpu->active, items, n_ten + n_stuck);
        for (size_t layout = 0; layout < pool->plan->n_layouts; layout++) {
            if (layout == gpu->active)
                continue;
            long gain = (long)fs__hold(r, p, layout, items, n_ten + n_stuck) - now_held;
            if (gain > best_gain || (gain == best_gain && gain > 0 && n_ten < best_tenants)) {
                best_gain = gain;
                best_tenants = n_ten;
                best_gpu = g;
                best_layout = layout;
            }
        }
    }
    if (best_gpu != FS__NONE)
        fs__switch_on_demand(r, p, best_gpu, best_layout);
}

static void fs__on_check(fs_sim *sim, const fs_event *ev, void *ctx)
{
    fs_repart *r = ctx;
    size_t p = (size_t)ev->data;
    if (r->pools[p].check_at == sim->now)
        r->pools[p].check_at = -1;
    fs__on_demand(r, p);
}

void fs_repart_queued(fs_repart *r, const fs_request *req)
{
    const fs_fleet *f = r->fleet;
    for (size_t p = 0; p < f->scenario->n_pools; p++)
        if (r->pools[p].plan && r->pools[p].plan->on_demand_after_s > 0 && f->policy->eligible(f->scenario, req, p))
            fs__check_at(r, p, req->since + r->pools[p].plan->on_demand_after_s);
}

void fs_repart_unit_freed(fs_repart *r, size_t p, size_t u)
{
    const fs__pool *pool = &r->pools[p];
    if (pool->plan == NULL)
        return;
    if (pool->od_gpu == FS__NONE) /* a freed unit may change what a switch gains */
        fs__check_at(r, p, r->fleet->sim->now);
    uint32_t g = (uint32_t)(u / pool->first[pool->plan->n_layouts]);
    if (pool->gpus[g].phase != FS__DRAINING)
        return;
    fs_fleet__set_state(r->fleet, p, u, FS_UNIT_ABSENT);
    if (fs__empty(r, p, g))
        fs__begin_switch(r, p, g);
}

/* The first schedule entry after t = 0, from day 0. */
static void fs__first_entry(fs__pool *pool)
{
    pool->day = 0;
    pool->next = 0;
    while (pool->next < pool->plan->n_schedule && pool->plan->schedule[pool->next].at_s <= 0)
        pool->next++;
    if (pool->next == pool->plan->n_schedule) {
        pool->next = 0;
        pool->day = 1;
    }
}

int fs_repart_create(fs_fleet *f, fs_repart **out)
{
    const fs_scenario *s = f->scenario;
    *out = NULL;
    bool any = false;
    for (size_t p = 0; p < s->n_pools; p++)
        any |= s->pools[p].mig_plan != NULL && s->pools[p].mig_plan->n_layouts > 1;
    if (!any)
        return 0;
    fs_repart *r = calloc(1, sizeof *r);
    if (r == NULL)
        return ENOMEM;
    r->fleet = f;
    r->pools = calloc(s->n_pools, sizeof *r->pools);
    int64_t k_sc = fs_sim_register(f->sim, fs__on_scheduled, r);
    int64_t k_sw = fs_sim_register(f->sim, fs__on_switched, r);
    int64_t k_ch = fs_sim_register(f->sim, fs__on_check, r);
    if (r->pools == NULL || k_sc < 0 || k_sw < 0 || k_ch < 0)
        goto nomem;
    r->kind_scheduled = (uint32_t)k_sc;
    r->kind_switched = (uint32_t)k_sw;
    r->kind_check = (uint32_t)k_ch;
    for (size_t p = 0; p < s->n_pools; p++) {
        const fs_mig_plan *plan = s->pools[p].mig_plan;
        fs__pool *pool = &r->pools[p];
        if (plan == NULL || plan->n_layouts < 2)
            continue;
        pool->plan = plan;
        pool->od_gpu = FS__NONE;
        pool->check_at = -1;
        for (size_t k = 0; k < plan->n_layouts; k++)
            pool->first[k + 1] = pool->first[k] + plan->layouts[k].n;
        pool->n_gpus = s->pools[p].gpus; /* a fixed size (scenario_mig.c) */
        pool->gpus = calloc(pool->n_gpus ? pool->n_gpus : 1, sizeof *pool->gpus);
        if (pool->gpus == NULL)
            goto nomem;
        for (uint32_t g = 0; g < pool->n_gpus; g++)
            pool->gpus[g] = (fs__gpu){(uint16_t)plan->start, (uint16_t)plan->start, FS__STEADY};
        if (plan->n_schedule > 0) {
            fs__first_entry(pool);
            fs__schedule_next(r, p);
        }
    }
    *out = r;
    return 0;
nomem:
    fs_repart_destroy(r);
    return ENOMEM;
}

void fs_repart_destroy(fs_repart *r)
{
    if (r == NULL)
        return;
    for (size_t p = 0; r->pools && p < r->fleet->scenario->n_pools; p++)
        free(r->pools[p].gpus);
    free(r->pools);
    free(r);
}

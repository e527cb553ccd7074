/*
 * repartition — switching a pool's GPUs between MIG layouts on a schedule
 * (repartition.h).
 */
#include "repartition.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#define FS__DAY_S 86400.0

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
} fs__pool;

struct fs_repart {
    fs_fleet *fleet;
    fs__pool *pools;
    uint32_t kind_scheduled, kind_switched;
};

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
    (void)sim;
    fs_repart *r = ctx;
    size_t p = (size_t)ev->data;
    fs__pool *pool = &r->pools[p];
    size_t layout = pool->plan->schedule[ev->arg].layout;
    if (++pool->next == pool->plan->n_schedule) {
        pool->next = 0;
        pool->day++;
    }
    fs__schedule_next(r, p);
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
    fs_fleet__serve(r->fleet);
}

void fs_repart_unit_freed(fs_repart *r, size_t p, size_t u)
{
    const fs__pool *pool = &r->pools[p];
    if (pool->plan == NULL)
        return;
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
    if (r->pools == NULL || k_sc < 0 || k_sw < 0)
        goto nomem;
    r->kind_scheduled = (uint32_t)k_sc;
    r->kind_switched = (uint32_t)k_sw;
    for (size_t p = 0; p < s->n_pools; p++) {
        const fs_mig_plan *plan = s->pools[p].mig_plan;
        fs__pool *pool = &r->pools[p];
        if (plan == NULL || plan->n_layouts < 2)
            continue;
        pool->plan = plan;
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

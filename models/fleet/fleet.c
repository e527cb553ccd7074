#include "fleet.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_randist.h>

#include "grow.h"
#include "policy.h"
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

double fs_fleet_warmup_s(const fs_scenario *s, size_t pool, fs_warmup_kind kind, double gb)
{
    const fs_switch_costs *c = fs__costs(s, pool);
    double base = c->context_s + c->framework_s;
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

double fs_fleet_save_s(const fs_scenario *s, size_t pool, double gb)
{
    const fs_switch_costs *c = fs__costs(s, pool);
    return c->d2h_gbps > 0 ? gb / c->d2h_gbps : 0;
}

/* ---- unit state changes (every one keeps the pool's levels in step) ------- */

static inline fs_unit_rt *fs__unit(fs_fleet *f, size_t pool, size_t u)
{
    return &f->units[pool][u];
}

static size_t fs__per_gpu(const fs_fleet *f, size_t pool)
{
    const fs_pool_units *pu = &f->placement->pools[pool];
    uint32_t gpus = f->scenario->pools[pool].max_gpus > f->scenario->pools[pool].gpus
                        ? f->scenario->pools[pool].max_gpus
                        : f->scenario->pools[pool].gpus;
    return pu->n_units_max / gpus;
}

static void fs__to_switching(fs_fleet *f, size_t pool, size_t u, fs_unit_state state, double until)
{
    fs_unit_rt *unit = fs__unit(f, pool, u);
    fs_pool_unit_switching(&f->pools[pool], f->sim->now, u, +1);
    unit->state = state;
    fs_sim_schedule(f->sim, until, 0, f->kind_switched, (uint32_t)u, (double)pool);
}

/* ---- requests ------------------------------------------------------------- */

/* Memory a unit offers a new tenant; time-sliced seats share their GPU's. */
static double fs__room(const fs_fleet *f, size_t pool, size_t u)
{
    const fs_pool_spec *spec = &f->scenario->pools[pool];
    const fs_unit *unit = &f->placement->pools[pool].units[u];
    if (spec->partitioning != FS_PARTITION_TIME_SLICED)
        return unit->memory_gb;
    double used = 0;
    size_t per_gpu = fs__per_gpu(f, pool), first = (size_t)unit->gpu * per_gpu;
    for (size_t k = first; k < first + per_gpu; k++) {
        const fs_unit_rt *seat = &f->units[pool][k];
        if (seat->state == FS_UNIT_WARMING || seat->state == FS_UNIT_HELD)
            used += seat->memory_gb;
    }
    return unit->memory_gb - used;
}

/* Picks `n` free units of pool p that fit r, best fit first; returns how many
 * were found (into chosen). */
static size_t fs__pick(fs_fleet *f, const fs_request *r, size_t pool, size_t *chosen, size_t n)
{
    const fs_pool_units *pu = &f->placement->pools[pool];
    size_t found = 0;
    for (size_t k = 0; k < n; k++) {
        size_t best = SIZE_MAX;
        double best_room = 0;
        for (size_t u = 0; u < pu->n_units_max; u++) {
            if (f->units[pool][u].state != FS_UNIT_FREE)
                continue;
            bool taken = false;
            for (size_t j = 0; j < found && !taken; j++)
                taken = chosen[j] == u;
            double room = fs__room(f, pool, u);
            if (taken || room < r->memory_gb)
                continue;
            if (best == SIZE_MAX || room < best_room ||
                (room == best_room && pu->units[u].sms < pu->units[best].sms)) {
                best = u;
                best_room = room;
            }
        }
        if (best == SIZE_MAX)
            break;
        chosen[found++] = best;
    }
    return found;
}

static void fs__grant(fs_fleet *f, const fs_request *r, size_t pool, const size_t *chosen)
{
    double now = f->sim->now;
    for (uint32_t k = 0; k < r->units; k++) {
        fs_unit_rt *unit = fs__unit(f, pool, chosen[k]);
        *unit = (fs_unit_rt){.state = FS_UNIT_FREE, .kind = r->kind, .owner = r->owner,
                             .slot = r->first_slot + k, .preemptible = r->preemptible,
                             .lane = r->lane, .memory_gb = r->memory_gb};
        fs__to_switching(f, pool, chosen[k], FS_UNIT_WARMING,
                         now + fs_fleet_warmup_s(f->scenario, pool, r->warmup, r->warm_gb > 0 ? r->warm_gb : r->memory_gb));
    }
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

/* Tries to serve r now: free units in an eligible pool, else, if the policy
 * lets r evict, units of evictable holders (which become free after their
 * eviction; r stays pending until then).  Returns true when granted. */
static bool fs__try(fs_fleet *f, const fs_request *r)
{
    const fs_scenario *s = f->scenario;
    /* No pool holds more units than the largest: such a request can never
     * be served here (the scenario loader and the training stream refuse
     * it before it gets this far). */
    size_t *chosen = f->chosen;
    if (r->units > f->max_pool_units)
        return false;
    for (size_t p = 0; p < s->n_pools; p++) {
        if (!f->policy->eligible(s, r, p))
            continue;
        if (fs__pick(f, r, p, chosen, r->units) == r->units) {
            fs__grant(f, r, p, chosen);
            return true;
        }
    }
    /* Eviction: count what is free, already being evicted, or evictable. */
    for (size_t p = 0; p < s->n_pools; p++) {
        if (!f->policy->eligible(s, r, p))
            continue;
        const fs_pool_units *pu = &f->placement->pools[p];
        size_t coming = 0, evictable = 0;
        for (size_t u = 0; u < pu->n_units_max; u++) {
            const fs_unit_rt *unit = &f->units[p][u];
            if (pu->units[u].memory_gb < r->memory_gb)
                continue;
            if (unit->state == FS_UNIT_FREE || unit->state == FS_UNIT_EVICTING)
                coming++;
            else if (unit->state == FS_UNIT_HELD && f->policy->may_evict(s, r, p, unit))
                evictable++;
        }
        if (coming >= r->units || coming + evictable < r->units)
            continue;
        /* Evict one holder at a time and count again: evicting one member of
         * a gang frees all of it. */
        while (coming < r->units) {
            size_t victim = SIZE_MAX;
            for (size_t u = 0; u < pu->n_units_max && victim == SIZE_MAX; u++)
                if (pu->units[u].memory_gb >= r->memory_gb && f->units[p][u].state == FS_UNIT_HELD &&
                    f->policy->may_evict(s, r, p, &f->units[p][u]))
                    victim = u;
            if (victim == SIZE_MAX)
                break;
            fs__evict(f, p, victim);
            coming = 0;
            for (size_t u = 0; u < pu->n_units_max; u++)
                coming += pu->units[u].memory_gb >= r->memory_gb &&
                          (f->units[p][u].state == FS_UNIT_FREE || f->units[p][u].state == FS_UNIT_EVICTING);
        }
        return false;
    }
    return false;
}

static void fs__grow_elastic(fs_fleet *f);

/* Serves waiting requests in the policy's order, as far as capacity allows.
 * A request that cannot be served blocks those behind it only under a
 * head-of-line policy; otherwise smaller requests behind it go first. */
static void fs__serve_pending(fs_fleet *f)
{
    for (size_t i = 0; i < f->n_pending;) {
        fs_request r = f->pending[i];
        if (fs__try(f, &r)) {
            memmove(&f->pending[i], &f->pending[i + 1], (f->n_pending - i - 1) * sizeof r);
            f->n_pending--;
        } else if (f->policy->head_of_line) {
            break;
        } else {
            i++;
        }
    }
    fs__grow_elastic(f);
}

int fs_fleet_request(fs_fleet *f, const fs_request *req)
{
    fs_request r = *req;
    r.seq = f->next_seq++;
    r.since = f->sim->now;
    /* Earlier waiters the policy puts first keep their turn. */
    bool ahead = false;
    for (size_t i = 0; i < f->n_pending && !ahead; i++)
        ahead = !f->policy->before(&r, &f->pending[i]);
    if (!ahead && fs__try(f, &r))
        return 0;
    fs_request *grown = fs_grow(f->pending, &f->cap_pending, f->n_pending + 1, sizeof *grown, 16);
    if (!grown)
        return ENOMEM;
    f->pending = grown;
    size_t at = f->n_pending;
    while (at > 0 && f->policy->before(&r, &f->pending[at - 1]))
        at--;
    memmove(&f->pending[at + 1], &f->pending[at], (f->n_pending - at) * sizeof r);
    f->pending[at] = r;
    f->n_pending++;
    if (ahead)
        fs__serve_pending(f);
    else
        fs__grow_elastic(f);
    return 0;
}

uint32_t fs_fleet_withdraw(fs_fleet *f, fs_holder_kind kind, uint32_t owner)
{
    uint32_t n = 0;
    size_t kept = 0;
    for (size_t i = 0; i < f->n_pending; i++) {
        if (f->pending[i].kind == kind && f->pending[i].owner == owner)
            n += f->pending[i].units;
        else
            f->pending[kept++] = f->pending[i];
    }
    f->n_pending = kept;
    return n;
}

void fs_fleet_withdraw_slot(fs_fleet *f, fs_holder_kind kind, uint32_t owner, uint32_t slot)
{
    for (size_t i = 0; i < f->n_pending; i++) {
        const fs_request *r = &f->pending[i];
        if (r->kind == kind && r->owner == owner && r->first_slot == slot) {
            memmove(&f->pending[i], &f->pending[i + 1], (f->n_pending - i - 1) * sizeof *r);
            f->n_pending--;
            return;
        }
    }
}

uint32_t fs_fleet_waiting_units(const fs_fleet *f, fs_holder_kind kind, uint32_t owner)
{
    uint32_t n = 0;
    for (size_t i = 0; i < f->n_pending; i++)
        if (kind == FS_HOLDER_NONE || (f->pending[i].kind == kind && f->pending[i].owner == owner))
            n += f->pending[i].units;
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
        unit->state = FS_UNIT_EVICTING;
        unit->kind = FS_HOLDER_NONE;
        return;
    }
    unit->kind = FS_HOLDER_NONE;
    fs__to_switching(f, pool, u, FS_UNIT_EVICTING, now + evict_s);
}

void fs_fleet_release_holder(fs_fleet *f, fs_holder_kind kind, uint32_t owner, double evict_s,
                             double now)
{
    fs_fleet_withdraw(f, kind, owner);
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
        unit->state = FS_UNIT_HELD;
        const fs_holder_ops *ops = f->holder_ops[unit->kind];
        if (ops && ops->ready)
            ops->ready(f->holder_ctx[unit->kind], unit->owner, unit->slot, pool, u, sim->now);
        return;
    }
    *unit = (fs_unit_rt){.state = FS_UNIT_FREE};
    fs__serve_pending(f);
}

/* ---- elastic pools and spot ---------------------------------------------- */

static void fs__schedule_reclaim(fs_fleet *f, size_t pool, uint32_t gpu)
{
    double rate = f->scenario->pools[pool].reclaim_per_gpu_hour / 3600.0;
    if (rate <= 0)
        return;
    double at = f->sim->now + gsl_ran_exponential(f->rng, 1.0 / rate);
    if (at <= f->horizon)
        fs_sim_schedule(f->sim, at, 0, f->kind_reclaim, gpu, (double)pool);
}

static void fs__gpu_units(fs_fleet *f, size_t pool, uint32_t gpu, size_t *first, size_t *count)
{
    *count = fs__per_gpu(f, pool);
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
        f->units[pool][u] = (fs_unit_rt){.state = FS_UNIT_FREE};
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
        *unit = (fs_unit_rt){.state = FS_UNIT_ABSENT};
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
    (void)sim;
    fs_fleet *f = ctx;
    size_t pool = (size_t)ev->data;
    uint32_t gpu = ev->arg;
    if (!f->gpus[pool][gpu].present)
        return;
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
        size_t per_gpu = fs__per_gpu(f, p);
        uint64_t wanted = 0, free_units = 0;
        for (size_t i = 0; i < f->n_pending; i++)
            if (f->policy->eligible(s, &f->pending[i], p))
                wanted += f->pending[i].units;
        for (size_t u = 0; u < f->placement->pools[p].n_units_max; u++)
            free_units += f->units[p][u].state == FS_UNIT_FREE || f->units[p][u].state == FS_UNIT_EVICTING;
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
    for (size_t p = 0; p < s->n_pools; p++)
        if (placement->pools[p].n_units_max > f->max_pool_units)
            f->max_pool_units = placement->pools[p].n_units_max;
    f->chosen = malloc((f->max_pool_units ? f->max_pool_units : 1) * sizeof *f->chosen);
    if (!f->units || !f->gpus || !f->present_gpus || !f->provisioning_gpus || !f->rng || !f->chosen)
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
    bool any_elastic = false;
    for (size_t p = 0; p < s->n_pools; p++) {
        const fs_pool_spec *spec = &s->pools[p];
        const fs_pool_units *pu = &placement->pools[p];
        uint32_t max_gpus = spec->max_gpus > spec->gpus ? spec->max_gpus : spec->gpus;
        f->units[p] = calloc(pu->n_units_max ? pu->n_units_max : 1, sizeof **f->units);
        f->gpus[p] = calloc(max_gpus, sizeof **f->gpus);
        if (!f->units[p] || !f->gpus[p])
            goto nomem;
        for (size_t u = 0; u < pu->n_units_max; u++) {
            const fs_unit *unit = &pu->units[u];
            fs_unit_rt *rt = &f->units[p][u];
            if (unit->gpu >= spec->gpus) {
                rt->state = FS_UNIT_ABSENT;
            } else if (u < pu->n_units && unit->service != FS_UNPLACED) {
                *rt = (fs_unit_rt){.state = FS_UNIT_HELD, .kind = FS_HOLDER_SERVICE,
                                   .owner = (uint32_t)unit->service, .slot = unit->replica,
                                   .memory_gb = s->services[unit->service].memory_gb};
            } else {
                rt->state = FS_UNIT_FREE;
            }
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
    }
    free(f->units);
    free(f->gpus);
    free(f->present_gpus);
    free(f->provisioning_gpus);
    free(f->pending);
    free(f->chosen);
    fs_rng_destroy(f->rng);
    *f = (fs_fleet){0};
}

/*
 * pick — best fit within a pool, and the units of a pool that fit (pick.h).
 */
#include "pick.h"

#include "fleet_share.h"

#include <stdlib.h>

size_t fs_pick_per_gpu(const fs_fleet *f, size_t pool)
{
    const fs_pool_units *pu = &f->placement->pools[pool];
    uint32_t gpus = f->scenario->pools[pool].max_gpus > f->scenario->pools[pool].gpus
                        ? f->scenario->pools[pool].max_gpus
                        : f->scenario->pools[pool].gpus;
    return pu->n_units_max / gpus;
}

/* Memory a unit offers a new tenant; time-sliced and fractional seats
 * share their GPU's. */
static double fs__room(const fs_fleet *f, size_t pool, size_t u)
{
    const fs_pool_spec *spec = &f->scenario->pools[pool];
    const fs_unit *unit = &f->placement->pools[pool].units[u];
    if (!fs_pool_shared(spec))
        return unit->memory_gb;
    double used = 0;
    size_t per_gpu = fs_pick_per_gpu(f, pool), first = (size_t)unit->gpu * per_gpu;
    for (size_t k = first; k < first + per_gpu; k++) {
        const fs_unit_rt *seat = &f->units[pool][k];
        if (seat->state == FS_UNIT_WARMING || seat->state == FS_UNIT_HELD)
            used += seat->memory_gb;
    }
    return unit->memory_gb - used;
}

/* Least room, then fewest SMs, then lowest index. */
static int fs__candidate_cmp(const void *a, const void *b)
{
    const fs_pick_candidate *x = a, *y = b;
    if (x->room != y->room)
        return x->room < y->room ? -1 : 1;
    if (x->sms != y->sms)
        return x->sms < y->sms ? -1 : 1;
    return (x->unit > y->unit) - (x->unit < y->unit);
}

/* Does every unit of pool p, a pool of alike whole GPUs, fit r? */
static bool fs__uniform_fits(const fs_fleet *f, const fs_request *r, size_t pool)
{
    const fs_pool_units *pu = &f->placement->pools[pool];
    return pu->n_units_max > 0 && pu->units[0].memory_gb >= r->memory_gb;
}

size_t fs_pick_in_pool(fs_fleet *f, const fs_request *r, size_t pool, fs_pick_member *out, size_t n)
{
    const fs_pool_units *pu = &f->placement->pools[pool];
    const fs_unit_rt *rt = f->units[pool];
    if (f->n_free[pool] < n)
        return 0;
    size_t found = 0;
    if (f->uniform[pool]) {
        if (!fs__uniform_fits(f, r, pool))
            return 0;
        for (size_t u = 0; u < pu->n_units_max && found < n; u++)
            if (rt[u].state == FS_UNIT_FREE)
                out[found++] = (fs_pick_member){pool, u};
        return found;
    }
    fs_pick_candidate *c = f->candidates;
    for (size_t u = 0; u < pu->n_units_max; u++) {
        if (rt[u].state != FS_UNIT_FREE)
            continue;
        double room = fs__room(f, pool, u);
        if (room >= r->memory_gb)
            c[found++] = (fs_pick_candidate){room, pu->units[u].sms, u};
    }
    if (found < n)
        return found;
    qsort(c, found, sizeof *c, fs__candidate_cmp);
    if (f->scenario->pools[pool].partitioning == FS_PARTITION_FRACTIONAL)
        return fs_fleet__pick_together(f, r, pool, c, found, out, n);
    for (size_t k = 0; k < n; k++)
        out[k] = (fs_pick_member){pool, c[k].unit};
    return n;
}

size_t fs_pick_fitting(const fs_fleet *f, const fs_request *r, size_t pool)
{
    if (f->uniform[pool])
        return fs__uniform_fits(f, r, pool) ? f->n_free[pool] : 0;
    const fs_pool_units *pu = &f->placement->pools[pool];
    size_t fitting = 0;
    for (size_t u = 0; u < pu->n_units_max; u++)
        fitting += f->units[pool][u].state == FS_UNIT_FREE && fs__room(f, pool, u) >= r->memory_gb;
    return fitting;
}

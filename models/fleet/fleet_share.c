#include "fleet_share.h"

#include "placement.h"

double fs_fleet__share(const fs_fleet *f, const fs_request *r, fs_share_kind *kind)
{
    const fs_service_spec *svc = r->kind == FS_HOLDER_SERVICE ? &f->scenario->services[r->owner] : NULL;
    *kind = svc ? svc->share_kind : FS_SHARE_COMPUTE;
    return svc && svc->gpu_share > 0 ? svc->gpu_share : 1.0;
}

/* The shares the tenants (warming or held) of unit u's GPU hold: the pool
 * keeps each seat's last tenant's share. */
static double fs__share_held(const fs_fleet *f, size_t pool, size_t u)
{
    size_t per_gpu = fs_pool_units_per_gpu(&f->scenario->pools[pool]);
    size_t first = (size_t)f->placement->pools[pool].units[u].gpu * per_gpu;
    double held = 0;
    for (size_t k = first; k < first + per_gpu; k++)
        if (f->units[pool][k].state == FS_UNIT_WARMING || f->units[pool][k].state == FS_UNIT_HELD)
            held += f->pools[pool].load[k].compute_share;
    return held;
}

size_t fs_fleet__pick_together(const fs_fleet *f, const fs_request *r, size_t pool,
                               const fs_pick_candidate *c, size_t found, fs_pick_member *out, size_t n)
{
    const fs_pool_units *pu = &f->placement->pools[pool];
    fs_share_kind kind;
    double share = fs_fleet__share(f, r, &kind), limit = f->scenario->pools[pool].fractional.oversubscription;
    size_t got = 0;
    /* O(found x n): gangs on a fractional pool are a handful of members. */
    for (size_t i = 0; i < found && got < n; i++) {
        size_t same = 0;
        for (size_t k = 0; k < got; k++)
            same += pu->units[out[k].unit].gpu == pu->units[c[i].unit].gpu;
        if (c[i].room >= (double)(same + 1) * r->memory_gb &&
            fs_placement_share_fits(fs__share_held(f, pool, c[i].unit) + (double)same * share, share, limit))
            out[got++] = (fs_pick_member){pool, c[i].unit};
    }
    return got;
}

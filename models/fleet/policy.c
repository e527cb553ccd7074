#include <stdint.h>

#include "policy.h"

const fs_policy_ops *fs_policy_for(fs_policy_kind kind)
{
    switch (kind) {
    case FS_POLICY_PARTITIONED:
        return &fs_policy_partitioned;
    case FS_POLICY_TIERED:
        return &fs_policy_tiered;
    case FS_POLICY_SHARED:
        break;
    }
    return &fs_policy_shared;
}

size_t fs_policy_largest_eligible(const fs_policy_ops *ops, const fs_scenario *s, const fs_placement *placement,
                                  const fs_request *r, size_t *pool)
{
    size_t most = 0;
    *pool = SIZE_MAX;
    for (size_t p = 0; p < s->n_pools; p++) {
        size_t units = placement->pools[p].n_units_max;
        if (ops->eligible(s, r, p) && (*pool == SIZE_MAX || units > most)) {
            most = units;
            *pool = p;
        }
    }
    return most;
}

size_t fs_policy_eligible_units(const fs_policy_ops *ops, const fs_scenario *s, const fs_placement *placement,
                                const fs_request *r)
{
    size_t all = 0;
    for (size_t p = 0; p < s->n_pools; p++)
        if (ops->eligible(s, r, p))
            all += placement->pools[p].n_units_max;
    return all;
}

bool fs_policy_fifo(const fs_request *a, const fs_request *b)
{
    return a->seq < b->seq;
}

bool fs_policy_never_evict(const fs_scenario *s, const fs_request *r, size_t pool, const fs_unit_rt *u)
{
    (void)s, (void)r, (void)pool, (void)u;
    return false;
}

double fs_policy_no_headroom(const fs_scenario *s)
{
    (void)s;
    return 0;
}

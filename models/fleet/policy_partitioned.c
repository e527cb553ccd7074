/* partitioned: pools by latency class.  Serving work runs on its own pool;
 * training runs on batch pools, and on spot pools only when preemptible;
 * batch work is never admitted to serving capacity, except that with
 * borrowing (Kueue cohort style) preemptible batch may use idle serving units
 * and is evicted, paying eviction and lost work, the moment serving needs
 * them. */
#include "policy.h"

static bool partitioned_eligible(const fs_scenario *s, const fs_request *r, size_t pool)
{
    fs_pool_class class = s->pools[pool].class;
    if (r->kind == FS_HOLDER_SERVICE)
        return r->pool == SIZE_MAX ? class == FS_CLASS_SERVING : r->pool == pool;
    if (class == FS_CLASS_BATCH)
        return true;
    /* Spot capacity is reclaimed, and borrowed serving capacity is evicted:
     * both only for work that accepts preemption. */
    if (class == FS_CLASS_SPOT)
        return r->preemptible;
    return s->borrowing && r->preemptible;
}

static bool partitioned_may_evict(const fs_scenario *s, const fs_request *r, size_t pool,
                                  const fs_unit_rt *u)
{
    return r->kind == FS_HOLDER_SERVICE && u->kind == FS_HOLDER_TRAINING && u->preemptible &&
           s->pools[pool].class == FS_CLASS_SERVING;
}

const fs_policy_ops fs_policy_partitioned = {
    .name = "partitioned",
    .eligible = partitioned_eligible,
    .before = fs_policy_fifo,
    .may_evict = partitioned_may_evict,
    .serving_headroom = fs_policy_no_headroom,
};

/* tiered: a warm serving pool grown ahead of demand to keep its headroom
 * target, an elastic batch pool that grows on queued demand, a spot tier for
 * preemptible work, and priority lanes: production inference, then
 * production training, then experiments.  A request may evict preemptible
 * work of a lower lane outside the serving tier. */
#include "policy.h"

static bool tiered_eligible(const fs_scenario *s, const fs_request *r, size_t pool)
{
    fs_pool_class class = s->pools[pool].class;
    if (r->kind == FS_HOLDER_SERVICE)
        return r->pool == SIZE_MAX ? class == FS_CLASS_SERVING : r->pool == pool;
    if (class == FS_CLASS_SERVING)
        return false;
    if (class == FS_CLASS_SPOT) /* interruptible capacity: only for work that accepts it */
        return r->preemptible;
    return r->lane == FS_LANE_TRAINING || !r->preemptible;
}

static bool tiered_before(const fs_request *a, const fs_request *b)
{
    if (a->lane != b->lane)
        return a->lane < b->lane;
    return a->seq < b->seq;
}

static bool tiered_may_evict(const fs_scenario *s, const fs_request *r, size_t pool, const fs_unit_rt *u)
{
    return u->preemptible && r->lane < u->lane && s->pools[pool].class != FS_CLASS_SERVING;
}

static double tiered_headroom(const fs_scenario *s)
{
    return s->headroom;
}

const fs_policy_ops fs_policy_tiered = {
    .name = "tiered",
    .eligible = tiered_eligible,
    .before = tiered_before,
    .may_evict = tiered_may_evict,
    .serving_headroom = tiered_headroom,
};

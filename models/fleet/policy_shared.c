/* shared: one pool for everyone, strictly first come first served (a gang
 * waiting at the head of the queue holds back everything asked after it,
 * replica scale-ups included), no preemption: whoever asks first holds the
 * capacity until it gives it back (seed 003's "the training scheduler wins
 * every uncontested admission because it asks first"; seed 000's "whoever
 * submits first wins"). */
#include "policy.h"

static bool shared_eligible(const fs_scenario *s, const fs_request *r, size_t pool)
{
    (void)s;
    return r->pool == SIZE_MAX || r->pool == pool;
}

const fs_policy_ops fs_policy_shared = {
    .name = "shared",
    .eligible = shared_eligible,
    .before = fs_policy_fifo,
    .may_evict = fs_policy_never_evict,
    .serving_headroom = fs_policy_no_headroom,
    .head_of_line = true,
};

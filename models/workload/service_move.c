/*
 * service_move — asking the fleet for a replica, and moving one off a GPU
 * that changes MIG layout (service.h, fs_service_replica_move; the fleet's
 * side is models/fleet/repartition.h).
 *
 * A moved replica is lost as to an eviction (its requests in service still
 * complete; an LLM engine's are queued again), gives its unit back at once
 * and is owed: the service asks for it again in the first slot that is off,
 * now or, when every slot is taken (a lost replica still finishing its
 * requests), as soon as one turns off.  It warms up on whatever unit the
 * fleet grants, as a scale-up does.
 */
#include "service_parts.h"

#include <errno.h>
#include <stdbool.h>

int fs__service_ask(fs_service *svc)
{
    for (uint32_t r = 0; r < svc->n_slots; r++) {
        if (svc->replica[r].state != FS__OFF)
            continue;
        svc->replica[r].state = FS__WARMING;
        svc->n_wanted++;
        fs_request req = {
            .kind = FS_HOLDER_SERVICE, .owner = (uint32_t)svc->index, .units = 1,
            .memory_gb = svc->spec->memory_gb,
            .warmup = FS_WARMUP_REPLICA,
            .warm_gb = svc->llm ? fs_llm_weights_bytes(&svc->spec->batching.llm.model) / (1024.0 * 1024.0 * 1024.0) : 0,
            .pool = svc->spec->pool, .lane = FS_LANE_INFERENCE, .first_slot = r,
        };
        return fs_fleet_request(svc->fleet, &req);
    }
    return 0;
}

/* Whether some slot is off: one more replica can be asked for. */
static bool fs__slot_off(const fs_service *svc)
{
    for (uint32_t r = 0; r < svc->n_slots; r++)
        if (svc->replica[r].state == FS__OFF)
            return true;
    return false;
}

void fs__service_repay(fs_service *svc, double now)
{
    while (svc->owed > 0 && fs__slot_off(svc)) {
        svc->owed--;
        if (fs__service_ask(svc) != 0) {
            fs_sim_fail(svc->sim, ENOMEM, "service \"%s\": out of memory asking for a moved replica",
                        svc->spec->name);
            return;
        }
    }
    if (svc->deploy) /* a rollout waiting for a slot: after the replicas owed */
        fs__deploy_slot_off(svc, now);
}

void fs_service_replica_move(fs_service *svc, uint32_t r, size_t pool, size_t unit, double now)
{
    if (r >= svc->n_slots)
        return; /* a decode replica: no slot to ask again in, so it is waited for */
    fs_service_replica_evicted(svc, r, now);
    fs_fleet_release(svc->fleet, pool, unit, 0, now);
    svc->owed++;
    fs__service_repay(svc, now);
}

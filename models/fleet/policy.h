/*
 * policy — how a fleet shares its capacity: one module per policy behind one
 * small interface.
 *
 * A policy answers three questions for the capacity manager (fleet.h):
 * which pools a request may take units from, which of two waiting requests is
 * served first, and whether a request may evict the holder of a unit.  The
 * mechanisms (warm-up, eviction, provisioning, preemption and lost work) are
 * the fleet's; a policy only decides.  Adding a policy is one new file with
 * one fs_policy_ops, its extern declaration below, a case in
 * fs_policy_for (policy.c), a new fs_policy_kind (models/scenario/scenario.h)
 * and its name in kind_names (models/scenario/scenario.c).
 *
 *   shared       one pool, first come first served, no preemption
 *   partitioned  pools by latency class; batch never on serving capacity,
 *                unless borrowing lets preemptible batch use idle serving
 *                units, evicted the moment serving needs them
 *   tiered       serving pools kept at a headroom target, an elastic batch
 *                pool, a spot tier for preemptible work, and priority lanes
 *                (production inference, production training, experiments)
 */
#ifndef FS_POLICY_H
#define FS_POLICY_H

#include <stdbool.h>
#include <stddef.h>

#include "fleet.h"
#include "scenario.h"

typedef struct fs_policy_ops {
    const char *name;
    /* May r take units of pool p? */
    bool (*eligible)(const fs_scenario *s, const fs_request *r, size_t pool);
    /* Is a served before b? (A strict weak order; ties keep ask order.) */
    bool (*before)(const fs_request *a, const fs_request *b);
    /* May r evict the holder of unit u of pool p?  Asked only about
     * preemptible holders: work that did not accept preemption is never
     * evicted, and the fleet counts preemptible holders to know when no
     * one can be (fleet.c, fs__may_evict_any). */
    bool (*may_evict)(const fs_scenario *s, const fs_request *r, size_t pool, const fs_unit_rt *u);
    /* Free share of serving capacity to keep by growing elastic serving
     * pools ahead of demand (0: grow only for waiting requests). */
    double (*serving_headroom)(const fs_scenario *s);
    /* Strict first come first served: a request that cannot be served yet
     * blocks every request behind it (no backfilling past a waiting gang). */
    bool head_of_line;
} fs_policy_ops;

extern const fs_policy_ops fs_policy_shared;
extern const fs_policy_ops fs_policy_partitioned;
extern const fs_policy_ops fs_policy_tiered;

const fs_policy_ops *fs_policy_for(fs_policy_kind kind);

/* The most units (at its largest size) of one pool that a request like r
 * may take units from under this policy, with that pool in *pool (SIZE_MAX
 * and 0 when the policy lets r use no pool at all).  The fleet grants a gang
 * from one pool, so a gang larger than this can never start, however large
 * the other pools are, unless it may split across pools (r->across_pools:
 * see fs_policy_eligible_units). */
size_t fs_policy_largest_eligible(const fs_policy_ops *ops, const fs_scenario *s, const fs_placement *placement,
                                  const fs_request *r, size_t *pool);

/* The units (at their largest sizes) of every pool a request like r may
 * take units from under this policy, together (0: none): the largest gang
 * that may split across pools (fs_request.across_pools) can ever start. */
size_t fs_policy_eligible_units(const fs_policy_ops *ops, const fs_scenario *s, const fs_placement *placement,
                                const fs_request *r);

/* Shared helpers for policy modules. */
bool fs_policy_fifo(const fs_request *a, const fs_request *b);
bool fs_policy_never_evict(const fs_scenario *s, const fs_request *r, size_t pool, const fs_unit_rt *u);
double fs_policy_no_headroom(const fs_scenario *s);

#endif

/*
 * repartition — MIG re-partitioning at run time: a pool that declares several
 * layouts ("mig": {"layouts": ...}, fs_mig_plan in scenario.h) switches its
 * GPUs between them at the times of day of its schedule.
 *
 * Such a pool's units are every layout's, per GPU (placement.h), so unit
 * numbers and the fleet's per-pool counts stay fixed: a layout's units are
 * present (free or held) only while that layout is in force on their GPU, and
 * ABSENT otherwise, like an unprovisioned GPU's.  At a scheduled instant every
 * GPU whose layout differs from the one scheduled drains: its free units go
 * absent at once, so no new tenant takes them; with "drain": "evict" its
 * service replicas are moved (each gives its unit back and asks again at once,
 * the holder's `moved`) and its preemptible training jobs evicted (the whole
 * gang, as a preemption: work since the last checkpoint lost, or saved to
 * host); a job that is not preemptible, and with "wait" every tenant, is
 * waited for.  Each unit that comes free meanwhile goes absent (the fleet
 * tells this module, fs_repart_unit_freed).  Once the old layout's units are
 * all absent the GPU switches: for reconfigure_s it is switching compute as a
 * whole (fs_pool_gpu_reconfiguring, so provisioned = busy + switching + idle
 * holds), then the new layout's units turn free and waiting requests are
 * served.  A GPU whose scheduled layout changes back while it drains stops
 * draining (its absent units turn free again); one whose schedule moves on
 * while it switches drains again once the switch ends.
 *
 * On demand ("on_demand": {"after": D}): a waiting request that the pool
 * may serve, with no free unit in force that fits it (fs_pick_fitting), is
 * stuck once it has waited D, counted from its ask or from the pool's last
 * scheduled instant, whichever is later (a schedule's layout gets D before
 * on demand may undo it).  Stuck requests are looked at D after each ask,
 * D after each scheduled instant, and whenever a unit of the pool comes
 * free or a GPU ends a switch; then, if no GPU of the pool is switching on
 * demand, the GPU and layout that would hold the most more units of the
 * GPU's tenants and the stuck requests (fs__on_demand states the rule and
 * its ties) drain and switch as above, one GPU at a time.  A scheduled
 * instant overrides: it retargets every GPU, an on-demand one included.
 *
 * Ownership: created by fs_fleet_init only when some pool switches layouts
 * (fleet.repart NULL otherwise, and no path here runs); owns its per-GPU
 * states; borrows the fleet.
 */
#ifndef FS_REPARTITION_H
#define FS_REPARTITION_H

#include <stddef.h>
#include <stdint.h>

#include "fleet.h"

typedef struct fs_repart fs_repart;

/* 0 with *out NULL (no pool has two layouts or more), 0 with *out, or
 * ENOMEM.  Schedules each such pool's first switch after t = 0. */
int fs_repart_create(fs_fleet *f, fs_repart **out);
void fs_repart_destroy(fs_repart *r);

/* Request req has just been queued (fleet.c): each on-demand pool it may
 * use looks at its waiting requests again once req has waited D. */
void fs_repart_queued(fs_repart *r, const fs_request *req);

/* Unit u of pool p just turned free (fleet.c, the end of an eviction): on a
 * draining GPU it goes absent, and the GPU switches once it is empty. */
void fs_repart_unit_freed(fs_repart *r, size_t pool, size_t u);

/* What fleet.c gives this module (its own internals, for here only): a
 * unit's new state with no holder (FREE or ABSENT), through the one function
 * that keeps the fleet's counts; and a pass over the waiting requests. */
void fs_fleet__set_state(fs_fleet *f, size_t pool, size_t u, fs_unit_state state);
void fs_fleet__serve(fs_fleet *f);

#endif

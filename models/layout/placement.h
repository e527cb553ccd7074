/*
 * placement — where each replica runs: whole GPUs, MIG slices, time-sliced
 * tenant seats or fractional seats.
 *
 * Every pool is cut into units: one per whole GPU, one per MIG instance of
 * the pool's layout on each GPU (of each of its layouts, for a pool that
 * switches layouts at run time), `tenants` seats per time-sliced GPU, or
 * `seats` seats per fractional GPU.  A unit has the memory and SMs a replica
 * on it gets, and the share of its GPU it is charged for.  The replicas of
 * the services on a pool are placed onto its units, largest memory footprint
 * first, by the pool's placement policy (a named function; best fit by
 * default: the unit with the least memory that fits, then the fewest SMs).
 * Time-sliced seats share their GPU's memory, so a seat fits only while the
 * replicas on that GPU fit together.  A fractional pool is packed by compute
 * share and memory quota together (placement_frac.c: best fit, first fit, or
 * fragmentation-aware "fgd"); its seat takes its replica's shares.
 *
 * The result also says what is provisioned but unusable (fragmentation):
 * memory stranded inside occupied units, and free units too small for any
 * replica of the pool's services.
 *
 * Ownership: fs_placement_compute allocates the placement, which borrows the
 * scenario; fs_placement_destroy frees it.
 */
#ifndef FS_PLACEMENT_H
#define FS_PLACEMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "scenario.h"

#define FS_UNPLACED SIZE_MAX

typedef struct fs_unit {
    uint32_t gpu;            /* GPU index within the pool */
    const char *kind;        /* "whole", a MIG profile name, "time-slice", or "mps" / "virtual" (fractional) */
    double memory_gb;        /* memory a replica here may use (a shared seat: its GPU's, together) */
    unsigned sms;            /* SMs a replica here runs on */
    double charge_share;     /* share of the GPU charged: 1, compute slices / 7, 1 / tenants, or
                              * (fractional) the larger of share / oversubscription and memory / GPU's */
    double compute_share;    /* share of the GPU's compute it keeps busy: sms / GPU sms, 1, or
                              * (fractional) its replica's gpu_share, 0 while no replica is placed */
    size_t service;          /* FS_UNPLACED, or the service placed here */
    uint32_t replica;
    uint16_t layout;         /* a pool that switches MIG layouts: its layout (fs_mig_plan), else 0 */
} fs_unit;

/* Whether a unit exists at t = 0: every unit does, except, in a pool that
 * switches MIG layouts (fs_pool_spec.mig_plan), those of layouts other than
 * its start one.  Such a pool's units are every layout's, per GPU, so unit
 * numbers stay fixed; the fleet keeps a layout's units absent while another
 * is in force (models/fleet/repartition.h), and static placement uses the
 * start layout's only. */
static inline bool fs_unit_at_start(const fs_pool_spec *pool, const fs_unit *unit)
{
    return pool->mig_plan == NULL || unit->layout == pool->mig_plan->start;
}

typedef struct fs_pool_units {
    fs_unit *units;            /* n_units_max: every GPU the pool may grow to */
    size_t n_units;            /* units on the starting GPUs: the first n_units */
    size_t n_units_max;
    double used_memory_gb;      /* footprints placed */
    double stranded_memory_gb;  /* inside occupied units, and in free units too small for any replica */
    double stranded_sm_share;   /* GPUs' worth of SMs in free units too small, and unused MIG compute;
                                 * fractional: SMs left on GPUs no replica size of the pool fits */
    size_t start_units;         /* those of the first n_units that exist at t = 0 (fs_unit_at_start) */
    size_t free_units;          /* of those, the ones no replica was placed on */
} fs_pool_units;

typedef struct fs_placement {
    const fs_scenario *scenario;
    fs_pool_units *pools;      /* one per scenario pool */
    size_t **replica_unit;     /* [service][replica] -> unit index in its pool */
} fs_placement;

/* A placement policy picks, for a replica needing `need_gb`, one unit among
 * those with room[u] >= need_gb (room[u] < 0: taken), or FS_UNPLACED.  room
 * is the memory the replica could use there (for a time-sliced seat, what
 * its GPU has left).  It is shown candidates in ascending unit order, one
 * per group of interchangeable units, and must break ties by that order. */
typedef size_t (*fs_placement_policy)(const fs_unit *units, const double *room, size_t n,
                                      double need_gb);

/* Whether a compute share fits beside `used` under `limit` (a fractional
 * pool's oversubscription), with a tolerance for sums of decimal shares
 * (0.7 + 0.2 + 0.1 is not 1.0 in binary). */
static inline bool fs_placement_share_fits(double used, double share, double limit)
{
    return used + share <= limit + 1e-9;
}

/* Places every replica.  FS_OK and *out, or FS_ERR_INPUT naming the service
 * and what did not fit (e.g. `services[3] (asr-en): replica 2 of 3 needs
 * 12 GB; no free unit in pool "mig" fits (largest free: 1g.10gb, 9.75 GB)`),
 * or FS_ERR_RUNTIME when out of memory. */
int fs_placement_compute(const fs_scenario *s, fs_placement **out, fs_error *err);
void fs_placement_destroy(fs_placement *p);

/* The unit replica r of service i runs on. */
const fs_unit *fs_placement_unit(const fs_placement *p, size_t service, uint32_t replica);

/* Service-time multiplier for replica r of service i from its unit's SMs:
 * (reference SMs / unit SMs)^sm_exponent. */
double fs_placement_scale(const fs_placement *p, size_t service, uint32_t replica);

/* The same multiplier for service i on a given unit: what a replica it
 * would start there runs at. */
double fs_placement_unit_scale(const fs_placement *p, size_t service, const fs_unit *unit);

#endif

/*
 * pool — a pool of GPUs during one replication.
 *
 * The pool's GPUs are cut into units by the placement (whole GPUs, MIG
 * instances, time-sliced seats).  Holders tell the pool when a unit turns
 * busy (serving at least one request, or training) or idle; the capacity
 * manager tells it when a unit starts or stops switching tenant and when a
 * GPU is provisioned or given back.  The pool keeps, as time-weighted levels,
 * provisioned GPUs, busy compute in GPUs (a busy MIG instance counts its
 * share of the GPU's SMs; a time-sliced GPU counts 1 while any seat is busy),
 * switching compute, and idle compute.  Every change moves idle by the
 * opposite amount, so provisioned = busy + switching + idle holds at every
 * instant (conservation); nothing here checks it, the tests
 * (test_policies.c, test_queueing.c) check it on the integrals.  Busy
 * compute also drives energy.
 *
 * For time-sliced GPUs it answers how much a request starting now is
 * stretched by contention: with k seats busy, k^e x (1 + overhead / slice)
 * (1 when alone), from the pool's time-slicing settings.
 *
 * A fractional GPU's busy compute is, under MPS, the sum of its busy
 * tenants' compute shares, capped at 1 (the GPU), and on a virtual GPU 1
 * while any tenant is busy (they split the whole GPU between them, below);
 * a seat switching a tenant counts that tenant's share; the fleet tells the pool each seat's tenant as it grants
 * it (fs_pool_unit_tenant).  With S the shares of the busy tenants of the
 * GPU, a request starting now on a seat of share s is stretched by
 *   "mps":     S when S > 1, else 1 (the share curve itself, mps.h, is in the
 *              replica's speed scale: an MPS client is capped alone too);
 *   "virtual": the share curve at s / S when S <= 1 (the busy tenants split
 *              the GPU in proportion to their shares: alone, the whole GPU),
 *              else the curve at s, times S.
 * S > 1 stretches every request starting then by S: it conserves the work a
 * GPU does, and is what the calibration shows on average (spin 25% beside
 * spin 100%: 5.04x against 4.12x alone, 1.22x for S = 1.25; spin 100% beside
 * spin 50%: 2.02x and the 50% beside it 1.01x, mean 1.5 = S), though the
 * larger share loses more.  Bandwidth contention between memory-bound
 * tenants whose shares fit (decode 50% beside decode 50%: 1.85x against
 * 1.32x alone) is not modelled.  calibrate/README.md has the table.
 *
 * Ownership: fs_pool is caller-owned (init/fini); it owns its per-GPU
 * counters and keeps no window rows (it hands each to its caller as it
 * closes); it borrows the spec and the units.
 */
#ifndef FS_POOL_H
#define FS_POOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "level.h"
#include "placement.h"
#include "results.h"
#include "scenario.h"

/* What a unit's busy or idle turn reads: its GPU and compute share, copied
 * from its fs_unit into a 16-byte entry, so a fleet of 10,000 units walks
 * 160 KB instead of 640 KB (every request's start and end reads one). */
typedef struct fs_pool_unit_load {
    uint32_t gpu;
    uint8_t share_kind;    /* fractional: its tenant's fs_share_kind */
    double compute_share;  /* fractional: its tenant's share */
} fs_pool_unit_load;
_Static_assert(sizeof(fs_pool_unit_load) == 16, "fs_pool_unit_load: 16 bytes a unit");

typedef struct fs_pool {
    const fs_pool_spec *spec;
    const fs_pool_units *units;
    fs_pool_unit_load *load;  /* per unit (n_units_max), from units */
    bool shared;              /* fs_pool_shared(spec): time-sliced or fractional */
    double uniform_share;     /* not shared, and every unit of this compute share (whole GPUs: 1); else 0 */
    uint32_t *gpu_busy_units; /* per GPU (up to max_gpus): units busy; kept on shared pools only (contention) */
    uint32_t *unit_busy;      /* fractional pools: per unit, its busy turns (0 or 1); else NULL */
    double slice_stretch;     /* 1 + switch_overhead / slice, time-sliced pools */
    fs_level present;         /* GPUs provisioned */
    fs_level busy;            /* busy compute, in GPUs */
    fs_level switching;       /* compute of units switching tenant, in GPUs */
    fs_level idle;            /* present - busy - switching */
    double window_start;
    double window_area_mark;  /* busy.area when the window opened */
    /* A pool that switches MIG layouts (repartition.h): the GPUs switching
     * layout (part of `switching` too), and the switches begun, since
     * measuring started. */
    fs_level reconfiguring;
    uint64_t repartitions;
} fs_pool;

/* 0 or ENOMEM. */
int fs_pool_init(fs_pool *p, const fs_pool_spec *spec, const fs_pool_units *units);
void fs_pool_fini(fs_pool *p);

static inline void fs__pool_busy_change(fs_pool *p, double now, double change)
{
    if (change != 0) {
        fs_level_add(&p->busy, now, change);
        fs_level_add(&p->idle, now, -change);
    }
}

/* A shared pool's turn (pool.c): its GPU's busy seats counted, the change
 * in busy compute from them. */
void fs__pool_shared_unit_busy(fs_pool *p, double now, size_t u, int delta);

/* Unit u turned busy (+1) or idle (-1) at now.  Inline: every request's
 * start and end on an idle or emptied unit.  A whole GPU or MIG instance
 * turns its compute, and keeps no per-GPU count (only contention reads it,
 * on shared pools): with 10,000 units that count was a second cache miss
 * on every turn, and the unit's entry a first. */
static inline void fs_pool_unit_busy(fs_pool *p, double now, size_t u, int delta)
{
    if (p->shared)
        fs__pool_shared_unit_busy(p, now, u, delta);
    else /* a pool of one unit kind reads no unit's entry: another miss saved */
        fs__pool_busy_change(p, now, delta * (p->uniform_share != 0 ? p->uniform_share : p->load[u].compute_share));
}

/* Unit u started (+1) or stopped (-1) switching tenant at now. */
void fs_pool_unit_switching(fs_pool *p, double now, size_t u, int delta);

/* Unit u of a fractional pool has a new tenant, of compute share `share`
 * and work like `kind`: its busy and switching turns count that share.
 * Call it before the unit starts switching to the tenant. */
void fs_pool_unit_tenant(fs_pool *p, size_t u, double share, fs_share_kind kind);

/* A whole GPU starts (+1) or stops (-1) switching MIG layout at now:
 * switching compute, counted in `reconfiguring` too; a start counts one
 * re-partition. */
void fs_pool_gpu_reconfiguring(fs_pool *p, double now, int delta);

/* GPUs provisioned (+n) or given back (-n) at now. */
void fs_pool_gpus_present(fs_pool *p, double now, int delta);

/* k^e x (1 + overhead / slice): the stretch with k >= 2 busy seats. */
double fs_pool__stretch(const fs_pool *p, uint32_t k);

/* A fractional seat's stretch with other seats of its GPU busy (above). */
double fs_pool__share_stretch(const fs_pool *p, size_t u);

/* Service-time stretch for a request starting now on unit u (already
 * counted busy): 1 unless the pool is shared (time-sliced or fractional)
 * and other seats are busy. */
static inline double fs_pool_contention(const fs_pool *p, size_t u)
{
    if (!p->shared) /* and its per-GPU counts are not kept */
        return 1.0;
    uint32_t k = p->gpu_busy_units[p->units->units[u].gpu];
    if (k < 2)
        return 1.0;
    return p->spec->partitioning == FS_PARTITION_TIME_SLICED ? fs_pool__stretch(p, k)
                                                             : fs_pool__share_stretch(p, u);
}

/* Starts measuring at now (the warm-up instant): integrals restart. */
void fs_pool_start_measuring(fs_pool *p, double now);

/* Closes the current time-series window at now and writes its row into
 * *row: where rows go (a sink, or kept) is the run's choice (windows.h). */
void fs_pool_close_window(fs_pool *p, double now, fs_pool_window *row);

/* Writes the measured figures into out. */
void fs_pool_finish(fs_pool *p, double now, fs_pool_rep *out);

#endif

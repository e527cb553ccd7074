#include "pool.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "mps.h"

int fs_pool_init(fs_pool *p, const fs_pool_spec *spec, const fs_pool_units *units)
{
    *p = (fs_pool){.spec = spec, .units = units, .shared = fs_pool_shared(spec), .slice_stretch = 1.0};
    uint32_t max_gpus = spec->max_gpus > spec->gpus ? spec->max_gpus : spec->gpus;
    p->gpu_busy_units = calloc(max_gpus, sizeof *p->gpu_busy_units);
    p->load = malloc((units->n_units_max ? units->n_units_max : 1) * sizeof *p->load);
    if (spec->partitioning == FS_PARTITION_FRACTIONAL)
        p->unit_busy = calloc(units->n_units_max ? units->n_units_max : 1, sizeof *p->unit_busy);
    if (!p->gpu_busy_units || !p->load || (spec->partitioning == FS_PARTITION_FRACTIONAL && !p->unit_busy)) {
        fs_pool_fini(p);
        return ENOMEM;
    }
    for (size_t u = 0; u < units->n_units_max; u++)
        p->load[u] = (fs_pool_unit_load){units->units[u].gpu, FS_SHARE_COMPUTE, units->units[u].compute_share};
    /* Units are laid out once (a layout change moves replicas between
     * them), and only a fractional pool's change tenant and share. */
    p->uniform_share = !p->shared && units->n_units_max ? units->units[0].compute_share : 0;
    for (size_t u = 1; u < units->n_units_max && p->uniform_share != 0; u++)
        if (units->units[u].compute_share != p->uniform_share)
            p->uniform_share = 0;
    if (spec->partitioning == FS_PARTITION_TIME_SLICED)
        p->slice_stretch = 1.0 + spec->time_slicing.switch_overhead_s / spec->time_slicing.slice_s;
    fs_level_init(&p->present, 0, spec->gpus);
    fs_level_init(&p->busy, 0, 0);
    fs_level_init(&p->switching, 0, 0);
    fs_level_init(&p->idle, 0, spec->gpus);
    fs_level_init(&p->reconfiguring, 0, 0);
    return 0;
}

void fs_pool_fini(fs_pool *p)
{
    free(p->gpu_busy_units);
    free(p->load);
    free(p->unit_busy);
    p->gpu_busy_units = NULL;
    p->load = NULL;
    p->unit_busy = NULL;
}

void fs_pool_unit_tenant(fs_pool *p, size_t u, double share, fs_share_kind kind)
{
    p->load[u].compute_share = share;
    p->load[u].share_kind = (uint8_t)kind;
}

/* The compute shares of the busy seats of fractional GPU g, summed in seat
 * order (the same sum whatever order they turned busy in). */
static double fs__busy_share(const fs_pool *p, uint32_t g)
{
    size_t per_gpu = p->spec->fractional.seats, first = (size_t)g * per_gpu;
    double share = 0;
    for (size_t u = first; u < first + per_gpu; u++)
        if (p->unit_busy[u])
            share += p->load[u].compute_share;
    return share;
}

/* A fractional GPU's busy compute with `busy` seats busy: an MPS GPU the
 * shares of its busy clients, at most the GPU; a virtual GPU all of it while
 * any tenant is busy (the busy tenants split the whole GPU between them). */
static double fs__busy_compute(const fs_pool *p, uint32_t g, uint32_t busy)
{
    if (p->spec->fractional.mode == FS_SHARE_VIRTUAL)
        return busy > 0;
    return fmin(1.0, fs__busy_share(p, g));
}

double fs_pool__share_stretch(const fs_pool *p, size_t u)
{
    const fs_pool_unit_load *unit = &p->load[u];
    double busy = fs__busy_share(p, unit->gpu);
    if (p->spec->fractional.mode == FS_SHARE_MPS)
        return busy > 1 ? busy : 1.0;
    fs_share_kind kind = (fs_share_kind)unit->share_kind;
    if (busy > 1)
        return fs_mps_slowdown(kind, unit->compute_share) * busy;
    return fs_mps_slowdown(kind, unit->compute_share / busy);
}

double fs_pool__stretch(const fs_pool *p, uint32_t k)
{
    /* Each of k busy tenants gets 1/k of the GPU's time, and every slice
     * switch costs switch_overhead: k x (1 + overhead/slice) for pure time
     * sharing (exponent 1).  The exponent bends it for workloads that
     * overlap (< 1) or thrash caches (> 1). */
    return pow((double)k, p->spec->time_slicing.contention_exponent) * p->slice_stretch;
}

void fs__pool_shared_unit_busy(fs_pool *p, double now, size_t u, int delta)
{
    const fs_pool_unit_load *unit = &p->load[u];
    uint32_t before = p->gpu_busy_units[unit->gpu];
    p->gpu_busy_units[unit->gpu] = before + delta;
    double change;
    if (p->spec->partitioning == FS_PARTITION_TIME_SLICED) {
        change = (before == 0) - (before + delta == 0); /* the GPU is busy while any seat is */
    } else {
        double was = fs__busy_compute(p, unit->gpu, before);
        p->unit_busy[u] += delta;
        change = fs__busy_compute(p, unit->gpu, before + delta) - was;
    }
    fs__pool_busy_change(p, now, change);
}

/* A seat of a time-sliced GPU switches a tenant's share of it, a fractional
 * seat its tenant's compute share; a whole GPU or MIG instance switches its
 * compute. */
static double fs__switch_weight(const fs_pool *p, size_t u)
{
    if (p->spec->partitioning == FS_PARTITION_FRACTIONAL)
        return p->load[u].compute_share;
    const fs_unit *unit = &p->units->units[u];
    return p->spec->partitioning == FS_PARTITION_TIME_SLICED ? unit->charge_share
                                                              : unit->compute_share;
}

void fs_pool_unit_switching(fs_pool *p, double now, size_t u, int delta)
{
    double change = delta * fs__switch_weight(p, u);
    fs_level_add(&p->switching, now, change);
    fs_level_add(&p->idle, now, -change);
}

void fs_pool_gpu_reconfiguring(fs_pool *p, double now, int delta)
{
    fs_level_add(&p->switching, now, delta);
    fs_level_add(&p->idle, now, -delta);
    fs_level_add(&p->reconfiguring, now, delta);
    p->repartitions += delta > 0;
}

void fs_pool_gpus_present(fs_pool *p, double now, int delta)
{
    fs_level_add(&p->present, now, delta);
    fs_level_add(&p->idle, now, delta);
}

void fs_pool_start_measuring(fs_pool *p, double now)
{
    fs_level_restart(&p->present, now);
    fs_level_restart(&p->switching, now);
    fs_level_restart(&p->busy, now);
    fs_level_restart(&p->idle, now);
    fs_level_restart(&p->reconfiguring, now);
    p->repartitions = 0;
    p->window_start = now;
    p->window_area_mark = 0;
}

void fs_pool_close_window(fs_pool *p, double now, fs_pool_window *row)
{
    fs_level_flush(&p->busy, now);
    double busy = now > p->window_start ? (p->busy.area - p->window_area_mark) / (now - p->window_start) : 0;
    *row = (fs_pool_window){
        .start_s = p->window_start,
        .end_s = now,
        .busy_gpus = busy,
        .gpus = p->present.value,
        .utilization = p->present.value > 0 ? busy / p->present.value : 0,
    };
    p->window_area_mark = p->busy.area;
    p->window_start = now;
}

void fs_pool_finish(fs_pool *p, double now, fs_pool_rep *out)
{
    fs_level_flush(&p->present, now);
    fs_level_flush(&p->busy, now);
    fs_level_flush(&p->switching, now);
    fs_level_flush(&p->idle, now);
    out->gpu_s = p->present.area;
    out->busy_gpu_s = p->busy.area;
    out->switching_gpu_s = p->switching.area;
    out->idle_gpu_s = p->idle.area;
    fs_level_flush(&p->reconfiguring, now);
    out->repartitions = p->repartitions;
    out->reconfigure_gpu_s = p->reconfiguring.area;
}

#include "pool.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>


int fs_pool_init(fs_pool *p, const fs_pool_spec *spec, const fs_pool_units *units)
{
    *p = (fs_pool){.spec = spec, .units = units, .slice_stretch = 1.0};
    uint32_t max_gpus = spec->max_gpus > spec->gpus ? spec->max_gpus : spec->gpus;
    p->gpu_busy_units = calloc(max_gpus, sizeof *p->gpu_busy_units);
    p->load = malloc((units->n_units_max ? units->n_units_max : 1) * sizeof *p->load);
    if (!p->gpu_busy_units || !p->load) {
        fs_pool_fini(p);
        return ENOMEM;
    }
    for (size_t u = 0; u < units->n_units_max; u++)
        p->load[u] = (fs_pool_unit_load){units->units[u].gpu, units->units[u].compute_share};
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
    p->gpu_busy_units = NULL;
    p->load = NULL;
}

double fs_pool__stretch(const fs_pool *p, uint32_t k)
{
    /* Each of k busy tenants gets 1/k of the GPU's time, and every slice
     * switch costs switch_overhead: k x (1 + overhead/slice) for pure time
     * sharing (exponent 1).  The exponent bends it for workloads that
     * overlap (< 1) or thrash caches (> 1). */
    return pow((double)k, p->spec->time_slicing.contention_exponent) * p->slice_stretch;
}

void fs_pool_unit_busy(fs_pool *p, double now, size_t u, int delta)
{
    const fs_pool_unit_load *unit = &p->load[u];
    uint32_t before = p->gpu_busy_units[unit->gpu];
    p->gpu_busy_units[unit->gpu] = before + delta;
    double change;
    if (p->spec->partitioning == FS_PARTITION_TIME_SLICED)
        change = (before == 0) - (before + delta == 0); /* the GPU is busy while any seat is */
    else
        change = delta * unit->compute_share;
    if (change != 0) {
        fs_level_add(&p->busy, now, change);
        fs_level_add(&p->idle, now, -change);
    }
}

/* A seat of a time-sliced GPU switches a tenant's share of it; a whole GPU or
 * MIG instance switches its compute. */
static double fs__switch_weight(const fs_pool *p, const fs_unit *unit)
{
    return p->spec->partitioning == FS_PARTITION_TIME_SLICED ? unit->charge_share
                                                              : unit->compute_share;
}

void fs_pool_unit_switching(fs_pool *p, double now, size_t u, int delta)
{
    double change = delta * fs__switch_weight(p, &p->units->units[u]);
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

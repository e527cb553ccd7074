#include "pool.h"

#include "grow.h"

#include <errno.h>
#include <stdlib.h>

void fs_pool_init(fs_pool *p, const fs_pool_spec *spec)
{
    *p = (fs_pool){.spec = spec};
    fs_level_init(&p->busy, 0, 0);
    fs_level_init(&p->idle, 0, spec->gpus);
    fs_level_init(&p->window_busy, 0, 0);
}

void fs_pool_fini(fs_pool *p)
{
    free(p->windows);
    p->windows = NULL;
}

void fs_pool_start_measuring(fs_pool *p, double now)
{
    fs_level_restart(&p->busy, now);
    fs_level_restart(&p->idle, now);
    fs_level_restart(&p->window_busy, now);
    p->window_start = now;
}

int fs_pool_close_window(fs_pool *p, double now)
{
    fs_pool_window *windows = fs_grow(p->windows, &p->cap_windows, p->n_windows + 1, sizeof *windows, 64);
    if (!windows)
        return ENOMEM;
    p->windows = windows;
    double busy = fs_level_mean(&p->window_busy, now);
    p->windows[p->n_windows++] = (fs_pool_window){
        .start_s = p->window_start,
        .end_s = now,
        .busy_gpus = busy,
        .utilization = busy / p->spec->gpus,
    };
    fs_level_restart(&p->window_busy, now);
    p->window_start = now;
    return 0;
}

void fs_pool_finish(fs_pool *p, double now, fs_pool_rep *out)
{
    fs_level_flush(&p->busy, now);
    fs_level_flush(&p->idle, now);
    out->gpu_s = p->spec->gpus * (now - p->busy.since);
    out->busy_gpu_s = p->busy.area;
    out->idle_gpu_s = p->idle.area;
    out->windows = p->windows;
    out->n_windows = p->n_windows;
    p->windows = NULL;
    p->n_windows = p->cap_windows = 0;
}
